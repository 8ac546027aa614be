/* The metadata phases on the --depth/--branch tree's directories (mdtest's
 * tree creation and removal): mkdir (parents first), stat-dirs, rmdir
 * (deepest first), each directory's call through the backend's small-file
 * calls (or the POSIX ones) in the metadata loop (src/core/stream_meta.c).
 * With --dirs shared the one tree is stream 0's: the others' work is none. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include "pfs/config.h"
#include "pfs/stream.h"

#include "../stream_md.h"
#include "../stream_tree.h"
#include "phases.h"

static uint64_t tree_work(const struct pfs_phase_ctx *p, int stream)
{
    return pfs_md_tree_owner(p->cfg, stream) == stream ? pfs_md_tree_dirs(p->cfg) : 0;
}

/* Parents first (breadth-first order: node 1 up). */
static uint64_t parents_first(const struct pfs_md_walk *w, uint64_t i)
{
    (void)w;
    return i + 1;
}

static uint64_t deepest_first(const struct pfs_md_walk *w, uint64_t i)
{
    return pfs_md_tree_dirs(w->p->cfg) - i;
}

static int mkdir_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    (void)i, (void)r;
    return w->md->md_mkdir(w->mdctx, fd, leaf);
}

static void mkdir_done(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r)
{
    (void)k, (void)r;
    w->s->md_tree_made++;
}

static int stat_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    (void)i;
    return w->md->md_stat(w->mdctx, fd, leaf, r);
}

static int rmdir_call(const struct pfs_md_walk *w, uint64_t i, int fd, const char *leaf, struct pfs_md_res *r)
{
    (void)i, (void)r;
    return w->md->md_rmdir(w->mdctx, fd, leaf);
}

/* The node is gone: its descriptor held open goes too. */
static void rmdir_done(const struct pfs_md_walk *w, uint64_t k, const struct pfs_md_res *r)
{
    (void)r;
    pfs_md_node_gone(w->nodes, k);
    if (w->s->md_tree_made)
        w->s->md_tree_made--;
}

static void mkdir_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = mkdir_call, .done = mkdir_done, .item = parents_first};
    pfs_md_run(p, s, &step);
}

static void statdirs_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = stat_call, .item = parents_first};
    pfs_md_run(p, s, &step);
}

static void rmdir_run(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    static const struct pfs_md_step step = {.call = rmdir_call, .done = rmdir_done, .item = deepest_first};
    pfs_md_run(p, s, &step);
    /* The tree is gone (the shared one by stream 0's hand, while the others
     * held its directories open too): what they hold goes with it. */
    pfs_md_nodes_free(&s->md_nodes);
}

const struct pfs_phase_ops pfs_ph_mkdir = {
    .name = "mkdir",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_DIRS | PFS_PHF_CREATES,
    .unit = PFS_UNIT_DIRS,
    .needs = -1,
    .op = "mkdir",
    .help = "make the directories of each stream's --depth/--branch tree, parents first (mdtest's tree creation)",
    .work = tree_work,
    .run = mkdir_run,
};

const struct pfs_phase_ops pfs_ph_statdirs = {
    .name = "stat-dirs",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_DIRS,
    .unit = PFS_UNIT_DIRS,
    .needs = PFS_PH_MKDIR,
    .op = "stat",
    .help = "stat each directory of the tree",
    .work = tree_work,
    .run = statdirs_run,
};

const struct pfs_phase_ops pfs_ph_rmdir = {
    .name = "rmdir",
    .kind = PFS_PHASE_META,
    .flags = PFS_PHF_DIRS | PFS_PHF_REMOVES,
    .unit = PFS_UNIT_DIRS,
    .needs = PFS_PH_MKDIR,
    .op = "rmdir",
    .help = "remove the tree's directories, deepest first (mdtest's tree removal)",
    .work = tree_work,
    .run = rmdir_run,
};
