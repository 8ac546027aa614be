/* pfs_main and what a command line asks for, chosen before any run is
 * parsed for its own: a front end's line translated, help, the option
 * list, --clean, a job file (-f), a rank sweep (--ranks), or one run.
 *
 * The calls go one way: pfs_main -> drv_dispatch -> job.c (each section
 * back through drv_dispatch: a section may be a sweep, never a job file),
 * sweep.c and concurrent.c -> run.c's drv_run_one, which runs one run and
 * calls none of them. */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/clean.h"
#include "pfs/frontend.h"
#include "pfs/iorscript.h"
#include "pfs/jobfile.h"
#include "pfs/safefile.h"
#include "survive.h"

/* Local, rank 0: --api's backend when its data are objects of its own
 * (rados), checked and connected as a run's is, for --clean's look at a
 * dead run's objects; *be NULL when its data are files in -d. 0, or -1
 * with err (the input's fault: exit 2). */
static int clean_backend(const struct pfs_config *cfg, MPI_Comm *comm, const struct pfs_backend **be, void **ctx,
                         char *err, size_t len)
{
    char why[PFS_ERRLEN] = "";
    const char *name = pfs_backend_name(cfg->api);
    const struct pfs_backend *b = pfs_backend_is_module(cfg->api) ? drv_backend_module(name, why, sizeof(why))
                                                                  : pfs_backend_at(cfg->api);
    *be = NULL;
    *ctx = NULL;
    if (!b && why[0]) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    if (!b || !(b->caps & PFS_CAP_NOFILES) || !b->remove)
        return 0;
    if (!b->clean) {
        snprintf(err, len, "--clean with --api %s: --clean cannot tell which of its objects a dead run made; list "
                 "them with the backend's own tools (their names begin pfsbench.RUNID.)", name);
        return -1;
    }
    if ((b->check && b->check(cfg, why, sizeof(why)) != 0) || pfs_backend_init(b, ctx, cfg, comm, why, sizeof(why))) {
        snprintf(err, len, "--clean with --api %s (a dead run's objects too): %s", name, why);
        return -1;
    }
    *be = b;
    return 0;
}

struct clean_arg {
    const struct pfs_backend *be;
    void *ctx;
};

static int clean_objects_run(void *arg, const char *run_id, uint64_t token, int remove, FILE *out, int *failed,
                             char *err, size_t len)
{
    const struct clean_arg *a = arg;
    return a->be->clean(a->ctx, run_id, token, remove, out, failed, err, len);
}

/* Collective. --clean: rank 0 lists (and with --yes removes) leftovers
 * (with --run-id, that run's alone), on stdout unless it holds a JSON or
 * CSV document (a job's); with --api naming a backend whose data are
 * objects, a dead run's objects too (those its lock's token proves). */
