// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xib_core device registry: registration, names,
 * lookups, clients, the release of device memory and per-user counts.
 */

#include <kunit/test.h>
#include <linux/iopoll.h>
#include <linux/kthread.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/user_namespace.h>
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

/*
 * A client whose remove, for one chosen device, blocks until the test
 * lets it go: a verbs command stuck in a page fault holds up the uverbs
 * client's remove in the same way.
 */
static struct xib_device *xib_test_block_dev;
static DECLARE_COMPLETION(xib_test_block_entered);
static DECLARE_COMPLETION(xib_test_block_release);

static int xib_test_block_add(struct xib_device *dev)
{
	return 0;
}

static void xib_test_block_remove(struct xib_device *dev, void *data)
{
	if (dev != xib_test_block_dev)
		return;
	complete(&xib_test_block_entered);
	wait_for_completion(&xib_test_block_release);
}

static struct xib_client xib_test_block_client = {
	.name = "kunit-block",
	.add = xib_test_block_add,
	.remove = xib_test_block_remove,
};

/*
 * What another thread does while a removal waits: @dev is the device being
 * removed (or being registered and unregistered, with @name), @other the
 * device that tries the name of the one being removed.
 */
struct xib_test_work {
	struct xib_test_dev *dev;
	struct xib_test_dev *other;
	const char *name;
	const char *busy_name;
	struct xib_device *found;
	int busy_ret;
	int ret;
	struct completion done;
};

static int xib_test_unregister_fn(void *arg)
{
	struct xib_test_work *w = arg;

	xib_unregister_device(&w->dev->xdev);
	complete(&w->done);
	return 0;
}

static int xib_test_register_cycle_fn(void *arg)
{
	struct xib_test_work *w = arg;

	/* the device being removed is hidden, but its name is still taken */
	w->found = xib_device_get_by_name(&init_net, w->busy_name);
	if (w->found)
		xib_device_release_user(w->found);
	w->busy_ret = xib_register_device(&w->other->xdev, w->busy_name,
					  &init_net);
	if (!w->busy_ret)
		xib_unregister_device(&w->other->xdev);
	w->ret = xib_register_device(&w->dev->xdev, w->name, &init_net);
	if (!w->ret)
		xib_unregister_device(&w->dev->xdev);
	complete(&w->done);
	return 0;
}

/*
 * While a device's removal waits in a client's remove, other devices
 * register and unregister; the device being removed is no longer found,
 * but its name stays taken until its removal ends.
 */
static void xib_core_test_removal_blocks_nobody(struct kunit *test)
{
	struct xib_test_dev *a = xib_test_alloc(test);
	struct xib_test_dev *b = xib_test_alloc(test);
	struct xib_test_dev *c = xib_test_alloc(test);
	struct xib_test_work unreg = { .dev = a };
	struct xib_test_work cycle = {
		.dev = b, .other = c,
		.name = "xib_kunit_rb", .busy_name = "xib_kunit_ra",
	};
	struct task_struct *t;
	bool cycled;

	init_completion(&unreg.done);
	init_completion(&cycle.done);
	reinit_completion(&xib_test_block_entered);
	reinit_completion(&xib_test_block_release);
	xib_test_block_dev = &a->xdev;
	KUNIT_ASSERT_EQ(test, xib_register_client(&xib_test_block_client), 0);
	KUNIT_ASSERT_EQ(test, xib_register_device(&a->xdev, "xib_kunit_ra",
						  &init_net), 0);

	t = kthread_run(xib_test_unregister_fn, &unreg, "xib_kunit_unreg");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		xib_unregister_device(&a->xdev);
		goto out;
	}
	if (!wait_for_completion_timeout(&xib_test_block_entered, 10 * HZ)) {
		KUNIT_FAIL(test, "the removal did not reach the client's remove");
		goto out_release;
	}

	t = kthread_run(xib_test_register_cycle_fn, &cycle, "xib_kunit_cycle");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		goto out_release;
	}
	cycled = wait_for_completion_timeout(&cycle.done, 10 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, cycled,
			      "another device's registration waited for a removal");
	KUNIT_EXPECT_FALSE(test, completion_done(&unreg.done));

	complete(&xib_test_block_release);
	wait_for_completion(&unreg.done);
	/* a wait that succeeded took the completion's count */
	if (!cycled)
		wait_for_completion(&cycle.done);
	KUNIT_EXPECT_NULL(test, cycle.found);
	KUNIT_EXPECT_EQ(test, cycle.busy_ret, -EEXIST);
	KUNIT_EXPECT_EQ(test, cycle.ret, 0);
	/* the removal has ended: the name is free again */
	KUNIT_EXPECT_EQ(test, xib_register_device(&c->xdev, "xib_kunit_ra",
						  &init_net), 0);
	xib_unregister_device(&c->xdev);
	goto out;

