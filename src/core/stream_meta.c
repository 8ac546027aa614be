/* The metadata phases' loop (their items: create, stat, read-files,
 * delete's files; mkdir, stat-dirs, rmdir's tree directories; find walks on
 * its own inside the same timing) and the clean-up of a stream's small
 * files, through the backend's small-file calls or the POSIX ones, each on
 * a name in a directory held open (stream_tree.c). What each phase does
 * with an item is its own (src/core/phases/files.c, tree.c). */
#define _GNU_SOURCE
#include "stream_md.h"
#include "pfs/safefile.h"
#include "stream_mark.h"
#include "stream_tree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void pfs_md_fail(struct pfs_stream *s, const char *step, uint64_t off, const char *path, int rc)
{
    char why[200];
    if (pfs_safefile_why(rc, path, why, sizeof(why)))
        pfs_stream_fail(s, step, path, off, 0, 0, "%s", why);
    else
        pfs_stream_fail(s, step, path, off, -rc, 0, NULL);
}

void pfs_md_item_fail(const struct pfs_md_walk *w, uint64_t k, const char *op, uint64_t off, const char *fmt, ...)
{
    char path[MD_PATH_LEN], detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    pfs_md_item_name(path, sizeof(path), w->p->cfg, w->dirs, w->dir, w->owner, k);
    pfs_stream_fail(w->s, op, path, off, 0, 0, "%s", detail);
}

/* One item of a metadata phase (file or tree node k, the i-th visited),
 * through w->md (the backend's calls or the POSIX ones). */
static void md_one(const struct pfs_md_walk *w, uint64_t i, uint64_t k)
{
    const struct pfs_config *cfg = w->p->cfg;
    struct pfs_md_res r = {.step = pfs_phase_desc(w->p->kind)->op, .offset = PFS_NO_OFFSET};
    char leaf[64], path[MD_PATH_LEN];
    int fd, own;
    __atomic_store_n(&w->s->md_at, k, __ATOMIC_RELAXED);
    int rc = pfs_md_item_at(w->nodes, w->base, cfg, w->dirs, w->owner, k, &fd, &own, leaf, sizeof(leaf));
    if (rc == 0) {
        rc = w->step->call(w, i, fd, leaf, &r);
        if (own)
            close(fd);
    }
    if (rc < 0) {
        pfs_md_item_name(path, sizeof(path), cfg, w->dirs, w->dir, w->owner, k);
        pfs_md_fail(w->s, r.step, r.offset, path, rc);
        return;
    }
    if (w->step->done)
        w->step->done(w, k, &r);
}

/* The item the i-th step works on: the phase's own order (a tree's
 * directories), else file i, in --order random a permutation. */
static uint64_t item_of(const struct pfs_md_walk *w, uint64_t i)
{
    const struct pfs_config *cfg = w->p->cfg;
    if (w->step->item)
        return w->step->item(w, i);
    return cfg->md_random ? pfs_permute(i, (uint64_t)cfg->files, w->seed) : i;
}

/* Items from .. to-1 of a metadata phase; stops early at wall_ns (the
 * stonewall, on pfs_now_ns's clock; UINT64_MAX: none), after at least one
 * item, or at a failure. Returns the index it reached. */
static uint64_t md_items(struct pfs_md_walk *w, uint64_t from, uint64_t to, uint64_t wall_ns)
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
        const uint64_t item = item_of(w, i);
        md_one(w, i, item);
        const uint64_t now = pfs_now_ns();
        if (s->fail.failed)
            break;
        if (s->lat) { /* one clock read per file: the end of one is the start of the next */
            pfs_hist_add(&s->lat->h[PFS_LAT_OP], now - w->last);
            /* offset: the item (file or directory) number, length: its bytes */
            pfs_exemplar_add(&s->lat->ex, PFS_LAT_OP, item, t->bytes - b0, w->last - p->t0_ns, now - w->last);
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
static void md_stonewalled(struct pfs_md_walk *w, uint64_t n)
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

void pfs_md_run(const struct pfs_phase_ctx *p, struct pfs_stream *s, const struct pfs_md_step *st)
{
    const struct pfs_config *cfg = p->cfg;
    const int other = pfs_phase_has(p->kind, PFS_PHF_OTHERS); /* -C applies */
    /* One tree for all streams (--dirs shared, as mdtest without -u):
     * stream 0's, made, stat'ed and removed by it (the others' work is none). */
    const uint64_t nitems = pfs_phase_work(p, s->id);
    struct pfs_md_walk w = {.p = p, .s = s, .step = st, .dir = other ? s->md_rd_dir : s->md_dir,
                            .base = other ? s->md_rd_fd : s->md_fd, .owner = other ? s->rd_writer : s->id,
                            .nodes = &s->md_nodes, .dirs = pfs_phase_has(p->kind, PFS_PHF_DIRS)};
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
    if (s->lat)
        s->lat->file = w.owner;
    struct pfs_cpu cpu0;
    pfs_thread_cpu(&cpu0);
    t->open_start = t->open_end = pfs_now();
    w.last = pfs_now_ns();
    if (st->walk)
        st->walk(&w);
    else if (cfg->deadline > 0 && pfs_phase_has(p->kind, PFS_PHF_STONEWALL) && p->wearout)
        md_stonewalled(&w, nitems);
    else
        md_items(&w, 0, nitems, UINT64_MAX);
    t->xfer_end = t->close_end = pfs_now();
    pfs_thread_cpu_since(&cpu0, t);
    mark(s, NULL);
    pfs_md_nodes_free(&theirs);
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
