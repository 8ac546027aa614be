/* The HDF5 results writer against real files: a synthetic run with known
 * timings is appended, then read back with the plain HDF5 C API (not with
 * the writer's own code), field by field.
 *
 * Timings are per stream (rank x threads + thread); test_threads_and_metadata
 * covers threads > 1 and a metadata phase (ops, rate in files/s).
 *
 * No MPI_Init: the results module makes only serial HDF5 calls with the
 * default (sec2) file driver. The last test checks that MPI was never
 * initialized behind our back, so that claim stays true. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfs/results.h"
#include "pfs/schema.h"

#define NPH 2
#define NREP 3
#define NR 4
#define NN 2
#define T0 1.7e9 /* an epoch time, so precision is tested where it matters */
#define MiB (1024.0 * 1024.0)
#define BLOCK (4ULL << 20)
#define XFER (1ULL << 20)

struct fixture {
    char dir[256];
    char path[512];
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[NR][PFS_HOST_MAX];
    int node[NR];
    double corr[NR], unc[NR];
    struct pfs_times times[NPH * NREP * NR];
    int reps_done[NPH];
};

/* ---- the synthetic run ----
 * phase p, repetition k, rank r (round-robin over 2 nodes: node = r % 2):
 *   open_start = T0 + 100 p + 10 k + 0.01 r
 *   open_end   = open_start + 0.001
 *   xfer_end   = open_end + scale_p (1 + 0.5 k) + 0.1 r   (scale 1 write, 0.5 read)
 *   close_end  = xfer_end + 0.05
 *   4 MiB in 4 transfers of 1 MiB per rank.
 * Phase 1 rep 2: rank 3 (node 1) takes 10x as long: node 1 is a straggler.
 * Phase 0 rep 0 by hand: first open T0 (rank 0), last close rank 3 at
 * T0 + 0.03 + 0.001 + 1.0 + 0.3 + 0.05 = T0 + 1.381: 16 MiB / 1.381 s. */


/* pfs_results_append of the run data as it is now, its figures computed
 * first, as rank 0 has them at the end of a run (pfs/figures.h). */
static int append_run(const char *path, struct pfs_run_data *d, char *name, size_t namelen, char *err, size_t len)
{
    if (pfs_run_figures(d) != 0)
        return -1;
    return pfs_results_append(path, d, name, namelen, err, len);
}

static struct pfs_times *tm(struct fixture *f, int p, int k, int r)
{
    return &f->times[((size_t)p * NREP + (size_t)k) * NR + (size_t)r];
}

static void fill_times(struct fixture *f)
{
    for (int p = 0; p < NPH; p++)
        for (int k = 0; k < NREP; k++)
            for (int r = 0; r < NR; r++) {
                struct pfs_times *t = tm(f, p, k, r);
                memset(t, 0, sizeof(*t));
                double dur = (p == 0 ? 1.0 : 0.5) * (1 + 0.5 * k) + 0.1 * r;
                if (p == 1 && k == 2 && r == 3)
                    dur *= 10;
                t->open_start = T0 + 100 * p + 10 * k + 0.01 * r;
                t->open_end = t->open_start + 0.001;
                t->xfer_end = t->open_end + dur;
                t->close_end = t->xfer_end + 0.05;
                t->bytes = BLOCK;
                t->xfers = BLOCK / XFER;
            }
}

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
    snprintf(f->dir, sizeof(f->dir), "/tmp/pfs_test_results.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/r.h5", f->dir);
    pfs_config_defaults(&f->cfg);
    snprintf(f->cfg.dir, sizeof(f->cfg.dir), "/scratch/pfs");
    f->cfg.transfer = XFER;
    f->cfg.block = BLOCK;
    f->cfg.total = NR * BLOCK;
    f->cfg.phases[0] = PFS_PH_WRITE;
    f->cfg.phases[1] = PFS_PH_READ;
    f->cfg.nphases = NPH;
    f->cfg.reps = NREP;
    f->cfg.reorder = 1;
    snprintf(f->cfg.label, sizeof(f->cfg.label), "synthetic");
    snprintf(f->cfg.results, sizeof(f->cfg.results), "%s", f->path);
    for (int r = 0; r < NR; r++) {
        snprintf(f->hosts[r], PFS_HOST_MAX, "node%d", r % NN + 1);
        f->node[r] = r % NN;
        f->corr[r] = r * 1e-6;
        f->unc[r] = r * 1e-7;
    }
    fill_times(f);
    for (int p = 0; p < NPH; p++)
        f->reps_done[p] = NREP;
    struct pfs_run_data *d = &f->d;
    d->cfg = &f->cfg;
    snprintf(d->run_id, sizeof(d->run_id), "20250101-000000-abcdef");
    d->seed = 0x123456789abcdefULL;
    snprintf(d->start_iso, sizeof(d->start_iso), "2025-01-01T00:00:00Z");
    snprintf(d->end_iso, sizeof(d->end_iso), "2025-01-01T00:05:00Z");
    d->status = "complete";
    d->cmdline = "pfsbench -d /scratch/pfs -t 1m -b 4m -p write,read -i 3 -C --label synthetic";
    d->mpi_version = "Open MPI v4.1.4 (test)";
    snprintf(d->fstype, sizeof(d->fstype), "lustre");
    snprintf(d->fs.mount_type, sizeof(d->fs.mount_type), "lustre");
    snprintf(d->fs.source, sizeof(d->fs.source), "10.0.0.1@o2ib:/scratch");
    snprintf(d->fs.mount_point, sizeof(d->fs.mount_point), "/scratch");
    snprintf(d->fs.options, sizeof(d->fs.options), "rw,flock,lazystatfs");
    snprintf(d->fs.layout, sizeof(d->fs.layout), "stripe_count=4 stripe_size=1048576");
    d->fs.block_size = 4096;
    d->nranks = NR;
    d->nnodes = NN;
    d->hosts = (const char(*)[PFS_HOST_MAX])f->hosts;
    d->node_of_rank = f->node;
    d->clock_corr = f->corr;
    d->clock_unc = f->unc;
    d->reorder_shift = 1;
    d->round_robin_asked = 1;
    d->nphases = NPH;
    d->reps = NREP;
    d->times = f->times;
    d->reps_done = f->reps_done;
    pfs_run_warn(d, "first warning");
    pfs_run_warn(d, "second warning");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    chmod(f->dir, 0700);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    pfs_run_release(&f->d);
    free(f);
    return 0;
}

/* ---- independent expectations (a plain re-derivation, not the core's code) ---- */

struct expect {
    double seconds, bandwidth, util;
    uint64_t bytes;
    uint64_t node_bytes[NN];
    double node_seconds[NN], node_bw[NN];
};

static void expect_of(struct fixture *f, int p, int k, struct expect *e)
{
    memset(e, 0, sizeof(*e));
    double lo = INFINITY, hi = -INFINITY, busy = 0;
    double nlo[NN], nhi[NN];
    for (int n = 0; n < NN; n++)
        nlo[n] = INFINITY, nhi[n] = -INFINITY;
    for (int r = 0; r < NR; r++) {
        struct pfs_times *t = tm(f, p, k, r);
        lo = fmin(lo, t->open_start);
        hi = fmax(hi, t->close_end);
        busy += t->close_end - t->open_start;
        e->bytes += t->bytes;
        int n = f->node[r];
        nlo[n] = fmin(nlo[n], t->open_start);
        nhi[n] = fmax(nhi[n], t->close_end);
        e->node_bytes[n] += t->bytes;
    }
    e->seconds = hi - lo;
    e->bandwidth = (double)e->bytes / e->seconds;
    e->util = busy / (NR * e->seconds);
    for (int n = 0; n < NN; n++) {
        e->node_seconds[n] = nhi[n] - nlo[n];
        e->node_bw[n] = (double)e->node_bytes[n] / e->node_seconds[n];
    }
}

#define assert_near(a, b, rel)                                                                                     \
    do {                                                                                                           \
        double a_ = (a), b_ = (b);                                                                                 \
        if (!(fabs(a_ - b_) <= (rel) * fmax(fabs(b_), 1e-300))) {                                                  \
            print_error("%s = %.17g, expected %s = %.17g\n", #a, a_, #b, b_);                                      \
            fail();                                                                                                \
        }                                                                                                          \
    } while (0)

/* ---- reading back with the HDF5 C API ---- */

static void get_attr_str(hid_t obj, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0) {
        print_error("attribute %s missing\n", name);
        fail();
    }
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t ft = H5Aget_type(a);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) > 0);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    char *v = NULL;
    assert_true(H5Aread(a, mt, &v) >= 0);
    snprintf(buf, len, "%s", v ? v : "");
    H5free_memory(v);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
}

static void expect_attr_str(hid_t obj, const char *name, const char *want)
{
    char buf[8192];
    get_attr_str(obj, name, buf, sizeof(buf));
    assert_string_equal(buf, want);
}

static void get_attr(hid_t obj, const char *name, hid_t mtype, void *out)
{
    if (H5Aexists(obj, name) <= 0) {
        print_error("attribute %s missing\n", name);
        fail();
    }
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, mtype, out) >= 0);
    H5Aclose(a);
}

static long long attr_ll(hid_t obj, const char *name)
{
    long long v = 0;
    get_attr(obj, name, H5T_NATIVE_LLONG, &v);
    return v;
}

static double attr_dbl(hid_t obj, const char *name)
{
    double v = 0;
    get_attr(obj, name, H5T_NATIVE_DOUBLE, &v);
    return v;
}

/* Reads a whole dataset into a new buffer as mtype; checks its rank and
 * returns its dimensions. */
static void *read_ds(hid_t loc, const char *name, hid_t mtype, int rank, hsize_t *dims)
{
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) {
        print_error("dataset %s missing\n", name);
        fail();
    }
    hid_t s = H5Dget_space(ds);
    assert_int_equal(H5Sget_simple_extent_ndims(s), rank);
    H5Sget_simple_extent_dims(s, dims, NULL);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    void *buf = calloc((size_t)(n > 0 ? n : 1), H5Tget_size(mtype));
    assert_non_null(buf);
    assert_true(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Sclose(s);
    H5Dclose(ds);
    return buf;
}

static void expect_units(hid_t loc, const char *ds_name, const char *want)
{
    hid_t ds = H5Dopen2(loc, ds_name, H5P_DEFAULT);
    assert_true(ds >= 0);
    expect_attr_str(ds, "units", want);
    H5Dclose(ds);
}

