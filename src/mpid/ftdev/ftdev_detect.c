/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What progress asks of every detector once something happened: broken
 * connections, deferred endpoint closes, the echo check, the heartbeat
 * thread's findings, the launcher's failure signal, a failure awaiting
 * recovery, a watched RMA synchronization, and messages that can no
 * longer be received. The one file that calls into all of them, above
 * them.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_upcalls.h"
#include "ftdev_failure.h"
#include "ftdev_detect.h"
#include "ftdev_rma.h"
#include "ftdev_heartbeat.h"

/* Sets *settled when nothing is left to check. */
static int run_checks(int *settled)
{
    MPIDI_FTDEV_declare_broken_connections();
    int eps_left = MPIDI_FTDEV_close_deferred_eps();
    MPIDI_FTDEV_echo_progress();
    /* what the heartbeat thread saw needs no launcher round trip: first */
    MPIDI_FTDEV_heartbeat_failures();
    if (MPIDI_global.sigusr1_count != MPIDI_global.my_sigusr1_count) {
        MPIDI_global.my_sigusr1_count = MPIDI_global.sigusr1_count;
        int err = MPIDI_check_for_failed_procs();
        if (err != MPI_SUCCESS)
            return err;
    }
    int pending = MPIDI_FTDEV_halted();

    /* CONT keeps the application's requests pending across a failure; its
     * waits and tests return MPI_ERR_OTHER until the survivors recover */
    if (pending && MPIDI_FTDEV_global.epoch.unmatched_bits && MPID_in_application_wait)
        return MPIDI_FTDEV_failure_error(-1);
    if (MPIDI_FTDEV_global.failures.rma_watch_win) {
        int err = MPIDI_FTDEV_rma_refuse(MPIDI_FTDEV_global.failures.rma_watch_win,
                                         MPIDI_FTDEV_global.failures.rma_watch_target);
        if (err != MPI_SUCCESS)
            return err;
    }
    /* the senders of what nobody can receive any more wait for it to be
     * taken; IGNORE mode has such messages for as long as it runs */
    int stale;
    int err = MPIDI_FTDEV_drain_stale(pending, &stale);
    if (err != MPI_SUCCESS)
        return err;
    *settled = !pending && !stale && !MPIDI_FTDEV_echo_under_way() && eps_left == 0;
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_progress_checks(void)
{
    int settled = 0;
    int err = run_checks(&settled);
    if (settled) {
        __atomic_store_n(&MPIDI_FTDEV_global.failures.progress_checks, 0, __ATOMIC_SEQ_CST);
        /* the heartbeat thread sets the flag with its news at any moment:
         * news that came after the checks looked must not wait for a
         * call that the cleared flag would never make */
        if (__atomic_load_n(&MPIDI_FTDEV_hb.news, __ATOMIC_SEQ_CST))
            MPIDI_FTDEV_global.failures.progress_checks = 1;
    }
    return err;
}

int MPID_FT_launcher_list_needed(void)
{
    /* what the watch saw goes first, so that the failure it names is
     * handled before anything waits on mpiexec */
    MPIDI_FTDEV_heartbeat_failures();
    if (MPIDI_FTDEV_global.rebuild.is_replacement) {
        MPID_FT_TRACE("failure notice: the launcher's list is not fetched (it names the "
                      "ranks of another process group)");
        return 0;
    }
    if (MPIDI_FTDEV_heartbeat_watches_every_peer()) {
        MPID_FT_TRACE("failure notice: the launcher's list is not fetched (every live "
                      "process is watched on this node)");
        return 0;
    }
    return 1;
}
