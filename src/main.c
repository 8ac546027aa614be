/* pfsbench: the tool is a thin main() over the library (mpifileutils' split). */
#include <mpi.h>

#include "pfs/mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = pfs_main(MPI_COMM_WORLD, argc, argv);
    MPI_Finalize();
    return rc;
}
