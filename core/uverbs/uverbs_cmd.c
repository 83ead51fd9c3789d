// SPDX-License-Identifier: GPL-2.0
/*
 * xib_uverbs commands: the ioctls of include/uapi/xib/uverbs.h.
 *
 * Each command is copied in whole before ctx->rwsem is taken, checked
 * (reserved and "out" fields zero, no unknown flags), executed under the
 * rwsem held for read, and copied out after the rwsem is dropped.  A new
 * object's handle is reserved at creation but found by lookups only once
 * the copy-out succeeded ("commit"); if it failed, the object is
 * destroyed again, so a failed command changes nothing.
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/netdevice.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uverbs_priv.h"

#define XIB_QP_ATTR_MASK_ALL						\
	(XIB_QP_STATE | XIB_QP_CUR_STATE | XIB_QP_EN_SQD_ASYNC_NOTIFY |	\
	 XIB_QP_ACCESS_FLAGS | XIB_QP_PKEY_INDEX | XIB_QP_PORT |	\
	 XIB_QP_QKEY | XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_TIMEOUT |	\
	 XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY | XIB_QP_RQ_PSN |		\
	 XIB_QP_MAX_QP_RD_ATOMIC | XIB_QP_ALT_PATH |			\
	 XIB_QP_MIN_RNR_TIMER | XIB_QP_SQ_PSN |				\
	 XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_PATH_MIG_STATE |		\
	 XIB_QP_CAP | XIB_QP_DEST_QPN | XIB_QP_RATE_LIMIT)

#define XIB_UVERBS_NUM_COMP_VECTORS	1

/* Command flags */
#define XIB_CMD_LIVE	BIT(0)	/* needs GET_CONTEXT first */
#define XIB_CMD_VERBS	BIT(1)	/* needs a device with verbs */
#define XIB_CMD_WRITE	BIT(2)	/* takes ctx->rwsem for write */

union xib_uverbs_cmd_buf {
	struct xib_uverbs_get_context get_context;
	struct xib_uverbs_query_device query_device;
	struct xib_uverbs_query_port query_port;
	struct xib_uverbs_query_gid query_gid;
	struct xib_uverbs_query_pkey query_pkey;
	struct xib_uverbs_alloc_pd alloc_pd;
	struct xib_uverbs_destroy destroy;
	struct xib_uverbs_reg_mr reg_mr;
	struct xib_uverbs_rereg_mr rereg_mr;
	struct xib_uverbs_create_comp_channel create_comp_channel;
	struct xib_uverbs_create_cq create_cq;
	struct xib_uverbs_resize_cq resize_cq;
	struct xib_uverbs_destroy_events destroy_events;
	struct xib_uverbs_create_qp create_qp;
	struct xib_uverbs_modify_qp modify_qp;
	struct xib_uverbs_query_qp query_qp;
	struct xib_uverbs_create_srq create_srq;
	struct xib_uverbs_modify_srq modify_srq;
	struct xib_uverbs_query_srq query_srq;
	struct xib_uverbs_resize_srq resize_srq;
	struct xib_uverbs_create_ah create_ah;
	struct xib_uverbs_mcast mcast;
	struct xib_uverbs_alloc_mw alloc_mw;
	struct xib_uverbs_open_xrcd open_xrcd;
	struct xib_uverbs_create_xsrq create_xsrq;
	struct xib_uverbs_open_qp open_qp;
};

/* True if the @len bytes at @p are all zero. */
static bool xib_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* The bytes of a @size byte structure @s from offset @off on are zero. */
static bool xib_zero_from(const void *s, size_t size, size_t off)
{
	return xib_zero((const u8 *)s + off, size - off);
}

/* --- handles ------------------------------------------------------------- */

/* Reserve a handle for a new object; lookups do not find it yet. */
static struct xib_uverbs_uobj *
xib_uobj_new(struct xib_uverbs_ctx *ctx, enum xib_uverbs_obj_type type,
	     u64 user_handle)
{
	struct xib_uverbs_uobj *uobj;
	int ret;

	lockdep_assert_held(&ctx->rwsem);
	uobj = kzalloc(sizeof(*uobj), GFP_KERNEL);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	uobj->ctx = ctx;
	uobj->type = type;
	uobj->user_handle = user_handle;
	INIT_LIST_HEAD(&uobj->comp_list);
	INIT_LIST_HEAD(&uobj->async_list);
	uobj->srq_handle = XIB_UVERBS_NO_HANDLE;
	ret = xa_alloc(&ctx->handles, &uobj->handle, uobj,
		       XA_LIMIT(0, XIB_UVERBS_NO_HANDLE - 1), GFP_KERNEL);
	if (ret) {
		kfree(uobj);
		return ERR_PTR(ret == -EBUSY ? -ENOMEM : ret);
	}
	return uobj;
}

/* Undo xib_uobj_new() before an object was created. */
static void xib_uobj_abort(struct xib_uverbs_uobj *uobj)
{
	xa_erase(&uobj->ctx->handles, uobj->handle);
	kfree(uobj);
}

/*
 * Look up a committed object of @type for use by a command (shared), or
 * for destruction (@excl: fails with -EBUSY while others use it).
 */
static struct xib_uverbs_uobj *
xib_uobj_get(struct xib_uverbs_ctx *ctx, u32 handle,
	     enum xib_uverbs_obj_type type, bool excl)
{
	struct xib_uverbs_uobj *uobj;
	int ret = 0;

	lockdep_assert_held(&ctx->rwsem);
	xa_lock(&ctx->handles);
	uobj = xa_load(&ctx->handles, handle);
	if (!uobj || !uobj->committed || uobj->type != type)
		ret = -ENOENT;
	else if (excl && atomic_cmpxchg(&uobj->usecnt, 0, -1) != 0)
		ret = -EBUSY;
	else if (!excl && !atomic_inc_unless_negative(&uobj->usecnt))
		ret = -EBUSY;
	xa_unlock(&ctx->handles);
	return ret ? ERR_PTR(ret) : uobj;
}

static void xib_uobj_put(struct xib_uverbs_uobj *uobj)
{
	atomic_dec(&uobj->usecnt);
}

/*
 * Destroy the object of @uobj and free @uobj.  On success returns 0 and
 * the events the object delivered (its unread ones are dropped); on
 * failure (-EBUSY: still used by another object) nothing changed.
 */
