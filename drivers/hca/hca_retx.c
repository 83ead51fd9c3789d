// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca retransmission arithmetic: the pure parts of RC reliability
 * (IBTA vol. 1 9.7.5 and 9.7.6), kept apart from the engine so that
 * tests/kunit/xib_hca_retx_test.c can check them on their own.
 *
 * Requester: the local ACK timeout, where a WQE resumes after a rewind
 * (go-back-N) and how an RDMA READ is requested again from its first
 * missing response.  Responder: how a request PSN compares with the
 * expected one and how a duplicate READ replays its responder resource;
 * the UC responder's PSN and message-sequence rules (UC has no
 * retransmission, but its responder's PSN check is the same kind of
 * arithmetic).
 *
 * Nothing here takes a lock or touches anything but its arguments; the
 * callers hold the lock of the state they pass.
 */
#include <linux/kernel.h>
#include <linux/math64.h>

#include "hca.h"

/**
 * xib_hca_ack_timeout_ns() - the local ACK timeout of a QP attribute
 * @timeout: the QP's timeout attribute (5 bits)
 *
 * Return: 4.096 us * 2^@timeout in nanoseconds; 0 for 0 (infinite).
 */
u64 xib_hca_ack_timeout_ns(u8 timeout)
{
	timeout &= 31;
	if (!timeout)
		return 0;
	return 4096ULL << timeout;
}

/**
 * xib_hca_resume_pkt() - where a WQE is sent again from after a rewind
 * @first_psn: PSN of the WQE's first packet
 * @npsns: PSNs the WQE uses
 * @psn: the PSN the requester goes back to
 *
 * Return: the index of the first packet to send again: 0 if @psn is at or
 * before the WQE, @npsns if it is past it (nothing to resend).
 */
u32 xib_hca_resume_pkt(u32 first_psn, u32 npsns, u32 psn)
{
	s32 d = xib_psn_diff(psn, first_psn);

	if (d <= 0)
		return 0;
	return min_t(u32, d, npsns);
}

/**
 * xib_hca_read_rereq() - the RETH of an RDMA READ requested again
 * @va: the READ's remote address
 * @len: the READ's length in bytes
 * @mtu: path MTU in bytes
 * @rcvd: response packets received in order so far
 * @nva: returns the remote address still to read from
 * @nlen: returns the bytes still to read
 *
 * IBTA 9.7.5.1.3: a READ whose responses were partly lost is requested
 * again from the first missing response, with the PSN of that response
 * and the RETH moved on by the data already received.
 */
void xib_hca_read_rereq(u64 va, u32 len, u32 mtu, u32 rcvd, u64 *nva,
			u32 *nlen)
{
	u64 off = (u64)rcvd * mtu;

	if (off > len)
		off = len;
	*nva = va + off;
	*nlen = len - (u32)off;
}

/**
 * xib_hca_psn_classify() - a request PSN against the expected PSN
 * @psn: the packet's PSN
 * @epsn: the responder's expected PSN
 *
 * Return: EXPECTED, DUPLICATE (in the half of the PSN space before
 * @epsn) or AHEAD (a packet was lost or reordered).
 */
enum xib_hca_psn_class xib_hca_psn_classify(u32 psn, u32 epsn)
{
	s32 d = xib_psn_diff(psn, epsn);

	if (!d)
		return XIB_HCA_PSN_EXPECTED;
	return d < 0 ? XIB_HCA_PSN_DUPLICATE : XIB_HCA_PSN_AHEAD;
}

/**
 * xib_hca_rd_replay() - answer a duplicate RDMA READ or atomic again
 * @r: the responder state (its lock held)
 * @max_res: the QP's max_dest_rd_atomic: resources kept for duplicates
 * @psn: the PSN of the duplicate request
 * @atomic: the duplicate is an atomic (else a READ)
 *
 * IBTA 9.7.5.2.2 (C9-107..C9-109): a duplicate READ is executed again
 * from the response its PSN names, if that PSN is within a responder
 * resource still held.  The resource is sent again from there; resources
 * between it and the old @rd_head that were fully answered are skipped
 * by the sender (their own duplicates, if the requester sends them,
 * replay them).  A resource still being answered is only moved back.
 *
 * A resource answered in full (before @rd_head, or after it once an
 * earlier replay moved @rd_head back) is marked @replay: the requester
 * may have its first answer after all (a retransmission after a spurious
 * timeout), so it does not count against the requester's new requests
 * (xib_hca_res_new() drops it if it needs the room).
 *
 * A duplicate atomic must not be executed again: if its resource is
 * held, its ATOMIC ACKNOWLEDGE is sent again with the original data the
 * resource keeps (the replay cache); if not, it is dropped.  The newest
 * @max_res resources are held, READs and atomics alike; a requester
 * keeps at most that many outstanding, so it never asks again for one
 * that is gone.  A READ's PSN never replays an atomic or the reverse.
 *
 * Return: true if a response is to be sent, false if @psn names no held
 * resource of that kind (the duplicate is dropped).
 */
