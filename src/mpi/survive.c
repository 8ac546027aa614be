/* A job of several runs (a job file, a concurrent group, a rank sweep)
 * goes on without the ranks it lost: the watchdog ends a run, not the job.
 *
 * Who is lost is decided inside a run, where --timeout applies: its rank 0,
 * past the limit, asks every rank of the run to answer (watchdog.c) and
 * tells the job which did not (a NOTE to every live rank). When rank 0
 * itself does not answer, the run's other ranks give up on it at 2 x SECS +
 * 1 and say so at the end of the step (a REPORT with the suspicion); the
 * step's coordinator then asks the run's ranks that have not reported (a
 * ROLL), and those that do not answer within the grace are lost. A lost
 * rank never takes part again: when it wakes, it sees so and parks.
 *
 * Each step (a section, a group, a sweep's point) ends in a settle:
 * normally one non-blocking allreduce over the live ranks; once a rank is
 * lost or given up on, through the coordinator instead (the rank a NOTE
 * names, else the lowest live rank neither lost nor given up on): every
 * rank sends it a REPORT, it answers with a VERDICT, and the live ranks
 * make a communicator of their own (MPI_Comm_create_group, collective over
 * them alone). Every wait polls; nothing waits on a rank that may be stopped.
 * Messages carry the step, and their tags its parity, so that a rank one
 * step ahead leaves its messages queued for the next.
 *
 * At the end, a job that lost ranks cannot MPI_Finalize (every process of
 * the job takes part in it): once every live rank has printed and recorded
 * all it had, they leave with _exit, and mpirun ends the lost ones. */
#define _GNU_SOURCE
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "survive.h"

/* Tags on the job's communicator; the NOTE..ALIVE ones plus 8 x (step & 1). */
#define TAG_NOTE 900   /* [step, coordinator or -1, n, lost ranks...] */
#define TAG_REPORT 901 /* [step, 2k, v[2k], given-up leader or -1, n, that run's ranks...] */
#define TAG_VERDICT 902 /* [step, 2k, v[2k], n, lost ranks...] */
#define TAG_ROLL 903   /* [step, leader]: are you alive? (the run of leader is given up) */
#define TAG_ALIVE 904  /* [step] */
#define TAG_GROUP 7000 /* MPI_Comm_create_group's, + the step modulo 1000 */

static double now_s(void)
{
    return pfs_now();
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int tag(const struct drv_jobctl *jc, int base)
{
    return base + 8 * (jc->step & 1);
}

void drv_job_post(const struct drv_jobctl *jc, int dest, int t, const int *v, int n)
{
    int *copy = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!copy)
        return; /* no memory: the receiver hears it from another, or waits for the end */
    memcpy(copy, v, sizeof(int) * (size_t)n);
    MPI_Request r;
    MPI_Isend(copy, n, MPI_INT, dest, t, jc->top, &r);
    MPI_Request_free(&r);
    pfs_agree_keep(copy);
}

/* Local. The ints of a message Iprobe found (malloc'ed), or NULL. */
static int *take(const struct drv_jobctl *jc, MPI_Status *st, int *n)
{
    MPI_Get_count(st, MPI_INT, n);
    int *v = malloc(sizeof(int) * (size_t)(*n > 0 ? *n : 1));
    MPI_Recv(v ? v : (int[1]){0}, v ? *n : 0, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, jc->top, MPI_STATUS_IGNORE);
    return v;
}

static void mark_lost(struct drv_jobctl *jc, int r)
{
    if (r >= 0 && r < jc->n && !jc->lost[r]) {
        jc->lost[r] = 1;
        jc->nlost++;
    }
}

void drv_job_top_ranks(const struct drv_jobctl *jc, MPI_Comm comm, int *r, int n)
{
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    for (int i = 0; i < n; i += 256) { /* in slices: the call wants its input and output apart */
        int in[256], m = n - i < 256 ? n - i : 256;
        memcpy(in, r + i, sizeof(int) * (size_t)m);
        MPI_Group_translate_ranks(g, m, in, jc->topg, r + i);
    }
    MPI_Group_free(&g);
}

