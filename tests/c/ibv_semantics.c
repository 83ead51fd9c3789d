// SPDX-License-Identifier: BSD-2-Clause
/*
 * ibv_semantics: what libibverbs decides by itself, checked through the
 * public API exactly as an rdma-core application sees it: compiled
 * against the system's <infiniband/verbs.h> (rdma-core 44), linked
 * against libibverbs.so.1 and run with xib-run, so it exercises xib's
 * drop-in library.  The expectations come from the libibverbs manual
 * pages (shared/seed: the OFED manual) and, where the seed says nothing
 * (rate and string tables, the RoCE port), from rdma-core 44's
 * documented behaviour; the pure-function checks (-p) pass against
 * rdma-core's own libibverbs too, which is how their tables were checked.
 *
 * usage: ibv_semantics -p                 rates and strings only
 *        ibv_semantics -n                 no device in this namespace
 *        ibv_semantics [-d DEV] [-G GUID] one device (DEV, or the first)
 *
 * GUID is the node GUID as "xibctl dev show" prints it
 * (xxxx:xxxx:xxxx:xxxx, most significant group first).
 *
 * With IBV_SEM_RDMA_CORE set in the environment, the checks that crash
 * rdma-core's own libibverbs (ibv_query_port on port 0) are left out: for
 * cross-checking the expectations against rdma-core and rdma_rxe.
 *
 * Prints TAP ("ok N - ...", "not ok N - ...", then "1..N"); exits 1 if
 * any check failed.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static int checks, failures;

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

/* A creator's failure: NULL with errno @err. */
#define check_null_errno(p, err, what) \
	check((p) == NULL && errno == (err), "%s: NULL, errno %s (got %p, errno %d %s)", \
	      what, #err, (void *)(p), errno, strerror(errno))

/* A verb returning an errno value (evaluated once). */
#define check_ret(call, want, what) do { \
	int __r = (call); \
	check(__r == (want), "%s: returns %s (got %d %s)", what, #want, __r, \
	      __r > 0 ? strerror(__r) : ""); \
} while (0)

/* --- pure functions -------------------------------------------------------- */

/* rdma-core 44: enum ibv_rate -> multiple of 2.5 Gb/s (-1: none) and Mb/s. */
static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },
	{ IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },
	{ IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },
	{ IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_rates(void)
{
	int bad = 0, v, m;
	size_t i;

	/* The seed's two examples, literally. */
	check(ibv_rate_to_mult(IBV_RATE_5_GBPS) == 2,
	      "ibv_rate_to_mult(IBV_RATE_5_GBPS) == 2 (seed example)");
	check(mult_to_ibv_rate(2) == IBV_RATE_5_GBPS,
	      "mult_to_ibv_rate(2) == IBV_RATE_5_GBPS (seed example)");

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		v = ibv_rate_to_mult(rates[i].rate);
		if (v != rates[i].mult) {
			printf("# ibv_rate_to_mult(%d) = %d, want %d\n", rates[i].rate, v,
			       rates[i].mult);
			bad++;
		}
		if (rates[i].mult > 0 && mult_to_ibv_rate(rates[i].mult) != rates[i].rate) {
			printf("# mult_to_ibv_rate(%d) = %d, want %d\n", rates[i].mult,
			       mult_to_ibv_rate(rates[i].mult), rates[i].rate);
			bad++;
		}
		v = ibv_rate_to_mbps(rates[i].rate);
		if (v != rates[i].mbps) {
			printf("# ibv_rate_to_mbps(%d) = %d, want %d\n", rates[i].rate, v,
			       rates[i].mbps);
			bad++;
		}
		if (mbps_to_ibv_rate(rates[i].mbps) != rates[i].rate) {
			printf("# mbps_to_ibv_rate(%d) = %d, want %d\n", rates[i].mbps,
			       mbps_to_ibv_rate(rates[i].mbps), rates[i].rate);
			bad++;
		}
	}
	check(!bad, "rate tables: all %zu enum ibv_rate values in the four conversions",
	      ARRAY_SIZE(rates));

	/* Values with no rate: -1 one way, IBV_RATE_MAX (0) the other. */
	bad = 0;
	for (v = -1; v <= 2; v++)
		if (v != IBV_RATE_2_5_GBPS &&
		    (ibv_rate_to_mult(v) != -1 || ibv_rate_to_mbps(v) != -1))
			bad++;
	if (ibv_rate_to_mult(IBV_RATE_1200_GBPS + 1) != -1 ||
	    ibv_rate_to_mbps(IBV_RATE_1200_GBPS + 1) != -1 ||
	    ibv_rate_to_mult(1000) != -1 || ibv_rate_to_mbps(1000) != -1)
		bad++;
	check(!bad, "ibv_rate_to_mult/mbps: IBV_RATE_MAX and out-of-range values give -1");

	bad = 0;
	for (m = -2; m <= 600; m++) {
		int known = 0;

		for (i = 0; i < ARRAY_SIZE(rates); i++)
			known |= rates[i].mult == m;
		if (!known && mult_to_ibv_rate(m) != IBV_RATE_MAX) {
			printf("# mult_to_ibv_rate(%d) = %d, want IBV_RATE_MAX\n", m,
			       mult_to_ibv_rate(m));
			bad++;
		}
	}
	check(!bad, "mult_to_ibv_rate: every other multiplier in -2..600 gives IBV_RATE_MAX");

	bad = 0;
	{
		static const int odd[] = { -1, 0, 1, 2499, 2501, 14063, 25000, 50000,
					   100000, 200000, 300000, 400000, 1200000,
					   INT32_MAX };

		for (i = 0; i < ARRAY_SIZE(odd); i++)
			if (mbps_to_ibv_rate(odd[i]) != IBV_RATE_MAX) {
				printf("# mbps_to_ibv_rate(%d) = %d, want IBV_RATE_MAX\n",
				       odd[i], mbps_to_ibv_rate(odd[i]));
				bad++;
			}
	}
	check(!bad, "mbps_to_ibv_rate: values that are no exact rate give IBV_RATE_MAX");
}