/* The schema's types (pfs/schema.h), built here from its table with the
 * plain HDF5 API, not with the writer's code: HDF5 converts compound
 * members by name, so a field the writer left out or renamed fails the
 * read. Strings (but for the names in keep) are left out: read_str_fields
 * copies them into the row's own buffers; skip: fields left out (an older
 * file's table). */
static hid_t native(enum pfs_sch_type t)
{
    return t == PFS_SCH_INT32 ? H5T_NATIVE_INT32 : t == PFS_SCH_INT64 ? H5T_NATIVE_INT64
         : t == PFS_SCH_UINT32 ? H5T_NATIVE_UINT32 : t == PFS_SCH_UINT64 ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE;
}

static hid_t table_type_skip(const char *table, size_t size, const char *const *skip)
{
    const struct pfs_sch_table *t = pfs_schema_table(table);
    assert_non_null(t);
    hid_t c = H5Tcreate(H5T_COMPOUND, size);
    for (size_t i = 0; i < t->n; i++) {
        int skipped = t->field[i].type == PFS_SCH_STRING;
        for (int k = 0; skip && skip[k]; k++)
            skipped |= !strcmp(skip[k], t->field[i].name);
        if (!skipped)
            H5Tinsert(c, t->field[i].name, t->field[i].offset, native(t->field[i].type));
    }
    return c;
}

static hid_t table_type(const char *table, size_t size)
{
    return table_type_skip(table, size, NULL);
}

/* The summary's rows: the schema's numbers, and the text in buffers. */
struct rsummary {
    struct pfs_summary_row r;
    char phase[16], status[16], label[128], run_id[64];
};

static hid_t rsummary_type(void)
{
    return table_type("summary", sizeof(struct rsummary));
}

/* The text fields of a compound dataset: UTF-8 variable-length in the
 * file, copied into the fixed buffers of our rows. */
struct strfield {
    const char *name;
    size_t off, len;
};

static void expect_vlen_utf8(hid_t ft, const char *field)
{
    int i = H5Tget_member_index(ft, field);
    assert_true(i >= 0);
    hid_t m = H5Tget_member_type(ft, (unsigned)i);
    assert_int_equal(H5Tget_class(m), H5T_STRING);
    assert_true(H5Tis_variable_str(m) > 0);
    assert_int_equal(H5Tget_cset(m), H5T_CSET_UTF8);
    H5Tclose(m);
}

static void read_str_fields(hid_t loc, const char *name, void *rows, size_t rowsize, hsize_t n,
                            const struct strfield *sf, int nsf)
{
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t ft = H5Dget_type(ds), sp = H5Dget_space(ds);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    H5Tset_cset(vs, H5T_CSET_UTF8);
    char **buf = calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
    assert_non_null(buf);
    for (int k = 0; k < nsf; k++) {
        expect_vlen_utf8(ft, sf[k].name);
        hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(char *));
        H5Tinsert(ct, sf[k].name, 0, vs);
        assert_true(H5Dread(ds, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
        for (hsize_t i = 0; i < n; i++)
            snprintf((char *)rows + i * rowsize + sf[k].off, sf[k].len, "%s", buf[i] ? buf[i] : "");
        H5Dvlen_reclaim(ct, sp, H5P_DEFAULT, buf);
        H5Tclose(ct);
    }
    free(buf);
    H5Tclose(vs), H5Tclose(ft), H5Sclose(sp);
    H5Dclose(ds);
}

#define SF(type, field) {#field, offsetof(struct type, field), sizeof(((struct type *)0)->field)}

struct rplacement {
    struct pfs_placement_row r;
    char host[PFS_HOST_MAX];
};

static hid_t rplacement_type(void)
{
    return table_type("placement", sizeof(struct rplacement));
}

static struct rplacement *read_placement(hid_t g, hsize_t *dims)
{
    hid_t pt = rplacement_type();
    struct rplacement *pl = read_ds(g, "placement", pt, 1, dims);
    H5Tclose(pt);
    const struct strfield sf[] = {SF(rplacement, host)};
    read_str_fields(g, "placement", pl, sizeof(*pl), dims[0], sf, 1);
    return pl;
}

static struct rsummary *read_summary(hid_t file, hsize_t *n)
{
    hid_t t = rsummary_type();
    struct rsummary *rows = read_ds(file, "summary", t, 1, n);
    H5Tclose(t);
    const struct strfield sf[] = {SF(rsummary, run_id), SF(rsummary, label), SF(rsummary, status),
                                  SF(rsummary, phase)};
    read_str_fields(file, "summary", rows, sizeof(*rows), *n, sf, 4);
    return rows;
}

static hid_t open_ro(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

static hsize_t count_links(hid_t loc, const char *group)
{
    hid_t g = H5Gopen2(loc, group, H5P_DEFAULT);
    assert_true(g >= 0);
    H5G_info_t info;
    assert_true(H5Gget_info(g, &info) >= 0);
    H5Gclose(g);
    return info.nlinks;
}

/* Files in dir other than the given names (temporary copies left behind). */
static int stray_files(const char *dir, const char *keep1, const char *keep2)
{
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dh))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (keep1 && !strcmp(e->d_name, keep1)) ||
            (keep2 && !strcmp(e->d_name, keep2)))
            continue;
        print_message("stray file %s/%s\n", dir, e->d_name);
        n++;
    }
    closedir(dh);
    return n;
}

static void append_ok(struct fixture *f, const char *want_name)
{
    char name[64] = "", err[512] = "";
    int rc = append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err));
    if (rc != 0)
        print_error("append: %s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(name, want_name);
}

/* Checks one phase group of a complete run against the fixture. */
static void check_phase(struct fixture *f, hid_t run, int p, int reps)
{
    char gname[64];
    snprintf(gname, sizeof(gname), "phases/%02d_%s", p, p == 0 ? "write" : "read");
    hid_t g = H5Gopen2(run, gname, H5P_DEFAULT);
    assert_true(g >= 0);
    expect_attr_str(g, "phase", p == 0 ? "write" : "read");
    assert_int_equal(attr_ll(g, "index"), p);
    assert_int_equal(attr_ll(g, "repetitions"), reps);

    hsize_t dims[2];
    hid_t tt = table_type("times", sizeof(struct pfs_times));
    struct pfs_times *t = read_ds(g, "times", tt, 2, dims);
    H5Tclose(tt);
    assert_int_equal(dims[0], reps);
    assert_int_equal(dims[1], NR);
    for (int k = 0; k < reps; k++)
        for (int r = 0; r < NR; r++) {
            const struct pfs_times *a = &t[k * NR + r];
            const struct pfs_times *b = tm(f, p, k, r);
            /* Stored as doubles: bit-exact. */
            assert_true(a->open_start == b->open_start);
            assert_true(a->open_end == b->open_end);
            assert_true(a->xfer_end == b->xfer_end);
            assert_true(a->close_end == b->close_end);
            assert_true(a->sw_end == b->sw_end);
            assert_true(a->verify_s == b->verify_s);
            assert_int_equal(a->bytes, b->bytes);
            assert_int_equal(a->xfers, b->xfers);
            assert_int_equal(a->sw_bytes, b->sw_bytes);
            assert_int_equal(a->errors, b->errors);
        }

    double *bw = read_ds(g, "bandwidth", H5T_NATIVE_DOUBLE, 1, dims);
    assert_int_equal(dims[0], reps);
    double *sec = read_ds(g, "seconds", H5T_NATIVE_DOUBLE, 1, dims);
    uint64_t *bytes = read_ds(g, "bytes", H5T_NATIVE_UINT64, 1, dims);
    double *util = read_ds(g, "utilization", H5T_NATIVE_DOUBLE, 1, dims);
    double *swbw = read_ds(g, "stonewall_bandwidth", H5T_NATIVE_DOUBLE, 1, dims);
    uint64_t *nbytes = read_ds(g, "node_bytes", H5T_NATIVE_UINT64, 2, dims);
    assert_int_equal(dims[0], reps);
    assert_int_equal(dims[1], NN);
    double *nsec = read_ds(g, "node_seconds", H5T_NATIVE_DOUBLE, 2, dims);
    double *nbw = read_ds(g, "node_bandwidth", H5T_NATIVE_DOUBLE, 2, dims);
    int *nflag = read_ds(g, "node_straggler", H5T_NATIVE_INT, 2, dims);

    /* Aggregate bandwidth, recomputed from the raw times just read back:
     * bytes of all ranks / (max close_end - min open_start). */
    for (int k = 0; k < reps; k++) {
        double lo = t[k * NR].open_start, hi = t[k * NR].close_end;
        uint64_t sum = 0;
        for (int r = 0; r < NR; r++) {
            lo = fmin(lo, t[k * NR + r].open_start);
            hi = fmax(hi, t[k * NR + r].close_end);
            sum += t[k * NR + r].bytes;
        }
        assert_int_equal(bytes[k], sum);
        assert_near(sec[k], hi - lo, 1e-12);
        assert_near(bw[k], (double)sum / (hi - lo), 1e-12);

        struct expect e;
        expect_of(f, p, k, &e);
        assert_int_equal(bytes[k], NR * BLOCK);
        assert_near(sec[k], e.seconds, 1e-12);
        assert_near(bw[k], e.bandwidth, 1e-12);
        assert_near(util[k], e.util, 1e-12);
        assert_true(util[k] > 0 && util[k] <= 1);
        assert_true(swbw[k] == 0);
        uint64_t nsum = 0;
        for (int n = 0; n < NN; n++) {
            nsum += nbytes[k * NN + n];
            assert_int_equal(nbytes[k * NN + n], e.node_bytes[n]);
            assert_int_equal(nbytes[k * NN + n], (NR / NN) * BLOCK);
            assert_near(nsec[k * NN + n], e.node_seconds[n], 1e-12);
            assert_near(nbw[k * NN + n], e.node_bw[n], 1e-12);
            /* Only node 1 in phase 1 rep 2 (rank 3 ten times slower). */
            assert_int_equal(nflag[k * NN + n], p == 1 && k == 2 && n == 1);
        }
        assert_int_equal(nsum, bytes[k]);
    }
    if (p == 0) {
        /* By hand, see the fixture: 16 MiB in 1.381 s. */
        assert_near(sec[0], 1.381, 1e-6);
        assert_near(bw[0], 16.0 * MiB / 1.381, 1e-6);
        /* busy = sum over ranks of 1.051 + 0.1 r = 4.804 s */
        assert_near(util[0], 4.804 / (4 * 1.381), 1e-6);
        /* Node 0 (ranks 0, 2): T0 .. T0 + 0.02 + 1.051 + 0.2 = 1.271 s. */
        assert_near(nsec[0], 1.271, 1e-6);
        assert_near(nbw[0], 8.0 * MiB / 1.271, 1e-6);
    }

    /* Statistics over repetitions, sample stddev. */
    double mn = bw[0], mx = bw[0], mean = 0;
    for (int k = 0; k < reps; k++)
        mn = fmin(mn, bw[k]), mx = fmax(mx, bw[k]), mean += bw[k] / reps;
    double var = 0;
    for (int k = 0; k < reps; k++)
        var += (bw[k] - mean) * (bw[k] - mean);
    double sd = reps > 1 ? sqrt(var / (reps - 1)) : 0;
    double sorted[NREP];
    memcpy(sorted, bw, sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++)
        for (int j = i + 1; j < reps; j++)
            if (sorted[j] < sorted[i]) {
                double x = sorted[i];
                sorted[i] = sorted[j], sorted[j] = x;
            }
    double median = reps % 2 ? sorted[reps / 2] : 0.5 * (sorted[reps / 2 - 1] + sorted[reps / 2]);
    assert_near(attr_dbl(g, "bandwidth_min"), mn, 1e-12);
    assert_near(attr_dbl(g, "bandwidth_max"), mx, 1e-12);
    assert_near(attr_dbl(g, "bandwidth_mean"), mean, 1e-12);
    assert_near(attr_dbl(g, "bandwidth_median"), median, 1e-12);
    if (reps > 1)
        assert_near(attr_dbl(g, "bandwidth_stddev"), sd, 1e-9);
    else /* one repetition has no spread: NaN, as the report's n/a and JSON's null, never 0 */
        assert_true(isnan(attr_dbl(g, "bandwidth_stddev")));
    char units[256];
    get_attr_str(g, "bandwidth_units", units, sizeof(units));
    assert_non_null(strstr(units, "bytes/s"));

    expect_units(g, "bandwidth", "bytes/s");
    expect_units(g, "seconds", "s");
    expect_units(g, "bytes", "bytes");
    expect_units(g, "node_bytes", "bytes");
    expect_units(g, "node_bandwidth", "bytes/s");
    expect_units(g, "utilization", "fraction");

    free(t), free(bw), free(sec), free(bytes), free(util), free(swbw), free(nbytes), free(nsec), free(nbw),
        free(nflag);
    H5Gclose(g);
}

