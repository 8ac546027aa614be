/* drv_run_one: a run as its table of contents (parse, agree, topology and
 * clocks, streams, phases, clean-up, record), the signals, and the checks
 * made before anything is created. dispatch.c chooses the run. The steps live in the modules listed in
 * driver.h. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfs/dist.h"

#include "survive.h"

/* The one mutable global: a signal handler can set nothing else. The
 * transfer loops read it and stop at the next transfer. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

void drv_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A dropped ssh connection or a closed terminal: stop as for SIGTERM
     * (recorded, files removed, 129) rather than die with files left. */
    sigaction(SIGHUP, &sa, NULL);
    /* A closed pipe (`pfsbench ... | head`, without mpirun in between):
     * the same, instead of dying with its files and lock left behind. The
     * report's later writes then fail with EPIPE; the results file is still
     * written. */
    sigaction(SIGPIPE, &sa, NULL);
    /* mpirun forwards USR1/USR2 to the ranks (it kills them on INT/TERM):
     * sbatch --signal=B:USR1@120 ends a run cleanly before the time limit. */
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
}

/* Local, rank 0: memory whose size the input sets, checked before anything
 * is made, so a valid but huge combination is refused with the figure and
 * the option to lower instead of failing (or being killed) half-way. The
 * nodes are taken to be alike: this node's memory stands for each. */
static int check_memory(const struct ctx *c, char *err, size_t len)
{
    const struct pfs_config *cfg = &c->cfg;
    const double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    const double streams = (double)c->nranks * cfg->threads;
    /* Rank 0 keeps every stream's times for every phase and repetition,
     * and the results writer builds arrays of the same size again. */
    const int slots = pfs_config_rep_slots(cfg); /* warm-up and measured (--max-reps of them when auto) */
    const double records = 2.0 * cfg->nphases * slots * streams * sizeof(struct pfs_times) +
                           4.0 * streams * (sizeof(struct pfs_times) + sizeof(struct pfs_failure) / 4 + PFS_HOST_MAX);
    char need[32], have[32];
    snprintf(have, sizeof(have), "%.1f GiB", mem / (1 << 30));
    if (records > mem / 2) {
        snprintf(need, sizeof(need), "%.1f GiB", records / (1 << 30));
        snprintf(err, len, "the run's records need %s on rank 0 (%d phases x %d repetitions x %.0f streams x %zu bytes, "
                 "twice for the results file), more than half of this node's %s of memory; lower -i/--reps%s, "
                 "--threads or the number of ranks", need, cfg->nphases, slots, streams,
                 sizeof(struct pfs_times), have, cfg->reps > 0 ? (cfg->warmup ? ", --warmup" : "") : " (--max-reps under auto), --warmup");
        return -1;
    }
    /* An async backend holds --iodepth buffers per stream (a module's caps are known once it is loaded). */
    const int depth = cfg->iodepth > 1 && c->be && (c->be->caps & PFS_CAP_ASYNC) ? cfg->iodepth : 1;
    const double buffers = (double)cfg->threads * depth * (double)cfg->transfer;
    if (buffers > mem / 2) {
        char dx[32] = "";
        if (depth > 1)
            snprintf(dx, sizeof(dx), " x --iodepth %d", depth);
        snprintf(need, sizeof(need), "%.1f GiB", buffers / (1 << 30));
        snprintf(err, len, "the transfer buffers need %s per rank (--threads %d%s x -t %llu bytes), more than half of this "
                 "node's %s of memory; lower --threads%s or -t/--transfer", need, cfg->threads, dx,
                 (unsigned long long)cfg->transfer, have, depth > 1 ? ", --iodepth" : "");
        return -1;
    }
    return 0;
}

/* Local, rank 0: everything that can be refused before any file is made. */
static int precheck(struct ctx *c, int kept, char *err, size_t len)
{
    /* A module's backend was loaded after the parser, which could not check it. */
    if (c->be && pfs_backend_is_module(c->cfg.api) && pfs_backend_check(c->be, &c->cfg, err, len) != 0)
        return -1;
    if (pfs_config_check_dir(&c->cfg, err, len) != 0)
        return -1;
    if (check_memory(c, err, len) != 0)
        return -1;
    if (kept && drv_swfile_check(c, err, len) != 0) /* before the --file-name check, which uses its count */
        return -1;
    if (kept && drv_kept_check(c, err, len) != 0) /* a run over kept files: they and their status fit it */
        return -1;
    if (c->cfg.direct) {
        unsigned a = pfs_dio_alignment(c->cfg.dir);
        if (c->cfg.transfer % a || c->cfg.block % a) {
            snprintf(err, len, "--direct needs transfer and block to be multiples of %u bytes on %.400s; "
                     "use e.g. -t %uk", a, c->cfg.dir, a >= 1024 ? a / 1024 : 4);
            return -1;
        }
        if (pfs_bssplit_check(&c->cfg, a, err, len) != 0)
            return -1;
    }
    if (!c->cfg.no_results && drv_results_check(c, c->cfg.results, err, len) != 0)
        return -1;
    return drv_kept_precheck(c, err, len);
}

