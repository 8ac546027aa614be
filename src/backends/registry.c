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

/* ON(sw): 1 when the build switch sw is defined as 1 (CMake's -DPFS_WITH_X
 * sets it so), else 0, also for a switch no one defined; 1 stands for
 * itself (a line built always). PICK(c, a, b) is a when c is 1, else b. */
#define ARG_PLACEHOLDER_1 0,
#define SECOND(ignored, val, ...) val
#define ON(sw) ON_(sw)
#define ON_(val) ON__(ARG_PLACEHOLDER_##val)
#define ON__(junk_or_0) SECOND(junk_or_0 1, 0, 0)
#define PICK(c, a, b) PICK_(c, a, b)
#define PICK_(c, a, b) PICK_##c(a, b)
#define PICK_1(a, b) a
#define PICK_0(a, b) b

/* A MODULE line has no ops here, only what the core must know of it; a
 * line whose switch is off has nothing (its file was not built). */
#define DECL_CORE(name) extern const struct pfs_backend pfs_backend_##name;
#define DECL_LAYER(name) extern const struct pfs_backend pfs_backend_##name __attribute__((weak));
#define DECL_MODULE(name) extern const struct pfs_backend_about pfs_about_##name;
#define PFS_BACKEND(name, where, built, needs) PICK(ON(built), DECL_##where(name), )
#include "backends.def"
#undef PFS_BACKEND

#define BE_CORE(name) &pfs_backend_##name
#define BE_LAYER(name) &pfs_backend_##name
#define BE_MODULE(name) NULL
#define ABOUT_CORE(name) NULL
#define ABOUT_LAYER(name) NULL
#define ABOUT_MODULE(name) &pfs_about_##name
#define IS_MODULE_CORE 0
#define IS_MODULE_LAYER 0
#define IS_MODULE_MODULE 1
static const struct {
    const char *name;
    const struct pfs_backend *be;
    const struct pfs_backend_about *about; /* a MODULE line's: what the core knows before loading it */
    int module;                            /* loaded from libpfs_<name>.so by the run driver */
    int built;                             /* 0: its build switch was off */
    const char *needs;                     /* what building it takes */
} registry[] = {
#define PFS_BACKEND(name, where, built, needs)                                                                           \
    {#name, PICK(ON(built), BE_##where(name), NULL), PICK(ON(built), ABOUT_##where(name), NULL), IS_MODULE_##where,    \
     ON(built), needs},
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
    return registry[i].about ? registry[i].about->help : registry[i].be ? registry[i].be->help : NULL;
}

const struct pfs_backend_options *pfs_backend_options_of(int i)
{
    if (i < 0 || i >= NREG)
        return NULL;
    return registry[i].about ? registry[i].about->options : registry[i].be ? registry[i].be->options : NULL;
}

int pfs_backend_built(int i) { return i >= 0 && i < NREG && registry[i].built; }

size_t pfs_backend_not_built(int i, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (i < 0 || i >= NREG || registry[i].built)
        return 0;
    int n = snprintf(buf, len, "this pfsbench was built without it (%s at build time)",
                     registry[i].needs ? registry[i].needs : "its library");
    return n > 0 ? (size_t)n : 0;
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