static const char *const node_type_str[] = {
	[IBV_NODE_CA] = "InfiniBand channel adapter",
	[IBV_NODE_SWITCH] = "InfiniBand switch",
	[IBV_NODE_ROUTER] = "InfiniBand router",
	[IBV_NODE_RNIC] = "iWARP NIC",
	[IBV_NODE_USNIC] = "usNIC",
	[IBV_NODE_USNIC_UDP] = "usNIC UDP",
	[IBV_NODE_UNSPECIFIED] = "unspecified",
};

static const char *const port_state_str[] = {
	[IBV_PORT_NOP] = "no state change (NOP)",
	[IBV_PORT_DOWN] = "down",
	[IBV_PORT_INIT] = "init",
	[IBV_PORT_ARMED] = "armed",
	[IBV_PORT_ACTIVE] = "active",
	[IBV_PORT_ACTIVE_DEFER] = "active defer",
};

static const char *const event_type_str[] = {
	[IBV_EVENT_CQ_ERR] = "CQ error",
	[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
	[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
	[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
	[IBV_EVENT_COMM_EST] = "communication established",
	[IBV_EVENT_SQ_DRAINED] = "send queue drained",
	[IBV_EVENT_PATH_MIG] = "path migrated",
	[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
	[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
	[IBV_EVENT_PORT_ACTIVE] = "port active",
	[IBV_EVENT_PORT_ERR] = "port error",
	[IBV_EVENT_LID_CHANGE] = "LID change",
	[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
	[IBV_EVENT_SM_CHANGE] = "SM change",
	[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
	[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
	[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
	[IBV_EVENT_GID_CHANGE] = "GID table change",
	[IBV_EVENT_WQ_FATAL] = "WQ fatal",
};

static const char *const wc_status_str[] = {
	[IBV_WC_SUCCESS] = "success",
	[IBV_WC_LOC_LEN_ERR] = "local length error",
	[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
	[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
	[IBV_WC_LOC_PROT_ERR] = "local protection error",
	[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
	[IBV_WC_MW_BIND_ERR] = "memory management operation error",
	[IBV_WC_BAD_RESP_ERR] = "bad response error",
	[IBV_WC_LOC_ACCESS_ERR] = "local access error",
	[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
	[IBV_WC_REM_ACCESS_ERR] = "remote access error",
	[IBV_WC_REM_OP_ERR] = "remote operation error",
	[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	[IBV_WC_REM_ABORT_ERR] = "aborted error",
	[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
	[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
	[IBV_WC_FATAL_ERR] = "fatal error",
	[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
	[IBV_WC_GENERAL_ERR] = "general error",
	[IBV_WC_TM_ERR] = "TM error",
	[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
};

/*
 * Compare fn(v) with table[v] for every v in [lo, hi]: a value without an
 * entry (or outside the table) must give "unknown".
 */
static void check_strings(const char *name, const char *(*fn)(int),
			  const char *const *table, int n, int lo, int hi)
{
	int v, bad = 0;

	for (v = lo; v <= hi; v++) {
		const char *want = v >= 0 && v < n && table[v] ? table[v] : "unknown";
		const char *got = fn(v);

		if (!got || strcmp(got, want)) {
			printf("# %s(%d) = \"%s\", want \"%s\"\n", name, v, got ? got : "(null)",
			       want);
			bad++;
		}
	}
	check(!bad, "%s: every enum value (%d of them) and out-of-range values %d..%d",
	      name, n, lo, hi);
}

static const char *node_type_fn(int v) { return ibv_node_type_str(v); }
static const char *port_state_fn(int v) { return ibv_port_state_str(v); }
static const char *event_type_fn(int v) { return ibv_event_type_str(v); }
static const char *wc_status_fn(int v) { return ibv_wc_status_str(v); }

static void test_strings(void)
{
	check_strings("ibv_node_type_str", node_type_fn, node_type_str,
		      ARRAY_SIZE(node_type_str), -2, 40);
	check_strings("ibv_port_state_str", port_state_fn, port_state_str,
		      ARRAY_SIZE(port_state_str), -2, 40);
	check_strings("ibv_event_type_str", event_type_fn, event_type_str,
		      ARRAY_SIZE(event_type_str), -2, 40);
	check_strings("ibv_wc_status_str", wc_status_fn, wc_status_str,
		      ARRAY_SIZE(wc_status_str), -2, 40);
	check(!strcmp(ibv_node_type_str(0x7fffffff), "unknown") &&
	      !strcmp(ibv_wc_status_str(0x7fffffff), "unknown"),
	      "string functions: INT_MAX gives \"unknown\"");
}

/* --- device list ----------------------------------------------------------- */

static int count_list(struct ibv_device **l)
{
	int n = 0;

	while (l[n])
		n++;
	return n;
}

static void test_no_device(void)
{
	struct ibv_device **l;
	int n = -7;

	errno = 0;
	l = ibv_get_device_list(&n);
	check(l != NULL, "no device: ibv_get_device_list returns a list, not NULL (errno %d)",
	      errno);
	if (!l)
		return;
	check(n == 0, "no device: num_devices is set to 0 (got %d)", n);
	check(l[0] == NULL, "no device: the list is just its NULL terminator");
	ibv_free_device_list(l);
	l = ibv_get_device_list(NULL);
	check(l && l[0] == NULL, "no device: num_devices NULL is allowed");
	if (l)
		ibv_free_device_list(l);
}

static int parse_guid(const char *s, uint64_t *guid)
{
	unsigned int a, b, c, d;
	char end;

	if (sscanf(s, "%4x:%4x:%4x:%4x%c", &a, &b, &c, &d, &end) != 4)
		return -1;
	*guid = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

/* --- one device ------------------------------------------------------------ */

static struct ibv_device_attr dattr;
static struct ibv_port_attr pattr;

static void test_queries(struct ibv_context *ctx, const char *guid_arg)
{
	union ibv_gid gid;
	struct ibv_gid_entry ge;
	uint64_t want, guid;
	uint16_t pkey;
	int ret, i, zero;
	uint8_t bad_port;

	ret = ibv_query_device(ctx, &dattr);
	check_ret(ret, 0, "ibv_query_device");
	check(dattr.phys_port_cnt >= 1 && dattr.max_qp_wr > 0 && dattr.max_sge > 0 &&
	      dattr.max_cqe > 0 && dattr.max_qp_rd_atom > 0,
	      "ibv_query_device: ports %u, max_qp_wr %d, max_sge %d, max_cqe %d, max_qp_rd_atom %d",
	      dattr.phys_port_cnt, dattr.max_qp_wr, dattr.max_sge, dattr.max_cqe,
	      dattr.max_qp_rd_atom);

	/* ibv_get_device_guid: network byte order, as node_guid. */
	guid = ibv_get_device_guid(ctx->device);
	check(guid != 0 && guid == dattr.node_guid,
	      "ibv_get_device_guid == ibv_query_device node_guid (both __be64): %016" PRIx64
	      " / %016" PRIx64, (uint64_t)guid, (uint64_t)dattr.node_guid);
	if (guid_arg) {
		if (parse_guid(guid_arg, &want)) {
			check(0, "GUID argument '%s' is xxxx:xxxx:xxxx:xxxx", guid_arg);
		} else {
			check(be64toh(guid) == want,
			      "ibv_get_device_guid is in network byte order: be64toh() gives %016"
			      PRIx64 ", xibctl says %s", (uint64_t)be64toh(guid), guid_arg);
		}
	}

	memset(&pattr, 0, sizeof(pattr));
	ret = ibv_query_port(ctx, 1, &pattr);
	check_ret(ret, 0, "ibv_query_port(1)");
	check(pattr.state == IBV_PORT_ACTIVE && pattr.link_layer == IBV_LINK_LAYER_ETHERNET,
	      "port 1: state %s, link layer %u (ACTIVE, Ethernet)",
	      ibv_port_state_str(pattr.state), pattr.link_layer);
	check(pattr.active_mtu >= IBV_MTU_256 && pattr.active_mtu <= pattr.max_mtu &&
	      pattr.max_mtu <= IBV_MTU_4096,
	      "port 1: active_mtu %d <= max_mtu %d, both IB MTUs", pattr.active_mtu,
	      pattr.max_mtu);
	check(pattr.gid_tbl_len >= 1 && pattr.pkey_tbl_len >= 1,
	      "port 1: gid_tbl_len %d, pkey_tbl_len %u", pattr.gid_tbl_len,
	      pattr.pkey_tbl_len);

	bad_port = dattr.phys_port_cnt + 1;
	/* rdma-core 44 itself crashes here: IBV_SEM_RDMA_CORE skips it. */
	if (!getenv("IBV_SEM_RDMA_CORE")) {
		ret = ibv_query_port(ctx, 0, &pattr);
		check_ret(ret, EINVAL, "ibv_query_port(port 0)");
	}
	ret = ibv_query_port(ctx, bad_port, &pattr);
	check_ret(ret, EINVAL, "ibv_query_port(port phys_port_cnt + 1)");
	ibv_query_port(ctx, 1, &pattr);

	/* GIDs: 0 on success, -1 on error (seed). */
	ret = ibv_query_gid(ctx, 1, 0, &gid);
	check(ret == 0 && gid.raw[0] == 0xfe && gid.raw[1] == 0x80,
	      "ibv_query_gid(1, 0): 0 and the link-local default GID (ret %d, %02x%02x::)",
	      ret, gid.raw[0], gid.raw[1]);
	check(ibv_query_gid(ctx, 1, pattr.gid_tbl_len, &gid) == -1,
	      "ibv_query_gid(index gid_tbl_len): -1");
	check(ibv_query_gid(ctx, 1, -1, &gid) == -1, "ibv_query_gid(index -1): -1");
	check(ibv_query_gid(ctx, 0, 0, &gid) == -1, "ibv_query_gid(port 0): -1");
	check(ibv_query_gid(ctx, bad_port, 0, &gid) == -1,
	      "ibv_query_gid(port phys_port_cnt + 1): -1");
	/* Unused entries inside the table: 0 and a zero GID (rdma-core). */
	zero = 0;
	for (i = 1; i < pattr.gid_tbl_len && i < 64; i++) {
		memset(&gid, 0xa5, sizeof(gid));
		if (ibv_query_gid(ctx, 1, i, &gid))
			zero = -1;
	}
	check(zero == 0, "ibv_query_gid: every index below gid_tbl_len returns 0");

	memset(&ge, 0, sizeof(ge));
	ret = ibv_query_gid_ex(ctx, 1, 0, &ge, 0);
	check(ret == 0 && ge.gid_index == 0 && ge.port_num == 1 &&
	      ge.gid_type == IBV_GID_TYPE_ROCE_V2,
	      "ibv_query_gid_ex(1, 0): 0, index 0, port 1, RoCEv2 (ret %d, type %u)", ret,
	      ge.gid_type);
	ret = ibv_query_gid_ex(ctx, 1, pattr.gid_tbl_len, &ge, 0);
	check(ret != 0, "ibv_query_gid_ex(index gid_tbl_len) fails (%d %s)", ret,
	      ret > 0 ? strerror(ret) : "");

	ret = ibv_query_pkey(ctx, 1, 0, &pkey);
	check(ret == 0 && pkey == htobe16(0xffff),
	      "ibv_query_pkey(1, 0): 0 and the default P_Key 0xffff (ret %d, 0x%04x)", ret,
	      be16toh(pkey));
	check(ibv_query_pkey(ctx, 1, pattr.pkey_tbl_len, &pkey) == -1,
	      "ibv_query_pkey(index pkey_tbl_len): -1");
	check(ibv_query_pkey(ctx, bad_port, 0, &pkey) == -1,
	      "ibv_query_pkey(port phys_port_cnt + 1): -1");
}

/* A nonblocking fd with nothing to read: the get_*_event verbs fail, EAGAIN. */
static void test_async_nonblock(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int flags, ret, i;

	check(ctx->async_fd >= 0, "context: async_fd %d", ctx->async_fd);
	flags = fcntl(ctx->async_fd, F_GETFL);
	check(flags >= 0 && fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) == 0,
	      "async_fd takes O_NONBLOCK (seed example)");
	for (i = 0; i < 16; i++) {	/* drain what device setup queued */
		errno = 0;
		ret = ibv_get_async_event(ctx, &ev);
		if (ret)
			break;
		printf("# queued async event: %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	check(ret == -1 && errno == EAGAIN,
	      "ibv_get_async_event on an empty nonblocking fd: -1, EAGAIN (ret %d, errno %d)",
	      ret, errno);
	fcntl(ctx->async_fd, F_SETFL, flags);
}

static void test_mr(struct ibv_pd *pd, void *buf, size_t len)
{
	volatile int access;	/* not constant: ibv_reg_mr -> ibv_reg_mr_iova2 */
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_REMOTE_WRITE);
	check_null_errno(mr, EINVAL, "ibv_reg_mr(REMOTE_WRITE without LOCAL_WRITE)");
	errno = 0;
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_REMOTE_ATOMIC);
	check_null_errno(mr, EINVAL, "ibv_reg_mr(REMOTE_ATOMIC without LOCAL_WRITE)");
	access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_RELAXED_ORDERING;
	errno = 0;
	mr = ibv_reg_mr(pd, buf, len, access);
	check_null_errno(mr, EINVAL, "ibv_reg_mr_iova2(REMOTE_WRITE|RELAXED_ORDERING)");
	access = IBV_ACCESS_LOCAL_WRITE | 0x40000000;
	errno = 0;
	mr = ibv_reg_mr(pd, buf, len, access);
	check_null_errno(mr, EINVAL, "ibv_reg_mr_iova2(unknown flag 0x40000000)");

	/* Optional-range bits are hints: ignored when not supported. */
	access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		 IBV_ACCESS_RELAXED_ORDERING;
	mr = ibv_reg_mr(pd, buf, len, access);
	check(mr != NULL, "ibv_reg_mr_iova2 with RELAXED_ORDERING (perftest's 0x100007) (errno %d)",
	      mr ? 0 : errno);
	if (mr) {
		check(mr->addr == buf && mr->length == len && mr->pd == pd &&
		      mr->context == pd->context,
		      "MR fields: addr, length, pd, context");
		check_ret(ibv_dereg_mr(mr), 0, "ibv_dereg_mr");
	}
	access = IBV_ACCESS_LOCAL_WRITE | (1 << 25);
	mr = ibv_reg_mr(pd, buf, len, access);
	check(mr != NULL, "ibv_reg_mr_iova2 with an unknown optional-range bit (1 << 25) (errno %d)",
	      mr ? 0 : errno);
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, buf, len, 0);
	check(mr != NULL, "ibv_reg_mr(access 0): local read only (errno %d)", mr ? 0 : errno);
	if (mr)
		ibv_dereg_mr(mr);
}

static void test_cq(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ecq;
	struct ibv_wc wc;
	void *ectx;
	int token;

	cq = ibv_create_cq(ctx, 7, &token, NULL, 0);
	check(cq != NULL, "ibv_create_cq(7) (errno %d)", cq ? 0 : errno);
	if (!cq)
		return;
	check(cq->cqe >= 7 && cq->cq_context == &token && cq->context == ctx,
	      "CQ: cqe %d >= 7, cq_context and context as given", cq->cqe);
	check(ibv_poll_cq(cq, 1, &wc) == 0, "ibv_poll_cq on an empty CQ: 0");
	check_ret(ibv_req_notify_cq(cq, 0), 0, "ibv_req_notify_cq");
	check_ret(ibv_destroy_cq(cq), 0, "ibv_destroy_cq");

	errno = 0;
	cq = ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0);
	check_null_errno(cq, EINVAL, "ibv_create_cq(max_cqe + 1)");
	errno = 0;
	cq = ibv_create_cq(ctx, -1, NULL, NULL, 0);
	check_null_errno(cq, EINVAL, "ibv_create_cq(cqe -1)");
	errno = 0;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, ctx->num_comp_vectors);
	check(ctx->num_comp_vectors >= 1, "context: num_comp_vectors %d >= 1",
	      ctx->num_comp_vectors);
	check_null_errno(cq, EINVAL, "ibv_create_cq(comp_vector num_comp_vectors)");
	errno = 0;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, -1);
	check_null_errno(cq, EINVAL, "ibv_create_cq(comp_vector -1)");

	ch = ibv_create_comp_channel(ctx);
	check(ch != NULL && ch->fd >= 0 && ch->context == ctx,
	      "ibv_create_comp_channel: a channel with an fd");
	if (!ch)
		return;
	cq = ibv_create_cq(ctx, 4, &token, ch, 0);
	check(cq != NULL && cq->channel == ch, "ibv_create_cq on the channel");
	if (cq) {
		int flags, ret;

		check_ret(ibv_destroy_comp_channel(ch), EBUSY,
			  "ibv_destroy_comp_channel while a CQ uses it");
		flags = fcntl(ch->fd, F_GETFL);
		fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK);
		check_ret(ibv_req_notify_cq(cq, 0), 0, "ibv_req_notify_cq (channel CQ)");
		errno = 0;
		ret = ibv_get_cq_event(ch, &ecq, &ectx);
		check(ret == -1 && errno == EAGAIN,
		      "ibv_get_cq_event, nonblocking, no event: -1, EAGAIN (ret %d, errno %d)",
		      ret, errno);
		fcntl(ch->fd, F_SETFL, flags);
		check_ret(ibv_destroy_cq(cq), 0, "ibv_destroy_cq (channel CQ)");
	}
	check_ret(ibv_destroy_comp_channel(ch), 0, "ibv_destroy_comp_channel once unused");
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_srq *srq,
			    enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &ia);
}

static void test_qp(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_mr *mr)
{
	struct ibv_qp_init_attr ia, qia;
	struct ibv_qp_attr qa;
	struct ibv_send_wr swr[2], *bad_swr;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 64, .lkey = mr->lkey };
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		check(0, "ibv_create_cq for the QP tests (errno %d)", errno);
		return;
	}

	/* Capacities beyond the device's: NULL, EINVAL. */
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = dattr.max_qp_wr + 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	errno = 0;
	qp = ibv_create_qp(pd, &ia);
	check_null_errno(qp, EINVAL, "ibv_create_qp(max_send_wr max_qp_wr + 1)");
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = dattr.max_qp_wr + 1;
	errno = 0;
	qp = ibv_create_qp(pd, &ia);
	check_null_errno(qp, EINVAL, "ibv_create_qp(max_recv_wr max_qp_wr + 1)");
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = dattr.max_sge + 1;
	errno = 0;
	qp = ibv_create_qp(pd, &ia);
	check_null_errno(qp, EINVAL, "ibv_create_qp(max_send_sge max_sge + 1)");
	ia.cap.max_send_sge = 1;
	ia.cap.max_inline_data = 1 << 20;
	errno = 0;
	qp = ibv_create_qp(pd, &ia);
	check_null_errno(qp, EINVAL, "ibv_create_qp(max_inline_data 1 MiB)");

	/* A good one: caps written back, >= the request; RESET. */
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 3;
	ia.cap.max_recv_wr = 5;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	check(qp != NULL, "ibv_create_qp(RC) (errno %d)", qp ? 0 : errno);
	if (!qp)
		goto out_cq;
	check(ia.cap.max_send_wr >= 3 && ia.cap.max_recv_wr >= 5 && ia.cap.max_send_sge >= 1 &&
	      ia.cap.max_recv_sge >= 1,
	      "ibv_create_qp writes the granted caps back: send_wr %u recv_wr %u",
	      ia.cap.max_send_wr, ia.cap.max_recv_wr);
	check(qp->qp_num > 1 && qp->state == IBV_QPS_RESET && qp->qp_type == IBV_QPT_RC &&
	      qp->pd == pd && qp->send_cq == cq && qp->recv_cq == cq && qp->context == ctx,
	      "QP fields: qp_num %u, state RESET, type, pd, CQs, context", qp->qp_num);
	memset(&qa, 0, sizeof(qa));
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qia);
	check(ret == 0 && qa.qp_state == IBV_QPS_RESET && qa.cap.max_send_wr >= 3 &&
	      qia.qp_type == IBV_QPT_RC,
	      "ibv_query_qp: RESET and the caps (ret %d)", ret);

	/* Posting sends to a RESET QP: the WR is refused, bad_wr names it. */
	memset(swr, 0, sizeof(swr));
	swr[0].wr_id = 1;
	swr[0].sg_list = &sge;
	swr[0].num_sge = 1;
	swr[0].opcode = IBV_WR_SEND;
	swr[0].next = &swr[1];
	swr[1] = swr[0];
	swr[1].wr_id = 2;
	swr[1].next = NULL;
	bad_swr = NULL;
	ret = ibv_post_send(qp, swr, &bad_swr);
	check(ret == EINVAL && bad_swr == &swr[0],
	      "ibv_post_send to a RESET QP: EINVAL, bad_wr = the first WR (ret %d)", ret);

	/* Invalid transitions change nothing. */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL, "ibv_modify_qp RESET -> RTS");
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL,
		  "ibv_modify_qp RESET -> INIT without PKEY_INDEX|PORT|ACCESS_FLAGS");
	qa.port_num = dattr.phys_port_cnt + 1;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS), EINVAL,
		  "ibv_modify_qp RESET -> INIT on port phys_port_cnt + 1");
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE, &qia);
	check(ret == 0 && qa.qp_state == IBV_QPS_RESET && qp->state == IBV_QPS_RESET,
	      "after the refused modifies the QP is still RESET");

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS), 0, "ibv_modify_qp RESET -> INIT");
	check(qp->state == IBV_QPS_INIT, "ibv_modify_qp updates qp->state (INIT)");
	/* no IBV_DEVICE_RESIZE_MAX_WR: IBV_QP_CAP cannot grow the queues */
	check(!(dattr.device_cap_flags & IBV_DEVICE_RESIZE_MAX_WR),
	      "IBV_DEVICE_RESIZE_MAX_WR not reported");
	memset(&qa, 0, sizeof(qa));
	qa.cap = ia.cap;
	qa.cap.max_send_wr++;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_CAP), EINVAL,
		  "ibv_modify_qp IBV_QP_CAP max_send_wr above the grant");
	qa.cap = ia.cap;
	qa.cap.max_recv_wr++;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_CAP), EINVAL,
		  "ibv_modify_qp IBV_QP_CAP max_recv_wr above the grant");
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qia);
	check(ret == 0 && qa.qp_state == IBV_QPS_INIT &&
	      qa.cap.max_send_wr == ia.cap.max_send_wr && qa.cap.max_recv_wr == ia.cap.max_recv_wr,
	      "after the refused resizes: INIT, send_wr %u recv_wr %u as granted",
	      qa.cap.max_send_wr, qa.cap.max_recv_wr);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 3;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	check_ret(ibv_post_recv(qp, &rwr, &bad_rwr), 0, "ibv_post_recv in INIT");
	swr[0].next = NULL;
	bad_swr = NULL;
	ret = ibv_post_send(qp, swr, &bad_swr);
	check(ret == EINVAL && bad_swr == &swr[0],
	      "ibv_post_send to an INIT QP: EINVAL, bad_wr set (ret %d)", ret);

	/* Objects in use cannot go. */
	check_ret(ibv_destroy_cq(cq), EBUSY, "ibv_destroy_cq while a QP uses it");
	check_ret(ibv_dealloc_pd(pd), EBUSY, "ibv_dealloc_pd while a QP uses it");

	/* Multicast: UD QPs only; not implemented yet on xib. */
	{
		union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 1 } };

		ret = ibv_attach_mcast(qp, &mgid, 0);
		check(ret != 0, "ibv_attach_mcast on an RC QP fails (%d %s)", ret,
		      ret > 0 ? strerror(ret) : "");
	}
	check_ret(ibv_destroy_qp(qp), 0, "ibv_destroy_qp");

	qp = rc_qp(pd, cq, NULL, IBV_QPT_UD);
	check(qp != NULL, "ibv_create_qp(UD) (errno %d)", qp ? 0 : errno);
	if (qp) {
		union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 1 } };

		ret = ibv_attach_mcast(qp, &mgid, 0);
		if (ret == 0) {
			check(1, "ibv_attach_mcast on a UD QP: 0 (multicast implemented)");
			check_ret(ibv_destroy_qp(qp), EBUSY,
				  "ibv_destroy_qp while attached to a group");
			check_ret(ibv_detach_mcast(qp, &mgid, 0), 0, "ibv_detach_mcast");
		} else {
			/* Flip to the branch above when multicast lands. */
			check(ret == EOPNOTSUPP || ret == ENOSYS,
			      "ibv_attach_mcast on a UD QP: not supported yet, EOPNOTSUPP/ENOSYS (got %d %s)",
			      ret, ret > 0 ? strerror(ret) : "");
		}
		check_ret(ibv_destroy_qp(qp), 0, "ibv_destroy_qp (UD)");
	}
