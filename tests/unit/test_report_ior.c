/* The IOR-shaped and mdtest-shaped reports (--format ior, --format mdtest),
 * written into memory from figures computed here and read back line by
 * line: IOR's and mdtest's column widths and decimals, and every number
 * the figures' own. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/phase.h"
#include "pfs/report.h"
#include "report_fixture.h"

/* Phase p, repetition rep of span S = span[p][rep]: rank r opens from
 * 1 + 0.01r for 0.02 s, its transfers end at 1 + S - 0.25 - 0.05r, its
 * close at 1 + S - 0.01r; 4 MiB in 4 transfers (data), or 10 files
 * (metadata). Over the ranks, IOR's way (latest end - earliest start):
 * open 1.05 - 1 = 0.05 s, transfers (1 + S - 0.25) - 1.02 = S - 0.27 s,
 * close (1 + S) - (1 + S - 0.40) = 0.40 s, total S. Each rank's own
 * longest part differs (open 0.02, close 0.37 s), and the parts overlap:
 * they add up to S + 0.18. */
static void fill(struct fixture *f, const char *p0, const char *p1, int meta)
{
    static const double span[2][2] = {{2, 4}, {1, 2}};
    f->cfg.phases[0] = pfs_phase_find(p0, strlen(p0));
    f->cfg.phases[1] = pfs_phase_find(p1, strlen(p1));
    assert_true(f->cfg.phases[0] >= 0 && f->cfg.phases[1] >= 0);
    f->cfg.nphases = 2;
    for (int p = 0; p < 2; p++)
        for (int rep = 0; rep < 2; rep++)
            for (int r = 0; r < 4; r++) {
                struct pfs_times *t = &f->times[(p * 2 + rep) * 4 + r];
                memset(t, 0, sizeof(*t));
                const double S = span[p][rep];
                t->open_start = 1 + 0.01 * r;
                t->open_end = t->open_start + 0.02;
                t->xfer_end = 1 + S - 0.25 - 0.05 * r;
                t->close_end = 1 + S - 0.01 * r;
                t->bytes = meta ? 0 : 4 << 20;
                t->xfers = meta ? 10 : 4;
            }
}

static int setup(void **state)
{
    struct fixture *f = report_fixture_new();
    snprintf(f->cfg.dir, sizeof(f->cfg.dir), "/scratch/x");
    snprintf(f->cfg.label, sizeof(f->cfg.label), "refnum=7");
    f->cfg.transfer = 1 << 20;
    f->cfg.block = 4 << 20;
    f->cfg.shared = 1;
    struct pfs_run_data *d = &f->d;
    snprintf(d->start_iso, sizeof(d->start_iso), "2026-01-01T00:00:00Z");
    snprintf(d->end_iso, sizeof(d->end_iso), "2026-01-01T00:00:09Z");
    d->cmdline = "pfsbench -p write,read";
    *state = f;
    return 0;
}

static char *render(struct fixture *f, void (*fn)(FILE *, const struct pfs_run_data *), int keep)
{
    return report_fixture_render(f, fn, keep);
}

/* The whole line of s that starts with prefix (a static copy), or fails. */
static const char *line_of(const char *s, const char *prefix)
{
    static char line[1024];
    for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            size_t n = strcspn(p, "\n");
            snprintf(line, sizeof(line), "%.*s", (int)n, p);
            return line;
        }
    fail_msg("no line starting '%s' in:\n%s", prefix, s);
    return NULL;
}

static int words(const char *s)
{
    int n = 0;
    for (const char *p = s; *p;) {
        p += strspn(p, " ");
        if (*p)
            n++;
        p += strcspn(p, " ");
    }
    return n;
}

