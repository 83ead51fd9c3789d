/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib in-kernel verbs API: devices, drivers, clients and link types.
 *
 * This is the interface between xib_core and the modules above (clients
 * such as xib_uverbs and xib_cma) and below it (drivers such as xib_hca).
 * Nothing here is visible to user space; the user ABI is include/uapi/xib/.
 */
#ifndef _XIB_VERBS_H
#define _XIB_VERBS_H

#include <linux/device.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/socket.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <uapi/xib/netlink.h>
#include <uapi/xib/uverbs.h>
#include <uapi/xib/hca-abi.h>

struct xib_device;
struct xib_ucontext;
struct xib_pd;
struct xib_mr;
struct xib_mw;
struct xib_cq;
struct xib_qp;
struct xib_srq;
struct xib_ah;
struct xib_xrcd;
struct inode;
struct file;
struct xib_cq_init_attr;
struct xib_qp_init_attr;
struct xib_srq_init_attr;
struct xib_mad_addr;
struct xib_mad;
struct xib_mad_dev;
struct pid_namespace;

/* The most per-QP counters a driver may keep (ops->qp_stat_names). */
#define XIB_QP_STATS_MAX	32

/**
 * struct xib_qp_res - a driver's view of a QP, for resource dumps
 * @sq_psn: the next PSN the send queue sends
 * @rq_psn: the PSN the receive side expects next
 * @sq_outstanding: send WRs posted and not yet completed
 * @rq_outstanding: receive WRs posted and not yet consumed (0 on an SRQ)
 * @retransmits: times the send queue went back to resend (timeouts,
 *	sequence NAKs and tail-loss probes), since creation
 * @rnr_naks: RNR NAKs received, since creation
 */
struct xib_qp_res {
	u32 sq_psn;
	u32 rq_psn;
	u32 sq_outstanding;
	u32 rq_outstanding;
	u64 retransmits;
	u64 rnr_naks;
};

/**
 * struct xib_cq_res - a driver's view of a CQ, for resource dumps
 * @fill: completions written and not yet polled
 */
struct xib_cq_res {
	u32 fill;
};

/**
 * struct xib_gid - one GID table entry
 * @raw: the GID, network order
 * @valid: the entry is in use
 */
struct xib_gid {
	u8 raw[16];
	bool valid;
};

/**
 * struct xib_port - the state of one port, kept by xib_core
 * @state: enum xib_port_state
 * @phys_state: enum xib_port_phys_state
 * @active_mtu: the IB MTU in bytes (256 to 4096) the interface carries
 * @gids: the RoCEv2 GID table; an entry keeps its index while it exists
 * @active_width: IBTA link width last derived from the interface's
 *	Ethernet speed (0: not yet)
 * @active_speed: IBTA link speed derived with @active_width (0: not yet)
 *
 * For a port bound to a network interface (ops->get_netdev), the core
 * keeps all of it in step with the interface: carrier and admin state,
 * MTU, and the interface's addresses.  Protected by the device's
 * @port_lock.
 */
struct xib_port {
	u8 state;
	u8 phys_state;
	u32 active_mtu;
	struct xib_gid gids[XIB_PORT_GID_TBL_LEN];
	u8 active_width;
	u8 active_speed;
};

/**
 * struct xib_event - an asynchronous event of a device
 * @device: the device
 * @type: what happened
 * @port_num: the port, for port events
 */
struct xib_event {
	struct xib_device *device;
	enum xib_event_type type;
	u32 port_num;
};

/**
 * struct xib_event_handler - receives a device's asynchronous events
 * @device: the device
 * @handler: called in process context, with the core's registration lock
 *	held (so it may sleep, but not register or unregister anything)
 * @list: private to xib_core
 */
struct xib_event_handler {
	struct xib_device *device;
	void (*handler)(struct xib_event_handler *handler,
			const struct xib_event *event);
	struct list_head list;
};

/**
 * struct xib_ucontext_resp - what a driver's alloc_ucontext gives a new
 *	user context (XIB_UVERBS_GET_CONTEXT's response, uverbs.h)
 * @db_offset: mmap offset of the doorbell page (published)
 * @db_size: bytes of the doorbell page
 * @db_kind: enum xib_uverbs_db_kind; the fields below are for
 *	XIB_UVERBS_DB_MMIO only and stay 0 otherwise
 * @uar_offset: mmap offset of the UAR page (an io entry, published)
 * @uar_db_reg: byte offset of the doorbell register in that page
 * @uar_db_value: the value a doorbell write stores there
 *
 * The core zeroes it before the call and unpublishes both offsets if the
 * command fails after it.
 */
struct xib_ucontext_resp {
	u64 db_offset;
	u32 db_size;
	u16 db_kind;
	u16 uar_db_reg;
	u32 uar_db_value;
	u64 uar_offset;
};

