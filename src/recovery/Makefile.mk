##
## FT-MPICH: the FT-MPI recovery layer (included from ftdev's Makefile.mk)
##

mpi_core_sources += src/ftmpi/recovery/ftmpi_failure.c
