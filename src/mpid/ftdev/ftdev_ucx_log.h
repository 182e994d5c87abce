/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * UCX's error lines about peers that just died (ftdev_ucx_log.c): held
 * back from MPI_Init in fault-tolerant jobs, and printed at MPI_Finalize
 * only if no failure explains them.
 */

#ifndef FTDEV_UCX_LOG_H_INCLUDED
#define FTDEV_UCX_LOG_H_INCLUDED

void MPIDI_FTDEV_ucx_log_hold_back(void);
void MPIDI_FTDEV_ucx_log_release(void);

#endif /* FTDEV_UCX_LOG_H_INCLUDED */
