// SPDX-License-Identifier: GPL-2.0
/*
 * Ports of xib devices: state, MTU and the RoCEv2 GID table, kept in step
 * with each port's network interface.
 *
 * Interface and address notifiers only schedule xib_port_sync_work; the
 * work brings every registered device up to date under xib_reg_mutex, in
 * process context.  That keeps the notifiers (the IPv6 one is atomic)
 * trivial and needs no reference juggling: a device is only looked at
 * while it is registered.
 *
 * GID index 0 is reserved for the default GID, fe80::/64 with the
 * interface's current MAC as a modified EUI-64.  The other entries hold
 * one IPv4-mapped GID (::ffff:a.b.c.d) per IPv4 address and one GID per
 * IPv6 address; such an entry keeps its index for as long as its address
 * exists, so address handles that name an index stay right when other
 * addresses come and go.
 */

#include <linux/if_ether.h>
#include <linux/bits.h>
#include <linux/ethtool.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/if_inet6.h>

#include "core_priv.h"

/*
 * Largest RoCEv2 header overhead: IPv6 (40), UDP (8), BTH (12), the
 * largest extension header, AtomicETH (28), and the ICRC (4).
 */
#define XIB_ROCE_OVERHEAD	(40 + 8 + 12 + 28 + 4)

static void xib_port_sync_all(struct work_struct *work);
static DECLARE_WORK(xib_port_sync_work, xib_port_sync_all);

/* The IB MTU (256..4096 bytes) that fits in @ndev_mtu, 0 if none does. */
u32 xib_ib_mtu(unsigned int ndev_mtu)
{
	u32 mtu;

	if (ndev_mtu < XIB_ROCE_OVERHEAD + 256)
		return 0;
	for (mtu = 4096; mtu > ndev_mtu - XIB_ROCE_OVERHEAD; mtu >>= 1)
		;
	return mtu;
}
EXPORT_SYMBOL_GPL(xib_ib_mtu);

/* The GIDs of an interface: gid[0] is the default GID, if any. */
struct xib_gid_set {
	unsigned int n;
	u8 gid[XIB_PORT_GID_TBL_LEN][16];
};

static void xib_gid_set_add(struct xib_gid_set *set, const u8 gid[16])
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (!memcmp(set->gid[i], gid, 16))
			return;
	if (set->n < XIB_PORT_GID_TBL_LEN)
		memcpy(set->gid[set->n++], gid, 16);
}

/* The GIDs @ndev's addresses call for, the default GID first. */
static void xib_gids_of(struct net_device *ndev, struct xib_gid_set *set)
{
	struct in_device *in_dev;
	struct inet6_dev *in6_dev;
	struct inet6_ifaddr *ifp;
	const struct in_ifaddr *ifa;
	u8 gid[16] = { 0xfe, 0x80 };

	/* Without a MAC, entry 0 stays a zero GID and is never valid. */
	set->n = 1;
	memset(set->gid[0], 0, 16);
	if (ndev->addr_len == ETH_ALEN) {
		addrconf_addr_eui48(&gid[8], ndev->dev_addr);
		memcpy(set->gid[0], gid, 16);
	}

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_local,
					       (struct in6_addr *)gid);
			xib_gid_set_add(set, gid);
		}
	}
	rcu_read_unlock();

	in6_dev = in6_dev_get(ndev);
	if (in6_dev) {
		read_lock_bh(&in6_dev->lock);
		list_for_each_entry(ifp, &in6_dev->addr_list, if_list)
			xib_gid_set_add(set, ifp->addr.s6_addr);
		read_unlock_bh(&in6_dev->lock);
		in6_dev_put(in6_dev);
	}
}

/*
 * Make @port's GID table hold exactly @set: entry 0 is the default GID;
 * of the others, entries whose GID is gone are freed, new GIDs take free
 * entries and the rest keep their index.
 */