/**
 * struct xib_device_ops - what a driver implements
 * @owner: the driver module
 * @driver_name: reported to user space (XIB_ATTR_DEV_DRIVER)
 * @get_netdev: optional; the network interface behind @port (1-based),
 *	with a reference the caller drops with dev_put(), or NULL
 * @port_event: optional; deliver @event, a port event (PORT_ACTIVE,
 *	PORT_ERR, GID_CHANGE...) the core derived from the interface, the
 *	device's own way: copy it and hand it to xib_dispatch_event() later,
 *	in process context and in order with the device's other events (as
 *	an HCA's event queue and interrupt would), and drop what is still
 *	queued once @dev is unregistered.  Called under the core's
 *	registration lock while @dev is registered; it must not sleep on
 *	event delivery.  Without it the core dispatches the event at once.
 * @dellink: set by drivers whose devices are created with
 *	XIB_CMD_LINK_ADD: unregister @dev and drop the driver's reference
 * @dealloc_driver: optional; called once, from the final put, to free
 *	what the driver allocated beside the device
 * @size_pd: bytes of the driver's PD structure (0: struct xib_pd alone)
 * @size_mr: likewise for an MR
 * @size_cq: likewise for a CQ
 * @size_qp: likewise for a QP
 * @size_srq: likewise for an SRQ
 * @size_ah: likewise for an AH
 *
 * Verbs (all optional as a group: a device without @create_qp has no
 * verbs and xib_uverbs refuses its resource commands with -EOPNOTSUPP).
 * The core validates arguments against the device's @attrs, the QP state
 * machine and the objects' PDs before it calls a driver; the driver
 * checks only what depends on its own state.  Objects are allocated by
 * the core with the driver's size (@size_*; the core structure is the
 * first member of the driver's, which drivers static_assert()) and zeroed;
 * create_* fill in the driver part and return 0 or a negative errno.
 * destroy_* must leave the driver using nothing of the object but the
 * memory, which references taken with xib_*_get() keep alive; the
 * optional release_* of a CQ, QP or SRQ is then called after the final
 * put, always in process context (it may sleep: the core defers it to a
 * workqueue when the final put comes from atomic context, and
 * xib_dealloc_device() waits for what was deferred), before the core
 * frees the memory.
 *
 * @alloc_ucontext: a user context opens; publish the doorbell page with
 *	xib_mmap_publish() and describe it in @resp, with the UAR if the
 *	device has one (struct xib_ucontext_resp)
 * @kick: user space rang the doorbell of @qp's send queue (engine asleep)
 * @alloc_pd: optional; set up the driver part of @pd (pdn assigned)
 * @dealloc_pd: optional; @pd has left the PD table and nothing uses it
 * @reg_mr: @mr->umem is pinned and @mr->lkey/@mr->rkey assigned by the
 *	core; optional.  A re-registration calls it for the replacing MR,
 *	which has the keys of the one it replaces, then @dereg_mr for that
 *	one (see xib_rereg_user_mr())
 * @dereg_mr: optional; @mr has left the key table.  The core then waits
 *	for the references taken with xib_mr_get_by_key() and unpins @mr->umem
 * @create_cq: set up @cq->cqe (>= attr->cqe) entries; for a user CQ
 *	(@uctx set) publish the ring and describe it in @ring
 * @resize_cq: grow or shrink to at least @cqe entries, keeping unpolled
 *	CQEs; -EINVAL if they do not fit
 * @destroy_cq: required with @create_cq; @cq has left the CQ table and no
 *	QP uses it
 * @release_cq: optional; free the driver part of @cq after the final put
 * @create_qp: @qp's pd, cqs, srq, type and qp_num are set; adjust
 *	@attr->cap to what was granted (never below the request) and for a
 *	user QP publish the rings
 * @modify_qp: apply @attr/@mask, already checked against the state
 *	machine and the device limits; the core then stores them in
 *	@qp->attr.  Called under @qp->mutex.
 * @query_qp: optional; fill in @attr what only the driver knows
 *	(sq_draining).  Called under @qp->mutex, after the core's part.
 * @destroy_qp: required with @create_qp; @qp has left the QP table
 * @release_qp: optional; free the driver part of @qp after the final put
 * @create_srq: @srq's pd, srqn and srq_limit are set; set up at least
 *	@attr->max_wr entries of @attr->max_sge SGEs, return in @attr what was
 *	granted and for a user SRQ publish the ring
 * @modify_srq: optional; arm the limit at @srq_limit, already stored in
 *	@srq->srq_limit (the core restores the old one if this fails).
 *	Called under the core's SRQ mutex.
 * @resize_srq: optional; grow or shrink to at least *@max_wr entries,
 *	keeping the posted WQEs not yet consumed (-EINVAL if they do not
 *	fit), return the number granted in *@max_wr and for a user SRQ
 *	publish the new ring in @ring.  Called under the core's SRQ mutex.
 * @destroy_srq: required with @create_srq; @srq has left the SRQ table and
 *	no QP uses it
 * @release_srq: optional; free the driver part of @srq after the final put
 * @create_ah: @ah->attr is checked (GID index valid, port 1)
 * @destroy_ah: optional; @ah has left the AH table
 * @query_qp_res: optional; fill @res (zeroed by the caller) with what
 *	only the driver knows of @qp for a resource dump.  Process context,
 *	with a reference on @qp, which may have been destroyed meanwhile
 * @query_cq_res: optional; likewise for a CQ
 * @stat_names: optional; the names of the device's @num_stats counters
 *	(lower case letters, digits and '_'; a name never changes meaning)
 * @num_stats: the number of entries of @stat_names
 * @get_stats: required with @stat_names; fill @vals with the @num_stats
 *	counters' counts since the device was allocated, in @stat_names
 *	order.  Process context, with a user reference on the device.
 * @qp_stat_names: optional; the names of every QP's @num_qp_stats
 *	counters (at most XIB_QP_STATS_MAX; names as for @stat_names)
 * @num_qp_stats: the number of entries of @qp_stat_names
 * @get_qp_stats: required with @qp_stat_names; fill @vals with @qp's
 *	counts since it was created, in @qp_stat_names order.  As
 *	@query_qp_res
 * @port_violations: optional; packets the device dropped since it was
 *	created for a P_Key of another partition (*@pkey) and UD datagrams
 *	for a wrong Q_Key (*@qkey): the port's P_Key and Q_Key violation
 *	counters.  Any context
 * @post_mad: optional; send one GSI datagram (xib_mad.h) from QP1 of
 *	@addr->ah.port_num.  Any context; must not call back into the MAD
 *	layer.  0 or a negative errno (the datagram was not sent).
 * @mcast_join: optional (without it ATTACH_MCAST is -EOPNOTSUPP); the
 *	first QP of the device is being attached to the group @mgid (checked
 *	by the core: a multicast GID): start receiving it.  Process
 *	context, under the core's mcast_lock: it must not take RTNL.
 * @mcast_leave: required with @mcast_join; the last QP of the device
 *	left the group @mgid.  Same context as @mcast_join.
 */
struct xib_device_ops {
	struct module *owner;
	const char *driver_name;
	struct net_device *(*get_netdev)(struct xib_device *dev, u32 port);
	void (*port_event)(struct xib_device *dev,
			   const struct xib_event *event);
	int (*dellink)(struct xib_device *dev);
	void (*dealloc_driver)(struct xib_device *dev);

	size_t size_pd, size_mr, size_cq, size_qp, size_srq, size_ah;

