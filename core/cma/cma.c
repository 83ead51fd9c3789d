// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA CM: rdma_cm_ids, their addresses and ports, address and route
 * resolution over IP routing (RoCE), and connections over the IB CM.
 *
 * Locking, outermost first:
 *  - priv->handler_mutex: held while the consumer's handler runs and while
 *    an event is decided, so that events of an id are delivered one at a
 *    time and none after destroy has begun;
 *  - priv->lock: the id's state, addresses, device, path and CM id;
 *  - xib_cma_lock (cma_main.c): the devices, each device's id list and
 *    its count (xib_device.cm_ids, which "xibctl res show" prints);
 *  - xib_cma_bind_lock: the bound ids (ports of every port space).
 * An xib_cm_id is never destroyed with handler_mutex or lock held: its
 * destroy waits for its handler, which takes them.
 */

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/pid_namespace.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/neighbour.h>
#include <net/net_namespace.h>
#include <net/route.h>

#include "cma_priv.h"

#define XIB_CMA_MAX_TIMEOUT_MS		3600000
#define XIB_CMA_NEIGH_POLL_MS		10	/* first look again after */
#define XIB_CMA_NEIGH_POLL_MAX_MS	500	/* doubling up to */
#define XIB_CMA_DEFAULT_BACKLOG		128
#define XIB_CMA_MAX_BACKLOG		1024
#define XIB_CMA_CM_RESPONSE_TIMEOUT	20	/* 4.096 us * 2^20: ~4.3 s */
#define XIB_CMA_MAX_CM_RETRIES		15
#define XIB_CMA_PACKET_LIFETIME		16
#define XIB_CMA_DEFAULT_ACK_TIMEOUT	14
#define XIB_CMA_MC_HOP_LIMIT		64	/* IPV6_DEFAULT_HOPLIMIT */
#define XIB_CMA_SIDR_TIMEOUT_MS		1000
#define XIB_CMA_SIDR_RETRIES		3

/**
 * struct xib_cma_priv - an id and what only the CM sees of it
 * @id: what the consumer sees
 * @ref: the memory; held by the consumer (until destroy) and by children
 *	counting against a listener's backlog
 * @net: the network namespace (a reference)
 * @handler_mutex: see the file comment
 * @lock: protects the fields below it
 * @state: enum xib_cma_state, moved only through xib_cma_next_state()
 * @src: the local address (AF_UNSPEC: none)
 * @dst: the peer's address (AF_UNSPEC: none)
 * @cdev: the device, once bound to one (also on @cdev->ids)
 * @dev_list: on @cdev->ids, under xib_cma_lock
 * @port_num: the port of @cdev
 * @path: the path; the GIDs are set once the address is resolved
 * @have_path: route resolved
 * @bound_any: bound to the wildcard address (the address @src gets from
 *	address resolution is given back if resolution fails)
 * @dmac: the peer's MAC address
 * @cm_id: the IB CM id of a connection or SIDR exchange
 * @passive: the id was created by a connection request
 * @rep_psn: passive: the starting PSN the REP will carry (the first PSN
 *	this end's QP expects), chosen with the id so that the QP can go to
 *	RTR and RTS before the REP (as rdma-core and the Linux RDMA CM move it)
 * @rep_rcvd: the active side got the REP
 * @dreq_rcvd: the peer sent a DREQ not yet answered
 * @tos: the type of service (RDMA_OPTION_ID_TOS)
 * @tos_set: @tos was set by the consumer
 * @reuseaddr: RDMA_OPTION_ID_REUSEADDR
 * @afonly: RDMA_OPTION_ID_AFONLY
 * @ack_timeout: the local ACK timeout for the QP and the REQ
 *	(RDMA_OPTION_ID_ACK_TIMEOUT; XIB_CMA_DEFAULT_ACK_TIMEOUT until set)
 * @backlog: a listener's limit of unanswered requests
 * @pending: a listener's unanswered requests
 * @listener: a child still counted in its listener's @pending
 * @timeout: when address resolution gives up (jiffies)
 * @poll_ms: how long address resolution waits before looking at the
 *	neighbour again
 * @work: address and route resolution
 * @bound: on xib_cma_binds (under xib_cma_bind_lock)
 * @bind_list: on xib_cma_binds
 * @listening: in xib_cma_binds, this id accepts requests
 * @mc_list: the multicast groups joined (struct xib_cma_mc.list);
 *	changed with both @handler_mutex and @lock held, so either keeps
 *	it stable
 * @idn: the id's number in xib_cma_ids (0 until it is there), fixed
 * @owner_pid: the thread group of the process that created the id (or
 *	its listener, for an id of a connection request), with a
 *	reference; NULL: the kernel's.  Fixed, as are the two below.
 * @owner_euid: that process's effective uid
 * @owner_comm: its command name
 * @qp_num: under @lock: the QP number given to connect or accept (0:
 *	none yet), for resource dumps
 */
struct xib_cma_priv {
	struct xib_cma_id id;
	struct kref ref;
	struct net *net;
	struct mutex handler_mutex;	/* serialises events, see above */

	struct mutex lock;		/* protects the fields below */
	enum xib_cma_state state;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	struct xib_cma_device *cdev;
	struct list_head dev_list;
	u32 port_num;
	struct xib_cm_path path;
	bool have_path;
	bool bound_any;
	u8 dmac[ETH_ALEN];
	struct xib_cm_id *cm_id;
	bool passive;
	u32 rep_psn;
	bool rep_rcvd;
	bool dreq_rcvd;
	u8 tos;
	bool tos_set;
	bool reuseaddr;
	bool afonly;
	u8 ack_timeout;
	unsigned int backlog;
	atomic_t pending;
	struct xib_cma_priv *listener;
	unsigned long timeout;
	unsigned int poll_ms;
	struct delayed_work work;

	bool bound;
	struct list_head bind_list;
	bool listening;

	struct list_head mc_list;

	u32 idn;
	struct pid *owner_pid;
	kuid_t owner_euid;
	char owner_comm[TASK_COMM_LEN];
	u32 qp_num;
};

/**
 * struct xib_cma_mc - a multicast group an id joined
 * @list: on the id's @mc_list
 * @addr: the group's IP address, as joined
 * @mgid: its MGID (IPv4-mapped for IPv4, the IPv6 address as is)
 * @context: the consumer's, echoed in the group's events
 * @ip_dev: the device whose interface holds the IP group for us (one
 *	xib_mcast_ip_join(), and a reference), or NULL: a send-only join,
 *	or the device went away.  Changed under the id's handler_mutex
 *	while @list is on the id, by whoever took it off after.
 */
struct xib_cma_mc {
	struct list_head list;
	struct sockaddr_storage addr;
	u8 mgid[16];
	void *context;
	struct xib_device *ip_dev;
};

/* The bound ids of every namespace and port space. */
static DEFINE_MUTEX(xib_cma_bind_lock);
static LIST_HEAD(xib_cma_binds);	/* protected by xib_cma_bind_lock */
static struct workqueue_struct *xib_cma_wq;

/*
 * Every id, by number, for resource dumps (xib_cma_res_next()).  An id
 * is on it from creation until its memory is freed; a dump takes a
 * reference under the xarray's lock, which xib_cma_priv_free() takes to
 * erase it, and skips ids whose count already reached zero.
 */
static DEFINE_XARRAY_ALLOC1(xib_cma_ids);

static inline struct xib_cma_priv *to_priv(struct xib_cma_id *id)
{
	return container_of(id, struct xib_cma_priv, id);
}

static void xib_cma_priv_free(struct kref *ref)
{
	struct xib_cma_priv *p = container_of(ref, struct xib_cma_priv, ref);

	if (p->idn)
		xa_erase(&xib_cma_ids, p->idn);
	put_pid(p->owner_pid);
	mutex_destroy(&p->lock);
	mutex_destroy(&p->handler_mutex);
	put_net(p->net);
	kfree(p);
}

/* Move @p by @op; -EINVAL (and nothing changes) if the table refuses. */
static int xib_cma_move(struct xib_cma_priv *p, enum xib_cma_op op)
{
	int next;

	lockdep_assert_held(&p->lock);
	next = xib_cma_next_state(p->state, op);
	if (next < 0)
		return next;
	p->state = next;
	return 0;
}

static int xib_cma_check(struct xib_cma_priv *p, enum xib_cma_op op)
{
	lockdep_assert_held(&p->lock);
	return xib_cma_next_state(p->state, op) < 0 ? -EINVAL : 0;
}

/* --- addresses ----------------------------------------------------------- */

static bool xib_cma_addr_ok(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET || sa->sa_family == AF_INET6;
}

static u16 xib_cma_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static void xib_cma_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static bool xib_cma_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
			htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* The GID of an IP address: IPv4-mapped for IPv4. */
