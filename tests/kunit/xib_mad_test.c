// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the MAD header, TID and response matching (core/mad_priv.h) and
 * the HCA's GSI datagrams (drivers/hca/hca_gsi.h) against the CM MADs
 * rdma_rxe sent in the project's capture.
 *
 * The module includes the sources under test, so it tests exactly them.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "../../drivers/hca/hca_wire.c"
#include "../../drivers/hca/hca_icrc.c"
#include "../../drivers/hca/hca_gsi.h"
#include "../../core/mad_priv.h"
#include "xib_fixture_frames.h"

/* IPv4 20 + UDP 8 from the start of a fixture frame to the BTH */
#define FIX_BTH_OFF	28

static const struct xib_mad *fix_mad(const u8 *frame)
{
	return (const struct xib_mad *)(frame + FIX_BTH_OFF + 20);
}

static void xib_mad_hdr_fixture(struct kunit *test)
{
	const struct xib_mad_hdr *req = &fix_mad(xib_fix_f75)->hdr;
	const struct xib_mad_hdr *rep = &fix_mad(xib_fix_f76)->hdr;

	KUNIT_EXPECT_EQ(test, sizeof(xib_fix_f75), 308);
	KUNIT_EXPECT_EQ(test, req->base_version, XIB_MAD_BASE_VERSION);
	KUNIT_EXPECT_EQ(test, req->mgmt_class, XIB_MGMT_CLASS_CM);
	KUNIT_EXPECT_EQ(test, req->class_version, 2);
	KUNIT_EXPECT_EQ(test, req->method, XIB_MGMT_METHOD_SEND);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req->tid), 0x0000000227214fd7ULL);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req->attr_id), 0x0010);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rep->attr_id), 0x0013);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req->status), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(req->attr_mod), 0);
	KUNIT_EXPECT_TRUE(test, xib_mad_hdr_valid(req));
	/* REP answers REQ with method Send: not a MAD-layer response */
	KUNIT_EXPECT_FALSE(test, xib_mad_is_response(rep));
	KUNIT_EXPECT_FALSE(test, xib_mad_matches(req, rep));
	KUNIT_EXPECT_EQ(test, xib_mad_tid_agent(req->tid), 2U);
}

static void xib_mad_tid_match(struct kunit *test)
{
	struct xib_mad_hdr req = {
		.base_version = 1, .mgmt_class = XIB_MGMT_CLASS_SUBN_ADM,
		.class_version = 2, .method = XIB_MGMT_METHOD_GET,
	};
	struct xib_mad_hdr rsp;

	req.tid = xib_mad_tid_make(0x12345678, 0x9abcdef0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req.tid), 0x123456789abcdef0ULL);
	KUNIT_EXPECT_EQ(test, xib_mad_tid_agent(req.tid), 0x12345678U);

	rsp = req;
	rsp.method = XIB_MGMT_METHOD_GET_RESP;
	KUNIT_EXPECT_TRUE(test, xib_mad_matches(&req, &rsp));
	/* another TID, another class, a request: no match */
	rsp.tid = xib_mad_tid_make(0x12345678, 0x9abcdef1);
	KUNIT_EXPECT_FALSE(test, xib_mad_matches(&req, &rsp));
	rsp.tid = req.tid;
	rsp.mgmt_class = XIB_MGMT_CLASS_CM;
	KUNIT_EXPECT_FALSE(test, xib_mad_matches(&req, &rsp));
	rsp.mgmt_class = req.mgmt_class;
	rsp.method = XIB_MGMT_METHOD_GET;
	KUNIT_EXPECT_FALSE(test, xib_mad_matches(&req, &rsp));
	rsp.method = XIB_SA_METHOD_GET_TABLE_RESP;
	KUNIT_EXPECT_TRUE(test, xib_mad_matches(&req, &rsp));
	rsp.base_version = 2;
	KUNIT_EXPECT_FALSE(test, xib_mad_hdr_valid(&rsp));
}

/* The datagram we build from rxe's MAD is rxe's, byte for byte. */
static void xib_mad_gsi_build_fixture(struct kunit *test)
{
	static const u8 *const frames[] = { xib_fix_f75, xib_fix_f76,
					     xib_fix_f104 };
	static const u32 psns[] = { 0, 0, 3 };
	u8 *buf = kunit_kzalloc(test, XIB_HCA_GSI_LEN, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(frames); i++) {
		KUNIT_ASSERT_EQ(test, xib_hca_gsi_build(buf, 0xffff, 1,
							XIB_QP1_QKEY, psns[i],
							fix_mad(frames[i])), 0);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, frames[i] + FIX_BTH_OFF,
						 XIB_HCA_GSI_LEN), 0,
				    "frame %u", i);
	}
}

static void xib_mad_gsi_parse_fixture(struct kunit *test)
{
	const u8 *bth = xib_fix_f76 + FIX_BTH_OFF;
	struct xib_hca_pkt pkt;
	const struct xib_mad *mad;
	u8 *copy;
	u32 sqpn = 0;

	KUNIT_EXPECT_EQ(test, xib_icrc_check(xib_fix_f76, sizeof(xib_fix_f76)),
			0);
	KUNIT_ASSERT_EQ(test, xib_hca_parse(bth, sizeof(xib_fix_f76) -
					    FIX_BTH_OFF, &pkt), 0);
	KUNIT_EXPECT_EQ(test, xib_bth_dqpn(pkt.bth), 1U);
	mad = xib_hca_gsi_parse(&pkt, &sqpn);
	KUNIT_ASSERT_NOT_NULL(test, mad);
	KUNIT_EXPECT_EQ(test, sqpn, 1U);
	KUNIT_EXPECT_PTR_EQ(test, mad, fix_mad(xib_fix_f76));

	/* another Q_Key is not GSI traffic */
	copy = kunit_kmalloc(test, sizeof(xib_fix_f76), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, xib_fix_f76, sizeof(xib_fix_f76));
	copy[FIX_BTH_OFF + 12 + 3] = 0x01;
	KUNIT_ASSERT_EQ(test, xib_hca_parse(copy + FIX_BTH_OFF,
					    sizeof(xib_fix_f76) - FIX_BTH_OFF,
					    &pkt), 0);
	KUNIT_EXPECT_NULL(test, xib_hca_gsi_parse(&pkt, &sqpn));
}

static struct kunit_case xib_mad_cases[] = {
	KUNIT_CASE(xib_mad_hdr_fixture),
	KUNIT_CASE(xib_mad_tid_match),
	KUNIT_CASE(xib_mad_gsi_build_fixture),
	KUNIT_CASE(xib_mad_gsi_parse_fixture),
	{}
};

static struct kunit_suite xib_mad_suite = {
	.name = "xib_mad",
	.test_cases = xib_mad_cases,
};

kunit_test_suite(xib_mad_suite);

MODULE_DESCRIPTION("KUnit tests for the xib MAD layer and GSI");
MODULE_LICENSE("GPL");
