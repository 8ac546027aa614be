/* The rules on the order of a -p list, from what each phase's ops say
 * (its needs and flags), never from which phase it is: a phase after the
 * one it needs; the --depth tree made before anything works in it and
 * removed only once empty; a kept run's files and tree (--run-id) in place
 * of the phases that make them; a read after the write it reads. */
#include "pfs/phase.h"

#include <stdarg.h>
#include <stdio.h>

#include "pfs/config.h"

#include "phases.h"

/* The phases that make and remove the files (not DIRS) and the tree (DIRS). */
#define MAKES(dirs) PFS_PHASE_META, PFS_PHF_CREATES | (dirs), (dirs) ? 0u : PFS_PHF_DIRS
#define REMOVES(dirs) PFS_PHASE_META, PFS_PHF_REMOVES | (dirs), (dirs) ? 0u : PFS_PHF_DIRS

static int is_like(int k, int kind, unsigned flags, unsigned without)
{
    const struct pfs_phase_ops *d = pfs_phase_desc(k);
    return d && (int)d->kind == kind && (d->flags & flags) == flags && !(d->flags & without);
}

/* The registry's name of the phase that does that (for messages). */
static const char *name_of(int kind, unsigned flags, unsigned without)
{
    for (int k = 0; pfs_phase_desc(k); k++)
        if (is_like(k, kind, flags, without))
            return pfs_phase_name(k);
    return "?";
}

/* A metadata phase that works on files needs the phase that makes them
 * earlier in the list. (A data phase may instead read or rewrite the files
 * a kept run left: pfs_phase_data_order checks those with --run-id in mind.) */
unsigned pfs_config_md_kept(const struct pfs_config *cfg)
{
    int first_file = -1, first_meta = -1;
    for (int i = 0; cfg->run_id[0] && i < cfg->nphases; i++) {
        const int k = cfg->phases[i];
        if (!pfs_phase_is_meta(k))
            continue;
        if (first_meta < 0)
            first_meta = k;
        if (first_file < 0 && !pfs_phase_has(k, PFS_PHF_DIRS))
            first_file = k;
    }
    unsigned kept = 0;
    if (first_file >= 0 && !is_like(first_file, MAKES(0)))
        kept |= PFS_MD_KEPT_FILES;
    if (cfg->md_depth > 0 && first_meta >= 0 && !is_like(first_meta, MAKES(PFS_PHF_DIRS)))
        kept |= PFS_MD_KEPT_TREE;
    return kept;
}

static int check_needs(const struct pfs_config *cfg, char *err, size_t len)
{
    const unsigned kept = pfs_config_md_kept(cfg);
    for (int i = 0; i < cfg->nphases; i++) {
        const struct pfs_phase_ops *d = pfs_phase_desc(cfg->phases[i]);
        if (d->kind != PFS_PHASE_META || d->needs < 0)
            continue;
        /* A kept run's files or tree (--run-id) are there before the first phase. */
        if (kept & (pfs_phase_has(d->needs, PFS_PHF_DIRS) ? PFS_MD_KEPT_TREE : PFS_MD_KEPT_FILES))
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = cfg->phases[j] == d->needs;
        if (!seen)
            return pfs_fail(err, len, "--phases: %s needs %s before it in the list (e.g. -p create,stat,delete)", d->name,
                        pfs_phase_name(d->needs));
    }
    return 0;
}

/* A list over kept metadata that removes it (delete, rmdir) cannot repeat
 * without making it again: the second repetition would find nothing. */
static int check_kept_repeats(const struct pfs_config *cfg, unsigned kept, char *err, size_t len)
{
    if (!kept || (cfg->reps == 1 && cfg->warmup == 0))
        return 0;
    const int del = pfs_phase_listed(cfg, REMOVES(0)), rmd = pfs_phase_listed(cfg, REMOVES(PFS_PHF_DIRS));
    const int cre = pfs_phase_listed(cfg, MAKES(0)), mkd = pfs_phase_listed(cfg, MAKES(PFS_PHF_DIRS));
    if (((kept & PFS_MD_KEPT_FILES) && del && !cre) || ((kept & PFS_MD_KEPT_TREE) && rmd && !mkd))
        return pfs_fail(err, len, "--phases: %s removes the kept %s of run %s, and the list repeats (-i, --warmup, --reps "
                    "auto): the second repetition would find none; run it once",
                    del && !cre ? name_of(REMOVES(0)) : name_of(REMOVES(PFS_PHF_DIRS)), del && !cre ? "files" : "tree",
                    cfg->run_id);
    return 0;
}

/* The tree's state as the list goes: made (tree), holding files (files). */
struct tree_walk {
    int tree, files, mkdirs;
};

