// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the signature check of xib_hca's PCI front end
 * (pci_sig.c).  The cases are written from the rules of
 * include/uapi/xib/hca-pci.h: a valid header, then one broken field at
 * a time, each with the error the rules name for it.
 *
 * The module includes the source under test, as xib_hca_retx_test does.
 */

#include <kunit/test.h>

#include "../../drivers/hca/pci_sig.c"

#define BAR_LEN		SZ_1M
#define MSIX_VECS	2

static void xib_pci_sig_good(struct xib_pci_sig *sig)
{
	memset(sig, 0, sizeof(*sig));
	sig->magic = cpu_to_le32(0x50424958);	/* "XIBP" in memory */
	sig->version = cpu_to_le16(1);
	sig->hdr_len = cpu_to_le16(64);
	sig->shm_size = cpu_to_le64(SZ_1M);
	sig->vectors = cpu_to_le16(2);
	sig->db_vector = 0;
	sig->ev_vector = 1;
	sig->serial = cpu_to_le64(0x0200000000000001ULL);
}

static void xib_pci_sig_valid(struct kunit *test)
{
	struct xib_pci_sig sig;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, sizeof(sig), 64);
	xib_pci_sig_good(&sig);
	KUNIT_EXPECT_EQ(test, xib_hca_pci_check_sig(&sig, BAR_LEN, MSIX_VECS, &why), 0);
	KUNIT_EXPECT_NULL(test, why);
	/* the in-memory magic is the ASCII text "XIBP" */
	KUNIT_EXPECT_EQ(test, memcmp(&sig.magic, "XIBP", 4), 0);
	/* a larger header, a smaller share of the BAR, swapped vectors */
	sig.hdr_len = cpu_to_le16(128);
	sig.shm_size = cpu_to_le64(SZ_64K);
	sig.db_vector = 1;
	sig.ev_vector = 0;
	KUNIT_EXPECT_EQ(test, xib_hca_pci_check_sig(&sig, BAR_LEN, MSIX_VECS, &why), 0);
	/* more vectors than used, within the table */
	sig.vectors = cpu_to_le16(4);
	KUNIT_EXPECT_EQ(test, xib_hca_pci_check_sig(&sig, BAR_LEN, 4, &why), 0);
	/* no serial is allowed */
	sig.serial = 0;
	KUNIT_EXPECT_EQ(test, xib_hca_pci_check_sig(&sig, BAR_LEN, 4, &why), 0);
}

struct xib_pci_sig_case {
	const char *name;
	size_t off;		/* byte to change */
	u8 val;
	int ret;
};

static const struct xib_pci_sig_case xib_pci_sig_cases[] = {
	{ "magic, low byte", 0, 'x', -ENODEV },
	{ "magic, high byte", 3, 0, -ENODEV },
	{ "version 0", 4, 0, -EPROTONOSUPPORT },
	{ "version 2", 4, 2, -EPROTONOSUPPORT },
	{ "version 257", 5, 1, -EPROTONOSUPPORT },
	{ "header shorter than the structure", 6, 63, -EINVAL },
	{ "header length zero", 6, 0, -EINVAL },
	{ "shared memory shorter than the header", 10, 0, -EINVAL },
	{ "shared memory larger than the BAR", 10, 0x20, -EINVAL },
	{ "shared memory size's high bits", 15, 1, -EINVAL },
	{ "one vector", 16, 1, -EINVAL },
	{ "more vectors than the MSI-X table", 16, 3, -EINVAL },
	{ "vector count's high byte", 17, 1, -EINVAL },
	{ "doorbell vector beyond the count", 18, 2, -EINVAL },
	{ "event vector beyond the count", 19, 2, -EINVAL },
	{ "doorbell and event on one vector", 18, 1, -EINVAL },
	{ "reserved0", 20, 1, -EINVAL },
	{ "reserved0, last byte", 23, 0x80, -EINVAL },
	{ "reserved[0]", 32, 1, -EINVAL },
	{ "reserved[3], last byte", 63, 1, -EINVAL },
};

/* Each case: the valid header with one byte changed is refused. */
static void xib_pci_sig_refused(struct kunit *test)
{
	const struct xib_pci_sig_case *c;
	struct xib_pci_sig sig;
	const char *why;

	for (c = xib_pci_sig_cases; c < xib_pci_sig_cases + ARRAY_SIZE(xib_pci_sig_cases); c++) {
		xib_pci_sig_good(&sig);
		((u8 *)&sig)[c->off] = c->val;
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, xib_hca_pci_check_sig(&sig, BAR_LEN, MSIX_VECS, &why),
				    c->ret, "case: %s", c->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, why, "case: %s", c->name);
	}
}

static struct kunit_case xib_pci_sig_test_cases[] = {
	KUNIT_CASE(xib_pci_sig_valid),
	KUNIT_CASE(xib_pci_sig_refused),
	{}
};

static struct kunit_suite xib_pci_sig_suite = {
	.name = "xib_hca_pci",
	.test_cases = xib_pci_sig_test_cases,
};

kunit_test_suite(xib_pci_sig_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of xib_hca's PCI signature check");
