/* libFuzzer target for the results file's structure check
 * (src/results/image.c, pfs_res_check_structure): the check a results file
 * passes before a run, and again under the lock before the append.
 * Built and run by scripts/fuzz.sh (FUZZ_TARGET=results); the committed
 * corpus (tests/fuzz/corpus_results/) is replayed by
 * tests/mpi/test_fuzz_corpus.sh.
 *
 * Input: not the file's bytes (HDF5 itself is not fuzzed: its own parser
 * of damaged files is out of reach here), but choices, one byte each, of
 * what a user with h5py could make: the root attributes format and
 * format_version of any class, size and shape (absent, empty, arrays of 0
 * to 4, 2-D); /runs as a group, a dataset, a soft, dangling or external
 * link, with members of run-like and other names, of any kind; /summary
 * as any of those, or a dataset whose fields are pfsbench's own with some
 * dropped, retyped (integers and floats of each width, strings fixed or
 * variable, enumerations, arrays, opaque bytes) or added, of one or two
 * dimensions, chunked, contiguous or compact, growable or not, through
 * filters HDF5 has or lacks, with rows whose run numbers are small,
 * large, negative or at the limit. The file is built in memory (HDF5's
 * core driver, no backing store): nothing touches the disk. A byte string
 * that runs out leaves the remaining choices at 0, the valid ones.
 *
 * Promises checked (a broken one aborts: a finding):
 *  - a refusal comes with a non-empty, printable message;
 *  - a file the check accepts takes a real run: the append's in-place
 *    path (pfs_res_build_overlay, over a memfd) succeeds, names the run /runs/NNNNNN with the number the check gave,
 *    and /summary's new row holds that number, unclamped.
 * Memory errors and undefined behaviour in pfsbench's code (built with
 * ASan and UBSan; HDF5 is not instrumented) are findings too.
 *
 * PFS_FUZZ_VERBOSE=1 prints each input's verdict. The committed seeds are
 * named by theirs (accepted-next-N, refused-WHY), which
 * tests/mpi/test_fuzz_corpus.sh checks on replay: a change to the order of
 * the choices below changes what the seeds build, so rename or replace
 * them with it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "results_int.h"

struct in {
    const uint8_t *p;
    size_t n;
};

/* The next choice among k, 0 once the input is spent. */
static unsigned pick(struct in *in, unsigned k)
{
    if (in->n == 0 || k <= 1)
        return 0;
    unsigned v = *in->p++;
    in->n--;
    return v % k;
}

static hid_t str_type(int vlen, size_t n, H5T_cset_t cs, H5T_str_t pad)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, vlen ? H5T_VARIABLE : n);
    H5Tset_cset(t, cs);
    if (!vlen)
        H5Tset_strpad(t, pad);
    return t;
}

/* An attribute of type t and shape: 0 scalar, 1 null, 2 [n], 3 [2][2]. */
static void put_attr(hid_t obj, const char *name, hid_t t, int shape, hsize_t n, const void *buf)
{
    hsize_t d2[2] = {2, 2};
    hid_t s = shape == 0 ? H5Screate(H5S_SCALAR) : shape == 1 ? H5Screate(H5S_NULL)
              : shape == 2 ? H5Screate_simple(1, &n, NULL) : H5Screate_simple(2, d2, NULL);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0 && shape != 1)
        H5Awrite(a, t, buf);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
}

