// SPDX-License-Identifier: GPL-2.0
/*
 * The "xib" generic-netlink family: see include/uapi/xib/netlink.h for the
 * specification of every command.
 */

#include <linux/cred.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "core_priv.h"

static const struct nla_policy xib_nl_policy[XIB_ATTR_MAX + 1] = {
	[XIB_ATTR_DEV_INDEX]	= { .type = NLA_U32 },
	[XIB_ATTR_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = XIB_DEVICE_NAME_MAX - 1 },
	[XIB_ATTR_DEV_NODE_GUID] = { .type = NLA_U64 },
	[XIB_ATTR_DEV_NUM_PORTS] = { .type = NLA_U32 },
	[XIB_ATTR_DEV_DRIVER]	= { .type = NLA_NUL_STRING },
	[XIB_ATTR_LINK_TYPE]	= { .type = NLA_NUL_STRING,
				    .len = XIB_LINK_TYPE_MAX - 1 },
	[XIB_ATTR_NDEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = IFNAMSIZ - 1 },
	[XIB_ATTR_PAD]		= { .type = NLA_UNSPEC },
	[XIB_ATTR_PORT_INDEX]	= { .type = NLA_U32 },
	/* The rest are only ever sent, never accepted. */
	[XIB_ATTR_PORT_STATE]	= { .type = NLA_REJECT },
	[XIB_ATTR_PORT_PHYS_STATE] = { .type = NLA_REJECT },
	[XIB_ATTR_PORT_ACTIVE_MTU] = { .type = NLA_REJECT },
	[XIB_ATTR_PORT_GIDS]	= { .type = NLA_REJECT },
	[XIB_ATTR_GID_ENTRY]	= { .type = NLA_REJECT },
	[XIB_ATTR_GID_INDEX]	= { .type = NLA_REJECT },
	[XIB_ATTR_GID]		= { .type = NLA_REJECT },
	[XIB_ATTR_GID_TYPE]	= { .type = NLA_REJECT },
	[XIB_ATTR_DEV_RES]	= { .type = NLA_REJECT },
	[XIB_ATTR_RES_PD ... XIB_ATTR_RES_MAD_SEND] = { .type = NLA_REJECT },
	/* a filter of the XIB_CMD_RES_*_GET dumps */
	[XIB_ATTR_RES_PID]	= { .type = NLA_U32 },
	[XIB_ATTR_RES_COMM ... XIB_ATTR_RES_CTX_ID] = { .type = NLA_REJECT },
	/* filters of XIB_CMD_RES_QP_GET */
	[XIB_ATTR_RES_QPN]	= { .type = NLA_U32 },
	[XIB_ATTR_RES_QP_TYPE]	= NLA_POLICY_RANGE(NLA_U8, XIB_QPT_RC,
						   XIB_QPT_UD),
	[XIB_ATTR_RES_QP_STATE]	= NLA_POLICY_MAX(NLA_U8, XIB_QPS_ERR),
	[XIB_ATTR_RES_DEST_QPN ... XIB_ATTR_RES_DGID] = { .type = NLA_REJECT },
	[XIB_ATTR_STATS ... XIB_ATTR_TRACE_PKT] = { .type = NLA_REJECT },
	[XIB_ATTR_SYS_NETNS_SHARED] = NLA_POLICY_MAX(NLA_U8, 1),
	[XIB_ATTR_LINK_PCI]	= { .type = NLA_NUL_STRING, .len = 31 },
	[XIB_ATTR_RES_MW ... XIB_ATTR_RES_CM_IDN] = { .type = NLA_REJECT },	/* XRCD too */
	/* filters of XIB_CMD_RES_CM_ID_GET */
	[XIB_ATTR_RES_PS]	= { .type = NLA_U32 },
	[XIB_ATTR_RES_CM_STATE]	= NLA_POLICY_MAX(NLA_U8, XIB_NL_CM_DESTROYING),
	[XIB_ATTR_RES_SRC_ADDR ... XIB_ATTR_RES_BACKLOG] = { .type = NLA_REJECT },
};

static struct genl_family xib_nl_family;

/* The family's multicast groups, in the order of this enum. */
enum {
	XIB_NL_MCGRP_TRACE,
};

