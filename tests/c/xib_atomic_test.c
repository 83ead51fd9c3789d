// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_atomic_test: RC atomics (ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD)
 * against one remote counter, and the responder's checks.
 *
 *   xib_atomic_test [-d DEV] [-D DEV2] [-n QPS] [-i ITERS] [-c]
 *
 * The counter lives in a memory region on DEV2 (default: DEV, loopback).
 * QPS threads (default 4), each with its own QP pair, increment it
 * concurrently: ITERS (default 500) FETCH_ADDs of 1, up to 8 of them
 * outstanding, then ITERS successful compare-and-swap increments (a
 * CMP_SWP whose compare is not what the counter holds fails and the
 * thread tries again with the value it returned).  At the end the
 * counter must be exactly QPS * 2 * ITERS, and the original values the
 * successful operations returned must be 0 .. QPS * 2 * ITERS - 1, each
 * exactly once: an atomic executed twice (a retransmitted request the
 * responder did not answer from its replay cache), or one lost, breaks
 * both.  Run it under packet loss (tx_loss, netem) for the replay cache.
 *
 * Then, each on a fresh QP pair: max_rd_atomic 1 against a responder with
 * max_dest_rd_atomic 1 (the requester keeps one atomic outstanding, so
 * 32 back to back all succeed); CMP_SWP with a compare that does not
 * match (no write, the value returned); completion opcode and byte_len;
 * and the errors: a VA not 8-byte aligned and a QP without REMOTE_ATOMIC
 * access (REM_INV_REQ_ERR), an MR without REMOTE_ATOMIC access and a VA
 * past the MR (REM_ACCESS_ERR), a local SGE shorter than 8 bytes
 * (LOC_LEN_ERR); each leaves the counter alone.  -c runs the counter part
 * only (under packet loss a lost NAK turns into RETRY_EXC_ERR).
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_test.h"

#define MAX_QPS		16
#define WINDOW		8
#define RES_SLOTS	64	/* 8-byte result slots per thread */
#define TARGET_SIZE	4096
#define QP_ACCESS	(XIB_ACCESS_REMOTE_ATOMIC | XIB_ACCESS_REMOTE_READ | \
			 XIB_ACCESS_REMOTE_WRITE)
#define MR_ACCESS	(XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_ATOMIC | \
			 XIB_ACCESS_REMOTE_READ | XIB_ACCESS_REMOTE_WRITE)

struct target {
	struct xt_side side;
	uint64_t *mem;		/* TARGET_SIZE bytes, 4 KiB aligned */
	struct xib_mr *mr;	/* MR_ACCESS */
	struct xib_mr *ro_mr;	/* same memory, REMOTE_READ only */
};

struct worker {
	pthread_t thread;
	struct xt_side side;
	struct xib_qp *qa, *qb;
	uint64_t *res;		/* RES_SLOTS result slots */
	struct xib_mr *res_mr;
	const struct target *t;
	unsigned int iters;
	uint64_t *won;		/* original values of the successful ops */
	unsigned int nwon;
	unsigned int cas_retries;
};

/* RESET -> RTS of an RC QP, with its own READ/atomic depths. */
static void connect_qp(struct xib_qp *qp, const struct xt_side *s, uint32_t rqpn,
		       const struct xt_side *rs, uint32_t access, uint8_t rd_atomic,
		       uint8_t dest_rd_atomic)
{
	struct xib_uverbs_qp_attr a;
	uint32_t mtu = s->mtu_enum < rs->mtu_enum ? s->mtu_enum : rs->mtu_enum;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX |
			       XIB_QP_PORT | XIB_QP_ACCESS_FLAGS), "modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0x777;
	a.max_dest_rd_atomic = dest_rd_atomic;
	a.min_rnr_timer = 1;
	xt_fill_av(&a.ah_attr, s, rs);
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			       XIB_QP_DEST_QPN | XIB_QP_RQ_PSN |
			       XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER),
		 "modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = 0x777;
	a.timeout = 12;		/* 16 ms: loss is recovered quickly */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atomic;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT |
			       XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY |
			       XIB_QP_MAX_QP_RD_ATOMIC), "modify_qp RTS");
}

/* A QP pair: qa on @w's side (requester), qb on the target's. */
static void pair_up(struct worker *w, struct target *t, uint32_t b_access,
		    uint8_t rd_atomic, uint8_t dest_rd_atomic)
{
	w->qa = xt_create_qp(&w->side, XIB_QPT_RC, 64, 1, 0, NULL);
	w->qb = xt_create_qp(&t->side, XIB_QPT_RC, 64, 1, 0, NULL);
	connect_qp(w->qa, &w->side, w->qb->qpn, &t->side, QP_ACCESS, rd_atomic,
		   dest_rd_atomic);
	connect_qp(w->qb, &t->side, w->qa->qpn, &w->side, b_access, rd_atomic,
		   dest_rd_atomic);
}