out_release:
	complete(&xib_test_block_release);
	wait_for_completion(&unreg.done);
out:
	xib_unregister_client(&xib_test_block_client);
	xib_test_block_dev = NULL;
	xib_dealloc_device(&a->xdev);
	xib_dealloc_device(&b->xdev);
	xib_dealloc_device(&c->xdev);
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

/*
 * Ports: a device bound to a real (if silent) Ethernet interface follows
 * its state and MTU and reports the changes as events.
 */

static netdev_tx_t xib_test_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops xib_test_netdev_ops = {
	.ndo_start_xmit = xib_test_xmit,
};

static struct net_device *xib_test_ndev;

static struct net_device *xib_test_get_netdev(struct xib_device *dev, u32 port)
{
	if (port != 1)
		return NULL;
	dev_hold(xib_test_ndev);
	return xib_test_ndev;
}

static const struct xib_device_ops xib_test_port_ops = {
	.owner = THIS_MODULE,
	.driver_name = "xib_core_test",
	.get_netdev = xib_test_get_netdev,
};

struct xib_test_events {
	struct xib_event_handler handler;
	int count[XIB_EVENT_WQ_FATAL + 1];
	u32 last_port;
};

static void xib_test_on_event(struct xib_event_handler *handler,
			      const struct xib_event *event)
{
	struct xib_test_events *ev =
		container_of(handler, struct xib_test_events, handler);

	if (event->type <= XIB_EVENT_WQ_FATAL)
		WRITE_ONCE(ev->count[event->type], ev->count[event->type] + 1);
	ev->last_port = event->port_num;
}

static int xib_test_event_count(struct xib_test_events *ev,
				enum xib_event_type type)
{
	return READ_ONCE(ev->count[type]);
}

static u32 xib_test_active_mtu(struct xib_device *xdev)
{
	struct xib_port attr;

	return xib_query_port(xdev, 1, &attr) ? 0 : attr.active_mtu;
}

/*
 * Port changes are applied by a work item: wait up to 5 s for event
 * @type to have been seen @want times.
 */
static int xib_test_wait_event(struct xib_test_events *ev,
			       enum xib_event_type type, int want)
{
	int n;

	return read_poll_timeout(xib_test_event_count, n, n >= want,
				 20 * USEC_PER_MSEC, 5 * USEC_PER_SEC, false,
				 ev, type);
}

