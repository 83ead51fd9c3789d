// SPDX-License-Identifier: GPL-2.0
/*
 * xib_core multicast: the per-device table of multicast groups and the
 * UD QPs attached to each (ibv_attach_mcast, ibv_detach_mcast).
 *
 * A group (struct xib_mcast_group) exists while at least one QP of the
 * device is attached to it: the first attach creates it and asks the
 * driver to receive the group (ops->mcast_join), the last detach asks it
 * to stop (ops->mcast_leave) and frees it.  Its member count is its
 * reference count; each member (struct xib_mcast_member) holds a
 * reference on its QP.
 *
 * Locking: dev->mcast_lock (a mutex, process context) serialises every
 * change: the group list, each group's member list, the counts and each
 * QP's mcast_list.  The receive path (softirq) reads the group and member
 * lists under RCU (xib_mcast_get_qps()); a detached member, and an empty
 * group, are freed only after a grace period, and the member's QP
 * reference is dropped only then, so a reader may take a reference on
 * any QP it finds.
 *
 * Limits (the device's attributes, enforced here): max_mcast_grp groups,
 * max_mcast_qp_attach QPs per group, max_total_mcast_qp_attach
 * attachments in all; beyond one of them an attach fails with -ENOMEM.
 */

#include <linux/in6.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "core_priv.h"

/**
 * struct xib_mcast_group - one multicast group of a device
 * @node: on xib_device.mcast_groups (RCU)
 * @mgid: the MGID, network order
 * @members: the attached QPs (struct xib_mcast_member.gnode; RCU)
 * @nmembers: entries of @members: the group's reference count
 * @rcu: frees the group after a grace period (kfree_rcu())
 */
struct xib_mcast_group {
	struct list_head node;
	u8 mgid[16];
	struct list_head members;
	unsigned int nmembers;
	struct rcu_head rcu;
};

/**
 * struct xib_mcast_member - one QP attached to one group
 * @gnode: on the group's @members (RCU)
 * @qnode: on the QP's mcast_list (mcast_lock only)
 * @grp: the group
 * @qp: the QP; the member holds a reference on it
 */
struct xib_mcast_member {
	struct list_head gnode;
	struct list_head qnode;
	struct xib_mcast_group *grp;
	struct xib_qp *qp;
};

/**
 * xib_gid_is_mcast() - is a GID a multicast GID on RoCEv2?
 * @gid: 16 bytes, network order
 *
 * An IPv4-mapped GID (::ffff:a.b.c.d) is multicast when a.b.c.d is in
 * 224.0.0.0/4 (RFC 1112); any other GID when it is an IPv6 multicast
 * address, ff00::/8 (RFC 4291), which is also the IBTA's MGID prefix.
 *
 * Return: true for a multicast GID.
 */
bool xib_gid_is_mcast(const u8 *gid)
{
	struct in6_addr a;

	memcpy(&a, gid, sizeof(a));
	if (ipv6_addr_v4mapped(&a))
		return ipv4_is_multicast(a.s6_addr32[3]);
	return ipv6_addr_is_multicast(&a);
}
EXPORT_SYMBOL_GPL(xib_gid_is_mcast);

static struct xib_mcast_group *xib_mcast_find(struct xib_device *dev,
					      const u8 *mgid)
{
	struct xib_mcast_group *grp;

	list_for_each_entry_rcu(grp, &dev->mcast_groups, node,
				lockdep_is_held(&dev->mcast_lock))
		if (!memcmp(grp->mgid, mgid, sizeof(grp->mgid)))
			return grp;
	return NULL;
}

static struct xib_mcast_member *xib_mcast_member_of(struct xib_qp *qp,
						    struct xib_mcast_group *grp)
{
	struct xib_mcast_member *m;

	lockdep_assert_held(&qp->device->mcast_lock);
	list_for_each_entry(m, &qp->mcast_list, qnode)
		if (m->grp == grp)
			return m;
	return NULL;
}

static int xib_mcast_check(struct xib_qp *qp, const u8 *mgid)
{
	if (!qp->device->ops->mcast_join)
		return -EOPNOTSUPP;
	if (qp->qp_type != XIB_QPT_UD || !xib_gid_is_mcast(mgid))
		return -EINVAL;
	return 0;
}

