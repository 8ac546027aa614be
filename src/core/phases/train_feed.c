/* The train phase's timed run on one stream (a rank, a training process):
 * a reader thread reads the rank's share of each epoch's shuffled samples
 * (pfs/train.h), batch by batch, at most --prefetch batches ahead of the
 * accelerators; the stream's own thread emulates --accelerators N
 * accelerators that take batches in turn (batch i to accelerator i % N)
 * and compute --train-compute ms on each. An accelerator starts a batch
 * when it is free and the batch has been read; the time it waited for
 * the read is its stall. Compute is a wait until an absolute deadline on
 * the monotonic clock (start + C), never accumulated sleeps, so the
 * emulated accelerators do not drift. A batch's buffer slot is free once
 * its accelerator takes it (the batch moved to the accelerator's memory).
 *
 * AU = compute / (compute + stall) per accelerator; the stream records
 * the sums over its accelerators, the lowest accelerator's AU and the
 * batches by stall (pfs_times' train_*). Bytes, transfers, the open, read
 * and close latencies and --verify's checks are the reader's; the CPU is
 * both threads'. The phase's span is from the start to the last
 * accelerator's end. */
#define _GNU_SOURCE
#include "pfs/phase.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs/config.h"
#include "pfs/core.h"
#include "pfs/stream.h"
#include "pfs/train.h"

#include "phases.h"

#define MAX_ACC 64 /* --accelerators' limit */

struct feed {
    const struct pfs_phase_ctx *p;
    struct pfs_stream *s;
    struct pfs_train t;
    uint64_t first, count, nb; /* the rank's share of an epoch's order and its batches */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t produced, consumed; /* batches read, batches taken by an accelerator */
    int stop;                    /* the accelerators stopped early (interrupted) */
    int done;                    /* the reader ended (failed, interrupted or through) */
    double vt;                   /* seconds of pattern checks (in the reader, behind compute) */
    uint64_t bad_file, bad_off, bad_exp, bad_found;
    struct pfs_times rt;         /* the reader thread's CPU */
};

/* ---- the reader ---- */

static void rd_fail(struct feed *f, const char *op, const char *path, uint64_t off, int err, const char *why)
{
    const char *be = f->p->be->errstr ? f->p->be->errstr(f->p->bectx) : NULL;
    pfs_stream_fail(f->s, op, path, off, err, 0, "%s", why ? why : be ? be : "");
}

/* Reads sample k (open, S bytes in -t transfers, close), checking the
 * pattern with --verify. 0 or -1 (s->fail set). */
static int rd_sample(struct feed *f, uint64_t k)
{
    const struct pfs_phase_ctx *p = f->p;
    struct pfs_stream *s = f->s;
    uint64_t file, off;
    char path[PFS_PATH_MAX + 160];
    pfs_train_where(&f->t, k, &file, &off);
    struct pfs_fid got = {0, 0};
    void *fh = NULL;
    int rc = pfs_train_open(p, s, file, PFS_OPEN_READ, path, &got, &fh);
    if (rc < 0) {
        rd_fail(f, "open for reading", path, PFS_NO_OFFSET, -rc, NULL);
        return -1;
    }
    for (uint64_t done = 0; done < f->t.sample && !s->fail.failed;) {
        const uint64_t at = off + done, left = f->t.sample - done;
        const size_t n = (size_t)(left < p->cfg->transfer ? left : p->cfg->transfer);
        const uint64_t x0 = pfs_now_ns();
        const int64_t got_n = p->be->pread(fh, s->buf, n, at);
        const uint64_t x1 = pfs_now_ns();
        pfs_stream_lat_add_at(s, PFS_LAT_OP, x0, x1, p->t0_ns, at, n);
        s->t.xfers++;
        if (got_n != (int64_t)n) {
            rd_fail(f, "read", path, at, got_n < 0 ? (int)-got_n : 0, got_n < 0 ? NULL : "short read: the data set "
                    "is smaller than --train says");
            break;
        }
        s->t.bytes += n;
        if (p->cfg->verify) {
            size_t first;
            uint64_t exp, found;
            const uint64_t bad = pfs_pattern_check(s->buf, n, p->seed, (int)file, at, &first, &exp, &found);
            if (bad && !s->t.errors)
                f->bad_file = file, f->bad_off = at + first, f->bad_exp = exp, f->bad_found = found;
            s->t.errors += bad;
            f->vt += (double)(pfs_now_ns() - x1) * 1e-9;
        }
        done += n;
    }
    const uint64_t c0 = pfs_now_ns();
    rc = p->be->close(fh);
    pfs_stream_lat_add(s, PFS_LAT_CLOSE, c0, pfs_now_ns(), p->t0_ns);
    if (rc < 0 && !s->fail.failed)
        rd_fail(f, "close", path, PFS_NO_OFFSET, -rc, NULL);
    return s->fail.failed ? -1 : 0;
}

/* Waits for a free slot (fewer than --prefetch batches read and not yet
 * taken); 0, or -1 when the accelerators stopped. */
