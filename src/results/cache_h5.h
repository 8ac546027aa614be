/* The page-cache part of a phase group (cache_h5.c), called by results_h5.c.
 * Private to src/results/. */
#ifndef PFS_CACHE_H5_H
#define PFS_CACHE_H5_H

#include <hdf5.h>

#include "pfs/report.h"

/* Writes phase p's page-cache figures (pfs/pagecache.h) into phase group
 * g: per repetition ([R]) and per node ([R][K]), the bytes probed and those
 * resident before a read, the bytes probed and those dirty at the close of
 * a write, each only when some repetition measured it; and the methods seen
 * as the attributes cache_method and cache_dirty_method ("" when not
 * probed). 0, or nonzero on failure. */
__attribute__((visibility("hidden"))) int pfs_res_write_cache(hid_t g, const struct pfs_run_data *d, int p);

#endif
