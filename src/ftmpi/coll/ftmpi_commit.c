/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: collectives under failure.
 *
 * The commit of ATOMIC collectives, over the device's control messages
 * (which failures do not stop). There is no coordinator: the members
 * combine their votes (1: my part succeeded) with a logical AND by
 * dissemination. In round k (k = 0 .. ceil(log2 n) - 1) member r sends
 * the AND of every vote it knows to member r + 2^k (mod n) and waits for
 * the one of member r - 2^k; after the last round each member knows every
 * vote, and decides COMMIT when all are yes. That is ceil(log2 n) one-way
 * messages after the collective (a coordinator's star costs a round trip
 * and n - 1 messages through one process). A no decides ABORT at once:
 * the member sends 0 for its remaining rounds, so every other member still
 * hears from everyone it waits for and learns the no.
 *
 * A member that may never hear from everyone runs the termination
 * protocol: when a failure ends the collective (a member died, or, in
 * AUTO/MANUAL mode, any failure is recognized) while it is undecided, it
 * needs what every live member knows. The members form a binomial tree of
 * their ranks counted from the lowest live member L (a member's parent
 * clears its lowest set bit, skipping members known to have failed). An
 * undecided member asks its parent: if that one is undecided inside a
 * blocking collective of this commit, it runs the protocol itself (asking
 * its own parent), and its decision comes down to the asker; if it is not
 * (it has not entered, or waits elsewhere), or it dies, the asker runs the
 * protocol's sweep itself. L runs the sweep: SWEEP goes down the tree
 * (each carries the process ids of the receiver's subtree; a member that
 * learns that a child it swept died sweeps that child's children), each
 * member answers REPORT once its subtree has, and a decided member
 * answers with its decision at once. A member that knows nothing answers
 * so, and is "sealed": it will not decide COMMIT from its own rounds any
 * more (it runs the termination protocol itself instead). If any answer
 * is COMMIT, that is the decision; else ABORT. This is safe because a
 * member that decided COMMIT did so before the sweep reached it (then it
 * answers COMMIT) or could not (it was sealed): a sweep therefore sees
 * every COMMIT of a member alive to answer it. Answers come from the
 * message handler and a progress hook, so members that already returned,
 * or never entered the collective (a process that knew of the failure
 * refused it at once), answer too. Decisions are unanimous, so the first
 * decided answer ends the protocol; a member that answered undecided sends
 * its decision to the askers once it has one, and a no heard during the
 * protocol decides ABORT: an asker then does not wait for a member that
 * cannot answer. Each member sends and receives O(log n) messages.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_coll.h"
#include "ftmpi_commit_msg.h"

/* What this process knows of one atomic collective. */
typedef struct record {
    uint32_t context_id, epoch, instance, seq;
    int decision;
    int sealed;                 /* answered a query undecided: decides only by the
                                 * termination protocol */
    uint32_t rounds_heard;      /* bit k: the VOTE of round k arrived */
    int all_yes;                /* AND of the votes heard */
    int terminating;            /* this process runs the termination protocol */
    int sweeps;                 /* sweeps under way here (the record stays while any is) */
    int driving;                /* a blocking collective of this process runs this commit,
                                 * or will once its part is done */
    int delegate;               /* termination: the process asked alone (-1: everyone) */
    enum { NO_ANSWER, DRIVES, IDLE } delegate_answer;   /* its undecided answer */
    uint8_t *waiting;           /* by process id: asked while this one was undecided, and
                                 * is told the decision when it is made */
    /* a collective with a shared output: the output this member keeps for
     * others once it has one (its own, or one fetched) */
    int shared;
    size_t result_len;
    int has_result;
    void *result;               /* in result_mem, aligned like the output it copies */
    void *result_mem;
    size_t result_capacity;     /* kept when the record is reused */
    int held;                   /* this process's vote still reads it */
    int send_errno;             /* the first message about it that could not be sent
                                 * (no memory): this process's vote ends with it */
    struct record *next_in_bucket;
    struct record *younger;     /* the next record made after this one */
} record_t;

/* A member asks about one of the last few collectives at most, so the
 * records of the last MAX_RECORDS are kept (more only while undecided).
 * They are found through a hash table and reused oldest first: once the
 * table is full, a commit allocates nothing (a calloc, and a walk of the
 * whole list to find the oldest decided record, cost more than the rest
 * of a failure-free commit at 2 processes). */
#define MAX_RECORDS 64
#define NUM_BUCKETS 64

static record_t *bucket[NUM_BUCKETS];
static record_t *oldest, *youngest;
static int nrecords;

static record_t **bucket_of(uint32_t context_id, uint32_t epoch, uint32_t instance,
                            uint32_t seq)
{
    /* consecutive collectives of a communicator go to consecutive buckets */
    return &bucket[(seq + 13 * instance + 29 * epoch + 7 * context_id) % NUM_BUCKETS];
}

static void append_youngest(record_t * r)
{
    r->younger = NULL;
    if (youngest)
        youngest->younger = r;
    else
        oldest = r;
    youngest = r;
}

/* The oldest decided record that no vote reads, taken out of the table;
 * NULL when there is none (the others are moved behind). */
static record_t *reclaim_oldest_decided(void)
{
    for (int tries = nrecords; tries > 0 && oldest; tries--) {
        record_t *r = oldest;
        oldest = r->younger;
        if (oldest == NULL)
            youngest = NULL;
        if (r->decision == UNDECIDED || r->held || r->sweeps) {
            append_youngest(r);
            continue;
        }
        record_t **link = bucket_of(r->context_id, r->epoch, r->instance, r->seq);
        while (*link != r)
            link = &(*link)->next_in_bucket;
        *link = r->next_in_bucket;
        MPL_free(r->waiting);
        void *result_mem = r->result_mem;
        size_t capacity = r->result_capacity;
        memset(r, 0, sizeof(*r));
        r->result_mem = result_mem;
        r->result_capacity = capacity;
        return r;
    }
    return NULL;
}

/* The record of a collective, created when it is not there yet (NULL when
 * memory runs out). */
static record_t *find_record(uint32_t context_id, uint32_t epoch, uint32_t instance,
                             uint32_t seq)
{
    record_t **head = bucket_of(context_id, epoch, instance, seq), *r;

    for (r = *head; r; r = r->next_in_bucket)
        if (r->context_id == context_id && r->epoch == epoch && r->instance == instance &&
            r->seq == seq)
            return r;

    r = nrecords >= MAX_RECORDS ? reclaim_oldest_decided() : NULL;
    if (r == NULL) {
        r = MPL_calloc(1, sizeof(*r), MPL_MEM_COLL);
        if (r == NULL)
            return NULL;
        nrecords++;
    }
    r->context_id = context_id;
    r->epoch = epoch;
    r->instance = instance;
    r->seq = seq;
    r->all_yes = 1;
    r->delegate = -1;
    r->send_errno = MPI_SUCCESS;
    r->next_in_bucket = *head;
    *head = r;
    append_youngest(r);
    return r;
}

/* The first error about r (a send that failed, no memory) is kept for the
 * vote that drives it. */
static void keep_error(record_t * r, int mpi_errno)
{
    if (mpi_errno != MPI_SUCCESS && r->send_errno == MPI_SUCCESS)
        r->send_errno = mpi_errno;
}

/* A message about r, followed by `len` bytes of `extra` (a shared output). */
static int send_with(int pid, int type, record_t * r, uint32_t round, int value,
                     const void *extra, size_t len)
{
    struct {
        commit_msg_t m;
        char extra[MPIR_FTMPI_SHARED_OUTPUT_MAX];
    } s;
    s.m = (commit_msg_t) {
        .type = type,.context_id = r->context_id,.epoch = r->epoch,.instance = r->instance,
        .seq = r->seq,.round = round,.value = value
    };
    if (len)
        memcpy(s.extra, extra, len);
    int mpi_errno = MPID_FT_send(pid, MPID_FT_CHANNEL_COMMIT, &s, sizeof(s.m) + len);
    keep_error(r, mpi_errno);
    return mpi_errno;
}

static int send_msg(int pid, int type, record_t * r, uint32_t round, int value)
{
    return send_with(pid, type, r, round, value, NULL, 0);
}

/* The answer to a query: the decision, and with a COMMIT of a shared
 * output, the output. */
static int send_state(int pid, record_t * r)
{
    int with_output = r->decision == COMMIT && r->shared && r->has_result;
    return send_with(pid, STATE, r, r->decision == UNDECIDED && r->driving, r->decision,
                     r->result, with_output ? r->result_len : 0);
}

/* Keeps a shared output in the record (an error when out of memory). */
static int keep_result(record_t * r, const void *result, size_t len)
{
    if (len > r->result_capacity) {
        void *bigger = MPL_realloc(r->result_mem, len + MPIR_FTMPI_COPY_ALIGN - 1, MPL_MEM_COLL);
        if (bigger == NULL)
            return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                        MPI_ERR_OTHER, "**nomem", 0);
        r->result_mem = bigger;
        r->result_capacity = len;
    }
    r->result = MPIR_FTMPI_co_aligned(r->result_mem, result);
    if (len)
        memcpy(r->result, result, len);
    r->has_result = 1;
    return MPI_SUCCESS;
}

