# SPDX-License-Identifier: GPL-2.0
#
# xib top-level Makefile.  "make help" lists the targets.

ROOT := $(abspath .)
BUILD ?= $(ROOT)/build
export XIB_BUILD := $(BUILD)
VM := $(ROOT)/tests/vm

# Kernel tree to build the modules against: KDIR wins; else the running
# kernel's; else the newest installed Debian 6.1 headers (the stock VM's).
STOCK_KREL := $(shell bash -c '. $(VM)/kernels.sh && xib_stock_release' 2>/dev/null)
ifeq ($(KDIR),)
  ifneq ($(wildcard /lib/modules/$(shell uname -r)/build),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else ifneq ($(STOCK_KREL),)
    KDIR := /usr/src/linux-headers-$(STOCK_KREL)
  endif
endif
KREL = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# The module sources, copied per kernel so that builds for several kernels
# never share object files (6.1's kbuild builds external modules in place).
MODULE_SRC := Kbuild core drivers include tests/kunit tests/vm/selftest

CC ?= gcc
CFLAGS ?= -O2 -g
XIB_CFLAGS := -Wall -Wextra -Werror -std=gnu11 -I$(ROOT)/include/uapi
PKG_LIBMNL = $(shell pkg-config --cflags --libs libmnl 2>/dev/null || echo -lmnl)

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
bashcompdir ?= $(prefix)/share/bash-completion/completions

.PHONY: all modules modules-vm userspace deps lint check check-harness \
	vm-shell vm-test kunit bats check-pcie dkms-check install clean help bench bench-wire demo soak soak-debug

all: modules userspace

help:
	@echo "make              build the modules (KDIR=...) and user space"
	@echo "make deps         install the Debian packages everything needs"
	@echo "make check        the whole test gate (lint, builds, KUnit, bats, DKMS)"
	@echo "make lint         checkpatch --strict, kernel-doc, sparse, cppcheck"
	@echo "make vm-shell     shell in the test VM with the modules loaded"
	@echo "                  (KERNEL=stock|debug)"
	@echo "make bats T=tests/bats/FILE.bats [KERNEL=stock|debug]"
	@echo "make kunit T=MODULE           one KUnit module, in the debug VM"
	@echo "make check-pcie   the PCI front end's suites, stock and debug VMs"
	@echo "make check-harness            prove the harness catches faults"
	@echo "make bench        stock perftest etc. on xib vs rdma_rxe, ceilings, plots (stock VM)"
	@echo "make bench-wire   the same on two stock VMs joined by an emulated wire:"
	@echo "                  rxe<->rxe and xib<->xib, bw, rate, latency, loss goodput"
	@echo "make soak         the data-path suite with 16x its volumes, long fuzzer runs (stock VM),"
	@echo "                  then make soak-debug"
	@echo "make soak-debug   the hostile-network suite, all of it, 32 MiB, debug VM"
	@echo "make install      install modules (KDIR), xibctl and its manual page,"
	@echo "                  xib-run and the drop-in libraries (under \$$(libdir)/xib)"
	@echo "make demo         stock verbs tools on xib and against rdma_rxe (VM)"

deps:
	$(ROOT)/tests/deps.sh

# --- kernel modules --------------------------------------------------------
modules:
	@test -n "$(KDIR)" || { echo "no kernel tree: pass KDIR=... or run 'make deps'"; exit 1; }
	@test -n "$(KREL)" || { echo "$(KDIR) is not a configured kernel tree"; exit 1; }
	@mkdir -p $(BUILD)/modules/$(KREL)
	@rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
		--filter='P *.o' --filter='P *.ko' --filter='P .*.cmd' --filter='P *.mod*' \
		--filter='P modules.order' --filter='P Module.symvers' \
		--filter='P .tmp_versions' \
		$(MODULE_SRC) $(BUILD)/modules/$(KREL)/ --relative
	$(MAKE) -C $(KDIR) M=$(BUILD)/modules/$(KREL) $(if $(XIB_TEST_MODULES),XIB_TEST_MODULES=1) modules

# Modules for a test VM kernel: KERNEL=stock|debug.
KERNEL ?= stock
# The debug kernel's own modules the tests need (rdma_rxe, the UDP
# tunnel modules it and xib_hca use, and the crc32 shash rxe allocates
# when a link is added; see tests/vm/debug.config) go to extern/ beside
# them: the guest's /lib/modules has only the stock kernel's.
modules-vm:
	@kdir=$$(bash -c '. $(VM)/kernels.sh && xib_kernel_paths $(KERNEL) >&2 && echo $$KDIR') && \
		$(MAKE) --no-print-directory modules KDIR=$$kdir XIB_TEST_MODULES=1 && \
		krel=$$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $$kdir/include/generated/utsrelease.h) && \
		for ko in drivers/infiniband/sw/rxe/rdma_rxe.ko net/ipv4/udp_tunnel.ko \
			  net/ipv6/ip6_udp_tunnel.ko crypto/crc32_generic.ko; do \
			if [ -f $$kdir/$$ko ]; then install -D -m 0644 $$kdir/$$ko \
				$(BUILD)/modules/$$krel/extern/$$(basename $$ko) || exit 1; fi; \
		done && \
		XIB_MODDIR=$(BUILD)/modules/$$krel $(VM)/xib-modules order >/dev/null

