// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fast path: the ibv_context ops the header inlines of applications
 * call (ibv_post_send, ibv_post_recv, ibv_post_srq_recv, ibv_poll_cq,
 * ibv_req_notify_cq).  No allocation, no system call except the one
 * KICK per chain libxib makes when the HCA's engine sleeps.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ibverbs.h"

/* SGEs and receive WRs are handed to libxib as they are. */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct xib_sge) &&
	       offsetof(struct ibv_sge, addr) == offsetof(struct xib_sge, addr) &&
	       offsetof(struct ibv_sge, length) == offsetof(struct xib_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct xib_sge, lkey), "sge");
_Static_assert(sizeof(struct ibv_recv_wr) == sizeof(struct xib_recv_wr) &&
	       offsetof(struct ibv_recv_wr, wr_id) == offsetof(struct xib_recv_wr, wr_id) &&
	       offsetof(struct ibv_recv_wr, next) == offsetof(struct xib_recv_wr, next) &&
	       offsetof(struct ibv_recv_wr, sg_list) == offsetof(struct xib_recv_wr, sg_list) &&
	       offsetof(struct ibv_recv_wr, num_sge) == offsetof(struct xib_recv_wr, num_sge),
	       "recv wr");
/* Opcodes, flags and statuses have libibverbs' values (hca-abi.h). */
_Static_assert(XV_SAME(IBV_WR_RDMA_READ, XIB_HCA_WR_RDMA_READ) &&
	       XV_SAME(IBV_WR_SEND_WITH_IMM, XIB_HCA_WR_SEND_WITH_IMM) &&
	       XV_SAME(IBV_WR_ATOMIC_FETCH_AND_ADD, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD), "wr opcodes");
_Static_assert(XV_SAME(IBV_SEND_INLINE, XIB_HCA_SEND_INLINE) &&
	       XV_SAME(IBV_SEND_SIGNALED, XIB_HCA_SEND_SIGNALED), "send flags");
_Static_assert(XV_SAME(IBV_WC_RECV, XIB_HCA_WC_RECV) &&
	       XV_SAME(IBV_WC_RECV_RDMA_WITH_IMM, XIB_HCA_WC_RECV_RDMA_WITH_IMM) &&
	       XV_SAME(IBV_WC_GENERAL_ERR, XIB_HCA_WC_GENERAL_ERR), "wc values");
_Static_assert(XV_SAME(IBV_WC_GRH, XIB_HCA_WC_GRH) && XV_SAME(IBV_WC_WITH_IMM, XIB_HCA_WC_WITH_IMM),
	       "wc flags");

#define XV_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
			 IBV_SEND_INLINE)

/* RC and XRC initiators: the reliable connected requesters. */
static int xv_rc(const struct xib_qp *xq)
{
	return xq->qp_type == IBV_QPT_RC || xq->qp_type == IBV_QPT_XRC_SEND;
}

/*
 * A BIND_MW WR: type 2 windows through ibv_post_send, type 1 only through
 * ibv_bind_mw (@type1); RC and UC QPs.  The HCA checks the rest.
 */
static int bind_wr_to_x(const struct xv_qp *qp, const struct ibv_send_wr *wr,
			struct xib_send_wr *x, int type1)
{
	const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;
	const struct ibv_mw *mw = wr->bind_mw.mw;

	if (!xv_rc(qp->x) && qp->x->qp_type != IBV_QPT_UC)
		return EINVAL;
	if (!mw || mw->type != (type1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2))
		return EINVAL;
	if ((b->length && !b->mr) || (b->mw_access_flags & ~0xffffu))
		return EINVAL;
	x->sg_list = NULL;
	x->num_sge = 0;
	x->wr.bind.addr = b->addr;
	x->wr.bind.length = b->length;
	x->wr.bind.mw_rkey = mw->rkey;
	x->wr.bind.new_rkey = wr->bind_mw.rkey;
	x->wr.bind.mr_lkey = b->mr ? b->mr->lkey : 0;
	x->wr.bind.access = b->mw_access_flags;
	x->wr.bind.flags = type1 ? XIB_HCA_BIND_TYPE1 : 0;
	return 0;
}

/* One ibv_send_wr as a libxib WR; 0 or a positive errno. */
static int send_wr_to_x(const struct xv_qp *qp, const struct ibv_send_wr *wr,
			struct xib_send_wr *x, int type1)
{
	const struct xib_qp *xq = qp->x;

