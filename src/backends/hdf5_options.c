/* --api hdf5's options, in the core: the backend is a module
 * (libpfs_hdf5.so, hdf5.c) that only a run choosing it loads, while the
 * parser, --help, describe and --list-options=json need its options in
 * every run. Their keys keep the places they had in the results files
 * (33 to 36), where every run stores them, 0 when unused. */
#include <stddef.h>

#include "pfs/backend.h"

#include "hdf5_options.h"

#define OFF(f) offsetof(struct pfs_hdf5_opts, f)

static const struct pfs_opt rows[] = {
    {"hdf5-chunk", 0, PFS_OPT_SIZE0, OFF(chunk), 0, 0, NULL, "SIZE", "chunk the dataset in SIZE bytes (default 0: contiguous)",
     .key = "hdf5_chunk", .pos = 33, .unit = "bytes"},
    {"hdf5-align", 0, PFS_OPT_SIZE0, OFF(align), 0, 0, NULL, "SIZE",
     "H5Pset_alignment: data objects start at multiples of SIZE (default 0: HDF5's)", .key = "hdf5_align", .pos = 34,
     .unit = "bytes"},
    {"hdf5-mdc-size", 0, PFS_OPT_SIZE0, OFF(mdc_size), 0, 0, NULL, "SIZE",
     "a metadata cache of SIZE bytes, 1k to 128m (default 0: HDF5's adaptive one)", .key = "hdf5_mdc_size", .pos = 35,
     .unit = "bytes"},
    {"hdf5-coll-metadata", 0, PFS_OPT_FLAG, OFF(coll_md), 0, 0, "1", NULL,
     "collective metadata reads and writes (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write)",
     .key = "hdf5_coll_metadata", .pos = 36},
};

const struct pfs_backend_options pfs_hdf5_options = {rows, sizeof(rows) / sizeof(rows[0]),
                                                     sizeof(struct pfs_hdf5_opts)};
_Static_assert(sizeof(struct pfs_hdf5_opts) <= PFS_BACKEND_OPTS_MAX, "raise PFS_BACKEND_OPTS_MAX");

const struct pfs_backend_about pfs_about_hdf5 = {PFS_HDF5_HELP, &pfs_hdf5_options};