out_cq:
	check_ret(ibv_destroy_cq(cq), 0, "ibv_destroy_cq once its QPs are gone");
}

/*
 * UC through libibverbs: the QP is created; modify follows the IBTA UC
 * rows (no max_dest_rd_atomic or min_rnr_timer at RTR, no timeout,
 * retry_cnt, rnr_retry or max_rd_atomic at RTS: EINVAL); in RTS (looped
 * back to itself) SENDs and RDMA WRITEs are posted, RDMA READ and the
 * atomics are EINVAL at post (the IBTA has no UC READ or atomic).
 */
static void test_uc(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 8, .lkey = mr->lkey };
	struct ibv_send_wr wr, *bad;
	struct ibv_port_attr pattr;
	struct ibv_qp_attr qa;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int gidx = -1, i, ret;

	if (ibv_query_port(ctx, 1, &pattr))
		return;
	for (i = 0; i < pattr.gid_tbl_len && gidx < 0; i++) {
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		if (!ibv_query_gid(ctx, 1, i, &gid) && !memcmp(gid.raw, v4, 12))
			gidx = i;
	}
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		check(0, "ibv_create_cq for the UC tests (errno %d)", errno);
		return;
	}
	qp = rc_qp(pd, cq, NULL, IBV_QPT_UC);
	check(qp != NULL && qp->qp_type == IBV_QPT_UC, "ibv_create_qp(UC) (errno %d)",
	      qp ? 0 : errno);
	if (!qp)
		goto out_cq;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS), 0, "UC: ibv_modify_qp RESET -> INIT");
	if (gidx < 0) {
		check(0, "UC: no IPv4-mapped GID on port 1 to loop back to");
		goto out_qp;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = IBV_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.rq_psn = 1;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.grh.dgid = gid;
	qa.ah_attr.grh.sgid_index = gidx;
	qa.ah_attr.grh.hop_limit = 1;
	qa.ah_attr.port_num = 1;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC),
		  EINVAL, "UC: RTR with MAX_DEST_RD_ATOMIC");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER),
		  EINVAL, "UC: RTR with MIN_RNR_TIMER");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN), 0,
		  "UC: ibv_modify_qp INIT -> RTR (the UC row)");
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 1;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT),
		  EINVAL, "UC: RTS with TIMEOUT");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT),
		  EINVAL, "UC: RTS with RETRY_CNT");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RNR_RETRY),
		  EINVAL, "UC: RTS with RNR_RETRY");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC),
		  EINVAL, "UC: RTS with MAX_QP_RD_ATOMIC");
	check_ret(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN), 0,
		  "UC: ibv_modify_qp RTR -> RTS (the UC row)");

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr;
	wr.wr.rdma.rkey = mr->rkey;
	wr.opcode = IBV_WR_RDMA_READ;
	check_ret(ibv_post_send(qp, &wr, &bad), EINVAL, "UC: ibv_post_send RDMA_READ");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)mr->addr;
	wr.wr.atomic.rkey = mr->rkey;
	check_ret(ibv_post_send(qp, &wr, &bad), EINVAL, "UC: ibv_post_send ATOMIC_FETCH_AND_ADD");
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	check_ret(ibv_post_send(qp, &wr, &bad), EINVAL, "UC: ibv_post_send ATOMIC_CMP_AND_SWP");
	/* a WRITE goes out (the MR has no REMOTE_WRITE: the responder drops it) */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr;
	wr.wr.rdma.rkey = mr->rkey;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr_id = 77;
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0, "UC: ibv_post_send RDMA_WRITE: 0 (got %d)", ret);
	if (!ret) {
		struct ibv_wc wc;
		int n = 0, tries;

		for (tries = 0; tries < 5000 && n == 0; tries++) {
			n = ibv_poll_cq(cq, 1, &wc);
			if (!n)
				usleep(1000);
		}
		check(n == 1 && wc.wr_id == 77 && wc.status == IBV_WC_SUCCESS &&
		      wc.opcode == IBV_WC_RDMA_WRITE,
		      "UC: the WRITE completes when sent, with success (n %d status %d)", n,
		      n == 1 ? (int)wc.status : -1);
	}
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE, &(struct ibv_qp_init_attr){ 0 });
	check(ret == 0 && qa.qp_state == IBV_QPS_RTS,
	      "UC: still RTS after a dropped WRITE (state %d)", qa.qp_state);
