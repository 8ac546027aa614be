/* Between figures.c (the run's and each phase's figures) and
 * figures_rep.c (one repetition's). Private to src/core. */
#ifndef PFS_FIGURES_INT_H
#define PFS_FIGURES_INT_H

#include "pfs/figures.h"
#include "pfs/report.h"

/* Computes r, the figures of phase p's repetition rep of d (r zeroed and
 * unallocated on entry). 0, or -1 without memory (r left invalid). */
int pfs_figs_rep_compute(struct pfs_rep_figs *r, const struct pfs_figures *f, const struct pfs_run_data *d, int p,
                         int rep);

/* The summary of histogram h (count 0: every figure 0). */
void pfs_figs_lat_summary(const struct pfs_hist *h, struct pfs_lat_sum *o);

#endif
