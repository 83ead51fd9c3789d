// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_pkt_fuzz: crafted and mutated RoCEv2 packets injected from a third
 * network namespace while a validated transfer runs between two xib
 * devices (Documentation/security.rst, "Fuzzers").
 *
 *   xib_pkt_fuzz -d DEVA -D DEVB -c NETNS_C -x SPOOF_ADDR [-s SEED] [-n PACKETS]
 *
 * Run as root in the namespace of DEVA (address A); DEVB (address B) is
 * reachable from it.  NETNS_C (a path such as /run/netns/xibC) routes A
 * and B through the other peer's namespace, so that its packets arrive
 * on the devices' own interfaces; SPOOF_ADDR is an address nobody owns.
 * An RC QP on DEVA writes and sends to one on DEVB, round after round,
 * each round's data checked, while a second thread sends PACKETS frames
 * from NETNS_C to A and B, every one of which the devices must drop:
 *
 *   icrc      well formed, ICRC wrong (rx_icrc_errors, exactly)
 *   short     UDP payload shorter than BTH + ICRC (rx_malformed)
 *   opcode    every BTH opcode in turn, each with the extension headers
 *             of the IBTA table, for the live QP, from SPOOF_ADDR
 *   randqp    a random opcode to a QP number that does not exist, from
 *             any address (the peer's included)
 *   mutate    a packet for the live QP from SPOOF_ADDR with random bytes
 *             of BTH, headers and payload changed, ICRC recomputed
 *   length    headers cut short, payload lengths and pad counts wrong
 *   pkey      another partition's P_Key
 *   deep      for victim QPs (an RC pair and a UD QP on each device,
 *             not the checked transfer's): RC requests and responses from
 *             the victim's peer, PSNs near the expected ones, RETHs and
 *             AtomicETHs naming the victims' MR or nearly, UD datagrams
 *             with the right Q_Key or not; they pass the address checks
 *             and reach the opcode handlers, which may execute, answer or
 *             drop them (not counted as must-drop)
 *   udplen    UDP length not the IP payload's: the UDP layer drops a
 *             longer one and cuts a shorter one, which the device then
 *             drops (malformed, or a bad ICRC: the bytes it reads as
 *             ICRC are not); only the latter count as must-drop
 *
 * The random numbers come from SEED (default 1): the same seed sends the
 * same packets.  It prints per destination the packets it sent that the
 * device must drop, and the bad-ICRC ones among them (the icrc and the
 * cut udplen ones):
 *   "to A: must-drop N icrc M"  and  "to B: must-drop N icrc M"
 * which the caller compares with the devices' drop counters
 * (xibctl statistic show).  Exit status 0 when every round's data
 * arrived intact, both QPs are still in RTS and a last round after the
 * injection works; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_roce.h"
#include "xib_test.h"

#define BUF_SIZE	65536u
#define MSG		512u
#define NMSG		8u
#define UDP_SPORT	0xc0feu

enum cat { C_ICRC, C_SHORT, C_OPCODE, C_RANDQP, C_MUTATE, C_LENGTH, C_PKEY, C_UDPLEN,
	   C_DEEP, C_NR };
static const char *const cat_name[C_NR] = {
	"icrc", "short", "opcode", "randqp", "mutate", "length", "pkey", "udplen", "deep",
};

#define VQKEY	0x11223344u	/* the victim UD QPs' Q_Key */

struct dest {
	uint32_t addr;		/* the device's address */
	uint32_t peer;		/* its QP's peer's address */
	uint32_t qpn;		/* its live QP */
	uint32_t other_qpn;	/* the other device's live QP */
	uint32_t vrc, vud;	/* its victim RC and UD QPs */
	uint64_t vaddr;		/* the victims' MR: address, length, R_Key */
	uint32_t vlen, vrkey;
	uint64_t must_drop, icrc;
};

static struct dest dst[2];
static uint32_t spoof_addr;
static int raw_c = -1;
static uint64_t n_packets = 20000, seed = 1;
static uint64_t sent[C_NR], send_errors;
static atomic_int inject_done;

/* xorshift64*: reproducible from the seed, one stream per thread */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rnd_next(s) >> 32) % n;
}

/*
 * The bytes of extension headers after the BTH of each opcode (IBTA vol
 * 1 table 38 and 9.2); -1: not defined (random headers, 0 to 40 bytes).
 */
