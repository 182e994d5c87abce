/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: <mpi-ext.h>, MPI extensions.
 *
 * ULFM (User-Level Failure Mitigation), so that programs written for Open
 * MPI's ULFM or for MPICH's MPIX_ interface compile unchanged. The error
 * classes MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING and
 * MPIX_ERR_REVOKED and every MPIX_Comm_ function of ULFM (revoke, shrink,
 * ishrink, agree, iagree, is_revoked, get_failed, ack_failed, and the older
 * failure_ack and failure_get_acked) come from <mpi.h>, in every language,
 * and so do the classes by their standard names (MPI_ERR_PROC_FAILED,
 * MPI_ERR_PROC_FAILED_PENDING, MPI_ERR_REVOKED);
 * here are the names Open MPI 5's <mpi-ext.h> adds for ULFM. A job runs
 * under ULFM's rules when started with FTMPI_RECOVERY_MODE=ulfm or
 * MPIR_CVAR_ENABLE_FT=1.
 */

#ifndef FTMPICH_MPI_EXT_H_INCLUDED
#define FTMPICH_MPI_EXT_H_INCLUDED

#include <mpi.h>

/* What programs test for to find ULFM: Open MPI's extension macro, and
 * the MPIX_FT attribute of MPI_COMM_WORLD (true when the job runs under
 * ULFM's rules). */
#define OMPI_HAVE_MPI_EXT_FTMPI 1
#define MPICH_HAVE_ULFM 1
#define MPIX_FT 0x6440001c

/* Open MPI's feature macros for the parts of the interface that came
 * later than the rest: programs compile those paths only when these are
 * defined. */
#define OMPI_HAVE_MPIX_COMM_GET_FAILED 1
#define OMPI_HAVE_MPIX_COMM_ACK_FAILED 1
#define OMPI_HAVE_MPIX_COMM_ISHRINK 1
#define OMPI_HAVE_MPIX_COMM_AGREE 1
#define OMPI_HAVE_MPIX_COMM_IAGREE 1
#define OMPI_HAVE_MPIX_COMM_IS_REVOKED 1

/* The key by the name the ULFM chapter proposes for the MPI standard
 * (its classes, MPI_ERR_PROC_FAILED and the others, are in <mpi.h>). */
#ifndef MPI_FT
#define MPI_FT MPIX_FT
#endif

#endif /* FTMPICH_MPI_EXT_H_INCLUDED */
