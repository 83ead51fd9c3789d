/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of xib_core.
 */
#ifndef _XIB_CORE_PRIV_H
#define _XIB_CORE_PRIV_H

#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <xib/xib_verbs.h>

/*
 * The registry's locks, outer first:
 *
 * xib_clients_rwsem serialises clients against devices: the client list
 * changes under it write; a device's clients are attached (add) and
 * detached (remove) under it read, by that device's registration and
 * unregistration, and a client's devices under it write, by the client's
 * registration and unregistration.  So a client is attached to a device
 * once, and a client module's exit waits for the detachments in flight.
 * Held read across a device's detachment, which may wait for a running
 * verbs command: client (un)registration then waits too, and while it
 * waits so do the device registrations and removals that start after it
 * (an rwsem lets no reader overtake a waiting writer).
 *
 * xib_reg_mutex serialises the tables: the device table (xib_devices),
 * the link-type list and every device's @registered flag change only
 * under it (@registered also under xib_clients_rwsem, so either lock keeps
 * it stable); lookups and walks of the table hold it.  Held only for short
 * changes and walks, and around client add callbacks (a device is found
 * only once attached), never around remove callbacks or while a removal
 * waits for its users.  dev->port_lock nests inside it.
 */
extern struct rw_semaphore xib_clients_rwsem;
extern struct mutex xib_reg_mutex;

/* device.c */
int xib_device_init(void);
void xib_device_exit(void);
struct xib_device *xib_device_next_locked(struct net *net, unsigned long *index);
struct xib_device *xib_device_next_user(struct net *net, unsigned long *index);
struct xib_link_ops *xib_link_find_locked(const char *type);

/* port.c */
int xib_port_init(void);
void xib_port_exit(void);
void xib_port_sync_locked(struct xib_device *dev, bool report);

/* verbs.c */
int xib_verbs_init(void);
void xib_verbs_exit(void);

/* user.c */
int xib_user_ctx_charge(struct user_namespace *ns, kuid_t uid);
void xib_user_ctx_uncharge(struct user_namespace *ns, kuid_t uid);
void xib_user_init(void);
void xib_user_exit(void);

/* mcast.c */
void xib_mcast_detach_all(struct xib_qp *qp);

/* mad.c */
int xib_mad_init(void);
void xib_mad_exit(void);
u32 xib_mad_nr_posted(struct xib_device *dev);

/* stats.c */
u32 xib_stats_num(const struct xib_device *dev);
const char *xib_stats_name(const struct xib_device *dev, u32 i);
u32 xib_stats_read(struct xib_device *dev, u64 *vals);
int xib_stats_reset(struct xib_device *dev);

/* netlink.c */
int xib_netlink_init(void);
void xib_netlink_exit(void);

#endif /* _XIB_CORE_PRIV_H */
