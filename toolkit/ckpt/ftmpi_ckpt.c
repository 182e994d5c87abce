/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH checkpoint helper: diskless checkpoints in a buddy's memory
 * (API and rules in ftmpi_ckpt.h).
 *
 * Each process keeps three slots. A slot holds one checkpoint: a
 * generation number, the application's step, the ring of processes that
 * took it (their communicator ranks at the time, which name them in the
 * checkpoint), this process's packed state and the packed state of its
 * predecessor in the ring. A take fills the spare slot, sends and
 * receives, waits in a barrier, and only then makes the slot the last
 * checkpoint (the one before stays). Because a take commits only after a
 * barrier that every process entered, the processes' last checkpoints
 * differ by one generation at most, and every survivor still has the
 * older of the two: restore goes back to the oldest last checkpoint
 * among the survivors.
 */

#include "ftmpi_ckpt.h"
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#define TAG_SIZE        (FTMPI_CKPT_TAG_FIRST + 0)
#define TAG_DATA        (FTMPI_CKPT_TAG_FIRST + 1)
#define TAG_STATE_SIZE  (FTMPI_CKPT_TAG_FIRST + 2)
#define TAG_STATE       (FTMPI_CKPT_TAG_FIRST + 3)
#define TAG_BUDDY_SIZE  (FTMPI_CKPT_TAG_FIRST + 4)
#define TAG_BUDDY       (FTMPI_CKPT_TAG_FIRST + 5)
#define NUM_SLOTS  3
/* messages are cut into pieces that an int count of bytes can describe */
#define CHUNK      ((size_t) 1 << 30)

typedef struct {
    char *data;
    size_t len, cap;
} blob_t;

typedef struct {
    long gen;                   /* -1: empty */
    long step;
    int *ring;                  /* the processes that took it, by communicator rank then */
    int ring_size, ring_cap;
    int pos;                    /* this process's place in ring */
    blob_t own;                 /* this process's state */
    blob_t buddy;               /* the state of ring[pos - 1] */
    int buddy_valid;
} slot_t;

struct FTMPI_Ckpt_s {
    void **bufs;
    size_t *sizes;
    int nbufs, bufs_cap;
    slot_t slot[NUM_SLOTS];
    int last, before;           /* slots of the last checkpoint and the one before; -1: none */
    int tried;                  /* a take was started here */
    blob_t *adopted;
    int *adopted_rank;
    int num_adopted;
    int trace_fd;               /* -2: not looked up yet; -1: no trace */
};

/* ---- trace ------------------------------------------------------------- */

/* The file FT-MPICH traces this process into (MPI_Init created it, new and
 * private): PREFIX.HOST.PID with the
 * PREFIX of MPIR_CVAR_FTMPI_TRACE_FILE. MPICH 4.0.2's MPI_T cannot read a
 * string control variable (MPI_T_cvar_read copies the bytes of the
 * variable, a char pointer, not the string it points to), so the prefix
 * comes from the environment, as MPI_Init takes it: the MPICH_ and
 * MPIR_PARAM_ spellings count too, MPIR_CVAR_ before MPIR_PARAM_ before
 * MPICH_. */
static int open_trace(void)
{
    static const char *const names[] = { "MPIR_CVAR_FTMPI_TRACE_FILE",
        "MPIR_PARAM_FTMPI_TRACE_FILE", "MPICH_FTMPI_TRACE_FILE"
    };
    const char *prefix = NULL;
    char path[4096], host[256];
    struct stat st;
    int fd;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && prefix == NULL; i++)
        prefix = getenv(names[i]);
    if (prefix == NULL || !*prefix)
        return -1;
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = 0;
    snprintf(path, sizeof(path), "%s.%s.%ld", prefix, host, (long) getpid());
    /* the file FT-MPICH created for this process, and only that: never
     * through a link, never one of another user's or with other names */
    fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                    st.st_nlink != 1 || (st.st_mode & 077))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void trace(FTMPI_Ckpt ckpt, const char *fmt, ...) __attribute__ ((format(printf, 2, 3)));
