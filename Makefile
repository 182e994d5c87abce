# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# FT-MPICH top-level build.
#
#   make              install build dependencies, prepare MPICH, build, install into ./install
#   make check        build if needed (with the tests' fault-injection points), run
#                     test/ftmpi and a smoke subset of MPICH's tests
#   make demo         build if needed, run the demo
#   make deb          the Debian package of the installation (ft-mpich_VERSION_ARCH.deb)
#   make bench        build if needed, build stock ch4:ucx too, compare them side by side
#   make stock        MPICH as normally built (ch4:ofi, POSIX shared memory), into ./install-stock
#   make peer         Open MPI 5 with ULFM from Debian's source package, into ./install-peer
#   make bench-peer   FT-MPICH, Open MPI with ULFM and MPICH as normally built side by side, 2 processes
#   make check-mpich  MPICH's test suite, ftdev against stock ch4:ucx (over an hour)
#   make check-mpich-ft  MPICH's ULFM tests (test/mpi/ft) on ftdev
#   make fuzz         the fuzz targets of test/fuzz under libFuzzer, FUZZ_SECONDS each
#   make check-asan   a build with AddressSanitizer and UBSan (./install-asan), and
#                     the tests of test/ftmpi/testlist on it
#
# PREFIX=/path installs elsewhere. Editing a file under src/ and running make
# again recompiles only what changed.

TOP       := $(CURDIR)
PREFIX    ?= $(TOP)/install
BUILD     := $(TOP)/build
TREE      := $(BUILD)/mpich-4.0.2
STOCK_BUILD  := $(TOP)/build-stock
STOCK_PREFIX := $(TOP)/install-stock
STOCK_UCX_BUILD  := $(TOP)/build-stock-ucx
STOCK_UCX_PREFIX := $(TOP)/install-stock-ucx
PEER_BUILD   := $(TOP)/build-peer
PEER_PREFIX  := $(TOP)/install-peer
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

DEB_PACKAGES := autoconf automake libtool python3 gcc g++ gfortran make patch xz-utils perl \
                libucx-dev libhwloc-dev libsodium-dev ccache strace gdb
BENCH_DEB_PACKAGES := gnuplot-nox
FUZZ_DEB_PACKAGES := clang libclang-rt-dev
# make deb's tools
PACKAGE_DEB_PACKAGES := dpkg-dev chrpath
# The tests run programs built by Debian's own MPICH on FT-MPICH, and
# check the Debian package with lintian, beside Debian's MPICH and Open
# MPI, and its modulefile with Environment Modules; only make check
# installs them (Debian's MPIs join the mpi alternatives).
CHECK_DEB_PACKAGES := libmpich-dev libhdf5-mpich-dev libopenmpi-dev openmpi-bin lintian environment-modules \
                      $(PACKAGE_DEB_PACKAGES)
# Open MPI takes hwloc and libevent from Debian; flex for its bundled PRRTE
PEER_DEB_PACKAGES := gcc g++ make perl python3 xz-utils flex libevent-dev libhwloc-dev

# No numbered release yet: the package version is the last commit's date
# and hash (Debian orders 0~DATE before any 1.0).
VERSION := 0~$(shell git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || echo 0)+g$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DEB     := $(TOP)/ft-mpich_$(VERSION)_$(shell dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null || echo amd64).deb

# Options shared by ftdev and its variants.
COMMON_CONFIGURE := --with-ch4-shmmods=none --with-datatype-engine=dataloop \
                    --disable-doc \
                    --enable-fast=O2 --enable-g=dbg --with-ucx=/usr --with-hwloc=/usr
