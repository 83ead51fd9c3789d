// SPDX-License-Identifier: GPL-2.0
/*
 * The commands of /dev/xib/rdma_cm (include/uapi/xib/ucma.h).
 *
 * Every command is copied in whole, validated (reserved and "out" fields
 * zero, known flags and values, lengths) and only then acts; a command
 * that fails changes nothing.  Ids are found by handle in the file's
 * xarray, holding a reference that DESTROY_ID waits for; no lock of the
 * file is held while xib_cma runs.
 */

#include <linux/file.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "ucma_priv.h"

#define XIB_UCMA_MAX_TIMEOUT_MS		3600000
#define XIB_UCMA_REJ_CONSUMER		0	/* the ABI's "consumer defined" */
#define XIB_UCMA_OPTION_ID		0	/* RDMA_OPTION_ID */
#define XIB_UCMA_OPTION_IB		1	/* RDMA_OPTION_IB */
#define XIB_UCMA_OPTION_IB_PATH		1	/* RDMA_OPTION_IB_PATH */

static bool xib_ucma_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

#define XIB_UCMA_ZERO(field)	xib_ucma_zero(&(field), sizeof(field))

/* The id of @handle, with a reference, or an ERR_PTR (-ENOENT). */
static struct xib_ucma_ctx *xib_ucma_get(struct xib_ucma_file *file,
					 u32 handle)
{
	struct xib_ucma_ctx *ctx;

	mutex_lock(&file->mutex);
	ctx = xa_load(&file->handles, handle);
	if (ctx)
		refcount_inc(&ctx->ref);
	mutex_unlock(&file->mutex);
	return ctx ? ctx : ERR_PTR(-ENOENT);
}

/* The id of @handle, taken out of the file: only its destroy remains. */
static struct xib_ucma_ctx *xib_ucma_take(struct xib_ucma_file *file,
					  u32 handle)
{
	struct xib_ucma_ctx *ctx;

	mutex_lock(&file->mutex);
	ctx = xa_erase(&file->handles, handle);
	if (ctx)
		ctx->visible = false;
	mutex_unlock(&file->mutex);
	return ctx ? ctx : ERR_PTR(-ENOENT);
}

/*
 * An address of the ABI as a sockaddr.  Family 0 ("none", only where
 * @none_ok) gives AF_UNSPEC; AF_INET needs the unused bytes zero.
 */
static int xib_ucma_sockaddr(const struct xib_ucma_addr *a,
			     struct sockaddr_storage *ss, bool none_ok)
{
	memset(ss, 0, sizeof(*ss));
	if (a->reserved)
		return -EINVAL;
	switch (a->family) {
	case 0:
		if (!none_ok || !xib_ucma_zero(a, sizeof(*a)))
			return -EINVAL;
		ss->ss_family = AF_UNSPEC;
		return 0;
	case AF_INET: {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (a->flowinfo || a->scope_id ||
		    !xib_ucma_zero(&a->addr[4], sizeof(a->addr) - 4))
			return -EINVAL;
		sin->sin_family = AF_INET;
		sin->sin_port = a->port;
		memcpy(&sin->sin_addr, a->addr, 4);
		return 0;
	}
	case AF_INET6: {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = a->port;
		sin6->sin6_flowinfo = a->flowinfo;
		memcpy(&sin6->sin6_addr, a->addr, 16);
		sin6->sin6_scope_id = a->scope_id;
		return 0;
	}
	default:
		/* AF_IB and the rest */
		return -EAFNOSUPPORT;
	}
}

static void xib_ucma_addr(struct xib_ucma_addr *a,
			  const struct sockaddr_storage *ss)
{
	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		a->family = AF_INET;
		a->port = sin->sin_port;
		memcpy(a->addr, &sin->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		a->family = AF_INET6;
		a->port = sin6->sin6_port;
		a->flowinfo = sin6->sin6_flowinfo;
		memcpy(a->addr, &sin6->sin6_addr, 16);
		a->scope_id = sin6->sin6_scope_id;
	}
}

/*
 * A connection's parameters: @max bytes of private data at most, the
 * reserved fields zero, and a Q_Key only where @qkey_ok (a UD accept).
 * ECE values are accepted and not sent (xib's CM has none).
 */
