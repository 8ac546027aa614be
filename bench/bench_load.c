/* What the load building blocks (issue 30) cost per call, in a plain
 * process (no MPI).
 *
 *   bench_load [N [REPS]]
 *       the median of REPS (default 7) runs of N calls (default
 *       20,000,000), in ns per call, by the wall clock and by the thread's
 *       CPU clock (on a shared machine the CPU clock leaves out the time
 *       other processes took).
 *
 * No assertion on speed: figures for docs/performance.md. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/clock.h"
#include "pfs/sched.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One benchmark: n calls of what it measures, its result folded into sink. */
struct bench {
    const char *what;
    uint64_t (*run)(void *ctx, uint64_t n);
    void *ctx;
    uint64_t div; /* calls are n / div */
};

static uint64_t run_clock(void *ctx, uint64_t n)
{
    const struct pfs_clock *c = ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += pfs_clock_now(c);
    return s;
}

static uint64_t run_gettime(void *ctx, uint64_t n)
{
    (void)ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += pfs_clock_mono_ns();
    return s;
}

#if defined(__x86_64__)
static uint64_t run_rdtsc(void *ctx, uint64_t n)
{
    (void)ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += __rdtsc();
    return s;
}
#endif

static uint64_t run_sched(void *ctx, uint64_t n)
{
    struct pfs_sched *sc = ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += pfs_sched_next(sc);
    return s;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(const struct bench *b, uint64_t n, int reps)
{
    static volatile uint64_t sink;
    double wall[64], cpu[64];
    const uint64_t calls = n / b->div ? n / b->div : 1;
    for (int r = 0; r < reps; r++) {
        const double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
        sink += b->run(b->ctx, calls);
        const double c1 = now_s(CLOCK_THREAD_CPUTIME_ID), w1 = now_s(CLOCK_MONOTONIC);
        wall[r] = (w1 - w0) * 1e9 / (double)calls;
        cpu[r] = (c1 - c0) * 1e9 / (double)calls;
    }
    qsort(wall, (size_t)reps, sizeof(double), cmp);
    qsort(cpu, (size_t)reps, sizeof(double), cmp);
    printf("%-34s %10.2f %10.2f %10.2f %10.2f\n", b->what, cpu[reps / 2], cpu[0], wall[reps / 2], wall[0]);
}

static int costs(uint64_t n, int reps)
{
    static struct pfs_clock tsc, mono;
    static struct pfs_sched fixed, poisson;
    pfs_clock_init(&tsc, 1, 0);
    pfs_clock_init(&mono, 0, 0);
    pfs_sched_init(&fixed, 1e5, PFS_ARR_FIXED, 1, 0, 0);
    pfs_sched_init(&poisson, 1e5, PFS_ARR_POISSON, 1, 0, 0);
    printf("bench_load: %llu calls x %d; clock: %s%s%s (%.4f GHz, +-%.2f ppm)\n", (unsigned long long)n, reps,
           tsc.src == PFS_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC", tsc.why[0] ? ": " : "", tsc.why, tsc.ghz, tsc.err_ppm);
    printf("%-34s %10s %10s %10s %10s\n", "ns per call", "cpu med", "cpu min", "wall med", "wall min");
    const struct bench all[] = {
#if defined(__x86_64__)
        {"rdtsc alone (the floor)", run_rdtsc, NULL, 1},
#endif
        {"pfs_clock_now (TSC)", run_clock, &tsc, 1},
        {"pfs_clock_now (CLOCK_MONOTONIC)", run_clock, &mono, 1},
        {"clock_gettime(CLOCK_MONOTONIC)", run_gettime, NULL, 1},
        {"pfs_sched_next fixed", run_sched, &fixed, 1},
        {"pfs_sched_next poisson", run_sched, &poisson, 1},
    };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        measure(&all[i], n, reps);
    return 0;
}

int main(int argc, char **argv)
{
    const uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
    const int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 100000 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_load [N (>= 100000) [REPS (1..64)]]\n");
        return 2;
    }
    return costs(n, reps);
}
