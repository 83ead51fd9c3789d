// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_rc_test: move data between two RC QPs and check every byte.
 *
 *   xib_rc_test [-d DEV] [-D DEV2] [-g IDX] [-G IDX] [-t BYTES] [-o OPS] [-q]
 *   xib_rc_test -b WRS [-O write|send] [-s SIZE]   (sustained load)
 *   xib_rc_test -x CMD [-X CMD2] [-d DEV] [-D DEV2] (retry exhaustion)
 *   xib_rc_test -E N [-d DEV] [-D DEV2]            (unread events bound)
 *
 * Without -D both QPs are on DEV (loopback); with -D the second QP is on
 * DEV2 (e.g. a device over the other end of a veth pair).  -g/-G pick the
 * source GID index on each side (default: an IPv4-mapped GID, else the
 * first valid one).
 *
 * For each opcode of OPS (send,send_imm,write,write_imm,read; default
 * all) it repeats a cycle of messages of 0, 1, MTU-1, MTU, MTU+1 and
 * 1 MiB bytes and a 3-SGE message until BYTES (default 64M) were moved,
 * alternating cycles where every WR is signaled with cycles where only the
 * last one is.  It checks each completion (status, opcode, wr_id order,
 * byte_len, immediate data) and compares a checksum of what arrived with
 * one of what was sent.  Then it checks inline SENDs and RDMA WRITEs,
 * whose source buffer is overwritten right after the post, completion
 * events, an SRQ, and that the send and receive queues can be refilled
 * at once after their completions, 50 times (5 with -q, the debug
 * kernel's quick mode).
 *
 * With -b it runs WRS RDMA WRITEs (or SENDs) of SIZE bytes (default 64)
 * back to back, 1 in 16 signaled, and prints how many WRs were posted and
 * how many KICK system calls were made; -b 0 runs until killed and prints
 * "READY" once traffic flows (for the process-kill test).
 *
 * With -x it checks that a peer that is gone is found out: it runs the
 * shell command CMD (which takes the peer away, e.g. sets its interface
 * down) after the QPs are connected, posts 8 signaled SENDs and waits for
 * their completions: the first must be RETRY_EXC_ERR, the other 7
 * WR_FLUSH_ERR, and the QP in ERR.  With timeout 14 (T = 4.096 us * 2^14)
 * and retry_cnt 7 the first fails after 8 timer expiries, each at least T
 * and at most 4T (the backoff's cap): between 8T and 32T, plus the
 * scheduling slack of a slow guest (2 s).  It prints the time measured.
 * With -X it then runs the shell command CMD2 while the QPs still exist
 * (e.g. to read their counters with xibctl), which must exit with 0.
 *
 * With -E it arms the receive CQ and makes it complete N times without
 * reading the completion channel, then reads it: every arm fired, so it
 * must find N events, or, if N exceeds xib_uverbs' max_events_per_queue
 * (read from sysfs), exactly that many (the repeats beyond the limit are
 * merged into the CQ's unread event).
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xib_test.h"

#define BUF_SIZE	(8u << 20)
#define MAX_MSGS	8
#define RC_ACCESS	(XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ)
#define MR_ACCESS	(XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE | \
			 XIB_ACCESS_REMOTE_READ)

struct msg {
	uint32_t len;
	int nsge;
	uint32_t sge_len[3];
	size_t loff[3];		/* pieces in A's buffer */
	size_t roff;		/* contiguous in B's buffer */
};

struct pair {
	struct xt_side a, b;
	struct xib_qp *qa, *qb;
	uint8_t *abuf, *bbuf;
	struct xib_mr *amr, *bmr;
	uint32_t max_inline;
};

enum { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_N };

static const struct {
	const char *name;
	uint32_t wr_opcode;
	uint32_t wc_opcode;
	bool recv;		/* consumes a receive WQE */
	bool imm;
} ops[OP_N] = {
	[OP_SEND] = { "send", XIB_HCA_WR_SEND, XIB_HCA_WC_SEND, true, false },
	[OP_SEND_IMM] = { "send_imm", XIB_HCA_WR_SEND_WITH_IMM, XIB_HCA_WC_SEND, true, true },
	[OP_WRITE] = { "write", XIB_HCA_WR_RDMA_WRITE, XIB_HCA_WC_RDMA_WRITE, false, false },
	[OP_WRITE_IMM] = { "write_imm", XIB_HCA_WR_RDMA_WRITE_WITH_IMM,
			   XIB_HCA_WC_RDMA_WRITE, true, true },
	[OP_READ] = { "read", XIB_HCA_WR_RDMA_READ, XIB_HCA_WC_RDMA_READ, false, false },
};

static size_t align_off(size_t off, int i)
{
	return ((off + 63) & ~(size_t)63) + (i % 7);
}

static int build_cycle(struct msg *m, uint32_t mtu)
{
	static const uint32_t one_mib = 1u << 20;
	const uint32_t sizes[6] = { 0, 1, mtu - 1, mtu, mtu + 1, one_mib };
	size_t loff = 0, roff = 0;
	int i, k, n = 0;

	for (i = 0; i < 6; i++, n++) {
		m[n].len = sizes[i];
		m[n].nsge = 1;
		m[n].sge_len[0] = sizes[i];
		m[n].loff[0] = loff = align_off(loff, n);
		m[n].roff = roff = align_off(roff, n);
		loff += sizes[i];
		roff += sizes[i];
	}
	m[n].nsge = 3;
	m[n].sge_len[0] = 7;
	m[n].sge_len[1] = mtu;
	m[n].sge_len[2] = 3001;
	m[n].len = 0;
	for (k = 0; k < 3; k++) {
		m[n].loff[k] = loff = align_off(loff + 5, n + k);
		loff += m[n].sge_len[k];
		m[n].len += m[n].sge_len[k];
	}
	m[n].roff = align_off(roff, n);
	return n + 1;
}

static void open_pair(struct pair *p, const char *dev_a, const char *dev_b,
		      int gid_a, int gid_b, uint32_t depth, uint32_t max_sge)
{
	struct xib_context *ca, *cb;

	memset(p, 0, sizeof(*p));
	xt_check(xib_open(dev_a, &ca), dev_a);
	if (dev_b)
		xt_check(xib_open(dev_b, &cb), dev_b);
	else
		cb = ca;
	xt_side_open(&p->a, ca, gid_a, depth * 2);
	xt_side_open(&p->b, cb, gid_b, depth * 2);
	p->qa = xt_create_qp(&p->a, XIB_QPT_RC, depth, max_sge, 256, NULL);
	p->qb = xt_create_qp(&p->b, XIB_QPT_RC, depth, max_sge, 256, NULL);
	p->max_inline = p->qa->cap.max_inline_data;
	if (p->max_inline < 256)
		xt_fail("create_qp granted max_inline_data %u < 256", p->max_inline);
	xt_rc_connect(p->qa, &p->a, p->qb->qpn, &p->b, RC_ACCESS);
	xt_rc_connect(p->qb, &p->b, p->qa->qpn, &p->a, RC_ACCESS);
	p->abuf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p->bbuf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->abuf == MAP_FAILED || p->bbuf == MAP_FAILED)
		xt_fail("out of memory");
	memset(p->abuf, 0, BUF_SIZE);
	memset(p->bbuf, 0, BUF_SIZE);
	xt_check(xib_reg_mr(p->a.pd, p->abuf, BUF_SIZE, MR_ACCESS, &p->amr), "reg_mr");
	xt_check(xib_reg_mr(p->b.pd, p->bbuf, BUF_SIZE, MR_ACCESS, &p->bmr), "reg_mr");
	xt_info("QP %u on %s (GID index %u) <-> QP %u on %s (GID index %u), MTU %u",
		p->qa->qpn, dev_a, p->a.sgid_index, p->qb->qpn,
		dev_b ? dev_b : dev_a, p->b.sgid_index, p->a.mtu);
}

static void close_pair(struct pair *p)
{
	struct xib_context *ca = p->a.ctx, *cb = p->b.ctx;

	xt_check(xib_destroy_qp(p->qa), "destroy_qp");
	xt_check(xib_destroy_qp(p->qb), "destroy_qp");
	xt_check(xib_dereg_mr(p->amr), "dereg_mr");
	xt_check(xib_dereg_mr(p->bmr), "dereg_mr");
	xt_side_close(&p->a);
	xt_side_close(&p->b);
	xib_close(ca);
	if (cb != ca)
		xib_close(cb);
	munmap(p->abuf, BUF_SIZE);
	munmap(p->bbuf, BUF_SIZE);
}

static void post_recvs(struct pair *p, const struct msg *m, int n, bool with_buf)
{
	struct xib_recv_wr wr[MAX_MSGS], *bad;
	struct xib_sge sge[MAX_MSGS];
	int i, ret;

	for (i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 1000 + i;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (with_buf) {
			sge[i].addr = (uintptr_t)p->bbuf + m[i].roff;
			sge[i].length = m[i].len;
			sge[i].lkey = p->bmr->lkey;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
		}
	}
	ret = xib_post_recv(p->qb, &wr[0], &bad);
	if (ret)
		xt_fail("post_recv: %s (at WR %d)", strerror(ret), (int)(bad - wr));
}

/* Compare message @m: A's pieces against B's contiguous region. */
static uint64_t verify_msg(struct pair *p, const struct msg *m, uint8_t *tmp,
			   const char *what, int i)
{
	size_t off = 0;
	int k;

	for (k = 0; k < m->nsge; k++) {
		memcpy(tmp + off, p->abuf + m->loff[k], m->sge_len[k]);
		off += m->sge_len[k];
	}
	if (xt_csum(tmp, m->len, 0) != xt_csum(p->bbuf + m->roff, m->len, 0)) {
		size_t j;

		for (j = 0; j < m->len; j++)
			if (tmp[j] != p->bbuf[m->roff + j])
				break;
		xt_fail("%s: message %d (%u bytes, %d SGEs): content differs at byte %zu "
			"(sent 0x%02x, got 0x%02x)", what, i, m->len, m->nsge, j,
			tmp[j], p->bbuf[m->roff + j]);
	}
	return m->len;
}

static void check_wc(const xib_wc *wc, uint64_t wr_id, uint32_t opcode,
		     const char *what, int i)
{
	if (wc->status != XIB_HCA_WC_SUCCESS)
		xt_fail("%s: message %d: completion status %s (%u), vendor_err %u",
			what, i, xt_status_str(wc->status), wc->status, wc->vendor_err);
	if (wc->wr_id != wr_id)
		xt_fail("%s: message %d: wr_id %llu, expected %llu", what, i,
			(unsigned long long)wc->wr_id, (unsigned long long)wr_id);
	if (wc->opcode != opcode)
		xt_fail("%s: message %d: wc opcode %u, expected %u", what, i,
			wc->opcode, opcode);
}

static void run_op(struct pair *p, int op, uint64_t target)
{
	struct xib_send_wr wr[MAX_MSGS], *bad;
	struct xib_sge sge[MAX_MSGS][3];
	xib_wc wc[MAX_MSGS];
	struct msg m[MAX_MSGS];
	uint64_t moved = 0, csum = 0, t0 = xt_now_ns();
	uint8_t *tmp = malloc(BUF_SIZE);
	const char *name = ops[op].name;
	unsigned int cycle;
	int n, i, k, ret;

	if (!tmp)
		xt_fail("out of memory");
	n = build_cycle(m, p->a.mtu);
	for (cycle = 0; moved < target || cycle < 2; cycle++) {
		uint64_t seed = (uint64_t)op << 32 | cycle;
		bool all_signaled = !(cycle & 1);
		int nsig = all_signaled ? n : 1;

		for (i = 0; i < n; i++) {
			if (op == OP_READ) {
				xt_pattern(p->bbuf + m[i].roff, m[i].len, seed + i);
				for (k = 0; k < m[i].nsge; k++)
					memset(p->abuf + m[i].loff[k], 0x5a, m[i].sge_len[k]);
			} else {
				for (k = 0; k < m[i].nsge; k++)
					xt_pattern(p->abuf + m[i].loff[k], m[i].sge_len[k],
						   seed + i * 3 + k);
				memset(p->bbuf + m[i].roff, 0x5a, m[i].len);
			}
		}
		if (ops[op].recv)
			post_recvs(p, m, n, op != OP_WRITE_IMM);
		for (i = 0; i < n; i++) {
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = (uint64_t)cycle << 8 | i;
			wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
			wr[i].opcode = ops[op].wr_opcode;
			wr[i].num_sge = m[i].nsge;
			wr[i].sg_list = sge[i];
			for (k = 0; k < m[i].nsge; k++) {
				sge[i][k].addr = (uintptr_t)p->abuf + m[i].loff[k];
				sge[i][k].length = m[i].sge_len[k];
				sge[i][k].lkey = p->amr->lkey;
			}
			if (all_signaled || i == n - 1)
				wr[i].send_flags = XIB_HCA_SEND_SIGNALED;
			wr[i].imm_data = htonl((uint32_t)(seed * 31 + i));
			wr[i].wr.rdma.remote_addr = (uintptr_t)p->bbuf + m[i].roff;
			wr[i].wr.rdma.rkey = p->bmr->rkey;
		}
		ret = xib_post_send(p->qa, &wr[0], &bad);
		if (ret)
			xt_fail("%s: post_send: %s (at WR %d)", name, strerror(ret),
				(int)(bad - wr));
		xt_wait(p->a.scq, wc, nsig, name);
		for (i = 0; i < nsig; i++) {
			int idx = all_signaled ? i : n - 1;

			check_wc(&wc[i], wr[idx].wr_id, ops[op].wc_opcode, name, idx);
		}
		if (ops[op].recv) {
			xt_wait(p->b.rcq, wc, n, name);
			for (i = 0; i < n; i++) {
				check_wc(&wc[i], 1000 + i, op == OP_WRITE_IMM ?
					 XIB_HCA_WC_RECV_RDMA_WITH_IMM : XIB_HCA_WC_RECV,
					 name, i);
				if (wc[i].byte_len != m[i].len)
					xt_fail("%s: message %d: byte_len %u, expected %u",
						name, i, wc[i].byte_len, m[i].len);
				if (wc[i].qp_num != p->qb->qpn)
					xt_fail("%s: message %d: qp_num %u, expected %u",
						name, i, wc[i].qp_num, p->qb->qpn);
				if (ops[op].imm != !!(wc[i].wc_flags & XIB_HCA_WC_WITH_IMM))
					xt_fail("%s: message %d: wc_flags 0x%x", name, i,
						wc[i].wc_flags);
				if (ops[op].imm && wc[i].imm_data != wr[i].imm_data)
					xt_fail("%s: message %d: imm_data 0x%08x, expected 0x%08x",
						name, i, ntohl(wc[i].imm_data),
						ntohl(wr[i].imm_data));
			}
		}
		if (xt_poll(p->a.scq, wc, 1, 0) || xt_poll(p->b.rcq, wc, 1, 0))
			xt_fail("%s: an unexpected extra completion (wr_id %llu, status %s)",
				name, (unsigned long long)wc[0].wr_id,
				xt_status_str(wc[0].status));
		for (i = 0; i < n; i++) {
			moved += verify_msg(p, &m[i], tmp, name, i);
			csum = xt_csum(p->bbuf + m[i].roff, m[i].len, csum);
		}
	}
	free(tmp);
	xt_info("%-9s %llu bytes in %u cycles verified (checksum %016llx), %.1f MB/s",
		name, (unsigned long long)moved, cycle, (unsigned long long)csum,
		moved / ((xt_now_ns() - t0) / 1e3 + 1));
}

/* Inline SENDs and WRITEs; the source changes right after the post. */
static void run_inline(struct pair *p)
{
	uint32_t sizes[] = { 0, 1, 17, 100, p->max_inline };
	uint8_t *src = p->abuf, *orig = malloc(p->max_inline + 1);
	struct xib_send_wr wr, *bad;
	struct xib_sge sge[2];
	xib_wc wc;
	unsigned int i, op;
	int ret;

	if (!orig)
		xt_fail("out of memory");
	for (op = 0; op < 2; op++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) + 1; i++) {
			bool two = i == sizeof(sizes) / sizeof(sizes[0]);
			uint32_t len = two ? p->max_inline : sizes[i];
			const char *what = op ? "inline write" : "inline send";

			xt_pattern(src, len, 77 + i + op * 100);
			memcpy(orig, src, len);
			memset(p->bbuf, 0x5a, len + 1);
			memset(&wr, 0, sizeof(wr));
			if (!op) {
				struct xib_recv_wr rwr = { .wr_id = 5, .num_sge = 1 },
						   *rbad;
				struct xib_sge rsge = { (uintptr_t)p->bbuf,
							len, p->bmr->lkey };

				rwr.sg_list = &rsge;
				ret = xib_post_recv(p->qb, &rwr, &rbad);
				xt_check(ret, "post_recv");
			}
			wr.wr_id = 9;
			wr.opcode = op ? XIB_HCA_WR_RDMA_WRITE : XIB_HCA_WR_SEND;
			wr.send_flags = XIB_HCA_SEND_INLINE | XIB_HCA_SEND_SIGNALED;
			wr.sg_list = sge;
			/* lkey is ignored for inline data: give a bad one */
			if (two) {
				sge[0] = (struct xib_sge){ (uintptr_t)src, len / 3, 0xdead };
				sge[1] = (struct xib_sge){ (uintptr_t)src + len / 3,
							   len - len / 3, 0xdead };
				wr.num_sge = 2;
			} else {
				sge[0] = (struct xib_sge){ (uintptr_t)src, len, 0xdead };
				wr.num_sge = 1;
			}
			wr.wr.rdma.remote_addr = (uintptr_t)p->bbuf;
			wr.wr.rdma.rkey = p->bmr->rkey;
			ret = xib_post_send(p->qa, &wr, &bad);
			if (ret)
				xt_fail("%s of %u bytes: post_send: %s", what, len, strerror(ret));
			memset(src, 0xee, len);
			xt_wait(p->a.scq, &wc, 1, what);
			check_wc(&wc, 9, op ? XIB_HCA_WC_RDMA_WRITE : XIB_HCA_WC_SEND, what, i);
			if (!op) {
				xt_wait(p->b.rcq, &wc, 1, what);
				check_wc(&wc, 5, XIB_HCA_WC_RECV, what, i);
				if (wc.byte_len != len)
					xt_fail("%s: byte_len %u, expected %u", what, wc.byte_len, len);
			}
			if (memcmp(p->bbuf, orig, len) || p->bbuf[len] != 0x5a)
				xt_fail("%s of %u bytes (%d SGEs): content differs", what, len,
					wr.num_sge);
		}
	}
	/* Above max_inline_data: the library refuses it (EINVAL). */
	sge[0] = (struct xib_sge){ (uintptr_t)src, p->max_inline + 1, 0 };
	wr.num_sge = 1;
	wr.opcode = XIB_HCA_WR_SEND;
	ret = xib_post_send(p->qa, &wr, &bad);
	if (ret != EINVAL)
		xt_fail("inline send above max_inline_data: post_send returned %d, not EINVAL",
			ret);
	free(orig);
	xt_info("inline    sends and writes of 0..%u bytes verified", p->max_inline);
}

