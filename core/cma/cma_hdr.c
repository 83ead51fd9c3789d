// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA CM private-data header of the TCP and UDP port spaces, as the
 * Linux rdma_cm puts it in front of the user's private data of a REQ or
 * SIDR_REQ (36 bytes):
 *
 *	byte 0		CM version (0x00)
 *	byte 1		IP version in the upper nibble (4 or 6)
 *	bytes 2..3	the source (active side's) port, network order
 *	bytes 4..19	the source address
 *	bytes 20..35	the destination address
 *
 * An IPv4 address takes the last 4 bytes of its 16, the rest zero.  The
 * service ID of an IP port space is 0x0000_0000_01PP_PPNN_NN: the port
 * space in bits 16..31 and the port in bits 0..15.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <xib/xib_cma.h>

/**
 * xib_cma_hdr_encode() - build the header of a connection request
 * @hdr: filled in
 * @src: the active side's address and port
 * @dst: the passive side's address; same family as @src
 *
 * Return: 0, or -EAFNOSUPPORT for a family other than AF_INET/AF_INET6 or
 * mixed families.
 */
int xib_cma_hdr_encode(u8 hdr[XIB_CMA_HDR_SIZE], const struct sockaddr *src,
		       const struct sockaddr *dst)
{
	memset(hdr, 0, XIB_CMA_HDR_SIZE);
	if (src->sa_family != dst->sa_family)
		return -EAFNOSUPPORT;
	hdr[0] = XIB_CMA_VERSION;
	if (src->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)src;
		const struct sockaddr_in *d = (const void *)dst;

		hdr[1] = 4 << 4;
		memcpy(&hdr[2], &s->sin_port, 2);
		memcpy(&hdr[4 + 12], &s->sin_addr, 4);
		memcpy(&hdr[20 + 12], &d->sin_addr, 4);
		return 0;
	}
	if (src->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)src;
		const struct sockaddr_in6 *d = (const void *)dst;

		hdr[1] = 6 << 4;
		memcpy(&hdr[2], &s->sin6_port, 2);
		memcpy(&hdr[4], &s->sin6_addr, 16);
		memcpy(&hdr[20], &d->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}
EXPORT_SYMBOL_GPL(xib_cma_hdr_encode);

/**
 * xib_cma_hdr_decode() - parse the header of a received request
 * @buf: the private data (untrusted)
 * @len: its length
 * @info: filled in; the destination's port is left 0 (it is the
 *	service's, from the service ID)
 *
 * Return: 0, or -EINVAL for a short buffer, an unknown CM version or an
 * IP version other than 4 and 6.
 */
int xib_cma_hdr_decode(const u8 *buf, size_t len,
		       struct xib_cma_hdr_info *info)
{
	static const u8 zero[12];

	memset(info, 0, sizeof(*info));
	if (len < XIB_CMA_HDR_SIZE || buf[0] != XIB_CMA_VERSION)
		return -EINVAL;
	switch (buf[1] >> 4) {
	case 4: {
		struct sockaddr_in *s = (void *)&info->src;
		struct sockaddr_in *d = (void *)&info->dst;

		/* The padding of an IPv4 address must be zero. */
		if (memcmp(&buf[4], zero, 12) || memcmp(&buf[20], zero, 12))
			return -EINVAL;
		s->sin_family = AF_INET;
		d->sin_family = AF_INET;
		memcpy(&s->sin_port, &buf[2], 2);
		memcpy(&s->sin_addr, &buf[4 + 12], 4);
		memcpy(&d->sin_addr, &buf[20 + 12], 4);
		return 0;
	}
	case 6: {
		struct sockaddr_in6 *s = (void *)&info->src;
		struct sockaddr_in6 *d = (void *)&info->dst;

		s->sin6_family = AF_INET6;
		d->sin6_family = AF_INET6;
		memcpy(&s->sin6_port, &buf[2], 2);
		memcpy(&s->sin6_addr, &buf[4], 16);
		memcpy(&d->sin6_addr, &buf[20], 16);
		return 0;
	}
	default:
		memset(info, 0, sizeof(*info));
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(xib_cma_hdr_decode);

/**
 * xib_cma_service_id() - the IB service ID of an IP port space's port
 * @ps: the port space
 * @port: the port, host order
 *
 * Return: the service ID, network order.
 */
__be64 xib_cma_service_id(enum xib_cma_ps ps, u16 port)
{
	return cpu_to_be64(((u64)ps << 16) | port);
}
EXPORT_SYMBOL_GPL(xib_cma_service_id);
