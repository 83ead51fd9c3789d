// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control-path verbs over libxib: queries, PD, MR, completion
 * channels, CQ, SRQ, QP, AH, async events.  Documentation/libibverbs.rst
 * lists what each verb does on xib and which error it returns when the
 * device cannot do something.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>
#include <netinet/in.h>
#include <xib/netlink.h>

#include "ibverbs.h"

/* enum values passed through to the kernel unchanged (uverbs.h says so) */
_Static_assert(XV_SAME(IBV_QPT_RC, XIB_QPT_RC) && XV_SAME(IBV_QPT_UC, XIB_QPT_UC) &&
	       XV_SAME(IBV_QPT_UD, XIB_QPT_UD), "qp types");
_Static_assert(XV_SAME(IBV_QP_STATE, XIB_QP_STATE) &&
	       XV_SAME(IBV_QP_DEST_QPN, XIB_QP_DEST_QPN) &&
	       XV_SAME(IBV_QP_RATE_LIMIT, XIB_QP_RATE_LIMIT) &&
	       XV_SAME(IBV_QP_CAP, XIB_QP_CAP), "qp attr mask");
_Static_assert(XV_SAME(IBV_EVENT_WQ_FATAL, XIB_EVENT_WQ_FATAL) &&
	       XV_SAME(IBV_EVENT_PORT_ERR, XIB_EVENT_PORT_ERR), "event types");
_Static_assert(XV_SAME(IBV_SRQ_MAX_WR, XIB_SRQ_MAX_WR) &&
	       XV_SAME(IBV_SRQ_LIMIT, XIB_SRQ_LIMIT), "srq mask");

/* Access bits a registration must understand (the rest of 0..19 is EINVAL). */
#define XV_ACCESS_MANDATORY	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
				 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
				 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | \
				 IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB)
/* Of those, what xib cannot do: EOPNOTSUPP. */
#define XV_ACCESS_UNSUPPORTED	IBV_ACCESS_ON_DEMAND

static struct xib_context *xctx_of(struct ibv_context *ctx)
{
	return to_xctx(ctx)->x;
}

/* --- queries ------------------------------------------------------------------ */

static void fill_device_attr(const struct xib_uverbs_device_attr *a, struct ibv_device_attr *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->fw_ver, sizeof(d->fw_ver), "%u.%u.%u",
		 (unsigned int)(a->fw_ver >> 32), (unsigned int)((a->fw_ver >> 16) & 0xffff),
		 (unsigned int)(a->fw_ver & 0xffff));
	d->node_guid = a->node_guid;
	d->sys_image_guid = a->sys_image_guid;
	d->max_mr_size = a->max_mr_size;
	d->page_size_cap = a->page_size_cap;
	d->vendor_id = a->vendor_id;
	d->vendor_part_id = a->vendor_part_id;
	d->hw_ver = a->hw_ver;
	d->max_qp = (int)a->max_qp;
	d->max_qp_wr = (int)a->max_qp_wr;
	d->device_cap_flags = a->device_cap_flags;
	d->max_sge = (int)a->max_sge;
	d->max_sge_rd = (int)a->max_sge_rd;
	d->max_cq = (int)a->max_cq;
	d->max_cqe = (int)a->max_cqe;
	d->max_mr = (int)a->max_mr;
	d->max_pd = (int)a->max_pd;
	d->max_qp_rd_atom = (int)a->max_qp_rd_atom;
	d->max_ee_rd_atom = (int)a->max_ee_rd_atom;
	d->max_res_rd_atom = (int)a->max_res_rd_atom;
	d->max_qp_init_rd_atom = (int)a->max_qp_init_rd_atom;
	d->max_ee_init_rd_atom = (int)a->max_ee_init_rd_atom;
	d->atomic_cap = (enum ibv_atomic_cap)a->atomic_cap;
	d->max_ee = (int)a->max_ee;
	d->max_rdd = (int)a->max_rdd;
	d->max_mw = (int)a->max_mw;
	d->max_raw_ipv6_qp = (int)a->max_raw_ipv6_qp;
	d->max_raw_ethy_qp = (int)a->max_raw_ethy_qp;
	d->max_mcast_grp = (int)a->max_mcast_grp;
	d->max_mcast_qp_attach = (int)a->max_mcast_qp_attach;
	d->max_total_mcast_qp_attach = (int)a->max_total_mcast_qp_attach;
	d->max_ah = (int)a->max_ah;
	d->max_fmr = (int)a->max_fmr;
	d->max_map_per_fmr = (int)a->max_map_per_fmr;
	d->max_srq = (int)a->max_srq;
	d->max_srq_wr = (int)a->max_srq_wr;
	d->max_srq_sge = (int)a->max_srq_sge;
	d->max_pkeys = a->max_pkeys;
	d->local_ca_ack_delay = a->local_ca_ack_delay;
	d->phys_port_cnt = a->phys_port_cnt;
}

XV_EXPORT int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	struct xib_uverbs_device_attr a;
	int ret = xib_query_device(xctx_of(context), &a);

	if (ret)
		return xv_err(ret);
	fill_device_attr(&a, device_attr);
	return 0;
}

static int query_port_full(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *p)
{
	struct xib_uverbs_port_attr a;
	int ret = xib_query_port(xctx_of(ctx), port, &a);

	if (ret)
		return xv_err(ret);
	memset(p, 0, sizeof(*p));
	p->state = (enum ibv_port_state)a.state;
	p->max_mtu = (enum ibv_mtu)a.max_mtu;
	p->active_mtu = (enum ibv_mtu)a.active_mtu;
	p->gid_tbl_len = a.gid_tbl_len;
	p->port_cap_flags = a.port_cap_flags;
	p->max_msg_sz = a.max_msg_sz;
	p->bad_pkey_cntr = a.bad_pkey_cntr;
	p->qkey_viol_cntr = a.qkey_viol_cntr;
	p->pkey_tbl_len = a.pkey_tbl_len;
	p->lid = a.lid;
	p->sm_lid = a.sm_lid;
	p->lmc = a.lmc;
	p->max_vl_num = a.max_vl_num;
	p->sm_sl = a.sm_sl;
	p->subnet_timeout = a.subnet_timeout;
	p->init_type_reply = a.init_type_reply;
	p->active_width = a.active_width;
	p->active_speed = a.active_speed;
	p->phys_state = a.phys_state;
	p->link_layer = a.link_layer;
	p->flags = a.flags;
	p->port_cap_flags2 = (uint16_t)a.port_cap_flags2;
	return 0;
}

/* verbs_context op: writes at most attr_len bytes, zeroing what it lacks. */
int xv_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
		     size_t attr_len)
{
	struct ibv_port_attr p;
	int ret = query_port_full(ctx, port, &p);

	if (ret)
		return ret;
	memset(attr, 0, attr_len);
	memcpy(attr, &p, attr_len < sizeof(p) ? attr_len : sizeof(p));
	return 0;
}

