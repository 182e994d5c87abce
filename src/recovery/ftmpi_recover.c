/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Recovery: from FAILURE_RECOGNIZED back to NO_FAILURES. The survivors
 * agree on the dead (ftmpi_agree.c), then each one destroys every window,
 * communicator and group but MPI_COMM_WORLD's and MPI_COMM_SELF's, moves
 * the transport to the new epoch, rebuilds MPI_COMM_WORLD (SHRINK: the
 * survivors in their old order; BLANK: same size, dead ranks become
 * blanks), updates FTMPI_NUM_FAILED_PROCS and FTMPI_ERROR_FAILURE, and
 * lastly calls the delete callbacks of MPI_COMM_WORLD's attributes in the
 * order the attributes were set.
 *
 * Entry points: MPI_Comm_dup(MPI_COMM_WORLD, ...) in MANUAL mode
 * (mpich-patches/comm-dup-ftmpi-recovery.patch) and the error path of any
 * call in AUTO mode (errhan-ftmpi-auto-recovery.patch).
 */

#include "mpiimpl.h"
#include "ftmpi_recovery_impl.h"

static int restarted;           /* this process replaced a failed one (REBUILD) */

/* ---- destroying the application's communicators and groups -------------- */

/* A destroyed object keeps its memory and handle, with a reference count
 * of zero: MPICH then refuses the handle (MPI_ERR_COMM / MPI_ERR_GROUP),
 * and the handle is never given to a new object that an old handle could
 * reach by mistake. */
static void destroy_comm(MPIR_Comm * comm)
{
    /* the delete callbacks of its attributes run as they would in
     * MPI_Comm_free: libraries that cached state on it let it go (MPI-IO
     * closes the files opened on it) */
    if (MPIR_Process.attr_free && comm->attributes)
        (void) MPIR_Process.attr_free(comm->handle, &comm->attributes);
    MPII_Coll_comm_cleanup(comm);
    MPID_Comm_free_hook(comm);
    MPIR_Free_contextid(comm->recvcontext_id);
    MPL_free(comm->intranode_table);
    MPL_free(comm->internode_table);
    comm->intranode_table = comm->internode_table = NULL;
    comm->node_comm = comm->node_roots_comm = NULL;
    comm->local_comm = NULL;
    MPIR_Object_set_ref(comm, 0);
}

static void destroy_comms(void)
{
    MPIR_Comm *world = MPIR_Process.comm_world, *comm;

    while ((comm = MPID_FT_next_user_comm(world->node_comm, world->node_roots_comm)))
        destroy_comm(comm);
}

static void destroy_groups_in(void *block, int count)
{
    for (int i = 0; i < count; i++) {
        MPIR_Group *g = (MPIR_Group *) ((char *) block + (size_t) i * MPIR_Group_mem.size);
        if (MPIR_Object_get_ref(g) > 0)
            MPIR_Object_set_ref(g, 0);
    }
}

/* Every group goes, those MPI_Comm_group handed out for MPI_COMM_WORLD and
 * MPI_COMM_SELF included; the communicators that survive make new ones
 * when asked. */
static void destroy_groups(void)
{
    MPIR_Comm *keep[] = { MPIR_Process.comm_world, MPIR_Process.comm_self,
        MPIR_Process.comm_world->node_comm, MPIR_Process.comm_world->node_roots_comm
    };

    if (!MPIR_Group_mem.initialized)
        return;
    destroy_groups_in(MPIR_Group_mem.direct, MPIR_Group_mem.direct_size);
    for (int b = 0; b < MPIR_Group_mem.indirect_size; b++)
        destroy_groups_in(MPIR_Group_mem.indirect[b], HANDLE_NUM_INDICES);
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
        if (keep[i])
            keep[i]->local_group = keep[i]->remote_group = NULL;
}

/* ---- MPI_COMM_WORLD ----------------------------------------------------- */