	int (*alloc_ucontext)(struct xib_ucontext *uctx,
			      struct xib_ucontext_resp *resp);
	int (*kick)(struct xib_qp *qp);
	int (*alloc_pd)(struct xib_pd *pd);
	void (*dealloc_pd)(struct xib_pd *pd);
	int (*reg_mr)(struct xib_mr *mr);
	void (*dereg_mr)(struct xib_mr *mr);
	int (*create_cq)(struct xib_cq *cq, const struct xib_cq_init_attr *attr,
			 struct xib_ucontext *uctx, struct xib_uverbs_ring *ring);
	int (*resize_cq)(struct xib_cq *cq, u32 cqe,
			 struct xib_uverbs_ring *ring);
	void (*destroy_cq)(struct xib_cq *cq);
	void (*release_cq)(struct xib_cq *cq);
	int (*create_qp)(struct xib_qp *qp, struct xib_qp_init_attr *attr,
			 struct xib_ucontext *uctx, struct xib_uverbs_ring *sq,
			 struct xib_uverbs_ring *rq);
	int (*modify_qp)(struct xib_qp *qp,
			 const struct xib_uverbs_qp_attr *attr, u32 mask);
	void (*query_qp)(struct xib_qp *qp, struct xib_uverbs_qp_attr *attr);
	void (*destroy_qp)(struct xib_qp *qp);
	void (*release_qp)(struct xib_qp *qp);
	int (*create_srq)(struct xib_srq *srq, struct xib_srq_init_attr *attr,
			  struct xib_ucontext *uctx,
			  struct xib_uverbs_ring *ring);
	int (*modify_srq)(struct xib_srq *srq, u32 srq_limit);
	int (*resize_srq)(struct xib_srq *srq, u32 *max_wr,
			  struct xib_uverbs_ring *ring);
	void (*destroy_srq)(struct xib_srq *srq);
	void (*release_srq)(struct xib_srq *srq);
	int (*create_ah)(struct xib_ah *ah);
	void (*destroy_ah)(struct xib_ah *ah);
	int (*post_mad)(struct xib_device *dev, const struct xib_mad_addr *addr,
			const struct xib_mad *mad);
	void (*query_qp_res)(struct xib_qp *qp, struct xib_qp_res *res);
	void (*query_cq_res)(struct xib_cq *cq, struct xib_cq_res *res);
	const char * const *stat_names;
	u32 num_stats;
	void (*get_stats)(struct xib_device *dev, u64 *vals);
	const char * const *qp_stat_names;
	u32 num_qp_stats;
	void (*get_qp_stats)(struct xib_qp *qp, u64 *vals);
	void (*port_violations)(struct xib_device *dev, u64 *pkey, u64 *qkey);
	int (*mcast_join)(struct xib_device *dev, const u8 *mgid);
	void (*mcast_leave)(struct xib_device *dev, const u8 *mgid);
};

/* Object types, for the per-device object tables and resource counts. */
enum xib_res_type {
	XIB_RES_PD,
	XIB_RES_MR,
	XIB_RES_CQ,
	XIB_RES_QP,
	XIB_RES_SRQ,
	XIB_RES_AH,
	XIB_RES_MW,
	XIB_RES_UCONTEXT,
	XIB_RES_XRCD,
	XIB_RES_MAX
};

/*
 * enum xib_core_stat: the counters xib_core keeps for every device.
 * Readers see them after the driver's counters, under the names of
 * xib_core_stat_names[] (core/stats.c; meanings in
 * Documentation/counters.rst).  Append, never reorder or rename.
 */
enum xib_core_stat {
	XIB_CORE_STAT_MAD_TX,
	XIB_CORE_STAT_MAD_TX_ERRORS,
	XIB_CORE_STAT_MAD_RX,
	XIB_CORE_STAT_MAD_RX_DROPPED,
	XIB_CORE_STAT_MAD_RX_UNCLAIMED,
	XIB_CORE_STAT_MAD_TIMEOUTS,
	XIB_CORE_STAT_MAD_RETRIES,
	XIB_CORE_STAT_CM_TX_REQ,
	XIB_CORE_STAT_CM_TX_MRA,
	XIB_CORE_STAT_CM_TX_REJ,
	XIB_CORE_STAT_CM_TX_REP,
	XIB_CORE_STAT_CM_TX_RTU,
	XIB_CORE_STAT_CM_TX_DREQ,
	XIB_CORE_STAT_CM_TX_DREP,
	XIB_CORE_STAT_CM_TX_SIDR_REQ,
	XIB_CORE_STAT_CM_TX_SIDR_REP,
	XIB_CORE_STAT_CM_RX_REQ,
	XIB_CORE_STAT_CM_RX_MRA,
	XIB_CORE_STAT_CM_RX_REJ,
	XIB_CORE_STAT_CM_RX_REP,
	XIB_CORE_STAT_CM_RX_RTU,
	XIB_CORE_STAT_CM_RX_DREQ,
	XIB_CORE_STAT_CM_RX_DREP,
	XIB_CORE_STAT_CM_RX_SIDR_REQ,
	XIB_CORE_STAT_CM_RX_SIDR_REP,
	XIB_CORE_STAT_CM_RX_DROPPED,
	XIB_CORE_STAT_CM_RX_DUPS,
	XIB_CORE_NSTATS
};

/**
 * struct xib_core_stats - one CPU's counts of enum xib_core_stat
 * @v: by enum xib_core_stat
 */
struct xib_core_stats {
	u64 v[XIB_CORE_NSTATS];
};

extern const char * const xib_core_stat_names[XIB_CORE_NSTATS];

/**
 * struct xib_device - one RDMA device
 * @dev: the embedded device in class "xib"; its refcount is the device's
 *	kref, so the memory lives until the last xib_device_put()
 * @name: unique among all xib devices; fixed once registered
 * @index: unique, stable identifier, allocated at registration
 * @node_guid: set by the driver before registration
 * @phys_port_cnt: number of ports, set by the driver before registration
 * @ops: the driver's operations, fixed at allocation
 * @net: the network namespace the device lives in
 * @registered: true from xib_register_device() until xib_unregister_device()
 *	starts (the device then stays listed, its name taken, until its
 *	removal ends); changed under both of the core's registry locks
 * @users: registration references: clients and lookups that use the
 *	device while it is registered; unregistration waits for zero
 * @users_done: completed when @users drops to zero
 * @client_data: per-client pointers indexed by client id; written under
 *	the core's client lock (xib_clients_rwsem), read by the owning client
 * @port_lock: protects @ports
 * @ports: @phys_port_cnt ports, index 0 is port 1; allocated at
 *	registration
 * @event_rwsem: protects @event_handlers
 * @event_handlers: the registered struct xib_event_handler
 * @attrs: attributes and limits, set by the driver before registration
 *	(the core fills node_guid and phys_port_cnt); never changed after
 * @res: per type, the live objects by number (pdn, MR key index, cqn,
 *	qpn, srqn, ahn, MW key index; contexts by an id); xa_lock protects
 *	lookups
 * @res_count: per type, the number of live objects
 * @cm_ids: the RDMA CM ids bound to the device (xib_cma's count of its
 *	per-device id list, for "xibctl res show"); changed only by
 *	xib_cma, under its xib_cma_lock together with that list, and read
 *	without a lock.  Zero when the device is released
 * @mad: the MAD layer's per-device state (core/mad.c): set while the
 *	MAD layer's client is attached to the device, else NULL; read under
 *	RCU
 * @core_stats: the core's own counters of the device (the MAD layer's and
 *	the IB CM's; enum xib_core_stat), per CPU; counted with
 *	xib_core_stat_inc() from any context
 * @stats_lock: protects @stats_base
 * @stats_base: the driver's counts (ops->get_stats) followed by the
 *	core's at the last reset of the counters, which readers see as
 *	differences from it; NULL until the first reset (core/stats.c)
 * @mcast_lock: serialises attaching and detaching of multicast groups;
 *	protects @mcast_groups (writers), @mcast_ngroups, @mcast_nattach
 *	and every QP's @mcast_list (core/mcast.c)
 * @mcast_groups: the multicast groups with at least one QP of the
 *	device attached (struct xib_mcast_group); read under RCU
 * @mcast_ngroups: entries of @mcast_groups
 * @mcast_nattach: attachments of QPs to groups, over all groups
 * @xrcd_lock: protects @xrcds; a lookup and the creation of a domain of
 *	the same inode are one step under it (core/verbs.c)
 * @xrcds: the XRC domains named by an inode (struct xib_xrcd)
 *
 * QP numbers and MR key indices are drawn at random (see core/verbs.c),
 * so the tables keep no allocation cursor.
 */
