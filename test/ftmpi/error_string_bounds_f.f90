! Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
! MPI_ERROR_STRING from Fortran stays inside the string it is given.
!
!     error_string_bounds_f [VICTIM]
!
! Error codes: the open of a file that does not exist and argument errors
! (long stacks when MPIR_CVAR_CHOP_ERROR_STACK is small), and with VICTIM (FT-MPI SHRINK, MANUAL) the failure of an
! allreduce after that process killed itself. Each code's text goes into a
! string of MPI_MAX_ERROR_STRING characters and into one of 40 characters,
! both the start of a longer string of guard characters: the guards must be
! intact and resultlen at most the string's length.
program error_string_bounds_f
    use mpi
    implicit none
    integer, parameter :: guards = 4096
    character(len=MPI_MAX_ERROR_STRING + guards) :: area
    integer :: ierr, rank, nprocs, victim, code, errors, i, x, sum, fh
    character(len=16) :: arg
    character(len=230) :: path

    errors = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    victim = -1
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) victim
    end if

    ! a file name that does not exist makes a long stack line (ROMIO names it)
    path = '/nonexistent/' // repeat('p', len(path) - 13)
    call MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, code)
    call check(code, 'open of a file that does not exist')
    do i = 1, 50
        x = 0
        call MPI_Send(x, 1, MPI_INTEGER, nprocs + i, 0, MPI_COMM_WORLD, code)
        call check(code, 'send to a bad rank')
        call MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, code)
        call check(code, 'bcast of a null type')
    end do

    if (victim >= 0) then
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        if (rank == victim) call kill(getpid(), 9)
        do i = 1, 100000
            x = 1
            call MPI_Allreduce(x, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, code)
            if (code /= MPI_SUCCESS) exit
        end do
        if (code == MPI_SUCCESS) then
            print '(a,i0,a)', '[rank ', rank, '] the allreduce never failed'
            errors = errors + 1
        end if
        call check(code, 'allreduce after a death')
    end if

    if (errors == 0) then
        print '(a,i0,a)', ' rank ', rank, ': No Errors'
    else
        print '(a,i0,a,i0,a)', ' rank ', rank, ': Found ', errors, ' errors'
    end if
    call MPI_Finalize(ierr)

contains

    subroutine check(code, what)
        integer, intent(in) :: code
        character(len=*), intent(in) :: what
        call check_into(code, what, MPI_MAX_ERROR_STRING)
        call check_into(code, what, 40)
    end subroutine check

    subroutine check_into(code, what, length)
        integer, intent(in) :: code, length
        character(len=*), intent(in) :: what
        integer :: resultlen, ierr2, j
        if (code == MPI_SUCCESS) then
            print '(a,i0,a,a,a)', '[rank ', rank, '] ', what, ' succeeded'
            errors = errors + 1
            return
        end if
        area = repeat('Z', len(area))
        resultlen = -1
        call MPI_Error_string(code, area(1:length), resultlen, ierr2)
        if (ierr2 /= MPI_SUCCESS) then
            print '(a,i0,a,a,a,i0)', '[rank ', rank, '] ', what, ': MPI_Error_string ierror ', ierr2
            errors = errors + 1
        end if
        do j = len(area), length + 1, -1
            if (area(j:j) /= 'Z') then
                print '(a,i0,a,a,a,i0,a,i0)', '[rank ', rank, '] ', what, &
                    ': MPI_Error_string wrote past a string of ', length, ' at ', j
                errors = errors + 1
                exit
            end if
        end do
        if (resultlen < 0 .or. resultlen > MPI_MAX_ERROR_STRING) then
            print '(a,i0,a,a,a,i0)', '[rank ', rank, '] ', what, ': resultlen ', resultlen
            errors = errors + 1
        end if
    end subroutine check_into

end program error_string_bounds_f
