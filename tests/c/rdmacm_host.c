// SPDX-License-Identifier: BSD-2-Clause
/*
 * rdmacm_host: what xib's librdmacm decides without a kernel, on the
 * build machine (tests/bats/host/rdmacm.bats runs it through xib-run):
 * rdma_event_str, rdma_set_option's argument checks, rdma_getaddrinfo,
 * the address conversions, the errors of a missing /dev/xib/rdma_cm and
 * of NULL arguments, what rsockets decide without a connection.  Prints TAP; exits 1 on any
 * failure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "rdmacm.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

static void test_event_str(void)
{
	static const char *const want[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	const char *(*str)(enum rdma_cm_event_type);
	void *lib;
	int i, good = 1;

	/* the library's own, at its version node (util.o is linked too) */
	lib = dlopen("librdmacm.so.1", RTLD_NOW | RTLD_NOLOAD);
	str = lib ? dlvsym(lib, "rdma_event_str", "RDMACM_1.0") : NULL;
	ok(str != NULL, "rdma_event_str@RDMACM_1.0 in the loaded librdmacm.so.1");
	if (!str)
		return;
	for (i = 0; i < 16; i++)
		if (strcmp(str((enum rdma_cm_event_type)i), want[i]))
			good = 0;
	ok(good, "rdma_event_str: the 16 event names, in enum order");
	ok(!strcmp(str((enum rdma_cm_event_type)16), "UNKNOWN EVENT") &&
	   !strcmp(str((enum rdma_cm_event_type)-1), "UNKNOWN EVENT"),
	   "rdma_event_str: out of range gives \"UNKNOWN EVENT\"");
}

static int opt(int level, int name, const void *val, size_t len, uint64_t *v)
{
	errno = 0;
	return xcm_option_value(level, name, val, len, v);
}

static void test_options(void)
{
	uint8_t u8 = 0x28, big = 32;
	int one = 5, zero = 0;
	uint64_t v = 0;

	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &u8, 1, &v) == 0 && v == 0x28,
	   "option TOS: a uint8_t");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &one, sizeof(int), &v) && errno == EINVAL,
	   "option TOS: an int is EINVAL");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(int), &v) == 0 && v == 1,
	   "option REUSEADDR: an int, non-zero is 1");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &zero, sizeof(int), &v) == 0 && v == 0,
	   "option AFONLY: 0");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &u8, 1, &v) && errno == EINVAL,
	   "option AFONLY: one byte is EINVAL");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &u8, 1, &v) && errno == EINVAL,
	   "option ACK_TIMEOUT: 40 is EINVAL (5 bits)");
	u8 = 14;
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &u8, 1, &v) == 0 && v == 14,
	   "option ACK_TIMEOUT: 14");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &big, 1, &v) && errno == EINVAL,
	   "option ACK_TIMEOUT: 32 is EINVAL");
	ok(opt(RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 1, &v) && errno == EINVAL,
	   "option: NULL optval is EINVAL");
	ok(opt(RDMA_OPTION_ID, 99, &one, sizeof(int), &v) && errno == ENOSYS,
	   "option: unknown name is ENOSYS");
	ok(opt(7, RDMA_OPTION_ID_TOS, &u8, 1, &v) && errno == ENOSYS,
	   "option: unknown level is ENOSYS");
	ok(opt(RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &one, sizeof(int), &v) &&
	   errno == EOPNOTSUPP, "option IB_PATH: EOPNOTSUPP (RoCE)");
	errno = 0;
	ok(rdma_set_option(NULL, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &u8, 1) == -1 &&
	   errno == EINVAL, "rdma_set_option(NULL id): -1, EINVAL");
}

