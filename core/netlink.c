// SPDX-License-Identifier: GPL-2.0
/*
 * The "xib" generic-netlink family: see include/uapi/xib/netlink.h for the
 * specification of every command.
 */

#include <linux/module.h>
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
};

static struct genl_family xib_nl_family;

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
	[XIB_RES_UCONTEXT] = XIB_ATTR_RES_UCONTEXT,
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

static int xib_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	struct xib_device *dev;
	int ret = 0;

	mutex_lock(&xib_reg_mutex);
	while ((dev = xib_device_next_locked(net, &index))) {
		ret = xib_nl_fill_dev(skb, dev, 0, NETLINK_CB(cb->skb).portid,
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
	ret = ops->newlink(nla_data(tb[XIB_ATTR_DEV_NAME]), ndev, info->extack);
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
	{
		.cmd = XIB_CMD_LINK_ADD,
		.doit = xib_nl_link_add,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XIB_CMD_LINK_DEL,
		.doit = xib_nl_link_del,
		.flags = GENL_UNS_ADMIN_PERM,
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
	/* Every command validates strictly: unknown attributes are refused. */
	.resv_start_op = XIB_CMD_DEV_GET,
};

int __init xib_netlink_init(void)
{
	return genl_register_family(&xib_nl_family);
}

void xib_netlink_exit(void)
{
	genl_unregister_family(&xib_nl_family);
}
