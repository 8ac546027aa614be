/* The option table, its one generic parser, and validation.
 * Help text, validation, pfs_config_describe (the report header and the
 * results file's config attribute) and --list-options=json all come from
 * the same tables: the options, the phases, the units (the fio way). */
#define _GNU_SOURCE
#include "pfs/config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pfs/names.h"

#include "config_table.h"

#define OFF(f) offsetof(struct pfs_config, f)
#define BLANK(f) (offsetof(struct pfs_config, f) + 1)
#define DESC(k, p, u) .key = k, .pos = p, .unit = u

/* --api's choices, in the order of enum pfs_api and of the run driver's
 * registry (src/mpi/backends.c); pfs_api_name gives each by its index. */
#define API_CHOICES "posix|mpiio|null"
static const char *const api_names[] = {"posix", "mpiio", "null"};

const char *pfs_api_name(int api)
{
    return api >= 0 && api < (int)(sizeof(api_names) / sizeof(api_names[0])) ? api_names[api] : "?";
}

const struct opt pfs_opt_table[] = {
    {"dir", 'd', T_STRING, OFF(dir), 0, 0, NULL, "DIR", "target directory; must exist (pfsbench creates only its own files)", DESC("dir", 1, NULL)},
    {"file-per-process", 'F', T_FLAG, OFF(shared), 0, 0, "0", NULL, "one file per stream: rank, or rank x thread (default)", DESC("mode", 2, NULL), .vals = "file-per-process|shared"},
    {"shared", 0, T_FLAG, OFF(shared), 0, 0, "1", NULL, "one file shared by all ranks", .key = "mode", .vals = "file-per-process|shared"},
    {"layout", 0, T_CHOICE, OFF(layout), 0, 0, "segmented|strided", "L", "shared-file layout: segmented (rank r owns [r*b,(r+1)*b)) or strided", DESC("layout", 3, NULL)},
    {"transfer", 't', T_SIZE, OFF(transfer), 0, 0, NULL, "SIZE", "bytes per I/O call (default 1m)", DESC("transfer", 4, "bytes")},
    {"block", 'b', T_SIZE, OFF(block), 0, 0, NULL, "SIZE", "bytes per rank, a multiple of the transfer (default 64m)", DESC("block", 5, "bytes")},
    {"total", 0, T_SIZE, OFF(total), 0, 0, NULL, "SIZE", "bytes over all ranks; block = total / ranks", DESC("total", 6, "bytes")},
    {"phases", 'p', T_PHASES, OFF(phases), 0, 0, NULL, "LIST", "comma list of write,rewrite,read,reread,create,stat,read-files,delete (default write,read)", DESC("phases", 7, NULL)},
    {"reps", 'i', T_INT, OFF(reps), 1, 1000000, NULL, "N", "repetitions of the phase list (default 1)", DESC("reps", 8, NULL)},
    {"fsync", 'e', T_FLAG, OFF(fsync), 0, 0, "1", NULL, "fsync before close, inside the timed region", DESC("fsync", 9, NULL)},
    {"include-close", 'c', T_ACTION, 0, 0, 0, NULL, NULL, "close is inside the timed region (always; accepted for IOzone users)", DESC("include_close", 23, NULL), .vals = "1"},
    {"keep", 'k', T_FLAG, OFF(keep), 0, 0, "1", NULL, "keep the data files (default: remove the files this run created)", DESC("keep", 10, NULL)},
    {"direct", 0, T_FLAG, OFF(direct), 0, 0, "1", NULL, "O_DIRECT; sizes must be multiples of the file system's alignment", DESC("direct", 11, NULL)},
    {"drop-caches", 0, T_FLAG, OFF(drop_caches), 0, 0, "1", NULL, "drop the page cache of each file before each read phase", DESC("drop_caches", 12, NULL)},
    {"verify", 0, T_FLAG, OFF(verify), 0, 0, "1", NULL, "write a checkable pattern and check every byte read", DESC("verify", 13, NULL)},
    {"random", 0, T_FLAG, OFF(random), 0, 0, "1", NULL, "visit each rank's transfers in a seeded random order", DESC("random", 14, NULL)},
    {"deadline", 'D', T_DOUBLE, OFF(deadline), 0.001, 1e9, NULL, "SECS", "stonewall: stop issuing transfers after SECS, then wear out to the largest count", DESC("deadline", 15, "seconds")},
    {"reorder", 'C', T_FLAG, OFF(reorder), 0, 0, "1", NULL, "read the data a rank on another node wrote", DESC("reorder", 16, NULL)},
    {"api", 'a', T_CHOICE, OFF(api), 0, 0, API_CHOICES, "API", "I/O interface (default posix); null moves no data and measures pfsbench's own cost", DESC("api", 17, NULL)},
    {"collective", 0, T_FLAG, OFF(collective), 0, 0, "1", NULL, "MPI-IO collective calls (with --shared)", DESC("collective", 18, NULL)},
    {"hint", 0, T_HINT, OFF(hints), 0, 0, NULL, "K=V", "MPI-IO hint, repeatable", DESC("hints", 19, NULL)},
    {"results", 'o', T_STRING, OFF(results), 0, 0, NULL, "FILE", "HDF5 results file (default pfsbench-results.h5)", DESC("results", 20, NULL), .blank = BLANK(no_results)},
    {"no-results", 0, T_FLAG, OFF(no_results), 0, 0, "1", NULL, "write no results file", .key = NULL},
    {"label", 0, T_STRING, OFF(label), 0, 0, NULL, "TEXT", "a label stored with the run", DESC("label", 21, NULL)},
    {"run-id", 0, T_STRING, OFF(run_id), 0, 0, NULL, "ID", "name the data files pfsbench.ID.*; reuse with -p read to read files kept earlier", .key = NULL},
    {"straggler", 0, T_DOUBLE, OFF(straggler), 0.01, 1.0, NULL, "F", "flag a node below F x the median node bandwidth (default 0.8)", DESC("straggler", 22, "fraction")},
    {"threads", 'T', T_INT, OFF(threads), 1, 4096, NULL, "N", "I/O threads per rank (gpfsperf -th); streams = ranks x N (default 1)", DESC("threads", 26, NULL)},
    {"files", 'n', T_INT, OFF(files), 1, 100000000, NULL, "N", "metadata phases: files per stream (default 1000)", DESC("files", 27, NULL)},
    {"file-size", 0, T_SIZE0, OFF(file_size), 0, 0, NULL, "SIZE", "metadata phases: bytes in each file (default 0: empty, like bonnie++ -n)", DESC("file_size", 28, "bytes")},
    {"dirs", 0, T_CHOICE, OFF(dirs), 0, 0, "shared|per-rank", "D", "metadata phases: one directory for all, or one per stream (default shared)", DESC("dirs", 29, NULL)},
    {"order", 0, T_CHOICE, OFF(md_random), 0, 0, "sequential|random", "O", "metadata phases: names in order, or a seeded permutation (default sequential)", DESC("order", 30, NULL)},
    {"format", 0, T_CHOICE, OFF(format), 0, 0, "text|json|csv", "F", "the report on stdout (default text); messages go to stderr", .key = NULL},
    {"units", 0, T_CHOICE, OFF(units), 0, 0, "MiB|KB|MB|GB", "U", "bandwidth unit: MiB/s (default), KB/s (1024 B/s, the seeds'), MB/s or GB/s (decimal)", .key = NULL},
    {"progress", 0, T_FLAG, OFF(progress), 0, 0, "1", NULL, "show the live progress line even when stdout is not a terminal", .key = NULL},
    {"timeout", 0, T_DOUBLE, OFF(timeout), 0.001, 1e9, NULL, "SECS", "watchdog: abort (exit 3) naming the ranks a phase waits for past SECS (default off)", DESC("timeout", 24, "seconds")},
    {"stall-warn", 0, T_DOUBLE, OFF(stall_warn), 0.01, 1e9, NULL, "SECS", "warn of a call blocked SECS or longer, e.g. on a storage server that stopped answering (default 10)", DESC("stall_warn", 25, "seconds")},
    {"force", 0, T_FLAG, OFF(force), 0, 0, "1", NULL, "accept a world-writable DIR without the sticky bit", .key = NULL},
    {"clean", 0, T_FLAG, OFF(clean), 0, 0, "1", NULL, "list pfsbench leftovers in DIR (remove them with --yes), then exit", .key = NULL},
    {"yes", 0, T_FLAG, OFF(yes), 0, 0, "1", NULL, "with --clean: remove the leftovers it lists", .key = NULL},
    {"any-owner", 0, T_FLAG, OFF(any_owner), 0, 0, "1", NULL, "with --clean: include leftovers owned by other users (default: only your own)", .key = NULL},
    {"quiet", 'q', T_FLAG, OFF(quiet), 0, 0, "1", NULL, "print only the summary", .key = NULL},
    {"verbose", 'v', T_FLAG, OFF(verbose), 0, 0, "1", NULL, "print the rank-to-node placement table", .key = NULL},
    {"list-options", 0, T_ACTION, 0, 0, 0, "json", "FORMAT", "print the options, phases, units, exit codes and file names for scripts, then exit", .key = NULL},
    {"help", 'h', T_ACTION, 0, 0, 0, NULL, NULL, "this help", .key = NULL},
    {"version", 0, T_ACTION, 0, 0, 0, NULL, NULL, "print the version", .key = NULL},
};
#define NOPTS (sizeof(pfs_opt_table) / sizeof(pfs_opt_table[0]))
const size_t pfs_opt_count = NOPTS;