static void xib_cma_ip_gid(const struct sockaddr_storage *ss, u8 gid[16])
{
	if (ss->ss_family == AF_INET) {
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)ss)->sin_addr.s_addr,
				       (struct in6_addr *)gid);
		return;
	}
	memcpy(gid, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

/* Same address (ports not compared); an IPv4-mapped IPv6 matches IPv4. */
static bool xib_cma_addr_eq(const struct sockaddr_storage *a,
			    const struct sockaddr_storage *b)
{
	u8 ga[16], gb[16];

	xib_cma_ip_gid(a, ga);
	xib_cma_ip_gid(b, gb);
	return !memcmp(ga, gb, 16);
}

static size_t xib_cma_addr_len(sa_family_t family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
		sizeof(struct sockaddr_in6);
}

/* --- devices ------------------------------------------------------------- */

/*
 * The xib device and port whose network interface is @ndev, among those
 * of @net.  Returns the device (still under xib_cma_lock's protection
 * only: the caller attaches to it before dropping the lock) or NULL.
 */
static struct xib_cma_device *xib_cma_find_port(struct net *net,
						struct net_device *ndev,
						u32 *port_num)
{
	struct xib_cma_device *cdev;
	struct net_device *pdev;
	u32 port;

	lockdep_assert_held(&xib_cma_lock);
	list_for_each_entry(cdev, &xib_cma_devices, list) {
		if (!net_eq(xib_device_net(cdev->xdev), net) ||
		    !cdev->xdev->ops->get_netdev)
			continue;
		for (port = 1; port <= cdev->xdev->phys_port_cnt; port++) {
			pdev = cdev->xdev->ops->get_netdev(cdev->xdev, port);
			if (!pdev)
				continue;
			dev_put(pdev);
			if (pdev == ndev) {
				*port_num = port;
				return cdev;
			}
		}
	}
	return NULL;
}

/* Attach @p to the device of @ndev; -ENODEV if no xib device serves it. */
static int xib_cma_attach(struct xib_cma_priv *p, struct net_device *ndev)
{
	struct xib_cma_device *cdev;
	u32 port = 0;
	int ret = 0;

	lockdep_assert_held(&p->lock);
	mutex_lock(&xib_cma_lock);
	cdev = xib_cma_find_port(p->net, ndev, &port);
	if (!cdev) {
		ret = -ENODEV;
	} else if (p->cdev && (p->cdev != cdev || p->port_num != port)) {
		/* Bound to another device's address. */
		ret = -EINVAL;
	} else if (!p->cdev) {
		p->cdev = cdev;
		p->port_num = port;
		list_add_tail(&p->dev_list, &cdev->ids);
		atomic_inc(&cdev->xdev->cm_ids);
	}
	mutex_unlock(&xib_cma_lock);
	return ret;
}

static void xib_cma_detach(struct xib_cma_priv *p)
{
	lockdep_assert_held(&p->lock);
	mutex_lock(&xib_cma_lock);
	if (p->cdev) {
		list_del_init(&p->dev_list);
		atomic_dec(&p->cdev->xdev->cm_ids);
	}
	p->cdev = NULL;
	p->port_num = 0;
	mutex_unlock(&xib_cma_lock);
}

/* The interface owning the local address @ss in @net (a reference). */
static struct net_device *xib_cma_local_dev(struct net *net,
					    const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ip_dev_find(net,
				   ((const struct sockaddr_in *)ss)->sin_addr.s_addr);
#if IS_ENABLED(CONFIG_IPV6)
	{
		const struct sockaddr_in6 *s6 = (const void *)ss;
		struct net_device *ndev;

		rcu_read_lock();
		ndev = ipv6_dev_find(net, &s6->sin6_addr, NULL);
		if (ndev)
			dev_hold(ndev);
		rcu_read_unlock();
		return ndev;
	}
#else
	return NULL;
#endif
}

/* --- ports --------------------------------------------------------------- */

/* Would @a and @b on the same port space and port clash? */
static bool xib_cma_conflict(const struct xib_cma_priv *a,
			     const struct xib_cma_priv *b)
{
	bool a_any = xib_cma_any(&a->src), b_any = xib_cma_any(&b->src);

	if (a->reuseaddr && b->reuseaddr && !a->listening && !b->listening)
		return false;
	if (a_any || b_any) {
		/* An AF_ONLY IPv6 wildcard leaves IPv4 alone. */
		if (a->src.ss_family != b->src.ss_family &&
		    ((a->src.ss_family == AF_INET6 && a->afonly) ||
		     (b->src.ss_family == AF_INET6 && b->afonly)))
			return false;
		return true;
	}
	return xib_cma_addr_eq(&a->src, &b->src);
}

static bool xib_cma_port_free(struct xib_cma_priv *p, u16 port)
{
	struct xib_cma_priv *o;

	lockdep_assert_held(&xib_cma_bind_lock);
	list_for_each_entry(o, &xib_cma_binds, bind_list) {
		if (o == p || !net_eq(o->net, p->net) || o->id.ps != p->id.ps ||
		    xib_cma_port(&o->src) != port)
			continue;
		if (xib_cma_conflict(o, p))
			return false;
	}
	return true;
}

/* Reserve @p->src's port (0: an ephemeral one). */
static int xib_cma_reserve_port(struct xib_cma_priv *p)
{
	u16 port = xib_cma_port(&p->src);
	int low, high, n, i;
	int ret = 0;

	lockdep_assert_held(&p->lock);
	if (port && port < PROT_SOCK &&
	    !ns_capable(p->net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;
	mutex_lock(&xib_cma_bind_lock);
	if (port) {
		if (!xib_cma_port_free(p, port))
			ret = -EADDRINUSE;
	} else {
		inet_get_local_port_range(p->net, &low, &high);
		n = high - low + 1;
		ret = -EADDRNOTAVAIL;
		for (i = 0, port = low + get_random_u32_below(n); i < n;
		     i++, port = port == high ? low : port + 1) {
			if (xib_cma_port_free(p, port)) {
				xib_cma_set_port(&p->src, port);
				ret = 0;
				break;
			}
		}
	}
	if (!ret) {
		list_add_tail(&p->bind_list, &xib_cma_binds);
		p->bound = true;
	}
	mutex_unlock(&xib_cma_bind_lock);
	return ret;
}

/*
 * Change @p->src's address (its port stays); ports are compared under
 * xib_cma_bind_lock, so a bound id's address changes under it too.
 */
static void xib_cma_set_src(struct xib_cma_priv *p,
			    const struct sockaddr_storage *src)
{
	u16 port = xib_cma_port(&p->src);

	lockdep_assert_held(&p->lock);
	mutex_lock(&xib_cma_bind_lock);
	p->src = *src;
	xib_cma_set_port(&p->src, port);
	mutex_unlock(&xib_cma_bind_lock);
}

static void xib_cma_release_port(struct xib_cma_priv *p)
{
	mutex_lock(&xib_cma_bind_lock);
	if (p->bound)
		list_del(&p->bind_list);
	p->bound = false;
	p->listening = false;
	mutex_unlock(&xib_cma_bind_lock);
}

/* --- ids ----------------------------------------------------------------- */

static void xib_cma_work(struct work_struct *work);
static void xib_cma_mc_free_all(struct list_head *mcs);

static struct xib_cma_priv *xib_cma_alloc(struct net *net,
					  xib_cma_handler handler,
					  void *context, enum xib_cma_ps ps,
					  enum xib_qp_type qp_type)
{
	struct xib_cma_priv *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return NULL;
	p->id.handler = handler;
	p->id.context = context;
	p->id.ps = ps;
	p->id.qp_type = qp_type;
	kref_init(&p->ref);
	p->net = get_net(net);
	mutex_init(&p->handler_mutex);
	mutex_init(&p->lock);
	p->state = XIB_CMA_IDLE;
	INIT_LIST_HEAD(&p->dev_list);
	INIT_LIST_HEAD(&p->bind_list);
	INIT_LIST_HEAD(&p->mc_list);
	atomic_set(&p->pending, 0);
	p->ack_timeout = XIB_CMA_DEFAULT_ACK_TIMEOUT;
	INIT_DELAYED_WORK(&p->work, xib_cma_work);
	return p;
}

/* Number @p and make it visible to resource dumps; its owner is set. */
static int xib_cma_publish(struct xib_cma_priv *p)
{
	return xa_alloc(&xib_cma_ids, &p->idn, p, xa_limit_31b,
			GFP_KERNEL_ACCOUNT);
}

/**
 * xib_cma_create_id() - a new RDMA CM id
 * @net: the network namespace it lives in
 * @handler: its event handler
 * @context: the consumer's
 * @ps: port space; TCP takes RC or UC ids, IB also XRC_SEND (an XRC
 *	initiator's, which connects) and XRC_RECV (an XRC target's, which
 *	listens and accepts), UDP and IPOIB UD ones
 * @qp_type: the QP type the connection is for
 * @owner: the user process the id is for (resource dumps show it as the
 *	owner), or NULL for the kernel's own
 *
 * Return: the id or an ERR_PTR (-EINVAL, -ENOMEM).
 */
struct xib_cma_id *xib_cma_create_id(struct net *net, xib_cma_handler handler,
				     void *context, enum xib_cma_ps ps,
				     enum xib_qp_type qp_type,
				     struct task_struct *owner)
{
	struct xib_cma_priv *p;
	int ret;

	switch (ps) {
	case XIB_CMA_PS_TCP:
		if (qp_type != XIB_QPT_RC && qp_type != XIB_QPT_UC)
			return ERR_PTR(-EINVAL);
		break;
	case XIB_CMA_PS_IB:
		/* as Linux's rdma_ucm: the IB port space also takes XRC ids */
		if (qp_type != XIB_QPT_RC && qp_type != XIB_QPT_UC &&
		    qp_type != XIB_QPT_XRC_SEND && qp_type != XIB_QPT_XRC_RECV)
			return ERR_PTR(-EINVAL);
		break;
	case XIB_CMA_PS_UDP:
	case XIB_CMA_PS_IPOIB:
		if (qp_type != XIB_QPT_UD)
			return ERR_PTR(-EINVAL);
		break;
	default:
		return ERR_PTR(-EINVAL);
	}
	p = xib_cma_alloc(net, handler, context, ps, qp_type);
	if (!p)
		return ERR_PTR(-ENOMEM);
	if (owner) {
		p->owner_pid = get_task_pid(owner, PIDTYPE_TGID);
		p->owner_euid = task_euid(owner);
		get_task_comm(p->owner_comm, owner);
	}
	ret = xib_cma_publish(p);
	if (ret) {
		kref_put(&p->ref, xib_cma_priv_free);
		return ERR_PTR(ret);
	}
	return &p->id;
}
EXPORT_SYMBOL_GPL(xib_cma_create_id);

/* A child stops counting against its listener's backlog. */
static void xib_cma_unpend(struct xib_cma_priv *p)
{
	struct xib_cma_priv *l;

	lockdep_assert_held(&p->lock);
	l = p->listener;
	p->listener = NULL;
	if (l) {
		atomic_dec(&l->pending);
		kref_put(&l->ref, xib_cma_priv_free);
	}
}

/**
 * xib_cma_destroy_id() - end an id
 * @id: the id; not from its own handler
 *
 * Ends the connection as the state requires (the IB CM sends REJ or
 * DREQ), leaves the multicast groups, releases the port, and returns
 * once the handler is not running and will not be called again.
 */
void xib_cma_destroy_id(struct xib_cma_id *id)
{
	struct xib_cma_priv *p = to_priv(id);
	struct xib_cm_id *cm_id;
	LIST_HEAD(mcs);

	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	xib_cma_move(p, XIB_CMA_OP_DESTROY);
	list_splice_init(&p->mc_list, &mcs);
	mutex_unlock(&p->lock);
	mutex_unlock(&p->handler_mutex);
	xib_cma_mc_free_all(&mcs);

	/* The work sees DESTROYING and stops. */
	cancel_delayed_work_sync(&p->work);

	mutex_lock(&p->lock);
	cm_id = p->cm_id;
	p->cm_id = NULL;
	mutex_unlock(&p->lock);
	if (cm_id)
		xib_cm_destroy_id(cm_id);

	xib_cma_release_port(p);
	mutex_lock(&p->lock);
	xib_cma_unpend(p);
	xib_cma_detach(p);
	mutex_unlock(&p->lock);
	kref_put(&p->ref, xib_cma_priv_free);
}
EXPORT_SYMBOL_GPL(xib_cma_destroy_id);

/**
 * xib_cma_lock_handler() - keep the id's handler from running
 * @id: the id
 */
void xib_cma_lock_handler(struct xib_cma_id *id)
{
	mutex_lock(&to_priv(id)->handler_mutex);
}
EXPORT_SYMBOL_GPL(xib_cma_lock_handler);

/**
 * xib_cma_unlock_handler() - undo xib_cma_lock_handler()
 * @id: the id
 */
void xib_cma_unlock_handler(struct xib_cma_id *id)
{
	mutex_unlock(&to_priv(id)->handler_mutex);
}
EXPORT_SYMBOL_GPL(xib_cma_unlock_handler);

/* Bind @p to @addr (a copy is taken): the device of a specific address. */
static int xib_cma_bind_locked(struct xib_cma_priv *p,
			       const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;
	int ret;

	lockdep_assert_held(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_BIND);
	if (ret)
		return ret;
	memset(&p->src, 0, sizeof(p->src));
	memcpy(&p->src, addr, xib_cma_addr_len(addr->sa_family));
	if (addr->sa_family == AF_INET6)
		((struct sockaddr_in6 *)&p->src)->sin6_flowinfo = 0;
	if (!xib_cma_any(&p->src)) {
		ndev = xib_cma_local_dev(p->net, &p->src);
		if (!ndev) {
			ret = -EADDRNOTAVAIL;
			goto err_clear;
		}
		ret = xib_cma_attach(p, ndev);
		dev_put(ndev);
		if (ret)
			goto err_clear;
	}
	ret = xib_cma_reserve_port(p);
	if (ret)
		goto err_detach;
	p->bound_any = xib_cma_any(&p->src);
	xib_cma_move(p, XIB_CMA_OP_BIND);
	return 0;

err_detach:
	xib_cma_detach(p);
err_clear:
	memset(&p->src, 0, sizeof(p->src));
	return ret;
}

/**
 * xib_cma_bind_addr() - bind to a local address
 * @id: an idle id
 * @addr: AF_INET or AF_INET6; any address or one of the namespace's; port
 *	0 picks a free one
 *
 * Return: 0, -EINVAL (state), -EAFNOSUPPORT, -EADDRNOTAVAIL (not a local
 * address), -ENODEV (no xib device serves it), -EADDRINUSE, -EACCES.
 */
int xib_cma_bind_addr(struct xib_cma_id *id, const struct sockaddr *addr)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret;

	if (!xib_cma_addr_ok(addr))
		return -EAFNOSUPPORT;
	mutex_lock(&p->lock);
	ret = xib_cma_bind_locked(p, addr);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_bind_addr);

/* Deliver @ev to @p's consumer, unless the id is going away. */
static int xib_cma_deliver(struct xib_cma_priv *p,
			   const struct xib_cma_event *ev)
{
	lockdep_assert_held(&p->handler_mutex);
	if (READ_ONCE(p->state) == XIB_CMA_DESTROYING)
		return 0;
	return p->id.handler(&p->id, ev);
}

/* --- address resolution -------------------------------------------------- */

/*
 * Look the route to @p->dst up: the interface, the source address (in
 * @saddr, a copy of @p->src whose address is filled in if it is the
 * wildcard) and the peer's MAC.  -EAGAIN while the neighbour is being
 * resolved.
 */
static int xib_cma_route4(struct xib_cma_priv *p,
			  struct sockaddr_storage *saddr,
			  struct net_device **ndevp)
{
	struct sockaddr_in *src = (struct sockaddr_in *)saddr;
	struct sockaddr_in *dst = (struct sockaddr_in *)&p->dst;
	struct flowi4 fl4 = {
		.daddr = dst->sin_addr.s_addr,
		.saddr = src->sin_addr.s_addr,
	};
	struct net_device *ndev;
	struct neighbour *n;
	struct rtable *rt;
	int ret = 0;

	rt = ip_route_output_key(p->net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->rt_type == RTN_LOCAL) {
		/* Loopback: the peer is an address of this namespace. */
		ndev = ip_dev_find(p->net, fl4.daddr);
		if (!ndev) {
			ret = -ENETUNREACH;
			goto out;
		}
		ether_addr_copy(p->dmac, ndev->dev_addr);
	} else {
		ndev = rt->dst.dev;
		dev_hold(ndev);
		n = dst_neigh_lookup(&rt->dst, &fl4.daddr);
		if (!n) {
			ret = -ENOMEM;
		} else {
			if (n->nud_state & NUD_VALID)
				neigh_ha_snapshot(p->dmac, n, ndev);
			else if (n->nud_state & NUD_FAILED)
				ret = -EHOSTUNREACH;
			else
				ret = -EAGAIN;
			if (ret == -EAGAIN || ret == -EHOSTUNREACH)
				neigh_event_send(n, NULL);
			neigh_release(n);
		}
		if (ret) {
			dev_put(ndev);
			goto out;
		}
	}
	if (src->sin_addr.s_addr == htonl(INADDR_ANY))
		src->sin_addr.s_addr = fl4.saddr;
	*ndevp = ndev;
out:
	ip_rt_put(rt);
	return ret;
}

#if IS_ENABLED(CONFIG_IPV6)
static int xib_cma_route6(struct xib_cma_priv *p,
			  struct sockaddr_storage *saddr,
			  struct net_device **ndevp)
{
	struct sockaddr_in6 *src = (struct sockaddr_in6 *)saddr;
	struct sockaddr_in6 *dst = (struct sockaddr_in6 *)&p->dst;
	struct flowi6 fl6 = {
		.daddr = dst->sin6_addr,
		.saddr = src->sin6_addr,
		.flowi6_oif = dst->sin6_scope_id,
	};
	struct net_device *ndev;
	struct dst_entry *de;
	struct neighbour *n;
	int ret;

	de = ip6_route_output(p->net, NULL, &fl6);
	ret = de->error;
	if (ret)
		goto out;
	if (ipv6_addr_any(&fl6.saddr)) {
		ret = ipv6_dev_get_saddr(p->net, de->dev, &fl6.daddr, 0,
					 &fl6.saddr);
		if (ret)
			goto out;
	}
	if (de->dev->flags & IFF_LOOPBACK) {
		ndev = xib_cma_local_dev(p->net, &p->dst);
		if (!ndev) {
			ret = -ENETUNREACH;
			goto out;
		}
		ether_addr_copy(p->dmac, ndev->dev_addr);
	} else {
		ndev = de->dev;
		dev_hold(ndev);
		n = dst_neigh_lookup(de, &fl6.daddr);
		if (!n) {
			ret = -ENOMEM;
		} else {
			if (n->nud_state & NUD_VALID)
				neigh_ha_snapshot(p->dmac, n, ndev);
			else if (n->nud_state & NUD_FAILED)
				ret = -EHOSTUNREACH;
			else
				ret = -EAGAIN;
			if (ret)
				neigh_event_send(n, NULL);
			neigh_release(n);
		}
		if (ret) {
			dev_put(ndev);
			goto out;
		}
	}
	src->sin6_addr = fl6.saddr;
	*ndevp = ndev;
out:
	dst_release(de);
	return ret;
}
#else
static int xib_cma_route6(struct xib_cma_priv *p,
			  struct sockaddr_storage *saddr,
			  struct net_device **ndevp)
{
	return -EAFNOSUPPORT;
}
#endif

/* Index of @gid in the port's GID table, or -EADDRNOTAVAIL. */
static int xib_cma_gid_index(struct xib_device *xdev, u32 port,
			     const u8 gid[16])
{
	u8 entry[16];
	u32 i;

	for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++)
		if (!xib_query_gid(xdev, port, i, entry) &&
		    !memcmp(entry, gid, 16))
			return i;
	return -EADDRNOTAVAIL;
}

static int xib_cma_addr_lookup(struct xib_cma_priv *p)
{
	struct sockaddr_storage saddr = p->src;
	struct net_device *ndev = NULL;
	int ret, idx;

	lockdep_assert_held(&p->lock);
	if (p->dst.ss_family == AF_INET)
		ret = xib_cma_route4(p, &saddr, &ndev);
	else
		ret = xib_cma_route6(p, &saddr, &ndev);
	if (ret)
		return ret;
	ret = xib_cma_attach(p, ndev);
	dev_put(ndev);
	if (ret)
		return ret;
	xib_cma_set_src(p, &saddr);
	memset(&p->path, 0, sizeof(p->path));
	xib_cma_ip_gid(&p->src, p->path.sgid);
	xib_cma_ip_gid(&p->dst, p->path.dgid);
	idx = xib_cma_gid_index(p->cdev->xdev, p->port_num, p->path.sgid);
	if (idx < 0)
		return idx;
	p->path.sgid_index = idx;
	p->path.port_num = p->port_num;
	return 0;
}

static void xib_cma_addr_work(struct xib_cma_priv *p)
{
	struct xib_cma_event ev = {};
	int ret;

	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	if (p->state != XIB_CMA_ADDR_QUERY) {
		mutex_unlock(&p->lock);
		goto out;
	}
	ret = xib_cma_addr_lookup(p);
	if (ret == -EAGAIN) {
		if (time_before(jiffies, p->timeout)) {
			/* Look again, less often the longer it takes. */
			queue_delayed_work(xib_cma_wq, &p->work,
					   min(msecs_to_jiffies(p->poll_ms),
					       p->timeout - jiffies));
			p->poll_ms = min(2 * p->poll_ms,
					 XIB_CMA_NEIGH_POLL_MAX_MS);
			mutex_unlock(&p->lock);
			goto out;
		}
		ret = -ETIMEDOUT;
	}
	if (ret) {
		/*
		 * Back to bound; an id bound to the wildcard address gets it
		 * back and forgets the device, unless it holds multicast
		 * groups there.
		 */
		if (p->bound_any && list_empty(&p->mc_list)) {
			struct sockaddr_storage any = {
				.ss_family = p->src.ss_family,
			};

			xib_cma_set_port(&any, xib_cma_port(&p->src));
			xib_cma_set_src(p, &any);
			xib_cma_detach(p);
		}
		xib_cma_move(p, XIB_CMA_OP_ADDR_FAIL);
		ev.event = XIB_CMA_EVENT_ADDR_ERROR;
		ev.status = ret;
	} else {
		xib_cma_move(p, XIB_CMA_OP_ADDR_DONE);
		ev.event = XIB_CMA_EVENT_ADDR_RESOLVED;
	}
	mutex_unlock(&p->lock);
	xib_cma_deliver(p, &ev);
out:
	mutex_unlock(&p->handler_mutex);
}

/**
 * xib_cma_resolve_addr() - resolve an IP address to a device and GIDs
 * @id: the id (idle ids are bound to @src or the wildcard first)
 * @src: the local address, or NULL / AF_UNSPEC for any
 * @dst: the peer; AF_INET or AF_INET6
 * @timeout_ms: 1 .. 3600000
 *
 * ADDR_RESOLVED or ADDR_ERROR follows (-ETIMEDOUT when the neighbour did
 * not answer in time, -ENETUNREACH / -EHOSTUNREACH, -ENODEV when no xib
 * device serves the route's interface).
 *
 * Return: 0 or -EINVAL, -EAFNOSUPPORT and the errors of binding.
 */
int xib_cma_resolve_addr(struct xib_cma_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, unsigned int timeout_ms)
{
	struct xib_cma_priv *p = to_priv(id);
	struct sockaddr_storage any = {};
	int ret;

	if (!xib_cma_addr_ok(dst))
		return -EAFNOSUPPORT;
	if (src && src->sa_family == AF_UNSPEC)
		src = NULL;
	if (src && src->sa_family != dst->sa_family)
		return -EINVAL;
	if (!timeout_ms || timeout_ms > XIB_CMA_MAX_TIMEOUT_MS)
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_RESOLVE_ADDR);
	if (ret)
		goto out;
	if (p->state == XIB_CMA_IDLE) {
		any.ss_family = dst->sa_family;
		ret = xib_cma_bind_locked(p, src ? src : (struct sockaddr *)&any);
		if (ret)
			goto out;
	} else if (p->src.ss_family != dst->sa_family) {
		ret = -EINVAL;
		goto out;
	}
	memset(&p->dst, 0, sizeof(p->dst));
	memcpy(&p->dst, dst, xib_cma_addr_len(dst->sa_family));
	p->have_path = false;
	p->timeout = jiffies + msecs_to_jiffies(timeout_ms);
	p->poll_ms = XIB_CMA_NEIGH_POLL_MS;
	xib_cma_move(p, XIB_CMA_OP_RESOLVE_ADDR);
	queue_delayed_work(xib_cma_wq, &p->work, 0);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_resolve_addr);

