// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer: agents, sends with timeouts and retries, response
 * matching and the receive backlog of QP1 (xib_mad.h).
 *
 * Every device gets a struct xib_mad_dev when it registers (a core client)
 * with one ordered workqueue; one work item on it runs completions and
 * received datagrams, a delayed one the timeouts, so callbacks of a device
 * never run concurrently.  Datagrams are never handed to the driver with
 * the lock held: a send to our own address comes straight back through
 * xib_mad_recv().
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <xib/xib_mad.h>

#include "core_priv.h"
#include "mad_priv.h"

/**
 * struct xib_mad_dev - the MAD layer of one device
 * @dev: the device
 * @wq: the ordered workqueue every callback runs on
 * @work: runs @done and @backlog
 * @timeout_work: resends and expires the sends on @wait
 * @lock: protects @agents, @wait, @done, @backlog, @backlog_len, @next_hi,
 *	@nr_posted and the private fields of the sends on those lists;
 *	irq-safe
 * @agents: registered agents (struct xib_mad_agent_priv)
 * @wait: sends awaiting a response, by posting order
 * @done: sends whose @send_done is due
 * @backlog: received datagrams (struct xib_mad_rx) not yet delivered
 * @backlog_len: entries on @backlog
 * @next_hi: the next agent TID space
 * @nr_posted: sends posted and not yet completed (@posted set); read
 *	without the lock by xib_mad_nr_posted()
 *
 * The layer counts in the device's core counters (XIB_CORE_STAT_MAD_*).
 */
struct xib_mad_dev {
	struct xib_device *dev;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct delayed_work timeout_work;
	spinlock_t lock;	/* see @lock above */
	struct list_head agents;
	struct list_head wait;
	struct list_head done;
	struct list_head backlog;
	unsigned int backlog_len;
	u32 next_hi;
	unsigned int nr_posted;
};

/**
 * struct xib_mad_agent_priv - an agent and what the MAD layer keeps
 * @agent: what the registrant sees
 * @mdev: its device's MAD layer
 * @list: on @mdev->agents (under @mdev->lock)
 * @hi: its TID space
 * @next_lo: the next TID it is assigned (under @mdev->lock)
 * @dying: unregistration began; no new sends (under @mdev->lock)
 */
struct xib_mad_agent_priv {
	struct xib_mad_agent agent;
	struct xib_mad_dev *mdev;
	struct list_head list;
	u32 hi;
	u32 next_lo;
	bool dying;
};

/* One received datagram on the backlog. */
struct xib_mad_rx {
	struct list_head list;
	struct xib_mad_recv recv;
};

static inline struct xib_mad_agent_priv *
to_agent_priv(struct xib_mad_agent *agent)
{
	return container_of(agent, struct xib_mad_agent_priv, agent);
}

static int xib_mad_xmit(struct xib_mad_dev *mdev, const struct xib_mad_addr *addr,
			const struct xib_mad *mad)
{
	int ret = -EOPNOTSUPP;

	if (mdev->dev->ops->post_mad)
		ret = mdev->dev->ops->post_mad(mdev->dev, addr, mad);
	xib_core_stat_inc(mdev->dev, ret ? XIB_CORE_STAT_MAD_TX_ERRORS :
					   XIB_CORE_STAT_MAD_TX);
	return ret;
}

/* Move @send to the done list with @status; the caller queues the work. */
static void xib_mad_complete_locked(struct xib_mad_dev *mdev,
				    struct xib_mad_send *send, int status)
{
	lockdep_assert_held(&mdev->lock);
	send->status = status;
	list_move_tail(&send->list, &mdev->done);
}

/* Schedule the timeout work for the earliest deadline on @wait. */
static void xib_mad_arm_locked(struct xib_mad_dev *mdev)
{
	struct xib_mad_send *send;
	unsigned long first = 0;
	bool any = false;

	lockdep_assert_held(&mdev->lock);
	list_for_each_entry(send, &mdev->wait, list) {
		if (!any || time_before(send->deadline, first))
			first = send->deadline;
		any = true;
	}
	if (any)
		mod_delayed_work(mdev->wq, &mdev->timeout_work,
				 time_after(first, jiffies) ? first - jiffies : 0);
}

