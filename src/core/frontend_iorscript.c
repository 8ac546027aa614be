/* IOR scripts (pfs/iorscript.h): IOR's grammar (ReadConfigScript,
 * ParseLine, DecodeDirective in IOR's parse_options.c), its long keys as
 * the short options frontend_ior.c translates, each test one translation
 * and one section of a job. docs/usage.md, "IOR scripts", is the key
 * table as prose. */
#include "pfs/iorscript.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend_int.h"
#include "pfs/cmdline.h"
#include "pfs/core.h"

enum kind {
    K_VALUE,     /* -b VALUE */
    K_FLAG,      /* a whole number: 0 leaves the flag out, any other gives it */
    K_DIRECTIVE, /* -O KEY=VALUE */
};

/* A key of IOR's scripts and the option of IOR's command line it sets.
 * same: the key this one is another name of. idle: for an option the
 * front end refuses, the value that is IOR's default, which asks nothing
 * (a flag's idle value is 0). */
struct key {
    const char *name, *opt;
    enum kind kind;
    const char *same, *idle;
};

static const struct key keys[] = {
    {"api", "-a", K_VALUE, NULL, NULL},
    {"blockSize", "-b", K_VALUE, NULL, NULL},
    {"transferSize", "-t", K_VALUE, NULL, NULL},
    {"segmentCount", "-s", K_VALUE, NULL, NULL},
    {"filePerProc", "-F", K_FLAG, NULL, NULL},
    {"reorderTasksConstant", "-C", K_FLAG, NULL, NULL},
    {"reorderTasks", "-C", K_FLAG, "reorderTasksConstant", NULL}, /* IOR's older name */
    {"taskPerNodeOffset", "-Q", K_VALUE, NULL, NULL},
    {"fsync", "-e", K_FLAG, NULL, NULL},
    {"fsyncPerWrite", "-Y", K_FLAG, NULL, NULL},
    {"writeFile", "-w", K_FLAG, NULL, NULL},
    {"readFile", "-r", K_FLAG, NULL, NULL},
    {"checkWrite", "-W", K_FLAG, NULL, NULL},
    {"checkRead", "-R", K_FLAG, NULL, NULL},
    {"keepFile", "-k", K_FLAG, NULL, NULL},
    {"repetitions", "-i", K_VALUE, NULL, NULL},
    {"deadlineForStonewalling", "-D", K_VALUE, NULL, NULL},
    {"testFile", "-o", K_VALUE, NULL, NULL},
    {"randomOffset", "-z", K_FLAG, NULL, NULL},
    {"collective", "-c", K_FLAG, NULL, NULL},
    {"interTestDelay", "-d", K_VALUE, NULL, NULL},
    {"verbose", "-v", K_FLAG, NULL, NULL},
    {"intraTestBarriers", "-g", K_FLAG, NULL, NULL},
    {"setTimeStampSignature", "-G", K_VALUE, NULL, NULL},
    {"quitOnError", "-q", K_FLAG, NULL, NULL},
    {"refnum", "-A", K_VALUE, NULL, NULL},
    {"posix.odirect", "--posix.odirect", K_FLAG, NULL, NULL},
    {"useO_DIRECT", "-O", K_DIRECTIVE, NULL, NULL},
    {"stoneWallingWearOut", "-O", K_DIRECTIVE, NULL, NULL},
    {"stoneWallingStatusFile", "-O", K_DIRECTIVE, NULL, NULL},
    {"summaryFormat", "-O", K_DIRECTIVE, NULL, NULL},
    {"summaryFile", "-O", K_DIRECTIVE, NULL, NULL},
    /* Options the front end refuses: refused here with its reason, unless idle. */
    {"useExistingTestFile", "-E", K_FLAG, NULL, NULL},
    {"maxTimeDuration", "-T", K_VALUE, NULL, "0"},
    {"numTasks", "-N", K_VALUE, NULL, "0"},
    {"uniqueDir", "-u", K_FLAG, NULL, NULL},
    {"multiFile", "-m", K_FLAG, NULL, NULL},
    {"showHints", "-H", K_FLAG, NULL, NULL},
    {"hintsFileName", "-U", K_VALUE, NULL, NULL},
    {"outlierThreshold", "-j", K_VALUE, NULL, "0"},
    {"keepFileWithError", "-K", K_FLAG, NULL, NULL},
    {"dataPacketType", "-l", K_VALUE, NULL, NULL},
    {"memoryPerNode", "-M", K_VALUE, NULL, "0"},
    {"singleXferAttempt", "-x", K_FLAG, NULL, NULL},
    {"reorderTasksRandomSeed", "-X", K_VALUE, NULL, "0"},
    {"reorderTasksRandom", "-Z", K_FLAG, NULL, NULL},
    {"dualMount", "-y", K_FLAG, NULL, NULL},
    {"individualDataSets", "-I", K_FLAG, NULL, NULL},
    {"setAlignment", "-J", K_VALUE, NULL, "1"},
    {"noFill", "-n", K_FLAG, NULL, NULL},
    {"preallocate", "-p", K_FLAG, NULL, NULL},
    {"useSharedFilePointer", "-P", K_FLAG, NULL, NULL},
    {"useStridedDatatype", "-S", K_FLAG, NULL, NULL},
    {"useFileView", "-V", K_FLAG, NULL, NULL},
    {"warningAsErrors", "--warningAsErrors", K_FLAG, NULL, NULL},
};
#define NK ((int)(sizeof(keys) / sizeof(keys[0])))
#define MAX_TAB 256 /* entries of fe_ior_tab the command line's flags are marked in */

