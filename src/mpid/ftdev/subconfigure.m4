[#] start of __file__
dnl MPICH_SUBCFG_AFTER=src/mpid/ch4
dnl Copyright (c) 2026 The FT-MPICH authors. See LICENSE.

dnl FT-MPICH: configure fragment of the ch4 netmod "ftdev"

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
    AM_COND_IF([BUILD_CH4],[
        for net in $ch4_netmods ; do
            if test "$net" = "ftdev" ; then
                build_ch4_netmod_ftdev=yes
                AC_DEFINE(HAVE_CH4_NETMOD_FTDEV,1,[ftdev netmod is built])
                dnl the feature rides on this netmod: ftdev detects failures
                AC_DEFINE(ENABLE_FTMPI,1,[Define to turn on FT-MPI and ULFM fault-tolerance semantics in MPICH's core (recovery, FTMPI_* attributes, failure error handling, MPIX_ agree and shrink)])
                if test "$build_ch4_locality_info" != "yes" ; then
                    AC_DEFINE(MPIDI_BUILD_CH4_LOCALITY_INFO, 1, [CH4 should build locality info])
                    build_ch4_locality_info="yes"
                fi
            fi
        done
    ])
    AM_CONDITIONAL([BUILD_CH4_NETMOD_FTDEV],[test "X$build_ch4_netmod_ftdev" = "Xyes"])
    dnl the FT-MPI layers of src/ftmpi ride on this netmod
    AM_CONDITIONAL([BUILD_FTMPI],[test "X$build_ch4_netmod_ftdev" = "Xyes"])
])dnl

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_CH4_NETMOD_FTDEV],[
    AC_MSG_NOTICE([RUNNING CONFIGURE FOR ch4:ftdev])

    if test "$pac_have_ucx" != "yes" ; then
        AC_MSG_ERROR([ch4:ftdev needs an installed UCX (Debian: libucx-dev); pass --with-ucx=PREFIX])
    fi
    AC_MSG_CHECKING([whether UCX is at least 1.10 (tag and active-message nbx calls)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([#include <ucp/api/ucp.h>], [
                       #if UCP_VERSION(UCP_API_MAJOR, UCP_API_MINOR) < UCP_VERSION(1, 10)
                       #error too old
                       #endif
                       return 0;])],[ftdev_ucx_ok=yes],[ftdev_ucx_ok=no])
    AC_MSG_RESULT([$ftdev_ucx_ok])
    if test "$ftdev_ucx_ok" = "no" ; then
        AC_MSG_ERROR([ch4:ftdev needs UCX 1.10 or newer])
    fi
    PAC_LIBS_ADD([-lucp -lucs])

    dnl the job key's MACs on heartbeat datagrams and control messages
    AC_CHECK_HEADER([sodium.h],[],
        [AC_MSG_ERROR([ch4:ftdev needs libsodium (Debian: libsodium-dev)])])
    AC_CHECK_LIB([sodium],[crypto_generichash],[PAC_LIBS_ADD([-lsodium])],
        [AC_MSG_ERROR([ch4:ftdev needs libsodium (Debian: libsodium-dev)])])

    dnl the tests' fault injection (ftdev_test_point.c): make check only
    AC_ARG_ENABLE([ft-test-points],
        [AS_HELP_STRING([--enable-ft-test-points],
            [compile in the fault-injection points that FT-MPICH's tests drive through FTMPI_TEST_POINT (make check does); not for a release build])],
        [],[enable_ft_test_points=no])
    if test "$enable_ft_test_points" = "yes" ; then
        AC_DEFINE(HAVE_FT_TEST_POINTS,1,[Define to compile in FT-MPICH's fault-injection test points])
    fi
])dnl
])dnl

[#] end of __file__
