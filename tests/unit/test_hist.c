/* Latency histograms and time series (pfs/hist.h) in a plain process:
 * buckets tile the integers, quantiles of seeded samples stay within the
 * documented error of the exact nearest-rank ones, merges are exact, and
 * a time series keeps its totals through coarsening and merging, and is
 * fitted to its phase's span at its edges (pfs_ts_clip). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/hist.h"

#define NSAMPLES 100000

/* xorshift64*: seeded, the same sample on every machine */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double unit(uint64_t *s)
{
    return (double)(next(s) >> 11) * 0x1p-53;
}

/* log-uniform over 100 ns .. 10 s: every bucket row from 2^6 to 2^33 */
static uint64_t loguniform(uint64_t *s)
{
    return (uint64_t)exp(log(100.0) + unit(s) * (log(1e10) - log(100.0)));
}

static uint64_t uniform(uint64_t *s)
{
    return 100 + (uint64_t)(unit(s) * (1e10 - 100));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static struct pfs_hist *new_hist(void)
{
    struct pfs_hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    pfs_hist_reset(h);
    return h;
}

static void test_sizes(void **state)
{
    (void)state;
    /* the figures hist.h states */
    assert_int_equal(PFS_HIST_BUCKETS, 2240);
    assert_int_equal(PFS_TS_BUCKETS, 137);
    assert_int_equal(sizeof(struct pfs_hist), 17952);
    assert_int_equal(sizeof(struct pfs_tslot), 576);
    assert_int_equal(pfs_ts_bytes(PFS_TS_CAP_DEFAULT), 294912);
    assert_int_equal(sizeof(struct pfs_tseries), 48);
}

/* Every bucket: lo and hi map back to it, and bucket i+1 starts where i
 * ends, so the buckets tile 0 .. UINT64_MAX with no gap or overlap. */
static void test_buckets_tile(void **state)
{
    (void)state;
    assert_int_equal(pfs_hist_bucket_lo(0), 0);
    for (unsigned i = 0; i < PFS_HIST_BUCKETS; i++) {
        uint64_t lo = pfs_hist_bucket_lo(i), hi = pfs_hist_bucket_hi(i);
        assert_true(lo <= hi);
        assert_int_equal(pfs_hist_index(lo), i);
        assert_int_equal(pfs_hist_index(hi), i);
        assert_int_equal(pfs_hist_index(lo + (hi - lo) / 2), i);
        if (i + 1 < PFS_HIST_BUCKETS)
            assert_int_equal(pfs_hist_bucket_lo(i + 1), hi + 1);
        else
            assert_true(hi == UINT64_MAX);
    }
    for (unsigned i = 0; i < PFS_TS_BUCKETS; i++) {
        uint64_t lo = pfs_ts_bucket_lo(i), hi = pfs_ts_bucket_hi(i);
        assert_int_equal(pfs_ts_index(lo), i);
        assert_int_equal(pfs_ts_index(hi), i);
        if (i + 1 < PFS_TS_BUCKETS)
            assert_int_equal(pfs_ts_bucket_lo(i + 1), hi + 1);
        else
            assert_true(hi == UINT64_MAX);
    }
}

static void test_boundaries(void **state)
{
    (void)state;
    const uint64_t p39 = UINT64_C(1) << 39, p40 = UINT64_C(1) << 40;
    assert_int_equal(pfs_hist_index(0), 0);
    assert_int_equal(pfs_hist_index(63), 63);
    assert_int_equal(pfs_hist_index(64), 64);
    assert_int_equal(pfs_hist_index(127), 127);
    assert_int_equal(pfs_hist_index(128), 128);
    assert_int_equal(pfs_hist_index(129), 128); /* width 2 from 128 */
    assert_int_equal(pfs_hist_index(130), 129);
    assert_int_equal(pfs_hist_index(p39), 64 + 33 * 64);
    assert_int_equal(pfs_hist_index(p40 - 1), PFS_HIST_BUCKETS - 1);
    assert_int_equal(pfs_hist_index(p40), PFS_HIST_BUCKETS - 1);
    assert_int_equal(pfs_hist_index(UINT64_MAX), PFS_HIST_BUCKETS - 1);
    assert_true(pfs_hist_bucket_lo(64 + 33 * 64) == p39);
    assert_true(pfs_hist_bucket_hi(PFS_HIST_BUCKETS - 2) == p40 - (UINT64_C(1) << 33) - 1);
    assert_int_equal(pfs_ts_index(0), 0);
    assert_int_equal(pfs_ts_index(63), 0);
    assert_int_equal(pfs_ts_index(64), 1);
    assert_int_equal(pfs_ts_index(80), 2);
    assert_int_equal(pfs_ts_index(128), 5);
    assert_int_equal(pfs_ts_index(UINT64_MAX), PFS_TS_BUCKETS - 1);
}

static void check_quantiles(uint64_t (*gen)(uint64_t *), uint64_t seed)
{
    uint64_t *v = malloc(NSAMPLES * sizeof(*v));
    assert_non_null(v);
    struct pfs_hist *h = new_hist();
    uint64_t sum = 0;
    for (int i = 0; i < NSAMPLES; i++) {
        v[i] = gen(&seed);
        sum += v[i];
        pfs_hist_add(h, v[i]);
    }
    qsort(v, NSAMPLES, sizeof(*v), cmp_u64);
    assert_int_equal(h->count, NSAMPLES);
    assert_true(h->sum_ns == sum);
    static const double qs[] = {0.5, 0.9, 0.99, 0.999};
    for (unsigned k = 0; k < 4; k++) {
        uint64_t exact = v[(size_t)ceil(qs[k] * NSAMPLES) - 1];
        double got = pfs_hist_quantile(h, qs[k]);
        assert_true(fabs(got - (double)exact) <= (double)exact / 128);
    }
    assert_true(pfs_hist_quantile(h, 0) == (double)v[0]);
    assert_true(pfs_hist_quantile(h, 1) == (double)v[NSAMPLES - 1]);
    double out[PFS_HS_N];
    pfs_hist_summary(h, out);
    assert_true(out[PFS_HS_MIN] == (double)v[0] && out[PFS_HS_MAX] == (double)v[NSAMPLES - 1]);
    assert_true(out[PFS_HS_P999] == pfs_hist_quantile(h, 0.999));
    assert_true(fabs(out[PFS_HS_MEAN] - (double)sum / NSAMPLES) <= 1e-9 * out[PFS_HS_MEAN]);
    free(h);
    free(v);
}

static void test_quantiles_loguniform(void **state)
{
    (void)state;
    check_quantiles(loguniform, 42);
}

static void test_quantiles_uniform(void **state)
{
    (void)state;
    check_quantiles(uniform, 7);
}

/* Small counts: nearest rank, exact below 128 ns; 0.999 of 1000 is rank 999. */
static void test_nearest_rank(void **state)
{
    (void)state;
    struct pfs_hist *h = new_hist();
    for (uint64_t v = 1; v <= 100; v++)
        pfs_hist_add(h, v);
    assert_true(pfs_hist_quantile(h, 0.5) == 50);
    assert_true(pfs_hist_quantile(h, 0.9) == 90);
    assert_true(pfs_hist_quantile(h, 0.901) == 91);
    assert_true(pfs_hist_quantile(h, 0.001) == 1);
    assert_true(pfs_hist_mean(h) == 50.5);
    pfs_hist_reset(h);
    for (uint64_t v = 1; v <= 1000; v++)
        pfs_hist_add(h, v < 128 ? v : 127);
    pfs_hist_add(h, 0);
    assert_true(pfs_hist_quantile(h, 0) == 0);
    pfs_hist_reset(h);
    /* one value far in the open-ended last bucket: clamped to it */
    pfs_hist_add(h, UINT64_C(5) << 40);
    assert_true(pfs_hist_quantile(h, 0.5) == (double)(UINT64_C(5) << 40));
    free(h);
}

static void test_empty(void **state)
{
    (void)state;
    struct pfs_hist *h = new_hist();
    assert_int_equal(h->count, 0);
    assert_true(h->min_ns == UINT64_MAX);
    assert_true(pfs_hist_quantile(h, 0) == 0);
    assert_true(pfs_hist_quantile(h, 0.5) == 0);
    assert_true(pfs_hist_quantile(h, 1) == 0);
    assert_true(pfs_hist_mean(h) == 0);
    double out[PFS_HS_N];
    pfs_hist_summary(h, out);
    for (int i = 0; i < PFS_HS_N; i++)
        assert_true(out[i] == 0);
    /* merging an empty one changes nothing, min included */
    struct pfs_hist *g = new_hist();
    pfs_hist_add(g, 1000);
    pfs_hist_merge(g, h);
    assert_int_equal(g->min_ns, 1000);
    assert_int_equal(g->max_ns, 1000);
    assert_int_equal(g->count, 1);
    free(g);
    free(h);
}

static void test_merge_is_union(void **state)
{
    (void)state;
    struct pfs_hist *a = new_hist(), *b = new_hist(), *u = new_hist();
    uint64_t seed = 99;
    for (int i = 0; i < NSAMPLES; i++) {
        uint64_t v = i % 3 ? loguniform(&seed) : uniform(&seed);
        pfs_hist_add(i % 2 ? a : b, v);
        pfs_hist_add(u, v);
    }
    pfs_hist_merge(a, b);
    assert_memory_equal(a, u, sizeof(*u));
    free(a);
    free(b);
    free(u);
}

/* ---- Time series ---- */

static uint64_t total(const struct pfs_tseries *ts, int what)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < ts->cap; i++)
        t += what ? ts->slot[i].ops : ts->slot[i].bytes;
    return t;
}

