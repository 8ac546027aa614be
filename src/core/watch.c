/* See pfs/watch.h. The thread only reads the counters the I/O threads
 * publish with relaxed atomics; the step is handed over under a mutex. */
#define _GNU_SOURCE
#include "pfs/watch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pfs_watch {
    struct pfs_watch_ops ops;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    int in_step;            /* 0: not in a file-system step */
    char step[128];
    unsigned step_seq;      /* changes with every step entered */
    double longest;
    char longest_desc[512];
};

static double mono(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *watch_main(void *arg)
{
    struct pfs_watch *w = arg;
    unsigned seen_seq = 0;
    uint64_t seen_prog = 0;
    double still_since = w->ops.now(w->ops.arg), noted = 0;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)(w->ops.tick * 1e9);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&w->cv, &w->mu, &until);
        if (w->stop)
            break;
        double t = w->ops.now(w->ops.arg);
        uint64_t prog = w->ops.progress(w->ops.arg);
        if (!w->in_step || w->step_seq != seen_seq || prog != seen_prog) {
            seen_seq = w->step_seq;
            seen_prog = prog;
            still_since = t;
            noted = 0;
            continue;
        }
        double blocked = t - still_since;
        if (blocked >= w->ops.warn && blocked > noted + w->ops.tick / 2) {
            noted = blocked;
            if (blocked > w->longest) {
                char call[256];
                w->ops.describe(w->ops.arg, call, sizeof(call));
                w->longest = blocked;
                snprintf(w->longest_desc, sizeof(w->longest_desc), "%s, in %s", call, w->step);
            }
        }
        if (w->ops.timeout > 0 && blocked >= w->ops.timeout) {
            char call[256], msg[640];
            w->ops.describe(w->ops.arg, call, sizeof(call));
            snprintf(msg, sizeof(msg), "blocked %.1f s in %s, during %s, with no progress", blocked, call, w->step);
            pthread_mutex_unlock(&w->mu);
            w->ops.fire(w->ops.arg, msg);
            pthread_mutex_lock(&w->mu);
            w->ops.timeout = 0; /* fire() returned: do not fire again */
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct pfs_watch *pfs_watch_start(const struct pfs_watch_ops *ops)
{
    struct pfs_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->ops = *ops;
    if (w->ops.tick <= 0)
        w->ops.tick = 0.05;
    if (!w->ops.now)
        w->ops.now = mono;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->tid, NULL, watch_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    return w;
}

void pfs_watch_step(struct pfs_watch *w, const char *what)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->in_step = what != NULL;
    if (what)
        snprintf(w->step, sizeof(w->step), "%s", what);
    w->step_seq++;
    pthread_mutex_unlock(&w->mu);
}

double pfs_watch_longest(struct pfs_watch *w, char *desc, size_t len)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    double s = w->longest;
    snprintf(desc, len, "%s", w->longest_desc);
    pthread_mutex_unlock(&w->mu);
    return s;
}

void pfs_watch_stop(struct pfs_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}
