/* The one generic parser over the option table (config_table.c); the
 * checks a run's options must pass before anything is created, the
 * warnings and the trap table of other tools' letters are config_check.c's. */
#define _GNU_SOURCE
#include "pfs/config.h"
#include "pfs/exemplar.h"
#include "pfs/ratesweep.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pfs/backend.h"
#include "pfs/dist.h"
#include "pfs/names.h"

#include "config_table.h"

#define NOPTS pfs_opt_count
#define OFF(f) offsetof(struct pfs_config, f)

void pfs_config_defaults(struct pfs_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->transfer = 1 << 20;
    cfg->block = 64 << 20;
    cfg->nphases = pfs_phase_defaults(cfg->phases);
    cfg->reps = 1;
    cfg->ci = 5;
    cfg->max_reps = 20;
    cfg->straggler = 0.8;
    cfg->threads = 1;
    cfg->iodepth = 1;
    cfg->exemplars = PFS_EXEMPLAR_K_DEFAULT;
    cfg->files = 1000;
    cfg->seeks = 8000;
    cfg->rwmix = 50;
    cfg->reorder_nodes = 1;
    cfg->segments = 1;
    cfg->reorder_seed = -1;
    cfg->md_branch = 1;
    cfg->ckpt_zero = -1;
    cfg->train_compute = -1;
    cfg->accelerators = 1;
    cfg->prefetch = 2;
    cfg->stall_warn = 10;
    cfg->interval = 1;
    snprintf(cfg->results, sizeof(cfg->results), "pfsbench-results.h5");
    pfs_opt_defaults(cfg->api, cfg->backend_opts);
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

/* What is wrong with the option words (unknown options, a value missing
 * or given to a flag), one line each, and the first bad value: reported
 * together, so that a line of another tool's options is answered once. */
struct problems {
    char text[PFS_ERRLEN];
    size_t n;
    int count, shown, repeats; /* repeats: lines told already, counted once */
    char value[PFS_ERRLEN]; /* the first value an option refused */
};

#define PROBLEMS_SHOWN 16 /* lines told; the rest are counted ("and N more") */

static int told_already(const char *text, const char *line, size_t ln)
{
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        if (n == ln && strncmp(l, line, ln) == 0)
            return 1;
        l += n + (l[n] == '\n');
    }
    return 0;
}

/* Keeps whole lines only: a line that does not fit, a line told already,
 * and every line past PROBLEMS_SHOWN are counted but not told. */
static void problem(struct problems *p, const char *fmt, ...)
{
    p->count++;
    if (p->shown >= PROBLEMS_SHOWN)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (w <= 0)
        return;
    size_t ln = strlen(line);
    if (p->n + 1 + ln >= sizeof(p->text))
        return;
    if (told_already(p->text, line, ln)) {
        p->repeats++;
        return;
    }
    if (p->n)
        p->text[p->n++] = '\n';
    memcpy(p->text + p->n, line, ln + 1);
    p->n += ln;
    p->shown++;
}

/* An option word getopt did not take: a letter (IOR's, mdtest's or
 * IOzone's meaning of it where one of them has it) or a long word (the
 * long options it is near or is the start of). */
static void unknown_option(struct problems *p, int letter, const char *word)
{
    if (letter) {
        const struct pfs_trap *t = pfs_trap_find(letter);
        if (t)
            problem(p, "unknown option '-%c': %s", letter, t->hint);
        else
            problem(p, "unknown option '-%c'", letter);
        return;
    }
    size_t n = strcspn(word + 2, "=");
    char many[256] = "";
    size_t k = 0;
    const struct pfs_opt *o;
    int api;
    for (size_t i = 0; (o = pfs_opt_at(i, &api)) && k < sizeof(many); i++)
        if (n && strncmp(o->name, word + 2, n) == 0) {
            int w = snprintf(many + k, sizeof(many) - k, "%s--%s", k ? ", " : "", o->name);
            k += w > 0 ? (size_t)w : 0;
        }
    const char *near = pfs_opt_nearest(word);
    if (strchr(many, ','))
        problem(p, "option '%.*s' is ambiguous: %s", (int)(n + 2 < 80 ? n + 2 : 80), word, many);
    else if (near)
        problem(p, "unknown option '%.80s': did you mean --%s?", word, near);
    else
        problem(p, "unknown option '%.80s'", word);
}

