/* The I/O loops of one stream. The transfer loop is the hot path: with no
 * --verify, --deadline or collective I/O it is, per transfer, the next
 * offset, the backend's call (through the queue's submit and reap), one
 * clock read (the completion; in a closed loop the end of one transfer is
 * the start of the next), the latency's histogram bucket and interval, and
 * the counters, with no allocation or test of the backend. With
 * --fsync-every N a write phase stops issuing at every Nth transfer, drains
 * what is in flight and fsyncs, timed as an operation of its own (the
 * phase's fsync histogram, with -e's at close).
 *
 * --runtime SECS (fio's time_based): the loop issues until SECS after the
 * open, its offsets wrapping around the block; a write phase first
 * completes one pass, so the block it leaves is whole and the reads that
 * follow (also wrapping) read only written data. --ramp SECS: the first
 * completion at or after SECS into the phase ends the ramp; what completed
 * until then is dropped from the figures and the stream's span starts
 * there.
 *
 * --rmw (bonnie++'s Rewrite: read a chunk, dirty it, seek back, write it):
 * each transfer of a rewrite phase is the backend's pread at its offset,
 * then its pwrite of the same bytes at the same offset, one at a time (the
 * synchronous calls, on an async backend too: the refusals keep its depth
 * at 1). Without --verify one byte in every 4 KiB is changed between the
 * two; with --verify nothing is (the write the phase replaces left the
 * pattern, which the read checks and the write puts back, so the phases
 * after it still check). The phase counts the bytes written; the latency
 * of a transfer is the read and the write together. */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/offsetgen.h"
#include "pfs/safefile.h"
#include "stream_mark.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double pfs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pfs_thread_cpu(struct pfs_cpu *c)
{
    struct rusage ru;
    struct timespec ts;
    *c = (struct pfs_cpu){0, 0, 0};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        c->total = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        c->user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
        c->sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    }
}

/* The thread's CPU clock gives the total (exact); the kernel's split into
 * user and system is sampled at the scheduler tick (4 ms at HZ 250), so
 * over a short phase it is clamped to that total. A thread cannot use more
 * CPU than wall time: the total is clamped to t's span too, which the reads
 * of the clocks around it (a few microseconds) would otherwise pass in a
 * phase of a millisecond. */
void pfs_thread_cpu_since(const struct pfs_cpu *a, struct pfs_times *t)
{
    struct pfs_cpu b;
    pfs_thread_cpu(&b);
    double total = b.total - a->total, user = b.user - a->user, sys = b.sys - a->sys;
    user = user > 0 ? user : 0;
    sys = sys > 0 ? sys : 0;
    if (total <= 0)
        total = user + sys;
    const double span = t->close_end - t->open_start;
    if (total > span)
        total = span > 0 ? span : 0;
    double share = user + sys > 0 ? user / (user + sys) : 0;
    t->cpu_user = total * share;
    t->cpu_sys = total - t->cpu_user;
}

void pfs_stream_lat_begin(struct pfs_stream *s)
{
    if (!s->lat)
        return;
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_hist_reset(&s->lat->h[k]);
    pfs_ts_reset(&s->lat->ts, 0);
}

void pfs_stream_fail(struct pfs_stream *s, const char *op, const char *path, uint64_t off, int err, int sig,
                     const char *fmt, ...)
{
    struct pfs_failure *f = &s->fail;
    if (f->failed)
        return;
    f->failed = 1;
    f->err = err;
    f->sig = sig;
    f->offset = off;
    f->when = pfs_now();
    snprintf(f->op, sizeof(f->op), "%s", op);
    snprintf(f->path, sizeof(f->path), "%s", path ? path : "");
    f->detail[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
        va_end(ap);
    }
}


/* A backend failure: the backend's own words when it has them. err is a
 * positive errno or a negated PFS_ERR_* code (no errno then). */
static void backend_fail(const struct pfs_phase_ctx *p, struct pfs_stream *s, const char *op, const char *path,
                         uint64_t off, int err)
{
    char buf[200];
    const char *own = pfs_safefile_why(-err, path, buf, sizeof(buf));
    const char *why = p->be->errstr ? p->be->errstr(p->bectx) : NULL;
    if (own)
        pfs_stream_fail(s, op, path, off, 0, 0, "%s%s%s", own, why ? ": " : "", why ? why : "");
    else if (why) /* MPI's error string; the errno its class maps to is not one the system gave */
        pfs_stream_fail(s, op, path, off, 0, 0, "%s", why);
    else
        pfs_stream_fail(s, op, path, off, err, 0, NULL);
}

