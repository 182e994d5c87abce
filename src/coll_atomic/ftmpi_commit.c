/*
 * FT-MPICH: collectives under failure.
 *
 * The two-phase commit of ATOMIC collectives, over the device's control
 * messages (which failures do not stop). Every member sends its vote to
 * the coordinator, rank 0 of the communicator (alive when the collective
 * started: collectives over a communicator with a known dead member are
 * refused before they start). The coordinator decides COMMIT when every
 * vote is in and says yes, ABORT as soon as one says no or a failure that
 * ends the collective is known, and sends the decision to every member.
 *
 * A member that may never hear from its coordinator runs the termination
 * protocol: it asks every live member what it knows. That is the case when
 * the coordinator dies undecided, and also when any failure ends the
 * collective, because the coordinator may then never have entered it (a
 * process that knew of the failure refused it at once) and so never
 * decide. A member that knows nothing answers so and from then on ignores
 * the coordinator's decision, should it still arrive; a coordinator that
 * answered so decides ABORT. If anyone saw a decision, that is the
 * decision; if nobody did, nobody can have acted on one and nobody will
 * decide COMMIT any more, and the answer is ABORT, which every undecided
 * member reaches the same way. Answers come from the message handler, so
 * members that already returned, or never entered the collective, answer
 * too.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"

enum { UNDECIDED = 0, COMMIT, ABORT };
enum { VOTE = 1, DECISION, QUERY, STATE };

typedef struct {
    uint32_t type;
    uint32_t context_id;
    uint32_t epoch;
    uint32_t instance;
    uint32_t seq;
    int32_t value;
} commit_msg_t;

/* What this process knows of one atomic collective. */
typedef struct record {
    uint32_t context_id, epoch, instance, seq;
    int decision;
    int sealed;                 /* answered a query undecided: a coordinator's decision
                                 * no longer counts, and this process decides ABORT if it
                                 * is the coordinator */
    int nvotes, all_yes;        /* coordinator */
    uint8_t *answered;          /* termination: by process id */
    int any_commit, any_abort;
    struct record *next;
} record_t;

#define MAX_RECORDS 64

static record_t *records;
static int nrecords;

static record_t *find_record(uint32_t context_id, uint32_t epoch, uint32_t instance,
                             uint32_t seq)
{
    record_t *r, **prev, **oldest_decided = NULL;

    for (r = records; r; r = r->next)
        if (r->context_id == context_id && r->epoch == epoch && r->instance == instance &&
            r->seq == seq)
            return r;

    /* a member asks about one of the last few collectives at most */
    if (nrecords >= MAX_RECORDS) {
        for (prev = &records; *prev; prev = &(*prev)->next)
            if ((*prev)->decision != UNDECIDED)
                oldest_decided = prev;
        if (oldest_decided) {
            r = *oldest_decided;
            *oldest_decided = r->next;
            MPL_free(r->answered);
            MPL_free(r);
            nrecords--;
        }
    }
    r = MPL_calloc(1, sizeof(*r), MPL_MEM_COLL);
    MPIR_Assert(r);
    r->context_id = context_id;
    r->epoch = epoch;
    r->instance = instance;
    r->seq = seq;
    r->all_yes = 1;
    r->next = records;
    records = r;
    nrecords++;
    return r;
}

static void send_msg(int pid, int type, const record_t * r, int value)
{
    commit_msg_t m = {
        .type = type,.context_id = r->context_id,.epoch = r->epoch,.instance = r->instance,
        .seq = r->seq,.value = value
    };
    MPID_FT_send(pid, MPID_FT_CHANNEL_COMMIT, &m, sizeof(m));
}

/* A commit-protocol message from process `from` (channel
 * MPID_FT_CHANNEL_COMMIT of the device). */
static void commit_message(int from, const void *buf, size_t len)
{
    commit_msg_t m;

    if (len != sizeof(m)) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped a malformed commit message from rank %d\n",
                MPIR_Process.rank, from);
        return;
    }
    memcpy(&m, buf, sizeof(m));
    record_t *r = find_record(m.context_id, m.epoch, m.instance, m.seq);
    MPIR_FTMPI_TRACE("commit %x/%u/%u/%u: %s %d from %d", m.context_id, m.epoch, m.instance, m.seq,
                     m.type == VOTE ? "vote" : m.type == DECISION ? "decision" :
                     m.type == QUERY ? "query" : "state", m.value, from);
    switch (m.type) {
        case VOTE:
            r->nvotes++;
            r->all_yes &= m.value;
            break;
        case DECISION:
            if (r->decision == UNDECIDED && !r->sealed)
                r->decision = m.value;
            break;
        case QUERY:
            if (r->decision == UNDECIDED)
                r->sealed = 1;
            send_msg(from, STATE, r, r->decision);
            break;
        case STATE:
            if (r->answered && !r->answered[from]) {
                r->answered[from] = 1;
                r->any_commit |= m.value == COMMIT;
                r->any_abort |= m.value == ABORT;
            }
            break;
    }
}

__attribute__ ((constructor))
static void register_commit_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_COMMIT, commit_message);
}

/* ---- waiting -------------------------------------------------------------- */

static int member_dead(MPIR_Comm * comm, int rank)
{
    return MPIR_FTMPI_known_dead(MPID_FT_comm_local_pid(comm, rank));
}