/* One row per phase, in the order of enum pfs_phase. A new phase is a row
 * here plus its function in the stream layer. */
static const struct pfs_phase_desc phase_table[PFS_PH_KINDS] = {
    [PFS_PH_WRITE] = {"write", PFS_PHASE_DATA, PFS_PHF_WRITES | PFS_PHF_CREATES | PFS_PHF_STONEWALL | PFS_PHF_SETS_COUNT,
                      -1, "write", "write the data files (creating them) in -t transfers of -b bytes per stream"},
    [PFS_PH_REWRITE] = {"rewrite", PFS_PHASE_DATA, PFS_PHF_WRITES | PFS_PHF_STONEWALL, PFS_PH_WRITE, "write",
                        "write the existing data files again"},
    [PFS_PH_READ] = {"read", PFS_PHASE_DATA, PFS_PHF_READS | PFS_PHF_OTHERS | PFS_PHF_STONEWALL, PFS_PH_WRITE, "read",
                     "read the data files"},
    [PFS_PH_REREAD] = {"reread", PFS_PHASE_DATA, PFS_PHF_READS | PFS_PHF_OTHERS | PFS_PHF_STONEWALL, PFS_PH_WRITE, "read",
                       "read the data files again"},
    [PFS_PH_CREATE] = {"create", PFS_PHASE_META, PFS_PHF_CREATES | PFS_PHF_WRITES, -1, "create",
                       "create -n files per stream (writing --file-size bytes to each)"},
    [PFS_PH_STAT] = {"stat", PFS_PHASE_META, PFS_PHF_OTHERS, PFS_PH_CREATE, "stat", "stat each file"},
    [PFS_PH_READFILES] = {"read-files", PFS_PHASE_META, PFS_PHF_READS | PFS_PHF_OTHERS, PFS_PH_CREATE,
                          "open, read and close", "open each file, read its content, close it"},
    [PFS_PH_DELETE] = {"delete", PFS_PHASE_META, PFS_PHF_REMOVES, PFS_PH_CREATE, "delete", "delete each file"},
};

