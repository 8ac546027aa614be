/* What the results writer demands of an existing file before a run, and
 * how it waits for another writer's lock (issue 25, items 4, 5, 7, 8), on
 * real HDF5 files made here with the plain HDF5 C API:
 *   - attributes of the wrong shape or type are refused with their reason,
 *     never read into a buffer for one value (ASan sees any overread);
 *   - the next run is the largest number in use + 1, in a group's name or a
 *     /summary row: a deleted group neither fails the append nor has its
 *     number given again;
 *   - a /summary that cannot grow is refused by the check and by the append;
 *   - the check makes nothing: no lock file, no copy;
 *   - a waiting append says so every 30 s, naming the holder its lock file
 *     names, and gives up at 600 s: on a clock of the test's (clock_gettime
 *     and nanosleep are wrapped at link time), so no test sleeps;
 *   - the holder's line is the append's own: host, pid, run id.
 * No MPI: the results module makes only serial HDF5 calls. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pfs/results.h"

/* ---- the test's clock ----
 * While fake_on, CLOCK_MONOTONIC reads fake_ns and nanosleep adds its
 * request to it at once; at release_ns the holder's lock (holder_fd) is
 * let go, as another writer would finish. Off, both are the real calls. */
struct fake_clock {
    int on;
    uint64_t ns;
    uint64_t release_ns; /* 0: never */
    int holder_fd;
};

/* pfs_results_append of the run data as it is now, its figures computed
 * first, as rank 0 has them at the end of a run (pfs/figures.h). */
static int append_run(const char *path, struct pfs_run_data *d, char *name, size_t namelen, char *err, size_t len)
{
    if (pfs_run_figures(d) != 0)
        return -1;
    return pfs_results_append(path, d, name, namelen, err, len);
}

static struct fake_clock fake = {0, 0, 0, -1}; /* the wrapped calls take no context */

int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);

static int set_lock(int fd, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    return fcntl(fd, F_OFD_SETLK, &fl);
}

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
    if (!fake.on || clk != CLOCK_MONOTONIC)
        return __real_clock_gettime(clk, ts);
    ts->tv_sec = (time_t)(fake.ns / 1000000000ULL);
    ts->tv_nsec = (long)(fake.ns % 1000000000ULL);
    return 0;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (!fake.on)
        return __real_nanosleep(req, rem);
    fake.ns += (uint64_t)req->tv_sec * 1000000000ULL + (uint64_t)req->tv_nsec;
    if (fake.release_ns && fake.ns >= fake.release_ns && fake.holder_fd >= 0) {
        set_lock(fake.holder_fd, F_UNLCK);
        fake.release_ns = 0;
    }
    return 0;
}

/* ---- a one-rank, one-phase run ---- */

struct fixture {
    char dir[256];
    char path[512];
    char lock[512];
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[1][PFS_HOST_MAX];
    int node[1];
    double corr[1], unc[1];
    struct pfs_times times[1];
    int reps_done[1];
};

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    snprintf(f->dir, sizeof(f->dir), "/tmp/pfs_test_rcheck.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/r.h5", f->dir);
    snprintf(f->lock, sizeof(f->lock), "%s/.r.h5.lock", f->dir);
    pfs_config_defaults(&f->cfg);
    f->cfg.transfer = 1 << 20;
    f->cfg.block = 4 << 20;
    f->cfg.phases[0] = PFS_PH_WRITE;
    f->cfg.nphases = 1;
    f->cfg.reps = 1;
    snprintf(f->hosts[0], PFS_HOST_MAX, "node1");
    f->times[0] = (struct pfs_times){.open_start = 1.7e9, .open_end = 1.7e9 + 0.001, .xfer_end = 1.7e9 + 1,
                                     .close_end = 1.7e9 + 1.01, .bytes = 4 << 20, .xfers = 4};
    f->reps_done[0] = 1;
    struct pfs_run_data *d = &f->d;
    d->cfg = &f->cfg;
    snprintf(d->run_id, sizeof(d->run_id), "20250101-000000-abcdef");
    d->status = "complete";
    d->cmdline = "pfsbench -p write";
    d->mpi_version = "test";
    d->nranks = d->nnodes = 1;
    d->hosts = (const char(*)[PFS_HOST_MAX])f->hosts;
    d->node_of_rank = f->node;
    d->clock_corr = f->corr;
    d->clock_unc = f->unc;
    d->nphases = 1;
    d->reps = 1;
    d->times = f->times;
    d->reps_done = f->reps_done;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    fake = (struct fake_clock){0, 0, 0, -1};
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    pfs_run_release(&f->d);
    free(f);
    return 0;
}