/* --- route resolution (RoCE: from IP routing) ---------------------------- */

static u8 xib_cma_mtu_enum(u32 bytes)
{
	if (bytes >= 4096)
		return XIB_MTU_4096;
	if (bytes >= 2048)
		return XIB_MTU_2048;
	if (bytes >= 1024)
		return XIB_MTU_1024;
	if (bytes >= 512)
		return XIB_MTU_512;
	return XIB_MTU_256;
}

static int xib_cma_route_build(struct xib_cma_priv *p)
{
	struct xib_port port;
	int ret;

	lockdep_assert_held(&p->lock);
	if (!p->cdev)
		return -ENODEV;
	ret = xib_query_port(p->cdev->xdev, p->port_num, &port);
	if (ret)
		return ret;
	p->path.mtu = xib_cma_mtu_enum(port.active_mtu);
	p->path.pkey = 0xffff;
	p->path.hop_limit = xib_cma_addr_eq(&p->src, &p->dst) ? 1 : 64;
	p->path.traffic_class = p->tos;
	p->path.sl = 0;
	p->path.flow_label = 0;
	p->path.rate = 0;
	p->path.packet_life_time = XIB_CMA_PACKET_LIFETIME;
	p->have_path = true;
	return 0;
}

static void xib_cma_route_work(struct xib_cma_priv *p)
{
	struct xib_cma_event ev = {};
	int ret;

	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	if (p->state != XIB_CMA_ROUTE_QUERY) {
		mutex_unlock(&p->lock);
		goto out;
	}
	ret = xib_cma_route_build(p);
	if (ret) {
		xib_cma_move(p, XIB_CMA_OP_ROUTE_FAIL);
		ev.event = XIB_CMA_EVENT_ROUTE_ERROR;
		ev.status = ret;
	} else {
		xib_cma_move(p, XIB_CMA_OP_ROUTE_DONE);
		ev.event = XIB_CMA_EVENT_ROUTE_RESOLVED;
	}
	mutex_unlock(&p->lock);
	xib_cma_deliver(p, &ev);
out:
	mutex_unlock(&p->handler_mutex);
}

