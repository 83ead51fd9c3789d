/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib IB CM: the InfiniBand communication management protocol (IBTA vol. 1
 * chapter 12) over the MAD layer (xib_mad.h), in xib_cma.
 *
 * A struct xib_cm_id is one end of one connection (or one SIDR exchange,
 * or a listener).  Its consumer (the RDMA CM, cma.c) drives it with the
 * xib_cm_send_*() calls and learns what the peer did from events.  The
 * protocol state of an id is one of enum xib_cm_state; which call and which
 * received message is legal in which state, and what it leads to, is one
 * table (cm_state.c).  Calls made in a state that does not allow them fail
 * with -EINVAL and change nothing.
 *
 * Wire compatibility: messages are laid out as IBTA 12.6 says, as the
 * Linux ib_cm sends them on RoCE (permissive LIDs 0xffff, GIDs from the IP
 * addresses, subnet-local 0 for routed RoCEv2); timeouts come from the
 * REQ's CM response timeout fields and max CM retries; duplicates of REQ,
 * REP and DREQ are answered again (REP, MRA, RTU, DREP as the state says)
 * and never delivered twice (a duplicate REQ or REP that finds the
 * consumer still deciding gets an MRA, as the Linux RDMA CM sends); a REQ
 * for a connection in timewait is rejected with STALE_CONN.
 * Documentation/cm.rst describes the protocol and the state table.
 *
 * Events: delivered by calling the id's handler in process context, one
 * at a time per id (never concurrently for the same id).  The handler may
 * call xib_cm_send_*() and xib_cm_init_qp_attr() on the id, but must not
 * destroy it; returning non-zero from the handler destroys the id after
 * the handler returns (used to refuse a new connection's id from
 * XIB_CM_REQ_RECEIVED).  For a request the value picks the answer:
 * -ENOMEM or -ENOBUFS none (the peer retries), -ENOENT REJ
 * INVALID_SERVICE_ID (SIDR_REP UNSUPPORTED), anything else REJ
 * CONSUMER_DEFINED (SIDR_REP REJECT).  Private data in an event points
 * into memory valid only during the call.
 *
 * Destroy: xib_cm_destroy_id() may sleep.  It ends the protocol as the
 * state requires (REJ for an unanswered REQ/REP, DREQ for an established
 * connection, with timewait kept internally so stale messages are
 * answered), cancels the id's outstanding MADs and waits until its
 * handler is not running and will not be called again.
 */
#ifndef _XIB_CM_H
#define _XIB_CM_H

#include <linux/types.h>
#include <xib/xib_verbs.h>

/* Private data sizes of the CM messages (IBTA 12.6). */
#define XIB_CM_REQ_PRIVATE_DATA_SIZE		92
#define XIB_CM_MRA_PRIVATE_DATA_SIZE		222
#define XIB_CM_REJ_PRIVATE_DATA_SIZE		148
#define XIB_CM_REP_PRIVATE_DATA_SIZE		196
#define XIB_CM_RTU_PRIVATE_DATA_SIZE		224
#define XIB_CM_DREQ_PRIVATE_DATA_SIZE		220
#define XIB_CM_DREP_PRIVATE_DATA_SIZE		224
#define XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE	216
#define XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE	136
#define XIB_CM_REJ_ARI_LENGTH			72
#define XIB_CM_SIDR_REP_INFO_LENGTH		72

/* CM attribute IDs (IBTA 12.6.2). */
enum xib_cm_attr_id {
	XIB_CM_ATTR_REQ		= 0x0010,
	XIB_CM_ATTR_MRA		= 0x0011,
	XIB_CM_ATTR_REJ		= 0x0012,
	XIB_CM_ATTR_REP		= 0x0013,
	XIB_CM_ATTR_RTU		= 0x0014,
	XIB_CM_ATTR_DREQ	= 0x0015,
	XIB_CM_ATTR_DREP	= 0x0016,
	XIB_CM_ATTR_SIDR_REQ	= 0x0017,
	XIB_CM_ATTR_SIDR_REP	= 0x0018,
	XIB_CM_ATTR_LAP		= 0x0019,
	XIB_CM_ATTR_APR		= 0x001a,
};

#define XIB_CM_CLASS_VERSION	2

