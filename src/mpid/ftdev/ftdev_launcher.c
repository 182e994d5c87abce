/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What REBUILD asks of the launcher (Hydra, through PMI-1): its name
 * service, where the coordinator of a rebuild publishes its worker
 * address for the replacements, hex-encoded in chunks a port name holds;
 * the spawn of replacements (the path of MPI_Comm_spawn: this process's
 * own executable and arguments); and the preput key that tells a
 * replacement whom it replaces and where to find the coordinator.
 */

#include "mpidimpl.h"
#include "ftdev_impl.h"
#include "ftdev_launcher.h"
#include "ftdev_key.h"
#include <sodium.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#ifdef USE_PMI1_API
#include "pmi.h"
#endif

#define REJOIN_KEY "ftmpi-rejoin"
/* hex characters per name-service entry (a port name holds 255) */
#define ADDRESS_CHUNK 240

MPIDI_FTDEV_rejoin_key_t MPIDI_FTDEV_rejoin_key;

/* ---- the name service ------------------------------------------------------------ */

#ifdef USE_PMI1_API

static void hex_encode(const uint8_t * in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * len] = 0;
}

static int hex_value(char c)
{
    return c >= 'a' ? c - 'a' + 10 : c - '0';
}

static void hex_decode(const char *in, size_t len, uint8_t * out)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t) (hex_value(in[2 * i]) << 4 | hex_value(in[2 * i + 1]));
}

/* Names in the launcher's name service, which every process group of the
 * job shares: the coordinator's job id (its process group's) and the
 * epoch make them unique. */
static void service_name(char *buf, size_t len, const char *job, uint32_t epoch, int chunk)
{
    snprintf(buf, len, "ftmpi-%s-%u-%d", job, epoch, chunk);
}