/* IBVERBS_1.1: callers' structure is the 48-byte one, up to flags. */
XV_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			     struct _compat_ibv_port_attr *port_attr)
{
	return xv_query_port_op(context, port_num, (struct ibv_port_attr *)port_attr,
				offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* One GID entry; ENODATA for an unused entry, as rdma-core. */
static int query_gid_entry(struct ibv_context *ctx, uint32_t port, uint32_t index,
			   struct ibv_gid_entry *e)
{
	uint32_t type, ifindex;
	int ret;

	memset(e, 0, sizeof(*e));
	if (port > 255)
		return EINVAL;
	ret = xib_query_gid_ndev(xctx_of(ctx), port, index, e->gid.raw, &type, &ifindex);
	if (ret == -ENOENT)
		return ENODATA;
	if (ret)
		return xv_err(ret);
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = type == XIB_GID_TYPE_ROCE_V2 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_IB;
	e->ndev_ifindex = ifindex;
	return 0;
}

XV_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
			    union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int ret;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = query_gid_entry(context, port_num, (uint32_t)index, &e);
	if (ret == ENODATA) {
		/* rdma-core: an unused entry reads as the zero GID */
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*gid = e.gid;
	return 0;
}

XV_EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
				uint32_t gid_index, struct ibv_gid_entry *entry, uint32_t flags,
				size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	if (flags || entry_size < sizeof(e))
		return EINVAL;
	ret = query_gid_entry(context, port_num, gid_index, &e);
	if (ret)
		return ret;
	memset(entry, 0, entry_size);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

XV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
				       struct ibv_gid_entry *entries, size_t max_entries,
				       uint32_t flags, size_t entry_size)
{
	struct xib_context *x = xctx_of(context);
	size_t n = 0;
	uint32_t port, i;

	if (flags || entry_size < sizeof(struct ibv_gid_entry))
		return -EINVAL;
	for (port = 1; port <= x->attr.phys_port_cnt; port++) {
		for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++) {
			struct ibv_gid_entry e;
			int ret = query_gid_entry(context, port, i, &e);

			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;
			memset((char *)entries + n * entry_size, 0, entry_size);
			memcpy((char *)entries + n * entry_size, &e, sizeof(e));
			n++;
		}
	}
	return (ssize_t)n;
}

/* IBVERBS_PRIVATE_34, for ibv_devinfo: 0 = IB/RoCEv1, 1 = RoCEv2. */
XV_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				 unsigned int index, enum ibv_gid_type_sysfs *type);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry e;
	int ret = query_gid_entry(context, port_num, index, &e);

	if (ret == ENODATA) {
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? IBV_GID_TYPE_SYSFS_ROCE_V2 :
						      IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

XV_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
			     __be16 *pkey)
{
	uint16_t p;
	int ret;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = xib_query_pkey(xctx_of(context), port_num, (uint32_t)index, &p);
	if (ret) {
		errno = xv_err(ret);
		return -1;
	}
	*pkey = htobe16(p);
	return 0;
}

XV_EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	struct ibv_port_attr pa;
	int i;

	if (query_port_full(context, port_num, &pa))
		return -1;
	for (i = 0; i < pa.pkey_tbl_len; i++) {
		__be16 p;

		if (!ibv_query_pkey(context, port_num, i, &p) && p == pkey)
			return i;
	}
	errno = ENOENT;
	return -1;
}

/* --- async events --------------------------------------------------------------- */

XV_EXPORT int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct xib_uverbs_async_event ev;
	int ret = xib_read_async_event(xctx_of(context), &ev);

	if (ret) {
		errno = xv_err(ret);
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = (enum ibv_event_type)ev.event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = (struct ibv_wq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	default:
		event->element.port_num = (int)ev.element;
		break;
	}
	return 0;
}

XV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		break;
	}
	default:
		break;
	}
}

/* --- PD and MR -------------------------------------------------------------------- */

XV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct xv_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd)
		return xv_null(ENOMEM);
	ret = xib_alloc_pd(xctx_of(context), &pd->x);
	if (ret) {
		free(pd);
		return xv_null(ret);
	}
	pd->pd.context = context;
	pd->pd.handle = pd->x->handle;
	return &pd->pd;
}

/*
 * Objects made on a parent domain hold it (xv_pd::users), so that it
 * cannot go before them, as rdma-core's providers count them.  A plain
 * PD's other users are the kernel's business.
 */
void xv_pd_hold(struct ibv_pd *pd)
{
	struct xv_pd *p = to_xpd(pd);

	if (p->protection)
		__atomic_add_fetch(&p->users, 1, __ATOMIC_RELAXED);
}

void xv_pd_unhold(struct ibv_pd *pd)
{
	struct xv_pd *p = to_xpd(pd);

	if (p->protection)
		__atomic_sub_fetch(&p->users, 1, __ATOMIC_RELEASE);
}

XV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct xv_pd *p = to_xpd(pd);
	int ret;

	if (p->protection)
		return xv_dealloc_parent_domain(p);
	if (__atomic_load_n(&p->users, __ATOMIC_ACQUIRE))
		return EBUSY;	/* a parent domain extends it */
	ret = xib_dealloc_pd(p->x);
	if (ret)
		return xv_err(ret);
	free(p);
	return 0;
}

/* Mask the optional bits; EINVAL for unknown mandatory ones. */
static int check_access(unsigned int access, uint32_t *out)
{
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (access & ~(unsigned int)XV_ACCESS_MANDATORY)
		return EINVAL;
	if (access & XV_ACCESS_UNSUPPORTED)
		return EOPNOTSUPP;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	*out = access;
	return 0;
}

XV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
					  uint64_t iova, unsigned int access)
{
	struct xv_mr *mr;
	uint32_t acc;
	int ret;

	ret = check_access(access, &acc);
	if (ret)
		return xv_null(ret);
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return xv_null(ENOMEM);
	ret = xib_reg_mr_iova(to_xpd(pd)->x, addr, length, iova, acc, &mr->x);
	if (ret) {
		free(mr);
		return xv_null(ret);
	}
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	mr->mr.handle = mr->x->handle;
	mr->mr.lkey = mr->x->lkey;
	mr->mr.rkey = mr->x->rkey;
	xv_pd_hold(pd);
	return &mr->mr;
}

/*
 * ZERO_BASED: the MR's iova is 0 (ibv_reg_mr(3): "the same effect as" hca_va
 * 0), so WQEs and RDMA requests address it by offset.  ibv_reg_mr_iova()
 * with ZERO_BASED and another iova contradicts itself: EINVAL (kernel).
 */
XV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	uint64_t iova = (access & IBV_ACCESS_ZERO_BASED) ? 0 : (uintptr_t)addr;

	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

XV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
					 uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

XV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
					   uint64_t iova, int fd, int access)
{
	(void)pd; (void)offset; (void)length; (void)iova; (void)fd; (void)access;
	return xv_null(EOPNOTSUPP);
}

