/* See agree.h: the watched collectives. No I/O, no run state: the callbacks
 * say what a timeout means to the caller. */
#define _GNU_SOURCE
#include "agree.h"

#include "pfs/stream.h" /* pfs_now: the clock the stream loops and the driver use */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

/* An operation in flight. Its buffers are copies of the caller's, so that
 * one given up can be kept whole (a rank that wakes later may still
 * complete it) after the caller's frames are gone. */
struct pfs_agree_op {
    int nrecv;          /* req[0 .. nrecv-1]: rank 0's receives of arrivals */
    int foreign;        /* a wait on the caller's request (req unused) */
    MPI_Request *req;   /* the receives, then the collective */
    int *abuf;          /* the arrivals' payloads */
    int *arrived;       /* rank 0: arrived[r-1] for rank r */
    char *in, *out;
};

static void op_free(struct pfs_agree_op *o)
{
    if (!o)
        return;
    free(o->req);
    free(o->abuf);
    free(o->arrived);
    free(o->in);
    free(o->out);
    free(o);
}

/* n: the ranks other than 0 (arrival flags for rank 0's on_timeout, all 1
 * unless nrecv receives set them); NULL without memory. */
static struct pfs_agree_op *op_new(int n, int nrecv, size_t inb, size_t outb)
{
    struct pfs_agree_op *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->nrecv = nrecv;
    o->req = malloc(sizeof(MPI_Request) * (size_t)(nrecv + 1));
    o->abuf = calloc((size_t)nrecv + 1, sizeof(int));
    o->arrived = calloc((size_t)n + 1, sizeof(int));
    o->in = malloc(inb ? inb : 1);
    o->out = malloc(outb ? outb : 1);
    if (!o->req || !o->abuf || !o->arrived || !o->in || !o->out) {
        op_free(o);
        return NULL;
    }
    for (int i = 0; i <= nrecv; i++)
        o->req[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++)
        o->arrived[i] = nrecv == 0;
    return o;
}

/* A given-up operation's memory stays allocated to the end of the process
 * on purpose: the leak checker is told so. */
void pfs_agree_keep(const void *p)
{
#if defined(__SANITIZE_ADDRESS__)
    if (p)
        __lsan_ignore_object(p);
#else
    (void)p;
#endif
}

void pfs_agree_abandon(struct pfs_agree *a)
{
    struct pfs_agree_op *o = a->cur;
    if (!o)
        return;
    a->cur = NULL;
    /* An arrival that comes later must find no receive to write into. */
    for (int i = 0; i < o->nrecv; i++)
        if (o->req[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&o->req[i]);
            MPI_Request_free(&o->req[i]);
        }
    a->foreign |= o->foreign;
    const void *mem[] = {o, o->req, o->abuf, o->arrived, o->in, o->out};
    for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
        pfs_agree_keep(mem[i]);
}

static size_t type_bytes(MPI_Datatype type, int count)
{
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(type, &lb, &extent);
    return (size_t)extent * (size_t)count;
}

/* The default when rank 0 has not answered: say so and end the job. */
static void root_lost_abort(struct pfs_agree *a, const char *where, double waited)
{
    fprintf(stderr, "pfsbench: error: watchdog on rank %d (%s): %s did not complete within %g s; "
            "rank 0 (%s) has not answered: aborting the job\n", a->rank, a->host ? a->host : "?", where, waited,
            a->root_host ? a->root_host : "?");
    fflush(stderr);
    MPI_Abort(a->comm, 3);
}

/* The looks every rank makes besides its requests: the caller's messages
 * and, on the others, rank 0's notice. 1 when a callback gave the
 * operation up. */
