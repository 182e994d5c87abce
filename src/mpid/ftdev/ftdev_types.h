/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Global state and the layout of the 64-bit UCX tag; a process's state
 * (MPIDI_FTDEV_PEER_*) and how it is read and changed.
 */

#ifndef FTDEV_TYPES_H_INCLUDED
#define FTDEV_TYPES_H_INCLUDED

#include <ucp/api/ucp.h>
#include "mpiimpl.h"
#include "mpid_ft.h"
#include "ftdev_wire.h"

/* UCX tag layout, most significant bits first:
 *
 *   | context id (16) | epoch (8) | process id (P) | MPI tag (T) |
 *
 * The process id is the sender's original MPI_COMM_WORLD rank, which stays
 * stable when the world shrinks; receives translate rank to process id and
 * statuses translate back. The epoch (recovery generation) takes part in
 * matching, so messages of an older epoch never match a newer receive.
 * P + T = 40: the process id gets the bits the job's size needs, at least
 * MPIDI_FTDEV_MIN_PID_BITS, and the MPI tag the rest, at most 31 (an int).
 * The MPI tag field holds MPICH's two error bits and its collective bit at
 * the top, which leaves T - 3 bits for user tags: MPI_TAG_UB = 2^28 - 1 up
 * to 512 processes, halved per doubling beyond, 2^21 - 1 at 65536. */
#define MPIDI_FTDEV_PID_AND_TAG_BITS 40
#define MPIDI_FTDEV_MAX_TAG_BITS     31
#define MPIDI_FTDEV_MIN_PID_BITS     (MPIDI_FTDEV_PID_AND_TAG_BITS - MPIDI_FTDEV_MAX_TAG_BITS)
#define MPIDI_FTDEV_MAX_PID_BITS     16
#define MPIDI_FTDEV_EPOCH_BITS       8
#define MPIDI_FTDEV_CONTEXT_ID_BITS  16

#define MPIDI_FTDEV_EPOCH_SHIFT      MPIDI_FTDEV_PID_AND_TAG_BITS
#define MPIDI_FTDEV_CONTEXT_ID_SHIFT (MPIDI_FTDEV_EPOCH_SHIFT + MPIDI_FTDEV_EPOCH_BITS)
/* a context id's place in the UCX tag */
#define MPIDI_FTDEV_CONTEXT_FIELD(id_) ((uint64_t) (id_) << MPIDI_FTDEV_CONTEXT_ID_SHIFT)

#define MPIDI_FTDEV_FIELD_MASK(bits, shift) ((uint64_t) ((1ULL << (bits)) - 1) << (shift))
#define MPIDI_FTDEV_EPOCH_MASK MPIDI_FTDEV_FIELD_MASK(MPIDI_FTDEV_EPOCH_BITS, MPIDI_FTDEV_EPOCH_SHIFT)

#define MPIDI_FTDEV_MAX_PROCS (1 << MPIDI_FTDEV_MAX_PID_BITS)
_Static_assert(MPIDI_FTDEV_MAX_PROCS == MPID_FT_MAX_PROCS, "the job's process limit");

/* UCX active-message ids: MPICH's generic layer (RMA, partitioned
 * communication) and ftdev's own control traffic. */
#define MPIDI_FTDEV_AM_MPIDIG  0
#define MPIDI_FTDEV_AM_CONTROL 1

/* Largest active message ftdev sends in one piece (header and data). MPIDIG
 * splits anything larger into its own rendezvous. */
#define MPIDI_FTDEV_AM_MSG_MAX (16 * 1024)

typedef struct {
    uint16_t handler_id;
    uint16_t pad;
    uint32_t epoch;
    uint32_t am_hdr_sz;
    uint32_t data_sz;
} MPIDI_FTDEV_am_header_t;

