/* Per-operation latency histograms and per-interval time series. Pure:
 * libc only, no clock read, no thread, no allocation on the hot path.
 *
 * The fine histogram (struct pfs_hist) is log-linear over integer
 * nanoseconds, HdrHistogram's shape with 6 sub-bits: values below 64 ns
 * have a bucket each; a value v >= 64 with k = floor(log2 v) falls in one
 * of 64 equal buckets of width 2^(k-6) that split [2^k, 2^(k+1)). A
 * quantile is reported as its bucket's midpoint, so for values >= 64 ns
 * it is off by at most half a width over 2^k: relative error <= 1/128
 * (0.78%); below 128 ns the buckets are one value wide and it is exact.
 * Values >= 2^40 ns (about 1100 s, far beyond any one I/O call a run
 * should survive) share the last bucket; their quantiles are clamped to
 * max_ns and carry no error bound. Merging two histograms is exact.
 *
 * The time series (struct pfs_tseries) is bandwidth over time: per slot
 * (interval) its bytes, operations, slowest operation and a coarse
 * latency histogram (4 sub-buckets per power of two: interval quantiles
 * within 12.5%). A series has a fixed number of slots; a phase longer
 * than cap intervals coarsens the series in place (slot pairs merged,
 * interval doubled), so memory never grows during a phase. After the
 * phase, pfs_ts_clip fits the series to the phase's own span: the first
 * interval starts at the phase's start and the last ends at its end, so
 * an interval's rate is its bytes over its overlap with the phase.
 *
 * Memory per stream (x86-64): sizeof(struct pfs_hist) = 17,952 bytes;
 * pfs_ts_bytes(PFS_TS_CAP_DEFAULT) = 512 x 576 = 294,912 bytes (288 KiB);
 * sizeof(struct pfs_tseries) = 48. test_hist checks these figures.
 *
 * Thread safety: none inside; one histogram and one series per stream,
 * merged after the phase by whoever owns them all. */
#ifndef PFS_HIST_H
#define PFS_HIST_H

#include <stddef.h>
#include <stdint.h>

/* ---- Fine histogram --------------------------------------------------- */

#define PFS_HIST_SUB_BITS 6  /* 64 linear sub-buckets per power of two */
#define PFS_HIST_SUB (1u << PFS_HIST_SUB_BITS)
#define PFS_HIST_MAX_BITS 40 /* values >= 2^40 ns (~1100 s) land in the last bucket */
/* 64 exact buckets for 0..63, then 64 per power of two for 2^6 .. 2^39:
 * 64 + 34 x 64 = 2240. */
#define PFS_HIST_BUCKETS (PFS_HIST_SUB + (PFS_HIST_MAX_BITS - PFS_HIST_SUB_BITS) * PFS_HIST_SUB)

struct pfs_hist {
    uint64_t count;  /* operations added */
    uint64_t sum_ns; /* their total latency, exact (wraps only past 584 years) */
    uint64_t min_ns; /* UINT64_MAX when empty */
    uint64_t max_ns; /* 0 when empty */
    uint64_t b[PFS_HIST_BUCKETS];
};

/* The bucket of ns. Branch-light: one clz and two conditional moves.
 * With shift = max(floor(log2 v) - 6, 0), index = 64 x shift + (v >> shift):
 * for v < 128 that is v itself; above, (v >> shift) is 64 + the sub-bucket,
 * which is the log-linear formula 64 + 64 (k-6) + sub folded into one. */
static inline unsigned pfs_hist_index(uint64_t ns)
{
    unsigned k = 63u - (unsigned)__builtin_clzll(ns | 1u);
    unsigned shift = k > PFS_HIST_SUB_BITS ? k - PFS_HIST_SUB_BITS : 0u;
    uint64_t i = ((uint64_t)shift << PFS_HIST_SUB_BITS) + (ns >> shift);
    return i < PFS_HIST_BUCKETS ? (unsigned)i : PFS_HIST_BUCKETS - 1u;
}

/* The hot path: a few ns, no call, no branch the predictor cares about. */
static inline void pfs_hist_add(struct pfs_hist *h, uint64_t ns)
{
    h->count++;
    h->sum_ns += ns;
    h->min_ns = ns < h->min_ns ? ns : h->min_ns;
    h->max_ns = ns > h->max_ns ? ns : h->max_ns;
    h->b[pfs_hist_index(ns)]++;
}

