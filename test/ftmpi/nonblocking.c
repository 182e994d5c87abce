/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Many outstanding nonblocking operations at once, completed with every
 * completion call; persistent requests; out-of-order matching by tag. */
#include "ftmpi_test.h"

#define NMSG 64
#define LEN  4096

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc(NMSG * LEN * sizeof(int)), *rbuf = malloc(NMSG * LEN * sizeof(int));
    MPI_Request reqs[2 * NMSG];

    /* ring exchange, receives posted in reverse tag order */
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < NMSG * LEN; i++) {
            sbuf[i] = rank * 1000003 + i + round;
            rbuf[i] = -1;
        }
        for (int m = 0; m < NMSG; m++)
            CHECK_MPI(MPI_Irecv(rbuf + m * LEN, LEN, MPI_INT, left, NMSG - 1 - m,
                                MPI_COMM_WORLD, &reqs[m]));
        for (int m = 0; m < NMSG; m++)
            CHECK_MPI(MPI_Isend(sbuf + m * LEN, LEN, MPI_INT, right, m, MPI_COMM_WORLD,
                                &reqs[NMSG + m]));

        if (round == 0) {
            CHECK_MPI(MPI_Waitall(2 * NMSG, reqs, MPI_STATUSES_IGNORE));
        } else if (round == 1) {
            int done = 0, idx;
            while (done < 2 * NMSG) {
                CHECK_MPI(MPI_Waitany(2 * NMSG, reqs, &idx, MPI_STATUS_IGNORE));
                CHECK(idx != MPI_UNDEFINED, "waitany returned undefined");
                done++;
            }
        } else if (round == 2) {
            int done = 0, outcount, idx[2 * NMSG];
            while (done < 2 * NMSG) {
                CHECK_MPI(MPI_Waitsome(2 * NMSG, reqs, &outcount, idx, MPI_STATUSES_IGNORE));
                done += outcount;
            }
        } else {
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Testall(2 * NMSG, reqs, &flag, MPI_STATUSES_IGNORE));
        }
        for (int m = 0; m < NMSG; m++) {
            /* receive m was posted for tag NMSG-1-m, i.e. send buffer NMSG-1-m */
            int src_m = NMSG - 1 - m;
            for (int i = 0; i < LEN; i++) {
                int expect = left * 1000003 + src_m * LEN + i + round;
                if (rbuf[m * LEN + i] != expect) {
                    CHECK(0, "round %d msg %d elem %d: %d expected %d", round, m, i,
                          rbuf[m * LEN + i], expect);
                    break;
                }
            }
        }
    }

    /* persistent requests, restarted */
    MPI_Request pr[2];
    int out, in;
    CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &pr[0]));
    CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &pr[1]));
    for (int it = 0; it < 10; it++) {
        out = rank * 100 + it;
        CHECK_MPI(MPI_Startall(2, pr));
        CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        CHECK(in == left * 100 + it, "persistent iteration %d got %d", it, in);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);

    /* Test on a receive that completes later */
    {
        MPI_Request r;
        int flag = 0, v = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
        while (!flag)
            CHECK_MPI(MPI_Test(&r, &flag, &st));
        CHECK(v == left && st.MPI_SOURCE == left && st.MPI_TAG == 6, "test got %d from %d", v,
              st.MPI_SOURCE);
    }

    free(sbuf);
    free(rbuf);
    return test_finish();
}
