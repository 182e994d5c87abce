/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Collectives under failure: MPICH's collective dispatchers hand a
 * collective to src/coll_atomic when MPID_COLL_DIVERT says so
 * (mpich-patches/coll-device-divert.patch). That happens only in ATOMIC
 * collective mode or once a BLANK world has blanks; otherwise the check
 * costs one load and a not-taken branch.
 */

#ifndef FTDEV_COLL_H_INCLUDED
#define FTDEV_COLL_H_INCLUDED


#define MPID_COLL_DIVERT(comm_) \
    (unlikely(MPIDI_FTDEV_global.upper.coll_divert) && MPIDI_FTDEV_global.upper.events.coll_diverts && \
     MPIDI_FTDEV_global.upper.events.coll_diverts(comm_))

/* ftdev runs one VCI and never reads a communicator's sequence number:
 * committing one broadcasts none (comm-seq-unused-no-broadcast.patch). */
#define MPID_COMM_SEQ_UNUSED 1

/* Context ids of MPI_Comm_create_group are agreed among the members that
 * are not blanks. */
int MPIDI_FTDEV_group_taking_part(MPIR_Group * group, MPIR_Group ** part);
#define MPID_GROUP_TAKING_PART(group_, part_) MPIDI_FTDEV_group_taking_part(group_, part_)

#endif /* FTDEV_COLL_H_INCLUDED */
