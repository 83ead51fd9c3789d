// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca queue access: the rings shared with user space (allocation,
 * publication, index access), writing CQEs with the arming protocol,
 * fetching receive WQEs from an RQ or SRQ, and copying between SGE lists
 * and kernel buffers.
 *
 * Everything read from a ring is untrusted (hca-abi.h): indices are
 * validated against the kernel's own copy, WQEs are copied before they
 * are looked at.  Locking: xib_hca_cq_post() takes the CQ's lock;
 * xib_hca_get_rwqe() is called with the QP's rq.lock held and takes the
 * SRQ's lock; the SGE helpers take no lock (MR lookups take a reference).
 */
#include <linux/nospec.h>
#include <linux/slab.h>

#include "hca.h"
#include "hca_trace.h"

/**
 * xib_hca_ring_alloc() - allocate a ring and publish it to user space
 * @hca: the device of the queue
 * @ring: filled in
 * @uctx: the user context, or NULL for a kernel queue
 * @slots: power of two
 * @stride: bytes per slot, power of two
 * @out: filled in with what user space needs to map the ring
 *
 * On a device on a PCI function the ring's pages are also mapped for the
 * function's DMA (xib_hca_pci_ring_map()), as a real HCA reads its rings;
 * xib_hca_ring_unpublish() undoes that when the queue is retired.
 * Context: process context.
 *
 * Return: 0 or a negative errno.
 */
int xib_hca_ring_alloc(struct xib_hca_dev *hca, struct xib_hca_ring *ring,
		       struct xib_ucontext *uctx, u32 slots, u32 stride,
		       struct xib_uverbs_ring *out)
{
	size_t size = PAGE_ALIGN(XIB_HCA_RING_HDR_SIZE + (size_t)slots * stride);
	int ret;

	if (!xib_ring_size_valid(slots) || size > U32_MAX)
		return -EINVAL;
	ring->mmap = xib_mmap_alloc(size, false);
	if (!ring->mmap)
		return -ENOMEM;
	ring->slots = slots;
	ring->stride = stride;
	ring->uctx = NULL;
	ring->dma = NULL;
	if (hca->pci) {
		ret = xib_hca_pci_ring_map(hca->pci, ring);
		if (ret)
			goto err_put_mmap;
	}
	if (uctx) {
		ret = xib_mmap_publish(uctx, ring->mmap, &ring->offset);
		if (ret)
			goto err_dma_unmap;
		ring->uctx = uctx;
	}
	if (out) {
		memset(out, 0, sizeof(*out));
		out->mmap_offset = ring->offset;
		out->mmap_size = size;
		out->slots = slots;
		out->stride = stride;
	}
	return 0;

err_dma_unmap:
	xib_hca_pci_ring_unmap(ring);
err_put_mmap:
	xib_mmap_put(ring->mmap);
	ring->mmap = NULL;
	return ret;
}

/*
 * Retire @ring: user space can no longer map it (maps stay) and, on a
 * device on a PCI function, its DMA mapping is undone: the queue is
 * destroyed (or replaced by a resize) and the device reads it no more.
 * Every ring is retired before it is freed, and before its device lets
 * go of its function.  Process context.
 */
void xib_hca_ring_unpublish(struct xib_hca_ring *ring)
{
	if (ring->uctx)
		xib_mmap_unpublish(ring->uctx, ring->offset);
	ring->uctx = NULL;
	xib_hca_pci_ring_unmap(ring);
}

/* Drop the ring's memory (mappings keep their own references). */
void xib_hca_ring_free(struct xib_hca_ring *ring)
{
	/* retired first: its function may be gone by now */
	WARN_ON_ONCE(ring->dma);
	if (ring->mmap)
		xib_mmap_put(ring->mmap);
	ring->mmap = NULL;
}

/* The producer index user space published (untrusted). */
u32 xib_hca_ring_read_prod(const struct xib_hca_ring *ring)
{
	struct xib_hca_wq_hdr *hdr = xib_hca_ring_hdr(ring);

	/* pairs with the poster's release store: the WQEs are visible */
	return smp_load_acquire(&hdr->prod);
}

