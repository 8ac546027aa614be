/* The TSC clock (src/core/clock.c): the fit on made-up samples, exactly;
 * its refusals; and the real clock against CLOCK_MONOTONIC over a real
 * interval, every comparison bracketed by two CLOCK_MONOTONIC reads so that
 * no bound depends on how fast this machine runs the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "pfs/clock.h"

/* A TSC of 2.6 ticks per ns that read 1e9 at ns 0. */
static uint64_t tick_at(uint64_t ns)
{
    return 1000000000ull + ns * 26 / 10;
}

static void test_fit_exact(void **state)
{
    (void)state;
    struct pfs_clock_sample s[3] = {
        {.tsc = tick_at(5000000000ull), .ns = 5000000000ull, .gap = 100},
        {.tsc = tick_at(5010000000ull), .ns = 5010000000ull, .gap = 120},
        {.tsc = tick_at(5020000000ull), .ns = 5020000000ull, .gap = 80},
    };
    struct pfs_clock c = {0};
    assert_int_equal(pfs_clock_fit(&c, s), 0);
    assert_string_equal(c.why, "");
    assert_true(c.tsc0 == s[2].tsc && c.ns0 == s[2].ns);
    assert_true(c.anchor_err_ns == 40);
    /* (100 + 80) / 2 ns over 20 ms: 4.5 ppm */
    assert_float_equal(c.err_ppm, 4.5, 1e-9);
    assert_float_equal(c.ghz, 2.6, 1e-12);
    /* Readings up to an hour either side of the anchor, to a few ns
     * (tick_at's truncation, 1 ns; the fixed point's rounding, 1e-12 of
     * the interval). */
    const uint64_t at[] = {5020000000ull, 5020000001ull, 5020000777ull, 6000000000ull, 5020000000ull + 3600000000000ull,
                           5019999990ull, 5000000000ull, 1500000000ull};
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        const uint64_t got = pfs_clock_ns_of(&c, tick_at(at[i]));
        const uint64_t d = got > at[i] ? got - at[i] : at[i] - got;
        assert_true(d <= 4);
    }
}

static void test_fit_refuses(void **state)
{
    (void)state;
    struct pfs_clock c;
    /* The second half's TSC 1% fast: its rate changed. */
    struct pfs_clock_sample s[3] = {
        {.tsc = tick_at(0), .ns = 0, .gap = 100},
        {.tsc = tick_at(10000000), .ns = 10000000, .gap = 100},
        {.tsc = tick_at(20000000) + 260000, .ns = 20000000, .gap = 100},
    };
    assert_int_equal(pfs_clock_fit(&c, s), -1);
    assert_non_null(strstr(c.why, "rate changed"));
    /* Within the brackets and the slew allowance: 20 ppm between halves. */
    s[2].tsc = tick_at(20000000) + 520;
    assert_int_equal(pfs_clock_fit(&c, s), 0);
    /* A TSC that stood still. */
    s[1].tsc = s[0].tsc;
    assert_int_equal(pfs_clock_fit(&c, s), -1);
    assert_non_null(strstr(c.why, "did not advance"));
    /* Reads 5 us apart over 20 ms: 250 ppm, more than the limit. */
    struct pfs_clock_sample w[3] = {
        {.tsc = tick_at(0), .ns = 0, .gap = 5000},
        {.tsc = tick_at(10000000), .ns = 10000000, .gap = 5000},
        {.tsc = tick_at(20000000), .ns = 20000000, .gap = 5000},
    };
    assert_int_equal(pfs_clock_fit(&c, w), -1);
    assert_non_null(strstr(c.why, "too far apart"));
}

static void test_mono_forced(void **state)
{
    (void)state;
    struct pfs_clock c;
    assert_int_equal(pfs_clock_init(&c, 0, 0), PFS_CLOCK_MONO);
    assert_string_equal(c.why, "");
    for (int i = 0; i < 1000; i++) {
        const uint64_t a = pfs_clock_mono_ns(), x = pfs_clock_now(&c), b = pfs_clock_mono_ns();
        assert_true(a <= x && x <= b);
    }
}

/* A reading bracketed by CLOCK_MONOTONIC: the true time of the reading lies
 * in [lo, hi]. */
struct bracket {
    uint64_t lo, x, hi;
};

static struct bracket bracketed(const struct pfs_clock *c)
{
    struct bracket b;
    b.lo = pfs_clock_mono_ns();
    b.x = pfs_clock_now(c);
    b.hi = pfs_clock_mono_ns();
    return b;
}

/* The bound on the clock's distance from CLOCK_MONOTONIC at time t: the
 * anchor's error, the rate's error bound over the time since the anchor,
 * and 500 ppm of it for CLOCK_MONOTONIC's own slewing (NTP's limit: the
 * calibration saw one slew rate, the interval may see another). */
