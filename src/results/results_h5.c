/* The HDF5 results file: the only module that speaks HDF5.
 *
 * Integrity: a run is appended to a copy of the file beside it
 * (.NAME.tmp.HOST.PID), built in memory, written, fsync'ed and renamed over
 * the original, all under a write lock on a regular lock file beside it
 * (.NAME.lock), which crosses clients where a directory flock does not. A
 * crash at any moment leaves either the old file or the new one, never a
 * half-written one; a failed write leaves the old one byte for byte. */
#define _GNU_SOURCE
#include "pfs/results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STR_SHORT 64
#define STR_LABEL 128

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

const char *pfs_results_hdf5_version(void)
{
    static char v[32];
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    snprintf(v, sizeof(v), "%u.%u.%u", maj, min, rel);
    return v;
}

static void quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ---- small attribute helpers ---- */

static int attr_str(hid_t obj, const char *name, const char *val)
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

static int attr_num(hid_t obj, const char *name, hid_t type, const void *val)
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
    return attr_num(obj, name, H5T_NATIVE_LLONG, &v);
}

static int attr_u64(hid_t obj, const char *name, uint64_t v)
{
    return attr_num(obj, name, H5T_NATIVE_UINT64, &v);
}

static int attr_dbl(hid_t obj, const char *name, double v)
{
    return attr_num(obj, name, H5T_NATIVE_DOUBLE, &v);
}

/* Reads a string attribute of any string type into buf. */
static int read_attr_str(hid_t obj, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = H5Tcopy(ft); /* same character set: HDF5 converts none */
            char *v = NULL;
            if (H5Aread(a, mt, &v) >= 0 && v) {
                snprintf(buf, len, "%s", v);
                H5free_memory(v);
                rc = 0;
            }
            H5Tclose(mt);
        } else {
            /* Fixed-length strings may be space- or null-padded without a
             * terminator: read into one byte more than HDF5 may fill. */
            size_t n = H5Tget_size(ft);
            char *v = calloc(1, n + 2);
            hid_t mt = H5Tcopy(ft);
            H5Tset_size(mt, n + 1);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            if (v && H5Aread(a, mt, v) >= 0) {
                snprintf(buf, len, "%s", v);
                rc = 0;
            }
            H5Tclose(mt);
            free(v);
        }
    }
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

static hid_t str_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

/* A dataset of doubles or integers with a units attribute. */
static int write_array(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data,
                       const char *units)
{
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 ? -1 : (H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ? -1 : 0);
    if (ds >= 0) {
        if (rc == 0 && units)
            rc = attr_str(ds, "units", units);
        H5Dclose(ds);
    }
    H5Sclose(s);
    return rc;
}

/* ---- the summary table ---- */

struct summary_row {
    int run;
    char run_id[STR_SHORT];
    char label[STR_LABEL];
    char status[16];
    char phase[16];
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
    uint64_t ops;
    double rate;
};

static hid_t summary_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct summary_row));
    hid_t s64 = str_type(STR_SHORT), s128 = str_type(STR_LABEL), s16 = str_type(16);
    H5Tinsert(t, "run", HOFFSET(struct summary_row, run), H5T_NATIVE_INT);
    H5Tinsert(t, "run_id", HOFFSET(struct summary_row, run_id), s64);
    H5Tinsert(t, "label", HOFFSET(struct summary_row, label), s128);
    H5Tinsert(t, "status", HOFFSET(struct summary_row, status), s16);
    H5Tinsert(t, "phase", HOFFSET(struct summary_row, phase), s16);
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
    H5Tinsert(t, "ops", HOFFSET(struct summary_row, ops), H5T_NATIVE_UINT64);
    H5Tinsert(t, "rate", HOFFSET(struct summary_row, rate), H5T_NATIVE_DOUBLE);
    H5Tclose(s64);
    H5Tclose(s128);
    H5Tclose(s16);
    return t;
}

static int append_summary(hid_t file, const struct summary_row *rows, hsize_t n)
{
    hid_t t = summary_type();
    hid_t ds;
    int rc = -1;
    if (H5Lexists(file, "summary", H5P_DEFAULT) > 0) {
        ds = H5Dopen2(file, "summary", H5P_DEFAULT);
    } else {
        hsize_t dims = 0, maxd = H5S_UNLIMITED, chunk = 64;
        hid_t s = H5Screate_simple(1, &dims, &maxd);
        hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(pl, 1, &chunk);
        ds = H5Dcreate2(file, "summary", t, s, H5P_DEFAULT, pl, H5P_DEFAULT);
        H5Pclose(pl);
        H5Sclose(s);
        if (ds >= 0)
            attr_str(ds, "units", "transfer, block, bytes: bytes; seconds: s; bandwidth, stonewall_bandwidth: bytes/s "
                                  "(1024-based MiB = 1048576 bytes); utilization: fraction; ops: transfers (data "
                                  "phases) or files (metadata phases); rate: ops/s");
    }
    if (ds < 0)
        goto out;
    if (n == 0) {
        rc = 0;
        H5Dclose(ds);
        goto out;
    }
    hid_t fs = H5Dget_space(ds);
    hsize_t cur;
    H5Sget_simple_extent_dims(fs, &cur, NULL);
    H5Sclose(fs);
    hsize_t newsize = cur + n;
    if (H5Dset_extent(ds, &newsize) >= 0) {
        fs = H5Dget_space(ds);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &cur, NULL, &n, NULL);
        hid_t ms = H5Screate_simple(1, &n, NULL);
        rc = H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, rows) < 0 ? -1 : 0;
        H5Sclose(ms);
        H5Sclose(fs);
    }
    H5Dclose(ds);
