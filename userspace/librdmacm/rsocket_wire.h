/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rsockets: what goes on the wire, as rdma-core 44's librdmacm speaks it
 * (Documentation/rsockets.rst describes the protocol).  Pure functions
 * and layouts only, so that tests/host/rsocket_wire.c can check them on
 * the build machine; rsocket.c does the I/O.
 *
 * Byte order: the connection data is big-endian.  Everything one side
 * RDMA-writes into the other's memory afterwards (the SGL entries that
 * grant receive buffer, the io-map entries) is in the RECEIVER's byte
 * order: a side whose peer announced the other order swaps before it
 * writes.  Immediate data is big-endian on the wire (the verbs'
 * imm_data is already __be32).
 */
#ifndef XIB_RSOCKET_WIRE_H
#define XIB_RSOCKET_WIRE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

/* --- immediate data: 3 bits of operation, 29 bits of argument ----------- */
enum xrs_op {
	XRS_OP_DATA = 0,		/* arg: bytes written into the receive ring */
	XRS_OP_RSVD_DATA_MORE = 1,	/* never sent */
	XRS_OP_WRITE = 2,		/* riowrite: plain RDMA WRITE, never in imm */
	XRS_OP_RSVD_DRA_MORE = 3,	/* never sent */
	XRS_OP_SGL = 4,			/* arg: new send-sequence limit (credits) */
	XRS_OP_RSVD = 5,		/* never sent */
	XRS_OP_IOMAP_SGL = 6,		/* arg: io-map slot just written */
	XRS_OP_CTRL = 7,		/* arg: enum xrs_ctrl */
};

enum xrs_ctrl {
	XRS_CTRL_DISCONNECT = 0,
	XRS_CTRL_KEEPALIVE = 1,
	XRS_CTRL_SHUTDOWN = 2,
};

#define XRS_IMM_SHIFT		29
#define XRS_IMM_ARG_MASK	0x1fffffffu

static inline uint32_t xrs_imm(unsigned int op, uint32_t arg)
{
	return ((uint32_t)op << XRS_IMM_SHIFT) | (arg & XRS_IMM_ARG_MASK);
}

static inline unsigned int xrs_imm_op(uint32_t imm)
{
	return imm >> XRS_IMM_SHIFT;
}

static inline uint32_t xrs_imm_arg(uint32_t imm)
{
	return imm & XRS_IMM_ARG_MASK;
}

/* --- defaults and limits (rdma-core 44's, part of what peers expect) ----- */
#define XRS_DEF_SQSIZE		384
#define XRS_DEF_RQSIZE		384
#define XRS_DEF_INLINE		64
#define XRS_DEF_MEM		(1u << 17)	/* receive ring, both halves */
#define XRS_DEF_WMEM		(1u << 17)	/* send ring */
#define XRS_DEF_IOMAP		0
#define XRS_SNDLOWAT		2048		/* rsend waits below this much room */
#define XRS_QP_MIN_SIZE		16
#define XRS_QP_MAX_SIZE		0xfffe
#define XRS_CTRL_SLOTS		4		/* send-queue entries kept for control */
#define XRS_SGL_SIZE		2		/* receive-ring grant slots */
#define XRS_XFER_START		2048		/* first write of a large rsend */
#define XRS_XFER_MAX		65536		/* largest single write */
#define XRS_CONN_RETRIES	6
#define XRS_CONN_VERSION	1
#define XRS_CONN_FLAG_NET	0x01		/* sender is big-endian */
#define XRS_CONN_FLAG_IOMAP	0x02		/* the io-map table follows the SGL */

/* --- an SGL entry / io-map entry in memory the peer writes --------------- */
struct xrs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

struct xrs_iomap {
	uint64_t offset;
	struct xrs_sge sge;
};

_Static_assert(sizeof(struct xrs_sge) == 16, "rs_sge is 16 bytes on the wire");
_Static_assert(sizeof(struct xrs_iomap) == 24, "rs_iomap is 24 bytes on the wire");

static inline int xrs_host_big_endian(void)
{
	return __BYTE_ORDER == __BIG_ENDIAN;
}

/* @e as the peer wants it in its memory: @swap if its byte order differs. */
static inline struct xrs_sge xrs_sge_for_peer(struct xrs_sge e, int swap)
{
	if (swap) {
		e.addr = __builtin_bswap64(e.addr);
		e.key = __builtin_bswap32(e.key);
		e.length = __builtin_bswap32(e.length);
	}
	return e;
}

