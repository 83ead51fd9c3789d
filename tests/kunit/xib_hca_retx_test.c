// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of xib_hca's retransmission arithmetic (hca_retx.c): the
 * local ACK timeout, where go-back-N resumes a WQE, how an RDMA READ is
 * requested again from its first missing response, how the responder
 * classifies a request PSN and replays a duplicate READ, the UC
 * responder's PSN and message-sequence rules, the requester's retry
 * budget (IBTA 9.7.6.1: progress restores it, stale and duplicated
 * responses change nothing) and its timer (RFC 6298's estimator and
 * backoff, the values worked by hand from the RFC's formulas), the
 * tail-loss probe (its timeout, once per stall, put off while the
 * device's queue is full) and the device's budget of packets in flight
 * (xib_hca_cc_may_send(), xib_hca_cc_queued()).
 *
 * The module includes the source under test, as xib_hca_wire_test does.
 */

#include <kunit/test.h>
#include <linux/prandom.h>

#include "../../drivers/hca/hca_retx.c"

static void xib_retx_timeout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(0), 0ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(1), 8192ULL);
	/* 14: the usual 67 ms */
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(14), 67108864ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(31), 4096ULL << 31);
	/* the attribute has 5 bits */
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(32), 0ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_ack_timeout_ns(33), 8192ULL);
}

static void xib_retx_resume(struct kunit *test)
{
	/* a WQE of 10 PSNs from 100 */
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 90), 0U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 100), 0U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 103), 3U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 109), 9U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 110), 10U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(100, 10, 5000), 10U);
	/* across the 24-bit wrap */
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(0xfffffe, 8, 0x000001), 3U);
	KUNIT_EXPECT_EQ(test, xib_hca_resume_pkt(0x000001, 8, 0xfffffe), 0U);
}

static void xib_retx_read_rereq(struct kunit *test)
{
	u64 va;
	u32 len;

	xib_hca_read_rereq(0x10000, 5000, 1024, 0, &va, &len);
	KUNIT_EXPECT_EQ(test, va, 0x10000ULL);
	KUNIT_EXPECT_EQ(test, len, 5000U);
	xib_hca_read_rereq(0x10000, 5000, 1024, 2, &va, &len);
	KUNIT_EXPECT_EQ(test, va, 0x10000ULL + 2048);
	KUNIT_EXPECT_EQ(test, len, 5000U - 2048);
	xib_hca_read_rereq(0x10000, 5000, 1024, 4, &va, &len);
	KUNIT_EXPECT_EQ(test, va, 0x10000ULL + 4096);
	KUNIT_EXPECT_EQ(test, len, 904U);
	/* never past the end */
	xib_hca_read_rereq(0x10000, 5000, 1024, 9, &va, &len);
	KUNIT_EXPECT_EQ(test, va, 0x10000ULL + 5000);
	KUNIT_EXPECT_EQ(test, len, 0U);
	/* 2 GiB at MTU 4096: no 32-bit overflow of the offset */
	xib_hca_read_rereq(0, 0x80000000U, 4096, 0x7ffff, &va, &len);
	KUNIT_EXPECT_EQ(test, va, 0x7ffffULL * 4096);
	KUNIT_EXPECT_EQ(test, len, 4096U);
}

static void xib_retx_classify(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(500, 500),
			XIB_HCA_PSN_EXPECTED);
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(499, 500),
			XIB_HCA_PSN_DUPLICATE);
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(501, 500),
			XIB_HCA_PSN_AHEAD);
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(0xffffff, 0),
			XIB_HCA_PSN_DUPLICATE);
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(0, 0xffffff),
			XIB_HCA_PSN_AHEAD);
	/* half the PSN space behind is a duplicate, less than half ahead */
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(0x800000, 0),
			XIB_HCA_PSN_DUPLICATE);
	KUNIT_EXPECT_EQ(test, xib_hca_psn_classify(0x7fffff, 0),
			XIB_HCA_PSN_AHEAD);
}

/* Resource @i (ring index) of @r: @npkts responses from @psn, @sent out. */
static void xib_retx_res(struct xib_hca_resp *r, u32 i, u32 psn, u32 npkts,
			 u32 sent)
{
	struct xib_hca_rd_res *res = &r->rd[i % XIB_HCA_MAX_RD_ATOM];

	res->psn = psn;
	res->npkts = npkts;
	res->sent = sent;
	res->first = 0;
	res->replay = false;
	res->len = npkts * 1024;
}

static void xib_retx_replay_answered(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* three READs, every response sent */
	xib_retx_res(r, 0, 100, 4, 4);
	xib_retx_res(r, 1, 104, 8, 8);
	xib_retx_res(r, 2, 112, 1, 1);
	r->rd_head = 3;
	r->rd_tail = 3;

	/* the requester asks again for READ 1 from its third response */
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 106, false));
	KUNIT_EXPECT_EQ(test, r->rd_head, 1U);
	KUNIT_EXPECT_EQ(test, r->rd[1].sent, 2U);
	KUNIT_EXPECT_EQ(test, r->rd[1].first, 2U);
	KUNIT_EXPECT_TRUE(test, r->rd[1].replay);
	/* READ 2 stays answered: the sender skips it unless asked again */
	KUNIT_EXPECT_EQ(test, r->rd[2].sent, r->rd[2].npkts);
	KUNIT_EXPECT_FALSE(test, r->rd[2].replay);

	/* then for READ 2: it is at or after the head now, pending */
	r->rd[1].sent = 8;
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 112, false));
	KUNIT_EXPECT_EQ(test, r->rd_head, 1U);
	KUNIT_EXPECT_EQ(test, r->rd[2].sent, 0U);

	/* a PSN no resource holds: dropped */
	KUNIT_EXPECT_FALSE(test, xib_hca_rd_replay(r, 16, 99, false));
	KUNIT_EXPECT_FALSE(test, xib_hca_rd_replay(r, 16, 113, false));
}

