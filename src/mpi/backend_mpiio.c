/* MPI-IO backend: MPI_File_{write,read}_at (independent) or their _all
 * variants (collective), errors through MPI_ERRORS_RETURN so a failure comes
 * back as a message instead of an abort. */
#include "pfs/mpi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mpiio_file {
    MPI_File fh;
    struct pfs_mpiio_ctx *ctx;
};

static int mpiio_fail(struct pfs_mpiio_ctx *ctx, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, s, &n);
    snprintf(ctx->msg, sizeof(ctx->msg), "%s: %s", what, s);
    int cls = 0;
    MPI_Error_class(rc, &cls);
    switch (cls) {
    case MPI_ERR_NO_SPACE: return -ENOSPC;
    case MPI_ERR_NO_SUCH_FILE: return -ENOENT;
    case MPI_ERR_FILE_EXISTS: return -EEXIST;
    case MPI_ERR_ACCESS: return -EACCES;
    case MPI_ERR_READ_ONLY: return -EROFS;
    case MPI_ERR_QUOTA: return -EDQUOT;
    default: return -EIO;
    }
}

static int mpiio_open(void *vctx, const char *path, unsigned flags, void **fh)
{
    struct pfs_mpiio_ctx *ctx = vctx;
    int amode = 0;
    if ((flags & PFS_OPEN_READ) && (flags & PFS_OPEN_WRITE))
        amode = MPI_MODE_RDWR;
    else if (flags & PFS_OPEN_WRITE)
        amode = MPI_MODE_WRONLY;
    else
        amode = MPI_MODE_RDONLY;
    if (flags & PFS_OPEN_CREATE)
        amode |= MPI_MODE_CREATE | MPI_MODE_EXCL;
    struct mpiio_file *f = calloc(1, sizeof(*f));
    if (!f)
        return -ENOMEM;
    f->ctx = ctx;
    MPI_Comm comm = (flags & PFS_OPEN_SHARED) ? ctx->comm : MPI_COMM_SELF;
    ctx->msg[0] = '\0';
    int rc = MPI_File_open(comm, path, amode, ctx->info, &f->fh);
    if (rc != MPI_SUCCESS) {
        free(f);
        return mpiio_fail(ctx, "MPI_File_open", rc);
    }
    MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
    if (flags & PFS_OPEN_TRUNC) {
        rc = MPI_File_set_size(f->fh, 0);
        if (rc != MPI_SUCCESS) {
            MPI_File_close(&f->fh);
            free(f);
            return mpiio_fail(ctx, "MPI_File_set_size", rc);
        }
    }
    *fh = f;
    return 0;
}

static int64_t mpiio_xfer(struct mpiio_file *f, void *buf, size_t len, uint64_t off, int write)
{
    MPI_Status st;
    int rc, count = 0;
    /* Transfers above 2 GiB would overflow the int count: the config keeps
     * transfers below that for MPI-IO. */
    if (f->ctx->collective)
        rc = write ? MPI_File_write_at_all(f->fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &st)
                   : MPI_File_read_at_all(f->fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &st);
    else
        rc = write ? MPI_File_write_at(f->fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &st)
                   : MPI_File_read_at(f->fh, (MPI_Offset)off, buf, (int)len, MPI_BYTE, &st);
    if (rc != MPI_SUCCESS)
        return mpiio_fail(f->ctx, write ? "MPI_File_write_at" : "MPI_File_read_at", rc);
    MPI_Get_count(&st, MPI_BYTE, &count);
    return count;
}

static int64_t mpiio_pwrite(void *fh, const void *buf, size_t len, uint64_t off)
{
    return mpiio_xfer(fh, (void *)buf, len, off, 1);
}

static int64_t mpiio_pread(void *fh, void *buf, size_t len, uint64_t off)
{
    return mpiio_xfer(fh, buf, len, off, 0);
}

static int mpiio_fsync(void *fh)
{
    struct mpiio_file *f = fh;
    int rc = MPI_File_sync(f->fh);
    return rc == MPI_SUCCESS ? 0 : mpiio_fail(f->ctx, "MPI_File_sync", rc);
}

static int mpiio_close(void *fh)
{
    struct mpiio_file *f = fh;
    int rc = MPI_File_close(&f->fh);
    struct pfs_mpiio_ctx *ctx = f->ctx;
    free(f);
    return rc == MPI_SUCCESS ? 0 : mpiio_fail(ctx, "MPI_File_close", rc);
}

static const char *mpiio_errstr(void *vctx)
{
    struct pfs_mpiio_ctx *ctx = vctx;
    return ctx->msg[0] ? ctx->msg : NULL;
}

const struct pfs_backend pfs_backend_mpiio = {
    .name = "mpiio",
    .caps = PFS_CAP_COLLECTIVE,
    .open = mpiio_open,
    .pwrite = mpiio_pwrite,
    .pread = mpiio_pread,
    .fsync = mpiio_fsync,
    .close = mpiio_close,
    .errstr = mpiio_errstr,
};

int pfs_mpiio_init(struct pfs_mpiio_ctx *ctx, MPI_Comm comm, int collective, char hints[][128], int nhints,
                   char *err, size_t errlen)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->comm = comm;
    ctx->collective = collective;
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Info_create(&ctx->info);
    for (int i = 0; i < nhints; i++) {
        char kv[128];
        snprintf(kv, sizeof(kv), "%s", hints[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        if (strlen(kv) >= MPI_MAX_INFO_KEY || strlen(eq + 1) >= MPI_MAX_INFO_VAL) {
            snprintf(err, errlen, "--hint %s: key or value too long for MPI_Info", hints[i]);
            return -1;
        }
        MPI_Info_set(ctx->info, kv, eq + 1);
    }
    return 0;
}

void pfs_mpiio_fini(struct pfs_mpiio_ctx *ctx)
{
    if (ctx->info != MPI_INFO_NULL)
        MPI_Info_free(&ctx->info);
}
