/* Where the ranks are and what their clocks say. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* Collective. Measures each rank's clock against rank 0's with ping-pongs
 * and keeps the round with the smallest round trip. */
static void measure_clocks(struct ctx *c, double *corr, double *unc)
{
    const int tag = PFS_TAG_CLOCK;
    if (c->rank == 0) {
        corr[0] = unc[0] = 0;
        for (int r = 1; r < c->nranks; r++) {
            double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS];
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                t0[i] = pfs_now();
                MPI_Send(&t0[i], 1, MPI_DOUBLE, r, tag, c->comm);
                MPI_Recv(&tr[i], 1, MPI_DOUBLE, r, tag, c->comm, MPI_STATUS_IGNORE);
                t1[i] = pfs_now();
            }
            pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &corr[r], &unc[r]);
        }
    } else {
        for (int i = 0; i < CLOCK_ROUNDS; i++) {
            double x;
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, tag, c->comm, MPI_STATUS_IGNORE);
            x = pfs_now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, c->comm);
        }
    }
}

/* Collective. The real placement, from the processor names: nodes in rank
 * order of first appearance, the lowest rank of each node, the reorder
 * shift, clock corrections against rank 0, and (rank 0) each node's memory
 * for the cache warning. 0, or -1 when an allocation failed (recorded). */
int drv_topology_setup(struct ctx *c)
{
    c->hosts = calloc((size_t)c->nranks, PFS_HOST_MAX);
    c->node_of_rank = calloc((size_t)c->nranks, sizeof(int));
    c->corr = calloc((size_t)c->nranks, sizeof(double));
    c->unc = calloc((size_t)c->nranks, sizeof(double));
    c->mems = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(double)) : NULL;
    int bad = !c->hosts || !c->node_of_rank || !c->corr || !c->unc || (c->rank == 0 && !c->mems), any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (any) {
        if (bad)
            drv_set_fail(c, "allocate the placement tables", "", ENOMEM, "%d ranks", c->nranks);
        return -1;
    }
    MPI_Allgather(c->host, PFS_HOST_MAX, MPI_CHAR, c->hosts, PFS_HOST_MAX, MPI_CHAR, c->comm);
    c->nnodes = pfs_placement_nodes((const char(*)[PFS_HOST_MAX])c->hosts, c->nranks, c->node_of_rank);
    c->lowest_on_node = 1;
    for (int q = 0; q < c->rank; q++)
        if (c->node_of_rank[q] == c->node_of_rank[c->rank])
            c->lowest_on_node = 0;
    c->shift = c->cfg.reorder ? pfs_reorder_shift(c->node_of_rank, c->nranks) : 0;
    measure_clocks(c, c->corr, c->unc);
    /* A correction smaller than its own uncertainty is noise (ranks of one
     * node share a clock, and an oversubscribed node stretches the round
     * trips): applying it would skew short phases, so it is not applied. */
    for (int r = 0; r < c->nranks; r++)
        if (fabs(c->corr[r]) <= c->unc[r])
            c->corr[r] = 0;
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    MPI_Gather(&mem, 1, MPI_DOUBLE, c->mems, 1, MPI_DOUBLE, 0, c->comm);
    return 0;
}
