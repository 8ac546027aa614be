/* The null backend (IOR's DUMMY, fio's null engine): open, fsync and close
 * succeed without touching the file system, transfers move nothing and
 * report full success, small files are "made" without a trace. What a run
 * measures with it is pfsbench's own cost per transfer and per file.
 *
 * It keeps the identity contract of open: a file gets a made-up identity
 * derived from its name (the same on every rank, as an inode is), and an
 * open that expects another one is refused like a replaced file. */
#include "pfs/backend.h"
#include "pfs/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct null_ctx {
    uint64_t file_size; /* what md_stat reports: the size md_create "wrote" */
};

/* The handle of every open file: any non-NULL pointer would do. */
static const char null_file;

static int null_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    (void)env, (void)err, (void)len;
    struct null_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->file_size = cfg ? cfg->file_size : 0;
    *ctx = c;
    return 0;
}

static void null_fini(void *ctx)
{
    free(ctx);
}

/* FNV-1a of the name, never 0: an identity "known" to pfs_fid_known. */
static struct pfs_fid null_fid(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return (struct pfs_fid){0x6e756c6cULL /* "null" */, h | 1};
}

static int null_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                     struct pfs_fid *got, void **fh)
{
    (void)ctx, (void)dirfd, (void)flags;
    struct pfs_fid id = null_fid(path);
    if (pfs_fid_known(expect) && !pfs_fid_same(&id, expect))
        return PFS_ERR_REPLACED;
    if (got)
        *got = id;
    *fh = (void *)&null_file;
    return 0;
}

static int64_t null_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    (void)fh, (void)buf, (void)off;
    return (int64_t)len;
}

static int64_t null_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    (void)fh, (void)buf, (void)off;
    return (int64_t)len;
}

static int null_ok(void *fh)
{
    (void)fh;
    return 0;
}

static int null_md_create(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                          struct pfs_md_res *r)
{
    (void)ctx, (void)dirfd, (void)name, (void)buf, (void)bufsize;
    r->made = 1;
    r->bytes = size;
    return 0;
}

static int null_md_stat(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    (void)dirfd, (void)name;
    r->size = ctx ? ((const struct null_ctx *)ctx)->file_size : 0;
    return 0;
}

static int null_md_read(void *ctx, int dirfd, const char *name, void *buf, size_t bufsize, uint64_t size,
                        struct pfs_md_res *r)
{
    (void)ctx, (void)dirfd, (void)name, (void)buf, (void)bufsize;
    r->bytes = size;
    return 0;
}

static int null_md_unlink(void *ctx, int dirfd, const char *name, struct pfs_md_res *r)
{
    (void)ctx, (void)dirfd, (void)name, (void)r;
    return 0;
}

static int null_md_dir(void *ctx, int dirfd, const char *name)
{
    (void)ctx, (void)dirfd, (void)name;
    return 0;
}

/* --verify checks what a read brings back; a null read brings back nothing. */
static int null_check(const struct pfs_config *cfg, char *err, size_t len)
{
    for (int i = 0; cfg->verify && i < cfg->nphases; i++)
        if (!pfs_phase_is_meta(cfg->phases[i]) && pfs_phase_has(cfg->phases[i], PFS_PHF_READS)) { /* ckpt-restore too */
            snprintf(err, len, "--verify with --api null: its reads bring back no data to check (it moves "
                     "nothing); drop --verify, or use a real --api");
            return -1;
        }
    return 0;
}

const struct pfs_backend pfs_backend_null = {
    .name = "null",
    .help = "no I/O at all: transfers and small files succeed at once (measures pfsbench's own cost)",
    .caps = PFS_CAP_DIRECT | PFS_CAP_THREADS | PFS_CAP_META | PFS_CAP_OSYNC | PFS_CAP_NOFILES,
    .init = null_init,
    .fini = null_fini,
    .check = null_check,
    .open = null_open,
    .pwrite = null_pwrite,
    .pread = null_pread,
    .fsync = null_ok,
    .close = null_ok,
    .md_create = null_md_create,
    .md_stat = null_md_stat,
    .md_read = null_md_read,
    .md_unlink = null_md_unlink,
    .md_mkdir = null_md_dir,
    .md_rmdir = null_md_dir,
};
