/* The stdio backend (--api stdio): bonnie++'s per-character output and
 * input ("Writing with putc()", "Reading with getc()"). The file is opened
 * as the POSIX backend opens it (pfs_open_own: pfsbench's own file only,
 * O_CREAT|O_EXCL on creation, never through a link, never blocking on a
 * FIFO) and the descriptor handed to fdopen, so stdio's buffer is the
 * default one (st_blksize, 4 KiB on most file systems): a transfer of -t
 * bytes is -t calls of putc_unlocked or getc_unlocked, and the system sees
 * one write(2) or read(2) per buffer. Each stream has its own FILE, used
 * by its one thread only, hence the _unlocked calls and --threads.
 *
 * A transfer at an offset other than where the last one ended (random
 * order, a strided shared file, a rewrite's write after its read) is an
 * fseeko first, which flushes what is buffered (C requires a seek between
 * a read and a write on one stream). A write error shows when the buffer is
 * flushed: at a later putc, at fflush (-e, --fsync-every) or at fclose.
 * fsync is fflush then fsync(2); close is fclose. --direct is refused (the
 * buffer is in user space); --sync makes each flush of the buffer a
 * synchronous write (O_DSYNC / O_SYNC on the descriptor). */
#define _GNU_SOURCE
#include "pfs/backend.h"
#include "pfs/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct stdio_fh {
    FILE *f;
    uint64_t pos; /* where the stream's position is (UINT64_MAX: unknown) */
    int dir;      /* the last transfer: 1 write, 0 read, -1 none */
};

static int stdio_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->direct) {
        snprintf(err, len, "--direct is not available with --api stdio: its transfers go through stdio's buffer in "
                 "user space; use --api posix or --api uring");
        return -1;
    }
    return 0;
}

static int stdio_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                      struct pfs_fid *got, void **fh)
{
    (void)ctx;
    const int rd = (flags & PFS_OPEN_READ) != 0, wr = (flags & PFS_OPEN_WRITE) != 0;
    struct stdio_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    struct pfs_fid made = {0, 0};
    int fd = pfs_open_own_at(dirfd, path, pfs_open_flags(flags), 0644, expect, &made);
    if (fd < 0) {
        free(h);
        return fd;
    }
    /* "w" and "r+" never truncate through fdopen: the descriptor's flags rule. */
    h->f = fdopen(fd, rd && wr ? "r+" : wr ? "w" : "r");
    if (!h->f) {
        int e = errno;
        close(fd);
        if (flags & PFS_OPEN_CREATE)
            (void)pfs_unlink_own_at(dirfd, path, &made);
        free(h);
        return -e;
    }
    h->pos = 0;
    h->dir = -1;
    if (got)
        *got = made;
    *fh = h;
    return 0;
}

/* The stream at off, and the direction changed where it must be: a seek. */
static int stdio_at(struct stdio_fh *h, uint64_t off, int dir)
{
    if (h->pos == off && (h->dir == dir || h->dir < 0))
        return 0;
    if (fseeko(h->f, (off_t)off, SEEK_SET) != 0) {
        h->pos = UINT64_MAX;
        return -errno;
    }
    h->pos = off;
    return 0;
}

static int64_t stdio_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    struct stdio_fh *h = fh;
    errno = 0; /* a failing putc sets it; an old value must not be taken for its reason */
    int rc = stdio_at(h, off, 1);
    if (rc < 0)
        return rc;
    h->dir = 1;
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++)
        if (putc_unlocked(p[i], h->f) == EOF) {
            h->pos = UINT64_MAX; /* what reached the file is not known: seek next time */
            return errno ? -errno : -EIO;
        }
    h->pos = off + len;
    return (int64_t)len;
}

static int64_t stdio_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    struct stdio_fh *h = fh;
    errno = 0; /* as in stdio_pwrite */
    int rc = stdio_at(h, off, 0);
    if (rc < 0)
        return rc;
    h->dir = 0;
    unsigned char *p = buf;
    size_t i = 0;
    for (; i < len; i++) {
        int c = getc_unlocked(h->f);
        if (c == EOF)
            break;
        p[i] = (unsigned char)c;
    }
    if (i < len) {
        h->pos = UINT64_MAX;
        if (ferror_unlocked(h->f)) {
            clearerr_unlocked(h->f);
            return errno ? -errno : -EIO;
        }
        clearerr_unlocked(h->f); /* end of file: the caller names the short read */
        return (int64_t)i;
    }
    h->pos = off + len;
    return (int64_t)len;
}

static int stdio_fsync(void *fh)
{
    struct stdio_fh *h = fh;
    if (fflush(h->f) != 0)
        return -errno;
    return fsync(fileno(h->f)) == 0 ? 0 : -errno;
}

static int stdio_close(void *fh)
{
    struct stdio_fh *h = fh;
    int rc = fclose(h->f) == 0 ? 0 : -errno;
    free(h);
    return rc;
}

const struct pfs_backend pfs_backend_stdio = {
    .name = "stdio",
    .help = "stdio's putc/getc, one byte at a time through the default FILE buffer (bonnie++'s per-char phases)",
    .caps = PFS_CAP_THREADS | PFS_CAP_OSYNC,
    .check = stdio_check,
    .open = stdio_open,
    .pwrite = stdio_pwrite,
    .pread = stdio_pread,
    .fsync = stdio_fsync,
    .close = stdio_close,
};
