/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The ATOMIC collectives' commit messages (ftmpi_commit*.c) as they
 * travel, and their check on receipt: pure, so that the fuzz target
 * test/fuzz/fuzz_channels.c calls it as the commit does.
 */

#ifndef FTMPI_COMMIT_MSG_H_INCLUDED
#define FTMPI_COMMIT_MSG_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mpid_ft.h"

enum { UNDECIDED = 0, COMMIT, ABORT };
enum { VOTE = 1, QUERY, STATE, SWEEP, REPORT };

/* One message of the protocol. VOTE: the sender's AND of the votes it
 * knows, in dissemination round `round`; QUERY: what do you know;
 * STATE: the answer, value = decision; when undecided, round 1 says the
 * sender decides by itself (a blocking collective of its drives it).
 * SWEEP (round = the sweep's root) carries the process ids of the
 * receiver's subtree, itself first; REPORT (round = the root) answers it,
 * value = the decision or UNDECIDED for the whole subtree. A COMMIT of a
 * shared output in STATE or REPORT carries the output. */
static const char *const ftmpi_commit_kind_names[] = {
    "vote", "query", "state", "sweep", "report"
};

static const MPID_FT_msg_kinds_t ftmpi_commit_kinds = {
    .protocol = "commit",.seq_name = "seq",.kind_names = ftmpi_commit_kind_names,.num_kinds = 5
};

typedef struct {
    /* kind: VOTE .. REPORT; seq: the commit's number in its instance;
     * sender: its process id */
    MPID_FT_msg_head_t head;
    uint32_t context_id;
    uint32_t epoch;
    uint32_t instance;
    uint32_t round;
    int32_t value;
} commit_msg_t;

#define MAX_ROUNDS 30

/* NULL when buf (len bytes) is a commit message process `from` of a world
 * of n processes may send to process `me`; else what is wrong. */
static inline const char *ftmpi_commit_msg_check(const void *buf, size_t len, int from, int n,
                                                 int me)
{
    commit_msg_t m;

    if (from < 0 || from >= n)
        return "from no process of this world";
    const char *wrong = MPID_FT_msg_check_head(&ftmpi_commit_kinds, buf, len, sizeof(m), n, from,
                                               &m.head);
    if (wrong)
        return wrong;
    memcpy(&m, buf, sizeof(m));
    const char *result = (const char *) buf + sizeof(m);
    size_t result_len = len - sizeof(m);
    if (m.head.kind == SWEEP ? (result_len == 0 || result_len % sizeof(int) != 0 ||
                           result_len / sizeof(int) > (size_t) n) :
        result_len > 0 && ((m.head.kind != STATE && m.head.kind != REPORT) || m.value != COMMIT))
        return "wrong length";
    if ((m.head.kind == SWEEP || m.head.kind == REPORT) && m.round >= (uint32_t) n)
        return "bad root";
    if (m.head.kind == REPORT && m.value != UNDECIDED && m.value != COMMIT && m.value != ABORT)
        return "bad report";
    if (m.head.kind == VOTE && (m.round >= MAX_ROUNDS || (m.value != 0 && m.value != 1)))
        return "bad vote";
    if (m.head.kind == STATE && ((m.value != UNDECIDED && m.value != COMMIT && m.value != ABORT) ||
                            m.round > 1))
        return "bad state";
    if (m.head.kind == SWEEP) {
        for (size_t i = 0; i < result_len / sizeof(int); i++) {
            int pid;
            memcpy(&pid, result + i * sizeof(int), sizeof(pid));
            if (pid < 0 || pid >= n || (i == 0 && pid != me))
                return "a sweep of processes that do not exist here";
        }
    }
    return NULL;
}

#endif /* FTMPI_COMMIT_MSG_H_INCLUDED */
