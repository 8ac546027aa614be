/* Arrival schedules (src/core/sched.c): fixed schedules to the ns against
 * integer arithmetic; poisson gaps against the exponential's mean, variance
 * and tail for a fixed seed (deterministic: the bounds are 5 standard
 * errors, and the figures the same on every run); reproducibility; and how
 * a job's rate splits over streams. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/sched.h"

static void test_fixed_exact(void **state)
{
    (void)state;
    struct pfs_sched s;
    const uint64_t t0 = 123456789;
    assert_int_equal(pfs_sched_init(&s, 1000, PFS_ARR_FIXED, 1, 0, t0), 0);
    for (uint64_t k = 0; k < 1000000; k++)
        assert_true(pfs_sched_next(&s) == t0 + k * 1000000);
    /* Periods that are no whole ns: round(k x 1e9 / rate), half up, in integers. */
    static const struct {
        double rate;
        uint64_t num, den; /* period = num / den ns */
    } odd[] = {{3, 1000000000, 3}, {700000, 10000, 7}, {1e9 / 1.5, 3, 2}, {48000, 62500, 3}};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        assert_int_equal(pfs_sched_init(&s, odd[i].rate, PFS_ARR_FIXED, 1, 0, t0), 0);
        for (uint64_t k = 0; k < 3000000; k++) {
            const uint64_t want = t0 + (2 * k * odd[i].num + odd[i].den) / (2 * odd[i].den);
            const uint64_t got = pfs_sched_next(&s);
            if (got != want)
                fail_msg("rate %g, arrival %llu: %llu, want %llu", odd[i].rate, (unsigned long long)k,
                         (unsigned long long)got, (unsigned long long)want);
        }
    }
    /* The seed and stream do not move a fixed schedule. */
    struct pfs_sched a, b;
    pfs_sched_init(&a, 333, PFS_ARR_FIXED, 1, 0, t0);
    pfs_sched_init(&b, 333, PFS_ARR_FIXED, 99, 7, t0);
    for (int k = 0; k < 1000; k++)
        assert_true(pfs_sched_next(&a) == pfs_sched_next(&b));
}

static void test_refusals(void **state)
{
    (void)state;
    struct pfs_sched s;
    const double bad[] = {0, -1, NAN, INFINITY, 5e18, 1e-11};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(pfs_sched_init(&s, bad[i], PFS_ARR_FIXED, 1, 0, 0), -1);
        assert_int_equal(pfs_sched_init(&s, bad[i], PFS_ARR_POISSON, 1, 0, 0), -1);
    }
    assert_int_equal(pfs_sched_init(&s, 10, 7, 1, 0, 0), -1);
    assert_int_equal(pfs_sched_init(&s, 1e-9, PFS_ARR_FIXED, 1, 0, 0), 0); /* one every 31.7 years */
}

static void test_poisson_stats(void **state)
{
    (void)state;
    const double rate = 10000, mean = 1e9 / rate;
    const uint64_t n = 1000000, t0 = 5000;
    struct pfs_sched s;
    assert_int_equal(pfs_sched_init(&s, rate, PFS_ARR_POISSON, 20240530, 3, t0), 0);
    uint64_t prev = t0, above = 0, first = 0;
    double sum = 0, sum2 = 0;
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t t = pfs_sched_next(&s);
        assert_true(t >= prev);
        if (k == 0)
            first = t;
        const double g = (double)(t - prev);
        sum += g;
        sum2 += g * g;
        above += g > mean;
        prev = t;
    }
    assert_true(first > t0); /* a Poisson process started at t0 */
    const double m = sum / (double)n, var = sum2 / (double)n - m * m;
    /* Exponential: sd of the mean mean/sqrt(n) (0.1%); of the variance
     * sqrt(8/n) relative (0.28%); P(gap > mean) = 1/e, sd 0.048%. The gaps
     * are whole ns (rounded sums): 1e5 ns gaps lose nothing at this scale. */
    print_message("mean %.2f ns (1e5), variance / mean^2 %.5f (1), P(gap > mean) %.5f (%.5f)\n", m, var / (mean * mean),
                  (double)above / (double)n, exp(-1));
    assert_true(fabs(m / mean - 1) < 5 * 0.001);
    assert_true(fabs(var / (mean * mean) - 1) < 5 * 0.0029);
    assert_true(fabs((double)above / (double)n - exp(-1)) < 5 * 0.00049);
}

static void test_poisson_reproducible(void **state)
{
    (void)state;
    struct pfs_sched a, b, c, d;
    pfs_sched_init(&a, 500, PFS_ARR_POISSON, 42, 0, 1000);
    pfs_sched_init(&b, 500, PFS_ARR_POISSON, 42, 0, 1000);
    pfs_sched_init(&c, 500, PFS_ARR_POISSON, 42, 1, 1000); /* another stream */
    pfs_sched_init(&d, 500, PFS_ARR_POISSON, 43, 0, 1000); /* another seed */
    int same_c = 0, same_d = 0;
    for (int k = 0; k < 100000; k++) {
        const uint64_t x = pfs_sched_next(&a);
        assert_true(x == pfs_sched_next(&b));
        same_c += x == pfs_sched_next(&c);
        same_d += x == pfs_sched_next(&d);
    }
    assert_true(same_c < 10 && same_d < 10);
    /* The generator pinned: these starts must never change between
     * versions, or a stored run's schedule could not be recomputed. */
    struct pfs_sched g;
    pfs_sched_init(&g, 500, PFS_ARR_POISSON, 42, 0, 1000);
    uint64_t got[4];
    for (int k = 0; k < 4; k++)
        got[k] = pfs_sched_next(&g);
    print_message("seed 42, stream 0, 500/s from 1000 ns: %llu %llu %llu %llu\n", (unsigned long long)got[0],
                  (unsigned long long)got[1], (unsigned long long)got[2], (unsigned long long)got[3]);
    const uint64_t want[4] = {2701527, 3014866, 3308013, 4513884};
    for (int k = 0; k < 4; k++)
        assert_true(got[k] == want[k]);
}

