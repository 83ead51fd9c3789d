// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the IB CM (xib_cma: core/cma/cm*.c).
 *
 * xib_cm_msg: the CM MADs rdma_rxe and the kernel's rdma_cm sent in the
 *	project's capture (tests/kunit/xib_cm_frames.h) decode to the values
 *	tshark prints for them, and the messages built from those values
 *	encode to the same 256 bytes; MRA and REJ (not in the capture) are
 *	checked against IBTA's byte layout by hand.
 * xib_cm_state: the state table (cm_state.c) against an oracle written
 *	from IBTA vol. 1 12.9's state diagrams, every state and operation.
 * xib_cm_conn, xib_cm_proto: the protocol end to end: two devices of a fake driver
 *	whose QP1 is a wire in memory (a workqueue, so datagrams arrive in
 *	another context, as from a NIC), the real MAD layer of xib_core and
 *	the real CM of xib_cma; the wire can drop, duplicate and replay.
 *
 * The module includes cm_msg.c and cm_state.c, so it tests exactly them;
 * the protocol cases use xib_cma's exported API.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <xib/xib_cm.h>
#include <xib/xib_mad.h>

#include "../../core/cma/cm_msg.c"
#include "../../core/cma/cm_state.c"
#include "xib_cm_frames.h"

static const struct xib_mad *fix(const u8 *bytes)
{
	return (const struct xib_mad *)bytes;
}

static void gid4(u8 *gid, u8 a, u8 b, u8 c, u8 d)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* Encode with @enc and compare with the fixture; first differing byte. */
static int cm_diff(const struct xib_mad *a, const u8 *b)
{
	const u8 *p = (const u8 *)a;
	int i;

	for (i = 0; i < XIB_MAD_SIZE; i++)
		if (p[i] != b[i])
			return i;
	return -1;
}

/* --- xib_cm_msg ---------------------------------------------------------- */

/* The RDMA CM header rping's and udaddy's private data start with. */
static void cm_check_cma_hdr(struct kunit *test, const u8 *pd, u16 sport)
{
	u8 src[16], dst[16];

	gid4(src, 10, 99, 0, 2);
	gid4(dst, 10, 99, 0, 1);
	KUNIT_EXPECT_EQ(test, pd[0], 0x00);	/* CM version 0.0 */
	KUNIT_EXPECT_EQ(test, pd[1], 0x40);	/* IP version 4 */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(pd + 2), sport);
	KUNIT_EXPECT_EQ(test, memcmp(pd + 16, src + 12, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(pd + 32, dst + 12, 4), 0);
}

/*
 * Frame 75, as tshark decodes it: Local Communication ID 0xd74f2127,
 * ServiceID prefix 0000000001 protocol 0x06 port 0x1c06, Local CA GUID
 * 0x505400fffe000002, Q_Key 0, QPN 0x16, Responder Resources 1, Initiator
 * Depth 1, Remote CM Response Timeout 0x14, Transport 0, Flow Control 0,
 * Starting PSN 0x457132, Local CM Response Timeout 0x14, Retry Count 7,
 * P_Key 0xffff, MTU 5, RDC 0, RNR Retry 7, Max CM Retries 15, SRQ 0,
 * LIDs 65535, GIDs 10.99.0.2 -> 10.99.0.1, Traffic Class 0, Hop Limit 0x40,
 * SL 0, Subnet Local 0, Local ACK Timeout 0x13; alternate path all zero.
 *
 * tshark prints the primary Flow Label as 0x0079c, "Reserved" 0x01 and
 * Packet Rate 0x39: its dissector misplaces that word.  Bytes 88-91 are
 * 79 c9 10 00, which IBTA table 99 (flow label 20 bits, 6 reserved, rate
 * 6; Linux's CM_REQ_PRIMARY_FLOW_LABEL is CM_FIELD32_LOC(88, 20)) reads
 * as flow label 0x79c91 and packet rate 0.
 */
static void cm_f75_fields(struct xib_cm_req_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->local_comm_id = cpu_to_be32(0xd74f2127);
	m->service_id = cpu_to_be64(0x0000000001061c06ULL);
	m->local_ca_guid = cpu_to_be64(0x505400fffe000002ULL);
	m->local_qpn = 0x16;
	m->responder_resources = 1;
	m->initiator_depth = 1;
	m->remote_cm_response_timeout = 0x14;
	m->starting_psn = 0x457132;
	m->local_cm_response_timeout = 0x14;
	m->retry_count = 7;
	m->pkey = 0xffff;
	m->mtu = 5;
	m->rnr_retry_count = 7;
	m->max_cm_retries = 15;
	m->primary.local_lid = 0xffff;
	m->primary.remote_lid = 0xffff;
	gid4(m->primary.local_gid, 10, 99, 0, 2);
	gid4(m->primary.remote_gid, 10, 99, 0, 1);
	m->primary.flow_label = 0x79c91;
	m->primary.hop_limit = 0x40;
	m->primary.local_ack_timeout = 0x13;
	/* the RDMA CM header: IPv4, source port 0xc215 */
	m->private_data[1] = 0x40;
	m->private_data[2] = 0xc2;
	m->private_data[3] = 0x15;
	memcpy(m->private_data + 16, "\x0a\x63\x00\x02", 4);
	memcpy(m->private_data + 32, "\x0a\x63\x00\x01", 4);
}

static void xib_cm_msg_req(struct kunit *test)
{
	const struct xib_mad *mad = fix(xib_cm_fix_f75);
	struct xib_cm_req_msg *m, *want;
	struct xib_mad *out;
	u8 gid[16];

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m && want && out);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(mad), XIB_CM_ATTR_REQ);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mad->hdr.tid), 0x0000000227214fd7ULL);
	xib_cm_req_decode(mad, m);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(m->local_comm_id), 0xd74f2127);
	KUNIT_EXPECT_EQ(test, m->vendor_id, 0U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(m->service_id), 0x0000000001061c06ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(m->local_ca_guid),
			0x505400fffe000002ULL);
	KUNIT_EXPECT_EQ(test, m->local_qkey, 0U);
	KUNIT_EXPECT_EQ(test, m->local_qpn, 0x16U);
	KUNIT_EXPECT_EQ(test, m->responder_resources, 1);
	KUNIT_EXPECT_EQ(test, m->local_eecn, 0U);
	KUNIT_EXPECT_EQ(test, m->initiator_depth, 1);
	KUNIT_EXPECT_EQ(test, m->remote_eecn, 0U);
	KUNIT_EXPECT_EQ(test, m->remote_cm_response_timeout, 0x14);
	KUNIT_EXPECT_EQ(test, m->transport_type, XIB_CM_TRANSPORT_RC);
	KUNIT_EXPECT_FALSE(test, m->flow_control);
	KUNIT_EXPECT_EQ(test, m->starting_psn, 0x457132U);
	KUNIT_EXPECT_EQ(test, m->local_cm_response_timeout, 0x14);
	KUNIT_EXPECT_EQ(test, m->retry_count, 7);
	KUNIT_EXPECT_EQ(test, m->pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, m->mtu, 5);
	KUNIT_EXPECT_FALSE(test, m->rdc_exists);
	KUNIT_EXPECT_EQ(test, m->rnr_retry_count, 7);
	KUNIT_EXPECT_EQ(test, m->max_cm_retries, 15);
	KUNIT_EXPECT_FALSE(test, m->srq);
	KUNIT_EXPECT_EQ(test, m->ext_transport_type, 0);
	KUNIT_EXPECT_EQ(test, m->primary.local_lid, 65535);
	KUNIT_EXPECT_EQ(test, m->primary.remote_lid, 65535);
	gid4(gid, 10, 99, 0, 2);
	KUNIT_EXPECT_EQ(test, memcmp(m->primary.local_gid, gid, 16), 0);
	gid4(gid, 10, 99, 0, 1);
	KUNIT_EXPECT_EQ(test, memcmp(m->primary.remote_gid, gid, 16), 0);
	KUNIT_EXPECT_EQ(test, m->primary.flow_label, 0x79c91U);
	KUNIT_EXPECT_EQ(test, m->primary.packet_rate, 0);
	KUNIT_EXPECT_EQ(test, m->primary.traffic_class, 0);
	KUNIT_EXPECT_EQ(test, m->primary.hop_limit, 0x40);
	KUNIT_EXPECT_EQ(test, m->primary.sl, 0);
	KUNIT_EXPECT_FALSE(test, m->primary.subnet_local);
	KUNIT_EXPECT_EQ(test, m->primary.local_ack_timeout, 0x13);
	KUNIT_EXPECT_EQ(test, m->alternate.local_lid, 0);
	KUNIT_EXPECT_EQ(test, m->alternate.remote_lid, 0);
	KUNIT_EXPECT_EQ(test, m->alternate.hop_limit, 0);
	KUNIT_EXPECT_EQ(test, m->alternate.local_ack_timeout, 0);
	KUNIT_EXPECT_FALSE(test, m->sap_supported);
	cm_check_cma_hdr(test, m->private_data, 0xc215);
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), 0);

	/* the message built from those values is the frame, byte for byte */
	cm_f75_fields(want);
	KUNIT_EXPECT_EQ(test, memcmp(m, want, sizeof(*m)), 0);
	xib_cm_req_encode(out, mad->hdr.tid, want);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f75), -1);
}

/*
 * Frame 76, tshark: Local Communication ID 0x133ee839, Remote 0xd74f2127,
 * Q_Key 0, QPN 0x16, EECN 0, Starting PSN 0x61f847, Responder Resources 1,
 * Initiator Depth 1, Target ACK Delay 0x0f, Failover Accepted 0, Flow
 * Control 0, RNR Retry Count 7, SRQ 0, Local CA GUID 0x505400fffe000001.
 */
