/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib verbs user/kernel ABI: the ioctl commands of /dev/xib/uverbsN.
 *
 * Conventions
 * -----------
 * - Each open() of /dev/xib/uverbsN is one user context (struct
 *   ibv_context).  A user (effective uid) may hold max_contexts_per_user
 *   of them (xib_core module parameter, 256; every device together):
 *   beyond, open() fails with -EMFILE ("Too many open files", which
 *   ibv_open_device() leaves in errno) unless the process has
 *   CAP_SYS_RESOURCE; see GET_CONTEXT.  Objects a context creates are
 *   named by handles, small
 *   integers private to the context; XIB_UVERBS_NO_HANDLE names none.
 *   Closing the file (or the process dying) destroys every object of the
 *   context, in dependency order: AH, QP, MW, SRQ, XRCD, CQ, MR, PD.
 * - Every command is _IOWR(XIB_UVERBS_IOCTL_MAGIC, nr, struct): one
 *   fixed-size structure, fields __u8 to __u64 with explicit padding.  The
 *   kernel copies it in, validates everything, and copies it back out on
 *   success; "in" fields are what user space gives, "out" fields what the
 *   kernel fills.  Fields named reserved* and every "out" field must be
 *   zero on input, and unknown flag bits are refused: -EINVAL.  A failed
 *   command changes nothing and copies nothing out.
 * - Values of enums and flag words are those of libibverbs (enum
 *   ibv_qp_state, ibv_qp_type, ibv_access_flags, ibv_wc_status, ...), so a
 *   library passes them through unchanged.
 * - Errors: -EINVAL bad argument, -ENOENT unknown handle, -EBUSY object
 *   still in use by another object, -ENOMEM out of memory or limits
 *   (RLIMIT_MEMLOCK for memory registration: -ENOMEM as well),
 *   -EOPNOTSUPP valid request the device cannot do, -EIO the device was
 *   removed (the context is disassociated; only close() is left),
 *   -EFAULT bad user pointer.
 * - Queue memory (rings, the doorbell page) is mapped with mmap() on the
 *   same file at the byte offsets the commands return ("mmap_offset"),
 *   for exactly the returned length.  The formats of that memory are in
 *   <uapi/xib/hca-abi.h>.
 *
 * Commands
 * --------
 * XIB_UVERBS_GET_CONTEXT
 *	Once per file, before anything else but QUERY_*.  Returns the ABI
 *	version, a new async event fd (O_CLOEXEC; read() returns struct
 *	xib_uverbs_async_event records, poll() says when one is there), the
 *	number of completion vectors and where the doorbell page is.  A
 *	second call fails with -EEXIST.  The context already exists (and
 *	counts in its opener's max_contexts_per_user) from the open(): the
 *	per-user limit is met there, with -EMFILE, not here, and the count
 *	drops when the file's last reference is closed (the process dying
 *	included) or the device is removed.
 *	db_kind says how the library rings the doorbell where hca-abi.h
 *	says to KICK.  XIB_UVERBS_DB_SYSCALL (0, what a kernel without
 *	this field leaves in what was reserved space): the XIB_UVERBS_KICK
 *	command.  XIB_UVERBS_DB_MMIO: the device is a PCI function whose
 *	doorbell register user space writes directly (the UAR, User Access
 *	Region, Documentation/pcie.rst): mmap() one page
 *	(sysconf(_SC_PAGESIZE) bytes, MAP_SHARED, PROT_WRITE; a mapping
 *	without PROT_WRITE or with PROT_EXEC is refused, and so is any other
 *	size) at uar_mmap_offset, and ring by a 32-bit little-endian store
 *	of uar_db_value at byte uar_db_reg of it, after the barrier that
 *	follows the publication of prod.  The page is uncached device
 *	memory, write-only by contract: reads return the function's
 *	registers, which mean nothing to user space.  It is not inherited
 *	across fork() and cannot be moved with mremap().  A doorbell wakes
 *	the engine, which then looks at every send queue of the device, as
 *	it does on a KICK; it names no QP.  With XIB_UVERBS_DB_SYSCALL,
 *	uar_db_reg, uar_db_value and uar_mmap_offset are 0.  Once the context is gone (its file
 *	closed or the device removed), read() on the async fd and on its
 *	completion channels returns what is queued, then -EIO; it never
 *	sleeps for an event that can no longer come.
 * XIB_UVERBS_QUERY_DEVICE
 *	Device attributes and limits (struct xib_uverbs_device_attr).  The
 *	limits are enforced by every create command: a request above one
 *	fails with -EINVAL, never silently clamped.  sys_image_guid is never
 *	0 (the node GUID unless the driver has another); device_cap_flags
 *	holds exactly the enum xib_device_cap_flags the device honours; a
 *	device whose driver names no vendor reports XIB_VENDOR_ID and
 *	XIB_VENDOR_PART_ID_SOFT.
 * XIB_UVERBS_QUERY_PORT, XIB_UVERBS_QUERY_GID, XIB_UVERBS_QUERY_PKEY
 *	Port attributes, one GID table entry (-ENOENT for an empty entry),
 *	one P_Key (the table has one entry, 0xffff).
 * XIB_UVERBS_ALLOC_PD, XIB_UVERBS_DEALLOC_PD
 *	Protection domains.  Dealloc fails with -EBUSY while an MR, MW, QP,
 *	SRQ or AH uses the PD.
 * XIB_UVERBS_REG_MR, XIB_UVERBS_DEREG_MR
 *	Register [addr, addr + length) of the caller's memory with the
 *	given access flags, addressed remotely and in WQEs at iova.  The
 *	pages are pinned and charged to RLIMIT_MEMLOCK (-ENOMEM beyond it
 *	unless CAP_IPC_LOCK).  REMOTE_WRITE or REMOTE_ATOMIC without
 *	LOCAL_WRITE is -EINVAL, as in the IBTA.  length 0 is -EINVAL.
 *	MW_BIND allows memory windows to be bound to the MR.  ZERO_BASED
 *	needs iova 0 (-EINVAL otherwise): the MR is then addressed by the
 *	offset from addr, locally and remotely.  DEREG_MR (and
 *	REREG_MR) of an MR that memory windows are bound to fails with
 *	-EBUSY, as the IBTA says (10.6.7.1): unbind, invalidate or
 *	deallocate the windows first.
 * XIB_UVERBS_REREG_MR
 *	Change an MR in place (the IBTA's Reregister Memory Region): with
 *	XIB_REREG_MR_CHANGE_TRANSLATION its memory (addr, length, and iova,
 *	the address of addr in WQEs and RETHs), with _CHANGE_PD its PD (of
 *	the same context), with _CHANGE_ACCESS its access flags; each with
 *	the rules of REG_MR, and fields of a change not requested must be
 *	zero.  The MR keeps its handle, lkey and rkey (returned).  Work
 *	requests the HCA starts after the command see only the new
 *	attributes; one already running finishes with the old ones.  Its
 *	keys keep their MR and memory-window ranges (below).  New
 *	pages are pinned before the old ones are let go, so both count
 *	against RLIMIT_MEMLOCK for that moment.  On failure nothing changes.
 * XIB_UVERBS_CREATE_COMP_CHANNEL
 *	A new completion channel fd (O_CLOEXEC): read() returns struct
 *	xib_uverbs_comp_event records, one per CQ event; poll() works.
 * XIB_UVERBS_CREATE_CQ, XIB_UVERBS_RESIZE_CQ, XIB_UVERBS_DESTROY_CQ
 *	A CQ of at least cqe entries (rounded up to a power of two), bound
 *	to a completion channel fd or to none (-1).  Destroy fails with
 *	-EBUSY while a QP uses the CQ.  Resize moves unpolled CQEs to a new
 *	ring at a new mmap offset; the old mapping keeps its memory until
 *	unmapped but is no longer written.  Resizing below the number of
 *	unpolled CQEs is -EINVAL.
 * XIB_UVERBS_CREATE_QP, XIB_UVERBS_MODIFY_QP, XIB_UVERBS_QUERY_QP,
 * XIB_UVERBS_DESTROY_QP
 *	QPs of type RC, UC or UD.  Modify follows the IBTA state machine:
 *	the attributes a transition requires must be in attr_mask, those it
 *	does not allow must not be (-EINVAL).  In SQD the send queue
 *	drains (the WQEs begun finish, none begins); QUERY_QP's sq_draining
 *	is 1 until it is drained, and SQD -> SQD with attributes is -EBUSY
 *	until then.  With an SRQ the QP has no receive ring.
 *	XIB_UVERBS_NO_HANDLE as srq_handle means none.
 *	XRC_SEND (an XRC initiator, IBTA 9.8.1): pd_handle and
 *	send_cq_handle; recv_cq_handle and srq_handle must be
 *	XIB_UVERBS_NO_HANDLE and the receive capacities 0 (no receive queue).
 *	Its send WQEs name the remote XRC SRQ (xrc_srqn, hca-abi.h); its
 *	packets are RC's with XRC opcodes and an XRCETH.
 *	XRC_RECV (an XRC target): pd_handle names an XRC domain (an
 *	OPEN_XRCD handle), as in Linux's ib_uverbs; the CQ and SRQ handles
 *	must be XIB_UVERBS_NO_HANDLE and every capacity 0.  It has no ring
 *	(sq and rq come back zero) and raises no async event.  A request it
 *	receives goes to the XRC SRQ its XRCETH names, which must be of the
 *	same domain (else it is NAKed as an invalid request, counted in
 *	err_naks_sent), and completes on that SRQ's CQ.  RDMA WRITE, READ,
 *	atomics and SEND with invalidate execute as on RC, their R_Keys
 *	checked against the PD of that XRC SRQ (IBTA Annex A14; a target
 *	has no PD of its own); a type 2 window is bound to a QP with a
 *	send queue, so only MRs and type 1 windows are reached through a
 *	target.  The device reports XIB_DEVICE_XRC.
 *	The target lives while any handle to it does: DESTROY_QP of one
 *	handle (the creator's or one from OPEN_QP) drops that handle only.
 *	Each handle counts in its context's max_qp_per_context (-ENOMEM
 *	beyond), the target once in the device's max_qp.
 * XIB_UVERBS_OPEN_QP
 *	A handle to the existing XRC target QP qpn of the domain
 *	xrcd_handle (ibv_open_qp()), from any context that opened the same
 *	domain: -ENOENT if there is none, -EINVAL for another qp_type than
 *	XIB_QPT_XRC_RECV or a nonzero reserved field.  The handle modifies,
 *	queries and destroys like the creator's.
 * XIB_UVERBS_CREATE_SRQ, XIB_UVERBS_MODIFY_SRQ, XIB_UVERBS_QUERY_SRQ,
 * XIB_UVERBS_RESIZE_SRQ, XIB_UVERBS_DESTROY_SRQ
 *	Shared receive queues.  Modify sets the limit (arming the
 *	SRQ_LIMIT_REACHED event; when the event fires the limit is 0 again,
 *	as QUERY_SRQ then says, until a modify arms it again); XIB_SRQ_MAX_WR
 *	in its attr_mask is -EOPNOTSUPP: the size changes with RESIZE_SRQ,
 *	which returns the new ring.  Resize grows or shrinks to at least
 *	max_wr entries (rounded up to a power of two, returned), 1 to the
 *	device's max_srq_wr: the posted, not yet consumed WQEs move to the
 *	new ring, in order, at a new mmap offset (its header's prod is their
 *	count, cons 0); the old mapping keeps its memory until unmapped but
 *	is no longer read.  Below the posted WQEs, or below an armed limit,
 *	is -EINVAL, and nothing changes.  User space must not post to the
 *	SRQ while the command runs.
 * XIB_UVERBS_CREATE_AH, XIB_UVERBS_DESTROY_AH
 *	Address handles for UD sends.  UD WQEs name an AH by the ahn the
 *	create returns; the HCA checks that it belongs to the QP's PD.
 * XIB_UVERBS_KICK
 *	Wake the HCA's engine for a QP's send queue.  Only needed when the
 *	doorbell page says the engine sleeps (see hca-abi.h), and on a
 *	context whose db_kind is XIB_UVERBS_DB_MMIO not at all (it still
 *	works).
 * XIB_UVERBS_ATTACH_MCAST, XIB_UVERBS_DETACH_MCAST
 *	Attach a UD QP to the multicast group named by gid (the MGID), or
 *	detach it.  On RoCEv2 the MGID is an IP multicast address: an
 *	IPv4-mapped one (::ffff:224.0.0.0/100) or an IPv6 one (ff00::/8);
 *	anything else is -EINVAL, and so is a QP that is not UD.  mlid is
 *	ignored (RoCE has no LIDs), as by RoCE devices.  UD datagrams sent to
 *	QP number 0xffffff with the MGID as destination GID reach every QP
 *	attached to the group on every device that receives them, the
 *	sender's own device included; the device joins the IP group on its
 *	interface (IGMP/MLD) while at least one of its QPs is attached.
 *	Attaching a QP twice to the same group changes nothing (the QP gets
 *	one copy of each message) and succeeds.  Beyond the device's
 *	max_mcast_grp groups, max_mcast_qp_attach QPs in one group or
 *	max_total_mcast_qp_attach attachments in all: -ENOMEM.  Detaching
 *	a QP that is not attached to the group is -EINVAL.  DESTROY_QP of
 *	an attached QP is -EBUSY; closing the file (or removing the device)
 *	detaches its QPs.
 * XIB_UVERBS_ALLOC_MW, XIB_UVERBS_DEALLOC_MW
 *	Memory windows (IBTA 10.6.7) of type 1 or 2 (type 2B: bound to one
 *	QP) on a PD; any other type is -EINVAL, and so are nonzero reserved
 *	fields.  Beyond the device's max_mw or the context's limit: -ENOMEM.
 *	ALLOC_MW returns the window's rkey: bits 31-8 name it for its life
 *	(an MW index, 0x800000 to 0xffffff, never an MR's, 1 to 0x7fffff),
 *	bits 7-0 are its key, drawn at random.  A type 1 window starts valid
 *	and unbound (zero length), a type 2 window free.  Windows are bound
 *	and invalidated by send WQEs (hca-abi.h: XIB_HCA_WR_BIND_MW,
 *	_LOCAL_INV, _SEND_WITH_INV), never by a command; each bind gives the
 *	window the key byte of the WQE's new rkey (the rkey the caller keeps
 *	tracking).  DEALLOC_MW of a bound window unbinds it; remote accesses
 *	through it fail from then on.
 * XIB_UVERBS_OPEN_XRCD, XIB_UVERBS_CLOSE_XRCD
 *	XRC domains (IBTA 10.2.9).  A domain is named by the inode of the
 *	file fd refers to, per device: every context of the device that
 *	opens a file of the same inode gets the same domain, whichever
 *	process it is in.  oflags are XIB_XRCD_O_CREAT and XIB_XRCD_O_EXCL
 *	(not the values of fcntl.h, which differ between architectures),
 *	with open(2)'s meaning: a domain of the inode is opened if there is
 *	one (-EEXIST with O_CREAT | O_EXCL), else created with O_CREAT (else
 *	-ENOENT); the check and the creation are atomic.  fd -1 creates a
 *	domain no one else can open, and then oflags must be O_CREAT alone.
 *	O_EXCL without O_CREAT, other bits or a nonzero reserved field are
 *	-EINVAL, a bad fd -EBADF.  Each open is a handle of the context,
 *	counted in its max_xrcd_per_context (-ENOMEM beyond; the device's
 *	domains are bounded by its max_pd).  CLOSE_XRCD of a handle fails
 *	with -EBUSY while an XRC SRQ the context created in the domain
 *	exists, as the seed's ibv_close_xrc_domain(); otherwise it
 *	succeeds, and the domain itself lives on while other handles or
 *	objects hold it.  xrcdn is the domain's number on the device, the
 *	same for all its openers.  The domain holds the path of the file it
 *	was created through: its filesystem cannot be unmounted (-EBUSY)
 *	while the domain lives.
 * XIB_UVERBS_CREATE_XSRQ
 *	An SRQ of a type: XIB_SRQT_BASIC is CREATE_SRQ (xrcd_handle and
 *	cq_handle XIB_UVERBS_NO_HANDLE); XIB_SRQT_XRC an XRC SRQ of the
 *	domain xrcd_handle, whose receives complete on cq_handle (which then
 *	cannot be destroyed before it: -EBUSY), addressed by senders by the
 *	srqn returned (ibv_get_srq_num()).  Other types are -EOPNOTSUPP.
 *	MODIFY_SRQ, QUERY_SRQ, RESIZE_SRQ and DESTROY_SRQ take either kind;
 *	CREATE_QP refuses an XRC SRQ (-EINVAL).
 */
#ifndef _UAPI_XIB_UVERBS_H
#define _UAPI_XIB_UVERBS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* QP states (IBTA vol 1 ch. 10.3); the values of enum ibv_qp_state. */
enum xib_qp_state {
	XIB_QPS_RESET = 0,
	XIB_QPS_INIT = 1,
	XIB_QPS_RTR = 2,	/* ready to receive */
	XIB_QPS_RTS = 3,	/* ready to send */
	XIB_QPS_SQD = 4,	/* send queue drain(ing/ed) */
	XIB_QPS_SQE = 5,	/* send queue error (UC and UD only) */
	XIB_QPS_ERR = 6,
};

/*
 * QP transport service types; the values of enum ibv_qp_type.  RC, UC,
 * UD, XRC_SEND and XRC_RECV are implemented; RAW_PACKET is reserved with
 * libibverbs' value and refused.
 */
enum xib_qp_type {
	XIB_QPT_RC = 2,
	XIB_QPT_UC = 3,
	XIB_QPT_UD = 4,
	XIB_QPT_RAW_PACKET = 8,	/* reserved */
	XIB_QPT_XRC_SEND = 9,	/* XRC initiator: sends only */
	XIB_QPT_XRC_RECV = 10,	/* XRC target: of an XRC domain */
};

/*
 * Modify-QP attribute mask: which attributes a modify-QP request carries;
 * the bits of enum ibv_qp_attr_mask.  Bits 21 to 24 are not used (old
 * kernels gave them meanings libibverbs never exposed); any bit not named
 * here is refused.
 */
enum xib_qp_attr_mask {
	XIB_QP_STATE			= 1 << 0,
	XIB_QP_CUR_STATE		= 1 << 1,
	XIB_QP_EN_SQD_ASYNC_NOTIFY	= 1 << 2,
	XIB_QP_ACCESS_FLAGS		= 1 << 3,
	XIB_QP_PKEY_INDEX		= 1 << 4,
	XIB_QP_PORT			= 1 << 5,
	XIB_QP_QKEY			= 1 << 6,
	XIB_QP_AV			= 1 << 7,
	XIB_QP_PATH_MTU			= 1 << 8,
	XIB_QP_TIMEOUT			= 1 << 9,
	XIB_QP_RETRY_CNT		= 1 << 10,
	XIB_QP_RNR_RETRY		= 1 << 11,
	XIB_QP_RQ_PSN			= 1 << 12,
	XIB_QP_MAX_QP_RD_ATOMIC		= 1 << 13,
	XIB_QP_ALT_PATH			= 1 << 14,
	XIB_QP_MIN_RNR_TIMER		= 1 << 15,
	XIB_QP_SQ_PSN			= 1 << 16,
	XIB_QP_MAX_DEST_RD_ATOMIC	= 1 << 17,
	XIB_QP_PATH_MIG_STATE		= 1 << 18,
	XIB_QP_CAP			= 1 << 19,
	XIB_QP_DEST_QPN			= 1 << 20,
	XIB_QP_RATE_LIMIT		= 1 << 25,
};

/*
 * Asynchronous events (IBTA vol 1 ch. 11.6.3); the values of enum
 * ibv_event_type.  Besides the errors, three follow QP states: COMM_EST
 * (an RC or UC QP in RTR received a request packet, once per stay in
 * RTR), SQ_DRAINED (after RTS -> SQD with en_sqd_async_notify 1, once the
 * send queue is drained) and QP_LAST_WQE_REACHED (a QP on an SRQ entered
 * ERR and takes no more WQEs from it).
 */
enum xib_event_type {
	XIB_EVENT_CQ_ERR = 0,
	XIB_EVENT_QP_FATAL = 1,
	XIB_EVENT_QP_REQ_ERR = 2,
	XIB_EVENT_QP_ACCESS_ERR = 3,
	XIB_EVENT_COMM_EST = 4,
	XIB_EVENT_SQ_DRAINED = 5,
	XIB_EVENT_PATH_MIG = 6,
	XIB_EVENT_PATH_MIG_ERR = 7,
	XIB_EVENT_DEVICE_FATAL = 8,
	XIB_EVENT_PORT_ACTIVE = 9,
	XIB_EVENT_PORT_ERR = 10,
	XIB_EVENT_LID_CHANGE = 11,
	XIB_EVENT_PKEY_CHANGE = 12,
	XIB_EVENT_SM_CHANGE = 13,
	XIB_EVENT_SRQ_ERR = 14,
	XIB_EVENT_SRQ_LIMIT_REACHED = 15,
	XIB_EVENT_QP_LAST_WQE_REACHED = 16,
	XIB_EVENT_CLIENT_REREGISTER = 17,
	XIB_EVENT_GID_CHANGE = 18,
	XIB_EVENT_WQ_FATAL = 19,
};

/* Memory and QP access flags; the bits of enum ibv_access_flags. */
enum xib_access_flags {
	XIB_ACCESS_LOCAL_WRITE		= 1 << 0,
	XIB_ACCESS_REMOTE_WRITE		= 1 << 1,
	XIB_ACCESS_REMOTE_READ		= 1 << 2,
	XIB_ACCESS_REMOTE_ATOMIC	= 1 << 3,
	XIB_ACCESS_MW_BIND		= 1 << 4,
	XIB_ACCESS_ZERO_BASED		= 1 << 5,
	XIB_ACCESS_ON_DEMAND		= 1 << 6,
	XIB_ACCESS_HUGETLB		= 1 << 7,
	XIB_ACCESS_RELAXED_ORDERING	= 1 << 20,
};

/*
 * MR access flags REG_MR accepts; ON_DEMAND is not.  ZERO_BASED means the
 * MR's iova is 0 (ibv_reg_mr(3): "the same effect as" hca_va 0): WQEs
 * (lkey) and RETHs/AtETHs (rkey) address it by the offset from its first
 * byte; the request's iova must then be 0 (EINVAL otherwise).
 */
#define XIB_ACCESS_MR_SUPPORTED	(XIB_ACCESS_LOCAL_WRITE |		\
				 XIB_ACCESS_REMOTE_WRITE |		\
				 XIB_ACCESS_REMOTE_READ |		\
				 XIB_ACCESS_REMOTE_ATOMIC |		\
				 XIB_ACCESS_MW_BIND |			\
				 XIB_ACCESS_ZERO_BASED |		\
				 XIB_ACCESS_HUGETLB |			\
				 XIB_ACCESS_RELAXED_ORDERING)
