/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI_Get_library_version names FT-MPICH and its fault-tolerance modes on
 * its first line (before MPI_Init too, as MPI allows). */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    MPI_Get_library_version(version, &len);
    MPI_Init(&argc, &argv);
    CHECK(len == (int) strlen(version), "length %d, string %zu", len, strlen(version));
    CHECK(!strncmp(version, "FT-MPICH:\t", 10), "first line: %.*s", (int) strcspn(version, "\n"),
          version);
    const char *modes[] = { "FTMPI_COMM_MODE=abort|rebuild|blank|shrink",
        "FTMPI_RECOVERY_MODE=manual|auto|ignore|ulfm", "FTMPI_MSG_MODE=reset|cont",
        "FTMPI_COLL_MODE=nonatomic|atomic"
    };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        CHECK(strstr(version, modes[i]) != NULL, "%s not listed", modes[i]);
    CHECK(strstr(version, "MPICH Version:") != NULL, "MPICH's lines are gone");
    return test_finish();
}