/* Publish the HCA's consumer index of a work queue. */
void xib_hca_ring_write_cons(const struct xib_hca_ring *ring, u32 cons)
{
	struct xib_hca_wq_hdr *hdr = xib_hca_ring_hdr(ring);

	/* we are done reading the slots before cons */
	smp_store_release(&hdr->cons, cons);
}

/* Fire the completion event if @cqe matches a pending arm. */
static bool xib_hca_cq_arm_fires(struct xib_hca_cq *cq, bool solicited)
{
	struct xib_hca_cq_hdr *hdr = xib_hca_ring_hdr(&cq->ring);
	u32 arm = READ_ONCE(hdr->arm);
	u32 sn = arm >> XIB_HCA_CQ_ARM_SN_SHIFT;

	lockdep_assert_held(&cq->lock);
	if (sn == cq->fired_sn)
		return false;	/* no arm pending (or it fired already) */
	if (!(arm & XIB_HCA_CQ_ARM_NEXT) &&
	    !((arm & XIB_HCA_CQ_ARM_SOLICITED) && solicited))
		return false;
	cq->fired_sn = sn;
	WRITE_ONCE(hdr->armed_sn, sn);
	return true;
}

/*
 * Deliver a completion event of @cq: on a device on a PCI function, by
 * the function's event vector (pci.c), else at once.  Called under
 * @cq->lock.
 */
static void xib_hca_cq_fire(struct xib_hca_cq *cq)
{
	struct xib_hca_dev *hca = to_hca_dev(cq->ibcq.device);

	lockdep_assert_held(&cq->lock);
	if (hca->pci)
		xib_hca_pci_queue_comp(hca->pci, cq);
	else
		xib_cq_comp(&cq->ibcq);
}

/* The counter of a CQE of @status. */
static enum xib_hca_stat xib_hca_cqe_stat(u8 status)
{
	if (status == XIB_HCA_WC_SUCCESS)
		return XIB_HCA_STAT_CQE_SUCCESS;
	if (status == XIB_HCA_WC_WR_FLUSH_ERR)
		return XIB_HCA_STAT_CQE_FLUSHED;
	return XIB_HCA_STAT_CQE_ERROR;
}

/**
 * xib_hca_cq_post() - write one CQE
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: it satisfies a SOLICITED arm (solicited event or error)
 *
 * Publishes the CQE, then fires the completion handler if an arm is
 * pending.  On overflow, flags the CQ, raises CQ_ERR once and returns
 * -ENOSPC: the caller moves its QP to the error state.
 *
 * Return: 0 or -ENOSPC.
 */
int xib_hca_cq_post(struct xib_hca_cq *cq, const struct xib_hca_cqe *cqe,
		    bool solicited)
{
	u64 t0 = xib_hca_prof_begin();
	struct xib_hca_cq_hdr *hdr;
	unsigned long flags;
	bool fire, overflow = false;
	u32 cons;

	solicited |= cqe->status != XIB_HCA_WC_SUCCESS;
	spin_lock_irqsave(&cq->lock, flags);
	hdr = xib_hca_ring_hdr(&cq->ring);
	if (cq->overflow) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	/* pairs with the poller's release of cons: its reads are done */
	cons = smp_load_acquire(&hdr->cons);
	if (!xib_ring_free(cq->prod, cons, cq->ring.slots)) {
		cq->overflow = true;
		WRITE_ONCE(hdr->flags, READ_ONCE(hdr->flags) |
			   XIB_HCA_CQ_F_OVERFLOW);
		overflow = true;
	} else {
		memcpy(xib_hca_ring_slot(&cq->ring, cq->prod), cqe,
		       sizeof(*cqe));
		cq->prod++;
		xib_hca_stat_inc(to_hca_dev(cq->ibcq.device),
				 xib_hca_cqe_stat(cqe->status));
		trace_xib_hca_cqe(cq->ibcq.device->index, cq->ibcq.cqn,
				  cqe->qp_num, cqe->wr_id, cqe->status,
				  cqe->opcode, cqe->byte_len);
		/* the CQE is written before the poller sees prod */
		smp_store_release(&hdr->prod, cq->prod);
		/*
		 * Arming is "store arm, full barrier, poll again": with our
		 * full barrier between the prod store and the arm load,
		 * either we see the arm or the poller sees the CQE.
		 */
		smp_mb();
	}
	fire = !overflow && xib_hca_cq_arm_fires(cq, solicited);
	if (fire)
		xib_hca_cq_fire(cq);
	if (overflow)
		xib_hca_cq_event(cq, XIB_EVENT_CQ_ERR);
	spin_unlock_irqrestore(&cq->lock, flags);
	xib_hca_prof_end(to_hca_dev(cq->ibcq.device), XIB_HCA_PROF_CQ_POST, t0);
	return overflow ? -ENOSPC : 0;
}

