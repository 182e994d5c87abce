/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The ATOMIC collectives' commit messages (ftmpi_commit.c) as they
 * travel, and their check on receipt: pure, so that the fuzz target
 * test/fuzz/fuzz_channels.c calls it as the commit does.
 */

#ifndef FTMPI_COMMIT_MSG_H_INCLUDED
#define FTMPI_COMMIT_MSG_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
typedef struct {
    uint32_t type;
    uint32_t context_id;
    uint32_t epoch;
    uint32_t instance;
    uint32_t seq;
    uint32_t round;
    int32_t value;
} commit_msg_t;

/* Rounds of a communicator of up to 2^MAX_ROUNDS members. */
#define MAX_ROUNDS 30

/* NULL when buf (len bytes) is a commit message process `from` of a world
 * of n processes may send to process `me`; else what is wrong. */
static inline const char *ftmpi_commit_msg_check(const void *buf, size_t len, int from, int n,
                                                 int me)
{
    commit_msg_t m;

    if (from < 0 || from >= n)
        return "from no process of this world";
    if (len < sizeof(m))
        return "too short";
    memcpy(&m, buf, sizeof(m));
    const char *result = (const char *) buf + sizeof(m);
    size_t result_len = len - sizeof(m);
    if (m.type < VOTE || m.type > REPORT)
        return "unknown type";
    if (m.type == SWEEP ? (result_len == 0 || result_len % sizeof(int) != 0 ||
                           result_len / sizeof(int) > (size_t) n) :
        result_len > 0 && ((m.type != STATE && m.type != REPORT) || m.value != COMMIT))
        return "wrong length";
    if ((m.type == SWEEP || m.type == REPORT) && m.round >= (uint32_t) n)
        return "bad root";
    if (m.type == REPORT && m.value != UNDECIDED && m.value != COMMIT && m.value != ABORT)
        return "bad report";
    if (m.type == VOTE && (m.round >= MAX_ROUNDS || (m.value != 0 && m.value != 1)))
        return "bad vote";
    if (m.type == STATE && ((m.value != UNDECIDED && m.value != COMMIT && m.value != ABORT) ||
                            m.round > 1))
        return "bad state";
    if (m.type == SWEEP) {
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
