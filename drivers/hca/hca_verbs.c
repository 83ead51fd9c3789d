// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca verbs: the driver ops xib_core calls (process context) for user
 * contexts, PDs, MRs, CQs, QPs, SRQs and AHs, and the kick doorbell.
 *
 * The core has validated arguments against the device limits and the QP
 * state machine; these functions set up the engine's state: rings, shadow
 * indices, paths.  Locking: modify_qp runs under the core's qp->mutex and
 * takes sq.lock and rq.lock to change what the engine uses (see hca.h).
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hca.h"
#include "hca_trace.h"

static_assert(offsetof(struct xib_hca_pd, ibpd) == 0);
static_assert(offsetof(struct xib_hca_mr, ibmr) == 0);
static_assert(offsetof(struct xib_hca_cq, ibcq) == 0);
static_assert(offsetof(struct xib_hca_qp, ibqp) == 0);
static_assert(offsetof(struct xib_hca_srq, ibsrq) == 0);
static_assert(offsetof(struct xib_hca_ah, ibah) == 0);

/* Device attributes and limits (issue 3), before registration. */
void xib_hca_set_attrs(struct xib_hca_dev *hca)
{
	struct xib_uverbs_device_attr *a = &hca->xdev.attrs;

	memset(a, 0, sizeof(*a));
	a->fw_ver = 1;
	a->max_mr_size = ~0ULL;
	a->page_size_cap = PAGE_SIZE;
	a->vendor_id = 0;
	/*
	 * What the HCA honours; the core adds its own (xib_query_device()).
	 * RC_RNR_NAK_GEN: the responder answers a SEND without a receive
	 * WQE with an RNR NAK (hca_resp.c); SRQ_RESIZE: resize_srq;
	 * MEM_WINDOW and MEM_WINDOW_TYPE_2B: memory windows of type 1 and
	 * 2B (bound by the requester, checked by the responder); XRC:
	 * XRC domains, SRQs, initiators and targets, every operation to a
	 * target in the PD of the XRC SRQ it names (hca_resp.c).  Not
	 * set, because not done: RESIZE_MAX_WR (no QP resize), the P_Key
	 * and Q_Key violation counters (the Q_Key drops are counted, but no
	 * port attribute reports them), RAW_MULTI, AUTO_PATH_MIG,
	 * CHANGE_PHY_PORT (one port), UD_AV_PORT_ENFORCE, SHUTDOWN_PORT,
	 * INIT_TYPE, N_NOTIFY_CQ, type 2A windows, checksum offloads,
	 * MEM_MGT_EXTENSIONS (fast registration), flow steering.
	 */
	a->device_cap_flags = XIB_DEVICE_RC_RNR_NAK_GEN | XIB_DEVICE_SRQ_RESIZE |
			      XIB_DEVICE_MEM_WINDOW |
			      XIB_DEVICE_MEM_WINDOW_TYPE_2B | XIB_DEVICE_XRC;
	/*
	 * Nothing is sized by these: QPNs and CQNs are xarray entries,
	 * the doorbell page has no per-QP slot, and rings are charged to
	 * their creator's memory cgroup; only the engine's pass visits
	 * each QP (hca_engine.c).
	 */
	a->max_qp = XIB_HCA_MAX_QP;
	a->max_qp_wr = 16384;
	a->max_sge = XIB_HCA_MAX_SGE;
	a->max_sge_rd = XIB_HCA_MAX_SGE;
	a->max_cq = XIB_HCA_MAX_QP;
	a->max_cqe = 65536;
	a->max_mr = 16384;
	a->max_mw = 16384;
	a->max_pd = 4096;
	a->max_qp_rd_atom = XIB_HCA_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = XIB_HCA_MAX_RD_ATOM;
	a->max_res_rd_atom = XIB_HCA_MAX_RD_ATOM * XIB_HCA_MAX_QP;
	/* CMP_SWAP and FETCH_ADD; hca_atomic.c says why HCA, not GLOB */
	a->atomic_cap = XIB_ATOMIC_HCA;
	a->max_ah = 16384;
	a->max_mcast_grp = XIB_HCA_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = XIB_HCA_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = XIB_HCA_MAX_TOTAL_MCAST_QP;
	a->max_srq = XIB_HCA_MAX_QP / 4;
	a->max_srq_wr = 16384;
	a->max_srq_sge = XIB_HCA_MAX_SGE;
	a->max_inline_data = XIB_HCA_MAX_INLINE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
}

/* --- user context ---------------------------------------------------------- */

/*
 * The doorbell page, and for a device on a PCI function whose BAR0 page
 * is its own, the UAR (pci.c).  hca->pci does not change while the
 * device is registered.
 */
