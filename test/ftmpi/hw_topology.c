/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Comm_split_type by hardware resource, before and after the first
 * lookup of an I/O device (argv[1], e.g. "pci:0000:00:01.0"), which loads
 * the topology's I/O objects then and not in MPI_Init. Writes
 * "HWTOPO-LOOKUP" on stdout just before that lookup, so that
 * scripts/hw_topology_io_on_demand.sh can tell which files were read
 * before it. The splits by non-I/O resources must give the same groups
 * before and after the topology is loaded again with the I/O objects. */
#include "ftmpi_test.h"
#include <unistd.h>

static int split_size(int type, const char *resource)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm comm;
    int size = 0;

    if (resource) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_hw_resource_type", resource);
    }
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &comm));
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_size(comm, &size);
        MPI_Comm_free(&comm);
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return size;
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "pci:0000:00:00.0";
    const char *resources[] = { "core", "numanode", "package", "l3cache" };
    enum { NRES = sizeof(resources) / sizeof(resources[0]) };
    int before[NRES], after[NRES], unguided_before, unguided_after, world;
    static const char mark[] = "HWTOPO-LOOKUP\n";

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    for (int i = 0; i < NRES; i++)
        before[i] = split_size(MPI_COMM_TYPE_HW_GUIDED, resources[i]);
    unguided_before = split_size(MPI_COMM_TYPE_HW_UNGUIDED, NULL);

    CHECK(write(STDOUT_FILENO, mark, sizeof(mark) - 1) == sizeof(mark) - 1, "marker not written");
    int near_device = split_size(MPI_COMM_TYPE_HW_GUIDED, device);
    CHECK(near_device <= world, "%s: a group of %d in a world of %d", device, near_device, world);

    for (int i = 0; i < NRES; i++) {
        after[i] = split_size(MPI_COMM_TYPE_HW_GUIDED, resources[i]);
        CHECK(after[i] == before[i], "%s: a group of %d before the I/O objects, %d after",
              resources[i], before[i], after[i]);
    }
    unguided_after = split_size(MPI_COMM_TYPE_HW_UNGUIDED, NULL);
    CHECK(unguided_after == unguided_before, "unguided: a group of %d before, %d after",
          unguided_before, unguided_after);
    return test_finish();
}
