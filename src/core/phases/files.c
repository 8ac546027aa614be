/* The metadata phases on files: create (making each file and writing
 * --file-size bytes to it), stat, read-files (open, read, close), find
 * (IO500's: a walk of the directories) and delete, each file's call through
 * the backend's small-file calls (or the POSIX ones) in the metadata loop
 * (src/core/stream_meta.c); find walks with readdir and lstat itself. The
 * untimed clear before a create that repeats without a delete is
 * create's. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/names.h"
#include "pfs/stream.h"

#include "../stream_mark.h"
#include "../stream_md.h"
#include "../stream_tree.h"
#include "phases.h"

/* create makes -n files per stream. */
static uint64_t all_files(const struct pfs_phase_ctx *p, int stream)
{
    (void)stream;
    return (uint64_t)p->cfg->files;
}

/* The others work on what is there: -n, or under -D what create reached. */
static uint64_t made_files(const struct pfs_phase_ctx *p, int stream)
{
    (void)stream;
    return p->md_files ? p->md_files : (uint64_t)p->cfg->files;
}

static int create_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    const struct pfs_config *cfg = w->p->cfg;
    struct pfs_stream *s = w->s;
    int rc = w->md->md_create(w->mdctx, fd, leaf, s->buf, (size_t)cfg->transfer, cfg->file_size, r);
    if (r->made) { /* counted for the clean-up even when writing it failed */
        s->md_created++;
        if (i + 1 > s->md_reach)
            s->md_reach = i + 1;
        s->md_seed = w->seed;
    }
    s->t.bytes += r->bytes;
    return rc;
}

static int stat_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    (void)i;
    return w->md->md_stat(w->mdctx, fd, leaf, r);
}

static void stat_done(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r)
{
    const uint64_t fsize = w->p->cfg->file_size;
    if (r->size != fsize)
        pfs_md_item_fail(w, k, "stat", PFS_NO_OFFSET, "size %lld bytes, expected %" PRIu64, (long long)r->size, fsize);
}

static int read_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    const struct pfs_config *cfg = w->p->cfg;
    (void)i;
    int rc = w->md->md_read(w->mdctx, fd, leaf, w->s->buf, (size_t)cfg->transfer, cfg->file_size, r);
    w->s->t.bytes += r->bytes;
    return rc;
}

static void read_done(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r)
{
    const uint64_t fsize = w->p->cfg->file_size;
    if (r->bytes < fsize)
        pfs_md_item_fail(w, k, "read", r->bytes, "short read: %" PRIu64 " of %" PRIu64 " bytes", r->bytes, fsize);
}

static int delete_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    (void)i;
    return w->md->md_unlink(w->mdctx, fd, leaf, r);
}

/* A file this run made, else one of a kept run's. */
static void delete_done(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r)
{
    struct pfs_stream *s = w->s;
    (void)k, (void)r;
    if (s->md_created)
        s->md_created--;
    else if (s->md_kept)
        s->md_kept--;
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
        pfs_md_fail(s, "opendir", PFS_NO_OFFSET, dir, fd < 0 ? fd : -errno);
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
static void find_walk(struct pfs_md_walk *w)
{
    const struct pfs_phase_ctx *p = w->p;
    struct pfs_stream *s = w->s;
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


static void create_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = create_call};
    pfs_md_run(p, s, &step);
}

static void stat_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = stat_call, .done = stat_done};
    pfs_md_run(p, s, &step);
}

static void read_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = read_call, .done = read_done};
    pfs_md_run(p, s, &step);
}

/* find: readdir of each directory of the stream's tree and an lstat of each
 * of its own files f.<id>.<i> there (in the shared directory the others'
 * are skipped, so that each file is examined once over all streams);
 * t.xfers counts the files examined, md_matched those with IO500's find
 * criteria (a name holding "01", the size --file-size, modified at or
 * after p->md_start). */
static void find_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.walk = find_walk};
    pfs_md_run(p, s, &step);
}

static void delete_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = delete_call, .done = delete_done};
    pfs_md_run(p, s, &step);
}

/* -k keeps the first files a create stopped by -D made; in random order
 * they would be names no later run can find. */
static int create_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->keep && cfg->deadline > 0 && cfg->md_random) {
        snprintf(err, len, "-k with a create that -D may stop, in --order random: the files kept would be a "
                 "random subset of the -n names, which no later --run-id run can find; give --order "
                 "sequential (the first files are kept) or drop -D or -k");
        return -1;
    }
    return 0;
}

/* A create that repeats without a delete in the list starts from an empty
 * directory, as a write starts from an empty file. */
static void create_before(struct pfs_phase_env *e)
{
    if (e->rep == 0 || pfs_phase_listed(e->cfg, PFS_PHASE_META, PFS_PHF_REMOVES, PFS_PHF_DIRS))
        return;
    for (int i = 0; i < e->nthreads; i++) {
        int rc = pfs_stream_meta_clear_with(e->be, e->bectx, e->cfg, &e->streams[i]);
        char why[200];
        if (rc && !pfs_safefile_why(rc, NULL, why, sizeof(why)))
            snprintf(why, sizeof(why), "%s", strerror(-rc));
        if (rc)
            pfs_phase_env_fail(e, "remove", e->streams[i].md_dir, 0, "clearing the files of the last create: %s", why);
    }
}

const struct pfs_phase_ops pfs_ph_create = {
    .name = "create",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_CREATES | PFS_PHF_WRITES | PFS_PHF_STONEWALL | PFS_PHF_WEARS_OUT | PFS_PHF_SETS_COUNT,
    .unit = PFS_UNIT_FILES,
    .needs = -1,
    .op = "create",
    .help = "create -n files per stream (writing --file-size bytes to each)",
    .work = all_files,
    .run = create_run,
    .check = create_check,
    .before = create_before,
};

const struct pfs_phase_ops pfs_ph_stat = {
    .name = "stat",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_OTHERS | PFS_PHF_SIZED,
    .unit = PFS_UNIT_FILES,
    .needs = PFS_PH_CREATE,
    .op = "stat",
    .help = "stat each file",
    .work = made_files,
    .run = stat_run,
};

const struct pfs_phase_ops pfs_ph_readfiles = {
    .name = "read-files",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_READS | PFS_PHF_OTHERS | PFS_PHF_SIZED,
    .unit = PFS_UNIT_FILES,
    .needs = PFS_PH_CREATE,
    .op = "open, read and close",
    .help = "open each file, read its content, close it",
    .work = made_files,
    .run = read_run,
};

const struct pfs_phase_ops pfs_ph_find = {
    .name = "find",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_SIZED | PFS_PHF_WALKS | PFS_PHF_MATCHES,
    .unit = PFS_UNIT_FILES,
    .needs = PFS_PH_CREATE,
    .op = "readdir and lstat",
    .help = "walk the directories (readdir), lstat each file once, count IO500's find matches "
            "(name *01*, size --file-size, not older than the run's start)",
    .work = made_files,
    .run = find_run,
};

const struct pfs_phase_ops pfs_ph_delete = {
    .name = "delete",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_REMOVES,
    .unit = PFS_UNIT_FILES,
    .needs = PFS_PH_CREATE,
    .op = "delete",
    .help = "delete each file",
    .work = made_files,
    .run = delete_run,
};
