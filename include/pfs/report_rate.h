/* --rate in the text and JSON reports (src/core/report_rate.c). All
 * local, rank 0: they print the figures of a paced repetition (offered
 * and achieved rates, the submissions' lag); nothing without --rate. */
#ifndef PFS_REPORT_RATE_H
#define PFS_REPORT_RATE_H

#include <stddef.h>
#include <stdio.h>

#include "pfs/report.h"

/* Below a data repetition's row: offered and achieved rates (ops/s and
 * the report's bandwidth unit), and how late transfers were submitted. */
void pfs_report_rate_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* The warning when the achieved rate fell more than PFS_RATE_SHORT short
 * of the offered: its text in buf (no "warning" prefix), 1; else 0. */
int pfs_report_rate_warning(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len);

/* A paced repetition's "rate" member of its JSON object (nothing else). */
void pfs_report_rate_json(FILE *out, const struct pfs_rep_figs *r);

/* --rate-sweep, after the latency table: each data phase's curve (a row
 * per repetition: offered and achieved ops/s, response p50, p99, p99.9)
 * and its knee (pfs_phase_figs.knee). */
void pfs_report_sweep(FILE *out, const struct pfs_run_data *d);

/* --rate-sweep: phase p's "rate_sweep" member (its knee and points) of its
 * JSON object; nothing without. */
void pfs_report_sweep_json(FILE *out, const struct pfs_run_data *d, int p);

#endif
