/* The job's tail exemplars (--exemplars) in the reports: -v's table after
 * the latency table, and a JSON repetition's "exemplars", whose members
 * are the schema's "exemplar" table (pfs/schema.h), as the results file's
 * fields are. From the run's figures; nothing computed here. */
#include "report_lat.h"
#include "report_int.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "pfs/schema.h"

void pfs_report_json_member(FILE *out, const struct pfs_sch_field *f, const void *row)
{
    const char *at = (const char *)row + f->offset;
    switch (f->type) {
    case PFS_SCH_INT32: {
        int32_t v;
        memcpy(&v, at, sizeof(v));
        fprintf(out, "%" PRId32, v);
        break;
    }
    case PFS_SCH_UINT64: {
        uint64_t v;
        memcpy(&v, at, sizeof(v));
        fprintf(out, "%" PRIu64, v);
        break;
    }
    case PFS_SCH_FLOAT64: {
        double v;
        memcpy(&v, at, sizeof(v));
        pfs_report_json_num(out, v);
        break;
    }
    case PFS_SCH_STRING: {
        const char *s;
        memcpy(&s, at, sizeof(s));
        pfs_escape_write(out, PFS_ESC_JSON, s ? s : "", SIZE_MAX);
        break;
    }
    default: /* the table has no other type */
        fputs("null", out);
    }
}

void pfs_report_exemplars_json(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r)
        return;
    if (!r->lat) {
        fputs(", \"exemplars\": null", out);
        return;
    }
    const struct pfs_sch_table *t = pfs_schema_table("exemplar");
    fputs(", \"exemplars\": [", out);
    for (unsigned i = 0; i < r->nex; i++) {
        fputs(i ? ", {" : "{", out);
        for (size_t j = 0; j < t->n; j++) {
            fprintf(out, "%s\"%s\": ", j ? ", " : "", t->field[j].name);
            pfs_report_json_member(out, &t->field[j], &r->ex[i]);
        }
        fputc('}', out);
    }
    fputc(']', out);
}

/* Below a repetition's exemplars: the name of each target they name
 * (its tail, where a brick's or a device's name ends). */
static void target_names(FILE *out, const struct pfs_rep_figs *r)
{
    for (unsigned i = 0; r->tg && i < r->ntg; i++) {
        int used = 0;
        for (unsigned j = 0; j < r->nex && !used; j++)
            used = r->ex[j].target == (int32_t)i;
        if (!used)
            continue;
        char nm[4 * PFS_TARGET_NAME + 8];
        const char *n = r->tg[i].name;
        const size_t len = strlen(n);
        pfs_escape(PFS_ESC_TEXT, len > 76 ? n + len - 76 : n, 76, nm, sizeof(nm));
        fprintf(out, "%-10s %3s tg %3u: %s%s\n", "", "", i, len > 76 ? "..." : "", nm);
    }
}

/* -v: each repetition's exemplars, slowest first; start from the phase's
 * start (its first open), duration in microseconds. */
void pfs_report_exemplars(FILE *out, const struct pfs_run_data *d)
{
    int any = 0;
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < pfs_figs_reps(&d->fig, p); rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            if (!r || !r->lat || !r->nex)
                continue;
            if (!any++)
                fprintf(out, "\nslowest operations of each repetition, job-wide (--exemplars %d); start: s from "
                             "the phase's\nstart; file: whose data file (-1: shared; metadata: offset is the file's "
                             "number)\ntg: the storage target holding the offset, named below\n"
                             "%-10s %3s %4s %-12s %3s %-6s %4s %13s %8s %9s %11s %3s\n",
                        d->cfg->exemplars, "phase", "rep", "rank", "host", "thr", "op", "file", "offset", "length",
                        "start", "duration_us", "tg");
            const double t0 = r->ts_edge ? r->ts_edge[0] : r->lat->t0;
            for (unsigned i = 0; i < r->nex; i++) {
                const struct pfs_exemplar_row *e = &r->ex[i];
                char host[64], tg[8] = "-";
                pfs_escape(PFS_ESC_TEXT, e->host, 12, host, sizeof(host));
                if (e->target >= 0)
                    snprintf(tg, sizeof(tg), "%d", (int)(e->target % 1000));
                fprintf(out, "%-10s %3d %4d %-12.12s %3d %-6s %4d %13" PRIu64 " %8" PRIu64 " %9.6f %11.1f %3s\n",
                        pfs_phase_name(d->cfg->phases[p]), rep, (int)e->rank, host, (int)e->thread, e->op,
                        (int)e->file, e->offset, e->length, e->start - t0, 1e-3 * (double)e->duration_ns, tg);
            }
            target_names(out, r);
        }
}
