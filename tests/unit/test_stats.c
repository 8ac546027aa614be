/* Bandwidth, utilization, per-node, stragglers, statistics and clock offsets
 * against hand-computed values. malloc is wrapped (-Wl,--wrap=malloc) so
 * that the per-node figures' table can fail to be allocated. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/core.h"

#define MiB (1024.0 * 1024.0)

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
static int malloc_fails; /* set: every malloc answers NULL */

void *__wrap_malloc(size_t n)
{
    return malloc_fails ? NULL : __real_malloc(n);
}

static void test_phase_reduce(void **state)
{
    (void)state;
    /* rank 0: 10.0 .. 12.0, rank 1: 10.5 .. 14.0; 8 MiB each */
    struct pfs_times t[2];
    memset(t, 0, sizeof(t));
    t[0] = (struct pfs_times){.open_start = 10.0, .open_end = 10.1, .xfer_end = 11.5, .close_end = 12.0, .bytes = 8 << 20};
    t[1] = (struct pfs_times){.open_start = 10.5, .open_end = 10.6, .xfer_end = 13.0, .close_end = 14.0, .bytes = 8 << 20};
    struct pfs_phase_stat s;
    pfs_phase_reduce(t, 2, &s);
    assert_float_equal(s.seconds, 4.0, 1e-12);
    assert_true(s.bytes == 16 << 20);
    assert_float_equal(s.bandwidth, 16 * MiB / 4.0, 1e-6);
    /* busy: 2.0 + 3.5 = 5.5 over 2 ranks x 4 s */
    assert_float_equal(s.utilization, 5.5 / 8.0, 1e-12);
    assert_float_equal(s.sw_bandwidth, 0, 0);
}

static void test_stonewall(void **state)
{
    (void)state;
    /* rank 0 stopped at 12.0 with 4 MiB, rank 1 finished at 11.0 with 8 MiB,
     * then wear-out brought both to 8 MiB by 15.0 */
    struct pfs_times t[2];
    memset(t, 0, sizeof(t));
    t[0] = (struct pfs_times){.open_start = 10, .close_end = 15, .sw_end = 12, .bytes = 8 << 20, .sw_bytes = 4 << 20};
    t[1] = (struct pfs_times){.open_start = 10, .close_end = 11, .sw_end = 0, .bytes = 8 << 20, .sw_bytes = 8 << 20};
    struct pfs_phase_stat s;
    pfs_phase_reduce(t, 2, &s);
    assert_float_equal(s.bandwidth, 16 * MiB / 5.0, 1e-6);
    assert_float_equal(s.sw_bandwidth, 12 * MiB / 2.0, 1e-6);
    assert_true(s.sw_bytes == 12 << 20); /* both ranks' by the stonewall: IOR's Stonewall(MiB) sums it */
    assert_float_equal(s.sw_seconds, 2.0, 1e-12);
}

static void test_nodes(void **state)
{
    (void)state;
    struct pfs_times t[4];
    memset(t, 0, sizeof(t));
    /* round-robin on 2 nodes: node 0 = ranks 0,2; node 1 = ranks 1,3 */
    t[0] = (struct pfs_times){.open_start = 0, .close_end = 2, .bytes = 100};
    t[2] = (struct pfs_times){.open_start = 1, .close_end = 4, .bytes = 300};
    t[1] = (struct pfs_times){.open_start = 0, .close_end = 10, .bytes = 100};
    t[3] = (struct pfs_times){.open_start = 0, .close_end = 5, .bytes = 100};
    int node[4] = {0, 1, 0, 1};
    uint64_t bytes[2];
    double sec[2], bw[2];
    pfs_node_reduce(t, node, 4, 2, bytes, sec, bw);
    assert_true(bytes[0] == 400 && bytes[1] == 200);
    assert_float_equal(sec[0], 4, 0);
    assert_float_equal(sec[1], 10, 0);
    assert_float_equal(bw[0], 100, 1e-12);
    assert_float_equal(bw[1], 20, 1e-12);
    int flag[2];
    assert_int_equal(pfs_stragglers(bw, 2, 0.8, flag), 1); /* median 60: 20 < 48 */
    assert_int_equal(flag[0], 0);
    assert_int_equal(flag[1], 1);
    double even[4] = {100, 100, 95, 70};
    int f4[4];
    assert_int_equal(pfs_stragglers(even, 4, 0.8, f4), 1); /* median 97.5 x 0.8 = 78 */
    assert_int_equal(f4[3], 1);
    double one[1] = {5};
    assert_int_equal(pfs_stragglers(one, 1, 0.8, f4), 0);
}

