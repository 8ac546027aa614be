/* The append's integrity steps: where the file is, the up-front checks,
 * in place or by a copy, stale copies. The locks are lock.c; the HDF5 side
 * is results_h5.c (the schema), image.c (the file as a whole) and
 * overlay.c (the driver an existing file is opened through); the commit
 * of an existing file is journal.c in place, copy.c by a copy.
 *
 * Integrity: everything happens under the writer lock on a regular lock
 * file beside the results file (.NAME.lock), which crosses clients where a
 * directory flock does not. HDF5 adds the run to an existing file in
 * memory only (the overlay). With the reader lock taken exclusively too
 * (no reader has the file open), journal.c writes those bytes into the
 * file behind an undo journal (.NAME.tmp.HOST.PID), which the next lock
 * holder undoes if the writer died; with readers holding it, copy.c writes
 * the whole new file beside it and renames it over the file, which the
 * readers keep open unchanged: no append waits for a reader. A new file is
 * built in memory and renamed into place the same way. A crash at any
 * moment leaves the old file or the new one once the next lock holder has
 * looked, never a half-written one; a failed write leaves the old one byte
 * for byte. The check before the run reads an existing file under the
 * reader lock, shared, and undoes a dead writer's journal first. Memory:
 * the run's bytes, not the file's. */
#define _GNU_SOURCE
#include "results_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

/* ---- where the file is, and what may go wrong with it ----
 *
 * An append while readers have the file open replaces it by rename(2) of
 * a new copy beside it, so everything that would make the rename fail, or
 * that the rename would break (a symlink, a hard link, the owner or mode),
 * is checked up front by pfs_results_check and again under the lock by the
 * append. */

#define PID_DIGITS 10   /* room for any pid in a temporary copy's name */

/* The host name, with anything but [A-Za-z0-9._-] as '_', so that it is a
 * safe part of a file name. Several clients share the results directory:
 * the host tells whose a temporary copy is. */
static void host_tag(char *out, size_t len)
{
    char h[HOST_NAME_MAX + 1] = "";
    if (gethostname(h, sizeof(h)) != 0 || !h[0])
        snprintf(h, sizeof(h), "unknown-host");
    h[HOST_NAME_MAX] = '\0';
    size_t i = 0;
    for (; h[i] && i + 1 < len; i++) {
        char c = h[i];
        int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '-' || c == '_';
        out[i] = safe ? c : '_';
    }
    out[i] = '\0';
}

/* Fills t for the results path: a symlink is followed to its target (the
 * rename must replace the target in its own directory, never the link),
 * and every name the append makes must fit NAME_MAX and PATH_MAX. */
