// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user counts: how many objects of a kind (user contexts, RDMA CM
 * event channels) each user holds, so that one user cannot multiply
 * what the per-context and per-channel limits bound by opening the
 * device again and again (RLIMIT_NOFILE is per process, and a user has
 * as many processes as RLIMIT_NPROC allows).
 *
 * A user is a (user namespace, kuid) pair, counted as the kernel's
 * ucounts are: a charge to (ns, uid) also charges (ns->parent,
 * ns->owner), and so on up to the initial namespace, and the limit
 * applies at every level.  So each uid of a container has the limit, and
 * the container as a whole is bounded by its owner's count in the parent
 * namespace (shared with what the owner holds there itself).  A process
 * of the initial namespace charges one level, its uid.
 *
 * Each object records the (ns, uid) it was charged to and uncharges that
 * one when it goes, whoever drops it last (a file passed or inherited
 * keeps its charge with its opener).  A charge holds a reference on its
 * user namespace, so the chain can be walked again at uncharge and no
 * namespace's address is reused while an entry names it.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "core_priv.h"

/*
 * User contexts (opens of /dev/xib/uverbsN) one uid may hold, read at
 * each open: a lowered limit keeps existing contexts.  0 allows none to
 * users without CAP_SYS_RESOURCE.
 */
static unsigned int xib_max_contexts_per_user = 256;
module_param_named(max_contexts_per_user, xib_max_contexts_per_user, uint,
		   0644);
MODULE_PARM_DESC(max_contexts_per_user,
		 "User contexts (opens of /dev/xib/uverbsN, any device) one user may hold, per user namespace level (a container also counts against its owner); beyond, open() fails with EMFILE unless CAP_SYS_RESOURCE (256)");

static struct xib_uid_count xib_contexts_per_user;

/* One (namespace, uid) with a count; in xib_uid_count.table. */
struct xib_uid_entry {
	struct hlist_node node;
	const void *ns;
	u32 uid;
	unsigned long count;
};

static u32 xib_uid_hash(const void *ns, u32 uid)
{
	return hash_ptr(ns, 32) ^ uid;
}

/**
 * xib_uid_count_init() - set up per-user counts, all zero
 * @uc: the counts
 */
void xib_uid_count_init(struct xib_uid_count *uc)
{
	mutex_init(&uc->lock);
	hash_init(uc->table);
	uc->entries = 0;
}
EXPORT_SYMBOL_GPL(xib_uid_count_init);

/**
 * xib_uid_count_destroy() - undo xib_uid_count_init()
 * @uc: the counts, of which every charge was undone
 *
 * A count left means an object that was never uncharged: warned about
 * (and its entry freed; the namespace reference it holds is leaked
 * rather than dropped for an object that may still use it).
 */
void xib_uid_count_destroy(struct xib_uid_count *uc)
{
	struct xib_uid_entry *e;
	struct hlist_node *tmp;
	int bkt;

	WARN_ON(!xib_uid_count_empty(uc));
	hash_for_each_safe(uc->table, bkt, tmp, e, node) {
		hash_del(&e->node);
		kfree(e);
	}
	mutex_destroy(&uc->lock);
}
EXPORT_SYMBOL_GPL(xib_uid_count_destroy);

static struct xib_uid_entry *xib_uid_find(struct xib_uid_count *uc,
					  const struct xib_uid_level *lv)
{
	struct xib_uid_entry *e;

	lockdep_assert_held(&uc->lock);
	hash_for_each_possible(uc->table, e, node,
			       xib_uid_hash(lv->ns, lv->uid))
		if (e->ns == lv->ns && e->uid == lv->uid)
			return e;
	return NULL;
}

/* Drop @e if it counts nothing. */
static void xib_uid_trim(struct xib_uid_count *uc, struct xib_uid_entry *e)
{
	lockdep_assert_held(&uc->lock);
	if (e && !e->count) {
		hash_del(&e->node);
		kfree(e);
		uc->entries--;
	}
}

/**
 * xib_uid_charge_levels() - count one more object at every level of a chain
 * @uc: the counts
 * @lv: the levels, the user first, then its namespace's owner in the
 *	parent namespace, and so on; their @ns are only compared
 * @n: how many levels (at most XIB_UID_LEVELS)
 * @max: the objects each level may hold (0: none)
 *
 * All levels or none: pure bookkeeping, no privilege or namespace is
 * looked at.  Undo with xib_uid_uncharge_levels() on the same chain.
 *
 * Context: process context; may sleep.
 * Return: 0; -EMFILE if a level already holds @max or more; -ENOMEM.
 */
