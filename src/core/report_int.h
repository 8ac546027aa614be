/* What the reports' files share (report.c the text, report_json.c,
 * report_csv.c, report_lat.c, report_cache.c, report_escape.c). Private to
 * src/core. Every figure they print is in the run's figures (d->fig). */
#ifndef PFS_REPORT_INT_H
#define PFS_REPORT_INT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "pfs/report.h"
#include "pfs/schema.h"

/* For the text report's fixed-width columns: s escaped (PFS_ESC_TEXT) into buf. */
const char *pfs_report_text_of(const char *s, char *buf, size_t len);

static inline int pfs_report_threads(const struct pfs_run_data *d)
{
    return d->threads > 0 ? d->threads : 1;
}

/* The host that names node n (its lowest rank's); none: the rank-0 host
 * when rank0 is set, else NULL. */
static inline const char *pfs_report_node_host(const struct pfs_run_data *d, int n, int rank0)
{
    const int r = d->fig.node_rank && n >= 0 && n < d->fig.nnodes ? d->fig.node_rank[n] : -1;
    return r >= 0 ? d->hosts[r] : rank0 ? d->hosts[0] : NULL;
}

/* JSON has no NaN or infinity: a figure that is not finite becomes null. */
static inline void pfs_report_json_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

/* A figure of the schema's report table (pfs/schema.h) for repetition r:
 * an integer one, or a float one in its scale (units: the --units bytes/s),
 * NaN where it is absent (no stonewall). */
static inline uint64_t pfs_report_u64(const struct pfs_sch_field *f, const struct pfs_rep_figs *r)
{
    return *(const uint64_t *)((const char *)r + f->offset);
}

static inline int pfs_report_absent(const struct pfs_sch_field *f, const struct pfs_rep_figs *r)
{
    return ((f->report & PFS_SCH_STONEWALL) && !r->stonewall) || ((f->report & PFS_SCH_TRAINS) && !r->train_fed) ||
           ((f->report & PFS_SCH_MIXED) && !r->mixed);
}

static inline double pfs_report_f64(const struct pfs_sch_field *f, const struct pfs_rep_figs *r, double units)
{
    if (pfs_report_absent(f, r))
        return NAN;
    const double v = *(const double *)((const char *)r + f->offset);
    return f->report & PFS_SCH_UNITS ? v / units : f->report & PFS_SCH_KB ? v / 1024.0 : v;
}

#endif
