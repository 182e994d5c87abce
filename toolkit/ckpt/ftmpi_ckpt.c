/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/*
 * libftmpi_ckpt's API: the FTMPI_Ckpt_* functions of ftmpi_ckpt.h (rules
 * there), with the protocol of take and restore.
 *
 * Each process keeps NUM_SLOTS slots, one checkpoint in each. A take
 * fills the spare slot, sends and receives, waits in a barrier, and only
 * then makes the slot the last checkpoint (the one before stays). Because
 * a take commits only after a barrier that every process entered, the
 * processes' last checkpoints differ by one generation at most, and every
 * survivor still has the older of the two: restore goes back to the
 * oldest last checkpoint among the survivors.
 */

#include "ftmpi_ckpt_impl.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- slots ----------------------------------------------------------------- */

static int set_ring(slot_t * s, const int *ring, int n, int pos)
{
    if (n > s->ring_cap) {
        int *p = realloc(s->ring, n * sizeof(int));
        if (p == NULL)
            return FTMPI_CKPT_ERR_NOMEM;
        s->ring = p;
        s->ring_cap = n;
    }
    memcpy(s->ring, ring, n * sizeof(int));
    s->ring_size = n;
    s->pos = pos;
    return FTMPI_CKPT_SUCCESS;
}

static int spare_slot(FTMPI_Ckpt ckpt)
{
    for (int i = 0; i < NUM_SLOTS; i++)
        if (i != ckpt->last && i != ckpt->before)
            return i;
    return 0;
}

static int slot_of_gen(FTMPI_Ckpt ckpt, long gen)
{
    for (int i = 0; i < NUM_SLOTS; i++)
        if ((i == ckpt->last || i == ckpt->before) && ckpt->slot[i].gen == gen)
            return i;
    return -1;
}

static void free_adopted(FTMPI_Ckpt ckpt)
{
    for (int i = 0; i < ckpt->num_adopted; i++)
        free(ckpt->adopted[i].data);
    free(ckpt->adopted);
    free(ckpt->adopted_rank);
    ckpt->adopted = NULL;
    ckpt->adopted_rank = NULL;
    ckpt->num_adopted = 0;
}

/* ---- the object and its buffers -------------------------------------------- */

int FTMPI_Ckpt_create(FTMPI_Ckpt * ckpt)
{
    if (ckpt == NULL)
        return FTMPI_CKPT_ERR_ARG;
    *ckpt = calloc(1, sizeof(**ckpt));
    if (*ckpt == NULL)
        return FTMPI_CKPT_ERR_NOMEM;
    for (int i = 0; i < NUM_SLOTS; i++)
        (*ckpt)->slot[i].gen = -1;
    (*ckpt)->last = (*ckpt)->before = -1;
    (*ckpt)->trace_fd = -2;
    return FTMPI_CKPT_SUCCESS;
}

int FTMPI_Ckpt_free(FTMPI_Ckpt * ckpt)
{
    if (ckpt == NULL || *ckpt == NULL)
        return FTMPI_CKPT_ERR_ARG;
    for (int i = 0; i < NUM_SLOTS; i++) {
        free((*ckpt)->slot[i].ring);
        free((*ckpt)->slot[i].own.data);
        free((*ckpt)->slot[i].buddy.data);
    }
    free_adopted(*ckpt);
    free((*ckpt)->bufs);
    free((*ckpt)->sizes);
    if ((*ckpt)->trace_fd >= 0)
        close((*ckpt)->trace_fd);
    free(*ckpt);
    *ckpt = NULL;
    return FTMPI_CKPT_SUCCESS;
}

int FTMPI_Ckpt_register(FTMPI_Ckpt ckpt, void *buf, size_t bytes)
{
    if (ckpt == NULL || (buf == NULL && bytes > 0))
        return FTMPI_CKPT_ERR_ARG;
    if (ckpt->nbufs == ckpt->bufs_cap) {
        int cap = ckpt->bufs_cap ? 2 * ckpt->bufs_cap : 8;
        void **b = realloc(ckpt->bufs, cap * sizeof(void *));
        if (b == NULL)
            return FTMPI_CKPT_ERR_NOMEM;
        ckpt->bufs = b;
        size_t *s = realloc(ckpt->sizes, cap * sizeof(size_t));
        if (s == NULL)
            return FTMPI_CKPT_ERR_NOMEM;
        ckpt->sizes = s;
        ckpt->bufs_cap = cap;
    }
    ckpt->bufs[ckpt->nbufs] = buf;
    ckpt->sizes[ckpt->nbufs] = bytes;
    ckpt->nbufs++;
    return FTMPI_CKPT_SUCCESS;
}

