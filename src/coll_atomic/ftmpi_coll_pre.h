/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH: collectives under failure.
 *
 * What the collective layer keeps in each communicator (embedded in the
 * device's part of MPIR_Comm, so only plain types live here).
 */

#ifndef FTMPI_COLL_PRE_H_INCLUDED
#define FTMPI_COLL_PRE_H_INCLUDED

#include <stdint.h>

typedef struct MPIR_FTMPI_coll_comm {
    /* The live ranks of a communicator with blanks, as of recovery epoch
     * `epoch` (valid when `known`): how many, which (in rank order), each
     * rank's rank among them (-1 for a blank), and the communicator of
     * just those, made at the first collective that needs it. */
    int known;
    uint32_t epoch;
    int nlive;
    int *live_ranks;
    int *live_rank_of;
    struct MPIR_Comm *live;
    /* ATOMIC: in epoch seq_epoch, the instance number the members agreed
     * on for this communicator (valid when instance_known) and the
     * collectives started on it */
    uint32_t seq_epoch;
    int instance_known;
    uint32_t instance;
    uint32_t seq;
} MPIR_FTMPI_coll_comm_t;

#endif /* FTMPI_COLL_PRE_H_INCLUDED */
