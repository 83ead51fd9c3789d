// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of xib_hca's responder atomics: the checks an atomic
 * request must pass (hca_atomic.c: access, alignment, R_Key, PD,
 * bounds), the read-modify-write of pinned memory, and the replay cache
 * (hca_retx.c): a duplicate atomic is answered with the original data
 * kept in its responder resource and never executed again; the newest
 * max_dest_rd_atomic resources are kept, the oldest go first.
 *
 * The expected NAK codes are the IBTA's (vol. 1 9.7.5.2.x and the
 * responder error table): an atomic on a QP without remote atomic access
 * or at a VA not aligned to 8 bytes is an invalid request; an R_Key
 * violation (no such MR, another PD, no REMOTE_ATOMIC access, outside the
 * MR) is a remote access error.
 *
 * The module includes the sources under test, as xib_hca_retx_test does;
 * the memory is two kernel pages dressed as a struct xib_umem.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/highmem.h>

#include "../../drivers/hca/hca_atomic.c"
#include "../../drivers/hca/hca_retx.c"

/* A umem over two fresh pages, @addr its user address (any offset). */
struct xib_atomic_mem {
	struct xib_umem umem;
	struct page *pages[2];
};

/* The pages are a test-managed resource: freed when the case ends. */
static int xib_atomic_pages_init(struct kunit_resource *res, void *context)
{
	struct page **pages = context;

	pages[0] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	pages[1] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!pages[0] || !pages[1]) {
		if (pages[0])
			__free_page(pages[0]);
		if (pages[1])
			__free_page(pages[1]);
		return -ENOMEM;
	}
	res->data = pages;
	return 0;
}

static void xib_atomic_pages_free(struct kunit_resource *res)
{
	struct page **pages = res->data;

	__free_page(pages[0]);
	__free_page(pages[1]);
}

static struct xib_atomic_mem *xib_atomic_mem(struct kunit *test, u64 addr)
{
	struct xib_atomic_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test,
							 xib_atomic_pages_init,
							 xib_atomic_pages_free,
							 GFP_KERNEL, m->pages));
	m->umem.address = addr;
	m->umem.length = 2 * PAGE_SIZE - offset_in_page(addr);
	m->umem.npages = 2;
	m->umem.pages = m->pages;
	m->umem.writable = true;
	return m;
}

/* The 64-bit word at byte @pos of the two pages. */
static u64 *xib_atomic_word(struct xib_atomic_mem *m, u64 pos)
{
	return (u64 *)((u8 *)page_address(m->pages[pos >> PAGE_SHIFT]) +
		       offset_in_page(pos));
}

static void xib_atomic_test_check(struct kunit *test)
{
	struct xib_pd pd = { .pdn = 1 }, other = { .pdn = 2 };
	struct xib_umem umem = {};
	struct xib_mr mr = {
		.pd = &pd,
		.iova = 0x10000,
		.length = 4096,
		.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_ATOMIC,
		.lkey = 0x1234,
		.rkey = 0x1234,
		.umem = &umem,
	};
	u32 qacc = XIB_ACCESS_REMOTE_ATOMIC | XIB_ACCESS_REMOTE_READ;

	/* in bounds, aligned, allowed: first and last word */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10000,
						   0x1234), 0);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10ff8,
						   0x1234), 0);
	/* the QP does not allow remote atomics: invalid request */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(XIB_ACCESS_REMOTE_READ |
						   XIB_ACCESS_REMOTE_WRITE,
						   &pd, &mr, 0x10000, 0x1234),
			XIB_AETH_NAK_INVALID);
	/* not 8-byte aligned: invalid request, whatever the MR */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10004,
						   0x1234),
			XIB_AETH_NAK_INVALID);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10001,
						   0x1234),
			XIB_AETH_NAK_INVALID);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, NULL, 0x10002,
						   0x1234),
			XIB_AETH_NAK_INVALID);
	/* R_Key violations: remote access error */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, NULL, 0x10000,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10000,
						   0x1235),
			XIB_AETH_NAK_REM_ACCESS);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &other, &mr, 0x10000,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	/* out of the MR: before it, past it, straddling nothing, wrapping */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0xfff8,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x11000,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr,
						   0xfffffffffffffff8ULL,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	/* the MR is only remotely readable */
	mr.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10000,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	/* a kernel MR (no user memory) is no target */
	mr.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_ATOMIC;
	mr.umem = NULL;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10000,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
	/* an MR whose length ends mid-word: its last bytes are no target */
	mr.umem = &umem;
	mr.length = 4092;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_check(qacc, &pd, &mr, 0x10ff8,
						   0x1234),
			XIB_AETH_NAK_REM_ACCESS);
}

