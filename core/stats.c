// SPDX-License-Identifier: GPL-2.0
/*
 * Device counters as readers see them.  Drivers count for ever (per CPU,
 * never reset: resetting per-CPU counts from another CPU would race with
 * their owners); a reset records the driver's counts in @stats_base and
 * every read answers the difference.  The names and their meaning are the
 * driver's (ops->stat_names); the netlink side is XIB_CMD_STAT_GET and
 * XIB_CMD_STAT_RESET (core/netlink.c).
 */

#include <linux/slab.h>

#include "core_priv.h"

/**
 * xib_stats_read() - the device's counters since the last reset
 * @dev: the device, with a user reference
 * @vals: room for @dev->ops->num_stats values
 *
 * Context: process context; takes @dev->stats_lock.
 * Return: the number of counters (0 if the driver keeps none).
 */
int xib_stats_read(struct xib_device *dev, u64 *vals)
{
	const struct xib_device_ops *ops = dev->ops;
	u32 i;

	if (!ops->stat_names || !ops->num_stats)
		return 0;
	mutex_lock(&dev->stats_lock);
	ops->get_stats(dev, vals);
	if (dev->stats_base)
		for (i = 0; i < ops->num_stats; i++)
			vals[i] -= dev->stats_base[i];
	mutex_unlock(&dev->stats_lock);
	return ops->num_stats;
}

/**
 * xib_stats_reset() - start the device's counters again from zero
 * @dev: the device, with a user reference
 *
 * Context: process context; takes @dev->stats_lock.
 * Return: 0, or -ENOMEM if the first reset could not allocate its base.
 */
int xib_stats_reset(struct xib_device *dev)
{
	const struct xib_device_ops *ops = dev->ops;
	int ret = 0;

	if (!ops->stat_names || !ops->num_stats)
		return 0;
	mutex_lock(&dev->stats_lock);
	if (!dev->stats_base)
		dev->stats_base = kcalloc(ops->num_stats,
					  sizeof(*dev->stats_base), GFP_KERNEL);
	if (dev->stats_base)
		ops->get_stats(dev, dev->stats_base);
	else
		ret = -ENOMEM;
	mutex_unlock(&dev->stats_lock);
	return ret;
}
