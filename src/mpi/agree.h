/* The watched collectives, with a context of their own: the run driver and
 * bench/bench_reduce.c share them. Under a timeout, every rank tells rank 0
 * it has arrived with a small message and joins a non-blocking collective;
 * rank 0 polls both until `since + timeout`, and past that calls on_timeout
 * with the ranks that have arrived. The other ranks give up later (2 x
 * timeout + 1), so that rank 0, which can name the culprit, speaks first;
 * while they wait they honour rank 0's notice that the job is ending
 * (on_notice). Rank 0 never sits in a blocking collective waiting for a
 * stalled rank. With no timeout, the plain blocking collective. */
#ifndef PFS_AGREE_H
#define PFS_AGREE_H

#include <mpi.h>

#define PFS_TAG_ABORT 999   /* rank 0 to the ranks that arrived: the job is ending */

struct pfs_agree {
    MPI_Comm comm;
    int rank, nranks;
    double timeout;             /* seconds; 0: unwatched */
    int epoch;                  /* counter for the arrival messages' tags */
    const char *host;           /* this rank's host, for messages */
    const char *root_host;      /* rank 0's host, for messages */
    /* Rank 0, past the limit: arrived[r-1] says whether rank r arrived. Does not return. */
    void (*on_timeout)(void *arg, const int *arrived, const char *where);
    /* Another rank: rank 0 sent PFS_TAG_ABORT. Does not return. */
    void (*on_notice)(void *arg);
    void *arg;
};

/* Collective. MPI_Allreduce, watched when a->timeout > 0. */
void pfs_agree_allreduce(struct pfs_agree *a, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                         double since, const char *where);

/* Collective. MPI_Gather of bytes per rank to rank 0, watched likewise: a
 * rank that stalls between the agreement and the gather must not hold the
 * others in a blocking call. */
void pfs_agree_gather(struct pfs_agree *a, const void *in, int bytes, void *out, double since, const char *where);

/* Local. Waits for one non-blocking operation under the watch. Every rank
 * has arrived at this step (an agreement before it said so), so rank 0's
 * on_timeout names none missing. */
void pfs_agree_wait(struct pfs_agree *a, MPI_Request *r, double since, const char *where);

#endif