/* The message of the problems: one alone as one sentence, more as a line
 * saying how many and an indented line each. */
static void problems_message(const struct problems *p, char *err, size_t len)
{
    if (p->count == 0) {
        snprintf(err, len, "%s", p->value);
        return;
    }
    if (p->count - p->repeats == 1 && !p->value[0]) {
        snprintf(err, len, "%s; see pfsbench --help", p->text);
        return;
    }
    int told = 0;
    size_t k = (size_t)snprintf(err, len, "%d problems with the options (see pfsbench --help):",
                                p->count - p->repeats + (p->value[0] != 0));
    /* Whole lines while they fit, keeping room for the last one. */
    const size_t more = 24; /* room for "\n  and N more" */
    for (const char *l = p->text; *l && k < len;) {
        size_t n = strcspn(l, "\n");
        if (k + 3 + n + more >= len)
            break;
        k += (size_t)snprintf(err + k, len - k, "\n  %.*s", (int)n, l);
        told++;
        l += n + (l[n] == '\n');
    }
    int untold = p->count - p->repeats - told;
    if (p->value[0] && k + 3 + strlen(p->value) + more < len)
        k += (size_t)snprintf(err + k, len - k, "\n  %s", p->value);
    else if (p->value[0])
        untold++;
    if (untold > 0 && k < len)
        snprintf(err + k, len - k, "\n  and %d more", untold);
}

/* The core's row of a letter (a backend's rows have none). */
static const struct pfs_opt *short_opt(int c)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (pfs_opt_table[i].shrt == c)
            return &pfs_opt_table[i];
    return NULL;
}

/* getopt's tables from every option row (the core's and the backends',
 * pfs_opt_at: getopt's value is 256 + the row's number), and the trap
 * letters (config_check.c) that no option has: a trap that takes a value
 * in its tool takes an attached one. Returns the rows' count. */
static size_t getopt_tables(struct option *lopts, char *sopts)
{
    size_t sp = 0, nrows = 0;
    sopts[sp++] = ':'; /* report a missing value as ':' */
    const struct pfs_opt *o;
    int api;
    for (size_t i = 0; i < PFS_OPT_MAX && (o = pfs_opt_at(i, &api)); i++, nrows++) {
        int has_arg = o->type == T_FLAG || (o->type == T_ACTION && !o->arg) ? no_argument : required_argument;
        lopts[i] = (struct option){o->name, has_arg, NULL, 256 + (int)i};
        if (o->shrt) {
            sopts[sp++] = (char)o->shrt;
            if (has_arg == required_argument)
                sopts[sp++] = ':';
        }
    }
    lopts[nrows] = (struct option){0, 0, 0, 0};
    sopts[sp] = '\0';
    for (size_t t = 0; t < pfs_ntraps; t++) {
        if (short_opt(pfs_traps[t].letter))
            continue;
        sopts[sp++] = (char)pfs_traps[t].letter;
        if (pfs_traps[t].takes_value)
            sopts[sp++] = ':', sopts[sp++] = ':';
    }
    sopts[sp] = '\0';
    return nrows;
}

/* What the words ask for, and what parsing them found. */
struct words {
    int help, version, list, total_given, short_c;
    /* The options given that a backend owns, in the order given, and the
     * registry line of each: once --api is known, those of another line
     * are refused, the first one named. */
    const struct pfs_opt *owned[PFS_OPT_MAX];
    int owner[PFS_OPT_MAX], nowned;
    unsigned char given[PFS_OPT_MAX];
    /* Each registry line's options struct, from its rows' defaults and the
     * words; the one of the line --api names is kept (pfs_backend_opts). */
    unsigned char (*blocks)[PFS_BACKEND_OPTS_MAX];
};

/* The getopt loop: every option into cfg (a backend's into its line's
 * block), every problem into p. */
