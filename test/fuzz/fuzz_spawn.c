/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: the process names (upids) the other side of
 * MPI_Comm_spawn, connect and accept sends, MPIDI_FTDEV_upids_check and
 * MPIDI_FTDEV_upid_open (src/mpid/ftdev/ftdev_wire.c). Input: the
 * receiver's process-id bits (9 + byte % 8), then a byte whose top bit
 * picks the form ch4 hands the names over in:
 *
 *  - set: one name in the accept side's buffer of MPI_MAX_PORT_NAME bytes,
 *    its length (int32) as the other side claims it, then the buffer's
 *    bytes;
 *  - clear: (byte % 5) names laid end to end, their sizes (int32 each),
 *    then the bytes, in a buffer of the sizes' sum as ch4 allocates it.
 *
 * Names that pass are taken in the way ftdev_spawn.c takes them in: the
 * tag pid indexes a table of 2^bits entries, every byte of the address is
 * read, and the first unused tag pid moves on; the address sanitizer holds
 * each to its buffer.
 */

#include "fuzz_common.h"

/* where the bytes read go, so that the compiler keeps the reads */
static volatile unsigned sink;

static int32_t int32_at(const uint8_t * p)
{
    int32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static void take_in(int count, const int *sizes, const uint8_t * upids, int bits)
{
    int capacity = 1 << bits, tag_pid_next = 0;
    int *pid_of_tag_pid = malloc(capacity * sizeof(int));
    const uint8_t *p = upids;
    unsigned sum = 0;

    for (int t = 0; t < capacity; t++)
        pid_of_tag_pid[t] = -1;
    for (int i = 0; i < count; p += sizes[i], i++) {
        MPIDI_FTDEV_upid_header_t h;
        const void *address;
        FUZZ_ASSERT(MPIDI_FTDEV_upid_open(p, sizes[i], &h, &address) == NULL);
        FUZZ_ASSERT((const uint8_t *) address + h.address_len == p + sizes[i]);
        for (uint32_t b = 0; b < h.address_len; b++)
            sum += ((const uint8_t *) address)[b];
        /* a world of num_pids processes that the named process spawns
         * starts at its tag_pid_next (MPIDI_FTDEV_spawned_world_layout) */
        int num_pids = 1 + (int) (h.world_id % 64);
        if (h.pid_bits >= bits && h.tag_pid_next + num_pids <= (1 << h.pid_bits))
            FUZZ_ASSERT(h.tag_pid_next >= 0);
        if (h.pid_bits != bits)
            continue;   /* another tag layout: refused */
        if (pid_of_tag_pid[h.tag_pid] < 0)
            pid_of_tag_pid[h.tag_pid] = i;
        int next = h.tag_pid + 1 > h.tag_pid_next ? h.tag_pid + 1 : h.tag_pid_next;
        if (next > tag_pid_next)
            tag_pid_next = next;
        FUZZ_ASSERT(tag_pid_next <= capacity);
    }
    sink = sum;
    free(pid_of_tag_pid);
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    if (size < 2)
        return 0;
    int bits = 9 + data[0] % 8, form = data[1];
    data += 2, size -= 2;

    if (form & 0x80) {
        if (size < 4)
            return 0;
        int len = int32_at(data);
        uint8_t *buf = calloc(1, MPIDI_FTDEV_UPID_MAX_BYTES);
        size_t n = size - 4 < MPIDI_FTDEV_UPID_MAX_BYTES ? size - 4 : MPIDI_FTDEV_UPID_MAX_BYTES;
        memcpy(buf, data + 4, n);
        if (MPIDI_FTDEV_upids_check(1, &len, buf) == NULL)
            take_in(1, &len, buf, bits);
        free(buf);
        return 0;
    }

    int count = form % 5, sizes[4];
    uint32_t total = 0;
    if (size < 4 * (size_t) count)
        return 0;
    for (int i = 0; i < count; i++) {
        sizes[i] = int32_at(data + 4 * i);
        total += (uint32_t) sizes[i];   /* ch4 adds them up in an int */
    }
    data += 4 * count, size -= 4 * count;
    if ((int32_t) total < 0 || total > (1u << 16))
        return 0;       /* ch4's allocation fails; or too long to be worth fuzzing */
    uint8_t *buf = calloc(1, total ? total : 1);
    memcpy(buf, data, size < total ? size : total);
    if (MPIDI_FTDEV_upids_check(count, sizes, buf) == NULL)
        take_in(count, sizes, buf, bits);
    free(buf);
    return 0;
}
