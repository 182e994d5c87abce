/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* The whole user tag range: MPI_TAG_UB is MPICH's stock 2^28 - 1 up to 512
 * processes, and messages at the top of the range match by source and tag
 * (specific, MPI_ANY_SOURCE, MPI_ANY_TAG) without leaking into the bits
 * that carry the sender; a tag above MPI_TAG_UB is refused with
 * MPI_ERR_TAG.
 *
 *   pt2pt_tag_range none
 *   FTMPI_RECOVERY_MODE=ulfm pt2pt_tag_range VICTIMS kill|exit
 *
 * With victims, they die together and the survivors run the same exchange
 * on the communicator MPIX_Comm_shrink gives them, whose ranks are no
 * longer the senders' process ids. */
#include "ftmpi_test.h"
#include <mpi-ext.h>

#define STOCK_TAG_UB ((1 << 28) - 1)
#define NTAGS 8

static int tags[NTAGS];

static void pick_tags(int tag_ub)
{
    int t[NTAGS] = { 0, 1, 32767, (1 << 21) - 1, 1 << 21, tag_ub / 2 + 1, tag_ub - 1, tag_ub };
    memcpy(tags, t, sizeof(tags));
}

static int payload(int src, int dst, int k)
{
    return src * 1000003 + dst * 1009 + k;
}

/* Every rank sends every other rank one message per tag, highest tag
 * first, all before any receive is posted (they arrive unexpected); the
 * receives then take them in another order and by three kinds of
 * matching. */
static void exchange(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request *sreq = malloc((size_t) n * NTAGS * sizeof(MPI_Request));
    int *sbuf = malloc((size_t) n * NTAGS * sizeof(int));
    int ns = 0;

    for (int k = NTAGS - 1; k >= 0; k--)
        for (int d = 0; d < n; d++) {
            if (d == me)
                continue;
            sbuf[ns] = payload(me, d, k);
            CHECK_MPI(MPI_Isend(&sbuf[ns], 1, MPI_INT, d, tags[k], comm, &sreq[ns]));
            ns++;
        }
    CHECK_MPI(MPI_Barrier(comm));

    for (int s = 0; s < n; s++) {
        if (s == me)
            continue;
        for (int k = 0; k < NTAGS; k++) {
            int v = -1;
            MPI_Status st;
            /* by source and tag for even k, by tag alone for odd k */
            int src = (k % 2 == 0) ? s : MPI_ANY_SOURCE;
            if (k % 2 == 1) {
                /* several senders use this tag: any of them may come, so
                 * probe first and receive exactly the probed one */
                CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, tags[k], comm, &st));
                CHECK(st.MPI_TAG == tags[k], "probed tag %d, expected %d", st.MPI_TAG, tags[k]);
                src = st.MPI_SOURCE;
            }
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, src, tags[k], comm, &st));
            CHECK(st.MPI_TAG == tags[k] && st.MPI_SOURCE == src,
                  "status source %d tag %d, expected %d %d", st.MPI_SOURCE, st.MPI_TAG, src,
                  tags[k]);
            CHECK(v == payload(src, me, k), "payload %d from %d tag %d, expected %d", v, src,
                  tags[k], payload(src, me, k));
        }
    }
    CHECK_MPI(MPI_Waitall(ns, sreq, MPI_STATUSES_IGNORE));

    /* MPI_ANY_TAG from one source: every tag of that sender, in the
     * order it sent them */
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    if (n > 1) {
        for (int k = 0; k < NTAGS; k++) {
            sbuf[k] = payload(me, next, k);
            CHECK_MPI(MPI_Isend(&sbuf[k], 1, MPI_INT, next, tags[k], comm, &sreq[k]));
        }
        for (int k = 0; k < NTAGS; k++) {
            int v = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, prev, MPI_ANY_TAG, comm, &st));
            CHECK(st.MPI_TAG == tags[k] && st.MPI_SOURCE == prev && v == payload(prev, me, k),
                  "any-tag receive %d: source %d tag %d value %d", k, st.MPI_SOURCE, st.MPI_TAG,
                  v);
        }
        CHECK_MPI(MPI_Waitall(NTAGS, sreq, MPI_STATUSES_IGNORE));
    }
    free(sreq);
    free(sbuf);
}

int main(int argc, char **argv)
{
    int rank, size, flag, *tag_ub;
    ft_init(&argc, &argv, 1, "none | VICTIMS kill|exit", &rank, &size);
    const char *victims = strcmp(argv[1], "none") ? argv[1] : NULL;
    const char *how = argc > 2 ? argv[2] : "kill";

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK(flag && *tag_ub == STOCK_TAG_UB, "MPI_TAG_UB %d, expected %d", flag ? *tag_ub : -1,
          STOCK_TAG_UB);
    pick_tags(flag ? *tag_ub : 32767);

    int dummy = 0, rc;
    MPI_Request req;
    rc = MPI_Isend(&dummy, 1, MPI_INT, (rank + 1) % size, *tag_ub + 1, MPI_COMM_WORLD, &req);
    CHECK(ft_class(rc) == MPI_ERR_TAG, "send with tag MPI_TAG_UB + 1 gave class %d",
          ft_class(rc));
    rc = MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, *tag_ub + 1, MPI_COMM_WORLD, &req);
    CHECK(ft_class(rc) == MPI_ERR_TAG, "receive with tag MPI_TAG_UB + 1 gave class %d",
          ft_class(rc));

    MPI_Comm comm = MPI_COMM_WORLD;
    if (victims) {
        ft_meetings_open(rank, size);
        if (ft_in_list(victims, rank))
            ft_die_together(0, rank, victims, size, 0.0, how);
        ft_arrive(0);
        /* the barrier learns of the deaths; agree until everyone has */
        int ok;
        do {
            ok = MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS;
        } while (ok);
        CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &comm));
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }
    exchange(comm);
    if (victims) {
        MPI_Comm_free(&comm);
        return ft_report();
    }
    return test_finish();
}