static void append_as(struct fixture *f, const char *want)
{
    char name[64] = "", err[1024] = "";
    int rc = append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err));
    if (rc != 0)
        print_error("append: %s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(name, want);
}

static void expect_refused(struct fixture *f, const char *why)
{
    char err[1024] = "";
    int rc = pfs_results_check(f->path, err, sizeof(err));
    if (rc == 0 || !strstr(err, why))
        print_error("check: rc %d, '%s' does not say '%s'\n", rc, err, why);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, why));
}

/* How many names dir holds. */
static int names_in(const char *dir)
{
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dh)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dh);
    return n;
}

/* ---- attributes ---- */

/* Replaces the root attribute name of f->path by one of type t, shape dims
 * (rank 0: scalar), holding buf. */
static void set_root_attr(struct fixture *f, const char *name, hid_t t, int rank, const hsize_t *dims,
                          const void *buf)
{
    hid_t h = H5Fopen(f->path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(h >= 0);
    if (H5Aexists(h, name) > 0)
        assert_true(H5Adelete(h, name) >= 0);
    hid_t s = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(h, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, t, buf) >= 0);
    H5Aclose(a), H5Sclose(s), H5Fclose(h);
}

/* format and format_version as arrays and of other types: each refused
 * with its reason. Before, a 3-element array was read whole into a buffer
 * for one value (a SIGSEGV, or the stack silently overwritten). */
static void test_attributes_checked_before_read(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    hid_t vs = H5Tcopy(H5T_C_S1), fs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    H5Tset_size(fs, 16);
    const char *three[3] = {"pfsbench-results", "pfsbench-results", "pfsbench-results"};
    const long long ver3[3] = {1, 1, 1}, one = 1;
    const double onef = 1.0;
    hsize_t n3 = 3, n1 = 1;

    set_root_attr(f, "format", vs, 1, &n3, three);
    expect_refused(f, "attribute 'format' is an array of 3 values");
    set_root_attr(f, "format", fs, 1, &n3, "pfsbench-resultspfsbench-resultspfsbench-results");
    expect_refused(f, "attribute 'format' is an array of 3 values");
    set_root_attr(f, "format", H5T_NATIVE_LLONG, 0, NULL, &one);
    expect_refused(f, "attribute 'format' is an integer, not one string");
    /* An array of one is one value: read, and accepted. */
    set_root_attr(f, "format", vs, 1, &n1, three);
    char err[1024];
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);

    set_root_attr(f, "format_version", H5T_NATIVE_LLONG, 1, &n3, ver3);
    expect_refused(f, "attribute 'format_version' is an array of 3 values");
    set_root_attr(f, "format_version", vs, 0, NULL, three);
    expect_refused(f, "attribute 'format_version' is a string, not one integer");
    set_root_attr(f, "format_version", H5T_NATIVE_DOUBLE, 0, NULL, &onef);
    expect_refused(f, "attribute 'format_version' is a floating-point number");
    /* And the append refuses it too, before it makes anything. */
    char name[64];
    assert_int_equal(append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "attribute 'format_version'"));
    /* Any integer type is an integer. */
    const short v16 = 1;
    set_root_attr(f, "format_version", H5T_NATIVE_SHORT, 0, NULL, &v16);
    append_as(f, "/runs/000002");
    H5Tclose(vs), H5Tclose(fs);
}

/* ---- numbering ---- */