bool xib_hca_rd_replay(struct xib_hca_resp *r, u32 max_res, u32 psn,
		       bool atomic)
{
	u32 held = min3(r->rd_tail, max_t(u32, max_res, 1),
			(u32)XIB_HCA_MAX_RD_ATOM);
	u32 base = r->rd_tail - held;
	struct xib_hca_rd_res *res;
	u32 i;
	s32 d;

	for (i = base; i != r->rd_tail; i++) {
		res = &r->rd[i % XIB_HCA_MAX_RD_ATOM];
		d = xib_psn_diff(psn, res->psn);
		if (d < 0 || d >= (s32)res->npkts)
			continue;
		if (res->atomic != atomic)
			return false;	/* not what the PSN named: drop */
		if (r->rd_tail - i > r->rd_tail - r->rd_head) {
			/* answered already: send it again from @d */
			res->sent = d;
			res->first = d;
			res->replay = true;
			WRITE_ONCE(r->rd_head, i);
		} else if (res->sent >= res->npkts) {
			/* answered, after a replay moved @rd_head back */
			res->sent = d;
			res->first = d;
			res->replay = true;
		} else if ((u32)d < res->sent) {
			/* still being answered: go back */
			res->sent = d;
			res->first = d;
		}
		return true;
	}
	return false;
}

/**
 * xib_hca_res_new() - the responder resource for a new READ or atomic
 * @r: the responder state (its lock held)
 * @max_res: the QP's max_dest_rd_atomic
 *
 * Resources answered in full go first.  Resources being answered again
 * for a duplicate (@replay) stay while there is room, and make room when
 * there is none: they do not count against the requester's @max_res
 * outstanding READs and atomics (it may have had their first answer
 * after all; if not, it asks again after its timeout).  The slot
 * returned is not taken yet: the caller fills it in and then advances
 * @rd_tail, once the request is known to be good.
 *
 * Return: the slot at @rd_tail, or NULL if @max_res resources are still
 * to answer (the requester sent more than it may: NAK Invalid Request).
 */
struct xib_hca_rd_res *xib_hca_res_new(struct xib_hca_resp *r, u32 max_res)
{
	u32 max = min_t(u32, max_res, XIB_HCA_MAX_RD_ATOM);
	struct xib_hca_rd_res *res;

	while (r->rd_head != r->rd_tail) {
		res = &r->rd[r->rd_head % XIB_HCA_MAX_RD_ATOM];
		if (res->sent < res->npkts &&
		    (!res->replay || r->rd_tail - r->rd_head < max))
			break;
		res->replay = false;
		WRITE_ONCE(r->rd_head, r->rd_head + 1);
	}
	if (r->rd_tail - r->rd_head >= max)
		return NULL;
	return &r->rd[r->rd_tail % XIB_HCA_MAX_RD_ATOM];
}

/**
 * xib_hca_uc_classify() - the UC responder's PSN and sequence check
 * @in_msg: a multi-packet message is in progress
 * @in_write: the message in progress is an RDMA WRITE (else a SEND)
 * @epsn: the expected PSN
 * @psn: the packet's PSN
 * @flags: the packet's opcode flags (XIB_OPF_FIRST, _MIDDLE, _LAST)
 * @write: the packet is part of an RDMA WRITE (else of a SEND)
 *
 * IBTA vol. 1 9.7.5.1 (UC responder): there are no ACKs and no
 * retransmission, so a lost packet loses its message.  A MIDDLE or LAST
 * packet continues the message in progress only when it carries the
 * expected PSN and belongs to a message of its kind; otherwise it is
 * dropped and the message in progress is aborted (what arrived of it is
 * discarded, its receive WQE is not completed).  A FIRST or ONLY packet
 * always starts a new message, whatever its PSN: the expected PSN is
 * resynchronised to it, and a message still in progress is aborted.
 *
 * Return: what to do with the packet (enum xib_hca_uc_action).
 */
