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
#include "pfs/content.h"
#include "pfs/dist.h"
#include "pfs/ratesweep.h"
#include "pfs/report.h"
#include "pfs/sched.h"
#include "pfs/units.h"

#include "config_table.h"

int pfs_fail(char *err, size_t len, const char *fmt, ...)
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
    const size_t k = strlen(line);
    /* resolve may run more than once on one cfg: a warning is said once */
    for (const char *p = cfg->warnings; (p = strstr(p, line)); p++)
        if ((p == cfg->warnings || p[-1] == '\n') && p[k] == '\n')
            return;
    pfs_warn_append(cfg->warnings, sizeof(cfg->warnings), line);
}

/* Room is always kept for the note, so it is the list's last line once a
 * line no longer fits whole. */
static const char warn_more[] = "further warnings left out: the list is full";

void pfs_warn_append(char *list, size_t cap, const char *line)
{
    const size_t n = strlen(list), k = strlen(line), m = sizeof(warn_more) - 1;
    if (n >= m + 1 && strncmp(list + n - m - 1, warn_more, m) == 0)
        return; /* full already */
    if (n + k + 1 + m + 2 <= cap) {
        memcpy(list + n, line, k);
        memcpy(list + n + k, "\n", 2);
    } else if (n + m + 2 <= cap) {
        memcpy(list + n, warn_more, m);
        memcpy(list + n + m, "\n", 2);
    }
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
                return pfs_fail(err, len, "--hint %s: '%s' is not a positive whole number of %s", key, val,
                            strstr(key, "size") || strstr(key, "unit") ? "bytes" : "units");
        if (pfs_parse_size(val, &v) != 0)
            return pfs_fail(err, len, "--hint %s: '%s' is not a positive whole number", key, val);
        return 1;
    }
    case H_SWITCH:
        if (strcmp(val, "enable") && strcmp(val, "disable") && strcmp(val, "automatic"))
            return pfs_fail(err, len, "--hint %s: '%s' is not one of enable|disable|automatic", key, val);
        return 1;
    case H_BOOL:
        if (strcmp(val, "true") && strcmp(val, "false"))
            return pfs_fail(err, len, "--hint %s: '%s' is not one of true|false", key, val);
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
    {'s', 1, "IOR's segment count: --segments N, with -b N x IOR's -b; IOzone's -s file size is -b SIZE"},
    {'Q', 1, "IOR's task per node offset: -C reads another node's data"},
    {'E', 0, "IOR's use existing file: -p read --file-name PATH"},
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

/* --buffer-compress and --dedupe cut each transfer in units and chunks:
 * a transfer they cannot cut is refused before anything is made. */
static int check_content(const struct pfs_config *cfg, char *err, size_t len)
{
    struct pfs_content ct;
    char why[200];
    if (!pfs_config_content(cfg) ||
        pfs_content_run(&ct, cfg->buffer_compress, cfg->dedupe, cfg->transfer, 0, why, sizeof(why)) == 0)
        return 0;
    return pfs_fail(err, len, "--buffer-compress %d --dedupe %d with -t %llu: %s", cfg->buffer_compress, cfg->dedupe,
                    (unsigned long long)cfg->transfer, why);
}

/* One rate (--rate's, or a point of --rate-sweep's) within the pace the
 * loop keeps. */
static int check_pace(const struct pfs_config *cfg, const char *opt, double rate, int unit, char *err, size_t len)
{
    const double mean = pfs_config_xfer_mean(cfg, -1);
    const double ops = unit == PFS_RATE_BYTES ? rate / mean : rate;
    if (ops < 1e-3 || ops > 1e9)
        return pfs_fail(err, len, "%s %g%s is %g transfers per second of %g bytes%s; pace between 0.001 and 1e9", opt,
                        rate, unit == PFS_RATE_BYTES ? " bytes/s" : "", ops, mean,
                        cfg->bssplit[0] ? " (--bssplit's mean)" : " (-t)");
    return 0;
}

/* --rate-sweep: a repetition per point, so the repetitions are its own. */
static int check_sweep(const struct pfs_config *cfg, char *err, size_t len)
{
    struct pfs_sweep sw;
    if (cfg->rate[0])
        return pfs_fail(err, len, "--rate and --rate-sweep both given; give one (the sweep runs each of its rates)");
    if (pfs_sweep_parse(cfg->rate_sweep, &sw, err, len) != 0)
        return -1;
    if (cfg->reps != 1 || cfg->warmup != 0)
        return pfs_fail(err, len, "--rate-sweep runs one repetition per point (%d here); -i/--reps and --warmup do "
                        "not apply: give a point twice to repeat it", pfs_sweep_reps(&sw));
    for (int i = 0; i < sw.n && !sw.pct; i++)
        if (check_pace(cfg, "--rate-sweep point", sw.val[i], sw.unit, err, len) != 0)
            return -1;
    return 0;
}

