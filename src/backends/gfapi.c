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

/* A directory of the run, looked up through gfapi: its FUSE identity and handle. */
struct gf_dir {
    uint64_t dev, ino;
    struct glfs_object *obj;
};

#define GF_DIRS 64

struct gf_ctx {
    glfs_t *fs;
    struct pfs_gfapi_target t;
    pthread_mutex_t lock; /* the directories, for several threads */
    struct gf_dir dirs[GF_DIRS];
    unsigned ndirs, next;
};

struct gf_fh {
    glfs_fd_t *fd;
};

/* What the options ask, alone; where -d is (a GlusterFS FUSE mount) is
 * init's to find, on the machine the run is on. */
static int gf_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (pfs_phase_listed(cfg, PFS_PHASE_META, 0, 0)) {
        snprintf(err, len, "--api gfapi runs the data phases (write, rewrite, read, reread, seeks); its metadata "
                 "phases are not written yet: use --api posix on the FUSE mount for those");
        return -1;
    }
    return 0;
}

static void gf_fini(void *ctx)
{
    struct gf_ctx *c = ctx;
    if (!c)
        return;
    for (unsigned k = 0; k < c->ndirs; k++)
        glfs_h_close(c->dirs[k].obj);
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

/* The run's directory dirfd (held open through the FUSE mount) as a gfapi
 * handle: looked up once by its path inside the volume, and only when it
 * is the same inode. A handle the context keeps (not to be closed), or
 * NULL with *rc a negative errno or PFS_ERR_REPLACED; *dev is the mount's. */
static struct glfs_object *dir_handle(struct gf_ctx *c, int dirfd, uint64_t *dev, int *rc)
{
    struct stat ds, gs;
    if (fstat(dirfd, &ds) != 0) {
        *rc = -errno;
        return NULL;
    }
    *dev = (uint64_t)ds.st_dev;
    struct glfs_object *obj = NULL;
    pthread_mutex_lock(&c->lock);
    for (unsigned k = 0; k < c->ndirs && !obj; k++)
        if (c->dirs[k].dev == (uint64_t)ds.st_dev && c->dirs[k].ino == (uint64_t)ds.st_ino)
            obj = c->dirs[k].obj;
    pthread_mutex_unlock(&c->lock);
    if (obj)
        return obj;
    char where[1024], vpath[2048];
    if (pfs_dir_where(dirfd, where, sizeof(where)) != 0 || pfs_gfapi_vpath(&c->t, where, vpath, sizeof(vpath)) != 0) {
        *rc = PFS_ERR_REPLACED; /* moved off the mount */
        return NULL;
    }
    obj = glfs_h_lookupat(c->fs, NULL, vpath, &gs, 0);
    if (!obj) {
        *rc = -errno;
        return NULL;
    }
    if (!S_ISDIR(gs.st_mode) || gs.st_ino != ds.st_ino) {
        glfs_h_close(obj);
        *rc = PFS_ERR_REPLACED;
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    unsigned k = c->ndirs < GF_DIRS ? c->ndirs++ : c->next++ % GF_DIRS;
    if (c->dirs[k].obj)
        glfs_h_close(c->dirs[k].obj); /* the oldest: a directory of an earlier phase */
    c->dirs[k] = (struct gf_dir){(uint64_t)ds.st_dev, (uint64_t)ds.st_ino, obj};
    pthread_mutex_unlock(&c->lock);
    return obj;
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

static int64_t gf_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    const struct gf_fh *h = fh;
    size_t done = 0;
    while (done < len) {
        ssize_t n = glfs_pwrite(h->fd, (const char *)buf + done, len - done, (off_t)(off + done), 0, NULL, NULL);
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

static int64_t gf_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    const struct gf_fh *h = fh;
    size_t done = 0;
    while (done < len) {
        ssize_t n = glfs_pread(h->fd, (char *)buf + done, len - done, (off_t)(off + done), 0, NULL);
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

const struct pfs_backend pfs_backend_gfapi = {
    .name = "gfapi",
    .help = "GlusterFS through libgfapi (glfs_pwrite/glfs_pread, no FUSE), on the volume -d is a FUSE mount of",
    .caps = PFS_CAP_THREADS,
    .options = &pfs_gfapi_options,
    .check = gf_check,
    .init = gf_init,
    .fini = gf_fini,
    .open = gf_open,
    .pwrite = gf_pwrite,
    .pread = gf_pread,
    .fsync = gf_fsync,
    .close = gf_close,
};