static void unpair(struct worker *w)
{
	xt_check(xib_destroy_qp(w->qa), "destroy_qp");
	xt_check(xib_destroy_qp(w->qb), "destroy_qp");
}

static void worker_open(struct worker *w, struct xib_context *ctx, struct target *t)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	xt_side_open(&w->side, ctx, -1, 128);
	if (posix_memalign((void **)&w->res, 4096, RES_SLOTS * 8))
		xt_fail("posix_memalign");
	memset(w->res, 0xa5, RES_SLOTS * 8);
	xt_check(xib_reg_mr(w->side.pd, w->res, RES_SLOTS * 8,
			    XIB_ACCESS_LOCAL_WRITE, &w->res_mr), "reg_mr result");
}

static void worker_close(struct worker *w)
{
	xt_check(xib_dereg_mr(w->res_mr), "dereg_mr");
	xt_side_close(&w->side);
	free(w->res);
	free(w->won);
}

/* Post one atomic with its result in slot @slot (@len bytes of SGE). */
static void post_atomic(struct worker *w, uint32_t opcode, uint64_t va, uint32_t rkey,
			uint64_t compare_add, uint64_t swap, unsigned int slot,
			uint32_t len)
{
	struct xib_sge sge = {
		.addr = (uintptr_t)&w->res[slot],
		.length = len,
		.lkey = w->res_mr->lkey,
	};
	struct xib_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = va;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	xt_check(xib_post_send(w->qa, &wr, &bad), "post_send atomic");
}