/* ---- the data phases: one loop over a queue of transfers ----
 *
 * As in fio, submit either queues a transfer (PFS_Q_QUEUED: reap hands it
 * back later) or completes it at once (PFS_Q_COMPLETED). A synchronous
 * backend is a queue of depth 1 whose submit is its pwrite/pread
 * (sync_submit_*): it never reaches reap. An async one (PFS_CAP_ASYNC) is
 * driven through its own submit/reap at p->iodepth. The same loop serves
 * both, the timed part and the stonewall's wear-out alike; every choice
 * that depends on the backend is made once, in loop_init. */

enum { STOP_BAD = 1, STOP_WALL = 2 };

struct loop {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    struct pfs_times *t;
    void *fh;
    const char *path, *op;
    int wr, writer, collective;
    int fill, check;            /* --verify: fill before a write, check after a read */
    int rmw;                    /* --rmw in a rewrite: read, change, write back (check: the read's bytes) */
    int seeks;                  /* the seeks phase: a read per transfer, every 10th written back (as rmw's) */
    int rmw_read_bad;           /* the last rmw transfer failed at its read */
    int after;                  /* a progress hook or collective I/O: after() runs per completion */
    size_t len;
    uint64_t seed;
    double deadline;            /* on the timing's clock (pattern time out); 0: none. The
                                 * stonewall's, or --runtime's end */
    uint64_t min_issue;         /* the deadline stops nothing before this many were issued
                                 * (--runtime's write: one pass over the block) */
    /* --ramp: the ramp ends at the first completion at or after ramp_ns (on
     * pfs_now_ns, pattern time out; 0: no ramp, or over). xbase: transfers
     * completed in it; vt_ramp: the pattern seconds spent in it. */
    uint64_t ramp_ns, xbase;
    double vt_ramp;
    struct pfs_cpu cpu0;        /* the thread's CPU at the span's start (the ramp's end) */
    double vt;                  /* seconds of pattern work */
    double vcpu;                /* the thread's CPU seconds in it, since cpu0 */
    void (*progress)(void *arg, struct pfs_stream *s);
    struct pfs_offgen gen;
    /* The queue: submit/reap take qh (the backend's fh, or this loop). */
    void *qh;
    int (*submit)(void *qh, struct pfs_io *io);
    int (*reap)(void *qh, struct pfs_io **done, unsigned min, unsigned max);
    int64_t (*pwrite)(void *fh, const void *buf, size_t len, uint64_t off);
    int64_t (*pread)(void *fh, void *buf, size_t len, uint64_t off);
    struct pfs_io one, *one_idle, *one_done; /* the slot of a queue of depth 1 */
    void *slots;                /* the slots' block when depth > 1 */
    struct pfs_io **idle;       /* slots not in flight: a stack of nidle */
    struct pfs_io **done;       /* what reap hands back */
    unsigned depth, nidle, inflight;
    /* Latency: the stream's record (NULL: none), the phase's start and the
     * last completion (a closed loop's next submission). */
    struct pfs_stream_lat *lat;
    uint64_t t0_ns, last_ns;
    uint64_t until;             /* run(): issue no further than this */
    uint64_t sync_every;        /* --fsync-every in a write phase (0: none) */
    uint64_t sync_next;         /* fsync once this many were issued and completed (UINT64_MAX: never) */
    uint64_t issued, completed;
    int stop;                   /* STOP_* */
    /* --verify's first mismatch. */
    size_t bad_at;
    uint64_t bad_exp, bad_found, bad_off;
};

static int sync_submit_write(void *qh, struct pfs_io *io)
{
    struct loop *l = qh;
    io->res = l->pwrite(l->fh, io->buf, io->len, io->off);
    return PFS_Q_COMPLETED;
}

static int sync_submit_read(void *qh, struct pfs_io *io)
{
    struct loop *l = qh;
    io->res = l->pread(l->fh, io->buf, io->len, io->off);
    return PFS_Q_COMPLETED;
}

/* Dirties the bytes read: one in every 4 KiB, as bonnie++'s rewrite. */
static inline void rmw_dirty(unsigned char *b, size_t len)
{
    for (size_t i = 0; i < len; i += 4096)
        b[i] = (unsigned char)(b[i] + 1);
}

