/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Index arithmetic of xib's shared queue rings.
 *
 * Rings have a power-of-two number of slots and two free-running 32-bit
 * indices: the producer's and the consumer's.  An index is never reduced
 * modulo the ring size; the slot of index i is (i & mask), and the number
 * of occupied slots is (prod - cons) in 32-bit unsigned arithmetic, which
 * stays right across the 2^32 wrap.  Each index has one writer.
 *
 * An index read from memory user space can write is untrusted: it is only
 * used after xib_ring_count_valid() (or through xib_ring_slot(), which
 * masks it), so a hostile value can neither overrun the ring nor make the
 * kernel consume a slot twice.
 */
#ifndef _XIB_RING_H
#define _XIB_RING_H

#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* Largest ring the ABI allows, in slots: a power of two below 2^31. */
#define XIB_RING_MAX_SLOTS	SZ_1M

/**
 * xib_ring_size_valid() - may a ring have @slots slots?
 * @slots: requested number of slots
 */
static inline bool xib_ring_size_valid(u32 slots)
{
	return slots && is_power_of_2(slots) && slots <= XIB_RING_MAX_SLOTS;
}

/**
 * xib_ring_count() - occupied slots between @cons and @prod
 * @prod: producer index
 * @cons: consumer index
 */
static inline u32 xib_ring_count(u32 prod, u32 cons)
{
	return prod - cons;
}

/**
 * xib_ring_count_valid() - is @prod a possible producer index?
 * @prod: producer index, e.g. read from user memory
 * @cons: the trusted consumer index
 * @slots: ring size
 *
 * A producer can be at most @slots ahead of the consumer and never
 * behind it.
 */
static inline bool xib_ring_count_valid(u32 prod, u32 cons, u32 slots)
{
	return xib_ring_count(prod, cons) <= slots;
}

/**
 * xib_ring_free() - free slots a producer at @prod may still fill
 * @prod: the trusted producer index
 * @cons: consumer index, e.g. read from user memory
 * @slots: ring size
 *
 * Returns 0 for a consumer index that is impossible (ahead of the
 * producer), so a hostile consumer cannot make the producer overwrite
 * unconsumed slots.
 */
static inline u32 xib_ring_free(u32 prod, u32 cons, u32 slots)
{
	u32 used = xib_ring_count(prod, cons);

	return used > slots ? 0 : slots - used;
}

/**
 * xib_ring_slot() - slot number of index @idx
 * @idx: any index, trusted or not
 * @slots: ring size, a power of two
 */
static inline u32 xib_ring_slot(u32 idx, u32 slots)
{
	return idx & (slots - 1);
}

#endif /* _XIB_RING_H */
