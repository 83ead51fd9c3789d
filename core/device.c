// SPDX-License-Identifier: GPL-2.0
/*
 * xib_core device registry: devices, clients and link types.
 *
 * A device is findable (by index or name, in its namespace) from
 * xib_register_device() until xib_unregister_device().  Two counts keep it
 * alive:
 *  - dev->dev's kobject refcount (xib_device_get/put) keeps the memory;
 *  - dev->users keeps the device registered: unregistration first hides the
 *    device, detaches every client, then waits until the last user that
 *    found it by lookup has called xib_device_release_user().
 *
 * Locking (core_priv.h has the rules): xib_clients_rwsem, then
 * xib_reg_mutex.  A device's clients are attached and detached under
 * xib_clients_rwsem read, a client's devices under it write, so a client
 * is attached to a device at most once and module exit waits for the
 * removals in flight.  xib_reg_mutex is held only for short changes of
 * the tables and flags; in particular not while a device's clients are
 * removed or while its removal waits for its users, which may wait for a
 * verbs command stuck in a page fault: other devices come and go
 * meanwhile.  A device being removed stays in the table, its name taken,
 * until its removal ends; lookups skip it.
 */

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>

#include "core_priv.h"

/* Serialises client attachment; see core_priv.h. */
DECLARE_RWSEM(xib_clients_rwsem);
/* Serialises the registry's tables; see core_priv.h. */
DEFINE_MUTEX(xib_reg_mutex);

/*
 * All xib devices, by index, from registration until the end of their
 * removal (registered or not: see @registered).  Changed and walked under
 * xib_reg_mutex.
 */
static DEFINE_XARRAY_ALLOC(xib_devices);
/*
 * Clients in registration order.  Changed under xib_clients_rwsem write,
 * walked under xib_clients_rwsem.
 */
static LIST_HEAD(xib_clients);
static DEFINE_IDA(xib_client_ida);
/* Registered link types.  Protected by xib_reg_mutex. */
static LIST_HEAD(xib_link_types);

/*
 * A client that attached without storing data is recorded with this
 * marker, so that remove is called exactly for the clients add accepted.
 */
#define XIB_CLIENT_ATTACHED	xa_mk_value(0)

static struct lock_class_key xib_res_lock_key;

/*
 * The class is tagged by network namespace, as ib_core's: a sysfs mount
 * shows under /sys/class/xib the devices of the namespace that mounted
 * it (ip netns exec remounts /sys), and names are unique per namespace.
 * A device's namespace is set before device_add() and never changes (an
 * interface leaving its namespace takes its device with it).
 */
static const void *xib_class_namespace(struct device *device)
{
	return xib_device_net(to_xib_device(device));
}

/*
 * The device's index, unique across namespaces: user space checks with it
 * that /sys/class/xib/NAME is the device netlink listed as NAME, not a
 * namespace's of the same name seen through another namespace's sysfs.
 */
static ssize_t index_show(struct device *device, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_xib_device(device)->index);
}
static DEVICE_ATTR_RO(index);

static struct attribute *xib_class_attrs[] = {
	&dev_attr_index.attr,
	NULL
};
ATTRIBUTE_GROUPS(xib_class);

static struct class xib_class = {
	.name = "xib",
	.dev_groups = xib_class_groups,
	.ns_type = &net_ns_type_operations,
	.namespace = xib_class_namespace,
};

static void xib_device_release(struct device *device)
{
	struct xib_device *dev = to_xib_device(device);

	int i;

	if (dev->ops->dealloc_driver)
		dev->ops->dealloc_driver(dev);
	for (i = 0; i < XIB_RES_MAX; i++) {
		WARN_ON(!xa_empty(&dev->res[i]) ||
			atomic_read(&dev->res_count[i]));
		xa_destroy(&dev->res[i]);
	}
	WARN_ON(atomic_read(&dev->cm_ids));
	WARN_ON(!xa_empty(&dev->client_data));
	xa_destroy(&dev->client_data);
	mutex_destroy(&dev->port_lock);
	kfree(dev->ports);
	mutex_destroy(&dev->stats_lock);
	WARN_ON(!list_empty(&dev->xrcds));
	mutex_destroy(&dev->xrcd_lock);
	kfree(dev->stats_base);
	free_percpu(dev->core_stats);
	kfree(dev);
}