/* One test: each key's value (a pointer into the script's copy) and line. */
struct test {
    const char *val[NK];
    int line[NK];
    int at; /* its RUN's line, or the line it ended at */
};

/* The command line's words around -f: before it (every test's first
 * words), after a bare -- (pfsbench's, every test's last). */
struct cli {
    const char *script; /* -f's value */
    char **before, **pass;
    int nbefore, npass;
    unsigned char seen[MAX_TAB]; /* fe_ior_tab's flags given before -f */
};

struct ctx {
    const char *path;
    int nranks;
    struct pfs_lines bad, notes;
    struct test cur, *t;
    int n, cap, oom;
    int runflag, run_at, pending; /* pending: the first option line since the last RUN */
    struct cli cli;
};

static const struct fe_opt *tab_opt(const char *name)
{
    for (const struct fe_opt *o = fe_ior_tab; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

static int slot_of(int i)
{
    for (int k = 0; keys[i].same && k < NK; k++)
        if (strcmp(keys[k].name, keys[i].same) == 0)
            return k;
    return i;
}

/* IOR reads a flag with atoi: a whole number, 0 off. */
static int flag_value(const char *v, long *out)
{
    char *end;
    errno = 0;
    *out = strtol(v, &end, 10);
    return errno || end == v || *end ? -1 : 0;
}

static void emit(struct ctx *c, int at)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        struct test *t = realloc(c->t, (size_t)cap * sizeof(*t));
        if (!t) {
            c->oom = 1;
            return;
        }
        c->t = t;
        c->cap = cap;
    }
    c->t[c->n] = c->cur;
    c->t[c->n++].at = at;
}

/* KEY=VALUE at line ln: the test's value, or a refusal. */
static void set_key(struct ctx *c, const char *key, const char *val, int ln)
{
    int i = 0;
    while (i < NK && strcasecmp(keys[i].name, key) != 0)
        i++;
    if (i == NK) {
        pfs_lines_add(&c->bad, "ior %s:%d: %s: not an IOR script key pfsbench translates (docs/usage.md, \"IOR scripts\", "
                 "lists them)", c->path, ln, key);
        return;
    }
    const struct key *k = &keys[i];
    long flag = 0;
    if (k->kind == K_FLAG && flag_value(val, &flag) != 0) {
        pfs_lines_add(&c->bad, "ior %s:%d: %s=%s: IOR reads a whole number here (0 is off)", c->path, ln, k->name, val);
        return;
    }
    const struct fe_opt *o = tab_opt(k->opt);
    if (o && o->why) {
        if ((k->kind == K_FLAG && flag == 0) || (k->idle && strcmp(val, k->idle) == 0))
            return; /* IOR's default: nothing asked */
        pfs_lines_add(&c->bad, "ior %s:%d: %s=%s (IOR's %s): %s", c->path, ln, k->name, val, k->opt, o->why);
        return;
    }
    c->cur.val[slot_of(i)] = val;
    c->cur.line[slot_of(i)] = ln;
}

/* A line of directives: KEY=VALUE, after commas, up to a '#'. */
static void on_options(struct ctx *c, char *line, int ln)
{
    if (c->runflag) { /* the options after a RUN begin the next test */
        emit(c, c->run_at);
        c->runflag = 0;
    }
    if (!c->pending)
        c->pending = ln;
    line[strcspn(line, "#")] = '\0';
    for (char *piece = line, *next; piece; piece = next) {
        char *comma = strchr(piece, ',');
        next = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        char *d = pfs_trim(piece), *eq = strchr(d, '=');
        if (!*d) {
            pfs_lines_add(&c->bad, "ior %s:%d: an empty directive (a comma with nothing after it)", c->path, ln);
            continue;
        }
        if (!eq) {
            pfs_lines_add(&c->bad, "ior %s:%d: '%s': a directive is KEY=VALUE", c->path, ln, d);
            continue;
        }
        *eq = '\0';
        char *key = pfs_trim(d), *val = pfs_trim(eq + 1);
        if (!*key || !*val || key[strcspn(key, " \t")] || val[strcspn(val, " \t")])
            pfs_lines_add(&c->bad, "ior %s:%d: '%s=%s': a directive is KEY=VALUE, one word each", c->path, ln, key, val);
        else
            set_key(c, key, val, ln);
    }
}

