/* The network ceiling between nodes (the figures' struct and arithmetic
 * are the core's, pfs/ceiling.h). Private to the MPI layer; the test
 * probe tests/mpi/ceiling_probe.c includes it too. */
#ifndef PFS_MPI_CEILING_H
#define PFS_MPI_CEILING_H

#include <mpi.h>
#include <stddef.h>

#include "pfs/ceiling.h"

struct pfs_net_opts {
    size_t message; /* bytes per message; 0: 4 MiB */
    int window;     /* messages in flight each way; 0: 4 */
    int rounds;     /* timed rounds of a window each; 0: 8 (one more, untimed, warms up) */
};

/* Collective over comm; untimed (run it outside the phases). The rank that
 * says it leads its node (its lowest rank; the others only wait) sends
 * window messages of message bytes to the next node's leader and receives
 * as many from the previous one's at once, point to point, rounds times,
 * after a barrier of the leaders. out on every rank: the node count and
 * the figures (pfs_ceiling_net_figures); out->node (each node's host,
 * seconds and rate) on the lowest leading rank only, which is rank 0 when
 * the leaders are the nodes' lowest ranks. One node: out->nnodes 1 and no
 * figures. Returns 0 on every rank, or -1 on every rank with err set when
 * a leader could not allocate its buffers (nothing was sent). */
int pfs_ceiling_network(MPI_Comm comm, int leads, const struct pfs_net_opts *o, struct pfs_net_ceiling *out,
                        char *err, size_t errlen);

#endif
