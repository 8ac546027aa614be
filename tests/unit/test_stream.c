/* The phases' runs (pfs_stream_run: the data and metadata loops) in a
 * plain process, no MPI: the null backend, the POSIX backend on a temp
 * dir, and test backends that keep the "file" in memory and record every
 * offset: one synchronous, one that queues (PFS_CAP_ASYNC) and completes
 * out of order; the offset generator and the backend table's own checks. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/backend.h"
#include "pfs/offsetgen.h"
#include "pfs/sched.h"
#include "pfs/stream.h"

#define T 4096u   /* transfer */
#define NX 64u    /* transfers per block */
#define MAXQ 16u

/* ---- a memory "file" that records offsets ---- */

struct mem {
    unsigned char *data;
    size_t size;
    uint64_t offs[4 * NX];
    unsigned noffs;
    int64_t fail_at; /* transfer number that fails with fail_err (-1: none) */
    int fail_err;
    struct pfs_io *pending[MAXQ];
    unsigned npending, max_inflight, reaps, submits;
    /* fsync: how many, at which transfer count, with how many in flight */
    unsigned fsyncs, fsync_inflight;
    unsigned fsync_at[NX];
    int fsync_fail_at; /* the fsync (0-based) that fails with EIO (-1: none) */
    unsigned wr_flags; /* the flags of the last open for writing */
    unsigned delay_us; /* each transfer sleeps this long first (--runtime, --ramp) */
    uint64_t at_ns[4 * NX]; /* when the transfer at offset k x T was done (pfs_now_ns) */
};

static int mem_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                    struct pfs_fid *got, void **fh)
{
    (void)dirfd, (void)path, (void)expect;
    struct mem *m = ctx;
    if (flags & PFS_OPEN_WRITE)
        m->wr_flags = flags;
    if (got)
        *got = (struct pfs_fid){1, 42};
    *fh = ctx;
    return 0;
}

/* One transfer against the memory file; the numbering counts every call. */
static int64_t mem_do(struct mem *m, void *buf, size_t len, uint64_t off, int write)
{
    unsigned k = m->noffs;
    if (m->delay_us)
        usleep(m->delay_us);
    if (k < sizeof(m->offs) / sizeof(m->offs[0]))
        m->offs[m->noffs++] = off;
    if (off / T < sizeof(m->at_ns) / sizeof(m->at_ns[0]))
        m->at_ns[off / T] = pfs_now_ns();
    if (m->fail_at >= 0 && k == (uint64_t)m->fail_at)
        return -m->fail_err;
    if (off + len > m->size)
        return -ENOSPC;
    if (write)
        memcpy(m->data + off, buf, len);
    else
        memcpy(buf, m->data + off, len);
    return (int64_t)len;
}

static int64_t mem_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return mem_do(fh, (void *)buf, len, off, 1);
}

static int64_t mem_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return mem_do(fh, buf, len, off, 0);
}

static int mem_ok(void *fh)
{
    (void)fh;
    return 0;
}

/* fsync: records the transfers done so far and those still in flight. */
static int mem_fsync(void *fh)
{
    struct mem *m = fh;
    unsigned k = m->fsyncs++;
    if (k < NX)
        m->fsync_at[k] = m->noffs;
    m->fsync_inflight += m->npending;
    return (int)k == m->fsync_fail_at ? -EIO : 0;
}

/* Async: submit mostly queues (every 5th it completes at once, as fio's
 * FIO_Q_COMPLETED); reap does the work, newest first (out of order). */
static int mem_submit(void *fh, struct pfs_io *io)
{
    struct mem *m = fh;
    if (m->npending == MAXQ)
        return -EAGAIN;
    if (m->submits++ % 5 == 4) {
        io->res = mem_do(m, io->buf, io->len, io->off, io->write);
        return PFS_Q_COMPLETED;
    }
    m->pending[m->npending++] = io;
    if (m->npending > m->max_inflight)
        m->max_inflight = m->npending;
    return PFS_Q_QUEUED;
}

static int mem_reap(void *fh, struct pfs_io **done, unsigned min, unsigned max)
{
    struct mem *m = fh;
    assert_true(min <= max && max <= m->npending); /* min 0: --rate's poll */
    m->reaps++;
    unsigned n = m->reaps % 2 ? max : min; /* sometimes all, sometimes the least asked */
    for (unsigned i = 0; i < n; i++) {
        struct pfs_io *io = m->pending[--m->npending];
        io->res = mem_do(m, io->buf, io->len, io->off, io->write);
        done[i] = io;
    }
    return (int)n;
}

static const struct pfs_backend mem_sync = {
    .name = "mem",
    .caps = PFS_CAP_THREADS,
    .open = mem_open,
    .pwrite = mem_pwrite,
    .pread = mem_pread,
    .fsync = mem_fsync,
    .close = mem_ok,
};

/* The same, taking --sync (PFS_OPEN_DSYNC / PFS_OPEN_SYNC). */
static const struct pfs_backend mem_osync = {
    .name = "mem-osync",
    .caps = PFS_CAP_THREADS | PFS_CAP_OSYNC,
    .open = mem_open,
    .pwrite = mem_pwrite,
    .pread = mem_pread,
    .fsync = mem_fsync,
    .close = mem_ok,
};