static int xib_ucma_conn_param(const struct xib_ucma_conn_param *u,
			       struct xib_cma_conn_param *p, unsigned int max,
			       bool qkey_ok)
{
	if (u->private_data_len > max || u->reserved0 ||
	    !XIB_UCMA_ZERO(u->reserved) || (u->qkey && !qkey_ok) ||
	    u->qp_num > 0xffffff)
		return -EINVAL;
	/* A controlled Q_Key (bit 31) needs CAP_NET_RAW, as for a QP. */
	if ((u->qkey & 0x80000000) && !capable(CAP_NET_RAW))
		return -EPERM;
	memset(p, 0, sizeof(*p));
	p->private_data = u->private_data;
	p->private_data_len = u->private_data_len;
	p->responder_resources = u->responder_resources;
	p->initiator_depth = u->initiator_depth;
	p->flow_control = !!u->flow_control;
	p->retry_count = min_t(u8, u->retry_count, 7);
	p->rnr_retry_count = min_t(u8, u->rnr_retry_count, 7);
	p->srq = !!u->srq;
	p->qp_num = u->qp_num;
	p->qkey = u->qkey;
	return 0;
}

static bool xib_ucma_ud(const struct xib_ucma_ctx *ctx)
{
	return ctx->cm_id->qp_type == XIB_QPT_UD;
}

/* --- the commands -------------------------------------------------------- */

static int xib_ucma_create_id(struct xib_ucma_file *file, void *buf,
			      void __user *uarg)
{
	struct xib_ucma_create_id *cmd = buf;
	struct xib_cma_id *cm_id;
	struct xib_ucma_ctx *ctx;
	u32 handle;
	int ret;

	if (cmd->id || cmd->reserved)
		return -EINVAL;
	ctx = xib_ucma_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	/* Reserve the id's place under the limit first. */
	mutex_lock(&file->mutex);
	if (file->nr_ids >= READ_ONCE(xib_ucma_max_ids)) {
		mutex_unlock(&file->mutex);
		ret = -ENOMEM;
		goto err_free;
	}
	file->nr_ids++;
	mutex_unlock(&file->mutex);

	cm_id = xib_cma_create_id(current->nsproxy->net_ns, xib_ucma_handler,
				  ctx, cmd->ps, cmd->qp_type, current);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err_unreserve;
	}
	ctx->cm_id = cm_id;
	ctx->file = file;
	ctx->uid = cmd->uid;

	mutex_lock(&file->mutex);
	ret = xa_alloc(&file->handles, &handle, ctx, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		mutex_unlock(&file->mutex);
		xib_cma_destroy_id(cm_id);
		goto err_unreserve;
	}
	ctx->handle = handle;
	ctx->visible = true;
	list_add_tail(&ctx->list, &file->ctxs);
	mutex_unlock(&file->mutex);

	cmd->id = handle;
	if (copy_to_user(uarg, cmd, sizeof(*cmd))) {
		/* Nobody learnt of the id: it goes again. */
		if (!IS_ERR(xib_ucma_take(file, handle)))
			xib_ucma_ctx_destroy(ctx);
		return -EFAULT;
	}
	return 0;

err_unreserve:
	mutex_lock(&file->mutex);
	file->nr_ids--;
	mutex_unlock(&file->mutex);
err_free:
	kfree(ctx);
	return ret;
}

