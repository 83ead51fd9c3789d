// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_ud_test: UD SENDs between two QPs, with the 40-byte GRH area and
 * the Q_Key check.
 *
 *   xib_ud_test [-d DEV] [-D DEV2] [-g IDX] [-G IDX] [-n COUNT] [-e]
 *
 * Checks for SENDs of 0, 1, MTU/2 and MTU bytes (and an inline one): the
 * receive completion's byte_len is the payload plus 40, GRH is set in
 * wc_flags, src_qp is the sender, the payload lands after the 40-byte GRH
 * area and, for an IPv4 GID, the IPv4 header is in its last 20 bytes.  A
 * SEND with the wrong Q_Key completes successfully at the sender (UD does
 * not acknowledge) and is not delivered: it consumes no receive WQE, and
 * the receiving port's qkey_viol_cntr counts it.
 *
 * With -e, then: a send error (a SEND with a bad lkey: LOC_PROT_ERR) takes
 * the UD QP to SQE, not ERR (IBTA 10.3.1): the next SEND is flushed, the
 * QP still receives, and modify_qp SQE -> RTS makes it send again.  (Not
 * by default: the suites that count this program's packets know its
 * default traffic.)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xib_test.h"

#define GRH	40
#define QKEY	0x11112222u

static struct xt_side a, b;
static struct xib_qp *qa, *qb;
static struct xib_ah *ah;
static uint8_t *abuf, *bbuf;
static struct xib_mr *amr, *bmr;
static size_t buf_size;

static void post_recv(uint64_t wr_id, uint32_t len)
{
	struct xib_sge sge = { (uintptr_t)bbuf, len, bmr->lkey };
	struct xib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct xib_recv_wr *bad;

	xt_check(xib_post_recv(qb, &wr, &bad), "post_recv");
}

static void ud_send(uint64_t wr_id, uint32_t len, uint32_t qkey, bool inl, uint64_t seed)
{
	struct xib_sge sge = { (uintptr_t)abuf, len, amr->lkey };
	struct xib_send_wr wr, *bad;
	xib_wc wc;

	xt_pattern(abuf, len, seed);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = XIB_HCA_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(0xabc00000u | (uint32_t)wr_id);
	wr.send_flags = XIB_HCA_SEND_SIGNALED | (inl ? XIB_HCA_SEND_INLINE : 0);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qb->qpn;
	wr.wr.ud.remote_qkey = qkey;
	xt_check(xib_post_send(qa, &wr, &bad), "post_send");
	xt_wait(a.scq, &wc, 1, "UD send");
	if (wc.status || wc.opcode != XIB_HCA_WC_SEND || wc.wr_id != wr_id)
		xt_fail("UD send %llu: status %s opcode %u wr_id %llu",
			(unsigned long long)wr_id, xt_status_str(wc.status), wc.opcode,
			(unsigned long long)wc.wr_id);
}

