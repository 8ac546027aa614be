/* Latency and time after each phase: every stream's histograms and time
 * series reach rank 0 merged, per node first, so rank 0 never receives one
 * record per stream.
 *
 *   1. each rank merges its threads' records into stream 0's (a block laid
 *      out as a message: struct pfs_stream_lat, then its slots);
 *   2. MPI_Ireduce over the node's communicator (the topology's) to its
 *      lowest rank, with a merge operation (histograms add; time series
 *      align their intervals; the exemplars, tagged with their rank,
 *      thread, node and file first, keep the K slowest of both);
 *   3. the node leaders agree on one interval for all (the coarsest any
 *      node had to take) and on the phase's span (rank 0's: the first open
 *      and the last close of any stream, from the times gathered just
 *      before), fit their node blocks to that span alike (pfs_ts_clip),
 *      then reduce them to rank 0 (the run's record) and gather to it each
 *      node's histogram of operations and per-interval summary.
 *
 * Nothing here runs inside a phase: the records are each stream's own
 * memory while it runs (no message, no lock), and these collectives come
 * after the phase's closing agreement, each waited for under the watchdog
 * (agree.h), so a rank that dies still cannot hang the others. */
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pfs/stream_tg.h"

/* A record's block: the struct, then cap slots. */
static size_t block_bytes(void) { return sizeof(struct pfs_stream_lat) + pfs_ts_bytes(PFS_TS_CAP_DEFAULT); }

static struct pfs_tslot *block_slots(const struct pfs_stream_lat *b) { return (struct pfs_tslot *)(void *)(b + 1); }

/* The view of a block's series with its slot pointer made right (a block
 * that travelled holds the sender's pointer). */
static struct pfs_tseries block_ts(const struct pfs_stream_lat *b)
{
    struct pfs_tseries ts = b->ts;
    ts.slot = block_slots(b);
    return ts;
}

static void block_merge(struct pfs_stream_lat *dst, const struct pfs_stream_lat *src)
{
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_hist_merge(&dst->h[k], &src->h[k]);
    struct pfs_tseries d = block_ts(dst), s = block_ts(src);
    (void)pfs_ts_merge(&d, &s); /* the same base interval everywhere: --interval */
    dst->ts = d;
    pfs_exemplar_merge(&dst->ex, &src->ex); /* the K slowest of both: any tree gives the same */
}

/* The MPI operation: inout += in, block by block. */
static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const size_t bytes = block_bytes();
    for (int i = 0; i < *len; i++)
        block_merge((struct pfs_stream_lat *)(void *)((char *)inout + (size_t)i * bytes),
                    (const struct pfs_stream_lat *)(const void *)((const char *)in + (size_t)i * bytes));
}

struct pfs_stream_lat *drv_lat_alloc(const struct pfs_config *cfg)
{
    struct pfs_stream_lat *b = calloc(1, block_bytes());
    if (!b)
        return NULL;
    b->ts.dt = cfg->interval > 0 ? cfg->interval : 1.0;
    b->ts.inv_dt = 1 / b->ts.dt;
    b->ts.factor = 1;
    b->ts.cap = PFS_TS_CAP_DEFAULT;
    b->ts.slot = block_slots(b);
    for (int k = 0; k < PFS_LAT_KINDS; k++)
        pfs_hist_reset(&b->h[k]);
    pfs_exemplar_init(&b->ex, (unsigned)cfg->exemplars);
    b->file = -1;
    return b;
}

/* One node's share of rank 0's record: its histogram of operations, then
 * nint interval summaries. */
static size_t node_rec_bytes(uint32_t nint) { return sizeof(struct pfs_hist) + nint * sizeof(struct pfs_node_tslot); }

/* Local. The block's type and the merge operation, and the buffers the
 * reductions land in (a node leader's block and record; rank 0's run block
 * and every node's record), once per run, so that no reduction can lack
 * memory. The node and leader communicators are the topology's
 * (drv_topology_setup). Failures are recorded. */
void drv_lat_setup(struct ctx *c)
{
    struct lat_ctx *l = &c->lat;
    MPI_Type_contiguous((int)block_bytes(), MPI_BYTE, &l->type);
    MPI_Type_commit(&l->type);
    MPI_Op_create(merge_op, 1, &l->op);
    l->ready = 1;
    if (c->topo.lowest_on_node) {
        l->node_blk = drv_lat_alloc(&c->cfg);
        l->rec = malloc(node_rec_bytes(PFS_TS_CAP_DEFAULT));
    }
    if (c->rank == 0) {
        l->run_blk = drv_lat_alloc(&c->cfg);
        l->recs = malloc(node_rec_bytes(PFS_TS_CAP_DEFAULT) * (size_t)(c->topo.nnodes > 0 ? c->topo.nnodes : 1));
    }
    if ((c->topo.lowest_on_node && (!l->node_blk || !l->rec)) || (c->rank == 0 && (!l->run_blk || !l->recs)))
        drv_set_fail(c, "allocate the latency records", "", ENOMEM, "%d nodes", c->topo.nnodes);
}