/* Checks the summary rows [from, from + nphases * reps) of one run. */
static void check_summary_rows(struct fixture *f, const struct rsummary *rows, hsize_t from, int run_no,
                               const char *run_id, const char *label, const char *status, const int *reps)
{
    hsize_t i = from;
    for (int p = 0; p < NPH; p++)
        for (int k = 0; k < reps[p]; k++, i++) {
            const struct rsummary *s = &rows[i];
            struct expect e;
            expect_of(f, p, k, &e);
            assert_int_equal(s->r.run, run_no);
            assert_string_equal(s->run_id, run_id);
            assert_string_equal(s->label, label);
            assert_string_equal(s->status, status);
            assert_string_equal(s->phase, p == 0 ? "write" : "read");
            assert_int_equal(s->r.rep, k);
            assert_int_equal(s->r.ranks, NR);
            assert_int_equal(s->r.nodes, NN);
            assert_int_equal(s->r.transfer, XFER);
            assert_int_equal(s->r.block, BLOCK);
            assert_int_equal(s->r.bytes, e.bytes);
            assert_near(s->r.seconds, e.seconds, 1e-12);
            assert_near(s->r.bandwidth, e.bandwidth, 1e-12);
            assert_near(s->r.utilization, e.util, 1e-12);
            assert_true(s->r.stonewall_bandwidth == 0);
        }
}

/* ---- tests ---- */

static void test_append_one_run(void **state)
{
    struct fixture *f = *state;
    int flag = 1;
    MPI_Initialized(&flag);
    assert_int_equal(flag, 0);

    char err[512] = "";
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);
    append_ok(f, "/runs/000001");
    assert_int_equal(stray_files(f->dir, "r.h5", ".r.h5.lock"), 0);
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);

    hid_t file = open_ro(f->path);
    expect_attr_str(file, "format", "pfsbench-results");
    assert_int_equal(attr_ll(file, "format_version"), 1);
    assert_int_equal(count_links(file, "runs"), 1);

    hid_t g = H5Gopen2(file, "runs/000001", H5P_DEFAULT);
    assert_true(g >= 0);
    expect_attr_str(g, "run_id", "20250101-000000-abcdef");
    expect_attr_str(g, "status", "complete");
    expect_attr_str(g, "start_time", "2025-01-01T00:00:00Z");
    expect_attr_str(g, "end_time", "2025-01-01T00:05:00Z");
    expect_attr_str(g, "command_line", f->d.cmdline);
    expect_attr_str(g, "label", "synthetic");
    expect_attr_str(g, "pfsbench_version", PFS_VERSION);
    expect_attr_str(g, "git_revision", PFS_GIT_REV);
    expect_attr_str(g, "mpi_library", "Open MPI v4.1.4 (test)");
    expect_attr_str(g, "hdf5_version", pfs_results_hdf5_version());
    assert_int_equal(attr_ll(g, "ranks"), NR);
    assert_int_equal(attr_ll(g, "nodes"), NN);
    assert_near(attr_dbl(g, "ranks_per_node"), 2.0, 0);
    expect_attr_str(g, "dir", "/scratch/pfs");
    expect_attr_str(g, "fs_type", "lustre");
    expect_attr_str(g, "fs_mount_type", "lustre");
    expect_attr_str(g, "fs_source", "10.0.0.1@o2ib:/scratch");
    expect_attr_str(g, "fs_mount_point", "/scratch");
    expect_attr_str(g, "fs_options", "rw,flock,lazystatfs");
    expect_attr_str(g, "fs_layout", "stripe_count=4 stripe_size=1048576");
    uint64_t bsize = 0;
    get_attr(g, "fs_block_size", H5T_NATIVE_UINT64, &bsize);
    assert_true(bsize == 4096);
    expect_attr_str(g, "host_rank0", "node1");
    uint64_t seed = 0;
    get_attr(g, "seed", H5T_NATIVE_UINT64, &seed);
    assert_true(seed == 0x123456789abcdefULL);
    expect_attr_str(g, "error", "");
    expect_attr_str(g, "warnings", "first warning\nsecond warning\n");
    assert_int_equal(attr_ll(g, "reorder_shift"), 1);
    assert_int_equal(attr_ll(g, "round_robin_asked"), 1);
    expect_attr_str(g, "mode", "file-per-process");
    expect_attr_str(g, "layout", "segmented");
    expect_attr_str(g, "api", "posix");
    uint64_t u = 0;
    get_attr(g, "transfer", H5T_NATIVE_UINT64, &u);
    assert_int_equal(u, XFER);
    get_attr(g, "block", H5T_NATIVE_UINT64, &u);
    assert_int_equal(u, BLOCK);
    get_attr(g, "total", H5T_NATIVE_UINT64, &u);
    assert_int_equal(u, NR * BLOCK);
    expect_attr_str(g, "phases", "write,read");
    assert_int_equal(attr_ll(g, "reps"), NREP);
    assert_int_equal(attr_ll(g, "reorder"), 1);
    assert_near(attr_dbl(g, "straggler"), 0.8, 1e-15);
    assert_true(attr_dbl(g, "deadline") == 0);
    char conf[8192];
    get_attr_str(g, "config", conf, sizeof(conf));
    assert_non_null(strstr(conf, "label=synthetic"));
    assert_non_null(strstr(conf, "reps=3"));

    /* Placement: round-robin over 2 nodes, reorder by one rank. */
    hsize_t dims[2];
    struct rplacement *pl = read_placement(g, dims);
    assert_int_equal(dims[0], NR);
    for (int r = 0; r < NR; r++) {
        assert_int_equal(pl[r].r.rank, r);
        assert_int_equal(pl[r].r.node, r % NN);
        assert_string_equal(pl[r].host, r % NN ? "node2" : "node1");
        assert_true(pl[r].r.clock_correction == r * 1e-6);
        assert_true(pl[r].r.clock_uncertainty == r * 1e-7);
        assert_int_equal(pl[r].r.reads_from_rank, (r + 1) % NR);
        assert_int_equal(pl[r].r.reads_from_node, ((r + 1) % NR) % NN);
        assert_true(pl[r].r.node != pl[r].r.reads_from_node);
    }
    free(pl);
    assert_int_equal(count_links(g, "phases"), NPH);
    for (int p = 0; p < NPH; p++)
        check_phase(f, g, p, NREP);
    H5Gclose(g);

    hsize_t n;
    struct rsummary *rows = read_summary(file, &n);
    assert_int_equal(n, NPH * NREP);
    int reps[NPH] = {NREP, NREP};
    check_summary_rows(f, rows, 0, 1, "20250101-000000-abcdef", "synthetic", "complete", reps);
    free(rows);
    char units[512];
    hid_t sds = H5Dopen2(file, "summary", H5P_DEFAULT);
    get_attr_str(sds, "units", units, sizeof(units));
    assert_non_null(strstr(units, "bandwidth"));
    assert_non_null(strstr(units, "bytes/s"));
    H5Dclose(sds);
    H5Fclose(file);
}

static void test_three_runs(void **state)
{
    struct fixture *f = *state;
    const char *labels[3] = {"run-a", "run-b", ""};
    const char *ids[3] = {"id-aaaa", "id-bbbb", "id-cccc"};
    for (int i = 0; i < 3; i++) {
        char want[32];
        snprintf(want, sizeof(want), "/runs/%06d", i + 1);
        snprintf(f->cfg.label, sizeof(f->cfg.label), "%s", labels[i]);
        snprintf(f->d.run_id, sizeof(f->d.run_id), "%s", ids[i]);
        append_ok(f, want);
    }
    assert_int_equal(stray_files(f->dir, "r.h5", ".r.h5.lock"), 0);
    hid_t file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 3);
    for (int i = 0; i < 3; i++) {
        char gname[32];
        snprintf(gname, sizeof(gname), "runs/%06d", i + 1);
        hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
        assert_true(g >= 0);
        expect_attr_str(g, "run_id", ids[i]);
        expect_attr_str(g, "label", labels[i]);
        check_phase(f, g, 0, NREP);
        H5Gclose(g);
    }
    hsize_t n;
    struct rsummary *rows = read_summary(file, &n);
    assert_int_equal(n, 3 * NPH * NREP);
    int reps[NPH] = {NREP, NREP};
    for (int i = 0; i < 3; i++)
        check_summary_rows(f, rows, (hsize_t)i * NPH * NREP, i + 1, ids[i], labels[i], "complete", reps);
    free(rows);
    H5Fclose(file);
}

