/* The run driver: the thin MPI layer around the core. Every collective step
 * is preceded by an agreement, so no rank ever waits in a collective that
 * another rank skipped. */
#define _GNU_SOURCE
#include "pfs/mpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "pfs/clean.h"
#include "pfs/cmdline.h"
#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/fsinfo.h"
#include "pfs/report.h"
#include "pfs/results.h"
#include "pfs/safefile.h"
#include "pfs/stream.h"
#include "pfs/watch.h"

#define CLOCK_ROUNDS 8
#define PFS_TAG_ABORT 999

struct known_file {
    int created;
    struct pfs_fid fid;
};

struct ctx {
    MPI_Comm comm;
    int rank, nranks;
    struct pfs_config cfg;
    const struct pfs_backend *be;
    void *bectx;
    struct pfs_mpiio_ctx mpiio;
    char host[PFS_HOST_MAX];
    char (*hosts)[PFS_HOST_MAX];
    int *node_of_rank;
    int *node_of_stream;
    int nnodes;
    int threads, nstreams;
    int shift;                  /* reorder: read the data of rank (r+shift) mod n */
    char run_id[64];
    uint64_t seed;
    uint64_t nxfers;            /* transfers per stream in a full block */
    uint64_t data_xfers;        /* transfers per stream present in the files (stonewall may cut) */
    struct pfs_stream *streams; /* this rank's, threads of them */
    char md_top[PFS_PATH_MAX + 128]; /* the run's directory for metadata phases */
    int md_top_made;            /* rank 0 made md_top in this run */
    int writes;                 /* the phase list writes: this run's files are its own */
    int epoch;                  /* watchdog agreement counter, for message tags */
    struct pfs_run_data *d;     /* rank 0's record, NULL elsewhere */
    /* Live progress: rank 0 shows one line; the others report to it with
     * non-blocking sends on a communicator of their own, so no collective
     * is involved that a failed rank could hang. */
    int progress;               /* on for this run (rank 0 decided) */
    MPI_Comm pcomm;
    MPI_Request preq;           /* this rank's last report */
    uint64_t pbuf[3];           /* its content: phase sequence, bytes, ops */
    int psent;                  /* reports sent */
    int *precv;                 /* rank 0: reports received, per rank */
    uint64_t *pbytes, *pops;    /* rank 0: latest figures, per rank */
    double plast, pstart;
    int pseq, pkind, pshown;
    int cur_kind;               /* the phase running, for the watchdog's message */
    struct pfs_failure fail;    /* this rank's first failure, its streams' included */
    double *corr;               /* rank 0: clock correction per rank, seconds */
    /* Rank 0, under --timeout: what every stream has created, as far as the
     * last gather after a write phase told (the watchdog removes only those). */
    struct known_file *known;
    struct pfs_watch *watch;    /* this rank's stall watchdog thread */
    int in_results;             /* rank 0 is appending to the results file */
    int recorded;               /* the watchdog recorded the run (once) */
    int ending;                 /* a watchdog is ending the job (once) */
    int lock_fd;                /* rank 0: DIR/pfsbench.ID.lock, flock'ed while the run lives */
    int lock_made;
    struct pfs_fid lock_fid;
    char lock_path[PFS_PATH_MAX + 128];
    /* Rank 0: the results writer, loaded from its module on first use. */
    int (*results_check)(const char *, char *, size_t);
    int (*results_append)(const char *, const struct pfs_run_data *, char *, size_t, char *, size_t);
    /* The stonewall agreement among a rank's threads. */
    pthread_mutex_t sw_mu;
    pthread_barrier_t sw_bar;
    pthread_cond_t go_cv;       /* the phase's threads start together */
    int go;                     /* 0 wait, 1 run, -1 a thread failed to start: none runs */
    uint64_t sw_done, sw_target;
    int sw_failed;
};

/* The one mutable global: a signal handler can set nothing else. The
 * transfer loops read it and stop at the next transfer. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static void catch_signals(void)
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
    /* mpirun forwards USR1/USR2 to the ranks (it kills them on INT/TERM):
     * sbatch --signal=B:USR1@120 ends a run cleanly before the time limit. */
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void iso_time(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Local. Records this rank's own (non-stream) failure; none of these has an offset. */
static void set_fail(struct ctx *c, const char *op, const char *path, int err, const char *fmt, ...)
{
    if (c->fail.failed)
        return; /* keep the first failure: later ones are its consequences */
    c->fail.failed = 1;
    c->fail.rank = c->rank;
    c->fail.thread = -1;
    c->fail.err = err;
    c->fail.offset = PFS_NO_OFFSET;
    c->fail.when = now();
    c->fail.sig = interrupted;
    snprintf(c->fail.host, sizeof(c->fail.host), "%s", c->host);
    snprintf(c->fail.op, sizeof(c->fail.op), "%s", op);
    snprintf(c->fail.path, sizeof(c->fail.path), "%s", path ? path : "");
    c->fail.detail[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fail.detail, sizeof(c->fail.detail), fmt, ap);
        va_end(ap);
    }
}

/* Local. The rank's failure is its own (setup) or its first failed stream's. */
static void collect_failure(struct ctx *c)
{
    for (int i = 0; i < c->threads && !c->fail.failed; i++)
        if (c->streams[i].fail.failed)
            c->fail = c->streams[i].fail;
}

/* Local, rank 0. The results writer lives in a module loaded on first use,
 * so that the other ranks never map HDF5: libpfs_results.so beside the
 * executable (the build tree), else PFS_RESULTS_MODULE (the installed one).
 * 0 or -1 with err. */
static int results_load(struct ctx *c, char *err, size_t len)
{
    if (c->results_check && c->results_append)
        return 0;
    char exe[PATH_MAX] = "", here[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(here, sizeof(here), "%s/libpfs_results.so", exe);
    const char *tries[] = {here, PFS_RESULTS_MODULE};
    void *h = NULL;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !h; i++)
        if (access(tries[i], R_OK) == 0)
            h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
    if (h) {
        *(void **)&c->results_check = dlsym(h, "pfs_results_check");
        *(void **)&c->results_append = dlsym(h, "pfs_results_append");
    }
    if (!c->results_check || !c->results_append) {
        const char *why = dlerror();
        snprintf(err, len, "cannot load the results writer (%.200s or %.200s)%s%.200s; "
                 "use --no-results to run without it", here, PFS_RESULTS_MODULE, why ? ": " : "", why ? why : "");
        return -1;
    }
    return 0;
}

static int results_check(struct ctx *c, const char *path, char *err, size_t len)
{
    return results_load(c, err, len) ? -1 : c->results_check(path, err, len);
}

static int results_append(struct ctx *c, const struct pfs_run_data *d, char *name, size_t nlen, char *err,
                          size_t len)
{
    return results_load(c, err, len) ? -1 : c->results_append(c->cfg.results, d, name, nlen, err, len);
}

/* Collective. The agreement point: 1 when any rank failed. Also the barrier
 * that closes a phase. */
static void remove_run_files(struct ctx *c);
static void format_failure(const struct pfs_failure *f, char *msg, size_t len);
static void data_path(const struct ctx *c, int stream, char *out, size_t len);
static void allreduce_watched(struct ctx *c, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                              double since, const char *where);

static int agree(struct ctx *c)
{
    collect_failure(c);
    int mine = c->fail.failed, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

/* The same, under the watchdog: the agreement that ends a phase. */
static int agree_watched(struct ctx *c, double since, const char *where)
{
    collect_failure(c);
    int mine = c->fail.failed, any = 0;
    allreduce_watched(c, &mine, &any, 1, MPI_INT, MPI_MAX, since, where);
    return any;
}

/* Local, rank 0, the watchdog fired: record the run as failed with msg as
 * its cause, unless this rank had failed first (a create refused with
 * EEXIST, say): then that failure is the cause and msg what followed. */
static void record_watchdog(struct ctx *c, const char *msg)
{
    if (!c->d || c->in_results)
        return; /* the append itself stalled: a second writer would not help */
    /* The main thread's watchdog and this rank's stall thread may both fire: one record. */
    if (__atomic_exchange_n(&c->recorded, 1, __ATOMIC_ACQ_REL))
        return;
    collect_failure(c);
    c->d->status = "failed";
    if (c->fail.failed) {
        char first[800];
        format_failure(&c->fail, first, sizeof(first));
        snprintf(c->d->error, sizeof(c->d->error), "%s; then the watchdog: %s", first, msg);
    } else {
        snprintf(c->d->error, sizeof(c->d->error), "%s", msg);
    }
    iso_time(c->d->end_iso, sizeof(c->d->end_iso));
    char name[64], err[PFS_ERRLEN];
    if (!c->cfg.no_results && results_append(c, c->d, name, sizeof(name), err, sizeof(err)) == 0)
        fprintf(stderr, "pfsbench: the run is recorded in %s %s (failed)\n", c->cfg.results, name);
    else if (!c->cfg.no_results)
        fprintf(stderr, "pfsbench: error: results file %s: %s\n", c->cfg.results, err);
}

/* Local, rank 0, before the watchdog ends the job: the ranks that arrived
 * are polling in wait_watched, so they can remove the files they created
 * themselves (only they know them all); each answers when done. Waits 2 s
 * at most: a rank that does not answer is killed with its files left. */
static void tell_arrived_to_clean(struct ctx *c, const int *arrived)
{
    int n = 0, one = 1;
    for (int r = 1; r < c->nranks; r++)
        if (arrived[r - 1]) {
            MPI_Send(&one, 1, MPI_INT, r, PFS_TAG_ABORT, c->comm);
            n++;
        }
    const double until = now() + 2;
    struct timespec nap = {0, 1000000};
    while (n > 0 && now() < until) {
        int flag = 0, x;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, PFS_TAG_ABORT, c->comm, &flag, &st);
        if (flag) {
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
            n--;
        } else {
            nanosleep(&nap, NULL);
        }
    }
}

