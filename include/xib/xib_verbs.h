/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib in-kernel verbs API: devices, drivers, clients and link types.
 *
 * This is the interface between xib_core and the modules above (clients
 * such as xib_uverbs and xib_cma) and below it (drivers such as xib_hca).
 * Nothing here is visible to user space; the user ABI is include/uapi/xib/.
 */
#ifndef _XIB_VERBS_H
#define _XIB_VERBS_H

#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <uapi/xib/netlink.h>
#include <uapi/xib/uverbs.h>

struct xib_device;

/**
 * struct xib_gid - one GID table entry
 * @raw: the GID, network order
 * @valid: the entry is in use
 */
struct xib_gid {
	u8 raw[16];
	bool valid;
};

/**
 * struct xib_port - the state of one port, kept by xib_core
 * @state: enum xib_port_state
 * @phys_state: enum xib_port_phys_state
 * @active_mtu: the IB MTU in bytes (256 to 4096) the interface carries
 * @gids: the RoCEv2 GID table; an entry keeps its index while it exists
 *
 * For a port bound to a network interface (ops->get_netdev), the core
 * keeps all of it in step with the interface: carrier and admin state,
 * MTU, and the interface's addresses.  Protected by the device's
 * @port_lock.
 */
struct xib_port {
	u8 state;
	u8 phys_state;
	u32 active_mtu;
	struct xib_gid gids[XIB_PORT_GID_TBL_LEN];
};

/**
 * struct xib_event - an asynchronous event of a device
 * @device: the device
 * @type: what happened
 * @port_num: the port, for port events
 */
struct xib_event {
	struct xib_device *device;
	enum xib_event_type type;
	u32 port_num;
};

/**
 * struct xib_event_handler - receives a device's asynchronous events
 * @device: the device
 * @handler: called in process context, with the core's registration lock
 *	held (so it may sleep, but not register or unregister anything)
 * @list: private to xib_core
 */
struct xib_event_handler {
	struct xib_device *device;
	void (*handler)(struct xib_event_handler *handler,
			const struct xib_event *event);
	struct list_head list;
};

/**
 * struct xib_device_ops - what a driver implements
 * @owner: the driver module
 * @driver_name: reported to user space (XIB_ATTR_DEV_DRIVER)
 * @get_netdev: optional; the network interface behind @port (1-based),
 *	with a reference the caller drops with dev_put(), or NULL
 * @dellink: set by drivers whose devices are created with
 *	XIB_CMD_LINK_ADD: unregister @dev and drop the driver's reference
 * @dealloc_driver: optional; called once, from the final put, to free
 *	what the driver allocated beside the device
 *
 * Drivers initialise it with designated initialisers; the verbs of later
 * steps (query_device, alloc_pd, create_qp, ...) join this table.
 */
struct xib_device_ops {
	struct module *owner;
	const char *driver_name;
	struct net_device *(*get_netdev)(struct xib_device *dev, u32 port);
	int (*dellink)(struct xib_device *dev);
	void (*dealloc_driver)(struct xib_device *dev);
};

/**
 * struct xib_device - one RDMA device
 * @dev: the embedded device in class "xib"; its refcount is the device's
 *	kref, so the memory lives until the last xib_device_put()
 * @name: unique among all xib devices; fixed once registered
 * @index: unique, stable identifier, allocated at registration
 * @node_guid: set by the driver before registration
 * @phys_port_cnt: number of ports, set by the driver before registration
 * @ops: the driver's operations, fixed at allocation
 * @net: the network namespace the device lives in
 * @registered: true between xib_register_device() and
 *	xib_unregister_device(); protected by the core's devices lock
 * @users: registration references: clients and lookups that use the
 *	device while it is registered; unregistration waits for zero
 * @users_done: completed when @users drops to zero
 * @client_data: per-client pointers indexed by client id; written under
 *	the core's registration lock, read by the owning client
 * @port_lock: protects @ports
 * @ports: @phys_port_cnt ports, index 0 is port 1; allocated at
 *	registration
 * @event_rwsem: protects @event_handlers
 * @event_handlers: the registered struct xib_event_handler
 */
