// SPDX-License-Identifier: GPL-2.0
/*
 * xib_uverbs: the /dev/xib/uverbsN character devices.
 *
 * One node per xib device; each open() is a user context that runs the
 * commands of include/uapi/xib/uverbs.h (uverbs_cmd.c), maps queue memory
 * (uverbs_mmap.c) and delivers events (uverbs_event.c).
 *
 * Closing the file destroys what the context created.  When the device
 * is removed, every open context is disassociated: its objects are
 * destroyed, its mappings zapped, DEVICE_FATAL is queued on its async
 * event fd, and every later command fails with -EIO until close().
 */

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>

#include "uverbs_priv.h"

#define XIB_UVERBS_MAX_DEVICES	1024

static dev_t xib_uverbs_base;
static DEFINE_IDA(xib_uverbs_minor_ida);
static struct xib_client xib_uverbs_client;

static char *xib_uverbs_devnode(struct device *dev, umode_t *mode)
{
	/* Resource limits, not node permissions, bound what users can do. */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "xib/%s", dev_name(dev));
}

static struct class xib_uverbs_class = {
	.name = "xib_uverbs",
	.devnode = xib_uverbs_devnode,
};

static void xib_uverbs_ctx_free(struct kref *ref)
{
	struct xib_uverbs_ctx *ctx = container_of(ref, struct xib_uverbs_ctx,
						  ref);

	WARN_ON(!ctx->closed);
	WARN_ON(!list_empty(&ctx->umaps));
	xa_destroy(&ctx->handles);
	if (ctx->async_ev)
		xib_uverbs_ev_put(ctx->async_ev);
	mutex_destroy(&ctx->umap_lock);
	put_device(&ctx->udev->dev);
	kfree(ctx);
}

/**
 * xib_uverbs_ctx_put() - drop a reference on a context
 * @ctx: the context
 */
void xib_uverbs_ctx_put(struct xib_uverbs_ctx *ctx)
{
	kref_put(&ctx->ref, xib_uverbs_ctx_free);
}

/*
 * Destroy everything the context has on the device and let go of the
 * device.  With @fatal (device removal) also zap its mappings and tell
 * user space with DEVICE_FATAL; its files stay valid until closed.
 */
static void xib_uverbs_ctx_teardown(struct xib_uverbs_ctx *ctx, bool fatal)
{
	struct xib_uverbs_ev_file *ev;

	lockdep_assert_held_write(&ctx->rwsem);
	if (ctx->closed)
		return;
	xib_uverbs_destroy_all(ctx);
	if (fatal) {
		xib_uverbs_zap_mappings(ctx);
		if (ctx->async_ev)
			xib_uverbs_queue_async(ctx->async_ev, 0,
					       XIB_EVENT_DEVICE_FATAL, NULL);
	}
	/*
	 * No event can come any more: a reader of the async fd or of a
	 * channel that outlives the context (a dup, a fork) gets what is
	 * queued, then -EIO, instead of sleeping forever.
	 */
	if (ctx->async_ev)
		xib_uverbs_ev_kill(ctx->async_ev);
	spin_lock_irq(&ctx->channels_lock);
	list_for_each_entry(ev, &ctx->channels, ctx_list)
		xib_uverbs_ev_kill(ev);
	spin_unlock_irq(&ctx->channels_lock);
	xib_ucontext_cleanup(&ctx->uctx);
	xib_device_put(ctx->xdev);
	ctx->xdev = NULL;
	ctx->closed = true;
}

static int xib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xib_uverbs_device *udev =
		container_of(inode->i_cdev, struct xib_uverbs_device, cdev);
	struct xib_uverbs_ctx *ctx;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->ref);
	INIT_LIST_HEAD(&ctx->list);
	init_rwsem(&ctx->rwsem);
	xa_init_flags(&ctx->handles, XA_FLAGS_ALLOC);
	spin_lock_init(&ctx->channels_lock);
	INIT_LIST_HEAD(&ctx->channels);
	mutex_init(&ctx->umap_lock);
	INIT_LIST_HEAD(&ctx->umaps);

	mutex_lock(&udev->lock);
	if (!udev->xdev) {
		ret = -ENODEV;
		goto err_unlock;
	}
	/* exclusive mode: only from the device's own namespace */
	if (!xib_dev_access_netns(udev->xdev, current->nsproxy->net_ns)) {
		ret = -EPERM;
		goto err_unlock;
	}
	ret = xib_ucontext_init(&ctx->uctx, udev->xdev);
	if (ret)
		goto err_unlock;
	ctx->xdev = udev->xdev;
	xib_device_get(ctx->xdev);
	ctx->udev = udev;
	get_device(&udev->dev);
	spin_lock_irq(&udev->ctx_lock);
	list_add_tail(&ctx->list, &udev->contexts);
	spin_unlock_irq(&udev->ctx_lock);
	mutex_unlock(&udev->lock);

	filp->private_data = ctx;
	return nonseekable_open(inode, filp);

err_unlock:
	mutex_unlock(&udev->lock);
	mutex_destroy(&ctx->umap_lock);
	kfree(ctx);
	return ret;
}

