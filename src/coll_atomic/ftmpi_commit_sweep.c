/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The sweep of the ATOMIC commit's termination protocol (ftmpi_commit.c
 * describes the protocol): each sweep through this process, the REPORTs
 * of its children, and the progress hook that moves sweeps on, so that a
 * member that already returned from the collective, or never entered it,
 * answers too.
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include "mpid_ft_tree.h"
#include "ftmpi_commit_impl.h"

/* One sweep of one commit through this process: the subtree it covers
 * (process ids, itself first) and the children it waits for, each with
 * the part of the subtree under it. */
typedef struct sweep {
    struct sweep *next;
    record_t *r;
    int root;                   /* process id of the member that started it */
    int parent;                 /* process id it reports to; -1 at the root */
    int *pids;
    int npending;
    struct pending {
        int pid, first, end;
    } *pending;
    int nswept;
    int *swept;                 /* the children it sent SWEEP to: they hear the decision */
    int reported;               /* its subtree's UNDECIDED went to the parent */
} sweep_t;

static sweep_t *sweeps;
static int sweep_hook = -1;
static unsigned sweep_failures_seen;

/* The answer to a SWEEP, or a decision passed on: the decision, and with
 * a COMMIT of a shared output, the output. */
static void send_report(int to, record_t * r, int root)
{
    int with_output = r->decision == COMMIT && r->has_result;
    MPII_FTMPI_commit_send(to, REPORT, r, root, r->decision, r->result,
                           with_output ? r->result_len : 0);
}

/* A SWEEP for root, carrying the n process ids of the receiver's subtree. */
static void send_sweep(int to, record_t * r, int root, const int *pids, int n)
{
    size_t len = sizeof(commit_msg_t) + n * sizeof(int);
    commit_msg_t *m = MPL_malloc(len, MPL_MEM_COLL);
    if (m == NULL) {
        MPII_FTMPI_commit_keep_error(r, MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                             __func__, __LINE__, MPI_ERR_OTHER,
                                                             "**nomem", 0));
        return;
    }
    *m = (commit_msg_t) {
        .head = {.kind = SWEEP,.seq = r->seq,.sender = MPIR_Process.rank },
        .context_id = r->context_id,.epoch = r->epoch,.instance = r->instance,
        .round = root,.value = UNDECIDED
    };
    memcpy(m + 1, pids, n * sizeof(int));
    MPII_FTMPI_commit_keep_error(r, MPID_FT_send(to, MPID_FT_CHANNEL_COMMIT, m, len));
    MPL_free(m);
}

static void sweep_range(sweep_t * s, int first, int end);

/* Sweeps the subtrees of the children of the member at pids[first], whose
 * subtree pids[first, end) is a tree of its own (mpid_ft_tree.h) rooted
 * there. */
static void sweep_children(sweep_t * s, int first, int end)
{
    int n = end - first;
    for (int c = MPID_FT_tree_first_child(0, n); c >= 0; c = MPID_FT_tree_next_child(0, c, n))
        sweep_range(s, first + c, first + MPID_FT_tree_subtree_end(c, n));
}

/* Sweeps the subtree pids[first, end) of s: its top member, or, when
 * that one is known to have failed, its children's subtrees. */
static void sweep_range(sweep_t * s, int first, int end)
{
    int pid = s->pids[first];
    if (MPID_FT_proc_failed(pid)) {
        sweep_children(s, first, end);
        return;
    }
    send_sweep(pid, s->r, s->root, s->pids + first, end - first);
    s->pending[s->npending++] = (struct pending) {
    pid, first, end};
    s->swept[s->nswept++] = pid;
}

static int sweep_progress(int *made_progress);

static void free_sweep(sweep_t * s)
{
    if (s == NULL)
        return;
    MPL_free(s->pids);
    MPL_free(s->swept);
    MPL_free(s->pending);
    MPL_free(s);
}

/* Starts a sweep of the n process ids at pids (the first is this
 * process; read with memcpy: a message's payload may be unaligned) for
 * root, to be reported to parent (-1: this process is the root). */
