C     Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
C     FT-MPI constants through mpif.h (Fortran 77), without a failure:
C     the predefined attributes read back as the environment set the
C     modes (run with FTMPI_COMM_MODE=shrink FTMPI_RECOVERY_MODE=manual),
C     FT_MPI_CHECK_RECOVER makes MPI_COMM_DUP hand MPI_COMM_WORLD back,
C     and the ULFM error classes are distinct classes of their own.
      PROGRAM F77CONSTANTS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, ERRS, TOTAL, VAL, NEWC, CLASS, I
      INTEGER KEYS(4), WANT(4)
      LOGICAL FLAG
      DATA KEYS /FTMPI_COMM_MODE, FTMPI_RECOVERY_MODE, FTMPI_MSG_MODE,
     &           FTMPI_NUM_FAILED_PROCS/
      DATA WANT /FTMPI_COMM_MODE_SHRINK, FTMPI_RECOVERY_MODE_MANUAL,
     &           FTMPI_MSG_MODE_RESET, 0/
      ERRS = 0
      CALL MPI_INIT(IERR)
      IF (IERR .NE. MPI_SUCCESS) ERRS = ERRS + 1
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)

      DO 10 I = 1, 4
         CALL MPI_ATTR_GET(MPI_COMM_WORLD, KEYS(I), VAL, FLAG, IERR)
         IF (IERR .NE. MPI_SUCCESS .OR. .NOT. FLAG .OR.
     &       VAL .NE. WANT(I)) THEN
            PRINT *, 'attribute', I, 'reads', VAL, 'expected', WANT(I)
            ERRS = ERRS + 1
         END IF
 10   CONTINUE

      NEWC = FT_MPI_CHECK_RECOVER
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, NEWC, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. NEWC .NE. MPI_COMM_WORLD) THEN
         PRINT *, 'MPI_COMM_DUP with FT_MPI_CHECK_RECOVER gave', NEWC
         ERRS = ERRS + 1
      END IF

      CALL MPI_ERROR_CLASS(MPIX_ERR_PROC_FAILED, CLASS, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. CLASS .NE. MPIX_ERR_PROC_FAILED
     &    .OR. MPIX_ERR_PROC_FAILED .EQ. MPIX_ERR_REVOKED) THEN
         PRINT *, 'MPIX_ERR_PROC_FAILED is not an error class'
         ERRS = ERRS + 1
      END IF

      CALL MPI_ALLREDUCE(ERRS, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         IF (TOTAL .EQ. 0) THEN
            PRINT '(A)', ' No Errors'
         ELSE
            PRINT '(A,I0,A)', ' Found ', TOTAL, ' errors'
         END IF
      END IF
      CALL MPI_FINALIZE(IERR)
      END
