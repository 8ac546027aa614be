/* A phase's page-cache figures in the results file (cache_h5.h): the
 * run's and each node's, reduced once per repetition by pfs_pc_reduce. */
#include "cache_h5.h"
#include "results_int.h"

#include <stdint.h>
#include <stdlib.h>

#include "pfs/pagecache.h"

static int put(hid_t loc, const char *name, int rank, const hsize_t *dims, const uint64_t *data, const char *units)
{
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(loc, name, H5T_NATIVE_UINT64, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 ? -1 : (H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ? -1 : 0);
    if (ds >= 0) {
        if (rc == 0)
            rc = pfs_res_attr_str(ds, "units", units);
        H5Dclose(ds);
    }
    H5Sclose(s);
    return rc;
}

/* The four figures of a set of repetitions ([R]) or of their nodes ([R][K]). */
struct figs {
    uint64_t *bytes, *resident, *probed, *dirty;
};

static int figs_alloc(struct figs *f, size_t n)
{
    f->bytes = calloc(n, sizeof(uint64_t)), f->resident = calloc(n, sizeof(uint64_t));
    f->probed = calloc(n, sizeof(uint64_t)), f->dirty = calloc(n, sizeof(uint64_t));
    return f->bytes && f->resident && f->probed && f->dirty ? 0 : -1;
}

static void figs_free(struct figs *f)
{
    free(f->bytes), free(f->resident), free(f->probed), free(f->dirty);
}

static void figs_set(struct figs *f, size_t i, const struct pfs_pc_fig *x)
{
    f->bytes[i] = x->bytes, f->resident[i] = x->resident, f->probed[i] = x->dirty_bytes, f->dirty[i] = x->dirty;
}

static int figs_write(hid_t g, const char *prefix, const struct figs *f, int rank, const hsize_t *dims, int res,
                      int dirty)
{
    char name[64];
    const char *key[4] = {"cache_bytes", "cache_resident", "cache_dirty_probed", "cache_dirty"};
    const uint64_t *val[4] = {f->bytes, f->resident, f->probed, f->dirty};
    const char *units[4] = {
        "bytes of the files the phase read, probed before it (streams whose probe measured)",
        "bytes: of cache_bytes, those in the node's page cache before the phase",
        "bytes of the files the phase wrote, probed after its close (streams whose probe measured)",
        "bytes: of cache_dirty_probed, those dirty or under write-back after the close"};
    int rc = 0;
    for (int k = 0; k < 4; k++) {
        if (k < 2 ? !res : !dirty)
            continue;
        snprintf(name, sizeof(name), "%s%s", prefix, key[k]);
        rc |= put(g, name, rank, dims, val[k], units[k]);
    }
    return rc;
}

int pfs_res_write_cache(hid_t g, const struct pfs_run_data *d, int p)
{
    const int reps = d->reps_done[p], nn = d->nnodes > 0 ? d->nnodes : 1;
    struct figs run = {0}, node = {0};
    struct pfs_pc_fig *nf = calloc((size_t)nn, sizeof(*nf));
    int rc = -1;
    unsigned methods = 0, dmethods = 0;
    if (!nf || figs_alloc(&run, (size_t)reps) || figs_alloc(&node, (size_t)reps * (size_t)nn))
        goto done;
    for (int rep = 0; rep < reps; rep++) {
        struct pfs_pc_fig rf;
        pfs_pc_reduce(pfs_run_times(d, p, rep), pfs_run_stream_nodes(d), pfs_run_nstreams(d), d->nnodes, &rf, nf);
        methods |= rf.methods, dmethods |= rf.dirty_methods;
        figs_set(&run, (size_t)rep, &rf);
        for (int n = 0; n < d->nnodes; n++)
            figs_set(&node, (size_t)rep * (size_t)nn + (size_t)n, &nf[n]);
    }
    char how[64], dhow[64];
    pfs_pc_methods_name(methods, how, sizeof(how));
    pfs_pc_methods_name(dmethods, dhow, sizeof(dhow));
    rc = pfs_res_attr_str(g, "cache_method", how) | pfs_res_attr_str(g, "cache_dirty_method", dhow);
    const struct pfs_pc_fig seen = {.methods = methods, .dirty_methods = dmethods};
    const int res = pfs_pc_has_resident(&seen), dirty = pfs_pc_has_dirty(&seen);
    const hsize_t d1 = (hsize_t)reps, dn[2] = {(hsize_t)reps, (hsize_t)d->nnodes};
    rc |= figs_write(g, "", &run, 1, &d1, res, dirty);
    rc |= figs_write(g, "node_", &node, 2, dn, res, dirty);
done:
    figs_free(&run), figs_free(&node), free(nf);
    return rc;
}
