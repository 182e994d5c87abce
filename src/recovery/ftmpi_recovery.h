/*
 * FT-MPICH: the FT-MPI state machine (recovery layer).
 *
 * What the transport (ftdev) and MPICH's patched core ask of the recovery
 * layer. Processes are named by their process id (pid): the original
 * MPI_COMM_WORLD rank, which the transport carries in every message.
 */

#ifndef FTMPI_RECOVERY_H_INCLUDED
#define FTMPI_RECOVERY_H_INCLUDED

#include <stddef.h>

/* ---- modes (ftmpi_modes.c) ---------------------------------------------- */

/* The job's fault-tolerance modes, as FTMPI_*_MODE_* values of mpi.h. */
typedef struct {
    int recovery;
    int comm;
    int msg;
    int coll;
} MPIR_FTMPI_modes_t;

extern MPIR_FTMPI_modes_t MPIR_FTMPI_modes;

/* Reads FTMPI_RECOVERY_MODE, FTMPI_COMM_MODE, FTMPI_MSG_MODE and
 * FTMPI_COLL_MODE into MPIR_FTMPI_modes. A bad value leaves a one-line
 * message naming the variable, its value and the allowed values in msg
 * and returns nonzero. */
int MPIR_FTMPI_read_modes(char *msg, size_t len);

/* Compares the modes of process `pid` with this process's; on a
 * difference writes a one-line message naming the variable and returns
 * nonzero. */
int MPIR_FTMPI_compare_modes(const MPIR_FTMPI_modes_t * theirs, int pid, char *msg, size_t len);

/* Ends this process during MPI_Init, the same way on every process of a
 * job whose configuration is refused: prints msg (when not NULL) as one
 * line, leaves PMI cleanly so that the launcher does not kill anyone, and
 * exits with status 1. */
void MPIR_FTMPI_exit_at_init(const char *msg);

/* The job ends when a process fails (COMM_MODE=abort, unless
 * RECOVERY_MODE=ignore). */
int MPIR_FTMPI_aborts_on_failure(void);

/* After a failure every communication call fails until recovery
 * (RECOVERY_MODE auto or manual); otherwise (ignore) only operations
 * that involve a failed process do. */
int MPIR_FTMPI_halts_on_failure(void);

/* ---- failures (ftmpi_failure.c) --------------------------------------- */

/* The transport learned that process `pid` failed (each pid once). Ends
 * the job in ABORT mode; otherwise records it and moves this process to
 * FAILURE_RECOGNIZED. `how` says how it was learned, for messages. */
void MPIR_FTMPI_record_failure(int pid, const char *how);

/* This process has recognized a failure that no recovery has handled. */
int MPIR_FTMPI_failure_pending(void);

/* An error code of class MPI_ERR_OTHER for an operation refused or ended
 * by a failure: naming `pid` when the operation involves it, else (pid
 * < 0) saying that a failure awaits recovery. */
int MPIR_FTMPI_failure_error(int pid);

/* Value of an FTMPI_* predefined attribute (keyval without the Fortran
 * bit); returns 0 for a keyval that is not one of them. */
int MPIR_FTMPI_get_attr(int keyval, int *value);

/* MPI_Error_string of an FTMPI_ERROR_FAILURE code: writes the failed
 * ranks and returns 1; returns 0 for any other code. */
int MPIR_FTMPI_error_string(int code, char *msg, int len);

#endif /* FTMPI_RECOVERY_H_INCLUDED */