void drv_lat_free(struct ctx *c)
{
    struct lat_ctx *l = &c->lat;
    if (!l->ready)
        return;
    MPI_Type_free(&l->type);
    MPI_Op_free(&l->op);
    free(l->node_blk);
    free(l->run_blk);
    free(l->rec);
    free(l->recs);
    l->ready = 0;
}

static void node_rec_fill(char *rec, const struct pfs_stream_lat *b, uint32_t nint)
{
    memcpy(rec, &b->h[PFS_LAT_OP], sizeof(struct pfs_hist));
    struct pfs_node_tslot *o = (struct pfs_node_tslot *)(void *)(rec + sizeof(struct pfs_hist));
    const struct pfs_tslot *s = block_slots(b);
    for (uint32_t i = 0; i < nint; i++) {
        const int any = i < b->ts.n && s[i].ops;
        o[i] = (struct pfs_node_tslot){
            .bytes = i < b->ts.n ? s[i].bytes : 0,
            .ops = i < b->ts.n ? s[i].ops : 0,
            .p50_ns = any ? pfs_tslot_quantile(&s[i], 0.5) : 0,
            .p99_ns = any ? pfs_tslot_quantile(&s[i], 0.99) : 0,
            .max_ns = any ? (double)s[i].max_ns : 0,
        };
    }
}

/* Rank 0: the phase's span on its clock, as pfs_phase_reduce and the
 * record (record.c) will take it: the first open and the last close of any
 * stream, each corrected by its rank's clock offset (the same sums, so the
 * same doubles). 0, or -1 when rank 0 holds no gathered times. */
static int phase_span(const struct ctx *c, double *start, double *end)
{
    const struct pfs_times *t = c->rec.gathered;
    if (c->rank != 0 || !t || !c->topo.corr || c->nstreams < 1)
        return -1;
    for (int s = 0; s < c->nstreams; s++) {
        const double k = c->topo.corr[s / c->threads], a = t[s].open_start + k, b = t[s].close_end + k;
        if (s == 0 || a < *start)
            *start = a;
        if (s == 0 || b > *end)
            *end = b;
    }
    return 0;
}

/* Rank 0: the phase's record from the run's block and the nodes' records. */
static void store(struct ctx *c, struct pfs_phase_lat *out, const struct pfs_stream_lat *run, const char *recs,
                  uint32_t nint, uint32_t first, double start, double end)
{
    const int K = c->topo.nnodes;
    out->run = malloc(sizeof(run->h));
    out->nnodes = K;
    out->node_op = calloc((size_t)K, sizeof(struct pfs_hist));
    out->run_ts = calloc(nint ? nint : 1, sizeof(struct pfs_tslot));
    out->node_ts = calloc((size_t)(nint ? nint : 1) * (size_t)K, sizeof(struct pfs_node_tslot));
    out->ex = calloc(run->ex.n ? run->ex.n : 1, sizeof(struct pfs_exemplar));
    if (!out->run || !out->node_op || !out->run_ts || !out->node_ts || !out->ex) {
        pfs_lat_free(out); /* the phase's bandwidth is still recorded; its latency is not */
        return;
    }
    memcpy(out->run, run->h, sizeof(run->h));
    memcpy(out->run_ts, block_slots(run), nint * sizeof(struct pfs_tslot));
    for (int n = 0; n < K; n++) {
        const char *rec = recs + (size_t)n * node_rec_bytes(nint);
        memcpy(&out->node_op[n], rec, sizeof(struct pfs_hist));
        const struct pfs_node_tslot *ts = (const struct pfs_node_tslot *)(const void *)(rec + sizeof(struct pfs_hist));
        for (uint32_t i = 0; i < nint; i++)
            out->node_ts[(size_t)i * (size_t)K + (size_t)n] = ts[i];
    }
    out->base_dt = c->cfg.interval;
    out->dt = run->ts.dt;
    out->t0 = c->lat.grid;
    out->first = first;
    out->start = start;
    out->end = end;
    out->nint = nint;
    out->nex = run->ex.n ? pfs_exemplar_sorted(&run->ex, out->ex) : 0;
    out->valid = 1;
}

