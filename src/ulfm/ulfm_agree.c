/*
 * FT-MPICH: ULFM on the device's fault-tolerance services (mpid_ft.h).
 *
 * Agreement over a communicator (MPIX_Comm_agree, and the steps of
 * MPIX_Comm_shrink): every surviving member returns the same AND of the
 * flags contributed, the same set of members that did not contribute
 * (failed before they could), and the same verdict on whether to raise
 * MPIX_ERR_PROC_FAILED: raised when some non-contributor's failure was
 * not acknowledged by every contributor.
 *
 * Protocol, per agreement (communicator context id, sequence number):
 *   - A member sends CONTRIB(flag, the ranks whose failure it acknowledged)
 *     to its coordinator, the lowest rank it does not know to have failed,
 *     and again to the next one whenever that one fails.
 *   - The coordinator decides once every member it does not know to have
 *     failed has contributed, and sends DECIDE to all of them.
 *   - A coordinator that took over from a failed one first sends QUERY to
 *     every member: one that already has a decision answers with DECIDE,
 *     which the coordinator adopts and passes on; any other answers with
 *     CONTRIB and from then on takes DECIDE only from that coordinator.
 *   - A member takes DECIDE only from its coordinator (or, the
 *     coordinator itself, from anyone answering its QUERY); a member that
 *     has decided answers every later CONTRIB or QUERY with its DECIDE,
 *     also after it returned from the call.
 *
 * Why survivors agree: a decision reaches the survivors either from its
 * coordinator or, when that one failed part way, through its successor's
 * QUERY, which every survivor answers before the successor decides;
 * a survivor that answered with CONTRIB has stopped listening to the
 * failed coordinator, so no earlier decision can reach it afterwards.
 * Why it ends: a coordinator waits only for members it does not know to
 * have failed, every failure becomes known to every survivor, and each
 * failure of a coordinator moves the role one rank up.
 * Cost without failures: n - 1 CONTRIB and n - 1 DECIDE messages, two
 * steps; after a coordinator failure, one QUERY round more.
 */

#include "mpiimpl.h"
#include "ulfm.h"
#include "mpid_ft.h"
#include "ftmpi_recovery.h"

enum { MSG_CONTRIB = 1, MSG_DECIDE, MSG_QUERY };

typedef struct {
    uint32_t kind;
    uint32_t context_id;
    uint32_t seq;
    uint32_t size;              /* members of the communicator */
    int32_t rank;               /* CONTRIB: the sender's rank */
    int32_t flag;               /* CONTRIB: its flag; DECIDE: the AND */
    int32_t raise;              /* DECIDE: raise MPIX_ERR_PROC_FAILED */
    uint8_t ranks[];            /* CONTRIB: acknowledged failures; DECIDE: non-contributors */
} agree_msg_t;

typedef struct instance {
    struct instance *next;
    uint32_t context_id, seq, size;
    int entered;                /* this process is in (or was in) this agreement */
    int own_rank, own_pid;      /* this process's rank in the communicator, and pid */
    int coordinator_pid;        /* whom this process takes DECIDE from; -1: none yet */
    int own_flag;
    uint8_t *own_acked;
    /* contributions, gathered by the coordinator */
    uint8_t *contributed;
    uint8_t *acked_by_all;
    int flag_and;
    /* the decision */
    int decided;
    int flag, raise;
    uint8_t *absent;
} instance_t;

static instance_t *instances;

static size_t set_bytes(uint32_t size)
{
    return (size + 7) / 8;
}

static int in_set(const uint8_t * set, int i)
{
    return (set[i / 8] >> (i % 8)) & 1;
}

static void add_to_set(uint8_t * set, int i)
{
    set[i / 8] |= (uint8_t) (1 << (i % 8));
}

static void free_instance(instance_t * in)
{
    MPL_free(in->own_acked);
    MPL_free(in->contributed);
    MPL_free(in->acked_by_all);
    MPL_free(in->absent);
    MPL_free(in);
}

/* The record of agreement (context_id, seq), created when create is set;
 * NULL when it does not exist or memory ran out. */
