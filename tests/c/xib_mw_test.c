// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_mw_test: memory windows (IBTA vol. 1 10.6.7), type 1 and type 2B,
 * as a remote peer sees them.
 *
 *   xib_mw_test [-d DEV] [-D DEV2]
 *
 * The requester's context is on DEV, the target's (its memory, MRs and
 * windows) on DEV2 (default DEV: loopback); RC QP pairs connect them,
 * a fresh pair after each check that moves a QP to ERR.  The target's
 * memory is registered with LOCAL_WRITE and MW_BIND only: no remote
 * right at all, so every remote access that succeeds went through a
 * window.  Checks, one TAP line each:
 *
 *   - the device reports max_mw, MEM_WINDOW and MEM_WINDOW_TYPE_2B;
 *     ALLOC_MW of a bad type or with a reserved field set is EINVAL;
 *   - type 1 (bound with the TYPE1 flag, as ibv_bind_mw does): WRITE and
 *     READ inside the window succeed with the new rkey and move the
 *     right bytes; one byte past it, the rkey from before the bind, a
 *     right the window lacks: REM_ACCESS_ERR and the requester's QP in
 *     ERR; a length 0 bind unbinds;
 *   - type 2 (BIND_MW): the same, bound to the QP it was bound on only;
 *   - binds refused with MW_BIND_ERR: an MR without MW_BIND, REMOTE_WRITE
 *     on an MR without LOCAL_WRITE, a range past the MR, a QP of another
 *     PD, a type 2 window with the TYPE1 flag and a type 1 without, a
 *     type 2 window already bound, another context's window or MR;
 *   - LOCAL_INV of a bound type 2 window: LOCAL_INV completion, then the
 *     rkey fails; of a type 1 window or an unknown rkey: LOC_PROT_ERR;
 *   - SEND_WITH_INV: the receiver's completion has WITH_INV and the rkey,
 *     the window is free (the rkey fails, a new bind works); with an
 *     rkey the receiver may not invalidate: REM_ACCESS_ERR and its receive
 *     flushed;
 *   - DEREG_MR of an MR with a bound window: EBUSY; DEALLOC_MW of a bound
 *     window works and its rkey fails; the MR then deregisters;
 *   - zero-based: a type 2 window bound with ZERO_BASED is addressed by
 *     offset (WRITE, READ, FETCH_ADD); past its length, or at its MR
 *     address: REM_ACCESS_ERR; a type 1 bind with ZERO_BASED: MW_BIND_ERR
 *     (IBTA o10-36.2.2); zero-based MRs (iova 0) addressed by offset in
 *     SGEs and RETHs; REG_MR with ZERO_BASED and another iova: EINVAL;
 *   - a context closed with bound windows (the kernel frees them).
 *
 * Exit status: the number of failed checks (0: all passed); a broken
 * setup prints "FAIL: ..." and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tap.h"
#include "xib_test.h"

#define MEM_SIZE	65536
#define QP_ACCESS	(XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ | \
			 XIB_ACCESS_REMOTE_ATOMIC)
#define RW		(XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ)

struct env {
	struct xt_side a, b;		/* requester, target */
	uint8_t *amem, *bmem;
	struct xib_mr *amr;		/* LOCAL_WRITE */
	struct xib_mr *bmr;		/* LOCAL_WRITE | MW_BIND */
	struct xib_mr *nobind_mr;	/* LOCAL_WRITE | REMOTE_READ */
	struct xib_mr *ro_mr;		/* MW_BIND only */
	struct xib_qp *qa, *qb;		/* the current pair */
};

static uint32_t next_key(uint32_t rkey)
{
	return (rkey & ~0xffu) | ((rkey + 1) & 0xffu);
}

static void drain(struct xt_side *s)
{
	xib_wc wc[16];

	while (xt_poll(s->scq, wc, 16, 20) > 0)
		;
	while (xt_poll(s->rcq, wc, 16, 20) > 0)
		;
}

static void pair_new(struct env *e)
{
	e->qa = xt_create_qp(&e->a, XIB_QPT_RC, 16, 1, 0, NULL);
	e->qb = xt_create_qp(&e->b, XIB_QPT_RC, 16, 1, 0, NULL);
	xt_rc_connect(e->qa, &e->a, e->qb->qpn, &e->b, QP_ACCESS);
	xt_rc_connect(e->qb, &e->b, e->qa->qpn, &e->a, QP_ACCESS);
}

static void pair_free(struct env *e)
{
	xt_check(xib_destroy_qp(e->qa), "destroy_qp");
	xt_check(xib_destroy_qp(e->qb), "destroy_qp");
	drain(&e->a);
	drain(&e->b);
}

/* After a check that moved a QP to ERR. */
static void pair_renew(struct env *e)
{
	pair_free(e);
	pair_new(e);
}

