// SPDX-License-Identifier: BSD-2-Clause
/*
 * ibv_extended: rdma-core 44's extended verbs, and the verbs xib used to
 * do only halfway, moving data on one device (two RC QPs, two UD QPs in
 * loopback) through the public API of <infiniband/verbs.h>, as an
 * unmodified rdma-core application does.  Linked against libibverbs.so.1
 * and run with xib-run (tests/bats/ibverbs-ex.bats, in the VM).
 *
 * usage: ibv_extended [-d DEV] [-t TEST] [-n ITERS]
 *   TEST: devex  ibv_query_device_ex, truthful (and ibv_query_device)
 *         cqex   ibv_create_cq_ex: refusals, read functions, polling
 *         qpex   ibv_create_qp_ex + ibv_wr_*: every builder and setter,
 *                RC and UD, each wc_flags field checked; abort, errors
 *         td     thread and parent domains carrying traffic
 *         iova   ibv_reg_mr_iova/_iova2: RDMA at an iova, not the address
 *         rereg  ibv_rereg_mr for each flag, traffic after each
 *         resize ibv_resize_cq below the unpolled completions: refused
 *         srq    SRQ limit: the event, then ibv_query_srq says 0
 *         srqresize  ibv_modify_srq(IBV_SRQ_MAX_WR): grow, shrink, refusals
 *         events COMM_EST, SQ_DRAINED (with SQD's semantics), LAST_WQE_REACHED
 *         rnrnak RC_RNR_NAK_GEN: a SEND without a receive gets an RNR NAK
 *         xrc    ibv_open_xrcd/ibv_close_xrcd, XRC SRQs (ibv_create_srq_ex,
 *                ibv_get_srq_num), and the seed's legacy XRC calls
 *         all    every one (the default)
 *   ITERS: rounds of the data-moving tests (default 20)
 *
 * Expectations come from the rdma-core 44 manual pages and providers
 * (mlx5's refusals) and from Documentation/libibverbs.rst for what is
 * xib's choice (keys kept by re-registration, the vendor IDs).
 * Prints TAP; exits 1 if a check failed.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include <infiniband/verbs.h>
#include <xib/uverbs.h>
#include <dlfcn.h>

static int checks, failures, iters = 20;

static void __attribute__((format(printf, 2, 3))) check(int ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define check_null_errno(p, err, what) \
	check((p) == NULL && errno == (err), "%s: NULL, errno %s (got %p, errno %d %s)", \
	      what, #err, (void *)(p), errno, strerror(errno))

#define check_ret(call, want, what) do { \
	int __r = (call); \
	check(__r == (want), "%s: %s (got %d %s)", what, #want, __r, \
	      __r > 0 ? strerror(__r) : ""); \
} while (0)

/* --- the device ------------------------------------------------------------ */

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;
static int gidx = -1;
static union ibv_gid gid;
static int timeout_ms = 20000;

static int open_device(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_gid_entry e;
	int i;

	for (i = 0; l && l[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(l[i]), name))
			break;
	if (!l || !l[i]) {
		check(0, "device %s found", name ? name : "(any)");
		return -1;
	}
	ctx = ibv_open_device(l[i]);
	ibv_free_device_list(l);
	if (!ctx || ibv_query_device(ctx, &dattr)) {
		check(0, "ibv_open_device/ibv_query_device (errno %d)", errno);
		return -1;
	}
	/* The RoCEv2 GID of the interface's IPv4 address: loopback to ourselves. */
	for (i = 0; i < 16; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) || e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff) {
			gidx = i;
			gid = e.gid;
			break;
		}
	}
	if (gidx < 0) {
		check(0, "a RoCEv2 IPv4 GID on port 1");
		return -1;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- one completion, however it was polled ---------------------------------- */

struct rec {
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t vendor_err, byte_len, qp_num, src_qp, slid;
	__be32 imm;
	unsigned int wc_flags;
	uint8_t sl, dlid_path_bits;
};

static void rec_from_ex(struct ibv_cq_ex *cq, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->wr_id = cq->wr_id;
	r->status = cq->status;
	r->opcode = ibv_wc_read_opcode(cq);
	r->vendor_err = ibv_wc_read_vendor_err(cq);
	r->byte_len = ibv_wc_read_byte_len(cq);
	r->imm = ibv_wc_read_imm_data(cq);
	r->qp_num = ibv_wc_read_qp_num(cq);
	r->src_qp = ibv_wc_read_src_qp(cq);
	r->wc_flags = ibv_wc_read_wc_flags(cq);
	r->slid = ibv_wc_read_slid(cq);
	r->sl = ibv_wc_read_sl(cq);
	r->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
}

static void rec_from_wc(const struct ibv_wc *wc, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->wr_id = wc->wr_id;
	r->status = wc->status;
	r->opcode = wc->opcode;
	r->vendor_err = wc->vendor_err;
	r->byte_len = wc->byte_len;
	r->imm = wc->imm_data;
	r->qp_num = wc->qp_num;
	r->src_qp = wc->src_qp;
	r->wc_flags = wc->wc_flags;
	r->slid = wc->slid;
	r->sl = wc->sl;
	r->dlid_path_bits = wc->dlid_path_bits;
}

/*
 * n completions of an extended CQ (all standard wc_flags) through
 * ibv_start_poll/ibv_next_poll/ibv_end_poll; returns how many came.
 */
static int poll_ex(struct ibv_cq_ex *cq, struct rec *r, int n)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	int64_t end = now_ms() + timeout_ms;
	int got = 0, ret;

	while (got < n && now_ms() < end) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT)
			continue;
		if (ret)
			break;
		do {
			rec_from_ex(cq, &r[got++]);
		} while (got < n && !(ret = ibv_next_poll(cq)));
		ibv_end_poll(cq);
		if (ret && ret != ENOENT)
			break;
	}
	return got;
}

static int poll_plain(struct ibv_cq *cq, struct rec *r, int n)
{
	int64_t end = now_ms() + timeout_ms;
	struct ibv_wc wc;
	int got = 0, ret;

	while (got < n && now_ms() < end) {
		ret = ibv_poll_cq(cq, 1, &wc);
		if (ret < 0)
			break;
		if (ret)
			rec_from_wc(&wc, &r[got++]);
	}
	return got;
}

/* Nothing more comes within @ms. */
static int cq_stays_empty(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;
	int64_t end = now_ms() + ms;

	while (now_ms() < end)
		if (ibv_poll_cq(cq, 1, &wc))
			return 0;
	return 1;
}

static int rec_same(const struct rec *a, const struct rec *b)
{
	return a->status == b->status && a->opcode == b->opcode &&
	       a->vendor_err == b->vendor_err && a->byte_len == b->byte_len &&
	       a->imm == b->imm && a->qp_num == b->qp_num && a->src_qp == b->src_qp &&
	       a->wc_flags == b->wc_flags && a->slid == b->slid && a->sl == b->sl &&
	       a->dlid_path_bits == b->dlid_path_bits;
}

/* --- QPs ---------------------------------------------------------------------------- */

static struct ibv_cq_ex *cq_ex(int cqe, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a = { .cqe = cqe, .wc_flags = wc_flags };

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_qp *qp_ex(struct ibv_pd *pd, enum ibv_qp_type type, struct ibv_cq *scq,
			    struct ibv_cq *rcq, struct ibv_srq *srq, uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.qp_type = type,
		.cap = { .max_send_wr = 64, .max_recv_wr = srq ? 0 : 64, .max_send_sge = 4,
			 .max_recv_sge = srq ? 0 : 4, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | (ops ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0),
		.pd = pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = 0x11111111,
	};

	if (qp->qp_type == IBV_QPT_UD)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_QKEY);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS);
}

/* An RC QP to the other one on this device, up to RTR; a UD QP up to RTR. */
static int qp_to_rtr(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a;
	int ret = to_init(qp);

	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (qp->qp_type == IBV_QPT_UD) {
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	} else {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.rq_psn = 100;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gidx;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	}
	return ret;
}

static int qp_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	if (qp->qp_type == IBV_QPT_UD)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* An RC QP to the other one on this device, up to RTS; a UD QP up to RTS. */
static int connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	int ret = qp_to_rtr(qp, dest);

	return ret ? ret : qp_to_rts(qp);
}

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint64_t wr_id, void *buf,
		     uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) : ibv_post_recv(qp, &wr, &bad);
}

/* One signaled SEND or RDMA WRITE (rkey != 0) with the plain API. */
static int post_plain(struct ibv_qp *qp, uint64_t wr_id, void *buf, uint32_t len,
		      uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = rkey ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Byte @i of the pattern @seed. */
static uint8_t pat(unsigned int seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static void fill(void *p, size_t n, unsigned int seed)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = pat(seed, i);
}

/* Bytes [off, off + n) of @p still hold what fill(p, .., seed) wrote. */
static int filled_at(const void *p, size_t off, size_t n, unsigned int seed)
{
	const uint8_t *b = p;
	size_t i;

	for (i = off; i < off + n; i++)
		if (b[i] != pat(seed, i))
			return 0;
	return 1;
}

static int filled(const void *p, size_t n, unsigned int seed)
{
	return filled_at(p, 0, n, seed);
}

static int zeroed(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* --- devex -------------------------------------------------------------------------- */

#define XIB_VENDOR_ID		0x7a6962
#define XIB_VENDOR_PART_ID	1
/*
 * What xib_core itself honours, and what the HCA adds: it sends RNR NAKs
 * (the rnrnak section), resizes SRQs (the srqresize section) and does XRC in full (the xrc
 * section, xib_xrc_test).  Exactly these: each other bit is a capability the
 * device lacks (Documentation/libibverbs.rst, "Device attributes").
 */
#define CORE_CAPS	(IBV_DEVICE_CURR_QP_STATE_MOD | IBV_DEVICE_PORT_ACTIVE_EVENT | \
			 IBV_DEVICE_SYS_IMAGE_GUID)
#define HONOURED_CAPS	(CORE_CAPS | IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SRQ_RESIZE | \
			 IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B | \
			 IBV_DEVICE_XRC)

static void test_devex(void)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 0 };
	struct ibv_device_attr_ex ex, zero;
	struct ibv_device_attr a;
	int ret;

	memset(&ex, 0xa5, sizeof(ex));
	ret = ibv_query_device_ex(ctx, NULL, &ex);
	check_ret(ret, 0, "ibv_query_device_ex");
	ibv_query_device(ctx, &a);
	check(!memcmp(&ex.orig_attr, &a, sizeof(a)),
	      "ibv_query_device_ex: orig_attr is ibv_query_device's");
	check(ex.device_cap_flags_ex == (uint64_t)(uint32_t)a.device_cap_flags &&
	      ex.phys_port_cnt_ex == a.phys_port_cnt,
	      "device_cap_flags_ex 0x%" PRIx64 " and phys_port_cnt_ex %u match",
	      ex.device_cap_flags_ex, ex.phys_port_cnt_ex);
	memset(&zero, 0, sizeof(zero));
	check(!memcmp(&ex.odp_caps, &zero.odp_caps, sizeof(ex.odp_caps)) &&
	      ex.completion_timestamp_mask == 0 && ex.hca_core_clock == 0 &&
	      !memcmp(&ex.tso_caps, &zero.tso_caps, sizeof(ex.tso_caps)) &&
	      !memcmp(&ex.rss_caps, &zero.rss_caps, sizeof(ex.rss_caps)) &&
	      ex.max_wq_type_rq == 0 && ex.raw_packet_caps == 0 &&
	      !memcmp(&ex.tm_caps, &zero.tm_caps, sizeof(ex.tm_caps)) &&
	      ex.max_dm_size == 0 && ex.xrc_odp_caps == 0,
	      "ibv_query_device_ex: no ODP, clock, TSO, RSS, WQs, raw packet, TM, DM (all 0)");
	in.comp_mask = 1;
	check_ret(ibv_query_device_ex(ctx, &in, &ex), EINVAL,
		  "ibv_query_device_ex with an unknown input comp_mask");

	check(a.sys_image_guid != 0 && a.sys_image_guid == a.node_guid,
	      "sys_image_guid %016" PRIx64 " is the node GUID",
	      (uint64_t)be64toh(a.sys_image_guid));
	check(a.vendor_id == XIB_VENDOR_ID && a.vendor_part_id == XIB_VENDOR_PART_ID,
	      "vendor_id 0x%x, vendor_part_id %u (xib's)", a.vendor_id, a.vendor_part_id);
	check((unsigned int)a.device_cap_flags == (unsigned int)HONOURED_CAPS,
	      "device_cap_flags 0x%x: every bit the device honours (0x%x), no other",
	      a.device_cap_flags, (unsigned int)HONOURED_CAPS);
	check(a.atomic_cap == IBV_ATOMIC_HCA && a.max_qp_rd_atom > 0 &&
	      a.max_qp_init_rd_atom > 0,
	      "atomic_cap %d (IBV_ATOMIC_HCA), max_qp_rd_atom %d, max_qp_init_rd_atom %d",
	      a.atomic_cap, a.max_qp_rd_atom, a.max_qp_init_rd_atom);
}

/* --- cqex --------------------------------------------------------------------------- */

