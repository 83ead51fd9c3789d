// SPDX-License-Identifier: BSD-2-Clause
/*
 * xibctl: manage xib devices over the "xib" generic-netlink family.
 *
 *   xibctl [-j] dev [show [NAME]]
 *   xibctl [-j] link [show [NAME]]
 *   xibctl link add NAME netdev IFNAME [type TYPE] [pci BDF]
 *   xibctl link del NAME
 *   xibctl [-j] port [show [NAME[/PORT]]]
 *   xibctl [-j] res [show [NAME]]
 *   xibctl [-j] [-d] res show qp|cq|mr|mw|pd|srq|ah|ctx|cm_id [dev NAME]
 *		[qpn N] [pid PID] [type RC|UC|UD] [state STATE] [ps PS]
 *   xibctl [-j] statistic [show] [dev NAME] [qp N]
 *   xibctl statistic reset [dev NAME]
 *   xibctl [-j] trace NAME [qpn N] [-c COUNT] -w FILE
 *   xibctl [-j] system [show]
 *   xibctl system set netns shared|exclusive
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <xib/netlink.h>

#include "../common/xib_genl.h"

#define XIBCTL_EXIT_USAGE	2

struct trace;

struct xibctl {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t trace_group;	/* id of XIB_GENL_MCGRP_TRACE, 0: none */
	uint32_t portid;
	uint32_t seq;
	bool json;
	bool links_only;	/* "link show": only devices bound to a netdev */
	bool res;		/* "res show": resource counts */
	bool details;		/* -d: every field of "res show OBJECT" */
	unsigned int shown;
	const char *filter;	/* "port show NAME": that device only */
	char (*names)[XIB_DEVICE_NAME_MAX];	/* "statistic reset": devices */
	size_t nnames;
	struct trace *trace;	/* "trace" */
	char ext_msg[256];	/* the kernel's extended-ack message, if any */
};

struct dev_info {
	uint32_t index;
	const char *name;
	uint64_t node_guid;
	uint32_t num_ports;
	const char *driver;
	const char *netdev;
	const struct nlattr *res;	/* XIB_ATTR_DEV_RES, if the kernel sent it */
};

/* Resource types in the order "res show" prints them. */
static const struct {
	uint16_t attr;
	const char *name;
} res_types[] = {
	{ XIB_ATTR_RES_UCONTEXT, "ctx" },
	{ XIB_ATTR_RES_PD, "pd" },
	{ XIB_ATTR_RES_MR, "mr" },
	{ XIB_ATTR_RES_CQ, "cq" },
	{ XIB_ATTR_RES_QP, "qp" },
	{ XIB_ATTR_RES_SRQ, "srq" },
	{ XIB_ATTR_RES_AH, "ah" },
	{ XIB_ATTR_RES_MW, "mw" },
	{ XIB_ATTR_RES_XRCD, "xrcd" },
	{ XIB_ATTR_RES_CM_ID, "cm_id" },
	{ XIB_ATTR_RES_MAD_SEND, "mad_send" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: xibctl [-j] OBJECT COMMAND [ARGS]\n"
		"\n"
		"  xibctl dev [show [NAME]]       list xib devices of this network namespace\n"
		"  xibctl link [show [NAME]]      list devices bound to a network interface\n"
		"  xibctl link add NAME netdev IFNAME [type TYPE] [pci BDF]\n"
		"                                 create device NAME on interface IFNAME\n"
		"                                 (TYPE defaults to \"hca\", the software HCA)\n"
		"  xibctl link del NAME           remove a device made with \"link add\"\n"
		"  xibctl port [show [NAME[/PORT]]]\n"
		"                                 port state, MTU and GID table\n"
		"  xibctl res [show [NAME]]       live objects per device: verbs (user\n"
		"                                 contexts, PDs, MRs, CQs, QPs, SRQs, AHs),\n"
		"                                 RDMA CM ids bound to it (cm_id) and MADs\n"
		"                                 posted but not completed (mad_send)\n"
		"  xibctl res show OBJECT [FILTER...]\n"
		"                                 one line per object, with its owner;\n"
		"                                 OBJECT is one of:\n"
		"                                   qp   queue pairs: QPN, type, state, PSNs\n"
		"                                   cq   completion queues: depth and fill\n"
		"                                   mr   memory regions: length, access (keys\n"
		"                                        with CAP_NET_ADMIN)\n"
		"                                   mw   memory windows: type, state, bound\n"
		"                                        range and QP (keys with\n"
		"                                        CAP_NET_ADMIN)\n"
		"                                   pd   protection domains and their users\n"
		"                                   srq  shared receive queues\n"
		"                                   ah   address handles: destination GID\n"
		"                                   ctx  user contexts and their object counts\n"
		"                                   cm_id  RDMA CM ids: state, port space,\n"
		"                                          addresses, QPN, backlog; ids\n"
		"                                          bound to no device too\n"
		"                                 FILTER: dev NAME, pid PID; for qp\n"
		"                                 qpn N, type RC|UC|UD, state RESET|INIT|\n"
		"                                 RTR|RTS|SQD|SQE|ERR; for cm_id state\n"
		"                                 IDLE|ADDR_QUERY|...|LISTEN|... (see\n"
		"                                 xibctl(8)), ps TCP|UDP|IPOIB|IB\n"
		"  xibctl statistic [show] [dev NAME] [qp N]\n"
		"                                 device counters: packets, bytes, drops by\n"
		"                                 reason, NAKs, retries, completions by\n"
		"                                 status, MADs, CM messages (see\n"
		"                                 xibctl(8)); with qp N, that QP's own\n"
		"                                 (retransmission counters)\n"
		"  xibctl statistic reset [dev NAME]\n"
		"                                 counters start again from zero (all\n"
		"                                 devices without dev; CAP_NET_ADMIN)\n"
		"  xibctl trace NAME [qpn N] [-c COUNT] -w FILE\n"
		"                                 write the RoCEv2 packets device NAME\n"
		"                                 sends and receives to FILE (pcap; - for\n"
		"                                 standard output) until interrupted or\n"
		"                                 COUNT packets; qpn N: to and from QP N\n"
		"                                 only (CAP_NET_ADMIN)\n"
		"  xibctl system [show]           the stack's settings: netns shared\n"
		"                                 (devices usable from every network\n"
		"                                 namespace) or exclusive (only from\n"
		"                                 their interface's)\n"
		"  xibctl system set netns shared|exclusive\n"
		"                                 choose it (CAP_NET_ADMIN, from the\n"
		"                                 initial network namespace)\n"
		"\n"
		"Options:\n"
		"  -j, --json     print JSON\n"
		"  -d, --details  res show OBJECT: print every field\n"
		"  -h, --help     print this help\n"
		"\n"
		"Without CAP_NET_ADMIN, res show OBJECT lists only the objects of the\n"
		"caller's own user id, without MR and MW keys.\n"
		"\n"
		"Exit status: 0 on success, 1 if the kernel refused the request,\n"
		"2 on a usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "xibctl: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'xibctl --help'.\n");
	return XIBCTL_EXIT_USAGE;
}

/*
 * NLMSG_ERROR: an ACK (error 0) ends the request; an error sets errno and
 * keeps the kernel's extended-ack message, if it sent one, in x->ext_msg.
 */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct xibctl *x = data;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		unsigned int offset = sizeof(*err);
		const struct nlattr *attr;

		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			offset += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_for_each(attr, nlh, offset) {
			if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG ||
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				continue;
			snprintf(x->ext_msg, sizeof(x->ext_msg), "%s",
				 mnl_attr_get_str(attr));
		}
	}
	errno = -err->error;
	return MNL_CB_ERROR;
}

/*
 * NLMSG_DONE ends a dump; a dump the kernel refused carries its error
 * (and, with NLM_F_ACK_TLVS, the extended-ack attributes) in it.
 */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct xibctl *x = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		const struct nlattr *attr;

		mnl_attr_for_each(attr, nlh, sizeof(err)) {
			if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG ||
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				continue;
			snprintf(x->ext_msg, sizeof(x->ext_msg), "%s",
				 mnl_attr_get_str(attr));
		}
	}
	errno = err < 0 ? -err : err;
	return MNL_CB_ERROR;
}

/*
 * Send @nlh and feed the answers to @cb (with @x) until the request is
 * done.  Returns 0, or -1 with errno set (the kernel's error for a refused
 * request, its message in x->ext_msg).
 */
