// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xib_hca network side: the packets transmit builds
 * and what receive accepts, drops and reports.
 *
 * The module includes the sources under test and stands in for the
 * engine (xib_hca_recv() below keeps the last packet it is given).  It
 * also checks the engine's idle policy, xib_hca_idle_step() (hca.h):
 * when an idle worker polls, dozes and sleeps.
 *
 * The IPv4 packets are real rdma_rxe traffic from
 * tests/fixtures/rxe-roce-v2.pcap (frame numbers as in its
 * listing), from the IPv4 header to the ICRC: the transmit tests build
 * them from their addresses, header fields and transport bytes and must
 * get every byte right, the IP ID excepted (it differs by design, and is
 * copied before the IP checksum and the ICRC are computed).
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include "../../drivers/hca/hca_icrc.c"
#include "../../drivers/hca/hca_net.c"
#include "xib_fixture_frames.h"

static struct sk_buff *xib_net_test_skb;
static struct xib_hca_dev *xib_net_test_hca;
static unsigned int xib_net_test_calls;

/* The profile's switch lives in hca_prof.c, not in this module: off. */
DEFINE_STATIC_KEY_FALSE(xib_hca_prof_on);

/* The transmit tracepoint lives in hca_trace.c, not in this module. */
void xib_hca_trace_tx(struct xib_hca_dev *hca, const struct sk_buff *skb,
		      u32 len)
{
}

/* The engine's receive entry point, as this test sees it. */
void xib_hca_recv(struct xib_hca_dev *hca, struct sk_buff *skb)
{
	kfree_skb(xib_net_test_skb);
	xib_net_test_skb = skb;
	xib_net_test_hca = hca;
	xib_net_test_calls++;
}

#define XIB_NET_IP4_HLEN	20
#define XIB_NET_IP6_HLEN	40
#define XIB_NET_UDP_HLEN	8

/*
 * frame 27: UD SEND ONLY, 10.99.0.2 -> 10.99.0.1: these headers, 512
 * bytes of 0x7b, then the ICRC below.
 */
static const u8 xib_net_f27_head[] = {
	0x45, 0x00, 0x02, 0x34, 0xda, 0xc6, 0x40, 0x00, 0x40, 0x11, 0x49, 0x2a,
	0x0a, 0x63, 0x00, 0x02, 0x0a, 0x63, 0x00, 0x01, 0xd0, 0x78, 0x12, 0xb7,
	0x02, 0x20, 0x00, 0x00, 0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x13,
	0x00, 0xc5, 0x74, 0xe0, 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x13,
};

static const u8 xib_net_f27_icrc[] = { 0x61, 0x99, 0x33, 0x1a };

#define XIB_NET_F27_LEN	564

static u8 *xib_net_f27(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, XIB_NET_F27_LEN, GFP_KERNEL);
	size_t h = sizeof(xib_net_f27_head);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, xib_net_f27_head, h);
	memset(p + h, 0x7b, XIB_NET_F27_LEN - h - XIB_ICRC_LEN);
	memcpy(p + XIB_NET_F27_LEN - XIB_ICRC_LEN, xib_net_f27_icrc,
	       XIB_ICRC_LEN);
	return p;
}

static int xib_net_test_init(struct kunit *test)
{
	xib_net_test_skb = NULL;
	xib_net_test_hca = NULL;
	xib_net_test_calls = 0;
	return 0;
}

static void xib_net_test_exit(struct kunit *test)
{
	kfree_skb(xib_net_test_skb);
	xib_net_test_skb = NULL;
}

