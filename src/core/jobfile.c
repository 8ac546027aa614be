/* Job files (pfs/jobfile.h): fio's syntax over pfsbench's long options. */
#include "pfs/jobfile.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/interfere.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_table.h"
#include "jobfile_fio.h"

/* Options a job file may not hold: what ends pfsbench instead of running
 * (help, version, the listing), the job file itself, and --clean over other
 * users' files. clean (with yes) is a section's when it names its run-id:
 * a job removes what its own sections kept (checked in src/mpi/job.c). */
static int refused_in_jobs(const struct pfs_opt *o)
{
    static const char *const no[] = {"job", "stop-on-error", "any-owner"};
    if (o->type == T_ACTION && strcmp(o->name, "include-close") != 0)
        return 1;
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (strcmp(o->name, no[i]) == 0)
            return 1;
    return 0;
}

/* An option of any table: a backend's too (hdf5-chunk = 1m). */
static const struct pfs_opt *find_opt(const char *name)
{
    int api;
    return pfs_opt_find(name, &api);
}

static int takes_value(const struct pfs_opt *o) { return !(o->type == T_FLAG || (o->type == T_ACTION && !o->arg)); }

/* A growing list of words with the line each came from. */
struct words {
    char **w;
    int *line;
    int n, cap;
};

static int push(struct words *v, const char *s, int line)
{
    if (v->n + 2 > v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        char **w = realloc(v->w, sizeof(*w) * (size_t)cap);
        if (!w)
            return -1;
        v->w = w;
        int *l = realloc(v->line, sizeof(*l) * (size_t)cap);
        if (!l)
            return -1;
        v->line = l;
        v->cap = cap;
    }
    if (!(v->w[v->n] = pfs_strdup(s)))
        return -1;
    v->line[v->n++] = line;
    v->w[v->n] = NULL;
    return 0;
}

static void words_free(struct words *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->w[i]);
    free(v->w);
    free(v->line);
    *v = (struct words){0};
}

static int name_ok(const char *s)
{
    if (!*s || strlen(s) >= sizeof(((struct pfs_job_section *)0)->name))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}

/* A fio key (jobfile_fio.c's table): its pfsbench words, or why not. */
static int fio_line(const char *key, const char *val, int line, const char *path, struct words *to, struct pfs_lines *e,
                    int *oom, unsigned *fio)
{
    char words[PFS_FIO_WORDS][PFS_FIO_WORDLEN];
    char why[512];
    int n = 0;
    switch (pfs_fio_translate(key, val, words, &n, why, sizeof(why))) {
    case PFS_FIO_UNKNOWN:
        pfs_lines_add(e, "%s:%d: unknown option '%s' (job files use pfsbench's long option names: transfer, block, phases ...; "
                "or fio's bs, size, rw ...)", path, line, key);
        return 1;
    case PFS_FIO_REFUSED:
        pfs_lines_add(e, "%s:%d: %s", path, line, why);
        return 1;
    case PFS_FIO_OK:
        *fio |= PFS_FIO_USED | (strcmp(key, "time_based") == 0 ? PFS_FIO_TIME_BASED : 0);
        break;
    }
    for (int i = 0; i < n; i++)
        if (push(to, words[i], line) != 0)
            *oom = 1;
    return 0;
}

/* One `key [= value]` line into words (as --key=value or --key). 0, or 1
 * when the line is an error (told in e). */
static int option_line(char *s, int line, const char *path, struct words *to, struct pfs_lines *e, int *oom, unsigned *fio)
{
    char *eq = strchr(s, '=');
    char *key = s, *val = NULL;
    if (eq) {
        *eq = '\0';
        val = pfs_trim(eq + 1);
    }
    key = pfs_trim(key);
    const struct pfs_opt *o = find_opt(key);
    if (!o || pfs_fio_overrides(key, val))
        return fio_line(key, val, line, path, to, e, oom, fio);
    if (refused_in_jobs(o)) {
        pfs_lines_add(e, "%s:%d: '%s' cannot be used in a job file", path, line, key);
        return 1;
    }
    char word[PFS_PATH_MAX + 256];
    if (takes_value(o)) {
        if (!val || !*val) {
            pfs_lines_add(e, "%s:%d: '%s' needs a value: %s = %s", path, line, key, key, o->arg ? o->arg : "VALUE");
            return 1;
        }
        snprintf(word, sizeof(word), "--%s=%s", key, val);
    } else {
        if (val && strcmp(val, "1") != 0 && strcmp(val, "0") != 0) {
            pfs_lines_add(e, "%s:%d: '%s' is a flag: give it bare, or = 1 / = 0", path, line, key);
            return 1;
        }
        if (val && strcmp(val, "0") == 0)
            return 0;
        snprintf(word, sizeof(word), "--%s", key);
    }
    if (push(to, word, line) != 0)
        *oom = 1;
    return 0;
}

