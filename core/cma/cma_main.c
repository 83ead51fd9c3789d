// SPDX-License-Identifier: GPL-2.0
/*
 * xib_cma: the RDMA connection manager (address resolution, IB CM, SA
 * client, rdma_cm_id).
 *
 * This file attaches to every xib device: it keeps the list of devices
 * ids can bind to and, per device, one IB CM listener for the service IDs
 * of the RDMA IP port spaces (0x0000_0000_01xx_xxxx), whose requests
 * cma.c hands to the RDMA CM listener the CM header names.
 */

#include <linux/err.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "cm_priv.h"
#include "cma_priv.h"

#define XIB_CMA_IP_SERVICE_ID	0x0000000001000000ULL
#define XIB_CMA_IP_SERVICE_MASK	0xffffffffff000000ULL

/* The devices ids can bind to, and each one's ids. */
DEFINE_MUTEX(xib_cma_lock);
LIST_HEAD(xib_cma_devices);	/* protected by xib_cma_lock */
static struct xib_client xib_cma_client;

static int xib_cma_add(struct xib_device *xdev)
{
	struct xib_cma_device *cdev;
	struct xib_cm_id *cm_id;
	int ret;

	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;
	cdev->xdev = xdev;
	INIT_LIST_HEAD(&cdev->ids);

	/* Without the IB CM the device still resolves addresses. */
	cm_id = xib_cm_create_id(xdev, xib_cma_cm_req_handler, cdev);
	if (!IS_ERR(cm_id)) {
		ret = xib_cm_listen(cm_id, cpu_to_be64(XIB_CMA_IP_SERVICE_ID),
				    cpu_to_be64(XIB_CMA_IP_SERVICE_MASK));
		if (ret) {
			xib_cm_destroy_id(cm_id);
			dev_info(&xdev->dev, "no IB CM listener: %d\n", ret);
		} else {
			cdev->listener = cm_id;
		}
	} else {
		dev_info(&xdev->dev, "IB CM not available: %ld\n",
			 PTR_ERR(cm_id));
	}

	ret = xib_set_client_data(xdev, &xib_cma_client, cdev);
	if (ret)
		goto err_destroy_listener;
	mutex_lock(&xib_cma_lock);
	list_add_tail(&cdev->list, &xib_cma_devices);
	mutex_unlock(&xib_cma_lock);
	return 0;

err_destroy_listener:
	if (cdev->listener)
		xib_cm_destroy_id(cdev->listener);
	kfree(cdev);
	return ret;
}

static void xib_cma_remove(struct xib_device *xdev, void *client_data)
{
	struct xib_cma_device *cdev = client_data;

	mutex_lock(&xib_cma_lock);
	list_del(&cdev->list);
	mutex_unlock(&xib_cma_lock);
	/* No new request reaches the ids from here on. */
	if (cdev->listener)
		xib_cm_destroy_id(cdev->listener);
	xib_cma_device_removed(cdev);
	kfree(cdev);
}

static struct xib_client xib_cma_client = {
	.name = "cma",
	.add = xib_cma_add,
	.remove = xib_cma_remove,
};

static int __init xib_cma_init(void)
{
	int ret;

	/* The IB CM's client first: added before ours, removed after. */
	ret = xib_cm_init();
	if (ret)
		return ret;
	ret = xib_cma_ids_init();
	if (ret)
		goto err_cm_exit;
	ret = xib_register_client(&xib_cma_client);
	if (ret)
		goto err_ids_exit;
	return 0;

err_ids_exit:
	xib_cma_ids_exit();
err_cm_exit:
	xib_cm_exit();
	return ret;
}

static void __exit xib_cma_exit(void)
{
	xib_unregister_client(&xib_cma_client);
	xib_cma_ids_exit();
	xib_cm_exit();
}

module_init(xib_cma_init);
module_exit(xib_cma_exit);

MODULE_DESCRIPTION("xib RDMA stack: RDMA connection manager");
MODULE_LICENSE("GPL");