/* ---- the sweep --------------------------------------------------------------- */

/* One sweep of one commit through this process: the subtree it covers
 * (process ids, itself first) and the children it waits for, each with
 * the part of the subtree under it. */
typedef struct sweep {
    struct sweep *next;
    record_t *r;
    int root;                   /* process id of the member that started it */
    int parent;                 /* process id it reports to; -1 at the root */
    int *pids;
    int npending;
    struct pending {
        int pid, first, end;
    } *pending;
    int nswept;
    int *swept;                 /* the children it sent SWEEP to: they hear the decision */
    int reported;               /* its subtree's UNDECIDED went to the parent */
} sweep_t;

static sweep_t *sweeps;
static int sweep_hook = -1;
static unsigned sweep_failures_seen;

/* The answer to a SWEEP, or a decision passed on: the decision, and with
 * a COMMIT of a shared output, the output. */
static void send_report(int to, record_t * r, int root)
{
    int with_output = r->decision == COMMIT && r->has_result;
    send_with(to, REPORT, r, root, r->decision, r->result, with_output ? r->result_len : 0);
}

/* A SWEEP for root, carrying the n process ids of the receiver's subtree. */
static void send_sweep(int to, record_t * r, int root, const int *pids, int n)
{
    size_t len = sizeof(commit_msg_t) + n * sizeof(int);
    commit_msg_t *m = MPL_malloc(len, MPL_MEM_COLL);
    if (m == NULL) {
        keep_error(r, MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                           MPI_ERR_OTHER, "**nomem", 0));
        return;
    }
    *m = (commit_msg_t) {
        .type = SWEEP,.context_id = r->context_id,.epoch = r->epoch,.instance = r->instance,
        .seq = r->seq,.round = root,.value = UNDECIDED
    };
    memcpy(m + 1, pids, n * sizeof(int));
    keep_error(r, MPID_FT_send(to, MPID_FT_CHANNEL_COMMIT, m, len));
    MPL_free(m);
}