static void trace(FTMPI_Ckpt ckpt, const char *fmt, ...)
{
    struct timespec now;
    char line[256];
    va_list ap;
    int len;

    if (ckpt->trace_fd == -2)
        ckpt->trace_fd = open_trace();
    if (ckpt->trace_fd < 0)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    len = snprintf(line, sizeof(line), "%ld.%09ld ", (long) now.tv_sec, now.tv_nsec);
    va_start(ap, fmt);
    len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
    va_end(ap);
    if (len < (int) sizeof(line) - 1) {
        line[len++] = '\n';
        /* one write per line: lines of the library and of MPI interleave whole */
        if (write(ckpt->trace_fd, line, len) < 0)
            ckpt->trace_fd = -1;
    }
}

/* ---- memory ------------------------------------------------------------ */

static int reserve(blob_t * b, size_t len)
{
    if (len > b->cap) {
        char *p = realloc(b->data, len);
        if (p == NULL)
            return FTMPI_CKPT_ERR_NOMEM;
        b->data = p;
        b->cap = len;
    }
    b->len = len;
    return FTMPI_CKPT_SUCCESS;
}

static int copy_blob(blob_t * to, const blob_t * from)
{
    int rc = reserve(to, from->len);
    if (rc == FTMPI_CKPT_SUCCESS && from->len)
        memcpy(to->data, from->data, from->len);
    return rc;
}

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

/* ---- packed states: nbufs, sizes, then the bytes of each buffer -------- */

static int pack(FTMPI_Ckpt ckpt, blob_t * b)
{
    size_t len = (1 + (size_t) ckpt->nbufs) * sizeof(uint64_t), off;
    uint64_t *head;
    int rc;

    for (int i = 0; i < ckpt->nbufs; i++)
        len += ckpt->sizes[i];
    if ((rc = reserve(b, len)) != FTMPI_CKPT_SUCCESS)
        return rc;
    head = (uint64_t *) b->data;
    head[0] = (uint64_t) ckpt->nbufs;
    off = (1 + (size_t) ckpt->nbufs) * sizeof(uint64_t);
    for (int i = 0; i < ckpt->nbufs; i++) {
        head[1 + i] = ckpt->sizes[i];
        memcpy(b->data + off, ckpt->bufs[i], ckpt->sizes[i]);
        off += ckpt->sizes[i];
    }
    return FTMPI_CKPT_SUCCESS;
}

/* Buffer `i` of a packed state; FTMPI_CKPT_ERR_ARG past the end. */
static int packed_buffer(const blob_t * b, int i, char **buf, size_t * bytes)
{
    const uint64_t *head = (const uint64_t *) b->data;
    size_t off;

    if (b->len < sizeof(uint64_t) || i < 0 || (uint64_t) i >= head[0])
        return FTMPI_CKPT_ERR_ARG;
    off = (1 + head[0]) * sizeof(uint64_t);
    for (int k = 0; k < i; k++)
        off += head[1 + k];
    *buf = b->data + off;
    *bytes = head[1 + i];
    return FTMPI_CKPT_SUCCESS;
}

/* Whether the registered buffers have the layout of a packed state. */
static int fits(FTMPI_Ckpt ckpt, const blob_t * b)
{
    const uint64_t *head = (const uint64_t *) b->data;

    if (b->len < sizeof(uint64_t) || head[0] != (uint64_t) ckpt->nbufs)
        return 0;
    for (int i = 0; i < ckpt->nbufs; i++)
        if (head[1 + i] != ckpt->sizes[i])
            return 0;
    return 1;
}

