// SPDX-License-Identifier: GPL-2.0
/*
 * The IB CM (include/xib/xib_cm.h): communication IDs, listeners, the
 * protocol of IBTA vol. 1 ch. 12 over the MAD layer, timers, and the
 * delivery of events.
 *
 * Every device gets a struct xib_cm_dev (a core client, registered before
 * the RDMA CM's so that it is added first and removed last) with one MAD
 * agent per port for class 0x07 version 2.  Received messages and send
 * completions run on the MAD layer's ordered workqueue of the device:
 * they decode and check the message (cm_msg.c), find the id it is for,
 * and apply the state table (cm_state.c), which says what to send, what
 * to cancel and whether the consumer hears of it.  Events are queued on
 * the id and delivered by the id's work item on xib_cm_wq, so that they
 * reach the consumer in process context, in order, one at a time per id.
 *
 * Matching: a message names our end by our local comm ID (an xarray,
 * the wire value being the index XOR a random operand); it must come
 * from the id's peer GID on the id's device and port, and name the
 * peer's comm ID we know.  A REQ is matched to an existing id by the
 * sender's comm ID and GID (a duplicate), to a connection in use by the
 * sender's QPN and GID (stale), and otherwise to a listener by service
 * ID; so is a SIDR_REQ by its request ID.  Received fields are only ever
 * compared or copied, never used to index anything.
 *
 * Bounds: each listener has at most XIB_CM_MAX_PENDING requests whose
 * consumer has not answered; more are dropped unanswered (the peer
 * retries).  Waits derived from the peer's fields are capped at
 * XIB_CM_MAX_WAIT_MS per attempt.
 *
 * Locking, outermost first:
 *  - priv->lock (a mutex): an id's protocol state and fields; held while
 *    a message is applied to it and while its MADs are posted;
 *  - cdev->lock: a device's listeners and ids;
 *  - xib_cm_table_lock: the remote-ID and remote-QPN tables;
 *  - the local-ID xarray's lock.
 * No lock is held while a consumer's handler runs.  Ids carry a kref:
 * the consumer's (until destroy), one per queued event work, per posted
 * send awaiting an answer, per armed timewait timer, and one per lookup
 * while a message is applied.  A destroyed id whose protocol is not over
 * (DREQ sent, timewait) lives on without a consumer until it is.
 */

#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <xib/xib_cm.h>
#include <xib/xib_mad.h>

#include "cm_msg.h"
#include "cm_priv.h"

/* Unanswered requests per listener; more are dropped (the peer retries). */
#define XIB_CM_MAX_PENDING	1024
/* The longest wait for one attempt, whatever a peer's fields say. */
#define XIB_CM_MAX_WAIT_MS	(5 * 60 * 1000)
/* The MRA's service timeout when a duplicate finds the consumer deciding. */
#define XIB_CM_AUTO_MRA_TIMEOUT	24
/* IBTA 12.7.7: timewait lasts at least 2 * packet lifetime. */
#define XIB_CM_MIN_TIMEWAIT_MS	10

#define XIB_CM_HASH_BITS	8

/**
 * struct xib_cm_port - the CM on one port of a device
 * @cdev: the device's CM
 * @port_num: 1-based
 * @agent: the MAD agent of class 0x07 version 2
 */
struct xib_cm_port {
	struct xib_cm_dev *cdev;
	u32 port_num;
	struct xib_mad_agent *agent;
};

/**
 * struct xib_cm_dev - the CM on one device
 * @xdev: the device
 * @lock: protects @listeners, @ids, @nr_ids, @dying and each id's
 *	@listen_node and @killed
 * @listeners: the ids in LISTEN
 * @ids: every id of the device, the consumers' and those that outlive
 *	their consumer
 * @nr_ids: entries on @ids
 * @dying: the device is being removed: no new ids
 * @ids_gone: completed when @nr_ids drops to zero while @dying
 * @nports: entries of @ports
 * @ports: one per port
 */
struct xib_cm_dev {
	struct xib_device *xdev;
	spinlock_t lock;	/* see @lock above */
	struct list_head listeners;
	struct list_head ids;
	unsigned int nr_ids;
	bool dying;
	struct completion ids_gone;
	u32 nports;
	struct xib_cm_port ports[];
};

/**
 * struct xib_cm_priv - an id and what only the CM sees of it
 * @id: what the consumer sees (@id.state under @lock)
 * @ref: see the file comment
 * @cdev: the device's CM
 * @lock: protects the fields below it, up to @events
 * @port: the port of the exchange (NULL until a REQ, SIDR_REQ or listen)
 * @destroyed: the consumer is gone: no event is queued or delivered
 * @msg: the send awaiting an answer (REQ, REP, DREQ, SIDR_REQ)
 * @addr: where this exchange's MADs go (the peer's QP1)
 * @tid: the transaction of the connection (the REQ's TID) or SIDR_REQ
 * @dreq_tid: the TID of the peer's DREQ, which the DREP carries
 * @reply: the last answer sent (REP, MRA, RTU, DREP), for duplicates
 * @reply_to: the attribute @reply answers (0: none)
 * @path: the primary path, this end's view (the receiver's for a REQ)
 * @qp_type: XIB_QPT_RC, XIB_QPT_UC, XIB_QPT_XRC_SEND (active side) or
 *	XIB_QPT_XRC_RECV (passive side of an XRC REQ)
 * @remote_ca_guid: the peer's CA GUID
 * @local_qpn: this end's QP
 * @remote_qpn: the peer's QP
 * @sq_psn: this end's QP's first send PSN.  As in Linux's ib_cm, a REQ's
 *	or REP's starting PSN is the PSN its sender expects to receive: the
 *	peer's @sq_psn
 * @rq_psn: this end's QP's first expected PSN, the starting PSN of the
 *	message it sends (0 on the passive side until its REP says it)
 * @responder_resources: this end's, as negotiated
 * @initiator_depth: this end's, as negotiated
 * @peer_resources: the responder resources the REQ offered (passive side)
 * @peer_depth: the initiator depth the REQ offered (passive side)
 * @retry_count: transport retries for this end's QP
 * @rnr_retry_count: RNR retries for this end's QP
 * @local_ack_timeout: for this end's QP
 * @max_cm_retries: resends of the CM's own requests
 * @timeout_ms: the wait per attempt for an answer
 * @packet_life_time: of the path (4.096 us * 2^n)
 * @service_timeout: of the MRA this end sent
 * @in_remote: @rnode is in xib_cm_remote (by @id.remote_id and @path.dgid)
 * @rnode: the node in xib_cm_remote
 * @in_qpn: @qnode is in xib_cm_qpns (by @remote_qpn and @path.dgid)
 * @qnode: the node in xib_cm_qpns
 * @events: queued events (struct xib_cm_evt)
 * @service_mask: a listener's
 * @listen_node: on @cdev->listeners (under @cdev->lock)
 * @pending: a listener's requests whose consumer has not answered
 * @inflight: a listener's REQ_RECEIVED/SIDR_REQ_RECEIVED not yet delivered
 * @wait: a listener's destroy waits here for @inflight to drop to zero
 * @listener: a request's id: the listener it counts against (a reference)
 *	while it is in REQ_RCVD, MRA_REQ_SENT or SIDR_REQ_RCVD (under @lock)
 * @work: delivers @events
 * @timewait: ends TIMEWAIT
 * @dev_node: on @cdev->ids
 * @killed: device removal ended its protocol (under @cdev->lock)
 */
struct xib_cm_priv {
	struct xib_cm_id id;
	struct kref ref;
	struct xib_cm_dev *cdev;

	struct mutex lock;	/* see @lock above */
	struct xib_cm_port *port;
	bool destroyed;
	struct xib_mad_send *msg;
	struct xib_mad_addr addr;
	__be64 tid;
	__be64 dreq_tid;
	struct xib_mad reply;
	u16 reply_to;
	struct xib_cm_path path;
	enum xib_qp_type qp_type;
	__be64 remote_ca_guid;
	u32 local_qpn;
	u32 remote_qpn;
	u32 sq_psn;
	u32 rq_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 peer_resources;
	u8 peer_depth;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 local_ack_timeout;
	u8 max_cm_retries;
	unsigned int timeout_ms;
	u8 packet_life_time;
	u8 service_timeout;
	bool in_remote;
	bool in_qpn;
	struct hlist_node rnode;
	struct hlist_node qnode;
	struct xib_cm_priv *listener;
	struct list_head events;

	__be64 service_mask;
	struct list_head listen_node;
	atomic_t pending;
	atomic_t inflight;
	wait_queue_head_t wait;

	struct work_struct work;
	struct delayed_work timewait;
	struct list_head dev_node;
	bool killed;
};

/**
 * struct xib_cm_evt - a queued event and the bytes it points to
 * @list: on the id's @events
 * @ev: the event; its pointers are set when it is delivered
 * @listener: REQ_RECEIVED, SIDR_REQ_RECEIVED: counted in its @inflight
 * @pdata: the message's private data
 * @pdata_len: its length
 * @extra: REJ: the ARI; SIDR_REP: the additional information
 */
struct xib_cm_evt {
	struct list_head list;
	struct xib_cm_event ev;
	struct xib_cm_priv *listener;
	u8 pdata[XIB_CM_MAX_PRIVATE_DATA];
	u8 pdata_len;
	u8 extra[XIB_CM_REJ_ARI_LENGTH];
};

/* What the flags of a table entry need beyond the id. */
struct xib_cm_ctx {
	const struct xib_mad_recv *recv;	/* the message being applied */
	struct xib_cm_evt *evt;			/* its event, if the table says */
	u16 rej_reason;				/* for XIB_CM_T_REJ */
	u8 sidr_status;				/* for XIB_CM_T_SIDR */
	bool rej_silent;			/* destroy: answer nothing */
	unsigned int extend_ms;			/* for XIB_CM_T_EXTEND */
};

static struct workqueue_struct *xib_cm_wq;
static struct xib_client xib_cm_client;

/* Local comm IDs: the index XOR this operand is the ID on the wire. */
static DEFINE_XARRAY_ALLOC(xib_cm_local_ids);
static u32 xib_cm_id_operand;
static u32 xib_cm_id_next;

static DEFINE_SPINLOCK(xib_cm_table_lock);
static DEFINE_HASHTABLE(xib_cm_remote, XIB_CM_HASH_BITS); /* table_lock */
static DEFINE_HASHTABLE(xib_cm_qpns, XIB_CM_HASH_BITS);   /* table_lock */

static inline struct xib_cm_priv *to_priv(struct xib_cm_id *id)
{
	return container_of(id, struct xib_cm_priv, id);
}

/* --- ids ------------------------------------------------------------------ */

static void xib_cm_evt_free(struct xib_cm_evt *evt);

static void xib_cm_release(struct kref *ref)
{
	struct xib_cm_priv *p = container_of(ref, struct xib_cm_priv, ref);
	struct xib_cm_dev *cdev = p->cdev;
	bool last;

	xa_erase(&xib_cm_local_ids,
		 be32_to_cpu(p->id.local_id) ^ xib_cm_id_operand);
	WARN_ON(p->in_remote || p->in_qpn || p->listener || p->msg ||
		!list_empty(&p->events));
	spin_lock(&cdev->lock);
	list_del(&p->dev_node);
	last = !--cdev->nr_ids && cdev->dying;
	spin_unlock(&cdev->lock);
	mutex_destroy(&p->lock);
	kfree(p);
	if (last)
		complete(&cdev->ids_gone);
}

static void xib_cm_put(struct xib_cm_priv *p)
{
	kref_put(&p->ref, xib_cm_release);
}

static void xib_cm_work(struct work_struct *work);
static void xib_cm_timewait_work(struct work_struct *work);

