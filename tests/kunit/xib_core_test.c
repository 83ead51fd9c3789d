// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xib_core device registry: registration, names,
 * lookups, clients and the release of device memory.
 */

#include <kunit/test.h>
#include <xib/xib_verbs.h>

static int xib_test_releases;

static void xib_test_dealloc(struct xib_device *dev)
{
	xib_test_releases++;
}

static const struct xib_device_ops xib_test_ops = {
	.owner = THIS_MODULE,
	.driver_name = "xib_core_test",
	.dealloc_driver = xib_test_dealloc,
};

struct xib_test_dev {
	struct xib_device xdev;
	int client_payload;
};

static_assert(offsetof(struct xib_test_dev, xdev) == 0);

static struct xib_test_dev *xib_test_alloc(struct kunit *test)
{
	struct xib_device *xdev = xib_alloc_device(&xib_test_ops,
						  sizeof(struct xib_test_dev));
	struct xib_test_dev *tdev;

	KUNIT_ASSERT_NOT_NULL(test, xdev);
	tdev = container_of(xdev, struct xib_test_dev, xdev);
	tdev->xdev.phys_port_cnt = 1;
	tdev->xdev.node_guid = cpu_to_be64(0x0200000000000001ULL);
	return tdev;
}

static void xib_core_test_names(struct kunit *test)
{
	static const char * const bad[] = {
		"", ".", "..", "a/b", "a b", "tab\there", "co:lon", "new\nline",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	struct xib_test_dev *a = xib_test_alloc(test);
	struct xib_test_dev *b = xib_test_alloc(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, xib_register_device(&a->xdev, bad[i], &init_net),
				    -EINVAL, "name \"%s\"", bad[i]);

	KUNIT_ASSERT_EQ(test, xib_register_device(&a->xdev, "xib_kunit_a", &init_net), 0);
	KUNIT_EXPECT_STREQ(test, dev_name(&a->xdev.dev), "xib_kunit_a");
	/* A second device may not take the same name. */
	KUNIT_EXPECT_EQ(test, xib_register_device(&b->xdev, "xib_kunit_a", &init_net),
			-EEXIST);
	KUNIT_ASSERT_EQ(test, xib_register_device(&b->xdev, "xib_kunit_b", &init_net), 0);
	KUNIT_EXPECT_NE(test, a->xdev.index, b->xdev.index);

	xib_unregister_device(&b->xdev);
	xib_unregister_device(&a->xdev);

	/* The name is free again once its device is unregistered. */
	KUNIT_EXPECT_EQ(test, xib_register_device(&b->xdev, "xib_kunit_a", &init_net), 0);
	xib_unregister_device(&b->xdev);

	xib_test_releases = 0;
	xib_dealloc_device(&a->xdev);
	xib_dealloc_device(&b->xdev);
	KUNIT_EXPECT_EQ(test, xib_test_releases, 2);
}

static void xib_core_test_lookup(struct kunit *test)
{
	struct xib_test_dev *a = xib_test_alloc(test);
	struct xib_device *found;
	u32 index;

	KUNIT_ASSERT_EQ(test, xib_register_device(&a->xdev, "xib_kunit_lk", &init_net), 0);
	index = a->xdev.index;

	found = xib_device_get_by_name(&init_net, "xib_kunit_lk");
	KUNIT_EXPECT_PTR_EQ(test, found, &a->xdev);
	if (found)
		xib_device_release_user(found);
	found = xib_device_get_by_index(&init_net, index);
	KUNIT_EXPECT_PTR_EQ(test, found, &a->xdev);
	/* A lookup holds a user reference on top of the registration's. */
	KUNIT_EXPECT_EQ(test, refcount_read(&a->xdev.users), 2U);
	if (found)
		xib_device_release_user(found);
	KUNIT_EXPECT_EQ(test, refcount_read(&a->xdev.users), 1U);

	KUNIT_EXPECT_NULL(test, xib_device_get_by_name(&init_net, "xib_kunit_no"));
	KUNIT_EXPECT_NULL(test, xib_device_get_by_index(&init_net, index + 1000));

	xib_unregister_device(&a->xdev);
	KUNIT_EXPECT_NULL(test, xib_device_get_by_name(&init_net, "xib_kunit_lk"));
	KUNIT_EXPECT_NULL(test, xib_device_get_by_index(&init_net, index));
	xib_dealloc_device(&a->xdev);
}

static int xib_test_adds, xib_test_removes;
static bool xib_test_refuse;
static struct xib_client xib_test_client;
static struct xib_client xib_test_nodata_client;

static int xib_test_client_add(struct xib_device *dev)
{
	struct xib_test_dev *tdev = container_of(dev, struct xib_test_dev, xdev);

	if (xib_test_refuse)
		return -ENOMEM;
	xib_test_adds++;
	return xib_set_client_data(dev, &xib_test_client, &tdev->client_payload);
}

static void xib_test_client_remove(struct xib_device *dev, void *data)
{
	struct xib_test_dev *tdev = container_of(dev, struct xib_test_dev, xdev);

	/* remove gets back exactly what add stored */
	if (data == &tdev->client_payload)
		xib_test_removes++;
}

static struct xib_client xib_test_client = {
	.name = "kunit",
	.add = xib_test_client_add,
	.remove = xib_test_client_remove,
};

static int xib_test_nodata_add(struct xib_device *dev)
{
	xib_test_adds++;
	return 0;
}

static void xib_test_nodata_remove(struct xib_device *dev, void *data)
{
	if (!data)
		xib_test_removes++;
}

static struct xib_client xib_test_nodata_client = {
	.name = "kunit-nodata",
	.add = xib_test_nodata_add,
	.remove = xib_test_nodata_remove,
};

static void xib_core_test_clients(struct kunit *test)
{
	struct xib_test_dev *a = xib_test_alloc(test);
	struct xib_test_dev *b = xib_test_alloc(test);

	xib_test_adds = 0;
	xib_test_removes = 0;
	xib_test_refuse = false;

	/* A device registered before the client is offered to it... */
	KUNIT_ASSERT_EQ(test, xib_register_device(&a->xdev, "xib_kunit_c1", &init_net), 0);
	KUNIT_ASSERT_EQ(test, xib_register_client(&xib_test_client), 0);
	KUNIT_EXPECT_EQ(test, xib_test_adds, 1);
	KUNIT_EXPECT_PTR_EQ(test, xib_get_client_data(&a->xdev, &xib_test_client),
			    (void *)&a->client_payload);

	/* ...and so is one registered after; a refused add is not removed. */
	xib_test_refuse = true;
	KUNIT_ASSERT_EQ(test, xib_register_device(&b->xdev, "xib_kunit_c2", &init_net), 0);
	KUNIT_EXPECT_EQ(test, xib_test_adds, 1);
	KUNIT_EXPECT_NULL(test, xib_get_client_data(&b->xdev, &xib_test_client));
	xib_unregister_device(&b->xdev);
	KUNIT_EXPECT_EQ(test, xib_test_removes, 0);

	xib_unregister_device(&a->xdev);
	KUNIT_EXPECT_EQ(test, xib_test_removes, 1);
	xib_unregister_client(&xib_test_client);
	KUNIT_EXPECT_EQ(test, xib_test_removes, 1);

	/* A client that stores no data still gets remove, with NULL. */
	xib_test_adds = 0;
	xib_test_removes = 0;
	KUNIT_ASSERT_EQ(test, xib_register_client(&xib_test_nodata_client), 0);
	KUNIT_ASSERT_EQ(test, xib_register_device(&a->xdev, "xib_kunit_c3", &init_net), 0);
	KUNIT_EXPECT_EQ(test, xib_test_adds, 1);
	xib_unregister_client(&xib_test_nodata_client);
	KUNIT_EXPECT_EQ(test, xib_test_removes, 1);
	xib_unregister_device(&a->xdev);
	KUNIT_EXPECT_EQ(test, xib_test_removes, 1);

	xib_dealloc_device(&a->xdev);
	xib_dealloc_device(&b->xdev);
}

static struct xib_link_ops xib_test_link_a = {
	.type = "kunit",
	.owner = THIS_MODULE,
};

static struct xib_link_ops xib_test_link_b = {
	.type = "kunit",
	.owner = THIS_MODULE,
};

static struct xib_link_ops xib_test_link_long = {
	.type = "a-link-type-name-that-is-too-long",
	.owner = THIS_MODULE,
};

static void xib_core_test_link_types(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, xib_link_register(&xib_test_link_a), 0);
	KUNIT_EXPECT_EQ(test, xib_link_register(&xib_test_link_b), -EEXIST);
	KUNIT_EXPECT_EQ(test, xib_link_register(&xib_test_link_long), -EINVAL);
	xib_link_unregister(&xib_test_link_a);
	KUNIT_ASSERT_EQ(test, xib_link_register(&xib_test_link_b), 0);
	xib_link_unregister(&xib_test_link_b);
}

static struct kunit_case xib_core_test_cases[] = {
	KUNIT_CASE(xib_core_test_names),
	KUNIT_CASE(xib_core_test_lookup),
	KUNIT_CASE(xib_core_test_clients),
	KUNIT_CASE(xib_core_test_link_types),
	{}
};

static struct kunit_suite xib_core_test_suite = {
	.name = "xib_core_device",
	.test_cases = xib_core_test_cases,
};

kunit_test_suite(xib_core_test_suite);

MODULE_DESCRIPTION("KUnit tests of the xib_core device registry");
MODULE_LICENSE("GPL");
