// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca packet receive: xib_hca_recv() (softirq, from the network side
 * or nested in a local xib_hca_xmit()) checks the common headers of every
 * packet and hands it to the role that handles its opcode: the responder
 * (hca_resp.c) for requests, the completer (hca_comp.c) for responses;
 * a multicast datagram to each QP attached to its group (hca_mcast.c).
 *
 * A connected QP (RC, UC, XRC) takes packets from its peer only, as rdma_rxe
 * does (check_addr() there): the packet's source address must be the
 * destination GID of the QP's path, its destination address the path's
 * source GID, and its IP version theirs (an IPv4-mapped GID: IPv4).
 * Anyone who can reach UDP port 4791 can send a packet with any QPN, PSN
 * and R_Key; without this check a forged RDMA WRITE would write memory,
 * a forged ACK complete WQEs the peer never received and a forged NAK
 * fail the QP.  The UDP source port is not checked: it is the peer's
 * choice (flow entropy) and not part of our path.  UD QPs and QP1 take
 * datagrams from anyone; their Q_Key is the check (hca_resp.c,
 * hca_gsi.c).  What this stops is off-path spoofing as a host that is
 * not the peer; a host that can send with the peer's address (on its
 * path, or where source addresses are not filtered) still needs the
 * QPN, PSN window and R_Key, which are random (core/verbs.c).
 */
#include <linux/skbuff.h>
#include <net/ipv6.h>

#include "hca.h"
#include "hca_trace.h"

/*
 * Does @skb come from @qp's peer (RC, UC)?  The path is written by
 * modify_qp under both QP locks; it is read here under rq.lock.  Before
 * RTR a QP has no path (all zero), so nothing matches.
 */
static bool xib_hca_from_peer(struct xib_hca_qp *qp, struct sk_buff *skb)
{
	const struct xib_hca_rx_cb *cb = xib_hca_rx_cb(skb);
	struct in6_addr peer;
	bool ok;

	spin_lock_bh(&qp->rq.lock);
	memcpy(&peer, qp->path.dgid, sizeof(peer));
	ok = !memcmp(cb->sgid, &peer, sizeof(cb->sgid)) &&
	     !memcmp(cb->dgid, qp->path.sgid, sizeof(cb->dgid));
	spin_unlock_bh(&qp->rq.lock);
	/* an IPv6 packet from an IPv4-mapped address is not the peer */
	return ok && cb->ipv6 != ipv6_addr_v4mapped(&peer);
}

/**
 * xib_hca_dispatch() - a packet for @qp to the role that handles it
 * @qp: the destination QP
 * @skb: the packet
 * @pkt: its parsed headers
 *
 * Softirq context.  Does not consume @skb.
 */
void xib_hca_dispatch(struct xib_hca_qp *qp, struct sk_buff *skb,
		      const struct xib_hca_pkt *pkt)
{
	u8 opcode = xib_bth_opcode(pkt->bth);
	int state = READ_ONCE(qp->hstate);
	u64 t0;

	/* packets of another transport are dropped */
	if ((opcode & XIB_TRANSPORT_MASK) != xib_hca_qp_transport(qp))
		goto drop;
	if (qp->ibqp.qp_type != XIB_QPT_UD && !xib_hca_from_peer(qp, skb)) {
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_ADDR);
		return;
	}
	/* an XRC initiator has no responder, an XRC target no requester */
	if (!(pkt->info->flags & XIB_OPF_REQ)) {
		if (qp->ibqp.qp_type == XIB_QPT_XRC_RECV)
			goto drop;
		t0 = xib_hca_prof_begin();
		xib_hca_comp_recv(qp, skb, pkt);
		xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_RX_COMP, t0);
		return;
	}
	if (qp->ibqp.qp_type == XIB_QPT_XRC_SEND)
		goto drop;
	if (state == XIB_QPS_RTR)	/* a request in RTR (RC, UC) */
		xib_hca_qp_comm_est(qp);
	if (state != XIB_QPS_RTR && state != XIB_QPS_RTS &&
	    state != XIB_QPS_SQD && state != XIB_QPS_SQE)
		goto drop;
	t0 = xib_hca_prof_begin();
	switch (qp->ibqp.qp_type) {
	case XIB_QPT_UD:
		xib_hca_ud_recv(qp, skb, pkt);
		break;
	case XIB_QPT_RC:
		xib_hca_rc_recv(qp, skb, pkt);
		break;
	case XIB_QPT_UC:
		xib_hca_uc_recv(qp, pkt);
		break;
	case XIB_QPT_XRC_RECV:
		xib_hca_xrc_recv(qp, pkt);
		break;
	default:
		goto drop;
	}
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_RX_RESP, t0);
	return;
drop:
	xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_QP_STATE);
}

/**
 * xib_hca_recv() - a packet for @hca from the network side
 * @hca: the device
 * @skb: data at the BTH, ICRC checked and trimmed
 *
 * Softirq context; consumes @skb.
 */
void xib_hca_recv(struct xib_hca_dev *hca, struct sk_buff *skb)
{
	struct xib_hca_pkt pkt;
	enum xib_hca_stat why;
	struct xib_qp *ibqp;
	u64 t0;
	u16 pkey;

	xib_hca_stat_inc(hca, XIB_HCA_STAT_RX_PACKETS);
	xib_hca_stat_add(hca, XIB_HCA_STAT_RX_BYTES, skb->len + XIB_ICRC_LEN);
	why = XIB_HCA_STAT_RX_MALFORMED;
	t0 = xib_hca_prof_begin();
	if (skb_linearize(skb) ||
	    xib_hca_parse(skb->data, skb->len + XIB_ICRC_LEN, &pkt))
		goto drop;
	xib_hca_prof_end(hca, XIB_HCA_PROF_RX_PARSE, t0);
	trace_xib_hca_rx(hca->xdev.index, xib_bth_opcode(pkt.bth),
			 xib_bth_dqpn(pkt.bth), xib_bth_psn(pkt.bth),
			 skb->len + XIB_ICRC_LEN);
	why = XIB_HCA_STAT_RX_DROP_PKEY;
	pkey = xib_bth_pkey(pkt.bth);
	if ((pkey & 0x7fff) != (XIB_HCA_DEFAULT_PKEY & 0x7fff))
		goto drop;
	/* QP1: the GSI's datagrams go to the MAD layer (hca_gsi.c) */
	if (xib_bth_dqpn(pkt.bth) == 1) {
		xib_hca_gsi_recv(hca, skb, &pkt);
		consume_skb(skb);
		return;
	}
	/* multicast: to every attached QP (hca_mcast.c) */
	if (xib_bth_dqpn(pkt.bth) == XIB_HCA_MCAST_QPN) {
		xib_hca_mcast_recv(hca, skb, &pkt);
		consume_skb(skb);
		return;
	}
	why = XIB_HCA_STAT_RX_DROP_UNKNOWN_QP;
	t0 = xib_hca_prof_begin();
	ibqp = xib_qp_get_by_num(&hca->xdev, xib_bth_dqpn(pkt.bth));
	xib_hca_prof_end(hca, XIB_HCA_PROF_RX_QP, t0);
	if (!ibqp)
		goto drop;
	xib_hca_dispatch(to_hca_qp(ibqp), skb, &pkt);
	xib_qp_put(ibqp);
	consume_skb(skb);
	return;
drop:
	xib_hca_stat_inc(hca, why);
	kfree_skb(skb);
}