/* --latency-target: one phase searched, its repetitions the search's. */
static int check_target(const struct pfs_config *cfg, char *err, size_t len)
{
    struct pfs_lat_goal g;
    if (cfg->rate[0] || cfg->rate_sweep[0])
        return pfs_fail(err, len, "--latency-target and %s both given: the search chooses the rates", cfg->rate[0] ?
                        "--rate" : "--rate-sweep");
    if (pfs_lat_goal_parse(cfg->lat_target, &g, err, len) != 0)
        return -1;
    if (cfg->reps != 1 || cfg->warmup != 0)
        return pfs_fail(err, len, "--latency-target runs a closed-loop repetition and then up to %d searched ones; "
                        "-i/--reps and --warmup do not apply", PFS_TARGET_RUNS);
    if (cfg->nphases != 1)
        return pfs_fail(err, len, "--latency-target searches the rate of one phase; -p has %d (run a write first "
                        "with --keep, then search the read with --run-id)", cfg->nphases);
    return 0;
}

/* --rate (or --rate-sweep) paces the transfers of the stream's data phases
 * (pfs/sched.h). */
static int check_rate(const struct pfs_config *cfg, char *err, size_t len)
{
    double rate;
    int unit;
    char why[200], names[256];
    const char *opt = cfg->lat_target[0] ? "--latency-target" : cfg->rate_sweep[0] ? "--rate-sweep" : "--rate";
    if (!cfg->rate[0] && !cfg->rate_sweep[0] && !cfg->lat_target[0])
        return 0;
    if (cfg->lat_target[0] && check_target(cfg, err, len) != 0)
        return -1;
    if (cfg->rate_sweep[0] && check_sweep(cfg, err, len) != 0)
        return -1;
    if (cfg->rate[0] && pfs_rate_parse(cfg->rate, &rate, &unit, why, sizeof(why)) != 0)
        return pfs_fail(err, len, "--rate %s", why);
    if (cfg->rate[0] && check_pace(cfg, "--rate", rate, unit, err, len) != 0)
        return -1;
    if (pfs_phase_listed(cfg, PFS_PHASE_META, 0, 0) || pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_OWN_FILES, 0)) {
        pfs_phase_names(names, sizeof(names), ", ", PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES);
        return pfs_fail(err, len, "%s paces the transfers of the data phases (%s); the phase list has a phase it "
                        "cannot pace: run that one in a section or run of its own", opt, names);
    }
    if (cfg->deadline > 0)
        return pfs_fail(err, len, "%s and -D/--deadline both given: the stonewall's wear-out runs to a count, "
                        "not at a rate; bound a paced phase with --runtime SECS", opt);
    return 0;
}

