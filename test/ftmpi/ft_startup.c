/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* A process dies before MPI_Init (argv: the rank, from the launcher's
 * PMI_RANK, and kill|exit; -1: nobody, for the test point "init", which
 * kills one inside MPI_Init). The others are in MPI_Init's start-up
 * exchange, which can never complete: the job must end, not hang, in every
 * mode. A process that gets past MPI_Init prints SURVIVED. */
#include "ftmpi_test.h"

int main(int argc, char **argv)
{
    const char *rank_env = getenv("PMI_RANK");
    if (argc < 3 || rank_env == NULL) {
        fprintf(stderr, "usage: mpiexec -n N ft_startup VICTIM kill|exit (under Hydra)\n");
        return 2;
    }
    if (atoi(rank_env) == atoi(argv[1]))
        ft_die(argv[2]);
    MPI_Init(&argc, &argv);
    printf("SURVIVED\n");
    MPI_Finalize();
    return 0;
}
