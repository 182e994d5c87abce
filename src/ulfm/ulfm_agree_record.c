/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The records of ULFM's agreements (ulfm_agree.c), and what a record
 * takes from its communicator: the key that names it, the members with
 * their process ids, and this process's acknowledged failures.
 *
 * A decided record answers late messages also after its communicator was
 * freed (a takeover coordinator's QUERY). The key names the communicator
 * by its context id, which a later communicator can get; the device holds
 * the id of a freed communicator that ran an agreement for a while (its
 * context_released event), so a message naming it cannot be about a
 * newer communicator here, and the records go when the id is given back.
 */

#include "mpiimpl.h"
#include "mpid_ft.h"
#include "ulfm_impl.h"

static instance_t *instances;

static void free_instance(instance_t * in)
{
    MPL_free(in->found);
    MPL_free(in);
}

/* The record of agreement (context_id, seq), created when create is set;
 * NULL when it does not exist, disagrees on the size or the bitmap's
 * length, or memory ran out. A record and its arrays are one allocation:
 * an agreement makes one at every process, and a failure-free one costs
 * little more than its two messages. */
instance_t *MPII_ULFM_instance(uint32_t context_id, uint32_t seq, uint32_t size,
                               uint32_t and_words, int create)
{
    instance_t *in;
    for (in = instances; in; in = in->next)
        if (in->context_id == context_id && in->seq == seq)
            return in->size == size && in->and_words == and_words ? in : NULL;
    if (!create)
        return NULL;
    /* the sets of members, then the bitmap and the pids, each aligned */
    size_t bytes = MPID_FT_SET_BYTES(size), sets = 6 * bytes;
    size_t mask_at = MPL_ROUND_UP_ALIGN(sizeof(*in) + sets, sizeof(uint64_t));
    size_t pids_at = MPL_ROUND_UP_ALIGN(mask_at + and_words * sizeof(uint32_t), sizeof(uint64_t));
    char *block = MPL_malloc(pids_at + size * sizeof(int), MPL_MEM_OTHER);
    if (block == NULL)
        return NULL;
    in = (instance_t *) block;
    *in = (instance_t) {
        .context_id = context_id,.seq = seq,.size = size,.and_words = and_words,
        .flag_and = {~0, ~0},.parent_pid = -1,.failures_at_query = (unsigned) -1,
        .relayed_origin = -1,.found_sent_to = -1,.and_mask = (uint32_t *) (block + mask_at),
        .pids = (int *) (block + pids_at)
    };
    uint8_t *set = (uint8_t *) (in + 1);
    memset(set, 0, sets);
    in->asked = set;
    in->answered = set + bytes;
    in->queried = set + 2 * bytes;
    in->contributed = set + 3 * bytes;
    in->acked_by_all = set + 4 * bytes;
    in->absent = set + 5 * bytes;
    memset(in->acked_by_all, 0xff, bytes);
    memset(in->and_mask, 0xff, and_words * sizeof(uint32_t));
    in->next = instances;
    instances = in;
    return in;
}

/* Records older than the agreement before the current one are no longer
 * asked about. */
void MPII_ULFM_forget_older(uint32_t context_id, uint32_t seq)
{
    instance_t **p = &instances;
    while (*p) {
        instance_t *in = *p;
        if (in->context_id == context_id && in->seq + 1 < seq) {
            *p = in->next;
            free_instance(in);
        } else {
            p = &in->next;
        }
    }
}

/* The device gave a freed communicator's context id back to MPICH: the
 * records of that communicator's agreements (kept to answer late queries
 * while the id was held) go. An intercommunicator's records are keyed by
 * both groups' ids; this process's own is in the half of its group. */
void MPIR_ULFM_context_released(uint32_t context_id)
{
    instance_t **p = &instances;
    while (*p) {
        instance_t *in = *p;
        if (in->context_id == context_id ||
            (in->entered && in->context_id > 0xffff && in->own_context == context_id)) {
            *p = in->next;
            free_instance(in);
        } else {
            p = &in->next;
        }
    }
}

/* ---- what a record takes from its communicator ---------------------------- */

/* The agreement's key and members: an intracommunicator's own; both
 * groups of an intercommunicator, keyed by both groups' receive context
 * ids (never 0 for an intercommunicator's high group, so no
 * intracommunicator's key) and numbered low group first. */
uint32_t MPII_ULFM_agreement_key(MPIR_Comm * comm)
{
    if (comm->comm_kind != MPIR_COMM_KIND__INTERCOMM)
        return comm->context_id;
    uint32_t own = comm->recvcontext_id, remote = comm->context_id;
    return comm->is_low_group ? own | remote << 16 : remote | own << 16;
}

int MPIR_ULFM_first_member(MPIR_Comm * comm, int remote)
{
    if (comm->comm_kind != MPIR_COMM_KIND__INTERCOMM || remote == !comm->is_low_group)
        return 0;
    return comm->is_low_group ? comm->local_size : comm->remote_size;
}

int MPII_ULFM_num_members(MPIR_Comm * comm)
{
    return comm->local_size + (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM ? comm->remote_size : 0);
}

int MPII_ULFM_members_of(MPIR_Comm * comm, int size, instance_t * in)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *local = comm;
    int local_first = MPIR_ULFM_first_member(comm, 0);
    int remote_first = MPIR_ULFM_first_member(comm, 1);

    in->high_group = size;
    if (comm->comm_kind == MPIR_COMM_KIND__INTERCOMM) {
        if (comm->local_comm == NULL) {
            mpi_errno = MPII_Setup_intercomm_localcomm(comm);
            MPIR_ERR_CHECK(mpi_errno);
        }
        local = comm->local_comm;
        in->high_group = MPL_MAX(local_first, remote_first);
        for (int r = 0; r < comm->remote_size; r++)
            in->pids[remote_first + r] = MPID_FT_comm_pid(comm, r);
    }
    for (int r = 0; r < comm->local_size; r++)
        in->pids[local_first + r] = MPID_FT_comm_pid(local, r);
    in->own_rank = local_first + comm->rank;
    in->own_pid = in->pids[in->own_rank];

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Whether this process acknowledged member r's failure. An
 * intercommunicator reports (and acknowledges) the remote group's
 * failures only; its own group's count as acknowledged here, since only
 * the other group can acknowledge them. */
int MPII_ULFM_acknowledged(MPIR_Comm * comm, int r)
{
    if (comm->comm_kind != MPIR_COMM_KIND__INTERCOMM)
        return MPID_FT_comm_acked(comm, r);
    int remote_first = MPIR_ULFM_first_member(comm, 1);
    if (r < remote_first || r >= remote_first + comm->remote_size)
        return 1;
    return MPID_FT_comm_acked(comm, r - remote_first);
}
