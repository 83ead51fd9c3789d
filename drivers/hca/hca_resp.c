// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca responder: UD receives, RC SEND (with immediate, with
 * invalidate), RDMA WRITE (with immediate), RDMA READ and atomic
 * (CMP_SWAP, FETCH_ADD) requests, ACKs and NAKs; UC SEND and RDMA WRITE
 * (with immediate).
 * xib_hca_recv() (hca_recv.c) hands it the request packets; responses
 * (ACK, read response, atomic ACKNOWLEDGE) for the requester go to the
 * completer (hca_comp.c).
 *
 * RC responder: packets must arrive in PSN order.  A duplicate SEND or
 * WRITE is acknowledged again (when it asks for an ACK) and not executed
 * again; a duplicate READ is answered again, from the response its PSN
 * names, out of the responder resources (struct xib_hca_rd_res,
 * max_dest_rd_atomic of them); an atomic executes when it arrives, keeps
 * its original data in a responder resource and is answered from there,
 * then and for every duplicate of it (the replay cache: never executed
 * twice); the first packet ahead of the expected PSN draws a PSN
 * sequence NAK, the rest of the burst is dropped until the expected PSN
 * comes, and NAKed again if it keeps coming a NAK round trip later
 * (xib_hca_rc_seq_nak()).  Before that NAK, an RC responder keeps what
 * arrives early for a while, in case the gap is the network's reordering
 * (xib_hca_ooo_hold(), hca_retx.c "Keeping what arrives early"); the NAK
 * goes out only if the gap outlives that wait.  A SEND without a posted
 * receive WQE draws an RNR NAK.  An ACK answers each packet that asks for
 * one (AckReq), as rdma_rxe's responder does, and acknowledges everything
 * before it; the requester asks where it will wait for the answer
 * (xib_hca_ackreq()).  READ responses are sent by the worker
 * (xib_hca_resp_process()), never from softirq, and an ACK decided while
 * some are pending waits for them; so does an atomic's ACKNOWLEDGE (it is
 * sent at once only when no response is pending).
 *
 * UC responder (xib_hca_uc_recv()): no ACK, no NAK, no duplicate
 * detection.  The PSN and message-sequence rules are the pure
 * xib_hca_uc_classify() (hca_retx.c): a lost or misplaced packet aborts
 * the message in progress, whose receive WQE is kept uncompleted for the
 * next message, and the next FIRST or ONLY packet starts clean at its own
 * PSN.  A missing receive WQE or an R_Key, bounds or access violation
 * drops the message silently.  A SEND longer than its receive WQE
 * completes the WQE with LOC_LEN_ERR (the IBTA's local length error) and
 * drops the rest of the message; the QP stays in RTS, since nothing can
 * tell the requester on UC.  rdma_rxe keeps the QP up as well, but drops
 * such a message without completing the WQE (with an SRQ it completes it
 * with REM_INV_REQ_ERR).  Errors of the receive queue
 * itself (a broken WQE, a CQ overflow) move the QP to ERR as for RC.
 *
 * R_Keys (RETH, AtomicETH) name an MR or a memory window; both are
 * resolved by the core (xib_rkey_get_mr()), which checks a window's
 * state, key, PD, QP (type 2B), access and bounds, not the MR's rights.
 * The PD is the QP's, or for an XRC target, which has none, that of the
 * XRC SRQ the request's XRCETH names (IBTA Annex A14, as mlx5 does):
 * xib_hca_qp_pd() for what executes under rq.lock, the SRQ a READ's
 * responder resource holds for its responses (struct xib_hca_rd_res).
 * A type 2 window is bound to a QP with a send queue, never to a target,
 * so through a target only MRs and type 1 windows are reached, and a
 * SEND with invalidate finds no window it may free.
 * A SEND with invalidate frees the type 2 window its IETH names
 * (xib_invalidate_mw()) when its last packet arrives, before the receive
 * completes with XIB_HCA_WC_WITH_INV and the rkey; if that window is
 * not one this QP may invalidate, the request is NAKed with a remote
 * access error and the QP goes to ERR (its receive WQE is flushed).
 *
 * Locking: the responder state is under qp->rq.lock; it is dropped
 * before any packet is sent (hca.h).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>

#include "hca.h"
#include "hca_trace.h"

static unsigned int reorder_wait_us = 2000;
module_param(reorder_wait_us, uint, 0644);
MODULE_PARM_DESC(reorder_wait_us,
		 "longest wait (us) for a late RC request before its gap is NAKed, keeping what came early meanwhile (default 2000; 0: NAK at once)");

/* An ACK, NAK or ATOMIC ACKNOWLEDGE (@atomic: with @orig). */
static void xib_hca_xmit_ack(struct xib_hca_qp *qp, bool atomic, u8 syndrome,
			     u32 psn, u32 msn, u64 orig)
{
	u64 t0 = xib_hca_prof_begin();
	struct xib_hca_hdr_fields f = {};
	struct xib_hca_path path;
	struct sk_buff *skb;
	void *payload;

	/* RC's, or XRC's from an XRC target (no XRCETH on responses) */
	f.opcode = XIB_OPCODE(xib_hca_qp_transport(qp), atomic ?
			      XIB_OP_ATOMIC_ACKNOWLEDGE : XIB_OP_ACKNOWLEDGE);
	f.orig = orig;
	f.syndrome = syndrome;
	f.msn = msn & XIB_MSN_MASK;
	f.psn = psn & XIB_PSN_MASK;
	spin_lock_bh(&qp->rq.lock);
	f.dqpn = qp->dest_qpn;
	path = qp->path;
	spin_unlock_bh(&qp->rq.lock);
	skb = xib_hca_build_pkt(qp, &f, 0, &payload);
	if (!skb)
		return;
	if ((syndrome & XIB_AETH_TYPE_MASK) != XIB_AETH_ACK)
		trace_xib_hca_nak_sent(qp->ibqp.device->index, qp->ibqp.qp_num,
				       syndrome, f.psn);
	switch (syndrome & XIB_AETH_TYPE_MASK) {
	case XIB_AETH_RNR_NAK:
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RNR_NAKS_SENT);
		break;
	case XIB_AETH_NAK:
		xib_hca_stat_inc(qp_hca(qp),
				 (syndrome & XIB_AETH_VALUE_MASK) ==
				 XIB_AETH_NAK_PSN_SEQ ?
				 XIB_HCA_STAT_SEQ_NAKS_SENT :
				 XIB_HCA_STAT_ERR_NAKS_SENT);
		break;
	}
	xib_hca_xmit(qp_hca(qp), skb, &path);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_ACK, t0);
}

/**
 * xib_hca_send_ack() - send an ACK or NAK
 * @qp: the RC QP
 * @syndrome: AETH syndrome
 * @psn: BTH PSN
 * @msn: AETH MSN
 *
 * Called without QP locks (it may recurse into the receive path).
 */
void xib_hca_send_ack(struct xib_hca_qp *qp, u8 syndrome, u32 psn, u32 msn)
{
	xib_hca_xmit_ack(qp, false, syndrome, psn, msn, 0);
}

/*
 * An ACK or NAK the responder decided on, sent after the lock is dropped;
 * @atomic: an ATOMIC ACKNOWLEDGE with @orig.
 */
struct xib_hca_ack {
	bool send;
	bool atomic;
	u8 syndrome;
	u32 psn;
	u32 msn;
	u64 orig;
};

static void xib_hca_set_ack(struct xib_hca_ack *ack, u8 syndrome, u32 psn,
			    u32 msn)
{
	ack->send = true;
	ack->atomic = false;
	ack->syndrome = syndrome;
	ack->psn = psn;
	ack->msn = msn;
}

static void xib_hca_nak_set(struct xib_hca_qp *qp, struct xib_hca_ack *ack,
			    u8 code, u32 psn)
{
	xib_hca_set_ack(ack, XIB_AETH_NAK | code, psn, qp->rq.resp.msn);
}

