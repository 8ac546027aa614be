/* The HDF5 results file's schema: the run group and its attributes, the
 * placement table, one group per phase, the summary table. The file as a
 * whole is image.c; the append's integrity steps are append.c. Only
 * src/results/ speaks HDF5. */
#define _GNU_SOURCE
#include "results_int.h"
#include "cache_h5.h"
#include "latency_h5.h"

#include "pfs/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STR_SHORT 64
#define STR_LABEL 128

const char *pfs_results_hdf5_version(void)
{
    static char v[32];
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    snprintf(v, sizeof(v), "%u.%u.%u", maj, min, rel);
    return v;
}

/* ---- small attribute helpers ---- */

int pfs_res_attr_str(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    const char *v = val ? val : "";
    herr_t rc = a < 0 ? -1 : H5Awrite(a, t, &v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    return rc < 0 ? -1 : 0;
}

int pfs_res_attr_num(hid_t obj, const char *name, hid_t type, const void *val)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, val);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return rc < 0 ? -1 : 0;
}

static int attr_int(hid_t obj, const char *name, long long v)
{
    return pfs_res_attr_num(obj, name, H5T_NATIVE_LLONG, &v);
}

static int attr_u64(hid_t obj, const char *name, uint64_t v)
{
    return pfs_res_attr_num(obj, name, H5T_NATIVE_UINT64, &v);
}

static int attr_dbl(hid_t obj, const char *name, double v)
{
    return pfs_res_attr_num(obj, name, H5T_NATIVE_DOUBLE, &v);
}

/* One option's attribute; a key the run group already holds (dir, label:
 * run facts written above) keeps what it has. */
static int attr_field(void *arg, const struct pfs_field *f)
{
    hid_t g = *(const hid_t *)arg;
    if (H5Aexists(g, f->key) > 0)
        return 0;
    switch (f->type) {
    case PFS_FIELD_INT: return attr_int(g, f->key, f->i);
    case PFS_FIELD_U64: return attr_u64(g, f->key, f->u);
    case PFS_FIELD_DBL: return attr_dbl(g, f->key, f->d);
    default: return pfs_res_attr_str(g, f->key, f->s);
    }
}

static hid_t str_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

/* The string type of every compound field and string dataset: UTF-8,
 * variable-length (h5py gives str or bytes, never padded, never cut). */
static hid_t vstr_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* src into dst[n] for a fixed-length field of an older file's table: cut,
 * when it must be, before a UTF-8 character, never inside one. */
static void copy_fixed(char *dst, size_t n, const char *src)
{
    size_t len = src ? strlen(src) : 0;
    if (len >= n) {
        len = n - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--;
    }
    if (len)
        memcpy(dst, src, len);
    dst[len] = '\0';
}

/* A dataset with a units attribute: its file type ftype, written from
 * memory laid out as mtype. */