static void xib_retx_replay_pending(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* READ 0 being answered (5 of 10 out), READ 1 not started */
	xib_retx_res(r, 0, 200, 10, 5);
	xib_retx_res(r, 1, 210, 3, 0);
	r->rd_head = 0;
	r->rd_tail = 2;

	/* asked again from response 3: the sender goes back to it */
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 203, false));
	KUNIT_EXPECT_EQ(test, r->rd_head, 0U);
	KUNIT_EXPECT_EQ(test, r->rd[0].sent, 3U);
	KUNIT_EXPECT_EQ(test, r->rd[0].first, 3U);
	KUNIT_EXPECT_FALSE(test, r->rd[0].replay);
	/* asked from a response not sent yet: nothing changes */
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 208, false));
	KUNIT_EXPECT_EQ(test, r->rd[0].sent, 3U);
	/* READ 1's duplicate while it waits: untouched */
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 210, false));
	KUNIT_EXPECT_EQ(test, r->rd[1].sent, 0U);
	KUNIT_EXPECT_EQ(test, r->rd_head, 0U);
}

static void xib_retx_replay_held(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	/* 20 READs of one response each, PSN 1000 + i; all answered */
	for (i = 0; i < 20; i++)
		xib_retx_res(r, i, 1000 + i, 1, 1);
	r->rd_head = 20;
	r->rd_tail = 20;
	/* max_dest_rd_atomic 4: only the last 4 are held */
	KUNIT_EXPECT_FALSE(test, xib_hca_rd_replay(r, 4, 1015, false));
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 4, 1016, false));
	KUNIT_EXPECT_EQ(test, r->rd_head, 16U);
	/* never more than the ring, whatever the attribute says */
	r->rd_head = 20;
	r->rd[16 % XIB_HCA_MAX_RD_ATOM].sent = 1;
	KUNIT_EXPECT_FALSE(test, xib_hca_rd_replay(r, 255, 1003, false));
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 255, 1004, false));
	KUNIT_EXPECT_EQ(test, r->rd_head, 4U);
}

/*
 * The UC responder's rules (IBTA vol. 1 9.7.5.1 for UC), written out by
 * hand: a FIRST or ONLY packet always starts a message; a MIDDLE or LAST
 * continues one only in order and of the same kind.
 */
#define UC_F	XIB_OPF_FIRST
#define UC_M	XIB_OPF_MIDDLE
#define UC_L	XIB_OPF_LAST
#define UC_O	(XIB_OPF_FIRST | XIB_OPF_LAST)

static void xib_retx_uc_classify(struct kunit *test)
{
	static const struct {
		bool in_msg, in_write;
		u32 epsn, psn;
		u8 flags;
		bool write;
		enum xib_hca_uc_action want;
	} c[] = {
		/* a new message, whatever came before and whatever its PSN */
		{ false, false, 100, 100, UC_F, false, XIB_HCA_UC_START },
		{ false, false, 100, 5000, UC_O, true, XIB_HCA_UC_START },
		{ false, false, 100, 99, UC_O, false, XIB_HCA_UC_START },
		{ true, false, 100, 100, UC_F, false, XIB_HCA_UC_START },
		{ true, true, 100, 7, UC_O, false, XIB_HCA_UC_START },
		/* in order, same kind */
		{ true, false, 100, 100, UC_M, false, XIB_HCA_UC_CONTINUE },
		{ true, false, 100, 100, UC_L, false, XIB_HCA_UC_CONTINUE },
		{ true, true, 100, 100, UC_M, true, XIB_HCA_UC_CONTINUE },
		{ true, true, 100, 100, UC_L, true, XIB_HCA_UC_CONTINUE },
		{ true, false, 0xffffff, 0xffffff, UC_L, false, XIB_HCA_UC_CONTINUE },
		/* a packet lost before it, or a duplicate */
		{ true, false, 100, 101, UC_M, false, XIB_HCA_UC_DROP },
		{ true, false, 100, 102, UC_L, false, XIB_HCA_UC_DROP },
		{ true, false, 100, 99, UC_M, false, XIB_HCA_UC_DROP },
		{ true, false, 0, 0xffffff, UC_L, false, XIB_HCA_UC_DROP },
		{ true, false, 0xffffff, 0, UC_L, false, XIB_HCA_UC_DROP },
		/* no message in progress: its FIRST was lost */
		{ false, false, 100, 100, UC_M, false, XIB_HCA_UC_DROP },
		{ false, false, 100, 100, UC_L, false, XIB_HCA_UC_DROP },
		{ false, true, 100, 100, UC_L, true, XIB_HCA_UC_DROP },
		/* the other kind of message */
		{ true, true, 100, 100, UC_M, false, XIB_HCA_UC_DROP },
		{ true, false, 100, 100, UC_L, true, XIB_HCA_UC_DROP },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_hca_uc_classify(c[i].in_msg, c[i].in_write,
							c[i].epsn, c[i].psn,
							c[i].flags, c[i].write),
				    c[i].want, "case %u", i);
}

/*
 * A stream as a UC responder sees it, each packet's action applied as
 * xib_hca_uc_recv() does (START and CONTINUE: ePSN is the packet's + 1,
 * in a message until a LAST; DROP: no message): SEND 10-13 loses 12, so
 * its LAST (13) is dropped; the WRITE from 14 starts clean; a SEND whose
 * FIRST (18) was lost has its MIDDLE and LAST dropped; an ONLY at an
 * unrelated PSN resynchronises.
 */
