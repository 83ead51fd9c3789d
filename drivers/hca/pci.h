/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca's PCI front end (pci.c, pci_sig.c): a PCI function that carries
 * xib's signature (include/uapi/xib/hca-pci.h, Documentation/pcie.rst).
 */
#ifndef _XIB_HCA_PCI_H
#define _XIB_HCA_PCI_H

#include <linux/completion.h>
#include <linux/pci.h>
#include <uapi/xib/hca-pci.h>

/**
 * struct xib_hca_pci - one bound PCI function
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
 */
struct xib_hca_pci {
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
};

int xib_hca_pci_check_sig(const struct xib_pci_sig *sig, u64 bar_len,
			  unsigned int msix_vecs, const char **why);

int xib_hca_pci_init(void);
void xib_hca_pci_exit(void);

#endif /* _XIB_HCA_PCI_H */
