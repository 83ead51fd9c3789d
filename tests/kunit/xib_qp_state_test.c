// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the QP state machine (core/qp_state.c).
 *
 * The expectations are written here independently of the table under
 * test, one row per transition and QP type, from the ibv_modify_qp(3) man
 * page (required attributes of Reset -> Init -> RTR -> RTS) and IBTA vol 1
 * ch. 10.3 and 11.2.4.2 (the other transitions and the optional
 * attributes); XRC's initiator (XI) and target (XT) from IBTA 9.8 and the
 * per-type rule table of Linux's ib_modify_qp_is_ok() (an initiator is an
 * RC requester with no responder attribute, a target an RC responder
 * whose only requester attribute is the ACK timeout).  Every (cur, next, type) is checked through
 * xib_qp_transition_ok() alone; a triple with no row must be refused
 * whatever the mask.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <xib/qp_state.h>

#define RC	XIB_QPT_RC
#define UC	XIB_QPT_UC
#define UD	XIB_QPT_UD
#define XI	XIB_QPT_XRC_SEND	/* XRC initiator */
#define XT	XIB_QPT_XRC_RECV	/* XRC target */

#define RESET	XIB_QPS_RESET
#define INIT	XIB_QPS_INIT
#define RTR	XIB_QPS_RTR
#define RTS	XIB_QPS_RTS
#define SQD	XIB_QPS_SQD
#define SQE	XIB_QPS_SQE
#define ERR	XIB_QPS_ERR

/* Short names for the attribute bits, to keep the rows readable. */
#define CUR	XIB_QP_CUR_STATE
#define SQDN	XIB_QP_EN_SQD_ASYNC_NOTIFY
#define ACC	XIB_QP_ACCESS_FLAGS
#define PKEY	XIB_QP_PKEY_INDEX
#define PORT	XIB_QP_PORT
#define QKEY	XIB_QP_QKEY
#define AV	XIB_QP_AV
#define MTU	XIB_QP_PATH_MTU
#define TMO	XIB_QP_TIMEOUT
#define RETRY	XIB_QP_RETRY_CNT
#define RNR	XIB_QP_RNR_RETRY
#define RQPSN	XIB_QP_RQ_PSN
#define RDAT	XIB_QP_MAX_QP_RD_ATOMIC
#define ALT	XIB_QP_ALT_PATH
#define RNRT	XIB_QP_MIN_RNR_TIMER
#define SQPSN	XIB_QP_SQ_PSN
#define DRDAT	XIB_QP_MAX_DEST_RD_ATOMIC
#define MIG	XIB_QP_PATH_MIG_STATE
#define DQPN	XIB_QP_DEST_QPN

/* The known attribute bits, spelled out rather than taken from the code. */
static const u32 xib_test_known_bits[] = {
	XIB_QP_STATE, CUR, SQDN, ACC, PKEY, PORT, QKEY, AV, MTU, TMO, RETRY,
	RNR, RQPSN, RDAT, ALT, RNRT, SQPSN, DRDAT, MIG, XIB_QP_CAP, DQPN,
	XIB_QP_RATE_LIMIT,
};

struct xib_qp_expect {
	enum xib_qp_state cur, next;
	enum xib_qp_type type;
	u32 req;	/* besides XIB_QP_STATE */
	u32 opt;
};