int xib_uid_charge_levels(struct xib_uid_count *uc,
			  const struct xib_uid_level *lv, unsigned int n,
			  unsigned int max)
{
	struct xib_uid_entry *e[XIB_UID_LEVELS];
	unsigned int i;
	int ret = 0;

	if (WARN_ON(!n || n > XIB_UID_LEVELS))
		return -EINVAL;
	mutex_lock(&uc->lock);
	for (i = 0; i < n; i++) {
		e[i] = xib_uid_find(uc, &lv[i]);
		if (e[i] && e[i]->count >= max)
			ret = -EMFILE;
	}
	if (!ret && !max)
		ret = -EMFILE;
	for (i = 0; !ret && i < n; i++) {
		if (e[i])
			continue;
		e[i] = kzalloc(sizeof(*e[i]), GFP_KERNEL);
		if (!e[i]) {
			ret = -ENOMEM;
			break;
		}
		e[i]->ns = lv[i].ns;
		e[i]->uid = lv[i].uid;
		hash_add(uc->table, &e[i]->node,
			 xib_uid_hash(lv[i].ns, lv[i].uid));
		uc->entries++;
	}
	if (ret) {
		/* the entries made here count nothing yet */
		while (i--)
			xib_uid_trim(uc, e[i]);
		goto out;
	}
	for (i = 0; i < n; i++)
		e[i]->count++;
out:
	mutex_unlock(&uc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_uid_charge_levels);

/**
 * xib_uid_uncharge_levels() - undo xib_uid_charge_levels()
 * @uc: the counts
 * @lv: the chain charged
 * @n: its levels
 *
 * The last object of a level frees its entry.
 *
 * Context: process context; may sleep.
 */
void xib_uid_uncharge_levels(struct xib_uid_count *uc,
			     const struct xib_uid_level *lv, unsigned int n)
{
	struct xib_uid_entry *e;
	unsigned int i;

	mutex_lock(&uc->lock);
	for (i = 0; i < n && i < XIB_UID_LEVELS; i++) {
		e = xib_uid_find(uc, &lv[i]);
		if (WARN_ON_ONCE(!e || !e->count))
			continue;
		e->count--;
		xib_uid_trim(uc, e);
	}
	mutex_unlock(&uc->lock);
}
EXPORT_SYMBOL_GPL(xib_uid_uncharge_levels);

/**
 * xib_uid_read_level() - the objects one level holds
 * @uc: the counts
 * @lv: the level
 *
 * Return: the count (0 for one with no entry).
 */
unsigned long xib_uid_read_level(struct xib_uid_count *uc,
				 const struct xib_uid_level *lv)
{
	struct xib_uid_entry *e;
	unsigned long n;

	mutex_lock(&uc->lock);
	e = xib_uid_find(uc, lv);
	n = e ? e->count : 0;
	mutex_unlock(&uc->lock);
	return n;
}
EXPORT_SYMBOL_GPL(xib_uid_read_level);

/*
 * The chain of @uid in @ns: (ns, uid), (ns->parent, ns->owner), ... up
 * to the initial namespace, uids as their values there.  Nesting is at
 * most 32 deep (the kernel's limit), so XIB_UID_LEVELS always suffices.
 */
static unsigned int xib_uid_chain(struct user_namespace *ns, kuid_t uid,
				  struct xib_uid_level *lv)
{
	unsigned int n = 0;

	for (;;) {
		lv[n].ns = ns;
		lv[n].uid = from_kuid(&init_user_ns, uid);
		n++;
		if (ns == &init_user_ns || !ns->parent ||
		    WARN_ON_ONCE(n == XIB_UID_LEVELS))
			return n;
		uid = ns->owner;
		ns = ns->parent;
	}
}

/**
 * xib_uid_charge() - count one more object of @uid in @ns, within @max
 * @uc: the counts
 * @ns: the user's namespace (the opener's credentials')
 * @uid: the user
 * @max: the objects each level of the chain may hold (0: none)
 *
 * Charges the chain of xib_uid_charge_levels() that @ns's ancestry gives
 * and takes a reference on @ns.  No privilege is looked at (see
 * xib_uid_charge_capable()).  Undo with xib_uid_uncharge() on the same
 * @ns and @uid.
 *
 * Context: process context; may sleep.
 * Return: 0; -EMFILE if a level already holds @max or more; -ENOMEM.
 */
int xib_uid_charge(struct xib_uid_count *uc, struct user_namespace *ns,
		   kuid_t uid, unsigned int max)
{
	struct xib_uid_level lv[XIB_UID_LEVELS];
	int ret;

	ret = xib_uid_charge_levels(uc, lv, xib_uid_chain(ns, uid, lv), max);
	if (!ret)
		get_user_ns(ns);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_uid_charge);

/**
 * xib_uid_charge_capable() - xib_uid_charge(), past @max with privilege
 * @uc: the counts
 * @ns: the user's namespace
 * @uid: the user
 * @max: the objects each level may hold without CAP_SYS_RESOURCE
 *
 * The calling task may go beyond @max if it has CAP_SYS_RESOURCE in the
 * initial user namespace (as beyond other resource limits); the object
 * still counts at every level.  The capability is asked for only at the
 * limit, so ordinary use leaves no trace in security logs.
 *
 * Context: process context, in the task that asks; may sleep.
 * Return: 0, -EMFILE or -ENOMEM.
 */
int xib_uid_charge_capable(struct xib_uid_count *uc, struct user_namespace *ns,
			   kuid_t uid, unsigned int max)
{
	int ret = xib_uid_charge(uc, ns, uid, max);

	if (ret == -EMFILE && capable(CAP_SYS_RESOURCE))
		ret = xib_uid_charge(uc, ns, uid, UINT_MAX);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_uid_charge_capable);

/**
 * xib_uid_uncharge() - undo xib_uid_charge()
 * @uc: the counts
 * @ns: the namespace charged
 * @uid: the user charged
 *
 * Drops the reference on @ns, which may free it (put_user_ns() defers
 * the freeing to a work item, so this is fine wherever the object goes
 * in process context).
 *
 * Context: process context; may sleep.
 */
void xib_uid_uncharge(struct xib_uid_count *uc, struct user_namespace *ns,
		      kuid_t uid)
{
	struct xib_uid_level lv[XIB_UID_LEVELS];

	xib_uid_uncharge_levels(uc, lv, xib_uid_chain(ns, uid, lv));
	put_user_ns(ns);
}
EXPORT_SYMBOL_GPL(xib_uid_uncharge);

/**
 * xib_uid_read() - the objects @uid holds in @ns (its own level)
 * @uc: the counts
 * @ns: the namespace
 * @uid: the user
 *
 * Return: the count (0 for a user with no entry).
 */
unsigned long xib_uid_read(struct xib_uid_count *uc, struct user_namespace *ns,
			   kuid_t uid)
{
	struct xib_uid_level lv = {
		.ns = ns,
		.uid = from_kuid(&init_user_ns, uid),
	};

	return xib_uid_read_level(uc, &lv);
}
EXPORT_SYMBOL_GPL(xib_uid_read);

/**
 * xib_uid_count_empty() - does no user hold anything?
 * @uc: the counts
 *
 * Return: true if @uc has no entry (every charge was undone).
 */
bool xib_uid_count_empty(struct xib_uid_count *uc)
{
	bool empty;

	mutex_lock(&uc->lock);
	empty = !uc->entries;
	mutex_unlock(&uc->lock);
	return empty;
}
EXPORT_SYMBOL_GPL(xib_uid_count_empty);

/* Charge a new user context to @uid (its opener's euid) in @ns. */
int xib_user_ctx_charge(struct user_namespace *ns, kuid_t uid)
{
	return xib_uid_charge_capable(&xib_contexts_per_user, ns, uid,
				      READ_ONCE(xib_max_contexts_per_user));
}

void xib_user_ctx_uncharge(struct user_namespace *ns, kuid_t uid)
{
	xib_uid_uncharge(&xib_contexts_per_user, ns, uid);
}

void xib_user_init(void)
{
	xib_uid_count_init(&xib_contexts_per_user);
}

/* At module exit every context is gone: nothing may be left counted. */
void xib_user_exit(void)
{
	xib_uid_count_destroy(&xib_contexts_per_user);
}