static int xib_uobj_destroy(struct xib_uverbs_uobj *uobj, u32 *comp_reported,
			    u32 *async_reported)
{
	struct xib_uverbs_ctx *ctx = uobj->ctx;
	u32 comp = 0, async = 0;
	bool xrc;
	int ret;

	lockdep_assert_held(&ctx->rwsem);
	switch (uobj->type) {
	case XIB_UOBJ_PD:
		ret = xib_dealloc_pd(uobj->object);
		break;
	case XIB_UOBJ_MR:
		ret = xib_dereg_mr(uobj->object);
		break;
	case XIB_UOBJ_CQ:
		ret = xib_destroy_cq(uobj->object);
		break;
	case XIB_UOBJ_QP:
		/* each handle to an XRC target counts in its context */
		xrc = ((struct xib_qp *)uobj->object)->xrcd;
		ret = xib_destroy_qp(uobj->object);
		if (!ret && xrc)
			xib_ucontext_uncharge(&ctx->uctx, XIB_RES_QP);
		break;
	case XIB_UOBJ_SRQ:
		ret = xib_destroy_srq(uobj->object);
		break;
	case XIB_UOBJ_AH:
		ret = xib_destroy_ah(uobj->object);
		break;
	case XIB_UOBJ_MW:
		ret = xib_dealloc_mw(uobj->object);
		break;
	case XIB_UOBJ_XRCD:
		ret = 0;
		if (atomic_read(&uobj->xrcd_users))
			ret = -EBUSY;
		else
			xib_close_xrcd(uobj->object, &ctx->uctx);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	if (ret)
		return ret;
	if (uobj->xrcd_uobj)
		atomic_dec(&uobj->xrcd_uobj->xrcd_users);

	/* The driver calls no handler of the object any more. */
	if (uobj->comp_ev)
		xib_uverbs_purge(uobj->comp_ev, &uobj->comp_list,
				 &uobj->comp_reported, &comp);
	if (ctx->async_ev)
		xib_uverbs_purge(ctx->async_ev, &uobj->async_list,
				 &uobj->async_reported, &async);
	if (uobj->comp_filp)
		fput(uobj->comp_filp);
	xa_erase(&ctx->handles, uobj->handle);
	kfree(uobj);
	if (comp_reported)
		*comp_reported = comp;
	if (async_reported)
		*async_reported = async;
	return 0;
}

/**
 * xib_uverbs_destroy_all() - destroy every object of a context
 * @ctx: the context, with @ctx->rwsem held for write
 *
 * Goes in dependency order (AH, QP, MW, SRQ, XRCD, CQ, MR, PD: a bound window
 * keeps its MR) and repeats while that makes progress, since -EBUSY
 * resolves as dependents go.
 */
void xib_uverbs_destroy_all(struct xib_uverbs_ctx *ctx)
{
	static const enum xib_uverbs_obj_type order[] = {
		XIB_UOBJ_AH, XIB_UOBJ_QP, XIB_UOBJ_MW, XIB_UOBJ_SRQ,
		XIB_UOBJ_XRCD, XIB_UOBJ_CQ, XIB_UOBJ_MR, XIB_UOBJ_PD,
	};
	struct xib_uverbs_uobj *uobj;
	unsigned long index;
	bool progress;
	int i;

	lockdep_assert_held_write(&ctx->rwsem);
	do {
		progress = false;
		for (i = 0; i < ARRAY_SIZE(order); i++)
			xa_for_each(&ctx->handles, index, uobj)
				if (uobj->type == order[i] &&
				    !xib_uobj_destroy(uobj, NULL, NULL))
					progress = true;
	} while (progress && !xa_empty(&ctx->handles));
	WARN_ON(!xa_empty(&ctx->handles));
}

/* --- commands that need no context ---------------------------------------- */

static int xib_cmd_query_device(struct xib_uverbs_ctx *ctx, void *buf,
				struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_device *cmd = buf;

	if (!xib_zero(cmd, sizeof(*cmd)))
		return -EINVAL;
	xib_query_device(ctx->xdev, &cmd->attr);
	return 0;
}

static int xib_check_port(struct xib_uverbs_ctx *ctx, u32 port)
{
	return port && port <= ctx->xdev->phys_port_cnt ? 0 : -EINVAL;
}

static int xib_cmd_query_port(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_port *cmd = buf;

	if (cmd->reserved || !xib_zero(&cmd->attr, sizeof(cmd->attr)))
		return -EINVAL;
	if (xib_check_port(ctx, cmd->port_num))
		return -EINVAL;
	return xib_query_port_attr(ctx->xdev, cmd->port_num, &cmd->attr);
}

static int xib_cmd_query_gid(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_gid *cmd = buf;
	struct xib_device *xdev = ctx->xdev;
	struct net_device *ndev;
	int ret;

	if (!xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_query_gid, gid)))
		return -EINVAL;
	if (xib_check_port(ctx, cmd->port_num))
		return -EINVAL;
	ret = xib_query_gid(xdev, cmd->port_num, cmd->index, cmd->gid);
	if (ret)
		return ret;
	cmd->gid_type = XIB_GID_TYPE_ROCE_V2;
	if (xdev->ops->get_netdev) {
		ndev = xdev->ops->get_netdev(xdev, cmd->port_num);
		if (ndev) {
			cmd->ndev_ifindex = ndev->ifindex;
			dev_put(ndev);
		}
	}
	return 0;
}

static int xib_cmd_query_pkey(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_pkey *cmd = buf;

	if (cmd->pkey || cmd->reserved0 || cmd->reserved1)
		return -EINVAL;
	if (xib_check_port(ctx, cmd->port_num) || cmd->index)
		return -EINVAL;
	cmd->pkey = 0xffff;
	return 0;
}

/* --- the context ---------------------------------------------------------- */

static int xib_cmd_get_context(struct xib_uverbs_ctx *ctx, void *buf,
			       struct xib_uverbs_out *out)
{
	struct xib_uverbs_get_context *cmd = buf;
	struct xib_device *xdev = ctx->xdev;
	struct xib_ucontext_resp *resp = &out->uresp;
	struct xib_uverbs_ev_file *ev;
	struct file *file;
	int fd, ret;

	lockdep_assert_held_write(&ctx->rwsem);
	if (!xib_zero(cmd, sizeof(*cmd)))
		return -EINVAL;
	if (ctx->state != XIB_UCTX_NEW)
		return -EEXIST;

	ev = xib_uverbs_ev_alloc(true);
	if (!ev)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_put_ev;
	}
	kref_get(&ev->ref);	/* the file's */
	file = anon_inode_getfile("[xib_async]", &xib_uverbs_async_fops, ev,
				  O_RDONLY);
	if (IS_ERR(file)) {
		xib_uverbs_ev_put(ev);
		ret = PTR_ERR(file);
		goto err_put_fd;
	}
	memset(resp, 0, sizeof(*resp));
	if (xdev->ops->alloc_ucontext) {
		ret = xdev->ops->alloc_ucontext(&ctx->uctx, resp);
		if (ret)
			goto err_fput;
	}

	cmd->abi_version = XIB_UVERBS_ABI_VERSION;
	cmd->async_fd = fd;
	cmd->num_comp_vectors = XIB_UVERBS_NUM_COMP_VECTORS;
	cmd->db_mmap_size = resp->db_size;
	cmd->db_mmap_offset = resp->db_offset;
	cmd->db_kind = resp->db_kind;
	if (resp->db_kind == XIB_UVERBS_DB_MMIO) {
		cmd->uar_db_reg = resp->uar_db_reg;
		cmd->uar_db_value = resp->uar_db_value;
		cmd->uar_mmap_offset = resp->uar_offset;
	}

	ctx->state = XIB_UCTX_PENDING;
	out->get_context = true;
	out->async_ev = ev;
	out->file = file;
	out->fd = fd;
	return 0;