static struct xib_mad_agent_priv *
xib_mad_find_agent_locked(struct xib_mad_dev *mdev,
			  const struct xib_mad_recv *recv)
{
	const struct xib_mad_hdr *hdr = &recv->mad.hdr;
	struct xib_mad_agent_priv *ap;
	bool rsp = xib_mad_is_response(hdr);
	u32 hi = xib_mad_tid_agent(hdr->tid);

	lockdep_assert_held(&mdev->lock);
	list_for_each_entry(ap, &mdev->agents, list) {
		if (ap->dying || ap->agent.port_num != recv->port_num ||
		    ap->agent.ops->mgmt_class != hdr->mgmt_class ||
		    ap->agent.ops->class_version != hdr->class_version)
			continue;
		if (rsp ? ap->hi == hi : ap->agent.ops->requests)
			return ap;
	}
	return NULL;
}

/* Deliver one datagram; workqueue context. */
static void xib_mad_deliver(struct xib_mad_dev *mdev,
			    const struct xib_mad_recv *recv)
{
	struct xib_mad_send *send, *req = NULL;
	struct xib_mad_agent_priv *ap;
	unsigned long flags;

	spin_lock_irqsave(&mdev->lock, flags);
	ap = xib_mad_find_agent_locked(mdev, recv);
	if (ap && xib_mad_is_response(&recv->mad.hdr)) {
		list_for_each_entry(send, &mdev->wait, list) {
			if (send->agent == &ap->agent &&
			    !(send->flags & (XIB_MAD_SEND_KEEP_TID |
					     XIB_MAD_SEND_NO_MATCH)) &&
			    xib_mad_matches(&send->mad.hdr, &recv->mad.hdr)) {
				req = send;
				list_del_init(&send->list);
				send->posted = false;
				WRITE_ONCE(mdev->nr_posted, mdev->nr_posted - 1);
				break;
			}
		}
		if (!req)
			ap = NULL;	/* late or unknown: drop */
	}
	spin_unlock_irqrestore(&mdev->lock, flags);
	if (!ap) {
		xib_core_stat_inc(mdev->dev, XIB_CORE_STAT_MAD_RX_UNCLAIMED);
		return;
	}
	/* the agent cannot go: unregistration flushes this workqueue */
	ap->agent.ops->recv(&ap->agent, recv, req);
	if (req)
		ap->agent.ops->send_done(&ap->agent, req, 0);
}

static void xib_mad_work(struct work_struct *work)
{
	struct xib_mad_dev *mdev = container_of(work, struct xib_mad_dev, work);
	struct xib_mad_send *send;
	struct xib_mad_rx *rx;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&mdev->lock, flags);
		send = list_first_entry_or_null(&mdev->done,
						struct xib_mad_send, list);
		if (send) {
			list_del_init(&send->list);
			send->posted = false;
			WRITE_ONCE(mdev->nr_posted, mdev->nr_posted - 1);
			spin_unlock_irqrestore(&mdev->lock, flags);
			send->agent->ops->send_done(send->agent, send,
						    send->status);
			continue;
		}
		rx = list_first_entry_or_null(&mdev->backlog,
					      struct xib_mad_rx, list);
		if (rx) {
			list_del(&rx->list);
			mdev->backlog_len--;
		}
		spin_unlock_irqrestore(&mdev->lock, flags);
		if (!rx)
			return;
		xib_mad_deliver(mdev, &rx->recv);
		kfree(rx);
		cond_resched();
	}
}