out:
    H5Tclose(t);
    return rc;
}

/* ---- one run ---- */

struct placement_row {
    int rank;
    int node;
    char host[PFS_HOST_MAX];
    double clock_correction;
    double clock_uncertainty;
    int reads_from_rank;
    int reads_from_node;
};

static int write_placement(hid_t g, const struct pfs_run_data *d)
{
    struct placement_row *rows = calloc((size_t)d->nranks, sizeof(*rows));
    if (!rows)
        return -1;
    for (int r = 0; r < d->nranks; r++) {
        int src = (r + d->reorder_shift) % d->nranks;
        rows[r].rank = r;
        rows[r].node = d->node_of_rank[r];
        memcpy(rows[r].host, d->hosts[r], PFS_HOST_MAX);
        rows[r].host[PFS_HOST_MAX - 1] = '\0';
        rows[r].clock_correction = d->clock_corr ? d->clock_corr[r] : 0;
        rows[r].clock_uncertainty = d->clock_unc ? d->clock_unc[r] : 0;
        rows[r].reads_from_rank = src;
        rows[r].reads_from_node = d->node_of_rank[src];
    }
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct placement_row));
    hid_t hs = str_type(PFS_HOST_MAX);
    H5Tinsert(t, "rank", HOFFSET(struct placement_row, rank), H5T_NATIVE_INT);
    H5Tinsert(t, "node", HOFFSET(struct placement_row, node), H5T_NATIVE_INT);
    H5Tinsert(t, "host", HOFFSET(struct placement_row, host), hs);
    H5Tinsert(t, "clock_correction", HOFFSET(struct placement_row, clock_correction), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "clock_uncertainty", HOFFSET(struct placement_row, clock_uncertainty), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "reads_from_rank", HOFFSET(struct placement_row, reads_from_rank), H5T_NATIVE_INT);
    H5Tinsert(t, "reads_from_node", HOFFSET(struct placement_row, reads_from_node), H5T_NATIVE_INT);
    hsize_t n = (hsize_t)d->nranks;
    int rc = write_array(g, "placement", t, 1, &n, rows,
                         "clock_correction, clock_uncertainty: s (added to a rank's clock to put it on rank 0's); "
                         "node: index in rank order of first appearance; reads_from_*: whose data the rank read");
    H5Tclose(hs);
    H5Tclose(t);
    free(rows);
    return rc;
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
    H5Tinsert(t, "verify_errors", HOFFSET(struct pfs_times, errors), H5T_NATIVE_UINT64);
    return t;
}

