/* --rate's lines and members in the reports (pfs/report_rate.h). */
#include "pfs/report_rate.h"

#include <math.h>
#include <stdint.h>

#include "pfs/config.h"
#include "pfs/figures.h"
#include "pfs/phase.h"
#include "pfs/sched.h"
#include "report_int.h"

void pfs_report_rate_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_config *c = d->cfg;
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || r->offered_ops <= 0)
        return;
    const double scale = pfs_units_scale(c->units);
    const char *unit = pfs_units_label(c->units);
    fprintf(out, "%-10s %4s rate: offered %.1f ops/s (%.2f %s", "", "", r->offered_ops, r->offered_bytes / scale, unit);
    if (d->cfg->arrivals == PFS_ARR_POISSON)
        fprintf(out, "; its arrivals %.1f ops/s", r->sched_ops);
    fprintf(out, "), achieved %.1f ops/s (%.2f %s); submitted late by %.1f us mean, %.1f us max\n", r->s.rate,
            r->s.bandwidth / scale, unit, r->lag_mean_ns / 1e3, r->lag_max_ns / 1e3);
}

int pfs_report_rate_warning(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || r->offered_ops <= 0 || !r->rate_short)
        return 0;
    const struct pfs_config *c = d->cfg;
    char given[300];
    if (c->rate_sweep[0])
        snprintf(given, sizeof(given), "--rate-sweep %s", c->rate_sweep);
    else
        snprintf(given, sizeof(given), "--rate %s%s", c->rate, c->rate_scope == 1 ? " for the job" : " per stream");
    snprintf(buf, len, "%s %d: achieved %.1f ops/s, %.1f%% short of the offered %.1f ops/s (%s%s): the "
             "storage (or a client) could not keep up, and the response times include the queueing that followed",
             pfs_phase_name(c->phases[phase]), rep, r->s.rate, 100.0 * (1 - r->s.rate / r->sched_ops), r->sched_ops,
             given, c->arrivals == PFS_ARR_POISSON ? ", as its poisson arrivals came" : "");
    return 1;
}

void pfs_report_rate_json(FILE *out, const struct pfs_rep_figs *r)
{
    if (r->offered_ops <= 0)
        return;
    fputs(", \"rate\": {\"offered_ops_per_s\": ", out);
    pfs_report_json_num(out, r->offered_ops);
    fputs(", \"offered_bytes_per_s\": ", out);
    pfs_report_json_num(out, r->offered_bytes);
    fputs(", \"scheduled_ops_per_s\": ", out);
    pfs_report_json_num(out, r->sched_ops);
    fputs(", \"achieved_ops_per_s\": ", out);
    pfs_report_json_num(out, r->s.rate);
    fputs(", \"achieved_bytes_per_s\": ", out);
    pfs_report_json_num(out, r->s.bandwidth);
    fprintf(out, ", \"short\": %s, \"submit_lag_mean_ns\": ", r->rate_short ? "true" : "false");
    pfs_report_json_num(out, r->lag_mean_ns);
    fputs(", \"submit_lag_max_ns\": ", out);
    pfs_report_json_num(out, r->lag_max_ns);
    fputc('}', out);
}

/* The knee's line of phase p, or why there is none. */
static void knee_line(FILE *out, const struct pfs_run_data *d, int p, const struct pfs_phase_figs *pf)
{
    const struct pfs_knee *k = &pf->knee;
    const char *name = pfs_phase_name(d->cfg->phases[p]);
    if (pf->reps < 2 || !(k->base > 0))
        fprintf(out, "knee       %s: none (fewer than two points with latencies)\n", name);
    else if (k->found)
        fprintf(out, "knee       %s: p99 left %g x its lowest-load %.1f us at %.1f ops/s achieved, between "
                "repetitions %d and %d\n", name, PFS_KNEE_FACTOR, k->base / 1e3, k->rate, k->index, k->above);
    else
        fprintf(out, "knee       %s: none: p99 stayed within %g x its lowest-load %.1f us or did not stay above "
                "it to the highest load\n", name, PFS_KNEE_FACTOR, k->base / 1e3);
    if (k->saturated >= 0)
        fprintf(out, "saturated  %s: from repetition %d the achieved rate fell more than 2%% short of the offered\n",
                name, k->saturated);
}