int drv_job_top_rank(const struct drv_jobctl *jc, MPI_Comm comm, int r)
{
    drv_job_top_ranks(jc, comm, &r, 1);
    return r;
}

/* Local: the step's coordinator as this rank sees it. */
static int coordinator(const struct drv_jobctl *jc)
{
    if (jc->coord >= 0 && !jc->lost[jc->coord])
        return jc->coord;
    for (int i = 0; i < jc->nlive; i++)
        if (!jc->lost[jc->live_top[i]] && !jc->excl[jc->live_top[i]])
            return jc->live_top[i];
    return jc->me;
}

static void note_all(struct drv_jobctl *jc, const int *lost, int nlost, int coord)
{
    int *v = malloc(sizeof(int) * (size_t)(nlost + 3));
    if (!v)
        return;
    v[0] = jc->step;
    v[1] = coord;
    v[2] = nlost;
    memcpy(v + 3, lost, sizeof(int) * (size_t)nlost);
    for (int i = 0; i < jc->nlive; i++)
        if (jc->live_top[i] != jc->me)
            drv_job_post(jc, jc->live_top[i], tag(jc, TAG_NOTE), v, nlost + 3);
    free(v);
}

/* Rank 0 of a run, or the coordinator: which ranks the job goes on without. */
static void say_left_out(const struct drv_jobctl *jc, const int *ranks, int n)
{
    if (!n)
        return;
    fprintf(stderr, "pfsbench: job: %d rank%s did not answer within %g s and %s left out of the job (rank%s", n,
            n == 1 ? "" : "s", jc->grace, n == 1 ? "is" : "are", n == 1 ? "" : "s");
    for (int i = 0; i < n && i < 16; i++)
        fprintf(stderr, " %d", ranks[i]);
    fprintf(stderr, "%s)\n", n > 16 ? " ..." : "");
}

void drv_job_lost(struct drv_jobctl *jc, const int *top_ranks, int n)
{
    say_left_out(jc, top_ranks, n);
    for (int i = 0; i < n; i++)
        mark_lost(jc, top_ranks[i]);
    jc->regroup = 1;
    note_all(jc, top_ranks, n, -1);
}

/* The coordinator takes a report (its own too): statuses, and a leader
 * given up on, whose run's other ranks are asked to answer. */
static void take_report(struct drv_jobctl *jc, int from, const int *v, int k2, int suspect, const int *mem, int nm)
{
    jc->regroup = 1;
    jc->reported[from] = 1;
    if (jc->roll[from] == 1)
        jc->roll[from] = 2;
    for (int i = 0; i < k2 && i < 2 * jc->k; i++)
        if (v[i] > jc->acc[i])
            jc->acc[i] = v[i];
    if (suspect < 0 || suspect >= jc->n)
        return;
    jc->excl[suspect] = 1;
    const int ask[2] = {jc->step, suspect};
    for (int i = 0; i < nm; i++) {
        const int m = mem[i];
        if (m < 0 || m >= jc->n || m == jc->me || jc->lost[m] || jc->reported[m] || jc->roll[m])
            continue;
        jc->roll[m] = 1;
        drv_job_post(jc, m, tag(jc, TAG_ROLL), ask, 2);
        jc->rolling = 1;
        jc->roll_until = now_s() + jc->grace;
    }
}

/* The coordinator, its roll call over: who did not answer is lost, and
 * every live rank is told, with the coordinator's name. */
static void end_roll(struct drv_jobctl *jc)
{
    int pending = 0;
    for (int r = 0; r < jc->n; r++)
        pending += jc->roll[r] == 1 && !jc->lost[r];
    if (!jc->rolling || (pending && now_s() < jc->roll_until))
        return;
    int *gone = malloc(sizeof(int) * (size_t)(pending ? pending : 1)), n = 0;
    for (int r = 0; gone && r < jc->n; r++)
        if (jc->roll[r] == 1 && !jc->lost[r]) {
            mark_lost(jc, r);
            gone[n++] = r;
        }
    jc->rolling = 0;
    jc->coord = jc->me;
    say_left_out(jc, gone, n);
    note_all(jc, gone ? gone : (int[1]){0}, n, jc->me);
    free(gone);
}

