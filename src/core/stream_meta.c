/* The metadata phases of one stream (create, stat, read-files, find,
 * delete; mkdir, stat-dirs, rmdir of its --depth tree) and their clean-up,
 * through the backend's small-file calls or the POSIX ones (find: always
 * POSIX readdir and lstat, refused with a backend whose small files are not
 * POSIX files), each on a name in a directory held open (stream_tree.c). */
#define _GNU_SOURCE
#include "pfs/stream.h"
#include "pfs/names.h"
#include "pfs/safefile.h"
#include "stream_mark.h"
#include "stream_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A metadata call's failure, in the backend's words when it has them. */
static void md_fail(struct pfs_stream *s, const char *step, uint64_t off, const char *path, int rc)
{
    char why[200];
    if (pfs_safefile_why(rc, path, why, sizeof(why)))
        pfs_stream_fail(s, step, path, off, 0, 0, "%s", why);
    else
        pfs_stream_fail(s, step, path, off, -rc, 0, NULL);
}

/* What one metadata phase of a stream works with, set once. */
struct md_walk {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    const struct pfs_backend *md;
    void *mdctx;
    const char *dir;  /* its name, for messages */
    int base;         /* its descriptor: every name is resolved from it */
    struct pfs_md_nodes *nodes; /* its tree's directories held open */
    int owner;
    uint64_t seed;
    uint64_t last;    /* the clock at the end of the last item (pfs_now_ns) */
};

/* One item of a metadata phase (file or tree node k, the i-th visited),
 * through md (the backend's calls or the POSIX ones). */