/* First offset at which @a and @b differ, or -1. */
static int xib_net_diff(const u8 *a, const u8 *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

static void xib_net_gid4(u8 *gid, const u8 *addr)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

/*
 * Build the IPv4 packet @fx (@len bytes, ICRC included) the way
 * xib_hca_xmit() does, from its addresses, header fields and transport
 * bytes, and compare.
 */
static void xib_net_tx4_check(struct kunit *test, const u8 *fx, size_t len)
{
	size_t tlen = len - XIB_NET_IP4_HLEN - XIB_NET_UDP_HLEN - XIB_ICRC_LEN;
	struct xib_hca_path path = {};
	struct sk_buff *skb;
	struct iphdr *iph;
	__be32 saddr, daddr;

	skb = __xib_hca_alloc_skb(LL_MAX_HEADER + XIB_HCA_NET_HLEN, tlen);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(skb->data, fx + XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN, tlen);

	xib_net_gid4(path.sgid, fx + 12);
	xib_net_gid4(path.dgid, fx + 16);
	path.traffic_class = fx[1];
	path.hop_limit = fx[8];
	path.src_port = get_unaligned_be16(fx + 20);
	memcpy(&saddr, fx + 12, 4);
	memcpy(&daddr, fx + 16, 4);

	KUNIT_ASSERT_EQ(test, xib_hca_tx_prepare(skb, XIB_HCA_NET_HLEN), 0);
	xib_hca_build4(skb, &path, saddr, daddr);
	iph = ip_hdr(skb);
	KUNIT_EXPECT_PTR_EQ(test, (void *)iph, (void *)skb->data);
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), ETH_P_IP);
	memcpy(&iph->id, fx + 4, 2);		/* differs by design */
	ip_send_check(iph);			/* as ip_local_out() does */
	xib_hca_seal(skb);

	KUNIT_ASSERT_EQ(test, skb->len, len);
	KUNIT_EXPECT_EQ(test, xib_net_diff(skb->data, fx, len), -1);
	kfree_skb(skb);
}

static void xib_net_test_tx4_fixtures(struct kunit *test)
{
	xib_net_tx4_check(test, xib_fix_f2, sizeof(xib_fix_f2));
	xib_net_tx4_check(test, xib_fix_f81, sizeof(xib_fix_f81));
	xib_net_tx4_check(test, xib_net_f27(test), XIB_NET_F27_LEN);
}

/* An skb holding @len bytes of @pkt as the UDP layer hands it over. */
static struct sk_buff *xib_net_rx_skb(struct kunit *test, const u8 *pkt,
				      size_t len, size_t nhlen)
{
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_put_data(skb, pkt, len);
	skb_reset_network_header(skb);
	__skb_pull(skb, nhlen);
	skb_reset_transport_header(skb);
	return skb;
}

static int xib_net_stats_init(struct kunit_resource *res, void *context)
{
	res->data = alloc_percpu(struct xib_hca_stats);
	return res->data ? 0 : -ENOMEM;
}

static void xib_net_stats_free(struct kunit_resource *res)
{
	free_percpu(res->data);
}

static struct xib_hca_port *xib_net_port(struct kunit *test)
{
	struct xib_hca_port *port = kunit_kzalloc(test, sizeof(*port),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, port);
	port->hca = kunit_kzalloc(test, sizeof(*port->hca), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, port->hca);
	port->hca->stats = kunit_alloc_resource(test, xib_net_stats_init,
						xib_net_stats_free, GFP_KERNEL,
						NULL);
	KUNIT_ASSERT_NOT_NULL(test, port->hca->stats);
	return port;
}

/* Counter @s of @port's HCA, summed over the CPUs. */
static u64 xib_net_stat(struct xib_hca_port *port, enum xib_hca_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(port->hca->stats, cpu)->v[s];
	return sum;
}

static void xib_net_rx4_check(struct kunit *test, const u8 *fx, size_t len)
{
	struct xib_hca_port *port = xib_net_port(test);
	const size_t hdrs = XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN;
	struct xib_hca_rx_cb *cb;
	struct sk_buff *skb;
	u8 gid[16];

	skb = xib_net_rx_skb(test, fx, len, XIB_NET_IP4_HLEN);
	xib_hca_rx(port, skb);
	KUNIT_ASSERT_EQ(test, xib_net_test_calls, 1U);
	KUNIT_EXPECT_PTR_EQ(test, xib_net_test_hca, port->hca);
	skb = xib_net_test_skb;
	KUNIT_ASSERT_EQ(test, skb->len, len - hdrs - XIB_ICRC_LEN);
	KUNIT_EXPECT_EQ(test, xib_net_diff(skb->data, fx + hdrs, skb->len), -1);
	KUNIT_EXPECT_EQ(test, xib_net_diff(skb_network_header(skb), fx,
					   XIB_NET_IP4_HLEN), -1);

	cb = xib_hca_rx_cb(skb);
	xib_net_gid4(gid, fx + 12);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->sgid, gid, 16), -1);
	xib_net_gid4(gid, fx + 16);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->dgid, gid, 16), -1);
	KUNIT_EXPECT_FALSE(test, cb->ipv6);
	KUNIT_EXPECT_EQ(test, cb->hop_limit, fx[8]);
	KUNIT_EXPECT_EQ(test, cb->traffic_class, fx[1]);
	KUNIT_EXPECT_EQ(test, cb->flow_label, 0U);
	KUNIT_EXPECT_EQ(test, cb->src_port, get_unaligned_be16(fx + 20));
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 0);
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_MALFORMED), 0);

	kfree_skb(xib_net_test_skb);
	xib_net_test_skb = NULL;
	xib_net_test_calls = 0;
}