static int write_typed(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                       const void *data, const char *units)
{
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(loc, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 ? -1 : (H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ? -1 : 0);
    if (ds >= 0) {
        if (rc == 0 && units)
            rc = pfs_res_attr_str(ds, "units", units);
        H5Dclose(ds);
    }
    H5Sclose(s);
    return rc;
}

/* A dataset of doubles or integers with a units attribute. */
static int write_array(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data,
                       const char *units)
{
    return write_typed(loc, name, type, type, rank, dims, data, units);
}

/* A compound memory type's file type: its members packed, without the
 * gaps where the memory row keeps what is not written. */
static hid_t packed(hid_t mtype)
{
    hid_t t = H5Tcopy(mtype);
    H5Tpack(t);
    return t;
}

/* ---- the summary table ---- */

/* A row holds its text twice: as pointers (the variable-length UTF-8
 * fields every file made by this pfsbench has) and as fixed-length copies
 * (for appending to a file whose /summary an older pfsbench made with
 * fixed-length fields: HDF5 converts none into the other, and one
 * dataset keeps one type). summary_type picks one of the two by name. */
struct summary_row {
    int run;
    const char *run_id, *label, *status, *phase;
    char run_id_f[STR_SHORT];
    char label_f[STR_LABEL];
    char status_f[16];
    char phase_f[16];
    int rep;
    int ranks;
    int nodes;
    int threads;
    uint64_t transfer;
    uint64_t block;
    uint64_t bytes;
    double seconds;
    double bandwidth;
    double utilization;
    double stonewall_bandwidth;
    double stonewall_rate;
    uint64_t ops;
    double rate;
    int warmup; /* 1: a warm-up repetition, left out of the statistics */
};

static const char *const SUMMARY_STR[4] = {"run_id", "label", "status", "phase"};

/* The character set of string field name of an existing table's type
 * (ASCII when it has no such field). */
static H5T_cset_t field_cset(hid_t file_type, const char *name)
{
    H5T_cset_t cs = H5T_CSET_ASCII;
    int i = file_type >= 0 ? H5Tget_member_index(file_type, name) : -1;
    if (i >= 0) {
        hid_t m = H5Tget_member_type(file_type, (unsigned)i);
        if (H5Tget_class(m) == H5T_STRING)
            cs = H5Tget_cset(m);
        H5Tclose(m);
    }
    return cs;
}

/* The memory type of a row: variable-length strings, or (fixed >= 0: the
 * file type of an older table) the fixed-length copies in its character set. */
static hid_t summary_type(hid_t fixed)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct summary_row));
    H5Tinsert(t, "run", HOFFSET(struct summary_row, run), H5T_NATIVE_INT);
    const size_t voff[4] = {HOFFSET(struct summary_row, run_id), HOFFSET(struct summary_row, label),
                            HOFFSET(struct summary_row, status), HOFFSET(struct summary_row, phase)};
    const size_t foff[4] = {HOFFSET(struct summary_row, run_id_f), HOFFSET(struct summary_row, label_f),
                            HOFFSET(struct summary_row, status_f), HOFFSET(struct summary_row, phase_f)};
    const size_t flen[4] = {STR_SHORT, STR_LABEL, 16, 16};
    for (int i = 0; i < 4; i++) {
        hid_t st = fixed >= 0 ? str_type(flen[i]) : vstr_type();
        if (fixed >= 0)
            H5Tset_cset(st, field_cset(fixed, SUMMARY_STR[i]));
        H5Tinsert(t, SUMMARY_STR[i], fixed >= 0 ? foff[i] : voff[i], st);
        H5Tclose(st);
    }
    H5Tinsert(t, "rep", HOFFSET(struct summary_row, rep), H5T_NATIVE_INT);
    H5Tinsert(t, "ranks", HOFFSET(struct summary_row, ranks), H5T_NATIVE_INT);
    H5Tinsert(t, "nodes", HOFFSET(struct summary_row, nodes), H5T_NATIVE_INT);
    H5Tinsert(t, "threads", HOFFSET(struct summary_row, threads), H5T_NATIVE_INT);
    H5Tinsert(t, "transfer", HOFFSET(struct summary_row, transfer), H5T_NATIVE_UINT64);
    H5Tinsert(t, "block", HOFFSET(struct summary_row, block), H5T_NATIVE_UINT64);
    H5Tinsert(t, "bytes", HOFFSET(struct summary_row, bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, "seconds", HOFFSET(struct summary_row, seconds), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "bandwidth", HOFFSET(struct summary_row, bandwidth), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "utilization", HOFFSET(struct summary_row, utilization), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "stonewall_bandwidth", HOFFSET(struct summary_row, stonewall_bandwidth), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "stonewall_rate", HOFFSET(struct summary_row, stonewall_rate), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "ops", HOFFSET(struct summary_row, ops), H5T_NATIVE_UINT64);
    H5Tinsert(t, "rate", HOFFSET(struct summary_row, rate), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "warmup", HOFFSET(struct summary_row, warmup), H5T_NATIVE_INT);
    return t;
}

/* Whether an existing /summary has fixed-length string fields (made by a
 * pfsbench before they were variable-length): its run_id says. */
static int summary_is_fixed(hid_t ds)
{
    hid_t ft = H5Dget_type(ds);
    int fixed = 0, i = H5Tget_member_index(ft, "run_id");
    if (i >= 0) {
        hid_t m = H5Tget_member_type(ft, (unsigned)i);
        fixed = H5Tget_class(m) == H5T_STRING && H5Tis_variable_str(m) <= 0;
        H5Tclose(m);
    }
    H5Tclose(ft);
    return fixed;
}

hid_t pfs_res_summary_mem_type(hid_t ds)
{
    hid_t ft = summary_is_fixed(ds) ? H5Dget_type(ds) : -1;
    hid_t t = summary_type(ft);
    if (ft >= 0)
        H5Tclose(ft);
    return t;
}

#define SUMMARY_UNITS                                                                                       \
    "transfer, block, bytes: bytes; seconds: s; bandwidth, stonewall_bandwidth: bytes/s (1024-based MiB = "     \
    "1048576 bytes); utilization: fraction; ops: transfers (data phases) or files (metadata phases); rate, "   \
    "stonewall_rate: ops/s; warmup: 1 for a warm-up repetition (left out of the statistics); run_id, label, " \
    "status, phase: text (UTF-8)"

