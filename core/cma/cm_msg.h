/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IB CM messages (IBTA vol. 1, 12.6): their decoded form and the
 * functions that turn a 256-byte MAD into it and back (cm_msg.c).
 *
 * The layout is the one of IBTA 12.6 as the Linux ib_cm sends it on RoCE:
 * byte offsets below are from the start of the message, i.e. from the
 * end of the 24-byte MAD header; multi-byte fields are big-endian; a
 * field given as "byte[bit], width" starts at bit @bit of byte @byte,
 * counting from the most significant bit, as the IBTA tables do.
 *
 * Decoding never fails on a field's value: it takes the fields out as
 * they are, and the xib_cm_*_check() functions say whether a message is
 * one the CM accepts.  Encoding writes every field (reserved ones zero)
 * and private data padded with zeros to its full size.
 *
 * Comm IDs, service IDs and GUIDs are kept in network order (they are
 * names, never numbers); everything else in host order.
 */
#ifndef _XIB_CM_MSG_H
#define _XIB_CM_MSG_H

#include <linux/types.h>
#include <xib/xib_cm.h>
#include <xib/xib_mad.h>

/* The MRA's and REJ's "message MRAed/rejected" (IBTA tables 104, 105). */
enum xib_cm_msg_response {
	XIB_CM_MSG_REQ		= 0,
	XIB_CM_MSG_REP		= 1,
	XIB_CM_MSG_OTHER	= 2,	/* REJ: other; MRA: LAP */
};

/*
 * REQ transport service types (IBTA table 99).  XRC is transport 3 with
 * extended transport type 1 (IBTA vol. 1 annex A14, XRC; what Linux's ib_cm
 * sends for an XRC initiator and maps to an XRC target on receipt).
 */
enum {
	XIB_CM_TRANSPORT_RC	= 0,
	XIB_CM_TRANSPORT_UC	= 1,
	XIB_CM_TRANSPORT_RD	= 2,
	XIB_CM_TRANSPORT_EXT	= 3,	/* see the extended transport type */
};

#define XIB_CM_EXT_TRANSPORT_XRC	1

/* The largest private data of any message (RTU, DREP). */
#define XIB_CM_MAX_PRIVATE_DATA	224

/**
 * struct xib_cm_msg_path - a path as a REQ carries it (primary or
 *	alternate; the sender's view: local is the sender)
 * @local_lid: the sender's LID, 0xffff (permissive) on RoCE
 * @remote_lid: the receiver's LID, 0xffff (permissive) on RoCE
 * @local_gid: the sender's GID
 * @remote_gid: the receiver's GID
 * @flow_label: 20 bits
 * @packet_rate: 6 bits
 * @traffic_class: of the GRH (the IP header's DSCP/ECN on RoCEv2)
 * @hop_limit: of the GRH (the IP header's TTL on RoCEv2)
 * @sl: 4 bits
 * @subnet_local: 1 bit
 * @local_ack_timeout: 5 bits
 */
struct xib_cm_msg_path {
	u16 local_lid;
	u16 remote_lid;
	u8 local_gid[16];
	u8 remote_gid[16];
	u32 flow_label;
	u8 packet_rate;
	u8 traffic_class;
	u8 hop_limit;
	u8 sl;
	bool subnet_local;
	u8 local_ack_timeout;
};

/* REQ (IBTA table 99), 232 bytes. */
struct xib_cm_req_msg {
	__be32 local_comm_id;
	u32 vendor_id;				/* 24 bits at byte 5 (ECE) */
	__be64 service_id;
	__be64 local_ca_guid;
	u32 local_qkey;
	u32 local_qpn;
	u8 responder_resources;
	u32 local_eecn;
	u8 initiator_depth;
	u32 remote_eecn;
	u8 remote_cm_response_timeout;
	u8 transport_type;
	bool flow_control;
	u32 starting_psn;
	u8 local_cm_response_timeout;
	u8 retry_count;
	u16 pkey;
	u8 mtu;
	bool rdc_exists;
	u8 rnr_retry_count;
	u8 max_cm_retries;
	bool srq;
	u8 ext_transport_type;
	struct xib_cm_msg_path primary;
	struct xib_cm_msg_path alternate;
	bool sap_supported;
	u8 private_data[XIB_CM_REQ_PRIVATE_DATA_SIZE];
};

/* MRA (IBTA table 100). */
struct xib_cm_mra_msg {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 message_mraed;
	u8 service_timeout;
	u8 private_data[XIB_CM_MRA_PRIVATE_DATA_SIZE];
};

/* REJ (IBTA table 101). */
struct xib_cm_rej_msg {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 message_rejected;
	u8 ari_length;				/* 7 bits */
	u16 reason;
	u8 ari[XIB_CM_REJ_ARI_LENGTH];
	u8 private_data[XIB_CM_REJ_PRIVATE_DATA_SIZE];
};

