// SPDX-License-Identifier: BSD-2-Clause
/* Shared helpers of the xib data-path test programs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xib_test.h"

const char *xt_prog = "xib_test";
int xt_verbose;

void xt_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "FAIL: %s: ", xt_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void xt_check(int err, const char *what)
{
	if (err)
		xt_fail("%s: %s", what, strerror(err < 0 ? -err : err));
}

/* Each line says when, in seconds since the first: where the time goes. */
void xt_info(const char *fmt, ...)
{
	static uint64_t t0;
	uint64_t now = xt_now_ns();
	va_list ap;

	if (!t0)
		t0 = now;
	printf("%s: [%7.3f] ", xt_prog, (now - t0) / 1e9);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

uint64_t xt_parse_size(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		xt_fail("bad size '%s'", s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		xt_fail("bad size '%s'", s);
	return v;
}

uint64_t xt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static bool gid_is_v4(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, pfx, 12);
}

static bool gid_is_zero(const uint8_t g[16])
{
	static const uint8_t z[16];

	return !memcmp(g, z, 16);
}

int xt_pick_gid(struct xib_context *ctx, uint8_t gid[16])
{
	uint8_t g[16];
	int i, first = -1;

	for (i = 0; i < 32; i++) {
		if (xib_query_gid(ctx, 1, i, g, NULL) || gid_is_zero(g))
			continue;
		if (gid_is_v4(g)) {
			memcpy(gid, g, 16);
			return i;
		}
		if (first < 0)
			first = i;
	}
	if (first < 0)
		xt_fail("the device has no GID");
	xt_check(xib_query_gid(ctx, 1, first, gid, NULL), "query_gid");
	return first;
}

void xt_side_open(struct xt_side *s, struct xib_context *ctx, int sgid_index,
		  uint32_t cqe)
{
	struct xib_uverbs_port_attr pa;

	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	xt_check(xib_query_port(ctx, 1, &pa), "query_port");
	s->mtu_enum = pa.active_mtu;
	if (s->mtu_enum < XIB_MTU_256 || s->mtu_enum > XIB_MTU_4096)
		xt_fail("port reports active_mtu %u", s->mtu_enum);
	s->mtu = 128u << s->mtu_enum;
	if (sgid_index < 0) {
		s->sgid_index = xt_pick_gid(ctx, s->gid);
	} else {
		s->sgid_index = sgid_index;
		xt_check(xib_query_gid(ctx, 1, sgid_index, s->gid, NULL), "query_gid");
	}
	xt_check(xib_alloc_pd(ctx, &s->pd), "alloc_pd");
	xt_check(xib_create_cq(ctx, cqe, 1, NULL, 0, &s->scq), "create_cq");
	xt_check(xib_create_comp_channel(ctx, &s->ch), "create_comp_channel");
	xt_check(xib_create_cq(ctx, cqe, 2, s->ch, 0, &s->rcq), "create_cq");
}

void xt_side_close(struct xt_side *s)
{
	xt_check(xib_destroy_cq(s->scq), "destroy_cq");
	xt_check(xib_destroy_cq(s->rcq), "destroy_cq");
	xt_check(xib_destroy_comp_channel(s->ch), "destroy_comp_channel");
	xt_check(xib_dealloc_pd(s->pd), "dealloc_pd");
}

struct xib_qp *xt_create_qp(struct xt_side *s, uint32_t type, uint32_t max_wr,
			    uint32_t max_sge, uint32_t max_inline, struct xib_srq *srq)
{
	struct xib_qp_init_attr init;
	struct xib_qp *qp;

	static uint64_t next_handle = 1000;

	memset(&init, 0, sizeof(init));
	init.user_handle = next_handle++;	/* names the QP in async events */
	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	init.srq = srq;
	init.qp_type = type;
	init.cap.max_send_wr = max_wr;
	init.cap.max_recv_wr = srq ? 0 : max_wr;
	init.cap.max_send_sge = max_sge;
	init.cap.max_recv_sge = srq ? 0 : max_sge;
	init.cap.max_inline_data = max_inline;
	xt_check(xib_create_qp(s->pd, &init, &qp), "create_qp");
	return qp;
}

void xt_fill_av(struct xib_uverbs_ah_attr *av, const struct xt_side *s,
		const struct xt_side *rs)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, rs->gid, 16);
	av->sgid_index = s->sgid_index;
	av->hop_limit = 64;
	av->port_num = 1;
	av->is_global = 1;
}

void xt_rc_connect(struct xib_qp *qp, const struct xt_side *s, uint32_t rqpn,
		   const struct xt_side *rs, uint32_t access)
{
	struct xib_uverbs_qp_attr a;
	uint32_t mtu = s->mtu_enum < rs->mtu_enum ? s->mtu_enum : rs->mtu_enum;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = access;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX |
			       XIB_QP_PORT | XIB_QP_ACCESS_FLAGS), "modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	xt_fill_av(&a.ah_attr, s, rs);
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			       XIB_QP_DEST_QPN | XIB_QP_RQ_PSN |
			       XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER),
		 "modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = 0x123;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT |
			       XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY |
			       XIB_QP_MAX_QP_RD_ATOMIC), "modify_qp RTS");
}

void xt_ud_ready(struct xib_qp *qp, uint32_t qkey)
{
	struct xib_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = qkey;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX |
			       XIB_QP_PORT | XIB_QP_QKEY), "modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE), "modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = 0x42;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN), "modify_qp RTS");
}

int xt_poll(struct xib_cq *cq, xib_wc *wc, int n, int timeout_ms)
{
	uint64_t start = xt_now_ns(), now;
	uint64_t deadline = start + (uint64_t)timeout_ms * 1000000ull;
	unsigned int spins = 0;
	int got = 0, r;

	/*
	 * Busy-poll (no system call: clock_gettime is in the vDSO); only a
	 * wait longer than 100 ms sleeps between polls.
	 */
	while (got < n) {
		r = xib_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			xt_fail("poll_cq: %s", strerror(-r));
		got += r;
		if (r || ++spins % 256)
			continue;
		now = xt_now_ns();
		if (now > deadline)
			break;
		if (now - start > 100000000ull) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	return got;
}

void xt_wait(struct xib_cq *cq, xib_wc *wc, int n, const char *what)
{
	int got = xt_poll(cq, wc, n, 30000);

	if (got != n)
		xt_fail("%s: %d of %d completions within 30 s", what, got, n);
}

const char *xt_status_str(uint32_t status)
{
	static const char *const names[] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
		"LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
		"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
		"LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
		"INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR",
		"RESP_TIMEOUT_ERR", "GENERAL_ERR",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}

uint32_t xt_qp_state(struct xib_qp *qp)
{
	struct xib_uverbs_query_qp q;

	xt_check(xib_query_qp(qp, &q), "query_qp");
	return q.attr.qp_state;
}

/* FNV-1a style, over 64-bit words, then the tail bytes. */
uint64_t xt_csum(const void *p, size_t len, uint64_t h)
{
	const uint8_t *b = p;
	size_t i = 0;

	if (!h)
		h = 0xcbf29ce484222325ull;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* xorshift64* bytes: cheap, distinct per seed and position. */
void xt_pattern(void *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	uint8_t *b = p;
	size_t i = 0;

	while (i < len) {
		uint64_t v;
		size_t k;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545f4914f6cdd1dull;
		for (k = 0; k < 8 && i < len; k++, i++)
			b[i] = (uint8_t)(v >> (8 * k));
	}
}
