/* The front ends' machinery: which tool a command line speaks for, the walk
 * over a tool's words (getopt's rules: combined flags, attached or separate
 * values, plus IOzone's -+x and IOR's -G=5 and --name=value), sizes, the
 * native argv being built, refusals and notes. The tools' tables are in
 * frontend_ior.c, frontend_mdtest.c and frontend_iozone.c. */
#include "pfs/frontend.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend_int.h"
#include "pfs/cmdline.h"
#include "pfs/core.h"
#include "pfs/units.h"

static const char *const tools[] = {"ior", "mdtest", "iozone"};

const char *pfs_frontend_tool(const char *argv0, const char *argv1)
{
    if (argv0) {
        const char *base = strrchr(argv0, '/');
        base = base ? base + 1 : argv0;
        for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
            if (strncmp(base, "pfsbench-", 9) == 0 && strcmp(base + 9, tools[i]) == 0)
                return tools[i];
    }
    for (size_t i = 0; argv1 && i < sizeof(tools) / sizeof(tools[0]); i++)
        if (strcmp(argv1, tools[i]) == 0)
            return tools[i];
    return NULL;
}

int pfs_frontend_detect(int argc, char **argv, const char **tool)
{
    if (argc < 1 || !argv)
        return 0;
    const char *t = pfs_frontend_tool(argv[0], NULL);
    int first = 1;
    if (!t && argc > 1) {
        t = pfs_frontend_tool(NULL, argv[1]);
        first = 2;
    }
    if (!t)
        return 0;
    if (tool)
        *tool = t;
    return first;
}

void fe_add(struct fe *f, const char *word)
{
    if (f->oom)
        return;
    if (f->n + 2 > f->cap) {
        int cap = f->cap ? 2 * f->cap : 32;
        char **v = realloc(f->v, (size_t)cap * sizeof(*v));
        if (!v) {
            f->oom = 1;
            return;
        }
        f->v = v;
        f->cap = cap;
    }
    if (!(f->v[f->n] = pfs_strdup(word))) {
        f->oom = 1;
        return;
    }
    f->v[++f->n] = NULL;
}

void fe_addf(struct fe *f, const char *fmt, ...)
{
    char w[PFS_FE_NOTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof(w), fmt, ap);
    va_end(ap);
    fe_add(f, w);
}

void fe_add_size(struct fe *f, const char *opt, uint64_t bytes)
{
    static const char suf[] = "kmgt";
    int e = 0;
    for (int k = 4; k >= 1 && !e; k--)
        if (bytes % (1ull << (10 * k)) == 0)
            e = k;
    fe_add(f, opt);
    if (e)
        fe_addf(f, "%llu%c", (unsigned long long)(bytes >> (10 * e)), suf[e - 1]);
    else
        fe_addf(f, "%llu", (unsigned long long)bytes);
}

/* Appends "TOOL OPT: message\n" to buf. */
static void put_line(char *buf, size_t len, size_t *used, const char *tool, const char *opt, const char *fmt,
                     va_list ap)
{
    if (!buf || *used + 1 >= len)
        return;
    int n = snprintf(buf + *used, len - *used, "%s %s: ", tool, opt);
    if (n > 0 && (size_t)n < len - *used) {
        *used += (size_t)n;
        n = vsnprintf(buf + *used, len - *used, fmt, ap);
        if (n > 0)
            *used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
        if (*used + 1 < len) {
            buf[(*used)++] = '\n';
            buf[*used] = '\0';
        }
    } else {
        *used = len - 1;
    }
}

void fe_refuse(struct fe *f, const char *opt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_line(f->bad, f->badlen, &f->badused, f->tool, opt, fmt, ap);
    va_end(ap);
    f->nbad++;
}

void fe_note(struct fe *f, const char *opt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_line(f->notes, sizeof(f->notes), &f->notesused, f->tool, opt, fmt, ap);
    va_end(ap);
}

int fe_size(struct fe *f, const char *opt, const char *val, const char *suffixes, uint64_t plain, uint64_t *out)
{
    /* The tools read every unit 1024-based (IOR's 1GB is 2^30 bytes): so does their front-end. */
    const struct pfs_size_syntax syn = {PFS_SIZE_KB_BINARY, plain, suffixes};
    char why[160];
    if (pfs_size_parse(val, &syn, out, why, sizeof(why)) == 0)
        return 0;
    fe_refuse(f, opt, "'%s' is not a size: %s; give digits, then one of %s (KiB, KB ... too), all 1024-based", val, why,
              suffixes);
    return -1;
}

