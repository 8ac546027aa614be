/* One repetition's figures (pfs/figures.h): the aggregate, each node's and
 * each stream's, the CPU, IOR's parts of the span, the latency summaries
 * and intervals, the page cache and the too-short verdict, from the
 * streams' pfs_times and the latency record of one phase and repetition. */
#include "figures_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/dist.h"
#include "pfs/ratesweep.h"
#include "pfs/sched.h"
#include "pfs/train.h"

/* Carves r's arrays out of one block at base, in the order of their
 * alignment; base NULL only measures. Returns the bytes needed. */
static size_t layout(struct pfs_rep_figs *r, char *base, size_t K, size_t N, size_t edges, size_t nex, size_t ntg)
{
    size_t off = 0;
#define TAKE(ptr, n)                                                                                               \
    do {                                                                                                           \
        if (base)                                                                                                  \
            (ptr) = (void *)(base + off);                                                                          \
        off += ((n) * sizeof(*(ptr)) + 7u) & ~(size_t)7u;                                                         \
    } while (0)
    TAKE(r->node_bytes, K);
    TAKE(r->node_ops, K);
    TAKE(r->node_seconds, K);
    TAKE(r->node_bw, K);
    TAKE(r->node_rate, K);
    TAKE(r->node_cpu_user, K);
    TAKE(r->node_cpu_sys, K);
    TAKE(r->node_cache, K);
    TAKE(r->node_lat, K);
    TAKE(r->stream_bw, N);
    TAKE(r->ts_edge, edges);
    TAKE(r->ex, nex);
    TAKE(r->tg, ntg);
    TAKE(r->node_straggler, K);
    TAKE(r->node_train_au, K);
#undef TAKE
    return off;
}

/* The aggregate, the figure the phase is judged by, the stonewall's say
 * with each stream's count at it, and a find's matches. */
static void aggregate(struct pfs_rep_figs *r, const struct pfs_run_data *d, int p, int rep, const struct pfs_times *t)
{
    const struct pfs_config *c = d->cfg;
    const int kind = c->phases[p], meta = pfs_phase_is_meta(kind);
    const int ns = pfs_run_nstreams(d);
    pfs_phase_reduce(t, ns, &r->s);
    r->value = meta ? r->s.rate : r->s.bandwidth;
    r->warmup = rep < c->warmup;
    r->stonewall = c->deadline > 0 && pfs_phase_has(kind, PFS_PHF_STONEWALL) && r->s.sw_rate > 0;
    for (int i = 0; r->stonewall && i < ns; i++) {
        if (i == 0 || t[i].sw_xfers < r->sw_stream_min)
            r->sw_stream_min = t[i].sw_xfers;
        if (t[i].sw_xfers > r->sw_stream_max)
            r->sw_stream_max = t[i].sw_xfers;
        r->sw_stream_mean += (double)t[i].sw_xfers / ns;
    }
    r->find_matched = -1;
    if (pfs_phase_has(kind, PFS_PHF_MATCHES) && d->find_matched)
        r->find_matched = (long long)d->find_matched[(size_t)p * (size_t)d->reps + (size_t)rep];
}

/* --rate (or the repetition's --rate-sweep point, whose percentages are
 * of the phase's first repetition, base): what was offered (every
 * stream's share of it, pfs_rate_share), whether the achieved fell short,
 * and the submissions' lag. */
static void rate(struct pfs_rep_figs *r, const struct pfs_config *c, int kind, double base, int rep,
                 const struct pfs_times *t, int ns)
{
    double rate;
    int unit, scope;
    if (!pfs_rate_at(c, base, rep, &rate, &unit, &scope))
        return;
    double span = 0;
    const double mean = pfs_config_xfer_mean(c, kind); /* -t, or --bssplit's mean */
    for (int i = 0; i < ns; i++) {
        struct pfs_rate_share sh;
        if (pfs_rate_share(rate, unit, scope, c->arrivals, mean, ns, i, &sh) == 0) {
            r->offered_ops += sh.ops;
            const double own = (double)(t[i].due_last_ns - t[i].due_first_ns) * 1e-9 + 1 / sh.ops;
            if (t[i].xfers && t[i].due_last_ns >= t[i].due_first_ns && own > span)
                span = own;
        }
        r->lag_mean_ns += (double)t[i].lag_sum_ns;
        if ((double)t[i].lag_max_ns > r->lag_max_ns)
            r->lag_max_ns = (double)t[i].lag_max_ns;
    }
    r->offered_bytes = r->offered_ops * mean;
    r->lag_mean_ns = r->s.ops ? r->lag_mean_ns / (double)r->s.ops : 0;
    r->sched_ops = span > 0 ? (double)r->s.ops / span : r->offered_ops;
    r->rate_short = r->s.rate < (1 - PFS_RATE_SHORT) * r->sched_ops;
}

