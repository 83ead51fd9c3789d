// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca requester: turns send WQEs into packets.
 *
 * The worker (xib_hca_req_process()) copies each WQE out of the send ring
 * into the QP's kernel array (struct xib_hca_swqe) before it looks at it,
 * validates it, assigns its PSNs and segments it by the path MTU; it
 * holds back for the send window, the READ and atomic credit
 * (max_rd_atomic) and fences.  What the responder answers, the timer,
 * the rewinds and the completions are the completer's (hca_comp.c).  A
 * QP in ERR has its send queue flushed here (xib_hca_req_flush()).
 *
 * An atomic (CMP_SWAP, FETCH_ADD) is one request packet with an AtomicETH
 * and one response, like a one-packet READ: it counts against
 * max_rd_atomic and a fence waits for it.
 *
 * The BTH opcode of each packet comes from the [WR opcode][position]
 * table (xib_hca_req_bth_opcode(), hca_wire.c) with the transport of the
 * QP's type; a WR opcode the transport lacks completes with
 * LOC_QP_OP_ERR.  UC and UD: no ACK is asked for, no send window, no
 * timer, nothing is sent again; a WQE completes once its last packet is
 * sent, as rdma_rxe's does (the IBTA leaves a UC requester nothing else
 * to wait for).
 *
 * Memory windows (RC and UC): BIND_MW and LOCAL_INV are local
 * operations, executed by the core (xib_bind_mw(), xib_invalidate_mw())
 * when the WQE is fetched, so after every WQE before them was sent and
 * before any after them; they use no PSN and complete in order
 * (XIB_HCA_WC_BIND_MW, _LOCAL_INV) or in error (MW_BIND_ERR,
 * LOC_PROT_ERR), which moves the QP to ERR.  SEND_WITH_INV is an RC SEND
 * whose last packet carries the rkey in an IETH.
 *
 * RC: the device's budget of packets in flight (hca_retx.c,
 * xib_hca_cc_may_send()) bounds what all the QPs of a device send beyond
 * their oldest unacknowledged PSNs; a QP it holds back (sq.cc_held) is
 * taken up again when an ACK frees budget (xib_hca_cc_sync() kicks the
 * worker) or acknowledges some of its own packets (hca_comp.c).  A QP
 * waits for an ACK only if one of its packets in flight asked for it
 * (sq.ack_asked): otherwise its next packet goes out beyond the budget,
 * asking (xib_hca_cc_unasked()).
 *
 * Locking: all requester state is under qp->sq.lock (worker: _bh).  The
 * lock is dropped around xib_hca_xmit().  The device's count
 * (xib_hca_dev.cc_inflight) is an atomic: each QP adds and takes away its
 * own charge (sq.cc_charged) under its sq.lock, so the count is always the
 * sum of the charges; the budget test reads it without a lock.
 */
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/skbuff.h>

#include "hca.h"
#include "hca_trace.h"

/*
 * The device's budget of RC request packets in flight (hca_retx.c): below
 * the receiving backlog (net.core.netdev_max_backlog, 1000 by default),
 * which the packets of all the device's QPs share with the ACKs coming
 * back.  Measured in the 2-vCPU test guest between two namespaces
 * (ib_write_bw -s 65536 -q 256): without it about a fifth of the packets
 * were dropped and QPs ran out of retries; with 256, 384, 512 and 768 no
 * packet was dropped, and the aggregate was 36, 32, 37 and 22 MB/s (at
 * 768 the queue's delay reached the local ACK timeout: 700 spurious
 * timeouts).  0 is unbounded.  Changes take effect at once.
 */
static unsigned int max_inflight = 512;
module_param(max_inflight, uint, 0644);
MODULE_PARM_DESC(max_inflight, "RC request packets a device may have unacknowledged beyond each QP's minimum (default 512; 0: unbounded)");

/*
 * The states the requester sends in: RTS, and SQD, where it finishes the
 * WQEs it has fetched but fetches no new one (xib_hca_req_step()), so the
 * send queue drains (hca_engine.c raises SQ_DRAINED).
 */
