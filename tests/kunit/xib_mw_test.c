// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the memory window rules of xib_core (core/verbs.c):
 * xib_mw_bind_check(), xib_mw_access_check(), xib_mw_mr_va() and
 * xib_mw_inv_check(),
 * pure functions of a window, a PD, an MR and a request, against tables
 * written from the IBTA (vol. 1 10.6.7: memory windows, type 1 and 2B;
 * C10-72 to C10-75 and o10-37.2.x for binding; 9.4.1.x and 10.6.7.3 for
 * the responder's R_Key checks; o10-37.2.26 for invalidation), not from
 * the code.
 */

#include <kunit/test.h>
#include <xib/xib_verbs.h>

#define IDX	0x812345U		/* a window's key index */
#define KEY(k)	(IDX << 8 | (k))
#define BASE	0x10000ULL		/* the MR: [BASE, BASE + 64 KiB) */
#define LEN	0x10000ULL
#define RW	(XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ)
#define ALL	(RW | XIB_ACCESS_REMOTE_ATOMIC)

static struct xib_pd pd_a, pd_b;
static struct xib_qp qp_a, qp_b;

static void xib_mw_test_mr(struct xib_mr *mr, struct xib_pd *pd, u32 access)
{
	memset(mr, 0, sizeof(*mr));
	mr->pd = pd;
	mr->iova = BASE;
	mr->length = LEN;
	mr->access = access;
}

static void xib_mw_test_mw(struct xib_mw *mw, u32 type, enum xib_mw_state st)
{
	memset(mw, 0, sizeof(*mw));
	mw->pd = &pd_a;
	mw->type = type;
	mw->index = IDX;
	mw->state = st;
	mw->rkey = KEY(7);
}

/* Binding (10.6.7.2): which binds a window accepts. */
static void xib_mw_test_bind(struct kunit *test)
{
	static const struct {
		const char *what;
		u32 type;
		enum xib_mw_state state;
		bool other_qp_pd;	/* the QP is not in the window's PD */
		bool no_mr;
		bool mr_other_pd;
		u32 mr_access;
		u32 new_rkey;
		u64 addr, len;
		u32 access;
		bool type1;		/* the Bind Memory Window verb */
		int want;
	} tbl[] = {
		{ "type 1 bind", 1, XIB_MW_VALID, false, false, false,
		  XIB_ACCESS_MW_BIND | XIB_ACCESS_LOCAL_WRITE, KEY(8), BASE, LEN, ALL, true, 0 },
		{ "type 1 bind again in place (rebind)", 1, XIB_MW_VALID, false, false,
		  false, XIB_ACCESS_MW_BIND, KEY(9), BASE + 1, 1,
		  XIB_ACCESS_REMOTE_READ, true, 0 },
		{ "type 1 zero length: unbind, no MR needed", 1, XIB_MW_VALID, false,
		  true, false, 0, KEY(8), 0, 0, 0, true, 0 },
		{ "type 1 by a BIND_MW WQE", 1, XIB_MW_VALID, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ, false,
		  -EINVAL },
		{ "type 2 by the Bind MW verb", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ, true,
		  -EINVAL },
		{ "type 2 bind of a free window", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(0xff), BASE + LEN - 16, 16,
		  XIB_ACCESS_REMOTE_READ, false, 0 },
		{ "type 2 bind of a bound (valid) window: o10-37.2.30", 2,
		  XIB_MW_VALID, false, false, false, XIB_ACCESS_MW_BIND, KEY(8), BASE,
		  16, XIB_ACCESS_REMOTE_READ, false, -EINVAL },
		{ "type 2 zero length: o10-37.2.40", 2, XIB_MW_FREE, false, false,
		  false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 0, 0, false, -EINVAL },
		{ "type 2 QP of another PD: C10-72", 2, XIB_MW_FREE, true, false,
		  false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ,
		  false, -EACCES },
		{ "type 1 QP of another PD", 1, XIB_MW_VALID, true, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ, true,
		  -EACCES },
		{ "deallocated window", 1, XIB_MW_INVALID, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ, true,
		  -EINVAL },
		{ "new rkey of another index", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8) ^ 0x100, BASE, 16,
		  XIB_ACCESS_REMOTE_READ, false, -EINVAL },
		{ "no MR", 2, XIB_MW_FREE, false, true, false, 0, KEY(8), BASE, 16,
		  XIB_ACCESS_REMOTE_READ, false, -EINVAL },
		{ "MR without MW_BIND: C10-73", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_READ, KEY(8), BASE, 16,
		  XIB_ACCESS_REMOTE_READ, false, -EACCES },
		{ "MR of another PD", 2, XIB_MW_FREE, false, false, true,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ, false,
		  -EACCES },
		{ "REMOTE_WRITE, MR without LOCAL_WRITE: C10-74", 2, XIB_MW_FREE,
		  false, false, false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 16,
		  XIB_ACCESS_REMOTE_WRITE, false, -EACCES },
		{ "REMOTE_ATOMIC, MR without LOCAL_WRITE: C10-74", 1, XIB_MW_VALID,
		  false, false, false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 16,
		  XIB_ACCESS_REMOTE_ATOMIC, true, -EACCES },
		{ "REMOTE_READ, MR without LOCAL_WRITE", 1, XIB_MW_VALID, false, false,
		  false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 16, XIB_ACCESS_REMOTE_READ,
		  true, 0 },
		{ "one byte past the MR: C10-75", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE + LEN - 16, 17,
		  XIB_ACCESS_REMOTE_READ, false, -ERANGE },
		{ "from one byte before the MR: C10-75", 1, XIB_MW_VALID, false, false,
		  false, XIB_ACCESS_MW_BIND, KEY(8), BASE - 1, 16,
		  XIB_ACCESS_REMOTE_READ, true, -ERANGE },
		{ "range that wraps", 2, XIB_MW_FREE, false, false, false,
		  XIB_ACCESS_MW_BIND, KEY(8), BASE, ~0ULL, XIB_ACCESS_REMOTE_READ,
		  false, -ERANGE },
		{ "type 2 zero-based (the range is still the MR's)", 2, XIB_MW_FREE,
		  false, false, false, XIB_ACCESS_MW_BIND, KEY(8), BASE + 0x100, 16,
		  XIB_ACCESS_ZERO_BASED | XIB_ACCESS_REMOTE_READ, false, 0 },
		{ "type 2 zero-based, one byte past the MR: C10-75", 2, XIB_MW_FREE,
		  false, false, false, XIB_ACCESS_MW_BIND, KEY(8), BASE + LEN - 16,
		  17, XIB_ACCESS_ZERO_BASED | XIB_ACCESS_REMOTE_READ, false, -ERANGE },
		{ "type 1 zero-based: o10-36.2.2", 1, XIB_MW_VALID, false, false,
		  false, XIB_ACCESS_MW_BIND, KEY(8), BASE, 16,
		  XIB_ACCESS_ZERO_BASED | XIB_ACCESS_REMOTE_READ, true, -EINVAL },
		{ "type 1 zero-based unbind: o10-36.2.2", 1, XIB_MW_VALID, false,
		  true, false, 0, KEY(8), 0, 0, XIB_ACCESS_ZERO_BASED, true, -EINVAL },
		{ "LOCAL_WRITE is no window right", 2, XIB_MW_FREE, false, false,
		  false, XIB_ACCESS_MW_BIND | XIB_ACCESS_LOCAL_WRITE, KEY(8), BASE, 16,
		  XIB_ACCESS_LOCAL_WRITE, false, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		struct xib_mw_bind b = {
			.new_rkey = tbl[i].new_rkey,
			.addr = tbl[i].addr,
			.length = tbl[i].len,
			.access = tbl[i].access,
			.type1 = tbl[i].type1,
		};
		struct xib_mw mw;
		struct xib_mr mr;

		xib_mw_test_mw(&mw, tbl[i].type, tbl[i].state);
		xib_mw_test_mr(&mr, tbl[i].mr_other_pd ? &pd_b : &pd_a,
			       tbl[i].mr_access);
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_mw_bind_check(&mw, tbl[i].other_qp_pd ?
						      &pd_b : &pd_a,
						      tbl[i].no_mr ? NULL : &mr,
						      &b),
				    tbl[i].want, "%s", tbl[i].what);
	}
}

