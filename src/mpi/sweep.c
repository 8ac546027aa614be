/* --ranks LIST: a rank sweep inside one MPI job. For each point k, the
 * first k ranks in round-robin order across nodes (pfs/jobfile.h) form a
 * communicator of their own and do one run; the others wait, polling
 * gently (a blocking collective would spin on the cores the run needs), in
 * the non-blocking agreement that ends the point. With --total the block
 * is divided per point (the PixStor seed's method); each point is a run of
 * its own, labelled ID:n=K as pfs-sweep labels its runs, so pfs-compare and
 * pfs-plot read both alike. One start-up for the whole sweep. A point its
 * watchdog gives up is recorded failed; the next points take their ranks
 * from those the job did not lose (survive.c), and a point that needs more
 * ranks than are left does not run. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodes.h"
#include "pfs/jobfile.h"
#include "survive.h"

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

/* The phase list starts from an earlier run's kept files (data or metadata). */
static int reads_kept(const struct pfs_config *cfg)
{
    if (pfs_config_md_kept(cfg))
        return 1;
    for (int i = 0; i < cfg->nphases; i++)
        if (!pfs_phase_is_meta(cfg->phases[i]))
            return !pfs_phase_has(cfg->phases[i], PFS_PHF_CREATES);
    return 0;
}