static sweep_t *start_sweep(record_t * r, int root, int parent, const void *pids, int n)
{
    sweep_t *s = MPL_calloc(1, sizeof(*s), MPL_MEM_COLL);
    if (s) {
        s->pids = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
        s->swept = MPL_malloc(n * sizeof(int), MPL_MEM_COLL);
        s->pending = MPL_malloc(n * sizeof(struct pending), MPL_MEM_COLL);
    }
    if (s == NULL || !s->pids || !s->swept || !s->pending ||
        (sweep_hook < 0 && MPIR_Progress_hook_register(sweep_progress, &sweep_hook))) {
        free_sweep(s);
        MPII_FTMPI_commit_keep_error(r, MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                             __func__, __LINE__, MPI_ERR_OTHER,
                                                             "**nomem", 0));
        return NULL;
    }
    s->r = r;
    s->root = root;
    s->parent = parent;
    memcpy(s->pids, pids, n * sizeof(int));
    r->sweeps++;
    s->next = sweeps;
    sweeps = s;
    MPID_FT_TRACE("commit %x/%u/%u/%u: sweep of %d members for %d", r->context_id, r->epoch,
                  r->instance, r->seq, n, root);
    sweep_children(s, 0, n);
    MPIR_Progress_hook_activate(sweep_hook);
    return s;
}

static sweep_t *find_sweep(record_t * r, int root)
{
    for (sweep_t *s = sweeps; s; s = s->next)
        if (s->r == r && s->root == root)
            return s;
    return NULL;
}

int MPII_FTMPI_commit_sweep(record_t * r, const int *pids, int n)
{
    return find_sweep(r, MPIR_Process.rank) != NULL ||
        start_sweep(r, MPIR_Process.rank, -1, pids, n) != NULL;
}

/* A child's REPORT: a decision decides (the hook passes it on); an
 * UNDECIDED one completes the child's part of the subtree. */
static void sweep_reported(sweep_t * s, int from, int value)
{
    if (value != UNDECIDED) {
        if (s->r->decision == UNDECIDED)
            s->r->decision = value;
        return;
    }
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i].pid == from) {
            s->pending[i] = s->pending[--s->npending];
            return;
        }
}

/* Advances one sweep; 1 when it is over here. */
static int sweep_step(sweep_t * s, int look_at_failures)
{
    record_t *r = s->r;

    if (r->decision != UNDECIDED) {
        /* up, and down to every child: all of them learn it */
        if (s->parent >= 0)
            send_report(s->parent, r, s->root);
        for (int i = 0; i < s->nswept; i++)
            if (!MPID_FT_proc_failed(s->swept[i]))
                send_report(s->swept[i], r, s->root);
        return 1;
    }
    if (s->parent >= 0 && MPID_FT_proc_failed(s->root))
        return 1;       /* moot: its root asks nobody any more */
    if (look_at_failures)
        for (int i = 0; i < s->npending; i++)
            if (MPID_FT_proc_failed(s->pending[i].pid)) {
                struct pending dead = s->pending[i];
                s->pending[i--] = s->pending[--s->npending];
                sweep_children(s, dead.first, dead.end);
            }
    if (s->npending > 0)
        return 0;
    if (s->parent < 0) {
        /* every live member answered undecided, sealed: none can commit */
        r->decision = ABORT;
        return 1;
    }
    if (!s->reported) {
        send_report(s->parent, r, s->root);
        s->reported = 1;
    }
    return 0;
}

static int sweep_progress(int *made_progress)
{
    static int running;
    unsigned failures = MPID_FT_failure_count();
    int look = failures != sweep_failures_seen;

    if (running)
        return MPI_SUCCESS;
    running = 1;
    sweep_failures_seen = failures;
    for (sweep_t ** p = &sweeps; *p;) {
        sweep_t *s = *p;
        if (!sweep_step(s, look)) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        s->r->sweeps--;
        free_sweep(s);
        *made_progress = 1;
    }
    if (sweeps == NULL)
        MPIR_Progress_hook_deactivate(sweep_hook);
    running = 0;
    return MPI_SUCCESS;
}

/* A SWEEP from `from`: a decided member answers at once; any other is
 * sealed and sweeps its subtree (again to a new parent, for the same
 * root: the old one failed). */
void MPII_FTMPI_commit_swept(record_t * r, int from, int root, const void *pids, int n)
{
    if (r->decision != UNDECIDED) {
        send_report(from, r, root);
        return;
    }
    r->sealed = 1;
    sweep_t *s = find_sweep(r, root);
    if (s) {
        s->parent = from;
        if (s->reported)
            send_report(from, r, root);
        return;
    }
    start_sweep(r, root, from, pids, n);
}

/* A REPORT goes to its sweep; one for a sweep that is over here (a
 * decision passed on after it) decides this member when it needs one. */
void MPII_FTMPI_commit_reported(record_t * r, int from, int root, int value)
{
    sweep_t *s = find_sweep(r, root);
    if (s)
        sweep_reported(s, from, value);
    else if (r->decision == UNDECIDED && value != UNDECIDED && (r->terminating || r->sealed))
        r->decision = value;
}
