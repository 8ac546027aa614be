/* The append's copy path: the file's new content written beside it
 * (.NAME.tmp.HOST.PID), fsync'ed and renamed over it, under the writer
 * lock. A new file always takes it (its bytes built in memory by
 * image.c); an existing one when readers hold it open (the reader lock,
 * lock.c): they keep reading the old inode, untouched, and see the new
 * file when they open it again. An existing file's content is streamed
 * from the overlay HDF5 left (the file under the run's bytes): memory is a
 * buffer, not the file. A crash leaves the old file or the new one, never
 * a half-written one; a failed write leaves the old one byte for byte. */
#define _GNU_SOURCE
#include "results_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_BUF (1u << 20)

/* n bytes into fd: from img, or (img NULL) streamed from the overlay o.
 * 0, or -1 with *what the failing step and errno set. */
static int write_content(int fd, const char *img, const struct pfs_ovl *o, size_t n, const char **what)
{
    if (img) {
        *what = "write";
        return pfs_res_write_all(fd, img, n);
    }
    char *buf = malloc(COPY_BUF);
    int rc = buf ? 0 : -1;
    *what = "write";
    for (size_t at = 0; rc == 0 && at < n; at += COPY_BUF) {
        size_t k = n - at < COPY_BUF ? n - at : COPY_BUF;
        if (pfs_res_ovl_read(o, at, k, buf) != 0) {
            *what = "read of the results file for";
            rc = -1;
        } else {
            rc = pfs_res_write_all(fd, buf, k);
        }
    }
    free(buf);
    return rc;
}

/* Writes the copy (as write_content) with the old file's owner and mode
 * (old; NULL: a new file), fsync'ed. On any failure the copy is removed
 * and err names the errno of the failing call. */
static int write_copy(const struct target *t, const char *img, const struct pfs_ovl *o, size_t n,
                      const struct stat *old, char *err, size_t len)
{
    int fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(err, len, "cannot create %s: %s; '%s' is as it was", t->tmp, strerror(errno), t->given);
    const char *what = NULL;
    int e = 0;
    if (write_content(fd, img, o, n, &what) != 0)
        e = errno;
    else if (old && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
             fchown(fd, old->st_uid, old->st_gid) != 0)
        e = errno, what = "chown";
    else if (old && fchmod(fd, old->st_mode & 07777) != 0)
        e = errno, what = "chmod";
    /* A test hook: die with the copy written, as a crash or kill -9 would. */
    else if (getenv("PFSBENCH_TEST_CRASH_IN_RESULTS"))
        abort();
    else if (fsync(fd) != 0)
        e = errno, what = "fsync";
    if (close(fd) != 0 && !e) /* NFS reports a full disk or quota at close */
        e = errno, what = "close";
    if (e) {
        unlink(t->tmp);
        return fail(err, len, "%s of %s failed: %s; '%s' is as it was", what, t->tmp, strerror(e), t->given);
    }
    return 0;
}

int pfs_res_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The copy written: renamed over the file, unless a writer that did not
 * see our lock (a lock that does not cross clients after all) made or
 * changed the file meanwhile (was: the file as this append found it; NULL:
 * none), which ours would drop: then 1, the copy removed, to start again
 * from its file. 0, 1, or -1 with err. */
static int rename_copy(const struct target *t, const struct stat *was, char *err, size_t len)
{
    struct stat now;
    int exists = lstat(t->path, &now) == 0;
    if (exists != (was != NULL) || (exists && !pfs_res_same_file(was, &now))) {
        unlink(t->tmp);
        return 1;
    }
    if (rename(t->tmp, t->path) != 0) {
        int e = errno;
        unlink(t->tmp);
        return fail(err, len, "rename %s to %s: %s; '%s' is as it was", t->tmp, t->path, strerror(e), t->given);
    }
    return 0;
}

int pfs_res_copy_new(const struct target *t, const char *img, size_t n, char *err, size_t len)
{
    return write_copy(t, img, NULL, n, NULL, err, len) != 0 ? -1 : rename_copy(t, NULL, err, len);
}

int pfs_res_copy_over(const struct target *t, const struct pfs_ovl *o, const struct stat *st, char *err, size_t len)
{
    if (write_copy(t, NULL, o, (size_t)o->eof, st, err, len) != 0)
        return -1;
    int rc = rename_copy(t, st, err, len);
    if (rc == 0) {
        fprintf(stderr, "pfsbench: copied '%s' (%llu bytes) to add the run, because readers have it open: they "
                "keep reading the file as it was until they open it again\n", t->given, (unsigned long long)o->eof);
        fflush(stderr);
    }
    return rc;
}
