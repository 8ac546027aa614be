/* When a watchdog fires: rank 0's polling of an agreement (agree.c) or a
 * rank's stall thread (src/core/watch.c), which sees calls blocked in the
 * kernel. Rank 0 first asks every rank to remove what it created and
 * answer; it records the run naming the ranks that did not finish, and
 * those that did not answer. A plain run then ends the job (exit 3). A run
 * inside a job (survive.c) ends alone: rank 0 tells the others which ranks
 * did not answer, and every rank that did leaves the run (drv_run_one's
 * leave_at) while the job goes on without the silent ones. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "survive.h"

/* Rank 0 and the others over PFS_TAG_ABORT: [kind, ...] */
#define KIND_NOTICE 1  /* rank 0: the run is ending; remove your files and answer */
#define KIND_ANSWER 2  /* a rank: done */
#define KIND_VERDICT 3 /* rank 0: [3, n, the ranks of the run that are lost...]; leave */

#define GAP_NS 1000000000LL /* the stall thread missed a second of looks: the process did not run */

/* Local: a message of ints to a rank that may never take it. */
static void post(struct ctx *c, int dest, int tag, const int *v, int n)
{
    int *copy = malloc(sizeof(int) * (size_t)n);
    if (!copy)
        return;
    memcpy(copy, v, sizeof(int) * (size_t)n);
    MPI_Request r;
    MPI_Isend(copy, n, MPI_INT, dest, tag, c->comm, &r);
    MPI_Request_free(&r);
    pfs_agree_keep(copy);
}

/* Local: how long this rank did not run (stopped, or its node froze) since
 * `since`, as its polling and its stall thread saw it; 0 below the noise. */
static double own_gap(struct ctx *c, double since)
{
    const int64_t now = (int64_t)pfs_now_ns(), tick = __atomic_load_n(&c->tick_ns, __ATOMIC_RELAXED);
    const int64_t gap = __atomic_load_n(&c->gap_ns, __ATOMIC_RELAXED);
    const int64_t end = __atomic_load_n(&c->gap_end_ns, __ATOMIC_RELAXED);
    double s = c->ag.stood_still;
    if (gap && (double)(now - end) * 1e-9 < pfs_now() - since && (double)gap * 1e-9 > s)
        s = (double)gap * 1e-9;
    if (tick && (double)(now - tick) * 1e-9 > s) /* the stall thread has not looked since the process woke */
        s = (double)(now - tick) * 1e-9;
    const double noise = c->cfg.timeout / 2 > 1 ? c->cfg.timeout / 2 : 1;
    return s >= noise ? s : 0;
}

/* Local: the run can be left here (no other thread of this rank waits on
 * the main thread). */
static int can_leave(const struct ctx *c, const char *where)
{
    return c->can_leave && strcmp(where, DRV_WHERE_STONEWALL) != 0;
}

/* Local, inside a job: this rank leaves the run, now (back in drv_run_one)
 * or, inside the stonewall agreement, at the next agreement after it. */
static void leave(struct ctx *c, const char *where)
{
    c->ag.broken = 1;
    if (can_leave(c, where))
        longjmp(c->leave_at, 1);
}

static void on_broken(void *arg, const char *where)
{
    leave(arg, where);
}

/* Local: rank 0 records the run (once) and, inside a job, hands its JSON or
 * CSV to the job. */
static void record(struct ctx *c, const char *msg)
{
    drv_record_watchdog(c, msg);
    if (c->jc && c->rec.d)
        drv_report_out(c, c->rec.d);
}

/* Local: remove what this rank made, once (the stall thread and the main
 * thread may both come here). */
static void remove_once(struct ctx *c)
{
    if (!__atomic_exchange_n(&c->ending, 1, __ATOMIC_ACQ_REL))
        drv_remove_run_files(c);
}

/* Local, a rank left out of the job: say so, and park (drv_run_one returns,
 * the job's loops stop, drv_job_finish waits for the end). Rank 0 of the
 * run records it, naming itself, if nobody did. */