static struct xib_cm_priv *xib_cm_alloc(struct xib_cm_dev *cdev,
					xib_cm_handler handler, void *context)
{
	struct xib_cm_priv *p;
	u32 index;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->id.device = cdev->xdev;
	p->id.handler = handler;
	p->id.context = context;
	p->id.state = XIB_CM_IDLE;
	p->cdev = cdev;
	kref_init(&p->ref);
	mutex_init(&p->lock);
	INIT_LIST_HEAD(&p->events);
	INIT_LIST_HEAD(&p->listen_node);
	INIT_HLIST_NODE(&p->rnode);
	INIT_HLIST_NODE(&p->qnode);
	init_waitqueue_head(&p->wait);
	INIT_WORK(&p->work, xib_cm_work);
	INIT_DELAYED_WORK(&p->timewait, xib_cm_timewait_work);

	ret = xa_alloc_cyclic(&xib_cm_local_ids, &index, p, xa_limit_32b,
			      &xib_cm_id_next, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	p->id.local_id = cpu_to_be32(index ^ xib_cm_id_operand);

	spin_lock(&cdev->lock);
	if (cdev->dying) {
		spin_unlock(&cdev->lock);
		ret = -ENODEV;
		goto err_erase;
	}
	list_add_tail(&p->dev_node, &cdev->ids);
	cdev->nr_ids++;
	spin_unlock(&cdev->lock);
	return p;

err_erase:
	xa_erase(&xib_cm_local_ids, index);
err_free:
	mutex_destroy(&p->lock);
	kfree(p);
	return ERR_PTR(ret);
}

/* The id whose local comm ID is @local_id, with a reference, or NULL. */
static struct xib_cm_priv *xib_cm_find_local(__be32 local_id)
{
	struct xib_cm_priv *p;

	xa_lock(&xib_cm_local_ids);
	p = xa_load(&xib_cm_local_ids,
		    be32_to_cpu(local_id) ^ xib_cm_id_operand);
	if (p && !kref_get_unless_zero(&p->ref))
		p = NULL;
	xa_unlock(&xib_cm_local_ids);
	return p;
}

/* --- the remote tables ----------------------------------------------------- */

static u32 xib_cm_hash(const struct xib_cm_dev *cdev, u32 port,
		       const u8 gid[16], u32 key)
{
	return jhash(gid, 16, key ^ port ^ hash_ptr(cdev, 32));
}

/*
 * The id that has the peer @gid (on @cdev's @port) as its remote end with
 * comm ID @remote_id, with a reference, or NULL.
 */
static struct xib_cm_priv *xib_cm_find_remote(struct xib_cm_dev *cdev,
					      u32 port, const u8 gid[16],
					      __be32 remote_id)
{
	u32 h = xib_cm_hash(cdev, port, gid, (__force u32)remote_id);
	struct xib_cm_priv *p, *found = NULL;

	spin_lock(&xib_cm_table_lock);
	hash_for_each_possible(xib_cm_remote, p, rnode, h) {
		if (p->cdev == cdev && p->port->port_num == port &&
		    p->id.remote_id == remote_id &&
		    !memcmp(p->path.dgid, gid, 16) &&
		    kref_get_unless_zero(&p->ref)) {
			found = p;
			break;
		}
	}
	spin_unlock(&xib_cm_table_lock);
	return found;
}

/* The same by the peer's QP number @qpn. */
static struct xib_cm_priv *xib_cm_find_qpn(struct xib_cm_dev *cdev, u32 port,
					   const u8 gid[16], u32 qpn)
{
	u32 h = xib_cm_hash(cdev, port, gid, qpn);
	struct xib_cm_priv *p, *found = NULL;

	spin_lock(&xib_cm_table_lock);
	hash_for_each_possible(xib_cm_qpns, p, qnode, h) {
		if (p->cdev == cdev && p->port->port_num == port &&
		    p->remote_qpn == qpn && !memcmp(p->path.dgid, gid, 16) &&
		    kref_get_unless_zero(&p->ref)) {
			found = p;
			break;
		}
	}
	spin_unlock(&xib_cm_table_lock);
	return found;
}

/*
 * Enter @p in the remote-ID table and, with @qpn, the remote-QPN one,
 * unless another id is there already: -EEXIST.
 */
static int xib_cm_hash_insert(struct xib_cm_priv *p, bool qpn)
{
	u32 port = p->port->port_num;
	u32 hr = xib_cm_hash(p->cdev, port, p->path.dgid,
			     (__force u32)p->id.remote_id);
	u32 hq = xib_cm_hash(p->cdev, port, p->path.dgid, p->remote_qpn);
	struct xib_cm_priv *o;
	int ret = 0;

	lockdep_assert_held(&p->lock);
	spin_lock(&xib_cm_table_lock);
	hash_for_each_possible(xib_cm_remote, o, rnode, hr)
		if (o->cdev == p->cdev && o->port->port_num == port &&
		    o->id.remote_id == p->id.remote_id &&
		    !memcmp(o->path.dgid, p->path.dgid, 16))
			ret = -EEXIST;
	if (qpn)
		hash_for_each_possible(xib_cm_qpns, o, qnode, hq)
			if (o->cdev == p->cdev && o->port->port_num == port &&
			    o->remote_qpn == p->remote_qpn &&
			    !memcmp(o->path.dgid, p->path.dgid, 16))
				ret = -EEXIST;
	if (!ret) {
		hash_add(xib_cm_remote, &p->rnode, hr);
		p->in_remote = true;
		if (qpn) {
			hash_add(xib_cm_qpns, &p->qnode, hq);
			p->in_qpn = true;
		}
	}
	spin_unlock(&xib_cm_table_lock);
	return ret;
}

static void xib_cm_hash_remove(struct xib_cm_priv *p)
{
	spin_lock(&xib_cm_table_lock);
	if (p->in_remote)
		hash_del(&p->rnode);
	if (p->in_qpn)
		hash_del(&p->qnode);
	p->in_remote = false;
	p->in_qpn = false;
	spin_unlock(&xib_cm_table_lock);
}

/* --- listeners ------------------------------------------------------------- */

/*
 * The listener of @cdev for @sid, counted as pending and in flight, with
 * a reference; ERR_PTR(-ENOENT) if none, -ENOBUFS if its backlog is full.
 */
static struct xib_cm_priv *xib_cm_find_listener(struct xib_cm_dev *cdev,
						__be64 sid)
{
	struct xib_cm_priv *l, *found = ERR_PTR(-ENOENT);

	spin_lock(&cdev->lock);
	list_for_each_entry(l, &cdev->listeners, listen_node) {
		if ((sid ^ l->id.service_id) & l->service_mask)
			continue;
		if (atomic_read(&l->pending) >= XIB_CM_MAX_PENDING) {
			found = ERR_PTR(-ENOBUFS);
			break;
		}
		kref_get(&l->ref);
		atomic_inc(&l->pending);
		atomic_inc(&l->inflight);
		found = l;
		break;
	}
	spin_unlock(&cdev->lock);
	return found;
}

/* A request's id stops counting against its listener's backlog. */
static void xib_cm_unpend(struct xib_cm_priv *p)
{
	struct xib_cm_priv *l = p->listener;

	lockdep_assert_held(&p->lock);
	if (!l)
		return;
	p->listener = NULL;
	atomic_dec(&l->pending);
	xib_cm_put(l);
}

/* A REQ_RECEIVED or SIDR_REQ_RECEIVED of @l was delivered or dropped. */
static void xib_cm_uninflight(struct xib_cm_priv *l)
{
	if (atomic_dec_and_test(&l->inflight))
		wake_up(&l->wait);
	xib_cm_put(l);
}

/* --- events ---------------------------------------------------------------- */

static struct xib_cm_evt *xib_cm_evt_alloc(void)
{
	return kzalloc(sizeof(struct xib_cm_evt), GFP_KERNEL);
}

static void xib_cm_evt_free(struct xib_cm_evt *evt)
{
	if (!evt)
		return;
	if (evt->listener)
		xib_cm_uninflight(evt->listener);
	kfree(evt);
}

/* Queue @evt for @p's consumer (or drop it if there is none any more). */
static void xib_cm_queue(struct xib_cm_priv *p, struct xib_cm_evt *evt)
{
	lockdep_assert_held(&p->lock);
	if (p->destroyed) {
		xib_cm_evt_free(evt);
		return;
	}
	list_add_tail(&evt->list, &p->events);
	if (queue_work(xib_cm_wq, &p->work))
		kref_get(&p->ref);
}

static void xib_cm_destroy(struct xib_cm_priv *p, int err, bool from_work);

/* Point the event's pointers at its bytes. */
static void xib_cm_evt_prepare(struct xib_cm_evt *evt)
{
	struct xib_cm_event *ev = &evt->ev;

	ev->private_data = evt->pdata_len ? evt->pdata : NULL;
	ev->private_data_len = evt->pdata_len;
	switch (ev->event) {
	case XIB_CM_REQ_RECEIVED:
		ev->req.private_data = ev->private_data;
		ev->req.private_data_len = ev->private_data_len;
		break;
	case XIB_CM_REP_RECEIVED:
		ev->rep.private_data = ev->private_data;
		ev->rep.private_data_len = ev->private_data_len;
		break;
	case XIB_CM_SIDR_REQ_RECEIVED:
		ev->sidr_req.private_data = ev->private_data;
		ev->sidr_req.private_data_len = ev->private_data_len;
		break;
	case XIB_CM_SIDR_REP_RECEIVED:
		ev->sidr_rep.private_data = ev->private_data;
		ev->sidr_rep.private_data_len = ev->private_data_len;
		ev->sidr_rep.info = ev->sidr_rep.info_len ? evt->extra : NULL;
		break;
	case XIB_CM_REJ_RECEIVED:
		ev->ari = ev->ari_len ? evt->extra : NULL;
		break;
	default:
		break;
	}
}

/* Deliver @p's events, one at a time, in order. */
static void xib_cm_work(struct work_struct *work)
{
	struct xib_cm_priv *p = container_of(work, struct xib_cm_priv, work);
	struct xib_cm_evt *evt;
	bool gone;
	int ret;

	for (;;) {
		mutex_lock(&p->lock);
		evt = list_first_entry_or_null(&p->events, struct xib_cm_evt,
					       list);
		if (evt)
			list_del(&evt->list);
		gone = p->destroyed;
		mutex_unlock(&p->lock);
		if (!evt)
			break;
		if (gone) {
			xib_cm_evt_free(evt);
			continue;
		}
		xib_cm_evt_prepare(evt);
		/* the handler may replace id.handler (REQ_RECEIVED) */
		ret = p->id.handler(&p->id, &evt->ev);
		xib_cm_evt_free(evt);
		if (ret) {
			xib_cm_destroy(p, ret, true);
			break;
		}
	}
	xib_cm_put(p);
}

/* --- sending --------------------------------------------------------------- */

/* The counters by message are in attribute ID order, REQ to SIDR_REP. */
static_assert(XIB_CORE_STAT_CM_TX_SIDR_REP - XIB_CORE_STAT_CM_TX_REQ ==
	      XIB_CM_ATTR_SIDR_REP - XIB_CM_ATTR_REQ);
static_assert(XIB_CORE_STAT_CM_RX_SIDR_REP - XIB_CORE_STAT_CM_RX_REQ ==
	      XIB_CM_ATTR_SIDR_REP - XIB_CM_ATTR_REQ);

/* Count @mad, sent (@tx) or received, in the device's CM counters. */
static void xib_cm_count(struct xib_cm_dev *cdev, const struct xib_mad *mad,
			 bool tx)
{
	u16 attr = xib_cm_msg_attr(mad);

	if (attr < XIB_CM_ATTR_REQ || attr > XIB_CM_ATTR_SIDR_REP)
		return;
	xib_core_stat_inc(cdev->xdev, (tx ? XIB_CORE_STAT_CM_TX_REQ :
					    XIB_CORE_STAT_CM_RX_REQ) +
				      attr - XIB_CM_ATTR_REQ);
}

static __be64 xib_cm_own_tid(const struct xib_cm_priv *p)
{
	/* the MAD layer puts the agent's space in the high half */
	return cpu_to_be64(be32_to_cpu(p->id.local_id));
}

/*
 * Post @mad to @p's peer.  @await: it is a request the CM waits an answer
 * for (resent every @p->timeout_ms, @p->max_cm_retries times), which
 * becomes @p->msg.  @keep_tid: its TID is the peer's transaction's.
 */
static int xib_cm_post(struct xib_cm_priv *p, const struct xib_mad *mad,
		       bool await, bool keep_tid, unsigned int timeout_ms)
{
	struct xib_mad_send *s;
	int ret;

	lockdep_assert_held(&p->lock);
	if (!p->port)
		return -EINVAL;
	s = xib_mad_alloc_send(p->port->agent, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->mad = *mad;
	s->addr = p->addr;
	s->flags = XIB_MAD_SEND_NO_MATCH |
		   (keep_tid ? XIB_MAD_SEND_KEEP_TID : 0);
	if (await) {
		s->timeout_ms = timeout_ms;
		s->retries = p->max_cm_retries;
		s->context = p;
		kref_get(&p->ref);
	}
	ret = xib_mad_post_send(s);
	if (ret) {
		if (await)
			xib_cm_put(p);	/* not the last: the caller has one */
		xib_mad_free_send(s);
		return ret;
	}
	xib_cm_count(p->port->cdev, mad, true);
	if (await) {
		p->msg = s;
		/* send_done needs @p->lock: @s is still ours to read */
		if (!keep_tid)
			p->tid = s->mad.hdr.tid;
	}
	return 0;
}

/* Keep @mad as the answer a duplicate of @attr gets. */
static void xib_cm_keep_reply(struct xib_cm_priv *p, const struct xib_mad *mad,
			      u16 attr)
{
	p->reply = *mad;
	p->reply_to = attr;
}

/* Answer the received @recv with @mad (no id, no wait, its TID). */
static void xib_cm_answer(struct xib_cm_port *port,
			  const struct xib_mad_recv *recv, struct xib_mad *mad)
{
	struct xib_mad_send *s;

	s = xib_mad_alloc_send(port->agent, GFP_KERNEL);
	if (!s)
		return;
	mad->hdr.tid = recv->mad.hdr.tid;
	s->mad = *mad;
	s->flags = XIB_MAD_SEND_KEEP_TID | XIB_MAD_SEND_NO_MATCH;
	if (xib_mad_addr_reply(port->cdev->xdev, recv, &s->addr) ||
	    xib_mad_post_send(s))
		xib_mad_free_send(s);
	else
		xib_cm_count(port->cdev, mad, true);
}

/* Answer a REQ (or anything with comm IDs at 0 and 4) with REJ @reason. */
static void xib_cm_answer_rej(struct xib_cm_port *port,
			      const struct xib_mad_recv *recv, u16 reason,
			      u8 rejected)
{
	struct xib_cm_rej_msg *m;
	struct xib_mad mad;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return;
	/* our comm ID is unknown to us: the one the message named, or 0 */
	memcpy(&m->remote_comm_id, recv->mad.data, 4);
	if (rejected != XIB_CM_MSG_REQ)
		memcpy(&m->local_comm_id, recv->mad.data + 4, 4);
	m->message_rejected = rejected;
	m->reason = reason;
	xib_cm_rej_encode(&mad, 0, m);
	kfree(m);
	xib_cm_answer(port, recv, &mad);
}

/* The message a REJ from @p in @state rejects (IBTA table 101). */
static u8 xib_cm_rejected(enum xib_cm_state state)
{
	switch (state) {
	case XIB_CM_REQ_RCVD:
	case XIB_CM_MRA_REQ_SENT:
		return XIB_CM_MSG_REQ;
	case XIB_CM_REP_RCVD:
	case XIB_CM_MRA_REP_SENT:
		return XIB_CM_MSG_REP;
	default:
		return XIB_CM_MSG_OTHER;
	}
}

/*
 * Send REJ from @p in @state.  A REJ for a timeout carries our CA GUID
 * as its ARI (IBTA table 102), which is how the peer finds the connection
 * when it does not know our comm ID.
 */
static int xib_cm_send_rej_locked(struct xib_cm_priv *p,
				  enum xib_cm_state state, u16 reason,
				  const void *ari, u8 ari_len,
				  const void *pdata, u8 len)
{
	__be64 guid = p->cdev->xdev->node_guid;
	struct xib_cm_rej_msg *m;
	struct xib_mad mad;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->message_rejected = xib_cm_rejected(state);
	/* as Linux: no local comm ID before the consumer answered a REQ */
	if (state != XIB_CM_REQ_RCVD)
		m->local_comm_id = p->id.local_id;
	m->remote_comm_id = p->id.remote_id;
	m->reason = reason;
	if (reason == XIB_CM_REJ_TIMEOUT && !ari) {
		ari = &guid;
		ari_len = sizeof(guid);
	}
	if (ari_len)
		memcpy(m->ari, ari, ari_len);
	m->ari_length = ari_len;
	if (len)
		memcpy(m->private_data, pdata, len);
	xib_cm_rej_encode(&mad, p->tid, m);
	kfree(m);
	return xib_cm_post(p, &mad, false, true, 0);
}

static int xib_cm_send_mra_locked(struct xib_cm_priv *p, u8 mraed,
				  u8 service_timeout, const void *pdata,
				  u8 len)
{
	struct xib_cm_mra_msg *m;
	struct xib_mad mad;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->local_comm_id = p->id.local_id;
	m->remote_comm_id = p->id.remote_id;
	m->message_mraed = mraed;
	m->service_timeout = service_timeout;
	if (len)
		memcpy(m->private_data, pdata, len);
	xib_cm_mra_encode(&mad, p->tid, m);
	kfree(m);
	ret = xib_cm_post(p, &mad, false, true, 0);
	if (!ret) {
		p->service_timeout = service_timeout;
		xib_cm_keep_reply(p, &mad, mraed == XIB_CM_MSG_REQ ?
				  XIB_CM_ATTR_REQ : XIB_CM_ATTR_REP);
	}
	return ret;
}

static int xib_cm_send_dreq_locked(struct xib_cm_priv *p, const void *pdata,
				   u8 len)
{
	struct xib_cm_dreq_msg *m;
	struct xib_mad mad;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->local_comm_id = p->id.local_id;
	m->remote_comm_id = p->id.remote_id;
	m->remote_qpn = p->remote_qpn;
	if (len)
		memcpy(m->private_data, pdata, len);
	xib_cm_dreq_encode(&mad, xib_cm_own_tid(p), m);
	kfree(m);
	ret = xib_cm_post(p, &mad, true, false, p->timeout_ms);
	return ret;
}

/* DREP to @p's peer, answering the DREQ whose TID is @tid. */
static int xib_cm_send_drep_locked(struct xib_cm_priv *p, __be64 tid,
				   const void *pdata, u8 len)
{
	struct xib_cm_drep_msg *m;
	struct xib_mad mad;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->local_comm_id = p->id.local_id;
	m->remote_comm_id = p->id.remote_id;
	if (len)
		memcpy(m->private_data, pdata, len);
	xib_cm_drep_encode(&mad, tid, m);
	kfree(m);
	ret = xib_cm_post(p, &mad, false, true, 0);
	if (!ret)
		xib_cm_keep_reply(p, &mad, XIB_CM_ATTR_DREQ);
	return ret;
}

static int xib_cm_send_sidr_rep_locked(struct xib_cm_priv *p,
				       const struct xib_cm_sidr_rep_param *pr)
{
	struct xib_cm_sidr_rep_msg *m;
	struct xib_mad mad;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->request_id = p->id.remote_id;
	m->status = pr->status;
	m->qpn = pr->qp_num;
	m->service_id = p->id.service_id;
	m->qkey = pr->qkey;
	m->info_length = pr->info_len;
	if (pr->info_len)
		memcpy(m->info, pr->info, pr->info_len);
	if (pr->private_data_len)
		memcpy(m->private_data, pr->private_data, pr->private_data_len);
	xib_cm_sidr_rep_encode(&mad, p->tid, m);
	kfree(m);
	ret = xib_cm_post(p, &mad, false, true, 0);
	return ret;
}

/* --- the state machine ----------------------------------------------------- */

static unsigned int xib_cm_wait_ms(unsigned int ms)
{
	return min_t(unsigned int, ms, XIB_CM_MAX_WAIT_MS);
}

static unsigned int xib_cm_timewait_ms(const struct xib_cm_priv *p)
{
	unsigned int ms = xib_cm_time_ms(min_t(u8, p->packet_life_time + 1,
					      31));

	return clamp_t(unsigned int, ms, XIB_CM_MIN_TIMEWAIT_MS,
		       XIB_CM_MAX_WAIT_MS);
}

static enum xib_cm_event_type xib_cm_op_event(enum xib_cm_op op,
					      enum xib_cm_state old)
{
	switch (op) {
	case XIB_CM_OP_RECV_REQ:	return XIB_CM_REQ_RECEIVED;
	case XIB_CM_OP_RECV_MRA_REQ:
	case XIB_CM_OP_RECV_MRA_REP:	return XIB_CM_MRA_RECEIVED;
	case XIB_CM_OP_RECV_REJ:
	case XIB_CM_OP_RECV_REJ_STALE:	return XIB_CM_REJ_RECEIVED;
	case XIB_CM_OP_RECV_REP:	return XIB_CM_REP_RECEIVED;
	case XIB_CM_OP_RECV_RTU:	return XIB_CM_RTU_RECEIVED;
	case XIB_CM_OP_ESTABLISH:	return XIB_CM_USER_ESTABLISHED;
	case XIB_CM_OP_RECV_DREQ:	return XIB_CM_DREQ_RECEIVED;
	case XIB_CM_OP_RECV_DREP:	return XIB_CM_DREP_RECEIVED;
	case XIB_CM_OP_RECV_SIDR_REQ:	return XIB_CM_SIDR_REQ_RECEIVED;
	case XIB_CM_OP_RECV_SIDR_REP:	return XIB_CM_SIDR_REP_RECEIVED;
	case XIB_CM_OP_TIMEWAIT_EXIT:	return XIB_CM_TIMEWAIT_EXIT;
	default:
		break;
	}
	/* XIB_CM_OP_TIMEOUT: what was awaited */
	switch (old) {
	case XIB_CM_REQ_SENT:
	case XIB_CM_MRA_REQ_RCVD:
		return XIB_CM_REQ_ERROR;
	case XIB_CM_REP_SENT:
	case XIB_CM_MRA_REP_RCVD:
		return XIB_CM_REP_ERROR;
	case XIB_CM_DREQ_SENT:
		return XIB_CM_DREQ_ERROR;
	default:
		return XIB_CM_SIDR_REQ_ERROR;
	}
}

/* What changing from @old to @p->id.state implies. */
static void xib_cm_entered(struct xib_cm_priv *p, enum xib_cm_state old)
{
	enum xib_cm_state now = p->id.state;

	lockdep_assert_held(&p->lock);
	if (now == old)
		return;
	if (now != XIB_CM_REQ_RCVD && now != XIB_CM_MRA_REQ_SENT &&
	    now != XIB_CM_SIDR_REQ_RCVD)
		xib_cm_unpend(p);
	if (now == XIB_CM_IDLE)
		xib_cm_hash_remove(p);
	if (now == XIB_CM_TIMEWAIT &&
	    queue_delayed_work(xib_cm_wq, &p->timewait,
			       msecs_to_jiffies(xib_cm_timewait_ms(p))))
		kref_get(&p->ref);
}

/*
 * Apply @op to @p as the table says: cancel or extend the awaited send,
 * answer, change the state, queue the event (@ctx->evt, or a new one).
 * Return: the entry's flags, or -EINVAL if the table refuses @op (then
 * nothing changed).  @ctx->evt is consumed either way.
 */
static int xib_cm_apply(struct xib_cm_priv *p, enum xib_cm_op op,
			struct xib_cm_ctx *ctx)
{
	enum xib_cm_state old = p->id.state;
	struct xib_cm_evt *evt = ctx->evt;
	const struct xib_mad_recv *recv = ctx->recv;
	struct xib_cm_trans t;
	struct xib_mad mad;

	lockdep_assert_held(&p->lock);
	ctx->evt = NULL;
	if (xib_cm_next(old, op, &t)) {
		xib_cm_evt_free(evt);
		return -EINVAL;
	}
	if ((t.flags & XIB_CM_T_CANCEL) && p->msg) {
		xib_mad_cancel(p->msg);
		p->msg = NULL;
	}
	if ((t.flags & XIB_CM_T_EXTEND) && p->msg)
		xib_mad_modify(p->msg, xib_cm_wait_ms(ctx->extend_ms));
	if (t.flags & XIB_CM_T_DUP)
		xib_core_stat_inc(p->cdev->xdev, XIB_CORE_STAT_CM_RX_DUPS);
	if ((t.flags & XIB_CM_T_RESEND) && recv && p->reply_to &&
	    p->reply_to == be16_to_cpu(recv->mad.hdr.attr_id)) {
		mad = p->reply;
		xib_cm_post(p, &mad, false, true, 0);
	}
	if (t.flags & XIB_CM_T_MRA)
		xib_cm_send_mra_locked(p, old == XIB_CM_REQ_RCVD ?
				       XIB_CM_MSG_REQ : XIB_CM_MSG_REP,
				       XIB_CM_AUTO_MRA_TIMEOUT, NULL, 0);
	if ((t.flags & XIB_CM_T_REJ) && !ctx->rej_silent)
		xib_cm_send_rej_locked(p, old, ctx->rej_reason, NULL, 0,
				       NULL, 0);
	if ((t.flags & XIB_CM_T_STALE) && recv)
		xib_cm_answer_rej(p->port, recv, XIB_CM_REJ_STALE_CONN,
				  XIB_CM_MSG_REQ);
	if (t.flags & XIB_CM_T_DREQ)
		xib_cm_send_dreq_locked(p, NULL, 0);
	if (t.flags & XIB_CM_T_DREP)
		xib_cm_send_drep_locked(p, recv ? recv->mad.hdr.tid :
					p->dreq_tid, NULL, 0);
	if ((t.flags & XIB_CM_T_SIDR) && !ctx->rej_silent) {
		struct xib_cm_sidr_rep_param rep = {
			.status = ctx->sidr_status,
		};

		xib_cm_send_sidr_rep_locked(p, &rep);
	}

	p->id.state = t.next;
	xib_cm_entered(p, old);

	if (t.flags & XIB_CM_T_EVENT) {
		if (!evt)
			evt = xib_cm_evt_alloc();
		if (evt) {
			evt->ev.event = xib_cm_op_event(op, old);
			xib_cm_queue(p, evt);
			evt = NULL;
		}
	}
	xib_cm_evt_free(evt);
	return t.flags;
}

/* Whether the table allows @op now (for calls: check before building). */
static int xib_cm_allowed(struct xib_cm_priv *p, enum xib_cm_op op)
{
	struct xib_cm_trans t;

	lockdep_assert_held(&p->lock);
	return xib_cm_next(p->id.state, op, &t);
}

/* Apply @op (a call's) that needs nothing but the table. */
static void xib_cm_apply_call(struct xib_cm_priv *p, enum xib_cm_op op)
{
	struct xib_cm_ctx ctx = {};

	xib_cm_apply(p, op, &ctx);
}

/* --- timers ---------------------------------------------------------------- */

static void xib_cm_timewait_work(struct work_struct *work)
{
	struct xib_cm_priv *p = container_of(to_delayed_work(work),
					     struct xib_cm_priv, timewait);
	struct xib_cm_ctx ctx = {};

	mutex_lock(&p->lock);
	if (p->id.state == XIB_CM_TIMEWAIT)
		xib_cm_apply(p, XIB_CM_OP_TIMEWAIT_EXIT, &ctx);
	mutex_unlock(&p->lock);
	xib_cm_put(p);
}

static void xib_cm_send_done(struct xib_mad_agent *agent,
			     struct xib_mad_send *send, int status)
{
	struct xib_cm_priv *p = send->context;
	struct xib_cm_ctx ctx = { .rej_reason = XIB_CM_REJ_TIMEOUT };

	if (p) {
		mutex_lock(&p->lock);
		if (p->msg == send) {
			p->msg = NULL;
			/* NO_MATCH: only a timeout ends it but a cancel */
			if (status == -ETIMEDOUT)
				xib_cm_apply(p, XIB_CM_OP_TIMEOUT, &ctx);
		}
		mutex_unlock(&p->lock);
		xib_cm_put(p);
	}
	xib_mad_free_send(send);
}

/* --- received messages ----------------------------------------------------- */

/*
 * The id a message names as @local_id (our comm ID), if it is one of
 * @port's and the message came from its peer; with a reference.
 */
static struct xib_cm_priv *xib_cm_find_conn(struct xib_cm_port *port,
					    const struct xib_mad_recv *recv,
					    __be32 local_id)
{
	struct xib_cm_priv *p;

	if (!local_id)
		return NULL;
	p = xib_cm_find_local(local_id);
	if (!p)
		return NULL;
	mutex_lock(&p->lock);
	if (p->port != port || memcmp(p->path.dgid, recv->sgid, 16)) {
		mutex_unlock(&p->lock);
		xib_cm_put(p);
		return NULL;
	}
	return p;	/* locked */
}

static void xib_cm_done(struct xib_cm_priv *p)
{
	mutex_unlock(&p->lock);
	xib_cm_put(p);
}

static void xib_cm_dropped(struct xib_cm_port *port)
{
	xib_core_stat_inc(port->cdev->xdev, XIB_CORE_STAT_CM_RX_DROPPED);
}

/* The receiver's view of a REQ's primary path. */
static void xib_cm_req_path(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv,
			    const struct xib_cm_req_msg *m,
			    const struct xib_mad_addr *addr,
			    struct xib_cm_path *path)
{
	memset(path, 0, sizeof(*path));
	path->port_num = port->port_num;
	path->sgid_index = addr->ah.sgid_index;
	memcpy(path->sgid, recv->dgid, 16);
	memcpy(path->dgid, recv->sgid, 16);
	path->flow_label = m->primary.flow_label;
	path->traffic_class = m->primary.traffic_class;
	path->hop_limit = m->primary.hop_limit;
	path->sl = m->primary.sl;
	path->pkey = m->pkey;
	path->mtu = m->mtu;
	path->rate = m->primary.packet_rate;
	/* Linux: packet lifetime = local ACK timeout - 1 */
	path->packet_life_time = m->primary.local_ack_timeout ?
		m->primary.local_ack_timeout - 1 : 0;
}

/* An established connection to a peer that sent a new REQ on its QP. */
static void xib_cm_stale(struct xib_cm_priv *p)
{
	lockdep_assert_held(&p->lock);
	if (!xib_cm_allowed(p, XIB_CM_OP_SEND_DREQ) &&
	    !xib_cm_send_dreq_locked(p, NULL, 0))
		xib_cm_apply_call(p, XIB_CM_OP_SEND_DREQ);
}

static void xib_cm_recv_req(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv)
{
	struct xib_cm_dev *cdev = port->cdev;
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_priv *p, *l;
	struct xib_cm_req_param *rp;
	struct xib_cm_req_msg *m;
	struct xib_mad_addr addr;
	struct xib_cm_evt *evt;
	int reason;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_req_decode(&recv->mad, m);
	reason = xib_cm_req_check(m);
	if (reason < 0)
		goto drop;

	/* a duplicate of a REQ we have: answered as its id's state says */
	p = xib_cm_find_remote(cdev, port->port_num, recv->sgid,
			       m->local_comm_id);
	if (p) {
		mutex_lock(&p->lock);
		if (xib_cm_apply(p, XIB_CM_OP_RECV_REQ, &ctx) < 0)
			xib_cm_dropped(port);
		xib_cm_done(p);
		goto out_free;
	}
	if (!reason && (memcmp(m->primary.local_gid, recv->sgid, 16) ||
			memcmp(m->primary.remote_gid, recv->dgid, 16)))
		reason = XIB_CM_REJ_INVALID_GID;
	if (reason) {
		xib_cm_answer_rej(port, recv, reason, XIB_CM_MSG_REQ);
		goto out_free;
	}
	/* the peer's QP is still in a connection of ours: stale */
	p = xib_cm_find_qpn(cdev, port->port_num, recv->sgid, m->local_qpn);
	if (p) {
		xib_cm_answer_rej(port, recv, XIB_CM_REJ_STALE_CONN,
				  XIB_CM_MSG_REQ);
		mutex_lock(&p->lock);
		xib_cm_stale(p);
		xib_cm_done(p);
		goto out_free;
	}
	if (xib_mad_addr_reply(cdev->xdev, recv, &addr))
		goto drop;
	l = xib_cm_find_listener(cdev, m->service_id);
	if (IS_ERR(l)) {
		if (PTR_ERR(l) == -ENOENT)
			xib_cm_answer_rej(port, recv,
					  XIB_CM_REJ_INVALID_SERVICE_ID,
					  XIB_CM_MSG_REQ);
		else
			xib_cm_dropped(port);	/* backlog full: retried */
		goto out_free;
	}
	p = xib_cm_alloc(cdev, l->id.handler, l->id.context);
	if (IS_ERR(p)) {
		atomic_dec(&l->pending);
		xib_cm_uninflight(l);
		goto out_free;
	}

	mutex_lock(&p->lock);
	p->listener = l;		/* the pending count's reference */
	kref_get(&l->ref);		/* the in-flight count's */
	evt->listener = l;
	p->port = port;
	p->addr = addr;
	p->tid = recv->mad.hdr.tid;
	p->id.service_id = m->service_id;
	p->id.remote_id = m->local_comm_id;
	xib_cm_req_path(port, recv, m, &addr, &p->path);
	p->qp_type = xib_cm_req_qp_type(m);	/* checked: RC, UC, XRC_RECV */
	p->remote_ca_guid = m->local_ca_guid;
	p->remote_qpn = m->local_qpn;
	p->sq_psn = m->starting_psn;
	p->peer_resources = m->responder_resources;
	p->peer_depth = m->initiator_depth;
	/* until the REP says otherwise (the QP may go to RTR before it) */
	p->responder_resources = m->initiator_depth;
	p->initiator_depth = m->responder_resources;
	p->retry_count = m->retry_count;
	p->rnr_retry_count = m->rnr_retry_count;
	p->local_ack_timeout = m->primary.local_ack_timeout;
	p->max_cm_retries = m->max_cm_retries;
	p->packet_life_time = p->path.packet_life_time;
	p->timeout_ms = xib_cm_wait_ms(xib_cm_time_ms(m->local_cm_response_timeout) +
				       2 * xib_cm_time_ms(p->packet_life_time));
	if (xib_cm_hash_insert(p, true)) {
		/* cannot happen: both lookups above failed on this queue */
		xib_cm_unpend(p);
		p->destroyed = true;
		mutex_unlock(&p->lock);
		xib_cm_put(p);
		goto out_free;
	}

	rp = &evt->ev.req;
	evt->ev.listen_id = &l->id;
	rp->path = p->path;
	rp->service_id = m->service_id;
	rp->qp_num = m->local_qpn;
	rp->qp_type = p->qp_type;
	rp->starting_psn = m->starting_psn;
	rp->responder_resources = m->responder_resources;
	rp->initiator_depth = m->initiator_depth;
	rp->remote_cm_response_timeout = m->remote_cm_response_timeout;
	rp->local_cm_response_timeout = m->local_cm_response_timeout;
	rp->flow_control = m->flow_control;
	rp->retry_count = m->retry_count;
	rp->rnr_retry_count = m->rnr_retry_count;
	rp->max_cm_retries = m->max_cm_retries;
	rp->srq = m->srq;
	rp->local_ack_timeout = m->primary.local_ack_timeout;
	rp->qkey = m->local_qkey;
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	xib_cm_apply(p, XIB_CM_OP_RECV_REQ, &ctx);
	mutex_unlock(&p->lock);
	/* the consumer's reference stays: it owns the id from the event on */
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_rep(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_rep_param *rp;
	struct xib_cm_rep_msg *m;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p;
	bool first;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_rep_decode(&recv->mad, m);
	p = xib_cm_rep_check(m) ? NULL :
		xib_cm_find_conn(port, recv, m->remote_comm_id);
	if (!p)
		goto drop;
	first = p->id.state == XIB_CM_REQ_SENT ||
		p->id.state == XIB_CM_MRA_REQ_RCVD;
	if (!first) {
		/* a duplicate: it must be the REP we have */
		if (m->local_comm_id != p->id.remote_id) {
			xib_cm_done(p);
			goto drop;
		}
		if (xib_cm_apply(p, XIB_CM_OP_RECV_REP, &ctx) < 0)
			xib_cm_dropped(port);
		xib_cm_done(p);
		goto out_free;
	}
	p->id.remote_id = m->local_comm_id;
	p->remote_qpn = xib_cm_rep_qpn(m, p->qp_type == XIB_QPT_XRC_SEND);
	if (p->remote_qpn <= 1) {
		/* an XRC REP without a target, or an RC one naming none */
		p->id.remote_id = 0;
		p->remote_qpn = 0;
		xib_cm_done(p);
		goto drop;
	}
	if (xib_cm_hash_insert(p, true)) {
		/* the peer's comm ID or QP is in another connection of ours */
		p->id.remote_id = 0;
		p->remote_qpn = 0;
		xib_cm_done(p);
		xib_cm_answer_rej(port, recv, XIB_CM_REJ_STALE_CONN,
				  XIB_CM_MSG_REP);
		goto out_free;
	}
	p->remote_ca_guid = m->local_ca_guid;
	p->sq_psn = m->starting_psn;
	p->initiator_depth = m->responder_resources;
	p->responder_resources = m->initiator_depth;
	p->rnr_retry_count = m->rnr_retry_count;

	rp = &evt->ev.rep;
	rp->qp_num = p->remote_qpn;
	rp->starting_psn = m->starting_psn;
	rp->responder_resources = m->responder_resources;
	rp->initiator_depth = m->initiator_depth;
	rp->failover_accepted = m->failover_accepted;
	rp->flow_control = m->flow_control;
	rp->rnr_retry_count = m->rnr_retry_count;
	rp->srq = m->srq;
	rp->target_ack_delay = m->target_ack_delay;
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	xib_cm_apply(p, XIB_CM_OP_RECV_REP, &ctx);
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

/* RTU, DREP: comm IDs and private data. */
static void xib_cm_recv_ids(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv,
			    enum xib_cm_op op)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_rtu_msg *m;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_rtu_decode(&recv->mad, m);
	p = xib_cm_find_conn(port, recv, m->remote_comm_id);
	if (!p)
		goto drop;
	if (!m->local_comm_id || m->local_comm_id != p->id.remote_id) {
		xib_cm_done(p);
		goto drop;
	}
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	if (xib_cm_apply(p, op, &ctx) < 0)
		xib_cm_dropped(port);
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_mra(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_mra_msg *m;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p;
	enum xib_cm_op op;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_mra_decode(&recv->mad, m);
	if (xib_cm_mra_check(m) || m->message_mraed == XIB_CM_MSG_OTHER)
		goto drop;	/* an MRA of a LAP: not on RoCE */
	p = xib_cm_find_conn(port, recv, m->remote_comm_id);
	if (!p)
		goto drop;
	/* before the REP we do not know the peer's comm ID yet */
	if (p->id.remote_id && m->local_comm_id != p->id.remote_id) {
		xib_cm_done(p);
		goto drop;
	}
	op = m->message_mraed == XIB_CM_MSG_REQ ? XIB_CM_OP_RECV_MRA_REQ :
		XIB_CM_OP_RECV_MRA_REP;
	ctx.extend_ms = xib_cm_time_ms(m->service_timeout) +
			2 * xib_cm_time_ms(p->packet_life_time);
	evt->ev.mra_service_timeout = m->service_timeout;
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	if (xib_cm_apply(p, op, &ctx) < 0)
		xib_cm_dropped(port);
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_rej(struct xib_cm_port *port,
			    const struct xib_mad_recv *recv)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_rej_msg *m;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p = NULL;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_rej_decode(&recv->mad, m);
	if (xib_cm_rej_check(m))
		goto drop;
	if ((m->reason == XIB_CM_REJ_TIMEOUT || !m->remote_comm_id) &&
	    m->local_comm_id) {
		/*
		 * The peer may not know our comm ID (it gave up before our
		 * REP reached it): find the connection by the peer's own.
		 */
		p = xib_cm_find_remote(port->cdev, port->port_num, recv->sgid,
				       m->local_comm_id);
		if (p)
			mutex_lock(&p->lock);
	}
	if (!p) {
		p = xib_cm_find_conn(port, recv, m->remote_comm_id);
		if (!p)
			goto drop;
		/* a REJ of our REQ may come before we know the peer's ID */
		if (m->message_rejected != XIB_CM_MSG_REQ &&
		    m->local_comm_id != p->id.remote_id) {
			xib_cm_done(p);
			goto drop;
		}
	}
	evt->ev.rej_reason = m->reason;
	evt->ev.ari_len = m->ari_length;
	memcpy(evt->extra, m->ari, m->ari_length);
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	if (xib_cm_apply(p, m->reason == XIB_CM_REJ_STALE_CONN ?
			 XIB_CM_OP_RECV_REJ_STALE : XIB_CM_OP_RECV_REJ,
			 &ctx) < 0)
		xib_cm_dropped(port);
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_dreq(struct xib_cm_port *port,
			     const struct xib_mad_recv *recv)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_dreq_msg *m;
	struct xib_cm_drep_msg *rep;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p;
	struct xib_mad mad;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_dreq_decode(&recv->mad, m);
	if (xib_cm_dreq_check(m))
		goto drop;
	p = xib_cm_find_conn(port, recv, m->remote_comm_id);
	if (!p) {
		/* a connection we no longer have: it is disconnected */
		rep = kzalloc(sizeof(*rep), GFP_KERNEL);
		if (rep) {
			rep->local_comm_id = m->remote_comm_id;
			rep->remote_comm_id = m->local_comm_id;
			xib_cm_drep_encode(&mad, 0, rep);
			kfree(rep);
			xib_cm_answer(port, recv, &mad);
		}
		goto drop;
	}
	if (m->local_comm_id != p->id.remote_id ||
	    m->remote_qpn != p->local_qpn) {
		xib_cm_done(p);
		goto drop;
	}
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	if (xib_cm_apply(p, XIB_CM_OP_RECV_DREQ, &ctx) < 0)
		xib_cm_dropped(port);
	else if (p->id.state == XIB_CM_DREQ_RCVD)
		p->dreq_tid = recv->mad.hdr.tid;
	/*
	 * Crossing DREQs: an id destroyed while its own DREQ was out has
	 * no consumer left to answer this one.  Answer for it, as its
	 * destroy would in DREQ_RCVD (DREP, then timewait, which ends it);
	 * left in DREQ_RCVD it would be freed still in the hash tables.
	 */
	if (p->destroyed && p->id.state == XIB_CM_DREQ_RCVD) {
		struct xib_cm_ctx dctx = { .recv = recv };

		xib_cm_apply(p, XIB_CM_OP_DESTROY, &dctx);
	}
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_sidr_req(struct xib_cm_port *port,
				 const struct xib_mad_recv *recv)
{
	struct xib_cm_dev *cdev = port->cdev;
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_sidr_req_param *rp;
	struct xib_cm_sidr_req_msg *m;
	struct xib_cm_sidr_rep_msg *rep;
	struct xib_cm_priv *p, *l;
	struct xib_mad_addr addr;
	struct xib_cm_evt *evt;
	struct xib_port attr;
	struct xib_mad mad;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_sidr_req_decode(&recv->mad, m);
	if (!m->request_id)
		goto drop;
	p = xib_cm_find_remote(cdev, port->port_num, recv->sgid,
			       m->request_id);
	if (p) {
		mutex_lock(&p->lock);
		if (xib_cm_apply(p, XIB_CM_OP_RECV_SIDR_REQ, &ctx) < 0)
			xib_cm_dropped(port);
		xib_cm_done(p);
		goto out_free;
	}
	if (xib_mad_addr_reply(cdev->xdev, recv, &addr))
		goto drop;
	l = xib_cm_find_listener(cdev, m->service_id);
	if (IS_ERR(l)) {
		if (PTR_ERR(l) != -ENOENT)
			goto drop;
		rep = kzalloc(sizeof(*rep), GFP_KERNEL);
		if (rep) {
			rep->request_id = m->request_id;
			rep->status = XIB_SIDR_UNSUPPORTED;
			rep->service_id = m->service_id;
			xib_cm_sidr_rep_encode(&mad, 0, rep);
			kfree(rep);
			xib_cm_answer(port, recv, &mad);
		}
		goto out_free;
	}
	p = xib_cm_alloc(cdev, l->id.handler, l->id.context);
	if (IS_ERR(p)) {
		atomic_dec(&l->pending);
		xib_cm_uninflight(l);
		goto out_free;
	}

	mutex_lock(&p->lock);
	p->listener = l;
	kref_get(&l->ref);
	evt->listener = l;
	p->port = port;
	p->addr = addr;
	p->tid = recv->mad.hdr.tid;
	p->id.service_id = m->service_id;
	p->id.remote_id = m->request_id;
	p->path.port_num = port->port_num;
	p->path.sgid_index = addr.ah.sgid_index;
	memcpy(p->path.sgid, recv->dgid, 16);
	memcpy(p->path.dgid, recv->sgid, 16);
	p->path.flow_label = recv->flow_label;
	p->path.traffic_class = recv->traffic_class;
	p->path.hop_limit = addr.ah.hop_limit;
	p->path.pkey = m->pkey;
	if (!xib_query_port(cdev->xdev, port->port_num, &attr))
		p->path.mtu = ilog2(clamp_t(u32, attr.active_mtu, 256, 4096)) - 7;
	if (xib_cm_hash_insert(p, false)) {
		xib_cm_unpend(p);
		p->destroyed = true;
		mutex_unlock(&p->lock);
		xib_cm_put(p);
		goto out_free;
	}
	rp = &evt->ev.sidr_req;
	evt->ev.listen_id = &l->id;
	rp->path = p->path;
	rp->service_id = m->service_id;
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	xib_cm_apply(p, XIB_CM_OP_RECV_SIDR_REQ, &ctx);
	mutex_unlock(&p->lock);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv_sidr_rep(struct xib_cm_port *port,
				 const struct xib_mad_recv *recv)
{
	struct xib_cm_ctx ctx = { .recv = recv };
	struct xib_cm_sidr_rep_param *rp;
	struct xib_cm_sidr_rep_msg *m;
	struct xib_cm_evt *evt;
	struct xib_cm_priv *p;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	evt = xib_cm_evt_alloc();
	if (!m || !evt)
		goto out_free;
	xib_cm_sidr_rep_decode(&recv->mad, m);
	p = xib_cm_sidr_rep_check(m) ? NULL :
		xib_cm_find_conn(port, recv, m->request_id);
	if (!p)
		goto drop;
	if (m->service_id != p->id.service_id) {
		xib_cm_done(p);
		goto drop;
	}
	rp = &evt->ev.sidr_rep;
	rp->qp_num = m->qpn;
	rp->qkey = m->qkey;
	rp->status = m->status;
	rp->info_len = m->info_length;
	memcpy(evt->extra, m->info, m->info_length);
	memcpy(evt->pdata, m->private_data, sizeof(m->private_data));
	evt->pdata_len = sizeof(m->private_data);
	ctx.evt = evt;
	evt = NULL;
	if (xib_cm_apply(p, XIB_CM_OP_RECV_SIDR_REP, &ctx) < 0)
		xib_cm_dropped(port);
	xib_cm_done(p);
	goto out_free;

drop:
	xib_cm_dropped(port);
out_free:
	xib_cm_evt_free(evt);
	kfree(m);
}

static void xib_cm_recv(struct xib_mad_agent *agent,
			const struct xib_mad_recv *recv,
			struct xib_mad_send *req)
{
	struct xib_cm_port *port = agent->context;

	xib_cm_count(port->cdev, &recv->mad, false);
	switch (xib_cm_msg_attr(&recv->mad)) {
	case XIB_CM_ATTR_REQ:
		xib_cm_recv_req(port, recv);
		break;
	case XIB_CM_ATTR_MRA:
		xib_cm_recv_mra(port, recv);
		break;
	case XIB_CM_ATTR_REJ:
		xib_cm_recv_rej(port, recv);
		break;
	case XIB_CM_ATTR_REP:
		xib_cm_recv_rep(port, recv);
		break;
	case XIB_CM_ATTR_RTU:
		xib_cm_recv_ids(port, recv, XIB_CM_OP_RECV_RTU);
		break;
	case XIB_CM_ATTR_DREQ:
		xib_cm_recv_dreq(port, recv);
		break;
	case XIB_CM_ATTR_DREP:
		xib_cm_recv_ids(port, recv, XIB_CM_OP_RECV_DREP);
		break;
	case XIB_CM_ATTR_SIDR_REQ:
		xib_cm_recv_sidr_req(port, recv);
		break;
	case XIB_CM_ATTR_SIDR_REP:
		xib_cm_recv_sidr_rep(port, recv);
		break;
	default:
		/* LAP, APR (no alternate paths on RoCE), anything else */
		xib_cm_dropped(port);
		break;
	}
}

static const struct xib_mad_agent_ops xib_cm_agent_ops = {
	.mgmt_class = XIB_MGMT_CLASS_CM,
	.class_version = XIB_CM_CLASS_VERSION,
	.requests = true,
	.recv = xib_cm_recv,
	.send_done = xib_cm_send_done,
};

/* --- the API ----------------------------------------------------------------- */

/**
 * xib_cm_create_id() - a new id on a device
 * @dev: the device
 * @handler: its event handler
 * @context: the consumer's
 *
 * Return: the id (IDLE), or ERR_PTR(-ENODEV) (no CM on @dev, or it is
 * going away), -ENOMEM, -EBUSY (no comm ID free).
 */
struct xib_cm_id *xib_cm_create_id(struct xib_device *dev,
				   xib_cm_handler handler, void *context)
{
	struct xib_cm_dev *cdev = xib_get_client_data(dev, &xib_cm_client);
	struct xib_cm_priv *p;

	if (!cdev)
		return ERR_PTR(-ENODEV);
	if (!handler)
		return ERR_PTR(-EINVAL);
	p = xib_cm_alloc(cdev, handler, context);
	return IS_ERR(p) ? ERR_CAST(p) : &p->id;
}
EXPORT_SYMBOL_GPL(xib_cm_create_id);

/*
 * End @p for its consumer: the table's DESTROY entry says how the
 * protocol ends (@err from a handler that refused a request picks the
 * answer: -ENOMEM and -ENOBUFS none, so that the peer retries; -ENOENT
 * INVALID_SERVICE_ID; anything else CONSUMER_DEFINED).
 */
static void xib_cm_destroy(struct xib_cm_priv *p, int err, bool from_work)
{
	struct xib_cm_ctx ctx = { .rej_reason = XIB_CM_REJ_CONSUMER_DEFINED,
				  .sidr_status = XIB_SIDR_REJECT };
	struct xib_cm_dev *cdev = p->cdev;
	struct xib_cm_evt *evt, *next;
	bool listening;
	LIST_HEAD(gone);

	mutex_lock(&p->lock);
	if (WARN_ON(p->destroyed)) {
		mutex_unlock(&p->lock);
		return;
	}
	if (err == -ENOMEM || err == -ENOBUFS) {
		ctx.rej_silent = true;
	} else if (err == -ENOENT) {
		ctx.rej_reason = XIB_CM_REJ_INVALID_SERVICE_ID;
		ctx.sidr_status = XIB_SIDR_UNSUPPORTED;
	} else if (p->id.state == XIB_CM_REQ_SENT ||
		   p->id.state == XIB_CM_MRA_REQ_RCVD) {
		/* the active side gives up waiting */
		ctx.rej_reason = XIB_CM_REJ_TIMEOUT;
	}
	p->destroyed = true;
	listening = p->id.state == XIB_CM_LISTEN;
	if (listening) {
		spin_lock(&cdev->lock);
		list_del_init(&p->listen_node);
		spin_unlock(&cdev->lock);
	}
	xib_cm_apply(p, XIB_CM_OP_DESTROY, &ctx);
	list_splice_init(&p->events, &gone);
	mutex_unlock(&p->lock);

	/* no request reaches the listener's handler from here on */
	if (listening)
		wait_event(p->wait, !atomic_read(&p->inflight));
	if (!from_work && cancel_work_sync(&p->work))
		xib_cm_put(p);
	list_for_each_entry_safe(evt, next, &gone, list) {
		list_del(&evt->list);
		xib_cm_evt_free(evt);
	}
	xib_cm_put(p);
}

/**
 * xib_cm_destroy_id() - end an id
 * @id: the id; never from its own handler
 *
 * Sleeps.  See the header: the protocol ends as the state requires, and
 * the handler is not running and will not be called again on return.
 */
void xib_cm_destroy_id(struct xib_cm_id *id)
{
	xib_cm_destroy(to_priv(id), 0, false);
}
EXPORT_SYMBOL_GPL(xib_cm_destroy_id);

/**
 * xib_cm_listen() - take the REQs and SIDR_REQs for a service
 * @id: an IDLE id
 * @service_id: the service ID (bits outside @mask are ignored)
 * @mask: which bits of a request's service ID must match; 0: all
 *
 * REQ_RECEIVED and SIDR_REQ_RECEIVED are delivered on new ids with this
 * id's handler and context.
 *
 * Return: 0, -EINVAL (state), -EBUSY (an overlapping listener).
 */
int xib_cm_listen(struct xib_cm_id *id, __be64 service_id, __be64 mask)
{
	struct xib_cm_priv *p = to_priv(id), *o;
	struct xib_cm_dev *cdev = p->cdev;
	int ret;

	if (!mask)
		mask = cpu_to_be64(~0ULL);
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_LISTEN);
	if (ret)
		goto out;
	spin_lock(&cdev->lock);
	list_for_each_entry(o, &cdev->listeners, listen_node)
		if (!((o->id.service_id ^ service_id) & o->service_mask &
		      mask))
			ret = -EBUSY;
	if (!ret) {
		p->id.service_id = service_id & mask;
		p->service_mask = mask;
		list_add_tail(&p->listen_node, &cdev->listeners);
	}
	spin_unlock(&cdev->lock);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_LISTEN);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_listen);

static bool xib_cm_path_ok(const struct xib_cm_dev *cdev,
			   const struct xib_cm_path *path)
{
	return path->port_num >= 1 && path->port_num <= cdev->nports &&
	       path->sgid_index < XIB_PORT_GID_TBL_LEN &&
	       path->flow_label <= 0xfffff && path->sl <= 15 &&
	       path->packet_life_time <= 31 && path->rate <= 0x3f;
}

static void xib_cm_path_addr(const struct xib_cm_path *path,
			     struct xib_mad_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	memcpy(addr->ah.dgid, path->dgid, 16);
	addr->ah.flow_label = path->flow_label;
	addr->ah.sgid_index = path->sgid_index;
	addr->ah.hop_limit = path->hop_limit;
	addr->ah.traffic_class = path->traffic_class;
	addr->ah.sl = path->sl;
	addr->ah.port_num = path->port_num;
	addr->ah.is_global = 1;
	addr->remote_qpn = 1;
	addr->remote_qkey = XIB_QP1_QKEY;
}

static void xib_cm_msg_path(const struct xib_cm_path *path, u8 ack_timeout,
			    struct xib_cm_msg_path *mp)
{
	mp->local_lid = 0xffff;		/* permissive: RoCE has no LIDs */
	mp->remote_lid = 0xffff;
	memcpy(mp->local_gid, path->sgid, 16);
	memcpy(mp->remote_gid, path->dgid, 16);
	mp->flow_label = path->flow_label;
	mp->packet_rate = path->rate;
	mp->traffic_class = path->traffic_class;
	mp->hop_limit = path->hop_limit;
	mp->sl = path->sl;
	mp->subnet_local = path->hop_limit <= 1;
	mp->local_ack_timeout = ack_timeout;
}

/**
 * xib_cm_send_req() - request a connection
 * @id: an IDLE id
 * @pr: what to send (see struct xib_cm_req_param)
 *
 * Return: 0 (REP_RECEIVED, REJ_RECEIVED or REQ_ERROR follows), -EINVAL
 * for a bad parameter or state, -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_req(struct xib_cm_id *id, const struct xib_cm_req_param *pr)
{
	struct xib_cm_priv *p = to_priv(id);
	struct xib_cm_req_msg *m;
	struct xib_mad mad;
	unsigned int ms;
	int ret;

	if ((pr->qp_type != XIB_QPT_RC && pr->qp_type != XIB_QPT_UC &&
	     pr->qp_type != XIB_QPT_XRC_SEND) ||
	    !xib_cm_path_ok(p->cdev, &pr->path) ||
	    pr->path.mtu < XIB_MTU_256 || pr->path.mtu > XIB_MTU_4096 ||
	    pr->qp_num <= 1 || pr->qp_num > 0xffffff ||
	    pr->starting_psn > 0xffffff ||
	    pr->private_data_len > XIB_CM_REQ_PRIVATE_DATA_SIZE ||
	    (pr->private_data_len && !pr->private_data) ||
	    pr->remote_cm_response_timeout > 31 ||
	    pr->local_cm_response_timeout > 31 || pr->retry_count > 7 ||
	    pr->rnr_retry_count > 7 || pr->max_cm_retries > 15 ||
	    pr->local_ack_timeout > 31 || !pr->service_id)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->local_comm_id = id->local_id;
	m->service_id = pr->service_id;
	m->local_ca_guid = p->cdev->xdev->node_guid;
	m->local_qpn = pr->qp_num;
	m->responder_resources = pr->responder_resources;
	m->initiator_depth = pr->initiator_depth;
	m->remote_cm_response_timeout = pr->remote_cm_response_timeout;
	m->flow_control = pr->flow_control;
	m->starting_psn = pr->starting_psn;
	m->local_cm_response_timeout = pr->local_cm_response_timeout;
	m->retry_count = pr->retry_count;
	m->pkey = pr->path.pkey;
	m->mtu = pr->path.mtu;
	m->rnr_retry_count = pr->rnr_retry_count;
	m->max_cm_retries = pr->max_cm_retries;
	m->srq = pr->srq;
	/* the transport; an XRC initiator's clears what it has no use for */
	xib_cm_req_set_qp_type(m, pr->qp_type);
	xib_cm_msg_path(&pr->path, pr->local_ack_timeout, &m->primary);
	if (pr->private_data_len)
		memcpy(m->private_data, pr->private_data, pr->private_data_len);
	xib_cm_req_encode(&mad, xib_cm_own_tid(p), m);
	kfree(m);

	ms = xib_cm_time_ms(pr->remote_cm_response_timeout) +
	     2 * xib_cm_time_ms(pr->path.packet_life_time);
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_REQ);
	if (ret)
		goto out;
	p->port = &p->cdev->ports[pr->path.port_num - 1];
	p->path = pr->path;
	xib_cm_path_addr(&pr->path, &p->addr);
	p->id.service_id = pr->service_id;
	p->qp_type = pr->qp_type;
	p->local_qpn = pr->qp_num;
	p->rq_psn = pr->starting_psn;
	p->responder_resources = pr->responder_resources;
	p->initiator_depth = pr->initiator_depth;
	p->retry_count = pr->retry_count;
	p->rnr_retry_count = pr->rnr_retry_count;
	p->local_ack_timeout = pr->local_ack_timeout;
	p->max_cm_retries = pr->max_cm_retries;
	p->packet_life_time = pr->path.packet_life_time;
	p->timeout_ms = xib_cm_wait_ms(ms);
	ret = xib_cm_post(p, &mad, true, false, p->timeout_ms);
	if (ret) {
		p->port = NULL;
		goto out;
	}
	xib_cm_apply_call(p, XIB_CM_OP_SEND_REQ);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_req);

/**
 * xib_cm_send_rep() - accept a connection request
 * @id: an id in REQ_RCVD or MRA_REQ_SENT
 * @pr: what to send; responder resources and initiator depth are capped
 *	at what the REQ offered
 *
 * Return: 0 (RTU_RECEIVED, REJ_RECEIVED or REP_ERROR follows), -EINVAL,
 * -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_rep(struct xib_cm_id *id, const struct xib_cm_rep_param *pr)
{
	struct xib_cm_priv *p = to_priv(id);
	struct xib_cm_rep_msg *m;
	struct xib_mad mad;
	int ret;

	if (pr->qp_num <= 1 || pr->qp_num > 0xffffff ||
	    pr->starting_psn > 0xffffff ||
	    pr->private_data_len > XIB_CM_REP_PRIVATE_DATA_SIZE ||
	    (pr->private_data_len && !pr->private_data) ||
	    pr->rnr_retry_count > 7 || pr->target_ack_delay > 31)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_REP);
	if (ret)
		goto out;
	m->local_comm_id = id->local_id;
	m->remote_comm_id = id->remote_id;
	m->starting_psn = pr->starting_psn;
	m->responder_resources = min(pr->responder_resources, p->peer_depth);
	m->target_ack_delay = pr->target_ack_delay;
	m->failover_accepted = pr->failover_accepted;
	m->rnr_retry_count = pr->rnr_retry_count;
	if (p->qp_type == XIB_QPT_XRC_RECV) {
		/*
		 * An XRC target, as Linux's ib_cm answers: its QPN in the
		 * local EECN, SRQ set (it receives only into XRC SRQs), no
		 * initiator depth or flow control (it sends no requests).
		 */
		m->local_eecn = pr->qp_num;
		m->srq = true;
	} else {
		m->local_qpn = pr->qp_num;
		m->initiator_depth = min(pr->initiator_depth,
					 p->peer_resources);
		m->flow_control = pr->flow_control;
		m->srq = pr->srq;
	}
	m->local_ca_guid = p->cdev->xdev->node_guid;
	if (pr->private_data_len)
		memcpy(m->private_data, pr->private_data, pr->private_data_len);
	xib_cm_rep_encode(&mad, p->tid, m);
	ret = xib_cm_post(p, &mad, true, true, p->timeout_ms);
	if (ret)
		goto out;
	xib_cm_keep_reply(p, &mad, XIB_CM_ATTR_REQ);
	p->local_qpn = pr->qp_num;
	p->rq_psn = pr->starting_psn;
	p->responder_resources = m->responder_resources;
	p->initiator_depth = m->initiator_depth;
	xib_cm_apply_call(p, XIB_CM_OP_SEND_REP);
out:
	mutex_unlock(&p->lock);
	kfree(m);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_rep);

