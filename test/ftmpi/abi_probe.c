/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A program for any MPICH-ABI library, built with that library's own
 * mpicc (Debian's mpicc.mpich, say) and run on another by the dynamic
 * linker's path alone. Uses mpi.h only: no FT-MPICH header.
 *
 *   abi_probe             rank 0 prints "library: PATH" (the file that
 *                         holds MPI_Init) and "version: FIRST LINE" of
 *                         MPI_Get_library_version
 *   abi_probe kill        as ULFM programs do: the last rank SIGKILLs
 *                         itself before a barrier; every survivor must see
 *                         the barrier fail with MPIX_ERR_PROC_FAILED or
 *                         MPIX_ERR_REVOKED, revoke, shrink, and find the
 *                         others in an allreduce on the shrunk communicator
 *
 * Each survivor prints "rank R: survived with N" (N processes in the
 * shrunk communicator); any check that fails prints FAIL and exits 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(int rank, const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, class = -1;
    text[0] = 0;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &class);
        MPI_Error_string(rc, text, &len);
    }
    printf("rank %d: FAIL: %s (class %d: %s)\n", rank, what, class, text);
    fflush(stdout);
    _exit(1);
}

int main(int argc, char **argv)
{
    int rank, size, rc, class;
    int kill_last = argc > 1 && !strcmp(argv[1], "kill");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!kill_last) {
        if (rank == 0) {
            Dl_info info;
            char version[MPI_MAX_LIBRARY_VERSION_STRING];
            int len;
            if (!dladdr((void *) MPI_Init, &info) || info.dli_fname == NULL)
                fail(rank, "dladdr cannot name the library of MPI_Init", MPI_SUCCESS);
            MPI_Get_library_version(version, &len);
            version[strcspn(version, "\n")] = 0;
            printf("library: %s\nversion: %s\n", info.dli_fname, version);
        }
        MPI_Finalize();
        return 0;
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == size - 1)
        raise(SIGKILL);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        fail(rank, "a barrier with a dead member succeeded", rc);
    MPI_Error_class(rc, &class);
    if (class != MPIX_ERR_PROC_FAILED && class != MPIX_ERR_REVOKED)
        fail(rank, "the barrier failed with another class", rc);
    MPIX_Comm_revoke(MPI_COMM_WORLD);
    MPI_Comm shrunk;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
    if (rc != MPI_SUCCESS)
        fail(rank, "MPIX_Comm_shrink", rc);
    int n, one = 1, sum = 0;
    MPI_Comm_size(shrunk, &n);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk);
    if (rc != MPI_SUCCESS)
        fail(rank, "MPI_Allreduce on the shrunk communicator", rc);
    if (n != size - 1 || sum != n)
        fail(rank, "the shrunk communicator is not the survivors", MPI_SUCCESS);
    printf("rank %d: survived with %d\n", rank, n);
    MPI_Comm_free(&shrunk);
    MPI_Finalize();
    return 0;
}
