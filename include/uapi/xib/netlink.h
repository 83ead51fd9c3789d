/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib generic-netlink interface.
 *
 * The family is named XIB_GENL_NAME ("xib") and is resolved through the
 * generic-netlink controller like any other family.  It is net-namespace
 * aware: a request sees only the devices of the requester's namespace.
 * Version XIB_GENL_VERSION; attributes are only ever added, never renumbered.
 *
 * Commands
 * --------
 * XIB_CMD_DEV_GET
 *	doit: request carries XIB_ATTR_DEV_INDEX or XIB_ATTR_DEV_NAME (if both
 *	are given they must name the same device); the reply is one message
 *	describing that device.  -ENODEV if it does not exist in the caller's
 *	namespace, -EINVAL if neither attribute is present.
 *	dumpit (NLM_F_DUMP): one message per device of the caller's namespace,
 *	in index order; an empty dump is a valid answer (no devices).
 *	Reply attributes: XIB_ATTR_DEV_INDEX, XIB_ATTR_DEV_NAME,
 *	XIB_ATTR_DEV_NODE_GUID, XIB_ATTR_DEV_NUM_PORTS, XIB_ATTR_DEV_DRIVER,
 *	XIB_ATTR_NDEV_NAME when port 1 is bound to a network interface, and
 *	XIB_ATTR_DEV_RES: a nest with one u32 per object type counting the
 *	device's live objects (XIB_ATTR_RES_PD, _MR, _CQ, _QP, _SRQ, _AH and
 *	_UCONTEXT: open user contexts; _MW, memory windows, and _XRCD, XRC
 *	domains, newer), and,
 *	where the modules are loaded,
 *	XIB_ATTR_RES_CM_ID: RDMA CM ids bound to the device (an id bound to
 *	no device yet, or to the wildcard address, is counted on none) and
 *	XIB_ATTR_RES_MAD_SEND: MADs the device's MAD layer has posted that
 *	have not completed (awaiting a response or their completion).  A
 *	reader must accept a nest without the newer counts.  No privilege is
 *	needed.
 *
 * XIB_CMD_LINK_ADD
 *	Creates a device of link type XIB_ATTR_LINK_TYPE named
 *	XIB_ATTR_DEV_NAME on top of the network interface XIB_ATTR_NDEV_NAME
 *	of the caller's namespace.  Needs CAP_NET_ADMIN in the initial user
 *	namespace (not only in a user namespace that owns the caller's).
 *	With XIB_ATTR_LINK_PCI, the device is also bound to that PCI function
 *	(e.g. "0000:00:10.0"), which its driver must have bound: xib_hca's
 *	PCI front end, Documentation/pcie.rst.
 *	-EOPNOTSUPP if no driver provides the link type (e.g. xib_hca is not
 *	loaded), -EEXIST if the name is taken, -ENODEV if the interface does
 *	not exist; the driver may refuse with its own errno and an extack
 *	message.
 *
 * XIB_CMD_LINK_DEL
 *	Removes the device named by XIB_ATTR_DEV_INDEX or XIB_ATTR_DEV_NAME
 *	if it was created by XIB_CMD_LINK_ADD.  Needs CAP_NET_ADMIN (initial
 *	user namespace).  -ENODEV
 *	if no such device, -EOPNOTSUPP if it was not created as a link.
 *
 * XIB_CMD_PORT_GET
 *	doit: XIB_ATTR_DEV_INDEX or XIB_ATTR_DEV_NAME, and XIB_ATTR_PORT_INDEX;
 *	dumpit: every port of every device of the caller's namespace.  Reply:
 *	XIB_ATTR_DEV_INDEX, XIB_ATTR_DEV_NAME, XIB_ATTR_PORT_INDEX,
 *	XIB_ATTR_PORT_STATE (enum xib_port_state), XIB_ATTR_PORT_PHYS_STATE
 *	(enum xib_port_phys_state), XIB_ATTR_PORT_ACTIVE_MTU (bytes: 256 to
 *	4096), XIB_ATTR_NDEV_NAME when bound to an interface, and
 *	XIB_ATTR_PORT_GIDS: a nest of XIB_ATTR_GID_ENTRY nests, one per valid
 *	GID table entry, each with XIB_ATTR_GID_INDEX, XIB_ATTR_GID (16 bytes,
 *	network order) and XIB_ATTR_GID_TYPE (enum xib_gid_type).  -EINVAL
 *	for a port number out of range.  No privilege is needed.
 *
 * Resource dumps: XIB_CMD_RES_QP_GET, XIB_CMD_RES_CQ_GET,
 * XIB_CMD_RES_MR_GET, XIB_CMD_RES_PD_GET, XIB_CMD_RES_SRQ_GET,
 * XIB_CMD_RES_AH_GET, XIB_CMD_RES_CTX_GET
 *	dumpit only (NLM_F_DUMP): one message per live object of the type
 *	(CTX: per open user context, i.e. open of /dev/xib/uverbsN), device
 *	by device in index order, and within a device in object number
 *	order.  The dump resumes where the previous skb ended, so it scales
 *	to any number of objects; objects created or destroyed during a dump
 *	may or may not appear.  Optional request attributes narrow it:
 *	XIB_ATTR_DEV_INDEX and/or XIB_ATTR_DEV_NAME (one device; -ENODEV if
 *	there is no such device in the caller's namespace), XIB_ATTR_RES_PID
 *	(objects of user contexts opened by that process, in the caller's
 *	pid namespace) and, for QPs only (-EINVAL for other dumps),
 *	XIB_ATTR_RES_QPN (that QP only), XIB_ATTR_RES_QP_TYPE (u8: 2 RC, 3
 *	UC, 4 UD) and XIB_ATTR_RES_QP_STATE (u8, enum xib_qp_state).  The
 *	kernel applies them all.  Any other attribute is refused.
 *	Visibility: a caller without CAP_NET_ADMIN sees only the objects of
 *	user contexts opened by its own effective uid; nobody sees objects
 *	whose owner is outside the caller's pid namespace; objects of the
 *	kernel (no user context) are shown to CAP_NET_ADMIN only.
 *	Every message has XIB_ATTR_DEV_INDEX, XIB_ATTR_DEV_NAME and, for an
 *	object of a user context, XIB_ATTR_RES_PID (the opener's thread group
 *	id in the caller's pid namespace), XIB_ATTR_RES_COMM (its command
 *	name when it opened the context), XIB_ATTR_RES_UID (its effective
 *	uid in the caller's user namespace) and XIB_ATTR_RES_CTX_ID; an
 *	object of the kernel has XIB_ATTR_RES_KERN instead.  Then, by type:
 *	QP: XIB_ATTR_RES_QPN, XIB_ATTR_RES_QP_TYPE (enum xib_qp_type of
 *	uverbs.h: 2 RC, 3 UC, 4 UD), XIB_ATTR_RES_QP_STATE (enum
 *	xib_qp_state: 0 RESET, 1 INIT, 2 RTR, 3 RTS, 4 SQD, 5 SQE, 6 ERR),
 *	XIB_ATTR_RES_PDN, XIB_ATTR_RES_SEND_CQN, XIB_ATTR_RES_RECV_CQN,
 *	XIB_ATTR_RES_SRQN (with an SRQ), XIB_ATTR_RES_DEST_QPN (connected
 *	QPs, from RTR) and, where the driver reports them:
 *	XIB_ATTR_RES_SQ_PSN (next PSN sent), XIB_ATTR_RES_RQ_PSN (next PSN
 *	expected), XIB_ATTR_RES_SQ_WRS and XIB_ATTR_RES_RQ_WRS (work
 *	requests posted and not completed), XIB_ATTR_RES_RETRANSMITS and
 *	XIB_ATTR_RES_RNR_NAKS (since creation), and XIB_ATTR_STATS: the
 *	QP's own counters since creation, entries as XIB_CMD_STAT_GET's
 *	(xib_hca's are listed in Documentation/counters.rst).
 *	CQ: XIB_ATTR_RES_CQN, XIB_ATTR_RES_CQE (depth), XIB_ATTR_RES_USERS
 *	(QPs using it) and, from the driver, XIB_ATTR_RES_CQ_FILL
 *	(completions not yet polled).
 *	MR: XIB_ATTR_RES_MR_LEN, XIB_ATTR_RES_IOVA, XIB_ATTR_RES_ACCESS (enum
 *	xib_access_flags), XIB_ATTR_RES_PDN, and XIB_ATTR_RES_LKEY and
 *	XIB_ATTR_RES_RKEY only to CAP_NET_ADMIN.
 *	PD: XIB_ATTR_RES_PDN, XIB_ATTR_RES_USERS (MRs, QPs, SRQs, AHs on it).
 *	SRQ: XIB_ATTR_RES_SRQN, XIB_ATTR_RES_MAX_WR, XIB_ATTR_RES_SRQ_LIMIT
 *	(0: not armed), XIB_ATTR_RES_USERS (QPs), XIB_ATTR_RES_PDN.
 *	AH: XIB_ATTR_RES_AHN, XIB_ATTR_RES_DGID (16 bytes, network order),
 *	XIB_ATTR_RES_PDN.
 *	CTX: XIB_ATTR_RES_CTX_ID, the owner attributes, and XIB_ATTR_DEV_RES:
 *	the nest of XIB_ATTR_RES_PD, _MR, _CQ, _QP, _SRQ and _AH counting
 *	the context's objects.
 *	Dumps need no privilege; a doit request gets -EOPNOTSUPP.
 *	Memory windows and RDMA CM ids (newer) follow.
 *
 * XIB_CMD_RES_MW_GET
 *	A resource dump as above (same filters, visibility, owner attributes
 *	and continuation): one message per memory window.
 *	XIB_ATTR_RES_MW_TYPE (1 or 2: type 2B), XIB_ATTR_RES_MW_STATE (enum
 *	xib_nl_mw_state), XIB_ATTR_RES_PDN, and for a bound window
 *	XIB_ATTR_RES_IOVA (its first byte), XIB_ATTR_RES_MR_LEN (its bytes),
 *	XIB_ATTR_RES_ACCESS (the rights granted) and, for type 2,
 *	XIB_ATTR_RES_QPN (the QP it was bound on); to CAP_NET_ADMIN only,
 *	XIB_ATTR_RES_RKEY (the window's current rkey) and, bound,
 *	XIB_ATTR_RES_LKEY (the lkey of the MR it is bound to), as MR keys.
 *
 * XIB_CMD_RES_CM_ID_GET
 *	dumpit only: one message per RDMA CM id (xib_cma's, created through
 *	/dev/xib/rdma_cm or by the kernel) of the caller's network
 *	namespace, bound to a device or not, in id number order, resumed
 *	like the other dumps (empty while xib_cma is not loaded).  Optional
 *	request attributes: XIB_ATTR_DEV_INDEX and/or XIB_ATTR_DEV_NAME (the
 *	ids bound to that device; -ENODEV if there is none), XIB_ATTR_RES_PID,
 *	XIB_ATTR_RES_CM_STATE (u8) and XIB_ATTR_RES_PS (u32); any other is
 *	refused.  Visibility as above (an id's owner is the process that
 *	created it, or its listener's for an id a connection request
 *	created).  Every message has XIB_ATTR_RES_CM_IDN, the owner
 *	attributes (XIB_ATTR_RES_PID, _COMM, _UID, or XIB_ATTR_RES_KERN),
 *	XIB_ATTR_RES_PS (enum xib_nl_ps), XIB_ATTR_RES_QP_TYPE,
 *	XIB_ATTR_RES_CM_STATE (enum xib_nl_cm_state) and, where they apply:
 *	XIB_ATTR_DEV_INDEX, XIB_ATTR_DEV_NAME and XIB_ATTR_PORT_INDEX (once
 *	the id is bound to a device: not while unbound or bound to the
 *	wildcard address), XIB_ATTR_RES_SRC_ADDR and XIB_ATTR_RES_DST_ADDR
 *	(a struct sockaddr_in or sockaddr_in6 with the port, network
 *	order; absent while there is none), XIB_ATTR_RES_QPN (the QP
 *	number given to connect or accept) and XIB_ATTR_RES_BACKLOG
 *	(listeners).
 *
 * XIB_CMD_STAT_GET
 *	The device's counters (per port: every xib device has one port).
 *	doit: XIB_ATTR_DEV_INDEX and/or XIB_ATTR_DEV_NAME; dumpit: every
 *	device of the caller's namespace, in index order.  Reply:
 *	XIB_ATTR_DEV_INDEX, XIB_ATTR_DEV_NAME, XIB_ATTR_PORT_INDEX (1) and
 *	XIB_ATTR_STATS: a nest of XIB_ATTR_STAT_ENTRY nests, one per counter
 *	(the driver's, in its order, then xib_core's own for the device:
 *	the MAD layer's and the IB CM's), each with XIB_ATTR_STAT_NAME (the counter's
 *	name: lower case letters, digits and '_'; a name keeps its meaning
 *	for ever, new counters are only added) and XIB_ATTR_STAT_VALUE (u64:
 *	the count since the device was created or since the last
 *	XIB_CMD_STAT_RESET).  A device whose driver keeps no counters has
 *	only the core's.  The counters are listed in
 *	Documentation/counters.rst.  No privilege is needed.
 *
 * XIB_CMD_STAT_RESET
 *	doit: XIB_ATTR_DEV_INDEX and/or XIB_ATTR_DEV_NAME; every counter of
 *	the device starts again from zero (for readers of XIB_CMD_STAT_GET;
 *	the driver's own counts are not touched).  Needs CAP_NET_ADMIN.
 *	-ENODEV if there is no such device in the caller's namespace.
 *
 * XIB_CMD_TRACE_PKT
 *	Never requested: the notification of the multicast group
 *	XIB_GENL_MCGRP_TRACE ("trace"), which only CAP_NET_ADMIN (in the
 *	namespace's user namespace) may join.  While anyone listens, every
 *	RoCEv2 packet a device of the namespace sends or receives (looped
 *	back to a device of the same host included, and received packets
 *	that fail a check, a bad ICRC included) is one message:
 *	XIB_ATTR_DEV_INDEX, XIB_ATTR_TRACE_DIR (u8, enum xib_trace_dir),
 *	XIB_ATTR_TRACE_TIME (u64, CLOCK_REALTIME nanoseconds) and
 *	XIB_ATTR_TRACE_PKT: the whole packet from its IPv4 or IPv6 header to
 *	its ICRC (for a looped-back packet, which is not checked, the ICRC
 *	it would carry).  Messages the listener's socket has no room for are
 *	lost (the reader sees ENOBUFS).  Nothing is built while nobody
 *	listens.
 *
 * XIB_CMD_SYS_GET
 *	doit: the settings of the whole xib stack.  Reply:
 *	XIB_ATTR_SYS_NETNS_SHARED: 1 if every device may be used (its
 *	/dev/xib/uverbsN opened) from every network namespace, 0 if only
 *	from the namespace of the device's interface (open fails with
 *	EPERM elsewhere).  Device lists (XIB_CMD_DEV_GET, and so
 *	libibverbs') always show a namespace its own devices only.  No
 *	privilege is needed.
 *
 * XIB_CMD_SYS_SET
 *	doit: XIB_ATTR_SYS_NETNS_SHARED (0 or 1) sets the mode; later opens
 *	follow it, contexts already open stay.  Needs CAP_NET_ADMIN in the
 *	initial user namespace and a socket of the initial network
 *	namespace (-EPERM otherwise).  The module parameter netns_shared of
 *	xib_core gives the mode at load (default 1, as ib_core's).
 *
 * Every command refuses unknown attributes (strict validation).
 */
#ifndef _UAPI_XIB_NETLINK_H
#define _UAPI_XIB_NETLINK_H

#define XIB_GENL_NAME		"xib"
#define XIB_GENL_VERSION	1
#define XIB_GENL_MCGRP_TRACE	"trace"

enum xib_nl_cmd {
	XIB_CMD_UNSPEC,
	XIB_CMD_DEV_GET,
	XIB_CMD_LINK_ADD,
	XIB_CMD_LINK_DEL,
	XIB_CMD_PORT_GET,
	XIB_CMD_RES_QP_GET,
	XIB_CMD_RES_CQ_GET,
	XIB_CMD_RES_MR_GET,
	XIB_CMD_RES_PD_GET,
	XIB_CMD_RES_SRQ_GET,
	XIB_CMD_RES_AH_GET,
	XIB_CMD_RES_CTX_GET,
	XIB_CMD_STAT_GET,
	XIB_CMD_STAT_RESET,
	XIB_CMD_TRACE_PKT,
	XIB_CMD_SYS_GET,
	XIB_CMD_SYS_SET,
	XIB_CMD_RES_MW_GET,
	XIB_CMD_RES_CM_ID_GET,

	__XIB_CMD_MAX,
	XIB_CMD_MAX = __XIB_CMD_MAX - 1
};

enum xib_nl_attr {
	XIB_ATTR_UNSPEC,
	XIB_ATTR_DEV_INDEX,		/* u32 */
	XIB_ATTR_DEV_NAME,		/* string, < XIB_DEVICE_NAME_MAX */
	XIB_ATTR_DEV_NODE_GUID,		/* u64, host byte order */
	XIB_ATTR_DEV_NUM_PORTS,		/* u32 */
	XIB_ATTR_DEV_DRIVER,		/* string: the driver module's name */
	XIB_ATTR_LINK_TYPE,		/* string, e.g. "hca" */
	XIB_ATTR_NDEV_NAME,		/* string: network interface name */
	XIB_ATTR_PAD,
	XIB_ATTR_PORT_INDEX,		/* u32, 1-based */
	XIB_ATTR_PORT_STATE,		/* u8, enum xib_port_state */
	XIB_ATTR_PORT_PHYS_STATE,	/* u8, enum xib_port_phys_state */
	XIB_ATTR_PORT_ACTIVE_MTU,	/* u32, bytes */
	XIB_ATTR_PORT_GIDS,		/* nest of XIB_ATTR_GID_ENTRY */
	XIB_ATTR_GID_ENTRY,		/* nest */
	XIB_ATTR_GID_INDEX,		/* u32 */
	XIB_ATTR_GID,			/* binary, 16 bytes */
	XIB_ATTR_GID_TYPE,		/* u8, enum xib_gid_type */
	XIB_ATTR_DEV_RES,		/* nest of XIB_ATTR_RES_* */
	XIB_ATTR_RES_PD,		/* u32, live objects of the type */
	XIB_ATTR_RES_MR,		/* u32 */
	XIB_ATTR_RES_CQ,		/* u32 */
	XIB_ATTR_RES_QP,		/* u32 */
	XIB_ATTR_RES_SRQ,		/* u32 */
	XIB_ATTR_RES_AH,		/* u32 */
	XIB_ATTR_RES_UCONTEXT,		/* u32 */
	XIB_ATTR_RES_CM_ID,		/* u32, RDMA CM ids bound to the device */
	XIB_ATTR_RES_MAD_SEND,		/* u32, MAD sends not yet completed */
	/* Resource dumps (XIB_CMD_RES_*_GET); see above. */
	XIB_ATTR_RES_PID,		/* u32, owner's tgid (caller's pid ns); filter */
	XIB_ATTR_RES_COMM,		/* string, owner's command name */
	XIB_ATTR_RES_UID,		/* u32, owner's effective uid */
	XIB_ATTR_RES_KERN,		/* flag: owned by the kernel */
	XIB_ATTR_RES_CTX_ID,		/* u32, the owning user context */
	XIB_ATTR_RES_QPN,		/* u32; also a QP dump filter */
	XIB_ATTR_RES_QP_TYPE,		/* u8, enum xib_qp_type; filter */
	XIB_ATTR_RES_QP_STATE,		/* u8, enum xib_qp_state; filter */
	XIB_ATTR_RES_DEST_QPN,		/* u32 */
	XIB_ATTR_RES_SQ_PSN,		/* u32 */
	XIB_ATTR_RES_RQ_PSN,		/* u32 */
	XIB_ATTR_RES_SQ_WRS,		/* u32, send WRs outstanding */
	XIB_ATTR_RES_RQ_WRS,		/* u32, receive WRs outstanding */
	XIB_ATTR_RES_RETRANSMITS,	/* u64 */
	XIB_ATTR_RES_RNR_NAKS,		/* u64, RNR NAKs received */
	XIB_ATTR_RES_PDN,		/* u32 */
	XIB_ATTR_RES_CQN,		/* u32 */
	XIB_ATTR_RES_SEND_CQN,		/* u32 */
	XIB_ATTR_RES_RECV_CQN,		/* u32 */
	XIB_ATTR_RES_SRQN,		/* u32 */
	XIB_ATTR_RES_CQE,		/* u32, CQ depth */
	XIB_ATTR_RES_CQ_FILL,		/* u32, completions not yet polled */
	XIB_ATTR_RES_USERS,		/* u32, objects using this one */
	XIB_ATTR_RES_LKEY,		/* u32, CAP_NET_ADMIN only */
	XIB_ATTR_RES_RKEY,		/* u32, CAP_NET_ADMIN only */
	XIB_ATTR_RES_MR_LEN,		/* u64, bytes */
	XIB_ATTR_RES_IOVA,		/* u64 */
	XIB_ATTR_RES_ACCESS,		/* u32, enum xib_access_flags */
	XIB_ATTR_RES_MAX_WR,		/* u32 */
	XIB_ATTR_RES_SRQ_LIMIT,		/* u32 */
	XIB_ATTR_RES_AHN,		/* u32 */
	XIB_ATTR_RES_DGID,		/* binary, 16 bytes, network order */
	/* Counters (XIB_CMD_STAT_GET); see above. */
	XIB_ATTR_STATS,			/* nest of XIB_ATTR_STAT_ENTRY (also QPs) */
	XIB_ATTR_STAT_ENTRY,		/* nest */
	XIB_ATTR_STAT_NAME,		/* string */
	XIB_ATTR_STAT_VALUE,		/* u64 */
	/* Packet capture (XIB_CMD_TRACE_PKT); see above. */
	XIB_ATTR_TRACE_DIR,		/* u8, enum xib_trace_dir */
	XIB_ATTR_TRACE_TIME,		/* u64, ns since the epoch */
	XIB_ATTR_TRACE_PKT,		/* binary: IP header to ICRC */
	/* System settings (XIB_CMD_SYS_GET, XIB_CMD_SYS_SET); see above. */
	XIB_ATTR_SYS_NETNS_SHARED,	/* u8: 1 shared, 0 exclusive */
	/* XIB_CMD_LINK_ADD: the PCI function the device is bound to */
	XIB_ATTR_LINK_PCI,		/* string, e.g. "0000:00:10.0" */
	XIB_ATTR_RES_MW,		/* u32, in XIB_ATTR_DEV_RES: memory windows */
	XIB_ATTR_RES_XRCD,		/* u32, in XIB_ATTR_DEV_RES: XRC domains */
	/* Memory window and RDMA CM id dumps; see above. */
	XIB_ATTR_RES_MW_TYPE,		/* u8: 1 or 2 */
	XIB_ATTR_RES_MW_STATE,		/* u8, enum xib_nl_mw_state */
	XIB_ATTR_RES_CM_IDN,		/* u32, the id's number */
	XIB_ATTR_RES_PS,		/* u32, enum xib_nl_ps; filter */
	XIB_ATTR_RES_CM_STATE,		/* u8, enum xib_nl_cm_state; filter */
	XIB_ATTR_RES_SRC_ADDR,		/* binary: struct sockaddr_in or _in6 */
	XIB_ATTR_RES_DST_ADDR,		/* binary: struct sockaddr_in or _in6 */
	XIB_ATTR_RES_BACKLOG,		/* u32, a listener's */

	__XIB_ATTR_MAX,
	XIB_ATTR_MAX = __XIB_ATTR_MAX - 1
};

/* XIB_ATTR_RES_MW_STATE */
enum xib_nl_mw_state {
	XIB_NL_MW_FREE,			/* not bound (type 1: length 0) */
	XIB_NL_MW_BOUND,		/* bound to an MR */
};

/* XIB_ATTR_RES_PS: port spaces, as enum rdma_port_space numbers them */
enum xib_nl_ps {
	XIB_NL_PS_IPOIB	= 0x0002,
	XIB_NL_PS_TCP	= 0x0106,
	XIB_NL_PS_UDP	= 0x0111,
	XIB_NL_PS_IB	= 0x013f,
};

/* XIB_ATTR_RES_CM_STATE: the states of an RDMA CM id (xib_cma's). */
enum xib_nl_cm_state {
	XIB_NL_CM_IDLE,
	XIB_NL_CM_ADDR_QUERY,
	XIB_NL_CM_ADDR_RESOLVED,
	XIB_NL_CM_ROUTE_QUERY,
	XIB_NL_CM_ROUTE_RESOLVED,
	XIB_NL_CM_CONNECT,
	XIB_NL_CM_ESTABLISHED,
	XIB_NL_CM_DISCONNECT,
	XIB_NL_CM_ADDR_BOUND,
	XIB_NL_CM_LISTEN,
	XIB_NL_CM_DEVICE_REMOVAL,
	XIB_NL_CM_DESTROYING,
};

/* XIB_ATTR_TRACE_DIR: which way a captured packet went. */
enum xib_trace_dir {
	XIB_TRACE_RX,
	XIB_TRACE_TX,
};

/* Port states, as IBTA and libibverbs number them. */
enum xib_port_state {
	XIB_PORT_NOP = 0,
	XIB_PORT_DOWN = 1,
	XIB_PORT_INIT = 2,
	XIB_PORT_ARMED = 3,
	XIB_PORT_ACTIVE = 4,
	XIB_PORT_ACTIVE_DEFER = 5,
};

/* Physical port states, as IBTA numbers them. */
enum xib_port_phys_state {
	XIB_PORT_PHYS_SLEEP = 1,
	XIB_PORT_PHYS_POLLING = 2,
	XIB_PORT_PHYS_DISABLED = 3,
	XIB_PORT_PHYS_LINK_UP = 5,
};

enum xib_gid_type {
	XIB_GID_TYPE_IB = 0,
	XIB_GID_TYPE_ROCE_V2 = 2,
};

/* Entries in each port's GID table. */
#define XIB_PORT_GID_TBL_LEN	32

/* Including the terminating NUL, like IFNAMSIZ and IB_DEVICE_NAME_MAX. */
#define XIB_DEVICE_NAME_MAX	64
#define XIB_LINK_TYPE_MAX	16

#endif /* _UAPI_XIB_NETLINK_H */
