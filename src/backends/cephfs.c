/* The CephFS backend (--api cephfs): the data moves through libcephfs, the
 * file system's own client library in this process (IOR's CEPHFS backend),
 * with no FUSE and no kernel client in between. The run's directories are
 * made, held and cleaned up through the CephFS mount -d is on (ceph-fuse or
 * the kernel's), as for every backend; this file opens the run's files
 * inside those very directories.
 *
 * Safety: libcephfs has no *at calls on a descriptor, but it has inodes
 * (ceph_ll_*): a directory the run holds open through the mount is found
 * in libcephfs by its inode number (ceph_ll_lookup_vino: CephFS numbers an
 * inode alike in every client, and a mount shows those numbers, but for
 * ceph-fuse's root, which FUSE numbers 1: -d must be a directory inside the
 * mount), never by a path rebuilt from -d, and only on the same cluster
 * (the mount's ceph.cluster_fsid against the client's). Every file is then
 * created (ceph_ll_create, O_CREAT|O_EXCL: a name that is there is refused)
 * or looked up without following a link (ceph_ll_lookup) relative to that
 * inode, checked (a regular file, the inode this run made) and opened
 * through its own inode (ceph_ll_open; O_TRUNC only then), never by a
 * path. The identity handed back is the mount's device with the file's
 * inode, so that the clean-up through the mount (pfs_unlink_own_at)
 * removes only what this run made. */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64 /* libcephfs.h insists (its readdir), though pfsbench uses none */
#include "pfs/config.h"
#include "pfs/fsinfo.h"
#include "pfs/phase.h"

#include "cephfs.h"

#include <cephfs/libcephfs.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* Ceph's snapshot id of the live file system (include/rados.h's
 * CEPH_NOSNAP, which libcephfs's headers do not carry). */
#define CF_NOSNAP ((uint64_t)-2)
#define CF_WANT (CEPH_STATX_INO | CEPH_STATX_MODE | CEPH_STATX_SIZE)

struct cf_ctx {
    struct ceph_mount_info *cm;
    UserPerm *perms;        /* the mount's default: the client's own */
    uint64_t dev;           /* the mount -d is on: every directory of the run is on it */
    int fuse;               /* ceph-fuse: its root is numbered 1, not by CephFS */
};

struct cf_fh {
    struct ceph_mount_info *cm;
    Inode *in;
    Fh *fh;
};

static void cf_fini(void *ctx)
{
    struct cf_ctx *c = ctx;
    if (!c)
        return;
    if (c->cm) {
        ceph_unmount(c->cm);
        ceph_release(c->cm);
    }
    free(c);
}

/* -d's mount: a CephFS one (else the run's files would not be where its
 * directories are), not its ceph-fuse root, on the cluster the client
 * mounted. 0, or -1 with err's sentence. */
static int check_target(struct cf_ctx *c, const char *dir, char *err, size_t len)
{
    struct pfs_fsinfo fi;
    struct stat ds;
    if (stat(dir, &ds) != 0) {
        snprintf(err, len, "--api cephfs: -d %s: %s", dir, strerror(errno));
        return -1;
    }
    if (pfs_fs_mountinfo("/proc/self/mountinfo", dir, &fi) != 0 ||
        (strcmp(fi.mount_type, "fuse.ceph-fuse") != 0 && strcmp(fi.mount_type, "ceph") != 0)) {
        snprintf(err, len, "--api cephfs: -d %s is not on a CephFS mount (it is on %s, type %s): the run's "
                 "directories are made through a ceph-fuse or kernel mount of the file system", dir,
                 fi.mount_point[0] ? fi.mount_point : "?", fi.mount_type[0] ? fi.mount_type : "unknown");
        return -1;
    }
    c->dev = (uint64_t)ds.st_dev;
    c->fuse = strcmp(fi.mount_type, "fuse.ceph-fuse") == 0;
    if (c->fuse && ds.st_ino == 1) {
        snprintf(err, len, "--api cephfs: -d %s is the root of its ceph-fuse mount, which FUSE numbers 1, not by "
                 "CephFS's inode: name a directory inside it", dir);
        return -1;
    }
    char mine[64] = "", theirs[64] = "";
    int n = ceph_getxattr(c->cm, "/", "ceph.cluster_fsid", mine, sizeof(mine) - 1);
    ssize_t m = getxattr(dir, "ceph.cluster_fsid", theirs, sizeof(theirs) - 1);
    if (n <= 0 || m <= 0 || (size_t)n != (size_t)m || memcmp(mine, theirs, (size_t)n) != 0) {
        snprintf(err, len, "--api cephfs: -d %s is on a CephFS mount of another cluster (fsid %s) than the "
                 "client's (%s)", dir, m > 0 ? theirs : "unknown", n > 0 ? mine : "unknown");
        return -1;
    }
    return 0;
}

