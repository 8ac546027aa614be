/* A data phase's per-target figures as the stream loop keeps them
 * (pfs_stream_run over a test backend, no MPI): a file on one target is
 * attributed once, when its phase's figures end, and gets exactly what
 * per-transfer attribution would give it: the stream's op histogram,
 * bucket by bucket, and every transfer's bytes moved (a short one's part,
 * a failed one's none, an --rmw read's that came up short); --ramp's cut
 * starts it again. Nothing touches the target during the phase. A
 * striped file is still attributed transfer by transfer. */
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
#include <unistd.h>

#include <cmocka.h>

#include "pfs/backend.h"
#include "pfs/stream.h"
#include "pfs/stream_tg.h"

#define T 4096u /* transfer */
#define NX 64u  /* transfers per block */

/* ---- a backend whose every call's result is set, and which looks at the
 * targets' figures while the phase runs ---- */

struct tb {
    unsigned char data[(size_t)T * NX];
    unsigned calls;           /* transfers made (an --rmw's read and write: one each) */
    int64_t bad_at;           /* the call that returns bad_res (-1: none) */
    int64_t bad_res;          /* a byte count below T, or a negative errno */
    unsigned delay_us;        /* each call sleeps this long first (--ramp) */
    uint64_t moved;           /* the bytes every call returned, > 0 ones */
    const struct pfs_tg_acc *acc; /* the stream's targets */
    uint64_t seen_ops;        /* the most operations the targets held during the phase */
};

static int tb_open(void *ctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    (void)dirfd, (void)path, (void)flags, (void)expect;
    if (got)
        *got = (struct pfs_fid){1, 42};
    *fh = ctx;
    return 0;
}

static int64_t tb_do(struct tb *b, void *buf, size_t len, uint64_t off, int write)
{
    uint64_t ops = 0;
    for (uint32_t i = 0; i < b->acc->n; i++)
        ops += b->acc->s[i].h.count;
    b->seen_ops = ops > b->seen_ops ? ops : b->seen_ops;
    if (b->delay_us)
        usleep(b->delay_us);
    const unsigned k = b->calls++;
    int64_t res = (int64_t)len;
    if (b->bad_at >= 0 && k == (uint64_t)b->bad_at)
        res = b->bad_res;
    if (off + len > sizeof(b->data))
        res = -ENOSPC;
    if (res > 0 && write)
        memcpy(b->data + off, buf, (size_t)res);
    else if (res > 0)
        memcpy(buf, b->data + off, (size_t)res);
    b->moved += res > 0 ? (uint64_t)res : 0;
    return res;
}

static int64_t tb_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return tb_do(fh, (void *)buf, len, off, 1);
}

static int64_t tb_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return tb_do(fh, buf, len, off, 0);
}

static int tb_ok(void *fh)
{
    (void)fh;
    return 0;
}

static const struct pfs_backend tb_sync = {
    .name = "tb",
    .caps = PFS_CAP_THREADS,
    .open = tb_open,
    .pwrite = tb_pwrite,
    .pread = tb_pread,
    .fsync = tb_ok,
    .close = tb_ok,
};

/* ---- one stream with a latency record and its targets ---- */

struct fix {
    struct pfs_config cfg;
    struct pfs_phase_ctx p;
    struct pfs_stream s;
    struct pfs_stream_lat lat;
    struct pfs_stream_tg tg;
    struct tb b;
    volatile sig_atomic_t interrupted;
    char dir[64];
};

static uint64_t no_wearout(void *arg, struct pfs_stream *s, uint64_t done)
{
    (void)arg, (void)s;
    return done;
}

/* The data file's layout, as a provider would have found it at its first
 * open (for writing and for reading): one target named name, or two
 * stripes of T over two targets. */