/* Wait up to @ms for a completion event on @s's channel; true if one came. */
static bool cq_event(struct xt_side *s, int ms)
{
	struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
	uint64_t handle;

	if (poll(&pfd, 1, ms) != 1)
		return false;
	xt_check(xib_get_cq_event(s->ch, &handle), "get_cq_event");
	if (handle != 2)
		xt_fail("completion event for CQ user_handle %llu, expected 2",
			(unsigned long long)handle);
	return true;
}

static void send_one(struct pair *p, uint32_t flags, uint32_t len)
{
	struct xib_sge sge = { (uintptr_t)p->abuf, len, p->amr->lkey };
	struct xib_sge rsge = { (uintptr_t)p->bbuf, len, p->bmr->lkey };
	struct xib_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct xib_send_wr wr, *bad;
	xib_wc wc;

	xt_check(xib_post_recv(p->qb, &rwr, &rbad), "post_recv");
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_SIGNALED | flags;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	xt_check(xib_post_send(p->qa, &wr, &bad), "post_send");
	xt_wait(p->a.scq, &wc, 1, "send for events");
	check_wc(&wc, 4, XIB_HCA_WC_SEND, "send for events", 0);
}

/* Completion channel and arming (ibv_req_notify_cq semantics). */
static void run_events(struct pair *p)
{
	xib_wc wc;

	/* armed NEXT: one event */
	xt_check(xib_req_notify_cq(p->b.rcq, 0), "req_notify_cq");
	send_one(p, 0, 100);
	if (!cq_event(&p->b, 10000))
		xt_fail("armed CQ: no completion event within 10 s");
	xt_wait(p->b.rcq, &wc, 1, "receive after the event");
	/* not re-armed: no event */
	send_one(p, 0, 100);
	xt_wait(p->b.rcq, &wc, 1, "receive, CQ not armed");
	if (cq_event(&p->b, 300))
		xt_fail("a completion event without arming");
	/* armed SOLICITED: an unsolicited SEND does not fire, a solicited one does */
	xt_check(xib_req_notify_cq(p->b.rcq, 1), "req_notify_cq solicited");
	send_one(p, 0, 10);
	xt_wait(p->b.rcq, &wc, 1, "unsolicited receive");
	if (cq_event(&p->b, 300))
		xt_fail("armed SOLICITED: an unsolicited SEND fired an event");
	send_one(p, XIB_HCA_SEND_SOLICITED, 10);
	if (!cq_event(&p->b, 10000))
		xt_fail("armed SOLICITED: a solicited SEND fired no event");
	xt_wait(p->b.rcq, &wc, 1, "solicited receive");
	/* armed twice before two CQEs: one event */
	xt_check(xib_req_notify_cq(p->b.rcq, 0), "req_notify_cq");
	xt_check(xib_req_notify_cq(p->b.rcq, 0), "req_notify_cq twice");
	send_one(p, 0, 10);
	send_one(p, 0, 10);
	if (!cq_event(&p->b, 10000))
		xt_fail("armed twice: no event");
	xt_wait(p->b.rcq, &wc, 1, "receive");
	xt_wait(p->b.rcq, &wc, 1, "receive");
	if (cq_event(&p->b, 300))
		xt_fail("armed twice, two CQEs: more than one event");
	xt_info("events    armed NEXT/SOLICITED fire once; unarmed do not");
}

