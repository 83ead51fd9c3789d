/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca network side: RoCEv2 encapsulation (UDP port 4791 over IPv4 or
 * IPv6), one UDP socket per network namespace, ICRC, transmit and
 * receive.  The transport engine (hca_*.c) hands it packets that start at
 * the BTH and gets back received packets that start at the BTH.
 */
#ifndef _XIB_HCA_NET_H
#define _XIB_HCA_NET_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/netlink.h>

struct xib_hca_dev;

/**
 * struct xib_hca_path - where a packet goes, from a QP's or AH's address
 * @sgid: source GID (an entry of the port's GID table), network order
 * @dgid: destination GID, network order; IPv4-mapped for RoCEv2 over IPv4
 * @flow_label: IPv6 flow label (20 bits)
 * @hop_limit: IPv4 TTL / IPv6 hop limit
 * @traffic_class: IPv4 TOS / IPv6 traffic class
 * @src_port: UDP source port (flow entropy, 0xc000 to 0xffff)
 */
struct xib_hca_path {
	u8 sgid[16];
	u8 dgid[16];
	u32 flow_label;
	u8 hop_limit;
	u8 traffic_class;
	u16 src_port;
};

/**
 * struct xib_hca_rx_cb - what the network side tells the engine about a
 * received packet, in skb->cb
 * @sgid: the sender's GID (IPv4-mapped for IPv4), network order
 * @dgid: the destination GID, network order
 * @ipv6: received over IPv6 (else IPv4)
 * @hop_limit: TTL / hop limit of the packet
 * @traffic_class: TOS / traffic class
 * @flow_label: IPv6 flow label (0 for IPv4)
 * @src_port: the UDP source port
 *
 * skb_network_header() still points at the IP header (for the GRH area of
 * UD receives).
 */
struct xib_hca_rx_cb {
	u8 sgid[16];
	u8 dgid[16];
	bool ipv6;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u16 src_port;
};

static inline struct xib_hca_rx_cb *xib_hca_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct xib_hca_rx_cb) > sizeof(skb->cb));
	return (struct xib_hca_rx_cb *)skb->cb;
}

int xib_hca_net_init(void);
void xib_hca_net_exit(void);
extern struct dentry *xib_hca_debugfs;

/*
 * Start and stop sending and receiving for @hca.  Attach takes a reference
 * on the namespace's socket (creating it on first use); it fails with
 * -EADDRINUSE and a message in @extack when another stack (rdma_rxe, for
 * one) owns UDP port 4791 in the HCA's namespace.  After detach returns,
 * xib_hca_recv() is no longer called for @hca.
 */
int xib_hca_net_attach(struct xib_hca_dev *hca, struct netlink_ext_ack *extack);
void xib_hca_net_detach(struct xib_hca_dev *hca);

/*
 * A packet of @len bytes (BTH to the end of the payload, pad included)
 * for @hca: skb->data is at the BTH with @len bytes put; headroom for the
 * Ethernet, IP and UDP headers and tailroom for the ICRC are reserved.
 * GFP_ATOMIC; NULL on failure.
 */
struct sk_buff *xib_hca_alloc_skb(struct xib_hca_dev *hca, unsigned int len);

/*
 * Send @skb (from xib_hca_alloc_skb()) along @path: adds UDP, IP and the
 * ICRC, routes in the HCA's namespace, resolves the neighbour.  A packet
 * for one of this host's own addresses in the namespace is delivered to
 * the receive side directly.  Always consumes @skb.  Returns 0 or a
 * negative errno (no route: -EHOSTUNREACH); callers treat a failed send
 * like a lost packet.  May be called in any context.
 */
int xib_hca_xmit(struct xib_hca_dev *hca, struct sk_buff *skb,
		 const struct xib_hca_path *path);

/*
 * Implemented by the engine: a received packet for @hca, with skb->data
 * at the BTH, the ICRC checked and trimmed, and xib_hca_rx_cb(skb)
 * filled.  Called in softirq context; consumes @skb.
 */
void xib_hca_recv(struct xib_hca_dev *hca, struct sk_buff *skb);

#endif /* _XIB_HCA_NET_H */