static void test_share(void **state)
{
    (void)state;
    struct pfs_rate_share sh;
    /* 1000 ops/s for the job over 4 streams, fixed: 250 each, a quarter
     * period apart, so the job's arrivals are 1 ms apart exactly. */
    uint64_t all[4 * 250];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pfs_rate_share(1000, PFS_RATE_OPS, PFS_RATE_JOB, PFS_ARR_FIXED, 0, 4, i, &sh), 0);
        assert_float_equal(sh.ops, 250, 0);
        assert_true(sh.offset_ns == (uint64_t)i * 1000000);
        struct pfs_sched s;
        pfs_sched_init(&s, sh.ops, PFS_ARR_FIXED, 1, (uint64_t)i, 7 + sh.offset_ns);
        for (int k = 0; k < 250; k++)
            all[i * 250 + k] = pfs_sched_next(&s);
    }
    for (int j = 0; j < 1000; j++) { /* stream j % 4, arrival j / 4 */
        assert_true(all[(j % 4) * 250 + j / 4] == 7 + (uint64_t)j * 1000000);
    }
    /* Per stream: the rate as given; poisson: no offset. */
    assert_int_equal(pfs_rate_share(1000, PFS_RATE_OPS, PFS_RATE_STREAM, PFS_ARR_POISSON, 0, 4, 3, &sh), 0);
    assert_float_equal(sh.ops, 1000, 0);
    assert_true(sh.offset_ns == 0);
    /* 1 MiB/s at 4 KiB: 256 ops/s; for a job of 2: 128 each, offset half a period. */
    assert_int_equal(pfs_rate_share(1 << 20, PFS_RATE_BYTES, PFS_RATE_STREAM, PFS_ARR_FIXED, 4096, 2, 0, &sh), 0);
    assert_float_equal(sh.ops, 256, 0);
    assert_int_equal(pfs_rate_share(1 << 20, PFS_RATE_BYTES, PFS_RATE_JOB, PFS_ARR_FIXED, 4096, 2, 1, &sh), 0);
    assert_float_equal(sh.ops, 128, 0);
    assert_true(sh.offset_ns == 1000000000ull / 256);
    /* Out of range. */
    assert_int_equal(pfs_rate_share(0, PFS_RATE_OPS, PFS_RATE_JOB, PFS_ARR_FIXED, 0, 4, 0, &sh), -1);
    assert_int_equal(pfs_rate_share(10, PFS_RATE_BYTES, PFS_RATE_JOB, PFS_ARR_FIXED, 0, 4, 0, &sh), -1);
    assert_int_equal(pfs_rate_share(10, PFS_RATE_OPS, PFS_RATE_JOB, PFS_ARR_FIXED, 0, 4, 4, &sh), -1);
    assert_int_equal(pfs_rate_share(10, PFS_RATE_OPS, PFS_RATE_JOB, PFS_ARR_FIXED, 0, 0, 0, &sh), -1);
}

/* --rate's value: operations per second, or bytes per second with a size
 * unit (the units module's), with an optional "/s"; the rest refused. */
static void test_rate_parse(void **state)
{
    (void)state;
    double r;
    int u;
    char err[256];
    assert_int_equal(pfs_rate_parse("500", &r, &u, err, sizeof(err)), 0);
    assert_true(r == 500.0 && u == PFS_RATE_OPS);
    assert_int_equal(pfs_rate_parse("2.5e3/s", &r, &u, err, sizeof(err)), 0);
    assert_true(r == 2500.0 && u == PFS_RATE_OPS);
    assert_int_equal(pfs_rate_parse("200MiB", &r, &u, err, sizeof(err)), 0);
    assert_true(r == 200.0 * 1048576 && u == PFS_RATE_BYTES);
    assert_int_equal(pfs_rate_parse("1g/s", &r, &u, err, sizeof(err)), 0);
    assert_true(r == 1073741824.0 && u == PFS_RATE_BYTES);
    assert_int_equal(pfs_rate_parse("4KB", &r, &u, err, sizeof(err)), 0);
    assert_true(r == 4000.0 && u == PFS_RATE_BYTES);
    static const char *const bad[] = {"", "0", "-5", "0MiB", "abc", "1.5m", "4kb", "/s", "inf", "nan", "1e999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(pfs_rate_parse(bad[i], &r, &u, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "rate"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_exact),       cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_poisson_stats),     cmocka_unit_test(test_poisson_reproducible),
        cmocka_unit_test(test_share),             cmocka_unit_test(test_rate_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
