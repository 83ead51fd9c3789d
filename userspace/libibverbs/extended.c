// SPDX-License-Identifier: BSD-2-Clause
/*
 * The extended verbs of rdma-core 44, reached through struct
 * verbs_context and the function pointers of struct ibv_cq_ex and struct
 * ibv_qp_ex: ibv_query_device_ex, ibv_create_cq_ex with ibv_start_poll /
 * ibv_next_poll / ibv_end_poll and the ibv_wc_read_* functions,
 * ibv_create_qp_ex with the ibv_wr_* post API, thread domains and parent
 * domains.  Documentation/libibverbs.rst says what each does on xib and
 * which requests are refused.
 *
 * They are built on the same libxib objects as the plain verbs: a CQ or
 * QP made either way is one struct xv_cq / xv_qp, so ibv_poll_cq works on
 * an extended CQ and ibv_post_send on an extended QP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"

/* ibv_cq_ex_to_cq() is a cast: the ibv_cq fields lead ibv_cq_ex. */
#define XV_CQ_SAME(f) (offsetof(struct ibv_cq, f) == offsetof(struct ibv_cq_ex, f))
_Static_assert(XV_CQ_SAME(context) && XV_CQ_SAME(channel) && XV_CQ_SAME(cq_context) &&
	       XV_CQ_SAME(handle) && XV_CQ_SAME(cqe) && XV_CQ_SAME(mutex) && XV_CQ_SAME(cond) &&
	       XV_CQ_SAME(comp_events_completed) && XV_CQ_SAME(async_events_completed),
	       "ibv_cq_ex starts with ibv_cq");
_Static_assert(offsetof(struct xv_cq, cq) == 0 && offsetof(struct xv_cq, cqx) == 0, "xv_cq");
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0 && offsetof(struct xv_qp, qp) == 0 &&
	       offsetof(struct xv_qp, qpx) == 0, "ibv_qp_ex starts with ibv_qp");
/* The offsets the header inlines of rdma-core 44 binaries use. */
_Static_assert(sizeof(struct ibv_cq_ex) == 288, "ibv_cq_ex");
_Static_assert(offsetof(struct ibv_cq_ex, status) == 132 && offsetof(struct ibv_cq_ex, wr_id) == 136,
	       "ibv_cq_ex status, wr_id");
_Static_assert(offsetof(struct ibv_cq_ex, start_poll) == 144 &&
	       offsetof(struct ibv_cq_ex, next_poll) == 152 &&
	       offsetof(struct ibv_cq_ex, end_poll) == 160 &&
	       offsetof(struct ibv_cq_ex, read_opcode) == 168 &&
	       offsetof(struct ibv_cq_ex, read_dlid_path_bits) == 240 &&
	       offsetof(struct ibv_cq_ex, read_completion_wallclock_ns) == 280,
	       "ibv_cq_ex function pointers");
_Static_assert(sizeof(struct ibv_qp_ex) == 352, "ibv_qp_ex");
_Static_assert(offsetof(struct ibv_qp_ex, wr_id) == 168 && offsetof(struct ibv_qp_ex, wr_flags) == 176,
	       "ibv_qp_ex wr_id, wr_flags");
_Static_assert(offsetof(struct ibv_qp_ex, wr_atomic_cmp_swp) == 184 &&
	       offsetof(struct ibv_qp_ex, wr_send) == 240 &&
	       offsetof(struct ibv_qp_ex, wr_set_ud_addr) == 272 &&
	       offsetof(struct ibv_qp_ex, wr_set_sge) == 304 &&
	       offsetof(struct ibv_qp_ex, wr_start) == 320 &&
	       offsetof(struct ibv_qp_ex, wr_complete) == 328 &&
	       offsetof(struct ibv_qp_ex, wr_abort) == 336 &&
	       offsetof(struct ibv_qp_ex, wr_atomic_write) == 344, "ibv_qp_ex function pointers");
_Static_assert(sizeof(struct ibv_cq_init_attr_ex) == 56 &&
	       offsetof(struct ibv_cq_init_attr_ex, parent_domain) == 48, "ibv_cq_init_attr_ex");
