/* --rate-sweep: the data phases run at a list of open-loop rates in one
 * launch, one repetition per point (a latency-load curve), the rates given
 * as --rate gives one, or as percentages of what a first, closed-loop
 * repetition achieved. The rate a repetition runs at, as the stream loop
 * and the figures both ask it (pfs_rate_at), for --rate alone too.
 * Local and pure. */
#ifndef PFS_RATESWEEP_H
#define PFS_RATESWEEP_H

#include <stddef.h>

#include "pfs/knee.h"

struct pfs_config;

#define PFS_SWEEP_MAX 32 /* points in a list */

struct pfs_sweep {
    int n;                     /* points listed */
    int pct;                   /* 1: percentages of the first (closed-loop) repetition's achieved rate */
    int unit;                  /* enum pfs_rate_unit of every point (PFS_RATE_OPS with percentages) */
    double val[PFS_SWEEP_MAX]; /* in the order given: rates, or percentages */
};

/* Local and pure. "100,200,400", "10MiB,20MiB" or "20%,40%,100%": every
 * point a rate as --rate takes it (one unit for all) or every one a
 * percentage above 0 and at most 1000. 0, or -1 with one message in err. */
int pfs_sweep_parse(const char *text, struct pfs_sweep *sw, char *err, size_t len);

/* Local and pure. The repetitions a sweep runs: a point each, and with
 * percentages the closed-loop one first. */
static inline int pfs_sweep_reps(const struct pfs_sweep *sw)
{
    return sw->n + sw->pct;
}

/* --latency-target: a percentile of the response time and its bound. */
struct pfs_lat_goal {
    int which;         /* enum pfs_pct (pfs/knee.h) */
    double target_ns;  /* the percentile must be at most this */
};

#define PFS_TARGET_RUNS 10 /* paced repetitions a search runs at most (after the closed-loop one) */

/* Local and pure. "p99=2ms", "p50=500us", "p99.9=0.01" (s): p50, p99 or
 * p99.9, then a duration (ns, us, ms, s) above 0. 0, or -1 with one
 * message in err. */
int pfs_lat_goal_parse(const char *text, struct pfs_lat_goal *g, char *err, size_t len);

/* Local and pure. The search for the largest rate meeting g (pfs_lat_search:
 * from peak, the closed-loop ops/s, down to peak / 100, within 5%, a rate
 * more than 2% short failing it, at most PFS_TARGET_RUNS points) after the
 * paced points pts[0..n) in the order run: 1 with out->next the rate to run
 * next, 0 done (out->best, out->best_index into pts; 0 and -1: none met
 * it), -1 for a peak not above 0. */
int pfs_target_step(const struct pfs_lat_goal *g, double peak, const struct pfs_load_point *pts, int n,
                    struct pfs_lat_step *out);

/* Local and pure. 1 when repetitions after the first run at a rate the
 * driver sends every rank (base of pfs_rate_at): --rate-sweep's
 * percentages, --latency-target's search. */
int pfs_rate_needs_base(const struct pfs_config *cfg);

/* Local and pure. The rate a data phase's repetition rep runs at: 1 with
 * rate, unit and scope (enum pfs_rate_scope) set; 0 closed loop (no --rate
 * nor --rate-sweep, a percentage sweep's first repetition, or a base not
 * above 0). base: with --rate-sweep's percentages the job's operations/s
 * the phase achieved in its closed-loop first repetition; with
 * --latency-target the job's rate the search chose for rep (both pace the
 * job). */
int pfs_rate_at(const struct pfs_config *cfg, double base, int rep, double *rate, int *unit, int *scope);

#endif
