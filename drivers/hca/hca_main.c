// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca: the software HCA.
 *
 * Devices are created with "xibctl link add NAME netdev IFNAME" (link type
 * "hca" of XIB_CMD_LINK_ADD) and live until "link del", until their
 * interface is unregistered or until this module is unloaded, whichever
 * comes first.  Each HCA has a doorbell page, a worker thread (the
 * engine, hca_engine.c) and a place on the network side (hca_net.c).
 * The module also registers the PCI front end's pci_driver (pci.c).
 *
 * Locking: xib_hca_lock (a mutex) protects the list of HCAs; link
 * add/del and the netdev notifier run in process context.
 *
 * Whoever takes an HCA off the list destroys it: link del, the PCI
 * function's remove, module unload, or the interface's unregistration.
 * The last runs under RTNL, and the destruction waits for running verbs
 * commands, which may wait for what the stack does not control (an MR
 * registration pinning a page read from a hung or suspended block
 * device): so the notifier only cuts the HCA off its interface, which
 * must be let go there, and leaves the rest to a work item on
 * xib_hca_remove_wq, outside RTNL.  xib_hca_removing_lock (a spinlock,
 * innermost) protects the list of HCAs those work items remove.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <asm/unaligned.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "hca.h"

/* Registered HCAs.  Protected by xib_hca_lock. */
static LIST_HEAD(xib_hca_devices);
static DEFINE_MUTEX(xib_hca_lock);
/* Removals queued by NETDEV_UNREGISTER; drained before the module goes. */
static struct workqueue_struct *xib_hca_remove_wq;
/*
 * The HCAs whose removal NETDEV_UNREGISTER queued, until they are
 * unregistered and stopped; xib_hca_removed is woken as each leaves.  A
 * dying namespace waits for its own HCAs only (xib_hca_main_exit_net()).
 * Protected by xib_hca_removing_lock, innermost (the namespace's exit
 * tests the list in its wait_event() condition).
 */
static LIST_HEAD(xib_hca_removing);
static DEFINE_SPINLOCK(xib_hca_removing_lock);
static DECLARE_WAIT_QUEUE_HEAD(xib_hca_removed);

/* Final put of the device: what is left besides the xib device. */
void xib_hca_dealloc(struct xib_device *xdev)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);

	/* every QP gave its charge back when it was destroyed */
	WARN_ON_ONCE(atomic_read(&hca->cc_inflight));
	if (hca->ndev)
		netdev_put(hca->ndev, &hca->ndev_tracker);
	if (hca->db)
		xib_mmap_put(hca->db);
	hca->db = NULL;
	free_percpu(hca->prof);
	hca->prof = NULL;
	free_percpu(hca->stats);
	hca->stats = NULL;
}

/* Stop what newlink started after the allocation, in reverse order. */
static void xib_hca_stop(struct xib_hca_dev *hca)
{
	xib_hca_net_detach(hca);
	xib_hca_engine_stop(hca);
	xib_hca_pci_detach(hca);
}

/*
 * Let go of the interface of @hca, detached from it (xib_hca_net_detach()),
 * if it still has it.  Called by whoever took @hca off the list, once;
 * readers of hca->ndev hold RCU, and the interface is not freed before a
 * grace period after this (unregister_netdevice_many() waits for one
 * after its notifiers; link del holds the registered interface's own
 * reference until then).
 */
static void xib_hca_put_netdev(struct xib_hca_dev *hca)
{
	struct net_device *ndev = hca->ndev;

	if (!ndev)
		return;
	WRITE_ONCE(hca->ndev, NULL);
	netdev_put(ndev, &hca->ndev_tracker);
}

/* Unregister @hca, stop it and let go of its interface; memory stays. */
static void xib_hca_teardown(struct xib_hca_dev *hca)
{
	xib_hca_prof_debugfs_del(hca);
	xib_unregister_device(&hca->xdev);
	xib_hca_stop(hca);
	xib_hca_put_netdev(hca);
}

/*
 * Unregister @hca, whose list entry the caller has already removed.  The
 * interface is let go right away: open files may keep the xib device's
 * memory for a while, but must never keep its interface from going away.
 */
