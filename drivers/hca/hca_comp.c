// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca completer: what the requester learns back from the responder
 * (IBTA vol. 1 9.7.5.1, 9.7.6): ACKs, NAKs, RNR NAKs, RDMA READ
 * responses and ATOMIC ACKNOWLEDGEs (softirq, xib_hca_comp_recv()), the QP's timer (the local
 * ACK timeout and the RNR wait), going back to resend (xib_hca_rewind(),
 * go-back-N) and the completion of send WQEs.  WQEs complete strictly in
 * order: UD ones when sent, RC ones when the responder's ACK (or, for
 * RDMA READ, the last read response; for an atomic, its ATOMIC
 * ACKNOWLEDGE, whose original data goes to the WQE's first 8 bytes)
 * covers them.  An atomic is handled as a one-response READ throughout:
 * an ACK past it means its response was lost, and it is sent again with
 * the same PSN, which the responder answers from its replay cache.
 *
 * RC reliability: the WQEs between the oldest unretired one (cons) and
 * the newest fetched one stay in the kernel array, so any packet of them
 * can be built again.  The sender goes back to a PSN (go-back-N):
 *  - after a local ACK timeout: qp->timer, armed while packets are
 *    unacknowledged and restarted by every progress, expires; the worker
 *    resends from the oldest unacknowledged PSN (xib_hca_comp_timeout()),
 *    one packet first (cwnd 1, doubled back by each progress);
 *  - on a PSN sequence NAK: from the NAK's PSN;
 *  - on a gap in RDMA READ responses (a later response, or an ACK past
 *    the READ): the READ is requested again from its first missing
 *    response, with the PSN of that response and the RETH moved on;
 *  - on an RNR NAK: from its PSN once the RNR timer (the same qp->timer)
 *    expires, rnr_retry times (7: forever), then RNR_RETRY_EXC_ERR.
 *
 * The retry budget (IBTA 9.7.6.1; the pure rules are hca_retx.c's
 * xib_hca_retx_*()): a timer expiry, a sequence NAK and a READ gap each
 * spend one of retry_cnt retries; once none is left the oldest WQE
 * completes with RETRY_EXC_ERR and the QP goes to ERR (the rest is
 * flushed).  Any response that acknowledges something new (moves the
 * oldest unacknowledged PSN, sq.rx.una, on) restores the budget, ends the
 * timer's backoff and restores the RNR budget as well.  Responses that
 * acknowledge nothing new change nothing: an ACK at or behind sq.rx.una,
 * a sequence NAK older than it (reordered behind later responses), a copy
 * of the sequence NAK already acted on (the responder NAKs a gap once;
 * a second NAK for the same PSN with no progress in between is the
 * network's duplicate, unless it comes half a re-NAK interval later:
 * then the responder NAKed the gap again because the retransmission was
 * lost, hca_retx.c's xib_hca_retx_seq_nak_at()), a stale RNR NAK.  Such
 * a response used to rewind the sender and spend a retry, which is how a
 * network that reorders and duplicates ran the budget out while data was
 * flowing (issue 15).
 *
 * The timer (RFC 6298, xib_hca_rto_us()): it runs for the QP's local ACK
 * timeout, 4.096 us * 2^timeout, or for SRTT + 4 * RTTVAR if that is
 * longer, doubled for each expiry in a row without progress, at most 4x
 * (the IBTA's allowance).  The round trip is sampled on one packet at a
 * time, sent for the first time, when an acknowledgment covers it; a
 * retransmission cancels the sample (Karn).  A peer that is gone is thus
 * found out after retry_cnt + 1 expiries: between (retry_cnt + 1) and
 * 4 * (retry_cnt + 1) timeouts (for timeout 14 and retry_cnt 7, 27 * 67
 * ms = 1.8 s on a fast path).  Progress that arrives after the timer
 * expired but before the worker acted on it cancels the expiry.
 *
 * Tail-loss probe (hca_retx.c, xib_hca_tlp_pto_us()): when the last
 * packets of a burst, their ACK or the one sequence NAK of a gap are
 * lost, nothing reveals it but the timer.  So while packets are
 * unacknowledged, no probe went out since the last progress and the timer
 * is not backing off, qp->timer first runs for the probe timeout (PTO,
 * about two round trips, at least two ticks; @sq->pto_armed), from the
 * last packet sent (the send window bounds how long that can go on).  If
 * it expires with nothing acknowledged since, the worker sends a probe
 * (xib_hca_comp_probe()): exactly what a timeout resends (the oldest
 * unacknowledged packet, or the first missing response of a READ, cwnd 1
 * so that it asks for an ACK), but it spends no retry, does not back off
 * and counts no local ACK timeout; the timer then runs for the regular
 * timeout.  The responder answers it with what it has: an ACK of what
 * arrived (a duplicate: re-ACK, READ and atomic replayed from its
 * resources), or it executes it (it is the expected PSN: the responder
 * expects no PSN before the oldest unacknowledged one, and one after it
 * only when an ACK was lost, which the re-ACK then reveals); so a lost
 * sequence NAK is recovered too.  A dead peer is found out at most one
 * PTO later than without the probe (counted from the last packet sent).
 * While the device has (nearly) its budget of packets in flight, the
 * QP's packets wait behind the other QPs' and an expiry is more likely
 * queueing than loss: the timer runs for one more PTO instead, at most
 * XIB_HCA_PTO_MAX_DEFER times per stall (xib_hca_retx_probe_defer()),
 * and a loss or a dead peer is found out that much later.
 *
 * Counters of all this are in sq.st (struct xib_hca_rtx_stats); their
 * summary goes to the kernel log when a QP runs out of retries.
 *
 * UC: no ACK comes; the requester completes a UC WQE when its last packet
 * is sent (hca_req.c), so nothing here concerns UC.
 *
 * Locking: all requester state is under qp->sq.lock (worker: _bh; ACK
 * path and qp->timer: softirq).  qp->timer is armed only under the lock
 * (hca.h).
 */
#include <linux/skbuff.h>

#include "hca.h"
#include "hca_trace.h"

/* RNR timer values of the IBTA (table 45), in microseconds. */
static const u32 xib_hca_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* --- completing send WQEs ------------------------------------------------ */

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
	case XIB_HCA_WR_BIND_MW:
		return XIB_HCA_WC_BIND_MW;
	case XIB_HCA_WR_LOCAL_INV:
		return XIB_HCA_WC_LOCAL_INV;
	default:
		return XIB_HCA_WC_SEND;
	}
}