static int talk(struct xibctl *x, struct nlmsghdr *nlh, mnl_cb_t cb)
{
	/*
	 * NLMSG_ERROR and NLMSG_DONE are ours: types at or past the
	 * array's length (NLMSG_OVERRUN) keep libmnl's own handling.  Not
	 * const: mnl_cb_run2() takes a plain pointer.
	 */
	static mnl_cb_t ctl_cb[NLMSG_DONE + 1] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	x->ext_msg[0] = '\0';
	if (mnl_socket_sendto(x->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t len = mnl_socket_recvfrom(x->nl, buf, sizeof(buf));

		if (len < 0)
			return -1;
		ret = mnl_cb_run2(buf, len, nlh->nlmsg_seq, x->portid, cb, x,
				  ctl_cb, NLMSG_DONE + 1);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, CTRL_ATTR_MAX) < 0)
		return MNL_CB_OK;
	if (type == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
		return MNL_CB_ERROR;
	if (type == CTRL_ATTR_MCAST_GROUPS &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int mcgrp_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type == CTRL_ATTR_MCAST_GRP_ID) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
	} else if (type == CTRL_ATTR_MCAST_GRP_NAME) {
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
	} else {
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = { 0 };
	const struct nlattr *grp;
	struct xibctl *x = data;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		x->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
		const struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1] = { 0 };

		if (mnl_attr_parse_nested(grp, mcgrp_attr_cb, g) < 0 ||
		    !g[CTRL_ATTR_MCAST_GRP_ID] || !g[CTRL_ATTR_MCAST_GRP_NAME])
			continue;
		if (!strcmp(mnl_attr_get_str(g[CTRL_ATTR_MCAST_GRP_NAME]),
			    XIB_GENL_MCGRP_TRACE))
			x->trace_group = mnl_attr_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return MNL_CB_OK;
}

static int xibctl_open(struct xibctl *x)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int one = 1;
	struct nlmsghdr *nlh;

	x->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!x->nl || mnl_socket_bind(x->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("xibctl: netlink socket");
		return -1;
	}
	x->portid = mnl_socket_get_portid(x->nl);
	/* Ask for the kernel's error messages; without them, errno only. */
	mnl_socket_setsockopt(x->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	x->seq = (uint32_t)time(NULL);

	nlh = xib_genl_put_header(buf, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY,
			      1, ++x->seq);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, XIB_GENL_NAME);
	if (talk(x, nlh, family_cb) < 0 || !x->family) {
		if (errno == ENOENT)
			fprintf(stderr, "xibctl: the \"%s\" netlink family is not "
				"there: is the xib_core module loaded?\n",
				XIB_GENL_NAME);
		else
			perror("xibctl: resolving the xib netlink family");
		return -1;
	}
	return 0;
}

static int dev_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type want;

	if (mnl_attr_type_valid(attr, XIB_ATTR_MAX) < 0)
		return MNL_CB_OK;	/* newer kernel: skip what we don't know */
	switch (type) {
	case XIB_ATTR_DEV_INDEX:
	case XIB_ATTR_DEV_NUM_PORTS:
	case XIB_ATTR_PORT_INDEX:
	case XIB_ATTR_PORT_ACTIVE_MTU:
	case XIB_ATTR_GID_INDEX:
		want = MNL_TYPE_U32;
		break;
	case XIB_ATTR_PORT_STATE:
	case XIB_ATTR_PORT_PHYS_STATE:
	case XIB_ATTR_GID_TYPE:
		want = MNL_TYPE_U8;
		break;
	case XIB_ATTR_PORT_GIDS:
	case XIB_ATTR_GID_ENTRY:
	case XIB_ATTR_DEV_RES:
		want = MNL_TYPE_NESTED;
		break;
	case XIB_ATTR_GID:
		if (mnl_attr_get_payload_len(attr) != 16)
			return MNL_CB_ERROR;
		tb[type] = attr;
		return MNL_CB_OK;
	case XIB_ATTR_DEV_NODE_GUID:
		want = MNL_TYPE_U64;
		break;
	case XIB_ATTR_DEV_NAME:
	case XIB_ATTR_DEV_DRIVER:
	case XIB_ATTR_NDEV_NAME:
		want = MNL_TYPE_NUL_STRING;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, want) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

static void print_guid(char *out, size_t len, uint64_t guid)
{
	snprintf(out, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

/* Print @s as a JSON string; names are printable, but quote defensively. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The count of resource @attr in the XIB_ATTR_DEV_RES nest, or -1. */
static long res_count(const struct nlattr *nest, uint16_t attr)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == attr &&
		    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			return mnl_attr_get_u32(a);
	return -1;
}

static void print_res(struct xibctl *x, const struct dev_info *d)
{
	size_t i;

	if (x->json) {
		printf("%s{\"ifindex\":%" PRIu32 ",\"ifname\":",
		       x->shown ? "," : "", d->index);
		json_string(d->name);
	} else {
		printf("%" PRIu32 ": %s:", d->index, d->name);
	}
	for (i = 0; i < sizeof(res_types) / sizeof(res_types[0]); i++) {
		long n = d->res ? res_count(d->res, res_types[i].attr) : -1;

		if (n < 0)
			continue;
		if (x->json)
			printf(",\"%s\":%ld", res_types[i].name, n);
		else
			printf(" %s %ld", res_types[i].name, n);
	}
	printf(x->json ? "}" : "\n");
	x->shown++;
}

static void print_dev(struct xibctl *x, const struct dev_info *d)
{
	char guid[32];

	print_guid(guid, sizeof(guid), d->node_guid);
	if (x->json) {
		printf("%s{\"ifindex\":%" PRIu32 ",\"ifname\":", x->shown ? "," : "",
		       d->index);
		json_string(d->name);
		printf(",\"node_guid\":\"%s\",\"ports\":%" PRIu32 ",\"driver\":",
		       guid, d->num_ports);
		json_string(d->driver);
		if (d->netdev) {
			printf(",\"netdev\":");
			json_string(d->netdev);
		}
		putchar('}');
	} else if (x->links_only) {
		printf("link %s/1 netdev %s\n", d->name, d->netdev);
	} else {
		printf("%" PRIu32 ": %s: node_guid %s ports %" PRIu32 " driver %s",
		       d->index, d->name, guid, d->num_ports, d->driver);
		if (d->netdev)
			printf(" netdev %s", d->netdev);
		putchar('\n');
	}
	x->shown++;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;
	struct dev_info d = { 0 };

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[XIB_ATTR_DEV_INDEX] || !tb[XIB_ATTR_DEV_NAME]) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	d.index = mnl_attr_get_u32(tb[XIB_ATTR_DEV_INDEX]);
	d.name = mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]);
	if (tb[XIB_ATTR_DEV_NODE_GUID])
		d.node_guid = mnl_attr_get_u64(tb[XIB_ATTR_DEV_NODE_GUID]);
	if (tb[XIB_ATTR_DEV_NUM_PORTS])
		d.num_ports = mnl_attr_get_u32(tb[XIB_ATTR_DEV_NUM_PORTS]);
	d.driver = tb[XIB_ATTR_DEV_DRIVER] ?
		mnl_attr_get_str(tb[XIB_ATTR_DEV_DRIVER]) : "unknown";
	if (tb[XIB_ATTR_NDEV_NAME])
		d.netdev = mnl_attr_get_str(tb[XIB_ATTR_NDEV_NAME]);
	d.res = tb[XIB_ATTR_DEV_RES];
	if (x->links_only && !d.netdev)
		return MNL_CB_OK;
	if (x->res)
		print_res(x, &d);
	else
		print_dev(x, &d);
	return MNL_CB_OK;
}

