// SPDX-License-Identifier: BSD-2-Clause
/* Whole RoCEv2 frames for raw sockets: see xib_roce.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xib_roce.h"

void xr_put16(uint8_t *p, uint32_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void xr_put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

void xr_put32(uint8_t *p, uint32_t v)
{
	xr_put16(p, v >> 16);
	xr_put16(p + 2, v);
}

/* CRC-32 of Ethernet, reflected, over @len bytes, continuing @crc. */
static uint32_t crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

static bool is_v6(const uint8_t *pkt)
{
	return pkt[0] >> 4 == 6;
}

static size_t ip_len(const uint8_t *pkt)
{
	return is_v6(pkt) ? XR_IP6_LEN : XR_IP_LEN;
}

/*
 * 8 bytes of 0xff for the LRH, then the packet with the IP header's
 * variant fields (IPv4: TOS, TTL, checksum; IPv6: traffic class, flow
 * label, hop limit), the UDP checksum and the BTH's resv8a as all ones.
 */
uint32_t xr_icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t hdr[XR_IP6_LEN + XR_UDP_LEN + XR_BTH_LEN];
	size_t iph = ip_len(pkt);
	size_t hl = iph + XR_UDP_LEN + XR_BTH_LEN;
	size_t n = len < hl ? len : hl;
	uint32_t crc;

	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, pkt, n);
	if (is_v6(pkt)) {
		hdr[0] |= 0x0f;
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff;
	} else {
		hdr[1] = 0xff;
		hdr[8] = 0xff;
		hdr[10] = hdr[11] = 0xff;
	}
	hdr[iph + 6] = hdr[iph + 7] = 0xff;
	hdr[iph + XR_UDP_LEN + 4] = 0xff;
	crc = crc32_le(~0u, lrh, sizeof(lrh));
	crc = crc32_le(crc, hdr, n);
	if (len > n)
		crc = crc32_le(crc, pkt + n, len - n);
	return ~crc;
}

void xr_set_len(uint8_t *pkt, size_t len)
{
	if (is_v6(pkt)) {
		xr_put16(pkt + 4, len - XR_IP6_LEN);	/* payload length */
		xr_put16(pkt + XR_IP6_LEN + 4, len - XR_IP6_LEN);
		return;
	}
	xr_put16(pkt + 2, len);
	xr_put16(pkt + XR_IP_LEN + 4, len - XR_IP_LEN);
}

/* One's complement sum of @len bytes as 16-bit big-endian words, into @sum. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/*
 * The UDP checksum of the IPv6 frame in @pkt, @len bytes: over the
 * pseudo-header (addresses, UDP length, next header 17) and the UDP
 * header and payload, with the checksum field as zero (RFC 8200 8.1).
 */
static uint16_t udp6_csum(const uint8_t *pkt, size_t len)
{
	uint32_t ulen = len - XR_IP6_LEN, sum = 0;
	const uint8_t *udp = pkt + XR_IP6_LEN;

	sum = csum_add(sum, pkt + 8, 32);	/* source and destination */
	sum += ulen >> 16;
	sum += ulen & 0xffff;
	sum += IPPROTO_UDP;
	sum = csum_add(sum, udp, 6);		/* ports and length */
	sum = csum_add(sum, udp + XR_UDP_LEN, ulen - XR_UDP_LEN);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return sum ? sum : 0xffff;		/* 0 would mean none */
}

size_t xr_seal(uint8_t *pkt, size_t len)
{
	uint32_t crc;

	xr_set_len(pkt, len + XR_ICRC_LEN);
	crc = xr_icrc(pkt, len);
	pkt[len] = crc;
	pkt[len + 1] = crc >> 8;
	pkt[len + 2] = crc >> 16;
	pkt[len + 3] = crc >> 24;
	len += XR_ICRC_LEN;
	if (is_v6(pkt) && len >= XR_IP6_LEN + XR_UDP_LEN)
		xr_put16(pkt + XR_IP6_LEN + 6, udp6_csum(pkt, len));
	return len;
}