static void xib_cm_msg_rep(struct kunit *test)
{
	const struct xib_mad *mad = fix(xib_cm_fix_f76);
	struct xib_cm_rep_msg *m, *want;
	struct xib_mad *out;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m && want && out);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(mad), XIB_CM_ATTR_REP);
	/* the REP carries the REQ's transaction ID */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(mad->hdr.tid), 0x0000000227214fd7ULL);
	xib_cm_rep_decode(mad, m);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(m->local_comm_id), 0x133ee839);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(m->remote_comm_id), 0xd74f2127);
	KUNIT_EXPECT_EQ(test, m->local_qkey, 0U);
	KUNIT_EXPECT_EQ(test, m->local_qpn, 0x16U);
	KUNIT_EXPECT_EQ(test, m->local_eecn, 0U);
	KUNIT_EXPECT_EQ(test, m->starting_psn, 0x61f847U);
	KUNIT_EXPECT_EQ(test, m->vendor_id, 0U);
	KUNIT_EXPECT_EQ(test, m->responder_resources, 1);
	KUNIT_EXPECT_EQ(test, m->initiator_depth, 1);
	KUNIT_EXPECT_EQ(test, m->target_ack_delay, 0x0f);
	KUNIT_EXPECT_EQ(test, m->failover_accepted, 0);
	KUNIT_EXPECT_FALSE(test, m->flow_control);
	KUNIT_EXPECT_EQ(test, m->rnr_retry_count, 7);
	KUNIT_EXPECT_FALSE(test, m->srq);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(m->local_ca_guid),
			0x505400fffe000001ULL);
	KUNIT_EXPECT_NULL(test, memchr_inv(m->private_data, 0,
					   sizeof(m->private_data)));
	KUNIT_EXPECT_EQ(test, xib_cm_rep_check(m), 0);

	want->local_comm_id = cpu_to_be32(0x133ee839);
	want->remote_comm_id = cpu_to_be32(0xd74f2127);
	want->local_qpn = 0x16;
	want->starting_psn = 0x61f847;
	want->responder_resources = 1;
	want->initiator_depth = 1;
	want->target_ack_delay = 0x0f;
	want->rnr_retry_count = 7;
	want->local_ca_guid = cpu_to_be64(0x505400fffe000001ULL);
	xib_cm_rep_encode(out, mad->hdr.tid, want);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f76), -1);
}

/*
 * Frames 77 (RTU: 0xd74f2127 -> 0x133ee839), 102 (DREQ: the same, Remote
 * QPN/EECN 0x16) and 103 (DREP: 0x133ee839 -> 0xd74f2127), as tshark
 * prints them; no private data.
 */
static void xib_cm_msg_rtu_dreq_drep(struct kunit *test)
{
	struct xib_cm_dreq_msg *dreq, *dwant;
	struct xib_cm_rtu_msg *rtu, *want;
	struct xib_mad *out;

	rtu = kunit_kzalloc(test, sizeof(*rtu), GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	dreq = kunit_kzalloc(test, sizeof(*dreq), GFP_KERNEL);
	dwant = kunit_kzalloc(test, sizeof(*dwant), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rtu && want && dreq && dwant && out);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(fix(xib_cm_fix_f77)),
			XIB_CM_ATTR_RTU);
	xib_cm_rtu_decode(fix(xib_cm_fix_f77), rtu);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rtu->local_comm_id), 0xd74f2127);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rtu->remote_comm_id), 0x133ee839);
	want->local_comm_id = cpu_to_be32(0xd74f2127);
	want->remote_comm_id = cpu_to_be32(0x133ee839);
	xib_cm_rtu_encode(out, fix(xib_cm_fix_f77)->hdr.tid, want);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f77), -1);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(fix(xib_cm_fix_f102)),
			XIB_CM_ATTR_DREQ);
	xib_cm_dreq_decode(fix(xib_cm_fix_f102), dreq);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(dreq->local_comm_id), 0xd74f2127);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(dreq->remote_comm_id), 0x133ee839);
	KUNIT_EXPECT_EQ(test, dreq->remote_qpn, 0x16U);
	KUNIT_EXPECT_EQ(test, xib_cm_dreq_check(dreq), 0);
	dwant->local_comm_id = cpu_to_be32(0xd74f2127);
	dwant->remote_comm_id = cpu_to_be32(0x133ee839);
	dwant->remote_qpn = 0x16;
	xib_cm_dreq_encode(out, fix(xib_cm_fix_f102)->hdr.tid, dwant);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f102), -1);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(fix(xib_cm_fix_f103)),
			XIB_CM_ATTR_DREP);
	xib_cm_drep_decode(fix(xib_cm_fix_f103), rtu);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rtu->local_comm_id), 0x133ee839);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rtu->remote_comm_id), 0xd74f2127);
	/* the DREP carries the DREQ's transaction ID */
	KUNIT_EXPECT_EQ(test, fix(xib_cm_fix_f103)->hdr.tid,
			fix(xib_cm_fix_f102)->hdr.tid);
	want->local_comm_id = cpu_to_be32(0x133ee839);
	want->remote_comm_id = cpu_to_be32(0xd74f2127);
	xib_cm_drep_encode(out, fix(xib_cm_fix_f103)->hdr.tid, want);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f103), -1);
}

/*
 * Frames 104 and 105 (udaddy).  tshark has no dissector for SIDR ("CM
 * ServiceIDResReq (Dissector Not Implemented)"); the values are read from
 * its hex dump by IBTA tables 113 and 114: SIDR_REQ Request ID 0xd64f2127,
 * P_Key 0xffff, ServiceID 0x0000000001111c06 (UDP port space, port
 * 0x1c06), then the RDMA CM header (source port 0xde83); SIDR_REP Request
 * ID 0xd64f2127, Status 0, no additional information, QPN 0x17, the same
 * ServiceID, Q_Key 0x01234567 (the RDMA CM's UDP Q_Key).
 */
static void xib_cm_msg_sidr(struct kunit *test)
{
	struct xib_cm_sidr_req_msg *req, *rwant;
	struct xib_cm_sidr_rep_msg *rep, *want;
	struct xib_mad *out;

	req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	rwant = kunit_kzalloc(test, sizeof(*rwant), GFP_KERNEL);
	rep = kunit_kzalloc(test, sizeof(*rep), GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, req && rwant && rep && want && out);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(fix(xib_cm_fix_f104)),
			XIB_CM_ATTR_SIDR_REQ);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(fix(xib_cm_fix_f104)->hdr.tid),
			0x0000000227214fd6ULL);
	xib_cm_sidr_req_decode(fix(xib_cm_fix_f104), req);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(req->request_id), 0xd64f2127);
	KUNIT_EXPECT_EQ(test, req->pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(req->service_id),
			0x0000000001111c06ULL);
	cm_check_cma_hdr(test, req->private_data, 0xde83);
	rwant->request_id = cpu_to_be32(0xd64f2127);
	rwant->pkey = 0xffff;
	rwant->service_id = cpu_to_be64(0x0000000001111c06ULL);
	memcpy(rwant->private_data, req->private_data, 36);
	KUNIT_EXPECT_EQ(test, memcmp(req, rwant, sizeof(*req)), 0);
	xib_cm_sidr_req_encode(out, fix(xib_cm_fix_f104)->hdr.tid, rwant);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f104), -1);

	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(fix(xib_cm_fix_f105)),
			XIB_CM_ATTR_SIDR_REP);
	xib_cm_sidr_rep_decode(fix(xib_cm_fix_f105), rep);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rep->request_id), 0xd64f2127);
	KUNIT_EXPECT_EQ(test, rep->status, XIB_SIDR_SUCCESS);
	KUNIT_EXPECT_EQ(test, rep->info_length, 0);
	KUNIT_EXPECT_EQ(test, rep->vendor_id, 0U);
	KUNIT_EXPECT_EQ(test, rep->qpn, 0x17U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(rep->service_id),
			0x0000000001111c06ULL);
	KUNIT_EXPECT_EQ(test, rep->qkey, 0x01234567U);
	KUNIT_EXPECT_EQ(test, xib_cm_sidr_rep_check(rep), 0);
	want->request_id = cpu_to_be32(0xd64f2127);
	want->qpn = 0x17;
	want->service_id = cpu_to_be64(0x0000000001111c06ULL);
	want->qkey = 0x01234567;
	xib_cm_sidr_rep_encode(out, fix(xib_cm_fix_f105)->hdr.tid, want);
	KUNIT_EXPECT_EQ(test, cm_diff(out, xib_cm_fix_f105), -1);
}

/* MRA and REJ: IBTA tables 100 and 101, byte by byte. */
static void xib_cm_msg_mra_rej(struct kunit *test)
{
	struct xib_cm_mra_msg *mra, *mra2;
	struct xib_cm_rej_msg *rej, *rej2;
	struct xib_mad *out;
	u8 *d;

	mra = kunit_kzalloc(test, sizeof(*mra), GFP_KERNEL);
	mra2 = kunit_kzalloc(test, sizeof(*mra2), GFP_KERNEL);
	rej = kunit_kzalloc(test, sizeof(*rej), GFP_KERNEL);
	rej2 = kunit_kzalloc(test, sizeof(*rej2), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, mra && mra2 && rej && rej2 && out);
	d = out->data;

	mra->local_comm_id = cpu_to_be32(0x11223344);
	mra->remote_comm_id = cpu_to_be32(0x55667788);
	mra->message_mraed = XIB_CM_MSG_REP;
	mra->service_timeout = 24;
	mra->private_data[0] = 0xab;
	mra->private_data[XIB_CM_MRA_PRIVATE_DATA_SIZE - 1] = 0xcd;
	xib_cm_mra_encode(out, cpu_to_be64(0x1234), mra);
	KUNIT_EXPECT_EQ(test, out->hdr.base_version, 1);
	KUNIT_EXPECT_EQ(test, out->hdr.mgmt_class, 0x07);
	KUNIT_EXPECT_EQ(test, out->hdr.class_version, 2);
	KUNIT_EXPECT_EQ(test, out->hdr.method, 0x03);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->hdr.attr_id), 0x0011);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->hdr.tid), 0x1234ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d), 0x11223344U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 4), 0x55667788U);
	KUNIT_EXPECT_EQ(test, d[8], 0x40);	/* MRAed 1 in bits 0-1 */
	KUNIT_EXPECT_EQ(test, d[9], 24 << 3);	/* timeout in bits 0-4 */
	KUNIT_EXPECT_EQ(test, d[10], 0xab);	/* private data at 10 */
	KUNIT_EXPECT_EQ(test, d[231], 0xcd);	/* 222 bytes */
	xib_cm_mra_decode(out, mra2);
	KUNIT_EXPECT_EQ(test, memcmp(mra, mra2, sizeof(*mra)), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_mra_check(mra2), 0);
	mra2->message_mraed = 3;
	KUNIT_EXPECT_EQ(test, xib_cm_mra_check(mra2), -EINVAL);

	rej->local_comm_id = cpu_to_be32(0x01020304);
	rej->remote_comm_id = cpu_to_be32(0x05060708);
	rej->message_rejected = XIB_CM_MSG_REP;
	rej->reason = XIB_CM_REJ_STALE_CONN;
	rej->ari_length = 8;
	memset(rej->ari, 0x5a, 8);
	rej->private_data[0] = 0x77;
	rej->private_data[XIB_CM_REJ_PRIVATE_DATA_SIZE - 1] = 0x88;
	xib_cm_rej_encode(out, 0, rej);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->hdr.attr_id), 0x0012);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d), 0x01020304U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 4), 0x05060708U);
	KUNIT_EXPECT_EQ(test, d[8], 0x40);	/* rejected 1 in bits 0-1 */
	KUNIT_EXPECT_EQ(test, d[9], 8 << 1);	/* ARI length in bits 0-6 */
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 10), 10);
	KUNIT_EXPECT_EQ(test, d[12], 0x5a);	/* ARI at 12 */
	KUNIT_EXPECT_EQ(test, d[19], 0x5a);
	KUNIT_EXPECT_EQ(test, d[20], 0);	/* past the ARI length */
	KUNIT_EXPECT_EQ(test, d[84], 0x77);	/* private data at 84 */
	KUNIT_EXPECT_EQ(test, d[231], 0x88);	/* 148 bytes */
	xib_cm_rej_decode(out, rej2);
	KUNIT_EXPECT_EQ(test, memcmp(rej, rej2, sizeof(*rej)), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_rej_check(rej2), 0);
	rej2->ari_length = XIB_CM_REJ_ARI_LENGTH + 1;
	KUNIT_EXPECT_EQ(test, xib_cm_rej_check(rej2), -EINVAL);
}

