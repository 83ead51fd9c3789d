// SPDX-License-Identifier: GPL-2.0
/*
 * QP1 (the GSI) of the HCA's port: carries the MAD layer's datagrams.
 */

#include <linux/skbuff.h>
#include <linux/atomic.h>
#include <xib/xib_mad.h>

#include "hca.h"
#include "hca_net.h"
#include "hca_gsi.h"

/* PSNs of QP1's sends; UD receivers ignore them, rxe counts per QP. */
static atomic_t xib_hca_gsi_psn = ATOMIC_INIT(0);

/**
 * xib_hca_post_mad() - send a GSI datagram (xib_device_ops.post_mad)
 * @xdev: the device
 * @addr: where to
 * @mad: what
 *
 * Any context.
 *
 * Return: 0 or a negative errno.
 */
int xib_hca_post_mad(struct xib_device *xdev, const struct xib_mad_addr *addr,
		     const struct xib_mad *mad)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);
	struct xib_hca_path path;
	struct sk_buff *skb;
	int ret;

	if (addr->ah.port_num != 1 || addr->pkey_index)
		return -EINVAL;
	ret = xib_hca_path_from_av(hca, &addr->ah, 1, &path);
	if (ret)
		return ret;
	skb = xib_hca_alloc_skb(hca, XIB_HCA_GSI_LEN);
	if (!skb)
		return -ENOMEM;
	ret = xib_hca_gsi_build(skb->data, XIB_HCA_DEFAULT_PKEY,
				addr->remote_qpn & XIB_QPN_MASK,
				addr->remote_qkey,
				atomic_inc_return(&xib_hca_gsi_psn) - 1, mad);
	if (ret) {
		kfree_skb(skb);
		return ret;
	}
	return xib_hca_xmit(hca, skb, &path);
}

/**
 * xib_hca_gsi_recv() - a packet for QP1
 * @hca: the device
 * @skb: as xib_hca_recv() got it; not consumed
 * @pkt: its parse
 *
 * Softirq context.
 */
void xib_hca_gsi_recv(struct xib_hca_dev *hca, struct sk_buff *skb,
		      const struct xib_hca_pkt *pkt)
{
	const struct xib_hca_rx_cb *cb = xib_hca_rx_cb(skb);
	const struct xib_mad *mad;
	struct xib_mad_recv *r;
	u32 sqpn;

	mad = xib_hca_gsi_parse(pkt, &sqpn);
	if (!mad)
		goto drop;
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		goto drop;
	r->port_num = 1;
	r->src_qpn = sqpn;
	r->pkey = xib_bth_pkey(pkt->bth);
	memcpy(r->sgid, cb->sgid, sizeof(r->sgid));
	memcpy(r->dgid, cb->dgid, sizeof(r->dgid));
	r->hop_limit = cb->hop_limit;
	r->traffic_class = cb->traffic_class;
	r->flow_label = cb->flow_label;
	r->ipv6 = cb->ipv6;
	memcpy(&r->mad, mad, sizeof(r->mad));
	xib_mad_recv(&hca->xdev, r);
	kfree(r);
	return;
drop:
	xib_hca_stat_inc(hca, XIB_HCA_STAT_RX_MALFORMED);
}