static bool xib_hca_req_sends(int state)
{
	return state == XIB_QPS_RTS || state == XIB_QPS_SQD;
}

/* Whether send WQEs are flushed in @state: ERR, and SQE until modify_qp. */
static bool xib_hca_sq_flushes(int state)
{
	return state == XIB_QPS_ERR || state == XIB_QPS_SQE;
}

/* PSNs from @sq's oldest unacknowledged one up to @psn; 0 if none. */
static u32 xib_hca_sq_beyond_una(const struct xib_hca_sq *sq, u32 psn)
{
	s32 d = xib_psn_diff(psn, sq->rx.una);

	return d > 0 ? d : 0;
}

/**
 * xib_hca_cc_sync() - bring @qp's charge to its device's budget up to date
 * @qp: the QP; sq.lock held
 *
 * The charge is the PSNs sent beyond the oldest unacknowledged one
 * (@hi_psn - @rx.una) while the QP lives, is reliable and sends (RTS,
 * SQD); 0 otherwise (destroyed, reset, in error).  Call it whenever one
 * of these changes: a packet sent for the first time, progress, a new
 * SQ PSN, reset, the flush of ERR, destroy.  Taking budget back below the
 * budget kicks the worker if a QP waits for it (xib_hca_dev.cc_wait).
 * Any context.
 */
void xib_hca_cc_sync(struct xib_hca_qp *qp)
{
	struct xib_hca_dev *hca = qp_hca(qp);
	struct xib_hca_sq *sq = &qp->sq;
	unsigned int budget;
	u32 want = 0;
	int left;

	lockdep_assert_held(&sq->lock);
	if (!qp->dead && xib_hca_qp_reliable(qp) &&
	    xib_hca_req_sends(READ_ONCE(qp->hstate))) {
		want = xib_hca_sq_beyond_una(sq, sq->hi_psn);
	}
	if (want == sq->cc_charged)
		return;
	if (want > sq->cc_charged) {
		atomic_add(want - sq->cc_charged, &hca->cc_inflight);
		xib_hca_stat_add(hca, XIB_HCA_STAT_RC_INFLIGHT_CHARGED,
				 want - sq->cc_charged);
		sq->cc_charged = want;
		return;
	}
	/* fully ordered: pairs with xib_hca_cc_admit()'s atomic_xchg() */
	left = atomic_sub_return(sq->cc_charged - want, &hca->cc_inflight);
	xib_hca_stat_add(hca, XIB_HCA_STAT_RC_INFLIGHT_RELEASED,
			 sq->cc_charged - want);
	sq->cc_charged = want;
	budget = READ_ONCE(max_inflight);
	if ((!budget || (unsigned int)left < budget) &&
	    atomic_read(&hca->cc_wait) &&
	    atomic_xchg(&hca->cc_wait, 0))
		xib_hca_kick_engine(hca);
}

/**
 * xib_hca_cc_busy() - is @hca's queue of RC packets in flight full?
 * @hca: the device
 *
 * Its QPs have (nearly) the budget in flight (xib_hca_cc_queued()): a
 * packet waits behind that many others.  Lockless; any context.
 *
 * Return: true if the budget is bounded and nearly used up.
 */
bool xib_hca_cc_busy(struct xib_hca_dev *hca)
{
	return xib_hca_cc_queued(atomic_read(&hca->cc_inflight),
				 READ_ONCE(max_inflight));
}

/*
 * May the RC sender send the packet with PSN @pkt_psn now (send window,
 * device budget)?  If the budget holds it back, the QP asks to be kicked
 * when budget frees, then looks once more: an ACK that freed budget
 * between the first look and the request would not have kicked.  A QP
 * none of whose packets in flight asked for an ACK is not held back: the
 * packet goes, and *@ask says it must ask for one.
 */
