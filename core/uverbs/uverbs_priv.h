/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of xib_uverbs.
 *
 * Lock order (outer first):
 *   xib_clients_rwsem (core; held around client remove, read or write)
 *   -> ctx->rwsem
 *   -> mm->mmap_lock
 *   -> ctx->umap_lock
 * and, all of them spinlocks that handlers take from any context:
 *   udev->ctx_lock -> ctx->channels_lock -> ev->lock
 * No command holds ctx->rwsem while it copies from or to user space.
 */
#ifndef _XIB_UVERBS_PRIV_H
#define _XIB_UVERBS_PRIV_H

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <xib/xib_verbs.h>

/**
 * struct xib_uverbs_device - a /dev/xib/uverbsN node
 * @dev: the class device; its refcount keeps this structure alive for
 *	open files after the xib device is gone
 * @cdev: the character device
 * @xdev: the xib device; NULL once it was removed (then open fails)
 * @lock: protects @xdev
 * @ctx_lock: protects @contexts and the @list and @async_ev of every
 *	context on it
 * @contexts: the open contexts not yet disassociated or closed
 * @event_handler: receives the device's port events
 */
struct xib_uverbs_device {
	struct device dev;
	struct cdev cdev;
	struct xib_device *xdev;
	struct mutex lock;		/* protects @xdev */
	spinlock_t ctx_lock;		/* protects @contexts */
	struct list_head contexts;
	struct xib_event_handler event_handler;
};

/**
 * struct xib_uverbs_ev_file - the queue behind an async event fd or a
 *	completion channel fd
 * @ref: one for the file, one for the context of an async queue
 * @lock: protects @events, @nr_events, @released, @dead, @seq and the
 *	per-object event lists (comp_list/async_list) of the objects
 *	queueing here
 * @events: struct xib_uverbs_event, oldest first
 * @nr_events: entries of @events
 * @wait: readers and pollers
 * @read_mutex: serialises readers
 * @released: the file was closed: drop new events
 * @dead: the device is gone: read() of an empty queue fails with -EIO
 * @seq: sequence number of the next event
 * @async: an async event queue (else a completion channel)
 * @ctx: completion channel: its context, with a reference
 * @ctx_list: completion channel: in @ctx->channels
 */
struct xib_uverbs_ev_file {
	struct kref ref;
	spinlock_t lock;		/* see above */
	struct list_head events;
	unsigned int nr_events;
	wait_queue_head_t wait;
	struct mutex read_mutex;	/* one reader at a time */
	bool released;
	bool dead;
	u64 seq;
	bool async;
	struct xib_uverbs_ctx *ctx;
	struct list_head ctx_list;
};

/**
 * struct xib_uverbs_event - one queued event
 * @list: in the queue's @events
 * @obj_list: in the object's list of unread events (empty if none)
 * @counter: the object's count of events read, or NULL
 * @seq: the queue's sequence number of this event
 * @desc: what read() returns
 */
struct xib_uverbs_event {
	struct list_head list;
	struct list_head obj_list;
	u32 *counter;
	u64 seq;
	union {
		struct xib_uverbs_comp_event comp;
		struct xib_uverbs_async_event async;
	} desc;
};

enum xib_uverbs_obj_type {
	XIB_UOBJ_PD,
	XIB_UOBJ_MR,
	XIB_UOBJ_CQ,
	XIB_UOBJ_QP,
	XIB_UOBJ_SRQ,
	XIB_UOBJ_AH,
	XIB_UOBJ_MW,
	XIB_UOBJ_XRCD,
};

/**
 * struct xib_uverbs_uobj - what a handle names
 * @ctx: the owning context
 * @type: enum xib_uverbs_obj_type
 * @handle: index in @ctx->handles
 * @usecnt: commands using the object (> 0), or -1 while it is destroyed
 * @committed: the create command returned to user space; until then
 *	lookups do not find it.  Under the xa_lock of @ctx->handles.
 * @object: the core object (struct xib_pd, ...)
 * @user_handle: the consumer's name, returned in events
 * @comp_list: unread completion events (under @comp_ev->lock)
 * @async_list: unread async events (under the async queue's lock)
 * @comp_reported: completion events read() so far (under @comp_ev->lock)
 * @async_reported: async events read() so far (under the async lock)
 * @comp_ev: CQ: its completion channel, or NULL
 * @comp_filp: CQ: the channel's file, with a reference
 * @pd_handle: QP: the handle of its PD, for QUERY_QP
 * @send_cq_handle: QP: the handle of its send CQ
 * @recv_cq_handle: QP: the handle of its receive CQ
 * @srq_handle: QP: the handle of its SRQ, or XIB_UVERBS_NO_HANDLE
 * @xrcd_uobj: XRC SRQ: the XRCD handle it was created through, which
 *	cannot be closed before it
 * @xrcd_users: XRCD: the context's objects created through this handle
 */