/* A phase that draws reads and writes (rwmix): each direction's
 * transfers, bytes and their rates over the phase's seconds (the writes
 * are what the reads leave of the aggregate). */
static void mix(struct pfs_rep_figs *r, int kind, const struct pfs_times *t, int ns)
{
    if (!pfs_phase_has(kind, PFS_PHF_MIXES))
        return;
    r->mixed = 1;
    for (int i = 0; i < ns; i++) {
        r->mix_read_ops += t[i].rd_xfers;
        r->mix_read_bytes += t[i].rd_bytes;
    }
    r->mix_write_ops = r->s.ops > r->mix_read_ops ? r->s.ops - r->mix_read_ops : 0;
    r->mix_write_bytes = r->s.bytes > r->mix_read_bytes ? r->s.bytes - r->mix_read_bytes : 0;
    const double sec = r->s.seconds;
    r->mix_read_rate = sec > 0 ? (double)r->mix_read_ops / sec : 0;
    r->mix_write_rate = sec > 0 ? (double)r->mix_write_ops / sec : 0;
    r->mix_read_bw = sec > 0 ? (double)r->mix_read_bytes / sec : 0;
    r->mix_write_bw = sec > 0 ? (double)r->mix_write_bytes / sec : 0;
}

/* Each node's bytes, operations, seconds, bandwidth and rate from one pass
 * over the streams (pfs_node_spans), its stragglers and CPU. */
static void nodes(struct pfs_rep_figs *r, const struct pfs_run_data *d, int meta, const struct pfs_times *t,
                  const struct pfs_node_span *sp)
{
    const int K = d->nnodes;
    for (int n = 0; n < K; n++) {
        const double sec = sp[n].end - sp[n].start;
        r->node_bytes[n] = sp[n].bytes;
        r->node_ops[n] = sp[n].ops;
        r->node_seconds[n] = sec;
        r->node_bw[n] = sec > 0 ? (double)sp[n].bytes / sec : 0;
        r->node_rate[n] = sec > 0 ? (double)sp[n].ops / sec : 0;
    }
    r->node_value = meta ? r->node_rate : r->node_bw;
    r->slow = r->fast = 0;
    for (int n = 1; n < K; n++) {
        if (r->node_value[n] < r->node_value[r->slow])
            r->slow = n;
        if (r->node_value[n] > r->node_value[r->fast])
            r->fast = n;
    }
    r->nstrag = pfs_stragglers(r->node_value, K, d->cfg->straggler, r->node_straggler);
    if (K > 0 && pfs_run_stream_nodes(d))
        pfs_node_cpu(t, pfs_run_stream_nodes(d), pfs_run_nstreams(d), K, r->node_cpu_user, r->node_cpu_sys);
}

/* Each stream's bandwidth over its own span, and the streams' CPU. */
static void streams(struct pfs_rep_figs *r, const struct pfs_times *t, int ns)
{
    for (int i = 0; i < ns; i++) {
        const double span = t[i].close_end - t[i].open_start;
        r->stream_bw[i] = span > 0 ? (double)t[i].bytes / span : 0;
        r->cpu.user_s += t[i].cpu_user;
        r->cpu.sys_s += t[i].cpu_sys;
        r->stream_bw_sum += r->stream_bw[i];
        if (i == 0 || r->stream_bw[i] < r->stream_bw_min)
            r->stream_bw_min = r->stream_bw[i];
        if (i == 0 || r->stream_bw[i] > r->stream_bw_max)
            r->stream_bw_max = r->stream_bw[i];
        if (i == 0 || t[i].bytes < r->stream_bytes_min)
            r->stream_bytes_min = t[i].bytes;
        if (i == 0 || span > r->slow_stream_s) {
            r->slow_stream = i;
            r->slow_stream_s = span;
        }
    }
    r->stream_bw_mean = ns > 0 ? r->stream_bw_sum / ns : 0;
    if (r->s.seconds > 0 && ns > 0)
        r->cpu.percent = (r->cpu.user_s + r->cpu.sys_s) / (r->s.seconds * ns) * 100.0;
}

