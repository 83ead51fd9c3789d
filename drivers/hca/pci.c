// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca's PCI front end: a pci_driver for QEMU's ivshmem-doorbell
 * function when its shared memory carries xib's signature
 * (include/uapi/xib/hca-pci.h, Documentation/pcie.rst).
 *
 * Probe enables the function and bus mastering (MSI-X messages are the
 * function's memory writes), maps BAR0 (registers) and BAR2 (shared
 * memory), checks the signature, allocates the MSI-X vectors the
 * signature names and rings its own doorbell once on each of the two
 * vectors it uses: a function whose doorbell does not come back as an
 * interrupt is refused, so a bound function is one whose MMIO doorbell
 * and MSI-X paths work.  Remove undoes probe in reverse order; it runs
 * on driver unbind, on module unload and on hot removal
 * (/sys/bus/pci/devices/.../remove).
 *
 * A bound function may carry one xib device ("xibctl link add NAME
 * netdev IF pci BDF", xib_hca_pci_attach()): the device's engine is
 * woken by the function's doorbell vector (xib_hca_wake() rings it), and
 * removing the function removes the device (its users get DEVICE_FATAL
 * from the core) before the function's resources go.  Its completion
 * events go by the event vector: the engine queues the CQ whose arm
 * fired (xib_hca_pci_queue_comp()) and rings the vector if no CQ was
 * queued already; the vector's threaded handler delivers them.  Async
 * events the engine raises about a QP, CQ or SRQ, and the port events
 * the core derives from the interface (xib_hca_port_event()), go the
 * same way: they are queued in order (xib_hca_pci_queue_async()) and the
 * same thread delivers them.
 *
 * The rings of the device's queues are mapped for the function's DMA
 * (xib_hca_pci_ring_map()) from their creation until they are retired,
 * which every queue's destroy does before the device lets go of the
 * function: a real HCA reads its rings by DMA from a page list.
 *
 * A function level reset (pci_error_handlers) destroys the device on the
 * function, as removal does, and checks the function again as probe does
 * before a new device may bind it.
 *
 * Concurrency: probe, remove and reset are serialized by the device lock.
 * xib_hca_pci_lock (a mutex) protects the list of bound functions and
 * each one's @owner and @removed, and hca->pci.  Order: RTNL (a device's
 * destroy may run under it), then xib_hca_pci_lock, then xib_hca_lock
 * (hca_main.c).  The interrupt handlers read @hca only (READ_ONCE());
 * detach clears it and synchronizes the doorbell vector before the
 * device can go.  The handlers are freed (free_irq() waits for a running
 * one) before anything they touch.  @ev_lock (irq-safe) protects the
 * list of CQs with events and the async event queue, and nests inside
 * every lock of the engine (a CQ's, an SRQ's, a QP's); the event thread
 * takes it alone, then each CQ's lock alone, and calls async event
 * handlers with no lock of its own held; a CQ's destroy takes it off the
 * list, and a QP's, CQ's or SRQ's destroy drops its queued async events,
 * then synchronizes the event vector (its thread included).
 */

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>

#include "hca.h"

/* Bound functions (struct xib_hca_pci.node), and their devices. */
static LIST_HEAD(xib_hca_pci_funcs);
static DEFINE_MUTEX(xib_hca_pci_lock);

/* How long probe waits for its own doorbell to come back as an MSI-X. */
#define XIB_HCA_PCI_SELFTEST_MS	5000

static irqreturn_t xib_hca_pci_db_irq(int irq, void *data)
{
	struct xib_hca_pci *xp = data;
	struct xib_hca_dev *hca = READ_ONCE(xp->hca);

	atomic_long_inc(&xp->db_irqs);
	complete(&xp->db_seen);
	if (hca)
		xib_hca_kick_engine(hca);
	return IRQ_HANDLED;
}

static irqreturn_t xib_hca_pci_ev_irq(int irq, void *data)
{
	struct xib_hca_pci *xp = data;

	atomic_long_inc(&xp->ev_irqs);
	complete(&xp->ev_seen);
	return IRQ_WAKE_THREAD;
}

/* Hand async event @ae to its object's handler, as the netdev front end would. */
static void xib_hca_pci_deliver_async(const struct xib_hca_pci_ae *ae)
{
	struct xib_event event;
	struct xib_srq *srq;

	switch (ae->kind) {
	case XIB_HCA_PCI_AE_QP:
		xib_qp_event(ae->obj, ae->type);
		break;
	case XIB_HCA_PCI_AE_CQ:
		xib_cq_event(ae->obj, ae->type);
		break;
	case XIB_HCA_PCI_AE_SRQ:
		/* the engine disarmed a limit when it raised the event */
		srq = ae->obj;
		if (srq->event_handler)
			srq->event_handler(srq, ae->type);
		break;
	case XIB_HCA_PCI_AE_PORT:
		/* the core's one dispatch path, as the netdev front end's */
		event.device = ae->obj;
		event.type = ae->type;
		event.port_num = ae->port_num;
		xib_dispatch_event(&event);
		break;
	}
}

/*
 * The event vector's thread: deliver the completion events of every CQ
 * on the list and the async events of the queue, until both are empty.
 * A CQ taken off the list is used until its lock is dropped; its
 * destroy waits for this thread (xib_hca_pci_cq_gone()).  An async
 * event taken off the queue is delivered before the thread looks again;
 * its object's destroy waits for the thread likewise
 * (xib_hca_pci_async_gone()).
 */
static irqreturn_t xib_hca_pci_ev_thread(int irq, void *data)
{
	struct xib_hca_pci *xp = data;
	struct xib_hca_pci_ae ae;
	struct xib_hca_cq *cq;
	unsigned long flags;
	bool have_ae;
	u32 n;

	for (;;) {
		spin_lock_irqsave(&xp->ev_lock, flags);
		cq = list_first_entry_or_null(&xp->ev_cqs, struct xib_hca_cq,
					      ev_node);
		if (cq)
			list_del_init(&cq->ev_node);
		have_ae = xp->ae_head != xp->ae_tail;
		if (have_ae) {
			ae = xp->ae[xp->ae_head & (XIB_HCA_PCI_AE_SLOTS - 1)];
			xp->ae_head++;
		}
		spin_unlock_irqrestore(&xp->ev_lock, flags);
		if (!cq && !have_ae)
			break;
		if (have_ae && ae.obj) {
			atomic_long_inc(&xp->ae_delivered);
			xib_hca_pci_deliver_async(&ae);
		}
		if (!cq)
			continue;
		spin_lock_irqsave(&cq->lock, flags);
		n = cq->dead ? 0 : cq->ev_pending;
		cq->ev_pending = 0;
		atomic_long_add(n, &xp->ev_delivered);
		while (n--)
			xib_cq_comp(&cq->ibcq);
		spin_unlock_irqrestore(&cq->lock, flags);
	}
	return IRQ_HANDLED;
}

/* Raise @vector of this function by a write to its Doorbell register. */
static void xib_hca_pci_ring(struct xib_hca_pci *xp, unsigned int vector)
{
	writel(XIB_PCI_DOORBELL(xp->peer, vector),
	       xp->regs + XIB_PCI_REG_DOORBELL);
}

/**
 * xib_hca_pci_queue_comp() - have the event vector deliver a completion
 *	event of @cq
 * @xp: the function of @cq's device
 * @cq: a CQ whose arm fired; its lock is held
 *
 * The event vector is rung only when no CQ was waiting for it already:
 * the events that come while an interrupt is on its way go with it.
 * Any context.
 */
void xib_hca_pci_queue_comp(struct xib_hca_pci *xp, struct xib_hca_cq *cq)
{
	bool ring;

	lockdep_assert_held(&cq->lock);
	/* on the list already, or taken by the thread, which counts it */
	if (cq->ev_pending++)
		return;
	spin_lock(&xp->ev_lock);
	ring = list_empty(&xp->ev_cqs) && xp->ae_head == xp->ae_tail;
	list_add_tail(&cq->ev_node, &xp->ev_cqs);
	spin_unlock(&xp->ev_lock);
	if (ring) {
		atomic_long_inc(&xp->ev_rings);
		xib_hca_pci_ring(xp, xp->sig.ev_vector);
	}
}

/**
 * xib_hca_pci_queue_async() - have the event vector deliver an async
 *	event
 * @xp: the function of the object's device
 * @kind: what @obj is
 * @obj: the struct xib_qp, xib_cq or xib_srq the event is about, or the
 *	struct xib_device of a port event
 * @type: the event
 * @port_num: the port of a port event (0 otherwise)
 *
 * Events are delivered in the order they were queued.  The vector is
 * rung only when nothing (no CQ, no async event) was waiting for it
 * already; a full queue loses the event, counted and logged.  Any
 * context; the caller may hold any lock of the engine.
 */
void xib_hca_pci_queue_async(struct xib_hca_pci *xp,
			     enum xib_hca_pci_ae_kind kind, void *obj,
			     enum xib_event_type type, u32 port_num)
{
	struct xib_hca_pci_ae *ae;
	unsigned long flags;
	bool ring = false;

	spin_lock_irqsave(&xp->ev_lock, flags);
	if (xp->ae_tail - xp->ae_head < XIB_HCA_PCI_AE_SLOTS) {
		ring = list_empty(&xp->ev_cqs) && xp->ae_head == xp->ae_tail;
		ae = &xp->ae[xp->ae_tail & (XIB_HCA_PCI_AE_SLOTS - 1)];
		ae->obj = obj;
		ae->kind = kind;
		ae->type = type;
		ae->port_num = port_num;
		xp->ae_tail++;
	} else {
		atomic_long_inc(&xp->ae_dropped);
		dev_warn_ratelimited(&xp->pdev->dev,
				     "async event queue full: event %u lost\n",
				     type);
	}
	spin_unlock_irqrestore(&xp->ev_lock, flags);
	if (ring) {
		atomic_long_inc(&xp->ev_rings);
		xib_hca_pci_ring(xp, xp->sig.ev_vector);
	}
}

/**
 * xib_hca_pci_async_gone() - drop the queued async events of @obj, being
 *	destroyed
 * @xp: the function of its device
 * @obj: the QP, CQ or SRQ, or the device (unregistered); no more events
 *	about it are raised
 *
 * Its events still queued are dropped, and a run of the event thread
 * that took one before is waited for: no event of @obj is delivered
 * once this returns.  Context: process context, may sleep.
 */
void xib_hca_pci_async_gone(struct xib_hca_pci *xp, const void *obj)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&xp->ev_lock, flags);
	for (i = xp->ae_head; i != xp->ae_tail; i++)
		if (xp->ae[i & (XIB_HCA_PCI_AE_SLOTS - 1)].obj == obj)
			xp->ae[i & (XIB_HCA_PCI_AE_SLOTS - 1)].obj = NULL;
	spin_unlock_irqrestore(&xp->ev_lock, flags);
	synchronize_irq(pci_irq_vector(xp->pdev, xp->sig.ev_vector));
}

