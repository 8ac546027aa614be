/* The append's file driver (src/results/overlay.c) and its journaled
 * commit (src/results/journal.c) on plain bytes, no HDF5 file: the
 * driver's view is the file under its writes, the commit leaves exactly
 * that on disk, and a commit killed at each of its steps is undone by
 * the next lock holder's recovery into the old bytes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Before cmocka.h, whose fail() macro would rename the module's fail(). */
#include "results_int.h"

#include <cmocka.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OLD 200000 /* the file's size */
#define ROOM 400000

struct fx {
    char dir[64];
    struct target t;
    unsigned char old[ROOM];
    unsigned char want[ROOM]; /* what the file should read after the writes */
    size_t want_n;
    unsigned seed;
};

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/pfsjournal.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->t.dir, sizeof(f->t.dir), "%s", f->dir);
    snprintf(f->t.base, sizeof(f->t.base), "r.bin");
    snprintf(f->t.given, sizeof(f->t.given), "r.bin");
    snprintf(f->t.host, sizeof(f->t.host), "testhost");
    snprintf(f->t.path, sizeof(f->t.path), "%s/r.bin", f->dir);
    snprintf(f->t.tmp, sizeof(f->t.tmp), "%s/.r.bin.tmp.testhost.%ld", f->dir, (long)getpid());
    f->seed = 12345;
    for (size_t i = 0; i < OLD; i++)
        f->old[i] = (unsigned char)next_rand(&f->seed);
    int fd = open(f->t.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f->old, OLD), OLD);
    close(fd);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    unlink(f->t.path);
    unlink(f->t.tmp);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* The overlay's invariants: extents sorted, disjoint, not touching, each
 * below eof, bytes their sum. */
static void check_extents(const struct pfs_ovl *o)
{
    size_t sum = 0;
    for (size_t i = 0; i < o->n; i++) {
        sum += o->e[i].len;
        assert_true(o->e[i].len > 0 && o->e[i].addr + o->e[i].len <= o->eof);
        if (i > 0)
            assert_true(o->e[i - 1].addr + o->e[i - 1].len < o->e[i].addr);
    }
    assert_int_equal(sum, o->bytes);
}

/* Random writes through the driver (overlapping, touching, past the end),
 * then the file cut and grown, as HDF5 would: every read through the
 * driver and through pfs_res_ovl_read is the reference's. */
static struct pfs_ovl *random_writes(struct fx *f, int fd, int writes)
{
    struct pfs_ovl *o = pfs_res_ovl_new(fd, OLD);
    hid_t drv = -1, fapl = pfs_res_ovl_fapl(o, &drv);
    assert_true(fapl >= 0);
    H5FD_t *h = H5FDopen(f->t.path, H5F_ACC_RDWR, fapl, HADDR_UNDEF);
    assert_non_null(h);
    assert_true(H5FDset_eoa(h, H5FD_MEM_DEFAULT, ROOM) >= 0); /* HDF5 writes only below its allocation */
    memcpy(f->want, f->old, OLD);
    f->want_n = OLD;
    unsigned char buf[9000];
    for (int w = 0; w < writes; w++) {
        size_t at = next_rand(&f->seed) % (ROOM - 20000), n = 1 + next_rand(&f->seed) % 8000;
        if (w % 7 == 0 && o->n > 0) /* right at the end of an extent: grown in place */
            at = (size_t)(o->e[o->n - 1].addr + o->e[o->n - 1].len);
        if (at + n > ROOM - 10000)
            continue;
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)next_rand(&f->seed);
        assert_true(H5FDwrite(h, H5FD_MEM_DRAW, H5P_DEFAULT, at, n, buf) >= 0);
        if (at > f->want_n)
            memset(f->want + f->want_n, 0, at - f->want_n);
        memcpy(f->want + at, buf, n);
        if (at + n > f->want_n)
            f->want_n = at + n;
        check_extents(o);
    }
    /* Cut below the old size (the old tail's bytes must read as zeros when
     * grown again), then grown: HDF5's truncate to its allocation. */
    size_t cut = OLD - 5000;
    assert_true(H5FDset_eoa(h, H5FD_MEM_DEFAULT, cut) >= 0 && H5FDtruncate(h, H5P_DEFAULT, 0) >= 0);
    memset(f->want + cut, 0, ROOM - cut);
    f->want_n = cut;
    check_extents(o);
    memset(buf, 0xab, 3000);
    assert_true(H5FDset_eoa(h, H5FD_MEM_DEFAULT, cut + 4000) >= 0);
    assert_true(H5FDwrite(h, H5FD_MEM_DRAW, H5P_DEFAULT, cut + 1000, 3000, buf) >= 0);
    memcpy(f->want + cut + 1000, buf, 3000);
    f->want_n = cut + 4000;
    assert_int_equal(H5FDget_eof(h, H5FD_MEM_DEFAULT), f->want_n);
    unsigned char *got = malloc(f->want_n);
    assert_true(H5FDread(h, H5FD_MEM_DRAW, H5P_DEFAULT, 0, f->want_n, got) >= 0);
    assert_memory_equal(got, f->want, f->want_n);
    assert_int_equal(pfs_res_ovl_read(o, 0, f->want_n, got), 0);
    assert_memory_equal(got, f->want, f->want_n);
    free(got);
    assert_true(H5FDclose(h) >= 0);
    H5Pclose(fapl);
    H5FDunregister(drv);
    return o;
}