static void xib_net_test_rx4_fixtures(struct kunit *test)
{
	xib_net_rx4_check(test, xib_fix_f2, sizeof(xib_fix_f2));
	xib_net_rx4_check(test, xib_fix_f81, sizeof(xib_fix_f81));
	xib_net_rx4_check(test, xib_net_f27(test), XIB_NET_F27_LEN);
}

/* Feed @len bytes of @pkt to receive; true if the engine got it. */
static bool xib_net_rx_one(struct kunit *test, struct xib_hca_port *port,
			   const u8 *pkt, size_t len, size_t nhlen)
{
	unsigned int calls = xib_net_test_calls;

	xib_hca_rx(port, xib_net_rx_skb(test, pkt, len, nhlen));
	return xib_net_test_calls != calls;
}

static void xib_net_test_rx_bad_icrc(struct kunit *test)
{
	struct xib_hca_port *port = xib_net_port(test);
	u8 pkt[sizeof(xib_fix_f81)];

	/* A bit of payload. */
	memcpy(pkt, xib_fix_f81, sizeof(pkt));
	pkt[60] ^= 0x10;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, sizeof(pkt),
						XIB_NET_IP4_HLEN));
	/* The ICRC itself. */
	memcpy(pkt, xib_fix_f81, sizeof(pkt));
	pkt[sizeof(pkt) - 1] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, sizeof(pkt),
						XIB_NET_IP4_HLEN));
	/* A covered IP header field: the source address. */
	memcpy(pkt, xib_fix_f81, sizeof(pkt));
	pkt[15] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, sizeof(pkt),
						XIB_NET_IP4_HLEN));
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 3);
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_MALFORMED), 0);

	/* Fields the ICRC masks may change on the way: TTL, TOS, resv8a. */
	memcpy(pkt, xib_fix_f81, sizeof(pkt));
	pkt[8] = 3;
	pkt[1] = 0x02;
	pkt[XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN + 4] = 0x80;
	KUNIT_EXPECT_TRUE(test, xib_net_rx_one(test, port, pkt, sizeof(pkt),
					       XIB_NET_IP4_HLEN));
	KUNIT_EXPECT_EQ(test, xib_hca_rx_cb(xib_net_test_skb)->hop_limit, 3);
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 3);
}

static void xib_net_test_rx_malformed(struct kunit *test)
{
	struct xib_hca_port *port = xib_net_port(test);
	const size_t len = sizeof(xib_fix_f2);
	const size_t min = XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN + XIB_BTH_LEN +
			   XIB_ICRC_LEN;
	u8 pkt[sizeof(xib_fix_f2)];
	size_t n;
	int bad = 0;

	/* UDP length longer, then shorter, than the datagram. */
	memcpy(pkt, xib_fix_f2, len);
	pkt[25] += 1;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;
	pkt[25] -= 2;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;

	/* Every truncation, with lengths that agree, up to one short of a
	 * BTH and an ICRC.
	 */
	for (n = XIB_NET_IP4_HLEN; n < min; n++) {
		memcpy(pkt, xib_fix_f2, n);
		put_unaligned_be16(n - XIB_NET_IP4_HLEN, pkt + 24);
		KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, n,
							XIB_NET_IP4_HLEN));
		bad++;
	}

	/* Not IPv4 or IPv6. */
	memcpy(pkt, xib_fix_f2, len);
	pkt[0] = 0x55;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;
	/* IHL disagreeing with where the UDP header is. */
	pkt[0] = 0x46;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;
	/* Not UDP. */
	memcpy(pkt, xib_fix_f2, len);
	pkt[9] = IPPROTO_TCP;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;
	/* IPv6 version in an IPv4-sized header. */
	memcpy(pkt, xib_fix_f2, len);
	pkt[0] = 0x60;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP4_HLEN));
	bad++;

	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_MALFORMED), bad);
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 0);
	KUNIT_EXPECT_EQ(test, xib_net_test_calls, 0U);
}

static const u8 xib_net_gid6_src[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33,
	0x44, 0x55,
};