static void on_note(struct drv_jobctl *jc, const int *v, int n)
{
    for (int i = 3; i < n && i < 3 + v[2]; i++)
        mark_lost(jc, v[i]);
    if (n >= 3 && v[0] == jc->step) {
        jc->regroup = 1;
        if (v[1] >= 0)
            jc->coord = v[1];
    }
}

int drv_job_poll(struct drv_jobctl *jc, int leader)
{
    if (jc->parked)
        return DRV_JOB_PARK;
    const int tags[] = {TAG_NOTE, TAG_ROLL, TAG_ALIVE, TAG_REPORT};
    for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
        int flag = 1;
        while (flag) {
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, tag(jc, tags[t]), jc->top, &flag, &st);
            if (!flag)
                break;
            int n = 0, *v = take(jc, &st, &n);
            const int src = st.MPI_SOURCE;
            if (!v || n < 1 || v[0] != jc->step) {
                free(v); /* a message of a step gone by */
                continue;
            }
            if (tags[t] == TAG_NOTE) {
                on_note(jc, v, n);
            } else if (tags[t] == TAG_ROLL && n >= 2) {
                drv_job_post(jc, src, tag(jc, TAG_ALIVE), v, 1);
                jc->regroup = 1;
                jc->gone = v[1];
                if (v[1] >= 0 && v[1] < jc->n)
                    jc->excl[v[1]] = 1;
            } else if (tags[t] == TAG_ALIVE) {
                if (jc->roll[src] == 1)
                    jc->roll[src] = 2;
            } else if (n >= 2 && n >= 4 + v[1] && n >= 4 + v[1] + v[3 + v[1]]) {
                const int k2 = v[1], sus = v[2 + k2], nm = v[3 + k2];
                take_report(jc, src, v + 2, k2, sus, v + 4 + k2, nm);
                if (sus >= 0 && sus == leader)
                    jc->gone = sus;
            }
            free(v);
        }
    }
    end_roll(jc);
    if (jc->lost[jc->me])
        return DRV_JOB_PARK;
    if (leader >= 0 && (jc->lost[leader] || jc->gone == leader))
        return DRV_JOB_LEAVE;
    return 0;
}

void drv_job_suspect(struct drv_jobctl *jc, int leader, MPI_Comm comm)
{
    int n = 0;
    MPI_Comm_size(comm, &n);
    free(jc->members);
    jc->members = malloc(sizeof(int) * (size_t)n);
    jc->nmembers = jc->members ? n : 0;
    for (int i = 0; i < jc->nmembers; i++)
        jc->members[i] = i;
    drv_job_top_ranks(jc, comm, jc->members, jc->nmembers);
    jc->suspect = leader;
    if (leader >= 0 && leader < jc->n)
        jc->excl[leader] = 1;
    jc->regroup = 1;
}

/* ---- the step ---- */

struct drv_jobctl *drv_job_new(MPI_Comm top, int format, double grace)
{
    struct drv_jobctl *jc = calloc(1, sizeof(*jc));
    int bad = !jc, any = 0;
    if (jc) {
        MPI_Comm_rank(top, &jc->me);
        MPI_Comm_size(top, &jc->n);
        jc->top = top;
        jc->format = format;
        jc->grace = grace;
        jc->live_top = malloc(sizeof(int) * (size_t)jc->n);
        jc->lost = calloc((size_t)jc->n, 1);
        jc->excl = calloc((size_t)jc->n, 1);
        jc->reported = calloc((size_t)jc->n, 1);
        jc->roll = calloc((size_t)jc->n, 1);
        bad = !jc->live_top || !jc->lost || !jc->excl || !jc->reported || !jc->roll;
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, top);
    if (any) {
        drv_job_free(jc);
        return NULL;
    }
    for (int i = 0; i < jc->n; i++)
        jc->live_top[i] = i;
    jc->nlive = jc->n;
    MPI_Comm_group(top, &jc->topg);
    MPI_Comm_dup(top, &jc->live); /* the steps' collectives never share the job's messages */
    jc->coord = jc->suspect = jc->gone = jc->step_set = -1;
    return jc;
}

