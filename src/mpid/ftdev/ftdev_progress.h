/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Progress: drive the UCX worker (completion callbacks, active messages,
 * keepalive and endpoint error callbacks all run from here).
 */

#ifndef FTDEV_PROGRESS_H_INCLUDED
#define FTDEV_PROGRESS_H_INCLUDED

#include <sched.h>
#include "ftdev_impl.h"
#include "ftdev_detect.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_progress(int vci, int blocking)
{
    if (vci != 0)
        return MPI_SUCCESS;
    if (MPIDI_FTDEV_worker_progress()) {
        MPIDI_FTDEV_global.ucx.idle_polls = 0;
    } else {
        /* a process that waits looks itself for a death on its node now
         * and then: its heartbeat thread may be waiting for a core */
        unsigned idle = ++MPIDI_FTDEV_global.ucx.idle_polls;
        if (MPIDI_FTDEV_global.ucx.polls_before_yield && idle > MPIDI_FTDEV_global.ucx.polls_before_yield) {
            sched_yield();
            if (idle % MPIDI_FTDEV_WATCH_CHECK_YIELDS == 0)
                MPIDI_FTDEV_heartbeat_watch_check();
        } else if (unlikely(idle % MPIDI_FTDEV_WATCH_CHECK_IDLE_POLLS == 0)) {
            MPIDI_FTDEV_heartbeat_watch_check();
        }
    }
    /* the launcher's failure notice (SIGUSR1) is otherwise read only by
     * ch4's global progress, which RMA synchronizations do not run */
    if (unlikely(MPIDI_FTDEV_global.failures.progress_checks ||
                 MPIDI_global.sigusr1_count != MPIDI_global.my_sigusr1_count))
        return MPIDI_FTDEV_progress_checks();
    /* only a message that arrived since the last drain can be stale */
    if (unlikely(MPIDI_FTDEV_global.epoch.stale_traffic) &&
        MPIDI_FTDEV_global.ucx.worker_events != MPIDI_FTDEV_global.epoch.stale_drained_at_events)
        return MPIDI_FTDEV_drain_stale_traffic(0);
    return MPI_SUCCESS;
}

#endif /* FTDEV_PROGRESS_H_INCLUDED */