/* One completion of an atomic in slot order; returns its slot. */
static unsigned int wait_atomic(struct worker *w, uint32_t opcode, const char *what)
{
	xib_wc wc;

	xt_wait(w->side.scq, &wc, 1, what);
	if (wc.status != XIB_HCA_WC_SUCCESS)
		xt_fail("%s: status %s", what, xt_status_str(wc.status));
	if (wc.opcode != (opcode == XIB_HCA_WR_ATOMIC_CMP_AND_SWP ?
			  XIB_HCA_WC_COMP_SWAP : XIB_HCA_WC_FETCH_ADD))
		xt_fail("%s: completion opcode %u", what, wc.opcode);
	if (wc.byte_len != 8)
		xt_fail("%s: byte_len %u, not 8", what, wc.byte_len);
	if (wc.qp_num != w->qa->qpn)
		xt_fail("%s: qp_num %u", what, wc.qp_num);
	return (unsigned int)wc.wr_id;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	uint64_t va = (uintptr_t)w->t->mem;
	uint32_t rkey = w->t->mr->rkey;
	unsigned int posted = 0, done = 0, slot, cas = 0;
	uint64_t expect = 0;

	/* FETCH_ADD +1, a window of them in flight; completions in order */
	while (done < w->iters) {
		while (posted < w->iters && posted - done < WINDOW) {
			post_atomic(w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, va, rkey, 1, 0,
				    posted % RES_SLOTS, 8);
			posted++;
		}
		slot = wait_atomic(w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, "fetch_add");
		if (slot != done % RES_SLOTS)
			xt_fail("fetch_add: wr_id %u, expected %u", slot, done % RES_SLOTS);
		w->won[w->nwon++] = w->res[slot];
		done++;
	}
	/* compare-and-swap increments: retry with the value returned */
	while (cas < w->iters) {
		post_atomic(w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, va, rkey, expect, expect + 1,
			    0, 8);
		wait_atomic(w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, "cmp_swp");
		if (w->res[0] == expect) {
			w->won[w->nwon++] = expect;
			expect++;
			cas++;
		} else {
			expect = w->res[0];
			w->cas_retries++;
		}
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void run_counter(struct xib_context *ca, struct target *t, unsigned int nqps,
			unsigned int iters)
{
	static struct worker w[MAX_QPS];
	uint64_t total = (uint64_t)nqps * 2 * iters, *all, n = 0, i;
	unsigned int k, retries = 0;

	t->mem[0] = 0;
	for (k = 0; k < nqps; k++) {
		worker_open(&w[k], ca, t);
		w[k].iters = iters;
		w[k].won = calloc(2 * iters, sizeof(uint64_t));
		if (!w[k].won)
			xt_fail("calloc");
		pair_up(&w[k], t, QP_ACCESS, WINDOW, WINDOW);
	}
	for (k = 0; k < nqps; k++)
		if (pthread_create(&w[k].thread, NULL, worker_run, &w[k]))
			xt_fail("pthread_create");
	for (k = 0; k < nqps; k++)
		pthread_join(w[k].thread, NULL);

	if (__atomic_load_n(&t->mem[0], __ATOMIC_ACQUIRE) != total)
		xt_fail("counter is %llu after %llu increments",
			(unsigned long long)t->mem[0], (unsigned long long)total);
	all = calloc(total, sizeof(*all));
	if (!all)
		xt_fail("calloc");
	for (k = 0; k < nqps; k++) {
		memcpy(all + n, w[k].won, w[k].nwon * sizeof(*all));
		n += w[k].nwon;
		retries += w[k].cas_retries;
	}
	if (n != total)
		xt_fail("%llu successful operations, not %llu", (unsigned long long)n,
			(unsigned long long)total);
	qsort(all, n, sizeof(*all), cmp_u64);
	for (i = 0; i < n; i++)
		if (all[i] != i)
			xt_fail("original values: %llu where %llu was expected "
				"(an atomic executed twice or lost)",
				(unsigned long long)all[i], (unsigned long long)i);
	free(all);
	for (k = 0; k < nqps; k++) {
		unpair(&w[k]);
		worker_close(&w[k]);
	}
	xt_info("counter: %u QPs x (%u FETCH_ADD + %u CMP_SWP) = %llu, every original "
		"value once (%u CMP_SWP retries)", nqps, iters, iters,
		(unsigned long long)total, retries);
}

/* One atomic that must fail with @status on a fresh pair; counter intact. */
static void expect_error(struct xib_context *ca, struct target *t, const char *what,
			 uint32_t b_access, uint64_t va, uint32_t rkey, uint32_t len,
			 uint32_t status)
{
	struct worker w;
	unsigned int i;
	xib_wc wc;

	t->mem[0] = 1000;
	worker_open(&w, ca, t);
	pair_up(&w, t, b_access, 1, 1);
	post_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, va, rkey, 5, 0, 0, len);
	xt_wait(w.side.scq, &wc, 1, what);
	if (wc.status != status)
		xt_fail("%s: status %s, expected %s", what, xt_status_str(wc.status),
			xt_status_str(status));
	if (t->mem[0] != 1000 || t->mem[1] != 0)
		xt_fail("%s: the target changed", what);
	/* the engine records its ERR in the QP's attributes a little later */
	for (i = 0; i < 200 && xt_qp_state(w.qa) != XIB_QPS_ERR; i++)
		usleep(5000);
	if (xt_qp_state(w.qa) != XIB_QPS_ERR)
		xt_fail("%s: the requester QP is not in ERR", what);
	unpair(&w);
	worker_close(&w);
	xt_info("%s: %s", what, xt_status_str(status));
}

static void run_checks(struct xib_context *ca, struct target *t)
{
	uint64_t va = (uintptr_t)t->mem;
	struct worker w;
	unsigned int i;

	/* one outstanding at a time: the requester honours max_rd_atomic */
	t->mem[0] = 0;
	worker_open(&w, ca, t);
	pair_up(&w, t, QP_ACCESS, 1, 1);
	for (i = 0; i < 32; i++)
		post_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, va, t->mr->rkey, 3, 0,
			    i % RES_SLOTS, 8);
	for (i = 0; i < 32; i++) {
		wait_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, "max_rd_atomic 1");
		if (w.res[i] != 3 * i)
			xt_fail("max_rd_atomic 1: fetch_add %u returned %llu", i,
				(unsigned long long)w.res[i]);
	}
	if (t->mem[0] != 96)
		xt_fail("max_rd_atomic 1: counter %llu", (unsigned long long)t->mem[0]);
	xt_info("max_rd_atomic 1, max_dest_rd_atomic 1: 32 FETCH_ADDs back to back");

	/* CMP_SWP that does not match: returns the value, writes nothing */
	t->mem[1] = 0x1122334455667788ull;
	post_atomic(&w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, va + 8, t->mr->rkey, 42, 7, 0, 8);
	wait_atomic(&w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, "cmp_swp mismatch");
	if (w.res[0] != 0x1122334455667788ull || t->mem[1] != 0x1122334455667788ull)
		xt_fail("cmp_swp mismatch: returned %llx, memory %llx",
			(unsigned long long)w.res[0], (unsigned long long)t->mem[1]);
	/* and one that matches; FETCH_ADD wraps modulo 2^64 */
	post_atomic(&w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, va + 8, t->mr->rkey,
		    0x1122334455667788ull, ~0ull, 1, 8);
	wait_atomic(&w, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, "cmp_swp match");
	post_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, va + 8, t->mr->rkey, 2, 0, 2, 8);
	wait_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, "fetch_add wrap");
	if (w.res[1] != 0x1122334455667788ull || w.res[2] != ~0ull || t->mem[1] != 1)
		xt_fail("cmp_swp/fetch_add: returned %llx %llx, memory %llx",
			(unsigned long long)w.res[1], (unsigned long long)w.res[2],
			(unsigned long long)t->mem[1]);
	/* a longer SGE: the first 8 bytes get the value, the rest is untouched */
	w.res[4] = 0xdddddddddddddddd;
	post_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, va + 8, t->mr->rkey, 1, 0, 3, 16);
	wait_atomic(&w, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, "fetch_add, 16-byte SGE");
	if (w.res[3] != 1 || w.res[4] != 0xdddddddddddddddd)
		xt_fail("16-byte SGE: %llx %llx", (unsigned long long)w.res[3],
			(unsigned long long)w.res[4]);
	unpair(&w);
	worker_close(&w);
	t->mem[1] = 0;
	xt_info("CMP_SWP mismatch and match, FETCH_ADD wrap, 8 of 16 SGE bytes");

	expect_error(ca, t, "VA not 8-byte aligned", QP_ACCESS, va + 4, t->mr->rkey, 8,
		     XIB_HCA_WC_REM_INV_REQ_ERR);
	expect_error(ca, t, "QP without REMOTE_ATOMIC",
		     XIB_ACCESS_REMOTE_READ | XIB_ACCESS_REMOTE_WRITE, va, t->mr->rkey, 8,
		     XIB_HCA_WC_REM_INV_REQ_ERR);
	expect_error(ca, t, "MR without REMOTE_ATOMIC", QP_ACCESS, va, t->ro_mr->rkey, 8,
		     XIB_HCA_WC_REM_ACCESS_ERR);
	expect_error(ca, t, "VA past the MR", QP_ACCESS, va + TARGET_SIZE, t->mr->rkey, 8,
		     XIB_HCA_WC_REM_ACCESS_ERR);
	expect_error(ca, t, "VA before the MR", QP_ACCESS, va - 8, t->mr->rkey, 8,
		     XIB_HCA_WC_REM_ACCESS_ERR);
	expect_error(ca, t, "bad R_Key", QP_ACCESS, va, t->mr->rkey ^ 0x80, 8,
		     XIB_HCA_WC_REM_ACCESS_ERR);
	expect_error(ca, t, "local SGE of 4 bytes", QP_ACCESS, va, t->mr->rkey, 4,
		     XIB_HCA_WC_LOC_LEN_ERR);
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_atomic_test [-d DEV] [-D DEV2] [-n QPS] [-i ITERS] [-c]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL;
	unsigned int nqps = 4, iters = 500;
	bool counter_only = false;
	struct xib_context *ca, *cb;
	struct target t;
	int c;

	xt_prog = "xib_atomic_test";
	while ((c = getopt(argc, argv, "d:D:n:i:c")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		case 'n': nqps = atoi(optarg); break;
		case 'i': iters = atoi(optarg); break;
		case 'c': counter_only = true; break;
		default: usage();
		}
	}
	if (optind != argc || !nqps || nqps > MAX_QPS || !iters)
		usage();
	xt_check(xib_open(dev_a, &ca), dev_a);
	cb = ca;
	if (dev_b)
		xt_check(xib_open(dev_b, &cb), dev_b);
	if (ca->attr.atomic_cap != XIB_ATOMIC_HCA || cb->attr.atomic_cap != XIB_ATOMIC_HCA)
		xt_fail("atomic_cap %u/%u, not IBV_ATOMIC_HCA", ca->attr.atomic_cap,
			cb->attr.atomic_cap);

	memset(&t, 0, sizeof(t));
	xt_side_open(&t.side, cb, -1, 64);
	if (posix_memalign((void **)&t.mem, 4096, TARGET_SIZE))
		xt_fail("posix_memalign");
	memset(t.mem, 0, TARGET_SIZE);
	xt_check(xib_reg_mr(t.side.pd, t.mem, TARGET_SIZE, MR_ACCESS, &t.mr), "reg_mr");
	xt_check(xib_reg_mr(t.side.pd, t.mem, TARGET_SIZE, XIB_ACCESS_REMOTE_READ, &t.ro_mr),
		 "reg_mr read-only");

	run_counter(ca, &t, nqps, iters);
	if (!counter_only)
		run_checks(ca, &t);

	xt_check(xib_dereg_mr(t.ro_mr), "dereg_mr");
	xt_check(xib_dereg_mr(t.mr), "dereg_mr");
	xt_side_close(&t.side);
	free(t.mem);
	if (cb != ca)
		xt_check(xib_close(cb), "close");
	xt_check(xib_close(ca), "close");
	xt_info("PASS");
	return 0;
}
