/* The one generic parser over the option table (config_table.c), and the
 * checks a run's options must pass before anything is created. */
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

#include "pfs/backend.h"
#include "pfs/names.h"

#include "config_table.h"

#define NOPTS pfs_opt_count
#define OFF(f) offsetof(struct pfs_config, f)

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
    cfg->iodepth = 1;
    cfg->files = 1000;
    cfg->stall_warn = 10;
    cfg->interval = 1;
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
                n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", j ? "," : "", pfs_phase_name(j));
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

size_t pfs_opt_choice(const struct opt *o, int idx, const char **name)
{
    if (!o->registry)
        return pfs_opt_choice_name(o->choices, idx, name);
    if (idx < 0 || idx >= pfs_backend_count())
        return 0;
    *name = pfs_backend_name(idx);
    return strlen(*name);
}

const char *pfs_opt_choices_text(const struct opt *o, char *buf, size_t len)
{
    size_t n = 0, k;
    const char *name;
    if (len)
        buf[0] = '\0';
    for (int i = 0; (k = pfs_opt_choice(o, i, &name)) != 0 && n < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%.*s", i ? "|" : "", (int)k, name);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
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
        char all[256];
        int idx = o->registry ? pfs_backend_index(arg) : choice_index(o->choices, arg);
        if (idx < 0)
            return fail(err, len, "--%s: '%s' is not one of %s", o->name, arg, pfs_opt_choices_text(o, all, sizeof(all)));
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
    if (cfg->layout == PFS_LAYOUT_STRIDED && !cfg->shared)
        return fail(err, len, "--layout strided needs --shared (a file per process is always contiguous)");
    /* What the chosen backend cannot do (--collective, --hint, --direct,
     * --threads) and its own options: its capability flags and check.
     * A backend of a layer this program lacks (mpiio in a plain process) is
     * checked by the program that has it. */
    const struct pfs_backend *be = pfs_backend_at(cfg->api);
    if (be && pfs_backend_check(be, cfg, err, len) != 0)
        return -1;
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
    struct option lopts[PFS_OPT_MAX + 1];
    char sopts[3 * PFS_OPT_MAX + 2];
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
    const struct opt *owned = NULL; /* the first option given that a backend owns */
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
        if (o->api && !owned)
            owned = o;
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
    if (cfg->stop_on_error && !cfg->job[0]) {
        fail(err, errlen, "--stop-on-error goes with -f JOBFILE");
        return PFS_PARSE_ERROR;
    }
    if (cfg->job[0]) /* the sections say the rest; each is parsed on its own */
        return PFS_PARSE_JOB;
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
    if (owned && strcmp(owned->api, pfs_backend_name(cfg->api)) != 0) {
        fail(err, errlen, "--%s is an option of --api %s (not available with --api %s)", owned->name, owned->api,
             pfs_backend_name(cfg->api));
        return PFS_PARSE_ERROR;
    }
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

