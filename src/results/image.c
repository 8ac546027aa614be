/* The results file as a whole: the check of what an existing file must be
 * to take a run, and the new file built in memory (append.c writes it to
 * disk). */
#define _GNU_SOURCE
#include "results_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void pfs_res_quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ---- what an existing file must be to take a new run ----
 *
 * Everything the append reads, extends or numbers is checked here first,
 * each attribute's type and shape before a byte of it is read: a file
 * edited with h5py is refused with its reason before the benchmark runs,
 * never found unwritable after it, and never read past a buffer. */

#define WHAT_LEN 96
/* More /summary rows than any results file holds in practice (a copy of the
 * file per run at that size would take hours): a crafted extent, whose run
 * column the check would read for as long. */
#define SUMMARY_MAX_ROWS (1ULL << 27)
#define RUN_COLUMN_BLOCK 65536
#define REPAIR "see 'Repairing a results file' in docs/results-format.md, or give -o another file"

static const char *class_words(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER: return "an integer";
    case H5T_FLOAT: return "a floating-point number";
    case H5T_STRING: return "a string";
    case H5T_COMPOUND: return "a compound";
    case H5T_ENUM: return "an enumeration";
    case H5T_ARRAY: return "an array type";
    case H5T_VLEN: return "a variable-length sequence";
    case H5T_REFERENCE: return "a reference";
    case H5T_OPAQUE: return "opaque bytes";
    case H5T_BITFIELD: return "a bit field";
    case H5T_TIME: return "a time";
    default: return "of a type HDF5 cannot name";
    }
}

/* Attribute a holds exactly one value (a scalar, or an array of one): 1;
 * else 0 with its shape in what. */
static int one_value(hid_t a, char *what, size_t len)
{
    hid_t s = H5Aget_space(a);
    H5S_class_t k = s >= 0 ? H5Sget_simple_extent_type(s) : H5S_NO_CLASS;
    hssize_t n = k == H5S_SIMPLE ? H5Sget_simple_extent_npoints(s) : 0;
    int nd = k == H5S_SIMPLE ? H5Sget_simple_extent_ndims(s) : 0;
    if (s >= 0)
        H5Sclose(s);
    if (k == H5S_SCALAR || (k == H5S_SIMPLE && n == 1))
        return 1;
    if (k == H5S_NULL)
        snprintf(what, len, "empty (it holds no value)");
    else if (k == H5S_SIMPLE)
        snprintf(what, len, "an array of %lld values (%d-dimensional)", (long long)n, nd);
    else
        snprintf(what, len, "of a shape HDF5 cannot tell");
    return 0;
}

/* Opens attribute name of obj if it holds one value of class want: the
 * attribute (its type in *ft), 0 when obj has no such attribute, or -1
 * with what it is instead in what. */