static int xib_hca_alloc_ucontext(struct xib_ucontext *uctx,
				  struct xib_ucontext_resp *resp)
{
	struct xib_hca_dev *hca = to_hca_dev(uctx->device);
	int ret;

	ret = xib_mmap_publish(uctx, hca->db, &resp->db_offset);
	if (ret)
		return ret;
	resp->db_size = hca->db->size;
	if (hca->pci) {
		ret = xib_hca_pci_publish_uar(hca->pci, uctx, resp);
		if (ret) {
			xib_mmap_unpublish(uctx, resp->db_offset);
			resp->db_size = 0;
			return ret;
		}
	}
	return 0;
}

/*
 * User space kicks only when the engine sleeps.  Rather than wait until
 * the worker thread gets a CPU (on a busy machine, a scheduler tick or
 * more), send in the caller's context what the worker would send first;
 * then wake the worker anyway, for what is left and so that it polls
 * or dozes for the next posts (idle_spin_us, idle_doze_us) instead of
 * making each one kick.
 */
static int xib_hca_kick(struct xib_qp *ibqp)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);
	u64 t0 = xib_hca_prof_begin(), t1;

	xib_hca_stat_inc(qp_hca(qp), XIB_HCA_STAT_KICKS);
	trace_xib_hca_kick(ibqp->device->index, ibqp->qp_num);
	xib_hca_req_run(qp, XIB_HCA_QP_BUDGET);
	t1 = xib_hca_prof_begin();
	xib_hca_wake(qp_hca(qp));
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_KICK_WAKE, t1);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_KICK, t0);
	return 0;
}

/* --- PD, MR, AH --------------------------------------------------------- */

static int xib_hca_alloc_pd(struct xib_pd *pd)
{
	return 0;
}

static void xib_hca_dealloc_pd(struct xib_pd *pd)
{
}

static int xib_hca_reg_mr(struct xib_mr *mr)
{
	return 0;
}

static void xib_hca_dereg_mr(struct xib_mr *mr)
{
}

/**
 * xib_hca_path_from_av() - where packets to an address vector go
 * @hca: the device
 * @av: the address vector (checked by the core: port 1, GID index valid)
 * @flow_seed: mixed into the UDP source port (e.g. the QPN)
 * @path: filled in
 *
 * Return: 0, or -EINVAL if the source GID no longer exists.
 */
int xib_hca_path_from_av(struct xib_hca_dev *hca,
			 const struct xib_uverbs_ah_attr *av, u32 flow_seed,
			 struct xib_hca_path *path)
{
	u32 h;
	int ret;

	memset(path, 0, sizeof(*path));
	ret = xib_query_gid(&hca->xdev, 1, av->sgid_index, path->sgid);
	if (ret)
		return ret;
	memcpy(path->dgid, av->dgid, sizeof(path->dgid));
	path->flow_label = av->flow_label & 0xfffff;
	path->hop_limit = av->hop_limit ? av->hop_limit : 64;
	path->traffic_class = av->traffic_class;
	h = path->flow_label ? path->flow_label : hash_32(flow_seed, 14);
	path->src_port = 0xc000 | (h & 0x3fff);
	return 0;
}

static int xib_hca_create_ah(struct xib_ah *ibah)
{
	struct xib_hca_ah *ah = to_hca_ah(ibah);

	return xib_hca_path_from_av(to_hca_dev(ibah->device), &ibah->attr,
				    ibah->ahn, &ah->path);
}

static void xib_hca_destroy_ah(struct xib_ah *ibah)
{
}

/* --- CQ ----------------------------------------------------------------- */

static int xib_hca_create_cq(struct xib_cq *ibcq,
			     const struct xib_cq_init_attr *attr,
			     struct xib_ucontext *uctx,
			     struct xib_uverbs_ring *ring)
{
	struct xib_hca_cq *cq = to_hca_cq(ibcq);
	u32 slots = roundup_pow_of_two(max(attr->cqe, 1U));
	int ret;

	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->ev_node);
	ret = xib_hca_ring_alloc(to_hca_dev(ibcq->device), &cq->ring, uctx,
				 slots, sizeof(struct xib_hca_cqe), ring);
	if (ret)
		return ret;
	ibcq->cqe = slots;
	return 0;
}