static const char *port_state_name(uint8_t state)
{
	static const char * const names[] = {
		[XIB_PORT_NOP] = "NOP", [XIB_PORT_DOWN] = "DOWN",
		[XIB_PORT_INIT] = "INIT", [XIB_PORT_ARMED] = "ARMED",
		[XIB_PORT_ACTIVE] = "ACTIVE", [XIB_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "UNKNOWN";
}

static const char *phys_state_name(uint8_t state)
{
	switch (state) {
	case XIB_PORT_PHYS_SLEEP:
		return "SLEEP";
	case XIB_PORT_PHYS_POLLING:
		return "POLLING";
	case XIB_PORT_PHYS_DISABLED:
		return "DISABLED";
	case XIB_PORT_PHYS_LINK_UP:
		return "LINK_UP";
	default:
		return "UNKNOWN";
	}
}

/* Print the GID entries of a XIB_ATTR_PORT_GIDS nest. */
static int print_gids(struct xibctl *x, const struct nlattr *nest)
{
	const struct nlattr *entry;
	unsigned int n = 0;

	if (x->json)
		printf(",\"gids\":[");
	mnl_attr_for_each_nested(entry, nest) {
		const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
		char text[INET6_ADDRSTRLEN];

		if (mnl_attr_get_type(entry) != XIB_ATTR_GID_ENTRY)
			continue;
		if (mnl_attr_parse_nested(entry, dev_attr_cb, tb) < 0 ||
		    !tb[XIB_ATTR_GID_INDEX] || !tb[XIB_ATTR_GID]) {
			errno = EPROTO;
			return -1;
		}
		if (!inet_ntop(AF_INET6, mnl_attr_get_payload(tb[XIB_ATTR_GID]),
			       text, sizeof(text)))
			return -1;
		if (x->json)
			printf("%s{\"index\":%" PRIu32 ",\"gid\":\"%s\",\"type\":\"RoCEv2\"}",
			       n ? "," : "", mnl_attr_get_u32(tb[XIB_ATTR_GID_INDEX]),
			       text);
		else
			printf("    gid %" PRIu32 " %s RoCEv2\n",
			       mnl_attr_get_u32(tb[XIB_ATTR_GID_INDEX]), text);
		n++;
	}
	if (x->json)
		putchar(']');
	return 0;
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;
	const char *name, *state, *phys;
	uint32_t port, mtu;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[XIB_ATTR_DEV_NAME] || !tb[XIB_ATTR_PORT_INDEX] ||
	    !tb[XIB_ATTR_PORT_STATE] || !tb[XIB_ATTR_PORT_PHYS_STATE] ||
	    !tb[XIB_ATTR_PORT_ACTIVE_MTU]) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	name = mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]);
	if (x->filter && strcmp(name, x->filter))
		return MNL_CB_OK;
	port = mnl_attr_get_u32(tb[XIB_ATTR_PORT_INDEX]);
	state = port_state_name(mnl_attr_get_u8(tb[XIB_ATTR_PORT_STATE]));
	phys = phys_state_name(mnl_attr_get_u8(tb[XIB_ATTR_PORT_PHYS_STATE]));
	mtu = mnl_attr_get_u32(tb[XIB_ATTR_PORT_ACTIVE_MTU]);

	if (x->json) {
		printf("%s{\"ifname\":", x->shown ? "," : "");
		json_string(name);
		printf(",\"port\":%" PRIu32 ",\"state\":\"%s\",\"physical_state\":\"%s\","
		       "\"active_mtu\":%" PRIu32, port, state, phys, mtu);
		if (tb[XIB_ATTR_NDEV_NAME]) {
			printf(",\"netdev\":");
			json_string(mnl_attr_get_str(tb[XIB_ATTR_NDEV_NAME]));
		}
	} else {
		printf("%s/%" PRIu32 ": state %s physical_state %s active_mtu %" PRIu32,
		       name, port, state, phys, mtu);
		if (tb[XIB_ATTR_NDEV_NAME])
			printf(" netdev %s", mnl_attr_get_str(tb[XIB_ATTR_NDEV_NAME]));
		putchar('\n');
	}
	if (tb[XIB_ATTR_PORT_GIDS] && print_gids(x, tb[XIB_ATTR_PORT_GIDS]) < 0)
		return MNL_CB_ERROR;
	if (x->json)
		putchar('}');
	x->shown++;
	return MNL_CB_OK;
}

static void report(struct xibctl *x, const char *what, const char *name)
{
	const char *hint = "";

	if (x->ext_msg[0]) {
		fprintf(stderr, "xibctl: %s %s: %s: %s\n", what, name,
			strerror(errno), x->ext_msg);
		return;
	}

	switch (errno) {
	case ENODEV:
		hint = " (no such device in this network namespace)";
		break;
	case EOPNOTSUPP:
		hint = " (is the driver module, e.g. xib_hca, loaded?)";
		break;
	case EPERM:
		hint = " (needs CAP_NET_ADMIN)";
		break;
	default:
		break;
	}
	fprintf(stderr, "xibctl: %s %s: %s%s\n", what, name, strerror(errno), hint);
}

static int cmd_show(struct xibctl *x, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 1)
		return usage_error("unexpected argument '%s'", argv[1]);
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, argc ? NLM_F_ACK : NLM_F_DUMP,
			      XIB_CMD_DEV_GET, XIB_GENL_VERSION, ++x->seq);
	if (argc)
		mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, argv[0]);
	if (x->json)
		putchar('[');
	ret = talk(x, nlh, dev_cb);
	if (x->json)
		printf("]\n");
	if (ret < 0) {
		report(x, "show", argc ? argv[0] : "devices");
		return 1;
	}
	if (argc && x->links_only && !x->shown) {
		fprintf(stderr, "xibctl: %s is not bound to a network interface\n",
			argv[0]);
		return 1;
	}
	return 0;
}

static int cmd_port_show(struct xibctl *x, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], name[XIB_DEVICE_NAME_MAX];
	unsigned long port = 0;
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 1)
		return usage_error("unexpected argument '%s'", argv[1]);
	if (argc) {
		char *slash = strchr(argv[0], '/');
		size_t len = slash ? (size_t)(slash - argv[0]) : strlen(argv[0]);

		if (!len || len >= sizeof(name))
			return usage_error("invalid device name '%s'", argv[0]);
		memcpy(name, argv[0], len);
		name[len] = '\0';
		if (slash) {
			char *end;

			errno = 0;
			port = strtoul(slash + 1, &end, 10);
			if (errno || *end || !port || port > UINT32_MAX)
				return usage_error("invalid port in '%s'", argv[0]);
		}
	}
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, port ? NLM_F_ACK : NLM_F_DUMP,
			      XIB_CMD_PORT_GET, XIB_GENL_VERSION, ++x->seq);
	if (port) {
		mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, name);
		mnl_attr_put_u32(nlh, XIB_ATTR_PORT_INDEX, (uint32_t)port);
	} else if (argc) {
		x->filter = name;
	}
	if (x->json)
		putchar('[');
	ret = talk(x, nlh, port_cb);
	if (x->json)
		printf("]\n");
	if (ret < 0) {
		report(x, "port show", argc ? argv[0] : "ports");
		return 1;
	}
	if (x->filter && !x->shown) {
		errno = ENODEV;
		report(x, "port show", argv[0]);
		return 1;
	}
	return 0;
}

static int cmd_link_add(struct xibctl *x, int argc, char **argv)
{
	const char *name, *netdev = NULL, *type = "hca", *pci = NULL;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int i;

	if (argc < 1)
		return usage_error("%s", "link add: NAME is required");
	name = argv[0];
	if (!*name || strlen(name) >= XIB_DEVICE_NAME_MAX)
		return usage_error("invalid device name '%s'", name);
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return usage_error("'%s' needs a value", argv[i]);
		if (!strcmp(argv[i], "netdev"))
			netdev = argv[i + 1];
		else if (!strcmp(argv[i], "type"))
			type = argv[i + 1];
		else if (!strcmp(argv[i], "pci"))
			pci = argv[i + 1];
		else
			return usage_error("unknown link add option '%s'", argv[i]);
	}
	if (!netdev)
		return usage_error("%s", "link add: 'netdev IFNAME' is required");
	if (!*type || strlen(type) >= XIB_LINK_TYPE_MAX)
		return usage_error("invalid link type '%s'", type);
	if (pci && (!*pci || strlen(pci) >= 32))
		return usage_error("invalid PCI function '%s'", pci);
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, NLM_F_ACK, XIB_CMD_LINK_ADD,
			      XIB_GENL_VERSION, ++x->seq);
	mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, name);
	mnl_attr_put_strz(nlh, XIB_ATTR_NDEV_NAME, netdev);
	mnl_attr_put_strz(nlh, XIB_ATTR_LINK_TYPE, type);
	if (pci)
		mnl_attr_put_strz(nlh, XIB_ATTR_LINK_PCI, pci);
	if (talk(x, nlh, NULL) < 0) {
		report(x, "link add", name);
		return 1;
	}
	return 0;
}

static int cmd_link_del(struct xibctl *x, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (argc != 1)
		return usage_error("%s", "link del takes exactly one NAME");
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, NLM_F_ACK, XIB_CMD_LINK_DEL,
			      XIB_GENL_VERSION, ++x->seq);
	mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, argv[0]);
	if (talk(x, nlh, NULL) < 0) {
		report(x, "link del", argv[0]);
		return 1;
	}
	return 0;
}

/* --- system -------------------------------------------------------------- */

static int sys_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_get_type(attr) != XIB_ATTR_SYS_NETNS_SHARED)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
		return MNL_CB_ERROR;
	tb[XIB_ATTR_SYS_NETNS_SHARED] = attr;
	return MNL_CB_OK;
}

/* "netns shared" (rdma system show's words) or {"netns":"shared"}. */
static int sys_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;
	const char *mode;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), sys_attr_cb, tb) < 0 ||
	    !tb[XIB_ATTR_SYS_NETNS_SHARED]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	mode = mnl_attr_get_u8(tb[XIB_ATTR_SYS_NETNS_SHARED]) ? "shared" :
								 "exclusive";
	if (x->json)
		printf("{\"netns\":\"%s\"}\n", mode);
	else
		printf("netns %s\n", mode);
	return MNL_CB_OK;
}