static void test_cqex(struct ibv_pd *pd)
{
	static const struct { uint64_t flag; const char *name; } refused[] = {
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, "COMPLETION_TIMESTAMP" },
		{ IBV_WC_EX_WITH_CVLAN, "CVLAN" },
		{ IBV_WC_EX_WITH_FLOW_TAG, "FLOW_TAG" },
		{ IBV_WC_EX_WITH_TM_INFO, "TM_INFO" },
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, "COMPLETION_TIMESTAMP_WALLCLOCK" },
		{ 1ULL << 20, "an unknown bit" },
	};
	struct ibv_cq_init_attr_ex a;
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_cq_ex *cq;
	char what[96];
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		errno = 0;
		cq = cq_ex(8, IBV_WC_EX_WITH_BYTE_LEN | refused[i].flag);
		snprintf(what, sizeof(what), "ibv_create_cq_ex(wc_flags with %s)", refused[i].name);
		check_null_errno(cq, EOPNOTSUPP, what);
	}
	memset(&a, 0, sizeof(a));
	a.cqe = 8;
	a.comp_mask = 1 << 5;
	errno = 0;
	check_null_errno(ibv_create_cq_ex(ctx, &a), EINVAL, "ibv_create_cq_ex(unknown comp_mask)");
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = 1 << 7;
	errno = 0;
	check_null_errno(ibv_create_cq_ex(ctx, &a), EINVAL, "ibv_create_cq_ex(unknown flag)");
	a.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	errno = 0;
	check_null_errno(ibv_create_cq_ex(ctx, &a), EOPNOTSUPP,
			 "ibv_create_cq_ex(IGNORE_OVERRUN)");
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	a.flags = 0;
	a.parent_domain = pd;
	errno = 0;
	check_null_errno(ibv_create_cq_ex(ctx, &a), EINVAL,
			 "ibv_create_cq_ex(parent_domain a plain PD)");
	memset(&a, 0, sizeof(a));
	errno = 0;
	check_null_errno(ibv_create_cq_ex(ctx, &a), EINVAL, "ibv_create_cq_ex(cqe 0)");

	cq = cq_ex(10, IBV_WC_STANDARD_FLAGS);
	check(cq != NULL, "ibv_create_cq_ex(all standard wc_flags) (errno %d)", cq ? 0 : errno);
	if (!cq)
		return;
	check(cq->cqe >= 10 && ibv_cq_ex_to_cq(cq)->cqe == cq->cqe &&
	      ibv_cq_ex_to_cq(cq)->context == ctx,
	      "CQ: cqe %d >= 10, the same through ibv_cq_ex_to_cq", cq->cqe);
	check(cq->read_byte_len && cq->read_imm_data && cq->read_qp_num && cq->read_src_qp &&
	      cq->read_slid && cq->read_sl && cq->read_dlid_path_bits && cq->read_opcode &&
	      cq->read_vendor_err && cq->read_wc_flags && !cq->read_completion_ts &&
	      !cq->read_cvlan && !cq->read_flow_tag && !cq->read_tm_info &&
	      !cq->read_completion_wallclock_ns,
	      "read functions: the standard ones set, the refused ones NULL");
	check_ret(ibv_start_poll(cq, &pa), ENOENT, "ibv_start_poll on an empty CQ");
	pa.comp_mask = 1;
	check_ret(ibv_start_poll(cq, &pa), EINVAL, "ibv_start_poll with an unknown comp_mask");
	check(ibv_poll_cq(ibv_cq_ex_to_cq(cq), 0, NULL) == 0, "ibv_poll_cq works on it too");
	check_ret(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "ibv_destroy_cq of an extended CQ");

	/* SINGLE_THREADED: the same CQ, without its locks. */
	memset(&a, 0, sizeof(a));
	a.cqe = 4;
	a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cq = ibv_create_cq_ex(ctx, &a);
	pa.comp_mask = 0;
	check(cq && cq->read_byte_len && ibv_start_poll(cq, &pa) == ENOENT &&
	      ibv_start_poll(cq, &pa) == ENOENT,
	      "ibv_create_cq_ex(IBV_CREATE_CQ_ATTR_SINGLE_THREADED): polls (errno %d)",
	      cq ? 0 : errno);
	if (cq)
		check_ret(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "ibv_destroy_cq of it");

	cq = cq_ex(4, 0);
	check(cq && !cq->read_byte_len && !cq->read_imm_data && !cq->read_qp_num &&
	      !cq->read_src_qp && !cq->read_slid && !cq->read_sl && !cq->read_dlid_path_bits &&
	      cq->read_opcode && cq->read_wc_flags,
	      "wc_flags 0: only the read functions that are always valid");
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

/* --- qpex ---------------------------------------------------------------------------- */

#define OPS_RC	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ)
#define OPS_UD	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

static void test_qpex_refusals(struct ibv_pd *pd, struct ibv_cq *cq)
{
	static const struct { uint64_t ops; enum ibv_qp_type type; const char *name; } refused[] = {
		{ IBV_QP_EX_WITH_LOCAL_INV, IBV_QPT_UD, "LOCAL_INV on UD" },
		{ IBV_QP_EX_WITH_BIND_MW, IBV_QPT_UD, "BIND_MW on UD" },
		/* the IBTA has SEND with invalidate on RC only */
		{ IBV_QP_EX_WITH_SEND_WITH_INV, IBV_QPT_UC, "SEND_WITH_INV on UC" },
		{ IBV_QP_EX_WITH_SEND_WITH_INV, IBV_QPT_UD, "SEND_WITH_INV on UD" },
		{ IBV_QP_EX_WITH_TSO, IBV_QPT_RC, "TSO" },
		{ IBV_QP_EX_WITH_ATOMIC_WRITE, IBV_QPT_RC, "ATOMIC_WRITE" },
		{ IBV_QP_EX_WITH_RDMA_WRITE, IBV_QPT_UD, "RDMA_WRITE on UD" },
		{ IBV_QP_EX_WITH_RDMA_READ, IBV_QPT_UD, "RDMA_READ on UD" },
		{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_QPT_UD, "ATOMIC_FETCH_AND_ADD on UD" },
		/* the IBTA has no UC READ or atomic */
		{ IBV_QP_EX_WITH_RDMA_READ, IBV_QPT_UC, "RDMA_READ on UC" },
		{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, IBV_QPT_UC, "ATOMIC_CMP_AND_SWP on UC" },
	};
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;
	char what[96];
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		errno = 0;
		qp = qp_ex(pd, refused[i].type, cq, cq, NULL, IBV_QP_EX_WITH_SEND | refused[i].ops);
		snprintf(what, sizeof(what), "ibv_create_qp_ex(send_ops_flags %s)", refused[i].name);
		check_null_errno(qp, EOPNOTSUPP, what);
	}
	/* UC: SENDs and RDMA WRITEs */
	qp = qp_ex(pd, IBV_QPT_UC, cq, cq, NULL,
		   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		   IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	check(qp != NULL && qp->qp_type == IBV_QPT_UC && ibv_qp_to_qp_ex(qp) != NULL,
	      "ibv_create_qp_ex(UC, SEND and RDMA_WRITE with and without immediate): %s",
	      qp ? "ok" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	/* Atomics follow atomic_cap, which is HCA (test_qpex_atomic uses them). */
	errno = 0;
	qp = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL,
		   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	check(qp != NULL && dattr.atomic_cap == IBV_ATOMIC_HCA,
	      "ibv_create_qp_ex(ATOMIC_CMP_AND_SWP) with atomic_cap %d", dattr.atomic_cap);
	if (qp)
		ibv_destroy_qp(qp);
	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 4;
	a.pd = pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;
	errno = 0;
	/* a domain names an XRC target's scope: no other type takes one */
	check_null_errno(ibv_create_qp_ex(ctx, &a), EINVAL, "ibv_create_qp_ex(RC with an XRCD)");
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	errno = 0;
	check_null_errno(ibv_create_qp_ex(ctx, &a), EOPNOTSUPP, "ibv_create_qp_ex(create_flags)");

	qp = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	check(qp != NULL && ibv_qp_to_qp_ex(qp) == NULL,
	      "a QP made without send_ops_flags has no ibv_qp_ex (rdma-core)");
	/* No in-order placement is promised (Documentation/libibverbs.rst). */
	check(qp && ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 0) == 0 &&
	      ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0) == 0 &&
	      ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_READ, 0) == 0,
	      "ibv_query_qp_data_in_order: 0 for WRITE, SEND and READ");
	if (qp)
		ibv_destroy_qp(qp);
}