/* A phase that feeds emulated accelerators: the AU of the job, of each
 * node and of the lowest accelerator, samples, stalls, the gate. */
static void train(struct pfs_rep_figs *r, const struct pfs_run_data *d, int p, const struct pfs_times *t, int ns)
{
    const double gib = (double)r->s.bytes / (1024.0 * 1024.0 * 1024.0);
    r->cpu_per_gib = gib > 0 ? (r->cpu.user_s + r->cpu.sys_s) / gib : 0;
    if (!pfs_phase_has(d->cfg->phases[p], PFS_PHF_ACCEL))
        return;
    const int K = d->nnodes;
    const int *node = pfs_run_stream_nodes(d);
    r->train_fed = 1;
    double *busy = calloc((size_t)(K > 0 ? K : 1), 3 * sizeof(double));
    r->train_au_min = ns > 0 ? 100 : 0;
    for (int i = 0; i < ns; i++) {
        r->train_compute_s += t[i].train_compute_s;
        r->train_stall_s += t[i].train_stall_s;
        r->train_samples += t[i].train_samples;
        r->train_stall_1ms += t[i].train_stall_1ms;
        r->train_stall_10ms += t[i].train_stall_10ms;
        r->train_stall_100ms += t[i].train_stall_100ms;
        r->train_stall_more += t[i].train_stall_more;
        r->train_stall_max_s = fmax(r->train_stall_max_s, t[i].train_stall_max_s);
        r->train_au_min = fmin(r->train_au_min, t[i].train_au_min);
        r->train_accelerators = t[i].train_accelerators > r->train_accelerators ? t[i].train_accelerators
                                                                                : r->train_accelerators;
        r->train_trials = t[i].train_trials > r->train_trials ? t[i].train_trials : r->train_trials;
        if (busy && node && node[i] >= 0 && node[i] < K) {
            busy[3 * node[i]] += t[i].train_compute_s;
            busy[3 * node[i] + 1] += t[i].train_stall_s;
            busy[3 * node[i] + 2] += (double)t[i].train_accelerators;
        }
    }
    for (int n = 0; busy && n < K; n++) {
        r->node_train_au[n] = pfs_train_au(busy[3 * n], busy[3 * n + 1]);
        if ((uint64_t)busy[3 * n + 2] > r->train_acc_node)
            r->train_acc_node = (uint64_t)busy[3 * n + 2];
    }
    free(busy);
    r->train_au = pfs_train_au(r->train_compute_s, r->train_stall_s);
    r->train_samples_s = r->s.seconds > 0 ? (double)r->train_samples / r->s.seconds : 0;
    r->train_pass = r->train_au >= d->cfg->au_gate;
}

/* open_s, xfer_s and close_s: each part from its earliest start to its
 * latest end over the streams; and the transfers over xfer_s (after
 * aggregate(): s.ops). */
static void parts(struct pfs_rep_figs *r, const struct pfs_times *t, int ns)
{
    if (ns < 1)
        return;
    double open0 = t[0].open_start, open1 = t[0].open_end, xfer0 = t[0].open_end, xfer1 = t[0].xfer_end;
    double close0 = t[0].xfer_end, close1 = t[0].close_end;
    for (int i = 1; i < ns; i++) {
        open0 = fmin(open0, t[i].open_start), open1 = fmax(open1, t[i].open_end);
        xfer0 = fmin(xfer0, t[i].open_end), xfer1 = fmax(xfer1, t[i].xfer_end);
        close0 = fmin(close0, t[i].xfer_end), close1 = fmax(close1, t[i].close_end);
    }
    r->open_s = open1 - open0;
    r->xfer_s = xfer1 - xfer0;
    r->close_s = close1 - close0;
    r->xfer_rate = r->xfer_s > 0 ? (double)r->s.ops / r->xfer_s : 0;
}