static void xib_retx_uc_stream(struct kunit *test)
{
	static const struct {
		u32 psn;
		u8 flags;
		bool write;
		enum xib_hca_uc_action want;
	} s[] = {
		{ 10, UC_F, false, XIB_HCA_UC_START },
		{ 11, UC_M, false, XIB_HCA_UC_CONTINUE },
		{ 13, UC_L, false, XIB_HCA_UC_DROP },
		{ 14, UC_F, true, XIB_HCA_UC_START },
		{ 15, UC_M, true, XIB_HCA_UC_CONTINUE },
		{ 16, UC_M, true, XIB_HCA_UC_CONTINUE },
		{ 17, UC_L, true, XIB_HCA_UC_CONTINUE },
		{ 19, UC_M, false, XIB_HCA_UC_DROP },
		{ 20, UC_L, false, XIB_HCA_UC_DROP },
		{ 0x123456, UC_O, false, XIB_HCA_UC_START },
		{ 0x123457, UC_F, false, XIB_HCA_UC_START },
		{ 0x123458, UC_L, false, XIB_HCA_UC_CONTINUE },
	};
	bool in_msg = false, in_write = false;
	enum xib_hca_uc_action a;
	u32 epsn = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s); i++) {
		a = xib_hca_uc_classify(in_msg, in_write, epsn, s[i].psn,
					s[i].flags, s[i].write);
		KUNIT_EXPECT_EQ_MSG(test, a, s[i].want, "packet %u (PSN %u)", i,
				    s[i].psn);
		if (a == XIB_HCA_UC_DROP) {
			in_msg = false;
			continue;
		}
		if (a == XIB_HCA_UC_START)
			in_write = s[i].write;
		epsn = xib_psn_add(s[i].psn, 1);
		in_msg = !(s[i].flags & XIB_OPF_LAST);
	}
}

/*
 * The retry budget (IBTA 9.7.6.1): progress restores it, stale and
 * duplicated responses change nothing, timeouts and sequence NAKs spend it.
 */
static void xib_retx_budget_progress(struct kunit *test)
{
	struct xib_hca_retx r;
	int i;

	xib_hca_retx_init(&r, 1000, 3);
	KUNIT_EXPECT_EQ(test, r.una, 1000U);
	KUNIT_EXPECT_EQ(test, r.retry_left, 3);
	/* three expiries spend three retries, the fourth finds none */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 0);
	/* one PSN acknowledged: the budget is whole again */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 1001), XIB_HCA_RETX_PROGRESS);
	KUNIT_EXPECT_EQ(test, r.una, 1001U);
	KUNIT_EXPECT_EQ(test, r.retry_left, 3);
	KUNIT_EXPECT_EQ(test, r.backoff, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_EXHAUSTED);
	/* retry_cnt 0: the first expiry is fatal */
	xib_hca_retx_init(&r, 5, 0);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_EXHAUSTED);
	/* the attribute has 3 bits */
	xib_hca_retx_init(&r, 5, 9);
	KUNIT_EXPECT_EQ(test, r.retry_cnt, 1);
}

static void xib_retx_budget_stale(struct kunit *test)
{
	struct xib_hca_retx r;

	xib_hca_retx_init(&r, 100, 7);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 150), XIB_HCA_RETX_PROGRESS);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* ACKs of what is acknowledged already: a duplicate, a reordered one */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 150), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 120), XIB_HCA_RETX_IGNORE);
	/* a sequence NAK older than the oldest unacknowledged PSN */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 140), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, r.una, 150U);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	KUNIT_EXPECT_EQ(test, r.backoff, 1);
	/* an ACK half the PSN space ahead is behind (24-bit serial order) */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 150 + 0x800001),
			XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, r.una, 150U);
	/* across the wrap: progress */
	xib_hca_retx_init(&r, 0xfffff0, 7);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 0x000004), XIB_HCA_RETX_PROGRESS);
	KUNIT_EXPECT_EQ(test, r.una, 4U);
}

static void xib_retx_budget_nak(struct kunit *test)
{
	struct xib_hca_retx r;

	xib_hca_retx_init(&r, 100, 7);
	/* a NAK for 110: 100..109 arrived (progress), resend from 110 */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 110), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.una, 110U);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* the same NAK again (the network duplicated it): nothing */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 110), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* the resent packets get through, a later gap is NAKed: progress */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 130), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* the resend was lost: the timer, then a NAK for the same PSN is new */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 130), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 4);
	/* READ responses missing: a retry, even behind the oldest PSN */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_read_gap(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 3);
	KUNIT_EXPECT_EQ(test, r.una, 130U);
	/* a peer that NAKs the same PSN after every timeout runs it out */
	xib_hca_retx_init(&r, 7, 1);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 7), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_EXHAUSTED);
}

/* How long a responder waits before NAKing a gap still open again. */
static void xib_retx_renak_interval(struct kunit *test)
{
	struct xib_hca_rtt e = {};

	/* no NAK timed yet: the default */
	KUNIT_EXPECT_EQ(test, xib_hca_renak_us(&e), (u64)XIB_HCA_RENAK_DEFAULT_US);
	/* SRTT + 2 * RTTVAR */
	e.srtt_us = 2000;
	e.rttvar_us = 500;
	KUNIT_EXPECT_EQ(test, xib_hca_renak_us(&e), 3000ULL);
	/* never below the minimum, never above the maximum */
	e.srtt_us = 10;
	e.rttvar_us = 5;
	KUNIT_EXPECT_EQ(test, xib_hca_renak_us(&e), (u64)XIB_HCA_RENAK_MIN_US);
	e.srtt_us = XIB_HCA_RTO_MAX_US;
	e.rttvar_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, xib_hca_renak_us(&e), (u64)XIB_HCA_RENAK_MAX_US);
	/* the estimator's samples move it */
	e = (struct xib_hca_rtt){};
	xib_hca_rtt_sample(&e, 1000);
	KUNIT_EXPECT_EQ(test, xib_hca_renak_us(&e), 2000ULL);
}

static void xib_retx_renak_due(struct kunit *test)
{
	u64 t0 = 5ULL * NSEC_PER_SEC;

	KUNIT_EXPECT_FALSE(test, xib_hca_renak_due(t0, t0, 1000));
	KUNIT_EXPECT_FALSE(test, xib_hca_renak_due(t0, t0 + 999999, 1000));
	KUNIT_EXPECT_TRUE(test, xib_hca_renak_due(t0, t0 + 1000000, 1000));
	KUNIT_EXPECT_TRUE(test, xib_hca_renak_due(t0, t0 + NSEC_PER_SEC, 1000));
	/* a clock that went back, an interval of 0: never */
	KUNIT_EXPECT_FALSE(test, xib_hca_renak_due(t0, t0 - 1, 1000));
	KUNIT_EXPECT_FALSE(test, xib_hca_renak_due(t0, U64_MAX, 0));
}

