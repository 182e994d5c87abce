/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What the files of the collectives under failure share: how a call is
 * described, and each part's entry points. MPICH's collective dispatchers
 * hand a collective to this layer when MPID_COLL_DIVERT(comm) says so
 * (mpich-patches/coll-device-divert.patch): over a communicator with
 * blanks (BLANK mode), where the collective runs MPICH's own algorithms on
 * the communicator of the live ranks with translated arguments
 * (ftmpi_coll_blank.c), and in ATOMIC collective mode, where it runs into
 * a temporary buffer and a fault-tolerant commit decides whether every
 * survivor copies its result out (ftmpi_coll_atomic.c, ftmpi_commit*.c). A
 * call is described once (MPIR_FTMPI_coll_t) and run in any of its three
 * forms (ftmpi_coll_run.c).
 */

#ifndef FTMPI_COLL_H_INCLUDED
#define FTMPI_COLL_H_INCLUDED


enum {
    MPIR_FTMPI_BARRIER, MPIR_FTMPI_BCAST, MPIR_FTMPI_GATHER, MPIR_FTMPI_GATHERV,
    MPIR_FTMPI_SCATTER, MPIR_FTMPI_SCATTERV, MPIR_FTMPI_ALLGATHER, MPIR_FTMPI_ALLGATHERV,
    MPIR_FTMPI_ALLTOALL, MPIR_FTMPI_ALLTOALLV, MPIR_FTMPI_ALLTOALLW, MPIR_FTMPI_REDUCE,
    MPIR_FTMPI_ALLREDUCE, MPIR_FTMPI_REDUCE_SCATTER, MPIR_FTMPI_REDUCE_SCATTER_BLOCK,
    MPIR_FTMPI_SCAN, MPIR_FTMPI_EXSCAN
};

/* One collective call. Reductions keep their count and datatype in
 * recvcount and recvtype; bcast its buffer, count and datatype in recvbuf,
 * recvcount and recvtype; scatterv and gatherv their displacements in
 * sdispls and rdispls. */
typedef struct {
    int kind;
    const void *sendbuf;
    MPI_Aint sendcount;
    const MPI_Aint *sendcounts;
    const MPI_Aint *sdispls;
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    MPI_Aint recvcount;
    const MPI_Aint *recvcounts;
    const MPI_Aint *rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
    MPI_Op op;
    int root;
    struct MPIR_Comm *comm;
} MPIR_FTMPI_coll_t;

/* How a call was made: blocking, nonblocking or persistent, with the
 * arguments of its form. */
typedef struct {
    enum { MPIR_FTMPI_BLOCKING, MPIR_FTMPI_NONBLOCKING, MPIR_FTMPI_PERSISTENT } form;
    MPIR_Errflag_t *errflag;
    MPIR_Info *info;
    MPIR_Request **request;
} MPIR_FTMPI_form_t;

/* Whether a collective over comm is diverted here (the device asks only
 * while blanks exist or in ATOMIC mode). */
int MPIR_FTMPI_coll_diverts(struct MPIR_Comm *comm);

/* Runs a diverted collective. */
int MPIR_FTMPI_coll(const MPIR_FTMPI_coll_t * c, const MPIR_FTMPI_form_t * form);

/* Runs a collective with MPICH's own dispatchers, in the given form, with
 * diversion off. `scratch`, when not NULL, is freed once the operation no
 * longer needs it (at once for a blocking call). */
int MPIR_FTMPI_coll_run(const MPIR_FTMPI_coll_t * c, const MPIR_FTMPI_form_t * form,
                        void *scratch);

/* ---- blanks (ftmpi_coll_blank.c) ---------------------------------------- */

/* What the layer keeps in each communicator, made at its first collective
 * and held in the device's slot for it (MPID_FT_comm_coll_slot). */
typedef struct MPIR_FTMPI_coll_comm {
    /* The live ranks of a communicator with blanks, as of recovery epoch
     * `epoch` (valid when `known`): how many, which (in rank order), each
     * rank's rank among them (-1 for a blank), and the communicator of
     * just those, made at the first collective that needs it. */
    int known;
    uint32_t epoch;
    int nlive;
    int *live_ranks;
    int *live_rank_of;
    struct MPIR_Comm *live;
    /* ATOMIC: in epoch seq_epoch, the instance number the members agreed
     * on for this communicator (valid when instance_known) and the
     * collectives started on it */
    uint32_t seq_epoch;
    int instance_known;
    uint32_t instance;
    uint32_t seq;
} MPIR_FTMPI_coll_comm_t;

