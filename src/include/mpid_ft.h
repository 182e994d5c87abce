/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: the device's fault-tolerance services to the layers above it.
 *
 * MPIR-level code (src/recovery, src/coll_atomic, src/ulfm) reaches the
 * device only through these functions and MPICH's own MPID_ ones (MPID_Comm_failure_ack, ...), as
 * MPIR code does: no MPIDI_FTDEV_ name is used above the device. The
 * device reaches the layers above only through what they hand it: a
 * policy and a table of events, before MPI_Init starts it. Processes are
 * named by their process id (pid), their rank in the MPI_COMM_WORLD the
 * job started with.
 */

#ifndef MPID_FT_H_INCLUDED
#define MPID_FT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct MPIR_Comm;
struct MPIR_Group;
struct MPIR_Request;

/* ---- what the layers above hand the device ------------------------------- */

/* The most processes a job may hold, every world of it together. */
#define MPID_FT_MAX_PROCS 65536

/* How many words the job's modes take in MPID_FT_policy_t. */
#define MPID_FT_MODES_WORDS 4

/* The job's fault-tolerance policy, decided above the device from the
 * job's modes and fixed for the whole run. */
typedef struct {
    int ulfm;                   /* ULFM's rules: survivors go on communicating */
    int aborts_on_failure;      /* a failure ends the job */
    int halts_on_failure;       /* after a failure every call fails until a recovery */
    int keeps_messages;         /* messages outlive a recovery (FT-MPI CONT) */
    int atomic_collectives;     /* collectives are diverted to the layers above */
    int rebuilds;               /* failed processes are replaced (REBUILD) */
    /* the modes themselves: every process of a job must have the same */
    int32_t modes[MPID_FT_MODES_WORDS];
    /* why this process's settings are refused; empty when they are not */
    char refused[256];
} MPID_FT_policy_t;

/* What the device tells the layers above. Every entry may be NULL: the
 * device then does without (no record kept, a plain error code, ...). */
typedef struct {
    /* process `pid` failed (each pid once; `how` is for messages) */
    void (*failed) (int pid, const char *how);
    /* this process is a replacement that joined the world at `epoch`,
     * with replaced[n] (itself included) new in it */
    void (*joined) (uint32_t epoch, const int *replaced, int n);
    /* whether a failure awaits a recovery (asked only when the policy
     * halts on failure) */
    int (*failure_pending) (void);
    /* the error code of an operation refused or ended by the failure of
     * `pid` (pid < 0: by a failure that awaits recovery) */
    int (*failure_error) (int pid);
    /* one line saying how process `pid`'s modes differ from this one's */
    void (*modes_differ) (const int32_t * theirs, int pid, char *msg, size_t len);
    /* ATOMIC: whether comm's collectives go to the layers above */
    int (*coll_diverts) (struct MPIR_Comm * comm);
    /* comm is being freed: the layers above forget what they kept in it */
    void (*comm_freed) (struct MPIR_Comm * comm);
    /* the device gave a context id back to MPICH (DESIGN 7.4): the layers
     * above forget their records of it */
    void (*context_released) (uint32_t context_id);
} MPID_FT_events_t;

/* Both are copied. The recovery layer sets the policy once MPICH's
 * control variables are read and before MPID_Init; without it the device
 * runs as in ABORT mode. Each layer registers the events it handles as
 * the library loads (a constructor, as it registers its channels),
 * leaving the others NULL: a NULL entry keeps what another layer
 * registered. */
void MPID_FT_set_policy(const MPID_FT_policy_t * policy);
void MPID_FT_register_events(const MPID_FT_events_t * events);

/* The policy the device runs by (all zero before MPID_FT_set_policy). */
const MPID_FT_policy_t *MPID_FT_policy(void);

/* ---- tracing ---------------------------------------------------------------- */

/* Opens the trace file, if any, and writes its "init" event (MPI_Init). */
void MPID_FT_trace_open(void);
extern int MPID_FT_trace_events;

/* A line on stderr for a protocol step when MPIR_CVAR_FTMPI_TRACE is set,
 * and a "step" event in the trace file when there is one. */
void MPID_FT_trace(const char *fmt, ...) __attribute__ ((format(printf, 1, 2)));
#define MPID_FT_TRACE(...)                                              \
    do {                                                                \
        if (unlikely(MPIR_CVAR_FTMPI_TRACE || MPID_FT_trace_events))    \
            MPID_FT_trace(__VA_ARGS__);                                 \
    } while (0)

/* A timestamped event in the trace file (MPIR_CVAR_FTMPI_TRACE_FILE):
 * "NAME [KEY=VALUE ...]", formatted. Costs a test of a global when no file
 * is written. */
void MPID_FT_event(const char *fmt, ...) __attribute__ ((format(printf, 1, 2)));
#define MPID_FT_EVENT(...)                              \
    do {                                                \
        if (unlikely(MPID_FT_trace_events))             \
            MPID_FT_event(__VA_ARGS__);                 \
    } while (0)