static void parse_words(struct pfs_config *cfg, int argc, char **argv, struct words *w, struct problems *p)
{
    struct option lopts[PFS_OPT_MAX + 1];
    char sopts[3 * PFS_OPT_MAX + 64];
    const int nrows = (int)getopt_tables(lopts, sopts);
    optind = 0; /* glibc: full reinitialisation, so tests can parse many times */
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1;) {
        if (c == '?') {
            /* glibc sets optopt to the option's val (256 + index) when a
             * long option that takes no value is given one (--keep=1). */
            if (optopt >= 256 && optopt < 256 + nrows)
                problem(p, "option '--%s' takes no value", lopts[optopt - 256].name);
            else
                unknown_option(p, optopt, argv[optind - 1]);
            continue;
        }
        if (c == ':') {
            problem(p, "option '%s' needs a value", argv[optind - 1]);
            continue;
        }
        int api = -1;
        const struct pfs_opt *o = c >= 256 ? pfs_opt_at((size_t)(c - 256), &api) : short_opt(c);
        if (!o) { /* a trap letter */
            unknown_option(p, c, NULL);
            continue;
        }
        w->help |= strcmp(o->name, "help") == 0;
        w->version |= strcmp(o->name, "version") == 0;
        w->list |= strcmp(o->name, "list-options") == 0;
        w->total_given |= api < 0 && o->off == OFF(total);
        w->short_c |= c == 'c';
        w->given[c >= 256 ? c - 256 : o - pfs_opt_table] = 1;
        if (api >= 0 && w->nowned < PFS_OPT_MAX)
            w->owned[w->nowned] = o, w->owner[w->nowned++] = api;
        char verr[PFS_ERRLEN];
        int rc = api < 0 ? pfs_opt_set(o, optarg, cfg, cfg, verr, sizeof(verr))
                         : pfs_opt_set(o, optarg, NULL, w->blocks[api], verr, sizeof(verr));
        if (rc != 0 && !p->value[0])
            snprintf(p->value, sizeof(p->value), "%s", verr);
    }
}

static enum pfs_parse_result parse_error(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return PFS_PARSE_ERROR;
}

/* --file-name PATH: DIR is PATH's directory (-d may repeat it, not name
 * another), and the last component is a name pfsbench does not make. */
static int file_name_dir(struct pfs_config *cfg, char *err, size_t len)
{
    char dir[PFS_PATH_MAX], base[PFS_PATH_MAX];
    if (pfs_name_split(cfg->file_name, dir, sizeof(dir), base, sizeof(base)) != 0)
        return pfs_fail(err, len, "--file-name %s: give the path of a file (it ends in a file name, not '/', '.' or "
                        "'..')", cfg->file_name);
    if (pfs_name_parse(base, NULL) != PFS_NAME_NONE)
        return pfs_fail(err, len, "--file-name %s: %s is a name pfsbench gives its own files; choose another",
                        cfg->file_name, base);
    if (!cfg->dir[0]) {
        snprintf(cfg->dir, sizeof(cfg->dir), "%s", dir);
        return 0;
    }
    size_t n = strlen(cfg->dir);
    while (n > 1 && cfg->dir[n - 1] == '/')
        n--;
    if (strlen(dir) != n || strncmp(dir, cfg->dir, n) != 0)
        return pfs_fail(err, len, "--file-name %s is in %s, and -d names %s: give -d %s, or no -d", cfg->file_name,
                        dir, cfg->dir, dir);
    return 0;
}

