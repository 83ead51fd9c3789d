// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: rsockets, the socket API over RDMA (rsocket(7)), wire
 * compatible with rdma-core 44's.  Stream sockets here, over RC QPs and
 * the rdma_cm; datagram sockets in rsocket_dgram.c.  The protocol is
 * described in Documentation/rsockets.rst; rsocket_wire.h holds its
 * layouts and arithmetic, rsocket_int.h the state and the locking rules.
 *
 * Design in short: every rsocket owns an epoll fd, which is the number
 * handed to the application.  Its set holds what can make progress on
 * the socket (the CM event channel, the CQ's completion channel, an
 * eventfd to wake a sleeper), so blocking calls and rpoll sleep in poll()
 * on that one fd and no helper thread is needed: connection requests,
 * connection events and completions are processed by whichever call
 * looks at the socket next.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>

#include "rsocket_int.h"

#define XRS_RECV_FLAG	(1ULL << 63)
#define XRS_CONF_DIR	"/etc/rdma/rsocket"

uint16_t xrs_def_sqsize = XRS_DEF_SQSIZE;
uint16_t xrs_def_rqsize = XRS_DEF_RQSIZE;
uint16_t xrs_def_inline = XRS_DEF_INLINE;
uint32_t xrs_def_mem = XRS_DEF_MEM;
uint32_t xrs_def_wmem = XRS_DEF_WMEM;
static unsigned int xrs_def_iomap = XRS_DEF_IOMAP;
static unsigned int xrs_polling_us = 10;
static int xrs_wake_ms = 5000;

static pthread_once_t xrs_conf_once = PTHREAD_ONCE_INIT;

static void xrs_conf_read(const char *name, unsigned long *v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), XRS_CONF_DIR "/%s", name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fscanf(f, "%lu", v) != 1)
		*v = ~0UL;
	fclose(f);
}

/* The administrator's defaults (rsocket(7)); unreadable files change nothing. */
static void xrs_conf_load(void)
{
	unsigned long v;

	v = ~0UL; xrs_conf_read("polling_time", &v);
	if (v != ~0UL)
		xrs_polling_us = v;
	v = ~0UL; xrs_conf_read("wake_up_interval", &v);
	if (v != ~0UL && v > 0 && v < 3600000)
		xrs_wake_ms = (int)v;
	v = ~0UL; xrs_conf_read("inline_default", &v);
	if (v <= 0xffff)
		xrs_def_inline = (uint16_t)v;
	v = ~0UL; xrs_conf_read("sqsize_default", &v);
	if (v <= 0xffff)
		xrs_def_sqsize = (uint16_t)v;
	v = ~0UL; xrs_conf_read("rqsize_default", &v);
	if (v <= 0xffff)
		xrs_def_rqsize = (uint16_t)v;
	v = ~0UL; xrs_conf_read("mem_default", &v);
	if (v != ~0UL && v <= UINT32_MAX)
		xrs_def_mem = v < 2 ? 2 : (uint32_t)v;
	v = ~0UL; xrs_conf_read("wmem_default", &v);
	if (v != ~0UL && v <= UINT32_MAX)
		xrs_def_wmem = v < XRS_SNDLOWAT ? XRS_SNDLOWAT * 2 : (uint32_t)v;
	v = ~0UL; xrs_conf_read("iomap_size", &v);
	if (v <= 0xffff)
		xrs_def_iomap = xrs_iomap_round((unsigned int)v);
}

int xrs_err(int e)
{
	errno = e;
	return -1;
}

int xrs_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return 0;
}

static uint64_t xrs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* --- the descriptor table ------------------------------------------------ */

static pthread_mutex_t xrs_tab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xrs **xrs_tab;
static size_t xrs_tab_len;

int xrs_table_set(struct xrs *rs)
{
	size_t want = (size_t)rs->fd + 1;

	pthread_mutex_lock(&xrs_tab_lock);
	if (want > xrs_tab_len) {
		size_t n = xrs_tab_len ? xrs_tab_len : 64;
		struct xrs **t;

		while (n < want)
			n *= 2;
		t = realloc(xrs_tab, n * sizeof(*t));
		if (!t) {
			pthread_mutex_unlock(&xrs_tab_lock);
			return xrs_err(ENOMEM);
		}
		memset(t + xrs_tab_len, 0, (n - xrs_tab_len) * sizeof(*t));
		xrs_tab = t;
		xrs_tab_len = n;
	}
	xrs_tab[rs->fd] = rs;
	pthread_mutex_unlock(&xrs_tab_lock);
	return 0;
}

static void xrs_table_clear(struct xrs *rs)
{
	pthread_mutex_lock(&xrs_tab_lock);
	if ((size_t)rs->fd < xrs_tab_len && xrs_tab[rs->fd] == rs)
		xrs_tab[rs->fd] = NULL;
	pthread_mutex_unlock(&xrs_tab_lock);
}

static struct xrs *xrs_get(int fd)
{
	struct xrs *rs = NULL;

	pthread_mutex_lock(&xrs_tab_lock);
	if (fd >= 0 && (size_t)fd < xrs_tab_len)
		rs = xrs_tab[fd];
	pthread_mutex_unlock(&xrs_tab_lock);
	return rs;
}

/* --- rpoll's gate: sleepers leave together when anything happened ------- */

/*
 * A thread that consumes an event another rpoll sleeper may have been
 * waiting for wakes them all through @efd; they re-check their sockets.
 * While they drain out (@draining) no new sleeper enters; the last one
 * out clears the eventfd.
 */
static struct {
	pthread_mutex_t lock;
	int efd;
	int inside;
	int draining;
} xrs_gate = { PTHREAD_MUTEX_INITIALIZER, -1, 0, 0 };

static int xrs_gate_fd(void)
{
	int fd;

	pthread_mutex_lock(&xrs_gate.lock);
	if (xrs_gate.efd < 0)
		xrs_gate.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	fd = xrs_gate.efd;
	pthread_mutex_unlock(&xrs_gate.lock);
	return fd;
}

static void xrs_gate_kick_locked(void)
{
	uint64_t one = 1;

	if (xrs_gate.inside && !xrs_gate.draining) {
		xrs_gate.draining = 1;
		if (write(xrs_gate.efd, &one, sizeof(one)) < 0)
			xrs_gate.draining = 0;
	}
}

static int xrs_gate_enter(void)
{
	pthread_mutex_lock(&xrs_gate.lock);
	if (xrs_gate.draining) {
		pthread_mutex_unlock(&xrs_gate.lock);
		sched_yield();
		return -1;
	}
	xrs_gate.inside++;
	pthread_mutex_unlock(&xrs_gate.lock);
	return 0;
}

static void xrs_gate_leave(int kick)
{
	uint64_t v;
	int save = errno;

	pthread_mutex_lock(&xrs_gate.lock);
	if (!--xrs_gate.inside) {
		if (read(xrs_gate.efd, &v, sizeof(v)) < 0)
			v = 0;
		xrs_gate.draining = 0;
	} else if (kick) {
		xrs_gate_kick_locked();
	}
	pthread_mutex_unlock(&xrs_gate.lock);
	errno = save;
}

/* @rs's fd had an event consumed: wake whoever sleeps on it. */
void xrs_note_event(struct xrs *rs)
{
	uint64_t one = 1;

	/* a full counter (EAGAIN) means the sleeper is already kicked */
	if (rs->waiting && write(rs->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		rs->err = rs->err ? rs->err : errno;
	pthread_mutex_lock(&xrs_gate.lock);
	xrs_gate_kick_locked();
	pthread_mutex_unlock(&xrs_gate.lock);
}

/*
 * Before an rpoll sleeps on @rs: a kick meant for a blocking sleeper that
 * has already left would keep rs->fd readable; clear it unless one sleeps.
 */
void xrs_drain_kick(struct xrs *rs)
{
	uint64_t v;

	if (!rs->waiting && read(rs->kick_fd, &v, sizeof(v)) < 0)
		v = 0;
}

/* --- allocation ---------------------------------------------------------- */

int xrs_epoll_add(struct xrs *rs, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(rs->fd, EPOLL_CTL_ADD, fd, &ev);
}

void xrs_epoll_del(struct xrs *rs, int fd)
{
	epoll_ctl(rs->fd, EPOLL_CTL_DEL, fd, NULL);
}

struct xrs *xrs_new(int type, int domain)
{
	struct xrs *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->type = type;
	rs->domain = domain;
	rs->fd = epoll_create1(EPOLL_CLOEXEC);
	rs->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rs->fd < 0 || rs->kick_fd < 0 || xrs_epoll_add(rs, rs->kick_fd)) {
		if (rs->fd >= 0)
			close(rs->fd);
		if (rs->kick_fd >= 0)
			close(rs->kick_fd);
		free(rs);
		return NULL;
	}
	pthread_mutex_init(&rs->slock, NULL);
	pthread_mutex_init(&rs->rlock, NULL);
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->cond, NULL);
	rs->sbuf_size = xrs_def_wmem;
	rs->rbuf_size = xrs_def_mem;
	rs->sq_size = xrs_def_sqsize;
	rs->rq_size = xrs_def_rqsize;
	rs->sq_inline = xrs_def_inline;
	rs->iomap_size = xrs_def_iomap;
	rs->ctrl_max = XRS_CTRL_SLOTS;
	return rs;
}

void xrs_free_common(struct xrs *rs)
{
	close(rs->kick_fd);
	close(rs->fd);
	free(rs->route);
	pthread_cond_destroy(&rs->cond);
	pthread_mutex_destroy(&rs->lock);
	pthread_mutex_destroy(&rs->rlock);
	pthread_mutex_destroy(&rs->slock);
	free(rs);
}

