/* bench_mpi_init: a trivial MPI program, the baseline for start-up time and
 * memory. Every rank stamps CLOCK_REALTIME when MPI_Init returns; rank 0
 * prints the earliest and the latest (one machine, one clock):
 *
 *   init_done_min <epoch s>
 *   init_done_max <epoch s>
 *
 * and nothing else. With -b it also runs one barrier and prints when the
 * last rank left it (init_barrier_max): the earliest moment a program could
 * start timed I/O with every rank ready. With -c it also builds the
 * communicators pfsbench builds at start-up (topology.c, progress.c: a
 * duplicate of the world, the node by shared memory, the node leaders) and
 * runs one collective on each: the baseline that tells Open MPI's cost of
 * those communicators from pfsbench's own memory. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t = now();
    int rank, barrier = argc > 1 && strcmp(argv[1], "-b") == 0, comms = argc > 1 && strcmp(argv[1], "-c") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (comms) {
        MPI_Comm dup, node, leaders;
        int me, x = rank, y = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &me);
        MPI_Comm_split(dup, me == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, dup);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, node);
        if (leaders != MPI_COMM_NULL) {
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, leaders);
            MPI_Comm_free(&leaders);
        }
        MPI_Comm_free(&node);
        MPI_Comm_free(&dup);
    }
    double lo = 0, hi = 0, tb = 0, bhi = 0;
    if (barrier) {
        MPI_Barrier(MPI_COMM_WORLD);
        tb = now();
    }
    MPI_Reduce(&t, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tb, &bhi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("init_done_min %.6f\ninit_done_max %.6f\n", lo, hi);
        if (barrier)
            printf("init_barrier_max %.6f\n", bhi);
    }
    MPI_Finalize();
    return 0;
}
