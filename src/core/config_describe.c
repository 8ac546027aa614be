/* The options as people and files read them: --help, and describe (the
 * report header, the results file's config attribute and its one attribute
 * per option), all walking the option table. */
#include "pfs/config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/backend.h"

#include "config_table.h"

#define NOPTS pfs_opt_count

/* One option's line: "  -d, --dir DIR   help", a backend's indented
 * further ("      --hdf5-chunk SIZE  help"; tests/unit/test_config.c and
 * scripts/gen-man.py read both forms). */
static void usage_line(FILE *out, const struct pfs_opt *o)
{
    char left[64], all[256];
    if (o->shrt)
        snprintf(left, sizeof(left), "-%c, --%s%s%s", o->shrt, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    else
        snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (o->type == T_CHOICE || (o->type == T_ACTION && o->arg))
        fprintf(out, "  %-26s %s; %s is one of %s\n", left, o->help, o->arg, pfs_opt_choices_text(o, all, sizeof(all)));
    else if (o->type == T_PHASES) /* the phase registry's, in its order */
        fprintf(out, "  %-26s %s; %s is a comma list of %s\n", left, o->help, o->arg,
                (pfs_phase_names(all, sizeof(all), ",", PFS_PHASE_ANY, 0, 0), all));
    else /* a name as long as the column still gets two spaces before its help */
        fprintf(out, "  %-26s%s%s\n", left, strlen(left) >= 26 ? "  " : " ", o->help);
}

/* A section per backend: its line (what it is) and its own options. */
static void usage_backends(FILE *out)
{
    fprintf(out, "\nbackends (-a/--api NAME; default %s), each with its own options:\n", pfs_backend_name(0));
    for (int i = 0; i < pfs_backend_count(); i++) {
        char why[256];
        const char *help = pfs_backend_help(i);
        if (pfs_backend_not_built(i, why, sizeof(why)))
            fprintf(out, "  %-8s not built: %s\n", pfs_backend_name(i), why);
        else
            fprintf(out, "  %-8s %s\n", pfs_backend_name(i), help ? help : "");
        const struct pfs_backend_options *bo = pfs_backend_options_of(i);
        for (size_t k = 0; bo && k < bo->count; k++)
            usage_line(out, &bo->rows[k]);
    }
}

void pfs_config_usage(FILE *out)
{
    fprintf(out, "usage: mpirun -np N pfsbench -d DIR [options]\n"
                 "       mpirun -np N pfsbench ior|mdtest|iozone [that tool's options]  (a front end:\n"
                 "       pfsbench ior --help lists the options it translates)\n\n"
                 "Sequential bandwidth and metadata rates of a parallel file system: N ranks (x threads),\n"
                 "a file each or one shared file, phases separated by barriers, results in HDF5.\n"
                 "SIZE is bytes, or with a unit: k, m, g, t or KiB, MiB, GiB, TiB (1024-based), KB, MB, GB,\n"
                 "TB (1000-based); 4kb, 1gb are refused as ambiguous. SECS is seconds (fractions too), or\n"
                 "with s, ms, m, h or d: 90, 1.5m, 2h.\n\noptions:\n");
    for (size_t i = 0; i < NOPTS; i++)
        usage_line(out, &pfs_opt_table[i]);
    usage_backends(out);
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

/* An option's value in base (the struct its offset is in: pfs_opt_base)
 * as describe writes it; cfg for the core's lists (phases, hints). */
static void put_value(struct sink *k, const struct pfs_opt *o, const void *base, const struct pfs_config *cfg)
{
    const char *field = (const char *)base + o->off, *name = "";
    size_t n;
    if (o->blank && *(const int *)((const char *)base + o->blank - 1))
        return;
    switch (o->type) {
    case T_STRING: sput(k, "%s", field); break;
    case T_SIZE:
    case T_SIZE0: sput(k, "%llu", (unsigned long long)*(const uint64_t *)field); break;
    case T_INT:
        if (o->vals && *(const int *)field == 0)
            sput(k, "%s", o->vals);
        else
            sput(k, "%d", *(const int *)field);
        break;
    case T_DOUBLE: sput(k, "%g", *(const double *)field); break;
    case T_FLAG:
        if (o->vals && (n = pfs_opt_choice_name(o->vals, *(const int *)field != 0, &name)))
            sput(k, "%.*s", (int)n, name);
        else
            sput(k, "%d", *(const int *)field);
        break;
    case T_CHOICE: {
        int idx = *(const int *)field;
        if (!(n = pfs_opt_choice(o, idx, &name)))
            n = pfs_opt_choice(o, 0, &name);
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

/* The row described at place pos (the results files' order), in any table:
 * NULL where none is; *api as pfs_opt_at. */
static const struct pfs_opt *row_at_pos(int pos, int *api)
{
    const struct pfs_opt *o;
    for (size_t i = 0; (o = pfs_opt_at(i, api)); i++)
        if (o->key && o->pos == pos)
            return o;
    return NULL;
}

/* The last place any row is described at: places may leave gaps (numbers
 * given out to changes made side by side), which describe steps over. */
static int last_pos(void)
{
    const struct pfs_opt *o;
    int api, last = 0;
    for (size_t i = 0; (o = pfs_opt_at(i, &api)); i++)
        if (o->key && o->pos > last)
            last = o->pos;
    return last;
}

/* Every backend's options are described for every run, whichever --api
 * (the chosen one's values, the others' defaults), so that every run of a
 * file has the same keys, as before backends owned their options. */
size_t pfs_config_describe(const struct pfs_config *cfg, char *buf, size_t len)
{
    struct sink k = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    _Alignas(16) unsigned char scratch[PFS_BACKEND_OPTS_MAX];
    const struct pfs_opt *o;
    int api;
    for (int pos = 1, end = last_pos(); pos <= end; pos++) {
        if (!(o = row_at_pos(pos, &api)))
            continue;
        sput(&k, "%s=", o->key);
        put_value(&k, o, pfs_opt_base(cfg, api, scratch), cfg);
        sput(&k, "\n");
    }
    return k.n;
}

size_t pfs_opt_value(const struct pfs_opt *o, const void *base, const struct pfs_config *cfg, char *buf, size_t len)
{
    struct sink k = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    put_value(&k, o, base, cfg);
    return k.n;
}

/* The typed value of row o: sizes are u64, counts int, durations and
 * fractions double, flags int (or their value's name), the rest text. */
static void field_of(const struct pfs_opt *o, const void *base, const struct pfs_config *cfg, struct pfs_field *f,
                     char *text, size_t len)
{
    const char *field = (const char *)base + o->off;
    pfs_opt_value(o, base, cfg, text, len);
    *f = (struct pfs_field){.key = o->key, .unit = o->unit, .type = PFS_FIELD_STR, .s = text};
    switch (o->type) {
    case T_SIZE:
    case T_SIZE0: f->type = PFS_FIELD_U64; f->u = *(const uint64_t *)field; break;
    case T_INT: /* the word (--reps auto) stays text */
        if (!o->vals || *(const int *)field != 0)
            f->type = PFS_FIELD_INT, f->i = *(const int *)field;
        break;
    case T_DOUBLE: f->type = PFS_FIELD_DBL; f->d = *(const double *)field; break;
    case T_FLAG:
        if (!o->vals) {
            f->type = PFS_FIELD_INT;
            f->i = *(const int *)field;
        }
        break;
    case T_ACTION:
        f->type = PFS_FIELD_INT;
        f->i = o->vals ? atoi(o->vals) : 0;
        break;
    default: break;
    }
}

int pfs_config_fields(const struct pfs_config *cfg, int (*fn)(void *arg, const struct pfs_field *f), void *arg)
{
    char text[4096];
    _Alignas(16) unsigned char scratch[PFS_BACKEND_OPTS_MAX];
    const struct pfs_opt *o;
    int api;
    for (int pos = 1, end = last_pos(); pos <= end; pos++) {
        if (!(o = row_at_pos(pos, &api)))
            continue;
        struct pfs_field f;
        field_of(o, pfs_opt_base(cfg, api, scratch), cfg, &f, text, sizeof(text));
        int rc = fn(arg, &f);
        if (rc)
            return rc;
    }
    return 0;
}
