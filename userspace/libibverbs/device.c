// SPDX-License-Identifier: BSD-2-Clause
/*
 * Device discovery and contexts.
 *
 * The devices are those the "xib" generic-netlink family lists for the
 * caller's network namespace (XIB_CMD_DEV_GET dump, in index order).  The
 * uverbs node of device NAME is the entry uverbsN of /sys/class/xib/NAME
 * (xib's own sysfs class), opened as /dev/xib/uverbsN.  Nothing of
 * rdma-core's (/sys/class/infiniband*, /dev/infiniband, RDMA netlink,
 * provider plugins) is used.
 *
 * Every call rescans.  A device object lives as long as a reference to it
 * does: the global list holds one while the device is in the latest scan,
 * every array returned by ibv_get_device_list() holds one per entry until
 * ibv_free_device_list(), every open context holds one.  A device found
 * again keeps its struct ibv_device, so pointers from earlier lists stay
 * valid and comparable.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <endian.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <xib/netlink.h>

#include "../common/xib_genl.h"

#include "ibverbs.h"

/* The layouts the inlines of rdma-core 44 binaries were compiled with. */
_Static_assert(sizeof(struct ibv_device) == 664, "ibv_device");
_Static_assert(offsetof(struct ibv_device, node_type) == 16, "node_type");
_Static_assert(offsetof(struct ibv_device, transport_type) == 20, "transport_type");
_Static_assert(offsetof(struct ibv_device, name) == 24, "name");
_Static_assert(offsetof(struct ibv_device, dev_name) == 88, "dev_name");
_Static_assert(offsetof(struct ibv_device, dev_path) == 152, "dev_path");
_Static_assert(offsetof(struct ibv_device, ibdev_path) == 408, "ibdev_path");
_Static_assert(sizeof(struct ibv_context) == 328, "ibv_context");
_Static_assert(offsetof(struct ibv_context, ops.poll_cq) == 96, "poll_cq");
_Static_assert(offsetof(struct ibv_context, ops.req_notify_cq) == 104, "req_notify_cq");
_Static_assert(offsetof(struct ibv_context, ops.post_srq_recv) == 168, "post_srq_recv");
_Static_assert(offsetof(struct ibv_context, ops.post_send) == 208, "post_send");
_Static_assert(offsetof(struct ibv_context, ops.post_recv) == 216, "post_recv");
_Static_assert(offsetof(struct ibv_context, cmd_fd) == 264, "cmd_fd");
_Static_assert(offsetof(struct ibv_context, async_fd) == 268, "async_fd");
_Static_assert(offsetof(struct ibv_context, num_comp_vectors) == 272, "num_comp_vectors");
_Static_assert(offsetof(struct ibv_context, abi_compat) == 320, "abi_compat");
_Static_assert(sizeof(struct verbs_context) == 648, "verbs_context");
_Static_assert(offsetof(struct verbs_context, context) == 320, "verbs_context.context");
_Static_assert(offsetof(struct verbs_context, sz) == 312, "verbs_context.sz");
_Static_assert(offsetof(struct verbs_context, query_port) == 0, "query_port at ctx-320");
_Static_assert(offsetof(struct verbs_context, query_device_ex) == 320 - 104, "query_device_ex");
_Static_assert(offsetof(struct verbs_context, create_qp_ex) == 320 - 56, "create_qp_ex");
_Static_assert(offsetof(struct verbs_context, open_qp) == 320 - 64, "open_qp");
_Static_assert(offsetof(struct verbs_context, get_srq_num) == 320 - 48, "get_srq_num");
_Static_assert(offsetof(struct verbs_context, create_srq_ex) == 320 - 40, "create_srq_ex");
_Static_assert(offsetof(struct verbs_context, open_xrcd) == 320 - 32, "open_xrcd");
_Static_assert(offsetof(struct verbs_context, close_xrcd) == 320 - 24, "close_xrcd");
_Static_assert(offsetof(struct xv_context, vctx) == 0, "container starts with verbs_context");
_Static_assert(sizeof(struct ibv_pd) == 16 && sizeof(struct ibv_mr) == 48, "pd, mr");
_Static_assert(offsetof(struct ibv_mr, lkey) == 36 && offsetof(struct ibv_mr, rkey) == 40, "keys");
_Static_assert(sizeof(struct ibv_comp_channel) == 16, "comp_channel");
_Static_assert(sizeof(struct ibv_cq) == 128, "ibv_cq");
_Static_assert(offsetof(struct ibv_cq, comp_events_completed) == 120, "cq events");
_Static_assert(sizeof(struct ibv_srq) == 128, "ibv_srq");
_Static_assert(sizeof(struct ibv_qp) == 160, "ibv_qp");
_Static_assert(offsetof(struct ibv_qp, qp_num) == 52 && offsetof(struct ibv_qp, state) == 56,
	       "qp_num, state");
