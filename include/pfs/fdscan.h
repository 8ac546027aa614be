/* The descriptor a library opened for us. MPI_File_open and H5Fopen open by
 * path inside a library (following links, blocking on FIFOs), so a backend
 * over them checks the path before (pfs_fid_check_path) and, after, finds
 * the library's new descriptor among those this process did not have and
 * checks its inode. Local and MPI-free; used by src/backends/mpiio.c and
 * the HDF5 module (src/backends/hdf5.c). */
#ifndef PFS_FDSCAN_H
#define PFS_FDSCAN_H

#include "pfs/safefile.h"

#define PFS_FD_SCAN 4096

/* The descriptors below PFS_FD_SCAN this process has open. */
struct pfs_fdset {
    unsigned char bits[PFS_FD_SCAN / 8];
};

/* Local. Marks in set the descriptors open now (from /proc/self/fd). */
void pfs_fdset_take(struct pfs_fdset *set);

/* Local. After the library's open: a descriptor not in before must be the
 * inode expected (expect when known, else what path names now, for a file
 * just created). 0 with got set when one is; PFS_ERR_REPLACED when new
 * descriptors exist and none is; PFS_ERR_NOTREG when path is not a regular
 * file; 1 (got = the expected identity) when the library opened nothing we
 * can see (a deferred open on a rank that is not an aggregator). */
int pfs_fdset_check_new(const char *path, const struct pfs_fdset *before, const struct pfs_fid *expect,
                        struct pfs_fid *got);

#endif
