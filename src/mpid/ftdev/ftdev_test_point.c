/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fault injection for the tests: the points of FTMPI_TEST_POINT.
 * A test names one point of one process in
 * FTMPI_TEST_POINT=PID:POINT[:N], and the code at that point asks
 * MPID_FT_test_point whether it is the one: the process started first as
 * process id PID (a replacement never is), passing POINT for the N-th time
 * as that point counts (default the first). The points are listed in
 * mpid_ft.h. The points exist only in a build configured with
 * --enable-ft-test-points, which `make check` turns on and `make` does
 * not: a release build has none of this file but the check that nobody
 * asks it for a point it does not have.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include <signal.h>
#include "ftdev_test_point.h"

#define TEST_POINT_ENV "FTMPI_TEST_POINT"

#ifdef HAVE_FT_TEST_POINTS

/* every point the code asks about (mpid_ft.h) */
static const char *const known_points[] = {
    "init", "deaf", "before-vote", "after-vote", "before-decision", "after-commit",
    "part-fails", "after-spawn", "mid-announce", "before-ready"
};

static struct {
    long pid;                   /* -1: no point set */
    unsigned long nth;
    char point[32];
} wanted = {.pid = -1 };

static int parse_test_point(const char *spec)
{
    char *end, *colon;

    wanted.pid = strtol(spec, &end, 10);
    if (end == spec || *end != ':' || wanted.pid < 0 ||
        strlen(end + 1) >= sizeof(wanted.point) || end[1] == '\0')
        return 0;
    strcpy(wanted.point, end + 1);
    wanted.nth = 1;
    colon = strchr(wanted.point, ':');
    if (colon) {
        *colon = '\0';
        wanted.nth = strtoul(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || wanted.nth == 0)
            return 0;
    }
    for (size_t i = 0; i < sizeof(known_points) / sizeof(known_points[0]); i++)
        if (strcmp(wanted.point, known_points[i]) == 0)
            return 1;
    return 0;
}

int MPID_FT_test_point(const char *point, unsigned long number)
{
    return wanted.pid == MPIR_Process.rank && !MPIDI_FTDEV_global.rebuild.is_replacement &&
        number == wanted.nth && strcmp(point, wanted.point) == 0;
}

void MPID_FT_test_death(const char *point, unsigned long number, double linger)
{
    if (!MPID_FT_test_point(point, number))
        return;
    for (double until = MPI_Wtime() + linger; MPI_Wtime() < until;)
        MPID_Progress_test(NULL);
    fflush(stdout);
    raise(SIGKILL);
}

int MPIDI_FTDEV_test_deaf;

void MPIDI_FTDEV_test_deaf_after(int dead)
{
    if (MPIR_Process.node_map &&
        MPIR_Process.node_map[dead] == MPIR_Process.node_map[MPIDI_FTDEV_global.world.my_pid] &&
        MPID_FT_test_point("deaf", 1))
        MPIDI_FTDEV_test_deaf = 1;
}

#endif /* HAVE_FT_TEST_POINTS */

int MPIDI_FTDEV_fault_injection_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    const char *spec = getenv(TEST_POINT_ENV);

    if (spec == NULL)
        goto fn_exit;
#ifdef HAVE_FT_TEST_POINTS
    if (!parse_test_point(spec)) {
        wanted.pid = -1;
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_testpoint_spec",
                             "**ftdev_testpoint_spec %s", spec);
    }
#else
    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_testpoint_none",
                         "**ftdev_testpoint_none %s", spec);
#endif

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
