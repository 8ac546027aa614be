/* Which ranks share a node, for any communicator: the placement
 * (topology.c) and the rank sweeps and concurrent groups (sweep.c,
 * concurrent.c) use the one split. Private to src/mpi. */
#ifndef PFS_MPI_NODES_H
#define PFS_MPI_NODES_H

#include <mpi.h>

struct drv_nodes {
    MPI_Comm node_comm; /* the ranks of this rank's node */
    MPI_Comm leaders;   /* the lowest rank of each node; MPI_COMM_NULL on the others */
    int lowest;         /* this rank leads its node */
    int node, nnodes;   /* this rank's node, numbered by each node's lowest rank; the node count */
};

/* Collective over comm. The nodes by shared memory (MPI_Comm_split_type
 * SHARED), or with by_name by host name (hashed, then compared, so that
 * no rank holds more names than its own node's). Returns this rank's
 * flags: 1 its host name is not its node leader's, 8 no memory for its
 * node's names (the split by name is then by hash alone). */
int drv_node_split(MPI_Comm comm, const char *host, int by_name, struct drv_nodes *n);

/* Collective over comm. On rank 0 (which leads node 0): 2 when two nodes
 * have one host name, 8 when it had no memory to tell; 0 elsewhere. */
int drv_node_names_clash(const struct drv_nodes *n, const char *host, MPI_Comm comm);

/* Collective over the node communicator (and the leaders'). */
void drv_node_free(struct drv_nodes *n);

#endif
