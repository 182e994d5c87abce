/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: the checks the layers above the device make of their
 * channels' messages on receipt: the FT-MPI recovery agreement's
 * (src/recovery/ftmpi_agree_msg.h), the ATOMIC commit's
 * (src/coll_atomic/ftmpi_commit_msg.h) and ULFM's agreement's
 * (src/ulfm/ulfm_agree_msg.h). Input: the channel, the world's size, the
 * sender, the receiver, then the message (an aligned copy, as the device
 * hands it on). A message that passes is read the way its handler reads
 * it, which the address sanitizer holds to the message's bounds.
 */

#include "fuzz_common.h"
#include "ftmpi_agree_msg.h"
#include "ftmpi_commit_msg.h"
/* the two agreements name their messages alike */
#define MSG_DECIDE ULFM_MSG_DECIDE
#define agree_msg_t ulfm_agree_msg_t
#include "ulfm_agree_msg.h"

static unsigned touch(const uint8_t * p, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    if (size < 4)
        return 0;
    int channel = data[0] % MPID_FT_NUM_CHANNELS, n = 1 + data[1] % 64, from = data[2] % 70;
    int me = data[3] % n;
    size_t len = size - 4;
    uint8_t *buf = malloc(len ? len : 1);
    memcpy(buf, data + 4, len);
    volatile unsigned sum = 0;

    switch (channel) {
        case MPID_FT_CHANNEL_RECOVERY:
            if (ftmpi_agree_msg_check(buf, len, from, n) == NULL) {
                const struct ftmpi_agree_msg_view {
                    MPID_FT_msg_head_t head;
                    int32_t decider;
                } *m = (const void *) buf;
                size_t nbytes = MPID_FT_SET_BYTES(n);
                FUZZ_ASSERT(from >= 0 && from < n && m->head.sender == from);
                sum += touch(buf + sizeof(*m), 2 * nbytes);
                if (m->head.kind == 1)  /* JOIN: the epoch each process joined from */
                    sum += touch(buf + sizeof(*m) + 2 * nbytes, n * sizeof(uint32_t));
                else
                    FUZZ_ASSERT(m->decider >= 0 && m->decider < n);
            }
            break;
        case MPID_FT_CHANNEL_COMMIT:
            if (ftmpi_commit_msg_check(buf, len, from, n, me) == NULL) {
                commit_msg_t m;
                memcpy(&m, buf, sizeof(m));
                FUZZ_ASSERT(from >= 0 && from < n && m.head.sender == from);
                if (m.head.kind == SWEEP || m.head.kind == REPORT)
                    FUZZ_ASSERT(m.round < (uint32_t) n);
                sum += touch(buf + sizeof(m), len - sizeof(m));
            }
            break;
        default:
            if (ulfm_agree_msg_check(buf, len) == NULL) {
                const ulfm_agree_msg_t *m = (const ulfm_agree_msg_t *) buf;
                size_t bytes = MPID_FT_SET_BYTES(m->size);
                FUZZ_ASSERT(m->head.sender >= 0 && (uint32_t) m->head.sender < m->size);
                FUZZ_ASSERT(m->origin >= 0 && (uint32_t) m->origin < m->size);
                sum += touch(m->ranks, 3 * bytes + m->and_words * sizeof(uint32_t));
            }
            break;
    }
    (void) sum;
    free(buf);
    return 0;
}
