// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_bad_test: bad input gives the documented status or errno, never a
 * crash.  Each case runs in its own child process with its own context,
 * so a case that dies is reported and the others still run, and closing
 * the context after each case exercises the cleanup of whatever it left.
 *
 *   xib_bad_test [-d DEV] [CASE...]      (default: every case)
 *   xib_bad_test -l                      (list the cases)
 *
 * Documented behaviours asserted here:
 * - an inline send above the QP's max_inline_data: libxib refuses it in
 *   post_send with EINVAL; a WQE written by hand with an inline_len the
 *   slot cannot hold completes with an error status (or moves the QP to
 *   the error state), never SUCCESS;
 * - a producer index no consumer can be at (more than the ring's slots
 *   ahead, or behind): the HCA raises QP_FATAL for the QP and moves it to
 *   the error state; a broken send queue is not read again, so WRs posted
 *   to it later do not complete (a broken receive queue's QP still flushes
 *   its send queue);
 * - posting to a QP in RESET, INIT or RTR: libxib refuses sends with
 *   EINVAL (receives: RESET only); a producer index written by hand on a
 *   RESET QP is ignored by the HCA: no completion, the QP stays in RESET.
 *
 * Prints "ok - CASE" or "not ok - CASE: reason" per case; exit status 0
 * only if every case passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xib_test.h"

#define BUF	(1u << 20)
#define FULL_ACCESS	(XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE | \
			 XIB_ACCESS_REMOTE_READ)

static const char *dev = "/dev/xib/uverbs0";

/* A loopback RC pair on one context. */
struct bp {
	struct xib_context *ctx;
	struct xt_side a, b;
	struct xib_qp *qa, *qb;
	uint8_t *abuf, *bbuf;
	struct xib_mr *amr, *bmr;
};

static struct xib_context *open_ctx(void)
{
	struct xib_context *ctx;

	xt_check(xib_open(dev, &ctx), dev);
	return ctx;
}

static void *alloc_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		xt_fail("out of memory");
	memset(p, 0, len);
	return p;
}

/* @bmr_access: access of B's MR (the remote target). */
static void bp_open(struct bp *p, uint32_t bmr_access, bool connect)
{
	memset(p, 0, sizeof(*p));
	p->ctx = open_ctx();
	xt_side_open(&p->a, p->ctx, -1, 64);
	xt_side_open(&p->b, p->ctx, -1, 64);
	p->qa = xt_create_qp(&p->a, XIB_QPT_RC, 16, 2, 64, NULL);
	p->qb = xt_create_qp(&p->b, XIB_QPT_RC, 16, 2, 64, NULL);
	if (connect) {
		xt_rc_connect(p->qa, &p->a, p->qb->qpn, &p->b,
			      XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ);
		xt_rc_connect(p->qb, &p->b, p->qa->qpn, &p->a,
			      XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ);
	}
	p->abuf = alloc_buf(BUF);
	p->bbuf = alloc_buf(BUF);
	xt_check(xib_reg_mr(p->a.pd, p->abuf, BUF, FULL_ACCESS, &p->amr), "reg_mr A");
	xt_check(xib_reg_mr(p->b.pd, p->bbuf, BUF, bmr_access, &p->bmr), "reg_mr B");
}

static void post_one(struct xib_qp *qp, uint32_t opcode, uint64_t addr, uint32_t len,
		     uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct xib_sge sge = { addr, len, lkey };
	struct xib_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.opcode = opcode;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = xib_post_send(qp, &wr, &bad);
	if (ret)
		xt_fail("post_send: %s", strerror(ret));
}

static void post_recv_buf(struct xib_qp *qp, void *buf, uint32_t len, uint32_t lkey)
{
	struct xib_sge sge = { (uintptr_t)buf, len, lkey };
	struct xib_recv_wr wr = { .wr_id = 88, .sg_list = &sge, .num_sge = 1 }, *bad;

	xt_check(xib_post_recv(qp, &wr, &bad), "post_recv");
}

static void expect_status(struct xib_cq *cq, uint32_t status, const char *what)
{
	xib_wc wc;

	if (!xt_poll(cq, &wc, 1, 10000))
		xt_fail("%s: no completion within 10 s", what);
	if (wc.status != status)
		xt_fail("%s: status %s, expected %s", what, xt_status_str(wc.status),
			xt_status_str(status));
}

static void expect_state(struct xib_qp *qp, uint32_t state, const char *what)
{
	uint64_t deadline = xt_now_ns() + 3000000000ull;
	uint32_t s;

	do {
		s = xt_qp_state(qp);
		if (s == state)
			return;
		usleep(10000);
	} while (xt_now_ns() < deadline);
	xt_fail("%s: QP %u in state %u, expected %u", what, qp->qpn, s, state);
}

/*
 * The HCA moved @qp to the error state: a new WR posted to it is flushed
 * (WR_FLUSH_ERR).  (Whether QUERY_QP reports it is case query_after_error.)
 */
