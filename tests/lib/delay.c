/* A test shim (LD_PRELOAD) that gives a call known, noisy timings: each
 * call sleeps a duration from a list before doing its work, so a phase
 * that makes the call once per stream (a write phase with -e, whose fsync
 * is inside the timed region) takes a time the test chose, and a phase of
 * delayed transfers runs at a rate the test chose.
 *   PFS_DELAY_CALL   fsync | fdatasync | pwrite | pread (default fsync)
 *   PFS_DELAY_SECS   comma list of seconds, taken in turn call by call and
 *                    then again from its start ("0.1": steady; "0.08,0.12":
 *                    alternating); unset: the shim does nothing
 *   PFS_DELAY_HEAD   comma list of seconds for the first calls, before
 *                    PFS_DELAY_SECS starts (warm-up repetitions that differ)
 *   PFS_DELAY_LOG    a path prefix: each delayed call, once done, appends a
 *                    line "<realtime s> <bytes it moved>" to PREFIX.<rank>,
 *                    the truth a test holds pfsbench's time series against
 * Each MPI rank counts its own calls; processes that are not ranks (no
 * OMPI_COMM_WORLD_RANK: mpirun itself) are left alone. Only for tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int calls;
static int log_fd = -1; /* PFS_DELAY_LOG's file, opened at the first delayed call */

/* The idx-th number of a comma list, and how many it holds. */
static int list_at(const char *list, int idx, double *out)
{
    int n = 0;
    for (const char *p = list; p && *p; n++) {
        if (n == idx)
            *out = atof(p);
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return n;
}

/* Whether this process delays calls of this name. */
static int delayed(const char *name)
{
    const char *secs = getenv("PFS_DELAY_SECS"), *call = getenv("PFS_DELAY_CALL");
    return secs && *secs && strcmp(call ? call : "fsync", name) == 0 && getenv("OMPI_COMM_WORLD_RANK");
}

/* One line per delayed call, written when the call is done: O_APPEND
 * writes of a line each, so threads never interleave inside one. */
static void log_done(const char *name, long long moved)
{
    const char *prefix = getenv("PFS_DELAY_LOG");
    if (!prefix || !*prefix || !delayed(name))
        return;
    const int saved = errno; /* the call's own, for its caller */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (fd < 0) {
        char path[4096];
        snprintf(path, sizeof(path), "%s.%s", prefix, getenv("OMPI_COMM_WORLD_RANK"));
        int mine = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        int none = -1;
        if (mine < 0) {
            errno = saved;
            return;
        }
        if (__atomic_compare_exchange_n(&log_fd, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            fd = mine;
        } else {
            close(mine);
            fd = none; /* another thread's, opened first */
        }
    }
    char line[64];
    int n = snprintf(line, sizeof(line), "%lld.%09ld %lld\n", (long long)now.tv_sec, now.tv_nsec, moved);
    if (write(fd, line, (size_t)n) != n) {
        /* a short log: the test that reads it fails, saying so */
    }
    errno = saved;
}

static void maybe_delay(const char *name)
{
    const char *secs = getenv("PFS_DELAY_SECS"), *head = getenv("PFS_DELAY_HEAD");
    if (!delayed(name))
        return;
    int k = __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
    double s = 0, dummy;
    int nhead = head ? list_at(head, -1, &dummy) : 0;
    if (k < nhead)
        list_at(head, k, &s);
    else
        list_at(secs, (k - nhead) % list_at(secs, -1, &dummy), &s);
    if (s <= 0)
        return;
    struct timespec left = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    maybe_delay("fsync");
    int rc = real(fd);
    log_done("fsync", 0);
    return rc;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
    maybe_delay("fdatasync");
    int rc = real(fd);
    log_done("fdatasync", 0);
    return rc;
}

/* The data calls: every transfer then takes at least the delay, and the
 * log says when each one ended and what it moved. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pwrite");
    maybe_delay("pwrite");
    ssize_t got = real(fd, buf, n, off);
    log_done("pwrite", got > 0 ? (long long)got : 0);
    return got;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread");
    maybe_delay("pread");
    ssize_t got = real(fd, buf, n, off);
    log_done("pread", got > 0 ? (long long)got : 0);
    return got;
}
