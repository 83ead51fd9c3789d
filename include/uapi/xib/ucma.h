/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib RDMA CM user/kernel ABI: the ioctl commands of /dev/xib/rdma_cm.
 *
 * Conventions
 * -----------
 * - Each open() of /dev/xib/rdma_cm is one event channel (struct
 *   rdma_event_channel).  A user (effective uid) may hold
 *   max_channels_per_user of them (xib_ucma module parameter, 256):
 *   beyond, open() fails with -EMFILE unless the process has
 *   CAP_SYS_RESOURCE; the count drops when the file's last reference is
 *   closed.  The ids it creates are named by id handles,
 *   small integers private to the file; each id also carries the "uid" its
 *   creator chose (librdmacm's struct rdma_cm_id pointer), which every
 *   event of the id echoes.  Closing the file (or the process dying)
 *   destroys every id and multicast membership of the file: connected ids
 *   disconnect (the peer sees DISCONNECTED), listeners stop, pending
 *   events are discarded.
 * - Every command is _IOWR(XIB_UCMA_IOCTL_MAGIC, nr, struct): one
 *   fixed-size structure, fields __u8 to __u64 with explicit padding,
 *   copied in, validated, and copied back out on success ("in" fields from
 *   user space, "out" fields from the kernel).  Fields named reserved* and
 *   every "out" field must be zero on input and unknown flag bits are
 *   refused: -EINVAL.  A failed command changes nothing.
 * - Values are librdmacm's: enum rdma_port_space (XIB_UCMA_PS_*), enum
 *   rdma_cm_event_type (XIB_UCMA_EVENT_*), the QP types and attribute
 *   masks of <uapi/xib/uverbs.h>, option levels and names of
 *   <rdma/rdma_cma.h>.
 * - Addresses are struct xib_ucma_addr: AF_INET or AF_INET6 (AF_IB is
 *   refused with -EAFNOSUPPORT), port and addresses in network order,
 *   family 0 meaning "none" where a command allows it.
 * - Private data: a connection's user private data goes in
 *   XIB_UCMA_MAX_PRIVATE_DATA bytes with a length; the kernel adds its
 *   own header where the port space needs one (the RDMA CM header of the
 *   TCP and UDP port spaces, 36 bytes of the REQ) and the limit for each
 *   command is the CM message's private data minus that header:
 *   XIB_UCMA_CONN_PDATA_MAX etc.  Longer is -EINVAL.
 * - Errors: -EINVAL bad argument or not allowed in the id's state,
 *   -ENOENT unknown handle, -EADDRINUSE / -EADDRNOTAVAIL as bind(2),
 *   -ENODEV no xib device serves the address (in the caller's network
 *   namespace), -EAFNOSUPPORT, -EOPNOTSUPP, -ENOMEM (including the
 *   per-file limits on ids and queued events), -EAGAIN (GET_EVENT on a
 *   non-blocking file with nothing queued), -EINTR, -EFAULT.
 * - Every id belongs to the caller's network namespace at CREATE_ID:
 *   addresses are resolved and bound there, and only devices of that
 *   namespace are used.
 *
 * Events
 * ------
 * Asynchronous results arrive as events, read one at a time with
 * GET_EVENT (poll() on the file says POLLIN when one is queued).  Every
 * event the file delivered for an id counts in that id's
 * "events_reported", which DESTROY_ID, MIGRATE_ID and LEAVE_MCAST return:
 * the library must not free its id until the application acknowledged
 * that many events (rdma_ack_cm_event), which is how "destroy waits for
 * acknowledgements" is kept without the kernel knowing of acks.  A
 * CONNECT_REQUEST event creates a new id on the listener's file; its
 * handle is in the event (@id), the listener's in @listen_id, and the uid
 * is the listener's until ACCEPT or MIGRATE_ID sets another.
 *
 * Commands
 * --------
 * XIB_UCMA_CREATE_ID
 *	A new id in port space ps (TCP, UDP, IB, IPOIB) with QP type qp_type
 *	(RC or UC for TCP; RC, UC, XRC_SEND or XRC_RECV for IB; UD for
 *	UDP/IPOIB; anything else is -EINVAL).  Returns its handle.  An
 *	XRC_SEND id connects an XRC initiator (its REQ has transport 3,
 *	extended transport type 1, as Linux's ib_cm sends); an XRC_RECV id
 *	listens for those only and accepts with an XRC target QP, whose
 *	number the REP carries as the local EE context number; the
 *	connection's other fields and events are an RC one's.
 * XIB_UCMA_DESTROY_ID
 *	Destroys the id (disconnecting, rejecting or leaving as its state
 *	requires) and discards its unread events; returns events_reported.
 * XIB_UCMA_BIND
 *	Binds to a local address (any address or a local one; port 0 picks
 *	a free port).  Binding to a specific address binds the id to the xib
 *	device of that address's interface.
 * XIB_UCMA_RESOLVE_ADDR
 *	Resolves dst (and binds to src if given and not yet bound):
 *	ADDR_RESOLVED or ADDR_ERROR within timeout_ms.  Then the id has a
 *	device and port (QUERY).
 * XIB_UCMA_RESOLVE_ROUTE
 *	ROUTE_RESOLVED or ROUTE_ERROR within timeout_ms.  On RoCE the path
 *	is built from IP routing; on an InfiniBand link layer it is a SA
 *	PathRecord query.
 * XIB_UCMA_QUERY
 *	What the id knows: addresses, device, port, GIDs, P_Key, the path.
 * XIB_UCMA_LISTEN
 *	Listens (the id must be bound; an unbound id binds to the wildcard
 *	address first).  backlog 0 means XIB_UCMA_MAX_BACKLOG, as in
 *	Linux's rdma_ucm; at most XIB_UCMA_MAX_BACKLOG connection requests
 *	are queued unanswered; more are not answered (the requester's CM
 *	sends the REQ again).
 * XIB_UCMA_CONNECT
 *	Sends the connection request (RC/UC) or SIDR request (UD) after
 *	ROUTE_RESOLVED.  Results: CONNECT_RESPONSE (when the id has no QP
 *	bound by the library, or always for RC/UC: the library moves the QP
 *	and then sends ESTABLISH), REJECTED, UNREACHABLE, CONNECT_ERROR;
 *	for UD: ESTABLISHED with the UD parameters, REJECTED, UNREACHABLE.
 * XIB_UCMA_ESTABLISH
 *	Active side, after CONNECT_RESPONSE: the QP is ready; sends the RTU.
 *	The passive side then gets ESTABLISHED.
 * XIB_UCMA_ACCEPT
 *	Passive side, on the id of a CONNECT_REQUEST: sends the REP (or the
 *	SIDR reply for UD); sets the id's uid.  ESTABLISHED follows when the
 *	RTU arrives (or the first packet, with NOTIFY).
 * XIB_UCMA_REJECT
 *	Passive side: rejects a connection request (REJ with reason
 *	CONSUMER_DEFINED and the private data) or a SIDR request.
 * XIB_UCMA_DISCONNECT
 *	Sends DREQ (or answers the peer's with DREP); DISCONNECTED follows,
 *	then TIMEWAIT_EXIT when the CM's timewait is over.
 * XIB_UCMA_INIT_QP_ATTR
 *	The attributes for moving the id's QP to qp_state (INIT, RTR, RTS,
 *	ERR), as struct xib_uverbs_qp_attr and mask, for the library's
 *	modify QP.  RTR and RTS need the connection's exchanged parameters.
 * XIB_UCMA_NOTIFY
 *	An asynchronous event of the id's QP the CM should know of
 *	(IBV_EVENT_COMM_EST: data arrived before the RTU).
 * XIB_UCMA_SET_OPTION
 *	RDMA_OPTION_ID: TOS (u8), REUSEADDR (int), AFONLY (int),
 *	ACK_TIMEOUT (u8); value in @value, its size in @optlen.
 *	RDMA_OPTION_IB_PATH is -EOPNOTSUPP on RoCE.
 * XIB_UCMA_JOIN_MCAST
 *	Joins the IP multicast group addr (224.0.0.0/4 or ff00::/8, of the
 *	id's family) with a UD id that has a device (bound to a specific
 *	address, or its address resolved), with join_flags 0 (FULLMEMBER:
 *	the id's interface joins the IP group, IGMP/MLD) or 1
 *	(SENDONLY_FULLMEMBER: it does not).  The MGID is derived as the
 *	Linux RDMA CM does on RoCEv2: IPv4 groups IPv4-mapped, IPv6 groups
 *	as they are.  MULTICAST_JOIN follows at once with the UD
 *	parameters (ah_attr with a GRH whose dgid is the MGID, the id's
 *	sgid index, hop limit 64 and TOS; qp_num 0xffffff; qkey 0x01234567)
 *	and the membership's handle in mc_id; MULTICAST_ERROR (-ENODEV)
 *	if the device goes away later.  Returns the membership's handle;
 *	uid is echoed in its events.  -EINVAL: unknown flags, no device, a
 *	non-UD id, another family, not a multicast address; -EADDRINUSE:
 *	the id joined addr already; -ENOMEM: the id has max_mcast_per_id
 *	groups (a module parameter of xib_ucma).
 * XIB_UCMA_LEAVE_MCAST
 *	Leaves the group (the id's interface leaves the IP group) and drops
 *	its unread events; returns the membership's events_reported.
 *	Destroying the id leaves its groups.
 * XIB_UCMA_MIGRATE_ID
 *	Moves the id (and its unread events) to the event channel open as
 *	fd; returns events_reported on the old channel.  Issued on the new
 *	channel's file.
 */
#ifndef _UAPI_XIB_UCMA_H
#define _UAPI_XIB_UCMA_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include "uverbs.h"	/* struct xib_uverbs_ah_attr, xib_uverbs_qp_attr */

#define XIB_UCMA_ABI_VERSION		1
#define XIB_UCMA_IOCTL_MAGIC		0xcb

#define XIB_UCMA_MAX_PRIVATE_DATA	224	/* event and command buffers */
#define XIB_UCMA_CONN_PDATA_MAX		56	/* REQ: 92 minus the 36-byte header */
#define XIB_UCMA_ACCEPT_PDATA_MAX	196	/* REP */
#define XIB_UCMA_REJECT_PDATA_MAX	148	/* REJ */
#define XIB_UCMA_SIDR_PDATA_MAX		180	/* SIDR_REQ: 216 minus the header */
#define XIB_UCMA_SIDR_REP_PDATA_MAX	136	/* SIDR_REP */
#define XIB_UCMA_MAX_BACKLOG		1024

/* Port spaces: enum rdma_port_space. */
enum xib_ucma_port_space {
	XIB_UCMA_PS_IPOIB = 0x0002,
	XIB_UCMA_PS_TCP = 0x0106,
	XIB_UCMA_PS_UDP = 0x0111,
	XIB_UCMA_PS_IB = 0x013f,
};

/* Events: enum rdma_cm_event_type. */
enum xib_ucma_event_type {
	XIB_UCMA_EVENT_ADDR_RESOLVED,
	XIB_UCMA_EVENT_ADDR_ERROR,
	XIB_UCMA_EVENT_ROUTE_RESOLVED,
	XIB_UCMA_EVENT_ROUTE_ERROR,
	XIB_UCMA_EVENT_CONNECT_REQUEST,
	XIB_UCMA_EVENT_CONNECT_RESPONSE,
	XIB_UCMA_EVENT_CONNECT_ERROR,
	XIB_UCMA_EVENT_UNREACHABLE,
	XIB_UCMA_EVENT_REJECTED,
	XIB_UCMA_EVENT_ESTABLISHED,
	XIB_UCMA_EVENT_DISCONNECTED,
	XIB_UCMA_EVENT_DEVICE_REMOVAL,
	XIB_UCMA_EVENT_MULTICAST_JOIN,
	XIB_UCMA_EVENT_MULTICAST_ERROR,
	XIB_UCMA_EVENT_ADDR_CHANGE,
	XIB_UCMA_EVENT_TIMEWAIT_EXIT,
};

/**
 * struct xib_ucma_addr - an IP address and port
 * @family: AF_INET, AF_INET6, or 0 for none
 * @port: network order
 * @flowinfo: IPv6 flow information (network order), 0 for IPv4
 * @addr: IPv4 in the first 4 bytes (rest zero), or IPv6
 * @scope_id: IPv6 scope (interface index), 0 for IPv4
 * @reserved: zero
 */
struct xib_ucma_addr {
	__u16 family;
	__be16 port;
	__be32 flowinfo;
	__u8 addr[16];
	__u32 scope_id;
	__u32 reserved;
};

/**
 * struct xib_ucma_path - the path of a route, as IBTA PathRecord fields
 *	(the values of struct ibv_sa_path_rec)
 * @dgid: the destination GID
 * @sgid: the source GID
 * @dlid: the destination LID; 0 (RoCE has no LIDs)
 * @slid: the source LID; 0
 * @flow_label: the IPv6 flow label, host order, 20 bits
 * @hop_limit: the IP hop limit (TTL)
 * @traffic_class: the IP traffic class (TOS)
 * @reversible: 1: the path is reversible
 * @numb_path: 1: one path
 * @pkey: the P_Key
 * @sl: the service level (0 to 15)
 * @mtu_selector: 2 ("exactly" @mtu)
 * @mtu: enum xib_mtu
 * @rate_selector: 2 ("exactly" @rate)
 * @rate: the IBTA static rate code
 * @packet_life_time_selector: 2 ("exactly" @packet_life_time)
 * @packet_life_time: 4.096 us * 2^@packet_life_time
 * @preference: 0
 * @raw_traffic: 0
 * @reserved: zero
 */
struct xib_ucma_path {
	__u8 dgid[16];
	__u8 sgid[16];
	__be16 dlid;
	__be16 slid;
	__u32 flow_label;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reversible;
	__u8 numb_path;
	__be16 pkey;
	__u8 sl;
	__u8 mtu_selector;
	__u8 mtu;
	__u8 rate_selector;
	__u8 rate;
	__u8 packet_life_time_selector;
	__u8 packet_life_time;
	__u8 preference;
	__u8 raw_traffic;
	__u8 reserved[9];
};

/**
 * struct xib_ucma_conn_param - rdma_conn_param, and the private data
 * @private_data: the user's bytes
 * @private_data_len: how many
 * @responder_resources: RDMA READs and atomics this side answers at once
 * @initiator_depth: RDMA READs and atomics this side issues at once
 * @flow_control: nonzero: end-to-end flow control
 * @retry_count: transport retries of the QP (above 7 is taken as 7)
 * @rnr_retry_count: RNR retries (7: infinite; above 7 is taken as 7)
 * @srq: nonzero: the QP receives from an SRQ
 * @reserved0: zero
 * @qp_num: the QP number (24 bits)
 * @qkey: UD: the Q_Key (SIDR reply, ACCEPT of a UD id)
 * @ece_vendor_id: enhanced connection establishment (struct ibv_ece):
 *	the vendor id; 0 when unused
 * @ece_attr_mod: ECE: the attribute modifier; 0 when unused
 * @reserved: zero
 *
 * The fields from @responder_resources to @qp_num are those of struct
 * rdma_conn_param.
 */
struct xib_ucma_conn_param {
	__u8 private_data[XIB_UCMA_MAX_PRIVATE_DATA];
	__u8 private_data_len;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 reserved0;
	__u32 qp_num;
	__u32 qkey;
	__u32 ece_vendor_id;
	__u32 ece_attr_mod;
	__u32 reserved[2];
};

/**
 * struct xib_ucma_ud_param - rdma_ud_param: where a UD peer or group is
 * @ah_attr: the address (GRH and port) to create an AH with
 * @qp_num: the remote QP (0xffffff for a multicast group)
 * @qkey: its Q_Key
 * @reserved: zero
 */
struct xib_ucma_ud_param {
	struct xib_uverbs_ah_attr ah_attr;
	__u32 qp_num;
	__u32 qkey;
	__u32 reserved[2];
};

struct xib_ucma_create_id {
	__aligned_u64 uid;		/* in */
	__u32 ps;			/* in: enum xib_ucma_port_space */
	__u32 qp_type;			/* in: enum xib_qp_type */
	__u32 id;			/* out */
	__u32 reserved;
};

struct xib_ucma_destroy_id {
	__u32 id;			/* in */
	__u32 events_reported;		/* out */
};

struct xib_ucma_bind {
	__u32 id;			/* in */
	__u32 reserved;
	struct xib_ucma_addr addr;	/* in */
};

struct xib_ucma_resolve_addr {
	__u32 id;			/* in */
	__u32 timeout_ms;		/* in: 1 .. 3600000 */
	struct xib_ucma_addr src;	/* in: family 0: none */
	struct xib_ucma_addr dst;	/* in */
};

struct xib_ucma_resolve_route {
	__u32 id;			/* in */
	__u32 timeout_ms;		/* in: 1 .. 3600000 */
};

/**
 * struct xib_ucma_query - XIB_UCMA_QUERY
 * @id: in: the id
 * @reserved: zero
 * @src: out: the bound local address (family 0: unbound)
 * @dst: out: the peer's address (family 0: none yet)
 * @node_guid: out: the device's node GUID (0: no device yet)
 * @dev_index: out: the xib device index (XIB_ATTR_DEV_INDEX), when
 *	@node_guid is set
 * @port_num: out: the port (0: none)
 * @pkey: out: the P_Key
 * @state: out: the id's state, for diagnostics (enum in cma.c)
 * @num_paths: out: paths in @path (0 or 1)
 * @reserved1: zero
 * @sgid: out: the source GID
 * @dgid: out: the destination GID
 * @path: out: the resolved path
 */
struct xib_ucma_query {
	__u32 id;
	__u32 reserved;
	struct xib_ucma_addr src;
	struct xib_ucma_addr dst;
	__aligned_u64 node_guid;
	__u32 dev_index;
	__u8 port_num;
	__u8 state;
	__be16 pkey;
	__u32 num_paths;
	__u32 reserved1;
	__u8 sgid[16];
	__u8 dgid[16];
	struct xib_ucma_path path;
};

struct xib_ucma_listen {
	__u32 id;			/* in */
	__u32 backlog;			/* in */
};

struct xib_ucma_connect {
	__u32 id;			/* in */
	__u32 reserved;
	struct xib_ucma_conn_param param;	/* in */
};

struct xib_ucma_establish {
	__u32 id;			/* in */
	__u32 reserved;
};

struct xib_ucma_accept {
	__aligned_u64 uid;		/* in: the id's uid from now on */
	__u32 id;			/* in */
	__u32 reserved;
	struct xib_ucma_conn_param param;	/* in */
};

struct xib_ucma_reject {
	__u32 id;			/* in */
	__u8 reason;			/* in: 0: CONSUMER_DEFINED */
	__u8 private_data_len;		/* in */
	__u16 reserved;
	__u8 private_data[XIB_UCMA_MAX_PRIVATE_DATA];	/* in */
	__u32 ece_vendor_id;		/* in */
	__u32 ece_attr_mod;		/* in */
};

struct xib_ucma_disconnect {
	__u32 id;			/* in */
	__u32 reserved;
};

struct xib_ucma_init_qp_attr {
	__u32 id;			/* in */
	__u32 qp_state;			/* in: enum xib_qp_state */
	__u32 attr_mask;		/* out: enum xib_qp_attr_mask */
	__u32 reserved;
	struct xib_uverbs_qp_attr attr;	/* out */
};

struct xib_ucma_notify {
	__u32 id;			/* in */
	__u32 event;			/* in: enum xib_event_type (COMM_EST) */
};

struct xib_ucma_set_option {
	__u32 id;			/* in */
	__u32 level;			/* in: RDMA_OPTION_ID, RDMA_OPTION_IB */
	__u32 optname;			/* in */
	__u32 optlen;			/* in: bytes of @value used */
	__aligned_u64 value;		/* in: u8 or int value, zero-extended */
};

struct xib_ucma_join_mcast {
	__aligned_u64 uid;		/* in: echoed in its events */
	__u32 id;			/* in */
	__u32 join_flags;		/* in: RDMA_MC_JOIN_FLAG_* */
	struct xib_ucma_addr addr;	/* in: the group */
	__u32 mc_id;			/* out: membership handle */
	__u32 reserved;
};

struct xib_ucma_leave_mcast {
	__u32 mc_id;			/* in */
	__u32 events_reported;		/* out */
};

struct xib_ucma_migrate_id {
	__u32 id;			/* in: handle on the old file */
	__s32 fd;			/* in: the old channel's fd */
	__u32 new_id;			/* out: handle on this file */
	__u32 events_reported;		/* out: on the old channel */
};

/**
 * struct xib_ucma_event - XIB_UCMA_GET_EVENT: one event (all "out"
 *	fields; blocks until one is queued unless the file is O_NONBLOCK)
 * @uid: the id's uid (the membership's, for multicast events)
 * @id: the id's handle (CONNECT_REQUEST: the new id)
 * @listen_id: CONNECT_REQUEST: the listener's handle
 * @event: enum xib_ucma_event_type
 * @status: 0 or a negative errno; REJECTED: the REJ reason (positive)
 * @mc_id: multicast events: the membership
 * @reserved: zero
 * @conn: connection events: what the peer sent
 * @ud: UD events (ESTABLISHED of a UD id, MULTICAST_JOIN)
 */
struct xib_ucma_event {
	__aligned_u64 uid;
	__u32 id;
	__u32 listen_id;
	__u32 event;
	__s32 status;
	__u32 mc_id;
	__u32 reserved;
	struct xib_ucma_conn_param conn;
	struct xib_ucma_ud_param ud;
};

#define XIB_UCMA_IO(nr, type) _IOWR(XIB_UCMA_IOCTL_MAGIC, nr, type)

#define XIB_UCMA_CREATE_ID	XIB_UCMA_IO(0x00, struct xib_ucma_create_id)
#define XIB_UCMA_DESTROY_ID	XIB_UCMA_IO(0x01, struct xib_ucma_destroy_id)
#define XIB_UCMA_BIND		XIB_UCMA_IO(0x02, struct xib_ucma_bind)
#define XIB_UCMA_RESOLVE_ADDR	XIB_UCMA_IO(0x03, struct xib_ucma_resolve_addr)
#define XIB_UCMA_RESOLVE_ROUTE	XIB_UCMA_IO(0x04, struct xib_ucma_resolve_route)
#define XIB_UCMA_QUERY		XIB_UCMA_IO(0x05, struct xib_ucma_query)
#define XIB_UCMA_LISTEN		XIB_UCMA_IO(0x06, struct xib_ucma_listen)
#define XIB_UCMA_CONNECT	XIB_UCMA_IO(0x07, struct xib_ucma_connect)
#define XIB_UCMA_ESTABLISH	XIB_UCMA_IO(0x08, struct xib_ucma_establish)
#define XIB_UCMA_ACCEPT		XIB_UCMA_IO(0x09, struct xib_ucma_accept)
#define XIB_UCMA_REJECT		XIB_UCMA_IO(0x0a, struct xib_ucma_reject)
#define XIB_UCMA_DISCONNECT	XIB_UCMA_IO(0x0b, struct xib_ucma_disconnect)
#define XIB_UCMA_INIT_QP_ATTR	XIB_UCMA_IO(0x0c, struct xib_ucma_init_qp_attr)
#define XIB_UCMA_NOTIFY		XIB_UCMA_IO(0x0d, struct xib_ucma_notify)
#define XIB_UCMA_SET_OPTION	XIB_UCMA_IO(0x0e, struct xib_ucma_set_option)
#define XIB_UCMA_JOIN_MCAST	XIB_UCMA_IO(0x0f, struct xib_ucma_join_mcast)
#define XIB_UCMA_LEAVE_MCAST	XIB_UCMA_IO(0x10, struct xib_ucma_leave_mcast)
#define XIB_UCMA_MIGRATE_ID	XIB_UCMA_IO(0x11, struct xib_ucma_migrate_id)
#define XIB_UCMA_GET_EVENT	XIB_UCMA_IO(0x12, struct xib_ucma_event)

#endif /* _UAPI_XIB_UCMA_H */
