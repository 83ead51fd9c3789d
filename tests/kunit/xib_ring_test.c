// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the ring index helpers in include/xib/ring.h.
 */

#include <kunit/test.h>
#include <xib/ring.h>

static void xib_ring_test_size(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(0));
	KUNIT_EXPECT_TRUE(test, xib_ring_size_valid(1));
	KUNIT_EXPECT_TRUE(test, xib_ring_size_valid(64));
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(65));
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(96));
	KUNIT_EXPECT_TRUE(test, xib_ring_size_valid(XIB_RING_MAX_SLOTS));
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(XIB_RING_MAX_SLOTS << 1));
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(0x80000000U));
	KUNIT_EXPECT_FALSE(test, xib_ring_size_valid(U32_MAX));
}

static void xib_ring_test_count_wrap(struct kunit *test)
{
	/* Producer has wrapped past 2^32, consumer has not yet. */
	KUNIT_EXPECT_EQ(test, xib_ring_count(3, 0xfffffffeU), 5U);
	KUNIT_EXPECT_EQ(test, xib_ring_count(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, xib_ring_count(0x80000000U, 0x7fffffffU), 1U);
	KUNIT_EXPECT_TRUE(test, xib_ring_count_valid(3, 0xfffffffeU, 8));
	KUNIT_EXPECT_TRUE(test, xib_ring_count_valid(6, 0xfffffffeU, 8));
	KUNIT_EXPECT_FALSE(test, xib_ring_count_valid(7, 0xfffffffeU, 8));
}

static void xib_ring_test_hostile_indices(struct kunit *test)
{
	/* A producer behind the consumer is as impossible as one too far. */
	KUNIT_EXPECT_FALSE(test, xib_ring_count_valid(9, 10, 16));
	KUNIT_EXPECT_FALSE(test, xib_ring_count_valid(10 + 17, 10, 16));
	KUNIT_EXPECT_TRUE(test, xib_ring_count_valid(10 + 16, 10, 16));
	/* A consumer ahead of the producer leaves no room to produce. */
	KUNIT_EXPECT_EQ(test, xib_ring_free(10, 11, 16), 0U);
	KUNIT_EXPECT_EQ(test, xib_ring_free(10, 10 - 16, 16), 0U);
	KUNIT_EXPECT_EQ(test, xib_ring_free(10, 10 - 15, 16), 1U);
	KUNIT_EXPECT_EQ(test, xib_ring_free(10, 10, 16), 16U);
	KUNIT_EXPECT_EQ(test, xib_ring_free(2, 0xfffffff0U, 32), 14U);
}

static void xib_ring_test_slot(struct kunit *test)
{
	u32 i;

	KUNIT_EXPECT_EQ(test, xib_ring_slot(0xffffffffU, 8), 7U);
	KUNIT_EXPECT_EQ(test, xib_ring_slot(0, 8), 0U);
	KUNIT_EXPECT_EQ(test, xib_ring_slot(0xdeadbeefU, 1), 0U);
	/* Consecutive indices across the wrap visit consecutive slots. */
	for (i = 0xfffffffcU; i != 4; i++)
		KUNIT_EXPECT_EQ(test, xib_ring_slot(i + 1, 16),
				(xib_ring_slot(i, 16) + 1) % 16);
}

static struct kunit_case xib_ring_test_cases[] = {
	KUNIT_CASE(xib_ring_test_size),
	KUNIT_CASE(xib_ring_test_count_wrap),
	KUNIT_CASE(xib_ring_test_hostile_indices),
	KUNIT_CASE(xib_ring_test_slot),
	{}
};

static struct kunit_suite xib_ring_test_suite = {
	.name = "xib_ring",
	.test_cases = xib_ring_test_cases,
};

kunit_test_suite(xib_ring_test_suite);

MODULE_DESCRIPTION("KUnit tests of xib ring index arithmetic");
MODULE_LICENSE("GPL");