/* Write a receive CQE; moves the QP to ERR if the CQ overflowed. */
static void xib_hca_recv_cqe(struct xib_hca_qp *qp, struct xib_hca_cqe *cqe,
			     bool solicited)
{
	/* an XRC target's receives complete on their XRC SRQ's CQ */
	struct xib_cq *cq = qp->xsrq ? qp->xsrq->cq : qp->ibqp.recv_cq;

	lockdep_assert_held(&qp->rq.lock);
	cqe->qp_num = qp->ibqp.qp_num;
	if (xib_hca_cq_post(to_hca_cq(cq), cqe, solicited))
		xib_hca_qp_error(qp);
}

static void xib_hca_recv_err(struct xib_hca_qp *qp, u64 wr_id, u8 status)
{
	struct xib_hca_cqe cqe = {
		.wr_id = wr_id,
		.status = status,
		.opcode = XIB_HCA_WC_RECV,
	};

	xib_hca_recv_cqe(qp, &cqe, true);
}

/*
 * Take and check the next receive WQE.  Returns 0, -EAGAIN (none posted),
 * or another negative errno after completing it in error / breaking the
 * QP.
 */
static int xib_hca_take_rwqe(struct xib_hca_qp *qp, struct xib_hca_rwqe *wqe)
{
	int ret = xib_hca_get_rwqe(qp, wqe);

	if (ret == -EAGAIN)
		return ret;
	if (ret == -EIO) {
		xib_hca_qp_event(qp, XIB_EVENT_QP_FATAL);
		xib_hca_qp_error(qp);
		return ret;
	}
	if (ret) {
		xib_hca_recv_err(qp, wqe->wr_id, XIB_HCA_WC_LOC_QP_OP_ERR);
		xib_hca_qp_error(qp);
		return ret;
	}
	ret = xib_hca_sge_check(qp, wqe->sge, wqe->num_sge,
				XIB_ACCESS_LOCAL_WRITE, &wqe->length);
	if (ret) {
		xib_hca_recv_err(qp, wqe->wr_id, ret == -EMSGSIZE ?
				 XIB_HCA_WC_LOC_LEN_ERR :
				 XIB_HCA_WC_LOC_PROT_ERR);
		xib_hca_qp_error(qp);
		return ret;
	}
	return 0;
}

/*
 * The responder's receive WQE for the message at @psn, into
 * qp->rq.resp.wqe.  Without one, @ack becomes an RNR NAK (-EAGAIN); a
 * broken queue NAKs the request as a remote operational error (-EIO).
 */
static int xib_hca_resp_take_wqe(struct xib_hca_qp *qp, struct xib_hca_ack *ack,
				 u32 psn)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	int ret;

	ret = xib_hca_take_rwqe(qp, &r->wqe);
	if (ret == -EAGAIN) {
		xib_hca_set_ack(ack, XIB_AETH_RNR_NAK |
				(qp->min_rnr_timer & XIB_AETH_VALUE_MASK),
				psn, r->msn);
		/* what follows is dropped silently until @psn comes again */
		r->nak_sent = true;
		r->nak_seq = false;
		return -EAGAIN;
	}
	if (ret) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_OP, psn);
		return -EIO;
	}
	r->has_wqe = true;
	return 0;
}

/* --- UD ------------------------------------------------------------------ */

/* The 40-byte GRH area of a UD receive: the packet's IP header. */
static void xib_hca_grh_area(struct sk_buff *skb, u8 grh[40])
{
	memset(grh, 0, 40);
	if (xib_hca_rx_cb(skb)->ipv6)
		skb_copy_bits(skb, skb_network_offset(skb), grh, 40);
	else
		skb_copy_bits(skb, skb_network_offset(skb), grh + 20, 20);
}

/**
 * xib_hca_ud_recv() - a UD request packet for @qp
 * @qp: the UD QP, in RTR or a later state
 * @skb: the packet (its IP header fills the GRH area)
 * @pkt: its parsed headers
 *
 * Softirq context.  Does not consume @skb.
 */
void xib_hca_ud_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		     const struct xib_hca_pkt *pkt)
{
	const struct xib_deth *deth = xib_hca_pkt_hdr(pkt, XIB_HDR_DETH);
	const struct xib_immdt *imm = xib_hca_pkt_hdr(pkt, XIB_HDR_IMMDT);
	struct xib_hca_rwqe *wqe = &qp->rq.resp.wqe;
	struct xib_hca_cqe cqe = {};
	u8 grh[40];
	int ret;

	if (xib_deth_qkey(deth) != qp->qkey) {
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_QKEY);
		return;
	}
	spin_lock_bh(&qp->rq.lock);
	if (qp->dead)
		goto out;
	ret = xib_hca_take_rwqe(qp, wqe);
	if (ret) {
		if (ret == -EAGAIN)	/* no receive WQE: UD drops */
			xib_hca_stat_inc(qp_hca(qp),
					 XIB_HCA_STAT_RX_DROP_NO_RECV_WQE);
		goto out;
	}
	cqe.wr_id = wqe->wr_id;
	cqe.opcode = XIB_HCA_WC_RECV;
	cqe.byte_len = 40 + pkt->payload_len;
	if (cqe.byte_len > wqe->length) {
		cqe.status = XIB_HCA_WC_LOC_LEN_ERR;
		goto complete;
	}
	xib_hca_grh_area(skb, grh);
	if (xib_hca_sge_copy(qp, wqe->sge, wqe->num_sge, 0, grh, 40, true) ||
	    xib_hca_sge_copy(qp, wqe->sge, wqe->num_sge, 40,
			     (void *)xib_hca_pkt_payload(pkt),
			     pkt->payload_len, true)) {
		cqe.status = XIB_HCA_WC_LOC_PROT_ERR;
		goto complete;
	}
	cqe.src_qp = xib_deth_sqpn(deth);
	cqe.wc_flags = XIB_HCA_WC_GRH;
	if (imm) {
		cqe.imm_data = xib_immdt_imm(imm);
		cqe.wc_flags |= XIB_HCA_WC_WITH_IMM;
	}
	cqe.network_hdr_type = xib_hca_rx_cb(skb)->ipv6 ? 3 : 2;
complete:
	xib_hca_recv_cqe(qp, &cqe, xib_bth_se(pkt->bth));
out:
	spin_unlock_bh(&qp->rq.lock);
}

/* --- RC: SEND ------------------------------------------------------------- */

/*
 * Copy a SEND packet's payload into the receive WQE in progress (RC and
 * UC) and complete the WQE on the message's last packet.  A copy fault
 * completes it with LOC_PROT_ERR and moves the QP to ERR: -EIO.
 */
static int xib_hca_send_place(struct xib_hca_qp *qp,
			      const struct xib_hca_pkt *pkt)
{
	const struct xib_immdt *imm = xib_hca_pkt_hdr(pkt, XIB_HDR_IMMDT);
	const struct xib_ieth *ieth = xib_hca_pkt_hdr(pkt, XIB_HDR_IETH);
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_cqe cqe = {};

	if (xib_hca_sge_copy(qp, r->wqe.sge, r->wqe.num_sge, r->off,
			     (void *)xib_hca_pkt_payload(pkt),
			     pkt->payload_len, true)) {
		xib_hca_recv_err(qp, r->wqe.wr_id, XIB_HCA_WC_LOC_PROT_ERR);
		r->has_wqe = false;
		xib_hca_qp_error(qp);
		return -EIO;
	}
	r->off += pkt->payload_len;
	if (!(pkt->info->flags & XIB_OPF_LAST))
		return 0;
	cqe.wr_id = r->wqe.wr_id;
	cqe.opcode = XIB_HCA_WC_RECV;
	cqe.byte_len = r->off;
	cqe.src_qp = qp->dest_qpn;
	if (imm) {
		cqe.imm_data = xib_immdt_imm(imm);
		cqe.wc_flags = XIB_HCA_WC_WITH_IMM;
	} else if (ieth) {
		/* invalidated in xib_hca_rc_send(); host order, see hca-abi.h */
		cqe.imm_data = (__force __be32)xib_ieth_rkey(ieth);
		cqe.wc_flags = XIB_HCA_WC_WITH_INV;
	}
	xib_hca_recv_cqe(qp, &cqe, xib_bth_se(pkt->bth));
	r->has_wqe = false;
	return 0;
}