/* Empties h (min_ns back to UINT64_MAX). */
void pfs_hist_reset(struct pfs_hist *h);
/* dst += src, exactly: buckets, count, sum, min, max. */
void pfs_hist_merge(struct pfs_hist *dst, const struct pfs_hist *src);
/* The smallest ns value in bucket i. */
uint64_t pfs_hist_bucket_lo(unsigned i);
/* The largest ns value in bucket i, inclusive; UINT64_MAX for the last. */
uint64_t pfs_hist_bucket_hi(unsigned i);
/* The q-quantile, q in [0,1], in ns: the value at nearest rank
 * ceil(q x count) (a product within 1e-9 of an integer counts as that
 * integer, so 0.999 x 1000 is rank 999 whatever the rounding), reported as
 * its bucket's midpoint clamped to [min_ns, max_ns]. q <= 0 gives min_ns,
 * q >= 1 max_ns; an empty histogram gives 0. */
double pfs_hist_quantile(const struct pfs_hist *h, double q);
/* sum_ns / count, exact up to the double; 0 when empty. */
double pfs_hist_mean(const struct pfs_hist *h);

/* What the report prints per phase, in ns, in this order. */
enum {
    PFS_HS_MIN,
    PFS_HS_P50,
    PFS_HS_P90,
    PFS_HS_P99,
    PFS_HS_P999,
    PFS_HS_MAX,
    PFS_HS_MEAN,
    PFS_HS_N /* 7 */
};
/* out[PFS_HS_MIN..PFS_HS_MEAN]: min, p50, p90, p99, p99.9, max, mean (ns);
 * all 0 when h is empty. */
void pfs_hist_summary(const struct pfs_hist *h, double out[PFS_HS_N]);

/* ---- Time series ------------------------------------------------------ */

#define PFS_TS_SUB_BITS 2 /* 4 sub-buckets per power of two: quantiles within 12.5% */
/* Bucket 0 holds everything below 64 ns (below any real I/O call: a clock
 * read alone costs ~20 ns); then 4 per power of two for 2^6 .. 2^39, the
 * last one open-ended like the fine histogram's: 1 + 34 x 4 = 137. */
#define PFS_TS_BUCKETS (1 + (PFS_HIST_MAX_BITS - PFS_HIST_SUB_BITS) * (1 << PFS_TS_SUB_BITS))
/* 512 slots: at a 1 s interval a phase of up to 512 s is kept at 1 s;
 * longer ones are coarsened to 2 s, 4 s, ... */
#define PFS_TS_CAP_DEFAULT 512

struct pfs_tslot {
    uint64_t bytes, ops, max_ns;  /* ops is also the count of h */
    uint32_t h[PFS_TS_BUCKETS];   /* overflows only past 2^32 ops of one bucket in one slot */
};

struct pfs_tseries {
    double t0;       /* interval 0 starts here (seconds, caller's clock) */
    double dt;       /* seconds per slot now: the base interval x factor */
    double inv_dt;   /* 1 / dt: the hot path multiplies */
    uint32_t factor; /* base intervals per slot now, a power of two */
    uint32_t n;      /* slots in use: the last slot index seen + 1 */
    uint32_t cap;    /* slots allocated; an index >= cap coarsens the series */
    struct pfs_tslot *slot;
};

/* The coarse bucket of ns: the fine index with its low 4 sub-bits
 * dropped (64 sub-buckets -> 4), everything below 64 ns in bucket 0. */
static inline unsigned pfs_ts_index(uint64_t ns)
{
    unsigned c = pfs_hist_index(ns) >> (PFS_HIST_SUB_BITS - PFS_TS_SUB_BITS);
    const unsigned below = PFS_HIST_SUB >> (PFS_HIST_SUB_BITS - PFS_TS_SUB_BITS); /* 4 */
    return c > below - 1u ? c - (below - 1u) : 0u;
}
/* The smallest and largest (inclusive; UINT64_MAX for the last) ns in
 * coarse bucket i. */
uint64_t pfs_ts_bucket_lo(unsigned i);
uint64_t pfs_ts_bucket_hi(unsigned i);

/* Slots cap (>= 1) of base_dt (> 0) seconds from t0, zeroed: 0, -EINVAL
 * or -ENOMEM. */