enum xib_hca_uc_action xib_hca_uc_classify(bool in_msg, bool in_write,
					   u32 epsn, u32 psn, u8 flags,
					   bool write)
{
	if (flags & XIB_OPF_FIRST)
		return XIB_HCA_UC_START;
	if (in_msg && write == in_write &&
	    ((psn ^ epsn) & XIB_PSN_MASK) == 0)
		return XIB_HCA_UC_CONTINUE;
	return XIB_HCA_UC_DROP;
}

/*
 * --- the requester's retry budget and timer --------------------------------
 *
 * IBTA vol. 1 9.7.6.1 (C9-139..C9-142): the requester retries after a
 * local ACK timeout and after a PSN sequence NAK, at most retry_cnt times
 * for the same packet; a retry counter that runs out completes the WQE
 * with a retry error.  "The same packet": the budget is restored by any
 * response that acknowledges something new (moves the oldest
 * unacknowledged PSN on).  Responses that acknowledge nothing new
 * (duplicated or reordered on the way, or older than what was already
 * acknowledged) are no evidence of loss and change nothing; a duplicate
 * of the sequence NAK already acted on is one as well.
 *
 * The timer: RFC 6298 (TCP's retransmission timer) estimates the round
 * trip from samples taken on packets sent once (Karn's rule, 3), keeps a
 * smoothed RTT and its variation, and backs off exponentially on
 * expiries in a row (5.5).  The IBTA's local ACK timeout is the floor:
 * the timer never runs for less than 4.096 us * 2^timeout, and the
 * estimate can only lengthen it when the path is slower than that.
 */

/**
 * xib_hca_retx_init() - the retry state of a QP entering RTS
 * @r: the state
 * @una: the first PSN the requester sends
 * @retry_cnt: the QP's retry_cnt (0 to 7)
 */
void xib_hca_retx_init(struct xib_hca_retx *r, u32 una, u8 retry_cnt)
{
	memset(r, 0, sizeof(*r));
	r->una = una & XIB_PSN_MASK;
	r->retry_cnt = retry_cnt & 7;
	r->retry_left = r->retry_cnt;
}

/**
 * xib_hca_retx_ack() - a response acknowledged every PSN before @next
 * @r: the state
 * @next: the first PSN the response does not acknowledge
 *
 * Progress (@next after @r->una) moves @r->una on, restores the retry
 * budget, ends the backoff and allows a tail-loss probe again; anything
 * else changes nothing.
 *
 * Return: XIB_HCA_RETX_PROGRESS or XIB_HCA_RETX_IGNORE.
 */
enum xib_hca_retx_verdict xib_hca_retx_ack(struct xib_hca_retx *r, u32 next)
{
	if (!xib_psn_before(r->una, next))
		return XIB_HCA_RETX_IGNORE;
	r->una = next & XIB_PSN_MASK;
	r->retry_left = r->retry_cnt;
	r->backoff = 0;
	r->nak_valid = false;
	r->probed = false;
	r->pto_defers = 0;
	return XIB_HCA_RETX_PROGRESS;
}

/* A retry: one from the budget, or none left. */
static enum xib_hca_retx_verdict xib_hca_retx_spend(struct xib_hca_retx *r)
{
	if (!r->retry_left)
		return XIB_HCA_RETX_EXHAUSTED;
	r->retry_left--;
	return XIB_HCA_RETX_RETRY;
}

/**
 * xib_hca_retx_seq_nak() - a PSN sequence NAK for @psn arrived
 * @r: the state
 * @psn: the NAK's PSN: the responder expects it, and has every PSN before
 *
 * A NAK older than @r->una is stale (reordered behind later responses):
 * nothing.  Otherwise it acknowledges the PSNs before @psn (progress, as
 * xib_hca_retx_ack()) and asks for a retry from @psn, which spends one
 * from the budget, unless it is a copy of the NAK already acted on for
 * the same @psn with no progress in between: the responder sends one NAK
 * per gap (9.7.5.2.2), so a second one is the network's duplicate.
 *
 * Return: XIB_HCA_RETX_RETRY (resend from @psn), XIB_HCA_RETX_EXHAUSTED
 * (no retry left) or XIB_HCA_RETX_IGNORE.
 */
