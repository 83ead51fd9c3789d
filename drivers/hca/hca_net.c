// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca network side: RoCEv2, the InfiniBand transport over UDP port
 * 4791 and IPv4 or IPv6 (IBTA vol. 1 Annex A17), as rdma_rxe puts it on
 * the wire.
 *
 * Each network namespace with at least one attached HCA has two kernel
 * UDP sockets bound to port 4791, one IPv4 and one IPv6-only (none for
 * IPv6 when the kernel has it disabled).  They are UDP tunnel sockets:
 * the UDP layer hands every datagram for the port to xib_hca_encap_rcv()
 * in softirq context, which finds the HCA by the receiving interface,
 * checks the lengths and the ICRC and passes the packet to the engine.
 *
 * Transmit routes in the HCA's namespace, builds UDP and IP headers and
 * the ICRC and hands the packet to the IP output path, which resolves
 * the neighbour.  A packet for one of the namespace's own addresses never
 * touches a device: it goes straight to the receive side of the HCA on
 * the interface that owns the address (the loopback short path).
 *
 * Compatibility with rdma_rxe: IPv4 packets have DF set, an IP ID from
 * __ip_select_ident() and UDP checksum 0; the ICRC follows the payload,
 * least significant byte first.  Over IPv6 rdma_rxe sends UDP checksum
 * 0, which its socket accepts: our IPv6 socket accepts it too, but we
 * send a real checksum (RFC 8200), which rdma_rxe verifies and accepts.
 */

#include <linux/debugfs.h>
#include <linux/if_ether.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "hca.h"
#include "hca_net.h"
#include "hca_wire.h"

/*
 * Attach, detach and namespace exit are serialised by xib_hca_net_lock.
 * It protects every struct xib_hca_net's users, sock4, sock6 and the
 * writers of its ports, and the list of attached HCAs (xib_hca_ports).
 * Lock order: RTNL (if the caller holds it), then xib_hca_net_lock.
 */
static DEFINE_MUTEX(xib_hca_net_lock);
static LIST_HEAD(xib_hca_ports);

/**
 * struct xib_hca_net - the RoCEv2 state of one network namespace
 * @users: attached HCAs; the sockets are open iff it is not 0
 * @sock4: the IPv4 socket on port 4791
 * @sock6: the IPv6-only socket on port 4791; NULL without IPv6
 * @ports: attached HCAs by interface index (struct xib_hca_port).
 *	Written under xib_hca_net_lock, read under RCU (softirq); an entry
 *	is freed only after a grace period.
 *
 * @sock4 and @sock6 are read without the lock by transmit while a port
 * of the namespace is in @ports: they are released only after the last
 * port has left and a grace period has passed.
 */
struct xib_hca_net {
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
	struct xarray ports;
};

/**
 * struct xib_hca_port - one attached HCA
 * @hca: the HCA
 * @xn: its namespace's state; NULL once the namespace is gone
 * @ifindex: its interface's index in @xn at attach time, the key in
 *	@xn->ports
 * @list: on xib_hca_ports (xib_hca_net_lock)
 *
 * What the network side drops is counted in @hca's counters (hca_stats.h).
 */
struct xib_hca_port {
	struct xib_hca_dev *hca;
	struct xib_hca_net *xn;
	int ifindex;
	struct list_head list;
};

static unsigned int xib_hca_net_id __read_mostly;

/*
 * Fault injection for the tests of RC retransmission (tests/bats/verbs.bats):
 * the debug kernel has neither netem nor netfilter to lose packets with.
 * One sent packet in N is dropped at random (0: none).  A test knob, not
 * a setting: it lives in debugfs (xib_hca/tx_loss, root only), not among
 * the module's parameters.
 */
static u32 xib_hca_tx_loss __read_mostly;
/* xib_hca/ in debugfs: tx_loss here, a directory per PCI function (pci.c) */
struct dentry *xib_hca_debugfs;

static struct xib_hca_net *xib_hca_net(const struct net *net)
{
	return net_generic(net, xib_hca_net_id);
}

/* The port of the HCA on @ndev, under RCU (or bottom halves disabled). */
static struct xib_hca_port *xib_hca_port_rcu(const struct net_device *ndev)
{
	return xa_load(&xib_hca_net(dev_net(ndev))->ports, ndev->ifindex);
}

/* --- receive --------------------------------------------------------------- */

static void xib_hca_gid_v4(u8 *gid, __be32 addr)
{
	struct in6_addr a;

	ipv6_addr_set_v4mapped(addr, &a);
	memcpy(gid, &a, sizeof(a));
}

