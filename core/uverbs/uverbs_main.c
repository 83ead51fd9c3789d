// SPDX-License-Identifier: GPL-2.0
/*
 * xib_uverbs: the /dev/xib/uverbsN character devices.
 *
 * One node per xib device.  The command set arrives with the verbs ABI
 * (include/uapi/xib/uverbs.h); until then a node can be opened, is bound
 * to its device, and answers every ioctl with -ENOTTY.
 */

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <xib/xib_verbs.h>

#define XIB_UVERBS_MAX_DEVICES	1024

static dev_t xib_uverbs_base;
static DEFINE_IDA(xib_uverbs_minor_ida);
static struct xib_client xib_uverbs_client;

/**
 * struct xib_uverbs_device - a /dev/xib/uverbsN node
 * @dev: the class device; its refcount keeps this structure alive for
 *	open files after the xib device is gone
 * @cdev: the character device
 * @xdev: the xib device; NULL once it was removed (then open fails)
 * @lock: protects @xdev
 */
struct xib_uverbs_device {
	struct device dev;
	struct cdev cdev;
	struct xib_device *xdev;
	struct mutex lock;	/* protects @xdev */
};

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

static int xib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xib_uverbs_device *udev =
		container_of(inode->i_cdev, struct xib_uverbs_device, cdev);
	int ret = 0;

	mutex_lock(&udev->lock);
	if (!udev->xdev)
		ret = -ENODEV;
	else
		get_device(&udev->dev);
	mutex_unlock(&udev->lock);
	if (ret)
		return ret;
	filp->private_data = udev;
	return nonseekable_open(inode, filp);
}

static int xib_uverbs_release(struct inode *inode, struct file *filp)
{
	struct xib_uverbs_device *udev = filp->private_data;

	put_device(&udev->dev);
	return 0;
}

static long xib_uverbs_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations xib_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = xib_uverbs_open,
	.release = xib_uverbs_release,
	.unlocked_ioctl = xib_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
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
	return 0;

err_cdev_del:
	cdev_device_del(&udev->cdev, &udev->dev);
err_put:
	put_device(&udev->dev);
	return ret;
}

static void xib_uverbs_remove(struct xib_device *xdev, void *client_data)
{
	struct xib_uverbs_device *udev = client_data;

	cdev_device_del(&udev->cdev, &udev->dev);
	mutex_lock(&udev->lock);
	udev->xdev = NULL;
	mutex_unlock(&udev->lock);
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
