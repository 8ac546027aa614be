/* The append's commit, journaled: the overlay HDF5 left in memory
 * (overlay.c) written into the results file in place, with an undo
 * journal beside it, and the recovery of a journal an append left when it
 * died.
 *
 * Commit, under the write lock: (1) the journal .NAME.tmp.HOST.PID is
 * made (O_EXCL, through the directory), holding the file's size and
 * inode, and the current bytes of every range the commit overwrites below
 * that size or cuts off, then a checksum and an end mark; fsync'ed, then
 * the directory. (2) The overlay is written into the file, which is cut
 * to its new size, fsync'ed. (3) The journal is removed, the directory
 * fsync'ed. A complete journal (its checksum and end mark right) means
 * the file may be half-written: the next lock holder writes the old bytes
 * back and cuts the file to its old size, which gives the old file byte
 * for byte. An incomplete one means the file was never touched. A failed
 * write in (2) is undone at once from the journal. */
#define _GNU_SOURCE
#include "results_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = "PFSJRNL1", END[8] = "PFSJEND1";
#define BUF_SIZE (1u << 20)

struct jhead {
    char magic[8];
    uint64_t old_eof, new_eof, ino, nrec;
};

/* FNV-1a, 64-bit, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
#define FNV0 0xcbf29ce484222325ULL

int pfs_res_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        c += w, n -= (size_t)w;
    }
    return 0;
}

/* n bytes at `at` of fd, into p (wr 0) or from it (wr 1): 0, or -1 with
 * errno (EIO when the file ends first or a write makes no progress). */
static int move_all(int fd, char *p, size_t n, off_t at, int wr)
{
    while (n > 0) {
        ssize_t k = wr ? pwrite(fd, p, n, at) : pread(fd, p, n, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return -1;
        }
        p += k, n -= (size_t)k, at += k;
    }
    return 0;
}

static int pread_all(int fd, void *p, size_t n, off_t at)
{
    return move_all(fd, p, n, at, 0);
}

static int pwrite_all(int fd, const void *p, size_t n, off_t at)
{
    return move_all(fd, (char *)p, n, at, 1); /* wr 1: p is only read */
}

/* A test hook: die at the commit's step `at` (PFSBENCH_TEST_CRASH_IN_RESULTS
 * = journal: in the middle of the journal; 1 or journaled: the journal
 * durable, the file untouched; half: half the file's ranges written;
 * written: the file written, the journal still there), as a crash would. */
static void crash_at(const char *at)
{
    const char *v = getenv("PFSBENCH_TEST_CRASH_IN_RESULTS");
    if (v && (strcmp(v, at) == 0 || (strcmp(at, "journaled") == 0 && strcmp(v, "1") == 0)))
        abort();
}

/* The ranges the commit overwrites below the old size, or cuts off (from
 * the lowest size HDF5 cut the file to, file_valid, up: zeros or new
 * bytes there), into addr and len (up to cap of them); returns how many
 * there are (cap 0: only count them). */
static size_t undo_ranges(const struct pfs_ovl *o, uint64_t *addr, uint64_t *len, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n && o->e[i].addr < o->file_valid; i++, n++)
        if (n < cap) {
            uint64_t end = o->e[i].addr + o->e[i].len;
            addr[n] = o->e[i].addr;
            len[n] = (end < o->file_valid ? end : o->file_valid) - o->e[i].addr;
        }
    if (o->file_valid < o->old_eof) {
        if (n < cap)
            addr[n] = o->file_valid, len[n] = o->old_eof - o->file_valid;
        n++;
    }
    return n;
}

/* Streams the journal into jfd: the header, each range's current bytes
 * from the file, the checksum and the end mark. 0 or -1 (errno). */
