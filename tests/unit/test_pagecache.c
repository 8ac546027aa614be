/* The page-cache probe against real files, its fallback from cachestat to
 * mincore (syscall wrapped to fail, -Wl,--wrap=syscall), the reduction per
 * node and run, and the report's figures and warning built on it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pfs/fsinfo.h"
#include "pfs/pagecache.h"
#include "pfs/report.h"
#include "pfs/report_cache.h"

/* ---- the wrapped syscall: cachestat answers as the test says ---- */

enum { REAL, FAIL_ENOSYS, CANNED };
static int cachestat_mode = REAL;
static uint64_t canned[5]; /* nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted */
static int cachestat_calls;

long __real_syscall(long n, ...);
long __wrap_syscall(long n, ...)
{
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (n == 451) {
        cachestat_calls++;
        if (cachestat_mode == FAIL_ENOSYS) {
            errno = ENOSYS;
            return -1;
        }
        if (cachestat_mode == CANNED) {
            memcpy((void *)a[2], canned, sizeof(canned));
            return 0;
        }
    }
    return __real_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- a file of known cache state ---- */

#define PAGES 64
struct fixture {
    char dir[256], path[300];
    int fd;
    uint64_t ps, size;
    char fstype[32];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(f->dir, sizeof(f->dir), "%s/pfs_pc_XXXXXX", tmp);
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/data", f->dir);
    f->ps = (uint64_t)sysconf(_SC_PAGESIZE);
    f->size = PAGES * f->ps;
    f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(f->fd >= 0);
    char *buf = malloc(f->size);
    memset(buf, 0x5a, f->size);
    assert_int_equal(pwrite(f->fd, buf, f->size, 0), (ssize_t)f->size);
    free(buf);
    /* Written and synced: every page is in the cache, none dirty. */
    assert_int_equal(fdatasync(f->fd), 0);
    pfs_fs_type(f->dir, f->fstype, sizeof(f->fstype));
    cachestat_mode = REAL;
    cachestat_calls = 0;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    close(f->fd);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Drops the clean pages of [off, off+len): deterministic on a disk file
 * system; a memory file system keeps them (its pages are the file). */
static int drop(struct fixture *f, uint64_t off, uint64_t len)
{
    return posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

static void test_cached_then_dropped(void **state)
{
    struct fixture *f = *state;
    static const unsigned uses[] = {PFS_PC_USE_ALL, PFS_PC_USE_MINCORE};
    static const int want[] = {PFS_PC_CACHESTAT, PFS_PC_MINCORE};
    for (int u = 0; u < 2; u++) {
        struct pfs_pc_count c = {0, 0, 0};
        assert_int_equal(pfs_pc_range(f->fd, 0, f->size, uses[u], 0, &c), want[u]);
        assert_true(c.bytes == f->size);
        assert_true(c.resident == f->size); /* all of it, just written */
        /* A range that starts and ends inside pages counts its own bytes. */
        struct pfs_pc_count p = {0, 0, 0};
        assert_int_equal(pfs_pc_range(f->fd, 10, f->ps + 100, uses[u], 0, &p), want[u]);
        assert_true(p.bytes == f->ps + 100 && p.resident == f->ps + 100);
    }
    assert_int_equal(drop(f, 0, 0), 0);
    for (int u = 0; u < 2; u++) {
        struct pfs_pc_count c = {0, 0, 0};
        assert_int_equal(pfs_pc_range(f->fd, 0, f->size, uses[u], 0, &c), want[u]);
        if (pfs_pc_memory_fs(f->fstype))
            assert_true(c.resident == f->size); /* tmpfs: the pages are the file */
        else
            assert_true(c.resident == 0);
    }
}

static void test_dirty(void **state)
{
    struct fixture *f = *state;
    struct pfs_pc_count c = {0, 0, 0};
    /* Synced: nothing dirty, nothing under write-back. */
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, PFS_PC_USE_ALL, 1, &c), PFS_PC_CACHESTAT);
    assert_true(c.dirty == 0 && c.bytes == f->size);
    /* mincore cannot tell dirty pages: unknown, and nothing added. */
    struct pfs_pc_count m = {1, 2, 3};
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, PFS_PC_USE_MINCORE, 1, &m), PFS_PC_UNKNOWN);
    assert_true(m.bytes == 1 && m.resident == 2 && m.dirty == 3);
    /* The kernel's dirty and write-back pages add up, clamped to the range. */
    cachestat_mode = CANNED;
    const uint64_t k[5] = {10, 3, 2, 0, 0};
    memcpy(canned, k, sizeof(k));
    struct pfs_pc_count x = {0, 0, 0};
    assert_int_equal(pfs_pc_range(f->fd, 0, 10 * f->ps, PFS_PC_USE_ALL, 1, &x), PFS_PC_CACHESTAT);
    assert_true(x.resident == 10 * f->ps && x.dirty == 5 * f->ps);
    struct pfs_pc_count y = {0, 0, 0};
    assert_int_equal(pfs_pc_range(f->fd, 0, 100, PFS_PC_USE_ALL, 1, &y), PFS_PC_CACHESTAT);
    assert_true(y.resident == 100 && y.dirty == 100); /* whole pages, never more than the range */
}

