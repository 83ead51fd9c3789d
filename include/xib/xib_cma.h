/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib RDMA CM: the in-kernel connection manager API of xib_cma (like
 * rdma_cm.h).  An id (struct xib_cma_id) names one end of a connection,
 * a listener or a UD endpoint, addressed by IP; the CM resolves IP
 * addresses to an xib device, port and GIDs, builds the RoCE path from IP
 * routing and runs the connection over the IB CM (xib_cm.h).
 *
 * States: enum xib_cma_state.  Which call or event is legal in which
 * state, and where it leads, is one table (cma_state.c,
 * xib_cma_next_state()); a call in a state that does not allow it fails
 * with -EINVAL and changes nothing.
 *
 * Events are delivered by calling the id's handler in process context,
 * one at a time per id, under the id's handler lock.  The handler must
 * not destroy its id; returning non-zero from CONNECT_REQUEST refuses the
 * request (the new id is destroyed).  Private data in an event is valid
 * only during the call.
 */
#ifndef _XIB_CMA_H
#define _XIB_CMA_H

#include <linux/socket.h>
#include <linux/types.h>
#include <xib/xib_cm.h>
#include <xib/xib_verbs.h>

/* Port spaces (enum rdma_port_space). */
enum xib_cma_ps {
	XIB_CMA_PS_IPOIB	= 0x0002,
	XIB_CMA_PS_TCP		= 0x0106,
	XIB_CMA_PS_UDP		= 0x0111,
	XIB_CMA_PS_IB		= 0x013f,
};

/* Events (the values of enum rdma_cm_event_type). */
enum xib_cma_event_type {
	XIB_CMA_EVENT_ADDR_RESOLVED,
	XIB_CMA_EVENT_ADDR_ERROR,
	XIB_CMA_EVENT_ROUTE_RESOLVED,
	XIB_CMA_EVENT_ROUTE_ERROR,
	XIB_CMA_EVENT_CONNECT_REQUEST,
	XIB_CMA_EVENT_CONNECT_RESPONSE,
	XIB_CMA_EVENT_CONNECT_ERROR,
	XIB_CMA_EVENT_UNREACHABLE,
	XIB_CMA_EVENT_REJECTED,
	XIB_CMA_EVENT_ESTABLISHED,
	XIB_CMA_EVENT_DISCONNECTED,
	XIB_CMA_EVENT_DEVICE_REMOVAL,
	XIB_CMA_EVENT_MULTICAST_JOIN,
	XIB_CMA_EVENT_MULTICAST_ERROR,
	XIB_CMA_EVENT_ADDR_CHANGE,
	XIB_CMA_EVENT_TIMEWAIT_EXIT,
};

/* States of an id (those of the kernel's rdma_cm). */
enum xib_cma_state {
	XIB_CMA_IDLE,
	XIB_CMA_ADDR_QUERY,
	XIB_CMA_ADDR_RESOLVED,
	XIB_CMA_ROUTE_QUERY,
	XIB_CMA_ROUTE_RESOLVED,
	XIB_CMA_CONNECT,
	XIB_CMA_ESTABLISHED,
	XIB_CMA_DISCONNECT,
	XIB_CMA_ADDR_BOUND,
	XIB_CMA_LISTEN,
	XIB_CMA_DEVICE_REMOVAL,
	XIB_CMA_DESTROYING,
	XIB_CMA_STATE_MAX
};