static void test_stats(void **state)
{
    (void)state;
    double v[] = {4, 1, 3, 2};
    struct pfs_stats s;
    pfs_stats_compute(v, 4, &s);
    assert_float_equal(s.min, 1, 0);
    assert_float_equal(s.max, 4, 0);
    assert_float_equal(s.mean, 2.5, 1e-12);
    assert_float_equal(s.median, 2.5, 1e-12);
    assert_float_equal(s.stddev, sqrt(5.0 / 3.0), 1e-12); /* sample: sum sq dev 5, n-1 = 3 */
    double w[] = {7, 1, 9};
    pfs_stats_compute(w, 3, &s);
    assert_float_equal(s.median, 7, 0);
    double one[] = {3};
    pfs_stats_compute(one, 1, &s);
    assert_float_equal(s.stddev, 0, 0);
    assert_float_equal(s.median, 3, 0);
    /* large, close values: Welford keeps the spread */
    double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    pfs_stats_compute(big, 3, &s);
    assert_float_equal(s.stddev, 1.0, 1e-6);
}

static void test_clock(void **state)
{
    (void)state;
    /* The remote clock runs 5 s ahead of ours. Round trips of 4, 1 and 2 ms
     * with asymmetric delays; the 1 ms round is the one to keep. */
    const double off = 5.0;
    double t0[3] = {100.0, 200.0, 300.0};
    double t1[3] = {100.004, 200.001, 300.002};
    double tr[3] = {100.003 + off, 200.0005 + off, 300.0015 + off};
    double corr, unc;
    assert_int_equal(pfs_clock_estimate(t0, tr, t1, 3, &corr, &unc), 1);
    assert_float_equal(corr, -off, 1e-9);
    assert_float_equal(unc, 0.0005, 1e-12);
    /* the error stays within the uncertainty when the reply is lopsided */
    double tr2[3] = {100.0039 + off, 200.0009 + off, 300.0019 + off};
    pfs_clock_estimate(t0, tr2, t1, 3, &corr, &unc);
    assert_true(fabs(corr + off) <= unc);
    assert_int_equal(pfs_clock_estimate(t0, tr, t1, 0, &corr, &unc), -1);
}

/* ---- per node: one pass against a scan of each node's streams ---- */

static uint64_t rng_state;
static uint64_t rnd(void) { return pfs_mix64(rng_state++); }
static int rndi(int n) { return (int)(rnd() % (uint64_t)n); }

static double ref_span(const struct pfs_times *t, const int *node_of_rank, int nranks, int node, uint64_t *bytes,
                       uint64_t *ops)
{
    double start = 0, end = 0;
    int seen = 0;
    *bytes = *ops = 0;
    for (int r = 0; r < nranks; r++) {
        if (node_of_rank[r] != node)
            continue;
        if (!seen || t[r].open_start < start)
            start = t[r].open_start;
        if (!seen || t[r].close_end > end)
            end = t[r].close_end;
        seen = 1;
        *bytes += t[r].bytes;
        *ops += t[r].xfers;
    }
    return end - start;
}

/* A time from a few values (ties), now and then -0.0, 0 or NaN. */
static double rnd_time(int few)
{
    int k = rndi(40);
    if (k == 0)
        return -0.0;
    if (k == 1)
        return 0.0;
    if (k == 2 && few)
        return NAN;
    return few ? 100.0 + 0.25 * rndi(8) : 100.0 + (double)(rnd() >> 11) * 0x1p-50;
}

