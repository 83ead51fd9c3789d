// SPDX-License-Identifier: GPL-2.0
/*
 * xib_uverbs mmap: rings and doorbell pages at the offsets the commands
 * return.
 *
 * Every VMA is tracked (struct xib_uverbs_umap on ctx->umaps) and holds a
 * reference on its entry.  When the device goes away the context's
 * mappings are zapped; a later fault then maps a fresh zeroed page, never
 * the device's memory and never SIGBUS.
 *
 * The entry's pages are inserted with vm_insert_page() (VM_MIXEDMAP; the
 * memory is charged vmalloc memory, not vmalloc_user(), so
 * remap_vmalloc_range() would refuse it), which zap_vma_ptes()
 * refuses to touch (it only zaps VM_PFNMAP), so the mappings are zapped
 * with zap_page_range(), which Linux 6.1 exports.
 *
 * An io entry (a UAR: one page of a PCI function's registers) is mapped
 * with io_remap_pfn_range(), uncached (VM_IO | VM_PFNMAP), writable and
 * never executable; it is not copied by fork() (VM_DONTCOPY) and
 * mremap() is refused, so that every VMA mapping device memory is one
 * the context tracks and zaps before the device lets the memory go.
 */

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "uverbs_priv.h"

/**
 * struct xib_uverbs_umap - one VMA mapping an entry of a context
 * @list: in @ctx->umaps; empty once zapped
 * @ctx: the context (the VMA's file keeps it alive)
 * @vma: the VMA
 * @entry: the mapped entry, with a reference; NULL once zapped
 */
struct xib_uverbs_umap {
	struct list_head list;
	struct xib_uverbs_ctx *ctx;
	struct vm_area_struct *vma;
	struct xib_mmap_entry *entry;
};

/*
 * A new VMA copied from a tracked one (fork, split, mremap): track it too.
 * Called with the mmap lock held.
 */
