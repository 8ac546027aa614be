/* The GlusterFS backend (--api gfapi): the data moves through libgfapi,
 * the volume's own client library in this process (fio's gfapi engine),
 * with no FUSE and no kernel in between. The run's directories are made,
 * held and cleaned up through the FUSE mount -d is on, as for every
 * backend (gfapi_target.c finds the volume from it); this file opens the
 * run's files inside those very directories.
 *
 * Safety: gfapi has no *at calls on a descriptor, but it has handles
 * (glfs_h_*): the directory the run holds open through FUSE is looked up
 * once through gfapi by its path inside the volume, and accepted only when
 * it is the same inode (GlusterFS numbers an inode from its gfid alike in
 * the FUSE client and in gfapi); every file is then created
 * (glfs_h_creat_open, O_CREAT|O_EXCL: a name that is there is refused) or
 * looked up without following a link (glfs_h_lookupat) relative to that
 * handle, checked (a regular file, the inode this run made) and opened
 * through its own handle (glfs_h_open), never by a path rebuilt from -d.
 * The identity handed back is the FUSE mount's device with the file's
 * inode, so that the clean-up through the mount (pfs_unlink_own_at)
 * removes only what this run made. */
#define _GNU_SOURCE
#include "pfs/config.h"

#include "gfapi.h"

#include <errno.h>
#include <glusterfs/api/glfs-handles.h>
#include <glusterfs/api/glfs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A directory of the run, looked up through gfapi: its FUSE identity and
 * handle. The context keeps every one it looked up until the run ends (a
 * hash table on the identity, never evicted: another thread may be using
 * a handle), so that each call on a directory finds its handle without a
 * round trip to the server. */
struct gf_dir {
    uint64_t dev, ino;
    struct glfs_object *obj; /* NULL: a free slot */
};

struct gf_ctx {
    glfs_t *fs;
    struct pfs_gfapi_target t;
    pthread_mutex_t lock; /* the table, for several threads */
    struct gf_dir *dirs;
    size_t cap, n; /* cap a power of 2, n < cap / 2 */
};

struct gf_fh {
    glfs_fd_t *fd;
};

static void gf_fini(void *ctx)
{
    struct gf_ctx *c = ctx;
    if (!c)
        return;
    for (size_t k = 0; k < c->cap; k++)
        if (c->dirs[k].obj)
            glfs_h_close(c->dirs[k].obj);
    free(c->dirs);
    if (c->fs)
        glfs_fini(c->fs);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Local: finds the volume from -d's mount and connects this rank to it
 * (glfs_init: the volfile from the server, then every brick), before
 * anything is made. */
static int gf_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    const struct pfs_gfapi_opts *o = pfs_config_backend_opts(cfg);
    struct gf_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "--api gfapi: no memory for the backend's context");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    *ctx = c;
    if (pfs_gfapi_target(cfg, &c->t, err, len) != 0)
        goto fail;
    const char *step = "glfs_new";
    c->fs = glfs_new(c->t.volume);
    if (c->fs) {
        step = "glfs_set_volfile_server";
        if (glfs_set_volfile_server(c->fs, "tcp", c->t.server, c->t.port) == 0) {
            step = "glfs_set_logging";
            if (glfs_set_logging(c->fs, o->log[0] ? o->log : "/dev/null", o->log_level) == 0) {
                step = "glfs_init";
                if (glfs_init(c->fs) == 0)
                    return 0;
            }
        }
    }
    snprintf(err, len, "--api gfapi: volume %s on %s:%d: %s: %s%s", c->t.volume, c->t.server, c->t.port, step,
             strerror(errno ? errno : EIO), o->log[0] ? "" : " (--gfapi-log FILE --gfapi-log-level 7 says more)");
fail:
    gf_fini(c);
    *ctx = NULL;
    return -1;
}