static const struct genl_multicast_group xib_nl_mcgrps[] = {
	[XIB_NL_MCGRP_TRACE] = {
		.name = XIB_GENL_MCGRP_TRACE,
		/* packets of every process of the namespace */
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static int xib_nl_put_netdev(struct sk_buff *skb, struct xib_device *dev)
{
	struct net_device *ndev;
	int ret;

	if (!dev->ops->get_netdev || !dev->phys_port_cnt)
		return 0;
	ndev = dev->ops->get_netdev(dev, 1);
	if (!ndev)
		return 0;
	ret = nla_put_string(skb, XIB_ATTR_NDEV_NAME, netdev_name(ndev));
	dev_put(ndev);
	return ret;
}

/*
 * A message builder: one XIB_CMD_*_GET answer about @dev (and its port
 * @port, where the command is about ports) into @skb.
 */
typedef int (*xib_nl_fill_t)(struct sk_buff *skb, struct xib_device *dev,
			     u32 port, u32 portid, u32 seq, int flags);

/* The attribute of each resource type, in enum xib_res_type order. */
static const u16 xib_nl_res_attr[XIB_RES_MAX] = {
	[XIB_RES_PD] = XIB_ATTR_RES_PD,
	[XIB_RES_MR] = XIB_ATTR_RES_MR,
	[XIB_RES_CQ] = XIB_ATTR_RES_CQ,
	[XIB_RES_QP] = XIB_ATTR_RES_QP,
	[XIB_RES_SRQ] = XIB_ATTR_RES_SRQ,
	[XIB_RES_AH] = XIB_ATTR_RES_AH,
	[XIB_RES_MW] = XIB_ATTR_RES_MW,
	[XIB_RES_UCONTEXT] = XIB_ATTR_RES_UCONTEXT,
	[XIB_RES_XRCD] = XIB_ATTR_RES_XRCD,
};

static int xib_nl_put_res(struct sk_buff *skb, struct xib_device *dev)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, XIB_ATTR_DEV_RES);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < XIB_RES_MAX; i++)
		if (nla_put_u32(skb, xib_nl_res_attr[i],
				atomic_read(&dev->res_count[i])))
			return -EMSGSIZE;
	if (nla_put_u32(skb, XIB_ATTR_RES_CM_ID, atomic_read(&dev->cm_ids)) ||
	    nla_put_u32(skb, XIB_ATTR_RES_MAD_SEND, xib_mad_nr_posted(dev)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* @port: unused; devices and ports share xib_nl_fill_t. */
static int xib_nl_fill_dev(struct sk_buff *skb, struct xib_device *dev,
			   u32 port, u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &xib_nl_family, flags,
			  XIB_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XIB_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, XIB_ATTR_DEV_NAME, dev->name) ||
	    nla_put_u64_64bit(skb, XIB_ATTR_DEV_NODE_GUID,
			      be64_to_cpu(dev->node_guid), XIB_ATTR_PAD) ||
	    nla_put_u32(skb, XIB_ATTR_DEV_NUM_PORTS, dev->phys_port_cnt) ||
	    nla_put_string(skb, XIB_ATTR_DEV_DRIVER,
			   dev->ops->driver_name ?: "unknown") ||
	    xib_nl_put_netdev(skb, dev) || xib_nl_put_res(skb, dev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The device named by the request's XIB_ATTR_DEV_INDEX and/or
 * XIB_ATTR_DEV_NAME, with a user reference, or an ERR_PTR.
 */
static struct xib_device *xib_nl_get_dev(struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr **tb = info->attrs;
	struct xib_device *dev;

	if (tb[XIB_ATTR_DEV_INDEX]) {
		dev = xib_device_get_by_index(net,
					      nla_get_u32(tb[XIB_ATTR_DEV_INDEX]));
		if (dev && tb[XIB_ATTR_DEV_NAME] &&
		    nla_strcmp(tb[XIB_ATTR_DEV_NAME], dev->name)) {
			xib_device_release_user(dev);
			NL_SET_ERR_MSG(info->extack,
				       "device index and name do not match");
			return ERR_PTR(-ENODEV);
		}
	} else if (tb[XIB_ATTR_DEV_NAME]) {
		dev = xib_device_get_by_name(net,
					     nla_data(tb[XIB_ATTR_DEV_NAME]));
	} else {
		NL_SET_ERR_MSG(info->extack, "device index or name required");
		return ERR_PTR(-EINVAL);
	}
	if (!dev) {
		NL_SET_ERR_MSG(info->extack, "no such xib device");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

/* Answer the request @info with one message built by @fill. */
static int xib_nl_reply(struct genl_info *info, xib_nl_fill_t fill,
			struct xib_device *dev, u32 port)
{
	struct sk_buff *msg;
	int ret;

	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = fill(msg, dev, port, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int xib_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xib_device *dev;
	int ret;

	dev = xib_nl_get_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	ret = xib_nl_reply(info, xib_nl_fill_dev, dev, 0);
	xib_device_release_user(dev);
	return ret;
}

/* A dump of one message per device of the caller's namespace, by @fill. */
static int xib_nl_dev_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			     xib_nl_fill_t fill)
{
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	struct xib_device *dev;
	int ret = 0;

	mutex_lock(&xib_reg_mutex);
	while ((dev = xib_device_next_locked(net, &index))) {
		ret = fill(skb, dev, 1, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		index++;
	}
	mutex_unlock(&xib_reg_mutex);
	cb->args[0] = index;
	/* A full skb ends this round; the dump resumes at cb->args[0]. */
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

static int xib_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return xib_nl_dev_dumpit(skb, cb, xib_nl_fill_dev);
}

/* One XIB_ATTR_STAT_ENTRY. */
static int xib_nl_put_stat(struct sk_buff *skb, const char *name, u64 val)
{
	struct nlattr *entry = nla_nest_start(skb, XIB_ATTR_STAT_ENTRY);

	if (!entry || nla_put_string(skb, XIB_ATTR_STAT_NAME, name) ||
	    nla_put_u64_64bit(skb, XIB_ATTR_STAT_VALUE, val, XIB_ATTR_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, entry);
	return 0;
}

static int xib_nl_put_stats(struct sk_buff *skb, struct xib_device *dev)
{
	struct nlattr *stats;
	int ret = 0;
	u32 i, n;
	u64 *vals;

	stats = nla_nest_start(skb, XIB_ATTR_STATS);
	if (!stats)
		return -EMSGSIZE;
	vals = kmalloc_array(xib_stats_num(dev), sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	n = xib_stats_read(dev, vals);
	for (i = 0; i < n && !ret; i++)
		ret = xib_nl_put_stat(skb, xib_stats_name(dev, i), vals[i]);
	kfree(vals);
	if (!ret)
		nla_nest_end(skb, stats);
	return ret;
}

/* @port: always 1; counters are the device's and it has one port. */
static int xib_nl_fill_stats(struct sk_buff *skb, struct xib_device *dev,
			     u32 port, u32 portid, u32 seq, int flags)
{
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, portid, seq, &xib_nl_family, flags,
			  XIB_CMD_STAT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XIB_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, XIB_ATTR_DEV_NAME, dev->name) ||
	    nla_put_u32(skb, XIB_ATTR_PORT_INDEX, 1)) {
		ret = -EMSGSIZE;
		goto err_cancel;
	}
	ret = xib_nl_put_stats(skb, dev);
	if (ret)
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return ret;
}

static int xib_nl_stat_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xib_device *dev;
	int ret;

	dev = xib_nl_get_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	ret = xib_nl_reply(info, xib_nl_fill_stats, dev, 1);
	xib_device_release_user(dev);
	return ret;
}

static int xib_nl_stat_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return xib_nl_dev_dumpit(skb, cb, xib_nl_fill_stats);
}

static int xib_nl_stat_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct xib_device *dev;
	int ret;

	dev = xib_nl_get_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	ret = xib_stats_reset(dev);
	xib_device_release_user(dev);
	return ret;
}

static int xib_nl_put_gids(struct sk_buff *skb, const struct xib_port *port)
{
	struct nlattr *gids, *entry;
	u32 i;

	gids = nla_nest_start(skb, XIB_ATTR_PORT_GIDS);
	if (!gids)
		return -EMSGSIZE;
	for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++) {
		if (!port->gids[i].valid)
			continue;
		entry = nla_nest_start(skb, XIB_ATTR_GID_ENTRY);
		if (!entry ||
		    nla_put_u32(skb, XIB_ATTR_GID_INDEX, i) ||
		    nla_put(skb, XIB_ATTR_GID, 16, port->gids[i].raw) ||
		    nla_put_u8(skb, XIB_ATTR_GID_TYPE, XIB_GID_TYPE_ROCE_V2))
			return -EMSGSIZE;
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, gids);
	return 0;
}

static int xib_nl_fill_port(struct sk_buff *skb, struct xib_device *dev,
			    u32 port_num, u32 portid, u32 seq, int flags)
{
	struct xib_port *port;
	void *hdr;
	int ret;

	/* A snapshot: the table is too big for the stack. */
	port = kmalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	ret = xib_query_port(dev, port_num, port);
	if (ret)
		goto out_free;

	ret = -EMSGSIZE;
	hdr = genlmsg_put(skb, portid, seq, &xib_nl_family, flags,
			  XIB_CMD_PORT_GET);
	if (!hdr)
		goto out_free;
	if (nla_put_u32(skb, XIB_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, XIB_ATTR_DEV_NAME, dev->name) ||
	    nla_put_u32(skb, XIB_ATTR_PORT_INDEX, port_num) ||
	    nla_put_u8(skb, XIB_ATTR_PORT_STATE, port->state) ||
	    nla_put_u8(skb, XIB_ATTR_PORT_PHYS_STATE, port->phys_state) ||
	    nla_put_u32(skb, XIB_ATTR_PORT_ACTIVE_MTU, port->active_mtu) ||
	    (port_num == 1 && xib_nl_put_netdev(skb, dev)) ||
	    xib_nl_put_gids(skb, port)) {
		genlmsg_cancel(skb, hdr);
		goto out_free;
	}
	genlmsg_end(skb, hdr);
	ret = 0;
out_free:
	kfree(port);
	return ret;
}

static int xib_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xib_device *dev;
	u32 port;
	int ret;

	if (!info->attrs[XIB_ATTR_PORT_INDEX]) {
		NL_SET_ERR_MSG(info->extack, "port index required");
		return -EINVAL;
	}
	port = nla_get_u32(info->attrs[XIB_ATTR_PORT_INDEX]);
	dev = xib_nl_get_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (!port || port > dev->phys_port_cnt) {
		NL_SET_ERR_MSG(info->extack, "no such port");
		ret = -EINVAL;
	} else {
		ret = xib_nl_reply(info, xib_nl_fill_port, dev, port);
	}
	xib_device_release_user(dev);
	return ret;
}

/* cb->args[0]: next device index; cb->args[1]: next port of that device. */
static int xib_nl_port_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	u32 port = cb->args[1] ?: 1;
	struct xib_device *dev;
	int ret = 0;

	mutex_lock(&xib_reg_mutex);
	while ((dev = xib_device_next_locked(net, &index))) {
		if (index != cb->args[0])
			port = 1;	/* a new device starts at its port 1 */
		for (; port <= dev->phys_port_cnt; port++) {
			ret = xib_nl_fill_port(skb, dev, port,
					       NETLINK_CB(cb->skb).portid,
					       cb->nlh->nlmsg_seq, NLM_F_MULTI);
			if (ret)
				goto out_unlock;
		}
		index++;
		port = 1;
	}
out_unlock:
	mutex_unlock(&xib_reg_mutex);
	cb->args[0] = index;
	cb->args[1] = port;
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

static int xib_nl_link_add(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr **tb = info->attrs;
	struct xib_link_ops *ops;
	struct net_device *ndev;
	int ret;

	if (!tb[XIB_ATTR_DEV_NAME] || !tb[XIB_ATTR_NDEV_NAME] ||
	    !tb[XIB_ATTR_LINK_TYPE]) {
		NL_SET_ERR_MSG(info->extack,
			       "link type, device name and netdev are required");
		return -EINVAL;
	}

	mutex_lock(&xib_reg_mutex);
	ops = xib_link_find_locked(nla_data(tb[XIB_ATTR_LINK_TYPE]));
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	mutex_unlock(&xib_reg_mutex);
	if (!ops) {
		NL_SET_ERR_MSG(info->extack,
			       "unknown link type; is its driver loaded (xib_hca for \"hca\")?");
		return -EOPNOTSUPP;
	}

	ndev = dev_get_by_name(net, nla_data(tb[XIB_ATTR_NDEV_NAME]));
	if (!ndev) {
		NL_SET_ERR_MSG(info->extack, "no such network interface");
		ret = -ENODEV;
		goto out_module_put;
	}
	ret = ops->newlink(nla_data(tb[XIB_ATTR_DEV_NAME]), ndev,
			   tb[XIB_ATTR_LINK_PCI] ? nla_data(tb[XIB_ATTR_LINK_PCI]) : NULL,
			   info->extack);
	dev_put(ndev);
out_module_put:
	module_put(ops->owner);
	return ret;
}

static int xib_nl_link_del(struct sk_buff *skb, struct genl_info *info)
{
	struct xib_device *dev;
	struct module *owner;
	int ret;

	dev = xib_nl_get_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	owner = dev->ops->owner;
	if (!dev->ops->dellink || !try_module_get(owner)) {
		xib_device_release_user(dev);
		NL_SET_ERR_MSG(info->extack, "device was not created as a link");
		return -EOPNOTSUPP;
	}
	/*
	 * dellink unregisters the device, which waits for all users: trade
	 * the user reference for a plain one before calling it.
	 */
	xib_device_get(dev);
	xib_device_release_user(dev);
	ret = dev->ops->dellink(dev);
	xib_device_put(dev);
	module_put(owner);
	return ret;
}

/*
 * Resource dumps
 * --------------
 * cb->args[0]: the device being walked (its index), cb->args[1]: the
 * object number to resume from in that device's table, cb->args[2]: the
 * one device a filtered dump walks is done.  Each object is found and
 * referenced under its table's lock (xib_res_next()), which is dropped
 * before the message is built, so building may sleep (QP mutex, driver
 * queries) and the object may be destroyed meanwhile: it then appears
 * as it was.
 */

/* Who asks: decides what a dump shows. */
struct xib_nl_caller {
	bool admin;
	kuid_t euid;
	struct pid_namespace *pid_ns;
	struct user_namespace *user_ns;
};

/*
 * What a resource dump's request narrows it to, besides the device and
 * the QP number: the owner's pid (in the caller's pid namespace), the QP
 * type and state; -1 where the request does not say.
 */
struct xib_nl_res_filter {
	s64 pid;
	int qp_type;
	int qp_state;
};

static bool xib_nl_res_match(const struct xib_nl_res_filter *f,
			     enum xib_res_type type, void *obj,
			     const struct xib_res_owner *owner)
{
	struct xib_uverbs_qp_attr attr;
	struct xib_qp *qp = obj;

	if (f->pid >= 0 && (owner->kern || owner->pid != f->pid))
		return false;
	if (type != XIB_RES_QP)
		return true;
	if (f->qp_type >= 0 && qp->qp_type != f->qp_type)
		return false;
	if (f->qp_state >= 0) {
		xib_query_qp(qp, &attr);
		if (attr.qp_state != f->qp_state)
			return false;
	}
	return true;
}

static bool xib_nl_res_visible(const struct xib_nl_caller *who,
			       const struct xib_res_owner *owner)
{
	if (owner->kern)
		return who->admin;
	if (!owner->pid)	/* an owner outside the caller's pid namespace */
		return false;
	return who->admin || uid_eq(owner->euid, who->euid);
}

/* @ctx: the owner is a user context (not for RDMA CM ids). */
static int xib_nl_put_owner(struct sk_buff *skb,
			    const struct xib_nl_caller *who,
			    const struct xib_res_owner *owner, bool ctx)
{
	if (owner->kern)
		return nla_put_flag(skb, XIB_ATTR_RES_KERN);
	if (nla_put_u32(skb, XIB_ATTR_RES_PID, owner->pid) ||
	    nla_put_string(skb, XIB_ATTR_RES_COMM, owner->comm) ||
	    nla_put_u32(skb, XIB_ATTR_RES_UID,
			from_kuid_munged(who->user_ns, owner->euid)) ||
	    (ctx && nla_put_u32(skb, XIB_ATTR_RES_CTX_ID, owner->ctx_id)))
		return -EMSGSIZE;
	return 0;
}

/* A use count for a dump: 0 while the object is being destroyed. */
static u32 xib_nl_users(const atomic_t *usecnt)
{
	return max(atomic_read(usecnt), 0);
}

/* The driver's counters of @qp: XIB_ATTR_STATS, as XIB_CMD_STAT_GET's. */
static int xib_nl_put_qp_stats(struct sk_buff *skb, struct xib_qp *qp)
{
	const struct xib_device_ops *ops = qp->device->ops;
	u64 vals[XIB_QP_STATS_MAX];
	struct nlattr *stats;
	u32 i;

	if (!ops->qp_stat_names || !ops->get_qp_stats ||
	    WARN_ON_ONCE(ops->num_qp_stats > XIB_QP_STATS_MAX))
		return 0;
	ops->get_qp_stats(qp, vals);
	stats = nla_nest_start(skb, XIB_ATTR_STATS);
	if (!stats)
		return -EMSGSIZE;
	for (i = 0; i < ops->num_qp_stats; i++)
		if (xib_nl_put_stat(skb, ops->qp_stat_names[i], vals[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, stats);
	return 0;
}

static int xib_nl_put_qp(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_qp *qp)
{
	struct xib_device *dev = qp->device;
	struct xib_uverbs_qp_attr attr;
	struct xib_qp_res res = {};

	xib_query_qp(qp, &attr);
	if (nla_put_u32(skb, XIB_ATTR_RES_QPN, qp->qp_num) ||
	    nla_put_u8(skb, XIB_ATTR_RES_QP_TYPE, qp->qp_type) ||
	    nla_put_u8(skb, XIB_ATTR_RES_QP_STATE, attr.qp_state) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PDN, qp->pd->pdn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_SEND_CQN, qp->send_cq->cqn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_RECV_CQN, qp->recv_cq->cqn))
		return -EMSGSIZE;
	if (qp->srq && nla_put_u32(skb, XIB_ATTR_RES_SRQN, qp->srq->srqn))
		return -EMSGSIZE;
	if (qp->qp_type != XIB_QPT_UD && attr.qp_state >= XIB_QPS_RTR &&
	    nla_put_u32(skb, XIB_ATTR_RES_DEST_QPN, attr.dest_qp_num))
		return -EMSGSIZE;
	if (!dev->ops->query_qp_res)
		return 0;
	dev->ops->query_qp_res(qp, &res);
	if (nla_put_u32(skb, XIB_ATTR_RES_SQ_PSN, res.sq_psn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_RQ_PSN, res.rq_psn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_SQ_WRS, res.sq_outstanding) ||
	    nla_put_u32(skb, XIB_ATTR_RES_RQ_WRS, res.rq_outstanding) ||
	    nla_put_u64_64bit(skb, XIB_ATTR_RES_RETRANSMITS, res.retransmits,
			      XIB_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, XIB_ATTR_RES_RNR_NAKS, res.rnr_naks,
			      XIB_ATTR_PAD))
		return -EMSGSIZE;
	return xib_nl_put_qp_stats(skb, qp);
}

static int xib_nl_put_cq(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_cq *cq)
{
	struct xib_cq_res res = {};

	if (nla_put_u32(skb, XIB_ATTR_RES_CQN, cq->cqn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_CQE, READ_ONCE(cq->cqe)) ||
	    nla_put_u32(skb, XIB_ATTR_RES_USERS, xib_nl_users(&cq->usecnt)))
		return -EMSGSIZE;
	if (!cq->device->ops->query_cq_res)
		return 0;
	cq->device->ops->query_cq_res(cq, &res);
	return nla_put_u32(skb, XIB_ATTR_RES_CQ_FILL, res.fill);
}

static int xib_nl_put_mr(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_mr *mr)
{
	if (nla_put_u64_64bit(skb, XIB_ATTR_RES_MR_LEN, mr->length,
			      XIB_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, XIB_ATTR_RES_IOVA, mr->iova, XIB_ATTR_PAD) ||
	    nla_put_u32(skb, XIB_ATTR_RES_ACCESS, mr->access) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PDN, mr->pd->pdn))
		return -EMSGSIZE;
	/* Keys let a peer touch the memory: administrators only. */
	if (who->admin &&
	    (nla_put_u32(skb, XIB_ATTR_RES_LKEY, mr->lkey) ||
	     nla_put_u32(skb, XIB_ATTR_RES_RKEY, mr->rkey)))
		return -EMSGSIZE;
	return 0;
}

static int xib_nl_put_mw(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_mw *mw)
{
	u32 rkey, lkey = 0, qpn = 0, access = 0;
	unsigned long flags;
	u64 addr = 0, len = 0;
	bool bound;

	/* a copy under the window's lock: a bind may change it any time */
	spin_lock_irqsave(&mw->lock, flags);
	rkey = mw->rkey;
	bound = mw->state != XIB_MW_INVALID && mw->mr;
	if (bound) {
		lkey = mw->mr->lkey;	/* the window holds the MR */
		addr = mw->addr;
		len = mw->length;
		access = mw->access;
		if (mw->qp)
			qpn = mw->qp->qp_num;
	}
	spin_unlock_irqrestore(&mw->lock, flags);

	if (nla_put_u8(skb, XIB_ATTR_RES_MW_TYPE, mw->type) ||
	    nla_put_u8(skb, XIB_ATTR_RES_MW_STATE,
		       bound ? XIB_NL_MW_BOUND : XIB_NL_MW_FREE) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PDN, mw->pd->pdn))
		return -EMSGSIZE;
	if (bound &&
	    (nla_put_u64_64bit(skb, XIB_ATTR_RES_IOVA, addr, XIB_ATTR_PAD) ||
	     nla_put_u64_64bit(skb, XIB_ATTR_RES_MR_LEN, len, XIB_ATTR_PAD) ||
	     nla_put_u32(skb, XIB_ATTR_RES_ACCESS, access) ||
	     (qpn && nla_put_u32(skb, XIB_ATTR_RES_QPN, qpn))))
		return -EMSGSIZE;
	/* Keys let a peer touch the memory: administrators only, as MRs'. */
	if (who->admin &&
	    (nla_put_u32(skb, XIB_ATTR_RES_RKEY, rkey) ||
	     (bound && nla_put_u32(skb, XIB_ATTR_RES_LKEY, lkey))))
		return -EMSGSIZE;
	return 0;
}

