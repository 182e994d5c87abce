/*
 * FT-MPICH: ULFM on the device's fault-tolerance services (mpid_ft.h).
 *
 * The MPIX_ functions of the ULFM specification that MPICH 4.0.2 does not
 * have: MPIX_Comm_get_failed and MPIX_Comm_ack_failed (the interface
 * that replaces failure_ack/get_acked), MPIX_Comm_iagree,
 * MPIX_Comm_ishrink and MPIX_Comm_is_revoked. Declared in <mpi-ext.h>; PMPIX_ names for tools.
 */

#include "mpiimpl.h"
#include "ulfm.h"
#include "mpid_ft.h"
#include "ftmpi_recovery.h"

#pragma weak MPIX_Comm_is_revoked = PMPIX_Comm_is_revoked
#pragma weak MPIX_Comm_get_failed = PMPIX_Comm_get_failed
#pragma weak MPIX_Comm_ack_failed = PMPIX_Comm_ack_failed
#pragma weak MPIX_Comm_iagree = PMPIX_Comm_iagree
#pragma weak MPIX_Comm_ishrink = PMPIX_Comm_ishrink

int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group * failedgrp);
int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);
int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request * request);
int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm * newcomm, MPI_Request * request);

/* The communicator of a ULFM call (revoked ones included, as ULFM
 * allows these calls on them), or an error. */
static int ulfm_comm(MPI_Comm comm, MPIR_Comm ** comm_ptr)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERRTEST_COMM(comm, mpi_errno);
    MPIR_Comm_get_ptr(comm, *comm_ptr);
    MPIR_Comm_valid_ptr(*comm_ptr, mpi_errno, TRUE);
  fn_fail:
    return mpi_errno;
}

/* A local query, valid on a revoked communicator and in every mode. */
int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = ulfm_comm(comm, &comm_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERRTEST_ARGNULL(flag, "flag", mpi_errno);
    *flag = comm_ptr->revoked != 0;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group * failedgrp)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;
    MPIR_Group *group = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = ulfm_comm(comm, &comm_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERRTEST_ARGNULL(failedgrp, "failedgrp", mpi_errno);
    *failedgrp = MPI_GROUP_NULL;
    mpi_errno = MPID_Comm_get_failed(comm_ptr, &group);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_OBJ_PUBLISH_HANDLE(*failedgrp, group->handle);

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = ulfm_comm(comm, &comm_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERRTEST_ARGNULL(num_acked, "num_acked", mpi_errno);
    MPIR_ERRTEST_ARGNEG(num_to_ack, "num_to_ack", mpi_errno);
    mpi_errno = MPID_Comm_ack_failed(comm_ptr, num_to_ack, num_acked);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request * request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = ulfm_comm(comm, &comm_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERRTEST_ARGNULL(flag, "flag", mpi_errno);
    MPIR_ERRTEST_ARGNULL(request, "request", mpi_errno);
    MPIR_Request *req = NULL;
    *request = MPI_REQUEST_NULL;
    mpi_errno = MPIR_ULFM_iagree(comm_ptr, flag, &req);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_OBJ_PUBLISH_HANDLE(*request, req->handle);

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm * newcomm, MPI_Request * request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = ulfm_comm(comm, &comm_ptr);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERRTEST_ARGNULL(newcomm, "newcomm", mpi_errno);
    MPIR_ERRTEST_ARGNULL(request, "request", mpi_errno);
    *newcomm = MPI_COMM_NULL;
    *request = MPI_REQUEST_NULL;
    MPIR_Request *req = NULL;
    mpi_errno = MPIR_ULFM_comm_ishrink(comm_ptr, newcomm, &req);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_OBJ_PUBLISH_HANDLE(*request, req->handle);

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}