static int xib_ucma_destroy_id(struct xib_ucma_file *file, void *buf,
			       void __user *uarg)
{
	struct xib_ucma_destroy_id *cmd = buf;
	struct xib_ucma_ctx *ctx;

	if (cmd->events_reported)
		return -EINVAL;
	ctx = xib_ucma_take(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cmd->events_reported = xib_ucma_ctx_destroy(ctx);
	return 0;
}

static int xib_ucma_bind(struct xib_ucma_file *file, void *buf,
			 void __user *uarg)
{
	struct xib_ucma_bind *cmd = buf;
	struct sockaddr_storage ss;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ret = xib_ucma_sockaddr(&cmd->addr, &ss, false);
	if (ret)
		return ret;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_cma_bind_addr(ctx->cm_id, (struct sockaddr *)&ss);
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_resolve_addr(struct xib_ucma_file *file, void *buf,
				 void __user *uarg)
{
	struct xib_ucma_resolve_addr *cmd = buf;
	struct sockaddr_storage src, dst;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (!cmd->timeout_ms || cmd->timeout_ms > XIB_UCMA_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = xib_ucma_sockaddr(&cmd->src, &src, true);
	if (!ret)
		ret = xib_ucma_sockaddr(&cmd->dst, &dst, false);
	if (ret)
		return ret;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (xib_ucma_room(file))
		ret = xib_cma_resolve_addr(ctx->cm_id,
					   src.ss_family == AF_UNSPEC ? NULL :
					   (struct sockaddr *)&src,
					   (struct sockaddr *)&dst,
					   cmd->timeout_ms);
	else
		ret = -ENOMEM;
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_resolve_route(struct xib_ucma_file *file, void *buf,
				  void __user *uarg)
{
	struct xib_ucma_resolve_route *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (!cmd->timeout_ms || cmd->timeout_ms > XIB_UCMA_MAX_TIMEOUT_MS)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_ucma_room(file) ?
		xib_cma_resolve_route(ctx->cm_id, cmd->timeout_ms) : -ENOMEM;
	xib_ucma_ctx_put(ctx);
	return ret;
}

static void xib_ucma_path(struct xib_ucma_path *u, const struct xib_cm_path *p)
{
	memcpy(u->dgid, p->dgid, 16);
	memcpy(u->sgid, p->sgid, 16);
	/* RoCE: no LIDs */
	u->flow_label = p->flow_label & 0xfffff;
	u->hop_limit = p->hop_limit;
	u->traffic_class = p->traffic_class;
	u->reversible = 1;
	u->numb_path = 1;
	u->pkey = cpu_to_be16(p->pkey);
	u->sl = p->sl;
	u->mtu_selector = 2;		/* exactly */
	u->mtu = p->mtu;
	u->rate_selector = 2;
	u->rate = p->rate;
	u->packet_life_time_selector = 2;
	u->packet_life_time = p->packet_life_time;
}

static int xib_ucma_query(struct xib_ucma_file *file, void *buf,
			  void __user *uarg)
{
	struct xib_ucma_query *cmd = buf;
	struct xib_ucma_ctx *ctx;
	struct xib_cma_info info;
	int ret;

	if (!xib_ucma_zero(&cmd->reserved,
			   sizeof(*cmd) - offsetof(struct xib_ucma_query,
						   reserved)))
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_cma_query(ctx->cm_id, &info);
	xib_ucma_ctx_put(ctx);
	if (ret)
		return ret;
	xib_ucma_addr(&cmd->src, &info.src);
	xib_ucma_addr(&cmd->dst, &info.dst);
	cmd->state = info.state;
	if (info.device) {
		cmd->node_guid = be64_to_cpu(info.device->node_guid);
		cmd->dev_index = info.device->index;
		cmd->port_num = info.port_num;
		cmd->pkey = cpu_to_be16(info.path.pkey ? info.path.pkey :
					0xffff);
		memcpy(cmd->sgid, info.path.sgid, 16);
		memcpy(cmd->dgid, info.path.dgid, 16);
		xib_device_put(info.device);
	}
	if (info.num_paths) {
		cmd->num_paths = 1;
		xib_ucma_path(&cmd->path, &info.path);
	}
	return 0;
}

static int xib_ucma_listen(struct xib_ucma_file *file, void *buf,
			   void __user *uarg)
{
	struct xib_ucma_listen *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	/* 0 is the most, as Linux's rdma_ucm takes it (cmtime listens so) */
	ret = xib_cma_listen(ctx->cm_id, cmd->backlog ?
			     min_t(u32, cmd->backlog, XIB_UCMA_MAX_BACKLOG) :
			     XIB_UCMA_MAX_BACKLOG);
	if (!ret) {
		mutex_lock(&file->mutex);
		ctx->listening = true;
		mutex_unlock(&file->mutex);
	}
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_connect(struct xib_ucma_file *file, void *buf,
			    void __user *uarg)
{
	struct xib_ucma_connect *cmd = buf;
	struct xib_cma_conn_param param;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_ucma_conn_param(&cmd->param, &param,
				  xib_ucma_ud(ctx) ? XIB_UCMA_SIDR_PDATA_MAX :
				  XIB_UCMA_CONN_PDATA_MAX, false);
	if (!ret)
		ret = xib_ucma_room(file) ?
			xib_cma_connect(ctx->cm_id, &param) : -ENOMEM;
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_establish(struct xib_ucma_file *file, void *buf,
			      void __user *uarg)
{
	struct xib_ucma_establish *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_cma_establish(ctx->cm_id);
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_accept(struct xib_ucma_file *file, void *buf,
			   void __user *uarg)
{
	struct xib_ucma_accept *cmd = buf;
	struct xib_cma_conn_param param;
	struct xib_ucma_ctx *ctx;
	bool ud;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ud = xib_ucma_ud(ctx);
	ret = xib_ucma_conn_param(&cmd->param, &param,
				  ud ? XIB_UCMA_SIDR_REP_PDATA_MAX :
				  XIB_UCMA_ACCEPT_PDATA_MAX, ud);
	if (!ret)
		ret = xib_ucma_room(file) ?
			xib_cma_accept(ctx->cm_id, &param) : -ENOMEM;
	if (!ret)
		WRITE_ONCE(ctx->uid, cmd->uid);
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_reject(struct xib_ucma_file *file, void *buf,
			   void __user *uarg)
{
	struct xib_ucma_reject *cmd = buf;
	enum xib_cm_rej_reason reason;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	switch (cmd->reason) {
	case XIB_UCMA_REJ_CONSUMER:
	case XIB_CM_REJ_CONSUMER_DEFINED:
		reason = XIB_CM_REJ_CONSUMER_DEFINED;
		break;
	case XIB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED:
		reason = XIB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED;
		break;
	default:
		return -EINVAL;
	}
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd->private_data_len > (xib_ucma_ud(ctx) ?
				     XIB_UCMA_SIDR_REP_PDATA_MAX :
				     XIB_UCMA_REJECT_PDATA_MAX))
		ret = -EINVAL;
	else
		ret = xib_cma_reject(ctx->cm_id, reason, cmd->private_data,
				     cmd->private_data_len);
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_disconnect(struct xib_ucma_file *file, void *buf,
			       void __user *uarg)
{
	struct xib_ucma_disconnect *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_ucma_room(file) ? xib_cma_disconnect(ctx->cm_id) : -ENOMEM;
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_init_qp_attr(struct xib_ucma_file *file, void *buf,
				 void __user *uarg)
{
	struct xib_ucma_init_qp_attr *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->attr_mask || cmd->reserved || !XIB_UCMA_ZERO(cmd->attr))
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	cmd->attr.qp_state = cmd->qp_state;
	ret = xib_cma_init_qp_attr(ctx->cm_id, &cmd->attr, &cmd->attr_mask);
	xib_ucma_ctx_put(ctx);
	return ret;
}

static int xib_ucma_notify(struct xib_ucma_file *file, void *buf,
			   void __user *uarg)
{
	struct xib_ucma_notify *cmd = buf;
	struct xib_ucma_ctx *ctx;
	int ret;

	if (cmd->event != XIB_EVENT_COMM_EST)
		return -EINVAL;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_cma_notify(ctx->cm_id, cmd->event);
	xib_ucma_ctx_put(ctx);
	return ret;
}

/*
 * RDMA_OPTION_ID options: TOS and ACK_TIMEOUT are a u8 (optlen 1),
 * REUSEADDR and AFONLY an int (optlen 4, non-zero meaning on).  Unknown
 * levels and names are -ENOPROTOOPT, as for setsockopt(2).
 */
static int xib_ucma_set_option(struct xib_ucma_file *file, void *buf,
			       void __user *uarg)
{
	struct xib_ucma_set_option *cmd = buf;
	enum xib_cma_option opt;
	struct xib_ucma_ctx *ctx;
	u64 value = cmd->value;
	u32 len;
	int ret;

	if (cmd->level == XIB_UCMA_OPTION_IB)
		return cmd->optname == XIB_UCMA_OPTION_IB_PATH ?
			-EOPNOTSUPP : -ENOPROTOOPT;
	if (cmd->level != XIB_UCMA_OPTION_ID)
		return -ENOPROTOOPT;
	switch (cmd->optname) {
	case XIB_CMA_OPT_TOS:
	case XIB_CMA_OPT_ACK_TIMEOUT:
		len = sizeof(u8);
		break;
	case XIB_CMA_OPT_REUSEADDR:
	case XIB_CMA_OPT_AFONLY:
		len = sizeof(u32);
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (cmd->optlen != len || value >> (8 * len))
		return -EINVAL;
	opt = cmd->optname;
	if (len == sizeof(u32))
		value = !!value;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = xib_cma_set_option(ctx->cm_id, opt, value);
	xib_ucma_ctx_put(ctx);
	return ret;
}

/*
 * LEAVE_MCAST: the membership is taken out of the table and its id's
 * list under its file's mutex (so that a membership of another channel's
 * id is never found), its group left, its unread events dropped.
 */
static int xib_ucma_leave_mcast(struct xib_ucma_file *file, void *buf,
				void __user *uarg)
{
	struct xib_ucma_leave_mcast *cmd = buf;
	struct xib_ucma_ctx *ctx = NULL;
	struct xib_ucma_mc *mc;
	int ret;

	if (cmd->events_reported)
		return -EINVAL;
	mutex_lock(&file->mutex);
	xa_lock(&xib_ucma_mcs);
	mc = xa_load(&xib_ucma_mcs, cmd->mc_id);
	/* the id cannot be freed while its membership is in the table */
	if (mc && mc->ctx->file == file && mc->ctx->visible) {
		__xa_erase(&xib_ucma_mcs, cmd->mc_id);
		ctx = mc->ctx;
	}
	xa_unlock(&xib_ucma_mcs);
	if (ctx) {
		list_del_init(&mc->list);
		ctx->nr_mcs--;
		refcount_inc(&ctx->ref);
	}
	mutex_unlock(&file->mutex);
	if (!ctx)
		return -ENOENT;

	ret = xib_cma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	WARN_ON_ONCE(ret);
	cmd->events_reported = xib_ucma_mc_unqueue(mc);
	xib_ucma_ctx_put(ctx);
	kfree(mc);
	return 0;
}

/*
 * JOIN_MCAST: the membership gets its handle before xib_cma joins (the
 * join's event, queued meanwhile, names it) but can be found by it only
 * once joined; the structure is copied out here, so that a failed copy
 * leaves the group again and the command changes nothing.
 */
static int xib_ucma_join_mcast(struct xib_ucma_file *file, void *buf,
			       void __user *uarg)
{
	struct xib_ucma_join_mcast *cmd = buf;
	struct xib_ucma_file *f;
	struct xib_ucma_ctx *ctx;
	struct xib_ucma_mc *mc;
	int ret;

	if (cmd->mc_id || cmd->reserved ||
	    cmd->join_flags > XIB_CMA_JOIN_SENDONLY_FULLMEMBER)
		return -EINVAL;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	if (!mc)
		return -ENOMEM;
	INIT_LIST_HEAD(&mc->list);
	mc->uid = cmd->uid;
	ret = xib_ucma_sockaddr(&cmd->addr, &mc->addr, false);
	if (ret)
		goto err_free;
	ctx = xib_ucma_get(file, cmd->id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto err_free;
	}
	mc->ctx = ctx;

	/* Reserve the id's place under the limit and a handle. */
	mutex_lock(&file->mutex);
	if (ctx->nr_mcs >= READ_ONCE(xib_ucma_max_mcs)) {
		mutex_unlock(&file->mutex);
		ret = -ENOMEM;
		goto err_put;
	}
	ctx->nr_mcs++;
	mutex_unlock(&file->mutex);
	ret = xa_alloc(&xib_ucma_mcs, &mc->handle, NULL, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unreserve;

	ret = xib_ucma_room(file) ?
		xib_cma_join_multicast(ctx->cm_id,
				       (struct sockaddr *)&mc->addr,
				       cmd->join_flags, mc) : -ENOMEM;
	if (ret)
		goto err_erase;

	/* Joined: LEAVE_MCAST and the id's destroy find it from now on. */
	down_read(&xib_ucma_move_rwsem);
	f = ctx->file;
	mutex_lock(&f->mutex);
	xa_store(&xib_ucma_mcs, mc->handle, mc, GFP_KERNEL);
	list_add_tail(&mc->list, &ctx->mcs);
	mutex_unlock(&f->mutex);
	up_read(&xib_ucma_move_rwsem);
	xib_ucma_ctx_put(ctx);

	cmd->mc_id = mc->handle;
	if (copy_to_user(uarg, cmd, sizeof(*cmd))) {
		struct xib_ucma_leave_mcast leave = { .mc_id = mc->handle };

		/* nobody learnt of the membership: it goes again */
		xib_ucma_leave_mcast(file, &leave, NULL);
		return -EFAULT;
	}
	return 0;

err_erase:
	xa_erase(&xib_ucma_mcs, mc->handle);
err_unreserve:
	mutex_lock(&file->mutex);
	ctx->nr_mcs--;
	mutex_unlock(&file->mutex);
err_put:
	xib_ucma_ctx_put(ctx);
err_free:
	kfree(mc);
	return ret;
}

/* Both files' mutexes, the lower address first. */
static void xib_ucma_lock2(struct xib_ucma_file *a, struct xib_ucma_file *b)
{
	if (a > b)
		swap(a, b);
	mutex_lock(&a->mutex);
	mutex_lock_nested(&b->mutex, SINGLE_DEPTH_NESTING);
}

static void xib_ucma_unlock2(struct xib_ucma_file *a, struct xib_ucma_file *b)
{
	mutex_unlock(&a->mutex);
	mutex_unlock(&b->mutex);
}

/*
 * Does @e move with @ctx from @from?  Its own events, its unread
 * connection requests (with their new ids) and, once those moved, the
 * events of those new ids.  An event being read stays: it is delivered
 * where it was taken.
 */
static bool xib_ucma_moves(const struct xib_ucma_kevent *e,
			   const struct xib_ucma_ctx *ctx,
			   const struct xib_ucma_file *from)
{
	if (e->reading)
		return false;
	return e->ctx == ctx || e->listen == ctx ||
		(!e->ctx->visible && e->ctx->file != from);
}

/*
 * MIGRATE_ID, issued on the new channel's file: the id, its unread
 * events and its unread connection requests move here.  Every handler is
 * kept out meanwhile (xib_ucma_move_rwsem), so no event is queued on
 * either file while the ids' @file pointers change.
 */
static int xib_ucma_migrate_id(struct xib_ucma_file *file, void *buf,
			       void __user *uarg)
{
	struct xib_ucma_migrate_id *cmd = buf;
	unsigned int nr_ids = 1, nr_events = 0;
	struct xib_ucma_kevent *e, *tmp;
	struct xib_ucma_file *from;
	struct xib_ucma_ctx *ctx;
	struct fd f;
	u32 handle;
	int ret;

	if (cmd->new_id || cmd->events_reported)
		return -EINVAL;
	f = fdget(cmd->fd);
	if (!f.file)
		return -EBADF;
	if (f.file->f_op != &xib_ucma_fops) {
		ret = -EINVAL;
		goto out_fdput;
	}
	from = f.file->private_data;
	if (from == file) {
		/* Nothing moves. */
		ctx = xib_ucma_get(file, cmd->id);
		ret = PTR_ERR_OR_ZERO(ctx);
		if (!ret) {
			mutex_lock(&file->mutex);
			cmd->new_id = ctx->handle;
			cmd->events_reported = ctx->events_reported;
			mutex_unlock(&file->mutex);
			xib_ucma_ctx_put(ctx);
		}
		goto out_fdput;
	}

	down_write(&xib_ucma_move_rwsem);
	xib_ucma_lock2(file, from);
	ctx = xa_load(&from->handles, cmd->id);
	if (!ctx) {
		ret = -ENOENT;
		goto out_unlock;
	}
	list_for_each_entry(e, &from->events, list) {
		if (e->reading || (e->ctx != ctx && e->listen != ctx))
			continue;
		nr_events++;
		if (e->listen == ctx && !e->ctx->visible)
			nr_ids++;
	}
	/* The new ids' own events are few (a connection's): not counted. */
	if (file->nr_ids + nr_ids > READ_ONCE(xib_ucma_max_ids) ||
	    file->nr_events + nr_events > READ_ONCE(xib_ucma_max_events)) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = xa_alloc(&file->handles, &handle, ctx, xa_limit_31b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto out_unlock;

	/* Nothing fails from here on. */
	xa_erase(&from->handles, cmd->id);
	ctx->handle = handle;
	list_move_tail(&ctx->list, &file->ctxs);
	ctx->file = file;
	from->nr_ids--;
	file->nr_ids++;
	list_for_each_entry_safe(e, tmp, &from->events, list) {
		if (!xib_ucma_moves(e, ctx, from))
			continue;
		if (e->listen == ctx && !e->ctx->visible) {
			list_move_tail(&e->ctx->list, &file->ctxs);
			e->ctx->file = file;
			from->nr_ids--;
			file->nr_ids++;
		}
		list_move_tail(&e->list, &file->events);
		WRITE_ONCE(from->nr_events, from->nr_events - 1);
		WRITE_ONCE(file->nr_events, file->nr_events + 1);
	}
	cmd->new_id = handle;
	cmd->events_reported = ctx->events_reported;
	if (file->nr_events)
		wake_up_interruptible(&file->wait);
	ret = 0;
out_unlock:
	xib_ucma_unlock2(file, from);
	up_write(&xib_ucma_move_rwsem);
out_fdput:
	fdput(f);
	return ret;
}

/* --- dispatch ------------------------------------------------------------ */

/**
 * struct xib_ucma_cmd - one command of the ABI
 * @cmd: its ioctl number (which encodes the structure's size)
 * @fn: runs it on the copied-in structure; @uarg is where it came from
 * @copy_out: on success, copy the structure back (else @fn did, or
 *	there is nothing to return)
 */
struct xib_ucma_cmd {
	unsigned int cmd;
	int (*fn)(struct xib_ucma_file *file, void *buf, void __user *uarg);
	bool copy_out;
};

#define XIB_UCMA_CMD(name, fn_, out)				\
	[_IOC_NR(XIB_UCMA_##name)] = {				\
		.cmd = XIB_UCMA_##name, .fn = fn_, .copy_out = out }

static const struct xib_ucma_cmd xib_ucma_cmds[] = {
	XIB_UCMA_CMD(CREATE_ID, xib_ucma_create_id, false),
	XIB_UCMA_CMD(DESTROY_ID, xib_ucma_destroy_id, true),
	XIB_UCMA_CMD(BIND, xib_ucma_bind, false),
	XIB_UCMA_CMD(RESOLVE_ADDR, xib_ucma_resolve_addr, false),
	XIB_UCMA_CMD(RESOLVE_ROUTE, xib_ucma_resolve_route, false),
	XIB_UCMA_CMD(QUERY, xib_ucma_query, true),
	XIB_UCMA_CMD(LISTEN, xib_ucma_listen, false),
	XIB_UCMA_CMD(CONNECT, xib_ucma_connect, false),
	XIB_UCMA_CMD(ESTABLISH, xib_ucma_establish, false),
	XIB_UCMA_CMD(ACCEPT, xib_ucma_accept, false),
	XIB_UCMA_CMD(REJECT, xib_ucma_reject, false),
	XIB_UCMA_CMD(DISCONNECT, xib_ucma_disconnect, false),
	XIB_UCMA_CMD(INIT_QP_ATTR, xib_ucma_init_qp_attr, true),
	XIB_UCMA_CMD(NOTIFY, xib_ucma_notify, false),
	XIB_UCMA_CMD(SET_OPTION, xib_ucma_set_option, false),
	XIB_UCMA_CMD(JOIN_MCAST, xib_ucma_join_mcast, false),
	XIB_UCMA_CMD(LEAVE_MCAST, xib_ucma_leave_mcast, true),
	XIB_UCMA_CMD(MIGRATE_ID, xib_ucma_migrate_id, true),
};

/* The largest command structure: room for any of them on the stack. */
union xib_ucma_buf {
	struct xib_ucma_create_id create_id;
	struct xib_ucma_destroy_id destroy_id;
	struct xib_ucma_bind bind;
	struct xib_ucma_resolve_addr resolve_addr;
	struct xib_ucma_resolve_route resolve_route;
	struct xib_ucma_query query;
	struct xib_ucma_listen listen;
	struct xib_ucma_connect connect;
	struct xib_ucma_establish establish;
	struct xib_ucma_accept accept;
	struct xib_ucma_reject reject;
	struct xib_ucma_disconnect disconnect;
	struct xib_ucma_init_qp_attr init_qp_attr;
	struct xib_ucma_notify notify;
	struct xib_ucma_set_option set_option;
	struct xib_ucma_join_mcast join_mcast;
	struct xib_ucma_leave_mcast leave_mcast;
	struct xib_ucma_migrate_id migrate_id;
	struct xib_ucma_event event;
};

/* The ABI's sizes, and the RDMA CM's values the ABI repeats. */
static_assert(sizeof(struct xib_ucma_addr) == 32);
static_assert(sizeof(struct xib_ucma_path) == 64);
static_assert(sizeof(struct xib_ucma_conn_param) == 256);
static_assert(sizeof(struct xib_ucma_ud_param) == 48);
static_assert(sizeof(struct xib_ucma_create_id) == 24);
static_assert(sizeof(struct xib_ucma_destroy_id) == 8);
static_assert(sizeof(struct xib_ucma_bind) == 40);
static_assert(sizeof(struct xib_ucma_resolve_addr) == 72);
static_assert(sizeof(struct xib_ucma_resolve_route) == 8);
static_assert(sizeof(struct xib_ucma_query) == 192);
static_assert(sizeof(struct xib_ucma_listen) == 8);
static_assert(sizeof(struct xib_ucma_connect) == 264);
static_assert(sizeof(struct xib_ucma_establish) == 8);
static_assert(sizeof(struct xib_ucma_accept) == 272);
static_assert(sizeof(struct xib_ucma_reject) == 240);
static_assert(sizeof(struct xib_ucma_disconnect) == 8);
static_assert(sizeof(struct xib_ucma_init_qp_attr) == 164);
static_assert(sizeof(struct xib_ucma_notify) == 8);
static_assert(sizeof(struct xib_ucma_set_option) == 24);
static_assert(sizeof(struct xib_ucma_join_mcast) == 56);
static_assert(sizeof(struct xib_ucma_leave_mcast) == 8);
static_assert(sizeof(struct xib_ucma_migrate_id) == 16);
static_assert(sizeof(struct xib_ucma_event) == 336);
static_assert(sizeof(union xib_ucma_buf) == sizeof(struct xib_ucma_event));
static_assert(XIB_UCMA_EVENT_TIMEWAIT_EXIT ==
	      (int)XIB_CMA_EVENT_TIMEWAIT_EXIT);
static_assert(XIB_UCMA_PS_TCP == (int)XIB_CMA_PS_TCP &&
	      XIB_UCMA_PS_UDP == (int)XIB_CMA_PS_UDP &&
	      XIB_UCMA_PS_IB == (int)XIB_CMA_PS_IB &&
	      XIB_UCMA_PS_IPOIB == (int)XIB_CMA_PS_IPOIB);
static_assert(XIB_UCMA_CONN_PDATA_MAX ==
	      XIB_CM_REQ_PRIVATE_DATA_SIZE - XIB_CMA_HDR_SIZE);
static_assert(XIB_UCMA_SIDR_PDATA_MAX ==
	      XIB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - XIB_CMA_HDR_SIZE);
static_assert(XIB_UCMA_ACCEPT_PDATA_MAX == XIB_CM_REP_PRIVATE_DATA_SIZE);
static_assert(XIB_UCMA_REJECT_PDATA_MAX == XIB_CM_REJ_PRIVATE_DATA_SIZE);
static_assert(XIB_UCMA_SIDR_REP_PDATA_MAX ==
	      XIB_CM_SIDR_REP_PRIVATE_DATA_SIZE);

/**
 * xib_ucma_ioctl() - run one command of include/uapi/xib/ucma.h
 * @filp: the channel
 * @cmd: the command
 * @arg: its structure in user space
 *
 * Return: 0 or a negative errno (see ucma.h).
 */
long xib_ucma_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct xib_ucma_file *file = filp->private_data;
	void __user *uarg = (void __user *)arg;
	const struct xib_ucma_cmd *c;
	union xib_ucma_buf buf;
	unsigned int size;
	int ret;

	if (_IOC_TYPE(cmd) != XIB_UCMA_IOCTL_MAGIC)
		return -ENOTTY;
	size = _IOC_SIZE(cmd);
	if (cmd == XIB_UCMA_GET_EVENT) {
		if (copy_from_user(&buf.event, uarg, size))
			return -EFAULT;
		if (!xib_ucma_zero(&buf.event, size))
			return -EINVAL;
		return xib_ucma_get_event(filp, &buf.event, uarg);
	}
	if (_IOC_NR(cmd) >= ARRAY_SIZE(xib_ucma_cmds))
		return -ENOTTY;
	c = &xib_ucma_cmds[_IOC_NR(cmd)];
	if (c->cmd != cmd || size > sizeof(buf))
		return -ENOTTY;
	if (copy_from_user(&buf, uarg, size))
		return -EFAULT;
	ret = c->fn(file, &buf, uarg);
	if (!ret && c->copy_out && copy_to_user(uarg, &buf, size))
		ret = -EFAULT;
	return ret;
}
