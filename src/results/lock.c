/* The results file's lock: a write lock on a regular file beside it
 * (.NAME.lock), which crosses clients where a directory flock does not.
 * append.c takes it around the append, and tries one in its check. */
#define _GNU_SOURCE
#include "results_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_WAIT_S 600 /* how long an append waits for another writer's lock */

static int lock_refused(const struct target *t, const char *path, int e, char *err, size_t len)
{
    return fail(err, len, "the file system of '%s' refuses file locks on %s (%s): without a lock, runs appending from "
                "several clients at once could drop each other's results, so pfsbench does not record the run there; "
                "give -o a file on a file system with locks (local disk, NFSv4, GlusterFS, Lustre mounted with "
                "-o flock, GPFS)", t->given, path, strerror(e));
}

/* The lock file: a regular file beside the results file, never removed (a
 * removal would race with a writer that just opened it). Locks on a
 * regular file cross clients on GlusterFS, NFSv4, Lustre (-o flock) and
 * GPFS; a flock on a directory is kept per client by FUSE. */
int pfs_res_lock_open(const struct target *t, mode_t mode, char *err, size_t len)
{
    int fd = -1;
    /* A FUSE client cannot tell its server that O_CREAT came without
     * O_EXCL: when two clients create the lock file at once, the loser can
     * get EEXIST for a file that now exists. Open it again. */
    for (int i = 0; i < 5; i++) {
        fd = open(t->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
        if (fd >= 0 || (errno != EEXIST && errno != EINTR))
            break;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return fail(err, len, "lock file %s of results path '%s' is a symbolic link; pfsbench never follows "
                        "one there: remove it", t->lock, t->given);
        return fail(err, len, "cannot create or open lock file %s of results path '%s': %s", t->lock, t->given,
                    strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, len, "lock file %s of results path '%s' is not a regular file: remove it", t->lock, t->given);
    }
    return fd;
}

/* One try at the whole-file write lock on fd (path, for messages): 0
 * taken, 1 held by another writer, -1 refused by the file system (err
 * set). OFD locks belong to the open file, so two appends in one process
 * exclude each other too; a kernel or file system without them gets the
 * classic POSIX lock. */
int pfs_res_lock_try(int fd, int *cmd, const struct target *t, const char *path, char *err, size_t len)
{
    for (;;) {
        struct flock fl;
        memset(&fl, 0, sizeof(fl));
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, *cmd, &fl) == 0)
            return 0;
        int e = errno;
        if (e == EINTR)
            continue;
        if (e == EINVAL && *cmd == F_OFD_SETLK) {
            *cmd = F_SETLK;
            continue;
        }
        if (e == EAGAIN || e == EACCES)
            return 1;
        return lock_refused(t, path, e, err, len);
    }
}

void pfs_res_lock_release(int fd, int cmd)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    fcntl(fd, cmd, &fl);
}

/* Waits for the lock by polling, with a limit, so that a writer stuck on
 * a dead client never hangs this run forever. */
int pfs_res_lock_take(int fd, int *cmd, const struct target *t, char *err, size_t len)
{
    struct timespec nap = {0, 1000000};
    double waited = 0;
    for (;;) {
        int r = pfs_res_lock_try(fd, cmd, t, t->lock, err, len);
        if (r <= 0)
            return r;
        if (waited >= LOCK_WAIT_S)
            return fail(err, len, "waited %d s for the lock on %s (another pfsbench appending to '%s' holds it); the "
                        "run is not recorded", LOCK_WAIT_S, t->lock, t->given);
        nanosleep(&nap, NULL);
        waited += (double)nap.tv_nsec / 1e9;
        if (nap.tv_nsec < 200000000)
            nap.tv_nsec *= 2;
    }
}

/* An existing lock file must be one the append can open and lock: a
 * regular file, never a link (which the append does not follow). */
int pfs_res_lock_check_file(const struct target *t, char *err, size_t len)
{
    struct stat st;
    if (lstat(t->lock, &st) != 0)
        return errno == ENOENT ? 0
                               : fail(err, len, "cannot look up lock file %s of results path '%s': %s", t->lock,
                                      t->given, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return fail(err, len, "lock file %s of results path '%s' is a symbolic link; pfsbench never follows one there: "
                    "remove it", t->lock, t->given);
    if (!S_ISREG(st.st_mode))
        return fail(err, len, "lock file %s of results path '%s' is not a regular file: remove it", t->lock, t->given);
    int fd = open(t->lock, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(err, len, "cannot open lock file %s of results path '%s': %s", t->lock, t->given, strerror(errno));
    close(fd);
    return 0;
}