static const struct pfs_backend mem_async = {
    .name = "mem-async",
    .caps = PFS_CAP_ASYNC,
    .open = mem_open,
    .pwrite = mem_pwrite,
    .pread = mem_pread,
    .fsync = mem_fsync,
    .close = mem_ok,
    .submit = mem_submit,
    .reap = mem_reap,
};

/* ---- a phase around one stream ---- */

struct fix {
    struct pfs_config cfg;
    struct pfs_phase_ctx p;
    struct pfs_stream s;
    struct mem m;
    volatile sig_atomic_t interrupted;
    uint64_t wear_target, wear_done;
    int wear_calls, progress_calls;
    void *qbuf[MAXQ];
    char dir[64];
};

static uint64_t fake_wearout(void *arg, struct pfs_stream *s, uint64_t done)
{
    struct fix *f = arg;
    (void)s;
    f->wear_calls++;
    f->wear_done = done;
    return f->wear_target;
}

static void count_progress(void *arg, struct pfs_stream *s)
{
    (void)s;
    ((struct fix *)arg)->progress_calls++;
}

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    snprintf(f->dir, sizeof(f->dir), "/tmp/pfs-stream.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    pfs_config_defaults(&f->cfg);
    f->cfg.transfer = T;
    f->cfg.block = (uint64_t)T * NX;
    f->cfg.threads = 1;
    f->m.fail_at = -1;
    f->m.fsync_fail_at = -1;
    f->m.size = (size_t)4 * T * NX;
    f->m.data = calloc(1, f->m.size);
    f->p = (struct pfs_phase_ctx){
        .cfg = &f->cfg,
        .be = &mem_sync,
        .bectx = &f->m,
        .kind = PFS_PH_WRITE,
        .nstreams = 1,
        .seed = 0x5eed,
        .nxfers = NX,
        .data_xfers = NX,
        .interrupted = &f->interrupted,
        .wearout = fake_wearout,
        .arg = f,
    };
    f->s.fail.rank = 3;
    f->s.fail.thread = -1;
    /* The run's directory, held open as the MPI layer holds it: data files
     * and small files are opened relative to it. */
    f->s.dir_fd = f->s.md_fd = f->s.md_rd_fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f->s.dir_fd < 0)
        return -1;
    snprintf(f->s.path, sizeof(f->s.path), "%s/pfsbench.test.0", f->dir);
    snprintf(f->s.rd_path, sizeof(f->s.rd_path), "%s", f->s.path);
    if (posix_memalign(&f->s.buf, 4096, T) != 0)
        return -1;
    for (unsigned k = 0; k < MAXQ; k++)
        if (posix_memalign(&f->qbuf[k], 4096, T) != 0)
            return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    char cmd[128];
    close(f->s.dir_fd);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f->s.buf);
    for (unsigned k = 0; k < MAXQ; k++)
        free(f->qbuf[k]);
    free(f->m.data);
    free(f);
    return rc == 0 ? 0 : -1;
}

static void run_data(struct fix *f, int kind)
{
    f->p.kind = kind;
    f->m.noffs = 0;
    pfs_stream_run(&f->p, &f->s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- tests ---- */

static void test_null_counts(void **state)
{
    struct fix *f = *state;
    void *ctx;
    char err[128];
    assert_int_equal(pfs_backend_init(&pfs_backend_null, &ctx, &f->cfg, NULL, err, sizeof(err)), 0);
    f->p.be = &pfs_backend_null;
    f->p.bectx = ctx;
    f->cfg.fsync = 1;
    f->p.progress = count_progress;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.bytes, (uint64_t)T * NX);
    assert_int_equal(f->s.t.xfers, NX);
    assert_int_equal(f->progress_calls, NX / 16);
    assert_true(f->s.created);
    assert_true(pfs_fid_known(&f->s.fid));
    assert_true(f->s.t.open_start <= f->s.t.open_end && f->s.t.open_end <= f->s.t.xfer_end &&
                f->s.t.xfer_end <= f->s.t.close_end);
    assert_int_equal(access(f->s.path, F_OK), -1); /* no file made */
    /* A read expects the identity the write got: it is the null file's. */
    f->s.rd_fid = f->s.fid;
    run_data(f, PFS_PH_READ);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.bytes, (uint64_t)T * NX);
    /* Another identity expected: refused like a replaced file. */
    f->s.rd_fid.ino ^= 2;
    run_data(f, PFS_PH_READ);
    assert_true(f->s.fail.failed);
    assert_string_equal(f->s.fail.op, "open for reading");
    assert_int_equal(f->s.t.xfers, 0);
    pfs_backend_fini(&pfs_backend_null, ctx);
}

static void test_sequential_offsets(void **state)
{
    struct fix *f = *state;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->m.noffs, NX);
    for (unsigned j = 0; j < NX; j++)
        assert_int_equal(f->m.offs[j], (uint64_t)j * T);
}

static void test_random_covers_once(void **state)
{
    struct fix *f = *state;
    f->cfg.random = 1;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->m.noffs, NX);
    int in_order = 1;
    for (unsigned j = 0; j < NX; j++)
        in_order &= f->m.offs[j] == (uint64_t)j * T;
    assert_false(in_order);
    qsort(f->m.offs, NX, sizeof(uint64_t), cmp_u64);
    for (unsigned j = 0; j < NX; j++)
        assert_int_equal(f->m.offs[j], (uint64_t)j * T);
}