static int resolve_target(const char *path, struct target *t, char *err, size_t len)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->given, sizeof(t->given), "%s", path);
    size_t n = strlen(path);
    if (n == 0)
        return fail(err, len, "the results path is empty; give -o a file name");
    if (path[n - 1] == '/')
        return fail(err, len, "results path '%s' ends in '/'; give -o a file name, not a directory", path);
    char full[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, full))
            return fail(err, len, "results path '%s' is a symbolic link that does not lead to a file (%s); point it "
                        "at an existing results file or give -o the file itself", path, strerror(errno));
    } else {
        char d[PATH_MAX], b[PATH_MAX], rd[PATH_MAX];
        if (n >= sizeof(d))
            return fail(err, len, "results path '%.64s...' is longer than PATH_MAX (%d)", path, PATH_MAX);
        memcpy(d, path, n + 1);
        memcpy(b, path, n + 1);
        if (!realpath(dirname(d), rd))
            return fail(err, len, "the directory of results path '%s' does not exist (%s); create it or give -o "
                        "elsewhere", path, strerror(errno));
        if (snprintf(full, sizeof(full), "%s/%s", strcmp(rd, "/") ? rd : "", basename(b)) >= (int)sizeof(full))
            return fail(err, len, "results path '%.64s...' is longer than PATH_MAX (%d)", path, PATH_MAX);
    }
    char *slash = strrchr(full, '/'); /* full is absolute */
    size_t dl = slash == full ? 1 : (size_t)(slash - full), bl = strlen(slash + 1);
    memcpy(t->dir, full, dl);
    t->dir[dl] = '\0';
    host_tag(t->host, sizeof(t->host));
    /* The longest name made: .BASE.tmp.HOST.PID */
    size_t extra = 1 + 5 + strlen(t->host) + 1 + PID_DIGITS;
    if (bl + extra > NAME_MAX)
        return fail(err, len, "results file name '%.40s...' (%zu bytes) is too long: its temporary copy "
                    "'.NAME.tmp.%s.PID' would exceed the %d-byte limit on a file name (NAME_MAX); give -o a name of "
                    "at most %zu bytes", slash + 1, bl, t->host, NAME_MAX, (size_t)NAME_MAX - extra);
    if (dl + 1 + bl + extra >= PATH_MAX)
        return fail(err, len, "results path '%.64s...' is too long: its temporary copy's path would exceed "
                    "PATH_MAX (%d)", path, PATH_MAX);
    memcpy(t->base, slash + 1, bl + 1);
    const char *sep = strcmp(t->dir, "/") ? "/" : "";
    snprintf(t->path, sizeof(t->path), "%s%s%s", t->dir, sep, t->base);
    snprintf(t->lock, sizeof(t->lock), "%s%s.%s.lock", t->dir, sep, t->base);
    snprintf(t->tmp, sizeof(t->tmp), "%s%s.%s.tmp.%s.%ld", t->dir, sep, t->base, t->host, (long)getpid());
    return 0;
}

/* chattr +i / +a: rename can neither replace such a file nor change such a
 * directory. 0 when neither is set or the file system keeps no such flags. */