int drv_sweep_check(const struct pfs_config *cfg, int nranks, int rank0, char *err, size_t len)
{
    int pts[MAX_POINTS];
    const int npts = pfs_ranks_points(cfg->ranks, nranks, pts, MAX_POINTS, err, len);
    if (npts < 0)
        return -1;
    /* One run id names one run's files: each point would share them. */
    if (cfg->run_id[0] && cfg->keep) {
        snprintf(err, len, "--ranks with -k and --run-id %s: every point would keep its files under that one id, and "
                 "the second point's create would fail on the first's; leave out --run-id (each point gets its own)",
                 cfg->run_id);
        return -1;
    }
    if (cfg->file_name[0] && cfg->keep && pfs_phase_listed(cfg, PFS_PHASE_DATA, PFS_PHF_CREATES, 0)) {
        snprintf(err, len, "--ranks with -k and --file-name %s: every point would keep its files under that one name, "
                 "and the second point's write would find the first's there; leave out -k, or run each point on "
                 "its own with a --file-name of its own", cfg->file_name);
        return -1;
    }
    if (cfg->run_id[0] && reads_kept(cfg)) {
        snprintf(err, len, "--ranks with --run-id %s: every point would read that kept run with its own rank count, "
                 "but a kept run is read back by the ranks that wrote it; run it once, with its ranks", cfg->run_id);
        return -1;
    }
    char msg[PFS_ERRLEN];
    for (int i = 0; i < npts; i++) {
        struct pfs_config c = *cfg;
        if (pfs_config_resolve(&c, pts[i], msg, sizeof(msg)) != 0 ||
            (rank0 && drv_precheck_config(&c, pts[i], msg, sizeof(msg)) != 0)) {
            snprintf(err, len, "--ranks point %d: %.1900s", pts[i], msg);
            return -1;
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

/* The sweep's last line: how many points completed, failed, did not run. */
static void summarize(const char *id, int npts, int ran, int completed, int skipped, int why_not, char *out,
                      size_t len)
{
    size_t m = (size_t)snprintf(out, len, "pfsbench: rank sweep %s: %d of %d points completed", id, completed, npts);
    if (ran > completed && m < len)
        m += (size_t)snprintf(out + m, len - m, ", %d failed", ran - completed);
    if (skipped && m < len)
        m += (size_t)snprintf(out + m, len - m, ", %d not run (too few ranks left)", skipped);
    if (npts > ran + skipped && m < len)
        snprintf(out + m, len - m, ", %d not run (%s)", npts - ran - skipped,
                 why_not ? "interrupted" : "this rank left the job");
}

/* Collective over the live ranks: one point, on the first k ranks of the
 * order that the job has not lost. Its status, -1 when this rank parked, or
 * -2 when fewer than k ranks are left (nothing runs). */
static int run_point(struct drv_jobctl *jc, const int *order, int n, int k, int nw, char **words,
                     const struct drv_job *job, const char *id, int i, int npts)
{
    MPI_Comm live = drv_job_live(jc);
    int me = -1, avail = 0, lrank, top;
    MPI_Comm_rank(live, &lrank);
    top = drv_job_top_rank(jc, live, lrank);
    for (int j = 0; j < n; j++)
        if (!drv_job_is_lost(jc, order[j])) {
            if (order[j] == top)
                me = avail;
            avail++;
        }
    if (avail < k) {
        if (lrank == 0)
            fprintf(stderr, "pfsbench: rank sweep %s: point %d of %d needs %d ranks, %d are left: not run\n", id,
                    i + 1, npts, k, avail);
        return -2;
    }
    if (lrank == 0)
        fprintf(stderr, "pfsbench: rank sweep %s: %d of %d ranks (point %d of %d)\n", id, k, avail, i + 1, npts);
    drv_job_step(jc, 1, 0);
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(live, me < k ? 0 : MPI_UNDEFINED, me, &sub);
    int rc = 0, all = 0;
    if (sub != MPI_COMM_NULL) {
        rc = drv_run_one(sub, nw, words, job, jc);
        MPI_Comm_free(&sub);
    }
    drv_job_step(jc, 1, 0);
    return drv_job_settle(jc, &rc, &all) < 0 ? -1 : all;
}

/* Collective over the job's ranks: the points in turn. Returns the first
 * failing point's status (0 when all passed); an interrupted point ends the
 * sweep. */
static int run_points(struct drv_jobctl *jc, const int *order, int n, const int *pts, int npts, int argc, char **argv,
                      const char *id, const struct drv_job *job, char *summary, size_t len)
{
    int first = 0, completed = 0, ran = 0, skipped = 0, why_not = 0;
    char **words = calloc((size_t)argc + 2, sizeof(*words));
    char label[sizeof(((struct pfs_config *)0)->label) + 32];
    int nw = words ? point_words(argc, argv, words, label, sizeof(label), id, 0) : 0;
    for (int i = 0; i < npts && words && !drv_job_parked(jc); i++) {
        point_words(argc, argv, words, label, sizeof(label), id, pts[i]);
        const int rc = run_point(jc, order, n, pts[i], nw, words, job, id, i, npts);
        if (rc == -1)
            break;
        if (rc == -2) {
            skipped++;
            continue;
        }
        ran++;
        completed += rc == 0;
        if (rc && !first)
            first = rc;
        if (rc > 128) {
            why_not = 1;
            break;
        }
    }
    free(words);
    summarize(id, npts, ran, completed, skipped, why_not, summary, len);
    if (skipped && !first)
        first = PFS_EXIT_TIMEOUT; /* points the lost ranks kept from running */
    return words ? first : PFS_EXIT_IO;
}

int drv_sweep_run(const struct pfs_config *cfg, int argc, char **argv, const struct drv_job *job,
                  struct drv_jobctl *jc, char *summary, size_t slen)
{
    MPI_Comm live = drv_job_live(jc);
    int rank, nranks, pts[MAX_POINTS];
    char err[PFS_ERRLEN];
    MPI_Comm_rank(live, &rank);
    MPI_Comm_size(live, &nranks);
    /* Every point resolves and passes a run's checks before the first
     * runs: exit 2, nothing made. */
    int bad = drv_sweep_check(cfg, nranks, rank == 0, err, sizeof(err)) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, live);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        return PFS_EXIT_USAGE;
    }
    const int npts = pfs_ranks_points(cfg->ranks, nranks, pts, MAX_POINTS, err, sizeof(err));
    int *order = sweep_order(live, nranks);
    if (!order) {
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: --ranks: out of memory for the placement\n");
        return PFS_EXIT_IO;
    }
    drv_job_top_ranks(jc, live, order, nranks); /* as the job's ranks, which outlive this communicator */
    const char *id = cfg->label[0] ? cfg->label : job ? job->section : "sweep";
    if (!job) /* a job file's sections agree on it; a sweep from the command line has its own */
        drv_job_format(jc, cfg->format);
    char line[512];
    int rc = run_points(jc, order, nranks, pts, npts, argc, argv, id, job, summary ? summary : line,
                        summary ? slen : sizeof(line));
    int me = -1;
    if (!summary && !drv_job_parked(jc) && MPI_Comm_rank(drv_job_live(jc), &me) == MPI_SUCCESS && me == 0)
        fprintf(stderr, "%s\n", line);
    free(order);
    return rc;
}