/* Write the CQE of a send WQE (if it needs one); false on CQ overflow. */
bool xib_hca_send_cqe(struct xib_hca_qp *qp, u64 wr_id, u32 opcode,
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
		xib_hca_qp_send_error(qp);
}

/* Retire every WQE at the head that is done; stop after an error. */
int xib_hca_retire_done(struct xib_hca_qp *qp)
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
	return sq->cons != sq->send || xib_psn_before(sq->rx.una, sq->hi_psn);
}

/*
 * The current timeout in jiffies: the QP's, lengthened to the measured
 * round trip, doubled per expiry in a row (xib_hca_rto_us()).
 */
static unsigned long xib_hca_rto_now(const struct xib_hca_sq *sq)
{
	u32 jiffy_us = jiffies_to_usecs(1);
	u64 us = xib_hca_rto_us(&sq->rtt, sq->rto_floor_us, jiffy_us,
				sq->rx.backoff);

	/*
	 * Rounded up, and one jiffy more: a timer armed for n jiffies may
	 * expire after n - 1 and a bit, and it must not be shorter than asked.
	 */
	return DIV_ROUND_UP_ULL(us, jiffy_us) + 1;
}

/*
 * The probe timeout in jiffies, or 0 for none (xib_hca_tlp_pto_us()).  A
 * timer armed for n jiffies runs for more than n - 1: at least one jiffy
 * for the floor of two.
 */
static unsigned long xib_hca_pto_now(const struct xib_hca_sq *sq)
{
	u32 jiffy_us = jiffies_to_usecs(1);
	u64 us;

	if (!xib_hca_retx_probe_due(&sq->rx))
		return 0;
	us = xib_hca_tlp_pto_us(&sq->rtt,
				xib_hca_rto_us(&sq->rtt, sq->rto_floor_us,
					       jiffy_us, sq->rx.backoff),
				jiffy_us);
	return DIV_ROUND_UP_ULL(us, jiffy_us);
}

