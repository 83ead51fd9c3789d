// SPDX-License-Identifier: GPL-2.0
/*
 * xib_uverbs event queues: the async event fd of a context and its
 * completion channels.
 *
 * Handlers may run in any context (the HCA's engine thread, softirq):
 * they allocate with GFP_ATOMIC, queue under a spinlock and wake readers.
 * An event about an object is also linked to the object, so that
 * destroying the object drops its unread events and reports how many it
 * delivered (the library waits for that many acknowledgements).
 *
 * A queue nobody reads must not grow without bound (a program can arm a
 * CQ and make it complete, or cycle a QP through SQD, for ever).  Once a
 * queue holds max_events_per_queue events, a new event about an object
 * that already has the same event unread there (a CQ's completion event;
 * an async event of the same type) is merged into it: the reader learns
 * nothing less, and the queue holds at most one event per object and
 * type beyond the limit, which the per-context object limits bound.
 * Below the limit every event is queued, as ib_uverbs does.
 */

#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs_priv.h"

static unsigned int max_events_per_queue = 4096;
module_param(max_events_per_queue, uint, 0644);
MODULE_PARM_DESC(max_events_per_queue,
		 "unread events of a completion channel or async event fd beyond which repeats of an unread event are merged into it (4096)");

/**
 * xib_uverbs_ev_alloc() - a new, empty event queue with one reference
 * @async: an async event queue, else a completion channel
 */
struct xib_uverbs_ev_file *xib_uverbs_ev_alloc(bool async)
{
	struct xib_uverbs_ev_file *ev = kzalloc(sizeof(*ev), GFP_KERNEL);

	if (!ev)
		return NULL;
	kref_init(&ev->ref);
	spin_lock_init(&ev->lock);
	INIT_LIST_HEAD(&ev->events);
	init_waitqueue_head(&ev->wait);
	mutex_init(&ev->read_mutex);
	INIT_LIST_HEAD(&ev->ctx_list);
	ev->async = async;
	return ev;
}

static void xib_uverbs_ev_free(struct kref *ref)
{
	struct xib_uverbs_ev_file *ev =
		container_of(ref, struct xib_uverbs_ev_file, ref);

	WARN_ON(!list_empty(&ev->events));
	mutex_destroy(&ev->read_mutex);
	kfree(ev);
}

void xib_uverbs_ev_put(struct xib_uverbs_ev_file *ev)
{
	kref_put(&ev->ref, xib_uverbs_ev_free);
}

/* Unlink and free every queued event; called with ev->lock held. */
static void xib_uverbs_ev_flush_locked(struct xib_uverbs_ev_file *ev)
{
	struct xib_uverbs_event *e, *tmp;

	lockdep_assert_held(&ev->lock);
	list_for_each_entry_safe(e, tmp, &ev->events, list) {
		list_del(&e->list);
		list_del(&e->obj_list);
		kfree(e);
	}
	ev->nr_events = 0;
}

/*
 * Does the object's list of unread events on @ev (@obj_list) hold one
 * that @e would repeat?  Completion events: any (one CQ, one channel);
 * async events: one of the same type.
 */
static bool xib_uverbs_ev_repeats(struct xib_uverbs_ev_file *ev,
				  const struct xib_uverbs_event *e,
				  struct list_head *obj_list)
{
	const struct xib_uverbs_event *o;

	lockdep_assert_held(&ev->lock);
	list_for_each_entry(o, obj_list, obj_list)
		if (!ev->async ||
		    o->desc.async.event_type == e->desc.async.event_type)
			return true;
	return false;
}

/**
 * xib_uverbs_ev_kill() - the device is gone: wake readers, fail empty reads
 * @ev: the queue
 */
void xib_uverbs_ev_kill(struct xib_uverbs_ev_file *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	ev->dead = true;
	spin_unlock_irqrestore(&ev->lock, flags);
	wake_up_interruptible(&ev->wait);
}

static void xib_uverbs_queue(struct xib_uverbs_ev_file *ev,
			     struct xib_uverbs_event *e,
			     struct list_head *obj_list, u32 *counter)
{
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	if (ev->released || ev->dead) {
		spin_unlock_irqrestore(&ev->lock, flags);
		kfree(e);
		return;
	}
	if (obj_list && ev->nr_events >= READ_ONCE(max_events_per_queue) &&
	    xib_uverbs_ev_repeats(ev, e, obj_list)) {
		/* merged into the unread one: see the file comment */
		spin_unlock_irqrestore(&ev->lock, flags);
		kfree(e);
		return;
	}
	e->seq = ev->seq++;
	e->counter = counter;
	list_add_tail(&e->list, &ev->events);
	ev->nr_events++;
	if (obj_list)
		list_add_tail(&e->obj_list, obj_list);
	else
		INIT_LIST_HEAD(&e->obj_list);
	spin_unlock_irqrestore(&ev->lock, flags);
	wake_up_interruptible(&ev->wait);
}