struct xib_device {
	struct device dev;
	char name[XIB_DEVICE_NAME_MAX];
	u32 index;
	__be64 node_guid;
	u32 phys_port_cnt;
	const struct xib_device_ops *ops;
	possible_net_t net;

	bool registered;
	refcount_t users;
	struct completion users_done;
	struct xarray client_data;

	struct mutex port_lock;		/* protects @ports */
	struct xib_port *ports;

	struct rw_semaphore event_rwsem;	/* protects @event_handlers */
	struct list_head event_handlers;

	struct xib_uverbs_device_attr attrs;
	struct xarray res[XIB_RES_MAX];
	atomic_t res_count[XIB_RES_MAX];
	atomic_t cm_ids;

	struct xib_mad_dev __rcu *mad;

	struct xib_core_stats __percpu *core_stats;
	struct mutex stats_lock;	/* protects @stats_base */
	u64 *stats_base;
	struct mutex mcast_lock;	/* see above */
	struct list_head mcast_groups;
	unsigned int mcast_ngroups;
	unsigned int mcast_nattach;
	struct mutex xrcd_lock;		/* protects @xrcds */
	struct list_head xrcds;
};

static inline struct xib_device *to_xib_device(struct device *dev)
{
	return container_of(dev, struct xib_device, dev);
}

/**
 * xib_core_stat_inc() - count one event of the core for a device
 * @dev: the device
 * @stat: which counter
 *
 * Context: any (one per-CPU add, safe against interrupts).
 */
static inline void xib_core_stat_inc(struct xib_device *dev,
				     enum xib_core_stat stat)
{
	this_cpu_inc(dev->core_stats->v[stat]);
}

static inline struct net *xib_device_net(const struct xib_device *dev)
{
	return read_pnet(&dev->net);
}

/**
 * struct xib_client - an upper-layer module that attaches to every device
 * @name: for messages
 * @add: called for each registered device, and for every device that
 *	registers later; may fail, in which case the client simply does not
 *	attach to that device (remove is then not called for it)
 * @remove: called before a device goes away or when the client
 *	unregisters; @client_data is what add stored with
 *	xib_set_client_data()
 * @id: private to xib_core: the index of the client's slot in each
 *	device's client_data, allocated at registration
 * @list: private to xib_core: entry in the list of clients, under the
 *	core's client lock
 *
 * Callbacks run in process context with the core's client lock held
 * (xib_clients_rwsem); @add, and a @remove that undoes an attachment the
 * core could not record, also with its registry mutex.  They may sleep
 * but must not register or unregister devices or clients.  @remove may
 * wait long (for running commands): other devices' removals and
 * registrations go on meanwhile, and may run other devices' callbacks
 * of the same client at the same time.
 */
struct xib_client {
	const char *name;
	int (*add)(struct xib_device *dev);
	void (*remove)(struct xib_device *dev, void *client_data);
	u32 id;
	struct list_head list;
};

/**
 * struct xib_link_ops - a link type creatable with XIB_CMD_LINK_ADD
 * @type: the name user space gives ("hca")
 * @owner: the module providing it
 * @newlink: create and register device @name over @ndev, bound to the PCI
 *	function named @pci too unless it is NULL; returns 0 or a
 *	negative errno, with a message in @extack when it helps the user.
 *	Called with a reference on @owner and on @ndev, under RTNL-free
 *	process context.
 * @list: private to xib_core: entry in the list of link types, under the
 *	core's registration lock
 *
 * The device's own ops->dellink removes what @newlink created.
 */
struct xib_link_ops {
	const char *type;
	struct module *owner;
	int (*newlink)(const char *name, struct net_device *ndev,
		       const char *pci, struct netlink_ext_ack *extack);
	struct list_head list;
};

struct xib_device *xib_alloc_device(const struct xib_device_ops *ops,
				    size_t size);
void xib_dealloc_device(struct xib_device *dev);

int xib_register_device(struct xib_device *dev, const char *name,
			struct net *net);
void xib_unregister_device(struct xib_device *dev);

static inline void xib_device_get(struct xib_device *dev)
{
	get_device(&dev->dev);
}

static inline void xib_device_put(struct xib_device *dev)
{
	put_device(&dev->dev);
}

struct xib_device *xib_device_get_by_name(struct net *net, const char *name);
struct xib_device *xib_device_get_by_index(struct net *net, u32 index);
void xib_device_release_user(struct xib_device *dev);
bool xib_netns_shared(void);
void xib_set_netns_shared(bool shared);
bool xib_dev_access_netns(const struct xib_device *dev, struct net *net);

int xib_register_client(struct xib_client *client);
void xib_unregister_client(struct xib_client *client);
void *xib_get_client_data(struct xib_device *dev, struct xib_client *client);
int xib_set_client_data(struct xib_device *dev, struct xib_client *client,
			void *data);

void xib_register_event_handler(struct xib_event_handler *handler);
void xib_unregister_event_handler(struct xib_event_handler *handler);
void xib_dispatch_event(const struct xib_event *event);

u32 xib_ib_mtu(unsigned int ndev_mtu);
/* Packet capture over netlink (core/netlink.c, XIB_CMD_TRACE_PKT). */
bool xib_trace_wanted(struct xib_device *dev);
struct sk_buff *xib_trace_start(struct xib_device *dev, u8 dir, u32 len,
				void **data);
void xib_trace_send(struct xib_device *dev, struct sk_buff *msg);

int xib_query_port(struct xib_device *dev, u32 port, struct xib_port *attr);
int xib_query_gid(struct xib_device *dev, u32 port, u32 index, u8 gid[16]);

int xib_link_register(struct xib_link_ops *ops);
void xib_link_unregister(struct xib_link_ops *ops);

/*
 * Verbs objects
 * -------------
 * Every object has a kref (@ref) that keeps its memory, and an owner: the
 * user context that created it (@uctx) or NULL for the kernel.  Objects
 * others depend on count their users in @usecnt; destroying one with
 * users fails with -EBUSY.  An object holds a reference on each object it
 * uses (a QP on its PD, CQs and SRQ) until it is destroyed.  Each live
 * object is in its device's @res table under its number until destroy,
 * so the engine finds them with xib_*_get_by_num(), which takes a
 * reference the caller drops with xib_*_put().
 */