/* The slot of (dev, ino) in tab: its entry, or the free slot it would take. */
static struct gf_dir *slot_of(struct gf_dir *tab, size_t cap, uint64_t dev, uint64_t ino)
{
    size_t k = (size_t)((ino ^ (dev << 32)) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
    while (tab[k].obj && (tab[k].dev != dev || tab[k].ino != ino))
        k = (k + 1) & (cap - 1);
    return &tab[k];
}

/* Under the lock: room for one more entry (the table doubled at half full). */
static int grow(struct gf_ctx *c)
{
    if (c->n + 1 < c->cap / 2)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 64;
    struct gf_dir *tab = calloc(cap, sizeof(*tab));
    if (!tab)
        return -ENOMEM;
    for (size_t k = 0; k < c->cap; k++)
        if (c->dirs[k].obj)
            *slot_of(tab, cap, c->dirs[k].dev, c->dirs[k].ino) = c->dirs[k];
    free(c->dirs);
    c->dirs = tab;
    c->cap = cap;
    return 0;
}

/* Looks the directory held as dirfd up through gfapi by its path inside the
 * volume: its handle when it is the same inode (st, dirfd's fstat). */
static struct glfs_object *look_dir_up(struct gf_ctx *c, int dirfd, const struct stat *ds, int *rc)
{
    char where[1024], vpath[2048];
    struct stat gs;
    if (pfs_dir_where(dirfd, where, sizeof(where)) != 0 || pfs_gfapi_vpath(&c->t, where, vpath, sizeof(vpath)) != 0) {
        *rc = PFS_ERR_REPLACED; /* moved off the mount */
        return NULL;
    }
    struct glfs_object *obj = glfs_h_lookupat(c->fs, NULL, vpath, &gs, 0);
    if (!obj) {
        *rc = -errno;
        return NULL;
    }
    if (!S_ISDIR(gs.st_mode) || gs.st_ino != ds->st_ino) {
        glfs_h_close(obj);
        *rc = PFS_ERR_REPLACED;
        return NULL;
    }
    return obj;
}

/* The run's directory dirfd (held open through the FUSE mount) as a gfapi
 * handle the context keeps (not to be closed): looked up once, then found
 * by dirfd's identity (an fstat, which the kernel answers from its
 * attribute cache while that is fresh). NULL with *rc a negative errno or
 * PFS_ERR_REPLACED; *dev is the mount's. */
static struct glfs_object *dir_handle(struct gf_ctx *c, int dirfd, uint64_t *dev, int *rc)
{
    struct stat ds;
    if (fstat(dirfd, &ds) != 0) {
        *rc = -errno;
        return NULL;
    }
    *dev = (uint64_t)ds.st_dev;
    struct glfs_object *obj = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->cap)
        obj = slot_of(c->dirs, c->cap, (uint64_t)ds.st_dev, (uint64_t)ds.st_ino)->obj;
    pthread_mutex_unlock(&c->lock);
    if (obj || !(obj = look_dir_up(c, dirfd, &ds, rc)))
        return obj;
    pthread_mutex_lock(&c->lock);
    struct gf_dir *d = NULL;
    if ((*rc = grow(c)) == 0 && !(d = slot_of(c->dirs, c->cap, (uint64_t)ds.st_dev, (uint64_t)ds.st_ino))->obj)
        *d = (struct gf_dir){(uint64_t)ds.st_dev, (uint64_t)ds.st_ino, obj};
    struct glfs_object *have = d ? d->obj : NULL;
    pthread_mutex_unlock(&c->lock);
    if (have != obj) /* another thread was first, or no memory */
        glfs_h_close(obj);
    return have;
}

static int acc_flags(unsigned flags)
{
    return (flags & PFS_OPEN_READ) && (flags & PFS_OPEN_WRITE) ? O_RDWR
           : (flags & PFS_OPEN_WRITE)                          ? O_WRONLY
                                                               : O_RDONLY;
}

/* Makes name in parent (O_EXCL) and opens it; on a failed check afterwards
 * removes it again, by name in parent (gfapi has no unlink of a handle),
 * only while the name still is the inode made. */
static int create_file(struct gf_ctx *c, struct glfs_object *parent, const char *name, unsigned flags,
                       struct stat *st, glfs_fd_t **fd)
{
    struct glfs_object *obj = glfs_h_creat_open(c->fs, parent, name, O_CREAT | O_EXCL | acc_flags(flags), 0644, st, fd);
    if (!obj)
        return -errno;
    glfs_h_close(obj);
    if (S_ISREG(st->st_mode))
        return 0;
    glfs_close(*fd);
    struct stat now;
    struct glfs_object *o = glfs_h_lookupat(c->fs, parent, name, &now, 0);
    if (o && now.st_ino == st->st_ino)
        (void)glfs_h_unlink(c->fs, parent, name);
    if (o)
        glfs_h_close(o);
    return PFS_ERR_NOTREG;
}

/* Opens name in parent through its own handle: a regular file, never
 * through a link, and the inode expect names when known; O_TRUNC only then. */
