/* A test shim (LD_PRELOAD) that makes a system call block on purpose, the
 * way a storage server that stopped answering does: the call sleeps in the
 * kernel for PFS_STALL_SECS before doing its work, through signals.
 *   PFS_STALL_CALL   the call, or several comma-separated: fsync | fdatasync
 *                    | sync | pwrite | pread | flock | create (an openat with
 *                    O_CREAT, or an open) | unlink (unlinkat of a file, or an
 *                    unlink) (default fsync)
 *   PFS_STALL_SECS   seconds to block (unset: the shim does nothing)
 *   PFS_STALL_RANK   only this MPI rank (OMPI_COMM_WORLD_RANK); unset: all
 *   PFS_STALL_NAME   only calls whose name argument ends with this (create,
 *                    unlink: "f.0.50" stalls the create of that small file)
 *   PFS_STALL_COUNT  only the first N such calls (default 1)
 *   PFS_STALL_PATH   only calls on a file whose path holds this string
 *                    (fsync, fdatasync, pwrite, pread, flock: the file the
 *                    descriptor names; other calls never match): a run's
 *                    data directory, not the results file's append
 *   PFS_STALL_MARK   a file created when the stall begins (for scripts to
 *                    act "between phases" at a known moment)
 *   PFS_STALL_STOP   1: the process stops itself (SIGSTOP) instead, as a
 *                    frozen node or a debugger would stop it: no thread of it
 *                    runs until the script sends SIGCONT (PFS_STALL_SECS must
 *                    still be set, and is ignored)
 *   PFS_STALL_UNTIL  a file whose appearance ends the stall early (checked
 *                    every 10 ms; PFS_STALL_SECS stays the longest): a
 *                    script holds the call for as long as its checks need
 *                    and then lets it go, instead of guessing a duration
 * In MARK and UNTIL a "%s" becomes the call's name, so that one run can
 * stall at two calls (flock, then fsync) and a script release each alone.
 * Only for tests: a mock whose one job is to make a call fail to return. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <unistd.h>

static int calls;

/* 1 when name is one of the comma-separated calls in list. */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list;; p++) {
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
        if (!(p = strchr(p, ',')))
            return 0;
    }
}

/* 1 when path ends with the name PFS_STALL_NAME gives (or none is given). */
static int named(const char *path)
{
    const char *want = getenv("PFS_STALL_NAME");
    if (!want || !*want)
        return 1;
    if (!path)
        return 0;
    size_t a = strlen(path), b = strlen(want);
    return a >= b && strcmp(path + a - b, want) == 0 && (a == b || path[a - b - 1] == '/');
}

/* The file env names, with "%s" replaced by the call's name. */
static void file_for(const char *env, const char *call, char *out, size_t len)
{
    const char *pat = getenv(env), *pct = pat ? strstr(pat, "%s") : NULL;
    if (!pat)
        out[0] = '\0';
    else if (!pct)
        snprintf(out, len, "%s", pat);
    else
        snprintf(out, len, "%.*s%s%s", (int)(pct - pat), pat, call, pct + 2);
}

/* The file fd names holds `want` (PFS_STALL_PATH). */
static int path_holds(int fd, const char *want)
{
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = fd >= 0 ? readlink(link, path, sizeof(path) - 1) : -1;
    if (n < 0)
        return 0;
    path[n] = '\0';
    return strstr(path, want) != NULL;
}