static int write_phase(hid_t phases, const struct pfs_run_data *d, int p, struct summary_row *rows, int *nrows,
                       int run_no)
{
    const struct pfs_config *cfg = d->cfg;
    int reps = d->reps_done[p], nn = d->nnodes, nr = pfs_run_nstreams(d);
    const int *nodes = pfs_run_stream_nodes(d);
    const int meta = pfs_phase_is_meta(cfg->phases[p]);
    char name[48];
    snprintf(name, sizeof(name), "%02d_%s", p, pfs_phase_name(cfg->phases[p]));
    hid_t g = H5Gcreate2(phases, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = 0;
    rc |= attr_str(g, "phase", pfs_phase_name(cfg->phases[p]));
    rc |= attr_int(g, "index", p);
    rc |= attr_int(g, "repetitions", reps);
    rc |= attr_str(g, "kind", meta ? "metadata" : "data");
    if (reps == 0) {
        H5Gclose(g);
        return rc;
    }
    size_t R = (size_t)reps;
    double *bw = calloc(R, sizeof(double)), *sec = calloc(R, sizeof(double)), *util = calloc(R, sizeof(double));
    double *swbw = calloc(R, sizeof(double));
    uint64_t *bytes = calloc(R, sizeof(uint64_t));
    uint64_t *nbytes = calloc(R * (size_t)nn, sizeof(uint64_t));
    double *nsec = calloc(R * (size_t)nn, sizeof(double)), *nbw = calloc(R * (size_t)nn, sizeof(double));
    int *nflag = calloc(R * (size_t)nn, sizeof(int));
    double *rate = calloc(R, sizeof(double)), *nrate = calloc(R * (size_t)nn, sizeof(double));
    uint64_t *ops = calloc(R, sizeof(uint64_t));
    if (!bw || !sec || !util || !swbw || !bytes || !nbytes || !nsec || !nbw || !nflag || !rate || !nrate || !ops) {
        rc = -1;
        goto done;
    }
    for (int rep = 0; rep < reps; rep++) {
        const struct pfs_times *t = pfs_run_times(d, p, rep);
        struct pfs_phase_stat s;
        pfs_phase_reduce(t, nr, &s);
        bw[rep] = s.bandwidth;
        sec[rep] = s.seconds;
        util[rep] = s.utilization;
        swbw[rep] = s.sw_bandwidth;
        bytes[rep] = s.bytes;
        rate[rep] = s.rate;
        ops[rep] = s.ops;
        size_t o = (size_t)rep * (size_t)nn;
        pfs_node_reduce(t, nodes, nr, nn, nbytes + o, nsec + o, nbw + o);
        pfs_node_rates(t, nodes, nr, nn, nrate + o);
        /* A metadata phase is judged by its rate, a data phase by its bandwidth. */
        pfs_stragglers(meta ? nrate + o : nbw + o, nn, cfg->straggler, nflag + o);
        struct summary_row *row = &rows[(*nrows)++];
        memset(row, 0, sizeof(*row));
        row->run = run_no;
        snprintf(row->run_id, sizeof(row->run_id), "%s", d->run_id);
        snprintf(row->label, sizeof(row->label), "%s", cfg->label);
        snprintf(row->status, sizeof(row->status), "%s", d->status);
        snprintf(row->phase, sizeof(row->phase), "%s", pfs_phase_name(cfg->phases[p]));
        row->rep = rep;
        row->ranks = d->nranks;
        row->nodes = nn;
        row->threads = d->threads > 0 ? d->threads : 1;
        row->transfer = cfg->transfer;
        row->block = cfg->block;
        row->bytes = s.bytes;
        row->seconds = s.seconds;
        row->bandwidth = s.bandwidth;
        row->utilization = s.utilization;
        row->stonewall_bandwidth = s.sw_bandwidth;
        row->ops = s.ops;
        row->rate = s.rate;
    }
    /* Raw per-stream timings: [rep][stream], in memory already laid out so
     * (stream = rank x threads + thread; with one thread, the rank). */
    hid_t tt = times_type();
    hsize_t dims2[2] = {R, (hsize_t)nr};
    rc |= write_array(g, "times", tt, 2, dims2, pfs_run_times(d, p, 0),
                      "open_start, open_end, xfer_end, close_end, stonewall_end: s since the Unix epoch on rank 0's "
                      "clock; verify_seconds: s (already taken out of xfer_end and close_end); bytes, "
                      "stonewall_bytes: bytes; transfers: count (files in a metadata phase); verify_errors: "
                      "mismatching 8-byte words; one column per stream (rank x threads + thread)");
    H5Tclose(tt);
    hsize_t d1 = R;
    rc |= write_array(g, "bandwidth", H5T_NATIVE_DOUBLE, 1, &d1, bw, "bytes/s");
    rc |= write_array(g, "seconds", H5T_NATIVE_DOUBLE, 1, &d1, sec, "s");
    rc |= write_array(g, "bytes", H5T_NATIVE_UINT64, 1, &d1, bytes, "bytes");
    rc |= write_array(g, "utilization", H5T_NATIVE_DOUBLE, 1, &d1, util, "fraction");
    rc |= write_array(g, "stonewall_bandwidth", H5T_NATIVE_DOUBLE, 1, &d1, swbw, "bytes/s (0: no stonewall)");
    hsize_t dn[2] = {R, (hsize_t)nn};
    rc |= write_array(g, "node_bandwidth", H5T_NATIVE_DOUBLE, 2, dn, nbw, "bytes/s");
    rc |= write_array(g, "node_bytes", H5T_NATIVE_UINT64, 2, dn, nbytes, "bytes");
    rc |= write_array(g, "node_seconds", H5T_NATIVE_DOUBLE, 2, dn, nsec, "s");
    rc |= write_array(g, "node_straggler", H5T_NATIVE_INT, 2, dn, nflag,
                      "1: below straggler x median node (bandwidth; files/s in a metadata phase)");
    /* Per-stream (per-rank with one thread) bandwidth: its bytes over its
     * own span, the figure that shows a slow client within a node. */
    double *sbw = calloc(R * (size_t)nr, sizeof(double));
    if (sbw) {
        for (int rep = 0; rep < reps; rep++) {
            const struct pfs_times *t = pfs_run_times(d, p, rep);
            for (int i = 0; i < nr; i++) {
                double span = t[i].close_end - t[i].open_start;
                sbw[(size_t)rep * (size_t)nr + (size_t)i] = span > 0 ? (double)t[i].bytes / span : 0;
            }
        }
        hsize_t ds[2] = {R, (hsize_t)nr};
        rc |= write_array(g, "stream_bandwidth", H5T_NATIVE_DOUBLE, 2, ds, sbw,
                          "bytes/s: each stream's bytes / (its close_end - its open_start)");
        free(sbw);
    } else {
        rc = -1;
    }
    rc |= write_array(g, "ops", H5T_NATIVE_UINT64, 1, &d1, ops, "transfers, or files in a metadata phase");
    rc |= write_array(g, "rate", H5T_NATIVE_DOUBLE, 1, &d1, rate, "ops/s (files/s in a metadata phase)");
    rc |= write_array(g, "node_rate", H5T_NATIVE_DOUBLE, 2, dn, nrate, "ops/s");
    struct pfs_stats st;
    pfs_stats_compute(bw, reps, &st);
    if (meta) {
        struct pfs_stats sr;
        pfs_stats_compute(rate, reps, &sr);
        rc |= attr_dbl(g, "rate_min", sr.min);
        rc |= attr_dbl(g, "rate_max", sr.max);
        rc |= attr_dbl(g, "rate_mean", sr.mean);
        rc |= attr_dbl(g, "rate_median", sr.median);
        rc |= attr_dbl(g, "rate_stddev", sr.stddev);
    }
    rc |= attr_dbl(g, "bandwidth_min", st.min);
    rc |= attr_dbl(g, "bandwidth_max", st.max);
    rc |= attr_dbl(g, "bandwidth_mean", st.mean);
    rc |= attr_dbl(g, "bandwidth_median", st.median);
    rc |= attr_dbl(g, "bandwidth_stddev", st.stddev);
    rc |= attr_str(g, "bandwidth_units", "bytes/s; stddev is the sample standard deviation (n-1)");
done:
    free(bw), free(sec), free(util), free(swbw), free(bytes), free(nbytes), free(nsec), free(nbw), free(nflag);
    free(rate), free(nrate), free(ops);
    H5Gclose(g);
    return rc;
}

static int write_run(hid_t file, const struct pfs_run_data *d, char *name, size_t namelen)
{
    const struct pfs_config *cfg = d->cfg;
    hid_t runs = H5Lexists(file, "runs", H5P_DEFAULT) > 0 ? H5Gopen2(file, "runs", H5P_DEFAULT)
                                                           : H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (runs < 0)
        return -1;
    H5G_info_t info;
    H5Gget_info(runs, &info);
    int run_no = (int)info.nlinks + 1;
    snprintf(name, namelen, "/runs/%06d", run_no);
    hid_t g = H5Gcreate2(runs, name + 6, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(runs);
    if (g < 0)
        return -1;
    int rc = 0;
    char buf[4096];
    rc |= attr_str(g, "run_id", d->run_id);
    rc |= attr_str(g, "status", d->status);
    rc |= attr_str(g, "start_time", d->start_iso);
    rc |= attr_str(g, "end_time", d->end_iso);
    rc |= attr_str(g, "command_line", d->cmdline);
    rc |= attr_str(g, "label", cfg->label);
    rc |= attr_str(g, "pfsbench_version", PFS_VERSION);
    rc |= attr_str(g, "git_revision", PFS_GIT_REV);
    rc |= attr_str(g, "mpi_library", d->mpi_version);
    rc |= attr_str(g, "hdf5_version", pfs_results_hdf5_version());
    rc |= attr_int(g, "ranks", d->nranks);
    rc |= attr_int(g, "nodes", d->nnodes);
    rc |= attr_dbl(g, "ranks_per_node", (double)d->nranks / d->nnodes);
    rc |= attr_str(g, "dir", cfg->dir);
    rc |= attr_str(g, "fs_type", d->fstype);
    /* The mount's own word for what it is (fs_type is statfs's: "fuse"
     * for every FUSE file system), where it is mounted from and how. */
    rc |= attr_str(g, "fs_mount_type", d->fs.mount_type);
    rc |= attr_str(g, "fs_source", d->fs.source);
    rc |= attr_str(g, "fs_mount_point", d->fs.mount_point);
    rc |= attr_str(g, "fs_options", d->fs.options);
    rc |= attr_str(g, "fs_layout", d->fs.layout);
    rc |= attr_u64(g, "fs_block_size", d->fs.block_size);
    rc |= attr_str(g, "host_rank0", d->hosts[0]);
    rc |= attr_u64(g, "seed", d->seed);
    rc |= attr_str(g, "error", d->error);
    rc |= attr_str(g, "warnings", d->warnings);
    rc |= attr_int(g, "interrupt_signal", d->interrupt_signal);
    rc |= attr_int(g, "reorder_shift", d->reorder_shift);
    rc |= attr_int(g, "round_robin_asked", d->round_robin_asked);
    /* Every resolved option, one attribute each, and the whole as text. */
    rc |= attr_str(g, "mode", cfg->shared ? "shared" : "file-per-process");
    rc |= attr_str(g, "layout", cfg->layout == PFS_LAYOUT_STRIDED ? "strided" : "segmented");
    rc |= attr_u64(g, "transfer", cfg->transfer);
    rc |= attr_u64(g, "block", cfg->block);
    rc |= attr_u64(g, "total", cfg->total);
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nphases && n < sizeof(buf); i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "", pfs_phase_name(cfg->phases[i]));
    rc |= attr_str(g, "phases", buf);
    rc |= attr_int(g, "reps", cfg->reps);
    rc |= attr_int(g, "fsync", cfg->fsync);
    rc |= attr_int(g, "keep", cfg->keep);
    rc |= attr_int(g, "direct", cfg->direct);
    rc |= attr_int(g, "drop_caches", cfg->drop_caches);
    rc |= attr_int(g, "verify", cfg->verify);
    rc |= attr_int(g, "random", cfg->random);
    rc |= attr_dbl(g, "deadline", cfg->deadline);
    rc |= attr_int(g, "reorder", cfg->reorder);
    rc |= attr_str(g, "api", pfs_api_name(cfg->api));
    rc |= attr_int(g, "collective", cfg->collective);
    rc |= attr_dbl(g, "straggler", cfg->straggler);
    rc |= attr_int(g, "threads", d->threads > 0 ? d->threads : 1);
    rc |= attr_int(g, "streams", pfs_run_nstreams(d));
    rc |= attr_int(g, "files", cfg->files);
    rc |= attr_u64(g, "file_size", cfg->file_size);
    rc |= attr_str(g, "dirs", cfg->dirs == PFS_DIRS_PER_RANK ? "per-rank" : "shared");
    rc |= attr_str(g, "order", cfg->md_random ? "random" : "sequential");
    rc |= attr_dbl(g, "timeout", cfg->timeout);
    char *conf = malloc(8192);
    if (conf) {
        pfs_config_describe(cfg, conf, 8192);
        rc |= attr_str(g, "config", conf);
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

/* ---- the file as a whole ---- */

static int check_format(hid_t f, const char *path, char *err, size_t len)
{
    char fmt[64];
    if (read_attr_str(f, "format", fmt, sizeof(fmt)) != 0 || strcmp(fmt, PFS_RESULTS_FORMAT) != 0)
        return fail(err, len, "'%s' is an HDF5 file but not a pfsbench results file; give -o another path", path);
    long long ver = 0;
    if (H5Aexists(f, "format_version") > 0) {
        hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_LLONG, &ver);
        H5Aclose(a);
    }
    if (ver < 1 || ver > PFS_RESULTS_VERSION)
        return fail(err, len, "'%s' has results format version %lld; this pfsbench writes version %d", path, ver,
                    PFS_RESULTS_VERSION);
    return 0;
}
/* ---- where the file is, and what may go wrong with it ----
 *
 * The append replaces the file by rename(2) of a new copy beside it, so
 * everything that would make the rename fail, or that the rename would
 * break (a symlink, a hard link, the owner or mode), is checked up front by
 * pfs_results_check and again under the lock by the append. */

#define LOCK_WAIT_S 600 /* how long an append waits for another writer's lock */
#define PID_DIGITS 10   /* room for any pid in a temporary copy's name */

struct target {
    char given[PFS_PATH_MAX]; /* what -o said, for messages */
    /* Sized for the compiler's worst case; resolve_target keeps each below PATH_MAX. */
    char path[PATH_MAX + NAME_MAX + 128]; /* the results file itself, symlinks resolved */
    char dir[PATH_MAX];       /* its directory: the copy and the lock live there */
    char base[NAME_MAX + 1];
    char lock[PATH_MAX + NAME_MAX + 128]; /* dir/.base.lock */
    char tmp[PATH_MAX + NAME_MAX + 128];  /* dir/.base.tmp.HOST.PID */
    char host[72];       /* this host as it appears in temporary names */
};

/* The host name, with anything but [A-Za-z0-9._-] as '_', so that it is a
 * safe part of a file name. Several clients share the results directory:
 * the host tells whose a temporary copy is. */
static void host_tag(char *out, size_t len)
{
    char h[HOST_NAME_MAX + 1] = "";
    if (gethostname(h, sizeof(h)) != 0 || !h[0])
        snprintf(h, sizeof(h), "unknown-host");
    h[HOST_NAME_MAX] = '\0';
    size_t i = 0;
    for (; h[i] && i + 1 < len; i++) {
        char c = h[i];
        int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '-' || c == '_';
        out[i] = safe ? c : '_';
    }
    out[i] = '\0';
}

/* Fills t for the results path: a symlink is followed to its target (the
 * rename must replace the target in its own directory, never the link),
 * and every name the append makes must fit NAME_MAX and PATH_MAX. */
static int resolve_target(const char *path, struct target *t, char *err, size_t len)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->given, sizeof(t->given), "%s", path);
    size_t n = strlen(path);
    if (n == 0)
        return fail(err, len, "the results path is empty; give -o a file name");
    if (path[n - 1] == '/')
        return fail(err, len, "results path '%s' ends in '/'; give -o a file name, not a directory", path);
    char full[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, full))
            return fail(err, len, "results path '%s' is a symbolic link that does not lead to a file (%s); point it "
                        "at an existing results file or give -o the file itself", path, strerror(errno));
    } else {
        char d[PATH_MAX], b[PATH_MAX], rd[PATH_MAX];
        if (n >= sizeof(d))
            return fail(err, len, "results path '%.64s...' is longer than PATH_MAX (%d)", path, PATH_MAX);
        memcpy(d, path, n + 1);
        memcpy(b, path, n + 1);
        if (!realpath(dirname(d), rd))
            return fail(err, len, "the directory of results path '%s' does not exist (%s); create it or give -o "
                        "elsewhere", path, strerror(errno));
        if (snprintf(full, sizeof(full), "%s/%s", strcmp(rd, "/") ? rd : "", basename(b)) >= (int)sizeof(full))
            return fail(err, len, "results path '%.64s...' is longer than PATH_MAX (%d)", path, PATH_MAX);
    }
    char *slash = strrchr(full, '/'); /* full is absolute */
    size_t dl = slash == full ? 1 : (size_t)(slash - full), bl = strlen(slash + 1);
    memcpy(t->dir, full, dl);
    t->dir[dl] = '\0';
    host_tag(t->host, sizeof(t->host));
    /* The longest name made: .BASE.tmp.HOST.PID */
    size_t extra = 1 + 5 + strlen(t->host) + 1 + PID_DIGITS;
    if (bl + extra > NAME_MAX)
        return fail(err, len, "results file name '%.40s...' (%zu bytes) is too long: its temporary copy "
                    "'.NAME.tmp.%s.PID' would exceed the %d-byte limit on a file name (NAME_MAX); give -o a name of "
                    "at most %zu bytes", slash + 1, bl, t->host, NAME_MAX, (size_t)NAME_MAX - extra);
    if (dl + 1 + bl + extra >= PATH_MAX)
        return fail(err, len, "results path '%.64s...' is too long: its temporary copy's path would exceed "
                    "PATH_MAX (%d)", path, PATH_MAX);
    memcpy(t->base, slash + 1, bl + 1);
    const char *sep = strcmp(t->dir, "/") ? "/" : "";
    snprintf(t->path, sizeof(t->path), "%s%s%s", t->dir, sep, t->base);
    snprintf(t->lock, sizeof(t->lock), "%s%s.%s.lock", t->dir, sep, t->base);
    snprintf(t->tmp, sizeof(t->tmp), "%s%s.%s.tmp.%s.%ld", t->dir, sep, t->base, t->host, (long)getpid());
    return 0;
}