const struct pfs_phase_desc *pfs_phase_desc(int phase)
{
    return phase >= 0 && phase < PFS_PH_KINDS ? &phase_table[phase] : NULL;
}

int pfs_phase_find(const char *name, size_t len)
{
    for (int k = 0; k < PFS_PH_KINDS; k++)
        if (strlen(phase_table[k].name) == len && strncmp(name, phase_table[k].name, len) == 0)
            return k;
    return -1;
}

int pfs_phase_has(int phase, unsigned flags)
{
    const struct pfs_phase_desc *d = pfs_phase_desc(phase);
    return d && (d->flags & flags) == flags;
}

const char *pfs_phase_name(int phase)
{
    const struct pfs_phase_desc *d = pfs_phase_desc(phase);
    return d ? d->name : "?";
}

/* Data phases only: a metadata phase that reads or writes small files is
 * neither, so that a data phase's file, cache and count logic never applies to it. */
int pfs_phase_is_read(int phase) { return !pfs_phase_is_meta(phase) && pfs_phase_has(phase, PFS_PHF_READS); }
int pfs_phase_is_write(int phase) { return !pfs_phase_is_meta(phase) && pfs_phase_has(phase, PFS_PHF_WRITES); }
int pfs_phase_is_meta(int phase)
{
    const struct pfs_phase_desc *d = pfs_phase_desc(phase);
    return d && d->kind == PFS_PHASE_META;
}

