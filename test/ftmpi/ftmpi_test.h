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

/* ---- fault-tolerance tests ------------------------------------------------
 * A process of an FT test may die on purpose, and after a failure the
 * survivors may be unable to communicate, so each surviving process reports
 * for itself with ft_report(): " rank R: No Errors" or " rank R: Found N
 * errors". The runner counts the reports (EXPECT_SURVIVORS in testlist). */

#include <signal.h>
#include <time.h>
#include <unistd.h>

static inline int ft_report(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (test_errors == 0)
        printf(" rank %d: No Errors\n", rank);
    else
        printf(" rank %d: Found %d errors\n", rank, test_errors);
    fflush(stdout);
    MPI_Finalize();
    return test_errors != 0;
}

/* Dies the way a test asks for: "kill" (SIGKILL), "exit" (_exit), or
 * "stop" (SIGSTOP: the process hangs without dying, and the others'
 * heartbeat must declare it failed and kill it). */
static inline void ft_die(const char *how)
{
    fflush(stdout);
    fflush(stderr);
    if (strcmp(how, "exit") == 0)
        _exit(3);
    if (strcmp(how, "stop") == 0)
        raise(SIGSTOP);
    raise(SIGKILL);
}

static inline double ft_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sleeps for `seconds` even when signals (the launcher's failure notices
 * are SIGUSR1) interrupt the sleep. */
static inline void ft_sleep(double seconds)
{
    double end = ft_now() + seconds;
    while (ft_now() < end)
        usleep(1000);
}

static inline int ft_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* "1+3" (or "1,3") -> is rank in the list? */
static inline int ft_in_list(const char *list, int rank)
{
    const char *p = list;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v == rank)
            return 1;
        p = (*end == ',' || *end == '+') ? end + 1 : end;
    }
    return 0;
}

/* MPI_Init for an FT test: errors are returned, not fatal, on
 * MPI_COMM_WORLD, and the program has at least nargs arguments. */
static inline void ft_init(int *argc, char ***argv, int nargs, const char *usage, int *rank,
                           int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (*argc < nargs + 1) {
        fprintf(stderr, "usage: %s %s\n", (*argv)[0], usage);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#define CHECK_FAILS(call)                                                  \
    do {                                                                   \
        int rc_ = (call);                                                  \
        CHECK(ft_class(rc_) == MPI_ERR_OTHER, "%s returned class %d, expected MPI_ERR_OTHER", \
              #call, ft_class(rc_));                                       \
    } while (0)