/* Post one signaled WR on @qp and return its completion's status. */
static uint32_t post_one(struct xib_qp *qp, struct xib_cq *cq, struct xib_send_wr *wr,
			 uint32_t want_opcode, const char *what)
{
	struct xib_send_wr *bad;
	xib_wc wc;

	wr->send_flags |= XIB_HCA_SEND_SIGNALED;
	xt_check(xib_post_send(qp, wr, &bad), what);
	xt_wait(cq, &wc, 1, what);
	if (wc.status == XIB_HCA_WC_SUCCESS && wc.opcode != want_opcode)
		xt_fail("%s: completion opcode %u, not %u", what, wc.opcode, want_opcode);
	return wc.status;
}

/* WRITE or READ @len bytes at SGE address @laddr of @lkey <-> @raddr with @rkey. */
static uint32_t rdma_sge(struct env *e, uint32_t opcode, uint64_t laddr, uint32_t lkey,
			 uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct xib_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct xib_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return post_one(e->qa, e->a.scq, &wr, opcode == XIB_HCA_WR_RDMA_READ ?
			XIB_HCA_WC_RDMA_READ : XIB_HCA_WC_RDMA_WRITE, "rdma");
}

/* WRITE or READ @len bytes at amem[@loff] <-> @raddr with @rkey. */
static uint32_t rdma(struct env *e, uint32_t opcode, uint64_t loff, uint32_t len,
		     uint64_t raddr, uint32_t rkey)
{
	return rdma_sge(e, opcode, (uintptr_t)e->amem + loff, e->amr->lkey, len, raddr, rkey);
}

/* FETCH_ADD of @add at @raddr with @rkey; the old value lands in amem[0, 8). */
static uint32_t fetch_add(struct env *e, uint64_t raddr, uint32_t rkey, uint64_t add)
{
	struct xib_sge sge = { (uintptr_t)e->amem, 8, e->amr->lkey };
	struct xib_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = XIB_HCA_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.compare_add = add;
	wr.wr.atomic.rkey = rkey;
	return post_one(e->qa, e->a.scq, &wr, XIB_HCA_WC_FETCH_ADD, "fetch_add");
}

/* A BIND_MW WR on @qp (the target's side @s); returns the status. */
static uint32_t bind(struct xib_qp *qp, struct xt_side *s, uint32_t mw_rkey,
		     uint32_t new_rkey, const struct xib_mr *mr, uint64_t addr,
		     uint64_t len, uint32_t access, int type1)
{
	struct xib_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_BIND_MW;
	wr.wr.bind.mw_rkey = mw_rkey;
	wr.wr.bind.new_rkey = new_rkey;
	wr.wr.bind.mr_lkey = mr ? mr->lkey : 0;
	wr.wr.bind.addr = addr;
	wr.wr.bind.length = len;
	wr.wr.bind.access = access;
	wr.wr.bind.flags = type1 ? XIB_HCA_BIND_TYPE1 : 0;
	return post_one(qp, s->scq, &wr, XIB_HCA_WC_BIND_MW, "bind");
}

static uint32_t local_inv(struct xib_qp *qp, struct xt_side *s, uint32_t rkey)
{
	struct xib_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_LOCAL_INV;
	wr.invalidate_rkey = rkey;
	return post_one(qp, s->scq, &wr, XIB_HCA_WC_LOCAL_INV, "local_inv");
}

/* Bind @mw (its rkey in *@rkey, updated) to bmem[@off, @off + @len). */
static uint32_t bind_mw(struct env *e, struct xib_mw *mw, uint32_t *rkey, uint64_t off,
			uint64_t len, uint32_t access)
{
	uint32_t nk = next_key(*rkey);
	uint32_t st = bind(e->qb, &e->b, *rkey, nk, e->bmr, (uintptr_t)e->bmem + off, len,
			   access, mw->type == XIB_MW_TYPE_1);

	if (st == XIB_HCA_WC_SUCCESS)
		*rkey = nk;
	return st;
}

/*
 * Is @qp in ERR?  The engine publishes its own move to ERR for QUERY_QP
 * a moment after the error completion (hca_engine.c): up to 2 s.
 */
static bool in_err(struct xib_qp *qp)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (xt_qp_state(qp) == XIB_QPS_ERR)
			return true;
		usleep(1000);
	}
	return false;
}

static bool qa_in_err(struct env *e)
{
	return in_err(e->qa);
}

/* A remote access through @rkey that must fail: REM_ACCESS_ERR, qa in ERR. */
static void expect_rem_access(struct env *e, uint32_t opcode, uint64_t raddr, uint32_t len,
			      uint32_t rkey, const char *what)
{
	uint32_t st = rdma(e, opcode, 0, len, raddr, rkey);
	bool err = qa_in_err(e);

	ok(st == XIB_HCA_WC_REM_ACCESS_ERR && err, "%s: %s, requester QP %s",
	   what, xt_status_str(st), err ? "in ERR" : "not in ERR");
	pair_renew(e);
}