/**
 * xib_hca_pci_cq_gone() - forget @cq, destroyed (@cq->dead is set)
 * @xp: the function of its device
 * @cq: the CQ
 *
 * Takes @cq off the list and waits for a run of the event thread that
 * may have taken it before.  Context: process context, may sleep.
 */
void xib_hca_pci_cq_gone(struct xib_hca_pci *xp, struct xib_hca_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&xp->ev_lock, flags);
	list_del_init(&cq->ev_node);
	spin_unlock_irqrestore(&xp->ev_lock, flags);
	synchronize_irq(pci_irq_vector(xp->pdev, xp->sig.ev_vector));
}

/**
 * xib_hca_pci_ring_db() - ring the doorbell of @xp: an MMIO write that
 *	comes back as its doorbell vector's interrupt, which wakes the
 *	engine of the device bound to it
 * @xp: the function
 */
void xib_hca_pci_ring_db(struct xib_hca_pci *xp)
{
	xib_hca_pci_ring(xp, xp->sig.db_vector);
}

/**
 * xib_hca_pci_ring_map() - map the pages of @ring for the DMA of @xp
 * @xp: the function of the ring's device
 * @ring: a ring just allocated (its vmalloc memory, which user space maps
 *	as on any device), not yet mapped
 *
 * The pages are mapped DMA_BIDIRECTIONAL for the function (the device
 * reads WQEs and writes CQEs and indices) and their DMA addresses are
 * kept in ring order in @ring->dma: the page list a device reads the ring
 * by.  Pages rather than one coherent buffer: a ring can be many MiB,
 * which a contiguous allocation cannot serve.  The engine, which plays
 * the device here, reads and writes the ring through the kernel's
 * mapping of the same pages, on a platform where DMA is coherent
 * (Documentation/pcie.rst says what a non-coherent one needs).
 * Context: process context.
 *
 * Return: 0, -ENOMEM, or the DMA layer's error.
 */
