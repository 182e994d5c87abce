/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * The job's key: a secret of the job's processes, from which the subkeys
 * of its heartbeat datagrams and control messages are derived
 * (ftdev_wire.c), so that nobody outside the job can forge either.
 * Hydra's proxies hand it to each process in FTMPI_JOB_KEY (mpiexec draws
 * it for the job, spawned groups and REBUILD's replacements included).
 * Where the launcher gives none (srun --mpi=pmi2), the first process of a
 * world draws one and hands it to the others with its business card
 * through the launcher's key-value space, and a REBUILD coordinator hands
 * it to its replacements in their preput key: both travel only through
 * the launcher's own channels, as the processes' addresses do.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_key.h"
#include <sodium.h>

MPIDI_FTDEV_wire_keys_t MPIDI_FTDEV_keys;
static uint8_t job_key[MPIDI_FTDEV_KEY_BYTES];
static int known, from_launcher, launcher_asked;

static int use_key(void)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP1(MPIDI_FTDEV_wire_derive(job_key, &MPIDI_FTDEV_keys) != 0, mpi_errno,
                         MPI_ERR_OTHER, "**ftdev_jobkey", "**ftdev_jobkey %s",
                         "libsodium could not derive its subkeys");
    known = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_key_from_hex(const char *hex, const char *where)
{
    int mpi_errno = MPI_SUCCESS;
    size_t got = 0;
    char why[128];

    if (strlen(hex) != 2 * MPIDI_FTDEV_KEY_BYTES ||
        sodium_hex2bin(job_key, sizeof(job_key), hex, strlen(hex), NULL, &got, NULL) != 0 ||
        got != sizeof(job_key)) {
        snprintf(why, sizeof(why), "%s is not %d hexadecimal digits", where,
                 2 * MPIDI_FTDEV_KEY_BYTES);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**ftdev_jobkey", "**ftdev_jobkey %s",
                             why);
    }
    mpi_errno = use_key();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_key_from_launcher(void)
{
    int mpi_errno = MPI_SUCCESS;
    const char *hex;

    if (launcher_asked)
        goto fn_exit;
    launcher_asked = 1;
    hex = getenv(MPIDI_FTDEV_KEY_ENV);
    if (hex == NULL)
        goto fn_exit;
    mpi_errno = MPIDI_FTDEV_key_from_hex(hex, MPIDI_FTDEV_KEY_ENV);
    MPIR_ERR_CHECK(mpi_errno);
    from_launcher = 1;
    /* programs the application starts are not of the job */
    unsetenv(MPIDI_FTDEV_KEY_ENV);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_key_known(void)
{
    return known;
}

int MPIDI_FTDEV_key_given_by_launcher(void)
{
    return from_launcher;
}

int MPIDI_FTDEV_key_draw(void)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP1(sodium_init() < 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_jobkey",
                         "**ftdev_jobkey %s", "libsodium could not start");
    randombytes_buf(job_key, sizeof(job_key));
    mpi_errno = use_key();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void MPIDI_FTDEV_key_hex(char *hex)
{
    sodium_bin2hex(hex, 2 * MPIDI_FTDEV_KEY_BYTES + 1, job_key, sizeof(job_key));
}
