/* IOzone's throughput-mode lines (report_iozone.c), from the figures of a
 * run of 4 streams, one of them slower and shorter, written into memory
 * and compared whole. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/cmdline.h"
#include "pfs/phase.h"
#include "pfs/report_iozone.h"
#include "report_fixture.h"

/* Streams 0-2: 4 MiB in [1, 3], 2048 kB/s each; stream 3: 2 MiB in [1, 5],
 * 512 kB/s. Children see 6656 kB/s; parent 14 MiB / 4 s = 3584 kB/s. The
 * second repetition of each phase is the same, twice as fast. */
static int setup(void **state)
{
    struct fixture *f = report_fixture_new();
    f->cfg.warmup = 0;
    for (int i = 0; i < 2 * 2 * 4; i++) {
        const int rep = (i / 4) % 2, s = i % 4;
        struct pfs_times *t = &f->times[i];
        t->open_start = 1;
        t->close_end = 1 + (s == 3 ? 4.0 : 2.0) / (rep + 1);
        t->bytes = s == 3 ? 2 << 20 : 4 << 20;
    }
    *state = f;
    return 0;
}

static char *render(struct fixture *f)
{
    return report_fixture_render(f, pfs_report_iozone, 0);
}

static const char want_write[] = "\n"
                                 "\tChildren see throughput for  4 initial writers \t=    6656.00 kB/sec\n"
                                 "\tParent sees throughput for  4 initial writers \t=    3584.00 kB/sec\n"
                                 "\tMin throughput per process \t\t\t=     512.00 kB/sec \n"
                                 "\tMax throughput per process \t\t\t=    2048.00 kB/sec\n"
                                 "\tAvg throughput per process \t\t\t=    1664.00 kB/sec\n"
                                 "\tMin xfer \t\t\t\t\t=    2048.00 kB\n";
static const char want_write2[] = "\n"
                                  "\tChildren see throughput for  4 initial writers \t=   13312.00 kB/sec\n"
                                  "\tParent sees throughput for  4 initial writers \t=    7168.00 kB/sec\n"
                                  "\tMin throughput per process \t\t\t=    1024.00 kB/sec \n"
                                  "\tMax throughput per process \t\t\t=    4096.00 kB/sec\n"
                                  "\tAvg throughput per process \t\t\t=    3328.00 kB/sec\n"
                                  "\tMin xfer \t\t\t\t\t=    2048.00 kB\n";

static void test_blocks(void **state)
{
    struct fixture *f = *state;
    char *s = render(f);
    char *read = strstr(s, "\n\n\tChildren see throughput for  4 readers \t\t=    6656.00 kB/sec\n");
    assert_non_null(read);
    read[1] = '\0'; /* the two write blocks, whole */
    char want[1024];
    snprintf(want, sizeof(want), "%s%s", want_write, want_write2);
    assert_string_equal(s, want);
    free(s);
}

/* The per-process figures are the figures' own: the sum, extremes and mean
 * of stream_bw, and the fewest bytes. */
static void test_figures(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(pfs_run_figures(&f->d), 0);
    const struct pfs_rep_figs *r = pfs_figs_rep(&f->d.fig, 1, 0);
    assert_non_null(r);
    assert_true(r->stream_bw_sum == 6656.0 * 1024);
    assert_true(r->stream_bw_min == 512.0 * 1024 && r->stream_bw_max == 2048.0 * 1024);
    assert_true(r->stream_bw_mean == 1664.0 * 1024);
    assert_int_equal(r->stream_bytes_min, 2 << 20);
}

/* A warm-up repetition is left out, as from every statistic; a phase
 * IOzone does not report (a metadata phase) has no name and no block. */
static void test_warmup_and_names(void **state)
{
    struct fixture *f = *state;
    f->cfg.warmup = 1;
    char *s = render(f);
    assert_null(strstr(s, "=    6656.00 kB/sec"));
    assert_non_null(strstr(s, "initial writers \t=   13312.00 kB/sec"));
    free(s);
    assert_string_equal(pfs_report_iozone_test(&f->d, 0), "initial writers");
    assert_string_equal(pfs_report_iozone_test(&f->d, 1), "readers");
    f->cfg.phases[1] = pfs_phase_find("create", 6);
    assert_null(pfs_report_iozone_test(&f->d, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_blocks, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_figures, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_warmup_and_names, setup, report_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