/**
 * struct xib_mmap_entry - kernel memory user space may map
 * @ref: held by its creator, by each context that published it and by
 *	each VMA mapping it; the final put frees @vaddr
 * @vaddr: vmalloc memory charged to the allocator's memory cgroup:
 *	zeroed, page aligned, @size bytes
 * @size: a multiple of PAGE_SIZE
 * @read_only: refuse writable mappings
 * @io: device memory (a UAR): one page of MMIO at @io_addr, which @vaddr
 *	(NULL) does not describe; mapped uncached, writable and never
 *	executable, not inherited by fork() and never moved
 * @io_addr: with @io, the page's physical address
 * @mm: the process whose pinned_vm the entry is charged to (mmgrab), or
 *	NULL; set once, by the first xib_mmap_publish()
 */
struct xib_mmap_entry {
	struct kref ref;
	void *vaddr;
	size_t size;
	bool read_only;
	bool io;
	phys_addr_t io_addr;
	struct mm_struct *mm;
};

struct xib_mmap_entry *xib_mmap_alloc(size_t size, bool read_only);
struct xib_mmap_entry *xib_mmap_alloc_io(phys_addr_t addr);
void xib_mmap_get(struct xib_mmap_entry *entry);
void xib_mmap_put(struct xib_mmap_entry *entry);
int xib_mmap_publish(struct xib_ucontext *uctx, struct xib_mmap_entry *entry,
		     u64 *offset);
void xib_mmap_unpublish(struct xib_ucontext *uctx, u64 offset);
struct xib_mmap_entry *xib_mmap_lookup(struct xib_ucontext *uctx, u64 offset);

/**
 * struct xib_ucontext - a user context (one open of /dev/xib/uverbsN)
 * @device: the device
 * @mmap_xa: published mmap entries by page offset (each holds a
 *	reference); the xarray's lock protects it
 * @mmap_next: next page offset to hand out; under the xarray's lock
 * @id: number in the device's XIB_RES_UCONTEXT table
 * @res_count: per object type, the objects of this context that exist,
 *	bounded by the xib_core module parameters max_*_per_context
 * @owner_pid: the thread group that created the context (a reference,
 *	put by xib_ucontext_cleanup()); for resource dumps
 * @owner_euid: the creator's effective user id, which owns the context
 *	and its objects in resource dumps
 * @owner_ns: the creator's user namespace (a reference, put by
 *	xib_ucontext_cleanup()), with @owner_euid the per-user count charged
 * @owner_comm: the creator's command name at creation
 *
 * The owner fields are fixed by xib_ucontext_init().  A dump reads them
 * under the xa_lock of a device table in which the context or one of its
 * objects is found, which keeps the context alive: its objects leave
 * their tables before it leaves its own, and it is freed only after that.
 */
struct xib_ucontext {
	struct xib_device *device;
	struct xarray mmap_xa;
	unsigned long mmap_next;
	u32 id;
	atomic_t res_count[XIB_RES_MAX];
	struct pid *owner_pid;
	kuid_t owner_euid;
	struct user_namespace *owner_ns;
	char owner_comm[TASK_COMM_LEN];
};

int xib_ucontext_init(struct xib_ucontext *uctx, struct xib_device *dev);
void xib_ucontext_cleanup(struct xib_ucontext *uctx);

/**
 * struct xib_uid_count - how many objects of a kind each user holds
 * @lock: serialises every change and read of @table and @entries
 * @table: struct xib_uid_entry (core/user.c) per (user namespace, uid)
 *	holding something; one holding none has no entry
 * @entries: how many entries @table has
 *
 * Set up by xib_uid_count_init(); charged by xib_uid_charge() or
 * xib_uid_charge_capable() when an object is created, which counts the
 * user and each owner of its namespaces up to the initial one (as the
 * kernel's ucounts), uncharged by xib_uid_uncharge() with the same
 * namespace and uid when it goes (core/user.c); xib_uid_count_destroy()
 * once nothing is charged.
 */
struct xib_uid_count {
	struct mutex lock;	/* protects @table, @entries */
	DECLARE_HASHTABLE(table, 6);
	unsigned long entries;
};

/* Levels of a chain: the user and 32 nested namespaces' owners at most. */
#define XIB_UID_LEVELS	33

/**
 * struct xib_uid_level - one level of a charge
 * @ns: the user namespace (compared only)
 * @uid: the uid, as its value in the initial user namespace
 */
struct xib_uid_level {
	const void *ns;
	u32 uid;
};

void xib_uid_count_init(struct xib_uid_count *uc);
void xib_uid_count_destroy(struct xib_uid_count *uc);
int xib_uid_charge_levels(struct xib_uid_count *uc,
			  const struct xib_uid_level *lv, unsigned int n,
			  unsigned int max);
void xib_uid_uncharge_levels(struct xib_uid_count *uc,
			     const struct xib_uid_level *lv, unsigned int n);
unsigned long xib_uid_read_level(struct xib_uid_count *uc,
				 const struct xib_uid_level *lv);
int xib_uid_charge(struct xib_uid_count *uc, struct user_namespace *ns,
		   kuid_t uid, unsigned int max);
int xib_uid_charge_capable(struct xib_uid_count *uc, struct user_namespace *ns,
			   kuid_t uid, unsigned int max);
void xib_uid_uncharge(struct xib_uid_count *uc, struct user_namespace *ns,
		      kuid_t uid);
unsigned long xib_uid_read(struct xib_uid_count *uc, struct user_namespace *ns,
			   kuid_t uid);
bool xib_uid_count_empty(struct xib_uid_count *uc);

/**
 * struct xib_umem - pinned user memory
 * @mm: the mm charged for the pinned pages (pinned_vm), held with mmgrab
 * @address: first byte (user virtual address)
 * @length: bytes
 * @npages: entries of @pages
 * @pages: the pinned pages; @address is at byte offset_in_page(@address)
 *	of the first
 * @writable: pinned for writing (FOLL_WRITE)
 */
struct xib_umem {
	struct mm_struct *mm;
	u64 address;
	u64 length;
	unsigned long npages;
	struct page **pages;
	bool writable;
};

struct xib_umem *xib_umem_get(struct xib_device *dev, u64 addr, u64 length,
			      int access);
void xib_umem_release(struct xib_umem *umem);
int xib_umem_copy_to(struct xib_umem *umem, u64 offset, const void *src,
		     size_t len);
int xib_umem_copy_from(void *dst, struct xib_umem *umem, u64 offset,
		       size_t len);

struct xib_pd {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	atomic_t usecnt;	/* MRs, MWs, QPs, SRQs and AHs on this PD */
	u32 pdn;
};