static void xib_cma_work(struct work_struct *work)
{
	struct xib_cma_priv *p = container_of(to_delayed_work(work),
					      struct xib_cma_priv, work);
	enum xib_cma_state state;

	mutex_lock(&p->lock);
	state = p->state;
	mutex_unlock(&p->lock);
	if (state == XIB_CMA_ADDR_QUERY)
		xib_cma_addr_work(p);
	else if (state == XIB_CMA_ROUTE_QUERY)
		xib_cma_route_work(p);
}

/**
 * xib_cma_resolve_route() - find the path to the resolved address
 * @id: an id with its address resolved
 * @timeout_ms: 1 .. 3600000
 *
 * ROUTE_RESOLVED or ROUTE_ERROR follows.  Return: 0 or -EINVAL.
 */
int xib_cma_resolve_route(struct xib_cma_id *id, unsigned int timeout_ms)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret;

	if (!timeout_ms || timeout_ms > XIB_CMA_MAX_TIMEOUT_MS)
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cma_move(p, XIB_CMA_OP_RESOLVE_ROUTE);
	if (!ret) {
		p->timeout = jiffies + msecs_to_jiffies(timeout_ms);
		queue_delayed_work(xib_cma_wq, &p->work, 0);
	}
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_resolve_route);

/* --- listen and the passive side ----------------------------------------- */

/**
 * xib_cma_listen() - accept connection requests on the bound address
 * @id: a bound id (an idle one binds to the IPv4 wildcard first)
 * @backlog: unanswered requests kept; 0: the default; at most 1024
 *
 * Return: 0, -EINVAL (state), -EADDRINUSE (another listener).
 */
int xib_cma_listen(struct xib_cma_id *id, unsigned int backlog)
{
	struct xib_cma_priv *p = to_priv(id);
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct xib_cma_priv *o;
	int ret;

	mutex_lock(&p->lock);
	if (p->state == XIB_CMA_IDLE) {
		ret = xib_cma_bind_locked(p, (struct sockaddr *)&any);
		if (ret)
			goto out;
	}
	ret = xib_cma_check(p, XIB_CMA_OP_LISTEN);
	if (ret)
		goto out;
	mutex_lock(&xib_cma_bind_lock);
	/* Even with REUSEADDR, one listener per address and port. */
	list_for_each_entry(o, &xib_cma_binds, bind_list) {
		if (o != p && o->listening && net_eq(o->net, p->net) &&
		    o->id.ps == p->id.ps &&
		    xib_cma_port(&o->src) == xib_cma_port(&p->src) &&
		    xib_cma_conflict(o, p)) {
			ret = -EADDRINUSE;
			break;
		}
	}
	if (!ret)
		p->listening = true;
	mutex_unlock(&xib_cma_bind_lock);
	if (ret)
		goto out;
	p->backlog = backlog ? min_t(unsigned int, backlog,
				     XIB_CMA_MAX_BACKLOG) :
		XIB_CMA_DEFAULT_BACKLOG;
	xib_cma_move(p, XIB_CMA_OP_LISTEN);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_listen);

