/* The RADOS backend (--api rados): each stream's data is one object in a
 * Ceph pool (--rados-pool), moved through librados in this process (fio's
 * rados engine); the shared file (--shared) is one object every rank writes
 * at its offsets. The run's lock, results and kept-run status stay in -d;
 * the objects are named as the run's data files are (their last
 * component: pfsbench.RUNID.N, or --file-name's).
 *
 * Safety: an object is made with one atomic write op, an exclusive create
 * (LIBRADOS_CREATE_EXCLUSIVE: a name already in the pool is refused, never
 * overwritten) with an xattr pfsbench.id holding a random 64-bit token;
 * the token is the object's identity (struct pfs_fid's ino), as an inode is
 * a file's. A later open checks the xattr against the identity the run
 * knows (PFS_ERR_REPLACED otherwise, and for an object pfsbench did not
 * make), and the clean-up removes an object with one write op that
 * compares that xattr first (cmpxattr, then remove): only what this run
 * made, only while it is still that.
 *
 * A write is a plain rados_aio_write (a write op that compared the xattr
 * first would be a read as well, which the OSD orders behind every write
 * in flight on the object: at --iodepth 8 it cost 0.6x here). A write
 * makes its object when it is not there, so the clean-up first marks the
 * token removed, under a write lock that every write's submission holds
 * for reading: a write submitted before the removal reaches the OSD before
 * it (one client, one object: in order), and none is submitted after (the
 * watchdog's clean-up removes an object while the stream's writes go on).
 *
 * --iodepth: submit starts such a write op or a rados_aio_read at once with
 * a completion whose callback (in librados's finisher thread) puts its slot
 * on the handle's done list; reap waits on a condition variable for at
 * least min of them. RADOS acknowledges a write once every replica has it
 * (it is stable then), so fsync has nothing left to do. */
#include "pfs/config.h"
#include "pfs/phase.h"

#include "rados.h"
#include "rados_clean.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <rados/librados.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define ID_XATTR "pfsbench.id"

struct rd_ctx {
    const struct pfs_config *cfg; /* the run's: its run_token, drawn after init, before any create */
    rados_t cl;
    rados_ioctx_t io;
    char pool[56];
    uint64_t dev; /* every object's pfs_fid dev: "rados" and the pool's id */
    unsigned depth;
    pthread_mutex_t lock; /* last, for several threads */
    char last[512];       /* the last failure, for errstr */
    pthread_rwlock_t gone_lock; /* writes submit under it (read), the clean-up marks gone (write) */
    uint64_t *gone;             /* the tokens of the objects the clean-up removed */
    size_t ngone, capgone;
};

struct rd_fh;

/* A transfer in flight. */
struct rd_slot {
    rados_completion_t comp;
    struct pfs_io *io;
    struct rd_fh *h;
    struct rd_slot *next; /* on the free list */
};

/* One open object: its name and depth slots. */
struct rd_fh {
    struct rd_ctx *c;
    char oid[256];
    uint64_t token; /* its pfsbench.id */
    unsigned depth, busy; /* busy: submitted, not yet reaped */
    struct rd_slot *slots, *free;
    pthread_mutex_t lock; /* done, filled by librados's callbacks */
    pthread_cond_t cv;
    struct rd_slot **done;
    unsigned ndone;
};

