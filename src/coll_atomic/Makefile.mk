# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## Collectives under failure (included from src/ftmpi/Makefile.mk)
##

mpi_core_sources += src/ftmpi/coll/ftmpi_coll_run.c \
                    src/ftmpi/coll/ftmpi_coll_blank.c \
                    src/ftmpi/coll/ftmpi_coll_atomic.c \
                    src/ftmpi/coll/ftmpi_coll_output.c \
                    src/ftmpi/coll/ftmpi_commit.c \
                    src/ftmpi/coll/ftmpi_commit_record.c \
                    src/ftmpi/coll/ftmpi_commit_channel.c \
                    src/ftmpi/coll/ftmpi_commit_sweep.c
