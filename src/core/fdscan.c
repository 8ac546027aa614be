/* The descriptor a library opened for us (pfs/fdscan.h). */
#define _GNU_SOURCE
#include "pfs/fdscan.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pfs_fdset_take(struct pfs_fdset *set)
{
    memset(set->bits, 0, sizeof(set->bits));
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd != self && fd < PFS_FD_SCAN)
            set->bits[fd / 8] |= (unsigned char)(1u << (fd % 8));
    }
    closedir(d);
}

static int has(const struct pfs_fdset *set, int fd)
{
    return (set->bits[fd / 8] & (1u << (fd % 8))) != 0;
}

int pfs_fdset_check_new(const char *path, const struct pfs_fdset *before, const struct pfs_fid *expect,
                        struct pfs_fid *got)
{
    struct pfs_fid want = {0, 0};
    if (pfs_fid_known(expect))
        want = *expect;
    else {
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            return PFS_ERR_NOTREG;
        want.dev = (uint64_t)st.st_dev;
        want.ino = (uint64_t)st.st_ino;
    }
    struct pfs_fdset after;
    pfs_fdset_take(&after);
    int seen = 0;
    for (int fd = 0; fd < PFS_FD_SCAN; fd++) {
        if (!has(&after, fd) || has(before, fd))
            continue;
        struct pfs_fid id;
        if (pfs_fid_of_fd(fd, &id) != 0)
            continue;
        seen = 1;
        if (pfs_fid_same(&id, &want)) {
            *got = id;
            return 0;
        }
    }
    if (seen)
        return PFS_ERR_REPLACED;
    *got = want;
    return 1;
}
