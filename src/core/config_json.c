/* --list-options=json: the option, phase, unit and exit tables and the
 * results schema (pfs/schema.h) as one JSON document for scripts
 * (scripts/pfsrun, scripts/pfs-sweep, scripts/results_doc.py). docs/usage.md
 * describes it. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_table.h"
#include "pfs/backend.h"
#include "pfs/names.h"
#include "pfs/schema.h"
#include "pfs/units.h"


/* A JSON string of one of the tables' own strings. They are ASCII and
 * fixed at build time (tests/unit/test_config.c checks), so quotes,
 * backslashes and controls are all there is to escape (report.c's escaper
 * is for bytes from outside). */
static void json_str(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; s && i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void json_key(FILE *out, const char *key, const char *s)
{
    fprintf(out, ", \"%s\": ", key);
    if (s)
        json_str(out, s, SIZE_MAX);
    else
        fputs("null", out);
}

static void json_choices(FILE *out, const struct pfs_opt *o)
{
    const char *name;
    size_t n;
    fputc('[', out);
    for (int i = 0; (n = pfs_opt_choice(o, i, &name)) != 0; i++) {
        fputs(i ? ", " : "", out);
        json_str(out, name, n);
    }
    fputc(']', out);
}

static const char *type_name(enum pfs_opt_type t)
{
    static const char *names[] = {[T_FLAG] = "flag",     [T_SIZE] = "size",   [T_SIZE0] = "size",
                                  [T_INT] = "integer",   [T_DOUBLE] = "number", [T_STRING] = "string",
                                  [T_PHASES] = "phases", [T_CHOICE] = "choice", [T_HINT] = "hint",
                                  [T_ACTION] = "action"};
    return names[t];
}

/* The default, typed: null where there is none (an empty string, a size or
 * number that means "not given" or "off", an action). */
static void json_default(FILE *out, const struct pfs_opt *o, const void *base, const struct pfs_config *def)
{
    const char *field = (const char *)base + o->off;
    char buf[256];
    fputs(", \"default\": ", out);
    switch (o->type) {
    case T_FLAG: fputs(*(const int *)field == atoi(o->choices) ? "true" : "false", out); return;
    case T_SIZE:
    case T_SIZE0:
        if (o->type == T_SIZE && *(const uint64_t *)field == 0)
            break;
        fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)field);
        return;
    case T_INT:
        if (*(const int *)field < o->min)
            break;
        fprintf(out, "%d", *(const int *)field);
        return;
    case T_DOUBLE:
        if (*(const double *)field < o->min)
            break;
        fprintf(out, "%.17g", *(const double *)field);
        return;
    case T_STRING:
    case T_CHOICE:
    case T_PHASES:
        if (pfs_opt_value(o, base, def, buf, sizeof(buf)) == 0)
            break;
        json_str(out, buf, SIZE_MAX);
        return;
    case T_HINT:
    case T_ACTION: break;
    }
    fputs("null", out);
}

