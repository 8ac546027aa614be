/* The report tests' shared run (report_fixture.h). */
#define _GNU_SOURCE
#include "report_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

struct fixture *report_fixture_new(void)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    pfs_config_defaults(&f->cfg);
    f->cfg.reps = 2;
    for (int r = 0; r < 4; r++) {
        snprintf(f->hosts[r], PFS_HOST_MAX, "node%d", r % 2 + 1);
        f->node[r] = r % 2;
    }
    f->reps_done[0] = f->reps_done[1] = 2;
    struct pfs_run_data *d = &f->d;
    d->cfg = &f->cfg;
    snprintf(d->run_id, sizeof(d->run_id), "testrun");
    d->status = "complete";
    d->nranks = 4;
    d->nnodes = 2;
    d->hosts = (const char(*)[PFS_HOST_MAX])f->hosts;
    d->node_of_rank = f->node;
    d->nphases = 2;
    d->reps = 2;
    d->times = f->times;
    d->reps_done = f->reps_done;
    return f;
}

int report_fixture_teardown(void **state)
{
    struct fixture *f = *state;
    pfs_run_release(&f->d);
    free(f);
    return 0;
}

char *report_fixture_render(struct fixture *f, void (*fn)(FILE *, const struct pfs_run_data *), int keep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    if (!keep)
        assert_int_equal(pfs_run_figures(&f->d), 0); /* what the run data holds now, computed once */
    fn(m, &f->d);
    fclose(m);
    return buf;
}
