/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The records of the ATOMIC commit: what this process knows of each
 * atomic collective's commit, kept so that it answers those that ask
 * after it decided or returned. The commit channel's handler
 * (ftmpi_commit_channel.c) updates them.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "ftmpi_commit_impl.h"

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
record_t *MPII_FTMPI_commit_record(uint32_t context_id, uint32_t epoch, uint32_t instance,
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
void MPII_FTMPI_commit_keep_error(record_t * r, int mpi_errno)
{
    if (mpi_errno != MPI_SUCCESS && r->send_errno == MPI_SUCCESS)
        r->send_errno = mpi_errno;
}

/* A message about r, followed by `len` bytes of `extra` (a shared output). */
int MPII_FTMPI_commit_send(int pid, int type, record_t * r, uint32_t round, int value,
                           const void *extra, size_t len)
{
    struct {
        commit_msg_t m;
        char extra[MPIR_FTMPI_SHARED_OUTPUT_MAX];
    } s;
    s.m = (commit_msg_t) {
        .head = {.kind = type,.seq = r->seq,.sender = MPIR_Process.rank },
        .context_id = r->context_id,.epoch = r->epoch,.instance = r->instance,
        .round = round,.value = value
    };
    if (len)
        memcpy(s.extra, extra, len);
    int mpi_errno = MPID_FT_send(pid, MPID_FT_CHANNEL_COMMIT, &s, sizeof(s.m) + len);
    MPII_FTMPI_commit_keep_error(r, mpi_errno);
    return mpi_errno;
}

/* The answer to a query: the decision, and with a COMMIT of a shared
 * output, the output. */
int MPII_FTMPI_commit_send_state(int pid, record_t * r)
{
    int with_output = r->decision == COMMIT && r->shared && r->has_result;
    return MPII_FTMPI_commit_send(pid, STATE, r, r->decision == UNDECIDED && r->driving,
                                  r->decision, r->result, with_output ? r->result_len : 0);
}

/* Keeps a shared output in the record (an error when out of memory). */
int MPII_FTMPI_commit_keep_result(record_t * r, const void *result, size_t len)
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
