/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the ATOMIC commit's own files share and nothing else uses: the
 * record of one commit and the messages about it (ftmpi_commit_record.c),
 * which the vote (ftmpi_commit.c) and the termination protocol's sweep
 * (ftmpi_commit_sweep.c) both read and send.
 */

#ifndef FTMPI_COMMIT_IMPL_H_INCLUDED
#define FTMPI_COMMIT_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "ftmpi_coll.h"
#include "ftmpi_commit_msg.h"

/* ---- commit records (ftmpi_commit_record.c) ------------------------------- */

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

/* The record of a collective, created when it is not there yet (NULL when
 * memory runs out). */
record_t *MPII_FTMPI_commit_record(uint32_t context_id, uint32_t epoch, uint32_t instance,
                                   uint32_t seq);

/* The first error about r (a send that failed, no memory) is kept for the
 * vote that drives it. */
void MPII_FTMPI_commit_keep_error(record_t * r, int mpi_errno);

/* Keeps a shared output in the record (an error when out of memory). */
int MPII_FTMPI_commit_keep_result(record_t * r, const void *result, size_t len);

/* A message about r, followed by `len` bytes of `extra` (a shared output). */
int MPII_FTMPI_commit_send(int pid, int type, record_t * r, uint32_t round, int value,
                           const void *extra, size_t len);

/* The answer to a query: the decision, and with a COMMIT of a shared
 * output, the output. */
int MPII_FTMPI_commit_send_state(int pid, record_t * r);

/* ---- the termination protocol's sweep (ftmpi_commit_sweep.c) ------------- */

/* This process sweeps the tree of the n process ids at pids (itself
 * first) as its root, unless its sweep is under way already; 0 when out
 * of memory. */
int MPII_FTMPI_commit_sweep(record_t * r, const int *pids, int n);

/* A SWEEP for root from process `from`, carrying the n process ids at
 * pids (unaligned). */
void MPII_FTMPI_commit_swept(record_t * r, int from, int root, const void *pids, int n);

/* A REPORT for root from process `from`: value is the decision, or
 * UNDECIDED for its whole subtree. */
void MPII_FTMPI_commit_reported(record_t * r, int from, int root, int value);

#endif /* FTMPI_COMMIT_IMPL_H_INCLUDED */