static const struct xib_qp_expect xib_qp_expected[] = {
	/* Any state -> Reset and any state -> Error: the state alone. */
	{ RESET, RESET, RC }, { RESET, RESET, UC }, { RESET, RESET, UD },
	{ INIT, RESET, RC }, { INIT, RESET, UC }, { INIT, RESET, UD },
	{ RTR, RESET, RC }, { RTR, RESET, UC }, { RTR, RESET, UD },
	{ RTS, RESET, RC }, { RTS, RESET, UC }, { RTS, RESET, UD },
	{ SQD, RESET, RC }, { SQD, RESET, UC }, { SQD, RESET, UD },
	{ SQE, RESET, RC }, { SQE, RESET, UC }, { SQE, RESET, UD },
	{ ERR, RESET, RC }, { ERR, RESET, UC }, { ERR, RESET, UD },
	{ RESET, ERR, RC }, { RESET, ERR, UC }, { RESET, ERR, UD },
	{ INIT, ERR, RC }, { INIT, ERR, UC }, { INIT, ERR, UD },
	{ RTR, ERR, RC }, { RTR, ERR, UC }, { RTR, ERR, UD },
	{ RTS, ERR, RC }, { RTS, ERR, UC }, { RTS, ERR, UD },
	{ SQD, ERR, RC }, { SQD, ERR, UC }, { SQD, ERR, UD },
	{ SQE, ERR, RC }, { SQE, ERR, UC }, { SQE, ERR, UD },
	{ ERR, ERR, RC }, { ERR, ERR, UC }, { ERR, ERR, UD },
	{ RESET, RESET, XI }, { RESET, RESET, XT },
	{ INIT, RESET, XI }, { INIT, RESET, XT },
	{ RTR, RESET, XI }, { RTR, RESET, XT },
	{ RTS, RESET, XI }, { RTS, RESET, XT },
	{ SQD, RESET, XI }, { SQD, RESET, XT },
	{ SQE, RESET, XI }, { SQE, RESET, XT },
	{ ERR, RESET, XI }, { ERR, RESET, XT },
	{ RESET, ERR, XI }, { RESET, ERR, XT },
	{ INIT, ERR, XI }, { INIT, ERR, XT },
	{ RTR, ERR, XI }, { RTR, ERR, XT },
	{ RTS, ERR, XI }, { RTS, ERR, XT },
	{ SQD, ERR, XI }, { SQD, ERR, XT },
	{ SQE, ERR, XI }, { SQE, ERR, XT },
	{ ERR, ERR, XI }, { ERR, ERR, XT },

	/* ibv_modify_qp(3): Reset -> Init. */
	{ RESET, INIT, RC, PKEY | PORT | ACC, 0 },
	{ RESET, INIT, UC, PKEY | PORT | ACC, 0 },
	{ RESET, INIT, UD, PKEY | PORT | QKEY, 0 },
	{ RESET, INIT, XI, PKEY | PORT | ACC, 0 },
	{ RESET, INIT, XT, PKEY | PORT | ACC, 0 },

	/* Init -> Init: the Reset -> Init attributes, each optional. */
	{ INIT, INIT, RC, 0, PKEY | PORT | ACC },
	{ INIT, INIT, UC, 0, PKEY | PORT | ACC },
	{ INIT, INIT, UD, 0, PKEY | PORT | QKEY },
	{ INIT, INIT, XI, 0, PKEY | PORT | ACC },
	{ INIT, INIT, XT, 0, PKEY | PORT | ACC },

	/* ibv_modify_qp(3): Init -> RTR. */
	{ INIT, RTR, RC, AV | MTU | DQPN | RQPSN | DRDAT | RNRT,
	  PKEY | ACC | ALT },
	{ INIT, RTR, UC, AV | MTU | DQPN | RQPSN, PKEY | ACC | ALT },
	{ INIT, RTR, UD, 0, PKEY | QKEY },
	{ INIT, RTR, XI, AV | MTU | DQPN | RQPSN, PKEY | ACC | ALT },
	{ INIT, RTR, XT, AV | MTU | DQPN | RQPSN | DRDAT | RNRT,
	  PKEY | ACC | ALT },

	/* ibv_modify_qp(3): RTR -> RTS. */
	{ RTR, RTS, RC, SQPSN | RDAT | RETRY | RNR | TMO,
	  CUR | ACC | ALT | MIG | RNRT },
	{ RTR, RTS, UC, SQPSN, CUR | ACC | ALT | MIG },
	{ RTR, RTS, UD, SQPSN, CUR | QKEY },
	{ RTR, RTS, XI, SQPSN | RDAT | RETRY | RNR | TMO, CUR | ACC | ALT | MIG },
	{ RTR, RTS, XT, SQPSN | TMO, CUR | ACC | ALT | MIG | RNRT },

	/* RTS -> RTS. */
	{ RTS, RTS, RC, 0, CUR | ACC | ALT | MIG | RNRT },
	{ RTS, RTS, UC, 0, CUR | ACC | ALT | MIG },
	{ RTS, RTS, UD, 0, CUR | QKEY },
	{ RTS, RTS, XI, 0, CUR | ACC | ALT | MIG },
	{ RTS, RTS, XT, 0, CUR | ACC | ALT | MIG | RNRT },

	/* RTS -> SQD: drain, with or without the SQ-drained event. */
	{ RTS, SQD, RC, 0, SQDN },
	{ RTS, SQD, UC, 0, SQDN },
	{ RTS, SQD, UD, 0, SQDN },
	{ RTS, SQD, XI, 0, SQDN },
	{ RTS, SQD, XT, 0, SQDN },

	/* SQD -> RTS: resume, as RTS -> RTS. */
	{ SQD, RTS, RC, 0, CUR | ACC | ALT | MIG | RNRT },
	{ SQD, RTS, UC, 0, CUR | ACC | ALT | MIG },
	{ SQD, RTS, UD, 0, CUR | QKEY },
	{ SQD, RTS, XI, 0, CUR | ACC | ALT | MIG },
	{ SQD, RTS, XT, 0, CUR | ACC | ALT | MIG | RNRT },

	/* SQD -> SQD: change the path and limits of a drained QP. */
	{ SQD, SQD, RC, 0, PORT | AV | ALT | MIG | PKEY | ACC | TMO | RETRY |
			   RNR | RDAT | DRDAT | RNRT },
	{ SQD, SQD, UC, 0, AV | ALT | MIG | PKEY | ACC },
	{ SQD, SQD, UD, 0, PKEY | QKEY },
	{ SQD, SQD, XI, 0, PORT | AV | ALT | MIG | PKEY | ACC | TMO | RETRY |
			   RNR | RDAT },
	{ SQD, SQD, XT, 0, PORT | AV | ALT | MIG | PKEY | ACC | TMO | DRDAT |
			   RNRT },

	/* SQE -> RTS: UC and UD only; an RC or XRC QP never enters SQE. */
	{ SQE, RTS, UC, 0, CUR | ACC },
	{ SQE, RTS, UD, 0, CUR | QKEY },
};

