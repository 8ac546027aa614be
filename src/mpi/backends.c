/* The registry of backends: --api's choices, in the order of the option
 * table's "posix|mpiio|null" (enum pfs_api). A new backend is one file and
 * one line here (plus its name in the option's choices). It lives in the
 * MPI layer because the MPI-IO backend does; the core's are MPI-free. */
#include "driver.h"

#include <string.h>

static const struct pfs_backend *const backends[] = {
    [PFS_API_POSIX] = &pfs_backend_posix,
    [PFS_API_MPIIO] = &pfs_backend_mpiio,
    [PFS_API_NULL] = &pfs_backend_null,
};
#define NBACKENDS (int)(sizeof(backends) / sizeof(backends[0]))

const struct pfs_backend *drv_backend_at(int i)
{
    return i >= 0 && i < NBACKENDS ? backends[i] : NULL;
}

const struct pfs_backend *drv_backend_find(const char *name)
{
    for (int i = 0; i < NBACKENDS; i++)
        if (backends[i] && strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}
