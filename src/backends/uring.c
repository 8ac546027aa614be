/* The io_uring backend (--api uring): --iodepth transfers in flight per
 * stream through liburing, fio's io_uring engine in pfsbench's loop.
 *
 * One ring per open file, made by the stream's own thread at open, so
 * threads never share one. submit only
 * preps an SQE (the SQ is pushed when it is full); reap pushes what is
 * queued and waits in one io_uring_enter (io_uring_submit_and_wait), then
 * takes the completions in batches. The transfer travels in user_data; a
 * partial transfer is continued from where it stopped, as the POSIX
 * backend's pwrite/pread loops do, so a write that ends on a full file
 * system fails with ENOSPC and a read that meets the end of the file
 * comes back short (the loop names both). The file is registered
 * (IORING_REGISTER_FILES) when the kernel allows it; buffers are not (the
 * loop owns them, one per slot, and fio does not register them either).
 * Opening is the POSIX backend's: pfs_open_own and its identity checks.
 * fsync and close are the plain calls, after the loop has drained the queue. */
#define _GNU_SOURCE
#include "pfs/backend.h"
#include "pfs/config.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The run's context: the depth every ring is made for; set (by any
 * stream, atomically) when the file system refused O_DIRECT. */
struct uring_ctx {
    unsigned depth;
    int no_direct;
};

/* One open file: its ring and descriptor. */
struct uring_fh {
    struct io_uring ring;
    int fd;
    int fixed; /* the descriptor is registered: SQEs name slot 0 */
};

/* The CQEs taken per peek; the most one SQE asks for (its length is 32 bits). */
enum { URING_BATCH = 64 };
#define URING_CHUNK (1u << 30)

/* Makes a ring of depth entries (clamped by the kernel past its maximum;
 * the CQ is twice the SQ, so every transfer in flight has room). Plain: on
 * 6.18 here, SINGLE_ISSUER | DEFER_TASKRUN read 4 KiB O_DIRECT at depth 32
 * 2-7% slower (6 alternating runs each). 0 or a negative errno. */
static int ring_make(struct io_uring *ring, unsigned depth)
{
    struct io_uring_params par;
    memset(&par, 0, sizeof(par));
    par.flags = IORING_SETUP_CLAMP;
    return io_uring_queue_init_params(depth, ring, &par);
}

/* Why io_uring cannot be used here, in one sentence. */
static void why_unavailable(int rc, char *err, size_t len)
{
    int disabled = -1;
    FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "re");
    if (f) {
        if (fscanf(f, "%d", &disabled) != 1)
            disabled = -1;
        fclose(f);
    }
    if (rc == -ENOSYS)
        snprintf(err, len, "--api uring: this kernel has no io_uring (io_uring_setup: ENOSYS); use --api posix");
    else if (rc == -EPERM && disabled > 0)
        snprintf(err, len, "--api uring: io_uring is disabled on this system (/proc/sys/kernel/io_uring_disabled is %d); "
                 "use --api posix", disabled);
    else if (rc == -EPERM)
        snprintf(err, len, "--api uring: io_uring is not permitted to this process (io_uring_setup: EPERM, e.g. a "
                 "container's seccomp filter); use --api posix");
    else if (rc == -ENOMEM)
        snprintf(err, len, "--api uring: io_uring_setup of a ring of --iodepth entries failed: %s; lower --iodepth "
                 "or raise the locked-memory limit (ulimit -l)", strerror(-rc));
    else
        snprintf(err, len, "--api uring: io_uring_setup failed: %s; use --api posix", strerror(-rc));
}

/* Before anything is made: a ring of the run's depth can be set up here. */
static int uring_check(const struct pfs_config *cfg, char *err, size_t len)
{
    struct io_uring ring;
    int rc = ring_make(&ring, cfg->iodepth > 1 ? (unsigned)cfg->iodepth : 1);
    if (rc < 0) {
        why_unavailable(rc, err, len);
        return -1;
    }
    io_uring_queue_exit(&ring);
    return 0;
}

static int uring_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    struct uring_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "--api uring: no memory for the backend's context");
        return -1;
    }
    c->depth = cfg && cfg->iodepth > 1 ? (unsigned)cfg->iodepth : 1;
    *ctx = c;
    return 0;
}

static void uring_fini(void *ctx)
{
    free(ctx);
}

/* pfs_open_own (which, with --direct, leaves nothing behind where the
 * file system refuses O_DIRECT), noting that refusal for errstr. */
static int open_file(struct uring_ctx *c, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                     struct pfs_fid *got)
{
    int fd = pfs_open_own_at(dirfd, path, pfs_open_flags(flags), 0644, expect, got);
    if (fd == -EINVAL && (flags & PFS_OPEN_DIRECT) && c)
        __atomic_store_n(&c->no_direct, 1, __ATOMIC_RELAXED);
    return fd;
}

static const char *uring_errstr(void *ctx)
{
    const struct uring_ctx *c = ctx;
    return c && __atomic_load_n(&c->no_direct, __ATOMIC_RELAXED)
               ? "this file system does not support O_DIRECT (--direct); run without --direct or on another one"
               : NULL;
}

static int uring_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                      struct pfs_fid *got, void **fh)
{
    struct uring_ctx *c = ctx;
    struct uring_fh *u = calloc(1, sizeof(*u));
    if (!u)
        return -ENOMEM;
    /* The ring first: a file this run creates is not made when it cannot be used. */
    int rc = ring_make(&u->ring, c ? c->depth : 1);
    if (rc < 0) {
        free(u);
        return rc;
    }
    u->fd = open_file(c, dirfd, path, flags, expect, got);
    if (u->fd < 0) {
        rc = u->fd;
        io_uring_queue_exit(&u->ring);
        free(u);
        return rc;
    }
    u->fixed = io_uring_register_files(&u->ring, &u->fd, 1) == 0;
    (void)io_uring_register_ring_fd(&u->ring); /* fewer fd look-ups per enter; optional */
    *fh = u;
    return 0;
}