/* Copy receive WQE @idx of @ring and check its shape. */
static int xib_hca_copy_rwqe(const struct xib_hca_ring *ring, u32 idx,
			     u32 max_sge, struct xib_hca_rwqe *wqe)
{
	const u8 *slot = xib_hca_ring_slot(ring, idx);
	struct xib_hca_recv_wqe hdr;

	memcpy(&hdr, slot, sizeof(hdr));
	wqe->wr_id = hdr.wr_id;
	wqe->num_sge = hdr.num_sge;
	if (wqe->num_sge > max_sge)
		return -EINVAL;
	memcpy(wqe->sge, slot + sizeof(hdr),
	       wqe->num_sge * sizeof(struct xib_hca_sge));
	return 0;
}

/* Take the next WQE of @srq; -EAGAIN if it is empty. */
static int xib_hca_srq_get(struct xib_hca_srq *srq, struct xib_hca_rwqe *wqe)
{
	u32 prod, count;
	bool limit_event = false;
	int ret;

	spin_lock_bh(&srq->lock);
	if (srq->error) {
		ret = -EIO;
		goto out;
	}
	prod = xib_hca_ring_read_prod(&srq->ring);
	if (!xib_ring_count_valid(prod, srq->cons, srq->ring.slots)) {
		srq->error = true;
		xib_hca_srq_event(srq, XIB_EVENT_SRQ_ERR);
		ret = -EIO;
		goto out;
	}
	if (prod == srq->cons) {
		ret = -EAGAIN;
		goto out;
	}
	ret = xib_hca_copy_rwqe(&srq->ring, srq->cons, srq->ibsrq.max_sge,
				wqe);
	srq->cons++;
	xib_hca_ring_write_cons(&srq->ring, srq->cons);
	count = xib_ring_count(prod, srq->cons);
	if (srq->limit && count < srq->limit) {
		srq->limit = 0;
		limit_event = true;
	}
	if (limit_event)
		xib_hca_srq_event(srq, XIB_EVENT_SRQ_LIMIT_REACHED);
out:
	spin_unlock_bh(&srq->lock);
	return ret;
}

/**
 * xib_hca_get_rwqe() - take the next receive WQE of @qp (RQ or SRQ)
 * @qp: the QP; its rq.lock is held
 * @wqe: filled in (SGEs not yet checked against MRs)
 *
 * Return: 0; -EAGAIN if none is posted; -EIO if the queue is broken (the
 * caller moves the QP to the error state); -EINVAL if the WQE is
 * malformed (it is consumed: complete it with LOC_LEN_ERR... or
 * LOC_QP_OP_ERR).
 */