static int open_file(struct gf_ctx *c, struct glfs_object *parent, const char *name, unsigned flags,
                     const struct pfs_fid *expect, struct stat *st, glfs_fd_t **fd)
{
    struct glfs_object *obj = glfs_h_lookupat(c->fs, parent, name, st, 0);
    if (!obj)
        return -errno;
    int rc = 0;
    if (!S_ISREG(st->st_mode))
        rc = PFS_ERR_NOTREG;
    else if (pfs_fid_known(expect) && expect->ino != (uint64_t)st->st_ino)
        rc = PFS_ERR_REPLACED;
    else if (!(*fd = glfs_h_open(c->fs, obj, acc_flags(flags))))
        rc = -errno;
    else if ((flags & PFS_OPEN_TRUNC) && glfs_ftruncate(*fd, 0, NULL, NULL) != 0) {
        rc = -errno;
        glfs_close(*fd);
    }
    glfs_h_close(obj);
    return rc;
}

static int gf_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    struct gf_ctx *c = ctx;
    uint64_t dev = 0;
    int rc = 0;
    struct glfs_object *parent = dir_handle(c, dirfd, &dev, &rc);
    if (!parent)
        return rc;
    struct gf_fh *h = calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    const char *name = pfs_at_name(dirfd, path);
    struct stat st;
    rc = (flags & PFS_OPEN_CREATE) ? create_file(c, parent, name, flags, &st, &h->fd)
                                   : open_file(c, parent, name, flags, expect, &st, &h->fd);
    if (rc < 0) {
        free(h);
        return rc;
    }
    if (got)
        *got = (struct pfs_fid){dev, (uint64_t)st.st_ino};
    *fh = h;
    return 0;
}

/* One glfs_pwrite or glfs_pread of fd (a glfs_fd_t). */
static ssize_t gf_once(void *fd, char *buf, size_t len, uint64_t off, int wr)
{
    return wr ? glfs_pwrite(fd, buf, len, (off_t)off, 0, NULL, NULL) : glfs_pread(fd, buf, len, (off_t)off, 0, NULL);
}

static int64_t gf_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    const struct gf_fh *h = fh;
    return pfs_backend_whole(gf_once, h->fd, (char *)buf, len, off, 1); /* wr 1: buf is only read */
}

static int64_t gf_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    const struct gf_fh *h = fh;
    return pfs_backend_whole(gf_once, h->fd, buf, len, off, 0);
}

static int gf_fsync(void *fh)
{
    const struct gf_fh *h = fh;
    return glfs_fsync(h->fd, NULL, NULL) == 0 ? 0 : -errno;
}

static int gf_close(void *fh)
{
    struct gf_fh *h = fh;
    int rc = glfs_close(h->fd) == 0 ? 0 : -errno;
    free(h);
    return rc;
}

/* ---- the metadata phases: small files and a --depth tree's directories,
 * each call on name in the run's directory dirfd, through its handle ---- */

static int md_failed(struct pfs_md_res *r, const char *step, uint64_t off, int rc)
{
    r->step = step;
    r->offset = off;
    return rc;
}

/* The handle of dirfd, or NULL with r's step set and *rc the error. */
static struct glfs_object *md_parent(void *ctx, int dirfd, const char *step, struct pfs_md_res *r, int *rc)
{
    uint64_t dev;
    struct glfs_object *p = dir_handle(ctx, dirfd, &dev, rc);
    if (!p)
        md_failed(r, step, PFS_NO_OFFSET, *rc);
    return p;
}

static int gf_md_create(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                        struct pfs_md_res *r)
{
    struct gf_ctx *c = ctx;
    int rc = 0;
    struct glfs_object *parent = md_parent(c, dirfd, "create", r, &rc);
    if (!parent)
        return rc;
    struct stat st;
    glfs_fd_t *fd = NULL;
    struct glfs_object *obj =
        glfs_h_creat_open(c->fs, parent, name, O_WRONLY | O_CREAT | O_EXCL, 0644, &st, &fd);
    if (!obj)
        return md_failed(r, "create", PFS_NO_OFFSET, -errno);
    glfs_h_close(obj);
    r->made = 1;
    rc = size ? pfs_backend_small(gf_once, fd, buf, bufsize, size, 1, &r->bytes) : 0;
    if (rc < 0) {
        glfs_close(fd); /* the write's failure is the cause; the close's would be its consequence */
        return md_failed(r, "write", r->bytes, rc);
    }
    return glfs_close(fd) == 0 ? 0 : md_failed(r, "close", PFS_NO_OFFSET, -errno);
}