static void test_ior_results(void **state)
{
    struct fixture *f = *state;
    fill(f, "write", "read", 0);
    char *s = render(f, pfs_report_ior, 0);
    assert_non_null(strstr(s, "\nResults: \n\naccess    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
                              "wr/rd(s)   close(s)   total(s)   iter\n------    ---------  ----       ----------  "
                              "---------- ---------  --------   --------   --------   --------   ----\n"));
    /* 16 MiB in 2 s: 8 MiB/s (IOR's bw: over total(s)); 16 transfers in
     * wr/rd's 2 - 0.27 s: 9.25/s (IOR's IOPS: over wr/rd(s), not the 8/s
     * of the whole phase); no latency recorded: IOR's "-"; a block of 4096
     * KiB (>= 3600) with no decimals; open 0.05, close 0.40 s (fill()). */
    assert_string_equal(line_of(s, "write     8.00"), "write     8.00       9.25          -        4096       1024.00"
                                                   "    0.050000   1.73       0.400000   2.00       0   ");
    /* Under 1 s: 6 decimals; 1 s itself: 2 (read, repetition 0: S = 1);
     * 16 transfers in 0.73 s: 21.92/s. */
    assert_string_equal(line_of(s, "read      16.00"), "read      16.00      21.92         -        4096       1024.00"
                                                    "    0.050000   0.730000   0.400000   1.00       0   ");
    /* Each iteration's phases in turn, as IOR prints them. */
    const char *w1 = strstr(s, "\nwrite     4.00 "), *r0 = strstr(s, "\nread      16.00 ");
    assert_non_null(w1);
    assert_non_null(r0);
    assert_true(r0 < w1);
    assert_string_equal(line_of(s, "write     4.00"), "write     4.00       4.29          -        4096       1024.00"
                                                   "    0.050000   3.73       0.400000   4.00       1   ");
    assert_string_equal(line_of(s, "read      8.00"), "read      8.00       9.25          -        4096       1024.00"
                                                   "    0.050000   1.73       0.400000   2.00       1   ");
    assert_string_equal(line_of(s, "Max Write:"), "Max Write: 8.00 MiB/sec (8.39 MB/sec)");
    assert_string_equal(line_of(s, "Max Read:"), "Max Read:  16.00 MiB/sec (16.78 MB/sec)");
    free(s);
}

static void test_ior_summary(void **state)
{
    struct fixture *f = *state;
    fill(f, "write", "read", 0);
    char *s = render(f, pfs_report_ior, 0);
    const char *head = line_of(s, "Operation ");
    assert_string_equal(head, "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)  "
                              "   StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff "
                              "reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum");
    assert_int_equal(words(head), 27);
    /* 8 and 4 MiB/s: the sample standard deviation sqrt(8) (pfsbench's; IOR's is the population's). */
    const char *w = line_of(s, "write      "); /* not a Results row: "write     8.00" */
    assert_string_equal(w, "write           8.00       4.00       6.00       2.83       8.00       4.00       6.00       "
                           "2.83    3.00000         NA            NA     0      4   2    2   0     0        1         0    "
                           "0      1  4194304  1048576      16.0 POSIX      7");
    assert_int_equal(words(w), 27);
    assert_non_null(strstr(s, "\nSummary of all tests:\nOperation "));
    free(s);
    /* What it prints is the figures': changed there, changed here. */
    assert_int_equal(pfs_run_figures(&f->d), 0);
    f->d.fig.phase[0].bw.max = 1234.5 * PFS_MIB;
    s = render(f, pfs_report_ior, 1);
    assert_string_equal(line_of(s, "Max Write:"), "Max Write: 1234.50 MiB/sec (1294.47 MB/sec)");
    assert_non_null(strstr(line_of(s, "write      "), "write        1234.50       4.00"));
    free(s);
}

/* IOR -D with its wear-out (pfsbench's -D): the write's streams stop at
 * the stonewall, 1, 1, 2 and 2 MiB written by 1.5 s in the first
 * repetition (0.5 s after the first open), 3, 2, 3 and 2 MiB by 2 s in
 * the second (1 s), then wear out to 4 MiB each; the read runs to its
 * end before the stonewall. */
static void stonewall_write(struct fixture *f)
{
    static const uint64_t mib[2][4] = {{1, 1, 2, 2}, {3, 2, 3, 2}};
    fill(f, "write", "read", 0);
    f->cfg.deadline = 5;
    for (int rep = 0; rep < 2; rep++)
        for (int r = 0; r < 4; r++) {
            struct pfs_times *t = &f->times[rep * 4 + r];
            t->sw_bytes = mib[rep][r] << 20;
            t->sw_xfers = mib[rep][r];
            t->sw_end = (rep ? 2.0 : 1.5) - 0.01 * r;
        }
}

/* IOR's Stonewall(s): the mean seconds to the stonewall, (0.5 + 1) / 2;
 * its Stonewall(MiB): the mean stream's MiB by then over those seconds,
 * (6 + 10) MiB / 4 streams / 1.5 s = 2.67 (a MiB/s, IOR's own; the
 * aggregate would be 10.67); NA for the read, which it did not stop. */