/* "system [show]" and "system set netns shared|exclusive". */
static int cmd_system(struct xibctl *x, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	bool set = argc && !strcmp(argv[0], "set");
	int shared = -1;

	if (argc && !set && strcmp(argv[0], "show")) {
		fprintf(stderr, "xibctl: system: unknown command '%s' (show, set)\n",
			argv[0]);
		return XIBCTL_EXIT_USAGE;
	}
	if (!set && argc > 1) {
		fprintf(stderr, "xibctl: system show: unknown argument '%s'\n",
			argv[1]);
		return XIBCTL_EXIT_USAGE;
	}
	if (set) {
		if (argc != 3 || strcmp(argv[1], "netns")) {
			fprintf(stderr, "xibctl: system set: usage: system set netns shared|exclusive\n");
			return XIBCTL_EXIT_USAGE;
		}
		if (!strcmp(argv[2], "shared")) {
			shared = 1;
		} else if (!strcmp(argv[2], "exclusive")) {
			shared = 0;
		} else {
			fprintf(stderr, "xibctl: system set: invalid netns mode '%s' (shared, exclusive)\n",
				argv[2]);
			return XIBCTL_EXIT_USAGE;
		}
	}
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, NLM_F_ACK,
				  set ? XIB_CMD_SYS_SET : XIB_CMD_SYS_GET,
				  XIB_GENL_VERSION, ++x->seq);
	if (set)
		mnl_attr_put_u8(nlh, XIB_ATTR_SYS_NETNS_SHARED, (uint8_t)shared);
	if (talk(x, nlh, set ? NULL : sys_cb) < 0) {
		report(x, set ? "system set" : "system show", "netns");
		return 1;
	}
	return 0;
}

/* --- res show OBJECT ----------------------------------------------------- */

enum field_kind {
	F_U8,
	F_U32,
	F_U64,
	F_QP_TYPE,	/* u8, enum xib_qp_type */
	F_QP_STATE,	/* u8, enum xib_qp_state */
	F_HEX32,	/* u32, printed 0x%08x (keys) */
	F_ACCESS,	/* u32, enum xib_access_flags */
	F_GID,		/* 16 bytes */
	F_MW_STATE,	/* u8, enum xib_nl_mw_state */
	F_CM_STATE,	/* u8, enum xib_nl_cm_state */
	F_PS,		/* u32, enum xib_nl_ps */
	F_SOCKADDR,	/* struct sockaddr_in or sockaddr_in6 */
};

struct res_field {
	uint16_t attr;
	const char *name;	/* as iproute2's "rdma res show" names it */
	enum field_kind kind;
	bool detail;		/* printed with -d only */
};

static const struct res_field qp_fields[] = {
	{ XIB_ATTR_RES_QPN, "lqpn", F_U32, false },
	{ XIB_ATTR_RES_DEST_QPN, "rqpn", F_U32, false },
	{ XIB_ATTR_RES_QP_TYPE, "type", F_QP_TYPE, false },
	{ XIB_ATTR_RES_QP_STATE, "state", F_QP_STATE, false },
	{ XIB_ATTR_RES_SQ_PSN, "sq-psn", F_U32, false },
	{ XIB_ATTR_RES_RQ_PSN, "rq-psn", F_U32, false },
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, true },
	{ XIB_ATTR_RES_SEND_CQN, "scqn", F_U32, true },
	{ XIB_ATTR_RES_RECV_CQN, "rcqn", F_U32, true },
	{ XIB_ATTR_RES_SRQN, "srqn", F_U32, true },
	{ XIB_ATTR_RES_SQ_WRS, "sq-wrs", F_U32, true },
	{ XIB_ATTR_RES_RQ_WRS, "rq-wrs", F_U32, true },
	{ XIB_ATTR_RES_RETRANSMITS, "retransmits", F_U64, true },
	{ XIB_ATTR_RES_RNR_NAKS, "rnr-naks", F_U64, true },
};

static const struct res_field cq_fields[] = {
	{ XIB_ATTR_RES_CQN, "cqn", F_U32, false },
	{ XIB_ATTR_RES_CQE, "cqe", F_U32, false },
	{ XIB_ATTR_RES_CQ_FILL, "fill", F_U32, false },
	{ XIB_ATTR_RES_USERS, "users", F_U32, false },
};

static const struct res_field mr_fields[] = {
	{ XIB_ATTR_RES_RKEY, "rkey", F_HEX32, false },
	{ XIB_ATTR_RES_LKEY, "lkey", F_HEX32, false },
	{ XIB_ATTR_RES_MR_LEN, "mrlen", F_U64, false },
	{ XIB_ATTR_RES_IOVA, "iova", F_U64, true },
	{ XIB_ATTR_RES_ACCESS, "access", F_ACCESS, true },
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, true },
};

static const struct res_field pd_fields[] = {
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, false },
	{ XIB_ATTR_RES_USERS, "users", F_U32, false },
};

static const struct res_field srq_fields[] = {
	{ XIB_ATTR_RES_SRQN, "srqn", F_U32, false },
	{ XIB_ATTR_RES_MAX_WR, "max-wr", F_U32, false },
	{ XIB_ATTR_RES_SRQ_LIMIT, "limit", F_U32, false },
	{ XIB_ATTR_RES_USERS, "users", F_U32, true },
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, true },
};

static const struct res_field ah_fields[] = {
	{ XIB_ATTR_RES_AHN, "ahn", F_U32, false },
	{ XIB_ATTR_RES_DGID, "dgid", F_GID, false },
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, true },
};

static const struct res_field mw_fields[] = {
	{ XIB_ATTR_RES_RKEY, "rkey", F_HEX32, false },
	{ XIB_ATTR_RES_MW_TYPE, "type", F_U8, false },
	{ XIB_ATTR_RES_MW_STATE, "state", F_MW_STATE, false },
	{ XIB_ATTR_RES_QPN, "qpn", F_U32, false },
	{ XIB_ATTR_RES_MR_LEN, "len", F_U64, false },
	{ XIB_ATTR_RES_IOVA, "addr", F_U64, true },
	{ XIB_ATTR_RES_ACCESS, "access", F_ACCESS, true },
	{ XIB_ATTR_RES_LKEY, "mr-lkey", F_HEX32, true },
	{ XIB_ATTR_RES_PDN, "pdn", F_U32, true },
};

/* cm-idn first, before the device (which an id may not have). */
static const struct res_field cm_id_fields[] = {
	{ XIB_ATTR_RES_CM_IDN, "cm-idn", F_U32, false },
	{ XIB_ATTR_PORT_INDEX, "port", F_U32, false },
	{ XIB_ATTR_RES_QPN, "lqpn", F_U32, false },
	{ XIB_ATTR_RES_QP_TYPE, "qp-type", F_QP_TYPE, false },
	{ XIB_ATTR_RES_CM_STATE, "state", F_CM_STATE, false },
	{ XIB_ATTR_RES_PS, "ps", F_PS, false },
	{ XIB_ATTR_RES_SRC_ADDR, "src-addr", F_SOCKADDR, false },
	{ XIB_ATTR_RES_DST_ADDR, "dst-addr", F_SOCKADDR, false },
	{ XIB_ATTR_RES_BACKLOG, "backlog", F_U32, false },
};

static const struct res_field ctx_fields[] = {
	{ XIB_ATTR_RES_CTX_ID, "ctxn", F_U32, false },
};

/* The owner, printed after the object's own fields. */
static const struct res_field owner_fields[] = {
	{ XIB_ATTR_RES_PID, "pid", F_U32, false },
	{ XIB_ATTR_RES_UID, "uid", F_U32, true },
};

#define FIELDS(a) a, sizeof(a) / sizeof(a[0])

static const struct res_object {
	const char *name;
	uint8_t cmd;
	const struct res_field *fields;
	size_t nfields;
} res_objects[] = {
	{ "qp", XIB_CMD_RES_QP_GET, FIELDS(qp_fields) },
	{ "cq", XIB_CMD_RES_CQ_GET, FIELDS(cq_fields) },
	{ "mr", XIB_CMD_RES_MR_GET, FIELDS(mr_fields) },
	{ "mw", XIB_CMD_RES_MW_GET, FIELDS(mw_fields) },
	{ "pd", XIB_CMD_RES_PD_GET, FIELDS(pd_fields) },
	{ "srq", XIB_CMD_RES_SRQ_GET, FIELDS(srq_fields) },
	{ "ah", XIB_CMD_RES_AH_GET, FIELDS(ah_fields) },
	{ "ctx", XIB_CMD_RES_CTX_GET, FIELDS(ctx_fields) },
	{ "cm_id", XIB_CMD_RES_CM_ID_GET, FIELDS(cm_id_fields) },
};

/* enum xib_nl_cm_state, by value */
static const char * const cm_state_names[] = {
	"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
	"CONNECT", "ESTABLISHED", "DISCONNECT", "ADDR_BOUND", "LISTEN",
	"DEVICE_REMOVAL", "DESTROYING",
};

/* enum xib_nl_ps */
static const struct {
	uint32_t ps;
	const char *name;
} ps_names[] = {
	{ XIB_NL_PS_TCP, "TCP" }, { XIB_NL_PS_UDP, "UDP" },
	{ XIB_NL_PS_IPOIB, "IPOIB" }, { XIB_NL_PS_IB, "IB" },
};

static const char *ps_name(uint64_t ps)
{
	size_t i;

	for (i = 0; i < sizeof(ps_names) / sizeof(ps_names[0]); i++)
		if (ps_names[i].ps == ps)
			return ps_names[i].name;
	return NULL;
}