/* The responder's checks of a request through a window's rkey. */
static void xib_mw_test_access(struct kunit *test)
{
	static const struct {
		const char *what;
		u32 type;
		enum xib_mw_state state;
		bool unbound;
		bool other_pd;
		bool other_qp;
		u32 rkey;
		u64 va, len;
		u32 access;
		int want;
	} tbl[] = {
		{ "type 1 inside", 1, XIB_MW_VALID, false, false, false, KEY(7), BASE + 16,
		  32, XIB_ACCESS_REMOTE_READ, 0 },
		{ "type 1 the whole window", 1, XIB_MW_VALID, false, false, false, KEY(7),
		  BASE + 16, 4096, XIB_ACCESS_REMOTE_WRITE, 0 },
		{ "type 1 one byte past", 1, XIB_MW_VALID, false, false, false, KEY(7),
		  BASE + 16, 4097, XIB_ACCESS_REMOTE_WRITE, -ERANGE },
		{ "type 1 one byte before", 1, XIB_MW_VALID, false, false, false, KEY(7),
		  BASE + 15, 2, XIB_ACCESS_REMOTE_READ, -ERANGE },
		{ "a VA that wraps", 1, XIB_MW_VALID, false, false, false, KEY(7), ~0ULL,
		  2, XIB_ACCESS_REMOTE_READ, -ERANGE },
		{ "type 1 unbound (length 0)", 1, XIB_MW_VALID, true, false, false,
		  KEY(7), BASE + 16, 1, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "a stale key byte", 1, XIB_MW_VALID, false, false, false, KEY(6),
		  BASE + 16, 1, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "a right the window lacks", 1, XIB_MW_VALID, false, false, false,
		  KEY(7), BASE + 16, 8, XIB_ACCESS_REMOTE_ATOMIC, -EACCES },
		{ "a QP of another PD", 1, XIB_MW_VALID, false, true, false, KEY(7),
		  BASE + 16, 8, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "type 2B on its QP", 2, XIB_MW_VALID, false, false, false, KEY(7),
		  BASE + 16, 8, XIB_ACCESS_REMOTE_READ, 0 },
		{ "type 2B on another QP of the PD", 2, XIB_MW_VALID, false, false,
		  true, KEY(7), BASE + 16, 8, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "type 2 free (invalidated)", 2, XIB_MW_FREE, false, false, false,
		  KEY(7), BASE + 16, 8, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "deallocated", 1, XIB_MW_INVALID, false, false, false, KEY(7),
		  BASE + 16, 8, XIB_ACCESS_REMOTE_READ, -EACCES },
		{ "no right asked", 1, XIB_MW_VALID, false, false, false, KEY(7),
		  BASE + 16, 8, 0, -EACCES },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		struct xib_mw mw;
		struct xib_mr mr;

		xib_mw_test_mw(&mw, tbl[i].type, tbl[i].state);
		xib_mw_test_mr(&mr, &pd_a, XIB_ACCESS_MW_BIND);
		if (!tbl[i].unbound && tbl[i].state != XIB_MW_FREE) {
			mw.mr = &mr;
			mw.addr = BASE + 16;
			mw.length = 4096;
			mw.access = RW;
			mw.qp = &qp_a;
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_mw_access_check(&mw, tbl[i].other_pd ?
							&pd_b : &pd_a,
							tbl[i].other_qp ?
							&qp_b : &qp_a, tbl[i].rkey,
							tbl[i].va, tbl[i].len,
							tbl[i].access),
				    tbl[i].want, "%s", tbl[i].what);
	}
}