/* Copy the unpolled CQEs of @cq into @new; false if they do not fit. */
static bool xib_hca_cq_move(struct xib_hca_cq *cq, struct xib_hca_ring *new)
{
	struct xib_hca_cq_hdr *old_hdr = xib_hca_ring_hdr(&cq->ring);
	struct xib_hca_cq_hdr *new_hdr = xib_hca_ring_hdr(new);
	/* pairs with user space's release store of cons after polling */
	u32 cons = smp_load_acquire(&old_hdr->cons);
	u32 n, i;

	lockdep_assert_held(&cq->lock);
	if (!xib_ring_count_valid(cq->prod, cons, cq->ring.slots))
		return false;
	n = xib_ring_count(cq->prod, cons);
	if (n > new->slots)
		return false;
	for (i = 0; i < n; i++)
		memcpy(xib_hca_ring_slot(new, i),
		       xib_hca_ring_slot(&cq->ring, cons + i),
		       sizeof(struct xib_hca_cqe));
	new_hdr->prod = n;
	new_hdr->cons = 0;
	new_hdr->flags = READ_ONCE(old_hdr->flags);
	new_hdr->arm = READ_ONCE(old_hdr->arm);
	new_hdr->armed_sn = cq->fired_sn;
	cq->prod = n;
	return true;
}

static int xib_hca_resize_cq(struct xib_cq *ibcq, u32 cqe,
			     struct xib_uverbs_ring *ring)
{
	struct xib_hca_cq *cq = to_hca_cq(ibcq);
	struct xib_hca_ring new, old;
	bool moved;
	int ret;

	ret = xib_hca_ring_alloc(to_hca_dev(ibcq->device), &new, ibcq->uctx,
				 roundup_pow_of_two(max(cqe, 1U)),
				 sizeof(struct xib_hca_cqe), ring);
	if (ret)
		return ret;
	spin_lock_irq(&cq->lock);
	moved = xib_hca_cq_move(cq, &new);
	if (moved) {
		old = cq->ring;
		cq->ring = new;
		ibcq->cqe = new.slots;
	}
	spin_unlock_irq(&cq->lock);
	if (!moved) {
		xib_hca_ring_unpublish(&new);
		xib_hca_ring_free(&new);
		return -EINVAL;
	}
	xib_hca_ring_unpublish(&old);
	xib_hca_ring_free(&old);
	return 0;
}

static void xib_hca_destroy_cq(struct xib_cq *ibcq)
{
	struct xib_hca_cq *cq = to_hca_cq(ibcq);
	unsigned long flags;

	/* an event the PCI function's handler has yet to deliver is dropped */
	spin_lock_irqsave(&cq->lock, flags);
	cq->dead = true;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (to_hca_dev(ibcq->device)->pci) {
		xib_hca_pci_cq_gone(to_hca_dev(ibcq->device)->pci, cq);
		xib_hca_pci_async_gone(to_hca_dev(ibcq->device)->pci, ibcq);
	}
	xib_hca_ring_unpublish(&cq->ring);
}

static void xib_hca_release_cq(struct xib_cq *ibcq)
{
	xib_hca_ring_free(&to_hca_cq(ibcq)->ring);
}

/* --- SRQ ---------------------------------------------------------------- */

static u32 xib_hca_recv_stride(u32 max_sge)
{
	return roundup_pow_of_two(sizeof(struct xib_hca_recv_wqe) +
				  sizeof(struct xib_hca_sge) * max(max_sge, 1U));
}

static int xib_hca_create_srq(struct xib_srq *ibsrq,
			      struct xib_srq_init_attr *attr,
			      struct xib_ucontext *uctx,
			      struct xib_uverbs_ring *ring)
{
	struct xib_hca_srq *srq = to_hca_srq(ibsrq);
	u32 slots = roundup_pow_of_two(max(attr->max_wr, 1U));
	int ret;

	if (attr->max_sge > XIB_HCA_MAX_SGE)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	ret = xib_hca_ring_alloc(to_hca_dev(ibsrq->device), &srq->ring, uctx,
				 slots, xib_hca_recv_stride(attr->max_sge), ring);
	if (ret)
		return ret;
	attr->max_wr = slots;
	ibsrq->max_wr = slots;
	ibsrq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	return 0;
}

