// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca requester: turns send WQEs into packets and completes them.
 *
 * The worker (xib_hca_req_process()) copies each WQE out of the send ring
 * into the QP's kernel array (struct xib_hca_swqe) before it looks at it,
 * validates it, assigns its PSNs and segments it by the path MTU.  UD
 * WQEs retire when sent; RC WQEs when the responder's ACK (or, for RDMA
 * READ, the last read response) covers them.  WQEs complete strictly in
 * order.
 *
 * RC reliability (IBTA vol. 1 9.7.5.1, 9.7.6): the WQEs between the
 * oldest unretired one (cons) and the newest fetched one stay in the
 * kernel array, so any packet of them can be built again.  The sender
 * goes back (xib_hca_rewind(), go-back-N) to a PSN:
 *  - after a local ACK timeout: qp->timer, armed while packets are
 *    unacknowledged and restarted by every progress, fires after
 *    4.096 us * 2^timeout; the worker resends from the oldest
 *    unacknowledged PSN;
 *  - on a PSN sequence NAK: from the NAK's PSN;
 *  - on a gap in RDMA READ responses (a later response, or an ACK past
 *    the READ): the READ is requested again from its first missing
 *    response, with the PSN of that response and the RETH moved on;
 *  - on an RNR NAK: from its PSN once the RNR timer (the same qp->timer)
 *    expires, rnr_retry times (7: forever), then RNR_RETRY_EXC_ERR.
 * The first three count against retry_cnt, which progress restores; once
 * it is used up the oldest WQE completes with RETRY_EXC_ERR and the QP
 * goes to ERR (the rest is flushed).  Packets already acknowledged are
 * not sent again.
 *
 * Not yet: atomics, UC.
 *
 * Locking: all requester state is under qp->sq.lock (worker: _bh; ACK
 * path and qp->timer: softirq).  The lock is dropped around
 * xib_hca_xmit().  qp->timer is armed only under the lock (hca.h).
 */
#include <linux/nospec.h>
#include <linux/skbuff.h>

#include "hca.h"

/* RNR timer values of the IBTA (table 45), in microseconds. */
static const u32 xib_hca_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static struct xib_hca_swqe *xib_hca_swqe_at(struct xib_hca_qp *qp, u32 idx)
{
	return &qp->sq.wqes[xib_ring_slot(idx, qp->sq.ring.slots)];
}

static bool xib_hca_is_read(const struct xib_hca_swqe *swqe)
{
	return swqe->wqe.opcode == XIB_HCA_WR_RDMA_READ;
}

/* PSNs a WQE uses: request packets, or response packets for a READ. */
static u32 xib_hca_swqe_psns(const struct xib_hca_swqe *swqe)
{
	return xib_hca_is_read(swqe) ? swqe->resp_pkts : swqe->npkts;
}

static u32 xib_hca_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case XIB_HCA_WR_RDMA_WRITE:
	case XIB_HCA_WR_RDMA_WRITE_WITH_IMM:
		return XIB_HCA_WC_RDMA_WRITE;
	case XIB_HCA_WR_RDMA_READ:
		return XIB_HCA_WC_RDMA_READ;
	case XIB_HCA_WR_ATOMIC_CMP_AND_SWP:
		return XIB_HCA_WC_COMP_SWAP;
	case XIB_HCA_WR_ATOMIC_FETCH_AND_ADD:
		return XIB_HCA_WC_FETCH_ADD;
	default:
		return XIB_HCA_WC_SEND;
	}
}

/* Write the CQE of a send WQE (if it needs one); false on CQ overflow. */
static bool xib_hca_send_cqe(struct xib_hca_qp *qp, u64 wr_id, u32 opcode,
			     u32 flags, u32 len, u8 status)
{
	struct xib_hca_cqe cqe = {};

	if (status == XIB_HCA_WC_SUCCESS && !qp->ibqp.sq_sig_all &&
	    !(flags & XIB_HCA_SEND_SIGNALED))
		return true;
	cqe.wr_id = wr_id;
	cqe.status = status;
	cqe.opcode = xib_hca_wc_opcode(opcode);
	cqe.byte_len = len;
	cqe.qp_num = qp->ibqp.qp_num;
	return !xib_hca_cq_post(to_hca_cq(qp->ibqp.send_cq), &cqe, false);
}

/* Retire the WQE at the head of the send queue with @status. */
static void xib_hca_retire(struct xib_hca_qp *qp, u8 status)
{
	struct xib_hca_swqe *swqe = xib_hca_swqe_at(qp, qp->sq.cons);

	lockdep_assert_held(&qp->sq.lock);
	/* the slot is free before the CQE says so: a poller may repost */
	qp->sq.cons++;
	xib_hca_ring_write_cons(&qp->sq.ring, qp->sq.cons);
	if (!xib_hca_send_cqe(qp, swqe->wqe.wr_id, swqe->wqe.opcode,
			      swqe->wqe.flags, swqe->len, status))
		xib_hca_qp_error(qp);
	if (status != XIB_HCA_WC_SUCCESS)
		xib_hca_qp_error(qp);
}

