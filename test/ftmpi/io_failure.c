/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* MPI-IO (ROMIO) without and with a failure, in every recovery mode.
 *
 *   io_failure VICTIMS|none kill|exit [interleaved]
 *
 * 1. Every process writes its block of file A with MPI_File_write_at_all
 *    and closes it; without a victim it reads A back (read_at_all) and
 *    that is all.
 * 2. File B is opened on MPI_COMM_WORLD and written round after round
 *    (with "interleaved", through a view in which the processes' data
 *    alternate, so that ROMIO exchanges data between processes);
 *    the victims die while the others are inside the collective write of
 *    round DIE_AT. That write, or the next, must fail with the mode's
 *    failure error (MPIX_ERR_PROC_FAILED under ULFM, or MPIX_ERR_REVOKED:
 *    MPI-IO revokes a file's communicator on a failure inside an access)
 *    and nothing hangs.
 * 3. The survivors recover: MPI_Comm_dup(MPI_COMM_WORLD) in the FT-MPI
 *    modes, which destroys B's communicator and so closes B (its handle
 *    then gives MPI_ERR_FILE); revoke and shrink under ULFM, where B keeps
 *    failing. In BLANK mode a file cannot be opened on the world that has
 *    holes; the survivors split it.
 * 4. On what recovery left (a REBUILD replacement joins here), file C is
 *    written collectively, closed, reopened and read back.
 * 5. Each process reads all of A alone: the data written and closed before
 *    the failure is intact. */
#include "ftmpi_test.h"
#include <sys/time.h>

#define BLOCK 4096              /* ints per process and write */
#define ROUNDS 6
#define DIE_AT 3
#define CHUNK 64                /* ints per piece of an interleaved write */

static int pattern(int file, int writer, int round, int i)
{
    return file * 1000003 + writer * 10007 + round * 101 + i;
}

static void file_name(char *name, size_t len, const char *which)
{
    const char *tag = getenv("FTMPI_TEST_JOB_TAG");
    snprintf(name, len, "io_failure.%s.%s", tag ? tag : "run", which);
}

/* each rank of comm writes block `rank` of `name`, then reads it back
 * collectively after a reopen */
