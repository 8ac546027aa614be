/* The run's placement: where the ranks are, whose data each reads, what
 * their clocks say (topology.c). topology.c alone writes it and frees what
 * it holds; the rest of the driver reads it, and a function that needs
 * only the placement takes a const struct drv_topo *. Private to src/mpi. */
#ifndef PFS_MPI_TOPOLOGY_H
#define PFS_MPI_TOPOLOGY_H

#include <mpi.h>

#include "pfs/config.h"
#include "pfs/core.h"

struct pfs_affinity;

struct drv_topo {
    MPI_Comm comm;              /* the run's, which it describes (not its own) */
    int rank, nranks;
    char host[PFS_HOST_MAX];    /* this rank's */
    char root_host[PFS_HOST_MAX]; /* rank 0's */
    MPI_Comm node_comm;         /* this node's ranks, in rank order */
    MPI_Comm leaders;           /* the lowest rank of each node (its rank: the node's number); */
                                /* MPI_COMM_NULL elsewhere */
    int comms;                  /* the two exist */
    int node, nnodes;           /* this rank's node (numbered in rank order of first appearance); how many */
    int lowest_on_node;         /* this rank is the lowest of its node */
    int shift;                  /* reorder: read the data of rank (r+shift) mod n */
    int rd_from, rd_to;         /* this rank reads the data of rank rd_from; rank rd_to reads its own
                                 * (the shift's, or --reorder-seed's permutation) */
    int reorder_away;           /* every rank reads the data of a rank on another node */
    int reorder_same;           /* --reorder-seed: ranks that read their own node's data (-1: a single rank) */
    double clock_corr, clock_unc; /* this rank's (its node's) clock correction and its uncertainty, seconds */
    /* Rank 0's tables of all ranks (NULL elsewhere): no other rank holds one. */
    int *reads_from;            /* --reorder-seed: whose data each rank reads */
    char (*hosts)[PFS_HOST_MAX]; /* each rank's host */
    int *node_of_rank;          /* each rank's node */
    double *corr, *unc;         /* clock correction and its uncertainty per rank, seconds */
    double *mems;               /* memory of each rank's node, bytes */
    struct pfs_affinity *affinity; /* each rank's CPU affinity and NUMA nodes */
};

/* Local. Nothing held yet; this rank's host name (failures name it before
 * the placement exists). */
void drv_topo_init(struct drv_topo *t);

/* Collective over comm. The placement of comm's ranks: the node and
 * leader communicators, this rank's node and the node count, the reorder
 * shift (or cfg's --reorder-seed permutation), this node's clock against
 * rank 0's; rank 0 alone keeps the tables of all ranks. 0, or -1 when an
 * allocation failed: then *op and detail (len bytes) say which, on the
 * ranks that failed (*op NULL elsewhere). */
int drv_topo_setup(struct drv_topo *t, MPI_Comm comm, const struct pfs_config *cfg, const char **op,
                   char *detail, size_t len);

/* Collective (the communicators). What drv_topo_setup made goes; t is as
 * drv_topo_init left it, its host name kept. */
void drv_topo_fini(struct drv_topo *t);

#endif
