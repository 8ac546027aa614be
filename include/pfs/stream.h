/* One stream's work in one phase: the I/O loops, data and metadata.
 *
 * A stream is (rank, thread); with --threads 1 it is the rank. The loops
 * here make no MPI call: where ranks must agree inside a phase (the
 * stonewall's wear-out, collective MPI-IO), the stream calls a hook the MPI
 * layer provides. Local, and safe to run in one thread per stream. */
#ifndef PFS_STREAM_H
#define PFS_STREAM_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "pfs/backend.h"
#include "pfs/clock.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/exemplar.h"
#include "pfs/hist.h"
#include "pfs/latency.h"

/* PFS_NO_OFFSET, a failure's offset when none applies, is in pfs/backend.h. */

/* A failure on one stream, gathered to rank 0 to be named. */
struct pfs_failure {
    int failed;
    int rank;
    int thread;                 /* -1 when the run has one thread per rank */
    int err;                    /* errno, 0 when none applies */
    int sig;                    /* the signal that interrupted it, 0 when none */
    uint64_t offset;            /* PFS_NO_OFFSET where none applies */
    double when;                /* on this host's clock, to find the first failure */
    char host[PFS_HOST_MAX];
    char op[32];
    char path[PFS_PATH_MAX + 128];
    char detail[256];
};

/* One stream's latency record of one phase (reset at its start): a
 * histogram per operation kind (PFS_LAT_*), the time series of what it
 * completed per interval, and its slowest operations (--exemplars: ex.k of
 * them, 0 for none; op is the PFS_LAT_* kind, start_ns from the phase's
 * t0_ns). About 364 KiB with the default cap. */
struct pfs_stream_lat {
    struct pfs_hist h[PFS_LAT_KINDS];
    struct pfs_tseries ts;      /* times are s since the phase's t0_ns; t0: where its grid starts in them
                                 * (the driver's, the same instant on every rank; 0 in a plain process) */
    struct pfs_exemplars ex;    /* ex.k survives pfs_stream_lat_begin */
    int32_t file;               /* what the exemplars' file is: the stream whose data file the phase's
                                 * transfers were on (-1: the shared file); in a metadata phase the
                                 * stream itself (offset is then the item's number) */
};

struct pfs_stream_tg;

struct pfs_stream {
    int id;                     /* rank * threads + thread */
    int rank, thread;
    char path[PFS_PATH_MAX + 128];    /* the data file it writes */
    char rd_path[PFS_PATH_MAX + 128]; /* the data file it reads */
    int rd_writer;              /* the stream whose data it reads */
    char md_dir[PFS_PATH_MAX + 192];  /* where it creates its small files */
    char md_rd_dir[PFS_PATH_MAX + 192]; /* where it stats/reads (another node's with -C) */
    int created;                /* it created path in this run */
    struct pfs_fid fid;         /* what path named when this run created it */
    struct pfs_fid rd_fid;      /* the same for rd_path ({0,0}: a kept file of an earlier run) */
    uint64_t md_created;        /* small files it created and has not deleted */
    uint64_t md_kept;           /* small files of a kept run (--run-id) in its directory, not deleted by this run */
    uint64_t md_reach;          /* create visited names 0 .. md_reach-1 (in its order): clean-up looks no further */
    uint64_t md_seed;           /* the order's seed */
    uint64_t md_matched;        /* find: the files of its last find that matched (t.xfers: those it examined) */
    int md_dir_made;            /* it made md_dir (--dirs per-rank) */
    /* The directories it works in, held open for the run (the MPI layer
     * opens them, -1 until then and for a backend whose small files are
     * not files): every name it makes, opens or removes is resolved from
     * one of these, never from a path rebuilt from -d. */
    int dir_fd;                 /* DIR: its data files */
    int md_fd;                  /* md_dir */
    int md_rd_fd;               /* md_rd_dir */
    struct pfs_fid md_dir_id;   /* md_dir's identity, when it is its own (--dirs per-rank) */
    uint64_t md_at;             /* the file or tree node a metadata call of it is on (for the watchdog's words) */
    /* The --depth tree its files go in, its directories held open once
     * first used (nodes 1 .. cap; cap from the descriptor limit, the rest
     * opened for each call), with their identity: a call in the tree costs
     * what it costs without one, and the tree is pinned like md_dir. */
    struct pfs_md_nodes {
        int *fd;
        struct pfs_fid *id;
        uint64_t cap;
        int ready;              /* cap is known (0: none held) */
    } md_nodes;
    uint64_t md_tree_made;      /* its tree's directories 1 .. md_tree_made exist, made by this run (mkdir) */
    void *buf;                  /* transfer-sized, aligned */
    /* With an async backend and an iodepth above 1: iodepth such buffers
     * (qbuf[0] may be buf), one per transfer in flight. NULL: depth 1. */
    void **qbuf;
    /* For the stall watchdog, read from its thread: the call the stream is
     * in (a static string) and untimed work done (clean-up; --rate's waits
     * for the schedule). */
    const char *op;
    uint64_t work;
    struct pfs_times t;
    struct pfs_failure fail;
    struct pfs_stream_lat *lat; /* NULL: not recorded */
    /* Its data files' storage targets and the per-target figures of its
     * data phase (pfs/stream_tg.h); NULL: not kept. */
    struct pfs_stream_tg *tg;
};

