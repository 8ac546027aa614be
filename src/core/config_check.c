/* What pfs_config_parse (config.c) checks: the values of the MPI-IO hints
 * pfsbench knows; after the option loop, a run's
 * options must agree (check_run), options that do nothing in the chosen
 * phases are warned about, and an option pfsbench does not have is named
 * with what it means in IOR, mdtest or IOzone and pfsbench's equivalent
 * (the trap table), or with the long option it is nearest to. */
#include "pfs/config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pfs/backend.h"

#include "config_table.h"

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

void pfs_config_warn(struct pfs_config *cfg, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    size_t n = strlen(cfg->warnings), k = strlen(line);
    /* resolve may run more than once on one cfg: a warning is said once */
    for (const char *p = cfg->warnings; (p = strstr(p, line)); p++)
        if ((p == cfg->warnings || p[-1] == '\n') && p[k] == '\n')
            return;
    if (n + k + 2 > sizeof(cfg->warnings))
        return;
    memcpy(cfg->warnings + n, line, k);
    cfg->warnings[n + k] = '\n';
    cfg->warnings[n + k + 1] = '\0';
}

/* Hints whose values pfsbench can check. MPI-IO libraries echo any hint back
 * from MPI_File_get_info, so a typo in a value would pass silently. */
enum hint_kind { H_INT, H_SWITCH, H_BOOL };
static const struct {
    const char *key;
    enum hint_kind kind;
} known_hints[] = {
    {"striping_factor", H_INT},     {"striping_unit", H_INT},      {"start_iodevice", H_INT},
    {"cb_nodes", H_INT},            {"cb_buffer_size", H_INT},     {"ind_rd_buffer_size", H_INT},
    {"ind_wr_buffer_size", H_INT},  {"romio_lustre_co_ratio", H_INT},
    {"romio_cb_read", H_SWITCH},    {"romio_cb_write", H_SWITCH},  {"romio_ds_read", H_SWITCH},
    {"romio_ds_write", H_SWITCH},   {"romio_lustre_ds_in_coll", H_SWITCH},
    {"romio_no_indep_rw", H_BOOL},  {"direct_read", H_BOOL},       {"direct_write", H_BOOL},
    {"collective_buffering", H_BOOL}, {"romio_visibility_immediate", H_BOOL},
};

static int hint_lookup(const char *kv, char *key, size_t keylen, const char **val)
{
    const char *eq = strchr(kv, '=');
    size_t n = eq ? (size_t)(eq - kv) : strlen(kv);
    if (n >= keylen)
        n = keylen - 1;
    memcpy(key, kv, n);
    key[n] = '\0';
    *val = eq ? eq + 1 : "";
    for (size_t i = 0; i < sizeof(known_hints) / sizeof(known_hints[0]); i++)
        if (strcmp(known_hints[i].key, key) == 0)
            return (int)i;
    return -1;
}

int pfs_hint_known(const char *kv)
{
    char key[128];
    const char *val;
    return hint_lookup(kv, key, sizeof(key), &val) >= 0;
}

int pfs_hint_check(const char *kv, char *err, size_t len)
{
    char key[128];
    const char *val;
    int i = hint_lookup(kv, key, sizeof(key), &val);
    if (i < 0)
        return 0;
    switch ((int)known_hints[i].kind) {
    case H_INT: {
        uint64_t v;
        for (const char *p = val; *p; p++)
            if (*p < '0' || *p > '9')
                return fail(err, len, "--hint %s: '%s' is not a positive whole number of %s", key, val,
                            strstr(key, "size") || strstr(key, "unit") ? "bytes" : "units");
        if (pfs_parse_size(val, &v) != 0)
            return fail(err, len, "--hint %s: '%s' is not a positive whole number", key, val);
        return 1;
    }
    case H_SWITCH:
        if (strcmp(val, "enable") && strcmp(val, "disable") && strcmp(val, "automatic"))
            return fail(err, len, "--hint %s: '%s' is not one of enable|disable|automatic", key, val);
        return 1;
    case H_BOOL:
        if (strcmp(val, "true") && strcmp(val, "false"))
            return fail(err, len, "--hint %s: '%s' is not one of true|false", key, val);
        return 1;
    default:
        return 1;
    }
}

