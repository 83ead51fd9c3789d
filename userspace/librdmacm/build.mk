# SPDX-License-Identifier: BSD-2-Clause
#
# librdmacm.so.1: the drop-in for rdma-core 44's, over /dev/xib/rdma_cm
# and xib's libibverbs.so.1.  Built against the system's <rdma/rdma_cma.h>
# (librdmacm-dev), with rdma-core's version nodes (librdmacm.map).
#
# Outputs:
#   $(BUILD)/lib/xib/librdmacm.so.1
#   $(BUILD)/tests/c/rdmacm_host       what needs no kernel (host bats)
#   $(BUILD)/tests/c/rdmacm_checklist  the seed's rdma_cm checklist (VM bats)
#   $(BUILD)/tests/c/rdmacm_race       the event thread vs rdma_destroy_qp (VM bats)

LIBRDMACM := $(BUILD)/lib/xib/librdmacm.so.1
LIBRDMACM_SRCS := $(addprefix userspace/librdmacm/,cma.c addrinfo.c util.c rsocket.c rsocket_dgram.c)
LIBRDMACM_OBJS := $(patsubst userspace/librdmacm/%.c,$(BUILD)/userspace/librdmacm/%.pic.o,$(LIBRDMACM_SRCS))
LIBRDMACM_HDRS := userspace/librdmacm/rdmacm.h userspace/librdmacm/rsocket_int.h userspace/librdmacm/rsocket_wire.h include/uapi/xib/ucma.h include/uapi/xib/uverbs.h
LIBRDMACM_CFLAGS := $(XIB_CFLAGS) -fPIC -fvisibility=hidden -Iuserspace/librdmacm

.PHONY: librdmacm
userspace: librdmacm $(BUILD)/tests/c/rdmacm_host $(BUILD)/tests/c/rdmacm_checklist
librdmacm: $(LIBRDMACM)

$(BUILD)/userspace/librdmacm/%.pic.o: userspace/librdmacm/%.c $(LIBRDMACM_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIBRDMACM_CFLAGS) -c -o $@ $<

$(LIBRDMACM): $(LIBRDMACM_OBJS) userspace/librdmacm/librdmacm.map $(LIBIBVERBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $(LIBRDMACM_OBJS) \
		-Wl,-soname,librdmacm.so.1 \
		-Wl,--version-script=userspace/librdmacm/librdmacm.map \
		-Wl,-z,now -Wl,-z,relro -Wl,-z,defs -Wl,--no-undefined \
		-L$(dir $(LIBIBVERBS)) -l:libibverbs.so.1 -lpthread

# The host test links util.c and addrinfo.c's objects with the library:
# it calls only what needs no kernel.
$(BUILD)/tests/c/rdmacm_host: tests/c/rdmacm_host.c $(LIBRDMACM) $(BUILD)/userspace/librdmacm/util.pic.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -Iuserspace/librdmacm -Wall -Wextra -Werror -std=gnu11 \
		-o $@ $< $(BUILD)/userspace/librdmacm/util.pic.o \
		-L$(dir $(LIBRDMACM)) -l:librdmacm.so.1 -l:libibverbs.so.1

# The checklist is an rdma-core program: the system's <rdma/rdma_cma.h>,
# linked against our two libraries (and <xib/ucma.h> for its raw ABI checks).
$(BUILD)/tests/c/rdmacm_checklist: tests/c/rdmacm_checklist.c $(LIBRDMACM) include/uapi/xib/ucma.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -o $@ $< \
		-L$(dir $(LIBRDMACM)) -l:librdmacm.so.1 -l:libibverbs.so.1 -lpthread

# The event thread against rdma_destroy_qp (cmtime's client): the program
# defines ibv_modify_qp and ibv_destroy_qp, exported (-rdynamic) so that
# librdmacm's calls reach them first; they forward with dlsym(RTLD_NEXT).
userspace: $(BUILD)/tests/c/rdmacm_race
$(BUILD)/tests/c/rdmacm_race: tests/c/rdmacm_race.c $(LIBRDMACM)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -Wall -Wextra -Werror -rdynamic -o $@ $< \
		-L$(dir $(LIBRDMACM)) -l:librdmacm.so.1 -l:libibverbs.so.1 -ldl -lpthread

# The rsockets sources again, linked against the system's librdmacm and
# libibverbs: preloaded under rdma-core's own rstream/rcopy/riostream, it
# runs xib's rsockets over rdma_rxe against rdma-core's (tests/bats/
# rsockets.bats), so the wire protocol is tested without xib's CM.
RSOCKET_SYS := $(BUILD)/tests/lib/librsocket-sys.so
RSOCKET_SRCS := userspace/librdmacm/rsocket.c userspace/librdmacm/rsocket_dgram.c
userspace: $(RSOCKET_SYS)
$(RSOCKET_SYS): $(RSOCKET_SRCS) userspace/librdmacm/rsocket_int.h userspace/librdmacm/rsocket_wire.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -fPIC -fvisibility=hidden -shared -o $@ $(RSOCKET_SRCS) \
		-Wl,-z,now -Wl,-z,defs -lrdmacm -libverbs -lpthread

# rsockets API semantics, linked with the system's librdmacm: run as is
# (rdma-core's rsockets, the reference) and with $(RSOCKET_SYS) preloaded.
userspace: $(BUILD)/tests/c/rsocket_api
$(BUILD)/tests/c/rsocket_api: tests/c/rsocket_api.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XIB_CFLAGS) -o $@ $< -lrdmacm -lpthread
