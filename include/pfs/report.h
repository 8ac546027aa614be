/* What a run measured, as rank 0 holds it, and the text report made from it.
 * Pure: the results writer and the report both read this one structure. */
#ifndef PFS_REPORT_H
#define PFS_REPORT_H

#include <stdio.h>

#include "pfs/config.h"
#include "pfs/core.h"

struct pfs_run_data {
    const struct pfs_config *cfg;
    char run_id[64];
    uint64_t seed;
    char start_iso[32], end_iso[32];
    const char *status;     /* "complete", "failed", "interrupted" */
    const char *cmdline;
    const char *mpi_version;
    char fstype[32];
    int nranks, nnodes;
    const char (*hosts)[PFS_HOST_MAX]; /* nranks */
    const int *node_of_rank;           /* nranks */
    const double *clock_corr;          /* nranks: seconds added to put a rank on rank 0's clock */
    const double *clock_unc;           /* nranks */
    int reorder_shift;                 /* 0: no reorder */
    int round_robin_asked;             /* the launcher asked for round-robin */
    int nphases, reps;
    const struct pfs_times *times;     /* [(phase * reps + rep) * nranks + rank] */
    const int *reps_done;              /* nphases: repetitions recorded */
    char warnings[2048];               /* newline-separated */
    char error[1024];                  /* the failure, when status is not complete */
    int interrupt_signal;              /* the signal that interrupted the run, 0 when none */
};

static inline const struct pfs_times *pfs_run_times(const struct pfs_run_data *d, int phase, int rep)
{
    return d->times + ((size_t)phase * (size_t)d->reps + (size_t)rep) * (size_t)d->nranks;
}

/* Local. Appends a warning line (printed and stored). */
void pfs_run_warn(struct pfs_run_data *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Local. The text report, in three parts so rank 0 can print rows as they come. */
void pfs_report_header(FILE *out, const struct pfs_run_data *d);
void pfs_report_columns(FILE *out);
void pfs_report_placement(FILE *out, const struct pfs_run_data *d);
void pfs_report_row(FILE *out, const struct pfs_run_data *d, int phase, int rep);
void pfs_report_summary(FILE *out, const struct pfs_run_data *d);

#define PFS_MIB (1024.0 * 1024.0)

#endif