/* Preps the SQE of io's part not yet moved (io->priv bytes are done). */
static int prep(struct uring_fh *u, struct pfs_io *io)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) { /* the SQ is full: push it */
        int rc = io_uring_submit(&u->ring);
        if (rc < 0)
            return rc;
        sqe = io_uring_get_sqe(&u->ring);
        if (!sqe)
            return -EBUSY;
    }
    size_t done = (size_t)(uintptr_t)io->priv;
    size_t left = io->len - done;
    unsigned n = left < URING_CHUNK ? (unsigned)left : URING_CHUNK; /* the rest comes back as a partial transfer */
    int fd = u->fixed ? 0 : u->fd;
    if (io->write)
        io_uring_prep_write(sqe, fd, (const char *)io->buf + done, n, io->off + done);
    else
        io_uring_prep_read(sqe, fd, (char *)io->buf + done, n, io->off + done);
    if (u->fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, io);
    return 0;
}

/* Each transfer goes to the kernel as it is given (fio's default,
 * iodepth_batch_submit=1): a ring pushed only at the next reap kept its
 * slots idle while the loop took a batch of completions (0.89-0.915 x
 * fio's io_uring at depth 32). A push the kernel refuses leaves the SQE
 * in the ring, and the reap's io_uring_submit_and_wait meets the error. */
static int uring_submit(void *fh, struct pfs_io *io)
{
    struct uring_fh *u = fh;
    io->priv = (void *)(uintptr_t)0;
    int rc = prep(u, io);
    if (rc < 0)
        return rc;
    (void)io_uring_submit(&u->ring);
    return PFS_Q_QUEUED;
}

/* One completion: 1 when io is done (res set), 0 when the rest of a
 * partial transfer was queued again. */
static int finish(struct uring_fh *u, struct pfs_io *io, int res)
{
    size_t done = (size_t)(uintptr_t)io->priv;
    if (res > 0 && done + (size_t)res < io->len) {
        io->priv = (void *)(uintptr_t)(done + (size_t)res);
        int rc = prep(u, io);
        if (rc == 0)
            return 0;
        res = rc;
    } else if (res == 0 && io->write && done < io->len) {
        res = -ENOSPC; /* no progress and no error: nothing more will fit */
    }
    io->res = res < 0 ? res : (int64_t)(done + (size_t)res);
    return 1;
}

/* Takes up to max completions off the CQ; returns how many transfers are done. */
static unsigned harvest(struct uring_fh *u, struct pfs_io **done, unsigned max)
{
    struct io_uring_cqe *cqes[URING_BATCH];
    unsigned n = 0;
    while (n < max) {
        unsigned want = max - n < URING_BATCH ? max - n : URING_BATCH;
        unsigned got = io_uring_peek_batch_cqe(&u->ring, cqes, want);
        if (!got)
            break;
        for (unsigned i = 0; i < got; i++) {
            struct pfs_io *io = io_uring_cqe_get_data(cqes[i]);
            if (finish(u, io, cqes[i]->res))
                done[n++] = io;
        }
        io_uring_cq_advance(&u->ring, got);
    }
    return n;
}

/* Pushes what submit queued (never left waiting while completions are
 * taken), and waits for min in the same io_uring_enter when the CQ has fewer. */
static int uring_reap(void *fh, struct pfs_io **done, unsigned min, unsigned max)
{
    struct uring_fh *u = fh;
    unsigned n = harvest(u, done, max);
    if (n >= min && io_uring_sq_ready(&u->ring)) {
        int rc = io_uring_submit(&u->ring);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
            return (int)n; /* what it handed back counts; the next reap meets the error again */
    }
    while (n < min) {
        int rc = io_uring_submit_and_wait(&u->ring, min - n);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
            return n ? (int)n : rc;
        n += harvest(u, done + n, max - n);
    }
    return (int)n;
}

/* The synchronous calls, through the ring (only with nothing in flight). */
static int64_t uring_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return pfs_backend_queue_sync(uring_submit, uring_reap, fh, (void *)buf, len, off, 1);
}

static int64_t uring_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return pfs_backend_queue_sync(uring_submit, uring_reap, fh, buf, len, off, 0);
}

static int uring_fsync(void *fh)
{
    const struct uring_fh *u = fh;
    return fsync(u->fd) == 0 ? 0 : -errno;
}

static int uring_close(void *fh)
{
    struct uring_fh *u = fh;
    io_uring_queue_exit(&u->ring);
    int rc = close(u->fd) == 0 ? 0 : -errno;
    free(u);
    return rc;
}

const struct pfs_backend pfs_backend_uring = {
    .name = "uring",
    .help = "io_uring (liburing): --iodepth transfers in flight per stream (O_DIRECT with --direct)",
    .caps = PFS_CAP_DIRECT | PFS_CAP_ASYNC | PFS_CAP_THREADS | PFS_CAP_OSYNC,
    .check = uring_check,
    .init = uring_init,
    .fini = uring_fini,
    .open = uring_open,
    .pwrite = uring_pwrite,
    .pread = uring_pread,
    .fsync = uring_fsync,
    .close = uring_close,
    .errstr = uring_errstr,
    .submit = uring_submit,
    .reap = uring_reap,
};