int FTMPI_Ckpt_unregister_all(FTMPI_Ckpt ckpt)
{
    if (ckpt == NULL)
        return FTMPI_CKPT_ERR_ARG;
    ckpt->nbufs = 0;
    return FTMPI_CKPT_SUCCESS;
}

/* ---- take ------------------------------------------------------------------ */

/* Who takes part (a blank of a BLANK world leaves its entry as it was)
 * and the generation this checkpoint gets: one past the newest. `all`
 * has room for 2 longs a rank, `ring` for `size` ranks. */
static int join_ring(FTMPI_Ckpt ckpt, MPI_Comm comm, int rank, int size, long *all, int *ring,
                     int *n, int *pos, long *gen)
{
    long mine[2];
    int rc;

    *n = *pos = 0;
    *gen = -1;
    for (int i = 0; i < 2 * size; i++)
        all[i] = -1;
    mine[0] = rank;
    mine[1] = ckpt->last >= 0 ? ckpt->slot[ckpt->last].gen : -1;
    if ((rc = MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, comm)) != MPI_SUCCESS)
        return rc;
    for (int r = 0; r < size; r++) {
        if (all[2 * r] != r)
            continue;
        if (r == rank)
            *pos = *n;
        ring[(*n)++] = r;
        if (all[2 * r + 1] > *gen)
            *gen = all[2 * r + 1];
    }
    (*gen)++;
    return MPI_SUCCESS;
}