static int write_journal(int jfd, const struct pfs_ovl *o, const struct stat *st, char *buf)
{
    size_t n = undo_ranges(o, NULL, NULL, 0);
    uint64_t *addr = malloc((n + 1) * sizeof(*addr)), *len = malloc((n + 1) * sizeof(*len));
    int rc = addr && len ? 0 : -1;
    if (rc == 0)
        undo_ranges(o, addr, len, n);
    struct jhead h;
    memcpy(h.magic, MAGIC, 8);
    h.old_eof = o->old_eof, h.new_eof = o->eof, h.ino = (uint64_t)st->st_ino, h.nrec = n;
    uint64_t sum = fnv(FNV0, &h, sizeof(h));
    if (rc == 0)
        rc = pfs_res_write_all(jfd, &h, sizeof(h));
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint64_t rec[2] = {addr[i], len[i]};
        sum = fnv(sum, rec, sizeof(rec));
        rc = pfs_res_write_all(jfd, rec, sizeof(rec));
        for (uint64_t at = 0; at < len[i] && rc == 0; at += BUF_SIZE) {
            size_t k = len[i] - at < BUF_SIZE ? (size_t)(len[i] - at) : BUF_SIZE;
            rc = pread_all(o->fd, buf, k, (off_t)(addr[i] + at));
            if (rc == 0)
                sum = fnv(sum, buf, k), rc = pfs_res_write_all(jfd, buf, k);
        }
        if (i == n / 2)
            crash_at("journal");
    }
    if (rc == 0)
        rc = pfs_res_write_all(jfd, &sum, sizeof(sum));
    if (rc == 0)
        rc = pfs_res_write_all(jfd, END, sizeof(END));
    free(addr), free(len);
    return rc;
}

/* Whether jfd holds a complete journal (*h its header): 1, 0 when it is
 * not one or not complete, -1 a read failed (errno). */
static int journal_complete(int jfd, struct jhead *h, char *buf)
{
    struct stat st;
    if (fstat(jfd, &st) != 0)
        return -1;
    uint64_t size = (uint64_t)st.st_size, at = sizeof(*h);
    if (size < sizeof(*h) + 16 || pread_all(jfd, h, sizeof(*h), 0) != 0)
        return size < sizeof(*h) + 16 ? 0 : -1;
    if (memcmp(h->magic, MAGIC, 8) != 0)
        return 0;
    uint64_t sum = fnv(FNV0, h, sizeof(*h));
    for (uint64_t i = 0; i < h->nrec; i++) {
        uint64_t rec[2];
        if (at + sizeof(rec) + 16 > size || pread_all(jfd, rec, sizeof(rec), (off_t)at) != 0)
            return 0;
        sum = fnv(sum, rec, sizeof(rec));
        at += sizeof(rec);
        if (rec[1] > size - at - 16 || rec[0] + rec[1] < rec[0] || rec[0] + rec[1] > h->old_eof)
            return 0;
        for (uint64_t done = 0; done < rec[1]; done += BUF_SIZE) {
            size_t k = rec[1] - done < BUF_SIZE ? (size_t)(rec[1] - done) : BUF_SIZE;
            if (pread_all(jfd, buf, k, (off_t)(at + done)) != 0)
                return -1;
            sum = fnv(sum, buf, k);
        }
        at += rec[1];
    }
    char tail[16];
    if (at + 16 != size || pread_all(jfd, tail, 16, (off_t)at) != 0)
        return 0;
    return memcmp(tail, &sum, 8) == 0 && memcmp(tail + 8, END, 8) == 0;
}

/* Writes a complete journal's old bytes back into fd and cuts it to its
 * old size, fsync'ed: the file as it was. 0 or -1 (errno). */
static int undo(int jfd, const struct jhead *h, int fd, char *buf)
{
    uint64_t at = sizeof(*h);
    for (uint64_t i = 0; i < h->nrec; i++) {
        uint64_t rec[2];
        if (pread_all(jfd, rec, sizeof(rec), (off_t)at) != 0)
            return -1;
        at += sizeof(rec);
        for (uint64_t done = 0; done < rec[1]; done += BUF_SIZE) {
            size_t k = rec[1] - done < BUF_SIZE ? (size_t)(rec[1] - done) : BUF_SIZE;
            if (pread_all(jfd, buf, k, (off_t)(at + done)) != 0 ||
                pwrite_all(fd, buf, k, (off_t)(rec[0] + done)) != 0)
                return -1;
        }
        at += rec[1];
    }
    return ftruncate(fd, (off_t)h->old_eof) != 0 || fsync(fd) != 0 ? -1 : 0;
}

/* The overlay into the file, cut to its new size, fsync'ed. Where HDF5
 * cut the file below its old size, it is cut there first: what HDF5 did
 * not write again above that reads as zeros. */