static void make_format(hid_t f, struct in *in)
{
    const char *v[4] = {"pfsbench-results", "pfsbench-results", "pfsbench-results", "pfsbench-results"};
    const char *other[4] = {"h5bench-results", "", "pfsbench-results ", "pfsbench"};
    char fixed[4][24];
    unsigned c = pick(in, 16), n = pick(in, 5);
    for (int i = 0; i < 4; i++)
        snprintf(fixed[i], sizeof(fixed[i]), "%-23s", c == 5 ? other[i] : v[i]);
    hid_t vs = str_type(1, 0, pick(in, 2) ? H5T_CSET_UTF8 : H5T_CSET_ASCII, H5T_STR_NULLTERM);
    hid_t fs = str_type(0, 24, H5T_CSET_ASCII, pick(in, 2) ? H5T_STR_SPACEPAD : H5T_STR_NULLTERM);
    long long i64 = 7;
    double d = 1.0;
    switch (c) {
    case 1: put_attr(f, "format", vs, 0, 1, other + pick(in, 4)); break;
    case 2: put_attr(f, "format", fs, 0, 1, fixed); break;
    case 3: put_attr(f, "format", vs, 2, n, v); break;
    case 4: put_attr(f, "format", fs, 2, n, fixed); break;
    case 5: put_attr(f, "format", fs, 0, 1, fixed); break;
    case 6: put_attr(f, "format", H5T_NATIVE_LLONG, 0, 1, &i64); break;
    case 7: put_attr(f, "format", H5T_NATIVE_DOUBLE, 0, 1, &d); break;
    case 8: put_attr(f, "format", vs, 1, 0, NULL); break;
    case 9: break; /* absent */
    case 10: put_attr(f, "format", vs, 3, 4, v); break;
    default: put_attr(f, "format", vs, 0, 1, v); break;
    }
    H5Tclose(vs);
    H5Tclose(fs);
}

static void make_version(hid_t f, struct in *in)
{
    const long long vals[8] = {1, 1, 1, 0, 2, -1, 99, INT64_MAX};
    long long v[4] = {1, 1, 1, 1};
    v[0] = vals[pick(in, 8)];
    const signed char i8 = 1;
    const uint64_t big = UINT64_MAX;
    const double d = 1.0;
    const char *s = "1";
    hid_t vs = str_type(1, 0, H5T_CSET_UTF8, H5T_STR_NULLTERM);
    switch (pick(in, 12)) {
    case 1: put_attr(f, "format_version", H5T_NATIVE_SCHAR, 0, 1, &i8); break;
    case 2: put_attr(f, "format_version", H5T_NATIVE_UINT64, 0, 1, &big); break;
    case 3: put_attr(f, "format_version", H5T_NATIVE_LLONG, 2, pick(in, 5), v); break;
    case 4: put_attr(f, "format_version", H5T_NATIVE_DOUBLE, 0, 1, &d); break;
    case 5: put_attr(f, "format_version", vs, 0, 1, &s); break;
    case 6: put_attr(f, "format_version", H5T_NATIVE_LLONG, 1, 0, NULL); break;
    case 7: break; /* absent */
    case 8: put_attr(f, "format_version", H5T_NATIVE_LLONG, 3, 4, v); break;
    default: put_attr(f, "format_version", H5T_NATIVE_LLONG, 0, 1, v); break;
    }
    H5Tclose(vs);
}

/* At loc/name: 0 a group, 1 a dataset, 2 a soft link to target, 3 a soft
 * link to nothing, 4 an external link. */
static void make_object(hid_t loc, const char *name, unsigned kind, const char *target)
{
    hsize_t three = 3;
    hid_t s, d, g;
    switch (kind) {
    case 1:
        s = H5Screate_simple(1, &three, NULL);
        d = H5Dcreate2(loc, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (d >= 0)
            H5Dclose(d);
        H5Sclose(s);
        break;
    case 2: H5Lcreate_soft(target, loc, name, H5P_DEFAULT, H5P_DEFAULT); break;
    case 3: H5Lcreate_soft("/nothing/here", loc, name, H5P_DEFAULT, H5P_DEFAULT); break;
    case 4: H5Lcreate_external("elsewhere.h5", "/x", loc, name, H5P_DEFAULT, H5P_DEFAULT); break;
    default:
        g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g >= 0)
            H5Gclose(g);
    }
}