static void test_fallback(void **state)
{
    struct fixture *f = *state;
    /* A kernel before 6.5: cachestat is ENOSYS, mincore answers. */
    cachestat_mode = FAIL_ENOSYS;
    struct pfs_pc_count c = {0, 0, 0};
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, PFS_PC_USE_ALL, 0, &c), PFS_PC_MINCORE);
    assert_int_equal(cachestat_calls, 1);
    assert_true(c.resident == f->size);
    /* ... but not for dirty pages; and with neither, unknown. */
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, PFS_PC_USE_ALL, 1, &c), PFS_PC_UNKNOWN);
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, PFS_PC_USE_CACHESTAT, 0, &c), PFS_PC_UNKNOWN);
    assert_int_equal(pfs_pc_range(f->fd, 0, f->size, 0, 0, &c), PFS_PC_UNKNOWN);
    assert_true(c.resident == f->size && c.bytes == f->size);
    /* A descriptor mmap refuses (not a file): unknown too. */
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pfs_pc_range(p[0], 0, 4096, PFS_PC_USE_ALL, 0, &c), PFS_PC_UNKNOWN);
    close(p[0]), close(p[1]);
}

/* The shared file: a stream's own transfers, segmented (one range) and
 * strided (one per transfer); the others' dropped. Transfers of 2 MiB,
 * aligned: the page cache's largest folios (2 MiB) never straddle two, so
 * dropping one transfer's pages drops exactly those. */
static void test_probe_shared(void **state)
{
    struct fixture *f = *state;
    if (pfs_pc_memory_fs(f->fstype))
        skip();
    const uint64_t t = 2u << 20, n = 8 * t;
    char path[320];
    snprintf(path, sizeof(path), "%s/shared", f->dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    char *buf = calloc(1, n);
    assert_int_equal(pwrite(fd, buf, n, 0), (ssize_t)n);
    assert_int_equal(fdatasync(fd), 0);
    /* 2 streams x 4 transfers. Segmented: stream 1 holds transfers 4..7;
     * strided: the odd ones. Drop stream 0's, keep stream 1's. */
    struct pfs_pc_target tg = {path, NULL, 1, PFS_LAYOUT_SEGMENTED, 1, 2, 4 * t, t, 4, 1};
    struct pfs_pc_count c;
    assert_int_equal(posix_fadvise(fd, 0, (off_t)(4 * t), POSIX_FADV_DONTNEED), 0);
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 4 * t);
    tg.writer = 0;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 0);
    /* Only 3 transfers of stream 1 present: the probe looks no further. */
    tg.writer = 1, tg.xfers = 3;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_MINCORE, 0, &c), PFS_PC_MINCORE);
    assert_true(c.bytes == 3 * t && c.resident == 3 * t);
    /* Strided: everything back in the cache, then stream 0's transfers dropped. */
    assert_int_equal(pread(fd, buf, n, 0), (ssize_t)n);
    for (uint64_t j = 0; j < 4; j++)
        assert_int_equal(posix_fadvise(fd, (off_t)(2 * j * t), (off_t)t, POSIX_FADV_DONTNEED), 0);
    tg.layout = PFS_LAYOUT_STRIDED, tg.xfers = 4;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 4 * t);
    tg.writer = 0;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 0);
    /* In 2 segments of 2 transfers: stream 0 holds [0,2t) and [4t,6t),
     * stream 1 [2t,4t) and [6t,8t). Stream 0's dropped. */
    assert_int_equal(pread(fd, buf, n, 0), (ssize_t)n);
    assert_int_equal(posix_fadvise(fd, 0, (off_t)(2 * t), POSIX_FADV_DONTNEED), 0);
    assert_int_equal(posix_fadvise(fd, (off_t)(4 * t), (off_t)(2 * t), POSIX_FADV_DONTNEED), 0);
    tg.layout = PFS_LAYOUT_SEGMENTED, tg.segments = 2, tg.writer = 1;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 4 * t);
    tg.writer = 0;
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 4 * t && c.resident == 0);
    /* 3 transfers present: stream 1's first segment and the first of its second. */
    tg.writer = 1, tg.xfers = 3;
    assert_int_equal(posix_fadvise(fd, (off_t)(7 * t), (off_t)t, POSIX_FADV_DONTNEED), 0);
    assert_int_equal(pfs_pc_probe(&tg, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == 3 * t && c.resident == 3 * t);
    assert_int_equal(pread(fd, buf, n, 0), (ssize_t)n); /* back to half resident, as the strided case left it */
    for (uint64_t j = 0; j < 4; j++)
        assert_int_equal(posix_fadvise(fd, (off_t)(2 * j * t), (off_t)t, POSIX_FADV_DONTNEED), 0);
    /* A file per stream is probed whole; a missing one is unknown; a link is never followed. */
    struct pfs_pc_target fpp = {path, NULL, 0, 0, 0, 1, n, t, 8, 1};
    assert_int_equal(pfs_pc_probe(&fpp, PFS_PC_USE_ALL, 0, &c), PFS_PC_CACHESTAT);
    assert_true(c.bytes == n && c.resident == n / 2);
    char link[340];
    snprintf(link, sizeof(link), "%s/link", f->dir);
    assert_int_equal(symlink(path, link), 0);
    fpp.path = link;
    assert_int_equal(pfs_pc_probe(&fpp, PFS_PC_USE_ALL, 0, &c), PFS_PC_UNKNOWN);
    assert_true(c.bytes == 0 && c.resident == 0);
    unlink(link);
    fpp.path = "/nonexistent/pfsbench.x.0";
    assert_int_equal(pfs_pc_probe(&fpp, PFS_PC_USE_ALL, 0, &c), PFS_PC_UNKNOWN);
    free(buf);
    close(fd);
    unlink(path);
}

