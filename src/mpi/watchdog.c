/* When a watchdog fires: rank 0's polling of an agreement (agree.c) or a
 * rank's stall thread (src/core/watch.c), which sees calls blocked in the
 * kernel. Either way the run is recorded once, each rank that can removes
 * what it created, and the job ends with exit 3. */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    const double until = pfs_now() + 2;
    struct timespec nap = {0, 1000000};
    while (n > 0 && pfs_now() < until) {
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
void drv_clean_for_abort(struct ctx *c)
{
    int x, one = 1;
    MPI_Recv(&x, 1, MPI_INT, 0, PFS_TAG_ABORT, c->comm, MPI_STATUS_IGNORE);
    drv_remove_run_files(c);
    MPI_Send(&one, 1, MPI_INT, 0, PFS_TAG_ABORT, c->comm);
    fflush(stderr);
    for (int i = 0; i < 100; i++)
        usleep(100000);
    _exit(PFS_EXIT_TIMEOUT); /* rank 0's MPI_Abort should have ended us by now */
}

/* Local, rank 0, the watchdog fired: say who is missing, record the run as
 * failed, remove this run's files (the other ranks will not), abort. */
void drv_watchdog_abort(struct ctx *c, const int *arrived, const char *where)
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
    drv_record_watchdog(c, msg);
    tell_arrived_to_clean(c, arrived);
    drv_remove_run_files(c);
    fflush(stderr);
    MPI_Abort(c->comm, PFS_EXIT_TIMEOUT);
    _exit(PFS_EXIT_TIMEOUT); /* MPI_Abort does not return; should it, end here */
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
            char where[PFS_PATH_MAX + 256];
            pfs_stream_where(&c->cfg, c->cur_kind, &c->streams[i], where, sizeof(where));
            snprintf(buf, len, "%s %s%s", op, where, who);
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
    drv_record_watchdog(c, msg);
    drv_remove_run_files(c);
    fflush(stderr);
    fflush(stdout);
    _exit(PFS_EXIT_TIMEOUT);
}

/* The stall watchdog: a thread of its own, so that a call blocked in
 * the kernel on every rank is still seen. Rank 0 fires first; the
 * others later, so that normally rank 0, which can record the run and
 * name the rank it waits for, speaks. */
static void on_agree_timeout(void *arg, const int *arrived, const char *where)
{
    drv_watchdog_abort(arg, arrived, where);
}

static void on_agree_notice(void *arg)
{
    drv_clean_for_abort(arg);
}

void drv_watchdog_start(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    c->ag.timeout = cfg->timeout;
    c->ag.root_host = c->root_host[0] ? c->root_host : NULL;
    c->ag.on_timeout = on_agree_timeout;
    c->ag.on_notice = on_agree_notice;
    c->ag.arg = c;
    struct pfs_watch_ops wops = {
        .warn = cfg->stall_warn,
        .timeout = cfg->timeout <= 0 ? 0 : c->rank == 0 ? cfg->timeout : 1.5 * cfg->timeout + 1,
        .tick = 0.05,
        .progress = watch_progress,
        .describe = watch_describe,
        .fire = watch_fire,
        .arg = c,
    };
    c->watch = pfs_watch_start(&wops);
    if (!c->watch)
        drv_set_fail(c, "start the watchdog thread", "", EAGAIN, NULL);
}