/*
 * The listener for a request to @dst of port space @ps in @net, with a
 * reference; specific addresses win over the wildcard.
 */
static struct xib_cma_priv *xib_cma_find_listener(struct net *net,
						  enum xib_cma_ps ps,
						  const struct sockaddr_storage *dst,
						  u16 port)
{
	struct xib_cma_priv *o, *found = NULL;

	mutex_lock(&xib_cma_bind_lock);
	list_for_each_entry(o, &xib_cma_binds, bind_list) {
		if (!o->listening || !net_eq(o->net, net) || o->id.ps != ps ||
		    xib_cma_port(&o->src) != port)
			continue;
		if (xib_cma_any(&o->src)) {
			if (o->src.ss_family != dst->ss_family &&
			    (o->src.ss_family == AF_INET || o->afonly))
				continue;
			if (!found)
				found = o;
		} else if (xib_cma_addr_eq(&o->src, dst)) {
			found = o;
			break;
		}
	}
	if (found)
		kref_get(&found->ref);
	mutex_unlock(&xib_cma_bind_lock);
	return found;
}

static int xib_cma_cm_handler(struct xib_cm_id *cm_id,
			      const struct xib_cm_event *ev);

static void xib_cma_req_param(struct xib_cma_event *ev,
			      const struct xib_cm_req_param *req,
			      const u8 *pdata, u8 len)
{
	ev->param.private_data = len > XIB_CMA_HDR_SIZE ?
		pdata + XIB_CMA_HDR_SIZE : NULL;
	ev->param.private_data_len = len > XIB_CMA_HDR_SIZE ?
		len - XIB_CMA_HDR_SIZE : 0;
	/* From the receiver's side (rdma_cm_event): what it is asked for. */
	ev->param.responder_resources = req->initiator_depth;
	ev->param.initiator_depth = req->responder_resources;
	ev->param.flow_control = req->flow_control;
	ev->param.retry_count = req->retry_count;
	ev->param.rnr_retry_count = req->rnr_retry_count;
	ev->param.srq = req->srq;
	ev->param.qp_num = req->qp_num;
}

/**
 * xib_cma_cm_req_handler() - a REQ or SIDR_REQ reached a device's listener
 * @cm_id: the IB CM's new id of the request
 * @event: REQ_RECEIVED or SIDR_REQ_RECEIVED
 *
 * Finds the RDMA CM listener from the service ID and the CM header,
 * makes a child id in CONNECT and tells the listener's consumer.
 *
 * Return: 0, or non-zero to have the IB CM refuse and destroy @cm_id.
 */
int xib_cma_cm_req_handler(struct xib_cm_id *cm_id,
			   const struct xib_cm_event *event)
{
	struct xib_cma_device *cdev = cm_id->context;
	const struct xib_cm_path *path;
	struct xib_cma_hdr_info hdr;
	struct xib_cma_event ev = {};
	struct xib_cma_priv *l, *c;
	u64 sid = be64_to_cpu(cm_id->service_id);
	bool ud = event->event == XIB_CM_SIDR_REQ_RECEIVED;
	int ret;

	if (event->event != XIB_CM_REQ_RECEIVED && !ud)
		return -EINVAL;
	if (xib_cma_hdr_decode(event->private_data, event->private_data_len,
			       &hdr))
		return -EINVAL;
	l = xib_cma_find_listener(xib_device_net(cdev->xdev),
				  (sid >> 16) & 0xffff, &hdr.dst, sid & 0xffff);
	if (!l)
		return -ENOENT;
	if ((ud && l->id.qp_type != XIB_QPT_UD) ||
	    (!ud && l->id.qp_type != event->req.qp_type)) {
		ret = -EINVAL;
		goto out_put;
	}
	if (atomic_inc_return(&l->pending) > l->backlog) {
		ret = -ENOBUFS;
		goto out_unpend;
	}
	c = xib_cma_alloc(l->net, l->id.handler, l->id.context, l->id.ps,
			  l->id.qp_type);
	if (!c) {
		ret = -ENOMEM;
		goto out_unpend;
	}
	/* the listener's owner owns what its requests create */
	c->owner_pid = get_pid(l->owner_pid);
	c->owner_euid = l->owner_euid;
	memcpy(c->owner_comm, l->owner_comm, sizeof(c->owner_comm));
	ret = xib_cma_publish(c);
	if (ret) {
		kref_put(&c->ref, xib_cma_priv_free);
		goto out_unpend;
	}
	path = ud ? &event->sidr_req.path : &event->req.path;

	mutex_lock(&l->handler_mutex);
	mutex_lock_nested(&c->handler_mutex, SINGLE_DEPTH_NESTING);
	mutex_lock(&c->lock);
	c->passive = true;
	c->listener = l;		/* takes over the reference */
	c->src = hdr.dst;
	xib_cma_set_port(&c->src, sid & 0xffff);
	c->dst = hdr.src;
	c->path = *path;
	c->have_path = true;
	c->port_num = path->port_num;
	c->cm_id = cm_id;
	c->tos = path->traffic_class;
	c->rep_psn = get_random_u32() & 0xffffff;
	xib_cma_move(c, XIB_CMA_OP_REQ_RCVD);
	mutex_lock(&xib_cma_lock);
	c->cdev = cdev;
	list_add_tail(&c->dev_list, &cdev->ids);
	atomic_inc(&cdev->xdev->cm_ids);
	mutex_unlock(&xib_cma_lock);
	cm_id->context = c;
	cm_id->handler = xib_cma_cm_handler;
	mutex_unlock(&c->lock);

	ev.event = XIB_CMA_EVENT_CONNECT_REQUEST;
	ev.listen_id = &l->id;
	if (ud) {
		ev.param.private_data = event->private_data + XIB_CMA_HDR_SIZE;
		ev.param.private_data_len = event->private_data_len -
			XIB_CMA_HDR_SIZE;
	} else {
		xib_cma_req_param(&ev, &event->req, event->private_data,
				  event->private_data_len);
	}
	ret = READ_ONCE(l->state) == XIB_CMA_LISTEN ?
		l->id.handler(&c->id, &ev) : -ECONNREFUSED;
	mutex_unlock(&c->handler_mutex);
	mutex_unlock(&l->handler_mutex);
	if (ret) {
		/* The IB CM destroys @cm_id when we return non-zero. */
		mutex_lock(&c->lock);
		c->cm_id = NULL;
		mutex_unlock(&c->lock);
		xib_cma_destroy_id(&c->id);
	}
	return ret;

out_unpend:
	atomic_dec(&l->pending);
out_put:
	kref_put(&l->ref, xib_cma_priv_free);
	return ret;
}

/* --- connections --------------------------------------------------------- */

static void xib_cma_ud_ah(struct xib_cma_priv *p, struct xib_cma_event *ev)
{
	memcpy(ev->ah_attr.dgid, p->path.dgid, 16);
	ev->ah_attr.flow_label = p->path.flow_label;
	ev->ah_attr.sgid_index = p->path.sgid_index;
	ev->ah_attr.hop_limit = p->path.hop_limit;
	ev->ah_attr.traffic_class = p->path.traffic_class;
	ev->ah_attr.sl = p->path.sl;
	ev->ah_attr.port_num = p->port_num;
	ev->ah_attr.is_global = 1;
}

static int xib_cma_cm_handler(struct xib_cm_id *cm_id,
			      const struct xib_cm_event *cev)
{
	struct xib_cma_priv *p = cm_id->context;
	struct xib_cma_event ev = {};
	enum xib_cma_op op = XIB_CMA_OP_MAX;

	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	if (p->cm_id != cm_id)
		goto out_unlock;
	ev.param.private_data = cev->private_data;
	ev.param.private_data_len = cev->private_data_len;
	switch (cev->event) {
	case XIB_CM_REQ_ERROR:
	case XIB_CM_REP_ERROR:
	case XIB_CM_SIDR_REQ_ERROR:
		op = XIB_CMA_OP_CONN_FAIL;
		ev.event = XIB_CMA_EVENT_UNREACHABLE;
		ev.status = -ETIMEDOUT;
		break;
	case XIB_CM_REP_RECEIVED:
		if (p->passive)
			goto out_unlock;
		op = XIB_CMA_OP_REP_RCVD;
		ev.event = XIB_CMA_EVENT_CONNECT_RESPONSE;
		/* the receiver's side, as for a request */
		ev.param.responder_resources = cev->rep.initiator_depth;
		ev.param.initiator_depth = cev->rep.responder_resources;
		ev.param.flow_control = cev->rep.flow_control;
		ev.param.rnr_retry_count = cev->rep.rnr_retry_count;
		ev.param.srq = cev->rep.srq;
		ev.param.qp_num = cev->rep.qp_num;
		p->rep_rcvd = true;
		break;
	case XIB_CM_RTU_RECEIVED:
	case XIB_CM_USER_ESTABLISHED:
		op = XIB_CMA_OP_ESTABLISHED;
		ev.event = XIB_CMA_EVENT_ESTABLISHED;
		break;
	case XIB_CM_REJ_RECEIVED:
		op = XIB_CMA_OP_CONN_FAIL;
		ev.event = XIB_CMA_EVENT_REJECTED;
		ev.status = cev->rej_reason;
		break;
	case XIB_CM_DREQ_RECEIVED:
		p->dreq_rcvd = true;
		fallthrough;
	case XIB_CM_DREQ_ERROR:
	case XIB_CM_DREP_RECEIVED:
		op = XIB_CMA_OP_DISCONNECTED;
		ev.event = XIB_CMA_EVENT_DISCONNECTED;
		break;
	case XIB_CM_TIMEWAIT_EXIT:
		ev.event = XIB_CMA_EVENT_TIMEWAIT_EXIT;
		break;
	case XIB_CM_SIDR_REP_RECEIVED:
		if (cev->sidr_rep.status != XIB_SIDR_SUCCESS) {
			op = XIB_CMA_OP_CONN_FAIL;
			ev.event = XIB_CMA_EVENT_UNREACHABLE;
			ev.status = -ECONNREFUSED;
			break;
		}
		op = XIB_CMA_OP_ESTABLISHED;
		ev.event = XIB_CMA_EVENT_ESTABLISHED;
		xib_cma_ud_ah(p, &ev);
		ev.ud_qp_num = cev->sidr_rep.qp_num;
		ev.ud_qkey = cev->sidr_rep.qkey;
		break;
	default:
		goto out_unlock;
	}
	if (op != XIB_CMA_OP_MAX && xib_cma_move(p, op))
		goto out_unlock;	/* not in this state: ignored */
	mutex_unlock(&p->lock);
	xib_cma_deliver(p, &ev);
	mutex_unlock(&p->handler_mutex);
	return 0;

out_unlock:
	mutex_unlock(&p->lock);
	mutex_unlock(&p->handler_mutex);
	return 0;
}