static void xib_port_update_gids(struct xib_port *port,
				 const struct xib_gid_set *set)
{
	bool keep[XIB_PORT_GID_TBL_LEN] = {};
	unsigned int i, j;

	memcpy(port->gids[0].raw, set->gid[0], 16);
	port->gids[0].valid = !!memchr_inv(set->gid[0], 0, 16);

	for (i = 1; i < XIB_PORT_GID_TBL_LEN; i++) {
		struct xib_gid *e = &port->gids[i];

		if (!e->valid)
			continue;
		for (j = 1; j < set->n; j++)
			if (!memcmp(e->raw, set->gid[j], 16))
				break;
		if (j == set->n)
			e->valid = false;
		else
			keep[j] = true;
	}
	for (j = 1; j < set->n; j++) {
		if (keep[j])
			continue;
		for (i = 1; i < XIB_PORT_GID_TBL_LEN; i++) {
			if (!port->gids[i].valid) {
				memcpy(port->gids[i].raw, set->gid[j], 16);
				port->gids[i].valid = true;
				break;
			}
		}
	}
}

/*
 * Report a port event: through the driver when it delivers events its
 * own way (ops->port_event: a device on a PCI function queues it for its
 * event vector, whose handler calls xib_dispatch_event()), else at once.
 */
static void xib_port_event(struct xib_device *dev, u32 port_num,
			   enum xib_event_type type)
{
	struct xib_event event = {
		.device = dev,
		.type = type,
		.port_num = port_num,
	};

	lockdep_assert_held(&xib_reg_mutex);
	if (dev->ops->port_event)
		dev->ops->port_event(dev, &event);
	else
		xib_dispatch_event(&event);
}

static bool xib_gids_equal(const struct xib_gid *a, const struct xib_gid *b)
{
	unsigned int i;

	for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++)
		if (a[i].valid != b[i].valid ||
		    (a[i].valid && memcmp(a[i].raw, b[i].raw, 16)))
			return false;
	return true;
}

/*
 * Re-read port @port_num's interface and, if @report, report what changed
 * as PORT_ACTIVE, PORT_ERR and GID_CHANGE events.
 */
static void xib_port_sync_one(struct xib_device *dev, u32 port_num,
			      bool report)
{
	struct xib_port *port = &dev->ports[port_num - 1];
	struct xib_gid_set *set;
	struct net_device *ndev;
	bool up, was_up, gids_changed = false;

	ndev = dev->ops->get_netdev(dev, port_num);
	if (!ndev)
		return;
	set = kmalloc(sizeof(*set), GFP_KERNEL);
	if (set)
		xib_gids_of(ndev, set);
	up = netif_running(ndev) && netif_carrier_ok(ndev);

	mutex_lock(&dev->port_lock);
	was_up = port->state == XIB_PORT_ACTIVE;
	port->state = up ? XIB_PORT_ACTIVE : XIB_PORT_DOWN;
	port->phys_state = up ? XIB_PORT_PHYS_LINK_UP : XIB_PORT_PHYS_DISABLED;
	port->active_mtu = xib_ib_mtu(READ_ONCE(ndev->mtu));
	if (set) {
		struct xib_gid old[XIB_PORT_GID_TBL_LEN];

		memcpy(old, port->gids, sizeof(old));
		xib_port_update_gids(port, set);
		gids_changed = !xib_gids_equal(old, port->gids);
	}
	mutex_unlock(&dev->port_lock);

	dev_put(ndev);
	kfree(set);

	if (!report)
		return;
	if (up != was_up)
		xib_port_event(dev, port_num,
			       up ? XIB_EVENT_PORT_ACTIVE : XIB_EVENT_PORT_ERR);
	if (gids_changed)
		xib_port_event(dev, port_num, XIB_EVENT_GID_CHANGE);
}

/*
 * Bring the ports of @dev in step with their interfaces; report the
 * changes as port events if @report.  Registration does not: the state a
 * device starts in is no change, and nobody could receive it yet.
 */
void xib_port_sync_locked(struct xib_device *dev, bool report)
{
	u32 i;

	lockdep_assert_held(&xib_reg_mutex);
	if (!dev->ops->get_netdev)
		return;
	for (i = 1; i <= dev->phys_port_cnt; i++)
		xib_port_sync_one(dev, i, report);
}

