! Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
!
! FT-MPICH: the Fortran module mpi_ext, Open MPI's module of MPI
! extensions, for ULFM programs that `use mpi_ext` beside `use mpi`. ULFM's
! MPIX_ functions, its classes (MPIX_ERR_PROC_FAILED, MPI_ERR_PROC_FAILED,
! ...) and MPIX_FT are in `use mpi` already; this module hands them on.
module mpi_ext
    use mpi
end module mpi_ext