_Static_assert(offsetof(struct ibv_qp_init_attr_ex, send_ops_flags) == 128, "send_ops_flags");
_Static_assert(sizeof(struct ibv_parent_domain_init_attr) == 48 &&
	       offsetof(struct ibv_parent_domain_init_attr, pd_context) == 40, "parent domain attr");
_Static_assert(offsetof(struct verbs_context, alloc_parent_domain) == 320 - 208 &&
	       offsetof(struct verbs_context, dealloc_td) == 320 - 200 &&
	       offsetof(struct verbs_context, alloc_td) == 320 - 192 &&
	       offsetof(struct verbs_context, create_cq_ex) == 320 - 120, "verbs_context ops");
_Static_assert(XV_SAME(IBV_QP_EX_WITH_RDMA_WRITE, 1 << IBV_WR_RDMA_WRITE) &&
	       XV_SAME(IBV_QP_EX_WITH_SEND_WITH_IMM, 1 << IBV_WR_SEND_WITH_IMM) &&
	       XV_SAME(IBV_QP_EX_WITH_RDMA_READ, 1 << IBV_WR_RDMA_READ), "send ops flags");

static struct xib_context *xctx_of(struct ibv_context *ctx)
{
	return to_xctx(ctx)->x;
}

/* --- ibv_query_device_ex ------------------------------------------------------ */

/*
 * orig_attr is ibv_query_device's; device_cap_flags_ex the same bits (no
 * bit above 31 applies).  Everything xib does not have reads 0, which is
 * each field's "not supported": no ODP, completion timestamps (so no
 * hca_core_clock), TSO, RSS or WQs, packet pacing, tag matching, CQ
 * moderation, device memory, PCI atomics.  max_dm_size 0, and
 * raw_packet_caps 0 (no raw packet QPs).
 */
int xv_query_device_ex_op(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex ex;
	int ret;

	if ((in && in->comp_mask) || attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(&ex, 0, sizeof(ex));
	ret = ibv_query_device(ctx, &ex.orig_attr);
	if (ret)
		return ret;
	ex.device_cap_flags_ex = (uint32_t)ex.orig_attr.device_cap_flags;
	ex.phys_port_cnt_ex = ex.orig_attr.phys_port_cnt;
	memset(attr, 0, attr_size);
	memcpy(attr, &ex, attr_size < sizeof(ex) ? attr_size : sizeof(ex));
	return 0;
}

/* --- thread and parent domains -------------------------------------------------- */

struct ibv_td *xv_alloc_td_op(struct ibv_context *ctx, struct ibv_td_init_attr *attr)
{
	struct xv_td *td;

	if (!attr || attr->comp_mask)
		return xv_null(EINVAL);
	td = calloc(1, sizeof(*td));
	if (!td)
		return xv_null(ENOMEM);
	td->td.context = ctx;
	return &td->td;
}

int xv_dealloc_td_op(struct ibv_td *ibtd)
{
	struct xv_td *td = to_xtd(ibtd);

	if (__atomic_load_n(&td->users, __ATOMIC_ACQUIRE))
		return EBUSY;
	free(td);
	return 0;
}

/*
 * A parent domain is a struct xv_pd that shares its protection domain's
 * kernel PD.  Custom allocators are accepted and kept but never called:
 * every queue buffer xib has is kernel memory the library maps, none is
 * allocated in user space.
 */
struct ibv_pd *xv_alloc_parent_domain_op(struct ibv_context *ctx,
					 struct ibv_parent_domain_init_attr *attr)
{
	struct xv_pd *p, *prot;

	if (!attr || !attr->pd || attr->pd->context != ctx ||
	    (attr->td && attr->td->context != ctx))
		return xv_null(EINVAL);
	if (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))
		return xv_null(EINVAL);
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free))
		return xv_null(EINVAL);
	prot = to_xpd(attr->pd);
	if (prot->protection)
		return xv_null(EINVAL);	/* a parent domain extends a PD, not another one */
	p = calloc(1, sizeof(*p));
	if (!p)
		return xv_null(ENOMEM);
	p->pd.context = ctx;
	p->pd.handle = attr->pd->handle;
	p->x = prot->x;
	p->protection = prot;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		p->pd_context = attr->pd_context;
	if (attr->td) {
		p->td = to_xtd(attr->td);
		__atomic_add_fetch(&p->td->users, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&prot->users, 1, __ATOMIC_RELAXED);
	return &p->pd;
}