/**
 * xib_cma_connect() - send the connection (or SIDR) request
 * @id: an id with its route resolved
 * @param: what to send; private data up to 56 bytes (RC/UC) or 180 (UD)
 *
 * Return: 0 (an event follows), -EINVAL, or the IB CM's error.
 */
int xib_cma_connect(struct xib_cma_id *id,
		    const struct xib_cma_conn_param *param)
{
	struct xib_cma_priv *p = to_priv(id);
	u8 pdata[XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE] = {};
	bool ud = id->qp_type == XIB_QPT_UD;
	struct xib_cm_id *cm_id;
	unsigned int max;
	int ret;

	max = (ud ? XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE :
	       XIB_CM_REQ_PRIVATE_DATA_SIZE) - XIB_CMA_HDR_SIZE;
	if (param->private_data_len > max ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_CONNECT);
	if (ret)
		goto out_unlock;
	if (!p->cdev || !p->have_path) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = xib_cma_hdr_encode(pdata, (struct sockaddr *)&p->src,
				 (struct sockaddr *)&p->dst);
	if (ret)
		goto out_unlock;
	memcpy(pdata + XIB_CMA_HDR_SIZE, param->private_data,
	       param->private_data_len);
	cm_id = xib_cm_create_id(p->cdev->xdev, xib_cma_cm_handler, p);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out_unlock;
	}
	p->cm_id = cm_id;
	if (ud) {
		struct xib_cm_sidr_req_param req = {
			.path = p->path,
			.service_id = xib_cma_service_id(id->ps,
							 xib_cma_port(&p->dst)),
			.timeout_ms = XIB_CMA_SIDR_TIMEOUT_MS,
			.max_cm_retries = XIB_CMA_SIDR_RETRIES,
			.private_data = pdata,
			.private_data_len = XIB_CMA_HDR_SIZE +
				param->private_data_len,
		};

		ret = xib_cm_send_sidr_req(cm_id, &req);
	} else {
		struct xib_cm_req_param req = {
			.path = p->path,
			.service_id = xib_cma_service_id(id->ps,
							 xib_cma_port(&p->dst)),
			.qp_num = param->qp_num,
			.qp_type = id->qp_type,
			.starting_psn = get_random_u32() & 0xffffff,
			.private_data = pdata,
			.private_data_len = XIB_CMA_HDR_SIZE +
				param->private_data_len,
			.responder_resources = param->responder_resources,
			.initiator_depth = param->initiator_depth,
			.remote_cm_response_timeout =
				XIB_CMA_CM_RESPONSE_TIMEOUT,
			.local_cm_response_timeout =
				XIB_CMA_CM_RESPONSE_TIMEOUT,
			.flow_control = param->flow_control,
			.retry_count = min_t(u8, param->retry_count, 7),
			.rnr_retry_count = min_t(u8, param->rnr_retry_count, 7),
			.max_cm_retries = XIB_CMA_MAX_CM_RETRIES,
			.srq = param->srq,
			.local_ack_timeout = p->ack_timeout,
		};

		ret = xib_cm_send_req(cm_id, &req);
	}
	if (!ret)
		p->qp_num = param->qp_num;
	if (ret) {
		p->cm_id = NULL;
		mutex_unlock(&p->lock);
		xib_cm_destroy_id(cm_id);
		return ret;
	}
	xib_cma_move(p, XIB_CMA_OP_CONNECT);
out_unlock:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_connect);

/**
 * xib_cma_accept() - answer a connection request with REP (or SIDR_REP)
 * @id: the id of a CONNECT_REQUEST
 * @param: what to send; private data up to 196 bytes (136 for UD)
 *
 * Return: 0, -EINVAL, or the IB CM's error.
 */
int xib_cma_accept(struct xib_cma_id *id,
		   const struct xib_cma_conn_param *param)
{
	struct xib_cma_priv *p = to_priv(id);
	bool ud = id->qp_type == XIB_QPT_UD;
	unsigned int max;
	int ret;

	max = ud ? XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE :
		XIB_CM_REP_PRIVATE_DATA_SIZE;
	if (param->private_data_len > max ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_ACCEPT);
	if (ret || !p->passive || !p->cm_id) {
		ret = -EINVAL;
		goto out;
	}
	if (ud) {
		struct xib_cm_sidr_rep_param rep = {
			.qp_num = param->qp_num,
			.qkey = param->qkey ? param->qkey : XIB_CMA_UDP_QKEY,
			.status = XIB_SIDR_SUCCESS,
			.private_data = param->private_data,
			.private_data_len = param->private_data_len,
		};

		ret = xib_cm_send_sidr_rep(p->cm_id, &rep);
		if (!ret)
			xib_cma_move(p, XIB_CMA_OP_ESTABLISHED);
	} else {
		struct xib_cm_rep_param rep = {
			.qp_num = param->qp_num,
			.starting_psn = p->rep_psn,
			.private_data = param->private_data,
			.private_data_len = param->private_data_len,
			.responder_resources = param->responder_resources,
			.initiator_depth = param->initiator_depth,
			.flow_control = param->flow_control,
			.rnr_retry_count = min_t(u8, param->rnr_retry_count, 7),
			.srq = param->srq,
		};

		ret = xib_cm_send_rep(p->cm_id, &rep);
		if (!ret)
			xib_cma_move(p, XIB_CMA_OP_ACCEPT);
	}
	if (!ret) {
		p->qp_num = param->qp_num;
		xib_cma_unpend(p);
	}
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_accept);

/**
 * xib_cma_reject() - refuse a connection request
 * @id: the id of a CONNECT_REQUEST
 * @reason: the REJ's reason: CONSUMER_DEFINED, or
 *	VENDOR_OPTION_NOT_SUPPORTED (ECE refused); UD ids send a SIDR_REP
 *	with status REJECT whatever it is
 * @private_data: sent in the REJ (or SIDR_REP)
 * @len: up to 148 bytes (136 for UD)
 *
 * Return: 0, -EINVAL, or the IB CM's error.
 */
int xib_cma_reject(struct xib_cma_id *id, enum xib_cm_rej_reason reason,
		   const void *private_data, u8 len)
{
	struct xib_cma_priv *p = to_priv(id);
	bool ud = id->qp_type == XIB_QPT_UD;
	int ret;

	if (len > (ud ? XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE :
		   XIB_CM_REJ_PRIVATE_DATA_SIZE) ||
	    (len && !private_data) ||
	    (reason != XIB_CM_REJ_CONSUMER_DEFINED &&
	     reason != XIB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_REJECT);
	if (ret || !p->passive || !p->cm_id) {
		ret = -EINVAL;
		goto out;
	}
	if (ud) {
		struct xib_cm_sidr_rep_param rep = {
			.status = XIB_SIDR_REJECT,
			.private_data = private_data,
			.private_data_len = len,
		};

		ret = xib_cm_send_sidr_rep(p->cm_id, &rep);
	} else {
		ret = xib_cm_send_rej(p->cm_id, reason, NULL, 0, private_data,
				      len);
	}
	if (!ret) {
		xib_cma_move(p, XIB_CMA_OP_REJECT);
		xib_cma_unpend(p);
	}
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_reject);

/**
 * xib_cma_establish() - active side: the QP is ready, send the RTU
 * @id: an id that got CONNECT_RESPONSE
 *
 * Return: 0, -EINVAL, or the IB CM's error.
 */
int xib_cma_establish(struct xib_cma_id *id)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret;

	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_ESTABLISHED);
	if (ret || p->passive || !p->rep_rcvd || !p->cm_id) {
		ret = -EINVAL;
		goto out;
	}
	ret = xib_cm_send_rtu(p->cm_id, NULL, 0);
	if (!ret)
		xib_cma_move(p, XIB_CMA_OP_ESTABLISHED);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_establish);

/**
 * xib_cma_disconnect() - send DREQ, or answer the peer's with DREP
 * @id: a connecting or connected id
 *
 * Return: 0 (DISCONNECTED follows), -EINVAL, or the IB CM's error.
 */
int xib_cma_disconnect(struct xib_cma_id *id)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret;

	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_DISCONNECT);
	if (ret || !p->cm_id) {
		ret = -EINVAL;
		goto out;
	}
	if (p->dreq_rcvd) {
		ret = xib_cm_send_drep(p->cm_id, NULL, 0);
		p->dreq_rcvd = false;
	} else if (p->state == XIB_CMA_ESTABLISHED) {
		ret = xib_cm_send_dreq(p->cm_id, NULL, 0);
	} else if (p->state == XIB_CMA_CONNECT) {
		ret = xib_cm_send_rej(p->cm_id, XIB_CM_REJ_CONSUMER_DEFINED,
				      NULL, 0, NULL, 0);
	}
	if (!ret)
		xib_cma_move(p, XIB_CMA_OP_DISCONNECT);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_disconnect);