enum xib_hca_retx_verdict xib_hca_retx_seq_nak(struct xib_hca_retx *r,
					       u32 psn)
{
	psn &= XIB_PSN_MASK;
	if (xib_psn_before(psn, r->una))
		return XIB_HCA_RETX_IGNORE;
	xib_hca_retx_ack(r, psn);
	if (r->nak_valid && r->nak_psn == psn)
		return XIB_HCA_RETX_IGNORE;
	r->nak_valid = true;
	r->nak_psn = psn;
	return xib_hca_retx_spend(r);
}

/*
 * --- NAKing a gap again ------------------------------------------------------
 *
 * The responder NAKs a gap once (IBTA 9.7.5.2.2) and drops what follows
 * it until the expected PSN arrives.  When that NAK, or the first packet
 * of the retransmission it asked for, is lost, the responder keeps
 * dropping the packets that still come and says nothing, and only the
 * requester's timer (a probe, then the local ACK timeout, backed off)
 * ends the stall: tens of milliseconds where a round trip takes one or
 * two.  So a responder NAKs a gap still open again when a later packet
 * arrives at least one NAK round trip (as it measured it: from the NAK to
 * the arrival of the PSN it asked for) after the previous NAK; the
 * retransmission should have come by then.  Sending the same NAK again is
 * a responder's choice the IBTA leaves open; duplicates are still only
 * re-ACKed.  The requester acts on a NAK for the PSN it already went back
 * to only if it arrives at least half that interval after it acted on
 * the previous one: a copy made by the network arrives within the path's
 * jitter and is still ignored, a NAK sent again after a lost
 * retransmission comes a round trip later.
 */

/**
 * xib_hca_renak_us() - how long before a gap still open is NAKed again
 * @e: the round trip from a NAK to the retransmission it asked for
 *
 * SRTT + 2 * RTTVAR of the samples, within XIB_HCA_RENAK_MIN_US and
 * XIB_HCA_RENAK_MAX_US; XIB_HCA_RENAK_DEFAULT_US before the first sample.
 *
 * Return: microseconds.
 */
u64 xib_hca_renak_us(const struct xib_hca_rtt *e)
{
	u64 us;

	if (!e->srtt_us)
		return XIB_HCA_RENAK_DEFAULT_US;
	us = (u64)e->srtt_us + 2ULL * e->rttvar_us;
	return clamp_t(u64, us, XIB_HCA_RENAK_MIN_US, XIB_HCA_RENAK_MAX_US);
}

/**
 * xib_hca_renak_due() - has a NAK been out long enough to be sent again?
 * @last_ns: when it was sent (monotonic clock, ns)
 * @now_ns: now, on the same clock
 * @interval_us: the interval (xib_hca_renak_us()); 0 is never
 *
 * Return: true if at least @interval_us passed since @last_ns.  A @now_ns
 * before @last_ns (a clock that went back) is not.
 */
bool xib_hca_renak_due(u64 last_ns, u64 now_ns, u64 interval_us)
{
	if (!interval_us || now_ns < last_ns)
		return false;
	return now_ns - last_ns >= interval_us * NSEC_PER_USEC;
}

/*
 * Keeping what arrives early.  A network that reorders (several paths,
 * queues of different depth, netem's reorder) delivers a packet ahead of
 * ones sent before it, and these arrive a little later.  An IBTA
 * responder drops the early packet and NAKs the gap, and the requester
 * goes back and sends everything again from the NAKed PSN, the packets
 * still on their way included: one reordered packet costs a round trip
 * and a window of duplicates.  So a responder keeps a request that
 * arrives ahead, within XIB_HCA_OOO_SLOTS PSNs of the expected one, and
 * NAKs the gap only if it is still open after a wait of about half a NAK
 * round trip (a packet that was merely late has come by then; one that
 * was lost has not); the kept packets are executed in PSN order when the
 * gap closes, whether by the late packet or by the retransmission.  To
 * the requester this is the network having delivered in order; a lost
 * packet is NAKed that wait later than before.  Only packets from the
 * QP's peer are kept, at most XIB_HCA_OOO_DEV_MAX per device.
 */

/**
 * xib_hca_ooo_wait_us() - how long a gap may stay open before its NAK
 * @e: the responder's round trip from a NAK to the retransmission
 * @max_us: the longest wait (the reorder_wait_us parameter); 0 turns
 *	keeping off: a gap is NAKed at once
 *
 * Half of xib_hca_renak_us() (SRTT + 2 RTTVAR, or its default before a
 * sample), at most @max_us.
 *
 * Return: microseconds; 0 is at once.
 */