static void make_runs(hid_t f, struct in *in)
{
    static const char *const names[10] = {"000001", "000002", "7",          "000010",     "notes",
                                          "-1",     "0001x",  "2147483646", "2147483647", "99999999999"};
    switch (pick(in, 10)) {
    case 5: return; /* absent */
    case 6: make_object(f, "runs", 1, NULL); break;
    case 7:
        make_object(f, "moved_runs", 0, NULL);
        make_object(f, "runs", 2, "/moved_runs");
        break;
    case 8: make_object(f, "runs", 3, NULL); break;
    case 9: make_object(f, "runs", 4, NULL); break;
    default: make_object(f, "runs", 0, NULL);
    }
    hid_t g = H5Oexists_by_name(f, "runs", H5P_DEFAULT) > 0 ? H5Oopen(f, "runs", H5P_DEFAULT) : -1;
    if (g >= 0 && H5Iget_type(g) == H5I_GROUP) {
        make_object(g, "000001", 0, NULL);
        for (unsigned i = 0, k = pick(in, 5); i < k; i++) {
            const char *nm = names[pick(in, 10)];
            if (H5Lexists(g, nm, H5P_DEFAULT) <= 0)
                make_object(g, nm, pick(in, 5), "/runs/000001");
        }
    }
    if (g >= 0)
        H5Oclose(g);
}

/* pfsbench's /summary fields, as results_h5.c writes them: 0 int32, 1
 * text, 2 uint64, 3 double. A table of fewer or other fields is made by
 * changing this list, so a new field in the schema is simply absent here
 * (an older pfsbench's table), which the check must accept. */
static const struct {
    const char *name;
    int kind;
} FIELDS[] = {{"run", 0},          {"run_id", 1},       {"label", 1},       {"status", 1},
              {"phase", 1},        {"rep", 0},          {"ranks", 0},       {"nodes", 0},
              {"threads", 0},      {"transfer", 2},     {"block", 2},       {"bytes", 2},
              {"seconds", 3},      {"bandwidth", 3},    {"utilization", 3}, {"stonewall_bandwidth", 3},
              {"stonewall_rate", 3}, {"ops", 2},        {"rate", 3},        {"warmup", 0}};
#define NFIELDS (sizeof(FIELDS) / sizeof(FIELDS[0]))

/* A field's type: its own (strings vlen or fixed as the table's), or another. */
static hid_t field_type(int kind, int fixed, unsigned other)
{
    if (other == 0) {
        if (kind == 1)
            return str_type(!fixed, 64, H5T_CSET_UTF8, H5T_STR_NULLTERM);
        return H5Tcopy(kind == 0 ? H5T_NATIVE_INT : kind == 2 ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE);
    }
    const hid_t nums[8] = {H5T_NATIVE_SCHAR, H5T_NATIVE_UCHAR, H5T_NATIVE_SHORT, H5T_NATIVE_INT,
                           H5T_NATIVE_LLONG, H5T_NATIVE_UINT64, H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE};
    hsize_t two = 2;
    int zero = 0, one = 1;
    hid_t t;
    switch (other) {
    case 9: return str_type(1, 0, H5T_CSET_ASCII, H5T_STR_NULLTERM);
    case 10: return str_type(0, 8, H5T_CSET_ASCII, H5T_STR_SPACEPAD);
    case 11:
        t = H5Tenum_create(H5T_NATIVE_INT);
        H5Tenum_insert(t, "zero", &zero);
        H5Tenum_insert(t, "one", &one);
        return t;
    case 12: return H5Tarray_create2(H5T_NATIVE_INT, 1, &two);
    case 13:
        t = H5Tcreate(H5T_OPAQUE, 4);
        H5Tset_tag(t, "fuzz");
        return t;
    case 14: return H5Tcopy(H5T_NATIVE_B8);
    default: return H5Tcopy(nums[(other - 1) % 8]);
    }
}

/* The compound type of a /summary: pfsbench's fields, some dropped or
 * retyped, maybe one added. */
