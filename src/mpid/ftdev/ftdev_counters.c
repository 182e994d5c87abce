/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * Protocol counters: what each fault-tolerance protocol costs in messages,
 * bytes and rounds. The counts are exact at any process count, so how a
 * protocol grows can be checked on a machine far smaller than the job.
 * Counting happens only on the control channel and the heartbeat, never
 * on the path of an application's messages.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_counters.h"
#include <stdarg.h>

static const char *const proto_name[MPIDI_FTDEV_NUM_PROTOS] = {
    "notify", "finalize", "rebuild", "recovery", "commit", "agree", "revoke", "echo",
    "heartbeat"
};

/* Written by one thread each: the heartbeat thread owns the heartbeat's
 * entries, the thread that drives progress all others; read by anyone. */
static unsigned long long msgs_sent[MPIDI_FTDEV_NUM_PROTOS];
static unsigned long long msgs_received[MPIDI_FTDEV_NUM_PROTOS];
static unsigned long long bytes_sent[MPIDI_FTDEV_NUM_PROTOS];
static unsigned long long bytes_received[MPIDI_FTDEV_NUM_PROTOS];
static unsigned long long rounds[MPIDI_FTDEV_NUM_PROTOS];
/* messages dropped on receipt: forged, replayed or malformed */
static unsigned long long rejected[MPIDI_FTDEV_NUM_REJECTS];

MPIDI_FTDEV_proto_t MPIDI_FTDEV_proto_of(int type, int about)
{
    switch (type) {
        case MPIDI_FTDEV_CTRL_FAILED:
            return MPIDI_FTDEV_PROTO_NOTIFY;
        case MPIDI_FTDEV_CTRL_FINALIZING:
            return MPIDI_FTDEV_PROTO_FINALIZE;
        case MPIDI_FTDEV_CTRL_REBUILD:
            return MPIDI_FTDEV_PROTO_REBUILD;
        case MPIDI_FTDEV_CTRL_CHANNEL:
            if (about == MPID_FT_CHANNEL_COMMIT)
                return MPIDI_FTDEV_PROTO_COMMIT;
            if (about == MPID_FT_CHANNEL_ULFM_AGREE)
                return MPIDI_FTDEV_PROTO_AGREE;
            return MPIDI_FTDEV_PROTO_RECOVERY;
        case MPIDI_FTDEV_CTRL_REVOKE:
            return MPIDI_FTDEV_PROTO_REVOKE;
        default:
            return MPIDI_FTDEV_PROTO_ECHO;
    }
}