/* ---- sets of process ids or ranks ------------------------------------------ */

/* One bit per member, as the protocols send them: MPID_FT_SET_BYTES(n)
 * bytes hold members 0 .. n-1. */
#define MPID_FT_SET_BYTES(n) (((size_t) (n) + 7) / 8)

static inline int MPID_FT_set_has(const uint8_t * set, int i)
{
    return (set[i / 8] >> (i % 8)) & 1;
}

static inline void MPID_FT_set_add(uint8_t * set, int i)
{
    set[i / 8] |= (uint8_t) (1u << (i % 8));
}

/* ---- fault injection for the tests --------------------------------------- */

/* Whether this is the point FTMPI_TEST_POINT=PID:POINT[:N] names: the
 * process started first as process id PID, passing `point` for the
 * `number`-th time (ftdev_test_point.c). The points: "init" (MPI_Init,
 * past the launcher's first barrier: the process dies), "deaf" (a death on
 * its node: it drops every control message from then on), the ATOMIC
 * commit's "before-vote", "after-vote", "before-decision", "after-commit"
 * (the process dies; N counts its atomic collectives) and "part-fails"
 * (its part counts as failed), and REBUILD's "after-spawn" (the
 * coordinator, once the launcher started the replacements), "mid-announce"
 * (the coordinator, once one survivor was told the rebuild is done) and
 * "before-ready" (a survivor, before it tells the coordinator): the
 * process dies, to fail a rebuild half-way; ULFM's "mid-decide" (the
 * coordinator dies with its decision at two members; N counts the
 * agreements of the communicator); and "replay" (ftdev sends
 * sealed messages again, as someone who captured them would). Only in a
 * build
 * configured with --enable-ft-test-points (make check); elsewhere every
 * point is 0 and nothing of it is compiled. */
#ifdef HAVE_FT_TEST_POINTS
int MPID_FT_test_point(const char *point, unsigned long number);
/* At that point, the process dies (SIGKILL) once `linger` seconds of
 * progress let its last messages out. */
void MPID_FT_test_death(const char *point, unsigned long number, double linger);
#else
#define MPID_FT_test_point(point, number) 0
#define MPID_FT_test_death(point, number, linger) ((void) 0)
#endif

/* ---- the head of every protocol message --------------------------------- */

/* Every message of a fault-tolerance protocol (the recovery agreement, the
 * ATOMIC commit, ULFM's agreement, REBUILD) starts with this head, which
 * the protocol's own struct extends. What authenticates the sender is the
 * transport's: the control channel's MAC and the tag pid it carries. */
typedef struct {
    uint32_t kind;              /* 1 .. the protocol's number of kinds */
    uint32_t seq;               /* the epoch or sequence number it belongs to */
    int32_t sender;             /* the sender, as the protocol numbers its processes */
} MPID_FT_msg_head_t;

/* A protocol's kinds of message, for their checks and traces. */
typedef struct {
    const char *protocol;       /* "agree", "commit", ... */
    const char *seq_name;       /* what seq counts: "epoch", "seq" */
    const char *const *kind_names;      /* kind_names[k - 1] names kind k */
    uint32_t num_kinds;
} MPID_FT_msg_kinds_t;

/* What every protocol message must be, before its own rules: at least
 * min_len bytes, a known kind, a sender in [0, num_senders) that is `from`
 * when from >= 0. NULL and the head in *head when it is; else what is
 * wrong, for the receiver's report. The payload may be unaligned. */
static inline const char *MPID_FT_msg_check_head(const MPID_FT_msg_kinds_t * kinds,
                                                 const void *buf, size_t len, size_t min_len,
                                                 int num_senders, int from,
                                                 MPID_FT_msg_head_t * head)
{
    if (len < min_len || len < sizeof(*head))
        return "too short";
    memcpy(head, buf, sizeof(*head));
    if (head->kind < 1 || head->kind > kinds->num_kinds)
        return "of no kind";
    if (head->sender < 0 || head->sender >= num_senders)
        return "from no process that may send it";
    if (from >= 0 && head->sender != from)
        return "naming another sender";
    return NULL;
}

/* The one trace of a protocol message received: "PROTOCOL: KIND SEQNAME
 * SEQ from PEER", then the protocol's own fields. */
#define MPID_FT_MSG_TRACE(kinds, head, peer, fmt, ...)                            \
    MPID_FT_TRACE("%s: %s %s %u from %d" fmt, (kinds)->protocol,                  \
                  (kinds)->kind_names[(head)->kind - 1], (kinds)->seq_name,       \
                  (head)->seq, (peer), __VA_ARGS__)

/* ---- control messages ---------------------------------------------------- */

/* Each protocol above the device has a channel; a message sent on it is
 * handed, in a progress call of the receiver, to the handler registered
 * for that channel there (the payload copy is aligned and only valid
 * during the call). Messages from a process known to have failed are
 * dropped; between two processes they arrive in order. */