/* Retire every WQE at the head that is done; stop after an error. */
static int xib_hca_retire_done(struct xib_hca_qp *qp)
{
	struct xib_hca_swqe *swqe;
	int n = 0;

	lockdep_assert_held(&qp->sq.lock);
	while (qp->sq.cons != qp->sq.send) {
		swqe = xib_hca_swqe_at(qp, qp->sq.cons);
		if (swqe->status != XIB_HCA_WC_SUCCESS) {
			xib_hca_retire(qp, swqe->status);
			return n + 1;
		}
		if (!swqe->acked)
			break;
		xib_hca_retire(qp, XIB_HCA_WC_SUCCESS);
		n++;
	}
	return n;
}

/* --- the local ACK timeout ----------------------------------------------- */

/* Are packets sent and not acknowledged (or READ responses missing)? */
static bool xib_hca_outstanding(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	return sq->cons != sq->send || xib_psn_before(sq->una, sq->hi_psn);
}

/* The current timeout: the QP's, doubled per timeout in a row, at most 4x */
static unsigned long xib_hca_rto_now(const struct xib_hca_sq *sq)
{
	return sq->rto << min_t(u8, sq->backoff, 2);
}

/* A packet went out: make sure the timer runs. */
static void xib_hca_rto_arm(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (sq->rto && !sq->stalled && !timer_pending(&qp->timer))
		mod_timer(&qp->timer, jiffies + xib_hca_rto_now(sq));
}

/* Progress or a retransmission: the timeout starts again, if needed. */
static void xib_hca_rto_restart(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (sq->stalled)
		return;		/* the timer is the RNR wait */
	if (sq->rto && xib_hca_outstanding(qp))
		mod_timer(&qp->timer, jiffies + xib_hca_rto_now(sq));
	else
		del_timer(&qp->timer);
}

/**
 * xib_hca_qp_timer() - qp->timer expired
 * @t: the timer
 *
 * The RNR wait is over, or packets went unacknowledged for the local ACK
 * timeout: flag it and wake the worker, which sends again.  Softirq.
 */
void xib_hca_qp_timer(struct timer_list *t)
{
	struct xib_hca_qp *qp = from_timer(qp, t, timer);
	struct xib_hca_sq *sq = &qp->sq;
	bool kick = false;

	spin_lock_bh(&sq->lock);
	if (qp->dead)
		goto out;
	if (sq->stalled) {
		sq->stalled = false;
		kick = true;
	} else if (sq->rto && xib_hca_outstanding(qp)) {
		sq->timed_out = true;
		kick = true;
	}
out:
	spin_unlock_bh(&sq->lock);
	if (kick)
		xib_hca_kick_engine(qp_hca(qp));
}

/* --- going back: retransmission ------------------------------------------ */

/* The head WQE failed remotely or ran out of retries. */
static void xib_hca_fail_head(struct xib_hca_qp *qp, u8 status)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (sq->cons == sq->fetch)
		return;
	xib_hca_swqe_at(qp, sq->cons)->status = status;
	if (sq->send == sq->cons) {	/* rewound to it */
		sq->send++;
		sq->send_pkt = 0;
	}
	xib_hca_retire_done(qp);
}

/*
 * Send again from @psn (go-back-N): the sender goes back to the first
 * unacknowledged WQE that holds @psn or follows it; a READ is requested
 * again from its first missing response.  Never moves the sender on.
 */
static void xib_hca_rewind(struct xib_hca_qp *qp, u32 psn)
{
	struct xib_hca_sq *sq = &qp->sq;
	u32 i, end = sq->send == sq->fetch ? sq->send : sq->send + 1;
	struct xib_hca_swqe *swqe;
	u32 pkt;

	lockdep_assert_held(&sq->lock);
	for (i = sq->cons; i != end; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (swqe->status != XIB_HCA_WC_SUCCESS || swqe->acked)
			continue;
		if (xib_hca_resume_pkt(swqe->first_psn,
				       xib_hca_swqe_psns(swqe), psn) <
		    xib_hca_swqe_psns(swqe))
			break;
	}
	if (i == end)
		return;
	swqe = xib_hca_swqe_at(qp, i);
	pkt = xib_hca_is_read(swqe) ? 0 :
	      xib_hca_resume_pkt(swqe->first_psn, swqe->npkts, psn);
	if (i == sq->send && pkt >= sq->send_pkt)
		return;
	sq->send = i;
	sq->send_pkt = pkt;
}

/*
 * Retry from @psn: counts against retry_cnt; when none is left the oldest
 * WQE completes with RETRY_EXC_ERR and the QP goes to ERR.
 */
static void xib_hca_retry(struct xib_hca_qp *qp, u32 psn)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	sq->timed_out = false;
	if (!sq->retry_left) {
		xib_hca_fail_head(qp, XIB_HCA_WC_RETRY_EXC_ERR);
		return;
	}
	sq->retry_left--;
	xib_hca_rewind(qp, psn);
	sq->blocked = false;
	xib_hca_rto_restart(qp);
}

/*
 * Where a retry starts: the oldest unacknowledged PSN, or the first
 * missing response of the READ at the head if the responder is past it.
 */