static void test_getaddrinfo(void)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin, src;
	struct sockaddr_in6 *sin6;
	int ret;

	ret = rdma_getaddrinfo("127.0.0.1", "7471", NULL, &res);
	sin = res ? (struct sockaddr_in *)res->ai_dst_addr : NULL;
	ok(ret == 0 && res && sin && sin->sin_family == AF_INET &&
	   sin->sin_port == htons(7471) && sin->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
	   res->ai_dst_len == sizeof(*sin) && !res->ai_src_addr &&
	   res->ai_port_space == RDMA_PS_TCP && res->ai_qp_type == IBV_QPT_RC &&
	   res->ai_family == AF_INET && !res->ai_next,
	   "getaddrinfo: active IPv4, TCP port space, RC, destination only");
	rdma_freeaddrinfo(res);

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	res = NULL;
	ret = rdma_getaddrinfo(NULL, "7471", &hints, &res);
	sin = res ? (struct sockaddr_in *)res->ai_src_addr : NULL;
	ok(ret == 0 && sin && res->ai_flags == RAI_PASSIVE && !res->ai_dst_addr &&
	   sin->sin_port == htons(7471) &&
	   (sin->sin_family != AF_INET || sin->sin_addr.s_addr == INADDR_ANY),
	   "getaddrinfo: RAI_PASSIVE, no node: the wildcard source with the port");
	rdma_freeaddrinfo(res);

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_flags = RAI_NUMERICHOST;
	res = NULL;
	ret = rdma_getaddrinfo("::1", "18515", &hints, &res);
	sin6 = res ? (struct sockaddr_in6 *)res->ai_dst_addr : NULL;
	ok(ret == 0 && sin6 && sin6->sin6_family == AF_INET6 &&
	   sin6->sin6_port == htons(18515) && IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) &&
	   res->ai_qp_type == IBV_QPT_UD && res->ai_port_space == RDMA_PS_UDP,
	   "getaddrinfo: IPv6, UDP port space gives UD");
	rdma_freeaddrinfo(res);

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f000002);
	memset(&hints, 0, sizeof(hints));
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	res = NULL;
	ret = rdma_getaddrinfo("127.0.0.1", "1", &hints, &res);
	sin = res ? (struct sockaddr_in *)res->ai_src_addr : NULL;
	ok(ret == 0 && sin && sin != &src && sin->sin_addr.s_addr == src.sin_addr.s_addr &&
	   res->ai_src_len == sizeof(src),
	   "getaddrinfo: the hints' source is copied for an active side");
	rdma_freeaddrinfo(res);

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	res = (struct rdma_addrinfo *)&hints;
	errno = 0;
	ret = rdma_getaddrinfo("not.an.address", "1", &hints, &res);
	ok(ret != 0 && res == NULL && errno == ENOENT,
	   "getaddrinfo: RAI_NUMERICHOST with a name fails, ENOENT, *res NULL");

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = 0x100;
	ok(rdma_getaddrinfo("127.0.0.1", "1", &hints, &res) == EAI_BADFLAGS && errno == EINVAL,
	   "getaddrinfo: unknown flags: EAI_BADFLAGS, EINVAL");
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_IB;
	ok(rdma_getaddrinfo("127.0.0.1", "1", &hints, &res) == EAI_FAMILY,
	   "getaddrinfo: AF_IB: EAI_FAMILY");
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = 0x4242;
	ok(rdma_getaddrinfo("127.0.0.1", "1", &hints, &res) != 0,
	   "getaddrinfo: an unknown port space is refused");
	ok(rdma_getaddrinfo(NULL, NULL, NULL, &res) != 0 && res == NULL,
	   "getaddrinfo: neither node nor service is refused");
	rdma_freeaddrinfo(NULL);
	ok(1, "rdma_freeaddrinfo(NULL) is a no-op");
}

static void test_addr(void)
{
	struct sockaddr_in6 s6, *b6;
	struct sockaddr_storage back;
	struct sockaddr_ib sib;
	struct xib_ucma_addr k;

	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_port = htons(4791);
	s6.sin6_scope_id = 3;
	inet_pton(AF_INET6, "fe80::1", &s6.sin6_addr);
	ok(xcm_addr_from_sockaddr(&k, (struct sockaddr *)&s6) == 0 && k.family == AF_INET6 &&
	   k.port == htons(4791) && k.scope_id == 3 && k.reserved == 0,
	   "address: IPv6 into the ABI's form");
	xcm_addr_to_sockaddr(&back, &k);
	b6 = (struct sockaddr_in6 *)&back;
	ok(!memcmp(b6, &s6, sizeof(s6)), "address: and back, unchanged");
	memset(&sib, 0, sizeof(sib));
	sib.sib_family = AF_IB;
	errno = 0;
	ok(xcm_addr_from_sockaddr(&k, (struct sockaddr *)&sib) == -1 && errno == EAFNOSUPPORT,
	   "address: AF_IB is EAFNOSUPPORT");
}