static void sweep_range(sweep_t * s, int first, int end);

/* Sweeps the subtrees of the children of the member at pids[first] (its
 * subtree is pids[first, end)): pids[first + k, first + 2k) for k = 1,
 * 2, 4, ... */
static void sweep_children(sweep_t * s, int first, int end)
{
    for (int k = 1; first + k < end; k <<= 1)
        sweep_range(s, first + k, MPL_MIN(first + 2 * k, end));
}

/* Sweeps the subtree pids[first, end) of s: its top member, or, when
 * that one is known to have failed, its children's subtrees. */
static void sweep_range(sweep_t * s, int first, int end)
{
    int pid = s->pids[first];
    if (MPIR_FTMPI_known_dead(pid)) {
        sweep_children(s, first, end);
        return;
    }
    send_sweep(pid, s->r, s->root, s->pids + first, end - first);
    s->pending[s->npending++] = (struct pending) {
    pid, first, end};
    s->swept[s->nswept++] = pid;
}

static int sweep_progress(int *made_progress);

static void free_sweep(sweep_t * s)
{
    if (s == NULL)
        return;
    MPL_free(s->pids);
    MPL_free(s->swept);
    MPL_free(s->pending);
    MPL_free(s);
}

/* Starts a sweep of the n process ids at pids (the first is this
 * process; read with memcpy: a message's payload may be unaligned) for
 * root, to be reported to parent (-1: this process is the root). */