/* RC: every builder and setter, one batch; each completion field checked. */
static void test_qpex_rc(struct ibv_pd *pd)
{
	enum { LEN = 4096 };
	struct ibv_cq_ex *scq = cq_ex(64, IBV_WC_STANDARD_FLAGS);
	struct ibv_cq_ex *rcq = cq_ex(64, IBV_WC_STANDARD_FLAGS);
	uint8_t *sbuf = calloc(1, LEN), *rbuf = calloc(1, 4 * LEN), *win = calloc(1, LEN);
	uint8_t *rdbuf = calloc(1, LEN);
	struct ibv_mr *smr = NULL, *rmr = NULL, *wmr = NULL, *dmr = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_qp_ex *xa;
	struct rec s[8], r[8], p[8];
	struct ibv_sge list[2];
	struct ibv_data_buf dlist[2];
	int i, round, ok, bad = 0;
	__be32 imm1 = htobe32(0x12345678), imm2 = htobe32(0xcafef00d);
	char inl1[40], inl2[24];

	if (!scq || !rcq || !sbuf || !rbuf || !win || !rdbuf) {
		check(0, "qpex: CQs and buffers (errno %d)", errno);
		goto out;
	}
	smr = ibv_reg_mr(pd, sbuf, LEN, IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, 4 * LEN, IBV_ACCESS_LOCAL_WRITE);
	wmr = ibv_reg_mr(pd, win, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ);
	dmr = ibv_reg_mr(pd, rdbuf, LEN, IBV_ACCESS_LOCAL_WRITE);
	qa = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL, OPS_RC);
	qb = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(rcq), NULL, OPS_RC);
	check(smr && rmr && wmr && dmr && qa && qb,
	      "ibv_create_qp_ex(RC, send_ops_flags SEND|SEND_IMM|WRITE|WRITE_IMM|READ) x2 (errno %d)",
	      errno);
	if (!smr || !rmr || !wmr || !dmr || !qa || !qb)
		goto out;
	xa = ibv_qp_to_qp_ex(qa);
	check(xa != NULL && &xa->qp_base == qa, "ibv_qp_to_qp_ex gives the QP's ibv_qp_ex");
	check(connect_qp(qa, qb->qp_num) == 0 && connect_qp(qb, qa->qp_num) == 0,
	      "RC pair to RTS on one device");
	if (!xa || qa->state != IBV_QPS_RTS || qb->state != IBV_QPS_RTS)
		goto out;

	for (round = 0; round < iters; round++) {
		fill(sbuf, LEN, round);
		fill(win, LEN, round + 1000);	/* what the READ fetches... */
		fill(inl1, sizeof(inl1), round + 2000);
		fill(inl2, sizeof(inl2), round + 3000);
		memset(rbuf, 0, 4 * LEN);
		memset(rdbuf, 0, LEN);
		for (i = 0; i < 4; i++)
			post_recv(qb, NULL, 100 + i, rbuf + i * LEN, LEN, rmr->lkey);

		ibv_wr_start(xa);
		xa->wr_id = 1;
		xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(xa);
		ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 100);
		xa->wr_id = 2;
		ibv_wr_send_imm(xa, imm1);
		list[0] = (struct ibv_sge){ (uintptr_t)sbuf + 100, 300, smr->lkey };
		list[1] = (struct ibv_sge){ (uintptr_t)sbuf + 1000, 700, smr->lkey };
		ibv_wr_set_sge_list(xa, 2, list);
		/* ...after the READ, which the WRITE that follows overwrites part of */
		xa->wr_id = 3;
		ibv_wr_rdma_read(xa, wmr->rkey, (uintptr_t)win);
		ibv_wr_set_sge(xa, dmr->lkey, (uintptr_t)rdbuf, LEN);
		xa->wr_id = 4;
		xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
		ibv_wr_rdma_write(xa, wmr->rkey, (uintptr_t)win + 2048);
		ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf + 2048, 2048);
		xa->wr_id = 5;
		xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write_imm(xa, wmr->rkey, (uintptr_t)win, imm2);
		ibv_wr_set_inline_data(xa, inl1, sizeof(inl1));
		xa->wr_id = 6;
		ibv_wr_send(xa);
		dlist[0] = (struct ibv_data_buf){ inl2, sizeof(inl2) };
		dlist[1] = (struct ibv_data_buf){ inl1, 8 };
		ibv_wr_set_inline_data_list(xa, 2, dlist);
		ok = ibv_wr_complete(xa) == 0;
		ok &= poll_ex(scq, s, 6) == 6;
		ok &= poll_ex(rcq, r, 4) == 4;
		if (!ok) {
			check(0, "round %d: 6 send and 4 receive completions", round);
			goto out;
		}
		for (i = 0; i < 6; i++)
			bad |= s[i].wr_id != (uint64_t)i + 1 || s[i].status != IBV_WC_SUCCESS ||
			       s[i].qp_num != qa->qp_num;
		bad |= s[0].opcode != IBV_WC_SEND || s[1].opcode != IBV_WC_SEND ||
		       s[2].opcode != IBV_WC_RDMA_READ || s[3].opcode != IBV_WC_RDMA_WRITE ||
		       s[4].opcode != IBV_WC_RDMA_WRITE || s[5].opcode != IBV_WC_SEND;
		bad |= s[2].byte_len != LEN;
		/* receiver: SEND, SEND_IMM, WRITE_IMM (no WQE data), SEND of inline data */
		bad |= r[0].wr_id != 100 || r[0].opcode != IBV_WC_RECV || r[0].byte_len != 100 ||
		       r[0].wc_flags != 0;
		bad |= r[1].wr_id != 101 || r[1].opcode != IBV_WC_RECV || r[1].byte_len != 1000 ||
		       r[1].wc_flags != IBV_WC_WITH_IMM || r[1].imm != imm1;
		bad |= r[2].wr_id != 102 || r[2].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		       r[2].byte_len != sizeof(inl1) || r[2].wc_flags != IBV_WC_WITH_IMM ||
		       r[2].imm != imm2;
		bad |= r[3].wr_id != 103 || r[3].opcode != IBV_WC_RECV ||
		       r[3].byte_len != sizeof(inl2) + 8 ||
		       r[3].wc_flags != 0;
		for (i = 0; i < 4; i++)
			bad |= r[i].status != IBV_WC_SUCCESS || r[i].qp_num != qb->qp_num ||
			       r[i].src_qp != qa->qp_num || r[i].vendor_err != 0;
		/* the data */
		bad |= memcmp(rbuf, sbuf, 100) || memcmp(rbuf + LEN, sbuf + 100, 300) ||
		       memcmp(rbuf + LEN + 300, sbuf + 1000, 700);
		bad |= !filled(rdbuf, LEN, round + 1000);
		bad |= memcmp(win, inl1, sizeof(inl1)) || memcmp(win + 2048, sbuf + 2048, 2048) ||
		       !filled_at(win, sizeof(inl1), 2048 - sizeof(inl1), round + 1000);
		bad |= !zeroed(rbuf + 2 * LEN, LEN) || memcmp(rbuf + 3 * LEN, inl2, sizeof(inl2)) ||
		       memcmp(rbuf + 3 * LEN + sizeof(inl2), inl1, 8);
		if (bad) {
			printf("# round %d: s wr_id/opcode/len %" PRIu64 "/%d/%u ... r %d/%u/%x\n",
			       round, s[2].wr_id, s[2].opcode, s[2].byte_len, r[2].opcode,
			       r[2].byte_len, r[2].wc_flags);
			break;
		}
	}
	check(!bad, "%d rounds of SEND(sge), SEND_IMM(sge list), READ, WRITE(fence), "
	      "WRITE_IMM(inline), SEND(inline list): completions and data", round);

	/*
	 * The same completions polled both ways agree on every field, slid,
	 * sl and dlid_path_bits included.
	 */
	post_recv(qb, NULL, 200, rbuf, LEN, rmr->lkey);
	post_recv(qb, NULL, 201, rbuf + LEN, LEN, rmr->lkey);
	ibv_wr_start(xa);
	xa->wr_id = 20;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(xa, imm1);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 64);
	xa->wr_id = 21;
	ibv_wr_send_imm(xa, imm1);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 64);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(rcq, r, 1) == 1 &&
	     poll_plain(ibv_cq_ex_to_cq(rcq), p, 1) == 1 && poll_ex(scq, s, 1) == 1 &&
	     poll_plain(ibv_cq_ex_to_cq(scq), s + 1, 1) == 1;
	check(ok && rec_same(&r[0], &p[0]) && r[0].wr_id == 200 && p[0].wr_id == 201 &&
	      rec_same(&s[0], &s[1]),
	      "ibv_wc_read_* and ibv_poll_cq agree on every field (slid %u, sl %u, dlid_path_bits %u)",
	      r[0].slid, r[0].sl, r[0].dlid_path_bits);

	/* ibv_wr_abort: nothing is sent. */
	post_recv(qb, NULL, 300, rbuf, LEN, rmr->lkey);
	ibv_wr_start(xa);
	xa->wr_id = 30;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);
	ibv_wr_abort(xa);
	check(cq_stays_empty(ibv_cq_ex_to_cq(scq), 300) &&
	      cq_stays_empty(ibv_cq_ex_to_cq(rcq), 1),
	      "ibv_wr_abort: the batch is not sent");
	/* A bad WR fails the whole batch: ibv_wr_complete returns its error. */
	ibv_wr_start(xa);
	xa->wr_id = 31;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);
	xa->wr_id = 32;
	ibv_wr_send(xa);
	ibv_wr_set_inline_data(xa, sbuf, 1024);	/* above max_inline_data */
	check_ret(ibv_wr_complete(xa), EINVAL, "ibv_wr_complete with inline data above the cap");
	ibv_wr_start(xa);
	xa->wr_id = 33;
	xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);
	check_ret(ibv_wr_complete(xa), EOPNOTSUPP, "ibv_wr_complete with IBV_SEND_IP_CSUM");
	ibv_wr_start(xa);
	xa->wr_id = 34;
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);	/* no builder */
	ibv_wr_send(xa);
	check_ret(ibv_wr_complete(xa), EINVAL, "ibv_wr_complete: a setter before any builder");
	check(cq_stays_empty(ibv_cq_ex_to_cq(scq), 300), "the failed batches sent nothing");
	/* The queue is usable after them; the plain post works on it too. */
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(xa);
	xa->wr_id = 35;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1 && poll_ex(rcq, r, 1) == 1;
	check(ok && s[0].wr_id == 35 && r[0].wr_id == 300 && r[0].byte_len == 10,
	      "the next batch goes out (wr_id %" PRIu64 ", receive %" PRIu64 ")", s[0].wr_id,
	      r[0].wr_id);
	post_recv(qb, NULL, 301, rbuf, LEN, rmr->lkey);
	ok = post_plain(qa, 36, sbuf, 20, smr->lkey, 0, 0) == 0 && poll_ex(scq, s, 1) == 1 &&
	     poll_ex(rcq, r, 1) == 1;
	check(ok && s[0].wr_id == 36 && r[0].byte_len == 20, "ibv_post_send on an ibv_qp_ex QP");
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (smr)
		ibv_dereg_mr(smr);
	if (rmr)
		ibv_dereg_mr(rmr);
	if (wmr)
		ibv_dereg_mr(wmr);
	if (dmr)
		ibv_dereg_mr(dmr);
	if (scq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	if (rcq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	free(sbuf);
	free(rbuf);
	free(win);
	free(rdbuf);
}

/* UD: ibv_wr_set_ud_addr, SEND and SEND_IMM; the GRH area, src_qp. */
static void test_qpex_ud(struct ibv_pd *pd)
{
	enum { LEN = 512 };
	struct ibv_cq_ex *cq = cq_ex(64, IBV_WC_STANDARD_FLAGS);
	uint8_t *sbuf = calloc(1, LEN), *rbuf = calloc(1, 2 * (LEN + 40));
	struct ibv_mr *smr = NULL, *rmr = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah = NULL;
	struct ibv_qp_ex *xa;
	struct rec s[2], r[2];
	int round, ok = 1;

	if (!cq || !sbuf || !rbuf)
		goto out;
	smr = ibv_reg_mr(pd, sbuf, LEN, IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, 2 * (LEN + 40), IBV_ACCESS_LOCAL_WRITE);
	qa = qp_ex(pd, IBV_QPT_UD, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, OPS_UD);
	qb = qp_ex(pd, IBV_QPT_UD, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, OPS_UD);
	aa.grh.dgid = gid;
	aa.grh.sgid_index = (uint8_t)gidx;
	aa.grh.hop_limit = 1;
	ah = ibv_create_ah(pd, &aa);
	check(smr && rmr && qa && qb && ah, "UD: two ibv_create_qp_ex(UD, SEND|SEND_IMM), an AH");
	if (!smr || !rmr || !qa || !qb || !ah)
		goto out;
	check(connect_qp(qa, 0) == 0 && connect_qp(qb, 0) == 0, "UD QPs to RTS");
	xa = ibv_qp_to_qp_ex(qa);

	ibv_wr_start(xa);
	xa->wr_id = 1;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(xa);
	ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, 10);	/* no address */
	check_ret(ibv_wr_complete(xa), EINVAL, "UD: a SEND without ibv_wr_set_ud_addr");
	ibv_wr_start(xa);
	ibv_wr_rdma_write(xa, 1, 0);
	check_ret(ibv_wr_complete(xa), EOPNOTSUPP, "UD: ibv_wr_rdma_write");

	for (round = 0; round < iters && ok; round++) {
		fill(sbuf, LEN, round);
		post_recv(qb, NULL, 10, rbuf, LEN + 40, rmr->lkey);
		post_recv(qb, NULL, 11, rbuf + LEN + 40, LEN + 40, rmr->lkey);
		ibv_wr_start(xa);
		xa->wr_id = 2;
		xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(xa);
		ibv_wr_set_ud_addr(xa, ah, qb->qp_num, 0x11111111);
		ibv_wr_set_sge(xa, smr->lkey, (uintptr_t)sbuf, LEN);
		xa->wr_id = 3;
		ibv_wr_send_imm(xa, htobe32(round));
		ibv_wr_set_inline_data(xa, sbuf + 7, 33);
		ibv_wr_set_ud_addr(xa, ah, qb->qp_num, 0x11111111);	/* after the data */
		ok = ibv_wr_complete(xa) == 0;
		/* one CQ for all: 2 sends and 2 receives, in some order */
		{
			struct rec all[4];
			int i, ns = 0, nr = 0;

			ok = ok && poll_ex(cq, all, 4) == 4;
			for (i = 0; ok && i < 4; i++) {
				if (all[i].qp_num == qa->qp_num && ns < 2)
					s[ns++] = all[i];
				else if (nr < 2)
					r[nr++] = all[i];
			}
			ok = ok && ns == 2 && nr == 2;
		}
		ok = ok && s[0].wr_id == 2 && s[1].wr_id == 3 && s[0].opcode == IBV_WC_SEND &&
		     s[0].status == IBV_WC_SUCCESS && s[1].status == IBV_WC_SUCCESS;
		ok = ok && r[0].wr_id == 10 && r[0].opcode == IBV_WC_RECV &&
		     r[0].byte_len == LEN + 40 && (r[0].wc_flags & IBV_WC_GRH) &&
		     !(r[0].wc_flags & IBV_WC_WITH_IMM) && r[0].src_qp == qa->qp_num &&
		     r[0].qp_num == qb->qp_num;
		ok = ok && r[1].wr_id == 11 && r[1].byte_len == 33 + 40 &&
		     r[1].wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM) &&
		     r[1].imm == htobe32(round) && r[1].src_qp == qa->qp_num;
		ok = ok && !memcmp(rbuf + 40, sbuf, LEN) && !memcmp(rbuf + LEN + 80, sbuf + 7, 33);
	}
	check(ok, "UD: %d rounds of SEND(sge) and SEND_IMM(inline), set_ud_addr before and "
	      "after the data: GRH, byte_len, src_qp, imm, data", round);
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (ah)
		ibv_destroy_ah(ah);
	if (smr)
		ibv_dereg_mr(smr);
	if (rmr)
		ibv_dereg_mr(rmr);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	free(sbuf);
	free(rbuf);
}

/*
 * Atomics both ways: ibv_wr_atomic_fetch_add and ibv_wr_atomic_cmp_swp in
 * one batch, then IBV_WR_ATOMIC_* through ibv_post_send; the original
 * values land in the local SGEs, the completions say FETCH_ADD/COMP_SWAP
 * with byte_len 8.
 */
static void test_qpex_atomic(struct ibv_pd *pd)
{
	struct ibv_cq_ex *scq = cq_ex(16, IBV_WC_STANDARD_FLAGS);
	uint64_t *target = aligned_alloc(4096, 4096), *res = aligned_alloc(4096, 4096);
	struct ibv_mr *tmr = NULL, *lmr = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *badwr;
	struct ibv_qp_ex *xa;
	struct rec s[2];
	int ok;

	if (!scq || !target || !res) {
		check(0, "atomics: CQ and buffers (errno %d)", errno);
		goto out;
	}
	memset(target, 0, 4096);
	memset(res, 0xff, 4096);
	target[1] = 100;
	tmr = ibv_reg_mr(pd, target, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	lmr = ibv_reg_mr(pd, res, 4096, IBV_ACCESS_LOCAL_WRITE);
	qa = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL,
		   OPS_RC | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	qb = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL, OPS_RC);
	check(tmr && lmr && qa && qb, "atomics: ibv_create_qp_ex(RC, ATOMIC_*) (errno %d)", errno);
	if (!tmr || !lmr || !qa || !qb)
		goto out;
	xa = ibv_qp_to_qp_ex(qa);
	if (connect_qp(qa, qb->qp_num) || connect_qp(qb, qa->qp_num)) {
		check(0, "atomics: RC pair to RTS");
		goto out;
	}
	ibv_wr_start(xa);
	xa->wr_flags = IBV_SEND_SIGNALED;
	xa->wr_id = 40;
	ibv_wr_atomic_fetch_add(xa, tmr->rkey, (uintptr_t)&target[1], 5);
	ibv_wr_set_sge(xa, lmr->lkey, (uintptr_t)&res[0], 8);
	xa->wr_id = 41;
	ibv_wr_atomic_cmp_swp(xa, tmr->rkey, (uintptr_t)&target[1], 105, 7);
	ibv_wr_set_sge(xa, lmr->lkey, (uintptr_t)&res[1], 8);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 2) == 2;
	check(ok && s[0].wr_id == 40 && s[0].status == IBV_WC_SUCCESS &&
	      s[0].opcode == IBV_WC_FETCH_ADD && s[0].byte_len == 8 &&
	      s[1].wr_id == 41 && s[1].status == IBV_WC_SUCCESS &&
	      s[1].opcode == IBV_WC_COMP_SWAP && s[1].byte_len == 8 &&
	      res[0] == 100 && res[1] == 105 && target[1] == 7,
	      "ibv_wr_atomic_fetch_add, ibv_wr_atomic_cmp_swp: originals %" PRIu64 ", %" PRIu64
	      ", target %" PRIu64, res[0], res[1], target[1]);

	sge = (struct ibv_sge){ .addr = (uintptr_t)&res[2], .length = 8, .lkey = lmr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 42, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP, .send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = (uintptr_t)&target[1], .compare_add = 8,
			       .swap = 9, .rkey = tmr->rkey },
	};
	ok = ibv_post_send(qa, &wr, &badwr) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].opcode == IBV_WC_COMP_SWAP && s[0].status == IBV_WC_SUCCESS &&
	      res[2] == 7 && target[1] == 7,
	      "ibv_post_send IBV_WR_ATOMIC_CMP_AND_SWP that does not match: original %" PRIu64
	      ", target %" PRIu64, res[2], target[1]);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr_id = 43;
	wr.wr.atomic.compare_add = 0x100;
	ok = ibv_post_send(qa, &wr, &badwr) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].opcode == IBV_WC_FETCH_ADD && s[0].byte_len == 8 && res[2] == 7 &&
	      target[1] == 0x107,
	      "ibv_post_send IBV_WR_ATOMIC_FETCH_AND_ADD: original %" PRIu64 ", target %" PRIu64,
	      res[2], target[1]);
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (tmr)
		ibv_dereg_mr(tmr);
	if (lmr)
		ibv_dereg_mr(lmr);
	if (scq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	free(target);
	free(res);
}

