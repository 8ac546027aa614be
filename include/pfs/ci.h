/* Confidence intervals of a mean over repetitions (--reps auto, the
 * report, the results file). Pure: no MPI, no HDF5. */
#ifndef PFS_CI_H
#define PFS_CI_H

/* --reps auto judges a phase only from this many measured repetitions on. */
#define PFS_CI_MIN_REPS 3

/* Local. The 0.975 quantile of Student's t with df degrees of freedom (the
 * two-sided 95% interval): a table up to 30, then the Cornish-Fisher
 * expansion about the normal quantile (within 3e-8 of the exact value
 * there). NaN for df < 1. */
double pfs_t975(int df);

/* The 95% confidence interval of the mean of n figures: mean +- half
 * (t975(n-1) x s / sqrt(n), s the sample standard deviation); pct is half
 * in percent of |mean|. half and pct are NaN for n < 2 (one figure has no
 * interval, never 0), pct also for a mean of 0. */
struct pfs_ci {
    int n;
    double mean, half, pct;
};

/* Local. */
void pfs_ci95(const double *v, int n, struct pfs_ci *out);

/* Local. 1 when the interval judges the mean stable: at least
 * PFS_CI_MIN_REPS figures and pct within target_pct. */
int pfs_ci_met(const struct pfs_ci *ci, double target_pct);

#endif
