/* Every option row, the core's table and each backend's own, and the one
 * function that parses a value into a row's field: the generic parser
 * (config.c), describe (config_describe.c), --list-options=json
 * (config_json.c) and job files (jobfile.c) reach rows through these. */
#define _GNU_SOURCE
#include "pfs/config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pfs/backend.h"
#include "pfs/dist.h"
#include "pfs/names.h"
#include "pfs/units.h"

#include "config_table.h"

#define OFF(f) offsetof(struct pfs_config, f)

/* ---- the rows ---- */

size_t pfs_opt_total(void)
{
    size_t n = pfs_opt_count;
    for (int i = 0; i < pfs_backend_count(); i++) {
        const struct pfs_backend_options *bo = pfs_backend_options_of(i);
        n += bo ? bo->count : 0;
    }
    return n;
}

const struct pfs_opt *pfs_opt_at(size_t i, int *api)
{
    *api = -1;
    if (i < pfs_opt_count)
        return &pfs_opt_table[i];
    i -= pfs_opt_count;
    for (int k = 0; k < pfs_backend_count(); k++) {
        const struct pfs_backend_options *bo = pfs_backend_options_of(k);
        if (!bo)
            continue;
        if (i < bo->count) {
            *api = k;
            return &bo->rows[i];
        }
        i -= bo->count;
    }
    return NULL;
}

