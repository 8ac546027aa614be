/* The page cache's figures of a run (pfs/pagecache.h) in each output: a
 * line under a text row, an object in JSON, columns in CSV, and the
 * measured warning rank 0 gives after a phase. Pure and local: they read
 * the run's figures (d->fig: pfs/figures.h, where PFS_PC_WARN_FRACTION and
 * PFS_PC_SHOW_FRACTION are). */
#ifndef PFS_REPORT_CACHE_H
#define PFS_REPORT_CACHE_H

#include <stddef.h>
#include <stdio.h>

#include "pfs/report.h"

/* Local. The text line under a row (indented, ends in a newline): the run's
 * resident (or dirty) share and the lowest and highest node's; nothing
 * when neither reaches PFS_PC_SHOW_FRACTION, or nothing was measured. */
void pfs_report_cache_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Local. JSON: the member a repetition's object gains, with its leading
 * ", ": "page_cache": {"method", "bytes", "resident_bytes",
 * "resident_fraction", "dirty_method", "dirty_bytes", "dirty_fraction",
 * "nodes": [...]}, or null when the phase was not probed. */
void pfs_report_cache_json(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Local. CSV: the header's columns and one row's fields, each with its
 * leading comma (empty where not measured). */
void pfs_report_cache_csv_head(FILE *out);
void pfs_report_cache_csv(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Local. The warning a phase's repetition calls for, measured: the node
 * whose bytes were most resident before a read (dirty at the close of a
 * write), when at least PFS_PC_WARN_FRACTION, with the options that would
 * change it; a memory file system named as such. 1 with the text in buf
 * (no trailing newline), 0 when none. What the probe could not measure is
 * left to the caller (pfs_report_cache_unknown). */
int pfs_report_cache_warning(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len);

/* Local. 1 when a phase that reads was probed and no stream's figure could
 * be measured (neither cachestat nor mincore). */
int pfs_report_cache_unknown(const struct pfs_run_data *d, int phase, int rep);

#endif
