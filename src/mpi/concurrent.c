/* Concurrent groups (job files, `concurrent = TAG`): consecutive sections
 * with one tag run at the same time, each on its share of the job's nodes
 * (whole nodes, in node order, split by `share`; with fewer nodes than
 * sections, shares of the ranks in round-robin order), each a normal run on
 * a communicator of its own with its own barriers, files and figures. The
 * group leaders (each section's rank 0) meet once at the end of their
 * phases to record the overlap window: the time all sections were running,
 * on the job's rank 0 clock (each leader's offset measured by ping-pong). */
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/jobfile.h"

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

/* Leaders: this leader's clock offset to leader 0 (the job's rank 0),
 * leader 0 ping-ponging the others in turn. */
static double leader_offset(MPI_Comm leaders)
{
    int me, L;
    MPI_Comm_rank(leaders, &me);
    MPI_Comm_size(leaders, &L);
    double corr = 0;
    for (int j = 1; j < L; j++) {
        if (me == 0) {
            double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS], k, u;
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                t0[i] = pfs_now();
                MPI_Send(&t0[i], 1, MPI_DOUBLE, j, TAG_CLOCK, leaders);
                MPI_Recv(&tr[i], 1, MPI_DOUBLE, j, TAG_CLOCK, leaders, MPI_STATUS_IGNORE);
                t1[i] = pfs_now();
            }
            pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &k, &u);
            double c = fabs(k) <= u ? 0 : k; /* noise below the uncertainty is not applied */
            MPI_Send(&c, 1, MPI_DOUBLE, j, TAG_CLOCK, leaders);
        } else if (me == j) {
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                double x;
                MPI_Recv(&x, 1, MPI_DOUBLE, 0, TAG_CLOCK, leaders, MPI_STATUS_IGNORE);
                x = pfs_now();
                MPI_Send(&x, 1, MPI_DOUBLE, 0, TAG_CLOCK, leaders);
            }
            MPI_Recv(&corr, 1, MPI_DOUBLE, 0, TAG_CLOCK, leaders, MPI_STATUS_IGNORE);
        }
    }
    return corr;
}

void drv_concurrent_window(struct ctx *c, double t0, double t1)
{
    const struct drv_concurrent *cc = c->job ? c->job->concurrent : NULL;
    struct pfs_run_data *d = c->rec.d;
    if (!cc || c->rank != 0)
        return;
    if (isnan(t0)) /* this section ran no phase: it still meets the others, or they would wait forever */
        d = NULL;
    double corr = leader_offset(cc->leaders);
    double mine[2] = {t0 + corr, t1 + corr}, *all = malloc(sizeof(double) * 2 * (size_t)cc->n);
    if (!all) {
        MPI_Abort(c->comm, PFS_EXIT_IO); /* the other leaders wait in the gather */
        return;
    }
    MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, cc->leaders);
    /* A section that stopped before its phases (bad input, no lock) says
     * NaN: the others did not all run together, and fmin/fmax skip it. */
    int all_ran = 1;
    double start = all[0], end = all[1], first = all[0], last = all[1];
    for (int g = 0; g < cc->n; g++) {
        all_ran &= !isnan(all[2 * g]);
        start = fmax(start, all[2 * g]);
        end = fmin(end, all[2 * g + 1]);
        first = fmin(first, all[2 * g]);
        last = fmax(last, all[2 * g + 1]);
    }
    free(all);
    if (!all_ran)
        end = start; /* no overlap */
    if (d) {
        d->conc_tag = cc->tag;
        d->conc_sections = cc->names;
        d->conc_clock_corr = corr;
        d->conc_start = start;
        d->conc_overlap_s = end > start ? end - start : 0;
        d->conc_span_s = last - first;
    }
    if (!c->cfg.quiet)
        fprintf(c->cfg.format == PFS_FORMAT_TEXT ? stdout : stderr,
                "concurrent   %s (%s): all ran together for %.3f s of the group's %.3f s\n", cc->tag, cc->names,
                end > start ? end - start : 0, last - first);
}

/* Collective over comm: sections a .. b-1 of jf at once. Returns the
 * first failing section's exit status in section order (0: all passed). */
int drv_concurrent_run(MPI_Comm comm, const struct pfs_jobfile *jf, int a, int b, const struct drv_job *base)
{
    int rank, k = b - a, share[64], rc = 0;
    MPI_Comm_rank(comm, &rank);
    struct drv_concurrent cc = {.tag = jf->sec[a].group, .n = k};
    for (int i = 0; i < k && i < 64; i++) {
        share[i] = jf->sec[a + i].share;
        size_t n = strlen(cc.names);
        snprintf(cc.names + n, sizeof(cc.names) - n, "%s%s", i ? "," : "", jf->sec[a + i].name);
    }
    int g = k <= 64 ? my_group(comm, share, k) : -1, any = 0, bad = g < 0; /* the parser allows <= 64 */
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: concurrent = %s: could not place %d sections\n", cc.tag, k);
        return PFS_EXIT_IO;
    }
    MPI_Comm sub, leaders;
    MPI_Comm_split(comm, g, rank, &sub);
    int srank;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_split(comm, srank == 0 ? 0 : MPI_UNDEFINED, g, &leaders);
    cc.leaders = leaders;
    if (rank == 0)
        fprintf(stderr, "pfsbench: job %s: concurrent = %s: sections %s at once\n", base->path, cc.tag, cc.names);
    struct drv_job job = *base;
    job.section = jf->sec[a + g].name;
    job.index = a + g;
    job.concurrent = &cc;
    int mine = drv_run_one(sub, jf->sec[a + g].argc, jf->sec[a + g].argv, &job);
    MPI_Comm_free(&sub);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    /* The first failure in section order: each section's status at its
     * index, the ranks that finished first waiting without spinning. */
    int st[64] = {0}, all[64];
    st[g] = srank == 0 ? mine : 0;
    drv_wait_allreduce(comm, st, all, k);
    for (int i = 0; i < k && !rc; i++)
        rc = all[i];
    return rc;
}
