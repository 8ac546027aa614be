/* --api hdf5: the data go through HDF5 as an application's would (IOR -a
 * HDF5, h5bench). Each file holds one 1-D dataset "data" of
 * H5T_NATIVE_UINT8 whose element i is the file's byte i in pfsbench's
 * layout: a file per process holds the block, the shared file the total.
 * A transfer is the hyperslab [off, off + len) of it, H5Dwrite or H5Dread
 * through the MPI-IO file driver (H5Pset_fapl_mpio): on MPI_COMM_SELF for a
 * file per process, on the run's communicator for --shared, independent or
 * (--collective) H5FD_MPIO_COLLECTIVE. fsync is H5Fflush.
 *
 * A module, libpfs_hdf5.so, that the run driver loads on every rank only
 * when --api hdf5 is chosen (src/mpi/backend_load.c): the ranks of other
 * runs never map HDF5.
 *
 * Trust (docs/reliability.md): a file is created only with H5F_ACC_EXCL
 * after an lstat found nothing there; a file this run made earlier (the
 * shared file, which the run driver creates empty; a file per process
 * written again) is opened only after pfs_fid_check_path, and the
 * descriptor HDF5's driver opened is checked after (pfs/fdscan.h), as the
 * MPI-IO backend does. A write that starts from an empty file writes the
 * bytes of an empty HDF5 file with the dataset (built once in memory with
 * the core driver) through a descriptor of the inode this run made, then
 * H5Fopen, which never truncates; H5Dopen with write access allocates the
 * dataset's storage, as parallel HDF5 does for every dataset. */
#define _GNU_SOURCE
#include <hdf5.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs/backend.h"
#include "pfs/config.h"
#include "pfs/fdscan.h"
#include "pfs/safefile.h"

#include "hdf5_options.h"

#define DSET "data"

#ifdef H5_HAVE_THREADSAFE
#define THREADSAFE_WORDS "a thread-safe build, but the stream threads would call MPI too"
#else
#define THREADSAFE_WORDS "parallel HDF5 is built without thread safety"
#endif

struct h5_ctx {
    MPI_Comm comm;          /* the run's: the shared file's */
    int rank;
    uint64_t size;          /* the dataset's bytes: the block, or the total (shared) */
    size_t xfer;            /* the transfer's bytes: the memory space's length */
    hid_t fapl_self, fapl_shared, dcpl, dxpl;
    void *image;            /* an empty HDF5 file holding the dataset, without storage */
    size_t image_len;
    H5E_auto2_t old_func;   /* HDF5's error printing before init (put back at fini) */
    void *old_data;
    char msg[1024];
};

struct h5_file {
    struct h5_ctx *ctx;
    hid_t fid, did, fspace, mspace;
    hsize_t mlen;           /* the memory space's length */
};

/* ---- errors: HDF5's error stack in words ---- */

struct walk {
    char inner[400], outer[300];
    unsigned n;
};

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
    struct walk *w = arg;
    if (n == 0)
        snprintf(w->inner, sizeof(w->inner), "%s: %s", e->func_name ? e->func_name : "?", e->desc ? e->desc : "");
    snprintf(w->outer, sizeof(w->outer), "%s", e->desc ? e->desc : "");
    w->n = n + 1;
    return 0;
}

/* The failure of call, in ctx->msg from the error stack's outermost and
 * innermost entries (the latter carries MPI's or the system's words); a
 * negative errno guessed from them. */
