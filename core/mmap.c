// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory user space may map (rings, doorbell pages), and the user
 * contexts that publish it at mmap offsets.
 *
 * An entry is vmalloc memory with a kref, charged to the memory cgroup
 * of the task that allocates it (__GFP_ACCOUNT; over the limit the
 * allocation fails with -ENOMEM instead of invoking the OOM killer).
 * A writable entry (a ring) is also charged, when first published, to
 * the publishing process's pinned_vm against RLIMIT_MEMLOCK (unless it
 * has CAP_IPC_LOCK), as pinned MR pages are (core/umem.c), and
 * uncharged when it is freed.  Read-only entries (a device's doorbell
 * page, shared by every context) belong to the device and are not, nor
 * are io entries: a page of a PCI function's registers (a UAR), which
 * is device memory, not memory of the kernel's.  Its creator holds one
 * reference; publishing it in a context adds one (dropped by unpublish or
 * by the context's cleanup); xib_mmap_lookup() returns one more, which the
 * caller (uverbs: the VMA) drops with xib_mmap_put().
 */

#include <linux/capability.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core_priv.h"

/* Page offsets handed out per context stay below this (fits an mmap pgoff). */
#define XIB_MMAP_PGOFF_MAX	((unsigned long)U32_MAX)

/**
 * xib_mmap_alloc() - allocate memory user space may map
 * @size: bytes, rounded up to whole pages; must not be 0
 * @read_only: user space may only map it read-only
 *
 * The memory is zeroed.  Context: process context.
 *
 * Return: the entry with one reference, or NULL (out of memory, or @size
 * 0).
 */
struct xib_mmap_entry *xib_mmap_alloc(size_t size, bool read_only)
{
	struct xib_mmap_entry *entry;

	if (!size || size > SIZE_MAX - PAGE_SIZE)
		return NULL;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->size = PAGE_ALIGN(size);
	entry->vaddr = __vmalloc(entry->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				 __GFP_RETRY_MAYFAIL);
	if (!entry->vaddr) {
		kfree(entry);
		return NULL;
	}
	kref_init(&entry->ref);
	entry->read_only = read_only;
	return entry;
}
EXPORT_SYMBOL_GPL(xib_mmap_alloc);

/**
 * xib_mmap_alloc_io() - describe one page of device memory user space may
 *	map (a UAR)
 * @addr: the page's physical address, page aligned; the caller makes
 *	sure that nothing but what user space may write is in that page
 *
 * The entry maps @addr uncached (xib_uverbs' mmap), is not charged to
 * anyone and is never read by the kernel.  Its creator must keep the
 * device memory valid until every context that published it is
 * disassociated (which zaps its mappings and refuses new ones): a
 * driver creates it with the device and puts it after the device is
 * unregistered.  Context: process context.
 *
 * Return: the entry with one reference, or NULL (out of memory, or
 * @addr not page aligned).
 */
struct xib_mmap_entry *xib_mmap_alloc_io(phys_addr_t addr)
{
	struct xib_mmap_entry *entry;

	if (!PAGE_ALIGNED(addr))
		return NULL;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	kref_init(&entry->ref);
	entry->size = PAGE_SIZE;
	entry->io = true;
	entry->io_addr = addr;
	return entry;
}
EXPORT_SYMBOL_GPL(xib_mmap_alloc_io);

/**
 * xib_mmap_get() - take a reference on an mmap entry
 * @entry: an entry the caller holds a reference on
 */
void xib_mmap_get(struct xib_mmap_entry *entry)
{
	kref_get(&entry->ref);
}
EXPORT_SYMBOL_GPL(xib_mmap_get);

static void xib_mmap_release(struct kref *ref)
{
	struct xib_mmap_entry *entry =
		container_of(ref, struct xib_mmap_entry, ref);

	if (entry->mm) {
		atomic64_sub(entry->size >> PAGE_SHIFT, &entry->mm->pinned_vm);
		mmdrop(entry->mm);
	}
	if (!entry->io)
		vfree(entry->vaddr);
	kfree(entry);
}

/* Charge a writable entry to current's pinned_vm, once; see the top. */
static int xib_mmap_charge(struct xib_mmap_entry *entry)
{
	unsigned long npages = entry->size >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;

	if (entry->read_only || entry->io || READ_ONCE(entry->mm))
		return 0;
	/* a kernel caller (no process memory) is not charged */
	if (!mm)
		return 0;
	if (atomic64_add_return(npages, &mm->pinned_vm) >
	    rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	if (cmpxchg(&entry->mm, NULL, mm)) {
		/* Published twice at once: the other publisher paid. */
		atomic64_sub(npages, &mm->pinned_vm);
		mmdrop(mm);
	}
	return 0;
}

/**
 * xib_mmap_put() - drop a reference on an mmap entry
 * @entry: the entry; NULL or an ERR_PTR is ignored
 *
 * The final put frees the memory.  Context: may sleep (vfree()): process
 * context, which drivers' destroy_* and release_* callbacks are (the core
 * defers a release whose final put comes in atomic context, core/verbs.c).
 */
void xib_mmap_put(struct xib_mmap_entry *entry)
{
	if (IS_ERR_OR_NULL(entry))
		return;
	might_sleep();
	kref_put(&entry->ref, xib_mmap_release);
}
EXPORT_SYMBOL_GPL(xib_mmap_put);

/**
 * xib_mmap_publish() - make an entry mappable in a user context
 * @uctx: the context
 * @entry: the entry; the context takes its own reference
 * @offset: returns the byte offset user space passes to mmap(); page
 *	aligned and never reused within @uctx
 *
 * A writable entry is charged to the caller's RLIMIT_MEMLOCK on its
 * first publication (see the top of this file).
 *
 * Return: 0, -ENOSPC when the context ran out of offsets, or -ENOMEM
 * (also beyond RLIMIT_MEMLOCK).  Context: process context of the user.
 */
int xib_mmap_publish(struct xib_ucontext *uctx, struct xib_mmap_entry *entry,
		     u64 *offset)
{
	unsigned long npages = entry->size >> PAGE_SHIFT;
	unsigned long pgoff;
	int ret;

	ret = xib_mmap_charge(entry);
	if (ret)
		return ret;
	xib_mmap_get(entry);
	xa_lock(&uctx->mmap_xa);
	do {
		/*
		 * __xa_insert() may drop the lock to allocate; another
		 * publisher may then take pgoff first (-EBUSY): try again
		 * with the new mmap_next.
		 */
		pgoff = uctx->mmap_next;
		if (npages > XIB_MMAP_PGOFF_MAX - pgoff) {
			ret = -ENOSPC;
			goto out_unlock;
		}
		ret = __xa_insert(&uctx->mmap_xa, pgoff, entry, GFP_KERNEL);
	} while (ret == -EBUSY);
	if (ret)
		goto out_unlock;
	uctx->mmap_next = pgoff + npages;
	xa_unlock(&uctx->mmap_xa);
	*offset = (u64)pgoff << PAGE_SHIFT;
	return 0;

out_unlock:
	xa_unlock(&uctx->mmap_xa);
	xib_mmap_put(entry);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_mmap_publish);

/**
 * xib_mmap_unpublish() - stop new mappings of an entry
 * @uctx: the context it was published in
 * @offset: what xib_mmap_publish() returned
 *
 * Existing mappings keep their references and memory.  Unknown offsets
 * are ignored.  Context: may sleep.
 */
void xib_mmap_unpublish(struct xib_ucontext *uctx, u64 offset)
{
	if (!PAGE_ALIGNED(offset) ||
	    (offset >> PAGE_SHIFT) > XIB_MMAP_PGOFF_MAX)
		return;
	xib_mmap_put(xa_erase(&uctx->mmap_xa, offset >> PAGE_SHIFT));
}
EXPORT_SYMBOL_GPL(xib_mmap_unpublish);

/**
 * xib_mmap_lookup() - find the entry published at an offset
 * @uctx: the context
 * @offset: byte offset user space gave to mmap()
 *
 * Return: the entry with a reference the caller drops with
 * xib_mmap_put(), or NULL when nothing is published at @offset.
 */
struct xib_mmap_entry *xib_mmap_lookup(struct xib_ucontext *uctx, u64 offset)
{
	struct xib_mmap_entry *entry;

	if (!PAGE_ALIGNED(offset) ||
	    (offset >> PAGE_SHIFT) > XIB_MMAP_PGOFF_MAX)
		return NULL;
	xa_lock(&uctx->mmap_xa);
	entry = xa_load(&uctx->mmap_xa, offset >> PAGE_SHIFT);
	if (entry && !kref_get_unless_zero(&entry->ref))
		entry = NULL;
	xa_unlock(&uctx->mmap_xa);
	return entry;
}
EXPORT_SYMBOL_GPL(xib_mmap_lookup);

/**
 * xib_ucontext_init() - set up a user context
 * @uctx: zeroed or fresh context, embedded in the caller's structure
 * @dev: its device
 *
 * Enters the context in @dev's XIB_RES_UCONTEXT table (so it is counted)
 * and gives it an @id, and records the calling process as its owner
 * (thread group, effective uid, command name).  The context counts
 * against its owner's max_contexts_per_user (core/user.c), every device
 * together.  Undo with xib_ucontext_cleanup().
 *
 * Context: process context, in the task that opens the context.
 * Return: 0, -EMFILE (the owner holds max_contexts_per_user contexts and
 * lacks CAP_SYS_RESOURCE) or -ENOMEM.
 */
int xib_ucontext_init(struct xib_ucontext *uctx, struct xib_device *dev)
{
	int ret, i;

	uctx->device = dev;
	uctx->mmap_next = 0;
	xa_init(&uctx->mmap_xa);
	for (i = 0; i < XIB_RES_MAX; i++)
		atomic_set(&uctx->res_count[i], 0);
	uctx->owner_euid = current_euid();
	uctx->owner_ns = current_user_ns();
	ret = xib_user_ctx_charge(uctx->owner_ns, uctx->owner_euid);
	if (ret)
		return ret;
	uctx->owner_pid = get_task_pid(current, PIDTYPE_TGID);
	get_task_comm(uctx->owner_comm, current);
	ret = xa_alloc_irq(&dev->res[XIB_RES_UCONTEXT], &uctx->id, uctx,
			   XA_LIMIT(1, INT_MAX), GFP_KERNEL);
	if (ret)
		goto err_put_pid;
	atomic_inc(&dev->res_count[XIB_RES_UCONTEXT]);
	return 0;

err_put_pid:
	put_pid(uctx->owner_pid);
	xib_user_ctx_uncharge(uctx->owner_ns, uctx->owner_euid);
	return ret == -EBUSY ? -ENOMEM : ret;
}
EXPORT_SYMBOL_GPL(xib_ucontext_init);

/**
 * xib_ucontext_cleanup() - undo xib_ucontext_init()
 * @uctx: the context, whose objects are all destroyed
 *
 * Unpublishes every entry still published (mappings keep theirs),
 * removes the context from its device's table and uncharges its owner.
 * Context: may sleep.
 */
void xib_ucontext_cleanup(struct xib_ucontext *uctx)
{
	struct xib_device *dev = uctx->device;
	struct xib_mmap_entry *entry;
	unsigned long pgoff;

	xa_for_each(&uctx->mmap_xa, pgoff, entry)
		xib_mmap_put(xa_erase(&uctx->mmap_xa, pgoff));
	xa_destroy(&uctx->mmap_xa);
	xa_erase_irq(&dev->res[XIB_RES_UCONTEXT], uctx->id);
	atomic_dec(&dev->res_count[XIB_RES_UCONTEXT]);
	put_pid(uctx->owner_pid);
	xib_user_ctx_uncharge(uctx->owner_ns, uctx->owner_euid);
}
EXPORT_SYMBOL_GPL(xib_ucontext_cleanup);