static const enum xib_qp_type xib_test_types[] = { RC, UC, UD, XI, XT };

static const char *xib_test_type_name(enum xib_qp_type type)
{
	return type == RC ? "RC" : type == UC ? "UC" : type == UD ? "UD" :
	       type == XI ? "XRC_SEND" : "XRC_RECV";
}

struct xib_test_triple {
	enum xib_qp_state cur, next;
	enum xib_qp_type type;
};

static const struct xib_qp_expect *xib_test_find(struct xib_test_triple t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xib_qp_expected); i++) {
		const struct xib_qp_expect *e = &xib_qp_expected[i];

		if (e->cur == t.cur && e->next == t.next && e->type == t.type)
			return e;
	}
	return NULL;
}

/* Checks one request: accepted or not, and what is reported. */
static void xib_test_check(struct kunit *test, struct xib_test_triple t,
			   u32 mask, bool ok, u32 missing, u32 unexpected)
{
	u32 got_missing = 0xdeadbeef, got_unexpected = 0xdeadbeef;
	bool got;

	got = xib_qp_transition_ok(t.cur, t.next, t.type, mask,
				   &got_missing, &got_unexpected);
	KUNIT_EXPECT_EQ_MSG(test, got, ok, "%s mask %#x",
			    xib_test_type_name(t.type), mask);
	KUNIT_EXPECT_EQ_MSG(test, got_missing, missing, "%s mask %#x",
			    xib_test_type_name(t.type), mask);
	KUNIT_EXPECT_EQ_MSG(test, got_unexpected, unexpected, "%s mask %#x",
			    xib_test_type_name(t.type), mask);
}

/*
 * Checks an existing transition with the base mask @state (XIB_QP_STATE,
 * or 0 for a cur -> cur request without it).
 */
static void xib_test_allowed(struct kunit *test, struct xib_test_triple t,
			     const struct xib_qp_expect *e, u32 state)
{
	u32 base = state | e->req;
	unsigned int i;

	/* The required attributes alone, then with every optional one. */
	xib_test_check(test, t, base, true, 0, 0);
	xib_test_check(test, t, base | e->opt, true, 0, 0);

	for (i = 0; i < ARRAY_SIZE(xib_test_known_bits); i++) {
		u32 bit = xib_test_known_bits[i];

		if (bit == XIB_QP_STATE)
			continue;
		if (e->req & bit)	/* dropping a required one */
			xib_test_check(test, t, base & ~bit, false, bit, 0);
		else if (e->opt & bit)	/* adding an optional one */
			xib_test_check(test, t, base | bit, true, 0, 0);
		else			/* adding one not allowed */
			xib_test_check(test, t, base | bit, false, 0, bit);
	}

	/* Unknown bits are refused, even with a valid request. */
	for (i = 0; i < 32; i++) {
		u32 bit = BIT(i);
		unsigned int k;
		bool known = false;

		for (k = 0; k < ARRAY_SIZE(xib_test_known_bits); k++)
			known |= xib_test_known_bits[k] == bit;
		if (!known)
			xib_test_check(test, t, base | e->opt | bit, false, 0,
				       bit);
	}
}

