/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * REBUILD, the replacement's side (the protocol: ftdev_rebuild.c). In
 * MPI_Init a replacement looks the coordinator's address up in the
 * launcher's name service, sends it HELLO with its own address, and waits
 * for WELCOME: every process's address, state, node and heartbeat
 * contact, and the job's modes. It then takes over the rank it replaces
 * in the epoch it joins. A coordinator that dies first makes it leave;
 * the survivors launch another.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_upcalls.h"
#include "ftdev_failure.h"
#include "ftdev_rebuild.h"
#include "ftdev_launcher.h"
#include <errno.h>
#include <signal.h>
#include <unistd.h>

/* Until WELCOME this process knows only the coordinator; the others are
 * out of reach, as failed ones are. */
static int hello(void)
{
    int mpi_errno = MPI_SUCCESS;
    int me = MPIDI_FTDEV_global.world.my_pid, coordinator = MPIDI_FTDEV_rejoin_key.coordinator;
    void *address = NULL;
    size_t address_len, len;
    MPIDI_FTDEV_rb_msg_t *m = NULL;

    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids; pid++) {
        MPIDI_FTDEV_AV(&MPIDIU_get_av(0, pid)).ep = NULL;
        if (pid != me && pid != coordinator)
            MPIDI_FTDEV_set_peer_state(pid, MPIDI_FTDEV_PEER_FAILED);
    }
    mpi_errno = MPIDI_FTDEV_create_ep(me, (const ucp_address_t *) MPIDI_FTDEV_global.ucx.address,
                                      &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, me)).ep);
    MPIR_ERR_CHECK(mpi_errno);

    mpi_errno = MPIDI_FTDEV_lookup_coordinator_address(&address, &address_len);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_create_ep(coordinator, (const ucp_address_t *) address,
                                      &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, coordinator)).ep);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_save_address(coordinator, address, address_len);
    MPIR_ERR_CHECK(mpi_errno);

    m = MPIDI_FTDEV_rb_new_msg(MPIDI_FTDEV_RB_HELLO, MPIDI_FTDEV_rejoin_key.epoch,
                               MPIDI_FTDEV_rb_entry_size(MPIDI_FTDEV_global.ucx.address_len), &len);
    MPIR_ERR_CHKANDJUMP(m == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    m->count = 1;
    MPIDI_FTDEV_rb_put_entry((MPIDI_FTDEV_rb_entry_t *) (m + 1), me, MPIDI_FTDEV_RB_REPLACED,
                             MPIDI_FTDEV_global.ucx.address, MPIDI_FTDEV_global.ucx.address_len,
                             &MPIDI_FTDEV_global.peers.hb[me]);
    mpi_errno = MPIDI_FTDEV_rb_send(coordinator, m, len);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(m);
    MPL_free(address);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The coordinator died before it welcomed this process. UCX may never say
 * so: an endpoint to a process that died before it answered the
 * connection is never checked. On the coordinator's host its process id
 * tells; anywhere, the rebuild's time limit does. */
static int coordinator_gone(MPL_time_t * start)
{
    static MPL_time_t last_check;
    MPL_time_t now;
    double elapsed, since_check;
    char host[256] = "";
    const MPIDI_FTDEV_rejoin_key_t *key = &MPIDI_FTDEV_rejoin_key;

    if (MPIDI_FTDEV_global.peers.state[key->coordinator] != MPIDI_FTDEV_PEER_ALIVE)
        return 1;
    MPL_wtime(&now);
    MPL_wtime_diff(start, &now, &elapsed);
    if (elapsed > MPIR_CVAR_CH4_FTDEV_REBUILD_TIMEOUT)
        return 1;
    MPL_wtime_diff(&last_check, &now, &since_check);
    if (since_check < 0.05)
        return 0;
    last_check = now;
    gethostname(host, sizeof(host) - 1);
    return !strcmp(host, key->host) && kill((pid_t) key->ospid, 0) != 0 && errno == ESRCH;
}

static int welcomed_or_coordinator_gone(void *start)
{
    return MPIDI_FTDEV_rb_received(MPIDI_FTDEV_RB_WELCOME, MPIDI_FTDEV_rejoin_key.epoch) ||
        coordinator_gone(start);
}

int MPIDI_FTDEV_rejoin(void)
{
    int mpi_errno = MPI_SUCCESS;
    const MPIDI_FTDEV_rejoin_key_t *key = &MPIDI_FTDEV_rejoin_key;
    int me = MPIDI_FTDEV_global.world.my_pid, coordinator = key->coordinator, nreplaced = 0;
    const MPIDI_FTDEV_rb_msg_t *welcome;
    int *replaced = MPL_malloc(MPIDI_FTDEV_global.world.num_pids * sizeof(int), MPL_MEM_OTHER);
    int *node_map = MPL_malloc(MPIDI_FTDEV_global.world.num_pids * sizeof(int), MPL_MEM_OTHER);
    char msg[256];

    MPIR_ERR_CHKANDJUMP(!replaced || !node_map, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = MPIDI_FTDEV_rb_alloc_state();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_FTDEV_save_address(me, MPIDI_FTDEV_global.ucx.address,
                                         MPIDI_FTDEV_global.ucx.address_len);
    MPIR_ERR_CHECK(mpi_errno);
    /* a coordinator that cannot be reached has died (its memory went
     * with it), as much as one that fails later */
    if (hello() != MPI_SUCCESS)
        MPIDI_FTDEV_set_peer_state(coordinator, MPIDI_FTDEV_PEER_FAILED);

    MPL_time_t start;
    MPL_wtime(&start);
    mpi_errno = MPID_FT_wait(welcomed_or_coordinator_gone, &start, "the coordinator's WELCOME");
    MPIR_ERR_CHECK(mpi_errno);
    welcome = MPIDI_FTDEV_rb_received(MPIDI_FTDEV_RB_WELCOME, key->epoch);
    if (welcome == NULL) {
        snprintf(msg, sizeof(msg), "FT-MPICH: the process that launched this replacement "
                 "of rank %d (rank %d) failed before it joined; it leaves, and the "
                 "survivors launch another", me, coordinator);
        MPIDI_FTDEV_exit_at_init(msg);
    }
    if (MPIDI_FTDEV_modes_differ(welcome->modes, coordinator, msg, sizeof(msg)))
        MPIDI_FTDEV_exit_at_init(msg);

    MPIDI_FTDEV_global.epoch.current = key->epoch;
    MPIDI_FTDEV_global.epoch.bits = ((uint64_t) key->epoch << MPIDI_FTDEV_EPOCH_SHIFT) &
        MPIDI_FTDEV_EPOCH_MASK;
    /* the survivors' node map, so that everyone builds the same node-level
     * sub-communicators of MPI_COMM_WORLD */
    const MPIDI_FTDEV_rb_entry_t *e = (const MPIDI_FTDEV_rb_entry_t *) (welcome + 1);
    for (uint32_t i = 0; i < welcome->count; i++, e = MPIDI_FTDEV_rb_next_entry(e))
        node_map[e->pid] = e->node;
    mpi_errno = MPIR_pmi_take_over_rank(me, MPIDI_FTDEV_global.world.num_pids, node_map);
    MPIR_ERR_CHECK(mpi_errno);

    e = (const MPIDI_FTDEV_rb_entry_t *) (welcome + 1);
    for (uint32_t i = 0; i < welcome->count; i++, e = MPIDI_FTDEV_rb_next_entry(e)) {
        if (e->state == MPIDI_FTDEV_RB_REPLACED)
            replaced[nreplaced++] = e->pid;
        if (e->pid != me)
            MPIDI_FTDEV_global.peers.hb[e->pid] = e->heartbeat;
        if (e->pid == me || e->pid == coordinator)
            continue;
        /* one the welcome lists as alive may have died since: UCX cannot
         * reach it (measured: "Endpoint timeout" when the peer was killed
         * during the rebuild), and this process learns of that failure now
         * instead of leaving MPI_Init with an error */
        if (e->state == MPIDI_FTDEV_RB_DEAD ||
            MPIDI_FTDEV_create_ep(e->pid, (const ucp_address_t *) (e + 1),
                                  &MPIDI_FTDEV_AV(&MPIDIU_get_av(0, e->pid)).ep) != MPI_SUCCESS) {
            MPIDI_FTDEV_global.failures.learned++;
            MPIDI_FTDEV_record_failure(e->pid, e->state == MPIDI_FTDEV_RB_DEAD ?
                                       "failed before this process joined" :
                                       "unreachable when this process joined");
            continue;
        }
        mpi_errno = MPIDI_FTDEV_save_address(e->pid, e + 1, e->address_len);
        MPIR_ERR_CHECK(mpi_errno);
        MPIDI_FTDEV_set_peer_state(e->pid, MPIDI_FTDEV_PEER_ALIVE);
        MPIDI_FTDEV_global.peers.finalizing[e->pid] = e->state == MPIDI_FTDEV_RB_LEAVING;
        MPIDI_FTDEV_global.rebuild.replaced[e->pid] = e->state == MPIDI_FTDEV_RB_REPLACED;
    }
    if (MPIDI_FTDEV_global.upper.events.joined)
        MPIDI_FTDEV_global.upper.events.joined(key->epoch, replaced, nreplaced);

  fn_exit:
    MPL_free(replaced);
    MPL_free(node_map);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
