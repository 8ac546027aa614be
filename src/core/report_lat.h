/* The report's latency, IOPS and CPU (report_lat.c), shared by the three
 * outputs. Private to src/core. */
#ifndef PFS_REPORT_LAT_H
#define PFS_REPORT_LAT_H

#include <stdio.h>

#include "pfs/report.h"

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

/* CSV: the columns appended after the existing ones (header, with its
 * leading comma, and one row's fields, each with its leading comma). */
void pfs_report_lat_csv_head(FILE *out);
void pfs_report_lat_csv(FILE *out, const struct pfs_run_data *d, int phase, int rep);

#endif