static void check_device(struct env *e)
{
	struct xib_context *ctx = e->b.ctx;
	struct xib_uverbs_alloc_mw c;
	struct xib_mw *mw;

	ok(ctx->attr.max_mw > 0, "max_mw %u", ctx->attr.max_mw);
	ok((ctx->attr.device_cap_flags & XIB_DEVICE_MEM_WINDOW) &&
	   (ctx->attr.device_cap_flags & XIB_DEVICE_MEM_WINDOW_TYPE_2B) &&
	   !(ctx->attr.device_cap_flags & XIB_DEVICE_MEM_WINDOW_TYPE_2A),
	   "device_cap_flags 0x%x: MEM_WINDOW and TYPE_2B, not TYPE_2A",
	   ctx->attr.device_cap_flags);
	ok(xib_alloc_mw(e->b.pd, 3, &mw) == -EINVAL, "ALLOC_MW of type 3: EINVAL");
	ok(xib_alloc_mw(e->b.pd, 0, &mw) == -EINVAL, "ALLOC_MW of type 0: EINVAL");
	memset(&c, 0, sizeof(c));
	c.pd_handle = e->b.pd->handle;
	c.type = XIB_MW_TYPE_1;
	c.reserved = 1;
	ok(ioctl(ctx->fd, XIB_UVERBS_ALLOC_MW, &c) < 0 && errno == EINVAL,
	   "ALLOC_MW with a reserved field set: EINVAL");
	c.reserved = 0;
	c.rkey = 5;
	ok(ioctl(ctx->fd, XIB_UVERBS_ALLOC_MW, &c) < 0 && errno == EINVAL,
	   "ALLOC_MW with an out field set: EINVAL");
	c.rkey = 0;
	c.pd_handle = 0xfffffff0;
	ok(ioctl(ctx->fd, XIB_UVERBS_ALLOC_MW, &c) < 0 && errno == ENOENT,
	   "ALLOC_MW on an unknown PD: ENOENT");
	ok(xib_reg_mr_iova(e->b.pd, e->bmem, 4096, 0x1000,
			   XIB_ACCESS_MW_BIND | XIB_ACCESS_ZERO_BASED, &e->amr) == -EINVAL,
	   "REG_MR with ZERO_BASED and iova 0x1000: EINVAL");
}

static void check_type1(struct env *e)
{
	uint64_t base = (uintptr_t)e->bmem;
	uint32_t rkey, old, st;
	struct xib_mw *mw;

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_1, &mw), "alloc_mw type 1");
	rkey = mw->rkey;
	ok(rkey >> 8 >= 0x800000, "type 1 window rkey 0x%08x in the MW index range", rkey);
	/* unbound: nothing to access */
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 16, rkey,
			  "type 1: READ through an unbound window");

	old = rkey;
	st = bind_mw(e, mw, &rkey, 4096, 8192, RW);
	ok(st == XIB_HCA_WC_SUCCESS && rkey != old && (rkey >> 8) == (old >> 8),
	   "type 1: bind [4096, 12288) REMOTE_WRITE|READ: %s, rkey 0x%08x",
	   xt_status_str(st), rkey);
	xt_pattern(e->amem, 8192, 11);
	memset(e->bmem, 0, MEM_SIZE);
	st = rdma(e, XIB_HCA_WR_RDMA_WRITE, 0, 8192, base + 4096, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->bmem + 4096, e->amem, 8192) &&
	   !e->bmem[4095] && !e->bmem[12288],
	   "type 1: WRITE of the whole window: %s, the bytes in place", xt_status_str(st));
	memset(e->amem, 0, 8192);
	xt_pattern(e->bmem + 4096, 8192, 12);
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 100, base + 12288 - 100, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->amem, e->bmem + 12288 - 100, 100),
	   "type 1: READ of its last 100 bytes: %s", xt_status_str(st));

	expect_rem_access(e, XIB_HCA_WR_RDMA_WRITE, base + 12288 - 100, 101, rkey,
			  "type 1: WRITE one byte past the window");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 4095, 2, rkey,
			  "type 1: READ from one byte before the window");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 4096, 16, old,
			  "type 1: READ with the rkey from before the bind");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 4096, 16, e->bmr->rkey,
			  "type 1: READ with the MR's own rkey (no remote right)");

	/* bound again in place, read only */
	st = bind_mw(e, mw, &rkey, 0, 4096, XIB_ACCESS_REMOTE_READ);
	ok(st == XIB_HCA_WC_SUCCESS, "type 1: bound again, [0, 4096) REMOTE_READ: %s",
	   xt_status_str(st));
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 4096, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "type 1: READ through the read-only window: %s",
	   xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_WRITE, base, 16, rkey,
			  "type 1: WRITE through the read-only window");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 4096, 16, next_key(old),
			  "type 1: READ with the first bind's rkey, now stale");

	/* length 0: unbound */
	st = bind(e->qb, &e->b, rkey, next_key(rkey), NULL, 0, 0, 0, 1);
	ok(st == XIB_HCA_WC_SUCCESS, "type 1: bind of length 0 (unbind): %s",
	   xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 16, next_key(rkey),
			  "type 1: READ through the unbound window");

	ok(local_inv(e->qb, &e->b, next_key(rkey)) == XIB_HCA_WC_LOC_PROT_ERR,
	   "type 1: LOCAL_INV of a type 1 window: LOC_PROT_ERR");
	pair_renew(e);
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");
}