static void unpack(FTMPI_Ckpt ckpt, const blob_t * b)
{
    for (int i = 0; i < ckpt->nbufs; i++) {
        char *buf;
        size_t bytes;
        packed_buffer(b, i, &buf, &bytes);
        memcpy(ckpt->bufs[i], buf, bytes);
    }
}

/* ---- transfers ---------------------------------------------------------- */

/* Sends `out` to `dest` while receiving `in` from `src` (sizes first). */
static int exchange(const blob_t * out, int dest, blob_t * in, int src, MPI_Comm comm)
{
    uint64_t out_len = out->len, in_len;
    size_t off_out = 0, off_in = 0;
    int rc;

    rc = MPI_Sendrecv(&out_len, 1, MPI_UINT64_T, dest, TAG_SIZE, &in_len, 1, MPI_UINT64_T, src,
                      TAG_SIZE, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = reserve(in, in_len)) != FTMPI_CKPT_SUCCESS)
        return rc;
    do {
        size_t n_out = out->len - off_out < CHUNK ? out->len - off_out : CHUNK;
        size_t n_in = in->len - off_in < CHUNK ? in->len - off_in : CHUNK;
        rc = MPI_Sendrecv(out->data + off_out, (int) n_out, MPI_BYTE, dest, TAG_DATA,
                          in->data + off_in, (int) n_in, MPI_BYTE, src, TAG_DATA, comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        off_out += n_out;
        off_in += n_in;
    } while (off_out < out->len || off_in < in->len);
    return MPI_SUCCESS;
}

/* A whole packed state to or from one process: its size, then its bytes. */
static int send_blob(const blob_t * b, int dest, int tag_size, int tag_data, MPI_Comm comm)
{
    uint64_t len = b->len;
    size_t off = 0;
    int rc = MPI_Send(&len, 1, MPI_UINT64_T, dest, tag_size, comm);

    while (rc == MPI_SUCCESS && off < b->len) {
        size_t n = b->len - off < CHUNK ? b->len - off : CHUNK;
        rc = MPI_Send(b->data + off, (int) n, MPI_BYTE, dest, tag_data, comm);
        off += n;
    }
    return rc;
}

static int recv_blob(blob_t * b, int src, int tag_size, int tag_data, MPI_Comm comm)
{
    uint64_t len;
    size_t off = 0;
    int rc = MPI_Recv(&len, 1, MPI_UINT64_T, src, tag_size, comm, MPI_STATUS_IGNORE);

    if (rc == MPI_SUCCESS)
        rc = reserve(b, len);
    while (rc == MPI_SUCCESS && off < b->len) {
        size_t n = b->len - off < CHUNK ? b->len - off : CHUNK;
        rc = MPI_Recv(b->data + off, (int) n, MPI_BYTE, src, tag_data, comm, MPI_STATUS_IGNORE);
        off += n;
    }
    return rc;
}

/* ---- API ------------------------------------------------------------------- */

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

