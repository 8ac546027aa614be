/* The mmap backend (--api mmap): IOR's MMAP and fio's mmap engine. Each
 * open maps the file (a file per stream: its block; the shared file: all of
 * it, ranks x threads x block, which covers both layouts) MAP_SHARED, and a
 * transfer is one memcpy to or from the mapping.
 *
 * Opening is the POSIX backend's (pfs_open_own, the identity checks). A
 * write maps a file of the right size: only a file this run made (created
 * now, or the inode it expects) is sized, with fallocate(2) (mode 0: it
 * extends and never shrinks, so ranks sizing the shared file at once cannot
 * undo each other), so a full file system fails the open with ENOSPC instead
 * of raising SIGBUS at a later page fault; where fallocate is not supported,
 * ftruncate to the same size (the shared file: every rank asks for the same
 * size). A file this run did not make is never extended: writes stop at its
 * end (a short write, explained). A file per stream is left holding what was
 * written: at close it is cut back to the highest byte written (or
 * the size it had at open, if larger), as pwrite would have left it; the
 * shared file keeps ranks x block, so -D with --shared is refused.
 *
 * Reads map min(file size, what the phase reads): a read past the end of a
 * short file comes back short (the loop names it) and never touches a page
 * past the end. Copies run under a per-thread SIGBUS guard as well: a page
 * the file system cannot back (the file cut short by someone else, a file
 * system without fallocate that fills up) fails the transfer with EIO.
 *
 * fsync (-e, and every N transfers with --fsync-every) is msync(MS_SYNC)
 * of the mapping (on Linux, a datasync of the mapped range); the
 * descriptor is not fsync'ed as well. --sync is refused: O_DSYNC does not
 * reach a memcpy into a mapping. close is munmap and close. */
#define _GNU_SOURCE
#include "pfs/backend.h"
#include "pfs/config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What errstr says about the last failure of a kind only this backend has. */
enum { WHY_NONE, WHY_END, WHY_SIGBUS };

struct mmap_ctx {
    uint64_t block, total; /* per stream; the shared file's size */
    int shared, random;
    int why; /* WHY_*, set atomically by any stream */
};

struct mmap_fh {
    struct mmap_ctx *c;
    char *map;      /* NULL when nothing is mapped (an empty file) */
    size_t maplen;  /* bytes of the file a transfer may touch */
    int fd;
    int settle;     /* a file per stream written: cut back to what was written */
    uint64_t size0; /* its size at open (after the truncate) */
    uint64_t size;  /* its size now */
    uint64_t hi;    /* one past the highest byte written */
};

/* ---- the SIGBUS guard: a copy that faults returns -1 instead of killing ---- */

/* volatile: memcpy is a builtin the compiler knows cannot read it, and the
 * store before the copy would otherwise be dropped as dead. */
static __thread sigjmp_buf *volatile guard_jb;
static struct sigaction old_bus;
static int bus_users; /* contexts with the handler installed */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)si, (void)uc;
    sigjmp_buf *jb = guard_jb;
    if (jb) {
        guard_jb = NULL;
        siglongjmp(*jb, 1); /* SA_NODEFER: SIGBUS is not left blocked */
    }
    /* Not a copy of ours: what was there before, then the fault again. */
    sigaction(sig, &old_bus, NULL);
}

static __attribute__((noinline)) int copy_guarded(void *dst, const void *src, size_t n)
{
    sigjmp_buf jb;
    if (sigsetjmp(jb, 0)) /* no mask saved: no system call per transfer */
        return -1;
    guard_jb = &jb;
    memcpy(dst, src, n);
    guard_jb = NULL;
    return 0;
}

/* ---- life cycle ---- */

