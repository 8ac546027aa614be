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

/* Writes or reads exactly n bytes of a small file in bufsize pieces. */
static int small_io(int fd, void *buf, size_t bufsize, uint64_t n, int write_it, uint64_t *done)
{
    *done = 0;
    while (*done < n) {
        size_t chunk = n - *done < bufsize ? (size_t)(n - *done) : bufsize;
        ssize_t r = write_it ? write(fd, buf, chunk) : read(fd, buf, chunk);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            return write_it ? -ENOSPC : 0;
        *done += (uint64_t)r;
    }
    return 0;
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
    int rc = size ? small_io(fd, buf, bufsize, size, 1, &r->bytes) : 0;
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
    int rc = small_io(fd, buf, bufsize, size, 0, &r->bytes);
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