static sweep_t *start_sweep(record_t * r, int root, int parent, const void *pids, int n)
{
    sweep_t *s = MPL_calloc(1, sizeof(*s), MPL_MEM_COLL);
    if (s) {
        s->pids = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
        s->swept = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
        s->pending = MPL_malloc(n * sizeof(struct pending), MPL_MEM_COLL);
    }
    if (s == NULL || !s->pids || !s->swept || !s->pending ||
        (sweep_hook < 0 && MPIR_Progress_hook_register(sweep_progress, &sweep_hook))) {
        free_sweep(s);
        keep_error(r, MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                           MPI_ERR_OTHER, "**nomem", 0));
        return NULL;
    }
    s->r = r;
    s->root = root;
    s->parent = parent;
    memcpy(s->pids, pids, n * sizeof(int));
    r->sweeps++;
    s->next = sweeps;
    sweeps = s;
    MPID_FT_TRACE("commit %x/%u/%u/%u: sweep of %d members for %d", r->context_id, r->epoch,
                  r->instance, r->seq, n, root);
    sweep_children(s, 0, n);
    MPIR_Progress_hook_activate(sweep_hook);
    return s;
}

static sweep_t *find_sweep(record_t * r, int root)
{
    for (sweep_t *s = sweeps; s; s = s->next)
        if (s->r == r && s->root == root)
            return s;
    return NULL;
}

/* A child's REPORT: a decision decides (the hook passes it on); an
 * UNDECIDED one completes the child's part of the subtree. */
static void sweep_reported(sweep_t * s, int from, int value)
{
    if (value != UNDECIDED) {
        if (s->r->decision == UNDECIDED)
            s->r->decision = value;
        return;
    }
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i].pid == from) {
            s->pending[i] = s->pending[--s->npending];
            return;
        }
}

/* Advances one sweep; 1 when it is over here. */
static int sweep_step(sweep_t * s, int look_at_failures)
{
    record_t *r = s->r;

    if (r->decision != UNDECIDED) {
        /* up, and down to every child: all of them learn it */
        if (s->parent >= 0)
            send_report(s->parent, r, s->root);
        for (int i = 0; i < s->nswept; i++)
            if (!MPIR_FTMPI_known_dead(s->swept[i]))
                send_report(s->swept[i], r, s->root);
        return 1;
    }
    if (s->parent >= 0 && MPIR_FTMPI_known_dead(s->root))
        return 1;       /* moot: its root asks nobody any more */
    if (look_at_failures)
        for (int i = 0; i < s->npending; i++)
            if (MPIR_FTMPI_known_dead(s->pending[i].pid)) {
                struct pending dead = s->pending[i];
                s->pending[i--] = s->pending[--s->npending];
                sweep_children(s, dead.first, dead.end);
            }
    if (s->npending > 0)
        return 0;
    if (s->parent < 0) {
        /* every live member answered undecided, sealed: none can commit */
        r->decision = ABORT;
        return 1;
    }
    if (!s->reported) {
        send_report(s->parent, r, s->root);
        s->reported = 1;
    }
    return 0;
}

static int sweep_progress(int *made_progress)
{
    static int running;
    unsigned failures = MPID_FT_failure_count();
    int look = failures != sweep_failures_seen;

    if (running)
        return MPI_SUCCESS;
    running = 1;
    sweep_failures_seen = failures;
    for (sweep_t ** p = &sweeps; *p;) {
        sweep_t *s = *p;
        if (!sweep_step(s, look)) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        s->r->sweeps--;
        free_sweep(s);
        *made_progress = 1;
    }
    if (sweeps == NULL)
        MPIR_Progress_hook_deactivate(sweep_hook);
    running = 0;
    return MPI_SUCCESS;
}

/* A SWEEP from `from`: a decided member answers at once; any other is
 * sealed and sweeps its subtree (again to a new parent, for the same
 * root: the old one failed). */
