// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned user memory for memory regions.
 *
 * The pages are pinned with FOLL_LONGTERM (they are the target of DMA-like
 * access by the HCA for as long as the MR lives) and charged to the
 * caller's mm->pinned_vm against RLIMIT_MEMLOCK, unless the caller has
 * CAP_IPC_LOCK.  The umem keeps the mm (mmgrab) to uncharge it on release,
 * whichever task releases it.
 */

#include <linux/capability.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "core_priv.h"

/* Pages pinned per pin_user_pages_fast() call. */
#define XIB_UMEM_PIN_CHUNK	512UL

static int xib_umem_pin(struct xib_umem *umem, unsigned int gup_flags)
{
	unsigned long start = umem->address & PAGE_MASK;
	unsigned long done = 0;
	int ret;

	while (done < umem->npages) {
		unsigned long n = min(umem->npages - done, XIB_UMEM_PIN_CHUNK);

		ret = pin_user_pages_fast(start + done * PAGE_SIZE, n,
					  gup_flags, umem->pages + done);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			goto err_unpin;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
		cond_resched();
	}
	return 0;

err_unpin:
	unpin_user_pages(umem->pages, done);
	return ret;
}

/**
 * xib_umem_get() - pin user memory of the current process
 * @dev: the device the memory is registered with
 * @addr: first byte
 * @length: bytes, > 0
 * @access: enum xib_access_flags; pinned for writing if it contains
 *	LOCAL_WRITE, REMOTE_WRITE or REMOTE_ATOMIC
 *
 * Return: the umem or an ERR_PTR: -EINVAL for an empty or wrapping range,
 * -ENOMEM beyond RLIMIT_MEMLOCK or out of memory, -EFAULT for memory the
 * process cannot pin, -EINTR on a fatal signal.  Context: process context
 * of the owner of the memory.
 */
struct xib_umem *xib_umem_get(struct xib_device *dev, u64 addr, u64 length,
			      int access)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	struct mm_struct *mm = current->mm;
	unsigned long lock_limit, npages;
	struct xib_umem *umem;
	u64 end;
	int ret;

	if (!length || check_add_overflow(addr, length, &end) ||
	    end > TASK_SIZE)
		return ERR_PTR(-EINVAL);
	if (!mm)
		return ERR_PTR(-EFAULT);
	npages = (ALIGN(end, PAGE_SIZE) - (addr & PAGE_MASK)) >> PAGE_SHIFT;
	if (npages > INT_MAX / sizeof(struct page *))
		return ERR_PTR(-ENOMEM);
	if (access & (XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
		      XIB_ACCESS_REMOTE_ATOMIC))
		gup_flags |= FOLL_WRITE;

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->address = addr;
	umem->length = length;
	umem->npages = npages;
	umem->writable = gup_flags & FOLL_WRITE;
	umem->mm = mm;
	mmgrab(mm);

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (atomic64_add_return(npages, &mm->pinned_vm) > lock_limit &&
	    !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_uncharge;
	}

	umem->pages = kvcalloc(npages, sizeof(*umem->pages), GFP_KERNEL);
	if (!umem->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = xib_umem_pin(umem, gup_flags);
	if (ret)
		goto err_free_pages;
	return umem;

err_free_pages:
	kvfree(umem->pages);
err_uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
	mmdrop(mm);
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(xib_umem_get);

/**
 * xib_umem_release() - unpin and free what xib_umem_get() returned
 * @umem: the umem; NULL or an ERR_PTR is ignored
 *
 * Pages pinned for writing are marked dirty.  The pinned pages are
 * uncharged from the mm that was charged.  Context: may sleep.
 */
void xib_umem_release(struct xib_umem *umem)
{
	if (IS_ERR_OR_NULL(umem))
		return;
	unpin_user_pages_dirty_lock(umem->pages, umem->npages,
				    umem->writable);
	atomic64_sub(umem->npages, &umem->mm->pinned_vm);
	mmdrop(umem->mm);
	kvfree(umem->pages);
	kfree(umem);
}
EXPORT_SYMBOL_GPL(xib_umem_release);

/* [offset, offset + len) must lie within the umem. */
static int xib_umem_range(const struct xib_umem *umem, u64 offset, size_t len)
{
	if (offset > umem->length || len > umem->length - offset)
		return -ERANGE;
	return 0;
}

/* Copy between @buf and [@offset, @offset + @len) of @umem, page by page. */
static void xib_umem_walk(struct xib_umem *umem, u64 offset, void *buf,
			  size_t len, bool to_umem)
{
	u64 pos = offset_in_page(umem->address) + offset;

	while (len) {
		struct page *page = umem->pages[pos >> PAGE_SHIFT];
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		void *kaddr = kmap_local_page(page);

		if (to_umem)
			memcpy(kaddr + off, buf, n);
		else
			memcpy(buf, kaddr + off, n);
		kunmap_local(kaddr);
		if (to_umem)
			flush_dcache_page(page);
		buf += n;
		pos += n;
		len -= n;
	}
}

/**
 * xib_umem_copy_to() - write into pinned user memory
 * @umem: the umem, pinned writable
 * @offset: byte offset from @umem->address
 * @src: kernel source
 * @len: bytes
 *
 * Return: 0, -ERANGE when the range leaves the umem, or -EFAULT when the
 * umem was not pinned for writing.  Context: any (does not sleep).
 */
int xib_umem_copy_to(struct xib_umem *umem, u64 offset, const void *src,
		     size_t len)
{
	int ret;

	ret = xib_umem_range(umem, offset, len);
	if (ret)
		return ret;
	if (!umem->writable)
		return -EFAULT;
	xib_umem_walk(umem, offset, (void *)src, len, true);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_umem_copy_to);

/**
 * xib_umem_copy_from() - read pinned user memory
 * @dst: kernel destination
 * @umem: the umem
 * @offset: byte offset from @umem->address
 * @len: bytes
 *
 * Return: 0 or -ERANGE when the range leaves the umem.  Context: any.
 */
int xib_umem_copy_from(void *dst, struct xib_umem *umem, u64 offset,
		       size_t len)
{
	int ret;

	ret = xib_umem_range(umem, offset, len);
	if (ret)
		return ret;
	xib_umem_walk(umem, offset, dst, len, false);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_umem_copy_from);