static int xib_uverbs_release(struct inode *inode, struct file *filp)
{
	struct xib_uverbs_ctx *ctx = filp->private_data;
	struct xib_uverbs_device *udev = ctx->udev;

	/* Stays on the list until done, so a removal waits for it. */
	down_write(&ctx->rwsem);
	xib_uverbs_ctx_teardown(ctx, false);
	up_write(&ctx->rwsem);

	spin_lock_irq(&udev->ctx_lock);
	list_del_init(&ctx->list);
	spin_unlock_irq(&udev->ctx_lock);
	xib_uverbs_ctx_put(ctx);
	return 0;
}

static const struct file_operations xib_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = xib_uverbs_open,
	.release = xib_uverbs_release,
	.unlocked_ioctl = xib_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = xib_uverbs_mmap,
	.llseek = no_llseek,
};

static void xib_uverbs_dev_release(struct device *dev)
{
	struct xib_uverbs_device *udev =
		container_of(dev, struct xib_uverbs_device, dev);

	ida_free(&xib_uverbs_minor_ida, MINOR(dev->devt));
	kfree(udev);
}

static int xib_uverbs_add(struct xib_device *xdev)
{
	struct xib_uverbs_device *udev;
	int minor, ret;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	minor = ida_alloc_max(&xib_uverbs_minor_ida,
			      XIB_UVERBS_MAX_DEVICES - 1, GFP_KERNEL);
	if (minor < 0) {
		kfree(udev);
		return minor;
	}

	mutex_init(&udev->lock);
	spin_lock_init(&udev->ctx_lock);
	INIT_LIST_HEAD(&udev->contexts);
	udev->xdev = xdev;
	device_initialize(&udev->dev);
	udev->dev.class = &xib_uverbs_class;
	udev->dev.parent = &xdev->dev;
	udev->dev.devt = MKDEV(MAJOR(xib_uverbs_base), minor);
	udev->dev.release = xib_uverbs_dev_release;
	/* From here on the release callback frees the minor and udev. */
	ret = dev_set_name(&udev->dev, "uverbs%d", minor);
	if (ret)
		goto err_put;

	cdev_init(&udev->cdev, &xib_uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err_put;

	ret = xib_set_client_data(xdev, &xib_uverbs_client, udev);
	if (ret)
		goto err_cdev_del;

	udev->event_handler.device = xdev;
	udev->event_handler.handler = xib_uverbs_port_event;
	xib_register_event_handler(&udev->event_handler);
	return 0;

err_cdev_del:
	cdev_device_del(&udev->cdev, &udev->dev);
err_put:
	put_device(&udev->dev);
	return ret;
}

/*
 * The device goes away (or this module does): disassociate every open
 * context.  Called with the core's client lock held (not its registry
 * mutex: other devices come and go meanwhile), while the device still
 * works; waits for running commands, never for user space.
 */
static void xib_uverbs_remove(struct xib_device *xdev, void *client_data)
{
	struct xib_uverbs_device *udev = client_data;
	struct xib_uverbs_ctx *ctx;

	xib_unregister_event_handler(&udev->event_handler);
	cdev_device_del(&udev->cdev, &udev->dev);
	mutex_lock(&udev->lock);
	udev->xdev = NULL;	/* no new contexts from here on */
	mutex_unlock(&udev->lock);

	spin_lock_irq(&udev->ctx_lock);
	while ((ctx = list_first_entry_or_null(&udev->contexts,
					       struct xib_uverbs_ctx, list))) {
		list_del_init(&ctx->list);
		kref_get(&ctx->ref);
		spin_unlock_irq(&udev->ctx_lock);

		down_write(&ctx->rwsem);
		ctx->disassociated = true;
		xib_uverbs_ctx_teardown(ctx, true);
		up_write(&ctx->rwsem);
		xib_uverbs_ctx_put(ctx);

		spin_lock_irq(&udev->ctx_lock);
	}
	spin_unlock_irq(&udev->ctx_lock);
	put_device(&udev->dev);
}

static struct xib_client xib_uverbs_client = {
	.name = "uverbs",
	.add = xib_uverbs_add,
	.remove = xib_uverbs_remove,
};

static int __init xib_uverbs_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&xib_uverbs_base, 0, XIB_UVERBS_MAX_DEVICES,
				  "xib_uverbs");
	if (ret)
		return ret;

	ret = class_register(&xib_uverbs_class);
	if (ret)
		goto err_unregister_chrdev;

	ret = xib_register_client(&xib_uverbs_client);
	if (ret)
		goto err_unregister_class;

	return 0;

err_unregister_class:
	class_unregister(&xib_uverbs_class);
err_unregister_chrdev:
	unregister_chrdev_region(xib_uverbs_base, XIB_UVERBS_MAX_DEVICES);
	return ret;
}

static void __exit xib_uverbs_exit(void)
{
	xib_unregister_client(&xib_uverbs_client);
	class_unregister(&xib_uverbs_class);
	unregister_chrdev_region(xib_uverbs_base, XIB_UVERBS_MAX_DEVICES);
}

module_init(xib_uverbs_init);
module_exit(xib_uverbs_exit);

MODULE_DESCRIPTION("xib RDMA stack: user verbs character devices");
MODULE_LICENSE("GPL");
