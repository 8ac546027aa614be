/* Acting only on the files this run made. A path can be replaced between
 * two phases (a symlink, another file renamed over it, a FIFO): every open,
 * truncate and unlink of a data file checks that the object behind the path
 * is a regular file and, when this run made it, the very inode it made.
 * Local and MPI-free. */
#ifndef PFS_SAFEFILE_H
#define PFS_SAFEFILE_H

#include <stdint.h>
#include <sys/types.h>

/* A file's identity: device and inode. {0, 0} means "not known" (a file an
 * earlier run kept, which this run only reads). dev 0 with an inode means
 * "the inode alone": an identity learnt from another rank, whose client of
 * a network file system (NFS, Lustre, GlusterFS over FUSE) numbers its
 * device differently while the inode number is the file's own. */
struct pfs_fid {
    uint64_t dev, ino;
};

/* Local. 1 when the file actually opened (have) is the one expected. */
static inline int pfs_fid_same(const struct pfs_fid *have, const struct pfs_fid *expect)
{
    return have->ino == expect->ino && (expect->dev == 0 || have->dev == expect->dev);
}

/* pfsbench's own failure codes, beside negative errnos. */
#define PFS_ERR_NOTREG (-4097)   /* the path is not a regular file */
#define PFS_ERR_REPLACED (-4098) /* the path no longer names the file this run made */

static inline int pfs_fid_known(const struct pfs_fid *id)
{
    return id && (id->dev || id->ino);
}

/* Local. Words for a PFS_ERR_* code ("not a regular file (a FIFO)"), with
 * the path's current type where it helps; NULL for an errno. */
const char *pfs_safefile_why(int code, const char *path, char *buf, size_t len);

/* Local. open(2) that never follows a symlink in the last component, never
 * blocks on a FIFO or device, refuses anything but a regular file, and, when
 * expect is known, refuses an inode other than expect. O_TRUNC is applied
 * with ftruncate only after those checks (so it can never empty someone
 * else's file). Returns the descriptor, or a negative errno / PFS_ERR_*.
 * got (may be NULL) receives the identity of what was opened. A file that
 * O_CREAT|O_EXCL made and that then fails a check, or that a file system
 * refusing O_DIRECT would have kept (EINVAL after the create), is removed:
 * a failed open leaves nothing of this run behind. */
int pfs_open_own(const char *path, int oflags, mode_t mode, const struct pfs_fid *expect, struct pfs_fid *got);

/* Local. The identity of an open descriptor; 0, -errno, or PFS_ERR_NOTREG. */
int pfs_fid_of_fd(int fd, struct pfs_fid *id);

/* Local. lstat-level check of a path: 0 when it is a regular file (and the
 * inode expect names, when known); -errno or PFS_ERR_* otherwise. */
int pfs_fid_check_path(const char *path, const struct pfs_fid *expect);

/* Local. Removes path only when it is still the file id names. Returns 0
 * (removed), 1 (already gone), PFS_ERR_REPLACED (something else is there
 * now: left alone) or -errno of a failed unlink. */
int pfs_unlink_own(const char *path, const struct pfs_fid *id);

#endif