/* ibv_dealloc_pd of a parent domain. */
int xv_dealloc_parent_domain(struct xv_pd *p)
{
	if (__atomic_load_n(&p->users, __ATOMIC_ACQUIRE))
		return EBUSY;
	__atomic_sub_fetch(&p->protection->users, 1, __ATOMIC_RELEASE);
	if (p->td)
		__atomic_sub_fetch(&p->td->users, 1, __ATOMIC_RELEASE);
	free(p);
	return 0;
}

/* --- ibv_create_cq_ex and its poll functions ------------------------------------- */

/* What a CQE has: the standard fields.  No clock, VLAN, flow tag or TM. */
#define XV_WC_EX_SUPPORTED	((uint64_t)IBV_WC_STANDARD_FLAGS)
#define XV_CQ_INIT_MASK		(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)

static void cq_poll_lock(struct xv_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->poll_lock);
}

static void cq_poll_unlock(struct xv_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->poll_lock);
}

/* Take the next CQE into cq->cur: 0, ENOENT (none), or another errno. */
static int cq_take(struct xv_cq *cq)
{
	int n = xib_poll_cq(cq->x, 1, &cq->cur);

	if (n < 0)
		return xv_err(n);
	if (n == 0)
		return ENOENT;
	cq->cqx.wr_id = cq->cur.wr_id;
	cq->cqx.status = (enum ibv_wc_status)cq->cur.status;
	return 0;
}

/*
 * As rdma-core's providers: the CQ is held from a successful start to
 * end_poll; a start that finds nothing (ENOENT) or fails releases it, and
 * end_poll must then not be called.
 */
static int xv_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct xv_cq *cq = to_xcqx(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	cq_poll_lock(cq);
	ret = cq_take(cq);
	if (ret)
		cq_poll_unlock(cq);
	return ret;
}

static int xv_next_poll(struct ibv_cq_ex *ibcq)
{
	return cq_take(to_xcqx(ibcq));
}

static void xv_end_poll(struct ibv_cq_ex *ibcq)
{
	cq_poll_unlock(to_xcqx(ibcq));
}

static enum ibv_wc_opcode xv_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)to_xcqx(ibcq)->cur.opcode;
}

static uint32_t xv_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.vendor_err;
}

static uint32_t xv_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.byte_len;
}

static __be32 xv_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.imm_data;
}

static uint32_t xv_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.qp_num;
}

static uint32_t xv_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.src_qp;
}

static unsigned int xv_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.wc_flags;
}

static uint32_t xv_read_slid(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.slid;
}

static uint8_t xv_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.sl;
}

static uint8_t xv_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_xcqx(ibcq)->cur.dlid_path_bits;
}

/*
 * The read functions of the fields asked for in wc_flags are set, and
 * those always valid (opcode, vendor_err, wc_flags); the others stay
 * NULL, as rdma-core's providers leave them.
 */
static void cq_fill_ops(struct xv_cq *cq)
{
	struct ibv_cq_ex *c = &cq->cqx;
	uint64_t f = cq->wc_flags;

	c->start_poll = xv_start_poll;
	c->next_poll = xv_next_poll;
	c->end_poll = xv_end_poll;
	c->read_opcode = xv_read_opcode;
	c->read_vendor_err = xv_read_vendor_err;
	c->read_wc_flags = xv_read_wc_flags;
	if (f & IBV_WC_EX_WITH_BYTE_LEN)
		c->read_byte_len = xv_read_byte_len;
	if (f & IBV_WC_EX_WITH_IMM)
		c->read_imm_data = xv_read_imm_data;
	if (f & IBV_WC_EX_WITH_QP_NUM)
		c->read_qp_num = xv_read_qp_num;
	if (f & IBV_WC_EX_WITH_SRC_QP)
		c->read_src_qp = xv_read_src_qp;
	if (f & IBV_WC_EX_WITH_SLID)
		c->read_slid = xv_read_slid;
	if (f & IBV_WC_EX_WITH_SL)
		c->read_sl = xv_read_sl;
	if (f & IBV_WC_EX_WITH_DLID_PATH_BITS)
		c->read_dlid_path_bits = xv_read_dlid_path_bits;
}