/**
 * xib_attach_mcast() - attach a UD QP to a multicast group
 * @qp: the QP, of type UD
 * @mgid: the group's MGID (16 bytes, network order), a multicast GID
 *
 * Attaching a QP to a group it is attached to already succeeds and
 * changes nothing.
 *
 * Context: process context; takes the device's mcast_lock.
 * Return: 0; -EINVAL if @qp is not UD or @mgid not multicast; -ENOMEM
 * beyond a limit of the device or out of memory; -EOPNOTSUPP if the
 * device has no multicast; or the driver's error.
 */
int xib_attach_mcast(struct xib_qp *qp, const u8 *mgid)
{
	struct xib_device *dev = qp->device;
	const struct xib_uverbs_device_attr *lim = &dev->attrs;
	struct xib_mcast_group *grp, *new_grp = NULL;
	struct xib_mcast_member *m;
	int ret;

	ret = xib_mcast_check(qp, mgid);
	if (ret)
		return ret;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;

	mutex_lock(&dev->mcast_lock);
	grp = xib_mcast_find(dev, mgid);
	if (grp && xib_mcast_member_of(qp, grp)) {
		ret = 0;		/* attached already */
		goto err_unlock;
	}
	if (dev->mcast_nattach >= lim->max_total_mcast_qp_attach ||
	    (grp && grp->nmembers >= lim->max_mcast_qp_attach) ||
	    (!grp && dev->mcast_ngroups >= lim->max_mcast_grp)) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	if (!grp) {
		new_grp = kzalloc(sizeof(*new_grp), GFP_KERNEL);
		if (!new_grp) {
			ret = -ENOMEM;
			goto err_unlock;
		}
		memcpy(new_grp->mgid, mgid, sizeof(new_grp->mgid));
		INIT_LIST_HEAD(&new_grp->members);
		ret = dev->ops->mcast_join(dev, mgid);
		if (ret)
			goto err_free_grp;
		grp = new_grp;
		list_add_tail_rcu(&grp->node, &dev->mcast_groups);
		dev->mcast_ngroups++;
	}
	kref_get(&qp->ref);
	m->qp = qp;
	m->grp = grp;
	list_add_tail(&m->qnode, &qp->mcast_list);
	list_add_tail_rcu(&m->gnode, &grp->members);
	grp->nmembers++;
	dev->mcast_nattach++;
	mutex_unlock(&dev->mcast_lock);
	return 0;

err_free_grp:
	kfree(new_grp);
err_unlock:
	mutex_unlock(&dev->mcast_lock);
	kfree(m);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_attach_mcast);

/*
 * Unlink member @m, to be freed after a grace period by the caller; an
 * empty group is left by the driver and freed after a grace period.
 */
static void xib_mcast_unlink(struct xib_mcast_member *m)
{
	struct xib_mcast_group *grp = m->grp;
	struct xib_device *dev = m->qp->device;

	lockdep_assert_held(&dev->mcast_lock);
	list_del(&m->qnode);
	list_del_rcu(&m->gnode);
	dev->mcast_nattach--;
	if (--grp->nmembers)
		return;
	list_del_rcu(&grp->node);
	dev->mcast_ngroups--;
	dev->ops->mcast_leave(dev, grp->mgid);
	kfree_rcu(grp, rcu);
}

/* After a grace period: nothing in softirq sees @m any more. */
static void xib_mcast_member_free(struct xib_mcast_member *m)
{
	xib_qp_put(m->qp);
	kfree(m);
}

/**
 * xib_detach_mcast() - detach a QP from a multicast group
 * @qp: the QP
 * @mgid: the group's MGID
 *
 * Context: process context; takes the device's mcast_lock and waits for
 * an RCU grace period.
 * Return: 0; -EINVAL if @qp is not UD, @mgid not multicast or @qp not
 * attached to the group; -EOPNOTSUPP if the device has no multicast.
 */
int xib_detach_mcast(struct xib_qp *qp, const u8 *mgid)
{
	struct xib_device *dev = qp->device;
	struct xib_mcast_member *m = NULL;
	struct xib_mcast_group *grp;
	int ret;

	ret = xib_mcast_check(qp, mgid);
	if (ret)
		return ret;
	mutex_lock(&dev->mcast_lock);
	grp = xib_mcast_find(dev, mgid);
	if (grp)
		m = xib_mcast_member_of(qp, grp);
	if (m)
		xib_mcast_unlink(m);
	mutex_unlock(&dev->mcast_lock);
	if (!m)
		return -EINVAL;
	synchronize_rcu();
	xib_mcast_member_free(m);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_detach_mcast);

