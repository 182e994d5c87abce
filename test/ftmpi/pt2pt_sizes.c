/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* Point-to-point of every size class, 0 B to 16 MiB: eager, rendezvous and
 * zero-copy paths; standard, synchronous, buffered and ready modes; a
 * strided derived datatype. Ranks pair up (0-1, 2-3, ...) and exchange in
 * both directions. */
#include "ftmpi_test.h"

#define MAX_BYTES (16 * 1024 * 1024)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int peer = rank ^ 1;
    unsigned char *sbuf = malloc(MAX_BYTES), *rbuf = malloc(MAX_BYTES);

    if (peer < size) {
        for (size_t n = 0; n <= MAX_BYTES; n = n ? n * 4 : 1) {
            for (int mode = 0; mode < 3; mode++) {
                MPI_Status st;
                int count;
                test_fill(sbuf, n, rank, peer);
                memset(rbuf, 0xee, n + (n < MAX_BYTES));
                if (rank < peer) {
                    if (mode == 0)
                        CHECK_MPI(MPI_Send(sbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
                    else if (mode == 1)
                        CHECK_MPI(MPI_Ssend(sbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
                    else {
                        MPI_Request r;
                        CHECK_MPI(MPI_Isend(sbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &r));
                        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
                    }
                    CHECK_MPI(MPI_Recv(rbuf, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &st));
                } else {
                    CHECK_MPI(MPI_Recv(rbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
                    CHECK_MPI(MPI_Send(sbuf, n, MPI_BYTE, peer, 8, MPI_COMM_WORLD));
                }
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int) n, "count %d expected %zu", count, n);
                CHECK(st.MPI_SOURCE == peer, "source %d expected %d", st.MPI_SOURCE, peer);
                int bad = test_first_wrong(rbuf, n, peer, rank);
                CHECK(bad < 0, "size %zu mode %d: byte %d wrong", n, mode, bad);
                if (n < MAX_BYTES)
                    CHECK(rbuf[n] == 0xee, "size %zu: wrote past the message", n);
            }
        }

        /* strided type: every other double of a 2M-double array (8 MiB of data) */
        for (int nelem = 1; nelem <= 1 << 20; nelem *= 32) {
            MPI_Datatype vec;
            MPI_Type_vector(nelem, 1, 2, MPI_DOUBLE, &vec);
            MPI_Type_commit(&vec);
            double *a = malloc(2 * nelem * sizeof(double));
            double *b = malloc(nelem * sizeof(double));
            for (int i = 0; i < 2 * nelem; i++)
                a[i] = (i % 2) ? -1.0 : rank * 1e6 + i / 2;
            if (rank < peer) {
                CHECK_MPI(MPI_Send(a, 1, vec, peer, 9, MPI_COMM_WORLD));
                for (int i = 0; i < 2 * nelem; i++)
                    a[i] = 0;
                CHECK_MPI(MPI_Recv(a, 1, vec, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < nelem; i++) {
                    CHECK(a[2 * i] == peer * 1e6 + i, "vec recv elem %d = %g", i, a[2 * i]);
                    CHECK(a[2 * i + 1] == 0, "vec recv hole %d = %g", i, a[2 * i + 1]);
                    if (test_errors > 10)
                        break;
                }
            } else {
                /* contiguous receive of strided data, then strided reply */
                MPI_Status st;
                int count;
                CHECK_MPI(MPI_Recv(b, nelem, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_DOUBLE, &count);
                CHECK(count == nelem, "vec count %d expected %d", count, nelem);
                for (int i = 0; i < nelem && test_errors <= 10; i++)
                    CHECK(b[i] == peer * 1e6 + i, "vec elem %d = %g", i, b[i]);
                CHECK_MPI(MPI_Send(a, 1, vec, peer, 9, MPI_COMM_WORLD));
            }
            free(a);
            free(b);
            MPI_Type_free(&vec);
        }

        /* buffered and ready modes */
        int bsize = 1 << 20;
        void *bbuf = malloc(bsize + MPI_BSEND_OVERHEAD);
        MPI_Buffer_attach(bbuf, bsize + MPI_BSEND_OVERHEAD);
        test_fill(sbuf, 1000, rank, peer);
        if (rank < peer) {
            /* posted before the Bsend, so the reply's ready send is legal */
            MPI_Request r;
            CHECK_MPI(MPI_Irecv(rbuf, 1000, MPI_BYTE, peer, 11, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Bsend(sbuf, 1000, MPI_BYTE, peer, 10, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(rbuf, 1000, MPI_BYTE, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Rsend(sbuf, 1000, MPI_BYTE, peer, 11, MPI_COMM_WORLD));
        }
        CHECK(test_first_wrong(rbuf, 1000, peer, rank) < 0, "bsend/rsend data");
        MPI_Buffer_detach(&bbuf, &bsize);
        free(bbuf);
    }

    /* truncation is reported, not silently ignored */
    if (peer < size) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (rank < peer) {
            CHECK_MPI(MPI_Send(sbuf, 100, MPI_BYTE, peer, 12, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int rc = MPI_Recv(rbuf, 10, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &st);
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned class %d", cls);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    free(sbuf);
    free(rbuf);
    return test_finish();
}