static instance_t *instance(uint32_t context_id, uint32_t seq, uint32_t size, int create)
{
    instance_t *in;
    for (in = instances; in; in = in->next)
        if (in->context_id == context_id && in->seq == seq)
            return in->size == size ? in : NULL;
    if (!create)
        return NULL;
    size_t bytes = set_bytes(size);
    in = MPL_calloc(1, sizeof(*in), MPL_MEM_OTHER);
    if (in == NULL)
        return NULL;
    in->own_acked = MPL_calloc(bytes, 1, MPL_MEM_OTHER);
    in->contributed = MPL_calloc(bytes, 1, MPL_MEM_OTHER);
    in->acked_by_all = MPL_malloc(bytes, MPL_MEM_OTHER);
    in->absent = MPL_calloc(bytes, 1, MPL_MEM_OTHER);
    if (!in->own_acked || !in->contributed || !in->acked_by_all || !in->absent) {
        free_instance(in);
        return NULL;
    }
    memset(in->acked_by_all, 0xff, bytes);
    in->context_id = context_id;
    in->seq = seq;
    in->size = size;
    in->flag_and = ~0;
    in->coordinator_pid = -1;
    in->next = instances;
    instances = in;
    return in;
}

/* Records older than the agreement before the current one are no longer
 * asked about; so are those of an earlier communicator with the same
 * context id, which a first agreement replaces. */
static void forget_older(uint32_t context_id, uint32_t seq)
{
    instance_t **p = &instances;
    while (*p) {
        instance_t *in = *p;
        if (in->context_id == context_id && (in->seq + 1 < seq || (seq == 1 && in->seq > 1) ||
                                             (seq == 1 && in->seq == 1 && in->entered))) {
            *p = in->next;
            free_instance(in);
        } else {
            p = &in->next;
        }
    }
}

static void send_msg(int to_pid, int kind, const instance_t * in, int rank)
{
    size_t bytes = set_bytes(in->size), len = sizeof(agree_msg_t) + bytes;
    agree_msg_t *m = MPL_calloc(1, len, MPL_MEM_OTHER);
    if (m == NULL)
        return; /* as if lost with a failure: the protocol asks again */
    m->kind = kind;
    m->context_id = in->context_id;
    m->seq = in->seq;
    m->size = in->size;
    m->rank = rank;
    if (kind == MSG_CONTRIB) {
        m->flag = in->own_flag;
        memcpy(m->ranks, in->own_acked, bytes);
    } else if (kind == MSG_DECIDE) {
        m->flag = in->flag;
        m->raise = in->raise;
        memcpy(m->ranks, in->absent, bytes);
    }
    MPID_FT_send(to_pid, MPID_FT_CHANNEL_ULFM_AGREE, m, len);
    MPL_free(m);
}

static void add_contribution(instance_t * in, int rank, int flag, const uint8_t * acked)
{
    if (in_set(in->contributed, rank))
        return;
    add_to_set(in->contributed, rank);
    in->flag_and &= flag;
    for (size_t i = 0; i < set_bytes(in->size); i++)
        in->acked_by_all[i] &= acked[i];
}

static void adopt(instance_t * in, int flag, int raise, const uint8_t * absent)
{
    in->decided = 1;
    in->flag = flag;
    in->raise = raise;
    memcpy(in->absent, absent, set_bytes(in->size));
}

static void agree_message(int from, const void *buf, size_t len)
{
    const agree_msg_t *m = buf;

    if (len < sizeof(*m) || m->size == 0 || m->size > (uint32_t) MPIR_Process.size ||
        len != sizeof(*m) + set_bytes(m->size) || m->kind < MSG_CONTRIB || m->kind > MSG_QUERY ||
        (m->kind == MSG_CONTRIB && (m->rank < 0 || (uint32_t) m->rank >= m->size))) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped a malformed agreement message from rank %d\n",
                MPIR_Process.rank, from);
        return;
    }
    instance_t *in = instance(m->context_id, m->seq, m->size, 1);
    if (in == NULL) {
        fprintf(stderr, "FT-MPICH: rank %d: dropped an agreement message from rank %d "
                "(no memory, or it disagrees on the communicator's size)\n",
                MPIR_Process.rank, from);
        return;
    }
    MPIR_FTMPI_TRACE("agree %#x/%u: %s from process %d", m->context_id, m->seq,
                     m->kind == MSG_CONTRIB ? "contribution" : m->kind == MSG_DECIDE ?
                     "decision" : "query", from);

    switch (m->kind) {
        case MSG_CONTRIB:
            if (in->decided)
                send_msg(from, MSG_DECIDE, in, -1);
            else
                add_contribution(in, m->rank, m->flag, m->ranks);
            break;
        case MSG_QUERY:
            if (in->decided) {
                send_msg(from, MSG_DECIDE, in, -1);
            } else if (in->entered) {
                in->coordinator_pid = from;
                send_msg(from, MSG_CONTRIB, in, in->own_rank);
            }
            break;
        case MSG_DECIDE:
            /* the coordinator (coordinator_pid is itself) takes it from
             * anyone answering its query */
            if (!in->decided && (from == in->coordinator_pid ||
                                 (in->entered && in->coordinator_pid == in->own_pid)))
                adopt(in, m->flag, m->raise, m->ranks);
            break;
    }
}

