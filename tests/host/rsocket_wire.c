// SPDX-License-Identifier: BSD-2-Clause
/*
 * rsockets' wire formats (userspace/librdmacm/rsocket_wire.h) against
 * byte images written out by hand from the protocol as rdma-core 44
 * speaks it (Documentation/rsockets.rst): immediate data, the 40-byte
 * connection data, the io-map size byte, grant entries for a peer of the
 * other byte order, credit sequence arithmetic, the datagram headers.
 * Prints one TAP line per check group.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../userspace/librdmacm/rsocket_wire.h"

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		bad++;							\
	}								\
} while (0)

static void report(const char *name, int bad)
{
	printf("%sok - host: rsocket_wire: %s\n", bad ? "not " : "", name);
	failures += !!bad;
}

static void test_imm(void)
{
	int bad = 0;

	/* op in the top 3 bits: DATA 0, WRITE 2, SGL 4, IOMAP_SGL 6, CTRL 7 */
	CHECK(xrs_imm(XRS_OP_DATA, 2048) == 0x00000800u);
	CHECK(xrs_imm(XRS_OP_SGL, 0x1234) == 0x80001234u);
	CHECK(xrs_imm(XRS_OP_IOMAP_SGL, 3) == 0xc0000003u);
	CHECK(xrs_imm(XRS_OP_CTRL, XRS_CTRL_DISCONNECT) == 0xe0000000u);
	CHECK(xrs_imm(XRS_OP_CTRL, XRS_CTRL_KEEPALIVE) == 0xe0000001u);
	CHECK(xrs_imm(XRS_OP_CTRL, XRS_CTRL_SHUTDOWN) == 0xe0000002u);
	CHECK(xrs_imm(XRS_OP_WRITE, 5) == 0x40000005u);
	/* the argument is 29 bits */
	CHECK(xrs_imm(XRS_OP_DATA, 0x20000001u) == 1);
	CHECK(xrs_imm_op(0xe0000002u) == 7 && xrs_imm_arg(0xe0000002u) == 2);
	CHECK(xrs_imm_op(0x9fffffffu) == 4 && xrs_imm_arg(0x9fffffffu) == 0x1fffffffu);
	report("immediate data: 3-bit op, 29-bit argument", bad);
}

static void test_conn(void)
{
	static const uint8_t want[40] = {
		0x01, 0x02, 0x01, 0x80,		/* v1, IOMAP, credits 384 */
		0x00, 0x00, 0x00, 0x81,		/* reserved, iomap byte */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* target addr */
		0xaa, 0xbb, 0xcc, 0xdd,		/* target rkey */
		0x00, 0x00, 0x00, 0x02,		/* target length: 2 slots */
		0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x00,	/* data addr */
		0x01, 0x02, 0x03, 0x04,		/* data rkey */
		0x00, 0x01, 0x00, 0x00,		/* 64 KiB: half of 128 KiB */
	};
	struct xrs_conn c = {
		.version = 1, .flags = XRS_CONN_FLAG_IOMAP, .credits = 384,
		.iomap_byte = 0x81,
		.target = { 0x1122334455667788ull, 0xaabbccdd, 2 },
		.data = { 0x00007f0012345000ull, 0x01020304, 65536 },
	};
	struct xrs_conn back;
	uint8_t out[XRS_CONN_DATA_LEN], bad_ver[XRS_CONN_DATA_LEN];
	int bad = 0;

	xrs_conn_pack(out, &c);
	CHECK(!memcmp(out, want, sizeof(want)));
	CHECK(!xrs_conn_unpack(&back, want, sizeof(want)));
	CHECK(back.version == 1 && back.flags == 2 && back.credits == 384);
	CHECK(back.iomap_byte == 0x81);
	CHECK(back.target.addr == 0x1122334455667788ull && back.target.key == 0xaabbccdd &&
	      back.target.length == 2);
	CHECK(back.data.addr == 0x00007f0012345000ull && back.data.key == 0x01020304 &&
	      back.data.length == 65536);
	/* more private data than ours (the CM pads) is fine; less is not */
	{
		uint8_t padded[56] = { 0 };

		memcpy(padded, want, sizeof(want));
		CHECK(!xrs_conn_unpack(&back, padded, sizeof(padded)));
	}
	CHECK(xrs_conn_unpack(&back, want, 39));
	CHECK(xrs_conn_unpack(&back, NULL, 40));
	memcpy(bad_ver, want, sizeof(bad_ver));
	bad_ver[0] = 2;
	CHECK(xrs_conn_unpack(&back, bad_ver, sizeof(bad_ver)));
	/* byte order: FLAG_NET set means a big-endian peer */
	back.flags = XRS_CONN_FLAG_NET;
	CHECK(xrs_conn_swapped(&back) == !xrs_host_big_endian());
	back.flags = 0;
	CHECK(xrs_conn_swapped(&back) == xrs_host_big_endian());
	report("connection data: 40 bytes, big-endian, version 1", bad);
}

static void test_iomap_byte(void)
{
	int bad = 0;
	unsigned int v;

	for (v = 0; v <= 128; v++)
		CHECK(xrs_iomap_to_byte(v) == v && xrs_iomap_from_byte((uint8_t)v) == v);
	CHECK(xrs_iomap_to_byte(256) == 0x81);
	CHECK(xrs_iomap_from_byte(0x81) == 256);
	CHECK(xrs_iomap_to_byte(32512) == 0xff);
	CHECK(xrs_iomap_from_byte(0xff) == 32512);
	/* between the steps: down to a step (200 -> 0x80 -> 128) */
	CHECK(xrs_iomap_round(200) == 128);
	CHECK(xrs_iomap_round(300) == 256);
	CHECK(xrs_iomap_round(1000) == 768);
	/* beyond the largest step: the largest */
	CHECK(xrs_iomap_round(100000) == 32512);
	report("io-map size byte: <=128 as is, else 0x80|n/256", bad);
}