/* IOR's loop: lines before IOR START skipped, blank lines and comments
 * too, RUN, options, IOR STOP (or the end). */
static void parse_script(struct ctx *c, char *text)
{
    int ln = 0, started = 0;
    for (char *s = text, *nl; s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        char *line = pfs_trim(s);
        ln++;
        if (!started) {
            started = strcasecmp(line, "ior start") == 0;
            continue;
        }
        if (!*line || *line == '#')
            continue;
        if (strcasecmp(line, "ior stop") == 0)
            break;
        if (strcasecmp(line, "run") == 0) {
            if (c->runflag) /* RUN again: the same test once more */
                emit(c, c->run_at);
            c->runflag = 1;
            c->run_at = ln;
            c->pending = 0;
        } else {
            on_options(c, line, ln);
        }
    }
    if (!started) {
        pfs_lines_add(&c->bad, "ior %s: no 'IOR START' line (IOR reads a script's options from the line after it)", c->path);
        return;
    }
    if (c->runflag) {
        emit(c, c->run_at);
        return;
    }
    emit(c, c->pending ? c->pending : ln);
    if (c->pending)
        pfs_lines_add(&c->notes, "ior %s:%d: options with no RUN after them: IOR runs them as a test of their own, and so "
                 "does pfsbench", c->path, c->pending);
    else if (c->n == 1)
        pfs_lines_add(&c->notes, "ior %s: no RUN: IOR runs the command line's options once, and so does pfsbench", c->path);
}

/* The command line's flags, each test's first words. */
static void on_cli(struct fe *f, const struct fe_opt *o, const struct fe_arg *a, void *st)
{
    (void)f;
    struct cli *cl = st;
    if (strcmp(o->name, "-f") == 0 && !cl->script) {
        cl->script = a->val;
        return;
    }
    if (!cl->script && o - fe_ior_tab < MAX_TAB)
        cl->seen[o - fe_ior_tab] = 1;
}

/* The IOR words argv: cl->before (up to -f), cl->pass (after a bare --).
 * The value of -f, or NULL (no -f; *bad_at set when -f is not a word of
 * its own, or when words follow FILE before --: IOR applies none of them
 * to the script's tests). */
static const char *split_cli(int argc, char **argv, struct cli *cl, int *bad_at)
{
    struct fe scratch = {.tool = "ior"};
    *cl = (struct cli){0};
    *bad_at = -1;
    fe_walk(&scratch, fe_ior_tab, argc, argv, on_cli, cl);
    const char *val = cl->script;
    int end = 0;
    while (end < argc && strcmp(argv[end], "--") != 0)
        end++;
    if (end < argc)
        cl->pass = argv + end + 1, cl->npass = argc - end - 1;
    if (!val)
        return NULL;
    int i = 0;
    while (i < end && !(val >= argv[i] && val <= argv[i] + strlen(argv[i])))
        i++;
    int opt = val == argv[i] ? i - 1 : i;
    if (opt < 0 || strncmp(argv[opt], "-f", 2) != 0)
        *bad_at = i;
    else if (i + 1 < end)
        *bad_at = i + 1;
    cl->before = argv;
    cl->nbefore = opt < 0 ? 0 : opt;
    return val;
}

const char *pfs_iorscript_path(int argc, char **argv)
{
    const char *tool = NULL;
    int first = pfs_frontend_detect(argc, argv, &tool);
    if (!first || strcmp(tool, "ior") != 0)
        return NULL;
    for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return NULL;
    struct cli cl;
    int bad_at;
    return split_cli(argc - first, argv + first, &cl, &bad_at);
}

/* A front-end line of a test ("ior OPT: ..."), told with the script's
 * line of the key that gave OPT; as it is when the command line gave it. */