static int run_clean(MPI_Comm comm, int rank, const struct pfs_config *cfg)
{
    int rc = PFS_EXIT_OK;
    char err[PFS_ERRLEN] = "";
    if (rank == 0) {
        struct stat st;
        const struct pfs_backend *be = NULL;
        void *ctx = NULL;
        if (stat(cfg->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "pfsbench: error: --clean: '%s' is not a directory\n", cfg->dir);
            rc = PFS_EXIT_USAGE;
        } else if (clean_backend(cfg, &comm, &be, &ctx, err, sizeof(err)) != 0) {
            fprintf(stderr, "pfsbench: error: %s\n", err);
            rc = PFS_EXIT_USAGE;
        } else {
            struct clean_arg arg = {be, ctx};
            const struct pfs_clean_objects objs = {be ? be->name : "", clean_objects_run, &arg};
            if (pfs_clean_with(cfg->dir, cfg->run_id, cfg->yes, cfg->any_owner, be ? &objs : NULL,
                               cfg->format == PFS_FORMAT_JSON || cfg->format == PFS_FORMAT_CSV ? stderr : stdout,
                               err, sizeof(err)) < 0) {
                fprintf(stderr, "pfsbench: error: --clean: %s\n", err);
                rc = PFS_EXIT_IO;
            }
        }
        if (be)
            pfs_backend_fini(be, ctx);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}

/* Collective over comm: -f or --ranks (sweep), under a job's control
 * (made here when the job starts here), which the last line of the job
 * ends. cli is the command line's (or the section's) parse. script: an
 * IOR script's tests (pfs/iorscript.h), run as a job's sections, job the
 * script's file. */
static int run_many(MPI_Comm comm, const struct pfs_config *cli, int sweep, int argc, char **argv,
                    const struct drv_job *job, struct drv_jobctl *jc, const struct pfs_jobfile *script)
{
    drv_catch_signals(); /* a rank that waits for a point still stops on a signal, not dies of it */
    struct drv_jobctl *own = jc ? NULL : drv_job_new(comm, cli->format, cli->timeout / 2 > 2 ? cli->timeout / 2 : 2);
    if (!jc && !own) {
        fprintf(stderr, "pfsbench: error: out of memory for the job\n");
        return PFS_EXIT_IO;
    }
    char summary[512] = "";
    char *sum = own ? summary : NULL;
    int rc = sweep    ? drv_sweep_run(cli, argc, argv, job, own ? own : jc, sum, sizeof(summary))
           : script ? drv_job_sections(comm, job, script, cli->format, 0, own ? own : jc, sum, sizeof(summary))
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
        rc = job ? PFS_EXIT_USAGE : run_many(comm, cfg, 0, argc, argv, job, jc, NULL);
        break;
    default:
        if (cfg->clean) {
            rc = run_clean(comm, rank, cfg);
        } else if (cfg->ranks[0]) { /* each point resolves with its own rank count */
            if (rank == 0)
                drv_print_warnings(cfg);
            rc = run_many(comm, cfg, 1, argc, argv, job, jc, NULL);
        } else {
            rc = drv_run_one(comm, argc, argv, job, jc);
        }
    }
    free(cfg);
    return rc;
}

/* IOR's -O summaryFile=F: the file rank 0 made for the report, and the
 * directory it was made in, held open. */
struct report_file {
    int dir;             /* -1: none */
    char name[NAME_MAX + 1];
    struct pfs_fid id;
};

/* Collective. Rank 0 creates F, new (never an existing file, never
 * through a link), in its directory held open, and its stdout, which
 * carries the report, goes there. Returns 0 on every rank, or -1 on every
 * rank when rank 0 could not (it said why). */
