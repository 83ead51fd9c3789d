// SPDX-License-Identifier: GPL-2.0
/*
 * Encoding and decoding of the IB CM messages (cm_msg.h): IBTA vol. 1
 * 12.6, tables 99 to 114, field by field.
 *
 * Offsets are those of the tables (from the end of the MAD header).  Bit
 * fields are named by the byte they live in, their first bit counted from
 * the most significant one, and their width, so that each line can be
 * read against the table it implements.
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <asm/unaligned.h>

#include "cm_msg.h"

/* --- field access ------------------------------------------------------- */

/* Bits @bit .. @bit + @width - 1 of byte @off, from the MSB. */
static u8 cm_get_bits(const u8 *p, unsigned int off, unsigned int bit,
		      unsigned int width)
{
	return (p[off] >> (8 - bit - width)) & GENMASK(width - 1, 0);
}

static void cm_put_bits(u8 *p, unsigned int off, unsigned int bit,
			unsigned int width, u8 val)
{
	u8 mask = GENMASK(width - 1, 0) << (8 - bit - width);

	p[off] = (p[off] & ~mask) | ((val << (8 - bit - width)) & mask);
}

/* The 24 most significant bits of the big-endian word at @off. */
static u32 cm_get24(const u8 *p, unsigned int off)
{
	return get_unaligned_be32(p + off) >> 8;
}

/* Write @val to them; the word's low byte is kept. */
static void cm_put24(u8 *p, unsigned int off, u32 val)
{
	p[off] = val >> 16;
	p[off + 1] = val >> 8;
	p[off + 2] = val;
}

