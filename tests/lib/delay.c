/* A test shim (LD_PRELOAD) that gives a call known, noisy timings: each
 * call sleeps a duration from a list before doing its work, so a phase
 * that makes the call once per stream (a write phase with -e, whose fsync
 * is inside the timed region) takes a time the test chose.
 *   PFS_DELAY_CALL   fsync | fdatasync (default fsync)
 *   PFS_DELAY_SECS   comma list of seconds, taken in turn call by call and
 *                    then again from its start ("0.1": steady; "0.08,0.12":
 *                    alternating); unset: the shim does nothing
 *   PFS_DELAY_HEAD   comma list of seconds for the first calls, before
 *                    PFS_DELAY_SECS starts (warm-up repetitions that differ)
 * Each MPI rank counts its own calls; processes that are not ranks (no
 * OMPI_COMM_WORLD_RANK: mpirun itself) are left alone. Only for tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int calls;

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

static void maybe_delay(const char *name)
{
    const char *secs = getenv("PFS_DELAY_SECS"), *head = getenv("PFS_DELAY_HEAD");
    const char *call = getenv("PFS_DELAY_CALL");
    if (!secs || !*secs || strcmp(call ? call : "fsync", name) != 0 || !getenv("OMPI_COMM_WORLD_RANK"))
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
    return real(fd);
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
    maybe_delay("fdatasync");
    return real(fd);
}