/*
 * Packet capture (XIB_CMD_TRACE_PKT, xib_trace_wanted()): a copy of the
 * packet in @skb, a linear one whose network header is set, from the IP
 * header to the end; @icrc: the packet ends with its ICRC, else (looped
 * back: never computed, or already trimmed) the copy gets the ICRC it
 * would carry.  Nothing happens unless someone listens.
 */
static void xib_hca_tap(struct xib_hca_dev *hca, const struct sk_buff *skb,
			u8 dir, bool icrc)
{
	unsigned int len;
	struct sk_buff *msg;
	void *data;

	if (likely(!xib_trace_wanted(&hca->xdev)) || skb_is_nonlinear(skb))
		return;
	len = skb_tail_pointer(skb) - skb_network_header(skb);
	msg = xib_trace_start(&hca->xdev, dir, icrc ? len : len + XIB_ICRC_LEN,
			      &data);
	if (!msg)
		return;
	memcpy(data, skb_network_header(skb), len);
	if (!icrc)
		xib_icrc_fill(data, len + XIB_ICRC_LEN);
	xib_trace_send(&hca->xdev, msg);
}

/*
 * Hand a packet to the engine: skb->data at the UDP header, the network
 * header set, lengths checked, the ICRC checked (or never computed: the
 * loopback path) and trimmed.
 */
static void xib_hca_deliver(struct xib_hca_port *port, struct sk_buff *skb)
{
	const struct udphdr *uh = (const struct udphdr *)skb->data;
	struct xib_hca_rx_cb *cb = xib_hca_rx_cb(skb);
	const u8 *nh = skb_network_header(skb);
	u16 sport = ntohs(uh->source);
	u64 t0;

	memset(cb, 0, sizeof(*cb));
	if ((nh[0] >> 4) == 6) {
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)nh;

		memcpy(cb->sgid, &ip6h->saddr, sizeof(cb->sgid));
		memcpy(cb->dgid, &ip6h->daddr, sizeof(cb->dgid));
		cb->ipv6 = true;
		cb->hop_limit = ip6h->hop_limit;
		cb->traffic_class = ipv6_get_dsfield(ip6h);
		cb->flow_label = be32_to_cpu(ip6_flowlabel(ip6h));
	} else {
		const struct iphdr *iph = (const struct iphdr *)nh;

		xib_hca_gid_v4(cb->sgid, iph->saddr);
		xib_hca_gid_v4(cb->dgid, iph->daddr);
		cb->hop_limit = iph->ttl;
		cb->traffic_class = iph->tos;
	}
	cb->src_port = sport;
	__skb_pull(skb, sizeof(struct udphdr));
	t0 = xib_hca_prof_begin();
	xib_hca_recv(port->hca, skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_RX_PKT, t0);
}

/*
 * A packet from the wire for @port: linear, skb->data at the UDP header
 * (which the UDP layer has checked against the IP length and, when not
 * zero, its checksum).  Consumes @skb.
 */
static void xib_hca_rx(struct xib_hca_port *port, struct sk_buff *skb)
{
	const u8 *nh = skb_network_header(skb);
	const struct udphdr *uh;
	unsigned int nhlen, len;
	u64 t0;
	int ret;

	if (skb->data < nh)
		goto malformed;
	nhlen = skb->data - nh;
	switch (nhlen ? nh[0] >> 4 : 0) {
	case 4: {
		const struct iphdr *iph = (const struct iphdr *)nh;

		if (nhlen < sizeof(*iph) || nhlen != iph->ihl * 4 ||
		    iph->protocol != IPPROTO_UDP)
			goto malformed;
		break;
	}
	case 6: {
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)nh;

		/* The ICRC knows no IPv6 extension headers. */
		if (nhlen != sizeof(*ip6h) || ip6h->nexthdr != IPPROTO_UDP)
			goto malformed;
		break;
	}
	default:
		goto malformed;
	}

	if (skb->len < sizeof(*uh) + XIB_BTH_LEN + XIB_ICRC_LEN)
		goto malformed;
	uh = (const struct udphdr *)skb->data;
	if (ntohs(uh->len) != skb->len)
		goto malformed;

	len = nhlen + skb->len;
	t0 = xib_hca_prof_begin();
	ret = xib_icrc_check(nh, len);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_RX_ICRC, t0);
	if (ret == -EBADMSG) {
		xib_hca_stat_inc(port->hca, XIB_HCA_STAT_RX_ICRC_ERRORS);
		goto drop;
	}
	if (ret)
		goto malformed;
	if (pskb_trim_rcsum(skb, skb->len - XIB_ICRC_LEN))
		goto malformed;

	xib_hca_deliver(port, skb);
	return;

malformed:
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_RX_MALFORMED);
drop:
	kfree_skb(skb);
}

