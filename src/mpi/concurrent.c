/* Concurrent groups (job files, `concurrent = TAG`): consecutive sections
 * with one tag run at the same time, each on its share of the job's nodes
 * (whole nodes, in node order, split by `share`; with fewer nodes than
 * sections, shares of the ranks in round-robin order), each a normal run on
 * a communicator of its own with its own barriers, files and figures. The
 * group leaders (each section's rank 0) meet once at the end of their
 * phases to record the overlap window: the time all sections were running,
 * on the job's rank 0 clock (each leader's offset measured by ping-pong).
 * The leaders meet point to point, each wait polling the job (survive.c):
 * a leader the job lost is left out, and a section whose watchdog gave it
 * up still comes, saying it ran no phase, so that no healthy section waits. */
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/interfere.h"
#include "pfs/jobfile.h"
#include "survive.h"

#define CLOCK_ROUNDS 8
#define TAG_CLOCK 321

/* Each of k groups' count of n units by shares (largest remainder, each >= 1). */
static void split_units(const int *share, int k, int n, int *count)
{
    long total = 0;
    for (int g = 0; g < k; g++)
        total += share[g];
    int left = n - k; /* one each first */
    double frac[64];
    for (int g = 0; g < k; g++) {
        double want = (double)left * share[g] / (double)total;
        count[g] = 1 + (int)want;
        frac[g] = want - floor(want);
    }
    int given = 0;
    for (int g = 0; g < k; g++)
        given += count[g];
    while (given < n) { /* the largest remainders take the rest */
        int best = 0;
        for (int g = 1; g < k; g++)
            if (frac[g] > frac[best])
                best = g;
        count[best]++;
        frac[best] = -1;
        given++;
    }
}

/* Collective over comm. This rank's group among k (whole nodes when there
 * are at least k nodes, else its place in the round-robin order). -1
 * without memory. */
static int my_group(MPI_Comm comm, const int *share, int k)
{
    int rank, nranks, nnodes = 0, count[64], g = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    int *node = drv_rank_nodes(comm, &nnodes);
    int *order = node ? malloc(sizeof(int) * (size_t)nranks) : NULL;
    if (order && pfs_ranks_round_robin(node, nranks, nnodes, order) == 0) {
        if (nnodes >= k) {
            split_units(share, k, nnodes, count);
            for (int s = 0, first = 0; s < k && g < 0; first += count[s++])
                if (node[rank] < first + count[s])
                    g = s;
        } else {
            int me = 0;
            while (order[me] != rank)
                me++;
            split_units(share, k, nranks, count);
            for (int s = 0, first = 0; s < k && g < 0; first += count[s++])
                if (me < first + count[s])
                    g = s;
        }
    }
    free(node);
    free(order);
    return g;
}


/* Waits for r, polling the job: 1 when done; 0 when the leader `peer` (a
 * top rank) is lost or this rank parked (then the request is let go, and
 * its buffer must be one that outlives it). The first millisecond spins,
 * so that a ping-pong's times stay exact. */
static int wait_peer(struct drv_jobctl *jc, MPI_Request *r, int peer)
{
    const double spin = pfs_now() + 1e-3;
    struct timespec nap = {0, 1000000};
    for (;;) {
        int done = 0;
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return 1;
        if (pfs_now() < spin)
            continue;
        if (drv_job_poll(jc, -1) == DRV_JOB_PARK || drv_job_is_lost(jc, peer)) {
            MPI_Request_free(r);
            return 0;
        }
        nanosleep(&nap, NULL);
    }
}

/* One double to or from leader `peer`, polled; 0 when that leader is lost.
 * The buffer is the heap's, and kept when the exchange is given up. */
static int xfer(const struct drv_concurrent *cc, int send, double *x, int peer)
{
    double *b = malloc(sizeof(double));
    if (!b)
        return 0;
    *b = *x;
    MPI_Request r;
    if (send)
        MPI_Isend(b, 1, MPI_DOUBLE, peer, TAG_CLOCK, cc->leaders, &r);
    else
        MPI_Irecv(b, 1, MPI_DOUBLE, peer, TAG_CLOCK, cc->leaders, &r);
    if (!wait_peer(cc->jc, &r, cc->leader_top[peer])) {
        pfs_agree_keep(b);
        return 0;
    }
    *x = *b;
    free(b);
    return 1;
}