XV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct xv_mr *m = to_xmr(mr);
	struct ibv_pd *pd = mr->pd;
	int ret = xib_dereg_mr(m->x);

	if (ret)
		return xv_err(ret);
	xv_pd_unhold(pd);
	free(m);
	return 0;
}

/* --- memory windows (ctx->ops.alloc_mw, dealloc_mw, bind_mw) --- */

_Static_assert(XV_SAME(IBV_MW_TYPE_1, XIB_MW_TYPE_1) &&
	       XV_SAME(IBV_MW_TYPE_2, XIB_MW_TYPE_2), "mw types");
_Static_assert(XV_SAME(IBV_WR_BIND_MW, XIB_HCA_WR_BIND_MW) &&
	       XV_SAME(IBV_WR_LOCAL_INV, XIB_HCA_WR_LOCAL_INV) &&
	       XV_SAME(IBV_WR_SEND_WITH_INV, XIB_HCA_WR_SEND_WITH_INV) &&
	       XV_SAME(IBV_WC_BIND_MW, XIB_HCA_WC_BIND_MW) &&
	       XV_SAME(IBV_WC_LOCAL_INV, XIB_HCA_WC_LOCAL_INV) &&
	       XV_SAME(IBV_WC_WITH_INV, XIB_HCA_WC_WITH_INV), "mw opcodes");

struct ibv_mw *xv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct xv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
		return xv_null(EINVAL);
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return xv_null(ENOMEM);
	ret = xib_alloc_mw(to_xpd(pd)->x, (uint32_t)type, &mw->x);
	if (ret) {
		free(mw);
		return xv_null(ret);
	}
	mw->mw.context = pd->context;
	mw->mw.pd = pd;
	mw->mw.rkey = mw->x->rkey;
	mw->mw.handle = mw->x->handle;
	mw->mw.type = type;
	xv_pd_hold(pd);
	return &mw->mw;
}

int xv_dealloc_mw(struct ibv_mw *mw)
{
	struct xv_mw *m = to_xmw(mw);
	struct ibv_pd *pd = mw->pd;
	int ret = xib_dealloc_mw(m->x);

	if (ret)
		return xv_err(ret);
	xv_pd_unhold(pd);
	free(m);
	return 0;
}

/*
 * The Bind Memory Window verb (type 1; verbs.h's inline checked the type
 * and the PDs): a BIND_MW WQE with the next key byte, posted like any
 * other.  mw->rkey takes the new rkey once posted, as rdma-core's
 * providers do: the bind completes (IBV_WC_BIND_MW) or fails in order,
 * and after a failure the caller must not trust it.  length 0 unbinds.
 */
int xv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *b = &mw_bind->bind_info;
	struct ibv_send_wr wr, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *b;
	ret = xv_post_bind(qp, &wr, &bad, 1);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/*
 * A kernel without XIB_UVERBS_REREG_MR (ENOTTY): a new registration with
 * the changed properties, then the old one goes; the keys change.
 */
static int rereg_by_new_registration(struct xv_mr *m, struct ibv_pd *npd, void *addr,
				     size_t length, uint64_t iova, uint32_t access)
{
	struct xib_mr *nx;
	int ret;

	ret = xib_reg_mr_iova(to_xpd(npd)->x, addr, length, iova, access, &nx);
	if (ret)
		return ret;
	ret = xib_dereg_mr(m->x);
	if (ret) {
		xib_dereg_mr(nx);
		return ret;
	}
	m->x = nx;
	m->mr.handle = nx->handle;
	return 0;
}

/*
 * Re-registration in place (XIB_UVERBS_REREG_MR): the MR keeps its handle
 * and, on xib, its keys; lkey and rkey are updated from the kernel all
 * the same.  Input errors are rdma-core's: unknown flags, a translation
 * without address or length, access without CHANGE_ACCESS.  On any
 * failure the MR is as it was, IBV_REREG_MR_ERR_CMD, errno set.
 */
XV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
			   size_t length, int access)
{
	struct xv_mr *m = to_xmr(mr);
	struct ibv_pd *npd = mr->pd;
	void *naddr = mr->addr;
	size_t nlen = mr->length;
	uint32_t acc = m->x->access;
	uint64_t iova = m->x->iova;
	int ret;

	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		ret = check_access((unsigned int)access, &acc);
		if (ret) {
			errno = ret;
			return IBV_REREG_MR_ERR_CMD;
		}
	}
	/* as ibv_reg_mr(); access gaining ZERO_BASED alone: EINVAL (kernel) */
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		naddr = addr;
		nlen = length;
		iova = (acc & IBV_ACCESS_ZERO_BASED) ? 0 : (uintptr_t)addr;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		if (!pd || pd->context != mr->context) {
			errno = EINVAL;
			return IBV_REREG_MR_ERR_CMD;
		}
		npd = pd;
	}
	ret = xib_rereg_mr(m->x, (uint32_t)flags, to_xpd(npd)->x, naddr, nlen, iova, acc);
	if (ret == -ENOTTY && flags)
		ret = rereg_by_new_registration(m, npd, naddr, nlen, iova, acc);
	if (ret) {
		errno = xv_err(ret);
		return IBV_REREG_MR_ERR_CMD;
	}
	if (npd != mr->pd) {
		xv_pd_hold(npd);
		xv_pd_unhold(mr->pd);
	}
	mr->pd = npd;
	mr->addr = naddr;
	mr->length = nlen;
	mr->lkey = m->x->lkey;
	mr->rkey = m->x->rkey;
	return 0;
}

XV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context; (void)pd_handle;
	return xv_null(EOPNOTSUPP);
}

XV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

XV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd; (void)mr_handle;
	return xv_null(EOPNOTSUPP);
}

XV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

XV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context; (void)dm_handle;
	return xv_null(EOPNOTSUPP);
}

XV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* --- completion channels and CQs --------------------------------------------------- */

XV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct xv_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch)
		return xv_null(ENOMEM);
	ret = xib_create_comp_channel(xctx_of(context), &ch->x);
	if (ret) {
		free(ch);
		return xv_null(ret);
	}
	ch->ch.context = context;
	ch->ch.fd = ch->x->fd;
	ch->ch.refcnt = 0;
	return &ch->ch;
}

XV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *ctx = channel->context;
	struct xv_channel *ch = to_xch(channel);

	pthread_mutex_lock(&ctx->mutex);
	if (channel->refcnt) {
		pthread_mutex_unlock(&ctx->mutex);
		return EBUSY;
	}
	xib_destroy_comp_channel(ch->x);
	pthread_mutex_unlock(&ctx->mutex);
	free(ch);
	return 0;
}

/* ibv_create_cq and ibv_create_cq_ex: NULL with errno on failure. */
struct xv_cq *xv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			   struct ibv_comp_channel *channel, int comp_vector)
{
	struct xv_cq *cq;
	int ret;

