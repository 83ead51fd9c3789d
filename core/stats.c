// SPDX-License-Identifier: GPL-2.0
/*
 * Device counters as readers see them: the driver's (ops->stat_names,
 * ops->get_stats) followed by the core's own (enum xib_core_stat: the MAD
 * layer's and the IB CM's).  Both are counted for ever (per CPU, never
 * reset: resetting per-CPU counts from another CPU would race with their
 * owners); a reset records the counts in @stats_base and every read
 * answers the difference.  The netlink side is XIB_CMD_STAT_GET and
 * XIB_CMD_STAT_RESET (core/netlink.c); the meanings are in
 * Documentation/counters.rst.
 */

#include <linux/slab.h>

#include "core_priv.h"

const char * const xib_core_stat_names[XIB_CORE_NSTATS] = {
	[XIB_CORE_STAT_MAD_TX]			= "mad_tx",
	[XIB_CORE_STAT_MAD_TX_ERRORS]		= "mad_tx_errors",
	[XIB_CORE_STAT_MAD_RX]			= "mad_rx",
	[XIB_CORE_STAT_MAD_RX_DROPPED]		= "mad_rx_dropped",
	[XIB_CORE_STAT_MAD_RX_UNCLAIMED]	= "mad_rx_unclaimed",
	[XIB_CORE_STAT_MAD_TIMEOUTS]		= "mad_timeouts",
	[XIB_CORE_STAT_MAD_RETRIES]		= "mad_retries",
	[XIB_CORE_STAT_CM_TX_REQ]		= "cm_tx_req",
	[XIB_CORE_STAT_CM_TX_MRA]		= "cm_tx_mra",
	[XIB_CORE_STAT_CM_TX_REJ]		= "cm_tx_rej",
	[XIB_CORE_STAT_CM_TX_REP]		= "cm_tx_rep",
	[XIB_CORE_STAT_CM_TX_RTU]		= "cm_tx_rtu",
	[XIB_CORE_STAT_CM_TX_DREQ]		= "cm_tx_dreq",
	[XIB_CORE_STAT_CM_TX_DREP]		= "cm_tx_drep",
	[XIB_CORE_STAT_CM_TX_SIDR_REQ]		= "cm_tx_sidr_req",
	[XIB_CORE_STAT_CM_TX_SIDR_REP]		= "cm_tx_sidr_rep",
	[XIB_CORE_STAT_CM_RX_REQ]		= "cm_rx_req",
	[XIB_CORE_STAT_CM_RX_MRA]		= "cm_rx_mra",
	[XIB_CORE_STAT_CM_RX_REJ]		= "cm_rx_rej",
	[XIB_CORE_STAT_CM_RX_REP]		= "cm_rx_rep",
	[XIB_CORE_STAT_CM_RX_RTU]		= "cm_rx_rtu",
	[XIB_CORE_STAT_CM_RX_DREQ]		= "cm_rx_dreq",
	[XIB_CORE_STAT_CM_RX_DREP]		= "cm_rx_drep",
	[XIB_CORE_STAT_CM_RX_SIDR_REQ]		= "cm_rx_sidr_req",
	[XIB_CORE_STAT_CM_RX_SIDR_REP]		= "cm_rx_sidr_rep",
	[XIB_CORE_STAT_CM_RX_DROPPED]		= "cm_rx_dropped",
	[XIB_CORE_STAT_CM_RX_DUPS]		= "cm_rx_dups",
};
EXPORT_SYMBOL_GPL(xib_core_stat_names);

/* The driver's counters, or 0 if it keeps none. */
static u32 xib_stats_ndrv(const struct xib_device *dev)
{
	const struct xib_device_ops *ops = dev->ops;

	return ops->stat_names && ops->get_stats ? ops->num_stats : 0;
}

/**
 * xib_stats_num() - how many counters a device has
 * @dev: the device
 *
 * Return: the driver's counters and the core's.
 */
u32 xib_stats_num(const struct xib_device *dev)
{
	return xib_stats_ndrv(dev) + XIB_CORE_NSTATS;
}

/**
 * xib_stats_name() - the name of a device's counter
 * @dev: the device
 * @i: the counter, below xib_stats_num()
 *
 * Return: its name (the driver's counters first, then the core's).
 */
const char *xib_stats_name(const struct xib_device *dev, u32 i)
{
	u32 ndrv = xib_stats_ndrv(dev);

	return i < ndrv ? dev->ops->stat_names[i] :
			  xib_core_stat_names[i - ndrv];
}

/* Every counter's count since the device was created. */
static void xib_stats_raw(struct xib_device *dev, u64 *vals)
{
	u32 ndrv = xib_stats_ndrv(dev);
	u64 *core = vals + ndrv;
	int cpu, i;

	if (ndrv)
		dev->ops->get_stats(dev, vals);
	memset(core, 0, sizeof(*core) * XIB_CORE_NSTATS);
	for_each_possible_cpu(cpu) {
		const struct xib_core_stats *s = per_cpu_ptr(dev->core_stats,
							     cpu);

		for (i = 0; i < XIB_CORE_NSTATS; i++)
			core[i] += READ_ONCE(s->v[i]);
	}
}

/**
 * xib_stats_read() - the device's counters since the last reset
 * @dev: the device, with a user reference
 * @vals: room for xib_stats_num(@dev) values
 *
 * Context: process context; takes @dev->stats_lock.
 * Return: the number of counters, xib_stats_num(@dev).
 */
u32 xib_stats_read(struct xib_device *dev, u64 *vals)
{
	u32 i, n = xib_stats_num(dev);

	mutex_lock(&dev->stats_lock);
	xib_stats_raw(dev, vals);
	if (dev->stats_base)
		for (i = 0; i < n; i++)
			vals[i] -= dev->stats_base[i];
	mutex_unlock(&dev->stats_lock);
	return n;
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
	int ret = 0;

	mutex_lock(&dev->stats_lock);
	if (!dev->stats_base)
		dev->stats_base = kcalloc(xib_stats_num(dev),
					  sizeof(*dev->stats_base), GFP_KERNEL);
	if (dev->stats_base)
		xib_stats_raw(dev, dev->stats_base);
	else
		ret = -ENOMEM;
	mutex_unlock(&dev->stats_lock);
	return ret;
}