/*
 * Memory windows with the ibv_wr_* API: a type 2 window bound on qa by
 * ibv_wr_bind_mw over memory without remote rights, READ through it from
 * qb, ibv_wr_local_inv, bound zero-based (READ by offset) and invalidated,
 * bound again, ibv_wr_send_inv from qb: qa's
 * receive has IBV_WC_WITH_INV and the rkey, and the rkey fails after.
 */
#define OPS_MW	(IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV)

static void test_qpex_mw(struct ibv_pd *pd)
{
	struct ibv_cq_ex *scq = cq_ex(16, IBV_WC_STANDARD_FLAGS);
	uint8_t *mem = aligned_alloc(4096, 8192);
	struct ibv_mr *tmr = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL, *uc = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_mw_bind_info bi;
	struct ibv_qp_ex *xa, *xb;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *badwr;
	uint32_t rkey;
	struct rec s[2];
	int ok, i, recv_ok = 0, send_ok = 0;

	if (!scq || !mem) {
		check(0, "memory windows: CQ and buffers (errno %d)", errno);
		goto out;
	}
	fill(mem, 4096, 61);
	memset(mem + 4096, 0, 4096);
	tmr = ibv_reg_mr(pd, mem, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	qa = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL,
		   OPS_RC | OPS_MW);
	qb = qp_ex(pd, IBV_QPT_RC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL,
		   OPS_RC | OPS_MW);
	uc = qp_ex(pd, IBV_QPT_UC, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(scq), NULL,
		   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV);
	check(tmr && mw && qa && qb && uc,
	      "memory windows: ibv_create_qp_ex(RC: BIND_MW, LOCAL_INV, SEND_WITH_INV; "
	      "UC: BIND_MW, LOCAL_INV) (errno %d)", errno);
	if (!tmr || !mw || !qa || !qb || !uc)
		goto out;
	xa = ibv_qp_to_qp_ex(qa);
	xb = ibv_qp_to_qp_ex(qb);
	if (connect_qp(qa, qb->qp_num) || connect_qp(qb, qa->qp_num)) {
		check(0, "memory windows: RC pair to RTS");
		goto out;
	}
	bi = (struct ibv_mw_bind_info){ .mr = tmr, .addr = (uintptr_t)mem, .length = 4096,
					.mw_access_flags = IBV_ACCESS_REMOTE_READ };
	rkey = ibv_inc_rkey(mw->rkey);
	ibv_wr_start(xa);
	xa->wr_flags = IBV_SEND_SIGNALED;
	xa->wr_id = 50;
	ibv_wr_bind_mw(xa, mw, rkey, &bi);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].wr_id == 50 && s[0].status == IBV_WC_SUCCESS &&
	      s[0].opcode == IBV_WC_BIND_MW, "ibv_wr_bind_mw (type 2): IBV_WC_BIND_MW (status %d)",
	      s[0].status);
	mw->rkey = rkey;

	sge = (struct ibv_sge){ .addr = (uintptr_t)mem + 4096, .length = 512, .lkey = tmr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 51, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)mem + 100, .rkey = rkey },
	};
	ok = ibv_post_send(qb, &wr, &badwr) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].wr_id == 51 && s[0].status == IBV_WC_SUCCESS &&
	      filled_at(mem + 4096 - 100, 100, 512, 61),
	      "RDMA READ through the window bound with ibv_wr_bind_mw (status %d)", s[0].status);

	ibv_wr_start(xa);
	xa->wr_id = 52;
	ibv_wr_local_inv(xa, rkey);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].wr_id == 52 && s[0].status == IBV_WC_SUCCESS &&
	      s[0].opcode == IBV_WC_LOCAL_INV,
	      "ibv_wr_local_inv: IBV_WC_LOCAL_INV (status %d)", s[0].status);

	/* zero-based (ibv_bind_mw(3)): the remote address is the offset in the window */
	rkey = ibv_inc_rkey(rkey);
	ibv_wr_start(xa);
	xa->wr_id = 57;
	ibv_wr_bind_mw(xa, mw, rkey, &(struct ibv_mw_bind_info){
		.mr = tmr, .addr = (uintptr_t)mem + 1024, .length = 2048,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED });
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].status == IBV_WC_SUCCESS,
	      "ibv_wr_bind_mw with IBV_ACCESS_ZERO_BASED (status %d)", s[0].status);
	memset(mem + 4096, 0, 512);
	wr.wr_id = 58;
	wr.wr.rdma = (typeof(wr.wr.rdma)){ .remote_addr = 100, .rkey = rkey };
	ok = ok && ibv_post_send(qb, &wr, &badwr) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].wr_id == 58 && s[0].status == IBV_WC_SUCCESS &&
	      filled_at(mem + 4096 - 1124, 1124, 512, 61),
	      "RDMA READ at remote_addr 100 of a zero-based window reads window + 100 "
	      "(status %d)", s[0].status);
	ibv_wr_start(xa);
	xa->wr_id = 59;
	ibv_wr_local_inv(xa, rkey);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].status == IBV_WC_SUCCESS, "the zero-based window invalidated");

	rkey = ibv_inc_rkey(rkey);
	ibv_wr_start(xa);
	xa->wr_id = 53;
	ibv_wr_bind_mw(xa, mw, rkey, &bi);
	ok = ibv_wr_complete(xa) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].status == IBV_WC_SUCCESS, "bound again after ibv_wr_local_inv");
	mw->rkey = rkey;
	ok = post_recv(qa, NULL, 54, mem + 4096, 64, tmr->lkey) == 0;
	ibv_wr_start(xb);
	xb->wr_flags = IBV_SEND_SIGNALED;
	xb->wr_id = 55;
	ibv_wr_send_inv(xb, rkey);
	ibv_wr_set_sge(xb, tmr->lkey, (uintptr_t)mem, 16);
	ok = ok && ibv_wr_complete(xb) == 0 && poll_ex(scq, s, 2) == 2;
	for (i = 0; ok && i < 2; i++) {
		if (s[i].wr_id == 55 && s[i].status == IBV_WC_SUCCESS &&
		    s[i].opcode == IBV_WC_SEND)
			send_ok = 1;
		if (s[i].wr_id == 54 && s[i].status == IBV_WC_SUCCESS &&
		    s[i].opcode == IBV_WC_RECV && s[i].byte_len == 16 &&
		    (s[i].wc_flags & IBV_WC_WITH_INV) && !(s[i].wc_flags & IBV_WC_WITH_IMM) &&
		    (uint32_t)s[i].imm == rkey)
			recv_ok = 1;
	}
	check(send_ok && recv_ok, "ibv_wr_send_inv: IBV_WC_SEND; the receive has "
	      "IBV_WC_WITH_INV and ibv_wc_read_invalidated_rkey() the rkey");
	wr.wr_id = 56;
	wr.wr.rdma.rkey = rkey;
	ok = ibv_post_send(qb, &wr, &badwr) == 0 && poll_ex(scq, s, 1) == 1;
	check(ok && s[0].wr_id == 56 && s[0].status == IBV_WC_REM_ACCESS_ERR,
	      "READ after the remote invalidation: IBV_WC_REM_ACCESS_ERR (status %d)",
	      s[0].status);

	/* SEND_WITH_INV is RC only: on UC the batch fails */
	ibv_wr_start(ibv_qp_to_qp_ex(uc));
	ibv_wr_send_inv(ibv_qp_to_qp_ex(uc), rkey);
	ibv_wr_set_sge(ibv_qp_to_qp_ex(uc), tmr->lkey, (uintptr_t)mem, 16);
	check(ibv_wr_complete(ibv_qp_to_qp_ex(uc)) == EINVAL,
	      "ibv_wr_send_inv on a UC QP: ibv_wr_complete EINVAL");
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (uc)
		ibv_destroy_qp(uc);
	if (mw)
		check(ibv_dealloc_mw(mw) == 0, "ibv_dealloc_mw");
	if (tmr)
		ibv_dereg_mr(tmr);
	if (scq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	free(mem);
}

static void test_qpex(struct ibv_pd *pd)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);

	if (!cq) {
		check(0, "ibv_create_cq");
		return;
	}
	test_qpex_refusals(pd, cq);
	ibv_destroy_cq(cq);
	test_qpex_rc(pd);
	test_qpex_ud(pd);
	test_qpex_atomic(pd);
	test_qpex_mw(pd);
}

/* --- td ------------------------------------------------------------------------------- */

static void test_td(struct ibv_pd *pd)
{
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_parent_domain_init_attr pa;
	struct ibv_cq_init_attr_ex ca;
	struct ibv_pd *pdom = NULL, *pdom2;
	struct ibv_td *td;
	struct ibv_cq_ex *cq = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_qp_ex *xa;
	struct rec s[2];
	char *buf = calloc(1, 8192);
	int i, ok = 1, pdctx;

	errno = 0;
	check_null_errno(ibv_alloc_td(ctx, &ta), EINVAL, "ibv_alloc_td(unknown comp_mask)");
	ta.comp_mask = 0;
	td = ibv_alloc_td(ctx, &ta);
	check(td != NULL && td->context == ctx, "ibv_alloc_td (errno %d)", td ? 0 : errno);
	if (!td || !buf)
		goto out;

	memset(&pa, 0, sizeof(pa));
	errno = 0;
	check_null_errno(ibv_alloc_parent_domain(ctx, &pa), EINVAL,
			 "ibv_alloc_parent_domain without a PD");
	pa.pd = pd;
	pa.comp_mask = 1 << 4;
	errno = 0;
	check_null_errno(ibv_alloc_parent_domain(ctx, &pa), EINVAL,
			 "ibv_alloc_parent_domain(unknown comp_mask)");
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.td = td;
	pa.pd_context = &pdctx;
	pdom = ibv_alloc_parent_domain(ctx, &pa);
	check(pdom != NULL && pdom != pd && pdom->context == ctx && pdom->handle == pd->handle,
	      "ibv_alloc_parent_domain(PD, TD): a struct ibv_pd like its PD (errno %d)",
	      pdom ? 0 : errno);
	if (!pdom)
		goto out;
	pa.pd = pdom;
	pa.td = NULL;
	errno = 0;
	pdom2 = ibv_alloc_parent_domain(ctx, &pa);
	check_null_errno(pdom2, EINVAL, "ibv_alloc_parent_domain of a parent domain");
	check_ret(ibv_dealloc_pd(pd), EBUSY, "ibv_dealloc_pd of a PD a parent domain extends");
	check_ret(ibv_dealloc_td(td), EBUSY, "ibv_dealloc_td of a TD a parent domain uses");

	/* Objects on the parent domain: an MR, a CQ, two QPs; traffic. */
	mr = ibv_reg_mr(pdom, buf, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 32;
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = pdom;
	cq = ibv_create_cq_ex(ctx, &ca);
	if (cq) {
		qa = qp_ex(pdom, IBV_QPT_RC, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, OPS_RC);
		qb = qp_ex(pdom, IBV_QPT_RC, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), NULL, OPS_RC);
	}
	check(mr && mr->pd == pdom && cq && qa && qa->pd == pdom && qb,
	      "an MR, an extended CQ (IBV_CQ_INIT_ATTR_MASK_PD) and QPs on the parent domain");
	if (!mr || !cq || !qa || !qb)
		goto out;
	check(connect_qp(qa, qb->qp_num) == 0 && connect_qp(qb, qa->qp_num) == 0,
	      "parent-domain QPs to RTS");
	xa = ibv_qp_to_qp_ex(qa);
	for (i = 0; i < iters && ok; i++) {
		fill(buf, 4096, i);
		post_recv(qb, NULL, 7, buf + 4096, 4096, mr->lkey);
		ibv_wr_start(xa);
		xa->wr_id = 1;
		xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(xa);
		ibv_wr_set_sge(xa, mr->lkey, (uintptr_t)buf, 4096);
		ok = ibv_wr_complete(xa) == 0 && poll_ex(cq, s, 2) == 2 &&
		     s[0].status == IBV_WC_SUCCESS && s[1].status == IBV_WC_SUCCESS &&
		     !memcmp(buf, buf + 4096, 4096);
	}
	check(ok, "%d SENDs between QPs of a parent domain with a thread domain", i);
	check_ret(ibv_dealloc_pd(pdom), EBUSY, "ibv_dealloc_pd of a parent domain in use");
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	if (mr)
		ibv_dereg_mr(mr);
	if (pdom)
		check_ret(ibv_dealloc_pd(pdom), 0, "ibv_dealloc_pd of the parent domain once unused");
	if (td)
		check_ret(ibv_dealloc_td(td), 0, "ibv_dealloc_td once unused");
	free(buf);
}