static u32 xib_hca_resend_point(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_swqe *swqe;
	u32 missing;

	lockdep_assert_held(&sq->lock);
	if (sq->cons == sq->fetch)
		return sq->una;
	swqe = xib_hca_swqe_at(qp, sq->cons);
	if (swqe->status != XIB_HCA_WC_SUCCESS || swqe->acked ||
	    !xib_hca_is_read(swqe))
		return sq->una;
	missing = xib_psn_add(swqe->first_psn, swqe->rcvd);
	return xib_psn_before(missing, sq->una) ? missing : sq->una;
}

/*
 * Responses and ACKs come in PSN order: a response or an ACK past a READ
 * that misses responses means they were lost.  Request it again from the
 * first missing one, once per gap (later packets past the same gap, still
 * in flight, are ignored; the timeout covers a lost re-request).
 */
static void xib_hca_read_gap(struct xib_hca_qp *qp, u32 psn)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (sq->rd_gap && sq->rd_gap_psn == psn)
		return;
	sq->rd_gap = true;
	sq->rd_gap_psn = psn;
	xib_hca_retry(qp, psn);
}

/* --- fetching and validating WQEs ---------------------------------------- */

static bool xib_hca_opcode_ok(struct xib_hca_qp *qp, u32 opcode)
{
	switch (qp->ibqp.qp_type) {
	case XIB_QPT_UD:
		return opcode == XIB_HCA_WR_SEND ||
		       opcode == XIB_HCA_WR_SEND_WITH_IMM;
	case XIB_QPT_RC:
		return opcode == XIB_HCA_WR_SEND ||
		       opcode == XIB_HCA_WR_SEND_WITH_IMM ||
		       opcode == XIB_HCA_WR_RDMA_WRITE ||
		       opcode == XIB_HCA_WR_RDMA_WRITE_WITH_IMM ||
		       opcode == XIB_HCA_WR_RDMA_READ;
	default:
		return false;	/* UC: not yet */
	}
}

/* Copy the data part of WQE @slot (SGEs or inline data). */
static u8 xib_hca_copy_data(struct xib_hca_qp *qp, const u8 *slot,
			    struct xib_hca_swqe *swqe)
{
	const struct xib_hca_send_wqe *w = &swqe->wqe;
	u32 room = qp->sq.ring.stride - sizeof(*w);
	u64 total;
	int ret;

	if (w->flags & XIB_HCA_SEND_INLINE) {
		if (w->opcode == XIB_HCA_WR_RDMA_READ ||
		    w->inline_len > qp->ibqp.cap.max_inline_data ||
		    w->inline_len > room ||
		    w->inline_len > XIB_HCA_MAX_INLINE)
			return XIB_HCA_WC_LOC_QP_OP_ERR;
		memcpy(swqe->inline_data, slot + sizeof(*w), w->inline_len);
		swqe->len = w->inline_len;
		return XIB_HCA_WC_SUCCESS;
	}
	if (w->num_sge > qp->ibqp.cap.max_send_sge ||
	    w->num_sge > XIB_HCA_MAX_SGE ||
	    w->num_sge * sizeof(struct xib_hca_sge) > room)
		return XIB_HCA_WC_LOC_QP_OP_ERR;
	memcpy(swqe->sge, slot + sizeof(*w),
	       w->num_sge * sizeof(struct xib_hca_sge));
	ret = xib_hca_sge_check(qp, swqe->sge, w->num_sge,
				xib_hca_is_read(swqe) ?
				XIB_ACCESS_LOCAL_WRITE : 0, &total);
	if (ret == -EMSGSIZE)
		return XIB_HCA_WC_LOC_LEN_ERR;
	if (ret)
		return XIB_HCA_WC_LOC_PROT_ERR;
	swqe->len = total;
	return XIB_HCA_WC_SUCCESS;
}

/* UD: the AH (same PD), destination QP and Q_Key. */
static u8 xib_hca_ud_dest(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	struct xib_ah *ah = xib_ah_get_by_num(qp->ibqp.device,
					      swqe->wqe.ud.ahn);
	u8 status = XIB_HCA_WC_SUCCESS;

	if (!ah)
		return XIB_HCA_WC_LOC_QP_OP_ERR;
	if (ah->pd != qp->ibqp.pd)
		status = XIB_HCA_WC_LOC_QP_OP_ERR;
	else
		swqe->path = to_hca_ah(ah)->path;
	xib_ah_put(ah);
	swqe->dqpn = swqe->wqe.ud.remote_qpn & XIB_QPN_MASK;
	/* A Q_Key with the high bit set means "use the QP's own". */
	swqe->qkey = swqe->wqe.ud.remote_qkey & 0x80000000U ?
		     qp->qkey : swqe->wqe.ud.remote_qkey;
	if (swqe->len > qp->mtu)
		status = XIB_HCA_WC_LOC_LEN_ERR;
	return status;
}

/* Copy WQE @idx out of the ring and check it; returns its status. */
static u8 xib_hca_fetch_wqe(struct xib_hca_qp *qp, u32 idx,
			    struct xib_hca_swqe *swqe)
{
	const u8 *slot = xib_hca_ring_slot(&qp->sq.ring, idx);
	u8 status;