/* A page-aligned zeroed buffer (registered memory). */
static void *xrs_alloc_buf(size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p;

	len = (len + (size_t)pg - 1) & ~((size_t)pg - 1);
	if (posix_memalign(&p, (size_t)pg, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

static void xrs_free_iomaps(struct xrs *rs)
{
	struct xrs_iomr *m;

	while ((m = rs->iomaps)) {
		rs->iomaps = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
	}
	free(rs->remote_slots);
	rs->remote_slots = NULL;
}

/* Tear down a stream socket's RDMA resources and its CM id. */
static void xrs_stream_free(struct xrs *rs)
{
	xrs_free_iomaps(rs);
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr)
		ibv_dereg_mr(rs->tmr);
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->tbuf);
	free(rs->rq);
	if (rs->cq) {
		if (rs->unacked)
			ibv_ack_cq_events(rs->cq, rs->unacked);
		ibv_destroy_cq(rs->cq);
	}
	if (rs->cch)
		ibv_destroy_comp_channel(rs->cch);
	if (rs->id)
		rdma_destroy_id(rs->id);
	if (rs->cmch)
		rdma_destroy_event_channel(rs->cmch);
	xrs_free_common(rs);
}

/* A stream socket: an id on a channel of its own, both in our epoll set. */
static struct xrs *xrs_stream_new(int domain, const struct xrs *from)
{
	struct xrs *rs = xrs_new(SOCK_STREAM, domain);

	if (!rs)
		return NULL;
	if (from) {
		rs->sbuf_size = from->sbuf_size;
		rs->rbuf_size = from->rbuf_size;
		rs->sq_size = from->sq_size;
		rs->rq_size = from->rq_size;
		rs->sq_inline = from->sq_inline;
		rs->iomap_size = from->iomap_size;
	}
	rs->cmch = rdma_create_event_channel();
	if (!rs->cmch || xrs_set_nonblock(rs->cmch->fd) || xrs_epoll_add(rs, rs->cmch->fd))
		goto err;
	return rs;
err:
	xrs_stream_free(rs);
	return NULL;
}

/* --- the endpoint: CQ, QP, rings ------------------------------------------ */

static int xrs_post_recv(struct xrs *rs)
{
	struct ibv_recv_wr wr = { .wr_id = XRS_RECV_FLAG }, *bad;

	return ibv_post_recv(rs->id->qp, &wr, &bad) ? -1 : 0;
}

static void xrs_clamp_qp(struct xrs *rs)
{
	struct ibv_device_attr attr;
	unsigned int max = XRS_QP_MAX_SIZE;

	if (!ibv_query_device(rs->id->verbs, &attr) && attr.max_qp_wr > 0 &&
	    (unsigned int)attr.max_qp_wr < max)
		max = (unsigned int)attr.max_qp_wr;
	if (rs->sq_size > max)
		rs->sq_size = (uint16_t)max;
	if (rs->sq_size < XRS_QP_MIN_SIZE)
		rs->sq_size = XRS_QP_MIN_SIZE;
	if (rs->rq_size > max)
		rs->rq_size = (uint16_t)max;
	if (rs->rq_size < XRS_QP_MIN_SIZE)
		rs->rq_size = XRS_QP_MIN_SIZE;
}

/* Everything the connection needs before the private data is made. */
static int xrs_create_ep(struct xrs *rs)
{
	struct ibv_qp_init_attr qa;
	size_t slen;
	int i, e;

	xrs_clamp_qp(rs);
	rs->rbuf_size &= ~1u;
	if (rs->rbuf_size < 2)
		rs->rbuf_size = 2;
	if (rs->sbuf_size < XRS_SNDLOWAT)
		rs->sbuf_size = XRS_SNDLOWAT * 2;

	rs->cch = ibv_create_comp_channel(rs->id->verbs);
	if (!rs->cch || xrs_set_nonblock(rs->cch->fd))
		return -1;
	rs->cq = ibv_create_cq(rs->id->verbs, rs->sq_size + rs->rq_size, rs, rs->cch, 0);
	if (!rs->cq)
		return -1;
	if (xrs_epoll_add(rs, rs->cch->fd))
		return -1;

	memset(&qa, 0, sizeof(qa));
	qa.qp_context = rs;
	qa.send_cq = rs->cq;
	qa.recv_cq = rs->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = rs->sq_size;
	qa.cap.max_recv_wr = rs->rq_size;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = rs->sq_inline;
	if (rdma_create_qp(rs->id, NULL, &qa))
		return -1;
	rs->sq_inline = (uint16_t)(qa.cap.max_inline_data > 0xffff ? 0xffff :
				   qa.cap.max_inline_data);

	rs->rq = calloc((size_t)rs->rq_size + 1, sizeof(*rs->rq));
	if (!rs->rq)
		return xrs_err(ENOMEM);
	/* the send ring, then (if grants cannot go inline) one grant per control slot */
	slen = rs->sbuf_size;
	if (rs->sq_inline < sizeof(struct xrs_sge))
		slen += sizeof(struct xrs_sge) * XRS_CTRL_SLOTS;
	rs->sbuf = xrs_alloc_buf(slen);
	if (!rs->sbuf)
		return xrs_err(ENOMEM);
	rs->smr = ibv_reg_mr(rs->id->pd, rs->sbuf, slen, IBV_ACCESS_LOCAL_WRITE);
	if (!rs->smr)
		return -1;
	rs->tbuf_len = sizeof(struct xrs_sge) * XRS_SGL_SIZE +
		       sizeof(struct xrs_iomap) * rs->iomap_size;
	rs->tbuf = xrs_alloc_buf(rs->tbuf_len);
	if (!rs->tbuf)
		return xrs_err(ENOMEM);
	rs->tmr = ibv_reg_mr(rs->id->pd, rs->tbuf, rs->tbuf_len,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!rs->tmr)
		return -1;
	rs->rbuf = xrs_alloc_buf(rs->rbuf_size);
	if (!rs->rbuf)
		return xrs_err(ENOMEM);
	rs->rmr = ibv_reg_mr(rs->id->pd, rs->rbuf, rs->rbuf_size,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!rs->rmr)
		return -1;

	rs->s_avail = rs->sbuf_size;
	rs->s_head = 0;
	/* the first half is granted in the private data, the second is free */
	rs->r_grant = rs->rbuf_size / 2;
	rs->r_avail = rs->rbuf_size / 2;
	rs->ctrl_seq = 0;
	rs->ctrl_max = XRS_CTRL_SLOTS;
	rs->sqe_avail = rs->sq_size - XRS_CTRL_SLOTS;
	rs->rseq_comp = rs->rq_size / 2;
	for (i = 0; i < rs->rq_size; i++) {
		if (xrs_post_recv(rs)) {
			e = errno;
			return xrs_err(e ? e : ENOMEM);
		}
	}
	return 0;
}

static volatile struct xrs_sge *xrs_tsgl(struct xrs *rs)
{
	return (volatile struct xrs_sge *)rs->tbuf;
}

static volatile struct xrs_iomap *xrs_tiomap(struct xrs *rs)
{
	return (volatile struct xrs_iomap *)(rs->tbuf + sizeof(struct xrs_sge) * XRS_SGL_SIZE);
}

static void xrs_make_conn(struct xrs *rs, uint8_t out[XRS_CONN_DATA_LEN])
{
	struct xrs_conn c = {
		.version = XRS_CONN_VERSION,
		.flags = XRS_CONN_FLAG_IOMAP | (xrs_host_big_endian() ? XRS_CONN_FLAG_NET : 0),
		.credits = rs->rq_size,
		.iomap_byte = xrs_iomap_to_byte(rs->iomap_size),
		.target = { (uintptr_t)rs->tbuf, rs->tmr->rkey, XRS_SGL_SIZE },
		.data = { (uintptr_t)rs->rbuf, rs->rmr->rkey, rs->rbuf_size / 2 },
	};

	xrs_conn_pack(out, &c);
}

/* The peer's private data: -1 (EPROTO) if it is not an rsocket's. */
static int xrs_take_conn(struct xrs *rs, const void *pd, size_t len)
{
	volatile struct xrs_sge *t = xrs_tsgl(rs);
	struct xrs_conn c;

	if (xrs_conn_unpack(&c, pd, len) || !c.target.length || c.target.length > 64 ||
	    !c.credits)
		return xrs_err(EPROTO);
	rs->remote_sgl = c.target;
	rs->remote_slot = 1 % c.target.length;
	rs->swap = xrs_conn_swapped(&c);
	memset(&rs->remote_iomap, 0, sizeof(rs->remote_iomap));
	if (c.flags & XRS_CONN_FLAG_IOMAP) {
		rs->remote_iomap.addr = c.target.addr + sizeof(struct xrs_sge) * c.target.length;
		rs->remote_iomap.key = c.target.key;
		rs->remote_iomap.length = xrs_iomap_from_byte(c.iomap_byte);
	}
	t[0].addr = c.data.addr;
	t[0].key = c.data.key;
	t[0].length = c.data.length;
	rs->tslot = 0;
	rs->sseq = 0;
	rs->sseq_limit = c.credits;
	return 0;
}

/* --- posting -------------------------------------------------------------- */

static int xrs_post_write(struct xrs *rs, struct ibv_sge *sg, int n, int with_imm,
			  uint32_t imm, uint64_t wrid, int flags, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wrid;
	wr.sg_list = n ? sg : NULL;
	wr.num_sge = n;
	wr.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.send_flags = flags;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(rs->id->qp, &wr, &bad);
	if (ret)
		return xrs_err(ret > 0 ? ret : EIO);
	return 0;
}

/* A zero-length write with immediate: a control message or a bare credit grant. */
static int xrs_post_msg(struct xrs *rs, uint32_t imm)
{
	return xrs_post_write(rs, NULL, 0, 1, imm, imm, 0, 0, 0);
}

static int xrs_connected(const struct xrs *rs)
{
	return rs->state == XRS_CONNECTED;
}

/* Grant the peer what we have freed (ring space and message credits). */
static void xrs_credits(struct xrs *rs)
{
	uint32_t half = rs->rbuf_size / 2;
	struct xrs_sge e;
	struct ibv_sge sg;
	uint32_t imm;
	int flags = 0;
	void *src;

	if (!xrs_connected(rs) || rs->ctrl_seq == rs->ctrl_max)
		return;
	if (rs->r_avail < half && !xrs_seq_reached(rs->rseq, rs->rseq_comp))
		return;
	rs->ctrl_seq++;
	rs->rseq_comp = (uint16_t)(rs->rseq + rs->rq_size / 2);
	imm = xrs_imm(XRS_OP_SGL, (uint16_t)(rs->rseq + rs->rq_size));
	if (rs->r_avail < half) {
		if (xrs_post_msg(rs, imm))
			goto fail;
		return;
	}
	e.addr = (uintptr_t)rs->rbuf + rs->r_grant;
	e.key = rs->rmr->rkey;
	e.length = half;
	e = xrs_sge_for_peer(e, rs->swap);
	if (rs->sq_inline >= sizeof(e)) {
		src = &e;
		flags = IBV_SEND_INLINE;
		sg.lkey = 0;
	} else {
		src = rs->sbuf + rs->sbuf_size +
		      sizeof(e) * (rs->ctrl_seq % XRS_CTRL_SLOTS);
		memcpy(src, &e, sizeof(e));
		sg.lkey = rs->smr->lkey;
	}
	sg.addr = (uintptr_t)src;
	sg.length = sizeof(e);
	if (xrs_post_write(rs, &sg, 1, 1, imm, imm, flags,
			   rs->remote_sgl.addr + sizeof(e) * (uint64_t)rs->remote_slot,
			   rs->remote_sgl.key))
		goto fail;
	rs->r_avail -= half;
	rs->r_grant += half;
	if (rs->r_grant >= rs->rbuf_size)
		rs->r_grant = 0;
	rs->remote_slot = (rs->remote_slot + 1) % (int)rs->remote_sgl.length;
	return;
fail:
	rs->state = XRS_ERROR;
	rs->err = errno;
}

/* --- completions and CM events -------------------------------------------- */

static void xrs_recv_imm(struct xrs *rs, uint32_t imm)
{
	uint32_t arg = xrs_imm_arg(imm);

	switch (xrs_imm_op(imm)) {
	case XRS_OP_DATA:
		rs->rq[rs->rq_tail] = arg;
		if (++rs->rq_tail == rs->rq_size + 1)
			rs->rq_tail = 0;
		break;
	case XRS_OP_SGL:
		rs->sseq_limit = (uint16_t)arg;
		break;
	case XRS_OP_CTRL:
		if (arg == XRS_CTRL_DISCONNECT) {
			rs->state = XRS_DISCONNECTED;
		} else if (arg == XRS_CTRL_SHUTDOWN) {
			if (rs->wr)
				rs->rd = 0;
			else
				rs->state = XRS_DISCONNECTED;
		}
		break;
	default:	/* IOMAP_SGL: the table was written; reserved ops: ignored */
		break;
	}
}

static void xrs_send_done(struct xrs *rs, const struct ibv_wc *wc)
{
	uint32_t imm = (uint32_t)wc->wr_id;

	switch (xrs_imm_op(imm)) {
	case XRS_OP_SGL:
		rs->ctrl_max++;
		break;
	case XRS_OP_CTRL:
		rs->ctrl_max++;
		if (xrs_imm_arg(imm) == XRS_CTRL_DISCONNECT && rs->state == XRS_CONNECTED)
			rs->state = XRS_DISCONNECTED;
		break;
	case XRS_OP_IOMAP_SGL:
		rs->sqe_avail++;
		rs->s_avail += sizeof(struct xrs_iomap);
		break;
	default:	/* DATA, WRITE */
		rs->sqe_avail++;
		rs->s_avail += xrs_imm_arg(imm);
		break;
	}
	if (wc->status != IBV_WC_SUCCESS && rs->state == XRS_CONNECTED) {
		rs->state = XRS_ERROR;
		rs->err = EIO;
	}
}

static void xrs_poll_cq(struct xrs *rs)
{
	struct ibv_wc wc[16];
	int n, i, reposts = 0;

	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (!(wc[i].wr_id & XRS_RECV_FLAG)) {
				xrs_send_done(rs, &wc[i]);
				continue;
			}
			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			reposts++;
			if (wc[i].wc_flags & IBV_WC_WITH_IMM)
				xrs_recv_imm(rs, be32toh(wc[i].imm_data));
		}
	}
	if (rs->state != XRS_CONNECTED)
		return;
	while (reposts--) {
		if (xrs_post_recv(rs)) {
			rs->state = XRS_ERROR;
			rs->err = errno ? errno : EIO;
			return;
		}
	}
}