static void expect_check_fails(const char *path, const char *why)
{
    char err[512] = "";
    int rc = pfs_results_check(path, err, sizeof(err));
    if (rc == 0)
        print_error("pfs_results_check(%s) accepted it\n", path);
    assert_int_equal(rc, -1);
    if (!strstr(err, why))
        print_error("pfs_results_check(%s): '%s' does not say '%s'\n", path, err, why);
    assert_non_null(strstr(err, why));
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void test_check_rejects(void **state)
{
    struct fixture *f = *state;
    char p[700], err[512];

    /* Accepted: a new name in a writable directory, and a results file. */
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);
    append_ok(f, "/runs/000001");
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);

    /* A directory. */
    expect_check_fails(f->dir, "is a directory");

    /* A file that is not HDF5. */
    snprintf(p, sizeof(p), "%s/notes.txt", f->dir);
    write_file(p, "not an HDF5 file\n");
    expect_check_fails(p, "not an HDF5 file");
    char name[64], aerr[512] = "";
    assert_int_equal(append_run(p, &f->d, name, sizeof(name), aerr, sizeof(aerr)), -1);

    /* An HDF5 file of another format: no format attribute at all ... */
    snprintf(p, sizeof(p), "%s/other.h5", f->dir);
    hid_t h = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(h >= 0);
    hsize_t three = 3;
    hid_t s = H5Screate_simple(1, &three, NULL);
    int data[3] = {1, 2, 3};
    hid_t ds = H5Dcreate2(h, "data", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(ds), H5Sclose(s);
    H5Fclose(h);
    expect_check_fails(p, "not a pfsbench results file");
    /* ... and appending to it is refused too, leaving it as it was, no copy behind. */
    size_t n0, n1;
    char *before = slurp(p, &n0);
    assert_int_equal(append_run(p, &f->d, name, sizeof(name), aerr, sizeof(aerr)), -1);
    assert_non_null(strstr(aerr, "not a pfsbench results file"));
    char *after = slurp(p, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before), free(after);

    /* ... a format attribute naming something else ... */
    snprintf(p, sizeof(p), "%s/other2.h5", f->dir);
    h = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(h, "format", st, s, H5P_DEFAULT, H5P_DEFAULT);
    const char *other = "h5bench-results";
    H5Awrite(a, st, &other);
    H5Aclose(a);
    H5Fclose(h);
    expect_check_fails(p, "not a pfsbench results file");

    /* ... a fixed-length, space-padded format attribute (as Fortran and
     * MATLAB write strings): read safely, and not taken for ours ... */
    snprintf(p, sizeof(p), "%s/fixed.h5", f->dir);
    h = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fixed = H5Tcopy(H5T_C_S1);
    H5Tset_size(fixed, 16);
    H5Tset_strpad(fixed, H5T_STR_SPACEPAD);
    a = H5Acreate2(h, "format", fixed, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, fixed, "pfsbench-resultX");
    H5Aclose(a);
    H5Tclose(fixed);
    H5Fclose(h);
    expect_check_fails(p, "not a pfsbench results file");

    /* ... and pfsbench's format in a version from the future. */
    snprintf(p, sizeof(p), "%s/future.h5", f->dir);
    h = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    a = H5Acreate2(h, "format", st, s, H5P_DEFAULT, H5P_DEFAULT);
    const char *ours = "pfsbench-results";
    H5Awrite(a, st, &ours);
    H5Aclose(a);
    long long v = 99;
    a = H5Acreate2(h, "format_version", H5T_NATIVE_LLONG, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
    H5Fclose(h);
    H5Sclose(s), H5Tclose(st);
    expect_check_fails(p, "version 99");

    /* A missing directory, and a "directory" that is a file. */
    snprintf(p, sizeof(p), "%s/no/such/dir/r.h5", f->dir);
    expect_check_fails(p, "does not exist");
    assert_int_equal(append_run(p, &f->d, name, sizeof(name), aerr, sizeof(aerr)), -1);
    snprintf(p, sizeof(p), "%s/notes.txt/r.h5", f->dir);
    assert_int_equal(pfs_results_check(p, err, sizeof(err)), -1);

    /* An unwritable directory. Root ignores mode bits, so for root only a
     * directory the kernel refuses to anyone (/proc/self) says it. */
    if (geteuid() != 0) {
        snprintf(p, sizeof(p), "%s/ro", f->dir);
        assert_int_equal(mkdir(p, 0555), 0);
        snprintf(p, sizeof(p), "%s/ro/r.h5", f->dir);
        expect_check_fails(p, "not writable");
    }
    if (access("/proc/self", W_OK) != 0)
        expect_check_fails("/proc/self/pfs-results.h5", "not writable");

    /* None of the refusals changed the good file. */
    hid_t file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 1);
    H5Fclose(file);
}

static void test_failed_run(void **state)
{
    struct fixture *f = *state;
    /* Rank 2 fails during the read of repetition 1: write has 2
     * repetitions, read 1 (the loop is repetition-major). */
    f->d.status = "failed";
    snprintf(f->d.error, sizeof(f->d.error), "rank 2 (node1): read: No space left on device");
    f->reps_done[0] = 2;
    f->reps_done[1] = 1;
    append_ok(f, "/runs/000001");

    /* Then a run that failed before its first read. */
    f->reps_done[0] = 1;
    f->reps_done[1] = 0;
    snprintf(f->d.run_id, sizeof(f->d.run_id), "second");
    append_ok(f, "/runs/000002");

    hid_t file = open_ro(f->path);
    hid_t g = H5Gopen2(file, "runs/000001", H5P_DEFAULT);
    expect_attr_str(g, "status", "failed");
    expect_attr_str(g, "error", "rank 2 (node1): read: No space left on device");
    assert_int_equal(attr_ll(g, "reps"), NREP); /* what was asked */
    check_phase(f, g, 0, 2);
    check_phase(f, g, 1, 1);
    H5Gclose(g);

    g = H5Gopen2(file, "runs/000002", H5P_DEFAULT);
    expect_attr_str(g, "status", "failed");
    check_phase(f, g, 0, 1);
    hid_t pg = H5Gopen2(g, "phases/01_read", H5P_DEFAULT);
    assert_true(pg >= 0);
    assert_int_equal(attr_ll(pg, "repetitions"), 0);
    assert_int_equal(H5Lexists(pg, "times", H5P_DEFAULT), 0);
    assert_int_equal(H5Lexists(pg, "bandwidth", H5P_DEFAULT), 0);
    H5Gclose(pg);
    H5Gclose(g);

    hsize_t n;
    struct rsummary *rows = read_summary(file, &n);
    assert_int_equal(n, 3 + 1);
    int reps1[NPH] = {2, 1}, reps2[NPH] = {1, 0};
    check_summary_rows(f, rows, 0, 1, "20250101-000000-abcdef", "synthetic", "failed", reps1);
    check_summary_rows(f, rows, 3, 2, "second", "synthetic", "failed", reps2);
    free(rows);
    H5Fclose(file);
}

/* A crash while the new run is being written (the writer's test hook
 * aborts after writing into the temporary copy, before the rename) leaves
 * the file as it was. */
static void test_crash_keeps_old_file(void **state)
{
    struct fixture *f = *state;
    append_ok(f, "/runs/000001");
    size_t n0, n1;
    char *before = slurp(f->path, &n0);

    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        setenv("PFSBENCH_TEST_CRASH_IN_RESULTS", "1", 1);
        snprintf(f->d.run_id, sizeof(f->d.run_id), "crashes");
        char name[64], err[512];
        append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err));
        _exit(0); /* not reached when the hook works */
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), SIGABRT);

    /* Byte for byte the file it was, and it opens with its one run. */
    char *after = slurp(f->path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before), free(after);
    hid_t file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 1);
    hsize_t n;
    free(read_summary(file, &n));
    assert_int_equal(n, NPH * NREP);
    H5Fclose(file);
    char err[512];
    assert_int_equal(pfs_results_check(f->path, err, sizeof(err)), 0);

    /* The next run lands as run 2, beside whatever the crash left. */
    snprintf(f->d.run_id, sizeof(f->d.run_id), "after-crash");
    append_ok(f, "/runs/000002");
    file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 2);
    struct rsummary *rows = read_summary(file, &n);
    assert_int_equal(n, 2 * NPH * NREP);
    for (hsize_t i = 0; i < n; i++)
        assert_string_not_equal(rows[i].run_id, "crashes");
    free(rows);
    H5Fclose(file);
}

/* Several processes appending to one file at the same moment all land:
 * the directory flock serializes them, each gets its own run number. */
static void test_concurrent_appends(void **state)
{
    struct fixture *f = *state;
    enum { K = 4 };
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pids[K];
    fflush(NULL);
    for (int i = 0; i < K; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            close(go[1]);
            char c;
            while (read(go[0], &c, 1) > 0) /* wait for the start: EOF when the parent closes it */
                ;
            snprintf(f->d.run_id, sizeof(f->d.run_id), "child-%d", i);
            char name[64], err[512];
            int rc = append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err));
            if (rc != 0)
                fprintf(stderr, "child %d: %s\n", i, err);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    close(go[0]);
    close(go[1]); /* start them all */
    for (int i = 0; i < K; i++) {
        int ws = 0;
        assert_int_equal(waitpid(pids[i], &ws, 0), pids[i]);
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 0);
    }
    assert_int_equal(stray_files(f->dir, "r.h5", ".r.h5.lock"), 0);

    hid_t file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), K);
    int seen[K] = {0};
    for (int i = 1; i <= K; i++) {
        char gname[32], id[64];
        snprintf(gname, sizeof(gname), "runs/%06d", i);
        hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
        assert_true(g >= 0);
        get_attr_str(g, "run_id", id, sizeof(id));
        int c = -1;
        assert_int_equal(sscanf(id, "child-%d", &c), 1);
        assert_true(c >= 0 && c < K);
        seen[c]++;
        check_phase(f, g, 1, NREP);
        H5Gclose(g);
        /* Its summary rows carry its number. */
        hsize_t n;
        struct rsummary *rows = read_summary(file, &n);
        assert_int_equal(n, K * NPH * NREP);
        int reps[NPH] = {NREP, NREP};
        check_summary_rows(f, rows, (hsize_t)(i - 1) * NPH * NREP, i, id, "synthetic", "complete", reps);
        free(rows);
    }
    for (int c = 0; c < K; c++)
        assert_int_equal(seen[c], 1);
    H5Fclose(file);
}