err_fput:
	fput(file);
err_put_fd:
	put_unused_fd(fd);
err_put_ev:
	xib_uverbs_ev_put(ev);
	return ret;
}

/* GET_CONTEXT after its copy-out: go live, or back to NEW. */
static int xib_get_context_finish(struct xib_uverbs_ctx *ctx,
				  struct xib_uverbs_out *out, int ret)
{
	down_write(&ctx->rwsem);
	if (ctx->disassociated) {
		ret = -EIO;
	} else if (ret) {
		if (out->uresp.db_size)
			xib_mmap_unpublish(&ctx->uctx, out->uresp.db_offset);
		if (out->uresp.db_kind == XIB_UVERBS_DB_MMIO)
			xib_mmap_unpublish(&ctx->uctx, out->uresp.uar_offset);
		ctx->state = XIB_UCTX_NEW;
	} else {
		spin_lock_irq(&ctx->udev->ctx_lock);
		WRITE_ONCE(ctx->async_ev, out->async_ev); /* creation ref */
		out->async_ev = NULL;
		spin_unlock_irq(&ctx->udev->ctx_lock);
		ctx->state = XIB_UCTX_LIVE;
	}
	up_write(&ctx->rwsem);
	if (out->async_ev)
		xib_uverbs_ev_put(out->async_ev);
	return ret;
}

static int xib_cmd_create_comp_channel(struct xib_uverbs_ctx *ctx, void *buf,
				       struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_comp_channel *cmd = buf;
	struct xib_uverbs_ev_file *ev;
	struct file *file;
	int fd;

	if (cmd->fd || cmd->reserved)
		return -EINVAL;
	ev = xib_uverbs_ev_alloc(false);
	if (!ev)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		xib_uverbs_ev_put(ev);
		return fd;
	}
	/* The file owns the creation reference of @ev from here on. */
	file = anon_inode_getfile("[xib_comp]", &xib_uverbs_comp_fops, ev,
				  O_RDONLY);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		xib_uverbs_ev_put(ev);
		return PTR_ERR(file);
	}
	kref_get(&ctx->ref);
	ev->ctx = ctx;
	spin_lock_irq(&ctx->channels_lock);
	list_add_tail(&ev->ctx_list, &ctx->channels);
	spin_unlock_irq(&ctx->channels_lock);

	cmd->fd = fd;
	out->file = file;
	out->fd = fd;
	return 0;
}

/* --- PD, MR, AH ------------------------------------------------------------ */

static int xib_cmd_alloc_pd(struct xib_uverbs_ctx *ctx, void *buf,
			    struct xib_uverbs_out *out)
{
	struct xib_uverbs_alloc_pd *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	struct xib_pd *pd;

	if (!xib_zero(cmd, sizeof(*cmd)))
		return -EINVAL;
	uobj = xib_uobj_new(ctx, XIB_UOBJ_PD, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = xib_alloc_pd(ctx->xdev, &ctx->uctx);
	if (IS_ERR(pd)) {
		xib_uobj_abort(uobj);
		return PTR_ERR(pd);
	}
	uobj->object = pd;
	cmd->pd_handle = uobj->handle;
	cmd->pdn = pd->pdn;
	out->commit_handle = uobj->handle;
	return 0;
}

static int xib_cmd_destroy_simple(struct xib_uverbs_ctx *ctx, void *buf,
				  enum xib_uverbs_obj_type type)
{
	struct xib_uverbs_destroy *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->handle, type, true);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_uobj_destroy(uobj, NULL, NULL);
	if (ret)
		atomic_set(&uobj->usecnt, 0);
	return ret;
}

static int xib_cmd_dealloc_pd(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_simple(ctx, buf, XIB_UOBJ_PD);
}

static int xib_cmd_dereg_mr(struct xib_uverbs_ctx *ctx, void *buf,
			    struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_simple(ctx, buf, XIB_UOBJ_MR);
}

static int xib_cmd_destroy_ah(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_simple(ctx, buf, XIB_UOBJ_AH);
}

static int xib_cmd_reg_mr(struct xib_uverbs_ctx *ctx, void *buf,
			  struct xib_uverbs_out *out)
{
	struct xib_uverbs_reg_mr *cmd = buf;
	struct xib_uverbs_uobj *uobj, *pd_uobj;
	struct xib_mr *mr;

	if (!xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_reg_mr, mr_handle)))
		return -EINVAL;
	if (!cmd->length || (cmd->access & ~XIB_ACCESS_MR_SUPPORTED))
		return -EINVAL;
	pd_uobj = xib_uobj_get(ctx, cmd->pd_handle, XIB_UOBJ_PD, false);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xib_uobj_new(ctx, XIB_UOBJ_MR, 0);
	if (IS_ERR(uobj)) {
		xib_uobj_put(pd_uobj);
		return PTR_ERR(uobj);
	}
	mr = xib_reg_user_mr(pd_uobj->object, cmd->addr, cmd->length,
			     cmd->iova, cmd->access);
	xib_uobj_put(pd_uobj);
	if (IS_ERR(mr)) {
		xib_uobj_abort(uobj);
		return PTR_ERR(mr);
	}
	uobj->object = mr;
	cmd->mr_handle = uobj->handle;
	cmd->lkey = mr->lkey;
	cmd->rkey = mr->rkey;
	out->commit_handle = uobj->handle;
	return 0;
}

static int xib_cmd_rereg_mr(struct xib_uverbs_ctx *ctx, void *buf,
			    struct xib_uverbs_out *out)
{
	struct xib_uverbs_rereg_mr *cmd = buf;
	struct xib_uverbs_uobj *uobj, *pd_uobj = NULL;
	struct xib_pd *pd = NULL;
	struct xib_mr *mr;

