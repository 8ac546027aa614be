/* The run driver's private header: the context of one run, shared by the
 * driver's modules, and the functions they offer each other (prefix drv_;
 * the public API is pfs_main in pfs/mpi.h). Each function says whether it is
 * collective over c->comm or local. Module map (docs/architecture.md):
 *   dispatch.c  pfs_main: a front end's line, help, --clean, a job file, a sweep or one run
 *   run.c       drv_run_one: the table of contents of a run; parse, checks, backend
 *   job.c       -f JOBFILE: each section a run in this one MPI job
 *   concurrent.c  a job file's concurrent groups, each section on its share of the nodes
 *   sweep.c     --ranks LIST: a rank sweep inside one MPI job
 *   jobend.c    a job's one JSON array or CSV header; its end after lost ranks
 *   latency.c   histograms and time series merged per node, then on rank 0
 *   swfile.c    --stonewall-file: read and shared before the phases, written after
 *   ceiling.c   the network ring between node leaders; ceilings.c: --ceilings
 *   backend_load.c  a MODULE backend's library, loaded on every rank
 *   results_module.c  the results writer's module, loaded on rank 0 at first use
 *   failure.c   a rank's first failure; rank 0 names them
 *   agree.c     the watched allreduce/gather/wait, with a context of their own (agree.h)
 *   watchdog.c  the stall thread's glue and the job's end when a watchdog fires
 *   topology.c  hosts, nodes, clocks, the reorder shift, memory per node (topology.h)
 *   streams.c   the streams of a rank, threads, the hooks the stream loops call
 *   progress.c  the live progress line
 *   phases.c    the phase loop: prepare, agree, run, gather, correct clocks
 *   files.c     run id, the run's lock, shared file, clean-up (files.h)
 *   mdfiles.c   the directories held open (DIR, metadata), their checks and clean-up
 *   record.c    rank 0's record of the run, warnings, report, results file
 *   survive.c   a job of several runs goes on without the ranks it lost */
#ifndef PFS_DRIVER_H
#define PFS_DRIVER_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/mpi.h"
#include "pfs/report.h"
#include "pfs/safefile.h"
#include "pfs/stream.h"
#include "pfs/watch.h"

#include "agree.h"
#include "files.h"
#include "topology.h"

#define CLOCK_ROUNDS 8
#define PFS_TAG_CLOCK 77
#define PFS_TAG_FIDS 78
#define PFS_TAG_STALL 79
#define PFS_TAG_FAIL 81   /* the first failures' records to rank 0 (failure.c); 80: backend_load.c's */
#define PFS_TAG_PROGRESS 5  /* on the progress communicator */
#define PFS_TAG_GIVEUP 998  /* a rank to rank 0: it gave up waiting for rank 0 (watchdog.c) */
/* The watched agreement that runs while the rank's other threads wait at
 * the stonewall barrier: a run cannot be left from inside it. */
#define DRV_WHERE_STONEWALL "the stonewall agreement"

/* Live progress (progress.c): rank 0 shows one line; each rank reports to
 * its node's aggregator, each aggregator its node's sum to rank 0, with
 * non-blocking sends on communicators of their own, so no collective is
 * involved that a failed rank could hang. */
struct progress {
    int on;                     /* for this run (rank 0 decided) */
    int tty;                    /* rank 0: the line goes to a terminal (its own or the launcher's) */
    MPI_Comm comm, ncomm;       /* aggregators to rank 0; a node's ranks to their aggregator */
    MPI_Comm up, down;          /* where this rank reports (NULL: rank 0); where reports reach it */
    int parent;                 /* its aggregator's rank in up */
    int nkids;                  /* how many report to it (their final messages, at the end) */
    MPI_Request req;            /* this rank's last report */
    uint64_t buf[4];            /* its content: phase sequence, bytes, ops, node */
    int sent;                   /* reports sent */
    uint64_t (*tab)[4];         /* the latest report of each sender (rank 0: of each node): seq, bytes, ops, heard */
    int ntab, heard;            /* its size; senders heard */
    long ticks, received, most; /* rank 0: intervals, reports taken in them, the most in one */
    double last, start;
    double lead;                /* reports go this much before each second of the phase (leaves 0.2 s, */
                                /* aggregators 0.1 s), so they reach rank 0 before it takes them */
    int seq, kind, shown;
    double want;                /* rank 0: what the phase moves over all streams (bytes, or its unit's items) */
};