static void relay(struct ctx *c, struct pfs_lines *o, const struct test *t, const char *line, size_t len)
{
    const char *opt = line + 4, *colon = memchr(opt, ':', len > 4 ? len - 4 : 0);
    if (len <= 4 || strncmp(line, "ior ", 4) != 0 || !colon || colon + 2 > line + len) {
        pfs_lines_add(o, "%.*s", (int)len, line);
        return;
    }
    const size_t n = (size_t)(colon - opt), restn = len - (size_t)(colon + 2 - line);
    const char *rest = colon + 2;
    for (int s = 0; s < NK; s++) {
        const struct key *k = &keys[s];
        const size_t kn = strlen(k->name);
        if (!t->val[s] || strlen(k->opt) != n || strncmp(k->opt, opt, n) != 0)
            continue;
        if (k->kind == K_DIRECTIVE && (restn <= kn || strncasecmp(rest, k->name, kn) != 0 || rest[kn] != '='))
            continue;
        if (k->kind == K_DIRECTIVE)
            pfs_lines_add(o, "ior %s:%d: %.*s", c->path, t->line[s], (int)restn, rest);
        else
            pfs_lines_add(o, "ior %s:%d: %s=%s (IOR's %s): %.*s", c->path, t->line[s], k->name, t->val[s], k->opt,
                     (int)restn, rest);
        return;
    }
    pfs_lines_add(o, "%.*s", (int)len, line);
}

static void relay_all(struct ctx *c, struct pfs_lines *o, const struct test *t, const char *text)
{
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
        relay(c, o, t, p, strcspn(p, "\n"));
}

/* A test's IOR words: the command line's before -f, then the keys', then
 * -- and pfsbench's. w has room for them all; pool for -O's KEY=VALUE. */
static int test_words(struct ctx *c, const struct test *t, char **w, char *pool, size_t plen)
{
    int n = 0;
    size_t used = 0;
    for (int i = 0; i < c->cli.nbefore; i++)
        w[n++] = c->cli.before[i];
    for (int s = 0; s < NK; s++) {
        const struct key *k = &keys[s];
        long flag = 1;
        if (!t->val[s] || (k->kind == K_FLAG && flag_value(t->val[s], &flag) == 0 && flag == 0)) {
            const struct fe_opt *o = tab_opt(k->opt);
            if (t->val[s] && o && o - fe_ior_tab < MAX_TAB && c->cli.seen[o - fe_ior_tab])
                pfs_lines_add(&c->bad, "ior %s:%d: %s=0: the command line's %s before -f sets it for every test; give "
                         "it in the script where it is on instead", c->path, t->line[s], k->name, k->opt);
            continue;
        }
        if (k->kind == K_DIRECTIVE) {
            int m = snprintf(pool + used, plen - used, "%s=%s", k->name, t->val[s]);
            w[n++] = (char *)"-O";
            w[n++] = pool + used;
            used += (size_t)m + 1 < plen - used ? (size_t)m + 1 : 0;
        } else {
            w[n++] = (char *)k->opt;
            if (k->kind == K_VALUE)
                w[n++] = (char *)t->val[s];
        }
    }
    if (c->cli.pass) {
        w[n++] = (char *)"--";
        for (int i = 0; i < c->cli.npass; i++)
            w[n++] = c->cli.pass[i];
    }
    w[n] = NULL;
    return n;
}

/* Test k as section sec: its native line, labelled runK unless it names a label. */
static int to_section(struct pfs_job_section *sec, int k, int at, int oc, char **ov)
{
    int labelled = 0;
    for (int i = 1; i < oc; i++)
        labelled |= strcmp(ov[i], "--label") == 0 || strncmp(ov[i], "--label=", 8) == 0;
    char **v = realloc(ov, (size_t)(oc + 2) * sizeof(*v));
    if (!v) {
        pfs_frontend_free(oc, ov);
        return -1;
    }
    *sec = (struct pfs_job_section){.line = at, .share = 1, .argc = oc, .argv = v};
    snprintf(sec->name, sizeof(sec->name), "run%d", k + 1);
    v[oc] = NULL;
    if (!labelled) {
        char w[96];
        snprintf(w, sizeof(w), "--label=%s", sec->name);
        if (!(v[oc] = pfs_strdup(w)))
            return -1;
        v[++sec->argc] = NULL;
    }
    sec->arg_line = calloc((size_t)sec->argc + 1, sizeof(int)); /* 0: the section's line */
    return sec->arg_line ? 0 : -1;
}

