/* The latency datasets of a phase group: the fine histograms of every
 * repetition (run-wide per kind, the op kind per node, compressed: they
 * are mostly empty buckets), their summaries (the figures') and one
 * time-series group per repetition. The schema's latency_datasets table
 * lists them (the CPU seconds per node there are phase_h5.c's);
 * docs/results-format.md has the sizes. */
#include "latency_h5.h"
#include "results_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KINDS_ATTR "op,open,fsync,close,response,read,write"
_Static_assert(PFS_LAT_KINDS == 7, "KINDS_ATTR names every latency kind");

/* ---- helpers ---- */

/* Deflate where this HDF5 can encode it; else chunked, unfiltered. */
static int deflate_ok(void)
{
    unsigned cfg = 0;
    return H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zget_filter_info(H5Z_FILTER_DEFLATE, &cfg) >= 0 &&
           (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

/* A dataset with a units attribute; chunk (rank entries, none 0) makes it
 * chunked and, where deflate is there, compressed at level 4. */
static int put(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data,
               const char *units, const hsize_t *chunk)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int empty = 0;
    for (int i = 0; i < rank; i++)
        empty |= dims[i] == 0;
    if (chunk && !empty) {
        H5Pset_chunk(dcpl, rank, chunk);
        if (deflate_ok())
            H5Pset_deflate(dcpl, 4);
    }
    int rc = pfs_res_write_dcpl(loc, name, type, type, rank, dims, data, units, dcpl);
    H5Pclose(dcpl);
    return rc;
}

/* ---- the histograms and their summaries ---- */

/* The summaries' compound (the schema's latency_summary: struct pfs_lat_sum). */
static hid_t sum_type(const char **units)
{
    const struct pfs_sch_table *t = pfs_schema_table("latency_summary");
    *units = t->units;
    return pfs_res_compound(t, t->size, NULL, NULL);
}

static int write_buckets(hid_t g)
{
    uint64_t *lo = malloc(sizeof(uint64_t) * PFS_HIST_BUCKETS), *hi = malloc(sizeof(uint64_t) * PFS_HIST_BUCKETS);
    int rc = !lo || !hi;
    for (unsigned i = 0; !rc && i < PFS_HIST_BUCKETS; i++)
        lo[i] = pfs_hist_bucket_lo(i), hi[i] = pfs_hist_bucket_hi(i);
    hsize_t B = PFS_HIST_BUCKETS;
    if (!rc) {
        rc |= put(g, "latency_bucket_lo", H5T_NATIVE_UINT64, 1, &B, lo, "ns: the smallest value of each bucket", NULL);
        rc |= put(g, "latency_bucket_hi", H5T_NATIVE_UINT64, 1, &B, hi,
                  "ns: the largest value of each bucket, inclusive (2^64-1 for the last)", NULL);
    }
    free(lo), free(hi);
    return rc;
}

/* Entry i of a repetition's histograms: its buckets and summary; 0 past
 * the last the repetition has. */
typedef int (*hist_row_fn)(const struct pfs_rep_figs *r, size_t i, const struct pfs_hist **h,
                           const struct pfs_lat_sum **sum);

static int run_row(const struct pfs_rep_figs *r, size_t k, const struct pfs_hist **h, const struct pfs_lat_sum **sum)
{
    *h = &r->lat->run[k], *sum = &r->lat_sum[k];
    return 1;
}

static int node_row(const struct pfs_rep_figs *r, size_t n, const struct pfs_hist **h, const struct pfs_lat_sum **sum)
{
    if (!r->lat->node_op || n >= (size_t)r->lat->nnodes)
        return 0;
    *h = &r->lat->node_op[n], *sum = &r->node_lat[n];
    return 1;
}

/* name [R][K][B] and name_summary [R][K]: K histograms a repetition,
 * from row; chunks of kc of them. */
static int write_hists(hid_t g, const struct pfs_run_data *d, int p, int R, size_t K, size_t kc, hist_row_fn row,
                       const char *name, const char *units)
{
    const size_t B = PFS_HIST_BUCKETS;
    uint64_t *c = calloc((size_t)R * K * B, sizeof(uint64_t));
    struct pfs_lat_sum *sm = calloc((size_t)R * K, sizeof(*sm));
    if (!c || !sm) {
        free(c), free(sm);
        return -1;
    }
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        const struct pfs_hist *h;
        const struct pfs_lat_sum *s;
        for (size_t i = 0; r && r->lat && i < K && row(r, i, &h, &s); i++) {
            size_t o = (size_t)rep * K + i;
            memcpy(c + o * B, h->b, B * sizeof(uint64_t));
            sm[o] = *s;
        }
    }
    hsize_t dims[3] = {(hsize_t)R, K, B}, chunk[3] = {1, kc, B};
    int rc = put(g, name, H5T_NATIVE_UINT64, 3, dims, c, units, chunk);
    char sname[64];
    snprintf(sname, sizeof(sname), "%s_summary", name);
    const char *sunits;
    hid_t t = sum_type(&sunits);
    rc |= put(g, sname, t, 2, dims, sm, sunits, NULL);
    H5Tclose(t);
    free(c), free(sm);
    return rc;
}