/*
 * Refused as mlx5 refuses: unknown comp_mask bits and creation flags
 * EINVAL, wc_flags xib's CQEs do not carry EOPNOTSUPP; also
 * IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN (EOPNOTSUPP: an overrun always stops
 * the CQ's QPs), and a parent_domain that is not one (EINVAL).
 * SINGLE_THREADED, or a parent domain with a thread domain, drops the
 * CQ's locks.
 */
struct ibv_cq_ex *xv_create_cq_ex_op(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_pd *parent = NULL;
	int single = 0;
	struct xv_cq *cq;

	if (!attr->cqe || attr->cqe > INT32_MAX || (attr->comp_mask & ~(uint32_t)XV_CQ_INIT_MASK))
		return xv_null(EINVAL);
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
					      IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
			return xv_null(EINVAL);
		if (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)
			return xv_null(EOPNOTSUPP);
		single = !!(attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		parent = attr->parent_domain;
		if (!parent || parent->context != ctx || !to_xpd(parent)->protection)
			return xv_null(EINVAL);
		if (to_xpd(parent)->td)
			single = 1;
	}
	if (attr->wc_flags & ~XV_WC_EX_SUPPORTED)
		return xv_null(EOPNOTSUPP);
	if (attr->comp_vector > INT32_MAX)
		return xv_null(EINVAL);
	cq = xv_create_cq(ctx, (int)attr->cqe, attr->cq_context, attr->channel,
			  (int)attr->comp_vector);
	if (!cq)
		return NULL;
	cq->wc_flags = attr->wc_flags;
	cq->single_threaded = single;
	if (single)
		xib_cq_set_single_threaded(cq->x);
	if (parent) {
		cq->parent = parent;
		xv_pd_hold(parent);
	}
	cq_fill_ops(cq);
	return &cq->cqx;
}

/* --- ibv_create_qp_ex and the ibv_wr_* post API ---------------------------------- */

/*
 * send_ops_flags xib can do, per QP type.  Atomics follow the device's
 * atomic_cap (the builders are below and work once the HCA reports
 * atomics); memory windows: BIND_MW (type 2) and LOCAL_INV on RC and UC,
 * SEND_WITH_INV on RC; TSO and ATOMIC_WRITE have no HCA support:
 * EOPNOTSUPP.
 */
#define XV_SEND_OPS_MW	((uint64_t)(IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV))
#define XV_SEND_OPS_RC	((uint64_t)(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
				    IBV_QP_EX_WITH_RDMA_WRITE |				\
				    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
				    IBV_QP_EX_WITH_RDMA_READ | XV_SEND_OPS_MW |		\
				    IBV_QP_EX_WITH_SEND_WITH_INV))
#define XV_SEND_OPS_ATOMIC ((uint64_t)(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |			\
				       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD))
#define XV_SEND_OPS_UD	((uint64_t)(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM))
/* UC: SENDs and RDMA WRITEs; the IBTA has no UC READ or atomic. */
#define XV_SEND_OPS_UC	((uint64_t)(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
				    IBV_QP_EX_WITH_RDMA_WRITE |				\
				    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | XV_SEND_OPS_MW))

#define XV_WR_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static void wr_fail(struct xv_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* Hand the WR being built to libxib (it checks and writes the WQE). */
static void wr_put(struct xv_qp *qp)
{
	int ret;

	if (!qp->wr_open)
		return;
	qp->wr_open = 0;
	if (qp->wr_err)
		return;
	ret = xib_sq_put(qp->x, &qp->wr);
	if (ret)
		wr_fail(qp, ret);
}

