/* Interference arithmetic (src/core/interfere.c): Jain's index against
 * the formula worked by hand, ratios that are not there (NaN, never 0),
 * the qos words, good and malformed, and the verdicts: pass, fail, and
 * unknown when a figure is missing; the job-file words (src/core/jobfile.c):
 * kept off the sections' command lines, and refused where they mean nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/config.h"
#include "pfs/interfere.h"
#include "pfs/jobfile.h"

static void test_jain(void **state)
{
    (void)state;
    int m = -1;
    const double eq[] = {0.5, 0.5, 0.5};
    assert_float_equal(pfs_jain(eq, 3, &m), 1.0, 1e-12);
    assert_int_equal(m, 3);
    const double one[] = {1, 0, 0, 0}; /* one section had it all: 1/n */
    assert_float_equal(pfs_jain(one, 4, &m), 0.25, 1e-12);
    /* (0.9 + 0.3)^2 / (2 (0.81 + 0.09)) = 1.44 / 1.8 = 0.8; the NaN left out */
    const double two[] = {0.9, NAN, 0.3};
    assert_float_equal(pfs_jain(two, 3, &m), 0.8, 1e-12);
    assert_int_equal(m, 2);
    const double none[] = {NAN, NAN};
    assert_true(isnan(pfs_jain(none, 2, &m)));
    assert_int_equal(m, 0);
    assert_true(isnan(pfs_jain(none, 0, NULL)));
}

static void test_ratio_mean(void **state)
{
    (void)state;
    assert_float_equal(pfs_interf_ratio(50, 200), 0.25, 1e-15);
    assert_true(isnan(pfs_interf_ratio(50, 0)));   /* alone measured nothing */
    assert_true(isnan(pfs_interf_ratio(NAN, 10))); /* together failed */
    assert_true(isnan(pfs_interf_ratio(0, 10)));
    const double x[] = {0.5, NAN, 1.0};
    assert_float_equal(pfs_interf_mean(x, 3), 0.75, 1e-15);
    assert_true(isnan(pfs_interf_mean(x + 1, 1)));
}

static void test_qos_parse(void **state)
{
    (void)state;
    struct pfs_qos q;
    char err[256];
    assert_int_equal(pfs_qos_parse("bw>=95%,p99<5ms", &q, err, sizeof(err)), 0);
    assert_true(q.has_bw && q.has_p99);
    assert_float_equal(q.bw_min, 0.95, 1e-12);
    assert_float_equal(q.p99_max_ns, 5e6, 1e-6);
    assert_int_equal(pfs_qos_parse("p99<250us", &q, err, sizeof(err)), 0);
    assert_true(!q.has_bw && q.has_p99);
    assert_float_equal(q.p99_max_ns, 250e3, 1e-6);
    assert_int_equal(pfs_qos_parse("bw>=1000%", &q, err, sizeof(err)), 0);
    static const char *bad[] = {"", "bw>95%", "bw>=95", "bw>=0%", "bw>=x%", "p99<5", "p99<5min", "p99<-1ms",
                                "bw>=90%,bw>=80%", "p99<1ms,", "lat<1ms", "bw>=95%;p99<5ms"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(pfs_qos_parse(bad[i], &q, err, sizeof(err)), -1);
        assert_true(err[0] != '\0');
    }
}

static void test_qos_check(void **state)
{
    (void)state;
    struct pfs_qos q;
    char err[256], why[256];
    assert_int_equal(pfs_qos_parse("bw>=95%,p99<5ms", &q, err, sizeof(err)), 0);
    const double ok_bw[] = {0.97, 1.2}, ok_p99[] = {1e6, 4.9e6};
    assert_int_equal(pfs_qos_check(&q, ok_bw, ok_p99, NULL, 2, why, sizeof(why)), 1);
    const double low_bw[] = {0.97, 0.5};
    assert_int_equal(pfs_qos_check(&q, low_bw, ok_p99, NULL, 2, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "phase 1: bandwidth 50.0% of alone, below 95.0%"));
    const double slow[] = {1e6, 5e6}; /* not below 5 ms */
    static const char *const names[] = {"write", "read"};
    assert_int_equal(pfs_qos_check(&q, ok_bw, slow, names, 2, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "read: p99 5.000 ms, not below 5.000 ms")); /* named */
    const double gap_bw[] = {NAN, 0.5}; /* a missing figure does not hide a failure */
    assert_int_equal(pfs_qos_check(&q, gap_bw, ok_p99, NULL, 2, why, sizeof(why)), 0);
    const double gap2[] = {NAN, 0.99};
    assert_int_equal(pfs_qos_check(&q, gap2, ok_p99, NULL, 2, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "phase 0: no bandwidth ratio"));
    assert_int_equal(pfs_qos_check(&q, NULL, NULL, NULL, 0, why, sizeof(why)), -1);
    assert_int_equal(pfs_qos_parse("bw>=50%", &q, err, sizeof(err)), 0);
    const double nop99[] = {NAN, NAN}; /* no p99 target: its absence does not matter */
    assert_int_equal(pfs_qos_check(&q, low_bw, nop99, NULL, 2, why, sizeof(why)), 1);
}

static void test_job_words(void **state)
{
    (void)state;
    char err[PFS_ERRLEN];
    struct pfs_jobfile jf;
    assert_int_equal(pfs_jobfile_parse("t.job", "[a]\nconcurrent = g\ninterference = 1\nqos = bw>=95%,p99<5ms\n"
                                       "[b]\nconcurrent = g\ninterference = 0\n", 0, NULL, &jf, err, sizeof(err)), 0);
    assert_int_equal(jf.n, 2);
    assert_int_equal(jf.sec[0].interference, 1);
    assert_string_equal(jf.sec[0].qos, "bw>=95%,p99<5ms");
    assert_int_equal(jf.sec[1].interference, 0);
    assert_string_equal(jf.sec[1].qos, "");
    /* words, not options: the command line is "pfsbench" and the section's label */
    assert_int_equal(jf.sec[0].argc, 2);
    assert_string_equal(jf.sec[0].argv[1], "--label=a");
    pfs_jobfile_free(&jf);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[a]\nconcurrent = g\ninterference = 2\n[b]\nconcurrent = g\n", "t.job:3: interference = 2: 0 or 1"},
        {"[a]\ninterference = 1\n", "t.job:1: section [a]: interference outside a concurrent group"},
        {"[a]\nqos = p99<5ms\n", "t.job:1: section [a]: qos outside a concurrent group"},
        {"[a]\nconcurrent = g\nqos = p99<5ms\n[b]\nconcurrent = g\n", "t.job:1: section [a]: qos without interference"},
        {"[a]\nconcurrent = g\ninterference = 1\nqos = p99<5\n[b]\nconcurrent = g\n",
         "t.job:4: qos = p99<5: 'p99<5': p99<D wants a duration"},
        {"[global]\ninterference = 1\n[a]\n", "t.job:2: 'interference' belongs in a [name] section"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(pfs_jobfile_parse("t.job", bad[i].text, 0, NULL, &jf, err, sizeof(err)), -1);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jain),
        cmocka_unit_test(test_ratio_mean),
        cmocka_unit_test(test_qos_parse),
        cmocka_unit_test(test_qos_check),
        cmocka_unit_test(test_job_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
