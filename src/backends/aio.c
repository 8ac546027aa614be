/* The Linux native AIO backend (--api aio): --iodepth transfers in flight
 * per stream through libaio, fio's libaio engine in pfsbench's loop. With
 * O_DIRECT (--direct) the kernel queues each transfer to the device and
 * io_submit returns at once: the path Lustre's direct I/O and databases
 * use. Buffered, io_submit does the copy itself before it returns, so the
 * depth buys nothing there: it is measured as it is.
 *
 * An open file has an AIO context of its own, so threads never share one;
 * the contexts are made when the run starts (one per stream of the rank,
 * --threads) and an open takes one, a close gives it back: io_setup and
 * io_destroy (which waits for an RCU grace period: 20-45 ms a close here)
 * stay out of the timed opens and closes, as fio makes them outside its
 * jobs' timing. A context closed with transfers still in it (a broken
 * queue) is destroyed, never reused. submit only prepares an
 * iocb and queues it; reap hands everything queued to one io_submit, then
 * waits in one io_getevents for at least min completions and takes up to
 * max. A partial transfer is continued from where it stopped, as the
 * POSIX backend's pwrite/pread loops do, so a write that ends on a full
 * file system fails with ENOSPC and a read that meets the end of the file
 * comes back short (the loop names both); an iocb io_submit refuses is
 * that transfer's failure, with its errno. Opening is the POSIX backend's
 * (pfs_open_own_at and its identity checks); fsync and close are the plain
 * calls, after the loop has drained the queue. */
#define _GNU_SOURCE
#include "pfs/backend.h"
#include "pfs/config.h"

#include <errno.h>
#include <libaio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The run's context: the depth every file's AIO context is made for, the
 * contexts no open file holds, and no_direct, set (by any stream,
 * atomically) when the file system refused O_DIRECT. */
struct aio_ctx {
    unsigned depth;
    int no_direct;
    pthread_mutex_t lock; /* the spares: opens and closes of several threads */
    io_context_t *spare;
    unsigned nspare, cap;
};

/* A transfer in flight: its iocb, and how much of it is done. */
struct aio_slot {
    struct iocb cb;
    struct pfs_io *io;
    size_t done;
    struct aio_slot *next; /* on the free list */
};

/* One open file: its AIO context, descriptor and depth slots. */
struct aio_fh {
    struct aio_ctx *c;
    io_context_t io;
    int fd;
    unsigned depth;
    struct aio_slot *slots, *free;
    struct iocb **pend;  /* prepared, not yet given to io_submit */
    unsigned npend;
    unsigned busy;       /* given to io_submit, not yet completed */
    struct io_event *ev; /* what one io_getevents takes */
};

/* The most one iocb asks for: the kernel moves at most about 2 GiB per
 * call (MAX_RW_COUNT); the rest comes back as a partial transfer. */
#define AIO_CHUNK (1u << 30)

/* Why an AIO context of depth entries cannot be made here, in one sentence. */
static void why_unavailable(int rc, unsigned depth, char *err, size_t len)
{
    unsigned long max = 0, used = 0;
    FILE *f = fopen("/proc/sys/fs/aio-max-nr", "re");
    if (f) {
        if (fscanf(f, "%lu", &max) != 1)
            max = 0;
        fclose(f);
    }
    f = fopen("/proc/sys/fs/aio-nr", "re");
    if (f) {
        if (fscanf(f, "%lu", &used) != 1)
            used = 0;
        fclose(f);
    }
    if (rc == -ENOSYS)
        snprintf(err, len, "--api aio: this kernel has no native AIO (io_setup: ENOSYS); use --api posix");
    else if (rc == -EAGAIN)
        snprintf(err, len, "--api aio: no room for an AIO context of %u entries (--iodepth): the system allows %lu "
                 "(/proc/sys/fs/aio-max-nr) and %lu are taken; lower --iodepth or --threads, or raise fs.aio-max-nr",
                 depth, max, used);
    else if (rc == -EPERM)
        snprintf(err, len, "--api aio: native AIO is not permitted to this process (io_setup: EPERM, e.g. a "
                 "container's seccomp filter); use --api posix");
    else
        snprintf(err, len, "--api aio: io_setup of %u entries failed: %s; use --api posix", depth, strerror(-rc));
}