static unsigned char *slurp(const char *p, size_t *n)
{
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    unsigned char *b = malloc((size_t)st.st_size + 1);
    assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
    close(fd);
    *n = (size_t)st.st_size;
    return b;
}

static int dir_fd(const struct fx *f)
{
    int d = open(f->dir, O_RDONLY | O_DIRECTORY);
    assert_true(d >= 0);
    return d;
}

/* The commit leaves the file as the driver showed it, and no journal;
 * what it held in memory is what was written, not the file. */
static void test_commit_writes_the_view(void **state)
{
    struct fx *f = *state;
    int fd = open(f->t.path, O_RDWR), dfd = dir_fd(f);
    struct pfs_ovl *o = random_writes(f, fd, 200);
    assert_true(o->bytes < ROOM); /* extents merged: never more than what was written */
    char err[512];
    assert_int_equal(pfs_res_journal_commit(&f->t, dfd, o, err, sizeof(err)), 0);
    pfs_res_ovl_free(o);
    close(fd);
    size_t n;
    unsigned char *b = slurp(f->t.path, &n);
    assert_int_equal(n, f->want_n);
    assert_memory_equal(b, f->want, n);
    free(b);
    assert_int_equal(access(f->t.tmp, F_OK), -1);
    close(dfd);
}

/* A commit killed at each step; the recovery of the next lock holder
 * gives the old bytes back, byte for byte, and removes the journal. */
static void test_crash_then_recover(void **state)
{
    struct fx *f = *state;
    const char *steps[] = {"journal", "journaled", "half", "written"};
    for (size_t s = 0; s < sizeof(steps) / sizeof(*steps); s++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct rlimit no_core = {0, 0};
            setrlimit(RLIMIT_CORE, &no_core);
            setenv("PFSBENCH_TEST_CRASH_IN_RESULTS", steps[s], 1);
            /* the child's own journal name: its pid */
            snprintf(f->t.tmp, sizeof(f->t.tmp), "%s/.r.bin.tmp.testhost.%ld", f->dir, (long)getpid());
            int fd = open(f->t.path, O_RDWR), dfd = dir_fd(f);
            struct pfs_ovl *o = random_writes(f, fd, 100);
            char err[512];
            pfs_res_journal_commit(&f->t, dfd, o, err, sizeof(err));
            _exit(0); /* not reached */
        }
        int ws = 0;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGABRT);
        char journal[700];
        snprintf(journal, sizeof(journal), "%s/.r.bin.tmp.testhost.%ld", f->dir, (long)pid);
        assert_int_equal(access(journal, F_OK), 0);
        size_t n;
        unsigned char *b = slurp(f->t.path, &n);
        int touched = n != OLD || memcmp(b, f->old, OLD) != 0;
        free(b);
        assert_int_equal(touched, strcmp(steps[s], "half") == 0 || strcmp(steps[s], "written") == 0);
        assert_int_equal(pfs_res_journal_any(&f->t, 0), 1);
        int dfd = dir_fd(f);
        char err[512] = "";
        assert_int_equal(pfs_res_journal_recover(&f->t, dfd, err, sizeof(err)), 0);
        close(dfd);
        b = slurp(f->t.path, &n);
        assert_int_equal(n, OLD);
        assert_memory_equal(b, f->old, OLD);
        free(b);
        assert_int_equal(access(journal, F_OK), -1); /* this host's dead writer: removed, complete or not */
        assert_int_equal(pfs_res_journal_any(&f->t, 0), 0);
    }
}

/* A complete journal whose file was replaced since (another inode) is not
 * undone into the new file: refused, naming it, and kept. */
static void test_journal_of_replaced_file(void **state)
{
    struct fx *f = *state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        setenv("PFSBENCH_TEST_CRASH_IN_RESULTS", "written", 1);
        snprintf(f->t.tmp, sizeof(f->t.tmp), "%s/.r.bin.tmp.testhost.%ld", f->dir, (long)getpid());
        int fd = open(f->t.path, O_RDWR), dfd = dir_fd(f);
        struct pfs_ovl *o = random_writes(f, fd, 50);
        char err[512];
        pfs_res_journal_commit(&f->t, dfd, o, err, sizeof(err));
        _exit(0);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws));
    char other[700], journal[700];
    snprintf(other, sizeof(other), "%s/other", f->dir);
    snprintf(journal, sizeof(journal), "%s/.r.bin.tmp.testhost.%ld", f->dir, (long)pid);
    int fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_int_equal(write(fd, "new", 3), 3);
    close(fd);
    assert_int_equal(rename(other, f->t.path), 0);
    int dfd = dir_fd(f);
    char err[512] = "";
    assert_int_equal(pfs_res_journal_recover(&f->t, dfd, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "belongs to another file"));
    close(dfd);
    size_t n;
    unsigned char *b = slurp(f->t.path, &n);
    assert_int_equal(n, 3);
    free(b);
    assert_int_equal(access(journal, F_OK), 0);
    unlink(journal);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_writes_the_view, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_then_recover, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_of_replaced_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
