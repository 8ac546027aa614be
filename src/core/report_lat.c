/* The report's latency, IOPS and CPU: the text table after the summary and
 * the members and columns JSON and CSV add per phase and repetition, from
 * the run's figures (pfs/figures.h: the merged histograms' summaries,
 * nearest-rank quantiles within 1/128; IOPS the phase's ops over its
 * seconds; CPU the streams' pfs_times). Also the caveat on a phase too
 * short to measure (pfs_phase_skew). */
#include "report_lat.h"
#include "report_int.h"

#include <stdint.h>
#include <string.h>

/* A summary's figures in the order the outputs give them (pfs_hist_summary's). */
static void lat_values(const struct pfs_lat_sum *s, double v[PFS_HS_N])
{
    v[PFS_HS_MIN] = s->min_ns, v[PFS_HS_P50] = s->p50_ns, v[PFS_HS_P90] = s->p90_ns, v[PFS_HS_P99] = s->p99_ns;
    v[PFS_HS_P999] = s->p999_ns, v[PFS_HS_MAX] = s->max_ns, v[PFS_HS_MEAN] = s->mean_ns;
}

/* The name a kind is shown under: the phase's own for OP ("write", "stat"). */
static const char *kind_label(const struct pfs_run_data *d, int phase, int k)
{
    return k == PFS_LAT_OP ? pfs_phase_name(d->cfg->phases[phase]) : pfs_lat_kind_name(k);
}

/* ---- text ---- */

/* A row's unit, from its median: microseconds below 1 ms, milliseconds
 * below 1 s, else seconds, so the median has 3 or 4 significant digits
 * (a stat's 5 us is not 0.01 ms, an fsync's 80 ms not 80000.0 us). */
static const char *lat_unit(double p50_ns, double *div)
{
    if (p50_ns < 1e6)
        return *div = 1e3, "us";
    if (p50_ns < 1e9)
        return *div = 1e6, "ms";
    return *div = 1e9, "s";
}

/* A latency in at most 7 characters with 3 or 4 significant digits (up to
 * 1000x the median: 9999999 of its unit). */
static const char *lat_cell(char *b, size_t n, double ns, double div)
{
    double v = ns / div;
    snprintf(b, n, v < 10 ? "%.2f" : v < 100000 ? "%.1f" : "%.0f", v);
    return b;
}

/* min .. max of s and its unit: " 177.7 ... 23805.2 us". */
static void lat_cells(FILE *out, const struct pfs_lat_sum *s)
{
    double sm[PFS_HS_N], div;
    lat_values(s, sm);
    const char *unit = lat_unit(s->p50_ns, &div);
    const int order[6] = {PFS_HS_MIN, PFS_HS_P50, PFS_HS_P90, PFS_HS_P99, PFS_HS_P999, PFS_HS_MAX};
    char b[32];
    for (int i = 0; i < 6; i++)
        fprintf(out, " %7s", lat_cell(b, sizeof(b), sm[order[i]], div));
    fprintf(out, " %-2s", unit);
}

/* -v: a repetition's row of one kind, with the phase's %CPU on its op row. */
static void text_kind_row(FILE *out, const struct pfs_run_data *d, int p, int rep, int k)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
    fprintf(out, "%-10s %3d %-10s %9llu", pfs_phase_name(d->cfg->phases[p]), rep, kind_label(d, p, k),
            (unsigned long long)r->lat_sum[k].count);
    lat_cells(out, &r->lat_sum[k]);
    if (k == PFS_LAT_OP)
        fprintf(out, " %5.1f\n", r->cpu.percent);
    else
        fprintf(out, " %5s\n", "-");
}

/* -v: below a repetition's rows, its slowest node by p99 and its CPU seconds. */
static void text_node_line(FILE *out, const struct pfs_run_data *d, const struct pfs_rep_figs *r)
{
    char b[32], h[4 * 24 + 8] = "?";
    fputs("           ", out);
    if (r->lat_slowest >= 0) {
        const char *host = pfs_report_node_host(d, r->lat_slowest, 0);
        if (host)
            pfs_escape(PFS_ESC_TEXT, host, 24, h, sizeof(h));
        double div;
        const char *unit = lat_unit(r->lat_slowest_p99, &div);
        fprintf(out, "slowest node p99 %s %s: node %d (%s); ", lat_cell(b, sizeof(b), r->lat_slowest_p99, div), unit,
                r->lat_slowest, h);
    }
    fprintf(out, "CPU user %.3f s, sys %.3f s\n", r->cpu.user_s, r->cpu.sys_s);
}