_Static_assert(offsetof(struct ibv_qp, events_completed) == 152, "qp events");
_Static_assert(sizeof(struct ibv_ah) == 24, "ibv_ah");
_Static_assert(sizeof(struct ibv_send_wr) == 128 && sizeof(struct ibv_recv_wr) == 32, "wrs");
_Static_assert(sizeof(struct ibv_wc) == 48, "ibv_wc");
_Static_assert(sizeof(struct ibv_device_attr) == 232, "ibv_device_attr");
_Static_assert(sizeof(struct ibv_device_attr_ex) == 400, "ibv_device_attr_ex");
_Static_assert(sizeof(struct ibv_port_attr) == 52, "ibv_port_attr");
_Static_assert(offsetof(struct ibv_port_attr, port_cap_flags2) == 48, "compat port attr");
_Static_assert(sizeof(struct ibv_gid_entry) == 32, "ibv_gid_entry");
_Static_assert(sizeof(struct ibv_qp_init_attr_ex) == 136, "ibv_qp_init_attr_ex");

static pthread_mutex_t xv_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xv_device *xv_devices;	/* the latest scan's, under xv_dev_lock */

void xv_device_get(struct xv_device *d)
{
	pthread_mutex_lock(&xv_dev_lock);
	d->refcnt++;
	pthread_mutex_unlock(&xv_dev_lock);
}

static void device_put_locked(struct xv_device *d)
{
	if (--d->refcnt == 0)
		free(d);
}

void xv_device_put(struct xv_device *d)
{
	pthread_mutex_lock(&xv_dev_lock);
	device_put_locked(d);
	pthread_mutex_unlock(&xv_dev_lock);
}

/* --- netlink --------------------------------------------------------------- */

struct scan_dev {
	uint32_t index;
	uint64_t guid;
	char name[XIB_DEVICE_NAME_MAX];
};

struct scan {
	struct scan_dev *devs;
	size_t n, cap;
	uint16_t family;
	int error;		/* errno of a failed request */
};

static int ctrl_attr_cb(const struct nlattr *attr, void *data)
{
	struct scan *s = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
		s->family = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ctrl_attr_cb, data);
	return MNL_CB_OK;
}

static int dev_attr_cb(const struct nlattr *attr, void *data)
{
	struct scan_dev *d = data;

	switch (mnl_attr_get_type(attr)) {
	case XIB_ATTR_DEV_INDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			d->index = mnl_attr_get_u32(attr);
		break;
	case XIB_ATTR_DEV_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(d->name, sizeof(d->name), "%s", mnl_attr_get_str(attr));
		break;
	case XIB_ATTR_DEV_NODE_GUID:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) == 0)
			d->guid = mnl_attr_get_u64(attr);
		break;
	}
	return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scan *s = data;
	struct scan_dev d;

	memset(&d, 0, sizeof(d));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, &d);
	if (!d.name[0])
		return MNL_CB_OK;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct scan_dev *p = realloc(s->devs, cap * sizeof(*p));

		if (!p) {
			s->error = ENOMEM;
			return MNL_CB_ERROR;
		}
		s->devs = p;
		s->cap = cap;
	}
	s->devs[s->n++] = d;
	return MNL_CB_OK;
}

static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct scan *s = data;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		s->error = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	s->error = -err->error;
	return MNL_CB_ERROR;
}

/* One request and its answers; 0, or -1 with s->error set. */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   struct scan *s)
{
	static mnl_cb_t ctl_cb[NLMSG_ERROR + 1] = {
		[NLMSG_ERROR] = err_cb,
	};
	char *buf;
	uint32_t portid = mnl_socket_get_portid(nl);
	int ret;

	buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	if (!buf) {
		s->error = ENOMEM;
		return -1;
	}
	s->error = 0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		s->error = errno;
		free(buf);
		return -1;
	}
	do {
		ssize_t len = mnl_socket_recvfrom(nl, buf, MNL_SOCKET_BUFFER_SIZE);

		if (len < 0) {
			s->error = errno;
			ret = -1;
			break;
		}
		ret = mnl_cb_run2(buf, len, nlh->nlmsg_seq, portid, cb, s,
				  ctl_cb, NLMSG_ERROR + 1);
	} while (ret > 0);
	free(buf);
	if (ret < 0 && !s->error)
		s->error = errno ? errno : EPROTO;
	return ret < 0 ? -1 : 0;
}