__attribute__ ((constructor))
static void register_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_ULFM_AGREE, agree_message);
}

static int lowest_alive(MPIR_Comm * comm)
{
    for (int r = 0; r < comm->local_size; r++)
        if (r == comm->rank || MPID_FT_proc_state(MPID_FT_comm_pid(comm, r)) == MPID_FT_PROC_ALIVE)
            return r;
    return comm->rank;
}

/* The coordinator decides once every member not known to have failed
 * has contributed. */
static int try_decide(MPIR_Comm * comm, instance_t * in)
{
    int raise = 0;

    /* called at every progress step while waiting: nothing is allocated
     * until everyone awaited has contributed */
    for (int r = 0; r < (int) in->size; r++)
        if (!in_set(in->contributed, r) &&
            MPID_FT_proc_state(MPID_FT_comm_pid(comm, r)) == MPID_FT_PROC_ALIVE)
            return 0;

    uint8_t *absent = MPL_calloc(set_bytes(in->size), 1, MPL_MEM_OTHER);
    if (absent == NULL)
        return 0;
    for (int r = 0; r < (int) in->size; r++) {
        if (in_set(in->contributed, r))
            continue;
        add_to_set(absent, r);
        raise |= !in_set(in->acked_by_all, r);
    }
    adopt(in, in->flag_and, raise, absent);
    MPL_free(absent);
    return 1;
}

static void announce(MPIR_Comm * comm, instance_t * in)
{
    MPIR_FTMPI_TRACE("agree %#x/%u: decided flag %#x%s", in->context_id, in->seq,
                     (unsigned) in->flag, in->raise ? ", raise MPIX_ERR_PROC_FAILED" : "");
    for (int r = 0; r < (int) in->size; r++)
        if (r != comm->rank && !in_set(in->absent, r))
            send_msg(MPID_FT_comm_pid(comm, r), MSG_DECIDE, in, -1);
}

/* ---- one agreement, in steps ----------------------------------------------------- */

