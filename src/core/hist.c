/* Latency histograms and time series (pfs/hist.h): everything but the hot
 * paths, which are inline in the header. Pure: libc only. */
#include "pfs/hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fine histogram --------------------------------------------------- */

void pfs_hist_reset(struct pfs_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
}

void pfs_hist_merge(struct pfs_hist *dst, const struct pfs_hist *src)
{
    dst->count += src->count;
    dst->sum_ns += src->sum_ns;
    dst->min_ns = src->min_ns < dst->min_ns ? src->min_ns : dst->min_ns;
    dst->max_ns = src->max_ns > dst->max_ns ? src->max_ns : dst->max_ns;
    for (unsigned i = 0; i < PFS_HIST_BUCKETS; i++)
        dst->b[i] += src->b[i];
}

/* The inverse of pfs_hist_index: bucket i >= 64 is sub-bucket (i & 63) of
 * the row shift = i/64 - 1, i.e. the values whose top 7 bits read
 * 64 + (i & 63) after a right shift by shift. Below 128 shift is 0 and the
 * bucket is the value itself. */
static unsigned bucket_shift(unsigned i)
{
    return i < 2 * PFS_HIST_SUB ? 0u : (i >> PFS_HIST_SUB_BITS) - 1u;
}

uint64_t pfs_hist_bucket_lo(unsigned i)
{
    if (i < PFS_HIST_SUB)
        return i;
    unsigned shift = bucket_shift(i);
    return (uint64_t)(PFS_HIST_SUB + (i & (PFS_HIST_SUB - 1u))) << shift;
}

uint64_t pfs_hist_bucket_hi(unsigned i)
{
    if (i >= PFS_HIST_BUCKETS - 1u)
        return UINT64_MAX;
    return pfs_hist_bucket_lo(i) + (UINT64_C(1) << bucket_shift(i)) - 1u;
}

/* The nearest rank of q among count values, 1..count. A product within
 * 1e-9 of an integer is that integer: 0.999 x 1000 may come out as
 * 999.0000000000001, whose ceiling would skip a rank. */
static uint64_t nearest_rank(double q, uint64_t count)
{
    double x = q * (double)count;
    double r = nearbyint(x);
    double c = fabs(x - r) <= 1e-9 * (r > 1 ? r : 1) ? r : ceil(x);
    if (c < 1)
        return 1;
    return c >= (double)count ? count : (uint64_t)c;
}

/* A bucket's midpoint, clamped to what was seen: the clamp is what makes
 * the open-ended last bucket and one-valued histograms read right. */
static double clamp_mid(uint64_t lo, uint64_t hi, uint64_t min, uint64_t max)
{
    double m = ((double)lo + (double)hi) / 2;
    if (m < (double)min)
        return (double)min;
    return m > (double)max ? (double)max : m;
}

double pfs_hist_quantile(const struct pfs_hist *h, double q)
{
    if (h->count == 0)
        return 0;
    if (!(q > 0))
        return (double)h->min_ns;
    if (q >= 1)
        return (double)h->max_ns;
    uint64_t rank = nearest_rank(q, h->count), seen = 0;
    unsigned i = 0;
    for (; i < PFS_HIST_BUCKETS - 1u; i++) {
        seen += h->b[i];
        if (seen >= rank)
            break;
    }
    return clamp_mid(pfs_hist_bucket_lo(i), pfs_hist_bucket_hi(i), h->min_ns, h->max_ns);
}

double pfs_hist_mean(const struct pfs_hist *h)
{
    return h->count ? (double)h->sum_ns / (double)h->count : 0;
}

void pfs_hist_summary(const struct pfs_hist *h, double out[PFS_HS_N])
{
    static const double qs[] = {0, 0.5, 0.9, 0.99, 0.999, 1};
    for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
        out[i] = pfs_hist_quantile(h, qs[i]);
    out[PFS_HS_MEAN] = pfs_hist_mean(h);
}

