/* The registry of backends (backends.def): --api, the report, the JSON and
 * the results file all name a backend through it. A backend of a layer
 * above the core is a weak reference here, so the core links without that
 * layer; a program that has the layer (pfsbench links all of the MPI
 * layer's objects) resolves it. A backend in a module of its own (hdf5:
 * libpfs_hdf5.so, so that only a run that uses it maps HDF5) has no pointer
 * here, only what the core must know of it before it is loaded
 * (pfs_about_<name>: its help and options); pfs_backend_is_module says so,
 * and the run driver loads it. */
#include "pfs/backend.h"

#include <stdio.h>
#include <string.h>

/* A MODULE line has no symbol here: its table is in a module the run
 * driver loads (src/mpi/backend_load.c), so its pointer stays NULL. */
#define DECL_CORE(name) extern const struct pfs_backend pfs_backend_##name;
#define DECL_LAYER(name) extern const struct pfs_backend pfs_backend_##name __attribute__((weak));
#define DECL_MODULE(name) extern const struct pfs_backend_about pfs_about_##name;
#define PFS_BACKEND(name, where) DECL_##where(name)
#include "backends.def"
#undef PFS_BACKEND

#define PTR_CORE(name) &pfs_backend_##name, NULL
#define PTR_LAYER(name) &pfs_backend_##name, NULL
#define PTR_MODULE(name) NULL, &pfs_about_##name
static const struct {
    const char *name;
    const struct pfs_backend *be;
    const struct pfs_backend_about *module; /* loaded from libpfs_<name>.so by the run driver: what the core knows */
} registry[] = {
#define PFS_BACKEND(name, where) {#name, PTR_##where(name)},
#include "backends.def"
#undef PFS_BACKEND
};
#define NREG (int)(sizeof(registry) / sizeof(registry[0]))

int pfs_backend_count(void) { return NREG; }

const char *pfs_backend_name(int i) { return i >= 0 && i < NREG ? registry[i].name : "?"; }

const struct pfs_backend *pfs_backend_at(int i) { return i >= 0 && i < NREG ? registry[i].be : NULL; }

int pfs_backend_is_module(int i) { return i >= 0 && i < NREG && registry[i].module; }

const char *pfs_backend_help(int i)
{
    if (i < 0 || i >= NREG)
        return NULL;
    return registry[i].module ? registry[i].module->help : registry[i].be ? registry[i].be->help : NULL;
}

const struct pfs_backend_options *pfs_backend_options_of(int i)
{
    if (i < 0 || i >= NREG)
        return NULL;
    return registry[i].module ? registry[i].module->options : registry[i].be ? registry[i].be->options : NULL;
}

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