static bool xib_hca_op_is(u8 op, u8 first, u8 last)
{
	return op >= first && op <= last;
}

/* Place a SEND packet; returns 0 or an AETH NAK code (+1), RNR: -EAGAIN. */
static int xib_hca_rc_send(struct xib_hca_qp *qp,
			   const struct xib_hca_pkt *pkt,
			   struct xib_hca_ack *ack)
{
	const struct xib_ieth *ieth = xib_hca_pkt_hdr(pkt, XIB_HDR_IETH);
	struct xib_hca_resp *r = &qp->rq.resp;
	u32 psn = xib_bth_psn(pkt->bth);
	int ret;

	if (!r->has_wqe) {
		ret = xib_hca_resp_take_wqe(qp, ack, psn);
		if (ret)
			return ret;
		r->off = 0;
	}
	/* after the WQE is taken: an RNR NAK must not have invalidated */
	if (ieth && xib_invalidate_mw(&qp->ibqp, xib_hca_qp_pd(qp),
				      xib_ieth_rkey(ieth))) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_ACCESS, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_ACCESS_ERR);
		xib_hca_qp_error(qp);
		return -EACCES;
	}
	if (r->off + pkt->payload_len > r->wqe.length) {
		xib_hca_recv_err(qp, r->wqe.wr_id, XIB_HCA_WC_LOC_LEN_ERR);
		r->has_wqe = false;
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_error(qp);
		return -EIO;
	}
	ret = xib_hca_send_place(qp, pkt);
	if (ret)
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_OP, psn);
	return ret;
}

/* --- RC: WRITE ------------------------------------------------------------ */

/* Check the RETH of a WRITE or READ against @pd: NAK code or 0. */
static int xib_hca_check_reth(struct xib_hca_qp *qp, const struct xib_pd *pd,
			      u64 va, u32 rkey, u32 len, u32 access)
{
	struct xib_mr *mr;

	if (!(qp->access & access))
		return -EACCES;
	if (!len)
		return 0;
	mr = xib_rkey_get_mr(&qp->ibqp, pd, rkey, &va, len, access);
	if (!mr)
		return -EACCES;
	xib_mr_put(mr);
	return 0;
}

/*
 * Copy between the memory an rkey names (an MR, or a window's MR) and a
 * buffer; rechecked each time, against @pd.
 */
static int xib_hca_rkey_copy(struct xib_hca_qp *qp, const struct xib_pd *pd,
			     u32 rkey, u64 va, void *buf, u32 len, u32 access)
{
	struct xib_mr *mr;
	int ret;

	if (!len)
		return 0;
	mr = xib_rkey_get_mr(&qp->ibqp, pd, rkey, &va, len, access);
	if (!mr)
		return -EACCES;
	if (access == XIB_ACCESS_REMOTE_WRITE)
		ret = xib_umem_copy_to(mr->umem, va - mr->iova, buf, len);
	else
		ret = xib_umem_copy_from(buf, mr->umem, va - mr->iova, len);
	xib_mr_put(mr);
	return ret ? -EACCES : 0;
}

static int xib_hca_rc_write(struct xib_hca_qp *qp,
			    const struct xib_hca_pkt *pkt,
			    struct xib_hca_ack *ack)
{
	const struct xib_reth *reth = xib_hca_pkt_hdr(pkt, XIB_HDR_RETH);
	const struct xib_immdt *imm = xib_hca_pkt_hdr(pkt, XIB_HDR_IMMDT);
	struct xib_hca_resp *r = &qp->rq.resp;
	u32 psn = xib_bth_psn(pkt->bth);
	struct xib_hca_cqe cqe = {};
	int ret;

	if (reth) {
		r->va = xib_reth_va(reth);
		r->rkey = xib_reth_rkey(reth);
		r->wlen = xib_reth_len(reth);
		r->off = 0;
		if (xib_hca_check_reth(qp, xib_hca_qp_pd(qp), r->va, r->rkey,
				       r->wlen, XIB_ACCESS_REMOTE_WRITE)) {
			xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_ACCESS, psn);
			xib_hca_qp_event(qp, XIB_EVENT_QP_ACCESS_ERR);
			xib_hca_qp_error(qp);
			return -EACCES;
		}
	}
	if (r->off + pkt->payload_len > r->wlen ||
	    ((pkt->info->flags & XIB_OPF_LAST) &&
	     r->off + pkt->payload_len != r->wlen)) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return -EINVAL;
	}
	if (imm && !r->has_wqe) {
		/* WRITE with immediate consumes a receive WQE */
		ret = xib_hca_resp_take_wqe(qp, ack, psn);
		if (ret)
			return ret;
	}
	if (xib_hca_rkey_copy(qp, xib_hca_qp_pd(qp), r->rkey, r->va + r->off,
			      (void *)xib_hca_pkt_payload(pkt),
			      pkt->payload_len, XIB_ACCESS_REMOTE_WRITE)) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_ACCESS, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_ACCESS_ERR);
		xib_hca_qp_error(qp);
		return -EACCES;
	}
	r->off += pkt->payload_len;
	if (!imm)
		return 0;
	cqe.wr_id = r->wqe.wr_id;
	cqe.opcode = XIB_HCA_WC_RECV_RDMA_WITH_IMM;
	cqe.byte_len = r->wlen;
	cqe.src_qp = qp->dest_qpn;
	cqe.imm_data = xib_immdt_imm(imm);
	cqe.wc_flags = XIB_HCA_WC_WITH_IMM;
	xib_hca_recv_cqe(qp, &cqe, xib_bth_se(pkt->bth));
	r->has_wqe = false;
	return 0;
}

/* --- RC: READ request ------------------------------------------------------ */

static struct xib_hca_rd_res *xib_hca_rd_at(struct xib_hca_resp *r, u32 i)
{
	return &r->rd[i % XIB_HCA_MAX_RD_ATOM];
}

/*
 * A resource slot taken for a new READ or atomic: it lets go of the XRC
 * SRQ its last use held and holds @srq (NULL: none).  The put may be the
 * last; an SRQ's release is deferred out of atomic context (core).
 */
static void xib_hca_res_srq_set(struct xib_hca_rd_res *res,
				struct xib_srq *srq)
{
	if (srq)
		kref_get(&srq->ref);
	if (res->srq)
		xib_srq_put(res->srq);
	res->srq = srq;
}

/* The PD a READ's responses are checked against (see xib_hca_rd_res). */
static const struct xib_pd *xib_hca_res_pd(const struct xib_hca_qp *qp,
					   const struct xib_hca_rd_res *res)
{
	return res->srq ? res->srq->pd : qp->ibqp.pd;
}

static int xib_hca_rc_read(struct xib_hca_qp *qp,
			   const struct xib_hca_pkt *pkt,
			   struct xib_hca_ack *ack, u32 *npsn)
{
	const struct xib_reth *reth = xib_hca_pkt_hdr(pkt, XIB_HDR_RETH);
	struct xib_hca_resp *r = &qp->rq.resp;
	u32 psn = xib_bth_psn(pkt->bth);
	struct xib_hca_rd_res *res;
	u32 len = xib_reth_len(reth);

	res = xib_hca_res_new(r, qp->max_dest_rd_atomic);
	if (!res || len > XIB_HCA_MAX_MSG) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return -EINVAL;
	}
	if (xib_hca_check_reth(qp, xib_hca_qp_pd(qp), xib_reth_va(reth),
			       xib_reth_rkey(reth), len,
			       XIB_ACCESS_REMOTE_READ)) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_REM_ACCESS, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_ACCESS_ERR);
		xib_hca_qp_error(qp);
		return -EACCES;
	}
	res->psn = psn;
	res->va = xib_reth_va(reth);
	res->rkey = xib_reth_rkey(reth);
	res->len = len;
	res->sent = 0;
	res->first = 0;
	res->replay = false;
	res->atomic = false;
	res->orig = 0;
	res->npkts = max_t(u32, 1, DIV_ROUND_UP(len, qp->mtu));
	/* an XRC target's responses use this SRQ's PD, whatever comes next */
	xib_hca_res_srq_set(res, qp->xsrq);
	WRITE_ONCE(r->rd_tail, r->rd_tail + 1);
	*npsn = res->npkts;
	/* the worker sends the responses; it may be asleep */
	xib_hca_kick_engine(qp_hca(qp));
	return 0;
}