/* (Re)start qp->timer: for the probe timeout if one is due, else the RTO. */
static void xib_hca_rto_set(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	unsigned long pto = xib_hca_pto_now(sq);

	lockdep_assert_held(&sq->lock);
	sq->pto_armed = pto != 0;
	mod_timer(&qp->timer, jiffies + (pto ? pto : xib_hca_rto_now(sq)));
}

/*
 * A packet went out: make sure the timer runs.  The probe timeout counts
 * from the last packet sent (RFC 8985 7.2): a probe is for when the
 * sender has nothing more to send and waits; the local ACK timeout runs
 * from the first packet not acknowledged.
 */
void xib_hca_rto_arm(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (!sq->rto_floor_us || sq->stalled)
		return;
	if (!timer_pending(&qp->timer) || sq->pto_armed)
		xib_hca_rto_set(qp);
}

/* Progress or a retransmission: the timeout starts again, if needed. */
static void xib_hca_rto_restart(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (sq->stalled)
		return;		/* the timer is the RNR wait */
	if (sq->rto_floor_us && xib_hca_outstanding(qp)) {
		xib_hca_rto_set(qp);
	} else {
		sq->pto_armed = false;
		del_timer(&qp->timer);
	}
}

/*
 * The probe timer expired while the device's queue is full: wait one more
 * probe timeout if the rule allows it (hca_retx.c,
 * xib_hca_retx_probe_defer(), which allows it only while a probe is due,
 * so xib_hca_pto_now() is not 0); the timer stays armed for the probe.
 */
static bool xib_hca_pto_defer(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (!xib_hca_retx_probe_defer(&sq->rx, xib_hca_cc_busy(qp_hca(qp))))
		return false;
	mod_timer(&qp->timer, jiffies + xib_hca_pto_now(sq));
	return true;
}

/**
 * xib_hca_qp_timer() - qp->timer expired
 * @t: the timer
 *
 * The RNR wait is over, or packets went unacknowledged for the probe
 * timeout or the local ACK timeout: flag it and wake the worker, which
 * sends again.  Softirq.
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
	} else if (sq->rto_floor_us && xib_hca_outstanding(qp)) {
		/* a probe due may wait one more PTO (the timer runs on) */
		if (!sq->pto_armed)
			sq->timed_out = true;
		else if (xib_hca_pto_defer(qp))
			goto out;
		else
			sq->probe_due = true;
		kick = true;
	}
	sq->pto_armed = false;
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
	pkt = xib_hca_has_resp(swqe) ? 0 :
	      xib_hca_resume_pkt(swqe->first_psn, swqe->npkts, psn);
	if (i == sq->send && pkt >= sq->send_pkt)
		return;
	sq->st.rewinds++;
	sq->send = i;
	sq->send_pkt = pkt;
}

/* What the retransmission did, for whoever reads the kernel log. */
static void xib_hca_retry_exc_log(struct xib_hca_qp *qp)
{
	const struct xib_hca_sq *sq = &qp->sq;

	pr_info_ratelimited("QP %u: retry count exceeded at PSN %06x after %u retries without progress (%u timeouts); since creation: timeouts %llu rewinds %llu seq NAKs %llu (ignored: stale %llu, duplicate %llu) stale ACKs/NAKs %llu retries %llu; timer %u us (SRTT %u us, RTTVAR %u us)\n",
			    qp->ibqp.qp_num, sq->rx.una, sq->st.retry_run,
			    sq->st.run_timeouts, sq->st.timeouts,
			    sq->st.rewinds, sq->st.seq_naks,
			    sq->st.stale_naks, sq->st.dup_naks, sq->st.stale,
			    sq->st.retries,
			    jiffies_to_usecs(xib_hca_rto_now(sq)),
			    sq->rtt.srtt_us, sq->rtt.rttvar_us);
}

/*
 * Act on a verdict of the retry budget (hca_retx.c): RETRY resends from
 * @psn, EXHAUSTED completes the oldest WQE with RETRY_EXC_ERR and moves
 * the QP to ERR (the rest is flushed), anything else does nothing.
 */
