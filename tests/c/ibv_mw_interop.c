// SPDX-License-Identifier: BSD-2-Clause
/*
 * ibv_mw_interop: a type 2 memory window and SEND_WITH_INV between two
 * verbs devices, through <infiniband/verbs.h> only, so that one side may
 * be rdma_rxe under rdma-core's libibverbs and the other xib under
 * xib-run (tests/bats/rxe-interop.bats).
 *
 *   ibv_mw_interop -d DEV -g GIDX [-R]       the target (TCP port 18515)
 *   ibv_mw_interop -d DEV -g GIDX [-R] SERVER     the requester
 *
 * The target registers 8 KiB with LOCAL_WRITE | MW_BIND only, binds a
 * type 2 window over its first 4 KiB with REMOTE_READ | REMOTE_WRITE
 * (IBV_WR_BIND_MW on its RC QP) and sends the window's rkey.  The
 * requester WRITEs 64 bytes through it and READs them back, then sends
 * 32 bytes with SEND_WITH_INV of the rkey; the target's receive must
 * complete with IBV_WC_WITH_INV and that rkey, and the WRITE's bytes must
 * be in its memory.  Then a READ through the rkey must fail with
 * IBV_WC_REM_ACCESS_ERR: the window was invalidated remotely.  Each side
 * prints TAP lines and exits with the number of failed checks (a broken
 * setup: "FAIL: ..." and 1).
 *
 * -R: DEV is rdma_rxe.  Its provider (rdma-core 44) copies the kernel's
 * wc_flags into struct ibv_wc untranslated, so a remote invalidation
 * shows as the kernel's IB_WC_WITH_INVALIDATE (1 << 2, which is
 * IBV_WC_IP_CSUM_OK in libibverbs) instead of IBV_WC_WITH_INV (1 << 3);
 * with -R either bit is taken as the invalidation, invalidated_rkey is
 * checked all the same.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"

#define PORT	18515
#define MEM	8192

struct peer {
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
};

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ibv_mw_interop: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d %s)\n", errno, strerror(errno));
	exit(1);
}

static void xfer(int fd, void *p, size_t len, int out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? write(fd, (char *)p + done, len - done) :
			  read(fd, (char *)p + done, len - done);
		if (n <= 0)
			die("%s the peer", out ? "writing to" : "reading from");
		done += (size_t)n;
	}
}

static int tcp_connect(const char *server)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int fd, tries, one = 1;

	if (!server) {
		int lfd = socket(AF_INET, SOCK_STREAM, 0);

		if (lfd < 0)
			die("socket");
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
			die("bind/listen");
		fd = accept(lfd, NULL, NULL);
		close(lfd);
		if (fd < 0)
			die("accept");
		return fd;
	}
	if (inet_pton(AF_INET, server, &sa.sin_addr) != 1)
		die("bad server address %s", server);
	for (tries = 0; tries < 50; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		usleep(100000);
	}
	die("connect to %s", server);
	return -1;
}

static void to_rts(struct ibv_qp *qp, int gidx, const struct peer *me,
		   const struct peer *them)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = them->qpn;
	a.rq_psn = them->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, them->gid, 16);
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me->psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = 0, tries;

	for (tries = 0; tries < 20000 && !n; tries++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("poll_cq");
		if (!n)
			usleep(500);
	}
	return n;
}

/* One signaled WR; its completion's status (-1: none within 10 s). */
static int post_wait(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_send_wr *wr,
		     enum ibv_wc_opcode want)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad))
		die("post_send opcode %d", wr->opcode);
	if (!wait_wc(cq, &wc))
		return -1;
	if (wc.status == IBV_WC_SUCCESS && wc.opcode != want)
		return 1000 + wc.opcode;
	return wc.status;
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *server;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_recv_wr rwr, *rbad;
	struct peer me, them;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	union ibv_gid gid;
	uint64_t addr;
	uint32_t rkey;
	uint8_t *mem, verdict;
	int gidx = -1, i, c, fd, st, rxe = 0;
	unsigned int inv_flags = IBV_WC_WITH_INV;

	while ((c = getopt(argc, argv, "d:g:R")) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'R': rxe = 1; break;
		default: die("usage: ibv_mw_interop -d DEV -g GIDX [SERVER]");
		}
	}
	if (!dev_name || gidx < 0 || argc - optind > 1)
		die("usage: ibv_mw_interop -d DEV -g GIDX [SERVER]");
	server = optind < argc ? argv[optind] : NULL;
	if (rxe)
		inv_flags |= 1u << 2;	/* the kernel's IB_WC_WITH_INVALIDATE */

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("no device %s", dev_name);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq || posix_memalign((void **)&mem, 4096, MEM))
		die("pd/cq/memory");
	memset(mem, 0, MEM);
	mr = ibv_reg_mr(pd, mem, MEM, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!mr)
		die("reg_mr");
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &ia);
	}
	if (!qp || ibv_query_gid(ctx, 1, gidx, &gid))
		die("create_qp/query_gid");
	me.qpn = qp->qp_num;
	me.psn = 0x1000 + (getpid() & 0xffff);
	memcpy(me.gid, gid.raw, 16);
	fd = tcp_connect(server);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	to_rts(qp, gidx, &me, &them);

	if (!server) {
		struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);

		ok(mw != NULL, "target: ibv_alloc_mw(IBV_MW_TYPE_2) (errno %d)", mw ? 0 : errno);
		if (!mw)
			die("alloc_mw");
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info.mr = mr;
		wr.bind_mw.bind_info.addr = (uintptr_t)mem;
		wr.bind_mw.bind_info.length = 4096;
		wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ |
						       IBV_ACCESS_REMOTE_WRITE;
		st = post_wait(qp, cq, &wr, IBV_WC_BIND_MW);
		ok(st == IBV_WC_SUCCESS, "target: IBV_WR_BIND_MW completes (status %d)", st);
		rkey = wr.bind_mw.rkey;
		mw->rkey = rkey;
		sge = (struct ibv_sge){ (uintptr_t)mem + 4096, 256, mr->lkey };
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 42;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		if (ibv_post_recv(qp, &rwr, &rbad))
			die("post_recv");
		addr = (uintptr_t)mem;
		xfer(fd, &rkey, sizeof(rkey), 1);
		xfer(fd, &addr, sizeof(addr), 1);
		i = wait_wc(cq, &wc);
		ok(i && wc.wr_id == 42 && wc.status == IBV_WC_SUCCESS &&
		   wc.opcode == IBV_WC_RECV && wc.byte_len == 32 &&
		   (wc.wc_flags & inv_flags) && wc.invalidated_rkey == rkey,
		   "target: receive with IBV_WC_WITH_INV, invalidated_rkey 0x%08x (want 0x%08x, "
		   "status %d, flags 0x%x)", i ? wc.invalidated_rkey : 0, rkey,
		   i ? (int)wc.status : -1, i ? wc.wc_flags : 0);
		ok(mem[0] == 0xc3 && mem[63] == 0xc3 && mem[64] == 0,
		   "target: the WRITE through the window is in memory");
		verdict = !failures;
		xfer(fd, &verdict, 1, 1);
		xfer(fd, &verdict, 1, 0);	/* the requester is done */
		ibv_destroy_qp(qp);
		ibv_dealloc_mw(mw);
	} else {
		uint8_t *buf = mem + 4096;

		xfer(fd, &rkey, sizeof(rkey), 0);
		xfer(fd, &addr, sizeof(addr), 0);
		memset(buf, 0xc3, 64);
		sge = (struct ibv_sge){ (uintptr_t)buf, 64, mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = addr;
		wr.wr.rdma.rkey = rkey;
		st = post_wait(qp, cq, &wr, IBV_WC_RDMA_WRITE);
		ok(st == IBV_WC_SUCCESS, "requester: WRITE through the window (status %d)", st);
		memset(buf, 0, 64);
		wr.opcode = IBV_WR_RDMA_READ;
		st = post_wait(qp, cq, &wr, IBV_WC_RDMA_READ);
		ok(st == IBV_WC_SUCCESS && buf[0] == 0xc3 && buf[63] == 0xc3,
		   "requester: READ through the window (status %d)", st);
		sge.length = 32;
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = rkey;
		st = post_wait(qp, cq, &wr, IBV_WC_SEND);
		ok(st == IBV_WC_SUCCESS, "requester: SEND_WITH_INV (status %d)", st);
		xfer(fd, &verdict, 1, 0);
		ok(verdict == 1, "target's checks passed");
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = addr;
		wr.wr.rdma.rkey = rkey;
		st = post_wait(qp, cq, &wr, IBV_WC_RDMA_READ);
		ok(st == IBV_WC_REM_ACCESS_ERR,
		   "requester: READ after the remote invalidation: REM_ACCESS_ERR (status %d)",
		   st);
		xfer(fd, &verdict, 1, 1);
		ibv_destroy_qp(qp);
	}
	close(fd);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("1..%d\n", checks);
	return failures;
}