/* The coordinator's address, hex-encoded, in chunks a port name holds. */
int MPIDI_FTDEV_publish_address(uint32_t epoch, int publish, int *nchunks)
{
    int mpi_errno = MPI_SUCCESS;
    size_t len = MPIDI_FTDEV_global.ucx.address_len;
    char *hex = MPL_malloc(2 * len + 1, MPL_MEM_ADDRESS);
    char name[256], chunk[ADDRESS_CHUNK + 1];

    MPIR_ERR_CHKANDJUMP(hex == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex_encode((const uint8_t *) MPIDI_FTDEV_global.ucx.address, len, hex);
    *nchunks = (int) ((2 * len + ADDRESS_CHUNK - 1) / ADDRESS_CHUNK);
    for (int c = 0; c < *nchunks; c++) {
        service_name(name, sizeof(name), MPIR_pmi_job_id(), epoch, c);
        if (publish) {
            MPL_strncpy(chunk, hex + (size_t) c * ADDRESS_CHUNK, sizeof(chunk));
            int pmi_errno = PMI_Publish_name(name, chunk);
            MPIR_ERR_CHKANDJUMP1(pmi_errno != PMI_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                                 "**ftdev_rebuild_publish", "**ftdev_rebuild_publish %s", name);
        } else {
            PMI_Unpublish_name(name);
        }
    }
  fn_exit:
    MPL_free(hex);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_lookup_coordinator_address(void **address, size_t *len)
{
    int mpi_errno = MPI_SUCCESS;
    const MPIDI_FTDEV_rejoin_key_t *key = &MPIDI_FTDEV_rejoin_key;
    char *hex = MPL_malloc((size_t) key->chunks * ADDRESS_CHUNK + 1, MPL_MEM_ADDRESS);
    char name[256], chunk[MPI_MAX_PORT_NAME + 1];

    *address = NULL;
    MPIR_ERR_CHKANDJUMP(hex == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex[0] = 0;
    for (int c = 0; c < key->chunks; c++) {
        service_name(name, sizeof(name), key->job, key->epoch, c);
        int pmi_errno = PMI_Lookup_name(name, chunk);
        MPIR_ERR_CHKANDJUMP1(pmi_errno != PMI_SUCCESS, mpi_errno, MPI_ERR_OTHER,
                             "**ftdev_rebuild_lookup", "**ftdev_rebuild_lookup %s", name);
        strcat(hex, chunk);
    }
    *len = strlen(hex) / 2;
    *address = MPL_malloc(*len, MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP(*address == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    hex_decode(hex, *len, *address);
  fn_exit:
    MPL_free(hex);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

#else /* the name service is PMI-1's: with another PMI, REBUILD is refused */

static int no_name_service(void)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_ERR_SET(mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_pmi");
    return mpi_errno;
}

int MPIDI_FTDEV_publish_address(uint32_t epoch, int publish, int *nchunks)
{
    return no_name_service();
}

int MPIDI_FTDEV_lookup_coordinator_address(void **address, size_t *len)
{
    return no_name_service();
}

#endif

/* ---- spawning replacements --------------------------------------------------------- */

/* This process's executable and arguments, for its replacements: the job
 * runs one program (SPMD), as FT-MPI's REBUILD assumes. */
static int own_command(char *exe, size_t exe_len, char **cmdline, char ***argv)
{
    int mpi_errno = MPI_SUCCESS;
    size_t cap = 4096, len = 0;
    ssize_t got;
    int fd = -1, argc = 0;

    *cmdline = NULL;
    *argv = NULL;
    got = readlink("/proc/self/exe", exe, exe_len - 1);
    MPIR_ERR_CHKANDJUMP1(got <= 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_cmd",
                         "**ftdev_rebuild_cmd %s", "/proc/self/exe");
    exe[got] = 0;

    fd = open("/proc/self/cmdline", O_RDONLY);
    MPIR_ERR_CHKANDJUMP1(fd < 0, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_cmd",
                         "**ftdev_rebuild_cmd %s", "/proc/self/cmdline");
    *cmdline = MPL_malloc(cap + 1, MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(*cmdline == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    while ((got = read(fd, *cmdline + len, cap - len)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            char *bigger = MPL_realloc(*cmdline, cap + 1, MPL_MEM_OTHER);
            MPIR_ERR_CHKANDJUMP(bigger == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
            *cmdline = bigger;
        }
    }
    (*cmdline)[len] = 0;
    for (size_t i = 0; i < len; i++)
        argc += (*cmdline)[i] == 0;
    *argv = MPL_calloc(argc + 1, sizeof(char *), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP(*argv == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    /* argv[0] is the executable, which the spawn names apart */
    argc = 0;
    for (size_t i = strlen(*cmdline) + 1; i < len; i += strlen(*cmdline + i) + 1)
        (*argv)[argc++] = *cmdline + i;

  fn_exit:
    if (fd >= 0)
        close(fd);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_FTDEV_spawn_replacements(int k, const int *pids, uint32_t epoch, int nchunks)
{
    int mpi_errno = MPI_SUCCESS;
    char exe[PATH_MAX], rejoin[1024], *cmdline = NULL, **argv = NULL;
    int *errcodes = MPL_malloc(k * sizeof(int), MPL_MEM_OTHER);
    MPIR_Info *where[1] = { NULL };
    size_t used;

    MPIR_ERR_CHKANDJUMP(errcodes == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
    mpi_errno = own_command(exe, sizeof(exe), &cmdline, &argv);
    MPIR_ERR_CHECK(mpi_errno);

    /* no spaces: PMI splits values at them */
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    used = snprintf(rejoin, sizeof(rejoin), "%s,%u,%d,%d,%d,%ld,%s", MPIR_pmi_job_id(), epoch,
                    MPIDI_FTDEV_global.world.num_pids, MPIDI_FTDEV_global.world.my_pid, nchunks,
                    (long) getpid(), host);
    for (int i = 0; i < k && used < sizeof(rejoin); i++)
        used += snprintf(rejoin + used, sizeof(rejoin) - used, ",%d", pids[i]);
    MPIR_ERR_CHKANDJUMP1(used >= sizeof(rejoin) - 1, mpi_errno, MPI_ERR_OTHER,
                         "**ftdev_rebuild_spawn", "**ftdev_rebuild_spawn %s",
                         "too many processes to replace at once");

    char *commands[1] = { exe };
    char **argvs[1] = { argv };
    /* the job's key goes with it where the launcher does not hand it on */
    char key[2 * MPIDI_FTDEV_KEY_BYTES + 1];
    struct MPIR_PMI_KEYVAL preput[2] = { {.key = REJOIN_KEY,.val = rejoin},
    {.key = MPIDI_FTDEV_KEY_PREPUT,.val = key}
    };
    int npreput = 1;
    if (!MPIDI_FTDEV_key_given_by_launcher()) {
        MPIDI_FTDEV_key_hex(key);
        npreput = 2;
    }
    /* a world on one node listens for heartbeats on loopback only: its
     * replacements must run on that node too (under Hydra, which takes
     * the host from the spawn's info, by Slurm's name for the node where
     * Slurm started the proxies; srun alone places them in the job's
     * allocation) */
    char host_name[256] = "";
    if (MPIR_Process.num_nodes == 1 && getenv("MPI_LOCALRANKID") != NULL) {
        const char *slurm_node = getenv("SLURMD_NODENAME");
        if (slurm_node)
            snprintf(host_name, sizeof(host_name), "%s", slurm_node);
        else
            gethostname(host_name, sizeof(host_name) - 1);
        mpi_errno = MPIR_Info_alloc(&where[0]);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_Info_set_impl(where[0], "host", host_name);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = MPIR_pmi_spawn_multiple(1, commands, argvs, &k, where[0] ? where : NULL, npreput,
                                        preput, errcodes);
    sodium_memzero(key, sizeof(key));
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (where[0])
        MPIR_Info_free_impl(where[0]);
    MPL_free(errcodes);
    MPL_free(argv);
    MPL_free(cmdline);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ---- the replacement's key ---------------------------------------------------------- */

/* Copies the field [from, end) of the rejoin key into to[size]; 0 when
 * there is no end or it does not fit. */
static int copy_field(const char *from, const char *end, char *to, size_t size)
{
    if (end == NULL || end - from >= (ptrdiff_t) size)
        return 0;
    memcpy(to, from, end - from);
    to[end - from] = 0;
    return 1;
}

int MPID_FT_take_over_replaced_rank(void)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_FTDEV_rejoin_key_t *key = &MPIDI_FTDEV_rejoin_key;
    char val[1024], *p, *end;
    int size, index = MPIR_Process.rank, pid = -1;

    if (!MPIR_Process.has_parent)
        goto fn_exit;
    /* a process spawned by the application, not by a rebuild */
    if (MPIR_pmi_kvs_get(-1, REJOIN_KEY, val, sizeof(val)) != MPI_SUCCESS)
        goto fn_exit;

    p = strchr(val, ',');
    MPIR_ERR_CHKANDJUMP1(!copy_field(val, p, key->job, sizeof(key->job)), mpi_errno,
                         MPI_ERR_OTHER, "**ftdev_rebuild_preput", "**ftdev_rebuild_preput %s",
                         val);
    key->epoch = (uint32_t) strtoul(p + 1, &p, 10);
    size = (int) strtol(p + (*p == ','), &p, 10);
    key->coordinator = (int) strtol(p + (*p == ','), &p, 10);
    key->chunks = (int) strtol(p + (*p == ','), &p, 10);
    key->ospid = strtol(p + (*p == ','), &p, 10);
    p += *p == ',';
    end = strchr(p, ',');
    MPIR_ERR_CHKANDJUMP1(!copy_field(p, end, key->host, sizeof(key->host)), mpi_errno,
                         MPI_ERR_OTHER, "**ftdev_rebuild_preput", "**ftdev_rebuild_preput %s",
                         val);
    p = end;
    for (int i = 0; i <= index; i++, p = end) {
        pid = (int) strtol(p + (*p == ','), &end, 10);
        MPIR_ERR_CHKANDJUMP1(end == p, mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_preput",
                             "**ftdev_rebuild_preput %s", val);
    }
    MPIR_ERR_CHKANDJUMP1(size <= 0 || pid < 0 || pid >= size || key->chunks <= 0,
                         mpi_errno, MPI_ERR_OTHER, "**ftdev_rebuild_preput",
                         "**ftdev_rebuild_preput %s", val);

    mpi_errno = MPIDI_FTDEV_key_from_launcher();
    MPIR_ERR_CHECK(mpi_errno);
    if (!MPIDI_FTDEV_key_known()) {
        char hex[2 * MPIDI_FTDEV_KEY_BYTES + 1];
        mpi_errno = MPIR_pmi_kvs_get(-1, MPIDI_FTDEV_KEY_PREPUT, hex, sizeof(hex));
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIDI_FTDEV_key_from_hex(hex, "the rebuild's preput key");
        sodium_memzero(hex, sizeof(hex));
        MPIR_ERR_CHECK(mpi_errno);
    }

    mpi_errno = MPIR_pmi_take_over_rank(pid, size, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_FTDEV_global.rebuild.is_replacement = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
