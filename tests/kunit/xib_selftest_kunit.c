// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a KUnit suite with one case that fails on purpose.
 * Only "make check-harness" loads it; it proves that a failing KUnit case
 * turns the run red.
 */

#include <kunit/test.h>

static void xib_selftest_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void xib_selftest_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "injected failure");
}

static struct kunit_case xib_selftest_cases[] = {
	KUNIT_CASE(xib_selftest_passes),
	KUNIT_CASE(xib_selftest_fails),
	{}
};

static struct kunit_suite xib_selftest_suite = {
	.name = "xib_selftest",
	.test_cases = xib_selftest_cases,
};

kunit_test_suite(xib_selftest_suite);

MODULE_DESCRIPTION("xib test harness self-test: a failing KUnit case");
MODULE_LICENSE("GPL");