/* ---- a file of an older pfsbench: /summary with fixed-length strings ----
 * Its table keeps its type (one dataset, one type; HDF5 converts no
 * variable-length string into a fixed one): the new run's rows go in as
 * fixed-length copies, every older row stays, and the new run's own
 * datasets (placement) are variable-length UTF-8. */
static hid_t fixed_str(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

/* The fixed-length /summary an older pfsbench wrote (before threads, ops,
 * rate, warmup): our rsummary with its strings in place. */
static hid_t old_summary_type(void)
{
    static const char *const newer[] = {"threads", "ops", "rate", "warmup", NULL};
    hid_t t = table_type_skip("summary", sizeof(struct rsummary), newer);
    hid_t s16 = fixed_str(16), s64 = fixed_str(64), s128 = fixed_str(128);
    H5Tinsert(t, "run_id", HOFFSET(struct rsummary, run_id), s64);
    H5Tinsert(t, "label", HOFFSET(struct rsummary, label), s128);
    H5Tinsert(t, "status", HOFFSET(struct rsummary, status), s16);
    H5Tinsert(t, "phase", HOFFSET(struct rsummary, phase), s16);
    H5Tclose(s16), H5Tclose(s64), H5Tclose(s128);
    return t;
}

static void make_summary_fixed(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    hsize_t n, maxd = H5S_UNLIMITED, chunk = 64;
    struct rsummary *rows = read_summary(file, &n);
    assert_true(H5Ldelete(file, "summary", H5P_DEFAULT) >= 0);
    hid_t t = old_summary_type(), sp = H5Screate_simple(1, &n, &maxd), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, 1, &chunk);
    hid_t ds = H5Dcreate2(file, "summary", t, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dclose(ds), H5Pclose(pl), H5Sclose(sp), H5Tclose(t);
    H5Fclose(file);
    free(rows);
}

static void test_append_to_fixed_summary(void **state)
{
    struct fixture *f = *state;
    snprintf(f->cfg.label, sizeof(f->cfg.label), "run-a");
    snprintf(f->d.run_id, sizeof(f->d.run_id), "id-aaaa");
    append_ok(f, "/runs/000001");
    make_summary_fixed(f->path);
    snprintf(f->cfg.label, sizeof(f->cfg.label), "second \xc3\xa9");
    snprintf(f->d.run_id, sizeof(f->d.run_id), "id-bbbb");
    append_ok(f, "/runs/000002");

    hid_t file = open_ro(f->path);
    hid_t ds = H5Dopen2(file, "summary", H5P_DEFAULT), ft = H5Dget_type(ds);
    hid_t m = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, "label"));
    assert_true(H5Tis_variable_str(m) == 0); /* still the older table */
    H5Tclose(m), H5Tclose(ft), H5Dclose(ds);
    hsize_t n;
    hid_t t = old_summary_type();
    struct rsummary *rows = read_ds(file, "summary", t, 1, &n);
    H5Tclose(t);
    assert_int_equal(n, 2 * NPH * NREP);
    int reps[NPH] = {NREP, NREP};
    check_summary_rows(f, rows, 0, 1, "id-aaaa", "run-a", "complete", reps);
    check_summary_rows(f, rows, NPH * NREP, 2, "id-bbbb", "second \xc3\xa9", "complete", reps);
    free(rows);
    hid_t g = H5Gopen2(file, "runs/000002", H5P_DEFAULT);
    expect_attr_str(g, "label", "second \xc3\xa9");
    hsize_t dims[2];
    free(read_placement(g, dims)); /* the new run's own table: variable-length UTF-8 */
    assert_int_equal(dims[0], NR);
    H5Gclose(g);
    H5Fclose(file);
}

/* ---- threads and a metadata phase ----
 * The same 4 ranks on 2 nodes (node = rank % 2), 2 threads each: 8 streams,
 * stream s = rank x 2 + thread, so streams 0,1,4,5 run on node 0 and 2,3,6,7
 * on node 1 (not s % 2). Phase 0 writes 4 MiB per stream; phase 1 creates
 * MD_FILES files of MD_FSIZE bytes per stream. In create's repetition 1 the
 * streams of node 1 take 3x as long: node 1 is a straggler by files/s. */
#define THR 2
#define NS (NR * THR)
#define MD_FILES 25
#define MD_FSIZE 4096ULL

static void test_threads_and_metadata(void **state)
{
    struct fixture *f = *state;
    static struct pfs_times t[NPH * NREP * NS];
    int node_of_stream[NS];
    for (int st = 0; st < NS; st++)
        node_of_stream[st] = f->node[st / THR];
    for (int p = 0; p < NPH; p++)
        for (int k = 0; k < NREP; k++)
            for (int st = 0; st < NS; st++) {
                struct pfs_times *x = &t[((size_t)p * NREP + (size_t)k) * NS + (size_t)st];
                memset(x, 0, sizeof(*x));
                x->open_start = T0 + 100 * p + 10 * k + 0.001 * st;
                if (p == 0) {
                    x->open_end = x->open_start + 0.001;
                    x->xfer_end = x->open_end + 1.0 + 0.1 * st;
                    x->close_end = x->xfer_end + 0.05;
                    x->bytes = BLOCK;
                    x->xfers = BLOCK / XFER;
                } else {
                    double dur = 0.5 + 0.01 * st;
                    if (k == 1 && node_of_stream[st] == 1)
                        dur *= 3;
                    x->open_end = x->open_start;
                    x->xfer_end = x->close_end = x->open_start + dur;
                    x->bytes = MD_FILES * MD_FSIZE;
                    x->xfers = MD_FILES;
                }
            }
    f->cfg.phases[1] = PFS_PH_CREATE;
    f->cfg.threads = THR;
    f->cfg.files = MD_FILES;
    f->cfg.file_size = MD_FSIZE;
    f->cfg.dirs = PFS_DIRS_PER_RANK;
    f->cfg.md_random = 1;
    f->cfg.timeout = 30;
    f->d.threads = THR;
    f->d.nstreams = NS;
    f->d.node_of_stream = node_of_stream;
    f->d.times = t;
    f->d.interrupt_signal = 0;
    append_ok(f, "/runs/000001");

    hid_t file = open_ro(f->path);
    hid_t g = H5Gopen2(file, "runs/000001", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_int_equal(attr_ll(g, "ranks"), NR);
    assert_int_equal(attr_ll(g, "threads"), THR);
    assert_int_equal(attr_ll(g, "streams"), NS);
    assert_int_equal(attr_ll(g, "files"), MD_FILES);
    uint64_t u = 0;
    get_attr(g, "file_size", H5T_NATIVE_UINT64, &u);
    assert_int_equal(u, MD_FSIZE);
    expect_attr_str(g, "dirs", "per-rank");
    expect_attr_str(g, "order", "random");
    assert_true(attr_dbl(g, "timeout") == 30);
    assert_int_equal(attr_ll(g, "interrupt_signal"), 0);
    expect_attr_str(g, "phases", "write,create");
    /* Placement stays one row per rank. */
    hsize_t dims[2];
    hid_t pt = rplacement_type();
    free(read_ds(g, "placement", pt, 1, dims));
    H5Tclose(pt);
    assert_int_equal(dims[0], NR);

    for (int p = 0; p < NPH; p++) {
        const int meta = p == 1;
        hid_t pg = H5Gopen2(g, meta ? "phases/01_create" : "phases/00_write", H5P_DEFAULT);
        assert_true(pg >= 0);
        expect_attr_str(pg, "kind", meta ? "metadata" : "data");
        hid_t tt = table_type("times", sizeof(struct pfs_times));
        struct pfs_times *rt = read_ds(pg, "times", tt, 2, dims);
        H5Tclose(tt);
        assert_int_equal(dims[0], NREP);
        assert_int_equal(dims[1], NS);
        uint64_t *ops = read_ds(pg, "ops", H5T_NATIVE_UINT64, 1, dims);
        assert_int_equal(dims[0], NREP);
        double *rate = read_ds(pg, "rate", H5T_NATIVE_DOUBLE, 1, dims);
        double *sec = read_ds(pg, "seconds", H5T_NATIVE_DOUBLE, 1, dims);
        double *util = read_ds(pg, "utilization", H5T_NATIVE_DOUBLE, 1, dims);
        uint64_t *bytes = read_ds(pg, "bytes", H5T_NATIVE_UINT64, 1, dims);
        uint64_t *nbytes = read_ds(pg, "node_bytes", H5T_NATIVE_UINT64, 2, dims);
        assert_int_equal(dims[1], NN);
        double *nsec = read_ds(pg, "node_seconds", H5T_NATIVE_DOUBLE, 2, dims);
        double *nrate = read_ds(pg, "node_rate", H5T_NATIVE_DOUBLE, 2, dims);
        assert_int_equal(dims[0], NREP);
        assert_int_equal(dims[1], NN);
        int *nflag = read_ds(pg, "node_straggler", H5T_NATIVE_INT, 2, dims);
        for (int k = 0; k < NREP; k++) {
            /* Every stream's record, in stream order, bit-exact. */
            double lo = INFINITY, hi = -INFINITY, busy = 0, nlo[NN], nhi[NN];
            uint64_t nops[NN] = {0}, nb[NN] = {0}, sum_ops = 0, sum_bytes = 0;
            for (int n = 0; n < NN; n++)
                nlo[n] = INFINITY, nhi[n] = -INFINITY;
            for (int st = 0; st < NS; st++) {
                const struct pfs_times *a = &rt[k * NS + st];
                const struct pfs_times *b = &t[((size_t)p * NREP + (size_t)k) * NS + (size_t)st];
                assert_true(a->open_start == b->open_start && a->close_end == b->close_end);
                assert_int_equal(a->xfers, b->xfers);
                assert_int_equal(a->bytes, b->bytes);
                lo = fmin(lo, a->open_start), hi = fmax(hi, a->close_end);
                busy += a->close_end - a->open_start;
                sum_ops += a->xfers, sum_bytes += a->bytes;
                int n = (st / THR) % NN; /* the rank's node, by the fixture's round-robin */
                nlo[n] = fmin(nlo[n], a->open_start), nhi[n] = fmax(nhi[n], a->close_end);
                nops[n] += a->xfers, nb[n] += a->bytes;
            }
            assert_int_equal(ops[k], sum_ops);
            assert_int_equal(bytes[k], sum_bytes);
            if (meta) {
                assert_int_equal(ops[k], (uint64_t)MD_FILES * NS);
                assert_int_equal(bytes[k], (uint64_t)MD_FILES * MD_FSIZE * NS);
            } else {
                assert_int_equal(ops[k], (uint64_t)NS * (BLOCK / XFER));
                assert_int_equal(bytes[k], (uint64_t)NS * BLOCK);
            }
            assert_near(sec[k], hi - lo, 1e-12);
            assert_near(rate[k], (double)sum_ops / (hi - lo), 1e-12);
            assert_near(util[k], busy / (NS * (hi - lo)), 1e-12);
            for (int n = 0; n < NN; n++) {
                assert_int_equal(nbytes[k * NN + n], nb[n]);
                assert_near(nsec[k * NN + n], nhi[n] - nlo[n], 1e-12);
                assert_near(nrate[k * NN + n], (double)nops[n] / (nhi[n] - nlo[n]), 1e-12);
                /* Judged by files/s in the metadata phase: only node 1 in create's rep 1. */
                assert_int_equal(nflag[k * NN + n], meta && k == 1 && n == 1);
            }
        }
        if (meta) {
            /* Create rep 0 by hand: first start T0 + 100 (stream 0), last end stream 7:
             * T0 + 100 + 0.007 + 0.57 = 0.577 s for 200 files. */
            assert_near(sec[0], 0.577, 1e-6);
            assert_near(rate[0], 200 / 0.577, 1e-6);
            double mn = rate[0], mx = rate[0], mean = 0;
            for (int k = 0; k < NREP; k++)
                mn = fmin(mn, rate[k]), mx = fmax(mx, rate[k]), mean += rate[k] / NREP;
            assert_near(attr_dbl(pg, "rate_min"), mn, 1e-12);
            assert_near(attr_dbl(pg, "rate_max"), mx, 1e-12);
            assert_near(attr_dbl(pg, "rate_mean"), mean, 1e-12);
            assert_true(H5Aexists(pg, "rate_median") > 0 && H5Aexists(pg, "rate_stddev") > 0);
        } else {
            assert_int_equal(H5Aexists(pg, "rate_mean"), 0);
        }
        expect_units(pg, "rate", "ops/s (files/s in a metadata phase)");
        free(rt), free(ops), free(rate), free(sec), free(util), free(bytes), free(nbytes), free(nsec), free(nrate),
            free(nflag);
        H5Gclose(pg);
    }
    H5Gclose(g);

    /* /summary: threads, ops and rate per row, equal to the phases'. */
    hsize_t n;
    hid_t st2 = rsummary_type();
    struct rsummary *rows = read_ds(file, "summary", st2, 1, &n);
    H5Tclose(st2);
    const struct strfield sf2[] = {SF(rsummary, phase)};
    read_str_fields(file, "summary", rows, sizeof(*rows), n, sf2, 1);
    assert_int_equal(n, NPH * NREP);
    for (hsize_t i = 0; i < n; i++) {
        int p = (int)i / NREP, k = (int)i % NREP;
        assert_string_equal(rows[i].phase, p ? "create" : "write");
        assert_int_equal(rows[i].r.rep, k);
        assert_int_equal(rows[i].r.ranks, NR);
        assert_int_equal(rows[i].r.threads, THR);
        assert_int_equal(rows[i].r.ops, p ? (uint64_t)MD_FILES * NS : (uint64_t)NS * (BLOCK / XFER));
        assert_true(rows[i].r.rate > 0);
    }
    free(rows);
    H5Fclose(file);
}

/* ---- integrity: what the append may touch, and what it refuses ---- */

/* This host's name as the writer puts it in temporary copies. */
static void my_host_tag(char *out, size_t len)
{
    char h[256] = "";
    gethostname(h, sizeof(h));
    size_t i = 0;
    for (; h[i] && i + 1 < len; i++)
        out[i] = (isalnum((unsigned char)h[i]) || h[i] == '.' || h[i] == '-' || h[i] == '_') ? h[i] : '_';
    out[i] = '\0';
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
}

/* A stale copy is removed only when its owner is provably gone (this host,
 * a pid that does not exist); a live pid's copy and another host's copy
 * stay, as does a copy in the old .NAME.tmp.PID form (no host to judge). */
static void test_stale_copies(void **state)
{
    struct fixture *f = *state;
    append_ok(f, "/runs/000001");
    char host[128], dead[700], live[700], other[700], oldstyle[700];
    my_host_tag(host, sizeof(host));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid); /* reaped: the pid no longer exists */
    snprintf(dead, sizeof(dead), "%s/.r.h5.tmp.%s.%ld", f->dir, host, (long)pid);
    snprintf(live, sizeof(live), "%s/.r.h5.tmp.%s.%ld", f->dir, host, (long)getppid());
    snprintf(other, sizeof(other), "%s/.r.h5.tmp.other-client.%ld", f->dir, (long)pid);
    snprintf(oldstyle, sizeof(oldstyle), "%s/.r.h5.tmp.%ld", f->dir, (long)pid);
    touch(dead), touch(live), touch(other), touch(oldstyle);
    snprintf(f->d.run_id, sizeof(f->d.run_id), "second");
    append_ok(f, "/runs/000002");
    struct stat st;
    assert_int_equal(stat(dead, &st), -1);
    assert_int_equal(stat(live, &st), 0);
    assert_int_equal(stat(other, &st), 0);
    assert_int_equal(stat(oldstyle, &st), 0);
    unlink(live), unlink(other), unlink(oldstyle);
    assert_int_equal(stray_files(f->dir, "r.h5", ".r.h5.lock"), 0);
}