/* A refused transition: refused whatever the mask, nothing reported. */
static void xib_test_refused(struct kunit *test, struct xib_test_triple t)
{
	u32 all = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xib_test_known_bits); i++) {
		all |= xib_test_known_bits[i];
		xib_test_check(test, t, XIB_QP_STATE | xib_test_known_bits[i],
			       false, 0, 0);
	}
	xib_test_check(test, t, all, false, 0, 0);
	xib_test_check(test, t, U32_MAX, false, 0, 0);
}

/* Checks one (cur, next) pair for every type. */
static void xib_test_pair(struct kunit *test, enum xib_qp_state cur,
			  enum xib_qp_state next)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xib_test_types); i++) {
		struct xib_test_triple t = { cur, next, xib_test_types[i] };
		const struct xib_qp_expect *e = xib_test_find(t);

		if (!e) {
			xib_test_refused(test, t);
			/* No cur -> cur without XIB_QP_STATE either. */
			if (cur == next)
				xib_test_check(test, t, 0, false, 0, 0);
			continue;
		}
		xib_test_allowed(test, t, e, XIB_QP_STATE);
		if (cur == next)
			xib_test_allowed(test, t, e, 0);
	}
}

/* Without XIB_QP_STATE, @next is ignored: the request is cur -> cur. */
static void xib_qp_state_test_no_state(struct kunit *test)
{
	u32 missing, unexpected;

	/* RTS with no attributes at all: RTS -> RTS, whatever next says. */
	KUNIT_EXPECT_TRUE(test, xib_qp_transition_ok(RTS, RESET, RC, 0,
						     &missing, &unexpected));
	KUNIT_EXPECT_TRUE(test, xib_qp_transition_ok(RTS, 99, UD, QKEY,
						     &missing, &unexpected));
	/* RTR -> RTR does not exist, so neither does RTR without a state. */
	KUNIT_EXPECT_FALSE(test, xib_qp_transition_ok(RTR, RTS, RC, SQPSN,
						      &missing, &unexpected));
	KUNIT_EXPECT_EQ(test, missing, 0U);
	KUNIT_EXPECT_EQ(test, unexpected, 0U);
	/* INIT -> INIT takes its attributes without XIB_QP_STATE. */
	KUNIT_EXPECT_TRUE(test, xib_qp_transition_ok(INIT, RTR, UC, PORT,
						     &missing, &unexpected));
}

/* Out-of-range states and unsupported or reserved types. */
static void xib_qp_state_test_invalid(struct kunit *test)
{
	static const enum xib_qp_type bad_types[] = {
		0, 1, 5, 7, XIB_QPT_RAW_PACKET, 11, 255,
	};
	static const int bad_states[] = { -1, 7, 8, 255, 0x7fffffff };
	u32 init_rc = XIB_QP_STATE | PKEY | PORT | ACC;
	u32 missing, unexpected;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_types); i++) {
		KUNIT_EXPECT_FALSE_MSG(test,
				       xib_qp_transition_ok(RESET, INIT,
							    bad_types[i],
							    init_rc, &missing,
							    &unexpected),
				       "type %d", bad_types[i]);
		KUNIT_EXPECT_EQ(test, missing, 0U);
		KUNIT_EXPECT_EQ(test, unexpected, 0U);
		KUNIT_EXPECT_FALSE(test, xib_qp_transition_ok(RTS, ERR,
							      bad_types[i],
							      XIB_QP_STATE,
							      NULL, NULL));
	}
	for (i = 0; i < ARRAY_SIZE(bad_states); i++) {
		enum xib_qp_state s = bad_states[i];

		KUNIT_EXPECT_FALSE_MSG(test,
				       xib_qp_transition_ok(s, ERR, RC,
							    XIB_QP_STATE,
							    &missing,
							    &unexpected),
				       "cur %d", bad_states[i]);
		KUNIT_EXPECT_EQ(test, missing, 0U);
		KUNIT_EXPECT_EQ(test, unexpected, 0U);
		KUNIT_EXPECT_FALSE_MSG(test,
				       xib_qp_transition_ok(RESET, s, RC,
							    XIB_QP_STATE,
							    &missing,
							    &unexpected),
				       "next %d", bad_states[i]);
		KUNIT_EXPECT_FALSE_MSG(test,
				       xib_qp_transition_ok(s, s, UD, 0,
							    &missing,
							    &unexpected),
				       "cur %d, no state", bad_states[i]);
	}
}