static void xib_atomic_test_exec(struct kunit *test)
{
	struct xib_atomic_mem *m = xib_atomic_mem(test, 0x7f0000001100ULL);
	u64 orig = 0;

	/* FETCH_ADD at offset 0 (byte 0x100 of the first page) */
	*xib_atomic_word(m, 0x100) = 5;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, false, 3, 0,
						  &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 5ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0x100), 8ULL);
	/* it wraps modulo 2^64 */
	*xib_atomic_word(m, 0x108) = ~0ULL;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 8, false, 2, 0,
						  &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, ~0ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0x108), 1ULL);
	/* CMP_SWAP: no match leaves it, a match swaps */
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, true, 77, 9,
						  &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 8ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0x100), 8ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, true, 77, 8,
						  &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 8ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0x100), 77ULL);
	/* the last word of the first page, the first of the second */
	*xib_atomic_word(m, PAGE_SIZE - 8) = 100;
	*xib_atomic_word(m, PAGE_SIZE) = 200;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem,
						  PAGE_SIZE - 8 - 0x100, false,
						  1, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 100ULL);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, PAGE_SIZE - 0x100,
						  false, 1, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 200ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, PAGE_SIZE - 8), 101ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, PAGE_SIZE), 201ULL);
	/* its neighbours are untouched */
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, PAGE_SIZE - 16), 0ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, PAGE_SIZE + 8), 0ULL);

	/* outside the umem, or not writable: nothing done */
	orig = 12345;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, m->umem.length - 4,
						  false, 1, 0, &orig), -ERANGE);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, m->umem.length,
						  false, 1, 0, &orig), -ERANGE);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, U64_MAX - 3,
						  false, 1, 0, &orig), -ERANGE);
	m->umem.writable = false;
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, false, 1, 0,
						  &orig), -EACCES);
	KUNIT_EXPECT_EQ(test, orig, 12345ULL);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0x100), 77ULL);
}

/* An MR whose iova and address differ modulo 8: the word is unaligned. */
static void xib_atomic_test_exec_unaligned(struct kunit *test)
{
	struct xib_atomic_mem *m = xib_atomic_mem(test, 0x7f0000001004ULL);
	u64 orig = 1;

	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, false, 1, 0,
						  &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 4, false, 1, 0,
						  &orig), 0);
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 8), 1ULL);
}

/*
 * The responder's handling of one atomic request, as hca_resp.c does it
 * with these functions: an expected PSN takes a resource and executes, a
 * duplicate replays.  Returns whether an ATOMIC ACKNOWLEDGE is sent and
 * its original data in @orig.
 */
static bool xib_atomic_request(struct kunit *test, struct xib_hca_resp *r,
			       struct xib_atomic_mem *m, u32 max_res, u32 psn,
			       u64 add, u64 *orig)
{
	struct xib_hca_rd_res *res;

	switch (xib_hca_psn_classify(psn, r->epsn)) {
	case XIB_HCA_PSN_EXPECTED:
		res = xib_hca_res_new(r, max_res);
		if (!res)
			return false;
		KUNIT_EXPECT_EQ(test, xib_hca_atomic_exec(&m->umem, 0, false,
							  add, 0, &res->orig),
				0);
		res->psn = psn;
		res->npkts = 1;
		res->atomic = true;
		res->replay = false;
		res->sent = 1;		/* answered at once */
		r->rd_tail++;
		r->rd_head = r->rd_tail;
		r->epsn = xib_psn_add(r->epsn, 1);
		*orig = res->orig;
		return true;
	case XIB_HCA_PSN_DUPLICATE:
		if (!xib_hca_rd_replay(r, max_res, psn, true))
			return false;
		res = &r->rd[r->rd_head % XIB_HCA_MAX_RD_ATOM];
		KUNIT_EXPECT_EQ(test, res->psn, psn);
		KUNIT_EXPECT_TRUE(test, res->atomic);
		KUNIT_EXPECT_EQ(test, res->sent, 0U);	/* to send again */
		res->sent = 1;			/* the worker sent it */
		res->replay = false;
		r->rd_head = r->rd_tail;
		*orig = res->orig;
		return true;
	default:
		return false;
	}
}