/**
 * xib_cm_send_rtu() - the active side is ready: send RTU
 * @id: an id in REP_RCVD or MRA_REP_SENT
 * @private_data: up to XIB_CM_RTU_PRIVATE_DATA_SIZE bytes, or NULL
 * @len: their length
 *
 * Return: 0, -EINVAL, -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_rtu(struct xib_cm_id *id, const void *private_data, u8 len)
{
	struct xib_cm_priv *p = to_priv(id);
	struct xib_cm_rtu_msg *m;
	struct xib_mad mad;
	int ret;

	if (len > XIB_CM_RTU_PRIVATE_DATA_SIZE || (len && !private_data))
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_RTU);
	if (ret)
		goto out;
	m->local_comm_id = id->local_id;
	m->remote_comm_id = id->remote_id;
	if (len)
		memcpy(m->private_data, private_data, len);
	xib_cm_rtu_encode(&mad, p->tid, m);
	ret = xib_cm_post(p, &mad, false, true, 0);
	if (ret)
		goto out;
	xib_cm_keep_reply(p, &mad, XIB_CM_ATTR_REP);
	xib_cm_apply_call(p, XIB_CM_OP_SEND_RTU);
out:
	mutex_unlock(&p->lock);
	kfree(m);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_rtu);

/**
 * xib_cm_send_rej() - refuse or abort a connection
 * @id: an id with a REQ or REP outstanding (see the state table)
 * @reason: enum xib_cm_rej_reason
 * @ari: additional rejection information, or NULL
 * @ari_len: up to XIB_CM_REJ_ARI_LENGTH
 * @private_data: up to XIB_CM_REJ_PRIVATE_DATA_SIZE bytes, or NULL
 * @len: their length
 *
 * Return: 0, -EINVAL, -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_rej(struct xib_cm_id *id, enum xib_cm_rej_reason reason,
		    const void *ari, u8 ari_len, const void *private_data,
		    u8 len)
{
	struct xib_cm_priv *p = to_priv(id);
	int ret;

	if (ari_len > XIB_CM_REJ_ARI_LENGTH || (ari_len && !ari) ||
	    len > XIB_CM_REJ_PRIVATE_DATA_SIZE || (len && !private_data) ||
	    !reason || reason > 0xffff)
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_REJ);
	if (!ret)
		ret = xib_cm_send_rej_locked(p, p->id.state, reason, ari,
					     ari_len, private_data, len);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_SEND_REJ);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_rej);

/**
 * xib_cm_send_mra() - ask the peer to wait for our answer
 * @id: an id in REQ_RCVD or REP_RCVD
 * @service_timeout: how long the answer may take (4.096 us * 2^n, <= 31)
 * @private_data: up to XIB_CM_MRA_PRIVATE_DATA_SIZE bytes, or NULL
 * @len: their length
 *
 * Return: 0, -EINVAL, -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_mra(struct xib_cm_id *id, u8 service_timeout,
		    const void *private_data, u8 len)
{
	struct xib_cm_priv *p = to_priv(id);
	int ret;

	if (service_timeout > 31 || len > XIB_CM_MRA_PRIVATE_DATA_SIZE ||
	    (len && !private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_MRA);
	if (!ret)
		ret = xib_cm_send_mra_locked(p, p->id.state == XIB_CM_REQ_RCVD ?
					     XIB_CM_MSG_REQ : XIB_CM_MSG_REP,
					     service_timeout, private_data,
					     len);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_SEND_MRA);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_mra);

/**
 * xib_cm_send_dreq() - disconnect an established connection
 * @id: an ESTABLISHED id
 * @private_data: up to XIB_CM_DREQ_PRIVATE_DATA_SIZE bytes, or NULL
 * @len: their length
 *
 * Return: 0 (DREP_RECEIVED or DREQ_ERROR follows), -EINVAL, -ENOMEM, or
 * the MAD layer's error.
 */