static int mmap_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->shared && cfg->deadline > 0) {
        snprintf(err, len, "--api mmap cannot stonewall (-D) a --shared file: the shared file is sized to ranks x "
                 "block before it is mapped, so a run cut short would leave bytes in it that were never written; "
                 "use a file per process with -D, or --api posix");
        return -1;
    }
    if (cfg->sync_mode != PFS_SYNC_NONE) {
        snprintf(err, len, "--sync %s is not available with --api mmap: a write is a memcpy into the mapping, which "
                 "O_DSYNC and O_SYNC never reach; use --fsync-every N (msync after every N transfers), or --api posix",
                 cfg->sync_mode == PFS_SYNC_SYNC ? "sync" : "dsync");
        return -1;
    }
    if (sizeof(size_t) < 8 && (cfg->block > SIZE_MAX || cfg->total > SIZE_MAX)) {
        snprintf(err, len, "--api mmap: the file does not fit in this process's address space; use --api posix");
        return -1;
    }
    return 0;
}

static int mmap_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    struct mmap_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "--api mmap: no memory for the backend's context");
        return -1;
    }
    if (cfg) {
        c->block = cfg->block;
        c->total = cfg->total ? cfg->total : cfg->block;
        c->shared = cfg->shared;
        c->random = cfg->random;
    }
    if (__atomic_fetch_add(&bus_users, 1, __ATOMIC_ACQ_REL) == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, &old_bus) != 0) {
            __atomic_fetch_sub(&bus_users, 1, __ATOMIC_ACQ_REL);
            snprintf(err, len, "--api mmap: cannot install the SIGBUS handler: %s", strerror(errno));
            free(c);
            return -1;
        }
    }
    *ctx = c;
    return 0;
}

static void mmap_fini(void *ctx)
{
    if (__atomic_sub_fetch(&bus_users, 1, __ATOMIC_ACQ_REL) == 0)
        sigaction(SIGBUS, &old_bus, NULL);
    free(ctx);
}

static const char *mmap_errstr(void *ctx)
{
    const struct mmap_ctx *c = ctx;
    switch (c ? __atomic_load_n(&c->why, __ATOMIC_RELAXED) : WHY_NONE) {
    case WHY_END:
        return "the file ends there, and --api mmap never extends a file this run did not create";
    case WHY_SIGBUS:
        return "SIGBUS while copying through the mapping: the file system could not back the page (full, or the "
               "file was cut short by someone else)";
    default:
        return NULL;
    }
}

static void set_why(struct mmap_ctx *c, int why)
{
    if (c)
        __atomic_store_n(&c->why, why, __ATOMIC_RELAXED);
}

/* ---- open and close ---- */

/* The file sized to need bytes (only one this run made). 0 or -errno. */
static int size_file(int fd, uint64_t have, uint64_t need)
{
    int rc;
    do
        rc = fallocate(fd, 0, 0, (off_t)need);
    while (rc != 0 && errno == EINTR);
    if (rc == 0)
        return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS)
        return -errno;
    /* No fallocate here: the size alone (every rank of a shared file asks for the same one). */
    if (have < need && ftruncate(fd, (off_t)need) != 0)
        return -errno;
    return 0;
}