/* What can happen to an id: the columns of the state table. */
enum xib_cma_op {
	XIB_CMA_OP_BIND,
	XIB_CMA_OP_RESOLVE_ADDR,
	XIB_CMA_OP_ADDR_DONE,		/* resolved */
	XIB_CMA_OP_ADDR_FAIL,		/* error or timeout */
	XIB_CMA_OP_RESOLVE_ROUTE,
	XIB_CMA_OP_ROUTE_DONE,
	XIB_CMA_OP_ROUTE_FAIL,
	XIB_CMA_OP_LISTEN,
	XIB_CMA_OP_CONNECT,		/* active: REQ or SIDR_REQ sent */
	XIB_CMA_OP_REQ_RCVD,		/* passive: the new id of a request */
	XIB_CMA_OP_ACCEPT,
	XIB_CMA_OP_REJECT,
	XIB_CMA_OP_REP_RCVD,		/* active: CONNECT_RESPONSE */
	XIB_CMA_OP_ESTABLISHED,		/* RTU sent or received; SIDR_REP ok */
	XIB_CMA_OP_CONN_FAIL,		/* REJ, timeout, unreachable */
	XIB_CMA_OP_DISCONNECT,		/* local DREQ/DREP */
	XIB_CMA_OP_DISCONNECTED,	/* the peer's DREQ, or DREP/timeout */
	XIB_CMA_OP_DEVICE_REMOVAL,
	XIB_CMA_OP_DESTROY,
	XIB_CMA_OP_JOIN_MCAST,		/* join or leave a multicast group */
	XIB_CMA_OP_MAX
};

int xib_cma_next_state(enum xib_cma_state state, enum xib_cma_op op);

/* The RDMA CM header of the TCP and UDP port spaces. */
#define XIB_CMA_HDR_SIZE	36
#define XIB_CMA_VERSION		0x00

/**
 * struct xib_cma_hdr_info - the decoded RDMA CM private-data header
 * @src: the active side's address and port
 * @dst: the passive side's address (its port is the service's)
 */
struct xib_cma_hdr_info {
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
};

int xib_cma_hdr_encode(u8 hdr[XIB_CMA_HDR_SIZE], const struct sockaddr *src,
		       const struct sockaddr *dst);
int xib_cma_hdr_decode(const u8 *buf, size_t len,
		       struct xib_cma_hdr_info *info);
__be64 xib_cma_service_id(enum xib_cma_ps ps, u16 port);

/**
 * struct xib_cma_conn_param - what a connect, accept or reject sends, and
 *	what a connection event received
 * @private_data: the user's bytes (the CM header is the CM's)
 * @private_data_len: their length
 * @responder_resources: RDMA READs and atomics this side answers at once
 * @initiator_depth: RDMA READs and atomics this side issues at once
 * @flow_control: nonzero: end-to-end flow control
 * @retry_count: transport retries of the QP (above 7 is taken as 7)
 * @rnr_retry_count: RNR retries (7: infinite; above 7 is taken as 7)
 * @srq: nonzero: the QP receives from an SRQ
 * @qp_num: the QP number: this side's when sent, the peer's when received
 * @qkey: UD: the Q_Key
 *
 * The fields from @responder_resources to @qp_num are those of struct
 * rdma_conn_param; received values are already turned to this side's
 * view (the peer's initiator depth is our responder resources).
 */
struct xib_cma_conn_param {
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 srq;
	u32 qp_num;
	u32 qkey;
};

/**
 * struct xib_cma_event - what happened
 * @event: enum xib_cma_event_type
 * @status: 0 or a negative errno; REJECTED: the REJ reason
 * @listen_id: CONNECT_REQUEST: the listener (the handler's id is new)
 * @param: connection events: what the peer sent
 * @ah_attr: UD events: the peer's address
 * @ud_qp_num: UD events: the peer's QP number
 * @ud_qkey: UD events: the peer's Q_Key
 * @mc_context: multicast events: the context of the membership, as
 *	given to xib_cma_join_multicast()
 *
 * A MULTICAST_JOIN carries the group's address in @ah_attr (the MGID as
 * destination GID, the id's source GID index, hop limit and traffic
 * class), @ud_qp_num 0xffffff and the Q_Key in @ud_qkey.
 */
struct xib_cma_event {
	enum xib_cma_event_type event;
	int status;
	struct xib_cma_id *listen_id;
	struct xib_cma_conn_param param;
	struct xib_uverbs_ah_attr ah_attr;
	u32 ud_qp_num;
	u32 ud_qkey;
	void *mc_context;
};

