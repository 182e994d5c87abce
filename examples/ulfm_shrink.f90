! Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
! A ULFM program in Fortran 2008 (use mpi_f08): revoke, shrink, agree.
!
!   mpifort -o ulfm_shrink ulfm_shrink.f90
!   mpiexec -with-ft ulfm -n 5 ./ulfm_shrink [VICTIMS [kill|exit]]
!
! The processes count themselves with an allreduce, ITERATIONS times, on a
! duplicate of MPI_COMM_WORLD that returns errors. The processes of
! VICTIMS (world ranks joined by '+', default 1) die at iteration DIE_AT.
! A survivor that gets MPIX_ERR_PROC_FAILED revokes the communicator, so
! that every other survivor gets MPIX_ERR_REVOKED wherever it is, and all
! shrink it to the survivors and repeat the iteration there. At the end the
! survivors agree on a bit mask (MPIX_Comm_agree, then MPIX_Comm_iagree):
! each clears its own bit, and the result must have every survivor's bit
! cleared and no other.
program ulfm_shrink
    use mpi_f08
    use, intrinsic :: iso_c_binding, only: c_int
    implicit none
    interface
        subroutine c_exit(status) bind(c, name="_exit")
            import :: c_int
            integer(c_int), value :: status
        end subroutine c_exit
    end interface
    integer, parameter :: ITERATIONS = 20, DIE_AT = 5
    type(MPI_Comm) :: comm, shrunk
    type(MPI_Group) :: failed_group
    type(MPI_Request) :: request
    integer :: ierr, eclass, world_rank, world_size, rank, nprocs, i, one, counted
    integer :: repairs, errors, nfailed, nacked, mask, expected, k
    logical :: revoked, victim, ulfm
    integer(kind=MPI_ADDRESS_KIND) :: attr
    character(len=64) :: arg, how

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, world_rank)
    call MPI_Comm_size(MPI_COMM_WORLD, world_size)
    errors = 0
    repairs = 0
    arg = '1'
    how = 'kill'
    if (command_argument_count() >= 1) call get_command_argument(1, arg)
    if (command_argument_count() >= 2) call get_command_argument(2, how)
    victim = in_list(trim(arg), world_rank)

    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, attr, ulfm)
    if (.not. ulfm .or. attr == 0) call error('MPIX_FT is not set: run with -with-ft ulfm')

    call MPI_Comm_dup(MPI_COMM_WORLD, comm)
    call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
    i = 1
    do while (i <= ITERATIONS)
        if (victim .and. i == DIE_AT) call die()
        one = 1
        call MPI_Allreduce(one, counted, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
        if (ierr == MPI_SUCCESS) then
            call MPI_Comm_size(comm, nprocs)
            if (counted /= nprocs) call error('allreduce counted a wrong number of processes')
            i = i + 1
            cycle
        end if
        call MPI_Error_class(ierr, eclass)
        if (eclass /= MPIX_ERR_PROC_FAILED .and. eclass /= MPIX_ERR_REVOKED) &
            call error('allreduce failed with neither MPIX_ERR_PROC_FAILED nor MPIX_ERR_REVOKED')
        call MPIX_Comm_revoke(comm)
        call MPIX_Comm_is_revoked(comm, revoked)
        if (.not. revoked) call error('MPIX_Comm_is_revoked says no after MPIX_Comm_revoke')
        call MPIX_Comm_shrink(comm, shrunk, ierr)
        if (ierr /= MPI_SUCCESS) then
            call error('MPIX_Comm_shrink failed')
            exit
        end if
        call MPIX_Comm_ack_failed(comm, world_size, nacked)
        call MPIX_Comm_get_failed(comm, failed_group)
        call MPI_Group_size(failed_group, nfailed)
        if (nfailed < 1 .or. nacked /= nfailed) call error('failed group and acknowledged count differ')
        call MPI_Group_free(failed_group)
        call MPI_Comm_free(comm)
        comm = shrunk
        repairs = repairs + 1
    end do

    call MPI_Comm_rank(comm, rank)
    call MPI_Comm_size(comm, nprocs)
    if (nprocs /= world_size - count_list(trim(arg))) call error('the shrunk communicator has a wrong size')
    expected = huge(expected)
    do k = 0, nprocs - 1
        expected = ibclr(expected, k)
    end do
    mask = ibclr(huge(mask), rank)
    call MPIX_Comm_agree(comm, mask, ierr)
    if (ierr /= MPI_SUCCESS .or. mask /= expected) call error('MPIX_Comm_agree gave a wrong mask')
    mask = ibclr(huge(mask), rank)
    call MPIX_Comm_iagree(comm, mask, request)
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS .or. mask /= expected) call error('MPIX_Comm_iagree gave a wrong mask')
    if (repairs < 1) call error('no failure was seen')

    if (errors == 0) then
        write (*, '(a,i0,a)') ' rank ', world_rank, ': No Errors'
    else
        write (*, '(a,i0,a,i0,a)') ' rank ', world_rank, ': Found ', errors, ' errors'
    end if
    flush (6)
    call MPI_Comm_free(comm)
    call MPI_Finalize()

contains

    ! whether r is one of the ranks of list ("1", "1+3")
    logical function in_list(list, r)
        character(len=*), intent(in) :: list
        integer, intent(in) :: r
        integer :: start, plus, value
        in_list = .false.
        start = 1
        do
            plus = index(list(start:), '+')
            if (plus == 0) then
                read (list(start:), *) value
            else
                read (list(start:start + plus - 2), *) value
            end if
            if (value == r) in_list = .true.
            if (plus == 0) exit
            start = start + plus
        end do
    end function in_list

    integer function count_list(list)
        character(len=*), intent(in) :: list
        integer :: j
        count_list = 1
        do j = 1, len(list)
            if (list(j:j) == '+') count_list = count_list + 1
        end do
    end function count_list

    ! SIGKILL (GNU Fortran's kill and getpid), or _exit with "exit"
    subroutine die()
        flush (6)
        if (how == 'exit') call c_exit(3_c_int)
        call kill(getpid(), 9)
    end subroutine die

    subroutine error(what)
        character(len=*), intent(in) :: what
        write (0, '(a,i0,2a)') '[rank ', world_rank, '] ', what
        errors = errors + 1
    end subroutine error

end program ulfm_shrink