static void test_nodes_random(void **state)
{
    (void)state;
    enum { NMAX = 2500, KMAX = 2600 };
    static struct pfs_times t[NMAX];
    static int node[NMAX];
    static struct pfs_node_span sp[KMAX];
    static uint64_t gb[KMAX], wb[KMAX];
    static double gs[KMAX], ws[KMAX], gbw[KMAX], wbw[KMAX], grt[KMAX], wrt[KMAX];
    const int sizes[] = {1, 2, 5, 64, 333, 1000, NMAX};
    rng_state = 20;
    int cases = 0, empty = 0;
    for (int kind = 0; kind < 6; kind++)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (int trial = 0; trial < 8; trial++) {
                int n = sizes[si], k = trial == 0 ? n : 1 + rndi(n < 200 ? n : 200);
                int per = (n + k - 1) / k, b = 0, left = 0;
                for (int r = 0; r < n; r++) {
                    switch (kind) {
                    case 0: node[r] = r % k; break;   /* round-robin */
                    case 1: node[r] = r / per; break; /* block */
                    case 2: node[r] = rndi(k); break; /* uneven */
                    case 3: node[r] = 0; break;       /* one node */
                    case 4: node[r] = r; break;       /* a node each */
                    default:                          /* uneven blocks */
                        if (left == 0)
                            b = rndi(k), left = 1 + rndi(2 * per);
                        left--;
                        node[r] = b;
                    }
                }
                int nn = (kind == 4 ? n : kind == 3 ? 1 : k) + rndi(4); /* up to 3 empty nodes at the end */
                if (nn > KMAX)
                    nn = KMAX;
                int few = rndi(2);
                for (int r = 0; r < n; r++) {
                    memset(&t[r], 0, sizeof(t[r]));
                    t[r].open_start = rnd_time(few);
                    t[r].close_end = rndi(10) ? t[r].open_start + (few ? 0.5 * rndi(4) : 1e-3 * (double)rndi(5000)) : rnd_time(few);
                    t[r].bytes = rndi(5) ? rnd() >> 20 : 0;
                    t[r].xfers = rndi(5) ? rnd() >> 40 : 0;
                }
                pfs_node_spans(t, node, n, nn, sp);
                assert_int_equal(pfs_node_reduce(t, node, n, nn, gb, gs, gbw), 0);
                assert_int_equal(pfs_node_rates(t, node, n, nn, grt), 0);
                for (int d = 0; d < nn; d++) {
                    uint64_t ops, b2, o2;
                    ws[d] = ref_span(t, node, n, d, &wb[d], &ops);
                    wbw[d] = ws[d] > 0 ? (double)wb[d] / ws[d] : 0;
                    double sec = ref_span(t, node, n, d, &b2, &o2);
                    wrt[d] = sec > 0 ? (double)o2 / sec : 0;
                    double ss = sp[d].end - sp[d].start;
                    assert_memory_equal(&ss, &ws[d], sizeof(double));
                    assert_true(sp[d].bytes == wb[d] && sp[d].ops == ops);
                    int c = 0;
                    for (int r = 0; r < n; r++)
                        c += node[r] == d;
                    assert_int_equal(sp[d].streams, c);
                    empty += c == 0;
                }
                assert_true(memcmp(gb, wb, sizeof(uint64_t) * (size_t)nn) == 0);
                assert_memory_equal(gs, ws, sizeof(double) * (size_t)nn);
                assert_memory_equal(gbw, wbw, sizeof(double) * (size_t)nn);
                assert_memory_equal(grt, wrt, sizeof(double) * (size_t)nn);
                cases++;
            }
    assert_true(cases == 6 * 7 * 8 && empty > 100);
}

/* Without memory for the nodes' table the per-node figures say so (-1)
 * and leave their arrays alone; there is no second way to compute them. */
static void test_nodes_no_memory(void **state)
{
    (void)state;
    struct pfs_times t[2] = {{.open_start = 0, .close_end = 2, .bytes = 100, .xfers = 4},
                             {.open_start = 1, .close_end = 3, .bytes = 50, .xfers = 2}};
    int node[2] = {0, 1};
    uint64_t bytes[2] = {7, 7};
    double sec[2] = {7, 7}, bw[2] = {7, 7}, rate[2] = {7, 7};
    struct pfs_phase_skew k;
    malloc_fails = 1;
    assert_int_equal(pfs_node_reduce(t, node, 2, 2, bytes, sec, bw), -1);
    assert_int_equal(pfs_node_rates(t, node, 2, 2, rate), -1);
    assert_int_equal(pfs_phase_skew(t, node, 2, 2, 0, &k), -1);
    /* no node: nothing to allocate, nothing to fail */
    assert_int_equal(pfs_node_reduce(t, node, 2, 0, bytes, sec, bw), 0);
    assert_int_equal(pfs_node_rates(t, node, 2, 0, rate), 0);
    malloc_fails = 0;
    assert_true(bytes[0] == 7 && bytes[1] == 7);
    assert_true(sec[0] == 7 && sec[1] == 7 && bw[0] == 7 && bw[1] == 7 && rate[0] == 7 && rate[1] == 7);
    /* with memory, the same calls answer */
    assert_int_equal(pfs_node_reduce(t, node, 2, 2, bytes, sec, bw), 0);
    assert_int_equal(pfs_node_rates(t, node, 2, 2, rate), 0);
    assert_true(bytes[0] == 100 && bytes[1] == 50);
    assert_float_equal(rate[0], 2, 0);
    assert_float_equal(rate[1], 1, 0);
}