/* Local, a rank other than 0 waiting under the watchdog: rank 0 is ending
 * the job. Remove what this rank made, say so, and wait to be killed. */
static void clean_for_abort(struct ctx *c)
{
    int x, one = 1;
    MPI_Recv(&x, 1, MPI_INT, 0, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
    remove_run_files(c);
    MPI_Send(&one, 1, MPI_INT, 0, PFS_TAG_ABORT, c->comm);
    fflush(stderr);
    for (int i = 0; i < 100; i++)
        usleep(100000);
    _exit(PFS_EXIT_TIMEOUT); /* rank 0's MPI_Abort should have ended us by now */
}

/* Local, rank 0, the watchdog fired: say who is missing, record the run as
 * failed, remove this run's files (the other ranks will not), abort. */
static void watchdog_abort(struct ctx *c, const int *arrived, const char *where)
{
    if (__atomic_exchange_n(&c->ending, 1, __ATOMIC_ACQ_REL))
        for (;;)
            pause(); /* the stall thread is ending the job already */
    char msg[1024];
    int left = 0;
    for (int r = 1; r < c->nranks; r++)
        left += !arrived[r - 1];
    size_t m = left ? (size_t)snprintf(msg, sizeof(msg), "watchdog: %d rank%s did not finish %s within %g s:", left,
                                       left == 1 ? "" : "s", where, c->cfg.timeout)
                    : (size_t)snprintf(msg, sizeof(msg), "watchdog: every rank reached %s, but the agreement there did "
                                       "not complete within %g s (a rank stalled inside MPI);", where, c->cfg.timeout);
    int listed = 0;
    for (int r = 1; r < c->nranks && m < sizeof(msg); r++)
        if (!arrived[r - 1] && listed++ < 32)
            m += (size_t)snprintf(msg + m, sizeof(msg) - m, " rank %d on %s;", r, c->hosts[r]);
    fprintf(stderr, "pfsbench: error: %s aborting the job\n", msg);
    record_watchdog(c, msg);
    tell_arrived_to_clean(c, arrived);
    remove_run_files(c);
    fflush(stderr);
    MPI_Abort(c->comm, PFS_EXIT_TIMEOUT);
}

/* Collective. MPI_Allreduce, watched when --timeout is set: every rank tells
 * rank 0 it has arrived with a small message, then joins a non-blocking
 * allreduce; rank 0 polls both until `since + timeout` and past that names
 * the ranks that have not arrived and aborts the job (exit 3). Rank 0 never
 * sits in a blocking collective waiting for a stalled rank. */
/* Waits for one non-blocking collective under the watchdog. Rank 0 gives up
 * at since + timeout; the others later, so that normally rank 0, which can
 * name the culprit, speaks first, and they speak only when rank 0 itself
 * has stalled. Every rank has arrived at this step (an agreement before it
 * said so, or the caller counted arrivals), so rank 0 names none. */
static void wait_watched(struct ctx *c, MPI_Request *r, double since, const char *where)
{
    const double limit = c->rank == 0 ? since + c->cfg.timeout : since + 2 * c->cfg.timeout + 1;
    struct timespec nap = {0, 1000000};
    for (;;) {
        int flag = 0;
        if (MPI_Test(r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
            return;
        if (c->rank != 0 && MPI_Iprobe(0, PFS_TAG_ABORT, c->comm, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
            clean_for_abort(c);
        if (now() > limit) {
            if (c->rank == 0) {
                int *arrived = malloc(sizeof(int) * (size_t)c->nranks);
                for (int i = 0; arrived && i < c->nranks; i++)
                    arrived[i] = 1;
                watchdog_abort(c, arrived, where);
            }
            fprintf(stderr, "pfsbench: error: watchdog on rank %d (%s): %s did not complete within %g s; "
                    "rank 0 (%s) has not answered: aborting the job\n", c->rank, c->host, where, limit - since,
                    c->hosts[0]);
            fflush(stderr);
            MPI_Abort(c->comm, PFS_EXIT_TIMEOUT);
        }
        nanosleep(&nap, NULL);
    }
}

static void allreduce_watched(struct ctx *c, const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                              double since, const char *where)
{
    if (c->cfg.timeout <= 0 || c->nranks == 1) {
        MPI_Allreduce(in, out, count, type, op, c->comm);
        return;
    }
    const int tag = 1000 + (c->epoch++ % 30000);
    if (c->rank != 0) {
        int one = 1;
        MPI_Send(&one, 1, MPI_INT, 0, tag, c->comm);
        /* Non-blocking here too: a blocking collective never matches a
         * non-blocking one. */
        MPI_Request r;
        MPI_Iallreduce(in, out, count, type, op, c->comm, &r);
        wait_watched(c, &r, since, where);
        return;
    }
    int n = c->nranks - 1, left = n;
    MPI_Request *req = malloc(sizeof(*req) * (size_t)(n + 1));
    int *buf = malloc(sizeof(int) * (size_t)n), *arrived = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
        MPI_Irecv(&buf[i], 1, MPI_INT, i + 1, tag, c->comm, &req[i]);
    MPI_Iallreduce(in, out, count, type, op, c->comm, &req[n]);
    int reduced = 0;
    const double limit = since + c->cfg.timeout;
    struct timespec nap = {0, 1000000};
    while (left > 0 || !reduced) {
        int flag = 0;
        for (int i = 0; i < n; i++)
            if (!arrived[i] && MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
                arrived[i] = 1;
                left--;
            }
        if (!reduced && MPI_Test(&req[n], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
            reduced = 1;
        if (left == 0 && reduced)
            break;
        if (now() > limit)
            watchdog_abort(c, arrived, where);
        nanosleep(&nap, NULL);
    }
    free(req);
    free(buf);
    free(arrived);
}

/* Collective. MPI_Gather of the phase's times to rank 0, watched like the
 * agreements when --timeout is set: a rank that stalls between the
 * agreement and the gather must not hold the others in a blocking call. */
static void gather_watched(struct ctx *c, const void *in, int bytes, void *out, double since, const char *where)
{
    if (c->cfg.timeout <= 0 || c->nranks == 1) {
        MPI_Gather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, c->comm);
        return;
    }
    MPI_Request r;
    MPI_Igather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, 0, c->comm, &r);
    char w[96];
    snprintf(w, sizeof(w), "the gather of times after %s", where);
    wait_watched(c, &r, since, w);
}

/* Local. One failure as a sentence: rank, thread, host, what, path; the
 * offset only where one applies, errno only where there is one. */
static void format_failure(const struct pfs_failure *f, char *msg, size_t len)
{
    char who[32] = "";
    if (f->thread >= 0)
        snprintf(who, sizeof(who), " thread %d", f->thread);
    size_t n = (size_t)snprintf(msg, len, "rank %d%s on %s: %s%s%s", f->rank, who, f->host, f->op,
                                f->path[0] ? " " : "", f->path);
    if (f->offset != PFS_NO_OFFSET && n < len)
        n += (size_t)snprintf(msg + n, len - n, " at offset %" PRIu64, f->offset);
    if (f->err && n < len)
        n += (size_t)snprintf(msg + n, len - n, ": %s (errno %d)", strerror(f->err), f->err);
    if (f->detail[0] && n < len)
        snprintf(msg + n, len - n, ": %s", f->detail);
}

/* Local, rank 0. The cause among the failures: the earliest on rank 0's
 * clock (a rank's later failures, and other ranks', are its consequences). */
static int first_failure(const struct pfs_failure *all, int n, const double *corr)
{
    int first = -1;
    for (int r = 0; r < n; r++)
        if (all[r].failed &&
            (first < 0 || all[r].when + corr[r] < all[first].when + corr[first]))
            first = r;
    return first;
}

/* Collective, after agree() said some rank failed: rank 0 names the first
 * failure (the cause) and then every other failed rank on stderr, and keeps
 * the cause for the results file. */
static void report_failures(struct ctx *c, struct pfs_run_data *d)
{
    struct pfs_failure *all = NULL;
    if (c->rank == 0)
        all = calloc((size_t)c->nranks, sizeof(*all));
    MPI_Gather(&c->fail, (int)sizeof(c->fail), MPI_BYTE, all, (int)sizeof(c->fail), MPI_BYTE, 0, c->comm);
    if (c->rank != 0)
        return;
    if (!all) {
        fprintf(stderr, "pfsbench: error: a rank failed (no memory to gather the failures of %d ranks)\n", c->nranks);
        if (d && !d->error[0])
            snprintf(d->error, sizeof(d->error), "a rank failed; no memory to gather the failures");
        return;
    }
    int failed = 0, sig = 0;
    for (int r = 0; r < c->nranks; r++)
        if (all[r].failed) {
            failed++;
            if (all[r].sig > sig)
                sig = all[r].sig;
        }
    if (sig && d) {
        d->status = "interrupted";
        d->interrupt_signal = sig;
    }
    const int cause = first_failure(all, c->nranks, c->corr);
    char msg[1024];
    int shown = 0;
    for (int k = -1; k < c->nranks; k++) {
        int r = k < 0 ? cause : k;
        if (r < 0 || !all[r].failed || (k >= 0 && r == cause))
            continue;
        format_failure(&all[r], msg, sizeof(msg));
        if (shown++ < 16)
            fprintf(stderr, "pfsbench: error: %s%s\n", msg, failed > 1 && r == cause ? " (the first failure)" : "");
        if (d && !d->error[0])
            snprintf(d->error, sizeof(d->error), "%s", msg);
    }
    if (shown > 16)
        fprintf(stderr, "pfsbench: error: ... and %d more ranks failed\n", shown - 16);
    if (d && failed > 1) {
        size_t n = strlen(d->error);
        snprintf(d->error + n, sizeof(d->error) - n, " (the first of %d ranks that failed)", failed);
    }
    free(all);
}

/* Collective. Measures each rank's clock against rank 0's with ping-pongs
 * and keeps the round with the smallest round trip. */
static void measure_clocks(struct ctx *c, double *corr, double *unc)
{
    const int tag = 77;
    if (c->rank == 0) {
        corr[0] = unc[0] = 0;
        for (int r = 1; r < c->nranks; r++) {
            double t0[CLOCK_ROUNDS], tr[CLOCK_ROUNDS], t1[CLOCK_ROUNDS];
            for (int i = 0; i < CLOCK_ROUNDS; i++) {
                t0[i] = now();
                MPI_Send(&t0[i], 1, MPI_DOUBLE, r, tag, c->comm);
                MPI_Recv(&tr[i], 1, MPI_DOUBLE, r, tag, c->comm, MPI_STATUS_IGNORE);
                t1[i] = now();
            }
            pfs_clock_estimate(t0, tr, t1, CLOCK_ROUNDS, &corr[r], &unc[r]);
        }
    } else {
        for (int i = 0; i < CLOCK_ROUNDS; i++) {
            double x;
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, tag, c->comm, MPI_STATUS_IGNORE);
            x = now();
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, c->comm);
        }
    }
}

static void data_path(const struct ctx *c, int stream, char *out, size_t len)
{
    if (c->cfg.shared)
        snprintf(out, len, "%s/pfsbench.%s.shared", c->cfg.dir, c->run_id);
    else
        snprintf(out, len, "%s/pfsbench.%s.%d", c->cfg.dir, c->run_id, stream);
}

/* ---- hooks the streams call inside a phase (on the main thread for MPI) ---- */

/* The stonewall: a rank's threads meet at a barrier, stream 0 (the main
 * thread, the only one that calls MPI) agrees with the other ranks on the
 * largest count, and every stream wears out to it. */
static uint64_t hook_wearout(void *arg, struct pfs_stream *s, uint64_t done)
{
    struct ctx *c = arg;
    pthread_mutex_lock(&c->sw_mu);
    if (done > c->sw_done)
        c->sw_done = done;
    if (s->fail.failed)
        c->sw_failed = 1;
    pthread_mutex_unlock(&c->sw_mu);
    if (c->threads > 1)
        pthread_barrier_wait(&c->sw_bar);
    if (s->thread == 0) {
        uint64_t mine[2] = {c->sw_done, (uint64_t)c->sw_failed}, most[2];
        allreduce_watched(c, mine, most, 2, MPI_UINT64_T, MPI_MAX, s->t.open_start, "the stonewall agreement");
        c->sw_target = most[1] ? 0 : most[0];
    }
    if (c->threads > 1)
        pthread_barrier_wait(&c->sw_bar);
    return c->sw_target;
}

static int hook_agree_open(void *arg, int local_bad)
{
    struct ctx *c = arg;
    int any = 0;
    MPI_Allreduce(&local_bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

static int hook_agree_xfer(void *arg, int local_bad, int past_deadline)
{
    struct ctx *c = arg;
    int mine[2] = {local_bad, past_deadline}, any[2];
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, c->comm);
    return (any[0] ? 1 : 0) | (any[1] ? 2 : 0);
}

/* Rank 0: take every progress report that has arrived, keep the latest of
 * the current phase. */
static void progress_drain(struct ctx *c)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, 5, c->pcomm, &flag, &st);
        if (!flag)
            return;
        uint64_t b[3];
        MPI_Recv(b, 3, MPI_UINT64_T, st.MPI_SOURCE, 5, c->pcomm, MPI_STATUS_IGNORE);
        c->precv[st.MPI_SOURCE]++;
        if ((int)b[0] == c->pseq) {
            c->pbytes[st.MPI_SOURCE] = b[1];
            c->pops[st.MPI_SOURCE] = b[2];
        }
    }
}

/* Called from stream 0 (the main thread) every 16 transfers: at most once a
 * second it reads the rank's counters; other ranks send them, rank 0 prints. */
static void hook_progress(void *arg, struct pfs_stream *s)
{
    struct ctx *c = arg;
    if (s->thread != 0)
        return;
    double t = now();
    if (t - c->plast < 1.0)
        return;
    c->plast = t;
    uint64_t bytes = 0, ops = 0;
    for (int i = 0; i < c->threads; i++) {
        bytes += __atomic_load_n(&c->streams[i].t.bytes, __ATOMIC_RELAXED);
        ops += __atomic_load_n(&c->streams[i].t.xfers, __ATOMIC_RELAXED);
    }
    if (c->rank != 0) {
        int done = 1;
        if (c->preq != MPI_REQUEST_NULL)
            MPI_Test(&c->preq, &done, MPI_STATUS_IGNORE);
        if (!done)
            return; /* rank 0 is behind: skip this report rather than queue them */
        c->pbuf[0] = (uint64_t)c->pseq;
        c->pbuf[1] = bytes;
        c->pbuf[2] = ops;
        MPI_Isend(c->pbuf, 3, MPI_UINT64_T, 0, 5, c->pcomm, &c->preq);
        c->psent++;
        return;
    }
    progress_drain(c);
    c->pbytes[0] = bytes;
    c->pops[0] = ops;
    if (t - c->pstart < 2.0)
        return; /* short phases get no progress line */
    const int meta = pfs_phase_is_meta(c->pkind);
    double done = 0, want;
    for (int r = 0; r < c->nranks; r++)
        done += meta ? (double)c->pops[r] : (double)c->pbytes[r];
    if (meta)
        want = (double)c->cfg.files * c->nstreams;
    else
        want = (double)(c->pkind == PFS_PH_WRITE ? c->nxfers : c->data_xfers) * (double)c->cfg.transfer * c->nstreams;
    double rate = done / (t - c->pstart);
    double eta = rate > 0 && want > done ? (want - done) / rate : 0;
    int tty = isatty(STDERR_FILENO);
    if (meta)
        fprintf(stderr, "%s%-10s %5.1f%% %12.1f files/s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->pkind),
                want > 0 ? 100.0 * done / want : 0.0, rate, eta, tty ? "" : "\n");
    else
        fprintf(stderr, "%s%-10s %5.1f%% %12.2f %s  ETA %.0f s%s", tty ? "\r\033[K" : "", pfs_phase_name(c->pkind),
                want > 0 ? 100.0 * done / want : 0.0, rate / pfs_units_scale(c->cfg.units),
                pfs_units_label(c->cfg.units), eta, tty ? "" : "\n");
    fflush(stderr);
    c->pshown = 1;
}

struct worker {
    const struct pfs_phase_ctx *ph;
    struct pfs_stream *s;
    struct ctx *c;
};

static void run_one(struct worker *w)
{
    if (pfs_phase_is_meta(w->ph->kind))
        pfs_stream_meta(w->ph, w->s);
    else
        pfs_stream_data(w->ph, w->s);
}

/* A thread waits until every thread of the phase exists: should one fail to
 * start, none runs, since the stonewall's barrier would wait for it forever. */
static void *stream_main(void *arg)
{
    struct worker *w = arg;
    pthread_mutex_lock(&w->c->sw_mu);
    while (w->c->go == 0)
        pthread_cond_wait(&w->c->go_cv, &w->c->sw_mu);
    int go = w->c->go;
    pthread_mutex_unlock(&w->c->sw_mu);
    if (go > 0)
        run_one(w);
    return NULL;
}

/* Local (collective inside for the stonewall and collective MPI-IO). Runs
 * one timed phase on this rank's streams: threads 1..T-1 in pthreads, stream
 * 0 on the main thread, which alone calls MPI (MPI_THREAD_FUNNELED). */
static void run_streams(struct ctx *c, int kind)
{
    struct pfs_phase_ctx ph = {
        .cfg = &c->cfg,
        .be = c->be,
        .bectx = c->bectx,
        .kind = kind,
        .nstreams = c->nstreams,
        .seed = c->seed,
        .nxfers = c->nxfers,
        .data_xfers = c->data_xfers,
        .interrupted = &interrupted,
        .wearout = hook_wearout,
        .agree_xfer = hook_agree_xfer,
        .agree_open = hook_agree_open,
        .progress = c->progress ? hook_progress : NULL,
        .arg = c,
    };
    if (c->progress) {
        c->pseq++;
        c->pkind = kind;
        c->pstart = c->plast = now();
        c->pshown = 0;
        if (c->rank == 0)
            for (int r = 0; r < c->nranks; r++)
                c->pbytes[r] = c->pops[r] = 0;
    }
    c->sw_done = c->sw_target = 0;
    c->sw_failed = 0;
    pthread_t tid[c->threads > 1 ? c->threads : 1];
    struct worker w[c->threads > 1 ? c->threads : 1];
    int started = 1;
    c->go = 0;
    for (int i = 1; i < c->threads; i++) {
        w[i] = (struct worker){&ph, &c->streams[i], c};
        int e = pthread_create(&tid[i], NULL, stream_main, &w[i]);
        if (e != 0) {
            set_fail(c, "start a thread", "", e, "thread %d of %d", i, c->threads);
            break;
        }
        started++;
    }
    pthread_mutex_lock(&c->sw_mu);
    c->go = started == c->threads ? 1 : -1;
    pthread_cond_broadcast(&c->go_cv);
    pthread_mutex_unlock(&c->sw_mu);
    w[0] = (struct worker){&ph, &c->streams[0], c};
    if (c->go > 0)
        run_one(&w[0]);
    else if (c->cfg.deadline > 0 && !pfs_phase_is_meta(kind)) {
        /* The other ranks wait in the stonewall agreement: join it, failed. */
        uint64_t mine[2] = {0, 1}, most[2];
        allreduce_watched(c, mine, most, 2, MPI_UINT64_T, MPI_MAX, now(), "the stonewall agreement");
    }
    for (int i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    if (kind == PFS_PH_WRITE && c->cfg.deadline > 0)
        c->data_xfers = c->sw_target;
    if (c->pshown && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

/* Collective, at the end: every report sent is received, so none is left
 * unmatched at MPI_Finalize. */
static void progress_finish(struct ctx *c)
{
    if (!c->progress)
        return;
    if (c->preq != MPI_REQUEST_NULL)
        MPI_Wait(&c->preq, MPI_STATUS_IGNORE);
    int *sent = c->rank == 0 ? calloc((size_t)c->nranks, sizeof(int)) : NULL;
    MPI_Gather(&c->psent, 1, MPI_INT, sent, 1, MPI_INT, 0, c->comm);
    if (c->rank == 0) {
        for (int r = 1; r < c->nranks; r++)
            for (; c->precv[r] < sent[r]; c->precv[r]++) {
                uint64_t b[3];
                MPI_Recv(b, 3, MPI_UINT64_T, r, 5, c->pcomm, MPI_STATUS_IGNORE);
            }
        free(sent);
    }
    MPI_Comm_free(&c->pcomm);
}

/* Local, untimed: before a read phase, push this rank's files out of the
 * page cache; the lowest rank of each node also drops the whole cache when
 * it may (root). Returns 1 when it wrote drop_caches. */
static int drop_caches(struct ctx *c, int lowest_on_node)
{
    for (int i = 0; i < c->threads; i++) {
        /* Never through a link, never blocking on a FIFO: only the file to be read. */
        int fd = pfs_open_own(c->streams[i].rd_path, O_RDONLY, 0, &c->streams[i].rd_fid, NULL);
        if (fd >= 0) {
            fdatasync(fd);
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
        }
        if (c->cfg.shared)
            break;
    }
    if (!lowest_on_node || geteuid() != 0)
        return 0;
    sync();
    int pfd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (pfd < 0)
        return 0;
    int ok = write(pfd, "3\n", 2) == 2;
    close(pfd);
    return ok;
}

/* Local. Removes path when it is still the file this run created (fid);
 * says so when it cannot, naming the file and the way to clean it up.
 * 0 when nothing is left, -1 when something is. */
static int remove_own(struct ctx *c, const char *path, const struct pfs_fid *fid)
{
    int rc = pfs_unlink_own(path, fid);
    if (rc == 0 || rc == 1)
        return 0;
    fprintf(stderr, "pfsbench: warning: rank %d on %s: could not remove %s: %s; "
            "list this run's leftovers with pfsbench --clean -d %s\n", c->rank, c->host, path,
            rc == PFS_ERR_REPLACED ? "it is no longer the file this run created, so it is left alone" : strerror(-rc),
            c->cfg.dir);
    return -1;
}

/* Local, when the watchdog is about to end the job: the other ranks will
 * not clean up. Removes the files this rank's streams created and, on rank
 * 0, those the other streams had reported created by the last write phase,
 * each only while it is still the inode that was created. Files created
 * since that report stay, and the message points to --clean. Small files of
 * the metadata phases stay: only their ranks know how far they got. */
static void remove_run_files(struct ctx *c)
{
    if (c->cfg.keep)
        return;
    for (int i = 0; i < c->threads; i++)
        if (c->streams[i].created && remove_own(c, c->streams[i].path, &c->streams[i].fid) == 0)
            c->streams[i].created = 0;
    if (c->rank != 0)
        return;
    int unknown = 0;
    char path[PFS_PATH_MAX + 128];
    for (int s = c->threads; s < c->nstreams && !c->cfg.shared; s++) {
        if (!c->known || !c->known[s].created) {
            unknown += !c->known;
            continue;
        }
        data_path(c, s, path, sizeof(path));
        remove_own(c, path, &c->known[s].fid);
    }
    if (unknown && c->writes)
        fprintf(stderr, "pfsbench: warning: the other ranks' data files, if they had created any, may be left behind; "
                "list them with pfsbench --clean -d %s\n", c->cfg.dir);
    if (c->lock_made && pfs_unlink_own(c->lock_path, &c->lock_fid) == 0)
        c->lock_made = 0;
}

/* Collective, after a write phase under --timeout: rank 0 learns which
 * streams created their file and its inode, for remove_run_files. */
static void gather_known(struct ctx *c, double since)
{
    struct known_file mine[c->threads];
    for (int i = 0; i < c->threads; i++)
        mine[i] = (struct known_file){c->streams[i].created, c->streams[i].fid};
    if (c->rank == 0 && !c->known)
        c->known = calloc((size_t)c->nstreams, sizeof(*c->known));
    struct known_file *all = c->known;
    gather_watched(c, mine, (int)sizeof(mine), all, since, "the report of created files");
    for (int s = c->threads; c->rank == 0 && all && s < c->nstreams; s++)
        all[s].fid.dev = 0; /* another client's device number: the inode alone */
}

/* Local. Removes exactly the files and directories this rank made, under
 * the watchdog. Returns how many could not be removed (each named on stderr). */
static int cleanup(struct ctx *c)
{
    int left = 0;
    pfs_watch_step(c->watch, "the clean-up");
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *s = &c->streams[i];
        if (!c->cfg.keep && s->created) {
            if (remove_own(c, s->path, &s->fid) == 0)
                s->created = 0;
            else
                left++;
        }
        /* Small files go whatever --keep says: they are not data to read again. */
        int e = pfs_stream_meta_clear(&c->cfg, s);
        if (e) {
            fprintf(stderr, "pfsbench: warning: rank %d on %s: could not remove the small files in %s: %s; "
                    "list this run's leftovers with pfsbench --clean -d %s\n", c->rank, c->host, s->md_dir,
                    strerror(-e), c->cfg.dir);
            left++;
        }
        if (s->md_dir_made) {
            if (rmdir(s->md_dir) == 0)
                s->md_dir_made = 0;
            else {
                fprintf(stderr, "pfsbench: warning: rank %d on %s: could not remove %s: %s\n", c->rank, c->host,
                        s->md_dir, strerror(errno));
                left++;
            }
        }
    }
    pfs_watch_step(c->watch, NULL);
    return left;
}

static void make_run_id(char *out, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    uint64_t h = pfs_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec);
    for (const char *p = host; *p; p++)
        h = pfs_mix64(h ^ (uint64_t)(unsigned char)*p);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    snprintf(out, len, "%s-%06" PRIx64, stamp, h & 0xFFFFFF);
}

static uint64_t seed_of(const char *run_id)
{
    uint64_t h = 0x5046534245ULL;
    for (const char *p = run_id; *p; p++)
        h = pfs_mix64(h ^ (uint64_t)(unsigned char)*p);
    return h;
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
    const double records = 2.0 * cfg->nphases * cfg->reps * streams * sizeof(struct pfs_times) +
                           4.0 * streams * (sizeof(struct pfs_times) + sizeof(struct pfs_failure) / 4 + PFS_HOST_MAX);
    char need[32], have[32];
    snprintf(have, sizeof(have), "%.1f GiB", mem / (1 << 30));
    if (records > mem / 2) {
        snprintf(need, sizeof(need), "%.1f GiB", records / (1 << 30));
        snprintf(err, len, "the run's records need %s on rank 0 (%d phases x %d repetitions x %.0f streams x %zu bytes, "
                 "twice for the results file), more than half of this node's %s of memory; lower -i/--reps, "
                 "-T/--threads or the number of ranks", need, cfg->nphases, cfg->reps, streams,
                 sizeof(struct pfs_times), have);
        return -1;
    }
    const double buffers = (double)cfg->threads * (double)cfg->transfer;
    if (buffers > mem / 2) {
        snprintf(need, sizeof(need), "%.1f GiB", buffers / (1 << 30));
        snprintf(err, len, "the transfer buffers need %s per rank (-T %d x -t %llu bytes), more than half of this "
                 "node's %s of memory; lower -T/--threads or -t/--transfer", need, cfg->threads,
                 (unsigned long long)cfg->transfer, have);
        return -1;
    }
    return 0;
}

/* Local, rank 0: everything that can be refused before any file is made. */
static int precheck(struct ctx *c, char *err, size_t len)
{
    if (pfs_config_check_dir(&c->cfg, err, len) != 0)
        return -1;
    if (check_memory(c, err, len) != 0)
        return -1;
    if (c->cfg.direct) {
        unsigned a = pfs_dio_alignment(c->cfg.dir);
        if (c->cfg.transfer % a || c->cfg.block % a) {
            snprintf(err, len, "--direct needs transfer and block to be multiples of %u bytes on %.400s; "
                     "use e.g. -t %uk", a, c->cfg.dir, a >= 1024 ? a / 1024 : 4);
            return -1;
        }
    }
    if (c->cfg.api == PFS_API_MPIIO && c->cfg.transfer > (uint64_t)INT_MAX) {
        snprintf(err, len, "--api mpiio takes transfers below 2 GiB (an MPI count is an int)");
        return -1;
    }
    if (c->cfg.api == PFS_API_MPIIO && c->cfg.direct) {
        snprintf(err, len, "--direct is not available with --api mpiio; use --api posix "
                 "or an MPI-IO hint such as direct_read/direct_write");
        return -1;
    }
    if (!c->cfg.no_results && results_check(c, c->cfg.results, err, len) != 0)
        return -1;
    return 0;
}

/* ---- the stall watchdog's callbacks (on its own thread) ---- */

static uint64_t watch_progress(void *arg)
{
    struct ctx *c = arg;
    uint64_t n = 0;
    for (int i = 0; i < c->threads; i++)
        n += __atomic_load_n(&c->streams[i].t.xfers, __ATOMIC_RELAXED) +
             __atomic_load_n(&c->streams[i].work, __ATOMIC_RELAXED);
    return n;
}

static void watch_describe(void *arg, char *buf, size_t len)
{
    struct ctx *c = arg;
    for (int i = 0; i < c->threads; i++) {
        const char *op = __atomic_load_n(&c->streams[i].op, __ATOMIC_RELAXED);
        if (op) {
            char who[32] = "";
            if (c->threads > 1)
                snprintf(who, sizeof(who), " (thread %d)", i);
            snprintf(buf, len, "%s %s%s", op, pfs_phase_is_read(c->cur_kind) ? c->streams[i].rd_path
                                               : c->streams[i].path, who);
            return;
        }
    }
    snprintf(buf, len, "a system call");
}

/* Every call of this rank has stood still past the limit, so no poll on
 * the main thread can act: name the rank and the call, record the run
 * (rank 0), remove what this rank knows it created, and end the job. The
 * exit without MPI_Finalize makes mpirun end the other ranks. */
static void watch_fire(void *arg, const char *what)
{
    struct ctx *c = arg;
    if (__atomic_exchange_n(&c->ending, 1, __ATOMIC_ACQ_REL)) {
        sleep(10); /* the main thread is ending the job already; if it cannot, end it here */
        _exit(PFS_EXIT_TIMEOUT);
    }
    char msg[900];
    snprintf(msg, sizeof(msg), "watchdog: rank %d on %s %s", c->rank, c->host, what);
    fprintf(stderr, "pfsbench: error: %s; ending the job\n", msg);
    record_watchdog(c, msg);
    remove_run_files(c);
    fflush(stderr);
    fflush(stdout);
    _exit(PFS_EXIT_TIMEOUT);
}

/* Local, rank 0. Marks the run live before anything else is made:
 * DIR/pfsbench.ID.lock, holding "host pid", flock'ed for the run's lifetime
 * (flock on a regular file holds across clients of GlusterFS, NFSv4, Lustre
 * with -o flock, GPFS). --clean leaves alone the files of a run whose lock
 * is held, and a run id whose lock is held is refused. A stale lock (its
 * run died) is taken over but not removed: --clean removes it. */
static int take_run_lock(struct ctx *c, char *err, size_t len)
{
    snprintf(c->lock_path, sizeof(c->lock_path), "%s/pfsbench.%s.lock", c->cfg.dir, c->run_id);
    int fd = pfs_open_own(c->lock_path, O_RDWR | O_CREAT | O_EXCL, 0644, NULL, &c->lock_fid);
    c->lock_made = fd >= 0;
    if (fd == -EEXIST)
        fd = pfs_open_own(c->lock_path, O_RDWR, 0, NULL, &c->lock_fid);
    if (fd < 0) {
        char why[200];
        snprintf(err, len, "cannot make the run's lock file %.250s: %.150s", c->lock_path,
                 pfs_safefile_why(fd, c->lock_path, why, sizeof(why)) ? why : strerror(-fd));
        return -1;
    }
    int locked = 0;
    for (int i = 0; i < 5 && !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0); i++)
        usleep(20000); /* a --clean may be probing it this instant */
    if (!locked) {
        char owner[128] = "";
        ssize_t n = pread(fd, owner, sizeof(owner) - 1, 0);
        owner[n > 0 ? n : 0] = '\0';
        owner[strcspn(owner, "\n")] = '\0';
        snprintf(err, len, "run id %.63s is in use by a live run (%.100s holds %.200s); choose another --run-id, or wait for it",
                 c->run_id, owner[0] ? owner : "another process", c->lock_path);
        close(fd);
        if (c->lock_made)
            pfs_unlink_own(c->lock_path, &c->lock_fid);
        return -1;
    }
    if (c->lock_made) {
        char owner[128];
        int n = snprintf(owner, sizeof(owner), "%s %ld\n", c->host, (long)getpid());
        if (pwrite(fd, owner, (size_t)n, 0) != n)
            fprintf(stderr, "pfsbench: warning: could not write %s: %s\n", c->lock_path, strerror(errno));
    }
    c->lock_fd = fd;
    return 0;
}

/* Local, rank 0, at the very end: the run is no longer live. */
static void drop_run_lock(struct ctx *c)
{
    if (c->lock_fd < 0)
        return;
    if (c->lock_made && pfs_unlink_own(c->lock_path, &c->lock_fid) < 0)
        fprintf(stderr, "pfsbench: warning: could not remove %s: %s\n", c->lock_path, strerror(errno));
    close(c->lock_fd);
    c->lock_fd = -1;
}

/* Collective, after a write phase of files per stream: each stream learns
 * the inode of the file it will read (its own, or with -C another rank's),
 * so a read opens that inode or nothing. */
static void exchange_fids(struct ctx *c, double since)
{
    const int to = (c->rank - c->shift + c->nranks) % c->nranks, from = (c->rank + c->shift) % c->nranks;
    struct pfs_fid mine[c->threads], theirs[c->threads];
    for (int i = 0; i < c->threads; i++)
        mine[i] = c->streams[i].fid;
    if (c->shift == 0) {
        memcpy(theirs, mine, sizeof(mine));
    } else {
        MPI_Request r[2];
        MPI_Irecv(theirs, (int)sizeof(theirs), MPI_BYTE, from, 78, c->comm, &r[1]);
        MPI_Isend(mine, (int)sizeof(mine), MPI_BYTE, to, 78, c->comm, &r[0]);
        if (c->cfg.timeout > 0 && c->nranks > 1) {
            wait_watched(c, &r[1], since, "the exchange of file identities");
            wait_watched(c, &r[0], since, "the exchange of file identities");
        } else {
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
    }
    for (int i = 0; i < c->threads; i++) {
        c->streams[i].rd_fid = theirs[i];
        if (c->shift)
            c->streams[i].rd_fid.dev = 0; /* another client's device number: the inode alone */
    }
}

/* Local, rank 0: the shared file, made untimed so that every rank's timed
 * open finds it; O_EXCL, so a file of that name already there is refused. */
static void make_shared_file(struct ctx *c)
{
    struct pfs_stream *s = &c->streams[0];
    int fd = pfs_open_own(s->path, O_WRONLY | O_CREAT | O_EXCL, 0644, NULL, &s->fid);
    if (fd < 0) {
        set_fail(c, "create", s->path, -fd, fd == -EEXIST ? "a file of that name is already there; pfsbench never "
                 "reuses a file it did not create" : NULL);
        return;
    }
    close(fd);
    s->created = 1;
}

/* Local, under the watchdog: the untimed work before a phase. Returns 1
 * when this rank wrote drop_caches. Failures go to set_fail. */
static int prepare_phase(struct ctx *c, int kind, int rep, int has_delete, int lowest_on_node)
{
    int drops = 0;
    char step[96];
    snprintf(step, sizeof(step), "the preparation of %s (repetition %d)", pfs_phase_name(kind), rep);
    pfs_watch_step(c->watch, step);
    if (interrupted)
        set_fail(c, "interrupted", "", 0, "signal %d (%s) between phases", (int)interrupted, strsignal(interrupted));
    /* A write starts from an empty file: rank 0 empties the shared one
     * through a descriptor of the inode it made, never by path. */
    struct pfs_stream *s0 = &c->streams[0];
    if (c->cfg.shared && kind == PFS_PH_WRITE && c->rank == 0 && s0->created) {
        int fd = pfs_open_own(s0->path, O_WRONLY | O_TRUNC, 0, &s0->fid, NULL);
        char why[200];
        if (fd >= 0)
            close(fd);
        else if (pfs_safefile_why(fd, s0->path, why, sizeof(why)))
            set_fail(c, "truncate", s0->path, 0, "%s", why);
        else
            set_fail(c, "truncate", s0->path, -fd, NULL);
    }
    if (c->cfg.drop_caches && pfs_phase_is_read(kind))
        drops = drop_caches(c, lowest_on_node);
    /* A create that repeats without a delete in the list starts from an
     * empty directory, like a write starts from an empty file. */
    if (kind == PFS_PH_CREATE && rep > 0 && !has_delete)
        for (int i = 0; i < c->threads; i++) {
            int e = pfs_stream_meta_clear(&c->cfg, &c->streams[i]);
            if (e)
                set_fail(c, "remove", c->streams[i].md_dir, -e, "clearing the files of the last create");
        }
    pfs_watch_step(c->watch, NULL);
    return drops;
}

/* Collective. The longest call any rank was blocked in (past --stall-warn
 * seconds, with or without --timeout) becomes a warning of the run: rank,
 * host, call, seconds, and how many ranks had one. */
static void note_stalls(struct ctx *c, struct pfs_run_data *d)
{
    char desc[512] = "";
    struct {
        double s;
        int rank;
    } mine = {pfs_watch_longest(c->watch, desc, sizeof(desc)), c->rank}, top;
    int had = mine.s > 0, nhad = 0;
    MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, c->comm);
    MPI_Reduce(&had, &nhad, 1, MPI_INT, MPI_SUM, 0, c->comm);
    if (top.s <= 0)
        return;
    if (top.rank != 0 && c->rank == top.rank)
        MPI_Send(desc, (int)sizeof(desc), MPI_CHAR, 0, 79, c->comm);
    else if (top.rank != 0 && c->rank == 0)
        MPI_Recv(desc, (int)sizeof(desc), MPI_CHAR, top.rank, 79, c->comm, MPI_STATUS_IGNORE);
    if (c->rank != 0)
        return;
    desc[sizeof(desc) - 1] = '\0';
    char w[900], more[96] = "";
    if (nhad > 1)
        snprintf(more, sizeof(more), " (%d ranks had calls blocked over %g s)", nhad, c->cfg.stall_warn);
    snprintf(w, sizeof(w), "long-blocked call: rank %d on %s was blocked %.1f s in %s%s", top.rank,
             c->hosts[top.rank], top.s, desc, more);
    pfs_run_warn(d, "%s", w);
    if (!c->cfg.quiet)
        fprintf(c->cfg.format == PFS_FORMAT_TEXT ? stdout : stderr, "warning      %s\n", w);
}

/* Collective, at the end: each rank removes what it made (under the
 * watchdog), then rank 0 the run's metadata directory, once every rank has
 * emptied its part; what could not be removed becomes a warning of the run. */
static void finish_files(struct ctx *c, struct pfs_run_data *d)
{
    int left = cleanup(c), total = 0;
    allreduce_watched(c, &left, &total, 1, MPI_INT, MPI_SUM, now(), "the clean-up");
    if (c->md_top_made) {
        if (rmdir(c->md_top) == 0)
            c->md_top_made = 0;
        else {
            fprintf(stderr, "pfsbench: warning: could not remove %s: %s; list this run's leftovers with "
                    "pfsbench --clean -d %s\n", c->md_top, strerror(errno), c->cfg.dir);
            total++;
        }
    }
    if (d && total)
        pfs_run_warn(d, "%d file%s or director%s of this run could not be removed (named on stderr); "
                     "pfsbench --clean -d %s lists them", total, total == 1 ? "" : "s", total == 1 ? "y" : "ies",
                     c->cfg.dir);
    note_stalls(c, d);
}

int pfs_main(MPI_Comm comm, int argc, char **argv)
{
    struct ctx c;
    memset(&c, 0, sizeof(c));
    c.comm = comm;
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.nranks);
    c.lock_fd = -1;
    char err[PFS_ERRLEN] = "";
    int hlen = 0;
    char pname[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(pname, &hlen);
    snprintf(c.host, sizeof(c.host), "%.*s", PFS_HOST_MAX - 1, pname);

    /* Every rank parses alike and reaches the same verdict; rank 0 speaks. */
    enum pfs_parse_result pr = pfs_config_parse(&c.cfg, argc, argv, err, sizeof(err));
    if (pr == PFS_PARSE_HELP || pr == PFS_PARSE_VERSION) {
        if (c.rank == 0) {
            if (pr == PFS_PARSE_HELP)
                pfs_config_usage(stdout);
            else
                printf("pfsbench %s (git %s)\n", PFS_VERSION, PFS_GIT_REV);
        }
        return PFS_EXIT_OK;
    }
    if (pr == PFS_PARSE_RUN && c.cfg.clean) {
        int rc = PFS_EXIT_OK;
        if (c.rank == 0) {
            struct stat st;
            if (stat(c.cfg.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "pfsbench: error: --clean: '%s' is not a directory\n", c.cfg.dir);
                rc = PFS_EXIT_USAGE;
            } else if (pfs_clean(c.cfg.dir, c.cfg.yes, c.cfg.any_owner, stdout, err, sizeof(err)) < 0) {
                fprintf(stderr, "pfsbench: error: --clean: %s\n", err);
                rc = PFS_EXIT_IO;
            }
        }
        MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
        return rc;
    }
    if (pr == PFS_PARSE_RUN && pfs_config_resolve(&c.cfg, c.nranks, err, sizeof(err)) != 0)
        pr = PFS_PARSE_ERROR;
    int bad = pr == PFS_PARSE_ERROR;
    if (!bad && c.rank == 0)
        bad = precheck(&c, err, sizeof(err)) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
    if (bad) {
        if (c.rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        return PFS_EXIT_USAGE;
    }
    struct pfs_config *cfg = &c.cfg;
    catch_signals();

    /* Backend. */
    if (cfg->api == PFS_API_MPIIO) {
        if (pfs_mpiio_init(&c.mpiio, comm, cfg->collective, cfg->hints, cfg->nhints, err, sizeof(err)) != 0) {
            if (c.rank == 0)
                fprintf(stderr, "pfsbench: error: %s\n", err);
            return PFS_EXIT_USAGE;
        }
        c.be = &pfs_backend_mpiio;
        c.bectx = &c.mpiio;
    } else {
        c.be = &pfs_backend_posix;
        c.bectx = NULL;
    }

    /* Run id and seed: one for all ranks. */
    char start_iso[32];
    iso_time(start_iso, sizeof(start_iso));
    if (c.rank == 0) {
        if (cfg->run_id[0])
            snprintf(c.run_id, sizeof(c.run_id), "%s", cfg->run_id);
        else
            make_run_id(c.run_id, sizeof(c.run_id));
    }
    MPI_Bcast(c.run_id, sizeof(c.run_id), MPI_CHAR, 0, comm);
    c.seed = seed_of(c.run_id);

    /* The run is live from here on: its lock is the first thing it makes. */
    bad = c.rank == 0 && take_run_lock(&c, err, sizeof(err)) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
    if (bad) {
        if (c.rank == 0)
            fprintf(stderr, "pfsbench: error: %s\n", err);
        if (cfg->api == PFS_API_MPIIO)
            pfs_mpiio_fini(&c.mpiio);
        return PFS_EXIT_USAGE;
    }

    /* Placement: the real one, from the processor names. */
    c.hosts = calloc((size_t)c.nranks, PFS_HOST_MAX);
    c.node_of_rank = calloc((size_t)c.nranks, sizeof(int));
    double *corr = calloc((size_t)c.nranks, sizeof(double)), *unc = calloc((size_t)c.nranks, sizeof(double));
    MPI_Allgather(c.host, PFS_HOST_MAX, MPI_CHAR, c.hosts, PFS_HOST_MAX, MPI_CHAR, comm);
    c.nnodes = pfs_placement_nodes((const char(*)[PFS_HOST_MAX])c.hosts, c.nranks, c.node_of_rank);
    int lowest_on_node = 1;
    for (int q = 0; q < c.rank; q++)
        if (c.node_of_rank[q] == c.node_of_rank[c.rank])
            lowest_on_node = 0;
    c.shift = cfg->reorder ? pfs_reorder_shift(c.node_of_rank, c.nranks) : 0;
    measure_clocks(&c, corr, unc);
    c.corr = corr;
    /* A correction smaller than its own uncertainty is noise (ranks of one
     * node share a clock, and an oversubscribed node stretches the round
     * trips): applying it would skew short phases, so it is not applied. */
    for (int r = 0; r < c.nranks; r++)
        if (fabs(corr[r]) <= unc[r])
            corr[r] = 0;

    c.nxfers = cfg->block / cfg->transfer;
    c.data_xfers = c.nxfers;
    c.threads = cfg->threads;
    c.nstreams = c.nranks * c.threads;
    c.node_of_stream = calloc((size_t)c.nstreams, sizeof(int));
    for (int s = 0; s < c.nstreams; s++)
        c.node_of_stream[s] = c.node_of_rank[s / c.threads];
    pthread_mutex_init(&c.sw_mu, NULL);
    pthread_cond_init(&c.go_cv, NULL);
    pthread_barrier_init(&c.sw_bar, NULL, (unsigned)c.threads);

    /* The streams of this rank. Each has its own transfer buffer: aligned
     * for O_DIRECT and for fast read() (a buffer 16 bytes off a page made
     * read() 3x slower here), filled once with incompressible bytes so no
     * compressing file system reports fantasy bandwidth. With -C a stream
     * reads the same thread's data of rank (r+shift) mod n. */
    snprintf(c.md_top, sizeof(c.md_top), "%s/pfsbench.%s.md", cfg->dir, c.run_id);
    size_t align = cfg->direct ? pfs_dio_alignment(cfg->dir) : 4096;
    if (align < 4096)
        align = 4096;
    c.streams = calloc((size_t)c.threads, sizeof(*c.streams));
    for (int i = 0; i < c.threads; i++) {
        struct pfs_stream *st = &c.streams[i];
        st->id = c.rank * c.threads + i;
        st->rank = c.rank;
        st->thread = i;
        st->rd_writer = ((c.rank + c.shift) % c.nranks) * c.threads + i;
        data_path(&c, st->id, st->path, sizeof(st->path));
        data_path(&c, st->rd_writer, st->rd_path, sizeof(st->rd_path));
        if (cfg->dirs == PFS_DIRS_PER_RANK) {
            snprintf(st->md_dir, sizeof(st->md_dir), "%s/s%d", c.md_top, st->id);
            snprintf(st->md_rd_dir, sizeof(st->md_rd_dir), "%s/s%d", c.md_top, st->rd_writer);
        } else {
            snprintf(st->md_dir, sizeof(st->md_dir), "%s", c.md_top);
            snprintf(st->md_rd_dir, sizeof(st->md_rd_dir), "%s", c.md_top);
        }
        st->fail.rank = c.rank;
        st->fail.thread = c.threads > 1 ? i : -1;
        snprintf(st->fail.host, sizeof(st->fail.host), "%s", c.host);
        if (posix_memalign(&st->buf, align, (size_t)cfg->transfer) != 0) {
            st->buf = NULL;
            set_fail(&c, "allocate the transfer buffer", "", ENOMEM, NULL);
        } else {
            pfs_random_fill(st->buf, (size_t)cfg->transfer, c.seed ^ pfs_mix64((uint64_t)st->id));
        }
    }

    /* The stall watchdog: a thread of its own, so that a call blocked in
     * the kernel on every rank is still seen. Rank 0 fires first; the
     * others later, so that normally rank 0, which can record the run and
     * name the rank it waits for, speaks. */
    struct pfs_watch_ops wops = {
        .warn = cfg->stall_warn,
        .timeout = cfg->timeout <= 0 ? 0 : c.rank == 0 ? cfg->timeout : 1.5 * cfg->timeout + 1,
        .tick = 0.05,
        .progress = watch_progress,
        .describe = watch_describe,
        .fire = watch_fire,
        .arg = &c,
    };
    c.watch = pfs_watch_start(&wops);
    if (!c.watch)
        set_fail(&c, "start the watchdog thread", "", EAGAIN, NULL);

    /* Live progress: forced, or when rank 0 writes the text report to a terminal. */
    c.preq = MPI_REQUEST_NULL;
    if (c.rank == 0)
        c.progress = cfg->progress ||
                     (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO));
    MPI_Bcast(&c.progress, 1, MPI_INT, 0, comm);
    if (c.progress) {
        MPI_Comm_dup(comm, &c.pcomm);
        if (c.rank == 0) {
            c.precv = calloc((size_t)c.nranks, sizeof(int));
            c.pbytes = calloc((size_t)c.nranks, sizeof(uint64_t));
            c.pops = calloc((size_t)c.nranks, sizeof(uint64_t));
        }
    }

    /* Memory per node, for the cache warning. */
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double *mems = c.rank == 0 ? calloc((size_t)c.nranks, sizeof(double)) : NULL;
    MPI_Gather(&mem, 1, MPI_DOUBLE, mems, 1, MPI_DOUBLE, 0, comm);

    /* Rank 0's record of the run. */
    struct pfs_run_data d;
    memset(&d, 0, sizeof(d));
    struct pfs_times *times = NULL, *gathered = NULL;
    int *reps_done = NULL;
    char cmdline[8192];
    char mpiver[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    if (c.rank == 0) {
        int ml = 0;
        MPI_Get_library_version(mpiver, &ml);
        for (char *p = mpiver; *p; p++)
            if (*p == '\n')
                *p = ' ';
        pfs_cmdline_join(argc, argv, cmdline, sizeof(cmdline));
        times = calloc((size_t)cfg->nphases * (size_t)cfg->reps * (size_t)c.nstreams, sizeof(*times));
        gathered = calloc((size_t)c.nstreams, sizeof(*gathered));
        reps_done = calloc((size_t)cfg->nphases, sizeof(int));
        c.d = &d;
        d.cfg = cfg;
        snprintf(d.run_id, sizeof(d.run_id), "%s", c.run_id);
        d.seed = c.seed;
        snprintf(d.start_iso, sizeof(d.start_iso), "%s", start_iso);
        d.status = "complete";
        d.cmdline = cmdline;
        d.mpi_version = mpiver;
        pfs_fs_type(cfg->dir, d.fstype, sizeof(d.fstype));
        d.nranks = c.nranks;
        d.nnodes = c.nnodes;
        d.hosts = (const char(*)[PFS_HOST_MAX])c.hosts;
        d.node_of_rank = c.node_of_rank;
        d.threads = c.threads;
        d.nstreams = c.nstreams;
        d.node_of_stream = c.node_of_stream;
        d.clock_corr = corr;
        d.clock_unc = unc;
        d.reorder_shift = c.shift;
        d.nphases = cfg->nphases;
        d.reps = cfg->reps;
        d.times = times;
        d.reps_done = reps_done;
        const char *rr = getenv("PFSBENCH_PLACEMENT");
        d.round_robin_asked = rr && strcmp(rr, "round-robin") == 0;

        for (int i = 0; i < cfg->nhints; i++)
            if (pfs_hint_known(cfg->hints[i]) == 0)
                pfs_run_warn(&d, "hint '%s' is not one pfsbench knows; passed to MPI-IO unchecked", cfg->hints[i]);
        if (!pfs_placement_is_even(c.node_of_rank, c.nranks, c.nnodes))
            pfs_run_warn(&d, "uneven placement: nodes hold different rank counts; per-node bandwidths are not comparable");
        if (d.round_robin_asked && !pfs_placement_is_round_robin(c.node_of_rank, c.nranks, c.nnodes))
            pfs_run_warn(&d, "round-robin placement was asked for, but rank r is not on node r mod %d", c.nnodes);
        if (cfg->reorder && c.shift == 0)
            pfs_run_warn(&d, "--reorder on one node: every rank reads its own node's data, which may come from cache");
        else if (cfg->reorder)
            pfs_run_warn(&d, "reorder: rank r reads the data of rank (r+%d) mod %d, on another node", c.shift, c.nranks);
        int has_read = 0;
        for (int i = 0; i < cfg->nphases; i++)
            has_read |= pfs_phase_is_read(cfg->phases[i]);
        if (has_read && !cfg->direct && !cfg->drop_caches && c.shift == 0) {
            /* The PixStor and bonnie++ rule: data under twice the memory of
             * a node can be served from its page cache. */
            for (int n = 0; n < c.nnodes; n++) {
                double data = 0, nodemem = 0;
                for (int r = 0; r < c.nranks; r++)
                    if (c.node_of_rank[r] == n) {
                        data += (double)cfg->block * c.threads;
                        nodemem = mems[r];
                    }
                if (data < 2 * nodemem) {
                    pfs_run_warn(&d, "reads may be served from the page cache: %.0f MiB per node is less than twice "
                                 "the node's %.0f MiB of memory; use --direct, --drop-caches or -C across nodes",
                                 data / PFS_MIB, nodemem / PFS_MIB);
                    break;
                }
            }
        }
        if (!cfg->quiet && cfg->format == PFS_FORMAT_TEXT) {
            pfs_report_header(stdout, &d);
            if (cfg->verbose)
                pfs_report_placement(stdout, &d);
            pfs_report_columns(stdout, &d);
            fflush(stdout);
        }
    }
    free(mems);

    int failed = agree(&c);
    if (failed)
        report_failures(&c, c.rank == 0 ? &d : NULL);

    /* Shared file: rank 0 makes it, untimed, so that every rank's timed
     * open finds it; O_EXCL, so a file of that name already there is refused.
     * Metadata phases: rank 0 makes the run's directory, each stream its own
     * with --dirs per-rank; mkdir, so a directory already there is refused. */
    int has_meta = 0;
    for (int i = 0; i < cfg->nphases; i++) {
        c.writes |= cfg->phases[i] == PFS_PH_WRITE;
        has_meta |= pfs_phase_is_meta(cfg->phases[i]);
    }
    if (!failed && ((cfg->shared && c.writes) || has_meta)) {
        if (c.rank == 0 && cfg->shared && c.writes)
            make_shared_file(&c);
        if (c.rank == 0 && has_meta) {
            if (mkdir(c.md_top, 0755) != 0)
                set_fail(&c, "mkdir", c.md_top, errno, NULL);
            else
                c.md_top_made = 1;
        }
        failed = agree(&c);
        if (!failed && cfg->shared && c.writes) {
            /* Every rank opens that inode and no other. */
            MPI_Bcast(&c.streams[0].fid, (int)sizeof(struct pfs_fid), MPI_BYTE, 0, comm);
            if (c.rank != 0)
                c.streams[0].fid.dev = 0; /* another client's device number: the inode alone */
            for (int i = 0; i < c.threads; i++)
                c.streams[i].fid = c.streams[i].rd_fid = c.streams[0].fid;
        }
        if (!failed && has_meta && cfg->dirs == PFS_DIRS_PER_RANK) {
            for (int i = 0; i < c.threads; i++) {
                if (mkdir(c.streams[i].md_dir, 0755) != 0)
                    set_fail(&c, "mkdir", c.streams[i].md_dir, errno, NULL);
                else
                    c.streams[i].md_dir_made = 1;
            }
            failed = agree(&c);
        }
        if (failed)
            report_failures(&c, c.rank == 0 ? &d : NULL);
    }
    int has_delete = 0;
    for (int i = 0; i < cfg->nphases; i++)
        has_delete |= cfg->phases[i] == PFS_PH_DELETE;

    int dropped_notice = 0;
    for (int rep = 0; rep < cfg->reps && !failed; rep++) {
        for (int p = 0; p < cfg->nphases && !failed; p++) {
            int kind = cfg->phases[p];
            /* Untimed preparation, then agreement, then the opening barrier. */
            int drops = prepare_phase(&c, kind, rep, has_delete, lowest_on_node);
            char where[64];
            snprintf(where, sizeof(where), "the start of %s (repetition %d)", pfs_phase_name(kind), rep);
            /* No rank leaves an allreduce before every rank has entered it:
             * this agreement is also the barrier before the phase. */
            int pre[2] = {c.fail.failed, drops}, sum[2];
            allreduce_watched(&c, pre, sum, 2, MPI_INT, MPI_SUM, now(), where);
            if (sum[0]) {
                failed = 1;
                report_failures(&c, c.rank == 0 ? &d : NULL);
                break;
            }
            if (c.rank == 0 && cfg->drop_caches && pfs_phase_is_read(kind) && !dropped_notice && !cfg->quiet) {
                fprintf(cfg->format == PFS_FORMAT_TEXT ? stdout : stderr, "cache        before each read phase: fdatasync + posix_fadvise(DONTNEED) on every file; "
                       "/proc/sys/vm/drop_caches written on %d of %d nodes\n", sum[1], c.nnodes);
                dropped_notice = 1;
            }
            double phase_start = now();
            snprintf(where, sizeof(where), "%s (repetition %d)", pfs_phase_name(kind), rep);
            c.cur_kind = kind;
            pfs_watch_step(c.watch, where);
            run_streams(&c, kind);
            pfs_watch_step(c.watch, NULL);
            failed = agree_watched(&c, phase_start, where);
            struct pfs_times mine[c.threads];
            for (int i = 0; i < c.threads; i++)
                mine[i] = c.streams[i].t;
            int sz = (int)sizeof(struct pfs_times) * c.threads;
            gather_watched(&c, mine, sz, gathered, phase_start, where);
            if (c.rank == 0) {
                /* One clock: put every stream's times on rank 0's. */
                struct pfs_times *dst = times + ((size_t)p * (size_t)cfg->reps + (size_t)rep) * (size_t)c.nstreams;
                for (int s = 0; s < c.nstreams; s++) {
                    double k = corr[s / c.threads];
                    dst[s] = gathered[s];
                    dst[s].open_start += k;
                    dst[s].open_end += k;
                    dst[s].xfer_end += k;
                    dst[s].close_end += k;
                    if (dst[s].sw_end > 0)
                        dst[s].sw_end += k;
                }
                /* A failed repetition's times stay out of the statistics;
                 * the error message says what happened to it. */
                if (!failed)
                    reps_done[p] = rep + 1;
                if (!failed && !cfg->quiet && cfg->format == PFS_FORMAT_TEXT) {
                    pfs_report_row(stdout, &d, p, rep);
                    fflush(stdout);
                }
            }
            if (!failed && kind == PFS_PH_WRITE && !cfg->shared)
                exchange_fids(&c, phase_start);
            if (!failed && kind == PFS_PH_WRITE && cfg->timeout > 0)
                gather_known(&c, phase_start);
            if (failed)
                report_failures(&c, c.rank == 0 ? &d : NULL);
        }
    }

    progress_finish(&c);

    /* Every rank is past its last phase: files can go. */
    finish_files(&c, c.rank == 0 ? &d : NULL);
    int rc = failed ? PFS_EXIT_IO : PFS_EXIT_OK;
    if (c.rank == 0 && d.interrupt_signal)
        rc = 128 + d.interrupt_signal; /* 130 for SIGINT, 143 for SIGTERM, as a shell reports them */
    if (c.rank == 0) {
        if (failed && !d.interrupt_signal)
            d.status = "failed";
        iso_time(d.end_iso, sizeof(d.end_iso));
        /* What was measured before a failure still counts: show it. */
        int any = 0;
        for (int p = 0; p < cfg->nphases; p++)
            any |= reps_done[p] > 0;
        /* JSON and CSV own stdout: nothing else goes there, messages go to stderr. */
        FILE *msg = cfg->format == PFS_FORMAT_TEXT ? stdout : stderr;
        if (cfg->format == PFS_FORMAT_JSON)
            pfs_report_json(stdout, &d);
        else if (cfg->format == PFS_FORMAT_CSV)
            pfs_report_csv(stdout, &d);
        else if (any)
            pfs_report_summary(stdout, &d);
        if (cfg->keep && !cfg->quiet)
            fprintf(msg, "\nkept data files %s/pfsbench.%s.* (read them again with --run-id %s)\n", cfg->dir,
                    c.run_id, c.run_id);
        if (!cfg->no_results) {
            char name[64];
            c.in_results = 1;
            pfs_watch_step(c.watch, "the results append");
            int arc = results_append(&c, &d, name, sizeof(name), err, sizeof(err));
            pfs_watch_step(c.watch, NULL);
            c.in_results = 0;
            if (arc != 0) {
                fprintf(stderr, "pfsbench: error: results file %s: %s\n", cfg->results, err);
                rc = PFS_EXIT_IO;
            } else if (!cfg->quiet) {
                fprintf(msg, "results      %s %s (%s)\n", cfg->results, name, d.status);
            }
        }
        fflush(stdout);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    pfs_watch_stop(c.watch);
    drop_run_lock(&c);

    if (cfg->api == PFS_API_MPIIO)
        pfs_mpiio_fini(&c.mpiio);
    for (int i = 0; i < c.threads; i++)
        free(c.streams[i].buf);
    free(c.streams);
    free(c.node_of_stream);
    free(c.precv);
    free(c.pbytes);
    free(c.pops);
    pthread_mutex_destroy(&c.sw_mu);
    pthread_cond_destroy(&c.go_cv);
    pthread_barrier_destroy(&c.sw_bar);
    free(c.hosts);
    free(c.node_of_rank);
    free(corr);
    free(unc);
    free(times);
    free(gathered);
    free(reps_done);
    free(c.known);
    return rc;
}