/* lstat's: a link planted under the name is a link, not what it points to. */
static int gf_md_stat(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    struct gf_ctx *c = ctx;
    int rc = 0;
    struct glfs_object *parent = md_parent(c, dirfd, "stat", r, &rc);
    if (!parent)
        return rc;
    struct stat st;
    struct glfs_object *obj = glfs_h_lookupat(c->fs, parent, name, &st, 0);
    if (!obj)
        return md_failed(r, "stat", PFS_NO_OFFSET, -errno);
    glfs_h_close(obj);
    r->size = (uint64_t)st.st_size;
    return 0;
}

/* Opened through its own handle, after the lookup (never through a link)
 * found a regular file. */
static int gf_md_read(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                      struct pfs_md_res *r)
{
    struct gf_ctx *c = ctx;
    int rc = 0;
    struct glfs_object *parent = md_parent(c, dirfd, "open for reading", r, &rc);
    if (!parent)
        return rc;
    struct stat st;
    glfs_fd_t *fd = NULL;
    struct glfs_object *obj = glfs_h_lookupat(c->fs, parent, name, &st, 0);
    if (!obj)
        return md_failed(r, "open for reading", PFS_NO_OFFSET, -errno);
    if (!S_ISREG(st.st_mode))
        rc = PFS_ERR_NOTREG;
    else if (!(fd = glfs_h_open(c->fs, obj, O_RDONLY)))
        rc = -errno;
    glfs_h_close(obj);
    if (rc < 0)
        return md_failed(r, "open for reading", PFS_NO_OFFSET, rc);
    rc = pfs_backend_small(gf_once, fd, buf, bufsize, size, 0, &r->bytes);
    glfs_close(fd);
    return rc < 0 ? md_failed(r, "read", r->bytes, rc) : 0;
}

/* gfapi removes by name in a directory handle (there is no unlink of a
 * file's own handle): the name is looked up first and removed only when it
 * is of the kind asked for (glfs_h_unlink would remove a directory too). */
static int remove_kind(struct gf_ctx *c, struct glfs_object *parent, const char *name, int dir)
{
    struct stat st;
    struct glfs_object *obj = glfs_h_lookupat(c->fs, parent, name, &st, 0);
    if (!obj)
        return -errno;
    glfs_h_close(obj);
    if (dir != !!S_ISDIR(st.st_mode))
        return dir ? -ENOTDIR : -EISDIR;
    return glfs_h_unlink(c->fs, parent, name) == 0 ? 0 : -errno;
}

static int gf_md_unlink(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    int rc = 0;
    struct glfs_object *parent = md_parent(ctx, dirfd, "delete", r, &rc);
    if (!parent)
        return rc;
    rc = remove_kind(ctx, parent, name, 0);
    return rc < 0 ? md_failed(r, "delete", PFS_NO_OFFSET, rc) : 0;
}

static int gf_md_mkdir(void *ctx, int dirfd, const char *name)
{
    struct gf_ctx *c = ctx;
    uint64_t dev;
    int rc = 0;
    struct glfs_object *parent = dir_handle(c, dirfd, &dev, &rc);
    if (!parent)
        return rc;
    struct stat st;
    struct glfs_object *obj = glfs_h_mkdir(c->fs, parent, name, 0755, &st);
    if (!obj)
        return -errno;
    glfs_h_close(obj);
    return 0;
}

static int gf_md_rmdir(void *ctx, int dirfd, const char *name)
{
    uint64_t dev;
    int rc = 0;
    struct glfs_object *parent = dir_handle(ctx, dirfd, &dev, &rc);
    return parent ? remove_kind(ctx, parent, name, 1) : rc;
}

const struct pfs_backend pfs_backend_gfapi = {
    .name = "gfapi",
    .help = PFS_GFAPI_HELP,
    .caps = PFS_CAP_THREADS | PFS_CAP_META,
    .client = "libgfapi",
    .options = &pfs_gfapi_options,
    .init = gf_init,
    .fini = gf_fini,
    .open = gf_open,
    .pwrite = gf_pwrite,
    .pread = gf_pread,
    .fsync = gf_fsync,
    .close = gf_close,
    .md_create = gf_md_create,
    .md_stat = gf_md_stat,
    .md_read = gf_md_read,
    .md_unlink = gf_md_unlink,
    .md_mkdir = gf_md_mkdir,
    .md_rmdir = gf_md_rmdir,
};
