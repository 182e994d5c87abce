/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: the packed states of the checkpoint library that come from
 * other processes (a buddy's copy, a dead process's state):
 * ckpt_blob_check, ckpt_fits, ckpt_unpack and FTMPI_Ckpt_adopted_buffer
 * (toolkit/ckpt/ftmpi_ckpt_pack.c). Input: the number of registered
 * buffers (byte % 5), the size of each (a byte each), then the packed
 * state. A state is read the ways the library reads it, from a copy of
 * exactly its length, which the address sanitizer holds every read to; a
 * state that fits is unpacked into the registered buffers, and the
 * registered buffers packed again must pass and fit.
 */

#include "fuzz_common.h"
#include "ftmpi_ckpt_impl.h"

/* where the bytes read go, so that the compiler keeps the reads */
static volatile unsigned sink;

/* every byte of every buffer the library hands out of b */
static void read_buffers(struct FTMPI_Ckpt_s *ckpt, const blob_t * b, int valid)
{
    unsigned sum = 0;
    int count = valid ? (int) ((const uint64_t *) b->data)[0] : 0;

    for (int i = -1; i <= count && i < 1000; i++) {
        void *buf;
        size_t bytes;
        int rc = FTMPI_Ckpt_adopted_buffer(ckpt, 0, i, &buf, &bytes, NULL);
        FUZZ_ASSERT(rc == FTMPI_CKPT_SUCCESS ? valid && i >= 0 && i < count :
                    rc == (valid ? FTMPI_CKPT_ERR_ARG : FTMPI_CKPT_ERR_CORRUPT));
        if (rc != FTMPI_CKPT_SUCCESS)
            continue;
        FUZZ_ASSERT((char *) buf >= b->data && bytes <= b->len &&
                    (size_t) ((char *) buf - b->data) <= b->len - bytes);
        for (size_t k = 0; k < bytes; k++)
            sum += ((const uint8_t *) buf)[k];
    }
    sink = sum;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    struct FTMPI_Ckpt_s ckpt;
    int nbufs, old_rank = 3;
    void *bufs[4];
    size_t sizes[4];
    blob_t b, packed = { 0 };

    if (size < 1 || size < 1 + (size_t) (data[0] % 5))
        return 0;
    nbufs = data[0] % 5;
    for (int i = 0; i < nbufs; i++) {
        sizes[i] = data[1 + i];
        bufs[i] = sizes[i] ? malloc(sizes[i]) : NULL;
    }
    data += 1 + nbufs, size -= 1 + nbufs;
    memset(&ckpt, 0, sizeof(ckpt));
    ckpt.bufs = bufs;
    ckpt.sizes = sizes;
    ckpt.nbufs = ckpt.bufs_cap = nbufs;
    ckpt.trace_fd = -1;

    /* as ckpt_recv_blob leaves it: exactly the bytes received */
    b.len = b.cap = size;
    b.data = malloc(size ? size : 1);
    memcpy(b.data, data, size);

    const char *wrong = ckpt_blob_check(&b);
    if (wrong == NULL) {
        const uint64_t *head = (const uint64_t *) b.data;
        uint64_t total = (1 + head[0]) * sizeof(uint64_t);
        for (uint64_t i = 0; i < head[0]; i++)
            total += head[1 + i];
        FUZZ_ASSERT(total == b.len);
    }
    ckpt.adopted = &b;
    ckpt.adopted_rank = &old_rank;
    ckpt.num_adopted = 1;
    read_buffers(&ckpt, &b, wrong == NULL);

    if (ckpt_fits(&ckpt, &b)) {
        FUZZ_ASSERT(wrong == NULL);
        ckpt_unpack(&ckpt, &b);
        FUZZ_ASSERT(ckpt_pack(&ckpt, &packed) == FTMPI_CKPT_SUCCESS);
        FUZZ_ASSERT(packed.len == b.len && memcmp(packed.data, b.data, b.len) == 0);
    } else {
        FUZZ_ASSERT(ckpt_pack(&ckpt, &packed) == FTMPI_CKPT_SUCCESS);
    }
    FUZZ_ASSERT(ckpt_blob_check(&packed) == NULL && ckpt_fits(&ckpt, &packed));

    free(packed.data);
    free(b.data);
    for (int i = 0; i < nbufs; i++)
        free(bufs[i]);
    return 0;
}