out_qp:
	check_ret(ibv_destroy_qp(qp), 0, "ibv_destroy_qp (UC)");
out_cq:
	check_ret(ibv_destroy_cq(cq), 0, "ibv_destroy_cq (UC)");
}

/* One completion of @cq within 5 s; 0 if none. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = 0, tries;

	for (tries = 0; tries < 5000 && n == 0; tries++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (!n)
			usleep(1000);
	}
	return n == 1;
}

/* An RC QP connected to itself over port 1's IPv4-mapped GID; NULL if not. */
static struct ibv_qp *self_rc_qp(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pattr;
	struct ibv_qp_attr qa;
	union ibv_gid gid;
	struct ibv_qp *qp;
	int gidx = -1, i;

	if (ibv_query_port(ctx, 1, &pattr))
		return NULL;
	for (i = 0; i < pattr.gid_tbl_len && gidx < 0; i++)
		if (!ibv_query_gid(ctx, 1, i, &gid) && !memcmp(gid.raw, v4, 12))
			gidx = i;
	qp = rc_qp(pd, cq, NULL, IBV_QPT_RC);
	if (!qp || gidx < 0)
		goto err;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		goto err;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = IBV_MTU_1024;
	qa.dest_qp_num = qp->qp_num;
	qa.rq_psn = 1;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.grh.dgid = gid;
	qa.ah_attr.grh.sgid_index = gidx;
	qa.ah_attr.grh.hop_limit = 1;
	qa.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		goto err;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 1;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		goto err;
	return qp;
err:
	if (qp)
		ibv_destroy_qp(qp);
	return NULL;
}