static void layout(struct fix *f, const char *name, int striped)
{
    for (int i = 0; i < 2; i++) {
        struct pfs_layout *l = &f->tg.lay[i];
        pfs_layout_free(l);
        pfs_layout_init(l, "test");
        if (!striped) {
            assert_int_equal(pfs_layout_whole(l, name), 0);
        } else {
            uint32_t slots[2] = {(uint32_t)pfs_layout_target(l, "ost0", 0), (uint32_t)pfs_layout_target(l, "ost1", 1)};
            struct pfs_layout_comp c = {.start = 0, .end = PFS_LAYOUT_EOF, .kind = PFS_COMP_RAID0, .count = 2,
                                        .unit = T, .width = 1};
            assert_int_equal(pfs_layout_add_comp(l, &c, slots, 2), 0);
        }
        l->known = 1;
        snprintf(f->tg.key[i], sizeof(f->tg.key[i]), "%s", f->s.path);
    }
}

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    snprintf(f->dir, sizeof(f->dir), "/tmp/pfs-stream-tg.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    pfs_config_defaults(&f->cfg);
    f->cfg.transfer = T;
    f->cfg.block = (uint64_t)T * NX;
    f->cfg.threads = 1;
    f->p = (struct pfs_phase_ctx){
        .cfg = &f->cfg,
        .be = &tb_sync,
        .bectx = &f->b,
        .nstreams = 1,
        .seed = 0x5eed,
        .nxfers = NX,
        .data_xfers = NX,
        .interrupted = &f->interrupted,
        .wearout = no_wearout,
        .arg = f,
    };
    f->b.bad_at = -1;
    f->s.fail.thread = -1;
    f->s.dir_fd = f->s.md_fd = f->s.md_rd_fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f->s.dir_fd < 0 || pfs_ts_init(&f->lat.ts, 0, 1.0, 64) != 0)
        return -1;
    snprintf(f->s.path, sizeof(f->s.path), "%s/pfsbench.test.0", f->dir);
    snprintf(f->s.rd_path, sizeof(f->s.rd_path), "%s", f->s.path);
    if (posix_memalign(&f->s.buf, 4096, T) != 0)
        return -1;
    struct pfs_fsinfo fs;
    memset(&fs, 0, sizeof(fs));
    snprintf(fs.mount_type, sizeof(fs.mount_type), "tmpfs");
    pfs_stream_tg_init(&f->tg, &fs, "node0", 0);
    f->s.tg = &f->tg;
    f->s.lat = &f->lat;
    f->b.acc = &f->tg.acc;
    layout(f, "disk0", 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    close(f->s.dir_fd);
    rmdir(f->dir);
    free(f->s.buf);
    pfs_ts_free(&f->lat.ts);
    pfs_stream_tg_free(&f->tg);
    free(f);
    return 0;
}

static const struct pfs_tg_stat *target(const struct fix *f, const char *name)
{
    for (uint32_t i = 0; i < f->tg.acc.n; i++)
        if (strcmp(f->tg.acc.s[i].name, name) == 0)
            return &f->tg.acc.s[i];
    fail_msg("no target %s", name);
    return NULL;
}

/* The one target's figures are exactly the stream's: its op histogram
 * (count, sum, min, max, every bucket) and bytes. */
static void same_as_stream(const struct fix *f, const char *name, uint64_t bytes)
{
    const struct pfs_tg_stat *t = target(f, name);
    assert_int_equal(t->bytes, bytes);
    assert_int_equal(t->h.count, f->lat.h[PFS_LAT_OP].count);
    assert_memory_equal(&t->h, &f->lat.h[PFS_LAT_OP], sizeof(t->h));
    assert_int_equal(f->b.seen_ops, 0); /* nothing per transfer */
}

static void run(struct fix *f, int kind)
{
    f->p.kind = kind;
    f->p.t0_ns = pfs_now_ns();
    f->b.calls = 0;
    f->b.moved = 0;
    f->b.seen_ops = 0;
    pfs_stream_run(&f->p, &f->s);
}

/* ---- tests ---- */

/* Every transfer whole, then a write and a read that end short, one that
 * fails: the target's bytes are those moved, its operations every
 * transfer's, the failed one's latency too (as the stream's histogram). */
