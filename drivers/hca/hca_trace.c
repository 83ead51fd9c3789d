// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of hca_trace.h, defined once, and the one of the network
 * side (hca_net.c is also built into a KUnit module, without them).
 */
#define CREATE_TRACE_POINTS
#include "hca.h"
#include "hca_trace.h"

/* The xib_hca_tx event of a packet (@skb at its BTH, @len bytes). */
void xib_hca_trace_tx(struct xib_hca_dev *hca, const struct sk_buff *skb,
		      u32 len)
{
	const struct xib_bth *bth = (const struct xib_bth *)skb->data;

	if (trace_xib_hca_tx_enabled())
		trace_xib_hca_tx(hca->xdev.index, xib_bth_opcode(bth),
				 xib_bth_dqpn(bth), xib_bth_psn(bth), len);
}
