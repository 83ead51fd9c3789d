// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_qkey_test: controlled Q_Keys (bit 31) are for privileged processes
 * (Documentation/security.rst).
 *
 *   xib_qkey_test -d DEV        (as root)
 *   xib_qkey_test -d DEV -m     (as any user: modify_qp only)
 *
 * As root, on one device (loopback): a UD QP "ctl" gets the controlled
 * Q_Key 0x8000abcd (allowed with CAP_NET_RAW), a UD QP "own" 0x0000abcd.
 * Then the process gives up root (uid and gid nobody, no capabilities)
 * and creates a sender UD QP: modify_qp with a controlled Q_Key fails with
 * EPERM (at INIT and at RTS); with 0x0000abcd it works.  It sends two
 * datagrams, both with remote_qkey 0x8000abcd: a WR whose Q_Key has bit
 * 31 set uses the QP's own (IBTA), so the one to "ctl" is not delivered
 * and the one to "own" is.
 *
 * With -m it only checks what the calling process may do: a controlled
 * Q_Key is refused (EPERM) without CAP_NET_RAW and accepted with it;
 * bats runs it as nobody and as root.
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "xib_test.h"

#define QKEY_CTL	0x8000abcdu
#define QKEY_OWN	0x0000abcdu
#define GRH		40u
#define LEN		64u

static int modify_init(struct xib_qp *qp, uint32_t qkey)
{
	struct xib_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	return xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
			     XIB_QP_QKEY);
}

static int modify_qkey(struct xib_qp *qp, uint32_t qkey)
{
	struct xib_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qkey = qkey;
	return xib_modify_qp(qp, &a, XIB_QP_QKEY);
}

static bool has_net_raw(void)
{
	return geteuid() == 0;
}

/* -m: what this process may do. */
static int modify_only(struct xt_side *s)
{
	struct xib_qp *qp = xt_create_qp(s, XIB_QPT_UD, 4, 1, 0, NULL);
	int ret = modify_init(qp, QKEY_CTL);

	if (has_net_raw()) {
		if (ret)
			xt_fail("root: modify_qp with Q_Key 0x%08x: %s", QKEY_CTL,
				strerror(-ret));
		printf("ok - root may set the controlled Q_Key 0x%08x\n", QKEY_CTL);
	} else {
		if (ret != -EPERM)
			xt_fail("uid %u: modify_qp with Q_Key 0x%08x gave %s, not EPERM",
				getuid(), QKEY_CTL, ret ? strerror(-ret) : "success");
		xt_check(modify_init(qp, QKEY_OWN), "modify_qp INIT own Q_Key");
		printf("ok - uid %u: controlled Q_Key refused (EPERM), 0x%08x accepted\n",
		       getuid(), QKEY_OWN);
	}
	xt_check(xib_destroy_qp(qp), "destroy_qp");
	return 0;
}