static void xib_atomic_test_replay(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct xib_atomic_mem *m = xib_atomic_mem(test, 0x7f0000000000ULL);
	u64 *word = xib_atomic_word(m, 0);
	u64 orig;
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->epsn = 0xfffffe;	/* across the PSN wrap */
	*word = 1000;
	/* three FETCH_ADDs of 10: originals 1000, 1010, 1020 */
	for (psn = 0; psn < 3; psn++) {
		KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4,
							   xib_psn_add(0xfffffe, psn),
							   10, &orig));
		KUNIT_EXPECT_EQ(test, orig, 1000ULL + 10 * psn);
	}
	KUNIT_EXPECT_EQ(test, *word, 1030ULL);
	/* the second again (its ACKNOWLEDGE was lost): same answer, no add */
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 0xffffff, 10,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 1010ULL);
	KUNIT_EXPECT_EQ(test, *word, 1030ULL);
	/* the first and the third, several times */
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 0xfffffe, 10,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 1000ULL);
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 0, 10,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 1020ULL);
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 0, 10,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 1020ULL);
	KUNIT_EXPECT_EQ(test, *word, 1030ULL);
	/* a READ's duplicate never replays an atomic's resource */
	KUNIT_EXPECT_FALSE(test, xib_hca_rd_replay(r, 4, 0, false));
	/* the next new one executes */
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 1, 10,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 1030ULL);
	KUNIT_EXPECT_EQ(test, *word, 1040ULL);
}

static void xib_atomic_test_evict(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct xib_atomic_mem *m = xib_atomic_mem(test, 0x7f0000000000ULL);
	u64 orig;
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->epsn = 500;
	/* max_dest_rd_atomic 4: six atomics, originals 0..5 */
	for (psn = 500; psn < 506; psn++)
		KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, psn,
							   1, &orig));
	/* the oldest two are gone: their duplicates are dropped */
	KUNIT_EXPECT_FALSE(test, xib_atomic_request(test, r, m, 4, 500, 1,
						    &orig));
	KUNIT_EXPECT_FALSE(test, xib_atomic_request(test, r, m, 4, 501, 1,
						    &orig));
	/* the newest four are held, oldest first out */
	for (psn = 502; psn < 506; psn++) {
		KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, psn,
							   1, &orig));
		KUNIT_EXPECT_EQ(test, orig, (u64)psn - 500);
	}
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 506, 1,
						   &orig));
	KUNIT_EXPECT_FALSE(test, xib_atomic_request(test, r, m, 4, 502, 1,
						    &orig));
	KUNIT_EXPECT_TRUE(test, xib_atomic_request(test, r, m, 4, 503, 1,
						   &orig));
	KUNIT_EXPECT_EQ(test, orig, 3ULL);
	/* nothing ran twice: 7 executions */
	KUNIT_EXPECT_EQ(test, *xib_atomic_word(m, 0), 7ULL);
}

/* Take resource for a new atomic at @psn, answered or not. */
static void xib_atomic_take(struct kunit *test, struct xib_hca_resp *r,
			    u32 max_res, u32 psn, bool answered)
{
	struct xib_hca_rd_res *res = xib_hca_res_new(r, max_res);

	KUNIT_ASSERT_NOT_NULL_MSG(test, res, "new atomic at PSN %u", psn);
	memset(res, 0, sizeof(*res));
	res->psn = psn;
	res->npkts = 1;
	res->atomic = true;
	res->orig = psn;
	res->sent = answered;
	r->rd_tail++;
	if (answered && r->rd_head + 1 == r->rd_tail)
		r->rd_head = r->rd_tail;
}

