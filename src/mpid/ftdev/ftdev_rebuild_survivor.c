/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * REBUILD, the survivors' side (the protocol: ftdev_rebuild.c): a
 * survivor other than the coordinator sends READY up the survivors' tree
 * once its subtree did, again to a new parent when its parent fails, and
 * waits for REBUILT, which it passes on to those whose READY came to it
 * before it installs the replacements.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_rebuild.h"
#include "mpid_ft_tree.h"
#include "ftdev_test_point.h"

/* ---- the survivors' tree: process ids counted from the coordinator's ---- */

typedef struct {
    uint32_t epoch;
    int coordinator;
    const uint8_t *dead;
    int sent_to;                /* the parent it last sent READY to; -1: none yet */
    int mpi_errno;
} survivor_wait_t;

static int pid_at(const survivor_wait_t * w, int v)
{
    return MPID_FT_tree_member(v, w->coordinator, MPIDI_FTDEV_global.world.num_pids);
}

static int my_position(const survivor_wait_t * w)
{
    return MPID_FT_tree_position(MPIDI_FTDEV_global.world.my_pid, w->coordinator,
                                 MPIDI_FTDEV_global.world.num_pids);
}

static int awaited_at(int v, void *arg)
{
    const survivor_wait_t *w = arg;
    return MPIDI_FTDEV_rb_awaited_survivor(w->dead, pid_at(w, v));
}

/* Its nearest ancestor that is a live survivor (the coordinator at last);
 * only survivors, never the coordinator, wait in this tree. */
static int ready_parent(const survivor_wait_t * w)
{
    return pid_at(w, MPID_FT_tree_parent(my_position(w), awaited_at, (void *) w));
}

/* READY came for every live survivor of its subtree. */
static int subtree_ready(const survivor_wait_t * w)
{
    int v = my_position(w);
    int end = MPID_FT_tree_subtree_end(v, MPIDI_FTDEV_global.world.num_pids);
    for (int u = v + 1; u < end; u++) {
        int pid = pid_at(w, u);
        if (MPIDI_FTDEV_rb_awaited_survivor(w->dead, pid) && MPIDI_FTDEV_rb_ready_epoch(pid) != w->epoch)
            return 0;
    }
    return 1;
}

/* READY for itself and every survivor it has READY for. */
static int send_ready(int to, uint32_t epoch)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.world.num_pids;
    size_t len;
    MPIDI_FTDEV_rb_msg_t *ready = MPIDI_FTDEV_rb_new_msg(MPIDI_FTDEV_RB_READY, epoch,
                                                         MPID_FT_SET_BYTES(n), &len);

    MPIR_ERR_CHKANDJUMP(ready == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    uint8_t *set = (uint8_t *) (ready + 1);
    MPID_FT_set_add(set, MPIDI_FTDEV_global.world.my_pid);
    for (int p = 0; p < n; p++)
        if (MPIDI_FTDEV_rb_ready_epoch(p) == epoch)
            MPID_FT_set_add(set, p);
    mpi_errno = MPIDI_FTDEV_rb_send(to, ready, len);
    MPL_free(ready);
  fn_fail:
    return mpi_errno;
}

/* READY goes up once the subtree is ready, again to a new parent; the
 * wait ends with REBUILT, or when the coordinator failed (the rebuild
 * starts again) */
static int ready_step(void *arg)
{
    survivor_wait_t *w = arg;

    if (MPIDI_FTDEV_rb_received(MPIDI_FTDEV_RB_REBUILT, w->epoch) ||
        MPIDI_FTDEV_global.peers.state[w->coordinator] != MPIDI_FTDEV_PEER_ALIVE)
        return 1;
    if (!subtree_ready(w))
        return 0;
    int parent = ready_parent(w);
    if (parent != w->sent_to) {
        if (w->sent_to < 0)
            MPID_FT_test_death("before-ready", 1, 0);
        w->mpi_errno = send_ready(parent, w->epoch);
        if (w->mpi_errno != MPI_SUCCESS)
            return 1;
        w->sent_to = parent;
    }
    return 0;
}

/* REBUILT goes back to each survivor whose READY came here. */
static int pass_rebuilt_on(uint32_t epoch, const uint8_t * dead)
{
    int mpi_errno = MPI_SUCCESS;
    for (int pid = 0; pid < MPIDI_FTDEV_global.world.num_pids && mpi_errno == MPI_SUCCESS; pid++)
        if (MPIDI_FTDEV_rb_ready_from(pid) == epoch && MPIDI_FTDEV_rb_awaited_survivor(dead, pid))
            mpi_errno = MPIDI_FTDEV_rb_send_received(pid);
    return mpi_errno;
}

int MPIDI_FTDEV_rb_survivor_wait(uint32_t epoch, int coordinator, const uint8_t * dead, int *again)
{
    int mpi_errno = MPI_SUCCESS;
    survivor_wait_t w = {.epoch = epoch,.coordinator = coordinator,.dead = dead,.sent_to = -1 };

    mpi_errno = MPID_FT_wait(ready_step, &w, "the rebuild's REBUILT");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = w.mpi_errno;
    MPIR_ERR_CHECK(mpi_errno);
    const MPIDI_FTDEV_rb_msg_t *rebuilt = MPIDI_FTDEV_rb_received(MPIDI_FTDEV_RB_REBUILT, epoch);
    if (rebuilt == NULL) {
        *again = 1;
        goto fn_exit;
    }
    mpi_errno = pass_rebuilt_on(epoch, dead);
    MPIR_ERR_CHECK(mpi_errno);
    const MPIDI_FTDEV_rb_entry_t *e = (const MPIDI_FTDEV_rb_entry_t *) (rebuilt + 1);
    for (uint32_t i = 0; i < rebuilt->count; i++, e = MPIDI_FTDEV_rb_next_entry(e)) {
        mpi_errno = MPIDI_FTDEV_rb_install(e->pid, e + 1, e->address_len, NULL, &e->heartbeat);
        MPIR_ERR_CHECK(mpi_errno);
    }
    /* the survivors below wait for what was passed on */
    mpi_errno = MPIDI_FTDEV_ctrl_flush(MPIDI_FTDEV_CTRL_REBUILD);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