static int ext_len(uint8_t op)
{
	uint8_t t = op >> 5, f = op & 0x1f;

	switch (t) {
	case 0:	/* RC */
	case 1:	/* UC */
		switch (f) {
		case 0x00: case 0x01: case 0x02: case 0x04: return 0;	/* SEND */
		case 0x03: case 0x05: return 4;				/* + ImmDt */
		case 0x06: case 0x0a: return 16;			/* RETH */
		case 0x0b: return 20;					/* RETH ImmDt */
		case 0x07: case 0x08: return 0;
		case 0x09: return 4;
		case 0x0c: return t ? -1 : 16;				/* READ req */
		case 0x0d: case 0x0f: case 0x10: return t ? -1 : 4;	/* READ resp */
		case 0x0e: return t ? -1 : 0;
		case 0x11: return t ? -1 : 4;				/* ACK */
		case 0x12: return t ? -1 : 12;				/* ATOMIC ACK */
		case 0x13: case 0x14: return t ? -1 : 28;		/* AtomicETH */
		case 0x16: case 0x17: return t ? -1 : 4;		/* + IETH */
		default: return -1;
		}
	case 2:	/* RD: RDETH, DETH, ... */
		return f <= 0x14 ? 4 + 8 + (f == 0x06 || f == 0x0a || f == 0x0c ? 16 : 0) : -1;
	case 3:	/* UD */
		if (f == 0x04)
			return 8;
		if (f == 0x05)
			return 12;
		return -1;
	case 4:	/* CNP */
		return f == 0x00 ? 16 : -1;
	case 5:	/* XRC: XRCETH */
		return f <= 0x17 ? 4 + (f == 0x06 || f == 0x0a || f == 0x0c ? 16 : 0) +
			(f == 0x13 || f == 0x14 ? 28 : 0) : -1;
	default:
		return -1;
	}
}

/* A QP number that is neither device's live QP, nor QP1 (GSI). */
static uint32_t dead_qpn(uint64_t *s)
{
	uint32_t q;

	do {
		q = rnd_next(s) & 0xffffff;
		if (!rnd_below(s, 8))
			q = rnd_below(s, 64);	/* small numbers: QP0, early QPNs */
	} while (q == 1 || q == dst[0].qpn || q == dst[1].qpn || q == dst[0].vrc ||
		 q == dst[1].vrc || q == dst[0].vud || q == dst[1].vud);
	return q;
}

/* A source address that is not @d's QP's peer. */
static uint32_t other_src(uint64_t *s, const struct dest *d)
{
	uint32_t a;

	if (rnd_below(s, 2))
		return spoof_addr;
	do {
		a = htonl(0x0a000000u | (rnd_below(s, 0xffffff) + 1));
	} while (a == d->peer);
	return a;
}

/* A packet of @op for @qpn, random headers and payload, ICRC not yet added. */
static size_t build(uint8_t *pkt, uint64_t *s, const struct dest *d, uint32_t src,
		    uint8_t op, uint32_t qpn)
{
	uint8_t ext[48];
	int el = ext_len(op);
	size_t plen, i, len;

	if (el < 0)
		el = rnd_below(s, 41);
	for (i = 0; i < sizeof(ext); i++)
		ext[i] = rnd_next(s);
	plen = rnd_below(s, 4) ? rnd_below(s, 64) : rnd_below(s, 1400);
	len = xr_frame(pkt, src, d->addr, UDP_SPORT, op, qpn, rnd_next(s) & 0xffffff,
		       ext, el, 0, plen);
	for (i = XR_BTH_OFF + XR_BTH_LEN + el; i < len; i++)
		pkt[i] = rnd_next(s);
	if (rnd_below(s, 2))
		pkt[XR_BTH_OFF + 1] |= 0x80;	/* SE */
	if (rnd_below(s, 4))
		pkt[XR_BTH_OFF + 1] |= 0x40;	/* MigReq */
	return len;
}

/*
 * A packet that passes the address checks, for the victim QPs (not the
 * checked transfer's): RC requests and responses from the victim's peer
 * with PSNs near the expected ones and RETHs and AtomicETHs that name
 * the victims' MR (or almost), and UD datagrams with the right Q_Key or
 * not.  The device may execute, answer or drop it: it must only survive.
 */