/*
 * A duplicate READ: answer it again from the response its PSN names
 * (a requester asks again from its first missing response), if the
 * resource is still held; otherwise it is dropped.  A duplicate atomic:
 * its ACKNOWLEDGE again, with the original data the resource kept.
 */
static void xib_hca_rc_dup_res(struct xib_hca_qp *qp, u32 psn, bool atomic)
{
	lockdep_assert_held(&qp->rq.lock);
	if (xib_hca_rd_replay(&qp->rq.resp, qp->max_dest_rd_atomic, psn,
			      atomic))
		xib_hca_kick_engine(qp_hca(qp));
}

/* --- RC: atomics ------------------------------------------------------------ */

/*
 * Check and execute an atomic: 0 (@orig set) or an AETH NAK code.  The
 * PD is the QP's, an XRC target's that of the message's XRC SRQ.
 */
static int xib_hca_atomic_do(struct xib_hca_qp *qp, u64 va, u32 rkey,
			     bool cmp_swap, u64 swap_add, u64 compare,
			     u64 *orig)
{
	const struct xib_pd *pd = xib_hca_qp_pd(qp);
	struct xib_mr *mr = NULL;
	int code, ret;

	if ((qp->access & XIB_ACCESS_REMOTE_ATOMIC) && !(va & 7))
		mr = xib_key_is_mw(rkey) ?
		     xib_rkey_get_mr(&qp->ibqp, pd, rkey, &va, sizeof(u64),
				     XIB_ACCESS_REMOTE_ATOMIC) :
		     xib_mr_get_by_key(qp->ibqp.device, rkey);
	/* a window's MR: its checks are done, the MR's rights not needed */
	if (mr && xib_key_is_mw(rkey))
		code = 0;
	else
		code = xib_hca_atomic_check(qp->access, pd, mr, va, rkey);
	if (!code) {
		ret = xib_hca_atomic_exec(mr->umem, va - mr->iova, cmp_swap,
					  swap_add, compare, orig);
		if (ret == -EINVAL)	/* the word is not aligned in memory */
			code = XIB_AETH_NAK_INVALID;
		else if (ret)
			code = XIB_AETH_NAK_REM_ACCESS;
	}
	if (mr)
		xib_mr_put(mr);
	return code;
}

/*
 * A new atomic: executed now, its result kept in a responder resource.
 * The ATOMIC ACKNOWLEDGE goes out at once (@ack) when no response is
 * pending, else the worker sends it after the READ responses before it.
 */
static int xib_hca_rc_atomic(struct xib_hca_qp *qp,
			     const struct xib_hca_pkt *pkt,
			     struct xib_hca_ack *ack)
{
	const struct xib_atmeth *atm = xib_hca_pkt_hdr(pkt, XIB_HDR_ATMETH);
	bool cmp_swap = (xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK) ==
			XIB_OP_COMPARE_SWAP;
	struct xib_hca_resp *r = &qp->rq.resp;
	u32 psn = xib_bth_psn(pkt->bth);
	struct xib_hca_rd_res *res;
	u64 orig;
	int code;

	res = xib_hca_res_new(r, qp->max_dest_rd_atomic);
	if (!res) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return -EINVAL;
	}
	code = xib_hca_atomic_do(qp, xib_atmeth_va(atm), xib_atmeth_rkey(atm),
				 cmp_swap, xib_atmeth_swap_add(atm),
				 xib_atmeth_compare(atm), &orig);
	if (code) {
		xib_hca_nak_set(qp, ack, code, psn);
		xib_hca_qp_event(qp, code == XIB_AETH_NAK_REM_ACCESS ?
				 XIB_EVENT_QP_ACCESS_ERR : XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return -EACCES;
	}
	res->psn = psn;
	res->va = xib_atmeth_va(atm);
	res->rkey = xib_atmeth_rkey(atm);
	res->len = sizeof(u64);
	res->npkts = 1;
	res->first = 0;
	res->replay = false;
	res->atomic = true;
	res->orig = orig;
	/* answered from @orig alone: no memory, no PD, no SRQ kept */
	xib_hca_res_srq_set(res, NULL);
	r->msn = (r->msn + 1) & XIB_MSN_MASK;
	if (r->rd_head == r->rd_tail) {
		/* nothing before it to answer: answered now, kept for replay */
		res->sent = 1;
		WRITE_ONCE(r->rd_tail, r->rd_tail + 1);
		WRITE_ONCE(r->rd_head, r->rd_tail);
		xib_hca_set_ack(ack, XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID,
				psn, r->msn);
		ack->atomic = true;
		ack->orig = orig;
		return 0;
	}
	res->sent = 0;
	WRITE_ONCE(r->rd_tail, r->rd_tail + 1);
	xib_hca_kick_engine(qp_hca(qp));
	return 0;
}

/* --- RC dispatch ------------------------------------------------------------ */

/* Is opcode @op allowed after what came before (message boundaries)? */
static bool xib_hca_rc_seq_ok(struct xib_hca_resp *r, u8 op, u8 flags)
{
	bool write = xib_hca_op_is(op, XIB_OP_RDMA_WRITE_FIRST,
				   XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE);

	if (!r->in_msg)
		return flags & XIB_OPF_FIRST;
	return !(flags & XIB_OPF_FIRST) && write == r->is_write;
}

/* An in-order request packet; fills @ack.  Returns PSNs consumed (0: none) */
static u32 xib_hca_rc_request(struct xib_hca_qp *qp,
			      const struct xib_hca_pkt *pkt,
			      struct xib_hca_ack *ack)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u8 op = xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK;
	u8 flags = pkt->info->flags;
	u32 psn = xib_bth_psn(pkt->bth);
	u32 npsn = 1;
	int ret;

	if (!xib_hca_rc_seq_ok(r, op, flags) ||
	    ((op == XIB_OP_RDMA_READ_REQUEST || op == XIB_OP_COMPARE_SWAP ||
	      op == XIB_OP_FETCH_ADD) && r->in_msg)) {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return 0;
	}
	/* executed, MSN counted and answered by the atomic path */
	if (op == XIB_OP_COMPARE_SWAP || op == XIB_OP_FETCH_ADD)
		return xib_hca_rc_atomic(qp, pkt, ack) ? 0 : 1;
	if (op == XIB_OP_RDMA_READ_REQUEST) {
		ret = xib_hca_rc_read(qp, pkt, ack, &npsn);
	} else if (xib_hca_op_is(op, XIB_OP_SEND_FIRST,
				 XIB_OP_SEND_ONLY_WITH_IMMEDIATE) ||
		   op == XIB_OP_SEND_LAST_WITH_INVALIDATE ||
		   op == XIB_OP_SEND_ONLY_WITH_INVALIDATE) {
		ret = xib_hca_rc_send(qp, pkt, ack);
		r->is_write = false;
	} else if (xib_hca_op_is(op, XIB_OP_RDMA_WRITE_FIRST,
				 XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE)) {
		ret = xib_hca_rc_write(qp, pkt, ack);
		r->is_write = true;
	} else {
		xib_hca_nak_set(qp, ack, XIB_AETH_NAK_INVALID, psn);
		xib_hca_qp_event(qp, XIB_EVENT_QP_REQ_ERR);
		xib_hca_qp_error(qp);
		return 0;
	}
	if (ret)
		return 0;
	r->in_msg = !(flags & XIB_OPF_LAST);
	if (flags & XIB_OPF_LAST)
		r->msn = (r->msn + 1) & XIB_MSN_MASK;
	if (op != XIB_OP_RDMA_READ_REQUEST && xib_bth_ackreq(pkt->bth))
		xib_hca_set_ack(ack, XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID,
				psn, r->msn);
	return npsn;
}