# Two stock references from the same tarball, the other options as
# ftdev's. `stock` is MPICH as it is normally built: configure's default
# device, ch4:ofi, over the libfabric the tarball bundles (Debian's
# libfabric.pc names static libraries of RDMA stacks that MPICH's
# configure adds to every link), with its default POSIX shared-memory
# module carrying every message within a node.
# `stock-ucx` is ch4:ucx with configure's defaults, which for ch4:ucx
# in MPICH 4.0.2 means no shared-memory module (its
# src/mpid/ch4/subconfigure.m4: ucx does not handle MPI_ANY_SOURCE
# receives with one beside it): FT-MPICH's own transport, so the cost of
# fault tolerance alone.
STOCK_CONFIGURE := --with-datatype-engine=dataloop --disable-doc \
                   --enable-fast=O2 --enable-g=dbg --with-hwloc=/usr
STOCK_ARGS      := --with-device=ch4:ofi --with-libfabric=embedded $(STOCK_CONFIGURE)
STOCK_UCX_ARGS  := --with-device=ch4:ucx --with-ucx=/usr $(STOCK_CONFIGURE)
# What users install: make, demo, bench and soak build it, and make check
# tests it. The tests' fault-injection points (FTMPI_TEST_POINT) are
# compiled into a build of their own (./install-tp, its tree in build-tp),
# which make check uses for the tests that need them only.
CONFIGURE_ARGS = --prefix=$(PREFIX) --with-device=ch4:ftdev $(COMMON_CONFIGURE)
TP_BUILD  := $(TOP)/build-tp
TP_PREFIX := $(TOP)/install-tp
TP_CONFIGURE = $(COMPILERS) --prefix=$(TP_PREFIX) --with-device=ch4:ftdev $(COMMON_CONFIGURE) \
               --enable-ft-test-points
# The build names the plain compilers, which the installed wrappers
# (mpicc, mpicxx, mpifort) record; ccache, when installed, comes in through
# its compiler links ahead of them in PATH. Expanded when a recipe runs,
# after `deps` installed ccache.
# gfortran 10 and later refuse MPI's choice buffers (one routine called with
# arguments of different types) in Fortran 77 code without the flag; the
# wrappers keep it for the same reason.
COMPILERS       := CC=gcc CXX=g++ FC=gfortran F77=gfortran \
                   FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch
BUILD_PATH      = $(if $(wildcard /usr/lib/ccache/gcc),/usr/lib/ccache:)$(PATH)

.PHONY: all deps bench-deps peer-deps check-deps deb deb-deps fuzz-deps tree configure build install toolkit test-points check test-ftmpi \
        check-mpich-smoke check-mpich check-mpich-ft check-mpich-stored demo bench stock stock-ucx peer bench-peer soak \
        fuzz check-asan clean distclean

all: install

# $(call install_debs,PACKAGES): installs those of PACKAGES not installed
# (as root; otherwise prints the apt-get line to run).
define install_debs
@missing=""; for p in $(1); do \
    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
    if [ "$$(id -u)" = 0 ]; then \
        echo "installing:$$missing"; \
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
            { echo "make: apt-get install$$missing failed" >&2; exit 1; }; \
    else \
        echo "make: missing packages; run: sudo apt-get install$$missing" >&2; exit 1; \
    fi; \
fi
endef

deps:
	$(call install_debs,$(DEB_PACKAGES))

# gnuplot draws make bench's plot of recovery time against process count
bench-deps:
	$(call install_debs,$(BENCH_DEB_PACKAGES))

peer-deps:
	$(call install_debs,$(PEER_DEB_PACKAGES))

check-deps:
	$(call install_debs,$(CHECK_DEB_PACKAGES))

# The Debian package of what make installs (packaging/make-deb.sh says
# where it goes and how it sits beside Debian's MPIs).
deb-deps:
	$(call install_debs,$(PACKAGE_DEB_PACKAGES))

deb: install deb-deps
	@packaging/make-deb.sh $(PREFIX) '$(VERSION)' $(DEB)

# libFuzzer comes with clang's runtime
fuzz-deps:
	$(call install_debs,$(FUZZ_DEB_PACKAGES))

tree: deps
	@./autogen.sh

