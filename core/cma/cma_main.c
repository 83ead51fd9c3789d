// SPDX-License-Identifier: GPL-2.0
/*
 * xib_cma: the RDMA connection manager (address resolution, IB CM, SA
 * client, rdma_cm_id).
 *
 * This step attaches to every xib device and keeps the list of devices the
 * connection manager may bind identifiers to; the protocol follows.
 */

#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <xib/xib_verbs.h>

/**
 * struct xib_cma_device - the connection manager's view of a device
 * @xdev: the device
 * @list: on xib_cma_devices
 */
struct xib_cma_device {
	struct xib_device *xdev;
	struct list_head list;
};

/* Devices identifiers can bind to.  Protected by xib_cma_lock. */
static LIST_HEAD(xib_cma_devices);
static DEFINE_MUTEX(xib_cma_lock);
static struct xib_client xib_cma_client;

static int xib_cma_add(struct xib_device *xdev)
{
	struct xib_cma_device *cdev;
	int ret;

	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;
	cdev->xdev = xdev;
	ret = xib_set_client_data(xdev, &xib_cma_client, cdev);
	if (ret) {
		kfree(cdev);
		return ret;
	}
	mutex_lock(&xib_cma_lock);
	list_add_tail(&cdev->list, &xib_cma_devices);
	mutex_unlock(&xib_cma_lock);
	return 0;
}

static void xib_cma_remove(struct xib_device *xdev, void *client_data)
{
	struct xib_cma_device *cdev = client_data;

	mutex_lock(&xib_cma_lock);
	list_del(&cdev->list);
	mutex_unlock(&xib_cma_lock);
	kfree(cdev);
}

static struct xib_client xib_cma_client = {
	.name = "cma",
	.add = xib_cma_add,
	.remove = xib_cma_remove,
};

static int __init xib_cma_init(void)
{
	return xib_register_client(&xib_cma_client);
}

static void __exit xib_cma_exit(void)
{
	xib_unregister_client(&xib_cma_client);
}

module_init(xib_cma_init);
module_exit(xib_cma_exit);

MODULE_DESCRIPTION("xib RDMA stack: RDMA connection manager");
MODULE_LICENSE("GPL");