static void xib_core_test_port_follows_netdev(struct kunit *test)
{
	struct xib_test_events ev = { .handler.handler = xib_test_on_event };
	struct xib_device *xdev;
	struct net_device *ndev;
	struct xib_port attr;
	u8 gid[16];

	ndev = alloc_etherdev(0);
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	ndev->netdev_ops = &xib_test_netdev_ops;
	ndev->max_mtu = 9000;
	eth_hw_addr_set(ndev, (const u8[]){ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 });
	KUNIT_ASSERT_EQ(test, register_netdev(ndev), 0);
	xib_test_ndev = ndev;

	xdev = xib_alloc_device(&xib_test_port_ops, sizeof(*xdev));
	KUNIT_ASSERT_NOT_NULL(test, xdev);
	xdev->phys_port_cnt = 1;
	KUNIT_ASSERT_EQ(test, xib_register_device(xdev, "xib_kunit_port",
						  &init_net), 0);
	ev.handler.device = xdev;
	xib_register_event_handler(&ev.handler);

	/* Registration reads the interface: down, MTU 1500, default GID. */
	KUNIT_ASSERT_EQ(test, xib_query_port(xdev, 1, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.state, XIB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, attr.phys_state, XIB_PORT_PHYS_DISABLED);
	KUNIT_EXPECT_EQ(test, attr.active_mtu, 1024U);
	KUNIT_ASSERT_EQ(test, xib_query_gid(xdev, 1, 0, gid), 0);
	KUNIT_EXPECT_EQ(test, gid[0], 0xfe);
	KUNIT_EXPECT_EQ(test, gid[1], 0x80);
	KUNIT_EXPECT_EQ(test, gid[8], 0x00);	/* 0x02 with the U/L bit flipped */
	KUNIT_EXPECT_EQ(test, gid[11], 0xff);
	KUNIT_EXPECT_EQ(test, gid[12], 0xfe);
	KUNIT_EXPECT_EQ(test, gid[15], 0x55);
	KUNIT_EXPECT_EQ(test, xib_query_gid(xdev, 1, 1, gid), -ENOENT);
	KUNIT_EXPECT_EQ(test, xib_query_gid(xdev, 1, XIB_PORT_GID_TBL_LEN, gid),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xib_query_port(xdev, 2, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_query_port(xdev, 0, &attr), -EINVAL);

	/* Up: PORT_ACTIVE. */
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_open(ndev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, xib_test_wait_event(&ev, XIB_EVENT_PORT_ACTIVE, 1), 0);
	KUNIT_EXPECT_EQ(test, ev.last_port, 1U);
	xib_query_port(xdev, 1, &attr);
	KUNIT_EXPECT_EQ(test, attr.state, XIB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, attr.phys_state, XIB_PORT_PHYS_LINK_UP);

	/* A bigger MTU gives a bigger IB MTU, without a port event. */
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, dev_set_mtu(ndev, 9000), 0);
	rtnl_unlock();
	{
		u32 mtu;

		KUNIT_EXPECT_EQ(test, read_poll_timeout(xib_test_active_mtu, mtu,
							mtu == 4096,
							20 * USEC_PER_MSEC,
							5 * USEC_PER_SEC, false,
							xdev), 0);
	}

	/* Carrier loss: PORT_ERR; a new MAC: GID_CHANGE. */
	netif_carrier_off(ndev);
	KUNIT_EXPECT_EQ(test, xib_test_wait_event(&ev, XIB_EVENT_PORT_ERR, 1), 0);
	rtnl_lock();
	eth_hw_addr_set(ndev, (const u8[]){ 0x02, 0x11, 0x22, 0x33, 0x44, 0x66 });
	call_netdevice_notifiers(NETDEV_CHANGEADDR, ndev);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, xib_test_wait_event(&ev, XIB_EVENT_GID_CHANGE, 1), 0);
	KUNIT_ASSERT_EQ(test, xib_query_gid(xdev, 1, 0, gid), 0);
	KUNIT_EXPECT_EQ(test, gid[15], 0x66);
	KUNIT_EXPECT_EQ(test, xib_test_event_count(&ev, XIB_EVENT_PORT_ACTIVE), 1);

	xib_unregister_event_handler(&ev.handler);
	xib_unregister_device(xdev);
	xib_dealloc_device(xdev);
	unregister_netdev(ndev);
	free_netdev(ndev);
	xib_test_ndev = NULL;
}

static void xib_core_test_ib_mtu(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(9000), 4096U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(4096 + 92), 4096U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(4096 + 91), 2048U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(1500), 1024U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(256 + 92), 256U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(256 + 91), 0U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(68), 0U);
	KUNIT_EXPECT_EQ(test, xib_ib_mtu(0), 0U);
}

/*
 * Per-user counts (core/user.c): each uid has its own count up to the
 * limit, the limit is read at each charge (a lowered one keeps what is
 * held), 0 allows nothing, and the last uncharge frees the uid's entry.
 */
static void xib_core_test_uid_count(struct kunit *test)
{
	struct xib_uid_count uc;
	kuid_t a = KUIDT_INIT(65534), b = KUIDT_INIT(1);
	kuid_t big = KUIDT_INIT(0xfffffffe);
	int i;

	xib_uid_count_init(&uc);
	KUNIT_EXPECT_TRUE(test, xib_uid_count_empty(&uc));
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 0), -EMFILE);
	KUNIT_EXPECT_TRUE(test, xib_uid_count_empty(&uc));

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 3), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, a), 3UL);
	/* another user is not affected */
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, b, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, big, 1), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, big, 1), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, b), 1UL);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, big), 1UL);

	/* a lowered limit keeps what is held and refuses more */
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 2), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, a), 3UL);
	xib_uid_uncharge(&uc, &init_user_ns, a);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 2), -EMFILE);
	xib_uid_uncharge(&uc, &init_user_ns, a);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, 2), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, a), 2UL);
	/* a raised one (what the CAP_SYS_RESOURCE path asks) goes past */
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, a, UINT_MAX), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, a), 3UL);

	for (i = 0; i < 3; i++)
		xib_uid_uncharge(&uc, &init_user_ns, a);
	KUNIT_EXPECT_EQ(test, xib_uid_read(&uc, &init_user_ns, a), 0UL);
	KUNIT_EXPECT_EQ(test, uc.entries, 2UL);
	KUNIT_EXPECT_FALSE(test, xib_uid_count_empty(&uc));
	xib_uid_uncharge(&uc, &init_user_ns, b);
	xib_uid_uncharge(&uc, &init_user_ns, big);
	KUNIT_EXPECT_TRUE(test, xib_uid_count_empty(&uc));
	/* a freed entry starts again from zero */
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, b, 1), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge(&uc, &init_user_ns, b, 1), -EMFILE);
	xib_uid_uncharge(&uc, &init_user_ns, b);
	KUNIT_EXPECT_TRUE(test, xib_uid_count_empty(&uc));
	xib_uid_count_destroy(&uc);
}

