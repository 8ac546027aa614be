/* See agree.h: the watched collectives. No I/O, no run state: the callbacks
 * say what a timeout means to the caller. */
#define _GNU_SOURCE
#include "agree.h"

#include "pfs/stream.h" /* pfs_now: the clock the stream loops and the driver use */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void pfs_agree_wait(struct pfs_agree *a, MPI_Request *r, double since, const char *where)
{
    if (a->timeout <= 0) { /* unwatched */
        MPI_Wait(r, MPI_STATUS_IGNORE);
        return;
    }
    const double limit = a->rank == 0 ? since + a->timeout : since + 2 * a->timeout + 1;
    struct timespec nap = {0, 1000000};
    for (;;) {
        int flag = 0;
        if (MPI_Test(r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
            return;
        if (a->rank != 0 && a->on_notice &&
            MPI_Iprobe(0, PFS_TAG_ABORT, a->comm, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
            a->on_notice(a->arg);
        if (pfs_now() > limit) {
            if (a->rank == 0) {
                int *arrived = malloc(sizeof(int) * (size_t)a->nranks);
                for (int i = 0; arrived && i < a->nranks; i++)
                    arrived[i] = 1;
                if (arrived && a->on_timeout)
                    a->on_timeout(a->arg, arrived, where);
                free(arrived);
            }
            fprintf(stderr, "pfsbench: error: watchdog on rank %d (%s): %s did not complete within %g s; "
                    "rank 0 (%s) has not answered: aborting the job\n", a->rank, a->host ? a->host : "?", where,
                    limit - since, a->root_host ? a->root_host : "?");
            fflush(stderr);
            MPI_Abort(a->comm, 3);
        }
        nanosleep(&nap, NULL);
    }
}

/* Rank 0's side of a watched allreduce: the arrival messages and the
 * collective, polled until both are in or the limit passes. */
static void root_allreduce(struct pfs_agree *a, const void *in, void *out, int count, MPI_Datatype type,
                           MPI_Op op, int tag, double since, const char *where)
{
    int n = a->nranks - 1, left = n;
    MPI_Request *req = malloc(sizeof(*req) * (size_t)(n + 1));
    int *buf = malloc(sizeof(int) * (size_t)n), *arrived = calloc((size_t)n, sizeof(int));
    if (!req || !buf || !arrived) {
        /* No memory to watch with: agree unwatched rather than not at all. */
        free(req);
        free(buf);
        free(arrived);
        for (int i = 1; i <= n; i++) {
            int x;
            MPI_Recv(&x, 1, MPI_INT, i, tag, a->comm, MPI_STATUS_IGNORE);
        }
        MPI_Request r;
        MPI_Iallreduce(in, out, count, type, op, a->comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    for (int i = 0; i < n; i++)
        MPI_Irecv(&buf[i], 1, MPI_INT, i + 1, tag, a->comm, &req[i]);
    MPI_Iallreduce(in, out, count, type, op, a->comm, &req[n]);
    int reduced = 0;
    const double limit = since + a->timeout;
    struct timespec nap = {0, 1000000};
    while (left > 0 || !reduced) {
        int flag = 0;
        for (int i = 0; i < n; i++)
            if (!arrived[i] && MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
                arrived[i] = 1;
                left--;
            }
        if (!reduced && MPI_Test(&req[n], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
            reduced = 1;
        if (left == 0 && reduced)
            break;
        if (pfs_now() > limit && a->on_timeout)
            a->on_timeout(a->arg, arrived, where);
        nanosleep(&nap, NULL);
    }
    free(req);
    free(buf);
    free(arrived);
}

void pfs_agree_allreduce(struct pfs_agree *a, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                         double since, const char *where)
{
    if (a->timeout <= 0 || a->nranks == 1) {
        MPI_Allreduce(in, out, count, type, op, a->comm);
        return;
    }
    const int tag = 1000 + (a->epoch++ % 30000);
    if (a->rank == 0) {
        root_allreduce(a, in, out, count, type, op, tag, since, where);
        return;
    }
    int one = 1;
    MPI_Send(&one, 1, MPI_INT, 0, tag, a->comm);
    /* Non-blocking here too: a blocking collective never matches a
     * non-blocking one. */
    MPI_Request r;
    MPI_Iallreduce(in, out, count, type, op, a->comm, &r);
    pfs_agree_wait(a, &r, since, where);
}

void pfs_agree_gather(struct pfs_agree *a, const void *in, int bytes, void *out, double since, const char *where)
{
    if (a->timeout <= 0 || a->nranks == 1) {
        MPI_Gather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, a->comm);
        return;
    }
    MPI_Request r;
    MPI_Igather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, a->comm, &r);
    char w[96];
    snprintf(w, sizeof(w), "the gather of times after %s", where);
    pfs_agree_wait(a, &r, since, w);
}
