/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib MAD layer: management datagrams over QP1 (the GSI) of every port.
 *
 * The layer lives in xib_core.  Drivers carry the datagrams
 * (xib_device_ops.post_mad and xib_mad_recv()); agents (the IB CM, the SA
 * client, test responders) register for a management class and version
 * and send and receive 256-byte MADs.
 *
 * On the wire a GSI datagram is a UD SEND from QP1 to the peer's QP
 * (normally 1) with Q_Key XIB_QP1_QKEY and the default P_Key, exactly as
 * rdma_rxe and RoCE NICs send it; on RoCEv2 the GRH is the IP header, so
 * an address is a GID pair (struct xib_uverbs_ah_attr) and the reply to a
 * received MAD goes to the source GID and QPN it came from.
 *
 * Sends
 * -----
 * A send is a struct xib_mad_send the agent allocates, fills (@mad, @addr,
 * @timeout_ms, @retries, @context) and posts.  The MAD layer gives a
 * request the agent's transaction ID space (the high 32 bits of the TID
 * are the agent's; the agent chooses the low 32 bits, or leaves the TID
 * zero to have one assigned).  A send with @timeout_ms == 0 completes as
 * soon as the driver took it.  A send with @timeout_ms > 0 waits for a
 * response: it is sent again every @timeout_ms up to @retries times and
 * completes with
 *  - 0 when a response matched it (a MAD of the same class whose method
 *    has the response bit (0x80) set and whose TID is the send's; the
 *    response goes to the agent's @recv with the send as @req), or
 *  - -ETIMEDOUT when it was sent 1 + @retries times without a response,
 *  - -ECANCELED when xib_mad_cancel() (or unregistration) ended it.
 * Protocols whose replies are not "response" methods (the IB CM: REP
 * answers REQ, both method Send) cancel their send when the reply comes,
 * and xib_mad_modify() stretches the wait (an MRA); they set
 * XIB_MAD_SEND_NO_MATCH so that no datagram a peer makes up can complete
 * the send early, and XIB_MAD_SEND_KEEP_TID on a message that answers
 * the peer's, which carries the peer's TID unchanged.
 * @send_done is called exactly once per posted send, in process context
 * (the MAD layer's workqueue), never from inside xib_mad_post_send(),
 * xib_mad_cancel() or xib_mad_modify(); after it returns the agent may
 * free or repost the send.
 *
 * Receives
 * --------
 * The driver passes each datagram that arrived for QP1 to xib_mad_recv()
 * (any context).  The MAD layer copies it, queues it (a bounded backlog
 * per device; excess datagrams are dropped and counted) and, in process
 * context, hands it to the agent of its class and version: responses to
 * the agent whose TID space they name, requests to the agent registered
 * for the class.  A MAD nobody takes is dropped and counted.  Base
 * version 1 only; malformed datagrams (shorter than XIB_MAD_SIZE) are
 * dropped by the driver or here.
 *
 * Concurrency: every callback runs in process context from one ordered
 * workqueue per device, so callbacks of one device never run
 * concurrently with each other; they may sleep and may post, cancel and
 * modify sends, but must not unregister their own agent.
 * xib_mad_unregister_agent() cancels the agent's outstanding sends, waits
 * until their @send_done and every running callback returned, and then
 * no callback runs any more.
 */
#ifndef _XIB_MAD_H
#define _XIB_MAD_H

#include <linux/bits.h>
#include <linux/types.h>
#include <xib/xib_verbs.h>

#define XIB_MAD_SIZE		256
#define XIB_MAD_HDR_SIZE	24
#define XIB_MAD_DATA_SIZE	(XIB_MAD_SIZE - XIB_MAD_HDR_SIZE)
#define XIB_QP1_QKEY		0x80010000U
#define XIB_MAD_BASE_VERSION	1

/* Management classes and methods the stack uses (IBTA 13.4.4, 13.4.5). */
#define XIB_MGMT_CLASS_SUBN_ADM		0x03	/* SA */
#define XIB_MGMT_CLASS_CM		0x07
#define XIB_MGMT_METHOD_GET		0x01
#define XIB_MGMT_METHOD_SET		0x02
#define XIB_MGMT_METHOD_SEND		0x03
#define XIB_MGMT_METHOD_GET_RESP	0x81
#define XIB_MGMT_METHOD_RESP		0x80	/* the response bit */
#define XIB_SA_METHOD_GET_TABLE		0x12
#define XIB_SA_METHOD_GET_TABLE_RESP	0x92
#define XIB_SA_METHOD_DELETE		0x15
#define XIB_SA_METHOD_DELETE_RESP	0x95

/**
 * struct xib_mad_hdr - the common MAD header (IBTA 13.4.3), network order
 * @base_version: XIB_MAD_BASE_VERSION
 * @mgmt_class: management class
 * @class_version: version of the class
 * @method: method; bit 7 set in responses
 * @status: status of a response
 * @class_specific: class-specific field
 * @tid: transaction ID
 * @attr_id: attribute ID
 * @resv: reserved, zero
 * @attr_mod: attribute modifier
 */
struct xib_mad_hdr {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method;
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
} __packed;

static_assert(sizeof(struct xib_mad_hdr) == XIB_MAD_HDR_SIZE);

/**
 * struct xib_mad - a whole MAD
 * @hdr: the common header
 * @data: the class's payload
 */
struct xib_mad {
	struct xib_mad_hdr hdr;
	u8 data[XIB_MAD_DATA_SIZE];
} __packed;

static_assert(sizeof(struct xib_mad) == XIB_MAD_SIZE);

/**
 * struct xib_mad_addr - where a GSI datagram goes
 * @ah: the address vector (port_num, sgid_index, dgid, hop_limit,
 *	traffic_class, flow_label, sl; is_global is always 1 on RoCE)
 * @remote_qpn: destination QP, normally 1
 * @remote_qkey: XIB_QP1_QKEY for QP1
 * @pkey_index: P_Key index (0: the default P_Key)
 */
struct xib_mad_addr {
	struct xib_uverbs_ah_attr ah;
	u32 remote_qpn;
	u32 remote_qkey;
	u16 pkey_index;
};

/**
 * struct xib_mad_recv - one received datagram, as the driver reports it
 * @port_num: the port it arrived on (1-based)
 * @src_qpn: the sender's QP (DETH source QP)
 * @pkey: the BTH P_Key
 * @sgid: the sender's GID (the IP source; IPv4-mapped for IPv4)
 * @dgid: the GID it was sent to (the IP destination)
 * @hop_limit: TTL / hop limit as received
 * @traffic_class: TOS / traffic class as received
 * @flow_label: IPv6 flow label (0 for IPv4)
 * @ipv6: it came over IPv6
 * @mad: the payload, XIB_MAD_SIZE bytes
 */
struct xib_mad_recv {
	u32 port_num;
	u32 src_qpn;
	u16 pkey;
	u8 sgid[16];
	u8 dgid[16];
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	bool ipv6;
	struct xib_mad mad;
};

struct xib_mad_agent;

/*
 * Flags of a send.  KEEP_TID: the TID is sent as the agent set it (a
 * message in the peer's transaction); such a send is never matched by a
 * response.  NO_MATCH: no response completes the send; it ends by
 * timeout or xib_mad_cancel().
 */
#define XIB_MAD_SEND_KEEP_TID	BIT(0)
#define XIB_MAD_SEND_NO_MATCH	BIT(1)
#define XIB_MAD_SEND_FLAGS	(XIB_MAD_SEND_KEEP_TID | XIB_MAD_SEND_NO_MATCH)

/**
 * struct xib_mad_send - one MAD to send, owned by its agent
 * @agent: set by xib_mad_alloc_send()
 * @mad: what to send; the TID's high 32 bits are set by the MAD layer
 * @addr: where to
 * @timeout_ms: 0: no response is awaited; else the wait per attempt
 * @retries: attempts after the first when no response comes
 * @flags: XIB_MAD_SEND_*
 * @context: the agent's
 * @list: private: on the device's list of sends awaiting a response (if
 *	@timeout_ms), then on its list of completed sends; under the MAD
 *	layer's per-device lock
 * @sent: private: transmissions so far (the first and the retries)
 * @deadline: private: when the current attempt times out (jiffies)
 * @status: private: what send_done reports (0, -ETIMEDOUT, -ECANCELED or
 *	the driver's error)
 * @posted: private: set by xib_mad_post_send(), cleared when the send
 *	completes, just before send_done
 *
 * The fields from @list on are private to the MAD layer.
 */
struct xib_mad_send {
	struct xib_mad_agent *agent;
	struct xib_mad mad;
	struct xib_mad_addr addr;
	unsigned int timeout_ms;
	unsigned int retries;
	unsigned int flags;
	void *context;
	struct list_head list;
	unsigned int sent;
	unsigned long deadline;
	int status;
	bool posted;
};

/**
 * struct xib_mad_agent_ops - what an agent registers
 * @mgmt_class: the management class it serves
 * @class_version: and its version
 * @requests: it receives requests of the class (methods without the
 *	response bit); at most one such agent per class, version and
 *	port (-EBUSY).  Agents that only send requests and take their
 *	responses leave it false.
 * @recv: a received MAD for the agent; @req is the send it answers (the
 *	send's @send_done follows with 0), or NULL
 * @send_done: a posted send completed (status above)
 */
struct xib_mad_agent_ops {
	u8 mgmt_class;
	u8 class_version;
	bool requests;
	void (*recv)(struct xib_mad_agent *agent,
		     const struct xib_mad_recv *recv,
		     struct xib_mad_send *req);
	void (*send_done)(struct xib_mad_agent *agent,
			  struct xib_mad_send *send, int status);
};

/**
 * struct xib_mad_agent - a registered agent
 * @device: the device
 * @port_num: the port (1-based)
 * @ops: what it registered
 * @context: the registrant's
 *
 * The rest is private to the MAD layer.
 */
struct xib_mad_agent {
	struct xib_device *device;
	u32 port_num;
	const struct xib_mad_agent_ops *ops;
	void *context;
};

struct xib_mad_agent *xib_mad_register_agent(struct xib_device *dev,
					     u32 port_num,
					     const struct xib_mad_agent_ops *ops,
					     void *context);
void xib_mad_unregister_agent(struct xib_mad_agent *agent);

struct xib_mad_send *xib_mad_alloc_send(struct xib_mad_agent *agent,
					gfp_t gfp);
void xib_mad_free_send(struct xib_mad_send *send);
int xib_mad_post_send(struct xib_mad_send *send);
void xib_mad_cancel(struct xib_mad_send *send);
int xib_mad_modify(struct xib_mad_send *send, unsigned int timeout_ms);

/* An address that answers @recv: its source GID and QP, our GID. */
int xib_mad_addr_reply(struct xib_device *dev, const struct xib_mad_recv *recv,
		       struct xib_mad_addr *addr);

/* For drivers: a datagram arrived for QP1.  Any context. */
void xib_mad_recv(struct xib_device *dev, const struct xib_mad_recv *recv);

#endif /* _XIB_MAD_H */
