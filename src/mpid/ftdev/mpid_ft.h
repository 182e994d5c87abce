/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: the device's fault-tolerance services to the layers above it.
 *
 * MPIR-level code (src/ftmpi/ulfm today) reaches the device only through
 * these functions and MPICH's own MPID_ ones (MPID_Comm_failure_ack, ...),
 * as MPIR code does: no MPIDI_FTDEV_ name is used above the device.
 * Processes are named by their process id (pid), their rank in the
 * MPI_COMM_WORLD the job started with.
 */

#ifndef MPID_FT_H_INCLUDED
#define MPID_FT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

struct MPIR_Comm;
struct MPIR_Group;

/* ---- control messages ---------------------------------------------------- */

/* Each protocol above the device has a channel; a message sent on it is
 * handed, in a progress call of the receiver, to the handler registered
 * for that channel there (the payload copy is aligned and only valid
 * during the call). Messages from a process known to have failed are
 * dropped; between two processes they arrive in order. */
typedef enum {
    MPID_FT_CHANNEL_RECOVERY = 0,       /* FT-MPI recovery agreement (src/ftmpi/recovery) */
    MPID_FT_CHANNEL_COMMIT,     /* ATOMIC collectives' commit (src/ftmpi/coll_atomic) */
    MPID_FT_CHANNEL_ULFM_AGREE, /* ULFM agreement (src/ftmpi/ulfm) */
    MPID_FT_NUM_CHANNELS
} MPID_FT_channel_t;

typedef void (*MPID_FT_handler_t) (int from_pid, const void *payload, size_t len);

/* Registers the handler of a channel (once, before MPI_Init: from a
 * constructor of the layer that owns the channel). */
void MPID_FT_register_handler(MPID_FT_channel_t channel, MPID_FT_handler_t handler);

/* Sends payload[len] to process `to` on `channel`; nothing is sent to a
 * process known to have failed. */
int MPID_FT_send(int to, MPID_FT_channel_t channel, const void *payload, size_t len);

/* Returns once every message sent on `channel` so far has left this
 * process (handed to a live peer's transport, or ended by its failure):
 * a protocol step whose sender may stop calling MPI right after (an
 * agreement's decider) cannot leave a message waiting in its own queue. */
int MPID_FT_flush(MPID_FT_channel_t channel);

/* ---- who failed ------------------------------------------------------------ */

typedef enum {
    MPID_FT_PROC_ALIVE,         /* not known to have failed */
    MPID_FT_PROC_FAILED,        /* failed; every process learns of it */
    MPID_FT_PROC_BLANK,         /* failed, and a BLANK world keeps its rank as a hole */
    MPID_FT_PROC_GONE           /* in or past MPI_Finalize */
} MPID_FT_proc_state_t;

/* The one record of who failed is the device's (the recovery layer keeps
 * only what FT-MPI shows the application: its attributes and which
 * failures a recovery handled). */
MPID_FT_proc_state_t MPID_FT_proc_state(int pid);
/* pid >= 0 and a blank of a BLANK world. */
int MPID_FT_proc_is_blank(int pid);

/* How many failures this process has learned of so far: a protocol
 * waiting on the failure-free path looks again at who failed only when
 * this changes. */
unsigned MPID_FT_failure_count(void);

/* A protocol above the device learned that process `pid` failed (an
 * agreement's coordinator left it out); the device records it as if it
 * had detected it. `how` is for messages and traces. */
void MPID_FT_failure_learned(int pid, const char *how);

/* The process id of rank `rank` of comm (of its remote group for an
 * intercommunicator). */
int MPID_FT_comm_pid(struct MPIR_Comm *comm, int rank);

/* ---- FT-MPI recovery (src/ftmpi/recovery) ------------------------------------ */

/* The current recovery epoch. */
uint32_t MPID_FT_epoch(void);
/* Moves the transport to a new epoch whose world lacks the processes in
 * `dead` (as blanks when `blank`). */
int MPID_FT_begin_epoch(uint32_t epoch, const uint8_t * dead, int blank);
/* REBUILD, after begin_epoch: replaces the processes in `dead`, with
 * `coordinator` (the process that decided the agreement) launching them.
 * Sets *again when the coordinator failed before the rebuild completed:
 * the survivors then agree again. */
int MPID_FT_rebuild_world(uint32_t epoch, const uint8_t * dead, int coordinator, int *again);
/* The MPI_COMM_WORLD rank of process `pid` in the current world. */
int MPID_FT_world_rank_of_pid(int pid);
/* The first communicator of the device's registry (all but MPI_COMM_WORLD
 * and MPI_COMM_SELF) other than skip1 and skip2, or NULL. */
struct MPIR_Comm *MPID_FT_next_user_comm(struct MPIR_Comm *skip1, struct MPIR_Comm *skip2);
/* Destroys every window (their handles then give MPI_ERR_WIN). */
void MPID_FT_destroy_windows(void);

/* ---- collectives under failure (src/ftmpi/coll_atomic) ------------------------- */

/* The process id of rank `rank` of comm's local group, -1 when it is not
 * a process of this job's world; the collective layer's state in comm. */
int MPID_FT_comm_local_pid(struct MPIR_Comm *comm, int rank);
struct MPIR_FTMPI_coll_comm;
struct MPIR_FTMPI_coll_comm *MPID_FT_comm_coll(struct MPIR_Comm *comm);

/* ---- ULFM state the device keeps per communicator --------------------------- */

/* The sequence number of the next agreement over comm (1, 2, ...; every
 * member calls them in the same order). */
uint32_t MPID_FT_comm_next_agreement(struct MPIR_Comm *comm);

/* MPIX_Comm_get_failed: the members of comm known to have failed, in the
 * order their failures were learned. */
int MPID_Comm_get_failed(struct MPIR_Comm *comm, struct MPIR_Group **failed);

/* MPIX_Comm_ack_failed: acknowledges the first num_to_ack of those (all
 * of them when there are fewer); *num_acked is how many are acknowledged. */
int MPID_Comm_ack_failed(struct MPIR_Comm *comm, int num_to_ack, int *num_acked);

/* Whether rank `rank` of comm is among its acknowledged failures. */
int MPID_FT_comm_acked(struct MPIR_Comm *comm, int rank);

/* The device keeps the context id of a freed communicator that ran a
 * protocol or outlived a failure for a while, so that whatever arrives
 * naming it is known to be about that communicator (DESIGN 7.4). When it
 * gives one back to MPICH, it calls the function registered here (from a
 * constructor of the layer above), which forgets its records of it. */
typedef void (*MPID_FT_context_released_t) (uint32_t context_id);
void MPID_FT_on_context_released(MPID_FT_context_released_t cb);

#endif /* MPID_FT_H_INCLUDED */
