# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
##
## The ch4 netmod "ftdev": UCX transport, failure detection and the
## fault-tolerance services of mpid_ft.h.
##

if BUILD_CH4_NETMOD_FTDEV

mpi_core_sources += src/mpid/ch4/netmod/ftdev/func_table.c \
                    src/mpid/ch4/netmod/ftdev/globals.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_init.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_am.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_comm.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_coll.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_control.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_wire.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_key.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_listener_guard.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_ucx_settings.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_counters.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_failure.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_detect.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_drain.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_endpoint.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_heartbeat.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_echo.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_node_watch.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_suspicion.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_ucx_log.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_epoch.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_rebuild.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_rebuild_msg.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_rebuild_survivor.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_rejoin.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_launcher.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_datatype.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_op.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_part.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_spawn.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_win.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_ulfm.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_services.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_upcalls.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_trace.c \
                    src/mpid/ch4/netmod/ftdev/ftdev_test_point.c

errnames_txt_files += src/mpid/ch4/netmod/ftdev/errnames.txt

endif
