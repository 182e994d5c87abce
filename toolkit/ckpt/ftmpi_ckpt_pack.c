/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * libftmpi_ckpt's packed states: the registered buffers copied into one
 * blob (nbufs, the sizes, then the bytes of each buffer) and back, and
 * the states adopted from dead processes. No MPI call: the fuzz target
 * (test/fuzz/fuzz_ckpt.c) builds this file alone.
 */

#include "ftmpi_ckpt_impl.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ckpt_reserve(blob_t * b, size_t len)
{
    if (len > b->cap) {
        char *p = realloc(b->data, len);
        if (p == NULL)
            return FTMPI_CKPT_ERR_NOMEM;
        b->data = p;
        b->cap = len;
    }
    b->len = len;
    return FTMPI_CKPT_SUCCESS;
}

int ckpt_copy_blob(blob_t * to, const blob_t * from)
{
    int rc = ckpt_reserve(to, from->len);
    if (rc == FTMPI_CKPT_SUCCESS && from->len)
        memcpy(to->data, from->data, from->len);
    return rc;
}

int ckpt_pack(FTMPI_Ckpt ckpt, blob_t * b)
{
    size_t len = (1 + (size_t) ckpt->nbufs) * sizeof(uint64_t), off;
    uint64_t *head;
    int rc;

    for (int i = 0; i < ckpt->nbufs; i++)
        len += ckpt->sizes[i];
    if ((rc = ckpt_reserve(b, len)) != FTMPI_CKPT_SUCCESS)
        return rc;
    head = (uint64_t *) b->data;
    head[0] = (uint64_t) ckpt->nbufs;
    off = (1 + (size_t) ckpt->nbufs) * sizeof(uint64_t);
    for (int i = 0; i < ckpt->nbufs; i++) {
        head[1 + i] = ckpt->sizes[i];
        if (ckpt->sizes[i])
            memcpy(b->data + off, ckpt->bufs[i], ckpt->sizes[i]);
        off += ckpt->sizes[i];
    }
    return FTMPI_CKPT_SUCCESS;
}

/* Every packed state that comes from another process (a buddy's copy, a
 * dead process's state) is held to its own header before a byte of it is
 * read: the sender, or anyone on the way, may have made the header lie. */
const char *ckpt_blob_check(const blob_t * b)
{
    const uint64_t *head = (const uint64_t *) b->data;
    size_t rest;

    if (b->len < sizeof(uint64_t))
        return "shorter than its header";
    rest = b->len - sizeof(uint64_t);
    if (head[0] > rest / sizeof(uint64_t))
        return "more buffers than its header has room for";
    rest -= head[0] * sizeof(uint64_t);
    for (uint64_t i = 0; i < head[0]; i++) {
        if (head[1 + i] > rest)
            return "its buffers' sizes exceed its length";
        rest -= head[1 + i];
    }
    return rest == 0 ? NULL : "longer than its buffers";
}

/* Buffer `i` of a packed state; FTMPI_CKPT_ERR_ARG past the end. */
int ckpt_packed_buffer(const blob_t * b, int i, char **buf, size_t * bytes)
{
    const uint64_t *head = (const uint64_t *) b->data;
    size_t off;

    if (ckpt_blob_check(b) != NULL)
        return FTMPI_CKPT_ERR_CORRUPT;
    if (i < 0 || (uint64_t) i >= head[0])
        return FTMPI_CKPT_ERR_ARG;
    off = (1 + head[0]) * sizeof(uint64_t);
    for (int k = 0; k < i; k++)
        off += head[1 + k];
    *buf = b->data + off;
    *bytes = head[1 + i];
    return FTMPI_CKPT_SUCCESS;
}

/* Whether the registered buffers have the layout of a packed state. */
int ckpt_fits(FTMPI_Ckpt ckpt, const blob_t * b)
{
    const uint64_t *head = (const uint64_t *) b->data;

    if (ckpt_blob_check(b) != NULL || head[0] != (uint64_t) ckpt->nbufs)
        return 0;
    for (int i = 0; i < ckpt->nbufs; i++)
        if (head[1 + i] != ckpt->sizes[i])
            return 0;
    return 1;
}

/* Only after ckpt_fits: every buffer is in `b`. */
void ckpt_unpack(FTMPI_Ckpt ckpt, const blob_t * b)
{
    size_t off = (1 + (size_t) ckpt->nbufs) * sizeof(uint64_t);

    for (int i = 0; i < ckpt->nbufs; off += ckpt->sizes[i], i++)
        if (ckpt->sizes[i])
            memcpy(ckpt->bufs[i], b->data + off, ckpt->sizes[i]);
}

/* ---- adopted states (restored in ftmpi_ckpt.c) ------------------------------------ */

int FTMPI_Ckpt_adopted(FTMPI_Ckpt ckpt, int *count)
{
    if (ckpt == NULL || count == NULL)
        return FTMPI_CKPT_ERR_ARG;
    *count = ckpt->num_adopted;
    return FTMPI_CKPT_SUCCESS;
}

int FTMPI_Ckpt_adopted_buffer(FTMPI_Ckpt ckpt, int i, int b, void **buf, size_t * bytes,
                              int *old_rank)
{
    char *p;
    int rc;

    if (ckpt == NULL || i < 0 || i >= ckpt->num_adopted || buf == NULL || bytes == NULL)
        return FTMPI_CKPT_ERR_ARG;
    if ((rc = ckpt_packed_buffer(&ckpt->adopted[i], b, &p, bytes)) != FTMPI_CKPT_SUCCESS)
        return rc;
    *buf = p;
    if (old_rank)
        *old_rank = ckpt->adopted_rank[i];
    return FTMPI_CKPT_SUCCESS;
}