/* latency [R][5][B] and latency_summary [R][5]: every stream, per kind. */
static int write_run_hists(hid_t g, const struct pfs_run_data *d, int p, int R)
{
    return write_hists(g, d, p, R, PFS_LAT_KINDS, PFS_LAT_KINDS, run_row, "latency",
                       "operations per bucket ([rep][kind][bucket]; kinds op,open,fsync,close,response,read,write, fsync holding "
                       "--fsync-every's and -e's; buckets latency_bucket_lo .. latency_bucket_hi, ns)");
}

/* node_latency [R][K][B], node_latency_summary [R][K]: the op kind per node. */
static int write_node_hists(hid_t g, const struct pfs_run_data *d, int p, int R)
{
    const size_t K = (size_t)d->nnodes;
    return write_hists(g, d, p, R, K, K < 8 ? K : 8, node_row, "node_latency",
                       "operations of the phase's own kind (op) per bucket ([rep][node][bucket]; buckets "
                       "latency_bucket_lo .. latency_bucket_hi, ns)");
}

/* ---- the time series ---- */

struct ts_cols {
    uint64_t *bytes, *ops;
    double *p50, *p99, *max;
    uint32_t *hist;
};

static int ts_fill(struct ts_cols *c, const struct pfs_phase_lat *l, size_t n, size_t K)
{
    c->bytes = calloc(n * K + 1, sizeof(uint64_t)), c->ops = calloc(n * K + 1, sizeof(uint64_t));
    c->p50 = calloc(n * K + 1, sizeof(double)), c->p99 = calloc(n * K + 1, sizeof(double));
    c->max = calloc(n * K + 1, sizeof(double));
    c->hist = calloc(n * PFS_TS_BUCKETS + 1, sizeof(uint32_t));
    if (!c->bytes || !c->ops || !c->p50 || !c->p99 || !c->max || !c->hist)
        return -1;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; l->node_ts && k < K && k < (size_t)l->nnodes; k++) {
            const struct pfs_node_tslot *s = pfs_lat_node_ts(l, (uint32_t)i, (int)k);
            size_t o = i * K + k;
            c->bytes[o] = s->bytes, c->ops[o] = s->ops;
            c->p50[o] = s->p50_ns, c->p99[o] = s->p99_ns, c->max[o] = s->max_ns;
        }
        if (l->run_ts)
            memcpy(c->hist + i * PFS_TS_BUCKETS, l->run_ts[i].h, sizeof(uint32_t) * PFS_TS_BUCKETS);
    }
    return 0;
}

static void ts_free(struct ts_cols *c)
{
    free(c->bytes), free(c->ops), free(c->p50), free(c->p99), free(c->max), free(c->hist);
}

