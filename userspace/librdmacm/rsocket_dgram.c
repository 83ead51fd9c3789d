// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: datagram rsockets (SOCK_DGRAM over UD QPs), wire compatible
 * with rdma-core 44's (Documentation/rsockets.rst, "Datagrams").
 *
 * Each socket has a UDP socket: it holds the socket's address (rbind,
 * rgetsockname) and is the side channel on which peers learn each other's
 * UD QP.  A message to a destination whose QP is not known yet travels
 * in a UDP datagram (op DATA); the receiver answers with op CTRL naming
 * its QP, and both ends make an address handle: from then on messages
 * go over the UD QP, each with a header naming the sender's address.
 * One UD QP exists per local source address (the one the routing table
 * picks for a destination).
 *
 * Differences from rdma-core (the wire is the same):
 *   - no service thread: the UDP socket is in the rsocket's epoll set and
 *     is read by whichever call looks at the socket, so the first message
 *     of a peer is delivered straight from the UDP socket, not re-sent
 *     through our own QP;
 *   - address handles on RoCE always carry a GRH (rdma-core 44 makes one
 *     only when the path's hop limit exceeds 1, which RoCE refuses);
 *   - a message larger than one receive buffer (2048 bytes less the
 *     header) is refused with EMSGSIZE rather than overrunning it.
 * Locking as for streams (rsocket_int.h): rs->lock guards all of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rsocket_int.h"

#define XDS_BUF		XRS_SNDLOWAT		/* one message slot */
#define XDS_GRH		40
#define XDS_RECV_FLAG	(1ULL << 63)
#define XDS_INBOX	16			/* first messages that came by UDP */
#define XDS_AH_TIMEOUT	2000

struct xds_qp {
	struct xds_qp *next;
	struct xrs *rs;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	int cq_armed;
	union xrs_addr src;		/* the socket's address on this path */
	uint8_t hdr[XRS_DS_IPV6_HDR_LEN];
	size_t hdr_len;
	uint8_t *rbuf;			/* rq_size slots, then the GRH landing */
	struct ibv_mr *rmr;
	struct ibv_mr *smr;
};

struct xds_dest {
	struct xds_dest *next;
	union xrs_addr addr;
	struct xds_qp *qp;
	struct ibv_ah *ah;
	uint32_t qpn;
};

struct xds_rmsg {
	struct xds_qp *qp;
	uint32_t off;
	uint32_t len;
};

struct xds_inmsg {
	union xrs_addr from;
	uint32_t len;
	uint8_t data[XDS_BUF];
};

struct xrs_dgram {
	int udp;
	struct xds_qp *qps;
	struct xds_dest *dests;
	struct xds_dest *conn;		/* rconnect's destination */
	uint8_t *sbuf;			/* sq_size slots */
	int *sfree;			/* free slot stack */
	int nfree;
	struct xds_rmsg *rq;		/* rq_size + 1 */
	int rq_head, rq_tail;
	int rqe_avail;
	struct xds_inmsg *inbox;	/* XDS_INBOX */
	int in_head, in_cnt;
	int ready;			/* buffers made */
};

static socklen_t xds_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

static int xds_same(const union xrs_addr *a, const struct sockaddr *b)
{
	if (a->sa.sa_family != b->sa_family)
		return 0;
	if (b->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)b;

		return a->sin.sin_port == s->sin_port &&
		       a->sin.sin_addr.s_addr == s->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)b;

	return a->sin6.sin6_port == s6->sin6_port &&
	       !memcmp(&a->sin6.sin6_addr, &s6->sin6_addr, 16);
}