static int xib_hca_modify_srq(struct xib_srq *ibsrq, u32 srq_limit)
{
	struct xib_hca_srq *srq = to_hca_srq(ibsrq);

	spin_lock_bh(&srq->lock);
	srq->limit = srq_limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

/* Copy the posted WQEs of @srq not yet taken into @new; false if they do not fit. */
static bool xib_hca_srq_move(struct xib_hca_srq *srq, struct xib_hca_ring *new)
{
	struct xib_hca_wq_hdr *new_hdr = xib_hca_ring_hdr(new);
	u32 prod = xib_hca_ring_read_prod(&srq->ring);
	u32 n, i;

	lockdep_assert_held(&srq->lock);
	if (!xib_ring_count_valid(prod, srq->cons, srq->ring.slots))
		return false;
	n = xib_ring_count(prod, srq->cons);
	if (n > new->slots)
		return false;
	for (i = 0; i < n; i++)
		memcpy(xib_hca_ring_slot(new, i),
		       xib_hca_ring_slot(&srq->ring, srq->cons + i),
		       srq->ring.stride);
	WRITE_ONCE(new_hdr->prod, n);
	WRITE_ONCE(new_hdr->cons, 0);
	srq->cons = 0;
	return true;
}

/*
 * The new ring is allocated (and charged) before the lock; the engine,
 * which takes WQEs under srq->lock, sees the old ring or the new one.
 */
static int xib_hca_resize_srq(struct xib_srq *ibsrq, u32 *max_wr,
			      struct xib_uverbs_ring *ring)
{
	struct xib_hca_srq *srq = to_hca_srq(ibsrq);
	struct xib_hca_ring new, old;
	bool moved;
	int ret;

	ret = xib_hca_ring_alloc(to_hca_dev(ibsrq->device), &new, ibsrq->uctx,
				 roundup_pow_of_two(*max_wr), srq->ring.stride,
				 ring);
	if (ret)
		return ret;
	spin_lock_bh(&srq->lock);
	moved = xib_hca_srq_move(srq, &new);
	if (moved) {
		old = srq->ring;
		srq->ring = new;
	}
	spin_unlock_bh(&srq->lock);
	if (!moved) {
		xib_hca_ring_unpublish(&new);
		xib_hca_ring_free(&new);
		return -EINVAL;
	}
	xib_hca_ring_unpublish(&old);
	xib_hca_ring_free(&old);
	*max_wr = new.slots;
	return 0;
}

static void xib_hca_destroy_srq(struct xib_srq *ibsrq)
{
	struct xib_hca_dev *hca = to_hca_dev(ibsrq->device);

	/*
	 * No QP takes receives from it any more (the core destroys an SRQ
	 * only when no QP uses it): the engine raises no more of its events;
	 * one the PCI function's handler has yet to deliver is dropped.
	 */
	if (hca->pci)
		xib_hca_pci_async_gone(hca->pci, ibsrq);
	xib_hca_ring_unpublish(&to_hca_srq(ibsrq)->ring);
}

static void xib_hca_release_srq(struct xib_srq *ibsrq)
{
	xib_hca_ring_free(&to_hca_srq(ibsrq)->ring);
}

/* --- QP ----------------------------------------------------------------- */

static u32 xib_hca_send_stride(const struct xib_uverbs_qp_cap *cap)
{
	u32 data = max(cap->max_send_sge * (u32)sizeof(struct xib_hca_sge),
		       cap->max_inline_data);

	return roundup_pow_of_two(sizeof(struct xib_hca_send_wqe) + data);
}

/* Bytes of one requester copy of a send WQE (struct xib_hca_swqe). */
static u32 xib_hca_swqe_size(const struct xib_uverbs_qp_cap *cap)
{
	size_t data = max_t(size_t,
			    cap->max_send_sge * sizeof(struct xib_hca_sge),
			    cap->max_inline_data);

	return ALIGN(sizeof(struct xib_hca_swqe) + data,
		     __alignof__(struct xib_hca_swqe));
}

static int xib_hca_create_qp(struct xib_qp *ibqp,
			     struct xib_qp_init_attr *attr,
			     struct xib_ucontext *uctx,
			     struct xib_uverbs_ring *sq,
			     struct xib_uverbs_ring *rq)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);
	struct xib_uverbs_qp_cap *cap = &attr->cap;
	bool tgt;
	u32 slots;
	int ret;

	if (cap->max_send_sge > XIB_HCA_MAX_SGE ||
	    cap->max_recv_sge > XIB_HCA_MAX_SGE ||
	    cap->max_inline_data > XIB_HCA_MAX_INLINE)
		return -EINVAL;
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	spin_lock_init(&qp->state_lock);
	INIT_LIST_HEAD(&qp->engine_node);
	timer_setup(&qp->timer, xib_hca_qp_timer, 0);
	hrtimer_init(&qp->rq.ooo_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->rq.ooo_timer.function = xib_hca_ooo_timer;
	qp->hstate = XIB_QPS_RESET;
	qp->mtu = 256;
	qp->sq.cwnd = XIB_HCA_SEND_WINDOW;

	/*
	 * An XRC target sends responses only: its send ring is one kernel
	 * slot nothing is ever posted to, and user space gets no ring.
	 */
	tgt = ibqp->qp_type == XIB_QPT_XRC_RECV;
	slots = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	if (!tgt) {
		cap->max_send_wr = slots;
		/*
		 * A send WQE has room for its SGEs: that much can go inline
		 * whatever was asked, as rdma_rxe and mlx5 grant it (rdma-core's
		 * rdma_xclient asks for none and sends 16 bytes inline).
		 */
		cap->max_inline_data =
			max_t(u32, cap->max_inline_data,
			      min_t(u32, cap->max_send_sge *
					 sizeof(struct xib_hca_sge),
				    XIB_HCA_MAX_INLINE));
	}
	ret = xib_hca_ring_alloc(qp_hca(qp), &qp->sq.ring, tgt ? NULL : uctx,
				 slots, xib_hca_send_stride(cap),
				 tgt ? NULL : sq);
	if (ret)
		return ret;
	if (tgt && sq)
		memset(sq, 0, sizeof(*sq));
	/*
	 * The requester's copies, as large as this QP's WQEs can be (a
	 * device-sized slot is 4 times what a one-SGE QP needs).  Charged
	 * to the creator's memory cgroup, as the rings are.
	 */
	qp->sq.wqe_size = xib_hca_swqe_size(cap);
	qp->sq.wqes = __vmalloc(array_size(slots, qp->sq.wqe_size),
				GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				__GFP_RETRY_MAYFAIL);
	if (!qp->sq.wqes) {
		ret = -ENOMEM;
		goto err_free_sq;
	}

	/* XRC QPs have no receive ring: a target's receives are its SRQs' */
	if (!attr->srq && ibqp->qp_type != XIB_QPT_XRC_SEND && !tgt) {
		slots = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
		cap->max_recv_wr = slots;
		ret = xib_hca_ring_alloc(qp_hca(qp), &qp->rq.ring, uctx,
					 slots,
					 xib_hca_recv_stride(cap->max_recv_sge),
					 rq);
		if (ret)
			goto err_free_wqes;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		if (rq)
			memset(rq, 0, sizeof(*rq));
	}
	ibqp->cap = *cap;
	xib_hca_engine_add_qp(qp);
	return 0;

err_free_wqes:
	vfree(qp->sq.wqes);
	qp->sq.wqes = NULL;
err_free_sq:
	xib_hca_ring_unpublish(&qp->sq.ring);
	xib_hca_ring_free(&qp->sq.ring);
	return ret;
}