static void xrs_fail_connect(struct xrs *rs, int e)
{
	rs->state = XRS_CONNECT_ERROR;
	rs->err = e ? e : ECONNREFUSED;
}

static int xrs_event_errno(const struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return ECONNREFUSED;
	if (ev->status < 0)
		return -ev->status;
	if (ev->status > 0 && ev->status < 4096)
		return ev->status;
	return ev->event == RDMA_CM_EVENT_UNREACHABLE ? ETIMEDOUT : ECONNREFUSED;
}

static void xrs_resolve_addr(struct xrs *rs, struct sockaddr *dst)
{
	int to = 2000 << (rs->retries < 4 ? rs->retries : 4);

	/* a bound id resolves from its own address */
	rs->state = XRS_RESOLVING_ADDR;
	if (rdma_resolve_addr(rs->id, NULL, dst, to))
		xrs_fail_connect(rs, errno);
}

static void xrs_resolve_route(struct xrs *rs)
{
	int to = 2000 << (rs->retries < 4 ? rs->retries : 4);

	rs->state = XRS_RESOLVING_ROUTE;
	if (rs->route) {
		if (!rdma_set_option(rs->id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				     rs->route, rs->route_len))
			return;
		/* fall back to the CM's own route */
	}
	if (rdma_resolve_route(rs->id, to))
		xrs_fail_connect(rs, errno);
}

static void xrs_do_connect(struct xrs *rs)
{
	struct rdma_conn_param p;
	uint8_t pd[XRS_CONN_DATA_LEN];

	if (xrs_create_ep(rs)) {
		xrs_fail_connect(rs, errno);
		return;
	}
	xrs_make_conn(rs, pd);
	memset(&p, 0, sizeof(p));
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	rs->state = XRS_CONNECTING;
	rs->retries = 0;
	if (rdma_connect(rs->id, &p))
		xrs_fail_connect(rs, errno);
}

/* One CM event of a stream socket (not a listener's request). */
static void xrs_cm_event(struct xrs *rs, struct rdma_cm_event *ev)
{
	enum rdma_cm_event_type t = ev->event;

	switch (rs->state) {
	case XRS_RESOLVING_ADDR:
		if (t == RDMA_CM_EVENT_ADDR_RESOLVED) {
			rs->retries = 0;
			xrs_resolve_route(rs);
		} else if (t == RDMA_CM_EVENT_ADDR_ERROR &&
			   xrs_event_errno(ev) == ETIMEDOUT && rs->retries++ < XRS_CONN_RETRIES) {
			xrs_resolve_addr(rs, rdma_get_peer_addr(rs->id));
		} else {
			xrs_fail_connect(rs, xrs_event_errno(ev));
		}
		break;
	case XRS_RESOLVING_ROUTE:
		if (t == RDMA_CM_EVENT_ROUTE_RESOLVED)
			xrs_do_connect(rs);
		else if (t == RDMA_CM_EVENT_ROUTE_ERROR &&
			 xrs_event_errno(ev) == ETIMEDOUT && rs->retries++ < XRS_CONN_RETRIES)
			xrs_resolve_route(rs);
		else
			xrs_fail_connect(rs, xrs_event_errno(ev));
		break;
	case XRS_CONNECTING:
		if (t != RDMA_CM_EVENT_ESTABLISHED) {
			xrs_fail_connect(rs, xrs_event_errno(ev));
		} else if (xrs_take_conn(rs, ev->param.conn.private_data,
					 ev->param.conn.private_data_len)) {
			xrs_fail_connect(rs, EPROTO);
		} else {
			rs->state = XRS_CONNECTED;
			rs->rd = rs->wr = 1;
		}
		break;
	case XRS_ACCEPTING:
		if (t == RDMA_CM_EVENT_ESTABLISHED) {
			rs->state = XRS_CONNECTED;
			rs->rd = rs->wr = 1;
		} else {
			xrs_fail_connect(rs, xrs_event_errno(ev));
		}
		break;
	case XRS_CONNECTED:
		if (t == RDMA_CM_EVENT_DISCONNECTED)
			rs->state = XRS_DISCONNECTED;
		else if (t == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			rs->state = XRS_ERROR;
			rs->err = ENODEV;
		}
		break;
	default:
		break;
	}
}

static struct xrs *xrs_accept_request(struct xrs *ls, struct rdma_cm_event *ev);

/*
 * Drain what is pending on @rs without sleeping: CM events (for a
 * listener: requests and its children's events), the completion channel,
 * the CQ; then grant credits.  Called with rs->lock held.
 */
static void xrs_progress(struct xrs *rs)
{
	struct rdma_cm_event *ev;
	struct ibv_cq *cq;
	void *ctx;
	int got = 0;

	if (rs->type != SOCK_STREAM) {
		xds_progress(rs);
		return;
	}
	while (rs->cmch && !rdma_get_cm_event(rs->cmch, &ev)) {
		got = 1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && rs->state == XRS_LISTENING) {
			xrs_accept_request(rs, ev);	/* acks ev */
			continue;
		}
		if (rs->state != XRS_LISTENING)
			xrs_cm_event(rs, ev);
		rdma_ack_cm_event(ev);
	}
	if (rs->state == XRS_LISTENING) {
		struct xrs **pp = &rs->pending, *c;

		while ((c = *pp)) {
			while (c->state == XRS_ACCEPTING && !rdma_get_cm_event(c->cmch, &ev)) {
				got = 1;
				xrs_cm_event(c, ev);
				rdma_ack_cm_event(ev);
			}
			if (c->state == XRS_ACCEPTING) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			xrs_epoll_del(rs, c->cmch->fd);
			c->next = NULL;
			if (c->state == XRS_CONNECTED) {
				if (rs->ready)
					rs->ready_tail->next = c;
				else
					rs->ready = c;
				rs->ready_tail = c;
			} else {
				xrs_stream_free(c);
			}
		}
	}
	/* an event exists only if the CQ was armed since the last one */
	if (rs->cch && rs->cq_armed) {
		while (!ibv_get_cq_event(rs->cch, &cq, &ctx)) {
			got = 1;
			rs->cq_armed = 0;
			if (++rs->unacked >= 256) {
				ibv_ack_cq_events(rs->cq, rs->unacked);
				rs->unacked = 0;
			}
		}
	}
	if (rs->cq && (rs->state == XRS_CONNECTED || rs->state == XRS_DISCONNECTED ||
		       rs->state == XRS_ERROR))
		xrs_poll_cq(rs);
	xrs_credits(rs);
	if (got)
		xrs_note_event(rs);
}