static int check_fs_flags(const char *p, int is_dir, const struct target *t, char *err, size_t len)
{
    int fd = open(p, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
    int fl = 0;
    if (fd < 0)
        return 0; /* whatever stops the open is found by the checks that follow */
    if (ioctl(fd, FS_IOC_GETFLAGS, &fl) != 0)
        fl = 0;
    close(fd);
    const char *what = fl & FS_IMMUTABLE_FL ? "immutable (chattr +i)" : fl & FS_APPEND_FL ? "append-only (chattr +a)"
                                                                                         : NULL;
    if (!what)
        return 0;
    if (is_dir)
        return fail(err, len, "cannot record results beside '%s': directory %s is %s, so the new copy of the results "
                    "file cannot be made or renamed there; clear the flag (chattr -%c) or give -o elsewhere", t->given,
                    p, what, fl & FS_IMMUTABLE_FL ? 'i' : 'a');
    return fail(err, len, "results file '%s' (%s) is %s: pfsbench appends by replacing the file with a new copy, "
                "which that forbids; clear the flag (chattr -%c) or give -o another file", t->given, p, what,
                fl & FS_IMMUTABLE_FL ? 'i' : 'a');
}

static int in_group(gid_t g)
{
    if (g == getegid())
        return 1;
    gid_t gs[256];
    int n = getgroups(256, gs);
    for (int i = 0; i < n; i++)
        if (gs[i] == g)
            return 1;
    return 0;
}

/* File systems whose clients cache names, attributes or data for a while
 * (FUSE, NFS, SMB, Ceph, Lustre, GPFS, BeeGFS): there one client can be
 * shown, for about a cache timeout, a results file another client has
 * just replaced, and a read of it can fail or come short. */
static int client_caches(const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return 0;
    switch ((unsigned long)sf.f_type) {
    case 0x65735546UL: /* FUSE (GlusterFS, BeeGFS's client is not) */
    case 0x6969UL:     /* NFS */
    case 0xFF534D42UL: /* CIFS */
    case 0xFE534D42UL: /* SMB2 */
    case 0x00C36400UL: /* Ceph */
    case 0x0BD00BD0UL: /* Lustre */
    case 0x47504653UL: /* GPFS */
    case 0x19830326UL: /* BeeGFS */
        return 1;
    }
    return 0;
}

#define STALE_WAIT_S 5.0 /* how long a caching client is given to show the current file */

/* Sleeps the n-th of a series of growing naps (50 ms doubling to 800 ms);
 * returns the seconds slept so far. */
static double stale_nap(int n)
{
    double s = 0.05 * (double)(1 << (n < 4 ? n : 4));
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
    /* 50, 100, 200, 400 ms, then 800 ms each: the sum in closed form. */
    return n < 4 ? 0.05 * (double)((2 << n) - 1) : 0.75 + 0.8 * (double)(n - 3);
}

/* An existing results file: what the rename would lose is refused. */
static int check_existing(const struct target *t, const struct stat *st, char *err, size_t len)
{
    const char *g = t->given, *p = t->path;
    if (S_ISDIR(st->st_mode))
        return fail(err, len, "results path '%s' is a directory; give -o a file name", g);
    if (!S_ISREG(st->st_mode))
        return fail(err, len, "results path '%s' is not a regular file", g);
    if (st->st_nlink > 1)
        return fail(err, len, "results file '%s' has %lu hard links: pfsbench appends by renaming a new copy over it, "
                    "which would leave the other names on the old file; give -o a file with one link (cp it to a new "
                    "name)", g, (unsigned long)st->st_nlink);
    if (check_fs_flags(p, 0, t, err, len) != 0) /* before access(), whose EPERM would not say why */
        return -1;
    if (access(p, R_OK | W_OK) != 0)
        return fail(err, len, "results file '%s' is not readable and writable (%s)", g, strerror(errno));
    /* The copy is made by us: only root can give it another owner, and
     * anyone else only a group of theirs. */
    if (geteuid() != 0 && (st->st_uid != geteuid() || !in_group(st->st_gid)))
        return fail(err, len, "results file '%s' belongs to uid %u gid %u: its new copy would belong to you (uid %u), "
                    "so appending would change its owner; run as its owner or give -o another file", g,
                    (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)geteuid());
    int rc = pfs_res_check_file(p, g, err, len);
    /* A caching client may show a file another client is replacing right
     * now: look again for a while before calling it not a results file. */
    const int caching = rc != 0 && client_caches(t->dir); /* one statfs, not one per look */
    for (int n = 0; rc != 0 && caching && stale_nap(n) < STALE_WAIT_S; n++)
        rc = pfs_res_check_file(p, g, err, len);
    return rc;
}

/* The directory must let us make the copy and rename it: tried for real
 * (root passes every permission check, not an immutable flag or a
 * read-only mount), and a file there must be lockable. */
static int check_dir_and_lock(const struct target *t, char *err, size_t len)
{
    struct stat st;
    if (stat(t->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fail(err, len, "the directory of results path '%s' does not exist or is not a directory; create it "
                    "or give -o elsewhere", t->given);
    if (check_fs_flags(t->dir, 1, t, err, len) != 0)
        return -1;
    if (access(t->dir, W_OK | X_OK) != 0)
        return fail(err, len, "cannot write results beside '%s': directory %s is not writable (%s)", t->given, t->dir,
                    strerror(errno));
    /* The very name the append will create; ours (this pid), so no other
     * writer touches it. Locked, it also tells whether this file system
     * takes locks on a regular file here: the lock file itself is made by
     * the append alone, so that a run refused after this check (exit 2)
     * leaves nothing behind. */
    unlink(t->tmp);
    int fd = open(t->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(err, len, "cannot create files beside '%s' in %s (%s); give -o elsewhere", t->given, t->dir,
                    strerror(errno));
    int cmd = F_OFD_SETLK;
    int r = pfs_res_lock_try(fd, &cmd, F_WRLCK, PFS_LOCK_WRITER, t, t->dir, err, len);
    close(fd);
    unlink(t->tmp);
    if (r != 0)
        return -1; /* refused (a fresh file of ours cannot be held by another) */
    return pfs_res_lock_check_file(t, err, len);
}

/* Under the writer lock (lfd, *cmd), journals beside the file: an
 * incomplete one of a dead writer removed; a complete one (an append that
 * died mid-commit) undone, with the reader lock held exclusively too,
 * waited for: no reader may read the file while it is written back (one
 * that has it open reads the old file through the journal meanwhile). */
static int recover_locked(const struct target *t, int lfd, int *cmd, int dfd, char *err, size_t len)
{
    int rc = pfs_res_lock_try(lfd, cmd, F_WRLCK, PFS_LOCK_READER, t, t->lock, err, len);
    if (rc == 1 && pfs_res_journal_any(t, 1))
        rc = pfs_res_lock_take(lfd, cmd, F_WRLCK, PFS_LOCK_READER, t, err, len);
    else if (rc == 1)
        rc = 0; /* none to undo: readers may stay */
    if (rc == 0)
        rc = pfs_res_journal_recover(t, dfd, err, len);
    pfs_res_lock_release(lfd, *cmd, PFS_LOCK_READER);
    return rc;
}

/* An existing file is checked under the reader lock, shared, so that no
 * append's in-place commit is seen half-done; where an append died
 * mid-commit (a journal beside the file), both locks are taken first and
 * the file restored. No lock file: no append ever ran here, and the check
 * makes none (a refused run leaves nothing behind). */
static int check_locked(const struct target *t, char *err, size_t len)
{
    struct stat st;
    int lfd = open(t->lock, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), cmd = F_OFD_SETLK, rc = 0;
    if (lfd >= 0 && pfs_res_journal_any(t, 0)) {
        int dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rc = dfd < 0 ? fail(err, len, "cannot open directory %s: %s", t->dir, strerror(errno))
                     : pfs_res_lock_take(lfd, &cmd, F_WRLCK, PFS_LOCK_WRITER, t, err, len);
        if (rc == 0)
            rc = recover_locked(t, lfd, &cmd, dfd, err, len);
        pfs_res_lock_release(lfd, cmd, PFS_LOCK_WRITER);
        if (dfd >= 0)
            close(dfd);
    }
    if (rc == 0 && lfd >= 0)
        rc = pfs_res_lock_take(lfd, &cmd, F_RDLCK, PFS_LOCK_READER, t, err, len);
    if (rc == 0)
        rc = stat(t->path, &st) != 0 ? fail(err, len, "results path '%s': %s", t->given, strerror(errno))
                                     : check_existing(t, &st, err, len);
    if (lfd >= 0) {
        pfs_res_lock_release(lfd, cmd, PFS_LOCK_BOTH); /* none held: a no-op */
        close(lfd);
    }
    return rc;
}

int pfs_results_check(const char *path, char *err, size_t len)
{
    pfs_res_quiet_hdf5();
    struct target t;
    if (resolve_target(path, &t, err, len) != 0)
        return -1;
    struct stat st;
    int exists = stat(t.path, &st) == 0;
    if (!exists && errno != ENOENT)
        return fail(err, len, "results path '%s': %s", path, strerror(errno));
    if (exists && check_locked(&t, err, len) != 0)
        return -1;
    return check_dir_and_lock(&t, err, len);
}

/* ---- the append ---- */

/* Whether the temporary copy named .BASE.tmp.<rest> is provably stale:
 * made on this host by a process that no longer exists. A copy of another
 * host is never judged: its pid means nothing here, and it may be in
 * flight on a client whose lock we cannot see. */
int pfs_res_copy_is_stale(const char *rest, const char *host)
{
    const char *dot = strrchr(rest, '.');
    if (!dot || (size_t)(dot - rest) != strlen(host) || strncmp(rest, host, (size_t)(dot - rest)) != 0)
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(dot + 1, &end, 10);
    if (end == dot + 1 || *end || errno || pid <= 0 || pid > INT_MAX)
        return 0;
    if (pid == (long)getpid())
        return 1; /* our own name, left by an earlier process with this pid: we hold no copy yet */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Under the lock. A live writer on this host holds the lock while its copy
 * exists, so a copy seen here is a dead writer's; the pid test is for
 * file systems whose lock does not cross clients after all. */
static void remove_stale_copies(int dfd, const struct target *t)
{
    char prefix[NAME_MAX + 16];
    int n = snprintf(prefix, sizeof(prefix), ".%s.tmp.", t->base);
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dh) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dh)))
        if (strncmp(e->d_name, prefix, (size_t)n) == 0 && pfs_res_copy_is_stale(e->d_name + n, t->host))
            unlinkat(dfd, e->d_name, 0);
    closedir(dh);
}

/* On a caching client, whether the directory, listed afresh, names a
 * different file than the one this client opened as the results file (fd,
 * *st; fd < 0: none): 1 when it does, 0 when it agrees or cannot tell. The
 * lock file, which is never replaced, calibrates: where the listing's
 * inode numbers are not the files' own (some FUSE file systems), no
 * judgement is made. A listing also refreshes a FUSE client's names. */
static int listing_disagrees(const struct target *t, int lfd, int fd, const struct stat *st)
{
    struct stat ls;
    if (fstat(lfd, &ls) != 0)
        return 0;
    const char *lock = strrchr(t->lock, '/') + 1;
    DIR *dh = opendir(t->dir);
    if (!dh)
        return 0;
    ino_t res = 0, lck = 0;
    struct dirent *e;
    while ((e = readdir(dh)))
        if (strcmp(e->d_name, t->base) == 0)
            res = e->d_ino;
        else if (strcmp(e->d_name, lock) == 0)
            lck = e->d_ino;
    closedir(dh);
    if (lck != ls.st_ino)
        return 0;
    return fd >= 0 ? res != st->st_ino : res != 0;
}

/* The writer lock's descriptor and fcntl command (lock.c). */
struct held {
    int fd, *cmd;
};

/* An existing file (fd, open for reading and writing; st as opened):
 * the run added through the overlay, then written into the file in place,
 * journaled (journal.c), with the reader lock held exclusively; where
 * readers hold it, a copy renamed over the file (copy.c), which they
 * never see change. As append_once returns. */
static int append_existing(const struct target *t, struct held lk, int fd, const struct stat *st, int dfd,
                           const struct pfs_run_data *d, char *name, size_t namelen, char *err, size_t len)
{
    struct pfs_ovl *o = pfs_res_ovl_new(fd, st->st_size);
    if (!o)
        return fail(err, len, "out of memory appending to '%s'", t->given);
    int rc = -1;
    struct stat now;
    if (pfs_res_build_overlay(t, o, d, name, namelen, err, len) != 0) {
        rc = 2; /* an existing file's bytes: perhaps a caching client's old view */
    } else if (lstat(t->path, &now) != 0 || !pfs_res_same_file(st, &now)) {
        /* A writer that did not see our lock (a lock that does not cross
         * clients after all) changed or replaced the file meanwhile: ours
         * would drop its run or write over it. Start again from its file. */
        rc = 1;
    } else if ((rc = pfs_res_lock_try(lk.fd, lk.cmd, F_WRLCK, PFS_LOCK_READER, t, t->lock, err, len)) == 0) {
        rc = pfs_res_journal_commit(t, dfd, o, err, len);
        pfs_res_lock_release(lk.fd, *lk.cmd, PFS_LOCK_READER);
    } else if (rc == 1) {
        rc = pfs_res_copy_over(t, o, st, err, len);
    }
    pfs_res_ovl_free(o);
    return rc;
}

/* One attempt, under the writer lock: 0 appended, -1 failed (err set), 1
 * the file was replaced or changed by someone else meanwhile (nothing
 * changed by us), 2 this client's view of it may be old. An existing file
 * takes the run in place, or by a copy while readers have it open
 * (append_existing); a new one is built in memory, written beside its
 * name and renamed there. */
static int append_once(const struct target *t, struct held lk, int dfd, int caching, const struct pfs_run_data *d,
                       char *name, size_t namelen, char *err, size_t len)
{
    struct stat st;
    memset(&st, 0, sizeof(st));
    char *img = NULL;
    size_t imgn = 0;
    int rc = -1;
    int fd = open(t->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno != ENOENT)
        return fail(err, len, "cannot open results file '%s': %s", t->given, strerror(errno));
    if (fd >= 0) {
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
            fail(err, len, "results file '%s' is no longer a regular file with one link; the run is not recorded",
                 t->given);
            if (S_ISREG(st.st_mode) && st.st_nlink == 0)
                rc = 2; /* a file replaced since this client looked it up: its view is old */
            goto out;
        }
    }
    if (caching && listing_disagrees(t, lk.fd, fd, &st)) {
        fail(err, len, "this client shows results file '%s' as another file than its directory lists (a view older "
             "than another client's append)", t->given);
        rc = 2;
        goto out;
    }
    if (fd >= 0) {
        /* A caching client may keep pages of the file from before another
         * client's append in place: dropped, so that HDF5 reads the file
         * as it is now (those pages are clean: this client wrote none). */
        if (caching)
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        rc = append_existing(t, lk, fd, &st, dfd, d, name, namelen, err, len);
        goto out;
    }
    if (pfs_res_build_image(t, d, name, namelen, &img, &imgn, err, len) == 0)
        rc = pfs_res_copy_new(t, img, imgn, err, len);
out:
    free(img);
    if (fd >= 0)
        close(fd);
    return rc;
}

