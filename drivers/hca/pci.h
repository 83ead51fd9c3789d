/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca's PCI front end (pci.c, pci_sig.c): a PCI function that carries
 * xib's signature (include/uapi/xib/hca-pci.h, Documentation/pcie.rst).
 */
#ifndef _XIB_HCA_PCI_H
#define _XIB_HCA_PCI_H

#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/pci.h>
#include <uapi/xib/hca-pci.h>
#include <xib/xib_verbs.h>

struct dentry;
struct netlink_ext_ack;
struct xib_hca_dev;
struct xib_hca_cq;
struct xib_hca_ring;
struct xib_mmap_entry;
struct xib_ucontext;
struct xib_ucontext_resp;

/* Entries of a function's async event queue (a power of two). */
#define XIB_HCA_PCI_AE_SLOTS	64

/* What an async event is about. */
enum xib_hca_pci_ae_kind {
	XIB_HCA_PCI_AE_QP,
	XIB_HCA_PCI_AE_CQ,
	XIB_HCA_PCI_AE_SRQ,
	XIB_HCA_PCI_AE_PORT,
};

/**
 * struct xib_hca_pci_ae - one async event on its way to the event vector
 * @obj: the struct xib_qp, xib_cq, xib_srq or, for a port event, the
 *	struct xib_device (by @kind); NULL once the object's destroy (the
 *	device's detach) dropped the event
 * @kind: what @obj is
 * @type: the event
 * @port_num: the port of a port event
 */
struct xib_hca_pci_ae {
	void *obj;
	enum xib_hca_pci_ae_kind kind;
	enum xib_event_type type;
	u32 port_num;
};

/**
 * struct xib_hca_ring_dma - a ring's pages as the function reads them
 * @xp: the function they are mapped for
 * @sgt: the ring's vmalloc pages, mapped DMA_BIDIRECTIONAL for @xp's
 *	device
 * @npages: pages of the ring (its header page included)
 * @pas: the DMA address of each page, in ring order: the page list a
 *	device is given to read the ring (a real HCA's queue context)
 */
struct xib_hca_ring_dma {
	struct xib_hca_pci *xp;
	struct sg_table sgt;
	u32 npages;
	dma_addr_t pas[];
};

/**
 * struct xib_hca_pci - one bound PCI function
 * @node: on the list of bound functions (pci.c), under xib_hca_pci_lock
 * @owner: the xib device bound to the function, or NULL; under
 *	xib_hca_pci_lock
 * @hca: @owner as the interrupt handlers see it (READ_ONCE()): cleared
 *	first on detach, then the handlers are synchronized
 * @removed: the function is going away, or being reset (or failed its
 *	check after a reset): no device may bind it; under xib_hca_pci_lock
 * @detached: completed when @owner is let go (remove waits for it)
 * @pdev: the function
 * @regs: BAR0, the registers
 * @shm: BAR2, the shared memory (the signature at offset 0)
 * @sig: the signature as probe read and checked it
 * @peer: this function's peer ID (IVPosition); a doorbell names it
 * @db_irqs: interrupts of the doorbell vector so far
 * @ev_irqs: interrupts of the event vector so far
 * @db_seen: completed by the doorbell vector's handler (probe's self-test)
 * @ev_seen: completed by the event vector's handler (probe's self-test)
 * @db_name: the doorbell vector's name in /proc/interrupts
 * @ev_name: the event vector's name in /proc/interrupts
 * @ev_lock: protects @ev_cqs and the async event queue (@ae, @ae_head,
 *	@ae_tail); irq-safe; nests inside every lock of the engine (a CQ's,
 *	an SRQ's, a QP's), never the other way round
 * @ev_cqs: CQs with completion events for the event vector's handler
 *	(struct xib_hca_cq.ev_node); a CQ is added by its first pending
 *	event, and the vector is rung only when the list was empty (the
 *	moderation: one interrupt per batch)
 * @ev_rings: event vector rings (one per batch of events)
 * @ev_delivered: completion events the handler delivered
 * @ae: the async event queue: events the engine raised (QP, CQ, SRQ)
 *	and the port events of the device (xib_hca_port_event()), in
 *	order, for the event vector's handler; the vector is rung only when
 *	this queue and @ev_cqs were both empty
 * @ae_head: free-running index of the next event the handler takes
 * @ae_tail: free-running index of the next free entry
 * @ae_delivered: async events the handler delivered
 * @ae_dropped: async events lost to a full queue (a real device's event
 *	queue overrun)
 * @uar: BAR0's first page as an io mmap entry (the UAR user space
 *	rings the doorbell through), or NULL when BAR0 shares that page
 *	with another resource; set by probe, put by remove
 * @dma_rings: rings of the device on the function mapped for its DMA
 *	(xib_hca_pci_ring_map()); 0 when the device lets go of the function
 * @dma_pages: the pages of those rings
 * @debugfs: the function's directory under debugfs' xib_hca/ (its
 *	@dma_rings and @dma_pages, read-only)
 */
struct xib_hca_pci {
	struct list_head node;
	struct xib_hca_dev *owner;
	struct xib_hca_dev *hca;
	bool removed;
	struct completion detached;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *shm;
	struct xib_pci_sig sig;
	u16 peer;
	atomic_long_t db_irqs;
	atomic_long_t ev_irqs;
	struct completion db_seen;
	struct completion ev_seen;
	char db_name[32];
	char ev_name[32];
	struct xib_mmap_entry *uar;
	spinlock_t ev_lock;		/* protects @ev_cqs; inside a CQ's lock */
	struct list_head ev_cqs;
	atomic_long_t ev_rings;
	atomic_long_t ev_delivered;
	struct xib_hca_pci_ae ae[XIB_HCA_PCI_AE_SLOTS];
	u32 ae_head;
	u32 ae_tail;
	atomic_long_t ae_delivered;
	atomic_long_t ae_dropped;
	atomic_t dma_rings;
	atomic_t dma_pages;
	struct dentry *debugfs;
};

int xib_hca_pci_check_sig(const struct xib_pci_sig *sig, u64 bar_len,
			  unsigned int msix_vecs, const char **why);

int xib_hca_pci_attach(struct xib_hca_dev *hca, const char *bdf,
		       struct netlink_ext_ack *extack);
int xib_hca_pci_list(struct xib_hca_dev *hca);
void xib_hca_pci_detach(struct xib_hca_dev *hca);
void xib_hca_pci_ring_db(struct xib_hca_pci *xp);
void xib_hca_pci_queue_comp(struct xib_hca_pci *xp, struct xib_hca_cq *cq);
void xib_hca_pci_cq_gone(struct xib_hca_pci *xp, struct xib_hca_cq *cq);
void xib_hca_pci_queue_async(struct xib_hca_pci *xp,
			     enum xib_hca_pci_ae_kind kind, void *obj,
			     enum xib_event_type type, u32 port_num);
void xib_hca_pci_async_gone(struct xib_hca_pci *xp, const void *obj);
int xib_hca_pci_ring_map(struct xib_hca_pci *xp, struct xib_hca_ring *ring);
void xib_hca_pci_ring_unmap(struct xib_hca_ring *ring);
int xib_hca_pci_publish_uar(struct xib_hca_pci *xp, struct xib_ucontext *uctx,
			    struct xib_ucontext_resp *resp);
int xib_hca_pci_init(void);
void xib_hca_pci_exit(void);

#endif /* _XIB_HCA_PCI_H */
