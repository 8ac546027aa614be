/* Private to the transfer loop (stream_loop.c: the loop itself;
 * stream_data.c: a phase's open, clock and close around it). */
#ifndef PFS_STREAM_LOOP_H
#define PFS_STREAM_LOOP_H

#include "pfs/content.h"
#include "pfs/dist.h"
#include "pfs/offsetgen.h"
#include "pfs/sched.h"
#include "pfs/stream.h"
#include "pfs/tgstats.h"

/* ---- the data phases: one loop over a queue of transfers ----
 *
 * As in fio, submit either queues a transfer (PFS_Q_QUEUED: reap hands it
 * back later) or completes it at once (PFS_Q_COMPLETED). A synchronous
 * backend is a queue of depth 1 whose submit is its pwrite/pread
 * (sync_submit_*): it never reaches reap. An async one (PFS_CAP_ASYNC) is
 * driven through its own submit/reap at p->iodepth. The same loop serves
 * both, the timed part and the stonewall's wear-out alike; every choice
 * that depends on the backend is made once, in pfs_loop_init. */

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
    int mixed;                  /* the rwmix phase: each transfer's direction drawn from rw */
    int sized;                  /* --bssplit: each transfer's size drawn from bs (at most len) */
    struct pfs_mix rw, bs;
    double xfer_mean;           /* the mean transfer size: len, or bs's mean (a rate in bytes/s) */
    int rmw_read_bad;           /* the last rmw transfer failed at its read */
    int after;                  /* a progress hook or collective I/O: after() runs per completion */
    size_t len;
    struct pfs_content content; /* what fill writes and check expects (--buffer-compress, --dedupe;
                                 * without them the plain pattern of seed) */
    int cwriter;                /* the content's file key: the writer, or 0 for all in a shared file */
    double deadline;            /* on the timing's clock (pattern time out); 0: none. The
                                 * stonewall's, or --runtime's end */
    uint64_t min_issue;         /* the deadline stops nothing before this many were issued
                                 * (--runtime's write: one pass over the block) */
    /* --ramp: the ramp ends at the first completion at or after ramp_ns (on
     * pfs_now_ns, pattern time out; 0: no ramp, or over). xbase: transfers
     * completed in it; vt_ramp: the pattern seconds spent in it. */
    uint64_t ramp_ns, xbase;
    double vt_ramp;
    uint64_t tg_at_ns, tg_ns;   /* when it began (from t0_ns) and how long it took, ns */
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
    /* The per-target figures: tg, a striped file's, attributed per
     * transfer (NULL: none); tg_one, a file on one target's, attributed
     * once, at the loop's end (pfs_loop_tg_end), from the stream's own
     * figures: the op histogram and t->bytes, plus tg_extra, the bytes
     * of transfers t->bytes leaves out (an --rmw or seeks read that came
     * up short: the phase counts bytes written). Both begin where the
     * phase's figures begin (the open; --ramp's cut starts them again). */
    struct pfs_tg_acc *tg, *tg_one;
    uint64_t tg_extra;
    uint64_t t0_ns, last_ns;
    uint64_t sched0_ns;         /* --rate: where the schedule starts (pfs_phase_ctx's), due_first/last from it */
    uint64_t until;             /* run(): issue no further than this */
    uint64_t sync_every;        /* --fsync-every in a write phase (0: none) */
    uint64_t sync_next;         /* fsync once this many were issued and completed (UINT64_MAX: never) */
    uint64_t issued, completed;
    int stop;                   /* STOP_* */
    /* --rate: the stream's schedule (rated 0: a closed loop, at full speed),
     * the intended start of the transfer being issued and the instant the
     * wait for it ended. */
    int rated;
    int due_seen;               /* due_first_ns is set for the measured span */
    long slack;                 /* the thread's timer slack before the phase (restored after it) */
    uint64_t due_ns, sub_ns;
    struct pfs_sched sched;
    /* --verify's first mismatch. */
    size_t bad_at;
    uint64_t bad_exp, bad_found, bad_off;
};

/* The queue, set up once from the backend's flags and the loop's mode:
 * 0, or -ENOMEM (depth 1 then). loop_fini frees it. */
int pfs_loop_init(struct loop *l);
void pfs_loop_fini(struct loop *l);

/* The one transfer loop: issues until `until` transfers were issued or
 * something stops it, and reaps all it issued. timed: the stonewall's
 * deadline applies (the wear-out runs untimed, to a count). */
void pfs_loop_run(struct loop *l, uint64_t until, int timed);

/* The end of the loop's per-target attribution: a file on one target
 * (tg_one) gets the transfers' bytes and latencies since the phase's
 * figures began, as pfs_tg_add would have given them one by one. */
void pfs_loop_tg_end(struct loop *l);

/* A backend failure on s, in the backend's own words when it has them. err
 * is a positive errno or a negated PFS_ERR_* code (no errno then). */
void pfs_loop_backend_fail(const struct pfs_phase_ctx *p, struct pfs_stream *s, const char *op, const char *path,
                           uint64_t off, int err);

#endif
