/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The FT-MPI recovery agreement's messages (ftmpi_agree.c) as they
 * travel, and their check on receipt: pure, so that the fuzz target
 * test/fuzz/fuzz_channels.c calls it as the agreement does.
 */

#ifndef FTMPI_AGREE_MSG_H_INCLUDED
#define FTMPI_AGREE_MSG_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "mpid_ft.h"

enum { MSG_JOIN = 1, MSG_DECIDE = 2 };

static const char *const ftmpi_agree_kind_names[] = { "join", "decide" };

static const MPID_FT_msg_kinds_t ftmpi_agree_kinds = {
    .protocol = "agree",.seq_name = "epoch",.kind_names = ftmpi_agree_kind_names,.num_kinds = 2
};

typedef struct {
    /* seq: JOIN: the highest epoch among its joins; DECIDE: the new one;
     * sender: its process id */
    MPID_FT_msg_head_t head;
    int32_t decider;            /* DECIDE: the coordinator that decided */
    uint8_t sets[];             /* two bitmaps: JOIN K, W(epoch); DECIDE new, previous;
                                 * then, in a JOIN, the epoch each process joined from
                                 * (uint32_t, NO_JOIN for none) */
} agree_msg_t;

static inline size_t ftmpi_agree_msg_len(int kind, int n)
{
    return sizeof(agree_msg_t) + 2 * MPID_FT_SET_BYTES(n) +
        (kind == MSG_JOIN ? (size_t) n * sizeof(uint32_t) : 0);
}

static inline const char *ftmpi_agree_msg_check(const void *buf, size_t len, int from, int n)
{
    const agree_msg_t *m = buf;
    MPID_FT_msg_head_t head;
    if (from < 0 || from >= n)
        return "from no process of this world";
    const char *wrong = MPID_FT_msg_check_head(&ftmpi_agree_kinds, buf, len, sizeof(agree_msg_t),
                                               n, from, &head);
    if (wrong)
        return wrong;
    if (len != ftmpi_agree_msg_len(head.kind, n))
        return "of the wrong length";
    if (head.kind == MSG_DECIDE && (m->decider < 0 || m->decider >= n))
        return "naming no decider";
    return NULL;
}

#endif /* FTMPI_AGREE_MSG_H_INCLUDED */