/**
 * struct xib_mr - a memory region
 * @device: the device
 * @uctx: the owner: the user context of @pd, or NULL for the kernel
 * @ref: keeps the memory; see "Verbs objects" above
 * @pd: the PD, which counts the MR in its usecnt until deregistration
 * @iova: address of the first byte in WQEs and RETHs
 * @length: bytes
 * @access: enum xib_access_flags
 * @lkey: (index in the device's MR table << 8) | a tag byte
 * @rkey: equal to @lkey
 * @umem: the pinned memory; NULL for a kernel MR (none yet)
 * @mw_binds: memory windows bound to the MR; XIB_USECNT_DEAD-style
 *	negative once deregistration (or re-registration) claimed it, so
 *	that no window binds to it any more (see xib_bind_mw())
 */
struct xib_mr {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	struct xib_pd *pd;
	u64 iova;
	u64 length;
	u32 access;
	u32 lkey;
	u32 rkey;
	struct xib_umem *umem;
	atomic_t mw_binds;
};

/*
 * Key indices (rkey bits 31-8): MRs take 1 to XIB_MR_INDEX_MAX, memory
 * windows XIB_MW_INDEX_MIN to 0xffffff, so an rkey says which table to
 * look in.
 */
#define XIB_MR_INDEX_MAX	0x7fffffU
#define XIB_MW_INDEX_MIN	0x800000U

static inline bool xib_key_is_mw(u32 key)
{
	return (key >> 8) >= XIB_MW_INDEX_MIN;
}

/**
 * enum xib_mw_state - the states of a memory window (IBTA 10.6.7)
 * @XIB_MW_FREE: type 2, not bound: a type 2 bind may take it
 * @XIB_MW_VALID: type 1 always (bound, or unbound with length 0); type 2
 *	bound to a QP: remote accesses through its rkey may succeed
 * @XIB_MW_INVALID: deallocated; nothing takes it any more
 */
enum xib_mw_state {
	XIB_MW_FREE,
	XIB_MW_VALID,
	XIB_MW_INVALID,
};

/**
 * struct xib_mw - a memory window
 * @device: the device
 * @uctx: the owner: the user context of @pd
 * @ref: keeps the memory; see "Verbs objects" above
 * @pd: the PD, which counts the window in its usecnt until dealloc
 * @type: XIB_MW_TYPE_1 or XIB_MW_TYPE_2 (type 2B: bound to one QP)
 * @index: the key index (rkey >> 8), fixed; the key of the device's
 *	XIB_RES_MW table
 * @lock: protects the rest; taken in any context (irqsave)
 * @state: enum xib_mw_state
 * @rkey: @index << 8 | the key byte of the last bind (at first random)
 * @mr: the MR bound to, with a reference and a count in its @mw_binds;
 *	NULL when unbound
 * @addr: first byte of the window (an address of @mr)
 * @length: bytes; 0 for an unbound window
 * @access: XIB_ACCESS_MW_SUPPORTED bits granted; with ZERO_BASED (type
 *	2 only) remote requests address the window by offset from @addr
 * @qp: type 2, bound: the QP it was bound on, with a reference (so that
 *	no later QP, even one given the same number, is taken for it); the
 *	QP's destruction does not unbind the window, which then serves no
 *	QP until it is invalidated or deallocated
 */
struct xib_mw {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	struct xib_pd *pd;
	u32 type;
	u32 index;
	spinlock_t lock;	/* see above */
	enum xib_mw_state state;
	u32 rkey;
	struct xib_mr *mr;
	u64 addr;
	u64 length;
	u32 access;
	struct xib_qp *qp;
};

/**
 * struct xib_mw_bind - what a bind asks (a BIND_MW WQE's fields)
 * @new_rkey: the rkey the window gets
 * @addr: first byte
 * @length: bytes; 0 unbinds (type 1 only)
 * @access: XIB_ACCESS_MW_SUPPORTED bits
 * @type1: posted by the Bind Memory Window verb (XIB_HCA_BIND_TYPE1)
 */
struct xib_mw_bind {
	u32 new_rkey;
	u64 addr;
	u64 length;
	u32 access;
	bool type1;
};

/* The IBTA's rules (pure functions, KUnit-tested; mw->lock held). */
int xib_mw_bind_check(const struct xib_mw *mw, const struct xib_pd *qp_pd,
		      const struct xib_mr *mr, const struct xib_mw_bind *b);
int xib_mw_access_check(const struct xib_mw *mw, const struct xib_pd *pd,
			const struct xib_qp *qp, u32 rkey, u64 va, u64 length,
			u32 access);
int xib_mw_inv_check(const struct xib_mw *mw, const struct xib_pd *pd,
		     const struct xib_qp *qp, u32 rkey);
u64 xib_mw_mr_va(const struct xib_mw *mw, u64 va);

int xib_mr_check(const struct xib_mr *mr, const struct xib_pd *pd, u64 iova,
		 u64 length, u32 access);

/**
 * struct xib_cq_init_attr - what creates a CQ
 * @cqe: minimum entries, 1 to attrs.max_cqe
 * @comp_vector: < the device's completion vectors (1)
 * @comp_handler: called once per fired arm; any context, must not sleep
 * @event_handler: asynchronous CQ events (CQ_ERR); any context
 * @context: for the handlers
 * @user_handle: the consumer's name for the CQ (reported in events)
 */
struct xib_cq_init_attr {
	u32 cqe;
	u32 comp_vector;
	void (*comp_handler)(struct xib_cq *cq);
	void (*event_handler)(struct xib_cq *cq, enum xib_event_type type);
	void *context;
	u64 user_handle;
};

struct xib_cq {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	atomic_t usecnt;	/* QPs using this CQ */
	u32 cqn;
	u32 cqe;
	void (*comp_handler)(struct xib_cq *cq);
	void (*event_handler)(struct xib_cq *cq, enum xib_event_type type);
	void *context;
	u64 user_handle;
	struct work_struct release_work;	/* see xib_cq_put() */
};

/**
 * struct xib_qp_init_attr - what creates a QP
 * @send_cq: the CQ of send completions; NULL for an XRC target
 * @recv_cq: the CQ of receive completions; NULL for XRC QPs
 * @srq: the SRQ receives come from, or NULL for a receive queue of the QP
 * @xrcd: an XRC target's domain (the QP then has no PD), else NULL
 * @qp_type: XIB_QPT_RC, _UC, _UD, _XRC_SEND or _XRC_RECV
 * @sq_sig_all: every send WR completes with a CQE, signalled or not
 * @cap: requested capacities; on return, what was granted
 * @event_handler: asynchronous QP events; any context, must not sleep
 * @context: for the handler
 * @user_handle: the consumer's name for the QP
 */
