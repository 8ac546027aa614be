/* The watched collectives, with a context of their own: the run driver and
 * bench/bench_reduce.c share them. Under a timeout, every rank tells rank 0
 * it has arrived with a small message and joins a non-blocking collective;
 * rank 0 polls both until `since + timeout`, and past that calls on_timeout
 * with the ranks that have arrived. The other ranks give up later (2 x
 * timeout + 1), so that rank 0, which can name the culprit, speaks first;
 * while they wait, and before they join an agreement, they honour rank 0's
 * notice (on_notice). Rank 0 never sits in a blocking collective waiting for
 * a stalled rank. With no timeout, the plain blocking collective.
 *
 * An agreement can be given up (a run inside a job goes on without a rank
 * that stopped answering): the callbacks either do not return, or set
 * `broken` and return. Then the operation returns at once with every byte of
 * its output 0xff (an abandoned agreement reads as "every rank failed"), and
 * every later one calls on_broken first and, if that returns, does the
 * same. The buffers an abandoned collective may still write are the
 * context's own (copies), kept until the process ends: a rank that wakes
 * later and joins it never writes into freed memory. */
#ifndef PFS_AGREE_H
#define PFS_AGREE_H

#include <mpi.h>

#define PFS_TAG_ABORT 999   /* rank 0 and the others, when an agreement is given up (watchdog.c) */

struct pfs_agree_op;        /* an operation in flight: its requests and buffers (agree.c) */

struct pfs_agree {
    MPI_Comm comm;
    int rank, nranks;
    double timeout;             /* seconds; 0: unwatched */
    int epoch;                  /* counter for the arrival messages' tags */
    const char *host;           /* this rank's host, for messages */
    const char *root_host;      /* rank 0's host, for messages */
    /* Rank 0, past the limit: arrived[r-1] says whether rank r arrived. */
    void (*on_timeout)(void *arg, const int *arrived, const char *where);
    /* Another rank: a message of rank 0's (PFS_TAG_ABORT) is waiting. */
    void (*on_notice)(void *arg, const char *where);
    /* Another rank, past its limit: rank 0 has not answered for `waited` s.
     * NULL: say so and MPI_Abort (exit 3). */
    void (*on_root_lost)(void *arg, const char *where, double waited);
    /* Every rank, at each look (about every millisecond): the caller's own
     * messages. NULL: none. */
    void (*on_poll)(void *arg, const char *where);
    /* Any rank, an operation entered once `broken` is set. */
    void (*on_broken)(void *arg, const char *where);
    void *arg;
    volatile int broken;        /* set by a callback that returned: see above */
    double stood_still;         /* rank 0: the longest gap between two looks of the last wait, s (it was stopped) */
    int foreign;                /* the operation given up was a wait on the caller's request */
    struct pfs_agree_op *cur;   /* the operation in flight (NULL: none) */
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
 * on_timeout names none missing. Given up, the request stays the caller's. */
void pfs_agree_wait(struct pfs_agree *a, MPI_Request *r, double since, const char *where);

/* Local. The operation in flight was given up (a callback jumped out of
 * it): its receives of arrivals are cancelled and its buffers kept to the
 * end of the process (a rank that wakes may still complete it). */
void pfs_agree_abandon(struct pfs_agree *a);

/* Local. p is kept to the end of the process on purpose (a send that is
 * never waited for may still read it): the leak checker is told so. */
void pfs_agree_keep(const void *p);

#endif
