/*
 * FT-MPICH tests: shared helpers.
 *
 * A test counts its own errors with CHECK and ends with test_finish(), which
 * sums the errors over MPI_COMM_WORLD; rank 0 prints " No Errors" (the MPICH
 * test-suite convention the runner looks for) or the error count.
 */

#ifndef FTMPI_TEST_H_INCLUDED
#define FTMPI_TEST_H_INCLUDED

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_errors;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            int r_;                                                        \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                            \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", r_,    \
                    __FILE__, __LINE__, #cond);                            \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            test_errors++;                                                 \
        }                                                                  \
    } while (0)

#define CHECK_MPI(call)                                                    \
    do {                                                                   \
        int rc_ = (call);                                                  \
        if (rc_ != MPI_SUCCESS) {                                          \
            char s_[MPI_MAX_ERROR_STRING];                                 \
            int l_;                                                        \
            MPI_Error_string(rc_, s_, &l_);                                \
            CHECK(rc_ == MPI_SUCCESS, "%s returned %s", #call, s_);        \
        }                                                                  \
    } while (0)

static inline int test_finish(void)
{
    int total = 0, rank;
    MPI_Allreduce(&test_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total != 0;
}

/* Deterministic content for byte i of a message from src to dst. */
static inline unsigned char test_byte(int src, int dst, size_t i)
{
    return (unsigned char) (i * 31 + src * 7 + dst * 13 + (i >> 8));
}

#endif /* FTMPI_TEST_H_INCLUDED */