int xib_hca_pci_ring_map(struct xib_hca_pci *xp, struct xib_hca_ring *ring)
{
	u8 *vaddr = ring->mmap->vaddr;
	u32 npages = ring->mmap->size >> PAGE_SHIFT;
	struct xib_hca_ring_dma *dma;
	struct sg_dma_page_iter it;
	struct page **pages;
	u32 i;
	int ret;

	dma = kvzalloc(struct_size(dma, pas, npages), GFP_KERNEL_ACCOUNT);
	if (!dma)
		return -ENOMEM;
	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = -ENOMEM;
		goto err_free_dma;
	}
	for (i = 0; i < npages; i++)
		pages[i] = vmalloc_to_page(vaddr + (size_t)i * PAGE_SIZE);
	ret = sg_alloc_table_from_pages(&dma->sgt, pages, npages, 0,
					(size_t)npages << PAGE_SHIFT,
					GFP_KERNEL_ACCOUNT);
	kvfree(pages);
	if (ret)
		goto err_free_dma;
	ret = dma_map_sgtable(&xp->pdev->dev, &dma->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto err_free_table;
	i = 0;
	for_each_sgtable_dma_page(&dma->sgt, &it, 0) {
		if (WARN_ON_ONCE(i == npages))
			break;
		dma->pas[i++] = sg_page_iter_dma_address(&it);
	}
	dma->xp = xp;
	dma->npages = npages;
	atomic_inc(&xp->dma_rings);
	atomic_add(npages, &xp->dma_pages);
	ring->dma = dma;
	return 0;

err_free_table:
	sg_free_table(&dma->sgt);
err_free_dma:
	kvfree(dma);
	return ret;
}

