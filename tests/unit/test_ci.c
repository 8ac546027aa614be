/* The 95% confidence interval of a mean (src/core/ci.c) against known
 * values: Student's t quantiles (the table and the expansion past it,
 * checked against scipy.stats.t.ppf(0.975, df)), intervals computed by hand,
 * and a run's phase interval with its warm-up repetitions left out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/ci.h"
#include "pfs/config.h"
#include "pfs/report.h"

static void test_t975_known(void **state)
{
    (void)state;
    /* scipy.stats.t.ppf(0.975, df) */
    static const struct {
        int df;
        double t;
    } known[] = {
        {1, 12.706204736}, {2, 4.302652730}, {3, 3.182446305}, {4, 2.776445105}, {5, 2.570581837},
        {6, 2.446911849},  {9, 2.262157163}, {10, 2.228138852}, {19, 2.093024054}, {29, 2.045229642},
        {30, 2.042272456}, {31, 2.039513446}, {35, 2.030107928}, {40, 2.021075383}, {60, 2.000297821},
        {100, 1.983971518}, {120, 1.979930405}, {1000, 1.962339081}, {100000, 1.959987708},
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        assert_float_equal(pfs_t975(known[i].df), known[i].t, 1e-7);
    assert_true(isnan(pfs_t975(0)));
    assert_true(isnan(pfs_t975(-3)));
    /* Falls with df, towards the normal quantile, never below it. */
    for (int df = 1; df < 2000; df++) {
        assert_true(pfs_t975(df + 1) < pfs_t975(df));
        assert_true(pfs_t975(df) > 1.959963984540054);
    }
}

static void test_ci95_by_hand(void **state)
{
    (void)state;
    /* 10, 12, 14: mean 12, s = 2, half = t(2) x 2 / sqrt(3) */
    const double v[] = {10, 12, 14};
    struct pfs_ci ci;
    pfs_ci95(v, 3, &ci);
    assert_int_equal(ci.n, 3);
    assert_float_equal(ci.mean, 12, 1e-12);
    assert_float_equal(ci.half, 4.302652730 * 2 / sqrt(3.0), 1e-8);
    assert_float_equal(ci.pct, 100 * 4.302652730 * 2 / sqrt(3.0) / 12, 1e-7);
    assert_false(pfs_ci_met(&ci, 5));
    assert_true(pfs_ci_met(&ci, 100));
    /* Steady figures: a zero-width interval, met. */
    const double same[] = {800, 800, 800, 800};
    pfs_ci95(same, 4, &ci);
    assert_float_equal(ci.half, 0, 0);
    assert_float_equal(ci.pct, 0, 0);
    assert_true(pfs_ci_met(&ci, 0.1));
}

static void test_ci95_too_few(void **state)
{
    (void)state;
    struct pfs_ci ci;
    const double one[] = {812.3};
    pfs_ci95(one, 1, &ci);
    /* One figure: a mean, no interval (NaN, never 0). */
    assert_int_equal(ci.n, 1);
    assert_float_equal(ci.mean, 812.3, 1e-12);
    assert_true(isnan(ci.half));
    assert_true(isnan(ci.pct));
    assert_false(pfs_ci_met(&ci, 100));
    /* Two identical figures have an interval, but fewer than PFS_CI_MIN_REPS are never judged stable. */
    const double two[] = {5, 5};
    pfs_ci95(two, 2, &ci);
    assert_float_equal(ci.pct, 0, 0);
    assert_false(pfs_ci_met(&ci, 100));
    pfs_ci95(NULL, 0, &ci);
    assert_int_equal(ci.n, 0);
    assert_true(isnan(ci.mean));
    /* A mean of 0 has no percentage. */
    const double zero[] = {-1, 1, 0};
    pfs_ci95(zero, 3, &ci);
    assert_true(isfinite(ci.half));
    assert_true(isnan(ci.pct));
    assert_false(pfs_ci_met(&ci, 100));
}

/* A run of one stream, one data phase: repetition r moves 1 MiB in secs[r]. */
static void fake_run(struct pfs_run_data *d, struct pfs_config *cfg, struct pfs_times *t, int *done, const double *secs,
                     int n)
{
    memset(d, 0, sizeof(*d));
    memset(t, 0, sizeof(*t) * (size_t)n);
    for (int r = 0; r < n; r++)
        t[r] = (struct pfs_times){.open_start = 100.0 * r, .close_end = 100.0 * r + secs[r], .bytes = 1 << 20, .xfers = 1};
    d->cfg = cfg;
    d->nranks = d->nstreams = 1;
    d->nphases = 1;
    d->reps = n;
    d->times = t;
    *done = n;
    d->reps_done = done;
}

/* The phase's interval as the run's figures hold it (pfs/figures.h). */
static void phase_ci(struct pfs_run_data *d, struct pfs_phase_ci *pc)
{
    assert_int_equal(pfs_run_figures(d), 0);
    *pc = d->fig.phase[0].ci;
}

static void test_run_phase_ci(void **state)
{
    (void)state;
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    cfg.phases[0] = PFS_PH_WRITE;
    cfg.nphases = 1;
    cfg.warmup = 2;
    cfg.reps = 3;
    /* Two slow warm-up repetitions, then 1, 1.1 and 1.2 MiB/s: +-22.6% */
    const double secs[] = {10, 10, 1, 1 / 1.1, 1 / 1.2};
    struct pfs_times t[5];
    struct pfs_run_data d;
    int done;
    fake_run(&d, &cfg, t, &done, secs, 5);
    struct pfs_phase_ci pc;
    phase_ci(&d, &pc);
    assert_int_equal(pc.warmup, 2);
    assert_int_equal(pc.measured, 3);
    assert_int_equal(pc.target, -1); /* a fixed --reps has no target */
    const double mib = 1024.0 * 1024.0, v[] = {mib, 1.1 * mib, 1.2 * mib};
    struct pfs_ci ci;
    pfs_ci95(v, 3, &ci);
    assert_float_equal(pc.ci.mean, 1.1 * mib, 1e-3);
    assert_float_equal(pc.ci.pct, 22.6, 0.1);
    assert_float_equal(pc.ci.half, ci.half, 1e-3);
    /* --reps auto judges it against --ci. */
    cfg.reps = 0;
    cfg.ci = 25;
    phase_ci(&d, &pc);
    assert_int_equal(pc.target, 1);
    cfg.ci = 5;
    phase_ci(&d, &pc);
    assert_int_equal(pc.target, 0);
    /* Only warm-up recorded (a failure in repetition 1): nothing measured, no interval. */
    done = 1;
    phase_ci(&d, &pc);
    assert_int_equal(pc.warmup, 1);
    assert_int_equal(pc.measured, 0);
    assert_true(isnan(pc.ci.half));
    assert_int_equal(pc.target, 0);
    pfs_run_release(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t975_known),
        cmocka_unit_test(test_ci95_by_hand),
        cmocka_unit_test(test_ci95_too_few),
        cmocka_unit_test(test_run_phase_ci),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
