// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_spoof: forged RoCEv2 packets from an address that is not the peer's
 * must not touch a connected QP (Documentation/security.rst).
 *
 *   xib_spoof -d DEVA -D DEVB -n NETNS_B -x SPOOF_ADDR [-g GIDX_A -G GIDX_B]
 *
 * Run as root in the network namespace of DEVA (address A); DEVB's
 * interface (address B) is in NETNS_B (a path such as /run/netns/xibB),
 * reachable from A's.  A and B are the GIDs of index GIDX_A and GIDX_B
 * of port 1 (by default each device's IPv4-mapped GID); SPOOF_ADDR is a
 * third address of their family (IPv4, or IPv6 when the GIDs are not
 * IPv4-mapped) and subnet that nobody owns.  Packets are built whole
 * (IPv4 or IPv6, UDP 4791 with its checksum over IPv6, BTH, RETH or
 * AETH, payload, ICRC) and sent through raw sockets: to B from A's
 * namespace, to A from NETNS_B.
 *
 * With an RC QP qa on DEVA connected to qb on DEVB (both PSNs 0x123):
 *  1. RDMA WRITE ONLY packets with qb's QPN, the R_Key of qb's MR, its
 *     address and PSNs 0x123 to 0x132, from SPOOF_ADDR: memory stays zero;
 *  2. qa writes 8 messages to qb: every byte arrives;
 *  3. control: the same forged WRITE from A (the peer) with the next PSN
 *     is executed, so the packets of step 1 were well formed.
 * With qa2 on DEVA sending 4 SENDs to qb2 on DEVB, left in INIT so that
 * nothing is acknowledged:
 *  4. an ACK of all 4 from SPOOF_ADDR completes nothing;
 *  5. a NAK (remote access error) from SPOOF_ADDR completes nothing and
 *     qa2 stays in RTS;
 *  6. control: the same ACK from B completes the 4 WQEs (SUCCESS).
 * It prints the first QPN and R_Key of each device (a fresh device's
 * are random: the test compares them).
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_roce.h"
#include "xib_test.h"

#define PSN0		0x123u
#define BUF_SIZE	65536u
#define MSG		256u
#define NMSG		8u
#define NSEND		4u
#define UDP_SPORT	0xc0deu

#define OP_RC_WRITE_ONLY	0x0a
#define OP_RC_ACK		0x11
#define AETH_ACK_ANY		0x1f	/* ACK, credit count invalid */
#define AETH_NAK_REM_ACCESS	0x62

static int raw_a = -1;	/* sends from A's namespace (to B) */
static int raw_b = -1;	/* sends from B's namespace (to A) */

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* An address as a GID: IPv4 is IPv4-mapped (::ffff:a.b.c.d). */
struct addr {
	uint8_t gid[16];
};

static bool is_v4(const struct addr *a)
{
	return !memcmp(a->gid, v4_mapped, sizeof(v4_mapped));
}

/*
 * Send one RC packet from @src to @dst (both IPv4 or both IPv6) through
 * @sock: BTH with @opcode, @dqpn and @psn, then @ext (RETH or AETH) and
 * @plen bytes of @fill.
 */
static void inject(int sock, const struct addr *src, const struct addr *dst,
		   uint8_t opcode, uint32_t dqpn, uint32_t psn, const uint8_t *ext,
		   size_t extlen, uint8_t fill, size_t plen)
{
	uint8_t pkt[XR_FRAME_MAX];
	uint32_t s4, d4;
	size_t len;

	if (is_v4(src) != is_v4(dst))
		xt_fail("an IPv4 and an IPv6 address in one packet");
	if (is_v4(src)) {
		memcpy(&s4, src->gid + 12, 4);
		memcpy(&d4, dst->gid + 12, 4);
		len = xr_frame(pkt, s4, d4, UDP_SPORT, opcode, dqpn, psn, ext, extlen,
			       fill, plen);
	} else {
		len = xr_frame6(pkt, src->gid, dst->gid, UDP_SPORT, opcode, dqpn, psn,
				ext, extlen, fill, plen);
	}
	if (!len)
		xt_fail("packet too long");
	len = xr_seal(pkt, len);
	if (xr_send(sock, pkt, len))
		xt_fail("sendto: %s", strerror(errno));
}

static void forge_write(int sock, const struct addr *src, const struct addr *dst,
			uint32_t dqpn, uint32_t psn, uint64_t va, uint32_t rkey,
			uint8_t fill)
{
	uint8_t reth[16];

	xr_put32(reth, va >> 32);
	xr_put32(reth + 4, va);
	xr_put32(reth + 8, rkey);
	xr_put32(reth + 12, MSG);
	inject(sock, src, dst, OP_RC_WRITE_ONLY, dqpn, psn, reth, sizeof(reth), fill, MSG);
}

static void forge_ack(int sock, const struct addr *src, const struct addr *dst,
		      uint32_t dqpn, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	uint8_t aeth[4];

	aeth[0] = syndrome;
	xr_put24(aeth + 1, msn);
	inject(sock, src, dst, OP_RC_ACK, dqpn, psn, aeth, sizeof(aeth), 0, 0);
}

/* One raw socket of family @af here, one in the namespace at @ns_path. */
static void open_raw(const char *ns_path, int af)
{
	raw_a = xr_raw_socket_af(NULL, af);
	if (raw_a < 0)
		xt_fail("raw socket: %s (root needed)", strerror(errno));
	raw_b = xr_raw_socket_af(ns_path, af);
	if (raw_b < 0)
		xt_fail("raw socket in %s: %s", ns_path, strerror(errno));
}

/* SPOOF_ADDR as a GID; false if it is neither IPv4 nor IPv6. */
static bool parse_addr(const char *s, struct addr *a)
{
	memcpy(a->gid, v4_mapped, sizeof(v4_mapped));
	if (inet_pton(AF_INET, s, a->gid + 12) == 1)
		return true;
	return inet_pton(AF_INET6, s, a->gid) == 1;
}

static bool all(const uint8_t *p, size_t len, uint8_t v)
{
	while (len--)
		if (*p++ != v)
			return false;
	return true;
}

static void msleep(unsigned int ms)
{
	usleep(ms * 1000u);
}

static void modify(struct xib_qp *qp, struct xib_uverbs_qp_attr *a, uint32_t mask,
		   const char *what)
{
	xt_check(xib_modify_qp(qp, a, mask), what);
}

/* qp to INIT, then RTR and RTS towards @rqpn at @rs with a 1 s ACK timeout. */
static void connect_slow(struct xib_qp *qp, const struct xt_side *s, uint32_t rqpn,
			 const struct xt_side *rs)
{
	struct xib_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	modify(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
	       XIB_QP_ACCESS_FLAGS, "modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	a.path_mtu = s->mtu_enum < rs->mtu_enum ? s->mtu_enum : rs->mtu_enum;
	a.dest_qp_num = rqpn;
	a.rq_psn = PSN0;
	a.min_rnr_timer = 1;
	xt_fill_av(&a.ah_attr, s, rs);
	modify(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN |
	       XIB_QP_RQ_PSN | XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER,
	       "modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = PSN0;
	a.timeout = 18;			/* 1.07 s */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	modify(qp, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT |
	       XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC,
	       "modify_qp RTS");
}

static void *alloc_buf(void)
{
	void *p;

	if (posix_memalign(&p, 4096, BUF_SIZE))
		xt_fail("out of memory");
	memset(p, 0, BUF_SIZE);
	return p;
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_spoof -d DEVA -D DEVB -n NETNS_B -x SPOOF_ADDR"
		" [-g GIDX_A -G GIDX_B]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *deva = NULL, *devb = NULL, *ns_b = NULL, *spoof_s = NULL;
	struct xib_context *ca, *cb;
	struct xt_side sa, sb;
	struct xib_qp *qa, *qb, *qa2, *qb2;
	struct xib_mr *amr, *bmr;
	uint8_t *abuf, *bbuf;
	struct addr a_a, a_b, spoof;
	const struct addr *addr_a = &a_a, *addr_b = &a_b;
	struct xib_uverbs_qp_attr at;
	int opt, n, gidx_a = -1, gidx_b = -1;
	xib_wc wc[NMSG];
	uint32_t i;

	xt_prog = "xib_spoof";
	while ((opt = getopt(argc, argv, "d:D:n:x:g:G:v")) != -1) {
		switch (opt) {
		case 'd': deva = optarg; break;
		case 'D': devb = optarg; break;
		case 'n': ns_b = optarg; break;
		case 'x': spoof_s = optarg; break;
		case 'g': gidx_a = atoi(optarg); break;
		case 'G': gidx_b = atoi(optarg); break;
		case 'v': xt_verbose = 1; break;
		default: usage();
		}
	}
	if (!deva || !devb || !ns_b || !spoof_s || !parse_addr(spoof_s, &spoof) ||
	    (gidx_a < 0) != (gidx_b < 0))
		usage();

	xt_check(xib_open(deva, &ca), deva);
	xt_check(xib_open(devb, &cb), devb);
	xt_side_open(&sa, ca, gidx_a, 64);
	xt_side_open(&sb, cb, gidx_b, 64);
	memcpy(a_a.gid, sa.gid, 16);
	memcpy(a_b.gid, sb.gid, 16);
	if (is_v4(addr_a) != is_v4(addr_b) || is_v4(addr_a) != is_v4(&spoof))
		xt_fail("A, B and %s must all be IPv4 or all IPv6", spoof_s);
	open_raw(ns_b, is_v4(addr_a) ? AF_INET : AF_INET6);
	printf("over %s\n", is_v4(addr_a) ? "IPv4" : "IPv6");
	abuf = alloc_buf();
	bbuf = alloc_buf();
	xt_check(xib_reg_mr(sa.pd, abuf, BUF_SIZE, XIB_ACCESS_LOCAL_WRITE, &amr), "reg_mr A");
	xt_check(xib_reg_mr(sb.pd, bbuf, BUF_SIZE, XIB_ACCESS_LOCAL_WRITE |
			    XIB_ACCESS_REMOTE_WRITE, &bmr), "reg_mr B");
	qa = xt_create_qp(&sa, XIB_QPT_RC, 64, 1, 0, NULL);
	qb = xt_create_qp(&sb, XIB_QPT_RC, 64, 1, 0, NULL);
	printf("first qpn A 0x%06x B 0x%06x\n", qa->qpn, qb->qpn);
	printf("first rkey A 0x%08x B 0x%08x\n", amr->rkey, bmr->rkey);
	if (sa.mtu < MSG + 64)
		xt_fail("MTU %u too small", sa.mtu);
	xt_rc_connect(qa, &sa, qb->qpn, &sb, XIB_ACCESS_REMOTE_WRITE);
	xt_rc_connect(qb, &sb, qa->qpn, &sa, XIB_ACCESS_REMOTE_WRITE);

	/* 1. forged WRITEs from a third address, with every right number */
	for (i = 0; i < 16; i++)
		forge_write(raw_a, &spoof, addr_b, qb->qpn, PSN0 + i, (uintptr_t)bbuf,
			    bmr->rkey, 0xa5);
	msleep(300);
	if (!all(bbuf, BUF_SIZE, 0))
		xt_fail("a forged RDMA WRITE from %s changed memory", spoof_s);
	printf("ok - 16 forged RDMA WRITEs from %s: memory unchanged\n", spoof_s);

	/* 2. the real transfer */
	xt_pattern(abuf, NMSG * MSG, 7);
	for (i = 0; i < NMSG; i++) {
		struct xib_sge sge = { (uintptr_t)abuf + i * MSG, MSG, amr->lkey };
		struct xib_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = XIB_HCA_WR_RDMA_WRITE;
		wr.send_flags = XIB_HCA_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)bbuf + i * MSG;
		wr.wr.rdma.rkey = bmr->rkey;
		xt_check(xib_post_send(qa, &wr, &bad), "post_send");
	}
	xt_wait(sa.scq, wc, NMSG, "RDMA WRITE completions");
	for (i = 0; i < NMSG; i++)
		if (wc[i].status != XIB_HCA_WC_SUCCESS || wc[i].wr_id != i)
			xt_fail("WRITE %u: wr_id %llu status %s", i,
				(unsigned long long)wc[i].wr_id, xt_status_str(wc[i].status));
	if (memcmp(abuf, bbuf, NMSG * MSG) || !all(bbuf + NMSG * MSG, BUF_SIZE - NMSG * MSG, 0))
		xt_fail("the real transfer's data differ");
	printf("ok - the real transfer: %u RDMA WRITEs, data intact\n", NMSG);

	/* 3. control: from the peer's address the forged WRITE is executed */
	forge_write(raw_a, addr_a, addr_b, qb->qpn, PSN0 + NMSG,
		    (uintptr_t)bbuf + 4096, bmr->rkey, 0x5a);
	for (i = 0; i < 100 && !all(bbuf + 4096, MSG, 0x5a); i++)
		msleep(10);
	if (!all(bbuf + 4096, MSG, 0x5a))
		xt_fail("control: the injected WRITE from the peer's address was not executed");
	printf("ok - control: the same WRITE from the peer's address is executed\n");

	/* 4-6: qa2 sends to qb2, which stays in INIT and acknowledges nothing */
	qa2 = xt_create_qp(&sa, XIB_QPT_RC, 64, 1, 0, NULL);
	qb2 = xt_create_qp(&sb, XIB_QPT_RC, 64, 1, 0, NULL);
	memset(&at, 0, sizeof(at));
	at.qp_state = XIB_QPS_INIT;
	at.port_num = 1;
	modify(qb2, &at, XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
	       XIB_QP_ACCESS_FLAGS, "modify_qp INIT");
	connect_slow(qa2, &sa, qb2->qpn, &sb);
	for (i = 0; i < NSEND; i++) {
		struct xib_sge sge = { (uintptr_t)abuf, 64, amr->lkey };
		struct xib_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 100 + i;
		wr.opcode = XIB_HCA_WR_SEND;
		wr.send_flags = XIB_HCA_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		xt_check(xib_post_send(qa2, &wr, &bad), "post_send");
	}
	msleep(100);
	forge_ack(raw_b, &spoof, addr_a, qa2->qpn, PSN0 + NSEND - 1, AETH_ACK_ANY, NSEND);
	n = xt_poll(sa.scq, wc, NSEND, 300);
	if (n)
		xt_fail("a forged ACK from %s completed %d WQEs (status %s)", spoof_s, n,
			xt_status_str(wc[0].status));
	printf("ok - a forged ACK from %s completes nothing\n", spoof_s);

	forge_ack(raw_b, &spoof, addr_a, qa2->qpn, PSN0, AETH_NAK_REM_ACCESS, 0);
	n = xt_poll(sa.scq, wc, NSEND, 300);
	if (n)
		xt_fail("a forged NAK from %s completed %d WQEs (status %s)", spoof_s, n,
			xt_status_str(wc[0].status));
	if (xt_qp_state(qa2) != XIB_QPS_RTS)
		xt_fail("a forged NAK from %s moved the QP to state %u", spoof_s,
			xt_qp_state(qa2));
	printf("ok - a forged NAK from %s completes nothing, the QP stays in RTS\n", spoof_s);

	/* 6. control: the same ACK from the peer's address completes them */
	forge_ack(raw_b, addr_b, addr_a, qa2->qpn, PSN0 + NSEND - 1, AETH_ACK_ANY, NSEND);
	n = xt_poll(sa.scq, wc, NSEND, 1000);
	if (n != (int)NSEND)
		xt_fail("control: the ACK from the peer's address completed %d of %u WQEs",
			n, NSEND);
	for (i = 0; i < NSEND; i++)
		if (wc[i].status != XIB_HCA_WC_SUCCESS)
			xt_fail("control: WQE %u completed with %s", i, xt_status_str(wc[i].status));
	printf("ok - control: the same ACK from the peer's address completes the %u WQEs\n",
	       NSEND);

	xt_check(xib_destroy_qp(qa2), "destroy_qp");
	xt_check(xib_destroy_qp(qb2), "destroy_qp");
	xt_check(xib_destroy_qp(qa), "destroy_qp");
	xt_check(xib_destroy_qp(qb), "destroy_qp");
	xt_check(xib_dereg_mr(amr), "dereg_mr");
	xt_check(xib_dereg_mr(bmr), "dereg_mr");
	xt_side_close(&sa);
	xt_side_close(&sb);
	xt_check(xib_close(ca), "close");
	xt_check(xib_close(cb), "close");
	free(abuf);
	free(bbuf);
	printf("PASS\n");
	return 0;
}