	if (cqe < 0 || comp_vector < 0 || comp_vector >= context->num_comp_vectors)
		return xv_null(EINVAL);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return xv_null(ENOMEM);
	ret = xib_create_cq(xctx_of(context), (uint32_t)cqe, (uintptr_t)&cq->cq,
			    channel ? to_xch(channel)->x : NULL, (uint32_t)comp_vector, &cq->x);
	if (ret) {
		free(cq);
		return xv_null(ret);
	}
	cq->cq.context = context;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.handle = cq->x->handle;
	cq->cq.cqe = (int)cq->x->cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	pthread_spin_init(&cq->poll_lock, PTHREAD_PROCESS_PRIVATE);
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	return cq;
}

XV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
				       struct ibv_comp_channel *channel, int comp_vector)
{
	struct xv_cq *cq = xv_create_cq(context, cqe, cq_context, channel, comp_vector);

	return cq ? &cq->cq : NULL;
}

XV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct xv_cq *c = to_xcq(cq);
	int ret;

	if (cqe < 0)
		return EINVAL;
	ret = xib_resize_cq(c->x, (uint32_t)cqe);
	if (ret)
		return xv_err(ret);
	cq->cqe = (int)c->x->cqe;
	return 0;
}

/*
 * Destroying a CQ, QP or SRQ waits until the application has acknowledged
 * every event handed out for it (the kernel said how many: @a counted in
 * *@acked_a, @b in *@acked_b), then retires the object's mutex and
 * condition, as the ibv_destroy_* pages require.
 */
static void retire_after_acks(pthread_mutex_t *mutex, pthread_cond_t *cond,
			      const uint32_t *acked_a, uint32_t a,
			      const uint32_t *acked_b, uint32_t b)
{
	pthread_mutex_lock(mutex);
	while (*acked_a != a || *acked_b != b)
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
	pthread_cond_destroy(cond);
	pthread_mutex_destroy(mutex);
}

XV_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibv_comp_channel *channel = cq->channel;
	struct xv_cq *c = to_xcq(cq);
	uint32_t comp, async;
	int ret;

	ret = xib_destroy_cq_events(c->x, &comp, &async);
	if (ret)
		return xv_err(ret);
	if (channel) {
		pthread_mutex_lock(&cq->context->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&cq->context->mutex);
	}
	retire_after_acks(&cq->mutex, &cq->cond, &cq->comp_events_completed, comp,
			  &cq->async_events_completed, async);
	if (c->parent)
		xv_pd_unhold(c->parent);
	pthread_spin_destroy(&c->poll_lock);
	free(c);
	return 0;
}

XV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			       void **cq_context)
{
	uint64_t handle;
	int ret = xib_get_cq_event(to_xch(channel)->x, &handle);
	struct ibv_cq *c;

	if (ret) {
		errno = xv_err(ret);
		return -1;
	}
	c = (struct ibv_cq *)(uintptr_t)handle;
	*cq = c;
	*cq_context = c->cq_context;
	return 0;
}

XV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* --- SRQ ------------------------------------------------------------------------------ */

static struct ibv_srq *create_srq(struct ibv_context *ctx, struct ibv_pd *pd,
				  void *srq_context, struct ibv_srq_attr *attr,
				  struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct xv_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return xv_null(ENOMEM);
	if (xrcd)
		ret = xib_create_xrc_srq(to_xpd(pd)->x, XV_CONTAINER(xrcd, struct xv_xrcd, xrcd)->x,
					 to_xcq(cq)->x, attr->max_wr, attr->max_sge,
					 attr->srq_limit, (uintptr_t)&srq->srq, &srq->x);
	else
		ret = xib_create_srq(to_xpd(pd)->x, attr->max_wr, attr->max_sge,
				     attr->srq_limit, (uintptr_t)&srq->srq, &srq->x);
	if (ret) {
		free(srq);
		return xv_null(ret);
	}
	srq->srq.context = ctx;
	srq->srq.srq_context = srq_context;
	srq->srq.pd = pd;
	srq->srq.handle = srq->x->handle;
	srq->xrcd = xrcd;
	xv_pd_hold(pd);
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	srq->max_sge = srq->x->rq.max_sge;
	attr->max_wr = srq->x->max_wr;
	attr->max_sge = srq->x->rq.max_sge;
	return &srq->srq;
}

XV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init)
{
	return create_srq(pd->context, pd, init->srq_context, &init->attr, NULL, NULL);
}

/*
 * Basic and XRC SRQs; an XRC SRQ needs IBV_SRQ_INIT_ATTR_XRCD and _CQ (and
 * they mean nothing to a basic one: EINVAL).  Tag matching: EOPNOTSUPP.
 */
struct ibv_srq *xv_create_srq_ex_op(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t xrc_mask = IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
					  xrc_mask))
		return xv_null(EOPNOTSUPP);	/* tag matching */
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC)
		return xv_null(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx)
		return xv_null(EINVAL);
	if (type == IBV_SRQT_BASIC) {
		if (attr->comp_mask & xrc_mask)
			return xv_null(EINVAL);
		return create_srq(ctx, attr->pd, attr->srq_context, &attr->attr, NULL, NULL);
	}
	if ((attr->comp_mask & xrc_mask) != xrc_mask || !attr->xrcd || !attr->cq ||
	    attr->xrcd->context != ctx || attr->cq->context != ctx)
		return xv_null(EINVAL);
	return create_srq(ctx, attr->pd, attr->srq_context, &attr->attr, attr->xrcd, attr->cq);
}

/* The number senders name an XRC SRQ by (the XRCETH); any SRQ has one. */
int xv_get_srq_num_op(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_xsrq(srq)->x->srqn;
	return 0;
}

/* --- XRC domains ----------------------------------------------------------------------- */

/*
 * ibv_open_xrcd(): IBV_XRCD_INIT_ATTR_FD and _OFLAGS are both required
 * (as rdma-core's); fd -1 with O_CREAT gives a domain of this context alone.
 */
struct ibv_xrcd *xv_open_xrcd_op(struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr)
{
	const uint32_t need = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	struct xv_xrcd *xrcd;
	uint32_t oflags = 0;
	int ret;

	if (attr->comp_mask & ~need)
		return xv_null(EOPNOTSUPP);
	if ((attr->comp_mask & need) != need || (attr->oflags & ~(O_CREAT | O_EXCL)))
		return xv_null(EINVAL);
	if (attr->oflags & O_CREAT)
		oflags |= XIB_XRCD_O_CREAT;
	if (attr->oflags & O_EXCL)
		oflags |= XIB_XRCD_O_EXCL;
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return xv_null(ENOMEM);
	ret = xib_open_xrcd(to_xctx(ctx)->x, attr->fd, oflags, &xrcd->x);
	if (ret) {
		free(xrcd);
		return xv_null(ret);
	}
	xrcd->xrcd.context = ctx;
	pthread_mutex_init(&xrcd->lock, NULL);
	return &xrcd->xrcd;
}

/*
 * EBUSY while an SRQ this context created in the domain exists, or while
 * the process is registered with an XRC receive QP of it (the seed's
 * ibv_close_xrc_domain).
 */