/* Local: connects this rank to the cluster and mounts the file system
 * (--cephfs-root), before anything is made. */
static int cf_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env;
    const struct pfs_cephfs_opts *o = pfs_config_backend_opts(cfg);
    struct cf_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "--api cephfs: no memory for the backend's context");
        return -1;
    }
    const char *step = "ceph_create";
    int rc = ceph_create(&c->cm, o->id[0] ? o->id : NULL);
    if (rc == 0) {
        step = "ceph_conf_read_file";
        rc = ceph_conf_read_file(c->cm, o->conf[0] ? o->conf : NULL);
    }
    if (rc == 0) {
        step = "ceph_mount";
        rc = ceph_mount(c->cm, o->root[0] ? o->root : "/");
    }
    if (rc == 0) {
        c->perms = ceph_mount_perms(c->cm);
        if (check_target(c, cfg->dir, err, len) == 0) {
            *ctx = c;
            return 0;
        }
    } else {
        const char *cc = getenv("CEPH_CONF");
        snprintf(err, len, "--api cephfs: root %s, client %s, conf %s: %s: %s", o->root[0] ? o->root : "/",
                 o->id[0] ? o->id : "admin", o->conf[0] ? o->conf : cc ? cc : "libcephfs's default", step,
                 strerror(-rc));
    }
    cf_fini(c); /* ceph_unmount of a handle never mounted only says so */
    *ctx = NULL;
    return -1;
}

/* The run's directory dirfd (held open through the mount) as a libcephfs
 * inode, found by its number (to be put by the caller); *dev the mount's.
 * A negative errno, or PFS_ERR_REPLACED when dirfd is not a directory of
 * -d's mount that libcephfs knows as a directory. */
static int dir_inode(struct cf_ctx *c, int dirfd, uint64_t *dev, Inode **in)
{
    struct stat ds;
    if (fstat(dirfd, &ds) != 0)
        return -errno;
    *dev = (uint64_t)ds.st_dev;
    if (!S_ISDIR(ds.st_mode) || (uint64_t)ds.st_dev != c->dev || (c->fuse && ds.st_ino == 1))
        return PFS_ERR_REPLACED;
    vinodeno_t v = {{(uint64_t)ds.st_ino}, {CF_NOSNAP}};
    int rc = ceph_ll_lookup_vino(c->cm, v, in);
    if (rc < 0)
        return rc;
    struct ceph_statx sx;
    rc = ceph_ll_getattr(c->cm, *in, &sx, CEPH_STATX_MODE, 0, c->perms);
    if (rc == 0 && !S_ISDIR(sx.stx_mode))
        rc = PFS_ERR_REPLACED;
    if (rc != 0)
        ceph_ll_put(c->cm, *in);
    return rc;
}

static int acc_flags(unsigned flags)
{
    return (flags & PFS_OPEN_READ) && (flags & PFS_OPEN_WRITE) ? O_RDWR
           : (flags & PFS_OPEN_WRITE)                          ? O_WRONLY
                                                               : O_RDONLY;
}

/* Opens name in parent through its own inode: a regular file, never
 * through a link, and the inode expect names when known; O_TRUNC only then. */
static int open_file(struct cf_ctx *c, Inode *parent, const char *name, unsigned flags,
                     const struct pfs_fid *expect, struct ceph_statx *sx, struct cf_fh *h)
{
    int rc = ceph_ll_lookup(c->cm, parent, name, &h->in, sx, CF_WANT, AT_SYMLINK_NOFOLLOW, c->perms);
    if (rc < 0)
        return rc;
    if (!S_ISREG(sx->stx_mode))
        rc = PFS_ERR_NOTREG;
    else if (pfs_fid_known(expect) && expect->ino != sx->stx_ino)
        rc = PFS_ERR_REPLACED;
    else
        rc = ceph_ll_open(c->cm, h->in, acc_flags(flags) | ((flags & PFS_OPEN_TRUNC) ? O_TRUNC : 0), &h->fh,
                          c->perms);
    if (rc < 0)
        ceph_ll_put(c->cm, h->in);
    return rc;
}

