/* What the page-cache probe (pfs/pagecache.h) costs a stream, per phase,
 * outside the timed region: pfs_pc_probe over a file of SIZE MiB per
 * stream, with cachestat and with mincore, the file all cached and all
 * dropped; and one stream's transfers of a shared strided file of two
 * streams (one range per transfer) at 2 MiB, IO500's 47,008 bytes and 4 KiB.
 *
 *   bench_pagecache DIR [SIZE_MIB [REPS]]
 *
 * DIR must be on a disk file system (posix_fadvise drops its clean pages).
 * Makes DIR/bench_pagecache.PID.{fpp,shared} (SIZE and 2 x SIZE MiB) and
 * removes them. Prints the median of REPS (default 5) probes in ms. No
 * assertion on speed: figures for docs/performance.md. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/pagecache.h"

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

/* size bytes of zeros, synced: all in the cache, none dirty. */
static int make(const char *path, uint64_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const size_t chunk = 8u << 20;
    char *buf = calloc(1, chunk);
    for (uint64_t off = 0; buf && off < size; off += chunk)
        if (pwrite(fd, buf, chunk, (off_t)off) != (ssize_t)chunk) {
            free(buf);
            close(fd);
            return -1;
        }
    free(buf);
    fdatasync(fd);
    return fd;
}

/* The median of reps probes of t, in ms; the resident share of the last. */
static double probe_ms(const struct pfs_pc_target *t, unsigned use, int reps, double *share, int *method)
{
    double ms[64];
    struct pfs_pc_count c = {0, 0, 0};
    for (int i = 0; i < reps; i++) {
        double t0 = mono();
        *method = pfs_pc_probe(t, use, 0, &c);
        ms[i] = (mono() - t0) * 1e3;
    }
    qsort(ms, (size_t)reps, sizeof(double), cmp);
    *share = c.bytes ? (double)c.resident / (double)c.bytes : 0;
    return ms[reps / 2];
}

static void row(const char *what, const struct pfs_pc_target *t, int reps)
{
    static const unsigned use[2] = {PFS_PC_USE_CACHESTAT, PFS_PC_USE_MINCORE};
    for (int u = 0; u < 2; u++) {
        double share;
        int m;
        double ms = probe_ms(t, use[u], reps, &share, &m);
        printf("%-44s %-10s %10.3f %9.1f%%\n", what, pfs_pc_method_name(m), ms, 100.0 * share);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [SIZE_MIB [REPS]]\n", argv[0]);
        return 2;
    }
    const uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 1024;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
    const uint64_t size = mib << 20;
    char fpp[4096], shared[4096];
    snprintf(fpp, sizeof(fpp), "%s/bench_pagecache.%d.fpp", argv[1], (int)getpid());
    snprintf(shared, sizeof(shared), "%s/bench_pagecache.%d.shared", argv[1], (int)getpid());
    /* Each file is probed right after it is made: another program's
     * drop_caches (a test's --drop-caches) empties the whole machine's cache. */
    int f1 = make(fpp, size), f2 = -1;
    if (f1 < 0) {
        perror("bench_pagecache: making the file");
        unlink(fpp);
        return 1;
    }
    printf("%-44s %-10s %10s %10s\n", "probe of one stream's file", "method", "median ms", "resident");
    struct pfs_pc_target t = {fpp, NULL, 0, PFS_LAYOUT_SEGMENTED, 0, 1, size, 1u << 20, mib, 1};
    char what[96];
    snprintf(what, sizeof(what), "file per stream, %llu MiB, cached", (unsigned long long)mib);
    row(what, &t, reps);
    posix_fadvise(f1, 0, 0, POSIX_FADV_DONTNEED);
    snprintf(what, sizeof(what), "file per stream, %llu MiB, dropped", (unsigned long long)mib);
    row(what, &t, reps);
    close(f1);
    unlink(fpp);
    if ((f2 = make(shared, 2 * size)) < 0) {
        perror("bench_pagecache: making the shared file");
        unlink(shared);
        return 1;
    }
    /* Stream 0 of 2 in a strided shared file: its transfers alternate with stream 1's. */
    static const uint64_t xfer[3] = {2u << 20, 47008, 4096};
    for (int i = 0; i < 3; i++) {
        struct pfs_pc_target s = {shared, NULL, 1, PFS_LAYOUT_STRIDED, 0, 2, size, xfer[i], size / xfer[i], 1};
        snprintf(what, sizeof(what), "shared strided, -t %llu, %llu ranges", (unsigned long long)xfer[i],
                 (unsigned long long)(size / xfer[i]));
        row(what, &s, reps);
    }
    close(f2);
    unlink(shared);
    return 0;
}