static long long ps_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(ps_names) / sizeof(ps_names[0]); i++)
		if (!strcasecmp(s, ps_names[i].name))
			return ps_names[i].ps;
	return -1;
}

static const char * const qp_state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

/* enum xib_qp_type, by value; NULL where there is none. */
static const char *qp_type_name(unsigned int type)
{
	switch (type) {
	case 2:
		return "RC";
	case 3:
		return "UC";
	case 4:
		return "UD";
	default:
		return NULL;
	}
}

static int qp_type_parse(const char *s)
{
	unsigned int t;

	for (t = 0; t < 16; t++)
		if (qp_type_name(t) && !strcasecmp(s, qp_type_name(t)))
			return (int)t;
	return -1;
}

static int state_parse(const char * const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return (int)i;
	return -1;
}

/* What "res show OBJECT" filters on. */
struct res_filter {
	const struct res_object *obj;
	const char *dev;
	long long qpn;		/* -1: any */
	long long pid;		/* -1: any */
	int type;		/* -1: any */
	int state;		/* -1: any */
	long long ps;		/* -1: any */
};

static struct res_filter *res_filter;

static enum mnl_attr_data_type kind_type(enum field_kind kind)
{
	switch (kind) {
	case F_U8:
	case F_QP_TYPE:
	case F_QP_STATE:
	case F_MW_STATE:
	case F_CM_STATE:
		return MNL_TYPE_U8;
	case F_U64:
		return MNL_TYPE_U64;
	case F_GID:
	case F_SOCKADDR:
		return MNL_TYPE_BINARY;
	default:
		return MNL_TYPE_U32;
	}
}

static const struct res_field *find_field(uint16_t attr)
{
	static const struct {
		const struct res_field *f;
		size_t n;
	} all[] = {
		{ FIELDS(qp_fields) }, { FIELDS(cq_fields) }, { FIELDS(mr_fields) },
		{ FIELDS(pd_fields) }, { FIELDS(srq_fields) }, { FIELDS(ah_fields) },
		{ FIELDS(ctx_fields) }, { FIELDS(owner_fields) },
		{ FIELDS(mw_fields) }, { FIELDS(cm_id_fields) },
	};
	size_t i, j;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		for (j = 0; j < all[i].n; j++)
			if (all[i].f[j].attr == attr)
				return &all[i].f[j];
	return NULL;
}

/* An XIB_ATTR_RES_*_ADDR: a whole sockaddr_in or sockaddr_in6. */
static bool sockaddr_ok(const struct nlattr *a)
{
	const struct sockaddr *sa = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a);

	if (len == sizeof(struct sockaddr_in))
		return sa->sa_family == AF_INET;
	if (len == sizeof(struct sockaddr_in6))
		return sa->sa_family == AF_INET6;
	return false;
}

static int res_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);
	const struct res_field *f;

	if (mnl_attr_type_valid(attr, XIB_ATTR_MAX) < 0)
		return MNL_CB_OK;	/* newer kernel: skip what we don't know */
	switch (type) {
	case XIB_ATTR_DEV_INDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	case XIB_ATTR_DEV_NAME:
	case XIB_ATTR_RES_COMM:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		break;
	case XIB_ATTR_RES_KERN:
		break;
	case XIB_ATTR_DEV_RES:
	case XIB_ATTR_STATS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		break;
	default:
		f = find_field(type);
		if (!f)
			return MNL_CB_OK;
		if (f->kind == F_GID ? mnl_attr_get_payload_len(attr) != 16 :
		    f->kind == F_SOCKADDR ? !sockaddr_ok(attr) :
		    mnl_attr_validate(attr, kind_type(f->kind)) < 0)
			return MNL_CB_ERROR;
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static uint64_t attr_uint(const struct nlattr *a, enum field_kind kind)
{
	switch (kind_type(kind)) {
	case MNL_TYPE_U8:
		return mnl_attr_get_u8(a);
	case MNL_TYPE_U64:
		return mnl_attr_get_u64(a);
	default:
		return mnl_attr_get_u32(a);
	}
}

/*
 * An address with its port: " src-addr 10.0.0.1:7174" or
 * " src-addr [fe80::1]:7174"; in JSON, as iproute2 names them,
 * "src-addr":"10.0.0.1","src-port":7174.
 */
static void print_sockaddr(struct xibctl *x, const char *name, const void *p)
{
	char text[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	uint16_t port;
	bool v6;

	memcpy(&sin, p, sizeof(sin));
	v6 = sin.sin_family == AF_INET6;
	if (v6) {
		memcpy(&sin6, p, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, text, sizeof(text));
		port = ntohs(sin6.sin6_port);
	} else {
		inet_ntop(AF_INET, &sin.sin_addr, text, sizeof(text));
		port = ntohs(sin.sin_port);
	}
	if (x->json) {
		const char *dash = strchr(name, '-');

		printf(",\"%s\":", name);
		json_string(text);
		printf(",\"%.*s-port\":%u", (int)(dash ? dash - name : 0), name,
		       port);
	} else {
		printf(v6 ? " %s [%s]:%u" : " %s %s:%u", name, text, port);
	}
}

/* Print "name value" or "name":value for one field, first or not. */
static void print_field(struct xibctl *x, const struct res_field *f,
			const struct nlattr *a)
{
	static const char * const access_names[] = {
		"local_write", "remote_write", "remote_read", "remote_atomic",
		"mw_bind", "zero_based", "on_demand", "hugetlb",
	};	/* enum xib_access_flags, bit by bit (relaxed ordering aside) */
	char text[INET6_ADDRSTRLEN + 64];
	const char *str = NULL;
	uint64_t v = 0;
	size_t i;

	if (f->kind == F_SOCKADDR) {
		print_sockaddr(x, f->name, mnl_attr_get_payload(a));
		return;
	}
	if (f->kind != F_GID)
		v = attr_uint(a, f->kind);
	switch (f->kind) {
	case F_QP_TYPE:
		str = qp_type_name((unsigned int)v);
		if (!str) {
			snprintf(text, sizeof(text), "%" PRIu64, v);
			str = text;
		}
		break;
	case F_QP_STATE:
		if (v < sizeof(qp_state_names) / sizeof(qp_state_names[0]))
			str = qp_state_names[v];
		else
			str = "UNKNOWN";
		break;
	case F_HEX32:
		snprintf(text, sizeof(text), "0x%08" PRIx64, v);
		str = text;
		break;
	case F_MW_STATE:
		str = v == XIB_NL_MW_FREE ? "free" : v == XIB_NL_MW_BOUND ?
		      "bound" : "unknown";
		break;
	case F_CM_STATE:
		if (v < sizeof(cm_state_names) / sizeof(cm_state_names[0]))
			str = cm_state_names[v];
		else
			str = "UNKNOWN";
		break;
	case F_PS:
		str = ps_name(v);
		if (!str) {
			snprintf(text, sizeof(text), "0x%04" PRIx64, v);
			str = text;
		}
		break;
	case F_ACCESS:
		text[0] = '\0';
		for (i = 0; i < sizeof(access_names) / sizeof(access_names[0]); i++)
			if (v & (1u << i))
				snprintf(text + strlen(text), sizeof(text) - strlen(text),
					 "%s%s", text[0] ? "," : "", access_names[i]);
		if (!text[0])
			snprintf(text, sizeof(text), "local_read");
		str = text;
		break;
	case F_GID:
		if (!inet_ntop(AF_INET6, mnl_attr_get_payload(a), text,
			       sizeof(text)))
			snprintf(text, sizeof(text), "?");
		str = text;
		break;
	default:
		break;
	}
	if (x->json) {
		printf(",\"%s\":", f->name);
		if (str)
			json_string(str);
		else
			printf("%" PRIu64, v);
	} else if (str) {
		printf(" %s %s", f->name, str);
	} else {
		printf(" %s %" PRIu64, f->name, v);
	}
}

static void print_fields(struct xibctl *x, const struct res_field *f, size_t n,
			 const struct nlattr **tb)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tb[f[i].attr] && (!f[i].detail || x->details))
			print_field(x, &f[i], tb[f[i].attr]);
}