/* A second pair whose receiver takes its receive WQEs from an SRQ. */
static void run_srq(struct pair *p)
{
	const int n = 48;
	struct xib_srq *srq;
	struct xib_qp *qa, *qb;
	struct xib_recv_wr rwr, *rbad;
	struct xib_send_wr wr, *bad;
	struct xib_sge sge, rsge;
	xib_wc wc;
	int i;

	xt_check(xib_create_srq(p->b.pd, 16, 1, 0, 7, &srq), "create_srq");
	if (srq->max_wr < 16)
		xt_fail("create_srq granted max_wr %u < 16", srq->max_wr);
	qa = xt_create_qp(&p->a, XIB_QPT_RC, 16, 1, 0, NULL);
	qb = xt_create_qp(&p->b, XIB_QPT_RC, 16, 1, 0, srq);
	xt_rc_connect(qa, &p->a, qb->qpn, &p->b, 0);
	xt_rc_connect(qb, &p->b, qa->qpn, &p->a, 0);
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (xib_post_recv(qb, &rwr, &rbad) != EINVAL)
		xt_fail("post_recv on a QP with an SRQ was not refused");
	for (i = 0; i < n; i++) {
		uint32_t len = (i * 977) % 8193;
		size_t slot = (size_t)(i % 16) * 8192;

		rwr.wr_id = 500 + i;
		rsge = (struct xib_sge){ (uintptr_t)p->bbuf + slot, 8192, p->bmr->lkey };
		memset(p->bbuf + slot, 0x5a, 8192);
		xt_check(xib_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv");
		xt_pattern(p->abuf, len, 900 + i);
		sge = (struct xib_sge){ (uintptr_t)p->abuf, len, p->amr->lkey };
		wr.wr_id = i;
		xt_check(xib_post_send(qa, &wr, &bad), "post_send");
		xt_wait(p->a.scq, &wc, 1, "SRQ send");
		check_wc(&wc, i, XIB_HCA_WC_SEND, "SRQ send", i);
		xt_wait(p->b.rcq, &wc, 1, "SRQ receive");
		check_wc(&wc, 500 + i, XIB_HCA_WC_RECV, "SRQ receive", i);
		if (wc.byte_len != len || wc.qp_num != qb->qpn ||
		    memcmp(p->abuf, p->bbuf + slot, len))
			xt_fail("SRQ receive %d: byte_len %u (expected %u), qp_num %u "
				"(expected %u) or content wrong", i, wc.byte_len, len,
				wc.qp_num, qb->qpn);
	}
	xt_check(xib_destroy_qp(qa), "destroy_qp");
	xt_check(xib_destroy_qp(qb), "destroy_qp");
	xt_check(xib_destroy_srq(srq), "destroy_srq");
	xt_info("srq       %d SENDs received through an SRQ verified", n);
}

/*
 * A polled completion frees the send queue slots of its WR and of the
 * unsignaled WRs before it (that is how every verbs application counts
 * its outstanding WRs): fill the queue, wait for the last completion, and
 * refill it at once, many times.
 */
static void run_refill(struct pair *p, unsigned int rounds)
{
	const uint32_t depth = p->qa->cap.max_send_wr;
	struct xib_sge sge = { (uintptr_t)p->abuf, 8, p->amr->lkey };
	struct xib_send_wr wr, *bad;
	unsigned int round;
	uint32_t i;
	xib_wc wc;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)p->bbuf;
	wr.wr.rdma.rkey = p->bmr->rkey;
	for (round = 0; round < rounds * 4; round++) {
		for (i = 0; i < depth; i++) {
			wr.wr_id = i;
			wr.send_flags = i == depth - 1 ? XIB_HCA_SEND_SIGNALED : 0;
			ret = xib_post_send(p->qa, &wr, &bad);
			if (ret == ENOMEM)
				xt_fail("refill round %u: post_send ENOMEM at WR %u of %u although "
					"every earlier WR completed (the send queue's cons is "
					"published after the CQE)", round, i, depth);
			xt_check(ret, "post_send");
		}
		xt_wait(p->a.scq, &wc, 1, "refill");
		check_wc(&wc, depth - 1, XIB_HCA_WC_RDMA_WRITE, "refill", round);
	}
	/* the same for the receive queue */
	for (round = 0; round < rounds; round++) {
		struct xib_sge rsge = { (uintptr_t)p->bbuf, 8, p->bmr->lkey };
		struct xib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
		uint32_t rdepth = p->qb->cap.max_recv_wr;

		for (i = 0; i < rdepth; i++) {
			rwr.wr_id = i;
			ret = xib_post_recv(p->qb, &rwr, &rbad);
			if (ret == ENOMEM)
				xt_fail("refill round %u: post_recv ENOMEM at WR %u of %u although "
					"every earlier receive completed (the receive queue's "
					"cons is published after the CQE)", round, i, rdepth);
			xt_check(ret, "post_recv");
		}
		wr.opcode = XIB_HCA_WR_SEND;
		for (i = 0; i < rdepth; i++) {
			wr.wr_id = i;
			wr.send_flags = i == rdepth - 1 || (i + 1) % depth == 0 ?
					XIB_HCA_SEND_SIGNALED : 0;
			xt_check(xib_post_send(p->qa, &wr, &bad), "post_send");
			if (wr.send_flags)
				xt_wait(p->a.scq, &wc, 1, "refill send");
		}
		for (i = 0; i < rdepth; i++) {
			xt_wait(p->b.rcq, &wc, 1, "refill receive");
			check_wc(&wc, i, XIB_HCA_WC_RECV, "refill receive", i);
		}
	}
	xt_info("refill    send and receive queues refilled at once after their "
		"completions");
}