/* --- iova ------------------------------------------------------------------------------- */

/* An RC pair on @pd sharing one CQ, up to RTS. */
static int rc_pair(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_qp **a, struct ibv_qp **b)
{
	*a = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	*b = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	if (!*a || !*b)
		return -1;
	if (connect_qp(*a, (*b)->qp_num) || connect_qp(*b, (*a)->qp_num))
		return -1;
	return 0;
}

static void destroy_pair(struct ibv_qp *a, struct ibv_qp *b)
{
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
}

/* One signaled RDMA WRITE and its completion status (-1: none came). */
static int write_status(struct ibv_qp *qp, struct ibv_cq *cq, void *buf, uint32_t len,
			uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct rec s;

	if (post_plain(qp, 9, buf, len, lkey, raddr, rkey))
		return -1;
	if (poll_plain(cq, &s, 1) != 1)
		return -1;
	return s.status;
}

static void test_iova(struct ibv_pd *pd)
{
	const uint64_t iova = 0x1230000000ULL;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	char *src = calloc(1, 8192), *dst = calloc(1, 8192);
	struct ibv_mr *smr = NULL, *m1 = NULL, *m2 = NULL;
	struct ibv_qp *a = NULL, *b = NULL;
	volatile unsigned int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_RELAXED_ORDERING;

	if (!cq || !src || !dst || rc_pair(pd, cq, &a, &b)) {
		check(0, "iova: RC pair (errno %d)", errno);
		goto out;
	}
	smr = ibv_reg_mr(pd, src, 8192, IBV_ACCESS_LOCAL_WRITE);
	/* constant access: ibv_reg_mr_iova@IBVERBS_1.7; otherwise _iova2@1.8 */
	m1 = ibv_reg_mr_iova(pd, dst, 4096, iova, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	m2 = ibv_reg_mr_iova2(pd, dst + 4096, 4096, iova + 0x100000, acc);
	check(smr && m1 && m2 && m1->addr == dst && m1->length == 4096 && m2->addr == dst + 4096,
	      "ibv_reg_mr_iova, ibv_reg_mr_iova2 (RELAXED_ORDERING): addr and length as given");
	if (!smr || !m1 || !m2)
		goto out;
	fill(src, 8192, 5);
	check(write_status(a, cq, src, 1000, smr->lkey, iova + 100, m1->rkey) == IBV_WC_SUCCESS &&
	      write_status(a, cq, src + 4096, 4096, smr->lkey, iova + 0x100000, m2->rkey) ==
	      IBV_WC_SUCCESS && !memcmp(dst + 100, src, 1000) && !memcmp(dst + 4096, src + 4096, 4096),
	      "RDMA WRITEs addressed by iova land at addr + (iova offset)");
	/* the address itself is not in the MR: remote access error */
	check(write_status(a, cq, src, 8, smr->lkey, (uintptr_t)dst, m1->rkey) ==
	      IBV_WC_REM_ACCESS_ERR,
	      "an RDMA WRITE to the buffer's address instead of its iova: REM_ACCESS_ERR");
out:
	destroy_pair(a, b);
	if (smr)
		ibv_dereg_mr(smr);
	if (m1)
		ibv_dereg_mr(m1);
	if (m2)
		ibv_dereg_mr(m2);
	if (cq)
		ibv_destroy_cq(cq);
	free(src);
	free(dst);
}

/* --- rereg ------------------------------------------------------------------------------ */

static void test_rereg(struct ibv_pd *pd)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	char *src = calloc(1, 8192), *d1 = calloc(1, 8192), *d2 = calloc(1, 8192);
	struct ibv_mr *smr = NULL, *smr2 = NULL, *mr = NULL;
	struct ibv_qp *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL;
	uint32_t lkey, rkey, handle;
	int ret, st;

	if (!cq || !pd2 || !src || !d1 || !d2 || rc_pair(pd, cq, &a, &b) ||
	    rc_pair(pd2, cq, &a2, &b2)) {
		check(0, "rereg: RC pairs on two PDs (errno %d)", errno);
		goto out;
	}
	smr = ibv_reg_mr(pd, src, 8192, IBV_ACCESS_LOCAL_WRITE);
	smr2 = ibv_reg_mr(pd2, src, 8192, IBV_ACCESS_LOCAL_WRITE);
	mr = ibv_reg_mr(pd, d1, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!smr || !smr2 || !mr) {
		check(0, "rereg: MRs");
		goto out;
	}
	lkey = mr->lkey;
	rkey = mr->rkey;
	handle = mr->handle;
	fill(src, 8192, 9);

	/* Input errors (rdma-core's checks): nothing changes. */
	errno = 0;
	ret = ibv_rereg_mr(mr, 1 << 5, NULL, NULL, 0, 0);
	check(ret == IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
	      "ibv_rereg_mr(unknown flag): IBV_REREG_MR_ERR_INPUT, EINVAL (%d, %d)", ret, errno);
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 4096, 0);
	check(ret == IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
	      "ibv_rereg_mr(CHANGE_TRANSLATION, addr NULL): IBV_REREG_MR_ERR_INPUT (%d)", ret);
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, IBV_ACCESS_LOCAL_WRITE);
	check(ret == IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
	      "ibv_rereg_mr(access without CHANGE_ACCESS): IBV_REREG_MR_ERR_INPUT (%d)", ret);
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_REMOTE_WRITE);
	check(ret == IBV_REREG_MR_ERR_CMD && errno == EINVAL,
	      "ibv_rereg_mr(REMOTE_WRITE without LOCAL_WRITE): IBV_REREG_MR_ERR_CMD, EINVAL (%d, %d)",
	      ret, errno);
	errno = 0;
	ret = ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0);
	check(ret == IBV_REREG_MR_ERR_CMD && errno == EINVAL,
	      "ibv_rereg_mr(no flag): the kernel refuses, IBV_REREG_MR_ERR_CMD, EINVAL (%d, %d)",
	      ret, errno);
	check(mr->pd == pd && mr->addr == d1 && mr->length == 4096 && mr->lkey == lkey,
	      "after the refusals the MR is as it was");

	/* CHANGE_ACCESS: remote writes become possible; the keys stay. */
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	check(ret == 0 && mr->lkey == lkey && mr->rkey == rkey && mr->handle == handle &&
	      mr->pd == pd && mr->addr == d1,
	      "ibv_rereg_mr(CHANGE_ACCESS +REMOTE_WRITE): 0, same handle and keys (ret %d)", ret);
	st = write_status(a, cq, src, 2048, smr->lkey, (uintptr_t)d1 + 1024, mr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(d1 + 1024, src, 2048),
	      "an RDMA WRITE into it right after: success, data there (status %d)", st);

	/* CHANGE_TRANSLATION: now d2, 8 KiB. */
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, d2, 8192, 0);
	check(ret == 0 && mr->addr == d2 && mr->length == 8192 && mr->rkey == rkey,
	      "ibv_rereg_mr(CHANGE_TRANSLATION to another 8 KiB): 0, addr/length updated (ret %d)",
	      ret);
	memset(d1, 0, 8192);
	st = write_status(a, cq, src, 8192, smr->lkey, (uintptr_t)d2, mr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(d2, src, 8192) && zeroed(d1, 8192),
	      "an RDMA WRITE of 8 KiB lands in the new memory, not the old (status %d)", st);

	/* CHANGE_PD: usable by the QPs of pd2. */
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	check(ret == 0 && mr->pd == pd2 && mr->rkey == rkey,
	      "ibv_rereg_mr(CHANGE_PD): 0, mr->pd is the new PD (ret %d)", ret);
	memset(d2, 0, 8192);
	st = write_status(a2, cq, src + 100, 4000, smr2->lkey, (uintptr_t)d2 + 10, mr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(d2 + 10, src + 100, 4000),
	      "an RDMA WRITE from a QP of the new PD: success (status %d)", st);

	/* All three at once, then fewer rights: enforced at once. */
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_TRANSLATION |
			   IBV_REREG_MR_CHANGE_ACCESS, pd, d1, 4096,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	st = write_status(a, cq, src, 4096, smr->lkey, (uintptr_t)d1, mr->rkey);
	check(ret == 0 && mr->pd == pd && mr->addr == d1 && st == IBV_WC_SUCCESS &&
	      !memcmp(d1, src, 4096),
	      "ibv_rereg_mr(PD | TRANSLATION | ACCESS) back: 0 and a WRITE lands (ret %d, status %d)",
	      ret, st);
	st = write_status(a2, cq, src, 8, smr2->lkey, (uintptr_t)d1, mr->rkey);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "a WRITE from a QP of the PD it left: REM_ACCESS_ERR (status %d)", st);
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE);
	st = write_status(a, cq, src, 8, smr->lkey, (uintptr_t)d1, mr->rkey);
	check(ret == 0 && st == IBV_WC_REM_ACCESS_ERR,
	      "ibv_rereg_mr(CHANGE_ACCESS to LOCAL_WRITE): the next RDMA WRITE is REM_ACCESS_ERR "
	      "(ret %d, status %d)", ret, st);
out:
	destroy_pair(a, b);
	destroy_pair(a2, b2);
	if (mr)
		check_ret(ibv_dereg_mr(mr), 0, "ibv_dereg_mr of the re-registered MR");
	if (smr)
		ibv_dereg_mr(smr);
	if (smr2)
		ibv_dereg_mr(smr2);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd2)
		check_ret(ibv_dealloc_pd(pd2), 0, "ibv_dealloc_pd of the second PD once unused");
	free(src);
	free(d1);
	free(d2);
}

/* --- resize ------------------------------------------------------------------------------ */

/* The kernel's RESIZE_CQ, without the library's own check; errno or 0. */
static int kernel_resize_cq(struct ibv_cq *cq, uint32_t cqe)
{
	struct xib_uverbs_resize_cq r;

	memset(&r, 0, sizeof(r));
	r.cq_handle = cq->handle;
	r.cqe = cqe;
	return ioctl(cq->context->cmd_fd, XIB_UVERBS_RESIZE_CQ, &r) ? errno : 0;
}

static void test_resize(struct ibv_pd *pd)
{
	struct ibv_cq *scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *a = NULL, *b = NULL;
	char *buf = calloc(1, 4096);
	struct ibv_mr *mr = NULL;
	struct rec s[8], r[8];
	int i, ok;

	if (!scq || !rcq || !buf)
		goto out;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!a || !b || !mr || connect_qp(a, b->qp_num) || connect_qp(b, a->qp_num)) {
		check(0, "resize: RC pair (errno %d)", errno);
		goto out;
	}
	for (i = 0; i < 8; i++)
		post_recv(b, NULL, 50 + i, buf + 2048, 64, mr->lkey);
	for (i = 0; i < 8; i++)
		post_plain(a, i, buf, 16, mr->lkey, 0, 0);
	/* 8 sends acknowledged: the 8 receive CQEs were written before. */
	ok = poll_plain(scq, s, 8) == 8;
	check(ok, "8 SENDs completed; 8 receive completions wait, unpolled");
	check_ret(ibv_resize_cq(rcq, 4), EINVAL, "ibv_resize_cq(4) holding 8");
	check_ret(ibv_resize_cq(rcq, 7), EINVAL,
		  "ibv_resize_cq(7) holding 8 (the ring would round up to 8: refused anyway)");
	check(kernel_resize_cq(rcq, 4) == EINVAL,
	      "XIB_UVERBS_RESIZE_CQ(4) holding 8, past the library: the kernel refuses too");
	check(rcq->cqe >= 16, "the refused resizes left cqe %d", rcq->cqe);
	check_ret(ibv_resize_cq(rcq, 8), 0, "ibv_resize_cq(8) holding 8");
	ok = rcq->cqe >= 8 && poll_plain(rcq, r, 8) == 8;
	for (i = 0; ok && i < 8; i++)
		ok = r[i].wr_id == (uint64_t)50 + i && r[i].status == IBV_WC_SUCCESS &&
		     r[i].byte_len == 16;
	check(ok, "cqe %d; the 8 completions survived the resize, in order", rcq->cqe);
	check_ret(ibv_resize_cq(rcq, 2), 0, "ibv_resize_cq(2) once polled empty");
	check(rcq->cqe >= 2, "cqe %d >= 2", rcq->cqe);
	post_recv(b, NULL, 60, buf + 2048, 64, mr->lkey);
	post_plain(a, 9, buf, 16, mr->lkey, 0, 0);
	check(poll_plain(rcq, r, 1) == 1 && r[0].wr_id == 60 && poll_plain(scq, s, 1) == 1,
	      "traffic after the resizes");
out:
	destroy_pair(a, b);
	if (mr)
		ibv_dereg_mr(mr);
	if (scq)
		ibv_destroy_cq(scq);
	if (rcq)
		ibv_destroy_cq(rcq);
	free(buf);
}

/* --- srq ---------------------------------------------------------------------------------- */

/* The next async event within @ms, acknowledged; -1 if none. */
static int next_async_event(int ms, void **element)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(ctx, &ev))
		return -1;
	type = ev.event_type;
	*element = ev.element.srq;
	ibv_ack_async_event(&ev);
	return type;
}