/* Records a failure of call on oid (rc a negative errno) for errstr; rc. */
static int failed(struct rd_ctx *c, const char *oid, const char *call, int rc, const char *hint)
{
    if (!hint && (rc == -EFBIG || rc == -E2BIG))
        hint = "an object may not grow past the OSDs' osd_max_object_size (128 MiB unless the cluster says "
               "otherwise), nor one write pass osd_max_write_size (90 MiB): lower -b/-t, or use more streams";
    pthread_mutex_lock(&c->lock);
    snprintf(c->last, sizeof(c->last), "object %s in pool %s: %s: %s%s%s", oid, c->pool, call, strerror(-rc),
             hint ? "; " : "", hint ? hint : "");
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static const char *rd_errstr(void *ctx)
{
    struct rd_ctx *c = ctx;
    return c && c->last[0] ? c->last : NULL;
}

/* The phases that mean something on objects: the data phases on the
 * streams' own files. Metadata phases (small files, directories) and the
 * checkpoint's files of its own are refused by name. */
static int rd_check(const struct pfs_config *cfg, char *err, size_t len)
{
    const struct pfs_rados_opts *o = pfs_config_backend_opts(cfg);
    if (!o->pool[0]) {
        snprintf(err, len, "--api rados needs --rados-pool POOL: the pool the run's objects go in (it must exist: "
                 "ceph osd pool create POOL)");
        return -1;
    }
    for (int i = 0; i < cfg->nphases; i++)
        if (pfs_phase_is_meta(cfg->phases[i]) || pfs_phase_has(cfg->phases[i], PFS_PHF_OWN_FILES)) {
            const char *name = pfs_phase_name(cfg->phases[i]);
            snprintf(err, len, "--phases %s with --api rados: %s works on %s, which a pool of objects does not "
                     "have; --api rados runs the data phases (write, rewrite, read, reread, seeks)", name, name,
                     pfs_phase_is_meta(cfg->phases[i]) ? "small files and directories" : "files of its own");
            return -1;
        }
    return 0;
}

static void rd_fini(void *ctx)
{
    struct rd_ctx *c = ctx;
    if (!c)
        return;
    if (c->io)
        rados_ioctx_destroy(c->io);
    if (c->cl)
        rados_shutdown(c->cl);
    pthread_mutex_destroy(&c->lock);
    pthread_rwlock_destroy(&c->gone_lock);
    free(c->gone);
    free(c);
}

/* Local: connects this rank to the cluster and opens the pool, before
 * anything is made. */
static int rd_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    const struct pfs_rados_opts *o = pfs_config_backend_opts(cfg);
    struct rd_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "--api rados: no memory for the backend's context");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_rwlock_init(&c->gone_lock, NULL);
    snprintf(c->pool, sizeof(c->pool), "%.*s", (int)sizeof(c->pool) - 1, o->pool);
    c->cfg = cfg;
    c->depth = cfg->iodepth > 1 ? (unsigned)cfg->iodepth : 1;
    const char *step = "rados_create";
    int rc = rados_create(&c->cl, o->id[0] ? o->id : NULL);
    if (rc == 0) {
        step = "rados_conf_read_file";
        rc = rados_conf_read_file(c->cl, o->conf[0] ? o->conf : NULL);
    }
    if (rc == 0) {
        step = "rados_connect";
        rc = rados_connect(c->cl);
    }
    if (rc == 0) {
        step = "rados_ioctx_create (does the pool exist?)";
        rc = rados_ioctx_create(c->cl, o->pool, &c->io);
    }
    if (rc == 0) {
        c->dev = 0x7261646f73ULL << 24 ^ (uint64_t)rados_ioctx_get_id(c->io);
        *ctx = c;
        return 0;
    }
    snprintf(err, len, "--api rados: pool %s, client %s, conf %s: %s: %s", o->pool, o->id[0] ? o->id : "admin",
             o->conf[0] ? o->conf : getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "librados's default", step,
             strerror(-rc));
    rd_fini(c);
    *ctx = NULL;
    return -1;
}

/* The object's name: the data file's last component. */
static const char *oid_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void rd_where(void *ctx, const char *path, char *buf, size_t len)
{
    const struct rd_ctx *c = ctx;
    snprintf(buf, len, "object %s in pool %s", oid_of(path), c->pool);
}

static void hex_of(uint64_t v, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, v);
}

/* Makes oid, exclusively, with its identity token and the run's (what
 * --clean proves it by once the run is gone): one atomic write op. */