/* The stonewall agreement among a rank's threads, and their start. */
struct stonewall {
    pthread_mutex_t mu;
    pthread_barrier_t bar;
    pthread_cond_t go_cv;       /* the phase's threads start together */
    int go;                     /* 0 wait, 1 run, -1 a thread failed to start: none runs */
    uint64_t done, target;
    int failed;
};

/* Latency (latency.c): the type, operation and buffers of the reductions
 * after each phase (over the topology's node and leader communicators),
 * and the phase's start on this rank. */
struct lat_ctx {
    int ready;
    MPI_Datatype type;          /* one record block */
    MPI_Op op;                  /* merges blocks */
    struct pfs_stream_lat *node_blk, *run_blk; /* a leader's node block; rank 0's run block */
    char *rec, *recs;           /* a leader's node record; rank 0's, one per node */
    double t0;                  /* the phase's start on this rank: when it left the opening agreement, pfs_now */
    uint64_t t0_ns;             /* the same instant, pfs_now_ns */
    double grid;                /* the time series' origin, the same on every rank: the last arrival at that
                                 * agreement, s since the epoch on rank 0's clock */
};

/* A section's figures for interference (concurrent.c), per phase: its
 * figure (bandwidth, bytes/s; a metadata phase's rate) and op p99 (ns)
 * over the measured repetitions, NaN where there is none; n 0: the run
 * ran no phase. */
struct drv_ifr_sum {
    int n;
    double bw[PFS_MAX_PHASES], p99[PFS_MAX_PHASES];
};

/* The together run's interference figures, as recorded (record.c). */
struct drv_ifr_fig {
    double bw_ratio[PFS_MAX_PHASES], p99_ratio[PFS_MAX_PHASES];
    double jain;
    int jain_n;
    const char *qos;            /* "" none */
    int qos_pass;               /* pfs_qos_check's verdict */
    char qos_why[160];
};

/* A concurrent group of sections (concurrent.c). */
struct drv_concurrent {
    const char *tag;
    char names[512];            /* its sections, comma-separated */
    int n;                      /* how many */
    MPI_Comm leaders;           /* every section's rank 0 (MPI_COMM_NULL elsewhere) */
    const int *leader_top;      /* leaders: each one's rank in the job */
    struct drv_jobctl *jc;      /* the job, whose word says which leaders are lost */
    /* interference = 1: 1 in the rounds that run one section alone, 2 in
     * the together round (0: a plain group); this rank's section's qos
     * ("" none) and its figures alone (its leader's, kept from its alone
     * round to the together one). */
    int interference;
    const char *qos;
    struct drv_ifr_sum *alone;
};

struct drv_jobctl; /* survive.c: a job of several runs (job file, sweep) */

/* The job file a run is a section of (job.c); NULL for a plain run. */
struct drv_job {
    const char *path, *text;    /* the file, as given, and its whole text */
    const char *section;        /* the section's name */
    int index;                  /* its place in the file, from 0 */
    const struct drv_concurrent *concurrent; /* NULL: runs alone */
};

/* Rank 0's record of the run (NULL d elsewhere). record.c writes it:
 * drv_record_init (the run's start) and drv_record_fini bracket it, and the
 * other modules set what they learn through record.c's calls; the buffers
 * it hands out (gathered, lat) are filled by a phase's collectives, and
 * results_module.c sets the results writer's two function pointers. */
struct record {
    struct pfs_run_data *d;
    struct pfs_run_data data;
    struct pfs_times *times, *gathered;
    int *reps_done;
    struct pfs_phase_lat *lat;  /* [phase * reps + rep] (latency.c fills them) */
    uint64_t *find_matched;     /* [phase * reps + rep]: the files a find matched, all streams */
    char cmdline[8192];
    char mpiver[MPI_MAX_LIBRARY_VERSION_STRING];
    char start_iso[32];
    /* The results writer, loaded from its module on first use. */
    int (*check)(const char *, char *, size_t);
    int (*append)(const char *, const struct pfs_run_data *, char *, size_t, char *, size_t);
    int in_results;             /* rank 0 is appending to the results file */
    int recorded;               /* the watchdog recorded the run (once) */
    int reported;               /* its JSON or CSV went out, or to the job (once) */
    /* Where the text report goes (rank 0): stdout, or, for a section of a
     * concurrent group, a buffer printed whole at the end, headed by the
     * section's name (drv_record_out), so that the group's reports do not
     * interleave. */
    FILE *out;
    char *outbuf;
    size_t outlen;
    const char *section, *tag, *label; /* that heading's section, group and --label */
    const char *round;          /* an interference group's: "alone", "together" (NULL: neither) */
    int nphases, slots;         /* the size of times, lat, reps_done and find_matched */
    struct pfs_ceilings *ceil;  /* --ceilings: every node's (rank 0); NULL: not measured */
};