/* Attributes of @mask other than the state; under both QP locks. */
static void xib_hca_qp_apply(struct xib_hca_qp *qp,
			     const struct xib_uverbs_qp_attr *attr, u32 mask,
			     const struct xib_hca_path *path, u32 port_mtu)
{
	lockdep_assert_held(&qp->sq.lock);
	lockdep_assert_held(&qp->rq.lock);
	if (mask & XIB_QP_AV)
		qp->path = *path;
	if (mask & XIB_QP_PATH_MTU)
		qp->mtu = xib_hca_mtu_bytes(attr->path_mtu);
	if (qp->ibqp.qp_type == XIB_QPT_UD && port_mtu)
		qp->mtu = port_mtu;
	if (mask & XIB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & XIB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & XIB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & XIB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & XIB_QP_TIMEOUT) {
		qp->timeout = attr->timeout & 31;
		qp->sq.rto_floor_us =
			div_u64(xib_hca_ack_timeout_ns(qp->timeout),
				NSEC_PER_USEC);
	}
	if (mask & XIB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & XIB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XIB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XIB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XIB_QP_SQ_PSN) {
		qp->sq.psn = attr->sq_psn & XIB_PSN_MASK;
		xib_hca_retx_init(&qp->sq.rx, qp->sq.psn, qp->retry_cnt);
		qp->sq.hi_psn = qp->sq.psn;
		qp->sq.ack_asked = qp->sq.psn;
		qp->sq.unasked = 0;
		qp->sq.cwnd = XIB_HCA_SEND_WINDOW;
		qp->sq.rtt_timing = false;
		xib_hca_cc_sync(qp);
	}
	if (mask & XIB_QP_RQ_PSN)
		qp->rq.resp.epsn = attr->rq_psn & XIB_PSN_MASK;
}

/* The port's MTU in bytes, for UD QPs; 0 if unknown. */
static u32 xib_hca_port_mtu(struct xib_hca_dev *hca)
{
	struct xib_port *port;
	u32 mtu = 0;

	port = kmalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return 0;
	if (!xib_query_port(&hca->xdev, 1, port))
		mtu = port->active_mtu;
	kfree(port);
	return mtu;
}

/*
 * Back to RESET: every posted WQE is discarded.  The indices are free
 * running, so the rings simply restart at the producer index user space
 * has now (untrusted, but any value is a valid base).
 */