static void xib_uverbs_vm_open(struct vm_area_struct *vma)
{
	struct xib_uverbs_umap *old = vma->vm_private_data;
	struct xib_uverbs_ctx *ctx;
	struct xib_uverbs_umap *umap;

	if (!old)
		return;
	ctx = old->ctx;
	vma->vm_private_data = NULL;
	/*
	 * ->open cannot fail (fork, a split of the mapping), and an
	 * untracked copy could not be zapped when the device goes away: the
	 * record is small, so wait for it (charged to the process).
	 */
	umap = kzalloc(sizeof(*umap), GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
	umap->ctx = ctx;
	umap->vma = vma;
	mutex_lock(&ctx->umap_lock);
	if (!ctx->mm_dead && old->entry) {
		umap->entry = old->entry;
		xib_mmap_get(umap->entry);
		list_add_tail(&umap->list, &ctx->umaps);
	} else {
		INIT_LIST_HEAD(&umap->list);
	}
	mutex_unlock(&ctx->umap_lock);
	vma->vm_private_data = umap;
}

static void xib_uverbs_vm_close(struct vm_area_struct *vma)
{
	struct xib_uverbs_umap *umap = vma->vm_private_data;
	struct xib_mmap_entry *entry;

	if (!umap)
		return;
	mutex_lock(&umap->ctx->umap_lock);
	list_del_init(&umap->list);
	entry = umap->entry;
	umap->entry = NULL;
	mutex_unlock(&umap->ctx->umap_lock);
	xib_mmap_put(entry);
	vma->vm_private_data = NULL;
	kfree(umap);
}

/*
 * The pages were all inserted at mmap time, so a fault only happens once
 * they were zapped: give the process a fresh zeroed page.
 */
static vm_fault_t xib_uverbs_vm_fault(struct vm_fault *vmf)
{
	struct page *page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);

	if (!page)
		return VM_FAULT_OOM;
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct xib_uverbs_vm_ops = {
	.open = xib_uverbs_vm_open,
	.close = xib_uverbs_vm_close,
	.fault = xib_uverbs_vm_fault,
};

/* A UAR stays where it was mapped (see the top of the file). */
static int xib_uverbs_io_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct xib_uverbs_io_vm_ops = {
	.open = xib_uverbs_vm_open,
	.close = xib_uverbs_vm_close,
	.fault = xib_uverbs_vm_fault,
	.mremap = xib_uverbs_io_mremap,
};

/* Map the device page of the io @entry into @vma, uncached. */
static int xib_uverbs_map_io(struct vm_area_struct *vma,
			     struct xib_mmap_entry *entry)
{
	/* a UAR is for writing doorbells: never read-only, never code */
	if (!(vma->vm_flags & VM_WRITE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_flags |= VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	return io_remap_pfn_range(vma, vma->vm_start,
				  PHYS_PFN(entry->io_addr), PAGE_SIZE,
				  vma->vm_page_prot);
}

/* Map every page of @entry into @vma, whose size is the entry's. */
static int xib_uverbs_insert_pages(struct vm_area_struct *vma,
				   struct xib_mmap_entry *entry)
{
	unsigned long off;
	int ret;

	for (off = 0; off < entry->size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(entry->vaddr + off));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * xib_uverbs_mmap() - map the entry published at the VMA's offset
 * @filp: a /dev/xib/uverbsN file
 * @vma: must be shared and exactly the entry's size; read-only entries
 *	refuse writable mappings, io entries (a UAR) mappings that are not
 *	writable or are executable
 */
int xib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct xib_uverbs_ctx *ctx = filp->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct xib_mmap_entry *entry;
	struct xib_uverbs_umap *umap;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap)
		return -ENOMEM;

	mutex_lock(&ctx->umap_lock);
	if (ctx->mm_dead) {
		ret = -EIO;
		goto err_unlock;
	}
	entry = xib_mmap_lookup(&ctx->uctx, (u64)vma->vm_pgoff << PAGE_SHIFT);
	if (!entry) {
		ret = -EINVAL;
		goto err_unlock;
	}
	if (size != entry->size) {
		ret = -EINVAL;
		goto err_put_entry;
	}
	if (entry->io) {
		ret = xib_uverbs_map_io(vma, entry);
		if (ret)
			goto err_put_entry;
	} else {
		if (entry->read_only) {
			if (vma->vm_flags & VM_WRITE) {
				ret = -EPERM;
				goto err_put_entry;
			}
			vma->vm_flags &= ~VM_MAYWRITE;
		}
		vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
		ret = xib_uverbs_insert_pages(vma, entry);
		if (ret)
			goto err_put_entry;
	}

	umap->ctx = ctx;
	umap->vma = vma;
	umap->entry = entry;
	list_add_tail(&umap->list, &ctx->umaps);
	vma->vm_private_data = umap;
	vma->vm_ops = entry->io ? &xib_uverbs_io_vm_ops : &xib_uverbs_vm_ops;
	mutex_unlock(&ctx->umap_lock);
	return 0;

err_put_entry:
	xib_mmap_put(entry);
err_unlock:
	mutex_unlock(&ctx->umap_lock);
	kfree(umap);
	return ret;
}

/* Next mm with a tracked VMA, with mmget; untracks VMAs of dying mms. */
static struct mm_struct *xib_uverbs_next_mm(struct xib_uverbs_ctx *ctx)
{
	struct xib_uverbs_umap *umap;
	struct mm_struct *mm = NULL;

	mutex_lock(&ctx->umap_lock);
	while (!mm && !list_empty(&ctx->umaps)) {
		umap = list_first_entry(&ctx->umaps, struct xib_uverbs_umap,
					list);
		mm = umap->vma->vm_mm;
		if (!mmget_not_zero(mm)) {
			/* exit_mmap() is removing it anyway. */
			list_del_init(&umap->list);
			xib_mmap_put(umap->entry);
			umap->entry = NULL;
			mm = NULL;
		}
	}
	mutex_unlock(&ctx->umap_lock);
	return mm;
}

/**
 * xib_uverbs_zap_mappings() - remove the context's memory from every VMA
 * @ctx: the context; new mmap() calls fail with -EIO from here on
 *
 * Context: process context; takes each owning mm's mmap lock.
 */
void xib_uverbs_zap_mappings(struct xib_uverbs_ctx *ctx)
{
	struct xib_uverbs_umap *umap, *tmp;
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	mutex_lock(&ctx->umap_lock);
	ctx->mm_dead = true;
	mutex_unlock(&ctx->umap_lock);

	while ((mm = xib_uverbs_next_mm(ctx))) {
		mmap_read_lock(mm);
		mutex_lock(&ctx->umap_lock);
		list_for_each_entry_safe(umap, tmp, &ctx->umaps, list) {
			vma = umap->vma;
			if (vma->vm_mm != mm)
				continue;
			list_del_init(&umap->list);
			zap_page_range(vma, vma->vm_start,
				       vma->vm_end - vma->vm_start);
			xib_mmap_put(umap->entry);
			umap->entry = NULL;
		}
		mutex_unlock(&ctx->umap_lock);
		mmap_read_unlock(mm);
		mmput(mm);
	}
}