static int cf_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    struct cf_ctx *c = ctx;
    uint64_t dev = 0;
    Inode *parent = NULL;
    int rc = dir_inode(c, dirfd, &dev, &parent);
    if (rc < 0)
        return rc;
    struct cf_fh *h = calloc(1, sizeof(*h));
    if (!h) {
        ceph_ll_put(c->cm, parent);
        return -ENOMEM;
    }
    h->cm = c->cm;
    const char *name = pfs_at_name(dirfd, path);
    struct ceph_statx sx;
    if (flags & PFS_OPEN_CREATE)
        rc = ceph_ll_create(c->cm, parent, name, 0644, O_CREAT | O_EXCL | acc_flags(flags), &h->in, &h->fh, &sx,
                            CF_WANT, 0, c->perms);
    else
        rc = open_file(c, parent, name, flags, expect, &sx, h);
    ceph_ll_put(c->cm, parent);
    if (rc < 0) {
        free(h);
        return rc;
    }
    if (got)
        *got = (struct pfs_fid){dev, sx.stx_ino};
    *fh = h;
    return 0;
}

/* One ceph_ll_write or ceph_ll_read of h (a struct cf_fh). */
static ssize_t cf_once(void *fh, char *buf, size_t len, uint64_t off, int wr)
{
    const struct cf_fh *h = fh;
    int n = wr ? ceph_ll_write(h->cm, h->fh, (int64_t)off, len, buf) : ceph_ll_read(h->cm, h->fh, (int64_t)off, len, buf);
    if (n < 0) {
        errno = -n;
        return -1;
    }
    return n;
}

/* libcephfs moves an int's worth of bytes a call at most. */
#define CF_MAX_CALL ((size_t)1 << 30)

static int64_t cf_rw(void *fh, char *buf, size_t len, uint64_t off, int wr)
{
    size_t done = 0;
    while (done < len) {
        size_t n = len - done < CF_MAX_CALL ? len - done : CF_MAX_CALL;
        int64_t got = pfs_backend_whole(cf_once, fh, buf + done, n, off + done, wr);
        if (got < 0)
            return got;
        done += (size_t)got;
        if ((size_t)got < n)
            break;
    }
    return (int64_t)done;
}

static int64_t cf_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return cf_rw(fh, (char *)buf, len, off, 1); /* wr 1: buf is only read */
}

static int64_t cf_pread(void *fh, void *buf, size_t len, uint64_t off) { return cf_rw(fh, buf, len, off, 0); }

static int cf_fsync(void *fh)
{
    const struct cf_fh *h = fh;
    return ceph_ll_fsync(h->cm, h->fh, 0);
}

static int cf_close(void *fh)
{
    struct cf_fh *h = fh;
    int rc = ceph_ll_close(h->cm, h->fh);
    ceph_ll_put(h->cm, h->in);
    free(h);
    return rc;
}

/* ---- the metadata phases: small files and a --depth tree's directories,
 * each call on name in the run's directory dirfd, through its inode ---- */

static int md_failed(struct pfs_md_res *r, const char *step, uint64_t off, int rc)
{
    r->step = step;
    r->offset = off;
    return rc;
}

static int cf_md_create(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                        struct pfs_md_res *r)
{
    struct cf_ctx *c = ctx;
    uint64_t dev;
    Inode *parent = NULL, *in = NULL;
    int rc = dir_inode(c, dirfd, &dev, &parent);
    if (rc < 0)
        return md_failed(r, "create", PFS_NO_OFFSET, rc);
    struct ceph_statx sx;
    struct cf_fh h = {c->cm, NULL, NULL};
    rc = ceph_ll_create(c->cm, parent, name, 0644, O_WRONLY | O_CREAT | O_EXCL, &in, &h.fh, &sx, CF_WANT, 0,
                        c->perms);
    ceph_ll_put(c->cm, parent);
    if (rc < 0)
        return md_failed(r, "create", PFS_NO_OFFSET, rc);
    h.in = in;
    r->made = 1;
    rc = size ? pfs_backend_small(cf_once, &h, buf, bufsize, size, 1, &r->bytes) : 0;
    int crc = ceph_ll_close(c->cm, h.fh);
    ceph_ll_put(c->cm, in);
    if (rc < 0) /* the write's failure is the cause; the close's would be its consequence */
        return md_failed(r, "write", r->bytes, rc);
    return crc < 0 ? md_failed(r, "close", PFS_NO_OFFSET, crc) : 0;
}

/* The inode of name in dirfd, not through a link (lstat's view), or a
 * negative errno with r's step set. */