static void test_names(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(pfs_pc_method_name(PFS_PC_CACHESTAT), "cachestat");
    assert_string_equal(pfs_pc_method_name(PFS_PC_BYPASSED), "bypassed");
    assert_string_equal(pfs_pc_method_name(99), "?");
    pfs_pc_methods_name(1u << PFS_PC_CACHESTAT | 1u << PFS_PC_UNKNOWN, b, sizeof(b));
    assert_string_equal(b, "cachestat+unknown");
    assert_int_equal(pfs_pc_methods_name(0, b, sizeof(b)), 0);
    assert_string_equal(b, "");
    assert_int_equal(pfs_pc_methods_name(1u << PFS_PC_MINCORE, b, 4), 7); /* as snprintf: what it needs */
    assert_string_equal(b, "min");
    assert_true(isnan(pfs_pc_fraction(1, 0)));
    assert_true(pfs_pc_fraction(1, 4) == 0.25);
    assert_true(pfs_pc_memory_fs("tmpfs") && pfs_pc_memory_fs("ramfs"));
    assert_false(pfs_pc_memory_fs("ext4") || pfs_pc_memory_fs("fuse") || pfs_pc_memory_fs(NULL));
}

/* ---- the run's figures, as the report and the warning read them ---- */

struct run {
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[4][PFS_HOST_MAX];
    int node[4];
    struct pfs_times times[2 * 4]; /* phases write, read; 1 rep; 4 streams */
    int reps_done[2];
};

/* 4 ranks on 2 nodes (0, 1, 0, 1), 1 MiB each: the write left dirty[r]
 * of it, the read found resident[r] of it cached. */