static void test_sge_order(void)
{
	struct xrs_sge e = { 0x0102030405060708ull, 0x11223344, 0x00010000 }, s;
	struct xrs_iomap m = { 0x1000, { 0x2000, 7, 4096 } }, ms;
	int bad = 0;

	s = xrs_sge_for_peer(e, 0);
	CHECK(!memcmp(&s, &e, sizeof(e)));
	s = xrs_sge_for_peer(e, 1);
	CHECK(s.addr == 0x0807060504030201ull && s.key == 0x44332211 && s.length == 0x00000100);
	s = xrs_sge_for_peer(s, 1);
	CHECK(!memcmp(&s, &e, sizeof(e)));
	ms = xrs_iomap_for_peer(m, 1);
	CHECK(ms.offset == 0x0010000000000000ull && ms.sge.length == 0x00100000);
	/* layouts in the peer's memory: addr@0 key@8 length@12; offset@0 sge@8 */
	CHECK(offsetof(struct xrs_sge, key) == 8 && offsetof(struct xrs_sge, length) == 12);
	CHECK(offsetof(struct xrs_iomap, sge) == 8);
	report("grant and io-map entries: receiver's byte order", bad);
}

static void test_seq(void)
{
	int bad = 0;

	CHECK(!xrs_seq_open(384, 384));
	CHECK(xrs_seq_open(383, 384));
	CHECK(xrs_seq_open(0xffff, 0x017f));	/* limit wrapped past zero */
	CHECK(!xrs_seq_open(0x017f, 0x017f));
	CHECK(xrs_seq_reached(192, 192));
	CHECK(xrs_seq_reached(0x0001, 0xffff));	/* 2 past, across the wrap */
	CHECK(!xrs_seq_reached(0xfffe, 0x0001));
	CHECK(!xrs_seq_reached(191, 192));
	report("credit sequence numbers: 16-bit serial arithmetic", bad);
}

static void test_ds_hdr(void)
{
	static const uint8_t v4[8] = { 4, 8, 0x1c, 0x0e, 10, 213, 0, 1 };
	struct xrs_ds_hdr h = { 0 }, back;
	uint8_t out[XRS_DS_IPV6_HDR_LEN], v6[24] = { 6, 24, 0x1c, 0x0e, 0, 0, 0, 0 };
	int bad = 0;

	h.version = 4;
	h.length = 8;
	h.port_be = htobe16(7182);
	memcpy(&h.addr4_be, v4 + 4, 4);
	CHECK(xrs_ds_hdr_pack(out, &h) == 8);
	CHECK(!memcmp(out, v4, 8));
	CHECK(xrs_ds_hdr_unpack(&back, v4, 8) == 8 && back.port_be == htobe16(7182));
	CHECK(xrs_ds_hdr_unpack(&back, v4, 7) == 0);
	v6[8] = 0xfe;
	v6[9] = 0x80;
	v6[23] = 1;
	CHECK(xrs_ds_hdr_unpack(&back, v6, 24) == 24 && back.addr6[0] == 0xfe &&
	      back.addr6[15] == 1);
	CHECK(xrs_ds_hdr_unpack(&back, v6, 23) == 0);
	v6[1] = 8;	/* version 6 with the IPv4 length */
	CHECK(xrs_ds_hdr_unpack(&back, v6, 24) == 0);
	report("datagram header: 8 bytes (IPv4) / 24 bytes (IPv6)", bad);
}

static void test_udp_hdr(void)
{
	static const uint8_t want[16] = {
		0x55, 0x55, 0x55, 0x55, 4, 7, 16, 0,
		0x00, 0x12, 0x34, 0x56, 10, 213, 0, 1,
	};
	struct xrs_udp_hdr h = { 0 }, back;
	uint8_t out[XRS_UDP_IPV6_HDR_LEN], in[16];
	int bad = 0;

	h.version = 4;
	h.op = XRS_OP_CTRL;
	h.qpn = 0xff123456;	/* 24 bits go on the wire */
	memcpy(&h.addr4_be, want + 12, 4);
	CHECK(xrs_udp_hdr_pack(out, &h) == 16);
	CHECK(!memcmp(out, want, 16));
	CHECK(xrs_udp_hdr_unpack(&back, want, 16, 0) == 16);
	CHECK(back.op == 7 && back.qpn == 0x123456);
	CHECK(xrs_udp_hdr_unpack(&back, want, 16, 1) == 0);	/* from an IPv6 peer */
	memcpy(in, want, 16);
	in[0] = 0x54;
	CHECK(xrs_udp_hdr_unpack(&back, in, 16, 0) == 0);	/* bad tag */
	CHECK(xrs_udp_hdr_unpack(&back, want, 15, 0) == 0);
	report("UDP side-channel header: tag, version, op, length, qpn, address", bad);
}

int main(void)
{
	test_imm();
	test_conn();
	test_iomap_byte();
	test_sge_order();
	test_seq();
	test_ds_hdr();
	test_udp_hdr();
	return failures ? 1 : 0;
}