/*
 * Memory windows through the library: ibv_alloc_mw, ibv_bind_mw (type 1),
 * IBV_WR_BIND_MW (type 2), LOCAL_INV, SEND_WITH_INV, on an RC QP looped
 * back to itself; the window's memory has no remote right of its own.
 */
static void test_mw(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_mr *lmr)
{
	uint8_t *mem = aligned_alloc(4096, 8192);
	struct ibv_sge sge = { .addr = (uintptr_t)lmr->addr, .length = 64, .lkey = lmr->lkey };
	struct ibv_device_attr da;
	struct ibv_mw_bind mb;
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_mw *mw1 = NULL, *mw2 = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;
	uint32_t old;
	int ret;

	memset(&da, 0, sizeof(da));
	check(ibv_query_device(ctx, &da) == 0 && da.max_mw > 0 &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	      "ibv_query_device: max_mw %d, MEM_WINDOW and MEM_WINDOW_TYPE_2B", da.max_mw);
	if (!mem)
		return;
	memset(mem, 0x5a, 8192);
	mr = ibv_reg_mr(pd, mem, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	check(mr != NULL, "ibv_reg_mr(LOCAL_WRITE | MW_BIND) (errno %d)", mr ? 0 : errno);
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	check(mw1 && mw2 && mw1->type == IBV_MW_TYPE_1 && mw2->type == IBV_MW_TYPE_2 &&
	      mw1->pd == pd && mw1->context == ctx && mw1->rkey != mw2->rkey,
	      "ibv_alloc_mw of type 1 and 2 (errno %d)", errno);
	check_null_errno(ibv_alloc_mw(pd, (enum ibv_mw_type)3), EINVAL, "ibv_alloc_mw(type 3)");
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qp = cq ? self_rc_qp(ctx, pd, cq) : NULL;
	check(qp != NULL, "an RC QP looped back to itself");
	if (!mr || !mw1 || !mw2 || !qp)
		goto out;

	memset(&mb, 0, sizeof(mb));
	mb.wr_id = 5;
	mb.send_flags = IBV_SEND_SIGNALED;
	mb.bind_info.mr = mr;
	mb.bind_info.addr = (uintptr_t)mem + 4096;
	mb.bind_info.length = 4096;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	old = mw1->rkey;
	check_ret(ibv_bind_mw(qp, mw2, &mb), EINVAL, "ibv_bind_mw of a type 2 window");
	ret = ibv_bind_mw(qp, mw1, &mb);
	check(ret == 0 && mw1->rkey == ibv_inc_rkey(old),
	      "ibv_bind_mw (type 1): 0 and mw->rkey is ibv_inc_rkey() of the old (got %d)", ret);
	check(wait_wc(cq, &wc) && wc.wr_id == 5 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_BIND_MW, "the bind completes as IBV_WC_BIND_MW (status %d)",
	      wc.status);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 6;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)mem + 4096;
	wr.wr.rdma.rkey = mw1->rkey;
	memset(lmr->addr, 0, 64);
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0 && wait_wc(cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      ((uint8_t *)lmr->addr)[63] == 0x5a,
	      "RDMA READ through the type 1 window (status %d)", wc.status);
	check_ret(ibv_dereg_mr(mr), EBUSY, "ibv_dereg_mr with a bound window");

	/* type 2 by a WR, bound to this QP */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw1;
	wr.bind_mw.rkey = ibv_inc_rkey(mw1->rkey);
	wr.bind_mw.bind_info = mb.bind_info;
	check_ret(ibv_post_send(qp, &wr, &bad), EINVAL, "IBV_WR_BIND_MW of a type 1 window");
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0 && wait_wc(cq, &wc) && wc.wr_id == 7 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_BIND_MW, "IBV_WR_BIND_MW (type 2) (ret %d status %d)", ret,
	      wc.status);
	mw2->rkey = wr.bind_mw.rkey;	/* the caller keeps track */
	/* LOCAL_INV, then bound again, then SEND_WITH_INV to itself */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 8;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = mw2->rkey;
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0 && wait_wc(cq, &wc) && wc.wr_id == 8 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_LOCAL_INV, "IBV_WR_LOCAL_INV (status %d)", wc.status);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info = mb.bind_info;
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0 && wait_wc(cq, &wc) && wc.status == IBV_WC_SUCCESS,
	      "bound again after LOCAL_INV (status %d)", wc.status);
	mw2->rkey = wr.bind_mw.rkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 9;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	check_ret(ibv_post_recv(qp, &rwr, &rbad), 0, "ibv_post_recv");
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 10;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = mw2->rkey;
	ret = ibv_post_send(qp, &wr, &bad);
	check(ret == 0, "IBV_WR_SEND_WITH_INV: 0 (got %d)", ret);
	{
		struct ibv_wc w[2];
		int n = 0, tries, i, sent = 0, recvd = 0;

		for (tries = 0; tries < 5000 && n < 2; tries++) {
			n += ibv_poll_cq(cq, 2 - n, w + n);
			if (n < 2)
				usleep(1000);
		}
		for (i = 0; i < n; i++) {
			if (w[i].wr_id == 10 && w[i].status == IBV_WC_SUCCESS &&
			    w[i].opcode == IBV_WC_SEND)
				sent = 1;
			if (w[i].wr_id == 9 && w[i].status == IBV_WC_SUCCESS &&
			    w[i].opcode == IBV_WC_RECV && (w[i].wc_flags & IBV_WC_WITH_INV) &&
			    w[i].invalidated_rkey == mw2->rkey)
				recvd = 1;
		}
		check(sent && recvd, "SEND_WITH_INV: IBV_WC_SEND, and the receive has "
		      "IBV_WC_WITH_INV and invalidated_rkey (%d completions)", n);
	}
	check_ret(ibv_dealloc_mw(mw1), 0, "ibv_dealloc_mw of a bound window");
	mw1 = NULL;
	check_ret(ibv_dereg_mr(mr), 0, "ibv_dereg_mr once no window is bound");
	mr = NULL;
