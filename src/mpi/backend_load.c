/* A backend in a module of its own (a MODULE line of src/backends/backends.def,
 * e.g. hdf5): libpfs_<name>.so, loaded on every rank when --api names it,
 * so that the ranks of any other run never map its library. Where from:
 * beside the executable (the build tree), else the installed module
 * directory, as record.c finds the results writer. */
#define _GNU_SOURCE
#include "driver.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PFS_TAG_LOAD 80

const struct pfs_backend *drv_backend_module(const char *name, char *err, size_t len)
{
    char exe[PATH_MAX] = "", here[PATH_MAX + 64], inst[PATH_MAX + 64], sym[96];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(here, sizeof(here), "%s/libpfs_%s.so", exe, name);
    snprintf(inst, sizeof(inst), "%s/libpfs_%s.so", PFS_MODULE_DIR, name);
    snprintf(sym, sizeof(sym), "pfs_backend_%s", name);
    const char *tries[] = {here, inst};
    void *h = NULL;
    const char *why = NULL;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !h; i++)
        if (access(tries[i], R_OK) == 0 && !(h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL)))
            why = dlerror();
    const struct pfs_backend *be = h ? dlsym(h, sym) : NULL;
    if (h && !be)
        why = dlerror();
    if (!be) {
        snprintf(err, len, "--api %s: cannot load its module (%.300s or %.300s)%s%.300s", name, here, inst,
                 why ? ": " : ", neither is there", why ? why : "");
        return NULL;
    }
    char verr[256];
    if (pfs_backend_valid(be, verr, sizeof(verr)) != 0) {
        snprintf(err, len, "--api %s: the table in its module is not usable: %s", name, verr);
        return NULL;
    }
    return be; /* never unloaded: the run's calls and its atexit work may need it to the end */
}

/* Collective. Every rank loads the module of the chosen line; the verdict
 * is the same everywhere, and rank 0's err says why (the first failing
 * rank's own words). 0, or -1. */
int drv_backend_load(struct ctx *c, char *err, size_t len)
{
    const char *name = pfs_backend_name(c->cfg.api);
    char mine[1200] = "";
    c->be = drv_backend_module(name, mine, sizeof(mine));
    int who = c->be ? c->nranks : c->rank, first = 0;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, c->comm);
    if (first == c->nranks)
        return 0;
    c->be = NULL;
    if (first != 0 && c->rank == first)
        MPI_Send(mine, (int)sizeof(mine), MPI_CHAR, 0, PFS_TAG_LOAD, c->comm);
    else if (first != 0 && c->rank == 0)
        MPI_Recv(mine, (int)sizeof(mine), MPI_CHAR, first, PFS_TAG_LOAD, c->comm, MPI_STATUS_IGNORE);
    mine[sizeof(mine) - 1] = '\0';
    if (first != 0)
        snprintf(err, len, "rank %d: %s", first, mine);
    else
        snprintf(err, len, "%s", mine);
    return -1;
}
