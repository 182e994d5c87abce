/*
 * FT-MPICH: the FT-MPI state machine (recovery layer).
 *
 * What the transport (ftdev) tells the recovery layer, and what it asks it.
 */

#ifndef FTMPI_RECOVERY_H_INCLUDED
#define FTMPI_RECOVERY_H_INCLUDED

/* A transport source (endpoint error, launcher notice) reports that the
 * process with this process id (original MPI_COMM_WORLD rank) is gone. */
void MPIR_FTMPI_peer_failed(int pid, const char *reason);

/* MPI_Finalize has begun: peers leaving from now on are departures, not
 * failures. */
void MPIR_FTMPI_begin_finalize(void);

#endif /* FTMPI_RECOVERY_H_INCLUDED */