int pfs_check_run(const struct pfs_config *cfg, int total_given, char *err, size_t len)
{
    if (total_given && cfg->block_given)
        return pfs_fail(err, len, "--total and -b/--block both given; give one (block = total / ranks)");
    if (cfg->layout == PFS_LAYOUT_STRIDED && !cfg->shared)
        return pfs_fail(err, len, "--layout strided needs --shared (a file per process is always contiguous)");
    if (cfg->reorder_seed >= 0 && cfg->reorder_nodes > 1)
        return pfs_fail(err, len, "--reorder-seed and --reorder-nodes both given; give one (the seed's permutation puts "
                    "each reader on another node where it can, --reorder-nodes N reads N nodes on at a fixed shift)");
    if (cfg->layout == PFS_LAYOUT_STRIDED && cfg->segments > 1)
        return pfs_fail(err, len, "--segments %d and --layout strided both given; give one (strided is segments of one "
                    "transfer: --segments b/t)", cfg->segments);
    /* What the chosen backend cannot do (--collective, --hint, --direct,
     * --threads) and its own options: its capability flags and check.
     * A backend of a layer this program lacks (mpiio in a plain process) is
     * checked by the program that has it. */
    const struct pfs_backend *be = pfs_backend_at(cfg->api);
    if (be && pfs_backend_check(be, cfg, err, len) != 0)
        return -1;
    /* What each phase in the list asks of the options (src/core/phases/). */
    if (pfs_phase_checks(cfg, err, len) != 0)
        return -1;
    if (check_content(cfg, err, len) != 0 || pfs_bssplit_check(cfg, 1, err, len) != 0)
        return -1;
    if (cfg->rmw && cfg->collective)
        return pfs_fail(err, len, "--rmw and --collective both given; give one (a rank whose read came back short would "
                    "skip its collective write and leave the others waiting in it)");
    if (cfg->runtime > 0 && cfg->deadline > 0)
        return pfs_fail(err, len, "--runtime and -D/--deadline both given; give one (--runtime runs each data phase for "
                    "SECS, wrapping around the block; -D stops issuing after SECS, then wears out to the largest count)");
    if (cfg->ramp > 0 && cfg->runtime > 0 && cfg->ramp >= cfg->runtime)
        return pfs_fail(err, len, "--ramp %g is not shorter than --runtime %g: nothing would be left to measure", cfg->ramp,
                    cfg->runtime);
    if (cfg->ramp > 0 && cfg->deadline > 0 && cfg->ramp >= cfg->deadline)
        return pfs_fail(err, len, "--ramp %g is not shorter than -D %g: the stonewall would stop the streams inside the "
                    "ramp, before anything is measured", cfg->ramp, cfg->deadline);
    if (cfg->stonewall_file[0] && !pfs_phase_listed(cfg, PFS_PHASE_DATA, 0, 0))
        return pfs_fail(err, len, "--stonewall-file records or reads the transfers of data phases; the phase list has none");
    if (cfg->stonewall_file[0] && cfg->runtime > 0)
        return pfs_fail(err, len, "--stonewall-file and --runtime both given: --runtime wraps around the block, so no "
                    "count of transfers says what the files hold; use -D");
    if (cfg->file_per_rep && !cfg->file_name[0])
        return pfs_fail(err, len, "--file-per-rep names --file-name's files per repetition: give --file-name PATH");
    if (cfg->file_per_rep && cfg->reps == 0)
        return pfs_fail(err, len, "--file-per-rep and --reps auto: the repetitions' files must be named before the "
                    "run, and auto does not know how many; give -i N");
    if (cfg->shared && cfg->dirs == PFS_DIRS_PER_RANK)
        return pfs_fail(err, len, "--shared and --dirs per-rank contradict each other; give one");
    if (pfs_phase_list_check(cfg, err, len) != 0)
        return -1;
    if (check_rate(cfg, err, len) != 0)
        return -1;
    if (cfg->no_results && strcmp(cfg->results, "pfsbench-results.h5") != 0)
        return pfs_fail(err, len, "--results and --no-results both given; give one");
    return pfs_phase_data_order(cfg, err, len);
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

int pfs_opt_given(const unsigned char *given, const char *name)
{
    for (size_t i = 0; i < pfs_opt_count; i++)
        if (strcmp(pfs_opt_table[i].name, name) == 0)
            return given[i];
    return 0;
}

/* "OPTION does nothing without a WHAT phase in -p (the phases that have
 * flags, of kind)": the list is the phase registry's. */
static void warn_without(struct pfs_config *cfg, const char *option, const char *what, int kind, unsigned flags,
                         unsigned without)
{
    char names[256];
    pfs_phase_names(names, sizeof(names), ", ", kind, flags, without);
    pfs_config_warn(cfg, "%s does nothing without a %s phase in -p (%s)", option, what, names);
}

/* The options of the metadata phases and of their --depth tree. */
static void check_unused_meta(struct pfs_config *cfg, const unsigned char *given)
{
    const int meta = pfs_phase_listed(cfg, PFS_PHASE_META, 0, 0);
    static const char *const md[] = {"files", "file-size", "dirs", "order", "depth", "branch", "leaf-only"};
    char nm[64];
    for (size_t i = 0; i < sizeof(md) / sizeof(md[0]); i++)
        if (!meta && pfs_opt_given(given, md[i]))
            warn_without(cfg, opt_names(md[i], nm, sizeof(nm)), "metadata", PFS_PHASE_META, 0, 0);
    static const char *const tree[] = {"branch", "leaf-only"};
    for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
        if (meta && cfg->md_depth == 0 && pfs_opt_given(given, tree[i]))
            pfs_config_warn(cfg, "--%s does nothing without --depth 1 or more (a flat directory has no tree)", tree[i]);
    char names[256];
    pfs_phase_names(names, sizeof(names), ", ", PFS_PHASE_META, 0, PFS_PHF_DIRS);
    if (meta && !pfs_phase_listed(cfg, PFS_PHASE_META, 0, PFS_PHF_DIRS) && pfs_opt_given(given, "leaf-only"))
        pfs_config_warn(cfg, "--leaf-only does nothing without a file phase in -p (%s): it places files", names);
}

/* The options of the data phases, as the flags of the phases in the list say. */
static void check_unused_data(struct pfs_config *cfg, const unsigned char *given)
{
    /* The checkpoint's phases (OWN_FILES) take none of these three. */
    const int data = pfs_phase_listed(cfg, PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES);
    if (!data && pfs_opt_given(given, "runtime"))
        warn_without(cfg, "--runtime", "data", PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES);
    if (!data && pfs_opt_given(given, "ramp"))
        warn_without(cfg, "--ramp", "data", PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES);
    if (!data && pfs_opt_given(given, "file-name"))
        warn_without(cfg, "--file-name", "data", PFS_PHASE_DATA, 0, PFS_PHF_OWN_FILES);
    char names[128];
    pfs_phase_names(names, sizeof(names), " or ", PFS_PHASE_ANY, PFS_PHF_RMW, 0);
    if (!pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_RMW, 0) && pfs_opt_given(given, "rmw"))
        pfs_config_warn(cfg, "--rmw does nothing without a %s phase in -p", names);
    /* The options a phase owns (the seeks phase's --seeks). */
    pfs_phase_warnings(cfg, given);
    if (!pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_SYNCS, 0) && pfs_opt_given(given, "fsync-every"))
        warn_without(cfg, "--fsync-every", "write", PFS_PHASE_ANY, PFS_PHF_SYNCS, 0);
    /* Of the data files' phases: the checkpoint's (OWN_FILES) take neither. */
    if (!pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_WRITES, PFS_PHF_OWN_FILES) && pfs_opt_given(given, "sync"))
        warn_without(cfg, "--sync", "write", PFS_PHASE_DATA, PFS_PHF_WRITES, PFS_PHF_OWN_FILES);
    /* The content: what the writes write, and what --verify's reads expect
     * (of kept files: give the options they were written with). */
    static const char *const content[] = {"buffer-compress", "dedupe"};
    const int checks = cfg->verify && pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_READS, PFS_PHF_OWN_FILES);
    for (size_t i = 0; i < sizeof(content) / sizeof(content[0]); i++)
        if (!checks && !pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_WRITES, PFS_PHF_OWN_FILES) &&
            pfs_opt_given(given, content[i])) {
            char opt[32];
            snprintf(opt, sizeof(opt), "--%s", content[i]);
            warn_without(cfg, opt, "write", PFS_PHASE_DATA, PFS_PHF_WRITES, PFS_PHF_OWN_FILES);
        }
    if (!pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_READS, PFS_PHF_OWN_FILES) && pfs_opt_given(given, "drop-caches"))
        warn_without(cfg, "--drop-caches", "read", PFS_PHASE_DATA, PFS_PHF_READS, PFS_PHF_OWN_FILES);
}