/* Leader 0: leader j's clock offset (ping-pong, best of CLOCK_ROUNDS) and
 * its window on leader 0's clock; 0 when j is lost. */
static int meet_leader(const struct drv_concurrent *cc, int j, double *win)
{
    double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS], k, u;
    for (int i = 0; i < CLOCK_ROUNDS; i++) {
        t0[i] = pfs_now();
        double x = t0[i];
        if (!xfer(cc, 1, &x, j) || !xfer(cc, 0, &tr[i], j))
            return 0;
        t1[i] = pfs_now();
    }
    pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &k, &u);
    double c = fabs(k) <= u ? 0 : k; /* noise below the uncertainty is not applied */
    return xfer(cc, 1, &c, j) && xfer(cc, 0, &win[0], j) && xfer(cc, 0, &win[1], j);
}

/* Another leader: its side of the ping-pong, its window on leader 0's
 * clock, the group's figures back; 0 when leader 0 is lost. */
static int meet_first(const struct drv_concurrent *cc, double t0, double t1, double *corr, double *res, double *jx)
{
    for (int i = 0; i < CLOCK_ROUNDS; i++) {
        double x = 0;
        if (!xfer(cc, 0, &x, 0))
            return 0;
        x = pfs_now();
        if (!xfer(cc, 1, &x, 0))
            return 0;
    }
    if (!xfer(cc, 0, corr, 0))
        return 0;
    double a = t0 + *corr, b = t1 + *corr;
    if (!(xfer(cc, 1, &a, 0) && xfer(cc, 1, &b, 0) && xfer(cc, 0, &res[0], 0) && xfer(cc, 0, &res[1], 0) &&
          xfer(cc, 0, &res[2], 0)))
        return 0;
    /* interference: this section's x for Jain's index, the index and its n
     * back; none when leader 0 is lost now (the window stands) */
    if (cc->interference == 2 && !(xfer(cc, 1, &jx[0], 0) && xfer(cc, 0, &jx[0], 0) && xfer(cc, 0, &jx[1], 0)))
        jx[0] = NAN, jx[1] = 0;
    return 1;
}

/* Leader 0, interference: each met leader's x, Jain's index over them
 * and leader 0's own (jx[0]), and the index and its n to each (jx). */
static void meet_jain(const struct drv_concurrent *cc, int *met, double *jx)
{
    double x[64]; /* the parser allows <= 64 sections */
    int used = 0;
    for (int j = 0; j < cc->n && j < 64; j++) {
        x[j] = j == 0 ? jx[0] : NAN;
        if (j > 0 && met[j])
            met[j] = xfer(cc, 0, &x[j], j);
    }
    jx[0] = pfs_jain(x, cc->n < 64 ? cc->n : 64, &used);
    jx[1] = used;
    for (int j = 1; j < cc->n; j++)
        for (int i = 0; met[j] && i < 2; i++)
            met[j] = xfer(cc, 1, &jx[i], j);
}

/* Leader 0: every leader's window, then the group's figures to each: the
 * overlap's start, its length and the span. A section that ran no phase,
 * or whose leader was lost, has no window: then not all ran together. */
static void meet_all(const struct drv_concurrent *cc, double t0, double t1, double *res, double *jx)
{
    double start = t0, end = t1, first = t0, last = t1;
    int all_ran = !isnan(t0);
    int *met = calloc((size_t)cc->n, sizeof(int));
    for (int j = 1; j < cc->n; j++) {
        double w[2] = {NAN, NAN};
        if (met)
            met[j] = meet_leader(cc, j, w);
        all_ran &= met && met[j] && !isnan(w[0]);
        if (!met || !met[j] || isnan(w[0]))
            continue;
        start = isnan(start) ? w[0] : fmax(start, w[0]);
        end = isnan(end) ? w[1] : fmin(end, w[1]);
        first = isnan(first) ? w[0] : fmin(first, w[0]);
        last = isnan(last) ? w[1] : fmax(last, w[1]);
    }
    if (!all_ran)
        end = start; /* no overlap */
    res[0] = start;
    res[1] = end > start ? end - start : 0;
    res[2] = last - first;
    for (int j = 1; met && j < cc->n; j++)
        for (int i = 0; met[j] && i < 3; i++)
            met[j] = xfer(cc, 1, &res[i], j);
    if (met && cc->interference == 2)
        meet_jain(cc, met, jx);
    free(met);
}

