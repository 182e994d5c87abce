/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ULFM state of the device (ftdev_ulfm.c): acknowledged failures, the
 * wildcard-receive rule, revocation. What ch4 forwards here
 * (ch4-ulfm-device-functions.patch) is declared in mpid_ft.h.
 */

#ifndef FTDEV_ULFM_H_INCLUDED
#define FTDEV_ULFM_H_INCLUDED

/* Called with each new communicator once its maps are built
 * (ftdev_comm.c): ULFM revokes at once one whose context id was revoked
 * before it existed here. */
typedef void (*MPIDI_FTDEV_comm_observer_t) (MPIR_Comm * comm);
void MPIDI_FTDEV_observe_new_comms(MPIDI_FTDEV_comm_observer_t observer);
/* Whether this process holds the context id of a freed communicator
 * (ftdev_comm.c): what names it is about that communicator. */
int MPIDI_FTDEV_context_is_held(uint32_t context_id);
/* MPID_COMM_HOLDS_CONTEXT_ID: whether the device keeps comm's context id
 * after the free (it gives it back to MPICH later itself). */
int MPIDI_FTDEV_comm_holds_context_id(MPIR_Comm * comm);
/* The context ids held, 0 <= i < MPIDI_FTDEV_num_held_contexts(): what
 * arrives for them is dropped (MPIDI_FTDEV_drain_stale). */
int MPIDI_FTDEV_num_held_contexts(void);
uint32_t MPIDI_FTDEV_held_context(int i);
/* Gives every held context id back (MPI_Finalize). */
void MPIDI_FTDEV_release_held_contexts(void);

#endif /* FTDEV_ULFM_H_INCLUDED */