static void test_srq(struct ibv_pd *pd)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_srq_attr at;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_mr *mr = NULL;
	char *buf = calloc(1, 4096);
	struct rec s[8];
	void *el = NULL;
	int i, ev, flags;

	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	while (next_async_event(0, &el) >= 0)
		;	/* what device setup queued */
	srq = ibv_create_srq(pd, &sa);
	if (cq && srq)
		a = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	if (a)
		b = qp_ex(pd, IBV_QPT_RC, cq, cq, srq, 0);
	mr = buf ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!b || !mr || connect_qp(a, b->qp_num) || connect_qp(b, a->qp_num)) {
		check(0, "srq: an RC pair on an SRQ (errno %d)", errno);
		goto out;
	}
	for (i = 0; i < 8; i++)
		post_recv(NULL, srq, 70 + i, buf + 2048, 64, mr->lkey);
	memset(&at, 0, sizeof(at));
	at.srq_limit = sa.attr.max_wr + 1;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT), EINVAL,
		  "ibv_modify_srq(limit above max_wr)");
	at.srq_limit = 4;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT), 0, "ibv_modify_srq(IBV_SRQ_LIMIT 4)");
	memset(&at, 0, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.srq_limit == 4 && at.max_wr >= 16,
	      "ibv_query_srq: limit 4, max_wr %u", at.max_wr);
	/* 4 receives taken: 4 left, not below 4, no event yet */
	for (i = 0; i < 4; i++)
		post_plain(a, i, buf, 16, mr->lkey, 0, 0);
	check(poll_plain(cq, s, 8) == 8 && next_async_event(200, &el) == -1,
	      "4 of 8 receives used: no event (4 are not below the limit 4)");
	memset(&at, 0, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.srq_limit == 4, "ibv_query_srq: still 4");
	post_plain(a, 5, buf, 16, mr->lkey, 0, 0);
	poll_plain(cq, s, 2);
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_SRQ_LIMIT_REACHED && el == srq,
	      "the 5th receive: IBV_EVENT_SRQ_LIMIT_REACHED for the SRQ (event %d)", ev);
	memset(&at, 0xa5, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.srq_limit == 0,
	      "ibv_query_srq after the event: limit 0, disarmed (got %u)", at.srq_limit);
	post_plain(a, 6, buf, 16, mr->lkey, 0, 0);
	poll_plain(cq, s, 2);
	check(next_async_event(200, &el) == -1, "no second event while disarmed");
	at.srq_limit = 2;
	check(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT) == 0 && ibv_query_srq(srq, &at) == 0 &&
	      at.srq_limit == 2, "armed again with 2: ibv_query_srq says 2");
	post_plain(a, 7, buf, 16, mr->lkey, 0, 0);
	poll_plain(cq, s, 2);
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_SRQ_LIMIT_REACHED && ibv_query_srq(srq, &at) == 0 &&
	      at.srq_limit == 0, "1 left: the event again, limit 0 again (event %d)", ev);
out:
	destroy_pair(a, b);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(buf);
	fcntl(ctx->async_fd, F_SETFL, flags);
}

/* --- srqresize ---------------------------------------------------------------------------- */

/* @n SENDs of 16 bytes from @a; true if @n receives of @cq came back, the wr_ids @first on. */
static int srq_sends(struct ibv_qp *a, struct ibv_cq *cq, int n, uint64_t first, char *buf,
		     uint32_t lkey)
{
	struct rec r[2];
	int i, got = 0, ok = 1;

	for (i = 0; i < n; i++) {
		if (post_plain(a, 1000 + i, buf, 16, lkey, 0, 0))
			return 0;
		/* each SEND's two completions: the receive's wr_id is in order */
		if (poll_plain(cq, r, 2) != 2)
			return 0;
		if (r[0].opcode != IBV_WC_RECV)
			r[0] = r[1];
		ok = ok && r[0].opcode == IBV_WC_RECV && r[0].status == IBV_WC_SUCCESS &&
		     r[0].wr_id == first + (uint64_t)got;
		got++;
	}
	return ok;
}

/*
 * ibv_modify_srq(IBV_SRQ_MAX_WR), from ibv_modify_srq(3): the SRQ grows
 * keeping the posted WRs, shrinks to no fewer than the outstanding ones,
 * never above max_srq_wr; invalid attributes change nothing.  xib also
 * refuses a size below an armed limit (the limit must stay below it).
 */
static void test_srqresize(struct ibv_pd *pd)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_srq_attr at;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_mr *mr = NULL;
	char *buf = calloc(1, 4096);
	void *el = NULL;
	int i, n, ok, ev;

	check((dattr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE) != 0,
	      "device_cap_flags has IBV_DEVICE_SRQ_RESIZE");
	srq = ibv_create_srq(pd, &sa);
	if (cq && srq)
		a = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	if (a)
		b = qp_ex(pd, IBV_QPT_RC, cq, cq, srq, 0);
	mr = buf ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!b || !mr || connect_qp(a, b->qp_num) || connect_qp(b, a->qp_num)) {
		check(0, "srqresize: an RC pair on an SRQ (errno %d)", errno);
		goto out;
	}
	n = (int)sa.attr.max_wr;
	for (i = 0, ok = 1; i < n; i++)
		ok = ok && !post_recv(NULL, srq, i, buf + 2048, 64, mr->lkey);
	check(ok && post_recv(NULL, srq, n, buf + 2048, 64, mr->lkey) == ENOMEM,
	      "%d receives fill the SRQ: one more is ENOMEM", n);

	memset(&at, 0, sizeof(at));
	at.max_wr = (uint32_t)n - 1;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), EINVAL,
		  "IBV_SRQ_MAX_WR below the outstanding receives");
	at.max_wr = (uint32_t)dattr.max_srq_wr + 1;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), EINVAL,
		  "IBV_SRQ_MAX_WR above max_srq_wr");
	at.max_wr = 0;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), EINVAL, "IBV_SRQ_MAX_WR 0");
	at.max_wr = 64;
	at.srq_limit = 65;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), EINVAL,
		  "IBV_SRQ_MAX_WR 64 with a limit of 65");
	memset(&at, 0xa5, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.max_wr == (uint32_t)n && at.srq_limit == 0,
	      "the refusals changed nothing: max_wr %u, limit %u", at.max_wr, at.srq_limit);

	at.max_wr = 32;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), 0, "grow to 32 holding 8 receives");
	memset(&at, 0, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.max_wr >= 32, "ibv_query_srq: max_wr %u",
	      at.max_wr);
	for (i = n, ok = 1; i < 32; i++)
		ok = ok && !post_recv(NULL, srq, i, buf + 2048, 64, mr->lkey);
	check(ok, "24 more receives posted into the grown SRQ");
	check(srq_sends(a, cq, 32, 0, buf, mr->lkey),
	      "32 SENDs: the 8 receives posted before the resize, then the 24, in order");

	at.max_wr = 4;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), 0, "shrink to 4, empty");
	memset(&at, 0, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.max_wr == 4, "ibv_query_srq: max_wr %u",
	      at.max_wr);
	for (i = 0, ok = 1; i < 3; i++)
		ok = ok && !post_recv(NULL, srq, 100 + i, buf + 2048, 64, mr->lkey);
	at.max_wr = 2;
	check(ok && ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR) == EINVAL,
	      "3 receives posted: shrinking to 2 is EINVAL");
	at.max_wr = 4;
	at.srq_limit = 3;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT), 0, "limit 3 armed");
	at.max_wr = 2;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR), EINVAL, "shrink below the armed limit");
	check(srq_sends(a, cq, 1, 100, buf, mr->lkey), "1 SEND: 2 receives left");
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_SRQ_LIMIT_REACHED && el == srq,
	      "2 left, below the limit 3, in the resized SRQ: SRQ_LIMIT_REACHED (event %d)", ev);
	at.max_wr = 2;
	at.srq_limit = 1;
	check_ret(ibv_modify_srq(srq, &at, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), 0,
		  "IBV_SRQ_MAX_WR 2 with IBV_SRQ_LIMIT 1, holding 2");
	memset(&at, 0, sizeof(at));
	check(ibv_query_srq(srq, &at) == 0 && at.max_wr == 2 && at.srq_limit == 1,
	      "ibv_query_srq: max_wr %u, limit %u", at.max_wr, at.srq_limit);
	check(post_recv(NULL, srq, 200, buf + 2048, 64, mr->lkey) == ENOMEM,
	      "the SRQ of 2 is full");
	check(srq_sends(a, cq, 2, 101, buf, mr->lkey),
	      "2 SENDs take the 2 receives kept by the shrink, in order");
	ok = !post_recv(NULL, srq, 300, buf + 2048, 64, mr->lkey);
	check(ok && srq_sends(a, cq, 1, 300, buf, mr->lkey), "traffic after the resizes");
out:
	destroy_pair(a, b);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(buf);
}

/* --- events ---------------------------------------------------------------------------- */

/* The QP's state, by ibv_query_qp; -1 on error. */
static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	if (ibv_query_qp(qp, &at, IBV_QP_STATE, &ia))
		return -1;
	return at.qp_state;
}

/* sq_draining by ibv_query_qp, if the QP is in SQD; -1 otherwise. */
static int qp_sq_draining(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	if (ibv_query_qp(qp, &at, IBV_QP_STATE, &ia) || at.qp_state != IBV_QPS_SQD)
		return -1;
	return at.sq_draining;
}

static int qp_modify_state(struct ibv_qp *qp, enum ibv_qp_state state, int sqd_notify)
{
	struct ibv_qp_attr at = { .qp_state = state, .en_sqd_async_notify = (uint8_t)sqd_notify };

	return ibv_modify_qp(qp, &at, IBV_QP_STATE | (sqd_notify ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0));
}

/* Count the completions of @cq within @ms; checks that each succeeded. */
static int drain_cq(struct ibv_cq *cq, int ms, int *bad)
{
	int64_t end = now_ms() + ms;
	struct ibv_wc wc;
	int n = 0;

	while (now_ms() < end)
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			n++;
			if (wc.status != IBV_WC_SUCCESS)
				(*bad)++;
		}
	return n;
}

#define EV_MSG		(256 * 1024)

/*
 * The QP async events the IBTA ties to states (vol 1 11.6.3.1; the
 * ibv_get_async_event(3) list): COMM_EST when an RC QP in RTR receives,
 * once; SQ_DRAINED after RTS -> SQD with en_sqd_async_notify, once the
 * messages begun have completed (none begins in SQD, a WQE posted there
 * waits for RTS); LAST_WQE_REACHED when a QP on an SRQ enters ERR.
 */