/**
 * xib_hca_pci_ring_unmap() - undo xib_hca_pci_ring_map(), if it was done
 * @ring: a ring the device reads no more (its queue destroyed or
 *	replaced), on a device that still has its function
 *
 * Context: process context (never atomic: the DMA layer may sleep to
 * unmap, and the page list is kvmalloc memory).
 */
void xib_hca_pci_ring_unmap(struct xib_hca_ring *ring)
{
	struct xib_hca_ring_dma *dma = ring->dma;
	struct xib_hca_pci *xp;

	if (!dma)
		return;
	might_sleep();
	xp = dma->xp;
	dma_unmap_sgtable(&xp->pdev->dev, &dma->sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&dma->sgt);
	atomic_sub(dma->npages, &xp->dma_pages);
	atomic_dec(&xp->dma_rings);
	kvfree(dma);
	ring->dma = NULL;
}

/**
 * xib_hca_pci_publish_uar() - give a user context of the device bound to
 *	@xp the function's UAR, if it has one
 * @xp: the function
 * @uctx: the context
 * @resp: where its offset and the doorbell's register and value go
 *
 * The UAR is BAR0's first page, when nothing else is in that page: the
 * Doorbell register, and IntrMask, IntrStatus (which do nothing while
 * MSI-X is enabled) and IVPosition (read-only).  A write there can only
 * raise a vector of this function: wake the engine, or an event
 * interrupt that finds nothing to do (Documentation/pcie.rst).
 *
 * Return: 0 (@resp->db_kind XIB_UVERBS_DB_MMIO, or left at
 * XIB_UVERBS_DB_SYSCALL without a UAR), or xib_mmap_publish()'s error.
 */