/* Shared file, stream 2 of 4: segmented rank*b + j*t, strided (j*N + rank)*t. */
static void test_shared_layouts(void **state)
{
    struct fix *f = *state;
    f->cfg.shared = 1;
    f->p.nstreams = 4;
    f->s.id = 2;
    f->cfg.layout = PFS_LAYOUT_SEGMENTED;
    f->p.nxfers = f->p.data_xfers = 8;
    run_data(f, PFS_PH_WRITE);
    for (unsigned j = 0; j < 8; j++)
        assert_int_equal(f->m.offs[j], 2ull * T * NX + (uint64_t)j * T);
    f->cfg.layout = PFS_LAYOUT_STRIDED;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->m.noffs, 8);
    for (unsigned j = 0; j < 8; j++)
        assert_int_equal(f->m.offs[j], ((uint64_t)j * 4 + 2) * T);
}

/* The stonewall: a deadline that has passed at once stops the timed loop
 * after its first transfer (never at 0, as IOR's); the wear-out reaches the
 * hook's target, through the same offsets. */
static void test_wearout_reaches_target(void **state)
{
    struct fix *f = *state;
    f->cfg.deadline = 1e-9;
    f->wear_target = 10;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->wear_calls, 1);
    assert_int_equal(f->wear_done, 1);
    assert_int_equal(f->s.t.sw_bytes, T);
    assert_int_equal(f->s.t.sw_xfers, 1);
    assert_true(f->s.t.sw_end > 0);
    assert_int_equal(f->s.t.xfers, 10);
    assert_int_equal(f->s.t.bytes, 10ull * T);
    for (unsigned j = 0; j < 10; j++)
        assert_int_equal(f->m.offs[j], (uint64_t)j * T);
    /* A deadline never reached: no stonewall end, the hook still called. */
    f->cfg.deadline = 1e6;
    f->wear_target = NX;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->wear_calls, 2);
    assert_int_equal(f->wear_done, NX);
    assert_true(f->s.t.sw_end == 0);
    assert_int_equal(f->s.t.xfers, NX);
}

static void test_failure_at_k(void **state)
{
    struct fix *f = *state;
    f->m.fail_at = 5;
    f->m.fail_err = ENOSPC;
    run_data(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->s.fail.rank, 3);
    assert_int_equal(f->s.fail.err, ENOSPC);
    assert_int_equal(f->s.fail.offset, 5ull * T);
    assert_string_equal(f->s.fail.op, "write");
    assert_int_equal(f->s.t.xfers, 6); /* the failed one is counted, as before */
    assert_int_equal(f->s.t.bytes, 5ull * T);
    assert_int_equal(f->m.noffs, 6);
}

static void test_interrupted(void **state)
{
    struct fix *f = *state;
    f->interrupted = SIGTERM;
    run_data(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_string_equal(f->s.fail.op, "interrupted");
    assert_int_equal(f->s.fail.sig, SIGTERM);
    assert_int_equal(f->s.t.xfers, 0);
    assert_int_equal(f->m.noffs, 0);
}

/* Verify through memory, synchronous and async at depth 4: a clean read
 * passes, a flipped byte is found where it is. */
static void verify_roundtrip(struct fix *f)
{
    f->cfg.verify = 1;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    run_data(f, PFS_PH_READ);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.errors, 0);
    f->m.data[7 * T + 123] ^= 0x40;
    run_data(f, PFS_PH_READ);
    assert_true(f->s.fail.failed);
    assert_string_equal(f->s.fail.op, "verify");
    assert_int_equal(f->s.fail.offset, 7ull * T + 123);
    assert_int_equal(f->s.t.errors, 1);
    assert_int_equal(f->s.t.bytes, (uint64_t)T * NX);
}

static void test_verify_catches_corruption(void **state)
{
    verify_roundtrip(*state);
}

static void test_async_out_of_order(void **state)
{
    struct fix *f = *state;
    f->p.be = &mem_async;
    f->p.iodepth = 4;
    f->s.qbuf = f->qbuf;
    f->cfg.random = 1;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->m.max_inflight, 4);
    assert_int_equal(f->s.t.bytes, (uint64_t)T * NX);
    assert_int_equal(f->s.t.xfers, NX);
    qsort(f->m.offs, NX, sizeof(uint64_t), cmp_u64);
    for (unsigned j = 0; j < NX; j++)
        assert_int_equal(f->m.offs[j], (uint64_t)j * T);
    verify_roundtrip(f);
}

/* At depth 4, a failure stops issuing; what was in flight is reaped and counted. */
static void test_async_failure_drains(void **state)
{
    struct fix *f = *state;
    f->p.be = &mem_async;
    f->p.iodepth = 4;
    f->s.qbuf = f->qbuf;
    f->m.fail_at = 9;
    f->m.fail_err = EIO;
    run_data(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->s.fail.err, EIO);
    assert_int_equal(f->m.npending, 0);
    assert_true(f->s.t.xfers >= 10 && f->s.t.xfers <= 13);
    assert_int_equal(f->s.t.bytes, (f->s.t.xfers - 1) * T);
}