static hid_t open_attr(hid_t obj, const char *name, H5T_class_t want, hid_t *ft, char *what, size_t len)
{
    *ft = -1;
    htri_t e = H5Aexists(obj, name);
    if (e == 0)
        return 0;
    hid_t a = e > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    if (t < 0) {
        snprintf(what, len, "unreadable");
    } else if (H5Tget_class(t) != want) {
        snprintf(what, len, "%s", class_words(H5Tget_class(t)));
    } else if (one_value(a, what, len)) {
        *ft = t;
        return a;
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return -1;
}

/* A string attribute (one value, any string type) into buf: 1 read, 0
 * absent, -1 not one string or unreadable (what says which). */
static int read_attr_str(hid_t obj, const char *name, char *buf, size_t len, char *what, size_t wlen)
{
    buf[0] = '\0';
    hid_t ft, a = open_attr(obj, name, H5T_STRING, &ft, what, wlen);
    if (a <= 0)
        return (int)a;
    int rc = -1;
    hid_t mt = H5Tcopy(ft); /* same character set: HDF5 converts none */
    if (H5Tis_variable_str(ft) > 0) {
        char *v = NULL;
        if (H5Aread(a, mt, &v) >= 0 && v) {
            snprintf(buf, len, "%s", v);
            rc = 1;
        }
        H5free_memory(v);
    } else {
        /* Fixed-length strings may be space- or null-padded without a
         * terminator: read into one byte more than HDF5 may fill. */
        size_t n = H5Tget_size(ft);
        char *v = calloc(1, n + 2);
        H5Tset_size(mt, n + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if (v && H5Aread(a, mt, v) >= 0) {
            snprintf(buf, len, "%s", v);
            rc = 1;
        }
        free(v);
    }
    if (rc < 0)
        snprintf(what, wlen, "unreadable");
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

/* An integer attribute (one value, any integer type) into *v: as read_attr_str. */
static int read_attr_ll(hid_t obj, const char *name, long long *v, char *what, size_t wlen)
{
    hid_t ft, a = open_attr(obj, name, H5T_INTEGER, &ft, what, wlen);
    if (a <= 0)
        return (int)a;
    int rc = H5Aread(a, H5T_NATIVE_LLONG, v) >= 0 ? 1 : -1;
    if (rc < 0)
        snprintf(what, wlen, "unreadable");
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

static int check_format(hid_t f, const char *path, char *err, size_t len)
{
    char fmt[64], what[WHAT_LEN];
    int r = read_attr_str(f, "format", fmt, sizeof(fmt), what, sizeof(what));
    if (r < 0)
        return fail(err, len, "'%s' is an HDF5 file but not a pfsbench results file: its attribute 'format' is %s, "
                    "not one string; give -o another path", path, what);
    if (r == 0 || strcmp(fmt, PFS_RESULTS_FORMAT) != 0)
        return fail(err, len, "'%s' is an HDF5 file but not a pfsbench results file; give -o another path", path);
    long long ver = 0;
    r = read_attr_ll(f, "format_version", &ver, what, sizeof(what));
    if (r == 0)
        return fail(err, len, "results file '%s' has no attribute 'format_version' (the version of its format, %d for "
                    "this pfsbench); %s", path, PFS_RESULTS_VERSION, REPAIR);
    if (r < 0)
        return fail(err, len, "results file '%s': its attribute 'format_version' is %s, not one integer (the version "
                    "of its format, %d for this pfsbench); %s", path, what, PFS_RESULTS_VERSION, REPAIR);
    if (ver < 1 || ver > PFS_RESULTS_VERSION)
        return fail(err, len, "'%s' has results format version %lld; this pfsbench writes version %d", path, ver,
                    PFS_RESULTS_VERSION);
    return 0;
}

/* Member name of the root group: 1 an object of type want (H5I_GROUP,
 * H5I_DATASET), through a hard or soft link; 0 absent; -1 something else
 * (what says what). An external link is refused: the append builds the
 * file in memory and could not write through it into another file. */
static int root_member(hid_t f, const char *name, H5I_type_t want, char *what, size_t len)
{
    htri_t e = H5Lexists(f, name, H5P_DEFAULT);
    if (e == 0)
        return 0;
    H5L_info_t li;
    if (e < 0 || H5Lget_info(f, name, &li, H5P_DEFAULT) < 0) {
        snprintf(what, len, "unreadable");
        return -1;
    }
    if (li.type != H5L_TYPE_HARD && li.type != H5L_TYPE_SOFT) {
        snprintf(what, len, "%s link", li.type == H5L_TYPE_EXTERNAL ? "an external" : "a user-defined");
        return -1;
    }
    if (H5Oexists_by_name(f, name, H5P_DEFAULT) <= 0) {
        snprintf(what, len, "a soft link to nothing");
        return -1;
    }
    hid_t o = H5Oopen(f, name, H5P_DEFAULT);
    H5I_type_t t = o >= 0 ? H5Iget_type(o) : H5I_BADID;
    if (o >= 0)
        H5Oclose(o);
    if (t == want)
        return 1;
    snprintf(what, len, "%s", t == H5I_GROUP ? "a group" : t == H5I_DATASET ? "a dataset" : t == H5I_DATATYPE
                                                                                            ? "a named datatype"
                                                                                            : "unreadable");
    return -1;
}

/* A run group's number: its name, all digits (saturating), or -1 (not a
 * run: the readers pass over such names too). */
static long long run_number(const char *name)
{
    long long v = 0;
    if (!*name)
        return -1;
    for (const char *p = name; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v > (LLONG_MAX - 9) / 10 ? LLONG_MAX : v * 10 + (*p - '0');
    }
    return v;
}

static herr_t top_run_name(hid_t g, const char *name, const H5L_info_t *info, void *top)
{
    (void)g, (void)info;
    long long v = run_number(name);
    if (v > *(long long *)top)
        *(long long *)top = v;
    return 0;
}

/* /runs: a group; *top: the largest number among its names. */
static int check_runs(hid_t f, const char *g, long long *top, char *err, size_t len)
{
    char what[WHAT_LEN];
    int r = root_member(f, "runs", H5I_GROUP, what, sizeof(what));
    if (r == 0)
        return 0;
    if (r < 0)
        return fail(err, len, "results file '%s' cannot take a new run: its /runs is %s, not the group of runs; %s", g,
                    what, REPAIR);
    hid_t runs = H5Gopen2(f, "runs", H5P_DEFAULT);
    hsize_t at = 0;
    herr_t it = runs >= 0 ? H5Literate(runs, H5_INDEX_NAME, H5_ITER_NATIVE, &at, top_run_name, top) : -1;
    if (runs >= 0)
        H5Gclose(runs);
    if (it < 0)
        return fail(err, len, "results file '%s': cannot list the runs in its /runs group; %s", g, REPAIR);
    return 0;
}

/* Filters /summary's chunks pass through: each must be one this HDF5
 * library can apply both ways (a new row may land in a chunk already
 * written, which is read, then written again). */
static int check_filters(hid_t ds, const char *g, char *err, size_t len)
{
    hid_t pl = H5Dget_create_plist(ds);
    int n = pl >= 0 ? H5Pget_nfilters(pl) : -1, rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n && rc == 0; i++) {
        unsigned flags = 0, info = 0;
        size_t nv = 0;
        char name[64] = "";
        H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)i, &flags, &nv, NULL, sizeof(name), name, NULL);
        const unsigned both = H5Z_FILTER_CONFIG_ENCODE_ENABLED | H5Z_FILTER_CONFIG_DECODE_ENABLED;
        if (id < 0 || H5Zfilter_avail(id) <= 0 || H5Zget_filter_info(id, &info) < 0 || (info & both) != both)
            rc = fail(err, len, "results file '%s' cannot take a new run: its /summary passes through HDF5 filter %d "
                      "(%s), which this HDF5 library cannot apply; rewrite /summary without it (%s)", g, (int)id,
                      name[0] ? name : "unnamed", REPAIR);
    }
    if (n < 0)
        rc = fail(err, len, "results file '%s': cannot read the storage properties of its /summary; %s", g, REPAIR);
    if (pl >= 0)
        H5Pclose(pl);
    return rc;
}

/* /summary's storage: one dimension, chunked, unlimited; *rows: its length. */
static int check_extent(hid_t ds, const char *g, hsize_t *rows, char *err, size_t len)
{
    hid_t pl = H5Dget_create_plist(ds), sp = H5Dget_space(ds);
    H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t cur = 0, max = 0;
    if (nd == 1)
        H5Sget_simple_extent_dims(sp, &cur, &max);
    if (pl >= 0)
        H5Pclose(pl);
    if (sp >= 0)
        H5Sclose(sp);
    *rows = cur;
    if (nd != 1)
        return fail(err, len, "results file '%s' cannot take a new run: its /summary has %d dimensions, not one row "
                    "per run, phase and repetition; %s", g, nd, REPAIR);
    if (lay != H5D_CHUNKED)
        return fail(err, len, "results file '%s' cannot take a new run: its /summary is stored %s, not chunked, and "
                    "HDF5 cannot add rows to such a table; rewrite it chunked with maxshape=(None,) (%s)", g,
                    lay == H5D_CONTIGUOUS ? "contiguous" : lay == H5D_COMPACT ? "compact" : "in a layout HDF5 cannot "
                    "name", REPAIR);
    if (max != H5S_UNLIMITED)
        return fail(err, len, "results file '%s' cannot take a new run: its /summary cannot grow past its %llu rows "
                    "(its maximum size is fixed); rewrite it with maxshape=(None,) (%s)", g, (unsigned long long)cur,
                    REPAIR);
    if (cur > SUMMARY_MAX_ROWS)
        return fail(err, len, "results file '%s': its /summary claims %llu rows, more than a results file holds (a "
                    "damaged or crafted extent); give -o another file", g, (unsigned long long)cur);
    return 0;
}

/* The values of a field's type in words, for a message. */
static const char *field_words(hid_t t, char *buf, size_t len)
{
    H5T_class_t c = H5Tget_class(t);
    switch (c) {
    case H5T_STRING: return H5Tis_variable_str(t) > 0 ? "variable-length strings" : "fixed-length strings";
    case H5T_INTEGER:
    case H5T_FLOAT:
        snprintf(buf, len, "%zu-bit %s", H5Tget_precision(t), c == H5T_FLOAT ? "floating-point numbers"
                 : H5Tget_sign(t) == H5T_SGN_NONE ? "unsigned integers" : "integers");
        return buf;
    case H5T_COMPOUND: return "compounds";
    case H5T_ENUM: return "enumeration values";
    case H5T_ARRAY: return "arrays";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_REFERENCE: return "references";
    case H5T_BITFIELD: return "bit fields";
    default: return "values of a type pfsbench does not write";
    }
}

/* Whether a field of file type fm takes every value of memory type m as
 * it is: text into the same kind of string (HDF5 converts no
 * variable-length string into a fixed one); integers into integers at
 * least as wide or 64-bit floats, floats into floats of 32 bits or more.
 * HDF5 would clamp a value a narrower field cannot hold without a word:
 * a run numbered 256 stored as 255, a byte count cut. */
static int field_takes(hid_t fm, hid_t m)
{
    H5T_class_t mc = H5Tget_class(m), fc = H5Tget_class(fm);
    size_t fp = fc == H5T_INTEGER || fc == H5T_FLOAT ? H5Tget_precision(fm) : 0;
    if (mc == H5T_STRING)
        return fc == H5T_STRING && (H5Tis_variable_str(m) > 0) == (H5Tis_variable_str(fm) > 0);
    if (mc == H5T_INTEGER)
        return (fc == H5T_INTEGER && fp >= H5Tget_precision(m)) || (fc == H5T_FLOAT && fp >= 64);
    return fc == H5T_FLOAT && fp >= 32;
}

/* Each field the new rows write (the memory type mt) that the table has
 * (ft) takes them (field_takes). A field the table lacks (an older
 * pfsbench's) is left out by HDF5, but not 'run'. */
static int check_fields(hid_t ft, hid_t mt, const char *g, char *err, size_t len)
{
    int n = H5Tget_nmembers(mt), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char *name = H5Tget_member_name(mt, (unsigned)i);
        int j = name ? H5Tget_member_index(ft, name) : -1;
        if (j >= 0) {
            hid_t m = H5Tget_member_type(mt, (unsigned)i), fm = H5Tget_member_type(ft, (unsigned)j);
            char fw[64], mw[64];
            if (!field_takes(fm, m))
                rc = fail(err, len, "results file '%s' cannot take a new run: field '%s' of its /summary holds %s, where "
                          "pfsbench writes %s; %s", g, name, field_words(fm, fw, sizeof(fw)),
                          field_words(m, mw, sizeof(mw)), REPAIR);
            H5Tclose(m);
            H5Tclose(fm);
        } else if (name && strcmp(name, "run") == 0) {
            rc = fail(err, len, "results file '%s' cannot take a new run: its /summary has no field 'run' (which run "
                      "each row belongs to); %s", g, REPAIR);
        }
        H5free_memory(name);
    }
    return rc;
}

