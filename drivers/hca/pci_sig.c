// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca's PCI front end: the check of the signature header the device
 * side writes at the start of BAR2 (include/uapi/xib/hca-pci.h).  A pure
 * function, tested by tests/kunit/xib_hca_pci_test.c.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <uapi/xib/hca-pci.h>

#include "pci.h"

/**
 * xib_hca_pci_check_sig() - whether a signature header names a device
 *	this driver can run
 * @sig: a copy of the header, read from BAR2
 * @bar_len: the length of BAR2
 * @msix_vecs: the size of the function's MSI-X table
 * @why: set to a short reason when the header is refused
 *
 * The rules are those of include/uapi/xib/hca-pci.h.
 *
 * Return: 0 if the header is valid; -ENODEV if it is not xib's (another
 * magic: some other user of the function); -EPROTONOSUPPORT for a version
 * this driver does not know; -EINVAL for a malformed header.
 */
int xib_hca_pci_check_sig(const struct xib_pci_sig *sig, u64 bar_len,
			  unsigned int msix_vecs, const char **why)
{
	u64 shm_size = le64_to_cpu(sig->shm_size);
	unsigned int hdr_len = le16_to_cpu(sig->hdr_len);
	unsigned int vectors = le16_to_cpu(sig->vectors);
	unsigned int i;

	if (le32_to_cpu(sig->magic) != XIB_PCI_MAGIC) {
		*why = "no xib signature (bad magic)";
		return -ENODEV;
	}
	if (le16_to_cpu(sig->version) != XIB_PCI_VERSION) {
		*why = "unknown signature version";
		return -EPROTONOSUPPORT;
	}
	if (hdr_len < sizeof(*sig) || shm_size < hdr_len) {
		*why = "header length out of range";
		return -EINVAL;
	}
	if (shm_size > bar_len) {
		*why = "shared memory larger than BAR2";
		return -EINVAL;
	}
	if (vectors < 2 || vectors > msix_vecs) {
		*why = "vector count out of range";
		return -EINVAL;
	}
	if (sig->db_vector >= vectors || sig->ev_vector >= vectors ||
	    sig->db_vector == sig->ev_vector) {
		*why = "bad doorbell or event vector";
		return -EINVAL;
	}
	if (sig->reserved0)
		goto reserved;
	for (i = 0; i < ARRAY_SIZE(sig->reserved); i++)
		if (sig->reserved[i])
			goto reserved;
	return 0;

reserved:
	*why = "reserved field not zero";
	return -EINVAL;
}
