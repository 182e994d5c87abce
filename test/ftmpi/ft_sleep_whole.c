/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A death elsewhere does not cut a survivor's own sleep short: the
 * launcher's notice (SIGUSR1) goes to FT-MPICH's heartbeat thread, not to
 * the application's threads.
 *
 *   FTMPI_COMM_MODE=shrink ft_sleep_whole VICTIM kill|exit
 *
 * The victim dies once everyone arrived; each survivor sleeps 3 s with
 * sleep() and 1 s with nanosleep(), which a handled signal would end
 * early, and checks that the time passed. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    int rank, size;
    ft_init(&argc, &argv, 2, "VICTIM kill|exit", &rank, &size);
    int victim = atoi(argv[1]);
    ft_meetings_open(rank, size);
    if (rank == victim)
        ft_die_together(0, rank, argv[1], size, 0.0, argv[2]);
    ft_arrive(0);

    double t0 = ft_now();
    unsigned left = sleep(3);
    double slept = ft_now() - t0;
    CHECK(left == 0 && slept > 2.9, "sleep(3) returned after %.2f s with %u s left", slept, left);

    struct timespec want = {.tv_sec = 1,.tv_nsec = 0 }, rem = { 0, 0 };
    t0 = ft_now();
    int rc = nanosleep(&want, &rem);
    CHECK(rc == 0 && ft_now() - t0 > 0.95, "nanosleep(1 s) returned %d after %.2f s", rc,
          ft_now() - t0);
    return ft_report();
}
