/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Spawned worlds that start and end in quick succession, as a pool of
 * workers does.
 *
 *   spawn_churn CYCLES [CHILDREN]
 *
 * Rank 0 of the parents spawns CHILDREN processes (default 1) CYCLES
 * times in a row, each over MPI_COMM_SELF. Each child sends its rank
 * back, disconnects, then asks the launcher's name service for a name
 * nobody published (a PMI request to mpiexec) a few times while it
 * finalizes and ends; the parent goes on to the next spawn at once. With
 * SPAWN_CHURN_ZOMBIES set, after each spawn the parent checks that its
 * mpiexec has no zombie child left from the spawns before (within a
 * second of the previous group's end). */
#include "ftmpi_test.h"
#include <dirent.h>

/* Zombie children of process `ppid`: read from /proc. */
static int zombies_of(int ppid)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[64], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(buf, sizeof(buf), f)) {
            char *p = strrchr(buf, ')'), state;
            int parent;
            if (p && sscanf(p + 2, "%c %d", &state, &parent) == 2 && parent == ppid &&
                state == 'Z')
                n++;
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* mpiexec: the parent of this process's proxy */
static int mpiexec_pid(void)
{
    char path[64], buf[512];
    int pid = getppid(), ppid = -1;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f && fgets(buf, sizeof(buf), f)) {
        char *p = strrchr(buf, ')'), state;
        if (p)
            sscanf(p + 2, "%c %d", &state, &ppid);
    }
    if (f)
        fclose(f);
    return ppid;
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent != MPI_COMM_NULL) {
        char port[MPI_MAX_PORT_NAME];
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, 0, parent));
        CHECK_MPI(MPI_Comm_disconnect(&parent));
        for (int i = 0; i < 5; i++)
            MPI_Lookup_name("ftmpi-spawn-churn-nobody", MPI_INFO_NULL, port);
        MPI_Finalize();
        return test_errors != 0;
    }

    if (argc < 2) {
        fprintf(stderr, "usage: %s CYCLES [CHILDREN]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int cycles = atoi(argv[1]), children = argc > 2 ? atoi(argv[2]) : 1;
    int check_zombies = getenv("SPAWN_CHURN_ZOMBIES") != NULL, mpiexec = mpiexec_pid();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (rank == 0) {
        for (int c = 0; c < cycles && test_errors == 0; c++) {
            MPI_Comm inter;
            char *child_argv[] = { "child", NULL };
            CHECK_MPI(MPI_Comm_spawn(argv[0], child_argv, children, MPI_INFO_NULL, 0,
                                     MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE));
            for (int i = 0; i < children; i++) {
                int r = -1;
                CHECK_MPI(MPI_Recv(&r, 1, MPI_INT, i, 0, inter, MPI_STATUS_IGNORE));
                CHECK(r == i, "cycle %d: child %d said %d", c, i, r);
            }
            CHECK_MPI(MPI_Comm_disconnect(&inter));
            if (check_zombies && c > 0) {
                /* the group of the cycle before ended by now or soon */
                int z = 0;
                for (int t = 0; t < 100; t++) {
                    z = zombies_of(mpiexec);
                    if (z == 0)
                        break;
                    usleep(10000);
                }
                CHECK(z == 0, "cycle %d: mpiexec (pid %d) has %d zombie children", c, mpiexec, z);
            }
        }
        printf("spawn_churn: %d cycles\n", cycles);
    }
    return test_finish();
}