/* One phase of the list against the tree's state. */
static int tree_step(const struct pfs_config *cfg, int k, struct tree_walk *w, char *err, size_t len)
{
    const int dirs = pfs_phase_has(k, PFS_PHF_DIRS);
    if (dirs && cfg->md_depth == 0)
        return pfs_fail(err, len, "--phases: %s needs --depth 1 or more (the tree of directories it works on)",
                    pfs_phase_name(k));
    if (is_like(k, MAKES(PFS_PHF_DIRS))) {
        if (w->tree)
            return pfs_fail(err, len, "--phases: %s twice without %s between (the tree is there already)",
                        pfs_phase_name(k), name_of(REMOVES(PFS_PHF_DIRS)));
        w->tree = 1, w->mkdirs = 1;
        return 0;
    }
    if (pfs_phase_is_meta(k) && !w->tree && (dirs || cfg->md_depth > 0))
        return pfs_fail(err, len, "--phases: %s with --depth %d needs %s before it (the tree it works on), "
                    "e.g. -p mkdir,create,stat,delete,rmdir", pfs_phase_name(k), cfg->md_depth,
                    name_of(MAKES(PFS_PHF_DIRS)));
    if (is_like(k, MAKES(0)))
        w->files = 1;
    else if (is_like(k, REMOVES(0)))
        w->files = 0;
    else if (is_like(k, REMOVES(PFS_PHF_DIRS))) {
        if (w->files)
            return pfs_fail(err, len, "--phases: %s after %s needs %s between them (the tree's directories must be "
                        "empty)", pfs_phase_name(k), name_of(MAKES(0)), name_of(REMOVES(0)));
        w->tree = 0;
    }
    return 0;
}

/* The --depth tree: its size, and an order in which each phase finds it
 * as it needs it. mkdir makes it (no file phase makes it untimed: with
 * --depth, mkdir comes before create); rmdir removes it, so the files in
 * it must be gone (delete) and nothing after it works on it until the
 * next mkdir; a list that repeats and keeps the tree cannot mkdir again. */
static int check_tree(const struct pfs_config *cfg, char *err, size_t len)
{
    const uint64_t ndirs = pfs_config_tree_dirs(cfg);
    if (ndirs > 100000000)
        return pfs_fail(err, len, "--depth %d --branch %d is a tree of more than 100000000 directories per stream",
                    cfg->md_depth, cfg->md_branch);
    const unsigned kept = pfs_config_md_kept(cfg);
    if ((kept & PFS_MD_KEPT_FILES) && cfg->md_depth > 0 && !(kept & PFS_MD_KEPT_TREE))
        return pfs_fail(err, len, "--phases: the kept files of run %s lie in its kept tree, which %s would make "
                    "anew: drop %s", cfg->run_id, name_of(MAKES(PFS_PHF_DIRS)), name_of(MAKES(PFS_PHF_DIRS)));
    if (check_kept_repeats(cfg, kept, err, len) != 0)
        return -1;
    struct tree_walk w = {(kept & PFS_MD_KEPT_TREE) != 0, (kept & PFS_MD_KEPT_FILES) != 0, 0};
    for (int i = 0; i < cfg->nphases; i++)
        if (tree_step(cfg, cfg->phases[i], &w, err, len) != 0)
            return -1;
    if (w.mkdirs && w.tree && (cfg->reps != 1 || cfg->warmup > 0))
        return pfs_fail(err, len, "--phases: the list repeats (-i, --warmup) and %s would make the tree the last "
                    "repetition kept; end the list with %s (after %s)", name_of(MAKES(PFS_PHF_DIRS)),
                    name_of(REMOVES(PFS_PHF_DIRS)), name_of(REMOVES(0)));
    return 0;
}

int pfs_phase_list_check(const struct pfs_config *cfg, char *err, size_t len)
{
    return check_needs(cfg, err, len) != 0 || check_tree(cfg, err, len) != 0 ? -1 : 0;
}

/* --file-name: a phase that writes (rewrite) before the write that makes
 * the files would write into files this run did not create. */
static int writes_theirs(const struct pfs_config *cfg, char *err, size_t len)
{
    for (int i = 0; i < cfg->nphases; i++)
        if (pfs_phase_is_write(cfg->phases[i]) && pfs_phase_has(cfg->phases[i], PFS_PHF_CREATES))
            break;
        else if (pfs_phase_is_write(cfg->phases[i]))
            return pfs_fail(err, len, "--file-name: %s before any write would write into files this run did not "
                            "create, which pfsbench never does; put write first (it makes them anew), or leave %s "
                            "out to read the files there", pfs_phase_name(cfg->phases[i]),
                            pfs_phase_name(cfg->phases[i]));
    return 0;
}

/* The order of data phases: a read with no write before it reads kept files of an earlier run. */
int pfs_phase_data_order(const struct pfs_config *cfg, char *err, size_t len)
{
    int first_write = -1, first_read = -1, data_phases = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        if (first_write < 0 && pfs_phase_is_write(cfg->phases[i]))
            first_write = i;
        if (first_read < 0 && pfs_phase_is_read(cfg->phases[i]))
            first_read = i;
        data_phases += !pfs_phase_is_meta(cfg->phases[i]) && !pfs_phase_has(cfg->phases[i], PFS_PHF_OWN_FILES);
    }
    if (cfg->file_name[0] && writes_theirs(cfg, err, len))
        return -1;
    if (cfg->run_id[0] || (cfg->file_name[0] && first_write < 0))
        return 0; /* a kept run's files, or --file-name's files there */
    if (first_write < 0 && data_phases)
        return pfs_fail(err, len, "phases without a write read files kept by an earlier run; give --run-id ID of that run (it ran with --keep)");
    if (first_write >= 0 && !pfs_phase_has(cfg->phases[first_write], PFS_PHF_CREATES) && (first_read < 0 || first_read >= first_write))
        return pfs_fail(err, len, "%s before any write overwrites files of an earlier run; put write first or give --run-id ID",
                    pfs_phase_name(cfg->phases[first_write]));
    if (first_read >= 0 && first_write >= 0 && first_read < first_write)
        return pfs_fail(err, len, "a read comes before the first write; put write first, or give --run-id ID of a kept earlier run");
    return 0;
}