/*
 * The xib devices of this namespace.  0 with s->n == 0 if the family does
 * not exist (modules not loaded); -1 with errno on a real failure.
 */
static int nl_scan(struct scan *s)
{
	char req[MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr)) + 64];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	uint32_t seq = 1;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;

	nlh = xib_genl_put_header(req, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1, seq++);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, XIB_GENL_NAME);
	if (nl_talk(nl, nlh, ctrl_cb, s) < 0 || !s->family) {
		/* No such family: xib is not loaded, hence no devices. */
		if (s->error == ENOENT || !s->error)
			ret = 0;
		else
			errno = s->error;
		goto out;
	}

	nlh = xib_genl_put_header(req, s->family, NLM_F_DUMP, XIB_CMD_DEV_GET, XIB_GENL_VERSION, seq++);
	if (nl_talk(nl, nlh, dev_cb, s) < 0) {
		errno = s->error;
		goto out;
	}
	ret = 0;
out:
	mnl_socket_close(nl);
	return ret;
}

/*
 * Whether /sys/class/xib/NAME is the device of @index.  Names are per
 * network namespace: a process whose /sys was mounted by another
 * namespace (nsenter --net without remounting it) may see that
 * namespace's device of the same name there; it must not use it.
 * Modules without the attribute had global names: trusted.
 */
static int sysfs_index_matches(const char *path, uint32_t index)
{
	char file[300];
	unsigned int v;
	FILE *f;
	int ok;

	snprintf(file, sizeof(file), "%s/index", path);
	f = fopen(file, "re");
	if (!f)
		return errno == ENOENT;
	ok = fscanf(f, "%u", &v) == 1 && v == index;
	fclose(f);
	return ok;
}

/*
 * "uverbsN" under /sys/class/xib/NAME (or one directory further down), if
 * that is the device of @index.
 */
static int find_uverbs(const char *name, uint32_t index, char *out,
		       size_t outlen)
{
	char path[256];
	struct dirent *de;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/class/xib/%s", name);
	if (!sysfs_index_matches(path, index))
		return 0;
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && (de = readdir(dir))) {
		unsigned int n;
		char sub[512];
		struct dirent *de2;
		DIR *dir2;

		if (sscanf(de->d_name, "uverbs%u", &n) == 1) {
			snprintf(out, outlen, "uverbs%u", n);
			found = 1;
			break;
		}
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		dir2 = opendir(sub);
		if (!dir2)
			continue;
		while ((de2 = readdir(dir2))) {
			if (sscanf(de2->d_name, "uverbs%u", &n) == 1) {
				snprintf(out, outlen, "uverbs%u", n);
				found = 1;
				break;
			}
		}
		closedir(dir2);
	}
	closedir(dir);
	return found;
}

static struct xv_device *device_new(const struct scan_dev *sd, const char *uverbs)
{
	struct xv_device *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->dev.node_type = IBV_NODE_CA;
	d->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", sd->name);
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "%s", uverbs);
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path), "/sys/class/xib_uverbs/%s", uverbs);
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path), "/sys/class/xib/%s", sd->name);
	snprintf(d->uverbs_path, sizeof(d->uverbs_path), "/dev/xib/%s", uverbs);
	d->node_guid = sd->guid;
	d->index = sd->index;
	return d;
}

XV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct xv_device **newlist = NULL, *d, **pp;
	struct ibv_device **arr = NULL;
	struct scan s;
	size_t i, n = 0;

	if (num_devices)
		*num_devices = 0;
	if (nl_scan(&s) < 0) {
		free(s.devs);
		return NULL;
	}
	newlist = calloc(s.n + 1, sizeof(*newlist));
	arr = calloc(s.n + 1, sizeof(*arr));
	if (!newlist || !arr) {
		free(newlist);
		free(arr);
		free(s.devs);
		errno = ENOMEM;
		return NULL;
	}

	pthread_mutex_lock(&xv_dev_lock);
	for (i = 0; i < s.n; i++) {
		char uverbs[64];

		/* no verbs node (yet), or not ours: not a verbs device */
		if (!find_uverbs(s.devs[i].name, s.devs[i].index, uverbs,
				 sizeof(uverbs)))
			continue;
		for (d = xv_devices; d; d = d->next)
			if (d->index == s.devs[i].index &&
			    !strcmp(d->dev.name, s.devs[i].name) &&
			    !strcmp(d->dev.dev_name, uverbs))
				break;
		if (d) {
			d->node_guid = s.devs[i].guid;
			d->refcnt++;	/* the new list's */
		} else {
			d = device_new(&s.devs[i], uverbs);
			if (!d)
				continue;
			d->refcnt = 1;	/* the new list's */
		}
		newlist[n++] = d;
	}
	/* Devices gone from the namespace lose the list's reference. */
	for (pp = &xv_devices; (d = *pp);) {
		*pp = d->next;
		device_put_locked(d);
	}
	for (i = 0; i < n; i++) {
		newlist[i]->next = i + 1 < n ? newlist[i + 1] : NULL;
		newlist[i]->refcnt++;	/* the returned array's */
		arr[i] = &newlist[i]->dev;
	}
	xv_devices = n ? newlist[0] : NULL;
	pthread_mutex_unlock(&xv_dev_lock);

	free(newlist);
	free(s.devs);
	if (num_devices)
		*num_devices = (int)n;
	return arr;
}

