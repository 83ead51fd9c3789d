/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca private definitions.
 */
#ifndef _XIB_HCA_H
#define _XIB_HCA_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <xib/xib_verbs.h>

/**
 * struct xib_hca_dev - one software HCA, bound to one network interface
 * @xdev: the xib device; first member (xib_alloc_device() requires it)
 * @ndev: the interface the HCA sends and receives on; held while the
 *	device is registered, NULL after unregistration
 * @ndev_tracker: tracks the reference on @ndev
 * @list: on xib_hca_devices, while the device is registered
 */
struct xib_hca_dev {
	struct xib_device xdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct list_head list;
};

static_assert(offsetof(struct xib_hca_dev, xdev) == 0);

static inline struct xib_hca_dev *to_hca_dev(struct xib_device *xdev)
{
	return container_of(xdev, struct xib_hca_dev, xdev);
}

#endif /* _XIB_HCA_H */