# Reconfigure when the tree was regenerated or the options changed.
configure: tree
	@args='$(COMPILERS) $(CONFIGURE_ARGS)'; \
	if [ ! -f $(BUILD)/.configured ] || [ "$$(cat $(BUILD)/.configured)" != "$$args" ] || \
	   [ $(BUILD)/.tree-stamp -nt $(BUILD)/.configured ]; then \
	    echo "configuring MPICH with ch4:ftdev (log: build/configure.log)"; \
	    (cd $(TREE) && PATH="$(BUILD_PATH)" ./configure $(COMPILERS) $(CONFIGURE_ARGS) >$(BUILD)/configure.log 2>&1) || \
	        { echo "make: configure failed; last lines of build/configure.log:" >&2; tail -n 20 $(BUILD)/configure.log >&2; exit 1; }; \
	    echo "$$args" >$(BUILD)/.configured; \
	fi

build: configure
	@echo "building MPICH with ch4:ftdev (log: build/make.log)"
	@PATH="$(BUILD_PATH)" $(MAKE) -C $(TREE) -j$(JOBS) >$(BUILD)/make.log 2>&1 || \
	    { echo "make: build failed; errors from build/make.log:" >&2; grep -E "error|Error" $(BUILD)/make.log | head -n 30 >&2; exit 1; }

# Besides MPICH's ABI names (libmpi.so.12, as MPICH, Intel MPI and
# MVAPICH install them), Debian's names for the same ABI: a program
# linked by Debian's mpicc.mpich runs on FT-MPICH with LD_LIBRARY_PATH
# naming its lib folder.
install: build
	@$(MAKE) -C $(TREE) install >$(BUILD)/install.log 2>&1 || \
	    { echo "make: install failed (see build/install.log)" >&2; exit 1; }
	@for l in "" fort cxx; do ln -sfn libmpi$$l.so.12 $(PREFIX)/lib/libmpich$$l.so.12; done
	@mkdir -p $(PREFIX)/share/modulefiles && \
	    sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' packaging/ft-mpich.modulefile \
	    >$(PREFIX)/share/modulefiles/ft-mpich
	@$(MAKE) --no-print-directory toolkit
	@echo "FT-MPICH installed in $(PREFIX)"

# The user's toolkit on top of the installed MPICH: the checkpoint library
# (built with the installed mpicc: mpicc app.c -lftmpi_ckpt) and the
# recovery-timeline tool.
toolkit: $(PREFIX)/lib/libftmpi_ckpt.so $(PREFIX)/include/ftmpi_ckpt.h $(PREFIX)/bin/ftmpi-timeline \
         $(PREFIX)/include/mpi_ext.mod

$(PREFIX)/lib/libftmpi_ckpt.so: toolkit/ckpt/ftmpi_ckpt.c toolkit/ckpt/ftmpi_ckpt_pack.c \
         toolkit/ckpt/ftmpi_ckpt_transfer.c toolkit/ckpt/ftmpi_ckpt_trace.c \
         toolkit/ckpt/ftmpi_ckpt.h toolkit/ckpt/ftmpi_ckpt_impl.h $(PREFIX)/bin/mpicc
	@$(PREFIX)/bin/mpicc -O2 -g -Wall -fPIC -shared -Wl,-soname,libftmpi_ckpt.so \
	    -o $@ $(filter %.c,$^) || { echo "make: libftmpi_ckpt failed to build" >&2; exit 1; }

$(PREFIX)/include/ftmpi_ckpt.h: toolkit/ckpt/ftmpi_ckpt.h
	@install -m 644 $< $@

# Open MPI's Fortran module of extensions (ULFM), beside mpi.mod
$(PREFIX)/include/mpi_ext.mod: src/ulfm/mpi_ext.f90 $(PREFIX)/bin/mpifort
	@tmp=$$(mktemp -d) && (cd $$tmp && $(PREFIX)/bin/mpifort -c $(TOP)/src/ulfm/mpi_ext.f90) && \
	    install -m 644 $$tmp/mpi_ext.mod $@ && rm -rf $$tmp || \
	    { echo "make: the Fortran module mpi_ext failed to build" >&2; exit 1; }