static void expect_error(struct xib_qp *qp, struct xib_cq *scq, const char *what)
{
	static uint8_t byte;
	struct xib_sge sge = { (uintptr_t)&byte, 0, 0 };
	struct xib_send_wr wr, *bad;
	xib_wc wc;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xf1;
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* the library's view of prod may be stale after a hostile write */
	qp->sq.prod = xib_load_acquire(&qp->sq.hdr->cons);
	ret = xib_post_send(qp, &wr, &bad);
	if (ret)
		xt_fail("%s: post_send: %s", what, strerror(ret));
	for (;;) {
		if (!xt_poll(scq, &wc, 1, 5000))
			xt_fail("%s: QP %u is not in the error state: a new WR did not "
				"complete within 5 s", what, qp->qpn);
		if (wc.wr_id == 0xf1)
			break;
	}
	if (wc.status != XIB_HCA_WC_WR_FLUSH_ERR)
		xt_fail("%s: QP %u is not in the error state: a new WR completed with %s",
			what, qp->qpn, xt_status_str(wc.status));
}

/* Wait up to 5 s for a QP_FATAL event about @qp (other events may come first). */
static void expect_fatal(struct xib_context *ctx, struct xib_qp *qp, const char *what)
{
	struct xib_uverbs_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	do {
		if (poll(&pfd, 1, 5000) != 1)
			xt_fail("%s: no QP_FATAL event for QP %u within 5 s", what, qp->qpn);
		xt_check(xib_read_async_event(ctx, &ev), "reading the async event");
	} while (ev.event_type != XIB_EVENT_QP_FATAL || ev.element != qp->user_handle);
}

/* Post a second WR after an error: it must be flushed. */
static void expect_flush(struct bp *p)
{
	post_one(p->qa, XIB_HCA_WR_SEND, (uintptr_t)p->abuf, 8, p->amr->lkey, 0, 0);
	expect_status(p->a.scq, XIB_HCA_WC_WR_FLUSH_ERR, "WR after the error");
}

/* --- completion status cases ------------------------------------------- */

static void case_bad_lkey(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 64, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, p.amr->lkey ^ 0x5a00, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "SEND with a bad lkey");
	expect_flush(&p);
}

static void case_query_after_error(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, p.amr->lkey ^ 0x5a00, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "SEND with a bad lkey");
	expect_state(p.qa, XIB_QPS_ERR, "QUERY_QP after an error completion");
}

static void case_lkey_tag(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 64, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, p.amr->lkey ^ 1, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "SEND with a wrong key tag");
}

static void case_out_of_bounds(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 256, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf + BUF - 10, 100, p.amr->lkey, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "SEND beyond the MR");
}

static void case_below_bounds(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_one(p.qa, XIB_HCA_WR_RDMA_WRITE, (uintptr_t)p.abuf - 4096, 100, p.amr->lkey,
		 (uintptr_t)p.bbuf, p.bmr->rkey);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "WRITE from below the MR");
}

static void case_wrong_pd(void)
{
	struct xib_mr *mr;
	struct xib_pd *pd2;
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	xt_check(xib_alloc_pd(p.ctx, &pd2), "alloc_pd");
	xt_check(xib_reg_mr(pd2, p.abuf, BUF, FULL_ACCESS, &mr), "reg_mr");
	post_recv_buf(p.qb, p.bbuf, 64, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, mr->lkey, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_LOC_PROT_ERR, "SEND with an MR of another PD");
}

static void case_recv_bad_lkey(void)
{
	struct bp p;
	xib_wc wc;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 64, p.bmr->lkey ^ 0x7700);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, p.amr->lkey, 0, 0);
	if (!xt_poll(p.b.rcq, &wc, 1, 10000))
		xt_fail("receive with a bad lkey: no completion");
	if (wc.status != XIB_HCA_WC_LOC_PROT_ERR)
		xt_fail("receive with a bad lkey: status %s", xt_status_str(wc.status));
	if (!xt_poll(p.a.scq, &wc, 1, 10000) || wc.status == XIB_HCA_WC_SUCCESS)
		xt_fail("SEND into a bad receive WQE did not fail at the requester");
}

static void case_write_no_remote_write(void)
{
	struct bp p;

	bp_open(&p, XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_READ, true);
	post_one(p.qa, XIB_HCA_WR_RDMA_WRITE, (uintptr_t)p.abuf, 100, p.amr->lkey,
		 (uintptr_t)p.bbuf, p.bmr->rkey);
	expect_status(p.a.scq, XIB_HCA_WC_REM_ACCESS_ERR, "WRITE without REMOTE_WRITE");
	expect_flush(&p);
}

static void case_read_no_remote_read(void)
{
	struct bp p;

	bp_open(&p, XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE, true);
	post_one(p.qa, XIB_HCA_WR_RDMA_READ, (uintptr_t)p.abuf, 100, p.amr->lkey,
		 (uintptr_t)p.bbuf, p.bmr->rkey);
	expect_status(p.a.scq, XIB_HCA_WC_REM_ACCESS_ERR, "READ without REMOTE_READ");
}

static void case_bad_rkey(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_one(p.qa, XIB_HCA_WR_RDMA_WRITE, (uintptr_t)p.abuf, 100, p.amr->lkey,
		 (uintptr_t)p.bbuf, p.bmr->rkey ^ 0x3300);
	expect_status(p.a.scq, XIB_HCA_WC_REM_ACCESS_ERR, "WRITE with a bad rkey");
}

static void case_remote_out_of_bounds(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	post_one(p.qa, XIB_HCA_WR_RDMA_READ, (uintptr_t)p.abuf, 4096, p.amr->lkey,
		 (uintptr_t)p.bbuf + BUF - 100, p.bmr->rkey);
	expect_status(p.a.scq, XIB_HCA_WC_REM_ACCESS_ERR, "READ beyond the remote MR");
}

