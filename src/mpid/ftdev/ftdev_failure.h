/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Failures: entry points of ftdev_failure.c and the checks every
 * communication call makes. Until some process has failed a check costs
 * one load and a not-taken branch.
 */

#ifndef FTDEV_FAILURE_H_INCLUDED
#define FTDEV_FAILURE_H_INCLUDED

#include "ftdev_upcalls.h"

/* The entry point every failure source calls: process `pid` failed, as
 * learned `how` (for messages). Layers above reach it through
 * MPID_FT_failure_learned. */
void MPIDI_FTDEV_peer_failed(int pid, const char *how);
/* The one record of a failure, which peer_failed keeps and a replacement
 * joining uses for those dead before it came: the process's state, the
 * failure log, the count of refusal causes, and the layers above told. */
void MPIDI_FTDEV_record_failure(int pid, const char *how);
/* This process was declared failed by the others: it says so and ends. */
void MPIDI_FTDEV_fence(const char *how) __attribute__ ((noreturn));
/* Called with each failed process id after the failure was recorded. */
typedef void (*MPIDI_FTDEV_failure_observer_t) (int pid);
void MPIDI_FTDEV_observe_failures(MPIDI_FTDEV_failure_observer_t observer);
/* Closes the endpoints whose close UCX's progress deferred; returns how
 * many are left (closed at a later progress call). */
int MPIDI_FTDEV_close_deferred_eps(void);
/* ftdev_endpoint.c: declares failed the peers whose connection UCX
 * reported broken, once what already arrived was taken (outside UCX's
 * progress only). */
void MPIDI_FTDEV_declare_broken_connections(void);
/* The error of an operation on a revoked communicator. */
int MPIDI_FTDEV_revoked_error(void);
/* The error of an operation with a failed process of another world
 * (MPIX_ERR_PROC_FAILED: not this world's failure, which the layers name) */
int MPIDI_FTDEV_foreign_failure_error(void);
/* Before a failure learned from outside UCX: what already arrived is
 * taken first (a message or acknowledgement the dead process sent before
 * it died must not be lost to a notice that overtook it). */
void MPIDI_FTDEV_take_what_arrived(void);
/* Drops `pid` from the log of failures (a replacement took it over). */
void MPIDI_FTDEV_forget_failure(int pid);

/* News that completes no request (a failure, a revocation) must still end
 * a wait that checks for it between progress calls (MPICH's wildcard
 * rule): counted as progress. ftdev runs one VCI. */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_wake_waits(void)
{
    int count = MPL_atomic_relaxed_load_int(&MPIDI_VCI(0).progress_count);
    MPL_atomic_relaxed_store_int(&MPIDI_VCI(0).progress_count, count + 1);
}

/* Recovery destroyed communicators: their pending receives end with an
 * error (CONT keeps the application's requests past a failure). */
void MPIDI_FTDEV_fail_requests_of_destroyed_comms(void);
/* Fails the tracked requests of comm with err (a revocation). */
void MPIDI_FTDEV_fail_requests_of_comm(MPIR_Comm * comm, int err);

/* Whether a message with this context offset and tag is a collective's
 * that a failure of any member of its communicator cuts short, even
 * between live processes: a member that learned of the failure first has
 * left the collective, and its partners would wait forever for its next
 * step. A group collective's (MPI_Comm_create_group and
 * MPI_Intercomm_create: MPICH tags them with MPIR_TAG_COLL_BIT) involves
 * only its group, so it is cut short only by the failure of a peer it
 * talks to; otherwise a group that left the dead out could end with its
 * new communicator on some members and an error on others. The halting
 * modes (FT-MPI) stop all collective traffic at a failure alike. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_comm_wide_traffic(int context_offset, int tag)
{
    return context_offset == MPIR_CONTEXT_INTRA_COLL /* == MPIR_CONTEXT_INTER_COLL */ &&
        (tag < 0 || !(tag & MPIR_TAG_COLL_BIT) || MPIDI_FTDEV_global.upper.policy.halts_on_failure);
}

/* The error an operation gets after a failure, or MPI_SUCCESS: with av
 * the peer of a point-to-point operation (NULL: any source) over comm
 * (NULL when unknown); comm_wide: the message is a collective's that any
 * member's failure cuts short (MPIDI_FTDEV_comm_wide_traffic). */
int MPIDI_FTDEV_refuse_pt2pt(MPIDI_av_entry_t * av, MPIR_Comm * comm, int comm_wide);
/* refuse_pt2pt for a receive of (ucp_tag, mask): a message that a process
 * of another world sent before it finalized and left is still received. */
int MPIDI_FTDEV_refuse_recv(MPIDI_av_entry_t * av, MPIR_Comm * comm, int comm_wide,
                            ucp_tag_t ucp_tag, ucp_tag_t mask);
int MPIDI_FTDEV_refuse_coll(MPIR_Comm * comm);

/* A failed process id among comm's (or its carried comm's) members, blanks aside, or -1. */
int MPIDI_FTDEV_comm_failed_member(MPIR_Comm * comm);

/* refuse_pt2pt's answer for a peer that is a blank of a BLANK world: the
 * operation behaves as with MPI_PROC_NULL. Error codes are positive. */
#define MPIDI_FTDEV_BLANK_PEER (-1)

#define MPIDI_FTDEV_REFUSE_IF_FAILED(check_)                    \
    do {                                                        \
        if (unlikely(MPIDI_FTDEV_global.failures.num_refusal_causes)) {          \
            int refused_ = (check_);                            \
            if (refused_ == MPIDI_FTDEV_BLANK_PEER)             \
                refused_ = MPIDI_FTDEV_failure_error(-1);       \
            if (refused_ != MPI_SUCCESS)                        \
                return refused_;                                \
        }                                                       \
    } while (0)

/* Refusing a nonblocking operation still hands back a request (MPICH's
 * bindings publish it before they look at the error): an inert, complete
 * one. With a blank peer the operation completes at once, successfully,
 * with `blank_request_` (a receive's status is then that of
 * MPI_PROC_NULL). */
#define MPIDI_FTDEV_GATE_REQUEST(check_, request_, kind_, blank_request_) \
    do {                                                                \
        if (unlikely(MPIDI_FTDEV_global.failures.num_refusal_causes)) {                  \
            int refused_ = (check_);                                    \
            if (refused_ == MPIDI_FTDEV_BLANK_PEER) {                   \
                *(request_) = (blank_request_);                         \
                return MPI_SUCCESS;                                     \
            }                                                           \
            if (refused_ != MPI_SUCCESS) {                              \
                *(request_) = MPIR_Request_create_complete(kind_);      \
                return refused_;                                        \
            }                                                           \
        }                                                               \
    } while (0)

/* A collective refused at its entry; under ULFM it first reads what
 * arrived, so that a program that calls it again and again until it is
 * revoked hears the revocation. */
int MPIDI_FTDEV_refuse_coll_at_entry(MPIR_Comm * comm);

/* Called by MPICH before any collective and communicator creation
 * (mpich-patches/coll-device-entry-hook.patch). */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_coll_entry(MPIR_Comm * comm)
{
    MPIDI_FTDEV_REFUSE_IF_FAILED(MPIDI_FTDEV_refuse_coll_at_entry(comm));
    return MPI_SUCCESS;
}

#define MPID_COLL_ENTRY_HOOK(comm_) MPIDI_FTDEV_coll_entry(comm_)

#endif /* FTDEV_FAILURE_H_INCLUDED */
