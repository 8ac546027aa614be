/* A phase that draws reads and writes (rwmix) in the text and JSON
 * reports (src/core/report_mix.c). All local, rank 0; nothing for any
 * other phase. */
#ifndef PFS_REPORT_MIX_H
#define PFS_REPORT_MIX_H

#include <stdio.h>

#include "pfs/report.h"

/* Below the repetition's row: each direction's share of the transfers,
 * its count, rate and bandwidth (in the report's unit). */
void pfs_report_mix_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* The repetition's "mix" member of its JSON object. */
void pfs_report_mix_json(FILE *out, const struct pfs_run_data *d, int phase, const struct pfs_rep_figs *r);

#endif