u64 xib_hca_ooo_wait_us(const struct xib_hca_rtt *e, u64 max_us)
{
	return min(xib_hca_renak_us(e) / 2, max_us);
}

/**
 * xib_hca_ooo_keep() - may a request that arrived ahead of the expected PSN be kept?
 * @psn: its PSN
 * @epsn: the expected PSN
 * @dev_held: packets the device keeps already
 * @dev_max: at most this many
 *
 * Return: true if @psn is 1 .. XIB_HCA_OOO_SLOTS - 1 PSNs ahead of @epsn
 * (modulo 2^24) and the device has room.
 */
bool xib_hca_ooo_keep(u32 psn, u32 epsn, unsigned int dev_held,
		      unsigned int dev_max)
{
	u32 d = (psn - epsn) & XIB_PSN_MASK;

	return d && d < XIB_HCA_OOO_SLOTS && dev_held < dev_max;
}

/**
 * xib_hca_retx_seq_nak_at() - a PSN sequence NAK for @psn arrived at @now_ns
 * @r: the state
 * @psn: the NAK's PSN
 * @now_ns: now (monotonic clock, ns)
 * @renak_us: the responder's re-NAK interval as the requester estimates
 *	it (xib_hca_renak_us() of its own round trip); 0: a NAK for the
 *	PSN already acted on is never acted on again before progress
 *
 * As xib_hca_retx_seq_nak(), except that a NAK for the PSN a NAK was
 * already acted on for, with no progress since, is acted on again (a
 * retry spent) if it comes at least half of @renak_us after that one:
 * the responder NAKed the gap again because the retransmission was lost.
 *
 * Return: XIB_HCA_RETX_RETRY, XIB_HCA_RETX_EXHAUSTED or
 * XIB_HCA_RETX_IGNORE.
 */
enum xib_hca_retx_verdict xib_hca_retx_seq_nak_at(struct xib_hca_retx *r,
						  u32 psn, u64 now_ns,
						  u64 renak_us)
{
	enum xib_hca_retx_verdict v;

	if (r->nak_valid && r->nak_psn == (psn & XIB_PSN_MASK) &&
	    xib_hca_renak_due(r->nak_ns, now_ns, renak_us / 2))
		r->nak_valid = false;
	v = xib_hca_retx_seq_nak(r, psn);
	if (v != XIB_HCA_RETX_IGNORE)
		r->nak_ns = now_ns;
	return v;
}

/**
 * xib_hca_retx_read_gap() - RDMA READ responses went missing
 * @r: the state
 *
 * A READ response past a missing one, or an ACK past a READ still missing
 * responses, says they were lost (9.7.5.1.3): the READ is requested
 * again from the first missing one, which spends a retry.  Its PSN may be
 * before @r->una (an ACK of later requests moved @r->una past the READ);
 * the caller asks once per gap.
 *
 * Return: XIB_HCA_RETX_RETRY or XIB_HCA_RETX_EXHAUSTED.
 */
enum xib_hca_retx_verdict xib_hca_retx_read_gap(struct xib_hca_retx *r)
{
	return xib_hca_retx_spend(r);
}

/**
 * xib_hca_retx_expiry() - the local ACK timer expired with packets
 *	unacknowledged and nothing acknowledged since it was started
 * @r: the state
 *
 * Spends a retry and backs the timer off (xib_hca_rto_us()).  A sequence
 * NAK for the same PSN after it is acted on again (the responder NAKs a
 * gap again once the retransmission fills it and another opens).
 *
 * Return: XIB_HCA_RETX_RETRY (resend from @r->una) or
 * XIB_HCA_RETX_EXHAUSTED.
 */
enum xib_hca_retx_verdict xib_hca_retx_expiry(struct xib_hca_retx *r)
{
	if (r->backoff < XIB_HCA_RTO_MAX_BACKOFF)
		r->backoff++;
	r->nak_valid = false;
	return xib_hca_retx_spend(r);
}

