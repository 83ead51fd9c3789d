// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_uc_test: move data between two UC QPs and check every byte.
 *
 *   xib_uc_test [-d DEV] [-D DEV2] [-g IDX] [-G IDX] [-r ROUNDS]
 *               [-M BYTES] [-L N] [-m MSGS] [-v]
 *
 * Without -D both QPs are on DEV (loopback); with -D the second QP is on
 * DEV2.  -g/-G pick the source GID index on each side.
 *
 * 1. Every UC opcode (SEND, SEND_WITH_IMM, RDMA WRITE, RDMA WRITE WITH
 *    IMM) with messages of 0, 1, MTU, MTU+1 and BYTES (default 1 MiB)
 *    bytes, ROUNDS times (default 2): each completion is checked (status, opcode, wr_id,
 *    byte_len, immediate data) and each message's checksum compared with
 *    the sender's.  Plain WRITEs are followed by a SEND: UC keeps order,
 *    so its arrival says the WRITEs before it were placed.
 * 2. What UC refuses or drops: RTR with max_dest_rd_atomic and RTS with
 *    timeout or retry_cnt are EINVAL (the IBTA UC rows); a SEND longer
 *    than the receive WQE completes it with LOC_LEN_ERR and the QP stays
 *    in RTS; a WRITE WITH IMM with a bad R_Key is dropped silently (no
 *    completion) and the QP stays in RTS; the next messages arrive whole.
 *    An RDMA READ posted on a UC QP completes with LOC_QP_OP_ERR and takes
 *    that QP to SQE (a UC send error), from which modify_qp returns it to RTS.
 * 3. With -L N: xib_hca's tx_loss (debugfs) is set to N (one sent packet in N is
 *    lost) and MSGS messages (default 300) of 1 to 4 packets, SENDs,
 *    SENDs with immediate and WRITEs with immediate in turn, each
 *    carrying a header with its sequence number, length and payload
 *    checksum, are sent in batches no larger than the posted receive
 *    WQEs.  Every message that completes on the receiver must be whole
 *    and correct, in order, each at most once; some must be lost and
 *    some delivered.  Then tx_loss goes back to 0 and a clean batch on
 *    the same QPs must arrive complete.
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "xib_test.h"

#define BUF_SIZE	(8u << 20)
#define ONE_MIB		(1u << 20)
#define NSLOT		64		/* receive WQEs kept posted (loss mode) */
#define SLOT_SIZE	(64u << 10)
#define WSLOT_OFF	(4u << 20)	/* WRITE targets in B's buffer */
#define MR_ACCESS	(XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE)
#define LOSS_PARAM	"/sys/kernel/debug/xib_hca/tx_loss"
#define HDR_MAGIC	0x55434d31u	/* "UCM1" */

/*
 * The largest message of phase 1 (-M).  UC has no flow control: a 1 MiB
 * message is a burst of 1024 packets at MTU 1024, which the debug
 * kernel's receiving CPU cannot always take before its backlog
 * (netdev_max_backlog, 1000) overflows; a lost packet loses the message.
 */
static uint32_t big = ONE_MIB;

struct pair {
	struct xt_side a, b;
	struct xib_qp *qa, *qb;
	uint8_t *abuf, *bbuf;
	struct xib_mr *amr, *bmr;
};

enum { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_N };

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
};

/* The header each message of the loss phase starts with. */
struct msg_hdr {
	uint32_t magic;
	uint32_t seq;
	uint32_t len;		/* the whole message, header included */
	uint32_t reserved;
	uint64_t csum;		/* of the payload after the header */
};

static void usage(void)
{
	fprintf(stderr, "usage: xib_uc_test [-d DEV] [-D DEV2] [-g IDX] [-G IDX] "
		"[-r ROUNDS] [-M BYTES] [-L N] [-m MSGS] [-v]\n");
	exit(2);
}