/* How a run inside a job ended when its watchdog gave it up (watchdog.c). */
struct drv_left {
    int parked;                 /* the job went on without this rank */
    int suspect;                /* this rank gave up on rank 0 of the run */
};

struct ctx {
    MPI_Comm comm;
    int rank, nranks;
    struct pfs_config cfg;
    volatile sig_atomic_t *interrupted; /* the signal handler's flag */
    const struct pfs_backend *be;
    void *bectx;
    struct drv_topo topo;       /* the placement: topology.c writes it (topology.h) */
    int *node_of_stream;        /* rank 0: each stream's node (streams.c); NULL elsewhere */
    /* the run */
    uint64_t seed;
    int threads, nstreams;
    uint64_t nxfers;            /* transfers per stream in a full block */
    uint64_t sw_file_xfers;     /* a read-only run's --stonewall-file count (rank 0 until drv_swfile_share); 0: none */
    uint64_t data_xfers;        /* transfers per stream present in the files (stonewall may cut) */
    uint64_t md_files;          /* small files per stream present (a create's stonewall may cut them) */
    struct pfs_stream *streams; /* this rank's, threads of them */
    int cur_kind;               /* the phase running, for the watchdog's message */
    double rate_base[PFS_MAX_PHASES]; /* each phase's base of pfs_rate_at for the next repetition (phases.c) */
    int searched;               /* --latency-target: the search is done, no repetition follows (phases.c) */
    int writes, has_meta;       /* what the phase list holds: a phase that makes the data files, metadata */
    struct pfs_agree ag;        /* the watched collectives (agree.h) */
    struct pfs_failure fail;    /* this rank's first failure, its streams' included */
    struct drv_files files;     /* files.c and mdfiles.c write it (files.h) */
    /* watchdog */
    struct pfs_watch *watch;    /* this rank's stall watchdog thread */
    int ending;                 /* a watchdog is ending the job (once) */
    int64_t tick_ns;            /* the stall thread's last look (pfs_now_ns) */
    int64_t gap_ns, gap_end_ns; /* its last gap between looks: the process did not run (stopped) */
    uint64_t gaps;              /* gaps seen: each counts as progress (a stop is no blocked call) */
    /* inside a job (survive.c): the run can be left, and how it was */
    struct drv_jobctl *jc;      /* NULL: a plain run (the watchdog ends the job) */
    int leader_top;             /* rank 0's rank in the job's communicator */
    int can_leave;              /* leave_at is set */
    jmp_buf leave_at;
    struct drv_left left;
    struct progress prog;
    struct stonewall sw;
    struct record rec;
    struct lat_ctx lat;
    int tg_noted;               /* rank 0 said why a storage target was unknown (targets.c) */
    const struct drv_job *job;  /* NULL: not from a job file */
};

/* dispatch.c: what argv asks for (help, --clean, -f, --ranks or one run),
 * over comm; a job's section comes back here (it may be a sweep). */
int drv_dispatch(MPI_Comm comm, int argc, char **argv, const struct drv_job *job, struct drv_jobctl *jc);
/* run.c: one run over comm (a job file's section when job is set; inside
 * a job or sweep when jc is set: then the watchdog ends the run, not the
 * job). argv holds no -f, --ranks, --clean or help: drv_dispatch took those. */
int drv_run_one(MPI_Comm comm, int argc, char **argv, const struct drv_job *job, struct drv_jobctl *jc);
/* run.c, local, rank 0: what a single run refuses before it makes
 * anything (directory, memory, alignment, results file), for a config
 * resolved for nranks ranks; a job file's sections all pass it first. The
 * kept files a run reads are checked when it starts: an earlier section
 * of the job may make them. */