/* REP (IBTA table 103). */
struct xib_cm_rep_msg {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u32 local_qkey;
	u32 local_qpn;
	u32 local_eecn;
	u32 starting_psn;
	u32 vendor_id;				/* bytes 15, 19, 23 (ECE) */
	u8 responder_resources;
	u8 initiator_depth;
	u8 target_ack_delay;
	u8 failover_accepted;
	bool flow_control;
	u8 rnr_retry_count;
	bool srq;
	__be64 local_ca_guid;
	u8 private_data[XIB_CM_REP_PRIVATE_DATA_SIZE];
};

/* RTU (IBTA table 104), DREP (table 107): comm IDs and private data. */
struct xib_cm_rtu_msg {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u8 private_data[XIB_CM_RTU_PRIVATE_DATA_SIZE];
};

/* DREQ (IBTA table 106). */
struct xib_cm_dreq_msg {
	__be32 local_comm_id;
	__be32 remote_comm_id;
	u32 remote_qpn;				/* 24 bits: the receiver's QP */
	u8 private_data[XIB_CM_DREQ_PRIVATE_DATA_SIZE];
};

#define xib_cm_drep_msg xib_cm_rtu_msg

/* SIDR_REQ (IBTA table 113). */
struct xib_cm_sidr_req_msg {
	__be32 request_id;
	u16 pkey;
	__be64 service_id;
	u8 private_data[XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
};

/* SIDR_REP (IBTA table 114). */
struct xib_cm_sidr_rep_msg {
	__be32 request_id;
	u8 status;
	u8 info_length;
	u32 vendor_id;				/* bytes 6-7, 11 (ECE) */
	u32 qpn;
	__be64 service_id;
	u32 qkey;
	u8 info[XIB_CM_SIDR_REP_INFO_LENGTH];
	u8 private_data[XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE];
};

/*
 * The header of every CM MAD: base version 1, class 0x07 version 2,
 * method Send, @attr_id, @tid; status, class-specific and attribute
 * modifier zero.
 */
void xib_cm_msg_hdr(struct xib_mad *mad, u16 attr_id, __be64 tid);
/* The attribute of a CM MAD, or 0 if the header is not a CM Send. */
u16 xib_cm_msg_attr(const struct xib_mad *mad);

void xib_cm_req_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_req_msg *m);
void xib_cm_req_decode(const struct xib_mad *mad, struct xib_cm_req_msg *m);
void xib_cm_mra_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_mra_msg *m);
void xib_cm_mra_decode(const struct xib_mad *mad, struct xib_cm_mra_msg *m);
void xib_cm_rej_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rej_msg *m);
void xib_cm_rej_decode(const struct xib_mad *mad, struct xib_cm_rej_msg *m);
void xib_cm_rep_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rep_msg *m);
void xib_cm_rep_decode(const struct xib_mad *mad, struct xib_cm_rep_msg *m);
void xib_cm_rtu_encode(struct xib_mad *mad, __be64 tid,
		       const struct xib_cm_rtu_msg *m);
void xib_cm_rtu_decode(const struct xib_mad *mad, struct xib_cm_rtu_msg *m);
void xib_cm_dreq_encode(struct xib_mad *mad, __be64 tid,
			const struct xib_cm_dreq_msg *m);
void xib_cm_dreq_decode(const struct xib_mad *mad, struct xib_cm_dreq_msg *m);
void xib_cm_drep_encode(struct xib_mad *mad, __be64 tid,
			const struct xib_cm_drep_msg *m);
void xib_cm_drep_decode(const struct xib_mad *mad, struct xib_cm_drep_msg *m);
void xib_cm_sidr_req_encode(struct xib_mad *mad, __be64 tid,
			    const struct xib_cm_sidr_req_msg *m);
void xib_cm_sidr_req_decode(const struct xib_mad *mad,
			    struct xib_cm_sidr_req_msg *m);
void xib_cm_sidr_rep_encode(struct xib_mad *mad, __be64 tid,
			    const struct xib_cm_sidr_rep_msg *m);
void xib_cm_sidr_rep_decode(const struct xib_mad *mad,
			    struct xib_cm_sidr_rep_msg *m);

/*
 * Whether the CM accepts a received message: 0; a REJ reason (> 0) to
 * answer a REQ with; or -EINVAL: malformed, dropped without an answer.
 */
int xib_cm_req_check(const struct xib_cm_req_msg *m);
int xib_cm_mra_check(const struct xib_cm_mra_msg *m);
int xib_cm_rej_check(const struct xib_cm_rej_msg *m);
int xib_cm_rep_check(const struct xib_cm_rep_msg *m);
int xib_cm_dreq_check(const struct xib_cm_dreq_msg *m);
int xib_cm_sidr_rep_check(const struct xib_cm_sidr_rep_msg *m);

enum xib_qp_type xib_cm_req_qp_type(const struct xib_cm_req_msg *m);
int xib_cm_req_set_qp_type(struct xib_cm_req_msg *m, enum xib_qp_type type);
u32 xib_cm_rep_qpn(const struct xib_cm_rep_msg *m, bool xrc);

/* 4.096 us * 2^@t in milliseconds, rounded up; @t is 5 bits. */
unsigned int xib_cm_time_ms(u8 t);

#endif /* _XIB_CM_MSG_H */
