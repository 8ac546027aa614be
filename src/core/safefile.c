/* See pfs/safefile.h: every data-file operation acts on this run's inode. */
#define _GNU_SOURCE
#include "pfs/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
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
    if (code == PFS_ERR_REPLACED) {
        snprintf(buf, len, "no longer the file this run created (replaced by another process since); "
                 "pfsbench leaves it alone");
        return buf;
    }
    return NULL;
}

static int same(const struct stat *st, const struct pfs_fid *id)
{
    struct pfs_fid have = {(uint64_t)st->st_dev, (uint64_t)st->st_ino};
    return pfs_fid_same(&have, id);
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

int pfs_fid_check_path(const char *path, const struct pfs_fid *expect)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return S_ISLNK(st.st_mode) && pfs_fid_known(expect) ? PFS_ERR_REPLACED : PFS_ERR_NOTREG;
    if (pfs_fid_known(expect) && !same(&st, expect))
        return PFS_ERR_REPLACED;
    return 0;
}

static int open_once(const char *path, int oflags, mode_t mode, const struct pfs_fid *expect, struct pfs_fid *got)
{
    const int trunc = oflags & O_TRUNC;
    /* Look before opening: opening a device can have effects of its own. */
    if (!(oflags & O_CREAT)) {
        int rc = pfs_fid_check_path(path, expect);
        if (rc < 0)
            return rc;
    }
    int fd = open(path, (oflags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
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
            (void)pfs_unlink_own(path, &id);
        return rc;
    }
    if (got)
        *got = id;
    return fd;
}

int pfs_open_own(const char *path, int oflags, mode_t mode, const struct pfs_fid *expect, struct pfs_fid *got)
{
    if (!(oflags & O_CREAT) || !(oflags & O_DIRECT))
        return open_once(path, oflags, mode, expect, got);
    /* open(2) makes the file before a file system that refuses O_DIRECT
     * (tmpfs before 6.6, ramfs, some FUSE) fails it with EINVAL: create it
     * without, open it again with O_DIRECT as the inode just made, and
     * remove it when that fails, so a refused --direct leaves nothing. */
    struct pfs_fid made = {0, 0};
    int fd = open_once(path, oflags & ~O_DIRECT, mode, expect, &made);
    if (fd < 0)
        return fd;
    close(fd);
    fd = open_once(path, oflags & ~(O_CREAT | O_EXCL | O_TRUNC), 0, &made, got);
    if (fd < 0)
        (void)pfs_unlink_own(path, &made);
    return fd;
}

int pfs_unlink_own(const char *path, const struct pfs_fid *id)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 1 : -errno;
    if (!S_ISREG(st.st_mode) || (pfs_fid_known(id) && !same(&st, id)))
        return PFS_ERR_REPLACED;
    return unlink(path) == 0 ? 0 : -errno;
}
