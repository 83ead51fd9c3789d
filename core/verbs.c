// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects: PDs, MRs, memory windows, CQs, QPs, SRQs and AHs.
 *
 * The core allocates each object with the driver's size, validates the
 * request against the device's limits (dev->attrs), gives the object its
 * number from the device's table dev->res[type], calls the driver, and
 * only then makes the object visible to xib_*_get_by_num() lookups.  A
 * failed create leaves nothing behind.
 *
 * Lifetime: @ref keeps an object's memory; the creator's reference is
 * dropped by xib_*_destroy() (after the object left its table), lookups
 * take more.  Dependencies: a QP holds a use count and a reference on its
 * PD, CQs and SRQ; an MR, SRQ and AH on their PD.  Destroy drops the use
 * counts; the references go with the object's final put, so whoever still
 * holds a QP may follow its pointers.  Destroying an object that is still
 * used fails with -EBUSY.  A use count is taken with atomic_inc_unless_negative(); destroy
 * turns an unused count (0) into XIB_USECNT_DEAD with a cmpxchg, so an
 * object being destroyed cannot gain a user.
 *
 * Numbers: dev->res[type] is an allocating xarray; entries are reserved
 * (NULL for lookups) while the driver creates the object and stored once
 * it exists.  QP numbers and MR keys name objects on the wire, where
 * anyone may send packets: they are drawn at random so that they cannot
 * be guessed from one another.  A QP number is the first free number at
 * or after a random one in 16 to 2^24 - 1 (0 and 1 are SMI/GSI); an MR
 * key is (index << 8) | tag, the index chosen the same way in 1 to
 * 2^24 - 1 and the tag a random byte, so a reused index most likely gets
 * a new key.  A re-registered MR keeps its keys: its replacement is
 * stored at the same index (xib_rereg_user_mr()).  MR indices are 1 to
 * XIB_MR_INDEX_MAX, memory windows' XIB_MW_INDEX_MIN to 2^24 - 1, so the
 * index of an rkey from the wire says which table names it.
 *
 * Limits: besides the device's limits (dev->attrs), the objects of one
 * user context are bounded by the module parameters max_*_per_context
 * (uctx->res_count).  Memory is charged where it is allocated: rings to
 * the memory cgroup and RLIMIT_MEMLOCK (core/mmap.c), pinned MR pages to
 * RLIMIT_MEMLOCK (core/umem.c).
 *
 * Release: the final put of a CQ, QP or SRQ may come from atomic context
 * (the receive softirq, an engine under a spinlock); its driver release
 * frees ring memory and may sleep, so there it is deferred to
 * xib_release_wq.  xib_flush_releases() waits for what was deferred.
 */

#include <linux/capability.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include <xib/qp_state.h>

#include "core_priv.h"

#define XIB_USECNT_DEAD		INT_MIN
#define XIB_NUM_MAX		0xffffffU	/* 24-bit object numbers */
#define XIB_QPN_MIN		16U
#define XIB_PSN_MAX		0xffffffU
#define XIB_NUM_COMP_VECTORS	1
#define XIB_MIG_STATE_MAX	2	/* IBV_MIG_ARMED */
#define XIB_QKEY_CONTROLLED	BIT(31)	/* IBTA 10.2.4: privileged Q_Keys */

/*
 * Per user context, the objects of each type it may have; read at each
 * create (a lowered limit keeps existing objects).  0 allows none.
 */
static unsigned int xib_ctx_max[XIB_RES_MAX] = {
	[XIB_RES_PD]	= 1024,
	[XIB_RES_MR]	= 8192,
	[XIB_RES_CQ]	= 16384,
	[XIB_RES_QP]	= 16384,
	[XIB_RES_SRQ]	= 512,
	[XIB_RES_AH]	= 8192,
	[XIB_RES_MW]	= 8192,
	[XIB_RES_XRCD]	= 64,
};
module_param_named(max_pd_per_context, xib_ctx_max[XIB_RES_PD], uint, 0644);
MODULE_PARM_DESC(max_pd_per_context, "PDs one user context may allocate (1024)");
module_param_named(max_mr_per_context, xib_ctx_max[XIB_RES_MR], uint, 0644);
MODULE_PARM_DESC(max_mr_per_context, "MRs one user context may register (8192)");
module_param_named(max_cq_per_context, xib_ctx_max[XIB_RES_CQ], uint, 0644);
MODULE_PARM_DESC(max_cq_per_context, "CQs one user context may create (16384)");
module_param_named(max_qp_per_context, xib_ctx_max[XIB_RES_QP], uint, 0644);
MODULE_PARM_DESC(max_qp_per_context, "QPs one user context may create (16384)");
module_param_named(max_srq_per_context, xib_ctx_max[XIB_RES_SRQ], uint, 0644);
MODULE_PARM_DESC(max_srq_per_context, "SRQs one user context may create (512)");
module_param_named(max_ah_per_context, xib_ctx_max[XIB_RES_AH], uint, 0644);
MODULE_PARM_DESC(max_ah_per_context, "AHs one user context may create (8192)");
module_param_named(max_mw_per_context, xib_ctx_max[XIB_RES_MW], uint, 0644);
MODULE_PARM_DESC(max_mw_per_context, "memory windows one user context may allocate (8192)");
module_param_named(max_xrcd_per_context, xib_ctx_max[XIB_RES_XRCD], uint, 0644);
MODULE_PARM_DESC(max_xrcd_per_context, "XRC domains one user context may hold open (64)");

/* Deferred releases of CQs, QPs and SRQs; see the comment at the top. */
static struct workqueue_struct *xib_release_wq;

/*
 * Serialises xib_modify_srq(), the one writer of an xib_srq's @srq_limit
 * besides xib_srq_event(), which zeroes it when the limit fires, and
 * xib_resize_srq(), the one writer of its @max_wr after creation.
 */
static DEFINE_MUTEX(xib_srq_mutex);

static bool xib_has_verbs(const struct xib_device *dev)
{
	return dev->ops->create_qp;
}

/* Allocate a zeroed object of at least @core bytes, the driver's size. */
static void *xib_obj_alloc(size_t drv_size, size_t core_size)
{
	if (WARN_ON_ONCE(drv_size && drv_size < core_size))
		return NULL;
	return kzalloc(max(drv_size, core_size), GFP_KERNEL);
}

/*
 * Count a new object of @type against the device's @max and, for a user
 * object, against its context's limit; -ENOMEM beyond either.
 */
static int xib_res_charge(struct xib_device *dev, struct xib_ucontext *uctx,
			  enum xib_res_type type, u32 max)
{
	if (atomic_inc_return(&dev->res_count[type]) > max)
		goto err_dev;
	if (uctx && atomic_inc_return(&uctx->res_count[type]) >
		    READ_ONCE(xib_ctx_max[type]))
		goto err_uctx;
	return 0;

err_uctx:
	atomic_dec(&uctx->res_count[type]);
err_dev:
	atomic_dec(&dev->res_count[type]);
	return -ENOMEM;
}

static void xib_res_uncharge(struct xib_device *dev, struct xib_ucontext *uctx,
			     enum xib_res_type type)
{
	if (uctx)
		atomic_dec(&uctx->res_count[type]);
	atomic_dec(&dev->res_count[type]);
}

/* Reserve a number from 1 in @type's table; the entry reads as NULL. */
static int xib_res_reserve(struct xib_device *dev, enum xib_res_type type,
			   u32 *num)
{
	int ret = xa_alloc_irq(&dev->res[type], num, NULL,
			       XA_LIMIT(1, XIB_NUM_MAX), GFP_KERNEL_ACCOUNT);

	return ret == -EBUSY ? -ENOMEM : ret;
}

/*
 * Reserve the first free number at or after a random one in [@min, @max],
 * wrapping to @min; the entry reads as NULL.  -ENOMEM when all are taken.
 */
static int xib_res_reserve_random(struct xarray *xa, u32 *num, u32 min,
				  u32 max)
{
	u32 start = get_random_u32_inclusive(min, max);
	int ret;

	ret = xa_alloc_irq(xa, num, NULL, XA_LIMIT(start, max),
			   GFP_KERNEL_ACCOUNT);
	if (ret == -EBUSY && start > min)
		ret = xa_alloc_irq(xa, num, NULL, XA_LIMIT(min, start - 1),
				   GFP_KERNEL_ACCOUNT);
	return ret == -EBUSY ? -ENOMEM : ret;
}

static int xib_qpn_reserve(struct xib_device *dev, u32 *qpn)
{
	return xib_res_reserve_random(&dev->res[XIB_RES_QP], qpn, XIB_QPN_MIN,
				      XIB_NUM_MAX);
}

/* Reserve an MR index and compute its key; see the comment at the top. */
static int xib_mr_key_reserve(struct xib_device *dev, u32 *key)
{
	u32 index;
	int ret;

	ret = xib_res_reserve_random(&dev->res[XIB_RES_MR], &index, 1,
				     XIB_MR_INDEX_MAX);
	if (ret)
		return ret;
	*key = index << 8 | (get_random_u32() & 0xff);
	return 0;
}

/* May a final put release a CQ, QP or SRQ where it is (it may sleep)? */
static bool xib_can_release_now(void)
{
	return preemptible() && !rcu_preempt_depth();
}

/**
 * xib_flush_releases() - wait for the deferred releases of CQs, QPs, SRQs
 *
 * Every CQ, QP and SRQ whose final put came before this call has been
 * released (its driver's release_* ran, its memory is freed) when it
 * returns.  xib_dealloc_device() calls it; drivers need not.
 *
 * Context: process context; not from a release_* callback.
 */
void xib_flush_releases(void)
{
	flush_workqueue(xib_release_wq);
}
EXPORT_SYMBOL_GPL(xib_flush_releases);

int xib_verbs_init(void)
{
	xib_release_wq = alloc_workqueue("xib_release", 0, 0);
	return xib_release_wq ? 0 : -ENOMEM;
}

void xib_verbs_exit(void)
{
	destroy_workqueue(xib_release_wq);
}

/* Make a reserved number name @obj; cannot fail (the slot exists). */
static void xib_res_publish(struct xib_device *dev, enum xib_res_type type,
			    u32 num, void *obj)
{
	WARN_ON(xa_err(xa_store_irq(&dev->res[type], num, obj, GFP_KERNEL)));
}

static void xib_res_erase(struct xib_device *dev, enum xib_res_type type,
			  u32 num)
{
	xa_erase_irq(&dev->res[type], num);
}

/* Take a use of an object unless it is being destroyed. */
static bool xib_use(atomic_t *usecnt)
{
	return atomic_inc_unless_negative(usecnt);
}

static void xib_unuse(atomic_t *usecnt)
{
	WARN_ON(atomic_dec_return(usecnt) < 0);
}

/* Mark an unused object dead; -EBUSY while it has users. */
static int xib_kill(atomic_t *usecnt)
{
	return atomic_cmpxchg(usecnt, 0, XIB_USECNT_DEAD) ? -EBUSY : 0;
}

/* Devices */

/* What the core itself honours of enum xib_device_cap_flags. */
#define XIB_CORE_CAP_FLAGS	(XIB_DEVICE_CURR_QP_STATE_MOD |		\
				 XIB_DEVICE_PORT_ACTIVE_EVENT |		\
				 XIB_DEVICE_SYS_IMAGE_GUID)

/**
 * xib_query_device() - the attributes a device reports to its users
 * @dev: the device
 * @attr: filled in: the driver's attrs, with what the core knows
 *
 * The core adds the node GUID and port count, a system image GUID (the
 * node GUID: one device is one system image unless the driver says
 * otherwise), the capabilities it implements itself (XIB_CORE_CAP_FLAGS:
 * the current-state check of modify QP, PORT_ACTIVE events, the system
 * image GUID) and, when the driver names no vendor, xib's vendor and part
 * IDs (see uverbs.h).
 *
 * Context: any.
 */
void xib_query_device(struct xib_device *dev,
		      struct xib_uverbs_device_attr *attr)
{
	*attr = dev->attrs;
	attr->phys_port_cnt = dev->phys_port_cnt;
	attr->node_guid = dev->node_guid;
	if (!attr->sys_image_guid)
		attr->sys_image_guid = dev->node_guid;
	attr->device_cap_flags |= XIB_CORE_CAP_FLAGS;
	if (!attr->vendor_id) {
		attr->vendor_id = XIB_VENDOR_ID;
		attr->vendor_part_id = XIB_VENDOR_PART_ID_SOFT;
	}
}
EXPORT_SYMBOL_GPL(xib_query_device);