static void case_recv_too_small(void)
{
	struct bp p;
	xib_wc wc;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 50, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 100, p.amr->lkey, 0, 0);
	if (!xt_poll(p.b.rcq, &wc, 1, 10000))
		xt_fail("SEND into a small buffer: no receive completion");
	if (wc.status != XIB_HCA_WC_LOC_LEN_ERR)
		xt_fail("SEND into a small buffer: receive status %s, expected LOC_LEN_ERR",
			xt_status_str(wc.status));
	expect_status(p.a.scq, XIB_HCA_WC_REM_INV_REQ_ERR, "SEND into a small buffer");
}

/* --- posting cases ------------------------------------------------------ */

static void case_inline_oversized(void)
{
	struct xib_hca_send_wqe *wqe;
	struct xib_send_wr wr, *bad;
	struct xib_sge sge;
	struct bp p;
	xib_wc wc;
	int ret;

	bp_open(&p, FULL_ACCESS, true);
	post_recv_buf(p.qb, p.bbuf, 4096, p.bmr->lkey);
	sge = (struct xib_sge){ (uintptr_t)p.abuf, p.qa->cap.max_inline_data + 1, 0 };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_INLINE | XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = xib_post_send(p.qa, &wr, &bad);
	if (ret != EINVAL)
		xt_fail("oversized inline: post_send returned %d, expected EINVAL", ret);
	if (xt_poll(p.a.scq, &wc, 1, 200))
		xt_fail("a refused post completed");

	/* By hand: an inline_len the slot cannot hold. */
	wqe = xib_ring_slot(&p.qa->sq.ring, p.qa->sq.prod);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = 5;
	wqe->opcode = XIB_HCA_WR_SEND;
	wqe->flags = XIB_HCA_SEND_INLINE | XIB_HCA_SEND_SIGNALED;
	wqe->inline_len = p.qa->sq.ring.stride;	/* header + this > stride */
	p.qa->sq.prod++;
	xib_store_release(&p.qa->sq.hdr->prod, p.qa->sq.prod);
	xib_kick(p.qa);
	if (xt_poll(p.a.scq, &wc, 1, 5000)) {
		if (wc.status == XIB_HCA_WC_SUCCESS)
			xt_fail("inline_len %u in a %u-byte slot completed successfully",
				p.qa->sq.ring.stride, p.qa->sq.ring.stride);
	} else {
		expect_state(p.qa, XIB_QPS_ERR, "inline_len beyond the slot");
	}
}

static void case_post_reset(void)
{
	struct xib_hca_send_wqe *wqe;
	struct xib_send_wr wr, *bad;
	struct xib_recv_wr rwr, *rbad;
	struct xib_sge sge;
	struct xib_uverbs_qp_attr a;
	struct bp p;
	xib_wc wc;
	int ret;

	bp_open(&p, FULL_ACCESS, false);
	sge = (struct xib_sge){ (uintptr_t)p.abuf, 8, p.amr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = xib_post_send(p.qa, &wr, &bad);
	if (ret != EINVAL)
		xt_fail("post_send on a RESET QP returned %d, expected EINVAL", ret);
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret = xib_post_recv(p.qa, &rwr, &rbad);
	if (ret != EINVAL)
		xt_fail("post_recv on a RESET QP returned %d, expected EINVAL", ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	xt_check(xib_modify_qp(p.qa, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
			       XIB_QP_ACCESS_FLAGS), "modify to INIT");
	if (xib_post_send(p.qa, &wr, &bad) != EINVAL)
		xt_fail("post_send on an INIT QP was not refused");
	xt_check(xib_post_recv(p.qa, &rwr, &rbad), "post_recv on an INIT QP");

	/* By hand on the RESET QP B: ignored. */
	wqe = xib_ring_slot(&p.qb->sq.ring, 0);
	memset(wqe, 0, sizeof(*wqe));
	wqe->opcode = XIB_HCA_WR_SEND;
	wqe->flags = XIB_HCA_SEND_SIGNALED;
	xib_store_release(&p.qb->sq.hdr->prod, 1);
	xib_kick(p.qb);
	if (xt_poll(p.b.scq, &wc, 1, 500))
		xt_fail("a WQE on a RESET QP completed (status %s)", xt_status_str(wc.status));
	if (xt_qp_state(p.qb) != XIB_QPS_RESET)
		xt_fail("a WQE on a RESET QP changed its state to %u", xt_qp_state(p.qb));
}

/* --- hostile rings ------------------------------------------------------ */

static void case_sq_prod_far_ahead(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	xib_store_release(&p.qa->sq.hdr->prod, p.qa->sq.ring.slots * 4 + 3);
	xib_kick(p.qa);
	expect_fatal(p.ctx, p.qa, "SQ producer index far ahead");
}

static void case_sq_prod_behind(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	xib_store_release(&p.qa->sq.hdr->prod, 0xfffffff0u);
	xib_kick(p.qa);
	expect_fatal(p.ctx, p.qa, "SQ producer index behind the consumer");
}

static void case_rq_prod_far_ahead(void)
{
	struct bp p;

	bp_open(&p, FULL_ACCESS, true);
	xib_store_release(&p.qb->rq.hdr->prod, 0x7fffffffu);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 8, p.amr->lkey, 0, 0);
	expect_fatal(p.ctx, p.qb, "RQ producer index far ahead");
	expect_error(p.qb, p.b.scq, "RQ producer index far ahead");
}

static void case_cq_cons_ahead(void)
{
	struct xib_uverbs_async_event ev;
	struct pollfd pfd;
	struct bp p;
	uint64_t deadline;

	bp_open(&p, FULL_ACCESS, true);
	/* The consumer index is ours to write: claim CQEs that do not exist. */
	xib_store_release(&p.a.scq->hdr->cons, 1000);
	post_one(p.qa, XIB_HCA_WR_RDMA_WRITE, (uintptr_t)p.abuf, 8, p.amr->lkey,
		 (uintptr_t)p.bbuf, p.bmr->rkey);
	deadline = xt_now_ns() + 5000000000ull;
	while (!xib_cq_overflowed(p.a.scq)) {
		if (xt_now_ns() > deadline)
			xt_fail("CQ consumer index ahead of the producer: no overflow");
		usleep(10000);
	}
	pfd.fd = p.ctx->async_fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 5000) != 1)
		xt_fail("CQ overflow: no async event within 5 s");
	xt_check(xib_read_async_event(p.ctx, &ev), "reading the async event");
	if (ev.event_type != XIB_EVENT_CQ_ERR && ev.event_type != XIB_EVENT_QP_FATAL)
		xt_fail("CQ overflow: async event %u, expected CQ_ERR", ev.event_type);
}