/* A symlinked results path: the run lands in the target, the link stays a
 * link, the copy and the lock are made beside the target. */
static void test_symlinked_results(void **state)
{
    struct fixture *f = *state;
    char real_dir[600], link[600], target[700], lk[700];
    snprintf(real_dir, sizeof(real_dir), "%s/real", f->dir);
    assert_int_equal(mkdir(real_dir, 0755), 0);
    snprintf(target, sizeof(target), "%s/r.h5", real_dir);
    snprintf(link, sizeof(link), "%s/link.h5", f->dir);
    snprintf(f->path, sizeof(f->path), "%.500s", target);
    append_ok(f, "/runs/000001");
    assert_int_equal(symlink("real/r.h5", link), 0);
    char err[512] = "";
    assert_int_equal(pfs_results_check(link, err, sizeof(err)), 0);
    snprintf(f->path, sizeof(f->path), "%.500s", link);
    append_ok(f, "/runs/000002");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char to[256] = "";
    assert_true(readlink(link, to, sizeof(to) - 1) > 0);
    assert_string_equal(to, "real/r.h5");
    hid_t file = open_ro(target);
    assert_int_equal(count_links(file, "runs"), 2);
    H5Fclose(file);
    snprintf(lk, sizeof(lk), "%s/.r.h5.lock", real_dir);
    assert_int_equal(stat(lk, &st), 0);
    assert_int_equal(stray_files(real_dir, "r.h5", ".r.h5.lock"), 0);
    /* A link that leads nowhere is refused, not replaced. */
    snprintf(link, sizeof(link), "%s/dangling.h5", f->dir);
    assert_int_equal(symlink("real/none.h5", link), 0);
    expect_check_fails(link, "symbolic link");
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
}

/* Mode and owner of an existing file survive the append (owner: as root,
 * the only one who can give a file to someone else). */
static void test_mode_and_owner_kept(void **state)
{
    struct fixture *f = *state;
    append_ok(f, "/runs/000001");
    assert_int_equal(chmod(f->path, 0640), 0);
    int root = geteuid() == 0;
    if (root)
        assert_int_equal(chown(f->path, 4321, 4322), 0);
    snprintf(f->d.run_id, sizeof(f->d.run_id), "second");
    append_ok(f, "/runs/000002");
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    if (root) {
        assert_int_equal(st.st_uid, 4321);
        assert_int_equal(st.st_gid, 4322);
    }
}

/* Refused up front: hard links, trailing slash, names too long for the
 * copy, a lock file that is a symlink; and the append refuses them too. */
static void test_refused_up_front(void **state)
{
    struct fixture *f = *state;
    char p[1200], name[64], err[512];
    append_ok(f, "/runs/000001");
    size_t n0, n1;
    char *before = slurp(f->path, &n0);

    snprintf(p, sizeof(p), "%s/other-name.h5", f->dir);
    assert_int_equal(link(f->path, p), 0);
    expect_check_fails(f->path, "hard links");
    assert_int_equal(append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "one link"));
    unlink(p);

    snprintf(p, sizeof(p), "%s/", f->path);
    expect_check_fails(p, "ends in '/'");
    assert_int_equal(append_run(p, &f->d, name, sizeof(name), err, sizeof(err)), -1);

    /* 240 bytes: a legal name, but .NAME.tmp.HOST.PID is not. */
    int m = snprintf(p, sizeof(p), "%s/", f->dir);
    memset(p + m, 'n', 240);
    p[m + 240] = '\0';
    expect_check_fails(p, "too long");
    assert_int_equal(append_run(p, &f->d, name, sizeof(name), err, sizeof(err)), -1);

    char lk[700];
    snprintf(lk, sizeof(lk), "%s/.r.h5.lock", f->dir);
    unlink(lk);
    assert_int_equal(symlink("elsewhere", lk), 0);
    expect_check_fails(f->path, "symbolic link");
    assert_int_equal(append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "symbolic link"));
    struct stat st;
    assert_int_equal(lstat(lk, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* neither followed nor replaced */
    snprintf(p, sizeof(p), "%s/elsewhere", f->dir);
    assert_int_equal(stat(p, &st), -1);
    unlink(lk);
    assert_int_equal(mkfifo(lk, 0644), 0);
    expect_check_fails(f->path, "not a regular file");
    unlink(lk);

    /* None of it changed the file, and no copy is left. */
    char *after = slurp(f->path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before), free(after);
    assert_int_equal(stray_files(f->dir, "r.h5", NULL), 0);
}

/* Two appends in one process, as two open file descriptions, exclude each
 * other: the lock is an OFD lock on the lock file, not a directory flock. */
static void test_lock_file_excludes(void **state)
{
    struct fixture *f = *state;
    append_ok(f, "/runs/000001");
    char lk[700];
    snprintf(lk, sizeof(lk), "%s/.r.h5.lock", f->dir);
    int fd = open(lk, O_RDWR);
    assert_true(fd >= 0);
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    /* A child appends while we hold the lock: it must wait for us. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char name[64], err[512];
        snprintf(f->d.run_id, sizeof(f->d.run_id), "waiter");
        _exit(append_run(f->path, &f->d, name, sizeof(name), err, sizeof(err)) == 0 ? 0 : 1);
    }
    usleep(300000);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, WNOHANG), 0); /* still waiting */
    hid_t file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 1);
    H5Fclose(file);
    fl.l_type = F_UNLCK;
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    close(fd);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    file = open_ro(f->path);
    assert_int_equal(count_links(file, "runs"), 2);
    H5Fclose(file);
}