/* How long a gap waits for a late packet before it is NAKed. */
static void xib_retx_ooo_wait(struct kunit *test)
{
	struct xib_hca_rtt e = {};

	/* before a NAK was timed: half the default re-NAK interval */
	KUNIT_EXPECT_EQ(test, xib_hca_ooo_wait_us(&e, 1000000),
			(u64)XIB_HCA_RENAK_DEFAULT_US / 2);
	/* half of SRTT + 2 RTTVAR: 3000 us -> 1500 */
	e.srtt_us = 2000;
	e.rttvar_us = 500;
	KUNIT_EXPECT_EQ(test, xib_hca_ooo_wait_us(&e, 1000000), 1500ULL);
	/* at most the parameter; 0 turns the wait off */
	KUNIT_EXPECT_EQ(test, xib_hca_ooo_wait_us(&e, 700), 700ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_ooo_wait_us(&e, 0), 0ULL);
	/* a fast path: half the minimum re-NAK interval */
	e.srtt_us = 10;
	e.rttvar_us = 1;
	KUNIT_EXPECT_EQ(test, xib_hca_ooo_wait_us(&e, 1000000),
			(u64)XIB_HCA_RENAK_MIN_US / 2);
}

/* Which early packets a responder keeps. */
static void xib_retx_ooo_keep(struct kunit *test)
{
	/* 1 .. SLOTS - 1 ahead, with room */
	KUNIT_EXPECT_FALSE(test, xib_hca_ooo_keep(100, 100, 0, 10));
	KUNIT_EXPECT_TRUE(test, xib_hca_ooo_keep(101, 100, 0, 10));
	KUNIT_EXPECT_TRUE(test, xib_hca_ooo_keep(100 + XIB_HCA_OOO_SLOTS - 1,
						 100, 0, 10));
	KUNIT_EXPECT_FALSE(test, xib_hca_ooo_keep(100 + XIB_HCA_OOO_SLOTS,
						  100, 0, 10));
	/* behind (a duplicate) is never kept */
	KUNIT_EXPECT_FALSE(test, xib_hca_ooo_keep(99, 100, 0, 10));
	/* across the 24-bit wrap */
	KUNIT_EXPECT_TRUE(test, xib_hca_ooo_keep(2, XIB_PSN_MASK - 1, 0, 10));
	KUNIT_EXPECT_FALSE(test, xib_hca_ooo_keep(XIB_PSN_MASK, 3, 0, 10));
	/* the device is full */
	KUNIT_EXPECT_TRUE(test, xib_hca_ooo_keep(101, 100, 9, 10));
	KUNIT_EXPECT_FALSE(test, xib_hca_ooo_keep(101, 100, 10, 10));
}

/* The requester and a NAK for the PSN it already went back to. */
static void xib_retx_renak_requester(struct kunit *test)
{
	u64 t = NSEC_PER_SEC, iv = 4000;	/* re-NAK interval, us */
	struct xib_hca_retx r;

	xib_hca_retx_init(&r, 100, 7);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 110, t, iv),
			XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* a copy within half the interval: the network's duplicate */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 110, t + 1999999, iv),
			XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* half the interval later: NAKed again, the resend was lost */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 110, t + 2000000, iv),
			XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 5);
	KUNIT_EXPECT_EQ(test, r.una, 110U);
	/* measured from the NAK acted on last, not the first */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 110, t + 3000000, iv),
			XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 110, t + 4000000, iv),
			XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 4);
	/* a stale NAK stays stale however late */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 105, t + NSEC_PER_SEC,
						      iv), XIB_HCA_RETX_IGNORE);
	/* progress restores the budget; a new gap is a new NAK at once */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 120, t + 4000001, iv),
			XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	/* interval 0: never again before progress (the old rule) */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 120, U64_MAX, 0),
			XIB_HCA_RETX_IGNORE);
	/* re-NAKs still spend retries: a gap that never closes runs out */
	xib_hca_retx_init(&r, 7, 1);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 7, t, iv),
			XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak_at(&r, 7, t + 2000000, iv),
			XIB_HCA_RETX_EXHAUSTED);
}

static void xib_retx_backoff(struct kunit *test)
{
	struct xib_hca_rtt e = {};
	struct xib_hca_retx r;
	u64 floor = 67108;	/* timeout 14 */

	xib_hca_retx_init(&r, 0, 7);
	/* no sample: the QP's timeout, doubled per expiry, at most 4x */
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, floor, 4000, r.backoff), floor);
	xib_hca_retx_expiry(&r);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, floor, 4000, r.backoff), 2 * floor);
	xib_hca_retx_expiry(&r);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, floor, 4000, r.backoff), 4 * floor);
	xib_hca_retx_expiry(&r);
	xib_hca_retx_expiry(&r);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, floor, 4000, r.backoff), 4 * floor);
	/* progress ends the backoff */
	xib_hca_retx_ack(&r, 1);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, floor, 4000, r.backoff), floor);
	/* timeout 0: infinite, whatever happened */
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 0, 4000, 2), 0ULL);
}