static void case_cq_overflow(void)
{
	struct xib_uverbs_async_event ev;
	struct pollfd pfd;
	struct xib_qp_init_attr init;
	struct xib_cq *cq;
	struct xib_qp *qp;
	struct bp p;
	uint64_t deadline;
	int i;

	bp_open(&p, FULL_ACCESS, false);
	xt_check(xib_create_cq(p.ctx, 2, 9, NULL, 0, &cq), "create_cq");
	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = XIB_QPT_RC;
	init.cap.max_send_wr = 16;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	xt_check(xib_create_qp(p.a.pd, &init, &qp), "create_qp");
	xt_rc_connect(qp, &p.a, p.qb->qpn, &p.b, 0);
	xt_rc_connect(p.qb, &p.b, qp->qpn, &p.a, XIB_ACCESS_REMOTE_WRITE);
	for (i = 0; i < 16; i++)
		post_one(qp, XIB_HCA_WR_RDMA_WRITE, (uintptr_t)p.abuf, 8, p.amr->lkey,
			 (uintptr_t)p.bbuf, p.bmr->rkey);
	deadline = xt_now_ns() + 5000000000ull;
	while (!xib_cq_overflowed(cq)) {
		if (xt_now_ns() > deadline)
			xt_fail("16 completions into a CQ of %u: no overflow", cq->cqe);
		usleep(10000);
	}
	pfd.fd = p.ctx->async_fd;
	pfd.events = POLLIN;
	do {	/* QP events may come too; CQ_ERR for the CQ must */
		if (poll(&pfd, 1, 5000) != 1)
			xt_fail("CQ overflow: no CQ_ERR event within 5 s");
		xt_check(xib_read_async_event(p.ctx, &ev), "reading the async event");
	} while (ev.event_type != XIB_EVENT_CQ_ERR || ev.element != 9);
}

static void case_garbage_wqes(void)
{
	unsigned int round, i, k;

	for (round = 0; round < 4; round++) {
		struct bp p;
		xib_wc wc[64];
		int n;

		bp_open(&p, FULL_ACCESS, true);
		for (i = 0; i < 8; i++)
			post_recv_buf(p.qb, p.bbuf, 4096, p.bmr->lkey);
		srand(round + 1);
		for (i = 0; i < p.qa->sq.ring.slots; i++) {
			uint8_t *slot = xib_ring_slot(&p.qa->sq.ring, i);

			for (k = 0; k < p.qa->sq.ring.stride; k++)
				slot[k] = rand();
			/* some plausible: valid opcode and flags, garbage rest */
			if (round & 1) {
				struct xib_hca_send_wqe *w = (void *)slot;

				w->opcode = rand() % 10;
				w->flags = rand() & 0x1f;
				w->num_sge = rand() % 4;
			}
		}
		xib_store_release(&p.qa->sq.hdr->prod, p.qa->sq.ring.slots);
		xib_kick(p.qa);
		usleep(300000);
		while ((n = xt_poll(p.a.scq, wc, 64, 500)) > 0)
			for (i = 0; i < (unsigned int)n; i++)
				if (wc[i].status > XIB_HCA_WC_GENERAL_ERR)
					xt_fail("garbage WQE: completion status %u", wc[i].status);
		xt_check(xib_destroy_qp(p.qa), "destroy_qp after garbage");
	}
}

/* --- ioctl arguments ---------------------------------------------------- */

static int ctx_fd;

#define EXPECT_ERR(cmd, arg, err, what) do {				\
	int r_ = ioctl(ctx_fd, cmd, arg);				\
	if (r_ != -1 || errno != (err))					\
		xt_fail("%s: ioctl returned %d (%s), expected %s", what,	\
			r_, r_ ? strerror(errno) : "success", strerror(err));	\
} while (0)

#define EXPECT_ERR2(cmd, arg, e1, e2, what) do {			\
	int r_ = ioctl(ctx_fd, cmd, arg);				\
	if (r_ != -1 || (errno != (e1) && errno != (e2)))		\
		xt_fail("%s: ioctl returned %d (%s), expected %s", what,	\
			r_, r_ ? strerror(errno) : "success", strerror(e1));	\
} while (0)