/* The netmod's state, by concern. */
typedef struct {
    struct {
        ucp_context_h context;
        ucp_worker_h worker;
        ucp_address_t *address;
        size_t address_len;
        unsigned idle_polls;    /* consecutive progress calls that found nothing */
        unsigned long worker_events;    /* events UCX's progress has handled: messages
                                         * arrive only with some */
        int in_worker_progress; /* inside ucp_worker_progress: its callbacks cannot
                                 * enter it again */
        unsigned polls_before_yield;    /* 0: a waiting process never yields its core */
        int sends_in_flight;    /* point-to-point sends UCX has not finished */
    } ucx;

    struct {
        int my_pid;
        int num_pids;           /* this world's processes: pids 0 .. num_pids - 1 */
        /* Processes of other worlds (spawned, or met through connect/accept)
         * take pids num_pids .. num_pids + num_foreign - 1, at most
         * pid_capacity - num_pids of them (ftdev_spawn.c). */
        int num_foreign;
        int pid_capacity;       /* 2^P: every per-process table's length */
        int base;               /* tag pid of this world's rank 0 */
        int my_tag_pid;
        int tag_pid_next;       /* the lowest tag pid no world known here uses */
        int *pid_of_foreign_tag_pid;    /* per tag pid: the pid of a process of
                                         * another world, -1: none */
        MPIDI_av_entry_t **foreign_av;  /* per pid from num_pids on */
        uint64_t *foreign_world_id;     /* per pid from num_pids on: its world's id */
        uint64_t id;            /* names this world among those launched apart; 0: unknown */
    } world;

    struct {
        int bits;               /* T of the tag layout: the process id starts there */
        uint64_t mask;
        uint64_t pid_mask;
    } tag;

    struct {
        uint32_t current;       /* recovery epoch (generation); its low bits go in tags */
        uint64_t bits;          /* the epoch's field of the UCX tag */
        uint64_t unmatched_bits;        /* tag fields receives ignore: the epoch in CONT mode */
        uint64_t doomed_bits;   /* the epoch of the last failure, whose messages the
                                 * recovery from it drops */
        int stale_traffic;      /* messages nobody will receive may keep coming, see
                                 * MPIDI_FTDEV_drain_stale_traffic */
        unsigned long stale_drained_at_events;  /* worker_events at the last drain */
        unsigned long drained;  /* messages ever received into nothing (ftdev_drain.c) */
    } epoch;

    /* Per process id. */
    struct {
        /* requests UCX still owns, by the peer they involve; receives from
         * MPI_ANY_SOURCE are kept apart */
        struct MPIR_Request **reqs;
        struct MPIR_Request *wildcard_reqs;
        uint8_t *state;         /* MPIDI_FTDEV_PEER_* */
        uint8_t *finalizing;    /* it announced that it is in MPI_Finalize */
        MPIDI_FTDEV_hb_contact_t *hb;   /* its heartbeat contact */
    } peers;

    struct {
        int num_refusal_causes; /* failed processes and revoked communicators: while
                                 * nonzero every call makes the slow checks */
        unsigned long generation;       /* moves whenever a process's state changes, a
                                         * communicator is made, freed or revoked, or a
                                         * context id is held or given back: what is
                                         * worked out from those is kept until it moves */
        int *log;               /* the failed process ids in the order they were learned */
        int log_len;
        int learned;            /* every failure this process ever learned of, endpoint
                                 * errors included */
        int progress_checks;    /* progress has failure checks to make, see
                                 * MPIDI_FTDEV_progress_checks */
        struct MPIR_Win *rma_watch_win; /* the window of the RMA synchronization under way */
        int rma_watch_target;   /* its target rank, -1: the whole window */
    } failures;

    /* What the layers above handed down (mpid_ft.h). */
    struct {
        MPID_FT_handler_t channel_handler[MPID_FT_NUM_CHANNELS];
        MPID_FT_senders_t channel_senders[MPID_FT_NUM_CHANNELS];
        MPID_FT_policy_t policy;
        MPID_FT_events_t events;        /* what the device tells them */
        int coll_divert;        /* ATOMIC mode or blanks: collectives may be diverted */
    } upper;

    struct {
        uint32_t *early_revokes;        /* context ids revoked before their
                                         * communicator existed here */
        int num_early_revokes;
    } ulfm;

    /* REBUILD: every process's worker address, which the coordinator of a
     * rebuild hands to replacements; per process id, whether its current
     * process is a replacement (the launcher's list of dead processes
     * names only the processes it started first); whether this process is
     * one. */
    struct {
        void **peer_address;
        size_t *peer_address_len;
        uint8_t *replaced;
        int is_replacement;
    } rebuild;

    struct {
        struct MPIR_Comm *comms;        /* registry of communicators, see MPIDI_FTDEV_comm_t */
        struct MPIR_Win *wins;  /* registry of windows, see MPIDI_FTDEV_win_t */
    } objects;

    int finalizing;
} MPIDI_FTDEV_global_t;

enum {
    MPIDI_FTDEV_PEER_ALIVE = 0,
    MPIDI_FTDEV_PEER_FAILED,    /* died before MPI_Finalize */
    MPIDI_FTDEV_PEER_BLANK,     /* failed, and a BLANK world keeps its rank as a hole */
    MPIDI_FTDEV_PEER_GONE       /* left while this process was finalizing */
};

extern MPIDI_FTDEV_global_t MPIDI_FTDEV_global;

/* ---- a process's state (MPIDI_FTDEV_PEER_*) ------------------------------- */

/* Every change of a process's state goes through here (failures.generation). */
MPL_STATIC_INLINE_PREFIX void MPIDI_FTDEV_set_peer_state(int pid, int state)
{
    MPIDI_FTDEV_global.peers.state[pid] = state;
    MPIDI_FTDEV_global.failures.generation++;
}

/* Whether process `pid` failed and still counts as a member that is
 * missing: a BLANK world's hole takes no part, so it counts as neither
 * alive nor failed here. */
MPL_STATIC_INLINE_PREFIX int MPIDI_FTDEV_peer_is_failed(int pid)
{
    int state = MPIDI_FTDEV_global.peers.state[pid];
    return state != MPIDI_FTDEV_PEER_ALIVE && state != MPIDI_FTDEV_PEER_BLANK;
}

#endif /* FTDEV_TYPES_H_INCLUDED */