	if (!cmd->flags || (cmd->flags & ~XIB_REREG_MR_SUPPORTED) ||
	    cmd->lkey || cmd->rkey)
		return -EINVAL;
	if (!(cmd->flags & XIB_REREG_MR_CHANGE_TRANSLATION) &&
	    (cmd->addr || cmd->length || cmd->iova))
		return -EINVAL;
	if (!(cmd->flags & XIB_REREG_MR_CHANGE_PD) && cmd->pd_handle)
		return -EINVAL;
	if (!(cmd->flags & XIB_REREG_MR_CHANGE_ACCESS) && cmd->access)
		return -EINVAL;
	if (cmd->access & ~XIB_ACCESS_MR_SUPPORTED)
		return -EINVAL;
	/* Exclusive: no other command may use the MR while it is replaced. */
	uobj = xib_uobj_get(ctx, cmd->mr_handle, XIB_UOBJ_MR, true);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (cmd->flags & XIB_REREG_MR_CHANGE_PD) {
		pd_uobj = xib_uobj_get(ctx, cmd->pd_handle, XIB_UOBJ_PD, false);
		if (IS_ERR(pd_uobj)) {
			atomic_set(&uobj->usecnt, 0);
			return PTR_ERR(pd_uobj);
		}
		pd = pd_uobj->object;
	}
	mr = xib_rereg_user_mr(uobj->object, cmd->flags, pd, cmd->addr,
			       cmd->length, cmd->iova, cmd->access);
	if (pd_uobj)
		xib_uobj_put(pd_uobj);
	if (!IS_ERR(mr)) {
		uobj->object = mr;
		cmd->lkey = mr->lkey;
		cmd->rkey = mr->rkey;
	}
	atomic_set(&uobj->usecnt, 0);
	return PTR_ERR_OR_ZERO(mr);
}

static int xib_cmd_alloc_mw(struct xib_uverbs_ctx *ctx, void *buf,
			    struct xib_uverbs_out *out)
{
	struct xib_uverbs_alloc_mw *cmd = buf;
	struct xib_uverbs_uobj *uobj, *pd_uobj;
	struct xib_mw *mw;

	if (!xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_alloc_mw, mw_handle)))
		return -EINVAL;
	if (cmd->type != XIB_MW_TYPE_1 && cmd->type != XIB_MW_TYPE_2)
		return -EINVAL;
	pd_uobj = xib_uobj_get(ctx, cmd->pd_handle, XIB_UOBJ_PD, false);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xib_uobj_new(ctx, XIB_UOBJ_MW, 0);
	if (IS_ERR(uobj)) {
		xib_uobj_put(pd_uobj);
		return PTR_ERR(uobj);
	}
	mw = xib_alloc_mw(pd_uobj->object, cmd->type);
	xib_uobj_put(pd_uobj);
	if (IS_ERR(mw)) {
		xib_uobj_abort(uobj);
		return PTR_ERR(mw);
	}
	uobj->object = mw;
	cmd->mw_handle = uobj->handle;
	cmd->rkey = mw->rkey;
	out->commit_handle = uobj->handle;
	return 0;
}

static int xib_cmd_dealloc_mw(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_simple(ctx, buf, XIB_UOBJ_MW);
}

static int xib_cmd_create_ah(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_ah *cmd = buf;
	struct xib_uverbs_uobj *uobj, *pd_uobj;
	struct xib_ah *ah;

	if (cmd->reserved || cmd->attr.reserved || cmd->ah_handle || cmd->ahn)
		return -EINVAL;
	pd_uobj = xib_uobj_get(ctx, cmd->pd_handle, XIB_UOBJ_PD, false);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = xib_uobj_new(ctx, XIB_UOBJ_AH, cmd->user_handle);
	if (IS_ERR(uobj)) {
		xib_uobj_put(pd_uobj);
		return PTR_ERR(uobj);
	}
	ah = xib_create_ah(pd_uobj->object, &ctx->uctx, &cmd->attr);
	xib_uobj_put(pd_uobj);
	if (IS_ERR(ah)) {
		xib_uobj_abort(uobj);
		return PTR_ERR(ah);
	}
	ah->user_handle = cmd->user_handle;
	uobj->object = ah;
	cmd->ah_handle = uobj->handle;
	cmd->ahn = ah->ahn;
	out->commit_handle = uobj->handle;
	return 0;
}

/* --- CQ --------------------------------------------------------------------- */

static int xib_cmd_create_cq(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_cq *cmd = buf;
	struct xib_cq_init_attr attr = {};
	struct xib_uverbs_ev_file *ev = NULL;
	struct xib_uverbs_uobj *uobj;
	struct file *filp = NULL;
	struct xib_cq *cq;
	int ret;

	if (cmd->flags ||
	    !xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_create_cq, cq_handle)))
		return -EINVAL;
	if (cmd->comp_vector >= XIB_UVERBS_NUM_COMP_VECTORS)
		return -EINVAL;
	if (cmd->comp_channel != -1) {
		if (cmd->comp_channel < 0)
			return -EINVAL;
		filp = fget(cmd->comp_channel);
		if (!filp)
			return -EINVAL;
		ev = filp->private_data;
		if (filp->f_op != &xib_uverbs_comp_fops || ev->ctx != ctx) {
			ret = -EINVAL;
			goto err_fput;
		}
	}
	uobj = xib_uobj_new(ctx, XIB_UOBJ_CQ, cmd->user_handle);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto err_fput;
	}
	uobj->comp_ev = ev;

	attr.cqe = cmd->cqe;
	attr.comp_vector = cmd->comp_vector;
	attr.comp_handler = xib_uverbs_cq_comp_handler;
	attr.event_handler = xib_uverbs_cq_event_handler;
	attr.context = uobj;
	attr.user_handle = cmd->user_handle;
	cq = xib_create_cq(ctx->xdev, &ctx->uctx, &attr, &cmd->ring);
	if (IS_ERR(cq)) {
		xib_uobj_abort(uobj);
		ret = PTR_ERR(cq);
		goto err_fput;
	}
	/* The CQ keeps the channel's file (and so its queue) alive. */
	uobj->comp_filp = filp;
	uobj->object = cq;
	cmd->cq_handle = uobj->handle;
	cmd->cqn = cq->cqn;
	out->commit_handle = uobj->handle;
	return 0;

err_fput:
	if (filp)
		fput(filp);
	return ret;
}

static int xib_cmd_resize_cq(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_resize_cq *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (!xib_zero(&cmd->ring, sizeof(cmd->ring)))
		return -EINVAL;
	if (!ctx->xdev->ops->resize_cq)
		return -EOPNOTSUPP;
	uobj = xib_uobj_get(ctx, cmd->cq_handle, XIB_UOBJ_CQ, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_resize_cq(uobj->object, cmd->cqe, &cmd->ring);
	xib_uobj_put(uobj);
	return ret;
}

static int xib_cmd_destroy_events(struct xib_uverbs_ctx *ctx, void *buf,
				  enum xib_uverbs_obj_type type)
{
	struct xib_uverbs_destroy_events *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (cmd->comp_events_reported || cmd->async_events_reported ||
	    cmd->reserved)
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->handle, type, true);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_uobj_destroy(uobj, &cmd->comp_events_reported,
			       &cmd->async_events_reported);
	if (ret)
		atomic_set(&uobj->usecnt, 0);
	return ret;
}

static int xib_cmd_destroy_cq(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_events(ctx, buf, XIB_UOBJ_CQ);
}

