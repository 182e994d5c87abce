/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ftdev's messages as they travel, and the one place each is sealed and
 * opened: the heartbeat's datagrams and the control channel's messages
 * carry a MAC under a key derived from the job's (ftdev_key.c), and every
 * field a receiver will use is checked here before anything trusts it.
 * Pure functions over bytes, with no state of the device's: the fuzz
 * targets (test/fuzz) call them as the device does.
 */

#ifndef FTDEV_WIRE_H_INCLUDED
#define FTDEV_WIRE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "mpid_ft.h"

#define MPIDI_FTDEV_KEY_BYTES 32
#define MPIDI_FTDEV_MAC_KEY_BYTES 16
#define MPIDI_FTDEV_MAC_BYTES 16

/* Subkeys of the job's key (libsodium's crypto_kdf, context "FTMPICH1",
 * which Hydra shares: its proxies' proof is id 1). */
enum {
    MPIDI_FTDEV_SUBKEY_HEARTBEAT = 2,
    MPIDI_FTDEV_SUBKEY_CONTROL = 3
};

typedef struct {
    uint8_t heartbeat[MPIDI_FTDEV_MAC_KEY_BYTES];
    uint8_t control[MPIDI_FTDEV_MAC_KEY_BYTES];
} MPIDI_FTDEV_wire_keys_t;

/* Derives the subkeys from the job's key; nonzero if libsodium fails. */
int MPIDI_FTDEV_wire_derive(const uint8_t job_key[MPIDI_FTDEV_KEY_BYTES],
                            MPIDI_FTDEV_wire_keys_t * keys);

/* ---- the heartbeat's datagrams ------------------------------------------------ */

/* Where a process's heartbeat thread listens (ftdev_heartbeat.c), and
 * which operating-system process it is. */
typedef struct {
    uint32_t ip;                /* IPv4, network order; port 0: no heartbeat */
    uint16_t port;              /* network order */
    uint16_t pad;
    int32_t ospid;
    uint64_t pid_namespace;     /* inode of its /proc/self/ns/pid; 0: unknown */
} MPIDI_FTDEV_hb_contact_t;

enum { HB_BEAT = 1, HB_PROBE, HB_FAILED, HB_ECHO_ASK, HB_ECHO_STATE, HB_VERIFY, HB_VERDICT,
    HB_NUM_KINDS
};

#define HB_MAGIC 0x32544846     /* "FHT2" */

/* What a node sees of one of its processes (HB_VERDICT's `state`). */
typedef enum {
    PROC_UNSEEN = 0,            /* not on this node, or not in its pid namespace */
    PROC_ENDED,                 /* no such process any more, or a zombie */
    PROC_STOPPED,               /* stopped by a signal (SIGSTOP, SIGTSTP, ...) */
    PROC_TRACED,                /* held by a debugger (ptrace) */
    PROC_RUNNING,               /* running, runnable, sleeping or in I/O */
    PROC_NUM_CONDITIONS
} MPIDI_FTDEV_proc_condition_t;

typedef struct {
    uint32_t magic;
    uint32_t kind;
    int32_t from;               /* sender's process id */
    int32_t from_ospid;         /* the sender's operating-system process id */
    int32_t about;              /* HB_FAILED: the process declared failed; HB_ECHO_ASK: a
                                 * check number; HB_ECHO_STATE: the last check answered,
                                 * or minus one whose answer could not be written yet;
                                 * HB_VERIFY, HB_VERDICT: the suspect */
    int32_t state;              /* HB_VERDICT: its proc_condition_t */
    int32_t to;                 /* the recipient's process id */
    int32_t to_ospid;           /* and its operating-system process id, as the sender
                                 * knows it: a replacement takes nothing meant for the
                                 * process it replaces */
    uint64_t counter;           /* the sender's datagrams, counted from 1 */
    uint8_t mac[MPIDI_FTDEV_MAC_BYTES]; /* of everything above */
} MPIDI_FTDEV_hb_msg_t;

/* Which messages of one sender were seen: the highest counter and a bit
 * for each of the 64 below it (a replay, or a message older than that, is
 * dropped; messages may arrive out of order within the window). */
typedef struct {
    int64_t incarnation;        /* the sender these counters are of: its operating-system
                                 * process id (heartbeats), the epoch it joined in
                                 * (control messages) */
    uint64_t top;
    uint64_t seen;
} MPIDI_FTDEV_replay_window_t;