int xib_hca_pci_publish_uar(struct xib_hca_pci *xp, struct xib_ucontext *uctx,
			    struct xib_ucontext_resp *resp)
{
	int ret;

	if (!xp->uar)
		return 0;
	ret = xib_mmap_publish(uctx, xp->uar, &resp->uar_offset);
	if (ret)
		return ret;
	resp->db_kind = XIB_UVERBS_DB_MMIO;
	resp->uar_db_reg = XIB_PCI_REG_DOORBELL;
	resp->uar_db_value = XIB_PCI_DOORBELL(xp->peer, xp->sig.db_vector);
	return 0;
}

/*
 * BAR0's first page as a UAR, if the page holds nothing but BAR0: it
 * starts on a page boundary and the resource covers the whole page
 * (QEMU's BAR0 is 256 bytes; pci=resource_alignment=12@BDF on the
 * kernel's command line makes the kernel give it a page of its own).
 */
static void xib_hca_pci_make_uar(struct xib_hca_pci *xp)
{
	struct pci_dev *pdev = xp->pdev;
	resource_size_t start = pci_resource_start(pdev, 0);

	if (!PAGE_ALIGNED(start) || pci_resource_len(pdev, 0) < PAGE_SIZE) {
		pci_info(pdev, "BAR0 %pR shares its page: no UAR, doorbells by system call\n",
			 &pdev->resource[0]);
		return;
	}
	/* NULL (no memory) only costs the UAR */
	xp->uar = xib_mmap_alloc_io(start);
}

/* Ring @vector and wait until its handler completed @seen. */
static int xib_hca_pci_selftest(struct xib_hca_pci *xp, unsigned int vector,
				struct completion *seen)
{
	reinit_completion(seen);
	xib_hca_pci_ring(xp, vector);
	if (!wait_for_completion_timeout(seen,
					 msecs_to_jiffies(XIB_HCA_PCI_SELFTEST_MS))) {
		pci_err(xp->pdev, "doorbell on vector %u raised no MSI-X interrupt\n",
			vector);
		return -ETIMEDOUT;
	}
	return 0;
}

/* Read and check the signature; on success it is in @xp->sig. */
static int xib_hca_pci_read_sig(struct xib_hca_pci *xp)
{
	struct pci_dev *pdev = xp->pdev;
	const char *why = NULL;
	int msix_vecs, ret;

	msix_vecs = pci_msix_vec_count(pdev);
	if (msix_vecs < 0) {
		pci_err(pdev, "the function has no MSI-X\n");
		return -ENODEV;
	}
	memcpy_fromio(&xp->sig, xp->shm, sizeof(xp->sig));
	ret = xib_hca_pci_check_sig(&xp->sig, pci_resource_len(pdev, 2),
				    msix_vecs, &why);
	if (ret == -ENODEV)
		pci_info(pdev, "%s, not an xib device\n", why);
	else if (ret)
		pci_err(pdev, "signature refused: %s\n", why);
	return ret;
}

/*
 * No device binds the function from here on (until xib_hca_pci_start()).
 * A device bound to it goes first: whoever takes it off the list destroys
 * it (this, or link del or the interface's removal at the same time), and
 * the destroy detaches it, which completes @detached.  Its users get
 * DEVICE_FATAL from the core.
 */
static void xib_hca_pci_stop(struct xib_hca_pci *xp)
{
	struct xib_hca_dev *hca;
	bool listed = false;

	mutex_lock(&xib_hca_pci_lock);
	list_del_init(&xp->node);
	xp->removed = true;
	hca = xp->owner;
	if (hca)
		listed = xib_hca_unlist(hca);
	mutex_unlock(&xib_hca_pci_lock);
	if (listed)
		xib_hca_destroy(hca);
	if (hca)
		wait_for_completion(&xp->detached);
}