/* --- QP --------------------------------------------------------------------- */

/* A handle field that names an object of @type, or XIB_UVERBS_NO_HANDLE. */
static struct xib_uverbs_uobj *xib_uobj_get_opt(struct xib_uverbs_ctx *ctx,
						u32 handle,
						enum xib_uverbs_obj_type type)
{
	if (handle == XIB_UVERBS_NO_HANDLE)
		return NULL;
	return xib_uobj_get(ctx, handle, type, false);
}

static void xib_uobj_put_opt(struct xib_uverbs_uobj *uobj)
{
	if (!IS_ERR_OR_NULL(uobj))
		xib_uobj_put(uobj);
}

/*
 * CREATE_QP.  An XRC target (XRC_RECV) names its domain in pd_handle
 * and no CQ; an initiator (XRC_SEND) no receive CQ (see uverbs.h).
 */
static int xib_cmd_create_qp(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_qp *cmd = buf;
	struct xib_uverbs_uobj *pd_u, *scq_u = NULL, *rcq_u = NULL;
	struct xib_uverbs_uobj *srq_u = NULL, *uobj;
	bool tgt = cmd->qp_type == XIB_QPT_XRC_RECV;
	struct xib_qp_init_attr attr = {};
	struct xib_qp *qp;
	int ret;

	if (cmd->sq_sig_all > 1 ||
	    !xib_zero(cmd->reserved0, sizeof(cmd->reserved0)) ||
	    cmd->cap.reserved ||
	    !xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_create_qp, qp_handle)))
		return -EINVAL;

	pd_u = xib_uobj_get(ctx, cmd->pd_handle,
			    tgt ? XIB_UOBJ_XRCD : XIB_UOBJ_PD, false);
	if (IS_ERR(pd_u))
		return PTR_ERR(pd_u);
	scq_u = xib_uobj_get_opt(ctx, cmd->send_cq_handle, XIB_UOBJ_CQ);
	rcq_u = xib_uobj_get_opt(ctx, cmd->recv_cq_handle, XIB_UOBJ_CQ);
	srq_u = xib_uobj_get_opt(ctx, cmd->srq_handle, XIB_UOBJ_SRQ);
	ret = PTR_ERR_OR_ZERO(scq_u) ?: PTR_ERR_OR_ZERO(rcq_u) ?:
	      PTR_ERR_OR_ZERO(srq_u);
	if (ret)
		goto put;
	/* a target belongs to no context, but each handle counts in its own */
	if (tgt) {
		ret = xib_ucontext_charge(&ctx->uctx, XIB_RES_QP);
		if (ret)
			goto put;
	}
	uobj = xib_uobj_new(ctx, XIB_UOBJ_QP, cmd->user_handle);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto uncharge;
	}

	attr.send_cq = scq_u ? scq_u->object : NULL;
	attr.recv_cq = rcq_u ? rcq_u->object : NULL;
	attr.srq = srq_u ? srq_u->object : NULL;
	attr.xrcd = tgt ? pd_u->object : NULL;
	attr.qp_type = cmd->qp_type;
	attr.sq_sig_all = cmd->sq_sig_all;
	attr.cap = cmd->cap;
	/* a target outlives its creator's context: it raises no event */
	attr.event_handler = tgt ? NULL : xib_uverbs_qp_event_handler;
	attr.context = uobj;
	attr.user_handle = cmd->user_handle;
	qp = xib_create_qp(tgt ? NULL : pd_u->object, &ctx->uctx, &attr,
			   &cmd->sq, &cmd->rq);
	if (IS_ERR(qp)) {
		xib_uobj_abort(uobj);
		ret = PTR_ERR(qp);
		goto uncharge;
	}
	uobj->object = qp;
	uobj->pd_handle = cmd->pd_handle;
	uobj->send_cq_handle = cmd->send_cq_handle;
	uobj->recv_cq_handle = cmd->recv_cq_handle;
	uobj->srq_handle = cmd->srq_handle;
	cmd->cap = attr.cap;
	cmd->qp_handle = uobj->handle;
	cmd->qpn = qp->qp_num;
	out->commit_handle = uobj->handle;
	ret = 0;
	goto put;

uncharge:
	if (tgt)
		xib_ucontext_uncharge(&ctx->uctx, XIB_RES_QP);
put:
	xib_uobj_put_opt(srq_u);
	xib_uobj_put_opt(rcq_u);
	xib_uobj_put_opt(scq_u);
	xib_uobj_put(pd_u);
	return ret;
}

/* OPEN_QP: a handle to an XRC target of a domain the context opened. */
static int xib_cmd_open_qp(struct xib_uverbs_ctx *ctx, void *buf,
			   struct xib_uverbs_out *out)
{
	struct xib_uverbs_open_qp *cmd = buf;
	struct xib_uverbs_uobj *xrcd_u, *uobj;
	struct xib_qp *qp;
	int ret;

	if (cmd->qp_type != XIB_QPT_XRC_RECV || cmd->qp_handle ||
	    cmd->qpn > 0xffffff)
		return -EINVAL;
	xrcd_u = xib_uobj_get(ctx, cmd->xrcd_handle, XIB_UOBJ_XRCD, false);
	if (IS_ERR(xrcd_u))
		return PTR_ERR(xrcd_u);
	ret = xib_ucontext_charge(&ctx->uctx, XIB_RES_QP);
	if (ret)
		goto put;
	uobj = xib_uobj_new(ctx, XIB_UOBJ_QP, cmd->user_handle);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto uncharge;
	}
	qp = xib_open_qp(xrcd_u->object, cmd->qpn);
	if (IS_ERR(qp)) {
		xib_uobj_abort(uobj);
		ret = PTR_ERR(qp);
		goto uncharge;
	}
	uobj->object = qp;
	uobj->pd_handle = cmd->xrcd_handle;
	uobj->send_cq_handle = XIB_UVERBS_NO_HANDLE;
	uobj->recv_cq_handle = XIB_UVERBS_NO_HANDLE;
	cmd->qp_handle = uobj->handle;
	out->commit_handle = uobj->handle;
	xib_uobj_put(xrcd_u);
	return 0;

uncharge:
	xib_ucontext_uncharge(&ctx->uctx, XIB_RES_QP);
put:
	xib_uobj_put(xrcd_u);
	return ret;
}

static bool xib_qp_attr_reserved_ok(const struct xib_uverbs_qp_attr *attr)
{
	return !attr->reserved0 && !attr->reserved1 && !attr->cap.reserved &&
	       !attr->ah_attr.reserved && !attr->alt_ah_attr.reserved;
}

static int xib_cmd_modify_qp(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_modify_qp *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if ((cmd->attr_mask & ~XIB_QP_ATTR_MASK_ALL) ||
	    !xib_qp_attr_reserved_ok(&cmd->attr))
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->qp_handle, XIB_UOBJ_QP, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_modify_qp(uobj->object, &cmd->attr, cmd->attr_mask);
	xib_uobj_put(uobj);
	return ret;
}