/**
 * xib_hca_rtt_sample() - a round trip measured on a packet sent once
 * @e: the estimator
 * @r_us: the sample in microseconds (0 is taken as 1)
 *
 * RFC 6298 2.2 and 2.3: the first sample sets SRTT to it and RTTVAR to
 * half of it; each later one R' first moves RTTVAR by a quarter towards
 * |SRTT - R'|, then SRTT by an eighth towards R'.  Samples are capped at
 * XIB_HCA_RTO_MAX_US.
 */
void xib_hca_rtt_sample(struct xib_hca_rtt *e, u32 r_us)
{
	u32 diff;

	r_us = clamp_t(u32, r_us, 1, XIB_HCA_RTO_MAX_US);
	if (!e->srtt_us) {
		e->srtt_us = r_us;
		e->rttvar_us = r_us / 2;
		return;
	}
	diff = e->srtt_us > r_us ? e->srtt_us - r_us : r_us - e->srtt_us;
	e->rttvar_us = e->rttvar_us - e->rttvar_us / 4 + diff / 4;
	e->srtt_us = e->srtt_us - e->srtt_us / 8 + r_us / 8;
	if (!e->srtt_us)
		e->srtt_us = 1;
}

/**
 * xib_hca_rto_us() - how long the local ACK timer runs
 * @e: the estimator
 * @floor_us: the QP's local ACK timeout (xib_hca_ack_timeout_ns()) in
 *	microseconds; 0 is infinite and gives 0
 * @gran_us: the timer's granularity (a jiffy) in microseconds
 * @backoff: expiries in a row without progress
 *
 * RFC 6298 2.3: SRTT + max(G, 4 * RTTVAR); never less than @floor_us
 * (the IBTA's timeout stands in for TCP's one-second minimum, 2.4) and
 * at most XIB_HCA_RTO_MAX_US unless @floor_us is more; doubled for each
 * expiry in a row (5.5), at most XIB_HCA_RTO_MAX_BACKOFF times, so a
 * peer that is gone is found out within (retry_cnt + 1) times
 * 2^XIB_HCA_RTO_MAX_BACKOFF times the timeout.
 *
 * Return: microseconds.
 */
u64 xib_hca_rto_us(const struct xib_hca_rtt *e, u64 floor_us, u32 gran_us,
		   u8 backoff)
{
	u64 rto = floor_us;

	if (!floor_us)
		return 0;
	if (e->srtt_us) {
		u64 est = (u64)e->srtt_us +
			  max_t(u64, gran_us, 4ULL * e->rttvar_us);

		est = min_t(u64, est, XIB_HCA_RTO_MAX_US);
		rto = max(rto, est);
	}
	return rto << min_t(u8, backoff, XIB_HCA_RTO_MAX_BACKOFF);
}

/*
 * --- the tail-loss probe ----------------------------------------------------
 *
 * In the spirit of RFC 8985 (RACK-TLP) 7: when the last packets of a
 * burst, their ACK or the one sequence NAK of a gap are lost, nothing
 * comes back to reveal it, and go-back-N would wait for the local ACK
 * timeout (at least 4.096 us * 2^timeout: 67 ms for timeout 14, where a
 * round trip is well under a millisecond).  So the timer first runs for a
 * probe timeout (PTO) of about two round trips; if it expires with
 * nothing acknowledged since, the requester resends its oldest
 * unacknowledged packet, asking for an ACK.  The responder answers it
 * whatever it already has (IBTA 9.7.5.2.2: an ACK for a duplicate, the
 * packet executed if it is the expected one), which reveals the loss.  A
 * probe is a retransmission like any other on the wire, but it spends no
 * retry from retry_cnt, does not back the timer off and is not a local
 * ACK timeout: after it the timer runs for the regular timeout, so a
 * dead peer is found out at most one PTO later than without it.  One
 * probe per stall: the next only after progress.
 *
 * A round trip also grows with the queue in front of the packet: while
 * the device has (nearly) its budget of packets in flight (below), a
 * QP's packets wait behind hundreds of the other QPs' in the receiving
 * backlog, and a PTO only two usual round trips long expires on
 * queueing, not loss: 256 QPs between two namespaces sent thousands of
 * such probes per run, each a packet and an ACK more and a window cut
 * to one.  So when the probe timer expires while the device's queue is
 * that full, the QP waits one more PTO instead, at most
 * XIB_HCA_PTO_MAX_DEFER times per stall; then it probes, queue or not.
 * A loss on such a device is found out at most that many PTOs later,
 * and a dead peer as much later again.
 */

