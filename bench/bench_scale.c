/* bench_scale: what rank 0's end-of-run work costs as streams and nodes grow
 * (issue 19, the scale model; docs/performance.md "Scale").
 *
 * Builds, without MPI, the struct pfs_run_data rank 0 holds at the end of a
 * run of N streams on K nodes (round-robin placement, as --map-by node; -P
 * block for ranks in blocks), PHASES x REPS repetitions of struct pfs_times,
 * host names, clock corrections, CPU affinity, and per phase and repetition
 * the latency record latency.c leaves: the run's histograms, one OP histogram
 * per node and a time series of INTERVALS slots per node. Then it times each
 * step rank 0 (or every rank) does with it and the heap it needs:
 *
 *   reduce   the end-of-run reductions: per phase and repetition
 *            pfs_phase_reduce, pfs_node_reduce, pfs_node_rates,
 *            pfs_stragglers; per phase pfs_stats_compute over repetitions
 *   phase    the work between two phases, per phase (mean of PHASES x REPS):
 *            drv_record_phase's clock correction of N records, latency.c's
 *            store() of K node records, the repetition's figures
 *            (pfs_figures_add), pfs_report_row (to /dev/null)
 *   nodes    pfs_placement_nodes over N host names (every rank does it at start-up)
 *   checks   pfs_placement_is_even, pfs_placement_is_round_robin, and the lowest-
 *            rank-on-node loop of topology.c for the last rank (its worst case)
 *   finish   the statistics over repetitions (pfs_figures_finish)
 *   text     the text report (header, columns, every row, summary) to /dev/null
 *   json     pfs_report_json to /dev/null
 *   append   pfs_results_append to a new file under DIR (/dev/shm)
 *
 * Memory: the peak of live heap bytes (malloc, calloc, realloc, memalign ...
 * of this program and of every library, HDF5 included: this executable
 * defines them, so it sees every call) above what was live when the step
 * began, in MiB. Calloc'ed pages that are never touched count (an upper
 * bound on RSS). "data" is the synthetic record itself. ru_maxrss of the
 * process is printed after each case as a check.
 *
 * A step whose time, predicted from the last case with the same N or the
 * same K (assuming it grows as N x K), exceeds -b SECONDS is skipped and
 * printed as "skip". Usage:
 *
 *   bench_scale [-n N,N,..] [-k K,K,..] [-p PHASES] [-i REPS] [-I INTERVALS]
 *               [-d DIR] [-b SECONDS] [-P rr|block] [-s STEPS] [-c CSV]
 *
 * Defaults: N = 1000,10000,100000,1000000; K = 10,100,1000,10000 (pairs
 * with N < K skipped); 4 phases x 3 repetitions; 60 intervals; /dev/shm;
 * 60 s; all steps. -c appends one CSV row per case (for the fits). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/hist.h"
#include "pfs/latency.h"
#include "pfs/report.h"
#include "pfs/results.h"

/* ---- heap accounting: this executable's malloc family wins over libc's ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static size_t heap_live, heap_peak;

static void *account(void *p)
{
    if (p) {
        size_t n = __atomic_add_fetch(&heap_live, malloc_usable_size(p), __ATOMIC_RELAXED);
        if (n > heap_peak)
            heap_peak = n;
    }
    return p;
}

static void unaccount(void *p)
{
    if (p)
        __atomic_sub_fetch(&heap_live, malloc_usable_size(p), __ATOMIC_RELAXED);
}

void *malloc(size_t n) { return account(__libc_malloc(n)); }
void *calloc(size_t a, size_t b) { return account(__libc_calloc(a, b)); }
void free(void *p)
{
    unaccount(p);
    __libc_free(p);
}
void *realloc(void *p, size_t n)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, n);
    if (q || n == 0)
        __atomic_sub_fetch(&heap_live, old, __ATOMIC_RELAXED);
    return q ? account(q) : NULL;
}
void *memalign(size_t a, size_t n) { return account(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return account(__libc_memalign(a, n)); }
void *valloc(size_t n) { return account(__libc_memalign(4096, n)); }
void *pvalloc(size_t n) { return account(__libc_memalign(4096, (n + 4095) & ~(size_t)4095)); }
int posix_memalign(void **out, size_t a, size_t n)
{
    void *p = __libc_memalign(a, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = account(p);
    return 0;
}

/* ---- the synthetic run ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double mib(size_t b) { return (double)b / 1048576.0; }

struct synth {
    struct pfs_config cfg;
    struct pfs_run_data d;
    char (*hosts)[PFS_HOST_MAX];
    int *node;
    double *corr, *unc;
    struct pfs_affinity *aff;
    struct pfs_times *times;
    int *reps_done;
    struct pfs_phase_lat *lat;
};

/* A histogram of n operations around ~center ns, spread over some 40 buckets. */
static void hist_fill(struct pfs_hist *h, uint64_t seed, uint64_t n, uint64_t center)
{
    pfs_hist_reset(h);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t v = center / 2 + (pfs_mix64(seed ^ i) % (2 * center));
        uint64_t k = n / 64 + (i < n % 64);
        if (!k)
            continue;
        unsigned b = pfs_hist_index(v);
        h->b[b] += k;
        h->count += k;
        h->sum_ns += k * v;
        h->min_ns = v < h->min_ns ? v : h->min_ns;
        h->max_ns = v > h->max_ns ? v : h->max_ns;
    }
}

