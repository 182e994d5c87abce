// Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
// MPI's C interface from C++ (mpicxx), through a failure: FT-MPI SHRINK
// mode with MANUAL recovery, and the ULFM header in a C++ unit.
//
//   cxx_recover VICTIM kill|exit
//
// A small RAII wrapper turns MPI errors into C++ exceptions. Each
// iteration sums a std::vector over all processes; VICTIM dies at
// iteration DIE_AT. The survivors catch the exception, recover with
// MPI_Comm_dup(MPI_COMM_WORLD, ...) and go on with one process fewer, and
// the sums must match the new size.
#include <mpi.h>
#include <mpi-ext.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int ITERATIONS = 12;
constexpr int DIE_AT = 4;
constexpr int LENGTH = 1000;

struct mpi_error : std::runtime_error {
    int code;
    explicit mpi_error(int c) : std::runtime_error("MPI error " + std::to_string(c)), code(c) {}
};

void check(int rc)
{
    if (rc != MPI_SUCCESS)
        throw mpi_error(rc);
}

class Comm {
  public:
    explicit Comm(MPI_Comm parent) { check(MPI_Comm_dup(parent, &comm_)); }
    ~Comm()
    {
        // a recovery destroys the duplicate: freeing it then fails, harmlessly
        if (comm_ != MPI_COMM_NULL)
            MPI_Comm_free(&comm_);
    }
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;
    int size() const
    {
        int n;
        check(MPI_Comm_size(comm_, &n));
        return n;
    }
    std::vector<long> sum(const std::vector<long> &mine) const
    {
        std::vector<long> total(mine.size());
        check(MPI_Allreduce(mine.data(), total.data(), static_cast<int>(mine.size()), MPI_LONG,
                            MPI_SUM, comm_));
        return total;
    }

  private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s VICTIM kill|exit\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int victim = std::atoi(argv[1]);
    const std::string how = argv[2];
    int world_rank, world_size, errors = 0, recoveries = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    int iteration = 1;
    while (iteration <= ITERATIONS) {
        try {
            Comm comm(MPI_COMM_WORLD);
            for (; iteration <= ITERATIONS; iteration++) {
                if (world_rank == victim && iteration == DIE_AT) {
                    std::fflush(stdout);
                    if (how == "exit")
                        _exit(3);
                    std::raise(SIGKILL);
                }
                std::vector<long> mine(LENGTH);
                std::iota(mine.begin(), mine.end(), static_cast<long>(iteration));
                std::vector<long> total = comm.sum(mine);
                const long n = comm.size();
                for (int i = 0; i < LENGTH; i++)
                    if (total[i] != n * (iteration + i)) {
                        std::fprintf(stderr, "[rank %d] iteration %d: element %d is %ld, expected %ld\n",
                                     world_rank, iteration, i, total[i], n * (iteration + i));
                        errors++;
                        break;
                    }
            }
        } catch (const mpi_error &e) {
            MPI_Comm dup;
            int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
            if (rc != MPI_SUCCESS || dup != MPI_COMM_WORLD) {
                std::fprintf(stderr, "[rank %d] recovery failed (%d)\n", world_rank, rc);
                errors++;
                break;
            }
            recoveries++;
        }
    }

    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (recoveries != 1 || size != world_size - 1) {
        std::fprintf(stderr, "[rank %d] %d recoveries, world of %d: expected 1 and %d\n", world_rank,
                     recoveries, size, world_size - 1);
        errors++;
    }
    int revoked = 1;
    if (MPIX_Comm_is_revoked(MPI_COMM_WORLD, &revoked) != MPI_SUCCESS || revoked) {
        std::fprintf(stderr, "[rank %d] MPIX_Comm_is_revoked says MPI_COMM_WORLD is revoked\n",
                     world_rank);
        errors++;
    }
    if (errors == 0)
        std::printf(" rank %d: No Errors\n", world_rank);
    else
        std::printf(" rank %d: Found %d errors\n", world_rank, errors);
    std::fflush(stdout);
    MPI_Finalize();
    return errors != 0;
}