static hid_t create_summary(hid_t file)
{
    hid_t m = summary_type(-1), t = packed(m);
    H5Tclose(m);
    hsize_t dims = 0, maxd = H5S_UNLIMITED, chunk = 64;
    hid_t s = H5Screate_simple(1, &dims, &maxd);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, 1, &chunk);
    hid_t ds = H5Dcreate2(file, "summary", t, s, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Pclose(pl);
    H5Sclose(s);
    H5Tclose(t);
    if (ds >= 0 && pfs_res_attr_str(ds, "units", SUMMARY_UNITS) != 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* Appends n rows to /summary, made here with variable-length strings. A
 * table an older pfsbench made keeps its fixed-length fields: the rows go
 * in as their fixed-length copies, so the file stays one readable table. */
static int append_summary(hid_t file, struct summary_row *rows, hsize_t n)
{
    hid_t ds = H5Lexists(file, "summary", H5P_DEFAULT) > 0 ? H5Dopen2(file, "summary", H5P_DEFAULT)
                                                            : create_summary(file);
    if (ds < 0)
        return -1;
    int rc = 0;
    hid_t ft = summary_is_fixed(ds) ? H5Dget_type(ds) : -1;
    hid_t t = summary_type(ft);
    if (ft >= 0) {
        for (hsize_t i = 0; i < n; i++) {
            copy_fixed(rows[i].run_id_f, sizeof(rows[i].run_id_f), rows[i].run_id);
            copy_fixed(rows[i].label_f, sizeof(rows[i].label_f), rows[i].label);
            copy_fixed(rows[i].status_f, sizeof(rows[i].status_f), rows[i].status);
            copy_fixed(rows[i].phase_f, sizeof(rows[i].phase_f), rows[i].phase);
        }
        H5Tclose(ft);
    }
    if (n > 0) {
        hid_t fs = H5Dget_space(ds);
        hsize_t cur;
        H5Sget_simple_extent_dims(fs, &cur, NULL);
        H5Sclose(fs);
        hsize_t newsize = cur + n;
        rc = -1;
        if (H5Dset_extent(ds, &newsize) >= 0) {
            fs = H5Dget_space(ds);
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, &cur, NULL, &n, NULL);
            hid_t ms = H5Screate_simple(1, &n, NULL);
            rc = H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, rows) < 0 ? -1 : 0;
            H5Sclose(ms);
            H5Sclose(fs);
        }
    }
    H5Tclose(t);
    H5Dclose(ds);
    return rc;
}

/* ---- one run ---- */

/* The text fields are pointers (variable-length UTF-8 in the file) into
 * the row's own NUL-terminated copies. */
struct placement_row {
    int rank;
    int node;
    const char *host;
    double clock_correction;
    double clock_uncertainty;
    int reads_from_rank;
    int reads_from_node;
    const char *cpu_affinity; /* appended: older files lack the three */
    int32_t cpus;
    const char *numa_nodes;
    char host_b[PFS_HOST_MAX];
    char cpu_affinity_b[PFS_CPULIST_MAX];
    char numa_nodes_b[PFS_NUMALIST_MAX];
};

/* node_hosts [K]: each node's host name, so that every [..][K] dataset of
 * the phases can be labelled without the placement table. */
static int write_node_hosts(hid_t g, const struct pfs_run_data *d)
{
    size_t k = (size_t)(d->nnodes > 0 ? d->nnodes : 1);
    char(*h)[PFS_HOST_MAX] = calloc(k, PFS_HOST_MAX);
    const char **p = calloc(k, sizeof(*p));
    if (!h || !p) {
        free(h), free(p);
        return -1;
    }
    for (int r = d->nranks - 1; r >= 0; r--) /* the lowest rank of a node names it */
        if (d->node_of_rank[r] >= 0 && d->node_of_rank[r] < d->nnodes)
            memcpy(h[d->node_of_rank[r]], d->hosts[r], PFS_HOST_MAX - 1);
    for (size_t i = 0; i < k; i++)
        p[i] = h[i];
    hid_t t = vstr_type();
    hsize_t n = (hsize_t)d->nnodes;
    int rc = write_array(g, "node_hosts", t, 1, &n, p, "host name of node k (the K axis of every node_* dataset)");
    H5Tclose(t);
    free(p);
    free(h);
    return rc;
}

static void fill_placement_row(struct placement_row *row, const struct pfs_run_data *d, int r)
{
    int src = (r + d->reorder_shift) % d->nranks;
    row->rank = r;
    row->node = d->node_of_rank[r];
    memcpy(row->host_b, d->hosts[r], PFS_HOST_MAX - 1);
    row->clock_correction = d->clock_corr ? d->clock_corr[r] : 0;
    row->clock_uncertainty = d->clock_unc ? d->clock_unc[r] : 0;
    row->reads_from_rank = src;
    row->reads_from_node = d->node_of_rank[src];
    row->cpus = -1; /* not recorded */
    if (d->affinity) {
        const struct pfs_affinity *a = &d->affinity[r];
        memcpy(row->cpu_affinity_b, a->cpu_affinity, sizeof(row->cpu_affinity_b) - 1);
        memcpy(row->numa_nodes_b, a->numa_nodes, sizeof(row->numa_nodes_b) - 1);
        row->cpus = a->cpus;
    }
    row->host = row->host_b;
    row->cpu_affinity = row->cpu_affinity_b;
    row->numa_nodes = row->numa_nodes_b;
}