static int synth_build(struct synth *s, int N, int K, int nphases, int reps, int nint, int block, const char *path)
{
    memset(s, 0, sizeof(*s));
    struct pfs_config *cfg = &s->cfg;
    pfs_config_defaults(cfg);
    snprintf(cfg->dir, sizeof(cfg->dir), "/scratch/pfs");
    cfg->transfer = 1ULL << 20;
    cfg->block = 1ULL << 30;
    cfg->total = cfg->block * (uint64_t)N;
    static const int kinds[] = {PFS_PH_WRITE, PFS_PH_REWRITE, PFS_PH_READ, PFS_PH_REREAD};
    for (int p = 0; p < nphases; p++)
        cfg->phases[p] = kinds[p % 4];
    cfg->nphases = nphases;
    cfg->reps = reps;
    cfg->fsync = 1;
    snprintf(cfg->label, sizeof(cfg->label), "bench_scale");
    snprintf(cfg->results, sizeof(cfg->results), "%s", path);

    const size_t R = (size_t)nphases * (size_t)reps;
    s->hosts = calloc((size_t)N, PFS_HOST_MAX);
    s->node = calloc((size_t)N, sizeof(int));
    s->corr = calloc((size_t)N, sizeof(double));
    s->unc = calloc((size_t)N, sizeof(double));
    s->aff = calloc((size_t)N, sizeof(*s->aff));
    s->times = calloc(R * (size_t)N, sizeof(*s->times));
    s->reps_done = calloc((size_t)nphases, sizeof(int));
    s->lat = calloc(R, sizeof(*s->lat));
    if (!s->hosts || !s->node || !s->corr || !s->unc || !s->aff || !s->times || !s->reps_done || !s->lat)
        return -1;
    const int per = (N + K - 1) / K;
    for (int r = 0; r < N; r++) {
        s->node[r] = block ? r / per : r % K;
        snprintf(s->hosts[r], PFS_HOST_MAX, "cn%05d.cluster.example.org", s->node[r] + 1);
        s->corr[r] = s->node[r] ? 1e-4 * (double)(pfs_mix64((uint64_t)s->node[r]) % 1000) / 1000.0 : 0;
        s->unc[r] = 2e-6;
        snprintf(s->aff[r].cpu_affinity, sizeof(s->aff[r].cpu_affinity), "%d", r % 64);
        snprintf(s->aff[r].numa_nodes, sizeof(s->aff[r].numa_nodes), "%d", (r % 64) / 32);
        s->aff[r].cpus = 1;
    }
    int nn = 0; /* block placement may leave fewer nodes than asked */
    for (int r = 0; r < N; r++)
        nn = s->node[r] + 1 > nn ? s->node[r] + 1 : nn;
    K = nn;
    const double t0 = 1.7e9;
    for (int p = 0; p < nphases; p++)
        for (int k = 0; k < reps; k++) {
            size_t e = (size_t)p * (size_t)reps + (size_t)k;
            for (int r = 0; r < N; r++) {
                struct pfs_times *t = &s->times[e * (size_t)N + (size_t)r];
                double jit = (double)(pfs_mix64((e << 40) ^ (uint64_t)r) % 10000) * 1e-6;
                t->open_start = t0 + 120.0 * (double)e + jit * 0.1;
                t->open_end = t->open_start + 1e-4 + jit * 0.01;
                t->xfer_end = t->open_end + 60.0 + jit;
                t->close_end = t->xfer_end + (pfs_phase_is_write(kinds[p % 4]) ? 0.05 : 0.001);
                t->bytes = cfg->block;
                t->xfers = cfg->block / cfg->transfer;
                t->cpu_user = 0.5, t->cpu_sys = 2.0;
            }
            /* The latency record of latency.c's store(). */
            struct pfs_phase_lat *l = &s->lat[e];
            l->run = malloc(sizeof(struct pfs_hist) * PFS_LAT_KINDS);
            l->node_op = calloc((size_t)K, sizeof(struct pfs_hist));
            l->run_ts = calloc((size_t)nint, sizeof(struct pfs_tslot));
            l->node_ts = calloc((size_t)nint * (size_t)K, sizeof(struct pfs_node_tslot));
            if (!l->run || !l->node_op || !l->run_ts || !l->node_ts)
                return -1;
            const uint64_t ops = (uint64_t)N * 1024;
            for (int kind = 0; kind < PFS_LAT_KINDS; kind++)
                hist_fill(&l->run[kind], e * 8 + (uint64_t)kind, kind ? (uint64_t)N : ops, kind ? 20000 : 800000);
            for (int n = 0; n < K; n++)
                hist_fill(&l->node_op[n], (e << 32) ^ (uint64_t)n, ops / (uint64_t)K, 800000);
            for (int i = 0; i < nint; i++) {
                struct pfs_tslot *ts = &l->run_ts[i];
                ts->bytes = (uint64_t)N << 24;
                ts->ops = (uint64_t)N * 16;
                ts->max_ns = 5000000;
                ts->h[pfs_ts_index(800000)] = (uint32_t)(ts->ops > UINT32_MAX ? UINT32_MAX : ts->ops);
                for (int n = 0; n < K; n++)
                    l->node_ts[(size_t)i * (size_t)K + (size_t)n] = (struct pfs_node_tslot){
                        .bytes = ts->bytes / (uint64_t)K, .ops = ts->ops / (uint64_t)K,
                        .p50_ns = 8e5, .p99_ns = 2e6, .max_ns = 5e6};
            }
            l->nnodes = K;
            l->t0 = t0 + 120.0 * (double)e;
            l->dt = l->base_dt = 1.0;
            l->nint = (uint32_t)nint;
            l->valid = 1;
        }
    for (int p = 0; p < nphases; p++)
        s->reps_done[p] = reps;

    struct pfs_run_data *d = &s->d;
    d->cfg = cfg;
    snprintf(d->run_id, sizeof(d->run_id), "20250101-000000-5ca1e0");
    d->seed = 0x5046534245ULL;
    snprintf(d->start_iso, sizeof(d->start_iso), "2025-01-01T00:00:00Z");
    snprintf(d->end_iso, sizeof(d->end_iso), "2025-01-01T01:00:00Z");
    d->status = "complete";
    d->cmdline = "pfsbench -d /scratch/pfs -t 1m -b 1g -p write,rewrite,read,reread -i 3 -e --label bench_scale";
    d->mpi_version = "Open MPI v4.1.4 (bench_scale, synthetic)";
    snprintf(d->fstype, sizeof(d->fstype), "lustre");
    d->nranks = N;
    d->nnodes = K;
    d->hosts = (const char(*)[PFS_HOST_MAX])s->hosts;
    d->node_of_rank = s->node;
    d->clock_corr = s->corr;
    d->clock_unc = s->unc;
    d->affinity = s->aff;
    d->threads = 1;
    d->nstreams = N;
    d->nphases = nphases;
    d->reps = reps;
    d->times = s->times;
    d->reps_done = s->reps_done;
    d->lat = s->lat;
    pfs_run_warn(d, "synthetic run for bench_scale");
    /* The figures, as rank 0 has them at the end (step_phase times their
     * per-repetition part, step_finish the rest). */
    if (pfs_run_figures(d) != 0)
        return -1;
    return K;
}