/* comm's state; NULL when there is no memory for it. */
MPIR_FTMPI_coll_comm_t *MPIR_FTMPI_coll_state(struct MPIR_Comm *comm);

/* The live-rank view of comm for the current epoch. */
MPIR_FTMPI_coll_comm_t *MPIR_FTMPI_live_view(struct MPIR_Comm *comm);

/* Rewrites c, a collective over a communicator with blanks, as the same
 * collective over the communicator of its live ranks. Sets *skip when
 * there is nothing to do (a blank root); *scratch receives memory the
 * rewritten call refers to. */
int MPIR_FTMPI_blank_translate(MPIR_FTMPI_coll_t * c, int *skip, void **scratch);

/* The communicator is being freed. */
void MPIR_FTMPI_coll_comm_free(struct MPIR_Comm *comm);

/* ---- ATOMIC (ftmpi_coll_atomic.c, ftmpi_commit*.c) ----------------------- */

/* Runs c (blocking) into temporary buffers and copies the results out
 * only when every survivor's part succeeded. */
int MPIR_FTMPI_atomic(const MPIR_FTMPI_coll_t * c, MPIR_Errflag_t * errflag);

/* Starts an ATOMIC collective with nonblocking form: the collective runs
 * into a temporary buffer, and a generalized request drives the commit and
 * the copy-out from MPI_Wait/MPI_Test. Takes scratch over. */
int MPIR_FTMPI_atomic_start(const MPIR_FTMPI_coll_t * c, void *scratch,
                            MPIR_Request ** request);

/* A collective after which every member holds the same output (a
 * barrier, allreduce, bcast, allgather) of at most
 * MPIR_FTMPI_SHARED_OUTPUT_MAX bytes packed commits without votes: a
 * member whose part succeeded decides COMMIT at once and keeps its output,
 * which a member whose part failed fetches in the termination protocol. */
#define MPIR_FTMPI_SHARED_OUTPUT_MAX 4096
typedef struct {
    size_t len;                 /* packed bytes, the same at every member */
    void *packed;               /* this member's output when its part succeeded; the
                                 * fetched one after a COMMIT when it failed */
} MPIR_FTMPI_shared_output_t;

/* glibc copies from about 2 KiB up with `rep movsb`, which runs several
 * times slower on AMD Zen when source and destination sit at different
 * offsets within a cache line (4 KiB: 50 against 170-200 ns here; an ATOMIC
 * 4 KiB allreduce spent a third of its time in one such copy). The buffers
 * an atomic collective copies between therefore start at the same offset
 * as the buffer they are copied from or to: MPIR_FTMPI_co_aligned(base,
 * like) is the first address from base with like's offset; base must have
 * MPIR_FTMPI_COPY_ALIGN - 1 spare bytes. */
#define MPIR_FTMPI_COPY_ALIGN 64
static inline void *MPIR_FTMPI_co_aligned(void *base, const void *like)
{
    return (char *) base + (((uintptr_t) like - (uintptr_t) base) & (MPIR_FTMPI_COPY_ALIGN - 1));
}

/* The commit of the seq-th atomic collective over comm, whose members
 * agreed on `instance` for it and which is this process's `number`-th (N
 * of its test points, mpid_ft.h): `yes` is this process's part, `shared`
 * NULL or its shared output. Decides *commit = 1 (commit) or 0 (abort),
 * the same on every survivor: at once (MPIR_FTMPI_commit), or step by
 * step (_start, then _test until it sets *done; the vote is freed then, or
 * at an error).
 * An error (out of memory) leaves the outcome unknown. */
typedef struct MPIR_FTMPI_vote MPIR_FTMPI_vote_t;
int MPIR_FTMPI_commit(struct MPIR_Comm *comm, uint32_t instance, uint32_t seq, unsigned number,
                      int yes, MPIR_FTMPI_shared_output_t * shared, int *commit);
int MPIR_FTMPI_commit_start(struct MPIR_Comm *comm, uint32_t instance, uint32_t seq,
                            unsigned number, int yes, MPIR_FTMPI_shared_output_t * shared,
                            MPIR_FTMPI_vote_t ** vote);
