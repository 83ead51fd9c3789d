// SPDX-License-Identifier: GPL-2.0
/*
 * xib_ucma: /dev/xib/rdma_cm, the user-space face of xib_cma.
 *
 * Each open() is an event channel (struct xib_ucma_file); the commands of
 * include/uapi/xib/ucma.h (ucma_cmd.c) create RDMA CM ids on it and drive
 * them; the RDMA CM's events for those ids are queued on the file and read
 * with XIB_UCMA_GET_EVENT (this file).  Closing the file destroys every id
 * it owns: xib_cma ends their connections (the peer sees DISCONNECTED or a
 * reject) and the unread events are dropped.
 *
 * What a user makes the kernel allocate is bounded per file (the module
 * parameters max_ids_per_file and max_events_per_file) and charged to the
 * opener's memory cgroup, including what the RDMA CM's handlers allocate
 * for the file on another thread; the files themselves are bounded per
 * user (max_channels_per_user, counted by the opener's euid in its user
 * namespace, and by each owner of that namespace's ancestors, until the
 * file's release: core/user.c).
 */

#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ucma_priv.h"

unsigned int xib_ucma_max_ids = 4096;
module_param_named(max_ids_per_file, xib_ucma_max_ids, uint, 0644);
MODULE_PARM_DESC(max_ids_per_file,
		 "RDMA CM ids one open /dev/xib/rdma_cm may hold, those of unread connection requests included (4096)");

unsigned int xib_ucma_max_events = 4096;
module_param_named(max_events_per_file, xib_ucma_max_events, uint, 0644);
MODULE_PARM_DESC(max_events_per_file,
		 "Queued events beyond which commands that start an operation fail with ENOMEM and connection requests are refused (4096)");

unsigned int xib_ucma_max_mcs = 64;
module_param_named(max_mcast_per_id, xib_ucma_max_mcs, uint, 0644);
MODULE_PARM_DESC(max_mcast_per_id,
		 "Multicast groups one RDMA CM id may join (JOIN_MCAST beyond: ENOMEM) (64)");

static unsigned int xib_ucma_max_files_per_user = 256;
module_param_named(max_channels_per_user, xib_ucma_max_files_per_user, uint,
		   0644);
MODULE_PARM_DESC(max_channels_per_user,
		 "Opens of /dev/xib/rdma_cm (event channels) one user may hold, per user namespace level (a container also counts against its owner); beyond, open() fails with EMFILE unless CAP_SYS_RESOURCE (256)");

/* The open files of each user (their opener's euid), for the above. */
static struct xib_uid_count xib_ucma_files_per_user;

/* Every multicast membership, by handle (struct xib_ucma_mc). */
DEFINE_XARRAY_ALLOC(xib_ucma_mcs);

/* Queueing an event (read) against MIGRATE_ID moving ids (write). */
DECLARE_RWSEM(xib_ucma_move_rwsem);

/**
 * xib_ucma_room() - may another operation be started on the file?
 * @file: the file
 *
 * The events of user-started operations (resolution, connect, accept,
 * disconnect) and connection requests are what a user can multiply, so
 * they are refused beyond max_events_per_file.  The events that follow
 * from a connection's state (REJECTED, ESTABLISHED, DISCONNECTED,
 * TIMEWAIT_EXIT, DEVICE_REMOVAL...) are always queued: a few per id, so
 * bounded by max_ids_per_file.
 *
 * Return: true if there is room.
 */
bool xib_ucma_room(struct xib_ucma_file *file)
{
	return READ_ONCE(file->nr_events) < READ_ONCE(xib_ucma_max_events);
}

/* --- ids ----------------------------------------------------------------- */

/**
 * xib_ucma_ctx_alloc() - a new id's structure, charged to the caller
 *
 * Return: the context with one reference (for being findable), or NULL.
 */
struct xib_ucma_ctx *xib_ucma_ctx_alloc(void)
{
	struct xib_ucma_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);

	if (!ctx)
		return NULL;
	INIT_LIST_HEAD(&ctx->list);
	INIT_LIST_HEAD(&ctx->mcs);
	refcount_set(&ctx->ref, 1);
	init_completion(&ctx->unused);
	return ctx;
}

/**
 * xib_ucma_ctx_put() - a command is done with an id
 * @ctx: the id
 */
