# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## The FT-MPI recovery layer (included from src/ftmpi/Makefile.mk)
##

mpi_core_sources += src/ftmpi/recovery/ftmpi_modes.c \
                    src/ftmpi/recovery/ftmpi_agree.c \
                    src/ftmpi/recovery/ftmpi_recover.c \
                    src/ftmpi/recovery/ftmpi_failure.c \
                    src/ftmpi/recovery/ftmpi_hand_down.c

errnames_txt_files += src/ftmpi/recovery/errnames.txt

include_HEADERS += src/ftmpi/recovery/ft-mpi-modes.h