static int apply(const struct pfs_ovl *o)
{
    if (o->file_valid < o->old_eof && ftruncate(o->fd, (off_t)o->file_valid) != 0)
        return -1;
    for (size_t i = 0; i < o->n; i++) {
        if (pwrite_all(o->fd, o->e[i].p, o->e[i].len, (off_t)o->e[i].addr) != 0)
            return -1;
        if (i == o->n / 2)
            crash_at("half");
    }
    return ftruncate(o->fd, (off_t)o->eof) != 0 || fsync(o->fd) != 0 ? -1 : 0;
}

/* (2) failed: the journal's bytes written back at once. */
static int undo_now(const struct target *t, int dfd, const char *jname, const struct pfs_ovl *o, int e,
                    char *buf, char *err, size_t len)
{
    int jfd = openat(dfd, jname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct jhead h;
    if (jfd >= 0 && journal_complete(jfd, &h, buf) == 1 && undo(jfd, &h, o->fd, buf) == 0) {
        close(jfd);
        unlinkat(dfd, jname, 0);
        fsync(dfd);
        return fail(err, len, "writing the run into results file '%s' failed: %s; undone from its journal, the file "
                    "is as it was", t->given, strerror(e));
    }
    if (jfd >= 0)
        close(jfd);
    return fail(err, len, "writing the run into results file '%s' failed: %s, and so did undoing it (%s); its journal "
                "%s is kept: the next pfsbench to take the lock on it writes the old bytes back", t->given,
                strerror(e), strerror(errno), t->tmp);
}

int pfs_res_journal_commit(const struct target *t, int dfd, struct pfs_ovl *o, char *err, size_t len)
{
    const char *jname = strrchr(t->tmp, '/') + 1;
    struct stat st;
    char *buf = malloc(BUF_SIZE);
    if (!buf || fstat(o->fd, &st) != 0) {
        free(buf);
        return fail(err, len, "cannot commit the run to '%s': %s", t->given, strerror(errno));
    }
    int jfd = openat(dfd, jname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (jfd < 0) {
        free(buf);
        return fail(err, len, "cannot create %s: %s; '%s' is as it was", t->tmp, strerror(errno), t->given);
    }
    const char *what = NULL;
    int e = 0;
    if (write_journal(jfd, o, &st, buf) != 0)
        e = errno, what = "write";
    else if (fsync(jfd) != 0)
        e = errno, what = "fsync";
    if (close(jfd) != 0 && !e) /* NFS reports a full disk or quota at close */
        e = errno, what = "close";
    if (e) {
        unlinkat(dfd, jname, 0);
        free(buf);
        return fail(err, len, "%s of %s failed: %s; '%s' is as it was", what, t->tmp, strerror(e), t->given);
    }
    fsync(dfd); /* the journal's name is durable before the file is touched */
    crash_at("journaled");
    int rc = 0;
    if (apply(o) != 0)
        rc = undo_now(t, dfd, jname, o, errno, buf, err, len);
    else {
        crash_at("written");
        unlinkat(dfd, jname, 0);
        fsync(dfd);
    }
    free(buf);
    return rc;
}

/* One entry .BASE.tmp.<rest> beside the file, under the write lock: a
 * complete journal undone and removed; an incomplete one removed when it
 * is this host's and its writer is gone. Not a journal: left (append.c
 * judges copies). */
static int recover_one(const struct target *t, int dfd, const char *name, const char *rest, char *buf, char *err,
                       size_t len)
{
    int jfd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (jfd < 0)
        return 0;
    char m[8];
    struct jhead h;
    int r = pread(jfd, m, 8, 0) == 8 && memcmp(m, MAGIC, 8) == 0 ? journal_complete(jfd, &h, buf) : 2;
    if (r == 0 && pfs_res_copy_is_stale(rest, t->host))
        unlinkat(dfd, name, 0); /* died while writing it: the file was never touched */
    if (r != 1) {
        close(jfd);
        return r < 0 ? fail(err, len, "cannot read the journal %s/%s of an interrupted append to '%s': %s", t->dir,
                            name, t->given, strerror(errno)) : 0;
    }
    int fd = open(t->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = 0;
    if (fd < 0 || fstat(fd, &st) != 0)
        rc = fail(err, len, "an append to '%s' was interrupted, and its journal %s/%s cannot be undone: the file "
                  "cannot be opened (%s)", t->given, t->dir, name, strerror(errno));
    else if ((uint64_t)st.st_ino != h.ino)
        rc = fail(err, len, "the journal %s/%s of an interrupted append belongs to another file than '%s' is now "
                  "(replaced since); if it was replaced on purpose, remove the journal", t->dir, name, t->given);
    else if (undo(jfd, &h, fd, buf) != 0)
        rc = fail(err, len, "an append to '%s' was interrupted, and undoing it from its journal %s/%s failed: %s; "
                  "the journal is kept for the next try", t->given, t->dir, name, strerror(errno));
    if (fd >= 0)
        close(fd);
    close(jfd);
    if (rc == 0) {
        unlinkat(dfd, name, 0);
        fsync(dfd);
    }
    return rc;
}

/* Calls fn on each .BASE.tmp.* entry beside t; stops at the first nonzero. */
static int each_tmp(const struct target *t, int dfd, int (*fn)(const struct target *, int, const char *,
                                                                  const char *, char *, char *, size_t),
                    char *buf, char *err, size_t len)
{
    char prefix[NAME_MAX + 16];
    size_t n = (size_t)snprintf(prefix, sizeof(prefix), ".%s.tmp.", t->base);
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dh) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(dh)))
        if (strncmp(e->d_name, prefix, n) == 0)
            rc = fn(t, dfd, e->d_name, e->d_name + n, buf, err, len);
    closedir(dh);
    return rc;
}