static void test_ts_slots(void **state)
{
    (void)state;
    struct pfs_tseries ts;
    assert_int_equal(pfs_ts_init(&ts, 100.0, 1.0, 8), 0);
    uint64_t bytes = 0;
    for (int i = 0; i < 350; i++) {
        uint64_t b = 1000 + (uint64_t)i;
        pfs_ts_add(&ts, 100.0 + (i + 0.5) * 0.01, b, 5000); /* mid-interval: no rounding at edges */
        bytes += b;
    }
    pfs_ts_add(&ts, 99.0, 7, 5000); /* before t0: slot 0 */
    bytes += 7;
    assert_int_equal(ts.n, 4);
    assert_int_equal(ts.factor, 1);
    assert_int_equal(ts.slot[0].ops, 101);
    assert_int_equal(ts.slot[1].ops, 100);
    assert_int_equal(ts.slot[2].ops, 100);
    assert_int_equal(ts.slot[3].ops, 50);
    assert_int_equal(total(&ts, 0), bytes);
    assert_int_equal(pfs_ts_init(&(struct pfs_tseries){0}, 0, 0, 8), -EINVAL);
    /* a new phase: empty, same memory */
    struct pfs_tslot *mem = ts.slot;
    pfs_ts_reset(&ts, 0);
    assert_ptr_equal(ts.slot, mem);
    assert_int_equal(ts.n, 0);
    assert_int_equal(total(&ts, 1), 0);
    pfs_ts_free(&ts);
    pfs_ts_free(&ts); /* twice is harmless */
}

