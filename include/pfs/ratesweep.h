/* --rate-sweep: the data phases run at a list of open-loop rates in one
 * launch, one repetition per point (a latency-load curve), the rates given
 * as --rate gives one, or as percentages of what a first, closed-loop
 * repetition achieved. The rate a repetition runs at, as the stream loop
 * and the figures both ask it (pfs_rate_at), for --rate alone too.
 * Local and pure. */
#ifndef PFS_RATESWEEP_H
#define PFS_RATESWEEP_H

#include <stddef.h>

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

/* Local and pure. The rate a data phase's repetition rep runs at: 1 with
 * rate, unit and scope (enum pfs_rate_scope) set; 0 closed loop (no --rate
 * nor --rate-sweep, a percentage sweep's first repetition, or a base not
 * above 0). base: the job's operations/s the phase achieved in its
 * closed-loop first repetition (percentages only; they pace the job). */
int pfs_rate_at(const struct pfs_config *cfg, double base, int rep, double *rate, int *unit, int *scope);

#endif