/* Node leaders: one interval and one span for all, then the run's block
 * and the nodes' records to rank 0. */
static void leaders_step(struct ctx *c, struct pfs_stream_lat *node, struct pfs_phase_lat *out, double since,
                         const char *where)
{
    struct lat_ctx *l = &c->lat;
    MPI_Request req;
    /* The coarsest factor any node took, the span of the slots in use (in
     * base intervals), and rank 0's phase span in seconds from the grid's origin,
     * negated start first (-inf from the others: MPI_MAX takes rank 0's).
     * Factors (<= 2^31) and spans (< 2^40) are exact in doubles. */
    double start = 0, end = 0;
    const int spanned = phase_span(c, &start, &end) == 0;
    double mine[4] = {node->ts.factor, (double)node->ts.n * node->ts.factor, spanned ? l->grid - start : -HUGE_VAL,
                      spanned ? end - l->grid : -HUGE_VAL},
           most[4];
    MPI_Iallreduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, c->topo.leaders, &req);
    drv_wait_watched(c, &req, since, where);
    struct pfs_tseries ts = block_ts(node);
    ts.t0 = 0; /* slot i starts at grid + i x dt on every rank (streams.c) */
    pfs_ts_coarsen_to(&ts, (uint32_t)most[0]);
    /* Every leader fits its node's slots to the same span, so that slot i
     * is the same interval everywhere; without rank 0's span (it kept no
     * record), the slots in use. */
    const double base = ts.dt / ts.factor;
    const double lo = isfinite(most[2]) ? -most[2] : 0, hi = isfinite(most[3]) ? most[3] : most[1] * base;
    const uint32_t first = pfs_ts_clip(&ts, lo, hi);
    node->ts = ts;
    const uint32_t nint = ts.n;
    MPI_Ireduce(node, c->rank == 0 ? (void *)l->run_blk : NULL, 1, l->type, l->op, 0, c->topo.leaders, &req);
    drv_wait_watched(c, &req, since, where);
    node_rec_fill(l->rec, node, nint);
    MPI_Igather(l->rec, (int)node_rec_bytes(nint), MPI_BYTE, l->recs, (int)node_rec_bytes(nint), MPI_BYTE, 0,
                c->topo.leaders, &req);
    drv_wait_watched(c, &req, since, where);
    if (c->rank == 0 && out)
        store(c, out, l->run_blk, l->recs, nint, first, spanned ? start : l->grid + lo, spanned ? end : l->grid + hi);
}

/* Collective, after a phase that every rank finished (failed: it did not,
 * and nothing is collected). out: rank 0's entry for the phase. */
void drv_lat_collect(struct ctx *c, struct pfs_phase_lat *out, int failed, double since, const char *where)
{
    struct lat_ctx *l = &c->lat;
    if (failed || !l->ready || c->threads < 1)
        return; /* the same on every rank: a rank without its records failed the set-up */
    struct pfs_stream_lat *mine = c->streams[0].lat;
    /* Each stream's exemplars learn whose they are before they travel, and
     * their start moves from the phase's t0 on this rank's monotonic clock
     * to ns since the epoch on rank 0's clock, as the times' open_start
     * (this rank's realtime at t0 plus its clock correction). */
    const double t0_real = c->lat.t0 + c->topo.clock_corr;
    const uint64_t t0_epoch_ns = t0_real > 0 ? (uint64_t)(t0_real * 1e9) : 0;
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream_lat *sl = c->streams[i].lat;
        if (!sl)
            continue;
        /* A data phase's: the target holding the offset (its name's hash;
         * rank 0 makes it the row of the phase's target table, targets.c). */
        struct pfs_stream_tg *tg = pfs_phase_is_meta(c->cur_kind) ? NULL : c->streams[i].tg;
        pfs_exemplar_tag(&sl->ex, c->rank, c->streams[i].thread, c->topo.node, sl->file,
                         tg ? pfs_stream_tg_target_of : NULL, tg);
        for (unsigned j = 0; j < sl->ex.n; j++)
            sl->ex.e[j].start_ns += t0_epoch_ns;
    }
    for (int i = 1; i < c->threads; i++)
        if (c->streams[i].lat)
            block_merge(mine, c->streams[i].lat);
    MPI_Request req;
    MPI_Ireduce(mine, l->node_blk, 1, l->type, l->op, 0, c->topo.node_comm, &req);
    drv_wait_watched(c, &req, since, where);
    if (c->topo.lowest_on_node)
        leaders_step(c, l->node_blk, out, since, where);
}
