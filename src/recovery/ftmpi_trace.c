/*
 * FT-MPICH: the FT-MPI state machine (recovery layer).
 *
 * Trace points of the fault-tolerance protocols: failures as they are
 * learned, agreement rounds, commit votes and decisions, rebuild messages,
 * epoch switches. Off by default; MPIR_CVAR_FTMPI_TRACE=1 prints one line
 * per step on stderr, with the process id and the wall-clock time (seconds
 * within the current 1000 s, so that lines of processes on one node can be
 * put in order).
 */

#include "mpiimpl.h"
#include "ftmpi_recovery.h"
#include <stdarg.h>
#include <sys/time.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name : FT_MPI
      description : FT-MPICH's fault-tolerance protocols

cvars:
    - name        : MPIR_CVAR_FTMPI_TRACE
      category    : FT_MPI
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        1 prints a line on stderr for each step of the fault-tolerance
        protocols (failures learned, agreement rounds, commit votes and
        decisions, rebuild messages, epoch switches), with the process id
        (its first MPI_COMM_WORLD rank) and the wall-clock time.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

void MPIR_FTMPI_trace(const char *fmt, ...)
{
    struct timeval now;
    char line[512];
    va_list ap;

    gettimeofday(&now, NULL);
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[ftmpi %d %03ld.%06ld] %s\n", MPIR_Process.rank, (long) (now.tv_sec % 1000),
            (long) now.tv_usec, line);
    fflush(stderr);
}