out:
	if (qp)
		check_ret(ibv_destroy_qp(qp), 0, "ibv_destroy_qp (MW)");
	if (cq)
		ibv_destroy_cq(cq);
	if (mw1)
		ibv_dealloc_mw(mw1);
	if (mw2)
		check_ret(ibv_dealloc_mw(mw2), 0, "ibv_dealloc_mw");
	if (mr)
		ibv_dereg_mr(mr);
	free(mem);
}

static void test_srq(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_srq_init_attr sa;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = dattr.max_srq_wr + 1;
	sa.attr.max_sge = 1;
	errno = 0;
	srq = ibv_create_srq(pd, &sa);
	check_null_errno(srq, EINVAL, "ibv_create_srq(max_wr max_srq_wr + 1)");

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 10;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(pd, &sa);
	check(srq != NULL, "ibv_create_srq (errno %d)", srq ? 0 : errno);
	if (!srq)
		return;
	check(sa.attr.max_wr >= 10 && sa.attr.max_sge >= 1 && srq->context == ctx &&
	      srq->pd == pd,
	      "ibv_create_srq writes the granted max_wr %u back", sa.attr.max_wr);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	qp = cq ? rc_qp(pd, cq, srq, IBV_QPT_RC) : NULL;
	check(qp != NULL && qp->srq == srq, "ibv_create_qp(RC) on the SRQ (errno %d)",
	      qp ? 0 : errno);
	if (qp) {
		check_ret(ibv_destroy_srq(srq), EBUSY, "ibv_destroy_srq while a QP uses it");
		ibv_destroy_qp(qp);
	}
	if (cq)
		ibv_destroy_cq(cq);
	check_ret(ibv_destroy_srq(srq), 0, "ibv_destroy_srq once unused");
}