int xds_init(struct xrs *rs)
{
	struct xrs_dgram *dg = calloc(1, sizeof(*dg));

	if (!dg)
		return xrs_err(ENOMEM);
	rs->dg = dg;
	dg->udp = socket(rs->domain, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (dg->udp < 0)
		return -1;
	if (xrs_epoll_add(rs, dg->udp))
		return -1;
	rs->state = XRS_INIT;
	return 0;
}

static void xds_free_qp(struct xds_qp *qp)
{
	if (qp->id && qp->id->qp)
		rdma_destroy_qp(qp->id);
	if (qp->smr)
		ibv_dereg_mr(qp->smr);
	if (qp->rmr)
		ibv_dereg_mr(qp->rmr);
	free(qp->rbuf);
	if (qp->cq)
		ibv_destroy_cq(qp->cq);
	if (qp->cch)
		ibv_destroy_comp_channel(qp->cch);
	if (qp->id)
		rdma_destroy_id(qp->id);
	if (qp->ch)
		rdma_destroy_event_channel(qp->ch);
	free(qp);
}

void xds_free(struct xrs *rs)
{
	struct xrs_dgram *dg = rs->dg;
	struct xds_dest *d;
	struct xds_qp *qp;

	if (dg) {
		while ((d = dg->dests)) {
			dg->dests = d->next;
			if (d->ah)
				ibv_destroy_ah(d->ah);
			free(d);
		}
		while ((qp = dg->qps)) {
			dg->qps = qp->next;
			xds_free_qp(qp);
		}
		if (dg->udp >= 0)
			close(dg->udp);
		free(dg->sbuf);
		free(dg->sfree);
		free(dg->rq);
		free(dg->inbox);
		free(dg);
	}
	xrs_free_common(rs);
}

/* Buffers: sizes follow the buffer sizes, one 2048-byte slot per WR. */
static int xds_make_bufs(struct xrs *rs)
{
	struct xrs_dgram *dg = rs->dg;
	int i;

	if (dg->ready)
		return 0;
	if (rs->rq_size > rs->rbuf_size / XDS_BUF)
		rs->rq_size = (uint16_t)(rs->rbuf_size / XDS_BUF);
	else
		rs->rbuf_size = rs->rq_size * XDS_BUF;
	if (rs->sq_size > rs->sbuf_size / XDS_BUF)
		rs->sq_size = (uint16_t)(rs->sbuf_size / XDS_BUF);
	else
		rs->sbuf_size = rs->sq_size * XDS_BUF;
	if (!rs->rq_size || !rs->sq_size)
		return xrs_err(EINVAL);
	dg->sbuf = calloc(rs->sq_size, XDS_BUF);
	dg->sfree = calloc(rs->sq_size, sizeof(int));
	dg->rq = calloc((size_t)rs->rq_size + 1, sizeof(*dg->rq));
	dg->inbox = calloc(XDS_INBOX, sizeof(*dg->inbox));
	if (!dg->sbuf || !dg->sfree || !dg->rq || !dg->inbox)
		return xrs_err(ENOMEM);
	for (i = 0; i < rs->sq_size; i++)
		dg->sfree[i] = i;
	dg->nfree = rs->sq_size;
	dg->rqe_avail = rs->rq_size;
	dg->ready = 1;
	rs->state = XRS_DGRAM;
	return 0;
}

/* An unbound socket gets an ephemeral port: peers answer to it. */
static int xds_autobind(struct xrs *rs)
{
	union xrs_addr a;
	socklen_t len = sizeof(a);

	if (getsockname(rs->dg->udp, &a.sa, &len))
		return -1;
	if ((a.sa.sa_family == AF_INET && a.sin.sin_port) ||
	    (a.sa.sa_family == AF_INET6 && a.sin6.sin6_port))
		return 0;
	memset(&a, 0, sizeof(a));
	a.sa.sa_family = (sa_family_t)rs->domain;
	return bind(rs->dg->udp, &a.sa, xds_len(&a.sa));
}

int xds_bind(struct xrs *rs, const struct sockaddr *addr, socklen_t len)
{
	int ret;

	pthread_mutex_lock(&rs->lock);
	ret = xds_make_bufs(rs);
	if (!ret)
		ret = bind(rs->dg->udp, addr, len);
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

static int xds_post_recv(struct xds_qp *qp, uint32_t off)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sg[2];

	sg[0].addr = (uintptr_t)qp->rbuf + qp->rs->rbuf_size;
	sg[0].length = XDS_GRH;
	sg[0].lkey = qp->rmr->lkey;
	sg[1].addr = (uintptr_t)qp->rbuf + off;
	sg[1].length = XDS_BUF;
	sg[1].lkey = qp->rmr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = XDS_RECV_FLAG | off;
	wr.sg_list = sg;
	wr.num_sge = 2;
	return ibv_post_recv(qp->id->qp, &wr, &bad) ? -1 : 0;
}

/* Wait (bounded) for the next event on a private CM channel. */
static int xds_cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int ok;

	if (poll(&p, 1, XDS_AH_TIMEOUT + 1000) <= 0)
		return xrs_err(ETIMEDOUT);
	if (rdma_get_cm_event(ch, &ev))
		return -1;
	ok = ev->event == want;
	rdma_ack_cm_event(ev);
	return ok ? 0 : xrs_err(EHOSTUNREACH);
}