static void check_type2(struct env *e)
{
	uint64_t base = (uintptr_t)e->bmem;
	struct xib_qp *qa = e->qa, *qb = e->qb;
	uint32_t rkey, st;
	struct xib_mw *mw;

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 0, 32768, RW);
	ok(st == XIB_HCA_WC_SUCCESS, "type 2: BIND_MW [0, 32768) to the pair's QP: %s",
	   xt_status_str(st));
	xt_pattern(e->amem, 32768, 21);
	st = rdma(e, XIB_HCA_WR_RDMA_WRITE, 0, 32768, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->bmem, e->amem, 32768),
	   "type 2: WRITE of the window (several packets): %s", xt_status_str(st));
	memset(e->amem, 0, 32768);
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 32768, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->bmem, e->amem, 32768),
	   "type 2: READ of the window: %s", xt_status_str(st));

	/* a second pair on the same PDs: the window is the first QP's only */
	pair_new(e);
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 16, rkey,
			  "type 2: READ through a window bound to another QP");
	pair_free(e);
	e->qa = qa;
	e->qb = qb;
	expect_rem_access(e, XIB_HCA_WR_RDMA_WRITE, base + 32767, 2, rkey,
			  "type 2: WRITE one byte past the window");

	/* bound (VALID): no second bind before an invalidation */
	st = bind(e->qb, &e->b, rkey, next_key(rkey), e->bmr, base, 16, RW, 0);
	ok(st == XIB_HCA_WC_MW_BIND_ERR, "type 2: BIND_MW of a bound window: %s",
	   xt_status_str(st));
	pair_renew(e);
	/* the window stays bound to the destroyed pair's QP */
	st = local_inv(e->qb, &e->b, rkey);
	ok(st == XIB_HCA_WC_LOC_PROT_ERR,
	   "type 2: LOCAL_INV from a QP the window is not bound to: %s", xt_status_str(st));
	pair_renew(e);
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");

	/* access flags */
	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 0, 4096, XIB_ACCESS_REMOTE_READ);
	ok(st == XIB_HCA_WC_SUCCESS, "type 2: BIND_MW read only: %s", xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_WRITE, base, 16, rkey,
			  "type 2: WRITE through a read-only window");
	st = bind_mw(e, mw, &rkey, 0, 4096, XIB_ACCESS_REMOTE_READ);
	ok(st == XIB_HCA_WC_MW_BIND_ERR, "type 2: still bound to the old QP: %s",
	   xt_status_str(st));
	pair_renew(e);
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 0, 4096, XIB_ACCESS_REMOTE_READ);
	st = st ? st : rdma(e, XIB_HCA_WR_RDMA_READ, 0, 64, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "type 2: bound, READ works: %s", xt_status_str(st));
	st = local_inv(e->qb, &e->b, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "type 2: LOCAL_INV: %s, LOCAL_INV completion",
	   xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 64, rkey,
			  "type 2: READ after LOCAL_INV");
	st = bind_mw(e, mw, &rkey, 0, 4096, XIB_ACCESS_REMOTE_READ);
	st = st ? st : rdma(e, XIB_HCA_WR_RDMA_READ, 0, 64, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "type 2: bound again after LOCAL_INV, READ works: %s",
	   xt_status_str(st));
	ok(local_inv(e->qb, &e->b, rkey ^ 0x55) == XIB_HCA_WC_LOC_PROT_ERR,
	   "type 2: LOCAL_INV with a wrong key byte: LOC_PROT_ERR");
	pair_renew(e);
	ok(local_inv(e->qb, &e->b, 0x12345678) == XIB_HCA_WC_LOC_PROT_ERR,
	   "LOCAL_INV of an rkey that names nothing: LOC_PROT_ERR");
	pair_renew(e);
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");
}

static void check_bind_errors(struct env *e)
{
	uint64_t base = (uintptr_t)e->bmem;
	struct xib_mw *mw1, *mw2;
	struct xt_side other;
	struct xib_qp *q;
	uint32_t st;

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_1, &mw1), "alloc_mw type 1");
	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw2), "alloc_mw type 2");