/*
 * An ACK, an RNR NAK or a PSN sequence NAK must not overtake the READ
 * responses of earlier requests (responses go in PSN order, IBTA 9.7.5.1;
 * a requester takes an ACK past an incomplete READ as lost responses).
 * While responses are still to be sent, the worker sends it after them.
 * A later one replaces it: ACKs are cumulative.
 */
static bool xib_hca_hold_ack(struct xib_hca_qp *qp, struct xib_hca_ack *ack)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u8 type = ack->syndrome & XIB_AETH_TYPE_MASK;

	lockdep_assert_held(&qp->rq.lock);
	if (r->rd_head == r->rd_tail)
		return false;
	if (type == XIB_AETH_NAK &&
	    (ack->syndrome & XIB_AETH_VALUE_MASK) != XIB_AETH_NAK_PSN_SEQ)
		return false;	/* fatal: the QP is in ERR, no worker sends */
	r->ack_held = true;
	r->ack_syn = ack->syndrome;
	r->ack_psn = ack->psn;
	r->ack_msn = ack->msn;
	xib_hca_kick_engine(qp_hca(qp));
	return true;
}

/*
 * IBTA 9.7.5.2.2: a duplicate SEND or WRITE is acknowledged again (with
 * the PSN of the last request executed) and not executed again; only the
 * packets that ask for an ACK draw one, so that a go-back-N
 * retransmission of a long message draws as many ACKs as the first one
 * did.  A duplicate READ is executed again from its PSN; a duplicate
 * atomic is answered again from its resource, never executed again.
 */
static void xib_hca_rc_dup(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt,
			   struct xib_hca_ack *ack)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u8 op = xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK;

	if (op == XIB_OP_RDMA_READ_REQUEST)
		xib_hca_rc_dup_res(qp, xib_bth_psn(pkt->bth), false);
	else if (op == XIB_OP_COMPARE_SWAP || op == XIB_OP_FETCH_ADD)
		xib_hca_rc_dup_res(qp, xib_bth_psn(pkt->bth), true);
	else if (xib_bth_ackreq(pkt->bth))
		xib_hca_set_ack(ack, XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID,
				xib_psn_add(r->epsn, XIB_PSN_MASK), r->msn);
}

/*
 * A request past the expected PSN: a packet before it was lost or is late,
 * and this one is dropped.  The gap is NAKed when it opens, and again when
 * packets keep coming past it a NAK round trip later (hca_retx.c,
 * "NAKing a gap again"): the NAK or the retransmission it asked for was
 * lost.  Not after an RNR NAK: the requester waits for its RNR timer.
 */
static void xib_hca_rc_seq_nak(struct xib_hca_qp *qp, struct xib_hca_ack *ack)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u64 now = ktime_get_ns();

	lockdep_assert_held(&qp->rq.lock);
	if (!r->nak_sent) {
		r->nak_timed = true;
	} else if (r->nak_seq &&
		   xib_hca_renak_due(r->nak_ns, now,
				     xib_hca_renak_us(&r->nak_rtt))) {
		r->nak_timed = false;	/* Karn: whose retransmission? */
		r->renaks++;
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_SEQ_RENAKS_SENT);
	} else {
		return;
	}
	r->nak_sent = true;
	r->nak_seq = true;
	r->nak_ns = now;
	r->seq_naks_sent++;
	xib_hca_nak_set(qp, ack, XIB_AETH_NAK_PSN_SEQ, r->epsn);
}

/* How long the open gap may wait for a late packet (us). */
static u64 xib_hca_ooo_wait(struct xib_hca_qp *qp)
{
	return xib_hca_ooo_wait_us(&qp->rq.resp.nak_rtt,
				   READ_ONCE(reorder_wait_us));
}

/* The NAK of the open gap when its wait is over; rq.lock held, not dead. */
static void xib_hca_ooo_arm(struct xib_hca_qp *qp)
{
	lockdep_assert_held(&qp->rq.lock);
	hrtimer_start(&qp->rq.ooo_timer,
		      ns_to_ktime(qp->rq.resp.gap_ns +
				  xib_hca_ooo_wait(qp) * NSEC_PER_USEC),
		      HRTIMER_MODE_ABS_SOFT);
}

/*
 * Take the packet kept in @slot out (NULL if none): its reference goes to
 * the caller, the device counts it no more.  rq.lock held.
 */
static struct sk_buff *xib_hca_ooo_take(struct xib_hca_qp *qp,
					unsigned int slot)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct sk_buff *skb = r->ooo[slot];

	lockdep_assert_held(&qp->rq.lock);
	if (skb) {
		r->ooo[slot] = NULL;
		r->nooo--;
		atomic_dec(&qp_hca(qp)->ooo_held);
	}
	return skb;
}

/**
 * xib_hca_ooo_purge() - free the requests @qp keeps out of order
 * @qp: the QP; rq.lock held
 *
 * And forget the gap.  At RESET, at destroy (after @dead is set) and when
 * a packet finds the QP in ERR.
 */
void xib_hca_ooo_purge(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	unsigned int i;

	lockdep_assert_held(&qp->rq.lock);
	for (i = 0; r->nooo && i < XIB_HCA_OOO_SLOTS; i++)
		kfree_skb(xib_hca_ooo_take(qp, i));
	r->gap_ns = 0;
}

/*
 * Keep @skb, a request @psn ahead of the expected PSN, for when the gap
 * closes (RC only).  A copy of a packet kept already is dropped (the
 * first one stays kept); so is a packet too far ahead or beyond the
 * device's room.  rq.lock held.
 * Return: true if the packet of @psn is kept.
 */
static bool xib_hca_ooo_hold(struct xib_hca_qp *qp, struct sk_buff *skb,
			     u32 psn)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_dev *hca = qp_hca(qp);
	unsigned int slot = psn & (XIB_HCA_OOO_SLOTS - 1);
	struct sk_buff *old = r->ooo[slot];

	lockdep_assert_held(&qp->rq.lock);
	if (!skb || !READ_ONCE(reorder_wait_us) ||
	    !xib_hca_ooo_keep(psn, r->epsn, atomic_read(&hca->ooo_held),
			      XIB_HCA_OOO_DEV_MAX))
		return false;
	if (old) {
		if (xib_bth_psn((const struct xib_bth *)old->data) == psn)
			return true;	/* a copy: the first one is kept */
		/* a packet the expected PSN passed (a READ's span): stale */
		kfree_skb(xib_hca_ooo_take(qp, slot));
	}
	atomic_inc(&hca->ooo_held);
	r->ooo[slot] = skb_get(skb);
	r->nooo++;
	xib_hca_stat_inc(hca, XIB_HCA_STAT_RX_OOO_HELD);
	return true;
}

/*
 * The kept packet of the expected PSN, if any, taken out (its reference
 * goes to the caller); kept packets the expected PSN passed are freed.
 */
static struct sk_buff *xib_hca_ooo_next(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct sk_buff *skb = NULL;
	unsigned int slot;

	/*
	 * Without the lock: a packet kept by another CPU before this one's
	 * packet was executed is seen (the lock ordered them); one kept
	 * after is behind a new gap.
	 */
	if (!READ_ONCE(r->nooo))
		return NULL;
	spin_lock_bh(&qp->rq.lock);
	if (!r->nooo)
		goto out;
	if (qp->dead || READ_ONCE(qp->hstate) == XIB_QPS_ERR) {
		xib_hca_ooo_purge(qp);
		goto out;
	}
	slot = r->epsn & (XIB_HCA_OOO_SLOTS - 1);
	skb = xib_hca_ooo_take(qp, slot);
	if (skb && xib_bth_psn((const struct xib_bth *)skb->data) != r->epsn) {
		kfree_skb(skb);		/* stale: the expected PSN passed it */
		skb = NULL;
	}
out:
	/* what is still kept stands behind a new gap from now on */
	if (r->nooo && !skb && !r->gap_ns) {
		r->gap_ns = ktime_get_ns() ?: 1;
		xib_hca_ooo_arm(qp);
	}
	spin_unlock_bh(&qp->rq.lock);
	return skb;
}