static void park(struct ctx *c, const char *where)
{
    const double gap = own_gap(c, pfs_now() - 1e9);
    char msg[600], ran[96] = " in time";
    if (gap > 0)
        snprintf(ran, sizeof(ran), ": it did not run for %.1f s (stopped, or its node froze)", gap);
    snprintf(msg, sizeof(msg), "watchdog: rank %d on %s did not answer at %s%s; the job went on without it", c->rank,
             c->topo.host, where, ran);
    fprintf(stderr, "pfsbench: error: %s; this rank waits for the job's end\n", msg);
    if (c->rank == 0)
        record(c, msg);
    remove_once(c);
    drv_job_park(c->jc);
    leave(c, where);
}

/* Local, inside a job, rank 0 that the other ranks gave up on (it did not
 * answer for 2 x SECS + 1): it records the run naming itself, tells the
 * ranks still waiting to leave, and leaves; the job's coordinator asks who
 * is alive. */
static void yield(struct ctx *c, const char *where)
{
    const double gap = own_gap(c, pfs_now() - 1e9);
    char msg[600];
    if (gap > 0)
        snprintf(msg, sizeof(msg), "watchdog: rank 0 on %s did not run for %.1f s (stopped, or its node froze) "
                 "during %s; the other ranks gave up waiting for it", c->topo.host, gap, where);
    else
        snprintf(msg, sizeof(msg), "watchdog: rank 0 on %s did not answer during %s within %g s; the other ranks "
                 "gave up waiting for it", c->topo.host, where, 2 * c->cfg.timeout + 1);
    fprintf(stderr, "pfsbench: error: %s\n", msg);
    record(c, msg);
    const int v[2] = {KIND_VERDICT, 0};
    for (int r = 1; r < c->nranks; r++)
        post(c, r, PFS_TAG_ABORT, v, 2);
    remove_once(c);
    leave(c, where);
}

/* Rank 0 inside a job: another rank gave up on it. */
static int given_up(struct ctx *c)
{
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, PFS_TAG_GIVEUP, c->comm, &flag, MPI_STATUS_IGNORE);
    return flag;
}

/* Rank 0: every other rank is told the run is ending (it removes its files
 * and answers); waits `grace` s at most. answered[r-1]. Returns how many
 * answered, or -1 inside a job when a rank gave up on rank 0 meanwhile. */
static int roll_call(struct ctx *c, int *answered, double grace)
{
    const int notice = KIND_NOTICE;
    for (int r = 1; r < c->nranks; r++)
        post(c, r, PFS_TAG_ABORT, &notice, 1);
    int n = 0;
    const double until = pfs_now() + grace;
    struct timespec nap = {0, 1000000};
    while (n < c->nranks - 1 && pfs_now() < until) {
        int flag = 0, v[4];
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, PFS_TAG_ABORT, c->comm, &flag, &st);
        if (flag) {
            MPI_Recv(v, 4, MPI_INT, st.MPI_SOURCE, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
            if (st.MPI_SOURCE > 0 && !answered[st.MPI_SOURCE - 1]++)
                n++;
            continue;
        }
        if (c->jc && given_up(c))
            return -1;
        nanosleep(&nap, NULL);
    }
    return n;
}

/* Rank 0's sentence: who did not finish `where` in time, who did not
 * answer, and whether rank 0 itself stood still. */
static void compose(struct ctx *c, const int *arrived, const int *answered, const char *where, double gap,
                    char *msg, size_t len)
{
    int late = 0, mute = 0;
    for (int r = 1; r < c->nranks; r++) {
        late += !arrived[r - 1];
        mute += arrived[r - 1] && !answered[r - 1];
    }
    size_t m = 0;
    if (gap > 0)
        m += (size_t)snprintf(msg, len, "watchdog: rank 0 on %s did not run for %.1f s (stopped, or its node froze) "
                              "during %s, past the %g s limit;", c->topo.host, gap, where, c->cfg.timeout);
    else if (late)
        m += (size_t)snprintf(msg, len, "watchdog: %d rank%s did not finish %s within %g s:", late,
                              late == 1 ? "" : "s", where, c->cfg.timeout);
    else if (!mute)
        m += (size_t)snprintf(msg, len, "watchdog: every rank reached %s, but the agreement there did not complete "
                              "within %g s (a rank stalled inside MPI);", where, c->cfg.timeout);
    else
        m += (size_t)snprintf(msg, len, "watchdog: %s did not complete within %g s:", where, c->cfg.timeout);
    for (int r = 1, listed = 0; r < c->nranks && m < len; r++) {
        if (arrived[r - 1] && answered[r - 1])
            continue;
        if (listed++ >= 32)
            break;
        m += (size_t)snprintf(msg + m, len - m, " rank %d on %s%s;", r, c->topo.hosts[r],
                              !arrived[r - 1] && answered[r - 1] ? " (late; it answered)"
                              : arrived[r - 1] ? " reached it but did not answer (stopped, or stalled inside MPI)"
                              : gap > 0 ? " did not finish" : "");
    }
}