/* One row; api: the registry line whose backend owns it (-1: the core's). */
static void json_option(FILE *out, const struct pfs_opt *o, int api, const struct pfs_config *def)
{
    _Alignas(16) unsigned char scratch[PFS_BACKEND_OPTS_MAX];
    char shrt[2] = {(char)o->shrt, '\0'};
    int takes = !(o->type == T_FLAG || (o->type == T_ACTION && !o->arg));
    /* long, short and takes_value first, on one line per option: a shell
     * script can read them with a regular expression (scripts/pfsrun). */
    fputs("    {\"long\": ", out);
    json_str(out, o->name, SIZE_MAX);
    fputs(", \"short\": ", out);
    if (o->shrt)
        json_str(out, shrt, 1);
    else
        fputs("null", out);
    fprintf(out, ", \"takes_value\": %s", takes ? "true" : "false");
    json_key(out, "arg", o->arg);
    json_key(out, "type", type_name(o->type));
    json_default(out, o, pfs_opt_base(def, api, scratch), def);
    if (o->type == T_INT || o->type == T_DOUBLE)
        fprintf(out, ", \"min\": %.17g, \"max\": %.17g", o->min, o->max);
    if (o->type == T_INT && o->vals) { /* a word it takes besides the numbers (--reps auto) */
        fputs(", \"words\": [", out);
        json_str(out, o->vals, SIZE_MAX);
        fputc(']', out);
    }
    else if (o->type == T_SIZE || o->type == T_SIZE0)
        fprintf(out, ", \"min\": %d, \"max\": %" PRIu64, o->type == T_SIZE, (uint64_t)INT64_MAX / 2);
    if (o->type == T_CHOICE || (o->type == T_ACTION && o->arg)) {
        fputs(", \"choices\": ", out);
        json_choices(out, o);
    } else if (o->type == T_PHASES) {
        fputs(", \"choices\": [", out);
        for (int i = 0; pfs_phase_desc(i); i++) {
            fputs(i ? ", " : "", out);
            json_str(out, pfs_phase_desc(i)->name, SIZE_MAX);
        }
        fputc(']', out);
    }
    if (o->type == T_FLAG) { /* what the flag sets, as describe says it */
        const char *name = "";
        size_t n = o->vals ? pfs_opt_choice_name(o->vals, atoi(o->choices) != 0, &name) : 0;
        fputs(", \"sets\": ", out);
        if (n)
            json_str(out, name, n);
        else
            fprintf(out, "%d", atoi(o->choices));
    }
    fprintf(out, ", \"repeatable\": %s", o->type == T_HINT ? "true" : "false");
    json_key(out, "key", o->key);
    json_key(out, "unit", o->unit);
    json_key(out, "help", o->help);
    json_key(out, "backend", api >= 0 ? pfs_backend_name(api) : NULL); /* whose option: --api NAME only */
    fputc('}', out);
}

/* The registry's lines: name, help, whether this pfsbench has it (and why
 * not), its options' names; a MODULE line's backend is loaded when chosen. */
static void json_backends(FILE *out)
{
    fputs("  \"backends\": [\n", out);
    for (int i = 0; i < pfs_backend_count(); i++) {
        fputs("    {\"name\": ", out);
        json_str(out, pfs_backend_name(i), SIZE_MAX);
        json_key(out, "help", pfs_backend_help(i));
        char why[256];
        pfs_backend_not_built(i, why, sizeof(why));
        fprintf(out, ", \"built\": %s", pfs_backend_built(i) ? "true" : "false");
        json_key(out, "not_built", why[0] ? why : NULL); /* why --api refuses it */
        fprintf(out, ", \"module\": %s, \"options\": [", pfs_backend_is_module(i) ? "true" : "false");
        const struct pfs_backend_options *bo = pfs_backend_options_of(i);
        for (size_t k = 0; bo && k < bo->count; k++) {
            fputs(k ? ", " : "", out);
            json_str(out, bo->rows[k].name, SIZE_MAX);
        }
        fprintf(out, "]}%s\n", i + 1 < pfs_backend_count() ? "," : "");
    }
    fputs("  ],\n", out);
}

static void json_phases(FILE *out)
{
    static const struct {
        const char *name;
        unsigned flag;
    } flags[] = {{"reads", PFS_PHF_READS},         {"writes", PFS_PHF_WRITES},       {"creates", PFS_PHF_CREATES},
                 {"removes", PFS_PHF_REMOVES},     {"reorder", PFS_PHF_OTHERS},      {"stonewall", PFS_PHF_STONEWALL},
                 {"sets_count", PFS_PHF_SETS_COUNT}, {"dirs", PFS_PHF_DIRS},
                 {"wears_out", PFS_PHF_WEARS_OUT}, {"rmw", PFS_PHF_RMW},         {"fsync_every", PFS_PHF_SYNCS},
                 {"sized", PFS_PHF_SIZED},         {"walks", PFS_PHF_WALKS},         {"matches", PFS_PHF_MATCHES},
                 {"own_files", PFS_PHF_OWN_FILES}, {"accelerators", PFS_PHF_ACCEL}};
    fputs("  \"phases\": [\n", out);
    for (int i = 0; pfs_phase_desc(i); i++) {
        const struct pfs_phase_ops *d = pfs_phase_desc(i);
        fputs("    {\"name\": ", out);
        json_str(out, d->name, SIZE_MAX);
        json_key(out, "kind", d->kind == PFS_PHASE_META ? "metadata" : "data");
        json_key(out, "unit", pfs_phase_unit_name(i));
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
            fprintf(out, ", \"%s\": %s", flags[f].name, d->flags & flags[f].flag ? "true" : "false");
        json_key(out, "needs", d->needs >= 0 ? pfs_phase_name(d->needs) : NULL);
        json_key(out, "op", d->op);
        json_key(out, "help", d->help);
        fprintf(out, "}%s\n", pfs_phase_desc(i + 1) ? "," : "");
    }
    fputs("  ],\n", out);
}