/* The largest run number in /summary's run column, read in blocks. */
static int summary_top_run(hid_t ds, hsize_t rows, long long *top)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(long long));
    H5Tinsert(t, "run", 0, H5T_NATIVE_LLONG);
    long long *v = malloc(sizeof(*v) * (rows < RUN_COLUMN_BLOCK ? rows + 1 : RUN_COLUMN_BLOCK));
    hid_t fs = H5Dget_space(ds);
    int rc = v && fs >= 0 ? 0 : -1;
    for (hsize_t at = 0; at < rows && rc == 0; at += RUN_COLUMN_BLOCK) {
        hsize_t n = rows - at < RUN_COLUMN_BLOCK ? rows - at : RUN_COLUMN_BLOCK;
        hid_t ms = H5Screate_simple(1, &n, NULL);
        if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &n, NULL) < 0 ||
            H5Dread(ds, t, ms, fs, H5P_DEFAULT, v) < 0)
            rc = -1;
        for (hsize_t i = 0; i < n && rc == 0; i++)
            if (v[i] > *top)
                *top = v[i];
        H5Sclose(ms);
    }
    if (fs >= 0)
        H5Sclose(fs);
    free(v);
    H5Tclose(t);
    return rc;
}

/* /summary, when there is one: a dataset the new rows can be added to;
 * *top: the largest run number among its rows. */
