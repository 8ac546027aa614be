/* A data phase's storage targets in the reports: the text report's short
 * table below a repetition's row (when more than one known target served
 * it) with its slow targets, and a JSON repetition's "targets", whose
 * members are the schema's "target" table (pfs/schema.h), as the results
 * file's `targets` rows. They compute nothing: pfs_tg_rows did
 * (figures_rep.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pfs/figures.h"
#include "pfs/report.h"
#include "pfs/schema.h"
#include "report_int.h"
#include "report_lat.h"

/* A target's name in at most w columns: its tail, where the brick or the
 * device is ("...b2/brick"). */
static const char *tail(const char *name, int w, char *buf, size_t len)
{
    char esc[4 * PFS_TARGET_NAME + 8];
    pfs_escape(PFS_ESC_TEXT, name, 4 * PFS_TARGET_NAME, esc, sizeof(esc));
    size_t n = strlen(esc);
    if (n <= (size_t)w)
        snprintf(buf, len, "%s", esc);
    else
        snprintf(buf, len, "...%s", esc + n - (size_t)(w - 3));
    return buf;
}

void pfs_report_targets(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !r->tg || r->ntg_known < 2)
        return;
    const double scale = pfs_units_scale(d->cfg->units);
    const char *unit = pfs_units_label(d->cfg->units);
    char nm[64];
    fprintf(out, "%-10s %4s %-36s %12s %8s %8s %10s %9s %9s\n", "", "", "target", "bytes", "ops", "busy s", unit,
            "p50 us", "p99 us");
    for (unsigned i = 0; i < r->ntg; i++) {
        const struct pfs_tg_row *t = &r->tg[i];
        fprintf(out, "%-10s %4s %-36s %12" PRIu64 " %8" PRIu64 " %8.3f %10.2f %9.1f %9.1f%s\n", "", "",
                tail(t->name, 36, nm, sizeof(nm)), t->bytes, t->ops, t->busy_s, t->bandwidth / scale,
                1e-3 * t->p50_ns, 1e-3 * t->p99_ns, t->slow ? "  slow" : "");
    }
    for (unsigned i = 0; i < r->ntg; i++) {
        const struct pfs_tg_row *t = &r->tg[i];
        if (t->slow)
            fprintf(out, "           slow target: %s: p99 %.1f x the median target, %.2f x its %s over busy time "
                    "(below %.2f x the median target)\n",
                    tail(t->name, 60, nm, sizeof(nm)), t->p99_ratio, t->bw_ratio, unit, d->cfg->straggler);
    }
    if (r->tg_dropped)
        fprintf(out, "           targets: %" PRIu64 " more left out (at most %d are kept)\n", r->tg_dropped,
                PFS_TG_MAX);
}

void pfs_report_targets_json(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !r->tg) {
        fputs(", \"targets\": null", out);
        return;
    }
    const struct pfs_sch_table *t = pfs_schema_table("target");
    fputs(", \"targets\": [", out);
    for (unsigned i = 0; i < r->ntg; i++) {
        fputs(i ? ", {" : "{", out);
        for (size_t j = 0; j < t->n; j++) {
            fprintf(out, "%s\"%s\": ", j ? ", " : "", t->field[j].name);
            pfs_report_json_member(out, &t->field[j], &r->tg[i]);
        }
        fputc('}', out);
    }
    fprintf(out, "], \"targets_dropped\": %" PRIu64, r->tg_dropped);
}