/* Collective over the section: its other ranks wait, gently, while its
 * rank 0 meets the other leaders (which may take as long as the longest
 * section). */
static void wait_leader(struct ctx *c)
{
    MPI_Request r;
    struct timespec nap = {0, 1000000};
    int done = 0;
    MPI_Ibarrier(c->comm, &r);
    while (MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
        drv_job_poll(c->jc, -1); /* answers the job's calls; the section's word comes after */
        nanosleep(&nap, NULL);
    }
}

/* Rank 0 of a section run alone (an interference group's round): its
 * figures kept for the together run; no meeting (the others wait). */
static void alone_end(struct ctx *c, const struct drv_concurrent *cc, double t0, double t1)
{
    if (c->rank != 0)
        return;
    cc->alone->n = 0;
    if (!isnan(t0)) {
        drv_ifr_capture(c, cc->alone);
        drv_record_window(&c->rec, cc->tag, cc->names, 0, t0, 0, t1 - t0);
    }
    drv_record_interference(&c->rec, "alone", NULL);
}

void drv_concurrent_window(struct ctx *c, double t0, double t1)
{
    const struct drv_concurrent *cc = c->job ? c->job->concurrent : NULL;
    int record = c->rec.d != NULL;
    if (!cc)
        return;
    if (cc->interference == 1) {
        alone_end(c, cc, t0, t1);
        return;
    }
    if (c->rank != 0) {
        if (!isnan(t0) && c->jc)
            wait_leader(c);
        return;
    }
    if (isnan(t0)) /* this section ran no phase: it still meets the others, or they would wait for it */
        record = 0;
    struct drv_ifr_sum tog = {0};
    struct drv_ifr_fig fig;
    double jx[2] = {NAN, 0}; /* interference: this section's x, then Jain's index and its n */
    if (cc->interference == 2) {
        if (!isnan(t0))
            drv_ifr_capture(c, &tog);
        jx[0] = drv_ifr_ratios(cc->alone, &tog, c->cfg.phases, cc->qos, &fig);
    }
    int me;
    MPI_Comm_rank(cc->leaders, &me);
    double corr = 0, res[3] = {NAN, 0, NAN};
    if (me == 0)
        meet_all(cc, t0, t1, res, jx);
    else if (!meet_first(cc, t0, t1, &corr, res, jx))
        res[0] = NAN, res[1] = 0, res[2] = NAN, jx[0] = NAN, jx[1] = 0; /* leader 0 was lost: no window, no index */
    if (record)
        drv_record_window(&c->rec, cc->tag, cc->names, corr, isnan(res[0]) ? t0 + corr : res[0], res[1],
                          isnan(res[2]) ? t1 - t0 : res[2]);
    if (!c->cfg.quiet && !isnan(res[2]))
        fprintf(c->cfg.format == PFS_FORMAT_TEXT ? drv_record_out(c) : stderr,
                "concurrent   %s (%s): all ran together for %.3f s of the group's %.3f s\n", cc->tag, cc->names,
                res[1], res[2]);
    if (cc->interference == 2) {
        fig.jain = jx[0];
        fig.jain_n = (int)jx[1];
        drv_record_interference(&c->rec, "together", &fig);
        drv_ifr_print(c, cc->tag, cc->alone, &tog, &fig);
    }
    if (!isnan(t0) && c->jc)
        wait_leader(c);
}

/* Collective over the live ranks: one round of the group's sections
 * a .. b-1 (each on its share, placed as always): round -1 all at once (a
 * plain group); in an interference group round r < k only section r (the
 * other ranks wait in the step's end, polling the job), round k all at
 * once. Each section's status into st (the worst any of its ranks had,
 * worse than what st held). 0, or -1 when this rank parked. */