static void check_recv(uint64_t wr_id, uint32_t len, uint64_t seed)
{
	uint8_t *exp = malloc(len + 1);
	xib_wc wc;

	if (!exp)
		xt_fail("out of memory");
	xt_wait(b.rcq, &wc, 1, "UD receive");
	if (wc.status)
		xt_fail("UD receive of %u bytes: status %s", len, xt_status_str(wc.status));
	if (wc.wr_id != wr_id)
		xt_fail("UD receive of %u bytes: wr_id %llu, expected %llu (a message "
			"was delivered that should not have been?)", len,
			(unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	if (wc.opcode != XIB_HCA_WC_RECV)
		xt_fail("UD receive: opcode %u", wc.opcode);
	if (wc.byte_len != len + GRH)
		xt_fail("UD receive of %u bytes: byte_len %u, expected %u (payload + GRH)",
			len, wc.byte_len, len + GRH);
	if (!(wc.wc_flags & XIB_HCA_WC_GRH) || !(wc.wc_flags & XIB_HCA_WC_WITH_IMM))
		xt_fail("UD receive: wc_flags 0x%x lack GRH or WITH_IMM", wc.wc_flags);
	if (ntohl(wc.imm_data) != (0xabc00000u | (uint32_t)(wr_id - 100)))
		xt_fail("UD receive: imm_data 0x%08x", ntohl(wc.imm_data));
	if (wc.src_qp != qa->qpn)
		xt_fail("UD receive: src_qp %u, expected %u", wc.src_qp, qa->qpn);
	if (wc.qp_num != qb->qpn)
		xt_fail("UD receive: qp_num %u, expected %u", wc.qp_num, qb->qpn);
	if (wc.network_hdr_type == 2 && bbuf[20] >> 4 != 4)
		xt_fail("UD receive: RoCEv2/IPv4 but byte 20 of the GRH area is 0x%02x",
			bbuf[20]);
	if (wc.network_hdr_type == 3 && bbuf[0] >> 4 != 6)
		xt_fail("UD receive: RoCEv2/IPv6 but the GRH starts with 0x%02x", bbuf[0]);
	xt_pattern(exp, len, seed);
	if (memcmp(bbuf + GRH, exp, len))
		xt_fail("UD receive of %u bytes: payload differs", len);
	free(exp);
}

/* One signaled SEND from @qp; its completion's status. */
static uint32_t send_status(struct xt_side *s, struct xib_qp *qp, struct xib_ah *to,
			    uint32_t qpn, uint32_t qkey, uint8_t *buf, uint32_t lkey,
			    uint64_t wr_id)
{
	struct xib_sge sge = { (uintptr_t)buf, 64, lkey };
	struct xib_send_wr wr, *bad;
	xib_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = XIB_HCA_WR_SEND;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = to;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	xt_check(xib_post_send(qp, &wr, &bad), "post_send");
	xt_wait(s->scq, &wc, 1, "UD send");
	if (wc.wr_id != wr_id)
		xt_fail("UD send: completion of wr_id %llu, expected %llu",
			(unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	return wc.status;
}

/* Wait (at most 3 s) for @qp to be reported in @state. */
static void wait_state(struct xib_qp *qp, uint32_t state, const char *what)
{
	uint64_t deadline = xt_now_ns() + 3000000000ull;
	uint32_t st;

	do {
		st = xt_qp_state(qp);
		if (st == state)
			return;
		usleep(10000);
	} while (xt_now_ns() < deadline);
	xt_fail("%s: QP %u in state %u, expected %u", what, qp->qpn, st, state);
}

/* The send error phase: SQE, a flushed SEND, receives on, back to RTS. */
static void send_error_to_sqe(void)
{
	struct xib_uverbs_ah_attr av;
	struct xib_uverbs_qp_attr attr;
	struct xib_ah *ah_ba;
	uint32_t st;
	xib_wc wc;

	xt_fill_av(&av, &b, &a);
	xt_check(xib_create_ah(b.pd, &av, &ah_ba), "create_ah b -> a");
	st = send_status(&a, qa, ah, qb->qpn, QKEY, abuf, amr->lkey ^ 0x5a00, 8000);
	if (st != XIB_HCA_WC_LOC_PROT_ERR)
		xt_fail("SEND with a bad lkey: status %s, expected LOC_PROT_ERR",
			xt_status_str(st));
	st = send_status(&a, qa, ah, qb->qpn, QKEY, abuf, amr->lkey, 8001);
	if (st != XIB_HCA_WC_WR_FLUSH_ERR)
		xt_fail("SEND after the error: status %s, expected WR_FLUSH_ERR",
			xt_status_str(st));
	wait_state(qa, XIB_QPS_SQE, "after a UD send error");
	/* the receive queue works in SQE */
	{
		struct xib_sge sge = { (uintptr_t)abuf, GRH + 64, amr->lkey };
		struct xib_recv_wr rwr = { .wr_id = 8100, .sg_list = &sge, .num_sge = 1 };
		struct xib_recv_wr *rbad;

		xt_check(xib_post_recv(qa, &rwr, &rbad), "post_recv in SQE");
	}
	st = send_status(&b, qb, ah_ba, qa->qpn, 0x5555, bbuf, bmr->lkey, 8002);
	if (st != XIB_HCA_WC_SUCCESS)
		xt_fail("SEND to the QP in SQE: status %s", xt_status_str(st));
	xt_wait(a.rcq, &wc, 1, "UD receive in SQE");
	if (wc.wr_id != 8100 || wc.status != XIB_HCA_WC_SUCCESS || wc.byte_len != GRH + 64)
		xt_fail("receive in SQE: wr_id %llu status %s byte_len %u",
			(unsigned long long)wc.wr_id, xt_status_str(wc.status), wc.byte_len);
	/* SQE -> RTS: sending again */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = XIB_QPS_RTS;
	xt_check(xib_modify_qp(qa, &attr, XIB_QP_STATE), "modify_qp SQE -> RTS");
	if (xt_qp_state(qa) != XIB_QPS_RTS)
		xt_fail("after SQE -> RTS: state %u", xt_qp_state(qa));
	post_recv(100 + 8003, GRH + 64);
	st = send_status(&a, qa, ah, qb->qpn, QKEY, abuf, amr->lkey, 8003);
	if (st != XIB_HCA_WC_SUCCESS)
		xt_fail("SEND after SQE -> RTS: status %s", xt_status_str(st));
	xt_wait(b.rcq, &wc, 1, "UD receive after SQE -> RTS");
	if (wc.wr_id != 100 + 8003 || wc.status != XIB_HCA_WC_SUCCESS)
		xt_fail("receive after SQE -> RTS: wr_id %llu status %s",
			(unsigned long long)wc.wr_id, xt_status_str(wc.status));
	xt_check(xib_destroy_ah(ah_ba), "destroy_ah");
	xt_info("send error: LOC_PROT_ERR, SQE, next SEND flushed, receives on, "
		"SQE -> RTS sends again");
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL;
	struct xib_context *ca, *cb;
	struct xib_uverbs_port_attr pa0, pa1;
	struct xib_uverbs_ah_attr av;
	int gid_a = -1, gid_b = -1, c, rounds = 10, r;
	bool send_error = false;
	uint32_t sizes[4];
	unsigned int i;
	xib_wc wc;

	xt_prog = "xib_ud_test";
	while ((c = getopt(argc, argv, "d:D:g:G:n:e")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		case 'g': gid_a = atoi(optarg); break;
		case 'G': gid_b = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		case 'e': send_error = true; break;
		default:
			fprintf(stderr, "usage: xib_ud_test [-d DEV] [-D DEV2] [-g IDX] "
				"[-G IDX] [-n ROUNDS] [-e]\n");
			return 2;
		}
	}
	xt_check(xib_open(dev_a, &ca), dev_a);
	if (dev_b)
		xt_check(xib_open(dev_b, &cb), dev_b);
	else
		cb = ca;
	xt_side_open(&a, ca, gid_a, 64);
	xt_side_open(&b, cb, gid_b, 64);
	qa = xt_create_qp(&a, XIB_QPT_UD, 16, 1, 64, NULL);
	qb = xt_create_qp(&b, XIB_QPT_UD, 16, 1, 64, NULL);
	xt_ud_ready(qa, 0x5555);
	xt_ud_ready(qb, QKEY);
	buf_size = a.mtu + GRH + 4096;
	abuf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bbuf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (abuf == MAP_FAILED || bbuf == MAP_FAILED)
		xt_fail("out of memory");
	xt_check(xib_reg_mr(a.pd, abuf, buf_size, XIB_ACCESS_LOCAL_WRITE, &amr), "reg_mr");
	xt_check(xib_reg_mr(b.pd, bbuf, buf_size, XIB_ACCESS_LOCAL_WRITE, &bmr), "reg_mr");
	xt_fill_av(&av, &a, &b);
	xt_check(xib_create_ah(a.pd, &av, &ah), "create_ah");
	xt_info("UD QP %u (GID index %u) -> QP %u (GID index %u), MTU %u",
		qa->qpn, a.sgid_index, qb->qpn, b.sgid_index, a.mtu);

	sizes[0] = 0;
	sizes[1] = 1;
	sizes[2] = a.mtu / 2;
	sizes[3] = b.mtu < a.mtu ? b.mtu : a.mtu;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 4; i++) {
			uint64_t id = r * 4 + i;

			post_recv(100 + id, GRH + sizes[i]);
			ud_send(id, sizes[i], QKEY, false, id * 7 + 1);
			check_recv(100 + id, sizes[i], id * 7 + 1);
		}
	}
	/* inline */
	post_recv(100 + 5000, GRH + 50);
	ud_send(5000, 50, QKEY, true, 99);
	check_recv(100 + 5000, 50, 99);

	/*
	 * A wrong Q_Key: sent, not delivered, no receive WQE consumed, and
	 * counted by the receiving port's Q_Key violation counter.
	 */
	xt_check(xib_query_port(cb, 1, &pa0), "query_port");
	post_recv(100 + 7000, GRH + 64);
	ud_send(6000, 64, QKEY ^ 1, false, 5);
	if (xt_poll(b.rcq, &wc, 1, 500))
		xt_fail("a SEND with the wrong Q_Key was delivered (wr_id %llu, status %s)",
			(unsigned long long)wc.wr_id, xt_status_str(wc.status));
	xt_check(xib_query_port(cb, 1, &pa1), "query_port");
	if (pa1.qkey_viol_cntr != pa0.qkey_viol_cntr + 1)
		xt_fail("qkey_viol_cntr went from %u to %u, expected one more",
			pa0.qkey_viol_cntr, pa1.qkey_viol_cntr);
	ud_send(7000, 64, QKEY, false, 6);
	check_recv(100 + 7000, 64, 6);
	xt_info("%d rounds of UD sends of 0..%u bytes verified; wrong Q_Key dropped",
		rounds, sizes[3]);
	if (send_error)
		send_error_to_sqe();

	xt_check(xib_destroy_ah(ah), "destroy_ah");
	xt_check(xib_destroy_qp(qa), "destroy_qp");
	xt_check(xib_destroy_qp(qb), "destroy_qp");
	xt_check(xib_dereg_mr(amr), "dereg_mr");
	xt_check(xib_dereg_mr(bmr), "dereg_mr");
	xt_side_close(&a);
	xt_side_close(&b);
	xib_close(ca);
	if (cb != ca)
		xib_close(cb);
	xt_info("PASS");
	return 0;
}