/* A device may bind the function (again). */
static void xib_hca_pci_start(struct xib_hca_pci *xp)
{
	mutex_lock(&xib_hca_pci_lock);
	xp->removed = false;
	list_add_tail(&xp->node, &xib_hca_pci_funcs);
	mutex_unlock(&xib_hca_pci_lock);
}

static int xib_hca_pci_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	struct xib_hca_pci *xp;
	unsigned int nvec;
	u32 pos;
	int ret;

	xp = kzalloc(sizeof(*xp), GFP_KERNEL);
	if (!xp)
		return -ENOMEM;
	xp->pdev = pdev;
	INIT_LIST_HEAD(&xp->node);
	init_completion(&xp->detached);
	init_completion(&xp->db_seen);
	init_completion(&xp->ev_seen);
	spin_lock_init(&xp->ev_lock);
	INIT_LIST_HEAD(&xp->ev_cqs);

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_free;
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < XIB_PCI_REG_LEN ||
	    !(pci_resource_flags(pdev, 2) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 2) < sizeof(struct xib_pci_sig)) {
		pci_err(pdev, "BAR0 or BAR2 missing or too small\n");
		ret = -ENODEV;
		goto err_disable;
	}
	ret = pci_request_regions(pdev, KBUILD_MODNAME);
	if (ret)
		goto err_disable;
	xp->regs = pci_iomap(pdev, 0, XIB_PCI_REG_LEN);
	if (!xp->regs) {
		ret = -ENOMEM;
		goto err_release;
	}
	xp->shm = pci_iomap(pdev, 2, 0);
	if (!xp->shm) {
		ret = -ENOMEM;
		goto err_unmap_regs;
	}
	ret = xib_hca_pci_read_sig(xp);
	if (ret)
		goto err_unmap_shm;
	pos = readl(xp->regs + XIB_PCI_REG_IV_POSITION);
	if (pos > 0xffff) {
		pci_err(pdev, "peer ID %u out of range\n", pos);
		ret = -EINVAL;
		goto err_unmap_shm;
	}
	xp->peer = pos;

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_unmap_shm;
	/* MSI-X messages are memory writes of the function: bus master */
	pci_set_master(pdev);
	nvec = le16_to_cpu(xp->sig.vectors);
	ret = pci_alloc_irq_vectors(pdev, nvec, nvec, PCI_IRQ_MSIX);
	if (ret < 0)
		goto err_clear_master;

	snprintf(xp->db_name, sizeof(xp->db_name), "xib-db@%s", pci_name(pdev));
	snprintf(xp->ev_name, sizeof(xp->ev_name), "xib-ev@%s", pci_name(pdev));
	ret = request_irq(pci_irq_vector(pdev, xp->sig.db_vector),
			  xib_hca_pci_db_irq, 0, xp->db_name, xp);
	if (ret)
		goto err_free_vectors;
	ret = request_threaded_irq(pci_irq_vector(pdev, xp->sig.ev_vector),
				   xib_hca_pci_ev_irq, xib_hca_pci_ev_thread, 0,
				   xp->ev_name, xp);
	if (ret)
		goto err_free_db_irq;

	ret = xib_hca_pci_selftest(xp, xp->sig.db_vector, &xp->db_seen);
	if (!ret)
		ret = xib_hca_pci_selftest(xp, xp->sig.ev_vector, &xp->ev_seen);
	if (ret)
		goto err_free_ev_irq;

	xib_hca_pci_make_uar(xp);
	/* without debugfs the counters are simply absent */
	xp->debugfs = debugfs_create_dir(pci_name(pdev), xib_hca_debugfs);
	debugfs_create_atomic_t("dma_rings", 0400, xp->debugfs, &xp->dma_rings);
	debugfs_create_atomic_t("dma_pages", 0400, xp->debugfs, &xp->dma_pages);
	pci_set_drvdata(pdev, xp);
	xib_hca_pci_start(xp);
	pci_info(pdev, "peer %u, %llu bytes shared, %u MSI-X vectors, serial %016llx%s\n",
		 xp->peer, le64_to_cpu(xp->sig.shm_size), nvec,
		 le64_to_cpu(xp->sig.serial), xp->uar ? ", UAR" : "");
	return 0;