void xib_ucma_ctx_put(struct xib_ucma_ctx *ctx)
{
	if (refcount_dec_and_test(&ctx->ref))
		complete(&ctx->unused);
}

/* Take @e off its file's queue (the reader frees it if it is reading). */
static void xib_ucma_unqueue(struct xib_ucma_file *file,
			     struct xib_ucma_kevent *e)
{
	lockdep_assert_held(&file->mutex);
	list_del_init(&e->list);
	WRITE_ONCE(file->nr_events, file->nr_events - 1);
	if (e->reading)
		e->purged = true;
	else
		kfree(e);
}

/**
 * xib_ucma_ctx_destroy() - destroy an id no lookup can find any more
 * @ctx: the id, already out of its file's @handles (or never in them)
 *
 * Waits for the commands using the id, destroys the RDMA CM id (after
 * which its handler is not called again; it leaves the id's multicast
 * groups), frees the memberships, drops the id's unread events
 * and destroys the new ids of the unread connection requests it got as a
 * listener (user space never learnt of them).  Frees @ctx.
 *
 * Return: the id's events_reported.
 */
u32 xib_ucma_ctx_destroy(struct xib_ucma_ctx *ctx)
{
	struct xib_ucma_kevent *e, *tmp;
	struct xib_ucma_ctx *c, *ctmp;
	struct xib_ucma_mc *mc, *mtmp;
	struct xib_ucma_file *file;
	LIST_HEAD(orphans);
	u32 reported;

	xib_ucma_ctx_put(ctx);
	wait_for_completion(&ctx->unused);
	xib_cma_destroy_id(ctx->cm_id);

	/*
	 * Only MIGRATE_ID moves an id and it finds it by handle, so @file
	 * is stable; so are the pending ids of our requests, which move
	 * only with us.
	 */
	file = ctx->file;
	mutex_lock(&file->mutex);
	list_for_each_entry_safe(e, tmp, &file->events, list) {
		if (e->ctx != ctx && e->listen != ctx)
			continue;
		if (e->listen == ctx && !e->ctx->visible)
			list_move_tail(&e->ctx->list, &orphans);
		xib_ucma_unqueue(file, e);
	}
	/* xib_cma left the groups; their events went with the id's */
	list_for_each_entry_safe(mc, mtmp, &ctx->mcs, list) {
		xa_erase(&xib_ucma_mcs, mc->handle);
		list_del(&mc->list);
		kfree(mc);
	}
	list_del(&ctx->list);
	file->nr_ids--;
	reported = ctx->events_reported;
	mutex_unlock(&file->mutex);

	/* Destroy takes each off @orphans (and uncharges it). */
	list_for_each_entry_safe(c, ctmp, &orphans, list)
		xib_ucma_ctx_destroy(c);
	kfree(ctx);
	return reported;
}

/**
 * xib_ucma_mc_unqueue() - drop the unread events of a membership being left
 * @mc: the membership, out of xib_ucma_mcs and its id's list; xib_cma
 *	left its group, so no event of it is queued any more
 *
 * Context: not under any file's mutex.
 * Return: the membership's events_reported.
 */
u32 xib_ucma_mc_unqueue(struct xib_ucma_mc *mc)
{
	struct xib_ucma_kevent *e, *tmp;
	struct xib_ucma_file *file;
	u32 reported;

	down_read(&xib_ucma_move_rwsem);
	file = mc->ctx->file;
	mutex_lock(&file->mutex);
	list_for_each_entry_safe(e, tmp, &file->events, list)
		if (e->mc == mc)
			xib_ucma_unqueue(file, e);
	reported = mc->events_reported;
	mutex_unlock(&file->mutex);
	up_read(&xib_ucma_move_rwsem);
	return reported;
}

/* --- events -------------------------------------------------------------- */

static void xib_ucma_conn_to_user(struct xib_ucma_conn_param *u,
				  const struct xib_cma_conn_param *p)
{
	u8 len = min_t(u8, p->private_data_len, sizeof(u->private_data));

	if (p->private_data && len)
		memcpy(u->private_data, p->private_data, len);
	else
		len = 0;
	u->private_data_len = len;
	u->responder_resources = p->responder_resources;
	u->initiator_depth = p->initiator_depth;
	u->flow_control = p->flow_control;
	u->retry_count = p->retry_count;
	u->rnr_retry_count = p->rnr_retry_count;
	u->srq = p->srq;
	u->qp_num = p->qp_num & 0xffffff;
	u->qkey = p->qkey;
}

