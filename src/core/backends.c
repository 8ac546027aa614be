/* The registry of backends (backends.def): --api, the report, the JSON and
 * the results file all name a backend through it. A backend of a layer
 * above the core is a weak reference here, so the core links without that
 * layer; a program that has the layer (pfsbench links all of the MPI
 * layer's objects) resolves it. */
#include "pfs/backend.h"

#include <stdio.h>
#include <string.h>

#define CORE
#define LAYER __attribute__((weak))
#define PFS_BACKEND(name, where) extern const struct pfs_backend pfs_backend_##name where;
#include "backends.def"
#undef PFS_BACKEND

static const struct {
    const char *name;
    const struct pfs_backend *be;
} registry[] = {
#define PFS_BACKEND(name, where) {#name, &pfs_backend_##name},
#include "backends.def"
#undef PFS_BACKEND
};
#define NREG (int)(sizeof(registry) / sizeof(registry[0]))

int pfs_backend_count(void) { return NREG; }

const char *pfs_backend_name(int i) { return i >= 0 && i < NREG ? registry[i].name : "?"; }

const struct pfs_backend *pfs_backend_at(int i) { return i >= 0 && i < NREG ? registry[i].be : NULL; }

int pfs_backend_index(const char *name)
{
    for (int i = 0; i < NREG; i++)
        if (strcmp(registry[i].name, name) == 0)
            return i;
    return -1;
}

const struct pfs_backend *pfs_backend_find(const char *name) { return pfs_backend_at(pfs_backend_index(name)); }

size_t pfs_backend_with(unsigned caps, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < NREG; i++) {
        const struct pfs_backend *be = registry[i].be;
        if (!be || (be->caps & caps) != caps)
            continue;
        int w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s", n ? ", " : "", registry[i].name);
        if (w > 0)
            n += (size_t)w;
    }
    return n;
}
