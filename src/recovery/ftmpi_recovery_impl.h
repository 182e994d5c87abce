/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the recovery layer's own files share: the FT-MPI state machine,
 * the intake of failures, and the survivors' agreement. Nothing outside
 * src/recovery includes it.
 */

#ifndef FTMPI_RECOVERY_IMPL_H_INCLUDED
#define FTMPI_RECOVERY_IMPL_H_INCLUDED

#include "ftmpi_recovery.h"

/* ---- modes (ftmpi_modes.c) ---------------------------------------------- */

/* Reads FTMPI_RECOVERY_MODE, FTMPI_COMM_MODE, FTMPI_MSG_MODE and
 * FTMPI_COLL_MODE into MPIR_FTMPI_modes. A bad value leaves a one-line
 * message naming the variable, its value and the allowed values in msg
 * and returns nonzero. */
int MPIR_FTMPI_read_modes(char *msg, size_t len);

/* Compares the modes of process `pid` with this process's; on a
 * difference writes a one-line message naming the variable and returns
 * nonzero. */
int MPIR_FTMPI_compare_modes(const MPIR_FTMPI_modes_t * theirs, int pid, char *msg, size_t len);

/* ---- failures (ftmpi_failure.c) --------------------------------------- */

/* The process's FT-MPI state. */
typedef enum {
    MPIR_FTMPI_NO_FAILURES,     /* every failure known was handled by a recovery */
    MPIR_FTMPI_FAILURE_RECOGNIZED,      /* a failure no recovery handled yet */
    MPIR_FTMPI_RECOVERING       /* in a recovery (ftmpi_recover.c) */
} MPIR_FTMPI_state_t;

/* The one place the state changes; each change is traced with `why`. */
void MPIR_FTMPI_set_state(MPIR_FTMPI_state_t to, const char *why);
MPIR_FTMPI_state_t MPIR_FTMPI_state(void);

/* The device learned that process `pid` failed (each pid once; its
 * `failed` event). Ends the job in ABORT mode; otherwise moves this
 * process to FAILURE_RECOGNIZED. `how` says how it was learned. */
void MPIR_FTMPI_record_failure(int pid, const char *how);

/* FTMPI_NUM_FAILED_PROCS and FTMPI_ERROR_FAILURE now describe these
 * MPI_COMM_WORLD ranks. */
void MPIR_FTMPI_set_last_failures(const int *ranks, int n);

/* ---- recovery (ftmpi_agree.c, ftmpi_recover.c) --------------------------- */

/* Runs the survivors' agreement; returns the new epoch, the dead set of
 * the new world and that of the world the highest-epoch survivor was in
 * before (bitmaps of process ids; valid until the next agreement). */
int MPIR_FTMPI_agree(uint32_t * epoch, const uint8_t ** dead, const uint8_t ** prev,
                     int *decider);

/* REBUILD: the processes the last agreement found dead were replaced; the
 * world of this epoch has no dead. */
void MPIR_FTMPI_agree_world_rebuilt(void);

/* A replacement starts its agreements in the world it joined at `epoch`. */
void MPIR_FTMPI_agree_start_at(uint32_t epoch);

/* A replacement joined the world at `epoch`, with the processes `replaced`
 * (itself included) new in it. MPI_Init then returns
 * MPI_INIT_RESTARTED_NODE (MPIR_FTMPI_restarted_node). */
void MPIR_FTMPI_joined(uint32_t epoch, const int *replaced, int n);

#endif /* FTMPI_RECOVERY_IMPL_H_INCLUDED */