static int stat_entry_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type == XIB_ATTR_STAT_NAME) {
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
	} else if (type == XIB_ATTR_STAT_VALUE) {
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
	} else {
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

/*
 * The entries of an XIB_ATTR_STATS nest, " name value" each, or in JSON
 * "name":value each, the first preceded by @first (',' after other keys,
 * 0 at the start of an object).  -1 with errno EBADMSG on a bad entry.
 */
static int print_stats(struct xibctl *x, const struct nlattr *nest, char first)
{
	const struct nlattr *entry;
	char sep = first;

	mnl_attr_for_each_nested(entry, nest) {
		const struct nlattr *e[XIB_ATTR_MAX + 1] = { 0 };

		if (mnl_attr_get_type(entry) != XIB_ATTR_STAT_ENTRY)
			continue;
		if (mnl_attr_parse_nested(entry, stat_entry_cb, e) < 0 ||
		    !e[XIB_ATTR_STAT_NAME] || !e[XIB_ATTR_STAT_VALUE]) {
			errno = EBADMSG;
			return -1;
		}
		if (x->json) {
			if (sep)
				putchar(sep);
			sep = ',';
			json_string(mnl_attr_get_str(e[XIB_ATTR_STAT_NAME]));
			printf(":%" PRIu64, mnl_attr_get_u64(e[XIB_ATTR_STAT_VALUE]));
		} else {
			printf(" %s %" PRIu64, mnl_attr_get_str(e[XIB_ATTR_STAT_NAME]),
			       mnl_attr_get_u64(e[XIB_ATTR_STAT_VALUE]));
		}
	}
	return 0;
}

static int res_obj_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	const struct res_filter *rf = res_filter;
	struct xibctl *x = data;
	const struct res_field *fields = rf->obj->fields;
	size_t nfields = rf->obj->nfields;
	bool cm_id = rf->obj->cmd == XIB_CMD_RES_CM_ID_GET;
	const char *comm;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), res_attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	/* an RDMA CM id has no device until it is bound to one */
	if (!tb[XIB_ATTR_DEV_INDEX] != !tb[XIB_ATTR_DEV_NAME] ||
	    (!tb[XIB_ATTR_DEV_INDEX] && !cm_id) ||
	    (cm_id && !tb[XIB_ATTR_RES_CM_IDN])) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	if (cm_id) {	/* its number leads: the device may be missing */
		printf(x->json ? "%s{\"cm-idn\":%" PRIu32 : "%scm-idn %" PRIu32,
		       x->json && x->shown ? "," : "",
		       mnl_attr_get_u32(tb[XIB_ATTR_RES_CM_IDN]));
		fields++;
		nfields--;
		if (tb[XIB_ATTR_DEV_INDEX] && x->json) {
			printf(",\"ifindex\":%" PRIu32 ",\"ifname\":",
			       mnl_attr_get_u32(tb[XIB_ATTR_DEV_INDEX]));
			json_string(mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
		} else if (tb[XIB_ATTR_DEV_INDEX]) {
			printf(" dev %s", mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
		}
	} else if (x->json) {
		printf("%s{\"ifindex\":%" PRIu32 ",\"ifname\":", x->shown ? "," : "",
		       mnl_attr_get_u32(tb[XIB_ATTR_DEV_INDEX]));
		json_string(mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
	} else {
		printf("dev %s", mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
	}
	print_fields(x, fields, nfields, tb);
	if (tb[XIB_ATTR_DEV_RES])	/* ctx: its objects */
		for (size_t i = 0; i < sizeof(res_types) / sizeof(res_types[0]); i++) {
			long n = res_count(tb[XIB_ATTR_DEV_RES], res_types[i].attr);

			if (n < 0 || res_types[i].attr == XIB_ATTR_RES_UCONTEXT)
				continue;
			if (x->json)
				printf(",\"%s\":%ld", res_types[i].name, n);
			else
				printf(" %s %ld", res_types[i].name, n);
		}
	if (x->details && tb[XIB_ATTR_RES_CTX_ID] &&
	    rf->obj->cmd != XIB_CMD_RES_CTX_GET)
		print_field(x, &ctx_fields[0], tb[XIB_ATTR_RES_CTX_ID]);
	print_fields(x, owner_fields, sizeof(owner_fields) / sizeof(owner_fields[0]),
		     tb);
	comm = tb[XIB_ATTR_RES_COMM] ? mnl_attr_get_str(tb[XIB_ATTR_RES_COMM]) :
	       tb[XIB_ATTR_RES_KERN] ? "[kernel]" : NULL;
	if (comm && x->json) {
		printf(",\"comm\":");
		json_string(comm);
	} else if (comm) {
		printf(" comm %s", comm);
	}
	if (x->details && tb[XIB_ATTR_STATS]) {
		/* the object's own counters (QPs): "counters" */
		printf(x->json ? ",\"counters\":{" : "\n    counters");
		if (print_stats(x, tb[XIB_ATTR_STATS], 0) < 0)
			return MNL_CB_ERROR;
		if (x->json)
			putchar('}');
	}
	printf(x->json ? "}" : "\n");
	x->shown++;
	return MNL_CB_OK;
}

/* A decimal number in [0, @max], or -1. */
static long long parse_num(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	return (long long)v;
}

static int cmd_res_object(struct xibctl *x, const struct res_object *obj,
			  int argc, char **argv)
{
	struct res_filter rf = { .obj = obj, .qpn = -1, .pid = -1,
				 .type = -1, .state = -1, .ps = -1 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	bool is_qp = obj->cmd == XIB_CMD_RES_QP_GET;
	bool is_cm = obj->cmd == XIB_CMD_RES_CM_ID_GET;
	struct nlmsghdr *nlh;
	const char *key;
	int i, ret;

	for (i = 0; i < argc; i += 2) {
		key = argv[i];
		if (strcmp(key, "dev") && strcmp(key, "pid") &&
		    !(is_qp && (!strcmp(key, "qpn") || !strcmp(key, "type") ||
				!strcmp(key, "state"))) &&
		    !(is_cm && (!strcmp(key, "state") || !strcmp(key, "ps")))) {
			fprintf(stderr, "xibctl: res show %s: unknown filter '%s'"
				" (dev, pid%s)\n", obj->name, key,
				is_qp ? ", qpn, type, state" :
				is_cm ? ", state, ps" : "");
			return XIBCTL_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "xibctl: res show %s: '%s' needs a value\n",
				obj->name, key);
			return XIBCTL_EXIT_USAGE;
		}
		if (!strcmp(key, "dev")) {
			rf.dev = argv[i + 1];
			if (!*rf.dev || strlen(rf.dev) >= XIB_DEVICE_NAME_MAX)
				goto bad_value;
		} else if (!strcmp(key, "pid")) {
			rf.pid = parse_num(argv[i + 1], INT32_MAX);
			if (rf.pid <= 0)
				goto bad_value;
		} else if (!strcmp(key, "qpn")) {
			rf.qpn = parse_num(argv[i + 1], 0xffffff);
			if (rf.qpn < 0)
				goto bad_value;
		} else if (!strcmp(key, "type")) {
			rf.type = qp_type_parse(argv[i + 1]);
			if (rf.type < 0)
				goto bad_value;
		} else if (!strcmp(key, "ps")) {
			rf.ps = ps_parse(argv[i + 1]);
			if (rf.ps < 0)
				goto bad_value;
		} else if (is_cm) {
			rf.state = state_parse(cm_state_names,
					       sizeof(cm_state_names) /
					       sizeof(cm_state_names[0]),
					       argv[i + 1]);
			if (rf.state < 0)
				goto bad_value;
		} else {
			rf.state = state_parse(qp_state_names,
					       sizeof(qp_state_names) /
					       sizeof(qp_state_names[0]),
					       argv[i + 1]);
			if (rf.state < 0)
				goto bad_value;
		}
	}
	if (xibctl_open(x) < 0)
		return 1;
	res_filter = &rf;
	nlh = xib_genl_put_header(buf, x->family, NLM_F_DUMP, obj->cmd,
				  XIB_GENL_VERSION, ++x->seq);
	if (rf.dev)
		mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, rf.dev);
	/* the kernel applies the filters */
	if (rf.qpn >= 0)
		mnl_attr_put_u32(nlh, XIB_ATTR_RES_QPN, (uint32_t)rf.qpn);
	if (rf.pid >= 0)
		mnl_attr_put_u32(nlh, XIB_ATTR_RES_PID, (uint32_t)rf.pid);
	if (rf.type >= 0)
		mnl_attr_put_u8(nlh, XIB_ATTR_RES_QP_TYPE, (uint8_t)rf.type);
	if (rf.state >= 0)
		mnl_attr_put_u8(nlh, is_cm ? XIB_ATTR_RES_CM_STATE :
				XIB_ATTR_RES_QP_STATE, (uint8_t)rf.state);
	if (rf.ps >= 0)
		mnl_attr_put_u32(nlh, XIB_ATTR_RES_PS, (uint32_t)rf.ps);
	if (x->json)
		putchar('[');
	ret = talk(x, nlh, res_obj_cb);
	if (x->json)
		printf("]\n");
	if (ret < 0) {
		report(x, "res show", rf.dev ? rf.dev : obj->name);
		return 1;
	}
	return 0;

bad_value:
	fprintf(stderr, "xibctl: res show %s: invalid %s '%s'\n", obj->name,
		key, argv[i + 1]);
	return XIBCTL_EXIT_USAGE;
}

/* --- statistic ------------------------------------------------------------- */

static int stat_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type want;

	switch (type) {
	case XIB_ATTR_DEV_INDEX:
	case XIB_ATTR_PORT_INDEX:
		want = MNL_TYPE_U32;
		break;
	case XIB_ATTR_DEV_NAME:
		want = MNL_TYPE_NUL_STRING;
		break;
	case XIB_ATTR_STATS:
		want = MNL_TYPE_NESTED;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, want) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

/* One device's counters: "dev NAME port 1 name value ..." or a JSON object. */
static int stat_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), stat_attr_cb, tb) < 0 ||
	    !tb[XIB_ATTR_DEV_NAME] || !tb[XIB_ATTR_STATS]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (x->json) {
		printf("%s{\"dev\":", x->shown ? "," : "");
		json_string(mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
		printf(",\"port\":%u", tb[XIB_ATTR_PORT_INDEX] ?
		       mnl_attr_get_u32(tb[XIB_ATTR_PORT_INDEX]) : 1);
	} else {
		printf("dev %s port %u", mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]),
		       tb[XIB_ATTR_PORT_INDEX] ?
		       mnl_attr_get_u32(tb[XIB_ATTR_PORT_INDEX]) : 1);
	}
	if (print_stats(x, tb[XIB_ATTR_STATS], ',') < 0)
		return MNL_CB_ERROR;
	if (x->json)
		putchar('}');
	else
		putchar('\n');
	x->shown++;
	return MNL_CB_OK;
}