/* Protocol states of an id (IBTA 12.9). */
enum xib_cm_state {
	XIB_CM_IDLE,
	XIB_CM_LISTEN,
	XIB_CM_REQ_SENT,
	XIB_CM_REQ_RCVD,
	XIB_CM_MRA_REQ_SENT,
	XIB_CM_MRA_REQ_RCVD,
	XIB_CM_REP_SENT,
	XIB_CM_REP_RCVD,
	XIB_CM_MRA_REP_SENT,
	XIB_CM_MRA_REP_RCVD,
	XIB_CM_ESTABLISHED,
	XIB_CM_DREQ_SENT,
	XIB_CM_DREQ_RCVD,
	XIB_CM_TIMEWAIT,
	XIB_CM_SIDR_REQ_SENT,
	XIB_CM_SIDR_REQ_RCVD,
	XIB_CM_STATE_MAX
};

/* REJ reasons (IBTA table 112); those the stack sends or acts on. */
enum xib_cm_rej_reason {
	XIB_CM_REJ_NO_QP			= 1,
	XIB_CM_REJ_NO_EEC			= 2,
	XIB_CM_REJ_NO_RESOURCES			= 3,
	XIB_CM_REJ_TIMEOUT			= 4,
	XIB_CM_REJ_UNSUPPORTED			= 5,
	XIB_CM_REJ_INVALID_COMM_ID		= 6,
	XIB_CM_REJ_INVALID_COMM_INSTANCE	= 7,
	XIB_CM_REJ_INVALID_SERVICE_ID		= 8,
	XIB_CM_REJ_INVALID_TRANSPORT_TYPE	= 9,
	XIB_CM_REJ_STALE_CONN			= 10,
	XIB_CM_REJ_RDC_NOT_EXIST		= 11,
	XIB_CM_REJ_INVALID_GID			= 12,
	XIB_CM_REJ_INVALID_LID			= 13,
	XIB_CM_REJ_INVALID_SL			= 14,
	XIB_CM_REJ_INVALID_TRAFFIC_CLASS	= 15,
	XIB_CM_REJ_INVALID_HOP_LIMIT		= 16,
	XIB_CM_REJ_INVALID_PACKET_RATE		= 17,
	XIB_CM_REJ_INVALID_ALT_GID		= 18,
	XIB_CM_REJ_PORT_CM_REDIRECT		= 24,
	XIB_CM_REJ_PORT_REDIRECT		= 25,
	XIB_CM_REJ_INVALID_MTU			= 26,
	XIB_CM_REJ_INSUFFICIENT_RESP_RESOURCES	= 27,
	XIB_CM_REJ_CONSUMER_DEFINED		= 28,
	XIB_CM_REJ_INVALID_RNR_RETRY		= 29,
	XIB_CM_REJ_DUPLICATE_LOCAL_COMM_ID	= 30,
	XIB_CM_REJ_INVALID_CLASS_VERSION	= 31,
	XIB_CM_REJ_INVALID_FLOW_LABEL		= 32,
	XIB_CM_REJ_INVALID_ALT_FLOW_LABEL	= 33,
	XIB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED	= 35,
};

/* SIDR_REP status (IBTA table 119). */
enum xib_cm_sidr_status {
	XIB_SIDR_SUCCESS		= 0,
	XIB_SIDR_UNSUPPORTED		= 1,
	XIB_SIDR_REJECT			= 2,
	XIB_SIDR_NO_QP			= 3,
	XIB_SIDR_REDIRECT		= 4,
	XIB_SIDR_UNSUPPORTED_VERSION	= 5,
};

/**
 * struct xib_cm_path - one path of a connection, as this end sees it
 * @port_num: local port (1-based)
 * @sgid_index: index of @sgid in the port's GID table
 * @sgid: local GID (network order)
 * @dgid: remote GID
 * @flow_label: 20 bits
 * @traffic_class: IP TOS / traffic class
 * @hop_limit: TTL / hop limit
 * @sl: service level (0..15)
 * @pkey: P_Key (0xffff on RoCE)
 * @mtu: enum xib_mtu
 * @rate: IBTA static rate (0: port rate)
 * @packet_life_time: 4.096 us * 2^n
 */
struct xib_cm_path {
	u32 port_num;
	u8 sgid_index;
	u8 sgid[16];
	u8 dgid[16];
	u32 flow_label;
	u8 traffic_class;
	u8 hop_limit;
	u8 sl;
	u16 pkey;
	u8 mtu;
	u8 rate;
	u8 packet_life_time;
};