static const u8 xib_net_gid6_dst[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
};

/* Build an IPv6 packet as xib_hca_xmit() does, then receive it. */
/*
 * Build what rdma_rxe sent over IPv6 (xib_fixture_frames.h) from its
 * transport headers and path: every byte must come out the same, UDP
 * checksum 0 and ICRC included; then receive it.
 */
static void xib_net_test_rxe_ipv6(struct kunit *test)
{
	const u8 *fx = xib_fix_rxe_ud6;
	const size_t len = sizeof(xib_fix_rxe_ud6);
	const size_t hdrs = XIB_NET_IP6_HLEN + XIB_NET_UDP_HLEN;
	const size_t tlen = len - hdrs - XIB_ICRC_LEN;
	struct xib_hca_port *port = xib_net_port(test);
	struct xib_hca_path path = {
		.flow_label = 0,
		.hop_limit = fx[7],
		.traffic_class = 0,
		.src_port = get_unaligned_be16(fx + 40),
	};
	struct in6_addr saddr, daddr;
	struct xib_hca_rx_cb *cb;
	struct sk_buff *skb;

	memcpy(path.sgid, fx + 8, 16);
	memcpy(path.dgid, fx + 24, 16);
	memcpy(&saddr, fx + 8, 16);
	memcpy(&daddr, fx + 24, 16);
	skb = __xib_hca_alloc_skb(XIB_HCA_NET_HLEN, tlen);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(skb->data, fx + hdrs, tlen);
	KUNIT_ASSERT_EQ(test, xib_hca_tx_prepare(skb, XIB_HCA_NET_HLEN), 0);
	xib_hca_build6(skb, &path, &saddr, &daddr);
	xib_hca_seal(skb);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	if (skb->len == len)
		KUNIT_EXPECT_EQ(test, xib_net_diff(skb->data, fx, len), -1);
	kfree_skb(skb);

	KUNIT_ASSERT_TRUE(test, xib_net_rx_one(test, port, fx, len,
					       XIB_NET_IP6_HLEN));
	skb = xib_net_test_skb;
	KUNIT_EXPECT_EQ(test, skb->len, tlen);
	KUNIT_EXPECT_EQ(test, xib_net_diff(skb->data, fx + hdrs, tlen), -1);
	cb = xib_hca_rx_cb(skb);
	KUNIT_EXPECT_TRUE(test, cb->ipv6);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->sgid, fx + 8, 16), -1);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->dgid, fx + 24, 16), -1);
	KUNIT_EXPECT_EQ(test, cb->src_port, get_unaligned_be16(fx + 40));
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 0);
}