void pfs_figs_lat_summary(const struct pfs_hist *h, struct pfs_lat_sum *o)
{
    double sm[PFS_HS_N];
    pfs_hist_summary(h, sm);
    o->count = h->count;
    o->sum_ns = h->sum_ns;
    o->min_ns = sm[PFS_HS_MIN], o->p50_ns = sm[PFS_HS_P50], o->p90_ns = sm[PFS_HS_P90];
    o->p99_ns = sm[PFS_HS_P99], o->p999_ns = sm[PFS_HS_P999], o->max_ns = sm[PFS_HS_MAX];
    o->mean_ns = sm[PFS_HS_MEAN];
}

/* The exemplars as the outputs give them: whose host, which operation,
 * the start in s since the epoch on rank 0's clock. */
static void exemplars(struct pfs_rep_figs *r, const struct pfs_run_data *d, int p, int rep,
                      const struct pfs_phase_lat *l)
{
    r->nex = l->nex;
    for (unsigned i = 0; i < l->nex; i++) {
        const struct pfs_exemplar *e = &l->ex[i];
        const int k = (int)e->op;
        r->ex[i] = (struct pfs_exemplar_row){
            .rep = rep, .rank = e->rank, .thread = e->thread, .file = e->file, .target = e->target,
            .host = e->rank >= 0 && e->rank < d->nranks ? d->hosts[e->rank] : "",
            .op = k == PFS_LAT_OP ? pfs_phase_name(d->cfg->phases[p]) : pfs_lat_kind_name(k),
            .offset = e->offset, .length = e->length, .duration_ns = e->dur_ns,
            .start = 1e-9 * (double)e->start_ns,
            .target_name = e->target >= 0 && (unsigned)e->target < l->ntg ? l->tg[e->target].name : "",
        };
    }
}

/* The storage targets' rows and slow flags (pfs_tg_rows: the stragglers'
 * rule, --straggler, over the targets' bandwidths). */
static void targets(struct pfs_rep_figs *r, const struct pfs_run_data *d, int rep, const struct pfs_phase_lat *l)
{
    if (!l->tg) {
        r->tg = NULL; /* layout() pointed it at its empty share */
        return;
    }
    r->ntg = l->ntg;
    r->tg_dropped = l->tg_dropped;
    r->tg_slow = pfs_tg_rows(l->tg, l->ntg, d->cfg->straggler, r->tg);
    if (r->tg_slow < 0) /* no memory to judge them */
        r->tg_slow = 0;
    for (unsigned i = 0; i < l->ntg; i++) {
        r->tg[i].rep = rep;
        r->ntg_known += strcmp(l->tg[i].name, "unknown") != 0;
    }
}

/* The summaries per kind and per node, the slowest node by p99 (the
 * summary's p99 is pfs_hist_quantile's 0.99) and the intervals' edges. */
static void latency(struct pfs_rep_figs *r, const struct pfs_phase_lat *l, int K)
{
    r->lat = l;
    r->lat_slowest = -1;
    if (!l)
        return;
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_figs_lat_summary(&l->run[k], &r->lat_sum[k]);
    for (int n = 0; l->node_op && n < K && n < l->nnodes; n++) {
        pfs_figs_lat_summary(&l->node_op[n], &r->node_lat[n]);
        if (r->node_lat[n].count && (r->lat_slowest < 0 || r->node_lat[n].p99_ns > r->lat_slowest_p99))
            r->lat_slowest = n, r->lat_slowest_p99 = r->node_lat[n].p99_ns;
    }
    for (uint32_t i = 0; i <= l->nint; i++)
        r->ts_edge[i] = pfs_lat_edge(l, i);
    const struct pfs_lat_sum *ls = &r->lat_sum[r->offered_ops > 0 ? PFS_LAT_RESP : PFS_LAT_OP];
    r->load_p50_ns = ls->p50_ns, r->load_p99_ns = ls->p99_ns, r->load_p999_ns = ls->p999_ns;
}

