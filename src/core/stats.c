/* Timing reductions and statistics: the arithmetic behind every printed figure. */
#include "pfs/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pfs_phase_reduce(const struct pfs_times *t, int nranks, struct pfs_phase_stat *out)
{
    memset(out, 0, sizeof(*out));
    if (nranks < 1)
        return;
    double start = t[0].open_start, end = t[0].close_end, busy = 0;
    double sw_end = 0;
    uint64_t sw_bytes = 0, sw_xfers = 0;
    int stonewalled = 0;
    for (int r = 0; r < nranks; r++) {
        if (t[r].open_start < start)
            start = t[r].open_start;
        if (t[r].close_end > end)
            end = t[r].close_end;
        busy += t[r].close_end - t[r].open_start;
        out->bytes += t[r].bytes;
        out->ops += t[r].xfers;
        if (t[r].sw_end > 0) {
            stonewalled = 1;
            if (t[r].sw_end > sw_end)
                sw_end = t[r].sw_end;
        }
        sw_bytes += t[r].sw_bytes;
        sw_xfers += t[r].sw_xfers;
    }
    out->seconds = end - start;
    if (out->seconds > 0) {
        out->bandwidth = (double)out->bytes / out->seconds;
        out->rate = (double)out->ops / out->seconds;
        out->utilization = busy / ((double)nranks * out->seconds);
    }
    /* Stonewall bandwidth counts what all ranks had done when the last of
     * them stopped issuing; ranks that finished early count their bytes. */
    if (stonewalled) {
        for (int r = 0; r < nranks; r++)
            if (t[r].sw_end <= 0 && t[r].close_end > sw_end)
                sw_end = t[r].close_end;
        if (sw_end > start) {
            out->sw_bandwidth = (double)sw_bytes / (sw_end - start);
            out->sw_rate = (double)sw_xfers / (sw_end - start);
            out->sw_ops = sw_xfers;
            out->sw_bytes = sw_bytes;
            out->sw_seconds = sw_end - start;
        }
    }
}

/* A stream into its node's span: the earliest open, the latest close. */
static void span_add(struct pfs_node_span *o, const struct pfs_times *t)
{
    if (!o->streams || t->open_start < o->start)
        o->start = t->open_start;
    if (!o->streams || t->close_end > o->end)
        o->end = t->close_end;
    o->streams++;
    o->bytes += t->bytes;
    o->ops += t->xfers;
}

/* Each node's streams are met in rank order, so min, max and sums come out
 * as a scan of that node's streams would have them, ties and NaNs included. */
void pfs_node_spans(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes,
                    struct pfs_node_span *out)
{
    if (nnodes < 1)
        return;
    memset(out, 0, sizeof(*out) * (size_t)nnodes);
    for (int r = 0; r < nranks; r++) {
        int n = node_of_rank[r];
        if (n >= 0 && n < nnodes)
            span_add(&out[n], &t[r]);
    }
}

/* Every node's span in a new table; NULL when it cannot be allocated or
 * there is no node. */
static struct pfs_node_span *spans_new(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes)
{
    struct pfs_node_span *sp = nnodes > 0 ? malloc(sizeof(*sp) * (size_t)nnodes) : NULL;
    if (sp)
        pfs_node_spans(t, node_of_rank, nranks, nnodes, sp);
    return sp;
}

/* Each node's figures from one table of spans; arrays passed NULL are not
 * filled. 0, or -1 when the table cannot be allocated. */
static int node_figures(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes,
                        uint64_t *bytes, double *seconds, double *bandwidth, double *rate)
{
    if (nnodes < 1)
        return 0;
    struct pfs_node_span *sp = spans_new(t, node_of_rank, nranks, nnodes);
    if (!sp)
        return -1;
    for (int n = 0; n < nnodes; n++) {
        const double sec = sp[n].end - sp[n].start;
        if (bytes) {
            bytes[n] = sp[n].bytes;
            seconds[n] = sec;
            bandwidth[n] = sec > 0 ? (double)sp[n].bytes / sec : 0;
        }
        if (rate)
            rate[n] = sec > 0 ? (double)sp[n].ops / sec : 0;
    }
    free(sp);
    return 0;
}

int pfs_node_reduce(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes,
                    uint64_t *bytes, double *seconds, double *bandwidth)
{
    return node_figures(t, node_of_rank, nranks, nnodes, bytes, seconds, bandwidth, NULL);
}