static void xib_net_test_ipv6(struct kunit *test)
{
	const size_t tlen = sizeof(xib_fix_f81) - XIB_NET_IP4_HLEN -
			    XIB_NET_UDP_HLEN - XIB_ICRC_LEN;
	struct xib_hca_port *port = xib_net_port(test);
	struct xib_hca_path path = {
		.flow_label = 0xfedcba98,	/* only 20 bits go out */
		.hop_limit = 17,
		.traffic_class = 0xa5,
		.src_port = 0xd00d,
	};
	struct in6_addr saddr, daddr;
	struct xib_hca_rx_cb *cb;
	struct sk_buff *skb;
	u8 *pkt;
	size_t len;

	memcpy(path.sgid, xib_net_gid6_src, 16);
	memcpy(path.dgid, xib_net_gid6_dst, 16);
	memcpy(&saddr, xib_net_gid6_src, 16);
	memcpy(&daddr, xib_net_gid6_dst, 16);

	skb = __xib_hca_alloc_skb(XIB_HCA_NET_HLEN, tlen);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(skb->data, xib_fix_f81 + XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN,
	       tlen);
	KUNIT_ASSERT_EQ(test, xib_hca_tx_prepare(skb, XIB_HCA_NET_HLEN), 0);
	xib_hca_build6(skb, &path, &saddr, &daddr);
	xib_hca_seal(skb);
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), ETH_P_IPV6);

	len = skb->len;
	KUNIT_ASSERT_EQ(test, len, XIB_NET_IP6_HLEN + XIB_NET_UDP_HLEN + tlen +
			XIB_ICRC_LEN);
	pkt = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	memcpy(pkt, skb->data, len);
	kfree_skb(skb);

	/* version 6, traffic class 0xa5, flow label 0xcba98 */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(pkt), 0x6a5cba98U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(pkt + 4),
			len - XIB_NET_IP6_HLEN);
	KUNIT_EXPECT_EQ(test, pkt[6], IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, pkt[7], 17);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(pkt + 40), 0xd00d);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(pkt + 42), XIB_ROCEV2_UDP_PORT);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(pkt + 44),
			len - XIB_NET_IP6_HLEN);
	KUNIT_EXPECT_EQ(test, xib_icrc_check(pkt, len), 0);

	KUNIT_ASSERT_TRUE(test, xib_net_rx_one(test, port, pkt, len,
					       XIB_NET_IP6_HLEN));
	skb = xib_net_test_skb;
	KUNIT_EXPECT_EQ(test, skb->len, tlen);
	KUNIT_EXPECT_EQ(test, xib_net_diff(skb->data, xib_fix_f81 +
					   XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN,
					   tlen), -1);
	cb = xib_hca_rx_cb(skb);
	KUNIT_EXPECT_TRUE(test, cb->ipv6);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->sgid, xib_net_gid6_src, 16), -1);
	KUNIT_EXPECT_EQ(test, xib_net_diff(cb->dgid, xib_net_gid6_dst, 16), -1);
	KUNIT_EXPECT_EQ(test, cb->flow_label, 0xcba98U);
	KUNIT_EXPECT_EQ(test, cb->traffic_class, 0xa5);
	KUNIT_EXPECT_EQ(test, cb->hop_limit, 17);
	KUNIT_EXPECT_EQ(test, cb->src_port, 0xd00d);

	/* An extension header between IPv6 and UDP is not RoCEv2. */
	pkt[6] = 0;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP6_HLEN));
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_MALFORMED), 1);
	/* The masked fields may change. */
	pkt[6] = IPPROTO_UDP;
	pkt[7] = 1;
	pkt[1] ^= 0xff;
	KUNIT_EXPECT_TRUE(test, xib_net_rx_one(test, port, pkt, len,
					       XIB_NET_IP6_HLEN));
	/* The addresses may not. */
	pkt[23] ^= 1;
	KUNIT_EXPECT_FALSE(test, xib_net_rx_one(test, port, pkt, len,
						XIB_NET_IP6_HLEN));
	KUNIT_EXPECT_EQ(test, xib_net_stat(port, XIB_HCA_STAT_RX_ICRC_ERRORS), 1);
}

/* A clone (a packet kept for retransmission) is never written through. */
static void xib_net_test_tx_clone(struct kunit *test)
{
	const size_t tlen = 16;
	struct xib_hca_path path = { .hop_limit = 64, .src_port = 0xc000 };
	struct sk_buff *orig, *skb;
	u8 head[XIB_HCA_NET_HLEN];

	orig = __xib_hca_alloc_skb(XIB_HCA_NET_HLEN, tlen);
	KUNIT_ASSERT_NOT_NULL(test, orig);
	memset(orig->data, 0x5a, tlen);
	memset(orig->head, 0xee, skb_headroom(orig));
	memcpy(head, orig->data - sizeof(head), sizeof(head));

	skb = skb_clone(orig, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, xib_hca_tx_prepare(skb, XIB_HCA_NET_HLEN), 0);
	KUNIT_EXPECT_FALSE(test, skb_cloned(skb));
	xib_hca_build4(skb, &path, htonl(0x0a000001), htonl(0x0a000002));
	xib_hca_seal(skb);

	KUNIT_EXPECT_EQ(test, orig->len, tlen);
	KUNIT_EXPECT_EQ(test, xib_net_diff(orig->data - sizeof(head), head,
					   sizeof(head)), -1);
	KUNIT_EXPECT_EQ(test, skb->len, XIB_NET_IP4_HLEN + XIB_NET_UDP_HLEN +
			tlen + XIB_ICRC_LEN);
	kfree_skb(skb);
	kfree_skb(orig);
}

/*
 * Packet buffers come from the page fragment cache while they fit in a
 * page (head_frag), from kmalloc() beyond; either way linear, with the
 * asked headroom, the transport bytes put and room for the ICRC.
 */
static void xib_net_alloc_check(struct kunit *test, unsigned int tlen,
				bool frag)
{
	struct sk_buff *skb = __xib_hca_alloc_skb(XIB_HCA_NET_HLEN, tlen);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, (bool)skb->head_frag, frag);
	KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
	KUNIT_EXPECT_EQ(test, skb->len, tlen);
	KUNIT_EXPECT_GE(test, skb_headroom(skb), XIB_HCA_NET_HLEN);
	KUNIT_EXPECT_GE(test, skb_tailroom(skb), XIB_ICRC_LEN);
	memset(skb->data, 0xa5, tlen);		/* all of it is ours */
	kfree_skb(skb);
}