void xib_hca_destroy(struct xib_hca_dev *hca)
{
	xib_hca_teardown(hca);
	xib_dealloc_device(&hca->xdev);
}

/* The removal that xib_hca_netdev_unregister() queued. */
static void xib_hca_remove_work(struct work_struct *work)
{
	struct xib_hca_dev *hca = container_of(work, struct xib_hca_dev,
					       remove_work);

	xib_hca_teardown(hca);
	/* no longer findable in its namespace: that may go */
	spin_lock(&xib_hca_removing_lock);
	list_del_init(&hca->remove_node);
	spin_unlock(&xib_hca_removing_lock);
	wake_up_all(&xib_hca_removed);
	xib_dealloc_device(&hca->xdev);
}

/* Whether a queued removal of an HCA of @net has yet to unregister it. */
static bool xib_hca_removing_in(struct net *net)
{
	struct xib_hca_dev *hca;
	bool found = false;

	spin_lock(&xib_hca_removing_lock);
	list_for_each_entry(hca, &xib_hca_removing, remove_node) {
		if (net_eq(xib_device_net(&hca->xdev), net)) {
			found = true;
			break;
		}
	}
	spin_unlock(&xib_hca_removing_lock);
	return found;
}

/*
 * A namespace is dying.  Its interfaces were unregistered before pernet
 * subsystems exit (the device exits run first), and queued the removals
 * of their HCAs, which are registered in it: wait until they are
 * unregistered, so that no xib device outlives its namespace.  Only
 * these: a removal stuck in another namespace (a registration waiting
 * for a page) does not hold this one up.  Registered after hca_net's
 * pernet operations, so this runs before hca_net's exit.
 */
static void __net_exit xib_hca_main_exit_net(struct net *net)
{
	wait_event(xib_hca_removed, !xib_hca_removing_in(net));
}

static struct pernet_operations xib_hca_main_net_ops = {
	.exit = xib_hca_main_exit_net,
};

/* Put @hca, registered, on the list. */
void xib_hca_list(struct xib_hca_dev *hca)
{
	mutex_lock(&xib_hca_lock);
	list_add_tail(&hca->list, &xib_hca_devices);
	mutex_unlock(&xib_hca_lock);
}

/* Take @hca off the list; false if someone else already did. */
bool xib_hca_unlist(struct xib_hca_dev *hca)
{
	bool listed;

	mutex_lock(&xib_hca_lock);
	listed = !list_empty(&hca->list);
	list_del_init(&hca->list);
	mutex_unlock(&xib_hca_lock);
	return listed;
}

int xib_hca_dellink(struct xib_device *xdev)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);

	if (!xib_hca_unlist(hca))
		return -ENODEV;
	xib_hca_destroy(hca);
	return 0;
}

struct net_device *xib_hca_get_netdev(struct xib_device *xdev, u32 port)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);
	struct net_device *ndev;

	if (port != 1)
		return NULL;
	rcu_read_lock();
	ndev = READ_ONCE(hca->ndev);
	dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