static inline struct xrs_iomap xrs_iomap_for_peer(struct xrs_iomap m, int swap)
{
	if (swap)
		m.offset = __builtin_bswap64(m.offset);
	m.sge = xrs_sge_for_peer(m.sge, swap);
	return m;
}

/*
 * The io-map size travels in one byte: values up to 128 as they are,
 * larger ones as 0x80 | (value / 256), so 128..32512 in steps of 256.
 */
static inline uint8_t xrs_iomap_to_byte(unsigned int value)
{
	if (value <= 0x80)
		return (uint8_t)value;
	if (value >> 8 > 0x7f)
		return 0xff;
	return (uint8_t)(0x80 | (value >> 8));
}

static inline unsigned int xrs_iomap_from_byte(uint8_t b)
{
	return b <= 0x80 ? b : (unsigned int)(b & 0x7f) << 8;
}

/* What a requested io-map size becomes (both ends agree on the byte). */
static inline unsigned int xrs_iomap_round(unsigned int value)
{
	return xrs_iomap_from_byte(xrs_iomap_to_byte(value));
}

/* --- connection private data (REQ and REP), 40 bytes, big-endian -------- */
#define XRS_CONN_DATA_LEN	40

struct xrs_conn {
	uint8_t version;
	uint8_t flags;
	uint16_t credits;		/* receive queue depth */
	uint8_t iomap_byte;		/* xrs_iomap_to_byte() of the table size */
	struct xrs_sge target;		/* the SGL (+ io-map) table; length = slots */
	struct xrs_sge data;		/* the first grant: half the receive ring */
};

static inline void xrs_put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}

static inline void xrs_put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static inline void xrs_put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t xrs_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static inline uint32_t xrs_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint64_t xrs_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Layout: ver, flags, credits(2), 3 reserved, iomap byte, 2 x {addr, key, len}. */
static inline void xrs_conn_pack(uint8_t out[XRS_CONN_DATA_LEN], const struct xrs_conn *c)
{
	memset(out, 0, XRS_CONN_DATA_LEN);
	out[0] = c->version;
	out[1] = c->flags;
	xrs_put16(out + 2, c->credits);
	out[7] = c->iomap_byte;
	xrs_put64(out + 8, c->target.addr);
	xrs_put32(out + 16, c->target.key);
	xrs_put32(out + 20, c->target.length);
	xrs_put64(out + 24, c->data.addr);
	xrs_put32(out + 32, c->data.key);
	xrs_put32(out + 36, c->data.length);
}

/* 0, or -1 if @len is short or the version is not ours. */
static inline int xrs_conn_unpack(struct xrs_conn *c, const void *buf, size_t len)
{
	const uint8_t *in = buf;

	if (!buf || len < XRS_CONN_DATA_LEN || in[0] != XRS_CONN_VERSION)
		return -1;
	c->version = in[0];
	c->flags = in[1];
	c->credits = xrs_get16(in + 2);
	c->iomap_byte = in[7];
	c->target.addr = xrs_get64(in + 8);
	c->target.key = xrs_get32(in + 16);
	c->target.length = xrs_get32(in + 20);
	c->data.addr = xrs_get64(in + 24);
	c->data.key = xrs_get32(in + 32);
	c->data.length = xrs_get32(in + 36);
	return 0;
}

/* The peer's byte order differs from ours. */
static inline int xrs_conn_swapped(const struct xrs_conn *c)
{
	return !!(c->flags & XRS_CONN_FLAG_NET) != xrs_host_big_endian();
}

/* --- credits: 16-bit message sequence numbers ---------------------------- */

/* The sender may post another data message: seq has not reached limit. */
static inline int xrs_seq_open(uint16_t seq, uint16_t limit)
{
	return seq != limit;
}

/* @a is at or past @b in 16-bit serial arithmetic. */
static inline int xrs_seq_reached(uint16_t a, uint16_t b)
{
	return (int16_t)(uint16_t)(a - b) >= 0;
}

/* --- datagrams: the header in front of every UD payload ------------------ */
#define XRS_DS_IPV4_HDR_LEN	8
#define XRS_DS_IPV6_HDR_LEN	24

/*
 * The sender's address: version 4 or 6, header length, UDP port (network
 * order), then the IPv4 address, or the IPv6 flow info and address (both
 * as in struct sockaddr_in6, network order).
 */