static void test_ior_stonewall(void **state)
{
    struct fixture *f = *state;
    stonewall_write(f);
    char *s = render(f, pfs_report_ior, 0);
    const char *w = line_of(s, "write      ");
    assert_string_equal(w, "write           8.00       4.00       6.00       2.83       8.00       4.00       6.00       "
                           "2.83    3.00000       0.75          2.67     0      4   2    2   0     0        1         0    "
                           "0      1  4194304  1048576      16.0 POSIX      7");
    assert_int_equal(words(w), 27);
    assert_non_null(strstr(line_of(s, "read       "), "    1.50000         NA            NA     0 "));
    free(s);
    /* A warm-up repetition is none of IOR's: the second alone, 10 MiB / 4 / 1 s. */
    f->cfg.warmup = 1;
    s = render(f, pfs_report_ior, 0);
    assert_non_null(strstr(line_of(s, "write      "), "    4.00000       1.00          2.50     0 "));
    free(s);
    /* -D set, but every stream wrote its block before it: NA, as without -D. */
    f->cfg.warmup = 0;
    for (int i = 0; i < 8; i++)
        f->times[i].sw_end = 0;
    s = render(f, pfs_report_ior, 0);
    assert_non_null(strstr(line_of(s, "write      "), "    3.00000         NA            NA     0 "));
    free(s);
}

/* IOR's -s 4 -b 1m (pfsbench's --segments 4 and a 4 MiB block per
 * stream): IOR's segcnt 4 and blksiz, block(KiB) and blocksize of one
 * segment; -Z -X 42 (-C --reorder-seed 42): IOR's reordrand 1, seed 42,
 * reord 0 and its header's "random task offset" lines; -C alone: reord 1
 * and "constant task offset". */
static void test_ior_segments_reorder(void **state)
{
    struct fixture *f = *state;
    fill(f, "write", "read", 0);
    f->cfg.segments = 4;
    f->cfg.reorder = 1;
    f->cfg.reorder_seed = 42;
    char *s = render(f, pfs_report_ior, 0);
    assert_string_equal(line_of(s, "write      "),
                        "write           8.00       4.00       6.00       2.83       8.00       4.00       6.00       "
                        "2.83    3.00000         NA            NA     0      4   2    2   0     0        1         1   "
                        "42      4  1048576  1048576      16.0 POSIX      7");
    assert_string_equal(line_of(s, "write     8.00"), "write     8.00       9.25          -        1024.00    1024.00"
                                                   "    0.050000   1.73       0.400000   2.00       0   ");
    assert_non_null(strstr(s, "\nordering inter file : random task offset\n"
                              "task offset         : 1\n"
                              "reorder random seed : 42\n"
                              "tasks               : 4\n"));
    assert_string_equal(line_of(s, "blocksize "), "blocksize           : 1.00 MiB");
    assert_string_equal(line_of(s, "aggregate filesize "), "aggregate filesize  : 16.00 MiB");
    free(s);
    f->cfg.reorder_seed = -1;
    f->cfg.reorder_nodes = 2;
    s = render(f, pfs_report_ior, 0);
    assert_non_null(strstr(line_of(s, "read       "), "     0      4   2    2   0     1        2         0    0      4  "
                                                    "1048576  1048576"));
    assert_non_null(strstr(s, "\nordering inter file : constant task offset\n"
                              "task offset         : 2\n"
                              "tasks               : 4\n"));
    free(s);
    /* IO500's ior-hard (-s N -b t, pfsbench's --layout strided): IOR's
     * segcnt b/t = 4 segments of blksiz t. */
    f->cfg.segments = 1;
    f->cfg.layout = PFS_LAYOUT_STRIDED;
    s = render(f, pfs_report_ior, 0);
    assert_non_null(strstr(line_of(s, "write      "), "     0      4   2    2   0     1        2         0    0      4  "
                                                     "1048576  1048576      16.0 POSIX      7"));
    free(s);
}