/* What the CM refuses of what the network sends. */
static void xib_cm_msg_checks(struct kunit *test)
{
	struct xib_cm_sidr_rep_msg *rep;
	struct xib_cm_req_msg *m;
	struct xib_mad *mad;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	rep = kunit_kzalloc(test, sizeof(*rep), GFP_KERNEL);
	mad = kunit_kzalloc(test, sizeof(*mad), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m && rep && mad);

	cm_f75_fields(m);
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), 0);
	m->local_qpn = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), -EINVAL);
	cm_f75_fields(m);
	m->local_comm_id = 0;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), -EINVAL);
	cm_f75_fields(m);
	m->transport_type = XIB_CM_TRANSPORT_RD;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m),
			XIB_CM_REJ_INVALID_TRANSPORT_TYPE);
	/* XRC is transport 3 with extended type 1, nothing else */
	cm_f75_fields(m);
	m->transport_type = 3;
	m->ext_transport_type = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_req_qp_type(m), XIB_QPT_XRC_RECV);
	m->ext_transport_type = 0;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m),
			XIB_CM_REJ_INVALID_TRANSPORT_TYPE);
	m->ext_transport_type = 2;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m),
			XIB_CM_REJ_INVALID_TRANSPORT_TYPE);
	m->transport_type = XIB_CM_TRANSPORT_RC;
	m->ext_transport_type = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m),
			XIB_CM_REJ_INVALID_TRANSPORT_TYPE);
	m->transport_type = XIB_CM_TRANSPORT_UC;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m),
			XIB_CM_REJ_INVALID_TRANSPORT_TYPE);
	m->ext_transport_type = 0;
	KUNIT_EXPECT_EQ(test, xib_cm_req_qp_type(m), XIB_QPT_UC);
	cm_f75_fields(m);
	m->mtu = 6;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), XIB_CM_REJ_INVALID_MTU);
	m->mtu = 0;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), XIB_CM_REJ_INVALID_MTU);
	cm_f75_fields(m);
	m->alternate.remote_gid[15] = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(m), XIB_CM_REJ_INVALID_ALT_GID);

	xib_cm_sidr_rep_decode(fix(xib_cm_fix_f105), rep);
	rep->status = XIB_SIDR_UNSUPPORTED_VERSION + 1;
	KUNIT_EXPECT_EQ(test, xib_cm_sidr_rep_check(rep), -EINVAL);
	rep->status = XIB_SIDR_SUCCESS;
	rep->info_length = XIB_CM_SIDR_REP_INFO_LENGTH + 1;
	KUNIT_EXPECT_EQ(test, xib_cm_sidr_rep_check(rep), -EINVAL);

	/* only a Send of class 0x07 version 2 without status is a message */
	memcpy(mad, xib_cm_fix_f75, sizeof(*mad));
	mad->hdr.method = XIB_MGMT_METHOD_GET_RESP;
	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(mad), 0);
	memcpy(mad, xib_cm_fix_f75, sizeof(*mad));
	mad->hdr.class_version = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(mad), 0);
	memcpy(mad, xib_cm_fix_f75, sizeof(*mad));
	mad->hdr.status = cpu_to_be16(1);
	KUNIT_EXPECT_EQ(test, xib_cm_msg_attr(mad), 0);

	/* 4.096 us * 2^n, rounded up to a millisecond */
	KUNIT_EXPECT_EQ(test, xib_cm_time_ms(0), 1U);
	KUNIT_EXPECT_EQ(test, xib_cm_time_ms(8), 2U);		/* 1.05 ms */
	KUNIT_EXPECT_EQ(test, xib_cm_time_ms(20), 4295U);	/* 4.29 s */
	KUNIT_EXPECT_EQ(test, xib_cm_time_ms(31), 8796094U);
}

/*
 * XRC on the wire, against IBTA vol. 1 table 99 and annex A14 as Linux's
 * ib_cm sends it (cm_req_set_qp_type(), cm_format_req(),
 * cm_format_rep()): an XRC initiator's REQ has transport service type 3
 * (byte 43, bits 5-6) and extended transport type 1 (byte 51, bits 5-7),
 * and leaves responder resources (byte 35), retry count (byte 47, bits
 * 5-7), RNR retry count (byte 50, bits 5-7) and SRQ (byte 51, bit 4) at
 * zero; an XRC target's REP (table 103) has local QPN 0 (bytes 12-14),
 * its QPN as the local EE context number (bytes 16-18), initiator depth
 * 0 (byte 25), flow control 0 (byte 26, bit 7) and SRQ 1 (byte 27, bit
 * 3).  Offsets from the end of the MAD header.
 */
static void xib_cm_msg_xrc(struct kunit *test)
{
	struct xib_cm_req_msg *m, *back;
	struct xib_cm_rep_msg *r, *rback;
	struct xib_mad *out;
	const u8 *d;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	back = kunit_kzalloc(test, sizeof(*back), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	rback = kunit_kzalloc(test, sizeof(*rback), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m && back && r && rback && out);
	d = out->data;

	cm_f75_fields(m);	/* responder resources 1, retries 7, RNR 7 */
	m->srq = true;
	KUNIT_ASSERT_EQ(test, xib_cm_req_set_qp_type(m, XIB_QPT_XRC_SEND), 0);
	xib_cm_req_encode(out, cpu_to_be64(1), m);
	KUNIT_EXPECT_EQ(test, d[43] & 0x06, 0x06);	/* transport 3 */
	KUNIT_EXPECT_EQ(test, d[51] & 0x07, 0x01);	/* extended type 1 */
	KUNIT_EXPECT_EQ(test, d[51] & 0x08, 0);		/* SRQ */
	KUNIT_EXPECT_EQ(test, d[51] >> 4, 15);		/* max CM retries */
	KUNIT_EXPECT_EQ(test, d[35], 0);		/* responder resources */
	KUNIT_EXPECT_EQ(test, d[39], 1);		/* initiator depth */
	KUNIT_EXPECT_EQ(test, d[47] & 0x07, 0);		/* retry count */
	KUNIT_EXPECT_EQ(test, d[47] >> 3, 0x14);	/* local CM timeout */
	KUNIT_EXPECT_EQ(test, d[50] & 0x07, 0);		/* RNR retry count */
	KUNIT_EXPECT_EQ(test, d[50] >> 4, 5);		/* MTU */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32) >> 8, 0x16U);
	xib_cm_req_decode(out, back);
	KUNIT_EXPECT_EQ(test, back->transport_type, 3);
	KUNIT_EXPECT_EQ(test, back->ext_transport_type, 1);
	KUNIT_EXPECT_EQ(test, xib_cm_req_check(back), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_req_qp_type(back), XIB_QPT_XRC_RECV);
	/* RC and UC stay transports 0 and 1 with no extended type */
	KUNIT_ASSERT_EQ(test, xib_cm_req_set_qp_type(m, XIB_QPT_UC), 0);
	xib_cm_req_encode(out, cpu_to_be64(1), m);
	KUNIT_EXPECT_EQ(test, d[43] & 0x06, 0x02);
	KUNIT_EXPECT_EQ(test, d[51] & 0x07, 0);
	KUNIT_ASSERT_EQ(test, xib_cm_req_set_qp_type(m, XIB_QPT_RC), 0);
	xib_cm_req_encode(out, cpu_to_be64(1), m);
	KUNIT_EXPECT_EQ(test, d[43] & 0x06, 0);
	KUNIT_EXPECT_EQ(test, xib_cm_req_set_qp_type(m, XIB_QPT_UD), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_cm_req_set_qp_type(m, XIB_QPT_XRC_RECV),
			-EINVAL);

	r->local_comm_id = cpu_to_be32(0x133ee839);
	r->remote_comm_id = cpu_to_be32(0xd74f2127);
	r->local_eecn = 0x5678ab;
	r->srq = true;
	r->starting_psn = 0x61f847;
	r->responder_resources = 1;
	xib_cm_rep_encode(out, cpu_to_be64(1), r);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 12) >> 8, 0U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 16) >> 8, 0x5678abU);
	KUNIT_EXPECT_EQ(test, d[25], 0);
	KUNIT_EXPECT_EQ(test, d[26] & 0x01, 0);
	KUNIT_EXPECT_EQ(test, d[27] & 0x10, 0x10);
	xib_cm_rep_decode(out, rback);
	KUNIT_EXPECT_EQ(test, xib_cm_rep_check(rback), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_rep_qpn(rback, true), 0x5678abU);
	KUNIT_EXPECT_EQ(test, xib_cm_rep_qpn(rback, false), 0U);
	/* a REP naming neither a QP nor a target is dropped */
	rback->local_eecn = 1;
	KUNIT_EXPECT_EQ(test, xib_cm_rep_check(rback), -EINVAL);
}

/* --- xib_cm_state: the oracle ----------------------------------------------- */

/*
 * IBTA vol. 1 12.9, written per operation: the states in which it may
 * happen and the state it leads to (figures 99-103: active and passive
 * connection establishment, disconnection, timewait, SIDR).  Returns the
 * next state or -1 where the diagrams have no such arrow.
 */
