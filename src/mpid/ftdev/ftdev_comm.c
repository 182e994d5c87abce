/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Communicator hooks: the table that turns a sender's process id (carried
 * in the UCX tag) back into its rank in the communicator.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_ulfm.h"

typedef struct {
    int pid;
    int rank;
} pid_rank_t;

static int by_pid(const void *a, const void *b)
{
    return ((const pid_rank_t *) a)->pid - ((const pid_rank_t *) b)->pid;
}

static int pid_of_rank(MPIR_Comm * comm, int rank)
{
    return MPIDI_FTDEV_AV(MPIDIU_comm_rank_to_av(comm, rank)).pid;
}

/* Peers are the remote group of an intercommunicator, the group itself of
 * an intracommunicator (whose remote_size is its size). */
static int build_pid_map(MPIR_Comm * comm)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);
    int n = comm->remote_size;
    pid_rank_t *pairs = NULL;

    c->n = n;
    c->pid = c->rank = NULL;
    c->offset = n > 0 ? pid_of_rank(comm, 0) : 0;

    int rank;
    for (rank = 1; rank < n && pid_of_rank(comm, rank) == c->offset + rank; rank++);
    if (rank == n)
        goto fn_exit;

    pairs = MPL_malloc(n * sizeof(*pairs), MPL_MEM_COMM);
    c->pid = MPL_malloc(n * sizeof(int), MPL_MEM_COMM);
    c->rank = MPL_malloc(n * sizeof(int), MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP(!pairs || !c->pid || !c->rank, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (rank = 0; rank < n; rank++) {
        pairs[rank].pid = pid_of_rank(comm, rank);
        pairs[rank].rank = rank;
    }
    qsort(pairs, n, sizeof(*pairs), by_pid);
    for (int i = 0; i < n; i++) {
        c->pid[i] = pairs[i].pid;
        c->rank[i] = pairs[i].rank;
    }

  fn_exit:
    MPL_free(pairs);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Context ids held after their communicator was freed. A communicator
 * that ran a protocol (an agreement, a revocation) or outlived a failure
 * leaves records and messages behind: a late REVOKE duplicate, a query
 * from an agreement's takeover coordinator, a halo message sent before the
 * sender heard of a revocation. They name the communicator by its context
 * id only. While this process holds the id, no new communicator that it
 * belongs to can get it (an allocation needs every member to offer the id
 * as free), so anything that arrives naming it is about the freed
 * communicator: a REVOKE is stale, an agreement query is answered from the
 * decided record. The last HELD_CONTEXT_IDS such ids are held; the oldest
 * is given back to MPICH when another comes, and what is left of its
 * messages and records is dropped then. */
#define HELD_CONTEXT_IDS 32
static MPIR_Context_id_t held_context[HELD_CONTEXT_IDS];
static int num_held, oldest_held;
int MPIDI_FTDEV_context_is_held(uint32_t context_id)
{
    for (int i = 0; i < num_held; i++)
        if (held_context[i] == context_id)
            return 1;
    return 0;
}

static void release_context(MPIR_Context_id_t context_id)
{
    MPID_FT_TRACE("comm free: context id %#x given back", context_id);
    MPIDI_FTDEV_global.failures.generation++;
    if (MPIDI_FTDEV_global.ucx.worker)
        MPIDI_FTDEV_drain_context(context_id);
    if (MPIDI_FTDEV_global.upper.events.context_released)
        MPIDI_FTDEV_global.upper.events.context_released(context_id);
    MPIR_Free_contextid(context_id);
}

static void hold_context(MPIR_Context_id_t context_id)
{
    MPIDI_FTDEV_global.failures.generation++;
    if (num_held < HELD_CONTEXT_IDS) {
        held_context[num_held++] = context_id;
        return;
    }
    MPIR_Context_id_t oldest = held_context[oldest_held];
    held_context[oldest_held] = context_id;
    oldest_held = (oldest_held + 1) % HELD_CONTEXT_IDS;
    release_context(oldest);
}

int MPIDI_FTDEV_comm_holds_context_id(MPIR_Comm * comm)
{
    if (!MPIDI_FTDEV_COMM(comm).holds_context)
        return 0;
    hold_context(comm->recvcontext_id);
    return 1;
}

int MPIDI_FTDEV_num_held_contexts(void)
{
    return num_held;
}

uint32_t MPIDI_FTDEV_held_context(int i)
{
    return held_context[i];
}

/* Gives back every held id (MPI_Finalize). */
void MPIDI_FTDEV_release_held_contexts(void)
{
    while (num_held > 0) {
        MPIR_Context_id_t id = held_context[(oldest_held + --num_held) % HELD_CONTEXT_IDS];
        MPIR_Free_contextid(id);
    }
    oldest_held = 0;
}

int MPID_FT_comm_pid(MPIR_Comm * comm, int rank)
{
    return MPIDI_FTDEV_AV(MPIDIU_comm_rank_to_av(comm, rank)).pid;
}

static int is_builtin_world_or_self(MPIR_Comm * comm)
{
    return comm == MPIR_Process.comm_world || comm == MPIR_Process.comm_self;
}

/* ULFM's revocations that came before their communicator (ftdev_ulfm.c) */
static MPIDI_FTDEV_comm_observer_t new_comm_observer;

void MPIDI_FTDEV_observe_new_comms(MPIDI_FTDEV_comm_observer_t observer)
{
    new_comm_observer = observer;
}

int MPIDI_FTDEV_mpi_comm_commit_pre_hook(MPIR_Comm * comm)
{
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);

    c->next = c->prev = NULL;
    memset(&c->coll, 0, sizeof(c->coll));
    c->num_acked = 0;
    c->agreements = 0;
    c->holds_context = 0;
    MPIDI_FTDEV_global.failures.generation++;
    c->failed_member_generation = MPIDI_FTDEV_global.failures.generation - 1;
    if (!is_builtin_world_or_self(comm)) {
        c->next = MPIDI_FTDEV_global.objects.comms;
        if (c->next)
            MPIDI_FTDEV_COMM(c->next).prev = comm;
        MPIDI_FTDEV_global.objects.comms = comm;
    }
    int mpi_errno = build_pid_map(comm);
    if (new_comm_observer)
        new_comm_observer(comm);
    return mpi_errno;
}

int MPIDI_FTDEV_mpi_comm_commit_post_hook(MPIR_Comm * comm)
{
    return MPI_SUCCESS;
}

/* From this netmod's own table: ch4 has released the communicator's rank
 * maps by the time the free hook runs. */
static int has_failed_peer(MPIR_Comm * comm)
{
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);
    for (int i = 0; i < c->n; i++)
        if (MPIDI_FTDEV_peer_is_failed(c->pid ? c->pid[i] : c->offset + i))
            return 1;
    return 0;
}