void drv_job_free(struct drv_jobctl *jc)
{
    if (!jc)
        return;
    if (jc->live != MPI_COMM_NULL && jc->live != 0)
        MPI_Comm_free(&jc->live);
    if (jc->topg != MPI_GROUP_NULL && jc->topg != 0)
        MPI_Group_free(&jc->topg);
    free(jc->live_top);
    free(jc->lost);
    free(jc->excl);
    free(jc->reported);
    free(jc->roll);
    free(jc->acc);
    free(jc->members);
    free(jc->text);
    free(jc);
}

MPI_Comm drv_job_live(const struct drv_jobctl *jc)
{
    return jc->live;
}

int drv_job_parked(const struct drv_jobctl *jc)
{
    return jc->parked;
}

void drv_job_park(struct drv_jobctl *jc)
{
    jc->parked = 1;
}

int drv_job_nlive(const struct drv_jobctl *jc)
{
    return jc->nlive;
}

int drv_job_is_lost(const struct drv_jobctl *jc, int top_rank)
{
    return top_rank >= 0 && top_rank < jc->n && jc->lost[top_rank];
}

int drv_job_step(struct drv_jobctl *jc, int k, int slot)
{
    if (jc->acc && jc->k == k && jc->slot == slot && jc->step_set == jc->step)
        return 0; /* the same step again: what its reports brought stays */
    jc->step_set = jc->step;
    free(jc->acc);
    jc->acc = calloc((size_t)(2 * k), sizeof(int));
    jc->k = jc->acc ? k : 0;
    jc->slot = slot;
    return jc->acc ? 0 : -1;
}



double drv_job_grace(const struct drv_jobctl *jc)
{
    return jc->grace;
}

/* Collective over live, the ordinary end of a step: one allreduce, given up
 * (its buffers kept) when the step turns out to need the coordinator. 1:
 * done, in out. */
static int settle_plain(struct drv_jobctl *jc, const int *v, int *out)
{
    const int k2 = 2 * jc->k;
    int *buf = malloc(sizeof(int) * (size_t)(2 * k2 + 1));
    if (!buf) {
        MPI_Allreduce(v, out, k2, MPI_INT, MPI_MAX, jc->live); /* no memory to watch with */
        return 1;
    }
    memcpy(buf, v, sizeof(int) * (size_t)k2);
    MPI_Request r;
    MPI_Iallreduce(buf, buf + k2, k2, MPI_INT, MPI_MAX, jc->live, &r);
    for (;;) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done) {
            memcpy(out, buf + k2, sizeof(int) * (size_t)k2);
            free(buf);
            return 1;
        }
        drv_job_poll(jc, -1);
        if (jc->regroup || jc->parked) {
            pfs_agree_keep(buf); /* a late rank may still complete it; Open MPI frees no collective in flight */
            return 0;
        }
        nap_ms(1);
    }
}

static int all_reported(const struct drv_jobctl *jc)
{
    for (int i = 0; i < jc->nlive; i++) {
        const int r = jc->live_top[i];
        if (r != jc->me && !jc->lost[r] && !jc->reported[r])
            return 0;
    }
    return !jc->rolling;
}

/* The coordinator: every live rank has reported; the verdict to each. */
static void verdict(struct drv_jobctl *jc, int *out)
{
    const int k2 = 2 * jc->k;
    int *v = malloc(sizeof(int) * (size_t)(k2 + 3 + jc->nlost));
    if (!v)
        return;
    int n = 0;
    v[n++] = jc->step;
    v[n++] = k2;
    memcpy(v + n, jc->acc, sizeof(int) * (size_t)k2);
    n += k2;
    v[n++] = jc->nlost;
    for (int r = 0; r < jc->n; r++)
        if (jc->lost[r])
            v[n++] = r;
    for (int i = 0; i < jc->nlive; i++)
        if (jc->live_top[i] != jc->me && !jc->lost[jc->live_top[i]])
            drv_job_post(jc, jc->live_top[i], tag(jc, TAG_VERDICT), v, n);
    memcpy(out, jc->acc, sizeof(int) * (size_t)k2);
    free(v);
}