/* ---- latency, time series and CPU ---- */

/* Phase 0 (write), every repetition k: 100 + k transfers of (i + 1) us,
 * node i % 2; 4 opens and closes of 20 and 30 us, no fsync; a time series
 * of 3 intervals of 0.5 s (base 0.25 s). Phase 1 (read) recorded none.
 * Every stream: 0.1 x rank s user, 0.01 s system CPU. */
struct lat_data {
    struct pfs_phase_lat lat[NPH * NREP];
    struct pfs_hist run[NREP][PFS_LAT_KINDS];
    struct pfs_hist node_op[NREP][NN];
    struct pfs_tslot run_ts[NREP][3];
    struct pfs_node_tslot node_ts[NREP][3 * NN];
    struct pfs_tg_stat tg[NREP][2];
};

static struct lat_data *lat_fill(struct fixture *f)
{
    struct lat_data *ld = calloc(1, sizeof(*ld));
    assert_non_null(ld);
    for (int k = 0; k < NREP; k++) {
        struct pfs_phase_lat *l = &ld->lat[k]; /* phase 0 */
        l->run = ld->run[k];
        for (int j = 0; j < PFS_LAT_KINDS; j++)
            pfs_hist_reset(&l->run[j]);
        for (int n = 0; n < NN; n++)
            pfs_hist_reset(&ld->node_op[k][n]);
        for (int i = 0; i < 100 + k; i++) {
            pfs_hist_add(&l->run[PFS_LAT_OP], 1000u * (uint64_t)(i + 1));
            pfs_hist_add(&ld->node_op[k][i % NN], 1000u * (uint64_t)(i + 1));
        }
        for (int i = 0; i < 4; i++) {
            pfs_hist_add(&l->run[PFS_LAT_OPEN], 20000);
            pfs_hist_add(&l->run[PFS_LAT_CLOSE], 30000);
        }
        l->valid = 1;
        l->nnodes = NN;
        l->node_op = ld->node_op[k];
        l->t0 = T0 + 10 * k;
        l->dt = 0.5;
        l->base_dt = 0.25;
        l->nint = 3;
        l->first = 0;
        l->start = l->t0 + 0.2; /* the phase: 0.2 .. 1.4 s past the grid's origin */
        l->end = l->t0 + 1.4;
        l->run_ts = ld->run_ts[k];
        l->node_ts = ld->node_ts[k];
        /* Two bricks, the second three times slower. */
        for (int t = 0; t < 2; t++) {
            struct pfs_tg_stat *s = &ld->tg[k][t];
            snprintf(s->name, sizeof(s->name), "vm:/bricks/b%d", t + 1);
            pfs_hist_reset(&s->h);
            for (int i = 0; i < 10; i++)
                pfs_hist_add(&s->h, 1000000u * (uint64_t)(1 + 2 * t));
            s->bytes = 10 * XFER;
        }
        l->tg = ld->tg[k];
        l->ntg = 2;
        for (int i = 0; i < 3; i++) {
            ld->run_ts[k][i].ops = 10u + (uint64_t)i;
            ld->run_ts[k][i].h[pfs_ts_index(5000)] = 10u + (uint32_t)i;
            for (int n = 0; n < NN; n++) {
                struct pfs_node_tslot *ns = &ld->node_ts[k][i * NN + n];
                ns->bytes = (uint64_t)(i + 1) * XFER * (uint64_t)(n + 1);
                ns->ops = (uint64_t)(i + 1) * (uint64_t)(n + 1);
                ns->p50_ns = 1000.0 * (i + 1), ns->p99_ns = 2000.0 * (i + 1), ns->max_ns = 3000.0 * (i + 1);
            }
        }
    }
    for (int p = 0; p < NPH; p++)
        for (int k = 0; k < NREP; k++)
            for (int r = 0; r < NR; r++)
                tm(f, p, k, r)->cpu_user = 0.1 * r, tm(f, p, k, r)->cpu_sys = 0.01;
    f->d.lat = ld->lat;
    return ld;
}

static hid_t rlatsum_type(void)
{
    return table_type("latency_summary", sizeof(struct pfs_lat_sum));
}

static herr_t has_units(hid_t g, const char *name, const H5L_info_t *info, void *bad)
{
    (void)info;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0)
        return -1;
    if (H5Iget_type(o) == H5I_DATASET && H5Aexists(o, "units") <= 0) {
        print_error("dataset %s has no units\n", name);
        (*(int *)bad)++;
    } else if (H5Iget_type(o) == H5I_GROUP) {
        H5Literate(o, H5_INDEX_NAME, H5_ITER_INC, NULL, has_units, bad);
    }
    H5Oclose(o);
    return 0;
}

static void check_lat_hists(struct lat_data *ld, hid_t g)
{
    hsize_t d3[3], d2[2], d1[1];
    uint64_t *c = read_ds(g, "latency", H5T_NATIVE_UINT64, 3, d3);
    assert_int_equal(d3[0], NREP), assert_int_equal(d3[1], PFS_LAT_KINDS), assert_int_equal(d3[2], PFS_HIST_BUCKETS);
    uint64_t *lo = read_ds(g, "latency_bucket_lo", H5T_NATIVE_UINT64, 1, d1);
    uint64_t *hi = read_ds(g, "latency_bucket_hi", H5T_NATIVE_UINT64, 1, d1);
    assert_int_equal(d1[0], PFS_HIST_BUCKETS);
    uint64_t *nc = read_ds(g, "node_latency", H5T_NATIVE_UINT64, 3, d3);
    assert_int_equal(d3[1], NN);
    hid_t st = rlatsum_type();
    struct pfs_lat_sum *sm = read_ds(g, "latency_summary", st, 2, d2);
    assert_int_equal(d2[0], NREP), assert_int_equal(d2[1], PFS_LAT_KINDS);
    struct pfs_lat_sum *nsm = read_ds(g, "node_latency_summary", st, 2, d2);
    assert_int_equal(d2[1], NN);
    H5Tclose(st);
    for (int k = 0; k < NREP; k++) {
        const struct pfs_phase_lat *l = &ld->lat[k];
        uint64_t ops = 0, nops = 0;
        for (unsigned b = 0; b < PFS_HIST_BUCKETS; b++) {
            uint64_t v = c[((size_t)k * PFS_LAT_KINDS + PFS_LAT_OP) * PFS_HIST_BUCKETS + b];
            assert_int_equal(v, l->run[PFS_LAT_OP].b[b]);
            ops += v;
            for (int n = 0; n < NN; n++)
                nops += nc[((size_t)k * NN + (size_t)n) * PFS_HIST_BUCKETS + b];
        }
        assert_int_equal(ops, 100 + k);
        assert_int_equal(nops, 100 + k);
        const struct pfs_lat_sum *o = &sm[k * PFS_LAT_KINDS + PFS_LAT_OP];
        assert_int_equal(o->count, 100 + k);
        assert_int_equal(o->sum_ns, 1000u * (uint64_t)(100 + k) * (uint64_t)(101 + k) / 2);
        assert_near(o->min_ns, 1000, 0);
        assert_near(o->max_ns, 1000.0 * (100 + k), 0);
        assert_near(o->p50_ns, pfs_hist_quantile(&l->run[PFS_LAT_OP], 0.5), 0);
        assert_near(o->p999_ns, pfs_hist_quantile(&l->run[PFS_LAT_OP], 0.999), 0);
        assert_int_equal(sm[k * PFS_LAT_KINDS + PFS_LAT_OPEN].count, 4);
        assert_int_equal(sm[k * PFS_LAT_KINDS + PFS_LAT_FSYNC].count, 0);
        assert_int_equal(nsm[k * NN + 0].count + nsm[k * NN + 1].count, 100 + k);
    }
    for (unsigned b = 0; b < PFS_HIST_BUCKETS; b++)
        assert_true(lo[b] == pfs_hist_bucket_lo(b) && hi[b] == pfs_hist_bucket_hi(b));
    free(c), free(lo), free(hi), free(nc), free(sm), free(nsm);
}

static void check_timeseries(struct lat_data *ld, hid_t g)
{
    hsize_t d2[2], d1[1];
    for (int k = 0; k < NREP; k++) {
        char name[64];
        snprintf(name, sizeof(name), "timeseries/rep_%03d", k);
        hid_t tg = H5Gopen2(g, name, H5P_DEFAULT);
        assert_true(tg >= 0);
        assert_near(attr_dbl(tg, "t0"), T0 + 10 * k, 0);
        assert_near(attr_dbl(tg, "interval"), 0.5, 0);
        assert_near(attr_dbl(tg, "base_interval"), 0.25, 0);
        assert_int_equal(attr_ll(tg, "intervals"), 3);
        /* the intervals' true edges: the phase's start, the grid, the phase's end */
        double *st = read_ds(tg, "start", H5T_NATIVE_DOUBLE, 1, d1), *en = read_ds(tg, "end", H5T_NATIVE_DOUBLE, 1, d1);
        assert_int_equal(d1[0], 3);
        const double want[4] = {0.2, 0.5, 1.0, 1.4};
        for (int i = 0; i < 3; i++) {
            assert_true(fabs(st[i] - (T0 + 10 * k + want[i])) < 1e-6);
            assert_true(fabs(en[i] - (T0 + 10 * k + want[i + 1])) < 1e-6);
        }
        free(st), free(en);
        uint64_t *bytes = read_ds(tg, "bytes", H5T_NATIVE_UINT64, 2, d2);
        assert_int_equal(d2[0], 3), assert_int_equal(d2[1], NN);
        uint64_t sum = 0;
        for (int i = 0; i < 3 * NN; i++)
            sum += bytes[i];
        assert_int_equal(sum, (1 + 2 + 3) * (1 + 2) * XFER);
        double *p99 = read_ds(tg, "p99_ns", H5T_NATIVE_DOUBLE, 2, d2);
        assert_near(p99[2 * NN + 1], ld->node_ts[k][2 * NN + 1].p99_ns, 0);
        uint32_t *h = read_ds(tg, "run_hist", H5T_NATIVE_UINT32, 2, d2);
        assert_int_equal(d2[1], PFS_TS_BUCKETS);
        assert_int_equal(h[2 * PFS_TS_BUCKETS + pfs_ts_index(5000)], 12);
        free(bytes), free(p99), free(h);
        H5Gclose(tg);
    }
    uint64_t *lo = read_ds(g, "timeseries/ts_bucket_lo", H5T_NATIVE_UINT64, 1, d1);
    assert_int_equal(d1[0], PFS_TS_BUCKETS);
    for (unsigned b = 0; b < PFS_TS_BUCKETS; b++)
        assert_int_equal(lo[b], pfs_ts_bucket_lo(b));
    free(lo);
}

