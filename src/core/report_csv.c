/* The CSV report (--format csv): one row per phase and repetition, every
 * figure from the run's figures (d->fig). */
#include "report_int.h"

#include <stdint.h>
#include <string.h>

#include "pfs/report_cache.h"
#include "report_lat.h"

static void csv_str(FILE *out, const char *s)
{
    pfs_escape_write(out, PFS_ESC_CSV, s, SIZE_MAX);
}

/* The describe keys that are columns already (transfer, block, label). */
static int csv_has_column(const char *key)
{
    return !strcmp(key, "transfer") || !strcmp(key, "block") || !strcmp(key, "label");
}

static int csv_field_head(void *arg, const struct pfs_field *f)
{
    if (!csv_has_column(f->key)) {
        fputc(',', (FILE *)arg);
        csv_str(arg, f->key);
    }
    return 0;
}

/* A configuration value as describe writes it (sizes in bytes, seconds as %g). */
static int csv_field(void *arg, const struct pfs_field *f)
{
    if (!csv_has_column(f->key)) {
        fputc(',', (FILE *)arg);
        csv_str(arg, f->s);
    }
    return 0;
}

/* The last columns of a row: is_warmup, then its phase's interval (empty where there is none). */
static void csv_ci(FILE *out, const struct pfs_phase_figs *pf, const struct pfs_rep_figs *r)
{
    const struct pfs_phase_ci *pc = &pf->ci;
    fprintf(out, ",%d,%d,", r->warmup, pc->measured);
    if (isfinite(pc->ci.half))
        fprintf(out, "%.9g", pc->ci.half);
    fputc(',', out);
    if (isfinite(pc->ci.pct))
        fprintf(out, "%.6g", pc->ci.pct);
    fputc(',', out);
    if (pc->target >= 0)
        fprintf(out, "%d", pc->target);
}

/* The report table's figures (the schema names them): those with the
 * tail flag or, tail 0, those without (the tail's are newer columns, at
 * the row's end, so older readers keep their indices). */
static void csv_figures(FILE *out, const struct pfs_rep_figs *r, double scale, unsigned tail)
{
    const struct pfs_sch_table *t = pfs_schema_table("report");
    for (size_t i = 0; i < t->n; i++) {
        const struct pfs_sch_field *f = &t->field[i];
        if (!f->csv || (f->report & PFS_SCH_CSV_TAIL) != tail)
            continue;
        fputc(',', out);
        if (f->type == PFS_SCH_UINT64) {
            fprintf(out, f->csv_fmt, (unsigned long long)pfs_report_u64(f, r));
        } else if (!pfs_report_absent(f, r)) { /* empty: absent (no stonewall in this phase) */
            fprintf(out, f->csv_fmt, pfs_report_f64(f, r, scale));
        }
    }
}

static void csv_figures_head(FILE *out, const char *unit, unsigned tail)
{
    const struct pfs_sch_table *t = pfs_schema_table("report");
    for (size_t i = 0; i < t->n; i++)
        if (t->field[i].csv && (t->field[i].report & PFS_SCH_CSV_TAIL) == tail)
            fprintf(out, ",%s%s", t->field[i].csv, t->field[i].report & PFS_SCH_UNITS ? unit : "");
}

/* One phase and repetition. */
static void csv_row(FILE *out, const struct pfs_run_data *d, int p, int rep, const struct pfs_rep_figs *r)
{
    const struct pfs_config *c = d->cfg;
    const double scale = pfs_units_scale(c->units);
    csv_str(out, d->run_id);
    fputc(',', out);
    csv_str(out, c->label);
    fputc(',', out);
    csv_str(out, d->status);
    fprintf(out, ",%s,%d,%d,%d,%d,%llu,%llu", pfs_phase_name(c->phases[p]), rep, d->nranks, d->nnodes,
            pfs_report_threads(d), (unsigned long long)c->transfer, (unsigned long long)c->block);
    csv_figures(out, r, scale, 0);
    const char *fsf[] = {d->fstype, d->fs.mount_type, d->fs.source, d->fs.options, d->fs.layout};
    for (size_t i = 0; i < sizeof(fsf) / sizeof(fsf[0]); i++) {
        fputc(',', out);
        csv_str(out, fsf[i]);
    }
    pfs_report_lat_csv(out, d, p, rep);
    const char *more[] = {d->start_iso, d->end_iso, d->cmdline, d->job_path, d->job_section, d->conc_tag};
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        fputc(',', out);
        csv_str(out, more[i]);
    }
    pfs_config_fields(c, csv_field, out);
    csv_ci(out, &d->fig.phase[p], r);
    fputc(',', out);
    if (r->find_matched >= 0)
        fprintf(out, "%lld", r->find_matched);
    pfs_report_cache_csv(out, d, p, rep);
    csv_figures(out, r, scale, PFS_SCH_CSV_TAIL);
    fputc('\n', out);
}

void pfs_report_csv(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    /* The column of the figure in the report's unit ends in it, '/' as 'p' (bandwidth_MiBps). */
    char unit[32];
    snprintf(unit, sizeof(unit), "%s", pfs_units_label(c->units));
    for (char *p = unit; *p; p++)
        if (*p == '/')
            *p = 'p';
    fputs("run_id,label,status,phase,rep,ranks,nodes,threads,transfer,block", out);
    csv_figures_head(out, unit, 0);
    fputs(",fs_type,fs_mount_type,fs_source,fs_options,fs_layout", out);
    pfs_report_lat_csv_head(out); /* new columns go at the end: old readers keep their indices */
    /* Then what reproduces the run: its command line, times, job section,
     * and every option describe writes (those not already a column). */
    fputs(",start_time,end_time,command_line,job_file,job_section,concurrent_group", out);
    pfs_config_fields(c, csv_field_head, out);
    /* After the options: a repetition's warm-up flag, its phase's interval
     * (bytes/s, files/s in a metadata phase; empty for one measured rep). */
    fputs(",is_warmup,reps_measured,ci95_half_width,ci95_percent,target_met", out);
    fputs(",find_matched", out); /* a find's matches (its ops: the files examined); empty for other phases */
    pfs_report_cache_csv_head(out);
    csv_figures_head(out, unit, PFS_SCH_CSV_TAIL);
    fputc('\n', out);
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < pfs_figs_reps(&d->fig, p); rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            if (r)
                csv_row(out, d, p, rep, r);
        }
}
