/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Non-contiguous datatypes travel as UCX generic datatypes: UCX asks for
 * packed fragments as it sends and hands fragments back as they arrive, so
 * no whole-message staging buffer is needed.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"

typedef struct {
    MPIR_Datatype *dt;
    void *buf;
    MPI_Aint count;
    size_t packed_size;
} pack_state_t;

static void *start(void *context, void *buf, size_t count)
{
    MPIR_Datatype *dt = context;
    pack_state_t *s = MPL_malloc(sizeof(*s), MPL_MEM_DATATYPE);
    if (s == NULL)
        return NULL;
    s->dt = dt;
    s->buf = buf;
    s->count = count;
    s->packed_size = (size_t) dt->size * count;
    return s;
}

static void *start_pack(void *context, const void *buf, size_t count)
{
    return start(context, (void *) buf, count);
}

static void *start_unpack(void *context, void *buf, size_t count)
{
    return start(context, buf, count);
}

static size_t packed_size(void *state)
{
    return ((pack_state_t *) state)->packed_size;
}

static size_t pack(void *state, size_t offset, void *dest, size_t max_length)
{
    pack_state_t *s = state;
    MPI_Aint actual = 0;
    MPIR_Typerep_pack(s->buf, s->count, s->dt->handle, offset, dest, max_length, &actual);
    return actual;
}

static ucs_status_t unpack(void *state, size_t offset, const void *src, size_t length)
{
    pack_state_t *s = state;
    MPI_Aint actual = 0;

    if (offset + length > s->packed_size)
        return UCS_ERR_MESSAGE_TRUNCATED;
    MPIR_Typerep_unpack(src, length, s->buf, s->count, s->dt->handle, offset, &actual);
    return (size_t) actual == length ? UCS_OK : UCS_ERR_MESSAGE_TRUNCATED;
}

/* Drops the reference the send or receive path took on the datatype. */
static void finish(void *state)
{
    pack_state_t *s = state;
    MPIR_Datatype_ptr_release(s->dt);
    MPL_free(s);
}

static ucp_generic_dt_ops_t generic_ops = {
    .start_pack = start_pack,
    .start_unpack = start_unpack,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .finish = finish,
};

int MPIDI_FTDEV_create_ucp_datatype(MPIR_Datatype * dt_ptr)
{
    int mpi_errno = MPI_SUCCESS;
    ucs_status_t status = ucp_dt_create_generic(&generic_ops, dt_ptr,
                                                &MPIDI_FTDEV_DT(dt_ptr).ucp_datatype);
    MPIDI_FTDEV_CHK_STATUS(status);
    MPIDI_FTDEV_DT(dt_ptr).has_ucp_datatype = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_mpi_type_commit_hook(MPIR_Datatype * dt_ptr)
{
    int is_contig;

    MPIDI_FTDEV_DT(dt_ptr).has_ucp_datatype = 0;
    MPIR_Datatype_is_contig(dt_ptr->handle, &is_contig);
    return is_contig ? MPI_SUCCESS : MPIDI_FTDEV_create_ucp_datatype(dt_ptr);
}

int MPIDI_FTDEV_mpi_type_free_hook(MPIR_Datatype * dt_ptr)
{
    if (MPIDI_FTDEV_DT(dt_ptr).has_ucp_datatype) {
        ucp_dt_destroy(MPIDI_FTDEV_DT(dt_ptr).ucp_datatype);
        MPIDI_FTDEV_DT(dt_ptr).has_ucp_datatype = 0;
    }
    return MPI_SUCCESS;
}