static void test_ah(struct ibv_pd *pd)
{
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;

	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.is_global = 1;
	aa.grh.hop_limit = 1;
	aa.grh.sgid_index = 0;
	if (ibv_query_gid(pd->context, 1, 0, &aa.grh.dgid)) {
		check(0, "ibv_query_gid for the AH");
		return;
	}
	ah = ibv_create_ah(pd, &aa);
	check(ah != NULL && ah->pd == pd, "ibv_create_ah (GRH to our own GID 0) (errno %d)",
	      ah ? 0 : errno);
	if (ah)
		check_ret(ibv_destroy_ah(ah), 0, "ibv_destroy_ah");
}

static int test_device(const char *name, const char *guid_arg)
{
	struct ibv_device **l, **l2, *dev = NULL;
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char saved[sizeof(dev->name)];
	void *buf;
	int n = -7, i;

	l = ibv_get_device_list(&n);
	check(l != NULL, "ibv_get_device_list returns a list (errno %d)", l ? 0 : errno);
	if (!l)
		return -1;
	check(n >= 1 && l[n] == NULL && count_list(l) == n,
	      "the list is NULL-terminated after num_devices (%d) entries", n);
	for (i = 0; i < n; i++) {
		const char *nm = ibv_get_device_name(l[i]);

		printf("# device %d: %s\n", i, nm ? nm : "(null)");
		if (!dev && nm && (!name || !strcmp(nm, name)))
			dev = l[i];
	}
	check(dev != NULL, "device %s is in the list", name ? name : "(any)");
	if (!dev) {
		ibv_free_device_list(l);
		return -1;
	}
	check(ibv_get_device_name(dev) == dev->name || !strcmp(ibv_get_device_name(dev), dev->name),
	      "ibv_get_device_name is the device's name");
	check(dev->node_type == IBV_NODE_CA && dev->transport_type == IBV_TRANSPORT_IB,
	      "device: node type CA, transport IB (%d, %d)", dev->node_type,
	      dev->transport_type);

	/* A second list while the first is alive; num_devices may be NULL. */
	snprintf(saved, sizeof(saved), "%s", dev->name);
	l2 = ibv_get_device_list(NULL);
	check(l2 && count_list(l2) == n, "ibv_get_device_list(NULL): the same %d devices", n);
	if (l2)
		ibv_free_device_list(l2);
	check(!strcmp(ibv_get_device_name(dev), saved),
	      "freeing a second list leaves the first usable");

	ctx = ibv_open_device(dev);
	check(ctx != NULL && ctx->device == dev, "ibv_open_device (errno %d)", ctx ? 0 : errno);
	if (!ctx) {
		ibv_free_device_list(l);
		return -1;
	}

	/* The seed: after ibv_free_device_list only opened devices stay usable. */
	ibv_free_device_list(l);
	check(!strcmp(ibv_get_device_name(ctx->device), saved),
	      "after ibv_free_device_list the open context's device keeps its name");
	ctx2 = ibv_open_device(ctx->device);
	check(ctx2 != NULL, "the open context's device opens again after the list is freed (errno %d)",
	      ctx2 ? 0 : errno);
	if (ctx2)
		check(ibv_close_device(ctx2) == 0, "ibv_close_device: 0");

	test_queries(ctx, guid_arg);
	test_async_nonblock(ctx);

	pd = ibv_alloc_pd(ctx);
	check(pd != NULL && pd->context == ctx, "ibv_alloc_pd after the list is freed (errno %d)",
	      pd ? 0 : errno);
	if (!pd)
		goto out;
	buf = aligned_alloc(4096, 65536);
	if (!buf)
		goto out;
	memset(buf, 0, 65536);
	test_mr(pd, buf, 65536);
	mr = ibv_reg_mr(pd, buf, 65536, IBV_ACCESS_LOCAL_WRITE);
	check(mr != NULL, "ibv_reg_mr(LOCAL_WRITE) (errno %d)", mr ? 0 : errno);
	if (mr) {
		check_ret(ibv_dealloc_pd(pd), EBUSY, "ibv_dealloc_pd while an MR uses it");
		test_cq(ctx);
		test_qp(ctx, pd, mr);
		test_uc(ctx, pd, mr);
		test_mw(ctx, pd, mr);
		test_srq(ctx, pd);
		test_ah(pd);
		check_ret(ibv_dereg_mr(mr), 0, "ibv_dereg_mr");
	}
	check_ret(ibv_dealloc_pd(pd), 0, "ibv_dealloc_pd once unused");
	free(buf);
out:
	check(ibv_close_device(ctx) == 0, "ibv_close_device: 0");
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ibv_semantics -p | -n | [-d DEV] [-G xxxx:xxxx:xxxx:xxxx]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *name = NULL, *guid = NULL;
	int opt, pure = 0, none = 0;

	while ((opt = getopt(argc, argv, "pnd:G:")) != -1) {
		switch (opt) {
		case 'p':
			pure = 1;
			break;
		case 'n':
			none = 1;
			break;
		case 'd':
			name = optarg;
			break;
		case 'G':
			guid = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (pure && none))
		usage();

	test_rates();
	test_strings();
	if (none)
		test_no_device();
	else if (!pure)
		test_device(name, guid);

	printf("1..%d\n", checks);
	printf("# %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