/* Options that IOR, mdtest or IOzone have under a letter pfsbench does not
 * give them: what the letter meant there and what to use here. A letter
 * that takes a value in its tool takes an attached one here (-T10), so that
 * its digits are not read as letters; a separate value is left over as an
 * argument, which is not reported beside the option it belongs to. */
static const struct pfs_trap traps[] = {
    {'T', 1, "IOR's -T is a time limit in minutes (pfsbench: -D SECS, the stonewall); threads per rank are --threads N"},
    {'w', 0, "IOR's write phase: use -p write (or pfsbench ior ... for IOR's command line)"},
    {'r', 0, "IOR's read phase: use -p read (or pfsbench ior ... for IOR's command line); IOzone's -r record size is -t SIZE"},
    {'W', 0, "IOR's check write: --verify"},
    {'R', 0, "IOR's check read: --verify"},
    {'z', 0, "IOR's random offsets: --random"},
    {'Y', 0, "IOR's fsync per write: --fsync-every 1 (-e is fsync at close)"},
    {'u', 0, "mdtest's unique dir per task: --dirs per-rank"},
    {'N', 1, "mdtest/IOR task count: mpirun -np"},
    {'s', 1, "IOR's segment count: see pfsbench ior -s; IOzone's -s file size is -b SIZE"},
    {'Q', 1, "IOR's task per node offset: -C reads another node's data"},
    {'E', 0, "IOR's use existing file: --run-id ID with -p read"},
    {'g', 0, "IOR's intra-test barriers: always on in pfsbench"},
    {'O', 1, "IOR's -O options: see pfsbench ior"},
    {'B', 0, "IOR's O_DIRECT: --direct"},
    {'I', 0, "IOzone's O_DIRECT: --direct (mdtest's -I items per directory: -n N)"},
};
const struct pfs_trap *const pfs_traps = traps;
const size_t pfs_ntraps = sizeof(traps) / sizeof(traps[0]);

const struct pfs_trap *pfs_trap_find(int letter)
{
    for (size_t i = 0; i < pfs_ntraps; i++)
        if (traps[i].letter == letter)
            return &traps[i];
    return NULL;
}

/* Levenshtein distance of a[0..an) and b, at most 63 characters each. */
static size_t distance(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b), row[64];
    if (an > 63 || bn > 63)
        return 99;
    for (size_t j = 0; j <= bn; j++)
        row[j] = j;
    for (size_t i = 1; i <= an; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= bn; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[bn];
}

const char *pfs_opt_nearest(const char *word)
{
    while (*word == '-')
        word++;
    size_t n = strcspn(word, "=");
    const char *best = NULL;
    size_t bd = 99;
    const struct pfs_opt *o;
    int api;
    for (size_t i = 0; (o = pfs_opt_at(i, &api)); i++) { /* a backend's options too */
        size_t d = distance(word, n, o->name);
        if (d < bd)
            bd = d, best = o->name;
    }
    /* near enough to be a typo: two edits, fewer for a short word */
    return best && bd <= 2 && bd * 3 <= n + 1 ? best : NULL;
}

int pfs_results_name_ok(const char *name)
{
    static const char *const ext[] = {".h5", ".hdf5", ".he5"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t k = strlen(ext[i]);
        if (n > k && strcasecmp(name + n - k, ext[i]) == 0 && name[n - k - 1] != '/')
            return 1;
    }
    return 0;
}

/* A metadata phase that works on files needs the phase that makes them
 * earlier in the list. (A data phase may instead read or rewrite the files
 * a kept run left: check_run checks those with --run-id in mind.) */
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
    if (first_file >= 0 && first_file != PFS_PH_CREATE)
        kept |= PFS_MD_KEPT_FILES;
    if (cfg->md_depth > 0 && first_meta >= 0 && first_meta != PFS_PH_MKDIR)
        kept |= PFS_MD_KEPT_TREE;
    return kept;
}