static void test_events(struct ibv_pd *pd)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_cq *scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp *a = NULL, *b = NULL, *c = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_mr *mr = NULL;
	char *buf = calloc(1, 2 * EV_MSG);
	int i, ev, n, k, bad = 0, flags;
	struct ibv_qp_attr at;
	struct rec r[8];
	void *el = NULL;

	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	while (next_async_event(0, &el) >= 0)
		;	/* what earlier sections left */
	if (scq && rcq) {
		a = qp_ex(pd, IBV_QPT_RC, scq, scq, NULL, 0);
		b = qp_ex(pd, IBV_QPT_RC, rcq, rcq, NULL, 0);
	}
	mr = buf ? ibv_reg_mr(pd, buf, 2 * EV_MSG, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!a || !b || !mr || qp_to_rtr(b, a->qp_num) || connect_qp(a, b->qp_num)) {
		check(0, "events: an RC pair, b in RTR (errno %d)", errno);
		goto out;
	}

	/* COMM_EST */
	check(next_async_event(200, &el) == -1, "b in RTR, nothing received: no event");
	for (i = 0; i < 8; i++)
		post_recv(b, NULL, 10 + i, buf + EV_MSG, EV_MSG, mr->lkey);
	post_plain(a, 1, buf, 16, mr->lkey, 0, 0);
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_COMM_EST && el == b,
	      "a SEND reaches b in RTR: IBV_EVENT_COMM_EST for b (event %d)", ev);
	check(poll_plain(rcq, r, 1) == 1 && r[0].wr_id == 10 && r[0].status == IBV_WC_SUCCESS &&
	      poll_plain(scq, r, 1) == 1 && r[0].status == IBV_WC_SUCCESS,
	      "b in RTR received the SEND and acknowledged it");
	post_plain(a, 2, buf, 16, mr->lkey, 0, 0);
	check(poll_plain(rcq, r, 1) == 1 && poll_plain(scq, r, 1) == 1 &&
	      next_async_event(200, &el) == -1, "a second SEND in RTR: no second COMM_EST");
	check(qp_to_rts(b) == 0 && next_async_event(200, &el) == -1, "b to RTS: no event");

	/* SQ_DRAINED */
	check(qp_modify_state(a, IBV_QPS_SQD, 0) == 0 && qp_state(a) == IBV_QPS_SQD,
	      "a RTS -> SQD without en_sqd_async_notify");
	check(next_async_event(300, &el) == -1, "no SQ_DRAINED without en_sqd_async_notify");
	check(qp_modify_state(a, IBV_QPS_RTS, 0) == 0 && qp_state(a) == IBV_QPS_RTS,
	      "a SQD -> RTS");
	for (i = 0; i < 4; i++)
		post_plain(a, 100 + i, buf, EV_MSG, mr->lkey, 0, 0);
	check(qp_modify_state(a, IBV_QPS_SQD, 1) == 0,
	      "4 SENDs of %d KiB posted, then RTS -> SQD with en_sqd_async_notify",
	      EV_MSG / 1024);
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_SQ_DRAINED && el == a, "IBV_EVENT_SQ_DRAINED for a (event %d)", ev);
	n = drain_cq(scq, 300, &bad);
	check(n <= 4 && !bad && drain_cq(scq, 300, &bad) == 0,
	      "%d of the 4 SENDs begun before SQD completed; nothing more in SQD", n);
	post_plain(a, 104, buf, 16, mr->lkey, 0, 0);
	check(drain_cq(scq, 300, &bad) == 0 && next_async_event(0, &el) == -1 &&
	      qp_state(a) == IBV_QPS_SQD,
	      "a SEND posted in SQD does not begin; no second SQ_DRAINED");
	check(qp_modify_state(a, IBV_QPS_RTS, 0) == 0, "a SQD -> RTS");
	k = poll_plain(scq, r, 5 - n);
	check(k == 5 - n && !bad, "back in RTS: the other %d SENDs complete (%d)", 5 - n, k);
	k = poll_plain(rcq, r, 5);
	for (i = 0; i < k; i++)
		bad += r[i].status != IBV_WC_SUCCESS || r[i].wr_id != (uint64_t)12 + i;
	check(k == 5 && !bad, "b received the 5 in order (%d)", k);

	/* SQD while a begun SEND waits on RNR NAKs (b has no receive left) */
	post_plain(a, 105, buf, 16, mr->lkey, 0, 0);
	check(poll_plain(scq, r, 1) == 1 && poll_plain(rcq, r, 1) == 1 && r[0].wr_id == 17,
	      "b's last receive used");
	post_plain(a, 106, buf, 16, mr->lkey, 0, 0);
	check(drain_cq(scq, 300, &bad) == 0, "a SEND without a receive at b waits (RNR NAKs)");
	check(qp_modify_state(a, IBV_QPS_SQD, 1) == 0,
	      "RTS -> SQD with en_sqd_async_notify while it waits");
	check(qp_sq_draining(a) == 1, "ibv_query_qp: SQD, sq_draining 1");
	memset(&at, 0, sizeof(at));
	at.timeout = 15;
	check_ret(ibv_modify_qp(a, &at, IBV_QP_TIMEOUT), EBUSY,
		  "SQD -> SQD with an attribute before drained");
	check(next_async_event(300, &el) == -1,
	      "no SQ_DRAINED while the SEND begun before SQD is outstanding");
	post_recv(b, NULL, 18, buf + EV_MSG, EV_MSG, mr->lkey);
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_SQ_DRAINED && el == a,
	      "a receive at b: the SEND completes in SQD, then SQ_DRAINED (event %d)", ev);
	check(poll_plain(scq, r, 1) == 1 && r[0].wr_id == 106 && r[0].status == IBV_WC_SUCCESS &&
	      poll_plain(rcq, r, 1) == 1 && r[0].wr_id == 18, "the SEND and its receive completed");
	check(qp_sq_draining(a) == 0, "ibv_query_qp: SQD, sq_draining 0");
	at.timeout = 14;
	check_ret(ibv_modify_qp(a, &at, IBV_QP_TIMEOUT), 0, "SQD -> SQD with an attribute once drained");
	check(qp_modify_state(a, IBV_QPS_RTS, 0) == 0, "a SQD -> RTS");

	/* LAST_WQE_REACHED */
	srq = ibv_create_srq(pd, &sa);
	c = srq ? qp_ex(pd, IBV_QPT_RC, rcq, rcq, srq, 0) : NULL;
	if (!c || to_init(c)) {
		check(0, "events: a QP on an SRQ (errno %d)", errno);
		goto out;
	}
	check(qp_modify_state(b, IBV_QPS_ERR, 0) == 0, "b (no SRQ) to ERR");
	check(next_async_event(300, &el) == -1, "no LAST_WQE_REACHED for a QP without an SRQ");
	check(qp_modify_state(c, IBV_QPS_ERR, 0) == 0, "c (on an SRQ) to ERR");
	ev = next_async_event(timeout_ms, &el);
	check(ev == IBV_EVENT_QP_LAST_WQE_REACHED && el == c,
	      "IBV_EVENT_QP_LAST_WQE_REACHED for c (event %d)", ev);
	check(next_async_event(300, &el) == -1, "only once");
out:
	if (c)
		ibv_destroy_qp(c);
	destroy_pair(a, b);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (scq)
		ibv_destroy_cq(scq);
	if (rcq)
		ibv_destroy_cq(rcq);
	free(buf);
	fcntl(ctx->async_fd, F_SETFL, flags);
}

/* --- rnrnak ------------------------------------------------------------------------------ */

/*
 * IBV_DEVICE_RC_RNR_NAK_GEN: a SEND that finds no receive WQE is answered
 * with an RNR NAK.  With rnr_retry 0 the requester gives up on the first
 * one: IBV_WC_RNR_RETRY_EXC_ERR, which only an RNR NAK produces (a
 * responder that dropped the SEND would make it time out: RETRY_EXC_ERR).
 */
static void test_rnrnak(struct ibv_pd *pd)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_qp_attr at;
	struct ibv_mr *mr = NULL;
	char *buf = calloc(1, 4096);
	struct rec r[2];
	int n;

	if (cq) {
		a = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
		b = qp_ex(pd, IBV_QPT_RC, cq, cq, NULL, 0);
	}
	mr = buf ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 100;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 0;
	at.max_rd_atomic = 1;
	if (!a || !b || !mr || connect_qp(b, a->qp_num) || qp_to_rtr(a, b->qp_num) ||
	    ibv_modify_qp(a, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		check(0, "rnrnak: an RC pair, rnr_retry 0 (errno %d)", errno);
		goto out;
	}
	post_plain(a, 1, buf, 16, mr->lkey, 0, 0);
	n = poll_plain(cq, r, 1);
	check(n == 1 && r[0].wr_id == 1 && r[0].status == IBV_WC_RNR_RETRY_EXC_ERR,
	      "a SEND without a receive WQE, rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR (status %d)",
	      n == 1 ? r[0].status : -1);
out:
	destroy_pair(a, b);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(buf);
}

/* --- xrc ---------------------------------------------------------------------------------- */

/* The seed's legacy calls: not in rdma-core's headers, looked up at IBVERBS_1.1. */
struct ibv_xrc_domain;
typedef struct ibv_xrc_domain *(*open_xrc_domain_fn)(struct ibv_context *, int, int);
typedef int (*close_xrc_domain_fn)(struct ibv_xrc_domain *);
typedef struct ibv_srq *(*create_xrc_srq_fn)(struct ibv_pd *, struct ibv_xrc_domain *,
					     struct ibv_cq *, struct ibv_srq_init_attr *);
typedef int (*create_xrc_rcv_qp_fn)(struct ibv_qp_init_attr *, uint32_t *);
typedef int (*reg_xrc_rcv_qp_fn)(struct ibv_xrc_domain *, uint32_t);
typedef int (*modify_xrc_rcv_qp_fn)(struct ibv_xrc_domain *, uint32_t, struct ibv_qp_attr *,
				    int);
typedef int (*query_xrc_rcv_qp_fn)(struct ibv_xrc_domain *, uint32_t, struct ibv_qp_attr *,
				   int, struct ibv_qp_init_attr *);

/* The seed's struct ibv_qp_init_attr: rdma-core's and the XRC domain. */
struct seed_qp_init_attr {
	struct ibv_qp_init_attr attr;
	struct ibv_xrc_domain *xrc_domain;
};

/*
 * The seed's receive QP calls on domain @d (of file @fd, which @x1 also
 * opened): create (the creator registered), modify Reset -> Init, query,
 * reg and unreg counting registrations, close_xrc_domain refused while
 * registered, the QP gone with the last unregistration; ibv_open_qp of
 * it through @x1 meanwhile.
 */