/* UDP tunnel receive, softirq, under RCU.  Always consumes @skb. */
static int xib_hca_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct xib_hca_net *xn = rcu_dereference_sk_user_data(sk);
	u64 t0 = xib_hca_prof_begin();
	struct xib_hca_port *port;

	if (!xn || !skb->dev)
		goto drop;
	port = xa_load(&xn->ports, skb->dev->ifindex);
	if (!port)
		goto drop;
	if (skb_linearize(skb)) {
		xib_hca_stat_inc(port->hca, XIB_HCA_STAT_RX_MALFORMED);
		goto drop;
	}
	xib_hca_tap(port->hca, skb, XIB_TRACE_RX, true);
	xib_hca_rx(port, skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_RX_WIRE, t0);
	return 0;

drop:
	kfree_skb(skb);
	return 0;
}

/* --- loopback short path ---------------------------------------------------- */

/*
 * Packets for this host's own addresses are received without a device.
 * The engine may send from its receive handler, and that send may loop
 * back too: instead of recursing, a nested loopback packet waits on this
 * CPU's queue, which the outermost caller drains.  Bottom halves are off
 * while the queue is used, so only this CPU touches it, and the drain is
 * one RCU read-side section in which every queued skb->dev was looked up.
 */
struct xib_hca_loop {
	struct sk_buff_head queue;
	bool busy;
};

static DEFINE_PER_CPU(struct xib_hca_loop, xib_hca_loops);

static void xib_hca_loop_rx(struct sk_buff *skb)
{
	struct xib_hca_port *port = xib_hca_port_rcu(skb->dev);

	if (!port) {
		kfree_skb(skb);
		return;
	}
	xib_hca_tap(port->hca, skb, XIB_TRACE_RX, false);
	xib_hca_deliver(port, skb);
}

/* @skb: headers built, ICRC slot trimmed, skb->data at the UDP header. */
static void xib_hca_loop(struct sk_buff *skb)
{
	struct xib_hca_loop *loop;

	rcu_read_lock();
	local_bh_disable();
	loop = this_cpu_ptr(&xib_hca_loops);
	__skb_queue_tail(&loop->queue, skb);
	if (!loop->busy) {
		loop->busy = true;
		while ((skb = __skb_dequeue(&loop->queue)))
			xib_hca_loop_rx(skb);
		loop->busy = false;
	}
	local_bh_enable();
	rcu_read_unlock();
}

/*
 * Deliver a built packet of @hca (skb->data at the IP header, ICRC slot
 * at the end, not computed) to the HCA on @ldev, which owns the
 * destination.
 */
static void xib_hca_loop_send(struct xib_hca_dev *hca, struct sk_buff *skb,
			      struct net_device *ldev)
{
	u64 t0 = xib_hca_prof_begin();

	__skb_trim(skb, skb->len - XIB_ICRC_LEN);
	xib_hca_tap(hca, skb, XIB_TRACE_TX, false);
	__skb_pull(skb, skb_transport_offset(skb));
	skb->dev = ldev;
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	xib_hca_loop(skb);
	xib_hca_prof_end(hca, XIB_HCA_PROF_XMIT_LOOP, t0);
}

/* --- transmit ------------------------------------------------------------------ */

#define XIB_HCA_NET_HLEN	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/*
 * Packet buffers.  A packet's bytes (head and skb_shared_info) are cut
 * from a per-CPU page fragment cache, not taken from kmalloc(): a
 * 1 KiB-MTU packet's head is a kmalloc-2048 object, and with
 * init_on_alloc (the default of distribution kernels) the slab zeroes
 * all of it on every allocation, a third of the cost of building a
 * packet.  The fragment cache reuses its page (PAGE_FRAG_CACHE_MAX_SIZE)
 * once every packet cut from it has been freed, so a steady flow
 * allocates and zeroes no memory; a packet is freed through its page
 * reference (skb->head_frag), which needs nothing of this module.  The
 * skb is linear as before, so the wire bytes and every consumer are
 * unchanged.  Each CPU's cache is used with bottom halves off; hard
 * interrupt context and heads bigger than a page (a 4096 MTU) take
 * alloc_skb().
 */
static DEFINE_PER_CPU(struct page_frag_cache, xib_hca_frags);

static struct sk_buff *xib_hca_frag_skb(unsigned int size)
{
	struct sk_buff *skb;
	void *data;

	size = SKB_DATA_ALIGN(size) +
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	if (size > PAGE_SIZE || in_hardirq() || irqs_disabled())
		return NULL;
	local_bh_disable();
	data = page_frag_alloc(this_cpu_ptr(&xib_hca_frags), size, GFP_ATOMIC);
	local_bh_enable();
	if (!data)
		return NULL;
	skb = build_skb(data, size);
	if (!skb)
		skb_free_frag(data);
	return skb;
}