static int write_placement(hid_t g, const struct pfs_run_data *d)
{
    struct placement_row *rows = calloc((size_t)d->nranks, sizeof(*rows));
    if (!rows)
        return -1;
    for (int r = 0; r < d->nranks; r++)
        fill_placement_row(&rows[r], d, r);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct placement_row));
    hid_t vs = vstr_type();
    H5Tinsert(t, "rank", HOFFSET(struct placement_row, rank), H5T_NATIVE_INT);
    H5Tinsert(t, "node", HOFFSET(struct placement_row, node), H5T_NATIVE_INT);
    H5Tinsert(t, "host", HOFFSET(struct placement_row, host), vs);
    H5Tinsert(t, "clock_correction", HOFFSET(struct placement_row, clock_correction), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "clock_uncertainty", HOFFSET(struct placement_row, clock_uncertainty), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "reads_from_rank", HOFFSET(struct placement_row, reads_from_rank), H5T_NATIVE_INT);
    H5Tinsert(t, "reads_from_node", HOFFSET(struct placement_row, reads_from_node), H5T_NATIVE_INT);
    H5Tinsert(t, "cpu_affinity", HOFFSET(struct placement_row, cpu_affinity), vs);
    H5Tinsert(t, "cpus", HOFFSET(struct placement_row, cpus), H5T_NATIVE_INT32);
    H5Tinsert(t, "numa_nodes", HOFFSET(struct placement_row, numa_nodes), vs);
    hid_t ft = packed(t); /* the row's buffers stay out of the file */
    hsize_t n = (hsize_t)d->nranks;
    int rc = write_typed(g, "placement", ft, t, 1, &n, rows,
                         "clock_correction, clock_uncertainty: s (added to a rank's clock to put it on rank 0's); "
                         "node: index in rank order of first appearance; reads_from_*: whose data the rank read; "
                         "cpu_affinity: the rank's CPUs (sched_getaffinity, a cpulist), cpus: how many (-1: unknown), "
                         "numa_nodes: their NUMA nodes (\"\": no NUMA information); threads inherit them; host, "
                         "cpu_affinity, numa_nodes: text (UTF-8)");
    H5Tclose(vs);
    H5Tclose(ft);
    H5Tclose(t);
    free(rows);
    return rc || write_node_hosts(g, d);
}