/*
 * QP access flags (XIB_QP_ACCESS_FLAGS) MODIFY_QP accepts.  LOCAL_WRITE
 * means nothing for a QP but many applications set it (perftest does), and
 * other stacks accept it: it is accepted, stored and otherwise ignored.
 */
#define XIB_ACCESS_QP_SUPPORTED	(XIB_ACCESS_LOCAL_WRITE |		\
				 XIB_ACCESS_REMOTE_WRITE |		\
				 XIB_ACCESS_REMOTE_READ |		\
				 XIB_ACCESS_REMOTE_ATOMIC)

/* Memory window types (XIB_UVERBS_ALLOC_MW); those of enum ibv_mw_type. */
enum xib_mw_type {
	XIB_MW_TYPE_1 = 1,
	XIB_MW_TYPE_2 = 2,
};

/*
 * Access flags of a bind: the rights a memory window may grant, and
 * ZERO_BASED (type 2 windows only, IBTA o10-36.2.2; a type 1 bind with it
 * fails with MW_BIND_ERR): the remote address of a request through the
 * window's rkey is the offset from the window's first byte.
 */
#define XIB_ACCESS_MW_SUPPORTED	(XIB_ACCESS_REMOTE_WRITE |		\
				 XIB_ACCESS_REMOTE_READ |		\
				 XIB_ACCESS_REMOTE_ATOMIC |		\
				 XIB_ACCESS_ZERO_BASED)