/* Every unit spelling the size parser takes (pfs/units.h), found by asking
 * it: the candidates are the bare forms and each letter's forms in every case. */
#define SPELLINGS (3 + 4 * 18)
static int size_units(char (*spell)[5], uint64_t *mult)
{
    static const char *const forms[] = {"", "i", "ib", "b"};
    static const char *const bare[] = {"", "b", "B"};
    int n = 0, k = 0;
    char cand[SPELLINGS][5];
    for (int i = 0; i < 3; i++)
        snprintf(cand[k++], sizeof(cand[0]), "%s", bare[i]);
    for (const char *l = "kmgt"; *l; l++)
        for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
            size_t flen = strlen(forms[f]);
            for (unsigned c = 0; c < 1u << (1 + flen); c++) {
                char *w = cand[k++];
                w[0] = c & 1 ? (char)(*l - 'a' + 'A') : *l;
                for (size_t j = 0; j < flen; j++)
                    w[1 + j] = c >> (j + 1) & 1 ? (char)(forms[f][j] - 'a' + 'A') : forms[f][j];
                w[1 + flen] = '\0';
            }
        }
    for (int i = 0; i < k; i++) {
        char word[1 + sizeof(cand[0])] = "1";
        memcpy(word + 1, cand[i], sizeof(cand[0]));
        if (pfs_parse_size(word, &mult[n]) == 0)
            memcpy(spell[n++], cand[i], sizeof(cand[i]));
    }
    return n;
}