static void drop_root(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	/* rings are charged to RLIMIT_MEMLOCK once CAP_IPC_LOCK is gone */
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		xt_fail("setrlimit: %s", strerror(errno));
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		xt_fail("dropping root: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/xib/uverbs0";
	struct xib_uverbs_ah_attr av;
	struct xib_qp *ctl, *own, *snd;
	struct xib_context *ctx;
	struct xib_mr *mr;
	struct xib_ah *ah;
	struct xt_side s;
	bool mod_only = false;
	uint8_t *buf;
	xib_wc wc[4];
	size_t size;
	int c, i, n, ret;

	xt_prog = "xib_qkey_test";
	while ((c = getopt(argc, argv, "d:m")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'm': mod_only = true; break;
		default:
			fprintf(stderr, "usage: xib_qkey_test [-d DEV] [-m]\n");
			return 2;
		}
	}
	xt_check(xib_open(dev, &ctx), dev);
	xt_side_open(&s, ctx, -1, 16);
	if (mod_only)
		return modify_only(&s);
	if (!has_net_raw())
		xt_fail("run as root (or with -m)");

	ctl = xt_create_qp(&s, XIB_QPT_UD, 4, 1, 0, NULL);
	own = xt_create_qp(&s, XIB_QPT_UD, 4, 1, 0, NULL);
	xt_ud_ready(ctl, QKEY_CTL);
	xt_ud_ready(own, QKEY_OWN);
	size = 3 * (GRH + LEN);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		xt_fail("out of memory");
	xt_check(xib_reg_mr(s.pd, buf, size, XIB_ACCESS_LOCAL_WRITE, &mr), "reg_mr");
	for (i = 0; i < 2; i++) {
		struct xib_qp *qp = i ? own : ctl;
		struct xib_sge sge = { (uintptr_t)buf + (1 + i) * (GRH + LEN), GRH + LEN,
				       mr->lkey };
		struct xib_recv_wr wr = { .wr_id = 10 + i, .sg_list = &sge, .num_sge = 1 };
		struct xib_recv_wr *bad;

		xt_check(xib_post_recv(qp, &wr, &bad), "post_recv");
	}
	printf("ok - root set the controlled Q_Key 0x%08x on QP 0x%06x\n", QKEY_CTL,
	       ctl->qpn);

	drop_root();
	snd = xt_create_qp(&s, XIB_QPT_UD, 4, 1, 0, NULL);
	ret = modify_init(snd, QKEY_CTL);
	if (ret != -EPERM)
		xt_fail("nobody: modify_qp INIT with Q_Key 0x%08x gave %s, not EPERM",
			QKEY_CTL, ret ? strerror(-ret) : "success");
	xt_ud_ready(snd, QKEY_OWN);
	ret = modify_qkey(snd, QKEY_CTL);
	if (ret != -EPERM)
		xt_fail("nobody: modify_qp RTS with Q_Key 0x%08x gave %s, not EPERM",
			QKEY_CTL, ret ? strerror(-ret) : "success");
	printf("ok - nobody: a controlled Q_Key is refused (EPERM) at INIT and in RTS\n");

	xt_fill_av(&av, &s, &s);
	xt_check(xib_create_ah(s.pd, &av, &ah), "create_ah");
	for (i = 0; i < 2; i++) {
		struct xib_sge sge = { (uintptr_t)buf, LEN, mr->lkey };
		struct xib_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = XIB_HCA_WR_SEND;
		wr.send_flags = XIB_HCA_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = (i ? own : ctl)->qpn;
		wr.wr.ud.remote_qkey = QKEY_CTL;
		xt_check(xib_post_send(snd, &wr, &bad), "post_send");
	}
	xt_wait(s.scq, wc, 2, "UD send completions");
	n = xt_poll(s.rcq, wc, 2, 500);
	for (i = 0; i < n; i++) {
		if (wc[i].qp_num == ctl->qpn)
			xt_fail("a datagram with remote_qkey 0x%08x from an unprivileged "
				"QP reached the QP with that controlled Q_Key", QKEY_CTL);
		if (wc[i].status != XIB_HCA_WC_SUCCESS)
			xt_fail("receive on QP 0x%06x: %s", wc[i].qp_num,
				xt_status_str(wc[i].status));
	}
	if (n != 1 || wc[0].qp_num != own->qpn)
		xt_fail("the datagram sent with the QP's own Q_Key (WR's bit 31 set) "
			"was not delivered (%d receives)", n);
	printf("ok - a WR Q_Key with bit 31 set sends the QP's own Q_Key 0x%08x\n",
	       QKEY_OWN);

	xt_check(xib_destroy_ah(ah), "destroy_ah");
	xt_check(xib_destroy_qp(snd), "destroy_qp");
	xt_check(xib_destroy_qp(ctl), "destroy_qp");
	xt_check(xib_destroy_qp(own), "destroy_qp");
	xt_check(xib_dereg_mr(mr), "dereg_mr");
	xt_side_close(&s);
	xt_check(xib_close(ctx), "close");
	printf("PASS\n");
	return 0;
}
