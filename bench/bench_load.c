/* What the load building blocks (issue 30) cost per call, in a plain
 * process (no MPI).
 *
 *   bench_load [N [REPS]]
 *       the median of REPS (default 7) runs of N calls (default
 *       20,000,000), in ns per call, by the wall clock and by the thread's
 *       CPU clock (on a shared machine the CPU clock leaves out the time
 *       other processes took).
 *       Fills and checks: N / 1000 of 4 KiB, N / 100,000 of 1 MiB.
 *   bench_load deciles SPEC BLOCKS DRAWS [SCRAMBLE [SEED]]
 *       the hits of DRAWS draws of SPEC (pfs/dist.h syntax) over BLOCKS
 *       blocks, per tenth of the blocks by position ("pos") and per tenth
 *       of the blocks ranked by their hits ("hot"), as fractions; what
 *       bench/dist-vs-fio.sh compares with fio's.
 *   bench_load content COMPRESS DEDUPE UNIT BYTES
 *       BYTES of pfs/content.h's content (seed 1, writer 0, from offset 0)
 *       on stdout; what bench/content-vs-fio.sh measures beside fio's.
 *
 * No assertion on speed: figures for docs/performance.md. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/clock.h"
#include "pfs/content.h"
#include "pfs/dist.h"
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

static uint64_t run_dist(void *ctx, uint64_t n)
{
    struct pfs_dist *d = ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += pfs_dist_next(d);
    return s;
}

static uint64_t run_mix(void *ctx, uint64_t n)
{
    struct pfs_mix *m = ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += pfs_mix_next(m);
    return s;
}

struct fill_ctx {
    struct pfs_content ct;
    unsigned char *buf;
    size_t len;
    int check;
};

static uint64_t run_fill(void *ctx, uint64_t n)
{
    struct fill_ctx *f = ctx;
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (f->check) { /* the buffer as filled at offset 0: a check that passes */
            size_t at;
            uint64_t e, g;
            s += pfs_content_check(&f->ct, f->buf, f->len, 1, 0, &at, &e, &g);
        } else { /* over 1024 transfers' offsets: 4 MiB of 4 KiB units, 41 groups */
            pfs_content_fill(&f->ct, f->buf, f->len, 1, (i & 1023) * f->len);
            s += f->buf[f->len / 2];
        }
    }
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

