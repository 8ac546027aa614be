/* Bandwidth, utilization, per-node, stragglers, statistics and clock offsets
 * against hand-computed values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/core.h"

#define MiB (1024.0 * 1024.0)

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_reduce), cmocka_unit_test(test_stonewall), cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_stats), cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