static int rd_slot(struct feed *f)
{
    pthread_mutex_lock(&f->mu);
    while (f->produced - f->consumed >= (uint64_t)f->p->cfg->prefetch && !f->stop)
        pthread_cond_wait(&f->cv, &f->mu);
    const int stop = f->stop;
    pthread_mutex_unlock(&f->mu);
    return stop ? -1 : 0;
}

static void *reader(void *arg)
{
    struct feed *f = arg;
    struct pfs_cpu c0;
    pfs_thread_cpu(&c0);
    f->rt.open_start = pfs_now();
    const uint64_t n = pfs_train_samples(&f->t);
    uint64_t *perm = malloc(n * sizeof(*perm));
    if (!perm)
        rd_fail(f, "train", "", PFS_NO_OFFSET, ENOMEM, "no memory for the epoch's order of the samples");
    for (int e = 0; perm && e < f->t.epochs && !f->s->fail.failed; e++) {
        pfs_train_shuffle(perm, n, f->p->seed, e);
        for (uint64_t b = 0; b < f->nb && !f->s->fail.failed; b++) {
            if (rd_slot(f) != 0 || *f->p->interrupted)
                goto out;
            const uint64_t end = (b + 1) * f->t.batch < f->count ? (b + 1) * f->t.batch : f->count;
            for (uint64_t i = b * f->t.batch; i < end && !f->s->fail.failed; i++)
                (void)rd_sample(f, perm[f->first + i]);
            pthread_mutex_lock(&f->mu);
            f->produced += !f->s->fail.failed;
            pthread_cond_broadcast(&f->cv);
            pthread_mutex_unlock(&f->mu);
        }
    }
out:
    free(perm);
    f->rt.close_end = pfs_now();
    pfs_thread_cpu_since(&c0, &f->rt);
    pthread_mutex_lock(&f->mu);
    f->done = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* ---- the accelerators ---- */

static void sleep_until(uint64_t ns)
{
    while (pfs_run_clock_sleep_until(ns) == EINTR)
        ;
}

/* Waits until batch i has been read; 0, or -1 when it never will be. */
static int acc_wait(struct feed *f, uint64_t i)
{
    pthread_mutex_lock(&f->mu);
    while (f->produced <= i && !f->done)
        pthread_cond_wait(&f->cv, &f->mu);
    const int ok = f->produced > i;
    pthread_mutex_unlock(&f->mu);
    return ok ? 0 : -1;
}

static void acc_stall(struct pfs_times *t, uint64_t ns)
{
    const double s = (double)ns * 1e-9;
    t->train_stall_1ms += s < 1e-3;
    t->train_stall_10ms += s >= 1e-3 && s < 1e-2;
    t->train_stall_100ms += s >= 1e-2 && s < 1e-1;
    t->train_stall_more += s >= 1e-1;
    t->train_stall_max_s = s > t->train_stall_max_s ? s : t->train_stall_max_s;
}

/* Hands every batch to one of na accelerators in turn; the train_* figures. */
static void accelerators(struct feed *f, uint64_t start_ns, int na)
{
    na = na < MAX_ACC ? na : MAX_ACC;
    const uint64_t c_ns = (uint64_t)(f->t.compute_s * 1e9 + 0.5), total = (uint64_t)f->t.epochs * f->nb;
    uint64_t free_at[MAX_ACC], stall[MAX_ACC] = {0}, busy[MAX_ACC] = {0};
    struct pfs_times *t = &f->s->t;
    for (int a = 0; a < na; a++)
        free_at[a] = start_ns;
    for (uint64_t i = 0; i < total && !*f->p->interrupted; i++) {
        if (acc_wait(f, i) != 0)
            break;
        const int a = (int)(i % (uint64_t)na);
        const uint64_t now = pfs_now_ns();
        uint64_t begin = free_at[a];
        if (now < free_at[a])
            sleep_until(free_at[a]);
        else
            begin = now;
        stall[a] += begin - free_at[a];
        acc_stall(t, begin - free_at[a]);
        pthread_mutex_lock(&f->mu);
        f->consumed++;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        free_at[a] = begin + c_ns;
        busy[a] += c_ns;
        const uint64_t b = i % f->nb;
        t->train_samples += b + 1 < f->nb ? f->t.batch : f->count - b * f->t.batch;
        t->train_batches++;
    }
    uint64_t end = start_ns;
    t->train_au_min = 100;
    for (int a = 0; a < na; a++) {
        end = free_at[a] > end ? free_at[a] : end;
        t->train_compute_s += (double)busy[a] * 1e-9;
        t->train_stall_s += (double)stall[a] * 1e-9;
        const double au = pfs_train_au((double)busy[a] * 1e-9, (double)stall[a] * 1e-9);
        t->train_au_min = au < t->train_au_min ? au : t->train_au_min;
    }
    sleep_until(end); /* the last computes end */
}

/* One training on the rank's share with na accelerators: the reader and
 * the accelerators, s->t from its start (the last trial's stands: the
 * figures are of the run at the count found, the search's trials are not). */
static void trial(struct feed *f, int na)
{
    struct pfs_stream *s = f->s;
    struct pfs_cpu cpu0;
    memset(&s->t, 0, sizeof(s->t));
    pfs_stream_lat_begin(s);
    f->produced = f->consumed = 0;
    f->stop = f->done = 0;
    f->vt = 0;
    memset(&f->rt, 0, sizeof(f->rt));
    s->t.open_start = pfs_now();
    const uint64_t start_ns = pfs_now_ns();
    pfs_thread_cpu(&cpu0);
    pthread_t th;
    int rc = pthread_create(&th, NULL, reader, f);
    if (rc != 0)
        pfs_stream_fail(s, "train", "", PFS_NO_OFFSET, rc, 0, "%s", "could not start the reader thread");
    else {
        accelerators(f, start_ns, na);
        pthread_mutex_lock(&f->mu);
        f->stop = 1; /* a reader still waiting for a slot (interrupted) ends */
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        pthread_join(th, NULL);
    }
    struct pfs_times *t = &s->t;
    t->xfer_end = t->close_end = pfs_now();
    if (t->open_end == 0)
        t->open_end = t->open_start;
    t->verify_s = f->vt;
    t->train_accelerators = (uint64_t)na;
    pfs_thread_cpu_since(&cpu0, t);
    t->cpu_user += f->rt.cpu_user;
    t->cpu_sys += f->rt.cpu_sys;
}

/* A trial with na accelerators a rank, judged by the job's AU (the ranks'
 * compute and stall summed): 1 it keeps the gate, 0 not, -1 a rank failed
 * or was interrupted (every rank gets the same answer). */
static int keeps_gate(struct feed *f, int na, uint64_t *trials)
{
    trial(f, na);
    (*trials)++;
    double v[3] = {f->s->t.train_compute_s, f->s->t.train_stall_s,
                   f->s->fail.failed || f->s->t.errors || *f->p->interrupted};
    if (f->p->sum)
        f->p->sum(f->p->arg, v, 3);
    return v[2] > 0 ? -1 : pfs_train_au(v[0], v[1]) >= f->t.gate;
}

/* --find-max-accelerators: 1, 2, 4, ... up to MAX_ACC while the gate
 * holds, then halving the gap between the most that kept it and the
 * fewest that did not; the count found (1 when none keeps it), or -1. */
static int search(struct feed *f, uint64_t *trials)
{
    int lo = 0, hi = 0, k;
    for (int n = 1; n <= MAX_ACC && !hi; n = n < MAX_ACC && 2 * n > MAX_ACC ? MAX_ACC : 2 * n) {
        if ((k = keeps_gate(f, n, trials)) < 0)
            return -1;
        *(k ? &lo : &hi) = n;
    }
    while (hi && hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if ((k = keeps_gate(f, mid, trials)) < 0)
            return -1;
        *(k ? &lo : &hi) = mid;
    }
    return lo ? lo : 1;
}

void pfs_train_feed(const struct pfs_phase_ctx *p, struct pfs_stream *s)
{
    struct feed f = {.p = p, .s = s};
    char err[PFS_ERRLEN];
    memset(&s->t, 0, sizeof(s->t));
    pfs_stream_lat_begin(s);
    s->t.open_start = s->t.open_end = s->t.xfer_end = s->t.close_end = pfs_now();
    if (pfs_train_of(p->cfg, &f.t, err, sizeof(err)) != 0) {
        pfs_stream_fail(s, "train", "", PFS_NO_OFFSET, 0, 0, "%s", err);
        return;
    }
    pfs_train_share(pfs_train_samples(&f.t), p->nstreams, s->rank, &f.first, &f.count);
    f.nb = pfs_train_batches(f.count, f.t.batch);
    pthread_mutex_init(&f.mu, NULL);
    pthread_cond_init(&f.cv, NULL);
    uint64_t trials = 0;
    const int na = p->cfg->find_max_acc ? search(&f, &trials) : p->cfg->accelerators;
    if (na > 0)
        trial(&f, na); /* the run recorded: at the count found, or the one given */
    s->t.train_trials = trials;
    pthread_mutex_destroy(&f.mu);
    pthread_cond_destroy(&f.cv);
    struct pfs_times *t = &s->t;
    if (t->errors)
        pfs_stream_fail(s, "verify", "", f.bad_off, 0, 0,
                        "%" PRIu64 " mismatching 8-byte words in the training data read by rank %d; first at byte "
                        "%" PRIu64 " of file %" PRIu64 ": expected 0x%016" PRIx64 ", found 0x%016" PRIx64,
                        t->errors, s->rank, f.bad_off, f.bad_file, f.bad_exp, f.bad_found);
}

uint64_t pfs_train_feed_work(const struct pfs_phase_ctx *p, int stream)
{
    struct pfs_train t;
    char err[PFS_ERRLEN];
    uint64_t first, count;
    if (pfs_train_of(p->cfg, &t, err, sizeof(err)) != 0)
        return 0;
    pfs_train_share(pfs_train_samples(&t), p->nstreams, stream, &first, &count);
    const uint64_t x = p->cfg->transfer;
    return (uint64_t)t.epochs * count * ((t.sample + x - 1) / x);
}