static void xib_hca_retry(struct xib_hca_qp *qp, u32 psn,
			  enum xib_hca_retx_verdict v)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	if (v == XIB_HCA_RETX_EXHAUSTED) {
		sq->timed_out = false;
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RETRY_EXCEEDED);
		xib_hca_retry_exc_log(qp);
		xib_hca_fail_head(qp, XIB_HCA_WC_RETRY_EXC_ERR);
		return;
	}
	if (v != XIB_HCA_RETX_RETRY)
		return;
	sq->timed_out = false;
	sq->rtt_timing = false;	/* Karn: resent packets are not timed */
	sq->st.retries++;
	sq->st.retry_run++;
	sq->st.retry_run_max = max(sq->st.retry_run_max, sq->st.retry_run);
	xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RETRIES);
	trace_xib_hca_retransmit(qp->ibqp.device->index, qp->ibqp.qp_num, psn,
				 sq->rx.retry_left);
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
		return sq->rx.una;
	swqe = xib_hca_swqe_at(qp, sq->cons);
	if (swqe->status != XIB_HCA_WC_SUCCESS || swqe->acked ||
	    !xib_hca_has_resp(swqe))
		return sq->rx.una;
	missing = xib_psn_add(swqe->first_psn, swqe->rcvd);
	return xib_psn_before(missing, sq->rx.una) ? missing : sq->rx.una;
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
	xib_hca_retry(qp, psn, xib_hca_retx_read_gap(&sq->rx));
}

/**
 * xib_hca_comp_timeout() - act on the local ACK timeout qp->timer flagged
 * @qp: the RC QP, in RTS; sq.lock held
 *
 * Go back to the oldest unacknowledged packet, but probe with one packet
 * first: the peer may only be slow, with the rest still queued.  Worker
 * context, before the requester sends (xib_hca_req_process()).
 */
void xib_hca_comp_timeout(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	sq->rd_gap = false;
	sq->probe_due = false;
	if (xib_hca_outstanding(qp)) {
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_LOCAL_ACK_TIMEOUTS);
		sq->st.timeouts++;
		sq->st.run_timeouts++;
		sq->cwnd = 1;
		sq->probe_out = false;
		xib_hca_retry(qp, xib_hca_resend_point(qp),
			      xib_hca_retx_expiry(&sq->rx));
	}
	sq->timed_out = false;
}

/**
 * xib_hca_comp_probe() - send the tail-loss probe qp->timer flagged
 * @qp: the RC QP, in RTS; sq.lock held
 *
 * Resend from where a timeout would (the oldest unacknowledged packet,
 * one packet, asking for an ACK), but spend no retry, do not back off,
 * count no local ACK timeout; the timer then runs for the regular
 * timeout.  Worker context, before the requester sends.
 */
void xib_hca_comp_probe(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;
	u32 psn;

	lockdep_assert_held(&sq->lock);
	sq->probe_due = false;
	if (sq->stalled)
		return;		/* the timer is the RNR wait */
	if (!xib_hca_outstanding(qp) || !xib_hca_retx_probe(&sq->rx)) {
		xib_hca_rto_restart(qp);
		return;
	}
	psn = xib_hca_resend_point(qp);
	xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_TAIL_PROBES);
	sq->st.probes++;
	sq->probe_out = true;
	sq->rd_gap = false;
	sq->cwnd = 1;
	sq->rtt_timing = false;	/* Karn: resent packets are not timed */
	trace_xib_hca_retransmit(qp->ibqp.device->index, qp->ibqp.qp_num, psn,
				 sq->rx.retry_left);
	xib_hca_rewind(qp, psn);
	sq->blocked = false;
	xib_hca_rto_restart(qp);
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
		if (xib_hca_has_resp(swqe))
			break;	/* needs its data: lost responses */
		swqe->acked = true;
	}
	xib_hca_retire_done(qp);
}

/*
 * Progress: @sq->rx.una moved on (xib_hca_retx_ack() restored the retries
 * and ended the backoff).  A round trip being timed and now acknowledged
 * is a sample; an expiry the worker has not acted on yet is moot; the
 * local ACK timeout starts again; the RNR retries are restored.
 */