int FTMPI_Ckpt_take(FTMPI_Ckpt ckpt, MPI_Comm comm, long step)
{
    int rank, size, rc, n, pos, s;
    long *all = NULL, gen;
    const char *wrong;
    int *ring = NULL;
    slot_t *spare;

    if (ckpt == NULL)
        return FTMPI_CKPT_ERR_ARG;
    if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    all = malloc(2 * (size_t) size * sizeof(long));
    ring = malloc((size_t) size * sizeof(int));
    if (all == NULL || ring == NULL) {
        rc = FTMPI_CKPT_ERR_NOMEM;
        goto fn_exit;
    }
    ckpt->tried = 1;
    s = spare_slot(ckpt);
    spare = &ckpt->slot[s];
    if ((rc = ckpt_pack(ckpt, &spare->own)) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;
    if ((rc = join_ring(ckpt, comm, rank, size, all, ring, &n, &pos, &gen)) != MPI_SUCCESS)
        goto fn_exit;

    rc = ckpt_exchange(&spare->own, ring[(pos + 1) % n], &spare->buddy,
                       ring[(pos + n - 1) % n], comm);
    if (rc != MPI_SUCCESS)
        goto fn_exit;
    /* everyone has its buddy's copy once everyone has entered this */
    if ((rc = MPI_Barrier(comm)) != MPI_SUCCESS)
        goto fn_exit;

    if ((rc = set_ring(spare, ring, n, pos)) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;
    /* a copy that is not what its header says is not kept: a restore that
     * needs it finds the state lost */
    if ((wrong = ckpt_blob_check(&spare->buddy)) != NULL)
        ckpt_trace(ckpt, "ckpt-refused from=%d (%s)", ring[(pos + n - 1) % n], wrong);
    spare->gen = gen;
    spare->step = step;
    spare->buddy_valid = wrong == NULL;
    ckpt->before = ckpt->last;
    ckpt->last = s;
    ckpt_trace(ckpt, "ckpt-take step=%ld bytes=%ld", step, (long) spare->own.len);

  fn_exit:
    free(all);
    free(ring);
    return rc;
}

/* ---- restore ----------------------------------------------------------------- */

/* What each process tells the others at a restore. Its generation is -1
 * when it never took a checkpoint (a replacement) and UNFINISHED when it
 * took part in a take that failed before any completed. */
enum { E_GEN_LAST, E_ID_LAST, E_BUDDY_LAST, E_GEN_BEFORE, E_ID_BEFORE, E_BUDDY_BEFORE, E_LEN };
#define ABSENT (-2)             /* a blank: no entry */
#define UNFINISHED (-3)

/* What a restore works out from the entries. Every process works out the
 * same, so that all of them act on one plan without more messages. */
typedef struct {
    int rank, size;
    long *all;                  /* E_LEN entries a rank of the communicator */
    long gen, step;             /* the checkpoint to go back to */
    int root;                   /* the first survivor that has it */
    int mine_slot;              /* its slot here; -1: none (a replacement) */
    int n;                      /* its ring: */
    int *ring;                  /* the members, by their ranks at the checkpoint */
    int *rank_of_pos;           /* each member's rank now; -1: dead */
    int *replacement;           /* the rank that replaces a dead member; -1: none */
    int my_pos;                 /* this process's place in the ring, as a survivor */
    int my_dead_pos;            /* the place it takes over, as a replacement */
} restore_plan_t;

/* entry's id and buddy flag in the checkpoint of generation gen; 0 if it
 * has none */
static int entry_at(const long *e, long gen, int *id, int *buddy)
{
    if (e[E_GEN_LAST] == gen) {
        *id = (int) e[E_ID_LAST];
        *buddy = (int) e[E_BUDDY_LAST];
        return 1;
    }
    if (e[E_GEN_BEFORE] == gen) {
        *id = (int) e[E_ID_BEFORE];
        *buddy = (int) e[E_BUDDY_BEFORE];
        return 1;
    }
    return 0;
}

/* Step 1: every process tells the others which checkpoints it holds. */
static int gather_entries(FTMPI_Ckpt ckpt, restore_plan_t * plan, MPI_Comm comm)
{
    long mine[E_LEN] = { ckpt->tried ? UNFINISHED : -1, -1, 0, -1, -1, 0 };

    plan->all = malloc((size_t) plan->size * E_LEN * sizeof(long));
    if (plan->all == NULL)
        return FTMPI_CKPT_ERR_NOMEM;
    if (ckpt->last >= 0) {
        slot_t *l = &ckpt->slot[ckpt->last];
        mine[E_GEN_LAST] = l->gen;
        mine[E_ID_LAST] = l->ring[l->pos];
        mine[E_BUDDY_LAST] = l->buddy_valid;
    }
    if (ckpt->before >= 0) {
        slot_t *b = &ckpt->slot[ckpt->before];
        mine[E_GEN_BEFORE] = b->gen;
        mine[E_ID_BEFORE] = b->ring[b->pos];
        mine[E_BUDDY_BEFORE] = b->buddy_valid;
    }
    for (int i = 0; i < plan->size * E_LEN; i++)
        plan->all[i] = ABSENT;
    return MPI_Allgather(mine, E_LEN, MPI_LONG, plan->all, E_LEN, MPI_LONG, comm);
}

/* Step 2: the checkpoint to go back to: the oldest last one among the
 * survivors (processes without one are replacements); none if a survivor
 * has none. */
static int choose_checkpoint(FTMPI_Ckpt ckpt, restore_plan_t * plan)
{
    long gen = -1;

    for (int r = 0; r < plan->size; r++) {
        long g = plan->all[r * E_LEN + E_GEN_LAST];
        if (g == UNFINISHED) {
            gen = -1;
            break;
        }
        if (g >= 0 && (gen < 0 || g < gen))
            gen = g;
    }
    if (gen < 0)
        return FTMPI_CKPT_ERR_NONE;
    plan->gen = gen;
    for (int r = 0; r < plan->size && plan->root < 0; r++) {
        int id, buddy;
        if (plan->all[r * E_LEN + E_GEN_LAST] >= 0 &&
            entry_at(plan->all + r * E_LEN, gen, &id, &buddy))
            plan->root = r;
    }
    plan->mine_slot = slot_of_gen(ckpt, gen);
    return FTMPI_CKPT_SUCCESS;
}

/* Step 3: its ring and step, from the first survivor that has it. */
static int share_ring(FTMPI_Ckpt ckpt, restore_plan_t * plan, MPI_Comm comm)
{
    long head[2];
    int rc, n;

    /* a ring of 0: the root does not have the checkpoint its entry names */
    if (plan->rank == plan->root) {
        head[0] = plan->mine_slot >= 0 ? ckpt->slot[plan->mine_slot].ring_size : 0;
        head[1] = plan->mine_slot >= 0 ? ckpt->slot[plan->mine_slot].step : 0;
    }
    if ((rc = MPI_Bcast(head, 2, MPI_LONG, plan->root, comm)) != MPI_SUCCESS)
        return rc;
    if (head[0] < 1 || head[0] > INT_MAX / (long) sizeof(int))
        return FTMPI_CKPT_ERR_CORRUPT;
    n = plan->n = (int) head[0];
    plan->step = head[1];
    plan->ring = malloc(n * sizeof(int));
    plan->rank_of_pos = malloc(n * sizeof(int));
    plan->replacement = malloc(n * sizeof(int));
    if (plan->ring == NULL || plan->rank_of_pos == NULL || plan->replacement == NULL)
        return FTMPI_CKPT_ERR_NOMEM;
    if (plan->rank == plan->root)
        memcpy(plan->ring, ckpt->slot[plan->mine_slot].ring, n * sizeof(int));
    if ((rc = MPI_Bcast(plan->ring, n, MPI_INT, plan->root, comm)) != MPI_SUCCESS)
        return rc;
    /* ranks in increasing order, as a take made it (every process checks
     * the same ring, so all agree) */
    for (int q = 0; q < n; q++)
        if (plan->ring[q] < 0 || (q > 0 && plan->ring[q] <= plan->ring[q - 1]))
            return FTMPI_CKPT_ERR_CORRUPT;
    return MPI_SUCCESS;
}

/* Step 4: where each member of the ring is now, and who replaces the
 * dead. */
static int place_members(restore_plan_t * plan)
{
    const int n = plan->n;

    for (int q = 0; q < n; q++)
        plan->rank_of_pos[q] = plan->replacement[q] = -1;
    for (int r = 0; r < plan->size; r++) {
        const long *e = plan->all + r * E_LEN;
        int id, buddy;
        if (e[E_GEN_LAST] == ABSENT)
            continue;
        if (e[E_GEN_LAST] == -1) {
            /* a replacement takes the place of the dead member of its rank */
            int q;
            for (q = 0; q < n && plan->ring[q] != r; q++);
            if (q == n)
                return FTMPI_CKPT_ERR_STRANGER;
            plan->replacement[q] = r;
            if (r == plan->rank)
                plan->my_dead_pos = q;
            continue;
        }
        if (!entry_at(e, plan->gen, &id, &buddy))
            return FTMPI_CKPT_ERR_LOST; /* cannot happen while takes commit after a barrier */
        for (int q = 0; q < n; q++)
            if (plan->ring[q] == id) {
                plan->rank_of_pos[q] = r;
                if (r == plan->rank)
                    plan->my_pos = q;
            }
    }
    return FTMPI_CKPT_SUCCESS;
}

/* Step 5: whether every dead member's buddy survived with its copy. */
static int check_copies(const restore_plan_t * plan)
{
    const int n = plan->n;

    for (int q = 0; q < n; q++) {
        int holder = plan->rank_of_pos[(q + 1) % n], id, buddy;
        if (plan->replacement[q] >= 0 && plan->rank_of_pos[q] >= 0)
            return FTMPI_CKPT_ERR_STRANGER;     /* its rank's member is alive */
        if (plan->rank_of_pos[q] >= 0)
            continue;
        if (holder < 0 || !entry_at(plan->all + holder * E_LEN, plan->gen, &id, &buddy) || !buddy)
            return FTMPI_CKPT_ERR_LOST;
    }
    return FTMPI_CKPT_SUCCESS;
}

/* Step 6: a replacement gets the dead member's state from the member's
 * buddy, and its predecessor's state (it is that one's buddy now), into
 * the spare slot. Blocking transfers in the order of the ring cannot
 * deadlock: only replacements receive, each from its two neighbours in
 * turn, and the lowest place still waiting can always go on. */
static int send_to_replacements(FTMPI_Ckpt ckpt, const restore_plan_t * plan, slot_t * spare,
                                MPI_Comm comm)
{
    const int n = plan->n, rank = plan->rank;
    int rc = MPI_SUCCESS;

    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        int x = plan->replacement[q], holder = plan->rank_of_pos[(q + 1) % n];
        int pred = plan->rank_of_pos[(q + n - 1) % n];
        if (x < 0)
            continue;
        if (rank == holder)
            rc = ckpt_send_blob(&ckpt->slot[plan->mine_slot].buddy, x, TAG_STATE_SIZE, TAG_STATE,
                                comm);
        if (rc == MPI_SUCCESS && rank == pred && n > 1)
            rc = ckpt_send_blob(&ckpt->slot[plan->mine_slot].own, x, TAG_BUDDY_SIZE, TAG_BUDDY,
                                comm);
        if (rank == x) {
            rc = ckpt_recv_blob(&spare->own, holder, TAG_STATE_SIZE, TAG_STATE, comm);
            if (rc == MPI_SUCCESS)
                rc = n > 1 ? ckpt_recv_blob(&spare->buddy, pred, TAG_BUDDY_SIZE, TAG_BUDDY, comm) :
                    ckpt_reserve(&spare->buddy, 0);
        }
    }
    return rc;
}

/* Step 7: whether the registered buffers fit the state to restore. Every
 * process returns the same verdict (an error anywhere is the minimum). */
static int agree_on_fit(FTMPI_Ckpt ckpt, const restore_plan_t * plan, const slot_t * spare,
                        MPI_Comm comm)
{
    int local, verdict, rc;
    const char *wrong = NULL;

    /* a replacement's states came from other processes */
    if (plan->my_dead_pos >= 0) {
        const int q = plan->my_dead_pos, n = plan->n;
        int from = plan->rank_of_pos[(q + 1) % n];
        if ((wrong = ckpt_blob_check(&spare->own)) == NULL && n > 1 &&
            (wrong = ckpt_blob_check(&spare->buddy)) != NULL)
            from = plan->rank_of_pos[(q + n - 1) % n];
        if (wrong)
            ckpt_trace(ckpt, "ckpt-refused from=%d (%s)", from, wrong);
    }
    if (wrong)
        local = FTMPI_CKPT_ERR_CORRUPT;
    else if (plan->my_dead_pos >= 0)
        local = ckpt_fits(ckpt, &spare->own) ? FTMPI_CKPT_SUCCESS : FTMPI_CKPT_ERR_SIZE;
    else
        local = ckpt_fits(ckpt, &ckpt->slot[plan->mine_slot].own) ? FTMPI_CKPT_SUCCESS :
            FTMPI_CKPT_ERR_SIZE;
    if ((rc = MPI_Allreduce(&local, &verdict, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS)
        return rc;
    return verdict;
}

/* A copy of a dead predecessor's state, for FTMPI_Ckpt_adopted_buffer. */
static int adopt(FTMPI_Ckpt ckpt, const blob_t * state, int old_rank)
{
    blob_t *a = realloc(ckpt->adopted, (ckpt->num_adopted + 1) * sizeof(blob_t));
    int *ar = a ? realloc(ckpt->adopted_rank, (ckpt->num_adopted + 1) * sizeof(int)) : NULL;
    int rc;

    if (a)
        ckpt->adopted = a;
    if (ar)
        ckpt->adopted_rank = ar;
    if (a == NULL || ar == NULL)
        return FTMPI_CKPT_ERR_NOMEM;
    memset(&a[ckpt->num_adopted], 0, sizeof(blob_t));
    if ((rc = ckpt_copy_blob(&a[ckpt->num_adopted], state)))
        return rc;
    ar[ckpt->num_adopted++] = old_rank;
    return FTMPI_CKPT_SUCCESS;
}

/* Step 8 at a replacement: the state received in the spare slot `s`
 * becomes its only checkpoint. */
static int commit_replacement(FTMPI_Ckpt ckpt, const restore_plan_t * plan, int s)
{
    slot_t *spare = &ckpt->slot[s];
    int rc;

    if ((rc = set_ring(spare, plan->ring, plan->n, plan->my_dead_pos)) != FTMPI_CKPT_SUCCESS)
        return rc;
    spare->gen = plan->gen;
    spare->step = plan->step;
    spare->buddy_valid = plan->n > 1;
    ckpt->last = s;
    ckpt->before = -1;
    ckpt_unpack(ckpt, &spare->own);
    return FTMPI_CKPT_SUCCESS;
}

/* Step 8 at a survivor: newer checkpoints are dropped, and the process
 * adopts the states of its dead predecessors that nobody replaced. */
static int commit_survivor(FTMPI_Ckpt ckpt, const restore_plan_t * plan)
{
    const int n = plan->n, mine = plan->mine_slot;
    int older = ckpt->before >= 0 && ckpt->slot[ckpt->before].gen < plan->gen ? ckpt->before : -1;
    int rc;

    if (ckpt->last >= 0 && ckpt->last != mine)
        ckpt->slot[ckpt->last].gen = -1;
    ckpt->last = mine;
    ckpt->before = older;
    ckpt_unpack(ckpt, &ckpt->slot[mine].own);
    for (int q = 0; q < n; q++) {
        if (plan->rank_of_pos[q] >= 0 || plan->replacement[q] >= 0 || (q + 1) % n != plan->my_pos)
            continue;
        if ((rc = adopt(ckpt, &ckpt->slot[mine].buddy, plan->ring[q])) != FTMPI_CKPT_SUCCESS)
            return rc;
    }
    return FTMPI_CKPT_SUCCESS;
}

/* Step 8: the checkpoint restored becomes the last one. The library's
 * state changes only here, after the last communication has succeeded,
 * so that an error handler may longjmp out of a restore. */
static int commit(FTMPI_Ckpt ckpt, const restore_plan_t * plan, int s)
{
    free_adopted(ckpt);
    if (plan->my_dead_pos >= 0)
        return commit_replacement(ckpt, plan, s);
    return commit_survivor(ckpt, plan);
}

int FTMPI_Ckpt_restore(FTMPI_Ckpt ckpt, MPI_Comm comm, long *step)
{
    restore_plan_t plan = { .gen = -1, .root = -1, .mine_slot = -1, .my_pos = -1,
        .my_dead_pos = -1
    };
    int rc, s;

    if (ckpt == NULL || step == NULL)
        return FTMPI_CKPT_ERR_ARG;
    s = spare_slot(ckpt);
    if ((rc = MPI_Comm_rank(comm, &plan.rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, &plan.size)) != MPI_SUCCESS)
        return rc;
    ckpt_trace(ckpt, "ckpt-restore-begin");

    if ((rc = gather_entries(ckpt, &plan, comm)) != MPI_SUCCESS ||
        (rc = choose_checkpoint(ckpt, &plan)) != FTMPI_CKPT_SUCCESS ||
        (rc = share_ring(ckpt, &plan, comm)) != MPI_SUCCESS ||
        (rc = place_members(&plan)) != FTMPI_CKPT_SUCCESS ||
        (rc = check_copies(&plan)) != FTMPI_CKPT_SUCCESS ||
        (rc = send_to_replacements(ckpt, &plan, &ckpt->slot[s], comm)) != MPI_SUCCESS ||
        (rc = agree_on_fit(ckpt, &plan, &ckpt->slot[s], comm)) != FTMPI_CKPT_SUCCESS ||
        (rc = commit(ckpt, &plan, s)) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;
    *step = plan.step;
    ckpt_trace(ckpt, "ckpt-restore-end step=%ld adopted=%d", plan.step, ckpt->num_adopted);

  fn_exit:
    free(plan.all);
    free(plan.ring);
    free(plan.rank_of_pos);
    free(plan.replacement);
    return rc;
}

const char *FTMPI_Ckpt_error_string(int code)
{
    switch (code) {
        case FTMPI_CKPT_SUCCESS:
            return "success";
        case FTMPI_CKPT_ERR_LOST:
            return "a dead process's checkpoint is lost: its buddy died too";
        case FTMPI_CKPT_ERR_NONE:
            return "no checkpoint was completed yet";
        case FTMPI_CKPT_ERR_SIZE:
            return "the registered buffers differ in number or size from the checkpoint's";
        case FTMPI_CKPT_ERR_ARG:
            return "invalid argument";
        case FTMPI_CKPT_ERR_NOMEM:
            return "out of memory";
        case FTMPI_CKPT_ERR_STRANGER:
            return "a process without checkpoints does not replace a dead member";
        case FTMPI_CKPT_ERR_CORRUPT:
            return "a checkpoint received from another process does not match its own header";
        default:
            return code > 0 ? "an MPI error (see MPI_Error_string)" : "unknown error";
    }
}
