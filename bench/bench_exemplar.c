/* What keeping tail exemplars costs per operation (pfs/exemplar.h), in a
 * plain process (no MPI).
 *
 *   bench_exemplar [-n N] [-r REPS] [-k K] [-d DIR]
 *
 * Three loops over a table of 1 Mi pseudo-random latencies made beforehand
 * (log-uniform, 1 us .. 100 ms), N operations each (default 50,000,000),
 * the median of REPS runs (default 5), in ns per operation:
 *   table walk   the loop alone, the floor under the others
 *   random       pfs_exemplar_add on those latencies (what a run sees)
 *   increasing   every operation slower than the last: each one enters
 *                the heap (the worst case, never seen in a run)
 * Then, with -d DIR (default /dev/shm; -d "" skips it), the same upkeep
 * against real transfers: pwrite of 4 KiB and of 1 MiB to a file of its
 * own made there (O_EXCL, removed at the end), each timed with two clock
 * reads as the stream loop does, in 101 short batches with and 101
 * without pfs_exemplar_add, alternating; the median batch of each, per
 * transfer, and the difference in percent (noise is a few percent on a
 * loaded machine: the per-operation figure above is the cost).
 * No assertion on speed: figures for the docs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs/exemplar.h"

#define TABLE (1u << 20)
#define MAXREPS 51
#define BATCHES 101

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* Keeps the compiler from dropping the walk. */
static volatile uint64_t sink;

enum loop { WALK, RANDOM, INCREASING };

static double run(enum loop which, const uint64_t *lat, uint64_t n, unsigned k)
{
    static struct pfs_exemplars x;
    pfs_exemplar_init(&x, k);
    uint64_t acc = 0, t0 = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = which == INCREASING ? i : lat[i & (TABLE - 1)];
        if (which == WALK)
            acc += d;
        else
            pfs_exemplar_add(&x, 1, i << 12, 4096, i, d);
    }
    uint64_t t1 = now_ns();
    sink = acc + x.seen + x.e[0].dur_ns;
    return (double)(t1 - t0) / (double)n;
}

/* ns per transfer of one batch of count transfers of size t over fd (the
 * same offsets each batch), with or without upkeep into x. */
static double batch(int fd, char *buf, size_t t, int count, struct pfs_exemplars *x)
{
    uint64_t t0 = now_ns();
    for (int i = 0; i < count; i++) {
        uint64_t off = (uint64_t)i * t, a = now_ns();
        if (pwrite(fd, buf, t, (off_t)off) != (ssize_t)t) {
            fprintf(stderr, "bench_exemplar: pwrite: %s\n", strerror(errno));
            exit(1);
        }
        uint64_t b = now_ns();
        if (x)
            pfs_exemplar_add(x, 1, off, t, a, b - a);
    }
    return (double)(now_ns() - t0) / count;
}

static void real_io(const char *dir, unsigned k)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/bench_exemplar.%d", dir, (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "bench_exemplar: cannot make %s: %s\n", path, strerror(errno));
        return;
    }
    static const size_t sizes[] = {4096, 1 << 20};
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 1 << 20) != 0) {
        close(fd);
        unlink(path);
        return;
    }
    memset(buf, 7, 1 << 20);
    printf("%-22s %12s %12s %8s\n", "pwrite to a file", "without ns", "with ns", "cost");
    for (size_t s = 0; s < 2; s++) {
        /* Short batches (about 10 ms), the two kinds alternating and each
         * going first every other time, so that the load of a shared
         * machine falls on both alike; the median batch of each. */
        int count = sizes[s] == 4096 ? 2048 : 16;
        double without[BATCHES], with[BATCHES];
        struct pfs_exemplars x;
        pfs_exemplar_init(&x, k);
        batch(fd, buf, sizes[s], count, NULL); /* the file's pages exist from here on */
        for (int r = 0; r < BATCHES; r++) {
            if (r % 2) {
                with[r] = batch(fd, buf, sizes[s], count, &x);
                without[r] = batch(fd, buf, sizes[s], count, NULL);
            } else {
                without[r] = batch(fd, buf, sizes[s], count, NULL);
                with[r] = batch(fd, buf, sizes[s], count, &x);
            }
        }
        double a = median(without, BATCHES), b = median(with, BATCHES);
        printf("%-22s %12.1f %12.1f %7.2f%%\n", sizes[s] == 4096 ? "4 KiB transfers" : "1 MiB transfers", a, b,
               100.0 * (b - a) / a);
    }
    free(buf);
    close(fd);
    unlink(path);
}

int main(int argc, char **argv)
{
    uint64_t n = 50000000;
    int reps = 5, opt;
    unsigned k = PFS_EXEMPLAR_K_DEFAULT;
    const char *dir = "/dev/shm";
    while ((opt = getopt(argc, argv, "n:r:k:d:h")) != -1) {
        switch (opt) {
        case 'n': n = strtoull(optarg, NULL, 10); break;
        case 'r': reps = atoi(optarg); break;
        case 'k': k = (unsigned)atoi(optarg); break;
        case 'd': dir = optarg; break;
        default:
            fprintf(stderr, "usage: bench_exemplar [-n N] [-r REPS] [-k K] [-d DIR]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (n == 0 || reps < 1 || reps > MAXREPS || k < 1 || k > PFS_EXEMPLAR_MAX) {
        fprintf(stderr, "bench_exemplar: -n > 0, -r 1..%d, -k 1..%d\n", MAXREPS, PFS_EXEMPLAR_MAX);
        return 2;
    }
    uint64_t *lat = malloc(TABLE * sizeof(*lat)), s = 1;
    if (!lat)
        return 1;
    for (unsigned i = 0; i < TABLE; i++) {
        double u = (double)(xorshift(&s) >> 11) * 0x1p-53;
        lat[i] = (uint64_t)exp(log(1e3) + u * (log(1e8) - log(1e3)));
    }
    static const char *names[] = {"table walk", "random", "increasing"};
    printf("exemplar upkeep, k %u, %llu operations, median of %d runs\n", k, (unsigned long long)n, reps);
    printf("%-22s %12s\n", "loop", "ns/op");
    for (int w = WALK; w <= INCREASING; w++) {
        double v[MAXREPS];
        for (int r = 0; r < reps; r++)
            v[r] = run((enum loop)w, lat, n, k);
        printf("%-22s %12.2f\n", names[w], median(v, reps));
    }
    free(lat);
    if (dir[0])
        real_io(dir, k);
    return 0;
}