int drv_precheck_config(const struct pfs_config *cfg, int nranks, char *err, size_t len);
/* run.c: the signals that end a run (exit 128+N) caught; rank 0's warnings of a parse printed. */
void drv_catch_signals(void);
void drv_print_warnings(const struct pfs_config *cfg);
/* job.c, collective: rank 0's text of the file path on every rank
 * (malloc'ed; ${NAME} replaced when expand), or NULL (rank 0 said why). */
char *drv_job_read(MPI_Comm comm, const char *path, int expand);
/* job.c, collective: the sections of jf (alike on every rank; base names
 * the file) checked as their runs would check them, then run in order;
 * format: the command line's. */
struct pfs_jobfile;
int drv_job_sections(MPI_Comm comm, const struct drv_job *base, const struct pfs_jobfile *jf, int format,
                     int stop_on_error, struct drv_jobctl *jc, char *summary, size_t slen);
/* job.c: -f JOBFILE; cli is the command line's parse. */
int drv_job_run(MPI_Comm comm, const struct pfs_config *cli, int argc, char **argv, struct drv_jobctl *jc,
                char *summary, size_t slen);
/* sweep.c: --ranks LIST; cfg is the command line's (or section's) parse.
 * summary: the last line, for the job's end (NULL: the sweep prints it). */
int drv_sweep_run(const struct pfs_config *cfg, int argc, char **argv, const struct drv_job *job,
                  struct drv_jobctl *jc, char *summary, size_t slen);
/* sweep.c, local: a sweep's points, each resolved and checked as a run of
 * its own; 0, or -1 with err. */
int drv_sweep_check(const struct pfs_config *cfg, int nranks, int rank0, char *err, size_t len);
/* sweep.c, collective over comm: each rank's node (malloc'ed, *nnodes set), or NULL. */
int *drv_rank_nodes(MPI_Comm comm, int *nnodes);
/* interfere.c, rank 0 of a section of an interference group: its
 * figures at the end of its phases (s->n 0: none); the together run's
 * ratios to alone (alone NULL: none) and qos verdict into f, returning the
 * section's mean bandwidth ratio (NaN: none), Jain's index's x (phases:
 * the run's -p, naming them); its text
 * lines (f->jain set). */
void drv_ifr_capture(struct ctx *c, struct drv_ifr_sum *s);
double drv_ifr_ratios(const struct drv_ifr_sum *alone, const struct drv_ifr_sum *tog, const int *phases,
                      const char *qos, struct drv_ifr_fig *f);
void drv_ifr_print(struct ctx *c, const char *tag, const struct drv_ifr_sum *alone, const struct drv_ifr_sum *tog,
                   const struct drv_ifr_fig *f);

/* concurrent.c: sections a .. b-1 of jf at once (a concurrent group). */
struct pfs_jobfile;
int drv_concurrent_run(struct drv_jobctl *jc, const struct pfs_jobfile *jf, int a, int b, const struct drv_job *base,
                       int *st);
/* concurrent.c, the run's rank 0 of a section of a group: the overlap
 * window of the group's phases (t0..t1 on this rank's clock) into the record. */
void drv_concurrent_window(struct ctx *c, double t0, double t1);