static void xib_port_sync_all(struct work_struct *work)
{
	struct xib_device *dev;
	unsigned long index = 0;

	mutex_lock(&xib_reg_mutex);
	while ((dev = xib_device_next_locked(NULL, &index))) {
		xib_port_sync_locked(dev, true);
		index++;
	}
	mutex_unlock(&xib_reg_mutex);
}

static int xib_port_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR:
		schedule_work(&xib_port_sync_work);
		break;
	}
	return NOTIFY_DONE;
}

static int xib_port_addr_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	schedule_work(&xib_port_sync_work);
	return NOTIFY_DONE;
}

static struct notifier_block xib_port_netdev_nb = {
	.notifier_call = xib_port_netdev_event,
};

static struct notifier_block xib_port_inetaddr_nb = {
	.notifier_call = xib_port_addr_event,
};

static struct notifier_block xib_port_inet6addr_nb = {
	.notifier_call = xib_port_addr_event,
};

/**
 * xib_query_port() - a snapshot of a port's state
 * @dev: the device
 * @port: port number, 1-based
 * @attr: filled in
 */
int xib_query_port(struct xib_device *dev, u32 port, struct xib_port *attr)
{
	if (!port || port > dev->phys_port_cnt || !dev->ports)
		return -EINVAL;
	mutex_lock(&dev->port_lock);
	*attr = dev->ports[port - 1];
	mutex_unlock(&dev->port_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_query_port);

/**
 * xib_query_gid() - one GID table entry
 * @dev: the device
 * @port: port number, 1-based
 * @index: table index
 * @gid: filled in
 *
 * Returns 0, -EINVAL for a bad port or index, -ENOENT for an unused entry.
 */
int xib_query_gid(struct xib_device *dev, u32 port, u32 index, u8 gid[16])
{
	int ret = 0;

	if (!port || port > dev->phys_port_cnt || !dev->ports ||
	    index >= XIB_PORT_GID_TBL_LEN)
		return -EINVAL;
	mutex_lock(&dev->port_lock);
	if (dev->ports[port - 1].gids[index].valid)
		memcpy(gid, dev->ports[port - 1].gids[index].raw, 16);
	else
		ret = -ENOENT;
	mutex_unlock(&dev->port_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_query_gid);

/* Port capability bits of ibv_port_attr.port_cap_flags that xib sets. */
#define XIB_PORT_CM_SUP			BIT(16)
#define XIB_PORT_IP_BASED_GIDS		BIT(26)

/* IBTA link widths and speeds, as ibv_port_attr reports them. */
enum { XIB_WIDTH_1X = 1, XIB_WIDTH_4X = 2 };
enum {
	XIB_SPEED_SDR = 1, XIB_SPEED_DDR = 2, XIB_SPEED_FDR10 = 8,
	XIB_SPEED_EDR = 32,
};

#define XIB_PORT_MAX_MSG_SZ		SZ_1G
#define XIB_LINK_LAYER_ETHERNET		2

/* enum xib_mtu of a byte count of 256 to 4096; 0 for 0. */
static u32 xib_mtu_enum(u32 bytes)
{
	return bytes ? ilog2(bytes) - 7 : 0;
}

/*
 * The IBTA width and speed closest to the interface's Ethernet speed, so
 * that tools computing a rate from them get about the right figure.
 * Returns false, changing nothing, when RTNL is busy: callers hold locks
 * (a uverbs context's) that RTNL holders wait for when they remove a
 * device, so this never waits for RTNL.
 */
static bool xib_port_width_speed(struct net_device *ndev, u8 *width, u8 *speed)
{
	struct ethtool_link_ksettings ks;
	u32 mbps = 0;
	int ret;

	if (!rtnl_trylock())
		return false;
	ret = __ethtool_get_link_ksettings(ndev, &ks);
	rtnl_unlock();
	if (!ret && ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;

	if (mbps <= 2500) {
		*width = XIB_WIDTH_1X;
		*speed = XIB_SPEED_SDR;
	} else if (mbps <= 5000) {
		*width = XIB_WIDTH_1X;
		*speed = XIB_SPEED_DDR;
	} else if (mbps <= 10000) {
		*width = XIB_WIDTH_1X;
		*speed = XIB_SPEED_FDR10;
	} else if (mbps <= 20000) {
		*width = XIB_WIDTH_4X;
		*speed = XIB_SPEED_DDR;
	} else if (mbps <= 25000) {
		*width = XIB_WIDTH_1X;
		*speed = XIB_SPEED_EDR;
	} else if (mbps <= 40000) {
		*width = XIB_WIDTH_4X;
		*speed = XIB_SPEED_FDR10;
	} else {
		*width = XIB_WIDTH_4X;
		*speed = XIB_SPEED_EDR;
	}
	return true;
}

/**
 * xib_query_port_attr() - a port's attributes as user space sees them
 * @dev: the device
 * @port: port number, 1-based
 * @attr: filled in (struct ibv_port_attr's fields)
 *
 * Returns 0 or -EINVAL for a bad port.  May sleep.
 */
int xib_query_port_attr(struct xib_device *dev, u32 port,
			struct xib_uverbs_port_attr *attr)
{
	struct net_device *ndev = NULL;
	struct xib_port *p;
	int ret;

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ret = xib_query_port(dev, port, p);
	if (ret)
		goto out_free;

	memset(attr, 0, sizeof(*attr));
	attr->state = p->state;
	attr->phys_state = p->phys_state;
	attr->max_mtu = XIB_MTU_4096;
	attr->active_mtu = xib_mtu_enum(p->active_mtu);
	attr->gid_tbl_len = XIB_PORT_GID_TBL_LEN;
	attr->port_cap_flags = XIB_PORT_CM_SUP | XIB_PORT_IP_BASED_GIDS;
	attr->max_msg_sz = XIB_PORT_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	attr->link_layer = XIB_LINK_LAYER_ETHERNET;
	/* The last width and speed read, when RTNL is busy now. */
	if (dev->ops->port_violations) {
		u64 pkey, qkey;

		dev->ops->port_violations(dev, &pkey, &qkey);
		attr->bad_pkey_cntr = min_t(u64, pkey, U32_MAX);
		attr->qkey_viol_cntr = min_t(u64, qkey, U32_MAX);
	}
	attr->active_width = p->active_width ?: XIB_WIDTH_1X;
	attr->active_speed = p->active_speed ?: XIB_SPEED_SDR;
	if (dev->ops->get_netdev)
		ndev = dev->ops->get_netdev(dev, port);
	if (ndev) {
		if (xib_port_width_speed(ndev, &attr->active_width,
					 &attr->active_speed)) {
			mutex_lock(&dev->port_lock);
			dev->ports[port - 1].active_width = attr->active_width;
			dev->ports[port - 1].active_speed = attr->active_speed;
			mutex_unlock(&dev->port_lock);
		}
		dev_put(ndev);
	}
out_free:
	kfree(p);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_query_port_attr);

int xib_port_init(void)
{
	int ret;

	ret = register_netdevice_notifier(&xib_port_netdev_nb);
	if (ret)
		return ret;
	ret = register_inetaddr_notifier(&xib_port_inetaddr_nb);
	if (ret)
		goto err_unregister_netdev;
	ret = register_inet6addr_notifier(&xib_port_inet6addr_nb);
	if (ret)
		goto err_unregister_inetaddr;
	return 0;

err_unregister_inetaddr:
	unregister_inetaddr_notifier(&xib_port_inetaddr_nb);
err_unregister_netdev:
	unregister_netdevice_notifier(&xib_port_netdev_nb);
	return ret;
}

void xib_port_exit(void)
{
	unregister_inet6addr_notifier(&xib_port_inet6addr_nb);
	unregister_inetaddr_notifier(&xib_port_inetaddr_nb);
	unregister_netdevice_notifier(&xib_port_netdev_nb);
	cancel_work_sync(&xib_port_sync_work);
}
