/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The control channel: ftdev's own messages between processes (failure
 * notices, finalizing, REBUILD, the layers' channels, revocations, the
 * receive check), each type handed to the owner that registered it.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_control.h"
#include "ftdev_counters.h"
#include "ftdev_key.h"
#include "ftdev_launcher.h"
#include "ftdev_test_point.h"

#define NUM_TYPES MPIDI_FTDEV_CTRL_NUM_TYPES

static struct {
    MPIDI_FTDEV_ctrl_handler_t handler;
    MPIDI_FTDEV_ctrl_sent_t sent;
} owner[NUM_TYPES];

void MPIDI_FTDEV_ctrl_register(int type, MPIDI_FTDEV_ctrl_handler_t handler,
                               MPIDI_FTDEV_ctrl_sent_t sent)
{
    owner[type].handler = handler;
    owner[type].sent = sent;
}

static void tell_sent(int to, const MPIDI_FTDEV_ctrl_msg_t * msg, size_t len)
{
    if (owner[msg->type].sent)
        owner[msg->type].sent(to, msg->pid, len ? msg + 1 : NULL, len);
}

/* Per process id (this world's, then other worlds'): the messages sent to
 * it, counted, and the window of those it sent here, so that a copy sent
 * again (by anyone who captured it) is dropped. */
static uint64_t *num_sent_to;
static MPIDI_FTDEV_replay_window_t *windows;

int MPIDI_FTDEV_ctrl_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIDI_FTDEV_global.world.pid_capacity;
    num_sent_to = MPL_calloc(n, sizeof(*num_sent_to), MPL_MEM_OTHER);
    windows = MPL_calloc(n, sizeof(*windows), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(num_sent_to == NULL || windows == NULL, mpi_errno, MPI_ERR_OTHER,
                        "**nomem");
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPIDI_FTDEV_ctrl_finalize();
    goto fn_exit;
}

void MPIDI_FTDEV_ctrl_finalize(void)
{
    MPL_free(num_sent_to);
    MPL_free(windows);
    num_sent_to = NULL;
    windows = NULL;
}

/* The epoch this process joined the world in: a replacement takes no
 * message sent before it, which was meant for the process it replaces. */
static uint32_t birth_epoch(void)
{
    return MPIDI_FTDEV_global.rebuild.is_replacement ? MPIDI_FTDEV_rejoin_key.epoch : 0;
}

typedef struct {
    int to;
    size_t len;
    MPIDI_FTDEV_ctrl_head_t head;       /* the active message's header: the MAC */
    MPIDI_FTDEV_ctrl_msg_t msg;         /* and the payload */
} outgoing_t;

/* Per channel of the layers above, and per type, the messages UCX has
 * not let go of. */
static int channel_in_flight[MPID_FT_NUM_CHANNELS];
static int type_in_flight[NUM_TYPES];

static int is_channel_message(const MPIDI_FTDEV_ctrl_msg_t * msg)
{
    return msg->type == MPIDI_FTDEV_CTRL_CHANNEL && msg->pid >= 0 &&
        msg->pid < MPID_FT_NUM_CHANNELS;
}

static int wait_until_sent(const int *in_flight)
{
    int mpi_errno = MPI_SUCCESS;
    while (*in_flight > 0 && mpi_errno == MPI_SUCCESS)
        mpi_errno = MPID_Progress_test(NULL);
    return mpi_errno;
}

int MPID_FT_flush(MPID_FT_channel_t channel)
{
    return wait_until_sent(&channel_in_flight[channel]);
}

int MPIDI_FTDEV_ctrl_flush(int type)
{
    return wait_until_sent(&type_in_flight[type]);
}

static void ctrl_sent_cb(void *request, ucs_status_t status, void *user_data)
{
    /* a control message lost on the way is recovered from by the
     * protocols' own resends; the trace says that it happened */
    outgoing_t *out = user_data;
    type_in_flight[out->msg.type]--;
    if (is_channel_message(&out->msg))
        channel_in_flight[out->msg.pid]--;
    if (status != UCS_OK)
        MPID_FT_TRACE("control message (type %d) not delivered: %s", out->msg.type,
                      ucs_status_string(status));
    else
        tell_sent(out->to, &out->msg, out->len);
    MPL_free(out);
}