/*
 * An event for @file, charged to its opener; a connection's own events
 * fall back to an uncharged allocation rather than being lost.
 */
static struct xib_ucma_kevent *xib_ucma_kevent_alloc(struct xib_ucma_file *file,
						     bool may_fail)
{
	struct xib_ucma_kevent *e;
	struct mem_cgroup *old;

	old = set_active_memcg(file->memcg);
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	set_active_memcg(old);
	if (!e && !may_fail)
		e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (e)
		INIT_LIST_HEAD(&e->list);
	return e;
}

static void xib_ucma_fill(struct xib_ucma_kevent *e,
			  const struct xib_cma_event *ev, u64 uid)
{
	e->ev.uid = uid;
	e->ev.event = ev->event;
	e->ev.status = ev->status;
	xib_ucma_conn_to_user(&e->ev.conn, &ev->param);
	e->ev.ud.ah_attr = ev->ah_attr;
	e->ev.ud.qp_num = ev->ud_qp_num & 0xffffff;
	e->ev.ud.qkey = ev->ud_qkey;
}

static void xib_ucma_queue(struct xib_ucma_file *file,
			   struct xib_ucma_kevent *e)
{
	lockdep_assert_held(&file->mutex);
	list_add_tail(&e->list, &file->events);
	WRITE_ONCE(file->nr_events, file->nr_events + 1);
	wake_up_interruptible(&file->wait);
}

/*
 * CONNECT_REQUEST: @id is the RDMA CM's new id, still with the listener's
 * context.  It becomes an id of the listener's file, known to user space
 * when the event is read.  Non-zero refuses the request.
 */
static int xib_ucma_conn_request(struct xib_cma_id *id,
				 const struct xib_cma_event *ev)
{
	struct xib_ucma_ctx *lctx = ev->listen_id->context;
	struct xib_ucma_file *file;
	struct xib_ucma_kevent *e;
	struct xib_ucma_ctx *ctx;
	struct mem_cgroup *old;
	int ret = 0;

	down_read(&xib_ucma_move_rwsem);
	file = lctx->file;
	old = set_active_memcg(file->memcg);
	ctx = xib_ucma_ctx_alloc();
	set_active_memcg(old);
	e = xib_ucma_kevent_alloc(file, true);
	if (!ctx || !e) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&file->mutex);
	/* Over a limit the peer may retry (-ENOMEM sends no REJ). */
	if (file->closing)
		ret = -ECONNREFUSED;
	else if (file->nr_ids >= READ_ONCE(xib_ucma_max_ids) ||
		 file->nr_events >= READ_ONCE(xib_ucma_max_events))
		ret = -ENOMEM;
	if (ret) {
		mutex_unlock(&file->mutex);
		goto out;
	}
	ctx->cm_id = id;
	ctx->file = file;
	ctx->uid = READ_ONCE(lctx->uid);
	list_add_tail(&ctx->list, &file->ctxs);
	file->nr_ids++;
	/* Our handler's later calls for @id are about the new id. */
	id->context = ctx;
	xib_ucma_fill(e, ev, ctx->uid);
	e->ctx = ctx;
	e->listen = lctx;
	xib_ucma_queue(file, e);
	mutex_unlock(&file->mutex);
	up_read(&xib_ucma_move_rwsem);
	return 0;

out:
	up_read(&xib_ucma_move_rwsem);
	kfree(e);
	kfree(ctx);
	return ret;
}

/**
 * xib_ucma_handler() - xib_cma's event handler of every id of xib_ucma
 * @id: the id (its context is its struct xib_ucma_ctx; for a connection
 *	request, the listener's until we make the new one)
 * @ev: what happened
 *
 * Context: process; xib_cma holds the id's handler lock, so the id is
 * neither destroyed nor (MIGRATE_ID excluded besides) moved meanwhile.
 *
 * Return: 0, or for CONNECT_REQUEST non-zero to refuse the request.
 */