/* A failure that ends an undecided collective: any, once this process
 * has recognized one in AUTO/MANUAL mode; else one of the members'. */
static int collective_failed(MPIR_Comm * comm)
{
    if (MPIR_FTMPI_halts_on_failure() && MPIR_FTMPI_failure_pending())
        return 1;
    for (int r = 0; r < comm->local_size; r++)
        if (member_dead(comm, r))
            return 1;
    return 0;
}

/* ---- one process's part, step by step ------------------------------------ */

struct MPIR_FTMPI_vote {
    MPIR_Comm *comm;
    record_t *r;
    int yes;
    enum { COORDINATING, WAITING, TERMINATING } phase;
};

static void decide_and_tell(MPIR_FTMPI_vote_t * v)
{
    MPIR_Comm *comm = v->comm;
    record_t *r = v->r;
    int sent = 0;

    r->decision = !r->sealed && v->yes && r->all_yes && r->nvotes == comm->local_size - 1 ?
        COMMIT : ABORT;
    MPIR_FTMPI_TRACE("commit %x/%u/%u/%u: coordinator decides %s (%d votes, all yes %d, sealed %d)",
                     r->context_id, r->epoch, r->instance, r->seq, r->decision == COMMIT ? "COMMIT" : "ABORT",
                     r->nvotes, v->yes && r->all_yes, r->sealed);
    MPIR_FTMPI_atomic_test_death("coordinator-before-decision");
    for (int rank = 1; rank < comm->local_size; rank++) {
        if (member_dead(comm, rank))
            continue;
        send_msg(MPID_FT_comm_local_pid(comm, rank), DECISION, r, r->decision);
        if (sent++ == 0)
            MPIR_FTMPI_atomic_test_death("coordinator-mid-decision");
    }
}

/* The coordinator may never decide: ask every live member. */
static void start_termination(MPIR_FTMPI_vote_t * v)
{
    MPIR_Comm *comm = v->comm;

    v->r->answered = MPL_calloc(MPIR_Process.size, 1, MPL_MEM_COLL);
    MPIR_Assert(v->r->answered);
    MPIR_FTMPI_TRACE("commit %x/%u/%u/%u: termination protocol", v->r->context_id,
                     v->r->epoch, v->r->instance, v->r->seq);
    for (int rank = 0; rank < comm->local_size; rank++)
        if (rank != comm->rank && !member_dead(comm, rank))
            send_msg(MPID_FT_comm_local_pid(comm, rank), QUERY, v->r, 0);
    v->phase = TERMINATING;
}

static int all_answered(MPIR_FTMPI_vote_t * v)
{
    MPIR_Comm *comm = v->comm;
    for (int rank = 0; rank < comm->local_size; rank++)
        if (rank != comm->rank && !v->r->answered[MPID_FT_comm_local_pid(comm, rank)] &&
            !member_dead(comm, rank))
            return 0;
    return 1;
}

MPIR_FTMPI_vote_t *MPIR_FTMPI_commit_start(MPIR_Comm * comm, uint32_t instance, uint32_t seq,
                                           int yes)
{
    MPIR_FTMPI_vote_t *v = MPL_malloc(sizeof(*v), MPL_MEM_COLL);

    MPIR_Assert(v);
    v->comm = comm;
    v->r = find_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    v->yes = yes;
    MPIR_FTMPI_TRACE("commit %x/%u/%u/%u: starts, votes %s", v->r->context_id, v->r->epoch,
                     instance, seq,
                     yes ? "yes" : "no");
    if (comm->rank == 0) {
        v->phase = COORDINATING;
    } else {
        v->phase = WAITING;
        if (!member_dead(comm, 0))
            send_msg(MPID_FT_comm_local_pid(comm, 0), VOTE, v->r, yes);
        MPIR_FTMPI_atomic_test_death("after-vote");
    }
    return v;
}

int MPIR_FTMPI_commit_test(MPIR_FTMPI_vote_t * v, int *commit)
{
    record_t *r = v->r;

    switch (v->phase) {
        case COORDINATING:
            if (!r->sealed && v->yes && r->all_yes && r->nvotes < v->comm->local_size - 1 &&
                !collective_failed(v->comm))
                return 0;
            decide_and_tell(v);
            break;
        case WAITING:
            if (r->decision == UNDECIDED && collective_failed(v->comm))
                start_termination(v);
            break;
        case TERMINATING:
            /* the coordinator's decision may still come first */
            if (r->decision == UNDECIDED && all_answered(v))
                r->decision = r->any_commit ? COMMIT : ABORT;
            break;
    }
    if (r->decision == UNDECIDED)
        return 0;
    *commit = r->decision == COMMIT;
    MPIR_FTMPI_TRACE("commit %x/%u/%u/%u: %s", r->context_id, r->epoch, r->instance, r->seq,
                     *commit ? "COMMIT" : "ABORT");
    MPL_free(v);
    return 1;
}

int MPIR_FTMPI_commit(MPIR_Comm * comm, uint32_t instance, uint32_t seq, int yes)
{
    MPIR_FTMPI_vote_t *v = MPIR_FTMPI_commit_start(comm, instance, seq, yes);
    int commit;

    while (!MPIR_FTMPI_commit_test(v, &commit))
        MPID_Progress_test(NULL);
    return commit;
}