int xv_close_xrcd_op(struct ibv_xrcd *ibxrcd)
{
	struct xv_xrcd *xrcd = XV_CONTAINER(ibxrcd, struct xv_xrcd, xrcd);
	int ret;

	pthread_mutex_lock(&xrcd->lock);
	ret = xrcd->regs ? -EBUSY : xib_close_xrcd(xrcd->x);
	pthread_mutex_unlock(&xrcd->lock);
	if (ret)
		return xv_err(ret);
	pthread_mutex_destroy(&xrcd->lock);
	free(xrcd);
	return 0;
}

XV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			     int srq_attr_mask)
{
	if (srq_attr_mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	return xv_err(xib_modify_srq(to_xsrq(srq)->x, (uint32_t)srq_attr_mask,
				     srq_attr->max_wr, srq_attr->srq_limit));
}

XV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	uint32_t max_wr, max_sge, limit;
	int ret = xib_query_srq(to_xsrq(srq)->x, &max_wr, &max_sge, &limit);

	if (ret)
		return xv_err(ret);
	srq_attr->max_wr = max_wr;
	srq_attr->max_sge = max_sge;
	srq_attr->srq_limit = limit;
	return 0;
}

XV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct xv_srq *s = to_xsrq(srq);
	uint32_t async;
	int ret = xib_destroy_srq_events(s->x, &async);

	if (ret)
		return xv_err(ret);
	retire_after_acks(&srq->mutex, &srq->cond, &srq->events_completed, async,
			  &srq->events_completed, async);
	xv_pd_unhold(srq->pd);
	free(s);
	return 0;
}

/* --- the seed's legacy XRC calls --------------------------------------------------------- */

/*
 * OFED's XRC API, which rdma-core replaced by ibv_open_xrcd() and friends
 * and never exported.  struct ibv_xrc_domain is opaque to its users; here
 * it is the struct ibv_xrcd of an xv_xrcd (its first member, the context,
 * is where OFED had it), so the legacy and the rdma-core calls work on the
 * same domains.  An XRC receive QP is an XRC target QP (IBV_QPT_XRC_RECV),
 * and a process's registration with one is a handle to it (ibv_open_qp()),
 * kept in the domain handle's list: the kernel destroys the target with
 * its last handle, as the seed's last ibv_unreg_xrc_rcv_qp() does, and a
 * process that exits drops its handles.  The seed's send-side
 * IBV_QPT_XRC is not an rdma-core type: a sender uses IBV_QPT_XRC_SEND.
 */
struct ibv_xrc_domain;

XV_EXPORT struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context, int fd,
						      int oflag);
XV_EXPORT int ibv_close_xrc_domain(struct ibv_xrc_domain *d);
XV_EXPORT struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
					     struct ibv_xrc_domain *xrc_domain,
					     struct ibv_cq *xrc_cq,
					     struct ibv_srq_init_attr *srq_init_attr);
XV_EXPORT int ibv_create_xrc_rcv_qp(struct ibv_qp_init_attr *init_attr, uint32_t *xrc_rcv_qpn);
XV_EXPORT int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num,
				    struct ibv_qp_attr *attr, int attr_mask);
XV_EXPORT int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num,
				   struct ibv_qp_attr *attr, int attr_mask,
				   struct ibv_qp_init_attr *init_attr);
XV_EXPORT int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num);
XV_EXPORT int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num);

/* "a pointer to an opened XRC, or NULL"; O_CREAT and O_EXCL as open(2). */
XV_EXPORT struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context, int fd,
						      int oflag)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflag,
	};

	if (!context)
		return xv_null(EINVAL);
	return (struct ibv_xrc_domain *)xv_open_xrcd_op(context, &attr);
}

/* 0 or the errno value; EBUSY while an SRQ this process created in it exists. */
XV_EXPORT int ibv_close_xrc_domain(struct ibv_xrc_domain *d)
{
	if (!d)
		return EINVAL;
	return xv_close_xrcd_op((struct ibv_xrcd *)d);
}

/* ibv_create_srq() in the domain, its receives completing on @xrc_cq. */
XV_EXPORT struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
					     struct ibv_xrc_domain *xrc_domain,
					     struct ibv_cq *xrc_cq,
					     struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_xrcd *xrcd = (struct ibv_xrcd *)xrc_domain;

	if (!pd || !xrcd || !xrc_cq || !srq_init_attr || xrcd->context != pd->context ||
	    xrc_cq->context != pd->context)
		return xv_null(EINVAL);
	return create_srq(pd->context, pd, srq_init_attr->srq_context, &srq_init_attr->attr,
			  xrcd, xrc_cq);
}

/*
 * The seed's struct ibv_qp_init_attr: rdma-core's with the XRC domain
 * after sq_sig_all.  ibv_create_xrc_rcv_qp() reads that member alone.
 */
struct xv_seed_qp_init_attr {
	struct ibv_qp_init_attr attr;
	struct ibv_xrc_domain *xrc_domain;
};

_Static_assert(offsetof(struct xv_seed_qp_init_attr, xrc_domain) == 64, "seed xrc_domain");

/* Record a registration (a handle to the target); 0 or an errno value. */
static int xrc_reg_add(struct xv_xrcd *xd, struct xv_qp *qp)
{
	struct xv_xrc_reg *r;

	if (!qp)
		return errno;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ibv_destroy_qp(&qp->qp);
		return ENOMEM;
	}
	r->qp = &qp->qp;
	pthread_mutex_lock(&xd->lock);
	r->next = xd->regs;
	xd->regs = r;
	pthread_mutex_unlock(&xd->lock);
	return 0;
}

/* The handle of one registration with @qpn, or NULL; xd->lock held. */
static struct xv_xrc_reg **xrc_reg_find(struct xv_xrcd *xd, uint32_t qpn)
{
	struct xv_xrc_reg **p;

	for (p = &xd->regs; *p; p = &(*p)->next)
		if ((*p)->qp->qp_num == qpn)
			return p;
	return NULL;
}

/*
 * A receive-only XRC QP (an XRC target) of init_attr->xrc_domain, every
 * other member ignored; the creating process is registered with it.
 */
XV_EXPORT int ibv_create_xrc_rcv_qp(struct ibv_qp_init_attr *init_attr, uint32_t *xrc_rcv_qpn)
{
	struct ibv_xrcd *xrcd;
	struct xv_qp *qp;
	int ret;

	if (!init_attr || !xrc_rcv_qpn)
		return EINVAL;
	xrcd = (struct ibv_xrcd *)((struct xv_seed_qp_init_attr *)init_attr)->xrc_domain;
	if (!xrcd)
		return EINVAL;
	qp = xv_tgt_qp(xrcd->context, xrcd, 0, NULL);
	ret = xrc_reg_add(XV_CONTAINER(xrcd, struct xv_xrcd, xrcd), qp);
	if (!ret)
		*xrc_rcv_qpn = qp->qp.qp_num;
	return ret;
}

