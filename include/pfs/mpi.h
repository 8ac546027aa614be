/* The thin MPI layer: the run driver and the MPI-IO backend. Every function
 * here says whether it is collective over the communicator it takes. */
#ifndef PFS_MPI_H
#define PFS_MPI_H

#include <mpi.h>

#include "pfs/backend.h"

struct pfs_mpiio_ctx {
    MPI_Comm comm;
    MPI_Info info;
    int collective;
    char msg[MPI_MAX_ERROR_STRING + 64];
};

extern const struct pfs_backend pfs_backend_mpiio;

/* Local. Builds the MPI_Info from key=value hints. 0 or -1 with err set. */
int pfs_mpiio_init(struct pfs_mpiio_ctx *ctx, MPI_Comm comm, int collective, char hints[][128], int nhints,
                   char *err, size_t errlen);
void pfs_mpiio_fini(struct pfs_mpiio_ctx *ctx);

/* Collective over comm. Parses argv, runs the benchmark, reports from rank 0
 * and returns the exit status (the same on every rank). */
int pfs_main(MPI_Comm comm, int argc, char **argv);

#endif