static void md_one(const struct md_walk *w, uint64_t i, uint64_t k)
{
    const struct pfs_phase_ctx *p = w->p;
    const struct pfs_config *cfg = p->cfg;
    struct pfs_stream *s = w->s;
    const uint64_t fsize = cfg->file_size;
    const int dirs = pfs_phase_has(p->kind, PFS_PHF_DIRS);
    struct pfs_md_res r = {.step = pfs_phase_desc(p->kind)->op, .offset = PFS_NO_OFFSET};
    char leaf[64], path[MD_PATH_LEN];
    int fd, own;
    __atomic_store_n(&s->md_at, k, __ATOMIC_RELAXED);
    int rc = pfs_md_item_at(w->nodes, w->base, cfg, dirs, w->owner, k, &fd, &own, leaf, sizeof(leaf));
    if (rc == 0) {
        switch (p->kind) {
        case PFS_PH_CREATE:
            rc = w->md->md_create(w->mdctx, fd, leaf, s->buf, (size_t)cfg->transfer, fsize, &r);
            if (r.made) {
                s->md_created++;
                if (i + 1 > s->md_reach)
                    s->md_reach = i + 1;
                s->md_seed = w->seed;
            }
            s->t.bytes += r.bytes;
            break;
        case PFS_PH_STAT:
        case PFS_PH_STATDIRS:
            rc = w->md->md_stat(w->mdctx, fd, leaf, &r);
            break;
        case PFS_PH_READFILES:
            rc = w->md->md_read(w->mdctx, fd, leaf, s->buf, (size_t)cfg->transfer, fsize, &r);
            s->t.bytes += r.bytes;
            break;
        case PFS_PH_DELETE:
            rc = w->md->md_unlink(w->mdctx, fd, leaf, &r);
            break;
        case PFS_PH_MKDIR:
            r.step = "mkdir";
            rc = w->md->md_mkdir(w->mdctx, fd, leaf);
            break;
        case PFS_PH_RMDIR:
            r.step = "rmdir";
            rc = w->md->md_rmdir(w->mdctx, fd, leaf);
            break;
        }
        if (own)
            close(fd);
    }
    if (rc < 0) {
        pfs_md_item_name(path, sizeof(path), cfg, dirs, w->dir, w->owner, k);
        md_fail(s, r.step, r.offset, path, rc);
        return;
    }
    switch (p->kind) {
    case PFS_PH_STAT:
        if (r.size != fsize) {
            pfs_md_item_name(path, sizeof(path), cfg, dirs, w->dir, w->owner, k);
            pfs_stream_fail(s, "stat", path, PFS_NO_OFFSET, 0, 0, "size %lld bytes, expected %" PRIu64,
                            (long long)r.size, fsize);
        }
        break;
    case PFS_PH_READFILES:
        if (r.bytes < fsize) {
            pfs_md_item_name(path, sizeof(path), cfg, dirs, w->dir, w->owner, k);
            pfs_stream_fail(s, "read", path, r.bytes, 0, 0, "short read: %" PRIu64 " of %" PRIu64 " bytes", r.bytes,
                            fsize);
        }
        break;
    case PFS_PH_DELETE:
        if (s->md_created)
            s->md_created--;
        else if (s->md_kept)
            s->md_kept--;
        break;
    case PFS_PH_MKDIR:
        s->md_tree_made++;
        break;
    case PFS_PH_RMDIR:
        pfs_md_node_gone(w->nodes, k);
        if (s->md_tree_made)
            s->md_tree_made--;
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

/* find in one directory of a stream's tree (node, opened beneath its
 * directory, never through a link): readdir, and an lstat (fstatat,
 * AT_SYMLINK_NOFOLLOW) of every entry that is one of its own files
 * f.<id>.<i>; the others' (the shared directory) are theirs to examine,
 * the tree's d.* directories are walked by find_walk. Returns 1 when the
 * walk must stop (failed or interrupted). */
static int find_dir(const struct pfs_phase_ctx *p, struct pfs_stream *s, uint64_t node, uint64_t *last)
{
    struct pfs_times *t = &s->t;
    char dir[MD_PATH_LEN], rel[MD_PATH_LEN];
    __atomic_store_n(&s->md_at, node, __ATOMIC_RELAXED);
    if (pfs_md_node_path(dir, sizeof(dir), p->cfg, s->md_dir, s->id, node) != 0 ||
        pfs_md_node_path(rel, sizeof(rel), p->cfg, NULL, s->id, node) != 0) {
        pfs_stream_fail(s, "find", s->md_dir, PFS_NO_OFFSET, ENAMETOOLONG, 0, NULL);
        return 1;
    }
    int nfd, own, fd = pfs_md_node_at(&s->md_nodes, s->md_fd, p->cfg, s->id, node, &nfd, &own);
    if (fd == 0) {
        fd = openat(nfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        fd = fd >= 0 ? fd : -errno;
        if (own)
            close(nfd);
    }
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        md_fail(s, "opendir", PFS_NO_OFFSET, dir, fd < 0 ? fd : -errno);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    int stop = 0;
    while (!stop) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)",
                            (int)*p->interrupted, strsignal(*p->interrupted));
            stop = 1;
            break;
        }
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                pfs_stream_fail(s, "readdir", dir, PFS_NO_OFFSET, errno, 0, NULL), stop = 1;
            break;
        }
        struct pfs_name nm;
        if (pfs_name_parse(e->d_name, &nm) != PFS_NAME_MD_FILE || nm.stream != s->id)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            char path[MD_PATH_LEN + sizeof(e->d_name) + 1];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            pfs_stream_fail(s, "lstat", path, PFS_NO_OFFSET, errno, 0, NULL);
            stop = 1;
            break;
        }
        s->md_matched += (uint64_t)find_matches(p, e->d_name, &st);
        const uint64_t now = pfs_now_ns();
        if (s->lat) {
            pfs_hist_add(&s->lat->h[PFS_LAT_OP], now - *last);
            pfs_ts_add(&s->lat->ts, 1e-9 * (double)(now - p->t0_ns), 0, now - *last);
        }
        *last = now;
        __atomic_store_n(&t->xfers, t->xfers + 1, __ATOMIC_RELAXED);
        if (p->progress && (t->xfers & 15) == 0) {
            p->progress(p->arg, s);
            *last = pfs_now_ns();
        }
    }
    closedir(d);
    return stop;
}

/* find on one stream: every directory of its tree (the stream's directory
 * alone without --depth). Every file it made must be seen, once. */
static void find_walk(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const uint64_t nodes = pfs_md_tree_dirs(p->cfg) + 1;
    s->md_matched = 0;
    mark(s, "readdir and lstat");
    uint64_t last = pfs_now_ns();
    for (uint64_t j = 0; j < nodes; j++)
        if (find_dir(p, s, j, &last))
            return;
    if (s->t.xfers != s->md_created + s->md_kept)
        pfs_stream_fail(s, "find", s->md_dir, PFS_NO_OFFSET, 0, 0, "found %" PRIu64 " of the %" PRIu64 " files stream %d %s",
                        s->t.xfers, s->md_created + s->md_kept, s->id, s->md_kept ? "has (kept)" : "made");
}