/**
 * xib_mcast_attached() - is @qp attached to a multicast group?
 * @qp: the QP
 *
 * The answer may change right after unless the caller keeps attaches
 * away.  Context: process context; takes the device's mcast_lock.
 */
bool xib_mcast_attached(struct xib_qp *qp)
{
	bool attached;

	mutex_lock(&qp->device->mcast_lock);
	attached = !list_empty(&qp->mcast_list);
	mutex_unlock(&qp->device->mcast_lock);
	return attached;
}
EXPORT_SYMBOL_GPL(xib_mcast_attached);

/**
 * xib_mcast_detach_all() - detach a QP being destroyed from every group
 * @qp: the QP, already out of the QP table
 *
 * Context: process context; takes the device's mcast_lock and, if @qp
 * was attached, waits for an RCU grace period.
 */
void xib_mcast_detach_all(struct xib_qp *qp)
{
	struct xib_device *dev = qp->device;
	struct xib_mcast_member *m, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&dev->mcast_lock);
	list_for_each_entry_safe(m, tmp, &qp->mcast_list, qnode) {
		xib_mcast_unlink(m);
		/* qnode is no reader's: collect the member on it */
		list_add_tail(&m->qnode, &gone);
	}
	mutex_unlock(&dev->mcast_lock);
	if (list_empty(&gone))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(m, tmp, &gone, qnode)
		xib_mcast_member_free(m);
}

/**
 * xib_mcast_ip_join() - receive a multicast group with no QP attached yet
 * @dev: the device
 * @mgid: the group's MGID, a multicast GID
 *
 * For the RDMA CM's joins (rdma_join_multicast): the device's interface
 * joins the group's IP group (IGMP/MLD) through the same driver call as
 * the first attach of a QP; the IP layer counts memberships, so each
 * successful call is undone by one xib_mcast_ip_leave().  The group's
 * QPs still come and go with xib_attach_mcast() and xib_detach_mcast().
 *
 * Context: process context; takes the device's mcast_lock.
 * Return: 0; -EINVAL if @mgid is not multicast; -EOPNOTSUPP if the device
 * has no multicast; or the driver's error.
 */
int xib_mcast_ip_join(struct xib_device *dev, const u8 *mgid)
{
	int ret;

	if (!dev->ops->mcast_join)
		return -EOPNOTSUPP;
	if (!xib_gid_is_mcast(mgid))
		return -EINVAL;
	mutex_lock(&dev->mcast_lock);
	ret = dev->ops->mcast_join(dev, mgid);
	mutex_unlock(&dev->mcast_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_mcast_ip_join);

/**
 * xib_mcast_ip_leave() - undo one xib_mcast_ip_join()
 * @dev: the device
 * @mgid: the MGID joined
 *
 * Context: process context; takes the device's mcast_lock.
 */
void xib_mcast_ip_leave(struct xib_device *dev, const u8 *mgid)
{
	mutex_lock(&dev->mcast_lock);
	dev->ops->mcast_leave(dev, mgid);
	mutex_unlock(&dev->mcast_lock);
}
EXPORT_SYMBOL_GPL(xib_mcast_ip_leave);

/**
 * xib_mcast_get_qps() - the QPs of a device attached to a group
 * @dev: the device
 * @mgid: the group's MGID
 * @qps: filled with up to @max QPs, each with a reference (drop with
 *	xib_qp_put())
 * @max: room in @qps; a device attaches at most max_mcast_qp_attach
 *
 * Context: any (the receive path calls it in softirq context).
 * Return: the number of QPs stored in @qps.
 */
unsigned int xib_mcast_get_qps(struct xib_device *dev, const u8 *mgid,
			       struct xib_qp **qps, unsigned int max)
{
	struct xib_mcast_member *m;
	struct xib_mcast_group *grp;
	unsigned int n = 0;

	rcu_read_lock();
	grp = xib_mcast_find(dev, mgid);
	if (grp) {
		list_for_each_entry_rcu(m, &grp->members, gnode) {
			if (n == max)
				break;
			/* the member's reference lasts the grace period */
			kref_get(&m->qp->ref);
			qps[n++] = m->qp;
		}
	}
	rcu_read_unlock();
	return n;
}
EXPORT_SYMBOL_GPL(xib_mcast_get_qps);
