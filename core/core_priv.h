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
void xib_port_sync_locked(struct xib_device *dev);

/* verbs.c */
int xib_verbs_init(void);
void xib_verbs_exit(void);

/**
 * struct xib_res_owner - who owns an object, as a resource dump sees it
 * @kern: the kernel owns it (no user context); the rest is zero
 * @pid: the owner's thread group id in the pid namespace the dump asked
 *	for; 0 when it has none there (the object is then hidden)
 * @euid: the owner's effective uid
 * @ctx_id: the owning user context's number
 * @comm: the owner's command name
 * @counts: for a user context itself, its objects per type
 */
struct xib_res_owner {
	bool kern;
	pid_t pid;
	kuid_t euid;
	u32 ctx_id;
	char comm[TASK_COMM_LEN];
	u32 counts[XIB_RES_MAX];
};

bool xib_res_next(struct xib_device *dev, enum xib_res_type type,
		  unsigned long *id, unsigned long max,
		  struct pid_namespace *ns, void **obj,
		  struct xib_res_owner *owner);
void xib_res_put(enum xib_res_type type, void *obj);

/* mad.c */
int xib_mad_init(void);
void xib_mad_exit(void);
u32 xib_mad_nr_posted(struct xib_device *dev);

/* netlink.c */

int xib_netlink_init(void);
void xib_netlink_exit(void);

#endif /* _XIB_CORE_PRIV_H */