static int check_needs(const struct pfs_config *cfg, char *err, size_t len)
{
    const unsigned kept = pfs_config_md_kept(cfg);
    for (int i = 0; i < cfg->nphases; i++) {
        const struct pfs_phase_desc *d = pfs_phase_desc(cfg->phases[i]);
        if (d->kind != PFS_PHASE_META || d->needs < 0)
            continue;
        /* A kept run's files or tree (--run-id) are there before the first phase. */
        if ((d->needs == PFS_PH_CREATE && (kept & PFS_MD_KEPT_FILES)) || (d->needs == PFS_PH_MKDIR && (kept & PFS_MD_KEPT_TREE)))
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = cfg->phases[j] == d->needs;
        if (!seen)
            return fail(err, len, "--phases: %s needs %s before it in the list (e.g. -p create,stat,delete)", d->name,
                        pfs_phase_name(d->needs));
    }
    return 0;
}

uint64_t pfs_config_tree_dirs(const struct pfs_config *cfg)
{
    uint64_t n = 0, level = 1, b = (uint64_t)(cfg->md_branch > 0 ? cfg->md_branch : 1);
    for (int k = 1; k <= cfg->md_depth; k++) {
        if (level > (UINT64_C(1) << 62) / b)
            return UINT64_MAX;
        level *= b;
        n += level;
    }
    return n;
}

/* A list over kept metadata that removes it (delete, rmdir) cannot repeat
 * without making it again: the second repetition would find nothing. */
static int check_kept_repeats(const struct pfs_config *cfg, unsigned kept, char *err, size_t len)
{
    if (!kept || (cfg->reps == 1 && cfg->warmup == 0))
        return 0;
    int del = 0, rmd = 0, cre = 0, mkd = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        del |= cfg->phases[i] == PFS_PH_DELETE, rmd |= cfg->phases[i] == PFS_PH_RMDIR;
        cre |= cfg->phases[i] == PFS_PH_CREATE, mkd |= cfg->phases[i] == PFS_PH_MKDIR;
    }
    if (((kept & PFS_MD_KEPT_FILES) && del && !cre) || ((kept & PFS_MD_KEPT_TREE) && rmd && !mkd))
        return fail(err, len, "--phases: %s removes the kept %s of run %s, and the list repeats (-i, --warmup, --reps "
                    "auto): the second repetition would find none; run it once", del && !cre ? "delete" : "rmdir",
                    del && !cre ? "files" : "tree", cfg->run_id);
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
        return fail(err, len, "--depth %d --branch %d is a tree of more than 100000000 directories per stream",
                    cfg->md_depth, cfg->md_branch);
    const unsigned kept = pfs_config_md_kept(cfg);
    if ((kept & PFS_MD_KEPT_FILES) && cfg->md_depth > 0 && !(kept & PFS_MD_KEPT_TREE))
        return fail(err, len, "--phases: the kept files of run %s lie in its kept tree, which mkdir would make "
                    "anew: drop mkdir", cfg->run_id);
    if (check_kept_repeats(cfg, kept, err, len) != 0)
        return -1;
    int tree = (kept & PFS_MD_KEPT_TREE) != 0, files = (kept & PFS_MD_KEPT_FILES) != 0, mkdirs = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        const int k = cfg->phases[i];
        const int dirs = pfs_phase_has(k, PFS_PHF_DIRS);
        if (dirs && cfg->md_depth == 0)
            return fail(err, len, "--phases: %s needs --depth 1 or more (the tree of directories it works on)",
                        pfs_phase_name(k));
        if (k == PFS_PH_MKDIR) {
            if (tree)
                return fail(err, len, "--phases: mkdir twice without rmdir between (the tree is there already)");
            tree = 1, mkdirs = 1;
            continue;
        }
        if (pfs_phase_is_meta(k) && !tree && (dirs || cfg->md_depth > 0))
            return fail(err, len, "--phases: %s with --depth %d needs mkdir before it (the tree it works on), "
                        "e.g. -p mkdir,create,stat,delete,rmdir", pfs_phase_name(k), cfg->md_depth);
        if (k == PFS_PH_CREATE)
            files = 1;
        else if (k == PFS_PH_DELETE)
            files = 0;
        else if (k == PFS_PH_RMDIR) {
            if (files)
                return fail(err, len, "--phases: rmdir after create needs delete between them (the tree's "
                            "directories must be empty)");
            tree = 0;
        }
    }
    if (mkdirs && tree && (cfg->reps != 1 || cfg->warmup > 0))
        return fail(err, len, "--phases: the list repeats (-i, --warmup) and mkdir would make the tree the last "
                    "repetition kept; end the list with rmdir (after delete)");
    return 0;
}

