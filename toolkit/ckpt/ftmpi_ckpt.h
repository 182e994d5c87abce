/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH checkpoint helper: diskless checkpoints in a buddy's memory.
 *
 *     #include <ftmpi_ckpt.h>        mpicc app.c -lftmpi_ckpt
 *
 * A process registers the buffers that make up its state. FTMPI_Ckpt_take
 * (collective) copies them into library memory and sends the copy to the
 * next live process of the communicator (its buddy), which keeps it; each
 * process thus holds its own state and its predecessor's. After a
 * recovery, FTMPI_Ckpt_restore (collective over the recovered
 * communicator) brings every process back to the last checkpoint that all
 * of them completed:
 *
 *  - a survivor gets its own state back in its registered buffers;
 *  - REBUILD: a replacement (a process without checkpoints whose rank is
 *    that of a dead process) gets the dead process's state from the dead
 *    process's buddy, in its registered buffers;
 *  - SHRINK and BLANK: the buddy of a dead process adopts its state: the
 *    buffers are readable with FTMPI_Ckpt_adopted_buffer, for the
 *    application to take the work over.
 *
 * A state is lost when a process and its buddy die before a checkpoint
 * taken after the first of the two deaths (REBUILD: before the restore
 * that follows it has completed, since a replacement gets its
 * predecessor's copy in that restore): FTMPI_Ckpt_restore then returns
 * FTMPI_CKPT_ERR_LOST on every process. Take a checkpoint soon after a
 * restore (after merging adopted states) so that every state is held
 * twice again.
 *
 * Rules:
 *  - take and restore are collective over the communicator passed; every
 *    live process calls them. The library sends on that communicator with
 *    tags FTMPI_CKPT_TAG_FIRST..FTMPI_CKPT_TAG_LAST, which the application
 *    must not use on it.
 *  - The number and sizes of the registered buffers are those of the last
 *    checkpoint when restore is called (a replacement registers what the
 *    dead process had). A state that grows keeps fixed-capacity buffers,
 *    or re-registers and takes a checkpoint before it goes on.
 *  - An MPI error inside take or restore is returned as is (a failure:
 *    recover, then call FTMPI_Ckpt_restore). Neither call changes what
 *    the library holds before its last communication has succeeded, so
 *    an error handler may longjmp out of them. When it fails at some
 *    processes only, those that completed a take keep the checkpoint
 *    before it as well; a restore then takes every process back to the
 *    one all have.
 *  - A state received from another process that does not match its own
 *    header (the number of buffers, their sizes, its length) is refused:
 *    a take keeps no copy of it (a restore that needs that copy returns
 *    FTMPI_CKPT_ERR_LOST), a restore returns FTMPI_CKPT_ERR_CORRUPT on
 *    every process.
 *  - Memory: three copies of the own state and of the buddy's (the last
 *    checkpoint, the one before, one being taken).
 *
 * With MPIR_CVAR_FTMPI_TRACE_FILE set, takes and restores are written to
 * the process's trace (see ftmpi-timeline).
 */

#ifndef FTMPI_CKPT_H_INCLUDED
#define FTMPI_CKPT_H_INCLUDED

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return values: FTMPI_CKPT_SUCCESS (MPI_SUCCESS), an MPI error code, or
 * one of these (negative, never an MPI code). */
#define FTMPI_CKPT_SUCCESS      0
#define FTMPI_CKPT_ERR_LOST    -1       /* a dead process's state has no surviving copy */
#define FTMPI_CKPT_ERR_NONE    -2       /* no checkpoint that every survivor completed:
                                         * start from the beginning */
#define FTMPI_CKPT_ERR_SIZE    -3       /* registered buffers differ from the checkpoint's */
#define FTMPI_CKPT_ERR_ARG     -4       /* a bad argument */
#define FTMPI_CKPT_ERR_NOMEM   -5       /* out of memory */
#define FTMPI_CKPT_ERR_STRANGER -6      /* a process without checkpoints that replaces no dead one */
#define FTMPI_CKPT_ERR_CORRUPT -7       /* a checkpoint received does not match its own header */

#define FTMPI_CKPT_TAG_FIRST   32000
#define FTMPI_CKPT_TAG_LAST    32007

typedef struct FTMPI_Ckpt_s *FTMPI_Ckpt;

/* A checkpoint object with no buffers registered. */
int FTMPI_Ckpt_create(FTMPI_Ckpt * ckpt);
/* Frees it and sets *ckpt to NULL. */
int FTMPI_Ckpt_free(FTMPI_Ckpt * ckpt);

/* Adds a buffer to the state (the order of registration is the order in
 * the checkpoint). */
int FTMPI_Ckpt_register(FTMPI_Ckpt ckpt, void *buf, size_t bytes);
/* Forgets every registered buffer (checkpoints already taken stay). */
int FTMPI_Ckpt_unregister_all(FTMPI_Ckpt ckpt);

/* Collective: checkpoints the registered buffers, labelled with the
 * application's `step` (an iteration number, say), which restore returns. */
int FTMPI_Ckpt_take(FTMPI_Ckpt ckpt, MPI_Comm comm, long step);

/* Collective, after a recovery: restores the last checkpoint that every
 * process completed (see above) and returns its step. */
int FTMPI_Ckpt_restore(FTMPI_Ckpt ckpt, MPI_Comm comm, long *step);

/* After a restore: how many dead processes' states this process adopted
 * (SHRINK, BLANK), and buffer `b` of adopted state `i` (library memory,
 * valid until the next restore or free), with the rank the dead process
 * had at the checkpoint. */
int FTMPI_Ckpt_adopted(FTMPI_Ckpt ckpt, int *count);
int FTMPI_Ckpt_adopted_buffer(FTMPI_Ckpt ckpt, int i, int b, void **buf, size_t * bytes,
                              int *old_rank);

/* A one-line description of a return value of this library (MPI codes:
 * MPI_Error_string). */
const char *FTMPI_Ckpt_error_string(int code);

#ifdef __cplusplus
}
#endif
#endif /* FTMPI_CKPT_H_INCLUDED */