static unsigned depth_of(const struct pfs_config *cfg)
{
    return cfg && cfg->iodepth > 1 ? (unsigned)cfg->iodepth : 1;
}

/* Before anything is made: a context of the run's depth can be set up here. */
static int aio_check(const struct pfs_config *cfg, char *err, size_t len)
{
    io_context_t io = 0;
    int rc = io_setup((int)depth_of(cfg), &io);
    if (rc < 0) {
        why_unavailable(rc, depth_of(cfg), err, len);
        return -1;
    }
    io_destroy(io);
    return 0;
}

static void aio_fini(void *ctx)
{
    struct aio_ctx *c = ctx;
    if (!c)
        return;
    for (unsigned k = 0; k < c->nspare; k++)
        io_destroy(c->spare[k]);
    pthread_mutex_destroy(&c->lock);
    free(c->spare);
    free(c);
}

/* Local. Makes one AIO context per stream of the rank, untimed. */
static int aio_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    struct aio_ctx *c = calloc(1, sizeof(*c));
    unsigned streams = cfg && cfg->threads > 1 ? (unsigned)cfg->threads : 1;
    if (!c || !(c->spare = calloc(streams, sizeof(*c->spare)))) {
        free(c);
        snprintf(err, len, "--api aio: no memory for the backend's context");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->depth = depth_of(cfg);
    c->cap = streams;
    *ctx = c;
    for (; c->nspare < streams; c->nspare++) {
        c->spare[c->nspare] = 0;
        int rc = io_setup((int)c->depth, &c->spare[c->nspare]);
        if (rc < 0) {
            why_unavailable(rc, c->depth, err, len);
            aio_fini(c);
            *ctx = NULL;
            return -1;
        }
    }
    return 0;
}

/* A spare AIO context, or a new one (a plain call without init: depth 1). */
static int take_context(struct aio_ctx *c, io_context_t *io)
{
    if (c) {
        pthread_mutex_lock(&c->lock);
        int have = c->nspare > 0;
        if (have)
            *io = c->spare[--c->nspare];
        pthread_mutex_unlock(&c->lock);
        if (have)
            return 0;
    }
    *io = 0;
    return io_setup(c ? (int)c->depth : 1, io);
}

/* io back to the spares when nothing is in it, else destroyed. */
static void give_context(struct aio_ctx *c, io_context_t io, int idle)
{
    int kept = 0;
    if (c && idle) {
        pthread_mutex_lock(&c->lock);
        if ((kept = c->nspare < c->cap))
            c->spare[c->nspare++] = io;
        pthread_mutex_unlock(&c->lock);
    }
    if (!kept)
        io_destroy(io);
}

static const char *aio_errstr(void *ctx)
{
    const struct aio_ctx *c = ctx;
    return c && __atomic_load_n(&c->no_direct, __ATOMIC_RELAXED)
               ? "this file system does not support O_DIRECT (--direct); run without --direct or on another one"
               : NULL;
}

static void fh_free(struct aio_fh *h)
{
    free(h->slots);
    free(h->pend);
    free(h->ev);
    free(h);
}

/* The file's slots and its AIO context: 0 or a negative errno. */
static int fh_make(struct aio_fh *h, struct aio_ctx *c, unsigned depth)
{
    h->depth = depth;
    h->slots = calloc(depth, sizeof(*h->slots));
    h->pend = calloc(depth, sizeof(*h->pend));
    h->ev = calloc(depth, sizeof(*h->ev));
    if (!h->slots || !h->pend || !h->ev)
        return -ENOMEM;
    for (unsigned k = 0; k < depth; k++)
        h->slots[k].next = k + 1 < depth ? &h->slots[k + 1] : NULL;
    h->free = h->slots;
    return take_context(c, &h->io);
}