int xib_cm_send_dreq(struct xib_cm_id *id, const void *private_data, u8 len)
{
	struct xib_cm_priv *p = to_priv(id);
	int ret;

	if (len > XIB_CM_DREQ_PRIVATE_DATA_SIZE || (len && !private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_DREQ);
	if (!ret)
		ret = xib_cm_send_dreq_locked(p, private_data, len);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_SEND_DREQ);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_dreq);

/**
 * xib_cm_send_drep() - answer the peer's DREQ
 * @id: an id in DREQ_RCVD
 * @private_data: up to XIB_CM_DREP_PRIVATE_DATA_SIZE bytes, or NULL
 * @len: their length
 *
 * Return: 0 (the id enters timewait), -EINVAL, -ENOMEM, or the MAD
 * layer's error.
 */
int xib_cm_send_drep(struct xib_cm_id *id, const void *private_data, u8 len)
{
	struct xib_cm_priv *p = to_priv(id);
	int ret;

	if (len > XIB_CM_DREP_PRIVATE_DATA_SIZE || (len && !private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_DREP);
	if (!ret)
		ret = xib_cm_send_drep_locked(p, p->dreq_tid, private_data,
					      len);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_SEND_DREP);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_drep);

/**
 * xib_cm_establish() - the passive side's QP got data before the RTU
 * @id: an id in REP_SENT or MRA_REP_RCVD (ESTABLISHED: nothing to do)
 *
 * USER_ESTABLISHED follows; a later RTU is ignored.
 *
 * Return: 0 or -EINVAL.
 */