/* failure.c */
void drv_set_fail(struct ctx *c, const char *op, const char *path, int err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void drv_collect_failure(struct ctx *c);
void drv_format_failure(const struct pfs_failure *f, char *msg, size_t len);
void drv_report_failures(struct ctx *c);

/* The agreements (failure.c): 1 when any rank failed; also a barrier. */
int drv_agree(struct ctx *c);
int drv_agree_watched(struct ctx *c, double since, const char *where);

/* The watched collectives of agree.h over the run's context. */
static inline void drv_allreduce_watched(struct ctx *c, const void *in, void *out, int count, MPI_Datatype type,
                                         MPI_Op op, double since, const char *where)
{
    pfs_agree_allreduce(&c->ag, in, out, count, type, op, since, where);
}
static inline void drv_gather_watched(struct ctx *c, const void *in, int bytes, void *out, double since,
                                      const char *where)
{
    pfs_agree_gather(&c->ag, in, bytes, out, since, where);
}
static inline void drv_wait_watched(struct ctx *c, MPI_Request *r, double since, const char *where)
{
    pfs_agree_wait(&c->ag, r, since, where);
}

/* watchdog.c */
void drv_watchdog_start(struct ctx *c);

/* latency.c */
struct pfs_stream_lat *drv_lat_alloc(const struct pfs_config *cfg);
void drv_lat_setup(struct ctx *c);
void drv_lat_collect(struct ctx *c, struct pfs_phase_lat *out, int failed, double since, const char *where);
void drv_lat_free(struct ctx *c);

/* topology.c: drv_topo_setup over the run's communicator, a failure
 * recorded (drv_set_fail); 0, or -1. drv_topo_fini frees it (topology.h). */
int drv_topology_setup(struct ctx *c);

/* targets.c: a stream's storage targets (set up with it, freed with it),
 * and after a data phase their figures merged on rank 0 (collective). */
void drv_targets_setup(struct ctx *c, struct pfs_stream *st);
void drv_targets_free(struct pfs_stream *st);
void drv_targets_collect(struct ctx *c, struct pfs_phase_lat *out, int kind, int failed, double since,
                         const char *where);

/* streams.c */
void drv_streams_setup(struct ctx *c);
void drv_run_streams(struct ctx *c, int kind, int rep, double rate_base);
void drv_streams_free(struct ctx *c);

/* progress.c */
void drv_progress_setup(struct ctx *c);
void drv_progress_phase(struct ctx *c, const struct pfs_phase_ctx *ph);
void drv_progress_phase_end(struct ctx *c);
void drv_hook_progress(void *arg, struct pfs_stream *s);
void drv_progress_finish(struct ctx *c);

/* phases.c */
int drv_phases_run(struct ctx *c, int failed);

/* files.c */
void drv_data_path(const struct ctx *c, int stream, char *out, size_t len);
void drv_run_id(struct ctx *c);
int drv_take_run_lock(struct ctx *c, char *err, size_t len);
void drv_drop_run_lock(struct drv_files *f);
int drv_files_setup(struct ctx *c, int failed);
int drv_rep_files(struct ctx *c, int rep);
void drv_exchange_fids(struct ctx *c, double since);
void drv_gather_known(struct ctx *c, double since);
void drv_remove_run_files(struct ctx *c);
int drv_finish_files(struct ctx *c, int failed);
/* files.c, the kept run's status (pfs/kept.h). drv_kept_check: rank 0,
 * before anything is made: a run over kept data files (or metadata) finds
 * them and their status and fits them; 0, or -1 with err (exit 2).
 * drv_keep_status: collective, after the phases of a run that wrote and
 * keeps its data files: rank 0 makes the status; 1 when it failed (named). */
int drv_kept_check(struct ctx *c, char *err, size_t len);
int drv_swfile_check(struct ctx *c, char *err, size_t len);
void drv_swfile_share(struct ctx *c);
int drv_swfile_record(struct ctx *c, int failed);
int drv_keep_status(struct ctx *c);

/* mdfiles.c: the directories held open. */
/* Local. Words for a negative errno or PFS_ERR_* code. */
const char *drv_why(int rc, char *buf, size_t len);
/* Local. Opens dir (-d, links followed) once into f->dir, its identity recorded: 0 or -errno. */
int drv_pin_dir(struct drv_files *f, const char *dir);
/* Local, rank 0: the run's metadata directory, made (mkdir: one already
 * there is refused) or, over a kept run's metadata, opened and checked;
 * md_start from it. Failures go to drv_set_fail. */
void drv_md_top_setup(struct ctx *c, unsigned kept);
/* Collective, after rank 0's set-up agreed: every rank opens the run's
 * directory (the one rank 0 made), each stream its own (made, or a kept
 * run's checked) and the one it reads. Returns 1 when any rank failed. */
int drv_md_streams_setup(struct ctx *c, unsigned kept);
/* Local: before each phase and at the end, each directory held open must
 * still be at its name; a change is this rank's failure (named once).
 * Returns how many changed. */
int drv_check_pins(struct ctx *c);
/* Local: a stream's small files, tree and directory go (unless -k),
 * through the descriptors held. Returns how many things were left (named). */
int drv_md_cleanup(struct ctx *c, struct pfs_stream *s);
/* Local, rank 0, after every rank's drv_md_cleanup (others_left: what they
 * left): the shared tree and the run's directory. Returns how many left. */
int drv_md_finish(struct ctx *c, int others_left);
/* Local: the metadata directories' descriptors go. */
void drv_md_close(struct ctx *c);
/* Local, rank 0, before anything is made: 0, or -1 with err when
 * --file-size does not match the kept metadata's files a phase checks. */
int drv_kept_precheck(const struct ctx *c, char *err, size_t len);
/* mdfiles.c, the small files' part of the kept run's status (pfs/kept.h).
 * drv_md_kept_check: rank 0, from drv_kept_check: over a kept run's small
 * files, -n and the streams fit what its status says every stream created
 * (kept_md_files); a create kept (-k) under a run id whose status is there
 * is refused. 0, or -1 with err (exit 2). drv_md_kept_part: every rank, at
 * the end: 1 with the files lines in *k when this run created small files
 * and keeps them, else 0. */
struct pfs_kept;
int drv_md_kept_check(struct ctx *c, char *err, size_t len);
int drv_md_kept_part(const struct ctx *c, struct pfs_kept *k);

/* backend_load.c: a MODULE line's backend (pfs_backend_is_module), loaded
 * on every rank into c->be. Collective; 0, or -1 with rank 0's err set. */
int drv_backend_load(struct ctx *c, char *err, size_t len);
/* Local. The table pfs_backend_<name> of libpfs_<name>.so, checked with
 * pfs_backend_valid; NULL with err set. */
const struct pfs_backend *drv_backend_module(const char *name, char *err, size_t len);

/* results_module.c: the results writer's check and append, rank 0 (the
 * module is loaded on first use; 0, or -1 with err) */
int drv_results_check(struct ctx *c, const char *path, char *err, size_t len);
int drv_results_append(struct ctx *c, const struct pfs_run_data *d, char *name, size_t nlen, char *err, size_t len);

/* ceilings.c, collective: --ceilings measured before the phases (not
 * after a failure), untimed; rank 0 records them. */
void drv_ceilings(struct ctx *c, int failed);

/* record.c */
void drv_iso_time(char *buf, size_t len);
void drv_record_begin(struct ctx *c, int argc, char **argv);
/* Local, rank 0 (nothing where there is no record): the text report's
 * column heading, printed just before the first phase; the run's ceilings
 * (--ceilings), which the record then owns (NULL: none), printed. */
void drv_record_columns(struct record *r);
void drv_record_ceilings(struct record *r, struct pfs_ceilings *ce);
void drv_record_phase(struct ctx *c, int p, int rep, int failed);
int drv_record_stable(struct ctx *c, int rep);
void drv_record_watchdog(struct ctx *c, const char *msg);
/* Local, rank 0: where the text report's lines go (struct record's out;
 * stdout before the record is set up). */
FILE *drv_record_out(struct ctx *c);
/* Rank 0, after repetition rep of phase p is recorded: its warnings (the
 * page cache's, --rate's shortfall) into the run and the report
 * (record_warn.c). */
void drv_record_warn_phase(struct ctx *c, int p, int rep);
/* survive.c, rank 0 of a run: its JSON or CSV on stdout, or, inside a job,
 * to the job, which prints one document (or one header) for all its runs. */
void drv_report_out(struct ctx *c, const struct pfs_run_data *d);
void drv_note_stalls(struct ctx *c);
int drv_record_end(struct ctx *c, int failed);
/* Local: the record's start, its time stamped now (the struct starts
 * zeroed, with its ctx; the results writer may be loaded already, by the
 * checks); its end, what it holds freed (a concurrent section's buffered
 * report printed). */
void drv_record_init(struct record *r);
void drv_record_fini(struct record *r);
/* Local, rank 0 (nothing where there is no record): what a find of phase
 * slot slot matched; the run's data files kept, each of xfers transfers;
 * drv_record_reported: 1 when the run's JSON or CSV went out already, else
 * 0, and it is now marked gone (once, from any thread). */
void drv_record_find(struct record *r, size_t slot, uint64_t matched);
void drv_record_kept(struct record *r, uint64_t xfers);
int drv_record_reported(struct record *r);
/* Local, rank 0 (nothing where there is no record): a warning of the run;
 * the signal that interrupted it (0: none); the failures' cause (the first
 * failure's words, NULL: none, and how many ranks failed); a concurrent
 * section's overlap window with its group. */
void drv_record_warn(struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void drv_record_interrupted(struct record *r, int sig);
void drv_record_cause(struct record *r, const char *first, int count);
void drv_record_window(struct record *r, const char *tag, const char *sections, double corr, double start,
                       double overlap, double span);
/* interfere.c, rank 0: a section of an interference group: mode "alone" or
 * "together", and the together run's figures (f NULL: none). */
void drv_record_interference(struct record *r, const char *mode, const struct drv_ifr_fig *f);

#endif