int MPIR_FTMPI_commit_test(MPIR_FTMPI_vote_t * v, int *done, int *commit);
/* A blocking collective of this process will run the commit of the
 * seq-th atomic collective once its part is done (_expect), or will not
 * after all (_unexpect, after an error): while it is expected, a member
 * that asks this process alone in the termination protocol waits for its
 * decision instead of asking everyone. */
void MPIR_FTMPI_commit_expect(struct MPIR_Comm *comm, uint32_t instance, uint32_t seq);
void MPIR_FTMPI_commit_unexpect(struct MPIR_Comm *comm, uint32_t instance, uint32_t seq);

/* ---- the entry points MPICH's dispatchers call -------------------------- */

#define MPIR_FTMPI_PARAMS(...) __VA_ARGS__

/* X(Name, IName, params, fields): each collective, with the parameters of
 * its blocking form (less errflag) and how they fill MPIR_FTMPI_coll_t. */
#define MPIR_FTMPI_COLLS(X)                                                              \
    X(Barrier, Ibarrier, (MPIR_Comm * comm_ptr), (.kind = MPIR_FTMPI_BARRIER))             \
    X(Bcast, Ibcast, (void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,       \
                      MPIR_Comm * comm_ptr),                                             \
      (.kind = MPIR_FTMPI_BCAST, .recvbuf = buffer, .recvcount = count,                   \
       .recvtype = datatype, .root = root))                                              \
    X(Gather, Igather, (const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,    \
                        void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root, \
                        MPIR_Comm * comm_ptr),                                           \
      (.kind = MPIR_FTMPI_GATHER, .sendbuf = sendbuf, .sendcount = sendcount,             \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,                 \
       .recvtype = recvtype, .root = root))                                              \
    X(Gatherv, Igatherv, (const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,  \
                          void *recvbuf, const MPI_Aint * recvcounts,                    \
                          const MPI_Aint * displs, MPI_Datatype recvtype, int root,      \
                          MPIR_Comm * comm_ptr),                                         \
      (.kind = MPIR_FTMPI_GATHERV, .sendbuf = sendbuf, .sendcount = sendcount,            \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,               \
       .rdispls = displs, .recvtype = recvtype, .root = root))                           \
    X(Scatter, Iscatter, (const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,  \
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,      \
                          int root, MPIR_Comm * comm_ptr),                               \
      (.kind = MPIR_FTMPI_SCATTER, .sendbuf = sendbuf, .sendcount = sendcount,            \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,                 \
       .recvtype = recvtype, .root = root))                                              \
    X(Scatterv, Iscatterv, (const void *sendbuf, const MPI_Aint * sendcounts,              \
                            const MPI_Aint * displs, MPI_Datatype sendtype, void *recvbuf, \
                            MPI_Aint recvcount, MPI_Datatype recvtype, int root,         \
                            MPIR_Comm * comm_ptr),                                       \
      (.kind = MPIR_FTMPI_SCATTERV, .sendbuf = sendbuf, .sendcounts = sendcounts,         \
       .sdispls = displs, .sendtype = sendtype, .recvbuf = recvbuf,                      \
       .recvcount = recvcount, .recvtype = recvtype, .root = root))                      \
    X(Allgather, Iallgather, (const void *sendbuf, MPI_Aint sendcount,                     \
                              MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,  \
                              MPI_Datatype recvtype, MPIR_Comm * comm_ptr),              \
      (.kind = MPIR_FTMPI_ALLGATHER, .sendbuf = sendbuf, .sendcount = sendcount,          \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,                 \
       .recvtype = recvtype))                                                            \
    X(Allgatherv, Iallgatherv, (const void *sendbuf, MPI_Aint sendcount,                   \
                                MPI_Datatype sendtype, void *recvbuf,                    \
                                const MPI_Aint * recvcounts, const MPI_Aint * displs,    \
                                MPI_Datatype recvtype, MPIR_Comm * comm_ptr),            \
      (.kind = MPIR_FTMPI_ALLGATHERV, .sendbuf = sendbuf, .sendcount = sendcount,         \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,               \
       .rdispls = displs, .recvtype = recvtype))                                         \
    X(Alltoall, Ialltoall, (const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, \
                            void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,    \
                            MPIR_Comm * comm_ptr),                                       \
      (.kind = MPIR_FTMPI_ALLTOALL, .sendbuf = sendbuf, .sendcount = sendcount,           \
       .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,                 \
       .recvtype = recvtype))                                                            \
    X(Alltoallv, Ialltoallv, (const void *sendbuf, const MPI_Aint * sendcounts,            \
                              const MPI_Aint * sdispls, MPI_Datatype sendtype,           \
                              void *recvbuf, const MPI_Aint * recvcounts,                \
                              const MPI_Aint * rdispls, MPI_Datatype recvtype,           \
                              MPIR_Comm * comm_ptr),                                     \
      (.kind = MPIR_FTMPI_ALLTOALLV, .sendbuf = sendbuf, .sendcounts = sendcounts,        \
       .sdispls = sdispls, .sendtype = sendtype, .recvbuf = recvbuf,                     \
       .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype))              \
    X(Alltoallw, Ialltoallw, (const void *sendbuf, const MPI_Aint * sendcounts,            \
                              const MPI_Aint * sdispls, const MPI_Datatype * sendtypes,  \
                              void *recvbuf, const MPI_Aint * recvcounts,                \
                              const MPI_Aint * rdispls, const MPI_Datatype * recvtypes,  \
                              MPIR_Comm * comm_ptr),                                     \
      (.kind = MPIR_FTMPI_ALLTOALLW, .sendbuf = sendbuf, .sendcounts = sendcounts,        \
       .sdispls = sdispls, .sendtypes = sendtypes, .recvbuf = recvbuf,                   \
       .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes))            \
    X(Reduce, Ireduce, (const void *sendbuf, void *recvbuf, MPI_Aint count,                \
                        MPI_Datatype datatype, MPI_Op op, int root, MPIR_Comm * comm_ptr), \
      (.kind = MPIR_FTMPI_REDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
       .recvcount = count, .recvtype = datatype, .op = op, .root = root))                \
    X(Allreduce, Iallreduce, (const void *sendbuf, void *recvbuf, MPI_Aint count,          \
                              MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr),   \
      (.kind = MPIR_FTMPI_ALLREDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf,              \
       .recvcount = count, .recvtype = datatype, .op = op))                              \
    X(Reduce_scatter, Ireduce_scatter, (const void *sendbuf, void *recvbuf,                \
                                        const MPI_Aint * recvcounts, MPI_Datatype datatype, \
                                        MPI_Op op, MPIR_Comm * comm_ptr),                \
      (.kind = MPIR_FTMPI_REDUCE_SCATTER, .sendbuf = sendbuf, .recvbuf = recvbuf,         \
       .recvcounts = recvcounts, .recvtype = datatype, .op = op))                        \
    X(Reduce_scatter_block, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf,    \
                                                    MPI_Aint recvcount,                  \
                                                    MPI_Datatype datatype, MPI_Op op,    \
                                                    MPIR_Comm * comm_ptr),               \
      (.kind = MPIR_FTMPI_REDUCE_SCATTER_BLOCK, .sendbuf = sendbuf, .recvbuf = recvbuf,   \
       .recvcount = recvcount, .recvtype = datatype, .op = op))                          \
    X(Scan, Iscan, (const void *sendbuf, void *recvbuf, MPI_Aint count,                    \
                    MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr),             \
      (.kind = MPIR_FTMPI_SCAN, .sendbuf = sendbuf, .recvbuf = recvbuf,                   \
       .recvcount = count, .recvtype = datatype, .op = op))                              \
    X(Exscan, Iexscan, (const void *sendbuf, void *recvbuf, MPI_Aint count,                \
                        MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr),         \
      (.kind = MPIR_FTMPI_EXSCAN, .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
       .recvcount = count, .recvtype = datatype, .op = op))

#define MPIR_FTMPI_DECLARE_ENTRIES(Name, IName, params, fields)                          \
    int MPID_##Name##_diverted(MPIR_FTMPI_PARAMS params, MPIR_Errflag_t * errflag);      \
    int MPID_##IName##_diverted(MPIR_FTMPI_PARAMS params, MPIR_Request ** request);      \
    int MPID_##Name##_init_diverted(MPIR_FTMPI_PARAMS params, MPIR_Info * info_ptr,       \
                                    MPIR_Request ** request);

MPIR_FTMPI_COLLS(MPIR_FTMPI_DECLARE_ENTRIES)

#endif /* FTMPI_COLL_H_INCLUDED */
