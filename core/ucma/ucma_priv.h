/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of xib_ucma.
 *
 * Objects: one struct xib_ucma_file per open() of /dev/xib/rdma_cm (an
 * event channel), one struct xib_ucma_ctx per RDMA CM id it owns, one
 * struct xib_ucma_mc per multicast group an id joined, one struct
 * xib_ucma_kevent per queued event.
 *
 * Lock order (outer first):
 *   the xib_cma id's handler lock (held by xib_cma around our handler)
 *   -> xib_ucma_move_rwsem (read: queueing an event; write: MIGRATE_ID)
 *   -> file->read_mutex (GET_EVENT past its wait)
 *   -> file->mutex (two files: the lower address first)
 *   -> the lock of xib_ucma_mcs (the xarray's spinlock)
 * No command calls into xib_cma, sleeps for an event or copies to or
 * from user space with file->mutex held, so the RDMA CM's handlers (which
 * take it) never wait for user space.
 */
#ifndef _XIB_UCMA_PRIV_H
#define _XIB_UCMA_PRIV_H

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/xib/ucma.h>
#include <xib/xib_cma.h>

/**
 * struct xib_ucma_file - an open /dev/xib/rdma_cm: one event channel
 * @mutex: protects every field below it but @wait, @memcg, @uid and
 *	@user_ns, and the
 *	@file, @list, @handle, @visible, @listening and @events_reported
 *	of the ids on @ctxs
 * @ctxs: every id of the file (struct xib_ucma_ctx.list), those whose
 *	CONNECT_REQUEST was not read yet included
 * @handles: the ids user space knows, by handle
 * @nr_ids: the ids on @ctxs, bounded by max_ids_per_file
 * @events: queued events, oldest first (struct xib_ucma_kevent.list)
 * @nr_events: how many; see xib_ucma_room() for the bound
 * @closing: release has begun: events are dropped, requests refused
 * @read_mutex: one GET_EVENT at a time between taking an event and
 *	committing it (it is held across the copy to user space)
 * @wait: GET_EVENT and poll() wait here for an event
 * @memcg: the opener's memory cgroup (a reference), charged for what
 *	the RDMA CM's handlers allocate for this file
 * @uid: the opener's effective uid, charged one channel of
 *	max_channels_per_user until the release; fixed at open
 * @user_ns: the opener's user namespace (a reference until the release),
 *	with @uid the (namespace, uid) charged
 */
struct xib_ucma_file {
	struct mutex mutex;		/* protects the fields below */
	struct list_head ctxs;
	struct xarray handles;
	unsigned int nr_ids;
	struct list_head events;
	unsigned int nr_events;
	bool closing;

	struct mutex read_mutex;	/* see above */
	wait_queue_head_t wait;
	struct mem_cgroup *memcg;
	kuid_t uid;
	struct user_namespace *user_ns;
};

/**
 * struct xib_ucma_ctx - an RDMA CM id of a file
 * @cm_id: the xib_cma id; its context is this structure
 * @file: the file whose channel gets the id's events; changes only
 *	under xib_ucma_move_rwsem (write) and both files' mutexes
 * @list: on @file->ctxs
 * @handle: the id's handle in @file->handles, once @visible
 * @visible: user space knows the id (created by CREATE_ID, or its
 *	CONNECT_REQUEST was read)
 * @listening: LISTEN succeeded on it (for fdinfo)
 * @uid: echoed in the id's events; set by CREATE_ID (a new id of a
 *	connection request: the listener's) and by ACCEPT
 * @events_reported: events of the id GET_EVENT returned (for a
 *	listener: its CONNECT_REQUESTs), on every channel it was on
 * @ref: one for being findable by handle, one per command using the id
 * @unused: completed when @ref drops to zero: no command uses the id
 * @mcs: the multicast groups joined (struct xib_ucma_mc.list), under
 *	@file->mutex
 * @nr_mcs: entries of @mcs and joins under way, bounded by
 *	max_mcast_per_id; under @file->mutex
 */
struct xib_ucma_ctx {
	struct xib_cma_id *cm_id;
	struct xib_ucma_file *file;
	struct list_head list;
	u32 handle;
	bool visible;
	bool listening;
	u64 uid;
	u32 events_reported;
	refcount_t ref;
	struct completion unused;
	struct list_head mcs;
	unsigned int nr_mcs;
};

/**
 * struct xib_ucma_mc - a multicast group an id joined (JOIN_MCAST)
 * @ctx: the id
 * @list: on @ctx->mcs
 * @handle: the membership's handle in xib_ucma_mcs (the ABI's mc_id)
 * @uid: echoed in the group's events
 * @addr: the group's address
 * @events_reported: the group's events GET_EVENT returned
 *
 * Found by handle in xib_ucma_mcs (global, as a membership follows its id
 * from channel to channel); taken out of it, under its file's mutex, by
 * whoever frees it: LEAVE_MCAST or the id's destroy.  @list and
 * @events_reported are under @ctx->file->mutex.
 */
struct xib_ucma_mc {
	struct xib_ucma_ctx *ctx;
	struct list_head list;
	u32 handle;
	u64 uid;
	struct sockaddr_storage addr;
	u32 events_reported;
};

/**
 * struct xib_ucma_kevent - a queued event
 * @list: on the file's @events
 * @ctx: the event's id (CONNECT_REQUEST: the new id)
 * @listen: CONNECT_REQUEST: the listener, else NULL
 * @mc: multicast events: the membership, else NULL
 * @reading: GET_EVENT copies it to user space (file->read_mutex held)
 * @purged: its id went while @reading: it is off the queue, and the
 *	reader frees it
 * @ev: what GET_EVENT returns, but the handles (filled in when read)
 */
struct xib_ucma_kevent {
	struct list_head list;
	struct xib_ucma_ctx *ctx;
	struct xib_ucma_ctx *listen;
	struct xib_ucma_mc *mc;
	bool reading;
	bool purged;
	struct xib_ucma_event ev;
};

extern struct rw_semaphore xib_ucma_move_rwsem;
extern unsigned int xib_ucma_max_ids;
extern unsigned int xib_ucma_max_events;
extern unsigned int xib_ucma_max_mcs;
extern struct xarray xib_ucma_mcs;
extern const struct file_operations xib_ucma_fops;

bool xib_ucma_room(struct xib_ucma_file *file);
struct xib_ucma_ctx *xib_ucma_ctx_alloc(void);
void xib_ucma_ctx_put(struct xib_ucma_ctx *ctx);
u32 xib_ucma_ctx_destroy(struct xib_ucma_ctx *ctx);
u32 xib_ucma_mc_unqueue(struct xib_ucma_mc *mc);
int xib_ucma_handler(struct xib_cma_id *id, const struct xib_cma_event *ev);
int xib_ucma_get_event(struct file *filp, struct xib_ucma_event *ev,
		       struct xib_ucma_event __user *uev);
long xib_ucma_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _XIB_UCMA_PRIV_H */