static void synth_free(struct synth *s)
{
    for (int i = 0; s->lat && i < s->cfg.nphases * s->cfg.reps; i++)
        pfs_lat_free(&s->lat[i]);
    free(s->lat);
    free(s->hosts), free(s->node), free(s->corr), free(s->unc), free(s->aff), free(s->times), free(s->reps_done);
    pfs_run_release(&s->d);
}

/* ---- the steps ---- */

static volatile double sink; /* keeps the reductions' results alive */

static int step_reduce(struct synth *s, FILE *devnull)
{
    (void)devnull;
    const struct pfs_run_data *d = &s->d;
    const int N = d->nstreams, K = d->nnodes, reps = d->reps;
    uint64_t *nb = calloc((size_t)K, sizeof(uint64_t));
    double *ns = calloc((size_t)K, sizeof(double)), *bw = calloc((size_t)K, sizeof(double)),
           *rate = calloc((size_t)K, sizeof(double)), *val = calloc((size_t)reps, sizeof(double));
    int *flag = calloc((size_t)K, sizeof(int));
    int rc = nb && ns && bw && rate && val && flag ? 0 : -1;
    for (int p = 0; p < d->nphases && rc == 0; p++) {
        for (int k = 0; k < reps && rc == 0; k++) {
            const struct pfs_times *t = pfs_run_times(d, p, k);
            struct pfs_phase_stat st;
            pfs_phase_reduce(t, N, &st);
            if (pfs_node_reduce(t, d->node_of_rank, N, K, nb, ns, bw) < 0 ||
                pfs_node_rates(t, d->node_of_rank, N, K, rate) < 0)
                rc = -1;
            sink += pfs_stragglers(bw, K, d->cfg->straggler, flag);
            val[k] = st.bandwidth;
        }
        struct pfs_stats ss;
        pfs_stats_compute(val, reps, &ss);
        sink += ss.median;
    }
    free(nb), free(ns), free(bw), free(rate), free(val), free(flag);
    return rc;
}