static size_t deep(uint8_t *pkt, uint64_t *s, struct dest *d)
{
	uint8_t ext[48];
	int ud = !rnd_below(s, 3), el;
	uint8_t op;
	size_t len, plen, i;
	uint64_t va;

	if (ud)
		op = rnd_below(s, 8) ? 0x64 + rnd_below(s, 2) : rnd_next(s);
	else
		op = rnd_below(s, 8) ? rnd_below(s, 0x18) : rnd_next(s);
	el = ext_len(op);
	if (el < 0)
		el = rnd_below(s, 41);
	for (i = 0; i < sizeof(ext); i++)
		ext[i] = rnd_next(s);
	va = d->vaddr + (rnd_below(s, 4) ? rnd_below(s, d->vlen) : rnd_next(s) % (d->vlen * 2));
	if ((op & 0xe0) == 0 && (el == 16 || el == 20)) {		/* RETH */
		xr_put32(ext, va >> 32);
		xr_put32(ext + 4, va);
		xr_put32(ext + 8, rnd_below(s, 8) ? d->vrkey : (uint32_t)rnd_next(s));
		xr_put32(ext + 12, rnd_below(s, 2) ? rnd_below(s, 4096) :
			 (uint32_t)rnd_next(s) >> rnd_below(s, 32));
	} else if ((op & 0xe0) == 0 && el == 28) {			/* AtomicETH */
		if (rnd_below(s, 4))
			va &= ~7ull;
		xr_put32(ext, va >> 32);
		xr_put32(ext + 4, va);
		xr_put32(ext + 8, rnd_below(s, 8) ? d->vrkey : (uint32_t)rnd_next(s));
	} else if (ud && el >= 8) {					/* DETH */
		xr_put32(ext, rnd_below(s, 2) ? VQKEY : (uint32_t)rnd_next(s));
		xr_put24(ext + 5, rnd_next(s));
	}
	plen = rnd_below(s, 2) ? rnd_below(s, 64) : rnd_below(s, 1100);
	len = xr_frame(pkt, ud ? other_src(s, d) : d->peer, d->addr, UDP_SPORT, op,
		       ud ? d->vud : d->vrc, rnd_below(s, 2) ? 0x123 + rnd_below(s, 256) :
		       rnd_next(s) & 0xffffff, ext, el, 0, plen);
	for (i = XR_BTH_OFF + XR_BTH_LEN + el; i < len; i++)
		pkt[i] = rnd_next(s);
	if (rnd_below(s, 8))
		pkt[XR_BTH_OFF + 1] &= 0x30;	/* keep the pad count only */
	if (!rnd_below(s, 4))
		pkt[XR_BTH_OFF + 8] = 0;	/* no AckReq */
	return xr_seal(pkt, len);
}