/* One side of the page cache over the nodes that measured it. */
static void cache_side(struct pfs_cache_side *s, const struct pfs_pc_fig *node, int K, int dirty)
{
    s->top = s->low = -1;
    s->top_share = s->low_share = NAN;
    s->above_warn = 0;
    for (int n = 0; n < K; n++) {
        const struct pfs_pc_fig *f = &node[n];
        const double x = dirty ? pfs_pc_fraction(f->dirty, f->dirty_bytes) : pfs_pc_fraction(f->resident, f->bytes);
        if (!isfinite(x))
            continue;
        s->above_warn += x >= PFS_PC_WARN_FRACTION;
        if (s->top < 0 || x > s->top_share)
            s->top = n, s->top_share = x;
        if (s->low < 0 || x < s->low_share)
            s->low = n, s->low_share = x;
    }
}

/* The run's and each node's page cache, and what they call for: a file
 * system in memory named as such, else the node most resident before a
 * read, else the node most dirty at the close. */
static void cache(struct pfs_rep_figs *r, const struct pfs_run_data *d, const struct pfs_times *t)
{
    const int K = d->nnodes, memfs = pfs_pc_memory_fs(d->fstype);
    pfs_pc_reduce(t, pfs_run_stream_nodes(d), pfs_run_nstreams(d), K, &r->cache, r->node_cache);
    cache_side(&r->resident, r->node_cache, K, 0);
    cache_side(&r->dirty, r->node_cache, K, 1);
    const int res = pfs_pc_has_resident(&r->cache), dirty = pfs_pc_has_dirty(&r->cache);
    if (res && memfs)
        r->cache_call = PFS_CACHE_MEMFS;
    else if (res && r->resident.top >= 0 && r->resident.top_share >= PFS_PC_WARN_FRACTION)
        r->cache_call = PFS_CACHE_RESIDENT;
    else if (dirty && !memfs && r->dirty.top >= 0 && r->dirty.top_share >= PFS_PC_WARN_FRACTION)
        r->cache_call = PFS_CACHE_DIRTY;
    r->cache_unknown = (r->cache.methods & (1u << PFS_PC_UNKNOWN)) && !res;
}

int pfs_figs_rep_compute(struct pfs_rep_figs *r, const struct pfs_figures *f, const struct pfs_run_data *d, int p,
                         int rep)
{
    const struct pfs_times *t = pfs_run_times(d, p, rep);
    const struct pfs_phase_lat *l = pfs_run_lat(d, p, rep);
    const int meta = pfs_phase_is_meta(d->cfg->phases[p]), ns = pfs_run_nstreams(d);
    const size_t K = (size_t)(f->nnodes > 0 ? f->nnodes : 1), N = (size_t)(ns > 0 ? ns : 1);
    const size_t edges = l ? (size_t)l->nint + 1 : 0, nex = l ? l->nex : 0, ntg = l && l->tg ? l->ntg : 0;
    memset(r, 0, sizeof(*r));
    r->mem = calloc(1, layout(r, NULL, K, N, edges, nex, ntg));
    struct pfs_node_span *sp = calloc(K, sizeof(*sp));
    if (!r->mem || !sp) {
        free(r->mem), free(sp);
        r->mem = NULL;
        return -1;
    }
    layout(r, r->mem, K, N, edges, nex, ntg);
    if (!l) {
        r->ts_edge = NULL;
        r->tg = NULL;
    } else {
        exemplars(r, d, p, rep, l);
        targets(r, d, rep, l);
    }
    aggregate(r, d, p, rep, t);
    rate(r, d->cfg, d->cfg->phases[p], pfs_figs_rate_base(f, d->cfg, p, rep), rep, t, ns);
    mix(r, d->cfg->phases[p], t, ns);
    pfs_node_spans(t, pfs_run_stream_nodes(d), ns, d->nnodes, sp);
    nodes(r, d, meta, t, sp);
    streams(r, t, ns);
    train(r, d, p, t, ns);
    parts(r, t, ns);
    latency(r, l, d->nnodes);
    cache(r, d, t);
    r->ceil_binding = pfs_ceilings_share(meta ? NULL : d->ceil, r->s.bandwidth, &r->ceil_mem_pct, &r->ceil_net_pct);
    r->too_short = pfs_phase_skew_of(t, ns, &r->s, sp, d->nnodes, meta, &r->skew);
    free(sp);
    r->valid = 1;
    return 0;
}