int xib_ucma_handler(struct xib_cma_id *id, const struct xib_cma_event *ev)
{
	struct xib_ucma_ctx *ctx = id->context;
	struct xib_ucma_file *file;
	struct xib_ucma_kevent *e;

	if (ev->event == XIB_CMA_EVENT_CONNECT_REQUEST)
		return xib_ucma_conn_request(id, ev);

	down_read(&xib_ucma_move_rwsem);
	file = ctx->file;
	e = xib_ucma_kevent_alloc(file, false);
	if (!e) {
		pr_warn_ratelimited("event %u lost: out of memory\n", ev->event);
		goto out;
	}
	e->ctx = ctx;
	if (ev->event == XIB_CMA_EVENT_MULTICAST_JOIN ||
	    ev->event == XIB_CMA_EVENT_MULTICAST_ERROR) {
		/* the membership lives until xib_cma left its group */
		e->mc = ev->mc_context;
		xib_ucma_fill(e, ev, e->mc->uid);
	} else {
		xib_ucma_fill(e, ev, READ_ONCE(ctx->uid));
	}
	mutex_lock(&file->mutex);
	if (file->closing)
		kfree(e);
	else
		xib_ucma_queue(file, e);
	mutex_unlock(&file->mutex);
out:
	up_read(&xib_ucma_move_rwsem);
	return 0;
}

static bool xib_ucma_has_events(struct xib_ucma_file *file)
{
	return READ_ONCE(file->nr_events) != 0;
}

/*
 * The first event, with file->read_mutex and file->mutex held, or an
 * error with neither held.  Events of an id being destroyed (out of the
 * handles already, and not the request of a new id) are dropped on the
 * way: their destroy would drop them anyway.
 */
static struct xib_ucma_kevent *xib_ucma_first(struct file *filp,
					      struct xib_ucma_file *file)
{
	struct xib_ucma_kevent *e;

	for (;;) {
		if (mutex_lock_interruptible(&file->read_mutex))
			return ERR_PTR(-EINTR);
		mutex_lock(&file->mutex);
		while ((e = list_first_entry_or_null(&file->events,
						     struct xib_ucma_kevent,
						     list)) &&
		       !e->listen && !e->ctx->visible)
			xib_ucma_unqueue(file, e);
		if (e)
			return e;
		mutex_unlock(&file->mutex);
		mutex_unlock(&file->read_mutex);
		if (filp->f_flags & O_NONBLOCK)
			return ERR_PTR(-EAGAIN);
		if (wait_event_interruptible(file->wait,
					     xib_ucma_has_events(file)))
			return ERR_PTR(-ERESTARTSYS);
	}
}

/**
 * xib_ucma_get_event() - XIB_UCMA_GET_EVENT
 * @filp: the file
 * @ev: the command as copied in (all zero: checked by the caller); the
 *	event is built here
 * @uev: where it goes
 *
 * The event is copied out before it leaves the queue and counts in its
 * id's events_reported only once the copy succeeded, so a failed
 * GET_EVENT loses nothing.  The new id of a CONNECT_REQUEST gets its
 * handle when the event is first taken.
 *
 * Return: 0, -EAGAIN, -EINTR/-ERESTARTSYS, -EFAULT, -ENOMEM.
 */
int xib_ucma_get_event(struct file *filp, struct xib_ucma_event *ev,
		       struct xib_ucma_event __user *uev)
{
	struct xib_ucma_file *file = filp->private_data;
	struct xib_ucma_kevent *e;
	struct xib_ucma_ctx *ctx;
	int ret = 0;
	u32 handle;

	e = xib_ucma_first(filp, file);
	if (IS_ERR(e))
		return PTR_ERR(e);
	ctx = e->ctx;
	if (!ctx->visible) {
		/* a request's new id: user space learns of it now */
		ret = xa_alloc(&file->handles, &handle, ctx, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (ret) {
			mutex_unlock(&file->mutex);
			goto out;
		}
		ctx->handle = handle;
		ctx->visible = true;
	}
	*ev = e->ev;
	ev->id = ctx->handle;
	ev->listen_id = e->listen ? e->listen->handle : 0;
	ev->mc_id = e->mc ? e->mc->handle : 0;
	e->reading = true;
	mutex_unlock(&file->mutex);

	if (copy_to_user(uev, ev, sizeof(*ev)))
		ret = -EFAULT;

	mutex_lock(&file->mutex);
	e->reading = false;
	if (e->purged) {
		kfree(e);
	} else if (!ret) {
		if (e->listen)
			e->listen->events_reported++;
		else
			ctx->events_reported++;
		/* a group's events count for it too, as in Linux */
		if (e->mc)
			e->mc->events_reported++;
		xib_ucma_unqueue(file, e);
	}
	mutex_unlock(&file->mutex);
out:
	mutex_unlock(&file->read_mutex);
	return ret;
}

/* --- the file ------------------------------------------------------------ */

static int xib_ucma_open(struct inode *inode, struct file *filp)
{
	struct xib_ucma_file *file;
	struct user_namespace *ns = current_user_ns();
	kuid_t uid = current_euid();
	int ret;

	ret = xib_uid_charge_capable(&xib_ucma_files_per_user, ns, uid,
				     READ_ONCE(xib_ucma_max_files_per_user));
	if (ret)
		return ret;
	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file) {
		xib_uid_uncharge(&xib_ucma_files_per_user, ns, uid);
		return -ENOMEM;
	}
	file->uid = uid;
	file->user_ns = ns;
	mutex_init(&file->mutex);
	INIT_LIST_HEAD(&file->ctxs);
	xa_init_flags(&file->handles, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&file->events);
	mutex_init(&file->read_mutex);
	init_waitqueue_head(&file->wait);
	file->memcg = get_mem_cgroup_from_mm(current->mm);
	filp->private_data = file;
	return stream_open(inode, filp);
}

