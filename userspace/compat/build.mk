# SPDX-License-Identifier: BSD-2-Clause
#
# Included by the top Makefile.  The provider libraries (libmlx5, libefa, libmlx4, libmana: the symbols of
# rdma-core 44's, answering "not this device"; userspace/compat/), the
# xib-run wrapper (userspace/xib-run/), the ibv_semantics test program
# (tests/c/ibv_semantics.c), "make install-lib" and "make demo".
#
# Outputs:
#   $(BUILD)/lib/xib/{libmlx5,libefa,libmlx4,libmana}.so.1
# (librdmacm.so.1 is userspace/librdmacm/build.mk's.)
#   $(BUILD)/bin/xib-run             (libraries from $(BUILD)/lib/xib)
#   $(BUILD)/userspace/xib-run/xib-run.installed  (from $(libdir)/xib)
#   $(BUILD)/tests/c/ibv_semantics

XIB_LIBDIR_BUILD := $(BUILD)/lib/xib
XIB_PROVIDER_LIBS := libmlx5.so.1 libefa.so.1 libmlx4.so.1 libmana.so.1
XIB_COMPAT_LIBS := $(addprefix $(XIB_LIBDIR_BUILD)/,$(XIB_PROVIDER_LIBS))
XIB_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(ROOT)/dkms.conf)

# Shared objects: only what the version script names is exported; every
# import is bound at load (as the Debian binaries expect of their libs).
XIB_SO_CFLAGS := $(CFLAGS) $(XIB_CFLAGS) -fPIC -fvisibility=hidden
XIB_SO_LDFLAGS := -shared -Wl,-z,now -Wl,-z,defs -Wl,--no-undefined

.PHONY: compat xib-run install-lib demo
userspace: compat xib-run $(BUILD)/tests/c/ibv_semantics
compat: $(XIB_COMPAT_LIBS)
xib-run: $(BUILD)/bin/xib-run $(BUILD)/userspace/xib-run/xib-run.installed

# libNAME.so.1 from NAME_stub.c and libNAME.map
$(XIB_LIBDIR_BUILD)/lib%.so.1: userspace/compat/%_stub.c userspace/compat/lib%.map
	@mkdir -p $(dir $@)
	$(CC) $(XIB_SO_CFLAGS) $(XIB_SO_LDFLAGS) -Wl,-soname,lib$*.so.1 \
		-Wl,--version-script=userspace/compat/lib$*.map -o $@ $<

# xib-run: one copy for the build tree, one for "make install-lib".
$(BUILD)/bin/xib-run: userspace/xib-run/xib-run.in dkms.conf
	@mkdir -p $(dir $@)
	sed -e 's|@XIB_LIBDIR@|$(XIB_LIBDIR_BUILD)|g' -e 's|@XIB_VERSION@|$(XIB_VERSION)|g' $< >$@.tmp
	chmod 0755 $@.tmp && mv $@.tmp $@

$(BUILD)/userspace/xib-run/xib-run.installed: userspace/xib-run/xib-run.in dkms.conf FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@XIB_LIBDIR@|$(libdir)/xib|g' -e 's|@XIB_VERSION@|$(XIB_VERSION)|g' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else chmod 0755 $@.tmp && mv $@.tmp $@; fi

.PHONY: FORCE
FORCE:

# Installs next to, never over, rdma-core's libraries: $(libdir)/xib/ is
# only on the search path of programs started by xib-run.
install-lib: compat xib-run $(XIB_LIBDIR_BUILD)/libibverbs.so.1 $(XIB_LIBDIR_BUILD)/librdmacm.so.1
	for l in libibverbs.so.1 librdmacm.so.1 $(XIB_PROVIDER_LIBS); do \
		install -D -m 0755 $(XIB_LIBDIR_BUILD)/$$l $(DESTDIR)$(libdir)/xib/$$l || exit 1; \
	done
	install -D -m 0755 $(BUILD)/userspace/xib-run/xib-run.installed $(DESTDIR)$(bindir)/xib-run

# ibv_semantics: what libibverbs decides alone, checked against the
# system's <infiniband/verbs.h>; linked against xib's libibverbs.so.1
# (same SONAME and version nodes as rdma-core's), run with xib-run.
$(BUILD)/tests/c/ibv_semantics: tests/c/ibv_semantics.c $(XIB_LIBDIR_BUILD)/libibverbs.so.1
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wall -Wextra -Werror -std=gnu11 -o $@ $< \
		-L$(XIB_LIBDIR_BUILD) -l:libibverbs.so.1

# make demo: boot the stock VM, run stock verbs programs between two xib
# devices and against rdma_rxe, print a summary table.
# (demo.sh builds what it needs itself.)
demo:
	XIB_BUILD=$(BUILD) $(ROOT)/tests/demo/demo.sh