/* The reports are optional; a request that fails still fails. */
static void xib_qp_state_test_null_reports(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, xib_qp_transition_ok(RTR, RTS, UD,
						     XIB_QP_STATE | SQPSN,
						     NULL, NULL));
	KUNIT_EXPECT_FALSE(test, xib_qp_transition_ok(RTR, RTS, UD,
						      XIB_QP_STATE,
						      NULL, NULL));
	KUNIT_EXPECT_FALSE(test, xib_qp_transition_ok(RTR, RTS, UD,
						      XIB_QP_STATE | SQPSN |
						      XIB_QP_CAP, NULL, NULL));
}

/* Several reports at once: every missing and every extra bit is named. */
static void xib_qp_state_test_combined(struct kunit *test)
{
	u32 missing, unexpected;

	KUNIT_EXPECT_FALSE(test, xib_qp_transition_ok(INIT, RTR, RC,
						      XIB_QP_STATE | AV | MTU |
						      QKEY | BIT(23),
						      &missing, &unexpected));
	KUNIT_EXPECT_EQ(test, missing, (u32)(DQPN | RQPSN | DRDAT | RNRT));
	KUNIT_EXPECT_EQ(test, unexpected, (u32)(QKEY | BIT(23)));
}

/*
 * From here on the state names are tokens pasted into case names and
 * XIB_QPS_* constants, so the short macros must not expand them.
 */
#undef RESET
#undef INIT
#undef RTR
#undef RTS
#undef SQD
#undef SQE
#undef ERR

/*
 * One case per (cur, next) pair, named "CUR->NEXT".  (Not a parameterised
 * case: Linux 6.1 keeps only the last parameter's log, so a failure's
 * messages would be lost.)
 */