/* The async wear-out: stonewall at once, wear out to 20 at depth 4. */
static void test_async_wearout(void **state)
{
    struct fix *f = *state;
    f->p.be = &mem_async;
    f->p.iodepth = 4;
    f->s.qbuf = f->qbuf;
    f->cfg.deadline = 1e-9;
    f->wear_target = 20;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.xfers, 20);
    assert_int_equal(f->s.t.bytes, 20ull * T);
}

/* --fsync-every 8 over 64 transfers: 8 fsyncs, each after a multiple of 8
 * transfers, with nothing in flight (depth 1, or async at depth 4 drained),
 * each counted in the stream's fsync histogram; -e adds its one at close;
 * a read phase has none. */
static void fsync_every_8(struct fix *f)
{
    struct pfs_stream_lat *lat = calloc(1, sizeof(*lat));
    assert_non_null(lat);
    assert_int_equal(pfs_ts_init(&lat->ts, 0, 1.0, 64), 0);
    f->s.lat = lat;
    f->cfg.fsync_every = 8;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.xfers, NX);
    assert_int_equal(f->m.fsyncs, NX / 8);
    for (unsigned k = 0; k < NX / 8; k++)
        assert_int_equal(f->m.fsync_at[k], 8 * (k + 1));
    assert_int_equal(f->m.fsync_inflight, 0);
    assert_int_equal(lat->h[PFS_LAT_FSYNC].count, NX / 8);
    assert_int_equal(lat->h[PFS_LAT_OP].count, NX);
    f->cfg.fsync = 1;
    f->m.fsyncs = 0;
    run_data(f, PFS_PH_REWRITE);
    assert_int_equal(f->m.fsyncs, NX / 8 + 1);
    assert_int_equal(lat->h[PFS_LAT_FSYNC].count, NX / 8 + 1);
    f->m.fsyncs = 0;
    run_data(f, PFS_PH_READ);
    assert_int_equal(f->m.fsyncs, 0);
    assert_int_equal(lat->h[PFS_LAT_FSYNC].count, 0);
    f->s.lat = NULL;
    pfs_ts_free(&lat->ts);
    free(lat);
}

static void test_fsync_every(void **state)
{
    fsync_every_8(*state);
}

static void test_fsync_every_async_drains(void **state)
{
    struct fix *f = *state;
    f->p.be = &mem_async;
    f->p.iodepth = 4;
    f->s.qbuf = f->qbuf;
    fsync_every_8(f);
    assert_int_equal(f->m.max_inflight, 4);
}

/* The last partial group gets no fsync of its own; the stonewall's
 * wear-out keeps the count; a failed fsync stops the stream, named. */
static void test_fsync_every_edges(void **state)
{
    struct fix *f = *state;
    f->cfg.fsync_every = 10;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->m.fsyncs, NX / 10);
    assert_int_equal(f->m.fsync_at[NX / 10 - 1], NX / 10 * 10);
    f->m.fsyncs = 0;
    f->cfg.fsync_every = 8;
    f->cfg.deadline = 1e-9;
    f->wear_target = 20;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->s.t.xfers, 20);
    assert_int_equal(f->m.fsyncs, 2);
    f->m.fsyncs = 0;
    f->cfg.deadline = 0;
    f->m.fsync_fail_at = 1;
    run_data(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_string_equal(f->s.fail.op, "fsync");
    assert_int_equal(f->s.fail.err, EIO);
    assert_int_equal(f->s.t.xfers, 16);
    assert_int_equal(f->m.fsyncs, 2);
}

/* --sync: the write's open asks PFS_OPEN_DSYNC or PFS_OPEN_SYNC of a
 * backend with PFS_CAP_OSYNC; a backend without it is refused. */