typedef enum {
    MPID_FT_CHANNEL_RECOVERY = 0,       /* FT-MPI recovery agreement (src/recovery) */
    MPID_FT_CHANNEL_COMMIT,     /* ATOMIC collectives' commit (src/coll_atomic) */
    MPID_FT_CHANNEL_ULFM_AGREE, /* ULFM agreement (src/ulfm) */
    MPID_FT_NUM_CHANNELS
} MPID_FT_channel_t;

typedef void (*MPID_FT_handler_t) (int from_pid, const void *payload, size_t len);

/* Whose messages a channel takes: its own world's processes only (pids
 * 0 .. size-1, which the protocol may use as indexes), or any world's
 * (a protocol over communicators that span spawned worlds). */
typedef enum {
    MPID_FT_FROM_THIS_WORLD = 0,
    MPID_FT_FROM_ANY_WORLD
} MPID_FT_senders_t;

/* Registers the handler of a channel (once, before MPI_Init: from a
 * constructor of the layer that owns the channel); messages from other
 * senders than it takes are dropped and counted as rejected. */
void MPID_FT_register_handler(MPID_FT_channel_t channel, MPID_FT_handler_t handler,
                              MPID_FT_senders_t senders);

/* Sends payload[len] to process `to` on `channel`; nothing is sent to a
 * process known to have failed. A message can be lost with its receiver's
 * failure, or with a connection that breaks: the protocols resend. The
 * error returned is this process's own (no memory), which ends the
 * protocol step that sent. */
int MPID_FT_send(int to, MPID_FT_channel_t channel, const void *payload, size_t len);

/* Returns once every message sent on `channel` so far has left this
 * process (handed to a live peer's transport, or ended by its failure):
 * a protocol step whose sender may stop calling MPI right after (an
 * agreement's decider) cannot leave a message waiting in its own queue. */
int MPID_FT_flush(MPID_FT_channel_t channel);

/* Drives progress until step(arg) returns nonzero; step runs before each
 * progress call and may do its protocol's own work (resends, timeouts).
 * The progress is a protocol's, not an application's wait: a failure that
 * the application's waits would be told of is no error here. Returns the
 * first error progress reports. A wait still under way after 10 s, 20 s,
 * 40 s, ... is traced, named by `what`. */
int MPID_FT_wait(int (*step) (void *arg), void *arg, const char *what);

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

/* Whether process pid is known to have failed (a blank included). */
static inline int MPID_FT_proc_failed(int pid)
{
    MPID_FT_proc_state_t state = MPID_FT_proc_state(pid);
    return state == MPID_FT_PROC_FAILED || state == MPID_FT_PROC_BLANK;
}

/* pid >= 0 and a blank of a BLANK world. */
int MPID_FT_proc_is_blank(int pid);

/* The failed processes, in the order this process learned of them, each
 * once (a process replaced by REBUILD leaves the list); *pids is valid
 * until the next failure or replacement. Returns how many. */
int MPID_FT_failure_log(const int **pids);

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

/* ---- FT-MPI recovery (src/recovery) ------------------------------------ */

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

/* ---- collectives under failure (src/coll_atomic) ------------------------- */

/* The process id of rank `rank` of comm's local group, -1 when it is not
 * a process of this job's world. */
int MPID_FT_comm_local_pid(struct MPIR_Comm *comm, int rank);
/* A pointer the collective layer keeps in comm: NULL in a new
 * communicator; what it points to is the layer's own, freed by its
 * comm_freed event. */
void **MPID_FT_comm_coll_slot(struct MPIR_Comm *comm);

/* ---- what ch4 itself forwards (the ch4-* patches) --------------------------- */

/* ULFM's device functions (MPID_Comm_failure_ack, _failure_get_acked,
 * _get_all_failed_procs, _revoke, _AS_enabled, MPID_Request_is_anysource,
 * _is_pending_failure), with their arguments. */
int MPID_FT_comm_failure_ack(struct MPIR_Comm *comm);
int MPID_FT_comm_failure_get_acked(struct MPIR_Comm *comm, struct MPIR_Group **group);
int MPID_FT_comm_get_failed(struct MPIR_Comm *comm, struct MPIR_Group **group);
int MPID_FT_comm_revoke(struct MPIR_Comm *comm, int is_remote);
int MPID_FT_comm_AS_enabled(struct MPIR_Comm *comm);
int MPID_FT_request_is_anysource(struct MPIR_Request *req);
int MPID_FT_request_is_pending_failure(struct MPIR_Request *req);
/* The launcher's PMI_dead_processes list, e.g. "3,5"; and whether, on
 * the launcher's notice that some process died (SIGUSR1), that list is
 * worth its round trip to mpiexec. */
void MPID_FT_launcher_reported_failures(const char *list);
int MPID_FT_launcher_list_needed(void);
/* In MPID_Init right after PMI start-up: a process the launcher started to
 * replace a failed one reads its key and becomes that rank of the original
 * job. Nothing for any other process. */
int MPID_FT_take_over_replaced_rank(void);

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

#endif /* MPID_FT_H_INCLUDED */