/* Return every CPU's cached page (packets in flight hold their own). */
static void xib_hca_frags_drain(void)
{
	struct page_frag_cache *nc;
	int cpu;

	for_each_possible_cpu(cpu) {
		nc = per_cpu_ptr(&xib_hca_frags, cpu);
		if (!nc->va)
			continue;
		__page_frag_cache_drain(virt_to_head_page(nc->va),
					nc->pagecnt_bias);
		nc->va = NULL;
	}
}

static struct sk_buff *__xib_hca_alloc_skb(unsigned int headroom,
					   unsigned int len)
{
	unsigned int size = headroom + len + XIB_ICRC_LEN;
	struct sk_buff *skb;

	if (len > U16_MAX)
		return NULL;
	skb = xib_hca_frag_skb(size);
	if (!skb)
		skb = alloc_skb(size, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	skb_put(skb, len);
	return skb;
}

/**
 * xib_hca_alloc_skb() - a packet buffer for the engine to fill
 * @hca: the HCA that will send it
 * @len: bytes from the BTH to the end of the pad
 *
 * Context: any; allocates with GFP_ATOMIC.
 * Return: an skb with @len bytes put at skb->data, room for every header
 * before and for the ICRC after; NULL on failure.
 */
struct sk_buff *xib_hca_alloc_skb(struct xib_hca_dev *hca, unsigned int len)
{
	struct net_device *ndev;
	unsigned int headroom = LL_MAX_HEADER;

	/*
	 * The interface may go at any time (NETDEV_UNREGISTER clears
	 * hca->ndev before the device is torn down): the packet keeps no
	 * pointer to it, and one built without it is dropped by
	 * xib_hca_xmit() with -ENETDOWN, like any packet of a port that
	 * has gone.
	 */
	rcu_read_lock();
	ndev = READ_ONCE(hca->ndev);
	if (ndev)
		headroom = LL_RESERVED_SPACE(ndev);
	rcu_read_unlock();
	return __xib_hca_alloc_skb(headroom + XIB_HCA_NET_HLEN, len);
}

/*
 * Whether @sgid is still an address of @ndev (or its default GID, the
 * link-local address of its MAC, which the GID table always has).  A
 * QP's path keeps the source GID it was given; once the address is
 * removed from the interface (or moved to another) the QP must not send
 * as it: the address may be someone else's by now.  The GID table's own
 * rule (core/port.c) decides: every address of the interface, tentative
 * ones included.  Under RCU.
 */
static bool xib_hca_sgid_ours(struct net_device *ndev,
			      const struct in6_addr *sgid)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	u8 dflt[16] = { 0xfe, 0x80 };

	if (ipv6_addr_v4mapped(sgid)) {
		in_dev = __in_dev_get_rcu(ndev);
		if (!in_dev)
			return false;
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (ifa->ifa_local == sgid->s6_addr32[3])
				return true;
		return false;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (ipv6_chk_addr_and_flags(dev_net(ndev), sgid, ndev, false, 1, 0))
		return true;
#endif
	if (ndev->addr_len != ETH_ALEN)
		return false;
	addrconf_addr_eui48(&dflt[8], ndev->dev_addr);
	return !memcmp(dflt, sgid, sizeof(dflt));
}

/* Make @skb private, linear, with room for the headers and the ICRC. */
static int xib_hca_tx_prepare(struct sk_buff *skb, unsigned int headroom)
{
	unsigned int have = skb_headroom(skb);
	int nhead = headroom > have ? headroom - have : 0;
	int ntail = max_t(int, XIB_ICRC_LEN - skb_tailroom(skb), 0);

	if (skb_is_nonlinear(skb) && skb_linearize(skb))
		return -ENOMEM;
	if ((nhead || ntail || skb_cloned(skb)) &&
	    pskb_expand_head(skb, nhead, ntail, GFP_ATOMIC))
		return -ENOMEM;
	if (skb->len + XIB_ICRC_LEN + sizeof(struct udphdr) > U16_MAX)
		return -EMSGSIZE;
	skb_put(skb, XIB_ICRC_LEN);
	return 0;
}

static void xib_hca_push_udp(struct sk_buff *skb, u16 src_port)
{
	struct udphdr *uh = skb_push(skb, sizeof(*uh));

	skb_reset_transport_header(skb);
	uh->source = htons(src_port);
	uh->dest = htons(XIB_ROCEV2_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
}

/* UDP and IPv4 headers in front of skb->data; IP ID and checksum 0. */
static void xib_hca_build4(struct sk_buff *skb, const struct xib_hca_path *path,
			   __be32 saddr, __be32 daddr)
{
	struct iphdr *iph;

	xib_hca_push_udp(skb, path->src_port);
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = path->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = path->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;
	iph->saddr = saddr;
	iph->daddr = daddr;
	skb->protocol = htons(ETH_P_IP);
}

/* UDP and IPv6 headers in front of skb->data; UDP checksum 0. */
static void xib_hca_build6(struct sk_buff *skb, const struct xib_hca_path *path,
			   const struct in6_addr *saddr,
			   const struct in6_addr *daddr)
{
	struct ipv6hdr *ip6h;

	xib_hca_push_udp(skb, path->src_port);
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, path->traffic_class,
		     cpu_to_be32(path->flow_label) & IPV6_FLOWLABEL_MASK);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = path->hop_limit;
	ip6h->saddr = *saddr;
	ip6h->daddr = *daddr;
	skb->protocol = htons(ETH_P_IPV6);
}

/* The ICRC of a built packet; every other header field must be final. */
static void xib_hca_seal(struct sk_buff *skb)
{
	/* Cannot fail: the build functions made every length it checks. */
	WARN_ON_ONCE(xib_icrc_fill(skb_network_header(skb),
				   skb_tail_pointer(skb) -
				   skb_network_header(skb)));
}

static void xib_hca_stat_sent(struct xib_hca_dev *hca, u32 len)
{
	xib_hca_stat_inc(hca, XIB_HCA_STAT_TX_PACKETS);
	xib_hca_stat_add(hca, XIB_HCA_STAT_TX_BYTES, len);
}

static int xib_hca_tx_result(struct xib_hca_port *port, int ret)
{
	ret = net_xmit_eval(ret);
	if (!ret)
		return 0;
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_TX_DROPPED);
	return ret < 0 ? ret : -ENOBUFS;
}