int drv_precheck_config(const struct pfs_config *cfg, int nranks, char *err, size_t len)
{
    struct ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    c->cfg = *cfg;
    c->nranks = nranks;
    c->be = pfs_backend_is_module(cfg->api) ? NULL : pfs_backend_at(cfg->api); /* a module loads at its run */
    /* Not the kept files a section reads: an earlier section of the job may make them. */
    int rc = precheck(c, 0, err, len);
    free(c);
    return rc;
}

/* Local, rank 0: what the parser and resolve warn of (the record keeps them too). */
void drv_print_warnings(const struct pfs_config *cfg)
{
    for (const char *w = cfg->warnings; *w; w += strcspn(w, "\n") + 1)
        fprintf(stderr, "pfsbench: warning: %.*s\n", (int)strcspn(w, "\n"), w);
}

/* Collective. Every rank parses alike and reaches the same verdict; rank 0
 * checks what needs the file system and speaks. drv_dispatch has sent
 * help, the listing, --clean, job files and sweeps elsewhere: argv is one
 * run's. Returns -1 to go on with the run, else the exit status. */
static int parse_and_check(struct ctx *c, int argc, char **argv)
{
    char err[PFS_ERRLEN] = "";
    enum pfs_parse_result pr = pfs_config_parse(&c->cfg, argc, argv, err, sizeof(err));
    if (pr == PFS_PARSE_RUN && (c->cfg.clean || c->cfg.ranks[0])) {
        snprintf(err, sizeof(err), "%s inside a job's section or a sweep's point", c->cfg.clean ? "--clean" : "--ranks");
        pr = PFS_PARSE_ERROR;
    } else if (pr != PFS_PARSE_RUN && pr != PFS_PARSE_ERROR) {
        snprintf(err, sizeof(err), "help, --list-options or -f inside a job's section or a sweep's point");
        pr = PFS_PARSE_ERROR;
    }
    if (pr == PFS_PARSE_RUN && pfs_config_resolve(&c->cfg, c->nranks, err, sizeof(err)) != 0)
        pr = PFS_PARSE_ERROR;
    int bad = pr == PFS_PARSE_ERROR;
    /* The parser refused names it has no backend for, and what the backend cannot do. */
    if (!bad && pfs_backend_is_module(c->cfg.api))
        bad = drv_backend_load(c, err, sizeof(err)) != 0; /* every rank loads it */
    else if (!bad && !(c->be = pfs_backend_at(c->cfg.api))) {
        snprintf(err, sizeof(err), "--api %s: this program was built without that backend", pfs_backend_name(c->cfg.api));
        bad = 1;
    }
    if (!bad && c->rank == 0)
        bad = precheck(c, 1, err, sizeof(err)) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, c->comm);
    if (bad && c->rank == 0)
        fprintf(stderr, "pfsbench: error: %s\n", err);
    else if (c->rank == 0)
        drv_print_warnings(&c->cfg);
    return bad ? PFS_EXIT_USAGE : -1;
}

/* Collective. The backend the run's I/O goes through. Returns -1 to go on,
 * else the exit status. */
static int setup_backend(struct ctx *c)
{
    char err[PFS_ERRLEN] = "";
    /* Local, and alike on every rank: the verdict needs no agreement. */
    if (pfs_backend_init(c->be, &c->bectx, &c->cfg, &c->comm, err, sizeof(err)) != 0) {
        if (c->rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        return PFS_EXIT_USAGE;
    }
    return -1;
}

static void free_backend(struct ctx *c)
{
    pfs_backend_fini(c->be, c->bectx);
    c->bectx = NULL;
}

/* Collective. The run becomes live: its id, then its lock, the first thing
 * it makes. Returns -1 to go on, else the exit status. */
static int go_live(struct ctx *c)
{
    char err[PFS_ERRLEN] = "";
    drv_record_init(&c->rec);
    drv_run_id(c);
    int rc = c->rank == 0 ? drv_take_run_lock(c, err, sizeof(err)) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm);
    if (rc && c->rank == 0)
        fprintf(stderr, "pfsbench: error: %s\n", err);
    return rc ? rc : -1;
}

static void init_ctx(struct ctx *c, MPI_Comm comm)
{
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->nranks);
    c->interrupted = &interrupted;
    drv_files_init(&c->files);
    c->ag.comm = comm;
    c->ag.rank = c->rank;
    c->ag.nranks = c->nranks;
    drv_topo_init(&c->topo);
    c->ag.host = c->topo.host;
}