/* A builder: the previous WR is complete; start one with @opcode. */
static struct xib_send_wr *wr_begin(struct ibv_qp_ex *ibqp, uint32_t opcode)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = &qp->wr;

	wr_put(qp);
	if (!qp->wr_locked)
		wr_fail(qp, EINVAL);	/* no ibv_wr_start, or it failed */
	if (qp->wr_err)
		return NULL;
	if (ibqp->wr_flags & ~(unsigned int)XV_WR_FLAGS) {
		wr_fail(qp, (ibqp->wr_flags & IBV_SEND_IP_CSUM) ? EOPNOTSUPP : EINVAL);
		return NULL;
	}
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ibqp->wr_id;
	wr->opcode = opcode;
	/* Inline or not is what the data setter says, as in mlx5. */
	wr->send_flags = ibqp->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	wr->sg_list = qp->sges;
	if (qp->qp.qp_type == IBV_QPT_UD)
		wr->wr.ud.ah = NULL;	/* ibv_wr_set_ud_addr must follow */
	qp->wr_open = 1;
	return wr;
}

/* A setter: the WR it applies to, or NULL (no builder before it). */
static struct xib_send_wr *wr_cur(struct ibv_qp_ex *ibqp)
{
	struct xv_qp *qp = to_xqpx(ibqp);

	if (!qp->wr_open) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	return qp->wr_err ? NULL : &qp->wr;
}

static void xv_wr_send(struct ibv_qp_ex *ibqp)
{
	wr_begin(ibqp, XIB_HCA_WR_SEND);
}

static void xv_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm)
{
	struct xib_send_wr *wr = wr_begin(ibqp, XIB_HCA_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm;
}

static void wr_rdma(struct ibv_qp_ex *ibqp, uint32_t opcode, uint32_t rkey, uint64_t addr,
		    __be32 imm)
{
	struct xib_send_wr *wr = wr_begin(ibqp, opcode);

	if (!wr)
		return;
	wr->wr.rdma.remote_addr = addr;
	wr->wr.rdma.rkey = rkey;
	wr->imm_data = imm;
}

static void xv_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ibqp, XIB_HCA_WR_RDMA_WRITE, rkey, addr, 0);
}

static void xv_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
				 __be32 imm)
{
	wr_rdma(ibqp, XIB_HCA_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void xv_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ibqp, XIB_HCA_WR_RDMA_READ, rkey, addr, 0);
}

/*
 * Atomics: set only when the device reports atomic_cap other than NONE
 * (see create_qp_ex); the HCA checks alignment and access.
 */
static void wr_atomic(struct ibv_qp_ex *ibqp, uint32_t opcode, uint32_t rkey, uint64_t addr,
		      uint64_t compare_add, uint64_t swap)
{
	struct xib_send_wr *wr = wr_begin(ibqp, opcode);

	if (!wr)
		return;
	wr->wr.atomic.remote_addr = addr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void xv_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
				 uint64_t compare, uint64_t swap)
{
	wr_atomic(ibqp, XIB_HCA_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void xv_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
				   uint64_t add)
{
	wr_atomic(ibqp, XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

/*
 * What the HCA cannot do (TSO, ATOMIC_WRITE, XRC): the create refuses
 * these send_ops_flags, and a call anyway fails the batch.
 */
static void wr_unsupported(struct ibv_qp_ex *ibqp)
{
	struct xv_qp *qp = to_xqpx(ibqp);

	wr_put(qp);
	wr_fail(qp, EOPNOTSUPP);
}

/*
 * Memory windows: a type 2 bind (the window's current rkey names it,
 * @rkey is the one it gets), LOCAL_INV on RC and UC, SEND_WITH_INV on RC
 * (a data setter follows, as for SEND); on another QP type the batch
 * fails with EINVAL, as ibv_post_send does.
 */
static void xv_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw, uint32_t rkey,
			  const struct ibv_mw_bind_info *info)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_begin(ibqp, XIB_HCA_WR_BIND_MW);

	if (!wr)
		return;
	if (qp->qp.qp_type == IBV_QPT_UD || !mw || mw->type != IBV_MW_TYPE_2 || !info ||
	    (info->length && !info->mr) || (info->mw_access_flags & ~0xffffu)) {
		wr_fail(qp, EINVAL);
		return;
	}
	wr->num_sge = 0;
	wr->wr.bind.addr = info->addr;
	wr->wr.bind.length = info->length;
	wr->wr.bind.mw_rkey = mw->rkey;
	wr->wr.bind.new_rkey = rkey;
	wr->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wr->wr.bind.access = info->mw_access_flags;
}

static void xv_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_begin(ibqp, XIB_HCA_WR_LOCAL_INV);

	if (!wr)
		return;
	if (qp->qp.qp_type == IBV_QPT_UD)
		wr_fail(qp, EINVAL);
	wr->invalidate_rkey = rkey;
}