typedef enum {
    HB_OPENED = 0,
    HB_STALE,                   /* a genuine datagram of a process since replaced */
    HB_REJECTED                 /* wrong length, MAC, sender, kind or field; or a replay */
} MPIDI_FTDEV_hb_verdict_t;

/* Fills in the MAC of m (its other fields set). */
void MPIDI_FTDEV_hb_seal(MPIDI_FTDEV_hb_msg_t * m, const uint8_t key[MPIDI_FTDEV_MAC_KEY_BYTES]);

/* Opens a datagram of len bytes received on a heartbeat socket by process
 * my_pid (operating-system process id my_ospid). contacts[p] is process
 * p's heartbeat contact now (num_pids of them), whose ospid names the
 * process that may speak for p; windows[p] its replay window, advanced
 * when the datagram is opened. *why says what was wrong with a rejected
 * one. */
MPIDI_FTDEV_hb_verdict_t MPIDI_FTDEV_hb_open(const void *buf, size_t len,
                                             const uint8_t key[MPIDI_FTDEV_MAC_KEY_BYTES],
                                             int my_pid, int32_t my_ospid, int num_pids,
                                             const MPIDI_FTDEV_hb_contact_t * contacts,
                                             MPIDI_FTDEV_replay_window_t * windows,
                                             MPIDI_FTDEV_hb_msg_t * out, const char **why);

/* ---- the control channel --------------------------------------------------------- */

typedef struct {
    uint32_t type;              /* MPIDI_FTDEV_CTRL_* */
    int32_t pid;                /* the process (or channel, context id) it is about */
    int32_t from;               /* the sender's tag pid */
    uint32_t hops;              /* the chain length of the protocol's messages that led
                                 * to this one (ftdev_counters.c) */
    int32_t to;                 /* the recipient's tag pid */
    uint32_t epoch;             /* the sender's recovery epoch when it sent */
    uint32_t from_birth;        /* the epoch the sender joined in (0: the job's start) */
    uint32_t reserved;          /* 0 */
    uint64_t counter;           /* the sender's messages to `to`, counted from 1 */
} MPIDI_FTDEV_ctrl_msg_t;

enum {
    MPIDI_FTDEV_CTRL_FAILED = 1,        /* pid failed */
    MPIDI_FTDEV_CTRL_FINALIZING,        /* the sender is in MPI_Finalize */
    MPIDI_FTDEV_CTRL_REBUILD,           /* REBUILD protocol; payload follows */
    MPIDI_FTDEV_CTRL_CHANNEL,           /* to the handler of channel `pid` (mpid_ft.h);
                                         * payload follows */
    MPIDI_FTDEV_CTRL_REVOKE,            /* ULFM: the communicator of context id `pid` is revoked */
    MPIDI_FTDEV_CTRL_ECHO,              /* the receive check: does the sender still receive? */
    MPIDI_FTDEV_CTRL_ECHO_REPLY,        /* ... it does (the sender of ECHO is `pid`) */
    MPIDI_FTDEV_CTRL_NUM_TYPES
};

/* The active message's header: the MAC of the whole message, which UCX
 * delivers as the active message's data. */
typedef struct {
    uint8_t mac[MPIDI_FTDEV_MAC_BYTES];
} MPIDI_FTDEV_ctrl_head_t;

/* Seals a message (msg, len bytes, starting with its ctrl_msg_t) into head. */
void MPIDI_FTDEV_ctrl_seal(MPIDI_FTDEV_ctrl_head_t * head, const void *msg, size_t len,
                           const uint8_t key[MPIDI_FTDEV_MAC_KEY_BYTES]);

/* Opens a control message as UCX delivers it: its header and data (len
 * bytes). On success returns NULL, with the message's head in *msg; else
 * what is wrong. */
const char *MPIDI_FTDEV_ctrl_open(const void *header, size_t header_len, const void *data,
                                  size_t len, const uint8_t key[MPIDI_FTDEV_MAC_KEY_BYTES],
                                  MPIDI_FTDEV_ctrl_msg_t * msg);

/* Each type's own rules, once the sender is known: NULL when a message of
 * `type` about `about` with len bytes of payload, from a process of this
 * world of num_pids processes (or of another world), may be handed to its
 * owner; else what is wrong. */
const char *MPIDI_FTDEV_ctrl_check(uint32_t type, int32_t about, size_t len, int num_pids,
                                   int from_this_world);

/* Whether an opened message is new and meant for this process: addressed
 * to my_tag_pid; from this world, sent in an epoch no older than my_birth
 * (the one this process joined in: nothing meant for a process it
 * replaced); from the sender's newest incarnation and not seen before
 * (w, the sender's window, is advanced). NULL, or what is wrong. */