#define BIND_ERR(mw, mr, addr, len, acc, t1, what) do {				\
		st = bind(e->qb, &e->b, (mw)->rkey, next_key((mw)->rkey), (mr),	\
			  (addr), (len), (acc), (t1));				\
		ok(st == XIB_HCA_WC_MW_BIND_ERR && in_err(e->qb),		\
		   "bind refused, %s: %s", (what), xt_status_str(st));		\
		pair_renew(e);							\
	} while (0)
	BIND_ERR(mw2, e->nobind_mr, base, 64, XIB_ACCESS_REMOTE_READ, 0,
		 "MR without MW_BIND");
	BIND_ERR(mw1, e->nobind_mr, base, 64, XIB_ACCESS_REMOTE_READ, 1,
		 "MR without MW_BIND (type 1)");
	BIND_ERR(mw2, e->ro_mr, base, 64, XIB_ACCESS_REMOTE_WRITE, 0,
		 "REMOTE_WRITE on an MR without LOCAL_WRITE");
	BIND_ERR(mw2, e->bmr, base + MEM_SIZE - 64, 65, XIB_ACCESS_REMOTE_READ, 0,
		 "range one byte past the MR");
	BIND_ERR(mw2, e->bmr, base - 1, 64, XIB_ACCESS_REMOTE_READ, 0,
		 "range from one byte before the MR");
	BIND_ERR(mw2, e->bmr, base, 0, 0, 0, "type 2 with length 0");
	BIND_ERR(mw2, e->bmr, base, 64, XIB_ACCESS_REMOTE_READ, 1,
		 "type 2 window with the TYPE1 flag (as by ibv_bind_mw)");
	BIND_ERR(mw1, e->bmr, base, 64, XIB_ACCESS_REMOTE_READ, 0,
		 "type 1 window by a BIND_MW WQE");
	BIND_ERR(mw2, e->bmr, base, 64, XIB_ACCESS_LOCAL_WRITE, 0,
		 "access bit LOCAL_WRITE");
	BIND_ERR(mw1, e->bmr, base, 64, XIB_ACCESS_ZERO_BASED | XIB_ACCESS_REMOTE_READ, 1,
		 "type 1 window ZERO_BASED (IBTA o10-36.2.2)");
	BIND_ERR(mw1, NULL, 0, 0, XIB_ACCESS_ZERO_BASED, 1,
		 "type 1 unbind with ZERO_BASED");
	ok(bind(e->qb, &e->b, mw2->rkey, next_key(mw2->rkey) ^ 0x100, e->bmr, base, 64,
		XIB_ACCESS_REMOTE_READ, 0) == XIB_HCA_WC_MW_BIND_ERR,
	   "bind refused, a new rkey of another index");
	pair_renew(e);

	/* a QP of another PD (same context) */
	xt_side_open(&other, e->b.ctx, -1, 16);
	q = xt_create_qp(&other, XIB_QPT_RC, 4, 1, 0, NULL);
	xt_rc_connect(q, &other, e->qa->qpn, &e->a, QP_ACCESS);
	st = bind(q, &other, mw2->rkey, next_key(mw2->rkey), e->bmr, base, 64,
		  XIB_ACCESS_REMOTE_READ, 0);
	ok(st == XIB_HCA_WC_MW_BIND_ERR, "bind refused, QP of another PD: %s",
	   xt_status_str(st));
	xt_check(xib_destroy_qp(q), "destroy_qp");
	drain(&other);
	xt_side_close(&other);

	/* libxib refuses data on a local operation */
	{
		struct xib_sge sge = { (uintptr_t)e->bmem, 8, e->bmr->lkey };
		struct xib_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.opcode = XIB_HCA_WR_LOCAL_INV;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ok(xib_post_send(e->qb, &wr, &bad) == EINVAL,
		   "libxib: LOCAL_INV with an SGE refused");
	}
	xt_check(xib_dealloc_mw(mw1), "dealloc_mw");
	xt_check(xib_dealloc_mw(mw2), "dealloc_mw");
}