	memcpy(&swqe->wqe, slot, sizeof(swqe->wqe));
	swqe->len = 0;
	swqe->rcvd = 0;
	swqe->acked = false;
	swqe->npkts = 0;
	swqe->resp_pkts = 0;
	if (!xib_hca_opcode_ok(qp, swqe->wqe.opcode))
		return XIB_HCA_WC_LOC_QP_OP_ERR;
	status = xib_hca_copy_data(qp, slot, swqe);
	if (status)
		return status;
	if (qp->ibqp.qp_type == XIB_QPT_UD)
		return xib_hca_ud_dest(qp, swqe);
	return XIB_HCA_WC_SUCCESS;
}

/* Number the packets of a valid WQE. */
static void xib_hca_assign_psns(struct xib_hca_qp *qp,
				struct xib_hca_swqe *swqe)
{
	u32 pkts = max_t(u32, 1, DIV_ROUND_UP(swqe->len, qp->mtu));

	if (xib_hca_is_read(swqe)) {
		swqe->npkts = 1;
		swqe->resp_pkts = pkts;
	} else {
		swqe->npkts = pkts;
	}
	swqe->first_psn = qp->sq.psn;
	qp->sq.psn = xib_psn_add(qp->sq.psn, xib_hca_swqe_psns(swqe));
}

/*
 * Take the next posted WQE into the kernel array.  Returns 1 if one was
 * fetched (valid or not), 0 if none is posted, -EIO if the ring is broken.
 */
static int xib_hca_fetch_next(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_swqe *swqe;
	u32 prod;

	lockdep_assert_held(&sq->lock);
	if (sq->broken)
		return -EIO;
	prod = xib_hca_ring_read_prod(&sq->ring);
	if (!xib_ring_count_valid(prod, sq->cons, sq->ring.slots) ||
	    xib_ring_count(prod, sq->cons) < xib_ring_count(sq->fetch, sq->cons)) {
		sq->broken = true;
		return -EIO;
	}
	if (prod == sq->fetch)
		return 0;
	swqe = xib_hca_swqe_at(qp, sq->fetch);
	swqe->status = xib_hca_fetch_wqe(qp, sq->fetch, swqe);
	if (swqe->status == XIB_HCA_WC_SUCCESS)
		xib_hca_assign_psns(qp, swqe);
	sq->fetch++;
	return 1;
}

/* --- building packets ---------------------------------------------------- */

/**
 * xib_hca_build_pkt() - allocate a packet and write its headers
 * @qp: the sending QP
 * @f: header fields; padcnt is filled in here
 * @payload_len: payload bytes (the pad is added)
 * @payload: where the caller puts the payload
 *
 * Return: the skb (data at the BTH) or NULL.
 */