/* --rmw: the read, the change and the write back in place; res is the
 * write's, or the read's when the read moved less than asked. */
static int sync_submit_rmw(void *qh, struct pfs_io *io)
{
    struct loop *l = qh;
    const int64_t got = l->pread(l->fh, io->buf, io->len, io->off);
    l->rmw_read_bad = got != (int64_t)io->len;
    if (l->rmw_read_bad) {
        io->res = got;
        return PFS_Q_COMPLETED;
    }
    if (!l->check)
        rmw_dirty(io->buf, io->len);
    io->res = l->pwrite(l->fh, io->buf, io->len, io->off);
    return PFS_Q_COMPLETED;
}

/* The seeks phase (bonnie++'s random seeks): a read of the transfer; every
 * tenth (by its number in the phase) changed as --rmw changes it, unless
 * --verify checks it, and written back in place. res is the read's, or the
 * write's when that failed or moved less; rmw_read_bad says which. */
static int sync_submit_seek(void *qh, struct pfs_io *io)
{
    struct loop *l = qh;
    const int64_t got = l->pread(l->fh, io->buf, io->len, io->off);
    l->rmw_read_bad = got != (int64_t)io->len;
    io->res = got;
    if (l->rmw_read_bad || io->idx % 10 != 9)
        return PFS_Q_COMPLETED;
    if (!l->check)
        rmw_dirty(io->buf, io->len);
    const int64_t put = l->pwrite(l->fh, io->buf, io->len, io->off);
    if (put != got)
        io->res = put;
    return PFS_Q_COMPLETED;
}

static int loop_init(struct loop *l)
{
    const struct pfs_phase_ctx *p = l->p;
    const struct pfs_backend *be = p->be;
    /* --rmw: a read and a write per transfer, in order: the synchronous calls. */
    const int async = (be->caps & PFS_CAP_ASYNC) != 0 && !l->rmw && !l->seeks;
    l->depth = 1;
    /* Collective I/O agrees after every transfer: one at a time. */
    if (async && !l->collective && p->iodepth > 1 && l->s->qbuf)
        l->depth = p->iodepth;
    l->qh = async ? l->fh : (void *)l;
    l->submit = async       ? be->submit
                : l->seeks  ? sync_submit_seek
                : l->rmw    ? sync_submit_rmw
                : l->wr     ? sync_submit_write
                            : sync_submit_read;
    l->reap = async ? be->reap : NULL; /* a synchronous queue never has a transfer in flight */
    l->pwrite = be->pwrite;
    l->pread = be->pread;
    struct pfs_io *ios = &l->one;
    l->idle = &l->one_idle;
    l->done = &l->one_done;
    if (l->depth > 1) {
        char *blk = calloc(l->depth, sizeof(struct pfs_io) + 2 * sizeof(struct pfs_io *));
        if (!blk) {
            l->depth = 1;
            return -ENOMEM;
        }
        l->slots = blk;
        ios = (struct pfs_io *)blk;
        l->idle = (struct pfs_io **)(blk + l->depth * sizeof(struct pfs_io));
        l->done = l->idle + l->depth;
    }
    for (unsigned k = 0; k < l->depth; k++) {
        ios[k] = (struct pfs_io){.buf = l->depth > 1 ? l->s->qbuf[k] : l->s->buf, .len = l->len, .write = l->wr};
        l->idle[k] = &ios[l->depth - 1 - k];
    }
    l->nidle = l->depth;
    return 0;
}

static void loop_fini(struct loop *l)
{
    free(l->slots);
    l->slots = NULL;
}

/* The thread's CPU clock, s. */
static inline double thread_cpu_s(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec : 0;
}

/* Pattern work (--verify's fill and check) is the benchmark's own: its
 * wall time leaves the stream's span (vt) and its CPU time leaves the
 * stream's CPU (vcpu), one window for both. The CPU clock is read inside
 * the wall clock's reads, so that the timed region never holds its cost. */
struct pattern_mark {
    double wall, cpu;
};

static inline void pattern_begin(struct pattern_mark *m)
{
    m->wall = pfs_now();
    m->cpu = thread_cpu_s();
}

