/* Rank 0's latency record of a phase: its release, and the CPU seconds of
 * each node's streams (for the figures, pfs/figures.h). */
#include "pfs/latency.h"
#include "pfs/core.h"

#include <stdlib.h>
#include <string.h>

void pfs_lat_free(struct pfs_phase_lat *l)
{
    free(l->run);
    free(l->node_op);
    free(l->run_ts);
    free(l->node_ts);
    free(l->ex);
    free(l->tg);
    memset(l, 0, sizeof(*l));
}

void pfs_node_cpu(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes, double *user,
                  double *sys)
{
    memset(user, 0, sizeof(*user) * (size_t)nnodes);
    memset(sys, 0, sizeof(*sys) * (size_t)nnodes);
    for (int s = 0; s < nstreams; s++) {
        int n = node_of_stream[s];
        if (n < 0 || n >= nnodes)
            continue;
        user[n] += t[s].cpu_user;
        sys[n] += t[s].cpu_sys;
    }
}
