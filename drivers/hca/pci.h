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

struct netlink_ext_ack;
struct xib_hca_dev;
struct xib_hca_cq;
struct xib_mmap_entry;
struct xib_ucontext;
struct xib_ucontext_resp;

/**
 * struct xib_hca_pci - one bound PCI function
 * @node: on the list of bound functions (pci.c), under xib_hca_pci_lock
 * @owner: the xib device bound to the function, or NULL; under
 *	xib_hca_pci_lock
 * @hca: @owner as the interrupt handlers see it (READ_ONCE()): cleared
 *	first on detach, then the handlers are synchronized
 * @removed: the function is going away: no device may bind it any more;
 *	under xib_hca_pci_lock
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
 * @ev_lock: protects @ev_cqs; nests inside a CQ's lock, never the
 *	other way round
 * @ev_cqs: CQs with completion events for the event vector's handler
 *	(struct xib_hca_cq.ev_node); a CQ is added by its first pending
 *	event, and the vector is rung only when the list was empty (the
 *	moderation: one interrupt per batch)
 * @ev_rings: event vector rings (one per batch of events)
 * @ev_delivered: completion events the handler delivered
 * @uar: BAR0's first page as an io mmap entry (the UAR user space
 *	rings the doorbell through), or NULL when BAR0 shares that page
 *	with another resource; set by probe, put by remove
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
int xib_hca_pci_publish_uar(struct xib_hca_pci *xp, struct xib_ucontext *uctx,
			    struct xib_ucontext_resp *resp);
int xib_hca_pci_init(void);
void xib_hca_pci_exit(void);

#endif /* _XIB_HCA_PCI_H */