int fe_int(struct fe *f, const char *opt, const char *val, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < min || v > max) {
        fe_refuse(f, opt, "'%s' is not a whole number from %ld to %ld", val, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

void fe_dirname(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static const struct fe_opt *find_opt(const struct fe_opt *tab, const char *name, size_t n)
{
    for (; tab->name; tab++)
        if (strlen(tab->name) == n && strncmp(tab->name, name, n) == 0)
            return tab;
    return NULL;
}

static void dispatch(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, fe_on_opt on, void *st)
{
    if (o->why)
        fe_refuse(f, o->name, "%s", o->why);
    else
        on(f, o, a, st);
}

static void unknown(struct fe *f, const char *spelled)
{
    fe_refuse(f, spelled, "not an option of %s that pfsbench translates (docs/usage.md lists the subset)", f->tool);
}

/* --name or --name=value. Returns the words it used (1 or 2). */
static int walk_long(struct fe *f, const struct fe_opt *tab, int argc, char **argv, fe_on_opt on, void *st)
{
    const char *w = argv[0], *eq = strchr(w, '=');
    size_t n = eq ? (size_t)(eq - w) : strlen(w);
    const struct fe_opt *o = find_opt(tab, w, n);
    struct fe_arg a = {0};
    if (!o) {
        char spelled[128];
        snprintf(spelled, sizeof(spelled), "%.*s", (int)(n < 100 ? n : 100), w);
        unknown(f, spelled);
        return 1;
    }
    int used = 1;
    if (o->arity == FE_FLAG && eq) {
        fe_refuse(f, o->name, "takes no value");
        return 1;
    }
    if (o->arity == FE_VALUE || o->arity == FE_OPTVAL) {
        if (eq)
            a.val = eq + 1;
        else if (o->arity == FE_VALUE && argc > 1)
            a.val = argv[used++];
        else if (o->arity == FE_VALUE) {
            fe_refuse(f, o->name, "needs a value");
            return 1;
        }
    }
    dispatch(f, o, &a, on, st);
    return used;
}

/* Lists: the words after it that are not options. */
static int list_len(int argc, char **argv)
{
    int k = 0;
    while (k < argc && argv[k][0] != '-')
        k++;
    return k;
}

/* -x, -xVALUE, -x VALUE, -xyz (flags), -+x. Returns the words it used. */
static int walk_short(struct fe *f, const struct fe_opt *tab, int argc, char **argv, fe_on_opt on, void *st)
{
    const char *w = argv[0];
    size_t pos = 1;
    while (w[pos]) {
        size_t len = w[pos] == '+' && w[pos + 1] ? 2 : 1;
        char spelled[4] = {'-', w[pos], len == 2 ? w[pos + 1] : '\0', '\0'};
        const struct fe_opt *o = find_opt(tab, spelled, len + 1);
        struct fe_arg a = {0};
        const char *rest = w + pos + len;
        if (!o) {
            unknown(f, spelled);
            /* A value it may have had is part of the refusal, not a stray word. */
            return pos == 1 && !*rest && argc > 1 && argv[1][0] != '-' ? 2 : 1;
        }
        if (o->arity == FE_FLAG) {
            dispatch(f, o, &a, on, st);
            pos += len;
            continue;
        }
        int used = 1;
        if (*rest)
            a.val = *rest == '=' ? rest + 1 : rest;
        if (o->arity == FE_VALUE && !*rest) {
            if (argc < 2) {
                fe_refuse(f, o->name, "needs a value");
                return 1;
            }
            a.val = argv[used++];
        }
        if (o->arity == FE_LIST) {
            a.lc = list_len(argc - 1, argv + 1);
            a.lv = argv + 1;
            used += a.lc;
        }
        dispatch(f, o, &a, on, st);
        return used;
    }
    return 1;
}

int fe_passes(const struct fe *f, const char *opt)
{
    const size_t n = strlen(opt);
    for (int i = 0; i < f->pass_argc; i++)
        if (strncmp(f->pass_argv[i], opt, n) == 0 && (f->pass_argv[i][n] == '\0' || f->pass_argv[i][n] == '='))
            return 1;
    return 0;
}

void fe_walk(struct fe *f, const struct fe_opt *tab, int argc, char **argv, fe_on_opt on, void *st)
{
    for (int i = 0; i < argc;) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0) {
            f->pass_argc = argc - i - 1;
            f->pass_argv = argv + i + 1;
            return;
        }
        if (w[0] == '-' && w[1] == '-')
            i += walk_long(f, tab, argc - i, argv + i, on, st);
        else if (w[0] == '-' && w[1])
            i += walk_short(f, tab, argc - i, argv + i, on, st);
        else {
            fe_refuse(f, w[0] ? w : "''", "a word that is no option (%s takes none here)", f->tool);
            i++;
        }
    }
}

void pfs_frontend_free(int argc, char **argv)
{
    (void)argc;
    if (!argv)
        return;
    for (int i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

int pfs_frontend_translate_ex(const char *tool, int nranks, int argc, char **argv, int *out_argc, char ***out_argv,
                              struct pfs_frontend_extra *x, char *err, size_t len)
{
    struct fe f = {.tool = tool, .nranks = nranks < 1 ? 1 : nranks, .bad = err, .badlen = len};
    if (err && len)
        err[0] = '\0';
    *out_argc = 0;
    *out_argv = NULL;
    fe_add(&f, "pfsbench");
    if (tool && strcmp(tool, "ior") == 0)
        fe_ior(&f, argc, argv);
    else if (tool && strcmp(tool, "mdtest") == 0)
        fe_mdtest(&f, argc, argv);
    else if (tool && strcmp(tool, "iozone") == 0)
        fe_iozone(&f, argc, argv);
    else
        fe_refuse(&f, tool ? tool : "(none)", "not a tool pfsbench speaks for (ior, mdtest, iozone)");
    for (int i = 0; i < f.pass_argc; i++)
        fe_add(&f, f.pass_argv[i]);
    if (f.oom)
        fe_refuse(&f, "(all)", "out of memory");
    if (f.report[0] && !x)
        fe_refuse(&f, "-O", "summaryFile: this caller cannot send the report to a file");
    if (x) {
        snprintf(x->report, sizeof(x->report), "%s", f.report);
    }
    if (f.nbad) {
        pfs_frontend_free(f.n, f.v);
        return -1;
    }
    if (err && len)
        snprintf(err, len, "%s", f.notes);
    *out_argc = f.n;
    *out_argv = f.v;
    return 0;
}

int pfs_frontend_translate_for(const char *tool, int nranks, int argc, char **argv, int *out_argc,
                               char ***out_argv, char *err, size_t len)
{
    return pfs_frontend_translate_ex(tool, nranks, argc, argv, out_argc, out_argv, NULL, err, len);
}

int pfs_frontend_translate(const char *tool, int argc, char **argv, int *out_argc, char ***out_argv,
                           char *err, size_t len)
{
    return pfs_frontend_translate_for(tool, 1, argc, argv, out_argc, out_argv, err, len);
}

static void print_lines(FILE *out, const char *prefix, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(out, "%s%.*s\n", prefix, (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

/* Whether the native line asks for a machine-readable report on stdout. */
int fe_machine_format(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strncmp(argv[i], "--format=", 9) == 0)
            v = argv[i] + 9;
        else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            v = argv[i + 1];
        if (v && (strcmp(v, "json") == 0 || strcmp(v, "csv") == 0))
            return 1;
    }
    return 0;
}

int pfs_frontend_usage(const char *tool, FILE *out)
{
    const struct fe_opt *tab = !tool ? NULL
                             : strcmp(tool, "ior") == 0 ? fe_ior_tab
                             : strcmp(tool, "mdtest") == 0 ? fe_mdtest_tab
                             : strcmp(tool, "iozone") == 0 ? fe_iozone_tab : NULL;
    if (!tab)
        return -1;
    fprintf(out, "usage: mpirun -np N pfsbench %s [%s's options] [-- pfsbench's options]\n\n"
                 "pfsbench translates %s's command line into its own, prints the equivalent\n"
                 "(\"pfsbench: equivalent: pfsbench ...\", to paste and edit) and runs it; what means\n"
                 "a little less or more than in %s is said in a note before the run (docs/usage.md,\n"
                 "\"Front-ends\"). Words after -- are pfsbench's own options.\n\ntranslated:",
            tool, tool, tool, tool);
    int col = 11;
    for (const struct fe_opt *o = tab; o->name; o++)
        if (!o->why) {
            if (col + (int)strlen(o->name) + 1 > 78)
                col = fprintf(out, "\n          ") - 1;
            col += fprintf(out, " %s", o->name);
        }
    if (tab == fe_ior_tab)
        fprintf(out, "\n\n-f SCRIPT runs an IOR script (IOR START, KEY=VALUE lines, RUN, IOR STOP), each\n"
                     "test a run of one job, labelled run1, run2 ... (docs/usage.md, \"IOR scripts\");\n"
                     "options before -f are every test's, after -- pfsbench's.");
    fprintf(out, "\n\nrefused, each for its reason:\n");
    for (const struct fe_opt *o = tab; o->name; o++)
        if (o->why)
            fprintf(out, "  %-6s %s\n", o->name, o->why);
    return 0;
}

/* -h or --help among the tool's own words (before a bare --). */
static int asks_help(int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

int pfs_frontend_main(int speak, int nranks, int *argc, char ***argv, struct pfs_frontend_extra *x)
{
    x->report[0] = '\0';
    const char *tool = NULL;
    int first = pfs_frontend_detect(*argc, *argv, &tool);
    if (!first)
        return 0;
    if (asks_help(*argc - first, *argv + first)) {
        if (speak)
            pfs_frontend_usage(tool, stdout);
        return 2;
    }
    static char msg[PFS_FRONTEND_ERRLEN];
    int nc = 0;
    char **nv = NULL;
    if (pfs_frontend_translate_ex(tool, nranks, *argc - first, *argv + first, &nc, &nv, x, msg, sizeof(msg)) != 0) {
        if (speak)
            print_lines(stderr, "pfsbench: error: ", msg);
        return -1;
    }
    if (speak) {
        char line[PFS_FE_NOTES * 2];
        print_lines(stderr, "pfsbench: note: ", msg);
        pfs_cmdline_join(nc, nv, line, sizeof(line));
        FILE *out = fe_machine_format(nc, nv) ? stderr : stdout;
        fprintf(out, "pfsbench: equivalent: %s\n", line);
        fflush(out);
    }
    *argc = nc;
    *argv = nv;
    return 1;
}