struct xib_uverbs_uobj {
	struct xib_uverbs_ctx *ctx;
	enum xib_uverbs_obj_type type;
	u32 handle;
	atomic_t usecnt;
	bool committed;
	void *object;
	u64 user_handle;
	struct list_head comp_list;
	struct list_head async_list;
	u32 comp_reported;
	u32 async_reported;
	struct xib_uverbs_ev_file *comp_ev;
	struct file *comp_filp;
	u32 pd_handle;
	u32 send_cq_handle;
	u32 recv_cq_handle;
	u32 srq_handle;
	struct xib_uverbs_uobj *xrcd_uobj;
	atomic_t xrcd_users;
};

enum xib_uverbs_ctx_state {
	XIB_UCTX_NEW,		/* no GET_CONTEXT yet */
	XIB_UCTX_PENDING,	/* GET_CONTEXT is copying out */
	XIB_UCTX_LIVE,
};

/**
 * struct xib_uverbs_ctx - one open of /dev/xib/uverbsN
 * @ref: the file's, a removal walk's and each completion channel's
 * @udev: the node, with a reference on @udev->dev
 * @xdev: the device, with a reference; NULL once @closed
 * @list: in @udev->contexts (under @udev->ctx_lock); empty once taken off
 * @rwsem: held for read by every command, for write by GET_CONTEXT and
 *	by teardown (close, disassociation)
 * @state: enum xib_uverbs_ctx_state; under @rwsem
 * @disassociated: the device was removed; under @rwsem
 * @closed: every object is destroyed and @uctx cleaned up; under @rwsem
 * @handles: handle -> struct xib_uverbs_uobj (XA_FLAGS_ALLOC); changed
 *	under @rwsem (read suffices), its xa_lock protects lookups
 * @async_ev: the async event queue once LIVE (a reference); set under
 *	@udev->ctx_lock, never changed after
 * @channels_lock: protects @channels
 * @channels: the context's completion channels
 * @umap_lock: protects @umaps and @mm_dead
 * @umaps: struct xib_uverbs_umap of every VMA mapping this context
 * @mm_dead: mappings were zapped; mmap() fails with -EIO
 * @uctx: the core's user context
 */
struct xib_uverbs_ctx {
	struct kref ref;
	struct xib_uverbs_device *udev;
	struct xib_device *xdev;
	struct list_head list;
	struct rw_semaphore rwsem;	/* see above */
	enum xib_uverbs_ctx_state state;
	bool disassociated;
	bool closed;
	struct xarray handles;
	struct xib_uverbs_ev_file *async_ev;
	spinlock_t channels_lock;	/* protects @channels */
	struct list_head channels;
	struct mutex umap_lock;		/* protects @umaps, @mm_dead */
	struct list_head umaps;
	bool mm_dead;
	struct xib_ucontext uctx;
};

/* Bookkeeping for what an ioctl does after its copy-out. */
struct xib_uverbs_out {
	u32 commit_handle;		/* XIB_UVERBS_NO_HANDLE: none */
	struct file *file;		/* install at @fd on success */
	int fd;
	bool get_context;		/* GET_CONTEXT commit */
	struct xib_uverbs_ev_file *async_ev;
	struct xib_ucontext_resp uresp;	/* GET_CONTEXT: what to unpublish */
};

/* uverbs_main.c */
void xib_uverbs_ctx_put(struct xib_uverbs_ctx *ctx);

/* uverbs_event.c */
extern const struct file_operations xib_uverbs_comp_fops;
extern const struct file_operations xib_uverbs_async_fops;
struct xib_uverbs_ev_file *xib_uverbs_ev_alloc(bool async);
void xib_uverbs_ev_put(struct xib_uverbs_ev_file *ev);
void xib_uverbs_ev_kill(struct xib_uverbs_ev_file *ev);
void xib_uverbs_queue_async(struct xib_uverbs_ev_file *ev, u64 element,
			    u32 type, struct xib_uverbs_uobj *uobj);
void xib_uverbs_purge(struct xib_uverbs_ev_file *ev, struct list_head *list,
		      u32 *counter, u32 *reported);
void xib_uverbs_cq_comp_handler(struct xib_cq *cq);
void xib_uverbs_cq_event_handler(struct xib_cq *cq, enum xib_event_type type);
void xib_uverbs_qp_event_handler(struct xib_qp *qp, enum xib_event_type type);
void xib_uverbs_srq_event_handler(struct xib_srq *srq,
				  enum xib_event_type type);
void xib_uverbs_port_event(struct xib_event_handler *handler,
			   const struct xib_event *event);

/* uverbs_mmap.c */
int xib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma);
void xib_uverbs_zap_mappings(struct xib_uverbs_ctx *ctx);

/* uverbs_cmd.c */
long xib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
void xib_uverbs_destroy_all(struct xib_uverbs_ctx *ctx);

#endif /* _XIB_UVERBS_PRIV_H */