static int has_label(const struct words *v)
{
    for (int i = 0; i < v->n; i++)
        if (strncmp(v->w[i], "--label=", 8) == 0)
            return 1;
    return 0;
}

/* The section's whole command line: pfsbench, globals, command line, its own lines, its label. */
static int finish_section(struct pfs_job_section *sec, const struct words *glob, int cli_argc, char **cli_argv,
                          const struct words *own)
{
    struct words all = {0};
    int rc = push(&all, "pfsbench", 0);
    for (int i = 0; rc == 0 && i < glob->n; i++)
        rc = push(&all, glob->w[i], glob->line[i]);
    for (int i = 0; rc == 0 && i < cli_argc; i++)
        rc = push(&all, cli_argv[i], 0);
    for (int i = 0; rc == 0 && i < own->n; i++)
        rc = push(&all, own->w[i], own->line[i]);
    if (rc == 0 && !has_label(&all)) {
        char w[96];
        snprintf(w, sizeof(w), "--label=%s", sec->name);
        rc = push(&all, w, sec->line);
    }
    if (rc != 0) {
        words_free(&all);
        return -1;
    }
    sec->argc = all.n;
    sec->argv = all.w;
    sec->arg_line = all.line;
    return 0;
}

/* A [name] header line. 0, or 1 when it is an error. */
static int header_line(char *s, int line, const char *path, const struct pfs_jobfile *jf, struct pfs_lines *e, char *name)
{
    size_t n = strlen(s);
    if (s[n - 1] != ']') {
        pfs_lines_add(e, "%s:%d: a section header is [name]", path, line);
        return 1;
    }
    s[n - 1] = '\0';
    char *nm = pfs_trim(s + 1);
    if (!name_ok(nm)) {
        pfs_lines_add(e, "%s:%d: section name '%s': use letters, digits, '-', '_' and '.', at most 63", path, line, nm);
        return 1;
    }
    for (int i = 0; i < jf->n; i++)
        if (strcmp(jf->sec[i].name, nm) == 0) {
            pfs_lines_add(e, "%s:%d: section [%s] again (first at line %d)", path, line, nm, jf->sec[i].line);
            return 1;
        }
    strcpy(name, nm);
    return 0;
}

struct parse_state {
    struct words glob, own;
    int in_global, in_section, oom;
    unsigned fio_glob, fio_own; /* PFS_FIO_USED, PFS_FIO_TIME_BASED of the keys read */
};

/* The line of the last --runtime= among v's words, or 0. */
static int runtime_line(const struct words *v)
{
    for (int i = v->n - 1; i >= 0; i--)
        if (strncmp(v->w[i], "--runtime=", 10) == 0)
            return v->line[i];
    return 0;
}

/* Closes the section being read, if any. fio's runtime without
 * time_based stops at size or runtime, whichever comes first; pfsbench's
 * always runs the runtime, so a fio section must say time_based. */
static void close_section(struct parse_state *st, struct pfs_jobfile *jf, int cli_argc, char **cli_argv,
                          const char *path, struct pfs_lines *e)
{
    const unsigned fio = st->fio_glob | st->fio_own;
    const int rl = runtime_line(&st->own) ? runtime_line(&st->own) : runtime_line(&st->glob);
    if (st->in_section && (fio & PFS_FIO_USED) && !(fio & PFS_FIO_TIME_BASED) && rl)
        pfs_lines_add(e, "%s:%d: section [%s]: fio's runtime without time_based stops at size or runtime, whichever comes "
                "first; pfsbench's runtime is time based: add time_based, or leave runtime out", path, rl,
                jf->sec[jf->n - 1].name);
    if (st->in_section && finish_section(&jf->sec[jf->n - 1], &st->glob, cli_argc, cli_argv, &st->own) != 0)
        st->oom = 1;
    words_free(&st->own);
    st->in_section = 0;
    st->fio_own = 0;
}