/* Arm the CQ for the next sleep; 1 if that found more work. */
static int xrs_arm(struct xrs *rs)
{
	if (rs->type == SOCK_DGRAM)
		return xds_arm(rs);
	if (!rs->cq || rs->cq_armed || rs->state == XRS_ACCEPTING)
		return 0;
	if (ibv_req_notify_cq(rs->cq, 0))
		return 0;
	rs->cq_armed = 1;
	return 1;
}

/*
 * Wait, with rs->lock held, until @test is true.  Nonblocking: one pass,
 * then EAGAIN.  Otherwise spin briefly, then sleep on rs->fd.
 */
int xrs_wait(struct xrs *rs, int nonblock, int (*test)(struct xrs *rs))
{
	uint64_t start = 0;
	struct pollfd pfd;
	unsigned int gen;
	uint64_t v;

	for (;;) {
		xrs_progress(rs);
		if (test(rs))
			return 0;
		if (nonblock)
			return xrs_err(EAGAIN);
		if (!start)
			start = xrs_now_us();
		if (xrs_now_us() - start <= xrs_polling_us)
			continue;
		if (xrs_arm(rs))
			continue;
		if (rs->waiting) {
			gen = rs->wake_gen;
			while (gen == rs->wake_gen)
				pthread_cond_wait(&rs->cond, &rs->lock);
			continue;
		}
		rs->waiting = 1;
		pthread_mutex_unlock(&rs->lock);
		pfd.fd = rs->fd;
		pfd.events = POLLIN;
		poll(&pfd, 1, xrs_wake_ms);
		if (read(rs->kick_fd, &v, sizeof(v)) < 0)
			v = 0;
		pthread_mutex_lock(&rs->lock);
		rs->waiting = 0;
		rs->wake_gen++;
		pthread_cond_broadcast(&rs->cond);
	}
}

static int xrs_nonblock(const struct xrs *rs, int flags)
{
	return (rs->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

static int xrs_opening(const struct xrs *rs)
{
	return rs->state == XRS_RESOLVING_ADDR || rs->state == XRS_RESOLVING_ROUTE ||
	       rs->state == XRS_CONNECTING || rs->state == XRS_ACCEPTING;
}

static int xrs_not_opening(struct xrs *rs)
{
	return !xrs_opening(rs);
}

static int xrs_have_data(struct xrs *rs)
{
	return rs->rq_head != rs->rq_tail;
}

static int xrs_readable(struct xrs *rs)
{
	return xrs_connected(rs) && rs->rd;
}

static int xrs_data_or_eof(struct xrs *rs)
{
	return xrs_have_data(rs) || !xrs_readable(rs);
}

static int xrs_can_send(struct xrs *rs)
{
	volatile struct xrs_sge *t = xrs_tsgl(rs);

	return rs->sqe_avail > 0 && rs->s_avail >= XRS_SNDLOWAT &&
	       xrs_seq_open(rs->sseq, rs->sseq_limit) && t[rs->tslot].length != 0;
}

static int xrs_writable(struct xrs *rs)
{
	return xrs_connected(rs) && rs->wr;
}

static int xrs_send_or_closed(struct xrs *rs)
{
	return xrs_can_send(rs) || !xrs_writable(rs);
}

static int xrs_ctrl_or_closed(struct xrs *rs)
{
	return rs->ctrl_seq != rs->ctrl_max || !xrs_connected(rs);
}

static int xrs_sends_done(struct xrs *rs)
{
	return (int)(rs->ctrl_max - rs->ctrl_seq) + rs->sqe_avail == rs->sq_size ||
	       !xrs_connected(rs);
}

/* A stream call on a socket still connecting: finish (or not) first. */
static int xrs_finish_open(struct xrs *rs, int flags)
{
	if (!xrs_opening(rs))
		return 0;
	if (xrs_wait(rs, xrs_nonblock(rs, flags), xrs_not_opening))
		return -1;
	if (rs->state == XRS_CONNECT_ERROR)
		return xrs_err(rs->err ? rs->err : ECONNREFUSED);
	return 0;
}

/* --- public: creation, bind, listen, accept, connect ---------------------- */

XRS_EXPORT int rsocket(int domain, int type, int protocol)
{
	struct xrs *rs;

	pthread_once(&xrs_conf_once, xrs_conf_load);
	if ((domain != AF_INET && domain != AF_INET6) ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM) ||
	    (type == SOCK_STREAM && protocol && protocol != IPPROTO_TCP) ||
	    (type == SOCK_DGRAM && protocol && protocol != IPPROTO_UDP))
		return xrs_err(domain == AF_INET || domain == AF_INET6 ?
			       ENOTSUP : EAFNOSUPPORT);
	if (type == SOCK_DGRAM) {
		rs = xrs_new(SOCK_DGRAM, domain);
		if (!rs)
			return -1;
		if (xds_init(rs)) {
			int e = errno;

			xds_free(rs);
			return xrs_err(e);
		}
	} else {
		rs = xrs_stream_new(domain, NULL);
		if (!rs)
			return -1;
		if (rdma_create_id(rs->cmch, &rs->id, rs, RDMA_PS_TCP)) {
			int e = errno;

			xrs_stream_free(rs);
			return xrs_err(e);
		}
	}
	if (xrs_table_set(rs)) {
		if (type == SOCK_DGRAM)
			xds_free(rs);
		else
			xrs_stream_free(rs);
		return xrs_err(ENOMEM);
	}
	return rs->fd;
}

XRS_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct xrs *rs = xrs_get(socket);
	int ret;

	if (!rs)
		return xrs_err(EBADF);
	if (!addr)
		return xrs_err(EFAULT);
	if (rs->type == SOCK_DGRAM)
		return xds_bind(rs, addr, addrlen);
	pthread_mutex_lock(&rs->lock);
	if (rs->state != XRS_INIT) {
		ret = xrs_err(EINVAL);
	} else {
		ret = rdma_bind_addr(rs->id, (struct sockaddr *)addr);
		if (!ret)
			rs->state = XRS_BOUND;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

XRS_EXPORT int rlisten(int socket, int backlog)
{
	struct xrs *rs = xrs_get(socket);
	int ret = 0;

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type != SOCK_STREAM)
		return xrs_err(EOPNOTSUPP);
	pthread_mutex_lock(&rs->lock);
	if (rs->state == XRS_LISTENING)
		goto out;
	if (rs->state != XRS_INIT && rs->state != XRS_BOUND) {
		ret = xrs_err(EINVAL);
		goto out;
	}
	ret = rdma_listen(rs->id, backlog);
	if (!ret)
		rs->state = XRS_LISTENING;
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/*
 * A connection request on listener @ls: a child socket on a channel of
 * its own, its endpoint, and our reply.  It stays on @ls->pending until
 * ESTABLISHED.  Acks @ev.
 */
static struct xrs *xrs_accept_request(struct xrs *ls, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct rdma_conn_param p = ev->param.conn;
	uint8_t req[XRS_CONN_DATA_LEN], rep[XRS_CONN_DATA_LEN];
	int have = 0;
	struct xrs *c;

	if (p.private_data && p.private_data_len >= XRS_CONN_DATA_LEN) {
		memcpy(req, p.private_data, sizeof(req));
		have = 1;
	}
	rdma_ack_cm_event(ev);
	c = xrs_stream_new(ls->domain, ls);
	if (!c || !have || rdma_migrate_id(id, c->cmch))
		goto reject;
	c->id = id;
	id->context = c;
	c->parent = ls;
	if (xrs_create_ep(c) || xrs_take_conn(c, req, sizeof(req)))
		goto reject_own;
	xrs_make_conn(c, rep);
	p.private_data = rep;
	p.private_data_len = sizeof(rep);
	if (rdma_accept(id, &p))
		goto reject_own;
	c->state = XRS_ACCEPTING;
	if (xrs_epoll_add(ls, c->cmch->fd))
		goto reject_own;
	c->next = ls->pending;
	ls->pending = c;
	return c;

reject_own:
	rdma_reject(id, NULL, 0);
	xrs_stream_free(c);	/* destroys id */
	return NULL;
reject:
	rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
	if (c)
		xrs_stream_free(c);
	return NULL;
}

static int xrs_has_ready(struct xrs *rs)
{
	return rs->ready != NULL || rs->state != XRS_LISTENING;
}

XRS_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct xrs *rs = xrs_get(socket), *c;
	int ret;

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type != SOCK_STREAM)
		return xrs_err(EOPNOTSUPP);
	pthread_mutex_lock(&rs->lock);
	if (rs->state != XRS_LISTENING) {
		pthread_mutex_unlock(&rs->lock);
		return xrs_err(EINVAL);
	}
	ret = xrs_wait(rs, xrs_nonblock(rs, 0), xrs_has_ready);
	c = rs->ready;
	if (!ret && c) {
		rs->ready = c->next;
		c->next = NULL;
		c->parent = NULL;
	}
	pthread_mutex_unlock(&rs->lock);
	if (ret)
		return -1;
	if (!c)
		return xrs_err(EINVAL);
	if (xrs_table_set(c)) {
		xrs_stream_free(c);
		return xrs_err(ENOMEM);
	}
	if (addr && addrlen)
		rgetpeername(c->fd, addr, addrlen);
	return c->fd;
}