/* Registers the process with the XRC receive QP @xrc_qp_num of the domain. */
XV_EXPORT int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num)
{
	struct ibv_xrcd *xrcd = (struct ibv_xrcd *)xrc_domain;

	if (!xrcd || !xrc_qp_num)
		return EINVAL;
	return xrc_reg_add(XV_CONTAINER(xrcd, struct xv_xrcd, xrcd),
			   xv_tgt_qp(xrcd->context, xrcd, xrc_qp_num, NULL));
}

/*
 * Drops one registration of the process; the last registration of every
 * process destroys the QP.  EINVAL if the process has none with it.
 */
XV_EXPORT int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num)
{
	struct ibv_xrcd *xrcd = (struct ibv_xrcd *)xrc_domain;
	struct xv_xrcd *xd;
	struct xv_xrc_reg **p, *r = NULL;
	int ret;

	if (!xrcd)
		return EINVAL;
	xd = XV_CONTAINER(xrcd, struct xv_xrcd, xrcd);
	pthread_mutex_lock(&xd->lock);
	p = xrc_reg_find(xd, xrc_qp_num);
	if (p) {
		r = *p;
		*p = r->next;
	}
	pthread_mutex_unlock(&xd->lock);
	if (!r)
		return EINVAL;
	ret = ibv_destroy_qp(r->qp);
	if (ret) {
		pthread_mutex_lock(&xd->lock);
		r->next = xd->regs;
		xd->regs = r;
		pthread_mutex_unlock(&xd->lock);
		return ret;
	}
	free(r);
	return 0;
}

/*
 * A handle for one modify or query: the process's registration if it has
 * one, else a handle opened for the call (*@tmp set: destroy it after).
 */
static struct ibv_qp *xrc_rcv_handle(struct ibv_xrc_domain *xrc_domain, uint32_t qpn,
				     int *tmp, int *err)
{
	struct ibv_xrcd *xrcd = (struct ibv_xrcd *)xrc_domain;
	struct xv_xrcd *xd;
	struct xv_xrc_reg **p;
	struct ibv_qp *qp = NULL;
	struct xv_qp *q;

	*tmp = 0;
	*err = EINVAL;
	if (!xrcd || !qpn)
		return NULL;
	xd = XV_CONTAINER(xrcd, struct xv_xrcd, xrcd);
	pthread_mutex_lock(&xd->lock);
	p = xrc_reg_find(xd, qpn);
	if (p)
		qp = (*p)->qp;
	pthread_mutex_unlock(&xd->lock);
	if (qp)
		return qp;
	q = xv_tgt_qp(xrcd->context, xrcd, qpn, NULL);
	if (!q) {
		*err = errno;
		return NULL;
	}
	*tmp = 1;
	return &q->qp;
}

/*
 * ibv_modify_qp() of the XRC receive QP: Reset -> Init -> RTR with the
 * masks of ibv_modify_xrc_rcv_qp(3) (the table's XRC target column);
 * all or nothing.
 */
XV_EXPORT int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num,
				    struct ibv_qp_attr *attr, int attr_mask)
{
	struct ibv_qp *qp;
	int tmp, ret;

	if (!attr)
		return EINVAL;
	qp = xrc_rcv_handle(xrc_domain, xrc_qp_num, &tmp, &ret);
	if (!qp)
		return ret;
	ret = ibv_modify_qp(qp, attr, attr_mask);
	if (tmp)
		ibv_destroy_qp(qp);
	return ret;
}

/* ibv_query_qp() of the XRC receive QP; attr_mask is a hint. */
XV_EXPORT int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num,
				   struct ibv_qp_attr *attr, int attr_mask,
				   struct ibv_qp_init_attr *init_attr)
{
	struct ibv_qp *qp;
	int tmp, ret;

	if (!attr)
		return EINVAL;
	qp = xrc_rcv_handle(xrc_domain, xrc_qp_num, &tmp, &ret);
	if (!qp)
		return ret;
	ret = ibv_query_qp(qp, attr, attr_mask, init_attr);
	if (tmp)
		ibv_destroy_qp(qp);
	return ret;
}

/* --- QP ---------------------------------------------------------------------------------- */

static void ah_to_x(const struct ibv_ah_attr *a, struct xib_uverbs_ah_attr *x)
{
	memset(x, 0, sizeof(*x));
	memcpy(x->dgid, a->grh.dgid.raw, 16);
	x->flow_label = a->grh.flow_label;
	x->sgid_index = a->grh.sgid_index;
	x->hop_limit = a->grh.hop_limit;
	x->traffic_class = a->grh.traffic_class;
	x->sl = a->sl;
	x->port_num = a->port_num;
	x->is_global = a->is_global;
	x->static_rate = a->static_rate;
	x->src_path_bits = a->src_path_bits;
	x->dlid = a->dlid;
}

static void ah_from_x(const struct xib_uverbs_ah_attr *x, struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, x->dgid, 16);
	a->grh.flow_label = x->flow_label;
	a->grh.sgid_index = x->sgid_index;
	a->grh.hop_limit = x->hop_limit;
	a->grh.traffic_class = x->traffic_class;
	a->sl = x->sl;
	a->port_num = x->port_num;
	a->is_global = x->is_global;
	a->static_rate = x->static_rate;
	a->src_path_bits = x->src_path_bits;
	a->dlid = x->dlid;
}

/*
 * ibv_create_qp and ibv_create_qp_ex: NULL with errno on failure.  On a
 * parent domain with a thread domain, the QP's queues are not locked.
 */
struct xv_qp *xv_create_qp(struct ibv_context *ctx, struct ibv_pd *pd,
			   struct ibv_qp_init_attr *init)
{
	struct xib_qp_init_attr xi;
	struct xv_qp *qp;
	int ret;

	int xrc = init->qp_type == IBV_QPT_XRC_SEND;