/* The item the i-th step of a metadata phase works on: file k (in --order
 * random, a permutation), or a tree node (mkdir and stat-dirs parents
 * first, rmdir deepest first). */
static uint64_t item_of(const struct md_walk *w, uint64_t i)
{
    const struct pfs_phase_ctx *p = w->p;
    if (p->kind == PFS_PH_MKDIR || p->kind == PFS_PH_STATDIRS)
        return i + 1;
    if (p->kind == PFS_PH_RMDIR)
        return pfs_md_tree_dirs(p->cfg) - i;
    return p->cfg->md_random ? pfs_permute(i, (uint64_t)p->cfg->files, w->seed) : i;
}

/* Items from .. to-1 of a metadata phase; stops early at wall_ns (the
 * stonewall, on pfs_now_ns's clock; UINT64_MAX: none), after at least one
 * item, or at a failure. Returns the index it reached. */
static uint64_t md_items(struct md_walk *w, uint64_t from, uint64_t to, uint64_t wall_ns)
{
    const struct pfs_phase_ctx *p = w->p;
    const int kind = p->kind;
    struct pfs_stream *s = w->s;
    struct pfs_times *t = &s->t;
    uint64_t i = from;
    for (; i < to; i++) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", w->dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)",
                            (int)*p->interrupted, strsignal(*p->interrupted));
            break;
        }
        if (i == 0)
            mark(s, pfs_phase_desc(kind)->op);
        const uint64_t b0 = t->bytes;
        md_one(w, i, item_of(w, i));
        const uint64_t now = pfs_now_ns();
        if (s->fail.failed)
            break;
        if (s->lat) { /* one clock read per file: the end of one is the start of the next */
            pfs_hist_add(&s->lat->h[PFS_LAT_OP], now - w->last);
            pfs_ts_add(&s->lat->ts, 1e-9 * (double)(now - p->t0_ns), t->bytes - b0, now - w->last);
        }
        w->last = now;
        __atomic_store_n(&t->xfers, t->xfers + 1, __ATOMIC_RELAXED);
        if (p->progress && (i & 15) == 15) {
            p->progress(p->arg, s);
            w->last = pfs_now_ns();
        }
        if (now >= wall_ns) {
            i++;
            break;
        }
    }
    return i;
}

/* create under -D (mdtest -W with its wear-out): the stream stops making
 * files at the stonewall, then every stream continues to the largest count
 * any stream reached, so every stream has the same files and the phases
 * after it work on them all. */
static void md_stonewalled(struct md_walk *w, uint64_t n)
{
    const struct pfs_phase_ctx *p = w->p;
    struct pfs_times *t = &w->s->t;
    const uint64_t wall_ns = pfs_now_ns() + (uint64_t)(p->cfg->deadline * 1e9);
    uint64_t done = md_items(w, 0, n, wall_ns);
    t->sw_bytes = t->bytes;
    t->sw_xfers = t->xfers;
    if (done < n && !w->s->fail.failed)
        t->sw_end = pfs_now();
    /* Every stream reaches the hook, the failed ones too; 0 means someone failed. */
    uint64_t target = p->wearout(p->arg, w->s, done);
    if (!w->s->fail.failed && target > done)
        md_items(w, done, target, UINT64_MAX);
}

