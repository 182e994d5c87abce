/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * FT-MPICH test: the protocol counters, read as MPI_T performance
 * variables (ftdev_msgs_sent, _received, ftdev_bytes_*, ftdev_rounds, one
 * entry per protocol, in the order the description lists).
 *
 *   FTMPI_COMM_MODE=shrink mpiexec -n 4 ./ft_counters VICTIM kill|exit
 *
 * Failure-free, nothing but the heartbeat is counted. Then the victim dies
 * (SIGKILL or _exit) while the others wait in a receive; they recover
 * (MANUAL: MPI_Comm_dup of MPI_COMM_WORLD). Afterwards every survivor has
 * sent and received recovery-agreement messages, with at least one round,
 * and heard failure notices; bytes go with the messages.
 */

#include "ftmpi_test.h"

enum { SENT, RECEIVED, BYTES_SENT, BYTES_RECEIVED, ROUNDS, NUM_VARS };
static const char *var_name[NUM_VARS] = {
    "ftdev_msgs_sent", "ftdev_msgs_received", "ftdev_bytes_sent", "ftdev_bytes_received",
    "ftdev_rounds"
};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle[NUM_VARS];
static int count[NUM_VARS];
static char protocols[1024];    /* the description of the first variable */

static void open_counters(void)
{
    int provided, num;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    CHECK_MPI(MPI_T_pvar_get_num(&num));
    for (int v = 0; v < NUM_VARS; v++) {
        int index = -1;
        for (int i = 0; i < num && index < 0; i++) {
            char name[256], desc[1024];
            int name_len = sizeof(name), desc_len = sizeof(desc), verbosity, var_class, bind,
                readonly, continuous, atomic;
            MPI_Datatype dtype;
            MPI_T_enum enumtype;
            MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dtype, &enumtype,
                                desc, &desc_len, &bind, &readonly, &continuous, &atomic);
            if (strcmp(name, var_name[v]) == 0) {
                index = i;
                CHECK(dtype == MPI_UNSIGNED_LONG_LONG, "%s is not unsigned long long", name);
                CHECK(continuous && readonly, "%s is not a continuous read-only variable", name);
                if (v == 0)
                    snprintf(protocols, sizeof(protocols), "%s", desc);
            }
        }
        CHECK(index >= 0, "no performance variable %s", var_name[v]);
        if (index >= 0)
            CHECK_MPI(MPI_T_pvar_handle_alloc(session, index, NULL, &handle[v], &count[v]));
    }
}

/* The position of protocol `name` in the variables, from the description
 * ("..., per protocol: notify finalize ..."). */
static int protocol_index(const char *name)
{
    const char *list = strstr(protocols, "per protocol:");
    int i = 0, found = -1;
    if (!list)
        return -1;
    char *copy = strdup(list + strlen("per protocol:")), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w && found < 0; w = strtok_r(NULL, " ", &save), i++)
        if (strcmp(w, name) == 0)
            found = i;
    free(copy);
    return found;
}

static unsigned long long read_counter(int var, const char *protocol)
{
    unsigned long long values[64] = { 0 };
    int i = protocol_index(protocol);
    CHECK(i >= 0 && i < count[var] && count[var] <= 64, "no protocol %s in %s (%d entries)",
          protocol, var_name[var], count[var]);
    if (i < 0 || i >= count[var] || count[var] > 64)
        return 0;
    CHECK_MPI(MPI_T_pvar_read(session, handle[var], values));
    return values[i];
}

int main(int argc, char **argv)
{
    int rank, buf, victim = argc > 1 ? atoi(argv[1]) : 2;
    const char *how = argc > 2 ? argv[2] : "kill";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    open_counters();
    MPI_Barrier(MPI_COMM_WORLD);
    usleep(300 * 1000);
    for (int v = 0; v < NUM_VARS; v++)
        CHECK(read_counter(v, "notify") == 0 && read_counter(v, "recovery") == 0,
              "%s counts a protocol before any failure", var_name[v]);
    CHECK(read_counter(SENT, "heartbeat") > 0, "no heartbeat counted in 300 ms");
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == victim) {
        usleep(50 * 1000);
        ft_die(how);
    }
    CHECK(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS, "a receive nobody sends to succeeded");
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_free(&dup);

    unsigned long long sent = read_counter(SENT, "recovery");
    unsigned long long received = read_counter(RECEIVED, "recovery");
    CHECK(sent > 0 && received > 0, "recovery agreement: sent %llu, received %llu", sent,
          received);
    CHECK(read_counter(BYTES_SENT, "recovery") > sent * 8,
          "recovery agreement: %llu bytes in %llu messages", read_counter(BYTES_SENT, "recovery"),
          sent);
    CHECK(read_counter(BYTES_RECEIVED, "recovery") > received * 8,
          "recovery agreement: %llu bytes received in %llu messages",
          read_counter(BYTES_RECEIVED, "recovery"), received);
    CHECK(read_counter(ROUNDS, "recovery") >= 1, "recovery agreement without a round");
    CHECK(read_counter(RECEIVED, "notify") > 0, "no failure notice received");
    CHECK(read_counter(SENT, "commit") == 0, "commit messages in NONATOMIC mode");

    for (int v = 0; v < NUM_VARS; v++)
        MPI_T_pvar_handle_free(session, &handle[v]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    return ft_report();
}