static void test_ts_coarsen(void **state)
{
    (void)state;
    struct pfs_tseries ts;
    assert_int_equal(pfs_ts_init(&ts, 0, 1.0, 4), 0);
    uint64_t bytes = 0, ops = 0, max = 0;
    for (int i = 0; i < 1000; i++) { /* 0 .. 9.99 s into 4 slots */
        uint64_t lat = 100 + (uint64_t)i * 37;
        pfs_ts_add(&ts, (i + 0.5) * 0.01, 4096, lat);
        bytes += 4096, ops++, max = lat > max ? lat : max;
    }
    assert_int_equal(ts.factor, 4); /* 10 s at 1 s needs 4 s slots to fit in 4 */
    assert_true(ts.dt == 4.0);
    assert_int_equal(ts.n, 3);
    assert_int_equal(total(&ts, 0), bytes);
    assert_int_equal(total(&ts, 1), ops);
    assert_int_equal(ts.slot[0].ops, 400);
    assert_int_equal(ts.slot[1].ops, 400);
    assert_int_equal(ts.slot[2].ops, 200);
    assert_int_equal(ts.slot[2].max_ns, max);
    /* a reset puts the base interval back */
    pfs_ts_reset(&ts, 0);
    assert_true(ts.dt == 1.0 && ts.factor == 1);
    /* a clock far in the future still lands somewhere countable */
    pfs_ts_add(&ts, 1e300, 1, 1);
    assert_int_equal(total(&ts, 1), 1);
    pfs_ts_free(&ts);
}

static void fill(struct pfs_tseries *ts, double span, int n, uint64_t seed)
{
    for (int i = 0; i < n; i++)
        pfs_ts_add(ts, span * i / n, 1 + (uint64_t)i, loguniform(&seed));
}

