/* The results file as a whole: its format check, and the new file built
 * in memory (append.c writes it to disk). */
#define _GNU_SOURCE
#include "results_int.h"

#include <stdlib.h>
#include <string.h>

void pfs_res_quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
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

int pfs_res_check_file(const char *p, const char *g, char *err, size_t len)
{
    if (H5Fis_hdf5(p) <= 0)
        return fail(err, len, "'%s' is not an HDF5 file; give -o a new name or a pfsbench results file", g);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return fail(err, len, "cannot open results file '%s' with HDF5", g);
    int rc = check_format(f, g, err, len);
    H5Fclose(f);
    return rc;
}

/* The new file, built in memory by HDF5's core driver without a backing
 * store: HDF5 itself never writes to disk, so a full disk cannot fail
 * inside HDF5 (HDF5 1.10 leaves the file id open after a failed H5Fclose,
 * and its clean-up at exit then crashes); every byte goes to disk through
 * write_all, with the errno of the call that failed. old: the current
 * file's bytes, or NULL for a new file. */
int pfs_res_build_image(const struct target *t, const char *old, size_t oldn, const struct pfs_run_data *d,
                        char *name, size_t namelen, char **img, size_t *imgn, char *err, size_t len)
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
    if (!old && pfs_res_write_format(f)) {
        fail(err, len, "cannot write the format attributes");
        goto out;
    }
    if (pfs_res_write_run(f, d, name, namelen) != 0) {
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
