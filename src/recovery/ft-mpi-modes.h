/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: legacy FT-MPI header.
 *
 * FT-MPI applications include <ft-mpi-modes.h> for the fault-tolerance
 * attribute keys and mode values. FT-MPICH defines them all in <mpi.h>;
 * this header keeps such applications compiling unchanged.
 */

#ifndef FT_MPI_MODES_H_INCLUDED
#define FT_MPI_MODES_H_INCLUDED

#include <mpi.h>

#ifndef FTMPI_RECOVERY_MODE
#error "this mpi.h lacks the FT-MPI constants; compile with FT-MPICH's mpicc"
#endif

#endif /* FT_MPI_MODES_H_INCLUDED */
