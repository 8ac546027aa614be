/* POSIX backend: pread/pwrite on a file descriptor, and the small-file
 * calls every backend without its own (PFS_CAP_META) uses. The transfer
 * calls are the hot path: no allocation, clock read or option branch in them. */
#define _GNU_SOURCE
#include "pfs/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int posix_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                      struct pfs_fid *got, void **fh)
{
    (void)ctx;
    int fd = pfs_open_own_at(dirfd, path, pfs_open_flags(flags), 0644, expect, got);
    if (fd < 0)
        return fd;
    *fh = (void *)(intptr_t)fd;
    return 0;
}

/* One pwrite or pread of the descriptor fh is. */
static ssize_t posix_once(void *fh, char *buf, size_t len, uint64_t off, int wr)
{
    const int fd = (int)(intptr_t)fh;
    return wr ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
}

static int64_t posix_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return pfs_backend_whole(posix_once, fh, (char *)buf, len, off, 1); /* wr 1: buf is only read */
}

static int64_t posix_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return pfs_backend_whole(posix_once, fh, buf, len, off, 0);
}

static int posix_fsync(void *fh)
{
    return fsync((int)(intptr_t)fh) == 0 ? 0 : -errno;
}

static int posix_close(void *fh)
{
    return close((int)(intptr_t)fh) == 0 ? 0 : -errno;
}

static int md_failed(struct pfs_md_res *r, const char *step, uint64_t off, int rc)
{
    r->step = step;
    r->offset = off;
    return rc;
}

static int posix_md_create(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                           struct pfs_md_res *r)
{
    (void)ctx;
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return md_failed(r, "create", PFS_NO_OFFSET, -errno);
    r->made = 1;
    int rc = size ? pfs_backend_small(posix_once, (void *)(intptr_t)fd, buf, bufsize, size, 1, &r->bytes) : 0;
    if (rc < 0) {
        close(fd); /* the write's failure is the cause; the close's would be its consequence */
        return md_failed(r, "write", r->bytes, rc);
    }
    if (close(fd) != 0)
        return md_failed(r, "close", PFS_NO_OFFSET, -errno);
    return 0;
}

/* lstat's: a link planted under the name is a link, not what it points to. */
static int posix_md_stat(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    (void)ctx;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return md_failed(r, "stat", PFS_NO_OFFSET, -errno);
    r->size = (uint64_t)st.st_size;
    return 0;
}

static int posix_md_read(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                         struct pfs_md_res *r)
{
    (void)ctx;
    /* Never blocks on a FIFO planted under the name, never follows a link. */
    int fd = pfs_open_own_at(dirfd, name, O_RDONLY, 0, NULL, NULL);
    if (fd < 0)
        return md_failed(r, "open for reading", PFS_NO_OFFSET, fd);
    int rc = pfs_backend_small(posix_once, (void *)(intptr_t)fd, buf, bufsize, size, 0, &r->bytes);
    close(fd);
    return rc < 0 ? md_failed(r, "read", r->bytes, rc) : 0;
}

static int posix_md_unlink(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    (void)ctx;
    return unlinkat(dirfd, name, 0) == 0 ? 0 : md_failed(r, "delete", PFS_NO_OFFSET, -errno);
}

static int posix_md_mkdir(void *ctx, int dirfd, const char *name)
{
    (void)ctx;
    return mkdirat(dirfd, name, 0755) == 0 ? 0 : -errno;
}

static int posix_md_rmdir(void *ctx, int dirfd, const char *name)
{
    (void)ctx;
    return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
}

const struct pfs_backend pfs_backend_posix = {
    .name = "posix",
    .help = "POSIX pread/pwrite on a file descriptor, one transfer at a time (O_DIRECT with --direct)",
    .caps = PFS_CAP_DIRECT | PFS_CAP_THREADS | PFS_CAP_META | PFS_CAP_OSYNC,
    .open = posix_open,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .fsync = posix_fsync,
    .close = posix_close,
    .errstr = NULL,
    .md_create = posix_md_create,
    .md_stat = posix_md_stat,
    .md_read = posix_md_read,
    .md_unlink = posix_md_unlink,
    .md_mkdir = posix_md_mkdir,
    .md_rmdir = posix_md_rmdir,
};