const struct pfs_unit_row pfs_units_table[] = {
    {"MiB", "MiB/s", 1048576.0}, {"KB", "KB/s", 1024.0}, {"MB", "MB/s", 1e6}, {"GB", "GB/s", 1e9},
};
const int pfs_units_count = (int)(sizeof(pfs_units_table) / sizeof(pfs_units_table[0]));

const char *pfs_units_label(int units) { return pfs_units_table[units >= 0 && units < pfs_units_count ? units : 0].label; }
double pfs_units_scale(int units) { return pfs_units_table[units >= 0 && units < pfs_units_count ? units : 0].scale; }

/* Exit statuses as --help and --list-options=json say them (docs/usage.md too). */
const struct pfs_exit_row pfs_exit_table[] = {
    {PFS_EXIT_OK, "success"},
    {PFS_EXIT_IO, "I/O error or verification failure"},
    {PFS_EXIT_USAGE, "bad input"},
    {PFS_EXIT_TIMEOUT, "watchdog timeout"},
};
const size_t pfs_exit_count = sizeof(pfs_exit_table) / sizeof(pfs_exit_table[0]);
const char *const pfs_exit_signals[] = {"SIGHUP", "SIGINT", "SIGTERM", "SIGUSR1", "SIGUSR2"};
const size_t pfs_exit_nsignals = sizeof(pfs_exit_signals) / sizeof(pfs_exit_signals[0]);

void pfs_config_defaults(struct pfs_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->transfer = 1 << 20;
    cfg->block = 64 << 20;
    cfg->phases[0] = PFS_PH_WRITE;
    cfg->phases[1] = PFS_PH_READ;
    cfg->nphases = 2;
    cfg->reps = 1;
    cfg->straggler = 0.8;
    cfg->threads = 1;
    cfg->files = 1000;
    cfg->stall_warn = 10;
    snprintf(cfg->results, sizeof(cfg->results), "pfsbench-results.h5");
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

int pfs_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    int shift = 0;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: return -1;
    }
    if (*p != '\0' || v == 0)
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    v <<= shift;
    /* Offsets are off_t: keep every size well inside it. */
    if (v > (uint64_t)INT64_MAX / 2)
        return -1;
    *out = v;
    return 0;
}

