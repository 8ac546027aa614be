/* The report's latency, IOPS and CPU: the text table after the summary and
 * the members and columns JSON and CSV add per phase and repetition. Every
 * latency comes from the merged histograms of pfs/latency.h (nearest-rank
 * quantiles, within 1/128 of the true value); IOPS is the phase's ops over
 * its seconds (pfs_phase_reduce), CPU the streams' pfs_times. Also the
 * caveat on a phase too short to measure (pfs_phase_skew). */
#include "report_lat.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void pfs_report_cpu(const struct pfs_run_data *d, int phase, int rep, struct pfs_cpu *c)
{
    const struct pfs_times *t = pfs_run_times(d, phase, rep);
    int ns = pfs_run_nstreams(d);
    struct pfs_phase_stat s;
    pfs_phase_reduce(t, ns, &s);
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < ns; i++) {
        c->user_s += t[i].cpu_user;
        c->sys_s += t[i].cpu_sys;
    }
    if (s.seconds > 0 && ns > 0)
        c->percent = (c->user_s + c->sys_s) / (s.seconds * ns) * 100.0;
}

/* The name a kind is shown under: the phase's own for OP ("write", "stat"). */
static const char *kind_label(const struct pfs_run_data *d, int phase, int k)
{
    return k == PFS_LAT_OP ? pfs_phase_name(d->cfg->phases[phase]) : pfs_lat_kind_name(k);
}

/* ---- text ---- */

/* One unit for the whole table: microseconds, unless some operation took
 * 100 ms or more (then a microsecond figure would need 7 digits). */
static double table_unit(const struct pfs_run_data *d, const char **name)
{
    uint64_t top = 0;
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < d->reps_done[p]; rep++) {
            const struct pfs_phase_lat *l = pfs_run_lat(d, p, rep);
            for (int k = 0; l && k < PFS_LAT_KINDS; k++)
                if (l->run[k].count && l->run[k].max_ns > top)
                    top = l->run[k].max_ns;
        }
    *name = top >= 100000000u ? "ms" : "us";
    return top >= 100000000u ? 1e6 : 1e3;
}

/* A latency in at most 7 characters with 3 or 4 significant digits. */
static const char *lat_cell(char *b, size_t n, double ns, double div)
{
    double v = ns / div;
    snprintf(b, n, v < 10 ? "%.2f" : v < 100000 ? "%.1f" : "%.0f", v);
    return b;
}

static void text_kind_row(FILE *out, const struct pfs_run_data *d, int p, int rep, int k, double div)
{
    const struct pfs_phase_lat *l = pfs_run_lat(d, p, rep);
    double sm[PFS_HS_N];
    pfs_hist_summary(&l->run[k], sm);
    const int order[6] = {PFS_HS_MIN, PFS_HS_P50, PFS_HS_P90, PFS_HS_P99, PFS_HS_P999, PFS_HS_MAX};
    fprintf(out, "%-10s %3d %-10s %9llu", pfs_phase_name(d->cfg->phases[p]), rep, kind_label(d, p, k),
            (unsigned long long)l->run[k].count);
    char b[32];
    for (int i = 0; i < 6; i++)
        fprintf(out, " %7s", lat_cell(b, sizeof(b), sm[order[i]], div));
    if (k == PFS_LAT_OP) {
        struct pfs_phase_stat s;
        pfs_phase_reduce(pfs_run_times(d, p, rep), pfs_run_nstreams(d), &s);
        struct pfs_cpu c;
        pfs_report_cpu(d, p, rep, &c);
        fprintf(out, " %9.1f %5.1f\n", s.rate, c.percent);
    } else {
        fprintf(out, " %9s %5s\n", "-", "-");
    }
}