static int xib_cmd_query_qp(struct xib_uverbs_ctx *ctx, void *buf,
			    struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_qp *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	struct xib_qp *qp;
	int ret;

	if ((cmd->attr_mask & ~XIB_QP_ATTR_MASK_ALL) ||
	    !xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_query_qp, attr)))
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->qp_handle, XIB_UOBJ_QP, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp = uobj->object;
	ret = xib_query_qp(qp, &cmd->attr);
	if (!ret) {
		cmd->qp_type = qp->qp_type;
		cmd->sq_sig_all = qp->sq_sig_all;
		cmd->send_cq_handle = uobj->send_cq_handle;
		cmd->recv_cq_handle = uobj->recv_cq_handle;
		cmd->srq_handle = uobj->srq_handle;
		cmd->pd_handle = uobj->pd_handle;
	}
	xib_uobj_put(uobj);
	return ret;
}

/*
 * The seed: "ibv_destroy_qp() fails if the QP is attached to a multicast
 * group" (EBUSY, as ib_uverbs).  Only this command refuses: closing the
 * context or removing the device detaches (xib_destroy_qp()).
 */
static int xib_cmd_destroy_qp(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_destroy_events *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	bool attached;

	uobj = xib_uobj_get(ctx, cmd->handle, XIB_UOBJ_QP, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	attached = xib_mcast_attached(uobj->object);
	xib_uobj_put(uobj);
	if (attached)
		return -EBUSY;
	return xib_cmd_destroy_events(ctx, buf, XIB_UOBJ_QP);
}

static int xib_cmd_kick(struct xib_uverbs_ctx *ctx, void *buf,
			struct xib_uverbs_out *out)
{
	struct xib_uverbs_destroy *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	if (!ctx->xdev->ops->kick)
		return -EOPNOTSUPP;
	uobj = xib_uobj_get(ctx, cmd->handle, XIB_UOBJ_QP, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ctx->xdev->ops->kick(uobj->object);
	xib_uobj_put(uobj);
	return ret;
}

/* --- multicast ------------------------------------------------------------- */

static int xib_cmd_mcast(struct xib_uverbs_ctx *ctx, void *buf, bool attach)
{
	struct xib_uverbs_mcast *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->qp_handle, XIB_UOBJ_QP, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (attach)
		ret = xib_attach_mcast(uobj->object, cmd->gid);
	else
		ret = xib_detach_mcast(uobj->object, cmd->gid);
	xib_uobj_put(uobj);
	return ret;
}

static int xib_cmd_attach_mcast(struct xib_uverbs_ctx *ctx, void *buf,
				struct xib_uverbs_out *out)
{
	return xib_cmd_mcast(ctx, buf, true);
}

static int xib_cmd_detach_mcast(struct xib_uverbs_ctx *ctx, void *buf,
				struct xib_uverbs_out *out)
{
	return xib_cmd_mcast(ctx, buf, false);
}

/* --- SRQ -------------------------------------------------------------------- */

/* The parameters of CREATE_SRQ and CREATE_XSRQ. */
struct xib_srq_args {
	u64 user_handle;
	u32 srq_type;
	u32 pd_handle;
	u32 xrcd_handle;
	u32 cq_handle;
	u32 max_wr;		/* in; out */
	u32 max_sge;		/* in; out */
	u32 srq_limit;
	u32 srq_handle;		/* out */
	u32 srqn;		/* out */
	struct xib_uverbs_ring *ring;	/* out */
};

static int xib_srq_create(struct xib_uverbs_ctx *ctx, struct xib_srq_args *a,
			  struct xib_uverbs_out *out)
{
	struct xib_uverbs_uobj *uobj, *pd_u, *xrcd_u = NULL, *cq_u = NULL;
	struct xib_srq_init_attr attr = {};
	struct xib_srq *srq;
	int ret;

	if (a->srq_type == XIB_SRQT_BASIC &&
	    (a->xrcd_handle != XIB_UVERBS_NO_HANDLE ||
	     a->cq_handle != XIB_UVERBS_NO_HANDLE))
		return -EINVAL;
	pd_u = xib_uobj_get(ctx, a->pd_handle, XIB_UOBJ_PD, false);
	if (IS_ERR(pd_u))
		return PTR_ERR(pd_u);
	if (a->srq_type == XIB_SRQT_XRC) {
		xrcd_u = xib_uobj_get(ctx, a->xrcd_handle, XIB_UOBJ_XRCD,
				      false);
		if (IS_ERR(xrcd_u)) {
			ret = PTR_ERR(xrcd_u);
			xrcd_u = NULL;
			goto put;
		}
		cq_u = xib_uobj_get(ctx, a->cq_handle, XIB_UOBJ_CQ, false);
		if (IS_ERR(cq_u)) {
			ret = PTR_ERR(cq_u);
			cq_u = NULL;
			goto put;
		}
	}
	uobj = xib_uobj_new(ctx, XIB_UOBJ_SRQ, a->user_handle);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto put;
	}
	attr.srq_type = a->srq_type;
	attr.xrcd = xrcd_u ? xrcd_u->object : NULL;
	attr.cq = cq_u ? cq_u->object : NULL;
	attr.max_wr = a->max_wr;
	attr.max_sge = a->max_sge;
	attr.srq_limit = a->srq_limit;
	attr.event_handler = xib_uverbs_srq_event_handler;
	attr.context = uobj;
	attr.user_handle = a->user_handle;
	srq = xib_create_srq(pd_u->object, &ctx->uctx, &attr, a->ring);
	if (IS_ERR(srq)) {
		xib_uobj_abort(uobj);
		ret = PTR_ERR(srq);
		goto put;
	}
	uobj->object = srq;
	if (xrcd_u) {
		/* Before the put below: CLOSE_XRCD sees it once it can run. */
		atomic_inc(&xrcd_u->xrcd_users);
		uobj->xrcd_uobj = xrcd_u;
	}
	a->max_wr = attr.max_wr;
	a->max_sge = attr.max_sge;
	a->srq_handle = uobj->handle;
	a->srqn = srq->srqn;
	out->commit_handle = uobj->handle;
	ret = 0;
put:
	if (cq_u)
		xib_uobj_put(cq_u);
	if (xrcd_u)
		xib_uobj_put(xrcd_u);
	xib_uobj_put(pd_u);
	return ret;
}

static int xib_cmd_create_srq(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_srq *cmd = buf;
	struct xib_srq_args a = {
		.user_handle = cmd->user_handle,
		.srq_type = XIB_SRQT_BASIC,
		.pd_handle = cmd->pd_handle,
		.xrcd_handle = XIB_UVERBS_NO_HANDLE,
		.cq_handle = XIB_UVERBS_NO_HANDLE,
		.max_wr = cmd->max_wr,
		.max_sge = cmd->max_sge,
		.srq_limit = cmd->srq_limit,
		.ring = &cmd->ring,
	};
	int ret;

	if (!xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_create_srq, srq_handle)))
		return -EINVAL;
	ret = xib_srq_create(ctx, &a, out);
	if (ret)
		return ret;
	cmd->max_wr = a.max_wr;
	cmd->max_sge = a.max_sge;
	cmd->srq_handle = a.srq_handle;
	cmd->srqn = a.srqn;
	return 0;
}