	switch (init->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
		break;
	case IBV_QPT_XRC_RECV:
		return xv_null(EINVAL);	/* ibv_create_qp_ex with an XRC domain */
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_DRIVER:
		return xv_null(EOPNOTSUPP);
	default:
		return xv_null(EINVAL);
	}
	/*
	 * An XRC initiator has no receive side: its receive CQ, SRQ and
	 * receive capacities are ignored, as the kernel's uverbs does.
	 */
	if (!pd || !init->send_cq || (!xrc && !init->recv_cq))
		return xv_null(EINVAL);
	if (xrc) {
		init->recv_cq = NULL;
		init->srq = NULL;
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return xv_null(ENOMEM);
	memset(&xi, 0, sizeof(xi));
	xi.user_handle = (uintptr_t)&qp->qp;
	xi.send_cq = to_xcq(init->send_cq)->x;
	xi.recv_cq = init->recv_cq ? to_xcq(init->recv_cq)->x : NULL;
	xi.srq = init->srq ? to_xsrq(init->srq)->x : NULL;
	xi.qp_type = init->qp_type;
	xi.sq_sig_all = !!init->sq_sig_all;
	xi.cap.max_send_wr = init->cap.max_send_wr;
	xi.cap.max_recv_wr = init->srq ? 0 : init->cap.max_recv_wr;
	xi.cap.max_send_sge = init->cap.max_send_sge;
	xi.cap.max_recv_sge = init->srq ? 0 : init->cap.max_recv_sge;
	xi.cap.max_inline_data = init->cap.max_inline_data;
	ret = xib_create_qp(to_xpd(pd)->x, &xi, &qp->x);
	if (ret) {
		free(qp);
		return xv_null(ret);
	}
	qp->qp.context = ctx;
	qp->qp.qp_context = init->qp_context;
	qp->qp.pd = pd;
	qp->qp.send_cq = init->send_cq;
	qp->qp.recv_cq = init->recv_cq;
	qp->qp.srq = init->srq;
	qp->qp.handle = qp->x->handle;
	qp->qp.qp_num = qp->x->qpn;
	qp->qp.state = IBV_QPS_RESET;
	qp->qp.qp_type = init->qp_type;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	init->cap.max_send_wr = qp->x->cap.max_send_wr;
	init->cap.max_recv_wr = qp->x->cap.max_recv_wr;
	init->cap.max_send_sge = qp->x->cap.max_send_sge;
	init->cap.max_recv_sge = qp->x->cap.max_recv_sge;
	init->cap.max_inline_data = qp->x->cap.max_inline_data;
	if (to_xpd(pd)->td)
		xib_qp_set_single_threaded(qp->x);
	xv_pd_hold(pd);
	return qp;
}

XV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	struct xv_qp *qp;

	if (!pd)
		return xv_null(EINVAL);
	qp = xv_create_qp(pd->context, pd, init);
	return qp ? &qp->qp : NULL;
}

XV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	/* As rdma-core: only a QP made with send_ops_flags has one. */
	struct xv_qp *q = to_xqp(qp);

	return q->is_ex ? &q->qpx : NULL;
}

XV_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct xib_uverbs_qp_attr x;
	int ret;

	memset(&x, 0, sizeof(x));
	x.qp_state = attr->qp_state;
	x.cur_qp_state = attr->cur_qp_state;
	x.path_mtu = attr->path_mtu;
	x.path_mig_state = attr->path_mig_state;
	x.qkey = attr->qkey;
	x.rq_psn = attr->rq_psn;
	x.sq_psn = attr->sq_psn;
	x.dest_qp_num = attr->dest_qp_num;
	/*
	 * LOCAL_WRITE means nothing for a QP (it is an MR right); programs
	 * such as perftest set it anyway and rdma-core's drivers ignore it.
	 */
	x.qp_access_flags = attr->qp_access_flags & ~(unsigned int)IBV_ACCESS_LOCAL_WRITE;
	x.pkey_index = attr->pkey_index;
	x.alt_pkey_index = attr->alt_pkey_index;
	x.en_sqd_async_notify = attr->en_sqd_async_notify;
	x.max_rd_atomic = attr->max_rd_atomic;
	x.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	x.min_rnr_timer = attr->min_rnr_timer;
	x.port_num = attr->port_num;
	x.timeout = attr->timeout;
	x.retry_cnt = attr->retry_cnt;
	x.rnr_retry = attr->rnr_retry;
	x.alt_port_num = attr->alt_port_num;
	x.alt_timeout = attr->alt_timeout;
	x.rate_limit = attr->rate_limit;
	x.cap.max_send_wr = attr->cap.max_send_wr;
	x.cap.max_recv_wr = attr->cap.max_recv_wr;
	x.cap.max_send_sge = attr->cap.max_send_sge;
	x.cap.max_recv_sge = attr->cap.max_recv_sge;
	x.cap.max_inline_data = attr->cap.max_inline_data;
	if (attr_mask & IBV_QP_AV)
		ah_to_x(&attr->ah_attr, &x.ah_attr);
	if (attr_mask & IBV_QP_ALT_PATH)
		ah_to_x(&attr->alt_ah_attr, &x.alt_ah_attr);
	ret = xib_modify_qp(to_xqp(qp)->x, &x, (uint32_t)attr_mask);
	if (ret)
		return xv_err(ret);
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	if (attr_mask & IBV_QP_PORT)
		to_xqp(qp)->port_num = attr->port_num;
	return 0;
}

XV_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			   struct ibv_qp_init_attr *init_attr)
{
	struct xib_uverbs_query_qp q;
	struct xib_uverbs_qp_attr *x = &q.attr;
	int ret;

	(void)attr_mask;	/* a hint; everything is returned */
	ret = xib_query_qp(to_xqp(qp)->x, &q);
	if (ret)
		return xv_err(ret);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)x->qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)x->cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)x->path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)x->path_mig_state;
	attr->qkey = x->qkey;
	attr->rq_psn = x->rq_psn;
	attr->sq_psn = x->sq_psn;
	attr->dest_qp_num = x->dest_qp_num;
	attr->qp_access_flags = x->qp_access_flags;
	attr->cap.max_send_wr = x->cap.max_send_wr;
	attr->cap.max_recv_wr = x->cap.max_recv_wr;
	attr->cap.max_send_sge = x->cap.max_send_sge;
	attr->cap.max_recv_sge = x->cap.max_recv_sge;
	attr->cap.max_inline_data = x->cap.max_inline_data;
	ah_from_x(&x->ah_attr, &attr->ah_attr);
	ah_from_x(&x->alt_ah_attr, &attr->alt_ah_attr);
	attr->pkey_index = x->pkey_index;
	attr->alt_pkey_index = x->alt_pkey_index;
	attr->en_sqd_async_notify = x->en_sqd_async_notify;
	attr->sq_draining = x->sq_draining;
	attr->max_rd_atomic = x->max_rd_atomic;
	attr->max_dest_rd_atomic = x->max_dest_rd_atomic;
	attr->min_rnr_timer = x->min_rnr_timer;
	attr->port_num = x->port_num;
	attr->timeout = x->timeout;
	attr->retry_cnt = x->retry_cnt;
	attr->rnr_retry = x->rnr_retry;
	attr->alt_port_num = x->alt_port_num;
	attr->alt_timeout = x->alt_timeout;
	attr->rate_limit = x->rate_limit;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = q.sq_sig_all;
	}
	qp->state = attr->qp_state;
	return 0;
}

/*
 * 1 would promise that the data of one RDMA WRITE, SEND or READ lands in
 * memory in order, so that a reader may poll the last byte instead of the
 * CQ.  The HCA places each packet with the kernel's memcpy, whose x86
 * fast-string stores are not ordered among themselves: no such promise,
 * whatever the opcode (0 is always a correct answer).
 */
XV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
					 uint32_t flags)
{
	(void)qp; (void)op; (void)flags;
	return 0;
}