/**
 * xib_hca_tlp_pto_us() - how long the timer runs before a tail-loss probe
 * @e: the round-trip estimator
 * @rto_us: the regular timeout now (xib_hca_rto_us()); 0 is infinite
 * @gran_us: the timer's granularity (a jiffy) in microseconds
 *
 * PTO = max(2 * SRTT, SRTT + 4 * RTTVAR, XIB_HCA_PTO_MIN_TICKS * @gran_us):
 * two round trips (RFC 8985 7.2), or the RFC 6298 bound when the round
 * trip varies more than that (a busy or virtual machine), and at least two
 * timer ticks (a timer armed for one tick may expire at once: a probe
 * needs at least one tick of silence).  Without a round-trip sample yet
 * there is no probe: nothing says how long an ACK takes, and the first
 * ACK gives a sample.  A PTO that would not come before the regular
 * timeout is no use: no probe.
 *
 * Return: the PTO in microseconds, or 0 for no probe.
 */
u64 xib_hca_tlp_pto_us(const struct xib_hca_rtt *e, u64 rto_us, u32 gran_us)
{
	u64 pto;

	if (!rto_us || !e->srtt_us)
		return 0;
	pto = max(2ULL * e->srtt_us, (u64)e->srtt_us + 4ULL * e->rttvar_us);
	pto = max(pto, (u64)XIB_HCA_PTO_MIN_TICKS * gran_us);
	return pto < rto_us ? pto : 0;
}

/**
 * xib_hca_retx_probe_due() - may the timer be armed for a probe?
 * @r: the state
 *
 * Only once per stall: not after a probe until progress, and not after a
 * timer expiry (the timer is backing off: the peer does not answer, and
 * the regular timeout decides now).
 *
 * Return: true if the next timer may be the probe timeout.
 */
bool xib_hca_retx_probe_due(const struct xib_hca_retx *r)
{
	return !r->probed && !r->backoff;
}

/**
 * xib_hca_retx_probe() - the probe timer expired: take the probe
 * @r: the state
 *
 * A probe spends no retry and does not back the timer off; no other
 * until progress.  A sequence NAK for the same PSN after it is acted on
 * again, as after an expiry (the probe resends from @r->una).
 *
 * Return: true if a probe is to be sent, false if none is due.
 */
bool xib_hca_retx_probe(struct xib_hca_retx *r)
{
	if (!xib_hca_retx_probe_due(r))
		return false;
	r->probed = true;
	r->nak_valid = false;
	return true;
}

/**
 * xib_hca_retx_probe_defer() - the probe timer expired: wait once more?
 * @r: the state
 * @queued: the device's queue is full (xib_hca_cc_queued())
 *
 * A probe due while the device's queue is full is put off by one more
 * probe timeout, at most XIB_HCA_PTO_MAX_DEFER times until the next
 * progress (xib_hca_retx_ack() allows it again).  Spends no retry and
 * does not back the timer off.
 *
 * Return: true if the probe waits one more probe timeout, false if it
 * is to be sent now (or none is due: xib_hca_retx_probe() decides).
 */
bool xib_hca_retx_probe_defer(struct xib_hca_retx *r, bool queued)
{
	if (!queued || !xib_hca_retx_probe_due(r) ||
	    r->pto_defers >= XIB_HCA_PTO_MAX_DEFER)
		return false;
	r->pto_defers++;
	return true;
}

/*
 * --- the device's budget of packets in flight -------------------------------
 *
 * Each RC requester keeps at most its cwnd (XIB_HCA_SEND_WINDOW) packets
 * beyond its oldest unacknowledged PSN, but nothing bounded the sum: 256
 * QPs between two namespaces sent 256 windows at once into a veth whose
 * receiving backlog holds 1000 packets, lost a fifth of them, and
 * go-back-N sent whole windows again until QPs ran out of retries.  So a
 * device counts what its RC requesters have in flight (the PSNs each has
 * sent beyond its oldest unacknowledged one) and holds new packets back
 * once that reaches a budget (the max_inflight parameter, hca_req.c).
 * Every QP may still have XIB_HCA_CC_MIN packets in flight (fewer if its
 * cwnd is smaller) whatever the device's count, so none starves and a QP
 * alone on its device behaves as before; a packet sent again is charged
 * already and never held back.
 */