static int look_around(struct pfs_agree *a, const char *where)
{
    if (a->on_poll)
        a->on_poll(a->arg, where);
    int flag = 0;
    if (!a->broken && a->rank != 0 && a->on_notice &&
        MPI_Iprobe(0, PFS_TAG_ABORT, a->comm, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
        a->on_notice(a->arg, where);
    return a->broken;
}

/* Before an operation is joined: a run given up, or a notice already
 * waiting, means the operation is never posted (a rank that wakes after the
 * others went on joins nothing of theirs). 1: give it up. */
static int on_entry(struct pfs_agree *a, const char *where)
{
    if (a->broken && a->on_broken)
        a->on_broken(a->arg, where);
    if (a->broken)
        return 1;
    return a->timeout > 0 && a->nranks > 1 && look_around(a, where);
}

/* Polls req[0 .. n-1] (the first nrecv: arrivals, flagged in arrived)
 * until all are done (1) or a callback gave the operation up (0). Rank 0
 * gives up at since + timeout, the others at since + 2 x timeout + 1. */
static int watch(struct pfs_agree *a, MPI_Request *req, int n, int nrecv, int *arrived, double since,
                 const char *where)
{
    const double limit = a->rank == 0 ? since + a->timeout : since + 2 * a->timeout + 1;
    struct timespec nap = {0, 1000000};
    double last = pfs_now();
    a->stood_still = 0;
    for (;;) {
        int flag = 0, left = 0;
        for (int i = 0; i < n; i++) {
            if (req[i] == MPI_REQUEST_NULL)
                continue;
            if (MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return 1; /* the error handler decides; nothing to wait for */
            if (flag && i < nrecv)
                arrived[i] = 1;
            left += !flag;
        }
        if (!left)
            return 1;
        const double now = pfs_now();
        /* A look long after the last: this rank itself did not run (stopped, a frozen node). */
        if (now - last > a->stood_still)
            a->stood_still = now - last;
        last = now;
        if (look_around(a, where))
            return 0;
        if (now > limit) {
            if (a->rank == 0 && a->on_timeout)
                a->on_timeout(a->arg, arrived, where);
            else if (a->rank != 0 && a->on_root_lost)
                a->on_root_lost(a->arg, where, now - since);
            else if (a->rank != 0)
                root_lost_abort(a, where, now - since);
            if (a->broken)
                return 0;
        }
        nanosleep(&nap, NULL);
    }
}

/* Runs an operation whose requests o holds: its output into out (bytes),
 * or, given up, 0xff there and the operation kept. */
static void finish(struct pfs_agree *a, struct pfs_agree_op *o, void *out, size_t bytes, double since,
                   const char *where)
{
    a->cur = o;
    if (watch(a, o->req, o->nrecv + 1, o->nrecv, o->arrived, since, where)) {
        a->cur = NULL;
        if (out)
            memcpy(out, o->out, bytes);
        op_free(o);
        return;
    }
    if (out)
        memset(out, 0xff, bytes);
    pfs_agree_abandon(a);
}

void pfs_agree_wait(struct pfs_agree *a, MPI_Request *r, double since, const char *where)
{
    if (a->broken) {
        if (a->on_broken)
            a->on_broken(a->arg, where);
        return; /* given up: the request stays the caller's */
    }
    struct pfs_agree_op *o = a->timeout > 0 ? op_new(a->nranks - 1, 0, 0, 0) : NULL;
    if (!o) { /* unwatched, or no memory to watch with */
        MPI_Wait(r, MPI_STATUS_IGNORE);
        return;
    }
    o->foreign = 1;
    a->cur = o;
    if (watch(a, r, 1, 0, o->arrived, since, where)) {
        a->cur = NULL;
        op_free(o);
        return;
    }
    pfs_agree_abandon(a);
}

void pfs_agree_allreduce(struct pfs_agree *a, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                         double since, const char *where)
{
    const size_t bytes = type_bytes(type, count);
    if (on_entry(a, where)) {
        memset(out, 0xff, bytes);
        return;
    }
    if (a->timeout <= 0 || a->nranks == 1) {
        MPI_Allreduce(in, out, count, type, op, a->comm);
        return;
    }
    const int tag = 1000 + (a->epoch++ % 30000), n = a->nranks - 1;
    struct pfs_agree_op *o = op_new(n, a->rank == 0 ? n : 0, bytes, bytes);
    if (!o) {
        /* No memory to watch with: agree unwatched rather than not at all
         * (non-blocking, as a blocking collective never matches one). */
        int x = 1;
        MPI_Request r;
        for (int i = 1; a->rank == 0 && i <= n; i++)
            MPI_Recv(&x, 1, MPI_INT, i, tag, a->comm, MPI_STATUS_IGNORE);
        if (a->rank != 0)
            MPI_Send(&x, 1, MPI_INT, 0, tag, a->comm);
        MPI_Iallreduce(in, out, count, type, op, a->comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    memcpy(o->in, in, bytes);
    for (int i = 0; a->rank == 0 && i < n; i++)
        MPI_Irecv(&o->abuf[i], 1, MPI_INT, i + 1, tag, a->comm, &o->req[i]);
    if (a->rank != 0) {
        int one = 1;
        MPI_Send(&one, 1, MPI_INT, 0, tag, a->comm);
    }
    MPI_Iallreduce(o->in, o->out, count, type, op, a->comm, &o->req[o->nrecv]);
    finish(a, o, out, bytes, since, where);
}

void pfs_agree_gather(struct pfs_agree *a, const void *in, int bytes, void *out, double since, const char *where)
{
    const size_t all = (size_t)bytes * (size_t)a->nranks;
    if (on_entry(a, where)) {
        if (a->rank == 0 && out)
            memset(out, 0xff, all);
        return;
    }
    if (a->timeout <= 0 || a->nranks == 1) {
        MPI_Gather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, a->comm);
        return;
    }
    struct pfs_agree_op *o = op_new(a->nranks - 1, 0, (size_t)bytes, a->rank == 0 ? all : 0);
    if (!o) {
        MPI_Request r;
        MPI_Igather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, a->comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    memcpy(o->in, in, (size_t)bytes);
    MPI_Igather(o->in, bytes, MPI_BYTE, o->out, bytes, MPI_BYTE, 0, a->comm, &o->req[0]);
    char w[96];
    snprintf(w, sizeof(w), "the gather of times after %s", where);
    finish(a, o, a->rank == 0 ? out : NULL, all, since, w);
}