static bool xib_hca_cc_admit(struct xib_hca_qp *qp, u32 pkt_psn, bool *ask)
{
	struct xib_hca_dev *hca = qp_hca(qp);
	unsigned int budget = READ_ONCE(max_inflight);
	struct xib_hca_sq *sq = &qp->sq;
	u32 inflight = xib_hca_sq_beyond_una(sq, pkt_psn);
	bool charged = xib_psn_before(pkt_psn, sq->hi_psn);

	lockdep_assert_held(&sq->lock);
	if (inflight >= sq->cwnd) {
		sq->blocked = true;	/* until a response arrives */
		return false;
	}
	if (!xib_hca_cc_may_send(inflight, sq->cwnd, charged,
				 atomic_read(&hca->cc_inflight), budget)) {
		/* fully ordered: pairs with xib_hca_cc_sync()'s sub_return */
		atomic_xchg(&hca->cc_wait, 1);
		if (!xib_hca_cc_may_send(inflight, sq->cwnd, charged,
					 atomic_read(&hca->cc_inflight),
					 budget)) {
			if (xib_hca_cc_unasked(sq->rx.una, sq->ack_asked,
					       sq->hi_psn)) {
				*ask = true;
				goto admit;
			}
			if (!sq->cc_held)
				xib_hca_stat_inc(hca,
						 XIB_HCA_STAT_RC_INFLIGHT_HELD);
			WRITE_ONCE(sq->cc_held, true);
			return false;
		}
	}
admit:
	WRITE_ONCE(sq->cc_held, false);
	return true;
}

/*
 * Would the budget hold back the packet after the one at @pkt_psn (a new
 * one)?  Then this one asks for an ACK: the QP waits for one.
 */
static bool xib_hca_cc_last(struct xib_hca_qp *qp, u32 pkt_psn)
{
	unsigned int budget = READ_ONCE(max_inflight);
	struct xib_hca_sq *sq = &qp->sq;
	u32 inflight = xib_hca_sq_beyond_una(sq, xib_psn_add(pkt_psn, 1));

	return budget && inflight < sq->cwnd &&
	       !xib_hca_cc_may_send(inflight, sq->cwnd, false,
				    atomic_read(&qp_hca(qp)->cc_inflight) + 1,
				    budget);
}

/*
 * Is a WQE that sends packets posted behind sq.send's?  A hint for the
 * AckReq: a local WQE (memory window bind, local invalidate) sends
 * none, and one not fetched yet is read from the ring, which the program
 * may be writing (a wrong hint costs an ACK, or a tail-loss probe).
 */
static bool xib_hca_next_sends(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	const struct xib_hca_send_wqe *w;

	lockdep_assert_held(&sq->lock);
	if (sq->send + 1 != sq->fetch)
		return !xib_hca_is_local(xib_hca_swqe_at(qp, sq->send + 1));
	/* new WQEs are fetched in RTS only */
	if (READ_ONCE(qp->hstate) != XIB_QPS_RTS ||
	    xib_hca_ring_read_prod(&sq->ring) == sq->fetch)
		return false;
	w = xib_hca_ring_slot(&sq->ring, sq->fetch);
	return !xib_hca_wr_local(READ_ONCE(w->opcode));
}

/*
 * Does the RC packet at @pkt_psn of @swqe (its packet sq.send_pkt, or
 * its request), whose PSNs end before @end, ask for an ACK
 * (xib_hca_ackreq())?  @ask: the budget wants one (xib_hca_cc_admit()).
 */
static bool xib_hca_req_ask(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe,
			    u32 pkt_psn, u32 end, bool ask)
{
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_ask a = {
		.ask = ask || xib_hca_cc_last(qp, pkt_psn),
		.wqe_last = xib_hca_has_resp(swqe) ||
			    sq->send_pkt + 1 >= swqe->npkts,
		.cwnd = sq->cwnd,
		.inflight = xib_hca_sq_beyond_una(sq, end),
		.unasked = sq->unasked,
	};

	lockdep_assert_held(&sq->lock);
	a.more = a.wqe_last && xib_hca_next_sends(qp);
	return xib_hca_ackreq(&a);
}

