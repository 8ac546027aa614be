/* The stall watchdog in a plain process: a step whose progress stands still
 * is noted past `warn` and fires past `timeout`; progress keeps it quiet. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/watch.h"

struct probe {
    uint64_t progress;
    int fired;
    char msg[700];
};

static uint64_t progress(void *arg)
{
    return __atomic_load_n(&((struct probe *)arg)->progress, __ATOMIC_RELAXED);
}

static void describe(void *arg, char *buf, size_t len)
{
    (void)arg;
    snprintf(buf, len, "fsync /x/pfsbench.ID.3");
}

static void fire(void *arg, const char *msg)
{
    struct probe *p = arg;
    snprintf(p->msg, sizeof(p->msg), "%s", msg);
    __atomic_store_n(&p->fired, 1, __ATOMIC_RELEASE);
}

static void nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

static void test_blocked_is_noted_and_fires(void **state)
{
    (void)state;
    struct probe p = {0};
    struct pfs_watch_ops ops = {.warn = 0.2, .timeout = 0.6, .tick = 0.02, .progress = progress,
                                .describe = describe, .fire = fire, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    pfs_watch_step(w, "write (repetition 0)");
    nap(0.4);
    char desc[512];
    double s = pfs_watch_longest(w, desc, sizeof(desc));
    assert_true(s >= 0.2 && s < 0.6);
    assert_non_null(strstr(desc, "fsync /x/pfsbench.ID.3, in write (repetition 0)"));
    assert_false(__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE));
    for (int i = 0; i < 100 && !__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE); i++)
        nap(0.02);
    assert_true(p.fired);
    assert_non_null(strstr(p.msg, "blocked 0."));
    assert_non_null(strstr(p.msg, "in fsync /x/pfsbench.ID.3, during write (repetition 0)"));
    pfs_watch_stop(w);
}

static void test_progress_and_idle_are_quiet(void **state)
{
    (void)state;
    struct probe p = {0};
    struct pfs_watch_ops ops = {.warn = 0.15, .timeout = 0.3, .tick = 0.02, .progress = progress,
                                .describe = describe, .fire = fire, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    /* outside a step (an MPI wait, say) nothing counts */
    nap(0.5);
    /* inside one, steady progress: never blocked */
    pfs_watch_step(w, "read (repetition 1)");
    for (int i = 0; i < 25; i++) {
        __atomic_add_fetch(&p.progress, 1, __ATOMIC_RELAXED);
        nap(0.02);
    }
    pfs_watch_step(w, NULL);
    nap(0.4);
    char desc[512];
    assert_true(pfs_watch_longest(w, desc, sizeof(desc)) == 0);
    assert_false(p.fired);
    pfs_watch_stop(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocked_is_noted_and_fires),
        cmocka_unit_test(test_progress_and_idle_are_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