static hid_t summary_file_type(struct in *in)
{
    int fixed = pick(in, 3) == 1;
    hid_t parts[NFIELDS + 1];
    const char *names[NFIELDS + 1];
    size_t n = 0, size = 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        unsigned c = pick(in, 12);
        if (c == 9)
            continue; /* dropped */
        parts[n] = field_type(FIELDS[i].kind, fixed, c == 10 ? 1 + pick(in, 14) : 0);
        names[n] = FIELDS[i].name;
        size += H5Tget_size(parts[n++]);
    }
    unsigned extra = pick(in, 4);
    if (extra) {
        parts[n] = field_type(3, 0, extra == 1 ? 0 : 9);
        names[n] = extra == 3 ? "note" : "comment";
        size += H5Tget_size(parts[n++]);
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, size ? size : 1);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        H5Tinsert(t, names[i], off, parts[i]);
        off += H5Tget_size(parts[i]);
        H5Tclose(parts[i]);
    }
    return t;
}

/* rows rows into ds, zero but for the run field, when it is a number. */
static void summary_rows(hid_t ds, hid_t ft, hsize_t rows, struct in *in)
{
    if (rows == 0 || H5Tget_class(ft) != H5T_COMPOUND)
        return;
    hid_t mt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
    size_t sz = H5Tget_size(mt);
    char *buf = calloc(rows, sz);
    int i = H5Tget_member_index(mt, "run");
    hid_t rt = i >= 0 ? H5Tget_member_type(mt, (unsigned)i) : -1;
    const long long runs[8] = {1, 2, 3, 0, 256, 70000, -1, 2147483647};
    for (hsize_t r = 0; buf && rt >= 0 && r < rows; r++) {
        long long v = runs[pick(in, 8)];
        char *at = buf + r * sz + H5Tget_member_offset(mt, (unsigned)i);
        /* HDF5 converts the value into the field's own type. */
        H5T_class_t c = H5Tget_class(rt);
        size_t fs = H5Tget_size(rt);
        if (c == H5T_INTEGER || c == H5T_FLOAT) {
            char conv[16] = {0};
            memcpy(conv, &v, sizeof(v));
            if (H5Tconvert(H5T_NATIVE_LLONG, rt, 1, conv, NULL, H5P_DEFAULT) >= 0 && fs <= sizeof(conv))
                memcpy(at, conv, fs);
        }
    }
    if (buf)
        H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (rt >= 0)
        H5Tclose(rt);
    if (buf) {
        hid_t sp = H5Dget_space(ds);
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
        H5Sclose(sp);
    }
    free(buf);
    H5Tclose(mt);
}

static void make_summary_dataset(hid_t f, const char *name, struct in *in)
{
    unsigned tk = pick(in, 12);
    hid_t ft = tk == 10 ? H5Tcopy(H5T_NATIVE_INT) : tk == 11 ? H5Tcopy(H5T_NATIVE_DOUBLE) : summary_file_type(in);
    hsize_t rows = pick(in, 7), dims[2] = {rows, 2}, maxd[2] = {H5S_UNLIMITED, 2}, chunk[2] = {1 + pick(in, 8), 2};
    int rank = pick(in, 10) == 9 ? 2 : 1;
    unsigned lay = pick(in, 8), grow = pick(in, 6);
    if (grow == 4)
        maxd[0] = rows;
    else if (grow == 5)
        maxd[0] = rows + 3;
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    if (lay == 6) {
        H5Pset_layout(pl, H5D_CONTIGUOUS);
        maxd[0] = rows;
    } else if (lay == 7) {
        H5Pset_layout(pl, H5D_COMPACT);
        maxd[0] = rows;
    } else {
        H5Pset_chunk(pl, rank, chunk);
        switch (pick(in, 7)) {
        case 4: H5Pset_deflate(pl, 1); break;
        case 5: H5Pset_shuffle(pl), H5Pset_deflate(pl, 1); break;
        case 6: H5Pset_fletcher32(pl); break;
        case 3: H5Pset_filter(pl, 32000, H5Z_FLAG_OPTIONAL, 0, NULL); break; /* h5py's lzf, absent here */
        default: break;
        }
    }
    hid_t s = H5Screate_simple(rank, dims, maxd);
    hid_t ds = H5Dcreate2(f, name, ft, s, H5P_DEFAULT, pl, H5P_DEFAULT);
    if (ds >= 0) {
        summary_rows(ds, ft, rank == 1 ? rows : 0, in);
        H5Dclose(ds);
    }
    H5Sclose(s);
    H5Pclose(pl);
    H5Tclose(ft);
}