/* ---- Time series ------------------------------------------------------ */

/* Coarse bucket i >= 1 is fine buckets 16(i+3) .. 16(i+3)+15. */
#define TS_DROP (PFS_HIST_SUB_BITS - PFS_TS_SUB_BITS)

uint64_t pfs_ts_bucket_lo(unsigned i)
{
    return i == 0 ? 0 : pfs_hist_bucket_lo((i + 3u) << TS_DROP);
}

uint64_t pfs_ts_bucket_hi(unsigned i)
{
    if (i == 0)
        return PFS_HIST_SUB - 1u;
    return pfs_hist_bucket_hi(((i + 3u) << TS_DROP) + (1u << TS_DROP) - 1u);
}

size_t pfs_ts_bytes(uint32_t cap)
{
    return (size_t)cap * sizeof(struct pfs_tslot);
}

int pfs_ts_init(struct pfs_tseries *ts, double t0, double base_dt, uint32_t cap)
{
    memset(ts, 0, sizeof(*ts));
    if (cap == 0 || !(base_dt > 0))
        return -EINVAL;
    ts->slot = calloc(cap, sizeof(struct pfs_tslot));
    if (!ts->slot)
        return -ENOMEM;
    ts->cap = cap;
    ts->t0 = t0;
    ts->factor = 1;
    ts->dt = base_dt;
    ts->inv_dt = 1 / base_dt;
    return 0;
}

void pfs_ts_free(struct pfs_tseries *ts)
{
    free(ts->slot);
    ts->slot = NULL;
    ts->cap = ts->n = 0;
}

void pfs_ts_reset(struct pfs_tseries *ts, double t0)
{
    /* only the slots in use were touched; the rest are still zero */
    memset(ts->slot, 0, pfs_ts_bytes(ts->n));
    ts->dt /= ts->factor; /* a power of two: exact */
    ts->inv_dt = 1 / ts->dt;
    ts->factor = 1;
    ts->n = 0;
    ts->t0 = t0;
}

static void slot_add(struct pfs_tslot *d, const struct pfs_tslot *s)
{
    d->bytes += s->bytes;
    d->ops += s->ops;
    d->max_ns = s->max_ns > d->max_ns ? s->max_ns : d->max_ns;
    for (unsigned b = 0; b < PFS_TS_BUCKETS; b++)
        d->h[b] += s->h[b];
}

/* Slot pairs (2i, 2i+1) -> i, in place: ascending i reads 2i and 2i+1
 * before anything at or past them is written. The interval doubles
 * (exactly: a power of two), so floor(t / 2dt) = floor(floor(t / dt) / 2)
 * and later events land where the merged ones did. */
static void coarsen_once(struct pfs_tseries *ts)
{
    uint32_t half = (ts->n + 1u) / 2u;
    for (uint32_t i = 0; i < half; i++) {
        struct pfs_tslot pair = ts->slot[2 * i];
        if (2 * i + 1 < ts->n)
            slot_add(&pair, &ts->slot[2 * i + 1]);
        ts->slot[i] = pair;
    }
    memset(ts->slot + half, 0, pfs_ts_bytes(ts->n - half));
    ts->n = half;
    ts->factor *= 2;
    ts->dt *= 2;
    ts->inv_dt = 1 / ts->dt;
}

/* The largest factor a uint32_t holds: past it (2^31 base intervals per
 * slot, decades at 1 s) an event lands in the last slot. */
#define TS_FACTOR_MAX (UINT32_C(1) << 31)

uint32_t pfs_ts_fit(struct pfs_tseries *ts, double x)
{
    if (x != x) /* a NaN clock: keep it countable, in slot 0 */
        return 0;
    while (x >= (double)ts->cap && ts->factor < TS_FACTOR_MAX) {
        coarsen_once(ts);
        x /= 2;
    }
    return x >= (double)ts->cap ? ts->cap - 1u : (uint32_t)x;
}

