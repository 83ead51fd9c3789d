// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca multicast, RoCEv2 style: a UD multicast group is an IP
 * multicast group (hca_mgid.c says which), so the HCA receives it when
 * its interface is a member of that group.
 *
 * Join and leave.  The core calls ops->mcast_join for the first QP of
 * the device attached to an MGID and ops->mcast_leave when the last one
 * leaves, in process context but possibly under RTNL (a device removed
 * by its interface's NETDEV_UNREGISTER destroys its QPs there), while the
 * IPv4 membership calls need RTNL.  So each join or leave is a request
 * queued on an ordered workqueue (a leave never overtakes its join),
 * which takes RTNL and does ip_mc_inc_group()/ip_mc_dec_group() on the
 * interface's in_device, or ipv6_dev_mc_inc()/ipv6_dev_mc_dec().  Those
 * send the IGMP/MLD reports and add the group's MAC address to the
 * interface's filter.  Each request holds a reference on the interface;
 * if the interface lost its IP configuration meanwhile (it is being
 * unregistered: its memberships go with it), the request does nothing.
 * Nobody waits for a request but module exit, which drains the queue.
 *
 * Receive.  The UDP layer hands a datagram to a multicast group the
 * interface joined to every socket on the port, our tunnel socket
 * included (hca_net.c finds the HCA by the receiving interface).  A
 * packet whose BTH names QP 0xffffff and whose destination GID is a
 * multicast GID goes to every QP of the device attached to that MGID
 * (xib_hca_mcast_recv(); each checks the packet's Q_Key against its own).
 * Sending needs nothing special: the IP layer maps the group to its MAC
 * address, and loops a copy back to the sender's interface when that is
 * a member of the group (IP_MULTICAST_LOOP is on for our sockets), which
 * gives the QPs of the sending device theirs.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>

#include "hca.h"

/* Join and leave requests, in order; drained by xib_hca_mcast_exit(). */
static struct workqueue_struct *xib_hca_mcast_wq;

/**
 * struct xib_hca_mcast_req - one join or leave of an IP group
 * @work: on xib_hca_mcast_wq
 * @ndev: the interface; the request holds a reference
 * @tracker: tracks it
 * @map: the group
 * @join: join, else leave
 */
struct xib_hca_mcast_req {
	struct work_struct work;
	struct net_device *ndev;
	netdevice_tracker tracker;
	struct xib_hca_mgid_map map;
	bool join;
};

static void xib_hca_mcast_work(struct work_struct *work)
{
	struct xib_hca_mcast_req *req =
		container_of(work, struct xib_hca_mcast_req, work);
	struct in_device *in_dev;

	rtnl_lock();
	if (req->map.ipv6) {
#if IS_ENABLED(CONFIG_IPV6)
		int ret;

		if (req->join)
			ret = ipv6_dev_mc_inc(req->ndev, &req->map.addr6);
		else
			ret = ipv6_dev_mc_dec(req->ndev, &req->map.addr6);
		if (ret && req->ndev->reg_state == NETREG_REGISTERED)
			netdev_warn(req->ndev,
				    "xib_hca: cannot %s IPv6 group %pI6c: %d\n",
				    req->join ? "join" : "leave",
				    &req->map.addr6, ret);
#endif
	} else {
		in_dev = __in_dev_get_rtnl(req->ndev);
		if (in_dev && req->join)
			ip_mc_inc_group(in_dev, req->map.addr4);
		else if (in_dev)
			ip_mc_dec_group(in_dev, req->map.addr4);
	}
	rtnl_unlock();
	netdev_put(req->ndev, &req->tracker);
	kfree(req);
}

static int xib_hca_mcast_queue(struct xib_hca_dev *hca, const u8 *mgid,
			       bool join)
{
	struct xib_hca_mcast_req *req;
	struct net_device *ndev;
	int ret;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	ret = xib_hca_mgid_map(mgid, &req->map);
	if (ret)
		goto err_free;
	/* the interface's removal clears hca->ndev under RTNL, RCU-safely */
	rcu_read_lock();
	ndev = READ_ONCE(hca->ndev);
	if (ndev)
		netdev_hold(ndev, &req->tracker, GFP_ATOMIC);
	rcu_read_unlock();
	if (!ndev) {
		ret = -ENODEV;
		goto err_free;
	}
	req->ndev = ndev;
	req->join = join;
	INIT_WORK(&req->work, xib_hca_mcast_work);
	queue_work(xib_hca_mcast_wq, &req->work);
	return 0;

err_free:
	kfree(req);
	return ret;
}

/**
 * xib_hca_mcast_join() - ops->mcast_join: receive the IP group of an MGID
 * @xdev: the device
 * @mgid: a multicast GID (checked by the core)
 *
 * Context: process context, under the core's mcast_lock, maybe under
 * RTNL: the join itself happens in a work item.
 * Return: 0, -ENOMEM, or -ENODEV if the device lost its interface.
 */
int xib_hca_mcast_join(struct xib_device *xdev, const u8 *mgid)
{
	return xib_hca_mcast_queue(to_hca_dev(xdev), mgid, true);
}

/**
 * xib_hca_mcast_leave() - ops->mcast_leave: stop receiving an IP group
 * @xdev: the device
 * @mgid: an MGID joined by xib_hca_mcast_join()
 *
 * Context: as xib_hca_mcast_join().  If the request cannot be queued
 * (no memory), the interface stays a member of the group until it goes
 * away; the QPs no longer get the datagrams either way.
 */
void xib_hca_mcast_leave(struct xib_device *xdev, const u8 *mgid)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);
	int ret;

	ret = xib_hca_mcast_queue(hca, mgid, false);
	if (ret && ret != -ENODEV)
		dev_warn(&xdev->dev, "cannot leave a multicast group: %d\n",
			 ret);
}

/**
 * xib_hca_mcast_recv() - a packet to QP 0xffffff: deliver it to the
 *	attached QPs
 * @hca: the receiving device
 * @skb: the packet
 * @pkt: its parsed headers
 *
 * Softirq context.  Does not consume @skb.
 */
void xib_hca_mcast_recv(struct xib_hca_dev *hca, struct sk_buff *skb,
			const struct xib_hca_pkt *pkt)
{
	struct xib_qp *qps[XIB_HCA_MAX_MCAST_QP_ATTACH];
	const u8 *dgid = xib_hca_rx_cb(skb)->dgid;
	unsigned int i, n;

	if (!xib_gid_is_mcast(dgid)) {
		xib_hca_stat_inc(hca, XIB_HCA_STAT_RX_DROP_UNKNOWN_QP);
		return;
	}
	n = xib_mcast_get_qps(&hca->xdev, dgid, qps, ARRAY_SIZE(qps));
	if (!n)
		xib_hca_stat_inc(hca, XIB_HCA_STAT_RX_DROP_UNKNOWN_QP);
	for (i = 0; i < n; i++) {
		xib_hca_dispatch(to_hca_qp(qps[i]), skb, pkt);
		xib_qp_put(qps[i]);
	}
}

/**
 * xib_hca_mcast_init() - at module load
 *
 * Return: 0 or -ENOMEM.
 */
int xib_hca_mcast_init(void)
{
	xib_hca_mcast_wq = alloc_ordered_workqueue("xib_hca_mcast", 0);
	return xib_hca_mcast_wq ? 0 : -ENOMEM;
}

/**
 * xib_hca_mcast_exit() - at module unload: carry out what is queued
 *
 * Context: process context, not under RTNL.
 */
void xib_hca_mcast_exit(void)
{
	destroy_workqueue(xib_hca_mcast_wq);
}