static int create_object(struct rd_ctx *c, const char *oid, uint64_t *token)
{
    if (getrandom(token, sizeof(*token), 0) != (ssize_t)sizeof(*token))
        return failed(c, oid, "getrandom", -errno, NULL);
    *token |= 1;
    char hex[17];
    hex_of(*token, hex);
    rados_write_op_t op = rados_create_write_op();
    if (!op)
        return failed(c, oid, "rados_create_write_op", -ENOMEM, NULL);
    rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
    rados_write_op_setxattr(op, ID_XATTR, hex, 16);
    char run[17];
    hex_of(c->cfg->run_token, run);
    if (c->cfg->run_token)
        rados_write_op_setxattr(op, RUN_XATTR, run, 16);
    int rc = rados_write_op_operate(op, c->io, oid, NULL, 0);
    rados_release_write_op(op);
    if (rc < 0)
        return failed(c, oid, "exclusive create", rc,
                      rc == -EEXIST ? "an object of that name is already in the pool; pfsbench never writes to an "
                                      "object it did not create" : NULL);
    return 0;
}

/* Reads oid's identity token: 0, -ENOENT, or PFS_ERR_REPLACED when it has
 * none (not an object pfsbench made). */
static int token_of(struct rd_ctx *c, const char *oid, uint64_t *token)
{
    char hex[17] = "";
    int n = rados_getxattr(c->io, oid, ID_XATTR, hex, 16);
    if (n == -ENODATA || (n >= 0 && n != 16)) {
        failed(c, oid, "open", -ENODATA, "it has no " ID_XATTR " xattr: not an object pfsbench made, left alone");
        return PFS_ERR_REPLACED;
    }
    if (n < 0)
        return failed(c, oid, "rados_getxattr " ID_XATTR, n, NULL);
    hex[16] = '\0';
    *token = strtoull(hex, NULL, 16);
    return 0;
}

static int fh_make(struct rd_fh *h, struct rd_ctx *c, const char *oid)
{
    h->c = c;
    snprintf(h->oid, sizeof(h->oid), "%s", oid);
    h->depth = c->depth;
    h->slots = calloc(h->depth, sizeof(*h->slots));
    h->done = calloc(h->depth, sizeof(*h->done));
    if (!h->slots || !h->done)
        return -ENOMEM;
    for (unsigned k = 0; k < h->depth; k++) {
        h->slots[k].h = h;
        h->slots[k].next = k + 1 < h->depth ? &h->slots[k + 1] : NULL;
    }
    h->free = h->slots;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cv, NULL);
    return 0;
}

static void fh_free(struct rd_fh *h)
{
    if (h->slots) {
        pthread_mutex_destroy(&h->lock);
        pthread_cond_destroy(&h->cv);
    }
    free(h->slots);
    free(h->done);
    free(h);
}

static int rd_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    (void)dirfd;
    struct rd_ctx *c = ctx;
    const char *oid = oid_of(path);
    if (strlen(oid) >= sizeof(((struct rd_fh *)0)->oid))
        return -ENAMETOOLONG;
    struct rd_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    int rc = fh_make(h, c, oid);
    uint64_t token = 0;
    if (rc == 0)
        rc = (flags & PFS_OPEN_CREATE) ? create_object(c, oid, &token) : token_of(c, oid, &token);
    h->token = token;
    struct pfs_fid id = {c->dev, token};
    if (rc == 0 && !(flags & PFS_OPEN_CREATE) && pfs_fid_known(expect) && !pfs_fid_same(&id, expect))
        rc = PFS_ERR_REPLACED; /* the name was removed and made again by someone else */
    if (rc == 0 && (flags & PFS_OPEN_TRUNC) && !(flags & PFS_OPEN_CREATE) && (rc = rados_trunc(c->io, oid, 0)) < 0)
        failed(c, oid, "rados_trunc", rc, NULL);
    if (rc < 0) {
        fh_free(h);
        return rc;
    }
    if (got)
        *got = id;
    *fh = h;
    return 0;
}

/* Under gone_lock (read): 1 when the clean-up removed the object of token. */
static int gone(const struct rd_ctx *c, uint64_t token)
{
    for (size_t k = 0; k < c->ngone; k++)
        if (c->gone[k] == token)
            return 1;
    return 0;
}

/* Submits a write of io's bytes with comp, unless the clean-up removed
 * the object: 0, or a negative errno (nothing submitted). */