XRS_EXPORT int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct xrs *rs = xrs_get(socket);
	int ret = 0;

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return xds_connect(rs, addr, addrlen);
	if (!addr || addrlen < sizeof(struct sockaddr_in))
		return xrs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	switch (rs->state) {
	case XRS_INIT:
	case XRS_BOUND: {
		union xrs_addr dst;

		memset(&dst, 0, sizeof(dst));
		memcpy(&dst, addr, addrlen < sizeof(dst) ? addrlen : sizeof(dst));
		rs->retries = 0;
		xrs_resolve_addr(rs, &dst.sa);
		break;
	}
	case XRS_CONNECTED:
		ret = xrs_err(EISCONN);
		goto out;
	case XRS_RESOLVING_ADDR:
	case XRS_RESOLVING_ROUTE:
	case XRS_CONNECTING:
		break;
	case XRS_LISTENING:
		ret = xrs_err(EINVAL);
		goto out;
	default:
		ret = xrs_err(rs->state == XRS_CONNECT_ERROR ? (rs->err ? rs->err : ECONNREFUSED) :
			      ENOTCONN);
		goto out;
	}
	if (xrs_wait(rs, xrs_nonblock(rs, 0), xrs_not_opening)) {
		ret = xrs_err(errno == EAGAIN ? EINPROGRESS : errno);
		goto out;
	}
	if (rs->state == XRS_CONNECT_ERROR) {
		ret = xrs_err(rs->err ? rs->err : ECONNREFUSED);
		rs->err = 0;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/* --- public: receiving ----------------------------------------------------- */

/* Copy up to @len queued bytes; consume them unless @peek. */
static size_t xrs_copy_out(struct xrs *rs, uint8_t *buf, size_t len, int peek)
{
	int head = rs->rq_head;
	uint32_t off = rs->r_off, end;
	size_t done = 0;

	while (done < len && head != rs->rq_tail) {
		uint32_t n = rs->rq[head];

		if (n > len - done) {
			n = (uint32_t)(len - done);
			if (!peek)
				rs->rq[head] -= n;
		} else {
			if (++head == rs->rq_size + 1)
				head = 0;
			if (!peek)
				rs->rseq++;
		}
		while (n) {
			end = rs->rbuf_size - off;
			if (end > n)
				end = n;
			memcpy(buf + done, rs->rbuf + off, end);
			done += end;
			n -= end;
			off += end;
			if (off == rs->rbuf_size)
				off = 0;
			if (!peek)
				rs->r_avail += end;
		}
	}
	if (!peek) {
		rs->rq_head = head;
		rs->r_off = off;
	}
	return done;
}

static ssize_t xrs_recv(struct xrs *rs, void *buf, size_t len, int flags)
{
	size_t done = 0;
	int ret = 0;

	pthread_mutex_lock(&rs->rlock);
	pthread_mutex_lock(&rs->lock);
	if (rs->state == XRS_INIT || rs->state == XRS_BOUND || rs->state == XRS_LISTENING) {
		ret = xrs_err(ENOTCONN);
		goto out;
	}
	if (xrs_finish_open(rs, flags)) {
		ret = -1;
		goto out;
	}
	if (rs->state == XRS_CONNECT_ERROR) {
		ret = xrs_err(ENOTCONN);
		goto out;
	}
	do {
		if (!xrs_have_data(rs)) {
			ret = xrs_wait(rs, xrs_nonblock(rs, flags), xrs_data_or_eof);
			if (ret)
				break;
		}
		if (!xrs_have_data(rs)) {
			if (rs->state == XRS_ERROR && !done) {
				ret = xrs_err(rs->err ? rs->err : ECONNRESET);
			}
			break;
		}
		done += xrs_copy_out(rs, (uint8_t *)buf + done, len - done, flags & MSG_PEEK);
		if (flags & MSG_PEEK)
			break;
	} while (done < len && (flags & MSG_WAITALL) && xrs_readable(rs));
	xrs_credits(rs);
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->rlock);
	if (done)
		return (ssize_t)done;
	return ret ? -1 : 0;
}

XRS_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return xds_recvfrom(rs, buf, len, flags, NULL, NULL);
	return xrs_recv(rs, buf, len, flags);
}

XRS_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
			     struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct xrs *rs = xrs_get(socket);
	ssize_t ret;

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return xds_recvfrom(rs, buf, len, flags, src_addr, addrlen);
	ret = xrs_recv(rs, buf, len, flags);
	if (ret > 0 && src_addr && addrlen)
		rgetpeername(socket, src_addr, addrlen);
	return ret;
}

/* Scatter: fill the vectors in order, as one receive per vector at most. */
static ssize_t xrs_recvv(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	ssize_t total = 0, n;
	int i;

	if (iovcnt < 0 || (iovcnt && !iov))
		return xrs_err(EINVAL);
	for (i = 0; i < iovcnt; i++) {
		if (!iov[i].iov_len)
			continue;
		n = rrecv(socket, iov[i].iov_base, iov[i].iov_len,
			  total ? flags | MSG_DONTWAIT : flags);
		/* a peek looks at the same bytes again: one vector only */
		if (flags & MSG_PEEK)
			return n;
		if (n < 0) {
			if (total)
				break;
			return n;
		}
		total += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	return total;
}

XRS_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (!msg)
		return xrs_err(EFAULT);
	if (msg->msg_control && msg->msg_controllen)
		return xrs_err(ENOTSUP);
	if (rs->type == SOCK_DGRAM) {
		if (msg->msg_iovlen < 1)
			return xrs_err(EINVAL);
		return xds_recvfrom(rs, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len,
				    flags, msg->msg_name,
				    msg->msg_name ? &msg->msg_namelen : NULL);
	}
	return xrs_recvv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

XRS_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

XRS_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return xrs_recvv(socket, iov, iovcnt, 0);
}

/* --- public: sending ------------------------------------------------------- */

/* A cursor over the caller's vectors. */
struct xrs_src {
	const struct iovec *iov;
	int cnt;
	size_t off;
};

static void xrs_src_copy(struct xrs_src *s, uint8_t *dst, size_t len)
{
	while (len) {
		size_t n = s->iov->iov_len - s->off;

		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)s->iov->iov_base + s->off, n);
		dst += n;
		len -= n;
		s->off += n;
		if (s->off == s->iov->iov_len) {
			s->iov++;
			s->cnt--;
			s->off = 0;
		}
	}
}

/* The next bytes are contiguous in the caller's buffer: their address. */
static const void *xrs_src_peek(struct xrs_src *s, size_t len)
{
	while (s->cnt && s->off == s->iov->iov_len) {
		s->iov++;
		s->cnt--;
		s->off = 0;
	}
	if (s->cnt && s->iov->iov_len - s->off >= len)
		return (const uint8_t *)s->iov->iov_base + s->off;
	return NULL;
}

static void xrs_src_skip(struct xrs_src *s, size_t len)
{
	s->off += len;
	if (s->cnt && s->off == s->iov->iov_len) {
		s->iov++;
		s->cnt--;
		s->off = 0;
	}
}

/*
 * Put @len bytes from @s into the send ring (or inline) and post one
 * write to @raddr/@rkey.  The ring is consumed in order; completions
 * arrive in order, so the free space is always just after the head.
 */
static int xrs_post_data(struct xrs *rs, struct xrs_src *s, uint32_t len, int with_imm,
			 uint32_t imm, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sg[2];
	const void *direct;
	int n = 1;

	direct = len <= rs->sq_inline ? xrs_src_peek(s, len) : NULL;
	if (direct) {
		sg[0].addr = (uintptr_t)direct;
		sg[0].length = len;
		sg[0].lkey = 0;
		xrs_src_skip(s, len);
	} else {
		uint32_t first = rs->sbuf_size - rs->s_head;

		if (first > len)
			first = len;
		sg[0].addr = (uintptr_t)rs->sbuf + rs->s_head;
		sg[0].length = first;
		sg[0].lkey = rs->smr->lkey;
		xrs_src_copy(s, rs->sbuf + rs->s_head, first);
		if (first < len) {
			sg[1].addr = (uintptr_t)rs->sbuf;
			sg[1].length = len - first;
			sg[1].lkey = rs->smr->lkey;
			xrs_src_copy(s, rs->sbuf, len - first);
			n = 2;
		}
		rs->s_head = (rs->s_head + len) % rs->sbuf_size;
	}
	rs->sqe_avail--;
	rs->s_avail -= len;
	return xrs_post_write(rs, sg, n, with_imm, imm, imm,
			      len <= rs->sq_inline ? IBV_SEND_INLINE : 0, raddr, rkey);
}

/* Send queued io-map entries to the peer (with rs->lock held). */
static int xrs_send_iomaps(struct xrs *rs, int flags)
{
	struct xrs_iomr *m;
	struct xrs_iomap e;
	struct iovec v = { &e, sizeof(e) };
	struct xrs_src s;
	uint32_t imm;

	for (m = rs->iomaps; m; m = m->next) {
		if (m->slot < 0 || m->sent)
			continue;
		if (!xrs_can_send(rs)) {
			if (xrs_wait(rs, xrs_nonblock(rs, flags), xrs_send_or_closed))
				return -1;
			if (!xrs_writable(rs))
				return xrs_err(ECONNRESET);
		}
		e.offset = m->offset;
		e.sge.addr = (uintptr_t)m->mr->addr;
		e.sge.key = m->mr->rkey;
		e.sge.length = (uint32_t)m->mr->length;
		e = xrs_iomap_for_peer(e, rs->swap);
		s.iov = &v;
		s.cnt = 1;
		s.off = 0;
		rs->sseq++;
		imm = xrs_imm(XRS_OP_IOMAP_SGL, (uint32_t)m->slot);
		if (xrs_post_data(rs, &s, sizeof(e), 1, imm,
				  rs->remote_iomap.addr + sizeof(e) * (uint64_t)m->slot,
				  rs->remote_iomap.key))
			return -1;
		m->sent = 1;
	}
	rs->iomap_pending = 0;
	return 0;
}

