// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the MGID mapping of xib_hca's multicast (hca_mgid.c).
 *
 * The expected values are worked out from the documents, not from the
 * code: on RoCEv2 (IBTA vol. 1 Annex A17) a GID is an IPv6 address or an
 * IPv4-mapped one (::ffff:a.b.c.d, RFC 4291 2.5.5.2), so an MGID is an
 * IPv4 group in 224.0.0.0/4 (RFC 1112 4) or an IPv6 group in ff00::/8
 * (RFC 4291 2.7).  RFC 1112 6.4: the Ethernet address of an IPv4 group
 * is 01-00-5E-00-00-00 with the low-order 23 bits of the group address
 * in its low-order 23 bits.  RFC 2464 7: that of an IPv6 group is 33-33
 * followed by the last four octets of the address.
 *
 * A second case checks the mapping against the kernel's own
 * ip_eth_mc_map() and ipv6_eth_mc_map() over a sweep of groups.
 *
 * The module includes the source under test, as xib_hca_retx_test does.
 */

#include <kunit/test.h>
#include <asm/unaligned.h>
#include <net/if_inet6.h>
#include <net/ip.h>

#include "../../drivers/hca/hca_mgid.c"

struct xib_mgid_case {
	const char *name;
	u8 mgid[16];
	int ret;
	bool ipv6;
	u8 mac[ETH_ALEN];
};

#define V4(a, b, c, d)	{ [10] = 0xff, [11] = 0xff, a, b, c, d }

static const struct xib_mgid_case xib_mgid_cases[] = {
	{ "224.0.0.1, all hosts", V4(224, 0, 0, 1), 0, false,
	  { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } },
	{ "239.255.255.250", V4(239, 255, 255, 250), 0, false,
	  { 0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa } },
	/* bit 23 of the group is not in the MAC: 224.128.1.2 ~ 224.0.1.2 */
	{ "224.128.1.2, high bit dropped", V4(224, 128, 1, 2), 0, false,
	  { 0x01, 0x00, 0x5e, 0x00, 0x01, 0x02 } },
	{ "239.192.0.234", V4(239, 192, 0, 234), 0, false,
	  { 0x01, 0x00, 0x5e, 0x40, 0x00, 0xea } },
	{ "232.1.2.3", V4(232, 1, 2, 3), 0, false,
	  { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 } },
	{ "223.255.255.255 is class C", V4(223, 255, 255, 255), -EINVAL },
	{ "240.0.0.1 is class E", V4(240, 0, 0, 1), -EINVAL },
	{ "10.1.2.3 is unicast", V4(10, 1, 2, 3), -EINVAL },
	{ "255.255.255.255 is broadcast", V4(255, 255, 255, 255), -EINVAL },
	{ "ff02::1, all nodes", { 0xff, 0x02, [15] = 1 }, 0, true,
	  { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
	{ "ff0e::1:ff00:1234", { 0xff, 0x0e, [11] = 1, 0xff, 0x00, 0x12, 0x34 },
	  0, true, { 0x33, 0x33, 0xff, 0x00, 0x12, 0x34 } },
	{ "ff05::dead:beef", { 0xff, 0x05, [12] = 0xde, 0xad, 0xbe, 0xef }, 0,
	  true, { 0x33, 0x33, 0xde, 0xad, 0xbe, 0xef } },
	{ "ff12::8000:1, transient", { 0xff, 0x12, [12] = 0x80, 0, 0, 1 }, 0,
	  true, { 0x33, 0x33, 0x80, 0x00, 0x00, 0x01 } },
	{ "fe80::1 is unicast", { 0xfe, 0x80, [15] = 1 }, -EINVAL },
	{ "2001:db8::1 is unicast", { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, -EINVAL },
	{ "::1 is loopback", { [15] = 1 }, -EINVAL },
	{ ":: is unspecified", { 0 }, -EINVAL },
	/* IPv4-compatible, not IPv4-mapped: an IPv6 unicast address */
	{ "::224.0.0.1", { [12] = 224, 0, 0, 1 }, -EINVAL },
	/* an IPv4-mapped address of class E, with an IPv6 multicast-like byte */
	{ "255.18.64.27 is class E", V4(0xff, 0x12, 0x40, 0x1b), -EINVAL },
};

static void xib_mgid_table(struct kunit *test)
{
	const struct xib_mgid_case *c;
	struct xib_hca_mgid_map map;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(xib_mgid_cases); i++) {
		c = &xib_mgid_cases[i];
		ret = xib_hca_mgid_map(c->mgid, &map);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "%s", c->name);
		if (ret || c->ret)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, map.ipv6, c->ipv6, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(map.mac, c->mac, ETH_ALEN), 0,
				    "%s: %pM", c->name, map.mac);
		if (c->ipv6)
			KUNIT_EXPECT_EQ_MSG(test,
					    memcmp(&map.addr6, c->mgid, 16), 0,
					    "%s", c->name);
		else
			KUNIT_EXPECT_EQ_MSG(test,
					    memcmp(&map.addr4, c->mgid + 12, 4),
					    0, "%s", c->name);
	}
}

/* The same groups through the kernel's own mapping functions. */
static void xib_mgid_kernel(struct kunit *test)
{
	struct xib_hca_mgid_map map;
	u8 mgid[16], mac[ETH_ALEN];
	struct in6_addr a6;
	unsigned int i;

	for (i = 0; i < 4096; i++) {
		u32 v4 = 0xe0000000u | (i * 0x9e3779b1u >> 4);

		memset(mgid, 0, sizeof(mgid));
		mgid[10] = 0xff;
		mgid[11] = 0xff;
		put_unaligned_be32(v4, mgid + 12);
		KUNIT_ASSERT_EQ(test, xib_hca_mgid_map(mgid, &map), 0);
		ip_eth_mc_map(cpu_to_be32(v4), mac);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(map.mac, mac, ETH_ALEN), 0,
				    "%pI4: %pM, the kernel's %pM", mgid + 12,
				    map.mac, mac);

		memset(&a6, 0, sizeof(a6));
		a6.s6_addr[0] = 0xff;
		a6.s6_addr[1] = i & 0xff;
		a6.s6_addr32[3] = cpu_to_be32(i * 0x61c88647u);
		KUNIT_ASSERT_EQ(test, xib_hca_mgid_map(a6.s6_addr, &map), 0);
		ipv6_eth_mc_map(&a6, mac);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(map.mac, mac, ETH_ALEN), 0,
				    "%pI6c: %pM, the kernel's %pM", &a6,
				    map.mac, mac);
	}
}

static struct kunit_case xib_mgid_test_cases[] = {
	KUNIT_CASE(xib_mgid_table),
	KUNIT_CASE(xib_mgid_kernel),
	{}
};

static struct kunit_suite xib_mgid_suite = {
	.name = "xib_hca_mgid",
	.test_cases = xib_mgid_test_cases,
};

kunit_test_suite(xib_mgid_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of xib_hca's MGID to IP group and MAC mapping");