int pfs_node_rates(const struct pfs_times *t, const int *node_of_rank, int nranks, int nnodes, double *rate)
{
    return node_figures(t, node_of_rank, nranks, nnodes, NULL, NULL, NULL, rate);
}

int pfs_phase_skew(const struct pfs_times *t, const int *node_of_stream, int nstreams, int nnodes, int meta,
                   struct pfs_phase_skew *out)
{
    struct pfs_phase_stat s;
    pfs_phase_reduce(t, nstreams, &s);
    struct pfs_node_span *sp = spans_new(t, node_of_stream, nstreams, nnodes);
    if (!sp && nnodes > 0)
        return -1;
    int r = pfs_phase_skew_of(t, nstreams, &s, sp, sp ? nnodes : 0, meta, out);
    free(sp);
    return r;
}

int pfs_phase_skew_of(const struct pfs_times *t, int nstreams, const struct pfs_phase_stat *s,
                      const struct pfs_node_span *sp, int nnodes, int meta, struct pfs_phase_skew *out)
{
    memset(out, 0, sizeof(*out));
    out->slowest = -1;
    if (nstreams < 1)
        return 0;
    out->seconds = s->seconds;
    out->aggregate = meta ? s->rate : s->bandwidth;
    double s_lo = t[0].open_start, s_hi = s_lo, e_lo = t[0].close_end, e_hi = e_lo;
    for (int i = 1; i < nstreams; i++) {
        s_lo = t[i].open_start < s_lo ? t[i].open_start : s_lo;
        s_hi = t[i].open_start > s_hi ? t[i].open_start : s_hi;
        e_lo = t[i].close_end < e_lo ? t[i].close_end : e_lo;
        e_hi = t[i].close_end > e_hi ? t[i].close_end : e_hi;
    }
    out->start_skew = s_hi - s_lo;
    out->end_skew = e_hi - e_lo;
    out->near_skew = out->seconds > 0 && out->seconds < PFS_SKEW_FACTOR * out->start_skew;
    for (int n = 0; sp && n < nnodes; n++) {
        const double sec = sp[n].end - sp[n].start, amount = (double)(meta ? sp[n].ops : sp[n].bytes);
        if (!(sec > 0) || !(amount > 0))
            continue; /* no work, or none measurable: no rate of its own */
        const double r = amount / sec;
        if (out->slowest < 0 || r < out->node_min)
            out->node_min = r, out->slowest = n;
        out->node_max = r > out->node_max ? r : out->node_max;
    }
    out->below_nodes = out->slowest >= 0 && out->aggregate < PFS_SKEW_NODE_FRAC * out->node_min;
    return out->near_skew || out->below_nodes;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *sorted, int n)
{
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

int pfs_stragglers(const double *bw, int nnodes, double frac, int *flag)
{
    if (nnodes < 1)
        return 0;
    double *s = malloc(sizeof(double) * (size_t)nnodes);
    if (!s)
        return 0;
    memcpy(s, bw, sizeof(double) * (size_t)nnodes);
    qsort(s, (size_t)nnodes, sizeof(double), cmp_double);
    double med = median_of(s, nnodes);
    free(s);
    int count = 0;
    for (int n = 0; n < nnodes; n++) {
        flag[n] = nnodes > 1 && bw[n] < frac * med;
        count += flag[n];
    }
    return count;
}

void pfs_stats_compute(const double *v, int n, struct pfs_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n < 1)
        return;
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s)
        return;
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = median_of(s, n);
    double m2;
    out->mean = pfs_mean_m2(v, n, &m2);
    out->stddev = n > 1 ? sqrt(m2 / (n - 1)) : 0;
    free(s);
}

double pfs_mean_m2(const double *v, int n, double *m2)
{
    double mean = 0, q = 0;
    for (int i = 0; i < n; i++) {
        double d = v[i] - mean;
        mean += d / (i + 1);
        q += d * (v[i] - mean);
    }
    *m2 = q;
    return mean;
}

int pfs_clock_estimate(const double *t0, const double *tr, const double *t1, int n,
                       double *correction, double *uncertainty)
{
    if (n < 1)
        return -1;
    int best = 0;
    for (int i = 1; i < n; i++)
        if (t1[i] - t0[i] < t1[best] - t0[best])
            best = i;
    /* The remote read its clock somewhere inside [t0, t1]; the midpoint is
     * the best guess and half the round trip bounds the error. */
    *correction = 0.5 * (t0[best] + t1[best]) - tr[best];
    *uncertainty = 0.5 * (t1[best] - t0[best]);
    return best;
}
