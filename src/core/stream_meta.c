/* The metadata phases of one stream (create, stat, read-files, find,
 * delete) and their clean-up, through the backend's small-file calls or the
 * POSIX ones (find: always POSIX readdir and lstat, refused with a backend
 * whose small files are not POSIX files). */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/names.h"
#include "pfs/safefile.h"
#include "stream_mark.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pfs_md_path(char *out, size_t len, const char *dir, int stream, uint64_t i)
{
    snprintf(out, len, "%s/f.%d.%" PRIu64, dir, stream, i);
}

/* A metadata call's failure, in the backend's words when it has them. */
static void md_fail(struct pfs_stream *s, const struct pfs_md_res *r, const char *path, int rc)
{
    char why[200];
    if (pfs_safefile_why(rc, path, why, sizeof(why)))
        pfs_stream_fail(s, r->step, path, r->offset, 0, 0, "%s", why);
    else
        pfs_stream_fail(s, r->step, path, r->offset, -rc, 0, NULL);
}

/* One small file of a metadata phase, through md (the backend's calls or
 * the POSIX ones). */
static void md_one(const struct pfs_phase_ctx *p, const struct pfs_backend *md, void *mdctx, struct pfs_stream *s,
                   const char *path, uint64_t i, uint64_t seed)
{
    const struct pfs_config *cfg = p->cfg;
    const uint64_t fsize = cfg->file_size;
    struct pfs_md_res r = {.offset = PFS_NO_OFFSET};
    int rc;
    switch (p->kind) {
    case PFS_PH_CREATE:
        rc = md->md_create(mdctx, path, s->buf, (size_t)cfg->transfer, fsize, &r);
        if (r.made) {
            s->md_created++;
            if (i + 1 > s->md_reach)
                s->md_reach = i + 1;
            s->md_seed = seed;
        }
        s->t.bytes += r.bytes;
        if (rc < 0)
            md_fail(s, &r, path, rc);
        break;
    case PFS_PH_STAT:
        rc = md->md_stat(mdctx, path, &r);
        if (rc < 0)
            md_fail(s, &r, path, rc);
        else if (r.size != fsize)
            pfs_stream_fail(s, "stat", path, PFS_NO_OFFSET, 0, 0, "size %lld bytes, expected %" PRIu64, (long long)r.size,
                            fsize);
        break;
    case PFS_PH_READFILES:
        rc = md->md_read(mdctx, path, s->buf, (size_t)cfg->transfer, fsize, &r);
        if (rc < 0)
            md_fail(s, &r, path, rc);
        else if (r.bytes < fsize)
            pfs_stream_fail(s, "read", path, r.bytes, 0, 0, "short read: %" PRIu64 " of %" PRIu64 " bytes", r.bytes, fsize);
        s->t.bytes += r.bytes;
        break;
    case PFS_PH_DELETE:
        rc = md->md_unlink(mdctx, path, &r);
        if (rc < 0)
            md_fail(s, &r, path, rc);
        else if (s->md_created)
            s->md_created--;
        break;
    }
}

/* find: IO500's criteria (pfind -name *01* -size -newer): the name holds
 * "01", a regular file of --file-size bytes, modified at or after the run's
 * start (at: a coarse file-system clock may stamp a file made in the same
 * tick with the start's own time). */
static int find_matches(const struct pfs_phase_ctx *p, const char *name, const struct stat *st)
{
    const struct timespec *t0 = &p->md_start;
    const struct timespec *m = &st->st_mtim;
    return strstr(name, "01") && S_ISREG(st->st_mode) && (uint64_t)st->st_size == p->cfg->file_size &&
           (m->tv_sec > t0->tv_sec || (m->tv_sec == t0->tv_sec && m->tv_nsec >= t0->tv_nsec));
}

/* find on one stream: readdir of its directory, never through a link; an
 * lstat (fstatat, AT_SYMLINK_NOFOLLOW) of every entry that is one of its
 * own files f.<id>.<i>; the others' (the shared directory) are theirs to
 * examine. Every file it made must be seen, once. */
static void find_walk(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct pfs_times *t = &s->t;
    const char *dir = s->md_dir;
    s->md_matched = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        pfs_stream_fail(s, "opendir", dir, PFS_NO_OFFSET, errno, 0, NULL);
        if (fd >= 0)
            close(fd);
        return;
    }
    mark(s, "readdir and lstat");
    uint64_t last = pfs_now_ns();
    for (;;) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)",
                            (int)*p->interrupted, strsignal(*p->interrupted));
            break;
        }
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                pfs_stream_fail(s, "readdir", dir, PFS_NO_OFFSET, errno, 0, NULL);
            break;
        }
        struct pfs_name nm;
        if (pfs_name_parse(e->d_name, &nm) != PFS_NAME_MD_FILE || nm.stream != s->id)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            char path[sizeof(s->md_dir) + sizeof(e->d_name) + 1];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            pfs_stream_fail(s, "lstat", path, PFS_NO_OFFSET, errno, 0, NULL);
            break;
        }
        s->md_matched += (uint64_t)find_matches(p, e->d_name, &st);
        const uint64_t now = pfs_now_ns();
        if (s->lat) {
            pfs_hist_add(&s->lat->h[PFS_LAT_OP], now - last);
            pfs_ts_add(&s->lat->ts, 1e-9 * (double)(now - p->t0_ns), 0, now - last);
        }
        last = now;
        __atomic_store_n(&t->xfers, t->xfers + 1, __ATOMIC_RELAXED);
        if (p->progress && (t->xfers & 15) == 0) {
            p->progress(p->arg, s);
            last = pfs_now_ns();
        }
    }
    closedir(d);
    if (!s->fail.failed && t->xfers != s->md_created)
        pfs_stream_fail(s, "find", dir, PFS_NO_OFFSET, 0, 0, "found %" PRIu64 " of the %" PRIu64 " files stream %d made",
                        t->xfers, s->md_created, s->id);
}

