// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: what needs no kernel.  rdma_event_str, the checks of
 * rdma_set_option's arguments and the address conversions; host tests
 * (tests/c/rdmacm_host.c) link this file on its own.
 */
#include <errno.h>
#include <infiniband/ib.h>
#include <netinet/in.h>
#include <string.h>

#include "rdmacm.h"

/* Pure table lookup, as librdmacm's: works without a CM. */
XCM_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]))
		return names[event];
	return "UNKNOWN EVENT";
}

/*
 * rdma_set_option's arguments, checked before anything reaches the
 * kernel: the option must be one xib knows, @optval non-NULL and
 * @optlen exactly the option's size (uint8_t for TOS and ACK_TIMEOUT,
 * int for REUSEADDR and AFONLY).  ENOSYS for an unknown level or name
 * (as rdma-core's kernel answers), EOPNOTSUPP for RDMA_OPTION_IB_PATH
 * (RoCE builds its paths from IP routing), EINVAL for a bad value.
 */
int xcm_option_value(int level, int optname, const void *optval, size_t optlen,
		     uint64_t *value)
{
	size_t want;
	int v;

	if (level == RDMA_OPTION_IB) {
		errno = optname == RDMA_OPTION_IB_PATH ? EOPNOTSUPP : ENOSYS;
		return -1;
	}
	if (level != RDMA_OPTION_ID) {
		errno = ENOSYS;
		return -1;
	}
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		want = sizeof(uint8_t);
		break;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		want = sizeof(int);
		break;
	default:
		errno = ENOSYS;
		return -1;
	}
	if (!optval || optlen != want) {
		errno = EINVAL;
		return -1;
	}
	if (want == sizeof(uint8_t)) {
		*value = *(const uint8_t *)optval;
		/* the local ACK timeout is a 5-bit IBTA exponent */
		if (optname == RDMA_OPTION_ID_ACK_TIMEOUT && *value > 31) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	memcpy(&v, optval, sizeof(v));
	*value = v != 0;	/* booleans, as setsockopt's */
	return 0;
}

socklen_t xcm_sockaddr_len(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	}
	return 0;
}

/* An IPv4 or IPv6 sockaddr as the ABI carries it; AF_IB is refused. */
int xcm_addr_from_sockaddr(struct xib_ucma_addr *dst, const struct sockaddr *sa)
{
	memset(dst, 0, sizeof(*dst));
	if (!sa) {
		errno = EINVAL;
		return -1;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		dst->family = AF_INET;
		dst->port = sin->sin_port;
		memcpy(dst->addr, &sin->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		dst->family = AF_INET6;
		dst->port = sin6->sin6_port;
		dst->flowinfo = sin6->sin6_flowinfo;
		memcpy(dst->addr, &sin6->sin6_addr, 16);
		dst->scope_id = sin6->sin6_scope_id;
		return 0;
	}
	errno = sa->sa_family == AF_IB ? EAFNOSUPPORT : EINVAL;
	return -1;
}

/* The kernel's answer as a sockaddr; family 0 (none) gives all zeros. */
void xcm_addr_to_sockaddr(struct sockaddr_storage *dst, const struct xib_ucma_addr *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)dst;

		sin->sin_family = AF_INET;
		sin->sin_port = src->port;
		memcpy(&sin->sin_addr, src->addr, 4);
	} else if (src->family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)dst;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = src->port;
		sin6->sin6_flowinfo = src->flowinfo;
		memcpy(&sin6->sin6_addr, src->addr, 16);
		sin6->sin6_scope_id = src->scope_id;
	}
}
