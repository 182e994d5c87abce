/*
 * FT-MPICH: ch4 netmod "ftdev".
 *
 * ULFM state of the device (ftdev_ulfm.c): acknowledged failures, the
 * wildcard-receive rule, revocation. The MPID_ functions ch4 forwards
 * here are declared by ch4 (ch4-ulfm-device-functions.patch).
 */

#ifndef FTDEV_ULFM_H_INCLUDED
#define FTDEV_ULFM_H_INCLUDED

int MPIDI_FTDEV_comm_failure_ack(MPIR_Comm * comm);
int MPIDI_FTDEV_comm_failure_get_acked(MPIR_Comm * comm, MPIR_Group ** group);
int MPIDI_FTDEV_comm_get_failed(MPIR_Comm * comm, MPIR_Group ** group);
int MPIDI_FTDEV_comm_revoke(MPIR_Comm * comm, int is_remote);
int MPIDI_FTDEV_comm_AS_enabled(MPIR_Comm * comm);
int MPIDI_FTDEV_request_is_anysource(MPIR_Request * req);
int MPIDI_FTDEV_request_is_pending_failure(MPIR_Request * req);

/* A new communicator whose context id was revoked before it existed here
 * is revoked at once. */
void MPIDI_FTDEV_revoke_if_early(MPIR_Comm * comm);
/* Whether a communicator with this context id was freed here and none
 * uses it again yet (ftdev_comm.c). */
int MPIDI_FTDEV_context_was_freed(uint32_t context_id);
/* The error of an operation on a revoked communicator. */
int MPIDI_FTDEV_revoked_error(void);

/* Fails the tracked requests of comm with err (ftdev_failure.c). */
void MPIDI_FTDEV_fail_requests_of_comm(MPIR_Comm * comm, int err);

#endif /* FTDEV_ULFM_H_INCLUDED */
