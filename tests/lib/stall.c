/* A test shim (LD_PRELOAD) that makes a system call block on purpose, the
 * way a storage server that stopped answering does: the call sleeps in the
 * kernel for PFS_STALL_SECS before doing its work, through signals.
 *   PFS_STALL_CALL   fsync | fdatasync | sync | pwrite | pread (default fsync)
 *   PFS_STALL_SECS   seconds to block (unset: the shim does nothing)
 *   PFS_STALL_RANK   only this MPI rank (OMPI_COMM_WORLD_RANK); unset: all
 *   PFS_STALL_COUNT  only the first N such calls (default 1)
 *   PFS_STALL_MARK   a file created when the stall begins (for scripts to
 *                    act "between phases" at a known moment)
 *   PFS_STALL_UNTIL  a file whose appearance ends the stall early (checked
 *                    every 10 ms; PFS_STALL_SECS stays the longest): a
 *                    script holds the call for as long as its checks need
 *                    and then lets it go, instead of guessing a duration
 * Only for tests: a mock whose one job is to make a call fail to return. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int calls;

static void maybe_stall(const char *name)
{
    const char *secs = getenv("PFS_STALL_SECS"), *call = getenv("PFS_STALL_CALL");
    const char *rank = getenv("PFS_STALL_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
    const char *count = getenv("PFS_STALL_COUNT"), *mark = getenv("PFS_STALL_MARK");
    if (!secs || strcmp(call ? call : "fsync", name) != 0 || !me)
        return;
    if (rank && strcmp(rank, me) != 0)
        return;
    if (__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) >= (count ? atoi(count) : 1))
        return;
    if (mark) {
        int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
    double s = atof(secs);
    const char *until = getenv("PFS_STALL_UNTIL");
    if (until && *until) {
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
    maybe_stall("fsync");
    return real(fd);
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
    maybe_stall("fdatasync");
    return real(fd);
}

void sync(void)
{
    static void (*real)(void);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "sync");
    maybe_stall("sync");
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
    maybe_stall("pwrite");
    return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread");
    maybe_stall("pread");
    return real(fd, buf, n, off);
}