/* --- fetching and validating WQEs ---------------------------------------- */

/*
 * Does the QP's transport carry WR @opcode?  The requester's opcode table
 * (hca_wire.c) answers: UD has SENDs only, UC SENDs and RDMA WRITEs (no
 * READ, no atomics: IBTA table 38 has no UC opcode for them), RC all.
 */
static bool xib_hca_opcode_ok(struct xib_hca_qp *qp, u32 opcode)
{
	/* local operations: windows are bound on RC and UC QPs (IBTA 10.6.7) */
	if (opcode == XIB_HCA_WR_BIND_MW || opcode == XIB_HCA_WR_LOCAL_INV)
		return qp->ibqp.qp_type != XIB_QPT_UD;
	return xib_hca_req_bth_opcode(xib_hca_qp_transport(qp), opcode,
				      XIB_POS_ONLY) >= 0;
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
		if (xib_hca_has_resp(swqe) ||
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
				xib_hca_has_resp(swqe) ?
				XIB_ACCESS_LOCAL_WRITE : 0, &total);
	if (ret == -EMSGSIZE)
		return XIB_HCA_WC_LOC_LEN_ERR;
	if (ret)
		return XIB_HCA_WC_LOC_PROT_ERR;
	swqe->len = total;
	if (xib_hca_is_atomic(swqe)) {
		/* the original remote data lands in the first 8 bytes */
		if (total < sizeof(u64))
			return XIB_HCA_WC_LOC_LEN_ERR;
		swqe->len = sizeof(u64);
	}
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

/* Execute a BIND_MW or LOCAL_INV (its fields from user space). */
static u8 xib_hca_local_op(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	const struct xib_hca_send_wqe *w = &swqe->wqe;
	struct xib_mw_bind b = {};

	if (w->opcode == XIB_HCA_WR_LOCAL_INV)
		return xib_invalidate_mw(&qp->ibqp, qp->ibqp.pd,
					 w->invalidate_rkey) ?
		       XIB_HCA_WC_LOC_PROT_ERR : XIB_HCA_WC_SUCCESS;
	if (w->bind.flags & ~XIB_HCA_BIND_TYPE1)
		return XIB_HCA_WC_MW_BIND_ERR;
	b.new_rkey = w->bind.new_rkey;
	b.addr = w->bind.addr;
	b.length = w->bind.length;
	b.access = w->bind.access;
	b.type1 = w->bind.flags & XIB_HCA_BIND_TYPE1;
	return xib_bind_mw(&qp->ibqp, w->bind.mw_rkey, w->bind.mr_lkey, &b) ?
	       XIB_HCA_WC_MW_BIND_ERR : XIB_HCA_WC_SUCCESS;
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
	if (xib_hca_is_local(swqe))
		return xib_hca_local_op(qp, swqe);
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

	if (xib_hca_is_local(swqe)) {
		/* done already: no packet, no PSN */
		swqe->first_psn = qp->sq.psn;
		swqe->acked = true;
		return;
	}
	if (xib_hca_is_atomic(swqe)) {
		swqe->npkts = 1;
		swqe->resp_pkts = 1;
	} else if (xib_hca_is_read(swqe)) {
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
	u64 t0;

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
	t0 = xib_hca_prof_begin();
	swqe->status = xib_hca_fetch_wqe(qp, sq->fetch, swqe);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_REQ_FETCH, t0);
	trace_xib_hca_post(qp->ibqp.device->index, qp->ibqp.qp_num,
			   swqe->wqe.wr_id, swqe->wqe.opcode, swqe->len,
			   swqe->status);
	if (swqe->status == XIB_HCA_WC_SUCCESS)
		xib_hca_assign_psns(qp, swqe);
	sq->fetch++;
	return 1;
}

/* --- segmentation ------------------------------------------------------- */

/*
 * Packet @i of @swqe, asking for an ACK if @ackreq (RC); NULL if out of
 * memory or the data is gone.
 */
static struct sk_buff *xib_hca_req_pkt(struct xib_hca_qp *qp,
				       struct xib_hca_swqe *swqe, u32 i,
				       bool ackreq, bool *data_err)
{
	bool ud = qp->ibqp.qp_type == XIB_QPT_UD;
	bool rc = xib_hca_qp_reliable(qp);
	struct xib_hca_hdr_fields f = {};
	u32 off = i * qp->mtu, len = 0;
	struct sk_buff *skb;
	void *payload;
	int opcode;
	u64 t0;

	opcode = xib_hca_req_bth_opcode(xib_hca_qp_transport(qp),
					swqe->wqe.opcode,
					xib_pkt_pos(i, swqe->npkts));
	if (WARN_ON_ONCE(opcode < 0)) {	/* xib_hca_opcode_ok() let it by */
		*data_err = true;
		return NULL;
	}
	f.opcode = opcode;
	f.va = swqe->wqe.rdma.remote_addr;
	f.rkey = swqe->wqe.rdma.rkey;
	f.dma_len = swqe->len;
	if (xib_hca_is_atomic(swqe)) {
		bool cs = swqe->wqe.opcode == XIB_HCA_WR_ATOMIC_CMP_AND_SWP;

		/* ibv_send_wr: compare_add is the compare or the addend */
		f.va = swqe->wqe.atomic.remote_addr;
		f.rkey = swqe->wqe.atomic.rkey;
		f.swap_add = cs ? swqe->wqe.atomic.swap :
				  swqe->wqe.atomic.compare_add;
		f.compare = cs ? swqe->wqe.atomic.compare_add : 0;
		f.psn = swqe->first_psn;
	} else if (!xib_hca_is_read(swqe)) {
		len = min(swqe->len - off, qp->mtu);
		f.psn = xib_psn_add(swqe->first_psn, i);
	} else {
		/* from the first response not received yet (9.7.5.1.3) */
		xib_hca_read_rereq(f.va, swqe->len, qp->mtu, swqe->rcvd,
				   &f.va, &f.dma_len);
		f.psn = xib_psn_add(swqe->first_psn, swqe->rcvd);
	}
	f.dqpn = ud ? swqe->dqpn : qp->dest_qpn;
	/* UC and UD: nothing is acknowledged */
	f.ackreq = rc && ackreq;
	f.se = (swqe->wqe.flags & XIB_HCA_SEND_SOLICITED) &&
	       i + 1 == swqe->npkts;
	f.imm = swqe->wqe.imm_data;
	f.inv_rkey = swqe->wqe.invalidate_rkey;
	f.qkey = swqe->qkey;
	f.sqpn = qp->ibqp.qp_num;
	/* XRC: every request packet names the remote XRC SRQ (XRCETH) */
	f.xrcsrq = swqe->wqe.xrc_srqn & XIB_XRCSRQ_MASK;

	skb = xib_hca_build_pkt(qp, &f, len, &payload);
	if (!skb)
		return NULL;
	if (len) {
		t0 = xib_hca_prof_begin();
		if (swqe->wqe.flags & XIB_HCA_SEND_INLINE) {
			memcpy(payload, swqe->inline_data + off, len);
		} else if (xib_hca_sge_copy(qp, swqe->sge, swqe->wqe.num_sge,
					    off, payload, len, false)) {
			kfree_skb(skb);
			*data_err = true;
			return NULL;
		}
		xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_REQ_PAYLOAD, t0);
	}
	/* an ACK will come for it: the QP may wait for one (sq.ack_asked) */
	if (f.ackreq && !xib_psn_before(f.psn, qp->sq.ack_asked))
		qp->sq.ack_asked = xib_psn_add(f.psn, 1);
	if (rc)
		qp->sq.unasked = f.ackreq ? 0 : qp->sq.unasked + 1;
	return skb;
}