static int group_round(struct drv_jobctl *jc, const struct pfs_jobfile *jf, int a, int b, const struct drv_job *base,
                       int round, struct drv_ifr_sum *alone, int *st)
{
    MPI_Comm live = drv_job_live(jc);
    int rank, nranks, k = b - a, share[64];
    MPI_Comm_rank(live, &rank);
    MPI_Comm_size(live, &nranks);
    struct drv_concurrent cc = {.tag = jf->sec[a].group, .n = k, .jc = jc, .alone = alone,
                                .interference = round < 0 ? 0 : round < k ? 1 : 2};
    for (int i = 0; i < k && i < 64; i++) {
        share[i] = jf->sec[a + i].share;
        size_t n = strlen(cc.names);
        snprintf(cc.names + n, sizeof(cc.names) - n, "%s%s", i ? "," : "", jf->sec[a + i].name);
    }
    if (k > nranks) { /* ranks were lost: the group cannot have one each */
        if (rank == 0)
            fprintf(stderr, "pfsbench: job %s: concurrent = %s: %d sections, %d ranks are left: not run\n", base->path,
                    cc.tag, k, nranks);
        for (int g = 0; g < k; g++)
            st[g] = PFS_EXIT_TIMEOUT;
        return 0;
    }
    int g = k <= 64 ? my_group(live, share, k) : -1, any = 0, bad = g < 0; /* the parser allows <= 64 */
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, live);
    if (any) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: concurrent = %s: could not place %d sections\n", cc.tag, k);
        for (int i = 0; i < k; i++)
            st[i] = PFS_EXIT_IO;
        return 0;
    }
    const int one = cc.interference == 1, runs = one ? 1 : k, slot = one ? (g == round ? 0 : -1) : g;
    drv_job_step(jc, runs, slot);
    MPI_Comm sub, leaders = MPI_COMM_NULL;
    MPI_Comm_split(live, g, rank, &sub);
    int srank;
    MPI_Comm_rank(sub, &srank);
    if (!one)
        MPI_Comm_split(live, srank == 0 ? 0 : MPI_UNDEFINED, g, &leaders);
    cc.leaders = leaders;
    int tops[64];
    if (leaders != MPI_COMM_NULL) { /* each leader's rank in the job, for the job's word on who is lost */
        int top = drv_job_top_rank(jc, live, rank);
        MPI_Allgather(&top, 1, MPI_INT, tops, 1, MPI_INT, leaders);
    }
    cc.leader_top = tops;
    if (rank == 0 && one)
        fprintf(stderr, "pfsbench: job %s: concurrent = %s: interference: section %s alone (%d of %d)\n", base->path,
                cc.tag, jf->sec[a + round].name, round + 1, k);
    else if (rank == 0)
        fprintf(stderr, "pfsbench: job %s: concurrent = %s: sections %s at once%s\n", base->path, cc.tag, cc.names,
                round < 0 ? "" : " (interference: together)");
    struct drv_job job = *base;
    job.section = jf->sec[a + g].name;
    job.index = a + g;
    job.concurrent = &cc;
    cc.qos = jf->sec[a + g].qos;
    int mine[64] = {0}, all[64];
    if (slot >= 0)
        mine[slot] = drv_run_one(sub, jf->sec[a + g].argc, jf->sec[a + g].argv, &job, jc);
    MPI_Comm_free(&sub);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    drv_job_step(jc, runs, slot);
    if (drv_job_settle(jc, mine, all) < 0)
        return -1;
    for (int i = 0; i < runs; i++) {
        int *to = &st[one ? round : i];
        *to = all[i] > *to ? all[i] : *to;
    }
    return 0;
}

/* A group with `interference = 1` on any of its sections. */
static int interference_of(const struct pfs_jobfile *jf, int a, int b)
{
    for (int i = a; i < b; i++)
        if (jf->sec[i].interference)
            return 1;
    return 0;
}

int drv_concurrent_run(struct drv_jobctl *jc, const struct pfs_jobfile *jf, int a, int b, const struct drv_job *base,
                       int *st)
{
    for (int i = 0; i < b - a; i++)
        st[i] = 0;
    if (!interference_of(jf, a, b))
        return group_round(jc, jf, a, b, base, -1, NULL, st);
    struct drv_ifr_sum alone = {0}; /* this rank's section's, on its leader */
    for (int r = 0; r <= b - a; r++) /* each alone, then all together */
        if (group_round(jc, jf, a, b, base, r, &alone, st) < 0)
            return -1;
    return 0;
}
