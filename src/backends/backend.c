/* What every backend shares: the check that its flags and pointers agree,
 * the refusals its flags imply, and the direct-I/O alignment. */
#define _GNU_SOURCE
#include "pfs/backend.h"
#include "pfs/config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The bytes a row of each type stores. */
static size_t field_size(const struct pfs_opt *o)
{
    switch (o->type) {
    case PFS_OPT_FLAG:
    case PFS_OPT_INT:
    case PFS_OPT_CHOICE: return sizeof(int);
    case PFS_OPT_SIZE:
    case PFS_OPT_SIZE0: return sizeof(uint64_t);
    case PFS_OPT_DOUBLE: return sizeof(double);
    case PFS_OPT_STRING: return o->cap;
    default: return 0; /* the core's own kinds: not a backend's */
    }
}

int pfs_backend_options_valid(const struct pfs_backend_options *bo, char *err, size_t len)
{
    if (!bo)
        return 0;
    if (bo->size > PFS_BACKEND_OPTS_MAX || (bo->count && !bo->rows)) {
        snprintf(err, len, "its options struct is %zu bytes, more than %d", bo->size, PFS_BACKEND_OPTS_MAX);
        return -1;
    }
    for (size_t i = 0; i < bo->count; i++) {
        const struct pfs_opt *o = &bo->rows[i];
        const char *why = !o->name || !o->name[0] ? "has no name"
                          : !o->help              ? "has no help"
                          : o->shrt               ? "has a letter (a backend's options are long only)"
                          : o->registry || o->blank ? "uses the core's own fields"
                          : !field_size(o)        ? "has a type a backend's option cannot have"
                          : o->off + field_size(o) > bo->size ? "lies past the end of the options struct"
                          : o->type == PFS_OPT_FLAG && !o->choices ? "is a flag without the value it sets"
                          : o->type == PFS_OPT_CHOICE && !o->choices ? "is a choice without choices"
                          : o->key && o->pos < 1 ? "has a describe key without a place"
                                                 : NULL;
        if (why) {
            snprintf(err, len, "option %zu (--%s) %s", i, o->name ? o->name : "?", why);
            return -1;
        }
    }
    return 0;
}

int pfs_backend_valid(const struct pfs_backend *be, char *err, size_t len)
{
    const char *name = be && be->name ? be->name : "(unnamed)";
    const char *missing = NULL;
    if (!be || !be->name || !be->name[0])
        missing = "name";
    else if (!be->open || !be->pwrite || !be->pread || !be->fsync || !be->close)
        missing = "open, pwrite, pread, fsync and close";
    else if ((be->caps & PFS_CAP_ASYNC) && (!be->submit || !be->reap))
        missing = "submit and reap (PFS_CAP_ASYNC)";
    else if ((be->caps & PFS_CAP_META)
             && (!be->md_create || !be->md_stat || !be->md_read || !be->md_unlink || !be->md_mkdir || !be->md_rmdir))
        missing = "md_create, md_stat, md_read, md_unlink, md_mkdir and md_rmdir (PFS_CAP_META)";
    else if (!be->fini != !be->init)
        missing = "init and fini together";
    char why[256];
    if (!missing && pfs_backend_options_valid(be->options, why, sizeof(why)) != 0) {
        snprintf(err, len, "backend %s: %s", name, why);
        return -1;
    }
    if (!missing)
        return 0;
    snprintf(err, len, "backend %s lacks %s", name, missing);
    return -1;
}

/* "--collective needs --api mpiio (not available with --api posix)"; where
 * several backends have cap, the first is named so and the others after:
 * "--iodepth above 1 needs --api uring (not available with --api posix);
 * --api aio has it too". */
static int refuse(char *err, size_t len, const char *what, const struct pfs_backend *be, unsigned cap)
{
    char with[256];
    if (!pfs_backend_with(cap, with, sizeof(with))) {
        snprintf(err, len, "%s is not available with --api %s", what, be->name);
        return -1;
    }
    char *rest = strstr(with, ", ");
    if (rest)
        *rest = '\0', rest += 2;
    int n = snprintf(err, len, "%s needs --api %s (not available with --api %s)", what, with, be->name);
    if (rest && n > 0 && (size_t)n < len) {
        char *last = strrchr(rest, ',');
        if (last) /* "null, uring and aio" */
            snprintf(err + n, len - (size_t)n, "; --api %.*s and%s have it too", (int)(last - rest), rest, last + 1);
        else
            snprintf(err + n, len - (size_t)n, "; --api %s has it too", rest);
    }
    return -1;
}

/* A collective fsync (PFS_CAP_FSYNC_COLL) of the shared file every N
 * transfers is safe only where the ranks agree after every transfer
 * (--collective): independent ranks stop (an error, the stonewall) at
 * different counts and would wait in each other's sync. */
static int check_fsync_every(const struct pfs_backend *be, const struct pfs_config *cfg, char *err, size_t len)
{
    if (!cfg->fsync_every || !cfg->shared || cfg->collective || !(be->caps & PFS_CAP_FSYNC_COLL))
        return 0;
    snprintf(err, len, "--fsync-every on the --shared file with --api %s needs --collective: its fsync is collective "
             "over the ranks, which independent I/O does not keep in step; give --collective, or -F (a file per "
             "process is synced alone)", be->name);
    return -1;
}