static ssize_t xrs_sendv(struct xrs *rs, const struct iovec *iov, int iovcnt, int flags)
{
	volatile struct xrs_sge *t;
	struct xrs_src s = { iov, iovcnt, 0 };
	size_t len = 0, done = 0;
	uint32_t olen = XRS_XFER_START, x, tlen;
	uint64_t raddr;
	int i, ret = 0;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->lock);
	if (rs->state == XRS_INIT || rs->state == XRS_BOUND || rs->state == XRS_LISTENING) {
		ret = xrs_err(ENOTCONN);
		goto out;
	}
	if (xrs_finish_open(rs, flags)) {
		ret = -1;
		goto out;
	}
	if (!xrs_writable(rs)) {
		ret = xrs_err(rs->state == XRS_CONNECTED ? EPIPE : ECONNRESET);
		goto out;
	}
	if (rs->iomap_pending && xrs_send_iomaps(rs, flags)) {
		ret = -1;
		goto out;
	}
	t = xrs_tsgl(rs);
	while (done < len) {
		if (!xrs_can_send(rs)) {
			ret = xrs_wait(rs, xrs_nonblock(rs, flags), xrs_send_or_closed);
			if (ret)
				break;
			if (!xrs_writable(rs)) {
				ret = xrs_err(ECONNRESET);
				break;
			}
		}
		x = len - done > olen ? olen : (uint32_t)(len - done);
		if (olen < XRS_XFER_MAX)
			olen <<= 1;
		if (x > rs->s_avail)
			x = rs->s_avail;
		tlen = t[rs->tslot].length;
		if (x > tlen)
			x = tlen;
		raddr = t[rs->tslot].addr;
		t[rs->tslot].addr = raddr + x;
		t[rs->tslot].length = tlen - x;
		rs->sseq++;
		ret = xrs_post_data(rs, &s, x, 1, xrs_imm(XRS_OP_DATA, x), raddr,
				    t[rs->tslot].key);
		if (tlen == x)
			rs->tslot = (rs->tslot + 1) % XRS_SGL_SIZE;
		if (ret) {
			rs->state = XRS_ERROR;
			rs->err = errno;
			break;
		}
		done += x;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->slock);
	if (done)
		return (ssize_t)done;
	return ret ? -1 : 0;
}

XRS_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	struct xrs *rs = xrs_get(socket);
	struct iovec v = { (void *)buf, len };

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return xds_sendto(rs, &v, 1, flags, NULL, 0);
	return xrs_sendv(rs, &v, 1, flags);
}

XRS_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
			   const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct xrs *rs = xrs_get(socket);
	struct iovec v = { (void *)buf, len };

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return xds_sendto(rs, &v, 1, flags, dest_addr, addrlen);
	if (dest_addr || addrlen)
		return xrs_err(EISCONN);
	return xrs_sendv(rs, &v, 1, flags);
}

XRS_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (!msg)
		return xrs_err(EFAULT);
	if (msg->msg_control && msg->msg_controllen)
		return xrs_err(ENOTSUP);
	if (rs->type == SOCK_DGRAM)
		return xds_sendto(rs, msg->msg_iov, (int)msg->msg_iovlen, flags,
				  msg->msg_name, msg->msg_namelen);
	return xrs_sendv(rs, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

XRS_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

XRS_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (iovcnt < 0 || (iovcnt && !iov))
		return xrs_err(EINVAL);
	if (rs->type == SOCK_DGRAM)
		return xds_sendto(rs, iov, iovcnt, 0, NULL, 0);
	return xrs_sendv(rs, iov, iovcnt, 0);
}

/* --- public: rpoll, rselect ----------------------------------------------- */

/* What @rs reports for @events now; @arm: get ready to sleep. */
static short xrs_poll_one(struct xrs *rs, short events, int arm)
{
	short rev = 0;

	if (rs->type == SOCK_DGRAM)
		return xds_poll(rs, events, arm);
	pthread_mutex_lock(&rs->lock);
again:
	xrs_progress(rs);
	switch (rs->state) {
	case XRS_LISTENING:
		if (rs->ready)
			rev |= events & POLLIN;
		break;
	case XRS_CONNECTED:
	case XRS_DISCONNECTED:
	case XRS_ERROR:
		if (xrs_data_or_eof(rs))
			rev |= events & POLLIN;
		if (xrs_writable(rs) && xrs_can_send(rs))
			rev |= events & POLLOUT;
		/*
		 * Hang-up once what the peer sent before it left is read:
		 * rdma-core reports it at once, so a reader that stops at
		 * POLLHUP (rstream -T a) loses the tail on a slow host.
		 */
		if (rs->state == XRS_DISCONNECTED && !xrs_have_data(rs))
			rev |= POLLHUP;
		else if (rs->state == XRS_ERROR)
			rev |= POLLERR;
		break;
	case XRS_CONNECT_ERROR:
		rev = (short)((events & (POLLIN | POLLOUT)) | POLLERR);
		break;
	default:
		break;
	}
	if (!rev && arm) {
		xrs_drain_kick(rs);
		if (xrs_arm(rs))
			goto again;
	}
	pthread_mutex_unlock(&rs->lock);
	return rev;
}

static int xrs_poll_check(struct pollfd *fds, nfds_t nfds, int arm)
{
	nfds_t i;
	int cnt = 0;

	for (i = 0; i < nfds; i++) {
		struct xrs *rs = xrs_get(fds[i].fd);

		if (rs) {
			fds[i].revents = xrs_poll_one(rs, fds[i].events, arm);
		} else {
			fds[i].revents = 0;
			if (fds[i].fd >= 0)
				poll(&fds[i], 1, 0);
		}
		if (fds[i].revents)
			cnt++;
	}
	return cnt;
}

XRS_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd *pf;
	uint64_t start = xrs_now_us(), el;
	int ret, gfd;
	nfds_t i;

	if (nfds && !fds)
		return xrs_err(EFAULT);
	do {
		ret = xrs_poll_check(fds, nfds, 0);
		if (ret || !timeout)
			return ret;
	} while (xrs_now_us() - start <= xrs_polling_us);

	gfd = xrs_gate_fd();
	if (gfd < 0)
		return -1;
	pf = calloc(nfds + 1, sizeof(*pf));
	if (!pf)
		return xrs_err(ENOMEM);
	for (;;) {
		ret = xrs_poll_check(fds, nfds, 1);
		if (ret)
			break;
		for (i = 0; i < nfds; i++) {
			struct xrs *rs = xrs_get(fds[i].fd);

			pf[i].fd = rs ? rs->fd : fds[i].fd;
			pf[i].events = rs ? POLLIN : fds[i].events;
			pf[i].revents = 0;
		}
		pf[nfds].fd = gfd;
		pf[nfds].events = POLLIN;
		pf[nfds].revents = 0;
		int sl = xrs_wake_ms;

		if (timeout >= 0) {
			el = (xrs_now_us() - start) / 1000;
			if (el >= (uint64_t)timeout) {
				ret = 0;
				break;
			}
			if ((uint64_t)timeout - el < (uint64_t)sl)
				sl = (int)((uint64_t)timeout - el);
		}
		if (xrs_gate_enter())
			continue;
		ret = poll(pf, nfds + 1, sl);
		xrs_gate_leave(ret > 0);
		if (ret < 0)
			break;
		/* normal fds report what poll saw; rsockets are re-checked */
		ret = 0;
		for (i = 0; i < nfds; i++) {
			if (xrs_get(fds[i].fd))
				continue;
			fds[i].revents = pf[i].revents;
			if (fds[i].revents)
				ret++;
		}
		if (ret) {
			for (i = 0; i < nfds; i++) {
				struct xrs *rs = xrs_get(fds[i].fd);

				if (rs)
					fds[i].revents = xrs_poll_one(rs, fds[i].events, 0);
				if (rs && fds[i].revents)
					ret++;
			}
			break;
		}
	}
	free(pf);
	return ret;
}