static void test_no_kernel(void)
{
	struct rdma_cm_event *ev = (struct rdma_cm_event *)&ev;
	struct rdma_cm_id *id = (struct rdma_cm_id *)&id;

	if (access(XCM_DEV_PATH, F_OK) == 0) {
		printf("ok %d # skip " XCM_DEV_PATH " exists here\n", ++n);
	} else {
		struct rdma_event_channel *ch;

		errno = 0;
		ch = rdma_create_event_channel();
		ok(!ch && errno == ENODEV,
		   "no " XCM_DEV_PATH ": rdma_create_event_channel is NULL, ENODEV");
		errno = 0;
		ok(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == -1 && errno == ENODEV &&
		   !id, "no " XCM_DEV_PATH ": synchronous rdma_create_id is -1, ENODEV");
	}
	errno = 0;
	ok(rdma_create_id(NULL, &id, NULL, (enum rdma_port_space)0x4242) == -1 &&
	   errno == EINVAL, "rdma_create_id: an unknown port space is EINVAL");
	errno = 0;
	ok(rdma_get_cm_event(NULL, &ev) == -1 && errno == EINVAL && !ev,
	   "rdma_get_cm_event(NULL channel): -1, EINVAL, *event NULL");
	errno = 0;
	ok(rdma_ack_cm_event(NULL) == -1 && errno == EINVAL, "rdma_ack_cm_event(NULL): EINVAL");
	errno = 0;
	ok(rdma_destroy_id(NULL) == -1 && errno == EINVAL, "rdma_destroy_id(NULL): EINVAL");
	ok(rdma_get_src_port(NULL) == 0 && rdma_get_dst_port(NULL) == 0,
	   "rdma_get_src_port/dst_port(NULL): 0");
	rdma_destroy_event_channel(NULL);
	rdma_destroy_qp(NULL);
	rdma_destroy_ep(NULL);
	rdma_free_devices(NULL);
	ok(1, "the void destructors take NULL");
	/* rsockets (rsocket.c): what needs no connection */
	errno = 0;
	ok(rsocket(AF_INET, SOCK_STREAM, 0) == -1 && errno == ENODEV,
	   "rsocket(SOCK_STREAM) without /dev/xib/rdma_cm: -1, ENODEV");
	errno = 0;
	ok(rsocket(AF_INET, SOCK_RAW, 0) == -1 && errno == ENOTSUP,
	   "rsocket(SOCK_RAW): -1, ENOTSUP");
	errno = 0;
	ok(rsocket(AF_UNIX, SOCK_STREAM, 0) == -1 && errno == EAFNOSUPPORT,
	   "rsocket(AF_UNIX): -1, EAFNOSUPPORT");
	errno = 0;
	ok(riowrite(0, "", 1, 0, 0) == (size_t)-1 && errno == EBADF,
	   "riowrite on a descriptor that is not an rsocket: (size_t)-1, EBADF");
	errno = 0;
	ok(rsend(0, "", 1, 0) == -1 && errno == EBADF && rclose(0) == -1 && errno == EBADF,
	   "rsend, rclose on a descriptor that is not an rsocket: EBADF");
	{
		struct pollfd pf = { .fd = 0, .events = 0 };
		int dg = rsocket(AF_INET, SOCK_DGRAM, 0);

		/* a normal descriptor through rpoll: poll()'s answer */
		ok(rpoll(&pf, 1, 0) == 0, "rpoll of a normal descriptor, no events: 0");
		/* a datagram rsocket needs no CM until it is bound or used */
		ok(dg >= 0 && rclose(dg) == 0, "rsocket(SOCK_DGRAM) and rclose without a device");
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_event_str();
	test_options();
	test_getaddrinfo();
	test_addr();
	test_no_kernel();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