/**
 * xib_cma_init_qp_attr() - the attributes for the next move of the id's QP
 * @id: the id
 * @attr: in: qp_state (INIT, RTR, RTS or ERR); out: the attributes
 * @mask: out: which attributes are set
 *
 * Return: 0, or -EINVAL when the id cannot say yet.
 */
int xib_cma_init_qp_attr(struct xib_cma_id *id,
			 struct xib_uverbs_qp_attr *attr, u32 *mask)
{
	struct xib_cma_priv *p = to_priv(id);
	u32 state = attr->qp_state;
	int ret = 0;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = state;
	*mask = XIB_QP_STATE;
	mutex_lock(&p->lock);
	switch (state) {
	case XIB_QPS_INIT:
		if (!p->cdev) {
			ret = -EINVAL;
			break;
		}
		attr->pkey_index = 0;
		attr->port_num = p->port_num;
		*mask |= XIB_QP_PKEY_INDEX | XIB_QP_PORT;
		if (id->qp_type == XIB_QPT_UD) {
			attr->qkey = XIB_CMA_UDP_QKEY;
			*mask |= XIB_QP_QKEY;
		} else {
			attr->qp_access_flags = XIB_ACCESS_REMOTE_READ |
				XIB_ACCESS_REMOTE_WRITE;
			*mask |= XIB_QP_ACCESS_FLAGS;
		}
		break;
	case XIB_QPS_RTR:
	case XIB_QPS_RTS:
		if (id->qp_type == XIB_QPT_UD) {
			if (!p->cdev) {
				ret = -EINVAL;
				break;
			}
			if (state == XIB_QPS_RTS) {
				attr->sq_psn = 0;
				*mask |= XIB_QP_SQ_PSN;
			}
			break;
		}
		if (!p->cm_id) {
			ret = -EINVAL;
			break;
		}
		ret = xib_cm_init_qp_attr(p->cm_id, attr, mask);
		if (!ret && state == XIB_QPS_RTR && p->passive &&
		    !(*mask & XIB_QP_RQ_PSN)) {
			/* Before the REP: the PSN it will carry. */
			attr->rq_psn = p->rep_psn;
			*mask |= XIB_QP_RQ_PSN;
		}
		if (!ret && state == XIB_QPS_RTS && p->ack_timeout &&
		    (id->qp_type == XIB_QPT_RC ||
		     id->qp_type == XIB_QPT_XRC_SEND)) {
			attr->timeout = p->ack_timeout;
			*mask |= XIB_QP_TIMEOUT;
		}
		break;
	case XIB_QPS_ERR:
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_init_qp_attr);

/**
 * xib_cma_notify() - an event of the id's QP the CM must know of
 * @id: the id
 * @event: XIB_EVENT_COMM_EST (data arrived before the RTU)
 *
 * Return: 0, -EINVAL, or the IB CM's error.
 */
int xib_cma_notify(struct xib_cma_id *id, enum xib_event_type event)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret = -EINVAL;

	if (event != XIB_EVENT_COMM_EST)
		return -EINVAL;
	mutex_lock(&p->lock);
	if (p->cm_id && p->state == XIB_CMA_CONNECT)
		ret = xib_cm_establish(p->cm_id);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_notify);

/**
 * xib_cma_set_option() - set an RDMA_OPTION_ID option
 * @id: the id
 * @opt: which
 * @value: TOS 0..255, REUSEADDR and AFONLY 0 or 1 (before bind),
 *	ACK_TIMEOUT 0..31
 *
 * Return: 0 or -EINVAL.
 */
int xib_cma_set_option(struct xib_cma_id *id, enum xib_cma_option opt,
		       u64 value)
{
	struct xib_cma_priv *p = to_priv(id);
	int ret = 0;

	mutex_lock(&p->lock);
	switch (opt) {
	case XIB_CMA_OPT_TOS:
		if (value > 255) {
			ret = -EINVAL;
			break;
		}
		p->tos = value;
		p->tos_set = true;
		break;
	case XIB_CMA_OPT_REUSEADDR:
	case XIB_CMA_OPT_AFONLY:
		if (value > 1 || p->state != XIB_CMA_IDLE) {
			ret = -EINVAL;
			break;
		}
		if (opt == XIB_CMA_OPT_REUSEADDR)
			p->reuseaddr = value;
		else
			p->afonly = value;
		break;
	case XIB_CMA_OPT_ACK_TIMEOUT:
		if (value > 31) {
			ret = -EINVAL;
			break;
		}
		p->ack_timeout = value;
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_set_option);

/**
 * xib_cma_query() - what the id knows
 * @id: the id
 * @info: filled in; drop @info->device with xib_device_put() if set
 *
 * Return: 0.
 */
int xib_cma_query(struct xib_cma_id *id, struct xib_cma_info *info)
{
	struct xib_cma_priv *p = to_priv(id);

	memset(info, 0, sizeof(*info));
	mutex_lock(&p->lock);
	info->src = p->src;
	info->dst = p->dst;
	info->state = p->state;
	if (p->cdev) {
		info->device = p->cdev->xdev;
		xib_device_get(info->device);
		info->port_num = p->port_num;
		info->path = p->path;
		info->num_paths = p->have_path;
	}
	mutex_unlock(&p->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_cma_query);

/* --- multicast (RoCE: IP multicast groups) ----------------------------- */

/*
 * The MGID of the group @ss names, as the Linux RDMA CM derives it on
 * RoCEv2: an IPv4 group IPv4-mapped (::ffff:a.b.c.d), an IPv6 group as
 * it is.  -EINVAL unless the address is an IP multicast address
 * (224.0.0.0/4, ff00::/8).
 */
static int xib_cma_mgid(const struct sockaddr_storage *ss, u8 mgid[16])
{
	if (ss->ss_family == AF_INET) {
		if (!ipv4_is_multicast(((const struct sockaddr_in *)ss)->sin_addr.s_addr))
			return -EINVAL;
	} else if (!ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)ss)->sin6_addr)) {
		return -EINVAL;
	}
	xib_cma_ip_gid(ss, mgid);
	return 0;
}

static struct xib_cma_mc *xib_cma_mc_find(struct xib_cma_priv *p,
					  const struct sockaddr_storage *addr)
{
	struct xib_cma_mc *mc;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(mc, &p->mc_list, list)
		if (mc->addr.ss_family == addr->ss_family &&
		    xib_cma_addr_eq(&mc->addr, addr))
			return mc;
	return NULL;
}

/* The interface stops holding the group for @mc. */
static void xib_cma_mc_ip_leave(struct xib_cma_mc *mc)
{
	if (!mc->ip_dev)
		return;
	xib_mcast_ip_leave(mc->ip_dev, mc->mgid);
	xib_device_put(mc->ip_dev);
	mc->ip_dev = NULL;
}

/* Leave and free the groups on @mcs, taken off their id. */
static void xib_cma_mc_free_all(struct list_head *mcs)
{
	struct xib_cma_mc *mc, *tmp;

	list_for_each_entry_safe(mc, tmp, mcs, list) {
		list_del(&mc->list);
		xib_cma_mc_ip_leave(mc);
		kfree(mc);
	}
}

/**
 * xib_cma_join_multicast() - join an IP multicast group
 * @id: a UD id (UDP or IPoIB port space), bound to a specific address
 *	or with its address resolved, so that it has a device
 * @addr: the group: an IPv4 or IPv6 multicast address of the id's
 *	family
 * @join_flags: XIB_CMA_JOIN_FULLMEMBER: the id's interface joins the IP
 *	group (IGMP/MLD), so the device receives it;
 *	XIB_CMA_JOIN_SENDONLY_FULLMEMBER: only sends to it (no IP join)
 * @context: the consumer's, in the group's events
 *
 * As the Linux RDMA CM does on RoCE, there is no SA: the join is
 * complete at once.  Its MULTICAST_JOIN event (struct xib_cma_event says
 * what it carries) is delivered before this returns; attaching a QP to
 * the MGID (xib_attach_mcast()) is the consumer's business.  If the
 * device goes away, each group gets MULTICAST_ERROR (-ENODEV) before
 * the id's DEVICE_REMOVAL.
 *
 * Context: process context, not from the id's handler.
 * Return: 0; -EAFNOSUPPORT; -EINVAL (not a UD id, the id has no device
 * or is in another state, unknown flags, a family other than the id's,
 * not a multicast address); -EADDRINUSE (the id joined @addr already);
 * -ENOMEM; or the device's error joining the IP group.
 */