static void xib_hca_qp_reset(struct xib_hca_qp *qp)
{
	u32 prod;

	spin_lock_bh(&qp->sq.lock);
	prod = xib_hca_ring_read_prod(&qp->sq.ring);
	qp->sq.cons = prod;
	qp->sq.fetch = prod;
	qp->sq.send = prod;
	qp->sq.send_pkt = 0;
	xib_hca_retx_init(&qp->sq.rx, qp->sq.psn, qp->retry_cnt);
	qp->sq.hi_psn = qp->sq.psn;
	qp->sq.ack_asked = qp->sq.psn;
	qp->sq.unasked = 0;
	qp->sq.blocked = false;
	qp->sq.stalled = false;
	qp->sq.timed_out = false;
	qp->sq.pto_armed = false;
	qp->sq.probe_due = false;
	qp->sq.probe_out = false;
	qp->sq.rtt_timing = false;
	memset(&qp->sq.rtt, 0, sizeof(qp->sq.rtt));
	qp->sq.cwnd = XIB_HCA_SEND_WINDOW;
	qp->sq.cc_held = false;
	xib_hca_cc_sync(qp);
	qp->sq.rd_gap = false;
	qp->sq.broken = false;
	xib_hca_ring_write_cons(&qp->sq.ring, prod);
	WRITE_ONCE(qp->flush_sq, false);
	spin_unlock_bh(&qp->sq.lock);
	del_timer_sync(&qp->timer);

	spin_lock_bh(&qp->rq.lock);
	if (qp->rq.ring.mmap) {
		prod = xib_hca_ring_read_prod(&qp->rq.ring);
		qp->rq.cons = prod;
		xib_hca_ring_write_cons(&qp->rq.ring, prod);
	}
	WRITE_ONCE(qp->flush_rq, false);
	xib_hca_resp_reset(qp);
	spin_unlock_bh(&qp->rq.lock);
}

/* SQD and the send queue not yet drained (see hca_engine.c). */
static bool xib_hca_sq_draining(struct xib_hca_qp *qp)
{
	bool draining;

	if (READ_ONCE(qp->hstate) != XIB_QPS_SQD)
		return false;
	spin_lock_bh(&qp->sq.lock);
	draining = !qp->dead && qp->sq.cons != qp->sq.fetch;
	spin_unlock_bh(&qp->sq.lock);
	return draining;
}

static void xib_hca_query_qp(struct xib_qp *ibqp,
			     struct xib_uverbs_qp_attr *attr)
{
	attr->sq_draining = xib_hca_sq_draining(to_hca_qp(ibqp));
}

static int xib_hca_modify_qp(struct xib_qp *ibqp,
			     const struct xib_uverbs_qp_attr *attr, u32 mask)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);
	struct xib_hca_dev *hca = to_hca_dev(ibqp->device);
	struct xib_hca_path path = {};
	u32 port_mtu = 0;
	int ret;

	/*
	 * SQD -> SQD changes the path or the limits only once the send
	 * queue is drained (IBTA vol 1 10.3.1): -EBUSY until then.
	 */
	if (ibqp->attr.qp_state == XIB_QPS_SQD && (mask & ~XIB_QP_STATE) &&
	    (!(mask & XIB_QP_STATE) || attr->qp_state == XIB_QPS_SQD) &&
	    xib_hca_sq_draining(qp))
		return -EBUSY;

	if (mask & XIB_QP_AV) {
		ret = xib_hca_path_from_av(hca, &attr->ah_attr, ibqp->qp_num,
					   &path);
		if (ret)
			return ret;
	}
	if (ibqp->qp_type == XIB_QPT_UD && (mask & XIB_QP_STATE) &&
	    attr->qp_state == XIB_QPS_RTS)
		port_mtu = xib_hca_port_mtu(hca);

	if (mask & XIB_QP_STATE)	/* the core stores the state now */
		WRITE_ONCE(qp->sync_attr, false);
	if ((mask & XIB_QP_STATE) && attr->qp_state == XIB_QPS_RESET) {
		xib_hca_qp_set_state(qp, XIB_QPS_RESET);
		xib_hca_qp_reset(qp);
	}

	spin_lock_bh(&qp->sq.lock);
	spin_lock(&qp->rq.lock);
	xib_hca_qp_apply(qp, attr, mask, &path, port_mtu);
	if (mask & XIB_QP_RETRY_CNT) {
		qp->sq.rx.retry_cnt = qp->retry_cnt;
		qp->sq.rx.retry_left = qp->retry_cnt;
	}
	if (mask & XIB_QP_RNR_RETRY)
		qp->sq.rnr_left = attr->rnr_retry;
	spin_unlock(&qp->rq.lock);
	spin_unlock_bh(&qp->sq.lock);

	if (mask & XIB_QP_STATE)
		xib_hca_qp_modify_state(qp, attr->qp_state,
					(mask & XIB_QP_EN_SQD_ASYNC_NOTIFY) &&
					attr->en_sqd_async_notify);
	return 0;
}