/* MR re-registration (XIB_UVERBS_REREG_MR); the bits of enum ibv_rereg_mr_flags. */
enum xib_rereg_mr_flags {
	XIB_REREG_MR_CHANGE_TRANSLATION	= 1 << 0,
	XIB_REREG_MR_CHANGE_PD		= 1 << 1,
	XIB_REREG_MR_CHANGE_ACCESS	= 1 << 2,
};

#define XIB_REREG_MR_SUPPORTED	(XIB_REREG_MR_CHANGE_TRANSLATION |	\
				 XIB_REREG_MR_CHANGE_PD |		\
				 XIB_REREG_MR_CHANGE_ACCESS)

/*
 * Device capabilities (xib_uverbs_device_attr.device_cap_flags); the bits
 * of enum ibv_device_cap_flags.
 */
enum xib_device_cap_flags {
	XIB_DEVICE_RESIZE_MAX_WR	= 1 << 0,
	XIB_DEVICE_BAD_PKEY_CNTR	= 1 << 1,
	XIB_DEVICE_BAD_QKEY_CNTR	= 1 << 2,
	XIB_DEVICE_RAW_MULTI		= 1 << 3,
	XIB_DEVICE_AUTO_PATH_MIG	= 1 << 4,
	XIB_DEVICE_CHANGE_PHY_PORT	= 1 << 5,
	XIB_DEVICE_UD_AV_PORT_ENFORCE	= 1 << 6,
	XIB_DEVICE_CURR_QP_STATE_MOD	= 1 << 7,
	XIB_DEVICE_SHUTDOWN_PORT	= 1 << 8,
	XIB_DEVICE_INIT_TYPE		= 1 << 9,
	XIB_DEVICE_PORT_ACTIVE_EVENT	= 1 << 10,
	XIB_DEVICE_SYS_IMAGE_GUID	= 1 << 11,
	XIB_DEVICE_RC_RNR_NAK_GEN	= 1 << 12,
	XIB_DEVICE_SRQ_RESIZE		= 1 << 13,
	XIB_DEVICE_N_NOTIFY_CQ		= 1 << 14,
	XIB_DEVICE_MEM_WINDOW		= 1 << 17,
	XIB_DEVICE_UD_IP_CSUM		= 1 << 18,
	XIB_DEVICE_XRC			= 1 << 20,
	XIB_DEVICE_MEM_MGT_EXTENSIONS	= 1 << 21,
	XIB_DEVICE_MEM_WINDOW_TYPE_2A	= 1 << 23,
	XIB_DEVICE_MEM_WINDOW_TYPE_2B	= 1 << 24,
	XIB_DEVICE_RC_IP_CSUM		= 1 << 25,
	XIB_DEVICE_RAW_IP_CSUM		= 1 << 26,
	XIB_DEVICE_MANAGED_FLOW_STEERING = 1 << 29,
};

