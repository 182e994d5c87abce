/*
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * Progress: drive the UCX worker (completion callbacks, active messages,
 * keepalive and endpoint error callbacks all run from here).
 */

#ifndef FTDEV_PROGRESS_H_INCLUDED
#define FTDEV_PROGRESS_H_INCLUDED

#include <sched.h>
#include "ftdev_impl.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_progress(int vci, int blocking)
{
    if (vci != 0)
        return MPI_SUCCESS;
    if (ucp_worker_progress(MPIDI_FTDEV_global.worker)) {
        MPIDI_FTDEV_global.idle_polls = 0;
    } else if (MPIDI_FTDEV_global.polls_before_yield &&
               ++MPIDI_FTDEV_global.idle_polls > MPIDI_FTDEV_global.polls_before_yield) {
        sched_yield();
    }
    /* the launcher's failure notice (SIGUSR1) is otherwise read only by
     * ch4's global progress, which RMA synchronizations do not run */
    if (unlikely(MPIDI_FTDEV_global.progress_checks ||
                 MPIDI_global.sigusr1_count != MPIDI_global.my_sigusr1_count))
        return MPIDI_FTDEV_progress_checks();
    return MPI_SUCCESS;
}

#endif /* FTDEV_PROGRESS_H_INCLUDED */
