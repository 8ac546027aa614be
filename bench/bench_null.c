/* What pfsbench's transfer loop costs per transfer, without I/O: the null
 * backend driven by pfs_stream_run (the write phase) in a plain process (no MPI).
 *
 *   bench_null [N [ORDER [REPS [K]]]]   ORDER: seq (default), random, deadline
 *   (a clock read per transfer), verify (a write that fills 64-byte patterns);
 *   K: the stream keeps a latency record, as pfsbench's do (histograms, time
 *   series, --exemplars K: 0 keeps none); -1 (default): no record
 *
 * Prints the median of 5 runs of N transfers (default 10,000,000) in ns per
 * transfer. For instructions per transfer, run it under callgrind at two
 * counts and divide the difference (docs/engine-notes.md). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/backend.h"
#include "pfs/stream.h"

static uint64_t no_wearout(void *arg, struct pfs_stream *s, uint64_t done)
{
    (void)arg, (void)s;
    return done;
}

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

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ULL;
    const char *order = argc > 2 ? argv[2] : "seq";
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    int k = argc > 4 ? atoi(argv[4]) : -1;
    if (n == 0 || reps < 1 || reps > 99 || k < -1 || k > PFS_EXEMPLAR_MAX) {
        fprintf(stderr, "usage: bench_null [N [seq|random|deadline|verify [REPS [K: -1 .. 64]]]]\n");
        return 2;
    }
    static struct pfs_config cfg; /* static: large, and zeroed */
    pfs_config_defaults(&cfg);
    cfg.transfer = 64; /* the null backend ignores it; --verify fills and checks 64 bytes */
    cfg.block = n * cfg.transfer;
    cfg.random = !strcmp(order, "random");
    cfg.deadline = !strcmp(order, "deadline") ? 1e6 : 0;
    cfg.verify = !strcmp(order, "verify");
    volatile sig_atomic_t interrupted = 0;
    void *ctx = NULL;
    char err[256];
    if (pfs_backend_init(&pfs_backend_null, &ctx, &cfg, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_null: %s\n", err);
        return 1;
    }
    struct pfs_phase_ctx p = {
        .cfg = &cfg, .be = &pfs_backend_null, .bectx = ctx, .nstreams = 1, .seed = 1,
        .nxfers = n, .data_xfers = n, .interrupted = &interrupted, .wearout = no_wearout,
    };
    static struct pfs_stream s;
    static unsigned char buf[64] __attribute__((aligned(64)));
    s.buf = buf;
    if (k >= 0) { /* a record as the MPI layer gives each stream (drv_lat_alloc) */
        s.lat = calloc(1, sizeof(*s.lat));
        if (!s.lat || pfs_ts_init(&s.lat->ts, 0, 1.0, PFS_TS_CAP_DEFAULT) != 0) {
            fprintf(stderr, "bench_null: no memory for the latency record\n");
            return 1;
        }
        for (int i = 0; i < PFS_LAT_KINDS; i++)
            pfs_hist_reset(&s.lat->h[i]);
        pfs_exemplar_init(&s.lat->ex, (unsigned)k);
    }
    snprintf(s.path, sizeof(s.path), "/nonexistent/pfsbench.null.0");
    snprintf(s.rd_path, sizeof(s.rd_path), "%s", s.path);
    double ns[100];
    for (int r = 0; r < reps; r++) {
        p.kind = PFS_PH_WRITE;
        double t0 = mono();
        pfs_stream_run(&p, &s);
        ns[r] = (mono() - t0) * 1e9 / (double)n;
        if (s.fail.failed || s.t.xfers != n) {
            fprintf(stderr, "bench_null: %s failed: %s\n", s.fail.op, s.fail.detail);
            return 1;
        }
    }
    qsort(ns, (size_t)reps, sizeof(double), cmp);
    char rec[48] = "";
    if (k >= 0)
        snprintf(rec, sizeof(rec), ", latency record, exemplars %d", k);
    printf("null backend, %s%s, %llu transfers x %d: median %.2f ns per transfer (min %.2f, max %.2f)\n", order, rec,
           (unsigned long long)n, reps, ns[reps / 2], ns[0], ns[reps - 1]);
    pfs_backend_fini(&pfs_backend_null, ctx);
    return 0;
}