int xib_hca_get_rwqe(struct xib_hca_qp *qp, struct xib_hca_rwqe *wqe)
{
	struct xib_hca_ring *ring = &qp->rq.ring;
	u32 prod;
	int ret;

	lockdep_assert_held(&qp->rq.lock);
	if (qp->ibqp.srq)
		return xib_hca_srq_get(to_hca_srq(qp->ibqp.srq), wqe);
	if (qp->ibqp.qp_type == XIB_QPT_XRC_RECV)
		return qp->xsrq ? xib_hca_srq_get(to_hca_srq(qp->xsrq), wqe) :
				  -EAGAIN;
	if (!ring->mmap)
		return -EAGAIN;
	prod = xib_hca_ring_read_prod(ring);
	if (!xib_ring_count_valid(prod, qp->rq.cons, ring->slots))
		return -EIO;
	if (prod == qp->rq.cons)
		return -EAGAIN;
	ret = xib_hca_copy_rwqe(ring, qp->rq.cons, qp->ibqp.cap.max_recv_sge,
				wqe);
	qp->rq.cons++;
	xib_hca_ring_write_cons(ring, qp->rq.cons);
	return ret;
}

/* Look up @sge's MR and check it covers [@off, @off + @len) with @access. */
static struct xib_mr *xib_hca_sge_mr(struct xib_hca_qp *qp,
				     const struct xib_hca_sge *sge, u64 off,
				     u32 len, u32 access)
{
	struct xib_mr *mr = xib_mr_get_by_key(qp->ibqp.device, sge->lkey);

	if (!mr)
		return NULL;
	if (mr->lkey != sge->lkey ||
	    xib_mr_check(mr, xib_hca_qp_pd(qp), sge->addr + off, len, access) ||
	    !mr->umem) {
		xib_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * xib_hca_sge_check() - check every SGE of a WQE
 * @qp: the QP whose PD the MRs must belong to
 * @sge: @num_sge SGEs (a kernel copy)
 * @num_sge: number of SGEs
 * @access: XIB_ACCESS_LOCAL_WRITE for data written into them, else 0
 * @total: the sum of the lengths
 *
 * Return: 0; -EACCES if a key, PD, access right or bound is wrong;
 * -EMSGSIZE if the total exceeds the largest message.
 */
int xib_hca_sge_check(struct xib_hca_qp *qp, const struct xib_hca_sge *sge,
		      u32 num_sge, u32 access, u64 *total)
{
	struct xib_mr *mr;
	u64 sum = 0;
	u32 i;

	for (i = 0; i < num_sge; i++) {
		sum += sge[i].length;
		if (!sge[i].length)
			continue;
		mr = xib_hca_sge_mr(qp, &sge[i], 0, sge[i].length, access);
		if (!mr)
			return -EACCES;
		xib_mr_put(mr);
	}
	*total = sum;
	return sum > XIB_HCA_MAX_MSG ? -EMSGSIZE : 0;
}

/**
 * xib_hca_sge_copy() - copy between a kernel buffer and an SGE list
 * @qp: the QP (PD of the MRs)
 * @sge: the SGE list (a kernel copy)
 * @num_sge: its length
 * @off: byte offset into the list's data
 * @buf: kernel buffer
 * @len: bytes
 * @to_sge: copy @buf into the SGEs (needs LOCAL_WRITE), else out of them
 *
 * MRs are looked up again for each copy, so an MR deregistered meanwhile
 * makes the copy fail rather than touch freed pages.  May run in softirq.
 *
 * Return: 0; -EACCES for a key or bound failure; -EMSGSIZE if the list
 * is shorter than @off + @len.
 */
int xib_hca_sge_copy(struct xib_hca_qp *qp, const struct xib_hca_sge *sge,
		     u32 num_sge, u64 off, void *buf, u32 len, bool to_sge)
{
	u32 access = to_sge ? XIB_ACCESS_LOCAL_WRITE : 0;
	struct xib_mr *mr;
	u32 i, n;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min_t(u64, len, sge[i].length - off);
		mr = xib_hca_sge_mr(qp, &sge[i], off, n, access);
		if (!mr)
			return -EACCES;
		if (to_sge)
			ret = xib_umem_copy_to(mr->umem,
					       sge[i].addr + off - mr->iova,
					       buf, n);
		else
			ret = xib_umem_copy_from(buf, mr->umem,
						 sge[i].addr + off - mr->iova,
						 n);
		xib_mr_put(mr);
		if (ret)
			return -EACCES;
		buf = (u8 *)buf + n;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}