static uint64_t bound(const struct pfs_clock *c, uint64_t t)
{
    const double since = t > c->ns0 ? (double)(t - c->ns0) : (double)(c->ns0 - t);
    return c->anchor_err_ns + (uint64_t)(since * (c->err_ppm + 500.0) * 1e-6) + 1;
}

static void check_within(const struct pfs_clock *c, const struct bracket *b)
{
    const uint64_t e = bound(c, b->hi);
    if (b->x + e < b->lo || b->x > b->hi + e)
        fail_msg("clock read %llu outside [%llu, %llu] +- %llu ns (source %d, %.3f GHz, +-%.2f ppm)",
                 (unsigned long long)b->x, (unsigned long long)b->lo, (unsigned long long)b->hi,
                 (unsigned long long)e, c->src, c->ghz, c->err_ppm);
}

static void test_real_interval(void **state)
{
    (void)state;
    struct pfs_clock c;
    const int src = pfs_clock_init(&c, 1, 0);
    if (src == PFS_CLOCK_TSC) {
        assert_true(c.err_ppm <= PFS_CLOCK_MAX_ERR_PPM);
        assert_true(c.ghz > 0.01 && c.ghz < 100);
        print_message("TSC clock: %.6f GHz, rate within %.2f ppm, anchor within %llu ns\n", c.ghz, c.err_ppm,
                      (unsigned long long)c.anchor_err_ns);
    } else {
        assert_true(c.why[0] != '\0'); /* a fallback always says why */
        print_message("CLOCK_MONOTONIC: %s\n", c.why);
    }
    const struct bracket b0 = bracketed(&c);
    check_within(&c, &b0);
    /* A real interval of at least 200 ms, however long the machine makes it. */
    const struct timespec nap = {0, 50000000};
    for (int i = 0; i < 4; i++)
        nanosleep(&nap, NULL);
    const struct bracket b1 = bracketed(&c);
    check_within(&c, &b1);
    /* The interval as the clock saw it against the bounds of the true one. */
    const uint64_t d = b1.x - b0.x, dmin = b1.lo - b0.hi, dmax = b1.hi - b0.lo;
    const uint64_t e = (uint64_t)((double)dmax * (c.err_ppm + 500.0) * 1e-6) + 1;
    assert_true(dmin >= 200000000ull);
    if (d + e < dmin || d > dmax + e)
        fail_msg("interval %llu ns outside [%llu, %llu] +- %llu", (unsigned long long)d, (unsigned long long)dmin,
                 (unsigned long long)dmax, (unsigned long long)e);
}

/* The process's clock, fitted over a stand-in for the start-up: before
 * the fit every reading is CLOCK_MONOTONIC's, after it within the fit's
 * bounds of it (the TSC where it is eligible, or CLOCK_MONOTONIC with why),
 * at least PFS_RUN_CLOCK_MIN_NS between the first sample and the fit; a
 * second fit changes nothing. */
static void test_run_clock(void **state)
{
    (void)state;
    assert_int_equal(pfs_run_clock.src, PFS_CLOCK_MONO);
    const struct bracket m = bracketed(&pfs_run_clock);
    assert_true(m.lo <= m.x && m.x <= m.hi);
    pfs_run_clock_begin();
    const uint64_t t0 = pfs_clock_mono_ns();
    const int src = pfs_run_clock_fit();
    assert_true(pfs_clock_mono_ns() - t0 >= PFS_RUN_CLOCK_MIN_NS - 1000000); /* the first sample came before t0 */
    assert_int_equal(src, pfs_run_clock.src);
    char d[160];
    pfs_run_clock_describe(d, sizeof(d));
    print_message("%s\n", d);
    if (src == PFS_CLOCK_TSC)
        assert_non_null(strstr(d, "tsc: "));
    else
        assert_true(strncmp(d, "CLOCK_MONOTONIC: ", 17) == 0 && pfs_run_clock.why[0]);
    for (int i = 0; i < 1000; i++) {
        const struct bracket b = bracketed(&pfs_run_clock);
        check_within(&pfs_run_clock, &b);
    }
    /* A sleep to a time on it ends at or after that time on it, within
     * the clock's own bound of CLOCK_MONOTONIC (the sleep is CLOCK_MONOTONIC's). */
    const uint64_t a = pfs_clock_now(&pfs_run_clock);
    assert_int_equal(pfs_run_clock_sleep_until(a + 20000000u), 0);
    const uint64_t z = pfs_clock_now(&pfs_run_clock);
    assert_true(z + bound(&pfs_run_clock, z) >= a + 20000000u);
    assert_int_equal(pfs_run_clock_sleep_until(a), 0); /* past: at once */
    const struct pfs_clock before = pfs_run_clock;
    assert_int_equal(pfs_run_clock_fit(), src);
    assert_memory_equal(&before, &pfs_run_clock, sizeof(before));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_exact),
        cmocka_unit_test(test_fit_refuses),
        cmocka_unit_test(test_mono_forced),
        cmocka_unit_test(test_real_interval),
        cmocka_unit_test(test_run_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