/* One packet of category @c to @d; returns its length, 0 for none. */
static size_t make(uint8_t *pkt, uint64_t *s, enum cat c, struct dest *d, uint32_t *sweep,
		   size_t *udp_len)
{
	size_t len, i, n;
	uint32_t q;

	switch (c) {
	case C_ICRC:
		len = build(pkt, s, d, other_src(s, d), rnd_next(s), rnd_below(s, 2) ?
			    d->qpn : dead_qpn(s));
		len = xr_seal(pkt, len);
		pkt[len - 1 - rnd_below(s, 4)] ^= 1u << rnd_below(s, 8);
		return len;
	case C_SHORT:
		n = rnd_below(s, XR_BTH_LEN + XR_ICRC_LEN);
		if (!xr_frame(pkt, other_src(s, d), d->addr, UDP_SPORT, rnd_next(s),
			      d->qpn, 0, NULL, 0, 0, 0))
			return 0;
		for (i = XR_BTH_OFF; i < XR_BTH_OFF + n; i++)
			if (rnd_below(s, 2))
				pkt[i] = rnd_next(s);
		xr_set_len(pkt, XR_BTH_OFF + n);
		return XR_BTH_OFF + n;
	case C_OPCODE:
		len = build(pkt, s, d, spoof_addr, (*sweep)++ & 0xff, d->qpn);
		return xr_seal(pkt, len);
	case C_RANDQP:
		q = dead_qpn(s);
		len = build(pkt, s, d, rnd_below(s, 2) ? d->peer : other_src(s, d),
			    rnd_next(s), q);
		return xr_seal(pkt, len);
	case C_MUTATE:
		len = build(pkt, s, d, spoof_addr, rnd_below(s, 0x18), d->qpn);
		n = 1 + rnd_below(s, 8);
		for (i = 0; i < n; i++)
			pkt[XR_BTH_OFF + rnd_below(s, len - XR_BTH_OFF)] ^= rnd_next(s) | 1;
		q = pkt[XR_BTH_OFF + 5] << 16 | pkt[XR_BTH_OFF + 6] << 8 | pkt[XR_BTH_OFF + 7];
		if (q == 1 || (q != d->qpn && q == d->other_qpn))
			xr_put24(pkt + XR_BTH_OFF + 5, d->qpn);
		return xr_seal(pkt, len);
	case C_LENGTH:
		len = build(pkt, s, d, spoof_addr, rnd_next(s), rnd_below(s, 2) ?
			    d->qpn : dead_qpn(s));
		if (rnd_below(s, 2))	/* cut anywhere after the BTH */
			len = XR_BTH_OFF + XR_BTH_LEN + rnd_below(s, len - XR_BTH_OFF - XR_BTH_LEN + 1);
		pkt[XR_BTH_OFF + 1] = (pkt[XR_BTH_OFF + 1] & 0xc0) | rnd_next(s) % 0x40;
		return xr_seal(pkt, len);
	case C_PKEY:
		len = build(pkt, s, d, spoof_addr, rnd_below(s, 0x18), d->qpn);
		xr_put16(pkt + XR_BTH_OFF + 2, rnd_below(s, 0xffff));
		return xr_seal(pkt, len);
	case C_UDPLEN:
		len = build(pkt, s, d, spoof_addr, rnd_next(s), dead_qpn(s));
		len = xr_seal(pkt, len);
		n = len - XR_IP_LEN;	/* the right UDP length */
		if (rnd_below(s, 2))
			n += 1 + rnd_below(s, 64);
		else
			n -= 1 + rnd_below(s, n - XR_UDP_LEN);
		xr_put16(pkt + XR_IP_LEN + 4, n);
		*udp_len = n;
		return len;
	case C_DEEP:
		return deep(pkt, s, d);
	default:
		return 0;
	}
}

static void *injector(void *arg)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull | 1, i;
	uint8_t pkt[XR_FRAME_MAX];
	uint32_t sweep = 0;

	(void)arg;
	for (i = 0; i < n_packets; i++) {
		enum cat c = rnd_below(&s, C_NR);
		struct dest *d = &dst[rnd_below(&s, 4) ? 1 : 0];
		size_t udp_len = 0;
		size_t len = make(pkt, &s, c, d, &sweep, &udp_len);
		int tries;

		if (!len)
			continue;
		for (tries = 0; tries < 1000; tries++) {
			if (!xr_send(raw_c, pkt, len))
				break;
			if (errno != ENOBUFS && errno != EAGAIN)
				break;
			usleep(100);
		}
		if (tries == 1000 || (tries && errno != ENOBUFS && errno != EAGAIN)) {
			send_errors++;
			if (send_errors < 5)
				fprintf(stderr, "%s: sendto (%s, %zu bytes): %s\n", xt_prog,
					cat_name[c], len, strerror(errno));
			continue;
		}
		sent[c]++;
		if (c == C_DEEP) {
			/* may be executed: not counted */
		} else if (c != C_UDPLEN) {
			d->must_drop++;
			if (c == C_ICRC)
				d->icrc++;
		} else if (udp_len >= XR_UDP_LEN && udp_len < len - XR_IP_LEN) {
			/*
			 * The UDP layer cuts the datagram to its UDP length
			 * (one longer than the IP payload, or shorter than a
			 * header, it drops): the device sees it, too short
			 * (malformed) or with the wrong bytes as ICRC.
			 */
			d->must_drop++;
			if (udp_len >= XR_UDP_LEN + XR_BTH_LEN + XR_ICRC_LEN)
				d->icrc++;
		}
		if (!(i & 63))
			usleep(200);	/* let the receivers' backlogs drain */
	}
	atomic_store(&inject_done, 1);
	return NULL;
}

