// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_destroy_race: destroy a QP while datagrams arrive for it, so that
 * the receive path (softirq, or the loopback path with bottom halves
 * off) may hold the last reference to it (Documentation/security.rst,
 * "Object release").
 *
 *   xib_destroy_race -d DEV [-D DEV2] [-t SECONDS]
 *
 * A UD QP "victim" on DEV is destroyed and created again in a loop for
 * SECONDS (default 3), each time with receive WQEs posted.  Meanwhile
 * one thread floods it with UD SENDs from a QP on DEV (loopback) and,
 * with -D, another from a QP on DEV2 (over the network), always to the
 * victim's current QP number.  It prints the rounds and the datagrams
 * sent and received; the kernel's checkers (DEBUG_ATOMIC_SLEEP, KASAN,
 * lockdep) judge the rest.  Fails if no round saw a datagram arrive.
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_test.h"

#define QKEY	0x2222u
#define LEN	256u
#define NRECV	32u
#define SQ_WR	64u

struct sender {
	struct xt_side s;
	struct xib_qp *qp;
	struct xib_mr *mr;
	struct xib_ah *ah;
	uint8_t buf[LEN];
	uint64_t sent;
	pthread_t thr;
};

static struct xt_side vs;		/* the victim's side */
static _Atomic uint32_t victim_qpn;
static _Atomic int stop;

static void *flood(void *arg)
{
	struct sender *sd = arg;
	uint64_t posted = 0, done = 0;
	xib_wc wc[16];
	int n;

	while (!atomic_load(&stop)) {
		while (posted - done < SQ_WR) {
			struct xib_sge sge = { (uintptr_t)sd->buf, LEN, sd->mr->lkey };
			struct xib_send_wr wr, *bad;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.opcode = XIB_HCA_WR_SEND;
			wr.send_flags = XIB_HCA_SEND_SIGNALED;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.wr.ud.ah = sd->ah;
			wr.wr.ud.remote_qpn = atomic_load(&victim_qpn);
			wr.wr.ud.remote_qkey = QKEY;
			xt_check(xib_post_send(sd->qp, &wr, &bad), "post_send");
			posted++;
		}
		n = xib_poll_cq(sd->s.scq, 16, wc);
		if (n < 0)
			xt_fail("poll_cq: %s", strerror(-n));
		for (int i = 0; i < n; i++)
			if (wc[i].status != XIB_HCA_WC_SUCCESS)
				xt_fail("UD send: %s", xt_status_str(wc[i].status));
		done += n;
	}
	while (done < posted) {
		n = xt_poll(sd->s.scq, wc, 1, 5000);
		if (n != 1)
			xt_fail("UD sends did not complete");
		done++;
	}
	sd->sent = posted;
	return NULL;
}

static void sender_open(struct sender *sd, struct xib_context *ctx)
{
	struct xib_uverbs_ah_attr av;

	xt_side_open(&sd->s, ctx, -1, SQ_WR * 2);
	sd->qp = xt_create_qp(&sd->s, XIB_QPT_UD, SQ_WR, 1, 0, NULL);
	xt_ud_ready(sd->qp, QKEY);
	xt_check(xib_reg_mr(sd->s.pd, sd->buf, LEN, XIB_ACCESS_LOCAL_WRITE, &sd->mr),
		 "reg_mr");
	xt_fill_av(&av, &sd->s, &vs);
	xt_check(xib_create_ah(sd->s.pd, &av, &sd->ah), "create_ah");
}

static void sender_close(struct sender *sd)
{
	xt_check(xib_destroy_ah(sd->ah), "destroy_ah");
	xt_check(xib_destroy_qp(sd->qp), "destroy_qp");
	xt_check(xib_dereg_mr(sd->mr), "dereg_mr");
	xt_side_close(&sd->s);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *dev2 = NULL;
	struct xib_context *ca, *cb = NULL;
	struct sender sd[2];
	unsigned int nsend = 1, i;
	uint64_t rounds = 0, recvd = 0, hit = 0, deadline;
	static uint8_t rbuf[NRECV][LEN + 40];
	struct xib_mr *rmr;
	double secs = 3;
	xib_wc wc[NRECV];
	int c, n;

	xt_prog = "xib_destroy_race";
	while ((c = getopt(argc, argv, "d:D:t:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'D': dev2 = optarg; break;
		case 't': secs = atof(optarg); break;
		default:
			fprintf(stderr, "usage: xib_destroy_race -d DEV [-D DEV2] [-t SECONDS]\n");
			return 2;
		}
	}
	if (!dev)
		xt_fail("-d DEV is required");
	xt_check(xib_open(dev, &ca), dev);
	xt_side_open(&vs, ca, -1, NRECV * 2);
	xt_check(xib_reg_mr(vs.pd, rbuf, sizeof(rbuf), XIB_ACCESS_LOCAL_WRITE, &rmr),
		 "reg_mr");
	memset(sd, 0, sizeof(sd));
	sender_open(&sd[0], ca);
	if (dev2) {
		xt_check(xib_open(dev2, &cb), dev2);
		sender_open(&sd[1], cb);
		nsend = 2;
	}

	deadline = xt_now_ns() + (uint64_t)(secs * 1e9);
	do {
		struct xib_qp *v = xt_create_qp(&vs, XIB_QPT_UD, NRECV, 1, 0, NULL);

		xt_ud_ready(v, QKEY);
		for (i = 0; i < NRECV; i++) {
			struct xib_sge sge = { (uintptr_t)rbuf[i], sizeof(rbuf[i]), rmr->lkey };
			struct xib_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
			struct xib_recv_wr *bad;

			xt_check(xib_post_recv(v, &wr, &bad), "post_recv");
		}
		atomic_store(&victim_qpn, v->qpn);
		if (!rounds)
			for (i = 0; i < nsend; i++)
				if (pthread_create(&sd[i].thr, NULL, flood, &sd[i]))
					xt_fail("pthread_create");
		/* let a few datagrams in, then destroy it under the flood */
		n = xt_poll(vs.rcq, wc, 1, 20);
		if (n > 0)
			hit++;
		recvd += n;
		xt_check(xib_destroy_qp(v), "destroy_qp");
		/* completions of the destroyed QP may still be in the CQ */
		while ((n = xib_poll_cq(vs.rcq, NRECV, wc)) > 0)
			recvd += n;
		rounds++;
	} while (xt_now_ns() < deadline);
	atomic_store(&stop, 1);
	for (i = 0; i < nsend; i++)
		if (pthread_join(sd[i].thr, NULL))
			xt_fail("pthread_join");
	printf("%llu rounds of create/destroy, %llu with a datagram received; "
	       "%llu datagrams received, %llu sent\n",
	       (unsigned long long)rounds, (unsigned long long)hit,
	       (unsigned long long)recvd,
	       (unsigned long long)(sd[0].sent + sd[1].sent));
	if (!hit)
		xt_fail("no datagram ever reached the victim QP: the race did not run");
	for (i = 0; i < nsend; i++)
		sender_close(&sd[i]);
	xt_check(xib_dereg_mr(rmr), "dereg_mr");
	xt_side_close(&vs);
	xt_check(xib_close(ca), "close");
	if (cb)
		xt_check(xib_close(cb), "close");
	printf("PASS\n");
	return 0;
}
