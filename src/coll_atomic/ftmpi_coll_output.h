/*
 * Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
 *
 * What an atomic collective's call writes at this process
 * (ftmpi_coll_output.c): the ATOMIC mode (ftmpi_coll_atomic.c) runs the
 * collective into a temporary buffer laid out like the receive buffer
 * and, on commit, copies exactly these pieces into the user's.
 */

#ifndef FTMPI_COLL_OUTPUT_H_INCLUDED
#define FTMPI_COLL_OUTPUT_H_INCLUDED

/* One part of this process's output: count elements of dt at byte offset
 * `offset` from the receive buffer. */
typedef struct {
    MPI_Aint offset;
    MPI_Aint count;
    MPI_Datatype dt;
} piece_t;

typedef struct {
    int n;
    piece_t *pieces;
    piece_t one;
    /* the pieces hold this process's input, which the algorithm may also
     * write into (a broadcast's root): they are copied in first, and their
     * content needs no copy out */
    int input;
} output_t;

/* What this process's part of c writes, and c rewritten so that an
 * MPI_IN_PLACE input comes from the user's receive buffer as a send
 * buffer (the receive buffer is about to be replaced by a temporary). */
int MPII_FTMPI_output_describe(MPIR_FTMPI_coll_t * c, output_t * out);

/* The bytes the pieces span, relative to the receive buffer. */
void MPII_FTMPI_output_span(const output_t * out, MPI_Aint * lo, MPI_Aint * hi);

/* Copies the pieces from one buffer laid out like the receive buffer to
 * another. */
int MPII_FTMPI_output_copy(const output_t * out, const char *from, char *to);

#endif /* FTMPI_COLL_OUTPUT_H_INCLUDED */
