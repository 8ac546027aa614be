/* bench_reduce: the per-phase cost of pfsbench's agreements, gather and
 * reductions, without any I/O.
 *
 * Mimics what the run driver (src/mpi/phases.c) does between two timed phases,
 * with its own watched collectives (src/mpi/agree.c):
 *
 *   after a phase   agreement (MPI_Allreduce of one int, MAX; under
 *                   --timeout the watched form: a message to rank 0 plus an
 *                   MPI_Iallreduce polled with 1 ms naps), MPI_Gather of
 *                   struct pfs_times to rank 0, and on rank 0 the clock
 *                   corrections and pfs_report_row() (pfs_phase_reduce,
 *                   pfs_node_reduce, pfs_stragglers, one formatted row);
 *   before a phase  agreement + barrier (MPI_Allreduce of two ints, SUM).
 *
 * Each iteration starts at a barrier. Every rank stamps (CLOCK_REALTIME,
 * one machine, one clock) when it starts (a), when it is done with the
 * after-phase step (b) and when it leaves the next phase's agreement (c).
 * Reported per iteration, over ranks:
 *
 *   gap   min(c) - max(a): from the last rank finishing a phase to the first
 *         rank starting the next, what pfsbench's raw times show between phases
 *   span  max(c) - max(a): until every rank has started the next phase
 *   rank0 rank 0's own b - a (the gather and the reductions)
 *
 * and their median, 90th percentile and maximum over iterations, in ms.
 *
 *   mpirun -np N bench_reduce [-i ITERS] [-N NODES] [-w TIMEOUT] [-r ROW_FILE]
 *
 * -N pretends NODES nodes (round-robin) for the per-node reduction (default:
 * the real placement from MPI_Get_processor_name); -w uses the watched
 * agreements (pfsbench --timeout); -r writes the report rows to ROW_FILE
 * instead of /dev/null. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/report.h"

#include "agree.h" /* the driver's own watched collectives (src/mpi) */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats_ms(double *v, int n, double *med, double *p90, double *max)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    *med = 1e3 * (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
    *p90 = 1e3 * v[(int)(0.9 * (n - 1) + 0.5)];
    *max = 1e3 * v[n - 1];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    int iters = 40, fake_nodes = 0, watched = 0;
    const char *rowfile = "/dev/null";
    int opt;
    while ((opt = getopt(argc, argv, "i:N:wr:h")) != -1) {
        switch (opt) {
        case 'i': iters = atoi(optarg); break;
        case 'N': fake_nodes = atoi(optarg); break;
        case 'w': watched = 1; break;
        case 'r': rowfile = optarg; break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np N bench_reduce [-i ITERS] [-N NODES] [-w] [-r ROW_FILE]\n");
            MPI_Finalize();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (iters < 1)
        iters = 1;
    const int warm = 3, total = iters + warm;

    /* Placement as pfsbench finds it. */
    char host[PFS_HOST_MAX], pname[MPI_MAX_PROCESSOR_NAME];
    int hl = 0;
    MPI_Get_processor_name(pname, &hl);
    snprintf(host, sizeof(host), "%.*s", PFS_HOST_MAX - 1, pname);
    char (*hosts)[PFS_HOST_MAX] = calloc((size_t)nranks, PFS_HOST_MAX);
    int *node = calloc((size_t)nranks, sizeof(int));
    MPI_Allgather(host, PFS_HOST_MAX, MPI_CHAR, hosts, PFS_HOST_MAX, MPI_CHAR, comm);
    int nnodes;
    if (fake_nodes > 0) {
        nnodes = fake_nodes < nranks ? fake_nodes : nranks;
        for (int r = 0; r < nranks; r++) {
            node[r] = r % nnodes;
            snprintf(hosts[r], PFS_HOST_MAX, "node%d", node[r] + 1);
        }
    } else {
        nnodes = pfs_placement_nodes((const char(*)[PFS_HOST_MAX])hosts, nranks, node);
        if (nnodes < 0) {
            fprintf(stderr, "bench_reduce: rank %d: no memory to number the nodes\n", rank);
            MPI_Abort(comm, 1);
        }
    }

    /* Rank 0's record, as in pfs_main(): one phase, `total` repetitions. */
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    cfg.phases[0] = PFS_PH_WRITE;
    cfg.nphases = 1;
    cfg.reps = total;
    struct pfs_run_data d;
    memset(&d, 0, sizeof(d));
    struct pfs_times *times = NULL, *gathered = NULL;
    double *corr = calloc((size_t)nranks, sizeof(double));
    FILE *rows = NULL;
    if (rank == 0) {
        times = calloc((size_t)total * (size_t)nranks, sizeof(*times));
        gathered = calloc((size_t)nranks, sizeof(*gathered));
        rows = fopen(rowfile, "w");
        if (!rows)
            rows = fopen("/dev/null", "w");
        d.cfg = &cfg;
        d.nranks = nranks;
        d.nnodes = nnodes;
        d.hosts = (const char(*)[PFS_HOST_MAX])hosts;
        d.node_of_rank = node;
        d.nphases = 1;
        d.reps = total;
        d.times = times;
    }
    double *ta = calloc((size_t)total, sizeof(double)), *tb = calloc((size_t)total, sizeof(double)),
           *tc = calloc((size_t)total, sizeof(double));

    /* The watched form never gives up here (no one stalls): its cost is the point. */
    struct pfs_agree ag = {.comm = comm, .rank = rank, .nranks = nranks, .timeout = watched ? 1e9 : 0,
                           .host = host, .root_host = hosts[0]};
    for (int it = 0; it < total; it++) {
        struct pfs_times t;
        memset(&t, 0, sizeof(t));
        MPI_Barrier(comm);
        double a = now();
        /* What the phase left behind: plausible times, one block. */
        t.open_start = a - 1.0;
        t.open_end = a - 0.999;
        t.xfer_end = a - 0.01;
        t.close_end = a;
        t.bytes = 1ULL << 30;
        t.xfers = 1024;
        /* After the phase: agreement, gather, rank 0 reduces and prints. */
        int mine = 0, any = 0;
        pfs_agree_allreduce(&ag, &mine, &any, 1, MPI_INT, MPI_MAX, a, "the end of a phase");
        pfs_agree_gather(&ag, &t, (int)sizeof(t), gathered, a, "a phase");
        if (rank == 0) {
            struct pfs_times *dst = times + (size_t)it * (size_t)nranks;
            for (int r = 0; r < nranks; r++) {
                dst[r] = gathered[r];
                dst[r].open_start += corr[r];
                dst[r].open_end += corr[r];
                dst[r].xfer_end += corr[r];
                dst[r].close_end += corr[r];
                if (dst[r].sw_end > 0)
                    dst[r].sw_end += corr[r];
            }
            pfs_report_row(rows, &d, 0, it);
            fflush(rows);
        }
        double b = now();
        /* Before the next phase: agreement and barrier in one. */
        int pre[2] = {0, 0}, sum[2];
        pfs_agree_allreduce(&ag, pre, sum, 2, MPI_INT, MPI_SUM, b, "the start of a phase");
        double c = now();
        ta[it] = a, tb[it] = b, tc[it] = c;
    }

    /* Untimed: the extremes over ranks, per iteration. */
    double *amax = calloc((size_t)total, sizeof(double)), *cmin = calloc((size_t)total, sizeof(double)),
           *cmax = calloc((size_t)total, sizeof(double));
    MPI_Reduce(ta, amax, total, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(tc, cmin, total, MPI_DOUBLE, MPI_MIN, 0, comm);
    MPI_Reduce(tc, cmax, total, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        double *gap = malloc(sizeof(double) * (size_t)iters), *span = malloc(sizeof(double) * (size_t)iters),
               *own = malloc(sizeof(double) * (size_t)iters);
        for (int i = 0; i < iters; i++) {
            int it = i + warm;
            gap[i] = cmin[it] - amax[it];
            span[i] = cmax[it] - amax[it];
            own[i] = tb[it] - ta[it];
        }
        printf("reductions: %d ranks on %d node%s, %d iterations (+%d warm-up), %s agreements\n", nranks, nnodes,
               nnodes == 1 ? "" : "s", iters, warm, watched ? "watched (--timeout)" : "plain");
        printf("%-44s %10s %10s %10s\n", "per phase", "median ms", "p90 ms", "max ms");
        double m, p, x;
        stats_ms(gap, iters, &m, &p, &x);
        printf("%-44s %10.3f %10.3f %10.3f\n", "gap: last rank done -> first rank starts", m, p, x);
        stats_ms(span, iters, &m, &p, &x);
        printf("%-44s %10.3f %10.3f %10.3f\n", "span: last rank done -> all ranks started", m, p, x);
        stats_ms(own, iters, &m, &p, &x);
        printf("%-44s %10.3f %10.3f %10.3f\n", "rank 0: agreement+gather+reduce+row", m, p, x);
        free(gap), free(span), free(own);
        fclose(rows);
    }
    free(amax), free(cmin), free(cmax), free(ta), free(tb), free(tc);
    free(hosts), free(node), free(corr), free(times), free(gathered);
    MPI_Finalize();
    return 0;
}