static void write_and_read(MPI_Comm comm, const char *name, int file)
{
    int rank, buf[BLOCK];
    MPI_File fh;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < BLOCK; i++)
        buf[i] = pattern(file, rank, 0, i);
    MPI_Offset at = (MPI_Offset) rank * BLOCK * sizeof(int);
    CHECK_MPI(MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_write_at_all(fh, at, buf, BLOCK, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    memset(buf, 0, sizeof(buf));
    CHECK_MPI(MPI_File_open(comm, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_read_at_all(fh, at, buf, BLOCK, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    for (int i = 0; i < BLOCK; i++)
        if (buf[i] != pattern(file, rank, 0, i)) {
            CHECK(0, "%s: element %d of block %d reads %d", name, i, rank, buf[i]);
            break;
        }
}

/* all `writers` blocks of file A, read by this process alone */
static void check_file_a(const char *name, int writers)
{
    MPI_File fh;
    int *all = malloc((size_t) writers * BLOCK * sizeof(int));
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, writers * BLOCK, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    for (int w = 0; w < writers; w++)
        for (int i = 0; i < BLOCK; i++)
            if (all[w * BLOCK + i] != pattern(1, w, 0, i)) {
                CHECK(0, "%s: element %d of block %d reads %d", name, i, w, all[w * BLOCK + i]);
                w = writers;
                break;
            }
    free(all);
}

static void die_now(int sig)
{
    raise(SIGKILL);
}

/* This process dies DIE_DELAY_US after it entered the call it is about to
 * make: in the middle of a two-phase access, between its exchanges, or
 * right after it (SIGKILL, or _exit). */
#define DIE_DELAY_US 2000
static void die_inside_next_call(const char *how)
{
    struct itimerval t = { {0, 0}, {0, DIE_DELAY_US} };
    signal(SIGALRM, strcmp(how, "exit") == 0 ? ft_exit_on_signal : die_now);
    setitimer(ITIMER_REAL, &t, NULL);
}

/* ULFM: a collective with a dead member fails with MPIX_ERR_PROC_FAILED, or
 * with MPIX_ERR_REVOKED where the failure revoked the file's communicator */
static int is_ulfm_failure(int rc)
{
    return ft_class(rc) == MPIX_ERR_PROC_FAILED || ft_class(rc) == MPIX_ERR_REVOKED;
}

static int attr(int keyval)
{
    int *value, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &flag);
    return flag ? *value : -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    int restarted = MPI_Init(&argc, &argv) == MPI_INIT_RESTARTED_NODE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc < 3) {
        fprintf(stderr, "usage: %s VICTIMS|none kill|exit [interleaved]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int interleaved = argc > 3 && strcmp(argv[3], "interleaved") == 0;
    signal(SIGUSR2, ft_exit_on_signal);
    const char *victims = argv[1], *how = argv[2];
    int ulfm = attr(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_ULFM;
    int comm_mode = attr(FTMPI_COMM_MODE);
    int nvictims = 0;
    for (int p = 0; p < size; p++)
        nvictims += ft_in_list(victims, p);
    char a_name[256], b_name[256], c_name[256];
    file_name(a_name, sizeof(a_name), "A");
    file_name(b_name, sizeof(b_name), "B");
    file_name(c_name, sizeof(c_name), "C");
    /* MPI-IO errors go to the file's handler: MPI_ERRORS_RETURN by default */
    MPI_Comm alive = MPI_COMM_WORLD;
    int world_size = size;

    if (!restarted) {
        int buf[BLOCK];
        MPI_File fh;
        for (int i = 0; i < BLOCK; i++)
            buf[i] = pattern(1, rank, 0, i);
        CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, a_name, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset) rank * BLOCK * sizeof(int), buf, BLOCK,
                                        MPI_INT, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_close(&fh));
        if (nvictims == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            check_file_a(a_name, size);
            write_and_read(MPI_COMM_WORLD, c_name, 3);
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_File_delete(a_name, MPI_INFO_NULL);
                MPI_File_delete(c_name, MPI_INFO_NULL);
            }
            return test_finish();
        }

        ft_meetings_open(rank, size);
        CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, b_name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                                MPI_INFO_NULL, &fh));
        MPI_Datatype chunks = MPI_DATATYPE_NULL;
        if (interleaved) {
            /* the processes' data alternate in CHUNK-int pieces: ROMIO's
             * two-phase access, with its exchanges between processes */
            MPI_Datatype vec;
            CHECK_MPI(MPI_Type_vector(BLOCK / CHUNK, CHUNK, CHUNK * size, MPI_INT, &vec));
            CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint) BLOCK * size * sizeof(int),
                                              &chunks));
            CHECK_MPI(MPI_Type_commit(&chunks));
            MPI_Type_free(&vec);
            CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset) rank * CHUNK * sizeof(int), MPI_INT,
                                        chunks, "native", MPI_INFO_NULL));
        }
        int failed_at = -1;
        for (int round = 0; round < ROUNDS && failed_at < 0; round++) {
            if (round == DIE_AT && interleaved) {
                /* everyone is out of the round before: a process that is
                 * still finishing it (descheduled on a loaded node) would
                 * see the failure there, a round early */
                MPI_Barrier(MPI_COMM_WORLD);
                if (ft_in_list(victims, rank))
                    die_inside_next_call(how);
            } else if (round == DIE_AT) {
                if (ft_in_list(victims, rank))
                    ft_die_together(0, rank, victims, size, 0.05, how);
                ft_arrive(0);
            }
            for (int i = 0; i < BLOCK; i++)
                buf[i] = pattern(2, rank, round, i);
            /* in bytes without a view, in ints of this process's view with one */
            MPI_Offset at = interleaved ? (MPI_Offset) round * BLOCK :
                ((MPI_Offset) round * size + rank) * BLOCK * sizeof(int);
            int rc = MPI_File_write_at_all(fh, at, buf, BLOCK, MPI_INT, MPI_STATUS_IGNORE);
            if (round == DIE_AT && ft_in_list(victims, rank))
                for (;;)        /* the timer of die_inside_next_call ends it */
                    pause();
            if (rc != MPI_SUCCESS) {
                failed_at = round;
                CHECK(ulfm ? is_ulfm_failure(rc) : ft_class(rc) == MPI_ERR_OTHER,
                      "round %d: write_at_all returned class %d", round, ft_class(rc));
            }
        }
        CHECK(failed_at == DIE_AT || failed_at == DIE_AT + 1,
              "the collective write failed in round %d, expected %d", failed_at, DIE_AT);
        if (chunks != MPI_DATATYPE_NULL)
            MPI_Type_free(&chunks);

        int one = 0;
        if (ulfm) {
            MPIX_Comm_revoke(MPI_COMM_WORLD);
            CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &alive));
            /* B's communicator still has the dead member */
            int rc = MPI_File_write_at_all(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
            CHECK(is_ulfm_failure(rc),
                  "write_at_all on a file of the broken communicator returned class %d",
                  ft_class(rc));
            MPI_File_close(&fh);
        } else {
            MPI_Comm dup = FT_MPI_CHECK_RECOVER;
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
            int rc = MPI_File_write_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
            CHECK(ft_class(rc) == MPI_ERR_FILE,
                  "writing to a file whose communicator the recovery destroyed returned class %d",
                  ft_class(rc));
            rc = MPI_File_close(&fh);
            CHECK(ft_class(rc) == MPI_ERR_FILE, "closing it again returned class %d", ft_class(rc));
            if (comm_mode == FTMPI_COMM_MODE_BLANK) {
                MPI_File gh;
                rc = MPI_File_open(MPI_COMM_WORLD, c_name, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                   MPI_INFO_NULL, &gh);
                CHECK(rc != MPI_SUCCESS, "a file opened on a world with blanks");
                CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &alive));
            }
        }
    }

    int n;
    MPI_Comm_size(alive, &n);
    int expect_n = comm_mode == FTMPI_COMM_MODE_REBUILD ? world_size : world_size - nvictims;
    CHECK(n == expect_n, "%d processes after the recovery, expected %d", n, expect_n);
    write_and_read(alive, c_name, 3);
    check_file_a(a_name, world_size);
    MPI_Barrier(alive);
    int r;
    MPI_Comm_rank(alive, &r);
    if (r == 0) {
        MPI_File_delete(a_name, MPI_INFO_NULL);
        MPI_File_delete(b_name, MPI_INFO_NULL);
        MPI_File_delete(c_name, MPI_INFO_NULL);
    }
    if (alive != MPI_COMM_WORLD)
        MPI_Comm_free(&alive);
    return ft_report();
}
