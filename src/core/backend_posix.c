/* POSIX backend: pread/pwrite on a file descriptor. The transfer calls are
 * the hot path: no allocation, clock read or option branch in them. */
#define _GNU_SOURCE
#include "pfs/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int posix_open(void *ctx, const char *path, unsigned flags, const struct pfs_fid *expect,
                      struct pfs_fid *got, void **fh)
{
    (void)ctx;
    int of = 0;
    if ((flags & PFS_OPEN_READ) && (flags & PFS_OPEN_WRITE))
        of |= O_RDWR;
    else if (flags & PFS_OPEN_WRITE)
        of |= O_WRONLY;
    else
        of |= O_RDONLY;
    if (flags & PFS_OPEN_CREATE)
        of |= O_CREAT | O_EXCL;
    if (flags & PFS_OPEN_TRUNC)
        of |= O_TRUNC;
    if (flags & PFS_OPEN_DIRECT)
        of |= O_DIRECT;
    int fd = pfs_open_own(path, of, 0644, expect, got);
    if (fd < 0)
        return fd;
    *fh = (void *)(intptr_t)fd;
    return 0;
}

static int64_t posix_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    int fd = (int)(intptr_t)fh;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -ENOSPC; /* no progress and no error: nothing more will fit */
        done += (size_t)n;
    }
    return (int64_t)done;
}

static int64_t posix_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    int fd = (int)(intptr_t)fh;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break; /* end of file: the caller names the short read */
        done += (size_t)n;
    }
    return (int64_t)done;
}

static int posix_fsync(void *fh)
{
    return fsync((int)(intptr_t)fh) == 0 ? 0 : -errno;
}

static int posix_close(void *fh)
{
    return close((int)(intptr_t)fh) == 0 ? 0 : -errno;
}

const struct pfs_backend pfs_backend_posix = {
    .name = "posix",
    .caps = PFS_CAP_DIRECT,
    .open = posix_open,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .fsync = posix_fsync,
    .close = posix_close,
    .errstr = NULL,
};

unsigned pfs_dio_alignment(const char *dir)
{
    unsigned align = 4096;
#ifdef STATX_DIOALIGN
    struct statx sx;
    if (statx(AT_FDCWD, dir, 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
        unsigned a = sx.stx_dio_mem_align > sx.stx_dio_offset_align ? sx.stx_dio_mem_align
                                                                     : sx.stx_dio_offset_align;
        if (a)
            align = a;
    }
#else
    (void)dir;
#endif
    return align;
}