int pfs_results_append(const char *path, const struct pfs_run_data *d, char *name, size_t namelen, char *err,
                       size_t errlen)
{
    pfs_res_quiet_hdf5();
    long rss0 = 0;
    pfs_res_test_peak(1, &rss0, NULL);
    struct target t;
    if (resolve_target(path, &t, err, errlen) != 0)
        return -1;
    struct stat st;
    int lfd = pfs_res_lock_open(&t, stat(t.path, &st) == 0 ? (st.st_mode & 0666) : 0644, err, errlen);
    if (lfd < 0)
        return -1;
    int cmd = F_OFD_SETLK, dfd = -1, rc = -1;
    if (pfs_res_lock_take(lfd, &cmd, F_WRLCK, PFS_LOCK_WRITER, &t, err, errlen) != 0) {
        close(lfd);
        return -1;
    }
    pfs_res_lock_say_holder(lfd, &t, d->run_id);
    dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        fail(err, errlen, "cannot open directory %s: %s", t.dir, strerror(errno));
        goto out;
    }
    if (pfs_res_journal_any(&t, 0) && recover_locked(&t, lfd, &cmd, dfd, err, errlen) != 0)
        goto out;
    remove_stale_copies(dfd, &t);
    int caching = client_caches(t.dir), naps = 0;
    for (int attempt = 0; attempt < 3 && rc != 0;) {
        rc = append_once(&t, (struct held){lfd, &cmd}, dfd, caching, d, name, namelen, err, errlen);
        if (rc == 2 && caching && stale_nap(naps++) < STALE_WAIT_S)
            continue; /* read it again once the client's caches have moved on */
        if (rc == 2) {
            rc = -1;
            if (caching)
                snprintf(err + strlen(err), errlen - strlen(err), " (the same for %.0f s on this client)", STALE_WAIT_S);
        }
        if (rc < 0)
            goto out;
        attempt++;
    }
    if (rc == 1) {
        rc = fail(err, errlen, "results file '%s' was replaced by another writer 3 times while this one held the lock "
                  "%s: the file system does not honour the lock across clients; the run is not recorded (give each "
                  "client its own -o file)", t.given, t.lock);
        goto out;
    }
    fsync(dfd); /* the rename is durable; some file systems cannot fsync a directory, which is no error */
out:
    if (dfd >= 0)
        close(dfd);
    /* No holder's line outlives its lock: a waiter that finds none knows
     * the holder did not say (an older pfsbench), not who held it last. */
    (void)!ftruncate(lfd, 0); /* where it fails, the next holder's line replaces it */
    pfs_res_lock_release(lfd, cmd, PFS_LOCK_BOTH);
    close(lfd);
    pfs_res_test_peak(0, &rss0, t.path);
    return rc;
}