static void make_run(struct run *r, const uint64_t *dirty, const uint64_t *resident, int method)
{
    pfs_run_release(&r->d); /* r is zeroed, or a run made here before */
    memset(r, 0, sizeof(*r));
    pfs_config_defaults(&r->cfg);
    snprintf(r->cfg.dir, sizeof(r->cfg.dir), "/scratch/x");
    r->cfg.phases[0] = PFS_PH_WRITE, r->cfg.phases[1] = PFS_PH_READ, r->cfg.nphases = 2;
    for (int s = 0; s < 4; s++) {
        snprintf(r->hosts[s], PFS_HOST_MAX, "host%d", s % 2);
        r->node[s] = s % 2;
        r->times[s] = (struct pfs_times){.open_start = 1, .close_end = 2, .bytes = 1 << 20, .cache_bytes = 1 << 20,
                                         .cache_dirty = dirty[s], .dirty_method = PFS_PC_CACHESTAT};
        r->times[4 + s] = (struct pfs_times){.open_start = 3, .close_end = 4, .bytes = 1 << 20,
                                             .cache_bytes = 1 << 20, .cache_resident = resident[s],
                                             .cache_method = method};
    }
    r->reps_done[0] = r->reps_done[1] = 1;
    struct pfs_run_data *d = &r->d;
    d->cfg = &r->cfg;
    snprintf(d->fstype, sizeof(d->fstype), "ext4");
    d->nranks = 4, d->nnodes = 2, d->nphases = 2, d->reps = 1;
    d->hosts = (const char(*)[PFS_HOST_MAX])r->hosts;
    d->node_of_rank = r->node;
    d->times = r->times;
    d->reps_done = r->reps_done;
}

/* The run's figures as the run data holds them now (pfs/figures.h). */
static void figures(struct run *r)
{
    assert_int_equal(pfs_run_figures(&r->d), 0);
}

static int cache_warning(struct run *r, int p, int rep, char *w, size_t len)
{
    figures(r);
    return pfs_report_cache_warning(&r->d, p, rep, w, len);
}

static int cache_unknown(struct run *r, int p, int rep)
{
    figures(r);
    return pfs_report_cache_unknown(&r->d, p, rep);
}

static char *render(struct run *r, void (*fn)(FILE *, const struct pfs_run_data *, int, int), int p)
{
    char *buf = NULL;
    size_t len = 0;
    figures(r);
    FILE *m = open_memstream(&buf, &len);
    fn(m, &r->d, p, 0);
    fclose(m);
    return buf;
}

static void test_reduce_and_report(void **state)
{
    (void)state;
    struct run *r = calloc(1, sizeof(*r));
    const uint64_t M = 1 << 20, dirty[4] = {0, 0, 0, 0}, resident[4] = {M, M / 2, M, 0};
    make_run(r, dirty, resident, PFS_PC_CACHESTAT);
    struct pfs_pc_fig run, node[2];
    pfs_pc_reduce(&r->times[4], r->node, 4, 2, &run, node);
    assert_true(run.bytes == 4 * M && run.resident == 2.5 * M);
    assert_true(node[0].resident == 2 * M && node[1].resident == M / 2 && node[1].bytes == 2 * M);
    assert_true(run.methods == 1u << PFS_PC_CACHESTAT && run.dirty_methods == 0);
    assert_true(pfs_pc_has_resident(&run) && !pfs_pc_has_dirty(&run));
    /* A stream whose probe failed counts in no byte, only in the methods. */
    r->times[7].cache_method = PFS_PC_UNKNOWN;
    pfs_pc_reduce(&r->times[4], r->node, 4, 2, &run, node);
    assert_true(run.bytes == 3 * M && node[1].bytes == M && node[1].resident == M / 2);
    assert_true(run.methods == (1u << PFS_PC_CACHESTAT | 1u << PFS_PC_UNKNOWN));
    /* The text line, JSON, CSV. */
    char *s = render(r, pfs_report_cache_row, 1);
    assert_non_null(strstr(s, "page cache: 83.3% of 3.0 MiB resident before the read (cachestat+unknown; "
                              "node 1 50.0% .. node 0 100.0%)\n"));
    free(s);
    s = render(r, pfs_report_cache_row, 0); /* nothing dirty: no line */
    assert_string_equal(s, "");
    free(s);
    s = render(r, pfs_report_cache_json, 1);
    assert_non_null(strstr(s, ", \"page_cache\": {\"method\": \"cachestat+unknown\", \"bytes\": 3145728, "
                              "\"resident_bytes\": 2621440, \"resident_fraction\": 0.833333, \"dirty_method\": null, "
                              "\"dirty_probed_bytes\": null, \"dirty_bytes\": null, \"dirty_fraction\": null, "
                              "\"nodes\": [{\"node\": 0, \"bytes\": 2097152, \"resident_bytes\": 2097152,"));
    free(s);
    s = render(r, pfs_report_cache_csv, 0);
    assert_string_equal(s, ",,,,,cachestat,4194304,0,0");
    free(s);
    /* The warning: the most cached node, named, with the options to use. */
    char w[512];
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 1);
    assert_string_equal(w, "read 0: 100% of the bytes were in node 0's page cache before the phase (host host0, "
                           "cachestat+unknown), and 2 of 2 nodes had 10% or more; use --direct, --drop-caches or "
                           "-C across nodes");
    r->cfg.reorder = 1, r->cfg.drop_caches = 1;
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 1);
    assert_non_null(strstr(w, "; use --direct"));
    assert_null(strstr(w, "drop"));
    assert_int_equal(cache_warning(r, 0, 0, w, sizeof(w)), 0); /* the write left nothing dirty */
    assert_false(cache_unknown(r, 1, 0));
    pfs_run_release(&r->d);
    free(r);
}

