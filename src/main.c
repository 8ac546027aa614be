/* pfsbench: the tool is a thin main() over the library (mpifileutils' split). */
#include <mpi.h>

#include "pfs/clock.h"
#include "pfs/mpi.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int main(int argc, char **argv)
{
    pfs_run_clock_begin(); /* MPI_Init's time calibrates the TSC clock */
    MPI_Init(&argc, &argv);
    pfs_run_clock_fit();
    int rc = pfs_main(MPI_COMM_WORLD, argc, argv);
#if defined(__SANITIZE_ADDRESS__)
    /* Check for leaks while Open MPI's components are still loaded: after
     * MPI_Finalize unloads them, their frames have no module name and the
     * suppressions in tests/sanitizers/lsan.supp could not name them. */
    __lsan_do_leak_check();
#endif
    MPI_Finalize();
    return rc;
}
