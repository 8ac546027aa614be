/* The streams of a rank (rank x thread): their setup, the threads of a
 * phase, and the hooks the stream loops call where ranks must agree. Only
 * the main thread calls MPI (stream 0 runs on it). */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfs/names.h"

/* ---- hooks the streams call inside a phase (on the main thread for MPI) ---- */

/* The stonewall: a rank's threads meet at a barrier, stream 0 (the main
 * thread, the only one that calls MPI) agrees with the other ranks on the
 * largest count, and every stream wears out to it. */
static uint64_t hook_wearout(void *arg, struct pfs_stream *s, uint64_t done)
{
    struct ctx *c = arg;
    pthread_mutex_lock(&c->sw.mu);
    if (done > c->sw.done)
        c->sw.done = done;
    if (s->fail.failed)
        c->sw.failed = 1;
    pthread_mutex_unlock(&c->sw.mu);
    if (c->threads > 1)
        pthread_barrier_wait(&c->sw.bar);
    if (s->thread == 0) {
        uint64_t mine[2] = {c->sw.done, (uint64_t)c->sw.failed}, most[2];
        drv_allreduce_watched(c, mine, most, 2, MPI_UINT64_T, MPI_MAX, s->t.open_start, DRV_WHERE_STONEWALL);
        c->sw.target = most[1] ? 0 : most[0];
    }
    if (c->threads > 1)
        pthread_barrier_wait(&c->sw.bar);
    return c->sw.target;
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

static void hook_sum(void *arg, double *v, int n)
{
    struct ctx *c = arg;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, c->comm);
}

struct worker {
    const struct pfs_phase_ctx *ph;
    struct pfs_stream *s;
    struct ctx *c;
};

static void run_one(struct worker *w)
{
    pfs_stream_run(w->ph, w->s);
}

/* A thread waits until every thread of the phase exists: should one fail to
 * start, none runs, since the stonewall's barrier would wait for it forever. */
static void *stream_main(void *arg)
{
    struct worker *w = arg;
    pthread_mutex_lock(&w->c->sw.mu);
    while (w->c->sw.go == 0)
        pthread_cond_wait(&w->c->sw.go_cv, &w->c->sw.mu);
    int go = w->c->sw.go;
    pthread_mutex_unlock(&w->c->sw.mu);
    if (go > 0)
        run_one(w);
    return NULL;
}

/* Local (collective inside for the stonewall and collective MPI-IO). Runs
 * one timed phase on this rank's streams: threads 1..T-1 in pthreads, stream
 * 0 on the main thread, which alone calls MPI (MPI_THREAD_FUNNELED). */