/* One phase's work between phases, done for every phase and repetition;
 * the caller divides by their count. */
static int step_phase(struct synth *s, FILE *devnull)
{
    const struct pfs_run_data *d = &s->d;
    const int N = d->nstreams, K = d->nnodes;
    struct pfs_times *gathered = malloc(sizeof(*gathered) * (size_t)N);
    if (!gathered)
        return -1;
    for (int p = 0; p < d->nphases; p++)
        for (int k = 0; k < d->reps; k++) {
            struct pfs_times *dst = s->times + ((size_t)p * (size_t)d->reps + (size_t)k) * (size_t)N;
            memcpy(gathered, dst, sizeof(*gathered) * (size_t)N); /* what the gather delivered */
            for (int r = 0; r < N; r++) { /* drv_record_phase: onto rank 0's clock (a zero correction) */
                double c = 0 * s->corr[r];
                dst[r] = gathered[r];
                dst[r].open_start += c, dst[r].open_end += c, dst[r].xfer_end += c, dst[r].close_end += c;
            }
            /* latency.c store(): K node records (histogram + nint slots) into the phase's record */
            struct pfs_phase_lat *l = &s->lat[(size_t)p * (size_t)d->reps + (size_t)k];
            for (int n = 0; n < K; n++) {
                struct pfs_hist tmp;
                memcpy(&tmp, &l->node_op[n], sizeof(tmp));
                memcpy(&l->node_op[n], &tmp, sizeof(tmp));
                for (uint32_t i = 0; i < l->nint; i++) {
                    struct pfs_node_tslot *o = &l->node_ts[(size_t)i * (size_t)K + (size_t)n];
                    struct pfs_node_tslot x = *o;
                    *o = x;
                }
            }
            pfs_figures_add(&s->d.fig, &s->d, p, k); /* drv_record_phase: the repetition's figures */
            pfs_report_row(devnull, d, p, k);
        }
    free(gathered);
    return 0;
}