/* `interference = 0|1` and `qos = TARGETS`, valid words in a section. 1. */
static int interference_word(const char *key, const char *val, int line, const char *path,
                             struct pfs_job_section *sec, struct pfs_lines *e)
{
    char err[256];
    struct pfs_qos q;
    if (key[0] == 'i' && strcmp(val, "0") && strcmp(val, "1"))
        pfs_lines_add(e, "%s:%d: interference = %s: 0 or 1", path, line, val);
    else if (key[0] == 'i')
        sec->interference = val[0] == '1';
    else if (pfs_qos_parse(val, &q, err, sizeof(err)) != 0)
        pfs_lines_add(e, "%s:%d: qos = %s: %s", path, line, val, err);
    else
        snprintf(sec->qos, sizeof(sec->qos), "%s", val);
    return 1;
}

/* `concurrent = TAG` / `share = N` / `interference = 0|1` / `qos =
 * TARGETS`: a section's words about how it runs, not options. 1 when the
 * line was one of them (told in e when wrong). */
static int group_line(const char *s, int line, const char *path, int in_section, struct pfs_job_section *sec,
                      struct pfs_lines *e)
{
    char key[32], val[96];
    if (sscanf(s, " %31[a-z] = %95s", key, val) != 2 ||
        (strcmp(key, "concurrent") && strcmp(key, "share") && strcmp(key, "interference") && strcmp(key, "qos")))
        return 0;
    if (!in_section) {
        pfs_lines_add(e, "%s:%d: '%s' belongs in a [name] section, not [global]", path, line, key);
        return 1;
    }
    if (key[0] == 'i' || key[0] == 'q')
        return interference_word(key, val, line, path, sec, e);
    if (key[0] == 'c') {
        if (!name_ok(val))
            pfs_lines_add(e, "%s:%d: concurrent = %s: use letters, digits, '-', '_' and '.'", path, line, val);
        else
            snprintf(sec->group, sizeof(sec->group), "%.63s", val);
        return 1;
    }
    char *end;
    long v = strtol(val, &end, 10);
    if (*end || v < 1 || v > 1000000)
        pfs_lines_add(e, "%s:%d: share = %s: a whole number from 1 to 1000000", path, line, val);
    else
        sec->share = (int)v;
    return 1;
}

/* A group's interference: any of its sections says so. */
static int group_interference(const struct pfs_jobfile *jf, const char *g)
{
    for (int i = 0; i < jf->n; i++)
        if (strcmp(jf->sec[i].group, g) == 0 && jf->sec[i].interference)
            return 1;
    return 0;
}

/* Sections of one concurrent group follow each other: a group is run as
 * one step. interference and qos only in a group (qos: one with
 * interference, whose together run it is checked on). */
static void check_groups(const char *path, const struct pfs_jobfile *jf, struct pfs_lines *e)
{
    for (int i = 0; i < jf->n; i++) {
        const struct pfs_job_section *sec = &jf->sec[i];
        if (!sec->group[0] && (sec->interference || sec->qos[0]))
            pfs_lines_add(e, "%s:%d: section [%s]: %s outside a concurrent group: it compares a group's sections alone "
                          "and together (add concurrent = TAG)", path, sec->line, sec->name,
                          sec->interference ? "interference" : "qos");
        else if (sec->qos[0] && !group_interference(jf, sec->group))
            pfs_lines_add(e, "%s:%d: section [%s]: qos without interference: it is checked against the section's run "
                          "alone (add interference = 1)", path, sec->line, sec->name);
    }
    for (int i = 0; i < jf->n; i++) {
        const char *g = jf->sec[i].group;
        if (!g[0] || (i > 0 && strcmp(jf->sec[i - 1].group, g) == 0))
            continue;
        for (int j = i + 1; j < jf->n; j++)
            if (strcmp(jf->sec[j].group, g) == 0 && strcmp(jf->sec[j - 1].group, g) != 0)
                pfs_lines_add(e, "%s:%d: section [%s]: concurrent = %s again after other sections; put a group's sections "
                        "one after the other", path, jf->sec[j].line, jf->sec[j].name, g);
    }
}

