/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib HCA as a PCI function: the interface between xib_hca's PCI front end
 * (drivers/hca/pci.c) and the device side that runs it (for the test VM,
 * QEMU's ivshmem-doorbell function served by tests/vm/xib-ivshmem-server).
 * Documentation/pcie.rst describes the model.
 *
 * BAR0: registers
 * ---------------
 * The ivshmem-doorbell registers (QEMU docs/specs/ivshmem-spec.rst), 32
 * bits each, little-endian:
 *
 *   offset  name          access
 *   0x00    IntrMask      read/write; unused with MSI-X
 *   0x04    IntrStatus    read/write; unused with MSI-X
 *   0x08    IVPosition    read-only: this function's peer ID
 *   0x0c    Doorbell      write-only: (peer ID << 16) | vector
 *
 * A write of XIB_PCI_DOORBELL(own peer ID, vector) to Doorbell raises
 * MSI-X vector `vector` of this same function: that is xib's doorbell
 * (an MMIO write, no system call) and its interrupt path.  When BAR0 has
 * a page of its own, that page is the UAR user contexts map (uverbs.h,
 * XIB_UVERBS_DB_MMIO) to write XIB_PCI_DOORBELL(peer, db_vector); while
 * MSI-X is enabled IntrMask and IntrStatus do nothing, so a user of the
 * page can only raise this function's vectors.
 *
 * BAR1: the MSI-X table and PBA.
 *
 * BAR2: shared memory, starting with the signature
 * -------------------------------------------------
 * The device side writes struct xib_pci_sig at offset 0 of BAR2 before
 * the function is visible; the driver binds only a function whose
 * signature is valid: magic and version as below, hdr_len at least
 * sizeof(struct xib_pci_sig) and within shm_size, shm_size at most the
 * BAR's length, at least two vectors and no more than the function's
 * MSI-X table has, db_vector and ev_vector distinct and below vectors,
 * and every reserved field zero.  Anything else is refused (a function
 * with another magic is some other user of ivshmem and left alone).
 * All fields are little-endian.
 *
 * version is the layout's major version: a driver binds only the version
 * it knows.  Later minor additions take reserved space (which a device
 * of this version leaves zero) or grow hdr_len.
 */
#ifndef _UAPI_XIB_HCA_PCI_H
#define _UAPI_XIB_HCA_PCI_H

#include <linux/types.h>

#define XIB_PCI_VENDOR_ID		0x1af4	/* Red Hat, Inc. (QEMU) */
#define XIB_PCI_DEVICE_ID		0x1110	/* Inter-VM shared memory */

/* BAR0 registers, and its length */
#define XIB_PCI_REG_INTR_MASK		0x00
#define XIB_PCI_REG_INTR_STATUS		0x04
#define XIB_PCI_REG_IV_POSITION		0x08
#define XIB_PCI_REG_DOORBELL		0x0c
#define XIB_PCI_REG_LEN			0x10

/* The value a Doorbell write takes to raise @vector of peer @peer. */
#define XIB_PCI_DOORBELL(peer, vector) \
	((((__u32)(peer) & 0xffff) << 16) | ((__u32)(vector) & 0xffff))

#define XIB_PCI_MAGIC			0x50424958	/* "XIBP" */
#define XIB_PCI_VERSION			1

/**
 * struct xib_pci_sig - the signature header at offset 0 of BAR2
 * @magic: XIB_PCI_MAGIC
 * @version: XIB_PCI_VERSION
 * @hdr_len: bytes of this header (the device's idea of it)
 * @shm_size: bytes of shared memory the device side made
 * @vectors: MSI-X vectors the device side serves (eventfds per peer)
 * @db_vector: the vector a doorbell raises (wakes the engine)
 * @ev_vector: the vector completion and async events raise
 * @reserved0: zero
 * @serial: the device's serial number; names the device (its node GUID
 *	when it is not zero)
 * @reserved: zero
 */
struct xib_pci_sig {
	__le32 magic;
	__le16 version;
	__le16 hdr_len;
	__le64 shm_size;
	__le16 vectors;
	__u8 db_vector;
	__u8 ev_vector;
	__le32 reserved0;
	__le64 serial;
	__le64 reserved[4];
};

#endif /* _UAPI_XIB_HCA_PCI_H */