XRS_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds,
		       fd_set *exceptfds, struct timeval *timeout)
{
	struct pollfd *pf;
	int fd, n = 0, ret, to;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return xrs_err(EINVAL);
	pf = calloc(nfds ? (size_t)nfds : 1, sizeof(*pf));
	if (!pf)
		return xrs_err(ENOMEM);
	for (fd = 0; fd < nfds; fd++) {
		short ev = 0;
		int want = 0;

		if (readfds && FD_ISSET(fd, readfds)) {
			ev |= POLLIN;
			want = 1;
		}
		if (writefds && FD_ISSET(fd, writefds)) {
			ev |= POLLOUT;
			want = 1;
		}
		if (exceptfds && FD_ISSET(fd, exceptfds))
			want = 1;
		if (!want)
			continue;
		pf[n].fd = fd;
		pf[n].events = ev;
		n++;
	}
	if (!timeout)
		to = -1;
	else if (timeout->tv_sec < 0 || timeout->tv_usec < 0)
		to = 0;
	else
		to = (int)(timeout->tv_sec * 1000 + (timeout->tv_usec + 999) / 1000);
	ret = rpoll(pf, (nfds_t)n, to);
	if (ret < 0) {
		free(pf);
		return -1;
	}
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	ret = 0;
	for (fd = 0; fd < n; fd++) {
		if (readfds && (pf[fd].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    (pf[fd].events & POLLIN)) {
			FD_SET(pf[fd].fd, readfds);
			ret++;
		}
		if (writefds && (pf[fd].revents & (POLLOUT | POLLERR)) &&
		    (pf[fd].events & POLLOUT)) {
			FD_SET(pf[fd].fd, writefds);
			ret++;
		}
		if (exceptfds && (pf[fd].revents & (POLLPRI | POLLERR))) {
			FD_SET(pf[fd].fd, exceptfds);
			ret++;
		}
	}
	free(pf);
	return ret;
}

/* --- public: shutdown and close ------------------------------------------- */

static int xrs_shutdown(struct xrs *rs, int how)
{
	unsigned int ctrl;
	int ret = 0;

	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return xrs_err(EINVAL);
	pthread_mutex_lock(&rs->lock);
	xrs_progress(rs);
	if (rs->state != XRS_CONNECTED) {
		if (rs->state != XRS_DISCONNECTED && rs->state != XRS_ERROR)
			ret = xrs_err(ENOTCONN);
		goto out;
	}
	if (how == SHUT_RDWR) {
		rs->rd = rs->wr = 0;
		ctrl = XRS_CTRL_DISCONNECT;
	} else if (how == SHUT_WR) {
		rs->wr = 0;
		ctrl = rs->rd ? XRS_CTRL_SHUTDOWN : XRS_CTRL_DISCONNECT;
	} else {
		rs->rd = 0;
		if (rs->wr)
			goto out;
		ctrl = XRS_CTRL_DISCONNECT;
	}
	/* the goodbye is sent even on a non-blocking socket, as TCP's FIN is */
	if (xrs_wait(rs, 0, xrs_ctrl_or_closed))
		goto out;
	if (xrs_connected(rs)) {
		rs->ctrl_seq++;
		if (xrs_post_msg(rs, xrs_imm(XRS_OP_CTRL, ctrl))) {
			rs->state = XRS_ERROR;
			rs->err = errno;
		}
	}
	if (xrs_connected(rs))
		xrs_wait(rs, 0, xrs_sends_done);
out:
	if (rs->state == XRS_DISCONNECTED && rs->id && rs->id->qp)
		rdma_disconnect(rs->id);
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

XRS_EXPORT int rshutdown(int socket, int how)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return 0;
	return xrs_shutdown(rs, how);
}

XRS_EXPORT int rclose(int socket)
{
	struct xrs *rs = xrs_get(socket), *c;

	if (!rs)
		return xrs_err(EBADF);
	xrs_table_clear(rs);
	if (rs->type == SOCK_DGRAM) {
		xds_close(rs);
		return 0;
	}
	if (rs->state == XRS_CONNECTED)
		xrs_shutdown(rs, SHUT_RDWR);
	while ((c = rs->pending)) {
		rs->pending = c->next;
		xrs_stream_free(c);
	}
	while ((c = rs->ready)) {
		rs->ready = c->next;
		xrs_stream_free(c);
	}
	xrs_stream_free(rs);
	return 0;
}

/* --- public: names and options ---------------------------------------------- */

static void xrs_copy_addr(struct sockaddr *dst, socklen_t *len, const struct sockaddr *src)
{
	socklen_t sz = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			sizeof(struct sockaddr_in);

	memcpy(dst, src, *len < sz ? *len : sz);
	*len = sz;
}

XRS_EXPORT int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct xrs *rs = xrs_get(socket);

	if (!rs)
		return xrs_err(EBADF);
	if (!addr || !addrlen)
		return xrs_err(EFAULT);
	if (rs->type == SOCK_DGRAM)
		return xds_getname(rs, addr, addrlen, 1);
	if (rs->state == XRS_INIT || rs->state == XRS_BOUND || rs->state == XRS_LISTENING)
		return xrs_err(ENOTCONN);
	xrs_copy_addr(addr, addrlen, rdma_get_peer_addr(rs->id));
	return 0;
}

XRS_EXPORT int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct xrs *rs = xrs_get(socket);
	union xrs_addr any;

	if (!rs)
		return xrs_err(EBADF);
	if (!addr || !addrlen)
		return xrs_err(EFAULT);
	if (rs->type == SOCK_DGRAM)
		return xds_getname(rs, addr, addrlen, 0);
	if (rdma_get_local_addr(rs->id)->sa_family) {
		xrs_copy_addr(addr, addrlen, rdma_get_local_addr(rs->id));
		return 0;
	}
	memset(&any, 0, sizeof(any));
	any.sa.sa_family = (sa_family_t)rs->domain;
	xrs_copy_addr(addr, addrlen, &any.sa);
	return 0;
}

static int xrs_int_opt(const void *val, socklen_t len, int *out)
{
	if (!val || len < sizeof(int))
		return xrs_err(EINVAL);
	memcpy(out, val, sizeof(int));
	return 0;
}

static void xrs_opt_bit(uint64_t *set, int name, int on)
{
	if (name < 0 || name >= 64)
		return;
	if (on)
		*set |= 1ULL << name;
	else
		*set &= ~(1ULL << name);
}

