/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of xib_core.
 */
#ifndef _XIB_CORE_PRIV_H
#define _XIB_CORE_PRIV_H

#include <linux/mutex.h>
#include <xib/xib_verbs.h>

/*
 * xib_reg_mutex serialises registration: the device table, the client
 * list, the link-type list and every device's @registered flag change
 * only under it, and client add/remove callbacks run under it.
 */
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
int xib_user_ctx_charge(kuid_t uid);
void xib_user_ctx_uncharge(kuid_t uid);
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