/*
 * Chains (core/user.c): a charge counts at every level, the limit holds
 * at every level, so a container's uids together stop at its owner's
 * limit while each has its own too; a refused charge leaves nothing, and
 * uncharges along the same chains bring every count back to nothing.
 * The namespaces are fake: levels are compared by pointer only.
 */
static void xib_core_test_uid_chain(struct kunit *test)
{
	static char host, c1, c2, nested;
	/* container c1 of host uid 1000, nested in it one of c1's uid 100001 */
	const struct xib_uid_level u1[] = {
		{ &c1, 100001 }, { &host, 1000 } };
	const struct xib_uid_level u2[] = {
		{ &c1, 100002 }, { &host, 1000 } };
	const struct xib_uid_level n1[] = {
		{ &nested, 200000 }, { &c1, 100001 }, { &host, 1000 } };
	/* another owner's container, and the owner itself on the host */
	const struct xib_uid_level o1[] = {
		{ &c2, 300000 }, { &host, 2000 } };
	const struct xib_uid_level h1000[] = { { &host, 1000 } };
	struct xib_uid_count uc;
	int i;

	xib_uid_count_init(&uc);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u1, 2, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u1, 2, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u2, 2, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &u1[0]), 2UL);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &u2[0]), 1UL);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, h1000), 3UL);
	/* u2 has room of its own, the owner has none: refused, nothing kept */
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u2, 2, 3), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &u2[0]), 1UL);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, n1, 3, 3), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &n1[0]), 0UL);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, h1000, 1, 3), -EMFILE);
	KUNIT_EXPECT_EQ(test, uc.entries, 3UL);
	/* another owner's container is not affected */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, o1, 2, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, o1, 2, 3), -EMFILE);
	/* the limit per level: the nested one fits once the owner has room */
	xib_uid_uncharge_levels(&uc, u2, 2);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &u2[0]), 0UL);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, n1, 3, 3), 0);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, &u1[0]), 3UL);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, h1000), 3UL);
	/* u1 is full in c1 itself now, whatever the owner has */
	xib_uid_uncharge_levels(&uc, n1, 3);
	xib_uid_uncharge_levels(&uc, u1, 2);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u1, 2, 1), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u2, 2, 1), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u2, 2, 0), -EMFILE);
	KUNIT_EXPECT_EQ(test, xib_uid_charge_levels(&uc, u2, 2, 2), 0);
	xib_uid_uncharge_levels(&uc, u2, 2);
	/* everything back: no entry left */
	xib_uid_uncharge_levels(&uc, u1, 2);
	for (i = 0; i < 3; i++)
		xib_uid_uncharge_levels(&uc, o1, 2);
	KUNIT_EXPECT_EQ(test, xib_uid_read_level(&uc, h1000), 0UL);
	KUNIT_EXPECT_TRUE(test, xib_uid_count_empty(&uc));
	xib_uid_count_destroy(&uc);
}

static struct kunit_case xib_core_test_cases[] = {
	KUNIT_CASE(xib_core_test_names),
	KUNIT_CASE(xib_core_test_lookup),
	KUNIT_CASE(xib_core_test_clients),
	KUNIT_CASE(xib_core_test_removal_blocks_nobody),
	KUNIT_CASE(xib_core_test_link_types),
	KUNIT_CASE(xib_core_test_ib_mtu),
	KUNIT_CASE(xib_core_test_port_follows_netdev),
	KUNIT_CASE(xib_core_test_uid_count),
	KUNIT_CASE(xib_core_test_uid_chain),
	{}
};

static struct kunit_suite xib_core_test_suite = {
	.name = "xib_core_device",
	.test_cases = xib_core_test_cases,
};

kunit_test_suite(xib_core_test_suite);

MODULE_DESCRIPTION("KUnit tests of the xib_core device registry");
MODULE_LICENSE("GPL");