void pfs_stream_meta(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    const struct pfs_config *cfg = p->cfg;
    const int kind = p->kind;
    const int other = kind == PFS_PH_STAT || kind == PFS_PH_READFILES; /* -C applies */
    const uint64_t files = kind == PFS_PH_CREATE || !p->md_files ? (uint64_t)cfg->files : p->md_files;
    /* One tree for all streams (--dirs shared, as mdtest without -u): stream 0's, made, stat'ed and removed by it. */
    const int dirs = pfs_phase_has(kind, PFS_PHF_DIRS);
    const uint64_t nitems = !dirs ? files : pfs_md_tree_owner(cfg, s->id) == s->id ? pfs_md_tree_dirs(cfg) : 0;
    struct md_walk w = {.p = p, .s = s, .dir = other ? s->md_rd_dir : s->md_dir, .base = other ? s->md_rd_fd : s->md_fd,
                        .owner = other ? s->rd_writer : s->id, .nodes = &s->md_nodes};
    /* Another stream's tree (-C with --dirs per-rank): held open for this phase only. */
    struct pfs_md_nodes theirs = {0};
    if (other && s->rd_writer != s->id && cfg->dirs == PFS_DIRS_PER_RANK)
        w.nodes = &theirs;
    w.seed = p->seed ^ pfs_mix64((uint64_t)w.owner + 0x6d64);
    w.mdctx = p->bectx;
    w.md = pfs_backend_md(p->be, &w.mdctx);
    struct pfs_times *t = &s->t;

    memset(t, 0, sizeof(*t));
    pfs_stream_lat_begin(s);
    struct pfs_cpu cpu0;
    pfs_thread_cpu(&cpu0);
    t->open_start = t->open_end = pfs_now();
    w.last = pfs_now_ns();
    if (kind == PFS_PH_FIND)
        find_walk(p, s);
    else if (cfg->deadline > 0 && pfs_phase_has(kind, PFS_PHF_STONEWALL) && p->wearout)
        md_stonewalled(&w, nitems);
    else
        md_items(&w, 0, nitems, UINT64_MAX);
    t->xfer_end = t->close_end = pfs_now();
    pfs_thread_cpu_since(&cpu0, t);
    mark(s, NULL);
    pfs_md_nodes_free(&theirs);
    /* The tree is gone (the shared one by stream 0's hand, while the others
     * held its directories open too): what they hold goes with it. */
    if (kind == PFS_PH_RMDIR)
        pfs_md_nodes_free(&s->md_nodes);
}

void pfs_stream_where(const struct pfs_config *cfg, int kind, const struct pfs_stream *s, char *buf, size_t len)
{
    if (!pfs_phase_is_meta(kind)) {
        snprintf(buf, len, "%s", pfs_phase_is_read(kind) ? s->rd_path : s->path);
        return;
    }
    const int other = kind == PFS_PH_STAT || kind == PFS_PH_READFILES;
    const uint64_t k = __atomic_load_n(&s->md_at, __ATOMIC_RELAXED);
    if (kind == PFS_PH_FIND)
        pfs_md_item_name(buf, len, cfg, 1, s->md_dir, s->id, k);
    else
        pfs_md_item_name(buf, len, cfg, pfs_phase_has(kind, PFS_PHF_DIRS), other ? s->md_rd_dir : s->md_dir,
                  other ? s->rd_writer : s->id, k);
}

int pfs_stream_meta_clear(const struct pfs_config *cfg, struct pfs_stream *s)
{
    return pfs_stream_meta_clear_with(&pfs_backend_posix, NULL, cfg, s);
}

int pfs_stream_meta_clear_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                               struct pfs_stream *s)
{
    int first = 0;
    uint64_t left = 0;
    if (!s->md_created)
        return 0;
    const struct pfs_backend *md = pfs_backend_md(be, &bectx);
    /* The directory is this run's own (made with mkdir, never reused, held
     * open since), so every f.<stream>.<i> in it is a file this stream
     * made; a tree directory on the way that is now a link is not followed
     * (its files are left, and counted). Only the names a create reached
     * are looked at: a run of -n 100000000 that failed at file 29 cleans up
     * 29 names, not a hundred million. */
    const uint64_t nfiles = (uint64_t)cfg->files;
    mark(s, "remove the small files");
    for (uint64_t i = 0; i < s->md_reach; i++) {
        uint64_t k = cfg->md_random ? pfs_permute(i, nfiles, s->md_seed) : i;
        char leaf[64];
        int fd, own;
        struct pfs_md_res r = {.offset = PFS_NO_OFFSET};
        __atomic_store_n(&s->md_at, k, __ATOMIC_RELAXED);
        int rc = pfs_md_item_at(&s->md_nodes, s->md_fd, cfg, 0, s->id, k, &fd, &own, leaf, sizeof(leaf));
        if (rc == 0)
            rc = md->md_unlink(bectx, fd, leaf, &r);
        if (own)
            close(fd);
        if (rc < 0 && rc != -ENOENT) { /* ENOENT: not made (a failed create), or removed by another process */
            first = first ? first : rc;
            left++;
        }
        __atomic_store_n(&s->work, s->work + 1, __ATOMIC_RELAXED);
    }
    mark(s, NULL);
    s->md_created = left;
    if (!first)
        s->md_reach = 0;
    return first;
}