struct rcpu {
    double cpu_sys, cpu_user;
};

static void test_latency_round_trip(void **state)
{
    struct fixture *f = *state;
    struct lat_data *ld = lat_fill(f);
    append_ok(f, "/runs/000001");
    hid_t file = open_ro(f->path);
    hid_t g = H5Gopen2(file, "runs/000001/phases/00_write", H5P_DEFAULT);
    assert_true(g >= 0);
    expect_attr_str(g, "latency_kinds", "op,open,fsync,close,response,read,write");
    check_lat_hists(ld, g);
    check_timeseries(ld, g);
    /* Compressed where this HDF5 can. */
    hid_t ds = H5Dopen2(g, "latency", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(ds);
    assert_int_equal(H5Pget_nfilters(dcpl), H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 ? 1 : 0);
    H5Pclose(dcpl), H5Dclose(ds);
    /* CPU per node [rep][node], and per stream in times. */
    hsize_t d2[2];
    double *cu = read_ds(g, "cpu_user", H5T_NATIVE_DOUBLE, 2, d2);
    assert_int_equal(d2[0], NREP), assert_int_equal(d2[1], NN);
    assert_near(cu[1], 0.1 * 1 + 0.1 * 3, 1e-12); /* rep 0, node 1: ranks 1 and 3 */
    free(cu);
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(struct rcpu));
    H5Tinsert(ct, "cpu_user", HOFFSET(struct rcpu, cpu_user), H5T_NATIVE_DOUBLE);
    H5Tinsert(ct, "cpu_sys", HOFFSET(struct rcpu, cpu_sys), H5T_NATIVE_DOUBLE);
    struct rcpu *tc = read_ds(g, "times", ct, 2, d2);
    assert_near(tc[3].cpu_user, 0.3, 1e-12);
    assert_near(tc[3].cpu_sys, 0.01, 1e-12);
    free(tc);
    H5Tclose(ct);
    int bad = 0;
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, has_units, &bad);
    assert_int_equal(bad, 0);
    H5Gclose(g);
    /* The read phase recorded none: its CPU, but no latency datasets. */
    g = H5Gopen2(file, "runs/000001/phases/01_read", H5P_DEFAULT);
    assert_int_equal(H5Lexists(g, "latency", H5P_DEFAULT), 0);
    assert_int_equal(H5Lexists(g, "timeseries", H5P_DEFAULT), 0);
    assert_int_equal(H5Lexists(g, "cpu_sys", H5P_DEFAULT), 1);
    H5Gclose(g);
    H5Fclose(file);
    free(ld);
    /* PFS_TEST_KEEP=PATH keeps the file (docs/results-format.md's h5dump excerpts). */
    const char *keep = getenv("PFS_TEST_KEEP");
    if (keep) {
        char cmd[2048];
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", f->path, keep);
        assert_int_equal(system(cmd), 0);
    }
}

/* ---- the schema is the file ----
 * Every compound the file holds has the schema table's fields, in its
 * order and sizes; every dataset and attribute of a phase group is one the
 * schema lists, and every one it lists for such a phase is there; the
 * reports' figures sit where the datasets' do; the tables' text is ASCII
 * (--list-options=json writes it as is). */

static void expect_compound(hid_t loc, const char *ds_name, const char *table)
{
    const struct pfs_sch_table *t = pfs_schema_table(table);
    hid_t ds = H5Dopen2(loc, ds_name, H5P_DEFAULT), ft = H5Dget_type(ds);
    assert_true(ds >= 0);
    assert_int_equal(H5Tget_nmembers(ft), (int)t->n);
    for (size_t i = 0; i < t->n; i++) {
        char *name = H5Tget_member_name(ft, (unsigned)i);
        hid_t m = H5Tget_member_type(ft, (unsigned)i);
        if (strcmp(name, t->field[i].name))
            fail_msg("%s member %zu: the file's '%s', the schema's '%s'", ds_name, i, name, t->field[i].name);
        if (t->field[i].type == PFS_SCH_STRING)
            assert_true(H5Tget_class(m) == H5T_STRING && H5Tis_variable_str(m) > 0);
        else
            assert_int_equal(H5Tget_size(m), pfs_sch_type_size(t->field[i].type));
        H5Tclose(m);
        H5free_memory(name);
    }
    H5Tclose(ft), H5Dclose(ds);
}

/* Whether the schema lists name (a dataset or group member path) for a phase that has `has` (bits of when). */
static const struct pfs_sch_field *listed(const char *name, unsigned has)
{
    const char *tables[] = {"phase_datasets", "latency_datasets"};
    for (int k = 0; k < 2; k++) {
        const struct pfs_sch_field *f = pfs_schema_field(pfs_schema_table(tables[k]), name);
        if (f && (has & (1u << f->when)))
            return f;
    }
    return NULL;
}

/* Every dataset under a phase group (its path: timeseries/rep_000/bytes
 * is the schema's timeseries/rep_NNN/bytes) is listed for such a phase. */
static herr_t each_ds(hid_t g, const char *name, const H5O_info_t *info, void *arg)
{
    (void)g;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    char path[128];
    snprintf(path, sizeof(path), "%s", name);
    if (!strncmp(name, "timeseries/rep_", 15) && strchr(name + 15, '/'))
        snprintf(path, sizeof(path), "timeseries/rep_NNN%s", strchr(name + 15, '/'));
    if (!listed(path, *(const unsigned *)arg))
        fail_msg("phase dataset %s is not in the schema", name);
    return 0;
}

static herr_t each_attr(hid_t loc, const char *name, const H5A_info_t *info, void *arg)
{
    (void)loc, (void)info, (void)arg;
    if (!pfs_schema_field(pfs_schema_table("phase_attributes"), name))
        fail_msg("phase attribute %s is not in the schema", name);
    return 0;
}

static void expect_phase_listed(hid_t g, unsigned has)
{
    assert_true(H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_INC, each_ds, &has, H5O_INFO_BASIC) >= 0);
    H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, each_attr, NULL);
    /* And the other way: what the schema lists for such a phase is there. */
    const char *tables[] = {"phase_datasets", "latency_datasets", "phase_attributes"};
    for (int k = 0; k < 3; k++) {
        const struct pfs_sch_table *t = pfs_schema_table(tables[k]);
        for (size_t i = 0; i < t->n; i++) {
            const struct pfs_sch_field *f = &t->field[i];
            if (!(has & (1u << f->when)) || !strncmp(f->name, "timeseries/rep_NNN", 18))
                continue;
            int there = k == 2 ? H5Aexists(g, f->name) > 0 : H5Lexists(g, f->name, H5P_DEFAULT) > 0;
            if (!there)
                fail_msg("the schema's %s %s is not in the phase group", tables[k], f->name);
        }
    }
}

static void test_schema_is_the_file(void **state)
{
    struct fixture *f = *state;
    struct lat_data *ld = lat_fill(f);
    for (int k = 0; k < NREP; k++)
        for (int r = 0; r < NR; r++) {
            *tm(f, 0, k, r) = (struct pfs_times){.open_start = tm(f, 0, k, r)->open_start,
                                                 .close_end = tm(f, 0, k, r)->close_end, .bytes = BLOCK,
                                                 .xfers = BLOCK / XFER, .cache_bytes = BLOCK, .cache_dirty = BLOCK / 4,
                                                 .dirty_method = PFS_PC_CACHESTAT};
            tm(f, 1, k, r)->cache_bytes = BLOCK, tm(f, 1, k, r)->cache_resident = BLOCK / 2;
            tm(f, 1, k, r)->cache_method = PFS_PC_MINCORE;
        }
    append_ok(f, "/runs/000001");
    hid_t file = open_ro(f->path);
    expect_compound(file, "summary", "summary");
    hid_t run = H5Gopen2(file, "runs/000001", H5P_DEFAULT);
    expect_compound(run, "placement", "placement");
    expect_compound(run, "phases/00_write/times", "times");
    expect_compound(run, "phases/00_write/latency_summary", "latency_summary");
    expect_compound(run, "phases/00_write/node_latency_summary", "latency_summary");
    expect_compound(run, "phases/00_write/targets", "target");
    expect_compound(run, "phases/00_write/exemplars", "exemplar");
    hid_t g = H5Gopen2(run, "phases/00_write", H5P_DEFAULT);
    expect_phase_listed(g, 1u << PFS_SCH_ALWAYS | 1u << PFS_SCH_DIRTY | 1u << PFS_SCH_LATENCY | 1u << PFS_SCH_TARGETS);
    H5Gclose(g);
    g = H5Gopen2(run, "phases/01_read", H5P_DEFAULT);
    expect_phase_listed(g, 1u << PFS_SCH_ALWAYS | 1u << PFS_SCH_RESIDENT);
    H5Gclose(g), H5Gclose(run), H5Fclose(file);
    free(ld);
    /* The reports' figures are the datasets' where they share a name. */
    const struct pfs_sch_table *rt = pfs_schema_table("report"), *pt = pfs_schema_table("phase_datasets");
    for (size_t i = 0; i < rt->n; i++) {
        const struct pfs_sch_field *a = &rt->field[i], *b = pfs_schema_field(pt, a->name);
        assert_non_null(b);
        assert_int_equal(a->offset, b->offset);
        assert_int_equal(a->type, b->type);
    }
    /* Printable ASCII throughout. */
    for (size_t k = 0; k < pfs_schema_count; k++)
        for (size_t i = 0; i < pfs_schema[k].n; i++) {
            const struct pfs_sch_field *x = &pfs_schema[k].field[i];
            const char *txt[] = {x->name, x->unit, x->meaning, x->shape, x->units, x->json, x->csv, x->compound};
            for (size_t j = 0; j < sizeof(txt) / sizeof(txt[0]); j++)
                for (const char *c = txt[j]; c && *c; c++)
                    if (*c < 0x20 || *c > 0x7e)
                        fail_msg("schema %s.%s: not printable ASCII", pfs_schema[k].name, x->name);
        }
}

static void test_mpi_never_initialized(void **state)
{
    (void)state;
    int init = 1, fin = 1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    assert_int_equal(init, 0);
    assert_int_equal(fin, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_one_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_three_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_to_fixed_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_rejects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_keeps_old_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_appends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads_and_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlinked_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mode_and_owner_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_up_front, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_file_excludes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_latency_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_is_the_file, setup, teardown),
        cmocka_unit_test(test_mpi_never_initialized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