/* Sustained load: @count WRs (0: forever) of @size bytes. */
static void run_bench(struct pair *p, uint64_t count, uint32_t size, bool send)
{
	const uint32_t depth = p->qa->cap.max_send_wr, batch = 16;
	uint64_t posted = 0, done = 0, recv_posted = 0, recv_done = 0;
	uint64_t t0 = xt_now_ns(), wait_start;
	struct xib_send_wr wr, *bad;
	struct xib_recv_wr rwr, *rbad;
	unsigned long spins;
	uint64_t enomem = 0;
	struct xib_sge sge, rsge;
	struct xib_stats st;
	xib_wc wc[64];
	bool ready = false;
	int i, n, ret;

	sge = (struct xib_sge){ (uintptr_t)p->abuf, size, p->amr->lkey };
	rsge = (struct xib_sge){ (uintptr_t)p->bbuf, size, p->bmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = send ? XIB_HCA_WR_SEND : XIB_HCA_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)p->bbuf;
	wr.wr.rdma.rkey = p->bmr->rkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	while (!count || done < count) {
		if (send) {
			while (recv_posted - recv_done < p->qb->cap.max_recv_wr &&
			       (!count || recv_posted < count)) {
				ret = xib_post_recv(p->qb, &rwr, &rbad);
				if (ret)
					xt_fail("post_recv: %s", strerror(ret));
				recv_posted++;
			}
		}
		while (posted - done + batch <= depth && (!count || posted < count) &&
		       (!send || posted + batch <= recv_posted)) {
			for (i = 0; i < (int)batch; i++) {
				wr.wr_id = posted;
				wr.send_flags = i == (int)batch - 1 ? XIB_HCA_SEND_SIGNALED : 0;
				/*
				 * ENOMEM although the completions say there is
				 * room: the HCA published cons after the CQE
				 * (run_refill checks that); count and retry.
				 */
				while ((ret = xib_post_send(p->qa, &wr, &bad)) == ENOMEM)
					enomem++;
				if (ret)
					xt_fail("post_send: %s after %llu WRs", strerror(ret),
						(unsigned long long)posted);
				posted++;
			}
		}
		/*
		 * Spin without system calls (clock_gettime is one in a VM
		 * without a vDSO clocksource): look at the clock rarely.
		 */
		wait_start = 0;
		for (spins = 0; (n = xib_poll_cq(p->a.scq, 64, wc)) == 0; spins++) {
			uint64_t now;

			if ((spins & 0xfffff) != 0xfffff)
				continue;
			now = xt_now_ns();
			if (!wait_start)
				wait_start = now;
			else if (now - wait_start > 30000000000ull)
				xt_fail("no completion within 30 s after %llu of %llu WRs",
					(unsigned long long)done,
					(unsigned long long)posted);
		}
		if (n < 0)
			xt_fail("poll_cq: %s", strerror(-n));
		for (i = 0; i < n; i++) {
			if (wc[i].status)
				xt_fail("WR %llu completed with %s",
					(unsigned long long)wc[i].wr_id,
					xt_status_str(wc[i].status));
			done = wc[i].wr_id + 1;
		}
		if (send) {
			while ((n = xib_poll_cq(p->b.rcq, 64, wc)) > 0) {
				for (i = 0; i < n; i++)
					if (wc[i].status)
						xt_fail("receive completed with %s",
							xt_status_str(wc[i].status));
				recv_done += n;
			}
		}
		if (!count && !ready && done >= 1024) {
			printf("READY\n");
			fflush(stdout);
			ready = true;
		}
	}
	xib_get_stats(&st);
	xt_info("wrs %llu size %u op %s posted %llu kicks %llu seconds %.3f enomem_retries %llu",
		(unsigned long long)done, size, send ? "send" : "write",
		(unsigned long long)st.posted_send, (unsigned long long)st.kicks,
		(xt_now_ns() - t0) / 1e9, (unsigned long long)enomem);
}