/**
 * xib_uverbs_queue_async() - queue an async event
 * @ev: the context's async queue
 * @element: user_handle of the object, the port number, or 0
 * @type: enum xib_event_type
 * @uobj: the object the event is about, or NULL
 *
 * Context: any; takes only spinlocks.
 */
void xib_uverbs_queue_async(struct xib_uverbs_ev_file *ev, u64 element,
			    u32 type, struct xib_uverbs_uobj *uobj)
{
	struct xib_uverbs_event *e = kzalloc(sizeof(*e), GFP_ATOMIC);

	if (!e)
		return;		/* lost, as on a queue overflow */
	e->desc.async.element = element;
	e->desc.async.event_type = type;
	xib_uverbs_queue(ev, e, uobj ? &uobj->async_list : NULL,
			 uobj ? &uobj->async_reported : NULL);
}

/**
 * xib_uverbs_purge() - drop an object's unread events
 * @ev: the queue they are on
 * @list: the object's list of unread events there
 * @counter: the object's count of events read from @ev
 * @reported: returns *@counter, read under the queue's lock
 */
void xib_uverbs_purge(struct xib_uverbs_ev_file *ev, struct list_head *list,
		      u32 *counter, u32 *reported)
{
	struct xib_uverbs_event *e, *tmp;

	spin_lock_irq(&ev->lock);
	list_for_each_entry_safe(e, tmp, list, obj_list) {
		list_del(&e->list);
		list_del(&e->obj_list);
		ev->nr_events--;
		kfree(e);
	}
	*reported = *counter;
	spin_unlock_irq(&ev->lock);
}

void xib_uverbs_cq_comp_handler(struct xib_cq *cq)
{
	struct xib_uverbs_uobj *uobj = cq->context;
	struct xib_uverbs_event *e;

	if (!uobj || !uobj->comp_ev)
		return;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return;
	e->desc.comp.cq_user_handle = uobj->user_handle;
	xib_uverbs_queue(uobj->comp_ev, e, &uobj->comp_list,
			 &uobj->comp_reported);
}

static void xib_uverbs_obj_event(struct xib_uverbs_uobj *uobj, u32 type)
{
	struct xib_uverbs_ev_file *ev;

	if (!uobj)
		return;
	ev = READ_ONCE(uobj->ctx->async_ev);
	if (ev)
		xib_uverbs_queue_async(ev, uobj->user_handle, type, uobj);
}

void xib_uverbs_cq_event_handler(struct xib_cq *cq, enum xib_event_type type)
{
	xib_uverbs_obj_event(cq->context, type);
}

void xib_uverbs_qp_event_handler(struct xib_qp *qp, enum xib_event_type type)
{
	xib_uverbs_obj_event(qp->context, type);
}

void xib_uverbs_srq_event_handler(struct xib_srq *srq,
				  enum xib_event_type type)
{
	xib_uverbs_obj_event(srq->context, type);
}

/**
 * xib_uverbs_port_event() - forward a device event to every open context
 * @handler: the node's handler
 * @event: the event
 */
void xib_uverbs_port_event(struct xib_event_handler *handler,
			   const struct xib_event *event)
{
	struct xib_uverbs_device *udev =
		container_of(handler, struct xib_uverbs_device, event_handler);
	struct xib_uverbs_ctx *ctx;
	unsigned long flags;
	u64 element;

	switch (event->type) {
	case XIB_EVENT_PORT_ACTIVE:
	case XIB_EVENT_PORT_ERR:
	case XIB_EVENT_LID_CHANGE:
	case XIB_EVENT_PKEY_CHANGE:
	case XIB_EVENT_SM_CHANGE:
	case XIB_EVENT_CLIENT_REREGISTER:
	case XIB_EVENT_GID_CHANGE:
		element = event->port_num;
		break;
	case XIB_EVENT_DEVICE_FATAL:
		element = 0;
		break;
	default:
		return;
	}

	spin_lock_irqsave(&udev->ctx_lock, flags);
	list_for_each_entry(ctx, &udev->contexts, list)
		if (ctx->async_ev)
			xib_uverbs_queue_async(ctx->async_ev, element,
					       event->type, NULL);
	spin_unlock_irqrestore(&udev->ctx_lock, flags);
}