/* The GID table index of @gid on the id's port, or -1. */
static int xds_gid_index(struct rdma_cm_id *id, const union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	union ibv_gid g;
	int i;

	if (ibv_query_port(id->verbs, id->port_num, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(id->verbs, id->port_num, i, &g))
			continue;
		if (!memcmp(&g, gid, sizeof(g)))
			return i;
	}
	return -1;
}

/* An address handle from @qp's address to @to: resolve it with the CM. */
static struct ibv_ah *xds_make_ah(struct xds_qp *qp, const union xrs_addr *to)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct ibv_sa_path_rec *p;
	struct ibv_port_attr pa;
	struct ibv_ah_attr a;
	struct ibv_ah *ah = NULL;
	union xrs_addr src = qp->src;
	int gi;

	ch = rdma_create_event_channel();
	if (!ch)
		return NULL;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		goto out;
	if (src.sa.sa_family == AF_INET)
		src.sin.sin_port = 0;
	else
		src.sin6.sin6_port = 0;
	if (rdma_resolve_addr(id, &src.sa, (struct sockaddr *)&to->sa, XDS_AH_TIMEOUT) ||
	    xds_cm_wait(ch, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out;
	if (rdma_resolve_route(id, XDS_AH_TIMEOUT) ||
	    xds_cm_wait(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out;
	if (!id->route.num_paths || !id->route.path_rec)
		goto out;
	p = id->route.path_rec;
	memset(&a, 0, sizeof(a));
	if (ibv_query_port(id->verbs, id->port_num, &pa))
		goto out;
	if (p->hop_limit > 1 || pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		gi = xds_gid_index(id, &p->sgid);
		a.is_global = 1;
		a.grh.dgid = p->dgid;
		a.grh.flow_label = be32toh(p->flow_label);
		a.grh.sgid_index = (uint8_t)(gi < 0 ? 0 : gi);
		a.grh.hop_limit = p->hop_limit ? p->hop_limit : 64;
		a.grh.traffic_class = p->traffic_class;
	}
	a.dlid = be16toh(p->dlid);
	a.sl = p->sl;
	a.src_path_bits = (uint8_t)(be16toh(p->slid) & ((1 << pa.lmc) - 1));
	a.static_rate = p->rate;
	a.port_num = id->port_num;
	ah = ibv_create_ah(qp->id->pd, &a);
out:
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return ah;
}

/* Our address toward @to: the UDP socket's, or the one routing picks. */
static int xds_src_for(struct xrs *rs, const struct sockaddr *to, union xrs_addr *src)
{
	socklen_t len = sizeof(*src);
	in_port_t port;
	int s, ret;

	if (getsockname(rs->dg->udp, &src->sa, &len))
		return -1;
	if (src->sa.sa_family == AF_INET) {
		if (src->sin.sin_addr.s_addr != htonl(INADDR_ANY) &&
		    src->sin.sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			return 0;
		port = src->sin.sin_port;
	} else {
		if (memcmp(&src->sin6.sin6_addr, &in6addr_any, 16) &&
		    memcmp(&src->sin6.sin6_addr, &in6addr_loopback, 16))
			return 0;
		port = src->sin6.sin6_port;
	}
	s = socket(to->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	len = sizeof(*src);
	ret = connect(s, to, xds_len(to));
	if (!ret)
		ret = getsockname(s, &src->sa, &len);
	close(s);
	if (ret)
		return -1;
	if (src->sa.sa_family == AF_INET)
		src->sin.sin_port = port;
	else
		src->sin6.sin6_port = port;
	return 0;
}

static struct xds_qp *xds_new_qp(struct xrs *rs, const union xrs_addr *src)
{
	struct xds_qp *qp = calloc(1, sizeof(*qp));
	struct ibv_qp_init_attr qa;
	struct xrs_ds_hdr h;
	union xrs_addr b;
	uint32_t i;

	if (!qp)
		return NULL;
	qp->rs = rs;
	qp->src = *src;
	memset(&h, 0, sizeof(h));
	if (src->sa.sa_family == AF_INET) {
		h.version = 4;
		h.length = XRS_DS_IPV4_HDR_LEN;
		h.port_be = src->sin.sin_port;
		h.addr4_be = src->sin.sin_addr.s_addr;
	} else {
		h.version = 6;
		h.length = XRS_DS_IPV6_HDR_LEN;
		h.port_be = src->sin6.sin6_port;
		h.flowinfo_be = src->sin6.sin6_flowinfo;
		memcpy(h.addr6, &src->sin6.sin6_addr, 16);
	}
	qp->hdr_len = xrs_ds_hdr_pack(qp->hdr, &h);
	qp->ch = rdma_create_event_channel();
	if (!qp->ch || rdma_create_id(qp->ch, &qp->id, qp, RDMA_PS_UDP))
		goto err;
	/* the CM id only picks the device: its own port is not on the wire */
	b = *src;
	if (b.sa.sa_family == AF_INET)
		b.sin.sin_port = 0;
	else
		b.sin6.sin6_port = 0;
	if (rdma_bind_addr(qp->id, &b.sa) || !qp->id->verbs)
		goto err;
	qp->cch = ibv_create_comp_channel(qp->id->verbs);
	if (!qp->cch || xrs_set_nonblock(qp->cch->fd))
		goto err;
	qp->cq = ibv_create_cq(qp->id->verbs, rs->sq_size + rs->rq_size, qp, qp->cch, 0);
	if (!qp->cq)
		goto err;
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = qp;
	qa.send_cq = qp->cq;
	qa.recv_cq = qp->cq;
	qa.qp_type = IBV_QPT_UD;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = rs->sq_size;
	qa.cap.max_recv_wr = rs->rq_size;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 2;
	qa.cap.max_inline_data = rs->sq_inline;
	if (rdma_create_qp(qp->id, NULL, &qa))
		goto err;
	rs->sq_inline = (uint16_t)(qa.cap.max_inline_data > 0xffff ? 0xffff :
				   qa.cap.max_inline_data);
	qp->rbuf = calloc(1, rs->rbuf_size + XDS_GRH);
	if (!qp->rbuf)
		goto err;
	qp->rmr = ibv_reg_mr(qp->id->pd, qp->rbuf, rs->rbuf_size + XDS_GRH,
			     IBV_ACCESS_LOCAL_WRITE);
	qp->smr = ibv_reg_mr(qp->id->pd, rs->dg->sbuf, rs->sbuf_size, IBV_ACCESS_LOCAL_WRITE);
	if (!qp->rmr || !qp->smr)
		goto err;
	for (i = 0; i < rs->rq_size; i++)
		if (xds_post_recv(qp, i * XDS_BUF))
			goto err;
	if (xrs_epoll_add(rs, qp->cch->fd))
		goto err;
	qp->next = rs->dg->qps;
	rs->dg->qps = qp;
	return qp;
err:
	xds_free_qp(qp);
	return NULL;
}

/* The destination entry for @to (made, with its path's QP, if new). */
static struct xds_dest *xds_dest(struct xrs *rs, const struct sockaddr *to)
{
	struct xrs_dgram *dg = rs->dg;
	struct xds_dest *d;
	struct xds_qp *qp;
	union xrs_addr src;

	for (d = dg->dests; d; d = d->next)
		if (xds_same(&d->addr, to))
			return d;
	if (xds_autobind(rs) || xds_src_for(rs, to, &src))
		return NULL;
	for (qp = dg->qps; qp; qp = qp->next)
		if (xds_same(&qp->src, &src.sa))
			break;
	if (!qp) {
		qp = xds_new_qp(rs, &src);
		if (!qp)
			return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(&d->addr, to, xds_len(to));
	d->qp = qp;
	d->next = dg->dests;
	dg->dests = d;
	return d;
}

/* A datagram on the UDP side channel to @d: our QP, our address, payload. */
static ssize_t xds_send_udp(struct xrs *rs, struct xds_dest *d, unsigned int op,
			    const struct iovec *iov, int iovcnt)
{
	struct xrs_udp_hdr h;
	uint8_t hb[XRS_UDP_IPV6_HDR_LEN];
	struct iovec v[9];
	struct msghdr m;
	ssize_t ret;
	size_t hl;

	if (iovcnt > 8)
		return xrs_err(ENOTSUP);
	memset(&h, 0, sizeof(h));
	h.version = d->qp->hdr[0];
	h.op = (uint8_t)op;
	h.qpn = d->qp->id->qp->qp_num;
	if (h.version == 4)
		memcpy(&h.addr4_be, &d->qp->src.sin.sin_addr, 4);
	else
		memcpy(h.addr6, &d->qp->src.sin6.sin6_addr, 16);
	hl = xrs_udp_hdr_pack(hb, &h);
	v[0].iov_base = hb;
	v[0].iov_len = hl;
	if (iovcnt)
		memcpy(&v[1], iov, sizeof(*iov) * (size_t)iovcnt);
	memset(&m, 0, sizeof(m));
	m.msg_name = &d->addr;
	m.msg_namelen = xds_len(&d->addr.sa);
	m.msg_iov = v;
	m.msg_iovlen = (size_t)iovcnt + 1;
	ret = sendmsg(rs->dg->udp, &m, 0);
	return ret < 0 ? -1 : ret - (ssize_t)hl;
}

/* One datagram from the side channel: learn the peer's QP, keep data. */
static void xds_udp_in(struct xrs *rs)
{
	struct xrs_dgram *dg = rs->dg;
	uint8_t buf[XDS_BUF + XRS_UDP_IPV6_HDR_LEN];
	struct xrs_udp_hdr h;
	struct xds_inmsg *in;
	struct xds_dest *d;
	union xrs_addr from;
	socklen_t fl;

	for (;;) {
		ssize_t n;
		size_t hl;

		fl = sizeof(from);
		n = recvfrom(dg->udp, buf, sizeof(buf), 0, &from.sa, &fl);
		if (n < 0)
			return;
		hl = xrs_udp_hdr_unpack(&h, buf, (size_t)n, from.sa.sa_family == AF_INET6);
		if (!hl)
			continue;
		d = xds_dest(rs, &from.sa);
		if (!d)
			continue;
		if (h.op == XRS_OP_DATA)
			xds_send_udp(rs, d, XRS_OP_CTRL, NULL, 0);
		if (!d->ah || d->qpn != h.qpn) {
			if (d->ah)
				ibv_destroy_ah(d->ah);
			d->ah = xds_make_ah(d->qp, &d->addr);
			d->qpn = h.qpn;
		}
		if (h.op != XRS_OP_DATA || dg->in_cnt == XDS_INBOX)
			continue;
		in = &dg->inbox[(dg->in_head + dg->in_cnt) % XDS_INBOX];
		in->from = from;
		in->len = (uint32_t)((size_t)n - hl);
		memcpy(in->data, buf + hl, in->len);
		dg->in_cnt++;
	}
}

static void xds_poll_cqs(struct xrs *rs)
{
	struct xrs_dgram *dg = rs->dg;
	struct xrs_ds_hdr h;
	struct ibv_cq *cq;
	struct xds_qp *qp;
	struct ibv_wc wc;
	uint32_t off;
	void *ctx;
	int got = 0;

	for (qp = dg->qps; qp; qp = qp->next) {
		while (!ibv_get_cq_event(qp->cch, &cq, &ctx)) {
			ibv_ack_cq_events(qp->cq, 1);
			qp->cq_armed = 0;
			got = 1;
		}
		while (ibv_poll_cq(qp->cq, 1, &wc) > 0) {
			if (!(wc.wr_id & XDS_RECV_FLAG)) {
				dg->sfree[dg->nfree++] = (int)(wc.wr_id / XDS_BUF);
				continue;
			}
			off = (uint32_t)wc.wr_id;
			if (wc.status == IBV_WC_WR_FLUSH_ERR)
				continue;
			if (wc.status != IBV_WC_SUCCESS || !dg->rqe_avail ||
			    wc.byte_len < XDS_GRH + XRS_DS_IPV4_HDR_LEN ||
			    !xrs_ds_hdr_unpack(&h, qp->rbuf + off, wc.byte_len - XDS_GRH)) {
				xds_post_recv(qp, off);
				continue;
			}
			dg->rqe_avail--;
			dg->rq[dg->rq_tail].qp = qp;
			dg->rq[dg->rq_tail].off = off;
			dg->rq[dg->rq_tail].len = wc.byte_len - XDS_GRH;
			if (++dg->rq_tail == rs->rq_size + 1)
				dg->rq_tail = 0;
		}
	}
	if (got)
		xrs_note_event(rs);
}

void xds_progress(struct xrs *rs)
{
	/* nothing can arrive before rbind, rconnect or the first send */
	if (!rs->dg || !rs->dg->ready)
		return;
	xds_udp_in(rs);
	xds_poll_cqs(rs);
}

int xds_arm(struct xrs *rs)
{
	struct xds_qp *qp;
	int armed = 0;

	for (qp = rs->dg->qps; qp; qp = qp->next) {
		if (!qp->cq_armed && !ibv_req_notify_cq(qp->cq, 0)) {
			qp->cq_armed = 1;
			armed = 1;
		}
	}
	return armed;
}

static int xds_have_data(struct xrs *rs)
{
	return rs->dg->in_cnt || rs->dg->rq_head != rs->dg->rq_tail;
}

static int xds_can_send(struct xrs *rs)
{
	return rs->dg->nfree > 0;
}

static int xds_nonblock(const struct xrs *rs, int flags)
{
	return (rs->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

int xds_connect(struct xrs *rs, const struct sockaddr *addr, socklen_t len)
{
	struct xds_dest *d;
	int ret;

	pthread_mutex_lock(&rs->lock);
	ret = xds_make_bufs(rs);
	if (!ret)
		ret = connect(rs->dg->udp, addr, len);
	if (!ret) {
		d = xds_dest(rs, addr);
		if (d)
			rs->dg->conn = d;
		else
			ret = -1;
	}
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

ssize_t xds_sendto(struct xrs *rs, const struct iovec *iov, int iovcnt, int flags,
		   const struct sockaddr *to, socklen_t tolen)
{
	struct xrs_dgram *dg = rs->dg;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sg;
	struct xds_dest *d;
	size_t len = 0, off;
	uint8_t *slot;
	ssize_t ret;
	int i, s;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->lock);
	ret = xds_make_bufs(rs);
	if (ret)
		goto out;
	if (to) {
		if (tolen < sizeof(struct sockaddr_in) ||
		    (to->sa_family != AF_INET && to->sa_family != AF_INET6)) {
			ret = xrs_err(EINVAL);
			goto out;
		}
		d = xds_dest(rs, to);
	} else {
		d = dg->conn;
		if (!d) {
			ret = xrs_err(EDESTADDRREQ);
			goto out;
		}
	}
	if (!d) {
		ret = -1;
		goto out;
	}
	if (len + d->qp->hdr_len > XDS_BUF) {
		ret = xrs_err(EMSGSIZE);
		goto out;
	}
	if (!d->ah) {
		/* the peer's QP is unknown: this one goes over UDP */
		ret = xds_send_udp(rs, d, XRS_OP_DATA, iov, iovcnt);
		goto out;
	}
	if (!xds_can_send(rs)) {
		ret = xrs_wait(rs, xds_nonblock(rs, flags), xds_can_send);
		if (ret)
			goto out;
	}
	s = dg->sfree[--dg->nfree];
	slot = dg->sbuf + (size_t)s * XDS_BUF;
	memcpy(slot, d->qp->hdr, d->qp->hdr_len);
	off = d->qp->hdr_len;
	for (i = 0; i < iovcnt; i++) {
		memcpy(slot + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	sg.addr = (uintptr_t)slot;
	sg.length = (uint32_t)off;
	sg.lkey = d->qp->smr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)s * XDS_BUF;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = off <= rs->sq_inline ? IBV_SEND_INLINE : 0;
	wr.wr.ud.ah = d->ah;
	wr.wr.ud.remote_qpn = d->qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	i = ibv_post_send(d->qp->id->qp, &wr, &bad);
	if (i) {
		dg->sfree[dg->nfree++] = s;
		ret = xrs_err(i > 0 ? i : EIO);
	} else {
		ret = (ssize_t)len;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

static void xds_set_from(struct sockaddr *to, socklen_t *tolen, const union xrs_addr *a)
{
	socklen_t n = xds_len(&a->sa);

	if (!to || !tolen)
		return;
	memcpy(to, a, *tolen < n ? *tolen : n);
	*tolen = n;
}

ssize_t xds_recvfrom(struct xrs *rs, void *buf, size_t len, int flags,
		     struct sockaddr *from, socklen_t *fromlen)
{
	struct xrs_dgram *dg = rs->dg;
	struct xrs_ds_hdr h;
	struct xds_rmsg *m;
	union xrs_addr a;
	ssize_t ret;
	size_t n, hl;

	pthread_mutex_lock(&rs->rlock);
	pthread_mutex_lock(&rs->lock);
	ret = xds_make_bufs(rs);
	if (ret)
		goto out;
	ret = xrs_wait(rs, xds_nonblock(rs, flags), xds_have_data);
	if (ret)
		goto out;
	if (dg->in_cnt) {
		struct xds_inmsg *in = &dg->inbox[dg->in_head];

		n = in->len < len ? in->len : len;
		memcpy(buf, in->data, n);
		xds_set_from(from, fromlen, &in->from);
		if (!(flags & MSG_PEEK)) {
			dg->in_head = (dg->in_head + 1) % XDS_INBOX;
			dg->in_cnt--;
		}
		ret = (ssize_t)n;
		goto out;
	}
	m = &dg->rq[dg->rq_head];
	memset(&h, 0, sizeof(h));
	hl = xrs_ds_hdr_unpack(&h, m->qp->rbuf + m->off, m->len);
	n = m->len - hl;
	if (n > len)
		n = len;
	memcpy(buf, m->qp->rbuf + m->off + hl, n);
	memset(&a, 0, sizeof(a));
	if (h.version == 4) {
		a.sin.sin_family = AF_INET;
		a.sin.sin_port = h.port_be;
		a.sin.sin_addr.s_addr = h.addr4_be;
	} else {
		a.sin6.sin6_family = AF_INET6;
		a.sin6.sin6_port = h.port_be;
		a.sin6.sin6_flowinfo = h.flowinfo_be;
		memcpy(&a.sin6.sin6_addr, h.addr6, 16);
	}
	xds_set_from(from, fromlen, &a);
	if (!(flags & MSG_PEEK)) {
		xds_post_recv(m->qp, m->off);
		if (++dg->rq_head == rs->rq_size + 1)
			dg->rq_head = 0;
		dg->rqe_avail++;
	}
	ret = (ssize_t)n;
out:
	pthread_mutex_unlock(&rs->lock);
	pthread_mutex_unlock(&rs->rlock);
	return ret;
}

short xds_poll(struct xrs *rs, short events, int arm)
{
	short rev = 0;

	pthread_mutex_lock(&rs->lock);
	if (xds_make_bufs(rs)) {
		pthread_mutex_unlock(&rs->lock);
		return POLLERR;
	}
again:
	xds_progress(rs);
	if (xds_have_data(rs))
		rev |= events & POLLIN;
	if (xds_can_send(rs))
		rev |= events & POLLOUT;
	if (!rev && arm) {
		xrs_drain_kick(rs);
		if (xds_arm(rs))
			goto again;
	}
	pthread_mutex_unlock(&rs->lock);
	return rev;
}

int xds_getname(struct xrs *rs, struct sockaddr *addr, socklen_t *len, int peer)
{
	return peer ? getpeername(rs->dg->udp, addr, len) :
		      getsockname(rs->dg->udp, addr, len);
}

int xds_setsockopt(struct xrs *rs, int level, int name, const void *val, socklen_t len)
{
	return setsockopt(rs->dg->udp, level, name, val, len);
}

/* Let queued sends finish, then free everything. */
void xds_close(struct xrs *rs)
{
	struct xrs_dgram *dg = rs->dg;
	uint64_t until = 0;
	struct pollfd p = { .fd = rs->fd, .events = POLLIN };

	pthread_mutex_lock(&rs->lock);
	while (dg->ready && dg->nfree < rs->sq_size && until++ < 100) {
		xds_progress(rs);
		if (dg->nfree == rs->sq_size || xds_arm(rs))
			continue;
		poll(&p, 1, 10);
	}
	pthread_mutex_unlock(&rs->lock);
	xds_free(rs);
}