/*
 * The vendor of a device whose driver names none: xib itself.  0x7a6962
 * has the IEEE U/L bit (0x02 of its first octet) set, so it is no
 * vendor's assigned OUI; part 1 is the software HCA.  Neither is a value
 * programs (perftest) key device-specific paths on.
 */
#define XIB_VENDOR_ID			0x7a6962
#define XIB_VENDOR_PART_ID_SOFT		1

/* Port MTUs; the values of enum ibv_mtu (256 << (mtu - 1) bytes). */
enum xib_mtu {
	XIB_MTU_256 = 1,
	XIB_MTU_512 = 2,
	XIB_MTU_1024 = 3,
	XIB_MTU_2048 = 4,
	XIB_MTU_4096 = 5,
};

#define XIB_UVERBS_ABI_VERSION	1
#define XIB_UVERBS_IOCTL_MAGIC	0xb8
/* "no object" in a handle field */
#define XIB_UVERBS_NO_HANDLE	0xffffffffu

struct xib_uverbs_get_context {
	__u32 abi_version;		/* out: XIB_UVERBS_ABI_VERSION */
	__s32 async_fd;			/* out */
	__u32 num_comp_vectors;		/* out */
	__u32 db_mmap_size;		/* out: bytes of the doorbell page */
	__aligned_u64 db_mmap_offset;	/* out */
	__u16 db_kind;			/* out: enum xib_uverbs_db_kind */
	__u16 uar_db_reg;		/* out, MMIO: the register's byte offset */
	__u32 uar_db_value;		/* out, MMIO: the value a doorbell writes */
	__aligned_u64 uar_mmap_offset;	/* out, MMIO: mmap offset of the UAR */
};