/* A communicator left behind by a failure (revoked, or with a dead member)
 * may leave messages in UCX's unexpected queue that no receive will ever
 * take: a halo exchange its members sent before they heard of the
 * revocation, say. Its context id is free again once this hook returns, and
 * the next communicator to get it (a shrink's, typically) would match them
 * as its own. They are dropped now, while no communicator here can have the
 * id: a new one that will get it needs this process to offer it first. */
static int drop_leftover_messages(MPIR_Comm * comm)
{
    /* FT-MPI recovery rebuilds communicators with the ids they had and
     * keeps old messages apart by the epoch in the tag (RESET) or on
     * purpose for the survivors (CONT); only ULFM and IGNORE hand a freed
     * id to whatever communicator MPICH allocates next */
    if (MPIDI_FTDEV_global.ucx.worker == NULL || MPIDI_FTDEV_global.upper.policy.halts_on_failure ||
        (!comm->revoked && !has_failed_peer(comm)))
        return 0;
    MPID_FT_TRACE("comm free: communicator %#x outlived a failure; what is left of its "
                  "messages is dropped", comm->recvcontext_id);
    MPIDI_FTDEV_drain_context(comm->recvcontext_id);
    return 1;
}

int MPIDI_FTDEV_mpi_comm_free_hook(MPIR_Comm * comm)
{
    MPIDI_FTDEV_comm_t *c = &MPIDI_FTDEV_COMM(comm);
    if (MPIDI_FTDEV_global.upper.events.comm_freed)
        MPIDI_FTDEV_global.upper.events.comm_freed(comm);
    int left_behind = drop_leftover_messages(comm);
    /* a communicator of its own: MPICH frees no id for node-level and
     * intercommunicators' local ones */
    c->holds_context = !is_builtin_world_or_self(comm) && MPIDI_FTDEV_global.ucx.worker &&
        !MPIR_CONTEXT_READ_FIELD(SUBCOMM, comm->recvcontext_id) &&
        !MPIR_CONTEXT_READ_FIELD(IS_LOCALCOMM, comm->recvcontext_id) &&
        !MPIR_CONTEXT_READ_FIELD(DYNAMIC_PROC, comm->recvcontext_id) &&
        (left_behind || c->agreements > 0);
    if (comm->revoked)
        MPIDI_FTDEV_global.failures.num_refusal_causes--;
    MPL_free(c->pid);
    MPL_free(c->rank);
    c->pid = c->rank = NULL;
    MPIDI_FTDEV_global.failures.generation++;
    if (!is_builtin_world_or_self(comm)) {
        if (c->prev)
            MPIDI_FTDEV_COMM(c->prev).next = c->next;
        else
            MPIDI_FTDEV_global.objects.comms = c->next;
        if (c->next)
            MPIDI_FTDEV_COMM(c->next).prev = c->prev;
    }
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_comm_set_hints(MPIR_Comm * comm, MPIR_Info * info)
{
    return MPI_SUCCESS;
}