/* The node GUID: the interface's MAC address as a modified EUI-64. */
static __be64 xib_hca_node_guid(const struct net_device *ndev)
{
	u8 guid[8];

	if (ndev->addr_len != ETH_ALEN)
		return 0;
	guid[0] = ndev->dev_addr[0] ^ 2;
	guid[1] = ndev->dev_addr[1];
	guid[2] = ndev->dev_addr[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = ndev->dev_addr[3];
	guid[6] = ndev->dev_addr[4];
	guid[7] = ndev->dev_addr[5];
	return cpu_to_be64(get_unaligned_be64(guid));
}

static int xib_hca_newlink(const char *name, struct net_device *ndev,
			   const char *pci, struct netlink_ext_ack *extack)
{
	struct xib_hca_dev *hca;
	struct xib_device *xdev;
	int ret;

	if (ndev->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack, "xib_hca needs an Ethernet interface");
		return -EINVAL;
	}

	xdev = xib_alloc_device(&xib_hca_dev_ops, sizeof(*hca));
	if (!xdev)
		return -ENOMEM;
	hca = to_hca_dev(xdev);
	INIT_LIST_HEAD(&hca->list);
	INIT_WORK(&hca->remove_work, xib_hca_remove_work);
	INIT_LIST_HEAD(&hca->remove_node);
	hca->ndev = ndev;
	netdev_hold(ndev, &hca->ndev_tracker, GFP_KERNEL);
	hca->xdev.phys_port_cnt = 1;
	hca->xdev.node_guid = xib_hca_node_guid(ndev);
	hca->xdev.dev.parent = &ndev->dev;
	xib_hca_set_attrs(hca);
	if (pci) {
		ret = xib_hca_pci_attach(hca, pci, extack);
		if (ret)
			goto err_dealloc;
		/* a PCI device: its function is its parent, its serial names it */
		hca->xdev.dev.parent = &hca->pci->pdev->dev;
		if (hca->pci->sig.serial)
			hca->xdev.node_guid = cpu_to_be64(le64_to_cpu(hca->pci->sig.serial));
	}

	hca->stats = alloc_percpu(struct xib_hca_stats);
	hca->prof = alloc_percpu(struct xib_hca_prof);
	if (!hca->stats || !hca->prof) {
		ret = -ENOMEM;
		goto err_pci_detach;
	}
	hca->db = xib_mmap_alloc(PAGE_ALIGN(sizeof(struct xib_hca_db_page)),
				 true);
	if (!hca->db) {
		ret = -ENOMEM;
		goto err_pci_detach;
	}
	ret = xib_hca_engine_start(hca, name);
	if (ret)
		goto err_pci_detach;
	ret = xib_hca_net_attach(hca, extack);
	if (ret)
		goto err_engine_stop;

	ret = xib_register_device(&hca->xdev, name, dev_net(ndev));
	if (ret) {
		if (ret == -EEXIST)
			NL_SET_ERR_MSG(extack,
				       "an xib device with this name exists in this namespace");
		else if (ret == -EINVAL)
			NL_SET_ERR_MSG(extack, "invalid xib device name");
		goto err_net_detach;
	}
	xib_hca_prof_debugfs_add(hca);

	/*
	 * The netdev notifier runs under RTNL and removes the HCAs on the
	 * list; an interface that went away before we got here is caught by
	 * the reg_state check, so no HCA outlives its interface.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED) {
		rtnl_unlock();
		NL_SET_ERR_MSG(extack, "network interface is going away");
		ret = -ENODEV;
		goto err_unregister;
	}
	/* and so is its PCI function's remove (it takes listed devices) */
	if (hca->pci)
		ret = xib_hca_pci_list(hca);
	else
		xib_hca_list(hca);
	rtnl_unlock();
	if (ret) {
		NL_SET_ERR_MSG(extack, "the PCI function is going away");
		goto err_unregister;
	}
	return 0;

err_unregister:
	xib_hca_prof_debugfs_del(hca);
	xib_unregister_device(&hca->xdev);
err_net_detach:
	xib_hca_net_detach(hca);
err_engine_stop:
	xib_hca_engine_stop(hca);
err_pci_detach:
	xib_hca_pci_detach(hca);
err_dealloc:
	xib_dealloc_device(&hca->xdev);
	return ret;
}

static struct xib_link_ops xib_hca_link_ops = {
	.type = "hca",
	.owner = THIS_MODULE,
	.newlink = xib_hca_newlink,
};

/* Remove every listed HCA (module unload). */
static void xib_hca_remove_all(void)
{
	struct xib_hca_dev *hca;

	for (;;) {
		mutex_lock(&xib_hca_lock);
		hca = list_first_entry_or_null(&xib_hca_devices,
					       struct xib_hca_dev, list);
		if (!hca) {
			mutex_unlock(&xib_hca_lock);
			return;
		}
		list_del_init(&hca->list);
		mutex_unlock(&xib_hca_lock);
		xib_hca_destroy(hca);
	}
}