/* --random-dist draws the offsets of the phases over a block a write laid
 * out: rewrite, read and reread with --random, and seeks (which draws its
 * own, no --random needed; it alone has no wear-out). Not the write's, nor
 * the checkpoint's. */
static void check_unused_dist(struct pfs_config *cfg, const unsigned char *given)
{
    int used = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        const int k = cfg->phases[i];
        if (pfs_phase_is_meta(k) || pfs_phase_has(k, PFS_PHF_CREATES) || pfs_phase_has(k, PFS_PHF_OWN_FILES))
            continue;
        /* seeks draws its own offsets; rwmix, like read, only with --random */
        used |= cfg->random || (!pfs_phase_has(k, PFS_PHF_WEARS_OUT) && !pfs_phase_has(k, PFS_PHF_MIXES));
    }
    if (!used && pfs_opt_given(given, "random-dist"))
        pfs_config_warn(cfg, "--random-dist does nothing here: it draws the offsets of rewrite, read, reread and rwmix "
                        "with --random (-z), and of seeks; the write lays the whole block out once, whatever it is");
}

/* --bssplit sizes the transfers of the phases over a block a write laid
 * out (not the write's, nor the checkpoint's); --rwmix is the rwmix
 * phase's. */
static void check_unused_mix(struct pfs_config *cfg, const unsigned char *given)
{
    int sized = 0;
    for (int i = 0; i < cfg->nphases; i++)
        sized |= pfs_phase_sized(cfg->phases[i]);
    if (!sized && pfs_opt_given(given, "bssplit"))
        pfs_config_warn(cfg, "--bssplit does nothing here: it sizes the transfers of rewrite, read, reread, rwmix and "
                        "seeks; the write lays the whole block out in -t transfers");
    if (!pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_MIXES, 0) && pfs_opt_given(given, "rwmix"))
        pfs_config_warn(cfg, "--rwmix does nothing without the rwmix phase in -p (e.g. -p write,rwmix)");
}