static void test_ts_merge(void **state)
{
    (void)state;
    struct pfs_tseries a, b, ref;
    /* a: 10 s at 1 s in 16 slots (factor 1); b: 40 s into 16 (factor 4) */
    assert_int_equal(pfs_ts_init(&a, 0, 1.0, 16), 0);
    assert_int_equal(pfs_ts_init(&b, 0, 1.0, 16), 0);
    assert_int_equal(pfs_ts_init(&ref, 0, 1.0, 64), 0);
    fill(&a, 10, 5000, 1);
    fill(&b, 40, 8000, 2);
    fill(&ref, 10, 5000, 1);
    fill(&ref, 40, 8000, 2);
    assert_int_equal(a.factor, 1);
    assert_int_equal(b.factor, 4);
    uint64_t bytes = total(&a, 0) + total(&b, 0);
    /* the coarser into the finer: dst coarsened to factor 4 */
    assert_int_equal(pfs_ts_merge(&a, &b), 0);
    assert_int_equal(a.factor, 4);
    assert_int_equal(a.n, 10);
    assert_int_equal(total(&a, 0), bytes);
    pfs_ts_coarsen_to(&ref, 4);
    assert_int_equal(ref.n, a.n);
    assert_memory_equal(a.slot, ref.slot, pfs_ts_bytes(a.n));
    /* the finer into the coarser: src folded, src unchanged */
    struct pfs_tseries c, d;
    assert_int_equal(pfs_ts_init(&c, 0, 1.0, 16), 0);
    assert_int_equal(pfs_ts_init(&d, 0, 1.0, 16), 0);
    fill(&c, 10, 5000, 1);
    fill(&d, 40, 8000, 2);
    assert_int_equal(pfs_ts_merge(&d, &c), 0);
    assert_int_equal(d.factor, 4);
    assert_int_equal(c.factor, 1);
    assert_memory_equal(d.slot, ref.slot, pfs_ts_bytes(d.n));
    /* a dst too small for src's slots is coarsened until they fit */
    struct pfs_tseries e;
    assert_int_equal(pfs_ts_init(&e, 0, 1.0, 2), 0);
    assert_int_equal(pfs_ts_merge(&e, &c), 0);
    assert_int_equal(e.factor, 8);
    assert_int_equal(total(&e, 0), total(&c, 0));
    /* different base intervals do not merge */
    struct pfs_tseries f;
    assert_int_equal(pfs_ts_init(&f, 0, 0.5, 16), 0);
    assert_int_equal(pfs_ts_merge(&f, &c), -EINVAL);
    struct pfs_tseries *all[] = {&a, &b, &c, &d, &e, &f, &ref};
    for (unsigned i = 0; i < 7; i++)
        pfs_ts_free(all[i]);
}

/* n slots from slot 0 and nothing past them: an unused slot is zero. */
static void assert_rest_zero(const struct pfs_tseries *ts)
{
    static const struct pfs_tslot zero;
    for (uint32_t i = ts->n; i < ts->cap; i++)
        assert_memory_equal(&ts->slot[i], &zero, sizeof(zero));
}

/* One event of bytes b in the middle of each of the given slots (dt 1). */
static void put(struct pfs_tseries *ts, const double *at, const uint64_t *b, int n)
{
    for (int i = 0; i < n; i++)
        pfs_ts_add(ts, at[i], b[i], 1000);
}