struct xib_cma_id;
typedef int (*xib_cma_handler)(struct xib_cma_id *id,
			       const struct xib_cma_event *event);

/**
 * struct xib_cma_id - an RDMA CM identifier
 * @handler: the consumer's event handler
 * @context: the consumer's
 * @ps: port space
 * @qp_type: XIB_QPT_RC, UC, UD, XRC_SEND or XRC_RECV (IB port space)
 *
 * The rest is private to the CM; read it with xib_cma_query().
 */
struct xib_cma_id {
	xib_cma_handler handler;
	void *context;
	enum xib_cma_ps ps;
	enum xib_qp_type qp_type;
};

/**
 * struct xib_cma_info - what xib_cma_query() reports
 * @src: the bound address (family AF_UNSPEC: none)
 * @dst: the peer's address (family AF_UNSPEC: none)
 * @state: enum xib_cma_state
 * @device: the device (a reference the caller drops with
 *	xib_device_put()), or NULL
 * @port_num: the port, 0 without a device
 * @path: the route (valid if @num_paths)
 * @num_paths: 0 or 1
 */
struct xib_cma_info {
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	enum xib_cma_state state;
	struct xib_device *device;
	u32 port_num;
	struct xib_cm_path path;
	u32 num_paths;
};

/* Join flags of xib_cma_join_multicast() (RDMA_MC_JOIN_FLAG_*). */
enum xib_cma_join_flag {
	XIB_CMA_JOIN_FULLMEMBER			= 0,
	XIB_CMA_JOIN_SENDONLY_FULLMEMBER	= 1,
};

/* The Q_Key of the UDP and IPoIB port spaces (RDMA_UDP_QKEY). */
#define XIB_CMA_UDP_QKEY		0x01234567

/* Options of xib_cma_set_option() (RDMA_OPTION_ID_*). */
enum xib_cma_option {
	XIB_CMA_OPT_TOS		= 0,
	XIB_CMA_OPT_REUSEADDR	= 1,
	XIB_CMA_OPT_AFONLY	= 2,
	XIB_CMA_OPT_ACK_TIMEOUT	= 3,
};

struct xib_cma_id *xib_cma_create_id(struct net *net, xib_cma_handler handler,
				     void *context, enum xib_cma_ps ps,
				     enum xib_qp_type qp_type,
				     struct task_struct *owner);
void xib_cma_destroy_id(struct xib_cma_id *id);
int xib_cma_bind_addr(struct xib_cma_id *id, const struct sockaddr *addr);
int xib_cma_resolve_addr(struct xib_cma_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, unsigned int timeout_ms);
int xib_cma_resolve_route(struct xib_cma_id *id, unsigned int timeout_ms);
int xib_cma_listen(struct xib_cma_id *id, unsigned int backlog);
int xib_cma_connect(struct xib_cma_id *id,
		    const struct xib_cma_conn_param *param);
int xib_cma_accept(struct xib_cma_id *id,
		   const struct xib_cma_conn_param *param);
int xib_cma_reject(struct xib_cma_id *id, enum xib_cm_rej_reason reason,
		   const void *private_data, u8 len);
int xib_cma_establish(struct xib_cma_id *id);
int xib_cma_disconnect(struct xib_cma_id *id);
int xib_cma_init_qp_attr(struct xib_cma_id *id,
			 struct xib_uverbs_qp_attr *attr, u32 *mask);
int xib_cma_notify(struct xib_cma_id *id, enum xib_event_type event);
int xib_cma_set_option(struct xib_cma_id *id, enum xib_cma_option opt,
		       u64 value);
int xib_cma_query(struct xib_cma_id *id, struct xib_cma_info *info);
int xib_cma_join_multicast(struct xib_cma_id *id, const struct sockaddr *addr,
			   u32 join_flags, void *context);
int xib_cma_leave_multicast(struct xib_cma_id *id, const struct sockaddr *addr);
void xib_cma_lock_handler(struct xib_cma_id *id);
void xib_cma_unlock_handler(struct xib_cma_id *id);

#endif /* _XIB_CMA_H */