const char *MPIDI_FTDEV_ctrl_fresh(const MPIDI_FTDEV_ctrl_msg_t * msg, int32_t my_tag_pid,
                                   uint32_t my_birth, int from_this_world,
                                   MPIDI_FTDEV_replay_window_t * w);

/* ---- REBUILD's messages (MPIDI_FTDEV_CTRL_REBUILD) --------------------------------- */

enum {
    MPIDI_FTDEV_RB_READY = 1,   /* survivor -> coordinator: in the new epoch */
    MPIDI_FTDEV_RB_HELLO,       /* replacement -> coordinator: its address */
    MPIDI_FTDEV_RB_WELCOME,     /* coordinator -> replacement: the whole world */
    MPIDI_FTDEV_RB_REBUILT      /* coordinator -> survivor: the replacements */
};

/* an entry's process; LEAVING: alive but in MPI_Finalize, where it told
 * the others so before the replacement existed */
enum {
    MPIDI_FTDEV_RB_ALIVE = 0,
    MPIDI_FTDEV_RB_DEAD,
    MPIDI_FTDEV_RB_REPLACED,
    MPIDI_FTDEV_RB_LEAVING
};

extern const MPID_FT_msg_kinds_t MPIDI_FTDEV_rb_kinds;

typedef struct {
    MPID_FT_msg_head_t head;    /* seq: the rebuild's epoch; sender: its pid */
    uint32_t count;             /* entries that follow */
    int32_t modes[MPID_FT_MODES_WORDS]; /* the sender's */
} MPIDI_FTDEV_rb_msg_t;

typedef struct {
    int32_t pid;
    uint32_t state;             /* MPIDI_FTDEV_RB_ALIVE, ... */
    uint32_t address_len;       /* bytes of worker address that follow, padded to 8 */
    int32_t node;               /* WELCOME: its node in MPIR_Process.node_map */
    MPIDI_FTDEV_hb_contact_t heartbeat;
} MPIDI_FTDEV_rb_entry_t;

size_t MPIDI_FTDEV_rb_entry_size(size_t address_len);

/* NULL when buf (len bytes, aligned) is a well-formed REBUILD message
 * from process `from` of a world of num_pids processes: every entry lies
 * within it, names a process of the world, a known state and a node
 * number below num_pids; else what is wrong. */
const char *MPIDI_FTDEV_rb_check(const void *buf, size_t len, int from, int num_pids);

/* ---- process names across worlds (ftdev_spawn.c) ------------------------------------ */

/* A process's upid, the name MPI_Comm_spawn, connect and accept hand to
 * the other side: this header, then address_len bytes of its worker
 * address. */
#define MPIDI_FTDEV_UPID_MAGIC 0x46547570u      /* "FTup" */
/* ch4 carries a upid in MPI_MAX_PORT_NAME bytes: in a port name, and on
 * the accept side in a buffer that long, whatever length the other side
 * claims */
#define MPIDI_FTDEV_UPID_MAX_BYTES 256
/* MPIDI_FTDEV_MAX_PID_BITS (ftdev_types.h) */
#define MPIDI_FTDEV_UPID_MAX_PID_BITS 16

typedef struct {
    uint32_t magic;
    int32_t tag_pid;
    int32_t pid_bits;
    int32_t tag_pid_next;       /* the lowest tag pid the sender's worlds leave unused */
    uint64_t world_id;          /* 0: unknown (a REBUILD replacement) */
    uint32_t address_len;
} MPIDI_FTDEV_upid_header_t;

/* NULL when upid (len bytes) is well formed: its header and exactly
 * address_len (> 0) bytes of address, MPIDI_FTDEV_UPID_MAX_BYTES at most
 * in all, pid_bits at most MPIDI_FTDEV_UPID_MAX_PID_BITS, tag_pid below
 * 2^pid_bits and tag_pid_next at most that; then *h is its header and
 * *address its address. Else what is wrong. */
const char *MPIDI_FTDEV_upid_open(const void *upid, int len, MPIDI_FTDEV_upid_header_t * h,
                                  const void **address);

/* NULL when `count` upids laid end to end, sizes[i] bytes each, are all
 * well formed and their sizes add up to an int: a buffer of that sum (as
 * ch4 allocates it) then holds every one. Every size is checked before
 * any upid is read. Else what is wrong. */
const char *MPIDI_FTDEV_upids_check(int count, const int *sizes, const void *upids);

#endif /* FTDEV_WIRE_H_INCLUDED */
