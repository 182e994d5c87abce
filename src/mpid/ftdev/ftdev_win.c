/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * One-sided communication is MPICH's generic implementation (MPIDIG) over
 * ftdev's active messages (synchronizations: ftdev_rma.h). ftdev keeps a
 * registry of the windows, which a recovery destroys.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

int MPIDI_FTDEV_mpi_win_set_info(MPIR_Win * win, MPIR_Info * info)
{
    return MPIDIG_mpi_win_set_info(win, info);
}

int MPIDI_FTDEV_mpi_win_get_info(MPIR_Win * win, MPIR_Info ** info_p)
{
    return MPIDIG_mpi_win_get_info(win, info_p);
}

int MPIDI_FTDEV_mpi_win_free(MPIR_Win ** win_p)
{
    return MPIDIG_mpi_win_free(win_p);
}

int MPIDI_FTDEV_mpi_win_create(void *base, MPI_Aint length, int disp_unit, MPIR_Info * info,
                               MPIR_Comm * comm_ptr, MPIR_Win ** win_p)
{
    return MPIDIG_mpi_win_create(base, length, disp_unit, info, comm_ptr, win_p);
}

int MPIDI_FTDEV_mpi_win_attach(MPIR_Win * win, void *base, MPI_Aint size)
{
    return MPIDIG_mpi_win_attach(win, base, size);
}

int MPIDI_FTDEV_mpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                        MPIR_Comm * comm_ptr, void **baseptr_p,
                                        MPIR_Win ** win_p)
{
    return MPIDIG_mpi_win_allocate_shared(size, disp_unit, info, comm_ptr, baseptr_p, win_p);
}

int MPIDI_FTDEV_mpi_win_detach(MPIR_Win * win, const void *base)
{
    return MPIDIG_mpi_win_detach(win, base);
}

int MPIDI_FTDEV_mpi_win_allocate(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                 MPIR_Comm * comm, void *baseptr, MPIR_Win ** win_p)
{
    return MPIDIG_mpi_win_allocate(size, disp_unit, info, comm, baseptr, win_p);
}

int MPIDI_FTDEV_mpi_win_create_dynamic(MPIR_Info * info, MPIR_Comm * comm, MPIR_Win ** win_p)
{
    return MPIDIG_mpi_win_create_dynamic(info, comm, win_p);
}

static int register_win(MPIR_Win * win)
{
    MPIDI_FTDEV_win_t *w = &MPIDI_FTDEV_WIN(win);
    w->prev = NULL;
    w->next = MPIDI_FTDEV_global.objects.wins;
    if (w->next)
        MPIDI_FTDEV_WIN(w->next).prev = win;
    MPIDI_FTDEV_global.objects.wins = win;
    return MPI_SUCCESS;
}

static void unregister_win(MPIR_Win * win)
{
    MPIDI_FTDEV_win_t *w = &MPIDI_FTDEV_WIN(win);
    if (w->prev)
        MPIDI_FTDEV_WIN(w->prev).next = w->next;
    else
        MPIDI_FTDEV_global.objects.wins = w->next;
    if (w->next)
        MPIDI_FTDEV_WIN(w->next).prev = w->prev;
}

/* A destroyed window keeps its memory and handle with a reference count of
 * zero, which MPICH refuses (MPI_ERR_WIN); messages still addressed to it
 * find no window and are dropped with their epoch. Its communicator goes
 * with the others. */
void MPID_FT_destroy_windows(void)
{
    MPIR_Win *win;
    while ((win = MPIDI_FTDEV_global.objects.wins)) {
        unregister_win(win);
        MPIDIU_map_erase(MPIDI_global.win_map, MPIDIG_WIN(win, win_id));
        MPIR_Object_set_ref(win, 0);
    }
}

int MPIDI_FTDEV_mpi_win_create_hook(MPIR_Win * win)
{
    return register_win(win);
}

int MPIDI_FTDEV_mpi_win_allocate_hook(MPIR_Win * win)
{
    return register_win(win);
}

int MPIDI_FTDEV_mpi_win_allocate_shared_hook(MPIR_Win * win)
{
    return register_win(win);
}

int MPIDI_FTDEV_mpi_win_create_dynamic_hook(MPIR_Win * win)
{
    return register_win(win);
}

int MPIDI_FTDEV_mpi_win_attach_hook(MPIR_Win * win, void *base, MPI_Aint size)
{
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_mpi_win_detach_hook(MPIR_Win * win, const void *base)
{
    return MPI_SUCCESS;
}

int MPIDI_FTDEV_mpi_win_free_hook(MPIR_Win * win)
{
    unregister_win(win);
    return MPI_SUCCESS;
}

void *MPIDI_FTDEV_mpi_alloc_mem(MPI_Aint size, MPIR_Info * info)
{
    return MPIDIG_mpi_alloc_mem(size, info);
}

int MPIDI_FTDEV_mpi_free_mem(void *ptr)
{
    return MPIDIG_mpi_free_mem(ptr);
}