/* Enters agreement over comm with `flag`. */
static int agree_start(MPIR_Comm * comm, int flag, MPIR_ULFM_agreement_t * ag)
{
    int mpi_errno = MPI_SUCCESS;
    uint32_t seq = MPID_FT_comm_next_agreement(comm);
    int n = comm->local_size;
    instance_t *in;

    MPIR_ERR_CHKANDJUMP1(comm->comm_kind == MPIR_COMM_KIND__INTERCOMM, mpi_errno, MPI_ERR_COMM,
                         "**ulfm_intercomm", "**ulfm_intercomm %s", "agreement");
    forget_older(comm->context_id, seq);
    in = instance(comm->context_id, seq, n, 1);
    MPIR_ERR_CHKANDJUMP(in == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    in->entered = 1;
    in->own_rank = comm->rank;
    in->own_pid = MPID_FT_comm_pid(comm, comm->rank);
    in->own_flag = flag;
    for (int r = 0; r < n; r++)
        if (MPID_FT_comm_acked(comm, r))
            add_to_set(in->own_acked, r);
    ag->comm = comm;
    ag->context_id = comm->context_id;
    ag->seq = seq;
    ag->coordinator = -1;
    MPIR_FTMPI_TRACE("agree %#x/%u: enter with flag %#x", comm->context_id, seq, (unsigned) flag);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Moves the agreement on with what progress delivered; returns 1 once it
 * decided, with the outcome in *flag and *outcome. */
static int agree_step(MPIR_ULFM_agreement_t * ag, int *flag, MPIR_ULFM_outcome_t * outcome)
{
    MPIR_Comm *comm = ag->comm;
    int n = comm->local_size, me = comm->rank;
    instance_t *in = instance(ag->context_id, ag->seq, n, 0);

    if (in == NULL)
        return 0;       /* cannot happen: an entered record is kept until the next agreement */
    if (!in->decided) {
        int c = lowest_alive(comm);
        if (c != ag->coordinator) {
            ag->coordinator = c;
            if (c == me) {
                in->coordinator_pid = in->own_pid;
                add_contribution(in, me, in->own_flag, in->own_acked);
                if (c != 0) {
                    /* taking over: someone may hold a decision already */
                    MPIR_FTMPI_TRACE("agree %#x/%u: coordinator after a failure, asking",
                                     ag->context_id, ag->seq);
                    for (int r = 0; r < n; r++)
                        if (r != me)
                            send_msg(MPID_FT_comm_pid(comm, r), MSG_QUERY, in, -1);
                }
            } else if (in->coordinator_pid != MPID_FT_comm_pid(comm, c)) {
                in->coordinator_pid = MPID_FT_comm_pid(comm, c);
                send_msg(in->coordinator_pid, MSG_CONTRIB, in, me);
            }
        }
        if (ag->coordinator != me || !try_decide(comm, in))
            return 0;
    }
    if (ag->coordinator == me)
        announce(comm, in);

    /* the absent are failed processes (ULFM: acknowledging after the
     * agreement acknowledges them), whether or not this one knew yet */
    for (int r = 0; r < n; r++)
        if (in_set(in->absent, r) && MPID_FT_proc_state(MPID_FT_comm_pid(comm, r)) ==
            MPID_FT_PROC_ALIVE)
            MPID_FT_failure_learned(MPID_FT_comm_pid(comm, r), "left out of an agreement");
    *flag = in->flag;
    outcome->raise = in->raise;
    outcome->absent = in->absent;
    outcome->seq = ag->seq;
    return 1;
}

int MPIR_ULFM_agree(MPIR_Comm * comm, int *flag, MPIR_ULFM_outcome_t * outcome)
{
    MPIR_ULFM_agreement_t ag;
    int mpi_errno = agree_start(comm, *flag, &ag);

    if (mpi_errno == MPI_SUCCESS)
        while (!agree_step(&ag, flag, outcome))
            MPID_Progress_test(NULL);
    return mpi_errno;
}

/* ---- nonblocking: MPIX_Comm_iagree ------------------------------------------------- */

typedef struct iagree {
    struct iagree *next;
    MPIR_ULFM_agreement_t ag;
    MPIR_Request *req;
    int *user_flag;
} iagree_t;

static iagree_t *iagrees;
static int iagree_hook = -1;

static int iagree_progress(int *made_progress)
{
    iagree_t **p = &iagrees;
    while (*p) {
        iagree_t *op = *p;
        MPIR_ULFM_outcome_t outcome;
        int flag;
        if (!agree_step(&op->ag, &flag, &outcome)) {
            p = &op->next;
            continue;
        }
        *op->user_flag = flag;
        if (outcome.raise)
            MPIR_ERR_SET(op->req->status.MPI_ERROR, MPIX_ERR_PROC_FAILED, "**ulfm_agree");
        MPIR_Comm_release(op->ag.comm);
        MPIR_cc_set(&op->req->cc, 0);
        MPIR_Request_free(op->req);
        *p = op->next;
        MPL_free(op);
        *made_progress = 1;
    }
    if (iagrees == NULL)
        MPIR_Progress_hook_deactivate(iagree_hook);
    return MPI_SUCCESS;
}

int MPIR_ULFM_iagree(MPIR_Comm * comm, int *flag, MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    iagree_t *op = MPL_calloc(1, sizeof(*op), MPL_MEM_OTHER);

    *request = NULL;
    MPIR_ERR_CHKANDJUMP(op == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    if (iagree_hook < 0) {
        mpi_errno = MPIR_Progress_hook_register(iagree_progress, &iagree_hook);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = agree_start(comm, *flag, &op->ag);
    MPIR_ERR_CHECK(mpi_errno);
    op->req = MPIR_Request_create(MPIR_REQUEST_KIND__COLL);
    MPIR_ERR_CHKANDJUMP(op->req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* one reference for the user, one for the agreement */
    MPIR_Request_add_ref(op->req);
    op->user_flag = flag;
    MPIR_Comm_add_ref(comm);
    op->next = iagrees;
    iagrees = op;
    MPIR_Progress_hook_activate(iagree_hook);
    *request = op->req;
    op = NULL;

  fn_exit:
    MPL_free(op);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