static int write_ts_rep(hid_t tg, const struct pfs_run_data *d, const struct pfs_rep_figs *r, int rep)
{
    const struct pfs_phase_lat *l = r->lat;
    char name[16];
    snprintf(name, sizeof(name), "rep_%03d", rep);
    hid_t g = H5Gcreate2(tg, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    size_t n = l->nint, K = (size_t)d->nnodes;
    long long nint = (long long)n;
    int rc = pfs_res_attr_num(g, "t0", H5T_NATIVE_DOUBLE, &l->t0) | pfs_res_attr_num(g, "interval", H5T_NATIVE_DOUBLE, &l->dt) |
             pfs_res_attr_num(g, "base_interval", H5T_NATIVE_DOUBLE, &l->base_dt) |
             pfs_res_attr_num(g, "intervals", H5T_NATIVE_LLONG, &nint) |
             pfs_res_attr_num(g, "first_interval", H5T_NATIVE_UINT32, &l->first) |
             pfs_res_attr_str(g, "units", "t0: s since the Unix epoch on rank 0's clock, the grid's origin; interval, "
                                          "base_interval: s; first_interval: the grid index of interval 0");
    struct ts_cols c;
    memset(&c, 0, sizeof(c));
    if (ts_fill(&c, l, n, K) != 0) {
        ts_free(&c);
        H5Gclose(g);
        return -1;
    }
    hsize_t dk[2] = {n, K}, ck[2] = {n < 64 ? n : 64, K < 64 ? K : 64};
    hsize_t dh[2] = {n, PFS_TS_BUCKETS}, ch[2] = {n < 64 ? n : 64, PFS_TS_BUCKETS};
    hsize_t d1 = n;
    /* The edges (the figures'): interval i is [edge i, edge i + 1). */
    rc |= put(g, "start", H5T_NATIVE_DOUBLE, 1, &d1, r->ts_edge,
              "s since the Unix epoch on rank 0's clock: where each interval starts (the first: the phase's first open)",
              NULL);
    rc |= put(g, "end", H5T_NATIVE_DOUBLE, 1, &d1, r->ts_edge + 1,
              "s since the Unix epoch on rank 0's clock: where each interval ends (the last: the phase's last close); "
              "rates are bytes and ops over end - start", NULL);
    rc |= put(g, "bytes", H5T_NATIVE_UINT64, 2, dk, c.bytes, "bytes per [interval][node]", ck);
    rc |= put(g, "ops", H5T_NATIVE_UINT64, 2, dk, c.ops, "operations completed per [interval][node]", ck);
    rc |= put(g, "p50_ns", H5T_NATIVE_DOUBLE, 2, dk, c.p50, "ns, within 12.5% (0: no operation)", ck);
    rc |= put(g, "p99_ns", H5T_NATIVE_DOUBLE, 2, dk, c.p99, "ns, within 12.5% (0: no operation)", ck);
    rc |= put(g, "max_ns", H5T_NATIVE_DOUBLE, 2, dk, c.max, "ns, exact (0: no operation)", ck);
    rc |= put(g, "run_hist", H5T_NATIVE_UINT32, 2, dh, c.hist,
              "operations of every stream per [interval][coarse bucket] (buckets: ../ts_bucket_lo, ns)", ch);
    ts_free(&c);
    H5Gclose(g);
    return rc;
}

static int write_timeseries(hid_t pg, const struct pfs_run_data *d, int p, int R)
{
    hid_t tg = H5Gcreate2(pg, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (tg < 0)
        return -1;
    uint64_t lo[PFS_TS_BUCKETS];
    for (unsigned i = 0; i < PFS_TS_BUCKETS; i++)
        lo[i] = pfs_ts_bucket_lo(i);
    hsize_t TB = PFS_TS_BUCKETS;
    int rc = put(tg, "ts_bucket_lo", H5T_NATIVE_UINT64, 1, &TB, lo,
                 "ns: the smallest value of each coarse bucket of run_hist (4 per power of two)", NULL);
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        if (r && r->lat)
            rc |= write_ts_rep(tg, d, r, rep);
    }
    H5Gclose(tg);
    return rc;
}

/* ---- the exemplars: one table, every repetition's rows in turn ---- */

static int write_exemplars(hid_t g, const struct pfs_run_data *d, int p, int R)
{
    size_t n = 0;
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        n += r && r->lat ? r->nex : 0;
    }
    struct pfs_exemplar_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return -1;
    size_t at = 0;
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        if (r && r->lat && r->nex) {
            memcpy(rows + at, r->ex, r->nex * sizeof(*rows));
            at += r->nex;
        }
    }
    const struct pfs_sch_table *tb = pfs_schema_table("exemplar");
    hid_t t = pfs_res_compound(tb, tb->size, NULL, NULL);
    hid_t ft = pfs_res_packed(t);
    const hsize_t dims = (hsize_t)n;
    int rc = pfs_res_write_typed(g, "exemplars", ft, t, 1, &dims, rows, tb->units);
    H5Tclose(ft);
    H5Tclose(t);
    free(rows);
    return rc;
}

/* ---- the storage targets: one table, every repetition's rows in turn,
 * and each row's latency histogram ---- */

static int write_targets(hid_t g, const struct pfs_run_data *d, int p, int R)
{
    size_t n = 0;
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        n += r && r->tg ? r->ntg : 0;
    }
    const size_t B = PFS_HIST_BUCKETS;
    struct pfs_tg_row *rows = calloc(n ? n : 1, sizeof(*rows));
    uint64_t *c = calloc((n ? n : 1) * B, sizeof(uint64_t));
    if (!rows || !c) {
        free(rows), free(c);
        return -1;
    }
    size_t at = 0;
    for (int rep = 0; rep < R; rep++) {
        const struct pfs_rep_figs *r = pfs_figs_rep(&d->fig, p, rep);
        for (unsigned i = 0; r && r->tg && i < r->ntg; i++, at++) {
            rows[at] = r->tg[i];
            memcpy(c + at * B, r->lat->tg[i].h.b, B * sizeof(uint64_t));
        }
    }
    const struct pfs_sch_table *tb = pfs_schema_table("target");
    hid_t t = pfs_res_compound(tb, tb->size, NULL, NULL);
    hid_t ft = pfs_res_packed(t);
    const hsize_t dims = (hsize_t)n, hdims[2] = {(hsize_t)n, B}, chunk[2] = {1, B};
    int rc = pfs_res_write_typed(g, "targets", ft, t, 1, &dims, rows, tb->units);
    rc |= put(g, "target_latency", H5T_NATIVE_UINT64, 2, hdims, c,
              "transfers per bucket ([row of targets][bucket]; buckets latency_bucket_lo .. latency_bucket_hi, ns)",
              chunk);
    H5Tclose(ft);
    H5Tclose(t);
    free(rows), free(c);
    return rc;
}

int pfs_res_write_latency(hid_t g, const struct pfs_run_data *d, int p)
{
    const int R = d->fig.phase[p].reps;
    if (!d->fig.phase[p].any_lat)
        return 0;
    int rc = pfs_res_attr_str(g, "latency_kinds", KINDS_ATTR);
    rc |= write_buckets(g);
    rc |= write_run_hists(g, d, p, R);
    rc |= write_node_hists(g, d, p, R);
    rc |= write_timeseries(g, d, p, R);
    rc |= write_exemplars(g, d, p, R);
    if (d->fig.phase[p].any_tg)
        rc |= write_targets(g, d, p, R);
    return rc;
}
