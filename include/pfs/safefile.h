/* Acting only on the files this run made. A path can be replaced between
 * two phases (a symlink, another file renamed over it, a FIFO): every open,
 * truncate and unlink of a data file checks that the object behind the path
 * is a regular file and, when this run made it, the very inode it made.
 * A directory can be replaced too (a symlinked -d repointed, the run's
 * metadata directory swapped for a link): the run holds open the
 * directories it works in (struct pfs_dir) and resolves each of its names
 * relative to them (the *_at calls), never through a path rebuilt from -d.
 * Local and MPI-free. */
#ifndef PFS_SAFEFILE_H
#define PFS_SAFEFILE_H

#include <fcntl.h>
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
#define PFS_ERR_REPLACED (-4098) /* the path no longer names the file (or directory) this run made */
#define PFS_ERR_BUSY (-4099)     /* a lock another process holds */
#define PFS_ERR_UNSTABLE (-4100) /* a lock file removed or replaced every time it was locked */
#define PFS_ERR_OUTSIDE (-4101)  /* a relative name leads through a link or out of the directory */

static inline int pfs_fid_known(const struct pfs_fid *id)
{
    return id && (id->dev || id->ino);
}

/* Local. Words for a PFS_ERR_* code ("not a regular file (a FIFO)"), with
 * the path's current type where it helps; NULL for an errno. */
const char *pfs_safefile_why(int code, const char *path, char *buf, size_t len);

/* Local. What the *_at calls below open relative to at: path's last
 * component, or path itself when at is AT_FDCWD. Callers pass the full
 * path (it names the file in messages) and the descriptor of its directory. */
const char *pfs_at_name(int at, const char *path);

/* Local. open(2) that never follows a symlink in the last component, never
 * blocks on a FIFO or device, refuses anything but a regular file, and, when
 * expect is known, refuses an inode other than expect. O_TRUNC is applied
 * with ftruncate only after those checks (so it can never empty someone
 * else's file). Returns the descriptor, or a negative errno / PFS_ERR_*.
 * got (may be NULL) receives the identity of what was opened. A file that
 * O_CREAT|O_EXCL made and that then fails a check, or that a file system
 * refusing O_DIRECT would have kept (EINVAL after the create), is removed:
 * a failed open leaves nothing of this run behind. The file is path's last
 * component in the directory at (pfs_at_name). */
int pfs_open_own_at(int at, const char *path, int oflags, mode_t mode, const struct pfs_fid *expect,
                    struct pfs_fid *got);
static inline int pfs_open_own(const char *path, int oflags, mode_t mode, const struct pfs_fid *expect,
                               struct pfs_fid *got)
{
    return pfs_open_own_at(AT_FDCWD, path, oflags, mode, expect, got);
}

/* Local. The identity of an open descriptor; 0, -errno, or PFS_ERR_NOTREG. */
int pfs_fid_of_fd(int fd, struct pfs_fid *id);

/* Local. lstat-level check of a path: 0 when it is a regular file (and the
 * inode expect names, when known); -errno or PFS_ERR_* otherwise. */
int pfs_fid_check_at(int at, const char *path, const struct pfs_fid *expect);
static inline int pfs_fid_check_path(const char *path, const struct pfs_fid *expect)
{
    return pfs_fid_check_at(AT_FDCWD, path, expect);
}

/* Local. Removes path only when it is still the file id names. Returns 0
 * (removed), 1 (already gone), PFS_ERR_REPLACED (something else is there
 * now: left alone) or -errno of a failed unlink. */
int pfs_unlink_own_at(int at, const char *path, const struct pfs_fid *id);
static inline int pfs_unlink_own(const char *path, const struct pfs_fid *id)
{
    return pfs_unlink_own_at(AT_FDCWD, path, id);
}

/* A directory the run made or checked, held open for the run: fd (-1 when
 * none) and its identity when opened. */
struct pfs_dir {
    int fd;
    struct pfs_fid id;
};

/* Local. Opens name (relative to at) as a directory, never through a link
 * in its last component unless follow (-d as the user gave it). 0 or
 * -errno (-ENOTDIR for a link without follow). */
int pfs_dir_open(int at, const char *name, int follow, struct pfs_dir *d);
/* Local. mkdirat(at, name, 0755) and opens what it made; a directory that
 * is there already is refused (-EEXIST), and one that is not fresh when
 * opened (not empty, another user's: swapped in between) is
 * PFS_ERR_REPLACED. */
int pfs_dir_make(int at, const char *name, struct pfs_dir *d);
/* Local. 0 when name in at still names d's directory; PFS_ERR_REPLACED
 * when it names something else (a link, another directory), -errno (ENOENT:
 * gone) when it cannot be looked at. */
int pfs_dir_still(int at, const char *name, int follow, const struct pfs_dir *d);
/* Local. Removes name from at when it is still d's (empty) directory, and
 * closes d; returns 0, PFS_ERR_REPLACED (left alone, d stays open) or -errno. */
int pfs_dir_remove(int at, const char *name, struct pfs_dir *d);
void pfs_dir_close(struct pfs_dir *d);
/* Local. What name in at leads to now, in words for a message ("a
 * symbolic link", "another directory", "nothing"). */
const char *pfs_dir_now(int at, const char *name, int follow);
/* Local. Where the kernel says the directory fd is now (/proc/self/fd), for
 * naming one that was moved: 0, or -1 when it cannot say. */
int pfs_dir_where(int fd, char *buf, size_t len);

/* Local. openat of rel, a relative name of one or more components, beneath
 * at: no component may be a symbolic link, "..", or on another file system
 * (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV, or
 * component by component with O_NOFOLLOW where the kernel lacks it). The
 * descriptor, -errno, or PFS_ERR_OUTSIDE. */
int pfs_open_beneath(int at, const char *rel, int oflags, mode_t mode);

/* The run's lock: a file held with an exclusive flock while the run lives. */
struct pfs_lock {
    int fd;                     /* -1: not held */
    int made;                   /* this process made the file */
    struct pfs_fid id;          /* the inode locked */
};

/* Local. Takes the exclusive flock of name in at, making the file when it
 * is absent (then writing mark into it, when given), trying a held lock
 * `tries` times 20 ms apart. After the flock, the name must still name the
 * inode locked (a lock file removed or replaced between the open and the
 * flock locks nothing): else it starts again, a few times. Never removes
 * the file when it cannot lock it, even one it made: whoever holds it owns
 * it. 0 (lk set), PFS_ERR_BUSY (holder, when given, gets the file's first
 * line), PFS_ERR_UNSTABLE, or -errno. */
int pfs_lock_take(int at, const char *name, int tries, const char *mark, struct pfs_lock *lk, char *holder,
                  size_t hlen);
/* Local. Releases lk; with remove, first removes the file while the lock is
 * still held and only while name still names the inode locked. 0, 1 (the
 * name was gone), PFS_ERR_REPLACED (another file is there: left alone), or
 * -errno. */
int pfs_lock_drop(int at, const char *name, struct pfs_lock *lk, int remove);

#endif
