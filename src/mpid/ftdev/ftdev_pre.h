/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Types that ch4 embeds in its own objects (requests, communicators,
 * datatypes, address entries). Pulled in through netmodpre.h before most of
 * MPICH is declared, so only plain types live here.
 */

#ifndef FTDEV_PRE_H_INCLUDED
#define FTDEV_PRE_H_INCLUDED

#include <ucp/api/ucp.h>

/* Context UCX allocates in front of every ucp request it hands us
 * (ucp_params.request_size). req is cleared when the MPI request has been
 * completed by someone else (a failed peer) before UCX finished with it. */
typedef struct {
    struct MPIR_Request *req;
    void *buf;                  /* an eager active-message buffer to free on completion */
} MPIDI_FTDEV_ucp_request_t;

/* Point-to-point request. Requests UCX still owns are linked into the list of
 * the peer they involve (or the wildcard list), so that a failure can complete
 * them without waiting for UCX. */
typedef struct {
    union {
        MPIDI_FTDEV_ucp_request_t *ucp_request;
        ucp_tag_message_h message;      /* MPROBE: the matched message */
    } u;
    struct MPIR_Request *next;
    struct MPIR_Request *prev;
    struct MPIR_Request **list;         /* the list it is in, NULL when untracked */
    int pid;                            /* MPROBE: the sender's process id */
    struct MPIR_Comm *coll_comm;        /* communicator of collective traffic, else NULL */
    int fail_err;               /* complete with this error when UCX is done */
    uint8_t orphaned;           /* completed by ftdev; UCX's callback only frees it */
    uint8_t blocking;           /* started by a blocking call (MPID_starting_blocking_op) */
} MPIDI_FTDEV_request_t;

typedef struct {
    int handler_id;
    void *pack_buffer;
} MPIDI_FTDEV_am_request_t;

typedef struct {
    ucp_datatype_t ucp_datatype;        /* generic type for non-contiguous data */
    int has_ucp_datatype;
} MPIDI_FTDEV_dt_t;

/* Address table entry: one per process of an address table. pid indexes
 * this process's per-process tables (the MPI_COMM_WORLD rank for a process
 * of its own world); tag_pid is the id the process's messages carry, unique
 * among the worlds that spawn or connect (the world's first id plus the
 * rank). */
typedef struct {
    ucp_ep_h ep;
    int pid;
    int tag_pid;
} MPIDI_FTDEV_addr_t;

/* Translation of a sender's process id back to its rank in a communicator.
 * Identity-like maps (rank = pid - offset) need no table; others keep the
 * pairs sorted by pid for a binary search. */
typedef struct {
    int offset;
    int n;
    int *pid;                   /* NULL: rank = pid - offset */
    int *rank;
    /* every communicator but MPI_COMM_WORLD and MPI_COMM_SELF, for the
     * recovery that destroys them */
    struct MPIR_Comm *next;
    struct MPIR_Comm *prev;
    /* the collective layer's state (MPID_FT_comm_coll_slot) */
    void *coll;
    /* ULFM: failures of members acknowledged (MPIX_Comm_ack_failed), and
     * the last agreement's sequence number */
    int num_acked;
    uint32_t agreements;
    /* set by the free hook: the device keeps the context id (ftdev_comm.c) */
    int holds_context;
    /* MPIDI_FTDEV_comm_failed_member's answer, good while the global
     * failures.generation is failed_member_generation */
    int failed_member;
    unsigned long failed_member_generation;
} MPIDI_FTDEV_comm_t;

/* MPIR_Comm_delete_internal leaves comm's context id to the device when
 * this holds (comm-device-holds-context-id.patch). */
int MPIDI_FTDEV_comm_holds_context_id(struct MPIR_Comm *comm);
#define MPID_COMM_HOLDS_CONTEXT_ID(comm_) MPIDI_FTDEV_comm_holds_context_id(comm_)

typedef struct {
    int dummy;
} MPIDI_FTDEV_op_t;

/* every window, for the recovery that destroys them */
typedef struct {
    struct MPIR_Win *next;
    struct MPIR_Win *prev;
} MPIDI_FTDEV_win_t;

typedef struct {
    int dummy;
} MPIDI_FTDEV_part_t;

#endif /* FTDEV_PRE_H_INCLUDED */