void drv_run_streams(struct ctx *c, int kind, int rep, double rate_base)
{
    struct pfs_phase_ctx ph = {
        .cfg = &c->cfg,
        .be = c->be,
        .bectx = c->bectx,
        .kind = kind,
        .rep = rep,
        .rate_base = rate_base,
        .nstreams = c->nstreams,
        .seed = c->seed,
        .nxfers = c->nxfers,
        .data_xfers = c->data_xfers,
        .md_files = c->md_files,
        .interrupted = c->interrupted,
        .wearout = hook_wearout,
        .agree_xfer = hook_agree_xfer,
        .agree_open = hook_agree_open,
        .sum = hook_sum,
        .progress = c->prog.on ? drv_hook_progress : NULL,
        .arg = c,
        .iodepth = (unsigned)c->cfg.iodepth,
        .md_start = c->files.md_start,
    };
    /* The phase starts here on this rank, as it leaves the opening
     * agreement; its streams' time series count from the grid's origin, the
     * last arrival there, which is before this (by the exit's skew, ms on a
     * loaded node): ts.t0 is that origin in s from here (<= 0, but for the
     * clocks' correction's error), which pfs_stream_lat_begin keeps. */
    c->lat.t0 = pfs_now();
    c->lat.t0_ns = ph.t0_ns = pfs_now_ns();
    const double late = c->lat.t0 + c->topo.clock_corr - c->lat.grid; /* s since the grid's origin */
    for (int i = 0; i < c->threads; i++)
        if (c->streams[i].lat)
            c->streams[i].lat->ts.t0 = -late;
    /* --rate's schedules start there too, on every rank: a rank that left
     * late finds its first transfers due (an origin after its exit can
     * only be the clocks' correction's error: its own exit then). */
    ph.sched0_ns = late > 0 ? ph.t0_ns - (uint64_t)llround(late * 1e9) : ph.t0_ns;
    drv_progress_phase(c, &ph);
    c->sw.done = c->sw.target = 0;
    c->sw.failed = 0;
    pthread_t tid[c->threads > 1 ? c->threads : 1];
    struct worker w[c->threads > 1 ? c->threads : 1];
    int started = 1;
    c->sw.go = 0;
    for (int i = 1; i < c->threads; i++) {
        w[i] = (struct worker){&ph, &c->streams[i], c};
        int e = pthread_create(&tid[i], NULL, stream_main, &w[i]);
        if (e != 0) {
            drv_set_fail(c, "start a thread", "", e, "thread %d of %d", i, c->threads);
            break;
        }
        started++;
    }
    pthread_mutex_lock(&c->sw.mu);
    c->sw.go = started == c->threads ? 1 : -1;
    pthread_cond_broadcast(&c->sw.go_cv);
    pthread_mutex_unlock(&c->sw.mu);
    w[0] = (struct worker){&ph, &c->streams[0], c};
    if (c->sw.go > 0)
        run_one(&w[0]);
    else if (c->cfg.deadline > 0 && pfs_phase_has(kind, PFS_PHF_WEARS_OUT)) {
        /* The other ranks wait in the stonewall agreement: join it, failed. */
        uint64_t mine[2] = {0, 1}, most[2];
        drv_allreduce_watched(c, mine, most, 2, MPI_UINT64_T, MPI_MAX, pfs_now(), DRV_WHERE_STONEWALL);
    }
    for (int i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    /* Under -D the count a phase that sets it reached is what the phases
     * after it work on: the transfers in the files, or the files made. */
    if (c->cfg.deadline > 0 && pfs_phase_has(kind, PFS_PHF_SETS_COUNT)) {
        if (!pfs_phase_is_meta(kind))
            c->data_xfers = c->sw.target;
        else if (c->sw.target > 0) /* 0: a stream failed */
            c->md_files = c->sw.target;
    }
    drv_progress_phase_end(c);
}

/* Local. An async backend's --iodepth buffers of stream st: qbuf[0] is its
 * buf, the others are made and filled alike. Failures are recorded. */
static void alloc_qbuf(struct ctx *c, struct pfs_stream *st, size_t align)
{
    const struct pfs_config *cfg = &c->cfg;
    st->qbuf = calloc((size_t)cfg->iodepth, sizeof(void *));
    if (!st->qbuf) {
        drv_set_fail(c, "allocate the transfer buffers", "", ENOMEM, "--iodepth %d", cfg->iodepth);
        return;
    }
    st->qbuf[0] = st->buf;
    for (int k = 1; k < cfg->iodepth; k++) {
        if (posix_memalign(&st->qbuf[k], align, (size_t)cfg->transfer) != 0) {
            st->qbuf[k] = NULL;
            drv_set_fail(c, "allocate the transfer buffers", "", ENOMEM, "--iodepth %d", cfg->iodepth);
            return;
        }
        pfs_random_fill(st->qbuf[k], (size_t)cfg->transfer, c->seed ^ pfs_mix64((uint64_t)st->id * 65537 + (uint64_t)k));
    }
}

/* Local. The streams of this rank. Each has its own transfer buffer:
 * aligned for O_DIRECT and for fast read() (a buffer 16 bytes off a page
 * made read() 3x slower here), filled once with incompressible bytes so no
 * compressing file system reports fantasy bandwidth. With -C a stream reads
 * the same thread's data of rank rd_from: (r+shift) mod n, or with
 * --reorder-seed the permutation's. Failures are recorded. */
void drv_streams_setup(struct ctx *c)
{
    const struct pfs_config *cfg = &c->cfg;
    c->nxfers = cfg->block / cfg->transfer;
    c->data_xfers = c->nxfers;
    c->md_files = (uint64_t)cfg->files;
    c->threads = cfg->threads;
    c->nstreams = c->nranks * c->threads;
    pthread_mutex_init(&c->sw.mu, NULL);
    pthread_cond_init(&c->sw.go_cv, NULL);
    pthread_barrier_init(&c->sw.bar, NULL, (unsigned)c->threads);
    /* Rank 0 alone: the report's per-node figures (4 bytes a stream, the
     * last table of the run's size every rank held). */
    if (c->rank == 0)
        c->node_of_stream = calloc((size_t)c->nstreams, sizeof(int));
    c->streams = calloc((size_t)c->threads, sizeof(*c->streams));
    if ((c->rank == 0 && !c->node_of_stream) || !c->streams) {
        drv_set_fail(c, "allocate the streams", "", ENOMEM, "%d streams", c->nstreams);
        c->threads = 0; /* nothing to run or clean; the agreement after the set-up stops the run */
        return;
    }
    for (int s = 0; c->node_of_stream && s < c->nstreams; s++)
        c->node_of_stream[s] = c->topo.node_of_rank ? c->topo.node_of_rank[s / c->threads] : 0;
    size_t align = cfg->direct ? pfs_dio_alignment(cfg->dir) : 4096;
    if (align < 4096)
        align = 4096;
    for (int i = 0; i < c->threads; i++) {
        struct pfs_stream *st = &c->streams[i];
        st->id = c->rank * c->threads + i;
        st->rank = c->rank;
        st->thread = i;
        st->rd_writer = c->topo.rd_from * c->threads + i;
        drv_data_path(c, st->id, st->path, sizeof(st->path));
        drv_data_path(c, st->rd_writer, st->rd_path, sizeof(st->rd_path));
        if (cfg->dirs == PFS_DIRS_PER_RANK) {
            (void)pfs_name_md_subdir(st->md_dir, sizeof(st->md_dir), c->files.md_top, st->id);
            (void)pfs_name_md_subdir(st->md_rd_dir, sizeof(st->md_rd_dir), c->files.md_top, st->rd_writer);
        } else {
            snprintf(st->md_dir, sizeof(st->md_dir), "%s", c->files.md_top);
            snprintf(st->md_rd_dir, sizeof(st->md_rd_dir), "%s", c->files.md_top);
        }
        st->fail.rank = c->rank;
        st->fail.thread = c->threads > 1 ? i : -1;
        snprintf(st->fail.host, sizeof(st->fail.host), "%s", c->topo.host);
        if (!(st->lat = drv_lat_alloc(cfg)))
            drv_set_fail(c, "allocate the latency record", "", ENOMEM, NULL);
        drv_targets_setup(c, st);
        if (posix_memalign(&st->buf, align, (size_t)cfg->transfer) != 0) {
            st->buf = NULL;
            drv_set_fail(c, "allocate the transfer buffer", "", ENOMEM, NULL);
        } else {
            pfs_random_fill(st->buf, (size_t)cfg->transfer, c->seed ^ pfs_mix64((uint64_t)st->id));
        }
        if (st->buf && cfg->iodepth > 1 && (c->be->caps & PFS_CAP_ASYNC))
            alloc_qbuf(c, st, align);
    }
}

/* Local. */
void drv_streams_free(struct ctx *c)
{
    for (int i = 0; c->streams && i < c->threads; i++) {
        for (int k = 1; c->streams[i].qbuf && k < c->cfg.iodepth; k++)
            free(c->streams[i].qbuf[k]);
        free(c->streams[i].qbuf);
        free(c->streams[i].buf);
        free(c->streams[i].lat);
        drv_targets_free(&c->streams[i]);
    }
    free(c->streams);
    free(c->node_of_stream);
    pthread_mutex_destroy(&c->sw.mu);
    pthread_cond_destroy(&c->sw.go_cv);
    pthread_barrier_destroy(&c->sw.bar);
}
