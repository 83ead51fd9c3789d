// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca: the RoCEv2 invariant CRC (IBTA vol. 1 Annex A17).
 *
 * The ICRC is the CRC-32 of Ethernet (reflected polynomial 0xedb88320,
 * initial value all ones, result inverted) over
 *
 *   8 bytes of 0xff      standing in for the masked LRH of an IB packet
 *   the IP header        IPv4: TOS (DSCP, ECN), TTL and header checksum
 *                        set to all ones; IPv6: traffic class, flow
 *                        label and hop limit set to all ones
 *   the UDP header       checksum set to all ones
 *   the BTH              resv8a (byte 4: FECN, BECN) set to all ones
 *   the rest             extension headers, payload and pad
 *
 * and is stored least significant byte first after the pad.  The variant
 * fields are masked in small copies on the stack; the packet itself is
 * never written except by xib_icrc_fill().
 */

#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "hca_wire.h"

#define XIB_UDP_HLEN	8
#define XIB_IPV4_MIN	20
#define XIB_IPV4_MAX	60
#define XIB_IPV6_HLEN	40

/* Length of the IP header at @ip, or a negative errno if @len cannot hold
 * it followed by the UDP header, the BTH and @extra more bytes.
 */
static int xib_icrc_ip_len(const u8 *ip, size_t len, size_t extra)
{
	size_t hlen;

	if (len < 1)
		return -EINVAL;
	switch (ip[0] >> 4) {
	case 4:
		hlen = (ip[0] & 0x0f) * 4;
		if (hlen < XIB_IPV4_MIN)
			return -EINVAL;
		break;
	case 6:
		hlen = XIB_IPV6_HLEN;
		break;
	default:
		return -EPROTONOSUPPORT;
	}
	if (len < hlen + XIB_UDP_HLEN + XIB_BTH_LEN + extra)
		return -EINVAL;
	return hlen;
}

static u32 xib_icrc_calc(const u8 *ip, size_t hlen, size_t len)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	u8 buf[XIB_IPV4_MAX];
	const u8 *p;
	u32 crc;

	crc = crc32_le(~0U, lrh, sizeof(lrh));

	memcpy(buf, ip, hlen);
	if ((ip[0] >> 4) == 6) {
		buf[0] |= 0x0f;			/* traffic class ... */
		buf[1] = 0xff;			/* ... and flow label */
		buf[2] = 0xff;
		buf[3] = 0xff;
		buf[7] = 0xff;			/* hop limit */
	} else {
		buf[1] = 0xff;			/* TOS: DSCP and ECN */
		buf[8] = 0xff;			/* TTL */
		buf[10] = 0xff;			/* header checksum */
		buf[11] = 0xff;
	}
	crc = crc32_le(crc, buf, hlen);

	p = ip + hlen;
	memcpy(buf, p, XIB_UDP_HLEN);
	buf[6] = 0xff;				/* UDP checksum */
	buf[7] = 0xff;
	crc = crc32_le(crc, buf, XIB_UDP_HLEN);

	p += XIB_UDP_HLEN;
	memcpy(buf, p, XIB_BTH_LEN);
	buf[4] = 0xff;				/* resv8a */
	crc = crc32_le(crc, buf, XIB_BTH_LEN);

	p += XIB_BTH_LEN;
	crc = crc32_le(crc, p, len - (p - ip));
	return ~crc;
}

/**
 * xib_icrc_compute() - the ICRC a RoCEv2 packet should carry
 * @ip_hdr: the IPv4 or IPv6 header
 * @len: bytes from @ip_hdr up to the ICRC (excluded)
 * @icrc: the ICRC, as a number (stored little-endian on the wire)
 *
 * Return: 0, or -EINVAL if @len cannot hold the IP, UDP and BTH headers,
 * -EPROTONOSUPPORT if the IP version is neither 4 nor 6.
 */
int xib_icrc_compute(const void *ip_hdr, size_t len, u32 *icrc)
{
	int hlen = xib_icrc_ip_len(ip_hdr, len, 0);

	if (hlen < 0)
		return hlen;
	*icrc = xib_icrc_calc(ip_hdr, hlen, len);
	return 0;
}

/**
 * xib_icrc_check() - verify a received packet's ICRC
 * @ip_hdr: the IPv4 or IPv6 header
 * @len: bytes from @ip_hdr to the end of the packet, ICRC included
 *
 * Return: 0 if the ICRC is right, -EBADMSG if it is wrong, or an error of
 * xib_icrc_compute().
 */
int xib_icrc_check(const void *ip_hdr, size_t len)
{
	const u8 *ip = ip_hdr;
	int hlen = xib_icrc_ip_len(ip, len, XIB_ICRC_LEN);

	if (hlen < 0)
		return hlen;
	len -= XIB_ICRC_LEN;
	if (xib_icrc_calc(ip, hlen, len) != get_unaligned_le32(ip + len))
		return -EBADMSG;
	return 0;
}

/**
 * xib_icrc_fill() - compute and store the ICRC of a packet to send
 * @ip_hdr: the IPv4 or IPv6 header, with every other field final
 * @len: bytes from @ip_hdr to the end of the packet, ICRC included
 *
 * Return: 0, or an error of xib_icrc_compute().
 */
int xib_icrc_fill(void *ip_hdr, size_t len)
{
	u8 *ip = ip_hdr;
	int hlen = xib_icrc_ip_len(ip, len, XIB_ICRC_LEN);

	if (hlen < 0)
		return hlen;
	len -= XIB_ICRC_LEN;
	put_unaligned_le32(xib_icrc_calc(ip, hlen, len), ip + len);
	return 0;
}
