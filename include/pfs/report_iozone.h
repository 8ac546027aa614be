/* IOzone's throughput-mode lines ("Children see throughput for N initial
 * writers = X kB/sec", ...), printed after the text report of a
 * `pfsbench iozone -t N` run for readers and scripts that know IOzone's.
 * Formatters of the run's figures (pfs/figures.h): they compute nothing. */
#ifndef PFS_REPORT_IOZONE_H
#define PFS_REPORT_IOZONE_H

#include <stdio.h>

#include "pfs/figures.h"
#include "pfs/report.h"

/* Local. One phase's block: test is IOzone's name of it ("initial
 * writers", "rewriters", "readers", "re-readers"), procs the streams.
 * Children see: the sum of the streams' own bandwidths; parent sees: the
 * aggregate (bytes / the phase's span); min, max, avg per process: of the
 * streams' bandwidths; min xfer: the fewest bytes a stream moved. kB is
 * 1024 bytes, as in IOzone. */
void pfs_report_iozone_block(FILE *out, const char *test, int procs, const struct pfs_rep_figs *r);

/* Local. IOzone's name of phase p's test, or NULL for a phase IOzone's
 * throughput mode does not report. */
const char *pfs_report_iozone_test(const struct pfs_run_data *d, int p);

/* Local, rank 0. A block per write, rewrite, read and reread phase and
 * measured repetition (the warm-up left out), a blank line before each. */
void pfs_report_iozone(FILE *out, const struct pfs_run_data *d);

#endif