static bool xib_uverbs_ev_ready(struct xib_uverbs_ev_file *ev)
{
	return !list_empty_careful(&ev->events) || READ_ONCE(ev->dead);
}

/*
 * Copy out as many whole records as fit and are queued, without
 * blocking.  Returns the bytes copied, or -EAGAIN (empty), -EIO (empty
 * and dead), -EFAULT.  An event is dequeued (and counted for its object)
 * only once user space has it.
 */
static ssize_t xib_uverbs_ev_take(struct xib_uverbs_ev_file *ev,
				  char __user *buf, size_t count, size_t esz)
{
	struct xib_uverbs_event *e, *done_e;
	union {
		struct xib_uverbs_comp_event comp;
		struct xib_uverbs_async_event async;
	} desc;
	size_t done = 0;
	u64 seq;

	lockdep_assert_held(&ev->read_mutex);
	while (done + esz <= count) {
		spin_lock_irq(&ev->lock);
		e = list_first_entry_or_null(&ev->events,
					     struct xib_uverbs_event, list);
		if (!e) {
			bool dead = ev->dead;

			spin_unlock_irq(&ev->lock);
			if (done)
				break;
			return dead ? -EIO : -EAGAIN;
		}
		memcpy(&desc, &e->desc, esz);
		seq = e->seq;
		spin_unlock_irq(&ev->lock);

		if (copy_to_user(buf + done, &desc, esz))
			return done ? done : -EFAULT;

		/* Still there unless its object was destroyed meanwhile. */
		done_e = NULL;
		spin_lock_irq(&ev->lock);
		e = list_first_entry_or_null(&ev->events,
					     struct xib_uverbs_event, list);
		if (e && e->seq == seq) {
			list_del(&e->list);
			ev->nr_events--;
			if (e->counter)
				++*e->counter;
			list_del(&e->obj_list);
			done_e = e;
		}
		spin_unlock_irq(&ev->lock);
		kfree(done_e);
		done += esz;
	}
	return done;
}

static ssize_t xib_uverbs_ev_read(struct file *filp, char __user *buf,
				  size_t count, loff_t *pos)
{
	struct xib_uverbs_ev_file *ev = filp->private_data;
	size_t esz = ev->async ? sizeof(struct xib_uverbs_async_event) :
				 sizeof(struct xib_uverbs_comp_event);
	bool nonblock = filp->f_flags & O_NONBLOCK;
	ssize_t ret;

	if (count < esz)
		return -EINVAL;
	for (;;) {
		if (!nonblock &&
		    wait_event_interruptible(ev->wait,
					     xib_uverbs_ev_ready(ev)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&ev->read_mutex))
			return -ERESTARTSYS;
		ret = xib_uverbs_ev_take(ev, buf, count, esz);
		mutex_unlock(&ev->read_mutex);
		/* Another reader may have taken what woke us: wait again. */
		if (ret != -EAGAIN || nonblock)
			return ret;
	}
}

static __poll_t xib_uverbs_ev_poll(struct file *filp,
				   struct poll_table_struct *wait)
{
	struct xib_uverbs_ev_file *ev = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ev->wait, wait);
	spin_lock_irq(&ev->lock);
	if (!list_empty(&ev->events))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ev->dead)
		mask = EPOLLERR;
	spin_unlock_irq(&ev->lock);
	return mask;
}

static int xib_uverbs_ev_release(struct inode *inode, struct file *filp)
{
	struct xib_uverbs_ev_file *ev = filp->private_data;
	struct xib_uverbs_ctx *ctx = ev->ctx;

	spin_lock_irq(&ev->lock);
	ev->released = true;
	xib_uverbs_ev_flush_locked(ev);
	spin_unlock_irq(&ev->lock);

	if (ctx) {
		spin_lock_irq(&ctx->channels_lock);
		list_del_init(&ev->ctx_list);
		spin_unlock_irq(&ctx->channels_lock);
		ev->ctx = NULL;
		xib_uverbs_ctx_put(ctx);
	}
	xib_uverbs_ev_put(ev);
	return 0;
}

const struct file_operations xib_uverbs_comp_fops = {
	.owner = THIS_MODULE,
	.read = xib_uverbs_ev_read,
	.poll = xib_uverbs_ev_poll,
	.release = xib_uverbs_ev_release,
	.llseek = no_llseek,
};

const struct file_operations xib_uverbs_async_fops = {
	.owner = THIS_MODULE,
	.read = xib_uverbs_ev_read,
	.poll = xib_uverbs_ev_poll,
	.release = xib_uverbs_ev_release,
	.llseek = no_llseek,
};
