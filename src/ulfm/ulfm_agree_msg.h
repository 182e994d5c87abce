/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * ULFM's agreement messages (ulfm_agree.c) as they travel, and their check
 * on receipt: pure, so that the fuzz target test/fuzz/fuzz_channels.c
 * calls it as the agreement does.
 */

#ifndef ULFM_AGREE_MSG_H_INCLUDED
#define ULFM_AGREE_MSG_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "mpid_ft.h"

enum { MSG_CONTRIB = 1, MSG_DECIDE, MSG_QUERY };

static const char *const ulfm_agree_kind_names[] = { "contrib", "decide", "query" };

static const MPID_FT_msg_kinds_t ulfm_agree_kinds = {
    .protocol = "ulfm agree",.seq_name = "seq",.kind_names = ulfm_agree_kind_names,.num_kinds = 3
};

typedef struct {
    /* seq: the agreement's number over the communicator; sender: the rank
     * of the member that wrote it (an intercommunicator's: both groups,
     * the low one's first), which a relayed decision keeps (a found one
     * sent on to the coordinator names the member that sends it) */
    MPID_FT_msg_head_t head;
    uint32_t context_id;
    uint32_t size;              /* members of the communicator */
    uint32_t and_words;         /* 32-bit words of the bitmap ANDed besides the flags */
    int32_t origin;             /* the coordinator whose tree it travels: QUERY, CONTRIB: the
                                 * one asked for; DECIDE: the one whose decision it is, or
                                 * (found) the one it answers */
    int32_t flag[2];            /* per group (intercommunicators: low, high): CONTRIB: the
                                 * AND of its members' flags; DECIDE: the AND */
    int32_t raise;              /* DECIDE: raise MPIX_ERR_PROC_FAILED */
    int32_t query_answer;       /* CONTRIB: an answer of members committed to `origin` */
    int32_t found;              /* DECIDE: an earlier decision, for coordinator `origin` */
    /* three sets of ranks: CONTRIB: its members, the failures all of them
     * acknowledged, the members that committed to `origin`; DECIDE: the
     * non-contributors; then the bitmap (CONTRIB: its members' AND;
     * DECIDE: the AND) */
    uint8_t ranks[];
} agree_msg_t;

#define MAX_AND_WORDS 1024

static inline size_t ulfm_agree_msg_len(uint32_t size, uint32_t and_words)
{
    return sizeof(agree_msg_t) + 3 * MPID_FT_SET_BYTES(size) + and_words * sizeof(uint32_t);
}

/* NULL when buf (len bytes) is a well-formed agreement message; else what
 * is wrong. Whether its communicator and call match one of the receiver's
 * is the agreement's to say. */
static inline const char *ulfm_agree_msg_check(const void *buf, size_t len)
{
    const agree_msg_t *m = buf;
    MPID_FT_msg_head_t head;
    if (len < sizeof(*m))
        return "too short";
    if (m->size == 0 || m->size > MPID_FT_MAX_PROCS)
        return "of a communicator of no possible size";
    if (m->and_words > MAX_AND_WORDS || len != ulfm_agree_msg_len(m->size, m->and_words))
        return "of the wrong length";
    const char *wrong = MPID_FT_msg_check_head(&ulfm_agree_kinds, buf, len, sizeof(*m),
                                               (int) m->size, -1, &head);
    if (wrong)
        return wrong;
    if (m->origin < 0 || (uint32_t) m->origin >= m->size)
        return "naming no member";
    return NULL;
}

#endif /* ULFM_AGREE_MSG_H_INCLUDED */