/* SEND of @len bytes with invalidate @rkey; the receiver posts a buffer. */
static void check_send_inv(struct env *e)
{
	uint64_t base = (uintptr_t)e->bmem;
	struct xib_sge ssge, rsge;
	struct xib_send_wr wr;
	struct xib_recv_wr rwr, *rbad;
	uint32_t rkey, st;
	struct xib_mw *mw;
	xib_wc wc;

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 8192, 4096, RW);
	ok(st == XIB_HCA_WC_SUCCESS, "SEND_WITH_INV: window bound: %s", xt_status_str(st));

	rsge = (struct xib_sge){ base + 32768, 8192, e->bmr->lkey };
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 77;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	xt_check(xib_post_recv(e->qb, &rwr, &rbad), "post_recv");
	xt_pattern(e->amem, 3000, 31);
	ssge = (struct xib_sge){ (uintptr_t)e->amem, 3000, e->amr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_SEND_WITH_INV;
	wr.sg_list = &ssge;
	wr.num_sge = 1;
	wr.invalidate_rkey = rkey;
	st = post_one(e->qa, e->a.scq, &wr, XIB_HCA_WC_SEND, "send_with_inv");
	ok(st == XIB_HCA_WC_SUCCESS, "SEND_WITH_INV of 3000 bytes: %s",
	   xt_status_str(st));
	xt_wait(e->b.rcq, &wc, 1, "receive");
	ok(wc.status == XIB_HCA_WC_SUCCESS && wc.wr_id == 77 &&
	   wc.opcode == XIB_HCA_WC_RECV && wc.byte_len == 3000 &&
	   (wc.wc_flags & XIB_HCA_WC_WITH_INV) && !(wc.wc_flags & XIB_HCA_WC_WITH_IMM) &&
	   (uint32_t)wc.imm_data == rkey && !memcmp(e->bmem + 32768, e->amem, 3000),
	   "receiver: RECV %s, byte_len %u, wc_flags 0x%x, invalidated rkey 0x%08x (want 0x%08x)",
	   xt_status_str(wc.status), wc.byte_len, wc.wc_flags, (uint32_t)wc.imm_data, rkey);
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 8192, 16, rkey,
			  "READ after the remote invalidation");
	st = bind_mw(e, mw, &rkey, 8192, 4096, RW);
	st = st ? st : rdma(e, XIB_HCA_WR_RDMA_WRITE, 0, 4096, base + 8192, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "the invalidated window bound again, WRITE works: %s",
	   xt_status_str(st));

	/* an rkey the receiver may not invalidate: its MR's, a stale one */
	xt_check(xib_post_recv(e->qb, &rwr, &rbad), "post_recv");
	wr.invalidate_rkey = e->bmr->rkey;
	st = post_one(e->qa, e->a.scq, &wr, XIB_HCA_WC_SEND, "send_with_inv");
	ok(st == XIB_HCA_WC_REM_ACCESS_ERR && qa_in_err(e),
	   "SEND_WITH_INV of an MR's rkey: %s", xt_status_str(st));
	xt_wait(e->b.rcq, &wc, 1, "receive");
	ok(wc.status == XIB_HCA_WC_WR_FLUSH_ERR && in_err(e->qb),
	   "receiver: its receive %s, QP in ERR", xt_status_str(wc.status));
	pair_renew(e);
	xt_check(xib_post_recv(e->qb, &rwr, &rbad), "post_recv");
	wr.invalidate_rkey = rkey;	/* bound to the old pair's QP */
	st = post_one(e->qa, e->a.scq, &wr, XIB_HCA_WC_SEND, "send_with_inv");
	ok(st == XIB_HCA_WC_REM_ACCESS_ERR,
	   "SEND_WITH_INV of a window bound to another QP: %s", xt_status_str(st));
	pair_renew(e);
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");
}

/*
 * Zero-based (ibv_bind_mw(3), ibv_reg_mr(3)): the remote address through
 * a zero-based type 2 window is the offset from the window's start; a
 * zero-based MR (iova 0) is addressed by offset, remotely and in SGEs.
 */