static int cm_oracle(enum xib_cm_state s, enum xib_cm_op op)
{
	bool req_wait = s == XIB_CM_REQ_SENT || s == XIB_CM_MRA_REQ_RCVD;
	bool req_got = s == XIB_CM_REQ_RCVD || s == XIB_CM_MRA_REQ_SENT;
	bool rep_wait = s == XIB_CM_REP_SENT || s == XIB_CM_MRA_REP_RCVD;
	bool rep_got = s == XIB_CM_REP_RCVD || s == XIB_CM_MRA_REP_SENT;

	switch (op) {
	case XIB_CM_OP_LISTEN:
	case XIB_CM_OP_SEND_REQ:
	case XIB_CM_OP_SEND_SIDR_REQ:
		/* only an idle endpoint starts something */
		if (s != XIB_CM_IDLE)
			return -1;
		return op == XIB_CM_OP_LISTEN ? XIB_CM_LISTEN :
			op == XIB_CM_OP_SEND_REQ ? XIB_CM_REQ_SENT :
			XIB_CM_SIDR_REQ_SENT;
	case XIB_CM_OP_RECV_REQ:
		/* a new REQ makes a passive endpoint; a repeat is answered */
		if (s == XIB_CM_IDLE || s == XIB_CM_REQ_RCVD)
			return s == XIB_CM_IDLE ? XIB_CM_REQ_RCVD :
				XIB_CM_MRA_REQ_SENT;
		if (s == XIB_CM_MRA_REQ_SENT || rep_wait ||
		    s == XIB_CM_TIMEWAIT)
			return s;
		return -1;
	case XIB_CM_OP_SEND_MRA:
		if (s == XIB_CM_REQ_RCVD)
			return XIB_CM_MRA_REQ_SENT;
		if (s == XIB_CM_REP_RCVD)
			return XIB_CM_MRA_REP_SENT;
		return -1;
	case XIB_CM_OP_SEND_REP:
		return req_got ? XIB_CM_REP_SENT : -1;
	case XIB_CM_OP_RECV_MRA_REQ:
		return req_wait ? XIB_CM_MRA_REQ_RCVD : -1;
	case XIB_CM_OP_RECV_MRA_REP:
		return rep_wait ? XIB_CM_MRA_REP_RCVD : -1;
	case XIB_CM_OP_RECV_REP:
		if (req_wait)
			return XIB_CM_REP_RCVD;
		if (s == XIB_CM_REP_RCVD)
			return XIB_CM_MRA_REP_SENT;
		if (s == XIB_CM_MRA_REP_SENT || s == XIB_CM_ESTABLISHED)
			return s;	/* resend MRA / RTU */
		return -1;
	case XIB_CM_OP_SEND_RTU:
		return rep_got ? XIB_CM_ESTABLISHED : -1;
	case XIB_CM_OP_RECV_RTU:
		if (rep_wait || s == XIB_CM_ESTABLISHED)
			return XIB_CM_ESTABLISHED;
		return -1;
	case XIB_CM_OP_ESTABLISH:
		if (rep_wait || s == XIB_CM_ESTABLISHED)
			return XIB_CM_ESTABLISHED;
		return -1;
	case XIB_CM_OP_SEND_REJ:
		/* aborting before the REP is out costs no timewait */
		if (req_wait || req_got)
			return XIB_CM_IDLE;
		if (rep_wait || rep_got)
			return XIB_CM_TIMEWAIT;
		return -1;
	case XIB_CM_OP_RECV_REJ:
	case XIB_CM_OP_RECV_REJ_STALE:
		if (req_wait || req_got || rep_wait)
			return op == XIB_CM_OP_RECV_REJ ? XIB_CM_IDLE :
				XIB_CM_TIMEWAIT;
		if (rep_got || s == XIB_CM_ESTABLISHED ||
		    s == XIB_CM_DREQ_SENT)
			return XIB_CM_TIMEWAIT;
		return -1;
	case XIB_CM_OP_SEND_DREQ:
		return s == XIB_CM_ESTABLISHED ? XIB_CM_DREQ_SENT : -1;
	case XIB_CM_OP_RECV_DREQ:
		if (s == XIB_CM_ESTABLISHED || s == XIB_CM_DREQ_SENT ||
		    rep_wait || s == XIB_CM_DREQ_RCVD)
			return XIB_CM_DREQ_RCVD;
		if (s == XIB_CM_TIMEWAIT)
			return XIB_CM_TIMEWAIT;		/* DREP again */
		return -1;
	case XIB_CM_OP_SEND_DREP:
		return s == XIB_CM_DREQ_RCVD ? XIB_CM_TIMEWAIT : -1;
	case XIB_CM_OP_RECV_DREP:
		if (s == XIB_CM_DREQ_SENT || s == XIB_CM_TIMEWAIT)
			return XIB_CM_TIMEWAIT;
		return -1;
	case XIB_CM_OP_TIMEWAIT_EXIT:
		return s == XIB_CM_TIMEWAIT ? XIB_CM_IDLE : -1;
	case XIB_CM_OP_TIMEOUT:
		/* the REQ's and SIDR_REQ's retries end it; REP's and DREQ's
		 * leave the QP in timewait
		 */
		if (req_wait || s == XIB_CM_SIDR_REQ_SENT)
			return XIB_CM_IDLE;
		if (rep_wait || s == XIB_CM_DREQ_SENT)
			return XIB_CM_TIMEWAIT;
		return -1;
	case XIB_CM_OP_RECV_SIDR_REQ:
		if (s == XIB_CM_IDLE || s == XIB_CM_SIDR_REQ_RCVD)
			return XIB_CM_SIDR_REQ_RCVD;
		return -1;
	case XIB_CM_OP_SEND_SIDR_REP:
		return s == XIB_CM_SIDR_REQ_RCVD ? XIB_CM_IDLE : -1;
	case XIB_CM_OP_RECV_SIDR_REP:
		return s == XIB_CM_SIDR_REQ_SENT ? XIB_CM_IDLE : -1;
	case XIB_CM_OP_DESTROY:
		/* always allowed; a connection ends through its protocol */
		if (s == XIB_CM_ESTABLISHED)
			return XIB_CM_DREQ_SENT;
		if (rep_wait || rep_got || s == XIB_CM_DREQ_SENT ||
		    s == XIB_CM_DREQ_RCVD || s == XIB_CM_TIMEWAIT)
			return XIB_CM_TIMEWAIT;
		return XIB_CM_IDLE;
	default:
		return -1;
	}
}

static void xib_cm_state_oracle(struct kunit *test)
{
	struct xib_cm_trans t;
	unsigned int s, op, legal = 0;
	int want, ret;

	for (s = 0; s < XIB_CM_STATE_MAX; s++) {
		for (op = 0; op < XIB_CM_OP_MAX; op++) {
			want = cm_oracle(s, op);
			ret = xib_cm_next(s, op, &t);
			if (want < 0) {
				KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL,
						    "state %u op %u", s, op);
				continue;
			}
			legal++;
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "state %u op %u",
					    s, op);
			if (!ret)
				KUNIT_EXPECT_EQ_MSG(test, (int)t.next, want,
						    "state %u op %u", s, op);
		}
	}
	KUNIT_EXPECT_GT(test, legal, 60U);
	KUNIT_EXPECT_EQ(test, xib_cm_next(XIB_CM_STATE_MAX, 0, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_cm_next(0, XIB_CM_OP_MAX, &t), -EINVAL);
}

/*
 * The flags that matter on the wire: a duplicate is never delivered; the
 * consumer hears of every message that changes the state; what is sent
 * on destroy and timeout.
 */
static void xib_cm_state_flags(struct kunit *test)
{
	struct xib_cm_trans t;
	unsigned int s, op;

	for (s = 0; s < XIB_CM_STATE_MAX; s++) {
		for (op = XIB_CM_OP_RECV_REQ; op <= XIB_CM_OP_RECV_SIDR_REP;
		     op++) {
			if (xib_cm_next(s, op, &t))
				continue;
			if (t.flags & XIB_CM_T_DUP)
				KUNIT_EXPECT_FALSE_MSG(test,
						       t.flags & XIB_CM_T_EVENT,
						       "state %u op %u", s, op);
			else
				KUNIT_EXPECT_TRUE_MSG(test,
						      t.flags & XIB_CM_T_EVENT,
						      "state %u op %u", s, op);
		}
	}
	/* duplicates and their answers */
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_REP_SENT, XIB_CM_OP_RECV_REQ,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_RESEND);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_MRA_REQ_SENT,
					  XIB_CM_OP_RECV_REQ, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_RESEND);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_ESTABLISHED,
					  XIB_CM_OP_RECV_REP, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_RESEND);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_TIMEWAIT, XIB_CM_OP_RECV_REQ,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_STALE);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_TIMEWAIT, XIB_CM_OP_RECV_DREQ,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_DREP);
	/* timeouts: REJ for the REQ and the REP, never for the DREQ */
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_REQ_SENT, XIB_CM_OP_TIMEOUT,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_REJ);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_MRA_REP_RCVD,
					  XIB_CM_OP_TIMEOUT, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_REJ);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_DREQ_SENT, XIB_CM_OP_TIMEOUT,
					  &t), 0);
	KUNIT_EXPECT_FALSE(test, t.flags & XIB_CM_T_REJ);
	/* destroy: REJ, DREQ, DREP or SIDR_REP as the state needs */
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_REQ_RCVD, XIB_CM_OP_DESTROY,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_REJ);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_ESTABLISHED,
					  XIB_CM_OP_DESTROY, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_DREQ);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_DREQ_RCVD, XIB_CM_OP_DESTROY,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_DREP);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_SIDR_REQ_RCVD,
					  XIB_CM_OP_DESTROY, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_SIDR);
	/* the awaited send ends when its answer comes */
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_REQ_SENT, XIB_CM_OP_RECV_REP,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_CANCEL);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_REP_SENT, XIB_CM_OP_RECV_RTU,
					  &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_CANCEL);
	KUNIT_ASSERT_EQ(test, xib_cm_next(XIB_CM_DREQ_SENT,
					  XIB_CM_OP_RECV_DREP, &t), 0);
	KUNIT_EXPECT_TRUE(test, t.flags & XIB_CM_T_CANCEL);
}

/* --- xib_cm_proto: a wire in memory ---------------------------------------- */

#define CMT_DEVS	2
#define CMT_ENDS	16
#define CMT_WAIT	(5 * HZ)
#define CMT_SID		0x0000000012340000ULL

/* One consumer end: the events its id got. */
struct cmt_end {
	struct xib_cm_id *id;
	bool gone;			/* destroyed */
	int refuse;			/* listener: REQ_RECEIVED returns it */
	struct cmt_end *child;		/* listener: the last request's end */
	unsigned int count[XIB_CM_SIDR_REP_RECEIVED + 1];
	struct xib_cm_id *listen_id;
	struct xib_cm_req_param req;
	struct xib_cm_rep_param rep;
	struct xib_cm_sidr_req_param sidr_req;
	struct xib_cm_sidr_rep_param sidr_rep;
	u16 rej_reason;
	u8 pdata[XIB_CM_MAX_PRIVATE_DATA];
	u8 pdata_len;
};