/* A device name of a DEV_GET dump, appended to x->names. */
static int name_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	char (*more)[XIB_DEVICE_NAME_MAX];
	struct xibctl *x = data;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), stat_attr_cb, tb) < 0 ||
	    !tb[XIB_ATTR_DEV_NAME])
		return MNL_CB_OK;
	more = realloc(x->names, (x->nnames + 1) * sizeof(*x->names));
	if (!more)
		return MNL_CB_ERROR;
	x->names = more;
	snprintf(x->names[x->nnames++], XIB_DEVICE_NAME_MAX, "%s",
		 mnl_attr_get_str(tb[XIB_ATTR_DEV_NAME]));
	return MNL_CB_OK;
}

static int stat_reset_one(struct xibctl *x, const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = xib_genl_put_header(buf, x->family, NLM_F_ACK, XIB_CMD_STAT_RESET,
				  XIB_GENL_VERSION, ++x->seq);
	mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, name);
	if (talk(x, nlh, NULL) < 0) {
		report(x, "statistic reset", name);
		return 1;
	}
	return 0;
}

static int cmd_stat_reset(struct xibctl *x, const char *dev)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret = 0;
	size_t i;

	if (xibctl_open(x) < 0)
		return 1;
	if (dev)
		return stat_reset_one(x, dev);
	nlh = xib_genl_put_header(buf, x->family, NLM_F_DUMP, XIB_CMD_DEV_GET,
				  XIB_GENL_VERSION, ++x->seq);
	if (talk(x, nlh, name_cb) < 0) {
		report(x, "statistic reset", "devices");
		return 1;
	}
	for (i = 0; i < x->nnames; i++)
		ret |= stat_reset_one(x, x->names[i]);
	return ret;
}

/* "statistic [show] [dev NAME] [qp N]" and "statistic reset [dev NAME]". */
static int cmd_stat(struct xibctl *x, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const char *dev = NULL, *qp = NULL;
	bool reset = false;
	struct nlmsghdr *nlh;
	int i, ret;

	if (argc && (!strcmp(argv[0], "show") || !strcmp(argv[0], "reset"))) {
		reset = !strcmp(argv[0], "reset");
		argc--;
		argv++;
	}
	for (i = 0; i < argc; i += 2) {
		if (strcmp(argv[i], "dev") && (reset || strcmp(argv[i], "qp"))) {
			fprintf(stderr,
				"xibctl: statistic %s: unknown argument '%s' (%s)\n",
				reset ? "reset" : "show", argv[i],
				reset ? "dev NAME" : "dev NAME, qp N");
			return XIBCTL_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "xibctl: statistic: '%s' needs a value\n",
				argv[i]);
			return XIBCTL_EXIT_USAGE;
		}
		if (!strcmp(argv[i], "dev")) {
			dev = argv[i + 1];
			if (!*dev || strlen(dev) >= XIB_DEVICE_NAME_MAX)
				goto bad_value;
		} else {
			qp = argv[i + 1];
			if (parse_num(qp, 0xffffff) < 0)
				goto bad_value;
		}
	}
	if (reset)
		return cmd_stat_reset(x, dev);
	if (qp) {
		/* a QP's counters are fields of its resource entry */
		char *args[4];
		int n = 0;

		args[n++] = "qpn";
		args[n++] = (char *)qp;
		if (dev) {
			args[n++] = "dev";
			args[n++] = (char *)dev;
		}
		x->details = true;
		return cmd_res_object(x, &res_objects[0], n, args);
	}
	if (xibctl_open(x) < 0)
		return 1;
	nlh = xib_genl_put_header(buf, x->family, dev ? NLM_F_ACK : NLM_F_DUMP,
				  XIB_CMD_STAT_GET, XIB_GENL_VERSION, ++x->seq);
	if (dev)
		mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, dev);
	if (x->json)
		putchar('[');
	ret = talk(x, nlh, stat_cb);
	if (x->json)
		printf("]\n");
	if (ret < 0) {
		report(x, "statistic show", dev ? dev : "devices");
		return 1;
	}
	return 0;

bad_value:
	fprintf(stderr, "xibctl: statistic: invalid %s '%s'\n", argv[i],
		argv[i + 1]);
	return XIBCTL_EXIT_USAGE;
}

/* --- trace ------------------------------------------------------------------ */

#define PCAP_MAGIC_NSEC		0xa1b23c4du	/* timestamps in nanoseconds */
#define PCAP_LINKTYPE_RAW	101		/* packets start at the IP header */
#define PCAP_SNAPLEN		262144

struct trace {
	FILE *out;
	uint32_t dev_index;
	long qpn[2];		/* destination QPs kept; -1: any, or unused */
	unsigned long packets, max;
	unsigned long lost;	/* socket overruns: packets lost */
};

static volatile sig_atomic_t trace_stop;

static void trace_signal(int sig)
{
	(void)sig;
	trace_stop = 1;
}

static int trace_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type want;

	switch (type) {
	case XIB_ATTR_DEV_INDEX:
	case XIB_ATTR_RES_QPN:
	case XIB_ATTR_RES_DEST_QPN:
		want = MNL_TYPE_U32;
		break;
	case XIB_ATTR_TRACE_DIR:
		want = MNL_TYPE_U8;
		break;
	case XIB_ATTR_TRACE_TIME:
		want = MNL_TYPE_U64;
		break;
	case XIB_ATTR_TRACE_PKT:
		want = MNL_TYPE_BINARY;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(attr, want) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

/* The destination QP of the RoCEv2 packet @p (IP header first), or -1. */
static long trace_dest_qp(const uint8_t *p, size_t len)
{
	size_t off;

	if (len < 1)
		return -1;
	if (p[0] >> 4 == 4)
		off = (size_t)(p[0] & 0xf) * 4;
	else if (p[0] >> 4 == 6)
		off = 40;
	else
		return -1;
	off += 8;			/* UDP */
	if (len < off + 12)		/* BTH */
		return -1;
	return (long)((uint32_t)p[off + 5] << 16 | (uint32_t)p[off + 6] << 8 |
		      p[off + 7]);
}

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static int trace_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;
	struct trace *t = x->trace;
	const uint8_t *pkt;
	uint64_t ns;
	uint32_t len;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), trace_attr_cb, tb) < 0 ||
	    !tb[XIB_ATTR_DEV_INDEX] || !tb[XIB_ATTR_TRACE_PKT] ||
	    !tb[XIB_ATTR_TRACE_TIME])
		return MNL_CB_OK;	/* not a packet: nothing to write */
	if (mnl_attr_get_u32(tb[XIB_ATTR_DEV_INDEX]) != t->dev_index)
		return MNL_CB_OK;
	pkt = mnl_attr_get_payload(tb[XIB_ATTR_TRACE_PKT]);
	len = mnl_attr_get_payload_len(tb[XIB_ATTR_TRACE_PKT]);
	if (t->qpn[0] >= 0) {
		long dqp = trace_dest_qp(pkt, len);

		if (dqp != t->qpn[0] && dqp != t->qpn[1])
			return MNL_CB_OK;
	}
	ns = mnl_attr_get_u64(tb[XIB_ATTR_TRACE_TIME]);
	put32(t->out, (uint32_t)(ns / 1000000000u));
	put32(t->out, (uint32_t)(ns % 1000000000u));
	put32(t->out, len);
	put32(t->out, len);
	fwrite(pkt, 1, len, t->out);
	fflush(t->out);
	if (++t->packets == t->max)
		trace_stop = 1;
	return MNL_CB_OK;
}

/* Device @name's index, and the remote QP of its QP @qpn (or -1). */
static int trace_lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[XIB_ATTR_MAX + 1] = { 0 };
	struct xibctl *x = data;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), trace_attr_cb, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[XIB_ATTR_DEV_INDEX])
		x->trace->dev_index = mnl_attr_get_u32(tb[XIB_ATTR_DEV_INDEX]);
	if (tb[XIB_ATTR_RES_DEST_QPN])
		x->trace->qpn[1] = mnl_attr_get_u32(tb[XIB_ATTR_RES_DEST_QPN]);
	x->shown++;
	return MNL_CB_OK;
}