struct xib_device {
	struct device dev;
	char name[XIB_DEVICE_NAME_MAX];
	u32 index;
	__be64 node_guid;
	u32 phys_port_cnt;
	const struct xib_device_ops *ops;
	possible_net_t net;

	bool registered;
	refcount_t users;
	struct completion users_done;
	struct xarray client_data;

	struct mutex port_lock;		/* protects @ports */
	struct xib_port *ports;

	struct rw_semaphore event_rwsem;	/* protects @event_handlers */
	struct list_head event_handlers;
};

static inline struct xib_device *to_xib_device(struct device *dev)
{
	return container_of(dev, struct xib_device, dev);
}

static inline struct net *xib_device_net(const struct xib_device *dev)
{
	return read_pnet(&dev->net);
}

/**
 * struct xib_client - an upper-layer module that attaches to every device
 * @name: for messages
 * @add: called for each registered device, and for every device that
 *	registers later; may fail, in which case the client simply does not
 *	attach to that device (remove is then not called for it)
 * @remove: called before a device goes away or when the client
 *	unregisters; @client_data is what add stored with
 *	xib_set_client_data()
 *
 * Callbacks run in process context with the core's registration lock
 * held: they may sleep but must not register or unregister devices or
 * clients.
 */
struct xib_client {
	const char *name;
	int (*add)(struct xib_device *dev);
	void (*remove)(struct xib_device *dev, void *client_data);

	/* private to xib_core */
	u32 id;
	struct list_head list;
};

/**
 * struct xib_link_ops - a link type creatable with XIB_CMD_LINK_ADD
 * @type: the name user space gives ("hca")
 * @owner: the module providing it
 * @newlink: create and register device @name over @ndev; returns 0 or a
 *	negative errno, with a message in @extack when it helps the user.
 *	Called with a reference on @owner and on @ndev, under RTNL-free
 *	process context.
 *
 * The device's own ops->dellink removes what @newlink created.
 */
struct xib_link_ops {
	const char *type;
	struct module *owner;
	int (*newlink)(const char *name, struct net_device *ndev,
		       struct netlink_ext_ack *extack);

	/* private to xib_core */
	struct list_head list;
};

struct xib_device *xib_alloc_device(const struct xib_device_ops *ops,
				    size_t size);
void xib_dealloc_device(struct xib_device *dev);

int xib_register_device(struct xib_device *dev, const char *name,
			struct net *net);
void xib_unregister_device(struct xib_device *dev);

static inline void xib_device_get(struct xib_device *dev)
{
	get_device(&dev->dev);
}

static inline void xib_device_put(struct xib_device *dev)
{
	put_device(&dev->dev);
}

struct xib_device *xib_device_get_by_name(struct net *net, const char *name);
struct xib_device *xib_device_get_by_index(struct net *net, u32 index);
void xib_device_release_user(struct xib_device *dev);

int xib_register_client(struct xib_client *client);
void xib_unregister_client(struct xib_client *client);
void *xib_get_client_data(struct xib_device *dev, struct xib_client *client);
int xib_set_client_data(struct xib_device *dev, struct xib_client *client,
			void *data);

void xib_register_event_handler(struct xib_event_handler *handler);
void xib_unregister_event_handler(struct xib_event_handler *handler);
void xib_dispatch_event(const struct xib_event *event);

u32 xib_ib_mtu(unsigned int ndev_mtu);
int xib_query_port(struct xib_device *dev, u32 port, struct xib_port *attr);
int xib_query_gid(struct xib_device *dev, u32 port, u32 index, u8 gid[16]);

int xib_link_register(struct xib_link_ops *ops);
void xib_link_unregister(struct xib_link_ops *ops);

#endif /* _XIB_VERBS_H */
