// SPDX-License-Identifier: GPL-2.0
/*
 * xib_core: the xib verbs resource layer.
 */

#include <linux/module.h>

#include "core_priv.h"

static int __init xib_core_init(void)
{
	int ret;

	xib_user_init();
	ret = xib_verbs_init();
	if (ret)
		goto err_user_exit;

	ret = xib_device_init();
	if (ret)
		goto err_verbs_exit;

	ret = xib_port_init();
	if (ret)
		goto err_device_exit;

	ret = xib_mad_init();
	if (ret)
		goto err_port_exit;

	ret = xib_netlink_init();
	if (ret)
		goto err_mad_exit;

	return 0;

err_mad_exit:
	xib_mad_exit();
err_port_exit:
	xib_port_exit();
err_device_exit:
	xib_device_exit();
err_verbs_exit:
	xib_verbs_exit();
err_user_exit:
	xib_user_exit();
	return ret;
}

static void __exit xib_core_exit(void)
{
	xib_netlink_exit();
	xib_mad_exit();
	xib_port_exit();
	xib_device_exit();
	xib_verbs_exit();
	xib_user_exit();
}

module_init(xib_core_init);
module_exit(xib_core_exit);

MODULE_DESCRIPTION("xib RDMA stack: verbs resource layer");
MODULE_LICENSE("GPL");