static void make_summary(hid_t f, struct in *in)
{
    switch (pick(in, 10)) {
    case 5: return; /* absent */
    case 6: make_object(f, "summary", 0, NULL); return;
    case 7: make_object(f, "summary", 4, NULL); return;
    case 8: make_object(f, "summary", 3, NULL); return;
    case 9:
        make_summary_dataset(f, "moved_summary", in);
        make_object(f, "summary", 2, "/moved_summary");
        return;
    default: make_summary_dataset(f, "summary", in);
    }
}

static hid_t core_fapl(const void *img, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    if (img)
        H5Pset_file_image(fapl, (void *)img, n);
    return fapl;
}

/* The file the choices make, as its bytes (malloc'ed), or NULL. */
static char *build(struct in *in, size_t *n)
{
    hid_t fapl = core_fapl(NULL, 0);
    hid_t f = H5Fcreate("fuzz-build.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return NULL;
    make_format(f, in);
    make_version(f, in);
    make_runs(f, in);
    make_summary(f, in);
    char *img = NULL;
    ssize_t sz = H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(f, NULL, 0);
    if (sz > 0 && (img = malloc((size_t)sz)) && H5Fget_file_image(f, img, (size_t)sz) == sz)
        *n = (size_t)sz;
    else
        free(img), img = NULL;
    H5Fclose(f);
    return img;
}

static void finding(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_results: broken promise: %s: %s\n", what, detail);
    abort();
}

/* A one-rank, one-phase, one-repetition run. */
struct run {
    struct pfs_config cfg;
    struct pfs_run_data d;
    char hosts[1][PFS_HOST_MAX];
    int node[1];
    double corr[1], unc[1];
    struct pfs_times times[1];
    int reps_done[1];
};

static void make_run(struct run *r)
{
    memset(r, 0, sizeof(*r));
    pfs_config_defaults(&r->cfg);
    r->cfg.transfer = 1 << 20;
    r->cfg.block = 4 << 20;
    r->cfg.phases[0] = PFS_PH_WRITE;
    r->cfg.nphases = 1;
    r->cfg.reps = 1;
    snprintf(r->hosts[0], PFS_HOST_MAX, "node1");
    r->times[0] = (struct pfs_times){.open_start = 1.7e9, .close_end = 1.7e9 + 1, .xfer_end = 1.7e9 + 1,
                                     .bytes = 4 << 20, .xfers = 4};
    r->reps_done[0] = 1;
    struct pfs_run_data *d = &r->d;
    d->cfg = &r->cfg;
    snprintf(d->run_id, sizeof(d->run_id), "fuzz");
    d->status = "complete";
    d->nranks = d->nnodes = 1;
    d->hosts = (const char(*)[PFS_HOST_MAX])r->hosts;
    d->node_of_rank = r->node;
    d->clock_corr = r->corr;
    d->clock_unc = r->unc;
    d->nphases = d->reps = 1;
    d->times = r->times;
    d->reps_done = r->reps_done;
    if (pfs_run_figures(d) != 0)
        finding("the run's figures", "cannot be computed");
}

/* The new file holds run next's one row last, its run field next. */
static void check_appended(const char *img, size_t n, int next)
{
    hid_t fapl = core_fapl(img, n);
    hid_t f = H5Fopen("fuzz-appended.h5", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0)
        finding("the appended file", "does not open");
    hid_t ds = H5Dopen2(f, "summary", H5P_DEFAULT), sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hsize_t rows = 0;
    if (sp >= 0)
        H5Sget_simple_extent_dims(sp, &rows, NULL);
    long long *v = rows ? calloc(rows, sizeof(*v)) : NULL;
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(long long));
    H5Tinsert(t, "run", 0, H5T_NATIVE_LLONG);
    if (!v || H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        finding("the appended file", "its /summary's run column cannot be read");
    if (v[rows - 1] != next) {
        char m[96];
        snprintf(m, sizeof(m), "the new row says run %lld, the group %d", v[rows - 1], next);
        finding("the appended file", m);
    }
    free(v);
    H5Tclose(t), H5Sclose(sp), H5Dclose(ds), H5Fclose(f);
}

static int verbose; /* PFS_FUZZ_VERBOSE=1: each input's verdict on stderr */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *v = getenv("PFS_FUZZ_VERBOSE");
    verbose = v && strcmp(v, "1") == 0;
    return 0;
}