static void test_sync_open_flags(void **state)
{
    struct fix *f = *state;
    char err[200];
    f->p.be = &mem_osync;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->m.wr_flags & (PFS_OPEN_DSYNC | PFS_OPEN_SYNC), 0);
    f->cfg.sync_mode = PFS_SYNC_DSYNC;
    run_data(f, PFS_PH_WRITE);
    assert_int_equal(f->m.wr_flags & (PFS_OPEN_DSYNC | PFS_OPEN_SYNC), PFS_OPEN_DSYNC);
    f->cfg.sync_mode = PFS_SYNC_SYNC;
    run_data(f, PFS_PH_REWRITE);
    assert_int_equal(f->m.wr_flags & (PFS_OPEN_DSYNC | PFS_OPEN_SYNC), PFS_OPEN_SYNC);
    assert_int_equal(pfs_backend_check(&mem_osync, &f->cfg, err, sizeof(err)), 0);
    assert_int_equal(pfs_backend_check(&pfs_backend_posix, &f->cfg, err, sizeof(err)), 0);
    assert_int_equal(pfs_backend_check(&mem_sync, &f->cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--sync sync"));
    assert_non_null(strstr(err, "--api mem"));
    /* A collective fsync on the shared file needs --collective. */
    struct pfs_backend coll = mem_sync;
    coll.caps |= PFS_CAP_COLLECTIVE | PFS_CAP_FSYNC_COLL;
    f->cfg.sync_mode = PFS_SYNC_NONE;
    f->cfg.fsync_every = 2;
    f->cfg.shared = 1;
    assert_int_equal(pfs_backend_check(&coll, &f->cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--fsync-every"));
    assert_non_null(strstr(err, "--collective"));
    assert_int_equal(pfs_backend_check(&mem_sync, &f->cfg, err, sizeof(err)), 0);
    f->cfg.collective = 1;
    assert_int_equal(pfs_backend_check(&coll, &f->cfg, err, sizeof(err)), 0);
    f->cfg.collective = 0;
    f->cfg.shared = 0;
    assert_int_equal(pfs_backend_check(&coll, &f->cfg, err, sizeof(err)), 0);
}

/* The POSIX backend on a real file: sizes, bytes, a corrupted byte on disk. */
static void test_posix_file(void **state)
{
    struct fix *f = *state;
    f->p.be = &pfs_backend_posix;
    f->p.bectx = NULL;
    f->cfg.verify = 1;
    f->cfg.fsync = 1;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    struct stat st;
    assert_int_equal(stat(f->s.path, &st), 0);
    assert_int_equal(st.st_size, (off_t)T * NX);
    assert_int_equal(f->s.fid.ino, (uint64_t)st.st_ino);
    f->s.rd_fid = f->s.fid;
    run_data(f, PFS_PH_READ);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.bytes, (uint64_t)T * NX);
    int fd = open(f->s.path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "Z", 1, 3 * T + 5), 1);
    close(fd);
    run_data(f, PFS_PH_READ);
    assert_string_equal(f->s.fail.op, "verify");
    assert_int_equal(f->s.fail.offset, 3ull * T + 5);
    /* A second write truncates the inode it made; a read past the end is short. */
    memset(&f->s.fail, 0, sizeof(f->s.fail));
    f->cfg.verify = 0;
    f->p.nxfers = f->p.data_xfers = 4;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(stat(f->s.path, &st), 0);
    assert_int_equal(st.st_size, 4 * T);
    f->p.data_xfers = 5;
    run_data(f, PFS_PH_READ);
    assert_true(f->s.fail.failed);
    assert_non_null(strstr(f->s.fail.detail, "short read"));
    assert_int_equal(f->s.fail.offset, 4ull * T);
}

static void meta_phases(struct fix *f, const struct pfs_backend *be, void *ctx)
{
    f->p.be = be;
    f->p.bectx = ctx;
    f->cfg.files = 40;
    f->cfg.file_size = 100;
    snprintf(f->s.md_dir, sizeof(f->s.md_dir), "%s", f->dir);
    snprintf(f->s.md_rd_dir, sizeof(f->s.md_rd_dir), "%s", f->dir);
    const int kinds[] = {PFS_PH_CREATE, PFS_PH_STAT, PFS_PH_READFILES};
    for (unsigned i = 0; i < 3; i++) {
        f->p.kind = kinds[i];
        pfs_stream_run(&f->p, &f->s);
        assert_false(f->s.fail.failed);
        assert_int_equal(f->s.t.xfers, 40);
    }
    assert_int_equal(f->s.t.bytes, 40 * 100);
    assert_int_equal(f->s.md_created, 40);
}

static void test_meta_posix_and_null(void **state)
{
    struct fix *f = *state;
    char path[PFS_PATH_MAX + 256];
    meta_phases(f, &pfs_backend_posix, NULL);
    pfs_md_path(path, sizeof(path), f->dir, 0, 39);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(pfs_stream_meta_clear(&f->cfg, &f->s), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(f->s.md_created, 0);
    /* The MPI-IO-like backend without PFS_CAP_META gets the POSIX calls. */
    void *ctx = &f->m;
    assert_ptr_equal(pfs_backend_md(&mem_sync, &ctx), &pfs_backend_posix);
    assert_null(ctx);
    /* null: the same counts, nothing on disk. */
    assert_int_equal(pfs_backend_init(&pfs_backend_null, &ctx, &f->cfg, NULL, NULL, 0), 0);
    meta_phases(f, &pfs_backend_null, ctx);
    assert_int_equal(access(path, F_OK), -1);
    f->p.kind = PFS_PH_DELETE;
    pfs_stream_run(&f->p, &f->s);
    assert_int_equal(f->s.md_created, 0);
    pfs_backend_fini(&pfs_backend_null, ctx);
}

/* Each phase's work count (pfs_phase_work), the one number its loop runs
 * to and the progress line adds up over the streams. */
static void test_phase_work(void **state)
{
    struct fix *f = *state;
    struct pfs_phase_ctx p = f->p;
    p.nstreams = 3;
    p.nxfers = 64;
    p.data_xfers = 40; /* a write's stonewall stopped at 40 */
    p.md_files = 0;
    f->cfg.seeks = 8;
    f->cfg.files = 100;
    f->cfg.md_depth = 2;
    f->cfg.md_branch = 3; /* 3 + 9 directories */
    static const struct { int kind; uint64_t s0, s2; } want[] = {
        {PFS_PH_WRITE, 64, 64},      {PFS_PH_REWRITE, 40, 40},  {PFS_PH_READ, 40, 40},   {PFS_PH_REREAD, 40, 40},
        {PFS_PH_SEEKS, 3, 2},        {PFS_PH_CREATE, 100, 100}, {PFS_PH_STAT, 100, 100}, {PFS_PH_READFILES, 100, 100},
        {PFS_PH_FIND, 100, 100},     {PFS_PH_DELETE, 100, 100},
        /* --dirs shared (the default): one tree, stream 0's; the others have none to make */
        {PFS_PH_MKDIR, 12, 0},       {PFS_PH_STATDIRS, 12, 0},  {PFS_PH_RMDIR, 12, 0},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        p.kind = want[i].kind;
        if (pfs_phase_work(&p, 0) != want[i].s0 || pfs_phase_work(&p, 2) != want[i].s2)
            fail_msg("%s: %llu and %llu, want %llu and %llu", pfs_phase_name(p.kind),
                     (unsigned long long)pfs_phase_work(&p, 0), (unsigned long long)pfs_phase_work(&p, 2),
                     (unsigned long long)want[i].s0, (unsigned long long)want[i].s2);
    }
    /* A create's stonewall stopped at 30: the phases after it work on those. */
    p.md_files = 30;
    p.kind = PFS_PH_CREATE;
    assert_int_equal(pfs_phase_work(&p, 1), 100);
    p.kind = PFS_PH_DELETE;
    assert_int_equal(pfs_phase_work(&p, 1), 30);
    f->cfg.dirs = PFS_DIRS_PER_RANK; /* a tree per stream */
    p.kind = PFS_PH_RMDIR;
    assert_int_equal(pfs_phase_work(&p, 2), 12);
}

/* --rate 2000, fixed arrivals: no transfer is done before its intended
 * start, the schedule's k-th integer from the phase's start (t0_ns), and
 * each has a response time beside its service time; synchronously and at
 * depth 4 (where reap polls between intended starts). Without pacing the
 * 64 transfers would all be done within the first intended gap. */
static void rated(struct fix *f, const struct pfs_backend *be, unsigned depth)
{
    struct pfs_stream_lat *lat = calloc(1, sizeof(*lat));
    assert_non_null(lat);
    assert_int_equal(pfs_ts_init(&lat->ts, 0, 1.0, 64), 0);
    f->s.lat = lat;
    f->p.be = be;
    f->p.iodepth = depth;
    f->s.qbuf = depth > 1 ? f->qbuf : NULL;
    snprintf(f->cfg.rate, sizeof(f->cfg.rate), "2000");
    f->p.t0_ns = pfs_now_ns() + 1000000;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.xfers, NX);
    struct pfs_sched sc;
    assert_int_equal(pfs_sched_init(&sc, 2000, PFS_ARR_FIXED, 0, 0, f->p.t0_ns), 0);
    for (unsigned k = 0; k < NX; k++) {
        const uint64_t due = pfs_sched_next(&sc);
        assert_int_equal(due, f->p.t0_ns + 500000ull * k);
        assert_true(f->m.at_ns[k] >= due);
    }
    assert_int_equal(lat->h[PFS_LAT_RESP].count, NX);
    assert_int_equal(lat->h[PFS_LAT_OP].count, NX);
    assert_true(f->s.t.lag_max_ns * NX >= f->s.t.lag_sum_ns);
    f->s.lat = NULL;
    free(lat->ts.slot);
    free(lat);
}

static void test_rate_paces(void **state)
{
    struct fix *f = *state;
    rated(f, &mem_sync, 1);
    rated(f, &mem_async, 4);
}

static void test_backend_tables(void **state)
{
    (void)state;
    char err[160];
    assert_int_equal(pfs_backend_valid(&pfs_backend_posix, err, sizeof(err)), 0);
    assert_int_equal(pfs_backend_valid(&pfs_backend_null, err, sizeof(err)), 0);
    assert_int_equal(pfs_backend_valid(&mem_async, err, sizeof(err)), 0);
    struct pfs_backend broken = mem_async;
    broken.reap = NULL;
    assert_int_equal(pfs_backend_valid(&broken, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "PFS_CAP_ASYNC"));
    broken = pfs_backend_null;
    broken.md_stat = NULL;
    assert_int_equal(pfs_backend_valid(&broken, err, sizeof(err)), -1);
    struct pfs_config cfg;
    pfs_config_defaults(&cfg);
    cfg.direct = 1;
    assert_int_equal(pfs_backend_check(&pfs_backend_posix, &cfg, err, sizeof(err)), 0);
    assert_int_equal(pfs_backend_check(&mem_sync, &cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--direct"));
    cfg.direct = 0;
    cfg.threads = 2;
    assert_int_equal(pfs_backend_check(&mem_async, &cfg, err, sizeof(err)), -1);
    assert_int_equal(pfs_backend_check(&mem_sync, &cfg, err, sizeof(err)), 0);
}

/* ---- --runtime and --ramp ---- */

/* --runtime: the phase runs its seconds, offsets wrapping around the block
 * (the same sequence each pass, sequential); bytes are what moved. */
static void test_runtime_wraps(void **state)
{
    struct fix *f = *state;
    f->cfg.runtime = 0.2;
    f->cfg.verify = 1;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.xfers > 4 * NX);
    assert_int_equal(f->s.t.bytes, f->s.t.xfers * T);
    assert_true(f->s.t.close_end - f->s.t.open_start >= 0.2);
    assert_int_equal(f->m.noffs, 4 * NX); /* recorded: the first 4 passes */
    for (unsigned j = 0; j < 4 * NX; j++)
        assert_int_equal(f->m.offs[j], (uint64_t)(j % NX) * T);
    /* Reads wrap too, and what the wrapped writes left still verifies. */
    f->s.rd_fid = f->s.fid;
    run_data(f, PFS_PH_READ);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.errors, 0);
    assert_true(f->s.t.xfers > 4 * NX);
}

/* Random order: each pass covers the block once, in a new order. */
static void test_runtime_random_passes(void **state)
{
    struct fix *f = *state;
    f->cfg.runtime = 0.1;
    f->cfg.random = 1;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.xfers > 4 * NX);
    assert_int_equal(f->m.noffs, 4 * NX);
    assert_memory_not_equal(f->m.offs, f->m.offs + NX, NX * sizeof(uint64_t));
    for (unsigned q = 0; q < 4; q++) {
        qsort(f->m.offs + q * NX, NX, sizeof(uint64_t), cmp_u64);
        for (unsigned j = 0; j < NX; j++)
            assert_int_equal(f->m.offs[q * NX + j], (uint64_t)j * T);
    }
}