static void swept(record_t * r, int from, int root, const void *pids, int n)
{
    if (r->decision != UNDECIDED) {
        send_report(from, r, root);
        return;
    }
    r->sealed = 1;
    sweep_t *s = find_sweep(r, root);
    if (s) {
        s->parent = from;
        if (s->reported)
            send_report(from, r, root);
        return;
    }
    start_sweep(r, root, from, pids, n);
}

/* A COMMIT of a shared output brings the output, which a member whose own
 * part failed (or that passes it on) needs; 0 when it does not fit. */
static int take_output(record_t * r, const void *result, size_t len)
{
    if (r->has_result || len == 0)
        return 1;
    if (r->shared && len != r->result_len)
        return 0;
    if (keep_result(r, result, len) != MPI_SUCCESS)
        return 0;
    r->result_len = len;
    return 1;
}

static void drop_message(int from, const char *why)
{
    fprintf(stderr, "FT-MPICH: rank %d: dropped a commit message from rank %d: %s\n",
            MPIR_Process.rank, from, why);
}

/* A commit-protocol message from process `from` (channel
 * MPID_FT_CHANNEL_COMMIT of the device). What the network brought is
 * checked: a malformed message is reported and dropped. */
static void commit_message(int from, const void *buf, size_t len)
{
    commit_msg_t m;

    const char *wrong = ftmpi_commit_msg_check(buf, len, from, MPIR_Process.size,
                                               MPIR_Process.rank);
    if (wrong)
        return drop_message(from, wrong);
    memcpy(&m, buf, sizeof(m));
    const void *result = (const char *) buf + sizeof(m);
    size_t result_len = len - sizeof(m);
    record_t *r = find_record(m.context_id, m.epoch, m.instance, m.seq);
    if (r == NULL)
        return drop_message(from, "out of memory");
    MPID_FT_TRACE("commit %x/%u/%u/%u: %s %d (round %u) from %d", m.context_id, m.epoch,
                  m.instance, m.seq, m.type == VOTE ? "vote" : m.type == QUERY ? "query" :
                  m.type == STATE ? "state" : m.type == SWEEP ? "sweep" : "report", m.value,
                  m.round, from);
    switch (m.type) {
        case VOTE:
            r->rounds_heard |= 1u << m.round;
            r->all_yes &= m.value;
            break;
        case QUERY:
            if (r->decision == UNDECIDED) {
                r->sealed = 1;
                if (r->waiting == NULL)
                    r->waiting = MPL_calloc(MPIR_Process.size, 1, MPL_MEM_COLL);
                if (r->waiting)
                    r->waiting[from] = 1;
            }
            send_state(from, r);
            break;
        case STATE:
            if (m.value == COMMIT && !take_output(r, result, result_len))
                return drop_message(from, "shared output of the wrong length, or no memory");
            /* decisions are unanimous: a member that knows one ends the
             * asker's termination protocol */
            if (r->terminating && m.value != UNDECIDED && r->decision == UNDECIDED)
                r->decision = m.value;
            /* the latest word counts: one that gave up driving says so */
            if (from == r->delegate && m.value == UNDECIDED)
                r->delegate_answer = m.round ? DRIVES : IDLE;
            break;
        case SWEEP:{
                swept(r, from, m.round, result, result_len / sizeof(int));
                break;
            }
        case REPORT:{
                if (m.value == COMMIT && !take_output(r, result, result_len))
                    return drop_message(from, "shared output of the wrong length, or no memory");
                sweep_t *sw = find_sweep(r, m.round);
                if (sw)
                    sweep_reported(sw, from, m.value);
                else if (r->decision == UNDECIDED && m.value != UNDECIDED &&
                         (r->terminating || r->sealed))
                    r->decision = m.value;
                break;
            }
    }
}

__attribute__ ((constructor))
static void register_commit_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_COMMIT, commit_message, MPID_FT_FROM_THIS_WORLD);
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
    int yes;                    /* this process's own part */
    int rounds;                 /* ceil(log2(members)) */
    int sent;                   /* rounds whose VOTE this process sent */
    unsigned failures_checked;  /* MPID_FT_failure_count() when last looked at */
    MPIR_FTMPI_shared_output_t *shared;
    enum { DISSEMINATING, TERMINATING } phase;
    int sweeping;               /* the termination protocol sweeps the tree from here */
    int asked_rank;             /* the member asked last (-1: none yet) */
};