/* Most control messages are small and UCX lets go of them at once: they
 * are made on the stack and tried without a request first; only one UCX
 * must keep (or a large one) goes to the heap until ctrl_sent_cb. */
#define IMMEDIATE_PAYLOAD_BYTES 256

/* now: done at once or not at all (UCS_ERR_NO_RESOURCE), out may be on
 * the stack; else out is held until ctrl_sent_cb where UCX returns a
 * request */
static ucs_status_ptr_t am_send(ucp_ep_h ep, outgoing_t * out, int now)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | (now ? UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL :
                                                   UCP_OP_ATTR_FIELD_CALLBACK |
                                                   UCP_OP_ATTR_FIELD_USER_DATA),
        .cb.send = ctrl_sent_cb,
        .user_data = out,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    return ucp_am_send_nbx(ep, MPIDI_FTDEV_AM_CONTROL, &out->head, sizeof(out->head),
                           &out->msg, sizeof(out->msg) + out->len, &param);
}

int MPIDI_FTDEV_send_ctrl(int to, int type, int about, const void *payload, size_t len,
                          ucs_status_ptr_t * request)
{
    int mpi_errno = MPI_SUCCESS;
    union {
        outgoing_t out;
        char bytes[sizeof(outgoing_t) + IMMEDIATE_PAYLOAD_BYTES];
    } on_stack;
    outgoing_t *out = len <= IMMEDIATE_PAYLOAD_BYTES ? &on_stack.out :
        MPL_malloc(sizeof(*out) + len, MPL_MEM_OTHER);
    ucs_status_ptr_t r;

    MPIR_ERR_CHKANDJUMP(out == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    out->to = to;
    out->len = len;
    out->msg.type = type;
    out->msg.pid = about;
    out->msg.from = MPIDI_FTDEV_global.world.my_tag_pid;
    if (len)
        memcpy(&out->msg + 1, payload, len);
    /* a process whose failure closed its endpoint (a protocol may still
     * name it: a rebuild's coordinator that died after deciding) is out of
     * reach, as one whose connection the transport refuses */
    ucp_ep_h ep = MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(to)).ep;
    if (ep == NULL) {
        r = UCS_STATUS_PTR(UCS_ERR_UNREACHABLE);
    } else {
        out->msg.hops = MPIDI_FTDEV_count_sent(MPIDI_FTDEV_proto_of(type, about),
                                               sizeof(out->msg) + len);
        out->msg.to = MPIDI_FTDEV_AV(MPIDI_FTDEV_peer_av(to)).tag_pid;
        out->msg.from_birth = birth_epoch();
        /* a replacement's HELLO leaves before it moved to its epoch */
        out->msg.epoch = MPL_MAX(MPIDI_FTDEV_global.epoch.current, out->msg.from_birth);
        out->msg.reserved = 0;
        out->msg.counter = ++num_sent_to[to];
        MPIDI_FTDEV_ctrl_seal(&out->head, &out->msg, sizeof(out->msg) + len,
                              MPIDI_FTDEV_keys.control);
        r = am_send(ep, out, out == &on_stack.out);
        if (r == UCS_STATUS_PTR(UCS_ERR_NO_RESOURCE) && out == &on_stack.out) {
            out = MPL_malloc(sizeof(*out) + len, MPL_MEM_OTHER);
            if (out == NULL) {
                out = &on_stack.out;
                r = UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
            } else {
                memcpy(out, &on_stack.out, sizeof(*out) + len);
                r = am_send(ep, out, 0);
            }
        }
        if (!UCS_PTR_IS_ERR(r))
            MPIDI_FTDEV_test_replay_sent(to, &out->head, sizeof(out->head) + sizeof(out->msg) + len);
    }
    if (r == NULL) {
        tell_sent(to, &out->msg, len);
    } else if (UCS_PTR_IS_ERR(r)) {
        MPID_FT_TRACE("control message (type %d) to %d lost: %s", out->msg.type, to,
                      ucs_status_string(UCS_PTR_STATUS(r)));
        r = NULL;
    }
    /* UCX keeps `out` until ctrl_sent_cb only when it returned a request */
    if (r == NULL) {
        if (out != &on_stack.out)
            MPL_free(out);
    } else {
        type_in_flight[type]++;
        if (is_channel_message(&out->msg))
            channel_in_flight[out->msg.pid]++;
    }
    if (request)
        *request = r;
    else if (r)
        ucp_request_release(r);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (request)
        *request = NULL;
    goto fn_exit;
}