static int step_nodes(struct synth *s, FILE *devnull)
{
    (void)devnull;
    int *node = malloc(sizeof(int) * (size_t)s->d.nranks);
    if (!node)
        return -1;
    int nn = pfs_placement_nodes(s->d.hosts, s->d.nranks, node);
    int same = nn == s->d.nnodes && memcmp(node, s->node, sizeof(int) * (size_t)s->d.nranks) == 0;
    free(node);
    return same ? 0 : -1;
}

static int step_checks(struct synth *s, FILE *devnull)
{
    (void)devnull;
    const int N = s->d.nranks, K = s->d.nnodes;
    sink += pfs_placement_is_even(s->node, N, K);
    sink += pfs_placement_is_round_robin(s->node, N, K);
    int lowest = 1, me = N - 1; /* topology.c, the last rank */
    for (int q = 0; q < me; q++)
        if (s->node[q] == s->node[me])
            lowest = 0;
    sink += lowest;
    return 0;
}

/* The end of the run: the statistics over repetitions (pfs_figures_finish). */
static int step_finish(struct synth *s, FILE *devnull)
{
    (void)devnull;
    pfs_figures_finish(&s->d.fig, &s->d);
    return 0;
}

static int step_text(struct synth *s, FILE *devnull)
{
    const struct pfs_run_data *d = &s->d;
    pfs_report_header(devnull, d);
    pfs_report_columns(devnull, d);
    for (int p = 0; p < d->nphases; p++)
        for (int k = 0; k < d->reps; k++)
            pfs_report_row(devnull, d, p, k);
    pfs_report_summary(devnull, d);
    fflush(devnull);
    return 0;
}

static int step_json(struct synth *s, FILE *devnull)
{
    pfs_report_json(devnull, &s->d);
    fflush(devnull);
    return 0;
}

static int step_append(struct synth *s, FILE *devnull)
{
    (void)devnull;
    char name[64], err[PFS_ERRLEN];
    unlink(s->cfg.results);
    int rc = pfs_results_append(s->cfg.results, &s->d, name, sizeof(name), err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "bench_scale: append failed: %s\n", err);
    return rc;
}

static const struct step {
    const char *name;
    int (*fn)(struct synth *, FILE *);
    int per_phase; /* the time is divided by phases x repetitions */
} steps[] = {
    {"reduce", step_reduce, 0}, {"phase", step_phase, 1}, {"nodes", step_nodes, 0}, {"checks", step_checks, 0},
    {"finish", step_finish, 0}, {"text", step_text, 0},     {"json", step_json, 0},   {"append", step_append, 0},
};
#define NSTEPS (int)(sizeof(steps) / sizeof(steps[0]))