static int xib_hca_xmit4(struct xib_hca_port *port, struct xib_hca_net *xn,
			 struct net_device *ndev, struct sk_buff *skb,
			 const struct xib_hca_path *path,
			 __be32 saddr, __be32 daddr)
{
	struct net *net = dev_net(ndev);
	u64 t0 = xib_hca_prof_begin();
	struct net_device *ldev;
	struct flowi4 fl4;
	struct rtable *rt;
	int ret;

	ldev = __ip_dev_find(net, daddr, false);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ROUTE, t0);
	if (ldev) {
		xib_hca_build4(skb, path, saddr, daddr);
		ip_send_check(ip_hdr(skb));
		xib_hca_loop_send(port->hca, skb, ldev);
		return 0;
	}

	memset(&fl4, 0, sizeof(fl4));
	fl4.flowi4_oif = ndev->ifindex;
	fl4.flowi4_proto = IPPROTO_UDP;
	fl4.flowi4_tos = RT_TOS(path->traffic_class);
	fl4.saddr = saddr;
	fl4.daddr = daddr;
	fl4.fl4_sport = htons(path->src_port);
	fl4.fl4_dport = htons(XIB_ROCEV2_UDP_PORT);
	t0 = xib_hca_prof_begin();
	rt = ip_route_output_key(net, &fl4);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ROUTE, t0);
	if (IS_ERR(rt))
		goto no_route;
	if (rt->rt_type == RTN_LOCAL) {
		/* local, but no interface has the address: nobody to get it */
		ip_rt_put(rt);
		goto no_route;
	}

	xib_hca_build4(skb, path, saddr, daddr);
	__ip_select_ident(net, ip_hdr(skb), 1);
	t0 = xib_hca_prof_begin();
	xib_hca_seal(skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ICRC, t0);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->ip_summed = CHECKSUM_NONE;
	skb_dst_set(skb, &rt->dst);
	xib_hca_tap(port->hca, skb, XIB_TRACE_TX, true);
	t0 = xib_hca_prof_begin();
	ret = ip_local_out(net, READ_ONCE(xn->sock4)->sk, skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_OUT, t0);
	return xib_hca_tx_result(port, ret);

no_route:
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_TX_NO_ROUTE);
	kfree_skb(skb);
	return -EHOSTUNREACH;
}

