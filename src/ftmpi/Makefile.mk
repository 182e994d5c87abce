# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## The FT-MPI layers above the device: recovery, collectives under
## failure, ULFM. Built when configure turns fault tolerance on.
##

if BUILD_FTMPI

# MPICH's own sources include the layers' public headers by name
AM_CPPFLAGS += -I$(top_srcdir)/src/ftmpi/recovery -I$(top_srcdir)/src/ftmpi/coll \
               -I$(top_srcdir)/src/ftmpi/ulfm

include $(top_srcdir)/src/ftmpi/recovery/Makefile.mk
include $(top_srcdir)/src/ftmpi/coll/Makefile.mk
include $(top_srcdir)/src/ftmpi/ulfm/Makefile.mk

endif