/* Below a phase's rows: its slowest node by p99 and its CPU seconds. */
static void text_node_line(FILE *out, const struct pfs_run_data *d, int p, int rep, double div, const char *unit)
{
    const struct pfs_phase_lat *l = pfs_run_lat(d, p, rep);
    double p99 = 0;
    int n = pfs_lat_slowest_node(l, &p99);
    struct pfs_cpu c;
    pfs_report_cpu(d, p, rep, &c);
    char b[32], h[4 * 24 + 8] = "?";
    fputs("           ", out);
    if (n >= 0) {
        for (int r = 0; r < d->nranks; r++)
            if (d->node_of_rank[r] == n) {
                pfs_escape(PFS_ESC_TEXT, d->hosts[r], 24, h, sizeof(h));
                break;
            }
        fprintf(out, "slowest node p99 %s %s: node %d (%s); ", lat_cell(b, sizeof(b), p99, div), unit, n, h);
    }
    fprintf(out, "CPU user %.3f s, sys %.3f s\n", c.user_s, c.sys_s);
}

void pfs_report_latency(FILE *out, const struct pfs_run_data *d)
{
    int any = 0;
    for (int p = 0; p < d->nphases && !any; p++)
        for (int rep = 0; rep < d->reps_done[p] && !any; rep++)
            any = pfs_run_lat(d, p, rep) != NULL;
    if (!any)
        return;
    const char *unit;
    double div = table_unit(d, &unit);
    fprintf(out, "\nlatency per operation in %s (%s), nearest-rank percentiles within 1/128;\n"
                 "IOPS = ops/s over the phase; %%CPU = user+sys CPU s / (phase s x streams) x 100\n",
            unit, unit[0] == 'm' ? "milliseconds" : "microseconds");
    fprintf(out, "%-10s %3s %-10s %9s %7s %7s %7s %7s %7s %7s %9s %5s\n", "phase", "rep", "op", "count", "min",
            "p50", "p90", "p99", "p99.9", "max", "IOPS", "%CPU");
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < d->reps_done[p]; rep++) {
            const struct pfs_phase_lat *l = pfs_run_lat(d, p, rep);
            if (!l)
                continue;
            for (int k = 0; k < PFS_LAT_KINDS; k++)
                if (l->run[k].count)
                    text_kind_row(out, d, p, rep, k, div);
            text_node_line(out, d, p, rep, div, unit);
        }
}

/* ---- JSON ---- */