/* collective_failed, looked at again only once the device has learned of
 * another failure (a loop over the members at every poll would cost the
 * failure-free commit time in proportion to their number) */
static int failed_since_last_check(MPIR_FTMPI_vote_t * v)
{
    unsigned failures = MPID_FT_failure_count();
    if (failures == v->failures_checked)
        return 0;
    v->failures_checked = failures;
    return collective_failed(v->comm);
}

/* Sends this process's VOTE of the next round: the AND of the votes it
 * knows, to the member 2^round ranks ahead. */
static void send_round(MPIR_FTMPI_vote_t * v)
{
    MPIR_Comm *comm = v->comm;
    int to = (comm->rank + (1 << v->sent)) % comm->local_size;
    int value = v->yes && v->r->all_yes;

    send_msg(MPID_FT_comm_local_pid(comm, to), VOTE, v->r, v->sent, value);
    MPID_FT_TRACE("commit %x/%u/%u/%u: round %d: sends %d to rank %d", v->r->context_id,
                  v->r->epoch, v->r->instance, v->r->seq, v->sent, value, to);
    v->sent++;
}

/* A no is known: the remaining rounds carry it at once, and this process
 * decides ABORT (nobody can see every vote yes any more). */
static void abort_early(MPIR_FTMPI_vote_t * v)
{
    while (v->sent < v->rounds)
        send_round(v);
    v->r->decision = ABORT;
}

/* The members in the tree's order, counted from the lowest live one
 * (which comes first); *me_at is this process's place. */
static int *tree_order(MPIR_Comm * comm, int *me_at)
{
    int n = comm->local_size, lowest = 0;
    int *pids = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
    if (pids == NULL)
        return NULL;
    while (lowest < n - 1 && member_dead(comm, lowest))
        lowest++;
    for (int v = 0; v < n; v++) {
        int rank = (lowest + v) % n;
        pids[v] = MPID_FT_comm_local_pid(comm, rank);
        if (rank == comm->rank)
            *me_at = v;
    }
    return pids;
}

/* This process may never hear from everyone: it asks its parent in the
 * tree, or the next one up when the one it asked does not decide by
 * itself (after one died: its own parent again); it sweeps the tree
 * itself when it is the root, or once the root turned out not to decide
 * by itself (then it never asks one alone again for this commit). */