static void case_ioctl_context(void)
{
	struct xib_uverbs_get_context gc;
	struct xib_uverbs_alloc_pd ap;
	struct xib_uverbs_destroy d;
	struct xib_context *ctx = open_ctx();
	struct xib_pd *pd;
	char big[512];

	ctx_fd = ctx->fd;
	memset(&gc, 0, sizeof(gc));
	EXPECT_ERR(XIB_UVERBS_GET_CONTEXT, &gc, EEXIST, "second GET_CONTEXT");
	memset(&ap, 0, sizeof(ap));
	ap.pd_handle = 3;
	EXPECT_ERR(XIB_UVERBS_ALLOC_PD, &ap, EINVAL, "ALLOC_PD with an out field set");
	memset(&d, 0, sizeof(d));
	d.handle = 0xabcdef;
	EXPECT_ERR(XIB_UVERBS_DEALLOC_PD, &d, ENOENT, "DEALLOC_PD of an unknown handle");
	d.handle = XIB_UVERBS_NO_HANDLE;
	EXPECT_ERR(XIB_UVERBS_DEALLOC_PD, &d, ENOENT, "DEALLOC_PD of NO_HANDLE");
	xt_check(xib_alloc_pd(ctx, &pd), "alloc_pd");
	d.handle = pd->handle;
	d.reserved = 1;
	EXPECT_ERR(XIB_UVERBS_DEALLOC_PD, &d, EINVAL, "DEALLOC_PD with reserved set");
	EXPECT_ERR(XIB_UVERBS_KICK, &d, EINVAL, "KICK with reserved set");
	d.reserved = 0;
	EXPECT_ERR(XIB_UVERBS_DEREG_MR, &d, ENOENT, "DEREG_MR of a PD handle");
	EXPECT_ERR(XIB_UVERBS_KICK, &d, ENOENT, "KICK of a PD handle");
	EXPECT_ERR2(_IOWR(XIB_UVERBS_IOCTL_MAGIC, 0x7f, struct xib_uverbs_destroy), &d,
		    ENOTTY, EINVAL, "an unknown command");
	EXPECT_ERR2(_IOWR(XIB_UVERBS_IOCTL_MAGIC, 0x05, char[512]), big,
		    ENOTTY, EINVAL, "ALLOC_PD with the wrong size");
	EXPECT_ERR(XIB_UVERBS_ALLOC_PD, (void *)16, EFAULT, "ALLOC_PD with a bad pointer");
	xt_check(xib_dealloc_pd(pd), "dealloc_pd after the refused calls");
}

static void case_ioctl_mr(void)
{
	struct xib_context *ctx = open_ctx();
	struct xib_uverbs_reg_mr r, r0;
	struct xib_pd *pd;
	struct xib_mr *mr;
	uint8_t *buf = alloc_buf(65536);
	struct xib_uverbs_destroy d;

	ctx_fd = ctx->fd;
	xt_check(xib_alloc_pd(ctx, &pd), "alloc_pd");
	memset(&r0, 0, sizeof(r0));
	r0.addr = r0.iova = (uintptr_t)buf;
	r0.length = 65536;
	r0.pd_handle = pd->handle;
	r0.access = XIB_ACCESS_LOCAL_WRITE;
	r = r0; r.length = 0;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR of length 0");
	r = r0; r.access = XIB_ACCESS_REMOTE_WRITE;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR REMOTE_WRITE without LOCAL_WRITE");
	r = r0; r.access = XIB_ACCESS_REMOTE_ATOMIC | XIB_ACCESS_REMOTE_READ;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR REMOTE_ATOMIC without LOCAL_WRITE");
	r = r0; r.access |= XIB_ACCESS_ZERO_BASED;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR with ZERO_BASED and a nonzero iova");
	r = r0; r.access |= 1u << 29;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR with an unknown access bit");
	r = r0; r.reserved = 1;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR with reserved set");
	r = r0; r.lkey = 1;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, EINVAL, "REG_MR with an out field set");
	r = r0; r.pd_handle = 999;
	EXPECT_ERR(XIB_UVERBS_REG_MR, &r, ENOENT, "REG_MR with an unknown PD");
	r = r0; r.addr = ~0ull - 100; r.length = 4096;
	EXPECT_ERR2(XIB_UVERBS_REG_MR, &r, EINVAL, EFAULT, "REG_MR wrapping around");
	r = r0; r.addr = 4096;
	EXPECT_ERR2(XIB_UVERBS_REG_MR, &r, EFAULT, ENOMEM, "REG_MR of unmapped memory");
	xt_check(xib_reg_mr(pd, buf, 65536, XIB_ACCESS_LOCAL_WRITE, &mr), "reg_mr");
	memset(&d, 0, sizeof(d));
	d.handle = pd->handle;
	EXPECT_ERR(XIB_UVERBS_DEALLOC_PD, &d, EBUSY, "DEALLOC_PD with an MR");
	xt_check(xib_dereg_mr(mr), "dereg_mr");
	xt_check(xib_dealloc_pd(pd), "dealloc_pd");
}