#if IS_ENABLED(CONFIG_IPV6)
static int xib_hca_xmit6(struct xib_hca_port *port, struct xib_hca_net *xn,
			 struct net_device *ndev, struct sk_buff *skb,
			 const struct xib_hca_path *path,
			 const struct in6_addr *saddr,
			 const struct in6_addr *daddr)
{
	struct socket *sock = READ_ONCE(xn->sock6);
	struct net *net = dev_net(ndev);
	struct net_device *ldev;
	struct dst_entry *dst;
	struct flowi6 fl6;
	u64 t0;
	int ret;

	if (!sock)
		goto no_route;		/* IPv6 is disabled */

	t0 = xib_hca_prof_begin();
	ldev = ipv6_dev_find(net, daddr, NULL);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ROUTE, t0);
	if (ldev) {
		xib_hca_build6(skb, path, saddr, daddr);
		xib_hca_loop_send(port->hca, skb, ldev);
		return 0;
	}

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_oif = ndev->ifindex;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.flowlabel = ip6_make_flowinfo(path->traffic_class,
					  cpu_to_be32(path->flow_label) &
					  IPV6_FLOWLABEL_MASK);
	fl6.saddr = *saddr;
	fl6.daddr = *daddr;
	fl6.fl6_sport = htons(path->src_port);
	fl6.fl6_dport = htons(XIB_ROCEV2_UDP_PORT);
	t0 = xib_hca_prof_begin();
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, &fl6, NULL);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ROUTE, t0);
	if (IS_ERR(dst))
		goto no_route;
	if (dst->error) {
		dst_release(dst);
		goto no_route;
	}

	xib_hca_build6(skb, path, saddr, daddr);
	t0 = xib_hca_prof_begin();
	xib_hca_seal(skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_ICRC, t0);
	/* after the ICRC, which the checksum covers */
	udp6_set_csum(false, skb, saddr, daddr,
		      skb->len - skb_transport_offset(skb));
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_dst_set(skb, dst);
	xib_hca_tap(port->hca, skb, XIB_TRACE_TX, true);
	t0 = xib_hca_prof_begin();
	ret = ip6_local_out(net, sock->sk, skb);
	xib_hca_prof_end(port->hca, XIB_HCA_PROF_XMIT_OUT, t0);
	return xib_hca_tx_result(port, ret);

no_route:
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_TX_NO_ROUTE);
	kfree_skb(skb);
	return -EHOSTUNREACH;
}
#else
static int xib_hca_xmit6(struct xib_hca_port *port, struct xib_hca_net *xn,
			 struct net_device *ndev, struct sk_buff *skb,
			 const struct xib_hca_path *path,
			 const struct in6_addr *saddr,
			 const struct in6_addr *daddr)
{
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_TX_NO_ROUTE);
	kfree_skb(skb);
	return -EHOSTUNREACH;
}
#endif

