/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: the check of REBUILD's messages (READY, HELLO, WELCOME,
 * REBUILT), MPIDI_FTDEV_rb_check (src/mpid/ftdev/ftdev_wire.c). Input:
 * the world's size, the sender's process id, then the message. A message
 * that passes is read the way the survivors and the replacement read it:
 * every entry and every byte of its address, which the address sanitizer
 * holds to the message's bounds.
 */

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    if (size < 2)
        return 0;
    int num_pids = 1 + data[0] % 64, from = data[1] % 70;
    size_t len = size - 2;
    /* the owner gets an aligned copy of exactly the payload */
    uint8_t *buf = malloc(len ? len : 1);
    memcpy(buf, data + 2, len);

    if (MPIDI_FTDEV_rb_check(buf, len, from, num_pids) == NULL) {
        const MPIDI_FTDEV_rb_msg_t *m = (const MPIDI_FTDEV_rb_msg_t *) buf;
        FUZZ_ASSERT(m->head.sender == from);
        if (m->head.kind == MPIDI_FTDEV_RB_READY) {
            FUZZ_ASSERT(len == sizeof(*m) + MPID_FT_SET_BYTES(num_pids));
        } else {
            const uint8_t *p = (const uint8_t *) (m + 1);
            unsigned sum = 0;
            for (uint32_t i = 0; i < m->count; i++) {
                const MPIDI_FTDEV_rb_entry_t *e = (const MPIDI_FTDEV_rb_entry_t *) p;
                FUZZ_ASSERT(e->pid >= 0 && e->pid < num_pids);
                FUZZ_ASSERT(e->node >= 0 && e->node < num_pids);
                FUZZ_ASSERT(e->state <= MPIDI_FTDEV_RB_LEAVING);
                for (uint32_t b = 0; b < e->address_len; b++)
                    sum += ((const uint8_t *) (e + 1))[b];
                p += MPIDI_FTDEV_rb_entry_size(e->address_len);
            }
            FUZZ_ASSERT(p == buf + len);
            if (m->head.kind == MPIDI_FTDEV_RB_HELLO)
                FUZZ_ASSERT(m->count == 1);
            (void) sum;
        }
    }
    free(buf);
    return 0;
}
