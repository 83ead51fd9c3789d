// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca atomics, the responder's side (IBTA vol. 1 9.4.5, 9.7.5.1.7):
 * the checks an ATOMIC CMP_SWAP or FETCH_ADD request must pass and the
 * read-modify-write of the 8 bytes of user memory it names.  Pure
 * functions of their arguments, kept apart from the engine so that
 * tests/kunit/xib_hca_atomic_test.c can check them on their own; the
 * responder (hca_resp.c) calls them under qp->rq.lock.
 *
 * Atomicity (atomic_cap IBV_ATOMIC_HCA): neither a device-wide lock nor
 * a table of hashed locks.  The 8 bytes are naturally aligned in the
 * pinned page (the VA is checked, and so is the kernel address: they
 * differ only if an MR's iova and its address differ modulo 8), so the
 * CPU's own 64-bit compare-and-exchange on the kernel mapping of the
 * page does the read-modify-write indivisibly.  That is atomic with
 * respect to every other atomic of every QP of every xib device on the
 * same memory, whichever CPU runs it, and unrelated words never wait for
 * each other, which a lock would make them do.  It is also atomic with
 * respect to CPU atomics on the word, but not with respect to other
 * HCAs of the host (rdma_rxe does a plain read-modify-write under a
 * lock of its own), so the device reports IBV_ATOMIC_HCA, not _GLOB.
 *
 * The value in memory is in the responder's byte order (a 64-bit integer
 * of the host, as the IBTA has it); the wire carries big-endian operands
 * (hca_wire.h converts).
 */
#include <linux/atomic.h>
#include <linux/highmem.h>
#include <linux/mm.h>

#include "hca.h"

/**
 * xib_hca_atomic_check() - may an atomic request use its target?
 * @qp_access: the responder QP's access flags (enum xib_access_flags)
 * @pd: the responder QP's PD
 * @mr: the MR @rkey names (the caller looked it up), or NULL if none
 * @va: the AtomicETH's virtual address
 * @rkey: the AtomicETH's R_Key
 *
 * IBTA: an atomic on a QP that does not allow remote atomics is an
 * unsupported request, and so is a VA that is not 8-byte aligned (class
 * C, NAK Invalid Request, as rdma_rxe answers too); an R_Key that names
 * no valid MR, an MR of another PD or without REMOTE_ATOMIC access, or
 * 8 bytes not all inside the MR are an R_Key violation (NAK Remote
 * Access Error).
 *
 * Return: 0 if the request may execute, else the AETH NAK code
 * (XIB_AETH_NAK_INVALID or XIB_AETH_NAK_REM_ACCESS).
 */
int xib_hca_atomic_check(u32 qp_access, const struct xib_pd *pd,
			 const struct xib_mr *mr, u64 va, u32 rkey)
{
	if (!(qp_access & XIB_ACCESS_REMOTE_ATOMIC))
		return XIB_AETH_NAK_INVALID;
	if (va & 7)
		return XIB_AETH_NAK_INVALID;
	if (!mr || mr->rkey != rkey || !mr->umem ||
	    xib_mr_check(mr, pd, va, sizeof(u64), XIB_ACCESS_REMOTE_ATOMIC))
		return XIB_AETH_NAK_REM_ACCESS;
	return 0;
}

/**
 * xib_hca_atomic_exec() - execute an atomic on pinned user memory
 * @umem: the MR's pinned memory
 * @offset: byte offset of the 8-byte word from @umem->address
 * @cmp_swap: CMP_SWAP (else FETCH_ADD)
 * @swap_add: the swap value (CMP_SWAP) or the addend (FETCH_ADD)
 * @compare: CMP_SWAP: the value the word must hold to be swapped
 * @orig: returns the word as it was before
 *
 * CMP_SWAP writes @swap_add if the word equals @compare; FETCH_ADD adds
 * @swap_add (modulo 2^64).  Either is one indivisible CPU operation (see
 * the top of this file).
 *
 * Return: 0; -ERANGE if the word is not inside @umem; -EACCES if @umem is
 * not pinned for writing; -EINVAL if the word is not 8-byte aligned in
 * the page (nothing is done in these cases).  Context: any.
 */
int xib_hca_atomic_exec(struct xib_umem *umem, u64 offset, bool cmp_swap,
			u64 swap_add, u64 compare, u64 *orig)
{
	u64 pos, old, *word;
	struct page *page;
	void *kaddr;

	if (offset > umem->length || umem->length - offset < sizeof(u64))
		return -ERANGE;
	if (!umem->writable)
		return -EACCES;
	pos = offset_in_page(umem->address) + offset;
	if (pos & 7)
		return -EINVAL;
	page = umem->pages[pos >> PAGE_SHIFT];
	kaddr = kmap_local_page(page);
	word = kaddr + offset_in_page(pos);
	if (cmp_swap) {
		old = cmpxchg64(word, compare, swap_add);
	} else {
		old = READ_ONCE(*word);
		while (!try_cmpxchg64(word, &old, old + swap_add))
			;
	}
	kunmap_local(kaddr);
	flush_dcache_page(page);
	*orig = old;
	return 0;
}