/* --format ior and mdtest print their tools' tables, which have no row
 * for some phases: those run, measured and stored, but not on stdout. */
static void check_unshown(struct pfs_config *cfg)
{
    char names[256];
    if (!pfs_report_unshown(cfg, names, sizeof(names)))
        return;
    const int ior = cfg->format == PFS_FORMAT_IOR;
    pfs_config_warn(cfg, "--format %s has no row for %s: %s tables show %s; the results file and --format text, "
                    "json and csv have every phase", ior ? "ior" : "mdtest", names, ior ? "IOR's" : "mdtest's",
                    ior ? "write and read (rewrite and reread as rows of their own)"
                        : "its file, directory and tree phases");
}

void pfs_check_unused(struct pfs_config *cfg, const unsigned char *given)
{
    const int read = pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_READS, 0);
    check_unused_meta(cfg, given);
    check_unused_data(cfg, given);
    check_unused_dist(cfg, given);
    check_unused_mix(cfg, given);
    check_unshown(cfg);
    char names[256];
    pfs_phase_names(names, sizeof(names), ", ", PFS_PHASE_ANY, PFS_PHF_OTHERS, 0);
    if (!pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_OTHERS, 0) && pfs_opt_given(given, "reorder"))
        pfs_config_warn(cfg, "-C/--reorder does nothing without a phase that reads what another rank made in -p "
                        "(%s)", names);
    if (!read && pfs_opt_given(given, "verify"))
        pfs_config_warn(cfg, "--verify without a read phase in -p checks nothing: the writes write its checkable "
                        "pattern anyway (its time taken out of the timed region); add read to check it");
    if (!pfs_phase_listed(cfg, PFS_PHASE_ANY, PFS_PHF_STONEWALL, 0) && pfs_opt_given(given, "deadline"))
        pfs_config_warn(cfg, "-D/--deadline does nothing without a phase it stops in -p: the stonewall stops the data "
                        "phases and create");
    static const char *const paced[] = {"rate-scope", "arrivals"};
    for (size_t i = 0; i < sizeof(paced) / sizeof(paced[0]); i++)
        if (!cfg->rate[0] && !cfg->rate_sweep[0] && !cfg->lat_target[0] && pfs_opt_given(given, paced[i]))
            pfs_config_warn(cfg, "--%s does nothing without --rate, --rate-sweep or --latency-target", paced[i]);
    if (!cfg->reorder && pfs_opt_given(given, "reorder-nodes"))
        pfs_config_warn(cfg, "--reorder-nodes does nothing without -C/--reorder");
    if (!cfg->reorder && pfs_opt_given(given, "reorder-seed"))
        pfs_config_warn(cfg, "--reorder-seed does nothing without -C/--reorder");
    if (cfg->reps == 1 && cfg->warmup == 0 && pfs_opt_given(given, "rep-delay"))
        pfs_config_warn(cfg, "--rep-delay does nothing with one repetition: it sleeps between two (give -i 2 or more)");
    static const char *const autos[] = {"ci", "max-reps"};
    for (size_t i = 0; i < sizeof(autos) / sizeof(autos[0]); i++)
        if (cfg->reps > 0 && pfs_opt_given(given, autos[i]))
            pfs_config_warn(cfg, "--%s does nothing without --reps auto: -i %d runs the phase list %d time%s", autos[i],
                            cfg->reps, cfg->reps, cfg->reps == 1 ? "" : "s");
    if (pfs_opt_given(given, "transfer") && cfg->transfer < 512)
        pfs_config_warn(cfg, "-t %llu is a transfer of %llu bytes per I/O call; IOzone's -t (a thread count) is "
                        "--threads N here (or pfsbench iozone ... for IOzone's command line)",
                        (unsigned long long)cfg->transfer, (unsigned long long)cfg->transfer);
}