/*
 * How user space rings the doorbell (GET_CONTEXT's db_kind).  A library
 * that does not know the kind it is given uses XIB_UVERBS_KICK, which is
 * never wrong.
 */
enum xib_uverbs_db_kind {
	XIB_UVERBS_DB_SYSCALL = 0,	/* XIB_UVERBS_KICK */
	XIB_UVERBS_DB_MMIO = 1,		/* a 32-bit store to the UAR page */
};

/* xib_uverbs_device_attr.atomic_cap: the values of enum ibv_atomic_cap. */
enum xib_atomic_cap {
	XIB_ATOMIC_NONE = 0,
	XIB_ATOMIC_HCA = 1,	/* atomic among the device's own atomics */
	XIB_ATOMIC_GLOB = 2,	/* ... and with every other agent's */
};

/* Device attributes; field meanings are those of struct ibv_device_attr. */
struct xib_uverbs_device_attr {
	__aligned_u64 fw_ver;		/* major << 32 | minor << 16 | sub */
	__be64 node_guid;
	__be64 sys_image_guid;
	__aligned_u64 max_mr_size;
	__aligned_u64 page_size_cap;
	__u32 vendor_id;
	__u32 vendor_part_id;
	__u32 hw_ver;
	__u32 max_qp;
	__u32 max_qp_wr;
	__u32 device_cap_flags;		/* enum ibv_device_cap_flags */
	__u32 max_sge;
	__u32 max_sge_rd;
	__u32 max_cq;
	__u32 max_cqe;
	__u32 max_mr;
	__u32 max_pd;
	__u32 max_qp_rd_atom;
	__u32 max_ee_rd_atom;
	__u32 max_res_rd_atom;
	__u32 max_qp_init_rd_atom;
	__u32 max_ee_init_rd_atom;
	__u32 atomic_cap;		/* enum xib_atomic_cap */
	__u32 max_ee;
	__u32 max_rdd;
	__u32 max_mw;
	__u32 max_raw_ipv6_qp;
	__u32 max_raw_ethy_qp;
	__u32 max_mcast_grp;
	__u32 max_mcast_qp_attach;
	__u32 max_total_mcast_qp_attach;
	__u32 max_ah;
	__u32 max_fmr;
	__u32 max_map_per_fmr;
	__u32 max_srq;
	__u32 max_srq_wr;
	__u32 max_srq_sge;
	__u32 max_inline_data;		/* per send WQE */
	__u16 max_pkeys;
	__u8 local_ca_ack_delay;
	__u8 phys_port_cnt;
	__u32 reserved[7];
};