static void case_ioctl_cq_qp(void)
{
	struct xib_context *ctx = open_ctx();
	const struct xib_uverbs_device_attr *at = &ctx->attr;
	struct xib_uverbs_create_cq c, c0;
	struct xib_uverbs_create_qp q, q0;
	struct xib_uverbs_destroy_events de;
	struct xib_cq *cq;
	struct xib_pd *pd;
	struct xib_qp *qp;
	struct xib_qp_init_attr init;

	ctx_fd = ctx->fd;
	xt_check(xib_alloc_pd(ctx, &pd), "alloc_pd");
	memset(&c0, 0, sizeof(c0));
	c0.cqe = 16;
	c0.comp_channel = -1;
	c = c0; c.cqe = at->max_cqe + 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_CQ, &c, EINVAL, "CREATE_CQ above max_cqe");
	c = c0; c.flags = 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_CQ, &c, EINVAL, "CREATE_CQ with flags");
	c = c0; c.comp_vector = ctx->num_comp_vectors;
	EXPECT_ERR(XIB_UVERBS_CREATE_CQ, &c, EINVAL, "CREATE_CQ with a bad comp_vector");
	c = c0; c.comp_channel = ctx->fd;
	EXPECT_ERR2(XIB_UVERBS_CREATE_CQ, &c, EINVAL, EBADF, "CREATE_CQ, channel not a channel");
	c = c0; c.comp_channel = 9999;
	EXPECT_ERR2(XIB_UVERBS_CREATE_CQ, &c, EBADF, EINVAL, "CREATE_CQ with a closed fd");
	c = c0; c.ring.slots = 4;
	EXPECT_ERR(XIB_UVERBS_CREATE_CQ, &c, EINVAL, "CREATE_CQ with an out field set");
	xt_check(xib_create_cq(ctx, 16, 0, NULL, 0, &cq), "create_cq");

	memset(&q0, 0, sizeof(q0));
	q0.pd_handle = pd->handle;
	q0.send_cq_handle = q0.recv_cq_handle = cq->handle;
	q0.srq_handle = XIB_UVERBS_NO_HANDLE;
	q0.qp_type = XIB_QPT_RC;
	q0.cap.max_send_wr = q0.cap.max_recv_wr = 4;
	q0.cap.max_send_sge = q0.cap.max_recv_sge = 1;
	q = q0; q.qp_type = 99;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP of type 99");
	q = q0; q.qp_type = XIB_QPT_RAW_PACKET;
	EXPECT_ERR2(XIB_UVERBS_CREATE_QP, &q, EINVAL, EOPNOTSUPP, "CREATE_QP RAW_PACKET");
	q = q0; q.cap.max_send_wr = 0;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP max_send_wr 0");
	q = q0; q.cap.max_send_wr = at->max_qp_wr + 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP above max_qp_wr");
	q = q0; q.cap.max_recv_wr = at->max_qp_wr + 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP max_recv_wr above max_qp_wr");
	q = q0; q.cap.max_send_sge = at->max_sge + 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP above max_sge");
	q = q0; q.cap.max_inline_data = at->max_inline_data + 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP above max_inline_data");
	q = q0; q.sq_sig_all = 2;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP sq_sig_all 2");
	q = q0; q.reserved0[1] = 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP with reserved set");
	q = q0; q.cap.reserved = 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP with cap.reserved set");
	q = q0; q.qpn = 5;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, EINVAL, "CREATE_QP with an out field set");
	q = q0; q.send_cq_handle = 4444;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, ENOENT, "CREATE_QP with an unknown CQ");
	q = q0; q.srq_handle = 4444;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, ENOENT, "CREATE_QP with an unknown SRQ");
	q = q0; q.pd_handle = cq->handle + 1000;
	EXPECT_ERR(XIB_UVERBS_CREATE_QP, &q, ENOENT, "CREATE_QP with an unknown PD");

	memset(&init, 0, sizeof(init));
	init.send_cq = init.recv_cq = cq;
	init.qp_type = XIB_QPT_RC;
	init.cap = q0.cap;
	xt_check(xib_create_qp(pd, &init, &qp), "create_qp");
	memset(&de, 0, sizeof(de));
	de.handle = cq->handle;
	EXPECT_ERR(XIB_UVERBS_DESTROY_CQ, &de, EBUSY, "DESTROY_CQ used by a QP");
	de.handle = qp->handle;
	de.comp_events_reported = 1;
	EXPECT_ERR(XIB_UVERBS_DESTROY_QP, &de, EINVAL, "DESTROY_QP with an out field set");
	de.comp_events_reported = 0;
	de.reserved = 1;
	EXPECT_ERR(XIB_UVERBS_DESTROY_QP, &de, EINVAL, "DESTROY_QP with reserved set");
	xt_check(xib_destroy_qp(qp), "destroy_qp");
	xt_check(xib_destroy_cq(cq), "destroy_cq");
	xt_check(xib_dealloc_pd(pd), "dealloc_pd");
}