/* The async queue at depth 4 keeps its transfers in flight across the
 * block's end; the runtime stops issuing and drains. */
static void test_runtime_async(void **state)
{
    struct fix *f = *state;
    f->cfg.runtime = 0.1;
    f->p.be = &mem_async;
    f->p.iodepth = 4;
    f->s.qbuf = f->qbuf;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.xfers > 4 * NX);
    assert_int_equal(f->s.t.bytes, f->s.t.xfers * T);
    assert_true(f->m.max_inflight > 1);
    assert_int_equal(f->m.npending, 0);
    for (unsigned j = 0; j < 4 * NX; j++)
        assert_true(f->m.offs[j] < (uint64_t)NX * T && f->m.offs[j] % T == 0);
    f->s.qbuf = NULL;
}

/* A time-based write completes one pass even when --runtime ends first, so
 * the block exists whole for the reads; a read stops at the runtime. */
static void test_runtime_write_one_pass(void **state)
{
    struct fix *f = *state;
    f->cfg.runtime = 0.005;
    f->m.delay_us = 500; /* 32 ms a pass */
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.xfers, NX);
    f->s.rd_fid = f->s.fid;
    run_data(f, PFS_PH_READ);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.xfers >= 1 && f->s.t.xfers < NX);
}

/* --ramp without --runtime: the block runs as usual (every transfer is
 * issued), but what completed in the ramp is left out: bytes, transfers,
 * the latency record, and the span starts at the ramp's end. The bounds
 * follow from the sleeps alone, not from how promptly they end (a loaded
 * machine may wake a 2 ms sleep late, often): every transfer takes 2 ms or
 * more, so the block (128 ms or more) outlasts the 100 ms ramp, and at most
 * 50 transfers fit in the ramp; the first ends in the ramp unless the
 * process is held up for nearly all of it. */