static void json_sizes(FILE *out)
{
    char unit[SPELLINGS][5];
    uint64_t mult[SPELLINGS];
    int n = size_units(unit, mult);
    fputs("  \"sizes\": {\"syntax\": \"^[0-9]+(", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? "|" : "", unit[i]);
    fputs(")$\", \"suffixes\": {", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", unit[i], mult[i]);
    fprintf(out, "}, \"suffix_case\": \"exact\", \"min\": 1, \"max\": %" PRIu64 ", \"zero\": \"0, where an option's min is 0\"},\n",
            PFS_SIZE_MAX);
}

static void json_tail(FILE *out)
{
    fputs("  \"units\": [\n", out);
    for (int i = 0; i < pfs_units_count; i++) {
        fputs("    {\"name\": ", out);
        json_str(out, pfs_units_table[i].name, SIZE_MAX);
        json_key(out, "label", pfs_units_table[i].label);
        fprintf(out, ", \"bytes_per_second\": %.17g}%s\n", pfs_units_table[i].scale, i + 1 < pfs_units_count ? "," : "");
    }
    fputs("  ],\n", out);
    json_sizes(out);
    fputs("  \"exit_codes\": [", out);
    for (size_t i = 0; i < pfs_exit_count; i++) {
        fprintf(out, "%s{\"code\": %d", i ? ", " : "", pfs_exit_table[i].code);
        json_key(out, "meaning", pfs_exit_table[i].meaning);
        fputc('}', out);
    }
    fprintf(out, "],\n  \"signal_exit\": {\"base\": 128, \"signals\": [");
    for (size_t i = 0; i < pfs_exit_nsignals; i++) {
        fputs(i ? ", " : "", out);
        json_str(out, pfs_exit_signals[i], SIZE_MAX);
    }
    fprintf(out, "]},\n  \"names\": {\"data\": \"pfsbench.{run_id}.{stream}\", \"shared\": \"pfsbench.{run_id}.shared\", "
                 "\"lock\": \"pfsbench.{run_id}.lock\", \"kept\": \"pfsbench.{run_id}.kept\", \"md_top\": \"pfsbench.{run_id}.md\", \"md_subdir\": "
                 "\"s{stream}\", \"md_file\": \"f.{stream}.{index}\", \"run_id\": \"^[%s]{1,%d}$\"},\n",
            PFS_RUN_ID_CLASS, PFS_RUN_ID_MAX - 1);
}

/* ---- the results schema (pfs/schema.h) ---- */

static void json_report_flags(FILE *out, unsigned r)
{
    static const struct {
        const char *name;
        unsigned flag;
    } flags[] = {{"units", PFS_SCH_UNITS}, {"kb", PFS_SCH_KB}, {"stonewall", PFS_SCH_STONEWALL}};
    fputs(", \"report\": [", out);
    int n = 0;
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (r & flags[i].flag) {
            fputs(n++ ? ", " : "", out);
            json_str(out, flags[i].name, SIZE_MAX);
        }
    fputc(']', out);
}

/* One field on one line: what it is (name, type, unit, meaning), where it
 * is (from, offset, sub, stride, shape), when the file has it, and its
 * names in the reports. */
static void json_field(FILE *out, const struct pfs_sch_field *f)
{
    fputs("        {\"name\": ", out);
    json_str(out, f->name, SIZE_MAX);
    json_key(out, "type", pfs_sch_type_name(f->type));
    json_key(out, "unit", f->unit);
    json_key(out, "meaning", f->meaning);
    json_key(out, "shape", f->shape);
    json_key(out, "from", pfs_sch_from_name(f->from));
    fprintf(out, ", \"offset\": %zu, \"sub\": %zu, \"stride\": %zu", f->offset, f->sub, f->stride);
    json_key(out, "when", pfs_sch_when_name(f->when));
    json_key(out, "units", f->units ? f->units : f->unit);
    json_key(out, "compound", f->compound);
    json_key(out, "json", f->json);
    json_key(out, "csv", f->csv);
    json_key(out, "csv_format", f->csv_fmt);
    json_report_flags(out, f->report);
    fputc('}', out);
}

static void json_schema(FILE *out)
{
    fputs("  \"schema\": [\n", out);
    for (size_t i = 0; i < pfs_schema_count; i++) {
        const struct pfs_sch_table *t = &pfs_schema[i];
        fputs("    {\"table\": ", out);
        json_str(out, t->name, SIZE_MAX);
        json_key(out, "kind", pfs_sch_kind_name(t->kind));
        json_key(out, "where", t->where);
        json_key(out, "c_struct", t->c_struct[0] ? t->c_struct : NULL);
        fprintf(out, ", \"size\": %zu", t->size);
        json_key(out, "units", t->units);
        fputs(", \"fields\": [\n", out);
        for (size_t k = 0; k < t->n; k++) {
            json_field(out, &t->field[k]);
            fputs(k + 1 < t->n ? ",\n" : "\n", out);
        }
        fprintf(out, "      ]}%s\n", i + 1 < pfs_schema_count ? "," : "");
    }
    fputs("  ]\n", out);
}

void pfs_config_list_json(FILE *out)
{
    struct pfs_config def;
    pfs_config_defaults(&def);
    fputs("{\n  \"program\": \"pfsbench\",\n  \"version\": ", out);
    json_str(out, PFS_VERSION, SIZE_MAX);
    fputs(",\n  \"options\": [\n", out);
    const struct pfs_opt *o;
    int api;
    for (size_t i = 0; (o = pfs_opt_at(i, &api)); i++) {
        fputs(i ? ",\n" : "", out);
        json_option(out, o, api, &def);
    }
    fputs("\n  ],\n", out);
    json_backends(out);
    json_phases(out);
    json_tail(out);
    json_schema(out);
    fputs("}\n", out);
}
