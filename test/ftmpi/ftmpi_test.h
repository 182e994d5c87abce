/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
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
#include <strings.h>

static int test_errors;

/* Whether environment variable var is set to value, compared as the
 * library compares a mode (case-insensitively). */
static inline int test_env_is(const char *var, const char *value)
{
    const char *v = getenv(var);
    return v != NULL && strcasecmp(v, value) == 0;
}

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

/* A message of n bytes from src to dst, as test_byte makes it. */
static inline void test_fill(unsigned char *b, size_t n, int src, int dst)
{
    for (size_t i = 0; i < n; i++)
        b[i] = test_byte(src, dst, i);
}

/* The first byte of a received message from src to dst that differs
 * from test_byte's, or -1. */
static inline int test_first_wrong(const unsigned char *b, size_t n, int src, int dst)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != test_byte(src, dst, i))
            return (int) i;
    return -1;
}

#endif /* FTMPI_TEST_H_INCLUDED */

/* ---- fault-tolerance tests ------------------------------------------------
 * A process of an FT test may die on purpose, and after a failure the
 * survivors may be unable to communicate, so each surviving process reports
 * for itself with ft_report(): " rank R: No Errors" or " rank R: Found N
 * errors". The runner counts the reports (EXPECT_SURVIVORS in testlist). */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static char ft_shared_name[128];        /* the table of ft_meetings_open, if any */

static inline int ft_report(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (test_errors == 0)
        printf(" rank %d: No Errors\n", rank);
    else
        printf(" rank %d: Found %d errors\n", rank, test_errors);
    fflush(stdout);
    if (ft_shared_name[0])
        shm_unlink(ft_shared_name);
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

/* what ft_kill_pid(pid, "exit") makes a process do */
static void ft_exit_on_signal(int sig)
{
    _exit(3);
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
    signal(SIGUSR2, ft_exit_on_signal);
}

#define CHECK_FAILS(call)                                                  \
    do {                                                                   \
        int rc_ = (call);                                                  \
        CHECK(ft_class(rc_) == MPI_ERR_OTHER, "%s returned class %d, expected MPI_ERR_OTHER", \
              #call, ft_class(rc_));                                       \
    } while (0)

/* ---- deaths at a chosen point, without timing assumptions ----------------
 * A test that kills processes "once the others are in place" must not rely
 * on a sleep: on a loaded machine a slow process would meet the failure
 * before it got there (in AUTO/MANUAL modes every call fails once a failure
 * is known) and the test would check the wrong thing. The processes of a
 * test (all on one node) share a small table in POSIX shared memory: each
 * one's operating-system pid, and per meeting the number of processes that
 * reached it. A victim waits until everyone it waits for has arrived, then
 * the deaths happen. */
#define FT_MAX_PROCS 256
#define FT_MAX_MEETINGS 64

typedef struct {
    int ospid[FT_MAX_PROCS];    /* by process id (first MPI_COMM_WORLD rank) */
    int arrived[FT_MAX_MEETINGS];
    int killed[FT_MAX_MEETINGS];
} ft_shared_t;

static ft_shared_t *ft_shared;

/* Collective over MPI_COMM_WORLD, before any failure, in the tests that
 * use the calls below. */
static inline void ft_meetings_open(int rank, int size)
{
    const char *tag = getenv("FTMPI_TEST_JOB_TAG");
    if (size > FT_MAX_PROCS) {
        fprintf(stderr, "ftmpi_test: more than %d processes\n", FT_MAX_PROCS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* one name per job: the runner's tag, else the launcher's proxy */
    if (tag)
        snprintf(ft_shared_name, sizeof(ft_shared_name), "/%s", tag);
    else
        snprintf(ft_shared_name, sizeof(ft_shared_name), "/ftmpi-test-%d", (int) getppid());
    int fd = shm_open(ft_shared_name, O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(ft_shared_t)) != 0) {
        perror("ftmpi_test: shared table");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ft_shared = mmap(NULL, sizeof(ft_shared_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ft_shared == MAP_FAILED) {
        perror("ftmpi_test: shared table");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* a stale table of an earlier job with the same name starts over */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        memset(ft_shared, 0, sizeof(*ft_shared));
    MPI_Barrier(MPI_COMM_WORLD);
    ft_shared->ospid[rank] = (int) getpid();
    MPI_Barrier(MPI_COMM_WORLD);
}

/* This process has reached meeting m. */
static inline void ft_arrive(int m)
{
    __atomic_add_fetch(&ft_shared->arrived[m], 1, __ATOMIC_SEQ_CST);
}

static inline void ft_wait_for(int *counter, int n, const char *what)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < n) {
        usleep(200);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 60) {
            fprintf(stderr, "ftmpi_test: %s: %d of %d processes after 60 s\n", what,
                    __atomic_load_n(counter, __ATOMIC_SEQ_CST), n);
            _exit(4);
        }
    }
}

/* Process `pid` dies the way `how` says: "kill" (SIGKILL), "exit" (it
 * calls _exit: ft_init turned SIGUSR2 into that), "stop" (SIGSTOP). */
static inline void ft_kill_pid(int pid, const char *how)
{
    int sig = !strcmp(how, "exit") ? SIGUSR2 : !strcmp(how, "stop") ? SIGSTOP : SIGKILL;
    kill(ft_shared->ospid[pid], sig);
}

/* Meeting m for a victim (process id `me`): the processes in `victims`
 * (process ids) die together once `expected` processes, this one
 * included, have arrived; the lowest victim kills the others, then
 * itself, `settle` seconds after the last arrival (so that the others are
 * most likely blocked in the call that the failure must end; a process
 * not yet in it gets the failure when it enters it). Never returns. */
static inline void ft_die_together(int m, int me, const char *victims, int expected,
                                   double settle, const char *how)
{
    int first = -1;
    for (int p = 0; p < FT_MAX_PROCS && first < 0; p++)
        if (ft_in_list(victims, p))
            first = p;
    ft_arrive(m);
    if (me == first) {
        ft_wait_for(&ft_shared->arrived[m], expected, "waiting for the others to arrive");
        usleep((useconds_t) (settle * 1e6));
        for (int p = first + 1; p < FT_MAX_PROCS; p++)
            if (ft_in_list(victims, p))
                ft_kill_pid(p, how);
        __atomic_add_fetch(&ft_shared->killed[m], 1, __ATOMIC_SEQ_CST);
        ft_die(how);
    }
    for (;;)
        pause();
}

/* A process that dies `delay` seconds after the victims of meeting m died
 * (while the survivors recover from them), without calling MPI before.
 * It counts as arrived. Never returns. */
static inline void ft_die_after(int m, double delay, const char *how)
{
    ft_arrive(m);
    ft_wait_for(&ft_shared->killed[m], 1, "waiting for the victims to die");
    ft_sleep(delay);
    ft_die(how);
}

