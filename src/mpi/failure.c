/* A rank's first failure, and rank 0 naming them: the first failure (on
 * rank 0's clock) is the cause, the others its consequences. */
#define _GNU_SOURCE
#include "driver.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Local. Records this rank's own (non-stream) failure; none of these has an offset. */
void drv_set_fail(struct ctx *c, const char *op, const char *path, int err, const char *fmt, ...)
{
    if (c->fail.failed)
        return; /* keep the first failure: later ones are its consequences */
    c->fail.failed = 1;
    c->fail.rank = c->rank;
    c->fail.thread = -1;
    c->fail.err = err;
    c->fail.offset = PFS_NO_OFFSET;
    c->fail.when = pfs_now();
    c->fail.sig = *c->interrupted;
    snprintf(c->fail.host, sizeof(c->fail.host), "%s", c->topo.host);
    snprintf(c->fail.op, sizeof(c->fail.op), "%s", op);
    snprintf(c->fail.path, sizeof(c->fail.path), "%s", path ? path : "");
    c->fail.detail[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail.detail, sizeof(c->fail.detail), fmt, ap);
        va_end(ap);
    }
}

/* Local. The rank's failure is its own (setup) or its first failed stream's. */
void drv_collect_failure(struct ctx *c)
{
    for (int i = 0; i < c->threads && !c->fail.failed; i++)
        if (c->streams[i].fail.failed)
            c->fail = c->streams[i].fail;
}

/* Local. One failure as a sentence: rank, thread, host, what, path; the
 * offset only where one applies, errno only where there is one. */
void drv_format_failure(const struct pfs_failure *f, char *msg, size_t len)
{
    char who[32] = "";
    if (f->thread >= 0)
        snprintf(who, sizeof(who), " thread %d", f->thread);
    size_t n = (size_t)snprintf(msg, len, "rank %d%s on %s: %s%s%s", f->rank, who, f->host, f->op,
                                f->path[0] ? " " : "", f->path);
    if (f->offset != PFS_NO_OFFSET && n < len)
        n += (size_t)snprintf(msg + n, len - n, " at offset %" PRIu64, f->offset);
    if (f->err && n < len)
        n += (size_t)snprintf(msg + n, len - n, ": %s (errno %d)", strerror(f->err), f->err);
    if (f->detail[0] && n < len)
        snprintf(msg + n, len - n, ": %s", f->detail);
}

/* The failures, reduced before any detail travels: how many ranks failed,
 * the strongest signal among them, and the first FAIL_SHOWN by time on
 * rank 0's clock (each rank corrects its own time with its node's clock
 * correction), ties by rank. Only those ranks then send rank 0 their
 * record: rank 0 receives FAIL_SHOWN records at most, whatever the count. */
#define FAIL_SHOWN 16

struct fail_top {
    int count, sig, n, pad;
    struct {
        double when;
        int rank, pad;
    } k[FAIL_SHOWN];
};

static int key_before(double ta, int ra, double tb, int rb) { return ta < tb || (ta == tb && ra < rb); }

/* The MPI operation: inout = the merge of in and inout (the first keys of both). */
static void top_merge(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int e = 0; e < *len; e++) {
        const struct fail_top *a = (const struct fail_top *)in + e;
        struct fail_top *b = (struct fail_top *)inout + e, m;
        memset(&m, 0, sizeof(m));
        m.count = a->count + b->count;
        m.sig = a->sig > b->sig ? a->sig : b->sig;
        int i = 0, j = 0;
        while (m.n < FAIL_SHOWN && (i < a->n || j < b->n)) {
            int take_a = j >= b->n || (i < a->n && key_before(a->k[i].when, a->k[i].rank, b->k[j].when, b->k[j].rank));
            m.k[m.n++] = take_a ? a->k[i++] : b->k[j++];
        }
        *b = m;
    }
}

/* Collective. Every rank learns the count, the signal and the first keys. */
static void reduce_failures(struct ctx *c, struct fail_top *top)
{
    struct fail_top mine;
    memset(&mine, 0, sizeof(mine));
    if (c->fail.failed) {
        mine.count = mine.n = 1;
        mine.sig = c->fail.sig;
        mine.k[0].when = c->fail.when + c->topo.clock_corr;
        mine.k[0].rank = c->rank;
    }
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_contiguous((int)sizeof(mine), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(top_merge, 1, &op);
    MPI_Allreduce(&mine, top, 1, t, op, c->comm);
    MPI_Op_free(&op);
    MPI_Type_free(&t);
}

/* Collective, after drv_agree() said some rank failed: rank 0 names the first
 * failure (the cause), then the next failed ranks by time, FAIL_SHOWN in all,
 * on stderr, and how many more failed; it keeps the cause for the results file. */
void drv_report_failures(struct ctx *c)
{
    struct fail_top top;
    reduce_failures(c, &top);
    if (c->rank != 0) {
        for (int i = 0; i < top.n; i++)
            if (top.k[i].rank == c->rank)
                MPI_Send(&c->fail, (int)sizeof(c->fail), MPI_BYTE, 0, PFS_TAG_FAIL, c->comm);
        return;
    }
    drv_record_interrupted(&c->rec, top.sig);
    char msg[1024], first[1024] = "";
    for (int i = 0; i < top.n; i++) {
        struct pfs_failure f;
        if (top.k[i].rank == 0)
            f = c->fail;
        else
            MPI_Recv(&f, (int)sizeof(f), MPI_BYTE, top.k[i].rank, PFS_TAG_FAIL, c->comm, MPI_STATUS_IGNORE);
        drv_format_failure(&f, msg, sizeof(msg));
        fprintf(stderr, "pfsbench: error: %s%s\n", msg, top.count > 1 && i == 0 ? " (the first failure)" : "");
        if (i == 0)
            snprintf(first, sizeof(first), "%s", msg);
    }
    if (top.count > top.n)
        fprintf(stderr, "pfsbench: error: ... and %d more rank%s failed\n", top.count - top.n,
                top.count - top.n == 1 ? "" : "s");
    drv_record_cause(&c->rec, top.n ? first : NULL, top.count);
}

/* Collective. The agreement point: 1 when any rank failed. Also the barrier
 * that closes a phase. */
int drv_agree(struct ctx *c)
{
    drv_collect_failure(c);
    int mine = c->fail.failed, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

/* The same, under the watchdog: the agreement that ends a phase. */
int drv_agree_watched(struct ctx *c, double since, const char *where)
{
    drv_collect_failure(c);
    int mine = c->fail.failed, any = 0;
    drv_allreduce_watched(c, &mine, &any, 1, MPI_INT, MPI_MAX, since, where);
    return any;
}