static void xib_hca_progress(struct xib_hca_qp *qp)
{
	struct xib_hca_sq *sq = &qp->sq;

	lockdep_assert_held(&sq->lock);
	sq->st.retry_run = 0;
	sq->st.run_timeouts = 0;
	sq->rnr_left = qp->rnr_retry;
	sq->timed_out = false;
	sq->probe_due = false;
	if (sq->probe_out) {
		sq->probe_out = false;
		sq->st.probe_progress++;
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_TAIL_PROBE_PROGRESS);
	}
	if (sq->rtt_timing && xib_psn_before(sq->rtt_psn, sq->rx.una)) {
		sq->rtt_timing = false;
		xib_hca_rtt_sample(&sq->rtt,
				   min_t(u64, U32_MAX,
					 div_u64(ktime_get_ns() - sq->rtt_start,
						 NSEC_PER_USEC)));
	}
	sq->cwnd = min_t(u32, sq->cwnd * 2, XIB_HCA_SEND_WINDOW);
	xib_hca_cc_sync(qp);
	xib_hca_rto_restart(qp);
}

/* Everything before @psn has arrived at the responder. */
static void xib_hca_una(struct xib_hca_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->sq.lock);
	if (xib_hca_retx_ack(&qp->sq.rx, psn) == XIB_HCA_RETX_PROGRESS)
		xib_hca_progress(qp);
}