/*
 * A request ahead of the expected PSN: kept if it may be (and, if kept,
 * the gap's NAK waits until the gap is xib_hca_ooo_wait_us() old: the
 * timer sends it if no later packet does), else dropped; the gap is NAKed
 * once that wait is over, or at once when the packet could not be kept.
 */
static void xib_hca_rc_ahead(struct xib_hca_qp *qp, struct sk_buff *skb,
			     u32 psn, struct xib_hca_ack *ack)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u64 now = ktime_get_ns();

	lockdep_assert_held(&qp->rq.lock);
	if (!r->gap_ns)
		r->gap_ns = now ?: 1;
	if (xib_hca_ooo_hold(qp, skb, psn) && !r->nak_sent &&
	    !xib_hca_renak_due(r->gap_ns, now, xib_hca_ooo_wait(qp))) {
		xib_hca_ooo_arm(qp);
		return;
	}
	xib_hca_rc_seq_nak(qp, ack);
}

/**
 * xib_hca_ooo_timer() - the wait for a late request is over
 * @t: the QP's ooo_timer
 *
 * The gap is NAKed if it is still open and nothing NAKed it meanwhile.
 * Softirq context (a soft hrtimer).
 *
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart xib_hca_ooo_timer(struct hrtimer *t)
{
	struct xib_hca_qp *qp = container_of(t, struct xib_hca_qp,
					     rq.ooo_timer);
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_ack ack = {};

	spin_lock_bh(&qp->rq.lock);
	if (!qp->dead && READ_ONCE(qp->hstate) != XIB_QPS_ERR &&
	    r->nooo && r->gap_ns && !r->nak_sent) {
		xib_hca_rc_seq_nak(qp, &ack);
		if (ack.send && xib_hca_hold_ack(qp, &ack))
			ack.send = false;
	}
	spin_unlock_bh(&qp->rq.lock);
	if (ack.send)
		xib_hca_xmit_ack(qp, ack.atomic, ack.syndrome, ack.psn, ack.msn,
				 ack.orig);
	return HRTIMER_NORESTART;
}

/*
 * An RC (or XRC) request packet: checks the PSN, executes or acknowledges
 * again, and sends the ACK or NAK it decides on (unless it must wait
 * behind READ responses).  @srq: an XRC target's SRQ for the packet, with
 * a reference, which it swaps with @qp->xsrq between messages (the caller
 * drops what *@srq holds then); for other QPs NULL.
 */
static void xib_hca_rc_recv_srq(struct xib_hca_qp *qp, struct sk_buff *skb,
				const struct xib_hca_pkt *pkt,
				struct xib_srq **srq)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u32 psn = xib_bth_psn(pkt->bth);
	struct xib_hca_ack ack = {};
	bool gap;
	u32 npsn;

	spin_lock_bh(&qp->rq.lock);
	if (qp->dead || READ_ONCE(qp->hstate) == XIB_QPS_ERR)
		goto out;
	/*
	 * An XRC target: a request between messages names the SRQ of the
	 * next; the message in progress (its WQE, its R_Key's PD) keeps the
	 * one its first packet named.
	 */
	if (*srq && !r->has_wqe && !r->in_msg)
		swap(qp->xsrq, *srq);
	switch (xib_hca_psn_classify(psn, r->epsn)) {
	case XIB_HCA_PSN_AHEAD:
		r->ahead++;
		xib_hca_rc_ahead(qp, skb, psn, &ack);
		break;
	case XIB_HCA_PSN_DUPLICATE:
		r->dup_reqs++;
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DUPLICATE_REQUESTS);
		xib_hca_rc_dup(qp, pkt, &ack);
		break;
	case XIB_HCA_PSN_EXPECTED:
		gap = r->nak_sent && r->nak_seq;
		if (gap && r->nak_timed)
			xib_hca_rtt_sample(&r->nak_rtt,
					   min_t(u64, U32_MAX,
						 div_u64(ktime_get_ns() - r->nak_ns,
							 NSEC_PER_USEC)));
		r->nak_sent = false;
		r->gap_ns = 0;
		npsn = xib_hca_rc_request(qp, pkt, &ack);
		r->epsn = xib_psn_add(r->epsn, npsn);
		/*
		 * The gap a sequence NAK reported is closed: acknowledge it
		 * at once rather than at the end of the message.  The
		 * requester learns of the progress a round trip sooner, and
		 * one that acts on a single NAK until an ACK comes (rdma_rxe)
		 * acts on the NAK of the next gap.  Not for a READ: an ACK
		 * past it would say that its responses were lost.
		 */
		if (gap && npsn && !ack.send &&
		    (xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK) !=
		    XIB_OP_RDMA_READ_REQUEST)
			xib_hca_set_ack(&ack,
					XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID,
					psn, r->msn);
		break;
	}
	if (ack.send && xib_hca_hold_ack(qp, &ack))
		ack.send = false;
out:
	spin_unlock_bh(&qp->rq.lock);
	if (ack.send)
		xib_hca_xmit_ack(qp, ack.atomic, ack.syndrome, ack.psn, ack.msn,
				 ack.orig);
}

/**
 * xib_hca_rc_recv() - an RC request packet for @qp
 * @qp: the RC QP, in RTR or a later state
 * @skb: the packet (the caller's reference stays the caller's; one
 *	kept out of order takes its own)
 * @pkt: its parsed headers
 *
 * Then the packets kept out of order that it made the expected ones, in
 * PSN order.  Softirq context.
 */
void xib_hca_rc_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		     const struct xib_hca_pkt *pkt)
{
	struct xib_srq *none = NULL;
	struct xib_hca_pkt next;

	xib_hca_rc_recv_srq(qp, skb, pkt, &none);
	while ((skb = xib_hca_ooo_next(qp))) {
		/* parsed once already: a kept packet is well formed */
		if (!xib_hca_parse(skb->data, skb->len + XIB_ICRC_LEN, &next))
			xib_hca_rc_recv_srq(qp, NULL, &next, &none);
		consume_skb(skb);
	}
}

/**
 * xib_hca_xrc_recv() - a request packet for an XRC target
 * @qp: the XRC_RECV QP, in RTR or a later state
 * @pkt: its parsed headers (XRC opcodes carry an XRCETH)
 *
 * The XRCETH names the XRC SRQ the message is for (IBTA 9.8.2): it must
 * be an XRC SRQ of the target's domain, else the request is NAKed as an
 * invalid request (when it is the one the target expects) and dropped;
 * the target does not change state, since a sender of another domain
 * must not be able to break it.  The SRQ gives a SEND (or WRITE with
 * immediate) its receive WQE and CQ, and every request the PD its
 * R_Keys are checked against: RDMA WRITE, READ, atomics and SEND with
 * invalidate execute as on RC, in the SRQ's PD.  Everything else is
 * RC's responder.
 *
 * Softirq context.
 */
void xib_hca_xrc_recv(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt)
{
	const struct xib_xrceth *x = xib_hca_pkt_hdr(pkt, XIB_HDR_XRCETH);
	u32 psn = xib_bth_psn(pkt->bth);
	struct xib_srq *srq = NULL;
	bool nak;
	u32 msn;

	if (x)
		srq = xib_srq_get_by_num(qp->ibqp.device, xib_xrceth_srqn(x));
	if (srq && srq->srq_type == XIB_SRQT_XRC &&
	    srq->xrcd == qp->ibqp.xrcd) {
		xib_hca_rc_recv_srq(qp, NULL, pkt, &srq);
		if (srq)	/* the reference swapped out, or unused */
			xib_srq_put(srq);
		return;
	}
	if (srq)
		xib_srq_put(srq);
	spin_lock_bh(&qp->rq.lock);
	nak = !qp->dead && READ_ONCE(qp->hstate) != XIB_QPS_ERR &&
	      psn == qp->rq.resp.epsn;
	msn = qp->rq.resp.msn;
	spin_unlock_bh(&qp->rq.lock);
	if (nak)
		xib_hca_send_ack(qp, XIB_AETH_NAK | XIB_AETH_NAK_INVALID, psn,
				 msn);
	else
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_QP_STATE);
}