/* One validated round: NMSG RDMA WRITEs and a SEND from qa to qb. */
static void round_trip(struct xt_side *sa, struct xt_side *sb, struct xib_qp *qa,
		       struct xib_qp *qb, struct xib_mr *amr, struct xib_mr *bmr,
		       uint8_t *abuf, uint8_t *bbuf, uint64_t r)
{
	struct xib_sge rsge = { (uintptr_t)bbuf + NMSG * MSG, MSG, bmr->lkey };
	struct xib_recv_wr rwr = { .wr_id = 1000 + r, .sg_list = &rsge, .num_sge = 1 };
	struct xib_recv_wr *rbad;
	xib_wc wc[NMSG + 1];
	uint32_t i;

	xt_check(xib_post_recv(qb, &rwr, &rbad), "post_recv");
	xt_pattern(abuf, (NMSG + 1) * MSG, seed << 20 ^ r);
	for (i = 0; i <= NMSG; i++) {
		struct xib_sge sge = { (uintptr_t)abuf + i * MSG, MSG, amr->lkey };
		struct xib_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = i < NMSG ? XIB_HCA_WR_RDMA_WRITE : XIB_HCA_WR_SEND;
		wr.send_flags = XIB_HCA_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)bbuf + i * MSG;
		wr.wr.rdma.rkey = bmr->rkey;
		xt_check(xib_post_send(qa, &wr, &bad), "post_send");
	}
	xt_wait(sa->scq, wc, NMSG + 1, "send completions");
	for (i = 0; i <= NMSG; i++)
		if (wc[i].status != XIB_HCA_WC_SUCCESS || wc[i].wr_id != i)
			xt_fail("round %llu: WR %u: wr_id %llu status %s", (unsigned long long)r,
				i, (unsigned long long)wc[i].wr_id, xt_status_str(wc[i].status));
	xt_wait(sb->rcq, wc, 1, "receive completion");
	if (wc[0].status != XIB_HCA_WC_SUCCESS || wc[0].byte_len != MSG)
		xt_fail("round %llu: receive status %s, %u bytes", (unsigned long long)r,
			xt_status_str(wc[0].status), wc[0].byte_len);
	if (memcmp(abuf, bbuf, (NMSG + 1) * MSG))
		xt_fail("round %llu: the transfer's data differ", (unsigned long long)r);
}

#define VACCESS (XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ | \
		 XIB_ACCESS_REMOTE_ATOMIC)

/* Receive WQEs on a victim, as many as it takes, for the SENDs that get through. */
static void victim_recvs(struct xib_qp *qp, struct xib_mr *mr, uint8_t *buf)
{
	uint32_t i;

	for (i = 0; i < 64; i++) {
		struct xib_sge sge = { (uintptr_t)buf + (i % 16) * 4096, 4096, mr->lkey };
		struct xib_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
		struct xib_recv_wr *bad;

		if (xib_post_recv(qp, &wr, &bad))
			break;
	}
}

static uint64_t revived;

/*
 * A victim RC QP the deep packets moved to ERR (as they may) goes back
 * through RESET to RTS, with fresh receive WQEs, so that they keep
 * reaching its opcode handlers; its CQs are drained.
 */
static void revive(struct xt_side *v, struct xib_qp *qp, const struct xt_side *rv,
		   struct xib_qp *rqp, struct xib_mr *mr, uint8_t *buf)
{
	struct xib_uverbs_qp_attr a;
	xib_wc wc[64];

	while (xib_poll_cq(v->scq, 64, wc) > 0)
		;
	while (xib_poll_cq(v->rcq, 64, wc) > 0)
		;
	if (xt_qp_state(qp) != XIB_QPS_ERR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RESET;
	xt_check(xib_modify_qp(qp, &a, XIB_QP_STATE), "modify_qp RESET");
	xt_rc_connect(qp, v, rqp->qpn, rv, VACCESS & ~XIB_ACCESS_LOCAL_WRITE);
	victim_recvs(qp, mr, buf);
	revived++;
}

static const char *qp_state_name(struct xib_qp *qp)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	uint32_t st = xt_qp_state(qp);

	return st < 7 ? names[st] : "?";
}

static void *alloc_buf(void)
{
	void *p;

	if (posix_memalign(&p, 4096, BUF_SIZE))
		xt_fail("out of memory");
	memset(p, 0, BUF_SIZE);
	return p;
}