static void xib_hca_rnr_nak(struct xib_hca_qp *qp, u32 psn, u8 timer)
{
	struct xib_hca_sq *sq = &qp->sq;

	if (xib_psn_before(psn, sq->rx.una))
		return;	/* stale: about a PSN acknowledged since */
	xib_hca_ack_through(qp, xib_psn_add(psn, XIB_PSN_MASK));
	xib_hca_una(qp, psn);
	sq->rnr_naks++;
	if (!sq->rnr_left) {
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RNR_RETRY_EXCEEDED);
		xib_hca_fail_head(qp, XIB_HCA_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (sq->rnr_left != 7)
		sq->rnr_left--;
	xib_hca_rewind(qp, psn);
	sq->stalled = true;
	sq->timed_out = false;
	sq->probe_due = false;
	sq->pto_armed = false;
	mod_timer(&qp->timer, jiffies +
		  usecs_to_jiffies(xib_hca_rnr_usec[timer & 31]));
}

static void xib_hca_nak(struct xib_hca_qp *qp, u32 psn, u8 code)
{
	enum xib_hca_retx_verdict v;
	u32 una;

	xib_hca_ack_through(qp, xib_psn_add(psn, XIB_PSN_MASK));
	switch (code) {
	case XIB_AETH_NAK_PSN_SEQ:
		qp->sq.st.seq_naks++;
		una = qp->sq.rx.una;
		v = xib_hca_retx_seq_nak_at(&qp->sq.rx, psn, ktime_get_ns(),
					    xib_hca_renak_us(&qp->sq.rtt));
		if (qp->sq.rx.una != una)
			xib_hca_progress(qp);
		else if (v == XIB_HCA_RETX_IGNORE && xib_psn_before(psn, una))
			qp->sq.st.stale_naks++;
		else if (v == XIB_HCA_RETX_IGNORE)
			qp->sq.st.dup_naks++;
		/* a READ before @psn may have lost responses too */
		xib_hca_retry(qp, xib_hca_resend_point(qp), v);
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
	u32 una = qp->sq.rx.una;

	/* about a PSN never sent: stale or bogus */
	if (!xib_psn_before(psn, qp->sq.hi_psn))
		return;
	if ((syn & XIB_AETH_TYPE_MASK) != XIB_AETH_ACK)
		trace_xib_hca_nak_rcvd(qp->ibqp.device->index, qp->ibqp.qp_num,
				       syn, psn);
	if ((syn & XIB_AETH_TYPE_MASK) == XIB_AETH_ACK ?
	    !xib_psn_before(una, xib_psn_add(psn, 1)) :
	    xib_psn_before(psn, una))
		qp->sq.st.stale++;
	switch (syn & XIB_AETH_TYPE_MASK) {
	case XIB_AETH_ACK:
		xib_hca_ack_through(qp, psn);
		xib_hca_una(qp, xib_psn_add(psn, 1));
		if (xib_hca_resend_point(qp) != qp->sq.rx.una)
			xib_hca_read_gap(qp, xib_hca_resend_point(qp));
		break;
	case XIB_AETH_RNR_NAK:
		xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_RNR_NAKS_RCVD);
		xib_hca_rnr_nak(qp, psn, syn & XIB_AETH_VALUE_MASK);
		break;
	case XIB_AETH_NAK:
		xib_hca_stat_inc(qp_hca(qp), (syn & XIB_AETH_VALUE_MASK) ==
				 XIB_AETH_NAK_PSN_SEQ ?
				 XIB_HCA_STAT_SEQ_NAKS_RCVD :
				 XIB_HCA_STAT_ERR_NAKS_RCVD);
		xib_hca_nak(qp, psn, syn & XIB_AETH_VALUE_MASK);
		break;
	default:
		break;	/* reserved: ignore */
	}
}

/*
 * The oldest READ or atomic still missing responses (it may not be sent
 * yet).
 */
static struct xib_hca_swqe *xib_hca_find_read(struct xib_hca_qp *qp)
{
	struct xib_hca_swqe *swqe;
	u32 i;

	for (i = qp->sq.cons; i != qp->sq.fetch; i++) {
		swqe = xib_hca_swqe_at(qp, i);
		if (swqe->status == XIB_HCA_WC_SUCCESS && !swqe->acked &&
		    xib_hca_has_resp(swqe))
			return swqe;
	}
	return NULL;
}

/* The ATOMIC ACKNOWLEDGE of @swqe (in order): its original data. */
static void xib_hca_atomic_resp(struct xib_hca_qp *qp,
				struct xib_hca_swqe *swqe,
				const struct xib_hca_pkt *pkt)
{
	const struct xib_atmack *atm = xib_hca_pkt_hdr(pkt, XIB_HDR_ATMACK);
	u64 orig = xib_atmack_orig(atm);

	if (xib_hca_sge_copy(qp, swqe->sge, swqe->wqe.num_sge, 0, &orig,
			     sizeof(orig), true)) {
		swqe->status = XIB_HCA_WC_LOC_PROT_ERR;
		xib_hca_retire_done(qp);
		return;
	}
	qp->sq.rd_gap = false;
	xib_hca_una(qp, xib_psn_add(swqe->first_psn, 1));
	swqe->rcvd = 1;
	swqe->acked = true;
	xib_hca_retire_done(qp);
}

/* A READ response or an ATOMIC ACKNOWLEDGE. */
static void xib_hca_read_resp(struct xib_hca_qp *qp,
			      const struct xib_hca_pkt *pkt)
{
	struct xib_hca_swqe *swqe = xib_hca_find_read(qp);
	u32 psn = xib_bth_psn(pkt->bth);
	u8 flags = pkt->info->flags;
	bool atomic = !!(pkt->info->hdrs & BIT(XIB_HDR_ATMACK));
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
	/* the response of the other kind: the responder is broken */
	if (atomic != xib_hca_is_atomic(swqe)) {
		xib_hca_fail_head(qp, XIB_HCA_WC_BAD_RESP_ERR);
		return;
	}
	if (atomic) {
		xib_hca_atomic_resp(qp, swqe, pkt);
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
 * xib_hca_comp_recv() - a response (ACK, NAK, read response) for @qp
 * @qp: the RC QP
 * @skb: the packet
 * @pkt: its parsed headers
 *
 * Softirq context.  Does not consume @skb.
 */
void xib_hca_comp_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		       const struct xib_hca_pkt *pkt)
{
	u8 op = xib_bth_opcode(pkt->bth) & ~XIB_TRANSPORT_MASK;
	int state = READ_ONCE(qp->hstate);
	struct xib_hca_sq *sq = &qp->sq;
	u32 cons, send, send_pkt, una;

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
	una = sq->rx.una;
	if (op == XIB_OP_ACKNOWLEDGE)
		xib_hca_ack(qp, pkt);
	else if (op >= XIB_OP_RDMA_READ_RESPONSE_FIRST &&
		 op <= XIB_OP_ATOMIC_ACKNOWLEDGE)
		xib_hca_read_resp(qp, pkt);	/* and ATOMIC ACKNOWLEDGE */
	/*
	 * Progress or a rewind: a blocked sender may continue; one the
	 * device's budget held back may be below its minimum now.
	 */
	if (sq->cons != cons || sq->send != send || sq->send_pkt != send_pkt ||
	    sq->blocked || (sq->cc_held && sq->rx.una != una)) {
		sq->blocked = false;
		WRITE_ONCE(sq->cc_held, false);
		xib_hca_kick_engine(qp_hca(qp));
	}
	spin_unlock_bh(&sq->lock);
}
