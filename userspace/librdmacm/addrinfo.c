// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: rdma_getaddrinfo and rdma_freeaddrinfo, over getaddrinfo(3).
 *
 * One struct rdma_addrinfo for the first address getaddrinfo gives (as
 * rdma-core's without ibacm): RAI_PASSIVE puts it in ai_src_addr (a
 * listener's), else in ai_dst_addr, with the hints' ai_src_addr copied
 * as the source.  The port space and QP type are the hints' (RDMA_PS_TCP
 * and IBV_QPT_RC by default; RDMA_PS_UDP and RDMA_PS_IPOIB give
 * IBV_QPT_UD; the XRC types, with RDMA_PS_IB, are kept as given).  AF_IB and the route and connect data of the hints are
 * not supported: EAI_FAMILY / EAI_BADFLAGS.
 *
 * Errors: the getaddrinfo code (non-zero, for gai_strerror, as rdma-core's
 * programs print it), with errno set as well: ENOENT for a name that does
 * not resolve, EINVAL for bad arguments, ENOMEM.
 */
#define _GNU_SOURCE	/* EAI_NODATA, EAI_ADDRFAMILY */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm.h"

#define XCM_RAI_KNOWN (RAI_PASSIVE | RAI_NUMERICHOST | RAI_NOROUTE | RAI_FAMILY)

static int xcm_gai_errno(int eai)
{
	switch (eai) {
	case EAI_NONAME:
	case EAI_NODATA:
	case EAI_SERVICE:
	case EAI_ADDRFAMILY:
		return ENOENT;
	case EAI_MEMORY:
		return ENOMEM;
	case EAI_SYSTEM:
		return errno ? errno : EIO;
	case EAI_AGAIN:
		return EAGAIN;
	}
	return EINVAL;
}

static struct sockaddr *xcm_sockaddr_dup(const struct sockaddr *sa, socklen_t *len)
{
	struct sockaddr *copy;

	*len = xcm_sockaddr_len(sa);
	if (!*len)
		return NULL;
	copy = malloc(*len);
	if (copy)
		memcpy(copy, sa, *len);
	return copy;
}

XCM_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *next;

	for (; res; res = next) {
		next = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}

static int xcm_hints_check(const struct rdma_addrinfo *hints)
{
	if (hints->ai_flags & ~XCM_RAI_KNOWN)
		return EAI_BADFLAGS;
	if (hints->ai_family && hints->ai_family != AF_INET &&
	    hints->ai_family != AF_INET6)
		return EAI_FAMILY;
	if (hints->ai_route_len || hints->ai_route || hints->ai_connect_len ||
	    hints->ai_connect)
		return EAI_BADFLAGS;
	switch (hints->ai_port_space) {
	case 0:
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
	case RDMA_PS_IB:
		break;
	default:
		return EAI_SERVICE;
	}
	switch (hints->ai_qp_type) {
	case 0:
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		break;
	default:
		return EAI_SERVICE;
	}
	if (hints->ai_src_addr && !xcm_sockaddr_len(hints->ai_src_addr))
		return EAI_FAMILY;
	if (hints->ai_dst_addr && !xcm_sockaddr_len(hints->ai_dst_addr))
		return EAI_FAMILY;
	return 0;
}

static int xcm_getaddrinfo(const char *node, const char *service,
			   const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo none;
	struct addrinfo ghints, *ai = NULL;
	struct rdma_addrinfo *rai;
	struct sockaddr *sa;
	socklen_t len;
	int ret;

	if (!res || (!node && !service))
		return EAI_NONAME;
	if (!hints)
		hints = &none;
	ret = xcm_hints_check(hints);
	if (ret)
		return ret;

	rai = calloc(1, sizeof(*rai));
	if (!rai)
		return EAI_MEMORY;
	rai->ai_flags = hints->ai_flags;
	rai->ai_port_space = hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
	rai->ai_qp_type = hints->ai_qp_type;
	if (!rai->ai_qp_type)
		rai->ai_qp_type = (rai->ai_port_space == RDMA_PS_UDP ||
				   rai->ai_port_space == RDMA_PS_IPOIB) ?
				  IBV_QPT_UD : IBV_QPT_RC;

	memset(&ghints, 0, sizeof(ghints));
	ghints.ai_family = hints->ai_family;
	ghints.ai_socktype = rai->ai_qp_type == IBV_QPT_UD ? SOCK_DGRAM : SOCK_STREAM;
	if (hints->ai_flags & RAI_PASSIVE)
		ghints.ai_flags |= AI_PASSIVE;
	if (hints->ai_flags & RAI_NUMERICHOST)
		ghints.ai_flags |= AI_NUMERICHOST;

	if (node || !(hints->ai_flags & RAI_PASSIVE) || service) {
		ret = getaddrinfo(node, service, &ghints, &ai);
		if (ret)
			goto free_rai;
		sa = xcm_sockaddr_dup(ai->ai_addr, &len);
		if (!sa) {
			ret = len ? EAI_MEMORY : EAI_FAMILY;
			goto free_ai;
		}
		rai->ai_family = ai->ai_family;
		if (hints->ai_flags & RAI_PASSIVE) {
			rai->ai_src_addr = sa;
			rai->ai_src_len = len;
		} else {
			rai->ai_dst_addr = sa;
			rai->ai_dst_len = len;
		}
		freeaddrinfo(ai);
		ai = NULL;
	}
	if (!rai->ai_src_addr && hints->ai_src_addr) {
		rai->ai_src_addr = xcm_sockaddr_dup(hints->ai_src_addr, &rai->ai_src_len);
		if (!rai->ai_src_addr) {
			ret = EAI_MEMORY;
			goto free_rai;
		}
	}
	if (!rai->ai_dst_addr && hints->ai_dst_addr) {
		rai->ai_dst_addr = xcm_sockaddr_dup(hints->ai_dst_addr, &rai->ai_dst_len);
		if (!rai->ai_dst_addr) {
			ret = EAI_MEMORY;
			goto free_rai;
		}
	}
	if (!rai->ai_family)
		rai->ai_family = rai->ai_src_addr ? rai->ai_src_addr->sa_family :
				 rai->ai_dst_addr ? rai->ai_dst_addr->sa_family : AF_INET;
	*res = rai;
	return 0;

free_ai:
	freeaddrinfo(ai);
free_rai:
	rdma_freeaddrinfo(rai);
	return ret;
}

XCM_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
				const struct rdma_addrinfo *hints,
				struct rdma_addrinfo **res)
{
	int ret, err = errno;

	if (res)
		*res = NULL;
	ret = xcm_getaddrinfo(node, service, hints, res);
	if (ret)
		errno = xcm_gai_errno(ret);
	else
		errno = err;
	return ret;
}
