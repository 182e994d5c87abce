! Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
! Open MPI's ULFM names in Fortran: `use mpi_ext`, the classes by their
! standard names (MPI_ERR_PROC_FAILED, MPI_ERR_PROC_FAILED_PENDING,
! MPI_ERR_REVOKED) equal to the MPIX_ ones, and an agreement through them.
program ulfm_ext_names
    use mpi
    use mpi_ext
    implicit none
    integer :: ierr, rank, flag, errors
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    errors = 0
    if (MPI_ERR_PROC_FAILED /= MPIX_ERR_PROC_FAILED) errors = errors + 1
    if (MPI_ERR_PROC_FAILED_PENDING /= MPIX_ERR_PROC_FAILED_PENDING) errors = errors + 1
    if (MPI_ERR_REVOKED /= MPIX_ERR_REVOKED) errors = errors + 1
    flag = 1
    call MPIX_Comm_agree(MPI_COMM_WORLD, flag, ierr)
    if (ierr /= MPI_SUCCESS .or. flag /= 1) errors = errors + 1
    if (errors == 0 .and. rank == 0) print '(A)', ' No Errors'
    if (errors /= 0) print '(A,I0,A,I0)', ' rank ', rank, ': Found ', errors
    call MPI_Finalize(ierr)
end program ulfm_ext_names