/**
 * xib_alloc_device() - allocate a device with room for the driver
 * @ops: the driver's operations; must outlive the device.  From here on
 *	the final put calls @ops->dealloc_driver, registered or not.
 * @size: size of the driver's structure, which embeds struct xib_device
 *	at offset 0 (drivers static_assert() that)
 *
 * Returns NULL on allocation failure.  Free with xib_dealloc_device().
 */
struct xib_device *xib_alloc_device(const struct xib_device_ops *ops,
				    size_t size)
{
	struct xib_device *dev;
	int i;

	if (WARN_ON(size < sizeof(*dev)))
		return NULL;
	dev = kzalloc(size, GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->core_stats = alloc_percpu(struct xib_core_stats);
	if (!dev->core_stats) {
		kfree(dev);
		return NULL;
	}

	dev->ops = ops;
	device_initialize(&dev->dev);
	dev->dev.class = &xib_class;
	dev->dev.release = xib_device_release;
	xa_init(&dev->client_data);
	/*
	 * Lookups by number may come from any context: IRQ-safe locks, in a
	 * lockdep class of their own (xa_init_flags() gives every xarray
	 * initialised in this file one class, and @client_data's lock is
	 * taken with interrupts on).
	 */
	for (i = 0; i < XIB_RES_MAX; i++) {
		xa_init_flags(&dev->res[i], XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
		lockdep_set_class(&dev->res[i].xa_lock, &xib_res_lock_key);
		atomic_set(&dev->res_count[i], 0);
	}
	atomic_set(&dev->cm_ids, 0);
	mutex_init(&dev->port_lock);
	mutex_init(&dev->stats_lock);
	init_rwsem(&dev->event_rwsem);
	INIT_LIST_HEAD(&dev->event_handlers);
	init_completion(&dev->users_done);
	write_pnet(&dev->net, &init_net);
	mutex_init(&dev->mcast_lock);
	INIT_LIST_HEAD(&dev->mcast_groups);
	mutex_init(&dev->xrcd_lock);
	INIT_LIST_HEAD(&dev->xrcds);
	return dev;
}
EXPORT_SYMBOL_GPL(xib_alloc_device);

/**
 * xib_dealloc_device() - drop the allocation reference of a device
 * @dev: a device that is not registered (never, or no longer)
 *
 * First waits for the deferred releases of its CQs, QPs and SRQs (see
 * xib_flush_releases()), so that none runs the driver's code after this.
 * Context: process context.
 */
void xib_dealloc_device(struct xib_device *dev)
{
	WARN_ON(dev->registered);
	xib_flush_releases();
	xib_device_put(dev);
}
EXPORT_SYMBOL_GPL(xib_dealloc_device);

static bool xib_name_valid(const char *name)
{
	size_t len = strnlen(name, XIB_DEVICE_NAME_MAX);
	size_t i;

	if (!len || len >= XIB_DEVICE_NAME_MAX)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == ':' || !isgraph(name[i]))
			return false;
	return true;
}

/*
 * The device named @name in @net, registered or being removed (its name
 * is taken until its removal ends), or NULL.
 */
static struct xib_device *xib_find_name_locked(struct net *net,
					       const char *name)
{
	struct xib_device *dev;
	unsigned long index;

	lockdep_assert_held(&xib_reg_mutex);
	xa_for_each(&xib_devices, index, dev)
		if (net_eq(xib_device_net(dev), net) && !strcmp(dev->name, name))
			return dev;
	return NULL;
}

/*
 * Attach @client to @dev.  Under xib_clients_rwsem (read for a device being
 * registered, write for a client being registered) and xib_reg_mutex, so
 * that a device is found only once its clients are attached.
 */
static int xib_client_add_one(struct xib_client *client, struct xib_device *dev)
{
	int ret;

	lockdep_assert_held(&xib_clients_rwsem);
	lockdep_assert_held(&xib_reg_mutex);
	ret = client->add(dev);
	if (ret) {
		dev_dbg(&dev->dev, "client %s did not attach: %d\n",
			client->name, ret);
		xa_erase(&dev->client_data, client->id);
		return ret;
	}
	/* Record the attachment even if add stored no data. */
	ret = xa_insert(&dev->client_data, client->id, XIB_CLIENT_ATTACHED,
			GFP_KERNEL);
	if (ret == -EBUSY)
		ret = 0;
	if (ret) {
		client->remove(dev, xib_get_client_data(dev, client));
		xa_erase(&dev->client_data, client->id);
	}
	return ret;
}

/*
 * Detach @client from @dev.  Under xib_clients_rwsem (read for a device
 * being removed, write for a client being unregistered), which keeps @dev
 * attached to the clients on the list; never under xib_reg_mutex: a
 * client's remove may wait a long time (the uverbs client's waits for the
 * running commands of the device's contexts).
 */
static void xib_client_remove_one(struct xib_client *client,
				  struct xib_device *dev)
{
	void *data;

	lockdep_assert_held(&xib_clients_rwsem);
	data = xa_erase(&dev->client_data, client->id);
	if (!data)
		return;		/* add failed: the client never attached */
	client->remove(dev, xa_is_value(data) ? NULL : data);
}

/**
 * xib_register_device() - make a device visible to clients and user space
 * @dev: from xib_alloc_device(), with node_guid and phys_port_cnt set
 * @name: device name unique in @net (letters, digits, punctuation but '/'
 *	and ':')
 * @net: namespace the device belongs to; names are per namespace
 *
 * Returns 0, -EINVAL for a bad name, -EEXIST if the name is taken in
 * @net, or another negative errno.  On failure the device is still
 * allocated.
 */
int xib_register_device(struct xib_device *dev, const char *name,
			struct net *net)
{
	struct xib_client *client;
	int ret;

	if (!xib_name_valid(name))
		return -EINVAL;
	if (!dev->ports && dev->phys_port_cnt) {
		dev->ports = kcalloc(dev->phys_port_cnt, sizeof(*dev->ports),
				     GFP_KERNEL);
		if (!dev->ports)
			return -ENOMEM;
	}

	/* No client comes or goes until every client is attached. */
	down_read(&xib_clients_rwsem);
	mutex_lock(&xib_reg_mutex);
	if (xib_find_name_locked(net, name)) {
		ret = -EEXIST;
		goto out_unlock;
	}
	strscpy(dev->name, name, sizeof(dev->name));
	write_pnet(&dev->net, net);

	ret = dev_set_name(&dev->dev, "%s", name);
	if (ret)
		goto out_unlock;
	ret = xa_alloc(&xib_devices, &dev->index, dev, xa_limit_31b, GFP_KERNEL);
	if (ret)
		goto out_unlock;
	ret = device_add(&dev->dev);
	if (ret)
		goto err_erase_index;

	refcount_set(&dev->users, 1);
	reinit_completion(&dev->users_done);
	dev->registered = true;
	xib_port_sync_locked(dev, false);
	list_for_each_entry(client, &xib_clients, list)
		xib_client_add_one(client, dev);
	mutex_unlock(&xib_reg_mutex);
	up_read(&xib_clients_rwsem);
	return 0;

err_erase_index:
	xa_erase(&xib_devices, dev->index);
out_unlock:
	mutex_unlock(&xib_reg_mutex);
	up_read(&xib_clients_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_register_device);

/**
 * xib_unregister_device() - undo xib_register_device()
 * @dev: a registered device
 *
 * Hides the device from lookups, detaches every client, then waits for the
 * users found by lookup to go.  Its name stays taken until then.  Holds
 * only xib_clients_rwsem, for read, while clients' remove callbacks run,
 * and no lock while it waits for the users, so other devices register
 * and unregister meanwhile; client (un)registration waits for the
 * detachment to end.  The caller still holds its allocation reference
 * afterwards.
 * Context: process context; may wait as long as a running verbs command.
 */
void xib_unregister_device(struct xib_device *dev)
{
	struct xib_client *client;

	down_read(&xib_clients_rwsem);
	mutex_lock(&xib_reg_mutex);
	if (WARN_ON(!dev->registered)) {
		mutex_unlock(&xib_reg_mutex);
		up_read(&xib_clients_rwsem);
		return;
	}
	/* Lookups and walks skip it; it stays in xib_devices. */
	dev->registered = false;
	mutex_unlock(&xib_reg_mutex);

	list_for_each_entry_reverse(client, &xib_clients, list)
		xib_client_remove_one(client, dev);
	up_read(&xib_clients_rwsem);

	xib_device_release_user(dev);
	wait_for_completion(&dev->users_done);

	mutex_lock(&xib_reg_mutex);
	xa_erase(&xib_devices, dev->index);
	device_del(&dev->dev);
	mutex_unlock(&xib_reg_mutex);
}
EXPORT_SYMBOL_GPL(xib_unregister_device);

/**
 * xib_device_release_user() - drop a reference from xib_device_get_by_*()
 * @dev: the device
 */
void xib_device_release_user(struct xib_device *dev)
{
	if (refcount_dec_and_test(&dev->users))
		complete(&dev->users_done);
}
EXPORT_SYMBOL_GPL(xib_device_release_user);

/*
 * Whether a process may use a device of another network namespace, as
 * rdma_dev_access_netns() decides for ib_core: in shared mode (the
 * default, as upstream's) every device is usable from every namespace;
 * in exclusive mode only from the namespace of its interface.  Enumeration
 * (netlink, and so libibverbs' device list) always shows a namespace only
 * its own devices; the mode decides opens of /dev/xib/uverbsN.  Changed
 * only through XIB_CMD_SYS_SET from the initial namespace (core/netlink.c);
 * a change applies to later opens, not to contexts already open.
 */
static bool netns_shared = true;
module_param(netns_shared, bool, 0444);
MODULE_PARM_DESC(netns_shared,
		 "devices usable from every network namespace (1, default) or only from their own (0) at load; xibctl system set netns changes it");

static bool xib_netns_mode_shared;	/* READ_ONCE/WRITE_ONCE */

/**
 * xib_netns_shared() - whether devices are shared by all namespaces
 *
 * Return: true in shared mode, false in exclusive mode.
 */
bool xib_netns_shared(void)
{
	return READ_ONCE(xib_netns_mode_shared);
}

/**
 * xib_set_netns_shared() - choose the namespace mode of every device
 * @shared: true for shared, false for exclusive
 *
 * The caller checked the privilege (CAP_NET_ADMIN, initial namespace).
 */
void xib_set_netns_shared(bool shared)
{
	WRITE_ONCE(xib_netns_mode_shared, shared);
}

/**
 * xib_dev_access_netns() - may a process of @net use @dev?
 * @dev: the device
 * @net: the process's network namespace
 *
 * Return: true if the mode is shared or @dev lives in @net.
 */
bool xib_dev_access_netns(const struct xib_device *dev, struct net *net)
{
	return xib_netns_shared() || net_eq(xib_device_net(dev), net);
}
EXPORT_SYMBOL_GPL(xib_dev_access_netns);

static struct xib_device *xib_try_use(struct xib_device *dev, struct net *net)
{
	lockdep_assert_held(&xib_reg_mutex);
	if (!dev || !dev->registered || !net_eq(xib_device_net(dev), net))
		return NULL;
	if (!refcount_inc_not_zero(&dev->users))
		return NULL;
	return dev;
}

/**
 * xib_device_get_by_name() - find a registered device of a namespace
 * @net: the namespace to look in
 * @name: the device name
 *
 * Returns the device with a user reference (release it with
 * xib_device_release_user()), or NULL.
 */
struct xib_device *xib_device_get_by_name(struct net *net, const char *name)
{
	struct xib_device *dev;

	mutex_lock(&xib_reg_mutex);
	dev = xib_try_use(xib_find_name_locked(net, name), net);
	mutex_unlock(&xib_reg_mutex);
	return dev;
}
EXPORT_SYMBOL_GPL(xib_device_get_by_name);

/**
 * xib_device_get_by_index() - like xib_device_get_by_name(), by index
 * @net: the namespace to look in
 * @index: the device index
 */
struct xib_device *xib_device_get_by_index(struct net *net, u32 index)
{
	struct xib_device *dev;

	mutex_lock(&xib_reg_mutex);
	dev = xib_try_use(xa_load(&xib_devices, index), net);
	mutex_unlock(&xib_reg_mutex);
	return dev;
}
EXPORT_SYMBOL_GPL(xib_device_get_by_index);

/*
 * Next registered device at or after *@index, of namespace @net or, with
 * @net NULL, of any; on return *@index is that device's index.  For dumps
 * and for walks over all devices.
 */
struct xib_device *xib_device_next_locked(struct net *net, unsigned long *index)
{
	struct xib_device *dev;

	lockdep_assert_held(&xib_reg_mutex);
	xa_for_each_start(&xib_devices, *index, dev, *index)
		if (dev->registered &&
		    (!net || net_eq(xib_device_net(dev), net)))
			return dev;
	return NULL;
}

/*
 * Like xib_device_next_locked(), but takes the registration lock itself
 * and returns the device with a user reference (xib_device_release_user()),
 * so that a dump may sleep while it walks the device's objects.
 */
struct xib_device *xib_device_next_user(struct net *net, unsigned long *index)
{
	struct xib_device *dev;

	mutex_lock(&xib_reg_mutex);
	while ((dev = xib_device_next_locked(net, index))) {
		if (xib_try_use(dev, net))
			break;
		(*index)++;
	}
	mutex_unlock(&xib_reg_mutex);
	return dev;
}

/**
 * xib_register_event_handler() - receive the events of handler->device
 * @handler: with device and handler set
 */
void xib_register_event_handler(struct xib_event_handler *handler)
{
	struct xib_device *dev = handler->device;

	down_write(&dev->event_rwsem);
	list_add_tail(&handler->list, &dev->event_handlers);
	up_write(&dev->event_rwsem);
}
EXPORT_SYMBOL_GPL(xib_register_event_handler);

/**
 * xib_unregister_event_handler() - stop receiving events
 * @handler: a registered handler; not called any more on return
 */
void xib_unregister_event_handler(struct xib_event_handler *handler)
{
	struct xib_device *dev = handler->device;

	down_write(&dev->event_rwsem);
	list_del(&handler->list);
	up_write(&dev->event_rwsem);
}
EXPORT_SYMBOL_GPL(xib_unregister_event_handler);

/**
 * xib_dispatch_event() - hand @event to every handler of its device
 * @event: the event; process context
 */
void xib_dispatch_event(const struct xib_event *event)
{
	struct xib_device *dev = event->device;
	struct xib_event_handler *handler;

	might_sleep();
	down_read(&dev->event_rwsem);
	list_for_each_entry(handler, &dev->event_handlers, list)
		handler->handler(handler, event);
	up_read(&dev->event_rwsem);
}
EXPORT_SYMBOL_GPL(xib_dispatch_event);

/**
 * xib_register_client() - attach a client to every device, now and later
 * @client: with name, add and remove set
 */
int xib_register_client(struct xib_client *client)
{
	struct xib_device *dev;
	unsigned long index;
	int id;

	id = ida_alloc(&xib_client_ida, GFP_KERNEL);
	if (id < 0)
		return id;

	/* Waits for devices' attachments and detachments in flight. */
	down_write(&xib_clients_rwsem);
	mutex_lock(&xib_reg_mutex);
	client->id = id;
	list_add_tail(&client->list, &xib_clients);
	xa_for_each(&xib_devices, index, dev)
		if (dev->registered)
			xib_client_add_one(client, dev);
	mutex_unlock(&xib_reg_mutex);
	up_write(&xib_clients_rwsem);
	return 0;
}
EXPORT_SYMBOL_GPL(xib_register_client);

/**
 * xib_unregister_client() - detach a client from every device
 * @client: a registered client
 *
 * Waits for the devices' attachments and detachments in flight, then
 * detaches @client from every registered device, without xib_reg_mutex
 * held around its remove: a device registered now stays registered until
 * xib_clients_rwsem is released (unregistration takes it first), and with
 * it the driver's reference.  Devices being removed have already been
 * detached.
 */
void xib_unregister_client(struct xib_client *client)
{
	struct xib_device *dev;
	unsigned long index = 0;

	down_write(&xib_clients_rwsem);
	for (;;) {
		mutex_lock(&xib_reg_mutex);
		dev = xib_device_next_locked(NULL, &index);
		mutex_unlock(&xib_reg_mutex);
		if (!dev)
			break;
		xib_client_remove_one(client, dev);
		index++;
	}
	list_del(&client->list);
	up_write(&xib_clients_rwsem);
	ida_free(&xib_client_ida, client->id);
}
EXPORT_SYMBOL_GPL(xib_unregister_client);

/**
 * xib_get_client_data() - what @client stored for @dev, or NULL
 * @dev: the device
 * @client: the client
 */
void *xib_get_client_data(struct xib_device *dev, struct xib_client *client)
{
	void *data = xa_load(&dev->client_data, client->id);

	return xa_is_value(data) ? NULL : data;
}
EXPORT_SYMBOL_GPL(xib_get_client_data);

/**
 * xib_set_client_data() - store @client's per-device data, from its add()
 * @dev: the device
 * @client: the client
 * @data: the pointer to keep; not NULL
 *
 * Context: from @client's add, under xib_clients_rwsem and xib_reg_mutex.
 */
int xib_set_client_data(struct xib_device *dev, struct xib_client *client,
			void *data)
{
	lockdep_assert_held(&xib_clients_rwsem);
	lockdep_assert_held(&xib_reg_mutex);
	if (WARN_ON(!data || xa_is_value(data)))
		return -EINVAL;
	return xa_err(xa_store(&dev->client_data, client->id, data, GFP_KERNEL));
}
EXPORT_SYMBOL_GPL(xib_set_client_data);

struct xib_link_ops *xib_link_find_locked(const char *type)
{
	struct xib_link_ops *ops;

	lockdep_assert_held(&xib_reg_mutex);
	list_for_each_entry(ops, &xib_link_types, list)
		if (!strcmp(ops->type, type))
			return ops;
	return NULL;
}

/**
 * xib_link_register() - offer a link type to XIB_CMD_LINK_ADD
 * @ops: the link type; its @type must be unique
 */
int xib_link_register(struct xib_link_ops *ops)
{
	int ret = 0;

	if (strnlen(ops->type, XIB_LINK_TYPE_MAX) >= XIB_LINK_TYPE_MAX)
		return -EINVAL;
	mutex_lock(&xib_reg_mutex);
	if (xib_link_find_locked(ops->type))
		ret = -EEXIST;
	else
		list_add_tail(&ops->list, &xib_link_types);
	mutex_unlock(&xib_reg_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(xib_link_register);

/**
 * xib_link_unregister() - withdraw a link type
 * @ops: a registered link type
 *
 * Devices already created stay; the driver removes them on its own exit.
 */
void xib_link_unregister(struct xib_link_ops *ops)
{
	mutex_lock(&xib_reg_mutex);
	list_del(&ops->list);
	mutex_unlock(&xib_reg_mutex);
}
EXPORT_SYMBOL_GPL(xib_link_unregister);

/*
 * debugfs xib/devices: every device of every namespace, one a line,
 * "INDEX NAME NETNS registered|removing" (NETNS: the namespace's inode
 * number, as in /proc/PID/ns/net).  Names are per namespace and sysfs
 * shows each namespace its own: this is the one global view, for the
 * host's administrator (and the tests, which wait here for devices of a
 * namespace being destroyed to be gone).
 */
static int xib_devices_show(struct seq_file *m, void *unused)
{
	struct xib_device *dev;
	unsigned long index;

	mutex_lock(&xib_reg_mutex);
	xa_for_each(&xib_devices, index, dev)
		seq_printf(m, "%u %s %u %s\n", dev->index, dev->name,
			   xib_device_net(dev)->ns.inum,
			   dev->registered ? "registered" : "removing");
	mutex_unlock(&xib_reg_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xib_devices);

static struct dentry *xib_debugfs;

int xib_device_init(void)
{
	int ret;

	xib_set_netns_shared(netns_shared);
	ret = class_register(&xib_class);
	if (ret)
		return ret;
	/* without debugfs, nothing; it is not an error */
	xib_debugfs = debugfs_create_dir("xib", NULL);
	debugfs_create_file("devices", 0400, xib_debugfs, NULL,
			    &xib_devices_fops);
	return 0;
}

void xib_device_exit(void)
{
	debugfs_remove(xib_debugfs);
	WARN_ON(!xa_empty(&xib_devices));
	WARN_ON(!list_empty(&xib_clients));
	class_unregister(&xib_class);
}