static int submit_write(struct rd_fh *h, rados_completion_t comp, const void *buf, size_t len, uint64_t off)
{
    struct rd_ctx *c = h->c;
    pthread_rwlock_rdlock(&c->gone_lock);
    int rc = gone(c, h->token) ? -ENOENT : rados_aio_write(c->io, h->oid, comp, buf, len, off);
    pthread_rwlock_unlock(&c->gone_lock);
    if (rc == -ENOENT)
        return failed(c, h->oid, "rados_aio_write", rc, "the clean-up removed the object: the run is ending");
    return rc < 0 ? failed(c, h->oid, "rados_aio_write", rc, NULL) : 0;
}

/* A write, waited for: len, or its failure, named. */
static int64_t rd_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    struct rd_fh *h = fh;
    rados_completion_t comp;
    int rc = rados_aio_create_completion2(NULL, NULL, &comp);
    if (rc < 0)
        return failed(h->c, h->oid, "rados_aio_create_completion2", rc, NULL);
    rc = submit_write(h, comp, buf, len, off);
    if (rc == 0) {
        rados_aio_wait_for_complete(comp);
        rc = rados_aio_get_return_value(comp);
        if (rc < 0)
            failed(h->c, h->oid, "rados_aio_write", rc, NULL);
    }
    rados_aio_release(comp);
    return rc < 0 ? rc : (int64_t)len;
}

/* Reads until len bytes or the object's end (a short read the loop names). */
static int64_t rd_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    struct rd_fh *h = fh;
    size_t done = 0;
    while (done < len) {
        int n = rados_read(h->c->io, h->oid, (char *)buf + done, len - done, off + done);
        if (n < 0)
            return failed(h->c, h->oid, "rados_read", n, NULL);
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (int64_t)done;
}

/* RADOS acknowledges a write once every replica holds it: nothing to flush. */
static int rd_fsync(void *fh)
{
    (void)fh;
    return 0;
}

/* In librados's finisher thread: the slot goes on its handle's done list. */
static void on_complete(rados_completion_t comp, void *arg)
{
    (void)comp;
    struct rd_slot *s = arg;
    struct rd_fh *h = s->h;
    pthread_mutex_lock(&h->lock);
    h->done[h->ndone++] = s;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->lock);
}

static int rd_submit(void *fh, struct pfs_io *io)
{
    struct rd_fh *h = fh;
    struct rd_slot *s = h->free;
    if (!s) /* more in flight than the depth: the loop never asks that */
        return -EBUSY;
    int rc = rados_aio_create_completion2(s, on_complete, &s->comp);
    if (rc < 0)
        return failed(h->c, h->oid, "rados_aio_create_completion2", rc, NULL);
    s->io = io;
    rc = io->write ? submit_write(h, s->comp, io->buf, io->len, io->off)
                   : rados_aio_read(h->c->io, h->oid, s->comp, io->buf, io->len, io->off);
    if (rc < 0) {
        rados_aio_release(s->comp);
        return io->write ? rc : failed(h->c, h->oid, "rados_aio_read", rc, NULL);
    }
    h->free = s->next;
    h->busy++;
    return PFS_Q_QUEUED;
}

/* Slot s's transfer is over: its result (a write's 0 is its length). */
static struct pfs_io *settle(struct rd_fh *h, struct rd_slot *s)
{
    struct pfs_io *io = s->io;
    int rc = rados_aio_get_return_value(s->comp);
    rados_aio_release(s->comp);
    io->res = rc < 0      ? failed(h->c, h->oid, io->write ? "rados_aio_write" : "rados_aio_read", rc, NULL)
              : io->write ? (int64_t)io->len
                          : rc;
    s->next = h->free;
    h->free = s;
    return io;
}

/* Waits for at least min completions (fewer only when fewer are in
 * flight) and hands back up to max. */