/**
 * struct xib_cm_req_param - what xib_cm_send_req() sends, and what
 *	XIB_CM_REQ_RECEIVED reports (then @path is the receiver's view:
 *	sgid/dgid swapped, port and GID index where the REQ arrived)
 * @path: the primary path (no alternate paths on RoCE)
 * @service_id: the service the REQ is for
 * @qp_num: the sender's QP
 * @qp_type: XIB_QPT_RC, XIB_QPT_UC or XIB_QPT_XRC_SEND (an XRC initiator);
 *	received, the type the receiver serves it with: RC, UC or XIB_QPT_XRC_RECV
 * @starting_psn: the first PSN the sender's QP expects to receive, which
 *	the receiver's QP sends first (24 bits; Linux's ib_cm reads it so)
 * @private_data: up to XIB_CM_REQ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: its length (received: always the full size)
 * @responder_resources: RDMA READ/atomic the sender answers at once
 * @initiator_depth: RDMA READ/atomic the sender issues at once
 * @remote_cm_response_timeout: how long the peer waits for us, 0..31
 * @local_cm_response_timeout: how long we take to answer, 0..31
 * @flow_control: end-to-end flow control
 * @retry_count: transport retries of the QP (0..7)
 * @rnr_retry_count: RNR retries the peer's QP should use (0..7)
 * @max_cm_retries: REQ retransmissions (0..15)
 * @srq: the sender's QP uses an SRQ
 * @local_ack_timeout: the QP's local ACK timeout (0..31)
 * @qkey: Q_Key (UD only; unused for RC/UC)
 */
struct xib_cm_req_param {
	struct xib_cm_path path;
	__be64 service_id;
	u32 qp_num;
	enum xib_qp_type qp_type;
	u32 starting_psn;
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 remote_cm_response_timeout;
	u8 local_cm_response_timeout;
	bool flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 max_cm_retries;
	bool srq;
	u8 local_ack_timeout;
	u32 qkey;
};

/**
 * struct xib_cm_rep_param - what xib_cm_send_rep() sends and
 *	XIB_CM_REP_RECEIVED reports
 * @qp_num: the sender's QP (an XRC target's goes in the REP's local EECN,
 *	and @initiator_depth, @flow_control and @srq are then not sent: the
 *	REP says SRQ)
 * @starting_psn: the first PSN the sender's QP expects to receive, which
 *	the receiver's QP sends first
 * @private_data: up to XIB_CM_REP_PRIVATE_DATA_SIZE bytes
 * @private_data_len: its length
 * @responder_resources: at most the REQ's initiator depth
 * @initiator_depth: at most the REQ's responder resources
 * @failover_accepted: alternate path accepted (never, on RoCE)
 * @flow_control: end-to-end flow control
 * @rnr_retry_count: RNR retries the peer's QP should use
 * @srq: the sender's QP uses an SRQ
 * @target_ack_delay: 0..31
 */
struct xib_cm_rep_param {
	u32 qp_num;
	u32 starting_psn;
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	bool failover_accepted;
	bool flow_control;
	u8 rnr_retry_count;
	bool srq;
	u8 target_ack_delay;
};

/**
 * struct xib_cm_sidr_req_param - a SIDR request (UD service resolution)
 * @path: where to send it
 * @service_id: the service asked for
 * @timeout_ms: wait per attempt
 * @max_cm_retries: attempts after the first
 * @private_data: up to XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: its length
 */
struct xib_cm_sidr_req_param {
	struct xib_cm_path path;
	__be64 service_id;
	unsigned int timeout_ms;
	u8 max_cm_retries;
	const void *private_data;
	u8 private_data_len;
};

/**
 * struct xib_cm_sidr_rep_param - a SIDR reply
 * @qp_num: the UD QP that serves the request
 * @qkey: its Q_Key
 * @status: enum xib_cm_sidr_status
 * @info: additional information (redirect), up to
 *	XIB_CM_SIDR_REP_INFO_LENGTH bytes
 * @info_len: its length
 * @private_data: up to XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE bytes
 * @private_data_len: its length
 */
struct xib_cm_sidr_rep_param {
	u32 qp_num;
	u32 qkey;
	u8 status;
	const void *info;
	u8 info_len;
	const void *private_data;
	u8 private_data_len;
};

enum xib_cm_event_type {
	XIB_CM_REQ_ERROR,		/* no REP within the REQ's retries */
	XIB_CM_REQ_RECEIVED,		/* on a new id; @listen_id is set */
	XIB_CM_REP_ERROR,		/* no RTU within the REP's retries */
	XIB_CM_REP_RECEIVED,
	XIB_CM_RTU_RECEIVED,
	XIB_CM_USER_ESTABLISHED,	/* after xib_cm_establish() */
	XIB_CM_DREQ_ERROR,		/* no DREP: the id went to timewait */
	XIB_CM_DREQ_RECEIVED,
	XIB_CM_DREP_RECEIVED,
	XIB_CM_TIMEWAIT_EXIT,
	XIB_CM_MRA_RECEIVED,
	XIB_CM_REJ_RECEIVED,
	XIB_CM_SIDR_REQ_ERROR,		/* no SIDR_REP within the retries */
	XIB_CM_SIDR_REQ_RECEIVED,	/* on a new id; @listen_id is set */
	XIB_CM_SIDR_REP_RECEIVED,
};