struct xib_qp_init_attr {
	struct xib_cq *send_cq;
	struct xib_cq *recv_cq;
	struct xib_srq *srq;
	struct xib_xrcd *xrcd;
	enum xib_qp_type qp_type;
	bool sq_sig_all;
	struct xib_uverbs_qp_cap cap;
	void (*event_handler)(struct xib_qp *qp, enum xib_event_type type);
	void *context;
	u64 user_handle;
};

/**
 * struct xib_qp - a queue pair
 * @device: the device
 * @uctx: the owner: a user context, or NULL for the kernel
 * @ref: keeps the memory; see "Verbs objects" above
 * @pd: the PD; NULL for an XRC target
 * @send_cq: the CQ of send completions; NULL for an XRC target
 * @recv_cq: the CQ of receive completions; NULL for XRC QPs
 * @srq: the SRQ receives come from, or NULL
 * @xrcd: an XRC target's domain (a reference), else NULL
 * @xrc_handles: an XRC target's handles (its creator's and those of
 *	xib_open_qp()); under @device->xrcd_lock.  The last
 *	xib_destroy_qp() destroys it.
 * @qp_type: enum xib_qp_type, fixed at creation
 * @sq_sig_all: every send WR completes with a CQE
 * @qp_num: the QP number (16 to 2^24 - 1), the key in the device's QP
 *	table
 * @cap: the capacities granted at creation; fixed
 * @attr: current attributes as last set by modify (state included)
 * @event_handler: asynchronous QP events (xib_qp_event()); any context,
 *	must not sleep
 * @context: for the handler
 * @user_handle: the consumer's name for the QP
 * @release_work: runs the release in process context when the final put
 *	comes from atomic context; see xib_qp_put()
 *
 * @pd, the CQs and the SRQ are set at creation; the QP counts in their
 * usecnt until it is destroyed and holds a reference on each until its
 * final put.
 */
struct xib_qp {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	struct xib_pd *pd;
	struct xib_cq *send_cq;
	struct xib_cq *recv_cq;
	struct xib_srq *srq;
	struct xib_xrcd *xrcd;
	unsigned int xrc_handles;
	enum xib_qp_type qp_type;
	bool sq_sig_all;
	u32 qp_num;
	struct xib_uverbs_qp_cap cap;
	/** @mutex: serialises modify and query; protects @attr */
	struct mutex mutex;
	struct xib_uverbs_qp_attr attr;
	void (*event_handler)(struct xib_qp *qp, enum xib_event_type type);
	void *context;
	u64 user_handle;
	struct work_struct release_work;
	/** @mcast_list: the QP's attachments; under device->mcast_lock */
	struct list_head mcast_list;
};

struct xib_srq_init_attr {
	enum xib_srq_type srq_type;
	struct xib_xrcd *xrcd;	/* XRC: the domain */
	struct xib_cq *cq;	/* XRC: the CQ of its receives */
	u32 max_wr;		/* in; out: granted */
	u32 max_sge;		/* in; out: granted */
	u32 srq_limit;
	void (*event_handler)(struct xib_srq *srq, enum xib_event_type type);
	void *context;
	u64 user_handle;
};

struct xib_srq {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	atomic_t usecnt;	/* QPs using this SRQ */
	struct xib_pd *pd;
	enum xib_srq_type srq_type;
	struct xib_xrcd *xrcd;	/* XRC: a reference */
	struct xib_cq *cq;	/* XRC: a use and a reference */
	u32 srqn;
	u32 max_wr;
	u32 max_sge;
	u32 srq_limit;		/* see xib_modify_srq(), xib_srq_event() */
	void (*event_handler)(struct xib_srq *srq, enum xib_event_type type);
	void *context;
	u64 user_handle;
	struct work_struct release_work;	/* see xib_srq_put() */
};

/**
 * struct xib_xrcd - an XRC domain (IBTA 10.2.9): the scope in which XRC
 *	SRQs and XRC target QPs are shared
 * @device: its device
 * @ref: one for each opener (an open handle of a user context) and each
 *	object in the domain
 * @inode: the inode that names the domain, or NULL for one opened
 *	without a file, which only its creator's handle reaches
 * @path: with an @inode: the path of the file it was created through,
 *	held (so the inode and its filesystem stay while the domain does)
 * @list: in @device->xrcds while it has an @inode (under xrcd_lock)
 * @xrcdn: its number on the device
 *
 * Every user context that opens the same inode on the same device gets
 * the same domain; it lives while any opener or object holds it.
 */
struct xib_xrcd {
	struct xib_device *device;
	struct kref ref;
	struct inode *inode;
	struct path path;
	struct list_head list;
	u32 xrcdn;
};

/* ibv_open_xrcd()'s oflags, as XIB_UVERBS_OPEN_XRCD takes them. */
#define XIB_XRCD_OFLAGS	(XIB_XRCD_O_CREAT | XIB_XRCD_O_EXCL)

struct xib_xrcd *xib_open_xrcd(struct xib_device *dev,
			       struct xib_ucontext *uctx, struct file *file,
			       u32 oflags);
void xib_close_xrcd(struct xib_xrcd *xrcd, struct xib_ucontext *uctx);
void xib_xrcd_put(struct xib_xrcd *xrcd);

struct xib_ah {
	struct xib_device *device;
	struct xib_ucontext *uctx;
	struct kref ref;
	struct xib_pd *pd;
	u32 ahn;
	struct xib_uverbs_ah_attr attr;
	u64 user_handle;
};

void xib_query_device(struct xib_device *dev,
		      struct xib_uverbs_device_attr *attr);
struct xib_pd *xib_alloc_pd(struct xib_device *dev, struct xib_ucontext *uctx);
int xib_dealloc_pd(struct xib_pd *pd);
struct xib_mr *xib_reg_user_mr(struct xib_pd *pd, u64 addr, u64 length,
			       u64 iova, u32 access);
int xib_dereg_mr(struct xib_mr *mr);
struct xib_mr *xib_rereg_user_mr(struct xib_mr *mr, u32 flags,
				 struct xib_pd *pd, u64 addr, u64 length,
				 u64 iova, u32 access);
struct xib_cq *xib_create_cq(struct xib_device *dev, struct xib_ucontext *uctx,
			     const struct xib_cq_init_attr *attr,
			     struct xib_uverbs_ring *ring);
int xib_resize_cq(struct xib_cq *cq, u32 cqe, struct xib_uverbs_ring *ring);
int xib_destroy_cq(struct xib_cq *cq);
struct xib_qp *xib_create_qp(struct xib_pd *pd, struct xib_ucontext *uctx,
			     struct xib_qp_init_attr *attr,
			     struct xib_uverbs_ring *sq,
			     struct xib_uverbs_ring *rq);
int xib_modify_qp(struct xib_qp *qp, const struct xib_uverbs_qp_attr *attr,
		  u32 mask);
