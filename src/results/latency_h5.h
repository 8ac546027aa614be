/* The latency part of a phase group (latency_h5.c), called by results_h5.c.
 * Private to src/results/. */
#ifndef PFS_LATENCY_H5_H
#define PFS_LATENCY_H5_H

#include <hdf5.h>

#include "pfs/report.h"

/* Writes phase p's latency histograms and summaries (run-wide per kind, and
 * the op kind per node) and the time series of each repetition into phase
 * group g; nothing when no repetition of the phase recorded latencies. 0,
 * or nonzero on failure. */
__attribute__((visibility("hidden"))) int pfs_res_write_latency(hid_t g, const struct pfs_run_data *d, int p);

#endif