static void case_ioctl_modify(void)
{
	struct xib_uverbs_modify_qp m, m0;
	struct xib_uverbs_query_qp qq;
	struct bp p;

	bp_open(&p, FULL_ACCESS, false);
	ctx_fd = p.ctx->fd;
	memset(&m0, 0, sizeof(m0));
	m0.qp_handle = p.qa->handle;
	m0.attr.qp_state = XIB_QPS_INIT;
	m0.attr.port_num = 1;
	m0.attr_mask = XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT | XIB_QP_ACCESS_FLAGS;
	m = m0; m.attr_mask &= ~XIB_QP_PORT;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->INIT without PORT");
	m = m0; m.attr_mask |= 1u << 21;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "MODIFY_QP with mask bit 21");
	m = m0; m.attr_mask |= 1u << 30;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "MODIFY_QP with mask bit 30");
	m = m0; m.attr_mask |= XIB_QP_SQ_PSN;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->INIT with SQ_PSN");
	m = m0; m.attr.port_num = 2;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->INIT on port 2");
	m = m0; m.attr.pkey_index = 1;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->INIT with pkey_index 1");
	m = m0; m.attr.qp_access_flags = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_MW_BIND;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->INIT with bad access flags");
	m = m0; m.attr.qp_state = XIB_QPS_RTR;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "RESET->RTR");
	m = m0; m.attr.qp_state = 7;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "to state 7");
	m = m0; m.attr_mask |= XIB_QP_CUR_STATE; m.attr.cur_qp_state = XIB_QPS_RTS;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "with a wrong cur_qp_state");
	m = m0; m.qp_handle = 7777;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, ENOENT, "MODIFY_QP of an unknown QP");
	m = m0; m.attr.reserved1 = 1;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "MODIFY_QP with reserved set");
	if (xt_qp_state(p.qa) != XIB_QPS_RESET)
		xt_fail("refused modifies changed the QP's state");
	m = m0;
	xt_check(ioctl(ctx_fd, XIB_UVERBS_MODIFY_QP, &m) ? -errno : 0, "RESET->INIT");

	memset(&m0, 0, sizeof(m0));
	m0.qp_handle = p.qa->handle;
	m0.attr.qp_state = XIB_QPS_RTR;
	m0.attr.path_mtu = XIB_MTU_1024;
	m0.attr.dest_qp_num = p.qb->qpn;
	m0.attr.max_dest_rd_atomic = 1;
	xt_fill_av(&m0.attr.ah_attr, &p.a, &p.b);
	m0.attr_mask = XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN |
		       XIB_QP_RQ_PSN | XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER;
	m = m0; m.attr.dest_qp_num = 1u << 24;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR dest_qp_num 2^24");
	m = m0; m.attr.rq_psn = 1u << 24;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR rq_psn 2^24");
	m = m0; m.attr.path_mtu = 6;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR path_mtu 6");
	m = m0; m.attr.min_rnr_timer = 32;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR min_rnr_timer 32");
	m = m0; m.attr.max_dest_rd_atomic = p.ctx->attr.max_qp_rd_atom + 1;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR max_dest_rd_atomic too big");
	m = m0; m.attr.ah_attr.is_global = 0;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR without a GRH");
	m = m0; m.attr.ah_attr.sgid_index = 31;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR with an empty sgid_index");
	m = m0; m.attr_mask &= ~XIB_QP_DEST_QPN;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR without DEST_QPN");
	m = m0; m.attr_mask |= XIB_QP_CAP; m.attr.cap.max_send_wr = 100000;
	EXPECT_ERR(XIB_UVERBS_MODIFY_QP, &m, EINVAL, "INIT->RTR growing the SQ");
	memset(&qq, 0, sizeof(qq));
	qq.qp_handle = 5555;
	EXPECT_ERR(XIB_UVERBS_QUERY_QP, &qq, ENOENT, "QUERY_QP of an unknown QP");
	if (xt_qp_state(p.qa) != XIB_QPS_INIT)
		xt_fail("refused modifies changed the QP's state");
}

static void case_ioctl_ah(void)
{
	struct xib_uverbs_create_ah c, c0;
	struct bp p;

	bp_open(&p, FULL_ACCESS, false);
	ctx_fd = p.ctx->fd;
	memset(&c0, 0, sizeof(c0));
	c0.pd_handle = p.a.pd->handle;
	xt_fill_av(&c0.attr, &p.a, &p.b);
	c = c0; c.attr.is_global = 0;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, EINVAL, "CREATE_AH without a GRH");
	c = c0; c.attr.port_num = 2;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, EINVAL, "CREATE_AH on port 2");
	c = c0; c.attr.sgid_index = 200;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, EINVAL, "CREATE_AH with sgid_index 200");
	c = c0; c.attr.sl = 16;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, EINVAL, "CREATE_AH with sl 16");
	c = c0; c.reserved = 1;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, EINVAL, "CREATE_AH with reserved set");
	c = c0; c.pd_handle = 9999;
	EXPECT_ERR(XIB_UVERBS_CREATE_AH, &c, ENOENT, "CREATE_AH with an unknown PD");
	c = c0;
	xt_check(ioctl(ctx_fd, XIB_UVERBS_CREATE_AH, &c) ? -errno : 0, "a good CREATE_AH");
}

static void case_mmap(void)
{
	const struct xib_ring *sq;
	struct bp p;
	void *m;

	bp_open(&p, FULL_ACCESS, false);
	sq = &p.qa->sq.ring;
	m = mmap(NULL, p.ctx->db_size, PROT_READ | PROT_WRITE, MAP_SHARED, p.ctx->fd,
		 p.ctx->db_offset);
	if (m != MAP_FAILED)
		xt_fail("the doorbell page mapped writable");
	m = mmap(NULL, p.ctx->db_size + 4096, PROT_READ, MAP_SHARED, p.ctx->fd,
		 p.ctx->db_offset);
	if (m != MAP_FAILED)
		xt_fail("the doorbell page mapped with a wrong length");
	if (mprotect((void *)p.ctx->db, p.ctx->db_size, PROT_READ | PROT_WRITE) == 0)
		xt_fail("the doorbell page could be made writable");
	m = mmap(NULL, sq->map_size + 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 p.ctx->fd, sq->mmap_offset);
	if (m != MAP_FAILED)
		xt_fail("a send ring mapped with a wrong length");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, p.ctx->fd, 1ull << 40);
	if (m != MAP_FAILED)
		xt_fail("mmap of an unknown offset succeeded");
	/* a second mapping of the same ring is fine and shares the memory */
	m = mmap(NULL, sq->map_size, PROT_READ, MAP_SHARED, p.ctx->fd, sq->mmap_offset);
	if (m == MAP_FAILED)
		xt_fail("a second mapping of a send ring failed: %s", strerror(errno));
	xib_store_release(&p.qa->sq.hdr->reserved0[0], 0x5a5a);
	if (((struct xib_hca_wq_hdr *)m)->reserved0[0] != 0x5a5a)
		xt_fail("two mappings of a ring do not share memory");
	munmap(m, sq->map_size);
}

