/* Rank 0's latency record of a phase: the small helpers the report and the
 * results writer share. */
#include "pfs/latency.h"
#include "pfs/core.h"

#include <stdlib.h>
#include <string.h>

int pfs_lat_slowest_node(const struct pfs_phase_lat *l, double *p99_ns)
{
    int worst = -1;
    double w = 0;
    for (int n = 0; l->node_op && n < l->nnodes; n++) {
        if (!l->node_op[n].count)
            continue;
        double q = pfs_hist_quantile(&l->node_op[n], 0.99);
        if (worst < 0 || q > w) {
            worst = n;
            w = q;
        }
    }
    if (p99_ns)
        *p99_ns = w;
    return worst;
}

void pfs_lat_free(struct pfs_phase_lat *l)
{
    free(l->run);
    free(l->node_op);
    free(l->run_ts);
    free(l->node_ts);
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