int xib_cm_establish(struct xib_cm_id *id)
{
	struct xib_cm_priv *p = to_priv(id);
	struct xib_cm_ctx ctx = {};
	int ret;

	mutex_lock(&p->lock);
	ret = xib_cm_apply(p, XIB_CM_OP_ESTABLISH, &ctx);
	mutex_unlock(&p->lock);
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_GPL(xib_cm_establish);

/**
 * xib_cm_send_sidr_req() - resolve a service ID to a UD QP
 * @id: an IDLE id
 * @pr: what to send; @pr->timeout_ms is capped at 5 minutes
 *
 * Return: 0 (SIDR_REP_RECEIVED or SIDR_REQ_ERROR follows), -EINVAL,
 * -ENOMEM, or the MAD layer's error.
 */
int xib_cm_send_sidr_req(struct xib_cm_id *id,
			 const struct xib_cm_sidr_req_param *pr)
{
	struct xib_cm_priv *p = to_priv(id);
	struct xib_cm_sidr_req_msg *m;
	struct xib_mad mad;
	int ret;

	if (!xib_cm_path_ok(p->cdev, &pr->path) || !pr->timeout_ms ||
	    pr->max_cm_retries > 15 || !pr->service_id ||
	    pr->private_data_len > XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE ||
	    (pr->private_data_len && !pr->private_data))
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->request_id = id->local_id;
	m->pkey = pr->path.pkey;
	m->service_id = pr->service_id;
	if (pr->private_data_len)
		memcpy(m->private_data, pr->private_data, pr->private_data_len);
	xib_cm_sidr_req_encode(&mad, xib_cm_own_tid(p), m);
	kfree(m);

	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_SIDR_REQ);
	if (ret)
		goto out;
	p->port = &p->cdev->ports[pr->path.port_num - 1];
	p->path = pr->path;
	xib_cm_path_addr(&pr->path, &p->addr);
	p->id.service_id = pr->service_id;
	p->max_cm_retries = pr->max_cm_retries;
	p->timeout_ms = xib_cm_wait_ms(pr->timeout_ms);
	ret = xib_cm_post(p, &mad, true, false, p->timeout_ms);
	if (ret) {
		p->port = NULL;
		goto out;
	}
	xib_cm_apply_call(p, XIB_CM_OP_SEND_SIDR_REQ);
out:
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_sidr_req);