/* Rank 0, the watchdog fired at an agreement: ask, name, record, remove.
 * A plain run then aborts the job; inside a job the run is left and the
 * job told which ranks are lost. */
static void on_agree_timeout(void *arg, const int *arrived, const char *where)
{
    struct ctx *c = arg;
    if (!c->jc && __atomic_exchange_n(&c->ending, 1, __ATOMIC_ACQ_REL))
        for (;;)
            pause(); /* the stall thread is ending the job already */
    if (c->jc && given_up(c)) {
        yield(c, where);
        return;
    }
    const double gap = own_gap(c, pfs_now() - c->cfg.timeout - 1);
    int *answered = calloc((size_t)c->nranks, sizeof(int));
    const double grace = c->jc ? drv_job_grace(c->jc) : 2;
    if (!answered || roll_call(c, answered, grace) < 0) {
        free(answered);
        if (c->jc) {
            yield(c, where);
            return;
        }
        fprintf(stderr, "pfsbench: error: watchdog: %s did not complete within %g s; aborting the job\n", where,
                c->cfg.timeout);
        MPI_Abort(c->comm, PFS_EXIT_TIMEOUT);
    }
    char msg[1024];
    compose(c, arrived, answered, where, gap, msg, sizeof(msg));
    fprintf(stderr, "pfsbench: error: %s %s\n", msg, c->jc ? "ending the run" : "aborting the job");
    record(c, msg);
    if (c->jc)
        remove_once(c); /* the stall thread may have begun it */
    else
        drv_remove_run_files(c);
    fflush(stderr);
    if (!c->jc) {
        MPI_Abort(c->comm, PFS_EXIT_TIMEOUT);
        _exit(PFS_EXIT_TIMEOUT); /* MPI_Abort does not return; should it, end here */
    }
    /* Inside a job: the ranks that did not answer are lost; the others are told, and leave. */
    int *v = malloc(sizeof(int) * (size_t)(c->nranks + 2)), *top = malloc(sizeof(int) * (size_t)c->nranks), n = 0;
    for (int r = 1; v && top && r < c->nranks; r++)
        if (!answered[r - 1]) {
            v[2 + n] = r;
            top[n++] = drv_job_top_rank(c->jc, c->comm, r);
        }
    if (v) {
        v[0] = KIND_VERDICT;
        v[1] = n;
        for (int r = 1; r < c->nranks; r++)
            post(c, r, PFS_TAG_ABORT, v, n + 2);
    }
    if (n)
        drv_job_lost(c->jc, top, n);
    free(v);
    free(top);
    free(answered);
    leave(c, where);
}

/* Another rank inside a job: rank 0's verdict (w, n ints): this rank is
 * lost (park) or leaves with the others. */
static void take_verdict(struct ctx *c, const int *w, int n, const char *where)
{
    for (int i = 2; i < n && i < 2 + w[1]; i++)
        if (w[i] == c->rank) {
            park(c, where);
            return;
        }
    leave(c, where);
}

static void on_root_lost(void *arg, const char *where, double waited);

/* Another rank: rank 0's message. A notice: remove this rank's files and
 * answer; then, in a plain run, wait for rank 0's MPI_Abort, inside a job
 * for its verdict. */