static int aio_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                    struct pfs_fid *got, void **fh)
{
    struct aio_ctx *c = ctx;
    struct aio_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    /* The context first: a file this run creates is not made when it cannot be used. */
    h->c = c;
    int rc = fh_make(h, c, c ? c->depth : 1);
    if (rc < 0) {
        fh_free(h);
        return rc;
    }
    h->fd = pfs_open_own_at(dirfd, path, pfs_open_flags(flags), 0644, expect, got);
    if (h->fd < 0) {
        rc = h->fd;
        if (rc == -EINVAL && (flags & PFS_OPEN_DIRECT) && c)
            __atomic_store_n(&c->no_direct, 1, __ATOMIC_RELAXED);
        give_context(c, h->io, 1);
        fh_free(h);
        return rc;
    }
    *fh = h;
    return 0;
}

/* Prepares the iocb of the part of slot's transfer not yet moved and queues it. */
static void prep(struct aio_fh *h, struct aio_slot *s)
{
    struct pfs_io *io = s->io;
    size_t left = io->len - s->done;
    size_t n = left < AIO_CHUNK ? left : AIO_CHUNK;
    if (io->write)
        io_prep_pwrite(&s->cb, h->fd, (char *)io->buf + s->done, n, (long long)(io->off + s->done));
    else
        io_prep_pread(&s->cb, h->fd, (char *)io->buf + s->done, n, (long long)(io->off + s->done));
    s->cb.data = s;
    h->pend[h->npend++] = &s->cb;
}

static struct pfs_io *settle(struct aio_fh *h, struct aio_slot *s, int64_t res);

/* Each transfer goes to the kernel as it is given (fio's default,
 * iodepth_batch_submit=1): a queue refilled only at the next reap ran
 * 10-20% below fio's at depth 32 (rwmix 4 KiB O_DIRECT, 233-274 against
 * 292-306 MiB/s), its slots idle while the loop took a batch of
 * completions. What the kernel has no room for (EAGAIN with some in
 * flight) or an interrupted call leaves queued for the reap's push; any
 * other refusal is this transfer's failure, returned. */
static int aio_submit(void *fh, struct pfs_io *io)
{
    struct aio_fh *h = fh;
    struct aio_slot *s = h->free;
    if (!s || h->npend == h->depth) /* more in flight than the depth: the loop never asks that */
        return -EBUSY;
    h->free = s->next;
    s->io = io;
    s->done = 0;
    prep(h, s);
    if (h->npend != 1) /* others wait before it: the reap pushes them in order */
        return PFS_Q_QUEUED;
    const int rc = io_submit(h->io, 1, h->pend);
    if (rc == 1) {
        h->busy++;
        h->npend = 0;
    } else if (!(rc == -EINTR || (rc == -EAGAIN && h->busy))) {
        h->npend = 0;
        settle(h, s, rc < 0 ? rc : -EIO);
        return rc < 0 ? rc : -EIO;
    }
    return PFS_Q_QUEUED;
}

/* Slot s's transfer is over, with res (bytes moved in all, or a negative errno). */
static struct pfs_io *settle(struct aio_fh *h, struct aio_slot *s, int64_t res)
{
    struct pfs_io *io = s->io;
    io->res = res;
    s->next = h->free;
    h->free = s;
    return io;
}

/* One completion of slot s: the transfer when it is over, NULL when the
 * rest of a partial one was queued again. */
static struct pfs_io *finish(struct aio_fh *h, struct aio_slot *s, long res)
{
    const struct pfs_io *io = s->io;
    h->busy--;
    if (res > 0 && s->done + (size_t)res < io->len) {
        s->done += (size_t)res;
        prep(h, s);
        return NULL;
    }
    if (res == 0 && io->write && s->done < io->len)
        return settle(h, s, -ENOSPC); /* no progress and no error: nothing more will fit */
    return settle(h, s, res < 0 ? res : (int64_t)(s->done + (size_t)res));
}

