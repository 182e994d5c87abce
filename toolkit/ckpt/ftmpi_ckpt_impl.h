/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * libftmpi_ckpt's private declarations: the checkpoint object and the
 * helpers its files share (never installed: ftmpi_ckpt.h is the API).
 */

#ifndef FTMPI_CKPT_IMPL_H_INCLUDED
#define FTMPI_CKPT_IMPL_H_INCLUDED

#include "ftmpi_ckpt.h"
#include <stddef.h>

/* the library's messages, inside the range ftmpi_ckpt.h reserves */
#define TAG_SIZE        (FTMPI_CKPT_TAG_FIRST + 0)
#define TAG_DATA        (FTMPI_CKPT_TAG_FIRST + 1)
#define TAG_STATE_SIZE  (FTMPI_CKPT_TAG_FIRST + 2)
#define TAG_STATE       (FTMPI_CKPT_TAG_FIRST + 3)
#define TAG_BUDDY_SIZE  (FTMPI_CKPT_TAG_FIRST + 4)
#define TAG_BUDDY       (FTMPI_CKPT_TAG_FIRST + 5)

/* the last checkpoint, the one before, and one being taken */
#define NUM_SLOTS  3

typedef struct {
    char *data;
    size_t len, cap;
} blob_t;

/* One checkpoint: a generation number, the application's step, the ring
 * of processes that took it (their communicator ranks at the time, which
 * name them in the checkpoint), this process's packed state and the
 * packed state of its predecessor in the ring. */
typedef struct {
    long gen;                   /* -1: empty */
    long step;
    int *ring;                  /* the processes that took it, by communicator rank then */
    int ring_size, ring_cap;
    int pos;                    /* this process's place in ring */
    blob_t own;                 /* this process's state */
    blob_t buddy;               /* the state of ring[pos - 1] */
    int buddy_valid;
} slot_t;

struct FTMPI_Ckpt_s {
    void **bufs;
    size_t *sizes;
    int nbufs, bufs_cap;
    slot_t slot[NUM_SLOTS];
    int last, before;           /* slots of the last checkpoint and the one before; -1: none */
    int tried;                  /* a take was started here */
    blob_t *adopted;
    int *adopted_rank;
    int num_adopted;
    int trace_fd;               /* -2: not looked up yet; -1: no trace */
};

/* Only the FTMPI_Ckpt_* functions are the library's interface: the rest
 * must not reach, nor be taken from, the application's namespace. */
#pragma GCC visibility push(hidden)

/* ftmpi_ckpt_trace.c: a line in the process's FT-MPICH trace, if any */
void ckpt_trace(FTMPI_Ckpt ckpt, const char *fmt, ...) __attribute__ ((format(printf, 2, 3)));

/* ftmpi_ckpt_pack.c: blobs, and packed states in them */
int ckpt_reserve(blob_t * b, size_t len);
int ckpt_copy_blob(blob_t * to, const blob_t * from);
int ckpt_pack(FTMPI_Ckpt ckpt, blob_t * b);
/* NULL when b is a packed state as its header describes it; else what is wrong */
const char *ckpt_blob_check(const blob_t * b);
int ckpt_packed_buffer(const blob_t * b, int i, char **buf, size_t * bytes);
int ckpt_fits(FTMPI_Ckpt ckpt, const blob_t * b);
void ckpt_unpack(FTMPI_Ckpt ckpt, const blob_t * b);

/* ftmpi_ckpt_transfer.c: blobs between processes */
int ckpt_exchange(const blob_t * out, int dest, blob_t * in, int src, MPI_Comm comm);
int ckpt_send_blob(const blob_t * b, int dest, int tag_size, int tag_data, MPI_Comm comm);
int ckpt_recv_blob(blob_t * b, int src, int tag_size, int tag_data, MPI_Comm comm);

#pragma GCC visibility pop

#endif /* FTMPI_CKPT_IMPL_H_INCLUDED */
