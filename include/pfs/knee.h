/* Latency against load: the knee of a measured curve, and the search for
 * the largest rate that meets a latency target, one run at a time.
 *
 * The knee is where a percentile leaves its low-load value for good: the
 * last point, in order of offered load, before the run of points at the
 * top of the curve whose percentile all exceed factor x the value at the
 * lowest load (factor 2: "where p99 doubled"), with the achieved rate at
 * which the curve crosses factor x base interpolated between the two. Not
 * the point of maximum curvature: with the 5-15 points of a sweep,
 * curvature is a second difference of noisy figures, and it changes with
 * the axes' scaling (linear or log latency); a threshold on the percentile
 * is stable, says what it means in the units an SLA uses, and a single
 * noisy point below the top does not move it (the crossing must hold to
 * the end of the curve).
 *
 * The search treats "meets the target" as a step function of the offered
 * rate and bisects it: every call gets all the points measured so far (in
 * any order) and answers the next rate to run or that it is done. A point
 * meets the target when its percentile is within it and its achieved rate
 * is within shortfall of its offered one (a rate the system could not
 * sustain does not meet any target). Points that contradict the step (a
 * rate that met it above one that did not: noise) are outvoted by the
 * lowest failing rate, so the answer errs low. Being a function of the
 * points alone, it can run on rank 0 between runs and its answer be sent
 * to every rank.
 *
 * Local and pure. */
#ifndef PFS_KNEE_H
#define PFS_KNEE_H

/* One run of a phase at one load. */
struct pfs_load_point {
    double offered;         /* operations/s asked; 0: closed loop (as fast as it goes, sorts last) */
    double achieved;        /* operations/s done */
    double p50, p99, p999;  /* response time percentiles, ns */
};

enum pfs_pct { PFS_P50, PFS_P99, PFS_P999 };

#define PFS_KNEE_MAX 1024   /* points a call looks at */

struct pfs_knee {
    int found;      /* the curve crossed factor x base and stayed above */
    int index;      /* the knee: the last point within factor x base before that (-1: not found) */
    int above;      /* the first point of the run above (-1: not found) */
    double rate;    /* achieved rate where the curve crosses factor x base (interpolated) */
    double base;    /* the percentile at the lowest offered load */
    int saturated;  /* the first point, by offered load, whose achieved rate fell short of its
                     * offered rate by more than 2%; -1 none */
};

/* Local and pure. which: enum pfs_pct; factor > 1. 0, or -1 for no points,
 * more than PFS_KNEE_MAX, or a factor of 1 or less. */
int pfs_knee_find(const struct pfs_load_point *pts, int n, int which, double factor, struct pfs_knee *out);

struct pfs_lat_target {
    int which;          /* enum pfs_pct */
    double target_ns;   /* the percentile must be at most this */
    double rate_max;    /* the first and highest rate to run: the closed-loop peak, or a ceiling */
    double rate_min;    /* the lowest worth running: below it, nothing meets the target */
    double tol;         /* done when the bracket is within tol x its top, e.g. 0.02 */
    double shortfall;   /* achieved below (1 - shortfall) x offered does not meet it, e.g. 0.02 */
    int max_runs;       /* done after this many points whatever the bracket */
};

struct pfs_lat_step {
    double next;        /* the rate to run next; 0 when done */
    double best;        /* the largest offered rate known to meet the target (0: none yet) */
    int best_index;     /* its point, -1 none */
};

/* Local and pure. 1: run at out->next and call again with that point
 * added; 0: done (out->best is the answer, 0 when no rate met the target);
 * -1: a target out of range or more than PFS_KNEE_MAX points. */
int pfs_lat_search(const struct pfs_lat_target *t, const struct pfs_load_point *pts, int n, struct pfs_lat_step *out);

/* Local and pure. The chosen percentile of a point. */
double pfs_load_pct(const struct pfs_load_point *p, int which);

#endif