static void xib_mad_timeout_work(struct work_struct *work)
{
	struct xib_mad_dev *mdev = container_of(to_delayed_work(work),
						struct xib_mad_dev,
						timeout_work);
	struct xib_mad_send *send, *next;
	struct xib_mad_addr addr;
	struct xib_mad mad;
	unsigned long flags;
	bool again, done = false;

	do {
		again = false;
		spin_lock_irqsave(&mdev->lock, flags);
		list_for_each_entry_safe(send, next, &mdev->wait, list) {
			if (time_before(jiffies, send->deadline))
				continue;
			if (send->sent > send->retries) {
				xib_mad_complete_locked(mdev, send,
							-ETIMEDOUT);
				xib_core_stat_inc(mdev->dev,
						  XIB_CORE_STAT_MAD_TIMEOUTS);
				done = true;
				continue;
			}
			send->sent++;
			send->deadline = jiffies +
					 msecs_to_jiffies(send->timeout_ms);
			mad = send->mad;
			addr = send->addr;
			again = true;
			break;
		}
		spin_unlock_irqrestore(&mdev->lock, flags);
		if (again) {
			xib_core_stat_inc(mdev->dev, XIB_CORE_STAT_MAD_RETRIES);
			xib_mad_xmit(mdev, &addr, &mad);
		}
	} while (again);
	spin_lock_irqsave(&mdev->lock, flags);
	xib_mad_arm_locked(mdev);
	spin_unlock_irqrestore(&mdev->lock, flags);
	if (done)
		queue_work(mdev->wq, &mdev->work);
}

static struct xib_mad_dev *xib_mad_dev_of(struct xib_device *dev)
{
	/* registered agents and their sends keep the device registered */
	return rcu_dereference_protected(dev->mad, true);
}

/**
 * xib_mad_register_agent() - register an agent for a class on a port
 * @dev: the device
 * @port_num: the port (1-based)
 * @ops: class, version, callbacks; must stay valid until unregistration
 * @context: the caller's
 *
 * Process context.
 *
 * Return: the agent, or ERR_PTR(-EINVAL) for a bad port or missing
 * callback, -ENODEV without a MAD layer, -EBUSY when another agent takes
 * the class's requests, -ENOMEM.
 */
struct xib_mad_agent *xib_mad_register_agent(struct xib_device *dev,
					     u32 port_num,
					     const struct xib_mad_agent_ops *ops,
					     void *context)
{
	struct xib_mad_dev *mdev = xib_mad_dev_of(dev);
	struct xib_mad_agent_priv *ap, *other;
	unsigned long flags;

	if (!mdev)
		return ERR_PTR(-ENODEV);
	if (!port_num || port_num > dev->phys_port_cnt || !ops->recv ||
	    !ops->send_done)
		return ERR_PTR(-EINVAL);
	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return ERR_PTR(-ENOMEM);
	ap->agent.device = dev;
	ap->agent.port_num = port_num;
	ap->agent.ops = ops;
	ap->agent.context = context;
	ap->mdev = mdev;

	spin_lock_irqsave(&mdev->lock, flags);
	list_for_each_entry(other, &mdev->agents, list) {
		if (ops->requests && other->agent.ops->requests &&
		    other->agent.port_num == port_num &&
		    other->agent.ops->mgmt_class == ops->mgmt_class &&
		    other->agent.ops->class_version == ops->class_version) {
			spin_unlock_irqrestore(&mdev->lock, flags);
			kfree(ap);
			return ERR_PTR(-EBUSY);
		}
	}
	/* 0 is never an agent's space: a zero TID names nobody */
	if (!++mdev->next_hi)
		++mdev->next_hi;
	ap->hi = mdev->next_hi;
	ap->next_lo = 1;
	list_add_tail(&ap->list, &mdev->agents);
	spin_unlock_irqrestore(&mdev->lock, flags);
	return &ap->agent;
}
EXPORT_SYMBOL_GPL(xib_mad_register_agent);

/**
 * xib_mad_unregister_agent() - end an agent
 * @agent: from xib_mad_register_agent()
 *
 * Cancels its outstanding sends and waits for every callback of the
 * device's MAD layer to return.  Process context; never from a callback.
 */
