/* The metadata phases of one stream (create, stat, read-files, find,
 * delete; mkdir, stat-dirs, rmdir of its --depth tree) and their clean-up, through the backend's small-file calls or the
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

uint64_t pfs_md_tree_dirs(const struct pfs_config *cfg) { return pfs_config_tree_dirs(cfg); }

/* The leaves: the last branch^depth nodes (node 0 alone with depth 0). */
uint64_t pfs_md_file_node(const struct pfs_config *cfg, uint64_t i)
{
    const uint64_t n = pfs_md_tree_dirs(cfg);
    if (!cfg->md_leaf_only || cfg->md_depth == 0)
        return i % (n + 1);
    uint64_t leaves = 1;
    for (int k = 0; k < cfg->md_depth; k++)
        leaves *= (uint64_t)cfg->md_branch;
    return n - leaves + 1 + i % leaves;
}

int pfs_md_tree_owner(const struct pfs_config *cfg, int stream)
{
    return cfg->md_depth > 0 && cfg->dirs == PFS_DIRS_SHARED ? 0 : stream;
}

int pfs_md_node_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t node)
{
    stream = pfs_md_tree_owner(cfg, stream);
    uint64_t chain[64];
    int depth = 0;
    const uint64_t b = (uint64_t)(cfg->md_branch > 0 ? cfg->md_branch : 1);
    for (uint64_t j = node; j > 0 && depth < 64; j = (j - 1) / b)
        chain[depth++] = j;
    int n = snprintf(out, len, "%s", dir);
    for (int k = depth - 1; k >= 0 && n >= 0 && (size_t)n < len; k--)
        n += snprintf(out + n, len - (size_t)n, "/d.%d.%" PRIu64, stream, chain[k]);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

int pfs_md_file_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t i)
{
    if (pfs_md_node_path(out, len, cfg, dir, stream, pfs_md_file_node(cfg, i)) != 0)
        return -1;
    size_t n = strlen(out);
    int m = snprintf(out + n, len - n, "/f.%d.%" PRIu64, stream, i);
    return m >= 0 && (size_t)m < len - n ? 0 : -1;
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
        else if (s->md_kept)
            s->md_kept--;
        break;
    case PFS_PH_MKDIR:
        r.step = "mkdir";
        if ((rc = md->md_mkdir(mdctx, path)) < 0)
            md_fail(s, &r, path, rc);
        else
            s->md_tree_made++;
        break;
    case PFS_PH_STATDIRS:
        rc = md->md_stat(mdctx, path, &r);
        if (rc < 0)
            md_fail(s, &r, path, rc);
        break;
    case PFS_PH_RMDIR:
        r.step = "rmdir";
        if ((rc = md->md_rmdir(mdctx, path)) < 0)
            md_fail(s, &r, path, rc);
        else if (s->md_tree_made)
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

#define MD_PATH_LEN (2 * PFS_PATH_MAX)

/* find in one directory of a stream's tree: readdir, never through a link;
 * an lstat (fstatat, AT_SYMLINK_NOFOLLOW) of every entry that is one of its
 * own files f.<id>.<i>; the others' (the shared directory) are theirs to
 * examine, the tree's d.* directories are walked by find_walk. Returns 1
 * when the walk must stop (failed or interrupted). */
static int find_dir(const struct pfs_phase_ctx *p, struct pfs_stream *s, const char *dir, uint64_t *last)
{
    struct pfs_times *t = &s->t;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        pfs_stream_fail(s, "opendir", dir, PFS_NO_OFFSET, errno, 0, NULL);
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
    char dir[MD_PATH_LEN];
    s->md_matched = 0;
    mark(s, "readdir and lstat");
    uint64_t last = pfs_now_ns();
    for (uint64_t j = 0; j < nodes; j++) {
        if (pfs_md_node_path(dir, sizeof(dir), p->cfg, s->md_dir, s->id, j) != 0) {
            pfs_stream_fail(s, "find", s->md_dir, PFS_NO_OFFSET, ENAMETOOLONG, 0, NULL);
            return;
        }
        if (find_dir(p, s, dir, &last))
            return;
    }
    if (s->t.xfers != s->md_created + s->md_kept)
        pfs_stream_fail(s, "find", s->md_dir, PFS_NO_OFFSET, 0, 0, "found %" PRIu64 " of the %" PRIu64 " files stream %d %s",
                        s->t.xfers, s->md_created + s->md_kept, s->id, s->md_kept ? "has (kept)" : "made");
}

/* The path of item i of a metadata phase: a file, or a tree directory
 * (mkdir and stat-dirs parents first, rmdir deepest first). */
static int item_path(const struct pfs_phase_ctx *p, char *out, size_t len, const char *dir, int owner, uint64_t i,
                     uint64_t k)
{
    const uint64_t ndirs = pfs_md_tree_dirs(p->cfg);
    if (p->kind == PFS_PH_MKDIR || p->kind == PFS_PH_STATDIRS)
        return pfs_md_node_path(out, len, p->cfg, dir, owner, i + 1);
    if (p->kind == PFS_PH_RMDIR)
        return pfs_md_node_path(out, len, p->cfg, dir, owner, ndirs - i);
    return pfs_md_file_path(out, len, p->cfg, dir, owner, k);
}

/* What one metadata phase of a stream works with, set once. */
struct md_walk {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    const struct pfs_backend *md;
    void *mdctx;
    const char *dir;
    int owner;
    uint64_t seed;
    uint64_t last; /* the clock at the end of the last item (pfs_now_ns) */
};

/* Items from .. to-1 of a metadata phase; stops early at wall_ns (the
 * stonewall, on pfs_now_ns's clock; UINT64_MAX: none), after at least one
 * item, or at a failure. Returns the index it reached. */
static uint64_t md_items(struct md_walk *w, uint64_t from, uint64_t to, uint64_t wall_ns)
{
    const struct pfs_phase_ctx *p = w->p;
    const int kind = p->kind;
    const int dirs = pfs_phase_has(kind, PFS_PHF_DIRS);
    const uint64_t nfiles = (uint64_t)p->cfg->files;
    struct pfs_stream *s = w->s;
    struct pfs_times *t = &s->t;
    char path[MD_PATH_LEN];
    uint64_t i = from;
    for (; i < to; i++) {
        if (*p->interrupted) {
            pfs_stream_fail(s, "interrupted", w->dir, PFS_NO_OFFSET, 0, *p->interrupted, "signal %d (%s)",
                            (int)*p->interrupted, strsignal(*p->interrupted));
            break;
        }
        uint64_t k = p->cfg->md_random && !dirs ? pfs_permute(i, nfiles, w->seed) : i;
        if (item_path(p, path, sizeof(path), w->dir, w->owner, i, k) != 0) {
            pfs_stream_fail(s, pfs_phase_desc(kind)->op, w->dir, PFS_NO_OFFSET, ENAMETOOLONG, 0, NULL);
            break;
        }
        if (i == 0)
            mark(s, pfs_phase_desc(kind)->op);
        const uint64_t b0 = t->bytes;
        md_one(p, w->md, w->mdctx, s, path, i, w->seed);
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
    struct md_walk w = {.p = p, .s = s, .dir = other ? s->md_rd_dir : s->md_dir, .owner = other ? s->rd_writer : s->id};
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
}

int pfs_stream_meta_clear(const struct pfs_config *cfg, struct pfs_stream *s)
{
    return pfs_stream_meta_clear_with(&pfs_backend_posix, NULL, cfg, s);
}

int pfs_stream_meta_clear_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                               struct pfs_stream *s)
{
    char path[MD_PATH_LEN];
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
        if (pfs_md_file_path(path, sizeof(path), cfg, s->md_dir, s->id, k) != 0) {
            first = first ? first : -ENAMETOOLONG;
            continue;
        }
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

int pfs_stream_meta_rmtree_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                                struct pfs_stream *s)
{
    char path[MD_PATH_LEN];
    if (!s->md_tree_made)
        return 0;
    const struct pfs_backend *md = pfs_backend_md(be, &bectx);
    /* Nodes 1 .. md_tree_made are this run's own (made in that order, removed from the top), deepest first. */
    mark(s, "remove the tree's directories");
    int rc = 0;
    while (s->md_tree_made && !rc) {
        if (pfs_md_node_path(path, sizeof(path), cfg, s->md_dir, s->id, s->md_tree_made) != 0)
            rc = -ENAMETOOLONG;
        else if ((rc = md->md_rmdir(bectx, path)) == 0 || rc == -ENOENT)
            s->md_tree_made--, rc = 0;
        __atomic_store_n(&s->work, s->work + 1, __ATOMIC_RELAXED);
    }
    mark(s, NULL);
    return rc;
}

/* One kept item: lstat (never through a link), the type it must have. */
static int probe_one(const char *path, mode_t type, char *why, size_t len)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    if ((st.st_mode & S_IFMT) != type) {
        snprintf(why, len, "%s: not a %s", path, type == S_IFDIR ? "directory" : "regular file");
        return -1;
    }
    if (type == S_IFDIR && st.st_uid != geteuid()) {
        snprintf(why, len, "%s: owned by uid %u, not this user's: pfsbench works only on its own kept runs", path,
                 (unsigned)st.st_uid);
        return -1;
    }
    if (type == S_IFDIR && (st.st_mode & 022)) { /* pfsbench makes them 0755: someone opened them since */
        snprintf(why, len, "%s: writable by its group or others (mode %04o), so not only pfsbench's names can be in "
                 "it", path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

int pfs_stream_meta_probe(const struct pfs_config *cfg, const char *dir, int stream, unsigned kept, char *why,
                          size_t len)
{
    char path[MD_PATH_LEN];
    if (probe_one(dir, S_IFDIR, why, len) != 0)
        return -1;
    const uint64_t ndirs = pfs_md_tree_dirs(cfg), nfiles = (uint64_t)cfg->files;
    /* Every directory of the tree, since the phases go through them by path
     * (one planted link would take a delete elsewhere): the owner of a shared
     * tree walks it all, the other streams look at its first and last. */
    const int owner = pfs_md_tree_owner(cfg, stream) == stream;
    for (uint64_t j = 1; (kept & PFS_MD_KEPT_TREE) && j <= ndirs; j = owner || j == ndirs ? j + 1 : ndirs) {
        if (pfs_md_node_path(path, sizeof(path), cfg, dir, stream, j) != 0)
            return snprintf(why, len, "%s: a name in it is too long", dir), -1;
        if (probe_one(path, S_IFDIR, why, len) != 0)
            return -1;
    }
    const uint64_t files[3] = {0, nfiles - 1, nfiles}; /* the first, the last, and one past it */
    for (int k = 0; (kept & PFS_MD_KEPT_FILES) && k < 3; k++) {
        if (pfs_md_file_path(path, sizeof(path), cfg, dir, stream, files[k]) != 0)
            return snprintf(why, len, "%s: a name in it is too long", dir), -1;
        struct stat st;
        if (k == 2 && lstat(path, &st) == 0)
            return snprintf(why, len, "%s is there: the kept run made more than -n %d files per stream", path,
                            cfg->files), -1;
        if (k < 2 && probe_one(path, S_IFREG, why, len) != 0)
            return -1;
    }
    return 0;
}