/* PDs */

static void xib_pd_release(struct kref *ref)
{
	kfree(container_of(ref, struct xib_pd, ref));
}

static void xib_pd_put(struct xib_pd *pd)
{
	kref_put(&pd->ref, xib_pd_release);
}

/* Take a use and a reference of @pd for a new object of @uctx. */
static int xib_pd_use(struct xib_pd *pd, struct xib_ucontext *uctx)
{
	if (pd->uctx != uctx)
		return -EINVAL;
	if (!xib_use(&pd->usecnt))
		return -EINVAL;
	kref_get(&pd->ref);
	return 0;
}

/* Undo xib_pd_use() entirely (failed creates). */
static void xib_pd_unuse(struct xib_pd *pd)
{
	xib_unuse(&pd->usecnt);
	xib_pd_put(pd);
}

/**
 * xib_alloc_pd() - allocate a protection domain
 * @dev: the device
 * @uctx: the owning user context, or NULL for the kernel
 *
 * Return: the PD or an ERR_PTR: -EOPNOTSUPP (no verbs), -ENOMEM (also
 * beyond attrs.max_pd), or the driver's error.
 */
struct xib_pd *xib_alloc_pd(struct xib_device *dev, struct xib_ucontext *uctx)
{
	struct xib_pd *pd;
	int ret;