err_free_ev_irq:
	free_irq(pci_irq_vector(pdev, xp->sig.ev_vector), xp);
err_free_db_irq:
	free_irq(pci_irq_vector(pdev, xp->sig.db_vector), xp);
err_free_vectors:
	pci_free_irq_vectors(pdev);
err_clear_master:
	pci_clear_master(pdev);
err_unmap_shm:
	pci_iounmap(pdev, xp->shm);
err_unmap_regs:
	pci_iounmap(pdev, xp->regs);
err_release:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(xp);
	return ret;
}

static void xib_hca_pci_remove(struct pci_dev *pdev)
{
	struct xib_hca_pci *xp = pci_get_drvdata(pdev);

	xib_hca_pci_stop(xp);

	/*
	 * The device is unregistered: its contexts are disassociated, their
	 * UAR mappings zapped and new ones refused; what still holds the
	 * entry (a context not yet closed) never maps it again.
	 */
	xib_mmap_put(xp->uar);
	debugfs_remove(xp->debugfs);
	free_irq(pci_irq_vector(pdev, xp->sig.ev_vector), xp);
	free_irq(pci_irq_vector(pdev, xp->sig.db_vector), xp);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	pci_iounmap(pdev, xp->shm);
	pci_iounmap(pdev, xp->regs);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	kfree(xp);
}

/*
 * A function level reset (/sys/bus/pci/devices/BDF/reset, or any other
 * pci_reset_function()) under the device lock: the PCI core saves the
 * function's state and turns off its decoding and bus mastering after
 * this, resets it, and restores the state (MSI-X included) before
 * xib_hca_pci_reset_done().  The xib device on the function goes first,
 * as on removal: its users get DEVICE_FATAL and their calls fail, and
 * nothing touches the function while it resets.
 */
static void xib_hca_pci_reset_prepare(struct pci_dev *pdev)
{
	struct xib_hca_pci *xp = pci_get_drvdata(pdev);

	if (!xp)
		return;
	pci_info(pdev, "reset: the function's device goes\n");
	xib_hca_pci_stop(xp);
}

/*
 * After the reset the function is checked as probe checks it (the
 * signature, each vector's doorbell coming back as an interrupt) and
 * takes a new device ("xibctl link add ... pci BDF") if it passes; one
 * that fails stays bound, refusing devices, until it is unbound.
 */
static void xib_hca_pci_reset_done(struct pci_dev *pdev)
{
	struct xib_hca_pci *xp = pci_get_drvdata(pdev);
	struct xib_pci_sig old;
	int ret;

	if (!xp)
		return;
	old = xp->sig;
	ret = xib_hca_pci_read_sig(xp);
	/* the vectors are requested: the device side may not move them */
	if (!ret && (xp->sig.vectors != old.vectors ||
		     xp->sig.db_vector != old.db_vector ||
		     xp->sig.ev_vector != old.ev_vector)) {
		pci_err(pdev, "reset: the signature's vectors changed\n");
		ret = -EINVAL;
	}
	if (ret)
		xp->sig = old;
	if (!ret)
		ret = xib_hca_pci_selftest(xp, xp->sig.db_vector, &xp->db_seen);
	if (!ret)
		ret = xib_hca_pci_selftest(xp, xp->sig.ev_vector, &xp->ev_seen);
	if (ret) {
		pci_err(pdev, "reset: the function does not work (%d), no device may bind it\n",
			ret);
		return;
	}
	xib_hca_pci_start(xp);
	pci_info(pdev, "reset: the function works again\n");
}

static const struct pci_error_handlers xib_hca_pci_err_handlers = {
	.reset_prepare = xib_hca_pci_reset_prepare,
	.reset_done = xib_hca_pci_reset_done,
};