static void test_one_target_whole_short_failed(void **state)
{
    struct fix *f = *state;
    run(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, NX);
    same_as_stream(f, "disk0", (uint64_t)T * NX);
    assert_int_equal(f->tg.acc.n, 1);

    f->b.bad_at = 40, f->b.bad_res = T / 2; /* a short write: the phase stops there */
    f->s.created = 1;
    run(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, 41);
    assert_int_equal(f->b.moved, 40 * T + T / 2);
    same_as_stream(f, "disk0", f->b.moved);
    assert_int_equal(f->s.t.bytes, f->b.moved);

    f->s.fail.failed = 0;
    f->b.bad_at = 9, f->b.bad_res = T / 4; /* a short read */
    f->s.rd_fid = f->s.fid;
    run(f, PFS_PH_READ);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, 10);
    same_as_stream(f, "disk0", 9 * T + T / 4);

    f->s.fail.failed = 0;
    f->b.bad_at = 20, f->b.bad_res = -EIO; /* a failed read: its latency, no bytes */
    run(f, PFS_PH_READ);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, 21);
    same_as_stream(f, "disk0", 20 * T);
}

/* --rmw: a read that comes back short moved bytes the phase does not
 * count (it counts bytes written); its target counts them, as the
 * per-transfer attribution (io->res) did. */
static void test_one_target_rmw_short_read(void **state)
{
    struct fix *f = *state;
    f->cfg.rmw = 1;
    f->s.created = 1;
    f->b.bad_at = 2 * 7, f->b.bad_res = T / 2; /* the 8th transfer's read */
    run(f, PFS_PH_REWRITE);
    assert_true(f->s.fail.failed);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, 8);
    assert_int_equal(f->s.t.bytes, 7 * T);
    assert_int_equal(f->b.moved, 2 * 7 * T + T / 2);
    same_as_stream(f, "disk0", 7 * T + T / 2);
}

/* --ramp: what completed in the ramp is dropped from the target as from
 * the stream (the phase's figures start again at the cut); a ramp that
 * outlasts the work leaves the target empty. Every transfer takes 2 ms
 * or more, so the 64 (128 ms or more) outlast the 0.1 s ramp and at most
 * 50 fit in it (test_stream's test_ramp_cuts_figures's bounds). */
static void test_one_target_ramp(void **state)
{
    struct fix *f = *state;
    f->cfg.ramp = 0.1;
    f->b.delay_us = 2000;
    run(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_true(f->s.t.xfers > 0 && f->s.t.xfers < NX && f->s.t.xfers >= NX - 50);
    assert_int_equal(f->lat.h[PFS_LAT_OP].count, f->s.t.xfers);
    same_as_stream(f, "disk0", f->s.t.xfers * T);

    f->cfg.ramp = 5;
    f->b.delay_us = 0;
    f->s.created = 1;
    run(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    assert_int_equal(f->s.t.xfers, 0);
    assert_int_equal(target(f, "disk0")->bytes, 0);
    assert_int_equal(target(f, "disk0")->h.count, 0);
}

/* A backend that keeps no files: the one target "unknown", attributed
 * the same way. */
static void test_unknown_target(void **state)
{
    struct fix *f = *state;
    f->tg.nofiles = 1;
    f->tg.key[0][0] = '\0'; /* found again: "unknown" */
    run(f, PFS_PH_WRITE);
    assert_false(f->s.fail.failed);
    same_as_stream(f, "unknown", (uint64_t)T * NX);
}

/* A striped file: each transfer to its stripe's target as it completes
 * (the targets hold operations during the phase), half on each. */
static void test_striped_per_transfer(void **state)
{
    struct fix *f = *state;
    layout(f, NULL, 1);
    f->b.bad_at = 33, f->b.bad_res = T / 2; /* the 34th, on ost1, short */
    run(f, PFS_PH_WRITE);
    assert_true(f->s.fail.failed);
    assert_true(f->b.seen_ops > 0);
    const struct pfs_tg_stat *a = target(f, "ost0"), *b = target(f, "ost1");
    assert_int_equal(a->h.count, 17);
    assert_int_equal(b->h.count, 17);
    assert_int_equal(a->bytes, 17 * T);
    assert_int_equal(b->bytes, 16 * T + T / 2);
    struct pfs_hist both = a->h;
    pfs_hist_merge(&both, &b->h);
    assert_memory_equal(&both, &f->lat.h[PFS_LAT_OP], sizeof(both));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_target_whole_short_failed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_target_rmw_short_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_target_ramp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_striped_per_transfer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
