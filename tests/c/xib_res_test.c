// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_res_test: create a known set of verbs objects and hold them, for
 * "xibctl res show OBJECT" to be compared against.
 *
 *   xib_res_test [-d DEV] [-x N] [-w]
 *
 * Creates 2 PDs, 2 CQs (depth 64), 2 MRs, an SRQ (max_wr 32, limit 8), an
 * AH to the device's own GID and 17 QPs: 10 RC (3 RESET, 2 INIT, 2 RTR,
 * 3 RTS) and 7 UD (2 RESET, 1 INIT, 1 RTR, 3 RTS), RC QPs with sq_psn and
 * rq_psn 0x123 and the first RTS RC QP with 3 receives posted.  UC QPs
 * are left out: the device does not offer them yet.  With -x, N more UD
 * QPs in RESET follow (for dumps longer than one netlink message buffer).
 * With -w, a third MR (LOCAL_WRITE | MW_BIND, 64 KiB; its "mr" line comes
 * after the "ah" line) and three memory windows on the first PD: type 1
 * bound to 8 KiB of it (REMOTE_READ), type 2 bound on the first RTS RC
 * QP to 4 KiB (REMOTE_WRITE and REMOTE_READ), and type 2 left free.
 * Prints one line per object on stdout:
 *
 *   pid PID
 *   qp QPN TYPE STATE RQ_WRS
 *   cq CQN CQE
 *   mr LKEY RKEY LENGTH       (keys in hex, 0x%08x)
 *   pd PDN
 *   srq SRQN MAX_WR LIMIT
 *   ah AHN
 *   mw TYPE STATE RKEY QPN LENGTH   (-w: state bound or free, rkey
 *                                   0x%08x, QPN 0 and length 0 if none)
 *
 * then "READY", and sleeps until a signal ends it (the objects go with
 * the process).  Exit status 1 with a "FAIL: ..." line if a verb fails.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_test.h"

#define NQP_RC	10
#define NQP_UD	7
#define MR_LEN	(64u * 1024)

/* Target states of the RC and UD QPs, in creation order. */
static const uint32_t rc_states[NQP_RC] = {
	XIB_QPS_RESET, XIB_QPS_RESET, XIB_QPS_RESET, XIB_QPS_INIT, XIB_QPS_INIT,
	XIB_QPS_RTR, XIB_QPS_RTR, XIB_QPS_RTS, XIB_QPS_RTS, XIB_QPS_RTS,
};
static const uint32_t ud_states[NQP_UD] = {
	XIB_QPS_RESET, XIB_QPS_RESET, XIB_QPS_INIT, XIB_QPS_RTR,
	XIB_QPS_RTS, XIB_QPS_RTS, XIB_QPS_RTS,
};

