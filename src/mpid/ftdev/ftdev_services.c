/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The device's fault-tolerance services to the layers above it
 * (mpid_ft.h): control channels with registered handlers, their waits,
 * who failed, and the per-communicator state ULFM keeps in the device.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_failure.h"
#include "ftdev_counters.h"

void MPID_FT_register_handler(MPID_FT_channel_t channel, MPID_FT_handler_t handler,
                              MPID_FT_senders_t senders)
{
    MPIDI_FTDEV_global.upper.channel_handler[channel] = handler;
    MPIDI_FTDEV_global.upper.channel_senders[channel] = senders;
}

/* A control message on `channel` (a channel's number is checked on
 * receipt), for the handler registered there; messages from a process
 * known to have failed are dropped, as are those from another world on a
 * channel of this world's processes. */
static void channel_message(int from, int channel, const void *payload, size_t len)
{
    if (!MPIDI_FTDEV_global.upper.channel_handler[channel] ||
        (from >= MPIDI_FTDEV_global.world.num_pids &&
         MPIDI_FTDEV_global.upper.channel_senders[channel] != MPID_FT_FROM_ANY_WORLD)) {
        MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_CONTROL, "a control message on channel %d from "
                           "rank %d, which the channel does not take", channel, from);
        return;
    }
    if (MPIDI_FTDEV_global.peers.state[from] == MPIDI_FTDEV_PEER_ALIVE)
        MPIDI_FTDEV_global.upper.channel_handler[channel] (from, payload, len);
}

__attribute__ ((constructor))
static void register_channel_messages(void)
{
    MPIDI_FTDEV_ctrl_register(MPIDI_FTDEV_CTRL_CHANNEL, channel_message, NULL);
}

int MPID_FT_send(int to, MPID_FT_channel_t channel, const void *payload, size_t len)
{
    if (MPIDI_FTDEV_global.peers.state[to] != MPIDI_FTDEV_PEER_ALIVE)
        return MPI_SUCCESS;
    return MPIDI_FTDEV_send_ctrl(to, MPIDI_FTDEV_CTRL_CHANNEL, channel, payload, len, NULL);
}

/* the first trace of a wait that does not end, and how often progress
 * runs between looks at the clock */
#define WAIT_TRACE_FIRST_SECONDS 10.0
#define WAIT_CLOCK_EVERY 1024

int MPID_FT_wait(int (*step) (void *arg), void *arg, const char *what)
{
    int mpi_errno = MPI_SUCCESS;
    int application_wait = MPID_in_application_wait;
    double trace_at = WAIT_TRACE_FIRST_SECONDS;
    unsigned calls = 0;
    MPL_time_t start;

    MPL_wtime(&start);
    MPID_in_application_wait = 0;
    while (!step(arg)) {
        mpi_errno = MPID_Progress_test(NULL);
        if (mpi_errno != MPI_SUCCESS) {
            MPID_FT_TRACE("wait for %s: progress failed", what);
            break;
        }
        if (++calls % WAIT_CLOCK_EVERY == 0) {
            MPL_time_t now;
            double elapsed;
            MPL_wtime(&now);
            MPL_wtime_diff(&start, &now, &elapsed);
            if (elapsed >= trace_at) {
                MPID_FT_TRACE("wait for %s: still waiting after %.0f s", what, elapsed);
                trace_at *= 2;
            }
        }
    }
    MPID_in_application_wait = application_wait;
    return mpi_errno;
}

MPID_FT_proc_state_t MPID_FT_proc_state(int pid)
{
    switch (MPIDI_FTDEV_global.peers.state[pid]) {
        case MPIDI_FTDEV_PEER_ALIVE:
            return MPIDI_FTDEV_global.peers.finalizing[pid] ? MPID_FT_PROC_GONE : MPID_FT_PROC_ALIVE;
        case MPIDI_FTDEV_PEER_GONE:
            return MPID_FT_PROC_GONE;
        case MPIDI_FTDEV_PEER_BLANK:
            return MPID_FT_PROC_BLANK;
        default:
            return MPID_FT_PROC_FAILED;
    }
}

int MPID_FT_failure_log(const int **pids)
{
    *pids = MPIDI_FTDEV_global.failures.log;
    return MPIDI_FTDEV_global.failures.log_len;
}

unsigned MPID_FT_failure_count(void)
{
    return (unsigned) MPIDI_FTDEV_global.failures.learned;
}

void MPID_FT_failure_learned(int pid, const char *how)
{
    if (pid >= 0 && pid < MPIDI_FTDEV_global.world.num_pids)
        MPIDI_FTDEV_peer_failed(pid, how);
}

uint32_t MPID_FT_comm_next_agreement(MPIR_Comm * comm)
{
    return ++MPIDI_FTDEV_COMM(comm).agreements;
}