/* The order of data phases: a read with no write before it reads kept files of an earlier run. */
static int check_order(const struct pfs_config *cfg, char *err, size_t len)
{
    int first_write = -1, first_read = -1, data_phases = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        if (first_write < 0 && pfs_phase_is_write(cfg->phases[i]))
            first_write = i;
        if (first_read < 0 && pfs_phase_is_read(cfg->phases[i]))
            first_read = i;
        data_phases += !pfs_phase_is_meta(cfg->phases[i]);
    }
    if (cfg->run_id[0])
        return 0;
    if (first_write < 0 && data_phases)
        return fail(err, len, "phases without a write read files kept by an earlier run; give --run-id ID of that run (it ran with --keep)");
    if (first_write >= 0 && !pfs_phase_has(cfg->phases[first_write], PFS_PHF_CREATES) && (first_read < 0 || first_read >= first_write))
        return fail(err, len, "%s before any write overwrites files of an earlier run; put write first or give --run-id ID",
                    pfs_phase_name(cfg->phases[first_write]));
    if (first_read >= 0 && first_write >= 0 && first_read < first_write)
        return fail(err, len, "a read comes before the first write; put write first, or give --run-id ID of a kept earlier run");
    return 0;
}

int pfs_check_run(const struct pfs_config *cfg, int total_given, char *err, size_t len)
{
    if (total_given && cfg->block_given)
        return fail(err, len, "--total and -b/--block both given; give one (block = total / ranks)");
    if (cfg->layout == PFS_LAYOUT_STRIDED && !cfg->shared)
        return fail(err, len, "--layout strided needs --shared (a file per process is always contiguous)");
    /* What the chosen backend cannot do (--collective, --hint, --direct,
     * --threads) and its own options: its capability flags and check.
     * A backend of a layer this program lacks (mpiio in a plain process) is
     * checked by the program that has it. */
    const struct pfs_backend *be = pfs_backend_at(cfg->api);
    if (be && pfs_backend_check(be, cfg, err, len) != 0)
        return -1;
    if (pfs_config_has_phase(cfg, PFS_PH_SEEKS) && cfg->collective)
        return fail(err, len, "the seeks phase and --collective both given; give one (streams do different seek "
                    "counts and write back at different seeks, which collective calls cannot follow)");
    if (pfs_config_has_phase(cfg, PFS_PH_CREATE) && cfg->keep && cfg->deadline > 0 && cfg->md_random)
        return fail(err, len, "-k with a create that -D may stop, in --order random: the files kept would be a "
                    "random subset of the -n names, which no later --run-id run can find; give --order "
                    "sequential (the first files are kept) or drop -D or -k");
    if (cfg->rmw && cfg->collective)
        return fail(err, len, "--rmw and --collective both given; give one (a rank whose read came back short would "
                    "skip its collective write and leave the others waiting in it)");
    if (cfg->runtime > 0 && cfg->deadline > 0)
        return fail(err, len, "--runtime and -D/--deadline both given; give one (--runtime runs each data phase for "
                    "SECS, wrapping around the block; -D stops issuing after SECS, then wears out to the largest count)");
    if (cfg->ramp > 0 && cfg->runtime > 0 && cfg->ramp >= cfg->runtime)
        return fail(err, len, "--ramp %g is not shorter than --runtime %g: nothing would be left to measure", cfg->ramp,
                    cfg->runtime);
    /* The ramp leaves out the transfer that ends it: with one per stream
     * nothing is left, however fast or slow it goes. */
    const int blocks = pfs_config_has_phase(cfg, PFS_PH_WRITE) || pfs_config_has_phase(cfg, PFS_PH_REWRITE) ||
                       pfs_config_has_phase(cfg, PFS_PH_READ) || pfs_config_has_phase(cfg, PFS_PH_REREAD);
    if (cfg->ramp > 0 && cfg->runtime <= 0 && blocks && cfg->block <= cfg->transfer)
        return fail(err, len, "--ramp %g with one transfer per stream (-b equals -t): the ramp leaves out the transfer "
                    "that ends it, so nothing would be left to measure; give -b several transfers or --runtime",
                    cfg->ramp);
    if (cfg->ramp > 0 && cfg->deadline > 0 && cfg->ramp >= cfg->deadline)
        return fail(err, len, "--ramp %g is not shorter than -D %g: the stonewall would stop the streams inside the "
                    "ramp, before anything is measured", cfg->ramp, cfg->deadline);
    if (cfg->shared && cfg->dirs == PFS_DIRS_PER_RANK)
        return fail(err, len, "--shared and --dirs per-rank contradict each other; give one");
    if (check_needs(cfg, err, len) != 0 || check_tree(cfg, err, len) != 0)
        return -1;
    if (cfg->no_results && strcmp(cfg->results, "pfsbench-results.h5") != 0)
        return fail(err, len, "--results and --no-results both given; give one");
    return check_order(cfg, err, len);
}