# --- user space ------------------------------------------------------------
userspace: $(BUILD)/userspace/xibctl

$(BUILD)/userspace/xibctl: userspace/xibctl/xibctl.c include/uapi/xib/netlink.h userspace/common/xib_genl.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -o $@ $< $(PKG_LIBMNL)

# --- libxib and the data-path test programs --------------------------------
LIBXIB := $(BUILD)/userspace/libxib/libxib.a
LIBXIB_HDRS := userspace/libxib/xib.h include/uapi/xib/uverbs.h include/uapi/xib/hca-abi.h
XIB_TESTS_C := xib_rc_test xib_ud_test xib_mcast_test xib_bad_test xib_hold_test xib_atomic_test \
	xib_res_test xib_uc_test xib_spoof xib_qkey_test xib_destroy_race xib_mw_test \
	xib_pkt_fuzz xib_abi_fuzz xib_xrc_test xib_qpmem_test

.PHONY: libxib tests-c
userspace: libxib tests-c
libxib: $(LIBXIB)
tests-c: $(addprefix $(BUILD)/tests/c/,$(XIB_TESTS_C)) $(BUILD)/tests/c/uverbs_smoke

$(LIBXIB): userspace/libxib/xib.c $(LIBXIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -c -o $(BUILD)/userspace/libxib/xib.o $<
	rm -f $@ && $(AR) rcs $@ $(BUILD)/userspace/libxib/xib.o

# The programs that inject whole RoCEv2 frames share xib_roce.c.
XIB_ROCE_TESTS := $(BUILD)/tests/c/xib_spoof $(BUILD)/tests/c/xib_pkt_fuzz
$(XIB_ROCE_TESTS): XT_EXTRA := tests/c/xib_roce.c
$(XIB_ROCE_TESTS): tests/c/xib_roce.c tests/c/xib_roce.h

$(BUILD)/tests/c/%: tests/c/%.c tests/c/xib_test.c tests/c/xib_test.h $(LIBXIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -Iuserspace/libxib -o $@ $< tests/c/xib_test.c \
		$(XT_EXTRA) $(LIBXIB) -lpthread

# The guest's copy bandwidth: make bench's ceiling for the data path.
userspace: $(BUILD)/tests/bench/memcpy_bw
$(BUILD)/tests/bench/memcpy_bw: tests/bench/memcpy_bw.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -o $@ $<

# Raw ioctls, no library: the ABI as the kernel sees it.
$(BUILD)/tests/c/uverbs_smoke: tests/c/uverbs_smoke.c include/uapi/xib/uverbs.h include/uapi/xib/hca-abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -o $@ $< -lpthread

# --- the drop-in libraries (libibverbs.so.1, librdmacm.so.1, stubs), xib-run
libdir ?= $(prefix)/lib
include userspace/libibverbs/build.mk
include userspace/librdmacm/build.mk
include userspace/compat/build.mk

# --- tests -----------------------------------------------------------------
lint: deps
	$(ROOT)/tests/lint.sh

check: deps
	$(ROOT)/tests/check.sh

check-harness: deps
	$(ROOT)/tests/check-harness.sh

vm-shell: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=$(KERNEL)
	$(VM)/vm-shell $(KERNEL)

bats: userspace
	@test -n "$(T)" || { echo "usage: make bats T=tests/bats/FILE.bats [KERNEL=stock|debug]"; exit 2; }
	$(MAKE) --no-print-directory modules-vm KERNEL=$(KERNEL)
	$(VM)/vm-test --kernel $(KERNEL) bats:$(T)

# The PCI front end's suites in both kernels, in guests with xib's PCI
# function (Documentation/pcie.rst).  make check runs the same suites in
# its own guests, which all have the function.
check-pcie: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=stock
	$(MAKE) --no-print-directory modules-vm KERNEL=debug
	$(VM)/vm-test --kernel stock --out $(BUILD)/vm/pcie-stock bats:tests/bats/pcie.bats; \
	st=$$?; $(VM)/vm-test --kernel debug --out $(BUILD)/vm/pcie-debug \
		kunit:xib_hca_pci_test bats:tests/bats/pcie.bats || st=1; exit $$st

kunit:
	@test -n "$(T)" || { echo "usage: make kunit T=xib_ring_test"; exit 2; }
	$(MAKE) --no-print-directory modules-vm KERNEL=debug
	$(VM)/vm-test --kernel debug kunit:$(T)

dkms-check:
	$(ROOT)/tests/dkms-check.sh

# Benchmarks, not tests: perftest on xib and on rdma_rxe in one stock VM
# boot, and the system calls per WR (tests/bench/bench.sh).
bench: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=stock
	$(VM)/vm-test --kernel stock --out $(BUILD)/bench --idle 1800 --timeout 3600 \
		sh:tests/bench/bench.sh; st=$$?; cat $(BUILD)/bench/bench.out; exit $$st

# Two stock VMs at once joined by an emulated wire (run-vm --wire): rdma_rxe
# against rdma_rxe, then xib against xib (tests/bench/wire.sh); the table
# and plot in build/bench-wire.  wire.sh takes the VM lock of the test runs.
bench-wire: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=stock
	XIB_BUILD=$(BUILD) $(ROOT)/tests/bench/wire.sh --out $(BUILD)/bench-wire

# Long runs, not part of the gate: the data-path suite with 16 times its
# volumes and rsockets with every size, 64 times the gate's bytes, and the
# fuzzers with 1M ABI operations per user and 10M malformed packets, in
# the stock VM, and 1000 kill -9s of verbs programs and of RDMA CM
# connections being set up (XIB_VERBS_BYTES, XIB_LOSS_BYTES, XIB_RS_*,
# XIB_FUZZ_*, XIB_KILL_STORM override).
soak: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=stock
	XIB_VERBS_BYTES=$${XIB_VERBS_BYTES:-256M} XIB_LOSS_BYTES=$${XIB_LOSS_BYTES:-64M} \
	XIB_RS_SIZES="$${XIB_RS_SIZES:-64 4096 65536 1048576}" \
	XIB_RS_COUNT=$${XIB_RS_COUNT:-10000} XIB_RS_BYTES=$${XIB_RS_BYTES:-268435456} \
	XIB_HOSTILE_PP_ITERS=$${XIB_HOSTILE_PP_ITERS:-2048} XIB_HOSTILE_BYTES=$${XIB_HOSTILE_BYTES:-32M} \
	XIB_HOSTILE_BW_ITERS=$${XIB_HOSTILE_BW_ITERS:-1000} XIB_HOSTILE_RXE_ITERS=$${XIB_HOSTILE_RXE_ITERS:-512} \
	XIB_FUZZ_ABI_OPS=$${XIB_FUZZ_ABI_OPS:-1000000} XIB_FUZZ_PKTS=$${XIB_FUZZ_PKTS:-10000000} \
	XIB_KILL_STORM=$${XIB_KILL_STORM:-1000} \
		$(VM)/vm-test --kernel stock --out $(BUILD)/soak --idle 1800 --timeout 7200 \
		bats:tests/bats/verbs.bats bats:tests/bats/rsockets.bats bats:tests/bats/hostile.bats \
		bats:tests/bats/fuzz.bats bats:tests/bats/rdmacm.bats
	$(MAKE) --no-print-directory soak-debug

# The hostile network on the debug kernel (KASAN, lockdep, kmemleak) with
# every test, the stock programs and rdma_rxe included (XIB_ALL_TESTS=1),
# and 32 MiB of validated ibv_rc_pingpong between two xib devices.
soak-debug: userspace
	$(MAKE) --no-print-directory modules-vm KERNEL=debug
	XIB_ALL_TESTS=1 XIB_HOSTILE_PP_ITERS=$${XIB_HOSTILE_PP_ITERS:-256} \
		$(VM)/vm-test --kernel debug --out $(BUILD)/soak-debug --idle 1800 --timeout 7200 \
		bats:tests/bats/hostile.bats

XIB_MODULES := core/xib_core core/uverbs/xib_uverbs core/cma/xib_cma \
	core/ucma/xib_ucma drivers/hca/xib_hca

install: modules userspace install-lib
	for m in $(XIB_MODULES); do \
		install -D -m 0644 $(BUILD)/modules/$(KREL)/$$m.ko \
			$(DESTDIR)/lib/modules/$(KREL)/updates/xib/$$(basename $$m).ko || exit 1; \
	done
	test -n "$(DESTDIR)" || depmod -a $(KREL)
	install -D -m 0755 $(BUILD)/userspace/xibctl $(DESTDIR)$(bindir)/xibctl
	install -D -m 0644 man/xibctl.8 $(DESTDIR)$(mandir)/man8/xibctl.8
	install -D -m 0644 man/xib-run.1 $(DESTDIR)$(mandir)/man1/xib-run.1
	install -D -m 0644 man/xib_hca.4 $(DESTDIR)$(mandir)/man4/xib_hca.4
	install -D -m 0644 userspace/xibctl/xibctl.bash-completion \
		$(DESTDIR)$(bashcompdir)/xibctl

clean:
	rm -rf $(BUILD)