/* Each process that learns a piece of news first passes it on to its
 * neighbours in a binomial graph of n members, those at distance 1, 2, 4,
 * ... on either side: everyone hears it after about log2(n) steps, with
 * 2 log2(n) messages per process instead of n, and the survivors' graph
 * stays connected unless a process loses half its neighbours. `me` and
 * the neighbours are ranks of comm (process ids with comm NULL). */
void MPIDI_FTDEV_tell_neighbours(int n, int me, MPIR_Comm * comm, int type, int about)
{
    for (int d = 1; d < n; d *= 2) {
        int side[2] = { (me + d) % n, (me - d % n + n) % n };
        for (int i = 0; i < (side[0] == side[1] ? 1 : 2); i++) {
            int pid = comm ? MPID_FT_comm_pid(comm, side[i]) : side[i];
            if (pid != MPIDI_FTDEV_global.world.my_pid &&
                MPIDI_FTDEV_global.peers.state[pid] == MPIDI_FTDEV_PEER_ALIVE)
                MPIDI_FTDEV_send_ctrl(pid, type, about, NULL, 0, NULL);
        }
    }
}

/* What arrives from the network is checked: a forged or malformed control
 * message is counted (ftdev_msgs_rejected), reported on one line and
 * dropped, since there is no caller to return an error to. */
static ucs_status_t bad_message(int from, const char *what)
{
    if (from < 0)
        MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_CONTROL, "a %s", what);
    else
        MPIDI_FTDEV_reject(MPIDI_FTDEV_REJECT_CONTROL, "a %s from rank %d", what, from);
    return UCS_OK;
}

ucs_status_t MPIDI_FTDEV_ctrl_recv_cb(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length,
                                      const ucp_am_recv_param_t * param)
{
    MPIDI_FTDEV_ctrl_msg_t msg;
    void *payload = NULL;
    const char *wrong;

    if (MPIDI_FTDEV_TEST_DEAF())
        return UCS_OK;
    wrong = MPIDI_FTDEV_ctrl_open(header, header_length, data, length, MPIDI_FTDEV_keys.control,
                                  &msg);
    if (wrong)
        return bad_message(-1, wrong);
    /* the sender names itself by its tag pid */
    int from = MPIDI_FTDEV_pid_of_tag_pid(msg.from);
    if (from < 0)
        return bad_message(msg.from, "control message from no process known here");
    msg.from = from;
    wrong = MPIDI_FTDEV_ctrl_check(msg.type, msg.pid, length - sizeof(msg),
                                   MPIDI_FTDEV_global.world.num_pids,
                                   from < MPIDI_FTDEV_global.world.num_pids);
    if (wrong == NULL && owner[msg.type].handler == NULL)
        wrong = "control message of a type nobody handles";
    if (wrong == NULL)
        wrong = MPIDI_FTDEV_ctrl_fresh(&msg, MPIDI_FTDEV_global.world.my_tag_pid, birth_epoch(),
                                       from < MPIDI_FTDEV_global.world.num_pids, &windows[from]);
    if (wrong)
        return bad_message(msg.from, wrong);
    MPIDI_FTDEV_count_received(MPIDI_FTDEV_proto_of(msg.type, msg.pid), length, msg.hops);
    /* UCX gives no alignment: the owner gets an aligned copy where the
     * payload is not */
    size_t len = length - sizeof(msg);
    const char *at = (const char *) data + sizeof(msg);
    if (len && (uintptr_t) at % sizeof(uint64_t) == 0) {
        owner[msg.type].handler(msg.from, msg.pid, at, len);
        return UCS_OK;
    }
    if (len) {
        payload = MPL_malloc(len, MPL_MEM_OTHER);
        if (payload == NULL)
            return bad_message(msg.from, "control message (out of memory for its copy)");
        memcpy(payload, at, len);
    }
    owner[msg.type].handler(msg.from, msg.pid, payload, len);
    MPL_free(payload);
    return UCS_OK;
}
