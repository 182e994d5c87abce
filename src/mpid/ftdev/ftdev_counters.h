/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Protocol counters (ftdev_counters.c): per fault-tolerance protocol, the
 * messages and bytes this process sent and received, and its rounds: the
 * length of the longest chain of that protocol's messages that ended here
 * (each message carries its sender's chain length plus one). Read through
 * MPI_T performance variables and, at MPI_Finalize, through the trace.
 */

#ifndef FTDEV_COUNTERS_H_INCLUDED
#define FTDEV_COUNTERS_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MPIDI_FTDEV_PROTO_NOTIFY = 0,       /* failure notices (the binomial flood) */
    MPIDI_FTDEV_PROTO_FINALIZE, /* finalize notices */
    MPIDI_FTDEV_PROTO_REBUILD,  /* REBUILD: coordinator and replacements */
    MPIDI_FTDEV_PROTO_RECOVERY, /* FT-MPI recovery agreement */
    MPIDI_FTDEV_PROTO_COMMIT,   /* ATOMIC collectives' commit */
    MPIDI_FTDEV_PROTO_AGREE,    /* ULFM agreement (agree and shrink) */
    MPIDI_FTDEV_PROTO_REVOKE,   /* ULFM revocation */
    MPIDI_FTDEV_PROTO_ECHO,     /* the receive check (echo and reply) */
    MPIDI_FTDEV_PROTO_HEARTBEAT,        /* heartbeat datagrams */
    MPIDI_FTDEV_NUM_PROTOS
} MPIDI_FTDEV_proto_t;

/* The protocol a control message of `type` (MPIDI_FTDEV_CTRL_*) about
 * `about` belongs to. */
MPIDI_FTDEV_proto_t MPIDI_FTDEV_proto_of(int type, int about);

/* Counts a message this process sends; returns the chain length it
 * carries. */
uint32_t MPIDI_FTDEV_count_sent(MPIDI_FTDEV_proto_t proto, size_t bytes);

/* Counts a message that arrived carrying chain length `hops` (0 when the
 * protocol carries none). */
void MPIDI_FTDEV_count_received(MPIDI_FTDEV_proto_t proto, size_t bytes, uint32_t hops);

/* Where a message dropped on receipt came from (ftdev_msgs_rejected);
 * CONNECTION: a connection to UCX's TCP listener that never spoke,
 * closed (ftdev_listener_guard.h). */
typedef enum {
    MPIDI_FTDEV_REJECT_HEARTBEAT = 0,
    MPIDI_FTDEV_REJECT_CONTROL,
    MPIDI_FTDEV_REJECT_CONNECTION,
    MPIDI_FTDEV_NUM_REJECTS
} MPIDI_FTDEV_reject_t;

/* Counts a message dropped on receipt and reports what was dropped (the
 * format's text): a heartbeat datagram as a trace line "heartbeat:
 * dropped ...", a silent connection as one "connection guard: dropped
 * ...", a control message as a line "FT-MPICH: rank R: dropped ..." on
 * stderr. The first 10 of each kind are reported, then at most
 * one a second, saying how many went unreported since, so that a flood
 * from outside cannot make a trace or stderr grow without bound; each
 * kind is counted from one thread (heartbeat and connections: the
 * heartbeat thread; control: progress). */
void MPIDI_FTDEV_reject(MPIDI_FTDEV_reject_t where, const char *fmt, ...)
    __attribute__ ((format(printf, 2, 3)));

/* Registers the MPI_T performance variables (during MPI_Init). */
void MPIDI_FTDEV_counters_register(void);

/* One trace line per protocol that sent or received anything. */
void MPIDI_FTDEV_counters_trace(void);

#endif /* FTDEV_COUNTERS_H_INCLUDED */