void pfs_ts_coarsen_to(struct pfs_tseries *ts, uint32_t factor)
{
    while (ts->factor < factor && ts->factor < TS_FACTOR_MAX)
        coarsen_once(ts);
}

int pfs_ts_merge(struct pfs_tseries *dst, const struct pfs_tseries *src)
{
    double dst_base = dst->dt / dst->factor, src_base = src->dt / src->factor;
    if (fabs(dst_base - src_base) > 1e-9 * dst_base)
        return -EINVAL;
    pfs_ts_coarsen_to(dst, src->factor);
    /* src's slot i folds into dst's slot i / ratio; coarsen dst until
     * src's last one fits */
    while (src->n && (src->n - 1u) / (dst->factor / src->factor) >= dst->cap && dst->factor < TS_FACTOR_MAX)
        coarsen_once(dst);
    uint32_t ratio = dst->factor / src->factor;
    for (uint32_t i = 0; i < src->n; i++) {
        uint32_t j = i / ratio;
        j = j < dst->cap ? j : dst->cap - 1u;
        slot_add(&dst->slot[j], &src->slot[i]);
        dst->n = j < dst->n ? dst->n : j + 1u;
    }
    return 0;
}

/* The slot index of x seconds past t0, clamped to [0, cap - 1]. */
static uint32_t slot_of(const struct pfs_tseries *ts, double x)
{
    if (!(x > 0))
        return 0;
    return x >= (double)ts->cap ? ts->cap - 1u : (uint32_t)x;
}

uint32_t pfs_ts_clip(struct pfs_tseries *ts, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = ts->t0;
        hi = ts->t0 + (double)(ts->n ? ts->n : 1u) * ts->dt;
    }
    lo -= ts->t0;
    hi -= ts->t0;
    if (!(hi >= lo))
        hi = lo;
    /* The phase's end must fall within the slots: coarsen as a completion
     * that late would have. */
    while (ceil(hi * ts->inv_dt) > (double)ts->cap && ts->factor < TS_FACTOR_MAX)
        coarsen_once(ts);
    uint32_t f = slot_of(ts, floor(lo * ts->inv_dt));
    uint32_t last = slot_of(ts, ceil(hi * ts->inv_dt) - 1);
    last = last > f ? last : f;
    /* Slivers at either end join their neighbour. */
    if (f < last && (double)(f + 1u) * ts->dt - lo < PFS_TS_SLIVER * ts->dt)
        f++;
    if (last > f && hi - (double)last * ts->dt < PFS_TS_SLIVER * ts->dt)
        last--;
    const uint32_t used = ts->n;
    for (uint32_t i = 0; i < f && i < used; i++)
        slot_add(&ts->slot[f], &ts->slot[i]);
    for (uint32_t i = last + 1u; i < used; i++)
        slot_add(&ts->slot[last], &ts->slot[i]);
    const uint32_t n = last - f + 1u;
    if (f)
        memmove(ts->slot, ts->slot + f, pfs_ts_bytes(n));
    /* Slots at and past n go back to zero, as an unused slot must be. */
    const uint32_t top = used > last + 1u ? used : last + 1u;
    memset(ts->slot + n, 0, pfs_ts_bytes(top - n));
    ts->n = n;
    return f;
}

double pfs_tslot_quantile(const struct pfs_tslot *s, double q)
{
    if (s->ops == 0)
        return 0;
    if (q >= 1)
        return (double)s->max_ns;
    uint64_t rank = nearest_rank(q > 0 ? q : 0, s->ops), seen = 0;
    unsigned i = 0;
    for (; i < PFS_TS_BUCKETS - 1u; i++) {
        seen += s->h[i];
        if (seen >= rank)
            break;
    }
    return clamp_mid(pfs_ts_bucket_lo(i), pfs_ts_bucket_hi(i), 0, s->max_ns);
}
