# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## FT-MPICH: collectives under failure (included from ftdev's Makefile.mk)
##

mpi_core_sources += src/ftmpi/coll_atomic/ftmpi_coll_run.c \
                    src/ftmpi/coll_atomic/ftmpi_coll_blank.c \
                    src/ftmpi/coll_atomic/ftmpi_coll_atomic.c \
                    src/ftmpi/coll_atomic/ftmpi_commit.c