/* -v: every repetition's rows, each kind, and the slowest node. */
static void text_per_rep(FILE *out, const struct pfs_run_data *d)
{
    fprintf(out, "\nlatency per repetition; %%CPU = user+sys CPU s / (phase s x streams) x 100\n");
    fprintf(out, "%-10s %3s %-10s %9s %7s %7s %7s %7s %7s %7s %-2s %5s\n", "phase", "rep", "op", "count", "min", "p50",
            "p90", "p99", "p99.9", "max", "", "%CPU");
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < pfs_figs_reps(&d->fig, p); rep++) {
            const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
            if (!r || !r->lat)
                continue;
            for (int k = 0; k < PFS_LAT_KINDS; k++)
                if (r->lat_sum[k].count)
                    text_kind_row(out, d, p, rep, k);
            text_node_line(out, d, r);
        }
}

void pfs_report_latency(FILE *out, const struct pfs_run_data *d)
{
    int any = 0;
    for (int p = 0; d->fig.phase && p < d->nphases; p++)
        any |= d->fig.phase[p].lat_reps > 0;
    if (!any)
        return;
    const int v = d->cfg->verbose;
    if (v)
        fprintf(out, "\nlatency per operation over each phase's measured repetitions, merged; nearest-rank "
                     "percentiles\nwithin 1/128; each row in its own unit (us, ms or s)\n");
    fprintf(out, "%s%-10s %-10s %9s %7s %7s %7s %7s %7s %7s\n", v ? "" : "\n", "latency", "op", "count", "min", "p50",
            "p90", "p99", "p99.9", "max");
    /* The phase's own operation, its reads and writes apart where it draws
     * both (rwmix) and, with --rate, its response time; open, fsync and
     * close with -v. */
    for (int p = 0; p < d->nphases; p++)
        for (int k = 0; k < PFS_LAT_KINDS; k++) {
            const struct pfs_lat_sum *s = &d->fig.phase[p].lat_all[k];
            if (!s->count || (!v && (k == PFS_LAT_OPEN || k == PFS_LAT_FSYNC || k == PFS_LAT_CLOSE)))
                continue;
            fprintf(out, "%-10s %-10s %9llu", pfs_phase_name(d->cfg->phases[p]), kind_label(d, p, k),
                    (unsigned long long)s->count);
            lat_cells(out, s);
            fputc('\n', out);
        }
    if (v) {
        text_per_rep(out, d);
        pfs_report_exemplars(out, d);
    }
}

/* ---- JSON ---- */

static void jnum(FILE *out, const char *key, double v)
{
    fprintf(out, ", \"%s\": ", key);
    pfs_report_json_num(out, v);
}

static void json_kinds(FILE *out, const struct pfs_rep_figs *r)
{
    static const char *const keys[PFS_HS_N] = {"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
                                               "mean_ns"};
    fputs(", \"latency\": {", out);
    for (int k = 0; k < PFS_LAT_KINDS; k++) {
        double sm[PFS_HS_N];
        lat_values(&r->lat_sum[k], sm);
        fprintf(out, "%s\"%s\": {\"count\": %llu", k ? ", " : "", pfs_lat_kind_name(k),
                (unsigned long long)r->lat_sum[k].count);
        for (int i = 0; i < PFS_HS_N; i++)
            jnum(out, keys[i], sm[i]);
        fputc('}', out);
    }
    fputc('}', out);
}