/* xib_hca_xmit() but for the profile's timing */
static int __xib_hca_xmit(struct xib_hca_dev *hca, struct sk_buff *skb,
			  const struct xib_hca_path *path)
{
	struct xib_hca_port *port = NULL;
	struct in6_addr sgid, dgid;
	struct net_device *ndev;
	u32 len = skb->len + XIB_ICRC_LEN;
	struct xib_hca_net *xn;
	unsigned int loss;
	u64 t0;
	int ret;

	memcpy(&sgid, path->sgid, sizeof(sgid));
	memcpy(&dgid, path->dgid, sizeof(dgid));
	xib_hca_trace_tx(hca, skb, len);

	loss = READ_ONCE(xib_hca_tx_loss);
	if (unlikely(loss) && get_random_u32() % loss == 0) {
		consume_skb(skb);	/* "lost on the wire": sent, never arrives */
		xib_hca_stat_sent(hca, len);
		return 0;
	}

	rcu_read_lock();
	ndev = READ_ONCE(hca->ndev);
	if (ndev)
		port = xib_hca_port_rcu(ndev);
	if (!port || port->hca != hca) {
		ret = -ENETDOWN;
		goto drop;
	}
	xn = READ_ONCE(port->xn);
	if (!xn) {
		ret = -ENETDOWN;
		goto drop;
	}
	if (ipv6_addr_v4mapped(&sgid) != ipv6_addr_v4mapped(&dgid)) {
		ret = -EINVAL;
		goto drop_count;
	}
	t0 = xib_hca_prof_begin();
	if (!xib_hca_sgid_ours(ndev, &sgid)) {
		xib_hca_stat_inc(hca, XIB_HCA_STAT_TX_DROP_SGID);
		ret = -EADDRNOTAVAIL;
		goto drop;
	}
	xib_hca_prof_end(hca, XIB_HCA_PROF_XMIT_SGID, t0);
	skb_scrub_packet(skb, false);
	ret = xib_hca_tx_prepare(skb, LL_RESERVED_SPACE(ndev) +
				 XIB_HCA_NET_HLEN);
	if (ret)
		goto drop_count;

	if (ipv6_addr_v4mapped(&dgid))
		ret = xib_hca_xmit4(port, xn, ndev, skb, path,
				    sgid.s6_addr32[3], dgid.s6_addr32[3]);
	else
		ret = xib_hca_xmit6(port, xn, ndev, skb, path, &sgid, &dgid);
	rcu_read_unlock();
	if (!ret)
		xib_hca_stat_sent(hca, len);
	return ret;

drop_count:
	xib_hca_stat_inc(port->hca, XIB_HCA_STAT_TX_DROPPED);
drop:
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

/**
 * xib_hca_xmit() - send a packet
 * @hca: the sending HCA, attached
 * @skb: the packet from the BTH on (from xib_hca_alloc_skb()); consumed
 * @path: addresses and header fields
 *
 * Context: process or softirq context, not hard interrupts.
 * Return: 0, -EHOSTUNREACH if there is no route to the destination,
 * -ENETDOWN if @hca is not attached, -EINVAL if one GID is IPv4-mapped
 * and the other is not, -EADDRNOTAVAIL if the source GID is no longer
 * an address of the interface, or another negative errno if the packet
 * could not be queued.  The packet is consumed and, for the transport,
 * lost.
 */
int xib_hca_xmit(struct xib_hca_dev *hca, struct sk_buff *skb,
		 const struct xib_hca_path *path)
{
	u64 t0 = xib_hca_prof_begin();
	int ret;

	ret = __xib_hca_xmit(hca, skb, path);
	xib_hca_prof_end(hca, XIB_HCA_PROF_XMIT, t0);
	return ret;
}

/* --- sockets, attach and detach ---------------------------------------------- */

static int xib_hca_sock_open(struct net *net, struct xib_hca_net *xn,
			     bool ipv6, struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	int ret;

	if (ipv6) {
#if IS_ENABLED(CONFIG_IPV6)
		cfg.family = AF_INET6;
		cfg.local_ip6 = in6addr_any;
		cfg.ipv6_v6only = 1;
		/* use_udp6_rx_checksums 0: accept rdma_rxe's zero checksum */
#else
		return -EAFNOSUPPORT;
#endif
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	cfg.local_udp_port = htons(XIB_ROCEV2_UDP_PORT);

	ret = udp_sock_create(net, &cfg, sockp);
	if (ret)
		return ret;

	tcfg.sk_user_data = xn;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = xib_hca_encap_rcv;
	setup_udp_tunnel_sock(net, *sockp, &tcfg);
	/*
	 * setup_udp_tunnel_sock() turns IPv4 multicast loopback off; UD
	 * multicast wants it: the sending interface's own copy of a
	 * datagram to a group it joined goes to this host's attached QPs
	 * (hca_mcast.c).  IPv6 loopback (IPV6_MULTICAST_LOOP) stays on.
	 */
	if (!ipv6) {
		lock_sock((*sockp)->sk);
		inet_sk((*sockp)->sk)->mc_loop = 1;
		release_sock((*sockp)->sk);
	}
	return 0;
}

static void xib_hca_net_close(struct xib_hca_net *xn)
{
	lockdep_assert_held(&xib_hca_net_lock);

	if (xn->sock6) {
		udp_tunnel_sock_release(xn->sock6);
		WRITE_ONCE(xn->sock6, NULL);
	}
	if (xn->sock4) {
		udp_tunnel_sock_release(xn->sock4);
		WRITE_ONCE(xn->sock4, NULL);
	}
}

static int xib_hca_net_open(struct net *net, struct xib_hca_net *xn,
			    struct netlink_ext_ack *extack)
{
	struct socket *sock;
	int ret;

	lockdep_assert_held(&xib_hca_net_lock);

	ret = xib_hca_sock_open(net, xn, false, &sock);
	if (ret)
		goto err;
	WRITE_ONCE(xn->sock4, sock);

	ret = xib_hca_sock_open(net, xn, true, &sock);
	if (ret == -EAFNOSUPPORT)
		return 0;		/* IPv4 only */
	if (ret)
		goto err_close;
	WRITE_ONCE(xn->sock6, sock);
	return 0;

err_close:
	xib_hca_net_close(xn);
err:
	if (ret == -EADDRINUSE)
		NL_SET_ERR_MSG(extack,
			       "UDP port 4791 is in use in this network namespace (rdma_rxe?)");
	else
		NL_SET_ERR_MSG(extack, "cannot open the RoCEv2 UDP socket");
	return ret;
}

static struct xib_hca_port *xib_hca_port_find(struct xib_hca_dev *hca)
{
	struct xib_hca_port *port;

	lockdep_assert_held(&xib_hca_net_lock);

	list_for_each_entry(port, &xib_hca_ports, list)
		if (port->hca == hca)
			return port;
	return NULL;
}

/**
 * xib_hca_net_attach() - start sending and receiving for an HCA
 * @hca: the HCA; hca->ndev set
 * @extack: for the reason of a failure
 *
 * Context: process context; takes xib_hca_net_lock, may be called under
 * RTNL.
 * Return: 0, -EADDRINUSE if UDP port 4791 is taken in the interface's
 * namespace, -EBUSY if another HCA uses the interface, -EEXIST if @hca
 * is attached already, or another negative errno.
 */
int xib_hca_net_attach(struct xib_hca_dev *hca, struct netlink_ext_ack *extack)
{
	struct net_device *ndev = hca->ndev;
	struct xib_hca_port *port;
	struct xib_hca_net *xn;
	int ret;

	if (WARN_ON(!ndev))
		return -ENODEV;
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;

	mutex_lock(&xib_hca_net_lock);
	if (xib_hca_port_find(hca)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	xn = xib_hca_net(dev_net(ndev));
	port->hca = hca;
	port->xn = xn;
	port->ifindex = ndev->ifindex;

	if (!xn->users) {
		ret = xib_hca_net_open(dev_net(ndev), xn, extack);
		if (ret)
			goto err_unlock;
	}
	ret = xa_insert(&xn->ports, port->ifindex, port, GFP_KERNEL);
	if (ret) {
		if (ret == -EBUSY)
			NL_SET_ERR_MSG(extack,
				       "another xib device uses this network interface");
		goto err_close;
	}
	xn->users++;
	list_add_tail(&port->list, &xib_hca_ports);
	mutex_unlock(&xib_hca_net_lock);
	return 0;

err_close:
	if (!xn->users)
		xib_hca_net_close(xn);
err_unlock:
	mutex_unlock(&xib_hca_net_lock);
	kfree(port);
	return ret;
}

/**
 * xib_hca_net_detach() - stop sending and receiving for an HCA
 * @hca: the HCA; nothing happens if it is not attached
 *
 * When this returns, neither xib_hca_recv() for @hca nor a send of @hca
 * is running, and the namespace's sockets are closed if @hca was the
 * last HCA in it.
 *
 * Context: process context; takes xib_hca_net_lock and waits for an RCU
 * grace period, may be called under RTNL.
 */
void xib_hca_net_detach(struct xib_hca_dev *hca)
{
	struct xib_hca_port *port;
	struct xib_hca_net *xn;

	mutex_lock(&xib_hca_net_lock);
	port = xib_hca_port_find(hca);
	if (!port) {
		mutex_unlock(&xib_hca_net_lock);
		return;
	}
	list_del(&port->list);
	xn = port->xn;
	if (xn) {
		xa_erase(&xn->ports, port->ifindex);
		xn->users--;
	}
	/* receivers, loopback deliveries and senders run under RCU */
	synchronize_net();
	if (xn && !xn->users)
		xib_hca_net_close(xn);
	mutex_unlock(&xib_hca_net_lock);
	kfree(port);
}

/* --- namespaces and module ------------------------------------------------------ */

static int __net_init xib_hca_net_init_net(struct net *net)
{
	struct xib_hca_net *xn = xib_hca_net(net);

	xa_init(&xn->ports);
	return 0;
}

/*
 * Interfaces leave a dying namespace (and take their HCAs with them)
 * before pernet subsystems exit, so normally nothing is attached here.
 * Should an HCA still be, it is cut off: its later detach only frees.
 */
static void __net_exit xib_hca_net_exit_net(struct net *net)
{
	struct xib_hca_net *xn = xib_hca_net(net);
	struct xib_hca_port *port;

	mutex_lock(&xib_hca_net_lock);
	if (xn->users) {
		WARN_ONCE(1, "xib_hca: HCA still attached in a dying namespace\n");
		list_for_each_entry(port, &xib_hca_ports, list) {
			if (port->xn != xn)
				continue;
			xa_erase(&xn->ports, port->ifindex);
			WRITE_ONCE(port->xn, NULL);
		}
		xn->users = 0;
		synchronize_net();
		xib_hca_net_close(xn);
	}
	mutex_unlock(&xib_hca_net_lock);
	xa_destroy(&xn->ports);
}

static struct pernet_operations xib_hca_net_ops = {
	.init = xib_hca_net_init_net,
	.exit = xib_hca_net_exit_net,
	.id = &xib_hca_net_id,
	.size = sizeof(struct xib_hca_net),
};

/**
 * xib_hca_net_init() - set up the network side; before any attach
 *
 * Return: 0 or a negative errno.
 */
int xib_hca_net_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		__skb_queue_head_init(&per_cpu_ptr(&xib_hca_loops, cpu)->queue);
	ret = register_pernet_subsys(&xib_hca_net_ops);
	if (ret)
		return ret;
	/* without debugfs the knob is simply absent */
	xib_hca_debugfs = debugfs_create_dir("xib_hca", NULL);
	debugfs_create_u32("tx_loss", 0600, xib_hca_debugfs, &xib_hca_tx_loss);
	return 0;
}

/**
 * xib_hca_net_exit() - tear down the network side; after the last detach
 */
void xib_hca_net_exit(void)
{
	debugfs_remove(xib_hca_debugfs);
	unregister_pernet_subsys(&xib_hca_net_ops);
	xib_hca_frags_drain();
}
