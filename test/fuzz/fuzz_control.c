/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: ftdev's decoder of control messages (the active messages
 * of MPIDI_FTDEV_AM_CONTROL): MPIDI_FTDEV_ctrl_open and each type's rules,
 * MPIDI_FTDEV_ctrl_check (src/mpid/ftdev/ftdev_wire.c). Input: the world's
 * size, a flags byte (bit 0: seal the message with the job's key as a
 * process of the job would, so that the checks behind the MAC are
 * reached; bit 1: the sender is of this world; bits 2-3: the epoch the
 * receiver joined in), the 16-byte header, then the message. A message
 * that passes must be one its owner may use, meant for the receiver (tag
 * pid 0) and never taken twice.
 */

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    const MPIDI_FTDEV_wire_keys_t *keys = fuzz_keys();
    MPIDI_FTDEV_ctrl_head_t head;
    MPIDI_FTDEV_ctrl_msg_t msg;

    if (size < 2 + sizeof(head))
        return 0;
    int num_pids = 1 + data[0] % 64, flags = data[1];
    memcpy(&head, data + 2, sizeof(head));
    const uint8_t *body = data + 2 + sizeof(head);
    size_t len = size - 2 - sizeof(head);
    if (flags & 1)
        MPIDI_FTDEV_ctrl_seal(&head, body, len, keys->control);

    const char *wrong = MPIDI_FTDEV_ctrl_open(&head, sizeof(head), body, len, keys->control,
                                              &msg);
    if (wrong)
        return 0;
    FUZZ_ASSERT(len >= sizeof(msg));
    size_t payload_len = len - sizeof(msg);
    wrong = MPIDI_FTDEV_ctrl_check(msg.type, msg.pid, payload_len, num_pids, flags & 2);
    if (wrong)
        return 0;
    MPIDI_FTDEV_replay_window_t window = { 0 };
    uint32_t my_birth = (flags >> 2) & 3;
    if (MPIDI_FTDEV_ctrl_fresh(&msg, 0, my_birth, flags & 2, &window))
        return 0;
    FUZZ_ASSERT(msg.to == 0 && msg.counter > 0);
    FUZZ_ASSERT(!(flags & 2) || msg.epoch >= my_birth);
    FUZZ_ASSERT(MPIDI_FTDEV_ctrl_fresh(&msg, 0, my_birth, flags & 2, &window) != NULL);
    switch (msg.type) {
        case MPIDI_FTDEV_CTRL_FAILED:
            FUZZ_ASSERT(msg.pid >= 0 && msg.pid < num_pids && payload_len == 0);
            FUZZ_ASSERT(flags & 2);
            break;
        case MPIDI_FTDEV_CTRL_FINALIZING:
            FUZZ_ASSERT(payload_len == 0);
            break;
        case MPIDI_FTDEV_CTRL_REVOKE:
            FUZZ_ASSERT(payload_len == 0 && msg.pid >= 0 && msg.pid <= 0xffff);
            break;
        case MPIDI_FTDEV_CTRL_CHANNEL:
            FUZZ_ASSERT(msg.pid >= 0 && msg.pid < MPID_FT_NUM_CHANNELS);
            break;
        case MPIDI_FTDEV_CTRL_ECHO:
        case MPIDI_FTDEV_CTRL_ECHO_REPLY:
            FUZZ_ASSERT(msg.pid >= 0 && msg.pid < num_pids && payload_len == sizeof(uint32_t));
            break;
        case MPIDI_FTDEV_CTRL_REBUILD:{
                FUZZ_ASSERT(msg.pid >= 0 && msg.pid < num_pids && (flags & 2));
                /* the owner's own check, on the aligned copy it gets */
                void *copy = malloc(payload_len);
                memcpy(copy, body + sizeof(msg), payload_len);
                MPIDI_FTDEV_rb_check(copy, payload_len, msg.pid, num_pids);
                free(copy);
                break;
            }
        default:
            FUZZ_ASSERT(!"a type without rules passed");
    }
    return 0;
}