/* chattr +i / +a: rename can neither replace such a file nor change such a
 * directory. 0 when neither is set or the file system keeps no such flags. */
static int check_fs_flags(const char *p, int is_dir, const struct target *t, char *err, size_t len)
{
    int fd = open(p, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
    int fl = 0;
    if (fd < 0)
        return 0; /* whatever stops the open is found by the checks that follow */
    if (ioctl(fd, FS_IOC_GETFLAGS, &fl) != 0)
        fl = 0;
    close(fd);
    const char *what = fl & FS_IMMUTABLE_FL ? "immutable (chattr +i)" : fl & FS_APPEND_FL ? "append-only (chattr +a)"
                                                                                         : NULL;
    if (!what)
        return 0;
    if (is_dir)
        return fail(err, len, "cannot record results beside '%s': directory %s is %s, so the new copy of the results "
                    "file cannot be made or renamed there; clear the flag (chattr -%c) or give -o elsewhere", t->given,
                    p, what, fl & FS_IMMUTABLE_FL ? 'i' : 'a');
    return fail(err, len, "results file '%s' (%s) is %s: pfsbench appends by replacing the file with a new copy, "
                "which that forbids; clear the flag (chattr -%c) or give -o another file", t->given, p, what,
                fl & FS_IMMUTABLE_FL ? 'i' : 'a');
}

static int in_group(gid_t g)
{
    if (g == getegid())
        return 1;
    gid_t gs[256];
    int n = getgroups(256, gs);
    for (int i = 0; i < n; i++)
        if (gs[i] == g)
            return 1;
    return 0;
}

/* An existing results file: what the rename would lose is refused. */
static int check_existing(const struct target *t, const struct stat *st, char *err, size_t len)
{
    const char *g = t->given, *p = t->path;
    if (S_ISDIR(st->st_mode))
        return fail(err, len, "results path '%s' is a directory; give -o a file name", g);
    if (!S_ISREG(st->st_mode))
        return fail(err, len, "results path '%s' is not a regular file", g);
    if (st->st_nlink > 1)
        return fail(err, len, "results file '%s' has %lu hard links: pfsbench appends by renaming a new copy over it, "
                    "which would leave the other names on the old file; give -o a file with one link (cp it to a new "
                    "name)", g, (unsigned long)st->st_nlink);
    if (check_fs_flags(p, 0, t, err, len) != 0) /* before access(), whose EPERM would not say why */
        return -1;
    if (access(p, R_OK | W_OK) != 0)
        return fail(err, len, "results file '%s' is not readable and writable (%s)", g, strerror(errno));
    /* The copy is made by us: only root can give it another owner, and
     * anyone else only a group of theirs. */
    if (geteuid() != 0 && (st->st_uid != geteuid() || !in_group(st->st_gid)))
        return fail(err, len, "results file '%s' belongs to uid %u gid %u: its new copy would belong to you (uid %u), "
                    "so appending would change its owner; run as its owner or give -o another file", g,
                    (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)geteuid());
    if (H5Fis_hdf5(p) <= 0)
        return fail(err, len, "'%s' is not an HDF5 file; give -o a new name or a pfsbench results file", g);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return fail(err, len, "cannot open results file '%s' with HDF5", g);
    int rc = check_format(f, g, err, len);
    H5Fclose(f);
    return rc;
}

static int lock_refused(const struct target *t, int e, char *err, size_t len)
{
    return fail(err, len, "the file system of '%s' refuses file locks on %s (%s): without a lock, runs appending from "
                "several clients at once could drop each other's results, so pfsbench does not record the run there; "
                "give -o a file on a file system with locks (local disk, NFSv4, GlusterFS, Lustre mounted with "
                "-o flock, GPFS)", t->given, t->lock, strerror(e));
}

/* The lock file: a regular file beside the results file, never removed (a
 * removal would race with a writer that just opened it). Locks on a
 * regular file cross clients on GlusterFS, NFSv4, Lustre (-o flock) and
 * GPFS; a flock on a directory is kept per client by FUSE. */
static int lock_open(const struct target *t, mode_t mode, char *err, size_t len)
{
    int fd = open(t->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return fail(err, len, "lock file %s of results path '%s' is a symbolic link; pfsbench never follows "
                        "one there: remove it", t->lock, t->given);
        return fail(err, len, "cannot create or open lock file %s of results path '%s': %s", t->lock, t->given,
                    strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, len, "lock file %s of results path '%s' is not a regular file: remove it", t->lock, t->given);
    }
    return fd;
}

/* One try at the whole-file write lock: 0 taken, 1 held by another writer,
 * -1 refused by the file system (err set). OFD locks belong to the open
 * file, so two appends in one process exclude each other too; a kernel or
 * file system without them gets the classic POSIX lock. */
static int lock_try(int fd, int *cmd, const struct target *t, char *err, size_t len)
{
    for (;;) {
        struct flock fl;
        memset(&fl, 0, sizeof(fl));
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, *cmd, &fl) == 0)
            return 0;
        int e = errno;
        if (e == EINTR)
            continue;
        if (e == EINVAL && *cmd == F_OFD_SETLK) {
            *cmd = F_SETLK;
            continue;
        }
        if (e == EAGAIN || e == EACCES)
            return 1;
        return lock_refused(t, e, err, len);
    }
}