static int report_to_file(MPI_Comm comm, int rank, const char *path, struct report_file *rf)
{
    int ok = 1;
    rf->dir = -1;
    if (rank == 0) {
        char d[PATH_MAX], b[PATH_MAX];
        snprintf(d, sizeof(d), "%s", path);
        snprintf(b, sizeof(b), "%s", path);
        snprintf(rf->name, sizeof(rf->name), "%s", basename(b));
        fflush(stdout);
        rf->dir = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int fd = rf->dir < 0 ? -1 : openat(rf->dir, rf->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || pfs_fid_of_fd(fd, &rf->id) != 0 || dup2(fd, STDOUT_FILENO) < 0) {
            fprintf(stderr, "pfsbench: error: ior -O summaryFile=%s: %s%s\n", path, strerror(errno),
                    errno == EEXIST ? " (IOR would overwrite it; pfsbench writes only a new file: remove it or name "
                                      "another)" : "");
            ok = 0;
        }
        if (fd >= 0)
            close(fd);
        if (!ok && fd >= 0)
            (void)pfs_unlink_own_at(rf->dir, rf->name, &rf->id);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    return ok ? 0 : -1;
}

/* Rank 0, once the run is over: after a run refused as bad input (exit 2,
 * nothing created) the report file goes too, when it is still the empty
 * file report_to_file made. */
static void report_done(struct report_file *rf, int refused)
{
    struct stat now;
    fflush(stdout);
    if (refused && fstatat(rf->dir, rf->name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_size == 0)
        (void)pfs_unlink_own_at(rf->dir, rf->name, &rf->id);
    if (rf->dir >= 0)
        close(rf->dir);
}

/* Rank 0: refusals, one "pfsbench: error: " line each. */
static void say_refusals(const char *msg)
{
    for (const char *p = msg; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
        fprintf(stderr, "pfsbench: error: %.*s\n", (int)strcspn(p, "\n"), p);
}

/* Collective. `pfsbench ior [options] -f SCRIPT [-- options]`: rank 0
 * reads the script, every rank translates it alike, rank 0 prints the
 * notes and each test's equivalent, and the tests run as one job, each a
 * section of it (a run in the results file, labelled run1, run2 ...). */
static int run_script(MPI_Comm comm, const char *path, int argc, char **argv)
{
    int rank, nranks, rc = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char *text = drv_job_read(comm, path, 0), *msg = malloc(PFS_FRONTEND_ERRLEN);
    struct pfs_jobfile jf = {0};
    struct pfs_frontend_extra x = {0};
    struct pfs_config *cfg = malloc(sizeof(*cfg));
    char err[PFS_ERRLEN];
    if (text && msg && cfg)
        rc = pfs_iorscript_translate(path, text, nranks, argc, argv, &jf, &x, msg, PFS_FRONTEND_ERRLEN);
    int mine = rc;
    if (text) /* alike on every rank, unless one ran out of memory */
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc == 0 && pfs_config_parse(cfg, jf.sec[0].argc, jf.sec[0].argv, err, sizeof(err)) != PFS_PARSE_RUN)
        cfg->format = PFS_FORMAT_IOR, cfg->timeout = 0; /* drv_job_sections tells why */
    if (rank == 0 && rc == 0)
        pfs_iorscript_speak(path, &jf, msg, stdout, stderr);
    else if (rank == 0 && text)
        say_refusals(mine != 0 && msg && cfg ? msg : "ior -f: out of memory on a rank");
    struct report_file rf;
    if (rc == 0 && x.report[0] && report_to_file(comm, rank, x.report, &rf) != 0)
        rc = -1;
    else if (rc == 0) {
        const struct drv_job base = {.path = path, .text = text};
        rc = run_many(comm, cfg, 0, argc, argv, &base, NULL, &jf);
        if (x.report[0] && rank == 0)
            report_done(&rf, rc == PFS_EXIT_USAGE);
    }
    pfs_jobfile_free(&jf);
    free(cfg);
    free(msg);
    free(text);
    return rc < 0 ? PFS_EXIT_USAGE : rc;
}

int pfs_main(MPI_Comm comm, int argc, char **argv)
{
    /* pfsbench ior|mdtest|iozone ARGS: that tool's line, translated (the
     * same on every rank; rank 0 prints the equivalent or the refusals). */
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    const char *script = pfs_iorscript_path(argc, argv);
    if (script)
        return run_script(comm, script, argc, argv);
    struct pfs_frontend_extra x;
    int fe = pfs_frontend_main(rank == 0, nranks, &argc, &argv, &x);
    if (fe < 0)
        return PFS_EXIT_USAGE;
    if (fe == 2) /* the tool's --help, printed */
        return 0;
    struct report_file rf;
    if (x.report[0] && report_to_file(comm, rank, x.report, &rf) != 0) {
        pfs_frontend_free(argc, argv);
        return PFS_EXIT_USAGE;
    }
    int rc = drv_dispatch(comm, argc, argv, NULL, NULL);
    if (x.report[0] && rank == 0)
        report_done(&rf, rc == PFS_EXIT_USAGE);
    if (fe > 0)
        pfs_frontend_free(argc, argv);
    return rc;
}