/* This rank's report, to the coordinator (itself included). */
static void report_to(struct drv_jobctl *jc, int c, const int *v)
{
    const int k2 = 2 * jc->k, nm = jc->suspect >= 0 ? jc->nmembers : 0;
    if (c == jc->me) {
        take_report(jc, jc->me, v, k2, jc->suspect, jc->members, nm);
        return;
    }
    int *m = malloc(sizeof(int) * (size_t)(k2 + 4 + nm));
    if (!m)
        return;
    m[0] = jc->step;
    m[1] = k2;
    memcpy(m + 2, v, sizeof(int) * (size_t)k2);
    m[2 + k2] = jc->suspect;
    m[3 + k2] = nm;
    if (nm)
        memcpy(m + 4 + k2, jc->members, sizeof(int) * (size_t)nm);
    drv_job_post(jc, c, tag(jc, TAG_REPORT), m, k2 + 4 + nm);
    free(m);
}

/* Collective over the live ranks that are not lost: the step through the
 * coordinator, then their communicator of their own. */
static void settle_regroup(struct drv_jobctl *jc, const int *v, int *out)
{
    const int k2 = 2 * jc->k;
    int sent_to = -1;
    for (;;) {
        if (drv_job_poll(jc, -1) == DRV_JOB_PARK)
            return;
        const int c = coordinator(jc);
        if (c != sent_to) {
            report_to(jc, c, v);
            sent_to = c;
        }
        if (c == jc->me && all_reported(jc)) {
            verdict(jc, out);
            break;
        }
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, tag(jc, TAG_VERDICT), jc->top, &flag, &st);
        if (flag) {
            int n = 0, *m = take(jc, &st, &n);
            if (m && n >= 3 + k2 && m[0] == jc->step && m[1] == k2) {
                memcpy(out, m + 2, sizeof(int) * (size_t)k2);
                for (int i = 0; i < m[2 + k2] && 3 + k2 + i < n; i++)
                    mark_lost(jc, m[3 + k2 + i]);
                free(m);
                break;
            }
            free(m);
        }
        nap_ms(1);
    }
    if (jc->lost[jc->me]) {
        jc->parked = 1;
        return;
    }
    /* The ranks not lost, in their order: a communicator of their own. */
    int n = 0;
    for (int i = 0; i < jc->nlive; i++)
        if (!jc->lost[jc->live_top[i]])
            jc->live_top[n++] = jc->live_top[i];
    jc->nlive = n;
    MPI_Group g;
    MPI_Comm next = MPI_COMM_NULL;
    MPI_Group_incl(jc->topg, n, jc->live_top, &g);
    MPI_Comm_create_group(jc->top, g, TAG_GROUP + jc->step % 1000, &next);
    MPI_Group_free(&g);
    MPI_Comm_free(&jc->live); /* local: a given-up allreduce on it is never waited for */
    jc->live = next;
}


/* Local: the next step's state. */
static void next_step(struct drv_jobctl *jc)
{
    jc->step++;
    jc->regroup = jc->rolling = 0;
    jc->coord = jc->suspect = jc->gone = -1;
    memset(jc->excl, 0, (size_t)jc->n);
    memset(jc->reported, 0, (size_t)jc->n);
    memset(jc->roll, 0, (size_t)jc->n);
    free(jc->members);
    jc->members = NULL;
    jc->nmembers = 0;
    free(jc->text);
    jc->text = NULL;
}

int drv_job_settle(struct drv_jobctl *jc, const int *st, int *all)
{
    const int k = jc->k, before = jc->nlost;
    int *v = calloc((size_t)(4 * k + 1), sizeof(int)), *out = v ? v + 2 * k : NULL;
    if (!v || jc->parked) {
        free(v);
        return -1;
    }
    memcpy(v, st, sizeof(int) * (size_t)k);
    for (int g = 0; g < k; g++)
        v[k + g] = g == jc->slot && jc->text != NULL;
    if (jc->regroup || !settle_plain(jc, v, out))
        settle_regroup(jc, v, out);
    if (!jc->parked) {
        memcpy(all, out, sizeof(int) * (size_t)k);
        drv_job_print_texts(jc, out + k);
    }
    free(v);
    next_step(jc);
    return jc->parked ? -1 : jc->nlost - before;
}




