/* The results writer, a module loaded on rank 0 only on first use (the
 * other ranks never map HDF5): its check and its append. */
#define _GNU_SOURCE
#include "driver.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Local, rank 0. The results writer lives in a module loaded on first use,
 * so that the other ranks never map HDF5: libpfs_results.so beside the
 * executable (the build tree), else PFS_RESULTS_MODULE (the installed one).
 * 0 or -1 with err. */
static int results_load(struct ctx *c, char *err, size_t len)
{
    struct record *r = &c->rec;
    if (r->check && r->append)
        return 0;
    char exe[PATH_MAX] = "", here[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(here, sizeof(here), "%s/libpfs_results.so", exe);
    const char *tries[] = {here, PFS_RESULTS_MODULE};
    void *h = NULL;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !h; i++)
        if (access(tries[i], R_OK) == 0)
            h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
    if (h) {
        *(void **)&r->check = dlsym(h, "pfs_results_check");
        *(void **)&r->append = dlsym(h, "pfs_results_append");
    }
    if (!r->check || !r->append) {
        const char *why = dlerror();
        snprintf(err, len, "cannot load the results writer (%.200s or %.200s)%s%.200s; "
                 "use --no-results to run without it", here, PFS_RESULTS_MODULE, why ? ": " : "", why ? why : "");
        return -1;
    }
    return 0;
}

int drv_results_check(struct ctx *c, const char *path, char *err, size_t len)
{
    return results_load(c, err, len) ? -1 : c->rec.check(path, err, len);
}

int drv_results_append(struct ctx *c, const struct pfs_run_data *d, char *name, size_t nlen, char *err,
                       size_t len)
{
    return results_load(c, err, len) ? -1 : c->rec.append(c->cfg.results, d, name, nlen, err, len);
}
