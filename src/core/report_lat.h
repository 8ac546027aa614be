/* The report's latency, IOPS and CPU (report_lat.c), shared by the three
 * outputs. Private to src/core. */
#ifndef PFS_REPORT_LAT_H
#define PFS_REPORT_LAT_H

#include <stdio.h>

#include "pfs/report.h"
#include "pfs/schema.h"

/* JSON: the members a repetition's object gains, each preceded by ", ":
 * "iops", "cpu_percent", "cpu_user_s", "cpu_sys_s", "latency" (per kind:
 * count, min_ns .. max_ns, mean_ns; null when not recorded),
 * "slowest_node_p99_ns" and "slowest_node" (null when not recorded). */
void pfs_report_lat_json(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* JSON: ", \"exemplars\": [...]", the repetition's slowest operations
 * (report_exemplar.c), each an object of the schema's "exemplar" fields;
 * null when latencies were not recorded. */
void pfs_report_exemplars_json(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Text, -v: the table of every repetition's slowest operations (nothing
 * when none were kept). */
void pfs_report_exemplars(FILE *out, const struct pfs_run_data *d);

/* JSON: ", \"targets\": [...], \"targets_dropped\": N", a data
 * phase's storage targets (report_targets.c), each an object of the
 * schema's "target" fields; null where none were kept. */
void pfs_report_targets_json(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* Text: below a repetition's row, its storage targets' short table and
 * slow targets, when more than one known target served it. */
void pfs_report_targets(FILE *out, const struct pfs_run_data *d, int phase, int rep);

/* A member of a schema compound's row (at row + f->offset) as JSON. */
void pfs_report_json_member(FILE *out, const struct pfs_sch_field *f, const void *row);

/* CSV: the columns appended after the existing ones (header, with its
 * leading comma, and one row's fields, each with its leading comma). */
void pfs_report_lat_csv_head(FILE *out);
void pfs_report_lat_csv(FILE *out, const struct pfs_run_data *d, int phase, int rep);

#endif
