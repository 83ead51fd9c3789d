// SPDX-License-Identifier: GPL-2.0
/*
 * xib_ucma: /dev/xib/rdma_cm, the user-space face of xib_cma.
 *
 * This step attaches to every xib device so that device removal can later
 * close the identifiers bound to it; the character device and its command
 * set arrive with the RDMA CM ABI (include/uapi/xib/ucma.h).  The module
 * is stacked on xib_cma, declared as a soft dependency until it calls into
 * it.
 */

#include <linux/module.h>
#include <xib/xib_verbs.h>

static int xib_ucma_add(struct xib_device *xdev)
{
	return 0;
}

static void xib_ucma_remove(struct xib_device *xdev, void *client_data)
{
}

static struct xib_client xib_ucma_client = {
	.name = "ucma",
	.add = xib_ucma_add,
	.remove = xib_ucma_remove,
};

static int __init xib_ucma_init(void)
{
	return xib_register_client(&xib_ucma_client);
}

static void __exit xib_ucma_exit(void)
{
	xib_unregister_client(&xib_ucma_client);
}

module_init(xib_ucma_init);
module_exit(xib_ucma_exit);

MODULE_DESCRIPTION("xib RDMA stack: user-space RDMA CM access");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: xib_cma");
