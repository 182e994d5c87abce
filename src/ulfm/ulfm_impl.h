/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What ULFM's own files share and nothing outside ULFM uses: the record
 * of an agreement and the communicator members it holds (ulfm_agree.c,
 * ulfm_agree_record.c), and a shrink in steps, which MPIX_Comm_shrink
 * (ulfm_comm.c) and MPIX_Comm_ishrink (ulfm_nonblocking.c) both drive.
 */

#ifndef ULFM_IMPL_H_INCLUDED
#define ULFM_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "ulfm.h"
#include "ulfm_agree_msg.h"

/* ---- agreement records (ulfm_agree_record.c) ------------------------------ */

/* What this process knows of one agreement (communicator key, sequence
 * number), whether or not it entered it yet. */
typedef struct instance {
    struct instance *next;
    uint32_t context_id, seq, size;
    uint32_t and_words;
    int entered;                /* this process is in (or was in) this agreement */
    uint32_t own_context;       /* once entered: this process's receive context id */
    int own_rank, own_pid;      /* this process's member number, and pid */
    int *pids;                  /* each member's process id, once entered */
    int high_group;             /* the first member of an intercommunicator's high group
                                 * (size for an intracommunicator) */
    int origin;                 /* the coordinator it answers to (0: rank 0, no commitment) */
    int parent_pid;             /* the tree parent it last sent to; -1: none yet */
    unsigned failures_at_send;  /* the device's failure count when it sent there */
    unsigned failures_at_query; /* ... when it last looked for children to ask */
    uint8_t *queried;           /* members it sent QUERY for `origin` */
    uint8_t *answered;          /* members known to have committed to `origin` */
    /* the contributions it holds: its own, its children's, any sent to it */
    uint8_t *contributed;
    uint8_t *acked_by_all;
    int flag_and[2];
    uint32_t *and_mask;         /* the bitmap: the AND of those held; once decided, the AND */
    uint8_t *asked;             /* members that sent it CONTRIB, to be answered */
    agree_msg_t *found;         /* an earlier decision, for `origin` (or for this
                                 * process as a coordinator later) */
    int found_sent_to;          /* the coordinator's pid it was sent to; -1: none */
    /* the decision */
    int decided;
    int decided_origin;         /* the coordinator whose decision it is */
    int relayed_origin;         /* the last other coordinator's DECIDE it passed on */
    int flag[2], raise;
    uint8_t *absent;
    int send_errno;             /* the first message about it that could not be sent */
} instance_t;

/* The records, found or made by (context_id, seq); see ulfm_agree_record.c. */
instance_t *MPII_ULFM_instance(uint32_t context_id, uint32_t seq, uint32_t size,
                               uint32_t and_words, int create);
void MPII_ULFM_forget_older(uint32_t context_id, uint32_t seq);

/* What a record takes from comm: the key that names its agreements, the
 * number of members (both groups of an intercommunicator), their process
 * ids and this process's number, and this process's acknowledgements. */
uint32_t MPII_ULFM_agreement_key(MPIR_Comm * comm);
int MPII_ULFM_num_members(MPIR_Comm * comm);
int MPII_ULFM_members_of(MPIR_Comm * comm, int size, instance_t * in);
int MPII_ULFM_acknowledged(MPIR_Comm * comm, int r);

/* ---- a shrink in steps (ulfm_comm.c) -------------------------------------- */

typedef struct {
    MPIR_Comm *comm;
    int rounds;
    int done;
    int mpi_errno;
    MPIR_Comm *newcomm;         /* NULL: MPI_COMM_NULL */
    uint32_t offer[MPIR_MAX_CONTEXT_MASK];
    MPIR_ULFM_agreement_t ag;
} shrink_op_t;

/* A round offers context ids (more each round) and enters its
 * agreement; op->comm is set and the rest zeroed before the first. */
int MPII_ULFM_shrink_round(shrink_op_t * op);
/* 1 once op ended, with op->mpi_errno and op->newcomm set. */
int MPII_ULFM_shrink_step(shrink_op_t * op);

#endif /* ULFM_IMPL_H_INCLUDED */