enum pfs_parse_result pfs_config_parse(struct pfs_config *cfg, int argc, char **argv,
                                       char *err, size_t errlen)
{
    pfs_config_defaults(cfg);
    err[0] = '\0';
    struct words w = {0};
    struct problems *p = calloc(1, sizeof(*p));
    w.blocks = calloc((size_t)pfs_backend_count(), sizeof(*w.blocks));
    if (!p || !w.blocks) {
        free(p);
        free(w.blocks);
        return parse_error(err, errlen, "out of memory");
    }
    for (int i = 0; i < pfs_backend_count(); i++)
        pfs_opt_defaults(i, w.blocks[i]);
    parse_words(cfg, argc, argv, &w, p);
    /* --api is known now: its backend's options are the run's. */
    memcpy(cfg->backend_opts, w.blocks[cfg->api], sizeof(cfg->backend_opts));
    free(w.blocks);
    int bad = p->count || p->value[0];
    if (bad)
        problems_message(p, err, errlen);
    free(p);
    if (bad)
        return PFS_PARSE_ERROR;
    if (w.help)
        return PFS_PARSE_HELP;
    if (w.version)
        return PFS_PARSE_VERSION;
    if (w.list) {
        /* Nothing of the rest of the line applies: a caller that does not
         * know this result yet finds no directory and runs nothing. */
        pfs_config_defaults(cfg);
        return PFS_PARSE_LIST_OPTIONS;
    }
    if (optind < argc)
        return parse_error(err, errlen, "unexpected argument '%s'; options take the form -d DIR or --dir DIR", argv[optind]);
    if (cfg->stop_on_error && !cfg->job[0])
        return parse_error(err, errlen, "--stop-on-error goes with -f JOBFILE");
    if (cfg->job[0]) /* the sections say the rest; each is parsed on its own */
        return PFS_PARSE_JOB;
    if (cfg->file_name[0] && file_name_dir(cfg, err, errlen) != 0)
        return PFS_PARSE_ERROR;
    if (!cfg->dir[0])
        return parse_error(err, errlen, "no target directory; give -d DIR");
    if (cfg->yes && !cfg->clean)
        return parse_error(err, errlen, "--yes goes with --clean DIR");
    if (cfg->any_owner && !cfg->clean)
        return parse_error(err, errlen, "--any-owner goes with --clean DIR");
    if (cfg->clean)
        return PFS_PARSE_RUN;
    char why[256];
    if (pfs_backend_not_built(cfg->api, why, sizeof(why)))
        return parse_error(err, errlen, "--api %s: %s", pfs_backend_name(cfg->api), why);
    for (int i = 0; i < w.nowned; i++)
        if (w.owner[i] != cfg->api)
            return parse_error(err, errlen, "--%s is an option of --api %s (not available with --api %s)",
                               w.owned[i]->name, pfs_backend_name(w.owner[i]), pfs_backend_name(cfg->api));
    /* --bssplit without -t: the slots are its largest size (fio ignores bs with bssplit). */
    struct pfs_mix bs;
    char bwhy[200];
    if (cfg->bssplit[0] && !pfs_opt_given(w.given, "transfer") &&
        pfs_bssplit_parse(cfg->bssplit, &bs, bwhy, sizeof(bwhy)) == 0) {
        cfg->transfer = 0;
        for (int i = 0; i < bs.n; i++)
            cfg->transfer = bs.val[i] > cfg->transfer ? bs.val[i] : cfg->transfer;
    }
    if (pfs_check_run(cfg, w.total_given, err, errlen) != 0) {
        size_t n = strlen(err);
        if (w.short_c && strstr(err, "--collective") && n < errlen)
            snprintf(err + n, errlen - n, "; -c is IOR's --collective (IOzone's -c, close in the timing, is always "
                     "so in pfsbench)");
        return PFS_PARSE_ERROR;
    }
    pfs_check_unused(cfg, w.given);
    struct pfs_sweep sw;
    if (cfg->rate_sweep[0] && pfs_sweep_parse(cfg->rate_sweep, &sw, err, errlen) == 0)
        cfg->reps = pfs_sweep_reps(&sw); /* a repetition per point (the check refused -i) */
    if (cfg->lat_target[0])
        cfg->reps = 1 + PFS_TARGET_RUNS; /* at most: the search stops the run when done (phases.c) */
    return PFS_PARSE_RUN;
}

int pfs_config_rep_slots(const struct pfs_config *cfg)
{
    return cfg->warmup + (cfg->reps > 0 ? cfg->reps : cfg->max_reps);
}