/**
 * xib_hca_pci_attach() - bind @hca, not yet registered, to the function
 *	named @bdf
 * @hca: the device
 * @bdf: the function's name ("0000:00:10.0")
 * @extack: for the reason of a refusal
 *
 * Return: 0; -ENODEV if xib_hca has no function of that name bound, or
 * -EBUSY if a device is bound to it already.
 */
int xib_hca_pci_attach(struct xib_hca_dev *hca, const char *bdf,
		       struct netlink_ext_ack *extack)
{
	struct xib_hca_pci *xp;
	int ret = -ENODEV;

	mutex_lock(&xib_hca_pci_lock);
	list_for_each_entry(xp, &xib_hca_pci_funcs, node) {
		if (strcmp(pci_name(xp->pdev), bdf))
			continue;
		if (xp->owner) {
			NL_SET_ERR_MSG(extack, "the PCI function has an xib device already");
			ret = -EBUSY;
			break;
		}
		xp->owner = hca;
		reinit_completion(&xp->detached);
		hca->pci = xp;
		WRITE_ONCE(xp->hca, hca);
		ret = 0;
		break;
	}
	mutex_unlock(&xib_hca_pci_lock);
	if (ret == -ENODEV)
		NL_SET_ERR_MSG(extack, "no PCI function of that name is bound to xib_hca");
	return ret;
}

/**
 * xib_hca_pci_list() - put @hca, bound to a function, on xib_hca's list
 *	unless the function is going away
 * @hca: a registered device bound to a function
 *
 * The function's remove takes the devices it finds listed and waits for
 * the others to be let go; under xib_hca_pci_lock, a device is listed
 * either before remove looks or not at all.  Called with RTNL held.
 *
 * Return: 0, or -ENODEV if the function's remove has begun: the caller
 * undoes the device.
 */
int xib_hca_pci_list(struct xib_hca_dev *hca)
{
	int ret = 0;

	ASSERT_RTNL();
	mutex_lock(&xib_hca_pci_lock);
	if (hca->pci->removed)
		ret = -ENODEV;
	else
		xib_hca_list(hca);
	mutex_unlock(&xib_hca_pci_lock);
	return ret;
}

/**
 * xib_hca_pci_detach() - let go of the function of @hca, if any
 * @hca: a device whose engine is stopped and which is unregistered (or
 *	was never registered): nothing rings its doorbell any more
 */
void xib_hca_pci_detach(struct xib_hca_dev *hca)
{
	struct xib_hca_pci *xp = hca->pci;

	if (!xp)
		return;
	/*
	 * Unregistered, it has no more port events: those still queued go,
	 * and the event thread has delivered the one it took, if any.
	 */
	xib_hca_pci_async_gone(xp, &hca->xdev);
	/* every queue was destroyed, every ring retired: none is mapped */
	WARN_ON(atomic_read(&xp->dma_rings) || atomic_read(&xp->dma_pages));
	/* the doorbell handler no longer finds @hca once this returns */
	WRITE_ONCE(xp->hca, NULL);
	synchronize_irq(pci_irq_vector(xp->pdev, xp->sig.db_vector));
	mutex_lock(&xib_hca_pci_lock);
	xp->owner = NULL;
	hca->pci = NULL;
	/* last use of @xp: remove may free it once this is done */
	complete(&xp->detached);
	mutex_unlock(&xib_hca_pci_lock);
}

static const struct pci_device_id xib_hca_pci_ids[] = {
	{ PCI_DEVICE(XIB_PCI_VENDOR_ID, XIB_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, xib_hca_pci_ids);

static struct pci_driver xib_hca_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = xib_hca_pci_ids,
	.probe = xib_hca_pci_probe,
	.remove = xib_hca_pci_remove,
	.err_handler = &xib_hca_pci_err_handlers,
};

int xib_hca_pci_init(void)
{
	return pci_register_driver(&xib_hca_pci_driver);
}

void xib_hca_pci_exit(void)
{
	pci_unregister_driver(&xib_hca_pci_driver);
}
