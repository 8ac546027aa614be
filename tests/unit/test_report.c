/* The text report, written into memory and read back. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfs/report.h"

struct fixture {
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[4][PFS_HOST_MAX];
    int node[4];
    struct pfs_times times[2 * 2 * 4]; /* 2 phases x 2 reps x 4 ranks */
    int reps_done[2];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    pfs_config_defaults(&f->cfg);
    snprintf(f->cfg.dir, sizeof(f->cfg.dir), "/scratch/x");
    f->cfg.transfer = 1 << 20;
    f->cfg.block = 4 << 20;
    f->cfg.total = 16 << 20;
    f->cfg.reps = 2;
    f->cfg.fsync = 1;
    for (int r = 0; r < 4; r++) {
        snprintf(f->hosts[r], PFS_HOST_MAX, "node%d", r % 2 + 1);
        f->node[r] = r % 2;
    }
    /* phase 0 rep 0: every rank 4 MiB in [1, 3]: 16 MiB / 2 s = 8 MiB/s.
     * Node 1's ranks are slow in phase 1 rep 1. */
    for (int p = 0; p < 2; p++)
        for (int rep = 0; rep < 2; rep++)
            for (int r = 0; r < 4; r++) {
                struct pfs_times *t = &f->times[(p * 2 + rep) * 4 + r];
                t->open_start = 1;
                t->close_end = (p == 1 && rep == 1 && r % 2) ? 9 : 3;
                t->bytes = 4 << 20;
            }
    f->reps_done[0] = f->reps_done[1] = 2;
    struct pfs_run_data *d = &f->d;
    d->cfg = &f->cfg;
    snprintf(d->run_id, sizeof(d->run_id), "testrun");
    snprintf(d->fstype, sizeof(d->fstype), "lustre");
    d->status = "complete";
    d->nranks = 4;
    d->nnodes = 2;
    d->hosts = (const char(*)[PFS_HOST_MAX])f->hosts;
    d->node_of_rank = f->node;
    d->nphases = 2;
    d->reps = 2;
    d->times = f->times;
    d->reps_done = f->reps_done;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

__attribute__((noinline)) static char *render(struct fixture *f, void (*fn)(FILE *, const struct pfs_run_data *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fn(m, &f->d);
    fclose(m);
    return buf;
}

static void test_header(void **state)
{
    struct fixture *f = *state;
    pfs_run_warn(&f->d, "first %d", 1);
    pfs_run_warn(&f->d, "second");
    char *s = render(f, pfs_report_header);
    assert_non_null(strstr(s, "4 on 2 nodes (2 per node)"));
    assert_non_null(strstr(s, "/scratch/x (lustre)"));
    assert_non_null(strstr(s, "transfer 1 MiB, block 4 MiB per rank, total 16 MiB"));
    assert_non_null(strstr(s, "write,read x 2 repetitions"));
    assert_non_null(strstr(s, "fsync .. close"));
    assert_non_null(strstr(s, "KB/s = 1024 bytes/s"));
    assert_non_null(strstr(s, "warning      first 1\nwarning      second\n"));
    free(s);
}

static void row_p0r0(FILE *out, const struct pfs_run_data *d) { pfs_report_row(out, d, 0, 0); }
static void row_p1r1(FILE *out, const struct pfs_run_data *d) { pfs_report_row(out, d, 1, 1); }

static void test_rows(void **state)
{
    struct fixture *f = *state;
    char *s = render(f, row_p0r0);
    /* 8 MiB/s = 8192 KB/s, 2 s, utilization 1 */
    char phase[16];
    int rep;
    double mib, kb, sec, util;
    assert_int_equal(sscanf(s, "%15s %d %lf %lf %lf %lf", phase, &rep, &mib, &kb, &sec, &util), 6);
    assert_string_equal(phase, "write");
    assert_float_equal(mib, 8.0, 1e-9);
    assert_float_equal(kb, 8192.0, 1e-9);
    assert_float_equal(sec, 2.0, 1e-9);
    assert_float_equal(util, 1.0, 1e-9);
    assert_null(strstr(s, "STRAGGLER"));
    free(s);
    s = render(f, row_p1r1);
    /* 16 MiB over 8 s; node 1 (node2) at 8 MiB / 8 s is below 0.8 x the median */
    assert_int_equal(sscanf(s, "%15s %d %lf", phase, &rep, &mib), 3);
    assert_string_equal(phase, "read");
    assert_float_equal(mib, 2.0, 1e-9);
    assert_non_null(strstr(s, "STRAGGLER"));
    assert_non_null(strstr(s, "straggler: node 1 (node2) 1.00 MiB/s"));
    free(s);
}

static void test_summary(void **state)
{
    struct fixture *f = *state;
    char *s = render(f, pfs_report_summary);
    const char *line = strstr(s, "\nread ");
    assert_non_null(line);
    char phase[16];
    int n;
    double mn, mx, mean, med, sd;
    assert_int_equal(sscanf(line + 1, "%15s %d %lf %lf %lf %lf %lf", phase, &n, &mn, &mx, &mean, &med, &sd), 7);
    assert_int_equal(n, 2);
    assert_float_equal(mn, 2.0, 1e-9);
    assert_float_equal(mx, 8.0, 1e-9);
    assert_float_equal(mean, 5.0, 1e-9);
    assert_float_equal(med, 5.0, 1e-9);
    assert_float_equal(sd, 4.24, 0.0051); /* printed to 2 decimals: sqrt(18) */
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