static void lock_release(int fd, int cmd)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    fcntl(fd, cmd, &fl);
}

/* Waits for the lock by polling, with a limit, so that a writer stuck on
 * a dead client never hangs this run forever. */
static int lock_take(int fd, int *cmd, const struct target *t, char *err, size_t len)
{
    struct timespec nap = {0, 1000000};
    double waited = 0;
    for (;;) {
        int r = lock_try(fd, cmd, t, err, len);
        if (r <= 0)
            return r;
        if (waited >= LOCK_WAIT_S)
            return fail(err, len, "waited %d s for the lock on %s (another pfsbench appending to '%s' holds it); the "
                        "run is not recorded", LOCK_WAIT_S, t->lock, t->given);
        nanosleep(&nap, NULL);
        waited += (double)nap.tv_nsec / 1e9;
        if (nap.tv_nsec < 200000000)
            nap.tv_nsec *= 2;
    }
}

/* The directory must let us make the copy and rename it: tried for real
 * (root passes every permission check, not an immutable flag or a
 * read-only mount), and the lock file must be creatable and lockable. */
static int check_dir_and_lock(const struct target *t, mode_t mode, char *err, size_t len)
{
    struct stat st;
    if (stat(t->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fail(err, len, "the directory of results path '%s' does not exist or is not a directory; create it "
                    "or give -o elsewhere", t->given);
    if (check_fs_flags(t->dir, 1, t, err, len) != 0)
        return -1;
    if (access(t->dir, W_OK | X_OK) != 0)
        return fail(err, len, "cannot write results beside '%s': directory %s is not writable (%s)", t->given, t->dir,
                    strerror(errno));
    /* The very name the append will create; ours (this pid), so no other
     * writer touches it. */
    unlink(t->tmp);
    int fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(err, len, "cannot create files beside '%s' in %s (%s); give -o elsewhere", t->given, t->dir,
                    strerror(errno));
    close(fd);
    unlink(t->tmp);
    fd = lock_open(t, mode, err, len);
    if (fd < 0)
        return -1;
    int cmd = F_OFD_SETLK;
    int r = lock_try(fd, &cmd, t, err, len);
    if (r == 0)
        lock_release(fd, cmd);
    close(fd);
    return r < 0 ? -1 : 0; /* held by another writer: lockable */
}

int pfs_results_check(const char *path, char *err, size_t len)
{
    quiet_hdf5();
    struct target t;
    if (resolve_target(path, &t, err, len) != 0)
        return -1;
    struct stat st;
    int exists = stat(t.path, &st) == 0;
    if (!exists && errno != ENOENT)
        return fail(err, len, "results path '%s': %s", path, strerror(errno));
    if (exists && check_existing(&t, &st, err, len) != 0)
        return -1;
    return check_dir_and_lock(&t, exists ? (st.st_mode & 0666) : 0644, err, len);
}

/* ---- the append ---- */

/* Whether the temporary copy named .BASE.tmp.<rest> is provably stale:
 * made on this host by a process that no longer exists. A copy of another
 * host is never judged: its pid means nothing here, and it may be in
 * flight on a client whose lock we cannot see. */
static int copy_is_stale(const char *rest, const char *host)
{
    const char *dot = strrchr(rest, '.');
    if (!dot || (size_t)(dot - rest) != strlen(host) || strncmp(rest, host, (size_t)(dot - rest)) != 0)
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(dot + 1, &end, 10);
    if (end == dot + 1 || *end || errno || pid <= 0 || pid > INT_MAX)
        return 0;
    if (pid == (long)getpid())
        return 1; /* our own name, left by an earlier process with this pid: we hold no copy yet */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Under the lock. A live writer on this host holds the lock while its copy
 * exists, so a copy seen here is a dead writer's; the pid test is for
 * file systems whose lock does not cross clients after all. */
static void remove_stale_copies(int dfd, const struct target *t)
{
    char prefix[NAME_MAX + 16];
    int n = snprintf(prefix, sizeof(prefix), ".%s.tmp.", t->base);
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dh) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dh)))
        if (strncmp(e->d_name, prefix, (size_t)n) == 0 && copy_is_stale(e->d_name + n, t->host))
            unlinkat(dfd, e->d_name, 0);
    closedir(dh);
}

