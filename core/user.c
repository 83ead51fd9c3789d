// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user counts: how many objects of a kind (user contexts, RDMA CM
 * event channels) each user holds, so that one user cannot multiply
 * what the per-context and per-channel limits bound by opening the
 * device again and again (RLIMIT_NOFILE is per process, and a user has
 * as many processes as RLIMIT_NPROC allows).
 *
 * A user is a kuid, counted by its value in the initial user namespace,
 * so a uid mapped into a user namespace counts as the host's uid it is.
 * Each object records the uid it was charged to and uncharges that one
 * when it goes, whoever drops it last (a file passed or inherited keeps
 * its charge with its opener).
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/uidgid.h>

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
		 "User contexts (opens of /dev/xib/uverbsN, any device) one uid may hold; beyond, open() fails with EMFILE unless CAP_SYS_RESOURCE (256)");

static struct xib_uid_count xib_contexts_per_user;

static unsigned long xib_uid_index(kuid_t uid)
{
	return from_kuid(&init_user_ns, uid);
}

/**
 * xib_uid_count_init() - set up per-user counts, all zero
 * @uc: the counts
 */
void xib_uid_count_init(struct xib_uid_count *uc)
{
	mutex_init(&uc->lock);
	xa_init(&uc->counts);
}
EXPORT_SYMBOL_GPL(xib_uid_count_init);

/**
 * xib_uid_count_destroy() - undo xib_uid_count_init()
 * @uc: the counts, of which every charge was undone
 *
 * A count left means an object that was never uncharged: warned about
 * (and its entry freed).
 */
void xib_uid_count_destroy(struct xib_uid_count *uc)
{
	WARN_ON(!xib_uid_count_empty(uc));
	xa_destroy(&uc->counts);
	mutex_destroy(&uc->lock);
}
EXPORT_SYMBOL_GPL(xib_uid_count_destroy);

/**
 * xib_uid_charge() - count one more object of @uid, within @max
 * @uc: the counts
 * @uid: the user
 * @max: the objects @uid may hold (0: none)
 *
 * Pure bookkeeping: no privilege is looked at (see
 * xib_uid_charge_capable()).  Undo with xib_uid_uncharge().
 *
 * Context: process context; may sleep.
 * Return: 0; -EMFILE if @uid already holds @max or more; -ENOMEM.
 */
int xib_uid_charge(struct xib_uid_count *uc, kuid_t uid, unsigned int max)
{
	unsigned long idx = xib_uid_index(uid);
	unsigned long n;
	void *entry;
	int ret = 0;

	mutex_lock(&uc->lock);
	entry = xa_load(&uc->counts, idx);
	n = entry ? xa_to_value(entry) : 0;
	if (n >= max) {
		ret = -EMFILE;
		goto out;
	}
	/* A new uid's entry may need a node; replacing one never does. */
	entry = xa_store(&uc->counts, idx, xa_mk_value(n + 1), GFP_KERNEL);
	if (xa_is_err(entry))
		ret = xa_err(entry) == -EBUSY ? -ENOMEM : xa_err(entry);
out:
	mutex_unlock(&uc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_uid_charge);

/**
 * xib_uid_charge_capable() - xib_uid_charge(), past @max with privilege
 * @uc: the counts
 * @uid: the user
 * @max: the objects @uid may hold without CAP_SYS_RESOURCE
 *
 * The calling task may go beyond @max if it has CAP_SYS_RESOURCE in the
 * initial user namespace (as beyond other resource limits); the object
 * still counts.  The capability is asked for only at the limit, so
 * ordinary use leaves no trace in security logs.
 *
 * Context: process context, in the task that asks; may sleep.
 * Return: 0, -EMFILE or -ENOMEM.
 */
int xib_uid_charge_capable(struct xib_uid_count *uc, kuid_t uid,
			   unsigned int max)
{
	int ret = xib_uid_charge(uc, uid, max);

	if (ret == -EMFILE && capable(CAP_SYS_RESOURCE))
		ret = xib_uid_charge(uc, uid, UINT_MAX);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_uid_charge_capable);

/**
 * xib_uid_uncharge() - undo xib_uid_charge()
 * @uc: the counts
 * @uid: the user charged
 *
 * The last object of a user frees its entry.
 *
 * Context: process context; may sleep.
 */
void xib_uid_uncharge(struct xib_uid_count *uc, kuid_t uid)
{
	unsigned long idx = xib_uid_index(uid);
	unsigned long n;
	void *entry;

	mutex_lock(&uc->lock);
	entry = xa_load(&uc->counts, idx);
	if (WARN_ON_ONCE(!entry))
		goto out;
	n = xa_to_value(entry);
	if (n <= 1)
		xa_erase(&uc->counts, idx);
	else
		xa_store(&uc->counts, idx, xa_mk_value(n - 1), GFP_KERNEL);
out:
	mutex_unlock(&uc->lock);
}
EXPORT_SYMBOL_GPL(xib_uid_uncharge);

/**
 * xib_uid_read() - the objects @uid holds
 * @uc: the counts
 * @uid: the user
 *
 * Return: the count (0 for a user with no entry).
 */
unsigned long xib_uid_read(struct xib_uid_count *uc, kuid_t uid)
{
	unsigned long n;
	void *entry;

	mutex_lock(&uc->lock);
	entry = xa_load(&uc->counts, xib_uid_index(uid));
	n = entry ? xa_to_value(entry) : 0;
	mutex_unlock(&uc->lock);
	return n;
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
	empty = xa_empty(&uc->counts);
	mutex_unlock(&uc->lock);
	return empty;
}
EXPORT_SYMBOL_GPL(xib_uid_count_empty);

/* Charge a new user context to @uid (its opener's euid). */
int xib_user_ctx_charge(kuid_t uid)
{
	return xib_uid_charge_capable(&xib_contexts_per_user, uid,
				      READ_ONCE(xib_max_contexts_per_user));
}

void xib_user_ctx_uncharge(kuid_t uid)
{
	xib_uid_uncharge(&xib_contexts_per_user, uid);
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