static void case_destroy_order(void)
{
	struct xib_uverbs_destroy_events de;
	struct xib_uverbs_destroy d;
	struct bp p;
	xib_wc wc;

	bp_open(&p, FULL_ACCESS, true);
	ctx_fd = p.ctx->fd;
	memset(&d, 0, sizeof(d));
	d.handle = p.a.pd->handle;
	EXPECT_ERR(XIB_UVERBS_DEALLOC_PD, &d, EBUSY, "DEALLOC_PD of a PD in use");
	memset(&de, 0, sizeof(de));
	de.handle = p.a.scq->handle;
	EXPECT_ERR(XIB_UVERBS_DESTROY_CQ, &de, EBUSY, "DESTROY_CQ of a CQ in use");
	/* everything still works */
	post_recv_buf(p.qb, p.bbuf, 64, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 64, p.amr->lkey, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_SUCCESS, "SEND after refused destroys");
	xt_wait(p.b.rcq, &wc, 1, "receive after refused destroys");
}

static void case_sanity(void)
{
	struct bp p;
	xib_wc wc;

	bp_open(&p, FULL_ACCESS, true);
	xt_pattern(p.abuf, 5000, 1);
	post_recv_buf(p.qb, p.bbuf, 5000, p.bmr->lkey);
	post_one(p.qa, XIB_HCA_WR_SEND, (uintptr_t)p.abuf, 5000, p.amr->lkey, 0, 0);
	expect_status(p.a.scq, XIB_HCA_WC_SUCCESS, "SEND");
	xt_wait(p.b.rcq, &wc, 1, "receive");
	if (wc.status || wc.byte_len != 5000 || memcmp(p.abuf, p.bbuf, 5000))
		xt_fail("SEND after the abuse: status %s byte_len %u or content wrong",
			xt_status_str(wc.status), wc.byte_len);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "bad_lkey", case_bad_lkey },
	{ "lkey_tag", case_lkey_tag },
	{ "query_after_error", case_query_after_error },
	{ "out_of_bounds", case_out_of_bounds },
	{ "below_bounds", case_below_bounds },
	{ "wrong_pd", case_wrong_pd },
	{ "recv_bad_lkey", case_recv_bad_lkey },
	{ "write_no_remote_write", case_write_no_remote_write },
	{ "read_no_remote_read", case_read_no_remote_read },
	{ "bad_rkey", case_bad_rkey },
	{ "remote_out_of_bounds", case_remote_out_of_bounds },
	{ "recv_too_small", case_recv_too_small },
	{ "inline_oversized", case_inline_oversized },
	{ "post_reset", case_post_reset },
	{ "sq_prod_far_ahead", case_sq_prod_far_ahead },
	{ "sq_prod_behind", case_sq_prod_behind },
	{ "rq_prod_far_ahead", case_rq_prod_far_ahead },
	{ "cq_cons_ahead", case_cq_cons_ahead },
	{ "cq_overflow", case_cq_overflow },
	{ "garbage_wqes", case_garbage_wqes },
	{ "ioctl_context", case_ioctl_context },
	{ "ioctl_mr", case_ioctl_mr },
	{ "ioctl_cq_qp", case_ioctl_cq_qp },
	{ "ioctl_modify", case_ioctl_modify },
	{ "ioctl_ah", case_ioctl_ah },
	{ "mmap", case_mmap },
	{ "destroy_order", case_destroy_order },
	{ "sanity", case_sanity },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static bool run_case(unsigned int i)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		xt_fail("fork: %s", strerror(errno));
	if (!pid) {
		alarm(60);
		cases[i].fn();
		exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		xt_fail("waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok - %s\n", cases[i].name);
		return true;
	}
	if (WIFSIGNALED(status))
		printf("not ok - %s: killed by signal %d%s\n", cases[i].name,
		       WTERMSIG(status), WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
	else
		printf("not ok - %s (see the FAIL line above)\n", cases[i].name);
	return false;
}

int main(int argc, char **argv)
{
	unsigned int i, failed = 0, ran = 0;
	int c, a;

	xt_prog = "xib_bad_test";
	while ((c = getopt(argc, argv, "d:l")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'l':
			for (i = 0; i < NCASES; i++)
				printf("%s\n", cases[i].name);
			return 0;
		default:
			fprintf(stderr, "usage: xib_bad_test [-d DEV] [-l] [CASE...]\n");
			return 2;
		}
	}
	for (i = 0; i < NCASES; i++) {
		bool want = optind == argc;

		for (a = optind; a < argc; a++)
			want |= !strcmp(argv[a], cases[i].name);
		if (!want)
			continue;
		ran++;
		if (!run_case(i))
			failed++;
	}
	if (!ran) {
		fprintf(stderr, "xib_bad_test: no such case\n");
		return 2;
	}
	printf("%u of %u cases passed\n", ran - failed, ran);
	return failed ? 1 : 0;
}