static int xib_nl_put_pd(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_pd *pd)
{
	if (nla_put_u32(skb, XIB_ATTR_RES_PDN, pd->pdn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_USERS, xib_nl_users(&pd->usecnt)))
		return -EMSGSIZE;
	return 0;
}

static int xib_nl_put_srq(struct sk_buff *skb, const struct xib_nl_caller *who,
			  struct xib_srq *srq)
{
	if (nla_put_u32(skb, XIB_ATTR_RES_SRQN, srq->srqn) ||
	    nla_put_u32(skb, XIB_ATTR_RES_MAX_WR, READ_ONCE(srq->max_wr)) ||
	    nla_put_u32(skb, XIB_ATTR_RES_SRQ_LIMIT,
			READ_ONCE(srq->srq_limit)) ||
	    nla_put_u32(skb, XIB_ATTR_RES_USERS, xib_nl_users(&srq->usecnt)) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PDN, srq->pd->pdn))
		return -EMSGSIZE;
	return 0;
}

static int xib_nl_put_ah(struct sk_buff *skb, const struct xib_nl_caller *who,
			 struct xib_ah *ah)
{
	if (nla_put_u32(skb, XIB_ATTR_RES_AHN, ah->ahn) ||
	    nla_put(skb, XIB_ATTR_RES_DGID, sizeof(ah->attr.dgid),
		    ah->attr.dgid) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PDN, ah->pd->pdn))
		return -EMSGSIZE;
	return 0;
}

