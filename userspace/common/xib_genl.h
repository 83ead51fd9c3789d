/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic-netlink request header for user-space tools of xib (xibctl and
 * the drop-in libibverbs): one copy of the few lines both need.
 */
#ifndef XIB_GENL_H
#define XIB_GENL_H

#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* Start a request of @type (family id) in @buf: cmd, version, seq. */
static inline struct nlmsghdr *xib_genl_put_header(char *buf, uint16_t type,
						   uint16_t flags, uint8_t cmd,
						   uint8_t version, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

#endif /* XIB_GENL_H */