static struct {
	spinlock_t lock;		/* protects the ends' records */
	wait_queue_head_t wq;
	struct cmt_end ends[CMT_ENDS];
	int nends;
} cmte;

/*
 * The fake driver's QP1: what each device sent, by attribute (low 5
 * bits), the last copy of each, and what the test makes the wire do.
 */
static struct {
	spinlock_t lock;		/* protects the fields below */
	struct xib_device *devs[CMT_DEVS];
	u8 gids[CMT_DEVS][16];
	unsigned int sent[CMT_DEVS][32];
	struct xib_mad last[CMT_DEVS][32];
	u16 drop_attr[CMT_DEVS];	/* lose what a device sends */
	u16 dup_attr[CMT_DEVS];		/* deliver it twice */
	bool registered[CMT_DEVS];
	struct workqueue_struct *wq;
} cmt;

struct cmt_rx {
	struct work_struct work;
	int to;
	struct xib_mad_recv recv;
};

static void cmt_rx_work(struct work_struct *work)
{
	struct cmt_rx *rx = container_of(work, struct cmt_rx, work);

	xib_mad_recv(cmt.devs[rx->to], &rx->recv);
	kfree(rx);
}

/* Deliver @mad from device @from to device @to, later. */
static void cmt_deliver(int from, int to, const struct xib_mad_addr *addr,
			const struct xib_mad *mad)
{
	struct cmt_rx *rx = kzalloc(sizeof(*rx), GFP_ATOMIC);

	if (!rx)
		return;
	INIT_WORK(&rx->work, cmt_rx_work);
	rx->to = to;
	rx->recv.port_num = 1;
	rx->recv.src_qpn = 1;
	rx->recv.pkey = 0xffff;
	memcpy(rx->recv.sgid, cmt.gids[from], 16);
	memcpy(rx->recv.dgid, cmt.gids[to], 16);
	rx->recv.hop_limit = addr ? addr->ah.hop_limit : 64;
	rx->recv.mad = *mad;
	queue_work(cmt.wq, &rx->work);
}

static int cmt_index(struct xib_device *xdev)
{
	int i;

	for (i = 0; i < CMT_DEVS; i++)
		if (cmt.devs[i] == xdev)
			return i;
	return -1;
}

static int cmt_post_mad(struct xib_device *xdev,
			const struct xib_mad_addr *addr,
			const struct xib_mad *mad)
{
	int from = cmt_index(xdev), to, attr;
	unsigned long flags;
	bool drop, dup;

	if (from < 0 || addr->remote_qpn != 1 ||
	    addr->remote_qkey != XIB_QP1_QKEY)
		return -EINVAL;
	for (to = 0; to < CMT_DEVS; to++)
		if (!memcmp(addr->ah.dgid, cmt.gids[to], 16))
			break;
	attr = be16_to_cpu(mad->hdr.attr_id) & 31;
	spin_lock_irqsave(&cmt.lock, flags);
	cmt.sent[from][attr]++;
	cmt.last[from][attr] = *mad;
	drop = cmt.drop_attr[from] == be16_to_cpu(mad->hdr.attr_id);
	dup = cmt.dup_attr[from] == be16_to_cpu(mad->hdr.attr_id);
	spin_unlock_irqrestore(&cmt.lock, flags);
	wake_up(&cmte.wq);
	if (drop || to == CMT_DEVS)
		return 0;	/* lost on the wire */
	cmt_deliver(from, to, addr, mad);
	if (dup)
		cmt_deliver(from, to, addr, mad);
	return 0;
}

static unsigned int cmt_sent(int dev, u16 attr)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&cmt.lock, flags);
	n = cmt.sent[dev][attr & 31];
	spin_unlock_irqrestore(&cmt.lock, flags);
	return n;
}

static bool cmt_wait_sent(int dev, u16 attr, unsigned int n)
{
	return wait_event_timeout(cmte.wq, cmt_sent(dev, attr) >= n,
				  CMT_WAIT) > 0;
}

static const struct xib_device_ops cmt_ops = {
	.owner = THIS_MODULE,
	.driver_name = "xib_cm_test",
	.post_mad = cmt_post_mad,
};

static struct cmt_end *cmt_end_new(void)
{
	struct cmt_end *e = NULL;

	spin_lock(&cmte.lock);
	if (cmte.nends < CMT_ENDS)
		e = &cmte.ends[cmte.nends++];
	spin_unlock(&cmte.lock);
	return e;
}

static int cmt_handler(struct xib_cm_id *id, const struct xib_cm_event *ev)
{
	struct cmt_end *e = id->context, *c;

	if (ev->event == XIB_CM_REQ_RECEIVED ||
	    ev->event == XIB_CM_SIDR_REQ_RECEIVED) {
		/* @e is the listener's: the request gets an end of its own */
		spin_lock(&cmte.lock);
		e->count[ev->event]++;
		spin_unlock(&cmte.lock);
		if (e->refuse) {
			wake_up(&cmte.wq);
			return e->refuse;
		}
		c = cmt_end_new();
		if (!c)
			return -ENOMEM;
		c->id = id;
		id->context = c;
		spin_lock(&cmte.lock);
		e->child = c;
		spin_unlock(&cmte.lock);
		e = c;
	}
	spin_lock(&cmte.lock);
	e->count[ev->event]++;
	e->pdata_len = ev->private_data_len;
	if (ev->private_data_len)
		memcpy(e->pdata, ev->private_data, ev->private_data_len);
	switch (ev->event) {
	case XIB_CM_REQ_RECEIVED:
		e->listen_id = ev->listen_id;
		e->req = ev->req;
		break;
	case XIB_CM_SIDR_REQ_RECEIVED:
		e->listen_id = ev->listen_id;
		e->sidr_req = ev->sidr_req;
		break;
	case XIB_CM_REP_RECEIVED:
		e->rep = ev->rep;
		break;
	case XIB_CM_SIDR_REP_RECEIVED:
		e->sidr_rep = ev->sidr_rep;
		break;
	case XIB_CM_REJ_RECEIVED:
		e->rej_reason = ev->rej_reason;
		break;
	default:
		break;
	}
	spin_unlock(&cmte.lock);
	wake_up(&cmte.wq);
	return 0;
}

static unsigned int cmt_count(struct cmt_end *e, enum xib_cm_event_type ev)
{
	unsigned int n;

	spin_lock(&cmte.lock);
	n = e->count[ev];
	spin_unlock(&cmte.lock);
	return n;
}

/* Wait until @e has had @n events @ev; false on timeout. */
static bool cmt_wait(struct cmt_end *e, enum xib_cm_event_type ev,
		     unsigned int n)
{
	return wait_event_timeout(cmte.wq, cmt_count(e, ev) >= n,
				  CMT_WAIT) > 0;
}

static struct cmt_end *cmt_child(struct cmt_end *l)
{
	struct cmt_end *c;

	spin_lock(&cmte.lock);
	c = l->child;
	spin_unlock(&cmte.lock);
	return c;
}

static void cmt_destroy(struct cmt_end *e)
{
	xib_cm_destroy_id(e->id);
	e->gone = true;
}

static struct cmt_end *cmt_id(struct kunit *test, int dev)
{
	struct cmt_end *e = cmt_end_new();
	struct xib_cm_id *id;

	KUNIT_ASSERT_NOT_NULL(test, e);
	id = xib_cm_create_id(cmt.devs[dev], cmt_handler, e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	e->id = id;
	return e;
}

static struct cmt_end *cmt_listen(struct kunit *test, int dev, u64 sid)
{
	struct cmt_end *l = cmt_id(test, dev);

