/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Fuzz target: the heartbeat thread's decoder of UDP datagrams
 * (MPIDI_FTDEV_hb_open, src/mpid/ftdev/ftdev_wire.c). The input is a
 * sequence of datagrams, each a length byte and that many bytes; a length
 * byte with its top bit set seals the datagram first with the job's key
 * (as a process of the job would), so that the checks behind the MAC are
 * reached too. Every opened datagram must name a process and kind the
 * thread may act on. The target receives as process 0, operating-system
 * process id 1000.
 */

#include "fuzz_common.h"

#define NUM_PIDS 8

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    const MPIDI_FTDEV_wire_keys_t *keys = fuzz_keys();
    MPIDI_FTDEV_hb_contact_t contacts[NUM_PIDS] = { {0} };
    MPIDI_FTDEV_replay_window_t windows[NUM_PIDS] = { {0} };
    uint8_t buf[2 * sizeof(MPIDI_FTDEV_hb_msg_t)];

    for (int p = 0; p < NUM_PIDS; p++)
        contacts[p].ospid = 1000 + p;
    while (size > 0) {
        size_t len = data[0] & 0x7f, sealed = data[0] & 0x80;
        data++, size--;
        if (len > size)
            len = size;
        if (len > sizeof(buf))
            len = sizeof(buf);
        memcpy(buf, data, len);
        data += len, size -= len;
        if (sealed && len == sizeof(MPIDI_FTDEV_hb_msg_t))
            MPIDI_FTDEV_hb_seal((MPIDI_FTDEV_hb_msg_t *) buf, keys->heartbeat);

        MPIDI_FTDEV_hb_msg_t m;
        const char *why;
        MPIDI_FTDEV_hb_verdict_t v = MPIDI_FTDEV_hb_open(buf, len, keys->heartbeat, 0, 1000,
                                                         NUM_PIDS, contacts, windows, &m, &why);
        if (v == HB_OPENED) {
            FUZZ_ASSERT(m.from >= 0 && m.from < NUM_PIDS);
            FUZZ_ASSERT(m.to == 0 && m.to_ospid == 1000);
            FUZZ_ASSERT(m.kind >= HB_BEAT && m.kind < HB_NUM_KINDS);
            if (m.kind == HB_FAILED || m.kind == HB_VERIFY || m.kind == HB_VERDICT)
                FUZZ_ASSERT(m.about >= 0 && m.about < NUM_PIDS);
            if (m.kind == HB_VERDICT)
                FUZZ_ASSERT(m.state > PROC_UNSEEN && m.state < PROC_NUM_CONDITIONS);
            /* the same datagram again is a replay */
            FUZZ_ASSERT(MPIDI_FTDEV_hb_open(buf, len, keys->heartbeat, 0, 1000, NUM_PIDS,
                                            contacts, windows, &m, &why) == HB_REJECTED);
        } else if (v == HB_REJECTED) {
            FUZZ_ASSERT(why != NULL);
        }
    }
    return 0;
}