/* The case (4 fake nodes, a stat phase): every node did its 300
 * files in 0.59 ms, about 508,000 files/s, but the nodes left the opening
 * agreement 7.8 ms apart, so the phase took 24 ms and its aggregate is a
 * tenth of any node's. */
static void test_phase_skew(void **state)
{
    (void)state;
    struct pfs_times t[4];
    int node[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        t[i] = (struct pfs_times){.open_start = 100 + 0.0078 * i, .close_end = 100 + 0.0078 * i + 0.00059, .xfers = 300};
    struct pfs_phase_skew k;
    assert_int_equal(pfs_phase_skew(t, node, 4, 4, 1, &k), 1);
    assert_float_equal(k.seconds, 0.0234 + 0.00059, 1e-12);
    assert_float_equal(k.start_skew, 0.0234, 1e-12);
    assert_float_equal(k.end_skew, 0.0234, 1e-12);
    assert_float_equal(k.aggregate, 1200 / (0.0234 + 0.00059), 1e-6);
    assert_float_equal(k.node_min, 300 / 0.00059, 1e-3);
    assert_float_equal(k.node_max, 300 / 0.00059, 1e-3);
    assert_true(k.near_skew && k.below_nodes && k.slowest >= 0);
    /* the same work started together: neither */
    for (int i = 0; i < 4; i++)
        t[i] = (struct pfs_times){.open_start = 100 + 0.00001 * i, .close_end = 100.00059 + 0.00001 * i, .xfers = 300};
    assert_int_equal(pfs_phase_skew(t, node, 4, 4, 1, &k), 0);
    assert_false(k.near_skew || k.below_nodes);
    /* a long phase with a straggler that ends 40% later: its ends are apart,
     * its starts are not: not short (the end's spread is the work's) */
    for (int i = 0; i < 4; i++)
        t[i] = (struct pfs_times){.open_start = 10, .close_end = i == 3 ? 24 : 20, .bytes = 1 << 30};
    assert_int_equal(pfs_phase_skew(t, node, 4, 4, 0, &k), 0);
    assert_float_equal(k.end_skew, 4, 0);
    assert_float_equal(k.node_min, (1 << 30) / 14.0, 1e-3);
    assert_int_equal(k.slowest, 3);
    /* starts 1 s apart in a 9 s phase: within 10x */
    for (int i = 0; i < 4; i++)
        t[i] = (struct pfs_times){.open_start = 10 + (i == 2), .close_end = 19, .bytes = 1 << 30};
    assert_int_equal(pfs_phase_skew(t, node, 4, 4, 0, &k), 1);
    assert_true(k.near_skew && !k.below_nodes);
    /* a node whose streams did no work has no rate of its own: not the slowest */
    t[1].bytes = 0;
    assert_int_equal(pfs_phase_skew(t, node, 4, 4, 0, &k), 1);
    assert_true(k.slowest != 1 && k.node_min > 0);
    /* nothing to judge */
    assert_int_equal(pfs_phase_skew(t, node, 0, 4, 0, &k), 0);
    assert_int_equal(k.slowest, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_reduce), cmocka_unit_test(test_stonewall), cmocka_unit_test(test_nodes), cmocka_unit_test(test_nodes_random),
        cmocka_unit_test(test_stats), cmocka_unit_test(test_clock), cmocka_unit_test(test_phase_skew),
        cmocka_unit_test(test_nodes_no_memory),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