/*
 * A zero-based type 2 window (ibv_bind_mw(3): the remote address is an
 * offset from the window's start): bound to MR bytes [BASE + 0x100,
 * BASE + 0x1100), it answers offsets [0, 0x1000) and nothing else; an
 * offset names the MR byte window start + offset.
 */
static void xib_mw_test_zero_based(struct kunit *test)
{
	static const struct {
		const char *what;
		u64 va, len;
		int want;
		u64 mr_va;		/* if want == 0 */
	} tbl[] = {
		{ "first byte", 0, 1, 0, BASE + 0x100 },
		{ "last byte", 0xfff, 1, 0, BASE + 0x10ff },
		{ "the whole window", 0, 0x1000, 0, BASE + 0x100 },
		{ "the middle", 0x800, 0x10, 0, BASE + 0x900 },
		{ "one byte past", 0x800, 0x801, -ERANGE },
		{ "the first byte after", 0x1000, 1, -ERANGE },
		{ "the last byte and one more", 0xfff, 2, -ERANGE },
		{ "the window's MR address is no offset", BASE + 0x100, 1, -ERANGE },
		{ "an offset that wraps", ~0ULL, 2, -ERANGE },
		{ "a length that wraps", 1, ~0ULL, -ERANGE },
		{ "a huge length", 0, 1ULL << 63, -ERANGE },
	};
	struct xib_mw mw;
	struct xib_mr mr;
	unsigned int i;

	xib_mw_test_mr(&mr, &pd_a, XIB_ACCESS_MW_BIND);
	xib_mw_test_mw(&mw, 2, XIB_MW_VALID);
	mw.mr = &mr;
	mw.addr = BASE + 0x100;
	mw.length = 0x1000;
	mw.access = RW | XIB_ACCESS_ZERO_BASED;
	mw.qp = &qp_a;
	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_mw_access_check(&mw, &pd_a, &qp_a, KEY(7),
							tbl[i].va, tbl[i].len,
							XIB_ACCESS_REMOTE_READ),
				    tbl[i].want, "%s", tbl[i].what);
		if (!tbl[i].want)
			KUNIT_EXPECT_EQ_MSG(test, xib_mw_mr_va(&mw, tbl[i].va),
					    tbl[i].mr_va, "%s", tbl[i].what);
	}
	/* the other rules stay: a right the window lacks, another QP */
	KUNIT_EXPECT_EQ(test, xib_mw_access_check(&mw, &pd_a, &qp_a, KEY(7), 0, 8,
						  XIB_ACCESS_REMOTE_ATOMIC), -EACCES);
	KUNIT_EXPECT_EQ(test, xib_mw_access_check(&mw, &pd_a, &qp_b, KEY(7), 0, 8,
						  XIB_ACCESS_REMOTE_READ), -EACCES);
	/* a window that is not zero-based: addresses are the MR's */
	mw.access = RW;
	KUNIT_EXPECT_EQ(test, xib_mw_access_check(&mw, &pd_a, &qp_a, KEY(7), 0, 1,
						  XIB_ACCESS_REMOTE_READ), -ERANGE);
	KUNIT_EXPECT_EQ(test, xib_mw_access_check(&mw, &pd_a, &qp_a, KEY(7),
						  BASE + 0x100, 0x1000,
						  XIB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, xib_mw_mr_va(&mw, BASE + 0x180), BASE + 0x180);
}