	KUNIT_ASSERT_EQ(test, xib_cm_listen(l->id, cpu_to_be64(sid), 0), 0);
	KUNIT_EXPECT_EQ(test, l->id->state, XIB_CM_LISTEN);
	return l;
}

/* A path from device @from to device @to with short CM timers. */
static void cmt_path(struct xib_cm_path *path, int from, int to)
{
	memset(path, 0, sizeof(*path));
	path->port_num = 1;
	path->sgid_index = 0;
	memcpy(path->sgid, cmt.gids[from], 16);
	memcpy(path->dgid, cmt.gids[to], 16);
	path->hop_limit = 64;
	path->pkey = 0xffff;
	path->mtu = XIB_MTU_1024;
	path->packet_life_time = 8;		/* ~1 ms */
}

static void cmt_req(struct xib_cm_req_param *req, int from, int to, u64 sid)
{
	static const char hello[] = "hello, passive side";

	memset(req, 0, sizeof(*req));
	cmt_path(&req->path, from, to);
	req->service_id = cpu_to_be64(sid);
	req->qp_num = 0x1234;
	req->qp_type = XIB_QPT_RC;
	req->starting_psn = 0x457132;	/* the fixture's frame 75 */
	req->private_data = hello;
	req->private_data_len = sizeof(hello);
	req->responder_resources = 4;
	req->initiator_depth = 2;
	/* ~4.3 s: no resend while the test thread (under TCG) decides */
	req->remote_cm_response_timeout = 20;
	req->local_cm_response_timeout = 20;
	req->retry_count = 6;
	req->rnr_retry_count = 5;
	req->max_cm_retries = 2;
	req->local_ack_timeout = 10;
}

static int cmt_init(struct kunit *test)
{
	char name[16];
	int i, ret;

	memset(&cmt, 0, sizeof(cmt));
	memset(&cmte, 0, sizeof(cmte));
	spin_lock_init(&cmt.lock);
	spin_lock_init(&cmte.lock);
	init_waitqueue_head(&cmte.wq);
	cmt.wq = alloc_workqueue("xib_cm_test", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt.wq);
	for (i = 0; i < CMT_DEVS; i++) {
		struct xib_device *xdev;

		gid4(cmt.gids[i], 10, 77, 0, i + 1);
		xdev = xib_alloc_device(&cmt_ops, sizeof(*xdev));
		KUNIT_ASSERT_NOT_NULL(test, xdev);
		xdev->phys_port_cnt = 1;
		xdev->node_guid = cpu_to_be64(0x0200000000000100ULL + i);
		xdev->ports = kcalloc(1, sizeof(*xdev->ports), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, xdev->ports);
		xdev->ports[0].active_mtu = 1024;
		/* a hole first: the GID is found past it */
		memcpy(xdev->ports[0].gids[1].raw, cmt.gids[i], 16);
		xdev->ports[0].gids[1].valid = true;
		cmt.devs[i] = xdev;
		snprintf(name, sizeof(name), "xibcmt%d", i);
		ret = xib_register_device(xdev, name, &init_net);
		KUNIT_ASSERT_EQ(test, ret, 0);
		cmt.registered[i] = true;
	}
	return 0;
}

static void cmt_exit(struct kunit *test)
{
	int i;

	/*
	 * A case that stopped early left ids: listeners first (no request
	 * makes new ones after), then the rest, before the devices go.
	 */
	for (i = 0; i < cmte.nends; i++)
		if (cmte.ends[i].id && !cmte.ends[i].gone &&
		    cmte.ends[i].id->state == XIB_CM_LISTEN)
			cmt_destroy(&cmte.ends[i]);
	for (i = 0; i < cmte.nends; i++)
		if (cmte.ends[i].id && !cmte.ends[i].gone)
			cmt_destroy(&cmte.ends[i]);
	for (i = 0; i < CMT_DEVS; i++)
		if (cmt.registered[i])
			xib_unregister_device(cmt.devs[i]);
	if (cmt.wq)
		destroy_workqueue(cmt.wq);
	for (i = 0; i < CMT_DEVS; i++)
		if (cmt.devs[i])
			xib_dealloc_device(cmt.devs[i]);
}

static void cmt_fix_path(struct xib_cm_path *path)
{
	path->sgid_index = 1;
}

/*
 * REQ -> REP -> RTU -> DREQ -> DREP between two ids, what each side is
 * told, the QP attributes both derive, and timewait.
 *
 * The PSNs are those of the fixture's rping (rxe-roce-v2.pcap): REQ
 * (frame 75) 0x457132, REP (frame 76) 0x61f847.  On that wire the active
 * side's first SEND (frame 78) has PSN 6420551 = 0x61f847 and the passive
 * side's first RDMA READ request (frame 80) 4550962 = 0x457132: a REQ's or
 * REP's starting PSN is what its sender receives first, the PSN its peer
 * sends from.
 */
static void xib_cm_proto_connect(struct kunit *test)
{
	static const char accept[] = "welcome";
	struct xib_uverbs_qp_attr attr = {};
	struct xib_cm_rep_param rep = {};
	struct xib_cm_req_param req;
	struct cmt_end *l, *a, *b;
	u32 mask;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_REQ_SENT);
	/* a second REQ on the same id is refused */
	KUNIT_EXPECT_EQ(test, xib_cm_send_req(a->id, &req), -EINVAL);

	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 1));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_EQ(test, b->listen_id, l->id);
	KUNIT_EXPECT_EQ(test, b->count[XIB_CM_REQ_RECEIVED], 1U);
	KUNIT_EXPECT_EQ(test, b->req.qp_num, 0x1234U);
	KUNIT_EXPECT_EQ(test, b->req.qp_type, XIB_QPT_RC);
	KUNIT_EXPECT_EQ(test, b->req.starting_psn, 0x457132U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(b->req.service_id), CMT_SID);
	KUNIT_EXPECT_EQ(test, b->req.responder_resources, 4);
	KUNIT_EXPECT_EQ(test, b->req.initiator_depth, 2);
	KUNIT_EXPECT_EQ(test, b->req.rnr_retry_count, 5);
	KUNIT_EXPECT_EQ(test, b->req.max_cm_retries, 2);
	KUNIT_EXPECT_EQ(test, b->req.path.mtu, XIB_MTU_1024);
	/* the receiver's view: its GID is the source */
	KUNIT_EXPECT_EQ(test, memcmp(b->req.path.sgid, cmt.gids[1], 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b->req.path.dgid, cmt.gids[0], 16), 0);
	KUNIT_EXPECT_EQ(test, b->req.path.sgid_index, 1);
	KUNIT_EXPECT_EQ(test, b->pdata_len, XIB_CM_REQ_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_STREQ(test, (char *)b->pdata, "hello, passive side");
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_REQ_RCVD);
	KUNIT_EXPECT_EQ(test, b->id->remote_id, a->id->local_id);

	/*
	 * The passive side can set up its QP to RTR and RTS before it
	 * accepts; the receive PSN is the one its REP will carry, not known
	 * here.
	 */
	attr.qp_state = XIB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x1234U);
	KUNIT_EXPECT_FALSE(test, mask & XIB_QP_RQ_PSN);
	KUNIT_EXPECT_EQ(test, attr.path_mtu, XIB_MTU_1024);
	KUNIT_EXPECT_EQ(test, memcmp(attr.ah_attr.dgid, cmt.gids[0], 16), 0);
	KUNIT_EXPECT_TRUE(test, mask & XIB_QP_AV);
	attr.qp_state = XIB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	/* it sends from the REQ's PSN, at most the REQ's responder resources */
	KUNIT_EXPECT_TRUE(test, mask & XIB_QP_SQ_PSN);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x457132U);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 5);
	/* the active side knows its send PSN only from the REP */
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_REQ_SENT);
	KUNIT_EXPECT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask),
			-EINVAL);

	rep.qp_num = 0x5678;
	rep.starting_psn = 0x61f847;	/* the fixture's frame 76 */
	rep.responder_resources = 8;	/* capped at the REQ's depth, 2 */
	rep.initiator_depth = 3;
	rep.rnr_retry_count = 7;
	rep.private_data = accept;
	rep.private_data_len = sizeof(accept);
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_REP_SENT);

	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rep.qp_num, 0x5678U);
	KUNIT_EXPECT_EQ(test, a->rep.starting_psn, 0x61f847U);
	KUNIT_EXPECT_EQ(test, a->rep.responder_resources, 2);
	KUNIT_EXPECT_EQ(test, a->rep.initiator_depth, 3);
	KUNIT_EXPECT_STREQ(test, (char *)a->pdata, "welcome");
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_REP_RCVD);
	KUNIT_EXPECT_EQ(test, a->id->remote_id, b->id->local_id);

	attr.qp_state = XIB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x5678U);
	/* the active side receives from its REQ's PSN: frame 80 */
	KUNIT_EXPECT_TRUE(test, mask & XIB_QP_RQ_PSN);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 4550962U);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 3);
	attr.qp_state = XIB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask), 0);
	/* and sends from the REP's: frame 78 */
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 6420551U);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, attr.retry_cnt, 6);
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, attr.timeout, 10);

	KUNIT_ASSERT_EQ(test, xib_cm_send_rtu(a->id, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_ESTABLISHED);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_RTU_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_ESTABLISHED);
	attr.qp_state = XIB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	/* the passive side sends from the REQ's PSN (frame 80) */
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 4550962U);
	attr.qp_state = XIB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	/* and, its REP sent, receives from the REP's (frame 78) */
	KUNIT_EXPECT_TRUE(test, mask & XIB_QP_RQ_PSN);
	KUNIT_EXPECT_EQ(test, attr.rq_psn, 6420551U);
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 5);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 3);

	KUNIT_ASSERT_EQ(test, xib_cm_send_dreq(a->id, "bye", 4), 0);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_DREQ_SENT);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_DREQ_RECEIVED, 1));
	KUNIT_EXPECT_STREQ(test, (char *)b->pdata, "bye");
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_DREQ_RCVD);
	KUNIT_ASSERT_EQ(test, xib_cm_send_drep(b->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_DREP_RECEIVED, 1));
	/* both ends go through timewait, then are told it is over */
	KUNIT_EXPECT_TRUE(test, cmt_wait(a, XIB_CM_TIMEWAIT_EXIT, 1));
	KUNIT_EXPECT_TRUE(test, cmt_wait(b, XIB_CM_TIMEWAIT_EXIT, 1));
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_IDLE);
	/* one of each message crossed the wire */
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_REQ), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(1, XIB_CM_ATTR_REP), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_RTU), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_DREQ), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(1, XIB_CM_ATTR_DREP), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(1, XIB_CM_ATTR_REJ), 0U);
	/* REP and RTU carry the REQ's transaction ID, DREP the DREQ's */
	KUNIT_EXPECT_EQ(test, cmt.last[1][XIB_CM_ATTR_REP & 31].hdr.tid,
			cmt.last[0][XIB_CM_ATTR_REQ & 31].hdr.tid);
	KUNIT_EXPECT_EQ(test, cmt.last[0][XIB_CM_ATTR_RTU & 31].hdr.tid,
			cmt.last[0][XIB_CM_ATTR_REQ & 31].hdr.tid);
	KUNIT_EXPECT_EQ(test, cmt.last[1][XIB_CM_ATTR_DREP & 31].hdr.tid,
			cmt.last[0][XIB_CM_ATTR_DREQ & 31].hdr.tid);
	cmt_destroy(a);
	cmt_destroy(b);
	cmt_destroy(l);
}

/*
 * An XRC connection end to end: the initiator's REQ and the target's REP
 * as xib_cm_msg_xrc() says they look, and the QP attributes each end gets
 * as Linux's ib_cm gives them (ib_modify_qp_is_ok()'s XRC columns): the
 * target is RC's responder (RTR with max_dest_rd_atomic and
 * min_rnr_timer; RTS with only the send PSN and ACK timeout), the
 * initiator RC's requester (RTR without responder attributes; RTS with
 * retries and the READ depth); its destination is the target's QPN from
 * the REP's EECN, and its DREQ names that QP.
 */
