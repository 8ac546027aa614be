/* The rwmix phase's lines and members in the reports (pfs/report_mix.h). */
#include "pfs/report_mix.h"

#include "pfs/config.h"
#include "pfs/figures.h"
#include "pfs/phase.h"
#include "report_int.h"

static double pct(uint64_t part, uint64_t all) { return all ? 100.0 * (double)part / (double)all : 0; }

void pfs_report_mix_row(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !pfs_phase_has(d->cfg->phases[phase], PFS_PHF_MIXES))
        return;
    const double scale = pfs_units_scale(d->cfg->units);
    const char *unit = pfs_units_label(d->cfg->units);
    fprintf(out, "%-10s %4s mix: reads %.1f%% (%llu, %.1f ops/s, %.2f %s), writes %.1f%% (%llu, %.1f ops/s, %.2f %s)\n",
            "", "", pct(r->mix_read_ops, r->s.ops), (unsigned long long)r->mix_read_ops, r->mix_read_rate,
            r->mix_read_bw / scale, unit, pct(r->mix_write_ops, r->s.ops), (unsigned long long)r->mix_write_ops,
            r->mix_write_rate, r->mix_write_bw / scale, unit);
}

void pfs_report_mix_json(FILE *out, const struct pfs_run_data *d, int phase, const struct pfs_rep_figs *r)
{
    if (!pfs_phase_has(d->cfg->phases[phase], PFS_PHF_MIXES))
        return;
    fprintf(out, ", \"mix\": {\"read_percent\": %d, \"read_ops\": %llu, \"write_ops\": %llu, \"read_bytes\": %llu, "
            "\"write_bytes\": %llu, \"read_ops_per_s\": ", d->cfg->rwmix, (unsigned long long)r->mix_read_ops,
            (unsigned long long)r->mix_write_ops, (unsigned long long)r->mix_read_bytes,
            (unsigned long long)r->mix_write_bytes);
    pfs_report_json_num(out, r->mix_read_rate);
    fputs(", \"write_ops_per_s\": ", out);
    pfs_report_json_num(out, r->mix_write_rate);
    fputs(", \"read_bytes_per_s\": ", out);
    pfs_report_json_num(out, r->mix_read_bw);
    fputs(", \"write_bytes_per_s\": ", out);
    pfs_report_json_num(out, r->mix_write_bw);
    fputc('}', out);
}