static void jnum(FILE *out, const char *key, double v)
{
    fprintf(out, ", \"%s\": ", key);
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static void json_kinds(FILE *out, const struct pfs_phase_lat *l)
{
    static const char *const keys[PFS_HS_N] = {"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
                                               "mean_ns"};
    fputs(", \"latency\": {", out);
    for (int k = 0; k < PFS_LAT_KINDS; k++) {
        double sm[PFS_HS_N];
        pfs_hist_summary(&l->run[k], sm);
        fprintf(out, "%s\"%s\": {\"count\": %llu", k ? ", " : "", pfs_lat_kind_name(k),
                (unsigned long long)l->run[k].count);
        for (int i = 0; i < PFS_HS_N; i++)
            jnum(out, keys[i], sm[i]);
        fputc('}', out);
    }
    fputc('}', out);
}

void pfs_report_lat_json(FILE *out, const struct pfs_run_data *d, int phase, int rep)
{
    struct pfs_phase_stat s;
    pfs_phase_reduce(pfs_run_times(d, phase, rep), pfs_run_nstreams(d), &s);
    struct pfs_cpu c;
    pfs_report_cpu(d, phase, rep, &c);
    jnum(out, "iops", s.rate);
    jnum(out, "cpu_percent", c.percent);
    jnum(out, "cpu_user_s", c.user_s);
    jnum(out, "cpu_sys_s", c.sys_s);
    const struct pfs_phase_lat *l = pfs_run_lat(d, phase, rep);
    if (!l) {
        fputs(", \"latency\": null, \"slowest_node_p99_ns\": null, \"slowest_node\": null", out);
        return;
    }
    json_kinds(out, l);
    double p99 = 0;
    int n = pfs_lat_slowest_node(l, &p99);
    if (n < 0) {
        fputs(", \"slowest_node_p99_ns\": null, \"slowest_node\": null", out);
        return;
    }
    jnum(out, "slowest_node_p99_ns", p99);
    fprintf(out, ", \"slowest_node\": %d", n);
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
    struct pfs_phase_stat s;
    pfs_phase_reduce(pfs_run_times(d, phase, rep), pfs_run_nstreams(d), &s);
    fprintf(out, ",%.9g", s.rate);
    const struct pfs_phase_lat *l = pfs_run_lat(d, phase, rep);
    if (l) {
        double sm[PFS_HS_N], p99 = 0;
        pfs_hist_summary(&l->run[PFS_LAT_OP], sm);
        fprintf(out, ",%llu", (unsigned long long)l->run[PFS_LAT_OP].count);
        for (int i = 0; i < PFS_HS_N; i++)
            fprintf(out, ",%.9g", sm[i] / 1e3);
        int n = pfs_lat_slowest_node(l, &p99);
        if (n >= 0)
            fprintf(out, ",%d,%.9g", n, p99 / 1e3);
        else
            fputs(",,", out);
    } else {
        fputs(",,,,,,,,,,", out); /* lat_count .. slowest_node_p99_us: not recorded */
    }
    struct pfs_cpu c;
    pfs_report_cpu(d, phase, rep, &c);
    fprintf(out, ",%.6g,%.9g,%.9g", c.percent, c.user_s, c.sys_s);
}

/* ---- a phase too short to measure ---- */

int pfs_report_short_phase(const struct pfs_run_data *d, int phase, int rep, char *buf, size_t len)
{
    const int kind = d->cfg->phases[phase], meta = pfs_phase_is_meta(kind);
    struct pfs_phase_skew k;
    if (!pfs_phase_skew(pfs_run_times(d, phase, rep), pfs_run_stream_nodes(d), pfs_run_nstreams(d), d->nnodes, meta,
                        &k))
        return 0;
    const double scale = meta ? 1.0 : pfs_units_scale(d->cfg->units);
    const char *unit = !meta ? pfs_units_label(d->cfg->units) : pfs_phase_rate_unit(kind);
    size_t n = (size_t)snprintf(buf, len, "%s rep %d: too short to measure: %.4g s", pfs_phase_name(kind), rep,
                                k.seconds);
    if (k.near_skew && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", within %gx of the barrier skew (the streams started %.4g s apart",
                              PFS_SKEW_FACTOR, k.start_skew);
    else if (n < len)
        n += (size_t)snprintf(buf + n, len - n, " (the streams started %.4g s apart", k.start_skew);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, " and ended %.4g s apart)", k.end_skew);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "; aggregate %.1f %s", k.aggregate / scale, unit);
    if (k.below_nodes && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", below %g of its slowest node's own %.1f (nodes %.1f-%.1f %s)",
                              PFS_SKEW_NODE_FRAC, k.node_min / scale, k.node_min / scale, k.node_max / scale, unit);
    if (n < len)
        snprintf(buf + n, len - n, ": the figure measures the skew more than the file system; give each stream more "
                 "work%s", meta ? " (-n)" : " (-b, or --runtime)");
    return 1;
}

void pfs_run_short_warnings(struct pfs_run_data *d, FILE *msg)
{
    char w[640];
    for (int p = 0; p < d->nphases; p++) {
        int first = -1, count = 0;
        for (int rep = 0; rep < d->reps_done[p]; rep++)
            if (pfs_report_short_phase(d, p, rep, w, 1) && count++ == 0)
                first = rep;
        if (first < 0)
            continue;
        pfs_report_short_phase(d, p, first, w, sizeof(w));
        char more[64] = "";
        if (count > 1)
            snprintf(more, sizeof(more), " (%d of %d repetitions)", count, d->reps_done[p]);
        pfs_run_warn(d, "%s%s", w, more);
        if (msg)
            fprintf(msg, "pfsbench: warning: %s%s\n", w, more);
    }
}