/* "-n/--files" or "--file-size": how the option is named in a warning. */
static const char *opt_names(const char *name, char *buf, size_t len)
{
    for (size_t i = 0; i < pfs_opt_count; i++)
        if (strcmp(pfs_opt_table[i].name, name) == 0 && pfs_opt_table[i].shrt) {
            snprintf(buf, len, "-%c/--%s", pfs_opt_table[i].shrt, name);
            return buf;
        }
    snprintf(buf, len, "--%s", name);
    return buf;
}

static int given_by_name(const unsigned char *given, const char *name)
{
    for (size_t i = 0; i < pfs_opt_count; i++)
        if (strcmp(pfs_opt_table[i].name, name) == 0)
            return given[i];
    return 0;
}

void pfs_check_unused(struct pfs_config *cfg, const unsigned char *given)
{
    unsigned any = 0;
    int meta = 0, read = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        any |= pfs_phase_desc(cfg->phases[i])->flags;
        meta |= pfs_phase_is_meta(cfg->phases[i]);
        read |= pfs_phase_is_read(cfg->phases[i]);
    }
    static const char *const md[] = {"files", "file-size", "dirs", "order", "depth", "branch", "leaf-only"};
    char nm[64];
    for (size_t i = 0; i < sizeof(md) / sizeof(md[0]); i++)
        if (!meta && given_by_name(given, md[i]))
            pfs_config_warn(cfg, "%s does nothing without a metadata phase in -p (create, stat, read-files, find, delete, mkdir, "
                            "stat-dirs, rmdir)",
                            opt_names(md[i], nm, sizeof(nm)));
    static const char *const tree[] = {"branch", "leaf-only"};
    for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
        if (meta && cfg->md_depth == 0 && given_by_name(given, tree[i]))
            pfs_config_warn(cfg, "--%s does nothing without --depth 1 or more (a flat directory has no tree)", tree[i]);
    int files = 0;
    for (int i = 0; i < cfg->nphases; i++)
        files |= pfs_phase_is_meta(cfg->phases[i]) && !pfs_phase_has(cfg->phases[i], PFS_PHF_DIRS);
    if (meta && !files && given_by_name(given, "leaf-only"))
        pfs_config_warn(cfg, "--leaf-only does nothing without a file phase in -p (create, stat, read-files, find, "
                        "delete): it places files");
    int write = 0;
    for (int i = 0; i < cfg->nphases; i++)
        write |= pfs_phase_is_write(cfg->phases[i]);
    /* write or rewrite: the seeks' write-backs take no --fsync-every */
    const int wphase = pfs_config_has_phase(cfg, PFS_PH_WRITE) || pfs_config_has_phase(cfg, PFS_PH_REWRITE);
    int data = 0;
    for (int i = 0; i < cfg->nphases; i++)
        data |= !pfs_phase_is_meta(cfg->phases[i]);
    if (!data && given_by_name(given, "runtime"))
        pfs_config_warn(cfg, "--runtime does nothing without a data phase in -p (write, rewrite, read, reread)");
    if (!data && given_by_name(given, "ramp"))
        pfs_config_warn(cfg, "--ramp does nothing without a data phase in -p (write, rewrite, read, reread)");
    if (!pfs_config_has_phase(cfg, PFS_PH_REWRITE) && given_by_name(given, "rmw"))
        pfs_config_warn(cfg, "--rmw does nothing without a rewrite phase in -p");
    const int seeks = pfs_config_has_phase(cfg, PFS_PH_SEEKS);
    int queued = 0;
    for (int i = 0; i < cfg->nphases; i++)
        queued |= !pfs_phase_is_meta(cfg->phases[i]) && cfg->phases[i] != PFS_PH_SEEKS;
    if (!seeks && given_by_name(given, "seeks"))
        pfs_config_warn(cfg, "--seeks does nothing without a seeks phase in -p");
    if (seeks && cfg->runtime > 0 && given_by_name(given, "seeks"))
        pfs_config_warn(cfg, "--seeks does nothing with --runtime: the seeks phase seeks for --runtime seconds");
    if (seeks && !queued && cfg->iodepth > 1)
        pfs_config_warn(cfg, "--iodepth %d does nothing in the seeks phase: each seek is a read (and every 10th a "
                        "write) in turn, as bonnie++'s", cfg->iodepth);
    if (!wphase && given_by_name(given, "fsync-every"))
        pfs_config_warn(cfg, "--fsync-every does nothing without a write phase in -p (write, rewrite)");
    if (!write && given_by_name(given, "sync"))
        pfs_config_warn(cfg, "--sync does nothing without a write phase in -p (write, rewrite)");
    if (!read && given_by_name(given, "drop-caches"))
        pfs_config_warn(cfg, "--drop-caches does nothing without a read phase in -p (read, reread)");
    if (!(any & PFS_PHF_OTHERS) && given_by_name(given, "reorder"))
        pfs_config_warn(cfg, "-C/--reorder does nothing without a phase that reads what another rank made in -p "
                        "(read, reread, stat, read-files)");
    if (!read && given_by_name(given, "verify"))
        pfs_config_warn(cfg, "--verify without a read phase in -p checks nothing: the writes write its checkable "
                        "pattern anyway (its time taken out of the timed region); add read to check it");
    if (!(any & PFS_PHF_STONEWALL) && given_by_name(given, "deadline"))
        pfs_config_warn(cfg, "-D/--deadline does nothing without a phase it stops in -p: the stonewall stops the data "
                        "phases and create");
    static const char *const autos[] = {"ci", "max-reps"};
    for (size_t i = 0; i < sizeof(autos) / sizeof(autos[0]); i++)
        if (cfg->reps > 0 && given_by_name(given, autos[i]))
            pfs_config_warn(cfg, "--%s does nothing without --reps auto: -i %d runs the phase list %d time%s", autos[i],
                            cfg->reps, cfg->reps, cfg->reps == 1 ? "" : "s");
    if (given_by_name(given, "transfer") && cfg->transfer < 512)
        pfs_config_warn(cfg, "-t %llu is a transfer of %llu bytes per I/O call; IOzone's -t (a thread count) is "
                        "--threads N here (or pfsbench iozone ... for IOzone's command line)",
                        (unsigned long long)cfg->transfer, (unsigned long long)cfg->transfer);
}