static void xib_cm_proto_xrc(struct kunit *test)
{
	struct xib_uverbs_qp_attr attr = {};
	struct xib_cm_rep_param rep = {};
	struct xib_cm_req_param req;
	struct cmt_end *l, *a, *b;
	const u8 *d;
	u32 mask;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	req.qp_type = XIB_QPT_XRC_SEND;
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	d = cmt.last[0][XIB_CM_ATTR_REQ & 31].data;
	KUNIT_EXPECT_EQ(test, d[43] & 0x06, 0x06);
	KUNIT_EXPECT_EQ(test, d[51] & 0x07, 0x01);
	KUNIT_EXPECT_EQ(test, d[35], 0);
	KUNIT_EXPECT_EQ(test, d[47] & 0x07, 0);
	KUNIT_EXPECT_EQ(test, d[50] & 0x07, 0);

	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 1));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->req.qp_type, XIB_QPT_XRC_RECV);
	KUNIT_EXPECT_EQ(test, b->req.qp_num, 0x1234U);
	KUNIT_EXPECT_EQ(test, b->req.responder_resources, 0);
	KUNIT_EXPECT_EQ(test, b->req.initiator_depth, 2);

	attr.qp_state = XIB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, XIB_QP_STATE | XIB_QP_ACCESS_FLAGS |
			XIB_QP_PKEY_INDEX | XIB_QP_PORT);
	KUNIT_EXPECT_TRUE(test, attr.qp_access_flags & XIB_ACCESS_REMOTE_READ);
	attr.qp_state = XIB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, XIB_QP_STATE | XIB_QP_AV |
			XIB_QP_PATH_MTU | XIB_QP_DEST_QPN |
			XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x1234U);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 2);
	attr.qp_state = XIB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(b->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, XIB_QP_STATE | XIB_QP_SQ_PSN |
			XIB_QP_TIMEOUT);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x457132U);

	rep.qp_num = 0x5678;
	rep.starting_psn = 0x61f847;
	rep.responder_resources = 2;
	rep.initiator_depth = 3;	/* not sent by a target */
	rep.flow_control = true;	/* nor this */
	rep.rnr_retry_count = 7;
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	d = cmt.last[1][XIB_CM_ATTR_REP & 31].data;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 12) >> 8, 0U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 16) >> 8, 0x5678U);
	KUNIT_EXPECT_EQ(test, d[25], 0);
	KUNIT_EXPECT_EQ(test, d[26] & 0x01, 0);
	KUNIT_EXPECT_EQ(test, d[27] & 0x10, 0x10);

	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rep.qp_num, 0x5678U);
	KUNIT_EXPECT_TRUE(test, a->rep.srq);
	attr.qp_state = XIB_QPS_INIT;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask), 0);
	attr.qp_state = XIB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, XIB_QP_STATE | XIB_QP_AV |
			XIB_QP_PATH_MTU | XIB_QP_DEST_QPN | XIB_QP_RQ_PSN);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0x5678U);
	attr.qp_state = XIB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xib_cm_init_qp_attr(a->id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, XIB_QP_STATE | XIB_QP_SQ_PSN |
			XIB_QP_TIMEOUT | XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY |
			XIB_QP_MAX_QP_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, attr.sq_psn, 0x61f847U);
	KUNIT_EXPECT_EQ(test, attr.retry_cnt, 6);	/* its own, not sent */
	KUNIT_EXPECT_EQ(test, attr.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, attr.timeout, 10);

	KUNIT_ASSERT_EQ(test, xib_cm_send_rtu(a->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_RTU_RECEIVED, 1));
	/* the DREQ names the target's QP, which the target checks */
	KUNIT_ASSERT_EQ(test, xib_cm_send_dreq(a->id, NULL, 0), 0);
	d = cmt.last[0][XIB_CM_ATTR_DREQ & 31].data;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 8) >> 8, 0x5678U);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_DREQ_RECEIVED, 1));
	KUNIT_ASSERT_EQ(test, xib_cm_send_drep(b->id, NULL, 0), 0);
	KUNIT_EXPECT_TRUE(test, cmt_wait(a, XIB_CM_DREP_RECEIVED, 1));
	cmt_destroy(a);
	cmt_destroy(b);
	cmt_destroy(l);
}

/* A REQ for a service nobody listens to: REJ INVALID_SERVICE_ID. */
static void xib_cm_proto_no_listener(struct kunit *test)
{
	struct xib_cm_req_param req;
	struct cmt_end *a, *l;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_req(&req, 0, 1, CMT_SID + 1);
	cmt_fix_path(&req.path);
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REJ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rej_reason, XIB_CM_REJ_INVALID_SERVICE_ID);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, a->count[XIB_CM_REQ_ERROR], 0U);
	KUNIT_EXPECT_EQ(test, l->count[XIB_CM_REQ_RECEIVED], 0U);
	cmt_destroy(a);
	cmt_destroy(l);
}

/*
 * The REQs are lost: sent 1 + max_cm_retries times, then REQ_ERROR and a
 * REJ (timeout) carrying our CA GUID.
 */
static void xib_cm_proto_req_timeout(struct kunit *test)
{
	struct xib_cm_rej_msg *rej;
	struct xib_cm_req_param req;
	struct cmt_end *a, *l;
	struct xib_mad *fake;

	rej = kunit_kzalloc(test, sizeof(*rej), GFP_KERNEL);
	fake = kunit_kzalloc(test, sizeof(*fake), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rej && fake);
	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt.drop_attr[0] = XIB_CM_ATTR_REQ;
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	req.max_cm_retries = 3;
	req.remote_cm_response_timeout = 12;	/* ~17 ms + 2 ms */
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	/*
	 * A made-up response with the REQ's TID does not end the REQ's
	 * retries (XIB_MAD_SEND_NO_MATCH): REQ_ERROR still comes.
	 */
	memcpy(fake, &cmt.last[0][XIB_CM_ATTR_REQ & 31], sizeof(*fake));
	fake->hdr.method |= XIB_MGMT_METHOD_RESP;
	cmt_deliver(1, 0, NULL, fake);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REQ_ERROR, 1));
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_REQ), 4U);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_IDLE);
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_REJ), 1U);
	xib_cm_rej_decode(&cmt.last[0][XIB_CM_ATTR_REJ & 31], rej);
	KUNIT_EXPECT_EQ(test, rej->reason, XIB_CM_REJ_TIMEOUT);
	KUNIT_EXPECT_EQ(test, rej->local_comm_id, a->id->local_id);
	KUNIT_EXPECT_EQ(test, rej->ari_length, 8);
	KUNIT_EXPECT_EQ(test, memcmp(rej->ari, &cmt.devs[0]->node_guid, 8), 0);
	KUNIT_EXPECT_EQ(test, l->count[XIB_CM_REQ_RECEIVED], 0U);
	KUNIT_EXPECT_EQ(test, a->count[XIB_CM_REQ_ERROR], 1U);
	cmt_destroy(a);
	cmt_destroy(l);
}

/*
 * Duplicates: a REQ delivered twice reaches the listener once; while its
 * consumer decides, a repeat is answered with an MRA (which the active
 * side hears of once); after the REP, a repeat gets the REP again; the
 * REP delivered twice reaches the active side once.
 */
static void xib_cm_proto_duplicates(struct kunit *test)
{
	struct xib_cm_rep_param rep = { .qp_num = 0x99, .rnr_retry_count = 1 };
	struct xib_cm_req_param req;
	struct cmt_end *a, *b, *l;
	struct xib_mad *copy;

	copy = kunit_kzalloc(test, sizeof(*copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt.dup_attr[0] = XIB_CM_ATTR_REQ;
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	req.remote_cm_response_timeout = 20;	/* no resend during the case */
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 1));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	/* the second copy was answered with an MRA, not delivered */
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_MRA_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_MRA_REQ_SENT);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_MRA_REQ_RCVD);
	memcpy(copy, &cmt.last[0][XIB_CM_ATTR_REQ & 31], sizeof(*copy));
	cmt_deliver(0, 1, NULL, copy);		/* a third copy: MRA again */
	KUNIT_EXPECT_TRUE(test, cmt_wait_sent(1, XIB_CM_ATTR_MRA, 2));
	flush_workqueue(cmt.wq);

	cmt.dup_attr[1] = XIB_CM_ATTR_REP;
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	cmt_deliver(0, 1, NULL, copy);		/* after the REP: REP again */
	KUNIT_EXPECT_TRUE(test, cmt_wait_sent(1, XIB_CM_ATTR_REP, 2));
	/* a's duplicate REP found it deciding: an MRA went to b */
	KUNIT_EXPECT_TRUE(test, cmt_wait(b, XIB_CM_MRA_RECEIVED, 1));
	flush_workqueue(cmt.wq);
	KUNIT_ASSERT_EQ(test, xib_cm_send_rtu(a->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_RTU_RECEIVED, 1));
	flush_workqueue(cmt.wq);

	KUNIT_EXPECT_EQ(test, l->count[XIB_CM_REQ_RECEIVED], 1U);
	KUNIT_EXPECT_EQ(test, cmt_count(b, XIB_CM_REQ_RECEIVED), 1U);
	KUNIT_EXPECT_EQ(test, cmt_count(a, XIB_CM_REP_RECEIVED), 1U);
	KUNIT_EXPECT_EQ(test, cmt_count(a, XIB_CM_MRA_RECEIVED), 1U);
	KUNIT_EXPECT_EQ(test, cmt_count(b, XIB_CM_MRA_RECEIVED), 1U);
	KUNIT_EXPECT_EQ(test, cmt_count(b, XIB_CM_RTU_RECEIVED), 1U);
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_REQ), 1U);

	/* destroying an established end disconnects the other */
	cmt_destroy(a);
	KUNIT_EXPECT_TRUE(test, cmt_wait(b, XIB_CM_DREQ_RECEIVED, 1));
	cmt_destroy(b);	/* answers with DREP */
	KUNIT_EXPECT_TRUE(test, cmt_wait_sent(1, XIB_CM_ATTR_DREP, 1));
	cmt_destroy(l);
}

/*
 * The passive consumer refuses: REJ CONSUMER_DEFINED, or, if it says the
 * service is not there (-ENOENT), INVALID_SERVICE_ID; and a peer's new
 * REQ from a QP still connected to us is STALE_CONN.
 */
static void xib_cm_proto_refuse_stale(struct kunit *test)
{
	struct xib_cm_rep_param rep = { .qp_num = 0x42 };
	struct xib_cm_req_param req;
	struct cmt_end *a, *a2, *b, *l;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	l->refuse = -ECONNREFUSED;
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REJ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rej_reason, XIB_CM_REJ_CONSUMER_DEFINED);
	cmt_destroy(a);

	a = cmt_id(test, 0);
	l->refuse = -ENOENT;
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REJ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rej_reason, XIB_CM_REJ_INVALID_SERVICE_ID);
	cmt_destroy(a);

	/* connect, then REQ again from the same QP on a new id: stale */
	l->refuse = 0;
	a = cmt_id(test, 0);
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 3));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	KUNIT_ASSERT_EQ(test, xib_cm_send_rtu(a->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_RTU_RECEIVED, 1));
	a2 = cmt_id(test, 0);
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a2->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a2, XIB_CM_REJ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a2->rej_reason, XIB_CM_REJ_STALE_CONN);
	KUNIT_EXPECT_EQ(test, l->count[XIB_CM_REQ_RECEIVED], 3U);
	/* the stale connection is disconnected: b sent a DREQ */
	KUNIT_EXPECT_TRUE(test, cmt_wait(a, XIB_CM_DREQ_RECEIVED, 1));
	cmt_destroy(a2);
	cmt_destroy(a);
	cmt_destroy(b);
	cmt_destroy(l);
}

/*
 * The consumer's MRA, establish and REJ: the passive side asks for time
 * (MRA_RECEIVED with its timeout and private data), its QP declares the
 * connection established before the (lost) RTU, it disconnects; an
 * active side abandons its REQ with REJ.
 */
