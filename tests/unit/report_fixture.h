/* The run the report tests share (test_report.c, test_report_ior.c,
 * test_report_iozone.c): 4 ranks on 2 nodes (node1 holds ranks 0 and 2,
 * node2 ranks 1 and 3), 2 phases x 2 repetitions, every repetition
 * recorded, the run data pointing at the fixture's own arrays. Each test
 * file's setup fills the times and the configuration it is about. */
#ifndef PFS_TEST_REPORT_FIXTURE_H
#define PFS_TEST_REPORT_FIXTURE_H

#include <stdio.h>

#include "pfs/report.h"

struct fixture {
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[4][PFS_HOST_MAX];
    int node[4];
    struct pfs_times times[2 * 2 * 4]; /* 2 phases x 2 reps x 4 ranks: [(p * 2 + rep) * 4 + rank] */
    int reps_done[2];
};

/* A new fixture (the configuration's defaults, 2 repetitions, run id
 * "testrun", status "complete", every time 0); fails the test without memory. */
struct fixture *report_fixture_new(void);

/* cmocka's teardown: the run's figures and the fixture freed. */
int report_fixture_teardown(void **state);

/* fn's output for the run data as it is now, in a malloc'd string: its
 * figures computed first unless keep (then they are what the test set). */
char *report_fixture_render(struct fixture *f, void (*fn)(FILE *, const struct pfs_run_data *), int keep);

#endif