/**
 * struct xib_cm_event - what happened on an id
 * @event: what
 * @listen_id: REQ_RECEIVED, SIDR_REQ_RECEIVED: the listener matched
 * @req: REQ_RECEIVED
 * @rep: REP_RECEIVED
 * @sidr_req: SIDR_REQ_RECEIVED (@path is the receiver's reply path)
 * @sidr_rep: SIDR_REP_RECEIVED
 * @rej_reason: REJ_RECEIVED: enum xib_cm_rej_reason
 * @ari: REJ_RECEIVED: additional rejection information
 * @ari_len: its length
 * @mra_service_timeout: MRA_RECEIVED: the peer's service timeout (0..31)
 * @private_data: the message's private data (all of its bytes), or NULL
 * @private_data_len: its length
 */
struct xib_cm_event {
	enum xib_cm_event_type event;
	struct xib_cm_id *listen_id;
	union {
		struct xib_cm_req_param req;
		struct xib_cm_rep_param rep;
		struct xib_cm_sidr_req_param sidr_req;
		struct xib_cm_sidr_rep_param sidr_rep;
		struct {
			u16 rej_reason;
			const void *ari;
			u8 ari_len;
		};
		u8 mra_service_timeout;
	};
	const void *private_data;
	u8 private_data_len;
};

struct xib_cm_id;
typedef int (*xib_cm_handler)(struct xib_cm_id *id,
			      const struct xib_cm_event *event);

/**
 * struct xib_cm_id - one end of a CM exchange
 * @device: the device the id is on
 * @handler: the consumer's event handler
 * @context: the consumer's
 * @service_id: the service (listener: what it listens on; connection:
 *	what the REQ named)
 * @local_id: this end's communication ID
 * @remote_id: the peer's communication ID (SIDR: the request ID), 0
 *	until known
 * @state: enum xib_cm_state (read-only for consumers; for diagnostics)
 *
 * The rest is private to the CM.
 */
struct xib_cm_id {
	struct xib_device *device;
	xib_cm_handler handler;
	void *context;
	__be64 service_id;
	__be32 local_id;
	__be32 remote_id;
	enum xib_cm_state state;
};

struct xib_cm_id *xib_cm_create_id(struct xib_device *dev,
				   xib_cm_handler handler, void *context);
void xib_cm_destroy_id(struct xib_cm_id *id);

int xib_cm_listen(struct xib_cm_id *id, __be64 service_id, __be64 mask);
int xib_cm_send_req(struct xib_cm_id *id, const struct xib_cm_req_param *p);
int xib_cm_send_rep(struct xib_cm_id *id, const struct xib_cm_rep_param *p);
int xib_cm_send_rtu(struct xib_cm_id *id, const void *private_data, u8 len);
int xib_cm_send_rej(struct xib_cm_id *id, enum xib_cm_rej_reason reason,
		    const void *ari, u8 ari_len, const void *private_data,
		    u8 len);
int xib_cm_send_mra(struct xib_cm_id *id, u8 service_timeout,
		    const void *private_data, u8 len);
int xib_cm_send_dreq(struct xib_cm_id *id, const void *private_data, u8 len);
int xib_cm_send_drep(struct xib_cm_id *id, const void *private_data, u8 len);
int xib_cm_establish(struct xib_cm_id *id);
int xib_cm_send_sidr_req(struct xib_cm_id *id,
			 const struct xib_cm_sidr_req_param *p);
int xib_cm_send_sidr_rep(struct xib_cm_id *id,
			 const struct xib_cm_sidr_rep_param *p);

/*
 * The QP attributes for moving the id's QP to @attr->qp_state (INIT, RTR
 * or RTS) as the exchanged REQ/REP say: on return @attr holds them and
 * @mask names them (enum xib_qp_attr_mask).  -EINVAL in a state where the
 * transition is not yet possible.
 */
int xib_cm_init_qp_attr(struct xib_cm_id *id, struct xib_uverbs_qp_attr *attr,
			u32 *mask);

#endif /* _XIB_CM_H */