void pfs_report_lat_json(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r)
        return;
    jnum(out, "iops", r->s.rate);
    jnum(out, "cpu_percent", r->cpu.percent);
    jnum(out, "cpu_user_s", r->cpu.user_s);
    jnum(out, "cpu_sys_s", r->cpu.sys_s);
    if (!r->lat) {
        fputs(", \"latency\": null, \"slowest_node_p99_ns\": null, \"slowest_node\": null", out);
        return;
    }
    json_kinds(out, r);
    if (r->lat_slowest < 0) {
        fputs(", \"slowest_node_p99_ns\": null, \"slowest_node\": null", out);
        return;
    }
    jnum(out, "slowest_node_p99_ns", r->lat_slowest_p99);
    fprintf(out, ", \"slowest_node\": %d", r->lat_slowest);
}

/* ---- CSV ---- */

void pfs_report_lat_csv_head(FILE *out)
{
    fputs(",iops,lat_count,lat_min_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,lat_mean_us,"
          "slowest_node,slowest_node_p99_us,cpu_percent,cpu_user_s,cpu_sys_s",
          out);
}

void pfs_report_lat_csv(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r)
        return;
    fprintf(out, ",%.9g", r->s.rate);
    if (r->lat) {
        double sm[PFS_HS_N];
        lat_values(&r->lat_sum[PFS_LAT_OP], sm);
        fprintf(out, ",%llu", (unsigned long long)r->lat_sum[PFS_LAT_OP].count);
        for (int i = 0; i < PFS_HS_N; i++)
            fprintf(out, ",%.9g", sm[i] / 1e3);
        if (r->lat_slowest >= 0)
            fprintf(out, ",%d,%.9g", r->lat_slowest, r->lat_slowest_p99 / 1e3);
        else
            fputs(",,", out);
    } else {
        fputs(",,,,,,,,,,", out); /* lat_count .. slowest_node_p99_us: not recorded */
    }
    fprintf(out, ",%.6g,%.9g,%.9g", r->cpu.percent, r->cpu.user_s, r->cpu.sys_s);
}

/* ---- a phase too short to measure ---- */

int pfs_report_short_phase(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len)
{
    const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, phase, rep);
    if (!r || !r->too_short)
        return 0;
    const struct pfs_phase_skew *k = &r->skew;
    const int kind = d->cfg->phases[phase], meta = pfs_phase_is_meta(kind);
    const double scale = meta ? 1.0 : pfs_units_scale(d->cfg->units);
    const char *unit = !meta ? pfs_units_label(d->cfg->units) : pfs_phase_rate_unit(kind);
    size_t n = (size_t)snprintf(buf, len, "%s rep %d: too short to measure: %.4g s", pfs_phase_name(kind), rep,
                                k->seconds);
    if (k->near_skew && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", within %gx of the barrier skew (the streams started %.4g s apart",
                              PFS_SKEW_FACTOR, k->start_skew);
    else if (n < len)
        n += (size_t)snprintf(buf + n, len - n, " (the streams started %.4g s apart", k->start_skew);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, " and ended %.4g s apart)", k->end_skew);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "; aggregate %.1f %s", k->aggregate / scale, unit);
    if (k->below_nodes && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", below %g of its slowest node's own %.1f (nodes %.1f-%.1f %s)",
                              PFS_SKEW_NODE_FRAC, k->node_min / scale, k->node_min / scale, k->node_max / scale, unit);
    if (n < len)
        snprintf(buf + n, len - n, ": the figure measures the skew more than the file system; give each stream more "
                 "work%s", meta ? " (-n)" : pfs_phase_has(kind, PFS_PHF_OWN_FILES) ? " (a larger --ckpt or --train)"
                                                                                  : " (-b, or --runtime)");
    return 1;
}

void pfs_run_short_warnings(struct pfs_run_data *d, FILE *msg)
{
    char w[640];
    for (int p = 0; d->fig.phase && p < d->nphases; p++) {
        const struct pfs_phase_figs *pf = &d->fig.phase[p];
        if (pf->short_first < 0)
            continue;
        pfs_report_short_phase(d, p, pf->short_first, w, sizeof(w));
        char more[64] = "";
        if (pf->short_count > 1)
            snprintf(more, sizeof(more), " (%d of %d repetitions)", pf->short_count, pf->reps);
        pfs_run_warn(d, "%s%s", w, more);
        if (msg)
            fprintf(msg, "pfsbench: warning: %s%s\n", w, more);
    }
}