/* The sender passed the last packet of WQE @send. */
static void xib_hca_wqe_sent(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	struct xib_hca_sq *sq = &qp->sq;

	sq->send++;
	sq->send_pkt = 0;
	/* UC and UD: done once its last packet is sent (no ACK comes) */
	if (!xib_hca_qp_reliable(qp))
		swqe->acked = true;
}

/* RDMA READs and atomics sent whose response has not all arrived. */
static u32 xib_hca_reads_out(struct xib_hca_qp *qp)
{
	struct xib_hca_swqe *swqe;
	u32 i, n = 0;

	for (i = qp->sq.cons; i != qp->sq.send; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (xib_hca_has_resp(swqe) && !swqe->acked &&
		    swqe->status == XIB_HCA_WC_SUCCESS)
			n++;
	}
	return n;
}

/*
 * May the sender go on with @swqe?  READs and atomics: fewer than
 * max_rd_atomic outstanding (the responder has no more resources); a
 * fence: none outstanding.
 */
static bool xib_hca_may_send(struct xib_hca_qp *qp, struct xib_hca_swqe *swqe)
{
	if (swqe->status != XIB_HCA_WC_SUCCESS)
		return true;
	if (qp->sq.send_pkt)
		return true;
	if (xib_hca_has_resp(swqe))
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
	bool rc = xib_hca_qp_reliable(qp);
	struct xib_hca_sq *sq = &qp->sq;
	struct xib_hca_swqe *swqe;
	bool data_err = false, ask = false;
	u32 pkt_psn, end;
	u64 t0;
	int ret;

	lockdep_assert_held(&sq->lock);
	if (sq->send == sq->fetch) {
		if (READ_ONCE(qp->hstate) == XIB_QPS_SQD)
			return 0;	/* draining: no new WQE */
		ret = xib_hca_fetch_next(qp);
		if (ret < 0) {
			xib_hca_qp_event(qp, XIB_EVENT_QP_FATAL);
			xib_hca_qp_error(qp);
			return 1;
		}
		if (!ret)
			return 0;
	}
	swqe = xib_hca_swqe_at(qp, sq->send);
	if (xib_hca_is_local(swqe) && swqe->status == XIB_HCA_WC_SUCCESS) {
		xib_hca_wqe_sent(qp, swqe);
		xib_hca_retire_done(qp);
		return 1;
	}
	if (rc && swqe->status == XIB_HCA_WC_SUCCESS) {
		/* after a rewind: what the responder has is not sent again */
		if (!xib_hca_has_resp(swqe))
			sq->send_pkt = max(sq->send_pkt,
					   xib_hca_resume_pkt(swqe->first_psn,
							      swqe->npkts,
							      sq->rx.una));
		if (swqe->acked || sq->send_pkt >= swqe->npkts) {
			xib_hca_wqe_sent(qp, swqe);
			xib_hca_retire_done(qp);
			return 1;
		}
	}
	pkt_psn = xib_psn_add(swqe->first_psn, xib_hca_has_resp(swqe) ?
			      swqe->rcvd : sq->send_pkt);
	if (!xib_hca_may_send(qp, swqe)) {
		sq->blocked = true;	/* until a response arrives */
		return 0;
	}
	/* a WQE in error sends nothing: it only completes, in order */
	if (rc && swqe->status == XIB_HCA_WC_SUCCESS &&
	    !xib_hca_cc_admit(qp, pkt_psn, &ask))
		return 0;
	if (swqe->status != XIB_HCA_WC_SUCCESS) {
		/* completes in order, then the QP goes to ERR */
		sq->send++;
		xib_hca_retire_done(qp);
		return 1;
	}
	/* the PSN after the packet's (after a READ's responses) */
	end = xib_hca_has_resp(swqe) ?
	      xib_psn_add(swqe->first_psn, swqe->resp_pkts) :
	      xib_psn_add(pkt_psn, 1);
	ask = rc && xib_hca_req_ask(qp, swqe, pkt_psn, end, ask);
	t0 = xib_hca_prof_begin();
	*skb = xib_hca_req_pkt(qp, swqe, sq->send_pkt, ask, &data_err);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_REQ_BUILD, t0);
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
		/*
		 * time the round trip of a packet sent for the first time
		 * that draws an answer at once (an ACK it asks for, a READ
		 * or atomic response): the others' waits for a later one
		 */
		if (!sq->rtt_timing && (ask || xib_hca_has_resp(swqe)) &&
		    !xib_psn_before(pkt_psn, sq->hi_psn)) {
			sq->rtt_timing = true;
			sq->rtt_psn = pkt_psn;
			sq->rtt_start = ktime_get_ns();
		}
		if (xib_psn_before(sq->hi_psn, end)) {
			sq->hi_psn = end;
			xib_hca_cc_sync(qp);
		}
		xib_hca_rto_arm(qp);
	}
	if (++sq->send_pkt == swqe->npkts) {
		xib_hca_wqe_sent(qp, swqe);
		if (!rc)
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
	if ((qp->sq.timed_out || qp->sq.probe_due) && !qp->dead &&
	    xib_hca_req_sends(READ_ONCE(qp->hstate))) {
		if (qp->sq.timed_out)
			xib_hca_comp_timeout(qp);
		else
			xib_hca_comp_probe(qp);
		done++;
	}
	while (done < budget && !qp->dead && !qp->sq.stalled &&
	       xib_hca_req_sends(READ_ONCE(qp->hstate))) {
		skb = NULL;
		if (!xib_hca_req_step(qp, &skb, &path))
			break;
		done++;
		if (!skb)
			continue;
		spin_unlock_bh(&qp->sq.lock);
		xib_hca_xmit(qp_hca(qp), skb, &path);
		xib_hca_engine_beat(qp_hca(qp));
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
	if (xib_hca_sq_flushes(state))
		return prod != READ_ONCE(sq->cons);
	if (!xib_hca_req_sends(state) || READ_ONCE(sq->stalled))
		return false;
	if (READ_ONCE(sq->timed_out) || READ_ONCE(sq->probe_due))
		return true;
	if (READ_ONCE(sq->blocked))
		return false;
	/* held back by the device's budget: until it frees */
	if (READ_ONCE(sq->cc_held))
		return !READ_ONCE(max_inflight) ||
		       (unsigned int)atomic_read(&qp_hca(qp)->cc_inflight) <
		       READ_ONCE(max_inflight);
	if (READ_ONCE(sq->send) != READ_ONCE(sq->fetch))
		return true;
	/* SQD: new WQEs wait for RTS */
	return state == XIB_QPS_RTS && prod != READ_ONCE(sq->fetch);
}

/**
 * xib_hca_req_flush() - complete every outstanding send WQE with
 * WR_FLUSH_ERR (the QP is in ERR or SQE)
 * @qp: the QP
 *
 * The worker decides to flush on a state it read before; modify_qp may
 * have taken the QP from SQE back to RTS since, and the program may have
 * posted WQEs that are to be sent, not flushed.  So the state is read
 * again here, and once more after the ring's producer index: a WQE
 * posted after the move to RTS is in a producer index read before a
 * state that is no longer SQE (the poster's release store of prod comes
 * after its modify_qp).
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
	if (qp->dead || !xib_hca_sq_flushes(READ_ONCE(qp->hstate)))
		goto out;
	del_timer(&qp->timer);
	sq->stalled = false;
	sq->timed_out = false;
	sq->probe_due = false;
	sq->pto_armed = false;
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
	/* nothing of it is in flight any more: the budget is the others' */
	sq->cc_held = false;
	xib_hca_cc_sync(qp);
	/* an acquire: the state below is read after prod (see above) */
	prod = xib_hca_ring_read_prod(&sq->ring);
	if (!xib_hca_sq_flushes(READ_ONCE(qp->hstate)))
		goto publish;
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