/* RFC 6298 2.2, 2.3 with alpha 1/8, beta 1/4, K 4, worked by hand. */
static void xib_retx_rtt(struct kunit *test)
{
	struct xib_hca_rtt e = {};

	xib_hca_rtt_sample(&e, 8000);
	/* first: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 3 R */
	KUNIT_EXPECT_EQ(test, e.srtt_us, 8000U);
	KUNIT_EXPECT_EQ(test, e.rttvar_us, 4000U);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 1000, 4, 0), 24000ULL);
	/* below the QP's timeout the estimate changes nothing */
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 67108, 4, 0), 67108ULL);
	/*
	 * R' = 16000: RTTVAR = 3/4 * 4000 + 1/4 * |8000 - 16000| = 5000,
	 * then SRTT = 7/8 * 8000 + 1/8 * 16000 = 9000; RTO = 29000
	 */
	xib_hca_rtt_sample(&e, 16000);
	KUNIT_EXPECT_EQ(test, e.rttvar_us, 5000U);
	KUNIT_EXPECT_EQ(test, e.srtt_us, 9000U);
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 1000, 4, 0), 29000ULL);
	/* backed off: doubled */
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 1000, 4, 1), 58000ULL);
	/* a steady path: SRTT converges on it and RTTVAR shrinks to G */
	{
		int i;

		for (i = 0; i < 200; i++)
			xib_hca_rtt_sample(&e, 2000);
	}
	KUNIT_EXPECT_LE(test, e.srtt_us, 2010U);
	KUNIT_EXPECT_GE(test, e.srtt_us, 2000U);
	KUNIT_EXPECT_LE(test, e.rttvar_us, 10U);
	/* RTO = SRTT + max(G, 4 RTTVAR): the clock granularity wins */
	KUNIT_EXPECT_EQ(test, xib_hca_rto_us(&e, 1, 4000, 0),
			(u64)e.srtt_us + 4000);
	/* a huge sample is capped; the timer stays bounded */
	xib_hca_rtt_sample(&e, U32_MAX);
	KUNIT_EXPECT_LE(test, xib_hca_rto_us(&e, 1000, 4, 0),
			(u64)XIB_HCA_RTO_MAX_US);
	/* a zero sample is one microsecond */
	memset(&e, 0, sizeof(e));
	xib_hca_rtt_sample(&e, 0);
	KUNIT_EXPECT_EQ(test, e.srtt_us, 1U);
}

/*
 * The tail-loss probe timeout: max(2 SRTT, SRTT + 4 RTTVAR, two ticks),
 * none without a sample, none unless it comes before the regular timeout.
 */
static void xib_retx_pto(struct kunit *test)
{
	struct xib_hca_rtt e = {};
	u64 rto = 67108;	/* timeout 14 */

	/* no round-trip sample yet: no probe */
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 0ULL);
	/* a steady 300 us path (RTTVAR small): two ticks of 4 ms win */
	e.srtt_us = 300;
	e.rttvar_us = 10;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 8000ULL);
	/* HZ 1000: still the two-tick floor */
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 1000), 2000ULL);
	/* a fine clock: two round trips */
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 1), 600ULL);
	/* the round trip varies more: SRTT + 4 RTTVAR = 300 + 800 */
	e.rttvar_us = 200;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 1), 1100ULL);
	/* a 10 ms path: 2 * 10 ms + nothing (RTTVAR 1 ms: 14 ms < 20 ms) */
	e.srtt_us = 10000;
	e.rttvar_us = 1000;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 20000ULL);
	/* never as long as the regular timeout: then no probe */
	e.srtt_us = 40000;
	e.rttvar_us = 0;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 0ULL);
	e.srtt_us = 33554;	/* 2 SRTT = 67108 = the timeout */
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 0ULL);
	e.srtt_us = 33553;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, rto, 4000), 67106ULL);
	/* a timeout shorter than the two-tick floor: no probe */
	e.srtt_us = 100;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, 8000, 4000), 0ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, 8001, 4000), 8000ULL);
	/* timeout 0 (infinite): no timer, no probe */
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, 0, 4000), 0ULL);
	/* the largest estimate does not overflow */
	e.srtt_us = U32_MAX;
	e.rttvar_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, xib_hca_tlp_pto_us(&e, U64_MAX, 1),
			(u64)U32_MAX + 4ULL * U32_MAX);
}

/*
 * When a probe is due: once per stall, again only after progress; never
 * while the timer backs off; a probe spends no retry and does not back
 * the timer off.
 */
static void xib_retx_probe_due(struct kunit *test)
{
	struct xib_hca_retx r;

	xib_hca_retx_init(&r, 100, 7);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_due(&r));
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
	/* no retry spent, no backoff */
	KUNIT_EXPECT_EQ(test, r.retry_left, 7);
	KUNIT_EXPECT_EQ(test, r.backoff, 0);
	/* one per stall */
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_due(&r));
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe(&r));
	/* a response that acknowledges nothing new: still none */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 100), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 90), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_due(&r));
	/* the probe was lost: the regular timeout spends a retry */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, r.retry_left, 6);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_due(&r));
	/* progress: a probe may go again */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 101), XIB_HCA_RETX_PROGRESS);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_due(&r));

	/* after an expiry without a probe: none while the timer backs off */
	xib_hca_retx_init(&r, 5, 3);
	xib_hca_retx_expiry(&r);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_due(&r));
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe(&r));
	KUNIT_EXPECT_EQ(test, r.retry_left, 2);
	/* a sequence NAK that acknowledges something is progress */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 9), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_due(&r));

	/* the probe resends from @una: a NAK for the same PSN is new again */
	xib_hca_retx_init(&r, 20, 7);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 20), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 20), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
	KUNIT_EXPECT_EQ(test, xib_hca_retx_seq_nak(&r, 20), XIB_HCA_RETX_RETRY);

	/*
	 * A dead peer: probes never shorten the budget.  With retry_cnt 2
	 * the third expiry in a row without progress is the end, probe or
	 * not before the first.
	 */
	xib_hca_retx_init(&r, 0, 2);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe(&r));
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_EXHAUSTED);
}

/*
 * A probe due while the device's queue is full waits XIB_HCA_PTO_MAX_DEFER
 * more probe timeouts, then goes; progress allows the wait again; never
 * when the queue is not full or no probe is due; a wait spends no retry
 * and does not back the timer off.
 */
