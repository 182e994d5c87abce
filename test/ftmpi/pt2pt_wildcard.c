/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Wildcard receives, statuses, probes (blocking, nonblocking, matched) and
 * cancellation. Every rank sends to rank 0, which receives with
 * MPI_ANY_SOURCE / MPI_ANY_TAG and checks what the status reports. Then the
 * same on a reversed-order communicator, whose ranks differ from the world
 * ranks carried on the wire. */
#include "ftmpi_test.h"

static void gather_with_wildcards(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    if (rank != 0) {
        int msg[2] = { rank, rank * 100 };
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, 1000 + rank, comm));
        CHECK_MPI(MPI_Send(msg, 1, MPI_INT, 0, 5, comm));
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, 6, comm));
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, 7, comm));
        return;
    }

    int seen = 0;
    for (int i = 1; i < size; i++) {
        MPI_Status st;
        int msg[2], count;
        CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        MPI_Get_count(&st, MPI_INT, &count);
        /* the first message of each sender is the only one with tag > 1000 */
        CHECK(st.MPI_TAG == 1000 + st.MPI_SOURCE || st.MPI_TAG == 5 || st.MPI_TAG == 6 ||
              st.MPI_TAG == 7, "tag %d from %d", st.MPI_TAG, st.MPI_SOURCE);
        if (st.MPI_TAG != 1000 + st.MPI_SOURCE) {
            /* out of order with the tag-1000 message is impossible (non-overtaking) */
            CHECK(0, "message from %d overtook its first message", st.MPI_SOURCE);
            continue;
        }
        CHECK(count == 2 && msg[0] == st.MPI_SOURCE && msg[1] == st.MPI_SOURCE * 100,
              "payload %d,%d from %d", msg[0], msg[1], st.MPI_SOURCE);
        seen |= 1 << st.MPI_SOURCE;
        /* the rest of that sender's messages, by specific source and any tag */
        int m;
        CHECK_MPI(MPI_Recv(&m, 1, MPI_INT, st.MPI_SOURCE, MPI_ANY_TAG, comm, &st));
        CHECK(st.MPI_TAG == 5 && m == st.MPI_SOURCE, "second message tag %d", st.MPI_TAG);

        int flag = 0, src = st.MPI_SOURCE;
        MPI_Status pst;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 6, comm, &flag, &pst));
        CHECK_MPI(MPI_Probe(src, 6, comm, &pst));
        MPI_Get_count(&pst, MPI_INT, &count);
        CHECK(pst.MPI_TAG == 6 && count == 2, "probe tag %d count %d", pst.MPI_TAG, count);
        CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, src, 6, comm, MPI_STATUS_IGNORE));

        MPI_Message mh;
        CHECK_MPI(MPI_Mprobe(src, 7, comm, &mh, &pst));
        CHECK(pst.MPI_SOURCE == src && pst.MPI_TAG == 7, "mprobe %d/%d", pst.MPI_SOURCE,
              pst.MPI_TAG);
        CHECK_MPI(MPI_Mrecv(msg, 2, MPI_INT, &mh, &st));
        CHECK(st.MPI_SOURCE == src && msg[0] == src, "mrecv source %d payload %d",
              st.MPI_SOURCE, msg[0]);
    }
    int all = 0;
    for (int i = 1; i < size; i++)
        all |= 1 << i;
    CHECK(seen == all, "senders seen %x expected %x", seen, all);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    gather_with_wildcards(MPI_COMM_WORLD);

    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    gather_with_wildcards(reversed);

    /* improbe with nothing pending, then with a message pending */
    if (size >= 2 && rank < 2) {
        int flag = 1, v = 42;
        MPI_Message mh;
        MPI_Status st;
        if (rank == 1) {
            CHECK_MPI(MPI_Improbe(0, 77, MPI_COMM_WORLD, &flag, &mh, &st));
            CHECK(!flag, "improbe found a message that was never sent");
        }
        MPI_Sendrecv_replace(&v, 1, MPI_INT, 1 - rank, 3, 1 - rank, 3, MPI_COMM_WORLD, &st);
        CHECK(v == 42 && st.MPI_SOURCE == 1 - rank, "sendrecv_replace");
        if (rank == 0)
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD));
        else {
            do
                CHECK_MPI(MPI_Improbe(0, 77, MPI_COMM_WORLD, &flag, &mh, &st));
            while (!flag);
            v = 0;
            CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &mh, &st));
            CHECK(v == 42 && st.MPI_TAG == 77, "improbe/mrecv got %d tag %d", v, st.MPI_TAG);
        }
    }

    /* a receive that nobody matches can be cancelled */
    {
        MPI_Request r;
        MPI_Status st;
        int flag = 0, buf;
        CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag, "receive was not cancelled");
    }

    /* a message to oneself through MPI_COMM_WORLD */
    {
        int out = rank + 1, in = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank, 8, &in, 1, MPI_INT, rank, 8,
                               MPI_COMM_WORLD, &st));
        CHECK(in == rank + 1 && st.MPI_SOURCE == rank, "self sendrecv got %d from %d", in,
              st.MPI_SOURCE);
    }

    MPI_Comm_free(&reversed);
    return test_finish();
}