struct sk_buff *xib_hca_build_pkt(struct xib_hca_qp *qp,
				  struct xib_hca_hdr_fields *f,
				  u32 payload_len, void **payload)
{
	const struct xib_hca_opcode_info *info = xib_hca_opcode_info(f->opcode);
	u32 pad = (4 - (payload_len & 3)) & 3;
	struct sk_buff *skb;
	u8 *data;

	if (!info)
		return NULL;
	f->padcnt = pad;
	f->pkey = XIB_HCA_DEFAULT_PKEY;
	skb = xib_hca_alloc_skb(qp_hca(qp), info->hdr_len + payload_len + pad);
	if (!skb)
		return NULL;
	data = skb->data;
	if (xib_hca_build(data, info->hdr_len, f) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	memset(data + info->hdr_len + payload_len, 0, pad);
	*payload = data + info->hdr_len;
	return skb;
}

/* BTH opcode of packet @i of @n of a SEND or WRITE. */
static u8 xib_hca_req_opcode(const struct xib_hca_swqe *swqe, u32 i, u32 n,
			     u8 transport)
{
	bool imm = swqe->wqe.opcode == XIB_HCA_WR_SEND_WITH_IMM ||
		   swqe->wqe.opcode == XIB_HCA_WR_RDMA_WRITE_WITH_IMM;
	bool write = swqe->wqe.opcode == XIB_HCA_WR_RDMA_WRITE ||
		     swqe->wqe.opcode == XIB_HCA_WR_RDMA_WRITE_WITH_IMM;
	u8 op;

	if (swqe->wqe.opcode == XIB_HCA_WR_RDMA_READ)
		op = XIB_OP_RDMA_READ_REQUEST;
	else if (n == 1)
		op = write ? (imm ? XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
			      XIB_OP_RDMA_WRITE_ONLY) :
			     (imm ? XIB_OP_SEND_ONLY_WITH_IMMEDIATE :
			      XIB_OP_SEND_ONLY);
	else if (i == 0)
		op = write ? XIB_OP_RDMA_WRITE_FIRST : XIB_OP_SEND_FIRST;
	else if (i + 1 < n)
		op = write ? XIB_OP_RDMA_WRITE_MIDDLE : XIB_OP_SEND_MIDDLE;
	else
		op = write ? (imm ? XIB_OP_RDMA_WRITE_LAST_WITH_IMMEDIATE :
			      XIB_OP_RDMA_WRITE_LAST) :
			     (imm ? XIB_OP_SEND_LAST_WITH_IMMEDIATE :
			      XIB_OP_SEND_LAST);
	return XIB_OPCODE(transport, op);
}

/* Packet @i of @swqe; NULL if out of memory or the data is gone. */
static struct sk_buff *xib_hca_req_pkt(struct xib_hca_qp *qp,
				       struct xib_hca_swqe *swqe, u32 i,
				       bool *data_err)
{
	bool ud = qp->ibqp.qp_type == XIB_QPT_UD;
	struct xib_hca_hdr_fields f = {};
	u32 off = i * qp->mtu, len = 0;
	struct sk_buff *skb;
	void *payload;

	f.opcode = xib_hca_req_opcode(swqe, i, swqe->npkts,
				      ud ? XIB_TRANSPORT_UD : XIB_TRANSPORT_RC);
	f.va = swqe->wqe.rdma.remote_addr;
	f.dma_len = swqe->len;
	if (!xib_hca_is_read(swqe)) {
		len = min(swqe->len - off, qp->mtu);
		f.psn = xib_psn_add(swqe->first_psn, i);
	} else {
		/* from the first response not received yet (9.7.5.1.3) */
		xib_hca_read_rereq(f.va, swqe->len, qp->mtu, swqe->rcvd,
				   &f.va, &f.dma_len);
		f.psn = xib_psn_add(swqe->first_psn, swqe->rcvd);
	}
	f.dqpn = ud ? swqe->dqpn : qp->dest_qpn;
	f.ackreq = !ud && (i + 1 == swqe->npkts ||
			   (i + 1) % XIB_HCA_ACKREQ_EVERY == 0 ||
			   qp->sq.cwnd < XIB_HCA_SEND_WINDOW);
	f.se = (swqe->wqe.flags & XIB_HCA_SEND_SOLICITED) &&
	       i + 1 == swqe->npkts;
	f.imm = swqe->wqe.imm_data;
	f.qkey = swqe->qkey;
	f.sqpn = qp->ibqp.qp_num;
	f.rkey = swqe->wqe.rdma.rkey;

	skb = xib_hca_build_pkt(qp, &f, len, &payload);
	if (!skb || !len)
		return skb;
	if (swqe->wqe.flags & XIB_HCA_SEND_INLINE) {
		memcpy(payload, swqe->inline_data + off, len);
	} else if (xib_hca_sge_copy(qp, swqe->sge, swqe->wqe.num_sge, off,
				    payload, len, false)) {
		kfree_skb(skb);
		*data_err = true;
		return NULL;
	}
	return skb;
}

/* The sender passed the last packet of WQE @send. */
static void xib_hca_wqe_sent(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	struct xib_hca_sq *sq = &qp->sq;

	sq->send++;
	sq->send_pkt = 0;
	if (qp->ibqp.qp_type == XIB_QPT_UD)
		swqe->acked = true;
}

/* RDMA READs sent whose data has not all arrived. */
static u32 xib_hca_reads_out(struct xib_hca_qp *qp)
{
	struct xib_hca_swqe *swqe;
	u32 i, n = 0;

	for (i = qp->sq.cons; i != qp->sq.send; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (xib_hca_is_read(swqe) && !swqe->acked &&
		    swqe->status == XIB_HCA_WC_SUCCESS)
			n++;
	}
	return n;
}

/* May the sender go on with @swqe?  (READ fence and credit) */
static bool xib_hca_may_send(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	if (swqe->status != XIB_HCA_WC_SUCCESS)
		return true;
	if (qp->sq.send_pkt)
		return true;
	if (xib_hca_is_read(swqe))
		return xib_hca_reads_out(qp) < max_t(u32, qp->max_rd_atomic, 1);
	if (swqe->wqe.flags & XIB_HCA_SEND_FENCE)
		return xib_hca_reads_out(qp) == 0;
	return true;
}

/*
 * Produce the next packet, or handle the next invalid WQE.  Returns 1 if
 * something happened, 0 if the sender has nothing to do.
 */
static int xib_hca_req_step(struct xib_hca_qp *qp, struct sk_buff **skb,
			    struct xib_hca_path *path)
{
	bool rc = qp->ibqp.qp_type == XIB_QPT_RC;
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_swqe *swqe;
	bool data_err = false;
	u32 pkt_psn, end;
	int ret;

	lockdep_assert_held(&sq->lock);
	if (sq->send == sq->fetch) {
		ret = xib_hca_fetch_next(qp);
		if (ret < 0) {
			xib_qp_event(&qp->ibqp, XIB_EVENT_QP_FATAL);
			xib_hca_qp_error(qp);
			return 1;
		}
		if (!ret)
			return 0;
	}
	swqe = xib_hca_swqe_at(qp, sq->send);
	if (rc && swqe->status == XIB_HCA_WC_SUCCESS) {
		/* after a rewind: what the responder has is not sent again */
		if (!xib_hca_is_read(swqe))
			sq->send_pkt = max(sq->send_pkt,
					   xib_hca_resume_pkt(swqe->first_psn,
							      swqe->npkts,
							      sq->una));
		if (swqe->acked || sq->send_pkt >= swqe->npkts) {
			xib_hca_wqe_sent(qp, swqe);
			xib_hca_retire_done(qp);
			return 1;
		}
	}
	pkt_psn = xib_psn_add(swqe->first_psn, xib_hca_is_read(swqe) ?
			      swqe->rcvd : sq->send_pkt);
	if (!xib_hca_may_send(qp, swqe) ||
	    (rc && xib_psn_diff(pkt_psn, sq->una) >= (s32)sq->cwnd)) {
		sq->blocked = true;	/* until a response arrives */
		return 0;
	}
	if (swqe->status != XIB_HCA_WC_SUCCESS) {
		/* completes in order, then the QP goes to ERR */
		sq->send++;
		xib_hca_retire_done(qp);
		return 1;
	}
	*skb = xib_hca_req_pkt(qp, swqe, sq->send_pkt, &data_err);
	if (data_err) {
		swqe->status = XIB_HCA_WC_LOC_PROT_ERR;
		sq->send++;
		sq->send_pkt = 0;
		xib_hca_retire_done(qp);
		return 1;
	}
	if (!*skb)
		return 0;	/* out of memory: try again next pass */
	*path = qp->ibqp.qp_type == XIB_QPT_UD ? swqe->path : qp->path;
	if (rc) {
		end = xib_hca_is_read(swqe) ?
		      xib_psn_add(swqe->first_psn, swqe->resp_pkts) :
		      xib_psn_add(pkt_psn, 1);
		if (xib_psn_before(sq->hi_psn, end))
			sq->hi_psn = end;
		xib_hca_rto_arm(qp);
	}
	if (++sq->send_pkt == swqe->npkts) {
		xib_hca_wqe_sent(qp, swqe);
		if (qp->ibqp.qp_type == XIB_QPT_UD)
			xib_hca_retire_done(qp);
	}
	return 1;
}

/**
 * xib_hca_req_process() - send up to @budget packets of @qp
 * @qp: the QP
 * @budget: packets
 *
 * Process context: the worker, or a KICK's caller; never two at once
 * (call it through xib_hca_req_run()).  Return: the work done.
 */
int xib_hca_req_process(struct xib_hca_qp *qp, int budget)
{
	struct xib_hca_path path;
	struct sk_buff *skb;
	int done = 0;

	spin_lock_bh(&qp->sq.lock);
	if (qp->sq.timed_out && !qp->dead &&
	    READ_ONCE(qp->hstate) == XIB_QPS_RTS) {
		/*
		 * Local ACK timeout: go back to the oldest unacknowledged
		 * packet, but probe with one packet first: the peer may only
		 * be slow, with the rest still queued.
		 */
		qp->sq.rd_gap = false;
		if (xib_hca_outstanding(qp)) {
			if (qp->sq.backoff < U8_MAX)
				qp->sq.backoff++;
			qp->sq.cwnd = 1;
			xib_hca_retry(qp, xib_hca_resend_point(qp));
		}
		qp->sq.timed_out = false;
		done++;
	}
	while (done < budget && !qp->dead && !qp->sq.stalled &&
	       READ_ONCE(qp->hstate) == XIB_QPS_RTS) {
		skb = NULL;
		if (!xib_hca_req_step(qp, &skb, &path))
			break;
		done++;
		if (!skb)
			continue;
		spin_unlock_bh(&qp->sq.lock);
		xib_hca_xmit(qp_hca(qp), skb, &path);
		spin_lock_bh(&qp->sq.lock);
	}
	spin_unlock_bh(&qp->sq.lock);
	return done;
}

/**
 * xib_hca_req_has_work() - may xib_hca_req_process() or the flush do work?
 * @qp: the QP
 *
 * Lockless (racy reads are fine: it is a hint before sleeping, and the
 * kick protocol covers new posts).
 */
bool xib_hca_req_has_work(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	int state = READ_ONCE(qp->hstate);
	u32 prod;

	if (READ_ONCE(qp->dead) || READ_ONCE(sq->broken))
		return false;
	prod = xib_hca_ring_read_prod(&sq->ring);
	if (state == XIB_QPS_ERR)
		return prod != READ_ONCE(sq->cons);
	if (state != XIB_QPS_RTS || READ_ONCE(sq->stalled))
		return false;
	if (READ_ONCE(sq->timed_out))
		return true;
	if (READ_ONCE(sq->blocked))
		return false;
	return prod != READ_ONCE(sq->fetch) ||
	       READ_ONCE(sq->send) != READ_ONCE(sq->fetch);
}

/**
 * xib_hca_req_flush() - complete every outstanding send WQE with
 * WR_FLUSH_ERR (the QP is in ERR)
 * @qp: the QP
 *
 * Worker context.  Return: the WQEs flushed.
 */
int xib_hca_req_flush(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_send_wqe w;
	int n = 0;
	u32 prod;

	spin_lock_bh(&sq->lock);
	WRITE_ONCE(qp->flush_sq, false);
	if (qp->dead)
		goto out;
	del_timer(&qp->timer);
	sq->stalled = false;
	sq->timed_out = false;
	sq->rd_gap = false;
	/* fetched WQEs: a pending error status goes first */
	while (sq->cons != sq->fetch) {
		struct xib_hca_swqe *swqe = xib_hca_swqe_at(qp, sq->cons);
		u8 status = swqe->status != XIB_HCA_WC_SUCCESS ?
			    swqe->status : XIB_HCA_WC_WR_FLUSH_ERR;

		sq->cons++;
		xib_hca_ring_write_cons(&sq->ring, sq->cons);
		xib_hca_send_cqe(qp, swqe->wqe.wr_id, swqe->wqe.opcode,
				 swqe->wqe.flags, 0, status);
		n++;
	}
	sq->send = sq->fetch;
	sq->send_pkt = 0;
	sq->blocked = false;
	prod = xib_hca_ring_read_prod(&sq->ring);
	if (!xib_ring_count_valid(prod, sq->cons, sq->ring.slots)) {
		sq->broken = true;
		goto publish;
	}
	while (sq->cons != prod) {
		memcpy(&w, xib_hca_ring_slot(&sq->ring, sq->cons), sizeof(w));
		sq->cons++;
		xib_hca_ring_write_cons(&sq->ring, sq->cons);
		xib_hca_send_cqe(qp, w.wr_id, w.opcode, 0, 0,
				 XIB_HCA_WC_WR_FLUSH_ERR);
		n++;
	}
	sq->fetch = sq->cons;
	sq->send = sq->cons;
publish:
	xib_hca_ring_write_cons(&sq->ring, sq->cons);
out:
	spin_unlock_bh(&sq->lock);
	return n;
}

/* --- responses: ACK, NAK, read responses (softirq) ------------------------ */

/*
 * Mark the WQEs whose packets all precede or are @psn as acknowledged.
 * An RDMA READ needs its data as well: the marking stops at the first
 * incomplete one.
 */
static void xib_hca_ack_through(struct xib_hca_qp *qp, u32 psn)
{
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_swqe *swqe;
	u32 i, last;

	lockdep_assert_held(&sq->lock);
	for (i = sq->cons; i != sq->fetch; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (swqe->status != XIB_HCA_WC_SUCCESS || swqe->acked)
			continue;
		last = xib_psn_add(swqe->first_psn, xib_hca_swqe_psns(swqe) - 1);
		if (xib_psn_before(psn, last) ||
		    !xib_psn_before(last, sq->hi_psn))
			break;
		if (xib_hca_is_read(swqe))
			break;	/* needs its data: lost responses */
		swqe->acked = true;
	}
	xib_hca_retire_done(qp);
}

/*
 * Everything before @psn has arrived at the responder.  Progress restores
 * the retries and restarts the local ACK timeout.
 */
static void xib_hca_una(struct xib_hca_qp *qp, u32 psn)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (!xib_psn_before(sq->una, psn))
		return;
	sq->una = psn;
	sq->retry_left = qp->retry_cnt;
	sq->backoff = 0;
	sq->cwnd = min_t(u32, sq->cwnd * 2, XIB_HCA_SEND_WINDOW);
	xib_hca_rto_restart(qp);
}

