/* bench_hdf5_direct: the HDF5 calls pfsbench -a hdf5 makes, and nothing
 * else: what an application's own H5Dwrite/H5Dread loop reaches, for
 * bench/pfs-vs-hdf5.sh. Per rank: barrier, then H5Fcreate (H5F_ACC_EXCL,
 * the MPI-IO driver on MPI_COMM_SELF, or on MPI_COMM_WORLD with shared),
 * H5Dcreate of one 1-D H5T_NATIVE_UINT8 dataset (the block, or the total),
 * block/transfer H5Dwrite of hyperslabs at pfsbench's offsets (file per
 * process k*t; shared segmented rank*b + k*t), H5Fclose, barrier; then the
 * same with H5Fopen and H5Dread. Fill values never written, transfers
 * independent (collective with a 5th argument "collective"). Bandwidth as
 * pfsbench's: total bytes over the earliest open to the latest close.
 *
 * usage: mpirun -np N bench_hdf5_direct DIR fpp|shared TRANSFER_BYTES BLOCK_BYTES [collective]
 * prints: "write MiB/s" and "read MiB/s" lines (rank 0); the files are removed. */
#include <hdf5.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double phase(const char *path, int shared, int write, hsize_t t, hsize_t b, int coll, void *buf)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, shared ? MPI_COMM_WORLD : MPI_COMM_SELF, MPI_INFO_NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    hsize_t size = shared ? b * (hsize_t)n : b, base = shared ? b * (hsize_t)rank : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    hid_t f, d;
    if (write) {
        f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
        hid_t sp = H5Screate_simple(1, &size, NULL);
        d = H5Dcreate2(f, "data", H5T_NATIVE_UINT8, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Sclose(sp);
    } else {
        f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        d = H5Dopen2(f, "data", H5P_DEFAULT);
    }
    if (f < 0 || d < 0) {
        fprintf(stderr, "bench_hdf5_direct: cannot %s %s\n", write ? "create" : "open", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &t, NULL);
    for (hsize_t off = 0; off < b; off += t) {
        hsize_t start = base + off;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &t, NULL);
        herr_t rc = write ? H5Dwrite(d, H5T_NATIVE_UINT8, ms, fs, dxpl, buf)
                          : H5Dread(d, H5T_NATIVE_UINT8, ms, fs, dxpl, buf);
        if (rc < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
    double t1 = MPI_Wtime(), first, last;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    H5Pclose(fapl);
    H5Pclose(dcpl);
    H5Pclose(dxpl);
    return rank == 0 ? (double)b * n / (last - first) / (1 << 20) : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 5) {
        fprintf(stderr, "usage: bench_hdf5_direct DIR fpp|shared TRANSFER_BYTES BLOCK_BYTES [collective]\n");
        MPI_Finalize();
        return 2;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int shared = strcmp(argv[2], "shared") == 0, coll = argc > 5 && strcmp(argv[5], "collective") == 0;
    hsize_t t = strtoull(argv[3], NULL, 10), b = strtoull(argv[4], NULL, 10);
    char path[4096];
    int id = (int)getpid();
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (shared)
        snprintf(path, sizeof(path), "%s/direct.%d.shared", argv[1], id);
    else
        snprintf(path, sizeof(path), "%s/direct.%d.%d", argv[1], id, rank);
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, (size_t)t) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(rank + 1);
    for (size_t i = 0; i + 8 <= (size_t)t; i += 8) { /* incompressible, as pfsbench's buffer */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        memcpy((char *)buf + i, &s, 8);
    }
    double w = phase(path, shared, 1, t, b, coll, buf);
    double r = phase(path, shared, 0, t, b, coll, buf);
    if (rank == 0)
        printf("write %.2f\nread %.2f\n", w, r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!shared || rank == 0)
        unlink(path);
    free(buf);
    MPI_Finalize();
    return 0;
}
