/* The HDF5 results file's run group: its attributes (provenance, every
 * option), the placement table and node_hosts; the types the schema's
 * tables make (pfs/schema.h). The phase groups are phase_h5.c, /summary
 * summary_h5.c, the file as a whole image.c, the append's integrity
 * append.c. Only src/results/ speaks HDF5. */
#define _GNU_SOURCE
#include "results_int.h"

#include "pfs/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int pfs_res_attr_i64(hid_t obj, const char *name, long long v)
{
    return pfs_res_attr_num(obj, name, H5T_NATIVE_LLONG, &v);
}

int pfs_res_attr_u64(hid_t obj, const char *name, uint64_t v)
{
    return pfs_res_attr_num(obj, name, H5T_NATIVE_UINT64, &v);
}

int pfs_res_attr_f64(hid_t obj, const char *name, double v)
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
    case PFS_FIELD_INT: return pfs_res_attr_i64(g, f->key, f->i);
    case PFS_FIELD_U64: return pfs_res_attr_u64(g, f->key, f->u);
    case PFS_FIELD_DBL: return pfs_res_attr_f64(g, f->key, f->d);
    default: return pfs_res_attr_str(g, f->key, f->s);
    }
}

/* ---- types and datasets ---- */

/* The string type of every compound field and string dataset: UTF-8,
 * variable-length (h5py gives str or bytes, never padded, never cut). */
hid_t pfs_res_vstr_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

hid_t pfs_res_native(enum pfs_sch_type t)
{
    switch (t) {
    case PFS_SCH_INT32: return H5T_NATIVE_INT32;
    case PFS_SCH_INT64: return H5T_NATIVE_INT64;
    case PFS_SCH_UINT32: return H5T_NATIVE_UINT32;
    case PFS_SCH_UINT64: return H5T_NATIVE_UINT64;
    case PFS_SCH_FLOAT64: return H5T_NATIVE_DOUBLE;
    default: return -1;
    }
}

hid_t pfs_res_compound(const struct pfs_sch_table *t, size_t size,
                       int (*fixed)(const struct pfs_sch_field *f, void *arg, size_t *off, hid_t *type), void *arg)
{
    hid_t c = H5Tcreate(H5T_COMPOUND, size);
    for (size_t i = 0; i < t->n; i++) {
        const struct pfs_sch_field *f = &t->field[i];
        size_t off = f->offset;
        hid_t m = -1;
        if (f->type == PFS_SCH_STRING && !(fixed && fixed(f, arg, &off, &m)))
            m = pfs_res_vstr_type();
        H5Tinsert(c, f->name, off, m >= 0 ? m : pfs_res_native(f->type));
        if (m >= 0)
            H5Tclose(m);
    }
    return c;
}

/* A compound memory type's file type: its members packed, without the
 * gaps where the memory row keeps what is not written. */
hid_t pfs_res_packed(hid_t mtype)
{
    hid_t t = H5Tcopy(mtype);
    H5Tpack(t);
    return t;
}

