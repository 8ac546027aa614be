/* /summary: one row per run, phase and repetition, appended with each run
 * (its fields: the schema's "summary" table, pfs/schema.h). A table an
 * older pfsbench made with fixed-length strings keeps them. */
#include "results_int.h"

#include <stdlib.h>
#include <string.h>

#define STR_SHORT 64
#define STR_LABEL 128

/* A row holds its text twice: as pointers (the variable-length UTF-8
 * fields every file made by this pfsbench has) and as fixed-length copies
 * (for appending to a file whose /summary an older pfsbench made with
 * fixed-length fields: HDF5 converts none into the other, and one dataset
 * keeps one type). The memory type picks one of the two by name. */
struct summary_row {
    struct pfs_summary_row r; /* first: the schema's offsets are this row's */
    char run_id_f[STR_SHORT];
    char label_f[STR_LABEL];
    char status_f[16];
    char phase_f[16];
};

/* The fixed-length copy of each string field, and its length. */
static const struct {
    const char *name;
    size_t off, len;
} FIXED[] = {
    {"run_id", offsetof(struct summary_row, run_id_f), STR_SHORT},
    {"label", offsetof(struct summary_row, label_f), STR_LABEL},
    {"status", offsetof(struct summary_row, status_f), 16},
    {"phase", offsetof(struct summary_row, phase_f), 16},
};

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

/* For an older table's type (arg): a string field as its fixed-length copy
 * in the table's character set. */
static int fixed_field(const struct pfs_sch_field *f, void *arg, size_t *off, hid_t *type)
{
    const hid_t file_type = *(const hid_t *)arg;
    for (size_t i = 0; i < sizeof(FIXED) / sizeof(FIXED[0]); i++)
        if (!strcmp(FIXED[i].name, f->name)) {
            *off = FIXED[i].off;
            *type = H5Tcopy(H5T_C_S1);
            H5Tset_size(*type, FIXED[i].len);
            H5Tset_strpad(*type, H5T_STR_NULLTERM);
            H5Tset_cset(*type, field_cset(file_type, f->name));
            return 1;
        }
    return 0;
}

/* The memory type of a row: variable-length strings, or (fixed >= 0: the
 * file type of an older table) the fixed-length copies in its character set. */
static hid_t summary_type(hid_t fixed)
{
    return pfs_res_compound(pfs_schema_table("summary"), sizeof(struct summary_row), fixed >= 0 ? fixed_field : NULL,
                            &fixed);
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

static hid_t create_summary(hid_t file)
{
    hid_t m = summary_type(-1), t = pfs_res_packed(m);
    H5Tclose(m);
    hsize_t dims = 0, maxd = H5S_UNLIMITED, chunk = 64;
    hid_t s = H5Screate_simple(1, &dims, &maxd);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, 1, &chunk);
    hid_t ds = H5Dcreate2(file, "summary", t, s, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Pclose(pl);
    H5Sclose(s);
    H5Tclose(t);
    if (ds >= 0 && pfs_res_attr_str(ds, "units", pfs_schema_table("summary")->units) != 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
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

/* Appends n rows to /summary at ds. */
static int extend(hid_t ds, hid_t t, const struct summary_row *rows, hsize_t n)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t cur;
    H5Sget_simple_extent_dims(fs, &cur, NULL);
    H5Sclose(fs);
    hsize_t newsize = cur + n;
    int rc = -1;
    if (H5Dset_extent(ds, &newsize) >= 0) {
        fs = H5Dget_space(ds);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &cur, NULL, &n, NULL);
        hid_t ms = H5Screate_simple(1, &n, NULL);
        rc = H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, rows) < 0 ? -1 : 0;
        H5Sclose(ms);
        H5Sclose(fs);
    }
    return rc;
}

/* Appends n rows to /summary, made here with variable-length strings. A
 * table an older pfsbench made keeps its fixed-length fields: the rows go
 * in as their fixed-length copies, so the file stays one readable table. */
static int append_rows(hid_t file, struct summary_row *rows, hsize_t n)
{
    hid_t ds = H5Lexists(file, "summary", H5P_DEFAULT) > 0 ? H5Dopen2(file, "summary", H5P_DEFAULT)
                                                            : create_summary(file);
    if (ds < 0)
        return -1;
    hid_t ft = summary_is_fixed(ds) ? H5Dget_type(ds) : -1;
    hid_t t = summary_type(ft);
    if (ft >= 0) {
        for (hsize_t i = 0; i < n; i++)
            for (size_t k = 0; k < sizeof(FIXED) / sizeof(FIXED[0]); k++) {
                const struct pfs_sch_field *f = pfs_schema_field(pfs_schema_table("summary"), FIXED[k].name);
                copy_fixed((char *)&rows[i] + FIXED[k].off, FIXED[k].len,
                           *(const char *const *)((const char *)&rows[i].r + f->offset));
            }
        H5Tclose(ft);
    }
    int rc = n > 0 ? extend(ds, t, rows, n) : 0;
    H5Tclose(t);
    H5Dclose(ds);
    return rc;
}

/* A row per phase and repetition of run d, from its figures. */
int pfs_res_append_summary(hid_t file, const struct pfs_run_data *d, int run_no)
{
    const struct pfs_config *cfg = d->cfg;
    size_t max = (size_t)d->nphases * (size_t)d->reps, n = 0;
    struct summary_row *rows = calloc(max > 0 ? max : 1, sizeof(*rows));
    if (!rows)
        return -1;
    for (int p = 0; p < d->nphases; p++)
        for (int rep = 0; rep < pfs_figs_reps(&d->fig, p); rep++) {
            const struct pfs_rep_figs *f = pfs_figs_rep(&d->fig, p, rep);
            struct pfs_summary_row *row = &rows[n++].r;
            /* The run's own strings, alive until the rows are written (NULL: ""). */
            *row = (struct pfs_summary_row){.run = run_no, .run_id = d->run_id, .label = cfg->label,
                                            .status = d->status ? d->status : "",
                                            .phase = pfs_phase_name(cfg->phases[p]), .rep = rep, .ranks = d->nranks,
                                            .nodes = d->nnodes, .threads = d->threads > 0 ? d->threads : 1,
                                            .transfer = cfg->transfer, .block = cfg->block};
            if (!f)
                continue;
            row->bytes = f->s.bytes, row->seconds = f->s.seconds, row->bandwidth = f->s.bandwidth;
            row->utilization = f->s.utilization, row->stonewall_bandwidth = f->s.sw_bandwidth;
            row->stonewall_rate = f->s.sw_rate, row->ops = f->s.ops, row->rate = f->s.rate, row->warmup = f->warmup;
        }
    int rc = append_rows(file, rows, (hsize_t)n);
    free(rows);
    return rc;
}