int pfs_config_resolve(struct pfs_config *cfg, int nranks, char *err, size_t len)
{
    char a[32], b[32];
    if (nranks < 1)
        return pfs_fail(err, len, "no ranks");
    /* The unit of work is the stream (rank x thread): --total divides by streams. */
    uint64_t streams = (uint64_t)nranks * (uint64_t)(cfg->threads > 0 ? cfg->threads : 1);
    if (cfg->total) {
        if (cfg->total % streams)
            return pfs_fail(err, len, "--total %llu bytes does not divide by %llu %s; choose a total that is a multiple of %s x transfer",
                        (unsigned long long)cfg->total, (unsigned long long)streams,
                        cfg->threads > 1 ? "streams (ranks x threads)" : "ranks", cfg->threads > 1 ? "streams" : "ranks");
        cfg->block = cfg->total / streams;
    } else {
        if (cfg->block > UINT64_MAX / streams || cfg->block * streams > (uint64_t)INT64_MAX / 2)
            return pfs_fail(err, len, "block x ranks overflows a file offset; use a smaller -b");
        cfg->total = cfg->block * streams;
    }
    pfs_format_size(cfg->transfer, a, sizeof(a));
    pfs_format_size(cfg->block, b, sizeof(b));
    if (cfg->transfer > cfg->block)
        return pfs_fail(err, len, "transfer (%s) is larger than the block per rank (%s); use -t no larger than -b", a, b);
    if (cfg->block % cfg->transfer)
        return pfs_fail(err, len, "block per rank (%s) is not a multiple of the transfer (%s); make -b (or --total / ranks) a multiple of -t", b, a);
    if (cfg->segments > 1 && cfg->block % ((uint64_t)cfg->segments * cfg->transfer))
        return pfs_fail(err, len, "block per rank (%s) does not split into %d segments of whole transfers (%s); make -b "
                    "(or --total / ranks) a multiple of --segments x -t", b, cfg->segments, a);
    if (cfg->block / cfg->transfer > (uint64_t)INT64_MAX / 4)
        return pfs_fail(err, len, "too many transfers per rank");
    /* What a phase in the list must agree with (the checkpoint's degrees),
     * then what it warns of, given the streams (the seeks' share). */
    if (pfs_phase_fits(cfg, streams, err, len) != 0)
        return -1;
    pfs_phase_resolved(cfg, streams);
    /* At a microsecond or more a call, this many take minutes per phase and
     * stream at best, hours on a parallel file system. */
    if (cfg->block / cfg->transfer > 100000000)
        pfs_config_warn(cfg, "%llu transfers per stream (-b %s / -t %s) will take hours; is -t the size you "
                        "meant? (IOzone's -t is a thread count: --threads N here)",
                        (unsigned long long)(cfg->block / cfg->transfer), b, a);
    return 0;
}

int pfs_config_check_dir(const struct pfs_config *cfg, char *err, size_t len)
{
    struct stat st;
    if (lstat(cfg->dir, &st) != 0)
        return pfs_fail(err, len, "target directory '%s' does not exist (%s); create it first", cfg->dir, strerror(errno));
    if (S_ISLNK(st.st_mode) && stat(cfg->dir, &st) != 0)
        return pfs_fail(err, len, "target directory '%s' is a dangling symbolic link", cfg->dir);
    if (!S_ISDIR(st.st_mode))
        return pfs_fail(err, len, "target '%s' is not a directory; give -d an existing directory", cfg->dir);
    struct statvfs vfs;
    if (statvfs(cfg->dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
        return pfs_fail(err, len, "target directory '%s' is on a read-only file system", cfg->dir);
    /* Another user could plant files or links there between our checks and
     * our opens; the sticky bit stops them from replacing ours. */
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) && !cfg->force)
        return pfs_fail(err, len, "target directory '%s' is world-writable without the sticky bit; "
                    "anyone could replace pfsbench's files there: use another directory or --force", cfg->dir);
    if (access(cfg->dir, W_OK | X_OK) != 0)
        return pfs_fail(err, len, "target directory '%s' is not writable (%s)", cfg->dir, strerror(errno));
    return 0;
}

