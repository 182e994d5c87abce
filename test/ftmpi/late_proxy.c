/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A job that needs new connections late in its life (a new proxy to
 * mpiexec, new UCX connections to its processes), once $ATTACK_GO_FILE
 * exists (scripts/attack_mpiexec_flood.sh and
 * attack_ucx_listener_flood.sh flood their ports before they create the
 * file). Rank 0 creates $ATTACK_READY_FILE once every process has passed
 * a first allreduce. Until the go, the processes sleep, or with
 * ATTACK_WAIT_IN_MPI=1 call MPI (MPI_Iprobe) every millisecond.
 *
 *   late_proxy rebuild   (FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=auto)
 *       the last rank dies (SIGKILL); its replacement, which a new proxy
 *       starts, joins the survivors' retried allreduce
 *   late_proxy spawn
 *       MPI_Comm_spawn starts one child (a new proxy), which sends the
 *       parents a checked number
 *
 * Each process of the world reports " rank R: No Errors" or its errors. */
#include "ftmpi_test.h"

#define GO_WAIT_SECONDS 60

static void wait_for_go(void)
{
    const char *go = getenv("ATTACK_GO_FILE");
    const char *in_mpi = getenv("ATTACK_WAIT_IN_MPI");
    int calls = in_mpi && !strcmp(in_mpi, "1");
    double start = ft_now();
    while (go && access(go, F_OK) != 0 && ft_now() - start < GO_WAIT_SECONDS) {
        if (calls) {
            int flag;
            for (int i = 0; i < 10; i++) {
                MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                usleep(1000);
            }
        } else {
            usleep(10000);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, rc, sum = 0, tries = 0;
    MPI_Comm parent;

    rc = MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int value = 4200 + rank;
        CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 0, 7, parent));
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    if (argc < 2 || (strcmp(argv[1], "rebuild") && strcmp(argv[1], "spawn"))) {
        fprintf(stderr, "usage: late_proxy rebuild|spawn\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int restarted = rc == MPI_INIT_RESTARTED_NODE;
    CHECK(rc == MPI_SUCCESS || restarted, "MPI_Init returned %d", rc);

    if (!restarted) {
        const char *ready = getenv("ATTACK_READY_FILE");
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (rank == 0 && ready) {
            FILE *f = fopen(ready, "w");
            if (f)
                fclose(f);
        }
        wait_for_go();
    }

    if (!strcmp(argv[1], "rebuild")) {
        if (rank == size - 1 && !restarted)
            ft_die("kill");
        /* survivors: the first allreduce fails, AUTO recovery replaces the
         * dead, and the retry meets the replacement's one */
        do {
            rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } while (rc != MPI_SUCCESS && ++tries < 10);
        CHECK_MPI(rc);
        CHECK(sum == size * (size - 1) / 2, "sum of ranks %d, expected %d", sum,
              size * (size - 1) / 2);
        CHECK(restarted || tries > 0, "no recovery although a process died");
    } else {
        MPI_Comm children;
        int errcode = MPI_SUCCESS, value = -1;
        rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                            &children, &errcode);
        CHECK_MPI(rc);
        CHECK(errcode == MPI_SUCCESS, "the child's error code %d", errcode);
        if (rc == MPI_SUCCESS) {
            if (rank == 0) {
                CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, 7, children, MPI_STATUS_IGNORE));
                CHECK(value == 4200, "the child sent %d, expected 4200", value);
            }
            MPI_Comm_disconnect(&children);
        }
    }
    return ft_report();
}