static void xib_retx_probe_defer(struct kunit *test)
{
	struct xib_hca_retx r;
	unsigned int i;

	xib_hca_retx_init(&r, 100, 7);
	/* the queue is not full: probe at once, nothing counted */
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, false));
	KUNIT_EXPECT_EQ(test, r.pto_defers, 0);
	/* full: wait, as often as allowed, then the probe goes */
	for (i = 0; i < XIB_HCA_PTO_MAX_DEFER; i++)
		KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_defer(&r, true));
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, true));
	KUNIT_EXPECT_EQ(test, r.retry_left, 7);
	KUNIT_EXPECT_EQ(test, r.backoff, 0);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_due(&r));
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
	/* probed: nothing is due, nothing to put off */
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, true));
	/* a response that acknowledges nothing new changes nothing */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 100), XIB_HCA_RETX_IGNORE);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, true));
	/* progress: the next stall may wait again */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 105), XIB_HCA_RETX_PROGRESS);
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_defer(&r, true));
	/* progress in the middle of the waits starts them over */
	KUNIT_EXPECT_EQ(test, xib_hca_retx_ack(&r, 106), XIB_HCA_RETX_PROGRESS);
	for (i = 0; i < XIB_HCA_PTO_MAX_DEFER; i++)
		KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe_defer(&r, true));
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, true));
	/* the waits and the probe do not shorten a dead peer's retries */
	KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r),
				XIB_HCA_RETX_RETRY);
	KUNIT_EXPECT_EQ(test, xib_hca_retx_expiry(&r), XIB_HCA_RETX_EXHAUSTED);

	/* the timer backs off after an expiry: no probe, no wait */
	xib_hca_retx_init(&r, 0, 3);
	xib_hca_retx_expiry(&r);
	KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe_defer(&r, true));
	KUNIT_EXPECT_EQ(test, r.pto_defers, 0);
}

/*
 * The probe's waits, as a table: for every sequence of queue states over
 * up to eight expiries in one stall, the probe goes out at the first
 * expiry with the queue not full or after XIB_HCA_PTO_MAX_DEFER waits,
 * whichever comes first, and each expiry before it is a wait.
 */
static void xib_retx_probe_defer_all(struct kunit *test)
{
	struct xib_hca_retx r;
	unsigned int seq, i, waits;
	bool full, got, want;

	for (seq = 0; seq < 256; seq++) {
		xib_hca_retx_init(&r, 7, 7);
		waits = 0;
		for (i = 0; i < 8; i++) {
			full = seq & BIT(i);
			want = full && waits < XIB_HCA_PTO_MAX_DEFER;
			got = xib_hca_retx_probe_defer(&r, full);
			KUNIT_ASSERT_EQ_MSG(test, got, want,
					    "queue states %#x, expiry %u", seq,
					    i);
			if (!got)
				break;
			waits++;
		}
		/* whatever the waits, the probe is still due once */
		KUNIT_EXPECT_TRUE(test, xib_hca_retx_probe(&r));
		KUNIT_EXPECT_FALSE(test, xib_hca_retx_probe(&r));
	}
}

/*
 * The device's budget of packets in flight, by hand: the send window
 * first, then a retransmission, an unbounded device, the per-QP minimum
 * and the device's count against the budget.
 */
static void xib_retx_cc_rules(struct kunit *test)
{
	/* the send window is full: never, whatever else */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(128, 128, true, 0, 0));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(1, 1, false, 0, 512));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(0, 0, true, 0, 0));
	/* a device below its budget */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(10, 128, false, 511, 512));
	/* at or over it: held back ... */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(10, 128, false, 512, 512));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(2, 128, false, 5000, 512));
	/* ... unless the packet is charged already (a retransmission) */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(10, 128, true, 5000, 512));
	/* ... or the QP is below its minimum */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(0, 128, false, 5000, 512));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(1, 128, false, 5000, 512));
	/* a cwnd of 1 (after a timeout) is its minimum */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(0, 1, false, 5000, 512));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_may_send(1, 1, false, 0, 512));
	/* budget 0 is unbounded */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_may_send(127, 128, false, 1U << 30,
						    0));
}

/* The rules of the budget (hca_retx.c), written out again as a table. */
static bool xib_retx_cc_oracle(u32 inflight, u32 cwnd, bool charged,
			       unsigned int dev, unsigned int budget)
{
	u32 floor = cwnd < XIB_HCA_CC_MIN ? cwnd : XIB_HCA_CC_MIN;

	if (!(inflight < cwnd))
		return false;	/* the QP's own window */
	if (charged)
		return true;	/* sent before: not charged again */
	if (budget == 0)
		return true;	/* no budget */
	if (inflight < floor)
		return true;	/* every QP may have its minimum */
	return dev < budget;
}

/* Every device count up to 520 for one QP state, against the oracle. */
static void xib_retx_cc_check(struct kunit *test, u32 in, u32 cwnd,
			      bool charged, unsigned int budget)
{
	bool got, want;
	unsigned int dev;

	for (dev = 0; dev <= 520; dev++) {
		got = xib_hca_cc_may_send(in, cwnd, charged, dev, budget);
		want = xib_retx_cc_oracle(in, cwnd, charged, dev, budget);
		KUNIT_ASSERT_EQ_MSG(test, got, want,
				    "inflight %u cwnd %u charged %d dev %u budget %u",
				    in, cwnd, charged, dev, budget);
	}
}

/* Every combination of small values against the oracle. */
static void xib_retx_cc_oracle_all(struct kunit *test)
{
	static const unsigned int budgets[] = { 0, 1, 2, 3, 8, 512 };
	unsigned int b;
	u32 in, cwnd;

	for (in = 0; in <= 10; in++)
		for (cwnd = 0; cwnd <= 10; cwnd++)
			for (b = 0; b < ARRAY_SIZE(budgets); b++) {
				xib_retx_cc_check(test, in, cwnd, false,
						  budgets[b]);
				xib_retx_cc_check(test, in, cwnd, true,
						  budgets[b]);
			}
	/* the send window's full size, around the minimum */
	for (in = 0; in <= XIB_HCA_SEND_WINDOW; in++)
		xib_retx_cc_check(test, in, XIB_HCA_SEND_WINDOW, false, 512);
}

/*
 * A device's QPs, each with a full send window of new packets, sending
 * in turns as the engine lets them, XIB_HCA_QP_BUDGET at a time, nothing
 * acknowledged: what each ends up with in flight.  Returns the total.
 */