static hid_t times_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct pfs_times));
    H5Tinsert(t, "open_start", HOFFSET(struct pfs_times, open_start), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "open_end", HOFFSET(struct pfs_times, open_end), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "xfer_end", HOFFSET(struct pfs_times, xfer_end), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "close_end", HOFFSET(struct pfs_times, close_end), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "stonewall_end", HOFFSET(struct pfs_times, sw_end), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "verify_seconds", HOFFSET(struct pfs_times, verify_s), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "bytes", HOFFSET(struct pfs_times, bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, "transfers", HOFFSET(struct pfs_times, xfers), H5T_NATIVE_UINT64);
    H5Tinsert(t, "stonewall_bytes", HOFFSET(struct pfs_times, sw_bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, "stonewall_transfers", HOFFSET(struct pfs_times, sw_xfers), H5T_NATIVE_UINT64);
    H5Tinsert(t, "verify_errors", HOFFSET(struct pfs_times, errors), H5T_NATIVE_UINT64);
    H5Tinsert(t, "cpu_user", HOFFSET(struct pfs_times, cpu_user), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "cpu_sys", HOFFSET(struct pfs_times, cpu_sys), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "cache_bytes", HOFFSET(struct pfs_times, cache_bytes), H5T_NATIVE_UINT64);
    H5Tinsert(t, "cache_resident", HOFFSET(struct pfs_times, cache_resident), H5T_NATIVE_UINT64);
    H5Tinsert(t, "cache_dirty", HOFFSET(struct pfs_times, cache_dirty), H5T_NATIVE_UINT64);
    H5Tinsert(t, "cache_method", HOFFSET(struct pfs_times, cache_method), H5T_NATIVE_INT32);
    H5Tinsert(t, "dirty_method", HOFFSET(struct pfs_times, dirty_method), H5T_NATIVE_INT32);
    return t;
}

/* One phase's figures: per repetition ([rep]) and per node ([rep][node]). */
struct phase_figs {
    double *bw, *sec, *util, *swbw, *swrate, *rate;
    uint64_t *bytes, *ops;
    uint64_t *nbytes;
    double *nsec, *nbw, *nrate;
    int *nflag;
};

static int figs_alloc(struct phase_figs *f, size_t R, int nn)
{
    f->bw = calloc(R, sizeof(double)), f->sec = calloc(R, sizeof(double)), f->util = calloc(R, sizeof(double));
    f->swbw = calloc(R, sizeof(double)), f->swrate = calloc(R, sizeof(double));
    f->bytes = calloc(R, sizeof(uint64_t));
    f->nbytes = calloc(R * (size_t)nn, sizeof(uint64_t));
    f->nsec = calloc(R * (size_t)nn, sizeof(double)), f->nbw = calloc(R * (size_t)nn, sizeof(double));
    f->nflag = calloc(R * (size_t)nn, sizeof(int));
    f->rate = calloc(R, sizeof(double)), f->nrate = calloc(R * (size_t)nn, sizeof(double));
    f->ops = calloc(R, sizeof(uint64_t));
    return !f->bw || !f->sec || !f->util || !f->swbw || !f->swrate || !f->bytes || !f->nbytes || !f->nsec || !f->nbw || !f->nflag ||
                   !f->rate || !f->nrate || !f->ops
               ? -1
               : 0;
}

static void figs_free(struct phase_figs *f)
{
    free(f->bw), free(f->sec), free(f->util), free(f->swbw), free(f->swrate), free(f->bytes), free(f->nbytes), free(f->nsec);
    free(f->nbw), free(f->nflag), free(f->rate), free(f->nrate), free(f->ops);
}

static void fill_summary_row(struct summary_row *row, const struct pfs_run_data *d, int p, int rep, int run_no,
                             const struct pfs_phase_stat *s)
{
    const struct pfs_config *cfg = d->cfg;
    memset(row, 0, sizeof(*row));
    row->run = run_no;
    /* The run's own strings, alive until the rows are written (NULL: ""). */
    row->run_id = d->run_id;
    row->label = cfg->label;
    row->status = d->status ? d->status : "";
    row->phase = pfs_phase_name(cfg->phases[p]);
    row->rep = rep;
    row->ranks = d->nranks;
    row->nodes = d->nnodes;
    row->threads = d->threads > 0 ? d->threads : 1;
    row->transfer = cfg->transfer;
    row->block = cfg->block;
    row->bytes = s->bytes;
    row->seconds = s->seconds;
    row->bandwidth = s->bandwidth;
    row->utilization = s->utilization;
    row->stonewall_bandwidth = s->sw_bandwidth;
    row->stonewall_rate = s->sw_rate;
    row->ops = s->ops;
    row->rate = s->rate;
    row->warmup = rep < cfg->warmup;
}

/* Reduces each repetition of phase p into f, one summary row each. */
static void reduce_reps(struct phase_figs *f, const struct pfs_run_data *d, int p, struct summary_row *rows,
                        int *nrows, int run_no)
{
    int reps = d->reps_done[p], nn = d->nnodes, nr = pfs_run_nstreams(d);
    const int *nodes = pfs_run_stream_nodes(d);
    const int meta = pfs_phase_is_meta(d->cfg->phases[p]);
    for (int rep = 0; rep < reps; rep++) {
        const struct pfs_times *t = pfs_run_times(d, p, rep);
        struct pfs_phase_stat s;
        pfs_phase_reduce(t, nr, &s);
        f->bw[rep] = s.bandwidth;
        f->sec[rep] = s.seconds;
        f->util[rep] = s.utilization;
        f->swbw[rep] = s.sw_bandwidth;
        f->swrate[rep] = s.sw_rate;
        f->bytes[rep] = s.bytes;
        f->rate[rep] = s.rate;
        f->ops[rep] = s.ops;
        size_t o = (size_t)rep * (size_t)nn;
        pfs_node_reduce(t, nodes, nr, nn, f->nbytes + o, f->nsec + o, f->nbw + o);
        pfs_node_rates(t, nodes, nr, nn, f->nrate + o);
        /* A metadata phase is judged by its rate, a data phase by its bandwidth. */
        pfs_stragglers(meta ? f->nrate + o : f->nbw + o, nn, d->cfg->straggler, f->nflag + o);
        fill_summary_row(&rows[(*nrows)++], d, p, rep, run_no, &s);
    }
}

/* The raw per-stream timings and the per-repetition figures. */
static int write_rep_arrays(hid_t g, const struct phase_figs *f, const struct pfs_run_data *d, int p)
{
    int rc = 0;
    hsize_t R = (hsize_t)d->reps_done[p];
    /* Raw per-stream timings: [rep][stream], in memory already laid out so
     * (stream = rank x threads + thread; with one thread, the rank). */
    hid_t tt = times_type();
    hsize_t dims2[2] = {R, (hsize_t)pfs_run_nstreams(d)};
    rc |= write_array(g, "times", tt, 2, dims2, pfs_run_times(d, p, 0),
                      "open_start, open_end, xfer_end, close_end, stonewall_end: s since the Unix epoch on rank 0's "
                      "clock; verify_seconds: s (already taken out of xfer_end and close_end); bytes, "
                      "stonewall_bytes: bytes; transfers, stonewall_transfers: count (files in a metadata phase); verify_errors: "
                      "mismatching 8-byte words; cpu_user, cpu_sys: CPU s of the stream's thread; cache_bytes: bytes of the "
                      "file it read (before the phase) or wrote (after it) probed in the page cache, cache_resident: "
                      "of them resident before a read, cache_dirty: dirty or under write-back after a write; "
                      "cache_method, dirty_method: 0 not probed, 1 cachestat, 2 mincore, 3 unknown, 4 bypassed "
                      "(--direct); one column per stream (rank x threads + thread)");
    H5Tclose(tt);
    rc |= write_array(g, "bandwidth", H5T_NATIVE_DOUBLE, 1, &R, f->bw, "bytes/s");
    rc |= write_array(g, "seconds", H5T_NATIVE_DOUBLE, 1, &R, f->sec, "s");
    rc |= write_array(g, "bytes", H5T_NATIVE_UINT64, 1, &R, f->bytes, "bytes");
    rc |= write_array(g, "utilization", H5T_NATIVE_DOUBLE, 1, &R, f->util, "fraction");
    rc |= write_array(g, "stonewall_bandwidth", H5T_NATIVE_DOUBLE, 1, &R, f->swbw, "bytes/s (0: no stonewall)");
    rc |= write_array(g, "stonewall_rate", H5T_NATIVE_DOUBLE, 1, &R, f->swrate,
                      "operations/s: transfers, or files in create (0: no stonewall)");
    return rc;
}

static int write_node_arrays(hid_t g, const struct phase_figs *f, const hsize_t dn[2])
{
    int rc = 0;
    rc |= write_array(g, "node_bandwidth", H5T_NATIVE_DOUBLE, 2, dn, f->nbw, "bytes/s");
    rc |= write_array(g, "node_bytes", H5T_NATIVE_UINT64, 2, dn, f->nbytes, "bytes");
    rc |= write_array(g, "node_seconds", H5T_NATIVE_DOUBLE, 2, dn, f->nsec, "s");
    rc |= write_array(g, "node_straggler", H5T_NATIVE_INT, 2, dn, f->nflag,
                      "1: below straggler x median node (bandwidth; files/s in a metadata phase)");
    return rc;
}

/* Per-stream (per-rank with one thread) bandwidth: its bytes over its
 * own span, the figure that shows a slow client within a node. */
static int write_stream_bandwidth(hid_t g, const struct pfs_run_data *d, int p)
{
    int reps = d->reps_done[p], nr = pfs_run_nstreams(d);
    size_t R = (size_t)reps;
    double *sbw = calloc(R * (size_t)nr, sizeof(double));
    if (!sbw)
        return -1;
    for (int rep = 0; rep < reps; rep++) {
        const struct pfs_times *t = pfs_run_times(d, p, rep);
        for (int i = 0; i < nr; i++) {
            double span = t[i].close_end - t[i].open_start;
            sbw[(size_t)rep * (size_t)nr + (size_t)i] = span > 0 ? (double)t[i].bytes / span : 0;
        }
    }
    hsize_t ds[2] = {R, (hsize_t)nr};
    int rc = write_array(g, "stream_bandwidth", H5T_NATIVE_DOUBLE, 2, ds, sbw,
                         "bytes/s: each stream's bytes / (its close_end - its open_start)");
    free(sbw);
    return rc;
}

/* The statistics of the n measured values v, as attributes PREFIX_min ..
 * PREFIX_stddev. What n cannot give is NaN, never 0 (as the text report
 * prints n/a and JSON null): the stddev of one value, everything of none
 * (a run that failed during its warm-up). */
static int write_stats(hid_t g, const char *prefix, const double *v, int n)
{
    struct pfs_stats st;
    pfs_stats_compute(v, n, &st);
    if (n < 1)
        st.min = st.max = st.mean = st.median = NAN;
    if (n < 2)
        st.stddev = NAN;
    const char *key[5] = {"min", "max", "mean", "median", "stddev"};
    const double val[5] = {st.min, st.max, st.mean, st.median, st.stddev};
    int rc = 0;
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s_%s", prefix, key[i]);
        rc |= attr_dbl(g, name, val[i]);
    }
    return rc;
}