/* Reads all of fd into a new buffer. 0, or -1 with errno of the failing call. */
static int read_all(int fd, size_t hint, char **out, size_t *outn)
{
    size_t cap = hint > 0 ? hint + 1 : 65536, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return -1;
            }
            buf = nb, cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *out = buf, *outn = n;
    return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* The new file, built in memory by HDF5's core driver without a backing
 * store: HDF5 itself never writes to disk, so a full disk cannot fail
 * inside HDF5 (HDF5 1.10 leaves the file id open after a failed H5Fclose,
 * and its clean-up at exit then crashes); every byte goes to disk through
 * write_all, with the errno of the call that failed. old: the current
 * file's bytes, or NULL for a new file. */
static int build_image(const struct target *t, const char *old, size_t oldn, const struct pfs_run_data *d, char *name,
                       size_t namelen, char **img, size_t *imgn, char *err, size_t len)
{
    *img = NULL, *imgn = 0;
    int rc = -1;
    hid_t f = -1, fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0 ||
        (old && H5Pset_file_image(fapl, (void *)old, oldn) < 0)) {
        fail(err, len, "cannot set up HDF5's in-memory file for '%s' (out of memory?)", t->given);
        goto out;
    }
    /* With an image the core driver insists that no file of this name
     * exists: the copy's name, which is ours and not yet made. */
    f = old ? H5Fopen(t->tmp, H5F_ACC_RDWR, fapl) : H5Fcreate(t->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        fail(err, len, old ? "cannot open results file '%s' with HDF5" : "cannot create an HDF5 file in memory for '%s'",
             t->given);
        goto out;
    }
    if (old && check_format(f, t->given, err, len) != 0)
        goto out;
    if (!old && (attr_str(f, "format", PFS_RESULTS_FORMAT) || attr_int(f, "format_version", PFS_RESULTS_VERSION))) {
        fail(err, len, "cannot write the format attributes");
        goto out;
    }
    if (write_run(f, d, name, namelen) != 0) {
        fail(err, len, "writing the run into HDF5 (in memory) failed");
        goto out;
    }
    ssize_t n = H5Fflush(f, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(f, NULL, 0);
    if (n > 0 && (*img = malloc((size_t)n)) && H5Fget_file_image(f, *img, (size_t)n) == n) {
        *imgn = (size_t)n;
        rc = 0;
    } else {
        fail(err, len, "cannot take the new file's image from HDF5 (out of memory?)");
    }
out:
    /* No backing store: closing writes nothing and cannot meet a full disk. */
    if (f >= 0 && H5Fclose(f) < 0 && rc == 0)
        rc = fail(err, len, "closing the in-memory HDF5 file failed");
    if (fapl >= 0)
        H5Pclose(fapl);
    if (rc != 0) {
        free(*img);
        *img = NULL;
    }
    return rc;
}