static void set_loss(unsigned int n)
{
	FILE *f = fopen(LOSS_PARAM, "w");

	/* "ip netns exec" gives us a fresh /sys without debugfs: mount it */
	if (!f && errno == ENOENT &&
	    !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		f = fopen(LOSS_PARAM, "w");

	if (!f || fprintf(f, "%u\n", n) < 0 || fclose(f))
		xt_fail("cannot set %s to %u: %s", LOSS_PARAM, n, strerror(errno));
}

static void uc_connect(struct xib_qp *qp, const struct xt_side *s, uint32_t rqpn,
		       const struct xt_side *rs, uint32_t psn)
{
	struct xib_uverbs_qp_attr a;
	uint32_t mtu = s->mtu_enum < rs->mtu_enum ? s->mtu_enum : rs->mtu_enum;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = XIB_ACCESS_REMOTE_WRITE;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX |
			       XIB_QP_PORT | XIB_QP_ACCESS_FLAGS), "modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = rqpn;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 1;
	xt_fill_av(&a.ah_attr, s, rs);
	/* the IBTA's UC row has no responder resources */
	if (xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			  XIB_QP_DEST_QPN | XIB_QP_RQ_PSN |
			  XIB_QP_MAX_DEST_RD_ATOMIC) != -EINVAL)
		xt_fail("UC RTR with max_dest_rd_atomic was not refused with EINVAL");
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			       XIB_QP_DEST_QPN | XIB_QP_RQ_PSN), "modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	/* no ACK timeout, no retries */
	if (xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT) != -EINVAL ||
	    xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_RETRY_CNT) != -EINVAL)
		xt_fail("UC RTS with timeout or retry_cnt was not refused with EINVAL");
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN), "modify_qp RTS");
}