	if (!xib_has_verbs(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (uctx && uctx->device != dev)
		return ERR_PTR(-EINVAL);
	ret = xib_res_charge(dev, uctx, XIB_RES_PD, dev->attrs.max_pd);
	if (ret)
		return ERR_PTR(ret);
	pd = xib_obj_alloc(dev->ops->size_pd, sizeof(*pd));
	if (!pd) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	pd->device = dev;
	pd->uctx = uctx;
	kref_init(&pd->ref);
	atomic_set(&pd->usecnt, 0);
	ret = xib_res_reserve(dev, XIB_RES_PD, &pd->pdn);
	if (ret)
		goto err_free;
	if (dev->ops->alloc_pd) {
		ret = dev->ops->alloc_pd(pd);
		if (ret)
			goto err_erase;
	}
	xib_res_publish(dev, XIB_RES_PD, pd->pdn, pd);
	return pd;

err_erase:
	xib_res_erase(dev, XIB_RES_PD, pd->pdn);
err_free:
	kfree(pd);
err_uncharge:
	xib_res_uncharge(dev, uctx, XIB_RES_PD);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_alloc_pd);

/**
 * xib_dealloc_pd() - destroy a protection domain
 * @pd: the PD
 *
 * Return: 0, or -EBUSY while an MR, QP, SRQ or AH uses it (nothing
 * changes then).
 */
int xib_dealloc_pd(struct xib_pd *pd)
{
	struct xib_device *dev = pd->device;

	if (xib_kill(&pd->usecnt))
		return -EBUSY;
	xib_res_erase(dev, XIB_RES_PD, pd->pdn);
	if (dev->ops->dealloc_pd)
		dev->ops->dealloc_pd(pd);
	xib_res_uncharge(dev, pd->uctx, XIB_RES_PD);
	xib_pd_put(pd);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_dealloc_pd);

/**
 * xib_ucontext_charge() - count one more object of @type in @uctx
 * @uctx: the user context
 * @type: the object type
 *
 * For objects charged to the device alone that a context still holds a
 * handle to (an XRC target QP): each handle counts in its context's
 * max_*_per_context.  Undo with xib_ucontext_uncharge().
 *
 * Return: 0, or -ENOMEM beyond the context's limit.
 */
int xib_ucontext_charge(struct xib_ucontext *uctx, enum xib_res_type type)
{
	if (atomic_inc_return(&uctx->res_count[type]) >
	    READ_ONCE(xib_ctx_max[type])) {
		atomic_dec(&uctx->res_count[type]);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(xib_ucontext_charge);

/**
 * xib_ucontext_uncharge() - undo xib_ucontext_charge()
 * @uctx: the user context
 * @type: the object type
 */
void xib_ucontext_uncharge(struct xib_ucontext *uctx, enum xib_res_type type)
{
	atomic_dec(&uctx->res_count[type]);
}
EXPORT_SYMBOL_GPL(xib_ucontext_uncharge);

/* XRC domains */

static void xib_xrcd_free(struct xib_xrcd *xrcd)
{
	struct xib_device *dev = xrcd->device;

	if (xrcd->inode)
		path_put(&xrcd->path);
	xib_res_erase(dev, XIB_RES_XRCD, xrcd->xrcdn);
	xib_res_uncharge(dev, NULL, XIB_RES_XRCD);
	kfree(xrcd);
}

/* kref_put_mutex() release: called with @dev->xrcd_lock held, drops it. */
static void xib_xrcd_release(struct kref *ref)
{
	struct xib_xrcd *xrcd = container_of(ref, struct xib_xrcd, ref);

	lockdep_assert_held(&xrcd->device->xrcd_lock);
	if (xrcd->inode)
		list_del(&xrcd->list);
	mutex_unlock(&xrcd->device->xrcd_lock);
	xib_xrcd_free(xrcd);
}

/**
 * xib_xrcd_put() - drop a reference on an XRC domain
 * @xrcd: the domain
 *
 * The last reference takes the domain off its device's inode list (under
 * the device's xrcd_lock, so a concurrent open either finds it alive or
 * not at all) and frees it.
 *
 * Context: process context; may sleep.
 */
void xib_xrcd_put(struct xib_xrcd *xrcd)
{
	kref_put_mutex(&xrcd->ref, xib_xrcd_release, &xrcd->device->xrcd_lock);
}
EXPORT_SYMBOL_GPL(xib_xrcd_put);

/* The live domain of @inode on @dev, with a reference, or NULL. */
static struct xib_xrcd *xib_xrcd_find(struct xib_device *dev,
				      struct inode *inode)
{
	struct xib_xrcd *xrcd;

	lockdep_assert_held(&dev->xrcd_lock);
	list_for_each_entry(xrcd, &dev->xrcds, list)
		if (xrcd->inode == inode)
			return kref_get_unless_zero(&xrcd->ref) ? xrcd : NULL;
	return NULL;
}

/*
 * A new domain named by @file's inode (or by none), on @dev's list if
 * @file.  It holds @file's path, so the filesystem stays mounted (umount
 * is EBUSY) while the domain lives and the inode cannot be reused.
 */
static struct xib_xrcd *xib_xrcd_create(struct xib_device *dev,
					struct file *file)
{
	struct xib_xrcd *xrcd;
	int ret;

	ret = xib_res_charge(dev, NULL, XIB_RES_XRCD, dev->attrs.max_pd);
	if (ret)
		return ERR_PTR(ret);
	xrcd = kzalloc(sizeof(*xrcd), GFP_KERNEL_ACCOUNT);
	if (!xrcd) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = xib_res_reserve(dev, XIB_RES_XRCD, &xrcd->xrcdn);
	if (ret)
		goto err_free;
	xrcd->device = dev;
	kref_init(&xrcd->ref);
	if (file) {
		xrcd->path = file->f_path;
		path_get(&xrcd->path);
		xrcd->inode = file_inode(file);
		list_add(&xrcd->list, &dev->xrcds);
	}
	return xrcd;

err_free:
	kfree(xrcd);
err_uncharge:
	xib_res_uncharge(dev, NULL, XIB_RES_XRCD);
	return ERR_PTR(ret);
}

/**
 * xib_open_xrcd() - open (or create) an XRC domain
 * @dev: the device
 * @uctx: the opening user context, charged one XRCD until
 *	xib_close_xrcd(); NULL for the kernel
 * @file: a file whose inode names the domain, or NULL for a new domain
 *	no one else can open
 * @oflags: XIB_XRCD_O_CREAT, XIB_XRCD_O_EXCL, as open(2): with an
 *	@inode, an existing domain is opened unless O_CREAT|O_EXCL
 *	(-EEXIST), and a missing one is created with O_CREAT (else
 *	-ENOENT); without, O_CREAT alone is the only valid value.  O_EXCL
 *	without O_CREAT is -EINVAL.
 *
 * Looking up and creating are one step under @dev->xrcd_lock, so of two
 * contexts opening the same inode with O_CREAT one creates and the other
 * opens the same domain.  Domains are bounded by the device's max_pd and
 * the context's max_xrcd_per_context (-ENOMEM beyond).
 *
 * Return: the domain, with the opener's reference, or an ERR_PTR.
 * Context: process context; may sleep.
 */
struct xib_xrcd *xib_open_xrcd(struct xib_device *dev,
			       struct xib_ucontext *uctx, struct file *file,
			       u32 oflags)
{
	struct inode *inode = file ? file_inode(file) : NULL;
	struct xib_xrcd *xrcd;
	int ret;

	if (!xib_has_verbs(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if ((oflags & ~XIB_XRCD_OFLAGS) ||
	    ((oflags & XIB_XRCD_O_EXCL) && !(oflags & XIB_XRCD_O_CREAT)) ||
	    (!inode && oflags != XIB_XRCD_O_CREAT))
		return ERR_PTR(-EINVAL);
	if (uctx) {
		if (atomic_inc_return(&uctx->res_count[XIB_RES_XRCD]) >
		    READ_ONCE(xib_ctx_max[XIB_RES_XRCD])) {
			ret = -ENOMEM;
			goto err_uncharge;
		}
	}

	mutex_lock(&dev->xrcd_lock);
	xrcd = inode ? xib_xrcd_find(dev, inode) : NULL;
	if (xrcd && (oflags & XIB_XRCD_O_EXCL)) {
		mutex_unlock(&dev->xrcd_lock);
		xib_xrcd_put(xrcd);
		ret = -EEXIST;
		goto err_uncharge;
	}
	if (!xrcd) {
		if (!(oflags & XIB_XRCD_O_CREAT))
			xrcd = ERR_PTR(-ENOENT);
		else
			xrcd = xib_xrcd_create(dev, file);
	}
	mutex_unlock(&dev->xrcd_lock);
	if (IS_ERR(xrcd)) {
		ret = PTR_ERR(xrcd);
		goto err_uncharge;
	}
	return xrcd;

err_uncharge:
	if (uctx)
		atomic_dec(&uctx->res_count[XIB_RES_XRCD]);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_open_xrcd);

/**
 * xib_close_xrcd() - undo one xib_open_xrcd()
 * @xrcd: the domain
 * @uctx: the context that opened it
 *
 * The domain itself lives on while other openers or objects in it hold
 * it (users check that theirs are gone first: see xib_uverbs).
 *
 * Context: process context; may sleep.
 */
void xib_close_xrcd(struct xib_xrcd *xrcd, struct xib_ucontext *uctx)
{
	if (uctx)
		atomic_dec(&uctx->res_count[XIB_RES_XRCD]);
	xib_xrcd_put(xrcd);
}
EXPORT_SYMBOL_GPL(xib_close_xrcd);

/* MRs */

static void xib_mr_release(struct kref *ref)
{
	struct xib_mr *mr = container_of(ref, struct xib_mr, ref);

	xib_pd_put(mr->pd);
	kfree(mr);
}

/**
 * xib_mr_put() - drop a reference on an MR
 * @mr: the MR
 *
 * Context: any.
 */
void xib_mr_put(struct xib_mr *mr)
{
	/*
	 * xib_dereg_mr() waits for the other references to go.  The
	 * decrement is only release-ordered and wake_up_var() checks for
	 * waiters without a lock: the full barrier orders the two, so a
	 * waiter that has not yet seen the count drop is seen and woken.
	 * The MR may be freed by then; wake_up_var() only hashes the address.
	 */
	if (!kref_put(&mr->ref, xib_mr_release)) {
		smp_mb(); /* the decrement before the waiter check */
		wake_up_var(&mr->ref);
	}
}
EXPORT_SYMBOL_GPL(xib_mr_put);

/* The rules of a registration's memory and access (REG_MR, REREG_MR). */
static int xib_check_mr_args(struct xib_device *dev, u64 addr, u64 length,
			     u64 iova, u32 access)
{
	u64 end;

	if (access & ~XIB_ACCESS_MR_SUPPORTED)
		return -EINVAL;
	if ((access & (XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & XIB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/* ibv_reg_mr(3): zero-based is iova 0 */
	if ((access & XIB_ACCESS_ZERO_BASED) && iova)
		return -EINVAL;
	if (!length || length > dev->attrs.max_mr_size ||
	    check_add_overflow(addr, length, &end) ||
	    check_add_overflow(iova, length, &end))
		return -EINVAL;
	return 0;
}

/**
 * xib_reg_user_mr() - register user memory of the current process
 * @pd: the PD
 * @addr: first byte in the caller's address space
 * @length: bytes, 1 to attrs.max_mr_size
 * @iova: the address of @addr in WQEs and RETHs
 * @access: enum xib_access_flags within XIB_ACCESS_MR_SUPPORTED;
 *	REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE; ZERO_BASED needs
 *	@iova 0
 *
 * Pins the memory (see xib_umem_get()) and gives the MR its keys.
 *
 * Return: the MR or an ERR_PTR: -EINVAL for a bad argument, -ENOMEM (out
 * of memory, beyond attrs.max_mr or RLIMIT_MEMLOCK), -EFAULT, or the
 * driver's error.
 */
struct xib_mr *xib_reg_user_mr(struct xib_pd *pd, u64 addr, u64 length,
			       u64 iova, u32 access)
{
	struct xib_device *dev = pd->device;
	struct xib_mr *mr;
	int ret;

	if (!xib_has_verbs(dev))
		return ERR_PTR(-EOPNOTSUPP);
	ret = xib_check_mr_args(dev, addr, length, iova, access);
	if (ret)
		return ERR_PTR(ret);

	ret = xib_pd_use(pd, pd->uctx);
	if (ret)
		return ERR_PTR(ret);
	ret = xib_res_charge(dev, pd->uctx, XIB_RES_MR, dev->attrs.max_mr);
	if (ret)
		goto err_unuse_pd;
	mr = xib_obj_alloc(dev->ops->size_mr, sizeof(*mr));
	if (!mr) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	mr->device = dev;
	mr->uctx = pd->uctx;
	kref_init(&mr->ref);
	mr->pd = pd;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->umem = xib_umem_get(dev, addr, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}
	ret = xib_mr_key_reserve(dev, &mr->lkey);
	if (ret)
		goto err_release_umem;
	mr->rkey = mr->lkey;
	if (dev->ops->reg_mr) {
		ret = dev->ops->reg_mr(mr);
		if (ret)
			goto err_erase;
	}
	xib_res_publish(dev, XIB_RES_MR, mr->lkey >> 8, mr);
	return mr;

err_erase:
	xib_res_erase(dev, XIB_RES_MR, mr->lkey >> 8);
err_release_umem:
	xib_umem_release(mr->umem);
err_free:
	kfree(mr);
err_uncharge:
	xib_res_uncharge(dev, pd->uctx, XIB_RES_MR);
err_unuse_pd:
	xib_pd_unuse(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_reg_user_mr);

/**
 * xib_dereg_mr() - destroy a memory region
 * @mr: the MR
 *
 * The MR leaves the key table (no new lookups find it), the driver's
 * dereg_mr runs, then this waits until every reference taken with
 * xib_mr_get_by_key() is dropped, so @mr->umem stays valid for their
 * holders; only then are the pages unpinned.
 *
 * Return: 0, or -EBUSY while memory windows are bound to @mr (nothing
 * changed).
 * Context: process context; holders of MR references must not sleep on
 * anything this caller holds.
 */
int xib_dereg_mr(struct xib_mr *mr)
{
	struct xib_device *dev = mr->device;

	/* IBTA 10.6.7.1: not while memory windows are bound to it */
	if (xib_kill(&mr->mw_binds))
		return -EBUSY;
	xib_res_erase(dev, XIB_RES_MR, mr->lkey >> 8);
	if (dev->ops->dereg_mr)
		dev->ops->dereg_mr(mr);
	wait_var_event(&mr->ref, kref_read(&mr->ref) == 1);
	xib_umem_release(mr->umem);
	mr->umem = NULL;
	xib_res_uncharge(dev, mr->uctx, XIB_RES_MR);
	xib_unuse(&mr->pd->usecnt);
	xib_mr_put(mr);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_dereg_mr);

/* Does @access need the pages pinned for writing (see xib_umem_get())? */
static bool xib_access_writes(u32 access)
{
	return access & (XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
			 XIB_ACCESS_REMOTE_ATOMIC);
}

/**
 * xib_rereg_user_mr() - change the memory, PD or access of a user MR
 * @mr: the MR
 * @flags: enum xib_rereg_mr_flags: what changes (at least one)
 * @pd: with XIB_REREG_MR_CHANGE_PD the new PD, of @mr's context
 * @addr: with XIB_REREG_MR_CHANGE_TRANSLATION the new first byte
 * @length: with XIB_REREG_MR_CHANGE_TRANSLATION the new length
 * @iova: with XIB_REREG_MR_CHANGE_TRANSLATION the address of @addr in
 *	WQEs and RETHs
 * @access: with XIB_REREG_MR_CHANGE_ACCESS the new access flags
 *
 * What is not changed stays; the result obeys the rules of
 * xib_reg_user_mr().  The MR keeps its lkey and rkey: a new struct
 * xib_mr with the new attributes takes @mr's place in the key table, so
 * a lookup finds either the old MR or the new one, never a mixture, and
 * requests that hold the old one finish with it.  The pages stay pinned
 * unless the translation changes or the new access needs them writable
 * and they are not; new pages are pinned (and charged) before the old
 * ones are released.  Then @mr leaves, as in xib_dereg_mr(): the driver's
 * dereg_mr, a wait for its last lookup reference, the old pages and PD
 * released.
 *
 * Return: the MR that replaces @mr (@mr is freed), or an ERR_PTR and
 * @mr unchanged: -EINVAL for a bad argument (also: the pages must be
 * pinned again for writing but belong to another process), -EBUSY while
 * memory windows are bound to @mr (binds meanwhile fail), -ENOMEM,
 * -EFAULT, or the driver's error.  Context: process context, as
 * xib_dereg_mr().
 */
struct xib_mr *xib_rereg_user_mr(struct xib_mr *mr, u32 flags,
				 struct xib_pd *pd, u64 addr, u64 length,
				 u64 iova, u32 access)
{
	struct xib_device *dev = mr->device;
	struct xib_umem *umem = mr->umem;
	struct xib_mr *new;
	bool repin;
	int ret;

	if (!flags || (flags & ~XIB_REREG_MR_SUPPORTED) || !umem)
		return ERR_PTR(-EINVAL);
	if (!(flags & XIB_REREG_MR_CHANGE_PD))
		pd = mr->pd;
	if (!(flags & XIB_REREG_MR_CHANGE_ACCESS))
		access = mr->access;
	if (!(flags & XIB_REREG_MR_CHANGE_TRANSLATION)) {
		addr = umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	if (pd->device != dev)
		return ERR_PTR(-EINVAL);
	ret = xib_check_mr_args(dev, addr, length, iova, access);
	if (ret)
		return ERR_PTR(ret);
	repin = (flags & XIB_REREG_MR_CHANGE_TRANSLATION) ||
		(xib_access_writes(access) && !umem->writable);
	if (repin && !(flags & XIB_REREG_MR_CHANGE_TRANSLATION) &&
	    umem->mm != current->mm)
		return ERR_PTR(-EINVAL);

	/* the windows bound to @mr would point to a stale MR: refused */
	if (xib_kill(&mr->mw_binds))
		return ERR_PTR(-EBUSY);
	ret = xib_pd_use(pd, mr->uctx);
	if (ret)
		goto err_revive;
	new = xib_obj_alloc(dev->ops->size_mr, sizeof(*new));
	if (!new) {
		ret = -ENOMEM;
		goto err_unuse_pd;
	}
	if (repin) {
		umem = xib_umem_get(dev, addr, length, access);
		if (IS_ERR(umem)) {
			ret = PTR_ERR(umem);
			goto err_free;
		}
	}
	new->device = dev;
	new->uctx = mr->uctx;
	kref_init(&new->ref);
	new->pd = pd;
	new->iova = iova;
	new->length = length;
	new->access = access;
	new->lkey = mr->lkey;
	new->rkey = mr->rkey;
	new->umem = umem;
	if (dev->ops->reg_mr) {
		ret = dev->ops->reg_mr(new);
		if (ret)
			goto err_release_umem;
	}

	/* From here on lookups of the key find @new. */
	xib_res_publish(dev, XIB_RES_MR, mr->lkey >> 8, new);
	if (dev->ops->dereg_mr)
		dev->ops->dereg_mr(mr);
	wait_var_event(&mr->ref, kref_read(&mr->ref) == 1);
	if (repin)
		xib_umem_release(mr->umem);
	mr->umem = NULL;
	xib_unuse(&mr->pd->usecnt);
	xib_mr_put(mr);
	return new;

err_release_umem:
	if (repin)
		xib_umem_release(umem);
err_free:
	kfree(new);
err_unuse_pd:
	xib_pd_unuse(pd);
err_revive:
	atomic_set(&mr->mw_binds, 0);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_rereg_user_mr);

/**
 * xib_mr_check() - may a request use [iova, iova + length) of an MR?
 * @mr: the MR
 * @pd: the PD of the QP (and for UD, of the AH) making the request
 * @iova: first byte
 * @length: bytes; 0 is always in bounds
 * @access: the enum xib_access_flags the request needs (0: local read)
 *
 * Return: 0, -EACCES when @pd is not @mr's or @mr lacks an access right,
 * -ERANGE when the range is not inside the MR (including ranges that
 * wrap around).  Context: any.
 */
int xib_mr_check(const struct xib_mr *mr, const struct xib_pd *pd, u64 iova,
		 u64 length, u32 access)
{
	u64 off;

	if (mr->pd != pd || (access & ~mr->access))
		return -EACCES;
	if (!length)
		return 0;
	if (iova < mr->iova)
		return -ERANGE;
	off = iova - mr->iova;
	if (off >= mr->length || length > mr->length - off)
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mr_check);

/**
 * xib_mr_get_by_key() - find a live MR by its lkey/rkey
 * @dev: the device
 * @key: the key; its tag byte must match too
 *
 * Return: the MR with a reference (drop with xib_mr_put()) or NULL.
 * Context: any.
 */
struct xib_mr *xib_mr_get_by_key(struct xib_device *dev, u32 key)
{
	struct xib_mr *mr;
	unsigned long flags;

	xa_lock_irqsave(&dev->res[XIB_RES_MR], flags);
	mr = xa_load(&dev->res[XIB_RES_MR], key >> 8);
	if (mr && (mr->lkey != key || !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	xa_unlock_irqrestore(&dev->res[XIB_RES_MR], flags);
	return mr;
}
EXPORT_SYMBOL_GPL(xib_mr_get_by_key);

/* Memory windows */

static void xib_mw_release(struct kref *ref)
{
	struct xib_mw *mw = container_of(ref, struct xib_mw, ref);

	xib_pd_put(mw->pd);
	kfree(mw);
}

static void xib_mw_put(struct xib_mw *mw)
{
	kref_put(&mw->ref, xib_mw_release);
}

/* A live window by its rkey's index (the key byte is not checked here). */
static struct xib_mw *xib_mw_get_by_key(struct xib_device *dev, u32 key)
{
	struct xib_mw *mw;
	unsigned long flags;

	if (!xib_key_is_mw(key))
		return NULL;
	xa_lock_irqsave(&dev->res[XIB_RES_MW], flags);
	mw = xa_load(&dev->res[XIB_RES_MW], key >> 8);
	if (mw && !kref_get_unless_zero(&mw->ref))
		mw = NULL;
	xa_unlock_irqrestore(&dev->res[XIB_RES_MW], flags);
	return mw;
}

/* Let go of the MR a window was bound to (its reference and bind count). */
static void xib_mw_drop_mr(struct xib_mr *mr)
{
	if (!mr)
		return;
	xib_unuse(&mr->mw_binds);
	xib_mr_put(mr);
}

/* Does [va, va + length) lie inside [start, start + size)? */
static bool xib_range_in(u64 va, u64 length, u64 start, u64 size)
{
	u64 off;

	if (va < start)
		return false;
	off = va - start;
	return off <= size && length <= size - off;
}

/**
 * xib_mw_bind_check() - may a bind WQE bind this window?
 * @mw: the window (its lock held, or a copy)
 * @qp_pd: the PD of the QP the bind was posted to
 * @mr: the MR the WQE names (NULL if its lkey names none)
 * @b: the bind
 *
 * The rules of IBTA vol. 1 10.6.7.2 (binding), for a window that is not
 * deallocated: a type 1 window is bound only by the Bind Memory Window
 * verb (@b->type1), a type 2 window only by a BIND_MW WQE; the new rkey
 * keeps the window's index; the QP is in the window's PD; a type 2
 * window must be free and the length nonzero (o10-37.2.30, o10-37.2.40);
 * a type 1 bind of length 0 unbinds, whatever @mr.  Otherwise the MR is
 * in the window's PD, was registered with MW_BIND (C10-73), has
 * LOCAL_WRITE if the window grants REMOTE_WRITE or REMOTE_ATOMIC
 * (C10-74), and holds the whole range (C10-75).  Only a type 2 window
 * may be bound zero-based (o10-36.2.2): a type 1 bind with ZERO_BASED,
 * an unbind included, is refused.
 *
 * Return: 0, -EINVAL (a wrong type, key, state, length or access bit,
 * or no MR), -EACCES (a PD or an access right of the MR), -ERANGE (the
 * range is not inside the MR, or wraps).  Context: any.
 */
int xib_mw_bind_check(const struct xib_mw *mw, const struct xib_pd *qp_pd,
		      const struct xib_mr *mr, const struct xib_mw_bind *b)
{
	bool type1 = mw->type == XIB_MW_TYPE_1;
	u64 end;

	if (mw->state == XIB_MW_INVALID || b->type1 != type1)
		return -EINVAL;
	if ((b->new_rkey >> 8) != mw->index)
		return -EINVAL;
	if ((b->access & ~XIB_ACCESS_MW_SUPPORTED) ||
	    (type1 && (b->access & XIB_ACCESS_ZERO_BASED)))
		return -EINVAL;
	if (mw->pd != qp_pd)
		return -EACCES;
	if (mw->type == XIB_MW_TYPE_2 &&
	    (mw->state != XIB_MW_FREE || !b->length))
		return -EINVAL;
	if (!b->length)
		return 0;
	if (!mr)
		return -EINVAL;
	if (mr->pd != mw->pd || !(mr->access & XIB_ACCESS_MW_BIND))
		return -EACCES;
	if ((b->access & (XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & XIB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	if (check_add_overflow(b->addr, b->length, &end) ||
	    !xib_range_in(b->addr, b->length, mr->iova, mr->length))
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mw_bind_check);

/**
 * xib_mw_access_check() - may a remote request use a window?
 * @mw: the window its rkey's index names (its lock held, or a copy)
 * @pd: the PD of the QP the request arrived on
 * @qp: that QP
 * @rkey: the request's R_Key
 * @va: first byte
 * @length: bytes; 0 is in bounds of a valid window
 * @access: the XIB_ACCESS_REMOTE_* right the request needs
 *
 * IBTA vol. 1 10.6.7.3 and 9.4.1.x (the responder's R_Key checks): the
 * window is valid and bound (an unbound type 1 window has length 0), the
 * whole R_Key matches (the key byte too: an old key of the window is
 * stale), the QP is in the window's PD, a type 2 window is bound to this
 * very QP (type 2B), the window grants @access, and the range lies
 * inside the window: [@va, @va + @length) inside [addr, addr + length)
 * of the window, or for a zero-based window inside [0, length).  What
 * the MR allows does not matter.
 *
 * Return: 0, -EACCES, or -ERANGE (out of bounds, or wraps).
 * Context: any.
 */
int xib_mw_access_check(const struct xib_mw *mw, const struct xib_pd *pd,
			const struct xib_qp *qp, u32 rkey, u64 va, u64 length,
			u32 access)
{
	u64 start = (mw->access & XIB_ACCESS_ZERO_BASED) ? 0 : mw->addr;
	u64 end;

	if (mw->state != XIB_MW_VALID || mw->rkey != rkey || mw->pd != pd ||
	    !mw->mr)
		return -EACCES;
	if (mw->type == XIB_MW_TYPE_2 && mw->qp != qp)
		return -EACCES;
	if (!access || (access & ~mw->access))
		return -EACCES;
	if (check_add_overflow(va, length, &end) ||
	    !xib_range_in(va, length, start, mw->length))
		return -ERANGE;
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mw_access_check);

/**
 * xib_mw_mr_va() - the MR address a remote address through a window names
 * @mw: the window (its lock held, or a copy), bound
 * @va: the request's address, which passed xib_mw_access_check()
 *
 * A window's addresses are its MR's, unless it is zero-based: then @va
 * is the offset from the window's first byte.  No overflow: the check
 * put @va inside the window, and the bind put the window inside the MR.
 *
 * Return: the address of the same byte in the MR (as mr->iova counts).
 * Context: any.
 */
u64 xib_mw_mr_va(const struct xib_mw *mw, u64 va)
{
	return (mw->access & XIB_ACCESS_ZERO_BASED) ? mw->addr + va : va;
}
EXPORT_SYMBOL_GPL(xib_mw_mr_va);

/**
 * xib_mw_inv_check() - may a LOCAL_INV or SEND_WITH_INV free a window?
 * @mw: the window the rkey's index names (its lock held, or a copy)
 * @pd: the PD of the QP that invalidates (the sender's for LOCAL_INV,
 *	the receiver's for SEND_WITH_INV)
 * @qp: that QP
 * @rkey: the rkey to invalidate
 *
 * Only type 2 windows are invalidated (o10-37.2.26: a type 1 window is
 * not); the window is valid with exactly this rkey, in @pd, and bound to
 * this QP (a type 2B window belongs to the QP it was bound on).
 *
 * Return: 0, -EINVAL (type, state or key), -EACCES (PD or QP).
 * Context: any.
 */
int xib_mw_inv_check(const struct xib_mw *mw, const struct xib_pd *pd,
		     const struct xib_qp *qp, u32 rkey)
{
	if (mw->type != XIB_MW_TYPE_2 || mw->state != XIB_MW_VALID ||
	    mw->rkey != rkey)
		return -EINVAL;
	if (mw->pd != pd || mw->qp != qp)
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL_GPL(xib_mw_inv_check);

/**
 * xib_alloc_mw() - allocate a memory window
 * @pd: the PD
 * @type: XIB_MW_TYPE_1 or XIB_MW_TYPE_2
 *
 * A type 1 window starts valid and unbound, a type 2 window free; its
 * rkey is a random index of the MW range and a random key byte.
 *
 * Return: the window or an ERR_PTR: -EOPNOTSUPP (the device has no
 * windows of @type), -EINVAL, -ENOMEM (also beyond attrs.max_mw or the
 * context's max_mw_per_context).  Context: process context.
 */
struct xib_mw *xib_alloc_mw(struct xib_pd *pd, u32 type)
{
	struct xib_device *dev = pd->device;
	u32 cap, index;
	struct xib_mw *mw;
	int ret;

	if (type != XIB_MW_TYPE_1 && type != XIB_MW_TYPE_2)
		return ERR_PTR(-EINVAL);
	cap = type == XIB_MW_TYPE_1 ? XIB_DEVICE_MEM_WINDOW :
				      XIB_DEVICE_MEM_WINDOW_TYPE_2B;
	if (!xib_has_verbs(dev) || !dev->attrs.max_mw ||
	    !(dev->attrs.device_cap_flags & cap))
		return ERR_PTR(-EOPNOTSUPP);
	ret = xib_pd_use(pd, pd->uctx);
	if (ret)
		return ERR_PTR(ret);
	ret = xib_res_charge(dev, pd->uctx, XIB_RES_MW, dev->attrs.max_mw);
	if (ret)
		goto err_unuse_pd;
	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = xib_res_reserve_random(&dev->res[XIB_RES_MW], &index,
				     XIB_MW_INDEX_MIN, XIB_NUM_MAX);
	if (ret)
		goto err_free;
	mw->device = dev;
	mw->uctx = pd->uctx;
	kref_init(&mw->ref);
	mw->pd = pd;
	mw->type = type;
	mw->index = index;
	spin_lock_init(&mw->lock);
	mw->state = type == XIB_MW_TYPE_1 ? XIB_MW_VALID : XIB_MW_FREE;
	mw->rkey = index << 8 | (get_random_u32() & 0xff);
	xib_res_publish(dev, XIB_RES_MW, index, mw);
	return mw;

err_free:
	kfree(mw);
err_uncharge:
	xib_res_uncharge(dev, pd->uctx, XIB_RES_MW);
err_unuse_pd:
	xib_pd_unuse(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_alloc_mw);

/**
 * xib_dealloc_mw() - destroy a memory window
 * @mw: the window, bound or not
 *
 * The window leaves the key table and becomes invalid: a bound one lets
 * its MR go (which may then be deregistered), and requests that look it
 * up afterwards fail.  Requests already past the check finish.
 *
 * Return: 0.  Context: process context.
 */
int xib_dealloc_mw(struct xib_mw *mw)
{
	struct xib_device *dev = mw->device;
	struct xib_qp *qp;
	struct xib_mr *mr;
	unsigned long flags;

	xib_res_erase(dev, XIB_RES_MW, mw->index);
	spin_lock_irqsave(&mw->lock, flags);
	mr = mw->mr;
	qp = mw->qp;
	mw->mr = NULL;
	mw->qp = NULL;
	mw->length = 0;
	mw->state = XIB_MW_INVALID;
	spin_unlock_irqrestore(&mw->lock, flags);
	xib_mw_drop_mr(mr);
	if (qp)
		xib_qp_put(qp);
	xib_res_uncharge(dev, mw->uctx, XIB_RES_MW);
	xib_unuse(&mw->pd->usecnt);
	xib_mw_put(mw);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_dealloc_mw);

/**
 * xib_bind_mw() - execute a bind WQE (Bind Memory Window, or BIND_MW)
 * @qp: the QP the bind was posted to
 * @mw_rkey: an rkey of the window, as the WQE names it: its index names
 *	the window (the key byte may be an old one; the PD authorises)
 * @mr_lkey: the MR to bind to, as the WQE names it (unused to unbind)
 * @b: the bind
 *
 * Every value comes from user space: the window and the MR are looked
 * up by key, must be found, and must pass xib_mw_bind_check() (which
 * also keeps out another context's objects: PDs belong to one context).
 * On success the window points to the MR (a reference and a count in
 * its mw_binds, so the MR cannot be deregistered meanwhile), has the new
 * range, access and rkey, and a type 2 window is bound to @qp (it holds
 * a reference on @qp until it is invalidated or deallocated).  A type 1
 * window bound again lets its previous MR go.
 *
 * Return: 0, or a negative errno (the WQE completes with MW_BIND_ERR):
 * -EINVAL (no such window or MR, or a rule of xib_mw_bind_check()),
 * -EACCES, -ERANGE, -EBUSY (the MR is being deregistered).
 * Context: any (the engine calls it under its locks).
 */
int xib_bind_mw(struct xib_qp *qp, u32 mw_rkey, u32 mr_lkey,
		const struct xib_mw_bind *b)
{
	struct xib_device *dev = qp->device;
	struct xib_mr *mr = NULL, *old = NULL;
	unsigned long flags;
	struct xib_mw *mw;
	int ret;

	mw = xib_mw_get_by_key(dev, mw_rkey);
	if (!mw)
		return -EINVAL;
	if (b->length) {
		mr = xib_mr_get_by_key(dev, mr_lkey);
		if (mr && mr->lkey != mr_lkey) {
			xib_mr_put(mr);
			mr = NULL;
		}
		if (mr && !xib_use(&mr->mw_binds)) {
			xib_mr_put(mr);
			xib_mw_put(mw);
			return -EBUSY;
		}
	}
	spin_lock_irqsave(&mw->lock, flags);
	ret = xib_mw_bind_check(mw, qp->pd, mr, b);
	if (!ret) {
		old = mw->mr;
		mw->mr = mr;	/* takes our reference and use, or NULL */
		mw->addr = b->length ? b->addr : 0;
		mw->length = b->length;
		mw->access = b->length ? b->access : 0;
		mw->rkey = b->new_rkey;
		if (mw->type == XIB_MW_TYPE_2) {
			/* from FREE: no QP before */
			kref_get(&qp->ref);
			mw->qp = qp;
		}
		mw->state = XIB_MW_VALID;
		mr = NULL;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	xib_mw_drop_mr(mr);
	xib_mw_drop_mr(old);
	xib_mw_put(mw);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_bind_mw);

/**
 * xib_invalidate_mw() - free a type 2 window (LOCAL_INV, SEND_WITH_INV)
 * @qp: the QP that invalidates: the sender of a LOCAL_INV, the receiver
 *	of a SEND_WITH_INV
 * @pd: the PD the invalidation is checked against: @qp's, or for an XRC
 *	target (which has none) that of the XRC SRQ the request names
 * @rkey: the rkey to invalidate (from user space or the wire)
 *
 * The window must pass xib_mw_inv_check(); it then lets its MR go and
 * is free for the next type 2 bind.  Remote accesses with @rkey fail
 * from then on.  An MR's rkey is never invalidated (xib has no fast
 * registration): -EINVAL.
 *
 * Return: 0, -EINVAL or -EACCES.  Context: any.
 */
int xib_invalidate_mw(struct xib_qp *qp, const struct xib_pd *pd, u32 rkey)
{
	struct xib_qp *bound = NULL;
	struct xib_mr *mr = NULL;
	unsigned long flags;
	struct xib_mw *mw;
	int ret;

	mw = xib_mw_get_by_key(qp->device, rkey);
	if (!mw)
		return -EINVAL;
	spin_lock_irqsave(&mw->lock, flags);
	ret = xib_mw_inv_check(mw, pd, qp, rkey);
	if (!ret) {
		mr = mw->mr;
		bound = mw->qp;
		mw->mr = NULL;
		mw->qp = NULL;
		mw->addr = 0;
		mw->length = 0;
		mw->access = 0;
		mw->state = XIB_MW_FREE;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	xib_mw_drop_mr(mr);
	if (bound)
		xib_qp_put(bound);
	xib_mw_put(mw);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_invalidate_mw);

/**
 * xib_rkey_get_mr() - the memory a remote request may use through an rkey
 * @qp: the QP the request arrived on
 * @pd: the PD the request is checked against: @qp's, or for an XRC
 *	target (which has none) that of the XRC SRQ the request names
 *	(IBTA Annex A14)
 * @rkey: the request's R_Key (from the wire: anything)
 * @va: in: first byte, as the request names it; out (on success): the
 *	same byte as an address of the returned MR
 * @length: bytes, > 0
 * @access: the XIB_ACCESS_REMOTE_* right the request needs
 *
 * An MR's rkey: the MR, in @pd, with @access, holding the range
 * (xib_mr_check()).  A window's rkey: the window passes
 * xib_mw_access_check(), and the MR it is bound to is returned (the
 * range lies in the MR since the bind); the MR's own rights do not
 * matter, and the address of a zero-based window is translated
 * (xib_mw_mr_va()).  Copy at *@va - mr->iova of the MR's memory.
 *
 * Return: the MR with a reference (drop with xib_mr_put()), or NULL: a
 * remote access violation.  Context: any.
 */
struct xib_mr *xib_rkey_get_mr(struct xib_qp *qp, const struct xib_pd *pd,
			       u32 rkey, u64 *va, u64 length, u32 access)
{
	struct xib_device *dev = qp->device;
	struct xib_mr *mr = NULL;
	unsigned long flags;
	struct xib_mw *mw;
	u64 mr_va = 0;

	if (!xib_key_is_mw(rkey)) {
		mr = xib_mr_get_by_key(dev, rkey);
		if (mr && (mr->rkey != rkey || !mr->umem ||
			   xib_mr_check(mr, pd, *va, length, access))) {
			xib_mr_put(mr);
			mr = NULL;
		}
		return mr;
	}
	mw = xib_mw_get_by_key(dev, rkey);
	if (!mw)
		return NULL;
	spin_lock_irqsave(&mw->lock, flags);
	if (!xib_mw_access_check(mw, pd, qp, rkey, *va, length,
				 access)) {
		mr = mw->mr;
		kref_get(&mr->ref);
		mr_va = xib_mw_mr_va(mw, *va);
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	xib_mw_put(mw);
	if (mr && (!mr->umem || xib_mr_check(mr, mr->pd, mr_va, length, 0))) {
		xib_mr_put(mr);
		mr = NULL;
	}
	if (mr)
		*va = mr_va;
	return mr;
}
EXPORT_SYMBOL_GPL(xib_rkey_get_mr);

/* CQs */

static void xib_cq_free(struct xib_cq *cq)
{
	if (cq->device->ops->release_cq)
		cq->device->ops->release_cq(cq);
	kfree(cq);
}

static void xib_cq_release_work(struct work_struct *work)
{
	xib_cq_free(container_of(work, struct xib_cq, release_work));
}

static void xib_cq_release(struct kref *ref)
{
	struct xib_cq *cq = container_of(ref, struct xib_cq, ref);

	if (xib_can_release_now()) {
		xib_cq_free(cq);
		return;
	}
	INIT_WORK(&cq->release_work, xib_cq_release_work);
	queue_work(xib_release_wq, &cq->release_work);
}

/**
 * xib_cq_put() - drop a reference on a CQ
 * @cq: the CQ
 *
 * The final put releases the CQ here in process context, or defers the
 * release to a workqueue in atomic context.  Context: any.
 */
void xib_cq_put(struct xib_cq *cq)
{
	kref_put(&cq->ref, xib_cq_release);
}
EXPORT_SYMBOL_GPL(xib_cq_put);

/**
 * xib_create_cq() - create a completion queue
 * @dev: the device
 * @uctx: the owning user context, or NULL for the kernel
 * @attr: cqe 1 to attrs.max_cqe, comp_vector 0, handlers
 * @ring: for a user CQ, returns where the CQE ring is mapped
 *
 * Return: the CQ (@cq->cqe the granted size) or an ERR_PTR: -EINVAL,
 * -EOPNOTSUPP, -ENOMEM (also beyond attrs.max_cq), or the driver's error.
 */
struct xib_cq *xib_create_cq(struct xib_device *dev, struct xib_ucontext *uctx,
			     const struct xib_cq_init_attr *attr,
			     struct xib_uverbs_ring *ring)
{
	struct xib_cq *cq;
	int ret;

	if (!xib_has_verbs(dev) || !dev->ops->create_cq)
		return ERR_PTR(-EOPNOTSUPP);
	if (uctx && uctx->device != dev)
		return ERR_PTR(-EINVAL);
	if (!attr->cqe || attr->cqe > dev->attrs.max_cqe ||
	    attr->comp_vector >= XIB_NUM_COMP_VECTORS)
		return ERR_PTR(-EINVAL);
	ret = xib_res_charge(dev, uctx, XIB_RES_CQ, dev->attrs.max_cq);
	if (ret)
		return ERR_PTR(ret);
	cq = xib_obj_alloc(dev->ops->size_cq, sizeof(*cq));
	if (!cq) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	cq->device = dev;
	cq->uctx = uctx;
	kref_init(&cq->ref);
	atomic_set(&cq->usecnt, 0);
	cq->comp_handler = attr->comp_handler;
	cq->event_handler = attr->event_handler;
	cq->context = attr->context;
	cq->user_handle = attr->user_handle;
	ret = xib_res_reserve(dev, XIB_RES_CQ, &cq->cqn);
	if (ret)
		goto err_free;
	ret = dev->ops->create_cq(cq, attr, uctx, ring);
	if (ret)
		goto err_erase;
	if (WARN_ON_ONCE(cq->cqe < attr->cqe))
		cq->cqe = attr->cqe;
	xib_res_publish(dev, XIB_RES_CQ, cq->cqn, cq);
	return cq;

err_erase:
	xib_res_erase(dev, XIB_RES_CQ, cq->cqn);
err_free:
	kfree(cq);
err_uncharge:
	xib_res_uncharge(dev, uctx, XIB_RES_CQ);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_create_cq);

/**
 * xib_resize_cq() - change the number of entries of a CQ
 * @cq: the CQ
 * @cqe: at least this many entries, 1 to attrs.max_cqe
 * @ring: for a user CQ, returns the new ring
 *
 * Return: 0, -EINVAL (bad size, or the unpolled CQEs do not fit),
 * -EOPNOTSUPP, or the driver's error.
 */
int xib_resize_cq(struct xib_cq *cq, u32 cqe, struct xib_uverbs_ring *ring)
{
	struct xib_device *dev = cq->device;

	if (!dev->ops->resize_cq)
		return -EOPNOTSUPP;
	if (!cqe || cqe > dev->attrs.max_cqe)
		return -EINVAL;
	return dev->ops->resize_cq(cq, cqe, ring);
}
EXPORT_SYMBOL_GPL(xib_resize_cq);

/**
 * xib_destroy_cq() - destroy a completion queue
 * @cq: the CQ
 *
 * Return: 0, or -EBUSY while a QP uses it.
 */
int xib_destroy_cq(struct xib_cq *cq)
{
	struct xib_device *dev = cq->device;

	if (xib_kill(&cq->usecnt))
		return -EBUSY;
	xib_res_erase(dev, XIB_RES_CQ, cq->cqn);
	dev->ops->destroy_cq(cq);
	xib_res_uncharge(dev, cq->uctx, XIB_RES_CQ);
	xib_cq_put(cq);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_destroy_cq);

static int xib_cq_use(struct xib_cq *cq, struct xib_device *dev,
		      struct xib_ucontext *uctx)
{
	if (!cq || cq->device != dev || cq->uctx != uctx)
		return -EINVAL;
	if (!xib_use(&cq->usecnt))
		return -EINVAL;
	kref_get(&cq->ref);
	return 0;
}

static void xib_cq_unuse(struct xib_cq *cq)
{
	xib_unuse(&cq->usecnt);
	xib_cq_put(cq);
}

/* SRQs */

static void xib_srq_free(struct xib_srq *srq)
{
	if (srq->device->ops->release_srq)
		srq->device->ops->release_srq(srq);
	if (srq->cq)
		xib_cq_put(srq->cq);
	if (srq->xrcd)
		xib_xrcd_put(srq->xrcd);
	xib_pd_put(srq->pd);
	kfree(srq);
}

static void xib_srq_release_work(struct work_struct *work)
{
	xib_srq_free(container_of(work, struct xib_srq, release_work));
}

static void xib_srq_release(struct kref *ref)
{
	struct xib_srq *srq = container_of(ref, struct xib_srq, ref);

	if (xib_can_release_now()) {
		xib_srq_free(srq);
		return;
	}
	INIT_WORK(&srq->release_work, xib_srq_release_work);
	queue_work(xib_release_wq, &srq->release_work);
}

/**
 * xib_srq_put() - drop a reference on an SRQ
 * @srq: the SRQ
 *
 * As xib_cq_put().  Context: any.
 */
void xib_srq_put(struct xib_srq *srq)
{
	kref_put(&srq->ref, xib_srq_release);
}
EXPORT_SYMBOL_GPL(xib_srq_put);

/**
 * xib_create_srq() - create a shared receive queue
 * @pd: the PD
 * @uctx: the owning user context (that of @pd), or NULL for the kernel
 * @attr: max_wr 1 to attrs.max_srq_wr, max_sge up to attrs.max_srq_sge,
 *	srq_limit up to max_wr; on return max_wr/max_sge are what was granted.
 *	srq_type BASIC with no xrcd and cq, or XRC with both (the CQ of the
 *	same device and owner): the SRQ then holds a reference on the
 *	domain and counts as a user of the CQ until it is destroyed.
 * @ring: for a user SRQ, returns where the receive ring is mapped
 *
 * Return: the SRQ or an ERR_PTR: -EINVAL, -EOPNOTSUPP, -ENOMEM (also
 * beyond attrs.max_srq), or the driver's error.
 */
struct xib_srq *xib_create_srq(struct xib_pd *pd, struct xib_ucontext *uctx,
			       struct xib_srq_init_attr *attr,
			       struct xib_uverbs_ring *ring)
{
	struct xib_device *dev = pd->device;
	struct xib_srq *srq;
	int ret;

	if (!xib_has_verbs(dev) || !dev->ops->create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	if (!attr->max_wr || attr->max_wr > dev->attrs.max_srq_wr ||
	    attr->max_sge > dev->attrs.max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return ERR_PTR(-EINVAL);
	switch (attr->srq_type) {
	case XIB_SRQT_BASIC:
		if (attr->xrcd || attr->cq)
			return ERR_PTR(-EINVAL);
		break;
	case XIB_SRQT_XRC:
		if (!attr->xrcd || attr->xrcd->device != dev)
			return ERR_PTR(-EINVAL);
		break;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
	ret = xib_pd_use(pd, uctx);
	if (ret)
		return ERR_PTR(ret);
	if (attr->srq_type == XIB_SRQT_XRC) {
		ret = xib_cq_use(attr->cq, dev, uctx);
		if (ret)
			goto err_unuse_pd;
	}
	ret = xib_res_charge(dev, uctx, XIB_RES_SRQ, dev->attrs.max_srq);
	if (ret)
		goto err_unuse_cq;
	srq = xib_obj_alloc(dev->ops->size_srq, sizeof(*srq));
	if (!srq) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	srq->device = dev;
	srq->uctx = uctx;
	kref_init(&srq->ref);
	atomic_set(&srq->usecnt, 0);
	srq->pd = pd;
	srq->srq_type = attr->srq_type;
	srq->srq_limit = attr->srq_limit;
	srq->event_handler = attr->event_handler;
	srq->context = attr->context;
	srq->user_handle = attr->user_handle;
	ret = xib_res_reserve(dev, XIB_RES_SRQ, &srq->srqn);
	if (ret)
		goto err_free;
	ret = dev->ops->create_srq(srq, attr, uctx, ring);
	if (ret)
		goto err_erase;
	srq->max_wr = attr->max_wr;
	srq->max_sge = attr->max_sge;
	if (attr->srq_type == XIB_SRQT_XRC) {
		kref_get(&attr->xrcd->ref);
		srq->xrcd = attr->xrcd;
		srq->cq = attr->cq;	/* the use and reference taken above */
	}
	xib_res_publish(dev, XIB_RES_SRQ, srq->srqn, srq);
	return srq;

err_erase:
	xib_res_erase(dev, XIB_RES_SRQ, srq->srqn);
err_free:
	kfree(srq);
err_uncharge:
	xib_res_uncharge(dev, uctx, XIB_RES_SRQ);
err_unuse_cq:
	if (attr->srq_type == XIB_SRQT_XRC)
		xib_cq_unuse(attr->cq);
err_unuse_pd:
	xib_pd_unuse(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_create_srq);

/**
 * xib_modify_srq() - change the limit of an SRQ
 * @srq: the SRQ
 * @mask: enum xib_srq_attr_mask; XIB_SRQ_MAX_WR (resizing) is refused
 *	with -EOPNOTSUPP: a resize returns a new ring, see xib_resize_srq()
 * @max_wr: ignored (see @mask)
 * @srq_limit: with XIB_SRQ_LIMIT, the new limit, up to @srq->max_wr; 0
 *	disarms
 *
 * @srq->srq_limit is set before the driver arms the new limit, so that
 * an SRQ_LIMIT_REACHED of the new limit (which zeroes it, see
 * xib_srq_event()) always comes after it.  Only an event of the old
 * limit firing while this runs can leave it 0 with the new limit armed.
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP or the driver's error.
 */
int xib_modify_srq(struct xib_srq *srq, u32 mask, u32 max_wr, u32 srq_limit)
{
	struct xib_device *dev = srq->device;
	u32 old;
	int ret;

	if (mask & ~(XIB_SRQ_MAX_WR | XIB_SRQ_LIMIT))
		return -EINVAL;
	if ((mask & XIB_SRQ_MAX_WR) || !dev->ops->modify_srq)
		return -EOPNOTSUPP;
	if (!(mask & XIB_SRQ_LIMIT))
		return 0;
	if (srq_limit > srq->max_wr)
		return -EINVAL;
	mutex_lock(&xib_srq_mutex);
	old = xchg(&srq->srq_limit, srq_limit);
	ret = dev->ops->modify_srq(srq, srq_limit);
	/* The driver kept the old limit: so does the SRQ, unless it fired. */
	if (ret)
		cmpxchg(&srq->srq_limit, srq_limit, old);
	mutex_unlock(&xib_srq_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_modify_srq);

/**
 * xib_resize_srq() - change the number of entries of an SRQ
 * @srq: the SRQ
 * @max_wr: in: at least this many entries, 1 to attrs.max_srq_wr, and
 *	not below an armed limit; out: the number granted
 * @ring: for a user SRQ, returns the new ring
 *
 * The driver keeps the posted WQEs not yet consumed (-EINVAL if they do
 * not fit).  Serialised with xib_modify_srq() by the SRQ mutex, so the
 * limit it checks against is not raised meanwhile (it may fire, which
 * only lowers it to 0).
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP or the driver's error; on error the
 * SRQ is unchanged.
 */
int xib_resize_srq(struct xib_srq *srq, u32 *max_wr,
		   struct xib_uverbs_ring *ring)
{
	struct xib_device *dev = srq->device;
	int ret;

	if (!dev->ops->resize_srq)
		return -EOPNOTSUPP;
	if (!*max_wr || *max_wr > dev->attrs.max_srq_wr)
		return -EINVAL;
	mutex_lock(&xib_srq_mutex);
	if (*max_wr < READ_ONCE(srq->srq_limit)) {
		ret = -EINVAL;
		goto out;
	}
	ret = dev->ops->resize_srq(srq, max_wr, ring);
	if (!ret)
		WRITE_ONCE(srq->max_wr, *max_wr);
out:
	mutex_unlock(&xib_srq_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_resize_srq);

/**
 * xib_destroy_srq() - destroy a shared receive queue
 * @srq: the SRQ
 *
 * Return: 0, or -EBUSY while a QP uses it.
 */
int xib_destroy_srq(struct xib_srq *srq)
{
	struct xib_device *dev = srq->device;

	if (xib_kill(&srq->usecnt))
		return -EBUSY;
	xib_res_erase(dev, XIB_RES_SRQ, srq->srqn);
	dev->ops->destroy_srq(srq);
	xib_res_uncharge(dev, srq->uctx, XIB_RES_SRQ);
	if (srq->cq)
		xib_unuse(&srq->cq->usecnt);
	xib_unuse(&srq->pd->usecnt);
	xib_srq_put(srq);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_destroy_srq);

/* AHs */

static void xib_ah_release(struct kref *ref)
{
	struct xib_ah *ah = container_of(ref, struct xib_ah, ref);

	xib_pd_put(ah->pd);
	kfree(ah);
}

/**
 * xib_ah_put() - drop a reference on an AH
 * @ah: the AH
 *
 * Context: any.
 */
void xib_ah_put(struct xib_ah *ah)
{
	kref_put(&ah->ref, xib_ah_release);
}
EXPORT_SYMBOL_GPL(xib_ah_put);

/* An address vector: port 1, global, a valid source GID. */
static int xib_check_av(struct xib_device *dev,
			const struct xib_uverbs_ah_attr *av, u8 port_num)
{
	bool valid = false;

	if (!port_num || port_num > dev->phys_port_cnt || !av->is_global ||
	    av->sl > 15 || av->flow_label >= BIT(20) || av->reserved)
		return -EINVAL;
	if (av->sgid_index >= XIB_PORT_GID_TBL_LEN)
		return -EINVAL;
	mutex_lock(&dev->port_lock);
	if (dev->ports)
		valid = dev->ports[port_num - 1].gids[av->sgid_index].valid;
	mutex_unlock(&dev->port_lock);
	return valid ? 0 : -EINVAL;
}

/**
 * xib_create_ah() - create an address handle
 * @pd: the PD
 * @uctx: the owning user context (that of @pd), or NULL for the kernel
 * @attr: the address: port 1, is_global 1, a valid sgid_index
 *
 * Return: the AH or an ERR_PTR: -EINVAL, -EOPNOTSUPP, -ENOMEM (also
 * beyond attrs.max_ah), or the driver's error.  Context: process context.
 */
struct xib_ah *xib_create_ah(struct xib_pd *pd, struct xib_ucontext *uctx,
			     const struct xib_uverbs_ah_attr *attr)
{
	struct xib_device *dev = pd->device;
	struct xib_ah *ah;
	int ret;

	if (!xib_has_verbs(dev))
		return ERR_PTR(-EOPNOTSUPP);
	ret = xib_check_av(dev, attr, attr->port_num);
	if (ret)
		return ERR_PTR(ret);
	ret = xib_pd_use(pd, uctx);
	if (ret)
		return ERR_PTR(ret);
	ret = xib_res_charge(dev, uctx, XIB_RES_AH, dev->attrs.max_ah);
	if (ret)
		goto err_unuse_pd;
	ah = xib_obj_alloc(dev->ops->size_ah, sizeof(*ah));
	if (!ah) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ah->device = dev;
	ah->uctx = uctx;
	kref_init(&ah->ref);
	ah->pd = pd;
	ah->attr = *attr;
	ret = xib_res_reserve(dev, XIB_RES_AH, &ah->ahn);
	if (ret)
		goto err_free;
	if (dev->ops->create_ah) {
		ret = dev->ops->create_ah(ah);
		if (ret)
			goto err_erase;
	}
	xib_res_publish(dev, XIB_RES_AH, ah->ahn, ah);
	return ah;

err_erase:
	xib_res_erase(dev, XIB_RES_AH, ah->ahn);
err_free:
	kfree(ah);
err_uncharge:
	xib_res_uncharge(dev, uctx, XIB_RES_AH);
err_unuse_pd:
	xib_pd_unuse(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_create_ah);

/**
 * xib_destroy_ah() - destroy an address handle
 * @ah: the AH
 *
 * Return: 0.
 */
int xib_destroy_ah(struct xib_ah *ah)
{
	struct xib_device *dev = ah->device;

	xib_res_erase(dev, XIB_RES_AH, ah->ahn);
	if (dev->ops->destroy_ah)
		dev->ops->destroy_ah(ah);
	xib_res_uncharge(dev, ah->uctx, XIB_RES_AH);
	xib_unuse(&ah->pd->usecnt);
	xib_ah_put(ah);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_destroy_ah);

/**
 * xib_ah_get_by_num() - find a live AH by its number
 * @dev: the device
 * @ahn: the number
 *
 * Return: the AH with a reference (drop with xib_ah_put()) or NULL.
 * Context: any.
 */
struct xib_ah *xib_ah_get_by_num(struct xib_device *dev, u32 ahn)
{
	struct xib_ah *ah;
	unsigned long flags;

	xa_lock_irqsave(&dev->res[XIB_RES_AH], flags);
	ah = xa_load(&dev->res[XIB_RES_AH], ahn);
	if (ah && !kref_get_unless_zero(&ah->ref))
		ah = NULL;
	xa_unlock_irqrestore(&dev->res[XIB_RES_AH], flags);
	return ah;
}
EXPORT_SYMBOL_GPL(xib_ah_get_by_num);

/* QPs */

/* Process context: the CQs' and SRQ's final puts release them here. */
static void xib_qp_free(struct xib_qp *qp)
{
	if (qp->device->ops->release_qp)
		qp->device->ops->release_qp(qp);
	if (qp->srq)
		xib_srq_put(qp->srq);
	if (qp->recv_cq)
		xib_cq_put(qp->recv_cq);
	if (qp->send_cq)
		xib_cq_put(qp->send_cq);
	if (qp->pd)
		xib_pd_put(qp->pd);
	if (qp->xrcd)
		xib_xrcd_put(qp->xrcd);
	mutex_destroy(&qp->mutex);
	kfree(qp);
}

static void xib_qp_release_work(struct work_struct *work)
{
	xib_qp_free(container_of(work, struct xib_qp, release_work));
}

static void xib_qp_release(struct kref *ref)
{
	struct xib_qp *qp = container_of(ref, struct xib_qp, ref);

	if (xib_can_release_now()) {
		xib_qp_free(qp);
		return;
	}
	INIT_WORK(&qp->release_work, xib_qp_release_work);
	queue_work(xib_release_wq, &qp->release_work);
}

/**
 * xib_qp_put() - drop a reference on a QP
 * @qp: the QP
 *
 * As xib_cq_put().  Context: any.
 */
void xib_qp_put(struct xib_qp *qp)
{
	kref_put(&qp->ref, xib_qp_release);
}
EXPORT_SYMBOL_GPL(xib_qp_put);

static int xib_check_qp_init_attr(struct xib_device *dev,
				  struct xib_qp_init_attr *attr)
{
	const struct xib_uverbs_device_attr *lim = &dev->attrs;
	struct xib_uverbs_qp_cap *cap = &attr->cap;

	switch (attr->qp_type) {
	case XIB_QPT_RC:
	case XIB_QPT_UC:
	case XIB_QPT_UD:
		if (!attr->send_cq || !attr->recv_cq || attr->xrcd)
			return -EINVAL;
		break;
	case XIB_QPT_XRC_SEND:
		/* an initiator: a send queue only (IBTA 9.8.1) */
		if (!attr->send_cq || attr->recv_cq || attr->srq ||
		    attr->xrcd || cap->max_recv_wr || cap->max_recv_sge)
			return -EINVAL;
		break;
	case XIB_QPT_XRC_RECV:
		/* a target: no queue of its own; its SRQs are per message */
		if (!attr->xrcd || attr->xrcd->device != dev ||
		    attr->send_cq || attr->recv_cq || attr->srq ||
		    cap->max_send_wr || cap->max_recv_wr ||
		    cap->max_send_sge || cap->max_recv_sge ||
		    cap->max_inline_data || cap->reserved || attr->sq_sig_all)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
	if (!cap->max_send_wr || cap->max_send_wr > lim->max_qp_wr ||
	    cap->max_send_sge > lim->max_sge ||
	    cap->max_inline_data > lim->max_inline_data || cap->reserved)
		return -EINVAL;
	if (attr->srq) {
		/* Receives come from the SRQ: the QP has no receive queue. */
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	} else if (cap->max_recv_wr > lim->max_qp_wr ||
		   cap->max_recv_sge > lim->max_sge) {
		return -EINVAL;
	}
	return 0;
}

/**
 * xib_create_qp() - create a queue pair
 * @pd: the PD; NULL for an XRC target (XIB_QPT_XRC_RECV)
 * @uctx: the owning user context (that of @pd and of the CQs and SRQ), or
 *	NULL for the kernel; an XRC target is owned by none (see
 *	xib_open_qp())
 * @attr: type RC, UC, UD or XRC_SEND (no receive CQ, SRQ or receive
 *	capacity) with a PD, or XRC_RECV with @attr->xrcd and no PD, CQ,
 *	SRQ or capacity; CQs and SRQ of the same device and owner, and
 *	capacities within the device's limits (max_send_wr 1 to max_qp_wr,
 *	max_recv_wr up to max_qp_wr, SGEs up to max_sge, inline data up to
 *	max_inline_data; with an SRQ the receive capacities are ignored and
 *	returned as 0).  On return @attr->cap is what was granted.
 * @sq: for a user QP, returns where the send ring is mapped
 * @rq: for a user QP without SRQ, returns where the receive ring is
 *
 * The QP starts in RESET with a number from 16 to 2^24 - 1.
 *
 * Return: the
 * QP or an ERR_PTR: -EINVAL, -EOPNOTSUPP, -ENOMEM (also beyond
 * attrs.max_qp), or the driver's error.
 */
struct xib_qp *xib_create_qp(struct xib_pd *pd, struct xib_ucontext *uctx,
			     struct xib_qp_init_attr *attr,
			     struct xib_uverbs_ring *sq,
			     struct xib_uverbs_ring *rq)
{
	struct xib_device *dev;
	struct xib_uverbs_qp_cap req;
	bool tgt = attr->qp_type == XIB_QPT_XRC_RECV;
	struct xib_qp *qp;
	int ret;

	if (tgt ? pd || !attr->xrcd : !pd)
		return ERR_PTR(-EINVAL);
	dev = tgt ? attr->xrcd->device : pd->device;
	if (!xib_has_verbs(dev))
		return ERR_PTR(-EOPNOTSUPP);
	ret = xib_check_qp_init_attr(dev, attr);
	if (ret)
		return ERR_PTR(ret);
	if (attr->srq && (attr->srq->device != dev || attr->srq->uctx != uctx ||
			  attr->srq->srq_type != XIB_SRQT_BASIC))
		return ERR_PTR(-EINVAL);
	req = attr->cap;
	/*
	 * A target is shared by the contexts of its domain and outlives its
	 * creator's: it is charged to the device alone and owned by none.
	 */
	if (tgt)
		uctx = NULL;

	if (pd) {
		ret = xib_pd_use(pd, uctx);
		if (ret)
			return ERR_PTR(ret);
	}
	if (attr->send_cq) {
		ret = xib_cq_use(attr->send_cq, dev, uctx);
		if (ret)
			goto err_unuse_pd;
	}
	if (attr->recv_cq) {
		ret = xib_cq_use(attr->recv_cq, dev, uctx);
		if (ret)
			goto err_unuse_send_cq;
	}
	if (attr->srq) {
		if (!xib_use(&attr->srq->usecnt)) {
			ret = -EINVAL;
			goto err_unuse_recv_cq;
		}
		kref_get(&attr->srq->ref);
	}
	ret = xib_res_charge(dev, uctx, XIB_RES_QP, dev->attrs.max_qp);
	if (ret)
		goto err_unuse_srq;
	qp = xib_obj_alloc(dev->ops->size_qp, sizeof(*qp));
	if (!qp) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	qp->device = dev;
	qp->uctx = uctx;
	kref_init(&qp->ref);
	INIT_LIST_HEAD(&qp->mcast_list);
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	if (tgt) {
		kref_get(&attr->xrcd->ref);
		qp->xrcd = attr->xrcd;
		qp->xrc_handles = 1;
	}
	qp->qp_type = attr->qp_type;
	qp->sq_sig_all = attr->sq_sig_all;
	mutex_init(&qp->mutex);
	qp->attr.qp_state = XIB_QPS_RESET;
	qp->event_handler = attr->event_handler;
	qp->context = attr->context;
	qp->user_handle = attr->user_handle;
	ret = xib_qpn_reserve(dev, &qp->qp_num);
	if (ret)
		goto err_free;
	ret = dev->ops->create_qp(qp, attr, uctx, sq, rq);
	if (ret)
		goto err_erase;
	/* The driver may grant more, never less. */
	WARN_ON_ONCE(attr->cap.max_send_wr < req.max_send_wr ||
		     attr->cap.max_recv_wr < req.max_recv_wr ||
		     attr->cap.max_send_sge < req.max_send_sge ||
		     attr->cap.max_recv_sge < req.max_recv_sge ||
		     attr->cap.max_inline_data < req.max_inline_data);
	qp->cap = attr->cap;
	qp->attr.cap = attr->cap;
	xib_res_publish(dev, XIB_RES_QP, qp->qp_num, qp);
	return qp;

err_erase:
	xib_res_erase(dev, XIB_RES_QP, qp->qp_num);
err_free:
	if (qp->xrcd)
		xib_xrcd_put(qp->xrcd);
	mutex_destroy(&qp->mutex);
	kfree(qp);
err_uncharge:
	xib_res_uncharge(dev, uctx, XIB_RES_QP);
err_unuse_srq:
	if (attr->srq) {
		xib_unuse(&attr->srq->usecnt);
		xib_srq_put(attr->srq);
	}
err_unuse_recv_cq:
	if (attr->recv_cq)
		xib_cq_unuse(attr->recv_cq);
err_unuse_send_cq:
	if (attr->send_cq)
		xib_cq_unuse(attr->send_cq);
err_unuse_pd:
	if (pd)
		xib_pd_unuse(pd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_create_qp);

/* A requested capacity may not exceed what was granted at creation. */
static int xib_check_qp_cap(const struct xib_qp *qp,
			    const struct xib_uverbs_qp_cap *cap)
{
	if (cap->max_send_wr > qp->cap.max_send_wr ||
	    cap->max_recv_wr > qp->cap.max_recv_wr ||
	    cap->max_send_sge > qp->cap.max_send_sge ||
	    cap->max_recv_sge > qp->cap.max_recv_sge ||
	    cap->max_inline_data > qp->cap.max_inline_data || cap->reserved)
		return -EINVAL;
	return 0;
}

/* The value ranges of the attributes @mask carries. */
static int xib_check_qp_attr(struct xib_qp *qp,
			     const struct xib_uverbs_qp_attr *attr, u32 mask)
{
	struct xib_device *dev = qp->device;
	const struct xib_uverbs_device_attr *lim = &dev->attrs;
	int ret;

	if ((mask & XIB_QP_PORT) &&
	    (!attr->port_num || attr->port_num > dev->phys_port_cnt))
		return -EINVAL;
	if ((mask & XIB_QP_PKEY_INDEX) && attr->pkey_index >= lim->max_pkeys)
		return -EINVAL;
	if ((mask & XIB_QP_PATH_MTU) &&
	    (attr->path_mtu < XIB_MTU_256 || attr->path_mtu > XIB_MTU_4096))
		return -EINVAL;
	if ((mask & XIB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & XIB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & XIB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & XIB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & XIB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > lim->max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & XIB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > lim->max_qp_rd_atom)
		return -EINVAL;
	if ((mask & XIB_QP_RQ_PSN) && attr->rq_psn > XIB_PSN_MAX)
		return -EINVAL;
	if ((mask & XIB_QP_SQ_PSN) && attr->sq_psn > XIB_PSN_MAX)
		return -EINVAL;
	if ((mask & XIB_QP_DEST_QPN) && attr->dest_qp_num > XIB_NUM_MAX)
		return -EINVAL;
	if ((mask & XIB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~XIB_ACCESS_QP_SUPPORTED))
		return -EINVAL;
	if ((mask & XIB_QP_EN_SQD_ASYNC_NOTIFY) && attr->en_sqd_async_notify > 1)
		return -EINVAL;
	if ((mask & XIB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state > XIB_MIG_STATE_MAX)
		return -EINVAL;
	if (mask & XIB_QP_RATE_LIMIT)
		return -EOPNOTSUPP;
	if (mask & XIB_QP_AV) {
		ret = xib_check_av(dev, &attr->ah_attr,
				   (mask & XIB_QP_PORT) ? attr->port_num :
				   (qp->attr.port_num ? qp->attr.port_num : 1));
		if (ret)
			return ret;
	}
	if (mask & XIB_QP_ALT_PATH) {
		if (!attr->alt_port_num ||
		    attr->alt_port_num > dev->phys_port_cnt ||
		    attr->alt_timeout > 31 ||
		    attr->alt_pkey_index >= lim->max_pkeys)
			return -EINVAL;
		ret = xib_check_av(dev, &attr->alt_ah_attr, attr->alt_port_num);
		if (ret)
			return ret;
	}
	if (mask & XIB_QP_CAP)
		return xib_check_qp_cap(qp, &attr->cap);
	return 0;
}

/* Record in @qp->attr what a successful modify changed. */
static void xib_store_qp_attr(struct xib_qp *qp,
			      const struct xib_uverbs_qp_attr *attr, u32 mask)
{
	struct xib_uverbs_qp_attr *cur = &qp->attr;

	lockdep_assert_held(&qp->mutex);
	if (mask & XIB_QP_STATE)
		cur->qp_state = attr->qp_state;
	if (mask & XIB_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & XIB_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & XIB_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & XIB_QP_PORT)
		cur->port_num = attr->port_num;
	if (mask & XIB_QP_QKEY)
		cur->qkey = attr->qkey;
	if (mask & XIB_QP_AV)
		cur->ah_attr = attr->ah_attr;
	if (mask & XIB_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & XIB_QP_TIMEOUT)
		cur->timeout = attr->timeout;
	if (mask & XIB_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & XIB_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & XIB_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn;
	if (mask & XIB_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic;
	if (mask & XIB_QP_ALT_PATH) {
		cur->alt_ah_attr = attr->alt_ah_attr;
		cur->alt_port_num = attr->alt_port_num;
		cur->alt_timeout = attr->alt_timeout;
		cur->alt_pkey_index = attr->alt_pkey_index;
	}
	if (mask & XIB_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & XIB_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn;
	if (mask & XIB_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & XIB_QP_PATH_MIG_STATE)
		cur->path_mig_state = attr->path_mig_state;
	if (mask & XIB_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num;
}

/**
 * xib_modify_qp() - change the state and attributes of a QP
 * @qp: the QP
 * @attr: the attributes, of which @mask selects those to set
 * @mask: enum xib_qp_attr_mask
 *
 * The transition must exist for the QP's type and carry exactly the
 * attributes the IBTA requires and allows (xib_qp_transition_ok()); each
 * value must be in range (port 1, P_Key index 0, MTU 256 to 4096, timeouts
 * and retry counts in their bit widths, PSNs and the destination QPN in 24
 * bits, RDMA read/atomic depths within the device's limits, access flags
 * within XIB_ACCESS_QP_SUPPORTED, capacities not above those granted); a
 * given cur_qp_state must be the current state.  On success the driver has
 * applied the change and @qp->attr records it.
 *
 * A user QP (@qp->uctx set) may set a controlled Q_Key (bit 31) only
 * with CAP_NET_RAW.
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP, -EPERM (a controlled Q_Key) or the
 * driver's error; nothing changes on failure.  Context: process context (takes @qp->mutex).
 */
int xib_modify_qp(struct xib_qp *qp, const struct xib_uverbs_qp_attr *attr,
		  u32 mask)
{
	struct xib_device *dev = qp->device;
	u32 missing, unexpected;
	enum xib_qp_state cur, next;
	int ret;

	if (!dev->ops->modify_qp)
		return -EOPNOTSUPP;
	if (mask & ~XIB_QP_ATTR_KNOWN)
		return -EINVAL;
	if ((mask & XIB_QP_STATE) && attr->qp_state > XIB_QPS_ERR)
		return -EINVAL;

	mutex_lock(&qp->mutex);
	cur = qp->attr.qp_state;
	next = (mask & XIB_QP_STATE) ? attr->qp_state : cur;
	if ((mask & XIB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (!xib_qp_transition_ok(cur, next, qp->qp_type, mask, &missing,
				  &unexpected)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = xib_check_qp_attr(qp, attr, mask);
	if (ret)
		goto out_unlock;
	/*
	 * A controlled Q_Key (bit 31) is what the GSI and other privileged
	 * QPs use: a user QP may set one only with CAP_NET_RAW, as in
	 * Linux's ib_uverbs.  (A send WR's remote_qkey with bit 31 set
	 * means "the QP's own Q_Key", so this covers the send side too.)
	 */
	if ((mask & XIB_QP_QKEY) && (attr->qkey & XIB_QKEY_CONTROLLED) &&
	    qp->uctx && !capable(CAP_NET_RAW)) {
		ret = -EPERM;
		goto out_unlock;
	}
	ret = dev->ops->modify_qp(qp, attr, mask);
	if (ret)
		goto out_unlock;
	xib_store_qp_attr(qp, attr, mask);
out_unlock:
	mutex_unlock(&qp->mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_modify_qp);

/**
 * xib_query_qp() - read the current attributes of a QP
 * @qp: the QP
 * @attr: returns every attribute: those last set by modify, the state
 *	(also as cur_qp_state), the granted capacities, and from the driver
 *	whether the send queue is still draining (SQD)
 *
 * Return: 0.  Context: process context (takes @qp->mutex).
 */
int xib_query_qp(struct xib_qp *qp, struct xib_uverbs_qp_attr *attr)
{
	mutex_lock(&qp->mutex);
	*attr = qp->attr;
	attr->cap = qp->cap;
	attr->cur_qp_state = qp->attr.qp_state;
	attr->sq_draining = 0;
	if (qp->device->ops->query_qp)
		qp->device->ops->query_qp(qp, attr);
	mutex_unlock(&qp->mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_query_qp);

/**
 * xib_destroy_qp() - destroy a queue pair
 * @qp: the QP
 *
 * The QP leaves the number table, the driver stops using it, and its PD,
 * CQs and SRQ are released.
 *
 * Return: 0.
 */
int xib_destroy_qp(struct xib_qp *qp)
{
	struct xib_device *dev = qp->device;

	if (qp->xrcd) {
		/* an XRC target: only its last handle destroys it */
		mutex_lock(&dev->xrcd_lock);
		if (--qp->xrc_handles) {
			mutex_unlock(&dev->xrcd_lock);
			xib_qp_put(qp);
			return 0;
		}
		xib_res_erase(dev, XIB_RES_QP, qp->qp_num);
		mutex_unlock(&dev->xrcd_lock);
	} else {
		xib_res_erase(dev, XIB_RES_QP, qp->qp_num);
	}
	xib_mcast_detach_all(qp);
	dev->ops->destroy_qp(qp);
	xib_res_uncharge(dev, qp->uctx, XIB_RES_QP);
	if (qp->srq)
		xib_unuse(&qp->srq->usecnt);
	if (qp->recv_cq)
		xib_unuse(&qp->recv_cq->usecnt);
	if (qp->send_cq)
		xib_unuse(&qp->send_cq->usecnt);
	if (qp->pd)
		xib_unuse(&qp->pd->usecnt);
	xib_qp_put(qp);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_destroy_qp);

/**
 * xib_open_qp() - another handle to an existing XRC target QP
 * @xrcd: the domain the caller opened
 * @qpn: the target's number
 *
 * The handle counts in @qp->xrc_handles and holds a reference; it is
 * given up with xib_destroy_qp(), as the creator's is.  The lookup and
 * the count are one step under the device's xrcd_lock, against the last
 * xib_destroy_qp().
 *
 * Return: the QP or an ERR_PTR: -ENOENT if @qpn is not an XRC target of
 * @xrcd.  Context: process context.
 */
struct xib_qp *xib_open_qp(struct xib_xrcd *xrcd, u32 qpn)
{
	struct xib_device *dev = xrcd->device;
	struct xib_qp *qp;

	mutex_lock(&dev->xrcd_lock);
	qp = xib_qp_get_by_num(dev, qpn);
	if (qp && (qp->xrcd != xrcd || !qp->xrc_handles)) {
		xib_qp_put(qp);
		qp = NULL;
	}
	if (qp)
		qp->xrc_handles++;
	mutex_unlock(&dev->xrcd_lock);
	return qp ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_GPL(xib_open_qp);

/**
 * xib_qp_get_by_num() - find a live QP by its number
 * @dev: the device
 * @qpn: the QP number
 *
 * Return: the QP with a reference (drop with xib_qp_put()) or NULL.
 * Context: any.
 */
struct xib_qp *xib_qp_get_by_num(struct xib_device *dev, u32 qpn)
{
	struct xib_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&dev->res[XIB_RES_QP], flags);
	qp = xa_load(&dev->res[XIB_RES_QP], qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&dev->res[XIB_RES_QP], flags);
	return qp;
}
EXPORT_SYMBOL_GPL(xib_qp_get_by_num);

/**
 * xib_srq_get_by_num() - find a live SRQ by its number
 * @dev: the device
 * @srqn: the SRQ number (an XRCETH's XRCSRQ)
 *
 * Return: the SRQ with a reference (drop with xib_srq_put()) or NULL.
 * Context: any.
 */
struct xib_srq *xib_srq_get_by_num(struct xib_device *dev, u32 srqn)
{
	struct xib_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&dev->res[XIB_RES_SRQ], flags);
	srq = xa_load(&dev->res[XIB_RES_SRQ], srqn);
	if (srq && !kref_get_unless_zero(&srq->ref))
		srq = NULL;
	xa_unlock_irqrestore(&dev->res[XIB_RES_SRQ], flags);
	return srq;
}
EXPORT_SYMBOL_GPL(xib_srq_get_by_num);

/* Resource dumps */

/* The owning user context of @obj, an object of table @type. */
static struct xib_ucontext *xib_res_uctx(enum xib_res_type type, void *obj)
{
	switch (type) {
	case XIB_RES_PD:
		return ((struct xib_pd *)obj)->uctx;
	case XIB_RES_MR:
		return ((struct xib_mr *)obj)->uctx;
	case XIB_RES_CQ:
		return ((struct xib_cq *)obj)->uctx;
	case XIB_RES_QP:
		return ((struct xib_qp *)obj)->uctx;
	case XIB_RES_SRQ:
		return ((struct xib_srq *)obj)->uctx;
	case XIB_RES_AH:
		return ((struct xib_ah *)obj)->uctx;
	case XIB_RES_MW:
		return ((struct xib_mw *)obj)->uctx;
	case XIB_RES_UCONTEXT:
		return obj;
	default:
		return NULL;
	}
}

/* A reference on @obj unless it is going away; table lock held. */
static bool xib_res_tryget(enum xib_res_type type, void *obj)
{
	switch (type) {
	case XIB_RES_PD:
		return kref_get_unless_zero(&((struct xib_pd *)obj)->ref);
	case XIB_RES_MR:
		return kref_get_unless_zero(&((struct xib_mr *)obj)->ref);
	case XIB_RES_CQ:
		return kref_get_unless_zero(&((struct xib_cq *)obj)->ref);
	case XIB_RES_QP:
		return kref_get_unless_zero(&((struct xib_qp *)obj)->ref);
	case XIB_RES_SRQ:
		return kref_get_unless_zero(&((struct xib_srq *)obj)->ref);
	case XIB_RES_AH:
		return kref_get_unless_zero(&((struct xib_ah *)obj)->ref);
	case XIB_RES_MW:
		return kref_get_unless_zero(&((struct xib_mw *)obj)->ref);
	default:
		return false;
	}
}

/**
 * xib_res_next() - the next live object of a device's table, for dumps
 * @dev: the device
 * @type: the table
 * @id: in: the first number to look at; out: the number of the object
 *	found
 * @max: the last number to look at
 * @ns: the pid namespace to report the owner's pid in
 * @obj: returns the object with a reference (drop it with xib_res_put());
 *	for XIB_RES_UCONTEXT, NULL: a context has no reference count, and
 *	what a dump needs of it is in @owner
 * @owner: returns the object's owner, read under the table's lock, which
 *	keeps the owning context alive (see struct xib_ucontext)
 *
 * Return: false when there is no live object in [*@id, @max].
 * Context: process context; takes the table's lock briefly.
 */
bool xib_res_next(struct xib_device *dev, enum xib_res_type type,
		  unsigned long *id, unsigned long max,
		  struct pid_namespace *ns, void **obj,
		  struct xib_res_owner *owner)
{
	struct xarray *xa = &dev->res[type];
	struct xib_ucontext *uctx;
	unsigned long flags;
	void *entry;
	int i;

	memset(owner, 0, sizeof(*owner));
	*obj = NULL;
	for (;;) {
		xa_lock_irqsave(xa, flags);
		entry = xa_find(xa, id, max, XA_PRESENT);
		if (!entry)
			break;
		if (type == XIB_RES_UCONTEXT || xib_res_tryget(type, entry))
			break;
		xa_unlock_irqrestore(xa, flags);	/* dying: skip it */
		if (*id == max)
			return false;
		(*id)++;
	}
	if (!entry) {
		xa_unlock_irqrestore(xa, flags);
		return false;
	}
	uctx = xib_res_uctx(type, entry);
	if (uctx) {
		owner->pid = pid_nr_ns(uctx->owner_pid, ns);
		owner->euid = uctx->owner_euid;
		owner->ctx_id = uctx->id;
		memcpy(owner->comm, uctx->owner_comm, sizeof(owner->comm));
		if (type == XIB_RES_UCONTEXT)
			for (i = 0; i < XIB_RES_MAX; i++)
				owner->counts[i] =
					atomic_read(&uctx->res_count[i]);
	} else {
		owner->kern = true;
	}
	xa_unlock_irqrestore(xa, flags);
	if (type != XIB_RES_UCONTEXT)
		*obj = entry;
	return true;
}
EXPORT_SYMBOL_GPL(xib_res_next);

/**
 * xib_res_put() - drop the reference xib_res_next() took
 * @type: the table the object came from
 * @obj: the object, or NULL
 *
 * Context: process context.
 */
void xib_res_put(enum xib_res_type type, void *obj)
{
	if (!obj)
		return;
	switch (type) {
	case XIB_RES_PD:
		xib_pd_put(obj);
		break;
	case XIB_RES_MR:
		xib_mr_put(obj);
		break;
	case XIB_RES_CQ:
		xib_cq_put(obj);
		break;
	case XIB_RES_QP:
		xib_qp_put(obj);
		break;
	case XIB_RES_SRQ:
		xib_srq_put(obj);
		break;
	case XIB_RES_AH:
		xib_ah_put(obj);
		break;
	case XIB_RES_MW:
		xib_mw_put(obj);
		break;
	default:
		WARN_ON_ONCE(1);
	}
}
EXPORT_SYMBOL_GPL(xib_res_put);
