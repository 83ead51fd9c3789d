// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_mcast_test: UD multicast (XIB_UVERBS_ATTACH_MCAST/DETACH_MCAST).
 *
 *   xib_mcast_test -d DEV -D DEV2 [-n COUNT] [-L] [-P FILE]
 *
 * DEV (side A) has two UD QPs attached to one group; DEV2 (side B, best
 * in another namespace) sends to the group.  Checked:
 *  - query_device reports the multicast limits (nonzero);
 *  - every attached QP receives every message exactly once, with its
 *    data, immediate, src_qp and GRH, and nothing else arrives; an
 *    attach repeated changes nothing (still one copy);
 *  - loopback: a QP of DEV that sends to the group, itself attached,
 *    reaches both attached QPs of its own device (itself included);
 *  - a message with another Q_Key is delivered to no QP;
 *  - after one QP detaches, only the other receives; after both
 *    detached, nothing arrives;
 *  - bad input: an RC QP, a unicast GID, detaching what is not attached
 *    (and detaching twice), a nonzero reserved field, an unknown QP
 *    handle: EINVAL/ENOENT;
 *  - limits: max_mcast_qp_attach QPs in one group, then ENOMEM; an
 *    attached QP's destroy is EBUSY; the QPs detached make room again;
 *    with -L also max_mcast_grp groups of one QP, then ENOMEM.
 *
 * The device joins the IP group asynchronously (IGMP/MLD), so the first
 * phase sends probes until both QPs got one, and drains them.  With -P,
 * the program then prints "READY <group>" and waits (at most 60 s) until
 * FILE exists, for a script to look at the interface's memberships.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xib_test.h"

#define GRH	40
#define QKEY	0x0badcafeu
#define NRECV	64		/* receive WQEs per QP */
#define NQP	3		/* QPs on side A: two members, one loopback sender */

static struct xt_side a, b;
static struct xib_qp *qa[NQP], *qs;
static struct xib_ah *ah_b, *ah_a;
static uint8_t *abuf, *sbuf, *lbuf;
static struct xib_mr *amr, *smr, *lmr;
static uint32_t slot;			/* bytes per receive slot */
static uint8_t mgid[16];

static uint8_t *slot_of(int q, int i)
{
	return abuf + ((size_t)q * NRECV + i) * slot;
}

/* wr_id: the QP index << 16 | the slot */
static void post_recv(int q, int i)
{
	struct xib_sge sge = { (uintptr_t)slot_of(q, i), slot, amr->lkey };
	struct xib_recv_wr wr = { .wr_id = ((uint64_t)q << 16) | i, .sg_list = &sge,
				  .num_sge = 1 };
	struct xib_recv_wr *bad;

	xt_check(xib_post_recv(qa[q], &wr, &bad), "post_recv");
}

static uint32_t msg_len(uint32_t seq)
{
	static const uint32_t frac[4] = { 0, 1, 2, 4 };	/* of MTU/4 */
	uint32_t len = a.mtu / 4 * frac[seq % 4];

	return len ? len : 8;
}

/* Send message @seq from @qp (its send CQ @scq, buffer @buf) to the group. */
static void send_to_group(struct xib_qp *qp, struct xib_cq *scq, struct xib_ah *ah,
			  struct xib_mr *mr, uint8_t *buf, uint32_t seq, uint32_t qkey)
{
	uint32_t len = msg_len(seq);
	struct xib_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct xib_send_wr wr, *bad;
	xib_wc wc;

	xt_pattern(buf, len, seq);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seq;
	wr.opcode = XIB_HCA_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(seq);
	wr.send_flags = XIB_HCA_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = qkey;
	xt_check(xib_post_send(qp, &wr, &bad), "post_send");
	xt_wait(scq, &wc, 1, "multicast send");
	if (wc.status || wc.wr_id != seq)
		xt_fail("multicast send %u: status %s", seq, xt_status_str(wc.status));
}

