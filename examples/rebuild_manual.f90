! Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
! An FT-MPI program in Fortran: REBUILD mode, MANUAL recovery.
!
!   mpifort -o rebuild_manual rebuild_manual.f90
!   FTMPI_COMM_MODE=rebuild FTMPI_RECOVERY_MODE=manual \
!       mpiexec -n 4 ./rebuild_manual [VICTIM [kill|exit]]
!
! Each iteration sums the iteration number over all processes and passes a
! token round a ring. VICTIM (default 1) dies at iteration DIE_AT (SIGKILL,
! or _exit with "exit"). A call that fails returns its error (FT-MPI mode:
! no error handler needed); the survivors recover with
! MPI_Comm_dup(MPI_COMM_WORLD, ...), which hands MPI_COMM_WORLD back with
! its full size. The replacement, whose MPI_Init returns
! MPI_INIT_RESTARTED_NODE, takes the last state every process committed
! from a survivor, and everyone goes on from there.
program rebuild_manual
    use mpi
    use, intrinsic :: iso_c_binding, only: c_int
    implicit none
    interface
        subroutine c_exit(status) bind(c, name="_exit")
            import :: c_int
            integer(c_int), value :: status
        end subroutine c_exit
    end interface
    integer, parameter :: ITERATIONS = 30, DIE_AT = 6
    integer(kind=8) :: history(0:ITERATIONS), total, max_total
    integer :: ierr, rank, nprocs, victim, committed, recoveries, errors, dup
    logical :: restarted, has_state, failed
    character(len=16) :: arg, how

    call MPI_Init(ierr)
    restarted = (ierr == MPI_INIT_RESTARTED_NODE)
    victim = 1
    how = 'kill'
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) victim
    end if
    if (command_argument_count() >= 2) call get_command_argument(2, how)
    errors = 0
    recoveries = 0
    committed = 0
    history = 0
    has_state = .not. restarted
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

    call check_mode(FTMPI_COMM_MODE, FTMPI_COMM_MODE_REBUILD, 'FTMPI_COMM_MODE')
    call check_mode(FTMPI_RECOVERY_MODE, FTMPI_RECOVERY_MODE_MANUAL, 'FTMPI_RECOVERY_MODE')

    do
        call iterate(failed)
        if (.not. failed) exit
        call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
        if (ierr /= MPI_SUCCESS .or. dup /= MPI_COMM_WORLD) then
            call error('recovery (MPI_Comm_dup) did not hand MPI_COMM_WORLD back')
            exit
        end if
        recoveries = recoveries + 1
    end do

    if (.not. restarted .and. recoveries /= 1) call error('not exactly one recovery')
    total = history(ITERATIONS)
    call MPI_Allreduce(total, max_total, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS .or. total /= max_total) call error('totals differ')
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    if (errors == 0) then
        write (*, '(a,i0,a)') ' rank ', rank, ': No Errors'
    else
        write (*, '(a,i0,a,i0,a)') ' rank ', rank, ': Found ', errors, ' errors'
    end if
    flush (6)
    call MPI_Finalize(ierr)

contains

    ! Runs from the last iteration every process committed to the end;
    ! failed is true when a call returned an error.
    subroutine iterate(failed)
        logical, intent(out) :: failed
        integer :: i, mine, start, donor_in, donor, isum, token, got
        integer(kind=8) :: state

        failed = .true.
        call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
        call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
        mine = huge(mine)
        donor_in = huge(donor_in)
        if (has_state) then
            mine = committed
            donor_in = rank
        end if
        call MPI_Allreduce(mine, start, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
        if (ierr /= MPI_SUCCESS) return
        call MPI_Allreduce(donor_in, donor, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
        if (ierr /= MPI_SUCCESS) return
        state = history(start)
        call MPI_Bcast(state, 1, MPI_INTEGER8, donor, MPI_COMM_WORLD, ierr)
        if (ierr /= MPI_SUCCESS) return
        committed = start
        history(start) = state
        has_state = .true.

        do i = committed + 1, ITERATIONS
            if (rank == victim .and. i == DIE_AT .and. .not. restarted .and. recoveries == 0) &
                call die()
            call MPI_Allreduce(i, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
            if (ierr /= MPI_SUCCESS) return
            if (isum /= nprocs * i) call error('allreduce gave a wrong sum')
            token = rank * 100 + i
            call MPI_Sendrecv(token, 1, MPI_INTEGER, mod(rank + 1, nprocs), i, &
                              got, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), i, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            if (ierr /= MPI_SUCCESS) return
            if (got /= mod(rank + nprocs - 1, nprocs) * 100 + i) call error('wrong token')
            history(i) = history(i - 1) + isum
            committed = i
        end do
        failed = .false.
    end subroutine iterate

    subroutine check_mode(keyval, expected, name)
        integer, intent(in) :: keyval, expected
        character(len=*), intent(in) :: name
        integer(kind=MPI_ADDRESS_KIND) :: value
        logical :: found
        call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, value, found, ierr)
        if (ierr /= MPI_SUCCESS .or. .not. found .or. value /= expected) &
            call error(name//' does not read back as set')
    end subroutine check_mode

    ! SIGKILL (GNU Fortran's kill and getpid), or _exit with "exit"
    subroutine die()
        flush (6)
        if (how == 'exit') call c_exit(3_c_int)
        call kill(getpid(), 9)
    end subroutine die

    subroutine error(what)
        character(len=*), intent(in) :: what
        write (0, '(a,i0,2a)') '[rank ', rank, '] ', what
        errors = errors + 1
    end subroutine error

end program rebuild_manual