int xib_cma_join_multicast(struct xib_cma_id *id, const struct sockaddr *addr,
			   u32 join_flags, void *context)
{
	struct xib_cma_event ev = { .event = XIB_CMA_EVENT_MULTICAST_JOIN };
	struct xib_cma_priv *p = to_priv(id);
	struct xib_device *xdev;
	struct xib_cma_mc *mc;
	u8 sgid[16];
	int ret, idx;

	if (!xib_cma_addr_ok(addr))
		return -EAFNOSUPPORT;
	if (join_flags > XIB_CMA_JOIN_SENDONLY_FULLMEMBER ||
	    id->qp_type != XIB_QPT_UD)
		return -EINVAL;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return -ENOMEM;
	memcpy(&mc->addr, addr, xib_cma_addr_len(addr->sa_family));
	mc->context = context;
	ret = xib_cma_mgid(&mc->addr, mc->mgid);
	if (ret)
		goto err_free;

	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	ret = xib_cma_check(p, XIB_CMA_OP_JOIN_MCAST);
	if (!ret && (!p->cdev || p->src.ss_family != addr->sa_family))
		ret = -EINVAL;
	if (!ret && xib_cma_mc_find(p, &mc->addr))
		ret = -EADDRINUSE;
	if (ret)
		goto err_unlock;
	xdev = p->cdev->xdev;
	xib_cma_ip_gid(&p->src, sgid);
	idx = xib_cma_gid_index(xdev, p->port_num, sgid);
	if (idx < 0) {
		ret = idx;
		goto err_unlock;
	}
	if (join_flags == XIB_CMA_JOIN_FULLMEMBER) {
		ret = xib_mcast_ip_join(xdev, mc->mgid);
		if (ret)
			goto err_unlock;
		xib_device_get(xdev);
		mc->ip_dev = xdev;
	}
	list_add_tail(&mc->list, &p->mc_list);

	memcpy(ev.ah_attr.dgid, mc->mgid, 16);
	ev.ah_attr.sgid_index = idx;
	ev.ah_attr.hop_limit = XIB_CMA_MC_HOP_LIMIT;
	ev.ah_attr.traffic_class = p->tos;
	ev.ah_attr.port_num = p->port_num;
	ev.ah_attr.is_global = 1;
	ev.ud_qp_num = 0xffffff;
	ev.ud_qkey = XIB_CMA_UDP_QKEY;
	ev.mc_context = context;
	mutex_unlock(&p->lock);
	xib_cma_deliver(p, &ev);
	mutex_unlock(&p->handler_mutex);
	return 0;

err_unlock:
	mutex_unlock(&p->lock);
	mutex_unlock(&p->handler_mutex);
err_free:
	kfree(mc);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cma_join_multicast);

/**
 * xib_cma_leave_multicast() - leave a group xib_cma_join_multicast() joined
 * @id: the id
 * @addr: the group's address, as joined
 *
 * No event of the group is delivered once this returns.
 *
 * Context: process context, not from the id's handler.
 * Return: 0, -EAFNOSUPPORT, or -EADDRNOTAVAIL if @id did not join @addr.
 */
int xib_cma_leave_multicast(struct xib_cma_id *id, const struct sockaddr *addr)
{
	struct xib_cma_priv *p = to_priv(id);
	struct sockaddr_storage ss = {};
	struct xib_cma_mc *mc;

	if (!xib_cma_addr_ok(addr))
		return -EAFNOSUPPORT;
	memcpy(&ss, addr, xib_cma_addr_len(addr->sa_family));
	mutex_lock(&p->handler_mutex);
	mutex_lock(&p->lock);
	mc = xib_cma_mc_find(p, &ss);
	if (mc)
		list_del(&mc->list);
	mutex_unlock(&p->lock);
	mutex_unlock(&p->handler_mutex);
	if (!mc)
		return -EADDRNOTAVAIL;
	xib_cma_mc_ip_leave(mc);
	kfree(mc);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_cma_leave_multicast);

/*
 * The device of @p's groups goes away: each group gets MULTICAST_ERROR
 * and the interface stops holding it (the group stays on the id until
 * left or destroyed, as in Linux).
 */
static void xib_cma_mc_device_gone(struct xib_cma_priv *p)
{
	struct xib_cma_event ev = {
		.event = XIB_CMA_EVENT_MULTICAST_ERROR,
		.status = -ENODEV,
	};
	struct xib_cma_mc *mc;

	lockdep_assert_held(&p->handler_mutex);
	/* @mc_list is stable under handler_mutex */
	list_for_each_entry(mc, &p->mc_list, list) {
		xib_cma_mc_ip_leave(mc);
		ev.mc_context = mc->context;
		xib_cma_deliver(p, &ev);
	}
}

/* --- device removal ------------------------------------------------------ */

/**
 * xib_cma_device_removed() - detach every id from a departing device
 * @cdev: the device, already off xib_cma_devices
 *
 * Each id gets MULTICAST_ERROR for each group it joined, then
 * DEVICE_REMOVAL, and is left in that state (only destroy remains); its
 * IB CM id is destroyed.
 */
void xib_cma_device_removed(struct xib_cma_device *cdev)
{
	struct xib_cma_event ev = { .event = XIB_CMA_EVENT_DEVICE_REMOVAL };
	struct xib_cm_id *cm_id;
	struct xib_cma_priv *p;
	bool tell;

	mutex_lock(&xib_cma_lock);
	while ((p = list_first_entry_or_null(&cdev->ids, struct xib_cma_priv,
					     dev_list))) {
		kref_get(&p->ref);
		mutex_unlock(&xib_cma_lock);

		mutex_lock(&p->handler_mutex);
		mutex_lock(&p->lock);
		tell = !xib_cma_move(p, XIB_CMA_OP_DEVICE_REMOVAL);
		cm_id = p->cm_id;
		p->cm_id = NULL;
		if (p->cdev == cdev)
			xib_cma_detach(p);
		mutex_unlock(&p->lock);
		xib_cma_mc_device_gone(p);
		if (tell)
			xib_cma_deliver(p, &ev);
		mutex_unlock(&p->handler_mutex);
		if (cm_id)
			xib_cm_destroy_id(cm_id);
		kref_put(&p->ref, xib_cma_priv_free);

		mutex_lock(&xib_cma_lock);
	}
	mutex_unlock(&xib_cma_lock);
}

/* --- resource dumps ------------------------------------------------------ */

/* The dump's states are the id's, number for number. */
static_assert(XIB_NL_CM_IDLE == (int)XIB_CMA_IDLE &&
	      XIB_NL_CM_ADDR_QUERY == (int)XIB_CMA_ADDR_QUERY &&
	      XIB_NL_CM_ADDR_RESOLVED == (int)XIB_CMA_ADDR_RESOLVED &&
	      XIB_NL_CM_ROUTE_QUERY == (int)XIB_CMA_ROUTE_QUERY &&
	      XIB_NL_CM_ROUTE_RESOLVED == (int)XIB_CMA_ROUTE_RESOLVED &&
	      XIB_NL_CM_CONNECT == (int)XIB_CMA_CONNECT &&
	      XIB_NL_CM_ESTABLISHED == (int)XIB_CMA_ESTABLISHED &&
	      XIB_NL_CM_DISCONNECT == (int)XIB_CMA_DISCONNECT &&
	      XIB_NL_CM_ADDR_BOUND == (int)XIB_CMA_ADDR_BOUND &&
	      XIB_NL_CM_LISTEN == (int)XIB_CMA_LISTEN &&
	      XIB_NL_CM_DEVICE_REMOVAL == (int)XIB_CMA_DEVICE_REMOVAL &&
	      XIB_NL_CM_DESTROYING == (int)XIB_CMA_DESTROYING &&
	      XIB_NL_CM_DESTROYING == (int)XIB_CMA_STATE_MAX - 1);
static_assert(XIB_NL_PS_TCP == (int)XIB_CMA_PS_TCP &&
	      XIB_NL_PS_UDP == (int)XIB_CMA_PS_UDP &&
	      XIB_NL_PS_IPOIB == (int)XIB_CMA_PS_IPOIB &&
	      XIB_NL_PS_IB == (int)XIB_CMA_PS_IB);

/*
 * struct xib_res_cm_id_source.next: a copy of the first id of @net
 * numbered *@idn or more.  The id is found and referenced under the
 * xarray's lock, copied under its own lock (which keeps its device
 * attached: see xib_cma_detach()), and let go.
 */
static bool xib_cma_res_next(struct net *net, struct pid_namespace *ns,
			     unsigned long *idn, struct xib_res_cm_id *out)
{
	struct xib_cma_priv *p;

	for (;;) {
		xa_lock(&xib_cma_ids);
		p = xa_find(&xib_cma_ids, idn, ULONG_MAX, XA_PRESENT);
		if (p && (!net_eq(p->net, net) || !kref_get_unless_zero(&p->ref)))
			p = ERR_PTR(-EAGAIN);	/* not ours, or dying */
		xa_unlock(&xib_cma_ids);
		if (!p)
			return false;
		if (!IS_ERR(p))
			break;
		if (*idn == ULONG_MAX)
			return false;
		(*idn)++;
	}

	memset(out, 0, sizeof(*out));
	out->idn = p->idn;
	if (p->owner_pid) {
		out->owner.pid = pid_nr_ns(p->owner_pid, ns);
		out->owner.euid = p->owner_euid;
		memcpy(out->owner.comm, p->owner_comm,
		       sizeof(out->owner.comm));
	} else {
		out->owner.kern = true;
	}
	out->ps = p->id.ps;
	out->qp_type = p->id.qp_type;
	mutex_lock(&p->lock);
	out->state = p->state;
	out->src = p->src;
	out->dst = p->dst;
	if (p->cdev) {
		out->dev_index = p->cdev->xdev->index;
		strscpy(out->dev_name, p->cdev->xdev->name,
			sizeof(out->dev_name));
		out->port = p->port_num;
	}
	out->qpn = p->qp_num;
	out->backlog = p->backlog;
	mutex_unlock(&p->lock);
	kref_put(&p->ref, xib_cma_priv_free);
	return true;
}

static const struct xib_res_cm_id_source xib_cma_res_source = {
	.next = xib_cma_res_next,
};

int xib_cma_ids_init(void)
{
	xib_cma_wq = alloc_workqueue("xib_cma", WQ_UNBOUND, 0);
	if (!xib_cma_wq)
		return -ENOMEM;
	xib_res_cm_id_register(&xib_cma_res_source);
	return 0;
}

void xib_cma_ids_exit(void)
{
	xib_res_cm_id_unregister(&xib_cma_res_source);
	destroy_workqueue(xib_cma_wq);
	WARN_ON(!xa_empty(&xib_cma_ids));
}