static void test_mdtest_summary(void **state)
{
    struct fixture *f = *state;
    fill(f, "create", "delete", 1);
    char *s = render(f, pfs_report_mdtest, 0);
    assert_non_null(strstr(s, "\nSUMMARY rate: (of 2 iterations)\n   Operation                      Max            Min   "
                              "        Mean        Std Dev\n   ---------                      ---            ---       "
                              "    ----        -------\n"));
    /* 40 files in 2 s and 4 s; removed in 1 s and 2 s. */
    assert_string_equal(line_of(s, "   File creation"),
                        "   File creation             :         20.000         10.000         15.000          7.071");
    assert_string_equal(line_of(s, "   File removal"),
                        "   File removal              :         40.000         20.000         30.000         14.142");
    /* Not run: 0, as mdtest prints it; no directory rows beside files. */
    assert_string_equal(line_of(s, "   File stat"),
                        "   File stat                 :          0.000          0.000          0.000          0.000");
    assert_non_null(strstr(s, "   Tree creation             :"));
    assert_null(strstr(s, "Directory"));
    assert_null(strstr(s, "stonewall")); /* no -D */
    const char *t = strstr(s, "\nSUMMARY time: (of 2 iterations)\n");
    assert_non_null(t);
    assert_string_equal(line_of(t, "   File creation"),
                        "   File creation             :          4.000          2.000          3.000          1.414");
    free(s);
}

/* mdtest -W (-D 5): create's streams stop at the stonewall, 6, 4, 6 and 6
 * files made by 1.5 s in the first iteration (0.5 s after the first
 * open), 8, 8, 7 and 9 by 2 s in the second, then wear out to 10. */
static void stonewall_create(struct fixture *f)
{
    static const uint64_t made[2][4] = {{6, 4, 6, 6}, {8, 8, 7, 9}};
    fill(f, "create", "delete", 1);
    f->cfg.deadline = 5;
    for (int rep = 0; rep < 2; rep++)
        for (int r = 0; r < 4; r++) {
            struct pfs_times *t = &f->times[rep * 4 + r];
            t->sw_xfers = made[rep][r];
            t->sw_end = (rep ? 2.0 : 1.5) - 0.01 * r;
        }
}

/* mdtest's line for each iteration the stonewall stopped (the streams'
 * fewest, most and mean files then), and its "File create (stonewall)"
 * rows: (22 + 32) files / (0.5 + 1) s, and the seconds' sum. */
static void test_mdtest_stonewall(void **state)
{
    struct fixture *f = *state;
    stonewall_create(f);
    char *s = render(f, pfs_report_mdtest, 0);
    assert_non_null(strstr(s, "\nPath: /scratch/x\n"
                              "Continue stonewall hit min: 4 max: 6 avg: 5.5 \n"
                              "Continue stonewall hit min: 7 max: 9 avg: 8.0 \n"
                              "\nSUMMARY rate: (of 2 iterations)\n"));
    assert_non_null(strstr(s, "\n   File removal              :         40.000         20.000         30.000         14.142\n"
                              "   File create (stonewall)   :             NA             NA         36.000             NA\n"
                              "   Tree creation             :"));
    const char *t = strstr(s, "\nSUMMARY time: (of 2 iterations)\n");
    assert_non_null(t);
    assert_string_equal(line_of(t, "   File create (stonewall)"),
                        "   File create (stonewall)   :             NA             NA          1.500             NA");
    free(s);
    /* A warm-up iteration is none of mdtest's: the second alone. */
    f->cfg.warmup = 1;
    s = render(f, pfs_report_mdtest, 0);
    assert_null(strstr(s, "min: 4 "));
    assert_string_equal(line_of(s, "Continue stonewall"), "Continue stonewall hit min: 7 max: 9 avg: 8.0 ");
    assert_string_equal(line_of(s, "   File create (stonewall)"),
                        "   File create (stonewall)   :             NA             NA         32.000             NA");
    free(s);
    /* -D set, but every stream made its files before it: no stonewall said. */
    for (int i = 0; i < 8; i++)
        f->times[i].sw_end = 0;
    f->cfg.warmup = 0;
    s = render(f, pfs_report_mdtest, 0);
    assert_null(strstr(s, "stonewall"));
    free(s);
}

/* mdtest -D: the directories' rows, mkdir and rmdir in them. */
static void test_mdtest_dirs(void **state)
{
    struct fixture *f = *state;
    fill(f, "mkdir", "rmdir", 1);
    char *s = render(f, pfs_report_mdtest, 0);
    assert_string_equal(line_of(s, "   Directory creation"),
                        "   Directory creation        :         20.000         10.000         15.000          7.071");
    assert_non_null(strstr(s, "   Directory removal         :         40.000"));
    assert_null(strstr(s, "File creation"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ior_results, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_ior_summary, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_ior_stonewall, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_ior_segments_reorder, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_mdtest_summary, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_mdtest_stonewall, setup, report_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_mdtest_dirs, setup, report_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