/* The run column of /summary, in row order. */
static int *summary_runs(const char *path, hsize_t *n)
{
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds = H5Dopen2(h, "summary", H5P_DEFAULT);
    hid_t sp = H5Dget_space(ds), t = H5Tcreate(H5T_COMPOUND, sizeof(int));
    H5Tinsert(t, "run", 0, H5T_NATIVE_INT);
    H5Sget_simple_extent_dims(sp, n, NULL);
    int *v = calloc(*n + 1, sizeof(int));
    assert_true(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Tclose(t), H5Sclose(sp), H5Dclose(ds), H5Fclose(h);
    return v;
}

static void delete_link(const char *path, const char *name)
{
    hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(H5Ldelete(h, name, H5P_DEFAULT) >= 0);
    H5Fclose(h);
}

/* A deleted run group: the next run is the largest number in use + 1,
 * counting the rows a deleted group left in /summary. Before, the next run
 * was the group count + 1: an existing name (the append failed after the
 * benchmark), or a deleted run's number (its rows read as the new run's). */
static void test_numbering_after_deletions(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    append_as(f, "/runs/000002");
    append_as(f, "/runs/000003");
    delete_link(f->path, "runs/000002");
    char err[1024];
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);
    append_as(f, "/runs/000004");
    delete_link(f->path, "runs/000004"); /* the last: its row stays in /summary */
    append_as(f, "/runs/000005");
    hsize_t n;
    int *runs = summary_runs(f->path, &n);
    assert_int_equal(n, 5);
    const int want[5] = {1, 2, 3, 4, 5};
    for (hsize_t i = 0; i < n; i++)
        assert_int_equal(runs[i], want[i]);
    free(runs);
    /* A name that is no run number is passed over, as the readers do. */
    hid_t h = H5Fopen(f->path, H5F_ACC_RDWR, H5P_DEFAULT), g = H5Gcreate2(h, "runs/notes", H5P_DEFAULT, H5P_DEFAULT,
                                                                           H5P_DEFAULT);
    H5Gclose(g), H5Fclose(h);
    append_as(f, "/runs/000006");
}

/* ---- /summary ---- */

/* /summary rewritten contiguous (its rows kept): HDF5 cannot extend it. */
static void make_summary_contiguous(const char *path)
{
    hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), ds = H5Dopen2(h, "summary", H5P_DEFAULT);
    hid_t t = H5Dget_type(ds), sp = H5Dget_space(ds);
    hsize_t n;
    H5Sget_simple_extent_dims(sp, &n, NULL);
    hid_t mt = H5Tget_native_type(t, H5T_DIR_DEFAULT);
    char *rows = calloc(n, H5Tget_size(mt));
    assert_true(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dclose(ds);
    assert_true(H5Ldelete(h, "summary", H5P_DEFAULT) >= 0);
    hid_t fixed = H5Screate_simple(1, &n, NULL); /* no maxshape: HDF5's default layout, contiguous */
    ds = H5Dcreate2(h, "summary", t, fixed, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, rows);
    free(rows);
    H5Tclose(mt), H5Dclose(ds), H5Sclose(fixed), H5Sclose(sp), H5Tclose(t), H5Fclose(h);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* Refused by the check before a run, and by the append itself (another
 * writer may have changed the file since): the file byte for byte. */
static void test_summary_that_cannot_grow(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    make_summary_contiguous(f->path);
    expect_refused(f, "its /summary is stored contiguous, not chunked");
    size_t n0, n1;
    char *before = slurp(f->path, &n0), name[64], err[1024];
    assert_int_equal(append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "contiguous"));
    char *after = slurp(f->path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before), free(after);
}

/* ---- the check makes nothing ---- */

/* A run refused after the check (exit 2 for another reason) must leave
 * nothing behind: the check neither keeps a probe nor makes the lock file,
 * for a new results file or an existing one. */
static void test_check_makes_nothing(void **state)
{
    struct fixture *f = *state;
    char err[1024];
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);
    assert_int_equal(names_in(f->dir), 0);
    append_as(f, "/runs/000001");
    unlink(f->lock);
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);
    assert_int_equal(names_in(f->dir), 1); /* r.h5 alone */
}

/* ---- waiting for another writer's lock ---- */

/* Holds the lock as another writer would, its line in the lock file. */
static int hold_lock(struct fixture *f, const char *line)
{
    int fd = open(f->lock, O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(set_lock(fd, F_WRLCK), 0);
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, line, strlen(line), 0), (ssize_t)strlen(line));
    return fd;
}

/* An append with fd 2 into a file: what it says on stderr, its verdict. */
struct captured {
    char text[16384];
    int rc;
    char err[1024];
    char name[64];
};