int64_t pfs_backend_queue_sync(int (*submit)(void *fh, struct pfs_io *io),
                               int (*reap)(void *fh, struct pfs_io **done, unsigned min, unsigned max), void *fh,
                               void *buf, size_t len, uint64_t off, int write)
{
    struct pfs_io io = {.buf = buf, .len = len, .off = off, .write = write};
    struct pfs_io *done[1];
    int rc = submit(fh, &io);
    if (rc < 0)
        return rc;
    rc = reap(fh, done, 1, 1);
    return rc < 0 ? rc : io.res;
}

int pfs_backend_check(const struct pfs_backend *be, const struct pfs_config *cfg, char *err, size_t len)
{
    /* A rewrite under --rmw reads and writes each transfer in turn: a queue of
     * several in flight cannot serve it (any async backend alike). */
    if ((be->caps & PFS_CAP_ASYNC) && cfg->rmw && cfg->iodepth > 1 &&
        pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_RMW, 0)) {
        snprintf(err, len, "--rmw with --iodepth above 1 is not available with --api %s: each transfer of the "
                 "rewrite is a read and then a write of the same bytes, one at a time; use --iodepth 1 (%s's read "
                 "and write in turn), or --api posix, mmap or stdio", be->name, be->name);
        return -1;
    }
    /* The backend's own words first: they name its alternatives. */
    if (be->check && be->check(cfg, err, len) != 0)
        return -1;
    if (cfg->direct && !(be->caps & PFS_CAP_DIRECT)) {
        snprintf(err, len, "--direct is not available with --api %s", be->name);
        return -1;
    }
    if (cfg->collective && !(be->caps & PFS_CAP_COLLECTIVE))
        return refuse(err, len, "--collective", be, PFS_CAP_COLLECTIVE);
    if (cfg->nhints && !(be->caps & PFS_CAP_HINTS))
        return refuse(err, len, "--hint", be, PFS_CAP_HINTS);
    if (cfg->iodepth > 1 && !(be->caps & PFS_CAP_ASYNC))
        return refuse(err, len, "--iodepth above 1", be, PFS_CAP_ASYNC);
    if (cfg->threads > 1 && !(be->caps & PFS_CAP_THREADS)) {
        snprintf(err, len, "--threads is not available with --api %s; use ranks instead", be->name);
        return -1;
    }
    if (cfg->sync_mode != PFS_SYNC_NONE && !(be->caps & PFS_CAP_OSYNC))
        return refuse(err, len, cfg->sync_mode == PFS_SYNC_SYNC ? "--sync sync" : "--sync dsync", be, PFS_CAP_OSYNC);
    /* A phase that walks the directories itself does so with the POSIX calls:
     * through the mount, where a client library made the files, and not at
     * all where the small files are not files. */
    for (int i = 0; i < cfg->nphases; i++)
        if (pfs_phase_has(cfg->phases[i], PFS_PHF_WALKS) && be->md_stat != pfs_backend_posix.md_stat &&
            (be->caps & PFS_CAP_META)) {
            const char *name = pfs_phase_name(cfg->phases[i]);
            if (be->client)
                snprintf(err, len, "--phases %s with --api %s: %s walks the directories with %s, which would go "
                         "through the mount, not %s; run %s with --api posix", name, be->name, name,
                         pfs_phase_desc(cfg->phases[i])->op, be->client, name);
            else
                snprintf(err, len, "--phases %s walks the directories with %s, and --api %s's small files are not "
                         "files there; use --api posix for %s", name, pfs_phase_desc(cfg->phases[i])->op, be->name,
                         name);
            return -1;
        }
    return check_fsync_every(be, cfg, err, len);
}

int pfs_open_flags(unsigned flags)
{
    int of = (flags & PFS_OPEN_READ) && (flags & PFS_OPEN_WRITE) ? O_RDWR
             : (flags & PFS_OPEN_WRITE)                          ? O_WRONLY
                                                                 : O_RDONLY;
    if (flags & PFS_OPEN_CREATE)
        of |= O_CREAT | O_EXCL;
    if (flags & PFS_OPEN_TRUNC)
        of |= O_TRUNC;
    if (flags & PFS_OPEN_DIRECT)
        of |= O_DIRECT;
    if (flags & PFS_OPEN_SYNC)
        of |= O_SYNC;
    else if (flags & PFS_OPEN_DSYNC)
        of |= O_DSYNC;
    return of;
}

unsigned pfs_dio_alignment(const char *dir)
{
    unsigned align = 4096;
#ifdef STATX_DIOALIGN
    struct statx sx;
    if (statx(AT_FDCWD, dir, 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
        unsigned a = sx.stx_dio_mem_align > sx.stx_dio_offset_align ? sx.stx_dio_mem_align
                                                                     : sx.stx_dio_offset_align;
        if (a)
            align = a;
    }
#else
    (void)dir;
#endif
    return align;
}