static void on_agree_notice(void *arg, const char *where)
{
    struct ctx *c = arg;
    int v[4] = {0}, n = 0, one = KIND_ANSWER;
    MPI_Status st;
    MPI_Probe(0, PFS_TAG_ABORT, c->comm, &st); /* the caller saw it waiting */
    MPI_Get_count(&st, MPI_INT, &n);
    int *w = malloc(sizeof(int) * (size_t)(n > 2 ? n : 2));
    MPI_Recv(w ? w : v, w ? n : 4, MPI_INT, 0, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
    if (!w)
        w = v;
    if (w[0] == KIND_VERDICT && c->jc) { /* rank 0 gave the run up without asking (it yielded) */
        take_verdict(c, w, n, where);
        if (w != v)
            free(w);
        return;
    }
    if (w != v)
        free(w);
    remove_once(c);
    MPI_Send(&one, 1, MPI_INT, 0, PFS_TAG_ABORT, c->comm);
    if (!c->jc) {
        fflush(stderr);
        for (int i = 0; i < 100; i++)
            usleep(100000);
        _exit(PFS_EXIT_TIMEOUT); /* rank 0's MPI_Abort should have ended us by now */
    }
    /* Rank 0 sends the verdict once its grace is over; should it stall meanwhile, it is given up on. */
    const double since = pfs_now(), until = since + 2 * c->cfg.timeout + 1 + drv_job_grace(c->jc);
    struct timespec nap = {0, 1000000};
    while (pfs_now() < until) {
        int flag = 0;
        MPI_Iprobe(0, PFS_TAG_ABORT, c->comm, &flag, &st);
        if (flag) {
            MPI_Get_count(&st, MPI_INT, &n);
            w = malloc(sizeof(int) * (size_t)(n > 2 ? n : 2));
            MPI_Recv(w ? w : v, w ? n : 4, MPI_INT, 0, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
            if (!w)
                w = v;
            const int verdict = w[0] == KIND_VERDICT;
            if (verdict) {
                int lost = 0;
                for (int i = 2; i < n && i < 2 + w[1]; i++)
                    lost |= w[i] == c->rank;
                if (w != v)
                    free(w);
                if (lost)
                    park(c, where);
                else
                    leave(c, where);
                return;
            }
            if (w != v)
                free(w);
        }
        if (drv_job_poll(c->jc, c->leader_top) == DRV_JOB_PARK) {
            park(c, where);
            return;
        }
        nanosleep(&nap, NULL);
    }
    on_root_lost(c, where, pfs_now() - since);
}

/* Another rank inside a job, past its limit: rank 0 has not answered. It
 * tells rank 0 (should it wake, it leaves too) and leaves; the job's
 * coordinator asks the run's ranks who is alive. */
static void on_root_lost(void *arg, const char *where, double waited)
{
    struct ctx *c = arg;
    fprintf(stderr, "pfsbench: error: watchdog on rank %d (%s): %s did not complete within %.0f s; rank 0 (%s) has "
            "not answered: this rank leaves the run\n", c->rank, c->topo.host, where, waited,
            c->topo.root_host[0] ? c->topo.root_host : "?");
    const int one = 1;
    post(c, 0, PFS_TAG_GIVEUP, &one, 1);
    remove_once(c);
    drv_job_suspect(c->jc, c->leader_top, c->comm);
    c->left.suspect = 1;
    leave(c, where);
}

/* Every rank inside a job, at each look: the job's messages. */
static void on_poll(void *arg, const char *where)
{
    struct ctx *c = arg;
    if (c->ag.broken)
        return;
    if (c->rank == 0 && given_up(c)) {
        yield(c, where);
        return;
    }
    const int act = drv_job_poll(c->jc, c->leader_top);
    if (act == DRV_JOB_PARK)
        park(c, where);
    else if (act == DRV_JOB_LEAVE && c->rank == 0)
        yield(c, where);
    else if (act == DRV_JOB_LEAVE)
        leave(c, where);
}

/* ---- the stall watchdog's callbacks (on its own thread) ---- */

/* A look of the stall thread's. A second or more since the last means the
 * whole process did not run (stopped, or its node froze): counted as
 * progress, since no call was blocked, and kept for rank 0's message. */
static uint64_t watch_progress(void *arg)
{
    struct ctx *c = arg;
    const int64_t now = (int64_t)pfs_now_ns();
    const int64_t last = __atomic_exchange_n(&c->tick_ns, now, __ATOMIC_RELAXED);
    if (last && now - last > GAP_NS) {
        __atomic_store_n(&c->gap_ns, now - last, __ATOMIC_RELAXED);
        __atomic_store_n(&c->gap_end_ns, now, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->gaps, 1, __ATOMIC_RELAXED);
    }
    uint64_t n = __atomic_load_n(&c->gaps, __ATOMIC_RELAXED);
    for (int i = 0; i < c->threads; i++)
        n += __atomic_load_n(&c->streams[i].t.xfers, __ATOMIC_RELAXED) +
             __atomic_load_n(&c->streams[i].work, __ATOMIC_RELAXED);
    return n;
}

static void watch_describe(void *arg, char *buf, size_t len)
{
    struct ctx *c = arg;
    for (int i = 0; i < c->threads; i++) {
        const char *op = __atomic_load_n(&c->streams[i].op, __ATOMIC_RELAXED);
        if (op) {
            char who[32] = "";
            if (c->threads > 1)
                snprintf(who, sizeof(who), " (thread %d)", i);
            char where[PFS_PATH_MAX + 256];
            pfs_stream_where(&c->cfg, c->cur_kind, &c->streams[i], where, sizeof(where));
            if (c->be && c->be->where && c->bectx) { /* its data is not that file: the backend's name of it */
                char path[sizeof(where)];
                memcpy(path, where, sizeof(path));
                c->be->where(c->bectx, path, where, sizeof(where));
            }
            snprintf(buf, len, "%s %s%s", op, where, who);
            return;
        }
    }
    snprintf(buf, len, "a system call");
}

/* The backend may be inside MPI in a phase (collective MPI-IO, a shared
 * file's collective open, parallel HDF5): the other ranks may then be held
 * in a blocking MPI call no poll reaches. */
static int phase_in_mpi(const struct ctx *c)
{
    return (c->be && (c->be->caps & (PFS_CAP_COLLECTIVE | PFS_CAP_FSYNC_COLL))) || pfs_backend_is_module(c->cfg.api);
}

/* Every call of this rank has stood still past the limit, so no poll on
 * the main thread can act: name the rank and the call, record the run
 * (rank 0), remove what this rank knows it created. A plain run (or one
 * whose other ranks may be held inside MPI) ends the job: the exit without
 * MPI_Finalize makes mpirun end the other ranks. Inside a job the thread
 * returns: when the call returns, the main thread finds what rank 0 (or the
 * job) decided; should it never return, the job goes on without this rank. */
static void watch_fire(void *arg, const char *what)
{
    struct ctx *c = arg;
    const int alone = c->jc && !phase_in_mpi(c);
    if (!alone && __atomic_exchange_n(&c->ending, 1, __ATOMIC_ACQ_REL)) {
        sleep(10); /* the main thread is ending the job already; if it cannot, end it here */
        _exit(PFS_EXIT_TIMEOUT);
    }
    char msg[900];
    snprintf(msg, sizeof(msg), "watchdog: rank %d on %s %s", c->rank, c->topo.host, what);
    fprintf(stderr, "pfsbench: error: %s; %s\n", msg, !alone ? "ending the job"
            : c->rank != 0 ? "rank 0 decides whether the job goes on without it"
            : c->rec.in_results ? "the run is recorded when the append returns" : "the run is recorded as failed");
    if (c->rank == 0)
        record(c, msg);
    if (alone)
        remove_once(c);
    else
        drv_remove_run_files(c);
    fflush(stderr);
    fflush(stdout);
    if (!alone)
        _exit(PFS_EXIT_TIMEOUT);
    __atomic_store_n(&c->tick_ns, (int64_t)pfs_now_ns(), __ATOMIC_RELAXED); /* this call's time is no stop */
}

void drv_watchdog_start(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    c->ag.timeout = cfg->timeout;
    c->ag.root_host = c->topo.root_host[0] ? c->topo.root_host : NULL;
    c->ag.on_timeout = on_agree_timeout;
    c->ag.on_notice = on_agree_notice;
    c->ag.arg = c;
    if (c->jc) {
        c->ag.on_root_lost = on_root_lost;
        c->ag.on_poll = on_poll;
        c->ag.on_broken = on_broken;
        c->leader_top = drv_job_top_rank(c->jc, c->comm, 0);
    }
    struct pfs_watch_ops wops = {
        .warn = cfg->stall_warn,
        .timeout = cfg->timeout <= 0 ? 0 : c->rank == 0 ? cfg->timeout : 1.5 * cfg->timeout + 1,
        .tick = 0.05,
        .progress = watch_progress,
        .describe = watch_describe,
        .fire = watch_fire,
        .arg = c,
    };
    c->tick_ns = (int64_t)pfs_now_ns(); /* a stop before the thread's first look is a gap too */
    c->watch = pfs_watch_start(&wops);
    if (!c->watch)
        drv_set_fail(c, "start the watchdog thread", "", EAGAIN, NULL);
}