/* --- UC ----------------------------------------------------------------- */

/*
 * Abort the UC message in progress: what arrived of it is dropped.  A
 * receive WQE it took stays in qp->rq.resp.wqe, uncompleted, for the
 * next message.
 */
static void xib_hca_uc_abort(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;

	lockdep_assert_held(&qp->rq.lock);
	r->in_msg = false;
	r->off = 0;
}

/*
 * The UC responder's receive WQE: 0, or -EAGAIN (none posted: the
 * message is dropped, IBTA class D) or another error after the WQE was
 * completed in error and the QP moved to ERR (a broken WQE, class A).
 */
static int xib_hca_uc_take_wqe(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	int ret;

	if (r->has_wqe)
		return 0;
	ret = xib_hca_take_rwqe(qp, &r->wqe);
	if (ret)
		return ret;
	r->has_wqe = true;
	return 0;
}

/*
 * A UC SEND packet: 0, or a negative errno when the message is dropped.
 * A message longer than the receive WQE completes it with LOC_LEN_ERR;
 * the QP stays in RTS (nothing tells the sender on UC).
 */
static int xib_hca_uc_send(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	int ret;

	ret = xib_hca_uc_take_wqe(qp);
	if (ret)
		return ret;
	if (r->off + pkt->payload_len > r->wqe.length) {
		xib_hca_recv_err(qp, r->wqe.wr_id, XIB_HCA_WC_LOC_LEN_ERR);
		r->has_wqe = false;
		return -EMSGSIZE;
	}
	return xib_hca_send_place(qp, pkt);
}

/*
 * A UC RDMA WRITE packet: 0, or a negative errno when the message is
 * dropped.  The R_Key, bounds and access are checked as for RC; a
 * violation drops the message silently (UC has no NAK) and the QP stays
 * in RTS.  WRITE with immediate takes a receive WQE at its last packet.
 */
static int xib_hca_uc_write(struct xib_hca_qp *qp,
			    const struct xib_hca_pkt *pkt)
{
	const struct xib_reth *reth = xib_hca_pkt_hdr(pkt, XIB_HDR_RETH);
	const struct xib_immdt *imm = xib_hca_pkt_hdr(pkt, XIB_HDR_IMMDT);
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_cqe cqe = {};
	int ret;

	if (reth) {
		r->va = xib_reth_va(reth);
		r->rkey = xib_reth_rkey(reth);
		r->wlen = xib_reth_len(reth);
		r->off = 0;
		if (xib_hca_check_reth(qp, qp->ibqp.pd, r->va, r->rkey,
				       r->wlen, XIB_ACCESS_REMOTE_WRITE))
			return -EACCES;
	}
	if (r->off + pkt->payload_len > r->wlen ||
	    ((pkt->info->flags & XIB_OPF_LAST) &&
	     r->off + pkt->payload_len != r->wlen))
		return -EINVAL;
	if (imm) {
		ret = xib_hca_uc_take_wqe(qp);
		if (ret)
			return ret;
	}
	if (xib_hca_rkey_copy(qp, qp->ibqp.pd, r->rkey, r->va + r->off,
			      (void *)xib_hca_pkt_payload(pkt),
			      pkt->payload_len, XIB_ACCESS_REMOTE_WRITE))
		return -EACCES;
	r->off += pkt->payload_len;
	if (!imm)
		return 0;
	cqe.wr_id = r->wqe.wr_id;
	cqe.opcode = XIB_HCA_WC_RECV_RDMA_WITH_IMM;
	cqe.byte_len = r->wlen;
	cqe.src_qp = qp->dest_qpn;
	cqe.imm_data = xib_immdt_imm(imm);
	cqe.wc_flags = XIB_HCA_WC_WITH_IMM;
	xib_hca_recv_cqe(qp, &cqe, xib_bth_se(pkt->bth));
	r->has_wqe = false;
	return 0;
}

typedef int (*xib_hca_uc_handler)(struct xib_hca_qp *qp,
				  const struct xib_hca_pkt *pkt);

/* The UC responder's handler of each operation (IBTA table 38, UC rows). */
static const xib_hca_uc_handler xib_hca_uc_handlers[XIB_OP_SEND_LAST_WITH_INVALIDATE] = {
	[XIB_OP_SEND_FIRST] = xib_hca_uc_send,
	[XIB_OP_SEND_MIDDLE] = xib_hca_uc_send,
	[XIB_OP_SEND_LAST] = xib_hca_uc_send,
	[XIB_OP_SEND_LAST_WITH_IMMEDIATE] = xib_hca_uc_send,
	[XIB_OP_SEND_ONLY] = xib_hca_uc_send,
	[XIB_OP_SEND_ONLY_WITH_IMMEDIATE] = xib_hca_uc_send,
	[XIB_OP_RDMA_WRITE_FIRST] = xib_hca_uc_write,
	[XIB_OP_RDMA_WRITE_MIDDLE] = xib_hca_uc_write,
	[XIB_OP_RDMA_WRITE_LAST] = xib_hca_uc_write,
	[XIB_OP_RDMA_WRITE_LAST_WITH_IMMEDIATE] = xib_hca_uc_write,
	[XIB_OP_RDMA_WRITE_ONLY] = xib_hca_uc_write,
	[XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = xib_hca_uc_write,
};

/**
 * xib_hca_uc_recv() - a UC request packet for @qp
 * @qp: the UC QP, in RTR or a later state
 * @pkt: its parsed headers
 *
 * Checks the PSN and the message sequence (xib_hca_uc_classify()) and
 * places the packet.  A lost packet, a receive WQE missing or an access
 * violation drops the whole message silently: nothing is acknowledged,
 * the QP stays in its state, and the next FIRST or ONLY packet starts
 * clean.  Softirq context.
 */
void xib_hca_uc_recv(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	u8 op = xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK;
	u32 psn = xib_bth_psn(pkt->bth);
	u8 flags = pkt->info->flags;
	xib_hca_uc_handler handler;
	bool write;

	if (op >= ARRAY_SIZE(xib_hca_uc_handlers) ||
	    !xib_hca_uc_handlers[op]) {
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_UC);
		return;
	}
	handler = xib_hca_uc_handlers[op];
	write = handler == xib_hca_uc_write;
	spin_lock_bh(&qp->rq.lock);
	if (qp->dead || READ_ONCE(qp->hstate) == XIB_QPS_ERR)
		goto out;
	switch (xib_hca_uc_classify(r->in_msg, r->is_write, r->epsn, psn,
				    flags, write)) {
	case XIB_HCA_UC_DROP:
		xib_hca_uc_abort(qp);
		goto drop;
	case XIB_HCA_UC_START:
		xib_hca_uc_abort(qp);
		r->is_write = write;
		break;
	case XIB_HCA_UC_CONTINUE:
		break;
	}
	r->epsn = xib_psn_add(psn, 1);
	if (handler(qp, pkt)) {
		xib_hca_uc_abort(qp);
		goto drop;
	}
	r->in_msg = !(flags & XIB_OPF_LAST);
	if (flags & XIB_OPF_LAST)
		r->msn = (r->msn + 1) & XIB_MSN_MASK;
	goto out;
drop:
	xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RX_DROP_UC);
out:
	spin_unlock_bh(&qp->rq.lock);
}

/* --- READ responses (worker) ---------------------------------------------- */

static u8 xib_hca_rd_opcode(const struct xib_hca_qp *qp,
			    const struct xib_hca_rd_res *res)
{
	u8 op;

	if (res->sent == res->first)
		op = res->sent + 1 == res->npkts ?
		     XIB_OP_RDMA_READ_RESPONSE_ONLY :
		     XIB_OP_RDMA_READ_RESPONSE_FIRST;
	else if (res->sent + 1 == res->npkts)
		op = XIB_OP_RDMA_READ_RESPONSE_LAST;
	else
		op = XIB_OP_RDMA_READ_RESPONSE_MIDDLE;
	return XIB_OPCODE(xib_hca_qp_transport(qp), op);
}