static void open_pair(struct pair *p, const char *dev_a, const char *dev_b,
		      int gid_a, int gid_b)
{
	struct xib_context *ca, *cb;

	memset(p, 0, sizeof(*p));
	xt_check(xib_open(dev_a, &ca), dev_a);
	if (dev_b)
		xt_check(xib_open(dev_b, &cb), dev_b);
	else
		cb = ca;
	xt_side_open(&p->a, ca, gid_a, 256);
	xt_side_open(&p->b, cb, gid_b, 256);
	p->qa = xt_create_qp(&p->a, XIB_QPT_UC, 128, 1, 0, NULL);
	p->qb = xt_create_qp(&p->b, XIB_QPT_UC, 128, 1, 0, NULL);
	/* different PSNs each way: nothing depends on them matching */
	uc_connect(p->qa, &p->a, p->qb->qpn, &p->b, 0xfffff0);
	uc_connect(p->qb, &p->b, p->qa->qpn, &p->a, 0x77);
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
	xt_info("UC QP %u on %s (GID index %u) <-> QP %u on %s (GID index %u), MTU %u",
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

static void post_recv(struct pair *p, uint64_t wr_id, size_t off, uint32_t len)
{
	struct xib_recv_wr wr, *bad;
	struct xib_sge sge;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	sge.addr = (uintptr_t)p->bbuf + off;
	sge.length = len;
	sge.lkey = p->bmr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = xib_post_recv(p->qb, &wr, &bad);
	if (ret)
		xt_fail("post_recv: %s", strerror(ret));
}

/* Post one send WR from A's buffer at @loff; @roff: WRITE target in B's. */
static void post_send(struct pair *p, uint32_t opcode, uint64_t wr_id, size_t loff,
		      uint32_t len, size_t roff, uint32_t rkey, uint32_t imm)
{
	struct xib_send_wr wr, *bad;
	struct xib_sge sge;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = opcode;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	sge.addr = (uintptr_t)p->abuf + loff;
	sge.length = len;
	sge.lkey = p->amr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = (uintptr_t)p->bbuf + roff;
	wr.wr.rdma.rkey = rkey;
	ret = xib_post_send(p->qa, &wr, &bad);
	if (ret)
		xt_fail("post_send: %s", strerror(ret));
}

static void check_wc(const xib_wc *wc, uint64_t wr_id, uint32_t opcode,
		     const char *what)
{
	if (wc->status != XIB_HCA_WC_SUCCESS)
		xt_fail("%s: completion status %s (%u)", what,
			xt_status_str(wc->status), wc->status);
	if (wc->wr_id != wr_id)
		xt_fail("%s: wr_id %llu, expected %llu", what,
			(unsigned long long)wc->wr_id, (unsigned long long)wr_id);
	if (wc->opcode != opcode)
		xt_fail("%s: wc opcode %u, expected %u", what, wc->opcode, opcode);
}

static void expect_rts(struct pair *p, const char *what)
{
	if (xt_qp_state(p->qa) != XIB_QPS_RTS || xt_qp_state(p->qb) != XIB_QPS_RTS)
		xt_fail("%s: QP states %u and %u, expected RTS", what,
			xt_qp_state(p->qa), xt_qp_state(p->qb));
}

static void expect_no_more(struct pair *p, const char *what)
{
	xib_wc wc;

	if (xt_poll(p->a.scq, &wc, 1, 0) || xt_poll(p->b.rcq, &wc, 1, 50))
		xt_fail("%s: an unexpected extra completion (wr_id %llu, status %s)",
			what, (unsigned long long)wc.wr_id, xt_status_str(wc.status));
}

/* --- 1. every opcode, every size -------------------------------------- */

static void run_op(struct pair *p, int op, unsigned int round)
{
	const uint32_t sizes[5] = { 0, 1, p->a.mtu, p->a.mtu + 1, big };
	const char *name = ops[op].name;
	char what[64];
	xib_wc wc;
	int i;

	for (i = 0; i < 5; i++) {
		uint32_t len = sizes[i];
		uint64_t seed = (uint64_t)round << 40 | (uint64_t)op << 32 | i;
		uint32_t imm = (uint32_t)(seed * 2654435761u);

		snprintf(what, sizeof(what), "%s %u bytes", name, len);
		xt_pattern(p->abuf, len, seed);
		memset(p->bbuf, 0x5a, len + 64);
		memset(p->bbuf + WSLOT_OFF, 0x5a, len + 64);
		if (ops[op].recv)
			post_recv(p, 500 + i, 0, big);
		post_send(p, ops[op].wr_opcode, 100 + i, 0, len, WSLOT_OFF,
			  p->bmr->rkey, imm);
		xt_wait(p->a.scq, &wc, 1, what);
		check_wc(&wc, 100 + i, ops[op].wc_opcode, what);
		if (op == OP_WRITE) {
			/* a SEND behind it: UC is ordered */
			post_recv(p, 600, 0, 64);
			post_send(p, XIB_HCA_WR_SEND, 700, 0, 0, 0, 0, 0);
			xt_wait(p->a.scq, &wc, 1, what);
			check_wc(&wc, 700, XIB_HCA_WC_SEND, what);
			xt_wait(p->b.rcq, &wc, 1, what);
			check_wc(&wc, 600, XIB_HCA_WC_RECV, what);
		} else {
			xt_wait(p->b.rcq, &wc, 1, what);
			check_wc(&wc, 500 + i, op == OP_WRITE_IMM ?
				 XIB_HCA_WC_RECV_RDMA_WITH_IMM : XIB_HCA_WC_RECV, what);
			if (wc.byte_len != len)
				xt_fail("%s: byte_len %u", what, wc.byte_len);
			if (wc.qp_num != p->qb->qpn || wc.src_qp != p->qa->qpn)
				xt_fail("%s: qp_num %u src_qp %u", what, wc.qp_num, wc.src_qp);
			if (ops[op].imm != !!(wc.wc_flags & XIB_HCA_WC_WITH_IMM) ||
			    (ops[op].imm && ntohl(wc.imm_data) != imm))
				xt_fail("%s: wc_flags 0x%x imm 0x%08x, expected imm 0x%08x",
					what, wc.wc_flags, ntohl(wc.imm_data), imm);
		}
		if (xt_csum(p->abuf, len, 0) !=
		    xt_csum(p->bbuf + (ops[op].wr_opcode == XIB_HCA_WR_SEND ||
				       ops[op].wr_opcode == XIB_HCA_WR_SEND_WITH_IMM ?
				       0 : WSLOT_OFF), len, 0))
			xt_fail("%s: the data differs", what);
		/* nothing past the message was written */
		if (p->bbuf[len] != 0x5a || p->bbuf[WSLOT_OFF + len] != 0x5a)
			xt_fail("%s: a byte past the message was written", what);
		expect_no_more(p, what);
	}
}

/* --- 2. what UC refuses or drops --------------------------------------- */

static void run_errors(struct pair *p)
{
	struct xib_qp *qc;
	xib_wc wc;

	/* a SEND longer than the receive WQE: LOC_LEN_ERR, still RTS */
	xt_pattern(p->abuf, 3 * p->a.mtu, 42);
	post_recv(p, 800, 0, p->a.mtu);
	post_send(p, XIB_HCA_WR_SEND, 801, 0, 3 * p->a.mtu, 0, 0, 0);
	xt_wait(p->a.scq, &wc, 1, "long send");
	check_wc(&wc, 801, XIB_HCA_WC_SEND, "long send");
	xt_wait(p->b.rcq, &wc, 1, "long send");
	if (wc.wr_id != 800 || wc.status != XIB_HCA_WC_LOC_LEN_ERR)
		xt_fail("long send: receive wr_id %llu status %s, expected LOC_LEN_ERR",
			(unsigned long long)wc.wr_id, xt_status_str(wc.status));
	expect_rts(p, "long send");

	/* a WRITE WITH IMM with a bad R_Key: dropped, no completion, RTS */
	post_recv(p, 810, 0, 4096);
	post_send(p, XIB_HCA_WR_RDMA_WRITE_WITH_IMM, 811, 0, 2 * p->a.mtu,
		  WSLOT_OFF, p->bmr->rkey ^ 0x100, 7);
	xt_wait(p->a.scq, &wc, 1, "bad rkey");
	check_wc(&wc, 811, XIB_HCA_WC_RDMA_WRITE, "bad rkey");
	/* a WRITE WITH IMM past the MR's end: likewise */
	post_send(p, XIB_HCA_WR_RDMA_WRITE_WITH_IMM, 812, 0, 2 * p->a.mtu,
		  BUF_SIZE - p->a.mtu, p->bmr->rkey, 8);
	xt_wait(p->a.scq, &wc, 1, "out of bounds");
	check_wc(&wc, 812, XIB_HCA_WC_RDMA_WRITE, "out of bounds");
	/* the next message takes the receive WQE the dropped ones did not */
	post_send(p, XIB_HCA_WR_SEND, 813, 0, 100, 0, 0, 0);
	xt_wait(p->a.scq, &wc, 1, "send after drops");
	xt_wait(p->b.rcq, &wc, 1, "send after drops");
	check_wc(&wc, 810, XIB_HCA_WC_RECV, "send after drops");
	if (wc.byte_len != 100 || xt_csum(p->abuf, 100, 0) != xt_csum(p->bbuf, 100, 0))
		xt_fail("send after drops: %u bytes or the data differ", wc.byte_len);
	expect_rts(p, "dropped writes");
	expect_no_more(p, "dropped writes");

	/* RDMA READ has no UC opcode: LOC_QP_OP_ERR, on a QP of its own */
	qc = xt_create_qp(&p->a, XIB_QPT_UC, 4, 1, 0, NULL);
	uc_connect(qc, &p->a, p->qb->qpn, &p->b, 5);
	{
		struct xib_send_wr wr, *bad;
		struct xib_sge sge = { (uintptr_t)p->abuf, 64, p->amr->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 820;
		wr.opcode = XIB_HCA_WR_RDMA_READ;
		wr.send_flags = XIB_HCA_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)p->bbuf;
		wr.wr.rdma.rkey = p->bmr->rkey;
		xt_check(xib_post_send(qc, &wr, &bad), "post READ on UC");
	}
	xt_wait(p->a.scq, &wc, 1, "READ on UC");
	if (wc.wr_id != 820 || wc.status != XIB_HCA_WC_LOC_QP_OP_ERR)
		xt_fail("READ on UC: wr_id %llu status %s, expected LOC_QP_OP_ERR",
			(unsigned long long)wc.wr_id, xt_status_str(wc.status));
	/* a UC send error takes the QP to SQE, not ERR; SQE -> RTS is allowed */
	{
		uint64_t deadline = xt_now_ns() + 3000000000ull;
		struct xib_uverbs_qp_attr attr;

		while (xt_qp_state(qc) != XIB_QPS_SQE && xt_now_ns() < deadline)
			usleep(10000);
		if (xt_qp_state(qc) != XIB_QPS_SQE)
			xt_fail("READ on UC: QP state %u, expected SQE", xt_qp_state(qc));
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = XIB_QPS_RTS;
		xt_check(xib_modify_qp(qc, &attr, XIB_QP_STATE), "modify_qp SQE -> RTS");
		if (xt_qp_state(qc) != XIB_QPS_RTS)
			xt_fail("after SQE -> RTS: state %u", xt_qp_state(qc));
	}
	xt_check(xib_destroy_qp(qc), "destroy_qp");
	expect_rts(p, "READ on another QP");
	xt_info("errors: long SEND -> LOC_LEN_ERR, bad R_Key and bounds dropped, "
		"READ -> LOC_QP_OP_ERR and SQE, SQE -> RTS; the other QPs still RTS");
}

/* --- 3. under loss ------------------------------------------------------ */

static size_t slot_off(unsigned int slot)
{
	return (size_t)slot * SLOT_SIZE;
}

/* Message @seq in A's buffer at @loff; returns its length. */
static uint32_t build_msg(struct pair *p, size_t loff, uint32_t seq)
{
	struct msg_hdr h;
	uint32_t max = 4 * p->a.mtu;
	uint32_t len = sizeof(h) + (uint32_t)(((uint64_t)seq * 2654435761u) %
					      (max - sizeof(h) + 1));

	xt_pattern(p->abuf + loff + sizeof(h), len - sizeof(h), seq);
	memset(&h, 0, sizeof(h));
	h.magic = HDR_MAGIC;
	h.seq = seq;
	h.len = len;
	h.csum = xt_csum(p->abuf + loff + sizeof(h), len - sizeof(h), 0);
	memcpy(p->abuf + loff, &h, sizeof(h));
	return len;
}

/* A received message: whole, correct, after @last; returns its seq. */
static uint32_t check_msg(struct pair *p, const xib_wc *wc, int64_t last,
			  uint32_t first, uint32_t end)
{
	const uint8_t *data;
	struct msg_hdr h;
	uint32_t seq;

	if (wc->status != XIB_HCA_WC_SUCCESS)
		xt_fail("loss: receive completion status %s", xt_status_str(wc->status));
	if (wc->wr_id >= NSLOT)
		xt_fail("loss: receive wr_id %llu", (unsigned long long)wc->wr_id);
	if (wc->opcode == XIB_HCA_WC_RECV_RDMA_WITH_IMM) {
		seq = ntohl(wc->imm_data);
		if (seq < first || seq >= end)
			xt_fail("loss: WRITE WITH IMM names message %u, not in [%u, %u)",
				seq, first, end);
		data = p->bbuf + WSLOT_OFF + slot_off(seq % NSLOT);
	} else if (wc->opcode == XIB_HCA_WC_RECV) {
		data = p->bbuf + slot_off(wc->wr_id);
	} else {
		xt_fail("loss: receive opcode %u", wc->opcode);
	}
	memcpy(&h, data, sizeof(h));
	if (wc->byte_len < sizeof(h) || h.magic != HDR_MAGIC || h.len != wc->byte_len)
		xt_fail("loss: a partial or foreign message: byte_len %u, header "
			"magic 0x%08x len %u", wc->byte_len, h.magic, h.len);
	if (h.seq < first || h.seq >= end || (int64_t)h.seq <= last)
		xt_fail("loss: message %u out of order or twice (last %lld, batch [%u, %u))",
			h.seq, (long long)last, first, end);
	if (wc->opcode == XIB_HCA_WC_RECV_RDMA_WITH_IMM && h.seq != ntohl(wc->imm_data))
		xt_fail("loss: WRITE WITH IMM %u carries message %u", ntohl(wc->imm_data),
			h.seq);
	if (((wc->wc_flags & XIB_HCA_WC_WITH_IMM) != 0) != (h.seq % 3 != 0))
		xt_fail("loss: message %u: wc_flags 0x%x", h.seq, wc->wc_flags);
	if (xt_csum(data + sizeof(h), h.len - sizeof(h), 0) != h.csum)
		xt_fail("loss: message %u (%u bytes) is corrupt", h.seq, h.len);
	return h.seq;
}

/* Send [first, end), collect what arrives; returns the messages received. */
static uint32_t run_batch(struct pair *p, uint32_t first, uint32_t end,
			  bool *posted)
{
	xib_wc wc[NSLOT];
	uint32_t seq, got = 0;
	int64_t last = -1;
	int i, n;

	for (seq = first; seq < end; seq++) {
		size_t loff = slot_off(seq % NSLOT);
		uint32_t len = build_msg(p, loff, seq);
		/* message kind by seq: SEND, SEND WITH IMM, WRITE WITH IMM */
		static const uint32_t kind[3] = {
			XIB_HCA_WR_SEND, XIB_HCA_WR_SEND_WITH_IMM,
			XIB_HCA_WR_RDMA_WRITE_WITH_IMM,
		};

		post_send(p, kind[seq % 3], seq, loff, len,
			  WSLOT_OFF + slot_off(seq % NSLOT), p->bmr->rkey, seq);
	}
	for (seq = first; seq < end; seq++) {
		xt_wait(p->a.scq, wc, 1, "loss: send");
		check_wc(wc, seq, seq % 3 == 2 ? XIB_HCA_WC_RDMA_WRITE : XIB_HCA_WC_SEND,
			 "loss: send");
	}
	/* what arrives arrives soon after the sends completed */
	while ((n = xt_poll(p->b.rcq, wc, (int)(end - first - got), 500)) > 0) {
		for (i = 0; i < n; i++) {
			last = check_msg(p, &wc[i], last, first, end);
			got++;
			posted[wc[i].wr_id] = false;
		}
		if (got == end - first)
			break;
	}
	for (i = 0; i < NSLOT; i++) {
		if (!posted[i]) {
			post_recv(p, i, slot_off(i), SLOT_SIZE);
			posted[i] = true;
		}
	}
	return got;
}

static void run_loss(struct pair *p, unsigned int loss, uint32_t msgs)
{
	bool posted[NSLOT];
	uint32_t seq, got = 0, batch = NSLOT / 2, n;
	int i;

	if (4 * p->a.mtu > SLOT_SIZE)
		xt_fail("MTU %u too large for the slots", p->a.mtu);
	for (i = 0; i < NSLOT; i++) {
		post_recv(p, i, slot_off(i), SLOT_SIZE);
		posted[i] = true;
	}
	set_loss(loss);
	for (seq = 0; seq < msgs; seq += n) {
		n = msgs - seq < batch ? msgs - seq : batch;
		got += run_batch(p, seq, seq + n, posted);
	}
	set_loss(0);
	xt_info("loss 1/%u: %u of %u messages delivered whole, %u lost, none partial",
		loss, got, msgs, msgs - got);
	if (got == msgs)
		xt_fail("loss: every message arrived: was tx_loss in effect?");
	if (!got)
		xt_fail("loss: no message arrived");
	expect_rts(p, "after loss");
	/* the same QPs, no loss: everything arrives */
	n = run_batch(p, msgs, msgs + batch, posted);
	if (n != batch)
		xt_fail("after loss: %u of %u messages arrived without loss", n, batch);
	xt_info("after loss: %u of %u messages delivered", n, batch);
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL;
	int gid_a = -1, gid_b = -1, c, op;
	unsigned int rounds = 2, loss = 0, r;
	uint32_t msgs = 300;
	struct pair p;

	xt_prog = "xib_uc_test";
	while ((c = getopt(argc, argv, "d:D:g:G:r:M:L:m:v")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		case 'g': gid_a = atoi(optarg); break;
		case 'G': gid_b = atoi(optarg); break;
		case 'r': rounds = (unsigned int)atoi(optarg); break;
		case 'M': big = (uint32_t)xt_parse_size(optarg); break;
		case 'L': loss = (unsigned int)atoi(optarg); break;
		case 'm': msgs = (uint32_t)atoi(optarg); break;
		case 'v': xt_verbose++; break;
		default: usage();
		}
	}
	if (optind != argc || (loss && (loss < 2 || msgs < 2)) || big > ONE_MIB ||
	    big < 4096)
		usage();
	open_pair(&p, dev_a, dev_b, gid_a, gid_b);
	for (r = 0; r < rounds; r++)
		for (op = 0; op < OP_N; op++)
			run_op(&p, op, r);
	xt_info("every opcode, 0/1/MTU/MTU+1/%u bytes, %u rounds: verified", big, rounds);
	run_errors(&p);
	if (loss)
		run_loss(&p, loss, msgs);
	close_pair(&p);
	xt_info("PASS");
	return 0;
}