static void xib_hca_rnr_nak(struct xib_hca_qp *qp, u32 psn, u8 timer)
{
	struct xib_hca_sq *sq = &qp->sq;

	xib_hca_ack_through(qp, xib_psn_add(psn, XIB_PSN_MASK));
	xib_hca_una(qp, psn);
	if (!sq->rnr_left) {
		xib_hca_fail_head(qp, XIB_HCA_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (sq->rnr_left != 7)
		sq->rnr_left--;
	xib_hca_rewind(qp, psn);
	sq->stalled = true;
	sq->timed_out = false;
	mod_timer(&qp->timer, jiffies +
		  usecs_to_jiffies(xib_hca_rnr_usec[timer & 31]));
}

static void xib_hca_nak(struct xib_hca_qp *qp, u32 psn, u8 code)
{
	xib_hca_ack_through(qp, xib_psn_add(psn, XIB_PSN_MASK));
	switch (code) {
	case XIB_AETH_NAK_PSN_SEQ:
		xib_hca_una(qp, psn);
		/* a READ before @psn may have lost responses too */
		xib_hca_retry(qp, xib_hca_resend_point(qp));
		return;
	case XIB_AETH_NAK_REM_ACCESS:
		xib_hca_fail_head(qp, XIB_HCA_WC_REM_ACCESS_ERR);
		return;
	case XIB_AETH_NAK_REM_OP:
		xib_hca_fail_head(qp, XIB_HCA_WC_REM_OP_ERR);
		return;
	default:
		xib_hca_fail_head(qp, XIB_HCA_WC_REM_INV_REQ_ERR);
	}
}

static void xib_hca_ack(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt)
{
	const struct xib_aeth *aeth = xib_hca_pkt_hdr(pkt, XIB_HDR_AETH);
	u32 psn = xib_bth_psn(pkt->bth);
	u8 syn = xib_aeth_syndrome(aeth);

	/* about a PSN never sent: stale or bogus */
	if (!xib_psn_before(psn, qp->sq.hi_psn))
		return;
	switch (syn & XIB_AETH_TYPE_MASK) {
	case XIB_AETH_ACK:
		qp->sq.rnr_left = qp->rnr_retry;
		xib_hca_ack_through(qp, psn);
		xib_hca_una(qp, xib_psn_add(psn, 1));
		if (xib_hca_resend_point(qp) != qp->sq.una)
			xib_hca_read_gap(qp, xib_hca_resend_point(qp));
		break;
	case XIB_AETH_RNR_NAK:
		xib_hca_rnr_nak(qp, psn, syn & XIB_AETH_VALUE_MASK);
		break;
	case XIB_AETH_NAK:
		xib_hca_nak(qp, psn, syn & XIB_AETH_VALUE_MASK);
		break;
	default:
		break;	/* reserved: ignore */
	}
}

/* The oldest READ still missing responses (it may not be sent yet). */
static struct xib_hca_swqe *xib_hca_find_read(struct xib_hca_qp *qp)
{
	struct xib_hca_swqe *swqe;
	u32 i;

	for (i = qp->sq.cons; i != qp->sq.fetch; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (swqe->status == XIB_HCA_WC_SUCCESS && !swqe->acked &&
		    xib_hca_is_read(swqe))
			return swqe;
	}
	return NULL;
}

static void xib_hca_read_resp(struct xib_hca_qp *qp,
			      const struct xib_hca_pkt *pkt)
{
	struct xib_hca_swqe *swqe = xib_hca_find_read(qp);
	u32 psn = xib_bth_psn(pkt->bth);
	u8 flags = pkt->info->flags;
	u32 off, want;
	s32 d;

	if (!swqe || !xib_psn_before(psn, qp->sq.hi_psn))
		return;
	d = xib_psn_diff(psn, swqe->first_psn);
	if (d < (s32)swqe->rcvd)
		return;	/* duplicate: dropped */
	/* a response acknowledges every request before its READ */
	xib_hca_ack_through(qp, xib_psn_add(swqe->first_psn, XIB_PSN_MASK));
	if (d > swqe->rcvd) {
		/* past a lost response (of this READ or, later, the next) */
		xib_hca_read_gap(qp, xib_psn_add(swqe->first_psn, swqe->rcvd));
		return;
	}
	/* a READ requested again from rcvd is answered from a FIRST/ONLY */
	if ((!swqe->rcvd && !(flags & XIB_OPF_FIRST)) ||
	    !!(flags & XIB_OPF_LAST) != (swqe->rcvd + 1 == swqe->resp_pkts)) {
		xib_hca_fail_head(qp, XIB_HCA_WC_BAD_RESP_ERR);
		return;
	}
	off = swqe->rcvd * qp->mtu;
	want = min(swqe->len - off, qp->mtu);
	if (pkt->payload_len != want) {
		swqe->status = XIB_HCA_WC_BAD_RESP_ERR;
		xib_hca_retire_done(qp);
		return;
	}
	if (want && xib_hca_sge_copy(qp, swqe->sge, swqe->wqe.num_sge, off,
				     (void *)xib_hca_pkt_payload(pkt), want,
				     true)) {
		swqe->status = XIB_HCA_WC_LOC_PROT_ERR;
		xib_hca_retire_done(qp);
		return;
	}
	qp->sq.rd_gap = false;
	xib_hca_una(qp, xib_psn_add(psn, 1));
	if (++swqe->rcvd == swqe->resp_pkts)
		swqe->acked = true;
	xib_hca_retire_done(qp);
}

/**
 * xib_hca_req_recv() - a response (ACK, NAK, read response) for @qp
 * @qp: the RC QP
 * @skb: the packet
 * @pkt: its parsed headers
 *
 * Softirq context.  Does not consume @skb.
 */
void xib_hca_req_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		      const struct xib_hca_pkt *pkt)
{
	u8 op = xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK;
	int state = READ_ONCE(qp->hstate);
	struct xib_hca_sq *sq = &qp->sq;
	u32 cons, send, send_pkt;

	if (state != XIB_QPS_RTS && state != XIB_QPS_SQD)
		return;
	spin_lock_bh(&sq->lock);
	if (qp->dead) {
		spin_unlock_bh(&sq->lock);
		return;
	}
	cons = sq->cons;
	send = sq->send;
	send_pkt = sq->send_pkt;
	if (op == XIB_OP_ACKNOWLEDGE)
		xib_hca_ack(qp, pkt);
	else if (op >= XIB_OP_RDMA_READ_RESPONSE_FIRST &&
		 op <= XIB_OP_RDMA_READ_RESPONSE_ONLY)
		xib_hca_read_resp(qp, pkt);
	/* progress or a rewind: a blocked sender may continue */
	if (sq->cons != cons || sq->send != send || sq->send_pkt != send_pkt ||
	    sq->blocked) {
		sq->blocked = false;
		xib_hca_kick_engine(qp_hca(qp));
	}
	spin_unlock_bh(&sq->lock);
}
