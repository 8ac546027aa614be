/* The results file's locks: two byte-range locks on a regular file beside
 * it (.NAME.lock), which cross clients where a directory flock does not.
 * Byte 0 is the writer lock: an append holds it exclusively from start to
 * end, so appends wait for each other. Byte 1 is the reader lock: readers
 * (pfsbench.open, the check before a run) hold it shared while the file is
 * open; an append that would write into the file in place tries it
 * exclusively without waiting, and copies the file instead when readers
 * hold it (append.c), so a reader never delays an append. */
#define _GNU_SOURCE
#include "results_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_WAIT_S 600 /* how long an append waits for another writer's lock */
#define LOCK_NOTE_S 30  /* how often a waiting append says so */

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

/* One try at lock `which` (PFS_LOCK_WRITER or PFS_LOCK_READER: its byte)
 * of type (F_WRLCK, or F_RDLCK: shared) on fd (path, for messages): 0
 * taken, 1 held by another, -1 refused by the file system (err set). OFD
 * locks belong to the open file, so two appends in one process exclude
 * each other too; a kernel or file system without them gets the classic
 * POSIX lock. An older pfsbench's whole-file lock conflicts with both. */
int pfs_res_lock_try(int fd, int *cmd, short type, int which, const struct target *t, const char *path, char *err,
                     size_t len)
{
    for (;;) {
        struct flock fl;
        memset(&fl, 0, sizeof(fl));
        fl.l_type = type;
        fl.l_whence = SEEK_SET;
        fl.l_start = which;
        fl.l_len = 1;
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

/* Lets go of lock `which`, or of both (PFS_LOCK_BOTH); none held: a no-op. */
void pfs_res_lock_release(int fd, int cmd, int which)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = which == PFS_LOCK_BOTH ? 0 : which;
    fl.l_len = which == PFS_LOCK_BOTH ? 0 : 1;
    fcntl(fd, cmd, &fl);
}

/* The holder's own line in the lock file ("host pid run-id", written by
 * pfs_results_append under the lock): its words for a message, or "".
 * Bounded and sanitised: the file is anyone's to write. */
static void lock_holder(int fd, char *out, size_t len)
{
    char buf[256];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    out[0] = '\0';
    if (n <= 0)
        return;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
    char host[128], id[128];
    long pid;
    if (sscanf(buf, "%127s %ld %127s", host, &pid, id) == 3)
        snprintf(out, len, " (held by pid %ld on %s, run %s)", pid, host, id);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The wait for lock `which` after `waited` s: its line on stderr (err
 * NULL), or, at the limit, the error. The writer lock's holder says who
 * it is in the lock file; readers do not. */
static int lock_waited(int fd, int which, double waited, const struct target *t, char *err, size_t len)
{
    char who[300] = "";
    if (which == PFS_LOCK_READER) {
        if (err)
            return fail(err, len, "waited %d s for the readers of '%s' to close it (its reader lock, on %s), to undo "
                        "an interrupted append there; the run is not recorded", LOCK_WAIT_S, t->given, t->lock);
        fprintf(stderr, "pfsbench: waiting %.0f s so far for the readers of '%s' to close it, to undo an interrupted "
                "append there (giving up at %d s)\n", waited, t->given, LOCK_WAIT_S);
        return 0;
    }
    lock_holder(fd, who, sizeof(who));
    if (err)
        return fail(err, len, "waited %d s for the lock on %s%s, which another pfsbench appending to '%s' holds; "
                    "the run is not recorded", LOCK_WAIT_S, t->lock, who, t->given);
    fprintf(stderr, "pfsbench: waiting %.0f s so far for the lock on %s%s to append the run to '%s' (giving up at %d "
            "s)\n", waited, t->lock, who[0] ? who : " (held by a process that did not say who)", t->given,
            LOCK_WAIT_S);
    return 0;
}

/* Waits for lock `which` by polling, with a limit, so that a writer stuck
 * on a dead client never hangs this run forever; every LOCK_NOTE_S it says
 * on stderr that it waits, and for whom, so that a run that seems to hang
 * after its last phase is seen to wait for another. */
int pfs_res_lock_take(int fd, int *cmd, short type, int which, const struct target *t, char *err, size_t len)
{
    struct timespec nap = {0, 1000000};
    const double t0 = mono_now();
    double next_note = LOCK_NOTE_S;
    for (;;) {
        int r = pfs_res_lock_try(fd, cmd, type, which, t, t->lock, err, len);
        if (r <= 0)
            return r;
        double waited = mono_now() - t0;
        if (waited >= LOCK_WAIT_S)
            return lock_waited(fd, which, waited, t, err, len);
        if (waited >= next_note) {
            lock_waited(fd, which, waited, t, NULL, 0);
            fflush(stderr);
            next_note += LOCK_NOTE_S;
        }
        nanosleep(&nap, NULL);
        if (nap.tv_nsec < 200000000)
            nap.tv_nsec *= 2;
    }
}

/* Under the lock: this run's line in the lock file, for those who wait. */
void pfs_res_lock_say_holder(int fd, const struct target *t, const char *run_id)
{
    char line[256];
    int n = snprintf(line, sizeof(line), "%s %ld %s\n", t->host, (long)getpid(), run_id && run_id[0] ? run_id : "-");
    if (ftruncate(fd, 0) == 0 && n > 0)
        (void)!pwrite(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1, 0);
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