static int start_termination(MPIR_FTMPI_vote_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = v->comm;
    record_t *r = v->r;
    int me = 0;
    int *pids = tree_order(comm, &me);

    MPIR_ERR_CHKANDJUMP(pids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    r->terminating = 1;
    /* a rank's place in the tree counts from the lowest live rank */
    int n = comm->local_size, lowest = comm->rank - me;
    /* where to go up from: this process, or the one that did not decide */
    int from = me;
    if (v->asked_rank >= 0 && !member_dead(comm, v->asked_rank))
        from = (v->asked_rank - lowest + n) % n;
    if (r->decision != UNDECIDED) {
        /* (a sweep brought the decision before this process needed it) */
    } else if (from != 0 && !v->sweeping) {
        int parent = from & (from - 1);
        while (parent != 0 && MPIR_FTMPI_known_dead(pids[parent]))
            parent &= parent - 1;
        v->asked_rank = (lowest + parent) % n;
        r->delegate = pids[parent];
        r->delegate_answer = NO_ANSWER;
        MPID_FT_TRACE("commit %x/%u/%u/%u: termination protocol (sealed %d), asks process %d",
                      r->context_id, r->epoch, r->instance, r->seq, r->sealed, r->delegate);
        send_msg(r->delegate, QUERY, r, 0, 0);
    } else {
        MPID_FT_TRACE("commit %x/%u/%u/%u: termination protocol (sealed %d), sweeps",
                      r->context_id, r->epoch, r->instance, r->seq, r->sealed);
        v->sweeping = 1;
        r->delegate = -1;
        /* this process first, then the others in the tree's order */
        int tmp = pids[0];
        pids[0] = pids[me];
        pids[me] = tmp;
        MPIR_Assert(pids[0] == MPIR_Process.rank);
        if (find_sweep(r, MPIR_Process.rank) == NULL &&
            start_sweep(r, MPIR_Process.rank, -1, pids, n) == NULL)
            MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    v->phase = TERMINATING;

  fn_exit:
    MPL_free(pids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A shared output needs no votes: this member's own output decides COMMIT
 * unless a query sealed it; without one, or sealed, it asks the others. */
static int shared_start(MPIR_FTMPI_vote_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    record_t *r = v->r;

    r->shared = 1;
    r->result_len = v->shared->len;
    if (v->yes) {
        mpi_errno = keep_result(r, v->shared->packed, v->shared->len);
        MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**nomem");
    }
    if (v->yes && !r->sealed) {
        MPIR_FTMPI_atomic_test_death("after-vote");
        MPIR_FTMPI_atomic_test_death("before-decision");
        r->decision = COMMIT;
    } else {
        mpi_errno = start_termination(v);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int vote_start(MPIR_FTMPI_vote_t * v, MPIR_Comm * comm, uint32_t instance,
                      uint32_t seq, int yes, MPIR_FTMPI_shared_output_t * shared)
{
    int mpi_errno = MPI_SUCCESS;

    v->r = find_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    MPIR_ERR_CHKANDJUMP(v->r == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    v->r->held = 1;
    v->comm = comm;
    v->yes = yes;
    v->shared = shared;
    v->phase = DISSEMINATING;
    v->sweeping = 0;
    v->asked_rank = -1;
    v->sent = 0;
    /* the first poll looks at the members */
    v->failures_checked = MPID_FT_failure_count() - 1;
    for (v->rounds = 0; (1 << v->rounds) < comm->local_size; v->rounds++);
    if (shared) {
        MPID_FT_TRACE("commit %x/%u/%u/%u: starts, part %s, shared output of %zu bytes "
                      "(no votes)", v->r->context_id, v->r->epoch, instance, seq,
                      yes ? "succeeded" : "failed", shared->len);
        mpi_errno = shared_start(v);
        MPIR_ERR_CHECK(mpi_errno);
        goto fn_exit;
    }
    MPID_FT_TRACE("commit %x/%u/%u/%u: starts, votes %s, %d rounds", v->r->context_id,
                  v->r->epoch, instance, seq, yes ? "yes" : "no", v->rounds);
    if (!yes) {
        abort_early(v);
    } else if (v->rounds > 0) {
        send_round(v);
        MPIR_FTMPI_atomic_test_death("after-vote");
    }
    mpi_errno = v->r->send_errno;
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (v->r)
        v->r->held = 0;
    goto fn_exit;
}

static int vote_test(MPIR_FTMPI_vote_t * v, int *done, int *commit)
{
    int mpi_errno = MPI_SUCCESS;
    record_t *r = v->r;
    uint32_t all_rounds = (1u << v->rounds) - 1;

    *done = 0;
    mpi_errno = r->send_errno;
    MPIR_ERR_CHECK(mpi_errno);
    if (v->phase == DISSEMINATING && r->decision == UNDECIDED) {
        if (!r->all_yes) {
            abort_early(v);
        } else {
            /* each round's VOTE goes out once the previous round's is heard */
            while (v->sent < v->rounds && (r->rounds_heard >> (v->sent - 1)) & 1)
                send_round(v);
            if ((r->rounds_heard & all_rounds) == all_rounds && !r->sealed) {
                MPIR_FTMPI_atomic_test_death("before-decision");
                r->decision = r->all_yes ? COMMIT : ABORT;
            } else if (r->sealed || failed_since_last_check(v)) {
                mpi_errno = start_termination(v);
                MPIR_ERR_CHECK(mpi_errno);
            }
        }
    } else if (v->phase == TERMINATING && r->decision == UNDECIDED) {
        /* a no was heard (a VOTE 0 can arrive after the termination
         * protocol started): no member can see every vote yes */
        if (!r->all_yes) {
            r->decision = ABORT;
        } else if (r->delegate >= 0) {
            /* asked alone: its decision ends this one's wait, unless it
             * died or does not decide by itself */
            if (MPIR_FTMPI_known_dead(r->delegate) || r->delegate_answer == IDLE) {
                mpi_errno = start_termination(v);
                MPIR_ERR_CHECK(mpi_errno);
            }
        }
        /* (a sweep from here ends with the decision, in its progress hook) */
    }
    if (r->decision == UNDECIDED)
        goto fn_exit;
    *done = 1;
    r->held = 0;
    *commit = r->decision == COMMIT;
    if (*commit && v->shared && !v->yes && v->shared->len)
        memcpy(v->shared->packed, r->result, v->shared->len);
    MPID_FT_TRACE("commit %x/%u/%u/%u: %s", r->context_id, r->epoch, r->instance, r->seq,
                  *commit ? "COMMIT" : "ABORT");
    /* those that asked while this process was undecided may wait for a
     * member that cannot answer them (seen: one that had voted no and gone
     * into recovery); this decision ends their wait */
    if (r->waiting)
        for (int pid = 0; pid < MPIR_Process.size; pid++)
            if (r->waiting[pid])
                send_state(pid, r);

  fn_exit:
    return mpi_errno;
  fn_fail:
    r->held = 0;
    goto fn_exit;
}

int MPIR_FTMPI_commit_start(MPIR_Comm * comm, uint32_t instance, uint32_t seq, int yes,
                            MPIR_FTMPI_shared_output_t * shared, MPIR_FTMPI_vote_t ** vote)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FTMPI_vote_t *v = MPL_malloc(sizeof(*v), MPL_MEM_COLL);

    MPIR_ERR_CHKANDJUMP(v == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = vote_start(v, comm, instance, seq, yes, shared);
    MPIR_ERR_CHECK(mpi_errno);
    *vote = v;

  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(v);
    goto fn_exit;
}

int MPIR_FTMPI_commit_test(MPIR_FTMPI_vote_t * v, int *done, int *commit)
{
    int mpi_errno = vote_test(v, done, commit);
    if (*done || mpi_errno != MPI_SUCCESS)
        MPL_free(v);
    return mpi_errno;
}

void MPIR_FTMPI_commit_expect(MPIR_Comm * comm, uint32_t instance, uint32_t seq)
{
    /* undecided records are never reused, so this one stays */
    record_t *r = find_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    if (r && r->decision == UNDECIDED)
        r->driving = 1;
}

/* Those that asked while this process drove hear that it no longer does
 * (an undecided answer without the flag) and ask everyone. */
static void stop_driving(record_t * r)
{
    if (!r->driving)
        return;
    r->driving = 0;
    if (r->decision == UNDECIDED && r->waiting)
        for (int pid = 0; pid < MPIR_Process.size; pid++)
            if (r->waiting[pid])
                send_state(pid, r);
}

void MPIR_FTMPI_commit_unexpect(MPIR_Comm * comm, uint32_t instance, uint32_t seq)
{
    record_t *r = find_record(comm->context_id, MPID_FT_epoch(), instance, seq);
    if (r)
        stop_driving(r);
}

typedef struct {
    MPIR_FTMPI_vote_t v;
    int done;
    int *commit;
    int mpi_errno;
} blocking_vote_t;

static int blocking_vote_step(void *arg)
{
    blocking_vote_t *b = arg;
    b->mpi_errno = vote_test(&b->v, &b->done, b->commit);
    return b->done || b->mpi_errno != MPI_SUCCESS;
}

int MPIR_FTMPI_commit(MPIR_Comm * comm, uint32_t instance, uint32_t seq, int yes,
                      MPIR_FTMPI_shared_output_t * shared, int *commit)
{
    blocking_vote_t b = {.commit = commit };
    int mpi_errno;

    mpi_errno = vote_start(&b.v, comm, instance, seq, yes, shared);
    if (mpi_errno != MPI_SUCCESS) {
        MPIR_FTMPI_commit_unexpect(comm, instance, seq);
        return mpi_errno;
    }
    /* this wait runs until the commit is decided: a member that asks this
     * process alone may wait for it */
    record_t *r = b.v.r;
    r->driving = 1;
    mpi_errno = MPID_FT_wait(blocking_vote_step, &b, "an atomic collective's commit");
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = b.mpi_errno;
    if (b.done)
        r->driving = 0;
    else
        stop_driving(r);
    return mpi_errno;
}