XV_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct xv_qp *q = to_xqp(qp);
	uint32_t async;
	int ret = xib_destroy_qp_events(q->x, &async);

	if (ret)
		return xv_err(ret);
	retire_after_acks(&qp->mutex, &qp->cond, &qp->events_completed, async,
			  &qp->events_completed, async);
	if (qp->pd)	/* an XRC target has none */
		xv_pd_unhold(qp->pd);
	xv_qp_ex_free(q);
	free(q);
	return 0;
}

/*
 * An XRC target QP of @xrcd: a new one (@qpn 0) or a handle to the
 * existing one @qpn (ibv_open_qp()).  NULL with errno on failure.
 */
struct xv_qp *xv_tgt_qp(struct ibv_context *ctx, struct ibv_xrcd *xrcd, uint32_t qpn,
			void *qp_context)
{
	struct xv_xrcd *xd = XV_CONTAINER(xrcd, struct xv_xrcd, xrcd);
	struct xv_qp *qp;
	int ret;

	if (!xrcd || xrcd->context != ctx)
		return xv_null(EINVAL);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return xv_null(ENOMEM);
	ret = qpn ? xib_open_qp(xd->x, qpn, (uintptr_t)&qp->qp, &qp->x) :
		    xib_create_xrc_tgt_qp(xd->x, (uintptr_t)&qp->qp, &qp->x);
	if (ret) {
		free(qp);
		return xv_null(ret);
	}
	qp->qp.context = ctx;
	qp->qp.qp_context = qp_context;
	qp->qp.handle = qp->x->handle;
	qp->qp.qp_num = qp->x->qpn;
	qp->qp.state = IBV_QPS_RESET;
	qp->qp.qp_type = IBV_QPT_XRC_RECV;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	return qp;
}

/*
 * ibv_open_qp(): a handle to an XRC target QP of a domain this context
 * opened; NUM, XRCD and TYPE (IBV_QPT_XRC_RECV) are required.
 */
struct ibv_qp *xv_open_qp_op(struct ibv_context *ctx, struct ibv_qp_open_attr *attr)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct xv_qp *qp;

	if (!attr || (attr->comp_mask & need) != need ||
	    (attr->comp_mask & ~(need | IBV_QP_OPEN_ATTR_CONTEXT)) ||
	    attr->qp_type != IBV_QPT_XRC_RECV || !attr->qp_num)
		return xv_null(EINVAL);
	qp = xv_tgt_qp(ctx, attr->xrcd, attr->qp_num,
		       (attr->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT) ? attr->qp_context : NULL);
	return qp ? &qp->qp : NULL;
}

XV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp; (void)ece;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

XV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp; (void)ece;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

/*
 * Multicast: the kernel keeps the groups (XIB_UVERBS_ATTACH_MCAST in
 * uverbs.h).  Both return 0 or an errno value, which errno holds too.
 */
static int xv_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid, int attach)
{
	int ret;

	if (!qp || !gid) {
		errno = EINVAL;
		return EINVAL;
	}
	ret = xv_err(xib_mcast(to_xqp(qp)->x, gid->raw, lid, attach));
	if (ret)
		errno = ret;
	return ret;
}

XV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return xv_mcast(qp, gid, lid, 1);
}

XV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return xv_mcast(qp, gid, lid, 0);
}

/* --- AH ---------------------------------------------------------------------------------- */

XV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct xib_uverbs_ah_attr x;
	struct xv_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return xv_null(ENOMEM);
	ah_to_x(attr, &x);
	ret = xib_create_ah(to_xpd(pd)->x, &x, &ah->x);
	if (ret) {
		free(ah);
		return xv_null(ret);
	}
	ah->ah.context = pd->context;
	ah->ah.pd = pd;
	ah->ah.handle = ah->x->handle;
	xv_pd_hold(pd);
	return &ah->ah;
}

XV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	struct xv_ah *a = to_xah(ah);
	struct ibv_pd *pd = ah->pd;
	int ret = xib_destroy_ah(a->x);

	if (ret)
		return xv_err(ret);
	xv_pd_unhold(pd);
	free(a);
	return 0;
}

/*
 * RoCEv2 receive: the 40-byte GRH area holds either an IPv6 header or,
 * for IPv4, the IPv4 header in its last 20 bytes.  Returns 4, 6 or -1.
 */
static int grh_ip_version(const struct ibv_grh *grh)
{
	const uint8_t *b = (const uint8_t *)grh;
	const uint8_t *ip4 = b + 20;
	uint32_t sum = 0;
	int i;

	if ((b[0] >> 4) != 6)
		return (ip4[0] >> 4) == 4 ? 4 : -1;
	/* Version nibble 6 at byte 0 could still be an IPv4 packet's
	 * zeroed first half: an IPv4 header with a valid checksum wins. */
	if (ip4[0] != 0x45)
		return 6;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip4[i] << 8 | ip4[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff ? 4 : 6;
}

static int find_sgid_index(struct ibv_context *ctx, uint8_t port, const union ibv_gid *gid)
{
	uint32_t i;

	for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++) {
		struct ibv_gid_entry e;

		if (query_gid_entry(ctx, port, i, &e))
			continue;
		if (!memcmp(e.gid.raw, gid->raw, 16))
			return (int)i;
	}
	return -1;
}

XV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
				  struct ibv_wc *wc, struct ibv_grh *grh,
				  struct ibv_ah_attr *ah_attr)
{
	union ibv_gid sgid, dgid;	/* the packet's: sender, us */
	int idx;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH)) {
		/* Every xib address is global: without a GRH there is no path. */
		errno = EPROTONOSUPPORT;
		return -1;
	}
	memset(&sgid, 0, sizeof(sgid));
	memset(&dgid, 0, sizeof(dgid));
	switch (grh_ip_version(grh)) {
	case 4: {
		const uint8_t *ip4 = (const uint8_t *)grh + 20;

		sgid.raw[10] = sgid.raw[11] = 0xff;
		memcpy(&sgid.raw[12], ip4 + 12, 4);
		dgid.raw[10] = dgid.raw[11] = 0xff;
		memcpy(&dgid.raw[12], ip4 + 16, 4);
		ah_attr->grh.traffic_class = ip4[1];
		break;
	}
	case 6:
		sgid = grh->sgid;
		dgid = grh->dgid;
		ah_attr->grh.traffic_class = (uint8_t)(be32toh(grh->version_tclass_flow) >> 20);
		ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
		break;
	default:
		errno = EPROTONOSUPPORT;
		return -1;
	}
	idx = find_sgid_index(context, port_num, &dgid);
	if (idx < 0) {
		errno = ENOENT;
		return -1;
	}
	ah_attr->is_global = 1;
	ah_attr->grh.dgid = sgid;
	ah_attr->grh.sgid_index = (uint8_t)idx;
	ah_attr->grh.hop_limit = 0xff;
	return 0;
}

XV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
					       struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

XV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
					  uint8_t eth_mac[6], uint16_t *vid)
{
	/* The HCA resolves neighbours itself; there is no user-space L2. */
	(void)context; (void)attr; (void)eth_mac; (void)vid;
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}
