/* The stall watchdog of one rank: a thread of its own, so it sees what no
 * poll on the I/O threads can — a call that blocks inside the kernel (a
 * storage server that stopped answering, a sync that never returns).
 *
 * The rank's main thread names each step it enters that does file-system
 * work (a phase's I/O, the cache drop, the clean-up) and leaves it with
 * NULL; the watchdog samples the streams' progress counter. A step whose
 * progress stands still for `warn` seconds is remembered as a long-blocked
 * call (the longest is kept, for the run's warnings); for `timeout` seconds
 * (when > 0), fire() is called on the watchdog thread and is expected not
 * to return. Local, MPI-free: the caller's fire() decides what to do. */
#ifndef PFS_WATCH_H
#define PFS_WATCH_H

#include <stddef.h>
#include <stdint.h>

struct pfs_watch;

struct pfs_watch_ops {
    double warn;     /* seconds without progress that make a long-blocked call; > 0 */
    double timeout;  /* seconds without progress that fire; 0: never */
    double tick;     /* sampling period, seconds (e.g. 0.05) */
    /* Monotone counter of finished operations of the rank (its streams'
     * transfers or files); must be safe to call from another thread. */
    uint64_t (*progress)(void *arg);
    /* Describes the call the rank is blocked in ("fsync /x/pfsbench.ID.3"). */
    void (*describe)(void *arg, char *buf, size_t len);
    /* Fired on the watchdog thread with a sentence naming the step, the
     * call and the seconds blocked. */
    void (*fire)(void *arg, const char *msg);
    /* The clock blocked time is measured on, in seconds, read on the
     * watchdog thread once per tick; NULL: CLOCK_MONOTONIC. A test gives
     * its own to step time instead of sleeping through it (the tick itself
     * stays a real-time wait). */
    double (*now)(void *arg);
    void *arg;
};

/* Local. Starts the watchdog thread; NULL if no thread could be made. */
struct pfs_watch *pfs_watch_start(const struct pfs_watch_ops *ops);

/* Local. The main thread enters a step (named by what, copied, e.g.
 * "write (repetition 0)") or, with NULL, leaves it. */
void pfs_watch_step(struct pfs_watch *w, const char *what);

/* Local. The longest blocked call seen so far: seconds (0 if none reached
 * warn) and its description. */
double pfs_watch_longest(struct pfs_watch *w, char *desc, size_t len);

/* Local. Stops and joins the thread, frees w. */
void pfs_watch_stop(struct pfs_watch *w);

#endif