static int xib_nl_put_ctx(struct sk_buff *skb, const struct xib_res_owner *owner)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, XIB_ATTR_DEV_RES);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < XIB_RES_MAX; i++)
		if (i != XIB_RES_UCONTEXT &&
		    nla_put_u32(skb, xib_nl_res_attr[i], owner->counts[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* The dump command of each table. */
static const u8 xib_nl_res_cmd[XIB_RES_MAX] = {
	[XIB_RES_MW] = XIB_CMD_RES_MW_GET,
	[XIB_RES_PD] = XIB_CMD_RES_PD_GET,
	[XIB_RES_MR] = XIB_CMD_RES_MR_GET,
	[XIB_RES_CQ] = XIB_CMD_RES_CQ_GET,
	[XIB_RES_QP] = XIB_CMD_RES_QP_GET,
	[XIB_RES_SRQ] = XIB_CMD_RES_SRQ_GET,
	[XIB_RES_AH] = XIB_CMD_RES_AH_GET,
	[XIB_RES_UCONTEXT] = XIB_CMD_RES_CTX_GET,
};

/* One dump message about @obj (NULL for a context) of table @type. */
static int xib_nl_fill_res(struct sk_buff *skb, struct netlink_callback *cb,
			   enum xib_res_type type, struct xib_device *dev,
			   void *obj, const struct xib_res_owner *owner,
			   const struct xib_nl_caller *who)
{
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &xib_nl_family, NLM_F_MULTI, xib_nl_res_cmd[type]);
	if (!hdr)
		return -EMSGSIZE;
	ret = -EMSGSIZE;
	if (nla_put_u32(skb, XIB_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, XIB_ATTR_DEV_NAME, dev->name) ||
	    xib_nl_put_owner(skb, who, owner, true))
		goto err_cancel;
	switch (type) {
	case XIB_RES_QP:
		ret = xib_nl_put_qp(skb, who, obj);
		break;
	case XIB_RES_CQ:
		ret = xib_nl_put_cq(skb, who, obj);
		break;
	case XIB_RES_MR:
		ret = xib_nl_put_mr(skb, who, obj);
		break;
	case XIB_RES_PD:
		ret = xib_nl_put_pd(skb, who, obj);
		break;
	case XIB_RES_SRQ:
		ret = xib_nl_put_srq(skb, who, obj);
		break;
	case XIB_RES_AH:
		ret = xib_nl_put_ah(skb, who, obj);
		break;
	case XIB_RES_MW:
		ret = xib_nl_put_mw(skb, who, obj);
		break;
	default:
		ret = xib_nl_put_ctx(skb, owner);
		break;
	}
	if (ret)
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return ret;
}

/*
 * Dump @dev's objects of @type from number cb->args[1] up to @max.
 * Return: 0 when they are all in, -EMSGSIZE when @skb is full
 * (cb->args[1] is then the object to resume from).
 */
static int xib_nl_res_dump_dev(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       enum xib_res_type type, struct xib_device *dev,
			       unsigned long max,
			       const struct xib_nl_caller *who,
			       const struct xib_nl_res_filter *f)
{
	unsigned long id = cb->args[1];
	struct xib_res_owner owner;
	void *obj;
	int ret;

	while (id <= max &&
	       xib_res_next(dev, type, &id, max, who->pid_ns, &obj, &owner)) {
		ret = 0;
		if (xib_nl_res_visible(who, &owner) &&
		    xib_nl_res_match(f, type, obj, &owner))
			ret = xib_nl_fill_res(skb, cb, type, dev, obj, &owner,
					      who);
		xib_res_put(type, obj);
		if (ret) {
			cb->args[1] = id;
			return ret;
		}
		if (id == max)
			break;
		id++;
		cond_resched();
	}
	return 0;
}

/* The device a dump's filter names, with a user reference, or NULL. */
static struct xib_device *xib_nl_res_filter_dev(struct net *net,
						struct nlattr **tb)
{
	struct xib_device *dev;

	if (tb[XIB_ATTR_DEV_INDEX]) {
		dev = xib_device_get_by_index(net,
					      nla_get_u32(tb[XIB_ATTR_DEV_INDEX]));
		if (dev && tb[XIB_ATTR_DEV_NAME] &&
		    nla_strcmp(tb[XIB_ATTR_DEV_NAME], dev->name)) {
			xib_device_release_user(dev);
			return NULL;
		}
		return dev;
	}
	return xib_device_get_by_name(net, nla_data(tb[XIB_ATTR_DEV_NAME]));
}

static int xib_nl_res_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			     enum xib_res_type type)
{
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	unsigned long max = ULONG_MAX;
	struct xib_nl_res_filter f = { -1, -1, -1 };
	struct xib_nl_caller who;
	struct xib_device *dev;
	int ret = 0;

	if (type != XIB_RES_QP &&
	    (tb[XIB_ATTR_RES_QPN] || tb[XIB_ATTR_RES_QP_TYPE] ||
	     tb[XIB_ATTR_RES_QP_STATE])) {
		NL_SET_ERR_MSG(cb->extack,
			       "QP number, type and state filter QP dumps only");
		return -EINVAL;
	}
	if (tb[XIB_ATTR_RES_PS] || tb[XIB_ATTR_RES_CM_STATE]) {
		NL_SET_ERR_MSG(cb->extack,
			       "port space and CM state filter cm_id dumps only");
		return -EINVAL;
	}
	if (tb[XIB_ATTR_RES_PID])
		f.pid = nla_get_u32(tb[XIB_ATTR_RES_PID]);
	if (tb[XIB_ATTR_RES_QP_TYPE])
		f.qp_type = nla_get_u8(tb[XIB_ATTR_RES_QP_TYPE]);
	if (tb[XIB_ATTR_RES_QP_STATE])
		f.qp_state = nla_get_u8(tb[XIB_ATTR_RES_QP_STATE]);
	if (tb[XIB_ATTR_RES_QPN]) {
		max = nla_get_u32(tb[XIB_ATTR_RES_QPN]);
		if (!cb->args[1])
			cb->args[1] = max;
	}
	/* The dump runs in the requester's context: it decides what shows. */
	who.admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	who.euid = current_euid();
	who.pid_ns = task_active_pid_ns(current);
	who.user_ns = current_user_ns();

	if (tb[XIB_ATTR_DEV_INDEX] || tb[XIB_ATTR_DEV_NAME]) {
		if (cb->args[2])
			return 0;
		dev = xib_nl_res_filter_dev(net, tb);
		if (!dev) {
			if (skb->len || cb->args[3])
				return 0;
			NL_SET_ERR_MSG(cb->extack, "no such xib device");
			return -ENODEV;
		}
		cb->args[3] = 1;
		ret = xib_nl_res_dump_dev(skb, cb, type, dev, max, &who, &f);
		xib_device_release_user(dev);
		if (!ret)
			cb->args[2] = 1;
	} else {
		while ((dev = xib_device_next_user(net, &index))) {
			if (index != cb->args[0]) {	/* a new device */
				cb->args[0] = index;
				cb->args[1] = max == ULONG_MAX ? 0 : max;
			}
			ret = xib_nl_res_dump_dev(skb, cb, type, dev, max,
						  &who, &f);
			xib_device_release_user(dev);
			if (ret)
				break;
			index++;
		}
		if (!ret) {
			cb->args[0] = index;
			cb->args[1] = max == ULONG_MAX ? 0 : max;
		}
	}
	/* A full skb ends this round; the next resumes at cb->args. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

/* XIB_CMD_RES_*_GET: the table to dump comes from the command. */
static int xib_nl_res_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	u8 cmd = genl_dumpit_info(cb)->op.cmd;
	int type;

	for (type = 0; type < XIB_RES_MAX; type++)
		if (xib_nl_res_cmd[type] == cmd)
			return xib_nl_res_dumpit(skb, cb, type);
	return -EOPNOTSUPP;
}

/*
 * RDMA CM ids
 * -----------
 * xib_cma keeps them and registers a source of copies
 * (struct xib_res_cm_id_source); xib_nl_cm_id_src_mutex keeps it from
 * going (its module from unloading) while a dump calls it.
 * cb->args[0]: the id number to resume from.
 */
static DEFINE_MUTEX(xib_nl_cm_id_src_mutex);
static const struct xib_res_cm_id_source *xib_nl_cm_id_src;

/**
 * xib_res_cm_id_register() - let XIB_CMD_RES_CM_ID_GET list RDMA CM ids
 * @src: where to find them; one at a time
 *
 * Context: process context.
 */
void xib_res_cm_id_register(const struct xib_res_cm_id_source *src)
{
	mutex_lock(&xib_nl_cm_id_src_mutex);
	WARN_ON_ONCE(xib_nl_cm_id_src);
	xib_nl_cm_id_src = src;
	mutex_unlock(&xib_nl_cm_id_src_mutex);
}
EXPORT_SYMBOL_GPL(xib_res_cm_id_register);

/**
 * xib_res_cm_id_unregister() - undo xib_res_cm_id_register()
 * @src: as registered
 *
 * Returns once no dump uses @src.  Context: process context.
 */
void xib_res_cm_id_unregister(const struct xib_res_cm_id_source *src)
{
	mutex_lock(&xib_nl_cm_id_src_mutex);
	if (xib_nl_cm_id_src == src)
		xib_nl_cm_id_src = NULL;
	mutex_unlock(&xib_nl_cm_id_src_mutex);
}
EXPORT_SYMBOL_GPL(xib_res_cm_id_unregister);

static int xib_nl_put_sockaddr(struct sk_buff *skb, int attr,
			       const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put(skb, attr, sizeof(struct sockaddr_in), ss);
	if (ss->ss_family == AF_INET6)
		return nla_put(skb, attr, sizeof(struct sockaddr_in6), ss);
	return 0;
}

static int xib_nl_fill_cm_id(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct xib_res_cm_id *c,
			     const struct xib_nl_caller *who)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &xib_nl_family, NLM_F_MULTI, XIB_CMD_RES_CM_ID_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XIB_ATTR_RES_CM_IDN, c->idn) ||
	    (c->dev_index &&
	     (nla_put_u32(skb, XIB_ATTR_DEV_INDEX, c->dev_index) ||
	      nla_put_string(skb, XIB_ATTR_DEV_NAME, c->dev_name) ||
	      nla_put_u32(skb, XIB_ATTR_PORT_INDEX, c->port))) ||
	    xib_nl_put_owner(skb, who, &c->owner, false) ||
	    nla_put_u32(skb, XIB_ATTR_RES_PS, c->ps) ||
	    nla_put_u8(skb, XIB_ATTR_RES_QP_TYPE, c->qp_type) ||
	    nla_put_u8(skb, XIB_ATTR_RES_CM_STATE, c->state) ||
	    xib_nl_put_sockaddr(skb, XIB_ATTR_RES_SRC_ADDR, &c->src) ||
	    xib_nl_put_sockaddr(skb, XIB_ATTR_RES_DST_ADDR, &c->dst) ||
	    (c->qpn && nla_put_u32(skb, XIB_ATTR_RES_QPN, c->qpn)) ||
	    (c->state == XIB_NL_CM_LISTEN &&
	     nla_put_u32(skb, XIB_ATTR_RES_BACKLOG, c->backlog))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int xib_nl_cm_id_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	struct net *net = sock_net(skb->sk);
	unsigned long idn = cb->args[0];
	struct xib_res_cm_id *c;
	struct xib_nl_caller who;
	struct xib_device *dev;
	s64 pid = -1, ps = -1;
	u32 dev_index = 0;
	int state = -1;
	int ret = 0;

	if (tb[XIB_ATTR_RES_QPN] || tb[XIB_ATTR_RES_QP_TYPE] ||
	    tb[XIB_ATTR_RES_QP_STATE]) {
		NL_SET_ERR_MSG(cb->extack,
			       "QP number, type and state filter QP dumps only");
		return -EINVAL;
	}
	if (tb[XIB_ATTR_DEV_INDEX] || tb[XIB_ATTR_DEV_NAME]) {
		dev = xib_nl_res_filter_dev(net, tb);
		if (!dev) {
			if (skb->len || cb->args[1])
				return 0;
			NL_SET_ERR_MSG(cb->extack, "no such xib device");
			return -ENODEV;
		}
		dev_index = dev->index;
		xib_device_release_user(dev);
	}
	cb->args[1] = 1;	/* the device existed when the dump began */
	if (tb[XIB_ATTR_RES_PID])
		pid = nla_get_u32(tb[XIB_ATTR_RES_PID]);
	if (tb[XIB_ATTR_RES_PS])
		ps = nla_get_u32(tb[XIB_ATTR_RES_PS]);
	if (tb[XIB_ATTR_RES_CM_STATE])
		state = nla_get_u8(tb[XIB_ATTR_RES_CM_STATE]);
	who.admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	who.euid = current_euid();
	who.pid_ns = task_active_pid_ns(current);
	who.user_ns = current_user_ns();

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	mutex_lock(&xib_nl_cm_id_src_mutex);
	while (xib_nl_cm_id_src &&
	       xib_nl_cm_id_src->next(net, who.pid_ns, &idn, c)) {
		if (xib_nl_res_visible(&who, &c->owner) &&
		    (!dev_index || c->dev_index == dev_index) &&
		    (pid < 0 || (!c->owner.kern && c->owner.pid == pid)) &&
		    (ps < 0 || c->ps == ps) &&
		    (state < 0 || c->state == state)) {
			ret = xib_nl_fill_cm_id(skb, cb, c, &who);
			if (ret)
				break;
		}
		idn++;	/* id numbers are 31 bits: no wrap */
		cond_resched();
	}
	mutex_unlock(&xib_nl_cm_id_src_mutex);
	kfree(c);
	cb->args[0] = idn;
	/* A full skb ends this round; the next resumes at the same id. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int xib_nl_sys_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq, &xib_nl_family,
			  0, XIB_CMD_SYS_GET);
	if (!hdr ||
	    nla_put_u8(msg, XIB_ATTR_SYS_NETNS_SHARED, xib_netns_shared())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int xib_nl_sys_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[XIB_ATTR_SYS_NETNS_SHARED];

	/* a container's admin must not open its devices to the host's */
	if (!net_eq(sock_net(skb->sk), &init_net)) {
		NL_SET_ERR_MSG(info->extack,
			       "only the initial network namespace sets the mode");
		return -EPERM;
	}
	if (!a) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}
	xib_set_netns_shared(nla_get_u8(a));
	return 0;
}