int pfs_ts_init(struct pfs_tseries *ts, double t0, double base_dt, uint32_t cap);
/* Frees the slots; ts may be zeroed or already freed. */
void pfs_ts_free(struct pfs_tseries *ts);
/* A new phase from t0: the same memory, emptied, factor back to 1. */
void pfs_ts_reset(struct pfs_tseries *ts, double t0);
/* Coarsens until slot index x (a double: it may be far past cap) fits.
 * The hot path's slow branch; returns the index to use. */
uint32_t pfs_ts_fit(struct pfs_tseries *ts, double x);

/* The hot path: one subtract, one multiply, a compare, the adds. An event
 * before t0 goes to slot 0; one past cap intervals coarsens (pfs_ts_fit). */
static inline void pfs_ts_add(struct pfs_tseries *ts, double now, uint64_t bytes, uint64_t lat_ns)
{
    double x = (now - ts->t0) * ts->inv_dt;
    uint32_t i;
    if (__builtin_expect(x < (double)ts->cap, 1))
        i = x > 0 ? (uint32_t)x : 0u;
    else
        i = pfs_ts_fit(ts, x);
    struct pfs_tslot *s = &ts->slot[i];
    s->bytes += bytes;
    s->ops++;
    s->max_ns = lat_ns > s->max_ns ? lat_ns : s->max_ns;
    s->h[pfs_ts_index(lat_ns)]++;
    ts->n = i < ts->n ? ts->n : i + 1u;
}

/* Coarsens ts until its factor is at least factor: the result is the
 * smallest power of two >= factor (never finer than now). To line several
 * series up before they are compared or written side by side. */
void pfs_ts_coarsen_to(struct pfs_tseries *ts, uint32_t factor);
/* dst += src, slot by slot: slot i of both is taken to be the same
 * interval (dst's t0 is kept; the driver puts every stream's slots on the
 * phase's one grid, each stream's t0 being that grid's origin on its own
 * clock). Either may be the finer: dst is coarsened to src's factor if
 * src's is larger, and src's slots are folded into dst's coarser ones if
 * it is smaller (src itself is not changed); dst is coarsened further
 * if src's slots would not fit in dst's cap. dst->n becomes the max of
 * both (in dst's slots). Returns 0, or -EINVAL if their base intervals
 * differ. */
int pfs_ts_merge(struct pfs_tseries *dst, const struct pfs_tseries *src);
/* An edge interval shorter than this fraction of the interval is joined
 * to its neighbour (pfs_ts_clip): a sliver of a few microseconds holding
 * one completion, or none, would show as a spike, or a drop, that no
 * device made. */
#define PFS_TS_SLIVER 0.25
/* Fits ts to a phase that ran from lo to hi (seconds on ts's clock):
 * coarsens it until hi falls within cap intervals; folds what landed
 * before lo's interval into it and what landed past hi's into that (the
 * clocks of other nodes put their first and last completions there, by
 * as much as the barrier's skew); joins a first or last interval that
 * overlaps the phase by less than PFS_TS_SLIVER of an interval to its
 * neighbour; and moves what is left to slots 0 .. n-1. Returns g: slot
 * i is now [lo, t0 + (g+1) dt) for i = 0, [t0 + (g+i) dt, t0 + (g+i+1)
 * dt) for 0 < i < n-1, and the last one ends at hi (one slot: [lo, hi]).
 * A NaN or infinite lo or hi: the span of the slots in use. */
uint32_t pfs_ts_clip(struct pfs_tseries *ts, double lo, double hi);
/* Edge i (0 .. n) of a series that pfs_ts_clip fitted to [lo, hi] with
 * grid index g: lo, then t0 + (g+i) dt, then hi for i = n; kept within
 * [lo, hi]. */
static inline double pfs_ts_edge(double t0, double dt, uint32_t g, uint32_t n, double lo, double hi, uint32_t i)
{
    if (i == 0)
        return lo;
    if (i >= n)
        return hi;
    double e = t0 + (double)(g + i) * dt;
    return e < lo ? lo : e > hi ? hi : e;
}
/* The q-quantile of a slot's latencies, ns: its coarse bucket's midpoint,
 * clamped to max_ns (q >= 1 gives max_ns); 0 when the slot is empty. */
double pfs_tslot_quantile(const struct pfs_tslot *s, double q);
/* Bytes of slot memory for cap slots (what pfs_ts_init allocates). */
size_t pfs_ts_bytes(uint32_t cap);

#endif