/* -x: the peer goes away; RETRY_EXC_ERR in time, the rest flushed. */
static void run_exhaust(struct pair *p, const char *cmd, const char *after)
{
	const double t_ms = 4.096e-3 * (1 << 14);	/* timeout 14 */
	const double lo = 8 * t_ms, hi = 32 * t_ms + 2000;
	struct xib_send_wr wr[8], *bad;
	struct xib_sge sge[8];
	xib_wc wc[8];
	uint64_t t0;
	double ms;
	int i, got, ret;

	ret = system(cmd);
	if (ret)
		xt_fail("-x: '%s' exited with %d", cmd, ret);
	for (i = 0; i < 8; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 500 + i;
		wr[i].next = i + 1 < 8 ? &wr[i + 1] : NULL;
		wr[i].opcode = XIB_HCA_WR_SEND;
		wr[i].num_sge = 1;
		wr[i].sg_list = &sge[i];
		wr[i].send_flags = XIB_HCA_SEND_SIGNALED;
		sge[i].addr = (uintptr_t)p->abuf + i * 4096;
		sge[i].length = 4096;
		sge[i].lkey = p->amr->lkey;
	}
	t0 = xt_now_ns();
	ret = xib_post_send(p->qa, &wr[0], &bad);
	if (ret)
		xt_fail("-x: post_send: %s", strerror(ret));
	got = xt_poll(p->a.scq, wc, 1, 60000);
	ms = (xt_now_ns() - t0) / 1e6;
	if (got != 1)
		xt_fail("-x: no completion within 60 s of the peer going away");
	if (wc[0].status != XIB_HCA_WC_RETRY_EXC_ERR || wc[0].wr_id != 500)
		xt_fail("-x: first completion wr_id %llu status %s, expected 500 RETRY_EXC_ERR",
			(unsigned long long)wc[0].wr_id, xt_status_str(wc[0].status));
	xt_info("RETRY_EXC_ERR after %.0f ms (timeout 14: T = %.1f ms, retry_cnt 7: "
		"expected 8T..32T = %.0f..%.0f ms, + 2000 ms of slack)",
		ms, t_ms, lo, 32 * t_ms);
	if (ms < lo * 0.95 || ms > hi)
		xt_fail("-x: RETRY_EXC_ERR after %.0f ms, outside %.0f..%.0f ms", ms,
			lo * 0.95, hi);
	got = xt_poll(p->a.scq, wc, 7, 10000);
	if (got != 7)
		xt_fail("-x: %d of the 7 other WRs completed", got);
	for (i = 0; i < 7; i++)
		if (wc[i].status != XIB_HCA_WC_WR_FLUSH_ERR ||
		    wc[i].wr_id != (uint64_t)501 + i)
			xt_fail("-x: completion %d: wr_id %llu status %s, expected %d WR_FLUSH_ERR",
				i + 1, (unsigned long long)wc[i].wr_id,
				xt_status_str(wc[i].status), 501 + i);
	if (xt_poll(p->a.scq, wc, 1, 100))
		xt_fail("-x: an extra completion");
	if (xt_qp_state(p->qa) != XIB_QPS_ERR)
		xt_fail("-x: QP state %u, expected ERR", xt_qp_state(p->qa));
	xt_info("the other 7 WRs: WR_FLUSH_ERR, in order; QP in ERR");
	if (after) {
		ret = system(after);
		if (ret)
			xt_fail("-X: '%s' exited with %d", after, ret);
	}
}