/* An atomic's ACKNOWLEDGE, from its resource. */
static struct sk_buff *xib_hca_atomic_ack_pkt(struct xib_hca_qp *qp,
					      struct xib_hca_rd_res *res)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_hdr_fields f = {};
	struct sk_buff *skb;
	void *payload;

	f.opcode = XIB_OPCODE(xib_hca_qp_transport(qp),
			      XIB_OP_ATOMIC_ACKNOWLEDGE);
	f.psn = res->psn;
	f.dqpn = qp->dest_qpn;
	f.syndrome = XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID;
	f.msn = r->msn;
	f.orig = res->orig;
	skb = xib_hca_build_pkt(qp, &f, 0, &payload);
	if (!skb)
		return NULL;
	res->sent = 1;
	res->replay = false;
	WRITE_ONCE(r->rd_head, r->rd_head + 1);
	return skb;
}

/* The next response packet, or NULL (nothing to send / error). */
static struct sk_buff *xib_hca_rd_pkt(struct xib_hca_qp *qp,
				      struct xib_hca_ack *nak)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_rd_res *res = xib_hca_rd_at(r, r->rd_head);
	struct xib_hca_hdr_fields f = {};
	struct sk_buff *skb;
	void *payload;
	u32 off, len;

	/* answered resources a replay went back over */
	while (res->sent >= res->npkts) {
		res->replay = false;
		WRITE_ONCE(r->rd_head, r->rd_head + 1);
		if (r->rd_head == r->rd_tail)
			return NULL;
		res = xib_hca_rd_at(r, r->rd_head);
	}
	if (res->atomic)
		return xib_hca_atomic_ack_pkt(qp, res);
	off = res->sent * qp->mtu;
	len = min(res->len - off, qp->mtu);

	f.opcode = xib_hca_rd_opcode(qp, res);
	f.psn = xib_psn_add(res->psn, res->sent);
	f.dqpn = qp->dest_qpn;
	f.syndrome = XIB_AETH_ACK | XIB_AETH_CREDIT_INVALID;
	f.msn = r->msn;
	skb = xib_hca_build_pkt(qp, &f, len, &payload);
	if (!skb)
		return NULL;
	if (xib_hca_rkey_copy(qp, xib_hca_res_pd(qp, res), res->rkey,
			      res->va + off, payload, len,
			      XIB_ACCESS_REMOTE_READ)) {
		kfree_skb(skb);
		xib_hca_nak_set(qp, nak, XIB_AETH_NAK_REM_ACCESS, f.psn);
		xib_hca_qp_error(qp);
		return NULL;
	}
	if (++res->sent == res->npkts) {
		res->replay = false;
		WRITE_ONCE(r->rd_head, r->rd_head + 1);
	}
	return skb;
}

/**
 * xib_hca_resp_process() - send up to @budget READ response packets and
 *	atomic ACKNOWLEDGEs
 * @qp: the QP
 * @budget: packets
 *
 * Worker context.  Return: packets sent.
 */
int xib_hca_resp_process(struct xib_hca_qp *qp, int budget)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_path path;
	struct xib_hca_ack nak = {};
	struct sk_buff *skb;
	int done = 0;

	spin_lock_bh(&qp->rq.lock);
	while (done < budget && !qp->dead && r->rd_head != r->rd_tail &&
	       READ_ONCE(qp->hstate) != XIB_QPS_ERR) {
		skb = xib_hca_rd_pkt(qp, &nak);
		if (!skb)
			break;
		path = qp->path;
		spin_unlock_bh(&qp->rq.lock);
		xib_hca_xmit(qp_hca(qp), skb, &path);
		xib_hca_engine_beat(qp_hca(qp));
		done++;
		spin_lock_bh(&qp->rq.lock);
	}
	/* the ACK held back behind the responses */
	if (r->ack_held && r->rd_head == r->rd_tail) {
		r->ack_held = false;
		if (!nak.send && !qp->dead &&
		    READ_ONCE(qp->hstate) != XIB_QPS_ERR) {
			xib_hca_set_ack(&nak, r->ack_syn, r->ack_psn,
					r->ack_msn);
			done++;
		}
	}
	spin_unlock_bh(&qp->rq.lock);
	if (nak.send)
		xib_hca_send_ack(qp, nak.syndrome, nak.psn, nak.msn);
	return done;
}

/* Lockless hint: READ responses to send, or receives to flush. */
bool xib_hca_resp_has_work(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	int state = READ_ONCE(qp->hstate);

	if (READ_ONCE(qp->dead))
		return false;
	if (state == XIB_QPS_ERR) {
		u32 prod, cons = READ_ONCE(qp->rq.cons);

		if (!qp->rq.ring.mmap)
			return false;
		prod = xib_hca_ring_read_prod(&qp->rq.ring);
		/* a broken ring is not flushed: no work */
		return prod != cons &&
		       xib_ring_count_valid(prod, cons, qp->rq.ring.slots);
	}
	/* the receive side works on while the send queue drains (SQD) */
	return (state == XIB_QPS_RTR || state == XIB_QPS_RTS ||
		state == XIB_QPS_SQD) &&
	       (READ_ONCE(r->rd_head) != READ_ONCE(r->rd_tail) ||
		READ_ONCE(r->ack_held));
}

/**
 * xib_hca_resp_flush() - complete every receive WQE with WR_FLUSH_ERR
 * @qp: the QP, in ERR
 *
 * The QP's own RQ only: an SRQ's WQEs belong to no QP.  Worker context.
 * Return: the WQEs flushed.
 */
int xib_hca_resp_flush(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	struct xib_hca_recv_wqe w;
	int n = 0;
	u32 prod;

	spin_lock_bh(&qp->rq.lock);
	WRITE_ONCE(qp->flush_rq, false);
	if (qp->dead)
		goto out;
	if (r->has_wqe) {
		xib_hca_recv_err(qp, r->wqe.wr_id, XIB_HCA_WC_WR_FLUSH_ERR);
		r->has_wqe = false;
		n++;
	}
	r->in_msg = false;
	WRITE_ONCE(r->rd_head, r->rd_tail);
	r->ack_held = false;
	if (!qp->rq.ring.mmap)
		goto out;
	prod = xib_hca_ring_read_prod(&qp->rq.ring);
	if (!xib_ring_count_valid(prod, qp->rq.cons, qp->rq.ring.slots))
		goto out;
	while (qp->rq.cons != prod) {
		memcpy(&w, xib_hca_ring_slot(&qp->rq.ring, qp->rq.cons),
		       sizeof(w));
		qp->rq.cons++;
		xib_hca_ring_write_cons(&qp->rq.ring, qp->rq.cons);
		xib_hca_recv_err(qp, w.wr_id, XIB_HCA_WC_WR_FLUSH_ERR);
		n++;
	}
out:
	spin_unlock_bh(&qp->rq.lock);
	return n;
}

/**
 * xib_hca_resp_release() - drop the references the responder resources hold
 * @qp: the QP; rq.lock held, or the QP is being freed
 *
 * The XRC SRQs of an XRC target's READ resources.  Context: any (an
 * SRQ's last put defers its release out of atomic context).
 */
void xib_hca_resp_release(struct xib_hca_qp *qp)
{
	struct xib_hca_resp *r = &qp->rq.resp;
	int i;

	for (i = 0; i < XIB_HCA_MAX_RD_ATOM; i++)
		xib_hca_res_srq_set(&r->rd[i], NULL);
}

/* RESET: forget the responder state; rq.lock held. */
void xib_hca_resp_reset(struct xib_hca_qp *qp)
{
	lockdep_assert_held(&qp->rq.lock);
	xib_hca_resp_release(qp);
	xib_hca_ooo_purge(qp);
	memset(&qp->rq.resp, 0, sizeof(qp->rq.resp));
}