static void xv_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_begin(ibqp, XIB_HCA_WR_SEND_WITH_INV);

	if (!wr)
		return;
	if (qp->qp.qp_type != IBV_QPT_RC && qp->qp.qp_type != IBV_QPT_XRC_SEND)
		wr_fail(qp, EINVAL);
	wr->invalidate_rkey = rkey;
}

static void xv_wr_send_tso(struct ibv_qp_ex *ibqp, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr; (void)hdr_sz; (void)mss;
	wr_unsupported(ibqp);
}

static void xv_wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
			       const void *data)
{
	(void)rkey; (void)addr; (void)data;
	wr_unsupported(ibqp);
}

/* XRC_SEND: the remote XRC SRQ of the WR being built (the XRCETH). */
static void xv_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t srqn)
{
	struct xib_send_wr *wr;

	if (ibqp->qp_base.qp_type != IBV_QPT_XRC_SEND) {
		wr_unsupported(ibqp);
		return;
	}
	wr = wr_cur(ibqp);
	if (wr)
		wr->xrc_remote_srqn = srqn;
}

/* RDMA on a UD QP, READ on UC, atomics without atomic_cap or off RC: likewise. */
static void xv_wr_no_rdma(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr)
{
	(void)rkey; (void)addr;
	wr_unsupported(ibqp);
}

static void xv_wr_no_rdma_imm(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr, __be32 imm)
{
	(void)rkey; (void)addr; (void)imm;
	wr_unsupported(ibqp);
}

static void xv_wr_no_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
			     uint64_t compare, uint64_t swap)
{
	(void)rkey; (void)addr; (void)compare; (void)swap;
	wr_unsupported(ibqp);
}

static void xv_wr_no_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t addr,
			       uint64_t add)
{
	(void)rkey; (void)addr; (void)add;
	wr_unsupported(ibqp);
}

static void xv_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah, uint32_t remote_qpn,
			      uint32_t remote_qkey)
{
	struct xib_send_wr *wr = wr_cur(ibqp);

	if (!wr)
		return;
	if (!ah || ah->context != ibqp->qp_base.context) {
		wr_fail(to_xqpx(ibqp), EINVAL);
		return;
	}
	wr->wr.ud.ah = to_xah(ah)->x;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

/* An RC QP has no address to set: a call is the caller's error. */
static void xv_wr_set_ud_addr_rc(struct ibv_qp_ex *ibqp, struct ibv_ah *ah, uint32_t remote_qpn,
				 uint32_t remote_qkey)
{
	(void)ah; (void)remote_qpn; (void)remote_qkey;
	if (wr_cur(ibqp))
		wr_fail(to_xqpx(ibqp), EINVAL);
}

/* SGEs of length 0 carry nothing and are left out, as in mlx5. */
static void xv_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_cur(ibqp);

	if (!wr)
		return;
	wr->send_flags &= ~(uint32_t)IBV_SEND_INLINE;
	wr->sg_list = qp->sges;
	wr->num_sge = 0;
	if (!length)
		return;
	qp->sges[0].addr = addr;
	qp->sges[0].length = length;
	qp->sges[0].lkey = lkey;
	wr->num_sge = 1;
}

