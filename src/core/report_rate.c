/* --rate's lines and members in the reports (pfs/report_rate.h). */
#include "pfs/report_rate.h"

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
    snprintf(buf, len, "%s %d: achieved %.1f ops/s, %.1f%% short of the offered %.1f ops/s (--rate %s%s%s): the "
             "storage (or a client) could not keep up, and the response times include the queueing that followed",
             pfs_phase_name(d->cfg->phases[phase]), rep, r->s.rate, 100.0 * (1 - r->s.rate / r->sched_ops),
             r->sched_ops, d->cfg->rate, d->cfg->rate_scope == 1 ? " for the job" : " per stream",
             d->cfg->arrivals == PFS_ARR_POISSON ? ", as its poisson arrivals came" : "");
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