static void xib_net_test_alloc(struct kunit *test)
{
	int i;

	xib_net_alloc_check(test, 28, true);		/* an ACK */
	/* a 1 KiB-MTU WRITE, often enough to wrap the cache's page */
	for (i = 0; i < 64; i++)
		xib_net_alloc_check(test, 28 + 1024, true);
	xib_net_alloc_check(test, 28 + 4096, false);	/* a 4 KiB MTU */
	KUNIT_EXPECT_NULL(test, __xib_hca_alloc_skb(XIB_HCA_NET_HLEN,
						    U16_MAX + 1));
}

/* The idle worker's steps (hca.h), at the defaults 1000/20000/50 us. */
static void xib_net_test_idle_step(struct kunit *test)
{
	const u64 us = NSEC_PER_USEC;

	/* polls up to idle_spin_us, dozes up to idle_doze_us, then sleeps */
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(0, 1000, 20000, 50, false),
			XIB_HCA_IDLE_SPIN);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(1000 * us - 1, 1000, 20000, 50,
						false), XIB_HCA_IDLE_SPIN);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(1000 * us, 1000, 20000, 50,
						false), XIB_HCA_IDLE_DOZE);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(20000 * us - 1, 1000, 20000, 50,
						false), XIB_HCA_IDLE_DOZE);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(20000 * us, 1000, 20000, 50,
						false), XIB_HCA_IDLE_SLEEP);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(U64_MAX, 1000, 20000, 50, false),
			XIB_HCA_IDLE_SLEEP);
	/* a wanted CPU ends the poll at once, not the doze */
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(0, 1000, 20000, 50, true),
			XIB_HCA_IDLE_DOZE);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(20000 * us, 1000, 20000, 50,
						true), XIB_HCA_IDLE_SLEEP);
	/* no dozing: idle_doze_us 0 or not above the spin, idle_scan_us 0 */
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(1000 * us, 1000, 0, 50, false),
			XIB_HCA_IDLE_SLEEP);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(1000 * us, 1000, 1000, 50,
						false), XIB_HCA_IDLE_SLEEP);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(1000 * us, 1000, 20000, 0,
						false), XIB_HCA_IDLE_SLEEP);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(0, 1000, 20000, 0, true),
			XIB_HCA_IDLE_SLEEP);
	/* no polling: straight to the doze; the largest values do not wrap */
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(0, 0, 20000, 50, false),
			XIB_HCA_IDLE_DOZE);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step(4000000000ULL * us, U32_MAX,
						U32_MAX, 50, false),
			XIB_HCA_IDLE_SPIN);
	KUNIT_EXPECT_EQ(test, xib_hca_idle_step((u64)U32_MAX * us, U32_MAX - 1,
						U32_MAX, 50, false),
			XIB_HCA_IDLE_SLEEP);
}

static struct kunit_case xib_net_test_cases[] = {
	KUNIT_CASE(xib_net_test_tx4_fixtures),
	KUNIT_CASE(xib_net_test_rx4_fixtures),
	KUNIT_CASE(xib_net_test_rx_bad_icrc),
	KUNIT_CASE(xib_net_test_rx_malformed),
	KUNIT_CASE(xib_net_test_ipv6),
	KUNIT_CASE(xib_net_test_rxe_ipv6),
	KUNIT_CASE(xib_net_test_tx_clone),
	KUNIT_CASE(xib_net_test_alloc),
	KUNIT_CASE(xib_net_test_idle_step),
	{}
};

/* The fragment cache's pages go back, as the module's exit does. */
static void xib_net_test_suite_exit(struct kunit_suite *suite)
{
	xib_hca_frags_drain();
}

static struct kunit_suite xib_net_test_suite = {
	.name = "xib_hca_net",
	.init = xib_net_test_init,
	.exit = xib_net_test_exit,
	.suite_exit = xib_net_test_suite_exit,
	.test_cases = xib_net_test_cases,
};

kunit_test_suite(xib_net_test_suite);

MODULE_DESCRIPTION("KUnit tests of the xib_hca RoCEv2 network side");
MODULE_LICENSE("GPL");
