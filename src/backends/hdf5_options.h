/* --api hdf5's own options: the struct its option table
 * (hdf5_options.c, in the core) fills and the module (hdf5.c) reads
 * through pfs_config_backend_opts. Private to src/backends. */
#ifndef PFS_BACKEND_HDF5_OPTIONS_H
#define PFS_BACKEND_HDF5_OPTIONS_H

#include <stdint.h>

#include "pfs/backend.h"

struct pfs_hdf5_opts {
    uint64_t chunk;    /* --hdf5-chunk: chunk bytes of the dataset; 0: contiguous */
    uint64_t align;    /* --hdf5-align: H5Pset_alignment bytes; 0: HDF5's (none) */
    uint64_t mdc_size; /* --hdf5-mdc-size: metadata cache bytes (fixed size); 0: HDF5's adaptive default */
    int coll_md;       /* --hdf5-coll-metadata: collective metadata reads and writes */
};

#define PFS_HDF5_HELP "HDF5 H5Dwrite/H5Dread of hyperslabs of one dataset per file, through the MPI-IO driver (a module)"

extern const struct pfs_backend_options pfs_hdf5_options;

#endif