static void xib_hca_destroy_qp(struct xib_qp *ibqp)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);

	xib_hca_engine_del_qp(qp);
	spin_lock_bh(&qp->sq.lock);
	qp->dead = true;
	xib_hca_cc_sync(qp);	/* gives its charge back */
	spin_unlock_bh(&qp->sq.lock);
	spin_lock_bh(&qp->rq.lock);
	qp->dead = true;
	xib_hca_ooo_purge(qp);
	spin_unlock_bh(&qp->rq.lock);
	del_timer_sync(&qp->timer);
	/* armed only under rq.lock while not dead */
	hrtimer_cancel(&qp->rq.ooo_timer);
	/* dead: no more events; one not yet delivered by the PCI function is dropped */
	if (qp_hca(qp)->pci)
		xib_hca_pci_async_gone(qp_hca(qp)->pci, ibqp);
	xib_hca_ring_unpublish(&qp->sq.ring);
	xib_hca_ring_unpublish(&qp->rq.ring);
}

static void xib_hca_release_qp(struct xib_qp *ibqp)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);

	vfree(qp->sq.wqes);
	xib_hca_ring_free(&qp->sq.ring);
	xib_hca_ring_free(&qp->rq.ring);
	xib_hca_resp_release(qp);
	if (qp->xsrq)
		xib_srq_put(qp->xsrq);
}

/* Posted and not yet retired WQEs of @ring, whose HCA index is @cons. */
static u32 xib_hca_ring_outstanding(const struct xib_hca_ring *ring, u32 cons)
{
	u32 prod;

	if (!ring->mmap)
		return 0;
	prod = xib_hca_ring_read_prod(ring);	/* untrusted */
	return xib_ring_count_valid(prod, cons, ring->slots) ?
	       xib_ring_count(prod, cons) : ring->slots;
}

/* A QP's counters (ops->qp_stat_names); Documentation/counters.rst. */
enum xib_hca_qp_stat {
	XIB_HCA_QP_STAT_RETRANSMITS,
	XIB_HCA_QP_STAT_RNR_NAKS_RCVD,
	XIB_HCA_QP_STAT_LOCAL_ACK_TIMEOUTS,
	XIB_HCA_QP_STAT_REWINDS,
	XIB_HCA_QP_STAT_SEQ_NAKS_RCVD,
	XIB_HCA_QP_STAT_STALE_NAKS,
	XIB_HCA_QP_STAT_DUP_NAKS,
	XIB_HCA_QP_STAT_STALE_RESPONSES,
	XIB_HCA_QP_STAT_RETRIES,
	XIB_HCA_QP_STAT_RETRY_RUN,
	XIB_HCA_QP_STAT_RETRY_RUN_MAX,
	XIB_HCA_QP_STAT_TAIL_PROBES,
	XIB_HCA_QP_STAT_TAIL_PROBE_PROGRESS,
	XIB_HCA_QP_NSTATS
};

static const char * const xib_hca_qp_stat_names[XIB_HCA_QP_NSTATS] = {
	[XIB_HCA_QP_STAT_RETRANSMITS]		= "retransmits",
	[XIB_HCA_QP_STAT_RNR_NAKS_RCVD]		= "rnr_naks_rcvd",
	[XIB_HCA_QP_STAT_LOCAL_ACK_TIMEOUTS]	= "local_ack_timeouts",
	[XIB_HCA_QP_STAT_REWINDS]		= "rewinds",
	[XIB_HCA_QP_STAT_SEQ_NAKS_RCVD]		= "seq_naks_rcvd",
	[XIB_HCA_QP_STAT_STALE_NAKS]		= "stale_naks",
	[XIB_HCA_QP_STAT_DUP_NAKS]		= "dup_naks",
	[XIB_HCA_QP_STAT_STALE_RESPONSES]	= "stale_responses",
	[XIB_HCA_QP_STAT_RETRIES]		= "retries",
	[XIB_HCA_QP_STAT_RETRY_RUN]		= "retry_run",
	[XIB_HCA_QP_STAT_RETRY_RUN_MAX]		= "retry_run_max",
	[XIB_HCA_QP_STAT_TAIL_PROBES]		= "tail_probes",
	[XIB_HCA_QP_STAT_TAIL_PROBE_PROGRESS]	= "tail_probe_progress",
};

static_assert(XIB_HCA_QP_NSTATS <= XIB_QP_STATS_MAX);

static void xib_hca_get_qp_stats(struct xib_qp *ibqp, u64 *vals)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);
	const struct xib_hca_rtx_stats *st = &qp->sq.st;

	spin_lock_bh(&qp->sq.lock);
	/* a retransmission: a retry, or a tail-loss probe (which is none) */
	vals[XIB_HCA_QP_STAT_RETRANSMITS] = st->retries + st->probes;
	vals[XIB_HCA_QP_STAT_RNR_NAKS_RCVD] = qp->sq.rnr_naks;
	vals[XIB_HCA_QP_STAT_LOCAL_ACK_TIMEOUTS] = st->timeouts;
	vals[XIB_HCA_QP_STAT_REWINDS] = st->rewinds;
	vals[XIB_HCA_QP_STAT_SEQ_NAKS_RCVD] = st->seq_naks;
	vals[XIB_HCA_QP_STAT_STALE_NAKS] = st->stale_naks;
	vals[XIB_HCA_QP_STAT_DUP_NAKS] = st->dup_naks;
	vals[XIB_HCA_QP_STAT_STALE_RESPONSES] = st->stale;
	vals[XIB_HCA_QP_STAT_RETRIES] = st->retries;
	vals[XIB_HCA_QP_STAT_RETRY_RUN] = st->retry_run;
	vals[XIB_HCA_QP_STAT_RETRY_RUN_MAX] = st->retry_run_max;
	vals[XIB_HCA_QP_STAT_TAIL_PROBES] = st->probes;
	vals[XIB_HCA_QP_STAT_TAIL_PROBE_PROGRESS] = st->probe_progress;
	spin_unlock_bh(&qp->sq.lock);
}

