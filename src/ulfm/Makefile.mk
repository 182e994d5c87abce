# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## ULFM's sources, error messages and installed header (included from
## src/ftmpi/Makefile.mk)
##

mpi_core_sources += src/ftmpi/ulfm/ulfm_agree.c \
                    src/ftmpi/ulfm/ulfm_agree_record.c \
                    src/ftmpi/ulfm/ulfm_comm.c \
                    src/ftmpi/ulfm/ulfm_hooks.c \
                    src/ftmpi/ulfm/ulfm_nonblocking.c

errnames_txt_files += src/ftmpi/ulfm/errnames.txt

include_HEADERS += src/ftmpi/ulfm/mpi-ext.h