static const struct genl_ops xib_nl_ops[] = {
	{
		.cmd = XIB_CMD_DEV_GET,
		.doit = xib_nl_dev_get_doit,
		.dumpit = xib_nl_dev_get_dumpit,
	},
	{
		.cmd = XIB_CMD_PORT_GET,
		.doit = xib_nl_port_get_doit,
		.dumpit = xib_nl_port_get_dumpit,
	},
	/*
	 * A device costs a kernel thread, a socket and its own limits:
	 * CAP_NET_ADMIN of the initial user namespace, not a user
	 * namespace's root (ib_core's newlink is the same).
	 */
	{
		.cmd = XIB_CMD_LINK_ADD,
		.doit = xib_nl_link_add,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = XIB_CMD_LINK_DEL,
		.doit = xib_nl_link_del,
		.flags = GENL_ADMIN_PERM,
	},
	{ .cmd = XIB_CMD_RES_QP_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_CQ_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_MR_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_PD_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_SRQ_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_AH_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_CTX_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_MW_GET, .dumpit = xib_nl_res_get_dumpit, },
	{ .cmd = XIB_CMD_RES_CM_ID_GET, .dumpit = xib_nl_cm_id_dumpit, },
	{
		.cmd = XIB_CMD_STAT_GET,
		.doit = xib_nl_stat_get_doit,
		.dumpit = xib_nl_stat_get_dumpit,
	},
	{
		.cmd = XIB_CMD_STAT_RESET,
		.doit = xib_nl_stat_reset,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{ .cmd = XIB_CMD_SYS_GET, .doit = xib_nl_sys_get, },
	{
		.cmd = XIB_CMD_SYS_SET,
		.doit = xib_nl_sys_set,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family xib_nl_family __ro_after_init = {
	.name = XIB_GENL_NAME,
	.version = XIB_GENL_VERSION,
	.maxattr = XIB_ATTR_MAX,
	.policy = xib_nl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = xib_nl_ops,
	.n_ops = ARRAY_SIZE(xib_nl_ops),
	.mcgrps = xib_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(xib_nl_mcgrps),
	/* Every command validates strictly: unknown attributes are refused. */
	.resv_start_op = XIB_CMD_DEV_GET,
};

/**
 * xib_trace_wanted() - does anyone capture packets (XIB_CMD_TRACE_PKT)?
 * @dev: the device about to send or receive a packet
 *
 * One bit test while nobody does (in any namespace: the listeners of a
 * netlink protocol are not kept per namespace).  Any context.
 */
bool xib_trace_wanted(struct xib_device *dev)
{
	return genl_has_listeners(&xib_nl_family, xib_device_net(dev),
				  XIB_NL_MCGRP_TRACE) > 0;
}
EXPORT_SYMBOL_GPL(xib_trace_wanted);

/**
 * xib_trace_start() - a capture message for one packet of @dev
 * @dev: the device
 * @dir: enum xib_trace_dir
 * @len: the packet's length, IP header to ICRC
 * @data: set to where the caller copies the @len bytes
 *
 * Any context but hard interrupts.  Send it with xib_trace_send().
 * Return: the message, or NULL without memory.
 */
struct sk_buff *xib_trace_start(struct xib_device *dev, u8 dir, u32 len,
				void **data)
{
	struct sk_buff *msg;
	struct nlattr *pkt;
	void *hdr;

	msg = genlmsg_new(nla_total_size(len) + 64, GFP_ATOMIC);
	if (!msg)
		return NULL;
	hdr = genlmsg_put(msg, 0, 0, &xib_nl_family, 0, XIB_CMD_TRACE_PKT);
	if (!hdr ||
	    nla_put_u32(msg, XIB_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_u8(msg, XIB_ATTR_TRACE_DIR, dir) ||
	    nla_put_u64_64bit(msg, XIB_ATTR_TRACE_TIME, ktime_get_real_ns(),
			      XIB_ATTR_PAD))
		goto err_free;
	pkt = nla_reserve(msg, XIB_ATTR_TRACE_PKT, len);
	if (!pkt)
		goto err_free;
	*data = nla_data(pkt);
	genlmsg_end(msg, hdr);
	return msg;

err_free:
	nlmsg_free(msg);
	return NULL;
}
EXPORT_SYMBOL_GPL(xib_trace_start);

/**
 * xib_trace_send() - send a message of xib_trace_start() to its listeners
 * @dev: the device it is about
 * @msg: the message, consumed
 *
 * Any context but hard interrupts.
 */
void xib_trace_send(struct xib_device *dev, struct sk_buff *msg)
{
	genlmsg_multicast_netns(&xib_nl_family, xib_device_net(dev), msg, 0,
				XIB_NL_MCGRP_TRACE, GFP_ATOMIC);
}
EXPORT_SYMBOL_GPL(xib_trace_send);

int __init xib_netlink_init(void)
{
	return genl_register_family(&xib_nl_family);
}

void xib_netlink_exit(void)
{
	genl_unregister_family(&xib_nl_family);
}