/* UDP header, BTH, @ext, @plen bytes of @fill and the pad, at @p. */
static void put_roce(uint8_t *p, uint16_t sport, uint8_t opcode, uint32_t dqpn,
		     uint32_t psn, uint32_t pad, const uint8_t *ext, size_t extlen,
		     uint8_t fill, size_t plen)
{
	xr_put16(p, sport);
	xr_put16(p + 2, XR_ROCE_PORT);	/* checksum 0: none yet */
	p += XR_UDP_LEN;
	p[0] = opcode;
	p[1] = pad << 4;
	xr_put16(p + 2, 0xffff);	/* default P_Key */
	xr_put24(p + 5, dqpn);
	p[8] = 0x80;			/* AckReq */
	xr_put24(p + 9, psn);
	p += XR_BTH_LEN;
	if (extlen)
		memcpy(p, ext, extlen);
	p += extlen;
	memset(p, fill, plen);
}

size_t xr_frame(uint8_t *pkt, uint32_t src, uint32_t dst, uint16_t sport,
		uint8_t opcode, uint32_t dqpn, uint32_t psn,
		const uint8_t *ext, size_t extlen, uint8_t fill, size_t plen)
{
	static uint16_t ip_id = 0x5e00;
	uint32_t pad = (4 - plen % 4) % 4;
	size_t len = XR_BTH_OFF + XR_BTH_LEN + extlen + plen + pad;
	uint8_t *p = pkt;

	if (len + XR_ICRC_LEN > XR_FRAME_MAX)
		return 0;
	memset(pkt, 0, len + XR_ICRC_LEN);
	/* IPv4; the kernel fills the checksum (masked in the ICRC) */
	p[0] = 0x45;
	xr_put16(p + 4, ++ip_id);	/* not 0: the kernel keeps it */
	xr_put16(p + 6, 0x4000);	/* DF */
	p[8] = 64;
	p[9] = IPPROTO_UDP;
	memcpy(p + 12, &src, 4);
	memcpy(p + 16, &dst, 4);
	/* UDP checksum 0: none, which IPv4 allows */
	put_roce(p + XR_IP_LEN, sport, opcode, dqpn, psn, pad, ext, extlen, fill, plen);
	xr_set_len(pkt, len + XR_ICRC_LEN);
	return len;
}

size_t xr_frame6(uint8_t *pkt, const uint8_t *src, const uint8_t *dst,
		 uint16_t sport, uint8_t opcode, uint32_t dqpn, uint32_t psn,
		 const uint8_t *ext, size_t extlen, uint8_t fill, size_t plen)
{
	uint32_t pad = (4 - plen % 4) % 4;
	size_t len = XR_IP6_LEN + XR_UDP_LEN + XR_BTH_LEN + extlen + plen + pad;

	if (len + XR_ICRC_LEN > XR_FRAME_MAX)
		return 0;
	memset(pkt, 0, len + XR_ICRC_LEN);
	pkt[0] = 0x60;			/* version 6, traffic class and flow label 0 */
	pkt[6] = IPPROTO_UDP;
	pkt[7] = 64;			/* hop limit */
	memcpy(pkt + 8, src, 16);
	memcpy(pkt + 24, dst, 16);
	put_roce(pkt + XR_IP6_LEN, sport, opcode, dqpn, psn, pad, ext, extlen, fill, plen);
	xr_set_len(pkt, len + XR_ICRC_LEN);
	return len;
}

int xr_raw_socket(const char *ns_path)
{
	return xr_raw_socket_af(ns_path, AF_INET);
}

int xr_raw_socket_af(const char *ns_path, int af)
{
	int here = -1, fd = -1, s = -1, err;

	if (ns_path) {
		here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		fd = open(ns_path, O_RDONLY | O_CLOEXEC);
		if (here < 0 || fd < 0 || setns(fd, CLONE_NEWNET))
			goto out;
	}
	/* IPPROTO_RAW: header included, for IPv6 too (Linux raw(7), ipv6(7)) */
	s = socket(af, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (ns_path && setns(here, CLONE_NEWNET)) {
		err = errno;
		if (s >= 0)
			close(s);
		s = -1;
		errno = err;
	}
out:
	err = errno;
	if (fd >= 0)
		close(fd);
	if (here >= 0)
		close(here);
	errno = err;
	return s;
}

int xr_send(int sock, const uint8_t *pkt, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6 };

	if (is_v6(pkt)) {
		memcpy(&to6.sin6_addr, pkt + 24, 16);
		return sendto(sock, pkt, len, 0, (struct sockaddr *)&to6,
			      sizeof(to6)) < 0 ? -1 : 0;
	}
	memcpy(&to.sin_addr.s_addr, pkt + 16, 4);
	return sendto(sock, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ? -1 : 0;
}