static inline void pattern_end(struct loop *l, const struct pattern_mark *m)
{
    l->vcpu += thread_cpu_s() - m->cpu;
    l->vt += pfs_now() - m->wall;
}

static void verify_io(struct loop *l, const struct pfs_io *io)
{
    struct pattern_mark m;
    pattern_begin(&m);
    size_t at;
    uint64_t e, f;
    uint64_t bad = pfs_pattern_check(io->buf, io->len, l->seed, l->writer, io->off, &at, &e, &f);
    if (bad && !l->t->errors) {
        l->bad_at = at;
        l->bad_exp = e;
        l->bad_found = f;
        l->bad_off = io->off;
    }
    l->t->errors += bad;
    pattern_end(l, &m);
}

/* A transfer that failed or moved less than asked: named on the stream. */
static void __attribute__((noinline)) xfer_bad(struct loop *l, const struct pfs_io *io)
{
    const struct pfs_phase_ctx *p = l->p;
    const int64_t got = io->res;
    const int two = l->rmw || l->seeks; /* a read, then a write of the same bytes */
    const int rd = !l->wr || (two && l->rmw_read_bad); /* an rmw's read counts no bytes written */
    const char *op = !two ? l->op : rd ? (l->seeks ? "read (seeks)" : "read (--rmw)") : l->seeks ? "write back (seeks)" : l->op;
    if (got < 0) {
        backend_fail(p, l->s, op, l->path, io->off, (int)-got);
        return;
    }
    if (!(two && rd))
        __atomic_store_n(&l->t->bytes, l->t->bytes + (uint64_t)got, __ATOMIC_RELAXED);
    const char *why = p->be->errstr ? p->be->errstr(p->bectx) : NULL;
    pfs_stream_fail(l->s, op, l->path, io->off + (uint64_t)got, 0, 0,
                    !rd ? "short write: %" PRId64 " of %zu bytes%s%s"
                          : "short read: the file ends early (%" PRId64 " of %zu bytes)%s%s",
                    got, io->len, why ? ": " : "", why ? why : "");
}

/* Collective MPI-IO: one agreement per transfer, to stop together on an
 * error or at the stonewall and never leave a rank inside a _all call. */
static void agree(struct loop *l, int local_bad, int timed)
{
    /* With --runtime every rank has issued the same count (one agreement
     * per transfer), so the one-pass minimum is met on all ranks at once. */
    int past = timed && l->deadline > 0 && l->issued >= l->min_issue && pfs_now() - l->vt >= l->deadline;
    int any = l->p->agree_xfer(l->p->arg, local_bad || l->s->fail.failed, past);
    if (any & 1)
        l->stop |= STOP_BAD;
    else if ((any & 2) && l->issued < l->until)
        l->stop |= STOP_WALL;
}

/* What follows a completion when the phase has a progress hook or
 * collective I/O (one test in the common case, where it has neither). */
static void after(struct loop *l, int local_bad, int timed)
{
    if (l->progress && (l->completed & 15) == 0)
        l->progress(l->p->arg, l->s);
    if (l->collective)
        agree(l, local_bad, timed);
    else if (local_bad)
        l->stop |= STOP_BAD;
}

/* --ramp: its end. What completed so far (bytes, transfers, latencies, the
 * open's among them, the time series) is dropped; the stream's span starts
 * now (pattern time out, as close_end's will be). Verification errors in
 * the ramp stay counted: a mismatch is one whenever it happens. */
static void __attribute__((noinline)) ramp_cut(struct loop *l)
{
    struct pfs_times *t = l->t;
    l->ramp_ns = 0;
    l->xbase = l->completed;
    l->vt_ramp = l->vt;
    __atomic_store_n(&t->bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->xfers, 0, __ATOMIC_RELAXED);
    pfs_stream_lat_begin(l->s);
    t->open_start = t->open_end = pfs_now() - l->vt;
    pfs_thread_cpu(&l->cpu0); /* after the span's start: the CPU window within it */
    l->vcpu = 0;
    /* A stonewall passed in the ramp (-D shorter than --ramp): none of its
     * bytes count; the wear-out's that follow do. */
    t->sw_bytes = t->sw_xfers = 0;
}

/* The one per-transfer step, at completion (now, pfs_now_ns): time it,
 * check it, count it, agree on it. */