void pfs_format_size(uint64_t b, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (u < 5 && b >= 1024 && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu %s", (unsigned long long)b, units[u]);
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

static int parse_phases(const char *s, struct pfs_config *cfg, char *err, size_t len)
{
    char tmp[512];
    if (strlen(s) >= sizeof(tmp))
        return fail(err, len, "--phases: list too long");
    strcpy(tmp, s);
    cfg->nphases = 0;
    char *save = NULL;
    for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = pfs_phase_find(tok, strlen(tok));
        if (k < 0) {
            char all[256];
            size_t n = 0;
            for (int j = 0; j < PFS_PH_KINDS && n < sizeof(all); j++)
                n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", j ? "," : "", phase_table[j].name);
            return fail(err, len, "--phases: unknown phase '%s'; use a comma list of %s", tok, all);
        }
        if (cfg->nphases == PFS_MAX_PHASES)
            return fail(err, len, "--phases: at most %d phases", PFS_MAX_PHASES);
        cfg->phases[cfg->nphases++] = k;
    }
    if (cfg->nphases == 0 || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
        return fail(err, len, "--phases: empty phase in '%s'; use e.g. -p write,read", s);
    return 0;
}

/* The index of arg among choices "a|b|c", or -1. */
static int choice_index(const char *choices, const char *arg)
{
    const char *c = choices;
    for (int idx = 0; c && *c; idx++) {
        size_t n = strcspn(c, "|");
        if (strlen(arg) == n && strncmp(arg, c, n) == 0)
            return idx;
        c += n + (c[n] == '|');
    }
    return -1;
}

/* The idx-th name of "a|b|c": its length, and *name; 0 when there is none. */
size_t pfs_opt_choice_name(const char *choices, int idx, const char **name)
{
    const char *c = choices;
    for (int i = 0; c && *c; i++) {
        size_t n = strcspn(c, "|");
        if (i == idx) {
            *name = c;
            return n;
        }
        c += n + (c[n] == '|');
    }
    return 0;
}

static int set_opt(const struct opt *o, const char *arg, struct pfs_config *cfg, char *err, size_t len)
{
    char *field = (char *)cfg + o->off;
    char *end;
    switch (o->type) {
    case T_FLAG:
        *(int *)field = atoi(o->choices);
        return 0;
    case T_SIZE0:
        if (strcmp(arg, "0") == 0) {
            *(uint64_t *)field = 0;
            return 0;
        }
        /* fall through */
    case T_SIZE:
        if (pfs_parse_size(arg, (uint64_t *)field) != 0)
            return fail(err, len, "--%s: '%s' is not a size; give a positive whole number with an optional k, m, g or t (1024-based), e.g. 4m", o->name, arg);
        if (o->off == OFF(block))
            cfg->block_given = 1;
        return 0;
    case T_INT: {
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (errno || end == arg || *end || v < o->min || v > o->max)
            return fail(err, len, "--%s: '%s' is not a whole number from %.0f to %.0f", o->name, arg, o->min, o->max);
        *(int *)field = (int)v;
        return 0;
    }
    case T_DOUBLE: {
        errno = 0;
        double v = strtod(arg, &end);
        if (errno || end == arg || *end || !isfinite(v) || v < o->min || v > o->max)
            return fail(err, len, "--%s: '%s' is not a number from %g to %g", o->name, arg, o->min, o->max);
        *(double *)field = v;
        return 0;
    }
    case T_STRING: {
        size_t cap = o->off == OFF(label) ? sizeof(cfg->label)
                   : o->off == OFF(run_id) ? sizeof(cfg->run_id) : PFS_PATH_MAX;
        if (!*arg)
            return fail(err, len, "--%s: empty value", o->name);
        if (strlen(arg) >= cap)
            return fail(err, len, "--%s: value longer than %zu characters", o->name, cap - 1);
        if (o->off == OFF(run_id) && !pfs_run_id_valid(arg))
            return fail(err, len, "--run-id: '%s' may hold only letters, digits, '-' and '_'", arg);
        strcpy(field, arg);
        return 0;
    }
    case T_PHASES:
        return parse_phases(arg, cfg, err, len);
    case T_CHOICE: {
        int idx = choice_index(o->choices, arg);
        if (idx < 0)
            return fail(err, len, "--%s: '%s' is not one of %s", o->name, arg, o->choices);
        *(int *)field = idx;
        return 0;
    }
    case T_HINT: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return fail(err, len, "--hint: '%s' is not key=value, e.g. --hint striping_factor=4", arg);
        if (cfg->nhints == PFS_MAX_HINTS)
            return fail(err, len, "--hint: at most %d hints", PFS_MAX_HINTS);
        if (strlen(arg) >= sizeof(cfg->hints[0]))
            return fail(err, len, "--hint: '%s' is too long", arg);
        if (pfs_hint_check(arg, err, len) < 0)
            return -1;
        strcpy(cfg->hints[cfg->nhints++], arg);
        return 0;
    }
    case T_ACTION:
        /* An action that takes a value takes one of its choices. */
        if (o->arg && arg && choice_index(o->choices, arg) < 0)
            return fail(err, len, "--%s: '%s' is not one of %s", o->name, arg, o->choices);
        return 0;
    }
    return 0;
}

/* A metadata phase that works on files needs the phase that makes them
 * earlier in the list. (A data phase may instead read or rewrite the files
 * a kept run left: pfs_config_parse checks those with --run-id in mind.) */
static int check_needs(const struct pfs_config *cfg, char *err, size_t len)
{
    for (int i = 0; i < cfg->nphases; i++) {
        const struct pfs_phase_desc *d = pfs_phase_desc(cfg->phases[i]);
        if (d->kind != PFS_PHASE_META || d->needs < 0)
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

/* What a run's options must agree on (after the actions and --clean). 0 or -1 with err. */
static int check_run(const struct pfs_config *cfg, int total_given, char *err, size_t len)
{
    if (total_given && cfg->block_given)
        return fail(err, len, "--total and -b/--block both given; give one (block = total / ranks)");
    if (cfg->collective && cfg->api != PFS_API_MPIIO)
        return fail(err, len, "--collective needs --api mpiio");
    if (cfg->nhints && cfg->api != PFS_API_MPIIO)
        return fail(err, len, "--hint needs --api mpiio");
    if (cfg->layout == PFS_LAYOUT_STRIDED && !cfg->shared)
        return fail(err, len, "--layout strided needs --shared (a file per process is always contiguous)");
    if (cfg->threads > 1 && cfg->api == PFS_API_MPIIO)
        return fail(err, len, "--threads with --api mpiio would need MPI_THREAD_MULTIPLE; use --api posix with threads, or ranks instead");
    if (cfg->shared && cfg->dirs == PFS_DIRS_PER_RANK)
        return fail(err, len, "--shared and --dirs per-rank contradict each other; give one");
    if (check_needs(cfg, err, len) != 0)
        return -1;
    if (cfg->no_results && strcmp(cfg->results, "pfsbench-results.h5") != 0)
        return fail(err, len, "--results and --no-results both given; give one");
    /* A read with no write before it in the list reads kept files of an earlier run. */
    int first_write = -1, first_read = -1;
    for (int i = 0; i < cfg->nphases; i++) {
        if (first_write < 0 && pfs_phase_is_write(cfg->phases[i]))
            first_write = i;
        if (first_read < 0 && pfs_phase_is_read(cfg->phases[i]))
            first_read = i;
    }
    int data_phases = 0;
    for (int i = 0; i < cfg->nphases; i++)
        data_phases += !pfs_phase_is_meta(cfg->phases[i]);
    if (first_write < 0 && data_phases && !cfg->run_id[0])
        return fail(err, len, "phases without a write read files kept by an earlier run; give --run-id ID of that run (it ran with --keep)");
    if (first_write >= 0 && !pfs_phase_has(cfg->phases[first_write], PFS_PHF_CREATES) && (first_read < 0 || first_read > first_write)
        && !cfg->run_id[0])
        return fail(err, len, "rewrite before any write overwrites files of an earlier run; put write first or give --run-id ID");
    if (first_read >= 0 && first_write >= 0 && first_read < first_write && !cfg->run_id[0])
        return fail(err, len, "a read comes before the first write; put write first, or give --run-id ID of a kept earlier run");
    return 0;
}

enum pfs_parse_result pfs_config_parse(struct pfs_config *cfg, int argc, char **argv,
                                       char *err, size_t errlen)
{
    struct option lopts[NOPTS + 1];
    char sopts[3 * NOPTS + 2];
    size_t sp = 0;
    sopts[sp++] = ':'; /* report a missing value as ':' */
    for (size_t i = 0; i < NOPTS; i++) {
        int has_arg = pfs_opt_table[i].type == T_FLAG || (pfs_opt_table[i].type == T_ACTION && !pfs_opt_table[i].arg) ? no_argument
                                                                                          : required_argument;
        lopts[i] = (struct option){pfs_opt_table[i].name, has_arg, NULL, 256 + (int)i};
        if (pfs_opt_table[i].shrt) {
            sopts[sp++] = (char)pfs_opt_table[i].shrt;
            if (has_arg == required_argument)
                sopts[sp++] = ':';
        }
    }
    lopts[NOPTS] = (struct option){0, 0, 0, 0};
    sopts[sp] = '\0';

    pfs_config_defaults(cfg);
    err[0] = '\0';
    optind = 0; /* glibc: full reinitialisation, so tests can parse many times */
    opterr = 0;
    int want_help = 0, want_version = 0, want_list = 0, total_given = 0;
    for (;;) {
        int c = getopt_long(argc, argv, sopts, lopts, NULL);
        if (c == -1)
            break;
        if (c == '?') {
            /* glibc sets optopt to the option's val (256 + index) when a
             * long option that takes no value is given one (--keep=1). */
            if (optopt >= 256 && optopt < 256 + (int)NOPTS)
                fail(err, errlen, "option '--%s' takes no value; see pfsbench --help", pfs_opt_table[optopt - 256].name);
            else if (optopt)
                fail(err, errlen, "unknown option '-%c'; see pfsbench --help", optopt);
            else
                fail(err, errlen, "unknown option '%s'; see pfsbench --help", argv[optind - 1]);
            return PFS_PARSE_ERROR;
        }
        if (c == ':') {
            fail(err, errlen, "option '%s' needs a value; see pfsbench --help", argv[optind - 1]);
            return PFS_PARSE_ERROR;
        }
        const struct opt *o = NULL;
        if (c >= 256)
            o = &pfs_opt_table[c - 256];
        else
            for (size_t i = 0; i < NOPTS; i++)
                if (pfs_opt_table[i].shrt == c)
                    o = &pfs_opt_table[i];
        if (!o)
            continue;
        if (strcmp(o->name, "help") == 0)
            want_help = 1;
        else if (strcmp(o->name, "version") == 0)
            want_version = 1;
        else if (strcmp(o->name, "list-options") == 0)
            want_list = 1;
        if (o->off == OFF(total))
            total_given = 1;
        if (set_opt(o, optarg, cfg, err, errlen) != 0)
            return PFS_PARSE_ERROR;
    }
    if (want_help)
        return PFS_PARSE_HELP;
    if (want_version)
        return PFS_PARSE_VERSION;
    if (want_list) {
        /* Nothing of the rest of the line applies: a caller that does not
         * know this result yet finds no directory and runs nothing. */
        pfs_config_defaults(cfg);
        return PFS_PARSE_LIST_OPTIONS;
    }
    if (optind < argc) {
        fail(err, errlen, "unexpected argument '%s'; options take the form -d DIR or --dir DIR", argv[optind]);
        return PFS_PARSE_ERROR;
    }
    if (!cfg->dir[0]) {
        fail(err, errlen, "no target directory; give -d DIR");
        return PFS_PARSE_ERROR;
    }
    if (cfg->yes && !cfg->clean) {
        fail(err, errlen, "--yes goes with --clean DIR");
        return PFS_PARSE_ERROR;
    }
    if (cfg->any_owner && !cfg->clean) {
        fail(err, errlen, "--any-owner goes with --clean DIR");
        return PFS_PARSE_ERROR;
    }
    if (cfg->clean)
        return PFS_PARSE_RUN;
    return check_run(cfg, total_given, err, errlen) != 0 ? PFS_PARSE_ERROR : PFS_PARSE_RUN;
}

int pfs_config_resolve(struct pfs_config *cfg, int nranks, char *err, size_t len)
{
    char a[32], b[32];
    if (nranks < 1)
        return fail(err, len, "no ranks");
    /* The unit of work is the stream (rank x thread): --total divides by streams. */
    uint64_t streams = (uint64_t)nranks * (uint64_t)(cfg->threads > 0 ? cfg->threads : 1);
    if (cfg->total) {
        if (cfg->total % streams)
            return fail(err, len, "--total %llu bytes does not divide by %llu %s; choose a total that is a multiple of %s x transfer",
                        (unsigned long long)cfg->total, (unsigned long long)streams,
                        cfg->threads > 1 ? "streams (ranks x threads)" : "ranks", cfg->threads > 1 ? "streams" : "ranks");
        cfg->block = cfg->total / streams;
    } else {
        if (cfg->block > UINT64_MAX / streams || cfg->block * streams > (uint64_t)INT64_MAX / 2)
            return fail(err, len, "block x ranks overflows a file offset; use a smaller -b");
        cfg->total = cfg->block * streams;
    }
    pfs_format_size(cfg->transfer, a, sizeof(a));
    pfs_format_size(cfg->block, b, sizeof(b));
    if (cfg->transfer > cfg->block)
        return fail(err, len, "transfer (%s) is larger than the block per rank (%s); use -t no larger than -b", a, b);
    if (cfg->block % cfg->transfer)
        return fail(err, len, "block per rank (%s) is not a multiple of the transfer (%s); make -b (or --total / ranks) a multiple of -t", b, a);
    if (cfg->block / cfg->transfer > (uint64_t)INT64_MAX / 4)
        return fail(err, len, "too many transfers per rank");
    return 0;
}

int pfs_config_check_dir(const struct pfs_config *cfg, char *err, size_t len)
{
    struct stat st;
    if (lstat(cfg->dir, &st) != 0)
        return fail(err, len, "target directory '%s' does not exist (%s); create it first", cfg->dir, strerror(errno));
    if (S_ISLNK(st.st_mode) && stat(cfg->dir, &st) != 0)
        return fail(err, len, "target directory '%s' is a dangling symbolic link", cfg->dir);
    if (!S_ISDIR(st.st_mode))
        return fail(err, len, "target '%s' is not a directory; give -d an existing directory", cfg->dir);
    struct statvfs vfs;
    if (statvfs(cfg->dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
        return fail(err, len, "target directory '%s' is on a read-only file system", cfg->dir);
    /* Another user could plant files or links there between our checks and
     * our opens; the sticky bit stops them from replacing ours. */
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) && !cfg->force)
        return fail(err, len, "target directory '%s' is world-writable without the sticky bit; "
                    "anyone could replace pfsbench's files there: use another directory or --force", cfg->dir);
    if (access(cfg->dir, W_OK | X_OK) != 0)
        return fail(err, len, "target directory '%s' is not writable (%s)", cfg->dir, strerror(errno));
    return 0;
}

void pfs_config_usage(FILE *out)
{
    fprintf(out, "usage: mpirun -np N pfsbench -d DIR [options]\n\n"
                 "Sequential bandwidth and metadata rates of a parallel file system: N ranks (x threads),\n"
                 "a file each or one shared file, phases separated by barriers, results in HDF5.\n"
                 "SIZE takes k, m, g, t (1024-based).\n\noptions:\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char left[64];
        if (pfs_opt_table[i].shrt)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", pfs_opt_table[i].shrt, pfs_opt_table[i].name,
                     pfs_opt_table[i].arg ? " " : "", pfs_opt_table[i].arg ? pfs_opt_table[i].arg : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", pfs_opt_table[i].name,
                     pfs_opt_table[i].arg ? " " : "", pfs_opt_table[i].arg ? pfs_opt_table[i].arg : "");
        if (pfs_opt_table[i].type == T_CHOICE || (pfs_opt_table[i].type == T_ACTION && pfs_opt_table[i].arg))
            fprintf(out, "  %-26s %s; %s is one of %s\n", left, pfs_opt_table[i].help, pfs_opt_table[i].arg, pfs_opt_table[i].choices);
        else
            fprintf(out, "  %-26s %s\n", left, pfs_opt_table[i].help);
    }
    fprintf(out, "\nexit status:");
    for (size_t i = 0; i < pfs_exit_count; i++)
        fprintf(out, " %d %s,", pfs_exit_table[i].code, pfs_exit_table[i].meaning);
    fprintf(out, "\n128+N interrupted by signal N (");
    for (size_t i = 0; i < pfs_exit_nsignals; i++)
        fprintf(out, "%s%s", i ? ", " : "", pfs_exit_signals[i]);
    fprintf(out, ")\n");
}

/* A buffer written like snprintf: n counts what the whole needs. */
struct sink {
    char *buf;
    size_t len, n;
};

static void sput(struct sink *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(k->buf + (k->n < k->len ? k->n : k->len), k->n < k->len ? k->len - k->n : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        k->n += (size_t)w;
}

/* An option's value as describe writes it. */
static void put_value(struct sink *k, const struct opt *o, const struct pfs_config *cfg)
{
    const char *field = (const char *)cfg + o->off, *name = "";
    size_t n;
    if (o->blank && *(const int *)((const char *)cfg + o->blank - 1))
        return;
    switch (o->type) {
    case T_STRING: sput(k, "%s", field); break;
    case T_SIZE:
    case T_SIZE0: sput(k, "%llu", (unsigned long long)*(const uint64_t *)field); break;
    case T_INT: sput(k, "%d", *(const int *)field); break;
    case T_DOUBLE: sput(k, "%g", *(const double *)field); break;
    case T_FLAG:
        if (o->vals && (n = pfs_opt_choice_name(o->vals, *(const int *)field != 0, &name)))
            sput(k, "%.*s", (int)n, name);
        else
            sput(k, "%d", *(const int *)field);
        break;
    case T_CHOICE: {
        int idx = *(const int *)field;
        if (!(n = pfs_opt_choice_name(o->choices, idx, &name)))
            n = pfs_opt_choice_name(o->choices, 0, &name);
        sput(k, "%.*s", (int)n, name);
        break;
    }
    case T_PHASES:
        for (int i = 0; i < cfg->nphases; i++)
            sput(k, "%s%s", i ? "," : "", pfs_phase_name(cfg->phases[i]));
        break;
    case T_HINT:
        for (int i = 0; i < cfg->nhints; i++)
            sput(k, "%s%s", i ? ";" : "", cfg->hints[i]);
        break;
    case T_ACTION: sput(k, "%s", o->vals ? o->vals : ""); break;
    }
}

size_t pfs_config_describe(const struct pfs_config *cfg, char *buf, size_t len)
{
    struct sink k = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    /* In the order of pos, which the results files already hold. */
    for (int pos = 1;; pos++) {
        const struct opt *o = NULL;
        for (size_t i = 0; i < NOPTS && !o; i++)
            if (pfs_opt_table[i].key && pfs_opt_table[i].pos == pos)
                o = &pfs_opt_table[i];
        if (!o)
            break;
        sput(&k, "%s=", o->key);
        put_value(&k, o, cfg);
        sput(&k, "\n");
    }
    return k.n;
}

size_t pfs_opt_value(const struct opt *o, const struct pfs_config *cfg, char *buf, size_t len)
{
    struct sink k = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    put_value(&k, o, cfg);
    return k.n;
}
