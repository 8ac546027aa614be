/* The ceilings (--ceilings) in the text and JSON reports
 * (src/core/report_ceil.c). All local, rank 0: they print what the run
 * recorded (d->ceil) and its figures hold; nothing when d->ceil is NULL. */
#ifndef PFS_REPORT_CEIL_H
#define PFS_REPORT_CEIL_H

#include <stdio.h>

#include "pfs/report.h"

/* The text report's ceilings: the clients' (with one node, the node's
 * too); each node's with -v. */
void pfs_report_ceilings(FILE *out, const struct pfs_run_data *d);

/* Below a data repetition's row (-v): its bandwidth as a share of each
 * ceiling, the binding one named. */
void pfs_report_ceiling_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Below a data phase's summary row: its mean bandwidth as a share of each
 * ceiling, the binding one named. */
void pfs_report_ceiling_summary(FILE *out, const struct pfs_run_data *d, int phase);

/* The JSON document's "ceilings" member (null when not measured). */
void pfs_report_ceilings_json(FILE *out, const struct pfs_run_data *d);

/* A data repetition's shares, as members of its JSON object. */
void pfs_report_ceiling_rep_json(FILE *out, const struct pfs_run_data *d, const struct pfs_rep_figs *r);

/* A data phase's summary's shares (of its mean bandwidth), as members of
 * its JSON "summary" object. */
void pfs_report_ceiling_phase_json(FILE *out, const struct pfs_run_data *d, const struct pfs_phase_figs *pf);

#endif