/* Sizes (writes) and maps the open file fd. 0 or -errno. */
static int map_file(struct mmap_fh *h, int fd, unsigned flags, const struct pfs_fid *expect)
{
    const struct mmap_ctx *c = h->c;
    const int wr = (flags & PFS_OPEN_WRITE) != 0;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    uint64_t have = (uint64_t)st.st_size;
    uint64_t need = c ? (c->shared ? c->total : c->block) : have;
    int ours = (flags & PFS_OPEN_CREATE) || pfs_fid_known(expect);
    /* Already as large and fully allocated (a rewrite): nothing to size. */
    int whole = have >= need && (uint64_t)st.st_blocks * 512 >= need;
    if (wr && ours) {
        int rc = whole ? 0 : size_file(fd, have, need);
        if (rc < 0)
            return rc;
        h->settle = !(flags & PFS_OPEN_SHARED);
        h->size0 = have;
        h->size = have > need ? have : need;
    }
    uint64_t len = wr && ours ? need : have < need ? have : need;
    if (len > SIZE_MAX)
        return -EFBIG;
    h->maplen = (size_t)len;
    if (!len)
        return 0;
    void *m = mmap(NULL, h->maplen, wr ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return -errno;
    (void)madvise(m, h->maplen, c && c->random ? MADV_RANDOM : MADV_SEQUENTIAL);
    h->map = m;
    return 0;
}

static int mmap_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                     struct pfs_fid *got, void **fh)
{
    struct mmap_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->c = ctx;
    /* A shared writable mapping needs a descriptor open for reading too. */
    const int of = pfs_open_flags((flags & PFS_OPEN_WRITE) ? flags | PFS_OPEN_READ : flags);
    struct pfs_fid made = {0, 0};
    int fd = pfs_open_own_at(dirfd, path, of, 0644, expect, &made);
    if (fd < 0) {
        free(h);
        return fd;
    }
    int rc = map_file(h, fd, flags, expect);
    if (rc < 0) {
        close(fd);
        if (flags & PFS_OPEN_CREATE) /* the open failed: the file it made goes too */
            (void)pfs_unlink_own_at(dirfd, path, &made);
        free(h);
        return rc;
    }
    h->fd = fd;
    if (got)
        *got = made;
    *fh = h;
    return 0;
}

/* A file per stream cut back to what was written (never below its size at open). */
static int settle_size(struct mmap_fh *h)
{
    uint64_t want = h->hi > h->size0 ? h->hi : h->size0;
    if (!h->settle || want >= h->size)
        return 0;
    if (ftruncate(h->fd, (off_t)want) != 0)
        return -errno;
    h->size = want;
    return 0;
}

/* The mapping's dirty pages to the file. The file is not cut back here (close
 * does that): --fsync-every syncs in the middle of a phase, and a file cut
 * back to the highest byte written so far would make the next transfer's
 * pages lie past its end (SIGBUS). */
static int mmap_fsync(void *fh)
{
    struct mmap_fh *h = fh;
    if (!h->map || !h->maplen)
        return 0;
    return msync(h->map, h->maplen, MS_SYNC) == 0 ? 0 : -errno;
}

static int mmap_close(void *fh)
{
    struct mmap_fh *h = fh;
    int rc = settle_size(h);
    if (h->map && munmap(h->map, h->maplen) != 0 && rc == 0)
        rc = -errno;
    if (close(h->fd) != 0 && rc == 0)
        rc = -errno;
    free(h);
    return rc;
}

/* ---- transfers: one memcpy each ---- */

static int64_t mmap_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    struct mmap_fh *h = fh;
    size_t n = off >= h->maplen ? 0 : len < h->maplen - off ? len : h->maplen - (size_t)off;
    if (n < len)
        set_why(h->c, WHY_END); /* only a file this run did not make is mapped shorter */
    if (!n)
        return 0;
    if (copy_guarded(h->map + off, buf, n) != 0) {
        set_why(h->c, WHY_SIGBUS);
        return -EIO;
    }
    if (off + n > h->hi)
        h->hi = off + n;
    return (int64_t)n;
}

static int64_t mmap_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    struct mmap_fh *h = fh;
    size_t n = off >= h->maplen ? 0 : len < h->maplen - off ? len : h->maplen - (size_t)off;
    if (!n)
        return 0; /* past the end of the file: the loop names the short read */
    if (copy_guarded(buf, h->map + off, n) != 0) {
        set_why(h->c, WHY_SIGBUS);
        return -EIO;
    }
    return (int64_t)n;
}

const struct pfs_backend pfs_backend_mmap = {
    .name = "mmap",
    .help = "mmap(2) of the file and a memcpy per transfer (as IOR's MMAP, fio's mmap); -e is msync(MS_SYNC)",
    .caps = PFS_CAP_THREADS,
    .check = mmap_check,
    .init = mmap_init,
    .fini = mmap_fini,
    .open = mmap_open,
    .pwrite = mmap_pwrite,
    .pread = mmap_pread,
    .fsync = mmap_fsync,
    .close = mmap_close,
    .errstr = mmap_errstr,
};