void xib_mad_unregister_agent(struct xib_mad_agent *agent)
{
	struct xib_mad_agent_priv *ap = to_agent_priv(agent);
	struct xib_mad_dev *mdev = ap->mdev;
	struct xib_mad_send *send, *next;
	unsigned long flags;

	spin_lock_irqsave(&mdev->lock, flags);
	ap->dying = true;
	list_del(&ap->list);
	list_for_each_entry_safe(send, next, &mdev->wait, list)
		if (send->agent == agent)
			xib_mad_complete_locked(mdev, send, -ECANCELED);
	spin_unlock_irqrestore(&mdev->lock, flags);
	queue_work(mdev->wq, &mdev->work);
	/* the timeout work may resend once more; then nothing refers to @ap */
	flush_delayed_work(&mdev->timeout_work);
	flush_workqueue(mdev->wq);
	kfree(ap);
}
EXPORT_SYMBOL_GPL(xib_mad_unregister_agent);

/**
 * xib_mad_alloc_send() - a zeroed send for @agent
 * @agent: the agent
 * @gfp: allocation flags
 *
 * Return: the send or NULL.
 */
struct xib_mad_send *xib_mad_alloc_send(struct xib_mad_agent *agent, gfp_t gfp)
{
	struct xib_mad_send *send = kzalloc(sizeof(*send), gfp);

	if (!send)
		return NULL;
	send->agent = agent;
	INIT_LIST_HEAD(&send->list);
	return send;
}
EXPORT_SYMBOL_GPL(xib_mad_alloc_send);

/**
 * xib_mad_free_send() - free a send that is not posted
 * @send: the send, or NULL
 */
void xib_mad_free_send(struct xib_mad_send *send)
{
	if (send)
		WARN_ON_ONCE(send->posted);
	kfree(send);
}
EXPORT_SYMBOL_GPL(xib_mad_free_send);

/**
 * xib_mad_post_send() - send a MAD
 * @send: filled in by the agent, not posted
 *
 * Any context.  The TID's high 32 bits become the agent's; a zero low
 * half is assigned (unless @send->flags has XIB_MAD_SEND_KEEP_TID).
 * @send_done follows exactly once when 0 is returned.
 *
 * Return: 0; -EINVAL for a send already posted, a bad base version or
 * unknown flags; -ESHUTDOWN while the agent unregisters.
 */
int xib_mad_post_send(struct xib_mad_send *send)
{
	struct xib_mad_agent_priv *ap = to_agent_priv(send->agent);
	struct xib_mad_dev *mdev = ap->mdev;
	unsigned long flags;
	u32 lo;
	int ret;

	if (send->mad.hdr.base_version != XIB_MAD_BASE_VERSION ||
	    send->flags & ~XIB_MAD_SEND_FLAGS)
		return -EINVAL;
	spin_lock_irqsave(&mdev->lock, flags);
	if (send->posted || ap->dying) {
		spin_unlock_irqrestore(&mdev->lock, flags);
		return send->posted ? -EINVAL : -ESHUTDOWN;
	}
	if (!(send->flags & XIB_MAD_SEND_KEEP_TID)) {
		lo = be64_to_cpu(send->mad.hdr.tid) & 0xffffffff;
		if (!lo) {
			lo = ap->next_lo++;
			if (!ap->next_lo)
				ap->next_lo = 1;
		}
		send->mad.hdr.tid = xib_mad_tid_make(ap->hi, lo);
	}
	send->posted = true;
	WRITE_ONCE(mdev->nr_posted, mdev->nr_posted + 1);
	send->status = 0;
	send->sent = 1;
	if (send->timeout_ms) {
		send->deadline = jiffies + msecs_to_jiffies(send->timeout_ms);
		list_add_tail(&send->list, &mdev->wait);
		xib_mad_arm_locked(mdev);
	}
	spin_unlock_irqrestore(&mdev->lock, flags);

	/*
	 * A response may already be matched and the send completed by the
	 * time the driver returns; only @mad and @addr are read, and the
	 * agent does not touch them until @send_done.
	 */
	ret = xib_mad_xmit(mdev, &send->addr, &send->mad);
	if (!send->timeout_ms) {
		spin_lock_irqsave(&mdev->lock, flags);
		xib_mad_complete_locked(mdev, send, ret);
		spin_unlock_irqrestore(&mdev->lock, flags);
		queue_work(mdev->wq, &mdev->work);
	}
	/* a failed send awaiting a response is retried like a lost one */
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mad_post_send);

