/* --ranks LIST: a rank sweep inside one MPI job. For each point k, the
 * first k ranks in round-robin order across nodes (pfs/jobfile.h) form a
 * communicator of their own and do one run; the others wait, polling
 * gently (a blocking collective would spin on the cores the run needs), in
 * the non-blocking agreement that ends the point. With --total the block
 * is divided per point (the PixStor seed's method); each point is a run of
 * its own, labelled ID:n=K as pfs-sweep labels its runs, so pfs-compare and
 * pfs-plot read both alike. One start-up for the whole sweep. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodes.h"
#include "pfs/jobfile.h"

#define MAX_POINTS 64

/* The command line of every point: argv without --ranks and --label, then
 * the point's label. words must hold argc + 2 entries; label[] is its. */
static int point_words(int argc, char **argv, char **words, char *label, size_t len, const char *id, int k)
{
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i > 0 && (strcmp(a, "--ranks") == 0 || strcmp(a, "--label") == 0)) {
            i++;
            continue;
        }
        if (i > 0 && (strncmp(a, "--ranks=", 8) == 0 || strncmp(a, "--label=", 8) == 0))
            continue;
        words[n++] = argv[i];
    }
    snprintf(label, len, "--label=%s:n=%d", id, k);
    words[n++] = label;
    words[n] = NULL;
    return n;
}

/* Collective over comm. Every point's configuration resolves (e.g.
 * --total divides by its ranks) before the first runs: 0, or exit 2. */
static int check_points(int rank, const struct pfs_config *cfg, const int *pts, int npts)
{
    char err[PFS_ERRLEN];
    for (int i = 0; i < npts; i++) {
        struct pfs_config c = *cfg;
        if (pfs_config_resolve(&c, pts[i], err, sizeof(err)) != 0) {
            if (rank == 0)
                fprintf(stderr, "pfsbench: error: --ranks point %d: %s\n", pts[i], err);
            return PFS_EXIT_USAGE;
        }
    }
    return 0;
}

int *drv_rank_nodes(MPI_Comm comm, int *nnodes)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    char host[PFS_HOST_MAX] = "", pname[MPI_MAX_PROCESSOR_NAME];
    int hlen = 0;
    MPI_Get_processor_name(pname, &hlen);
    snprintf(host, sizeof(host), "%.*s", PFS_HOST_MAX - 1, pname);
    /* By shared memory where the names agree with it, else by name, as
     * the placement decides (topology.c); each rank sends one int. */
    struct drv_nodes n;
    int flags = drv_node_split(comm, host, 0, &n), any = 0;
    flags |= drv_node_names_clash(&n, host, comm);
    MPI_Allreduce(&flags, &any, 1, MPI_INT, MPI_BOR, comm);
    if (any & 3) {
        drv_node_free(&n);
        flags = drv_node_split(comm, host, 1, &n);
        MPI_Allreduce(&flags, &any, 1, MPI_INT, MPI_BOR, comm);
    }
    int *node = calloc((size_t)nranks, sizeof(int));
    int bad = !node || (any & 8), worst = 0;
    MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (!worst) {
        MPI_Allgather(&n.node, 1, MPI_INT, node, 1, MPI_INT, comm);
        *nnodes = n.nnodes;
    }
    drv_node_free(&n);
    if (worst) {
        free(node);
        return NULL;
    }
    return node;
}

/* Collective over comm. The round-robin order of this job's ranks. */
static int *sweep_order(MPI_Comm comm, int nranks)
{
    int nnodes = 0;
    int *node = drv_rank_nodes(comm, &nnodes), *order = calloc((size_t)nranks, sizeof(int));
    int bad = !node || !order || pfs_ranks_round_robin(node, nranks, nnodes, order) != 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    free(node);
    if (any) {
        free(order);
        return NULL;
    }
    return order;
}

void drv_wait_allreduce(MPI_Comm comm, const int *in, int *out, int n)
{
    int done = 0;
    MPI_Request req;
    MPI_Iallreduce(in, out, n, MPI_INT, MPI_MAX, comm, &req);
    struct timespec nap = {0, 1000000};
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&nap, NULL);
}

/* Collective over comm: the worst exit status of a point. */
static int end_point(MPI_Comm comm, int rc)
{
    int worst = 0;
    drv_wait_allreduce(comm, &rc, &worst, 1);
    return worst;
}

/* Collective over comm: the points in turn. Returns the first failing
 * point's status (0 when all passed); an interrupted point ends the sweep. */
static int run_points(MPI_Comm comm, int rank, const int *order, const int *pts, int npts, int argc, char **argv,
                      const char *id, const struct drv_job *job)
{
    int nranks, me = 0, first = 0;
    MPI_Comm_size(comm, &nranks);
    while (order[me] != rank)
        me++; /* my place in the order */
    char **words = calloc((size_t)argc + 2, sizeof(*words));
    char label[sizeof(((struct pfs_config *)0)->label) + 32];
    int nw = words ? point_words(argc, argv, words, label, sizeof(label), id, 0) : 0;
    for (int i = 0; i < npts && words; i++) {
        point_words(argc, argv, words, label, sizeof(label), id, pts[i]);
        if (rank == 0)
            fprintf(stderr, "pfsbench: rank sweep %s: %d of %d ranks (point %d of %d)\n", id, pts[i], nranks, i + 1, npts);
        MPI_Comm sub = MPI_COMM_NULL;
        MPI_Comm_split(comm, me < pts[i] ? 0 : MPI_UNDEFINED, me, &sub);
        int rc = 0;
        if (sub != MPI_COMM_NULL) {
            rc = drv_run_one(sub, nw, words, job);
            MPI_Comm_free(&sub);
        }
        rc = end_point(comm, rc);
        if (rc && !first)
            first = rc;
        if (rc > 128)
            break;
    }
    free(words);
    return words ? first : PFS_EXIT_IO;
}

int drv_sweep_run(MPI_Comm comm, const struct pfs_config *cfg, int argc, char **argv, const struct drv_job *job)
{
    int rank, nranks, pts[MAX_POINTS];
    char err[PFS_ERRLEN];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    int npts = pfs_ranks_points(cfg->ranks, nranks, pts, MAX_POINTS, err, sizeof(err));
    if (npts < 0) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        return PFS_EXIT_USAGE;
    }
    int rc = check_points(rank, cfg, pts, npts);
    if (rc)
        return rc;
    int *order = sweep_order(comm, nranks);
    if (!order) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: --ranks: out of memory for the placement\n");
        return PFS_EXIT_IO;
    }
    const char *id = cfg->label[0] ? cfg->label : job ? job->section : "sweep";
    rc = run_points(comm, rank, order, pts, npts, argc, argv, id, job);
    free(order);
    return rc;
}