XRS_EXPORT int rsetsockopt(int socket, int level, int optname,
			   const void *optval, socklen_t optlen)
{
	struct xrs *rs = xrs_get(socket);
	int v = 0, ret = 0;

	if (!rs)
		return xrs_err(EBADF);
	if (rs->type == SOCK_DGRAM && level != SOL_RDMA) {
		ret = xds_setsockopt(rs, level, optname, optval, optlen);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&rs->lock);
	switch (level) {
	case SOL_SOCKET:
		if (optname == SO_LINGER) {
			if (!optval || optlen < sizeof(struct linger)) {
				ret = xrs_err(EINVAL);
				break;
			}
			/* stored inverted: lingering (the default) is bit clear */
			xrs_opt_bit(&rs->so_opts, optname,
				    !((const struct linger *)optval)->l_onoff);
			break;
		}
		if (xrs_int_opt(optval, optlen, &v)) {
			ret = -1;
			break;
		}
		switch (optname) {
		case SO_REUSEADDR:
			/* best effort, as rdma-core: a CM that cannot reuse still binds */
			if (rs->type == SOCK_STREAM)
				rdma_set_option(rs->id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
						&v, sizeof(v));
			xrs_opt_bit(&rs->so_opts, optname, v);
			break;
		case SO_RCVBUF:
			if (v <= 0 || v > (1 << 30)) {
				ret = xrs_err(EINVAL);
				break;
			}
			if (!rs->rbuf && !rs->dg)
				rs->rbuf_size = (uint32_t)v << 1;
			break;
		case SO_SNDBUF:
			if (v <= 0 || v > (1 << 30)) {
				ret = xrs_err(EINVAL);
				break;
			}
			if (!rs->sbuf && !rs->dg)
				rs->sbuf_size = (uint32_t)v << 1;
			if (rs->sbuf_size < XRS_SNDLOWAT)
				rs->sbuf_size = XRS_SNDLOWAT << 1;
			break;
		case SO_KEEPALIVE:
			/* accepted and remembered; no keep-alive messages are sent */
			if (!rs->keepalive_time)
				rs->keepalive_time = 7200;
			xrs_opt_bit(&rs->so_opts, optname, v);
			break;
		case SO_OOBINLINE:
			xrs_opt_bit(&rs->so_opts, optname, v);
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	case IPPROTO_TCP:
		if (xrs_int_opt(optval, optlen, &v)) {
			ret = -1;
			break;
		}
		switch (optname) {
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
		case TCP_MAXSEG:
			break;
		case TCP_KEEPIDLE:
			if (v <= 0)
				ret = xrs_err(EINVAL);
			else
				rs->keepalive_time = (unsigned int)v;
			break;
		case TCP_NODELAY:
			xrs_opt_bit(&rs->tcp_opts, optname, v);
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	case IPPROTO_IPV6:
		if (xrs_int_opt(optval, optlen, &v)) {
			ret = -1;
			break;
		}
		if (optname != IPV6_V6ONLY) {
			ret = xrs_err(ENOTSUP);
			break;
		}
		if (rs->type == SOCK_STREAM &&
		    rdma_set_option(rs->id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &v, sizeof(v))) {
			ret = -1;
			break;
		}
		xrs_opt_bit(&rs->ipv6_opts, optname, v);
		break;
	case SOL_RDMA:
		if (rs->state != XRS_INIT && rs->state != XRS_BOUND &&
		    rs->state != XRS_LISTENING) {
			ret = xrs_err(EINVAL);
			break;
		}
		if (rs->dg && rs->state == XRS_DGRAM) {
			ret = xrs_err(EINVAL);
			break;
		}
		if (optname == RDMA_ROUTE) {
			void *p;

			if (!optval || !optlen) {
				ret = xrs_err(EINVAL);
				break;
			}
			p = malloc(optlen);
			if (!p) {
				ret = xrs_err(ENOMEM);
				break;
			}
			memcpy(p, optval, optlen);
			free(rs->route);
			rs->route = p;
			rs->route_len = optlen;
			break;
		}
		if (xrs_int_opt(optval, optlen, &v)) {
			ret = -1;
			break;
		}
		if (v < 0) {
			ret = xrs_err(EINVAL);
			break;
		}
		switch (optname) {
		case RDMA_SQSIZE:
			rs->sq_size = (uint16_t)(v > XRS_QP_MAX_SIZE ? XRS_QP_MAX_SIZE : v);
			break;
		case RDMA_RQSIZE:
			rs->rq_size = (uint16_t)(v > XRS_QP_MAX_SIZE ? XRS_QP_MAX_SIZE : v);
			break;
		case RDMA_INLINE:
			rs->sq_inline = (uint16_t)(v > XRS_QP_MAX_SIZE ? XRS_QP_MAX_SIZE : v);
			break;
		case RDMA_IOMAPSIZE:
			rs->iomap_size = xrs_iomap_round((unsigned int)v);
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	default:
		if (rs->type != SOCK_DGRAM)
			ret = xrs_err(ENOTSUP);
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/* An SA path record as the struct ibv_path_data RDMA_ROUTE hands out. */
static void xrs_path_data(const struct ibv_sa_path_rec *p, struct ibv_path_data *d)
{
	memset(d, 0, sizeof(*d));
	d->path.dgid = p->dgid;
	d->path.sgid = p->sgid;
	d->path.dlid = p->dlid;
	d->path.slid = p->slid;
	d->path.flowlabel_hoplimit = htobe32((be32toh(p->flow_label) << 8) | p->hop_limit);
	d->path.tclass = p->traffic_class;
	d->path.reversible_numpath = (uint8_t)((p->reversible << 7) | 1);
	d->path.pkey = p->pkey;
	d->path.qosclass_sl = htobe16((uint16_t)p->sl);
	d->path.mtu = (uint8_t)(p->mtu | (2 << 6));
	d->path.rate = (uint8_t)(p->rate | (2 << 6));
	d->path.packetlifetime = (uint8_t)(p->packet_life_time | (2 << 6));
	d->flags = (uint32_t)p->preference;
}

static int xrs_put_int(void *val, socklen_t *len, int v)
{
	if (*len < sizeof(int))
		return xrs_err(EINVAL);
	memcpy(val, &v, sizeof(v));
	*len = sizeof(int);
	return 0;
}

XRS_EXPORT int rgetsockopt(int socket, int level, int optname,
			   void *optval, socklen_t *optlen)
{
	struct xrs *rs = xrs_get(socket);
	int ret = 0;

	if (!rs)
		return xrs_err(EBADF);
	if (!optval || !optlen)
		return xrs_err(EFAULT);
	pthread_mutex_lock(&rs->lock);
	switch (level) {
	case SOL_SOCKET:
		switch (optname) {
		case SO_REUSEADDR:
		case SO_KEEPALIVE:
		case SO_OOBINLINE:
			ret = xrs_put_int(optval, optlen, !!(rs->so_opts & (1ULL << optname)));
			break;
		case SO_RCVBUF:
			ret = xrs_put_int(optval, optlen, (int)rs->rbuf_size);
			break;
		case SO_SNDBUF:
			ret = xrs_put_int(optval, optlen, (int)rs->sbuf_size);
			break;
		case SO_LINGER: {
			struct linger l = { !(rs->so_opts & (1ULL << SO_LINGER)), 0 };

			if (*optlen < sizeof(l)) {
				ret = xrs_err(EINVAL);
				break;
			}
			memcpy(optval, &l, sizeof(l));
			*optlen = sizeof(l);
			break;
		}
		case SO_ERROR:
			ret = xrs_put_int(optval, optlen, rs->err);
			if (!ret)
				rs->err = 0;
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	case IPPROTO_TCP:
		switch (optname) {
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
			ret = xrs_put_int(optval, optlen, 1);
			break;
		case TCP_KEEPIDLE:
			ret = xrs_put_int(optval, optlen, (int)rs->keepalive_time);
			break;
		case TCP_NODELAY:
			ret = xrs_put_int(optval, optlen, !!(rs->tcp_opts & (1ULL << optname)));
			break;
		case TCP_MAXSEG:
			ret = xrs_put_int(optval, optlen,
					  rs->id && rs->id->route.num_paths && rs->id->route.path_rec ?
					  1 << (7 + rs->id->route.path_rec->mtu) : 2048);
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	case IPPROTO_IPV6:
		if (optname == IPV6_V6ONLY)
			ret = xrs_put_int(optval, optlen, !!(rs->ipv6_opts & (1ULL << optname)));
		else
			ret = xrs_err(ENOTSUP);
		break;
	case SOL_RDMA:
		switch (optname) {
		case RDMA_SQSIZE:
			ret = xrs_put_int(optval, optlen, rs->sq_size);
			break;
		case RDMA_RQSIZE:
			ret = xrs_put_int(optval, optlen, rs->rq_size);
			break;
		case RDMA_INLINE:
			ret = xrs_put_int(optval, optlen, rs->sq_inline);
			break;
		case RDMA_IOMAPSIZE:
			ret = xrs_put_int(optval, optlen, (int)rs->iomap_size);
			break;
		case RDMA_ROUTE:
			if (rs->route) {
				if (*optlen < rs->route_len) {
					ret = xrs_err(EINVAL);
					break;
				}
				memcpy(optval, rs->route, rs->route_len);
				*optlen = (socklen_t)rs->route_len;
			} else if (rs->id && rs->id->route.num_paths > 0) {
				socklen_t got = 0;
				int i;

				if (*optlen < sizeof(struct ibv_path_data)) {
					ret = xrs_err(EINVAL);
					break;
				}
				for (i = 0; i < rs->id->route.num_paths &&
				     got + sizeof(struct ibv_path_data) <= *optlen; i++) {
					struct ibv_path_data d;

					xrs_path_data(&rs->id->route.path_rec[i], &d);
					memcpy((uint8_t *)optval + got, &d, sizeof(d));
					got += sizeof(d);
				}
				*optlen = got;
			} else {
				*optlen = 0;
			}
			break;
		default:
			ret = xrs_err(ENOTSUP);
			break;
		}
		break;
	default:
		ret = xrs_err(ENOTSUP);
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

XRS_EXPORT int rfcntl(int socket, int cmd, ...)
{
	struct xrs *rs = xrs_get(socket);
	va_list ap;
	int v, ret = 0;

	if (!rs)
		return xrs_err(EBADF);
	va_start(ap, cmd);
	switch (cmd) {
	case F_GETFL:
		ret = rs->fd_flags;
		break;
	case F_SETFL:
		v = va_arg(ap, int);
		pthread_mutex_lock(&rs->lock);
		rs->fd_flags = v;
		pthread_mutex_unlock(&rs->lock);
		break;
	default:
		ret = xrs_err(ENOTSUP);
		break;
	}
	va_end(ap);
	return ret;
}

/* --- public: io-mapping ------------------------------------------------------ */

XRS_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
			off_t offset)
{
	struct xrs *rs = xrs_get(socket);
	struct xrs_iomr *m;
	int access = IBV_ACCESS_LOCAL_WRITE, slot = -1;
	unsigned int i;

	(void)flags;
	if (!rs)
		return xrs_err(EBADF);
	if (rs->type != SOCK_STREAM || !buf || !len || (prot & ~(PROT_WRITE | PROT_NONE)))
		return xrs_err(EINVAL);
	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->lock);
	if (!rs->id || !rs->id->pd || !rs->rbuf) {
		slot = -2;
		goto out;
	}
	if (prot & PROT_WRITE) {
		if (!rs->remote_slots && rs->remote_iomap.length) {
			rs->remote_slots = calloc(rs->remote_iomap.length, sizeof(*rs->remote_slots));
			if (!rs->remote_slots) {
				slot = -3;
				goto out;
			}
		}
		for (i = 0; i < rs->remote_iomap.length; i++) {
			if (!rs->remote_slots[i]) {
				slot = (int)i;
				break;
			}
		}
		if (slot < 0) {
			slot = -3;
			goto out;
		}
		access |= IBV_ACCESS_REMOTE_WRITE;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		slot = -3;
		goto out;
	}
	m->mr = ibv_reg_mr(rs->id->pd, buf, len, access);
	if (!m->mr) {
		free(m);
		slot = -4;
		goto out;
	}
	if (offset == -1)
		offset = (off_t)(uintptr_t)buf;
	m->offset = (uint64_t)offset;
	m->slot = slot;
	m->next = rs->iomaps;
	rs->iomaps = m;
	if (slot >= 0) {
		rs->remote_slots[slot] = m;
		rs->iomap_pending = 1;
	}
	slot = 0;
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->slock);
	switch (slot) {
	case -2:
		return xrs_err(EINVAL);
	case -3:
		return xrs_err(ENOMEM);
	case -4:
		return -1;
	default:
		return offset;
	}
}

/* cppcheck-suppress constParameter ; the prototype is rdma-core's */
XRS_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	struct xrs *rs = xrs_get(socket);
	struct xrs_iomr **pp, *m;
	int ret = xrs_err(EINVAL);

	if (!rs)
		return xrs_err(EBADF);
	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->lock);
	for (pp = &rs->iomaps; (m = *pp); pp = &m->next) {
		if (m->mr->addr != buf || m->mr->length != len)
			continue;
		*pp = m->next;
		if (m->slot >= 0 && rs->remote_slots)
			rs->remote_slots[m->slot] = NULL;
		ibv_dereg_mr(m->mr);
		free(m);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

/* The peer's io-map entry covering @off, copied out of the table it writes. */
static int xrs_find_iomap(struct xrs *rs, uint64_t off, struct xrs_iomap *out)
{
	volatile struct xrs_iomap *t = xrs_tiomap(rs);
	unsigned int i;

	for (i = 0; i < rs->iomap_size; i++) {
		struct xrs_iomap e;

		e.offset = t[i].offset;
		e.sge.addr = t[i].sge.addr;
		e.sge.key = t[i].sge.key;
		e.sge.length = t[i].sge.length;
		if (e.sge.length && off >= e.offset && off - e.offset < e.sge.length) {
			*out = e;
			return 0;
		}
	}
	return -1;
}

XRS_EXPORT size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
			   int flags)
{
	struct xrs *rs = xrs_get(socket);
	struct iovec v = { (void *)buf, count };
	struct xrs_src s = { &v, 1, 0 };
	struct xrs_iomap m;
	uint64_t off = (uint64_t)offset;
	uint32_t olen = XRS_XFER_START, x;
	size_t done = 0;
	int ret = 0, have = 0;

	if (!rs)
		return (size_t)xrs_err(EBADF);
	if (rs->type != SOCK_STREAM)
		return (size_t)xrs_err(EOPNOTSUPP);
	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->lock);
	if (!xrs_writable(rs)) {
		ret = xrs_err(xrs_opening(rs) ? EAGAIN : ENOTCONN);
		goto out;
	}
	if (rs->iomap_pending && xrs_send_iomaps(rs, flags)) {
		ret = -1;
		goto out;
	}
	while (done < count) {
		if (!have || off - m.offset >= m.sge.length) {
			if (xrs_find_iomap(rs, off, &m)) {
				ret = xrs_err(EINVAL);
				break;
			}
			have = 1;
		}
		if (!xrs_can_send(rs)) {
			ret = xrs_wait(rs, xrs_nonblock(rs, flags), xrs_send_or_closed);
			if (ret)
				break;
			if (!xrs_writable(rs)) {
				ret = xrs_err(ECONNRESET);
				break;
			}
		}
		x = count - done > olen ? olen : (uint32_t)(count - done);
		if (olen < XRS_XFER_MAX)
			olen <<= 1;
		if (x > rs->s_avail)
			x = rs->s_avail;
		if (x > m.sge.length - (off - m.offset))
			x = (uint32_t)(m.sge.length - (off - m.offset));
		ret = xrs_post_data(rs, &s, x, 0, xrs_imm(XRS_OP_WRITE, x),
				    m.sge.addr + (off - m.offset), m.sge.key);
		if (ret) {
			rs->state = XRS_ERROR;
			rs->err = errno;
			break;
		}
		done += x;
		off += x;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->slock);
	if (done)
		return done;
	return ret ? (size_t)-1 : 0;
}
