/* See pfs/safefile.h: every data-file operation acts on this run's inode,
 * every name of the run is resolved through a directory it holds open, and
 * the run's lock is the file its name names. */
#define _GNU_SOURCE
#include "pfs/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *type_name(mode_t m)
{
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/* The reasons that need no look at the file, by code. */
static const struct {
    int code;
    const char *why;
} whys[] = {
    {PFS_ERR_REPLACED, "no longer the file this run created (replaced by another process since); "
                       "pfsbench leaves it alone"},
    {PFS_ERR_BUSY, "locked by another process"},
    {PFS_ERR_UNSTABLE, "removed or replaced by another process each time pfsbench locked it"},
    {PFS_ERR_OUTSIDE, "a directory on its way is a symbolic link or another file system, not one this run "
                      "made: pfsbench does not follow it"},
};

const char *pfs_safefile_why(int code, const char *path, char *buf, size_t len)
{
    struct stat st;
    if (code == PFS_ERR_NOTREG) {
        if (path && lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
            snprintf(buf, len, "not a regular file (%s); pfsbench reads and writes regular files only",
                     type_name(st.st_mode));
        else
            snprintf(buf, len, "not a regular file; pfsbench reads and writes regular files only");
        return buf;
    }
    for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
        if (whys[i].code == code) {
            snprintf(buf, len, "%s", whys[i].why);
            return buf;
        }
    return NULL;
}

static int same(const struct stat *st, const struct pfs_fid *id)
{
    struct pfs_fid have = {(uint64_t)st->st_dev, (uint64_t)st->st_ino};
    return pfs_fid_same(&have, id);
}

const char *pfs_at_name(int at, const char *path)
{
    if (at == AT_FDCWD)
        return path;
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int pfs_fid_of_fd(int fd, struct pfs_fid *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return PFS_ERR_NOTREG;
    if (id) {
        id->dev = (uint64_t)st.st_dev;
        id->ino = (uint64_t)st.st_ino;
    }
    return 0;
}

int pfs_fid_check_at(int at, const char *path, const struct pfs_fid *expect)
{
    struct stat st;
    if (fstatat(at, pfs_at_name(at, path), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return S_ISLNK(st.st_mode) && pfs_fid_known(expect) ? PFS_ERR_REPLACED : PFS_ERR_NOTREG;
    if (pfs_fid_known(expect) && !same(&st, expect))
        return PFS_ERR_REPLACED;
    return 0;
}

static int open_once(int at, const char *path, int oflags, mode_t mode, const struct pfs_fid *expect,
                     struct pfs_fid *got)
{
    const int trunc = oflags & O_TRUNC;
    /* Look before opening: opening a device can have effects of its own. */
    if (!(oflags & O_CREAT)) {
        int rc = pfs_fid_check_at(at, path, expect);
        if (rc < 0)
            return rc;
    }
    int fd = openat(at, pfs_at_name(at, path), (oflags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0)
        return errno == ELOOP && pfs_fid_known(expect) ? PFS_ERR_REPLACED : errno == ELOOP ? PFS_ERR_NOTREG : -errno;
    struct pfs_fid id;
    int rc = pfs_fid_of_fd(fd, &id);
    if (rc == 0 && pfs_fid_known(expect) && !pfs_fid_same(&id, expect))
        rc = PFS_ERR_REPLACED;
    /* O_NONBLOCK was only for the open (a FIFO must not block it). */
    if (rc == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = -errno;
    if (rc == 0 && trunc && ftruncate(fd, 0) != 0)
        rc = -errno;
    if (rc < 0) {
        close(fd);
        /* O_CREAT|O_EXCL made it: this run's own, and of no use now. */
        if ((oflags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && rc != PFS_ERR_NOTREG)
            (void)pfs_unlink_own_at(at, path, &id);
        return rc;
    }
    if (got)
        *got = id;
    return fd;
}

int pfs_open_own_at(int at, const char *path, int oflags, mode_t mode, const struct pfs_fid *expect,
                    struct pfs_fid *got)
{
    if (!(oflags & O_CREAT) || !(oflags & O_DIRECT))
        return open_once(at, path, oflags, mode, expect, got);
    /* open(2) makes the file before a file system that refuses O_DIRECT
     * (tmpfs before 6.6, ramfs, some FUSE) fails it with EINVAL: create it
     * without, open it again with O_DIRECT as the inode just made, and
     * remove it when that fails, so a refused --direct leaves nothing. */
    struct pfs_fid made = {0, 0};
    int fd = open_once(at, path, oflags & ~O_DIRECT, mode, expect, &made);
    if (fd < 0)
        return fd;
    close(fd);
    fd = open_once(at, path, oflags & ~(O_CREAT | O_EXCL | O_TRUNC), 0, &made, got);
    if (fd < 0)
        (void)pfs_unlink_own_at(at, path, &made);
    return fd;
}

int pfs_unlink_own_at(int at, const char *path, const struct pfs_fid *id)
{
    const char *name = pfs_at_name(at, path);
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 1 : -errno;
    if (!S_ISREG(st.st_mode) || (pfs_fid_known(id) && !same(&st, id)))
        return PFS_ERR_REPLACED;
    return unlinkat(at, name, 0) == 0 ? 0 : -errno;
}

/* ---- directories held open ---- */

static void dir_id(const struct stat *st, struct pfs_dir *d)
{
    d->id.dev = (uint64_t)st->st_dev;
    d->id.ino = (uint64_t)st->st_ino;
}

int pfs_dir_open(int at, const char *name, int follow, struct pfs_dir *d)
{
    d->fd = -1;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0)
        return errno == ELOOP ? -ENOTDIR : -errno; /* O_NOFOLLOW on a link: not a directory of this run */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    dir_id(&st, d);
    d->fd = fd;
    return 0;
}

/* 1 when the directory fd holds no entry but . and .. */
static int dir_empty(int fd)
{
    int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dp = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!dp) {
        if (dup_fd >= 0)
            close(dup_fd);
        return 0;
    }
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(dp)) != NULL)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(dp);
    return empty;
}

int pfs_dir_make(int at, const char *name, struct pfs_dir *d)
{
    d->fd = -1;
    if (mkdirat(at, name, 0755) != 0)
        return -errno;
    int rc = pfs_dir_open(at, name, 0, d);
    if (rc < 0)
        return rc;
    /* Between the mkdir and the open another process could have put its
     * own directory under the name: the one opened must be fresh (empty,
     * this user's), or it is not the one made. */
    struct stat st;
    if (fstat(d->fd, &st) != 0 || st.st_uid != geteuid() || !dir_empty(d->fd)) {
        pfs_dir_close(d);
        return PFS_ERR_REPLACED;
    }
    return 0;
}

int pfs_dir_still(int at, const char *name, int follow, const struct pfs_dir *d)
{
    struct stat st;
    if (fstatat(at, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) && same(&st, &d->id) ? 0 : PFS_ERR_REPLACED;
}

int pfs_dir_remove(int at, const char *name, struct pfs_dir *d)
{
    int rc = pfs_dir_still(at, name, 0, d);
    if (rc == 0 && unlinkat(at, name, AT_REMOVEDIR) != 0)
        rc = -errno;
    if (rc == 0)
        pfs_dir_close(d);
    return rc;
}

void pfs_dir_close(struct pfs_dir *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

const char *pfs_dir_now(int at, const char *name, int follow)
{
    struct stat st;
    if (fstatat(at, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? "nothing" : "something pfsbench cannot look at";
    return S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "another directory" : "another file";
}

int pfs_dir_where(int fd, char *buf, size_t len)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = len ? readlink(link, buf, len - 1) : -1;
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* openat2 where the kernel has it (5.6): one call that walks rel from at
 * and refuses any link, any "..", any mount point on the way. */
static int open_beneath2(int at, const char *rel, int oflags, mode_t mode)
{
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (uint64_t)(oflags | O_CLOEXEC),
        .mode = (oflags & O_CREAT) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
    };
    long fd = syscall(SYS_openat2, at, rel, &how, sizeof(how));
    if (fd >= 0)
        return (int)fd;
    if (errno == ELOOP || errno == EXDEV)
        return PFS_ERR_OUTSIDE;
    return errno == ENOSYS || errno == EPERM ? -ENOSYS : -errno; /* EPERM: a seccomp filter that forbids it */
#else
    (void)at, (void)rel, (void)oflags, (void)mode;
    return -ENOSYS;
#endif
}

/* The same, one component at a time, each with O_NOFOLLOW and checked to
 * be a directory on at's file system. */
static int open_beneath1(int at, const char *rel, int oflags, mode_t mode)
{
    struct stat top;
    if (fstat(at, &top) != 0)
        return -errno;
    char part[NAME_MAX + 1];
    int cur = at;
    const char *p = rel;
    for (;;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || n > NAME_MAX || (n == 2 && p[0] == '.' && p[1] == '.')) {
            if (cur != at)
                close(cur);
            return n > NAME_MAX ? -ENAMETOOLONG : PFS_ERR_OUTSIDE;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        const int last = p[n] == '\0';
        int fd = last ? openat(cur, part, oflags | O_NOFOLLOW | O_CLOEXEC, mode)
                      : openat(cur, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        struct stat st;
        /* O_PATH | O_NOFOLLOW opens a link itself, O_DIRECTORY | O_NOFOLLOW
         * says ENOTDIR of one: a link either way. */
        if (fd < 0 && last && e == ENOTDIR && fstatat(cur, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            e = ELOOP;
        if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode) || (!last && st.st_dev != top.st_dev))) {
            close(fd);
            fd = -1, e = EXDEV;
        }
        if (cur != at)
            close(cur);
        if (fd < 0)
            return e == ELOOP || e == EXDEV || (e == ENOTDIR && !last) ? PFS_ERR_OUTSIDE : -e;
        if (last)
            return fd;
        cur = fd;
        p += n + 1;
    }
}

int pfs_open_beneath(int at, const char *rel, int oflags, mode_t mode)
{
    int fd = open_beneath2(at, rel, oflags, mode);
    return fd == -ENOSYS ? open_beneath1(at, rel, oflags, mode) : fd;
}

/* ---- the run's lock ---- */

/* The holder a lock file names ("host pid"), first line. */
static void read_holder(int fd, char *holder, size_t len)
{
    if (!holder || !len)
        return;
    ssize_t n = pread(fd, holder, len - 1, 0);
    holder[n > 0 ? n : 0] = '\0';
    holder[strcspn(holder, "\n")] = '\0';
}

/* Opens (making it when absent) the lock file name in at: fd, *made. */
static int lock_open(int at, const char *name, int *made)
{
    *made = 0;
    int fd = openat(at, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd >= 0) {
        *made = 1;
        return fd;
    }
    if (errno != EEXIST)
        return -errno;
    return pfs_open_own_at(at, name, O_RDWR, 0, NULL, NULL);
}

int pfs_lock_take(int at, const char *name, int tries, const char *mark, struct pfs_lock *lk, char *holder,
                  size_t hlen)
{
    lk->fd = -1;
    lk->made = 0;
    if (holder && hlen)
        holder[0] = '\0';
    /* A lock file removed or replaced between our open and our flock
     * locks nothing anyone can see: open the name again, a few times. */
    for (int round = 0; round < 5; round++) {
        int made, fd = lock_open(at, name, &made);
        if (fd == -ENOENT)
            continue; /* removed between the create's EEXIST and the open */
        if (fd < 0)
            return fd;
        int locked = 0, e = 0;
        for (int i = 0; i < tries && !locked; i++) {
            if (i)
                usleep(20000); /* a --clean may be probing it this instant */
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
            e = locked ? 0 : errno;
        }
        if (!locked) {
            /* Never unlinked here, made or not: whoever holds it now owns it. */
            read_holder(fd, holder, hlen);
            close(fd);
            return e == EWOULDBLOCK ? PFS_ERR_BUSY : -e;
        }
        struct pfs_fid id;
        int rc = pfs_fid_of_fd(fd, &id);
        if (rc == 0 && pfs_fid_check_at(at, name, &id) == 0) {
            if (made && mark && pwrite(fd, mark, strlen(mark), 0) < 0)
                rc = -errno;
            if (rc == 0) {
                lk->fd = fd;
                lk->made = made;
                lk->id = id;
                return 0;
            }
        }
        close(fd); /* the flock of an inode no name leads to */
        if (rc < 0)
            return rc;
    }
    return PFS_ERR_UNSTABLE;
}

int pfs_lock_drop(int at, const char *name, struct pfs_lock *lk, int remove)
{
    if (lk->fd < 0)
        return 0;
    int rc = 0;
    /* Still holding the flock: the name is ours only while it names the
     * inode locked; a lock another process made since is left alone. */
    if (remove && (rc = pfs_fid_check_at(at, name, &lk->id)) == 0 && unlinkat(at, name, 0) != 0)
        rc = -errno;
    close(lk->fd);
    lk->fd = -1;
    return rc == -ENOENT ? 1 : rc;
}