	if (wr->send_flags & ~(unsigned int)XV_SEND_FLAGS)
		return (wr->send_flags & IBV_SEND_IP_CSUM) ? EOPNOTSUPP : EINVAL;
	x->wr_id = wr->wr_id;
	x->next = NULL;
	x->sg_list = (struct xib_sge *)wr->sg_list;
	x->num_sge = wr->num_sge;
	x->opcode = wr->opcode;
	x->send_flags = wr->send_flags;
	x->imm_data = wr->imm_data;
	x->xrc_remote_srqn = wr->qp_type.xrc.remote_srqn;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (xq->qp_type == IBV_QPT_UD) {
			if (!wr->wr.ud.ah)
				return EINVAL;
			x->wr.ud.ah = to_xah(wr->wr.ud.ah)->x;
			x->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			x->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		return 0;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		/* WRITEs on RC and UC; READs on RC only (no UC READ exists) */
		if (!xv_rc(xq) &&
		    (xq->qp_type != IBV_QPT_UC || wr->opcode == IBV_WR_RDMA_READ))
			return EINVAL;
		x->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		x->wr.rdma.rkey = wr->wr.rdma.rkey;
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (xq->ctx->attr.atomic_cap == IBV_ATOMIC_NONE)
			return EOPNOTSUPP;
		if (!xv_rc(xq))
			return EINVAL;
		x->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		x->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		x->wr.atomic.swap = wr->wr.atomic.swap;
		x->wr.atomic.rkey = wr->wr.atomic.rkey;
		return 0;
	case IBV_WR_BIND_MW:
		return bind_wr_to_x(qp, wr, x, type1);
	case IBV_WR_LOCAL_INV:
		/* imm_data above copied invalidate_rkey (a union) */
		if (!xv_rc(xq) && xq->qp_type != IBV_QPT_UC)
			return EINVAL;
		x->sg_list = NULL;
		x->num_sge = 0;
		return 0;
	case IBV_WR_SEND_WITH_INV:
		/* the IBTA has SEND with invalidate on RC and XRC */
		return xv_rc(xq) ? 0 : EINVAL;
	case IBV_WR_TSO:
	case IBV_WR_DRIVER1:
	case IBV_WR_ATOMIC_WRITE:
		return EOPNOTSUPP;	/* no LSO, ... on xib */
	default:
		return EINVAL;
	}
}

/* Post a chain; @type1: it is ibv_bind_mw's one BIND_MW WR. */
int xv_post_bind(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr,
		 int type1)
{
	struct xv_qp *qp = to_xqp(ibqp);
	struct xib_send_wr x;
	int ret;

	ret = xib_sq_begin(qp->x);
	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	for (; wr; wr = wr->next) {
		ret = send_wr_to_x(qp, wr, &x, type1);
		if (!ret)
			ret = xib_sq_put(qp->x, &x);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	xib_sq_end(qp->x);
	return ret;
}

int xv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	return xv_post_bind(ibqp, wr, bad_wr, 0);
}

int xv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return xib_post_recv(to_xqp(ibqp)->x, (struct xib_recv_wr *)wr,
			     (struct xib_recv_wr **)bad_wr);
}

int xv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return xib_post_srq_recv(to_xsrq(srq)->x, (struct xib_recv_wr *)wr,
				 (struct xib_recv_wr **)bad_wr);
}

#define XV_POLL_BATCH	16

int xv_poll_cq(struct ibv_cq *ibcq, int num, struct ibv_wc *wc)
{
	struct xib_cq *cq = to_xcq(ibcq)->x;
	xib_wc buf[XV_POLL_BATCH];
	int total = 0;

	if (num < 0)
		return -EINVAL;
	while (total < num) {
		int want = num - total < XV_POLL_BATCH ? num - total : XV_POLL_BATCH;
		int got = xib_poll_cq(cq, want, buf);
		int i;

		if (got < 0)
			return total ? total : got;
		for (i = 0; i < got; i++) {
			const xib_wc *c = &buf[i];
			struct ibv_wc *w = &wc[total + i];

			w->wr_id = c->wr_id;
			w->status = (enum ibv_wc_status)c->status;
			w->opcode = (enum ibv_wc_opcode)c->opcode;
			w->vendor_err = c->vendor_err;
			w->byte_len = c->byte_len;
			w->imm_data = c->imm_data;
			w->qp_num = c->qp_num;
			w->src_qp = c->src_qp;
			w->wc_flags = c->wc_flags;
			w->pkey_index = c->pkey_index;
			w->slid = c->slid;
			w->sl = c->sl;
			w->dlid_path_bits = c->dlid_path_bits;
		}
		total += got;
		if (got < want)
			break;
	}
	return total;
}

int xv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return xv_err(xib_req_notify_cq(to_xcq(cq)->x, solicited_only));
}