/* Writes the copy with the old file's owner and mode, fsync'ed. On any
 * failure the copy is removed and err names the errno of the failing call. */
static int write_copy(const struct target *t, const char *img, size_t n, const struct stat *old, char *err, size_t len)
{
    int fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(err, len, "cannot create %s: %s; '%s' is as it was", t->tmp, strerror(errno), t->given);
    const char *what = NULL;
    int e = 0;
    if (write_all(fd, img, n) != 0)
        e = errno, what = "write";
    else if (old && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
             fchown(fd, old->st_uid, old->st_gid) != 0)
        e = errno, what = "chown";
    else if (old && fchmod(fd, old->st_mode & 07777) != 0)
        e = errno, what = "chmod";
    /* A test hook: die with the copy written, as a crash or kill -9 would. */
    else if (getenv("PFSBENCH_TEST_CRASH_IN_RESULTS"))
        abort();
    else if (fsync(fd) != 0)
        e = errno, what = "fsync";
    if (close(fd) != 0 && !e) /* NFS reports a full disk or quota at close */
        e = errno, what = "close";
    if (e) {
        unlink(t->tmp);
        return fail(err, len, "%s of %s failed: %s; '%s' is as it was", what, t->tmp, strerror(e), t->given);
    }
    return 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* One attempt, under the lock: 0 appended, -1 failed (err set), 1 the file
 * was replaced by someone else meanwhile (nothing changed by us). The old
 * file stays open until the rename, so its inode cannot be reused and
 * mistaken for the same file. */
static int append_once(const struct target *t, const struct pfs_run_data *d, char *name, size_t namelen, char *err,
                       size_t len)
{
    struct stat st, now;
    memset(&st, 0, sizeof(st));
    char *old = NULL, *img = NULL;
    size_t oldn = 0, imgn = 0;
    int rc = -1;
    int fd = open(t->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno != ENOENT)
        return fail(err, len, "cannot open results file '%s': %s", t->given, strerror(errno));
    if (fd >= 0) {
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
            fail(err, len, "results file '%s' is no longer a regular file with one link; the run is not recorded",
                 t->given);
            goto out;
        }
        if (read_all(fd, (size_t)st.st_size, &old, &oldn) != 0) {
            fail(err, len, "cannot read results file '%s': %s", t->given, strerror(errno));
            goto out;
        }
    }
    if (build_image(t, old, oldn, d, name, namelen, &img, &imgn, err, len) != 0)
        goto out;
    if (write_copy(t, img, imgn, fd >= 0 ? &st : NULL, err, len) != 0)
        goto out;
    /* A writer that did not see our lock (a lock that does not cross
     * clients after all) may have renamed its copy over the file meanwhile:
     * ours would drop its run. Start again from its file instead. */
    int exists = lstat(t->path, &now) == 0;
    if (exists != (fd >= 0) || (exists && !same_file(&st, &now))) {
        unlink(t->tmp);
        rc = 1;
        goto out;
    }
    if (rename(t->tmp, t->path) != 0) {
        int e = errno;
        unlink(t->tmp);
        fail(err, len, "rename %s to %s: %s; '%s' is as it was", t->tmp, t->path, strerror(e), t->given);
        goto out;
    }
    rc = 0;
out:
    free(old);
    free(img);
    if (fd >= 0)
        close(fd);
    return rc;
}

