/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * libftmpi_ckpt's transfers: blobs sent and received between the
 * processes of a communicator.
 */

#include "ftmpi_ckpt_impl.h"
#include <stdint.h>

/* messages are cut into pieces that an int count of bytes can describe */
#define CHUNK      ((size_t) 1 << 30)

/* Sends `out` to `dest` while receiving `in` from `src` (sizes first). */
int ckpt_exchange(const blob_t * out, int dest, blob_t * in, int src, MPI_Comm comm)
{
    uint64_t out_len = out->len, in_len;
    size_t off_out = 0, off_in = 0;
    int rc;

    rc = MPI_Sendrecv(&out_len, 1, MPI_UINT64_T, dest, TAG_SIZE, &in_len, 1, MPI_UINT64_T, src,
                      TAG_SIZE, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ckpt_reserve(in, in_len)) != FTMPI_CKPT_SUCCESS)
        return rc;
    do {
        size_t n_out = out->len - off_out < CHUNK ? out->len - off_out : CHUNK;
        size_t n_in = in->len - off_in < CHUNK ? in->len - off_in : CHUNK;
        rc = MPI_Sendrecv(out->data + off_out, (int) n_out, MPI_BYTE, dest, TAG_DATA,
                          in->data + off_in, (int) n_in, MPI_BYTE, src, TAG_DATA, comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        off_out += n_out;
        off_in += n_in;
    } while (off_out < out->len || off_in < in->len);
    return MPI_SUCCESS;
}

/* A whole packed state to or from one process: its size, then its bytes. */
int ckpt_send_blob(const blob_t * b, int dest, int tag_size, int tag_data, MPI_Comm comm)
{
    uint64_t len = b->len;
    size_t off = 0;
    int rc = MPI_Send(&len, 1, MPI_UINT64_T, dest, tag_size, comm);

    while (rc == MPI_SUCCESS && off < b->len) {
        size_t n = b->len - off < CHUNK ? b->len - off : CHUNK;
        rc = MPI_Send(b->data + off, (int) n, MPI_BYTE, dest, tag_data, comm);
        off += n;
    }
    return rc;
}

int ckpt_recv_blob(blob_t * b, int src, int tag_size, int tag_data, MPI_Comm comm)
{
    uint64_t len;
    size_t off = 0;
    int rc = MPI_Recv(&len, 1, MPI_UINT64_T, src, tag_size, comm, MPI_STATUS_IGNORE);

    if (rc == MPI_SUCCESS)
        rc = ckpt_reserve(b, len);
    while (rc == MPI_SUCCESS && off < b->len) {
        size_t n = b->len - off < CHUNK ? b->len - off : CHUNK;
        rc = MPI_Recv(b->data + off, (int) n, MPI_BYTE, src, tag_data, comm, MPI_STATUS_IGNORE);
        off += n;
    }
    return rc;
}