/*
 * A spurious timeout: the requester sends its 16 outstanding atomics
 * again although their first answers are on their way.  The duplicates
 * are answered again from the cache; when those first answers arrive the
 * requester sends 16 new atomics, and every one of them is accepted: a
 * resource being answered again gives way to a new request (while there
 * is room it stays, and is answered again).
 */
static void xib_atomic_test_spurious(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 16; i++)
		xib_atomic_take(test, r, 16, 700 + i, true);
	KUNIT_EXPECT_EQ(test, r->rd_head, 16U);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 700 + i, true));
	KUNIT_EXPECT_EQ(test, r->rd_head, 0U);
	for (i = 0; i < 16; i++) {
		KUNIT_EXPECT_TRUE(test, r->rd[i].replay);
		KUNIT_EXPECT_EQ(test, r->rd[i].sent, 0U);
		KUNIT_EXPECT_EQ(test, r->rd[i].orig, 700ULL + i);
	}
	/* 16 new ones, none answered yet: each takes a replay's place */
	for (i = 0; i < 16; i++) {
		xib_atomic_take(test, r, 16, 716 + i, false);
		KUNIT_EXPECT_EQ(test, r->rd_head, i + 1);
	}
	KUNIT_EXPECT_NULL(test, xib_hca_res_new(r, 16));

	/* with room, a replay stays to be answered */
	memset(r, 0, sizeof(*r));
	for (i = 0; i < 4; i++)
		xib_atomic_take(test, r, 16, 900 + i, true);
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 900, true));
	KUNIT_EXPECT_TRUE(test, xib_hca_rd_replay(r, 16, 901, true));
	KUNIT_EXPECT_EQ(test, r->rd_head, 0U);
	xib_atomic_take(test, r, 16, 904, false);
	KUNIT_EXPECT_EQ(test, r->rd_head, 0U);
	KUNIT_EXPECT_TRUE(test, r->rd[0].replay);
	KUNIT_EXPECT_TRUE(test, r->rd[1].replay);
	/* resources 2 and 3, answered and not asked again, are not */
	KUNIT_EXPECT_FALSE(test, r->rd[2].replay);
	KUNIT_EXPECT_EQ(test, r->rd[2].sent, 1U);
}

/* Resources still to answer bound the new ones: max_dest_rd_atomic. */
static void xib_atomic_test_res_full(struct kunit *test)
{
	struct xib_hca_resp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct xib_hca_rd_res *res;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 2; i++) {
		res = xib_hca_res_new(r, 2);
		KUNIT_ASSERT_NOT_NULL(test, res);
		res->psn = 10 + i;
		res->npkts = 1;
		res->atomic = true;
		res->sent = 0;		/* pending: behind a READ, say */
		r->rd_tail++;
	}
	KUNIT_EXPECT_NULL(test, xib_hca_res_new(r, 2));
	/* the first answered: room for one */
	r->rd[0].sent = 1;
	res = xib_hca_res_new(r, 2);
	KUNIT_EXPECT_PTR_EQ(test, res, &r->rd[2]);
	KUNIT_EXPECT_EQ(test, r->rd_head, 1U);
	/* never more than the ring, whatever the attribute says */
	r->rd_head = 0;
	r->rd_tail = XIB_HCA_MAX_RD_ATOM;
	for (i = 0; i < XIB_HCA_MAX_RD_ATOM; i++)
		r->rd[i].sent = 0;
	KUNIT_EXPECT_NULL(test, xib_hca_res_new(r, 255));
}

static struct kunit_case xib_atomic_cases[] = {
	KUNIT_CASE(xib_atomic_test_check),
	KUNIT_CASE(xib_atomic_test_exec),
	KUNIT_CASE(xib_atomic_test_exec_unaligned),
	KUNIT_CASE(xib_atomic_test_replay),
	KUNIT_CASE(xib_atomic_test_evict),
	KUNIT_CASE(xib_atomic_test_res_full),
	KUNIT_CASE(xib_atomic_test_spurious),
	{}
};

static struct kunit_suite xib_atomic_suite = {
	.name = "xib_hca_atomic",
	.test_cases = xib_atomic_cases,
};

kunit_test_suite(xib_atomic_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of xib_hca's responder atomics");