static void append_captured(struct fixture *f, struct captured *c)
{
    char tmpl[] = "/tmp/pfs_test_rcheck_err.XXXXXX";
    int cap = mkstemp(tmpl), saved = dup(2);
    assert_true(cap >= 0 && saved >= 0);
    unlink(tmpl);
    fflush(stderr);
    dup2(cap, 2);
    c->rc = append_run(f->path, &f->d, c->name, sizeof(c->name), c->err, sizeof(c->err));
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(cap, c->text, sizeof(c->text) - 1, 0);
    c->text[n > 0 ? n : 0] = '\0';
    close(cap);
}

static int count_lines(const char *text, const char *with)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, with)); p += strlen(with))
        n++;
    return n;
}

/* Held for good: a line every 30 s naming the holder, 19 of them, then
 * the append gives up at 600 s, saying whose lock it waited for. */
static void test_lock_wait_gives_up(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    int fd = hold_lock(f, "hostA 4242 20990101-000000-feedba\n");
    fake = (struct fake_clock){1, 5000000000ULL, 0, fd};
    struct captured *c = calloc(1, sizeof(*c));
    append_captured(f, c);
    fake.on = 0;
    if (c->rc == 0 || count_lines(c->text, "pfsbench: waiting") != 19)
        print_error("rc %d, err '%s', stderr:\n%s\n", c->rc, c->err, c->text);
    assert_int_equal(c->rc, -1);
    assert_non_null(strstr(c->err, "waited 600 s for the lock"));
    assert_non_null(strstr(c->err, "(held by pid 4242 on hostA, run 20990101-000000-feedba)"));
    assert_int_equal(count_lines(c->text, "pfsbench: waiting"), 19);
    assert_non_null(strstr(c->text, "pfsbench: waiting 30 s so far for the lock on "));
    assert_non_null(strstr(c->text, "(held by pid 4242 on hostA, run 20990101-000000-feedba) to append the run"));
    assert_non_null(strstr(c->text, "waiting 570 s so far"));
    assert_null(strstr(c->text, "waiting 600 s"));
    free(c);
    close(fd);
}

/* Released at 65 s: two lines, then the run lands; a holder that wrote
 * no line (an older pfsbench) is said to be unnamed, and the append leaves
 * no line of its own behind once it let go. */
static void test_lock_wait_then_append(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    int fd = hold_lock(f, "");
    fake = (struct fake_clock){1, 0, 65000000000ULL, fd};
    struct captured *c = calloc(1, sizeof(*c));
    append_captured(f, c);
    fake.on = 0;
    if (c->rc != 0)
        print_error("rc %d, err '%s', stderr:\n%s\n", c->rc, c->err, c->text);
    assert_int_equal(c->rc, 0);
    assert_string_equal(c->name, "/runs/000002");
    assert_int_equal(count_lines(c->text, "pfsbench: waiting"), 2);
    assert_non_null(strstr(c->text, "(held by a process that did not say who)"));
    struct stat st;
    assert_int_equal(stat(f->lock, &st), 0);
    assert_int_equal(st.st_size, 0);
    free(c);
    close(fd);
}

/* The holder's line is the append's own: a writer killed under the lock
 * (the crash hook aborts with the copy written) leaves it, naming this
 * host, the writer's pid and its run id. */
static void test_holder_line_written(void **state)
{
    struct fixture *f = *state;
    append_as(f, "/runs/000001");
    snprintf(f->d.run_id, sizeof(f->d.run_id), "20250202-020202-c0ffee");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("PFSBENCH_TEST_CRASH_IN_RESULTS", "1", 1);
        char name[64], err[512];
        append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err));
        _exit(0);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws));
    char line[256] = "", host[256] = "", want[300];
    int fd = open(f->lock, O_RDONLY);
    assert_true(fd >= 0);
    assert_true(read(fd, line, sizeof(line) - 1) > 0);
    close(fd);
    gethostname(host, sizeof(host) - 1); /* as the append tags it: only [A-Za-z0-9._-] kept */
    for (char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '-' || *p == '_'))
            *p = '_';
    snprintf(want, sizeof(want), "%s %ld 20250202-020202-c0ffee\n", host, (long)pid);
    assert_string_equal(line, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_attributes_checked_before_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbering_after_deletions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_that_cannot_grow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_makes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_wait_gives_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_wait_then_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_holder_line_written, setup, teardown),
    };
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