static unsigned int xib_retx_cc_fill(u32 *inflight, unsigned int nqps,
				     u32 cwnd, unsigned int budget)
{
	unsigned int dev = 0, i, k;
	bool sent;

	memset(inflight, 0, nqps * sizeof(*inflight));
	do {
		sent = false;
		for (i = 0; i < nqps; i++) {
			for (k = 0; k < XIB_HCA_QP_BUDGET; k++) {
				if (!xib_hca_cc_may_send(inflight[i], cwnd,
							 false, dev, budget))
					break;
				inflight[i]++;
				dev++;
				sent = true;
			}
		}
	} while (sent);
	return dev;
}

/*
 * 256 QPs on a budget of 512: the first 32 take it, 16 packets each in
 * the first pass (XIB_HCA_QP_BUDGET), then the budget is spent and the
 * other 224 have their minimum of 2 each: 960 in all, never more than
 * the budget plus every QP's minimum, and every QP has its minimum.
 * Unbounded, they send every window; a QP alone sends its whole window
 * (its behaviour without a crowd is unchanged); 300 QPs likewise, with
 * 268 at their minimum.
 */
static void xib_retx_cc_share(struct kunit *test)
{
	u32 *in = kunit_kcalloc(test, 300, sizeof(*in), GFP_KERNEL);
	unsigned int i, total;

	KUNIT_ASSERT_NOT_NULL(test, in);
	total = xib_retx_cc_fill(in, 256, XIB_HCA_SEND_WINDOW, 512);
	KUNIT_EXPECT_EQ(test, total, 32U * 16 + 224U * XIB_HCA_CC_MIN);
	KUNIT_EXPECT_LE(test, total, 512U + 256U * XIB_HCA_CC_MIN);
	for (i = 0; i < 256; i++)
		KUNIT_EXPECT_EQ(test, in[i], i < 32 ? 16U : (u32)XIB_HCA_CC_MIN);

	total = xib_retx_cc_fill(in, 256, XIB_HCA_SEND_WINDOW, 0);
	KUNIT_EXPECT_EQ(test, total, 256U * XIB_HCA_SEND_WINDOW);

	total = xib_retx_cc_fill(in, 1, XIB_HCA_SEND_WINDOW, 512);
	KUNIT_EXPECT_EQ(test, total, (unsigned int)XIB_HCA_SEND_WINDOW);

	total = xib_retx_cc_fill(in, 300, XIB_HCA_SEND_WINDOW, 512);
	KUNIT_EXPECT_EQ(test, total, 32U * 16 + 268U * XIB_HCA_CC_MIN);
	for (i = 32; i < 300; i++)
		KUNIT_EXPECT_EQ(test, in[i], (u32)XIB_HCA_CC_MIN);

	/* after timeouts (cwnd 1) the minimum is the one packet */
	total = xib_retx_cc_fill(in, 300, 1, 16);
	KUNIT_EXPECT_EQ(test, total, 300U);
	/* a small budget is spent at once; the rest have their minimum */
	total = xib_retx_cc_fill(in, 4, XIB_HCA_SEND_WINDOW, 20);
	KUNIT_EXPECT_EQ(test, total, 16U + 4U + 2U * XIB_HCA_CC_MIN);
}

/*
 * When the device's queue counts as full: from three quarters of the
 * budget on, by hand and against the rule's statement for every count
 * and a few budgets; never on an unbounded device.
 */
static void xib_retx_cc_queued(struct kunit *test)
{
	static const unsigned int budgets[] = { 1, 2, 3, 4, 5, 8, 100, 512,
						513, 1000 };
	unsigned int b, dev, budget;

	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(383, 512));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_queued(384, 512));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_queued(512, 512));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_queued(5000, 512));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(0, 4));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(2, 4));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_queued(3, 4));
	/* budget 0 is unbounded: no queue */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(0, 0));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(UINT_MAX, 0));
	/* no overflow at the largest values */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_queued(UINT_MAX, UINT_MAX));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_queued(UINT_MAX / 2, UINT_MAX));

	for (b = 0; b < ARRAY_SIZE(budgets); b++) {
		budget = budgets[b];
		for (dev = 0; dev <= 2 * budget + 2; dev++) {
			/* at least 3/4 of the budget, rounded up */
			bool want = dev >= DIV_ROUND_UP(3 * budget, 4);

			KUNIT_ASSERT_EQ_MSG(test, xib_hca_cc_queued(dev, budget),
					    want, "dev %u budget %u", dev,
					    budget);
		}
	}
}

/*
 * A QP the budget holds back may send one packet more when none of its
 * packets in flight asked for an ACK: by hand (with the PSN space's
 * wrap), then against the statement for PSN offsets around a base.
 */
static bool xib_retx_unasked_oracle(u32 una, u32 asked, u32 hi)
{
	/* forward distances in the 24-bit PSN space */
	u32 sent = (hi - una) & XIB_PSN_MASK;
	u32 ask = (asked - una) & XIB_PSN_MASK;
	bool in_flight = sent != 0 && sent < BIT(23);
	bool ack_coming = ask != 0 && ask < BIT(23);

	return in_flight && !ack_coming;
}

static void xib_retx_cc_unasked(struct kunit *test)
{
	static const u32 bases[] = { 0, 1, 100, XIB_PSN_MASK - 3, XIB_PSN_MASK };
	unsigned int b;
	u32 base, una, asked, hi;

	/* nothing in flight: nothing to wait for */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_unasked(10, 10, 10));
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_unasked(10, 5, 10));
	/* two packets out, the second asked: its ACK is coming */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_unasked(10, 12, 12));
	/* ... the first only, and it is acknowledged: the second did not */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_unasked(11, 11, 12));
	/* none asked since the QP's start */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_unasked(10, 10, 12));
	/* an older ask, answered long ago */
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_unasked(500, 200, 510));
	/* across the PSN space's wrap */
	KUNIT_EXPECT_FALSE(test, xib_hca_cc_unasked(XIB_PSN_MASK, 1, 2));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_unasked(XIB_PSN_MASK, XIB_PSN_MASK, 2));
	KUNIT_EXPECT_TRUE(test, xib_hca_cc_unasked(0, XIB_PSN_MASK, 1));

	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		base = bases[b];
		for (una = 0; una < 8; una++)
			for (asked = 0; asked < 8; asked++)
				for (hi = 0; hi < 8; hi++) {
					u32 u = (base + una) & XIB_PSN_MASK;
					u32 a = (base + asked) & XIB_PSN_MASK;
					u32 h = (base + hi) & XIB_PSN_MASK;

					/* the sender's order: asked <= hi */
					if (asked > hi)
						continue;
					KUNIT_ASSERT_EQ_MSG(test,
							    xib_hca_cc_unasked(u, a, h),
							    xib_retx_unasked_oracle(u, a, h),
							    "una %u asked %u hi %u",
							    u, a, h);
				}
	}
}

