/* The HDF5 results file. The only module that includes hdf5.h; this header
 * stays pure. All functions are local and called by rank 0 alone. */
#ifndef PFS_RESULTS_H
#define PFS_RESULTS_H

#include <stddef.h>

#include "pfs/report.h"

#define PFS_RESULTS_FORMAT "pfsbench-results"
#define PFS_RESULTS_VERSION 1

/* Checks, before any benchmark I/O, that path can take a new run: either it
 * does not exist and its directory is writable, or it is a pfsbench results
 * file of a version this build reads, and writable. 0 or -1 with err set. */
int pfs_results_check(const char *path, char *err, size_t errlen);

/* Appends run d as the next /runs/NNNNNN group and its rows to /summary.
 * Crash-safe: the new file is built in a temporary copy beside path,
 * fsync'ed and renamed over it, under an flock on the directory so that
 * concurrent runs serialize. Writes the group name into name. 0 or -1. */
int pfs_results_append(const char *path, const struct pfs_run_data *d, char *name, size_t namelen,
                       char *err, size_t errlen);

/* The HDF5 library version, "1.10.8". */
const char *pfs_results_hdf5_version(void);

#endif
