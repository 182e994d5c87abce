/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* FT-MPI constants and predefined attributes without any failure: the
 * four modes read back as the environment chose them (on MPI_COMM_WORLD
 * and MPI_COMM_SELF), FTMPI_NUM_FAILED_PROCS is 0 and FTMPI_ERROR_FAILURE
 * MPI_SUCCESS, and none of them can be set or deleted. */
#include "ftmpi_test.h"
#include <ft-mpi-modes.h>
#include <strings.h>

static int expected(const char *var, const char *const names[], const int values[], int dflt)
{
    const char *v = getenv(var);
    if (v == NULL || *v == 0)
        return dflt;
    for (int i = 0; names[i]; i++)
        if (strcasecmp(v, names[i]) == 0)
            return values[i];
    return -1;
}

int main(int argc, char **argv)
{
    static const char *const rec_n[] = { "auto", "manual", "ignore", NULL };
    static const int rec_v[] = { FTMPI_RECOVERY_MODE_AUTO, FTMPI_RECOVERY_MODE_MANUAL,
        FTMPI_RECOVERY_MODE_IGNORE };
    static const char *const comm_n[] = { "abort", "rebuild", "blank", "shrink", NULL };
    static const int comm_v[] = { FTMPI_COMM_MODE_ABORT, FTMPI_COMM_MODE_REBUILD,
        FTMPI_COMM_MODE_BLANK, FTMPI_COMM_MODE_SHRINK };
    static const char *const msg_n[] = { "reset", "cont", NULL };
    static const int msg_v[] = { FTMPI_MSG_MODE_RESET, FTMPI_MSG_MODE_CONT };
    static const char *const coll_n[] = { "atomic", "nonatomic", NULL };
    static const int coll_v[] = { FTMPI_COLL_MODE_ATOMIC, FTMPI_COLL_MODE_NONATOMIC };

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    struct {
        int keyval;
        int value;
    } want[] = {
        {FTMPI_RECOVERY_MODE,
         expected("FTMPI_RECOVERY_MODE", rec_n, rec_v, FTMPI_RECOVERY_MODE_MANUAL)},
        {FTMPI_COMM_MODE, expected("FTMPI_COMM_MODE", comm_n, comm_v, FTMPI_COMM_MODE_ABORT)},
        {FTMPI_MSG_MODE, expected("FTMPI_MSG_MODE", msg_n, msg_v, FTMPI_MSG_MODE_RESET)},
        {FTMPI_COLL_MODE,
         expected("FTMPI_COLL_MODE", coll_n, coll_v, FTMPI_COLL_MODE_NONATOMIC)},
        {FTMPI_NUM_FAILED_PROCS, 0},
        {FTMPI_ERROR_FAILURE, MPI_SUCCESS},
    };
    MPI_Comm comms[2] = { MPI_COMM_WORLD, MPI_COMM_SELF };

    /* all values fetched first: each must stay valid while others are read */
    const size_t nwant = sizeof(want) / sizeof(want[0]);
    for (int c = 0; c < 2; c++) {
        int *p[16] = { NULL }, flag[16] = { 0 };
        for (size_t i = 0; i < nwant; i++) {
            CHECK_MPI(MPI_Comm_get_attr(comms[c], want[i].keyval, &p[i], &flag[i]));
            CHECK(flag[i] == 1 && p[i] != NULL, "keyval %#x: flag %d", want[i].keyval, flag[i]);
        }
        for (size_t i = 0; i < nwant; i++)
            if (flag[i] && p[i])
                CHECK(*p[i] == want[i].value, "keyval %#x: value %d, expected %d",
                      want[i].keyval, *p[i], want[i].value);
    }

    /* the FT-MPI attributes are permanent */
    int v = 5;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, want[i].keyval, &v);
        CHECK(rc != MPI_SUCCESS, "setting keyval %#x succeeded", want[i].keyval);
        rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, want[i].keyval);
        CHECK(rc != MPI_SUCCESS, "deleting keyval %#x succeeded", want[i].keyval);
    }

    /* constants: distinct keyvals and values, a restart marker that is
     * positive and of no error class, a legacy marker that is no comm */
    CHECK(MPI_INIT_RESTARTED_NODE > 0, "MPI_INIT_RESTARTED_NODE %d", MPI_INIT_RESTARTED_NODE);
    CHECK(ft_class(MPI_INIT_RESTARTED_NODE) == MPI_SUCCESS,
          "MPI_INIT_RESTARTED_NODE has error class %d", ft_class(MPI_INIT_RESTARTED_NODE));
    CHECK(FT_MPI_CHECK_RECOVER != MPI_COMM_WORLD && FT_MPI_CHECK_RECOVER != MPI_COMM_NULL &&
          FT_MPI_CHECK_RECOVER != MPI_COMM_SELF, "FT_MPI_CHECK_RECOVER is a communicator");
    int vals[] = { FTMPI_RECOVERY_MODE_AUTO, FTMPI_RECOVERY_MODE_MANUAL,
        FTMPI_RECOVERY_MODE_IGNORE, FTMPI_COMM_MODE_ABORT, FTMPI_COMM_MODE_REBUILD,
        FTMPI_COMM_MODE_BLANK, FTMPI_COMM_MODE_SHRINK, FTMPI_MSG_MODE_RESET,
        FTMPI_MSG_MODE_CONT, FTMPI_COLL_MODE_ATOMIC, FTMPI_COLL_MODE_NONATOMIC
    };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        for (size_t j = i + 1; j < sizeof(vals) / sizeof(vals[0]); j++)
            CHECK(vals[i] != vals[j], "mode values %zu and %zu are equal", i, j);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return test_finish();
}