static void test_ts_clip(void **state)
{
    (void)state;
    struct pfs_tseries ts;
    assert_int_equal(pfs_ts_init(&ts, 0, 1.0, 8), 0);
    const double at[] = {0.5, 1.5, 2.5};
    const uint64_t b[] = {10, 20, 40};
    /* a phase from 0.1 to 2.6 s: three intervals, the first and the last partial */
    put(&ts, at, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, 0.1, 2.6), 0);
    assert_int_equal(ts.n, 3);
    assert_int_equal(ts.slot[2].bytes, 40);
    const double want[] = {0.1, 1, 2, 2.6};
    for (uint32_t i = 0; i <= 3; i++)
        assert_true(fabs(pfs_ts_edge(0, ts.dt, 0, ts.n, 0.1, 2.6, i) - want[i]) < 1e-12);
    /* a last interval of 0.1 s (< a quarter) joins the one before: 1 .. 2.1 s */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, 0.1, 2.1), 0);
    assert_int_equal(ts.n, 2);
    assert_int_equal(ts.slot[1].bytes, 60);
    assert_true(pfs_ts_edge(0, ts.dt, 0, ts.n, 0.1, 2.1, 2) == 2.1);
    assert_rest_zero(&ts);
    /* a first one of 0.1 s joins the next: interval 0 is 0.9 .. 2 s, grid index 1 */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, 0.9, 2.6), 1);
    assert_int_equal(ts.n, 2);
    assert_int_equal(ts.slot[0].bytes, 30);
    assert_int_equal(ts.slot[1].bytes, 40);
    assert_true(pfs_ts_edge(0, ts.dt, 1, ts.n, 0.9, 2.6, 1) == 2.0);
    assert_rest_zero(&ts);
    /* a phase that starts late (--ramp): the empty intervals before it go,
     * a completion the skew put there joins its first interval */
    pfs_ts_reset(&ts, 0);
    const double late[] = {1.5, 3.5, 4.5, 5.2};
    const uint64_t lb[] = {1, 100, 200, 400};
    put(&ts, late, lb, 4);
    assert_int_equal(pfs_ts_clip(&ts, 3.2, 5.5), 3);
    assert_int_equal(ts.n, 3);
    assert_int_equal(ts.slot[0].bytes, 101);
    assert_int_equal(ts.slot[2].bytes, 400);
    assert_int_equal(total(&ts, 0), 701);
    assert_rest_zero(&ts);
    /* a phase that ends after its last completion (a long close): empty intervals up to its end */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 2);
    assert_int_equal(pfs_ts_clip(&ts, 0, 4.5), 0);
    assert_int_equal(ts.n, 5);
    assert_int_equal(ts.slot[4].ops, 0);
    assert_int_equal(total(&ts, 0), 30);
    /* a completion the skew put past the phase's end joins its last interval */
    pfs_ts_reset(&ts, 0);
    const double past[] = {0.5, 1.5, 3.01};
    put(&ts, past, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, 0, 2.9), 0);
    assert_int_equal(ts.n, 3);
    assert_int_equal(ts.slot[2].bytes, 40);
    assert_rest_zero(&ts);
    /* a phase shorter than one interval: one, from its start to its end */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 1);
    assert_int_equal(pfs_ts_clip(&ts, 0.2, 0.3), 0);
    assert_int_equal(ts.n, 1);
    assert_true(pfs_ts_edge(0, ts.dt, 0, 1, 0.2, 0.3, 0) == 0.2 && pfs_ts_edge(0, ts.dt, 0, 1, 0.2, 0.3, 1) == 0.3);
    /* a phase past cap intervals: coarsened until its end fits (10 s in 8 slots: 2 s each) */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, 0, 10), 0);
    assert_int_equal(ts.factor, 2);
    assert_int_equal(ts.n, 5);
    assert_int_equal(ts.slot[0].bytes, 30);
    assert_int_equal(ts.slot[1].bytes, 40);
    /* no span known (NaN): the slots in use */
    pfs_ts_reset(&ts, 0);
    put(&ts, at, b, 3);
    assert_int_equal(pfs_ts_clip(&ts, NAN, 1), 0);
    assert_int_equal(ts.n, 3);
    assert_int_equal(total(&ts, 0), 70);
    pfs_ts_free(&ts);
}

static void test_tslot_quantile(void **state)
{
    (void)state;
    struct pfs_tseries ts;
    assert_int_equal(pfs_ts_init(&ts, 0, 1.0, 4), 0);
    uint64_t *v = malloc(NSAMPLES * sizeof(*v)), seed = 5;
    assert_non_null(v);
    for (int i = 0; i < NSAMPLES; i++) {
        v[i] = loguniform(&seed);
        pfs_ts_add(&ts, 0.5, 1, v[i]);
    }
    qsort(v, NSAMPLES, sizeof(*v), cmp_u64);
    static const double qs[] = {0.01, 0.5, 0.9, 0.99, 0.999};
    for (unsigned k = 0; k < 5; k++) {
        uint64_t exact = v[(size_t)ceil(qs[k] * NSAMPLES) - 1];
        double got = pfs_tslot_quantile(&ts.slot[0], qs[k]);
        assert_true(fabs(got - (double)exact) <= 0.125 * (double)exact);
    }
    assert_true(pfs_tslot_quantile(&ts.slot[0], 1) == (double)v[NSAMPLES - 1]);
    assert_true(pfs_tslot_quantile(&ts.slot[1], 0.5) == 0);
    free(v);
    pfs_ts_free(&ts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_buckets_tile),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_quantiles_loguniform),
        cmocka_unit_test(test_quantiles_uniform),
        cmocka_unit_test(test_nearest_rank),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_merge_is_union),
        cmocka_unit_test(test_ts_slots),
        cmocka_unit_test(test_ts_coarsen),
        cmocka_unit_test(test_ts_merge),
        cmocka_unit_test(test_ts_clip),
        cmocka_unit_test(test_tslot_quantile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