static void test_xrc_rcv_qp(struct ibv_xrc_domain *d, struct ibv_xrcd *x1,
			    close_xrc_domain_fn close_d)
{
	create_xrc_rcv_qp_fn create_rq;
	reg_xrc_rcv_qp_fn reg_rq, unreg_rq;
	modify_xrc_rcv_qp_fn modify_rq;
	query_xrc_rcv_qp_fn query_rq;
	struct seed_qp_init_attr si;
	struct ibv_qp_open_attr oa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	struct ibv_qp *oq;
	uint32_t qpn = 0;
	int ret;

	create_rq = (create_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_create_xrc_rcv_qp",
						 "IBVERBS_1.1");
	reg_rq = (reg_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_reg_xrc_rcv_qp", "IBVERBS_1.1");
	unreg_rq = (reg_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_unreg_xrc_rcv_qp", "IBVERBS_1.1");
	modify_rq = (modify_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_modify_xrc_rcv_qp",
						 "IBVERBS_1.1");
	query_rq = (query_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_query_xrc_rcv_qp",
					       "IBVERBS_1.1");
	if (!create_rq || !reg_rq || !unreg_rq || !modify_rq || !query_rq)
		return;
	memset(&si, 0, sizeof(si));
	si.attr.qp_type = IBV_QPT_RC;	/* ignored, as everything but the domain */
	si.attr.cap.max_send_wr = 1000000;
	si.xrc_domain = d;
	ret = create_rq(&si.attr, &qpn);
	check(ret == 0 && qpn, "ibv_create_xrc_rcv_qp: qpn %u (%s)", qpn, strerror(ret));
	if (ret || !qpn)
		return;
	memset(&qa, 0xff, sizeof(qa));
	check_ret(query_rq(d, qpn, &qa, IBV_QP_STATE, &qi), 0, "ibv_query_xrc_rcv_qp");
	check(qa.qp_state == IBV_QPS_RESET && qi.qp_type == IBV_QPT_XRC_RECV,
	      "... a new XRC receive QP is in RESET (state %d, type %d)", qa.qp_state,
	      qi.qp_type);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	check_ret(modify_rq(d, qpn, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
		  EINVAL, "ibv_modify_xrc_rcv_qp to INIT without ACCESS_FLAGS");
	check_ret(modify_rq(d, qpn, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS), 0, "ibv_modify_xrc_rcv_qp to INIT");
	memset(&qa, 0, sizeof(qa));
	check_ret(query_rq(d, qpn, &qa, IBV_QP_STATE, NULL), 0, "ibv_query_xrc_rcv_qp again");
	check(qa.qp_state == IBV_QPS_INIT && qa.port_num == 1, "... it is in INIT (state %d)",
	      qa.qp_state);
	/* rdma-core's ibv_open_qp reaches the same QP through the same domain */
	memset(&oa, 0, sizeof(oa));
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = qpn;
	oa.xrcd = x1;
	oa.qp_type = IBV_QPT_XRC_RECV;
	oq = x1 ? ibv_open_qp(ctx, &oa) : NULL;
	check(oq && oq->qp_num == qpn && oq->qp_type == IBV_QPT_XRC_RECV,
	      "ibv_open_qp of it through another handle of the domain (errno %d)", errno);
	if (oq)
		check_ret(ibv_destroy_qp(oq), 0, "ibv_destroy_qp of the opened handle");
	oa.qp_type = IBV_QPT_RC;
	errno = 0;
	check_null_errno(x1 ? ibv_open_qp(ctx, &oa) : NULL, EINVAL, "ibv_open_qp(RC)");
	check_ret(reg_rq(d, qpn), 0, "ibv_reg_xrc_rcv_qp: a second registration");
	check_ret(reg_rq(d, 0xfffffe), ENOENT, "ibv_reg_xrc_rcv_qp of no such QP");
	check_ret(close_d(d), EBUSY, "ibv_close_xrc_domain while registered");
	check_ret(unreg_rq(d, qpn), 0, "ibv_unreg_xrc_rcv_qp: one registration left");
	memset(&qa, 0, sizeof(qa));
	check_ret(query_rq(d, qpn, &qa, IBV_QP_STATE, NULL), 0, "... the QP lives on");
	check_ret(unreg_rq(d, qpn), 0, "ibv_unreg_xrc_rcv_qp of the creator's registration");
	check_ret(unreg_rq(d, qpn), EINVAL, "ibv_unreg_xrc_rcv_qp without a registration");
	ret = query_rq(d, qpn, &qa, IBV_QP_STATE, NULL);
	check(ret == ENOENT, "... the last one destroyed the QP (%s)", strerror(ret));
}

static struct ibv_srq *xrc_srq(struct ibv_pd *pd, struct ibv_xrcd *xrcd, struct ibv_cq *cq,
			       uint32_t mask)
{
	struct ibv_srq_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.comp_mask = mask;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = pd;
	a.xrcd = xrcd;
	a.cq = cq;
	a.attr.max_wr = 16;
	a.attr.max_sge = 1;
	errno = 0;
	return ibv_create_srq_ex(ctx, &a);
}

/* @qp, an XRC initiator (@tgt 0) or target, through INIT and RTR to @dest. */
static int xrc_to_rtr(struct ibv_qp *qp, uint32_t dest, int tgt)
{
	struct ibv_qp_attr a;
	int ret = to_init(qp);

	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     (tgt ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0));
}

/*
 * XRC data on one device through the ibv_wr_* API: an XRC_SEND QP made
 * with send_ops_flags, a target of @x, SENDs to two XRC SRQs named with
 * ibv_wr_set_xrc_srqn, each landing on its SRQ's CQ from the target; the
 * initiator refuses a receive CQ's use (ibv_post_recv) and the target
 * any post.
 */
static void test_xrc_wr(struct ibv_pd *pd, struct ibv_xrcd *x)
{
	enum { LEN = 256 };
	struct ibv_qp_init_attr_ex qa;
	struct ibv_cq *scq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_cq *rcq[2] = { ibv_create_cq(ctx, 8, NULL, NULL, 0),
				  ibv_create_cq(ctx, 8, NULL, NULL, 0) };
	struct ibv_srq *srq[2] = { NULL, NULL };
	struct ibv_qp *ini = NULL, *tgt = NULL;
	struct ibv_qp_ex *xi;
	struct ibv_mr *mr = NULL;
	struct ibv_recv_wr rw = { 0 }, *bad;
	struct rec r;
	uint8_t *buf = calloc(1, 4 * LEN);
	uint32_t srqn[2] = { 0, 0 };
	int i, got, ret;

	if (!scq || !rcq[0] || !rcq[1] || !buf) {
		check(0, "xrc wr: CQs and buffers (errno %d)", errno);
		goto out;
	}
	mr = ibv_reg_mr(pd, buf, 4 * LEN, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < 2 && mr; i++) {
		srq[i] = xrc_srq(pd, x, rcq[i], IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ);
		if (srq[i])
			ibv_get_srq_num(srq[i], &srqn[i]);
		if (srq[i])
			post_recv(NULL, srq[i], 300 + i, buf + 2 * LEN + i * LEN, LEN, mr->lkey);
	}
	ini = qp_ex(pd, IBV_QPT_XRC_SEND, scq, NULL, NULL,
		    IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = x;
	tgt = ibv_create_qp_ex(ctx, &qa);
	check(mr && srq[0] && srq[1] && ini && tgt && tgt->qp_type == IBV_QPT_XRC_RECV &&
	      !tgt->pd && ini->qp_type == IBV_QPT_XRC_SEND,
	      "ibv_create_qp_ex(XRC_SEND with send_ops_flags) and (XRC_RECV in a domain) "
	      "(errno %d)", errno);
	if (!mr || !srq[0] || !srq[1] || !ini || !tgt)
		goto out;
	ret = xrc_to_rtr(tgt, ini->qp_num, 1);
	check_ret(ret, 0, "the target to RTR");
	ret = xrc_to_rtr(ini, tgt->qp_num, 0);
	check_ret(ret ? ret : qp_to_rts(ini), 0, "the initiator to RTS");
	check_ret(ibv_post_recv(ini, &rw, &bad), EINVAL, "ibv_post_recv on an XRC_SEND QP");
	check_ret(post_plain(tgt, 1, buf, 8, mr->lkey, 0, 0), EINVAL,
		  "ibv_post_send on an XRC_RECV QP");
	xi = ibv_qp_to_qp_ex(ini);
	ibv_wr_start(xi);
	for (i = 0; i < 2; i++) {
		memset(buf + i * LEN, 'a' + i, LEN);
		xi->wr_id = 400 + i;
		xi->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(xi);
		ibv_wr_set_xrc_srqn(xi, srqn[1 - i]);	/* crossed: 0 to SRQ 1 */
		ibv_wr_set_sge(xi, mr->lkey, (uintptr_t)(buf + i * LEN), LEN);
	}
	check_ret(ibv_wr_complete(xi), 0, "ibv_wr_send with ibv_wr_set_xrc_srqn x2");
	got = poll_plain(scq, &r, 1);
	got += poll_plain(scq, &r, 1);
	check(got == 2 && r.status == IBV_WC_SUCCESS, "both SENDs complete (%d)", got);
	for (i = 0; i < 2; i++) {
		got = poll_plain(rcq[i], &r, 1);
		check(got == 1 && r.status == IBV_WC_SUCCESS && r.wr_id == 300u + i &&
		      r.byte_len == LEN && r.qp_num == tgt->qp_num && r.opcode == IBV_WC_RECV &&
		      buf[2 * LEN + i * LEN] == 'a' + 1 - i &&
		      buf[2 * LEN + i * LEN + LEN - 1] == 'a' + 1 - i,
		      "XRC SRQ %d's CQ has the SEND named it, from the target (%d, status %d)",
		      i, got, got ? r.status : -1);
	}
out:
	if (ini)
		check_ret(ibv_destroy_qp(ini), 0, "ibv_destroy_qp(XRC_SEND)");
	if (tgt)
		check_ret(ibv_destroy_qp(tgt), 0, "ibv_destroy_qp(XRC_RECV)");
	for (i = 0; i < 2; i++) {
		if (srq[i])
			ibv_destroy_srq(srq[i]);
		if (rcq[i])
			ibv_destroy_cq(rcq[i]);
	}
	if (mr)
		ibv_dereg_mr(mr);
	if (scq)
		ibv_destroy_cq(scq);
	free(buf);
}

/*
 * rdma-core's ibv_open_xrcd(3): a domain per inode, O_CREAT/O_EXCL;
 * ibv_close_xrcd fails while an XRC SRQ is in the domain (the seed's
 * ibv_close_xrc_domain: "may fail if any QP or SRQ are still associated").
 * The legacy calls open the same domains, and their XRC receive QPs are
 * XRC target QPs: test_xrc_rcv_qp() walks them.
 */
static void test_xrc(struct ibv_pd *pd)
{
	const uint32_t all = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	struct ibv_xrcd_init_attr xa;
	struct ibv_xrcd *x1, *x2, *xp;
	struct ibv_srq *s1 = NULL, *s2 = NULL;
	struct ibv_srq_init_attr si;
	struct ibv_cq *cq;
	struct ibv_xrc_domain *d;
	open_xrc_domain_fn open_d;
	close_xrc_domain_fn close_d;
	create_xrc_srq_fn create_s;
	create_xrc_rcv_qp_fn create_rq;
	reg_xrc_rcv_qp_fn reg_rq, unreg_rq;
	uint32_t n1 = 0, n2 = 0, nl = 0;
	char path[] = "/tmp/ibv_extended_xrc.XXXXXX";
	int fd = mkstemp(path);

	check(fd >= 0, "a file to name the domain (%s)", fd >= 0 ? path : strerror(errno));
	if (fd < 0)
		return;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	/* XRC in full: SENDs, RDMA and atomics to XRC targets (uverbs.h) */
	check(dattr.device_cap_flags & IBV_DEVICE_XRC, "IBV_DEVICE_XRC is set");

	memset(&xa, 0, sizeof(xa));
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = fd;
	xa.oflags = 0;
	errno = 0;
	check_null_errno(ibv_open_xrcd(ctx, &xa), ENOENT, "ibv_open_xrcd(file, 0) before any");
	xa.oflags = O_RDWR;
	errno = 0;
	check_null_errno(ibv_open_xrcd(ctx, &xa), EINVAL, "ibv_open_xrcd(O_RDWR)");
	xa.oflags = O_CREAT;
	x1 = ibv_open_xrcd(ctx, &xa);
	check(x1 && x1->context == ctx, "ibv_open_xrcd(file, O_CREAT) (errno %d)", errno);
	xa.oflags = O_CREAT | O_EXCL;
	errno = 0;
	check_null_errno(ibv_open_xrcd(ctx, &xa), EEXIST, "ibv_open_xrcd(O_CREAT | O_EXCL) again");
	xa.oflags = 0;
	x2 = ibv_open_xrcd(ctx, &xa);
	check(x2 != NULL, "ibv_open_xrcd(file, 0) opens it (errno %d)", errno);
	xa.fd = -1;
	xa.oflags = O_CREAT;
	xp = ibv_open_xrcd(ctx, &xa);
	check(xp != NULL, "ibv_open_xrcd(-1, O_CREAT): a private domain (errno %d)", errno);
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	errno = 0;
	check_null_errno(ibv_open_xrcd(ctx, &xa), EINVAL, "ibv_open_xrcd without OFLAGS");

	if (x1 && cq) {
		s1 = xrc_srq(pd, x1, cq, all);
		check(s1 && !ibv_get_srq_num(s1, &n1) && n1 && n1 <= 0xffffff,
		      "ibv_create_srq_ex(XRC) and ibv_get_srq_num: %u (errno %d)", n1, errno);
		check_null_errno(xrc_srq(pd, x1, cq, all & ~IBV_SRQ_INIT_ATTR_CQ), EINVAL,
				 "ibv_create_srq_ex(XRC) without a CQ");
		check_null_errno(xrc_srq(pd, NULL, cq, all & ~IBV_SRQ_INIT_ATTR_XRCD), EINVAL,
				 "ibv_create_srq_ex(XRC) without a domain");
		if (s1) {
			check_ret(ibv_close_xrcd(x1), EBUSY,
				  "ibv_close_xrcd of the handle an XRC SRQ was created through");
			check_ret(ibv_destroy_cq(cq), EBUSY, "ibv_destroy_cq of an XRC SRQ's CQ");
		}
	}
	if (x2) {
		test_xrc_wr(pd, x2);
		check_ret(ibv_close_xrcd(x2), 0, "ibv_close_xrcd of another handle of it");
	}

	open_d = (open_xrc_domain_fn)dlvsym(RTLD_DEFAULT, "ibv_open_xrc_domain", "IBVERBS_1.1");
	close_d = (close_xrc_domain_fn)dlvsym(RTLD_DEFAULT, "ibv_close_xrc_domain",
					      "IBVERBS_1.1");
	create_s = (create_xrc_srq_fn)dlvsym(RTLD_DEFAULT, "ibv_create_xrc_srq", "IBVERBS_1.1");
	create_rq = (create_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_create_xrc_rcv_qp",
						 "IBVERBS_1.1");
	reg_rq = (reg_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_reg_xrc_rcv_qp", "IBVERBS_1.1");
	unreg_rq = (reg_xrc_rcv_qp_fn)dlvsym(RTLD_DEFAULT, "ibv_unreg_xrc_rcv_qp", "IBVERBS_1.1");
	check(open_d && close_d && create_s && create_rq && reg_rq && unreg_rq &&
	      dlvsym(RTLD_DEFAULT, "ibv_modify_xrc_rcv_qp", "IBVERBS_1.1") &&
	      dlvsym(RTLD_DEFAULT, "ibv_query_xrc_rcv_qp", "IBVERBS_1.1"),
	      "the eight legacy XRC calls are exported at IBVERBS_1.1");
	if (open_d && close_d && create_s && create_rq && reg_rq && unreg_rq && cq) {
		errno = 0;
		check_null_errno(open_d(ctx, fd, O_CREAT | O_EXCL), EEXIST,
				 "ibv_open_xrc_domain(O_CREAT | O_EXCL) of the open domain");
		errno = 0;
		check_null_errno(open_d(ctx, -1, 0), EINVAL, "ibv_open_xrc_domain(-1, 0)");
		d = open_d(ctx, fd, 0);
		check(d != NULL, "ibv_open_xrc_domain(fd, 0): a reference to the opened one (errno %d)",
		      errno);
		if (d) {
			memset(&si, 0, sizeof(si));
			si.attr.max_wr = 8;
			si.attr.max_sge = 1;
			s2 = create_s(pd, d, cq, &si);
			check(s2 && !ibv_get_srq_num(s2, &n2) && n2 && n2 != n1 &&
			      si.attr.max_wr >= 8,
			      "ibv_create_xrc_srq: srq num %u, max_wr %u (errno %d)", n2,
			      si.attr.max_wr, errno);
			check_ret(close_d(d), s2 ? EBUSY : 0,
				  "ibv_close_xrc_domain with its XRC SRQ: EBUSY");
			check_ret(create_rq(NULL, &nl), EINVAL, "ibv_create_xrc_rcv_qp(NULL)");
			test_xrc_rcv_qp(d, x1, close_d);
			if (s2)
				check_ret(ibv_destroy_srq(s2), 0, "ibv_destroy_srq of the XRC SRQ");
			check_ret(close_d(d), 0, "ibv_close_xrc_domain once its SRQ is gone");
		}
	}

	if (s1)
		check_ret(ibv_destroy_srq(s1), 0, "ibv_destroy_srq(XRC)");
	if (x1)
		check_ret(ibv_close_xrcd(x1), 0, "ibv_close_xrcd once the SRQ is gone");
	if (xp)
		check_ret(ibv_close_xrcd(xp), 0, "ibv_close_xrcd of the private domain");
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = fd;
	xa.oflags = 0;
	errno = 0;
	check_null_errno(ibv_open_xrcd(ctx, &xa), ENOENT, "the domain is gone with its last handle");
	if (cq)
		check_ret(ibv_destroy_cq(cq), 0, "ibv_destroy_cq once the XRC SRQs are gone");
	close(fd);
	unlink(path);
}

int main(int argc, char **argv)
{
	const char *name = NULL, *test = "all";
	struct ibv_pd *pd;
	int opt, all;

	while ((opt = getopt(argc, argv, "d:t:n:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 't':
			test = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: ibv_extended [-d DEV] [-t TEST] [-n ITERS]\n");
			return 2;
		}
	}
	if (open_device(name))
		goto done;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		check(0, "ibv_alloc_pd (errno %d)", errno);
		goto done;
	}
	all = !strcmp(test, "all");
	if (all || !strcmp(test, "devex"))
		test_devex();
	if (all || !strcmp(test, "cqex"))
		test_cqex(pd);
	if (all || !strcmp(test, "qpex"))
		test_qpex(pd);
	if (all || !strcmp(test, "td"))
		test_td(pd);
	if (all || !strcmp(test, "iova"))
		test_iova(pd);
	if (all || !strcmp(test, "rereg"))
		test_rereg(pd);
	if (all || !strcmp(test, "resize"))
		test_resize(pd);
	if (all || !strcmp(test, "srq"))
		test_srq(pd);
	if (all || !strcmp(test, "srqresize"))
		test_srqresize(pd);
	if (all || !strcmp(test, "events"))
		test_events(pd);
	if (all || !strcmp(test, "rnrnak"))
		test_rnrnak(pd);
	if (all || !strcmp(test, "xrc"))
		test_xrc(pd);
	check_ret(ibv_dealloc_pd(pd), 0, "ibv_dealloc_pd at the end: nothing left on it");
	ibv_close_device(ctx);
done:
	printf("1..%d\n", checks);
	printf("# %d checks, %d failed\n", checks, failures);
	return failures || !checks ? 1 : 0;
}