static void test_warning_cases(void **state)
{
    (void)state;
    struct run *r = calloc(1, sizeof(*r));
    const uint64_t M = 1 << 20, z[4] = {0, 0, 0, 0}, some[4] = {M / 20, 0, 0, M / 20}, all[4] = {M, M, M, M};
    char w[512];
    /* Below a tenth on every node: no warning, and the row shows the figure. */
    make_run(r, z, some, PFS_PC_MINCORE);
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 0);
    char *s = render(r, pfs_report_cache_row, 1);
    assert_non_null(strstr(s, "page cache: 2.5% of 4.0 MiB resident before the read (mincore; 2.5% on every node)\n"));
    free(s);
    /* A write that left its bytes dirty. */
    make_run(r, all, z, PFS_PC_CACHESTAT);
    assert_int_equal(cache_warning(r, 0, 0, w, sizeof(w)), 1);
    assert_string_equal(w, "write 0: 100% of the bytes written were still dirty in node 0's page cache at the close "
                           "(host host0): the figure includes memory's speed; add -e (fsync at close), --direct or "
                           "--sync");
    s = render(r, pfs_report_cache_json, 0); /* the whole of it: run and nodes, each part */
    assert_string_equal(s, ", \"page_cache\": {\"method\": null, \"bytes\": null, \"resident_bytes\": null, "
                           "\"resident_fraction\": null, \"dirty_method\": \"cachestat\", \"dirty_probed_bytes\": "
                           "4194304, \"dirty_bytes\": 4194304, \"dirty_fraction\": 1, \"nodes\": [{\"node\": 0, "
                           "\"bytes\": null, \"resident_bytes\": null, \"dirty_probed_bytes\": 2097152, "
                           "\"dirty_bytes\": 2097152}, {\"node\": 1, \"bytes\": null, \"resident_bytes\": null, "
                           "\"dirty_probed_bytes\": 2097152, \"dirty_bytes\": 2097152}]}");
    free(s);
    s = render(r, pfs_report_cache_csv, 0);
    assert_string_equal(s, ",,,,,cachestat,4194304,4194304,1");
    free(s);
    /* tmpfs: named as a file system in memory, whatever the options. */
    make_run(r, z, all, PFS_PC_CACHESTAT);
    snprintf(r->d.fstype, sizeof(r->d.fstype), "tmpfs");
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 1);
    assert_non_null(strstr(w, "read 0: /scratch/x is tmpfs, a file system in memory: every byte read comes from "
                              "memory (100% resident)"));
    s = render(r, pfs_report_cache_row, 1);
    assert_non_null(strstr(s, "(cachestat; tmpfs: the files live in memory;"));
    free(s);
    /* --direct: bypassed, no figure, no line, no warning; JSON says so. */
    make_run(r, z, z, PFS_PC_BYPASSED);
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 0);
    s = render(r, pfs_report_cache_json, 1);
    assert_non_null(strstr(s, "{\"method\": \"bypassed\", \"bytes\": null, \"resident_bytes\": null, "
                              "\"resident_fraction\": null,"));
    free(s);
    s = render(r, pfs_report_cache_csv, 1);
    assert_string_equal(s, ",bypassed,,,,,,,");
    free(s);
    /* Unknown everywhere: the caller's size rule takes over. */
    make_run(r, z, z, PFS_PC_UNKNOWN);
    assert_int_equal(cache_warning(r, 1, 0, w, sizeof(w)), 0);
    assert_true(cache_unknown(r, 1, 0));
    s = render(r, pfs_report_cache_json, 0); /* the write measured, the read of phase 0 none */
    assert_non_null(strstr(s, "\"method\": null"));
    free(s);
    pfs_run_release(&r->d);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cached_then_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_shared, setup, teardown),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_reduce_and_report),
        cmocka_unit_test(test_warning_cases),
    };
    return cmocka_run_group_tests_name("pagecache", tests, NULL, NULL);
}