/* Local: what the phase list holds, for the steps that depend on it. */
static void note_phases(struct ctx *c)
{
    c->writes = pfs_phase_listed(&c->cfg, PFS_PHASE_DATA, PFS_PHF_CREATES, 0);
    c->has_meta = pfs_phase_listed(&c->cfg, PFS_PHASE_META, 0, 0);
}

static void free_ctx(struct ctx *c)
{
    drv_lat_free(c);
    drv_streams_free(c);
    free(c->prog.tab);
    drv_topo_fini(&c->topo);
    drv_files_fini(&c->files);
    drv_record_fini(&c->rec);
    free(c);
}

/* Local: what a run that was left (inside a job, its watchdog gave it up)
 * still holds. No collective: ranks of the run may be gone. An operation
 * given up keeps its buffers; when it was on the caller's request (the
 * latency reductions' blocks), those stay too. */
static int run_left(struct ctx *c)
{
    pfs_agree_abandon(&c->ag);
    pfs_watch_stop(c->watch);
    c->watch = NULL;
    if (c->rank == 0 && !c->left.parked && !drv_job_parked(c->jc))
        drv_concurrent_window(c, NAN, NAN); /* the group's other leaders wait for this one */
    drv_drop_run_lock(&c->files);
    struct progress *p = &c->prog;
    if (p->on && p->req != MPI_REQUEST_NULL)
        MPI_Request_free(&p->req);
    if (p->on && p->ncomm != MPI_COMM_NULL && p->ncomm)
        MPI_Comm_free(&p->ncomm);
    if (p->on && p->comm != MPI_COMM_NULL && p->comm)
        MPI_Comm_free(&p->comm);
    free_backend(c);
    if (c->ag.foreign && c->lat.ready) { /* a late rank may still complete a reduction into them */
        const void *keep[] = {c->lat.node_blk, c->lat.run_blk, c->lat.rec, c->lat.recs};
        for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
            pfs_agree_keep(keep[i]);
        c->lat.node_blk = c->lat.run_blk = NULL;
        c->lat.rec = c->lat.recs = NULL;
    }
    free_ctx(c);
    return PFS_EXIT_TIMEOUT;
}

/* Collective over comm. A run, as its table of contents. Every step
 * records a failure instead of leaving: the agreement after the set-up
 * names them, and then no phase runs. Inside a job (jc), a run its
 * watchdog gives up is left from where it stands (leave_at). */
int drv_run_one(MPI_Comm comm, int argc, char **argv, const struct drv_job *job, struct drv_jobctl *jc)
{
    struct ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        fprintf(stderr, "pfsbench: error: out of memory\n");
        return PFS_EXIT_IO;
    }
    init_ctx(c, comm);
    c->job = job;
    c->jc = jc;
    int rc = parse_and_check(c, argc, argv);
    if (rc < 0) {
        drv_catch_signals();
        note_phases(c);
        rc = setup_backend(c);
    }
    if (rc < 0 && (rc = go_live(c)) >= 0)
        free_backend(c);
    if (rc >= 0) {
        /* A concurrent group's other sections wait for this one's leader
         * at the end of their phases: it comes, saying it ran none. */
        drv_concurrent_window(c, NAN, NAN);
        free(c);
        return rc;
    }
    if (jc) {
        if (setjmp(c->leave_at))
            return run_left(c);
        c->can_leave = 1;
    }
    drv_topology_setup(c);
    drv_streams_setup(c);
    drv_lat_setup(c);
    drv_watchdog_start(c);
    drv_progress_setup(c);
    drv_record_begin(c, argc, argv);
    int failed = drv_agree(c);
    if (failed)
        drv_report_failures(c);
    failed = drv_files_setup(c, failed);
    drv_swfile_share(c);
    drv_ceilings(c, failed);
    if (c->rank == 0)
        drv_record_columns(&c->rec);
    const double phases_t0 = pfs_now();
    failed = drv_phases_run(c, failed);
    failed = drv_swfile_record(c, failed);
    const double phases_t1 = pfs_now();
    drv_progress_finish(c);
    failed = drv_finish_files(c, failed);
    drv_note_stalls(c);
    /* A concurrent group's section: its overlap with the others, once its
     * own agreements are over (the wait for the other sections is not this
     * run's to time out). */
    drv_concurrent_window(c, phases_t0, phases_t1);
    rc = drv_record_end(c, failed);
    c->can_leave = 0;
    pfs_watch_stop(c->watch);
    drv_drop_run_lock(&c->files);
    free_backend(c);
    free_ctx(c);
    return rc;
}