/**
 * xib_cm_send_sidr_rep() - answer a SIDR_REQ
 * @id: an id in SIDR_REQ_RCVD
 * @pr: what to send
 *
 * Return: 0 (the id is IDLE again), -EINVAL, -ENOMEM, or the MAD layer's
 * error.
 */
int xib_cm_send_sidr_rep(struct xib_cm_id *id,
			 const struct xib_cm_sidr_rep_param *pr)
{
	struct xib_cm_priv *p = to_priv(id);
	int ret;

	if (pr->status > XIB_SIDR_UNSUPPORTED_VERSION ||
	    pr->qp_num > 0xffffff ||
	    (pr->status == XIB_SIDR_SUCCESS && pr->qp_num <= 1) ||
	    pr->info_len > XIB_CM_SIDR_REP_INFO_LENGTH ||
	    (pr->info_len && !pr->info) ||
	    pr->private_data_len > XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE ||
	    (pr->private_data_len && !pr->private_data))
		return -EINVAL;
	mutex_lock(&p->lock);
	ret = xib_cm_allowed(p, XIB_CM_OP_SEND_SIDR_REP);
	if (!ret)
		ret = xib_cm_send_sidr_rep_locked(p, pr);
	if (!ret)
		xib_cm_apply_call(p, XIB_CM_OP_SEND_SIDR_REP);
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_send_sidr_rep);