/* Hands what is queued to io_submit. An iocb it refuses is its transfer's
 * failure, with the errno, put in done[*n]; EAGAIN (no room in the
 * kernel) leaves the rest queued while some are in flight, whose
 * completions make room, and fails the first otherwise, so that afterwards
 * nothing is queued or something is in flight. */
static void push(struct aio_fh *h, struct pfs_io **done, unsigned *n)
{
    while (h->npend) {
        int rc = io_submit(h->io, (long)h->npend, h->pend);
        if (rc > 0) {
            h->busy += (unsigned)rc;
            h->npend -= (unsigned)rc;
            memmove(h->pend, h->pend + rc, h->npend * sizeof(*h->pend));
            continue;
        }
        if (rc == -EINTR)
            continue;
        if (rc == -EAGAIN && h->busy)
            return;
        done[(*n)++] = settle(h, h->pend[0]->data, rc < 0 ? rc : -EIO);
        h->npend--;
        memmove(h->pend, h->pend + 1, h->npend * sizeof(*h->pend));
    }
}

/* Submits what submit queued, then waits in one io_getevents for at least
 * min completions (fewer only when fewer are in flight) and takes up to max. */
static int aio_reap(void *fh, struct pfs_io **done, unsigned min, unsigned max)
{
    struct aio_fh *h = fh;
    unsigned n = 0;
    push(h, done, &n);
    if (min == 0 && h->busy) { /* a poll: what has completed, without waiting */
        struct timespec zero = {0, 0};
        long want = (long)(max - n < h->depth ? max - n : h->depth);
        int got = want > 0 ? io_getevents(h->io, 0, want, h->ev, &zero) : 0;
        for (int i = 0; i < got; i++) {
            struct pfs_io *io = finish(h, h->ev[i].data, (long)h->ev[i].res);
            if (io)
                done[n++] = io;
        }
        push(h, done, &n);
        return (int)n;
    }
    while (n < min && h->busy) {
        long need = (long)(min - n < h->busy ? min - n : h->busy);
        long want = (long)(max - n < h->depth ? max - n : h->depth);
        int got = io_getevents(h->io, need, want, h->ev, NULL);
        if (got == -EINTR)
            continue;
        if (got < 0)
            return n ? (int)n : got;
        for (int i = 0; i < got; i++) {
            struct pfs_io *io = finish(h, h->ev[i].data, (long)h->ev[i].res);
            if (io)
                done[n++] = io;
        }
        push(h, done, &n); /* the rest of partial transfers */
    }
    if (n < min && !n)
        return -EIO; /* nothing done, nothing in flight: asked for more than was given */
    return (int)n;
}

/* The synchronous calls, through the context (only with nothing in flight). */
static int64_t aio_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return pfs_backend_queue_sync(aio_submit, aio_reap, fh, (void *)buf, len, off, 1);
}

static int64_t aio_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return pfs_backend_queue_sync(aio_submit, aio_reap, fh, buf, len, off, 0);
}

static int aio_fsync(void *fh)
{
    const struct aio_fh *h = fh;
    return fsync(h->fd) == 0 ? 0 : -errno;
}

static int aio_close(void *fh)
{
    struct aio_fh *h = fh;
    give_context(h->c, h->io, !h->busy && !h->npend);
    int rc = close(h->fd) == 0 ? 0 : -errno;
    fh_free(h);
    return rc;
}

const struct pfs_backend pfs_backend_aio = {
    .name = "aio",
    .help = "Linux native AIO (libaio io_submit/io_getevents): --iodepth transfers in flight per stream (O_DIRECT "
            "with --direct)",
    .caps = PFS_CAP_DIRECT | PFS_CAP_ASYNC | PFS_CAP_THREADS | PFS_CAP_OSYNC,
    .check = aio_check,
    .init = aio_init,
    .fini = aio_fini,
    .open = aio_open,
    .pwrite = aio_pwrite,
    .pread = aio_pread,
    .fsync = aio_fsync,
    .close = aio_close,
    .errstr = aio_errstr,
    .submit = aio_submit,
    .reap = aio_reap,
};