/* -E: @n armed completions, nobody reading the channel meanwhile. */
static void run_unread_events(struct pair *p, unsigned int n)
{
	const char *param = "/sys/module/xib_uverbs/parameters/max_events_per_queue";
	unsigned int i, cap, want, got = 0;
	xib_wc wc;
	FILE *f;

	f = fopen(param, "r");
	if (!f || fscanf(f, "%u", &cap) != 1)
		xt_fail("-E: cannot read %s", param);
	fclose(f);
	for (i = 0; i < n; i++) {
		xt_check(xib_req_notify_cq(p->b.rcq, 0), "req_notify_cq");
		send_one(p, 0, 8);
		xt_wait(p->b.rcq, &wc, 1, "receive of an armed CQ");
	}
	while (cq_event(&p->b, got ? 200 : 5000))
		got++;
	want = n < cap ? n : cap;
	xt_info("unread    %u armed completions, limit %u: %u events (expected %u)",
		n, cap, got, want);
	if (got != want)
		xt_fail("-E: %u completion events, expected %u", got, want);
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_rc_test [-d DEV] [-D DEV2] [-g IDX] [-G IDX] "
		"[-t BYTES] [-o send,send_imm,write,write_imm,read] [-q]\n"
		"       xib_rc_test -b WRS [-O write|send] [-s SIZE] [-d DEV] [-D DEV2]\n"
		"       xib_rc_test -x CMD [-X CMD2] [-d DEV] [-D DEV2]\n"
		"       xib_rc_test -E N [-d DEV] [-D DEV2]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL, *oplist = NULL;
	const char *exhaust = NULL, *after = NULL;
	int gid_a = -1, gid_b = -1, c, op;
	uint64_t target = 64u << 20, bench = 0;
	bool do_bench = false, bench_send = false;
	uint32_t size = 64;
	unsigned int refill_rounds = 50, unread = 0;
	struct pair p;

	xt_prog = "xib_rc_test";
	while ((c = getopt(argc, argv, "d:D:g:G:t:o:b:O:s:x:X:E:qv")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		case 'g': gid_a = atoi(optarg); break;
		case 'G': gid_b = atoi(optarg); break;
		case 't': target = xt_parse_size(optarg); break;
		case 'o': oplist = optarg; break;
		case 'b': bench = xt_parse_size(optarg); do_bench = true; break;
		case 'O': bench_send = !strcmp(optarg, "send"); break;
		case 's': size = xt_parse_size(optarg); break;
		case 'q': refill_rounds = 5; break;
		case 'x': exhaust = optarg; break;
		case 'X': after = optarg; break;
		case 'E': unread = atoi(optarg); break;
		case 'v': xt_verbose++; break;
		default: usage();
		}
	}
	if (optind != argc || size > BUF_SIZE)
		usage();
	if (do_bench) {
		open_pair(&p, dev_a, dev_b, gid_a, gid_b, 1024, 1);
		run_bench(&p, bench, size, bench_send);
		close_pair(&p);
		return 0;
	}
	open_pair(&p, dev_a, dev_b, gid_a, gid_b, 64, 3);
	if (exhaust || unread) {
		if (exhaust)
			run_exhaust(&p, exhaust, after);
		else
			run_unread_events(&p, unread);
		close_pair(&p);
		xt_info("PASS");
		return 0;
	}
	for (op = 0; op < OP_N; op++) {
		if (oplist) {
			char *l = strdup(oplist), *tok, *save = NULL;
			bool found = false;

			for (tok = strtok_r(l, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				found |= !strcmp(tok, ops[op].name);
			free(l);
			if (!found)
				continue;
		}
		run_op(&p, op, target);
	}
	run_inline(&p);
	run_refill(&p, refill_rounds);
	run_events(&p);
	run_srq(&p);
	close_pair(&p);
	xt_info("PASS");
	return 0;
}