static void xib_cm_proto_mra_establish(struct kunit *test)
{
	struct xib_cm_rep_param rep = { .qp_num = 0x77 };
	struct xib_cm_req_param req;
	struct cmt_end *a, *b, *l;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 1));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, xib_cm_send_mra(b->id, 32, NULL, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, xib_cm_send_mra(b->id, 20, "wait", 5), 0);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_MRA_REQ_SENT);
	KUNIT_EXPECT_EQ(test, xib_cm_send_mra(b->id, 20, NULL, 0), -EINVAL);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_MRA_RECEIVED, 1));
	KUNIT_EXPECT_STREQ(test, (char *)a->pdata, "wait");
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_MRA_REQ_RCVD);

	cmt.drop_attr[0] = XIB_CM_ATTR_RTU;
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	KUNIT_ASSERT_EQ(test, xib_cm_send_rtu(a->id, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, xib_cm_establish(a->id), 0);	/* no-op */
	KUNIT_ASSERT_EQ(test, xib_cm_establish(b->id), 0);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_ESTABLISHED);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_USER_ESTABLISHED, 1));
	KUNIT_EXPECT_EQ(test, cmt_count(b, XIB_CM_RTU_RECEIVED), 0U);

	/* the passive side disconnects */
	KUNIT_ASSERT_EQ(test, xib_cm_send_dreq(b->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_DREQ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, xib_cm_send_dreq(a->id, NULL, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, xib_cm_send_drep(a->id, NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_DREP_RECEIVED, 1));
	cmt_destroy(a);
	cmt_destroy(b);

	/* an active side that gives up: REJ from REQ_SENT */
	cmt.drop_attr[1] = XIB_CM_ATTR_REP;
	a = cmt_id(test, 0);
	req.qp_num++;		/* the last QP is in timewait: stale */
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_REQ_RECEIVED, 2));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, xib_cm_send_rep(b->id, &rep), 0);
	KUNIT_ASSERT_EQ(test, xib_cm_send_rej(a->id, XIB_CM_REJ_CONSUMER_DEFINED,
					      NULL, 0, "no", 3), 0);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_IDLE);
	KUNIT_ASSERT_TRUE(test, cmt_wait(b, XIB_CM_REJ_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, b->rej_reason, XIB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_EXPECT_STREQ(test, (char *)b->pdata, "no");
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_IDLE);
	cmt_destroy(a);
	cmt_destroy(b);
	cmt_destroy(l);
}

/* SIDR: a request answered by the listener's consumer; one nobody serves. */
static void xib_cm_proto_sidr(struct kunit *test)
{
	static const char ask[] = "which QP?";
	static const char info[] = "udp";
	struct xib_cm_sidr_rep_param rep = {
		.qp_num = 0x321, .qkey = 0x01234567,
		.status = XIB_SIDR_SUCCESS,
		.private_data = info, .private_data_len = sizeof(info),
	};
	struct xib_cm_sidr_req_param req = {};
	struct cmt_end *a, *b, *l;

	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt_path(&req.path, 0, 1);
	cmt_fix_path(&req.path);
	req.service_id = cpu_to_be64(CMT_SID);
	req.timeout_ms = 1000;
	req.max_cm_retries = 2;
	req.private_data = ask;
	req.private_data_len = sizeof(ask);
	KUNIT_ASSERT_EQ(test, xib_cm_send_sidr_req(a->id, &req), 0);
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_SIDR_REQ_SENT);
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_SIDR_REQ_RECEIVED, 1));
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_EQ(test, b->listen_id, l->id);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(b->sidr_req.service_id), CMT_SID);
	KUNIT_EXPECT_EQ(test, memcmp(b->sidr_req.path.dgid, cmt.gids[0], 16),
			0);
	KUNIT_EXPECT_EQ(test, b->pdata_len, XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_STREQ(test, (char *)b->pdata, "which QP?");
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_SIDR_REQ_RCVD);
	KUNIT_ASSERT_EQ(test, xib_cm_send_sidr_rep(b->id, &rep), 0);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_IDLE);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_SIDR_REP_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->sidr_rep.status, XIB_SIDR_SUCCESS);
	KUNIT_EXPECT_EQ(test, a->sidr_rep.qp_num, 0x321U);
	KUNIT_EXPECT_EQ(test, a->sidr_rep.qkey, 0x01234567U);
	KUNIT_EXPECT_STREQ(test, (char *)a->pdata, "udp");
	KUNIT_EXPECT_EQ(test, a->id->state, XIB_CM_IDLE);
	cmt_destroy(a);
	cmt_destroy(b);

	/* nobody serves this one */
	a = cmt_id(test, 0);
	req.service_id = cpu_to_be64(CMT_SID + 7);
	KUNIT_ASSERT_EQ(test, xib_cm_send_sidr_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_SIDR_REP_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->sidr_rep.status, XIB_SIDR_UNSUPPORTED);
	cmt_destroy(a);

	/* and one whose answer is lost: SIDR_REQ_ERROR after the retries */
	a = cmt_id(test, 0);
	cmt.drop_attr[1] = XIB_CM_ATTR_SIDR_REP;
	req.service_id = cpu_to_be64(CMT_SID);
	req.timeout_ms = 20;
	KUNIT_ASSERT_EQ(test, xib_cm_send_sidr_req(a->id, &req), 0);
	KUNIT_ASSERT_TRUE(test, cmt_wait(a, XIB_CM_SIDR_REQ_ERROR, 1));
	KUNIT_EXPECT_EQ(test, cmt_sent(0, XIB_CM_ATTR_SIDR_REQ), 2U + 3U);
	/* its retransmissions reached the listener once */
	KUNIT_ASSERT_TRUE(test, cmt_wait(l, XIB_CM_SIDR_REQ_RECEIVED, 2));
	msleep(20);
	KUNIT_EXPECT_EQ(test, cmt_count(l, XIB_CM_SIDR_REQ_RECEIVED), 2U);
	b = cmt_child(l);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->id->state, XIB_CM_SIDR_REQ_RCVD);
	cmt_destroy(b);
	cmt_destroy(a);
	cmt_destroy(l);
}

/* Malformed and misaddressed messages change nothing and get no answer. */
static void xib_cm_proto_garbage(struct kunit *test)
{
	struct xib_cm_req_param req;
	struct cmt_end *a, *l;
	struct xib_mad *mad;

	mad = kunit_kzalloc(test, sizeof(*mad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mad);
	l = cmt_listen(test, 1, CMT_SID);
	a = cmt_id(test, 0);
	cmt.drop_attr[0] = XIB_CM_ATTR_REQ;
	cmt_req(&req, 0, 1, CMT_SID);
	cmt_fix_path(&req.path);
	req.remote_cm_response_timeout = 20;
	KUNIT_ASSERT_EQ(test, xib_cm_send_req(a->id, &req), 0);
	memcpy(mad, &cmt.last[0][XIB_CM_ATTR_REQ & 31], sizeof(*mad));

	/* the REQ with QP 0: dropped, no REJ */
	memset(mad->data + 32, 0, 3);
	cmt_deliver(0, 1, NULL, mad);
	/* a REP naming a's comm ID from a host that is not a's peer */
	memcpy(mad, xib_cm_fix_f76, sizeof(*mad));
	memcpy(mad->data + 4, &a->id->local_id, 4);
	cmt_deliver(1, 0, NULL, mad);	/* from b's GID: matches */
	flush_workqueue(cmt.wq);
	msleep(50);
	KUNIT_EXPECT_EQ(test, cmt_sent(1, XIB_CM_ATTR_REJ), 0U);
	KUNIT_EXPECT_EQ(test, l->count[XIB_CM_REQ_RECEIVED], 0U);
	/* f76 comes from 10.99.0.1 in spirit, but the wire says b: taken */
	KUNIT_EXPECT_TRUE(test, cmt_wait(a, XIB_CM_REP_RECEIVED, 1));
	KUNIT_EXPECT_EQ(test, a->rep.qp_num, 0x16U);

	/* the same REP from a GID that is not the peer's: dropped */
	memcpy(cmt.gids[1] + 12, "\x0a\x4d\x00\x09", 4);
	cmt_deliver(1, 0, NULL, mad);
	flush_workqueue(cmt.wq);
	msleep(20);
	KUNIT_EXPECT_EQ(test, cmt_count(a, XIB_CM_REP_RECEIVED), 1U);
	gid4(cmt.gids[1], 10, 77, 0, 2);
	cmt_destroy(a);	/* REJ to the made-up peer */
	cmt_destroy(l);
}

static struct kunit_case xib_cm_msg_cases[] = {
	KUNIT_CASE(xib_cm_msg_req),
	KUNIT_CASE(xib_cm_msg_rep),
	KUNIT_CASE(xib_cm_msg_rtu_dreq_drep),
	KUNIT_CASE(xib_cm_msg_sidr),
	KUNIT_CASE(xib_cm_msg_mra_rej),
	KUNIT_CASE(xib_cm_msg_checks),
	KUNIT_CASE(xib_cm_msg_xrc),
	{}
};

static struct kunit_case xib_cm_state_cases[] = {
	KUNIT_CASE(xib_cm_state_oracle),
	KUNIT_CASE(xib_cm_state_flags),
	{}
};

/* Two suites of the protocol: KUnit 6.1 keeps a bounded log per suite. */
static struct kunit_case xib_cm_conn_cases[] = {
	KUNIT_CASE(xib_cm_proto_connect),
	KUNIT_CASE(xib_cm_proto_xrc),
	KUNIT_CASE(xib_cm_proto_no_listener),
	KUNIT_CASE(xib_cm_proto_req_timeout),
	KUNIT_CASE(xib_cm_proto_duplicates),
	{}
};

static struct kunit_case xib_cm_proto_cases[] = {
	KUNIT_CASE(xib_cm_proto_refuse_stale),
	KUNIT_CASE(xib_cm_proto_mra_establish),
	KUNIT_CASE(xib_cm_proto_sidr),
	KUNIT_CASE(xib_cm_proto_garbage),
	{}
};

static struct kunit_suite xib_cm_msg_suite = {
	.name = "xib_cm_msg",
	.test_cases = xib_cm_msg_cases,
};

static struct kunit_suite xib_cm_state_suite = {
	.name = "xib_cm_state",
	.test_cases = xib_cm_state_cases,
};

static struct kunit_suite xib_cm_conn_suite = {
	.name = "xib_cm_conn",
	.init = cmt_init,
	.exit = cmt_exit,
	.test_cases = xib_cm_conn_cases,
};

static struct kunit_suite xib_cm_proto_suite = {
	.name = "xib_cm_proto",
	.init = cmt_init,
	.exit = cmt_exit,
	.test_cases = xib_cm_proto_cases,
};

kunit_test_suites(&xib_cm_msg_suite, &xib_cm_state_suite,
		  &xib_cm_conn_suite, &xib_cm_proto_suite);

MODULE_DESCRIPTION("KUnit tests for the xib IB CM");
MODULE_LICENSE("GPL");
