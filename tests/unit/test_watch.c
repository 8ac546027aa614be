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

/* The margins are wide against a loaded machine (a 2-core CI VM with the
 * sanitizers and another test beside): the watch thread or this one may be
 * late by a good part of a second. The order of the events is checked, not
 * their timing: noted past warn, and only later, past timeout, fired. */
static void test_blocked_is_noted_and_fires(void **state)
{
    (void)state;
    struct probe p = {0};
    struct pfs_watch_ops ops = {.warn = 1.0, .timeout = 3.0, .tick = 0.02, .progress = progress,
                                .describe = describe, .fire = fire, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    pfs_watch_step(w, "write (repetition 0)");
    /* wait for the note (10 s at most), then look at once: 2 s before the timeout */
    char desc[512];
    double s = 0;
    for (int i = 0; i < 1000 && s == 0 && !__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE); i++) {
        nap(0.01);
        s = pfs_watch_longest(w, desc, sizeof(desc));
    }
    int fired_early = __atomic_load_n(&p.fired, __ATOMIC_ACQUIRE);
    assert_true(s >= 1.0 && s < 3.0);
    assert_non_null(strstr(desc, "fsync /x/pfsbench.ID.3, in write (repetition 0)"));
    assert_false(fired_early);
    for (int i = 0; i < 1000 && !__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE); i++)
        nap(0.01);
    assert_true(__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE));
    double b = 0;
    const char *at = strstr(p.msg, "blocked ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "blocked %lf s in ", &b), 1);
    assert_true(b >= 3.0); /* never before the timeout, however late it came */
    assert_non_null(strstr(p.msg, " s in fsync /x/pfsbench.ID.3, during write (repetition 0)"));
    pfs_watch_stop(w);
}

static void test_progress_and_idle_are_quiet(void **state)
{
    (void)state;
    char desc[512];
    /* outside a step (an MPI wait, say) nothing counts: idle well past both limits */
    struct probe p = {0};
    struct pfs_watch_ops ops = {.warn = 0.15, .timeout = 0.3, .tick = 0.02, .progress = progress,
                                .describe = describe, .fire = fire, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    nap(0.5);
    assert_true(pfs_watch_longest(w, desc, sizeof(desc)) == 0);
    assert_false(__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE));
    pfs_watch_stop(w);
    /* inside one, steady progress (every 20 ms, against a warn of 2 s) for
     * longer than the timeout: never blocked (the progress counts, not the
     * step's age); after it, idle past both limits again */
    struct probe q = {0};
    ops.warn = 2.0;
    ops.timeout = 4.0;
    ops.arg = &q;
    w = pfs_watch_start(&ops);
    assert_non_null(w);
    pfs_watch_step(w, "read (repetition 1)");
    for (int i = 0; i < 225; i++) {
        __atomic_add_fetch(&q.progress, 1, __ATOMIC_RELAXED);
        nap(0.02);
    }
    pfs_watch_step(w, NULL);
    nap(4.5);
    assert_true(pfs_watch_longest(w, desc, sizeof(desc)) == 0);
    assert_false(__atomic_load_n(&q.fired, __ATOMIC_ACQUIRE));
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
