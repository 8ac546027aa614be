/* The ceilings for tests/mpi/test_ceiling_*.sh, and a plain MPI bandwidth
 * loop to hold the network one against.
 *
 *   ceiling_probe net MSG_KIB ROUNDS [WINDOW]   pfs_ceiling_network on a copy of the job's communicator
 *   ceiling_probe net-sub MSG_KIB ROUNDS        the same on a communicator without the last node's ranks
 *   ceiling_probe loop MSG_KIB ROUNDS [WINDOW]  a plain loop: the nodes' first ranks (by host name)
 *                                               MPI_Sendrecv round a ring, one message at a time;
 *                                               WINDOW > 1: that many MPI_Isend/MPI_Irecv in flight
 *                                               each way per round (osu_bibw's shape)
 *   ceiling_probe mem [THREADS]                 pfs_ceiling_memory, no MPI at all
 *
 * Rank 0 of the communicator prints "nodes N", one "node I HOST MIBS" per
 * node and "job MIBS min MIBS median MIBS max MIBS"; mem prints one line of
 * figures. A failure prints "error: ..." and exits 1 on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"
#include "pfs/ceiling.h"

#define HOST 64

static int mem(int threads)
{
    struct pfs_mem_ceiling m;
    char err[256];
    if (pfs_ceiling_memory(threads, &m, err, sizeof(err)) != 0) {
        printf("error: %s\n", err);
        return 1;
    }
    printf("mem one_into %.1f one_from %.1f all_into %.1f all_from %.1f threads %d pinned %d region %zu transfer %zu\n",
           m.one_into, m.one_from, m.all_into, m.all_from, m.threads, m.pinned, m.region, m.transfer);
    return 0;
}

/* The library's measurement on comm, which leads its node by shared memory. */
static int net(MPI_Comm comm, size_t msg, int rounds, int window)
{
    MPI_Comm node;
    int rank, nrank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_free(&node);
    struct pfs_net_opts o = {.message = msg, .rounds = rounds, .window = window};
    struct pfs_net_ceiling c;
    char err[256];
    if (pfs_ceiling_network(comm, nrank == 0, &o, &c, err, sizeof(err)) != 0) {
        if (rank == 0)
            printf("error: %s\n", err);
        return 1;
    }
    if (rank == 0) {
        printf("nodes %d\n", c.nnodes);
        for (int i = 0; c.node && c.nnodes > 1 && i < c.nnodes; i++)
            printf("node %d %s %.1f\n", i, c.node[i].host, c.node[i].mibs);
        printf("job %.1f min %.1f median %.1f max %.1f slowest %d bytes %llu\n", c.job_mibs, c.min_mibs,
               c.median_mibs, c.max_mibs, c.slowest, (unsigned long long)c.bytes_per_node);
    }
    /* every rank has the job's figures: rank 1 says so too */
    if (rank == 1)
        printf("rank1 nodes %d job %.1f\n", c.nnodes, c.job_mibs);
    pfs_net_ceiling_free(&c);
    return 0;
}

/* One round of the plain loop: a blocking exchange, or w messages each
 * way in flight (rbuf room for w). */
static void round_of(char *s, char *rbuf, size_t msg, int w, int to, int from, MPI_Comm lc)
{
    if (w <= 1) {
        MPI_Sendrecv(s, (int)msg, MPI_BYTE, to, 1, rbuf, (int)msg, MPI_BYTE, from, 1, lc, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Request rq[128];
    for (int i = 0; i < w; i++) {
        MPI_Irecv(rbuf + (size_t)i * msg, (int)msg, MPI_BYTE, from, 1, lc, &rq[i]);
        MPI_Isend(s, (int)msg, MPI_BYTE, to, 1, lc, &rq[w + i]);
    }
    MPI_Waitall(2 * w, rq, MPI_STATUSES_IGNORE);
}

/* The plain loop: nodes by host name, exchanges round the ring. */
static int loop(MPI_Comm comm, size_t msg, int rounds, int window)
{
    const int w = window > 1 ? (window < 64 ? window : 64) : 1;
    int rank, size, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char me[HOST] = "", *names = calloc((size_t)size, HOST);
    MPI_Get_processor_name(me, &len);
    MPI_Allgather(me, HOST, MPI_CHAR, names, HOST, MPI_CHAR, comm);
    int first = 1;
    for (int r = 0; r < rank && first; r++)
        first = strncmp(names + (size_t)r * HOST, me, HOST) != 0;
    MPI_Comm lc;
    MPI_Comm_split(comm, first ? 0 : MPI_UNDEFINED, rank, &lc);
    if (first) {
        int node, nnodes;
        MPI_Comm_rank(lc, &node);
        MPI_Comm_size(lc, &nnodes);
        char *s = malloc(msg), *r = malloc(msg * (size_t)w);
        memset(s, 1, msg);
        int to = (node + 1) % nnodes, from = (node + nnodes - 1) % nnodes;
        round_of(s, r, msg, w, to, from, lc); /* untimed: the connections */
        MPI_Barrier(lc);
        double t0 = MPI_Wtime();
        for (int i = 0; i < rounds; i++)
            round_of(s, r, msg, w, to, from, lc);
        double secs = MPI_Wtime() - t0, *all = malloc((size_t)nnodes * sizeof(double));
        MPI_Gather(&secs, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, lc);
        if (node == 0) {
            double longest = 0, bytes = (double)msg * rounds * w;
            printf("nodes %d\n", nnodes);
            for (int i = 0; i < nnodes; i++) {
                printf("node %d - %.1f\n", i, bytes / all[i] / 1048576.0);
                longest = all[i] > longest ? all[i] : longest;
            }
            printf("job %.1f\n", bytes * nnodes / longest / 1048576.0);
        }
        free(s), free(r), free(all);
        MPI_Comm_free(&lc);
    }
    free(names);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "mem") == 0)
        return mem(argc > 2 ? atoi(argv[2]) : 0);
    if (argc < 4) {
        fprintf(stderr, "usage: ceiling_probe net|net-sub|loop MSG_KIB ROUNDS [WINDOW] | mem [THREADS]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    size_t msg = (size_t)strtoull(argv[2], NULL, 10) << 10;
    int rounds = atoi(argv[3]), window = argc > 4 ? atoi(argv[4]) : 0, rc = 2;
    MPI_Comm comm;
    if (strcmp(argv[1], "net-sub") == 0) {
        /* Without the ranks of the last node (by shared memory): the
         * measurement must see only the communicator it is given. */
        MPI_Comm node;
        int rank, nrank, nnodes, last;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &nrank);
        int lead = nrank == 0, id;
        MPI_Allreduce(&lead, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Scan(&lead, &id, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* leaders numbered 1.. by rank */
        MPI_Bcast(&id, 1, MPI_INT, 0, node);                       /* a node's number, to all its ranks */
        last = id == nnodes;
        MPI_Comm_free(&node);
        MPI_Comm_split(MPI_COMM_WORLD, last ? MPI_UNDEFINED : 0, rank, &comm);
        rc = comm == MPI_COMM_NULL ? 0 : net(comm, msg, rounds, window);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        if (strcmp(argv[1], "net") == 0)
            rc = net(comm, msg, rounds, window);
        else if (strcmp(argv[1], "loop") == 0)
            rc = loop(comm, msg, rounds, window);
    }
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