static void test_ramp_cuts_figures(void **state)
{
    struct fix *f = *state;
    struct pfs_stream_lat *lat = calloc(1, sizeof(*lat));
    assert_non_null(lat);
    assert_int_equal(pfs_ts_init(&lat->ts, 0, 1.0, 64), 0);
    f->s.lat = lat;
    f->cfg.ramp = 0.1;
    f->m.delay_us = 2000; /* 128 ms or more for the block */
    f->p.t0_ns = pfs_now_ns();
    double t0 = pfs_now();
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->m.noffs, NX);
    assert_true(f->s.t.xfers > 0 && f->s.t.xfers < NX); /* some, not all, in the ramp */
    assert_true(f->s.t.xfers >= NX - 50);              /* no more than fit in it */
    assert_int_equal(f->s.t.bytes, f->s.t.xfers * T);
    assert_int_equal(lat->h[PFS_LAT_OP].count, f->s.t.xfers);
    assert_int_equal(lat->h[PFS_LAT_OPEN].count, 0); /* the open is in the ramp */
    assert_int_equal(lat->h[PFS_LAT_CLOSE].count, 1);
    uint64_t in_ts = 0;
    for (uint32_t i = 0; i < lat->ts.n; i++)
        in_ts += lat->ts.slot[i].ops;
    assert_int_equal(in_ts, f->s.t.xfers);
    assert_true(f->s.t.open_start >= t0 + 0.1);
    assert_true(f->s.t.open_start <= f->s.t.open_end && f->s.t.open_end <= f->s.t.xfer_end);
    f->s.lat = NULL;
    pfs_ts_free(&lat->ts);
    free(lat);
}

/* A ramp that outlasts the work leaves no figures at all: no bytes, no
 * transfers and an empty span at the close (not a measurement). */
static void test_ramp_outlasts_work(void **state)
{
    struct fix *f = *state;
    f->cfg.ramp = 5;
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->m.noffs, NX);
    assert_int_equal(f->s.t.xfers, 0);
    assert_int_equal(f->s.t.bytes, 0);
    assert_true(f->s.t.open_start == f->s.t.close_end && f->s.t.xfer_end == f->s.t.close_end);
}

/* --ramp with --runtime: the ramp is inside the runtime. The span is
 * runtime - ramp (0.7 s) give or take how late the ramp's end and the last
 * transfer are seen: 0.3 s of margin either way, and a ramp added to the
 * runtime instead would make the span the whole runtime or more. */