static inline void complete(struct loop *l, struct pfs_io *io, int timed, uint64_t now)
{
    struct pfs_times *t = l->t;
    int local_bad = 0;
    if (l->lat) {
        const uint64_t lat = now - io->t0_ns;
        pfs_hist_add(&l->lat->h[PFS_LAT_OP], lat);
        /* On the span's clock, pattern work out (as close_end's): the series
         * is fitted to that span after the phase. */
        pfs_ts_add(&l->lat->ts, 1e-9 * (double)(now - l->t0_ns) - l->vt, io->res > 0 ? (uint64_t)io->res : 0, lat);
    }
    l->last_ns = now;
    if (l->check && io->res == (int64_t)io->len) {
        verify_io(l, io);
        l->last_ns = pfs_now_ns(); /* checking is not the next transfer's time */
    }
    if (__builtin_expect(io->res != (int64_t)io->len, 0)) {
        xfer_bad(l, io);
        local_bad = 1;
    } else {
        /* Atomic: the progress hook and the stall watchdog read them from other threads. */
        __atomic_store_n(&t->bytes, t->bytes + io->len, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&t->xfers, ++l->completed - l->xbase, __ATOMIC_RELAXED);
    if (__builtin_expect(l->ramp_ns != 0, 0) && now >= l->ramp_ns + (uint64_t)(l->vt * 1e9))
        ramp_cut(l);
    l->idle[l->nidle++] = io;
    if (l->after) {
        after(l, local_bad, timed);
        l->last_ns = pfs_now_ns(); /* nor is the progress report or the collective agreement */
    } else if (local_bad)
        l->stop |= STOP_BAD;
}

/* Points a free slot at the next offset, fills it (--verify) and submits
 * it; a transfer the backend completed at once is completed here. */
static inline void issue(struct loop *l, int timed)
{
    struct pfs_io *io = l->idle[--l->nidle];
    io->off = pfs_offgen_next(&l->gen);
    io->idx = l->issued++;
    if (l->fill) {
        struct pattern_mark m;
        pattern_begin(&m);
        pfs_pattern_fill(io->buf, io->len, l->seed, l->writer, io->off);
        pattern_end(l, &m);
        io->t0_ns = pfs_now_ns();
    } else {
        /* A synchronous queue submits where the last transfer completed. */
        io->t0_ns = l->reap ? pfs_now_ns() : l->last_ns;
    }
    int rc = l->submit(l->qh, io);
    if (rc == PFS_Q_QUEUED) {
        l->inflight++;
        return;
    }
    if (rc < 0) /* nothing queued: it completes here, as failed */
        io->res = rc;
    complete(l, io, timed, pfs_now_ns());
}

/* Reaps at least one transfer in flight. */
static void reap_some(struct loop *l, int timed)
{
    int got = l->reap(l->qh, l->done, 1, l->inflight);
    if (got <= 0) { /* the queue itself broke: what was in flight is lost */
        backend_fail(l->p, l->s, l->op, l->path, PFS_NO_OFFSET, got < 0 ? -got : EIO);
        l->stop |= STOP_BAD;
        l->inflight = 0;
        return;
    }
    l->inflight -= (unsigned)got;
    const uint64_t now = pfs_now_ns(); /* one read for the batch */
    for (int i = 0; i < got; i++)
        complete(l, l->done[i], timed, now);
}

/* --fsync-every: the fsync after every sync_every transfers, with none in
 * flight (the loop drained them), so it covers all issued so far. Timed
 * from the last completion, as a closed loop's next transfer would be; the
 * next synchronous transfer starts where it ends. With collective I/O a
 * failure is left to the next transfer's agreement (every rank calls the
 * fsync, a collective one, equally often: the loops stop together). */
static void __attribute__((noinline)) sync_group(struct loop *l)
{
    const struct pfs_phase_ctx *p = l->p;
    mark(l->s, "fsync");
    int rc = p->be->fsync(l->fh);
    const uint64_t now = pfs_now_ns();
    if (l->lat)
        pfs_hist_add(&l->lat->h[PFS_LAT_FSYNC], now - l->last_ns);
    l->last_ns = now;
    l->sync_next += l->sync_every;
    mark(l->s, l->op);
    if (rc < 0) {
        backend_fail(p, l->s, "fsync", l->path, PFS_NO_OFFSET, -rc);
        if (!l->collective)
            l->stop |= STOP_BAD;
    }
}

/* The one transfer loop: issues until `until` transfers were issued or
 * something stops it, and reaps all it issued; with --fsync-every it stops
 * issuing at each fsync's count, drains and fsyncs. timed: the stonewall's
 * deadline applies (the wear-out runs untimed, to a count). */
static void run(struct loop *l, uint64_t until, int timed)
{
    volatile sig_atomic_t *interrupted = l->p->interrupted;
    const int wall = timed && l->deadline > 0 && !l->collective;
    l->until = until;
    l->last_ns = pfs_now_ns();
    for (;;) {
        const uint64_t lim = until < l->sync_next ? until : l->sync_next;
        while (l->nidle && l->issued < lim && !l->stop) {
            if (*interrupted) {
                int sig = *interrupted;
                pfs_stream_fail(l->s, "interrupted", l->path, PFS_NO_OFFSET, 0, sig, "signal %d (%s)", sig,
                                strsignal(sig));
                if (!l->collective) {
                    l->stop |= STOP_BAD;
                    break;
                }
            }
            if (wall && l->issued >= l->min_issue && pfs_now() - l->vt >= l->deadline) {
                l->stop |= STOP_WALL;
                break;
            }
            issue(l, timed);
        }
        if (l->inflight)
            reap_some(l, timed);
        else if (l->issued == l->sync_next && !l->stop)
            sync_group(l);
        else
            return;
    }
}

/* Opens the stream's file for this phase, with the identity it must have. */
static void *data_open(const struct pfs_phase_ctx *p, struct pfs_stream *s, int wr, int rmw, const char *path)
{
    const struct pfs_config *cfg = p->cfg;
    unsigned flags = rmw ? PFS_OPEN_READ | PFS_OPEN_WRITE : wr ? PFS_OPEN_WRITE : PFS_OPEN_READ;
    int creating = 0;
    if (cfg->direct && (p->be->caps & PFS_CAP_DIRECT))
        flags |= PFS_OPEN_DIRECT;
    /* --sync: only writes wait for stable storage (check refused it where the backend cannot). */
    if (wr && (p->be->caps & PFS_CAP_OSYNC) && cfg->sync_mode != PFS_SYNC_NONE)
        flags |= cfg->sync_mode == PFS_SYNC_SYNC ? PFS_OPEN_SYNC : PFS_OPEN_DSYNC;
    if (cfg->shared)
        flags |= PFS_OPEN_SHARED;
    else if (p->kind == PFS_PH_WRITE) {
        creating = !s->created;
        flags |= creating ? PFS_OPEN_CREATE : PFS_OPEN_TRUNC;
    }
    /* Every open after the create expects the inode the create made. */
    const struct pfs_fid *expect = creating ? NULL : wr ? &s->fid : &s->rd_fid;
    struct pfs_fid got = {0, 0};
    void *fh = NULL;
    mark(s, wr ? "open for writing" : "open for reading");
    int rc = p->be->open(p->bectx, s->dir_fd, path, flags, expect, &got, &fh);
    if (rc < 0) {
        if (rc == -EEXIST)
            pfs_stream_fail(s, "open for writing", path, PFS_NO_OFFSET, EEXIST, 0,
                            "a file of that name is already there; pfsbench never reuses a file it did not create");
        else
            backend_fail(p, s, wr ? "open for writing" : "open for reading", path, PFS_NO_OFFSET, -rc);
        return NULL;
    }
    if (creating) {
        s->created = 1;
        s->fid = got;
    }
    return fh;
}

/* fsync (with -e) and close, then the pattern time out of the span and the
 * verification's verdict. */
static void data_close(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct loop *l)
{
    const struct pfs_config *cfg = p->cfg;
    struct pfs_times *t = &s->t;
    int rc;
    uint64_t c0 = pfs_now_ns();
    if (l->fh && l->wr && cfg->fsync) {
        mark(s, "fsync");
        rc = p->be->fsync(l->fh);
        if (rc < 0)
            backend_fail(p, s, "fsync", l->path, PFS_NO_OFFSET, -rc);
        uint64_t c1 = pfs_now_ns();
        pfs_stream_lat_add(s, PFS_LAT_FSYNC, c1 - c0);
        c0 = c1;
    }
    if (l->fh) {
        mark(s, "close");
        rc = p->be->close(l->fh);
        if (rc < 0)
            backend_fail(p, s, "close", l->path, PFS_NO_OFFSET, -rc);
        pfs_stream_lat_add(s, PFS_LAT_CLOSE, pfs_now_ns() - c0);
    }
    t->close_end = pfs_now();
    mark(s, NULL);
    /* Pattern work is the benchmark's own, not the file system's: take it
     * out of this stream's span so bandwidth stays comparable. */
    t->verify_s = l->vt - l->vt_ramp; /* the ramp's is in no figure */
    t->xfer_end -= l->vt;
    t->close_end -= l->vt;
    if (t->errors)
        pfs_stream_fail(s, "verify", l->path, l->bad_off + l->bad_at, 0, 0,
                        "%" PRIu64 " mismatching 8-byte words in data written by %s %d, read by %s %d; first at byte %" PRIu64
                        ": expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
                        t->errors, cfg->threads > 1 ? "stream" : "rank", l->writer, cfg->threads > 1 ? "stream" : "rank",
                        s->id, l->bad_off + l->bad_at, l->bad_exp, l->bad_found);
}

/* The timed transfers, then the stonewall's wear-out: both the same loop. */
static void data_transfers(struct loop *l, uint64_t n)
{
    const struct pfs_phase_ctx *p = l->p;
    struct pfs_times *t = &l->s->t;
    mark(l->s, l->op);
    run(l, n, 1);
    if (p->cfg->deadline <= 0)
        return;
    t->sw_bytes = t->bytes;
    t->sw_xfers = t->xfers;
    if (l->stop & STOP_WALL)
        t->sw_end = pfs_now() - l->vt;
    /* Seeks stop at the stonewall and wear out nothing (the phase table). */
    if (!pfs_phase_has(p->kind, PFS_PHF_WEARS_OUT))
        return;
    /* Wear-out: every stream continues to the largest count any stream
     * reached, so every file holds the same transfers. Every stream
     * reaches the hook, the failed ones too; 0 means someone failed. */
    uint64_t target = p->wearout(p->arg, l->s, l->completed);
    if (l->fh && !l->s->fail.failed) {
        l->stop = 0;
        run(l, target, 0);
    }
}

/* The clock's part of the loop, set at the open (t->open_start, o0_ns):
 * the stonewall, or --runtime's end with its one-pass minimum in a write
 * phase, and --ramp's end. Returns the transfers to issue, given n for a
 * phase run to a count. Both run on the timing's clock, pattern work
 * (--verify) taken out, so verifying moves neither. */
static uint64_t loop_clock(struct loop *l, uint64_t n, uint64_t o0_ns)
{
    const struct pfs_phase_ctx *p = l->p;
    const struct pfs_config *cfg = p->cfg;
    if (cfg->ramp > 0)
        l->ramp_ns = o0_ns + (uint64_t)(cfg->ramp * 1e9);
    if (cfg->runtime > 0 && p->nxfers > 0) {
        l->deadline = l->t->open_start + cfg->runtime;
        l->min_issue = p->kind == PFS_PH_WRITE ? p->nxfers : 1;
        return UINT64_MAX;
    }
    /* Every stream makes its first transfer, as IOR's stonewall does: an
     * open that outlasts -D (a loaded node, HDF5's create) still measures
     * something, and the wear-out has a count to reach. */
    l->deadline = cfg->deadline > 0 ? l->t->open_start + cfg->deadline : 0;
    l->min_issue = n > 0 ? 1 : 0;
    return n;
}

/* --ramp outlasted the stream's work: no transfer completed after it, so the
 * stream has no figures (the MPI layer warns): no bytes, no transfers, no
 * latency, and a span of none at its close, so it neither starts the
 * phase's time early nor counts as measured. */
static void ramp_empty(struct loop *l)
{
    struct pfs_times *t = l->t;
    l->xbase = l->completed;
    t->bytes = t->xfers = t->sw_bytes = t->sw_xfers = 0;
    t->sw_end = 0;
    t->verify_s = 0;
    pfs_stream_lat_begin(l->s);
    /* The empty span sits where the ramp would have ended (realtime, from
     * the monotonic ramp end), not at this stream's early close: a span
     * there would pull the phase's start before the other streams' ramps
     * ended and lengthen the phase. */
    double left = ((double)l->ramp_ns + l->vt * 1e9 - (double)pfs_now_ns()) * 1e-9;
    double at = t->close_end + (left > 0 ? left : 0);
    t->open_start = t->open_end = t->xfer_end = t->close_end = at;
    pfs_thread_cpu(&l->cpu0);
    l->vcpu = 0;
}

uint64_t pfs_seeks_of(const struct pfs_config *cfg, int nstreams, int id)
{
    const uint64_t n = cfg->seeks > 0 ? (uint64_t)cfg->seeks : 0, k = nstreams > 0 ? (uint64_t)nstreams : 1;
    return n / k + (id >= 0 && (uint64_t)id < n % k);
}

void pfs_stream_data(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    const int wr = pfs_phase_is_write(p->kind);
    const int seeks = p->kind == PFS_PH_SEEKS, rmw = cfg->rmw && p->kind == PFS_PH_REWRITE;
    struct pfs_times *t = &s->t;
    struct loop l = {
        .p = p,
        .s = s,
        .path = wr ? s->path : s->rd_path,
        .op = seeks ? "seek" : wr ? "write" : "read",
        .wr = wr,
        .writer = wr ? s->id : s->rd_writer,
        .collective = cfg->collective && (p->be->caps & PFS_CAP_COLLECTIVE),
        .rmw = rmw,
        .seeks = seeks,
        .fill = cfg->verify && wr && !rmw && !seeks,
        .check = cfg->verify && (!wr || rmw || seeks),
        .len = (size_t)cfg->transfer,
        .seed = p->seed,
        .t = &s->t,
        .progress = p->progress,
        .lat = s->lat,
        .t0_ns = p->t0_ns,
        .sync_every = wr && !seeks && cfg->fsync_every > 0 ? (uint64_t)cfg->fsync_every : 0,
    };
    l.sync_next = l.sync_every ? l.sync_every : UINT64_MAX;
    uint64_t n = p->kind == PFS_PH_WRITE ? p->nxfers : seeks ? pfs_seeks_of(cfg, p->nstreams, s->id) : p->data_xfers;
    struct pfs_offgen_spec spec = {
        .order = seeks ? PFS_ORDER_UNIFORM : cfg->random ? PFS_ORDER_RANDOM : PFS_ORDER_SEQUENTIAL,
        .shared = cfg->shared,
        .layout = cfg->layout,
        .stream = l.writer,
        .nstreams = p->nstreams,
        .block = cfg->block,
        .transfer = cfg->transfer,
        .nxfers = seeks ? p->data_xfers : p->nxfers, /* seeks: draws among the transfers the files hold */
        .seed = p->seed ^ pfs_mix64((uint64_t)l.writer + 1 + (uint64_t)seeks * 0x5eec5),
        .wrap = !seeks && cfg->runtime > 0 && p->nxfers > 0,
    };
    pfs_offgen_init(&l.gen, &spec);
    l.after = l.progress || l.collective;

    memset(t, 0, sizeof(*t));
    pfs_stream_lat_begin(s);
    t->open_start = pfs_now();
    pfs_thread_cpu(&l.cpu0); /* the CPU window inside the span's */
    uint64_t o0 = pfs_now_ns();
    l.fh = data_open(p, s, wr, l.rmw || l.seeks, l.path);
    if (l.fh)
        pfs_stream_lat_add(s, PFS_LAT_OPEN, pfs_now_ns() - o0);
    t->open_end = pfs_now();
    n = loop_clock(&l, n, o0);
    if (l.collective && p->agree_open) {
        /* Collective calls must be made by all ranks alike: agree first. */
        if (p->agree_open(p->arg, l.fh == NULL))
            n = 0;
    } else if (!l.fh) {
        n = 0;
    }
    if (loop_init(&l) != 0) {
        pfs_stream_fail(s, l.op, l.path, PFS_NO_OFFSET, ENOMEM, 0, "no memory for %u transfers in flight", p->iodepth);
        n = 0;
    }
    data_transfers(&l, n);
    loop_fini(&l);
    t->xfers = l.completed - l.xbase;
    t->xfer_end = pfs_now();
    data_close(p, s, &l);
    if (l.ramp_ns && !s->fail.failed)
        ramp_empty(&l);
    /* The pattern's CPU leaves the window as its wall time left the span:
     * the window starts that much later. */
    l.cpu0.total += l.vcpu;
    l.cpu0.user += l.vcpu;
    pfs_thread_cpu_since(&l.cpu0, t);
}