static int md_lookup(struct cf_ctx *c, int dirfd, const char *name, const char *step, struct ceph_statx *sx,
                     Inode **in, struct pfs_md_res *r)
{
    uint64_t dev;
    Inode *parent = NULL;
    int rc = dir_inode(c, dirfd, &dev, &parent);
    if (rc < 0)
        return md_failed(r, step, PFS_NO_OFFSET, rc);
    rc = ceph_ll_lookup(c->cm, parent, name, in, sx, CF_WANT, AT_SYMLINK_NOFOLLOW, c->perms);
    ceph_ll_put(c->cm, parent);
    return rc < 0 ? md_failed(r, step, PFS_NO_OFFSET, rc) : 0;
}

static int cf_md_stat(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    struct cf_ctx *c = ctx;
    struct ceph_statx sx;
    Inode *in = NULL;
    int rc = md_lookup(c, dirfd, name, "stat", &sx, &in, r);
    if (rc < 0)
        return rc;
    ceph_ll_put(c->cm, in);
    r->size = sx.stx_size;
    return 0;
}

/* Opened through its own inode, after the lookup (never through a link)
 * found a regular file. */
static int cf_md_read(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                      struct pfs_md_res *r)
{
    struct cf_ctx *c = ctx;
    struct ceph_statx sx;
    struct cf_fh h = {c->cm, NULL, NULL};
    int rc = md_lookup(c, dirfd, name, "open for reading", &sx, &h.in, r);
    if (rc < 0)
        return rc;
    rc = S_ISREG(sx.stx_mode) ? ceph_ll_open(c->cm, h.in, O_RDONLY, &h.fh, c->perms) : PFS_ERR_NOTREG;
    if (rc < 0) {
        ceph_ll_put(c->cm, h.in);
        return md_failed(r, "open for reading", PFS_NO_OFFSET, rc);
    }
    rc = pfs_backend_small(cf_once, &h, buf, bufsize, size, 0, &r->bytes);
    ceph_ll_close(c->cm, h.fh);
    ceph_ll_put(c->cm, h.in);
    return rc < 0 ? md_failed(r, "read", r->bytes, rc) : 0;
}

/* libcephfs removes by name in a directory: the name is looked up first
 * and removed only when it is of the kind asked for. */
static int remove_kind(struct cf_ctx *c, int dirfd, const char *name, int dir)
{
    uint64_t dev;
    Inode *parent = NULL, *in = NULL;
    int rc = dir_inode(c, dirfd, &dev, &parent);
    if (rc < 0)
        return rc;
    struct ceph_statx sx;
    rc = ceph_ll_lookup(c->cm, parent, name, &in, &sx, CEPH_STATX_MODE, AT_SYMLINK_NOFOLLOW, c->perms);
    if (rc == 0) {
        ceph_ll_put(c->cm, in);
        if (dir != !!S_ISDIR(sx.stx_mode))
            rc = dir ? -ENOTDIR : -EISDIR;
        else
            rc = dir ? ceph_ll_rmdir(c->cm, parent, name, c->perms) : ceph_ll_unlink(c->cm, parent, name, c->perms);
    }
    ceph_ll_put(c->cm, parent);
    return rc;
}

static int cf_md_unlink(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    int rc = remove_kind(ctx, dirfd, name, 0);
    return rc < 0 ? md_failed(r, "delete", PFS_NO_OFFSET, rc) : 0;
}

static int cf_md_mkdir(void *ctx, int dirfd, const char *name)
{
    struct cf_ctx *c = ctx;
    uint64_t dev;
    Inode *parent = NULL, *in = NULL;
    int rc = dir_inode(c, dirfd, &dev, &parent);
    if (rc < 0)
        return rc;
    struct ceph_statx sx;
    rc = ceph_ll_mkdir(c->cm, parent, name, 0755, &in, &sx, 0, 0, c->perms);
    ceph_ll_put(c->cm, parent);
    if (rc == 0)
        ceph_ll_put(c->cm, in);
    return rc;
}

static int cf_md_rmdir(void *ctx, int dirfd, const char *name) { return remove_kind(ctx, dirfd, name, 1); }

const struct pfs_backend pfs_backend_cephfs = {
    .name = "cephfs",
    .help = PFS_CEPHFS_HELP,
    .caps = PFS_CAP_THREADS | PFS_CAP_META,
    .client = "libcephfs",
    .options = &pfs_cephfs_options,
    .init = cf_init,
    .fini = cf_fini,
    .open = cf_open,
    .pwrite = cf_pwrite,
    .pread = cf_pread,
    .fsync = cf_fsync,
    .close = cf_close,
    .md_create = cf_md_create,
    .md_stat = cf_md_stat,
    .md_read = cf_md_read,
    .md_unlink = cf_md_unlink,
    .md_mkdir = cf_md_mkdir,
    .md_rmdir = cf_md_rmdir,
};
