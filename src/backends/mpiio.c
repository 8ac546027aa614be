/* MPI-IO backend: MPI_File_{write,read}_at (independent) or their _all
 * variants (collective), errors through MPI_ERRORS_RETURN so a failure comes
 * back as a message instead of an abort. */
#define _GNU_SOURCE
#include "pfs/mpi.h"
#include "pfs/config.h"
#include "pfs/fdscan.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Local checks around MPI_File_open, which follows symlinks and blocks on
 * FIFOs: the path before (a regular file, the expected inode), the inode
 * the library actually opened after. */
static int mpiio_checked_open(struct pfs_mpiio_ctx *ctx, MPI_Comm comm, int dirfd, const char *path, int amode,
                              const struct pfs_fid *expect, struct pfs_fid *got, MPI_File *fh)
{
    int rc = 0;
    struct stat st;
    if (!(amode & MPI_MODE_CREATE))
        rc = pfs_fid_check_at(dirfd, path, expect);
    else if (fstatat(dirfd, pfs_at_name(dirfd, path), &st, AT_SYMLINK_NOFOLLOW) == 0)
        rc = -EEXIST;
    struct pfs_fdset before;
    pfs_fdset_take(&before);
    /* MPI_File_open is collective over comm: every rank calls it, or none. */
    int bad = rc < 0, anybad = bad;
    if (comm != MPI_COMM_SELF)
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (anybad)
        return rc < 0 ? rc : PFS_ERR_REPLACED;
    int mrc = MPI_File_open(comm, path, amode, ctx->info, fh);
    if (mrc != MPI_SUCCESS)
        return mpiio_fail(ctx, "MPI_File_open", mrc);
    rc = pfs_fdset_check_new(path, &before, expect, got);
    /* Opened by name: the name in the run's directory must be that inode. */
    if (rc >= 0)
        rc = pfs_fid_check_at(dirfd, path, got);
    bad = rc < 0;
    anybad = bad;
    if (comm != MPI_COMM_SELF)
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    if (anybad) {
        MPI_File_close(fh);
        if (!bad)
            snprintf(ctx->msg, sizeof(ctx->msg), "another rank found the shared file replaced; closed unused");
        return bad ? rc : PFS_ERR_REPLACED;
    }
    return 0;
}

static int mpiio_open(void *vctx, int dirfd, const char *path, unsigned flags, const struct pfs_fid *expect,
                      struct pfs_fid *got, void **fh)
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
    struct pfs_fid id = {0, 0};
    int rc = mpiio_checked_open(ctx, comm, dirfd, path, amode, expect, &id, &f->fh);
    if (rc < 0) {
        free(f);
        return rc;
    }
    if (got)
        *got = id;
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
    /* A short independent write (OMPIO's answer to a full disk) is asked
     * for the rest, so the report can carry MPI's own error string rather
     * than a bare count. A collective call cannot be retried by one rank. */
    while (write && !f->ctx->collective && count >= 0 && (size_t)count < len) {
        int more = 0;
        rc = MPI_File_write_at(f->fh, (MPI_Offset)(off + (uint64_t)count), (char *)buf + count, (int)len - count,
                               MPI_BYTE, &st);
        if (rc != MPI_SUCCESS) {
            mpiio_fail(f->ctx, "MPI_File_write_at (the rest of a short write)", rc);
            break;
        }
        MPI_Get_count(&st, MPI_BYTE, &more);
        if (more <= 0) {
            snprintf(f->ctx->msg, sizeof(f->ctx->msg), "MPI_File_write_at wrote nothing more and reported no error");
            break;
        }
        count += more;
    }
    if (write && f->ctx->collective && count >= 0 && (size_t)count < len)
        snprintf(f->ctx->msg, sizeof(f->ctx->msg), "MPI_File_write_at_all reported no error");
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

/* What MPI-IO cannot take, refused before any file is made. */
static int mpiio_check(const struct pfs_config *cfg, char *err, size_t len)
{
    if (cfg->transfer > (uint64_t)INT_MAX) {
        snprintf(err, len, "--api mpiio takes transfers below 2 GiB (an MPI count is an int)");
        return -1;
    }
    if (cfg->threads > 1) {
        snprintf(err, len, "--threads with --api mpiio would need MPI_THREAD_MULTIPLE; use --api posix with threads, or ranks instead");
        return -1;
    }
    if (cfg->direct) {
        snprintf(err, len, "--direct is not available with --api mpiio; use --api posix "
                 "or an MPI-IO hint such as direct_read/direct_write");
        return -1;
    }
    return 0;
}

/* Local. env: the run's MPI_Comm (a pointer to it). */
static int mpiio_be_init(void **ctx, const struct pfs_config *cfg, const void *env, char *err, size_t len)
{
    struct pfs_mpiio_ctx *c = calloc(1, sizeof(*c));
    if (!c || !env) {
        free(c);
        snprintf(err, len, "--api mpiio: %s", c ? "no communicator given" : "out of memory");
        return -1;
    }
    if (pfs_mpiio_init(c, *(const MPI_Comm *)env, cfg->collective, (char(*)[128])cfg->hints, cfg->nhints, err, len) != 0) {
        pfs_mpiio_fini(c);
        free(c);
        return -1;
    }
    *ctx = c;
    return 0;
}

static void mpiio_be_fini(void *ctx)
{
    if (ctx)
        pfs_mpiio_fini(ctx);
    free(ctx);
}

const struct pfs_backend pfs_backend_mpiio = {
    .name = "mpiio",
    .help = "MPI-IO MPI_File_write_at/read_at, or their _all collective forms with --collective",
    .caps = PFS_CAP_COLLECTIVE | PFS_CAP_HINTS | PFS_CAP_FSYNC_COLL,
    .check = mpiio_check,
    .init = mpiio_be_init,
    .fini = mpiio_be_fini,
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
