/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The commit channel's message handler: it checks what the network
 * brought, updates the records (ftmpi_commit_record.c), answers queries
 * and hands sweeps and reports to the termination protocol
 * (ftmpi_commit_sweep.c). Above both, so that neither calls the other's
 * caller.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_commit_impl.h"

/* A COMMIT of a shared output brings the output, which a member whose own
 * part failed (or that passes it on) needs; 0 when it does not fit. */
static int take_output(record_t * r, const void *result, size_t len)
{
    if (r->has_result || len == 0)
        return 1;
    if (r->shared && len != r->result_len)
        return 0;
    if (MPII_FTMPI_commit_keep_result(r, result, len) != MPI_SUCCESS)
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
    record_t *r = MPII_FTMPI_commit_record(m.context_id, m.epoch, m.instance, m.head.seq);
    if (r == NULL)
        return drop_message(from, "out of memory");
    MPID_FT_MSG_TRACE(&ftmpi_commit_kinds, &m.head, from,
                      " (commit %x/%u/%u, value %d, round %u)", m.context_id, m.epoch,
                      m.instance, m.value, m.round);
    switch (m.head.kind) {
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
            MPII_FTMPI_commit_send_state(from, r);
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
        case SWEEP:
            MPII_FTMPI_commit_swept(r, from, m.round, result, result_len / sizeof(int));
            break;
        case REPORT:
            if (m.value == COMMIT && !take_output(r, result, result_len))
                return drop_message(from, "shared output of the wrong length, or no memory");
            MPII_FTMPI_commit_reported(r, from, m.round, m.value);
            break;
    }
}

__attribute__ ((constructor))
static void register_commit_channel(void)
{
    MPID_FT_register_handler(MPID_FT_CHANNEL_COMMIT, commit_message, MPID_FT_FROM_THIS_WORLD);
}