static int h5_fail(struct h5_ctx *ctx, const char *call)
{
    struct walk w = {"", "", 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    if (w.n == 0)
        snprintf(ctx->msg, sizeof(ctx->msg), "%s failed", call);
    else if (w.n == 1)
        snprintf(ctx->msg, sizeof(ctx->msg), "%s: %s", call, w.inner);
    else
        snprintf(ctx->msg, sizeof(ctx->msg), "%s: %s (%s)", call, w.outer, w.inner);
    if (strstr(ctx->msg, "No space left") || strstr(ctx->msg, "NO_SPACE"))
        return -ENOSPC;
    if (strstr(ctx->msg, "quota") || strstr(ctx->msg, "QUOTA"))
        return -EDQUOT;
    if (strstr(ctx->msg, "File exists") || strstr(ctx->msg, "FILE_EXISTS"))
        return -EEXIST;
    return -EIO;
}

static const char *h5_errstr(void *vctx)
{
    struct h5_ctx *ctx = vctx;
    return ctx->msg[0] ? ctx->msg : NULL;
}

/* Collective over comm (nothing on MPI_COMM_SELF): 1 when any rank's rc
 * is a failure. */
static int agree(MPI_Comm comm, int rc)
{
    int bad = rc < 0, any = bad;
    if (comm != MPI_COMM_SELF)
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* ---- files: create, make fresh, open ---- */

static void file_free(struct h5_file *f)
{
    if (f->mspace >= 0)
        H5Sclose(f->mspace);
    if (f->fspace >= 0)
        H5Sclose(f->fspace);
    if (f->did >= 0)
        H5Dclose(f->did);
    if (f->fid >= 0)
        H5Fclose(f->fid);
    free(f);
}

/* After HDF5 opened path: its new descriptor is the inode expected (or,
 * unseen, the path still is). 0 with got set, or PFS_ERR_*. */
static int check_opened(int dirfd, const char *path, const struct pfs_fdset *before, const struct pfs_fid *expect,
                        struct pfs_fid *got)
{
    int rc = pfs_fdset_check_new(path, before, expect, got);
    /* Opened by name: the name in the run's directory must be that inode. */
    return rc >= 0 ? pfs_fid_check_at(dirfd, path, got) : rc;
}

/* The dataset of an open file, checked to be what this run's layout
 * needs, and the spaces a transfer selects in. 0 or a negative code. */
static int open_dataset(struct h5_ctx *ctx, struct h5_file *f, size_t len)
{
    f->did = H5Dopen2(f->fid, DSET, H5P_DEFAULT);
    if (f->did < 0)
        return h5_fail(ctx, "H5Dopen " DSET);
    f->fspace = H5Dget_space(f->did);
    hsize_t dims[2] = {0, 0};
    hid_t t = H5Dget_type(f->did);
    int nd = f->fspace >= 0 ? H5Sget_simple_extent_dims(f->fspace, dims, NULL) : -1;
    int bytes = t >= 0 && H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 1;
    if (t >= 0)
        H5Tclose(t);
    if (nd != 1 || !bytes || dims[0] != ctx->size) {
        snprintf(ctx->msg, sizeof(ctx->msg), "dataset " DSET " is not the 1-D dataset of %llu bytes this run's layout "
                 "needs (%d dimensions, the first %llu)", (unsigned long long)ctx->size, nd, (unsigned long long)dims[0]);
        return -EINVAL;
    }
    f->mlen = (hsize_t)len;
    f->mspace = H5Screate_simple(1, &f->mlen, NULL);
    return f->mspace < 0 ? h5_fail(ctx, "H5Screate_simple") : 0;
}

/* A file per process, first write: H5Fcreate with H5F_ACC_EXCL after
 * lstat found nothing, the descriptor checked, the dataset created (its
 * storage allocated now: parallel HDF5 allocates early). A file made but
 * not usable is removed (this run made that inode). */
static int open_create(struct h5_ctx *ctx, struct h5_file *f, int dirfd, const char *path, size_t len,
                       struct pfs_fid *got)
{
    struct stat st;
    if (fstatat(dirfd, pfs_at_name(dirfd, path), &st, AT_SYMLINK_NOFOLLOW) == 0)
        return -EEXIST;
    struct pfs_fdset before;
    pfs_fdset_take(&before);
    f->fid = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, ctx->fapl_self);
    if (f->fid < 0)
        return h5_fail(ctx, "H5Fcreate");
    int rc = check_opened(dirfd, path, &before, NULL, got);
    if (rc == 0) {
        hsize_t dims = ctx->size;
        f->fspace = H5Screate_simple(1, &dims, NULL);
        f->did = H5Dcreate2(f->fid, DSET, H5T_NATIVE_UINT8, f->fspace, H5P_DEFAULT, ctx->dcpl, H5P_DEFAULT);
        rc = f->did < 0 ? h5_fail(ctx, "H5Dcreate " DSET) : 0;
    }
    if (rc == 0) {
        f->mlen = (hsize_t)len;
        f->mspace = H5Screate_simple(1, &f->mlen, NULL);
        rc = f->mspace < 0 ? h5_fail(ctx, "H5Screate_simple") : 0;
    }
    if (rc < 0 && got && pfs_fid_known(got)) {
        H5Fclose(f->fid);
        f->fid = H5I_INVALID_HID;
        pfs_unlink_own_at(dirfd, path, got);
    }
    return rc;
}

/* Local. Writes the empty HDF5 file into the file of this run at path
 * (the inode expect), emptied first when trunc; a file that is not empty
 * (a rewrite of the shared file) is left as it is. 0 or a negative code. */
static int write_image(const struct h5_ctx *ctx, int dirfd, const char *path, const struct pfs_fid *expect, int trunc)
{
    int fd = pfs_open_own_at(dirfd, path, O_RDWR | (trunc ? O_TRUNC : 0), 0, expect, NULL);
    if (fd < 0)
        return fd;
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? 0 : -errno;
    for (size_t done = 0; rc == 0 && st.st_size == 0 && done < ctx->image_len;) {
        ssize_t n = pwrite(fd, (const char *)ctx->image + done, ctx->image_len - done, (off_t)done);
        if (n <= 0)
            rc = n < 0 ? -errno : -EIO;
        else
            done += (size_t)n;
    }
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* A write that starts from an empty file of this run: rank 0 of comm makes
 * it an HDF5 file with the dataset; every rank learns how that went. */
static int make_fresh(struct h5_ctx *ctx, MPI_Comm comm, int dirfd, const char *path, unsigned flags,
                      const struct pfs_fid *expect)
{
    const int shared = comm != MPI_COMM_SELF;
    int rc = 0;
    if (!shared || ctx->rank == 0)
        rc = write_image(ctx, dirfd, path, expect, (flags & PFS_OPEN_TRUNC) != 0);
    if (shared)
        MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    if (rc < 0 && shared && ctx->rank != 0)
        snprintf(ctx->msg, sizeof(ctx->msg), "rank 0 could not make the shared file an HDF5 file");
    return rc;
}

/* A file this run made (or, expect unknown, one a kept run left):
 * checked, opened, checked again, its dataset opened; collective over
 * comm, every rank agreeing at each step so none is left in a collective
 * call the others skipped. 0 or a negative code. */
static int open_existing(struct h5_ctx *ctx, struct h5_file *f, MPI_Comm comm, int dirfd, const char *path, int wr,
                         const struct pfs_fid *expect, struct pfs_fid *got, size_t len)
{
    int rc = pfs_fid_check_at(dirfd, path, expect);
    if (agree(comm, rc))
        return rc < 0 ? rc : PFS_ERR_REPLACED;
    struct pfs_fdset before;
    pfs_fdset_take(&before);
    f->fid = H5Fopen(path, wr ? H5F_ACC_RDWR : H5F_ACC_RDONLY, comm == MPI_COMM_SELF ? ctx->fapl_self : ctx->fapl_shared);
    rc = f->fid < 0 ? h5_fail(ctx, "H5Fopen") : check_opened(dirfd, path, &before, expect, got);
    if (!agree(comm, rc))
        rc = open_dataset(ctx, f, len);
    if (agree(comm, rc) && rc >= 0) {
        snprintf(ctx->msg, sizeof(ctx->msg), "another rank could not open the shared file; closed unused");
        rc = PFS_ERR_REPLACED;
    }
    return rc;
}

static int h5_open(void *vctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                   struct pfs_fid *got, void **fh)
{
    struct h5_ctx *ctx = vctx;
    const int shared = (flags & PFS_OPEN_SHARED) != 0, wr = (flags & PFS_OPEN_WRITE) != 0;
    MPI_Comm comm = shared ? ctx->comm : MPI_COMM_SELF;
    struct h5_file *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    *f = (struct h5_file){ctx, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, 0};
    ctx->msg[0] = '\0';
    struct pfs_fid id = {0, 0};
    int rc;
    if (flags & PFS_OPEN_CREATE) {
        rc = open_create(ctx, f, dirfd, path, ctx->xfer, &id);
    } else {
        /* every rank of comm gets the same verdict from make_fresh */
        rc = wr && (shared || (flags & PFS_OPEN_TRUNC)) ? make_fresh(ctx, comm, dirfd, path, flags, expect) : 0;
        if (rc == 0)
            rc = open_existing(ctx, f, comm, dirfd, path, wr, expect, &id, ctx->xfer);
    }
    if (rc < 0) {
        file_free(f);
        return rc;
    }
    if (got)
        *got = id;
    *fh = f;
    return 0;
}

/* ---- transfers ---- */

static int64_t h5_xfer(struct h5_file *f, void *buf, size_t len, uint64_t off, int write)
{
    struct h5_ctx *ctx = f->ctx;
    hsize_t start = (hsize_t)off, count = (hsize_t)len;
    if (count != f->mlen) {
        H5Sclose(f->mspace);
        f->mlen = count;
        f->mspace = H5Screate_simple(1, &f->mlen, NULL);
    }
    if (H5Sselect_hyperslab(f->fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0)
        return h5_fail(ctx, "H5Sselect_hyperslab");
    herr_t rc = write ? H5Dwrite(f->did, H5T_NATIVE_UINT8, f->mspace, f->fspace, ctx->dxpl, buf)
                      : H5Dread(f->did, H5T_NATIVE_UINT8, f->mspace, f->fspace, ctx->dxpl, buf);
    if (rc < 0)
        return h5_fail(ctx, write ? "H5Dwrite" : "H5Dread");
    return (int64_t)len;
}

static int64_t h5_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return h5_xfer(fh, (void *)buf, len, off, 1);
}

static int64_t h5_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return h5_xfer(fh, buf, len, off, 0);
}

static int h5_fsync(void *fh)
{
    struct h5_file *f = fh;
    return H5Fflush(f->fid, H5F_SCOPE_LOCAL) < 0 ? h5_fail(f->ctx, "H5Fflush") : 0;
}

static int h5_close(void *fh)
{
    struct h5_file *f = fh;
    struct h5_ctx *ctx = f->ctx;
    int rc = 0;
    if (f->mspace >= 0)
        H5Sclose(f->mspace);
    if (f->fspace >= 0)
        H5Sclose(f->fspace);
    if (f->did >= 0 && H5Dclose(f->did) < 0)
        rc = h5_fail(ctx, "H5Dclose");
    if (H5Fclose(f->fid) < 0 && rc == 0)
        rc = h5_fail(ctx, "H5Fclose");
    free(f);
    return rc;
}

/* ---- the run: options, property lists, the empty file's image ---- */

/* What HDF5 here cannot take, refused before anything is made. */
static int h5_check(const struct pfs_config *cfg, char *err, size_t len)
{
    char a[32], b[32];
    if (cfg->threads > 1) {
        snprintf(err, len, "--threads with --api hdf5: HDF5 is not thread-safe here (%s), and even a thread-safe "
                 "build runs one call at a time on one lock; use ranks instead", THREADSAFE_WORDS);
        return -1;
    }
    if (cfg->transfer > (uint64_t)INT_MAX) {
        snprintf(err, len, "--api hdf5 takes transfers below 2 GiB (HDF5's MPI-IO driver moves them in one MPI call)");
        return -1;
    }
    const struct pfs_hdf5_opts *o = pfs_config_backend_opts(cfg);
    pfs_format_size(o->chunk, a, sizeof(a));
    pfs_format_size(cfg->block, b, sizeof(b));
    if (o->chunk > cfg->block || o->chunk >= (4ull << 30)) {
        snprintf(err, len, "--hdf5-chunk %s: a chunk must be below 4 GiB and no larger than the block per rank (%s)", a, b);
        return -1;
    }
    if (o->mdc_size && (o->mdc_size < 1024 || o->mdc_size > (128u << 20))) {
        snprintf(err, len, "--hdf5-mdc-size: HDF5's metadata cache takes 1k to 128m");
        return -1;
    }
    return 0;
}

/* The file access list: the MPI-IO driver on comm with the --hint info,
 * alignment, metadata cache, collective metadata. */
static hid_t make_fapl(const struct pfs_config *cfg, MPI_Comm comm, MPI_Info info, uint64_t object)
{
    const struct pfs_hdf5_opts *o = pfs_config_backend_opts(cfg);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    herr_t rc = fapl < 0 ? -1 : H5Pset_fapl_mpio(fapl, comm, info);
    if (rc >= 0 && o->align) {
        /* Raw data (the dataset, or each chunk) is aligned; metadata, in
         * blocks of 2 KiB, only when the data objects are that small. */
        hsize_t thr = o->align < object ? o->align : object;
        rc = H5Pset_alignment(fapl, thr, o->align);
    }
    if (rc >= 0 && o->mdc_size) {
        H5AC_cache_config_t mdc;
        mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
        rc = H5Pget_mdc_config(fapl, &mdc);
        mdc.set_initial_size = 1;
        mdc.initial_size = mdc.max_size = mdc.min_size = (size_t)o->mdc_size;
        mdc.incr_mode = H5C_incr__off;
        mdc.flash_incr_mode = H5C_flash_incr__off;
        mdc.decr_mode = H5C_decr__off;
        if (rc >= 0)
            rc = H5Pset_mdc_config(fapl, &mdc);
    }
    if (rc >= 0 && o->coll_md)
        rc = H5Pset_all_coll_metadata_ops(fapl, 1) < 0 ? -1 : H5Pset_coll_metadata_write(fapl, 1);
    if (rc < 0 && fapl >= 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

/* The bytes of an empty HDF5 file holding the dataset without storage
 * (allocation late), made in memory by the core driver with no backing
 * store: what make_fresh writes into an empty file of this run. */
static int build_image(struct h5_ctx *ctx)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 64 * 1024, 0) < 0)
        return h5_fail(ctx, "H5Pset_fapl_core");
    hid_t f = H5Fcreate("pfsbench-image.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return h5_fail(ctx, "H5Fcreate (in memory)");
    hsize_t dims = ctx->size;
    hid_t sp = H5Screate_simple(1, &dims, NULL);
    hid_t dcpl = H5Pcopy(ctx->dcpl);
    int rc = H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE);
    hid_t d = rc < 0 ? -1 : H5Dcreate2(f, DSET, H5T_NATIVE_UINT8, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    rc = d < 0 ? h5_fail(ctx, "H5Dcreate (in memory)") : 0;
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    ssize_t n = rc == 0 && H5Fflush(f, H5F_SCOPE_LOCAL) >= 0 ? H5Fget_file_image(f, NULL, 0) : -1;
    if (n > 0 && (ctx->image = malloc((size_t)n)) && H5Fget_file_image(f, ctx->image, (size_t)n) == n)
        ctx->image_len = (size_t)n;
    else if (rc == 0)
        rc = h5_fail(ctx, "H5Fget_file_image");
    H5Fclose(f);
    return rc;
}

/* The dataset's creation list (chunks; fill values never written: the
 * whole dataset is written before it is read) and the transfer list. */
static int make_lists(struct h5_ctx *ctx, const struct pfs_config *cfg)
{
    ctx->dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ctx->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (ctx->dcpl < 0 || ctx->dxpl < 0 || H5Pset_fill_time(ctx->dcpl, H5D_FILL_TIME_NEVER) < 0)
        return h5_fail(ctx, "H5Pcreate");
    hsize_t chunk = ((const struct pfs_hdf5_opts *)pfs_config_backend_opts(cfg))->chunk;
    if (chunk && H5Pset_chunk(ctx->dcpl, 1, &chunk) < 0)
        return h5_fail(ctx, "H5Pset_chunk");
    if (H5Pset_dxpl_mpio(ctx->dxpl, cfg->collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT) < 0)
        return h5_fail(ctx, "H5Pset_dxpl_mpio");
    MPI_Info info = MPI_INFO_NULL;
    if (cfg->nhints)
        MPI_Info_create(&info);
    for (int i = 0; i < cfg->nhints; i++) {
        char kv[128];
        snprintf(kv, sizeof(kv), "%s", cfg->hints[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        MPI_Info_set(info, kv, eq + 1);
    }
    uint64_t object = chunk ? chunk : ctx->size;
    ctx->fapl_self = make_fapl(cfg, MPI_COMM_SELF, info, object);
    ctx->fapl_shared = cfg->shared ? make_fapl(cfg, ctx->comm, info, object) : H5I_INVALID_HID;
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info); /* the lists hold copies */
    if (ctx->fapl_self < 0 || (cfg->shared && ctx->fapl_shared < 0))
        return h5_fail(ctx, "the file access list (H5Pset_fapl_mpio and the --hdf5 options)");
    return 0;
}

static void h5_fini(void *vctx)
{
    struct h5_ctx *ctx = vctx;
    if (!ctx)
        return;
    hid_t lists[] = {ctx->fapl_self, ctx->fapl_shared, ctx->dcpl, ctx->dxpl};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (lists[i] > 0)
            H5Pclose(lists[i]);
    free(ctx->image);
    H5Eset_auto2(H5E_DEFAULT, ctx->old_func, ctx->old_data);
    free(ctx);
}

/* Local. env: the run's MPI_Comm (a pointer to it). */
static int h5_init(void **vctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    struct h5_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx || !env) {
        free(ctx);
        snprintf(err, len, "--api hdf5: %s", ctx ? "no communicator given" : "out of memory");
        return -1;
    }
    ctx->comm = *(const MPI_Comm *)env;
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    ctx->size = cfg->shared ? cfg->total : cfg->block;
    ctx->xfer = (size_t)cfg->transfer;
    ctx->fapl_self = ctx->fapl_shared = ctx->dcpl = ctx->dxpl = H5I_INVALID_HID;
    /* Failures are said once, by the backend, with the stack's words. */
    H5Eget_auto2(H5E_DEFAULT, &ctx->old_func, &ctx->old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (make_lists(ctx, cfg) != 0 || build_image(ctx) != 0) {
        snprintf(err, len, "--api hdf5: %s", ctx->msg);
        h5_fini(ctx);
        return -1;
    }
    *vctx = ctx;
    return 0;
}

const struct pfs_backend pfs_backend_hdf5 = {
    .name = "hdf5",
    .help = PFS_HDF5_HELP,
    .caps = PFS_CAP_COLLECTIVE | PFS_CAP_HINTS | PFS_CAP_FSYNC_COLL,
    .options = &pfs_hdf5_options,
    .check = h5_check,
    .init = h5_init,
    .fini = h5_fini,
    .open = h5_open,
    .pwrite = h5_pwrite,
    .pread = h5_pread,
    .fsync = h5_fsync,
    .close = h5_close,
    .errstr = h5_errstr,
};