static void xib_hca_query_qp_res(struct xib_qp *ibqp, struct xib_qp_res *res)
{
	struct xib_hca_qp *qp = to_hca_qp(ibqp);

	spin_lock_bh(&qp->sq.lock);
	res->sq_psn = qp->sq.psn;
	res->sq_outstanding = xib_hca_ring_outstanding(&qp->sq.ring,
						       qp->sq.cons);
	res->retransmits = qp->sq.st.retries + qp->sq.st.probes;
	res->rnr_naks = qp->sq.rnr_naks;
	spin_unlock_bh(&qp->sq.lock);

	spin_lock_bh(&qp->rq.lock);
	res->rq_psn = qp->rq.resp.epsn;
	res->rq_outstanding = xib_hca_ring_outstanding(&qp->rq.ring,
						       qp->rq.cons);
	spin_unlock_bh(&qp->rq.lock);
}

static void xib_hca_query_cq_res(struct xib_cq *ibcq, struct xib_cq_res *res)
{
	struct xib_hca_cq *cq = to_hca_cq(ibcq);
	struct xib_hca_cq_hdr *hdr;
	unsigned long flags;
	u32 cons;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->ring.mmap) {
		hdr = xib_hca_ring_hdr(&cq->ring);
		cons = READ_ONCE(hdr->cons);	/* untrusted */
		res->fill = xib_ring_count_valid(cq->prod, cons,
						 cq->ring.slots) ?
			    xib_ring_count(cq->prod, cons) : cq->ring.slots;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

const struct xib_device_ops xib_hca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_name = "xib_hca",
	.get_netdev = xib_hca_get_netdev,
	.port_event = xib_hca_port_event,
	.dellink = xib_hca_dellink,
	.dealloc_driver = xib_hca_dealloc,
	.stat_names = xib_hca_stat_names,
	.num_stats = XIB_HCA_NSTATS,
	.get_stats = xib_hca_get_stats,
	.qp_stat_names = xib_hca_qp_stat_names,
	.num_qp_stats = XIB_HCA_QP_NSTATS,
	.get_qp_stats = xib_hca_get_qp_stats,
	.port_violations = xib_hca_port_violations,
	.size_pd = sizeof(struct xib_hca_pd),
	.size_mr = sizeof(struct xib_hca_mr),
	.size_cq = sizeof(struct xib_hca_cq),
	.size_qp = sizeof(struct xib_hca_qp),
	.size_srq = sizeof(struct xib_hca_srq),
	.size_ah = sizeof(struct xib_hca_ah),
	.alloc_ucontext = xib_hca_alloc_ucontext,
	.kick = xib_hca_kick,
	.alloc_pd = xib_hca_alloc_pd,
	.dealloc_pd = xib_hca_dealloc_pd,
	.reg_mr = xib_hca_reg_mr,
	.dereg_mr = xib_hca_dereg_mr,
	.create_cq = xib_hca_create_cq,
	.resize_cq = xib_hca_resize_cq,
	.destroy_cq = xib_hca_destroy_cq,
	.release_cq = xib_hca_release_cq,
	.create_qp = xib_hca_create_qp,
	.modify_qp = xib_hca_modify_qp,
	.query_qp = xib_hca_query_qp,
	.destroy_qp = xib_hca_destroy_qp,
	.release_qp = xib_hca_release_qp,
	.create_srq = xib_hca_create_srq,
	.modify_srq = xib_hca_modify_srq,
	.resize_srq = xib_hca_resize_srq,
	.destroy_srq = xib_hca_destroy_srq,
	.release_srq = xib_hca_release_srq,
	.create_ah = xib_hca_create_ah,
	.post_mad = xib_hca_post_mad,
	.destroy_ah = xib_hca_destroy_ah,
	.query_qp_res = xib_hca_query_qp_res,
	.query_cq_res = xib_hca_query_cq_res,
	.mcast_join = xib_hca_mcast_join,
	.mcast_leave = xib_hca_mcast_leave,
};