/* What the streams of one rank share in one phase. Hooks are called from the
 * stream's own thread; NULL when not needed. */
struct pfs_phase_ctx {
    const struct pfs_config *cfg;
    const struct pfs_backend *be;
    void *bectx;
    int kind;                   /* enum pfs_phase: its ops are pfs_phase_desc(kind) */
    int rep;                    /* the repetition (--rate-sweep's point: pfs_rate_at) */
    double rate_base;           /* --rate-sweep's percentages: the job's closed-loop ops/s (pfs_rate_at) */
    int nstreams;               /* in the whole run */
    uint64_t seed;
    uint64_t nxfers;            /* transfers in a full block */
    uint64_t data_xfers;        /* transfers present in the files (a stonewall may cut them) */
    uint64_t md_files;          /* small files per stream present (a create's stonewall may cut them); 0: --files */
    volatile sig_atomic_t *interrupted;
    /* Stonewall: called once per stream after it stopped issuing (done =
     * transfers so far); returns the count every stream must reach. */
    uint64_t (*wearout)(void *arg, struct pfs_stream *s, uint64_t done);
    /* Collective MPI-IO: called after every transfer; returns bit 0 when any
     * rank failed, bit 1 when the stonewall passed on any rank. */
    int (*agree_xfer)(void *arg, int local_bad, int past_deadline);
    /* Collective MPI-IO: called once after open, returns 1 when any rank
     * failed to open. */
    int (*agree_open)(void *arg, int local_bad);
    /* Sums n doubles over every rank in place (one stream per rank, on the
     * main thread): the train phase's --find-max-accelerators judges each
     * trial by the job's AU. NULL: not provided (every rank alone). */
    void (*sum)(void *arg, double *v, int n);
    /* Live progress: called every 16 transfers (or files) when set; it reads
     * the bytes and counts of the rank's streams and must be cheap. */
    void (*progress)(void *arg, struct pfs_stream *s);
    void *arg;
    /* Transfers in flight per stream with a PFS_CAP_ASYNC backend (0 or 1:
     * one at a time); the streams' qbuf must hold as many buffers. */
    unsigned iodepth;
    /* The phase's start on this rank (pfs_now_ns, when it left the opening
     * agreement): the schedules and exemplars count from here; the time
     * series from its stream's ts.t0 (the grid's origin, s from here). */
    uint64_t t0_ns;
    /* --rate: the instant every rank's schedule starts from, on this
     * rank's clock: the grid's origin (the last arrival at the opening
     * agreement, at or before t0_ns); 0: t0_ns (a plain process). */
    uint64_t sched0_ns;
    /* find: the run's start on the file system's clock (the mtime its
     * metadata directory got when rank 0 made it), the same on every rank;
     * a file modified before it does not match. */
    struct timespec md_start;
};

/* Nanoseconds on this host's monotonic clock: every latency. The
 * process's clock (pfs/clock.h): the calibrated TSC where main picked it,
 * CLOCK_MONOTONIC itself otherwise (and in programs that never fit it). */
static inline uint64_t pfs_now_ns(void)
{
    return pfs_clock_now(&pfs_run_clock);
}

/* Local. CPU seconds this thread has used: its CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) and the kernel's user/system split (getrusage
 * RUSAGE_THREAD, tick-sampled). */
struct pfs_cpu {
    double total, user, sys;
};
void pfs_thread_cpu(struct pfs_cpu *c);
/* Local. t's cpu_user and cpu_sys since a: they add up to the CPU clock's
 * total, split in the kernel's user:system proportion, and to no more than
 * t's span (close_end - open_start: call it once that is set). */
void pfs_thread_cpu_since(const struct pfs_cpu *a, struct pfs_times *t);

/* Local. Empties s's latency record for a new phase. */
void pfs_stream_lat_begin(struct pfs_stream *s);

/* Local. Counts one operation of kind k on len bytes at off, from
 * begin_ns to end_ns (pfs_now_ns), into s's record: its histogram and,
 * when among the slowest, its exemplars (start from t0_ns, the phase's).
 * The transfer loop (stream_loop.c) keeps its own, with the time series. */
static inline void pfs_stream_lat_add_at(struct pfs_stream *s, int k, uint64_t begin_ns, uint64_t end_ns,
                                         uint64_t t0_ns, uint64_t off, uint64_t len)
{
    if (!s->lat)
        return;
    pfs_hist_add(&s->lat->h[k], end_ns - begin_ns);
    pfs_exemplar_add(&s->lat->ex, (uint32_t)k, off, len, begin_ns > t0_ns ? begin_ns - t0_ns : 0, end_ns - begin_ns);
}

/* Local. The same for a call on no range (open, fsync, close). */
static inline void pfs_stream_lat_add(struct pfs_stream *s, int k, uint64_t begin_ns, uint64_t end_ns,
                                      uint64_t t0_ns)
{
    pfs_stream_lat_add_at(s, k, begin_ns, end_ns, t0_ns, 0, 0);
}

