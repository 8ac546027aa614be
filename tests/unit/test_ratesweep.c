/* --rate-sweep (src/core/ratesweep.c): its list, the repetitions it runs,
 * the rate each repetition runs at (exact), and the parser's refusals and
 * repetition count through pfs_config_parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/config.h"
#include "pfs/knee.h"
#include "pfs/ratesweep.h"
#include "pfs/sched.h"

static void test_parse(void **state)
{
    (void)state;
    struct pfs_sweep sw;
    char err[256];
    assert_int_equal(pfs_sweep_parse("100,200,400.5", &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.n, 3);
    assert_int_equal(sw.pct, 0);
    assert_int_equal(sw.unit, PFS_RATE_OPS);
    assert_true(sw.val[0] == 100 && sw.val[1] == 200 && sw.val[2] == 400.5);
    assert_int_equal(pfs_sweep_reps(&sw), 3);
    assert_int_equal(pfs_sweep_parse("1MiB,2MiB", &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.unit, PFS_RATE_BYTES);
    assert_true(sw.val[0] == 1048576 && sw.val[1] == 2097152);
    assert_int_equal(pfs_sweep_parse("20%,40%,60%,80%,100%", &sw, err, sizeof(err)), 0);
    assert_int_equal(sw.n, 5);
    assert_int_equal(sw.pct, 1);
    assert_int_equal(pfs_sweep_reps(&sw), 6); /* the closed-loop one first */
    assert_true(sw.val[0] == 20 && sw.val[4] == 100);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"100,,200", "point 2 is empty"},       {"20%,100", "mixes percentages and rates"},
        {"100,1MiB", "mixes operations/s"},     {"0%", "not a percentage above 0"},
        {"2000%", "not a percentage above 0"},  {"fast", "point 1:"},
        {"10,", "point 2 is empty"},            {"x%", "not a percentage"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (pfs_sweep_parse(bad[i].text, &sw, err, sizeof(err)) != -1 || !strstr(err, bad[i].want))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].text, err, bad[i].want);
    }
    char many[256] = "1";
    for (int i = 2; i <= PFS_SWEEP_MAX + 1; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", i);
    assert_int_equal(pfs_sweep_parse(many, &sw, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "more than 32 points"));
}

/* The rate of each repetition: the list's own, or the percentages of the
 * base (the job's, whatever --rate-scope says), closed loop before. */
static void test_rate_at(void **state)
{
    (void)state;
    struct pfs_config c;
    pfs_config_defaults(&c);
    double rate;
    int unit, scope;
    assert_int_equal(pfs_rate_at(&c, 0, 0, &rate, &unit, &scope), 0); /* closed loop */
    snprintf(c.rate, sizeof(c.rate), "250");
    assert_int_equal(pfs_rate_at(&c, 0, 3, &rate, &unit, &scope), 1);
    assert_true(rate == 250 && unit == PFS_RATE_OPS && scope == PFS_RATE_STREAM);
    c.rate[0] = '\0';
    snprintf(c.rate_sweep, sizeof(c.rate_sweep), "100,300");
    c.rate_scope = PFS_RATE_JOB;
    assert_int_equal(pfs_rate_at(&c, 0, 0, &rate, &unit, &scope), 1);
    assert_true(rate == 100 && scope == PFS_RATE_JOB);
    assert_int_equal(pfs_rate_at(&c, 0, 1, &rate, &unit, &scope), 1);
    assert_true(rate == 300);
    assert_int_equal(pfs_rate_at(&c, 0, 2, &rate, &unit, &scope), 0); /* past the list */
    snprintf(c.rate_sweep, sizeof(c.rate_sweep), "25%%,150%%");
    c.rate_scope = PFS_RATE_STREAM;
    assert_int_equal(pfs_rate_at(&c, 4000, 0, &rate, &unit, &scope), 0); /* the closed-loop first */
    assert_int_equal(pfs_rate_at(&c, 4000, 1, &rate, &unit, &scope), 1);
    assert_true(rate == 1000 && unit == PFS_RATE_OPS && scope == PFS_RATE_JOB);
    assert_int_equal(pfs_rate_at(&c, 4000, 2, &rate, &unit, &scope), 1);
    assert_true(rate == 6000);
    assert_int_equal(pfs_rate_at(&c, 0, 1, &rate, &unit, &scope), 0); /* no base measured */
}

/* --latency-target's goal, and the rates its search tries against a
 * system whose p99 is 1 ms up to 700 ops/s and 5 ms above: exactly the
 * bisection from the peak, then its answer. */