#define XIB_TEST_PAIR(c, n)						\
static void xib_qp_state_test_##c##_##n(struct kunit *test)		\
{									\
	xib_test_pair(test, XIB_QPS_##c, XIB_QPS_##n);			\
}

XIB_TEST_PAIR(RESET, RESET)
XIB_TEST_PAIR(RESET, INIT)
XIB_TEST_PAIR(RESET, RTR)
XIB_TEST_PAIR(RESET, RTS)
XIB_TEST_PAIR(RESET, SQD)
XIB_TEST_PAIR(RESET, SQE)
XIB_TEST_PAIR(RESET, ERR)
XIB_TEST_PAIR(INIT, RESET)
XIB_TEST_PAIR(INIT, INIT)
XIB_TEST_PAIR(INIT, RTR)
XIB_TEST_PAIR(INIT, RTS)
XIB_TEST_PAIR(INIT, SQD)
XIB_TEST_PAIR(INIT, SQE)
XIB_TEST_PAIR(INIT, ERR)
XIB_TEST_PAIR(RTR, RESET)
XIB_TEST_PAIR(RTR, INIT)
XIB_TEST_PAIR(RTR, RTR)
XIB_TEST_PAIR(RTR, RTS)
XIB_TEST_PAIR(RTR, SQD)
XIB_TEST_PAIR(RTR, SQE)
XIB_TEST_PAIR(RTR, ERR)
XIB_TEST_PAIR(RTS, RESET)
XIB_TEST_PAIR(RTS, INIT)
XIB_TEST_PAIR(RTS, RTR)
XIB_TEST_PAIR(RTS, RTS)
XIB_TEST_PAIR(RTS, SQD)
XIB_TEST_PAIR(RTS, SQE)
XIB_TEST_PAIR(RTS, ERR)
XIB_TEST_PAIR(SQD, RESET)
XIB_TEST_PAIR(SQD, INIT)
XIB_TEST_PAIR(SQD, RTR)
XIB_TEST_PAIR(SQD, RTS)
XIB_TEST_PAIR(SQD, SQD)
XIB_TEST_PAIR(SQD, SQE)
XIB_TEST_PAIR(SQD, ERR)
XIB_TEST_PAIR(SQE, RESET)
XIB_TEST_PAIR(SQE, INIT)
XIB_TEST_PAIR(SQE, RTR)
XIB_TEST_PAIR(SQE, RTS)
XIB_TEST_PAIR(SQE, SQD)
XIB_TEST_PAIR(SQE, SQE)
XIB_TEST_PAIR(SQE, ERR)
XIB_TEST_PAIR(ERR, RESET)
XIB_TEST_PAIR(ERR, INIT)
XIB_TEST_PAIR(ERR, RTR)
XIB_TEST_PAIR(ERR, RTS)
XIB_TEST_PAIR(ERR, SQD)
XIB_TEST_PAIR(ERR, SQE)
XIB_TEST_PAIR(ERR, ERR)

#define XIB_TEST_CASE(c, n)						\
	{ .run_case = xib_qp_state_test_##c##_##n, .name = #c "->" #n }

static struct kunit_case xib_qp_state_test_cases[] = {
	XIB_TEST_CASE(RESET, RESET),
	XIB_TEST_CASE(RESET, INIT),
	XIB_TEST_CASE(RESET, RTR),
	XIB_TEST_CASE(RESET, RTS),
	XIB_TEST_CASE(RESET, SQD),
	XIB_TEST_CASE(RESET, SQE),
	XIB_TEST_CASE(RESET, ERR),
	XIB_TEST_CASE(INIT, RESET),
	XIB_TEST_CASE(INIT, INIT),
	XIB_TEST_CASE(INIT, RTR),
	XIB_TEST_CASE(INIT, RTS),
	XIB_TEST_CASE(INIT, SQD),
	XIB_TEST_CASE(INIT, SQE),
	XIB_TEST_CASE(INIT, ERR),
	XIB_TEST_CASE(RTR, RESET),
	XIB_TEST_CASE(RTR, INIT),
	XIB_TEST_CASE(RTR, RTR),
	XIB_TEST_CASE(RTR, RTS),
	XIB_TEST_CASE(RTR, SQD),
	XIB_TEST_CASE(RTR, SQE),
	XIB_TEST_CASE(RTR, ERR),
	XIB_TEST_CASE(RTS, RESET),
	XIB_TEST_CASE(RTS, INIT),
	XIB_TEST_CASE(RTS, RTR),
	XIB_TEST_CASE(RTS, RTS),
	XIB_TEST_CASE(RTS, SQD),
	XIB_TEST_CASE(RTS, SQE),
	XIB_TEST_CASE(RTS, ERR),
	XIB_TEST_CASE(SQD, RESET),
	XIB_TEST_CASE(SQD, INIT),
	XIB_TEST_CASE(SQD, RTR),
	XIB_TEST_CASE(SQD, RTS),
	XIB_TEST_CASE(SQD, SQD),
	XIB_TEST_CASE(SQD, SQE),
	XIB_TEST_CASE(SQD, ERR),
	XIB_TEST_CASE(SQE, RESET),
	XIB_TEST_CASE(SQE, INIT),
	XIB_TEST_CASE(SQE, RTR),
	XIB_TEST_CASE(SQE, RTS),
	XIB_TEST_CASE(SQE, SQD),
	XIB_TEST_CASE(SQE, SQE),
	XIB_TEST_CASE(SQE, ERR),
	XIB_TEST_CASE(ERR, RESET),
	XIB_TEST_CASE(ERR, INIT),
	XIB_TEST_CASE(ERR, RTR),
	XIB_TEST_CASE(ERR, RTS),
	XIB_TEST_CASE(ERR, SQD),
	XIB_TEST_CASE(ERR, SQE),
	XIB_TEST_CASE(ERR, ERR),
	KUNIT_CASE(xib_qp_state_test_no_state),
	KUNIT_CASE(xib_qp_state_test_invalid),
	KUNIT_CASE(xib_qp_state_test_null_reports),
	KUNIT_CASE(xib_qp_state_test_combined),
	{}
};

static struct kunit_suite xib_qp_state_test_suite = {
	.name = "xib_qp_state",
	.test_cases = xib_qp_state_test_cases,
};

kunit_test_suite(xib_qp_state_test_suite);

MODULE_DESCRIPTION("KUnit tests of the xib QP state machine");
MODULE_LICENSE("GPL");