$(PREFIX)/bin/ftmpi-timeline: toolkit/timeline/ftmpi-timeline
	@install -m 755 $< $@

# $(call variant,BUILD_DIR,PREFIX,CONFIGURE_ARGS,WHAT,ENV): another build of
# the same tarball, patches and sources, in a tree of its own, configured
# its own way and installed into PREFIX with the toolkit; ENV (variable
# settings) is in force while it is configured and built.
define variant
	@MPICH_TARBALL="$$(cat $(BUILD)/.tarball)" FTMPICH_BUILD_DIR=$(1) ./autogen.sh
	@args='$(3)'; \
	if [ ! -f $(1)/.configured ] || [ "$$(cat $(1)/.configured)" != "$$args" ] || \
	   [ $(1)/.tree-stamp -nt $(1)/.configured ]; then \
	    echo "configuring $(4) (log: $(notdir $(1))/configure.log)"; \
	    (cd $(1)/mpich-4.0.2 && export PATH="$(BUILD_PATH)" $(5) && ./configure $(3) \
	        >$(1)/configure.log 2>&1) || \
	        { echo "make: configure failed ($(notdir $(1))/configure.log)" >&2; exit 1; }; \
	    echo "$$args" >$(1)/.configured; \
	fi
	@echo "building $(4) (log: $(notdir $(1))/make.log)"
	@export PATH="$(BUILD_PATH)" $(5); \
	$(MAKE) -C $(1)/mpich-4.0.2 -j$(JOBS) >$(1)/make.log 2>&1 && \
	    $(MAKE) -C $(1)/mpich-4.0.2 install >$(1)/install.log 2>&1 || \
	    { echo "make: $(4) failed ($(notdir $(1))/make.log)" >&2; exit 1; }
	@$(if $(5),export $(5);) $(MAKE) --no-print-directory toolkit PREFIX=$(2)
endef

# The build with the tests' fault-injection points, in ./install-tp.
test-points: tree
	$(call variant,$(TP_BUILD),$(TP_PREFIX),$(TP_CONFIGURE),the build with test points,)

# The tests run against what users install; those that need a test point
# (NEEDS=test-points in test/ftmpi/testlist, "# needs: test points" in a
# script) against ./install-tp.
check: install test-points check-deps
	@MPI_PREFIX=$(PREFIX) MPI_PREFIX_TEST_POINTS=$(TP_PREFIX) \
	    test/ftmpi/run-ftmpi-tests.sh --mpich-smoke

test-ftmpi: install test-points check-deps
	@MPI_PREFIX=$(PREFIX) MPI_PREFIX_TEST_POINTS=$(TP_PREFIX) test/ftmpi/run-ftmpi-tests.sh

# The random-kill soak until SOAK_KILLS kills were made (SOAK_ARGS: e.g.
# --seed N, --mode SHRINK/MANUAL/RESET/ATOMIC, --methods stop), then the
# node soak on 3 simulated nodes until SOAK_NODE_KILLS events (skipped
# with its reason where namespaces cannot be made).
SOAK_KILLS ?= 1000
SOAK_NODE_KILLS ?= 100
soak: install
	@python3 test/soak/soak.py --prefix $(PREFIX) --kills $(SOAK_KILLS) $(SOAK_ARGS)
	@python3 test/soak/soak.py --prefix $(PREFIX) --nodes 3 --kills $(SOAK_NODE_KILLS) \
		$(SOAK_ARGS); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]

check-mpich-smoke: install
	@MPI_PREFIX=$(PREFIX) test/mpich/run-mpich-tests.sh --smoke

demo: install
	@MPI_PREFIX=$(PREFIX) examples/run-demo.sh

