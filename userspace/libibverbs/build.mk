# SPDX-License-Identifier: GPL-2.0
# libibverbs.so.1: the drop-in for rdma-core 44's, over libxib.
#
# Built against the system's <infiniband/verbs.h> (libibverbs-dev), with
# rdma-core's symbol versions (libibverbs.map).  libxib is compiled again
# position-independent for it; the static libxib.a rule stays as it is.

LIBIBVERBS := $(BUILD)/lib/xib/libibverbs.so.1
LIBIBVERBS_SRCS := $(addprefix userspace/libibverbs/,device.c verbs.c datapath.c misc.c extended.c)
LIBIBVERBS_OBJS := $(patsubst userspace/libibverbs/%.c,$(BUILD)/userspace/libibverbs/%.pic.o,$(LIBIBVERBS_SRCS))
LIBIBVERBS_HDRS := userspace/libibverbs/ibverbs.h $(LIBXIB_HDRS) include/uapi/xib/netlink.h \
	userspace/common/xib_genl.h
LIBXIB_PIC := $(BUILD)/userspace/libxib/xib.pic.o
LIBIBVERBS_CFLAGS := $(XIB_CFLAGS) -fPIC -fno-strict-aliasing -Iuserspace/libxib \
	-Iuserspace/libibverbs $(shell pkg-config --cflags libmnl 2>/dev/null)

.PHONY: libibverbs
userspace: libibverbs
libibverbs: $(LIBIBVERBS)

$(LIBXIB_PIC): userspace/libxib/xib.c $(LIBXIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/userspace/libibverbs/%.pic.o: userspace/libibverbs/%.c $(LIBIBVERBS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBIBVERBS_CFLAGS) -c -o $@ $<

$(LIBIBVERBS): $(LIBIBVERBS_OBJS) $(LIBXIB_PIC) userspace/libibverbs/libibverbs.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $(LIBIBVERBS_OBJS) $(LIBXIB_PIC) \
		-Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=userspace/libibverbs/libibverbs.map \
		-Wl,-z,now -Wl,-z,relro -Wl,-z,defs -Wl,-Bsymbolic \
		$(PKG_LIBMNL) -lpthread

# ibv_extended: the extended verbs and the re-registration, resize and SRQ
# limit semantics, through <infiniband/verbs.h> as an rdma-core program
# (tests/bats/ibverbs-ex.bats runs it in the VM with xib-run).
userspace: $(BUILD)/tests/c/ibv_extended
$(BUILD)/tests/c/ibv_extended: tests/c/ibv_extended.c include/uapi/xib/uverbs.h $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wall -Wextra -Werror -std=gnu11 -I$(ROOT)/include/uapi -o $@ $< \
		-L$(dir $(LIBIBVERBS)) -l:libibverbs.so.1

# ibv_mw_interop: a memory window and SEND_WITH_INV between two verbs
# devices, one of them rdma_rxe under rdma-core's own libibverbs
# (tests/bats/rxe-interop.bats; xib's side runs with xib-run).
userspace: $(BUILD)/tests/c/ibv_mw_interop
$(BUILD)/tests/c/ibv_mw_interop: tests/c/ibv_mw_interop.c tests/c/tap.h $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wall -Wextra -Werror -std=gnu11 -o $@ $< \
		-L$(dir $(LIBIBVERBS)) -l:libibverbs.so.1
