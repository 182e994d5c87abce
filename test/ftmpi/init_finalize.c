/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Init/MPI_Finalize, world size and rank, predefined attributes. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size, flag, *tag_ub, len, initialized = 0, finalized = 1;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Initialized(&initialized);
    CHECK(!initialized, "MPI_Initialized before MPI_Init");
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Initialized(&initialized);
    CHECK(initialized, "MPI_Initialized after MPI_Init");
    MPI_Finalized(&finalized);
    CHECK(!finalized, "MPI_Finalized before MPI_Finalize");

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);

    /* every rank sees the same size and a distinct rank */
    int *ranks = malloc(size * sizeof(int));
    MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        CHECK(ranks[i] == i, "allgathered rank %d at %d", ranks[i], i);
    free(ranks);

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB %d", flag ? *tag_ub : -1);

    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && (int) strlen(name) == len, "processor name '%s' len %d", name, len);

    int version, subversion;
    MPI_Get_version(&version, &subversion);
    CHECK(version >= 3, "MPI version %d.%d", version, subversion);

    return test_finish();
}