static void xv_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_cur(ibqp);
	size_t i;
	int n = 0;

	if (!wr)
		return;
	if (num_sge > qp->x->cap.max_send_sge) {
		wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_sge; i++) {
		if (!sg_list[i].length)
			continue;
		qp->sges[n].addr = sg_list[i].addr;
		qp->sges[n].length = sg_list[i].length;
		qp->sges[n].lkey = sg_list[i].lkey;
		n++;
	}
	wr->send_flags &= ~(uint32_t)IBV_SEND_INLINE;
	wr->sg_list = qp->sges;
	wr->num_sge = n;
}

/* Inline data is copied at once: the caller's buffers may go after the call. */
static void xv_wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num_buf,
				       const struct ibv_data_buf *buf_list)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	struct xib_send_wr *wr = wr_cur(ibqp);
	size_t i, len = 0, max = qp->x->cap.max_inline_data;

	if (!wr)
		return;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > max - len) {
			wr_fail(qp, EINVAL);
			return;
		}
		if (buf_list[i].length)
			memcpy(qp->inl + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	qp->inl_sge.addr = (uintptr_t)qp->inl;
	qp->inl_sge.length = (uint32_t)len;
	qp->inl_sge.lkey = 0;
	wr->sg_list = &qp->inl_sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void xv_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr, size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	xv_wr_set_inline_data_list(ibqp, 1, &b);
}

/*
 * A batch: ibv_wr_start takes the send queue (EINVAL for the batch if the
 * QP is below RTS); the builders and setters fill WQEs that are not yet
 * published; ibv_wr_complete publishes them all with at most one kick, or
 * none of them if any WR of the batch was bad (its error is returned);
 * ibv_wr_abort drops them.
 */
static void xv_wr_start(struct ibv_qp_ex *ibqp)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	int ret = xib_sq_begin(qp->x);

	qp->wr_open = 0;
	qp->wr_err = ret;
	qp->wr_locked = !ret;
}

static int xv_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct xv_qp *qp = to_xqpx(ibqp);
	int ret;

	wr_put(qp);
	ret = qp->wr_err;
	if (qp->wr_locked) {
		if (ret)
			xib_sq_abort(qp->x);
		else
			xib_sq_end(qp->x);
	} else if (!ret) {
		ret = EINVAL;	/* no ibv_wr_start */
	}
	qp->wr_locked = 0;
	qp->wr_err = 0;
	return ret;
}

static void xv_wr_abort(struct ibv_qp_ex *ibqp)
{
	struct xv_qp *qp = to_xqpx(ibqp);

	qp->wr_open = 0;
	if (qp->wr_locked)
		xib_sq_abort(qp->x);
	qp->wr_locked = 0;
	qp->wr_err = 0;
}

static void qp_fill_wr_ops(struct xv_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *q = &qp->qpx;
	int ud = qp->qp.qp_type == IBV_QPT_UD;

	q->wr_start = xv_wr_start;
	q->wr_complete = xv_wr_complete;
	q->wr_abort = xv_wr_abort;
	q->wr_send = xv_wr_send;
	q->wr_send_imm = xv_wr_send_imm;
	q->wr_rdma_write = ud ? xv_wr_no_rdma : xv_wr_rdma_write;
	q->wr_rdma_write_imm = ud ? xv_wr_no_rdma_imm : xv_wr_rdma_write_imm;
	int rc = qp->qp.qp_type == IBV_QPT_RC || qp->qp.qp_type == IBV_QPT_XRC_SEND;

	q->wr_rdma_read = rc ? xv_wr_rdma_read : xv_wr_no_rdma;
	/* Atomics only where create_qp_ex allowed them (RC, XRC, atomic_cap). */
	if (rc && (ops & XV_SEND_OPS_ATOMIC)) {
		q->wr_atomic_cmp_swp = xv_wr_atomic_cmp_swp;
		q->wr_atomic_fetch_add = xv_wr_atomic_fetch_add;
	} else {
		q->wr_atomic_cmp_swp = xv_wr_no_cmp_swp;
		q->wr_atomic_fetch_add = xv_wr_no_fetch_add;
	}
	q->wr_bind_mw = xv_wr_bind_mw;
	q->wr_local_inv = xv_wr_local_inv;
	q->wr_send_inv = xv_wr_send_inv;
	q->wr_send_tso = xv_wr_send_tso;
	q->wr_atomic_write = xv_wr_atomic_write;
	q->wr_set_xrc_srqn = xv_wr_set_xrc_srqn;
	q->wr_set_ud_addr = ud ? xv_wr_set_ud_addr : xv_wr_set_ud_addr_rc;
	q->wr_set_sge = xv_wr_set_sge;
	q->wr_set_sge_list = xv_wr_set_sge_list;
	q->wr_set_inline_data = xv_wr_set_inline_data;
	q->wr_set_inline_data_list = xv_wr_set_inline_data_list;
}