XV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **p;

	if (!list)
		return;
	pthread_mutex_lock(&xv_dev_lock);
	for (p = list; *p; p++)
		device_put_locked(XV_CONTAINER(*p, struct xv_device, dev));
	pthread_mutex_unlock(&xv_dev_lock);
	free(list);
}

XV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	return device->name;
}

XV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	return htobe64(XV_CONTAINER(device, struct xv_device, dev)->node_guid);
}

XV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	return (int)XV_CONTAINER(device, struct xv_device, dev)->index;
}

/* --- contexts ---------------------------------------------------------------- */

XV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct xv_device *dev = XV_CONTAINER(device, struct xv_device, dev);
	struct xv_context *c;
	struct ibv_context *ctx;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	ret = xib_open(dev->uverbs_path, &c->x);
	if (ret) {
		free(c);
		return xv_null(ret);
	}
	xv_device_get(dev);
	c->dev = dev;

	ctx = &c->vctx.context;
	ctx->device = device;
	ctx->cmd_fd = c->x->fd;
	ctx->async_fd = c->x->async_fd;
	ctx->num_comp_vectors = (int)c->x->num_comp_vectors;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->ops.post_send = xv_post_send;
	ctx->ops.post_recv = xv_post_recv;
	ctx->ops.post_srq_recv = xv_post_srq_recv;
	ctx->ops.poll_cq = xv_poll_cq;
	ctx->ops.req_notify_cq = xv_req_notify_cq;
	ctx->ops.alloc_mw = xv_alloc_mw;
	ctx->ops.dealloc_mw = xv_dealloc_mw;
	ctx->ops.bind_mw = xv_bind_mw;
	/* Pre-rdma-core binaries call these two through the table. */
	ctx->ops._compat_query_device = ibv_query_device;
	ctx->ops._compat_query_port = ibv_query_port;

	c->vctx.query_port = xv_query_port_op;
	c->vctx.query_device_ex = xv_query_device_ex_op;
	c->vctx.create_qp_ex = xv_create_qp_ex_op;
	c->vctx.open_qp = xv_open_qp_op;
	c->vctx.create_srq_ex = xv_create_srq_ex_op;
	c->vctx.get_srq_num = xv_get_srq_num_op;
	c->vctx.open_xrcd = xv_open_xrcd_op;
	c->vctx.close_xrcd = xv_close_xrcd_op;
	c->vctx.create_cq_ex = xv_create_cq_ex_op;
	c->vctx.alloc_td = xv_alloc_td_op;
	c->vctx.dealloc_td = xv_dealloc_td_op;
	c->vctx.alloc_parent_domain = xv_alloc_parent_domain_op;
	/* Everything else stays NULL: the inlines report EOPNOTSUPP. */
	c->vctx.sz = sizeof(struct verbs_context);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	return ctx;
}

XV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct xv_context *c = to_xctx(context);
	struct xv_device *dev = c->dev;

	xib_close(c->x);
	pthread_mutex_destroy(&context->mutex);
	free(c);
	xv_device_put(dev);
	return 0;
}

XV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* --- sysfs ------------------------------------------------------------------- */

XV_EXPORT int ibv_get_sysfs_path(char *buf, size_t size);
XV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
				  size_t size);

/* The root of sysfs; rdma-core honours $SYSFS_PATH the same way. */
int ibv_get_sysfs_path(char *buf, size_t size)
{
	const char *p = getenv("SYSFS_PATH");

	if (!p || !*p || getuid() != geteuid())
		p = "/sys";
	if ((size_t)snprintf(buf, size, "%s", p) >= size)
		return -1;
	return 0;
}

/*
 * Read DIR/FILE into buf (at most size - 1 bytes, NUL-terminated, one
 * trailing newline removed); returns the length or -1 with errno.  A file
 * xib does not have (e.g. ibv_devinfo's board_id) is simply -1/ENOENT.
 */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if (!size) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return (int)len;
}
