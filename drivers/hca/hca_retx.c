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