int pfs_results_append(const char *path, const struct pfs_run_data *d, char *name, size_t namelen, char *err,
                       size_t errlen)
{
    quiet_hdf5();
    struct target t;
    if (resolve_target(path, &t, err, errlen) != 0)
        return -1;
    struct stat st;
    int lfd = lock_open(&t, stat(t.path, &st) == 0 ? (st.st_mode & 0666) : 0644, err, errlen);
    if (lfd < 0)
        return -1;
    int cmd = F_OFD_SETLK, dfd = -1, rc = -1;
    if (lock_take(lfd, &cmd, &t, err, errlen) != 0) {
        close(lfd);
        return -1;
    }
    dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        fail(err, errlen, "cannot open directory %s: %s", t.dir, strerror(errno));
        goto out;
    }
    remove_stale_copies(dfd, &t);
    for (int attempt = 0; attempt < 3 && rc != 0; attempt++)
        if ((rc = append_once(&t, d, name, namelen, err, errlen)) < 0)
            goto out;
    if (rc == 1) {
        rc = fail(err, errlen, "results file '%s' was replaced by another writer 3 times while this one held the lock "
                  "%s: the file system does not honour the lock across clients; the run is not recorded (give each "
                  "client its own -o file)", t.given, t.lock);
        goto out;
    }
    fsync(dfd); /* the rename is durable; some file systems cannot fsync a directory, which is no error */
out:
    if (dfd >= 0)
        close(dfd);
    lock_release(lfd, cmd);
    close(lfd);
    return rc;
}
