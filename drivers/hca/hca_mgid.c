// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca multicast addressing on RoCEv2 (pure functions, KUnit-tested by
 * tests/kunit/xib_hca_mgid_test.c).
 *
 * On RoCEv2 (IBTA vol. 1 Annex A17) a GID is an IP address: an IPv4
 * address is carried IPv4-mapped, ::ffff:a.b.c.d (RFC 4291 2.5.5.2).  An
 * MGID therefore names an IP multicast group: an IPv4-mapped address in
 * 224.0.0.0/4 (RFC 1112), or an IPv6 address in ff00::/8 (RFC 4291
 * 2.7).  Datagrams to the group go to that IP address, in Ethernet
 * frames to the group's MAC address: 01:00:5e and the low 23 bits of the
 * IPv4 address (RFC 1112 6.4), or 33:33 and the low 32 bits of the IPv6
 * address (RFC 2464 7).
 */
#include <linux/in6.h>
#include <linux/string.h>

#include "hca.h"

/**
 * xib_hca_mgid_map() - the IP group and Ethernet address of an MGID
 * @mgid: 16 bytes, network order
 * @map: filled in on success
 *
 * Return: 0, or -EINVAL if @mgid is no multicast GID: IPv4-mapped but
 * not in 224.0.0.0/4, or neither IPv4-mapped nor in ff00::/8.
 */
int xib_hca_mgid_map(const u8 *mgid, struct xib_hca_mgid_map *map)
{
	static const u8 v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	memset(map, 0, sizeof(*map));
	if (!memcmp(mgid, v4mapped, sizeof(v4mapped))) {
		if ((mgid[12] & 0xf0) != 0xe0)
			return -EINVAL;
		map->ipv6 = false;
		memcpy(&map->addr4, mgid + 12, 4);
		map->mac[0] = 0x01;
		map->mac[1] = 0x00;
		map->mac[2] = 0x5e;
		map->mac[3] = mgid[13] & 0x7f;
		map->mac[4] = mgid[14];
		map->mac[5] = mgid[15];
		return 0;
	}
	if (mgid[0] != 0xff)
		return -EINVAL;
	map->ipv6 = true;
	memcpy(&map->addr6, mgid, sizeof(map->addr6));
	map->mac[0] = 0x33;
	map->mac[1] = 0x33;
	memcpy(map->mac + 2, mgid + 12, 4);
	return 0;
}