# $(call build_stock,BUILD_DIR,PREFIX,CONFIGURE_ARGS,NAME): MPICH from the
# same tarball, unpatched; rebuilt when it was configured otherwise.
define build_stock
	@args='$(COMPILERS) --prefix=$(2) $(3)'; \
	if [ ! -x $(2)/bin/mpiexec ] || [ "$$(cat $(1)/.configured 2>/dev/null)" != "$$args" ]; then \
	    echo "building $(4) for comparison (log: $(notdir $(1))/build.log)"; \
	    rm -rf $(1) && mkdir -p $(1) && \
	    tar -xf "$$(cat $(BUILD)/.tarball)" -C $(1) && \
	    (cd $(1)/mpich-4.0.2 && \
	     export PATH="$(BUILD_PATH)" && \
	     ./configure $$args && \
	     $(MAKE) -j$(JOBS) && $(MAKE) install) >$(1)/build.log 2>&1 || \
	        { echo "make: the $(4) build failed (see $(notdir $(1))/build.log)" >&2; exit 1; }; \
	    echo "$$args" >$(1)/.configured; \
	fi
endef

stock: tree
	$(call build_stock,$(STOCK_BUILD),$(STOCK_PREFIX),$(STOCK_ARGS),stock MPICH (ch4:ofi + POSIX shared memory))

stock-ucx: tree
	$(call build_stock,$(STOCK_UCX_BUILD),$(STOCK_UCX_PREFIX),$(STOCK_UCX_ARGS),stock MPICH ch4:ucx)

# BENCH_MAX_NP, BENCH_PARTS, BENCH_ROUNDS, BENCH_RUNS: see bench/run-bench.sh
bench: install stock-ucx bench-deps
	@FTDEV_PREFIX=$(PREFIX) STOCK_PREFIX=$(STOCK_UCX_PREFIX) bench/run-bench.sh

# The fault-tolerant peer: Open MPI 5.0.7 with ULFM (its bundled PMIx and
# PRRTE; hwloc and libevent from Debian), built from the upstream tarball
# of Debian's trixie source package, which bench/build-peer.sh fetches
# through a private apt configuration in build-peer (19 CPU-minutes:
# 10-20 minutes on 2 cores).
peer: peer-deps
	@if [ ! -x $(PEER_PREFIX)/bin/mpirun ]; then \
	    echo "building Open MPI with ULFM for comparison (log: build-peer/build.log)"; \
	    rm -rf $(PEER_BUILD)/openmpi-* && mkdir -p $(PEER_BUILD) && \
	    bench/build-peer.sh $(PEER_BUILD) $(PEER_PREFIX) $(JOBS) >$(PEER_BUILD)/build.log 2>&1 || \
	        { echo "make: the Open MPI build failed; last lines of build-peer/build.log:" >&2; \
	          tail -n 20 $(PEER_BUILD)/build.log >&2; exit 1; }; \
	fi

# FT-MPICH against Open MPI with ULFM and stock MPICH, 2 processes
# (BENCH_ROUNDS: see bench/run-peer.sh)
bench-peer: install stock peer bench-deps
	@FTDEV_PREFIX=$(PREFIX) STOCK_PREFIX=$(STOCK_PREFIX) PEER_PREFIX=$(PEER_PREFIX) bench/run-peer.sh

# MPICH's own ULFM tests (test/mpi/ft), through its runtests.
check-mpich-ft: install
	@MPI_PREFIX=$(PREFIX) test/mpich/run-mpich-tests.sh --ft

check-mpich: install stock-ucx
	@test/mpich/compare-mpich-tests.sh $(PREFIX) $(STOCK_UCX_PREFIX)

# The same against stock results stored earlier (STOCK_RESULTS=DIR: a copy of
# build/mpich-compare/stock from an earlier make check-mpich).
check-mpich-stored: install
	@test/mpich/compare-mpich-tests.sh $(PREFIX) --stock-results $(STOCK_RESULTS)