static int rd_reap(void *fh, struct pfs_io **done, unsigned min, unsigned max)
{
    struct rd_fh *h = fh;
    const unsigned need = min < h->busy ? min : h->busy;
    struct rd_slot *got[h->depth ? h->depth : 1];
    pthread_mutex_lock(&h->lock);
    while (h->ndone < need)
        pthread_cond_wait(&h->cv, &h->lock);
    unsigned n = h->ndone < max ? h->ndone : max;
    memcpy(got, h->done, n * sizeof(*got));
    h->ndone -= n;
    memmove(h->done, h->done + n, h->ndone * sizeof(*h->done));
    pthread_mutex_unlock(&h->lock);
    for (unsigned k = 0; k < n; k++)
        done[k] = settle(h, got[k]);
    h->busy -= n;
    if (n < min && !n)
        return -EIO; /* nothing done, nothing in flight: asked for more than was given */
    return (int)n;
}

/* Waits for what is still in flight (a broken queue's), then lets go. */
static int rd_close(void *fh)
{
    struct rd_fh *h = fh;
    struct pfs_io *spare[h->depth ? h->depth : 1];
    while (h->busy && rd_reap(h, spare, h->busy, h->depth) > 0)
        ;
    fh_free(h);
    return 0;
}

/* Under gone_lock (write): token's object is being removed; no write
 * of it is submitted from now on. 0, or -ENOMEM. */
static int mark_gone(struct rd_ctx *c, uint64_t token)
{
    if (c->ngone == c->capgone) {
        size_t cap = c->capgone ? c->capgone * 2 : 16;
        uint64_t *g = realloc(c->gone, cap * sizeof(*g));
        if (!g)
            return -ENOMEM;
        c->gone = g;
        c->capgone = cap;
    }
    c->gone[c->ngone++] = token;
    return 0;
}

/* The clean-up: oid goes only while its token is the one this run made
 * (one write op: cmpxattr, then remove), after every write of it. */
static int rd_remove(void *ctx, int dirfd, const char *path, const struct pfs_fid *fid)
{
    (void)dirfd;
    struct rd_ctx *c = ctx;
    const char *oid = oid_of(path);
    char hex[17];
    hex_of(fid->ino, hex);
    rados_completion_t comp;
    int rc = rados_aio_create_completion2(NULL, NULL, &comp);
    if (rc < 0)
        return failed(c, oid, "rados_aio_create_completion2", rc, NULL);
    rados_write_op_t op = rados_create_write_op();
    if (!op) {
        rados_aio_release(comp);
        return -ENOMEM;
    }
    rados_write_op_cmpxattr(op, ID_XATTR, LIBRADOS_CMPXATTR_OP_EQ, hex, 16);
    rados_write_op_remove(op);
    pthread_rwlock_wrlock(&c->gone_lock);
    rc = mark_gone(c, fid->ino);
    if (rc == 0)
        rc = rados_aio_write_op_operate(op, c->io, comp, oid, NULL, 0);
    pthread_rwlock_unlock(&c->gone_lock);
    if (rc == 0) {
        rados_aio_wait_for_complete(comp);
        rc = rados_aio_get_return_value(comp);
    }
    rados_aio_release(comp);
    rados_release_write_op(op);
    if (rc == -ENOENT)
        return 1;
    if (rc == -ECANCELED || rc == -ENODATA)
        return PFS_ERR_REPLACED;
    return rc < 0 ? failed(c, oid, "remove", rc, NULL) : 0;
}

/* --clean (pfs/clean.h): rados_clean.c. */
static int rd_clean(void *ctx, const char *run_id, uint64_t token, int remove, FILE *out, int *nfailed, char *err,
                    size_t len)
{
    const struct rd_ctx *c = ctx;
    return pfs_rados_clean(c->io, c->pool, run_id, token, remove, out, nfailed, err, len);
}

const struct pfs_backend pfs_backend_rados = {
    .name = "rados",
    .help = PFS_RADOS_HELP,
    .caps = PFS_CAP_ASYNC | PFS_CAP_THREADS | PFS_CAP_NOFILES,
    .options = &pfs_rados_options,
    .check = rd_check,
    .init = rd_init,
    .fini = rd_fini,
    .open = rd_open,
    .pwrite = rd_pwrite,
    .pread = rd_pread,
    .fsync = rd_fsync,
    .close = rd_close,
    .errstr = rd_errstr,
    .submit = rd_submit,
    .reap = rd_reap,
    .remove = rd_remove,
    .where = rd_where,
    .clean = rd_clean,
};