void xv_qp_ex_free(struct xv_qp *qp)
{
	free(qp->sges);
	free(qp->inl);
}

#define XV_QP_INIT_MASK	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |	\
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_XRCD)

/*
 * PD (or parent domain), CQs, SRQ, caps and, with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, an ibv_qp_ex for the ibv_wr_* API.
 * XRC_SEND QPs as RC ones (a PD, a send CQ; the receive side is
 * ignored); XRC_RECV QPs with IBV_QP_INIT_ATTR_XRCD and nothing else.
 * Refused: RSS, TSO, create flags, the other comp_mask bits
 * (EOPNOTSUPP, as the plain create refuses raw packet QPs),
 * send_ops_flags the QP type or the HCA cannot do (EOPNOTSUPP).
 */
struct ibv_qp *xv_create_qp_ex_op(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct xib_context *x = xctx_of(ctx);
	struct ibv_qp_init_attr init;
	uint64_t ops = 0;
	struct xv_qp *qp;

	if (attr->comp_mask & ~(uint32_t)XV_QP_INIT_MASK)
		return xv_null(EOPNOTSUPP);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)
		return xv_null(EOPNOTSUPP);
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		/* an XRC target: a domain, and no PD, CQ, SRQ or queue */
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) ||
		    (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
			return xv_null(EINVAL);
		qp = xv_tgt_qp(ctx, attr->xrcd, 0, attr->qp_context);
		if (!qp)
			return NULL;
		memset(&attr->cap, 0, sizeof(attr->cap));
		return &qp->qp;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd || attr->pd->context != ctx ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD))
		return xv_null(EINVAL);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		uint64_t can;

		ops = attr->send_ops_flags;
		can = attr->qp_type == IBV_QPT_UD ? XV_SEND_OPS_UD :
		      attr->qp_type == IBV_QPT_UC ? XV_SEND_OPS_UC : XV_SEND_OPS_RC;
		if ((attr->qp_type == IBV_QPT_RC || attr->qp_type == IBV_QPT_XRC_SEND) &&
		    x->attr.atomic_cap != IBV_ATOMIC_NONE)
			can |= XV_SEND_OPS_ATOMIC;
		if (ops & ~can)
			return xv_null(EOPNOTSUPP);
	}
	memset(&init, 0, sizeof(init));
	init.qp_context = attr->qp_context;
	init.send_cq = attr->send_cq;
	init.recv_cq = attr->recv_cq;
	init.srq = attr->srq;
	init.cap = attr->cap;
	init.qp_type = attr->qp_type;
	init.sq_sig_all = attr->sq_sig_all;
	qp = xv_create_qp(ctx, attr->pd, &init);
	if (!qp)
		return NULL;
	attr->cap = init.cap;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->sges = calloc(qp->x->cap.max_send_sge ? qp->x->cap.max_send_sge : 1,
				  sizeof(*qp->sges));
		qp->inl = malloc(qp->x->cap.max_inline_data ? qp->x->cap.max_inline_data : 1);
		if (!qp->sges || !qp->inl) {
			ibv_destroy_qp(&qp->qp);
			return xv_null(ENOMEM);
		}
		qp_fill_wr_ops(qp, ops);
		qp->is_ex = 1;
	}
	return &qp->qp;
}
