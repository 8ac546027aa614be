/* Private to the stream module and the data phases (src/core/phases/):
 * a data phase's run says what its transfers are, and the one transfer
 * loop (stream_loop.c, stream_data.c) moves them. */
#ifndef PFS_STREAM_DATA_H
#define PFS_STREAM_DATA_H

#include "pfs/stream.h"

/* What a data phase's transfers are: the phase fills it, the loop is set
 * up from it once (no test of the phase in the loop). */
struct pfs_xfer_plan {
    const char *op;         /* the call, for messages and the watchdog: "write", "read", "seek" */
    int wr;                 /* on the stream's own file (path), else on the one it reads (rd_path) */
    int creates;            /* makes that file (a file per stream: created, or emptied in a later
                             * repetition); with --runtime, first one whole pass over the block */
    int rmw;                /* each transfer a read, a change and a write back in place (--rmw) */
    int seeks;              /* each transfer a read, every 10th written back (bonnie++'s seeks) */
    int mixed;              /* each transfer a read or a write, drawn (--rwmix: the rwmix phase) */
    int fill, check;        /* --verify: fill before a write, check what was read */
    uint64_t sync_every;    /* --fsync-every (0: none) */
    uint64_t n;             /* transfers to issue (the phase's work; --runtime: until its end) */
    int order;              /* PFS_ORDER_* (pfs/offsetgen.h) */
    uint64_t draws;         /* the transfers of the block the offsets are drawn from */
    uint64_t salt;          /* mixed into the offsets' seed beside the writer (0: none) */
    int wrap;               /* offsets wrap around the block (--runtime) */
    int skew;               /* random and uniform orders draw from --random-dist, and the sizes from
                             * --bssplit, when given (the phases over a block a write laid out: not
                             * the write itself) */
};

/* Runs one timed data phase on stream s as x says: open, transfers (with
 * --fsync-every N an fsync after every N of them), the stonewall's
 * wear-out, fsync (-e), close; fills s->t and, on failure, s->fail. */
void pfs_stream_xfer(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_xfer_plan *x);

#endif