int pfs_res_write_dcpl(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                       const void *data, const char *units, hid_t dcpl)
{
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(loc, name, ftype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = ds < 0 ? -1 : (H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ? -1 : 0);
    if (ds >= 0) {
        if (rc == 0 && units)
            rc = pfs_res_attr_str(ds, "units", units);
        H5Dclose(ds);
    }
    H5Sclose(s);
    return rc;
}

int pfs_res_write_typed(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                        const void *data, const char *units)
{
    return pfs_res_write_dcpl(loc, name, ftype, mtype, rank, dims, data, units, H5P_DEFAULT);
}

int pfs_res_write_array(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data,
                        const char *units)
{
    return pfs_res_write_typed(loc, name, type, type, rank, dims, data, units);
}

/* ---- the placement table ---- */

/* The text fields are pointers (variable-length UTF-8 in the file) into
 * the row's own NUL-terminated copies. */
struct placement_row {
    struct pfs_placement_row r; /* first: the schema's offsets are this row's */
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
    hid_t t = pfs_res_vstr_type();
    hsize_t n = (hsize_t)d->nnodes;
    int rc = pfs_res_write_array(g, "node_hosts", t, 1, &n, p, "host name of node k (the K axis of every node_* dataset)");
    H5Tclose(t);
    free(p);
    free(h);
    return rc;
}

static void fill_placement_row(struct placement_row *row, const struct pfs_run_data *d, int r)
{
    int src = d->reads_from ? d->reads_from[r] : (r + d->reorder_shift) % d->nranks;
    struct pfs_placement_row *p = &row->r;
    p->rank = r;
    p->node = d->node_of_rank[r];
    memcpy(row->host_b, d->hosts[r], PFS_HOST_MAX - 1);
    p->clock_correction = d->clock_corr ? d->clock_corr[r] : 0;
    p->clock_uncertainty = d->clock_unc ? d->clock_unc[r] : 0;
    p->reads_from_rank = src;
    p->reads_from_node = d->node_of_rank[src];
    p->cpus = -1; /* not recorded */
    if (d->affinity) {
        const struct pfs_affinity *a = &d->affinity[r];
        memcpy(row->cpu_affinity_b, a->cpu_affinity, sizeof(row->cpu_affinity_b) - 1);
        memcpy(row->numa_nodes_b, a->numa_nodes, sizeof(row->numa_nodes_b) - 1);
        p->cpus = a->cpus;
    }
    p->host = row->host_b;
    p->cpu_affinity = row->cpu_affinity_b;
    p->numa_nodes = row->numa_nodes_b;
}

static int write_placement(hid_t g, const struct pfs_run_data *d)
{
    struct placement_row *rows = calloc((size_t)d->nranks, sizeof(*rows));
    if (!rows)
        return -1;
    for (int r = 0; r < d->nranks; r++)
        fill_placement_row(&rows[r], d, r);
    const struct pfs_sch_table *tb = pfs_schema_table("placement");
    hid_t t = pfs_res_compound(tb, sizeof(struct placement_row), NULL, NULL);
    hid_t ft = pfs_res_packed(t); /* the row's buffers stay out of the file */
    hsize_t n = (hsize_t)d->nranks;
    int rc = pfs_res_write_typed(g, "placement", ft, t, 1, &n, rows, tb->units);
    H5Tclose(ft);
    H5Tclose(t);
    free(rows);
    return rc || write_node_hosts(g, d);
}

/* --ceilings: a row per node, and the clients' sums as the run's
 * attributes ceiling_memory and ceiling_network (NaN with one node). */
static int write_ceilings(hid_t g, const struct pfs_run_data *d)
{
    const struct pfs_ceilings *c = d->ceil;
    if (!c)
        return 0;
    struct pfs_ceiling_row *rows = calloc((size_t)(c->nnodes > 0 ? c->nnodes : 1), sizeof(*rows));
    if (!rows)
        return -1;
    for (int n = 0; n < c->nnodes; n++)
        rows[n] = (struct pfs_ceiling_row){.node = n, .host = c->node[n].host, .memcpy_one_core = c->node[n].memcpy_one,
                                           .memcpy_all_cores = c->node[n].memcpy_all, .network = c->node[n].network};
    const struct pfs_sch_table *tb = pfs_schema_table("ceilings");
    hid_t t = pfs_res_compound(tb, sizeof(*rows), NULL, NULL);
    hid_t ft = pfs_res_packed(t);
    hsize_t n = (hsize_t)c->nnodes;
    int rc = pfs_res_write_typed(g, "ceilings", ft, t, 1, &n, rows, tb->units);
    H5Tclose(ft);
    H5Tclose(t);
    free(rows);
    rc |= pfs_res_attr_f64(g, "ceiling_memory", c->memory);
    return rc | pfs_res_attr_f64(g, "ceiling_network", c->network);
}

int pfs_res_write_run(hid_t file, const struct pfs_run_data *d, int run_no, char *name, size_t namelen)
{
    const struct pfs_config *cfg = d->cfg;
    if (d->nphases > 0 && (!d->fig.phase || d->fig.nphases != d->nphases))
        return -1; /* the figures were not computed (pfs_run_figures): nothing to write */
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
    rc |= pfs_res_attr_f64(g, "concurrent_overlap_start", d->conc_start);
    rc |= pfs_res_attr_f64(g, "concurrent_overlap_seconds", d->conc_overlap_s);
    rc |= pfs_res_attr_f64(g, "concurrent_span_seconds", d->conc_span_s);
    rc |= pfs_res_attr_f64(g, "concurrent_clock_correction", d->conc_clock_corr);
    /* A group with `interference = 1`: which run this is, and the group's figures on the together run. */
    const int together = d->ifr_mode && strcmp(d->ifr_mode, "together") == 0;
    static const char *const verdict[] = {"unknown", "fail", "pass"};
    rc |= pfs_res_attr_str(g, "interference", d->ifr_mode);
    rc |= pfs_res_attr_f64(g, "interference_jain", together ? d->ifr_jain : NAN);
    rc |= pfs_res_attr_i64(g, "interference_jain_sections", together ? d->ifr_jain_n : 0);
    rc |= pfs_res_attr_str(g, "qos", together ? d->ifr_qos : "");
    rc |= pfs_res_attr_str(g, "qos_result", together && d->ifr_qos && d->ifr_qos[0] ? verdict[d->ifr_qos_pass + 1] : "");
    rc |= pfs_res_attr_str(g, "qos_detail", together ? d->ifr_qos_why : "");
    rc |= pfs_res_attr_str(g, "pfsbench_version", PFS_VERSION);
    rc |= pfs_res_attr_str(g, "git_revision", PFS_GIT_REV);
    rc |= pfs_res_attr_str(g, "mpi_library", d->mpi_version);
    rc |= pfs_res_attr_str(g, "hdf5_version", pfs_results_hdf5_version());
    rc |= pfs_res_attr_i64(g, "ranks", d->nranks);
    rc |= pfs_res_attr_i64(g, "nodes", d->nnodes);
    rc |= pfs_res_attr_f64(g, "ranks_per_node", (double)d->nranks / d->nnodes);
    rc |= pfs_res_attr_str(g, "dir", cfg->dir);
    rc |= pfs_res_attr_str(g, "fs_type", d->fstype);
    /* The mount's own word for what it is (fs_type is statfs's: "fuse"
     * for every FUSE file system), where it is mounted from and how. */
    rc |= pfs_res_attr_str(g, "fs_mount_type", d->fs.mount_type);
    rc |= pfs_res_attr_str(g, "fs_source", d->fs.source);
    rc |= pfs_res_attr_str(g, "fs_mount_point", d->fs.mount_point);
    rc |= pfs_res_attr_str(g, "fs_options", d->fs.options);
    rc |= pfs_res_attr_str(g, "fs_layout", d->fs.layout);
    rc |= pfs_res_attr_u64(g, "fs_block_size", d->fs.block_size);
    rc |= pfs_res_attr_str(g, "host_rank0", d->hosts[0]);
    rc |= pfs_res_attr_str(g, "clock", d->clock);
    rc |= pfs_res_attr_u64(g, "seed", d->seed);
    rc |= pfs_res_attr_str(g, "error", d->error);
    rc |= pfs_res_attr_str(g, "warnings", d->warnings); /* NULL: none, written as "" */
    rc |= pfs_res_attr_i64(g, "interrupt_signal", d->interrupt_signal);
    rc |= pfs_res_attr_i64(g, "reorder_shift", d->reorder_shift);
    /* What the kept data files hold (DIR/pfsbench.ID.kept): transfers per stream, 0: none kept. */
    rc |= pfs_res_attr_u64(g, "kept_transfers", d->kept ? d->kept_xfers : 0);
    rc |= pfs_res_attr_i64(g, "round_robin_asked", d->round_robin_asked);
    /* Every resolved option, one attribute each, typed as the option table
     * says (the keys of describe), and the whole as text. */
    rc |= pfs_config_fields(cfg, attr_field, &g) != 0;
    rc |= pfs_res_attr_i64(g, "streams", pfs_run_nstreams(d));
    char *conf = malloc(8192);
    if (conf) {
        pfs_config_describe(cfg, conf, 8192);
        rc |= pfs_res_attr_str(g, "config", conf);
        free(conf);
    }
    rc |= write_placement(g, d);
    rc |= write_ceilings(g, d);

    hid_t phases = H5Gcreate2(g, "phases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (phases < 0)
        rc = -1;
    for (int p = 0; p < d->nphases && rc == 0; p++)
        rc |= pfs_res_write_phase(phases, d, p);
    if (phases >= 0)
        H5Gclose(phases);
    H5Gclose(g);
    if (rc == 0)
        rc = pfs_res_append_summary(file, d, run_no);
    return rc;
}

int pfs_res_write_format(hid_t file)
{
    return pfs_res_attr_str(file, "format", PFS_RESULTS_FORMAT) || pfs_res_attr_i64(file, "format_version", PFS_RESULTS_VERSION);
}
