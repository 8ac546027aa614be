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
    snprintf(c->fail.host, sizeof(c->fail.host), "%s", c->host);
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

/* Local, rank 0. The cause among the failures: the earliest on rank 0's
 * clock (a rank's later failures, and other ranks', are its consequences). */
static int first_failure(const struct pfs_failure *all, int n, const double *corr)
{
    int first = -1;
    for (int r = 0; r < n; r++)
        if (all[r].failed &&
            (first < 0 || all[r].when + corr[r] < all[first].when + corr[first]))
            first = r;
    return first;
}

/* Collective, after drv_agree() said some rank failed: rank 0 names the first
 * failure (the cause) and then every other failed rank on stderr, and keeps
 * the cause for the results file. */
void drv_report_failures(struct ctx *c)
{
    struct pfs_run_data *d = c->rec.d;
    struct pfs_failure *all = NULL;
    if (c->rank == 0)
        all = calloc((size_t)c->nranks, sizeof(*all));
    MPI_Gather(&c->fail, (int)sizeof(c->fail), MPI_BYTE, all, (int)sizeof(c->fail), MPI_BYTE, 0, c->comm);
    if (c->rank != 0)
        return;
    if (!all) {
        fprintf(stderr, "pfsbench: error: a rank failed (no memory to gather the failures of %d ranks)\n", c->nranks);
        if (d && !d->error[0])
            snprintf(d->error, sizeof(d->error), "a rank failed; no memory to gather the failures");
        return;
    }
    int failed = 0, sig = 0;
    for (int r = 0; r < c->nranks; r++)
        if (all[r].failed) {
            failed++;
            if (all[r].sig > sig)
                sig = all[r].sig;
        }
    if (sig && d) {
        d->status = "interrupted";
        d->interrupt_signal = sig;
    }
    const int cause = first_failure(all, c->nranks, c->corr);
    char msg[1024];
    int shown = 0;
    for (int k = -1; k < c->nranks; k++) {
        int r = k < 0 ? cause : k;
        if (r < 0 || !all[r].failed || (k >= 0 && r == cause))
            continue;
        drv_format_failure(&all[r], msg, sizeof(msg));
        if (shown++ < 16)
            fprintf(stderr, "pfsbench: error: %s%s\n", msg, failed > 1 && r == cause ? " (the first failure)" : "");
        if (d && !d->error[0])
            snprintf(d->error, sizeof(d->error), "%s", msg);
    }
    if (shown > 16)
        fprintf(stderr, "pfsbench: error: ... and %d more ranks failed\n", shown - 16);
    if (d && failed > 1) {
        size_t n = strlen(d->error);
        snprintf(d->error + n, sizeof(d->error) - n, " (the first of %d ranks that failed)", failed);
    }
    free(all);
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