static const char *state_name(uint32_t s)
{
	static const char * const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* Bind @mw to [@addr, @addr + @len) of @mr with a BIND_MW on @qp. */
static void bind_mw(struct xib_qp *qp, struct xt_side *s, struct xib_mw *mw,
		    struct xib_mr *mr, void *addr, uint64_t len, uint32_t access)
{
	uint32_t new_rkey = (mw->rkey & ~0xffu) | ((mw->rkey + 1) & 0xffu);
	struct xib_send_wr wr, *bad;
	xib_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = XIB_HCA_WR_BIND_MW;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.wr.bind.mw_rkey = mw->rkey;
	wr.wr.bind.new_rkey = new_rkey;
	wr.wr.bind.mr_lkey = mr->lkey;
	wr.wr.bind.addr = (uintptr_t)addr;
	wr.wr.bind.length = len;
	wr.wr.bind.access = access;
	wr.wr.bind.flags = mw->type == XIB_MW_TYPE_1 ? XIB_HCA_BIND_TYPE1 : 0;
	xt_check(xib_post_send(qp, &wr, &bad), "post bind_mw");
	xt_wait(s->scq, &wc, 1, "bind_mw");
	if (wc.status != XIB_HCA_WC_SUCCESS)
		xt_fail("bind_mw: %s", xt_status_str(wc.status));
	mw->rkey = new_rkey;
}

/* Walk @qp from RESET up to @target, one transition at a time. */
static void bring_up(struct xib_qp *qp, const struct xt_side *s, uint32_t target)
{
	struct xib_uverbs_qp_attr a;
	bool rc = qp->qp_type == XIB_QPT_RC;

	if (target >= XIB_QPS_INIT) {
		memset(&a, 0, sizeof(a));
		a.qp_state = XIB_QPS_INIT;
		a.port_num = 1;
		a.qkey = 0x11111111;
		a.qp_access_flags = XIB_ACCESS_REMOTE_WRITE;
		xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX |
				       XIB_QP_PORT | (rc ? XIB_QP_ACCESS_FLAGS :
						      XIB_QP_QKEY)),
			 "modify_qp INIT");
	}
	if (target >= XIB_QPS_RTR) {
		uint32_t mask = XIB_QP_STATE;

		memset(&a, 0, sizeof(a));
		a.qp_state = XIB_QPS_RTR;
		if (rc) {
			a.path_mtu = s->mtu_enum;
			a.dest_qp_num = qp->qpn;	/* itself: loopback */
			a.rq_psn = 0x123;
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 1;
			xt_fill_av(&a.ah_attr, s, s);
			mask |= XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN |
				XIB_QP_RQ_PSN | XIB_QP_MAX_DEST_RD_ATOMIC |
				XIB_QP_MIN_RNR_TIMER;
		}
		xt_check(xib_modify_qp(qp, &a, mask), "modify_qp RTR");
	}
	if (target >= XIB_QPS_RTS) {
		uint32_t mask = XIB_QP_STATE | XIB_QP_SQ_PSN;

		memset(&a, 0, sizeof(a));
		a.qp_state = XIB_QPS_RTS;
		a.sq_psn = 0x123;
		if (rc) {
			a.timeout = 14;
			a.retry_cnt = 7;
			a.rnr_retry = 7;
			a.max_rd_atomic = 1;
			mask |= XIB_QP_TIMEOUT | XIB_QP_RETRY_CNT |
				XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC;
		}
		xt_check(xib_modify_qp(qp, &a, mask), "modify_qp RTS");
	}
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/xib/uverbs0";
	struct xib_uverbs_ah_attr av;
	struct xib_recv_wr rwr, *bad;
	struct xib_qp *qp, *recv_qp = NULL;
	struct xib_mr *mr1, *mr2;
	struct xib_context *ctx;
	struct xib_srq *srq;
	struct xib_pd *pd2;
	struct xib_ah *ah;
	struct xib_sge sge;
	struct xt_side s;
	uint8_t *buf;
	struct xib_mw *mw1, *mw2, *mw3;
	int c, i, extra = 0;
	bool windows = false;
	struct xib_mr *mr3;

	xt_prog = "xib_res_test";
	while ((c = getopt(argc, argv, "d:x:w")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'w':
			windows = true;
			break;
		case 'x':
			extra = atoi(optarg);
			if (extra < 0 || extra > 2000)
				xt_fail("-x: 0 to 2000 QPs");
			break;
		default:
			fprintf(stderr, "usage: xib_res_test [-d DEV] [-x N] [-w]\n");
			return 2;
		}
	}
	xt_check(xib_open(dev, &ctx), dev);
	xt_side_open(&s, ctx, -1, 64);
	xt_check(xib_alloc_pd(ctx, &pd2), "alloc_pd");
	buf = aligned_alloc(4096, 2 * MR_LEN);
	if (!buf)
		xt_fail("out of memory");
	memset(buf, 0, 2 * MR_LEN);
	xt_check(xib_reg_mr(s.pd, buf, MR_LEN, XIB_ACCESS_LOCAL_WRITE, &mr1),
		 "reg_mr");
	xt_check(xib_reg_mr(pd2, buf + MR_LEN, MR_LEN / 2,
			    XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
			    XIB_ACCESS_REMOTE_READ, &mr2), "reg_mr");
	xt_check(xib_create_srq(s.pd, 32, 1, 8, 77, &srq), "create_srq");
	xt_fill_av(&av, &s, &s);
	xt_check(xib_create_ah(s.pd, &av, &ah), "create_ah");

	printf("pid %d\n", (int)getpid());
	for (i = 0; i < NQP_RC + NQP_UD + extra; i++) {
		bool rc = i < NQP_RC;
		uint32_t target = rc ? rc_states[i] :
				  i < NQP_RC + NQP_UD ? ud_states[i - NQP_RC] :
				  XIB_QPS_RESET;
		int rq_wrs = 0;

		qp = xt_create_qp(&s, rc ? XIB_QPT_RC : XIB_QPT_UD, 16, 1, 0, NULL);
		bring_up(qp, &s, target);
		if (rc && target == XIB_QPS_RTS && !recv_qp) {
			recv_qp = qp;
			for (rq_wrs = 0; rq_wrs < 3; rq_wrs++) {
				sge.addr = (uintptr_t)buf;
				sge.length = 256;
				sge.lkey = mr1->lkey;
				memset(&rwr, 0, sizeof(rwr));
				rwr.wr_id = rq_wrs;
				rwr.sg_list = &sge;
				rwr.num_sge = 1;
				xt_check(xib_post_recv(qp, &rwr, &bad), "post_recv");
			}
		}
		printf("qp %u %s %s %d\n", qp->qpn, rc ? "RC" : "UD",
		       state_name(target), rq_wrs);
	}
	printf("cq %u %u\ncq %u %u\n", s.scq->cqn, s.scq->cqe, s.rcq->cqn,
	       s.rcq->cqe);
	printf("mr 0x%08x 0x%08x %u\n", mr1->lkey, mr1->rkey, MR_LEN);
	printf("mr 0x%08x 0x%08x %u\n", mr2->lkey, mr2->rkey, MR_LEN / 2);
	printf("pd %u\npd %u\n", s.pd->pdn, pd2->pdn);
	printf("srq %u %u %u\n", srq->srqn, srq->max_wr, srq->srq_limit);
	printf("ah %u\n", ah->ahn);
	if (windows) {
		xt_check(xib_reg_mr(s.pd, buf, MR_LEN, XIB_ACCESS_LOCAL_WRITE |
				    XIB_ACCESS_MW_BIND, &mr3), "reg_mr");
		xt_check(xib_alloc_mw(s.pd, XIB_MW_TYPE_1, &mw1), "alloc_mw");
		xt_check(xib_alloc_mw(s.pd, XIB_MW_TYPE_2, &mw2), "alloc_mw");
		xt_check(xib_alloc_mw(s.pd, XIB_MW_TYPE_2, &mw3), "alloc_mw");
		bind_mw(recv_qp, &s, mw1, mr3, buf + 4096, 8192,
			XIB_ACCESS_REMOTE_READ);
		bind_mw(recv_qp, &s, mw2, mr3, buf, 4096,
			XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ);
		printf("mr 0x%08x 0x%08x %u\n", mr3->lkey, mr3->rkey, MR_LEN);
		printf("mw 1 bound 0x%08x 0 8192\n", mw1->rkey);
		printf("mw 2 bound 0x%08x %u 4096\n", mw2->rkey, recv_qp->qpn);
		printf("mw 2 free 0x%08x 0 0\n", mw3->rkey);
	}
	printf("READY\n");
	fflush(stdout);
	for (;;)
		pause();
}