static uint32_t gid_v4(const struct xt_side *s)
{
	uint32_t a;

	memcpy(&a, s->gid + 12, 4);
	return a;
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_pkt_fuzz -d DEVA -D DEVB -c NETNS_C -x SPOOF_ADDR "
		"[-s SEED] [-n PACKETS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *deva = NULL, *devb = NULL, *ns_c = NULL, *spoof_s = NULL;
	struct xib_context *ca, *cb;
	struct xt_side sa, sb, va, vb;
	struct xib_qp *qa, *qb, *vrca, *vrcb, *vuda, *vudb;
	struct xib_mr *amr, *bmr, *vamr, *vbmr;
	uint8_t *abuf, *bbuf, *vabuf, *vbbuf;
	pthread_t th;
	uint64_t rounds = 0;
	int opt, c;

	xt_prog = "xib_pkt_fuzz";
	while ((opt = getopt(argc, argv, "d:D:c:x:s:n:v")) != -1) {
		switch (opt) {
		case 'd': deva = optarg; break;
		case 'D': devb = optarg; break;
		case 'c': ns_c = optarg; break;
		case 'x': spoof_s = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': n_packets = strtoull(optarg, NULL, 0); break;
		case 'v': xt_verbose = 1; break;
		default: usage();
		}
	}
	if (!deva || !devb || !ns_c || !spoof_s || inet_pton(AF_INET, spoof_s, &spoof_addr) != 1)
		usage();
	printf("seed %llu packets %llu\n", (unsigned long long)seed,
	       (unsigned long long)n_packets);

	raw_c = xr_raw_socket(ns_c);
	if (raw_c < 0)
		xt_fail("raw socket in %s: %s", ns_c, strerror(errno));
	xt_check(xib_open(deva, &ca), deva);
	xt_check(xib_open(devb, &cb), devb);
	xt_side_open(&sa, ca, -1, 64);
	xt_side_open(&sb, cb, -1, 64);
	if (sa.mtu < MSG + 64)
		xt_fail("MTU %u too small", sa.mtu);
	abuf = alloc_buf();
	bbuf = alloc_buf();
	xt_check(xib_reg_mr(sa.pd, abuf, BUF_SIZE, XIB_ACCESS_LOCAL_WRITE, &amr), "reg_mr A");
	xt_check(xib_reg_mr(sb.pd, bbuf, BUF_SIZE, XIB_ACCESS_LOCAL_WRITE |
			    XIB_ACCESS_REMOTE_WRITE, &bmr), "reg_mr B");
	qa = xt_create_qp(&sa, XIB_QPT_RC, 64, 1, 0, NULL);
	qb = xt_create_qp(&sb, XIB_QPT_RC, 64, 1, 0, NULL);
	xt_rc_connect(qa, &sa, qb->qpn, &sb, XIB_ACCESS_REMOTE_WRITE);
	xt_rc_connect(qb, &sb, qa->qpn, &sa, XIB_ACCESS_REMOTE_WRITE);
	dst[0] = (struct dest){ .addr = gid_v4(&sa), .peer = gid_v4(&sb), .qpn = qa->qpn,
				.other_qpn = qb->qpn };
	dst[1] = (struct dest){ .addr = gid_v4(&sb), .peer = gid_v4(&sa), .qpn = qb->qpn,
				.other_qpn = qa->qpn };

	/* the victims: their own PDs, CQs and MRs on the same contexts */
	xt_side_open(&va, ca, -1, 256);
	xt_side_open(&vb, cb, -1, 256);
	vabuf = alloc_buf();
	vbbuf = alloc_buf();
	xt_check(xib_reg_mr(va.pd, vabuf, BUF_SIZE, VACCESS, &vamr), "reg_mr victim A");
	xt_check(xib_reg_mr(vb.pd, vbbuf, BUF_SIZE, VACCESS, &vbmr), "reg_mr victim B");
	vrca = xt_create_qp(&va, XIB_QPT_RC, 64, 1, 0, NULL);
	vrcb = xt_create_qp(&vb, XIB_QPT_RC, 64, 1, 0, NULL);
	vuda = xt_create_qp(&va, XIB_QPT_UD, 64, 1, 0, NULL);
	vudb = xt_create_qp(&vb, XIB_QPT_UD, 64, 1, 0, NULL);
	xt_rc_connect(vrca, &va, vrcb->qpn, &vb, VACCESS & ~XIB_ACCESS_LOCAL_WRITE);
	xt_rc_connect(vrcb, &vb, vrca->qpn, &va, VACCESS & ~XIB_ACCESS_LOCAL_WRITE);
	xt_ud_ready(vuda, VQKEY);
	xt_ud_ready(vudb, VQKEY);
	victim_recvs(vrca, vamr, vabuf);
	victim_recvs(vuda, vamr, vabuf);
	victim_recvs(vrcb, vbmr, vbbuf);
	victim_recvs(vudb, vbmr, vbbuf);
	dst[0].vrc = vrca->qpn;
	dst[0].vud = vuda->qpn;
	dst[0].vaddr = (uintptr_t)vabuf;
	dst[0].vlen = BUF_SIZE;
	dst[0].vrkey = vamr->rkey;
	dst[1].vrc = vrcb->qpn;
	dst[1].vud = vudb->qpn;
	dst[1].vaddr = (uintptr_t)vbbuf;
	dst[1].vlen = BUF_SIZE;
	dst[1].vrkey = vbmr->rkey;

	if (pthread_create(&th, NULL, injector, NULL))
		xt_fail("pthread_create");
	while (!atomic_load(&inject_done)) {
		round_trip(&sa, &sb, qa, qb, amr, bmr, abuf, bbuf, rounds++);
		revive(&va, vrca, &vb, vrcb, vamr, vabuf);
		revive(&vb, vrcb, &va, vrca, vbmr, vbbuf);
	}
	pthread_join(th, NULL);
	/* the device still works, and the QPs are unharmed */
	round_trip(&sa, &sb, qa, qb, amr, bmr, abuf, bbuf, rounds++);
	if (xt_qp_state(qa) != XIB_QPS_RTS || xt_qp_state(qb) != XIB_QPS_RTS)
		xt_fail("QP states after the injection: A %u B %u", xt_qp_state(qa),
			xt_qp_state(qb));

	for (c = 0; c < C_NR; c++)
		printf("sent %-7s %llu\n", cat_name[c], (unsigned long long)sent[c]);
	printf("send errors %llu\n", (unsigned long long)send_errors);
	printf("rounds %llu (%u RDMA WRITEs and a SEND each), data intact\n",
	       (unsigned long long)rounds, NMSG);
	printf("to A: must-drop %llu icrc %llu\n", (unsigned long long)dst[0].must_drop,
	       (unsigned long long)dst[0].icrc);
	printf("to B: must-drop %llu icrc %llu\n", (unsigned long long)dst[1].must_drop,
	       (unsigned long long)dst[1].icrc);

	printf("victim QPs: RC A %s B %s, UD A %s B %s; RC QPs revived from ERR %llu times\n",
	       qp_state_name(vrca), qp_state_name(vrcb), qp_state_name(vuda),
	       qp_state_name(vudb), (unsigned long long)revived);

	xt_check(xib_destroy_qp(qa), "destroy_qp");
	xt_check(xib_destroy_qp(qb), "destroy_qp");
	xt_check(xib_destroy_qp(vrca), "destroy_qp");
	xt_check(xib_destroy_qp(vrcb), "destroy_qp");
	xt_check(xib_destroy_qp(vuda), "destroy_qp");
	xt_check(xib_destroy_qp(vudb), "destroy_qp");
	xt_check(xib_dereg_mr(amr), "dereg_mr");
	xt_check(xib_dereg_mr(bmr), "dereg_mr");
	xt_check(xib_dereg_mr(vamr), "dereg_mr");
	xt_check(xib_dereg_mr(vbmr), "dereg_mr");
	xt_side_close(&sa);
	xt_side_close(&sb);
	xt_side_close(&va);
	xt_side_close(&vb);
	free(vabuf);
	free(vbbuf);
	xt_check(xib_close(ca), "close");
	xt_check(xib_close(cb), "close");
	free(abuf);
	free(bbuf);
	if (send_errors)
		xt_fail("%llu packets could not be sent", (unsigned long long)send_errors);
	printf("PASS\n");
	return 0;
}