int pfs_res_journal_recover(const struct target *t, int dfd, char *err, size_t len)
{
    char *buf = malloc(BUF_SIZE);
    if (!buf)
        return fail(err, len, "out of memory");
    int rc = each_tmp(t, dfd, recover_one, buf, err, len);
    free(buf);
    return rc;
}

/* 1 when the entry is a journal (buf given: a complete one), else 0. */
static int is_journal(const struct target *t, int dfd, const char *name, const char *rest, char *buf, char *err,
                      size_t len)
{
    (void)t, (void)rest, (void)err, (void)len;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char m[8];
    struct jhead h;
    int r = fd >= 0 && pread(fd, m, 8, 0) == 8 && memcmp(m, MAGIC, 8) == 0;
    if (r && buf)
        r = journal_complete(fd, &h, buf) == 1;
    if (fd >= 0)
        close(fd);
    return r;
}

int pfs_res_journal_any(const struct target *t, int complete)
{
    int dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *buf = complete ? malloc(BUF_SIZE) : NULL;
    if (dfd < 0 || (complete && !buf)) {
        if (dfd >= 0)
            close(dfd);
        return complete; /* cannot tell: as if there were one (the caller then waits rather than skips) */
    }
    char err[8];
    int r = each_tmp(t, dfd, is_journal, buf, err, sizeof(err));
    free(buf);
    close(dfd);
    return r;
}

/* kB of /proc/self/status's line key (VmRSS:, VmHWM:), or -1. */
static long status_kb(const char *key)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (fp && fgets(line, sizeof(line), fp))
        if (strncmp(line, key, strlen(key)) == 0)
            v = strtol(line + strlen(key), NULL, 10);
    if (fp)
        fclose(fp);
    return v;
}

/* A test hook (PFSBENCH_TEST_APPEND_PEAK set): the memory an append takes
 * above what the process held before it, on stderr. start: the peak is
 * reset to the current size (clear_refs 5) and that size kept in *rss0. */
void pfs_res_test_peak(int start, long *rss0, const char *path)
{
    if (!getenv("PFSBENCH_TEST_APPEND_PEAK"))
        return;
    if (start) {
        int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            (void)!write(fd, "5", 1);
            close(fd);
        }
        *rss0 = status_kb("VmRSS:");
        return;
    }
    struct stat st;
    long hwm = status_kb("VmHWM:");
    fprintf(stderr, "pfsbench: test: append peak %ld kB above %ld kB, file %lld bytes\n", hwm - *rss0, *rss0,
            stat(path, &st) == 0 ? (long long)st.st_size : -1LL);
}