static bool is_v4mapped(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

static int qp_index(uint32_t qpn)
{
	int q;

	for (q = 0; q < NQP; q++)
		if (qa[q] && qa[q]->qpn == qpn)
			return q;
	return -1;
}

/*
 * Receive what arrives within @ms: count per QP and message into
 * got[q][seq] (seq < @nseq), checking each; reposts the slots.  Returns
 * the number of completions.
 */
static int collect(int got[NQP][256], uint32_t nseq, uint32_t src_qpn, int ms)
{
	xib_wc wc;
	int n = 0;

	while (xt_poll(a.rcq, &wc, 1, ms) == 1) {
		int q = (int)(wc.wr_id >> 16), i = (int)(wc.wr_id & 0xffff);
		uint32_t seq = ntohl(wc.imm_data), len;
		uint8_t *exp;

		n++;
		if (wc.status)
			xt_fail("multicast receive: status %s", xt_status_str(wc.status));
		if (q >= NQP || i >= NRECV || qp_index(wc.qp_num) != q)
			xt_fail("multicast receive: wr_id 0x%llx on QP %u",
				(unsigned long long)wc.wr_id, wc.qp_num);
		if (seq >= nseq || seq >= 256)
			xt_fail("multicast receive: message %u, only %u were sent", seq, nseq);
		len = msg_len(seq);
		if (wc.byte_len != len + GRH || !(wc.wc_flags & XIB_HCA_WC_GRH) ||
		    !(wc.wc_flags & XIB_HCA_WC_WITH_IMM))
			xt_fail("multicast receive of message %u: byte_len %u (expected %u), "
				"wc_flags 0x%x", seq, wc.byte_len, len + GRH, wc.wc_flags);
		if (wc.src_qp != src_qpn)
			xt_fail("multicast receive: src_qp %u, expected %u", wc.src_qp, src_qpn);
		exp = malloc(len);
		if (!exp)
			xt_fail("out of memory");
		xt_pattern(exp, len, seq);
		if (memcmp(slot_of(q, i) + GRH, exp, len))
			xt_fail("multicast receive of message %u on QP %d: payload differs", seq, q);
		free(exp);
		got[q][seq]++;
		post_recv(q, i);
	}
	return n;
}

static void expect_counts(int got[NQP][256], uint32_t first, uint32_t nseq,
			  const int want[NQP], const char *what)
{
	uint32_t s;
	int q;

	for (q = 0; q < NQP; q++)
		for (s = first; s < nseq; s++)
			if (got[q][s] != want[q])
				xt_fail("%s: QP %d got message %u %d times, expected %d",
					what, q, s, got[q][s], want[q]);
}

static void expect_err(int ret, int want, const char *what)
{
	if (ret != -want)
		xt_fail("%s: returned %d (%s), expected -%s", what, ret,
			ret ? strerror(-ret) : "success", strerror(want));
}

static int raw_mcast(struct xib_qp *qp, unsigned long cmd, const uint8_t *gid,
		     uint32_t handle, uint16_t reserved)
{
	struct xib_uverbs_mcast m = { .qp_handle = handle, .reserved = reserved };

	memcpy(m.gid, gid, 16);
	return ioctl(qp->pd->ctx->fd, cmd, &m) ? -errno : 0;
}

static void bad_input(void)
{
	uint8_t ucast[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 };
	uint8_t v4bad[16] = { [10] = 0xff, [11] = 0xff, 240, 1, 2, 3 };
	uint8_t linklocal[16] = { 0xfe, 0x80, [15] = 1 };
	struct xib_qp *rc = xt_create_qp(&a, XIB_QPT_RC, 4, 1, 0, NULL);

	expect_err(xib_mcast(rc, mgid, 0, 1), EINVAL, "attach of an RC QP");
	expect_err(xib_mcast(rc, mgid, 0, 0), EINVAL, "detach of an RC QP");
	xt_check(xib_destroy_qp(rc), "destroy_qp");
	expect_err(xib_mcast(qa[0], ucast, 0, 1), EINVAL, "attach to ::ffff:10.1.2.3");
	expect_err(xib_mcast(qa[0], v4bad, 0, 1), EINVAL, "attach to ::ffff:240.1.2.3");
	expect_err(xib_mcast(qa[0], linklocal, 0, 1), EINVAL, "attach to fe80::1");
	expect_err(xib_mcast(qa[2], mgid, 0, 0), EINVAL, "detach of a QP not attached");
	expect_err(raw_mcast(qa[0], XIB_UVERBS_ATTACH_MCAST, mgid, qa[0]->handle, 1),
		   EINVAL, "attach with a nonzero reserved field");
	expect_err(raw_mcast(qa[0], XIB_UVERBS_ATTACH_MCAST, mgid, 0xfffffff0u, 0),
		   ENOENT, "attach of an unknown QP handle");
	xt_info("bad input refused: RC QP, unicast and reserved GIDs, not attached, "
		"reserved field, unknown handle");
}

/*
 * max_mcast_qp_attach QPs in one group, one more is ENOMEM; an attached QP
 * cannot be destroyed (EBUSY, the seed's ibv_destroy_qp); detached, it
 * can, and the room is there again.
 */
static void qp_limit(const struct xib_uverbs_device_attr *at)
{
	uint32_t n = at->max_mcast_qp_attach, i, round;
	uint8_t g[16];
	struct xib_qp **qps = calloc(n + 1, sizeof(*qps));

	if (!qps)
		xt_fail("out of memory");
	memcpy(g, mgid, 16);
	g[15] ^= 0x5a;			/* another group of the same family */
	for (round = 0; round < 2; round++) {
		for (i = 0; i <= n; i++)
			qps[i] = xt_create_qp(&a, XIB_QPT_UD, 1, 1, 0, NULL);
		for (i = 0; i < n; i++)
			xt_check(xib_mcast(qps[i], g, 0, 1), "attach up to max_mcast_qp_attach");
		expect_err(xib_mcast(qps[n], g, 0, 1), ENOMEM,
			   "attach beyond max_mcast_qp_attach");
		for (i = 0; i < n; i++) {
			expect_err(xib_destroy_qp(qps[i]), EBUSY,
				   "destroy_qp of a QP attached to a group");
			xt_check(xib_mcast(qps[i], g, 0, 0), "detach");
		}
		/* round 1 proves the detaches made room */
		for (i = 0; i <= n; i++)
			xt_check(xib_destroy_qp(qps[i]), "destroy_qp");
	}
	free(qps);
	xt_info("%u QPs per group, the next ENOMEM; attached QPs cannot be destroyed", n);
}

/* max_mcast_grp groups for one QP, one more is ENOMEM; detaching frees. */
static void grp_limit(const struct xib_uverbs_device_attr *at)
{
	struct xib_qp *qp = xt_create_qp(&a, XIB_QPT_UD, 1, 1, 0, NULL);
	uint32_t i;
	uint8_t g[16];

	memcpy(g, mgid, 16);
	for (i = 0; i <= at->max_mcast_grp; i++) {
		g[13] = 0x80 | (uint8_t)(i >> 8);	/* away from the test's group */
		g[14] = (uint8_t)i;
		if (i < at->max_mcast_grp)
			xt_check(xib_mcast(qp, g, 0, 1), "attach up to max_mcast_grp");
		else
			expect_err(xib_mcast(qp, g, 0, 1), ENOMEM, "attach beyond max_mcast_grp");
	}
	expect_err(xib_destroy_qp(qp), EBUSY, "destroy_qp of a QP in groups");
	for (i = 0; i < at->max_mcast_grp; i++) {
		g[13] = 0x80 | (uint8_t)(i >> 8);
		g[14] = (uint8_t)i;
		xt_check(xib_mcast(qp, g, 0, 0), "detach");
	}
	xt_check(xib_destroy_qp(qp), "destroy_qp");
	qp = xt_create_qp(&a, XIB_QPT_UD, 1, 1, 0, NULL);
	xt_check(xib_mcast(qp, g, 0, 1), "attach after the detaches");
	xt_check(xib_mcast(qp, g, 0, 0), "detach");
	xt_check(xib_destroy_qp(qp), "destroy_qp");
	xt_info("%u groups, the next ENOMEM; detaching them made room",
		at->max_mcast_grp);
}

int main(int argc, char **argv)
{
	const char *dev_a = "/dev/xib/uverbs0", *dev_b = NULL;
	static int got[NQP][256];
	struct xib_uverbs_device_attr at;
	struct xib_uverbs_ah_attr av;
	struct xib_context *ca, *cb;
	int c, count = 16, big = 0, q, i, tries;
	const char *pause_file = NULL;
	int want[NQP];
	uint32_t seq = 0, first;

	xt_prog = "xib_mcast_test";
	while ((c = getopt(argc, argv, "d:D:n:LP:")) != -1) {
		switch (c) {
		case 'd': dev_a = optarg; break;
		case 'D': dev_b = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 'L': big = 1; break;
		case 'P': pause_file = optarg; break;
		default:
			fprintf(stderr, "usage: xib_mcast_test -d DEV -D DEV2 [-n COUNT] [-L] "
				"[-P FILE]\n");
			return 2;
		}
	}
	if (!dev_b || count < 1 || count > 64)
		xt_fail("need -d DEV -D DEV2, and 1 <= COUNT <= 64");
	xt_check(xib_open(dev_a, &ca), dev_a);
	xt_check(xib_open(dev_b, &cb), dev_b);
	xt_check(xib_query_device(ca, &at), "query_device");
	if (!at.max_mcast_grp || !at.max_mcast_qp_attach ||
	    at.max_total_mcast_qp_attach < at.max_mcast_qp_attach)
		xt_fail("query_device: max_mcast_grp %u max_mcast_qp_attach %u "
			"max_total_mcast_qp_attach %u", at.max_mcast_grp,
			at.max_mcast_qp_attach, at.max_total_mcast_qp_attach);
	xt_side_open(&a, ca, -1, 4 * NRECV);
	xt_side_open(&b, cb, -1, 64);
	if (is_v4mapped(a.gid) != is_v4mapped(b.gid))
		xt_fail("the two devices' GIDs are of different families");

	/* 239.192.x.y (administratively scoped), or ff0e::x:y over IPv6 */
	memset(mgid, 0, sizeof(mgid));
	if (is_v4mapped(a.gid)) {
		mgid[10] = mgid[11] = 0xff;
		mgid[12] = 239;
		mgid[13] = 192;
	} else {
		mgid[0] = 0xff;
		mgid[1] = 0x0e;
	}
	mgid[14] = (uint8_t)(getpid() >> 8);
	mgid[15] = (uint8_t)getpid();

	for (q = 0; q < NQP; q++) {
		qa[q] = xt_create_qp(&a, XIB_QPT_UD, NRECV, 1, 0, NULL);
		xt_ud_ready(qa[q], QKEY);
	}
	qs = xt_create_qp(&b, XIB_QPT_UD, 16, 1, 0, NULL);
	xt_ud_ready(qs, QKEY);
	slot = a.mtu + GRH;
	abuf = mmap(NULL, (size_t)NQP * NRECV * slot, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sbuf = mmap(NULL, slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	lbuf = mmap(NULL, slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (abuf == MAP_FAILED || sbuf == MAP_FAILED || lbuf == MAP_FAILED)
		xt_fail("out of memory");
	xt_check(xib_reg_mr(a.pd, abuf, (size_t)NQP * NRECV * slot, XIB_ACCESS_LOCAL_WRITE,
			    &amr), "reg_mr");
	xt_check(xib_reg_mr(b.pd, sbuf, slot, XIB_ACCESS_LOCAL_WRITE, &smr), "reg_mr");
	xt_check(xib_reg_mr(a.pd, lbuf, slot, XIB_ACCESS_LOCAL_WRITE, &lmr), "reg_mr");
	for (q = 0; q < NQP; q++)
		for (i = 0; i < NRECV; i++)
			post_recv(q, i);

	xt_fill_av(&av, &b, &a);
	memcpy(av.dgid, mgid, 16);
	xt_check(xib_create_ah(b.pd, &av, &ah_b), "create_ah (B to the group)");
	xt_fill_av(&av, &a, &a);
	memcpy(av.dgid, mgid, 16);
	xt_check(xib_create_ah(a.pd, &av, &ah_a), "create_ah (A to the group)");

	xt_check(xib_mcast(qa[0], mgid, 0, 1), "attach QP 0");
	xt_check(xib_mcast(qa[1], mgid, 0, 1), "attach QP 1");
	xt_check(xib_mcast(qa[1], mgid, 0, 1), "attach QP 1 again");
	xt_info("QPs %u and %u attached; QP %u (other device) sends", qa[0]->qpn,
		qa[1]->qpn, qs->qpn);

	/* probes until the join took effect and both received one */
	for (tries = 0; tries < 100; tries++) {
		send_to_group(qs, b.scq, ah_b, smr, sbuf, seq++, QKEY);
		collect(got, seq, qs->qpn, 50);
		if (got[0][seq - 1] && got[1][seq - 1])
			break;
	}
	if (tries == 100)
		xt_fail("no multicast delivery to both QPs after 100 probes");
	collect(got, seq, qs->qpn, 300);
	memset(got, 0, sizeof(got));
	xt_info("group joined after %d probes", tries + 1);
	if (pause_file) {
		char name[INET6_ADDRSTRLEN];

		if (is_v4mapped(mgid))
			inet_ntop(AF_INET, mgid + 12, name, sizeof(name));
		else
			inet_ntop(AF_INET6, mgid, name, sizeof(name));
		printf("READY %s\n", name);
		fflush(stdout);
		for (i = 0; i < 600 && access(pause_file, F_OK); i++)
			usleep(100000);
	}

	/* every attached QP gets every message once; QP 2 none */
	first = seq;
	for (i = 0; i < count; i++)
		send_to_group(qs, b.scq, ah_b, smr, sbuf, seq++, QKEY);
	collect(got, seq, qs->qpn, 500);
	want[0] = want[1] = 1;
	want[2] = 0;
	expect_counts(got, first, seq, want, "from the other device");
	xt_info("%d messages, each received once by both attached QPs", count);

	/* another Q_Key: nobody */
	send_to_group(qs, b.scq, ah_b, smr, sbuf, seq++, QKEY ^ 1);
	if (collect(got, seq, qs->qpn, 300))
		xt_fail("a message with another Q_Key was delivered");

	/* loopback: QP 0 sends; QPs 0 and 1 get it, QP 2 (not attached) not */
	first = seq;
	for (i = 0; i < 4; i++)
		send_to_group(qa[0], a.scq, ah_a, lmr, lbuf, seq++, QKEY);
	collect(got, seq, qa[0]->qpn, 500);
	expect_counts(got, first, seq, want, "loopback to the sender's device");
	xt_info("loopback: the sender's own device's attached QPs got one copy each");

	bad_input();

	/* detach QP 1: only QP 0 receives */
	xt_check(xib_mcast(qa[1], mgid, 0, 0), "detach QP 1");
	expect_err(xib_mcast(qa[1], mgid, 0, 0), EINVAL, "second detach of QP 1");
	first = seq;
	for (i = 0; i < count; i++)
		send_to_group(qs, b.scq, ah_b, smr, sbuf, seq++, QKEY);
	collect(got, seq, qs->qpn, 500);
	want[1] = 0;
	expect_counts(got, first, seq, want, "after QP 1 detached");

	/* detach QP 0: nobody */
	xt_check(xib_mcast(qa[0], mgid, 0, 0), "detach QP 0");
	first = seq;
	for (i = 0; i < 4; i++)
		send_to_group(qs, b.scq, ah_b, smr, sbuf, seq++, QKEY);
	if (collect(got, seq, qs->qpn, 500))
		xt_fail("a message was delivered after every QP detached");
	xt_info("detach stops delivery");

	qp_limit(&at);
	if (big)
		grp_limit(&at);

	xt_check(xib_destroy_ah(ah_a), "destroy_ah");
	xt_check(xib_destroy_ah(ah_b), "destroy_ah");
	for (q = 0; q < NQP; q++)
		xt_check(xib_destroy_qp(qa[q]), "destroy_qp");
	xt_check(xib_destroy_qp(qs), "destroy_qp");
	xt_check(xib_dereg_mr(amr), "dereg_mr");
	xt_check(xib_dereg_mr(smr), "dereg_mr");
	xt_check(xib_dereg_mr(lmr), "dereg_mr");
	xt_side_close(&a);
	xt_side_close(&b);
	xib_close(ca);
	xib_close(cb);
	xt_info("PASS");
	return 0;
}