static void test_target(void **state)
{
    (void)state;
    struct pfs_lat_goal g;
    char err[256];
    assert_int_equal(pfs_lat_goal_parse("p99=2ms", &g, err, sizeof(err)), 0);
    assert_true(g.which == PFS_P99 && g.target_ns == 2e6);
    assert_int_equal(pfs_lat_goal_parse("p99.9=500us", &g, err, sizeof(err)), 0);
    assert_true(g.which == PFS_P999 && g.target_ns == 5e5);
    assert_int_equal(pfs_lat_goal_parse("p50=0.01", &g, err, sizeof(err)), 0);
    assert_true(g.which == PFS_P50 && g.target_ns == 1e7);
    static const char *const bad[] = {"p98=2ms", "p99=", "p99=0ms", "p99=2 ms", "p99=2hours", "2ms"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (pfs_lat_goal_parse(bad[i], &g, err, sizeof(err)) != -1 || !strstr(err, "--latency-target"))
            fail_msg("'%s' accepted or unnamed: '%s'", bad[i], err);
    assert_int_equal(pfs_lat_goal_parse("p99=2ms", &g, err, sizeof(err)), 0);
    static const double want[] = {1000, 500, 750, 625, 687.5, 718.75};
    struct pfs_load_point pts[PFS_TARGET_RUNS];
    struct pfs_lat_step st;
    int n = 0;
    while (pfs_target_step(&g, 1000, pts, n, &st) == 1) {
        assert_true(n < 6);
        if (st.next != want[n])
            fail_msg("try %d: %g, not %g", n, st.next, want[n]);
        const double p99 = st.next <= 700 ? 1e6 : 5e6;
        pts[n++] = (struct pfs_load_point){.offered = st.next, .achieved = st.next, .p50 = p99 / 2, .p99 = p99,
                                           .p999 = p99 * 2};
    }
    assert_int_equal(n, 6);
    assert_true(st.best == 687.5 && st.best_index == 4);
    assert_int_equal(pfs_target_step(&g, 0, pts, 0, &st), -1);
    /* The driver's rates: closed loop first, then the search's for the job. */
    struct pfs_config c;
    double rate;
    int unit, scope;
    pfs_config_defaults(&c);
    snprintf(c.lat_target, sizeof(c.lat_target), "p99=2ms");
    assert_int_equal(pfs_rate_at(&c, 1000, 0, &rate, &unit, &scope), 0);
    assert_int_equal(pfs_rate_at(&c, 687.5, 5, &rate, &unit, &scope), 1);
    assert_true(rate == 687.5 && unit == PFS_RATE_OPS && scope == PFS_RATE_JOB);
    assert_int_equal(pfs_rate_at(&c, 0, 6, &rate, &unit, &scope), 0);
    assert_int_equal(pfs_rate_needs_base(&c), 1);
}

static enum pfs_parse_result parse(struct pfs_config *cfg, char *err, const char *line)
{
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof(buf), "pfsbench|%s", line);
    for (char *s = strtok(buf, "|"); s && argc < 31; s = strtok(NULL, "|"))
        argv[argc++] = s;
    argv[argc] = NULL;
    return pfs_config_parse(cfg, argc, argv, err, 512);
}

/* Through the parser: a repetition per point, and the refusals. */
static void test_config(void **state)
{
    (void)state;
    struct pfs_config c;
    char err[512];
    assert_int_equal(parse(&c, err, "-d|/tmp|-p|write|--rate-sweep|10%,50%,90%"), PFS_PARSE_RUN);
    assert_int_equal(c.reps, 4);
    assert_int_equal(pfs_config_rep_slots(&c), 4);
    assert_int_equal(parse(&c, err, "-d|/tmp|-p|write,read|--rate-sweep|100,200"), PFS_PARSE_RUN);
    assert_int_equal(c.reps, 2);
    assert_int_equal(parse(&c, err, "-d|/tmp|-p|write|--latency-target|p99=2ms"), PFS_PARSE_RUN);
    assert_int_equal(c.reps, 1 + PFS_TARGET_RUNS);
    static const struct {
        const char *line, *want;
    } bad[] = {
        {"-d|/tmp|--rate-sweep|100|--rate|5", "--rate and --rate-sweep both given"},
        {"-d|/tmp|--rate-sweep|100,200|-i|3", "one repetition per point (2 here)"},
        {"-d|/tmp|--rate-sweep|100|--warmup|1", "-i/--reps and --warmup do not apply"},
        {"-d|/tmp|--rate-sweep|100|--reps|auto", "-i/--reps and --warmup do not apply"},
        {"-d|/tmp|--rate-sweep|100|-p|create", "--rate-sweep paces the transfers of the data phases"},
        {"-d|/tmp|--rate-sweep|100|-D|1", "--rate-sweep and -D/--deadline both given"},
        {"-d|/tmp|--rate-sweep|100,2e9", "--rate-sweep point 2e+09 is 2e+09 transfers per second"},
        {"-d|/tmp|--rate-sweep|50%,x", "--rate-sweep mixes percentages and rates"},
        {"-d|/tmp|-p|write|--latency-target|p99=2ms|--rate|5", "--latency-target and --rate both given"},
        {"-d|/tmp|-p|write|--latency-target|p99=2ms|-i|2", "-i/--reps and --warmup do not apply"},
        {"-d|/tmp|--latency-target|p99=2ms", "searches the rate of one phase; -p has 2"},
        {"-d|/tmp|-p|create|--latency-target|p99=2ms", "--latency-target paces the transfers of the data phases"},
        {"-d|/tmp|-p|write|--latency-target|p98=1ms", "give p50=, p99= or p99.9="},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (parse(&c, err, bad[i].line) != PFS_PARSE_ERROR || !strstr(err, bad[i].want))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].line, err, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_rate_at),
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