struct xib_uverbs_query_device {
	struct xib_uverbs_device_attr attr;	/* out */
};

/* Port attributes; field meanings are those of struct ibv_port_attr. */
struct xib_uverbs_port_attr {
	__u32 state;			/* enum xib_port_state */
	__u32 max_mtu;			/* enum xib_mtu */
	__u32 active_mtu;		/* enum xib_mtu */
	__s32 gid_tbl_len;
	__u32 port_cap_flags;
	__u32 max_msg_sz;
	__u32 bad_pkey_cntr;
	__u32 qkey_viol_cntr;
	__u16 pkey_tbl_len;
	__u16 lid;
	__u16 sm_lid;
	__u8 lmc;
	__u8 max_vl_num;
	__u8 sm_sl;
	__u8 subnet_timeout;
	__u8 init_type_reply;
	__u8 active_width;
	__u8 active_speed;
	__u8 phys_state;		/* enum xib_port_phys_state */
	__u8 link_layer;		/* 2: Ethernet */
	__u8 flags;
	__u32 port_cap_flags2;
	__u32 active_speed_ex;
	__u32 reserved[4];
};

struct xib_uverbs_query_port {
	__u32 port_num;			/* in: 1-based */
	__u32 reserved;
	struct xib_uverbs_port_attr attr;	/* out */
};

struct xib_uverbs_query_gid {
	__u32 port_num;			/* in */
	__u32 index;			/* in */
	__u8 gid[16];			/* out, network order */
	__u32 gid_type;			/* out: enum xib_gid_type */
	__u32 ndev_ifindex;		/* out: the port's interface */
};

struct xib_uverbs_query_pkey {
	__u32 port_num;			/* in */
	__u32 index;			/* in */
	__u16 pkey;			/* out, host order */
	__u16 reserved0;
	__u32 reserved1;
};

struct xib_uverbs_alloc_pd {
	__u32 pd_handle;		/* out */
	__u32 pdn;			/* out: the PD's number on the device */
};

/* DEALLOC_PD, DEREG_MR, DESTROY_AH, KICK, DEALLOC_MW */
struct xib_uverbs_destroy {
	__u32 handle;			/* in */
	__u32 reserved;
};

/* ATTACH_MCAST, DETACH_MCAST */
struct xib_uverbs_mcast {
	__u8 gid[16];			/* in: the MGID */
	__u32 qp_handle;		/* in */
	__u16 mlid;			/* in: ignored */
	__u16 reserved;
};

struct xib_uverbs_reg_mr {
	__aligned_u64 addr;		/* in: start of the caller's memory */
	__aligned_u64 length;		/* in: bytes, > 0 */
	__aligned_u64 iova;		/* in: address of addr in WQEs/RETHs */
	__u32 pd_handle;		/* in */
	__u32 access;			/* in: enum xib_access_flags */
	__u32 mr_handle;		/* out */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
	__u32 reserved;
};

/* Fields of a change @flags does not request must be zero. */
struct xib_uverbs_rereg_mr {
	__aligned_u64 addr;		/* in, CHANGE_TRANSLATION */
	__aligned_u64 length;		/* in, CHANGE_TRANSLATION: > 0 */
	__aligned_u64 iova;		/* in, CHANGE_TRANSLATION */
	__u32 mr_handle;		/* in */
	__u32 flags;			/* in: enum xib_rereg_mr_flags, not 0 */
	__u32 pd_handle;		/* in, CHANGE_PD */
	__u32 access;			/* in, CHANGE_ACCESS */
	__u32 lkey;			/* out */
	__u32 rkey;			/* out */
};

struct xib_uverbs_create_comp_channel {
	__s32 fd;			/* out */
	__u32 reserved;
};

/* One record read() from a completion channel: CQ cq_user_handle fired. */
struct xib_uverbs_comp_event {
	__aligned_u64 cq_user_handle;
};

/*
 * One record read() from the async event fd.  element is the user_handle
 * of the CQ, QP or SRQ the event is about, or the port number for port
 * events, or 0 for DEVICE_FATAL.
 */
struct xib_uverbs_async_event {
	__aligned_u64 element;
	__u32 event_type;		/* enum xib_event_type */
	__u32 reserved;
};

/* Where one ring is and how it is laid out (see hca-abi.h). */
struct xib_uverbs_ring {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;		/* bytes: header page + slots */
	__u32 slots;			/* a power of two */
	__u32 stride;			/* bytes per slot */
	__u32 reserved;
};

struct xib_uverbs_create_cq {
	__aligned_u64 user_handle;	/* in: returned in events */
	__u32 cqe;			/* in: at least this many entries */
	__u32 comp_vector;		/* in: < num_comp_vectors */
	__s32 comp_channel;		/* in: channel fd, or -1 */
	__u32 flags;			/* in: 0 */
	__u32 cq_handle;		/* out */
	__u32 cqn;			/* out */
	struct xib_uverbs_ring ring;	/* out: CQE ring; cqe = ring.slots */
};

struct xib_uverbs_resize_cq {
	__u32 cq_handle;		/* in */
	__u32 cqe;			/* in */
	struct xib_uverbs_ring ring;	/* out: the new ring */
};

/*
 * DESTROY_CQ, DESTROY_QP, DESTROY_SRQ.  The counts are of the object's
 * events user space has read; events still queued are dropped with the
 * object, so a library waits for exactly these to be acknowledged.
 */
struct xib_uverbs_destroy_events {
	__u32 handle;			/* in */
	__u32 comp_events_reported;	/* out: CQ only */
	__u32 async_events_reported;	/* out */
	__u32 reserved;
};

