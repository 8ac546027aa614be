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
#include "stream_loop.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/safefile.h"
#include "stream_mark.h"

void pfs_loop_backend_fail(const struct pfs_phase_ctx *p, struct pfs_stream *s, const char *op, const char *path,
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

/* The rwmix phase: the transfer's own direction. */
static int sync_submit_mixed(void *qh, struct pfs_io *io)
{
    struct loop *l = qh;
    io->res = io->write ? l->pwrite(l->fh, io->buf, io->len, io->off) : l->pread(l->fh, io->buf, io->len, io->off);
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

int pfs_loop_init(struct loop *l)
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
                : l->mixed  ? sync_submit_mixed
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

void pfs_loop_fini(struct loop *l)
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
 * stream's CPU (vcpu), one window for both. The thread's CPU clock is a
 * system call (0.7 us on this VM), read inside the wall clock's reads for
 * a transfer of PATTERN_CPU_CLOCK bytes or more, where the fill takes tens
 * of microseconds and a preemption inside it is likely. A smaller one is
 * filled in well under a microsecond, so its CPU time is taken as its wall
 * time: two clock calls per 64-byte transfer made a verified run on the
 * null backend 10x slower (1,494 against 129 ns per transfer). */
#define PATTERN_CPU_CLOCK (64u << 10)
struct pattern_mark {
    double wall, cpu; /* cpu < 0: the wall time stands for it */
};

static inline void pattern_begin(const struct loop *l, struct pattern_mark *m)
{
    m->wall = pfs_now();
    m->cpu = l->len >= PATTERN_CPU_CLOCK ? thread_cpu_s() : -1;
}

static inline void pattern_end(struct loop *l, const struct pattern_mark *m)
{
    const double cpu = m->cpu >= 0 ? thread_cpu_s() - m->cpu : -1;
    const double wall = pfs_now() - m->wall;
    l->vcpu += cpu >= 0 ? cpu : wall;
    l->vt += wall;
}

static void verify_io(struct loop *l, const struct pfs_io *io)
{
    struct pattern_mark m;
    pattern_begin(l, &m);
    size_t at;
    uint64_t e, f;
    uint64_t bad = pfs_content_check(&l->content, io->buf, io->len, l->cwriter, io->off, &at, &e, &f);
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
    const int rd = l->mixed ? !io->write : !l->wr || (two && l->rmw_read_bad); /* an rmw's read counts no bytes written */
    const char *op = l->mixed ? (rd ? "read (rwmix)" : "write (rwmix)")
                     : !two   ? l->op
                     : rd     ? (l->seeks ? "read (seeks)" : "read (--rmw)")
                     : l->seeks ? "write back (seeks)" : l->op;
    if (got < 0) {
        pfs_loop_backend_fail(p, l->s, op, l->path, io->off, (int)-got);
        return;
    }
    if (!(two && rd)) {
        __atomic_store_n(&l->t->bytes, l->t->bytes + (uint64_t)got, __ATOMIC_RELAXED);
        if (l->mixed && rd)
            l->t->rd_bytes += (uint64_t)got;
    }
    else
        l->tg_extra += (uint64_t)got; /* moved, but not written: its target's still */
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
    t->rd_bytes = t->rd_xfers = 0;
    l->tg_extra = 0;
    pfs_stream_lat_begin(l->s); /* the targets' figures too */
    t->open_start = t->open_end = pfs_now() - l->vt;
    pfs_thread_cpu(&l->cpu0); /* after the span's start: the CPU window within it */
    l->vcpu = 0;
    t->lag_sum_ns = t->lag_max_ns = 0;
    l->due_seen = 0; /* the measured span's first intended start is the next one's */
    /* A stonewall passed in the ramp (-D shorter than --ramp): none of its
     * bytes count; the wear-out's that follow do. */
    t->sw_bytes = t->sw_xfers = 0;
}

void pfs_loop_tg_end(struct loop *l)
{
    if (!l->tg_one)
        return;
    pfs_tg_add_all(l->tg_one, l->t->bytes + l->tg_extra, &l->lat->h[PFS_LAT_OP]);
    l->tg_one = NULL;
}

/* The one per-transfer step, at completion (now, pfs_now_ns): time it,
 * check it, count it, agree on it. */
static inline void complete(struct loop *l, struct pfs_io *io, int timed, uint64_t now)
{
    struct pfs_times *t = l->t;
    int local_bad = 0;
    if (l->lat) {
        const uint64_t lat = now - io->t0_ns;
        /* rwmix: each direction's own kind too (an exemplar names its direction). */
        const int dir = __builtin_expect(l->mixed, 0) ? (io->write ? PFS_LAT_WRITE : PFS_LAT_READ) : PFS_LAT_OP;
        pfs_hist_add(&l->lat->h[PFS_LAT_OP], lat);
        if (dir != PFS_LAT_OP)
            pfs_hist_add(&l->lat->h[dir], lat);
        /* One compare unless it is among the slowest so far. */
        pfs_exemplar_add(&l->lat->ex, (uint32_t)dir, io->off, io->len, io->t0_ns - l->t0_ns, lat);
        /* On the span's clock, pattern work out (as close_end's): the series
         * is fitted to that span after the phase. */
        pfs_ts_add(&l->lat->ts, 1e-9 * (double)(now - l->t0_ns) - l->vt, io->res > 0 ? (uint64_t)io->res : 0, lat);
        /* A striped file's storage targets: the bytes of each stripe it
         * spans to the stripe's (a file on one target: pfs_loop_tg_end). */
        if (l->tg)
            pfs_tg_add(l->tg, io->off, io->res > 0 ? (uint64_t)io->res : 0, lat);
    }
    l->last_ns = now;
    if (l->check && io->res == (int64_t)io->len && !(l->mixed && io->write)) {
        verify_io(l, io);
        l->last_ns = pfs_now_ns(); /* checking is not the next transfer's time */
    }
    if (__builtin_expect(io->res != (int64_t)io->len, 0)) {
        xfer_bad(l, io);
        local_bad = 1;
    } else {
        /* Atomic: the progress hook and the stall watchdog read them from other threads. */
        __atomic_store_n(&t->bytes, t->bytes + io->len, __ATOMIC_RELAXED);
        if (__builtin_expect(l->mixed, 0) && !io->write)
            t->rd_bytes += io->len;
    }
    if (__builtin_expect(l->mixed, 0) && !io->write)
        t->rd_xfers++;
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

/* --rate: the response time, from the intended start (the wait for a late
 * submission counts), before complete() (whose --ramp cut drops both). */
static inline void rate_done(struct loop *l, const struct pfs_io *io, uint64_t now)
{
    if (l->lat)
        pfs_hist_add(&l->lat->h[PFS_LAT_RESP], now > io->due_ns ? now - io->due_ns : 0);
}

/* --rate: the transfer's intended start and how late it is submitted. */
static inline void rate_lag(struct loop *l, struct pfs_io *io)
{
    struct pfs_times *t = l->t;
    io->due_ns = l->due_ns;
    t->due_last_ns = l->due_ns - l->sched0_ns;
    if (!l->due_seen) {
        t->due_first_ns = t->due_last_ns;
        l->due_seen = 1;
    }
    const uint64_t lag = io->t0_ns > l->due_ns ? io->t0_ns - l->due_ns : 0;
    t->lag_sum_ns += lag;
    if (lag > t->lag_max_ns)
        t->lag_max_ns = lag;
}

/* Points a free slot at the next offset, fills it (--verify) and submits
 * it; a transfer the backend completed at once is completed here. */
static inline __attribute__((always_inline)) void issue(struct loop *l, int timed, const int rated)
{
    struct pfs_io *io = l->idle[--l->nidle];
    io->off = pfs_offgen_next(&l->gen);
    io->idx = l->issued++;
    if (__builtin_expect(l->mixed | l->sized, 0)) {
        if (l->mixed)
            io->write = pfs_mix_next(&l->rw) == PFS_MIX_WRITE;
        if (l->sized)
            io->len = (size_t)pfs_mix_next(&l->bs);
    }
    if (l->fill && (!l->mixed || io->write)) {
        struct pattern_mark m;
        pattern_begin(l, &m);
        pfs_content_fill(&l->content, io->buf, io->len, l->cwriter, io->off);
        pattern_end(l, &m);
        io->t0_ns = pfs_now_ns();
    } else {
        /* A synchronous queue submits where the last transfer completed;
         * a paced one where its wait ended. */
        io->t0_ns = rated ? l->sub_ns : l->reap ? pfs_now_ns() : l->last_ns;
    }
    if (rated)
        rate_lag(l, io);
    int rc = l->submit(l->qh, io);
    if (rc == PFS_Q_QUEUED) {
        l->inflight++;
        return;
    }
    if (rc < 0) /* nothing queued: it completes here, as failed */
        io->res = rc;
    const uint64_t now = pfs_now_ns();
    if (rated)
        rate_done(l, io, now);
    complete(l, io, timed, now);
}

/* Reaps at least min (1, or 0: a poll that never waits) of the
 * transfers in flight. */
static void reap_some(struct loop *l, int timed, unsigned min)
{
    int got = l->reap(l->qh, l->done, min, l->inflight);
    if (got == 0 && min == 0)
        return;
    if (got <= 0) { /* the queue itself broke: what was in flight is lost */
        pfs_loop_backend_fail(l->p, l->s, l->op, l->path, PFS_NO_OFFSET, got < 0 ? -got : EIO);
        l->stop |= STOP_BAD;
        l->inflight = 0;
        return;
    }
    l->inflight -= (unsigned)got;
    const uint64_t now = pfs_now_ns(); /* one read for the batch */
    const int rated = l->rated;
    for (int i = 0; i < got; i++) {
        if (rated)
            rate_done(l, l->done[i], now);
        complete(l, l->done[i], timed, now);
    }
}

/* --rate: the wait for the next intended start. An absolute sleep to
 * RATE_SPIN_NS before it, then a spin on the clock; with transfers in
 * flight (an async backend) a poll of the queue first and between short
 * sleeps, so that what completes meanwhile is stamped and its slot freed
 * within about RATE_POLL_NS. A signal or a failure ends the wait early. */
#define RATE_SPIN_NS 20000u
#define RATE_POLL_NS 50000u
#define RATE_SLEEP_MAX_NS 100000000u /* a long gap is slept in pieces: a signal is seen within 0.1 s */
static void __attribute__((noinline)) rate_wait(struct loop *l, int timed)
{
    volatile sig_atomic_t *interrupted = l->p->interrupted;
    const uint64_t due = pfs_sched_next(&l->sched);
    if (l->inflight)
        reap_some(l, timed, 0);
    uint64_t now = pfs_now_ns();
    while (now < due && !*interrupted && !l->stop) {
        const uint64_t left = due - now;
        if (left > RATE_SPIN_NS) {
            uint64_t step = left - RATE_SPIN_NS;
            const uint64_t cap = l->inflight ? RATE_POLL_NS : RATE_SLEEP_MAX_NS;
            (void)pfs_run_clock_sleep_until(now + (step < cap ? step : cap)); /* a signal: the loop looks */
            /* Waiting for the schedule is no call blocked: each piece slept
             * is progress to the stall watchdog, which reads work. */
            __atomic_store_n(&l->s->work, l->s->work + 1, __ATOMIC_RELAXED);
        }
        if (l->inflight)
            reap_some(l, timed, 0);
        now = pfs_now_ns();
    }
    l->due_ns = due;
    l->sub_ns = now;
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
    if (l->lat) {
        pfs_hist_add(&l->lat->h[PFS_LAT_FSYNC], now - l->last_ns);
        pfs_exemplar_add(&l->lat->ex, PFS_LAT_FSYNC, 0, 0, l->last_ns - l->t0_ns, now - l->last_ns);
    }
    l->last_ns = now;
    l->sync_next += l->sync_every;
    mark(l->s, l->op);
    if (rc < 0) {
        pfs_loop_backend_fail(p, l->s, "fsync", l->path, PFS_NO_OFFSET, -rc);
        if (!l->collective)
            l->stop |= STOP_BAD;
    }
}

/* With --fsync-every the loop stops issuing at each fsync's count, drains
 * and fsyncs. rated is a constant in each of pfs_loop_run's two copies:
 * the closed loop has no test of --rate per transfer. */
static inline __attribute__((always_inline)) void loop_body(struct loop *l, uint64_t until, int timed,
                                                            const int rated)
{
    volatile sig_atomic_t *interrupted = l->p->interrupted;
    const int wall = timed && l->deadline > 0 && !l->collective;
    l->until = until;
    l->last_ns = pfs_now_ns();
    for (;;) {
        const uint64_t lim = until < l->sync_next ? until : l->sync_next;
        while (l->nidle && l->issued < lim && !l->stop) {
            if (rated) {
                rate_wait(l, timed);
                if (l->stop)
                    break;
            }
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
            issue(l, timed, rated);
        }
        if (l->inflight)
            reap_some(l, timed, 1);
        else if (l->issued == l->sync_next && !l->stop)
            sync_group(l);
        else
            return;
    }
}

void pfs_loop_run(struct loop *l, uint64_t until, int timed)
{
    if (l->rated)
        loop_body(l, until, timed, 1);
    else
        loop_body(l, until, timed, 0);
}