const struct pfs_opt *pfs_opt_find(const char *name, int *api)
{
    const struct pfs_opt *o;
    for (size_t i = 0; (o = pfs_opt_at(i, api)); i++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

void pfs_opt_defaults(int api, void *block)
{
    memset(block, 0, PFS_BACKEND_OPTS_MAX);
    const struct pfs_backend_options *bo = pfs_backend_options_of(api);
    char err[256];
    for (size_t i = 0; bo && i < bo->count; i++)
        if (bo->rows[i].def) /* a table's own default parses (tests/unit/test_backends.c) */
            (void)pfs_opt_set(&bo->rows[i], bo->rows[i].def, NULL, block, err, sizeof(err));
}

const void *pfs_opt_base(const struct pfs_config *cfg, int api, void *scratch)
{
    if (api < 0)
        return cfg;
    if (api == cfg->api)
        return cfg->backend_opts;
    pfs_opt_defaults(api, scratch);
    return scratch;
}

/* ---- values ---- */

static int parse_phases(const char *s, struct pfs_config *cfg, char *err, size_t len)
{
    char tmp[512];
    if (strlen(s) >= sizeof(tmp))
        return pfs_fail(err, len, "--phases: list too long");
    strcpy(tmp, s);
    cfg->nphases = 0;
    char *save = NULL;
    for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = pfs_phase_find(tok, strlen(tok));
        if (k < 0) {
            char all[256];
            pfs_phase_names(all, sizeof(all), ",", PFS_PHASE_ANY, 0, 0);
            return pfs_fail(err, len, "--phases: unknown phase '%s'; use a comma list of %s", tok, all);
        }
        if (cfg->nphases == PFS_MAX_PHASES)
            return pfs_fail(err, len, "--phases: at most %d phases", PFS_MAX_PHASES);
        cfg->phases[cfg->nphases++] = k;
    }
    if (cfg->nphases == 0 || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
        return pfs_fail(err, len, "--phases: empty phase in '%s'; use e.g. -p write,read", s);
    return 0;
}

/* The index of arg among choices "a|b|c", or -1; in any case (--layout
 * STRIDED) when nocase. */
static int choice_index(const char *choices, const char *arg, int nocase)
{
    const char *c = choices;
    for (int idx = 0; c && *c; idx++) {
        size_t n = strcspn(c, "|");
        if (strlen(arg) == n && (nocase ? strncasecmp(arg, c, n) : strncmp(arg, c, n)) == 0)
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

size_t pfs_opt_choice(const struct pfs_opt *o, int idx, const char **name)
{
    if (!o->registry)
        return pfs_opt_choice_name(o->choices, idx, name);
    if (idx < 0 || idx >= pfs_backend_count())
        return 0;
    *name = pfs_backend_name(idx);
    return strlen(*name);
}

const char *pfs_opt_choices_text(const struct pfs_opt *o, char *buf, size_t len)
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

/* The registry line of an --api name, in any case (-a MPIIO), or -1. */
/* --random-dist: refused here, with the parser's own words, when it does
 * not parse (the phases parse it again per stream). */
static int random_dist_bad(const char *arg, char *err, size_t len)
{
    struct pfs_dist_spec sp;
    char why[160];
    if (pfs_dist_parse(arg, &sp, why, sizeof(why)) == 0)
        return 0;
    pfs_fail(err, len, "--random-dist %s", why);
    return 1;
}

/* --bssplit: refused here, with the parser's own words (the streams parse
 * it again for their draws). */
static int bssplit_bad(const char *arg, char *err, size_t len)
{
    struct pfs_mix m;
    char why[200];
    if (pfs_bssplit_parse(arg, &m, why, sizeof(why)) == 0)
        return 0;
    pfs_fail(err, len, "--%s", why);
    return 1;
}

static int registry_index(const char *arg)
{
    for (int i = 0; i < pfs_backend_count(); i++)
        if (strcasecmp(arg, pfs_backend_name(i)) == 0)
            return i;
    return -1;
}

int pfs_opt_set(const struct pfs_opt *o, const char *arg, struct pfs_config *cfg, void *base, char *err, size_t len)
{
    char *field = (char *)base + o->off;
    char *end;
    switch (o->type) {
    case T_FLAG:
        *(int *)field = atoi(o->choices);
        return 0;
    case T_SIZE0:
    case T_SIZE: {
        const struct pfs_size_syntax syn = {o->type == T_SIZE0 ? PFS_SIZE_ZERO : 0, 1, NULL};
        char why[160];
        if (pfs_size_parse(arg, &syn, (uint64_t *)field, why, sizeof(why)) != 0)
            return pfs_fail(err, len, "--%s: '%s' is not a size: %s; give %s", o->name, arg, why, PFS_SIZE_HELP);
        if (cfg && o->off == OFF(block))
            cfg->block_given = 1;
        return 0;
    }
    case T_INT: {
        if (o->vals && strcmp(arg, o->vals) == 0) { /* the word that stands for 0 (--reps auto) */
            *(int *)field = 0;
            return 0;
        }
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (errno || end == arg || *end || v < o->min || v > o->max)
            return pfs_fail(err, len, "--%s: '%s' is not a whole number from %.0f to %.0f%s%s", o->name, arg, o->min, o->max,
                        o->vals ? " or " : "", o->vals ? o->vals : "");
        *(int *)field = (int)v;
        return 0;
    }
    case T_DOUBLE: {
        /* A row in seconds takes a duration (--runtime 2m); others a plain number. */
        const int secs = o->unit && strcmp(o->unit, "seconds") == 0;
        char why[160];
        double v;
        if (secs && pfs_parse_duration(arg, &v, why, sizeof(why)) != 0)
            return pfs_fail(err, len, "--%s: '%s' is not a duration: %s; give %s", o->name, arg, why, PFS_DURATION_HELP);
        if (secs && (v < o->min || v > o->max))
            return pfs_fail(err, len, "--%s: '%s' is %g s; give from %g to %g seconds", o->name, arg, v, o->min, o->max);
        if (secs) {
            *(double *)field = v;
            return 0;
        }
        errno = 0;
        v = strtod(arg, &end);
        if (errno || end == arg || *end || !isfinite(v) || v < o->min || v > o->max)
            return pfs_fail(err, len, "--%s: '%s' is not a number from %g to %g", o->name, arg, o->min, o->max);
        *(double *)field = v;
        return 0;
    }
    case T_STRING: {
        size_t cap = !cfg ? o->cap
                   : o->off == OFF(label) ? sizeof(cfg->label)
                   : o->off == OFF(run_id) ? sizeof(cfg->run_id)
                   : o->off == OFF(ckpt) ? sizeof(cfg->ckpt)
                   : o->off == OFF(random_dist) ? sizeof(cfg->random_dist)
                   : o->off == OFF(bssplit) ? sizeof(cfg->bssplit)
                   : o->off == OFF(train) ? sizeof(cfg->train)
                   : o->off == OFF(rate) ? sizeof(cfg->rate)
                   : o->off == OFF(rate_sweep) ? sizeof(cfg->rate_sweep)
                   : o->off == OFF(lat_target) ? sizeof(cfg->lat_target)
                   : o->off == OFF(ckpt_saved) ? sizeof(cfg->ckpt_saved) : PFS_PATH_MAX;
        if (!*arg)
            return pfs_fail(err, len, "--%s: empty value", o->name);
        if (strlen(arg) >= cap)
            return pfs_fail(err, len, "--%s: value longer than %zu characters", o->name, cap - 1);
        if (cfg && o->off == OFF(random_dist) && random_dist_bad(arg, err, len))
            return -1;
        if (cfg && o->off == OFF(bssplit) && bssplit_bad(arg, err, len))
            return -1;
        if (cfg && o->off == OFF(run_id) && !pfs_run_id_valid(arg))
            return pfs_fail(err, len, "--run-id: '%s' may hold only letters, digits, '-' and '_'", arg);
        if (cfg && o->off == OFF(results) && !pfs_results_name_ok(arg))
            return pfs_fail(err, len, "-o '%s': -o names pfsbench's HDF5 results file; IOR's -o test file path is "
                        "--file-name PATH here (or pfsbench ior -o PATH); give a name ending in .h5", arg);
        strcpy(field, arg);
        return 0;
    }
    case T_PHASES: /* the core's */
        return cfg ? parse_phases(arg, cfg, err, len) : pfs_fail(err, len, "--%s: not an option of a backend", o->name);
    case T_CHOICE: {
        char all[256];
        /* Names in any case (-a POSIX, IOR's spelling), but not units, whose
         * case is their meaning (KB, kb, Kb). */
        int idx = o->registry ? registry_index(arg) : choice_index(o->choices, arg, !cfg || o->off != OFF(units));
        if (idx < 0)
            return pfs_fail(err, len, "--%s: '%s' is not one of %s%s", o->name, arg, pfs_opt_choices_text(o, all, sizeof(all)),
                        o->registry && strcasecmp(arg, "dummy") == 0 ? " (IOR's DUMMY is null)" : "");
        *(int *)field = idx;
        return 0;
    }
    case T_HINT: {
        if (!cfg) /* the core's */
            return pfs_fail(err, len, "--%s: not an option of a backend", o->name);
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return pfs_fail(err, len, "--hint: '%s' is not key=value, e.g. --hint striping_factor=4", arg);
        if (cfg->nhints == PFS_MAX_HINTS)
            return pfs_fail(err, len, "--hint: at most %d hints", PFS_MAX_HINTS);
        if (strlen(arg) >= sizeof(cfg->hints[0]))
            return pfs_fail(err, len, "--hint: '%s' is too long", arg);
        if (pfs_hint_check(arg, err, len) < 0)
            return -1;
        strcpy(cfg->hints[cfg->nhints++], arg);
        return 0;
    }
    case T_ACTION:
        /* An action that takes a value takes one of its choices. */
        if (o->arg && arg && choice_index(o->choices, arg, 0) < 0)
            return pfs_fail(err, len, "--%s: '%s' is not one of %s", o->name, arg, o->choices);
        return 0;
    }
    return 0;
}