/*
 * When an RC request packet asks for an ACK (xib_hca_ackreq()), case by
 * case: the requester asks where it will wait for the answer.
 */
static void xib_retx_ackreq_cases(struct kunit *test)
{
	static const struct {
		const char *what;
		struct xib_hca_ask a;
		bool asks;
	} c[] = {
		{ "a lone SEND: nothing follows, the program waits",
		  { .wqe_last = true, .cwnd = 128, .inflight = 1 }, true },
		{ "a SEND with another posted behind it",
		  { .wqe_last = true, .more = true, .cwnd = 128,
		    .inflight = 1 }, false },
		{ "a message's first packet, nothing posted behind",
		  { .cwnd = 128, .inflight = 1 }, false },
		{ "its middle packet, 30 since the last ask",
		  { .cwnd = 128, .inflight = 31, .unasked = 30 }, false },
		{ "the 32nd packet since the last ask",
		  { .wqe_last = true, .more = true, .cwnd = 128,
		    .inflight = 32, .unasked = 31 }, true },
		{ "the packet that fills the send window",
		  { .wqe_last = true, .more = true, .cwnd = 128,
		    .inflight = 128, .unasked = 3 }, true },
		{ "one short of filling it",
		  { .wqe_last = true, .more = true, .cwnd = 128,
		    .inflight = 127, .unasked = 3 }, false },
		{ "recovering from a loss: every packet",
		  { .more = true, .cwnd = 64, .inflight = 1 }, true },
		{ "the device's budget holds the next one back",
		  { .ask = true, .more = true, .cwnd = 128, .inflight = 2 },
		  true },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, xib_hca_ackreq(&c[i].a), c[i].asks,
				    "%s", c[i].what);
}

/*
 * A requester with every WQE posted up front sends bursts of messages of
 * random lengths through an open window (an ACK never comes in time to
 * matter): its last packet asks, no run of XIB_HCA_ACKREQ_EVERY packets
 * goes unasked, and it asks once per XIB_HCA_ACKREQ_EVERY packets, not
 * once per message.
 */
static void xib_retx_ackreq_bursts(struct kunit *test)
{
	struct rnd_state rs;
	unsigned int run;

	prandom_seed_state(&rs, 0x61636b72);
	for (run = 0; run < 200; run++) {
		u32 msgs = 1 + prandom_u32_state(&rs) % 64;
		u32 m, p, npkts, sent = 0, asks = 0, unasked = 0;
		bool asked = false;

		for (m = 0; m < msgs; m++) {
			npkts = 1 + prandom_u32_state(&rs) % 5;
			for (p = 0; p < npkts; p++) {
				struct xib_hca_ask a = {
					.wqe_last = p + 1 == npkts,
					.more = m + 1 < msgs,
					.cwnd = XIB_HCA_SEND_WINDOW,
					.inflight = 1,
					.unasked = unasked,
				};

				asked = xib_hca_ackreq(&a);
				unasked = asked ? 0 : unasked + 1;
				asks += asked;
				sent++;
				KUNIT_ASSERT_LT(test, unasked,
						(u32)XIB_HCA_ACKREQ_EVERY);
			}
		}
		KUNIT_EXPECT_TRUE_MSG(test, asked, "run %u: the last packet", run);
		KUNIT_EXPECT_EQ_MSG(test, asks,
				    (sent - 1) / XIB_HCA_ACKREQ_EVERY + 1,
				    "run %u: %u messages, %u packets", run, msgs,
				    sent);
	}
}

static struct kunit_case xib_retx_cases[] = {
	KUNIT_CASE(xib_retx_timeout),
	KUNIT_CASE(xib_retx_resume),
	KUNIT_CASE(xib_retx_read_rereq),
	KUNIT_CASE(xib_retx_classify),
	KUNIT_CASE(xib_retx_replay_answered),
	KUNIT_CASE(xib_retx_replay_pending),
	KUNIT_CASE(xib_retx_replay_held),
	KUNIT_CASE(xib_retx_uc_classify),
	KUNIT_CASE(xib_retx_uc_stream),
	KUNIT_CASE(xib_retx_budget_progress),
	KUNIT_CASE(xib_retx_budget_stale),
	KUNIT_CASE(xib_retx_budget_nak),
	KUNIT_CASE(xib_retx_renak_interval),
	KUNIT_CASE(xib_retx_renak_due),
	KUNIT_CASE(xib_retx_renak_requester),
	KUNIT_CASE(xib_retx_ooo_wait),
	KUNIT_CASE(xib_retx_ooo_keep),
	KUNIT_CASE(xib_retx_backoff),
	KUNIT_CASE(xib_retx_rtt),
	KUNIT_CASE(xib_retx_pto),
	KUNIT_CASE(xib_retx_probe_due),
	KUNIT_CASE(xib_retx_probe_defer),
	KUNIT_CASE(xib_retx_probe_defer_all),
	KUNIT_CASE(xib_retx_cc_rules),
	KUNIT_CASE(xib_retx_cc_oracle_all),
	KUNIT_CASE(xib_retx_cc_share),
	KUNIT_CASE(xib_retx_cc_queued),
	KUNIT_CASE(xib_retx_cc_unasked),
	KUNIT_CASE(xib_retx_ackreq_cases),
	KUNIT_CASE(xib_retx_ackreq_bursts),
	{}
};

static struct kunit_suite xib_retx_suite = {
	.name = "xib_hca_retx",
	.test_cases = xib_retx_cases,
};

kunit_test_suite(xib_retx_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of xib_hca retransmission arithmetic");
