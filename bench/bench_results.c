/* bench_results: how long the HDF5 results writer takes for a large run.
 *
 * Builds a synthetic struct pfs_run_data the way rank 0 holds one at the end
 * of a run (ranks x phases x repetitions of struct pfs_times, placement,
 * clock corrections, warnings) and times pfs_results_append() on it: first
 * into a new file, then appending the same run again to the growing file
 * (an append copies the existing file first, for crash safety, so later
 * appends cost more). Every append is checked for success. No MPI_Init:
 * the writer makes serial HDF5 calls only (as tests/unit/test_results.c).
 *
 *   bench_results [-n RANKS] [-N NODES] [-p PHASES] [-i REPS] [-a APPENDS] [-d DIR] [-k]
 *
 * Defaults: 1024 ranks on 32 nodes, 4 phases (write,rewrite,read,reread),
 * 10 repetitions, 3 appends, in a new directory under /tmp (removed unless
 * -k). Prints one row per append: seconds and the file size after it. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/report.h"
#include "pfs/results.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

int main(int argc, char **argv)
{
    int nranks = 1024, nnodes = 32, nphases = 4, reps = 10, appends = 3, keep = 0;
    const char *base = "/tmp";
    int opt;
    while ((opt = getopt(argc, argv, "n:N:p:i:a:d:kh")) != -1) {
        switch (opt) {
        case 'n': nranks = atoi(optarg); break;
        case 'N': nnodes = atoi(optarg); break;
        case 'p': nphases = atoi(optarg); break;
        case 'i': reps = atoi(optarg); break;
        case 'a': appends = atoi(optarg); break;
        case 'd': base = optarg; break;
        case 'k': keep = 1; break;
        default:
            fprintf(stderr, "usage: bench_results [-n RANKS] [-N NODES] [-p PHASES(1-4)] [-i REPS] "
                            "[-a APPENDS] [-d DIR] [-k]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (nranks < 1 || nnodes < 1 || nnodes > nranks || nphases < 1 || nphases > PFS_PH_KINDS || reps < 1 ||
        appends < 1) {
        fprintf(stderr, "bench_results: need RANKS >= NODES >= 1, PHASES 1..%d, REPS >= 1, APPENDS >= 1\n",
                PFS_PH_KINDS);
        return 2;
    }

    char dir[PFS_PATH_MAX - 16], path[PFS_PATH_MAX];
    if (strlen(base) > sizeof(dir) - 32) {
        fprintf(stderr, "bench_results: directory name too long\n");
        return 2;
    }
    snprintf(dir, sizeof(dir), "%.*s/pfs_bench_results.XXXXXX", (int)(sizeof(dir) - 32), base);
    if (!mkdtemp(dir)) {
        perror("bench_results: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/r.h5", dir);

    /* The configuration of a plausible large run: 1 MiB transfers, 1 GiB per rank. */
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    snprintf(cfg.dir, sizeof(cfg.dir), "/scratch/pfs");
    cfg.transfer = 1ULL << 20;
    cfg.block = 1ULL << 30;
    cfg.total = cfg.block * (uint64_t)nranks;
    static const int kinds[] = {PFS_PH_WRITE, PFS_PH_REWRITE, PFS_PH_READ, PFS_PH_REREAD};
    for (int p = 0; p < nphases; p++)
        cfg.phases[p] = kinds[p];
    cfg.nphases = nphases;
    cfg.reps = reps;
    cfg.fsync = 1;
    snprintf(cfg.label, sizeof(cfg.label), "bench_results");
    snprintf(cfg.results, sizeof(cfg.results), "%s", path);

    char (*hosts)[PFS_HOST_MAX] = calloc((size_t)nranks, PFS_HOST_MAX);
    int *node = calloc((size_t)nranks, sizeof(int));
    double *corr = calloc((size_t)nranks, sizeof(double)), *unc = calloc((size_t)nranks, sizeof(double));
    size_t nt = (size_t)nphases * (size_t)reps * (size_t)nranks;
    struct pfs_times *times = calloc(nt, sizeof(*times));
    int *reps_done = calloc((size_t)nphases, sizeof(int));
    if (!hosts || !node || !corr || !unc || !times || !reps_done) {
        fprintf(stderr, "bench_results: out of memory\n");
        return 1;
    }
    for (int r = 0; r < nranks; r++) {
        node[r] = r % nnodes; /* round-robin, as --map-by node */
        snprintf(hosts[r], PFS_HOST_MAX, "cn%04d.cluster.example.org", node[r] + 1);
        corr[r] = node[r] ? 1e-4 * (double)(pfs_mix64((uint64_t)node[r]) % 1000) / 1000.0 : 0;
        unc[r] = 2e-6;
    }
    /* Times: phases a minute apart, ~1 s each, a little per-rank jitter. */
    const double t0 = 1.7e9;
    for (int p = 0; p < nphases; p++)
        for (int k = 0; k < reps; k++)
            for (int r = 0; r < nranks; r++) {
                struct pfs_times *t = &times[((size_t)p * (size_t)reps + (size_t)k) * (size_t)nranks + (size_t)r];
                double jit = (double)(pfs_mix64(((uint64_t)p << 48) ^ ((uint64_t)k << 32) ^ (uint64_t)r) % 10000) * 1e-6;
                t->open_start = t0 + 60.0 * (p * reps + k) + jit * 0.1;
                t->open_end = t->open_start + 1e-4 + jit * 0.01;
                t->xfer_end = t->open_end + 1.0 + jit;
                t->close_end = t->xfer_end + (pfs_phase_is_write(kinds[p]) ? 0.05 : 0.001);
                t->bytes = cfg.block;
                t->xfers = cfg.block / cfg.transfer;
            }
    for (int p = 0; p < nphases; p++)
        reps_done[p] = reps;

    struct pfs_run_data d;
    memset(&d, 0, sizeof(d));
    d.cfg = &cfg;
    snprintf(d.run_id, sizeof(d.run_id), "20250101-000000-b3c4d5");
    d.seed = 0x5046534245ULL;
    snprintf(d.start_iso, sizeof(d.start_iso), "2025-01-01T00:00:00Z");
    snprintf(d.end_iso, sizeof(d.end_iso), "2025-01-01T01:00:00Z");
    d.status = "complete";
    d.cmdline = "pfsbench -d /scratch/pfs -t 1m -b 1g -p write,rewrite,read,reread -i 10 -e --label bench_results";
    d.mpi_version = "Open MPI v4.1.4 (bench_results, synthetic)";
    snprintf(d.fstype, sizeof(d.fstype), "lustre");
    d.nranks = nranks;
    d.nnodes = nnodes;
    d.hosts = (const char(*)[PFS_HOST_MAX])hosts;
    d.node_of_rank = node;
    d.clock_corr = corr;
    d.clock_unc = unc;
    d.nphases = nphases;
    d.reps = reps;
    d.times = times;
    d.reps_done = reps_done;
    pfs_run_warn(&d, "synthetic run for bench_results");
    /* Rank 0 computes the figures as it records each repetition, their
     * statistics at the end (pfs/figures.h): the writer formats them. */
    double f0 = now();
    if (pfs_run_figures(&d) != 0) {
        fprintf(stderr, "bench_results: no memory for the figures\n");
        return 1;
    }
    printf("figures: %.4f s (every repetition's, then the statistics)\n", now() - f0);

    printf("results writer: %d ranks on %d nodes x %d phases x %d reps = %zu rank records (%.1f MiB of times), "
           "HDF5 %s, file %s\n",
           nranks, nnodes, nphases, reps, nt, (double)(nt * sizeof(*times)) / 1048576.0,
           pfs_results_hdf5_version(), path);
    printf("%-8s %10s %12s\n", "append", "seconds", "file MiB");
    int rc = 0;
    for (int a = 1; a <= appends; a++) {
        char name[64], err[PFS_ERRLEN];
        double s0 = now();
        int r = pfs_results_append(path, &d, name, sizeof(name), err, sizeof(err));
        double s1 = now();
        if (r != 0) {
            fprintf(stderr, "bench_results: append %d failed: %s\n", a, err);
            rc = 1;
            break;
        }
        struct stat st;
        double mib = stat(path, &st) == 0 ? (double)st.st_size / 1048576.0 : -1;
        printf("%-8d %10.4f %12.2f\n", a, s1 - s0, mib);
        fflush(stdout);
    }
    if (!keep)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("kept %s\n", path);
    free(hosts), free(node), free(corr), free(unc), free(times), free(reps_done);
    return rc;
}
