/* The I/O backend table (IOR's aiori idea, fio's discipline): each API is a
 * name, capability flags and a few function pointers over opaque handles.
 * Pure header: the MPI-IO backend's context is opaque here. */
#ifndef PFS_BACKEND_H
#define PFS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pfs/safefile.h"

enum {
    PFS_OPEN_READ = 1 << 0,
    PFS_OPEN_WRITE = 1 << 1,
    PFS_OPEN_CREATE = 1 << 2, /* O_CREAT|O_EXCL: never reuse a file that is there */
    PFS_OPEN_TRUNC = 1 << 3,  /* emptied only after the identity checks passed */
    PFS_OPEN_DIRECT = 1 << 4,
    PFS_OPEN_SHARED = 1 << 5, /* every rank opens the same file (collective for MPI-IO) */
};

enum {
    PFS_CAP_DIRECT = 1 << 0,     /* honours PFS_OPEN_DIRECT */
    PFS_CAP_COLLECTIVE = 1 << 1, /* xfer may be collective: every rank must call it equally often */
};

struct pfs_backend {
    const char *name;
    unsigned caps;
    /* All return 0 / bytes on success, a negative errno on failure; the
     * backend's errstr says more where it knows more (MPI_Error_string). */
    /* Opens path for this run: a regular file only, never through a symlink,
     * never blocking on a FIFO; when expect is known, only the inode it
     * names (PFS_ERR_NOTREG / PFS_ERR_REPLACED otherwise). got receives the
     * identity of the file opened (of the one created, with CREATE). */
    int (*open)(void *ctx, const char *path, unsigned flags, const struct pfs_fid *expect, struct pfs_fid *got,
                void **fh);
    int64_t (*pwrite)(void *fh, const void *buf, size_t len, uint64_t off);
    int64_t (*pread)(void *fh, void *buf, size_t len, uint64_t off);
    int (*fsync)(void *fh);
    int (*close)(void *fh);
    /* Optional: detail of the last error on this context, or NULL. */
    const char *(*errstr)(void *ctx);
};

extern const struct pfs_backend pfs_backend_posix;

/* Local. Direct-I/O alignment of files in dir: the larger of the memory and
 * offset alignments statx reports (STATX_DIOALIGN), else 4096. */
unsigned pfs_dio_alignment(const char *dir);

#endif