static int xib_cmd_create_xsrq(struct xib_uverbs_ctx *ctx, void *buf,
			       struct xib_uverbs_out *out)
{
	struct xib_uverbs_create_xsrq *cmd = buf;
	struct xib_srq_args a = {
		.user_handle = cmd->user_handle,
		.srq_type = cmd->srq_type,
		.pd_handle = cmd->pd_handle,
		.xrcd_handle = cmd->xrcd_handle,
		.cq_handle = cmd->cq_handle,
		.max_wr = cmd->max_wr,
		.max_sge = cmd->max_sge,
		.srq_limit = cmd->srq_limit,
		.ring = &cmd->ring,
	};
	int ret;

	if (cmd->reserved ||
	    !xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_create_xsrq, srq_handle)))
		return -EINVAL;
	if (cmd->srq_type != XIB_SRQT_BASIC && cmd->srq_type != XIB_SRQT_XRC)
		return -EOPNOTSUPP;
	ret = xib_srq_create(ctx, &a, out);
	if (ret)
		return ret;
	cmd->max_wr = a.max_wr;
	cmd->max_sge = a.max_sge;
	cmd->srq_handle = a.srq_handle;
	cmd->srqn = a.srqn;
	return 0;
}

static int xib_cmd_modify_srq(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_modify_srq *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (cmd->attr_mask & ~(XIB_SRQ_MAX_WR | XIB_SRQ_LIMIT))
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->srq_handle, XIB_UOBJ_SRQ, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_modify_srq(uobj->object, cmd->attr_mask, cmd->max_wr,
			     cmd->srq_limit);
	xib_uobj_put(uobj);
	return ret;
}

static int xib_cmd_query_srq(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_query_srq *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	struct xib_srq *srq;

	if (!xib_zero_from(cmd, sizeof(*cmd),
			   offsetof(struct xib_uverbs_query_srq, max_wr)))
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->srq_handle, XIB_UOBJ_SRQ, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	srq = uobj->object;
	cmd->max_wr = srq->max_wr;
	cmd->max_sge = srq->max_sge;
	cmd->srq_limit = READ_ONCE(srq->srq_limit);
	xib_uobj_put(uobj);
	return 0;
}

static int xib_cmd_resize_srq(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	struct xib_uverbs_resize_srq *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	int ret;

	if (!xib_zero(&cmd->ring, sizeof(cmd->ring)))
		return -EINVAL;
	uobj = xib_uobj_get(ctx, cmd->srq_handle, XIB_UOBJ_SRQ, false);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xib_resize_srq(uobj->object, &cmd->max_wr, &cmd->ring);
	xib_uobj_put(uobj);
	return ret;
}

static int xib_cmd_destroy_srq(struct xib_uverbs_ctx *ctx, void *buf,
			       struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_events(ctx, buf, XIB_UOBJ_SRQ);
}

/* --- XRC domains ------------------------------------------------------------ */

static int xib_cmd_open_xrcd(struct xib_uverbs_ctx *ctx, void *buf,
			     struct xib_uverbs_out *out)
{
	struct xib_uverbs_open_xrcd *cmd = buf;
	struct xib_uverbs_uobj *uobj;
	struct xib_xrcd *xrcd;
	struct fd f = {};

	if (cmd->xrcd_handle || cmd->xrcdn || cmd->reserved ||
	    (cmd->oflags & ~XIB_XRCD_OFLAGS) || cmd->fd < -1)
		return -EINVAL;
	if (cmd->fd != -1) {
		f = fdget(cmd->fd);
		if (!f.file)
			return -EBADF;
	}
	uobj = xib_uobj_new(ctx, XIB_UOBJ_XRCD, 0);
	if (IS_ERR(uobj)) {
		fdput(f);
		return PTR_ERR(uobj);
	}
	xrcd = xib_open_xrcd(ctx->xdev, &ctx->uctx, f.file, cmd->oflags);
	fdput(f);
	if (IS_ERR(xrcd)) {
		xib_uobj_abort(uobj);
		return PTR_ERR(xrcd);
	}
	uobj->object = xrcd;
	cmd->xrcd_handle = uobj->handle;
	cmd->xrcdn = xrcd->xrcdn;
	out->commit_handle = uobj->handle;
	return 0;
}

static int xib_cmd_close_xrcd(struct xib_uverbs_ctx *ctx, void *buf,
			      struct xib_uverbs_out *out)
{
	return xib_cmd_destroy_simple(ctx, buf, XIB_UOBJ_XRCD);
}

/* --- dispatch --------------------------------------------------------------- */

struct xib_uverbs_cmd_desc {
	unsigned int cmd;
	unsigned int flags;
	int (*fn)(struct xib_uverbs_ctx *ctx, void *buf,
		  struct xib_uverbs_out *out);
};