/* --latency-target's answer for phase p. */
static void target_line(FILE *out, const struct pfs_run_data *d, int p, const struct pfs_phase_figs *pf)
{
    const char *name = pfs_phase_name(d->cfg->phases[p]);
    if (pf->target_rep >= 0)
        fprintf(out, "target     %s: %s met at up to %.1f ops/s offered (repetition %d), %d rate%s tried\n", name,
                d->cfg->lat_target, pf->target_rate, pf->target_rep, pf->target_tried,
                pf->target_tried == 1 ? "" : "s");
    else
        fprintf(out, "target     %s: %s met at none of the %d rate%s tried (the lowest: 1%% of the closed-loop "
                "peak)\n", name, d->cfg->lat_target, pf->target_tried, pf->target_tried == 1 ? "" : "s");
}

void pfs_report_sweep(FILE *out, const struct pfs_run_data *d)
{
    const struct pfs_config *c = d->cfg;
    fprintf(out, "latency against load (%s %s; response times, a closed-loop point's from submission)\n",
            c->lat_target[0] ? "--latency-target" : "--rate-sweep", c->lat_target[0] ? c->lat_target : c->rate_sweep);
    fprintf(out, "%-10s %4s %12s %12s %10s %10s %10s\n", "phase", "rep", "offered/s", "achieved/s", "p50 us", "p99 us",
            "p99.9 us");
    for (int p = 0; d->fig.phase && p < d->nphases; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        if (!pf->sweep)
            continue;
        for (int rep = 0; rep < pf->reps; rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            char off[32] = "closed loop";
            if (!r)
                continue;
            if (r->offered_ops > 0)
                snprintf(off, sizeof(off), "%.1f", r->offered_ops);
            fprintf(out, "%-10s %4d %12s %12.1f %10.1f %10.1f %10.1f%s\n", pfs_phase_name(d->cfg->phases[p]), rep, off,
                    r->s.rate, r->load_p50_ns / 1e3, r->load_p99_ns / 1e3, r->load_p999_ns / 1e3,
                    r->rate_short ? "  short" : "");
        }
        knee_line(out, d, p, pf);
        if (pf->target)
            target_line(out, d, p, pf);
    }
}

/* A repetition number, or null for none (-1). */
static void json_rep_or_null(FILE *out, int rep)
{
    if (rep < 0)
        fputs("null", out);
    else
        fprintf(out, "%d", rep);
}

void pfs_report_sweep_json(FILE *out, const struct pfs_run_data *d, int p)
{
    const struct pfs_phase_figs *pf = &d->fig.phase[p];
    const struct pfs_knee *k = &pf->knee;
    if (!pf->sweep)
        return;
    fprintf(out, ",\n     \"rate_sweep\": {\"knee\": {\"found\": %s, \"rate_ops_per_s\": ", k->found ? "true" : "false");
    pfs_report_json_num(out, k->found ? k->rate : NAN);
    fputs(", \"below_rep\": ", out);
    json_rep_or_null(out, k->index);
    fputs(", \"above_rep\": ", out);
    json_rep_or_null(out, k->above);
    fputs(", \"base_p99_ns\": ", out);
    pfs_report_json_num(out, k->base > 0 ? k->base : NAN);
    fputs(", \"saturated_rep\": ", out);
    json_rep_or_null(out, k->saturated);
    if (pf->target) {
        fputs("}, \"target\": {\"goal\": ", out);
        pfs_escape_write(out, PFS_ESC_JSON, d->cfg->lat_target, SIZE_MAX);
        fputs(", \"rate_ops_per_s\": ", out);
        pfs_report_json_num(out, pf->target_rep >= 0 ? pf->target_rate : NAN);
        fputs(", \"rep\": ", out);
        json_rep_or_null(out, pf->target_rep);
        fprintf(out, ", \"tried\": %d", pf->target_tried);
    }
    fputs("}, \"points\": [", out);
    for (int rep = 0; rep < pf->reps; rep++) {
        struct pfs_load_point pt;
        if (pfs_figs_load_point(&d->fig, p, rep, &pt) != 0)
            continue;
        const double v[] = {pt.offered, pt.achieved, pt.p50, pt.p99, pt.p999};
        const char *key[] = {"offered_ops_per_s", "achieved_ops_per_s", "p50_ns", "p99_ns", "p999_ns"};
        fprintf(out, "%s{\"rep\": %d", rep ? ", " : "", rep);
        for (int i = 0; i < 5; i++) {
            fprintf(out, ", \"%s\": ", key[i]);
            pfs_report_json_num(out, v[i]);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}
