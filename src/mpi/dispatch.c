/* pfs_main and what a command line asks for, chosen before any run is
 * parsed for its own: a front end's line translated, help, the option
 * list, --clean, a job file (-f), a rank sweep (--ranks), or one run.
 *
 * The calls go one way: pfs_main -> drv_dispatch -> job.c (each section
 * back through drv_dispatch: a section may be a sweep, never a job file),
 * sweep.c and concurrent.c -> run.c's drv_run_one, which runs one run and
 * calls none of them. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pfs/clean.h"
#include "pfs/frontend.h"
#include "survive.h"

/* Collective. --clean: rank 0 lists (and with --yes removes) leftovers. */
static int run_clean(MPI_Comm comm, int rank, const struct pfs_config *cfg)
{
    int rc = PFS_EXIT_OK;
    char err[PFS_ERRLEN] = "";
    if (rank == 0) {
        struct stat st;
        if (stat(cfg->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "pfsbench: error: --clean: '%s' is not a directory\n", cfg->dir);
            rc = PFS_EXIT_USAGE;
        } else if (pfs_clean(cfg->dir, cfg->yes, cfg->any_owner, stdout, err, sizeof(err)) < 0) {
            fprintf(stderr, "pfsbench: error: --clean: %s\n", err);
            rc = PFS_EXIT_IO;
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}

/* Collective over comm: -f or --ranks (sweep), under a job's control
 * (made here when the job starts here), which the last line of the job
 * ends. cli is the command line's (or the section's) parse. */
static int run_many(MPI_Comm comm, const struct pfs_config *cli, int sweep, int argc, char **argv,
                    const struct drv_job *job, struct drv_jobctl *jc)
{
    drv_catch_signals(); /* a rank that waits for a point still stops on a signal, not dies of it */
    struct drv_jobctl *own = jc ? NULL : drv_job_new(comm, cli->format, cli->timeout / 2 > 2 ? cli->timeout / 2 : 2);
    if (!jc && !own) {
        fprintf(stderr, "pfsbench: error: out of memory for the job\n");
        return PFS_EXIT_IO;
    }
    char summary[512] = "";
    char *sum = own ? summary : NULL;
    int rc = sweep ? drv_sweep_run(cli, argc, argv, job, own ? own : jc, sum, sizeof(summary))
                   : drv_job_run(comm, cli, argc, argv, own ? own : jc, sum, sizeof(summary));
    if (own)
        rc = drv_job_finish(own, rc, summary[0] ? summary : NULL);
    drv_job_free(own);
    return rc;
}

int drv_dispatch(MPI_Comm comm, int argc, char **argv, const struct drv_job *job, struct drv_jobctl *jc)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct pfs_config *cfg = malloc(sizeof(*cfg));
    if (!cfg) {
        fprintf(stderr, "pfsbench: error: out of memory\n");
        return PFS_EXIT_IO;
    }
    char err[PFS_ERRLEN] = "";
    int rc;
    /* Local, and alike on every rank: each reaches the same verdict. */
    switch (pfs_config_parse(cfg, argc, argv, err, sizeof(err))) {
    case PFS_PARSE_HELP:
        if (rank == 0)
            pfs_config_usage(stdout);
        rc = PFS_EXIT_OK;
        break;
    case PFS_PARSE_VERSION:
        if (rank == 0)
            printf("pfsbench %s (git %s)\n", PFS_VERSION, PFS_GIT_REV);
        rc = PFS_EXIT_OK;
        break;
    case PFS_PARSE_LIST_OPTIONS:
        if (rank == 0)
            pfs_config_list_json(stdout);
        rc = PFS_EXIT_OK;
        break;
    case PFS_PARSE_ERROR:
        if (rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        rc = PFS_EXIT_USAGE;
        break;
    case PFS_PARSE_JOB: /* a section never names a job file (checked before it runs) */
        rc = job ? PFS_EXIT_USAGE : run_many(comm, cfg, 0, argc, argv, job, jc);
        break;
    default:
        if (cfg->clean) {
            rc = run_clean(comm, rank, cfg);
        } else if (cfg->ranks[0]) { /* each point resolves with its own rank count */
            if (rank == 0)
                drv_print_warnings(cfg);
            rc = run_many(comm, cfg, 1, argc, argv, job, jc);
        } else {
            rc = drv_run_one(comm, argc, argv, job, jc);
        }
    }
    free(cfg);
    return rc;
}

int pfs_main(MPI_Comm comm, int argc, char **argv)
{
    /* pfsbench ior|mdtest|iozone ARGS: that tool's line, translated (the
     * same on every rank; rank 0 prints the equivalent or the refusals). */
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    int fe = pfs_frontend_main(rank == 0, nranks, &argc, &argv);
    if (fe < 0)
        return PFS_EXIT_USAGE;
    if (fe == 2) /* the tool's --help, printed */
        return 0;
    int rc = drv_dispatch(comm, argc, argv, NULL, NULL);
    if (fe > 0)
        pfs_frontend_free(argc, argv);
    return rc;
}