void pfs_stream_meta(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    const int kind = p->kind;
    const int other = kind == PFS_PH_STAT || kind == PFS_PH_READFILES; /* -C applies */
    const char *dir = other ? s->md_rd_dir : s->md_dir;
    const int owner = other ? s->rd_writer : s->id;
    const uint64_t nfiles = (uint64_t)cfg->files;
    const uint64_t seed = p->seed ^ pfs_mix64((uint64_t)owner + 0x6d64);
    void *mdctx = p->bectx;
    const struct pfs_backend *md = pfs_backend_md(p->be, &mdctx);
    struct pfs_times *t = &s->t;
    char path[PFS_PATH_MAX + 256];
    static const char *md_ops[PFS_PH_KINDS] = {[PFS_PH_CREATE] = "create", [PFS_PH_STAT] = "stat",
                                               [PFS_PH_READFILES] = "open, read and close",
                                               [PFS_PH_DELETE] = "delete"};

    memset(t, 0, sizeof(*t));
    pfs_stream_lat_begin(s);
    struct pfs_cpu cpu0;
    pfs_thread_cpu(&cpu0);
    t->open_start = t->open_end = pfs_now();
    uint64_t last = pfs_now_ns();
    for (uint64_t i = 0; kind != PFS_PH_FIND && i < nfiles; i++) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)", (int)*p->interrupted,
                            strsignal(*p->interrupted));
            break;
        }
        uint64_t k = cfg->md_random ? pfs_permute(i, nfiles, seed) : i;
        pfs_md_path(path, sizeof(path), dir, owner, k);
        if (i == 0)
            mark(s, md_ops[kind]);
        const uint64_t b0 = t->bytes;
        md_one(p, md, mdctx, s, path, i, seed);
        const uint64_t now = pfs_now_ns();
        if (s->fail.failed)
            break;
        if (s->lat) { /* one clock read per file: the end of one is the start of the next */
            pfs_hist_add(&s->lat->h[PFS_LAT_OP], now - last);
            pfs_ts_add(&s->lat->ts, 1e-9 * (double)(now - p->t0_ns), t->bytes - b0, now - last);
        }
        last = now;
        __atomic_store_n(&t->xfers, t->xfers + 1, __ATOMIC_RELAXED);
        if (p->progress && (i & 15) == 15) {
            p->progress(p->arg, s);
            last = pfs_now_ns();
        }
    }
    if (kind == PFS_PH_FIND)
        find_walk(p, s);
    t->xfer_end = t->close_end = pfs_now();
    pfs_thread_cpu_since(&cpu0, t);
    mark(s, NULL);
}

int pfs_stream_meta_clear(const struct pfs_config *cfg, struct pfs_stream *s)
{
    return pfs_stream_meta_clear_with(&pfs_backend_posix, NULL, cfg, s);
}

int pfs_stream_meta_clear_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                               struct pfs_stream *s)
{
    char path[PFS_PATH_MAX + 256];
    int first = 0;
    if (!s->md_created)
        return 0;
    const struct pfs_backend *md = pfs_backend_md(be, &bectx);
    /* The directory is this run's own (made with mkdir, never reused), so
     * every f.<stream>.<i> in it is a file this stream made. Only the names
     * a create reached are looked at: a run of -n 100000000 that failed at
     * file 29 cleans up 29 names, not a hundred million. */
    const uint64_t nfiles = (uint64_t)cfg->files;
    mark(s, "remove the small files");
    for (uint64_t i = 0; i < s->md_reach; i++) {
        uint64_t k = cfg->md_random ? pfs_permute(i, nfiles, s->md_seed) : i;
        pfs_md_path(path, sizeof(path), s->md_dir, s->id, k);
        struct pfs_md_res r = {.offset = PFS_NO_OFFSET};
        int rc = md->md_unlink(bectx, path, &r);
        if (rc < 0 && rc != -ENOENT && !first)
            first = rc;
        __atomic_store_n(&s->work, s->work + 1, __ATOMIC_RELAXED);
    }
    mark(s, NULL);
    if (!first) {
        s->md_created = 0;
        s->md_reach = 0;
    }
    return first;
}