/**
 * xib_hca_cc_may_send() - may an RC requester send a packet now?
 * @inflight: PSNs the QP has in flight before this packet (the packet's
 *	distance from the oldest unacknowledged PSN; 0 if it is before it)
 * @cwnd: the QP's send window
 * @charged: the packet was sent before (a retransmission): it is in the
 *	device's count already
 * @dev_inflight: the device's count of RC request PSNs in flight
 * @budget: the device's budget; 0 is unbounded
 *
 * Return: false if the send window is full (@inflight at least @cwnd);
 * otherwise true for a packet charged already, an unbounded device, a
 * QP below its minimum (XIB_HCA_CC_MIN, or @cwnd if smaller) or a device
 * below its budget, false for the rest.
 */
bool xib_hca_cc_may_send(u32 inflight, u32 cwnd, bool charged,
			 unsigned int dev_inflight, unsigned int budget)
{
	if (inflight >= cwnd)
		return false;
	if (charged || !budget ||
	    inflight < min_t(u32, cwnd, XIB_HCA_CC_MIN))
		return true;
	return dev_inflight < budget;
}

/**
 * xib_hca_cc_unasked() - would a QP held back wait for an ACK none asked for?
 * @una: its oldest unacknowledged PSN
 * @asked: the PSN after the newest packet it sent that asked for an ACK
 * @hi: the PSN after the newest packet it sent
 *
 * The responder acknowledges when a packet asks it to (or a message
 * ends).  A QP whose last packet did not ask, because the budget still
 * had room then, and whose next packet the budget holds back (the
 * device filled in between) would wait for an ACK that nothing asked
 * for, until its probe timer sends a packet again.  Such a QP may send
 * its next packet beyond the budget, asking for an ACK: one packet more
 * per QP at most, as it then waits for an ACK that comes.
 *
 * Return: true if packets are in flight (@una before @hi) and none of
 * those from @una on asked for an ACK (@asked not after @una).
 */
bool xib_hca_cc_unasked(u32 una, u32 asked, u32 hi)
{
	return xib_psn_before(una, hi) && !xib_psn_before(una, asked);
}

/**
 * xib_hca_ackreq() - does an RC request packet ask for an ACK?
 * @a: what the requester knows as it builds the packet
 *
 * The responder acknowledges the packets that ask (AckReq, hca_resp.c),
 * and an ACK acknowledges everything before it.  One ACK per message,
 * as before, made ib_send_bw's 64-byte message rate pay an ACK's
 * construction, transmission, reception and completion per SEND (16 %
 * of the loopback run's time in the profile of stop 29).  So a requester
 * asks where it will wait for the answer, and only there:
 *  - on the last packet before it stops: its WQE's last packet with no
 *    other WQE posted behind it, or a packet that fills its send window;
 *  - while it recovers from a loss (a send window below
 *    XIB_HCA_SEND_WINDOW): every packet, so that each ACK opens the
 *    window further;
 *  - every XIB_HCA_ACKREQ_EVERY packets of a long burst, so that ACKs
 *    come back and open the window before it fills;
 *  - when the device's budget says so (@a->ask: xib_hca_cc_last(),
 *    xib_hca_cc_unasked()).
 * A local WQE (a window bind, a local invalidate) sends nothing: a
 * packet followed only by one asks.  A stop the requester could not
 * foresee (a move to SQD mid-burst, memory, a next WQE that fetching
 * finds in error) leaves packets unasked: the tail-loss probe (PTO,
 * hca_comp.c) or the local ACK timeout asks for them.
 *
 * Return: true if the packet sets AckReq.
 */
bool xib_hca_ackreq(const struct xib_hca_ask *a)
{
	return a->ask || a->cwnd < XIB_HCA_SEND_WINDOW ||
	       a->inflight >= a->cwnd ||
	       a->unasked + 1 >= XIB_HCA_ACKREQ_EVERY ||
	       (a->wqe_last && !a->more);
}

/**
 * xib_hca_cc_queued() - is the device's queue full enough to delay ACKs?
 * @dev_inflight: the device's count of RC request PSNs in flight
 * @budget: the device's budget; 0 is unbounded
 *
 * Three quarters of the budget or more: the count dips below the budget
 * for a moment after every ACK, until the worker sends again.
 *
 * Return: true if @budget is bounded and @dev_inflight is at least
 * three quarters of it.
 */
bool xib_hca_cc_queued(unsigned int dev_inflight, unsigned int budget)
{
	return budget && (u64)dev_inflight * 4 >= (u64)budget * 3;
}