int FTMPI_Ckpt_take(FTMPI_Ckpt ckpt, MPI_Comm comm, long step)
{
    int rank, size, rc, n = 0, pos = 0, s;
    long mine[2], *all = NULL, gen = -1;
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
    if ((rc = pack(ckpt, &spare->own)) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;

    /* who takes part (a blank of a BLANK world leaves its entry as it
     * was) and the generation this checkpoint gets: one past the newest */
    for (int i = 0; i < 2 * size; i++)
        all[i] = -1;
    mine[0] = rank;
    mine[1] = ckpt->last >= 0 ? ckpt->slot[ckpt->last].gen : -1;
    if ((rc = MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, comm)) != MPI_SUCCESS)
        goto fn_exit;
    for (int r = 0; r < size; r++) {
        if (all[2 * r] != r)
            continue;
        if (r == rank)
            pos = n;
        ring[n++] = r;
        if (all[2 * r + 1] > gen)
            gen = all[2 * r + 1];
    }
    gen++;

    rc = exchange(&spare->own, ring[(pos + 1) % n], &spare->buddy, ring[(pos + n - 1) % n], comm);
    if (rc != MPI_SUCCESS)
        goto fn_exit;
    /* everyone has its buddy's copy once everyone has entered this */
    if ((rc = MPI_Barrier(comm)) != MPI_SUCCESS)
        goto fn_exit;

    if ((rc = set_ring(spare, ring, n, pos)) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;
    spare->gen = gen;
    spare->step = step;
    spare->buddy_valid = 1;
    ckpt->before = ckpt->last;
    ckpt->last = s;
    trace(ckpt, "ckpt-take step=%ld bytes=%ld", step, (long) spare->own.len);

  fn_exit:
    free(all);
    free(ring);
    return rc;
}

/* What each process tells the others at a restore. Its generation is -1
 * when it never took a checkpoint (a replacement) and UNFINISHED when it
 * took part in a take that failed before any completed. */
enum { E_GEN_LAST, E_ID_LAST, E_BUDDY_LAST, E_GEN_BEFORE, E_ID_BEFORE, E_BUDDY_BEFORE, E_LEN };
#define ABSENT (-2)             /* a blank: no entry */
#define UNFINISHED (-3)

static int slot_of_gen(FTMPI_Ckpt ckpt, long gen)
{
    for (int i = 0; i < NUM_SLOTS; i++)
        if ((i == ckpt->last || i == ckpt->before) && ckpt->slot[i].gen == gen)
            return i;
    return -1;
}

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

int FTMPI_Ckpt_restore(FTMPI_Ckpt ckpt, MPI_Comm comm, long *step)
{
    int rank, size, rc, local = FTMPI_CKPT_SUCCESS, verdict, root = -1, mine_slot = -1;
    long *all = NULL, gen = -1, head[2];
    int *ring = NULL, *rank_of_pos = NULL, *replacement = NULL, n = 0, my_pos = -1;
    int my_dead_pos = -1, s;
    slot_t *spare;

    if (ckpt == NULL || step == NULL)
        return FTMPI_CKPT_ERR_ARG;
    s = spare_slot(ckpt);
    spare = &ckpt->slot[s];
    if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    trace(ckpt, "ckpt-restore-begin");
    all = malloc((size_t) size * E_LEN * sizeof(long));
    if (all == NULL)
        return FTMPI_CKPT_ERR_NOMEM;

    long mine[E_LEN] = { ckpt->tried ? UNFINISHED : -1, -1, 0, -1, -1, 0 };
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
    for (int i = 0; i < size * E_LEN; i++)
        all[i] = ABSENT;
    if ((rc = MPI_Allgather(mine, E_LEN, MPI_LONG, all, E_LEN, MPI_LONG, comm)) != MPI_SUCCESS)
        goto fn_exit;

    /* the checkpoint to go back to: the oldest last one among the
     * survivors (processes without one are replacements); none if a
     * survivor has none */
    for (int r = 0; r < size; r++) {
        long g = all[r * E_LEN + E_GEN_LAST];
        if (g == UNFINISHED) {
            gen = -1;
            break;
        }
        if (g >= 0 && (gen < 0 || g < gen))
            gen = g;
    }
    if (gen < 0) {
        rc = FTMPI_CKPT_ERR_NONE;
        goto fn_exit;
    }
    for (int r = 0; r < size && root < 0; r++) {
        int id, buddy;
        if (all[r * E_LEN + E_GEN_LAST] >= 0 && entry_at(all + r * E_LEN, gen, &id, &buddy))
            root = r;
    }
    mine_slot = slot_of_gen(ckpt, gen);

    /* its ring, from the first survivor that has it */
    if (rank == root) {
        head[0] = ckpt->slot[mine_slot].ring_size;
        head[1] = ckpt->slot[mine_slot].step;
    }
    if ((rc = MPI_Bcast(head, 2, MPI_LONG, root, comm)) != MPI_SUCCESS)
        goto fn_exit;
    n = (int) head[0];
    ring = malloc(n * sizeof(int));
    rank_of_pos = malloc(n * sizeof(int));
    replacement = malloc(n * sizeof(int));
    if (ring == NULL || rank_of_pos == NULL || replacement == NULL) {
        rc = FTMPI_CKPT_ERR_NOMEM;
        goto fn_exit;
    }
    if (rank == root)
        memcpy(ring, ckpt->slot[mine_slot].ring, n * sizeof(int));
    if ((rc = MPI_Bcast(ring, n, MPI_INT, root, comm)) != MPI_SUCCESS)
        goto fn_exit;

    /* Every process works out the same plan from what all have said:
     * where each member of the ring is now, who replaces the dead, and
     * whether every dead member's buddy survived with its copy. */
    for (int q = 0; q < n; q++)
        rank_of_pos[q] = replacement[q] = -1;
    for (int r = 0; r < size; r++) {
        const long *e = all + r * E_LEN;
        int id, buddy;
        if (e[E_GEN_LAST] == ABSENT)
            continue;
        if (e[E_GEN_LAST] == -1) {
            /* a replacement takes the place of the dead member of its rank */
            int q;
            for (q = 0; q < n && ring[q] != r; q++);
            if (q == n) {
                rc = FTMPI_CKPT_ERR_STRANGER;
                goto fn_exit;
            }
            replacement[q] = r;
            if (r == rank)
                my_dead_pos = q;
            continue;
        }
        if (!entry_at(e, gen, &id, &buddy)) {
            rc = FTMPI_CKPT_ERR_LOST;   /* cannot happen while takes commit after a barrier */
            goto fn_exit;
        }
        for (int q = 0; q < n; q++)
            if (ring[q] == id) {
                rank_of_pos[q] = r;
                if (r == rank)
                    my_pos = q;
            }
    }
    for (int q = 0; q < n; q++) {
        int holder = rank_of_pos[(q + 1) % n], id, buddy;
        if (replacement[q] >= 0 && rank_of_pos[q] >= 0) {
            rc = FTMPI_CKPT_ERR_STRANGER;       /* its rank's member is alive */
            goto fn_exit;
        }
        if (rank_of_pos[q] >= 0)
            continue;
        if (holder < 0 || !entry_at(all + holder * E_LEN, gen, &id, &buddy) || !buddy) {
            rc = FTMPI_CKPT_ERR_LOST;
            goto fn_exit;
        }
    }

    /* A replacement gets the dead member's state from the member's buddy,
     * and its predecessor's state (it is that one's buddy now). Blocking
     * transfers in the order of the ring cannot deadlock: only
     * replacements receive, each from its two neighbours in turn, and the
     * lowest place still waiting can always go on. */
    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        int x = replacement[q], holder = rank_of_pos[(q + 1) % n];
        int pred = rank_of_pos[(q + n - 1) % n];
        if (x < 0)
            continue;
        if (rank == holder)
            rc = send_blob(&ckpt->slot[mine_slot].buddy, x, TAG_STATE_SIZE, TAG_STATE, comm);
        if (rc == MPI_SUCCESS && rank == pred && n > 1)
            rc = send_blob(&ckpt->slot[mine_slot].own, x, TAG_BUDDY_SIZE, TAG_BUDDY, comm);
        if (rank == x) {
            rc = recv_blob(&spare->own, holder, TAG_STATE_SIZE, TAG_STATE, comm);
            if (rc == MPI_SUCCESS)
                rc = n > 1 ? recv_blob(&spare->buddy, pred, TAG_BUDDY_SIZE, TAG_BUDDY, comm) :
                    reserve(&spare->buddy, 0);
        }
    }
    if (rc != MPI_SUCCESS)
        goto fn_exit;

    /* everyone returns the same verdict */
    if (my_dead_pos >= 0)
        local = fits(ckpt, &spare->own) ? FTMPI_CKPT_SUCCESS : FTMPI_CKPT_ERR_SIZE;
    else
        local = fits(ckpt, &ckpt->slot[mine_slot].own) ? FTMPI_CKPT_SUCCESS : FTMPI_CKPT_ERR_SIZE;
    if ((rc = MPI_Allreduce(&local, &verdict, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS)
        goto fn_exit;
    if ((rc = verdict) != FTMPI_CKPT_SUCCESS)
        goto fn_exit;

    /* Nothing can fail any more: the checkpoint restored becomes the last
     * one, newer ones are dropped, the buddies adopt the states of the
     * dead that nobody replaced. */
    free_adopted(ckpt);
    if (my_dead_pos >= 0) {
        if ((rc = set_ring(spare, ring, n, my_dead_pos)) != FTMPI_CKPT_SUCCESS)
            goto fn_exit;
        spare->gen = gen;
        spare->step = head[1];
        spare->buddy_valid = n > 1;
        ckpt->last = s;
        ckpt->before = -1;
        unpack(ckpt, &spare->own);
    } else {
        int older = ckpt->before >= 0 && ckpt->slot[ckpt->before].gen < gen ? ckpt->before : -1;
        if (ckpt->last >= 0 && ckpt->last != mine_slot)
            ckpt->slot[ckpt->last].gen = -1;
        ckpt->last = mine_slot;
        ckpt->before = older;
        unpack(ckpt, &ckpt->slot[mine_slot].own);
        for (int q = 0; q < n; q++) {
            if (rank_of_pos[q] >= 0 || replacement[q] >= 0 || (q + 1) % n != my_pos)
                continue;
            blob_t *a = realloc(ckpt->adopted, (ckpt->num_adopted + 1) * sizeof(blob_t));
            int *ar = a ? realloc(ckpt->adopted_rank, (ckpt->num_adopted + 1) * sizeof(int)) : NULL;
            if (a)
                ckpt->adopted = a;
            if (ar)
                ckpt->adopted_rank = ar;
            if (a == NULL || ar == NULL) {
                rc = FTMPI_CKPT_ERR_NOMEM;
                goto fn_exit;
            }
            memset(&a[ckpt->num_adopted], 0, sizeof(blob_t));
            if ((rc = copy_blob(&a[ckpt->num_adopted], &ckpt->slot[mine_slot].buddy)))
                goto fn_exit;
            ar[ckpt->num_adopted++] = ring[q];
        }
    }
    *step = head[1];
    trace(ckpt, "ckpt-restore-end step=%ld adopted=%d", head[1], ckpt->num_adopted);

  fn_exit:
    free(all);
    free(ring);
    free(rank_of_pos);
    free(replacement);
    return rc;
}

int FTMPI_Ckpt_adopted(FTMPI_Ckpt ckpt, int *count)
{
    if (ckpt == NULL || count == NULL)
        return FTMPI_CKPT_ERR_ARG;
    *count = ckpt->num_adopted;
    return FTMPI_CKPT_SUCCESS;
}

int FTMPI_Ckpt_adopted_buffer(FTMPI_Ckpt ckpt, int i, int b, void **buf, size_t * bytes,
                              int *old_rank)
{
    char *p;
    int rc;

    if (ckpt == NULL || i < 0 || i >= ckpt->num_adopted || buf == NULL || bytes == NULL)
        return FTMPI_CKPT_ERR_ARG;
    if ((rc = packed_buffer(&ckpt->adopted[i], b, &p, bytes)) != FTMPI_CKPT_SUCCESS)
        return rc;
    *buf = p;
    if (old_rank)
        *old_rank = ckpt->adopted_rank[i];
    return FTMPI_CKPT_SUCCESS;
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
        default:
            return code > 0 ? "an MPI error (see MPI_Error_string)" : "unknown error";
    }
}