/* Min, max, mean, median and stddev over the measured repetitions (the
 * warm-up ones, the first w, left out), as attributes. */
static int write_stats_attrs(hid_t g, const struct phase_figs *f, int w, int reps, int meta)
{
    int rc = 0;
    if (meta)
        rc |= write_stats(g, "rate", f->rate + w, reps - w);
    rc |= write_stats(g, "bandwidth", f->bw + w, reps - w);
    rc |= pfs_res_attr_str(g, "bandwidth_units", "bytes/s; stddev is the sample standard deviation (n-1), NaN for "
                           "one measured repetition (all five NaN for none)");
    return rc;
}

/* The warm-up flags [R], and the 95% interval of the mean of the phase's
 * figure (bandwidth, rate in a metadata phase) over the measured ones. */
static int write_ci(hid_t g, const struct pfs_run_data *d, int p)
{
    struct pfs_phase_ci pc;
    pfs_run_phase_ci(d, p, &pc);
    const int R = d->reps_done[p];
    int *flag = calloc((size_t)R, sizeof(int));
    if (!flag)
        return -1;
    for (int rep = 0; rep < pc.warmup; rep++)
        flag[rep] = 1;
    hsize_t d1 = (hsize_t)R;
    int rc = write_array(g, "warmup", H5T_NATIVE_INT, 1, &d1, flag, "1: a warm-up repetition, left out of the statistics");
    free(flag);
    rc |= attr_int(g, "warmup", pc.warmup);
    rc |= attr_int(g, "reps_measured", pc.measured);
    rc |= attr_dbl(g, "ci95_half_width", pc.ci.half);
    rc |= attr_dbl(g, "ci95_percent", pc.ci.pct);
    rc |= attr_dbl(g, "ci_target_percent", d->cfg->reps == 0 ? d->cfg->ci : NAN);
    rc |= attr_int(g, "ci_target_met", pc.target);
    rc |= pfs_res_attr_str(g, "ci95_units", pfs_phase_is_meta(d->cfg->phases[p])
                           ? "half_width: files/s (of the rate); percent: of its mean; NaN: one measured repetition"
                           : "half_width: bytes/s (of the bandwidth); percent: of its mean; NaN: one measured repetition");
    return rc;
}