static void maybe_stall(const char *name, const char *path, int fd)
{
    const char *secs = getenv("PFS_STALL_SECS"), *call = getenv("PFS_STALL_CALL");
    const char *rank = getenv("PFS_STALL_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
    const char *count = getenv("PFS_STALL_COUNT");
    if (!secs || !listed(call ? call : "fsync", name) || !me || !named(path))
        return;
    if (rank && strcmp(rank, me) != 0)
        return;
    const char *want = getenv("PFS_STALL_PATH");
    if (want && *want && !path_holds(fd, want))
        return;
    if (__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) >= (count ? atoi(count) : 1))
        return;
    char mark[4096], until[4096];
    file_for("PFS_STALL_MARK", name, mark, sizeof(mark));
    file_for("PFS_STALL_UNTIL", name, until, sizeof(until));
    if (mark[0]) {
        int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
    const char *stop = getenv("PFS_STALL_STOP");
    if (stop && strcmp(stop, "1") == 0) {
        raise(SIGSTOP);
        return;
    }
    double s = atof(secs);
    if (until[0]) {
        struct timespec t0, now, tick = {0, 10000000};
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            if (access(until, F_OK) == 0)
                return;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 >= s)
                return;
            nanosleep(&tick, NULL); /* a signal only makes the next check sooner */
        }
    }
    struct timespec left = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    maybe_stall("fsync", NULL, fd);
    return real(fd);
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
    maybe_stall("fdatasync", NULL, fd);
    return real(fd);
}

void sync(void)
{
    static void (*real)(void);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "sync");
    maybe_stall("sync", NULL, -1);
    real();
}

/* The data calls, so a test can give every transfer a known time
 * (PFS_STALL_CALL=pwrite, PFS_STALL_COUNT large): the latency histograms
 * must then show that time. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pwrite");
    maybe_stall("pwrite", NULL, fd);
    return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread");
    maybe_stall("pread", NULL, fd);
    return real(fd, buf, n, off);
}

/* fio (built with 64-bit offsets) calls pread64: the same call to the shim. */
ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    static ssize_t (*real)(int, void *, size_t, off64_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread64");
    maybe_stall("pread", NULL, fd);
    return real(fd, buf, n, off);
}

/* The run's lock (flock), a create (openat with O_CREAT: a data file, a
 * small file, a lock file) and a removal: a script acts between the open
 * and the flock, or while a create or an unlink is under way. */
int flock(int fd, int op)
{
    static int (*real)(int, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "flock");
    if (!(op & LOCK_UN))
        maybe_stall("flock", NULL, fd);
    return real(fd, op);
}

/* open's mode argument is there only with O_CREAT or O_TMPFILE (glibc's rule). */
#define NEEDS_MODE(f) (((f) & O_CREAT) || ((f) & O_TMPFILE) == O_TMPFILE)
typedef int (*openat_fn)(int, const char *, int, ...);

static int open_at(openat_fn *real, const char *sym, int dirfd, const char *path, int flags, mode_t mode)
{
    if (!*real)
        *(void **)real = dlsym(RTLD_NEXT, sym);
    if (flags & O_CREAT)
        maybe_stall("create", path, -1);
    return (*real)(dirfd, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    static openat_fn real;
    va_list ap;
    va_start(ap, flags);
    const mode_t mode = NEEDS_MODE(flags) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    return open_at(&real, "openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    static openat_fn real;
    va_list ap;
    va_start(ap, flags);
    const mode_t mode = NEEDS_MODE(flags) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    return open_at(&real, "openat64", dirfd, path, flags, mode);
}

/* The same by path (open, unlink): what a build that rebuilt paths called. */
int open(const char *path, int flags, ...)
{
    static openat_fn real;
    va_list ap;
    va_start(ap, flags);
    const mode_t mode = NEEDS_MODE(flags) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    return open_at(&real, "openat", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    static openat_fn real;
    va_list ap;
    va_start(ap, flags);
    const mode_t mode = NEEDS_MODE(flags) ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    return open_at(&real, "openat64", AT_FDCWD, path, flags, mode);
}

int unlink(const char *path)
{
    static int (*real)(const char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "unlink");
    maybe_stall("unlink", path, -1);
    return real(path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    static int (*real)(int, const char *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "unlinkat");
    if (!(flags & AT_REMOVEDIR))
        maybe_stall("unlink", path, -1);
    return real(dirfd, path, flags);
}
