/* A test shim (LD_PRELOAD) that takes the page-cache probe's kernel
 * interfaces away, as an older or locked-down kernel would:
 *   PFS_NOCACHE   cachestat: cachestat(2) fails with ENOSYS (a kernel
 *                 before 6.5), so the probe falls back to mincore(2);
 *                 all: mincore(2) fails with ENOSYS too, so the probe can
 *                 measure nothing; unset: the shim does nothing.
 * Only for tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int taken(const char *what)
{
    const char *m = getenv("PFS_NOCACHE");
    return m && (!strcmp(m, "all") || !strcmp(m, what));
}

long syscall(long n, ...)
{
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (n == 451 && taken("cachestat")) {
        errno = ENOSYS;
        return -1;
    }
    long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int mincore(void *addr, size_t len, unsigned char *vec)
{
    if (taken("mincore")) {
        errno = ENOSYS;
        return -1;
    }
    int (*real)(void *, size_t, unsigned char *) = (int (*)(void *, size_t, unsigned char *))dlsym(RTLD_NEXT, "mincore");
    return real(addr, len, vec);
}