static void check_zero_based(struct env *e)
{
	uint64_t base = (uintptr_t)e->bmem;
	struct xib_mr *zb, *lzb;
	uint32_t rkey, st;
	struct xib_mw *mw;
	uint64_t old;

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 8192, 4096, RW | XIB_ACCESS_REMOTE_ATOMIC |
		     XIB_ACCESS_ZERO_BASED);
	ok(st == XIB_HCA_WC_SUCCESS, "zero-based type 2: BIND_MW of bmem[8192, 12288): %s",
	   xt_status_str(st));
	memset(e->bmem, 0, MEM_SIZE);
	xt_pattern(e->amem, 4096, 41);
	st = rdma(e, XIB_HCA_WR_RDMA_WRITE, 0, 100, 100, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->bmem + 8192 + 100, e->amem, 100) &&
	   !e->bmem[8192 + 99] && !e->bmem[8192 + 200] && !e->bmem[100],
	   "zero-based type 2: WRITE at offset 100 lands at window + 100: %s",
	   xt_status_str(st));
	xt_pattern(e->bmem + 8192, 4096, 42);
	memset(e->amem, 0, 4096);
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 4096, 0, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->amem, e->bmem + 8192, 4096),
	   "zero-based type 2: READ of offsets [0, 4096), the whole window: %s",
	   xt_status_str(st));
	memset(e->amem, 0, 4096);
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 16, 4080, rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->amem, e->bmem + 8192 + 4080, 16),
	   "zero-based type 2: READ of its last 16 bytes: %s", xt_status_str(st));
	memcpy(e->bmem + 8192 + 64, &(uint64_t){ 1000 }, 8);
	st = fetch_add(e, 64, rkey, 5);
	memcpy(&old, e->amem, 8);
	ok(st == XIB_HCA_WC_SUCCESS && old == 1000 &&
	   !memcmp(e->bmem + 8192 + 64, &(uint64_t){ 1005 }, 8),
	   "zero-based type 2: FETCH_ADD at offset 64: %s, old %llu",
	   xt_status_str(st), (unsigned long long)old);
	expect_rem_access(e, XIB_HCA_WR_RDMA_WRITE, 4000, 97, rkey,
			  "zero-based type 2: WRITE one byte past the window's length");
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");

	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw), "alloc_mw type 2");
	rkey = mw->rkey;
	st = bind_mw(e, mw, &rkey, 8192, 4096, RW | XIB_ACCESS_ZERO_BASED);
	ok(st == XIB_HCA_WC_SUCCESS, "zero-based type 2: bound again: %s", xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base + 8192, 16, rkey,
			  "zero-based type 2: READ at the window's address (no offset)");
	xt_check(xib_dealloc_mw(mw), "dealloc_mw");

	/* zero-based MRs: iova 0 on both sides */
	xt_check(xib_reg_mr(e->b.pd, e->bmem, MEM_SIZE, XIB_ACCESS_LOCAL_WRITE | RW |
			    XIB_ACCESS_ZERO_BASED, &zb), "reg_mr ZERO_BASED");
	xt_check(xib_reg_mr(e->a.pd, e->amem, MEM_SIZE, XIB_ACCESS_LOCAL_WRITE |
			    XIB_ACCESS_ZERO_BASED, &lzb), "reg_mr ZERO_BASED");
	memset(e->bmem, 0, MEM_SIZE);
	xt_pattern(e->amem + 512, 3000, 43);
	st = rdma_sge(e, XIB_HCA_WR_RDMA_WRITE, 512, lzb->lkey, 3000, 20000, zb->rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->bmem + 20000, e->amem + 512, 3000) &&
	   !e->bmem[19999] && !e->bmem[23000],
	   "zero-based MRs: WRITE from SGE offset 512 to remote offset 20000: %s",
	   xt_status_str(st));
	memset(e->amem, 0, 4096);
	st = rdma_sge(e, XIB_HCA_WR_RDMA_READ, 0, lzb->lkey, 3000, 20000, zb->rkey);
	ok(st == XIB_HCA_WC_SUCCESS && !memcmp(e->amem, e->bmem + 20000, 3000),
	   "zero-based MRs: READ of remote offset 20000 to SGE offset 0: %s",
	   xt_status_str(st));
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, MEM_SIZE - 8, 16, zb->rkey,
			  "zero-based MR: READ past its length");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 16, zb->rkey,
			  "zero-based MR: READ at its process address");
	xt_check(xib_dereg_mr(lzb), "dereg_mr");
	xt_check(xib_dereg_mr(zb), "dereg_mr");
}