static int xib_ucma_release(struct inode *inode, struct file *filp)
{
	struct xib_ucma_file *file = filp->private_data;
	struct xib_ucma_ctx *ctx;

	mutex_lock(&file->mutex);
	file->closing = true;	/* no new ids, no new events */
	for (;;) {
		ctx = list_first_entry_or_null(&file->ctxs,
					       struct xib_ucma_ctx, list);
		if (!ctx)
			break;
		if (ctx->visible)
			xa_erase(&file->handles, ctx->handle);
		ctx->visible = false;
		mutex_unlock(&file->mutex);
		xib_ucma_ctx_destroy(ctx);
		mutex_lock(&file->mutex);
	}
	mutex_unlock(&file->mutex);

	/* Every event was about an id of the file: all are gone. */
	WARN_ON(!list_empty(&file->events) || file->nr_ids);
	xa_destroy(&file->handles);
	mem_cgroup_put(file->memcg);
	mutex_destroy(&file->read_mutex);
	mutex_destroy(&file->mutex);
	xib_uid_uncharge(&xib_ucma_files_per_user, file->user_ns, file->uid);
	kfree(file);
	return 0;
}

static __poll_t xib_ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xib_ucma_file *file = filp->private_data;

	poll_wait(filp, &file->wait, wait);
	return xib_ucma_has_events(file) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* /proc/PID/fdinfo: what the channel holds (tests wait for a listener). */
static void xib_ucma_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct xib_ucma_file *file = filp->private_data;
	unsigned int listeners = 0;
	struct xib_ucma_ctx *ctx;

	mutex_lock(&file->mutex);
	list_for_each_entry(ctx, &file->ctxs, list)
		listeners += ctx->listening;
	seq_printf(m, "ids:\t%u\nlisteners:\t%u\nevents:\t%u\n", file->nr_ids,
		   listeners, file->nr_events);
	mutex_unlock(&file->mutex);
}

const struct file_operations xib_ucma_fops = {
	.owner = THIS_MODULE,
	.open = xib_ucma_open,
	.release = xib_ucma_release,
	.poll = xib_ucma_poll,
	.show_fdinfo = xib_ucma_show_fdinfo,
	.unlocked_ioctl = xib_ucma_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* Resource limits, not node permissions, bound what users can do. */
static struct miscdevice xib_ucma_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "xib_rdma_cm",
	.nodename = "xib/rdma_cm",
	.mode = 0666,
	.fops = &xib_ucma_fops,
};

static int __init xib_ucma_init(void)
{
	int ret;

	/* counts first: the device opens as soon as it is registered */
	xib_uid_count_init(&xib_ucma_files_per_user);
	ret = misc_register(&xib_ucma_misc);
	if (ret)
		xib_uid_count_destroy(&xib_ucma_files_per_user);
	return ret;
}

static void __exit xib_ucma_exit(void)
{
	misc_deregister(&xib_ucma_misc);
	/* every file was released before the module could go */
	xib_uid_count_destroy(&xib_ucma_files_per_user);
}

module_init(xib_ucma_init);
module_exit(xib_ucma_exit);

MODULE_DESCRIPTION("xib RDMA stack: user-space RDMA CM access (/dev/xib/rdma_cm)");
MODULE_LICENSE("GPL");