# Each fuzz target (test/fuzz) for FUZZ_SECONDS, from its corpus; the
# Hydra target reads the prepared MPICH tree's headers.
FUZZ_SECONDS ?= 60
fuzz: tree fuzz-deps
	@$(MAKE) --no-print-directory -C test/fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# The same MPICH, patches and sources built with AddressSanitizer and
# UBSan, tests' fault-injection points in, into ./install-asan (its own
# tree in build-asan); the tests of test/ftmpi/testlist (every mode, with
# kills) run there with time limits ASAN_TIMEOUT_SCALE times longer. A
# sanitizer's report fails the test that printed it.
ASAN_BUILD  := $(TOP)/build-asan
ASAN_PREFIX := $(TOP)/install-asan
SANITIZE    ?= address,undefined
ASAN_TIMEOUT_SCALE ?= 3
# the entries run under the sanitizers: a testlist file (default: every FT
# test of test/ftmpi), or "short": the first entry of each program with
# each setting of the FT modes
ASAN_TESTLIST ?= test/ftmpi/testlist
ASAN_FLAGS  := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
ASAN_CONFIGURE = $(COMPILERS) CFLAGS="$(ASAN_FLAGS)" CXXFLAGS="$(ASAN_FLAGS)" \
                 FFLAGS="-fallow-argument-mismatch $(ASAN_FLAGS)" \
                 FCFLAGS="-fallow-argument-mismatch $(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" \
                 MPICH_MPICC_CFLAGS="$(ASAN_FLAGS)" MPICH_MPICC_LDFLAGS="$(ASAN_FLAGS)" \
                 MPICH_MPICXX_CXXFLAGS="$(ASAN_FLAGS)" MPICH_MPICXX_LDFLAGS="$(ASAN_FLAGS)" \
                 MPICH_MPIFORT_FCFLAGS="$(ASAN_FLAGS)" MPICH_MPIFORT_LDFLAGS="$(ASAN_FLAGS)" \
                 --prefix=$(ASAN_PREFIX) --with-device=ch4:ftdev $(COMMON_CONFIGURE) \
                 --enable-ft-test-points
check-asan: tree
	$(call variant,$(ASAN_BUILD),$(ASAN_PREFIX),$(ASAN_CONFIGURE),the sanitizer build,ASAN_OPTIONS=detect_leaks=0)
	@list=$(ASAN_TESTLIST); \
	if [ "$$list" = short ]; then \
	    list=$(ASAN_BUILD)/testlist.short; \
	    awk '/^#/ || NF == 0 { next } { key = $$1; for (i = 4; i <= NF; i++) \
	        if ($$i ~ /^(FTMPI_|MPIR_CVAR_ENABLE_FT=)/) key = key " " $$i; \
	        if (!(key in seen)) { seen[key] = 1; print } }' test/ftmpi/testlist >$$list; \
	fi; \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    FTMPI_TIMEOUT_SCALE=$(ASAN_TIMEOUT_SCALE) MPI_PREFIX=$(ASAN_PREFIX) FTMPI_TEST_BIN=$(ASAN_BUILD)/test-bin \
	    test/ftmpi/run-ftmpi-tests.sh --testlist $$list

clean:
	@[ ! -f $(TREE)/Makefile ] || $(MAKE) -C $(TREE) clean >/dev/null
	rm -rf test/ftmpi/bin bench/bin examples/bin

distclean:
	rm -rf $(BUILD) $(STOCK_BUILD) $(STOCK_UCX_BUILD) $(ASAN_BUILD) $(TP_BUILD) $(PREFIX) $(STOCK_PREFIX) $(STOCK_UCX_PREFIX) \
	    $(ASAN_PREFIX) $(TP_PREFIX) $(PEER_BUILD) $(PEER_PREFIX) \
	    test/ftmpi/bin bench/bin examples/bin
