# Sourced by the script tests: $prefix (the MPI installation), $src (the
# test sources) and $bin (where programs are built), and build PROGRAM.
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=$(cd "${MPI_PREFIX:-$src/../../install}" && pwd)
bin=$src/bin
mkdir -p "$bin"

build() {
    "$prefix/bin/mpicc" -O2 -o "$bin/$1" "$src/$1.c"
}