/* SHRINK: the survivors, in their old order (process ids only grow along
 * MPI_COMM_WORLD's ranks). Handle, context id, attributes, name and error
 * handler stay. */
static int shrink_world(const uint8_t * dead_set)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *world = MPIR_Process.comm_world;
    int n = 0, *pids = MPL_malloc(MPIR_Process.size * sizeof(int), MPL_MEM_COMM);

    MPIR_ERR_CHKANDJUMP(pids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    for (int pid = 0; pid < MPIR_Process.size; pid++) {
        if (MPID_FT_set_has(dead_set, pid))
            continue;
        if (pid == MPIR_Process.rank)
            world->rank = n;
        pids[n++] = pid;
    }

    if (world->node_comm)
        MPIR_Comm_release(world->node_comm);
    if (world->node_roots_comm)
        MPIR_Comm_release(world->node_roots_comm);
    world->node_comm = world->node_roots_comm = NULL;
    MPL_free(world->intranode_table);
    MPL_free(world->internode_table);
    world->intranode_table = world->internode_table = NULL;
    mpi_errno = MPII_Coll_comm_cleanup(world);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPID_Comm_free_hook(world);
    MPIR_ERR_CHECK(mpi_errno);

    world->local_size = world->remote_size = n;
    world->hierarchy_kind = MPIR_COMM_HIERARCHY_KIND__FLAT;
    mpi_errno = MPID_Comm_world_set_members(world, n, pids);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Comm_commit(world);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(pids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the last step: recovery callbacks ------------------------------------- */

/* MPICH keeps a communicator's attributes newest first. */
static int call_world_delete_callbacks(void)
{
    int mpi_errno = MPI_SUCCESS, n = 0;
    MPIR_Attribute *a, **order;

    for (a = MPIR_Process.comm_world->attributes; a; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    order = MPL_malloc(n * sizeof(*order), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(order == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    n = 0;
    for (a = MPIR_Process.comm_world->attributes; a; a = a->next)
        order[n++] = a;
    while (n-- > 0) {
        int rc = MPIR_Call_attr_delete(MPI_COMM_WORLD, order[n]);
        if (rc != MPI_SUCCESS && mpi_errno == MPI_SUCCESS)
            mpi_errno = rc;
    }
    MPL_free(order);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- recovery ------------------------------------------------------------- */

static int recover(void)
{
    int mpi_errno = MPI_SUCCESS;
    uint32_t epoch;
    const uint8_t *dead_set, *prev;
    int nfailed, unhandled = 0, decider, again;
    int rebuild = MPIR_FTMPI_modes.comm == FTMPI_COMM_MODE_REBUILD;
    int *ranks = MPL_malloc(MPIR_Process.size * sizeof(int), MPL_MEM_OTHER);

    MPIR_ERR_CHKANDJUMP(ranks == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");

    MPIR_FTMPI_set_state(MPIR_FTMPI_RECOVERING, "recovery starts");
    MPID_FT_TRACE("recover: starts");
    MPID_FT_EVENT("recovery-begin");
  agree:
    mpi_errno = MPIR_FTMPI_agree(&epoch, &dead_set, &prev, &decider);
    MPIR_ERR_CHECK(mpi_errno);
    MPID_FT_TRACE("recover: agreed on epoch %u", epoch);

    /* what this recovery handled, in MPI_COMM_WORLD's ranks before it (a
     * rebuilt world had no dead, but a rebuild that had to start over did
     * not get that far) */
    nfailed = 0;
    for (int pid = 0; pid < MPIR_Process.size; pid++)
        if (MPID_FT_set_has(dead_set, pid) && (rebuild || !MPID_FT_set_has(prev, pid)))
            ranks[nfailed++] = MPID_FT_world_rank_of_pid(pid);

    MPID_FT_destroy_windows();
    destroy_comms();
    destroy_groups();
    MPID_FT_TRACE("recover: objects destroyed");
    mpi_errno = MPID_FT_begin_epoch(epoch, dead_set,
                                        MPIR_FTMPI_modes.comm == FTMPI_COMM_MODE_BLANK);
    MPIR_ERR_CHECK(mpi_errno);
    if (MPIR_FTMPI_modes.comm == FTMPI_COMM_MODE_SHRINK) {
        mpi_errno = shrink_world(dead_set);
        MPIR_ERR_CHECK(mpi_errno);
        MPID_FT_TRACE("recover: world shrunk");
    } else if (rebuild) {
        mpi_errno = MPID_FT_rebuild_world(epoch, dead_set, decider, &again);
        MPIR_ERR_CHECK(mpi_errno);
        if (again)
            goto agree;
        MPIR_FTMPI_agree_world_rebuilt();
        MPID_FT_TRACE("recover: world rebuilt");
    }
    /* a failure can interrupt a nonblocking collective that only some
     * processes had started: the world's schedule tags start over */
    MPIR_Process.comm_world->next_sched_tag = MPIR_FIRST_NBC_TAG;

    MPIR_FTMPI_set_last_failures(ranks, nfailed);
    for (int pid = 0; pid < MPIR_Process.size; pid++)
        if (MPID_FT_proc_failed(pid) && !MPID_FT_set_has(dead_set, pid))
            unhandled++;
    MPIR_FTMPI_set_state(unhandled ? MPIR_FTMPI_FAILURE_RECOGNIZED : MPIR_FTMPI_NO_FAILURES,
                         unhandled ? "recovered; failures since remain" : "recovered");

    mpi_errno = call_world_delete_callbacks();
    MPID_FT_TRACE("recover: done");

  fn_exit:
    if (MPIR_FTMPI_state() == MPIR_FTMPI_RECOVERING)
        MPIR_FTMPI_set_state(MPIR_FTMPI_FAILURE_RECOGNIZED, "recovery failed");
    MPL_free(ranks);
    MPID_FT_EVENT("recovery-end rc=%d size=%d", mpi_errno,
                  MPIR_Process.comm_world->local_size);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void MPIR_FTMPI_joined(uint32_t epoch, const int *replaced, int n)
{
    MPIR_FTMPI_agree_start_at(epoch);
    MPIR_FTMPI_set_last_failures(replaced, n);
    restarted = 1;
    MPID_FT_EVENT("joined epoch=%u", epoch);
}

int MPIR_FTMPI_restarted_node(void)
{
    return restarted;
}

int MPIR_FTMPI_comm_dup_hook(MPIR_Comm * comm_ptr, MPI_Comm * newcomm, int *mpi_errno)
{
    if (comm_ptr != MPIR_Process.comm_world || MPIR_FTMPI_aborts_on_failure() ||
        !MPIR_FTMPI_halts_on_failure())
        return 0;
    if (MPIR_FTMPI_failure_pending()) {
        *mpi_errno = recover();
        *newcomm = MPI_COMM_WORLD;
        MPID_FT_EVENT("resume how=comm_dup");
        return 1;
    }
    if (*newcomm == FT_MPI_CHECK_RECOVER) {
        *newcomm = MPI_COMM_WORLD;
        *mpi_errno = MPI_SUCCESS;
        return 1;
    }
    return 0;
}

int MPIR_FTMPI_auto_recover(const char *fcname, int errcode)
{
    int mpi_errno;

    if (MPIR_FTMPI_modes.recovery != FTMPI_RECOVERY_MODE_AUTO || MPIR_FTMPI_aborts_on_failure() ||
        MPIR_FTMPI_state() != MPIR_FTMPI_FAILURE_RECOGNIZED ||
        MPIR_ERR_GET_CLASS(errcode) != MPI_ERR_OTHER)
        return 0;
    mpi_errno = recover();
    if (mpi_errno != MPI_SUCCESS)
        errcode = mpi_errno;
    MPID_FT_EVENT("resume how=errhandler");
    MPIR_Err_return_comm(MPIR_Process.comm_world, fcname, errcode);
    return 1;
}