static int trace_usage(const char *what, const char *arg)
{
	fprintf(stderr, "xibctl: trace: %s%s%s%s\n", what, arg ? " '" : "",
		arg ? arg : "", arg ? "'" : "");
	return XIBCTL_EXIT_USAGE;
}

static int cmd_trace(struct xibctl *x, int argc, char **argv)
{
	/* one trace per run; static, as x->trace points to it */
	static struct trace t = { .qpn = { -1, -1 } };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const char *name, *file = NULL;
	struct sigaction sa = { 0 };
	int i, rcvbuf = 8 << 20;
	struct nlmsghdr *nlh;
	long long v;
	char *rx;

	if (argc < 1 || argv[0][0] == '-')
		return trace_usage("a device NAME is required", NULL);
	name = argv[0];
	if (strlen(name) >= XIB_DEVICE_NAME_MAX)
		return trace_usage("invalid device name", name);
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return trace_usage("needs a value:", argv[i]);
		if (!strcmp(argv[i], "-w")) {
			file = argv[i + 1];
		} else if (!strcmp(argv[i], "-c")) {
			v = parse_num(argv[i + 1], LONG_MAX);
			if (v <= 0)
				return trace_usage("invalid count", argv[i + 1]);
			t.max = (unsigned long)v;
		} else if (!strcmp(argv[i], "qpn")) {
			v = parse_num(argv[i + 1], 0xffffff);
			if (v < 0)
				return trace_usage("invalid qpn", argv[i + 1]);
			t.qpn[0] = (long)v;
		} else {
			return trace_usage("unknown argument", argv[i]);
		}
	}
	if (!file)
		return trace_usage("'-w FILE' is required", NULL);
	if (xibctl_open(x) < 0)
		return 1;
	if (!x->trace_group) {
		fprintf(stderr, "xibctl: trace: the kernel's xib family has no "
			"packet capture (xib_core too old?)\n");
		return 1;
	}
	x->trace = &t;

	/* the device's index, and the QP's peer if it has one */
	nlh = xib_genl_put_header(buf, x->family, NLM_F_ACK, XIB_CMD_DEV_GET,
				  XIB_GENL_VERSION, ++x->seq);
	mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, name);
	if (talk(x, nlh, trace_lookup_cb) < 0) {
		report(x, "trace", name);
		return 1;
	}
	if (t.qpn[0] >= 0) {
		x->shown = 0;
		nlh = xib_genl_put_header(buf, x->family, NLM_F_DUMP,
					  XIB_CMD_RES_QP_GET, XIB_GENL_VERSION,
					  ++x->seq);
		mnl_attr_put_strz(nlh, XIB_ATTR_DEV_NAME, name);
		mnl_attr_put_u32(nlh, XIB_ATTR_RES_QPN, (uint32_t)t.qpn[0]);
		if (talk(x, nlh, trace_lookup_cb) < 0) {
			report(x, "trace", name);
			return 1;
		}
		if (!x->shown) {
			fprintf(stderr, "xibctl: trace %s: no QP %ld\n", name,
				t.qpn[0]);
			return 1;
		}
	}

	if (mnl_socket_setsockopt(x->nl, NETLINK_ADD_MEMBERSHIP,
				  &x->trace_group, sizeof(x->trace_group)) < 0) {
		fprintf(stderr, "xibctl: trace %s: %s%s\n", name, strerror(errno),
			errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
		return 1;
	}
	/* a burst must not overrun the socket; root may go past rmem_max */
	if (setsockopt(mnl_socket_get_fd(x->nl), SOL_SOCKET, SO_RCVBUFFORCE,
		       &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(mnl_socket_get_fd(x->nl), SOL_SOCKET, SO_RCVBUF,
			   &rcvbuf, sizeof(rcvbuf));

	if (!strcmp(file, "-")) {
		t.out = stdout;
	} else {
		t.out = fopen(file, "wb");
		if (!t.out) {
			fprintf(stderr, "xibctl: trace: %s: %s\n", file, strerror(errno));
			return 1;
		}
	}
	put32(t.out, PCAP_MAGIC_NSEC);
	put32(t.out, 2 | 4u << 16);	/* version 2.4, as two u16 */
	put32(t.out, 0);		/* GMT offset */
	put32(t.out, 0);		/* accuracy */
	put32(t.out, PCAP_SNAPLEN);
	put32(t.out, PCAP_LINKTYPE_RAW);
	fflush(t.out);

	sa.sa_handler = trace_signal;	/* no SA_RESTART: recv returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "xibctl: trace %s: capturing\n", name);

	rx = malloc(PCAP_SNAPLEN);
	if (!rx) {
		perror("xibctl: trace");
		return 1;
	}
	while (!trace_stop) {
		ssize_t len = recv(mnl_socket_get_fd(x->nl), rx, PCAP_SNAPLEN, 0);

		if (len < 0) {
			if (errno == ENOBUFS)
				t.lost++;
			else if (errno != EINTR)
				break;
			continue;
		}
		if (mnl_cb_run(rx, len, 0, 0, trace_cb, x) < 0)
			break;
	}
	free(rx);
	if (t.out != stdout && fclose(t.out)) {
		fprintf(stderr, "xibctl: trace: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (x->json && t.out != stdout) {
		printf("{\"dev\":");
		json_string(name);
		printf(",\"packets\":%lu,\"overruns\":%lu}\n", t.packets, t.lost);
	} else {
		fprintf(stderr, "xibctl: trace %s: %lu packets%s\n", name, t.packets,
			t.lost ? " (and some lost: the reader was too slow)" : "");
	}
	return 0;
}

/* "res show [NAME]" or "res show OBJECT [FILTER...]". */
static int cmd_res(struct xibctl *x, int argc, char **argv)
{
	if (argc)
		for (size_t i = 0; i < sizeof(res_objects) / sizeof(res_objects[0]); i++)
			if (!strcmp(argv[0], res_objects[i].name))
				return cmd_res_object(x, &res_objects[i],
						      argc - 1, argv + 1);
	return cmd_show(x, argc, argv);
}

static bool is(const char *arg, const char *word)
{
	return !strcmp(arg, word);
}

int main(int argc, char **argv)
{
	struct xibctl x = { 0 };
	int ret;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (is(argv[0], "-j") || is(argv[0], "--json")) {
			x.json = true;
		} else if (is(argv[0], "-d") || is(argv[0], "--details")) {
			x.details = true;
		} else if (is(argv[0], "-h") || is(argv[0], "--help")) {
			usage(stdout);
			return 0;
		} else {
			return usage_error("unknown option '%s'", argv[0]);
		}
		argc--;
		argv++;
	}
	if (!argc) {
		usage(stderr);
		return XIBCTL_EXIT_USAGE;
	}

	if (is(argv[0], "dev")) {
		if (argc == 1 || is(argv[1], "show"))
			ret = cmd_show(&x, argc > 2 ? argc - 2 : 0, argv + 2);
		else
			ret = usage_error("unknown dev command '%s'", argv[1]);
	} else if (is(argv[0], "port")) {
		if (argc == 1 || is(argv[1], "show"))
			ret = cmd_port_show(&x, argc > 2 ? argc - 2 : 0, argv + 2);
		else
			ret = usage_error("unknown port command '%s'", argv[1]);
	} else if (is(argv[0], "res") || is(argv[0], "resource")) {
		x.res = true;
		if (argc == 1 || is(argv[1], "show"))
			ret = cmd_res(&x, argc > 2 ? argc - 2 : 0, argv + 2);
		else
			ret = usage_error("unknown res command '%s'", argv[1]);
	} else if (is(argv[0], "statistic") || is(argv[0], "stat") ||
		   is(argv[0], "statistics")) {
		ret = cmd_stat(&x, argc - 1, argv + 1);
	} else if (is(argv[0], "trace")) {
		ret = cmd_trace(&x, argc - 1, argv + 1);
	} else if (is(argv[0], "system") || is(argv[0], "sys")) {
		ret = cmd_system(&x, argc - 1, argv + 1);
	} else if (is(argv[0], "link")) {
		x.links_only = true;
		if (argc == 1 || is(argv[1], "show"))
			ret = cmd_show(&x, argc > 2 ? argc - 2 : 0, argv + 2);
		else if (is(argv[1], "add"))
			ret = cmd_link_add(&x, argc - 2, argv + 2);
		else if (is(argv[1], "del") || is(argv[1], "delete"))
			ret = cmd_link_del(&x, argc - 2, argv + 2);
		else
			ret = usage_error("unknown link command '%s'", argv[1]);
	} else {
		ret = usage_error("unknown object '%s'", argv[0]);
	}
	if (x.nl)
		mnl_socket_close(x.nl);
	free(x.names);
	return ret;
}