/**
 * xib_cm_init_qp_attr() - the QP attributes the exchange decided
 * @id: a connection's id
 * @attr: in: @attr->qp_state (INIT, RTR or RTS); out: the attributes
 * @mask: out: enum xib_qp_attr_mask of what is set
 *
 * INIT: from REQ sent or received until the disconnection; RTR: once the
 * peer's QP is known (REQ received, REP received), without the receive PSN
 * while the passive side's REP is not sent (it is the PSN the REP will
 * carry); RTS: once this end knows its send PSN and the retry counts (REQ
 * received, REP received), so that the passive side's QP is ready before
 * its REP leaves, as the Linux RDMA CM and rdma-core move it.
 *
 * Return: 0, or -EINVAL for another state or QP state.
 */
int xib_cm_init_qp_attr(struct xib_cm_id *id, struct xib_uverbs_qp_attr *attr,
			u32 *mask)
{
	struct xib_cm_priv *p = to_priv(id);
	enum xib_cm_state s;
	bool rc, responder, requester;
	int ret = 0;

	mutex_lock(&p->lock);
	s = p->id.state;
	rc = p->qp_type == XIB_QPT_RC;
	/* as Linux's ib_cm: an XRC target is RC's responder, an initiator its requester */
	responder = rc || p->qp_type == XIB_QPT_XRC_RECV;
	requester = rc || p->qp_type == XIB_QPT_XRC_SEND;
	switch (attr->qp_state) {
	case XIB_QPS_INIT:
		if (s < XIB_CM_REQ_SENT || s > XIB_CM_ESTABLISHED) {
			ret = -EINVAL;
			break;
		}
		attr->qp_access_flags = XIB_ACCESS_REMOTE_WRITE;
		if (responder && p->responder_resources)
			attr->qp_access_flags |= XIB_ACCESS_REMOTE_READ |
						 XIB_ACCESS_REMOTE_ATOMIC;
		attr->pkey_index = 0;
		attr->port_num = p->path.port_num;
		*mask = XIB_QP_STATE | XIB_QP_ACCESS_FLAGS |
			XIB_QP_PKEY_INDEX | XIB_QP_PORT;
		break;
	case XIB_QPS_RTR:
		if (s < XIB_CM_REQ_RCVD || s > XIB_CM_ESTABLISHED ||
		    s == XIB_CM_MRA_REQ_RCVD) {
			ret = -EINVAL;
			break;
		}
		memset(&attr->ah_attr, 0, sizeof(attr->ah_attr));
		memcpy(attr->ah_attr.dgid, p->path.dgid, 16);
		attr->ah_attr.flow_label = p->path.flow_label;
		attr->ah_attr.sgid_index = p->path.sgid_index;
		attr->ah_attr.hop_limit = p->path.hop_limit;
		attr->ah_attr.traffic_class = p->path.traffic_class;
		attr->ah_attr.sl = p->path.sl;
		attr->ah_attr.port_num = p->path.port_num;
		attr->ah_attr.is_global = 1;
		attr->ah_attr.static_rate = p->path.rate;
		attr->path_mtu = p->path.mtu;
		attr->dest_qp_num = p->remote_qpn;
		*mask = XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			XIB_QP_DEST_QPN;
		/*
		 * Before its REP the passive side has not said which PSN it
		 * expects: the consumer sets the one the REP will carry.
		 */
		if (s != XIB_CM_REQ_RCVD && s != XIB_CM_MRA_REQ_SENT) {
			attr->rq_psn = p->rq_psn;
			*mask |= XIB_QP_RQ_PSN;
		}
		if (responder) {
			attr->max_dest_rd_atomic = p->responder_resources;
			attr->min_rnr_timer = 0;
			*mask |= XIB_QP_MAX_DEST_RD_ATOMIC |
				 XIB_QP_MIN_RNR_TIMER;
		}
		break;
	case XIB_QPS_RTS:
		if (s < XIB_CM_REQ_RCVD || s > XIB_CM_ESTABLISHED ||
		    s == XIB_CM_MRA_REQ_RCVD) {
			ret = -EINVAL;
			break;
		}
		attr->sq_psn = p->sq_psn;
		*mask = XIB_QP_STATE | XIB_QP_SQ_PSN;
		if (requester) {
			attr->retry_cnt = p->retry_count;
			attr->rnr_retry = p->rnr_retry_count;
			attr->max_rd_atomic = p->initiator_depth;
			*mask |= XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY |
				 XIB_QP_MAX_QP_RD_ATOMIC;
		}
		if (responder || requester) {
			attr->timeout = p->local_ack_timeout;
			*mask |= XIB_QP_TIMEOUT;
		}
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&p->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_cm_init_qp_attr);

/* --- devices --------------------------------------------------------------- */

/*
 * Device removal: end the protocol of an id whose consumer is gone (DREQ
 * awaiting DREP, timewait) at once.
 */
static void xib_cm_kill(struct xib_cm_priv *p)
{
	mutex_lock(&p->lock);
	WARN_ONCE(!p->destroyed, "xib_cm: an id outlives its device\n");
	if (p->msg) {
		xib_mad_cancel(p->msg);
		p->msg = NULL;
	}
	xib_cm_unpend(p);
	xib_cm_hash_remove(p);
	p->id.state = XIB_CM_IDLE;
	mutex_unlock(&p->lock);
	if (cancel_delayed_work_sync(&p->timewait))
		xib_cm_put(p);
}

static int xib_cm_add(struct xib_device *xdev)
{
	struct xib_cm_dev *cdev;
	struct xib_mad_agent *agent;
	u32 i;
	int ret;

	if (!xdev->phys_port_cnt)
		return -EOPNOTSUPP;
	cdev = kzalloc(struct_size(cdev, ports, xdev->phys_port_cnt),
		       GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;
	cdev->xdev = xdev;
	spin_lock_init(&cdev->lock);
	INIT_LIST_HEAD(&cdev->listeners);
	INIT_LIST_HEAD(&cdev->ids);
	init_completion(&cdev->ids_gone);
	for (i = 0; i < xdev->phys_port_cnt; i++) {
		cdev->ports[i].cdev = cdev;
		cdev->ports[i].port_num = i + 1;
		agent = xib_mad_register_agent(xdev, i + 1, &xib_cm_agent_ops,
					       &cdev->ports[i]);
		if (IS_ERR(agent)) {
			ret = PTR_ERR(agent);
			goto err_unregister_agents;
		}
		cdev->ports[i].agent = agent;
		cdev->nports = i + 1;
	}
	ret = xib_set_client_data(xdev, &xib_cm_client, cdev);
	if (ret)
		goto err_unregister_agents;
	return 0;

err_unregister_agents:
	while (cdev->nports)
		xib_mad_unregister_agent(cdev->ports[--cdev->nports].agent);
	kfree(cdev);
	return ret;
}

static void xib_cm_remove(struct xib_device *xdev, void *client_data)
{
	struct xib_cm_dev *cdev = client_data;
	struct xib_cm_priv *p;
	bool wait;
	u32 i;

	spin_lock(&cdev->lock);
	cdev->dying = true;
	spin_unlock(&cdev->lock);
	for (;;) {
		spin_lock(&cdev->lock);
		list_for_each_entry(p, &cdev->ids, dev_node)
			if (!p->killed && kref_get_unless_zero(&p->ref))
				break;
		if (list_entry_is_head(p, &cdev->ids, dev_node)) {
			spin_unlock(&cdev->lock);
			break;
		}
		p->killed = true;
		spin_unlock(&cdev->lock);
		xib_cm_kill(p);
		xib_cm_put(p);
	}
	/* cancelled sends complete here and drop their references */
	for (i = 0; i < cdev->nports; i++)
		xib_mad_unregister_agent(cdev->ports[i].agent);
	spin_lock(&cdev->lock);
	wait = cdev->nr_ids;
	spin_unlock(&cdev->lock);
	if (wait)
		wait_for_completion(&cdev->ids_gone);
	kfree(cdev);
}

static struct xib_client xib_cm_client = {
	.name = "cm",
	.add = xib_cm_add,
	.remove = xib_cm_remove,
};

/**
 * xib_cm_init() - start the CM; before the RDMA CM's client registers
 *
 * Return: 0 or a negative errno.
 */
int xib_cm_init(void)
{
	int ret;

	xib_cm_id_operand = get_random_u32();
	/* the index that would make comm ID 0, which names nobody */
	ret = xa_reserve(&xib_cm_local_ids, xib_cm_id_operand, GFP_KERNEL);
	if (ret)
		return ret;
	xib_cm_wq = alloc_workqueue("xib_cm", 0, 0);
	if (!xib_cm_wq) {
		ret = -ENOMEM;
		goto err_release;
	}
	ret = xib_register_client(&xib_cm_client);
	if (ret)
		goto err_destroy_wq;
	return 0;

err_destroy_wq:
	destroy_workqueue(xib_cm_wq);
err_release:
	xa_release(&xib_cm_local_ids, xib_cm_id_operand);
	return ret;
}

/**
 * xib_cm_exit() - undo xib_cm_init(); after the RDMA CM's client is gone
 */
void xib_cm_exit(void)
{
	xib_unregister_client(&xib_cm_client);
	destroy_workqueue(xib_cm_wq);
	xa_release(&xib_cm_local_ids, xib_cm_id_operand);
	WARN_ON(!xa_empty(&xib_cm_local_ids));
}