static void one_line(struct parse_state *st, char *s, int line, const char *path, struct pfs_jobfile *jf,
                     int cli_argc, char **cli_argv, struct pfs_lines *e)
{
    if (!*s || *s == '#' || *s == ';')
        return;
    pfs_fio_cut_comment(s);
    if (*s == '[') {
        char name[64];
        if (header_line(s, line, path, jf, e, name))
            return;
        close_section(st, jf, cli_argc, cli_argv, path, e);
        st->in_global = strcmp(name, "global") == 0;
        if (st->in_global)
            return;
        if (jf->n == PFS_JOB_MAX_SECTIONS) {
            pfs_lines_add(e, "%s:%d: more than %d sections", path, line, PFS_JOB_MAX_SECTIONS);
            return;
        }
        struct pfs_job_section *sec = realloc(jf->sec, sizeof(*sec) * (size_t)(jf->n + 1));
        if (!sec) {
            st->oom = 1;
            return;
        }
        jf->sec = sec;
        sec[jf->n] = (struct pfs_job_section){.line = line, .share = 1};
        snprintf(sec[jf->n].name, sizeof(sec[jf->n].name), "%s", name);
        jf->n++;
        st->in_section = 1;
        return;
    }
    if ((st->in_global || st->in_section) &&
        group_line(s, line, path, st->in_section, st->in_section ? &jf->sec[jf->n - 1] : NULL, e))
        return;
    if (!st->in_global && !st->in_section) {
        pfs_lines_add(e, "%s:%d: an option before any section: put it under [global] or a [name]", path, line);
        return;
    }
    option_line(s, line, path, st->in_global ? &st->glob : &st->own, e, &st->oom,
                st->in_global ? &st->fio_glob : &st->fio_own);
}

int pfs_jobfile_parse(const char *path, const char *text, int cli_argc, char **cli_argv, struct pfs_jobfile *jf,
                      char *err, size_t len)
{
    struct pfs_lines e = {err, len, 0, 0, 0}; /* errors pile up, one a line: a file's every mistake at once */
    struct parse_state st = {0};
    *jf = (struct pfs_jobfile){0};
    if (len)
        err[0] = '\0';
    char *copy = pfs_strdup(text ? text : "");
    if (!copy) {
        pfs_lines_add(&e, "%s: out of memory", path);
        return -1;
    }
    int line = 0;
    for (char *s = copy; s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        one_line(&st, pfs_trim(s), ++line, path, jf, cli_argc, cli_argv, &e);
        s = nl ? nl + 1 : NULL;
    }
    close_section(&st, jf, cli_argc, cli_argv, path, &e);
    words_free(&st.glob);
    check_groups(path, jf, &e);
    free(copy);
    if (!jf->n && !e.count)
        pfs_lines_add(&e, "%s: no [name] section: nothing to run", path);
    if (st.oom)
        pfs_lines_add(&e, "%s: out of memory", path);
    if (e.count) {
        pfs_jobfile_free(jf);
        return -1;
    }
    return 0;
}

/* The job-file line of the option a parser message starts with ("--transfer: ..."), or the header's. */
static int line_of(const struct pfs_job_section *sec, const char *msg)
{
    if (strncmp(msg, "--", 2) != 0)
        return sec->line;
    size_t n = strcspn(msg + 2, ":= ");
    for (int i = sec->argc - 1; i > 0; i--)
        if (strncmp(sec->argv[i] + 2, msg + 2, n) == 0 && (sec->argv[i][2 + n] == '=' || !sec->argv[i][2 + n]))
            return sec->arg_line[i] ? sec->arg_line[i] : sec->line;
    return sec->line;
}