static struct pfs_dist *dist(const char *spec, int scramble)
{
    static struct pfs_dist d[16];
    static int used;
    struct pfs_dist_spec sp;
    char err[256];
    if (used == 16 || pfs_dist_parse(spec, &sp, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_load: %s\n", err);
        exit(1);
    }
    sp.scramble = scramble;
    if (pfs_dist_init(&d[used], &sp, 262144, 1, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_load: %s\n", err);
        exit(1);
    }
    return &d[used++];
}

static struct fill_ctx *fill(int compress, int dedupe, size_t len, int check)
{
    static struct fill_ctx f[16];
    static int used;
    char err[256];
    const struct pfs_content_spec sp = {.compress = compress, .dedupe = dedupe, .unit = 4096};
    struct fill_ctx *x = &f[used++];
    x->buf = aligned_alloc(4096, len);
    x->len = len;
    x->check = check;
    if (!x->buf || pfs_content_init(&x->ct, &sp, 7, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_load: no memory, or %s\n", err);
        exit(1);
    }
    pfs_content_fill(&x->ct, x->buf, len, 1, 0);
    return x;
}

static int costs(uint64_t n, int reps)
{
    static struct pfs_clock tsc, mono;
    static struct pfs_sched fixed, poisson;
    static struct pfs_mix rw, bs;
    char err[256];
    pfs_clock_init(&tsc, 1, 0);
    pfs_clock_init(&mono, 0, 0);
    pfs_sched_init(&fixed, 1e5, PFS_ARR_FIXED, 1, 0, 0);
    pfs_sched_init(&poisson, 1e5, PFS_ARR_POISSON, 1, 0, 0);
    pfs_mix_rw(&rw, 70, 1, 0);
    if (pfs_bssplit_parse("4k/50:64k/30:1m/20", &bs, err, sizeof(err)) != 0)
        return 1;
    pfs_mix_key(&bs, 1, 0);
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
        {"pfs_dist_next uniform", run_dist, dist("uniform", 1), 1},
        {"pfs_dist_next zipf:1.2", run_dist, dist("zipf:1.2", 0), 1},
        {"pfs_dist_next zipf:1.2 scrambled", run_dist, dist("zipf:1.2", 1), 1},
        {"pfs_dist_next pareto:0.2", run_dist, dist("pareto:0.2", 0), 1},
        {"pfs_dist_next pareto:0.2 scrambled", run_dist, dist("pareto:0.2", 1), 1},
        {"pfs_dist_next normal:5", run_dist, dist("normal:5", 0), 1},
        {"pfs_dist_next normal:5 scrambled", run_dist, dist("normal:5", 1), 1},
        {"pfs_mix_next rwmix 70", run_mix, &rw, 1},
        {"pfs_mix_next bssplit (3 sizes)", run_mix, &bs, 1},
        {"fill 4 KiB plain (the pattern)", run_fill, fill(0, 0, 4096, 0), 1000},
        {"fill 4 KiB compress 50", run_fill, fill(50, 0, 4096, 0), 1000},
        {"fill 4 KiB dedupe 50", run_fill, fill(0, 50, 4096, 0), 1000},
        {"fill 4 KiB compress 50 dedupe 50", run_fill, fill(50, 50, 4096, 0), 1000},
        {"check 4 KiB plain", run_fill, fill(0, 0, 4096, 1), 1000},
        {"check 4 KiB compress 50 dedupe 50", run_fill, fill(50, 50, 4096, 1), 1000},
        {"fill 1 MiB plain", run_fill, fill(0, 0, 1 << 20, 0), 100000},
        {"fill 1 MiB compress 50 dedupe 50", run_fill, fill(50, 50, 1 << 20, 0), 100000},
    };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        measure(&all[i], n, reps);
    return 0;
}

static int cmp_u32_desc(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

static int deciles(int argc, char **argv)
{
    struct pfs_dist_spec sp;
    char err[256];
    if (argc < 5 || pfs_dist_parse(argv[2], &sp, err, sizeof(err)) != 0) {
        fprintf(stderr, "usage: bench_load deciles SPEC BLOCKS DRAWS [SCRAMBLE [SEED]]%s%s\n", argc < 5 ? "" : ": ",
                argc < 5 ? "" : err);
        return 2;
    }
    const uint64_t n = strtoull(argv[3], NULL, 10), draws = strtoull(argv[4], NULL, 10);
    sp.scramble = argc > 5 ? atoi(argv[5]) : 1;
    const uint64_t seed = argc > 6 ? strtoull(argv[6], NULL, 10) : 1;
    struct pfs_dist d;
    uint32_t *h = n ? calloc(n, sizeof(*h)) : NULL;
    if (!h || pfs_dist_init(&d, &sp, n, seed, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_load: %s\n", h ? err : "no memory");
        return 1;
    }
    for (uint64_t k = 0; k < draws; k++)
        h[pfs_dist_next(&d)]++;
    double pos[10] = {0}, hot[10] = {0};
    for (uint64_t b = 0; b < n; b++)
        pos[b * 10 / n] += h[b];
    qsort(h, n, sizeof(*h), cmp_u32_desc);
    for (uint64_t b = 0; b < n; b++)
        hot[b * 10 / n] += h[b];
    printf("pos");
    for (int i = 0; i < 10; i++)
        printf(" %.6f", pos[i] / (double)draws);
    printf("\nhot");
    for (int i = 0; i < 10; i++)
        printf(" %.6f", hot[i] / (double)draws);
    printf("\n");
    free(h);
    return 0;
}

static int content(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_load content COMPRESS DEDUPE UNIT BYTES\n");
        return 2;
    }
    const struct pfs_content_spec sp = {.compress = atoi(argv[2]), .dedupe = atoi(argv[3]),
                                        .unit = strtoull(argv[4], NULL, 10)};
    const uint64_t total = strtoull(argv[5], NULL, 10);
    struct pfs_content ct;
    char err[256];
    static unsigned char buf[1 << 20];
    if (pfs_content_init(&ct, &sp, 1, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_load: %s\n", err);
        return 2;
    }
    for (uint64_t off = 0; off < total; off += sizeof(buf)) {
        const size_t n = total - off < sizeof(buf) ? (size_t)(total - off) : sizeof(buf);
        pfs_content_fill(&ct, buf, n, 0, off);
        if (fwrite(buf, 1, n, stdout) != n)
            return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "deciles") == 0)
        return deciles(argc, argv);
    if (argc > 1 && strcmp(argv[1], "content") == 0)
        return content(argc, argv);
    const uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
    const int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 100000 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_load [N (>= 100000) [REPS (1..64)]] | deciles SPEC BLOCKS DRAWS [SCRAMBLE [SEED]]"
                        " | content COMPRESS DEDUPE UNIT BYTES\n");
        return 2;
    }
    return costs(n, reps);
}