static int check_summary(hid_t f, const char *g, long long *top, char *err, size_t len)
{
    char what[WHAT_LEN];
    int r = root_member(f, "summary", H5I_DATASET, what, sizeof(what));
    if (r == 0)
        return 0; /* the append makes it */
    if (r < 0)
        return fail(err, len, "results file '%s' cannot take a new run: its /summary is %s, not the table of rows (a "
                    "dataset); %s", g, what, REPAIR);
    hid_t ds = H5Dopen2(f, "summary", H5P_DEFAULT), ft = ds >= 0 ? H5Dget_type(ds) : -1;
    hsize_t rows = 0;
    int rc = ft < 0 ? fail(err, len, "results file '%s': cannot open its /summary; %s", g, REPAIR) : 0;
    if (rc == 0 && H5Tget_class(ft) != H5T_COMPOUND)
        rc = fail(err, len, "results file '%s' cannot take a new run: its /summary holds %s per row, not named "
                  "fields (a compound type); %s", g, class_words(H5Tget_class(ft)), REPAIR);
    if (rc == 0)
        rc = check_extent(ds, g, &rows, err, len);
    if (rc == 0)
        rc = check_filters(ds, g, err, len);
    if (rc == 0) {
        hid_t mt = pfs_res_summary_mem_type(ds);
        rc = mt < 0 ? fail(err, len, "out of memory checking '%s'", g) : check_fields(ft, mt, g, err, len);
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (rc == 0 && summary_top_run(ds, rows, top) != 0)
        rc = fail(err, len, "results file '%s': cannot read the run column of its /summary; %s", g, REPAIR);
    if (ft >= 0)
        H5Tclose(ft);
    if (ds >= 0)
        H5Dclose(ds);
    return rc;
}

int pfs_res_check_structure(hid_t f, const char *g, int *next, char *err, size_t len)
{
    long long top = 0;
    if (check_format(f, g, err, len) != 0 || check_runs(f, g, &top, err, len) != 0 ||
        check_summary(f, g, &top, err, len) != 0)
        return -1;
    /* The largest number in use, in a group's name or a row: a deleted
     * group's rows keep its number from being given again. */
    if (top >= INT_MAX)
        return fail(err, len, "results file '%s' cannot take a new run: it already uses run number %lld, and the next "
                    "would not fit /summary's 32-bit run field; give -o another file", g, top);
    *next = (int)top + 1;
    return 0;
}

int pfs_res_check_file(const char *p, const char *g, char *err, size_t len)
{
    if (H5Fis_hdf5(p) <= 0)
        return fail(err, len, "'%s' is not an HDF5 file; give -o a new name or a pfsbench results file", g);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return fail(err, len, "cannot open results file '%s' with HDF5", g);
    int next;
    int rc = pfs_res_check_structure(f, g, &next, err, len);
    H5Fclose(f);
    return rc;
}

/* The new file, built in memory by HDF5's core driver without a backing
 * store: HDF5 itself never writes to disk, so a full disk cannot fail
 * inside HDF5 (HDF5 1.10 leaves the file id open after a failed H5Fclose,
 * and its clean-up at exit then crashes); every byte goes to disk through
 * pfs_res_write_all, with the errno of the call that failed. An existing file
 * takes its run in place instead (pfs_res_build_overlay). */
int pfs_res_build_image(const struct target *t, const struct pfs_run_data *d, char *name, size_t namelen, char **img,
                        size_t *imgn, char *err, size_t len)
{
    *img = NULL, *imgn = 0;
    int rc = -1;
    hid_t f = -1, fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) {
        fail(err, len, "cannot set up HDF5's in-memory file for '%s' (out of memory?)", t->given);
        goto out;
    }
    /* The copy's name, which is ours and not yet made. */
    f = H5Fcreate(t->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        fail(err, len, "cannot create an HDF5 file in memory for '%s'", t->given);
        goto out;
    }
    if (pfs_res_write_format(f)) {
        fail(err, len, "cannot write the format attributes");
        goto out;
    }
    if (pfs_res_write_run(f, d, 1, name, namelen) != 0) {
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

/* The existing file t, opened in place through the overlay driver: read
 * from disk, every write HDF5 makes kept in o. Closed before the commit:
 * HDF5 has then written all it will, into memory, and closing meets no
 * disk. The checks are those of the copy's (another writer may have
 * changed the file since the check before the run). */
int pfs_res_build_overlay(const struct target *t, struct pfs_ovl *o, const struct pfs_run_data *d, char *name,
                          size_t namelen, char *err, size_t len)
{
    hid_t drv = -1, fapl = pfs_res_ovl_fapl(o, &drv), f = -1;
    int rc = -1, run_no = 1;
    if (fapl < 0) {
        fail(err, len, "cannot set up HDF5's file driver for '%s' (out of memory?)", t->given);
        goto out;
    }
    f = H5Fopen(t->path, H5F_ACC_RDWR, fapl);
    if (f < 0) {
        fail(err, len, "cannot open results file '%s' with HDF5%s%s", t->given, o->err ? ": " : "",
             o->err ? strerror(o->err) : "");
        goto out;
    }
    if (pfs_res_check_structure(f, t->given, &run_no, err, len) != 0)
        goto out;
    if (pfs_res_write_run(f, d, run_no, name, namelen) != 0) {
        fail(err, len, "writing the run into HDF5 (in memory) failed");
        goto out;
    }
    rc = 0;
out:
    if (f >= 0 && H5Fclose(f) < 0 && rc == 0)
        rc = fail(err, len, "closing the results file in HDF5 (in memory) failed%s%s", o->err ? ": " : "",
                  o->err ? strerror(o->err) : "");
    if (fapl >= 0)
        H5Pclose(fapl);
    if (drv >= 0)
        H5FDunregister(drv);
    return rc;
}
