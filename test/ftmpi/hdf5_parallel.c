/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Parallel HDF5 on whatever MPICH-ABI library is loaded: built with
 * Debian's h5pcc.mpich (HDF5 for MPICH), every process writes its own
 * rows of one dataset collectively through MPI-IO, then reads back its
 * neighbour's rows and checks every value. Uses no FT-MPICH header.
 *
 *   hdf5_parallel FILE
 *
 * Rank 0 prints "library: PATH" (the file that holds MPI_Init); each
 * process prints "rank R: rows checked" or FAIL and exits 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROWS 64                 /* per process */
#define COLS 100

static void fail(int rank, const char *what)
{
    printf("rank %d: FAIL: %s\n", rank, what);
    fflush(stdout);
    _exit(1);
}

static int value(int row, int col)
{
    return row * 1000 + col;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        fail(rank, "usage: hdf5_parallel FILE");
    if (rank == 0) {
        Dl_info info;
        if (dladdr((void *) MPI_Init, &info) && info.dli_fname)
            printf("library: %s\n", info.dli_fname);
    }

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        fail(rank, "H5Fcreate");
    hsize_t dims[2] = { (hsize_t) ROWS * size, COLS };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "rows", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT);
    if (dset < 0)
        fail(rank, "H5Dcreate2");

    int *buf = malloc(sizeof(int) * ROWS * COLS);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            buf[r * COLS + c] = value(rank * ROWS + r, c);
    hsize_t start[2] = { (hsize_t) rank * ROWS, 0 }, count[2] = { ROWS, COLS };
    hid_t mem = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(dset, H5T_NATIVE_INT, mem, space, xfer, buf) < 0)
        fail(rank, "H5Dwrite");
    H5Dclose(dset);
    H5Fclose(file);

    /* each reads the next process's rows from the reopened file */
    file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    dset = H5Dopen2(file, "rows", H5P_DEFAULT);
    if (file < 0 || dset < 0)
        fail(rank, "H5Fopen/H5Dopen2");
    int next = (rank + 1) % size;
    start[0] = (hsize_t) next * ROWS;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    if (H5Dread(dset, H5T_NATIVE_INT, mem, space, xfer, buf) < 0)
        fail(rank, "H5Dread");
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            if (buf[r * COLS + c] != value(next * ROWS + r, c))
                fail(rank, "a value read back differs from the one written");
    H5Dclose(dset);
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(xfer);
    H5Pclose(fapl);
    H5Fclose(file);
    free(buf);
    printf("rank %d: rows checked\n", rank);
    MPI_Finalize();
    return 0;
}