/* LOCAL_INV and SEND_WITH_INV. */
static void xib_mw_test_inv(struct kunit *test)
{
	static const struct {
		const char *what;
		u32 type;
		enum xib_mw_state state;
		bool other_pd;
		bool other_qp;
		u32 rkey;
		int want;
	} tbl[] = {
		{ "type 2 bound, its QP", 2, XIB_MW_VALID, false, false, KEY(7), 0 },
		{ "type 1: o10-37.2.26", 1, XIB_MW_VALID, false, false, KEY(7), -EINVAL },
		{ "type 2 free", 2, XIB_MW_FREE, false, false, KEY(7), -EINVAL },
		{ "deallocated", 2, XIB_MW_INVALID, false, false, KEY(7), -EINVAL },
		{ "wrong key byte", 2, XIB_MW_VALID, false, false, KEY(8), -EINVAL },
		{ "another PD", 2, XIB_MW_VALID, true, false, KEY(7), -EACCES },
		{ "another QP", 2, XIB_MW_VALID, false, true, KEY(7), -EACCES },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tbl); i++) {
		struct xib_mw mw;

		xib_mw_test_mw(&mw, tbl[i].type, tbl[i].state);
		mw.qp = &qp_a;
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_mw_inv_check(&mw, tbl[i].other_pd ?
						     &pd_b : &pd_a, tbl[i].other_qp ?
						     &qp_b : &qp_a, tbl[i].rkey),
				    tbl[i].want, "%s", tbl[i].what);
	}
}

/* The key ranges: an rkey's index says MR or window. */
static void xib_mw_test_keys(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, xib_key_is_mw(0x00000100));
	KUNIT_EXPECT_FALSE(test, xib_key_is_mw(XIB_MR_INDEX_MAX << 8 | 0xff));
	KUNIT_EXPECT_TRUE(test, xib_key_is_mw(XIB_MW_INDEX_MIN << 8));
	KUNIT_EXPECT_TRUE(test, xib_key_is_mw(0xffffffff));
	KUNIT_EXPECT_EQ(test, XIB_MR_INDEX_MAX + 1, XIB_MW_INDEX_MIN);
}

static struct kunit_case xib_mw_test_cases[] = {
	KUNIT_CASE(xib_mw_test_bind),
	KUNIT_CASE(xib_mw_test_access),
	KUNIT_CASE(xib_mw_test_zero_based),
	KUNIT_CASE(xib_mw_test_inv),
	KUNIT_CASE(xib_mw_test_keys),
	{}
};

static struct kunit_suite xib_mw_test_suite = {
	.name = "xib_mw",
	.test_cases = xib_mw_test_cases,
};

kunit_test_suite(xib_mw_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of xib memory window rules");
