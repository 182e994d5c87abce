/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * One-sided communication is MPICH's generic implementation (MPIDIG) over
 * ftdev's active messages. Its synchronizations wait in progress loops for
 * answers from other processes (a lock grant, completion counts, a post),
 * which a dead process never sends. Each synchronization therefore runs
 * with its window watched: it is refused when a failure already concerns
 * it, and the progress engine ends its wait with MPI_ERR_OTHER as soon as
 * one does (MPIDI_FTDEV_progress_checks). A failure concerns a
 * synchronization with one target when that target is dead, any other
 * when a member of the window is; and every one while a failure awaits
 * recovery in AUTO/MANUAL mode. Data operations to a dead target are
 * already refused by the active-message layer.
 */

#ifndef FTDEV_RMA_H_INCLUDED
#define FTDEV_RMA_H_INCLUDED

#include "ftdev_impl.h"

/* the generic forms of the synchronizations below, left unused */
#define MPIDI_NM_mpi_win_start          MPIDI_FTDEV_generic_win_start
#define MPIDI_NM_mpi_win_complete       MPIDI_FTDEV_generic_win_complete
#define MPIDI_NM_mpi_win_post           MPIDI_FTDEV_generic_win_post
#define MPIDI_NM_mpi_win_wait           MPIDI_FTDEV_generic_win_wait
#define MPIDI_NM_mpi_win_test           MPIDI_FTDEV_generic_win_test
#define MPIDI_NM_mpi_win_lock           MPIDI_FTDEV_generic_win_lock
#define MPIDI_NM_mpi_win_unlock         MPIDI_FTDEV_generic_win_unlock
#define MPIDI_NM_mpi_win_fence          MPIDI_FTDEV_generic_win_fence
#define MPIDI_NM_mpi_win_flush          MPIDI_FTDEV_generic_win_flush
#define MPIDI_NM_mpi_win_flush_local    MPIDI_FTDEV_generic_win_flush_local
#define MPIDI_NM_mpi_win_flush_all      MPIDI_FTDEV_generic_win_flush_all
#define MPIDI_NM_mpi_win_flush_local_all MPIDI_FTDEV_generic_win_flush_local_all
#define MPIDI_NM_mpi_win_lock_all       MPIDI_FTDEV_generic_win_lock_all
#define MPIDI_NM_mpi_win_unlock_all     MPIDI_FTDEV_generic_win_unlock_all
#include "netmod_am_fallback_rma.h"
#undef MPIDI_NM_mpi_win_start
#undef MPIDI_NM_mpi_win_complete
#undef MPIDI_NM_mpi_win_post
#undef MPIDI_NM_mpi_win_wait
#undef MPIDI_NM_mpi_win_test
#undef MPIDI_NM_mpi_win_lock
#undef MPIDI_NM_mpi_win_unlock
#undef MPIDI_NM_mpi_win_fence
#undef MPIDI_NM_mpi_win_flush
#undef MPIDI_NM_mpi_win_flush_local
#undef MPIDI_NM_mpi_win_flush_all
#undef MPIDI_NM_mpi_win_flush_local_all
#undef MPIDI_NM_mpi_win_lock_all
#undef MPIDI_NM_mpi_win_unlock_all

/* Whether a failure concerns a synchronization of win with `target`
 * (a rank of the window's group; -1: the whole window), and the error it
 * gets then; MPI_SUCCESS otherwise. */
int MPIDI_FTDEV_rma_refuse(MPIR_Win * win, int target);

/* Runs `call`, a synchronization of win with `target`, watched. */
#define MPIDI_FTDEV_RMA_SYNC(win_, target_, call_)                      \
    do {                                                                \
        int err_;                                                       \
        if (unlikely(MPIDI_FTDEV_global.failures.num_refusal_causes)) {                  \
            err_ = MPIDI_FTDEV_rma_refuse(win_, target_);               \
            if (err_ != MPI_SUCCESS)                                    \
                return err_;                                            \
        }                                                               \
        MPIDI_FTDEV_global.failures.rma_watch_win = (win_);                      \
        MPIDI_FTDEV_global.failures.rma_watch_target = (target_);                \
        err_ = (call_);                                                 \
        MPIDI_FTDEV_global.failures.rma_watch_win = NULL;                        \
        return err_;                                                    \
    } while (0)

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_start(MPIR_Group * group, int assert, MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_start(group, assert, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_complete(MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_complete(win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_post(MPIR_Group * group, int assert, MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_post(group, assert, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_wait(MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_wait(win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_test(MPIR_Win * win, int *flag)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_test(win, flag));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_lock(int lock_type, int rank, int assert,
                                                   MPIR_Win * win, MPIDI_av_entry_t * addr)
{
    MPIDI_FTDEV_RMA_SYNC(win, rank, MPIDIG_mpi_win_lock(lock_type, rank, assert, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_unlock(int rank, MPIR_Win * win,
                                                     MPIDI_av_entry_t * addr)
{
    MPIDI_FTDEV_RMA_SYNC(win, rank, MPIDIG_mpi_win_unlock(rank, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_fence(int assert, MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_fence(assert, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush(int rank, MPIR_Win * win,
                                                    MPIDI_av_entry_t * addr)
{
    MPIDI_FTDEV_RMA_SYNC(win, rank, MPIDIG_mpi_win_flush(rank, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_local(int rank, MPIR_Win * win,
                                                          MPIDI_av_entry_t * addr)
{
    MPIDI_FTDEV_RMA_SYNC(win, rank, MPIDIG_mpi_win_flush_local(rank, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_all(MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_flush_all(win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_local_all(MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_flush_local_all(win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_lock_all(int assert, MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_lock_all(assert, win));
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_unlock_all(MPIR_Win * win)
{
    MPIDI_FTDEV_RMA_SYNC(win, -1, MPIDIG_mpi_win_unlock_all(win));
}

#endif /* FTDEV_RMA_H_INCLUDED */