/*
 * @ndev is being unregistered: cut its HCAs off it now and queue the rest
 * of their removal.  Nothing here waits for user space; afterwards the
 * HCAs neither send nor receive, and hold no reference on @ndev (which
 * unregister_netdevice would otherwise wait for, calling this notifier
 * again and again under RTNL).
 */
static void xib_hca_netdev_unregister(struct net_device *ndev)
{
	struct xib_hca_dev *hca;

	ASSERT_RTNL();
	for (;;) {
		mutex_lock(&xib_hca_lock);
		list_for_each_entry(hca, &xib_hca_devices, list)
			if (hca->ndev == ndev)
				break;
		if (list_entry_is_head(hca, &xib_hca_devices, list)) {
			mutex_unlock(&xib_hca_lock);
			return;
		}
		/* unlisted: link del and the PCI remove leave it to us */
		list_del_init(&hca->list);
		mutex_unlock(&xib_hca_lock);

		xib_hca_net_detach(hca);
		/*
		 * The interface's sysfs directory goes before the device's
		 * would: move the device (and its children) out from under
		 * it first.
		 */
		if (hca->xdev.dev.parent == &ndev->dev &&
		    device_move(&hca->xdev.dev, NULL, DPM_ORDER_NONE))
			dev_warn(&hca->xdev.dev,
				 "cannot leave the sysfs directory of %s\n",
				 netdev_name(ndev));
		xib_hca_put_netdev(hca);
		spin_lock(&xib_hca_removing_lock);
		list_add_tail(&hca->remove_node, &xib_hca_removing);
		spin_unlock(&xib_hca_removing_lock);
		queue_work(xib_hca_remove_wq, &hca->remove_work);
	}
}

static int xib_hca_netdev_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_UNREGISTER)
		xib_hca_netdev_unregister(ndev);
	return NOTIFY_DONE;
}

static struct notifier_block xib_hca_netdev_nb = {
	.notifier_call = xib_hca_netdev_event,
};

static int __init xib_hca_init(void)
{
	int ret;

	ret = xib_hca_mcast_init();
	if (ret)
		return ret;

	xib_hca_remove_wq = alloc_workqueue("xib_hca_remove", WQ_UNBOUND, 0);
	if (!xib_hca_remove_wq) {
		ret = -ENOMEM;
		goto err_mcast_exit;
	}

	ret = xib_hca_net_init();
	if (ret)
		goto err_destroy_wq;

	/* after hca_net's: a dying namespace runs this exit before that one */
	ret = register_pernet_subsys(&xib_hca_main_net_ops);
	if (ret)
		goto err_net_exit;

	ret = register_netdevice_notifier(&xib_hca_netdev_nb);
	if (ret)
		goto err_unregister_pernet;

	ret = xib_link_register(&xib_hca_link_ops);
	if (ret)
		goto err_unregister_notifier;

	ret = xib_hca_pci_init();
	if (ret)
		goto err_link_unregister;

	return 0;

err_link_unregister:
	xib_link_unregister(&xib_hca_link_ops);
err_unregister_notifier:
	unregister_netdevice_notifier(&xib_hca_netdev_nb);
err_unregister_pernet:
	unregister_pernet_subsys(&xib_hca_main_net_ops);
err_net_exit:
	xib_hca_net_exit();
err_destroy_wq:
	destroy_workqueue(xib_hca_remove_wq);
err_mcast_exit:
	xib_hca_mcast_exit();
	return ret;
}

static void __exit xib_hca_exit(void)
{
	xib_hca_pci_exit();
	xib_link_unregister(&xib_hca_link_ops);
	xib_hca_remove_all();
	/* no removal is queued from here on */
	unregister_netdevice_notifier(&xib_hca_netdev_nb);
	/* waits until every queued removal has unregistered its HCA */
	unregister_pernet_subsys(&xib_hca_main_net_ops);
	xib_hca_net_exit();
	/* and until each has freed what it had */
	destroy_workqueue(xib_hca_remove_wq);
	xib_hca_mcast_exit();
}

module_init(xib_hca_init);
module_exit(xib_hca_exit);

MODULE_DESCRIPTION("xib RDMA stack: software RoCEv2 HCA");
MODULE_LICENSE("GPL");