static void test_ramp_in_runtime(void **state)
{
    struct fix *f = *state;
    f->cfg.runtime = 1.0;
    f->cfg.ramp = 0.3;
    f->m.delay_us = 500; /* sleep, not spin, beside the other tests */
    double t0 = pfs_now();
    run_data(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.open_start >= t0 + 0.3);
    assert_true(f->s.t.close_end - t0 >= 1.0);
    double span = f->s.t.close_end - f->s.t.open_start;
    assert_true(span > 0.3 && span < 1.0);
    assert_int_equal(f->s.t.bytes, f->s.t.xfers * T);
}

static void test_offgen(void **state)
{
    (void)state;
    struct pfs_offgen g;
    struct pfs_offgen_spec sp = {.order = PFS_ORDER_SEQUENTIAL, .shared = 1, .layout = PFS_LAYOUT_STRIDED,
                                 .stream = 1, .nstreams = 3, .block = 10 * 8, .transfer = 8, .nxfers = 10, .seed = 7};
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 10; j++)
        assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 3, 80, 8, j));
    pfs_offgen_seek(&g, 4);
    assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 3, 80, 8, 4));
    sp.order = PFS_ORDER_RANDOM;
    sp.layout = PFS_LAYOUT_SEGMENTED;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 10; j++)
        assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_SEGMENTED, 1, 1, 3, 80, 8, pfs_permute(j, 10, 7)));
    /* Wrapping: strided sequential starts over after transfer 9; random
     * covers the block once per pass, a new order in the second. */
    sp.wrap = 1;
    sp.order = PFS_ORDER_SEQUENTIAL;
    sp.layout = PFS_LAYOUT_STRIDED;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 35; j++)
        assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 3, 80, 8, j % 10));
    assert_int_equal(g.pass, 3);
    pfs_offgen_seek(&g, 12);
    assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 3, 80, 8, 2));
    sp.order = PFS_ORDER_RANDOM;
    pfs_offgen_init(&g, &sp);
    uint64_t pass[2][10];
    for (int q = 0; q < 2; q++) {
        uint64_t seen = 0;
        for (int j = 0; j < 10; j++) {
            pass[q][j] = pfs_offgen_next(&g);
            uint64_t k = (pass[q][j] - pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 3, 80, 8, 0)) / (3 * 8);
            assert_true(k < 10);
            seen |= 1ull << k;
        }
        assert_int_equal(seen, 0x3ff);
    }
    assert_memory_not_equal(pass[0], pass[1], sizeof(pass[0]));
}

/* In segments (--segments 3, 2 streams, 4 transfers a segment) every order
 * hands out pfs_offset's offsets: sequential across a segment's end, after a
 * seek into one, wrapping, random and uniform. */
static void test_offgen_segments(void **state)
{
    (void)state;
    struct pfs_offgen g;
    struct pfs_offgen_spec sp = {.order = PFS_ORDER_SEQUENTIAL, .shared = 1, .layout = PFS_LAYOUT_SEGMENTED,
                                 .segments = 3, .stream = 1, .nstreams = 2, .block = 12 * 8, .transfer = 8,
                                 .nxfers = 12, .seed = 5};
#define SEG(j) pfs_offset(1, PFS_LAYOUT_SEGMENTED, 3, 1, 2, 96, 8, (j))
    pfs_offgen_init(&g, &sp);
    static const uint64_t want[12] = {32, 40, 48, 56, 96, 104, 112, 120, 160, 168, 176, 184};
    for (uint64_t j = 0; j < 12; j++)
        assert_int_equal(pfs_offgen_next(&g), want[j]);
    pfs_offgen_seek(&g, 6);
    for (uint64_t j = 6; j < 12; j++)
        assert_int_equal(pfs_offgen_next(&g), want[j]);
    sp.wrap = 1;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 30; j++)
        assert_int_equal(pfs_offgen_next(&g), want[j % 12]);
    pfs_offgen_seek(&g, 15);
    assert_int_equal(pfs_offgen_next(&g), want[3]);
    assert_int_equal(pfs_offgen_next(&g), want[4]);
    sp.wrap = 0, sp.order = PFS_ORDER_RANDOM;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 12; j++)
        assert_int_equal(pfs_offgen_next(&g), SEG(pfs_permute(j, 12, 5)));
    sp.order = PFS_ORDER_UNIFORM;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 12; j++) {
        uint64_t o = pfs_offgen_next(&g), k = 0;
        while (k < 12 && SEG(k) != o)
            k++;
        assert_true(k < 12);
    }
    /* One transfer a segment: the strided layout's offsets. */
    sp.order = PFS_ORDER_SEQUENTIAL, sp.segments = 12;
    pfs_offgen_init(&g, &sp);
    for (uint64_t j = 0; j < 12; j++)
        assert_int_equal(pfs_offgen_next(&g), pfs_offset(1, PFS_LAYOUT_STRIDED, 1, 1, 2, 96, 8, j));
#undef SEG
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_null_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sequential_offsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_covers_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wearout_reaches_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_at_k, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_catches_corruption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_async_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_async_failure_drains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_async_wearout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fsync_every, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fsync_every_async_drains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fsync_every_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_open_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_posix_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_posix_and_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_phase_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runtime_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runtime_random_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runtime_async, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runtime_write_one_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ramp_cuts_figures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ramp_outlasts_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ramp_in_runtime, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_paces, setup, teardown),
        cmocka_unit_test(test_backend_tables),
        cmocka_unit_test(test_offgen),
        cmocka_unit_test(test_offgen_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