/* The append's own path for an existing file, all in memory: img in a
 * memfd, the run added through the overlay driver (pfs_res_build_overlay),
 * and the file it would leave (img under the overlay, cut or grown to its
 * new size) into *out. */
static int append_in_memory(struct target *t, const char *img, size_t n, const struct pfs_run_data *d, char *name,
                            size_t namelen, char **out, size_t *outn, char *err, size_t len)
{
    int fd = memfd_create("fuzz-results", MFD_CLOEXEC);
    if (fd < 0 || write(fd, img, n) != (ssize_t)n)
        finding("a memfd for the file", strerror(errno));
    snprintf(t->path, sizeof(t->path), "/proc/self/fd/%d", fd);
    struct pfs_ovl *o = pfs_res_ovl_new(fd, (off_t)n);
    int rc = o ? pfs_res_build_overlay(t, o, d, name, namelen, err, len) : -1;
    *out = NULL, *outn = 0;
    if (rc == 0) {
        *outn = (size_t)o->eof;
        *out = calloc(1, *outn + 1);
        memcpy(*out, img, n < *outn ? n : *outn);
        for (size_t i = 0; i < o->n; i++)
            memcpy(*out + o->e[i].addr, o->e[i].p, o->e[i].len);
    }
    pfs_res_ovl_free(o);
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = {data, size};
    size_t n = 0;
    char *img = build(&in, &n);
    if (!img)
        return 0;
    hid_t fapl = core_fapl(img, n);
    hid_t f = H5Fopen("fuzz-check.h5", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    char err[PFS_ERRLEN] = "";
    int next = 0, rc = f >= 0 ? pfs_res_check_structure(f, "fuzz.h5", &next, err, sizeof(err)) : -2;
    if (f >= 0)
        H5Fclose(f);
    if (verbose)
        fprintf(stderr, rc == 0 ? "accepted: the next run is %d\n" : "refused (%d): %s\n", rc == 0 ? next : rc, err);
    if (rc == -1) {
        if (!err[0])
            finding("a refusal", "no message");
        for (const char *p = err; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                finding("a refusal's message is not printable", err);
    } else if (rc == 0) {
        struct run *r = malloc(sizeof(*r));
        make_run(r);
        struct target t;
        memset(&t, 0, sizeof(t));
        snprintf(t.given, sizeof(t.given), "fuzz.h5");
        snprintf(t.tmp, sizeof(t.tmp), "/nonexistent-pfsbench-fuzz/.fuzz.h5.tmp");
        char name[64] = "", want[64], *out = NULL;
        size_t outn = 0;
        if (append_in_memory(&t, img, n, &r->d, name, sizeof(name), &out, &outn, err, sizeof(err)) != 0)
            finding("a file the check accepted cannot take a run", err);
        snprintf(want, sizeof(want), "/runs/%06d", next);
        if (strcmp(name, want) != 0)
            finding("the run's name is not the number the check gave", name);
        check_appended(out, outn, next);
        free(out);
        pfs_run_release(&r->d);
        free(r);
    }
    free(img);
    return 0;
}
