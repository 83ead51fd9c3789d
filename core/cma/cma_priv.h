/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_cma internals shared by its files.
 */
#ifndef _XIB_CMA_PRIV_H
#define _XIB_CMA_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <xib/xib_cma.h>

/**
 * struct xib_cma_device - the connection manager's view of a device
 * @xdev: the device
 * @list: on xib_cma_devices
 * @ids: the ids bound to the device (struct xib_cma_priv.dev_list)
 * @listener: the IB CM listener for the RDMA IP service IDs of every
 *	port space, or NULL while the IB CM is not available
 *
 * @list and @ids are protected by xib_cma_lock; so are changes to
 * @xdev->cm_ids, the length of @ids (an id is counted from attach to
 * detach: bound to a specific address of the device, or resolved to it).
 */
struct xib_cma_device {
	struct xib_device *xdev;
	struct list_head list;
	struct list_head ids;
	struct xib_cm_id *listener;
};

extern struct mutex xib_cma_lock;
extern struct list_head xib_cma_devices;

void xib_cma_device_removed(struct xib_cma_device *cdev);
int xib_cma_cm_req_handler(struct xib_cm_id *cm_id,
			   const struct xib_cm_event *event);
int xib_cma_ids_init(void);
void xib_cma_ids_exit(void);

#endif /* _XIB_CMA_PRIV_H */