/* Each test, translated as the front end translates a command line. */
static void translate_tests(struct ctx *c, struct pfs_jobfile *jf, struct pfs_frontend_extra *x)
{
    const size_t cap = (size_t)(c->cli.nbefore + c->cli.npass + 2 * NK + 2);
    char **w = malloc(cap * sizeof(*w)), *pool = malloc(PFS_FE_NOTES), *msg = malloc(PFS_FRONTEND_ERRLEN);
    jf->sec = calloc((size_t)c->n, sizeof(*jf->sec));
    if (!w || !pool || !msg || !jf->sec)
        c->oom = 1;
    for (int k = 0; k < c->n && !c->oom; k++) {
        const struct test *t = &c->t[k];
        int nw = test_words(c, t, w, pool, PFS_FE_NOTES), oc = 0;
        char **ov = NULL;
        struct pfs_frontend_extra xr;
        if (pfs_frontend_translate_ex("ior", c->nranks, nw, w, &oc, &ov, &xr, msg, PFS_FRONTEND_ERRLEN) != 0) {
            relay_all(c, &c->bad, t, msg);
            continue;
        }
        relay_all(c, &c->notes, t, msg);
        if (xr.report[0] && x->report[0] && strcmp(xr.report, x->report) != 0)
            pfs_lines_add(&c->bad, "ior %s:%d: summaryFile=%s, where a test before it names %s: the job prints one "
                     "report", c->path, t->at, xr.report, x->report);
        else if (xr.report[0])
            snprintf(x->report, sizeof(x->report), "%s", xr.report);
        if (to_section(&jf->sec[jf->n++], k, t->at, oc, ov) != 0)
            c->oom = 1;
    }
    free(w);
    free(pool);
    free(msg);
}

int pfs_iorscript_translate(const char *path, const char *text, int nranks, int argc, char **argv,
                            struct pfs_jobfile *jf, struct pfs_frontend_extra *x, char *err, size_t len)
{
    struct ctx *c = calloc(1, sizeof(*c));
    char *copy = strlen(text) <= PFS_IORSCRIPT_MAX_BYTES ? pfs_strdup(text) : NULL;
    const char *tool = NULL;
    int first = pfs_frontend_detect(argc, argv, &tool), bad_at = -1;
    *jf = (struct pfs_jobfile){0};
    *x = (struct pfs_frontend_extra){0};
    if (len)
        err[0] = '\0';
    if (!c || !copy || !first || !tool || strcmp(tool, "ior") != 0) {
        snprintf(err, len, "ior -f %s: %s", path, !c ? "out of memory"
                 : strlen(text) > PFS_IORSCRIPT_MAX_BYTES ? "larger than 1 MiB" : !copy ? "out of memory"
                 : "not an IOR command line");
        free(c);
        free(copy);
        return -1;
    }
    c->path = path;
    c->nranks = nranks;
    c->bad = (struct pfs_lines){.buf = err, .len = len, .once = 1}; /* a key at fault in every test, told once */
    char *notes = calloc(1, PFS_FRONTEND_ERRLEN);
    c->notes = (struct pfs_lines){.buf = notes, .len = notes ? PFS_FRONTEND_ERRLEN : 0, .once = 1};
    split_cli(argc - first, argv + first, &c->cli, &bad_at);
    if (bad_at >= 0)
        pfs_lines_add(&c->bad, "ior -f: '%s': give -f FILE last, then -- and pfsbench's options: IOR applies no option "
                 "after -f to the script's tests", argv[first + bad_at]);
    parse_script(c, copy);
    if (c->n && !c->oom) /* every refusal at once: the tests' too */
        translate_tests(c, jf, x);
    if (c->oom)
        pfs_lines_add(&c->bad, "ior -f %s: out of memory", path);
    int rc = c->bad.count ? -1 : 0;
    if (rc != 0)
        pfs_jobfile_free(jf);
    else if (len)
        snprintf(err, len, "%s", notes ? notes : "");
    free(notes);
    free(c->t);
    free(c);
    free(copy);
    return rc;
}

void pfs_iorscript_speak(const char *path, const struct pfs_jobfile *jf, const char *notes, FILE *out, FILE *err)
{
    for (const char *p = notes; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
        fprintf(err, "pfsbench: note: %.*s\n", (int)strcspn(p, "\n"), p);
    for (int i = 0; i < jf->n; i++) {
        char line[PFS_FE_NOTES * 2];
        const struct pfs_job_section *sec = &jf->sec[i];
        pfs_cmdline_join(sec->argc, sec->argv, line, sizeof(line));
        fprintf(fe_machine_format(sec->argc, sec->argv) ? err : out, "pfsbench: equivalent [%s] (%s:%d): %s\n",
                sec->name, path, sec->line, line);
    }
    fflush(out);
}

void fe_ior_script(struct fe *f, const char *file)
{
    fe_refuse(f, "-f", "%s: a script runs as `pfsbench ior [options] -f SCRIPT [-- pfsbench's options]`, its "
              "tests one job; this line is translated alone", file);
}