/* A find phase: the files it matched per repetition (its ops are those
 * it examined), and the criteria in words. */
static int write_find(hid_t g, const struct pfs_run_data *d, int p, hsize_t reps)
{
    if (!pfs_phase_has(d->cfg->phases[p], PFS_PHF_MATCHES) || !d->find_matched)
        return 0;
    char crit[160];
    snprintf(crit, sizeof(crit), "name contains 01, a regular file of %llu bytes, modified at or after the run's start",
             (unsigned long long)d->cfg->file_size);
    int rc = write_array(g, "find_matched", H5T_NATIVE_UINT64, 1, &reps, d->find_matched + (size_t)p * (size_t)d->reps,
                         "files");
    rc |= pfs_res_attr_str(g, "find_criteria", crit);
    return rc;
}

static int write_phase(hid_t phases, const struct pfs_run_data *d, int p, struct summary_row *rows, int *nrows,
                       int run_no)
{
    const struct pfs_config *cfg = d->cfg;
    int reps = d->reps_done[p], nn = d->nnodes;
    const int meta = pfs_phase_is_meta(cfg->phases[p]);
    char name[48];
    snprintf(name, sizeof(name), "%02d_%s", p, pfs_phase_name(cfg->phases[p]));
    hid_t g = H5Gcreate2(phases, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    rc |= pfs_res_attr_str(g, "phase", pfs_phase_name(cfg->phases[p]));
    rc |= attr_int(g, "index", p);
    rc |= attr_int(g, "repetitions", reps);
    rc |= pfs_res_attr_str(g, "kind", meta ? "metadata" : "data");
    if (reps == 0) {
        H5Gclose(g);
        return rc;
    }
    struct phase_figs f;
    if (figs_alloc(&f, (size_t)reps, nn) != 0) {
        rc = -1;
        goto done;
    }
    reduce_reps(&f, d, p, rows, nrows, run_no);
    rc |= write_rep_arrays(g, &f, d, p);
    hsize_t d1 = (hsize_t)reps, dn[2] = {(hsize_t)reps, (hsize_t)nn};
    rc |= write_node_arrays(g, &f, dn);
    rc |= write_stream_bandwidth(g, d, p);
    rc |= write_array(g, "ops", H5T_NATIVE_UINT64, 1, &d1, f.ops, "transfers, or files in a metadata phase");
    rc |= write_array(g, "rate", H5T_NATIVE_DOUBLE, 1, &d1, f.rate, "ops/s (files/s in a metadata phase)");
    rc |= write_array(g, "node_rate", H5T_NATIVE_DOUBLE, 2, dn, f.nrate, "ops/s");
    rc |= write_stats_attrs(g, &f, pfs_run_warmup(d, p), reps, meta);
    rc |= write_ci(g, d, p);
    rc |= write_find(g, d, p, d1);
    rc |= pfs_res_write_latency(g, d, p);
    rc |= pfs_res_write_cache(g, d, p);
done:
    figs_free(&f);
    H5Gclose(g);
    return rc;
}

int pfs_res_write_run(hid_t file, const struct pfs_run_data *d, int run_no, char *name, size_t namelen)
{
    const struct pfs_config *cfg = d->cfg;
    hid_t runs = H5Lexists(file, "runs", H5P_DEFAULT) > 0 ? H5Gopen2(file, "runs", H5P_DEFAULT)
                                                           : H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (runs < 0)
        return -1;
    snprintf(name, namelen, "/runs/%06d", run_no);
    hid_t g = H5Gcreate2(runs, name + 6, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(runs);
    if (g < 0)
        return -1;
    int rc = 0;
    rc |= pfs_res_attr_str(g, "run_id", d->run_id);
    rc |= pfs_res_attr_str(g, "status", d->status);
    rc |= pfs_res_attr_str(g, "start_time", d->start_iso);
    rc |= pfs_res_attr_str(g, "end_time", d->end_iso);
    rc |= pfs_res_attr_str(g, "command_line", d->cmdline);
    rc |= pfs_res_attr_str(g, "label", cfg->label);
    /* A job file's section: the file, its text (the run can be redone from it) and the section. */
    rc |= pfs_res_attr_str(g, "job_file", d->job_path);
    rc |= pfs_res_attr_str(g, "job_text", d->job_text);
    rc |= pfs_res_attr_str(g, "job_section", d->job_section);
    /* A concurrent group's section: with whom, and the window all ran together. */
    rc |= pfs_res_attr_str(g, "concurrent_group", d->conc_tag);
    rc |= pfs_res_attr_str(g, "concurrent_sections", d->conc_sections);
    rc |= attr_dbl(g, "concurrent_overlap_start", d->conc_start);
    rc |= attr_dbl(g, "concurrent_overlap_seconds", d->conc_overlap_s);
    rc |= attr_dbl(g, "concurrent_span_seconds", d->conc_span_s);
    rc |= attr_dbl(g, "concurrent_clock_correction", d->conc_clock_corr);
    rc |= pfs_res_attr_str(g, "pfsbench_version", PFS_VERSION);
    rc |= pfs_res_attr_str(g, "git_revision", PFS_GIT_REV);
    rc |= pfs_res_attr_str(g, "mpi_library", d->mpi_version);
    rc |= pfs_res_attr_str(g, "hdf5_version", pfs_results_hdf5_version());
    rc |= attr_int(g, "ranks", d->nranks);
    rc |= attr_int(g, "nodes", d->nnodes);
    rc |= attr_dbl(g, "ranks_per_node", (double)d->nranks / d->nnodes);
    rc |= pfs_res_attr_str(g, "dir", cfg->dir);
    rc |= pfs_res_attr_str(g, "fs_type", d->fstype);
    /* The mount's own word for what it is (fs_type is statfs's: "fuse"
     * for every FUSE file system), where it is mounted from and how. */
    rc |= pfs_res_attr_str(g, "fs_mount_type", d->fs.mount_type);
    rc |= pfs_res_attr_str(g, "fs_source", d->fs.source);
    rc |= pfs_res_attr_str(g, "fs_mount_point", d->fs.mount_point);
    rc |= pfs_res_attr_str(g, "fs_options", d->fs.options);
    rc |= pfs_res_attr_str(g, "fs_layout", d->fs.layout);
    rc |= attr_u64(g, "fs_block_size", d->fs.block_size);
    rc |= pfs_res_attr_str(g, "host_rank0", d->hosts[0]);
    rc |= attr_u64(g, "seed", d->seed);
    rc |= pfs_res_attr_str(g, "error", d->error);
    rc |= pfs_res_attr_str(g, "warnings", d->warnings);
    rc |= attr_int(g, "interrupt_signal", d->interrupt_signal);
    rc |= attr_int(g, "reorder_shift", d->reorder_shift);
    /* What the kept data files hold (DIR/pfsbench.ID.kept): transfers per stream, 0: none kept. */
    rc |= attr_u64(g, "kept_transfers", d->kept ? d->kept_xfers : 0);
    rc |= attr_int(g, "round_robin_asked", d->round_robin_asked);
    /* Every resolved option, one attribute each, typed as the option table
     * says (the keys of describe), and the whole as text. */
    rc |= pfs_config_fields(cfg, attr_field, &g) != 0;
    rc |= attr_int(g, "streams", pfs_run_nstreams(d));
    char *conf = malloc(8192);
    if (conf) {
        pfs_config_describe(cfg, conf, 8192);
        rc |= pfs_res_attr_str(g, "config", conf);
        free(conf);
    }
    rc |= write_placement(g, d);

    hid_t phases = H5Gcreate2(g, "phases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int maxrows = d->nphases * d->reps;
    struct summary_row *rows = calloc((size_t)(maxrows > 0 ? maxrows : 1), sizeof(*rows));
    int nrows = 0;
    if (phases < 0 || !rows)
        rc = -1;
    for (int p = 0; p < d->nphases && rc == 0; p++)
        rc |= write_phase(phases, d, p, rows, &nrows, run_no);
    if (phases >= 0)
        H5Gclose(phases);
    H5Gclose(g);
    if (rc == 0)
        rc = append_summary(file, rows, (hsize_t)nrows);
    free(rows);
    return rc;
}

int pfs_res_write_format(hid_t file)
{
    return pfs_res_attr_str(file, "format", PFS_RESULTS_FORMAT) || attr_int(file, "format_version", PFS_RESULTS_VERSION);
}
