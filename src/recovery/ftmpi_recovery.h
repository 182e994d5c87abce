/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The FT-MPI recovery layer's interface: what MPICH's patched core and
 * FT-MPI's collectives (src/coll_atomic) ask of it. Its own files share
 * ftmpi_recovery_impl.h besides. Processes are
 * named by their process id (pid): the original MPI_COMM_WORLD rank,
 * which the transport carries in every message.
 */

#ifndef FTMPI_RECOVERY_H_INCLUDED
#define FTMPI_RECOVERY_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ---- modes (ftmpi_modes.c) ---------------------------------------------- */

/* The job's fault-tolerance modes, as FTMPI_*_MODE_* values of mpi.h. */
typedef struct {
    int recovery;
    int comm;
    int msg;
    int coll;
} MPIR_FTMPI_modes_t;

extern MPIR_FTMPI_modes_t MPIR_FTMPI_modes;

/* One line saying what this build is and which modes it supports, for
 * MPI_Get_library_version and mpichversion; returns snprintf's count. */
int MPIR_FTMPI_describe(char *buf, size_t len);

/* FTMPI_RECOVERY_MODE=ulfm or MPIR_CVAR_ENABLE_FT=1: ULFM's rules, no
 * FT-MPI recovery, communication between survivors goes on. */
int MPIR_FTMPI_ulfm(void);

/* The job ends when a process fails (COMM_MODE=abort, unless
 * RECOVERY_MODE=ignore). */
int MPIR_FTMPI_aborts_on_failure(void);

/* After a failure every communication call fails until recovery
 * (RECOVERY_MODE auto or manual); otherwise (ignore) only operations
 * that involve a failed process do. */
int MPIR_FTMPI_halts_on_failure(void);

/* ---- failures (ftmpi_failure.c) --------------------------------------- */

/* This process has recognized a failure that no recovery has handled
 * (FAILURE_RECOGNIZED, or RECOVERING). */
int MPIR_FTMPI_failure_pending(void);

/* An error code of class MPI_ERR_OTHER for an operation refused or ended
 * by a failure: naming `pid` when the operation involves it, else (pid
 * < 0) saying that a failure awaits recovery. */
int MPIR_FTMPI_failure_error(int pid);

/* The error a collective call on comm (an intracommunicator) returns
 * because a member of it failed or is a blank, or because a recovery
 * destroyed it: MPIX_ERR_PROC_FAILED under ULFM, MPI_ERR_OTHER naming the
 * process otherwise; MPI_SUCCESS while every member lives. MPI-IO asks before and after each collective access, as its
 * own calls do not report what ended them. */
struct MPIR_Comm;
int MPIR_FTMPI_comm_failure(struct MPIR_Comm *comm);

/* Whether errcode reports a process failure that a call returns to its
 * caller although the error handler in force is the default one: FT-MPI
 * programs check return codes and never set a handler. */
int MPIR_FTMPI_returns_failure(int errcode);

/* The code call `fcname` (MPICH's name of the function, NULL when not
 * known) on comm (NULL: none) returns to its caller or hands to its error
 * handler: under ULFM a process failure, pending failure or revocation is
 * reported as its bare class (MPIX_ERR_PROC_FAILED, ...), as ULFM programs
 * compare return codes with those constants; a failure on a revoked
 * communicator is MPIX_ERR_REVOKED, except in the calls a revocation does
 * not end (agree, shrink, the failure queries, revoke itself). */
struct MPIR_Comm;
int MPIR_FTMPI_code_for_user(struct MPIR_Comm *comm, const char *fcname, int errcode);

/* Value of an FTMPI_* predefined attribute (keyval without the Fortran
 * bit); returns 0 for a keyval that is not one of them. */
int MPIR_FTMPI_get_attr(int keyval, int *value);

/* MPI_Error_string of an FTMPI_ERROR_FAILURE code: writes the failed
 * ranks and returns 1; returns 0 for any other code. */
int MPIR_FTMPI_error_string(int code, char *msg, int len);

/* ---- recovery (ftmpi_agree.c, ftmpi_recover.c) --------------------------- */

/* A replacement's MPI_Init returns MPI_INIT_RESTARTED_NODE. */
int MPIR_FTMPI_restarted_node(void);

/* MANUAL mode: MPI_Comm_dup(MPI_COMM_WORLD, newcomm) recovers when a
 * failure is pending, or is a no-op for *newcomm == FT_MPI_CHECK_RECOVER.
 * Returns 1 when it took the call over (its result in *mpi_errno). */
struct MPIR_Comm;
int MPIR_FTMPI_comm_dup_hook(struct MPIR_Comm *comm_ptr, MPI_Comm * newcomm, int *mpi_errno);

/* AUTO mode: the error path of a call that saw a failure. Recovers, calls
 * MPI_COMM_WORLD's error handler, and returns 1 (the caller then returns
 * errcode without calling a handler); returns 0 when not applicable. */
int MPIR_FTMPI_auto_recover(const char *fcname, int errcode);

/* Hands the device the job's policy, read from its modes (mpid_ft.h);
 * MPI_Init, once the control variables are read and before MPID_Init. */
void MPIR_FTMPI_hand_down(void);

/* What recovery and the collectives need from the device (tracing
 * included): mpid_ft.h. */
#include "mpid_ft.h"

#endif /* FTMPI_RECOVERY_H_INCLUDED */