struct xrs_ds_hdr {
	uint8_t version;
	uint8_t length;
	uint16_t port_be;
	uint32_t addr4_be;
	uint32_t flowinfo_be;
	uint8_t addr6[16];
};

static inline size_t xrs_ds_hdr_pack(uint8_t *out, const struct xrs_ds_hdr *h)
{
	out[0] = h->version;
	out[1] = h->length;
	memcpy(out + 2, &h->port_be, 2);
	if (h->version == 4) {
		memcpy(out + 4, &h->addr4_be, 4);
		return XRS_DS_IPV4_HDR_LEN;
	}
	memcpy(out + 4, &h->flowinfo_be, 4);
	memcpy(out + 8, h->addr6, 16);
	return XRS_DS_IPV6_HDR_LEN;
}

/* The header's length, or 0 if @len bytes do not hold a valid one. */
static inline size_t xrs_ds_hdr_unpack(struct xrs_ds_hdr *h, const uint8_t *in, size_t len)
{
	if (len < XRS_DS_IPV4_HDR_LEN)
		return 0;
	memset(h, 0, sizeof(*h));
	h->version = in[0];
	h->length = in[1];
	memcpy(&h->port_be, in + 2, 2);
	if (h->version == 4 && h->length == XRS_DS_IPV4_HDR_LEN) {
		memcpy(&h->addr4_be, in + 4, 4);
		return XRS_DS_IPV4_HDR_LEN;
	}
	if (h->version == 6 && h->length == XRS_DS_IPV6_HDR_LEN &&
	    len >= XRS_DS_IPV6_HDR_LEN) {
		memcpy(&h->flowinfo_be, in + 4, 4);
		memcpy(h->addr6, in + 8, 16);
		return XRS_DS_IPV6_HDR_LEN;
	}
	return 0;
}

/*
 * The UDP side channel of datagram rsockets: a datagram to the peer's
 * UDP socket announces our UD QP (and carries the first payload).
 * tag, version, op, length, reserved, qpn (24 bits, big-endian), address.
 */
#define XRS_UDP_TAG		0x55555555u
#define XRS_UDP_IPV4_HDR_LEN	16
#define XRS_UDP_IPV6_HDR_LEN	28

struct xrs_udp_hdr {
	uint8_t version;
	uint8_t op;
	uint8_t length;
	uint32_t qpn;
	uint32_t addr4_be;
	uint8_t addr6[16];
};

static inline size_t xrs_udp_hdr_pack(uint8_t *out, const struct xrs_udp_hdr *h)
{
	xrs_put32(out, XRS_UDP_TAG);
	out[4] = h->version;
	out[5] = h->op;
	out[6] = h->version == 4 ? XRS_UDP_IPV4_HDR_LEN : XRS_UDP_IPV6_HDR_LEN;
	out[7] = 0;
	xrs_put32(out + 8, h->qpn & 0xffffff);
	if (h->version == 4) {
		memcpy(out + 12, &h->addr4_be, 4);
		return XRS_UDP_IPV4_HDR_LEN;
	}
	memcpy(out + 12, h->addr6, 16);
	return XRS_UDP_IPV6_HDR_LEN;
}

/* The header's length, or 0 if invalid (@family: where it came from). */
static inline size_t xrs_udp_hdr_unpack(struct xrs_udp_hdr *h, const uint8_t *in,
					size_t len, int family6)
{
	if (len < XRS_UDP_IPV4_HDR_LEN || xrs_get32(in) != XRS_UDP_TAG)
		return 0;
	memset(h, 0, sizeof(*h));
	h->version = in[4];
	h->op = in[5];
	h->length = in[6];
	h->qpn = xrs_get32(in + 8) & 0xffffff;
	if (!family6 && h->version == 4 && h->length == XRS_UDP_IPV4_HDR_LEN) {
		memcpy(&h->addr4_be, in + 12, 4);
		return XRS_UDP_IPV4_HDR_LEN;
	}
	if (family6 && h->version == 6 && h->length == XRS_UDP_IPV6_HDR_LEN &&
	    len >= XRS_UDP_IPV6_HDR_LEN) {
		memcpy(h->addr6, in + 12, 16);
		return XRS_UDP_IPV6_HDR_LEN;
	}
	return 0;
}

#endif /* XIB_RSOCKET_WIRE_H */
