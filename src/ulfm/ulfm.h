/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The interface of ULFM (User-Level Failure Mitigation, on the device's
 * fault-tolerance services of mpid_ft.h): what MPICH's patched MPIR code
 * calls (comm-ulfm-agree-shrink.patch) and what the MPIX_ functions MPICH
 * 4.0.2 lacks are built on.
 */

#ifndef ULFM_H_INCLUDED
#define ULFM_H_INCLUDED

#include <stdint.h>

struct MPIR_Comm;

/* What an agreement decided besides the flag: whether the call raises
 * MPIX_ERR_PROC_FAILED, and the ranks that did not take part (a set of
 * bits, valid until the next agreement over the communicator). */
typedef struct {
    int raise;
    const uint8_t *absent;      /* of an intercommunicator: both groups, the low one's first */
    uint32_t seq;               /* the agreement's number over the communicator */
    int32_t group_and[2];       /* intercommunicator: the AND of each group's flags, low group
                                 * first (the flag returned is the other group's) */
    int own_group;
    const uint32_t *and_mask;   /* the AND of the bitmaps, as long as `absent` */
} MPIR_ULFM_outcome_t;

/* An agreement under way (ulfm_agree.c). */
typedef struct {
    struct MPIR_Comm *comm;
    uint32_t context_id;
    uint32_t seq;
    int and_words;
    int mpi_errno;              /* this process's own error (a message it could not
                                 * send: no memory), which ended the agreement */
} MPIR_ULFM_agreement_t;

/* Fault-tolerant agreement among comm's surviving members on the AND of
 * their *flag (ulfm_agree.c); and its nonblocking form
 * (ulfm_nonblocking.c), whose request completes in progress with *flag
 * set and, when the agreement raises, MPIX_ERR_PROC_FAILED in its status. */
struct MPIR_Request;
int MPIR_ULFM_agree(struct MPIR_Comm *comm, int *flag, MPIR_ULFM_outcome_t * outcome);
int MPIR_ULFM_iagree(struct MPIR_Comm *comm, int *flag, struct MPIR_Request **request);
/* One agreement in steps, also ANDing a bitmap of and_words 32-bit words
 * (every member passes the same length): enter it; then each step moves
 * it on with what progress delivered and returns 1 once it decided, with
 * the outcome in *flag and *outcome, or once ag->mpi_errno ended it. */
int MPIR_ULFM_agree_start(struct MPIR_Comm *comm, int flag, const uint32_t * and_mask,
                          int and_words, MPIR_ULFM_agreement_t * ag);
int MPIR_ULFM_agree_step(MPIR_ULFM_agreement_t * ag, int *flag, MPIR_ULFM_outcome_t * outcome);

/* An agreement over an intercommunicator numbers the members of both
 * groups, the low group's first, alike on both sides: the number of the
 * first member of comm's local group (remote = 0) or of its remote group
 * (0 for an intracommunicator's own group). */
int MPIR_ULFM_first_member(struct MPIR_Comm *comm, int remote);

/* The device gave a freed communicator's context id back to MPICH (its
 * context_released event): the records of that communicator's agreements
 * go. */
void MPIR_ULFM_context_released(uint32_t context_id);

/* What MPICH's core asks ULFM by name (ulfm_hooks.c): the MPIX_FT
 * attribute (1 and *value set when keyval is MPIX_FT) and the text of an
 * MPIX_ERR_* class (1 when code is one). */
int MPIR_ULFM_get_attr(int keyval, int *value);
int MPIR_ULFM_error_string(int code, char *msg, int len);

/* MPIX_Comm_agree and MPIX_Comm_shrink (ulfm_comm.c). */
int MPIR_ULFM_comm_agree(struct MPIR_Comm *comm, int *flag);
int MPIR_ULFM_comm_shrink(struct MPIR_Comm *comm, struct MPIR_Comm **newcomm);
/* MPIX_Comm_ishrink (ulfm_nonblocking.c): the request completes in
 * progress, with *newcomm set (MPI_COMM_NULL and the error in its status
 * on failure). */
int MPIR_ULFM_comm_ishrink(struct MPIR_Comm *comm, MPI_Comm * newcomm,
                           struct MPIR_Request **request);

#endif /* ULFM_H_INCLUDED */