/**
 * xib_mad_cancel() - end a send awaiting a response
 * @send: a posted send
 *
 * Any context.  Completes it with -ECANCELED unless it already completed.
 */
void xib_mad_cancel(struct xib_mad_send *send)
{
	struct xib_mad_dev *mdev = to_agent_priv(send->agent)->mdev;
	struct xib_mad_send *s;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&mdev->lock, flags);
	list_for_each_entry(s, &mdev->wait, list) {
		if (s == send) {
			xib_mad_complete_locked(mdev, send, -ECANCELED);
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&mdev->lock, flags);
	if (found)
		queue_work(mdev->wq, &mdev->work);
}
EXPORT_SYMBOL_GPL(xib_mad_cancel);

/**
 * xib_mad_modify() - wait @timeout_ms from now for @send's response
 * @send: a posted send
 * @timeout_ms: the new wait (> 0)
 *
 * Any context.
 *
 * Return: 0, -EINVAL for a zero timeout, -ENOENT if it no longer waits.
 */
int xib_mad_modify(struct xib_mad_send *send, unsigned int timeout_ms)
{
	struct xib_mad_dev *mdev = to_agent_priv(send->agent)->mdev;
	struct xib_mad_send *s;
	unsigned long flags;
	int ret = -ENOENT;

	if (!timeout_ms)
		return -EINVAL;
	spin_lock_irqsave(&mdev->lock, flags);
	list_for_each_entry(s, &mdev->wait, list) {
		if (s == send) {
			send->timeout_ms = timeout_ms;
			send->deadline = jiffies + msecs_to_jiffies(timeout_ms);
			xib_mad_arm_locked(mdev);
			ret = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&mdev->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_mad_modify);

/**
 * xib_mad_addr_reply() - the address that answers a received datagram
 * @dev: the device it arrived on
 * @recv: the datagram
 * @addr: filled in: to its source GID and QP, from our GID it was sent to
 *
 * Return: 0, or -EADDRNOTAVAIL if that GID is no longer ours.
 */
int xib_mad_addr_reply(struct xib_device *dev, const struct xib_mad_recv *recv,
		       struct xib_mad_addr *addr)
{
	u8 gid[16];
	int ret;
	u32 i;

	memset(addr, 0, sizeof(*addr));
	/* entries keep their index while they exist: skip the holes */
	for (i = 0; i < XIB_PORT_GID_TBL_LEN; i++) {
		ret = xib_query_gid(dev, recv->port_num, i, gid);
		if (ret == -ENOENT)
			continue;
		if (ret)
			return -EADDRNOTAVAIL;
		if (!memcmp(gid, recv->dgid, sizeof(gid)))
			break;
	}
	if (i == XIB_PORT_GID_TBL_LEN)
		return -EADDRNOTAVAIL;
	addr->ah.sgid_index = i;
	addr->ah.port_num = recv->port_num;
	addr->ah.is_global = 1;
	memcpy(addr->ah.dgid, recv->sgid, sizeof(addr->ah.dgid));
	addr->ah.flow_label = recv->flow_label;
	addr->ah.traffic_class = recv->traffic_class;
	addr->ah.hop_limit = 64;
	addr->remote_qpn = recv->src_qpn;
	addr->remote_qkey = XIB_QP1_QKEY;
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mad_addr_reply);

/**
 * xib_mad_recv() - a datagram arrived for QP1
 * @dev: the device
 * @recv: what arrived; copied
 *
 * Any context.
 */
void xib_mad_recv(struct xib_device *dev, const struct xib_mad_recv *recv)
{
	struct xib_mad_dev *mdev;
	struct xib_mad_rx *rx;
	unsigned long flags;

	rcu_read_lock();
	mdev = rcu_dereference(dev->mad);
	if (!mdev)
		goto out;
	xib_core_stat_inc(dev, XIB_CORE_STAT_MAD_RX);
	if (!xib_mad_hdr_valid(&recv->mad.hdr))
		goto drop;
	rx = kmalloc(sizeof(*rx), GFP_ATOMIC);
	if (!rx)
		goto drop;
	rx->recv = *recv;
	spin_lock_irqsave(&mdev->lock, flags);
	if (mdev->backlog_len >= XIB_MAD_BACKLOG_MAX) {
		spin_unlock_irqrestore(&mdev->lock, flags);
		kfree(rx);
		goto drop;
	}
	list_add_tail(&rx->list, &mdev->backlog);
	mdev->backlog_len++;
	spin_unlock_irqrestore(&mdev->lock, flags);
	queue_work(mdev->wq, &mdev->work);
	goto out;
drop:
	xib_core_stat_inc(dev, XIB_CORE_STAT_MAD_RX_DROPPED);
out:
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(xib_mad_recv);

/**
 * xib_mad_nr_posted() - the sends of @dev's MAD layer not yet completed
 * @dev: the device
 *
 * Any context; a snapshot.  Every send an agent posts counts until its
 * @send_done is called: awaiting a response, a resend or its completion.
 *
 * Return: the count, 0 without a MAD layer.
 */
u32 xib_mad_nr_posted(struct xib_device *dev)
{
	struct xib_mad_dev *mdev;
	u32 n = 0;

	rcu_read_lock();
	mdev = rcu_dereference(dev->mad);
	if (mdev)
		n = READ_ONCE(mdev->nr_posted);
	rcu_read_unlock();
	return n;
}

static struct xib_client xib_mad_client;

static int xib_mad_add(struct xib_device *dev)
{
	struct xib_mad_dev *mdev;
	int ret;

	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->dev = dev;
	mdev->wq = alloc_ordered_workqueue("xib_mad_%s", 0, dev->name);
	if (!mdev->wq) {
		ret = -ENOMEM;
		goto err_free_mdev;
	}
	INIT_WORK(&mdev->work, xib_mad_work);
	INIT_DELAYED_WORK(&mdev->timeout_work, xib_mad_timeout_work);
	spin_lock_init(&mdev->lock);
	INIT_LIST_HEAD(&mdev->agents);
	INIT_LIST_HEAD(&mdev->wait);
	INIT_LIST_HEAD(&mdev->done);
	INIT_LIST_HEAD(&mdev->backlog);
	ret = xib_set_client_data(dev, &xib_mad_client, mdev);
	if (ret)
		goto err_destroy_wq;
	rcu_assign_pointer(dev->mad, mdev);
	return 0;

err_destroy_wq:
	destroy_workqueue(mdev->wq);
err_free_mdev:
	kfree(mdev);
	return ret;
}

static void xib_mad_remove(struct xib_device *dev, void *client_data)
{
	struct xib_mad_dev *mdev = client_data;
	struct xib_mad_rx *rx, *next;

	RCU_INIT_POINTER(dev->mad, NULL);
	synchronize_rcu();
	WARN_ON(!list_empty(&mdev->agents) || mdev->nr_posted);
	cancel_delayed_work_sync(&mdev->timeout_work);
	destroy_workqueue(mdev->wq);
	list_for_each_entry_safe(rx, next, &mdev->backlog, list)
		kfree(rx);
	kfree(mdev);
}

static struct xib_client xib_mad_client = {
	.name = "mad",
	.add = xib_mad_add,
	.remove = xib_mad_remove,
};

int xib_mad_init(void)
{
	return xib_register_client(&xib_mad_client);
}

void xib_mad_exit(void)
{
	xib_unregister_client(&xib_mad_client);
}