static void check_lifetime(struct env *e, const char *dev_b)
{
	uint64_t base = (uintptr_t)e->bmem;
	struct xib_mr *mr;
	struct xib_context *c2;
	struct xt_side s2;
	uint32_t rkey, st;
	struct xib_mw *mw, *mw2, *omw;
	uint8_t *m2;

	xt_check(xib_reg_mr(e->b.pd, e->bmem, MEM_SIZE,
			    XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_MW_BIND, &mr), "reg_mr");
	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_1, &mw), "alloc_mw");
	xt_check(xib_alloc_mw(e->b.pd, XIB_MW_TYPE_2, &mw2), "alloc_mw");
	rkey = mw->rkey;
	st = bind(e->qb, &e->b, rkey, next_key(rkey), mr, base, 4096, RW, 1);
	rkey = next_key(rkey);
	st = st ? st : rdma(e, XIB_HCA_WR_RDMA_READ, 0, 64, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "window bound to a second MR, READ works: %s",
	   xt_status_str(st));
	ok(xib_dereg_mr(mr) == -EBUSY, "DEREG_MR with a bound window: EBUSY");
	ok(xib_rereg_mr(mr, XIB_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0,
			XIB_ACCESS_LOCAL_WRITE) == -EBUSY,
	   "REREG_MR with a bound window: EBUSY");
	st = rdma(e, XIB_HCA_WR_RDMA_READ, 0, 64, base, rkey);
	ok(st == XIB_HCA_WC_SUCCESS, "the refused DEREG_MR changed nothing: READ %s",
	   xt_status_str(st));
	ok(xib_dealloc_mw(mw) == 0, "DEALLOC_MW of a bound window");
	expect_rem_access(e, XIB_HCA_WR_RDMA_READ, base, 64, rkey,
			  "READ through a deallocated window");
	ok(xib_dereg_mr(mr) == 0, "DEREG_MR once the window is gone");

	/* another context on the target's device: its window and MR */
	xt_check(xib_open(dev_b, &c2), dev_b);
	xt_side_open(&s2, c2, -1, 16);
	if (posix_memalign((void **)&m2, 4096, 4096))
		xt_fail("posix_memalign");
	xt_check(xib_reg_mr(s2.pd, m2, 4096, XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_MW_BIND,
			    &mr), "reg_mr");
	xt_check(xib_alloc_mw(s2.pd, XIB_MW_TYPE_2, &omw), "alloc_mw");
	st = bind(e->qb, &e->b, omw->rkey, next_key(omw->rkey), e->bmr, base, 64,
		  XIB_ACCESS_REMOTE_READ, 0);
	ok(st == XIB_HCA_WC_MW_BIND_ERR, "bind of another context's window: %s",
	   xt_status_str(st));
	pair_renew(e);
	rkey = mw2->rkey;
	st = bind(e->qb, &e->b, rkey, next_key(rkey), mr, (uintptr_t)m2, 64,
		  XIB_ACCESS_REMOTE_READ, 0);
	ok(st == XIB_HCA_WC_MW_BIND_ERR, "bind to another context's MR: %s",
	   xt_status_str(st));
	pair_renew(e);
	/* the other context's window bound by its own QP, used through ours */
	{
		struct xib_qp *q = xt_create_qp(&s2, XIB_QPT_RC, 4, 1, 0, NULL);

		xt_rc_connect(q, &s2, e->qa->qpn, &e->a, QP_ACCESS);
		rkey = omw->rkey;
		st = bind(q, &s2, rkey, next_key(rkey), mr, (uintptr_t)m2, 4096, RW, 0);
		ok(st == XIB_HCA_WC_SUCCESS, "the other context binds its window: %s",
		   xt_status_str(st));
		expect_rem_access(e, XIB_HCA_WR_RDMA_READ, (uintptr_t)m2, 64, next_key(rkey),
				  "READ of another context's window through our QP");
		st = local_inv(e->qb, &e->b, next_key(rkey));
		ok(st == XIB_HCA_WC_LOC_PROT_ERR, "LOCAL_INV of another context's window: %s",
		   xt_status_str(st));
		pair_renew(e);
		/* closed with the window bound and the QP up: the kernel cleans */
		ok(xib_close(c2) == 0, "a context closed with a bound window");
	}
	free(m2);
	xt_check(xib_dealloc_mw(mw2), "dealloc_mw");
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_mw_test [-d DEV] [-D DEV2]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL;
	struct xib_context *ca, *cb;
	struct env e;
	int c;

	xt_prog = "xib_mw_test";
	while ((c = getopt(argc, argv, "d:D:")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (!dev_b)
		dev_b = dev_a;
	xt_check(xib_open(dev_a, &ca), dev_a);
	cb = ca;
	if (strcmp(dev_a, dev_b))
		xt_check(xib_open(dev_b, &cb), dev_b);

	memset(&e, 0, sizeof(e));
	xt_side_open(&e.a, ca, -1, 64);
	xt_side_open(&e.b, cb, -1, 64);
	if (posix_memalign((void **)&e.amem, 4096, MEM_SIZE) ||
	    posix_memalign((void **)&e.bmem, 4096, MEM_SIZE))
		xt_fail("posix_memalign");
	memset(e.amem, 0, MEM_SIZE);
	memset(e.bmem, 0, MEM_SIZE);
	check_device(&e);
	xt_check(xib_reg_mr(e.a.pd, e.amem, MEM_SIZE, XIB_ACCESS_LOCAL_WRITE, &e.amr),
		 "reg_mr");
	xt_check(xib_reg_mr(e.b.pd, e.bmem, MEM_SIZE,
			    XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_MW_BIND, &e.bmr), "reg_mr");
	xt_check(xib_reg_mr(e.b.pd, e.bmem, MEM_SIZE,
			    XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_READ, &e.nobind_mr),
		 "reg_mr");
	xt_check(xib_reg_mr(e.b.pd, e.bmem, MEM_SIZE, XIB_ACCESS_MW_BIND, &e.ro_mr),
		 "reg_mr");
	pair_new(&e);

	check_type1(&e);
	check_type2(&e);
	check_bind_errors(&e);
	check_send_inv(&e);
	check_zero_based(&e);
	check_lifetime(&e, dev_b);

	pair_free(&e);
	xt_check(xib_dereg_mr(e.ro_mr), "dereg_mr");
	xt_check(xib_dereg_mr(e.nobind_mr), "dereg_mr");
	xt_check(xib_dereg_mr(e.bmr), "dereg_mr");
	xt_check(xib_dereg_mr(e.amr), "dereg_mr");
	xt_side_close(&e.a);
	xt_side_close(&e.b);
	if (cb != ca)
		xt_check(xib_close(cb), "close");
	xt_check(xib_close(ca), "close");
	free(e.amem);
	free(e.bmem);
	printf("1..%d\n", checks);
	if (!failures)
		xt_info("PASS");
	return failures;
}