/* QP capabilities; those of struct ibv_qp_cap. */
struct xib_uverbs_qp_cap {
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 reserved;
};

struct xib_uverbs_create_qp {
	__aligned_u64 user_handle;	/* in: returned in async events */
	__u32 pd_handle;		/* in */
	__u32 send_cq_handle;		/* in */
	__u32 recv_cq_handle;		/* in */
	__u32 srq_handle;		/* in: or XIB_UVERBS_NO_HANDLE */
	__u32 qp_type;			/* in: enum xib_qp_type */
	__u8 sq_sig_all;		/* in: 0 or 1 */
	__u8 reserved0[3];
	struct xib_uverbs_qp_cap cap;	/* in: requested; out: granted, >= */
	__u32 qp_handle;		/* out */
	__u32 qpn;			/* out */
	struct xib_uverbs_ring sq;	/* out: send WQE ring */
	struct xib_uverbs_ring rq;	/* out: receive ring; zero with SRQ */
};

/*
 * An address vector (struct ibv_ah_attr with its GRH).  On RoCE every
 * address is global: is_global must be 1 and dgid a RoCEv2 GID.
 */
struct xib_uverbs_ah_attr {
	__u8 dgid[16];
	__u32 flow_label;		/* 20 bits */
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;			/* 0..15 */
	__u8 port_num;
	__u8 is_global;
	__u8 static_rate;
	__u8 src_path_bits;
	__u16 dlid;
	__u16 reserved;
};

/* QP attributes; those of struct ibv_qp_attr, selected by attr_mask. */
struct xib_uverbs_qp_attr {
	__u32 qp_state;
	__u32 cur_qp_state;
	__u32 path_mtu;			/* enum xib_mtu */
	__u32 path_mig_state;
	__u32 qkey;
	__u32 rq_psn;			/* 24 bits */
	__u32 sq_psn;			/* 24 bits */
	__u32 dest_qp_num;		/* 24 bits */
	__u32 qp_access_flags;		/* XIB_ACCESS_QP_SUPPORTED */
	__u16 pkey_index;
	__u16 alt_pkey_index;
	__u8 en_sqd_async_notify;
	__u8 sq_draining;		/* query only */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;		/* 0..31 */
	__u8 port_num;
	__u8 timeout;			/* 0..31 */
	__u8 retry_cnt;			/* 0..7 */
	__u8 rnr_retry;			/* 0..7 */
	__u8 alt_port_num;
	__u8 alt_timeout;
	__u8 reserved0;
	__u32 rate_limit;
	__u32 reserved1;
	struct xib_uverbs_qp_cap cap;
	struct xib_uverbs_ah_attr ah_attr;
	struct xib_uverbs_ah_attr alt_ah_attr;
};

struct xib_uverbs_modify_qp {
	__u32 qp_handle;		/* in */
	__u32 attr_mask;		/* in: enum xib_qp_attr_mask */
	struct xib_uverbs_qp_attr attr;	/* in */
};

struct xib_uverbs_query_qp {
	__u32 qp_handle;		/* in */
	__u32 attr_mask;		/* in: what the caller wants; all is given */
	struct xib_uverbs_qp_attr attr;	/* out */
	__u32 qp_type;			/* out */
	__u8 sq_sig_all;		/* out */
	__u8 reserved[3];
	__u32 send_cq_handle;		/* out */
	__u32 recv_cq_handle;		/* out */
	__u32 srq_handle;		/* out */
	__u32 pd_handle;		/* out */
};

struct xib_uverbs_create_srq {
	__aligned_u64 user_handle;	/* in */
	__u32 pd_handle;		/* in */
	__u32 max_wr;			/* in; out: granted */
	__u32 max_sge;			/* in; out: granted */
	__u32 srq_limit;		/* in */
	__u32 srq_handle;		/* out */
	__u32 srqn;			/* out */
	struct xib_uverbs_ring ring;	/* out: receive WQE ring */
};

/* MODIFY_SRQ attr_mask bits; those of enum ibv_srq_attr_mask. */
enum xib_srq_attr_mask {
	XIB_SRQ_MAX_WR = 1 << 0,
	XIB_SRQ_LIMIT = 1 << 1,
};

struct xib_uverbs_modify_srq {
	__u32 srq_handle;		/* in */
	__u32 attr_mask;		/* in: enum xib_srq_attr_mask */
	__u32 max_wr;			/* in */
	__u32 srq_limit;		/* in */
};

struct xib_uverbs_resize_srq {
	__u32 srq_handle;		/* in */
	__u32 max_wr;			/* in: at least this; out: granted */
	struct xib_uverbs_ring ring;	/* out: the new receive WQE ring */
};

struct xib_uverbs_query_srq {
	__u32 srq_handle;		/* in */
	__u32 max_wr;			/* out */
	__u32 max_sge;			/* out */
	__u32 srq_limit;		/* out */
};

struct xib_uverbs_create_ah {
	__aligned_u64 user_handle;	/* in */
	__u32 pd_handle;		/* in */
	__u32 reserved;
	struct xib_uverbs_ah_attr attr;	/* in */
	__u32 ah_handle;		/* out */
	__u32 ahn;			/* out: names the AH in UD send WQEs */
};

struct xib_uverbs_alloc_mw {
	__u32 pd_handle;		/* in */
	__u32 type;			/* in: enum xib_mw_type */
	__u32 mw_handle;		/* out */
	__u32 rkey;			/* out */
	__aligned_u64 reserved;
};

/* XIB_UVERBS_OPEN_XRCD oflags (open(2)'s O_CREAT and O_EXCL). */
enum xib_xrcd_oflags {
	XIB_XRCD_O_CREAT	= 1 << 0,
	XIB_XRCD_O_EXCL		= 1 << 1,
};

struct xib_uverbs_open_xrcd {
	__s32 fd;			/* in: names the domain by its inode; -1 */
	__u32 oflags;			/* in: enum xib_xrcd_oflags */
	__u32 xrcd_handle;		/* out */
	__u32 xrcdn;			/* out */
	__aligned_u64 reserved;
};

