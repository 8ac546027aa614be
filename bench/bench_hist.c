/* What a latency record costs per operation: pfs_hist_add, pfs_ts_add and
 * the clock reads that feed them, in a plain process (no MPI).
 *
 *   bench_hist [N [REPS]]
 *
 * Prints the median of REPS (default 5) runs of N operations (default
 * 50,000,000) in ns per operation. The latencies come from a table of 1 Mi
 * pseudo-random values (log-uniform over 1 us .. 100 ms) made beforehand,
 * so the figures hold no generator; "table walk" is that loop alone, the
 * floor under the other two. No assertion on speed: figures for the docs. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pfs/hist.h"

#define TABLE (1u << 20)

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void make_table(uint64_t *lat)
{
    uint64_t s = 1;
    for (unsigned i = 0; i < TABLE; i++) {
        double u = (double)(xorshift(&s) >> 11) * 0x1p-53;
        lat[i] = (uint64_t)exp(log(1e3) + u * (log(1e8) - log(1e3)));
    }
}

/* What the hot loops measure, one run of n operations each; ns per op. */
struct run {
    const uint64_t *lat;
    uint64_t n;
    struct pfs_hist *h;
    struct pfs_tseries *ts;
};

static double walk(struct run *r)
{
    volatile uint64_t sink = 0;
    uint64_t acc = 0;
    double t0 = mono();
    for (uint64_t i = 0; i < r->n; i++)
        acc += r->lat[i & (TABLE - 1)];
    sink = acc;
    (void)sink;
    return (mono() - t0) * 1e9 / (double)r->n;
}

static double hist_add(struct run *r)
{
    pfs_hist_reset(r->h);
    double t0 = mono();
    for (uint64_t i = 0; i < r->n; i++)
        pfs_hist_add(r->h, r->lat[i & (TABLE - 1)]);
    return (mono() - t0) * 1e9 / (double)r->n;
}

/* The events' times advance by 10 us each: 50 M of them span 500 s, the
 * 512 one-second slots of the default cap, the way a long phase fills them. */
static double ts_add(struct run *r)
{
    pfs_ts_reset(r->ts, 0);
    double t0 = mono();
    for (uint64_t i = 0; i < r->n; i++)
        pfs_ts_add(r->ts, (double)i * 1e-5, 1u << 20, r->lat[i & (TABLE - 1)]);
    return (mono() - t0) * 1e9 / (double)r->n;
}

static double clock_cost(clockid_t id, uint64_t n)
{
    struct timespec ts;
    volatile long sink = 0;
    double t0 = mono();
    for (uint64_t i = 0; i < n; i++) {
        clock_gettime(id, &ts);
        sink += ts.tv_nsec;
    }
    return (mono() - t0) * 1e9 / (double)n;
}

static void report(const char *what, double *ns, int reps)
{
    qsort(ns, (size_t)reps, sizeof(double), cmp);
    printf("%-38s median %6.2f ns per op (min %.2f, max %.2f)\n", what, ns[reps / 2], ns[0], ns[reps - 1]);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000ULL;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n == 0 || reps < 1 || reps > 99) {
        fprintf(stderr, "usage: bench_hist [N [REPS]]\n");
        return 2;
    }
    uint64_t *lat = malloc(TABLE * sizeof(*lat));
    struct pfs_hist *h = malloc(sizeof(*h));
    struct pfs_tseries ts;
    if (!lat || !h || pfs_ts_init(&ts, 0, 1.0, PFS_TS_CAP_DEFAULT) != 0) {
        fprintf(stderr, "bench_hist: out of memory\n");
        return 1;
    }
    make_table(lat);
    struct run r = {.lat = lat, .n = n, .h = h, .ts = &ts};
    printf("bench_hist: %llu operations x %d; sizeof(struct pfs_hist) %zu B, pfs_ts_bytes(%u) %zu B\n",
           (unsigned long long)n, reps, sizeof(struct pfs_hist), PFS_TS_CAP_DEFAULT,
           pfs_ts_bytes(PFS_TS_CAP_DEFAULT));
    struct {
        const char *what;
        double (*fn)(struct run *);
    } loops[] = {{"table walk (the floor)", walk}, {"pfs_hist_add", hist_add}, {"pfs_ts_add (1 s, cap 512)", ts_add}};
    double ns[100];
    for (unsigned l = 0; l < sizeof(loops) / sizeof(loops[0]); l++) {
        for (int k = 0; k < reps; k++)
            ns[k] = loops[l].fn(&r);
        report(loops[l].what, ns, reps);
    }
    printf("  (check: %llu ops, p50 %.0f ns, p99 %.0f ns; series %u slots of %.0f s)\n",
           (unsigned long long)h->count, pfs_hist_quantile(h, 0.5), pfs_hist_quantile(h, 0.99), ts.n, ts.dt);
    static const struct {
        const char *what;
        clockid_t id;
    } clocks[] = {{"clock_gettime(CLOCK_MONOTONIC)", CLOCK_MONOTONIC},
                  {"clock_gettime(CLOCK_REALTIME)", CLOCK_REALTIME},
                  {"clock_gettime(CLOCK_MONOTONIC_COARSE)", CLOCK_MONOTONIC_COARSE}};
    uint64_t nc = n / 5 ? n / 5 : 1; /* clock reads are slower: fewer of them */
    for (unsigned c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
        for (int k = 0; k < reps; k++)
            ns[k] = clock_cost(clocks[c].id, nc);
        report(clocks[c].what, ns, reps);
    }
    pfs_ts_free(&ts);
    free(h);
    free(lat);
    return 0;
}