/* Seconds on this host's realtime clock. */
double pfs_now(void);

/* A phase's timed run on one stream is its ops' run (pfs/phase.h:
 * pfs_stream_run(p, s) runs phase p->kind): the data phases move their
 * transfers through one loop (src/core/stream_loop.c, stream_data.c), the
 * metadata phases visit their files or directories through another
 * (src/core/stream_meta.c). */

/* Local. The file or directory s is working on in a phase of kind (its
 * data file; in a metadata phase the small file or tree directory its
 * current call is on; find: the directory it reads), for the stall watchdog's message. Safe to call from
 * another thread (the name may be one item behind). */
void pfs_stream_where(const struct pfs_config *cfg, int kind, const struct pfs_stream *s, char *buf, size_t len);

/* Untimed: removes the small files s created (before a create that repeats
 * without a delete, and at the end), through s->md_fd. Returns 0 or the
 * first failure (-errno / PFS_ERR_*); s->md_created is then how many of
 * them are left.
 * pfs_stream_meta_clear uses the POSIX calls; _with, be's metadata calls
 * (those of pfs_backend_md). */
int pfs_stream_meta_clear(const struct pfs_config *cfg, struct pfs_stream *s);
int pfs_stream_meta_clear_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                               struct pfs_stream *s);

/* Records a failure on s (the first one only: later ones are its consequences). */
void pfs_stream_fail(struct pfs_stream *s, const char *op, const char *path, uint64_t off, int err, int sig,
                     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* The name of file i of stream id in dir. */
void pfs_md_path(char *out, size_t len, const char *dir, int stream, uint64_t i);

/* The --depth/--branch tree under a stream's directory (node 0, the
 * directory itself): nodes 1 .. pfs_md_tree_dirs(cfg) in breadth-first
 * order, node j's parent (j-1)/branch, named d.<stream>.<j>. File i of a
 * stream lies in node pfs_md_file_node(cfg, i): every node in turn, or
 * the leaves only with --leaf-only. pfs_md_tree_dirs is the directory count of
 * one tree (sum of branch^k, k = 1 .. depth), UINT64_MAX past 2^63.
 * pfs_md_node_path and pfs_md_file_path return -1 when out is too short;
 * with dir NULL they write the name relative to the stream's directory
 * ("d.0.1/d.0.4/f.0.7"; "" for node 0). */
uint64_t pfs_md_tree_dirs(const struct pfs_config *cfg);
/* Whose tree a stream's files lie in: its own (--dirs per-rank, as mdtest
 * -u), or with --dirs shared the one tree of stream 0 (mdtest without -u:
 * rank 0 makes it, every rank's files go in it); node names d.<owner>.<j>. */
int pfs_md_tree_owner(const struct pfs_config *cfg, int stream);
uint64_t pfs_md_file_node(const struct pfs_config *cfg, uint64_t i);
int pfs_md_node_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t node);
int pfs_md_file_path(char *out, size_t len, const struct pfs_config *cfg, const char *dir, int stream, uint64_t i);

/* Before the first phase over an earlier run's kept metadata (kept: what
 * pfs_config_md_kept says; --run-id): dirfd (the stream's directory, or the
 * run's, held open; dir its name) must be a directory of this user that
 * only its owner can write, and the first and last of the stream's files
 * (PFS_MD_KEPT_FILES) and of its tree's directories (PFS_MD_KEPT_TREE) must
 * be there, regular files and directories reached without a link, so the
 * options match the run that kept them. Untimed, local. 0, or -1 with the
 * reason in why. */
int pfs_stream_meta_probe(const struct pfs_config *cfg, int dirfd, const char *dir, int stream, unsigned kept,
                          char *why, size_t len);
/* Local. The part of the probe for one open directory (path its name):
 * this user's, writable by no one else. 0, or -1 with why set. */
int pfs_stream_meta_dir_ok(int fd, const char *path, char *why, size_t len);

/* Local. The first directory of s's tree held open whose name no longer
 * names it (moved or replaced during the run): 1 with its path (under
 * s->md_dir) in path and what its name leads to now in *now, else 0. */
int pfs_stream_meta_pins(const struct pfs_config *cfg, const struct pfs_stream *s, char *path, size_t len,
                         const char **now);
/* Local. The descriptor of tree node `node` held open, or -1. */
int pfs_stream_meta_node_fd(const struct pfs_stream *s, uint64_t node);
/* Local. The tree's directories held open go. */
void pfs_stream_meta_unpin(struct pfs_stream *s);

/* Removes the tree directories this stream made (md_tree_made of them),
 * deepest first, through be's metadata calls: 0 or the first negative errno
 * (PFS_ERR_REPLACED: node s->md_at, held open, is no longer at its name,
 * and stays). */
int pfs_stream_meta_rmtree_with(const struct pfs_backend *be, void *bectx, const struct pfs_config *cfg,
                                struct pfs_stream *s);

#endif