/*
 * SRQ types (CREATE_XSRQ); the values of enum ibv_srq_type.  An XRC SRQ
 * belongs to an XRC domain, completes its receives on its own CQ and is
 * addressed from the wire by its number (the XRCETH's XRCSRQ field).
 */
enum xib_srq_type {
	XIB_SRQT_BASIC = 0,
	XIB_SRQT_XRC = 1,
};

struct xib_uverbs_create_xsrq {
	__aligned_u64 user_handle;	/* in */
	__u32 srq_type;			/* in: enum xib_srq_type */
	__u32 pd_handle;		/* in */
	__u32 xrcd_handle;		/* in: XRC; else XIB_UVERBS_NO_HANDLE */
	__u32 cq_handle;		/* in: XRC; else XIB_UVERBS_NO_HANDLE */
	__u32 max_wr;			/* in; out: granted */
	__u32 max_sge;			/* in; out: granted */
	__u32 srq_limit;		/* in */
	__u32 reserved;
	__u32 srq_handle;		/* out */
	__u32 srqn;			/* out: the XRCETH's XRCSRQ for XRC */
	struct xib_uverbs_ring ring;	/* out: receive WQE ring */
};

struct xib_uverbs_open_qp {
	__aligned_u64 user_handle;	/* in */
	__u32 xrcd_handle;		/* in */
	__u32 qpn;			/* in */
	__u32 qp_type;			/* in: XIB_QPT_XRC_RECV */
	__u32 qp_handle;		/* out */
};

#define XIB_UVERBS_IO(nr, type) _IOWR(XIB_UVERBS_IOCTL_MAGIC, nr, type)

#define XIB_UVERBS_GET_CONTEXT		XIB_UVERBS_IO(0x00, struct xib_uverbs_get_context)
#define XIB_UVERBS_QUERY_DEVICE		XIB_UVERBS_IO(0x01, struct xib_uverbs_query_device)
#define XIB_UVERBS_QUERY_PORT		XIB_UVERBS_IO(0x02, struct xib_uverbs_query_port)
#define XIB_UVERBS_QUERY_GID		XIB_UVERBS_IO(0x03, struct xib_uverbs_query_gid)
#define XIB_UVERBS_QUERY_PKEY		XIB_UVERBS_IO(0x04, struct xib_uverbs_query_pkey)
#define XIB_UVERBS_ALLOC_PD		XIB_UVERBS_IO(0x05, struct xib_uverbs_alloc_pd)
#define XIB_UVERBS_DEALLOC_PD		XIB_UVERBS_IO(0x06, struct xib_uverbs_destroy)
#define XIB_UVERBS_REG_MR		XIB_UVERBS_IO(0x07, struct xib_uverbs_reg_mr)
#define XIB_UVERBS_DEREG_MR		XIB_UVERBS_IO(0x08, struct xib_uverbs_destroy)
#define XIB_UVERBS_CREATE_COMP_CHANNEL	XIB_UVERBS_IO(0x09, struct xib_uverbs_create_comp_channel)
#define XIB_UVERBS_CREATE_CQ		XIB_UVERBS_IO(0x0a, struct xib_uverbs_create_cq)
#define XIB_UVERBS_RESIZE_CQ		XIB_UVERBS_IO(0x0b, struct xib_uverbs_resize_cq)
#define XIB_UVERBS_DESTROY_CQ		XIB_UVERBS_IO(0x0c, struct xib_uverbs_destroy_events)
#define XIB_UVERBS_CREATE_QP		XIB_UVERBS_IO(0x0d, struct xib_uverbs_create_qp)
#define XIB_UVERBS_MODIFY_QP		XIB_UVERBS_IO(0x0e, struct xib_uverbs_modify_qp)
#define XIB_UVERBS_QUERY_QP		XIB_UVERBS_IO(0x0f, struct xib_uverbs_query_qp)
#define XIB_UVERBS_DESTROY_QP		XIB_UVERBS_IO(0x10, struct xib_uverbs_destroy_events)
#define XIB_UVERBS_CREATE_SRQ		XIB_UVERBS_IO(0x11, struct xib_uverbs_create_srq)
#define XIB_UVERBS_MODIFY_SRQ		XIB_UVERBS_IO(0x12, struct xib_uverbs_modify_srq)
#define XIB_UVERBS_QUERY_SRQ		XIB_UVERBS_IO(0x13, struct xib_uverbs_query_srq)
#define XIB_UVERBS_DESTROY_SRQ		XIB_UVERBS_IO(0x14, struct xib_uverbs_destroy_events)
#define XIB_UVERBS_CREATE_AH		XIB_UVERBS_IO(0x15, struct xib_uverbs_create_ah)
#define XIB_UVERBS_DESTROY_AH		XIB_UVERBS_IO(0x16, struct xib_uverbs_destroy)
#define XIB_UVERBS_KICK			XIB_UVERBS_IO(0x17, struct xib_uverbs_destroy)
#define XIB_UVERBS_REREG_MR		XIB_UVERBS_IO(0x18, struct xib_uverbs_rereg_mr)
#define XIB_UVERBS_RESIZE_SRQ		XIB_UVERBS_IO(0x19, struct xib_uverbs_resize_srq)
#define XIB_UVERBS_ATTACH_MCAST		XIB_UVERBS_IO(0x1a, struct xib_uverbs_mcast)
#define XIB_UVERBS_DETACH_MCAST		XIB_UVERBS_IO(0x1b, struct xib_uverbs_mcast)
#define XIB_UVERBS_ALLOC_MW		XIB_UVERBS_IO(0x1c, struct xib_uverbs_alloc_mw)
#define XIB_UVERBS_DEALLOC_MW		XIB_UVERBS_IO(0x1d, struct xib_uverbs_destroy)
#define XIB_UVERBS_OPEN_XRCD		XIB_UVERBS_IO(0x1e, struct xib_uverbs_open_xrcd)
#define XIB_UVERBS_CLOSE_XRCD		XIB_UVERBS_IO(0x1f, struct xib_uverbs_destroy)
#define XIB_UVERBS_CREATE_XSRQ		XIB_UVERBS_IO(0x20, struct xib_uverbs_create_xsrq)
#define XIB_UVERBS_OPEN_QP		XIB_UVERBS_IO(0x21, struct xib_uverbs_open_qp)

#endif /* _UAPI_XIB_UVERBS_H */