#define XIB_CMD(name, func, fl)						\
	[_IOC_NR(XIB_UVERBS_##name)] = {				\
		.cmd = XIB_UVERBS_##name, .flags = (fl), .fn = (func)	\
	}
#define XIB_RES	(XIB_CMD_LIVE | XIB_CMD_VERBS)

static const struct xib_uverbs_cmd_desc xib_uverbs_cmds[] = {
	XIB_CMD(GET_CONTEXT, xib_cmd_get_context, XIB_CMD_WRITE),
	XIB_CMD(QUERY_DEVICE, xib_cmd_query_device, 0),
	XIB_CMD(QUERY_PORT, xib_cmd_query_port, 0),
	XIB_CMD(QUERY_GID, xib_cmd_query_gid, 0),
	XIB_CMD(QUERY_PKEY, xib_cmd_query_pkey, 0),
	XIB_CMD(ALLOC_PD, xib_cmd_alloc_pd, XIB_RES),
	XIB_CMD(DEALLOC_PD, xib_cmd_dealloc_pd, XIB_RES),
	XIB_CMD(REG_MR, xib_cmd_reg_mr, XIB_RES),
	XIB_CMD(DEREG_MR, xib_cmd_dereg_mr, XIB_RES),
	XIB_CMD(CREATE_COMP_CHANNEL, xib_cmd_create_comp_channel,
		XIB_CMD_LIVE),
	XIB_CMD(CREATE_CQ, xib_cmd_create_cq, XIB_RES),
	XIB_CMD(RESIZE_CQ, xib_cmd_resize_cq, XIB_RES),
	XIB_CMD(DESTROY_CQ, xib_cmd_destroy_cq, XIB_RES),
	XIB_CMD(CREATE_QP, xib_cmd_create_qp, XIB_RES),
	XIB_CMD(MODIFY_QP, xib_cmd_modify_qp, XIB_RES),
	XIB_CMD(QUERY_QP, xib_cmd_query_qp, XIB_RES),
	XIB_CMD(DESTROY_QP, xib_cmd_destroy_qp, XIB_RES),
	XIB_CMD(CREATE_SRQ, xib_cmd_create_srq, XIB_RES),
	XIB_CMD(MODIFY_SRQ, xib_cmd_modify_srq, XIB_RES),
	XIB_CMD(QUERY_SRQ, xib_cmd_query_srq, XIB_RES),
	XIB_CMD(DESTROY_SRQ, xib_cmd_destroy_srq, XIB_RES),
	XIB_CMD(CREATE_AH, xib_cmd_create_ah, XIB_RES),
	XIB_CMD(DESTROY_AH, xib_cmd_destroy_ah, XIB_RES),
	XIB_CMD(KICK, xib_cmd_kick, XIB_RES),
	XIB_CMD(REREG_MR, xib_cmd_rereg_mr, XIB_RES),
	XIB_CMD(RESIZE_SRQ, xib_cmd_resize_srq, XIB_RES),
	XIB_CMD(ATTACH_MCAST, xib_cmd_attach_mcast, XIB_RES),
	XIB_CMD(DETACH_MCAST, xib_cmd_detach_mcast, XIB_RES),
	XIB_CMD(ALLOC_MW, xib_cmd_alloc_mw, XIB_RES),
	XIB_CMD(DEALLOC_MW, xib_cmd_dealloc_mw, XIB_RES),
	XIB_CMD(OPEN_XRCD, xib_cmd_open_xrcd, XIB_RES),
	XIB_CMD(CLOSE_XRCD, xib_cmd_close_xrcd, XIB_RES),
	XIB_CMD(CREATE_XSRQ, xib_cmd_create_xsrq, XIB_RES),
	XIB_CMD(OPEN_QP, xib_cmd_open_qp, XIB_RES),
};

static void xib_uverbs_check_abi(void)
{
	BUILD_BUG_ON(sizeof(struct xib_uverbs_get_context) != 40);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_device_attr) != 208);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_device) != 208);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_port_attr) != 72);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_port) != 80);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_gid) != 32);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_pkey) != 16);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_alloc_pd) != 8);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_destroy) != 8);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_reg_mr) != 48);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_rereg_mr) != 48);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_comp_channel) != 8);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_comp_event) != 8);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_async_event) != 16);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_ring) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_cq) != 56);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_resize_cq) != 32);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_destroy_events) != 16);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_qp_cap) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_qp) != 112);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_ah_attr) != 32);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_qp_attr) != 148);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_modify_qp) != 156);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_qp) != 180);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_srq) != 56);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_modify_srq) != 16);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_query_srq) != 16);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_resize_srq) != 32);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_ah) != 56);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_mcast) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_alloc_mw) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_open_xrcd) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_open_qp) != 24);
	BUILD_BUG_ON(sizeof(struct xib_uverbs_create_xsrq) != 72);
	BUILD_BUG_ON(_IOC_SIZE(XIB_UVERBS_QUERY_QP) >
		     sizeof(union xib_uverbs_cmd_buf));
}

/*
 * After the copy-out: commit the new object (or destroy it again if the
 * copy-out failed), install the new fd (or drop it).
 */
static int xib_uverbs_finish(struct xib_uverbs_ctx *ctx,
			     struct xib_uverbs_out *out, int ret)
{
	struct xib_uverbs_uobj *uobj;

	if (out->get_context)
		ret = xib_get_context_finish(ctx, out, ret);

	if (out->commit_handle != XIB_UVERBS_NO_HANDLE) {
		down_read(&ctx->rwsem);
		if (ctx->disassociated) {
			/* Teardown destroyed it already. */
			ret = -EIO;
		} else {
			xa_lock(&ctx->handles);
			uobj = xa_load(&ctx->handles, out->commit_handle);
			if (!ret && uobj)
				uobj->committed = true;
			xa_unlock(&ctx->handles);
			if (ret && uobj && xib_uobj_destroy(uobj, NULL, NULL))
				WARN_ONCE(1, "xib_uverbs: cannot undo a create\n");
		}
		up_read(&ctx->rwsem);
	}

	if (out->file) {
		if (ret) {
			put_unused_fd(out->fd);
			fput(out->file);
		} else {
			fd_install(out->fd, out->file);
		}
	}
	return ret;
}

/**
 * xib_uverbs_ioctl() - one command on a /dev/xib/uverbsN file
 * @filp: the file
 * @cmd: XIB_UVERBS_*
 * @arg: user pointer to the command's structure
 */
long xib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct xib_uverbs_ctx *ctx = filp->private_data;
	void __user *argp = (void __user *)arg;
	const struct xib_uverbs_cmd_desc *desc;
	struct xib_uverbs_out out = {
		.commit_handle = XIB_UVERBS_NO_HANDLE,
		.fd = -1,
	};
	union xib_uverbs_cmd_buf buf;
	unsigned int nr = _IOC_NR(cmd);
	size_t size = _IOC_SIZE(cmd);
	bool write;
	int ret;

	xib_uverbs_check_abi();
	if (_IOC_TYPE(cmd) != XIB_UVERBS_IOCTL_MAGIC ||
	    nr >= ARRAY_SIZE(xib_uverbs_cmds))
		return -ENOTTY;
	nr = array_index_nospec(nr, ARRAY_SIZE(xib_uverbs_cmds));
	desc = &xib_uverbs_cmds[nr];
	if (!desc->fn || desc->cmd != cmd || size > sizeof(buf))
		return -ENOTTY;
	if (copy_from_user(&buf, argp, size))
		return -EFAULT;

	write = desc->flags & XIB_CMD_WRITE;
	if (write)
		down_write(&ctx->rwsem);
	else
		down_read(&ctx->rwsem);
	if (ctx->disassociated)
		ret = -EIO;
	else if ((desc->flags & XIB_CMD_LIVE) && ctx->state != XIB_UCTX_LIVE)
		ret = -EINVAL;
	else if ((desc->flags & XIB_CMD_VERBS) && !ctx->xdev->ops->create_qp)
		ret = -EOPNOTSUPP;
	else
		ret = desc->fn(ctx, &buf, &out);
	if (write)
		up_write(&ctx->rwsem);
	else
		up_read(&ctx->rwsem);
	if (ret)
		return ret;

	if (copy_to_user(argp, &buf, size))
		ret = -EFAULT;
	return xib_uverbs_finish(ctx, &out, ret);
}