static int parse_list(const char *s, long *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        double x = strtod(s, &end);
        if (end == s)
            return -1;
        if (*end == 'k' || *end == 'K')
            x *= 1e3, end++;
        else if (*end == 'm' || *end == 'M')
            x *= 1e6, end++;
        v[n++] = (long)x;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

/* Last measured (N, K, seconds) per step, for the skip prediction. */
struct seen {
    long n, k;
    double t;
};

int main(int argc, char **argv)
{
    long Ns[16] = {1000, 10000, 100000, 1000000}, Ks[16] = {10, 100, 1000, 10000};
    int nN = 4, nK = 4, nphases = 4, reps = 3, nint = 60, block = 0;
    double budget = 60;
    const char *dir = "/dev/shm", *only = NULL, *csv = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "n:k:p:i:I:d:b:P:s:c:h")) != -1) {
        switch (opt) {
        case 'n': nN = parse_list(optarg, Ns, 16); break;
        case 'k': nK = parse_list(optarg, Ks, 16); break;
        case 'p': nphases = atoi(optarg); break;
        case 'i': reps = atoi(optarg); break;
        case 'I': nint = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 'b': budget = atof(optarg); break;
        case 'P': block = strcmp(optarg, "block") == 0; break;
        case 's': only = optarg; break;
        case 'c': csv = optarg; break;
        default:
            fprintf(stderr, "usage: bench_scale [-n N,..] [-k K,..] [-p PHASES] [-i REPS] [-I INTERVALS] [-d DIR] "
                            "[-b SECONDS] [-P rr|block] [-s STEP,..] [-c CSV]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (nN < 1 || nK < 1 || nphases < 1 || nphases > PFS_MAX_PHASES || reps < 1 || nint < 1 || nint > PFS_TS_CAP_DEFAULT) {
        fprintf(stderr, "bench_scale: bad arguments\n");
        return 2;
    }
    char path[PFS_PATH_MAX];
    snprintf(path, sizeof(path), "%.900s/bench_scale.%d.h5", dir, (int)getpid());
    FILE *devnull = fopen("/dev/null", "w");
    FILE *out = csv ? fopen(csv, "a") : NULL;
    if (!devnull || (csv && !out)) {
        perror("bench_scale");
        return 1;
    }
    printf("bench_scale: %d phases x %d reps, %d intervals, %s placement, HDF5 %s, results file in %s; "
           "s = seconds, MiB = peak heap above the step's start\n",
           nphases, reps, nint, block ? "block" : "round-robin", pfs_results_hdf5_version(), dir);
    printf("%8s %6s %8s", "N", "nodes", "data MiB");
    for (int i = 0; i < NSTEPS; i++)
        if (!only || strstr(only, steps[i].name))
            printf(" | %-6s %8s %7s", steps[i].name, "s", "MiB");
    printf(" | maxrss MiB\n");
    fflush(stdout);
    struct seen seen[NSTEPS];
    memset(seen, 0, sizeof(seen));
    int rc = 0;
    for (int a = 0; a < nN; a++)
        for (int b = 0; b < nK; b++) {
            long N = Ns[a], K = Ks[b];
            if (N < K)
                continue;
            struct synth s;
            size_t before = heap_live;
            int k = synth_build(&s, (int)N, (int)K, nphases, reps, nint, block, path);
            if (k < 0) {
                fprintf(stderr, "bench_scale: out of memory building %ld x %ld\n", N, K);
                synth_free(&s);
                rc = 1;
                continue;
            }
            size_t data = heap_live - before;
            printf("%8ld %6d %8.1f", N, k, mib(data));
            if (out)
                fprintf(out, "%ld,%d,%s,%d,%d,data,%.6f,%.3f\n", N, k, block ? "block" : "rr", nphases, reps, 0.0,
                        mib(data));
            fflush(stdout);
            for (int i = 0; i < NSTEPS; i++) {
                if (only && !strstr(only, steps[i].name))
                    continue;
                double pred = seen[i].n ? seen[i].t * ((double)N / (double)seen[i].n) * ((double)K / (double)seen[i].k)
                                        : 0;
                if (pred > budget) {
                    printf(" | %-6s %8s %7s", steps[i].name, "skip", "-");
                    if (out)
                        fprintf(out, "%ld,%d,%s,%d,%d,%s,skip,%.1f\n", N, k, block ? "block" : "rr", nphases, reps,
                                steps[i].name, pred);
                    fflush(stdout);
                    continue;
                }
                size_t base = heap_live;
                heap_peak = base;
                double t0 = now();
                int r = steps[i].fn(&s, devnull);
                double t = now() - t0;
                size_t peak = heap_peak - base;
                seen[i] = (struct seen){N, K, t};
                if (steps[i].per_phase)
                    t /= (double)(nphases * reps);
                printf(" | %-6s %8.4f %7.1f", steps[i].name, t, mib(peak));
                if (out)
                    fprintf(out, "%ld,%d,%s,%d,%d,%s,%.6f,%.3f\n", N, k, block ? "block" : "rr", nphases, reps,
                            steps[i].name, t, mib(peak));
                fflush(stdout);
                if (r != 0) {
                    printf(" FAILED");
                    rc = 1;
                }
            }
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            printf(" | %.0f\n", (double)ru.ru_maxrss / 1024.0);
            fflush(stdout);
            if (out)
                fflush(out);
            synth_free(&s);
            unlink(path);
        }
    if (out)
        fclose(out);
    fclose(devnull);
    return rc;
}
