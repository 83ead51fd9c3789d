// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_hold_test: hold a device open with objects (and, with -c, traffic)
 * until the device goes away, and check what the process sees.
 *
 *   xib_hold_test [-d DEV] [-c | -m FILE] [-T SECONDS]
 *
 * Creates a PD, an MR, CQs bound to a completion channel, a loopback RC
 * QP pair with receives posted and an armed CQ, prints "READY" and waits
 * (at most SECONDS, default 120) for an async event.  With -c it moves
 * data (RDMA WRITEs) while it waits.  Expected: a DEVICE_FATAL event,
 * possibly after port events (PORT_ERR, GID_CHANGE) for port 1;
 * after it, commands fail with EIO, the mapped rings and doorbell page
 * still read (zeroed or stale, never SIGBUS), and closing works.
 * Exit status 0 if so, 1 with a "FAIL: ..." line otherwise.
 *
 * With -m, 64 KiB of FILE (at offset 4 MiB, mapped privately and never
 * touched) are registered as an MR by a second thread once SIGUSR1
 * comes after READY: the kernel's page faults read FILE with the
 * context's command lock held.  On a block device that cannot answer (a
 * suspended device-mapper device) the registration waits until it does,
 * and the device can be removed meanwhile.  When the registration ends
 * (done, or EIO if the device went) the process waits for DEVICE_FATAL
 * as above.  (A userfaultfd cannot hold such a fault: the kernel's
 * long-term pins take no fault that may retry, so it gets SIGBUS.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xib_test.h"

#define BUF	(1u << 20)
#define SLOW_OFF	(4u << 20)
#define SLOW_LEN	(64u << 10)

struct slow_reg {
	struct xib_pd *pd;
	void *addr;
	int ret;
};

static void *slow_reg_thread(void *arg)
{
	struct slow_reg *r = arg;
	struct xib_mr *mr;

	r->ret = xib_reg_mr(r->pd, r->addr, SLOW_LEN, XIB_ACCESS_LOCAL_WRITE, &mr);
	return NULL;
}

/* On SIGUSR1, register @r's mapping in a thread; return when it ended. */
static void slow_reg(struct slow_reg *r, int timeout)
{
	struct timespec ts = { .tv_sec = timeout };
	sigset_t usr1;
	pthread_t th;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigtimedwait(&usr1, NULL, &ts) != SIGUSR1)
		xt_fail("no SIGUSR1 within %d s", timeout);
	if (pthread_create(&th, NULL, slow_reg_thread, r))
		xt_fail("pthread_create");
	pthread_join(th, NULL);
	if (r->ret && r->ret != -EIO)
		xt_fail("REG_MR over the slow mapping: %d (%s), expected 0 or EIO",
			r->ret, strerror(-r->ret));
	xt_info("REG_MR ended (%s)", r->ret ? "EIO" : "done");
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/xib/uverbs0";
	struct xib_uverbs_async_event ev;
	struct xib_comp_channel *ch;
	struct xt_side a, b;
	struct xib_context *ctx;
	struct xib_qp *qa, *qb;
	struct xib_mr *mr, *rmr;
	struct xib_pd *pd;
	struct pollfd pfd;
	uint64_t deadline, moved = 0, outstanding = 0;
	volatile uint32_t sink;
	int c, timeout = 120, ret, i, fd;
	bool traffic = false;
	const char *slow = NULL;
	struct slow_reg sr = { 0 };
	sigset_t usr1;
	uint8_t *buf;
	xib_wc wc[16];

	xt_prog = "xib_hold_test";
	while ((c = getopt(argc, argv, "d:cm:T:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'c': traffic = true; break;
		case 'm': slow = optarg; break;
		case 'T': timeout = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: xib_hold_test [-d DEV] [-c | -m FILE] [-T SECONDS]\n");
			return 2;
		}
	}
	if (slow && traffic) {
		fprintf(stderr, "xib_hold_test: -c and -m exclude each other\n");
		return 2;
	}
	/* SIGUSR1 is taken by sigtimedwait() only */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	xt_check(xib_open(dev, &ctx), dev);
	xt_side_open(&a, ctx, -1, 64);
	xt_side_open(&b, ctx, -1, 64);
	xt_check(xib_create_comp_channel(ctx, &ch), "create_comp_channel");
	qa = xt_create_qp(&a, XIB_QPT_RC, 32, 1, 0, NULL);
	qb = xt_create_qp(&b, XIB_QPT_RC, 32, 1, 0, NULL);
	xt_rc_connect(qa, &a, qb->qpn, &b, XIB_ACCESS_REMOTE_WRITE);
	xt_rc_connect(qb, &b, qa->qpn, &a, XIB_ACCESS_REMOTE_WRITE);
	buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		xt_fail("out of memory");
	xt_check(xib_reg_mr(a.pd, buf, BUF / 2, XIB_ACCESS_LOCAL_WRITE, &mr), "reg_mr");
	xt_check(xib_reg_mr(b.pd, buf + BUF / 2, BUF / 2,
			    XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE, &rmr), "reg_mr");
	for (i = 0; i < 8; i++) {
		struct xib_sge sge = { (uintptr_t)buf + BUF / 2, 64, rmr->lkey };
		struct xib_recv_wr rwr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *rbad;

		xt_check(xib_post_recv(qb, &rwr, &rbad), "post_recv");
	}
	xt_check(xib_req_notify_cq(b.rcq, 0), "req_notify_cq");
	if (slow) {
		fd = open(slow, O_RDONLY);
		if (fd < 0)
			xt_fail("%s: %s", slow, strerror(errno));
		sr.pd = a.pd;
		sr.addr = mmap(NULL, SLOW_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			       fd, SLOW_OFF);
		if (sr.addr == MAP_FAILED)
			xt_fail("mmap %s: %s", slow, strerror(errno));
		close(fd);
	}
	printf("READY\n");
	fflush(stdout);
	if (slow) {
		slow_reg(&sr, timeout);
		fflush(stdout);
	}

	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	deadline = xt_now_ns() + (uint64_t)timeout * 1000000000ull;
	for (;;) {
		ret = poll(&pfd, 1, traffic ? 0 : 1000);
		if (ret == 1)
			break;
		if (xt_now_ns() > deadline)
			xt_fail("no async event within %d s", timeout);
		if (!traffic)
			continue;
		while (outstanding < 16) {
			struct xib_sge sge = { (uintptr_t)buf, 65536, mr->lkey };
			struct xib_send_wr wr, *bad;

			memset(&wr, 0, sizeof(wr));
			wr.opcode = XIB_HCA_WR_RDMA_WRITE;
			wr.send_flags = XIB_HCA_SEND_SIGNALED;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.wr.rdma.remote_addr = (uintptr_t)buf + BUF / 2 + 65536;
			wr.wr.rdma.rkey = rmr->rkey;
			if (xib_post_send(qa, &wr, &bad))
				break;
			outstanding++;
		}
		ret = xib_poll_cq(a.scq, 16, wc);
		for (i = 0; i < ret; i++) {
			/* flushes may come once the device is going away */
			if (wc[i].status && wc[i].status != XIB_HCA_WC_WR_FLUSH_ERR)
				xt_fail("WRITE completed with %s", xt_status_str(wc[i].status));
			outstanding--;
			moved++;
		}
	}
	/* Port events may come first (the interface going away takes the port down). */
	for (;;) {
		xt_check(xib_read_async_event(ctx, &ev), "reading the async event");
		if ((ev.event_type != XIB_EVENT_PORT_ERR &&
		     ev.event_type != XIB_EVENT_PORT_ACTIVE &&
		     ev.event_type != XIB_EVENT_GID_CHANGE) || ev.element != 1)
			break;
		xt_info("port event %u before DEVICE_FATAL", ev.event_type);
		if (poll(&pfd, 1, 30000) != 1)
			xt_fail("no DEVICE_FATAL within 30 s after a port event");
	}
	if (ev.event_type != XIB_EVENT_DEVICE_FATAL)
		xt_fail("async event %u (element %llu), expected DEVICE_FATAL (%u)",
			ev.event_type, (unsigned long long)ev.element, XIB_EVENT_DEVICE_FATAL);
	xt_info("DEVICE_FATAL received after %llu WRITEs", (unsigned long long)moved);

	/* The mappings still read (no SIGBUS). */
	sink = ctx->db->engine_state;
	sink = a.scq->hdr->prod;
	sink = *(uint32_t *)xib_ring_slot(&a.scq->ring, 0);
	sink = qa->sq.hdr->cons;
	(void)sink;
	xib_poll_cq(a.scq, 16, wc);

	ret = xib_alloc_pd(ctx, &pd);
	if (ret != -EIO)
		xt_fail("ALLOC_PD after the device went away: %d (%s), expected EIO", ret,
			strerror(-ret));
	ret = xib_destroy_qp(qa);
	if (ret && ret != -EIO)
		xt_fail("DESTROY_QP after the device went away: %s", strerror(-ret));
	xib_close(ctx);
	xt_info("PASS: commands fail with EIO, mappings readable, close works");
	return 0;
}