static void add(unsigned long long *counter, unsigned long long n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

uint32_t MPIDI_FTDEV_count_sent(MPIDI_FTDEV_proto_t proto, size_t bytes)
{
    add(&msgs_sent[proto], 1);
    add(&bytes_sent[proto], bytes);
    return (uint32_t) __atomic_load_n(&rounds[proto], __ATOMIC_RELAXED) + 1;
}

void MPIDI_FTDEV_count_received(MPIDI_FTDEV_proto_t proto, size_t bytes, uint32_t hops)
{
    add(&msgs_received[proto], 1);
    add(&bytes_received[proto], bytes);
    if (hops > __atomic_load_n(&rounds[proto], __ATOMIC_RELAXED))
        __atomic_store_n(&rounds[proto], hops, __ATOMIC_RELAXED);
}

#define REPORTED_FREELY 10

static struct {
    MPL_time_t last;            /* of the last line after the free ones */
    unsigned long long unreported;      /* since that line */
    char more[64];
} report[MPIDI_FTDEV_NUM_REJECTS];

/* NULL when this rejection is not to be reported, else the end of its
 * line: "" or how many went unreported since the last line */
static const char *report_due(MPIDI_FTDEV_reject_t where)
{
    if (rejected[where] <= REPORTED_FREELY)
        return "";
    MPL_time_t now;
    double since = 1.0;
    MPL_wtime(&now);
    if (rejected[where] > REPORTED_FREELY + 1)
        MPL_wtime_diff(&report[where].last, &now, &since);
    if (since < 1.0) {
        report[where].unreported++;
        return NULL;
    }
    report[where].last = now;
    snprintf(report[where].more, sizeof(report[where].more),
             " (%llu more dropped unreported since the last line)", report[where].unreported);
    report[where].unreported = 0;
    return report[where].more;
}

void MPIDI_FTDEV_reject(MPIDI_FTDEV_reject_t where, const char *fmt, ...)
{
    char what[256];
    va_list args;

    add(&rejected[where], 1);
    const char *more = report_due(where);
    if (more == NULL)
        return;
    va_start(args, fmt);
    vsnprintf(what, sizeof(what), fmt, args);
    va_end(args);
    if (where == MPIDI_FTDEV_REJECT_HEARTBEAT)
        MPID_FT_TRACE("heartbeat: dropped %s%s", what, more);
    else if (where == MPIDI_FTDEV_REJECT_CONNECTION)
        MPID_FT_TRACE("connection guard: dropped %s%s", what, more);
    else
        fprintf(stderr, "FT-MPICH: rank %d: dropped %s%s\n", MPIDI_FTDEV_global.world.my_pid,
                what, more);
}

static void register_one(MPIR_T_pvar_class_t varclass, const char *name, void *counters,
                         const char *what)
{
    char desc[512];
    int len = snprintf(desc, sizeof(desc), "%s, per protocol:", what);
    for (int i = 0; i < MPIDI_FTDEV_NUM_PROTOS && len < (int) sizeof(desc); i++)
        len += snprintf(desc + len, sizeof(desc) - len, " %s", proto_name[i]);
    MPIR_T_PVAR_REGISTER_impl(varclass, MPI_UNSIGNED_LONG_LONG, name, counters,
                              MPIDI_FTDEV_NUM_PROTOS, MPI_T_ENUM_NULL, MPI_T_VERBOSITY_USER_DETAIL,
                              MPI_T_BIND_NO_OBJECT,
                              MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS, NULL, NULL,
                              "FTDEV", desc);
}

void MPIDI_FTDEV_counters_register(void)
{
    static int registered;
    if (registered)
        return;
    registered = 1;
    register_one(MPI_T_PVAR_CLASS_COUNTER, "ftdev_msgs_sent", msgs_sent,
                 "fault-tolerance messages this process sent");
    register_one(MPI_T_PVAR_CLASS_COUNTER, "ftdev_msgs_received", msgs_received,
                 "fault-tolerance messages this process received");
    register_one(MPI_T_PVAR_CLASS_COUNTER, "ftdev_bytes_sent", bytes_sent,
                 "bytes of fault-tolerance messages this process sent");
    register_one(MPI_T_PVAR_CLASS_COUNTER, "ftdev_bytes_received", bytes_received,
                 "bytes of fault-tolerance messages this process received");
    register_one(MPI_T_PVAR_CLASS_LEVEL, "ftdev_rounds", rounds,
                 "longest chain of a protocol's messages that ended at this process");
    MPIR_T_PVAR_REGISTER_impl(MPI_T_PVAR_CLASS_COUNTER, MPI_UNSIGNED_LONG_LONG,
                              "ftdev_msgs_rejected", rejected, MPIDI_FTDEV_NUM_REJECTS,
                              MPI_T_ENUM_NULL, MPI_T_VERBOSITY_USER_BASIC, MPI_T_BIND_NO_OBJECT,
                              MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS, NULL, NULL,
                              "FTDEV", "messages this process dropped on receipt (a wrong MAC, "
                              "a replay, a malformed field), per source: heartbeat datagrams, "
                              "control messages, connections to UCX's TCP listeners that "
                              "never spoke");
}

void MPIDI_FTDEV_counters_trace(void)
{
    for (int i = 0; i < MPIDI_FTDEV_NUM_PROTOS; i++)
        if (msgs_sent[i] || msgs_received[i])
            MPID_FT_TRACE("counters %s: sent %llu msgs %llu B, received %llu msgs %llu B, "
                          "rounds %llu", proto_name[i], msgs_sent[i], bytes_sent[i],
                          msgs_received[i], bytes_received[i], rounds[i]);
    if (rejected[MPIDI_FTDEV_REJECT_HEARTBEAT] || rejected[MPIDI_FTDEV_REJECT_CONTROL] ||
        rejected[MPIDI_FTDEV_REJECT_CONNECTION])
        MPID_FT_TRACE("counters rejected: %llu heartbeat datagrams, %llu control messages, "
                      "%llu silent connections", rejected[MPIDI_FTDEV_REJECT_HEARTBEAT],
                      rejected[MPIDI_FTDEV_REJECT_CONTROL],
                      rejected[MPIDI_FTDEV_REJECT_CONNECTION]);
}