int xib_query_qp(struct xib_qp *qp, struct xib_uverbs_qp_attr *attr);
int xib_destroy_qp(struct xib_qp *qp);
struct xib_qp *xib_open_qp(struct xib_xrcd *xrcd, u32 qpn);
int xib_ucontext_charge(struct xib_ucontext *uctx, enum xib_res_type type);
void xib_ucontext_uncharge(struct xib_ucontext *uctx, enum xib_res_type type);
struct xib_srq *xib_create_srq(struct xib_pd *pd, struct xib_ucontext *uctx,
			       struct xib_srq_init_attr *attr,
			       struct xib_uverbs_ring *ring);
int xib_modify_srq(struct xib_srq *srq, u32 mask, u32 max_wr, u32 srq_limit);
int xib_resize_srq(struct xib_srq *srq, u32 *max_wr,
		   struct xib_uverbs_ring *ring);
int xib_destroy_srq(struct xib_srq *srq);
struct xib_ah *xib_create_ah(struct xib_pd *pd, struct xib_ucontext *uctx,
			     const struct xib_uverbs_ah_attr *attr);
int xib_destroy_ah(struct xib_ah *ah);
struct xib_mw *xib_alloc_mw(struct xib_pd *pd, u32 type);
int xib_dealloc_mw(struct xib_mw *mw);
int xib_bind_mw(struct xib_qp *qp, u32 mw_rkey, u32 mr_lkey,
		const struct xib_mw_bind *b);
int xib_invalidate_mw(struct xib_qp *qp, const struct xib_pd *pd, u32 rkey);
struct xib_mr *xib_rkey_get_mr(struct xib_qp *qp, const struct xib_pd *pd,
			       u32 rkey, u64 *va, u64 length, u32 access);

/* Lookups for drivers; each returns a reference or NULL. */
struct xib_qp *xib_qp_get_by_num(struct xib_device *dev, u32 qpn);
struct xib_srq *xib_srq_get_by_num(struct xib_device *dev, u32 srqn);

/* Multicast (core/mcast.c) */
int xib_attach_mcast(struct xib_qp *qp, const u8 *mgid);
int xib_detach_mcast(struct xib_qp *qp, const u8 *mgid);
bool xib_mcast_attached(struct xib_qp *qp);
bool xib_gid_is_mcast(const u8 *gid);
int xib_mcast_ip_join(struct xib_device *dev, const u8 *mgid);
void xib_mcast_ip_leave(struct xib_device *dev, const u8 *mgid);
unsigned int xib_mcast_get_qps(struct xib_device *dev, const u8 *mgid,
			       struct xib_qp **qps, unsigned int max);
struct xib_mr *xib_mr_get_by_key(struct xib_device *dev, u32 key);
struct xib_ah *xib_ah_get_by_num(struct xib_device *dev, u32 ahn);
void xib_qp_put(struct xib_qp *qp);
void xib_flush_releases(void);
void xib_mr_put(struct xib_mr *mr);
void xib_ah_put(struct xib_ah *ah);
void xib_cq_put(struct xib_cq *cq);
void xib_srq_put(struct xib_srq *srq);

/* Drivers report completions and errors through these. */
static inline void xib_cq_comp(struct xib_cq *cq)
{
	if (cq->comp_handler)
		cq->comp_handler(cq);
}

static inline void xib_cq_event(struct xib_cq *cq, enum xib_event_type type)
{
	if (cq->event_handler)
		cq->event_handler(cq, type);
}

static inline void xib_qp_event(struct xib_qp *qp, enum xib_event_type type)
{
	if (qp->event_handler)
		qp->event_handler(qp, type);
}

/*
 * The IBTA disarms an SRQ's limit when it fires: from SRQ_LIMIT_REACHED on
 * the SRQ's limit reads 0 until xib_modify_srq() arms it again.
 */
static inline void xib_srq_event(struct xib_srq *srq, enum xib_event_type type)
{
	if (type == XIB_EVENT_SRQ_LIMIT_REACHED)
		WRITE_ONCE(srq->srq_limit, 0);
	if (srq->event_handler)
		srq->event_handler(srq, type);
}

int xib_query_port_attr(struct xib_device *dev, u32 port,
			struct xib_uverbs_port_attr *attr);

/* Resource dumps: core/netlink.c walks the device tables with these. */

/**
 * struct xib_res_owner - who owns an object, as a resource dump sees it
 * @kern: the kernel owns it (no user context); the rest is zero
 * @pid: the owner's thread group id in the pid namespace the dump asked
 *	for; 0 when it has none there (the object is then hidden)
 * @euid: the owner's effective uid
 * @ctx_id: the owning user context's number
 * @comm: the owner's command name
 * @counts: for a user context itself, its objects per type
 */
struct xib_res_owner {
	bool kern;
	pid_t pid;
	kuid_t euid;
	u32 ctx_id;
	char comm[TASK_COMM_LEN];
	u32 counts[XIB_RES_MAX];
};

bool xib_res_next(struct xib_device *dev, enum xib_res_type type,
		  unsigned long *id, unsigned long max,
		  struct pid_namespace *ns, void **obj,
		  struct xib_res_owner *owner);
void xib_res_put(enum xib_res_type type, void *obj);

/**
 * struct xib_res_cm_id - an RDMA CM id as a dump shows it (a copy)
 * @idn: the id's number
 * @dev_index: the device it is bound to; 0: none
 * @dev_name: that device's name
 * @port: its port (with @dev_index)
 * @owner: who owns it (@owner.ctx_id unused)
 * @ps: port space (enum xib_nl_ps)
 * @qp_type: enum xib_qp_type
 * @state: enum xib_nl_cm_state
 * @src: the local address (AF_UNSPEC: none)
 * @dst: the peer's address (AF_UNSPEC: none)
 * @qpn: the QP given to connect or accept; 0: none
 * @backlog: a listener's
 */
struct xib_res_cm_id {
	u32 idn;
	u32 dev_index;
	char dev_name[XIB_DEVICE_NAME_MAX];
	u32 port;
	struct xib_res_owner owner;
	u32 ps;
	u8 qp_type;
	u8 state;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	u32 qpn;
	u32 backlog;
};

/**
 * struct xib_res_cm_id_source - where XIB_CMD_RES_CM_ID_GET finds ids
 * @next: copy the first id numbered *@idn or more of @net into @out,
 *	its owner's pid as @ns sees it, and set *@idn to its number;
 *	false when there is none.  Process context; may sleep.
 *
 * xib_cma registers one (xib_core knows nothing of RDMA CM ids).
 */
struct xib_res_cm_id_source {
	bool (*next)(struct net *net, struct pid_namespace *ns,
		     unsigned long *idn, struct xib_res_cm_id *out);
};

void xib_res_cm_id_register(const struct xib_res_cm_id_source *src);
void xib_res_cm_id_unregister(const struct xib_res_cm_id_source *src);

#endif /* _XIB_VERBS_H */