int pfs_jobfile_check(const char *path, const struct pfs_jobfile *jf, int nranks, char *err, size_t len)
{
    struct pfs_lines e = {err, len, 0, 0, 0}; /* errors pile up, one a line: a file's every mistake at once */
    if (len)
        err[0] = '\0';
    for (int i = 0; i < jf->n; i++) {
        const struct pfs_job_section *sec = &jf->sec[i];
        struct pfs_config cfg;
        char msg[PFS_ERRLEN];
        enum pfs_parse_result pr = pfs_config_parse(&cfg, sec->argc, sec->argv, msg, sizeof(msg));
        /* A sweep's points resolve with their own rank counts (checked when it starts). */
        if (pr == PFS_PARSE_RUN && !cfg.ranks[0] && pfs_config_resolve(&cfg, nranks, msg, sizeof(msg)) != 0)
            pr = PFS_PARSE_ERROR;
        else if (pr == PFS_PARSE_RUN && cfg.job[0])
            snprintf(msg, sizeof(msg), "a job file cannot name another (-f)"), pr = PFS_PARSE_ERROR;
        else if (pr == PFS_PARSE_RUN && cfg.ranks[0] && sec->group[0])
            snprintf(msg, sizeof(msg), "a section of a concurrent group cannot be a rank sweep (ranks)"), pr = PFS_PARSE_ERROR;
        if (pr == PFS_PARSE_RUN && sec->group[0] && (i == 0 || strcmp(jf->sec[i - 1].group, sec->group) != 0)) {
            int k = 1;
            while (i + k < jf->n && strcmp(jf->sec[i + k].group, sec->group) == 0)
                k++;
            if (k > nranks)
                snprintf(msg, sizeof(msg), "concurrent = %s has %d sections but the job %d rank%s; each needs one",
                         sec->group, k, nranks, nranks == 1 ? "" : "s"), pr = PFS_PARSE_ERROR;
        }
        if (pr != PFS_PARSE_RUN)
            pfs_lines_add(&e, "%s:%d: section [%s]: %s", path, line_of(sec, msg), sec->name,
                    pr == PFS_PARSE_ERROR ? msg : "help, version and listings cannot run from a job file");
    }
    return e.count ? -1 : 0;
}

void pfs_jobfile_free(struct pfs_jobfile *jf)
{
    for (int i = 0; i < jf->n; i++) {
        for (int k = 0; k < jf->sec[i].argc; k++)
            free(jf->sec[i].argv[k]);
        free(jf->sec[i].argv);
        free(jf->sec[i].arg_line);
    }
    free(jf->sec);
    *jf = (struct pfs_jobfile){0};
}

/* Appends n bytes of s to the growing buffer *b (length *n, capacity *cap). */
static int grow(char **b, size_t *n, size_t *cap, const char *s, size_t k)
{
    if (*n + k + 1 > *cap) {
        size_t c = (*cap ? *cap : 256);
        while (c < *n + k + 1)
            c *= 2;
        char *nb = realloc(*b, c);
        if (!nb)
            return -1;
        *b = nb;
        *cap = c;
    }
    memcpy(*b + *n, s, k);
    *n += k;
    (*b)[*n] = '\0';
    return 0;
}

/* One ${...} at p (after "${"): its value (getenv or the default), or NULL
 * with err set; *end points past the closing brace. */
static const char *one_var(const char *path, int line, const char *p, const char **end, char *def, size_t dlen,
                           char *err, size_t len)
{
    const char *close = strchr(p, '}');
    const char *nl = strchr(p, '\n');
    if (!close || (nl && nl < close)) {
        snprintf(err, len, "%s:%d: '${' without its '}'", path, line);
        return NULL;
    }
    char name[128];
    const char *dash = strstr(p, ":-");
    size_t nlen = (size_t)((dash && dash < close ? dash : close) - p);
    if (!nlen || nlen >= sizeof(name)) {
        snprintf(err, len, "%s:%d: an empty or overlong ${NAME}", path, line);
        return NULL;
    }
    memcpy(name, p, nlen);
    name[nlen] = '\0';
    *end = close + 1;
    const char *v = getenv(name);
    if (!v && dash && dash < close) {
        snprintf(def, dlen, "%.*s", (int)(close - dash - 2), dash + 2);
        v = def;
    }
    if (!v)
        snprintf(err, len, "%s:%d: ${%s} is not set (set it, or write ${%s:-DEFAULT})", path, line, name, name);
    else if (strchr(v, '\n'))
        snprintf(err, len, "%s:%d: ${%s} holds a newline", path, line, name), v = NULL;
    return v;
}

char *pfs_jobfile_expand(const char *path, const char *text, char *err, size_t len)
{
    char *out = NULL, def[1024];
    size_t n = 0, cap = 0;
    int line = 1, bad = grow(&out, &n, &cap, "", 0);
    for (const char *p = text; *p && !bad;) {
        const char *d = strstr(p, "${");
        const char *stop = d ? d : p + strlen(p);
        for (const char *q = p; q < stop; q++)
            line += *q == '\n';
        bad = grow(&out, &n, &cap, p, (size_t)(stop - p));
        if (!d || bad)
            break;
        const char *v = one_var(path, line, d + 2, &p, def, sizeof(def), err, len);
        bad = !v || grow(&out, &n, &cap, v, strlen(v));
    }
    if (bad) {
        if (!err[0])
            snprintf(err, len, "%s: out of memory", path);
        free(out);
        return NULL;
    }
    return out;
}