static __be32 cm_get_id(const u8 *p, unsigned int off)
{
	__be32 v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static void cm_put_id(u8 *p, unsigned int off, __be32 v)
{
	memcpy(p + off, &v, sizeof(v));
}

static __be64 cm_get_id64(const u8 *p, unsigned int off)
{
	__be64 v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static void cm_put_id64(u8 *p, unsigned int off, __be64 v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* --- the MAD header ----------------------------------------------------- */

/**
 * xib_cm_msg_hdr() - write the MAD header of a CM message
 * @mad: the MAD; the whole of it is cleared first
 * @attr_id: enum xib_cm_attr_id
 * @tid: the transaction ID
 */
void xib_cm_msg_hdr(struct xib_mad *mad, u16 attr_id, __be64 tid)
{
	memset(mad, 0, sizeof(*mad));
	mad->hdr.base_version = XIB_MAD_BASE_VERSION;
	mad->hdr.mgmt_class = XIB_MGMT_CLASS_CM;
	mad->hdr.class_version = XIB_CM_CLASS_VERSION;
	mad->hdr.method = XIB_MGMT_METHOD_SEND;
	mad->hdr.tid = tid;
	mad->hdr.attr_id = cpu_to_be16(attr_id);
}

/**
 * xib_cm_msg_attr() - the attribute of a received CM message
 * @mad: the MAD
 *
 * Return: its attribute ID, or 0 unless it is a CM Send of class version
 * 2 (CM messages are never responses, and carry no status).
 */
u16 xib_cm_msg_attr(const struct xib_mad *mad)
{
	const struct xib_mad_hdr *h = &mad->hdr;

	if (h->base_version != XIB_MAD_BASE_VERSION ||
	    h->mgmt_class != XIB_MGMT_CLASS_CM ||
	    h->class_version != XIB_CM_CLASS_VERSION ||
	    h->method != XIB_MGMT_METHOD_SEND || h->status)
		return 0;
	return be16_to_cpu(h->attr_id);
}

/* --- REQ (table 99) ----------------------------------------------------- */

/* A path of the REQ at @off (52: primary, 96: alternate). */
static void cm_path_decode(const u8 *p, unsigned int off,
			   struct xib_cm_msg_path *path)
{
	path->local_lid = get_unaligned_be16(p + off);
	path->remote_lid = get_unaligned_be16(p + off + 2);
	memcpy(path->local_gid, p + off + 4, 16);
	memcpy(path->remote_gid, p + off + 20, 16);
	path->flow_label = get_unaligned_be32(p + off + 36) >> 12;
	path->packet_rate = cm_get_bits(p, off + 39, 2, 6);
	path->traffic_class = p[off + 40];
	path->hop_limit = p[off + 41];
	path->sl = cm_get_bits(p, off + 42, 0, 4);
	path->subnet_local = cm_get_bits(p, off + 42, 4, 1);
	path->local_ack_timeout = cm_get_bits(p, off + 43, 0, 5);
}

static void cm_path_encode(u8 *p, unsigned int off,
			   const struct xib_cm_msg_path *path)
{
	put_unaligned_be16(path->local_lid, p + off);
	put_unaligned_be16(path->remote_lid, p + off + 2);
	memcpy(p + off + 4, path->local_gid, 16);
	memcpy(p + off + 20, path->remote_gid, 16);
	/* flow label 20 bits, 6 reserved, packet rate 6 */
	put_unaligned_be32((path->flow_label & 0xfffff) << 12 |
			   (path->packet_rate & 0x3f), p + off + 36);
	p[off + 40] = path->traffic_class;
	p[off + 41] = path->hop_limit;
	cm_put_bits(p, off + 42, 0, 4, path->sl);
	cm_put_bits(p, off + 42, 4, 1, path->subnet_local);
	cm_put_bits(p, off + 43, 0, 5, path->local_ack_timeout);
}

/**
 * xib_cm_req_decode() - the fields of a REQ
 * @mad: a MAD whose attribute is REQ
 * @m: filled in
 */
void xib_cm_req_decode(const struct xib_mad *mad, struct xib_cm_req_msg *m)
{
	const u8 *p = mad->data;

	m->local_comm_id = cm_get_id(p, 0);
	m->vendor_id = get_unaligned_be32(p + 4) & 0xffffff;
	m->service_id = cm_get_id64(p, 8);
	m->local_ca_guid = cm_get_id64(p, 16);
	m->local_qkey = get_unaligned_be32(p + 28);
	m->local_qpn = cm_get24(p, 32);
	m->responder_resources = p[35];
	m->local_eecn = cm_get24(p, 36);
	m->initiator_depth = p[39];
	m->remote_eecn = cm_get24(p, 40);
	m->remote_cm_response_timeout = cm_get_bits(p, 43, 0, 5);
	m->transport_type = cm_get_bits(p, 43, 5, 2);
	m->flow_control = cm_get_bits(p, 43, 7, 1);
	m->starting_psn = cm_get24(p, 44);
	m->local_cm_response_timeout = cm_get_bits(p, 47, 0, 5);
	m->retry_count = cm_get_bits(p, 47, 5, 3);
	m->pkey = get_unaligned_be16(p + 48);
	m->mtu = cm_get_bits(p, 50, 0, 4);
	m->rdc_exists = cm_get_bits(p, 50, 4, 1);
	m->rnr_retry_count = cm_get_bits(p, 50, 5, 3);
	m->max_cm_retries = cm_get_bits(p, 51, 0, 4);
	m->srq = cm_get_bits(p, 51, 4, 1);
	m->ext_transport_type = cm_get_bits(p, 51, 5, 3);
	cm_path_decode(p, 52, &m->primary);
	cm_path_decode(p, 96, &m->alternate);
	m->sap_supported = cm_get_bits(p, 139, 5, 1);
	memcpy(m->private_data, p + 140, sizeof(m->private_data));
}

/**
 * xib_cm_req_encode() - a REQ MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_req_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_req_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_REQ, tid);
	cm_put_id(p, 0, m->local_comm_id);
	cm_put24(p, 5, m->vendor_id);
	cm_put_id64(p, 8, m->service_id);
	cm_put_id64(p, 16, m->local_ca_guid);
	put_unaligned_be32(m->local_qkey, p + 28);
	cm_put24(p, 32, m->local_qpn);
	p[35] = m->responder_resources;
	cm_put24(p, 36, m->local_eecn);
	p[39] = m->initiator_depth;
	cm_put24(p, 40, m->remote_eecn);
	cm_put_bits(p, 43, 0, 5, m->remote_cm_response_timeout);
	cm_put_bits(p, 43, 5, 2, m->transport_type);
	cm_put_bits(p, 43, 7, 1, m->flow_control);
	cm_put24(p, 44, m->starting_psn);
	cm_put_bits(p, 47, 0, 5, m->local_cm_response_timeout);
	cm_put_bits(p, 47, 5, 3, m->retry_count);
	put_unaligned_be16(m->pkey, p + 48);
	cm_put_bits(p, 50, 0, 4, m->mtu);
	cm_put_bits(p, 50, 4, 1, m->rdc_exists);
	cm_put_bits(p, 50, 5, 3, m->rnr_retry_count);
	cm_put_bits(p, 51, 0, 4, m->max_cm_retries);
	cm_put_bits(p, 51, 4, 1, m->srq);
	cm_put_bits(p, 51, 5, 3, m->ext_transport_type);
	cm_path_encode(p, 52, &m->primary);
	cm_path_encode(p, 96, &m->alternate);
	cm_put_bits(p, 139, 5, 1, m->sap_supported);
	memcpy(p + 140, m->private_data, sizeof(m->private_data));
}

static bool cm_gid_zero(const u8 gid[16])
{
	return !memchr_inv(gid, 0, 16);
}

/**
 * xib_cm_req_qp_type() - the QP type a received REQ asks the receiver for
 * @m: the decoded REQ
 *
 * Transport 0 is RC, 1 UC, and 3 with extended transport type 1 an XRC
 * initiator, served by an XRC target (XIB_QPT_XRC_RECV), as Linux's
 * ib_cm maps them.
 *
 * Return: XIB_QPT_RC, XIB_QPT_UC or XIB_QPT_XRC_RECV; 0 for any other
 * transport (RD, an unknown extended type, RC or UC with one).
 */
enum xib_qp_type xib_cm_req_qp_type(const struct xib_cm_req_msg *m)
{
	switch (m->transport_type) {
	case XIB_CM_TRANSPORT_RC:
		return m->ext_transport_type ? 0 : XIB_QPT_RC;
	case XIB_CM_TRANSPORT_UC:
		return m->ext_transport_type ? 0 : XIB_QPT_UC;
	case XIB_CM_TRANSPORT_EXT:
		return m->ext_transport_type == XIB_CM_EXT_TRANSPORT_XRC ?
			XIB_QPT_XRC_RECV : 0;
	default:
		return 0;
	}
}

/**
 * xib_cm_req_set_qp_type() - the transport fields of a REQ for a QP type
 * @m: the REQ being built
 * @type: the sender's QP: XIB_QPT_RC, XIB_QPT_UC or XIB_QPT_XRC_SEND
 *
 * An XRC initiator's REQ has transport 3, extended type 1, and, as
 * Linux's ib_cm sends it, no responder resources, retry counts or SRQ
 * flag (an initiator has no receive side; its own retry counts stay with
 * its CM).
 *
 * Return: 0, or -EINVAL for another type.
 */
int xib_cm_req_set_qp_type(struct xib_cm_req_msg *m, enum xib_qp_type type)
{
	switch (type) {
	case XIB_QPT_RC:
		m->transport_type = XIB_CM_TRANSPORT_RC;
		break;
	case XIB_QPT_UC:
		m->transport_type = XIB_CM_TRANSPORT_UC;
		break;
	case XIB_QPT_XRC_SEND:
		m->transport_type = XIB_CM_TRANSPORT_EXT;
		m->ext_transport_type = XIB_CM_EXT_TRANSPORT_XRC;
		m->responder_resources = 0;
		m->retry_count = 0;
		m->rnr_retry_count = 0;
		m->srq = false;
		return 0;
	default:
		return -EINVAL;
	}
	m->ext_transport_type = 0;
	return 0;
}

/**
 * xib_cm_req_check() - whether a REQ is one the CM can serve
 * @m: the decoded REQ
 *
 * Return: 0; a REJ reason for a REQ the CM answers with REJ (a transport
 * other than RC, UC or XRC, a path MTU out of range, an alternate path, which
 * RoCE does not have); -EINVAL for a malformed REQ (comm ID 0, QP 0 or 1)
 * which is dropped.
 */
int xib_cm_req_check(const struct xib_cm_req_msg *m)
{
	if (!m->local_comm_id || m->local_qpn <= 1)
		return -EINVAL;
	if (!xib_cm_req_qp_type(m))
		return XIB_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (m->mtu < XIB_MTU_256 || m->mtu > XIB_MTU_4096)
		return XIB_CM_REJ_INVALID_MTU;
	if (m->alternate.local_lid || m->alternate.remote_lid ||
	    !cm_gid_zero(m->alternate.local_gid) ||
	    !cm_gid_zero(m->alternate.remote_gid))
		return XIB_CM_REJ_INVALID_ALT_GID;
	return 0;
}

/* --- MRA (table 100) ---------------------------------------------------- */

/**
 * xib_cm_mra_decode() - the fields of an MRA
 * @mad: a MAD whose attribute is MRA
 * @m: filled in
 */
void xib_cm_mra_decode(const struct xib_mad *mad, struct xib_cm_mra_msg *m)
{
	const u8 *p = mad->data;

	m->local_comm_id = cm_get_id(p, 0);
	m->remote_comm_id = cm_get_id(p, 4);
	m->message_mraed = cm_get_bits(p, 8, 0, 2);
	m->service_timeout = cm_get_bits(p, 9, 0, 5);
	memcpy(m->private_data, p + 10, sizeof(m->private_data));
}

/**
 * xib_cm_mra_encode() - an MRA MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_mra_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_mra_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_MRA, tid);
	cm_put_id(p, 0, m->local_comm_id);
	cm_put_id(p, 4, m->remote_comm_id);
	cm_put_bits(p, 8, 0, 2, m->message_mraed);
	cm_put_bits(p, 9, 0, 5, m->service_timeout);
	memcpy(p + 10, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_mra_check() - an MRA names a message and the sender
 * @m: the decoded MRA
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_mra_check(const struct xib_cm_mra_msg *m)
{
	if (!m->local_comm_id || !m->remote_comm_id ||
	    m->message_mraed > XIB_CM_MSG_OTHER)
		return -EINVAL;
	return 0;
}

/* --- REJ (table 101) ---------------------------------------------------- */

/**
 * xib_cm_rej_decode() - the fields of a REJ
 * @mad: a MAD whose attribute is REJ
 * @m: filled in
 */
void xib_cm_rej_decode(const struct xib_mad *mad, struct xib_cm_rej_msg *m)
{
	const u8 *p = mad->data;

	m->local_comm_id = cm_get_id(p, 0);
	m->remote_comm_id = cm_get_id(p, 4);
	m->message_rejected = cm_get_bits(p, 8, 0, 2);
	m->ari_length = cm_get_bits(p, 9, 0, 7);
	m->reason = get_unaligned_be16(p + 10);
	memcpy(m->ari, p + 12, sizeof(m->ari));
	memcpy(m->private_data, p + 84, sizeof(m->private_data));
}

/**
 * xib_cm_rej_encode() - a REJ MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields; ARI bytes past @m->ari_length are sent as zeros
 */
void xib_cm_rej_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rej_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_REJ, tid);
	cm_put_id(p, 0, m->local_comm_id);
	cm_put_id(p, 4, m->remote_comm_id);
	cm_put_bits(p, 8, 0, 2, m->message_rejected);
	cm_put_bits(p, 9, 0, 7, m->ari_length);
	put_unaligned_be16(m->reason, p + 10);
	memcpy(p + 12, m->ari, min_t(size_t, m->ari_length, sizeof(m->ari)));
	memcpy(p + 84, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_rej_check() - a REJ names the message and fits its ARI
 * @m: the decoded REJ
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_rej_check(const struct xib_cm_rej_msg *m)
{
	if (m->message_rejected > XIB_CM_MSG_OTHER ||
	    m->ari_length > XIB_CM_REJ_ARI_LENGTH ||
	    (!m->local_comm_id && !m->remote_comm_id))
		return -EINVAL;
	return 0;
}

/* --- REP (table 103) ---------------------------------------------------- */

/**
 * xib_cm_rep_decode() - the fields of a REP
 * @mad: a MAD whose attribute is REP
 * @m: filled in
 */
void xib_cm_rep_decode(const struct xib_mad *mad, struct xib_cm_rep_msg *m)
{
	const u8 *p = mad->data;

	m->local_comm_id = cm_get_id(p, 0);
	m->remote_comm_id = cm_get_id(p, 4);
	m->local_qkey = get_unaligned_be32(p + 8);
	m->local_qpn = cm_get24(p, 12);
	m->local_eecn = cm_get24(p, 16);
	m->starting_psn = cm_get24(p, 20);
	m->vendor_id = p[15] << 16 | p[19] << 8 | p[23];
	m->responder_resources = p[24];
	m->initiator_depth = p[25];
	m->target_ack_delay = cm_get_bits(p, 26, 0, 5);
	m->failover_accepted = cm_get_bits(p, 26, 5, 2);
	m->flow_control = cm_get_bits(p, 26, 7, 1);
	m->rnr_retry_count = cm_get_bits(p, 27, 0, 3);
	m->srq = cm_get_bits(p, 27, 3, 1);
	m->local_ca_guid = cm_get_id64(p, 28);
	memcpy(m->private_data, p + 36, sizeof(m->private_data));
}

/**
 * xib_cm_rep_encode() - a REP MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_rep_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rep_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_REP, tid);
	cm_put_id(p, 0, m->local_comm_id);
	cm_put_id(p, 4, m->remote_comm_id);
	put_unaligned_be32(m->local_qkey, p + 8);
	cm_put24(p, 12, m->local_qpn);
	p[15] = m->vendor_id >> 16;
	cm_put24(p, 16, m->local_eecn);
	p[19] = m->vendor_id >> 8;
	cm_put24(p, 20, m->starting_psn);
	p[23] = m->vendor_id;
	p[24] = m->responder_resources;
	p[25] = m->initiator_depth;
	cm_put_bits(p, 26, 0, 5, m->target_ack_delay);
	cm_put_bits(p, 26, 5, 2, m->failover_accepted);
	cm_put_bits(p, 26, 7, 1, m->flow_control);
	cm_put_bits(p, 27, 0, 3, m->rnr_retry_count);
	cm_put_bits(p, 27, 3, 1, m->srq);
	cm_put_id64(p, 28, m->local_ca_guid);
	memcpy(p + 36, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_rep_check() - a REP names both ends and a QP (or an XRC target)
 * @m: the decoded REP
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_rep_check(const struct xib_cm_rep_msg *m)
{
	if (!m->local_comm_id || !m->remote_comm_id ||
	    (m->local_qpn <= 1 && m->local_eecn <= 1))
		return -EINVAL;
	return 0;
}

/**
 * xib_cm_rep_qpn() - the QP a REP names
 * @m: the decoded REP
 * @xrc: it answers an XRC initiator's REQ
 *
 * An XRC target's REP carries its QP number in the local EE context
 * number field (local QPN 0, SRQ 1), as Linux's ib_cm sends and reads it.
 *
 * Return: the QPN; the caller refuses 0 and 1.
 */
u32 xib_cm_rep_qpn(const struct xib_cm_rep_msg *m, bool xrc)
{
	return xrc ? m->local_eecn : m->local_qpn;
}

/* --- RTU (table 104), DREP (table 107) ---------------------------------- */

static void cm_ids_decode(const u8 *p, __be32 *local, __be32 *remote)
{
	*local = cm_get_id(p, 0);
	*remote = cm_get_id(p, 4);
}

/**
 * xib_cm_rtu_decode() - the fields of an RTU
 * @mad: a MAD whose attribute is RTU
 * @m: filled in
 */
void xib_cm_rtu_decode(const struct xib_mad *mad, struct xib_cm_rtu_msg *m)
{
	cm_ids_decode(mad->data, &m->local_comm_id, &m->remote_comm_id);
	memcpy(m->private_data, mad->data + 8, sizeof(m->private_data));
}

/**
 * xib_cm_rtu_encode() - an RTU MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_rtu_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rtu_msg *m)
{
	xib_cm_msg_hdr(mad, XIB_CM_ATTR_RTU, tid);
	cm_put_id(mad->data, 0, m->local_comm_id);
	cm_put_id(mad->data, 4, m->remote_comm_id);
	memcpy(mad->data + 8, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_drep_decode() - the fields of a DREP
 * @mad: a MAD whose attribute is DREP
 * @m: filled in
 */
void xib_cm_drep_decode(const struct xib_mad *mad, struct xib_cm_drep_msg *m)
{
	xib_cm_rtu_decode(mad, m);
}

/**
 * xib_cm_drep_encode() - a DREP MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_drep_encode(struct xib_mad *mad, __be64 tid,
			const struct xib_cm_drep_msg *m)
{
	xib_cm_rtu_encode(mad, tid, m);
	mad->hdr.attr_id = cpu_to_be16(XIB_CM_ATTR_DREP);
}

/* --- DREQ (table 106) --------------------------------------------------- */

/**
 * xib_cm_dreq_decode() - the fields of a DREQ
 * @mad: a MAD whose attribute is DREQ
 * @m: filled in
 */
void xib_cm_dreq_decode(const struct xib_mad *mad, struct xib_cm_dreq_msg *m)
{
	cm_ids_decode(mad->data, &m->local_comm_id, &m->remote_comm_id);
	m->remote_qpn = cm_get24(mad->data, 8);
	memcpy(m->private_data, mad->data + 12, sizeof(m->private_data));
}

/**
 * xib_cm_dreq_encode() - a DREQ MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_dreq_encode(struct xib_mad *mad, __be64 tid,
			const struct xib_cm_dreq_msg *m)
{
	xib_cm_msg_hdr(mad, XIB_CM_ATTR_DREQ, tid);
	cm_put_id(mad->data, 0, m->local_comm_id);
	cm_put_id(mad->data, 4, m->remote_comm_id);
	cm_put24(mad->data, 8, m->remote_qpn);
	memcpy(mad->data + 12, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_dreq_check() - a DREQ names both ends
 * @m: the decoded DREQ
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_dreq_check(const struct xib_cm_dreq_msg *m)
{
	return m->local_comm_id && m->remote_comm_id ? 0 : -EINVAL;
}

/* --- SIDR_REQ (table 113), SIDR_REP (table 114) ------------------------- */

/**
 * xib_cm_sidr_req_decode() - the fields of a SIDR_REQ
 * @mad: a MAD whose attribute is SIDR_REQ
 * @m: filled in
 */
void xib_cm_sidr_req_decode(const struct xib_mad *mad,
			    struct xib_cm_sidr_req_msg *m)
{
	const u8 *p = mad->data;

	m->request_id = cm_get_id(p, 0);
	m->pkey = get_unaligned_be16(p + 4);
	m->service_id = cm_get_id64(p, 8);
	memcpy(m->private_data, p + 16, sizeof(m->private_data));
}

/**
 * xib_cm_sidr_req_encode() - a SIDR_REQ MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields
 */
void xib_cm_sidr_req_encode(struct xib_mad *mad, __be64 tid,
			    const struct xib_cm_sidr_req_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_SIDR_REQ, tid);
	cm_put_id(p, 0, m->request_id);
	put_unaligned_be16(m->pkey, p + 4);
	cm_put_id64(p, 8, m->service_id);
	memcpy(p + 16, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_sidr_rep_decode() - the fields of a SIDR_REP
 * @mad: a MAD whose attribute is SIDR_REP
 * @m: filled in
 */
void xib_cm_sidr_rep_decode(const struct xib_mad *mad,
			    struct xib_cm_sidr_rep_msg *m)
{
	const u8 *p = mad->data;

	m->request_id = cm_get_id(p, 0);
	m->status = p[4];
	m->info_length = p[5];
	m->vendor_id = get_unaligned_be16(p + 6) << 8 | p[11];
	m->qpn = cm_get24(p, 8);
	m->service_id = cm_get_id64(p, 12);
	m->qkey = get_unaligned_be32(p + 20);
	memcpy(m->info, p + 24, sizeof(m->info));
	memcpy(m->private_data, p + 96, sizeof(m->private_data));
}

/**
 * xib_cm_sidr_rep_encode() - a SIDR_REP MAD
 * @mad: written whole
 * @tid: its transaction ID
 * @m: the fields; info bytes past @m->info_length are sent as zeros
 */
void xib_cm_sidr_rep_encode(struct xib_mad *mad, __be64 tid,
			    const struct xib_cm_sidr_rep_msg *m)
{
	u8 *p = mad->data;

	xib_cm_msg_hdr(mad, XIB_CM_ATTR_SIDR_REP, tid);
	cm_put_id(p, 0, m->request_id);
	p[4] = m->status;
	p[5] = m->info_length;
	put_unaligned_be16(m->vendor_id >> 8, p + 6);
	cm_put24(p, 8, m->qpn);
	p[11] = m->vendor_id;
	cm_put_id64(p, 12, m->service_id);
	put_unaligned_be32(m->qkey, p + 20);
	memcpy(p + 24, m->info, min_t(size_t, m->info_length, sizeof(m->info)));
	memcpy(p + 96, m->private_data, sizeof(m->private_data));
}

/**
 * xib_cm_sidr_rep_check() - a SIDR_REP has a known status and fits its
 *	additional information
 * @m: the decoded SIDR_REP
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_sidr_rep_check(const struct xib_cm_sidr_rep_msg *m)
{
	if (!m->request_id || m->status > XIB_SIDR_UNSUPPORTED_VERSION ||
	    m->info_length > XIB_CM_SIDR_REP_INFO_LENGTH ||
	    (m->status == XIB_SIDR_SUCCESS && m->qpn <= 1))
		return -EINVAL;
	return 0;
}

/* --- times -------------------------------------------------------------- */

/**
 * xib_cm_time_ms() - an IBTA time in milliseconds
 * @t: 4.096 us * 2^@t; only the low 5 bits count
 *
 * Return: the time rounded up to a whole millisecond (at least 1).
 */
unsigned int xib_cm_time_ms(u8 t)
{
	u64 ns = 4096ULL << (t & 31);

	return DIV_ROUND_UP_ULL(ns, NSEC_PER_MSEC);
}
