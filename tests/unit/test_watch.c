/* The stall watchdog in a plain process: a step whose progress stands still
 * is noted past `warn` and fires past `timeout`; progress keeps it quiet.
 * The watchdog's clock is injected (ops.now): the test steps it, so nothing
 * sleeps through the limits and nothing depends on the machine's load. */
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
    uint64_t now_ms;      /* the watchdog's clock, stepped by the test */
    unsigned long reads;  /* how often the watchdog thread read it */
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

/* Whole milliseconds over an exact 1e3: the differences the watchdog takes
 * are then exact (1001.0 - 1000.0 is 1.0), so "past warn" means past it. */
static double fake_now(void *arg)
{
    struct probe *p = arg;
    __atomic_add_fetch(&p->reads, 1, __ATOMIC_SEQ_CST);
    return (double)__atomic_load_n(&p->now_ms, __ATOMIC_SEQ_CST) / 1e3;
}

static void nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* Returns once the watchdog has finished a whole tick that began after this
 * call: the first clock read after ours saw everything done before (the
 * time, the step, the progress), and the one after it starts the next tick,
 * so the first one's note or fire() is complete. However late the thread is
 * on a loaded machine, nothing here depends on how late. */
static void settle(struct probe *p)
{
    unsigned long r0 = __atomic_load_n(&p->reads, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 200000 && __atomic_load_n(&p->reads, __ATOMIC_SEQ_CST) < r0 + 2; i++)
        nap(0.0001);
    assert_true(__atomic_load_n(&p->reads, __ATOMIC_SEQ_CST) >= r0 + 2);
}

/* Steps the watchdog's clock by ms and waits for a tick that saw it. */
static void advance(struct probe *p, uint64_t ms)
{
    __atomic_add_fetch(&p->now_ms, ms, __ATOMIC_SEQ_CST);
    settle(p);
}

/* The clock is the test's: time moves 50 ms a step and the watchdog looks
 * at every step, so the order of the events is exact on any machine: noted
 * at the first look past warn, and only later, past timeout, fired. */
static void test_blocked_is_noted_and_fires(void **state)
{
    (void)state;
    struct probe p = {.now_ms = 1000000};
    struct pfs_watch_ops ops = {.warn = 1.0, .timeout = 3.0, .tick = 0.001, .progress = progress,
                                .describe = describe, .fire = fire, .now = fake_now, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    pfs_watch_step(w, "write (repetition 0)");
    settle(&p);
    /* step until the note (or a fire, which would be early) */
    char desc[512];
    double s = 0;
    for (int i = 0; i < 1000 && s == 0 && !__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE); i++) {
        advance(&p, 50);
        s = pfs_watch_longest(w, desc, sizeof(desc));
    }
    int fired_early = __atomic_load_n(&p.fired, __ATOMIC_ACQUIRE);
    assert_true(s >= 1.0 && s < 3.0);
    assert_true(s < 1.0 + 0.05); /* at the first look past warn, not later */
    assert_non_null(strstr(desc, "fsync /x/pfsbench.ID.3, in write (repetition 0)"));
    assert_false(fired_early);
    for (int i = 0; i < 1000 && !__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE); i++)
        advance(&p, 50);
    assert_true(__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE));
    double b = 0;
    const char *at = strstr(p.msg, "blocked ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "blocked %lf s in ", &b), 1);
    assert_true(b >= 3.0); /* never before the timeout */
    assert_true(b < 3.0 + 0.05); /* and at the first look past it */
    assert_non_null(strstr(p.msg, " s in fsync /x/pfsbench.ID.3, during write (repetition 0)"));
    /* the longest blocked call went on growing with the note until the fire */
    assert_true(pfs_watch_longest(w, desc, sizeof(desc)) >= 3.0);
    pfs_watch_stop(w);
}

static void test_progress_and_idle_are_quiet(void **state)
{
    (void)state;
    char desc[512];
    /* outside a step (an MPI wait, say) nothing counts: idle well past both limits */
    struct probe p = {.now_ms = 1000000};
    struct pfs_watch_ops ops = {.warn = 0.15, .timeout = 0.3, .tick = 0.001, .progress = progress,
                                .describe = describe, .fire = fire, .now = fake_now, .arg = &p};
    struct pfs_watch *w = pfs_watch_start(&ops);
    assert_non_null(w);
    for (int i = 0; i < 25; i++)
        advance(&p, 20);
    assert_true(pfs_watch_longest(w, desc, sizeof(desc)) == 0);
    assert_false(__atomic_load_n(&p.fired, __ATOMIC_ACQUIRE));
    pfs_watch_stop(w);
    /* inside one, steady progress (every 20 ms, against a warn of 2 s) for
     * longer than the timeout: never blocked (the progress counts, not the
     * step's age); after it, idle past both limits again */
    struct probe q = {.now_ms = 1000000};
    ops.warn = 2.0;
    ops.timeout = 4.0;
    ops.arg = &q;
    w = pfs_watch_start(&ops);
    assert_non_null(w);
    pfs_watch_step(w, "read (repetition 1)");
    settle(&q);
    for (int i = 0; i < 225; i++) {
        __atomic_add_fetch(&q.progress, 1, __ATOMIC_RELAXED);
        advance(&q, 20);
    }
    pfs_watch_step(w, NULL);
    for (int i = 0; i < 45; i++)
        advance(&q, 100);
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
