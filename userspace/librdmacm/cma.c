// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: the RDMA connection manager over /dev/xib/rdma_cm.
 *
 * Each event channel is one open file of /dev/xib/rdma_cm; each
 * rdma_cm_id is a kernel id named by a handle private to that file
 * (<uapi/xib/ucma.h> specifies every command).  The library keeps what
 * the application sees in rdma-core 44's structures: the addresses, the
 * device (an ibv_context of xib's libibverbs, found by node GUID), the
 * port and the route are refreshed with XIB_UCMA_QUERY when an event or
 * a call changes them.
 *
 * QPs made with rdma_create_qp are moved by the library: INIT at
 * creation (and RTR, RTS for UD), RTR and RTS before rdma_accept's REP
 * (with the accept's depths), RTR and RTS on the CONNECT_RESPONSE of an active id (reported as ESTABLISHED once
 * XIB_UCMA_ESTABLISH sent the RTU), the error state on rdma_disconnect,
 * REJECTED, DISCONNECTED and connection errors.  The attributes always
 * come from the kernel (XIB_UCMA_INIT_QP_ATTR).  The moves an event
 * causes are made in the thread that reads it, while the application
 * may be in rdma_destroy_qp on the same id in another: the library uses
 * id->qp only under the id's qp_lock (rdmacm.h).
 *
 * Events are read with XIB_UCMA_GET_EVENT and matched to ids by handle,
 * never by the uid the kernel echoes; an event for an id already
 * destroyed is dropped.  The library counts the events it handed out
 * and those acknowledged, per id and per multicast membership:
 * rdma_destroy_id and rdma_leave_multicast wait until they match.  A
 * CONNECT_REQUEST counts for the listener (as in rdma-core: the new id
 * may be destroyed before the request is acknowledged).
 *
 * Synchronous ids (a NULL channel) get a private channel; every call
 * that starts an operation waits for its event, keeps it in id->event
 * (acknowledged by the next call or by destroy) and fails with the
 * event's status as errno.
 *
 * Return convention: 0, or -1 with errno set (never -errno).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <infiniband/sa.h>

#include "rdmacm.h"

#define XCM_REJ_VENDOR_OPTION_NOT_SUPPORTED 35	/* IBTA table 112 */
#define XCM_EP_TIMEOUT_MS 2000

/* --- devices ------------------------------------------------------------ */

/*
 * Every device libibverbs lists, opened once and kept open while the
 * library is loaded (rdma_get_devices' promise), with a default PD for
 * rdma_create_qp(id, NULL, ...).  The table is under xcm_dev_lock and
 * only grows; each entry is allocated alone and never freed, so a
 * struct xcm_dev found stays valid after the lock is dropped (the table
 * itself moves when it grows).
 */
struct xcm_dev {
	struct ibv_context *verbs;
	uint64_t guid;			/* host order */
	struct ibv_pd *pd;		/* lazily */
	struct ibv_xrcd *xrcd;		/* lazily: the XRC ids' domain */
	struct ibv_device_attr attr;
};

static pthread_mutex_t xcm_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xcm_dev **xcm_devs;
static int xcm_ndevs;

/* Opens the devices not yet in the table.  Caller holds xcm_dev_lock. */
static void xcm_dev_scan(void)
{
	struct ibv_device **list;
	struct xcm_dev **grown, *d;
	int i, j, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return;
	for (i = 0; i < n; i++) {
		uint64_t guid = be64toh(ibv_get_device_guid(list[i]));

		for (j = 0; j < xcm_ndevs; j++)
			if (xcm_devs[j]->guid == guid)
				break;
		if (j < xcm_ndevs)
			continue;
		grown = realloc(xcm_devs, (xcm_ndevs + 1) * sizeof(*grown));
		if (!grown)
			break;
		xcm_devs = grown;
		d = calloc(1, sizeof(*d));
		if (!d)
			break;
		d->verbs = ibv_open_device(list[i]);
		if (!d->verbs) {
			free(d);
			continue;
		}
		d->guid = guid;
		if (ibv_query_device(d->verbs, &d->attr))
			memset(&d->attr, 0, sizeof(d->attr));
		xcm_devs[xcm_ndevs++] = d;
	}
	/* the opened contexts hold their devices */
	ibv_free_device_list(list);
}

/* The device of a node GUID (the kernel's, host order), scanning again once. */
static struct xcm_dev *xcm_dev_find(uint64_t guid)
{
	struct xcm_dev *d = NULL;
	int pass, i;

	pthread_mutex_lock(&xcm_dev_lock);
	for (pass = 0; pass < 2 && !d; pass++) {
		if (pass)
			xcm_dev_scan();
		for (i = 0; i < xcm_ndevs; i++)
			if (xcm_devs[i]->guid == guid)
				d = xcm_devs[i];
	}
	pthread_mutex_unlock(&xcm_dev_lock);
	return d;
}

static struct xcm_dev *xcm_dev_of(const struct ibv_context *verbs)
{
	struct xcm_dev *d = NULL;
	int i;

	pthread_mutex_lock(&xcm_dev_lock);
	for (i = 0; i < xcm_ndevs; i++)
		if (xcm_devs[i]->verbs == verbs)
			d = xcm_devs[i];
	pthread_mutex_unlock(&xcm_dev_lock);
	return d;
}

static struct ibv_pd *xcm_default_pd(struct ibv_context *verbs)
{
	struct xcm_dev *d = xcm_dev_of(verbs);
	struct ibv_pd *pd;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&xcm_dev_lock);
	if (!d->pd)
		d->pd = ibv_alloc_pd(verbs);
	pd = d->pd;
	pthread_mutex_unlock(&xcm_dev_lock);
	return pd;
}

/*
 * The XRC domain of the device's XRC ids (a private one, not tied to a
 * file), made on first use and kept with the device, as rdma-core's
 * librdmacm does when an XRC QP or SRQ is given none.
 */
static struct ibv_xrcd *xcm_default_xrcd(struct ibv_context *verbs)
{
	struct xcm_dev *d = xcm_dev_of(verbs);
	struct ibv_xrcd_init_attr attr;
	struct ibv_xrcd *xrcd;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&xcm_dev_lock);
	if (!d->xrcd) {
		memset(&attr, 0, sizeof(attr));
		attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
		attr.fd = -1;
		attr.oflags = O_CREAT;
		d->xrcd = ibv_open_xrcd(verbs, &attr);
	}
	xrcd = d->xrcd;
	pthread_mutex_unlock(&xcm_dev_lock);
	return xrcd;
}

XCM_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;

	pthread_mutex_lock(&xcm_dev_lock);
	xcm_dev_scan();
	if (!xcm_ndevs) {
		pthread_mutex_unlock(&xcm_dev_lock);
		if (num_devices)
			*num_devices = 0;
		errno = ENODEV;
		return NULL;
	}
	list = calloc(xcm_ndevs + 1, sizeof(*list));
	if (list) {
		for (int i = 0; i < xcm_ndevs; i++)
			list[i] = xcm_devs[i]->verbs;
		if (num_devices)
			*num_devices = xcm_ndevs;
	}
	pthread_mutex_unlock(&xcm_dev_lock);
	return list;
}

/* The contexts stay open: only the array goes. */
XCM_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* --- event channels ----------------------------------------------------- */

static pthread_once_t xcm_nodev_once = PTHREAD_ONCE_INIT;

static void xcm_nodev_say(void)
{
	fputs("xib: " XCM_DEV_PATH " is missing: the RDMA CM needs the xib_ucma module (modprobe xib_ucma)\n",
	      stderr);
}

static int xcm_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR && req != XIB_UCMA_GET_EVENT);
	return ret < 0 ? -1 : 0;
}

static struct xcm_channel *to_xchan(struct rdma_event_channel *ch)
{
	return XCM_CONTAINER(ch, struct xcm_channel, ch);
}

static struct xcm_id *to_xid(struct rdma_cm_id *id)
{
	return XCM_CONTAINER(id, struct xcm_id, id);
}

/* The library's id behind @id, or NULL with errno EINVAL for a NULL @id. */
static struct xcm_id *xcm_get_xid(struct rdma_cm_id *id)
{
	if (!id) {
		errno = EINVAL;
		return NULL;
	}
	return to_xid(id);
}

XCM_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct xcm_channel *chan;

	chan = calloc(1, sizeof(*chan));
	if (!chan)
		return NULL;
	chan->ch.fd = open(XCM_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (chan->ch.fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV) {
			pthread_once(&xcm_nodev_once, xcm_nodev_say);
			errno = ENODEV;
		}
		free(chan);
		return NULL;
	}
	pthread_mutex_init(&chan->lock, NULL);
	return &chan->ch;
}

XCM_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct xcm_channel *chan;

	if (!channel)
		return;
	chan = to_xchan(channel);
	close(chan->ch.fd);
	pthread_mutex_destroy(&chan->lock);
	free(chan);
}

/* --- ids ------------------------------------------------------------------ */

static int xcm_ps_qp_type(enum rdma_port_space ps, enum ibv_qp_type *type)
{
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_IB:
		*type = IBV_QPT_RC;
		return 0;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		*type = IBV_QPT_UD;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

static struct xcm_id *xcm_id_alloc(struct xcm_channel *chan, void *context,
				   enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct xcm_id *xid = calloc(1, sizeof(*xid));

	if (!xid)
		return NULL;
	pthread_mutex_init(&xid->lock, NULL);
	pthread_cond_init(&xid->cond, NULL);
	pthread_mutex_init(&xid->qp_lock, NULL);
	xid->chan = chan;
	xid->id.channel = &chan->ch;
	xid->id.context = context;
	xid->id.ps = ps;
	xid->id.qp_type = qp_type;
	return xid;
}

static void xcm_id_free(struct xcm_id *xid)
{
	struct xcm_mc *mc;

	while ((mc = xid->mcs)) {
		xid->mcs = mc->next;
		free(mc);
	}
	free(xid->id.route.path_rec);
	free(xid->ep_attr);
	pthread_mutex_destroy(&xid->qp_lock);
	pthread_cond_destroy(&xid->cond);
	pthread_mutex_destroy(&xid->lock);
	free(xid);
}

/* Caller holds chan->lock. */
static void xcm_link(struct xcm_channel *chan, struct xcm_id *xid)
{
	xid->chan = chan;
	xid->id.channel = &chan->ch;
	xid->next = chan->ids;
	chan->ids = xid;
}

/* Caller holds chan->lock. */
static void xcm_unlink(struct xcm_channel *chan, struct xcm_id *xid)
{
	struct xcm_id **p;

	for (p = &chan->ids; *p; p = &(*p)->next)
		if (*p == xid) {
			*p = xid->next;
			break;
		}
	xid->next = NULL;
}

/* Caller holds chan->lock. */
static struct xcm_id *xcm_lookup(struct xcm_channel *chan, uint32_t handle)
{
	struct xcm_id *xid;

	for (xid = chan->ids; xid; xid = xid->next)
		if (xid->handle == handle)
			return xid;
	return NULL;
}

static int xcm_create(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		      void *context, enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct xib_ucma_create_id cmd;
	struct xcm_channel *chan;
	struct xcm_id *xid;
	int sync = !channel, err;

	if (!id) {
		errno = EINVAL;
		return -1;
	}
	*id = NULL;
	if (sync) {
		channel = rdma_create_event_channel();
		if (!channel)
			return -1;
	}
	chan = to_xchan(channel);
	xid = xcm_id_alloc(chan, context, ps, qp_type);
	if (!xid)
		goto destroy_channel;
	xid->sync = sync;

	memset(&cmd, 0, sizeof(cmd));
	cmd.uid = (uintptr_t)xid;
	cmd.ps = ps;
	cmd.qp_type = qp_type;
	/* under the lock: an event of the new handle must find the id */
	pthread_mutex_lock(&chan->lock);
	if (xcm_ioctl(chan->ch.fd, XIB_UCMA_CREATE_ID, &cmd)) {
		pthread_mutex_unlock(&chan->lock);
		goto free_id;
	}
	xid->handle = cmd.id;
	xcm_link(chan, xid);
	pthread_mutex_unlock(&chan->lock);
	*id = &xid->id;
	return 0;

free_id:
	err = errno;
	xcm_id_free(xid);
	errno = err;
destroy_channel:
	err = errno;
	if (sync)
		rdma_destroy_event_channel(channel);
	errno = err;
	return -1;
}

XCM_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
			      struct rdma_cm_id **id, void *context,
			      enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type;

	if (id)
		*id = NULL;
	if (xcm_ps_qp_type(ps, &qp_type))
		return -1;
	return xcm_create(channel, id, context, ps, qp_type);
}

/* Waits until every event handed out for the id was acknowledged. */
static void xcm_wait_acks(struct xcm_id *xid)
{
	pthread_mutex_lock(&xid->lock);
	while (xid->acked != xid->delivered)
		pthread_cond_wait(&xid->cond, &xid->lock);
	pthread_mutex_unlock(&xid->lock);
}

XCM_EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct xib_ucma_destroy_id cmd;
	struct xcm_channel *chan;
	struct xcm_id *xid;
	int sync;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	chan = xid->chan;
	sync = xid->sync;
	pthread_mutex_lock(&chan->lock);
	xcm_unlink(chan, xid);
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	/* The id goes whatever the kernel says: the file still owns it. */
	(void)xcm_ioctl(chan->ch.fd, XIB_UCMA_DESTROY_ID, &cmd);
	pthread_mutex_unlock(&chan->lock);

	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	xcm_wait_acks(xid);
	xcm_id_free(xid);
	if (sync)
		rdma_destroy_event_channel(&chan->ch);
	return 0;
}

/* What the kernel knows of the id: addresses, device, port, route. */
static int xcm_query(struct xcm_id *xid)
{
	struct rdma_cm_id *id = &xid->id;
	struct xib_ucma_query q;
	struct xcm_dev *dev;

	memset(&q, 0, sizeof(q));
	q.id = xid->handle;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_QUERY, &q))
		return -1;
	if (q.src.family)
		xcm_addr_to_sockaddr(&id->route.addr.src_storage, &q.src);
	if (q.dst.family)
		xcm_addr_to_sockaddr(&id->route.addr.dst_storage, &q.dst);
	if (q.node_guid) {
		dev = xcm_dev_find(q.node_guid);
		if (!dev) {
			errno = ENODEV;
			return -1;
		}
		id->verbs = dev->verbs;
		id->port_num = q.port_num;
	}
	memcpy(id->route.addr.addr.ibaddr.sgid.raw, q.sgid, 16);
	memcpy(id->route.addr.addr.ibaddr.dgid.raw, q.dgid, 16);
	id->route.addr.addr.ibaddr.pkey = q.pkey;
	if (q.num_paths) {
		struct ibv_sa_path_rec *p = id->route.path_rec;

		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p)
				return -1;
			id->route.path_rec = p;
		}
		memset(p, 0, sizeof(*p));
		memcpy(p->dgid.raw, q.path.dgid, 16);
		memcpy(p->sgid.raw, q.path.sgid, 16);
		p->dlid = q.path.dlid;
		p->slid = q.path.slid;
		p->raw_traffic = q.path.raw_traffic;
		p->flow_label = htobe32(q.path.flow_label & 0xfffff);
		p->hop_limit = q.path.hop_limit;
		p->traffic_class = q.path.traffic_class;
		p->reversible = q.path.reversible;
		p->numb_path = q.path.numb_path;
		p->pkey = q.path.pkey;
		p->sl = q.path.sl & 0xf;
		p->mtu_selector = q.path.mtu_selector;
		p->mtu = q.path.mtu;
		p->rate_selector = q.path.rate_selector;
		p->rate = q.path.rate;
		p->packet_life_time_selector = q.path.packet_life_time_selector;
		p->packet_life_time = q.path.packet_life_time;
		p->preference = q.path.preference;
		id->route.num_paths = 1;
	}
	return 0;
}

/* --- QP attributes -------------------------------------------------------- */

static void xcm_ah_from_k(struct ibv_ah_attr *a, const struct xib_uverbs_ah_attr *k)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, k->dgid, 16);
	a->grh.flow_label = k->flow_label & 0xfffff;
	a->grh.sgid_index = k->sgid_index;
	a->grh.hop_limit = k->hop_limit;
	a->grh.traffic_class = k->traffic_class;
	a->dlid = k->dlid;
	a->sl = k->sl & 0xf;
	a->src_path_bits = k->src_path_bits;
	a->static_rate = k->static_rate;
	a->is_global = k->is_global;
	a->port_num = k->port_num;
}

XCM_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
				 int *qp_attr_mask)
{
	struct xib_ucma_init_qp_attr cmd;
	const struct xib_uverbs_qp_attr *k = &cmd.attr;
	struct xcm_id *xid;

	if (!id || !qp_attr || !qp_attr_mask) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.qp_state = qp_attr->qp_state;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_INIT_QP_ATTR, &cmd))
		return -1;
	memset(qp_attr, 0, sizeof(*qp_attr));
	qp_attr->qp_state = k->qp_state;
	qp_attr->cur_qp_state = k->cur_qp_state;
	qp_attr->path_mtu = k->path_mtu;
	qp_attr->path_mig_state = k->path_mig_state;
	qp_attr->qkey = k->qkey;
	qp_attr->rq_psn = k->rq_psn & 0xffffff;
	qp_attr->sq_psn = k->sq_psn & 0xffffff;
	qp_attr->dest_qp_num = k->dest_qp_num & 0xffffff;
	qp_attr->qp_access_flags = k->qp_access_flags;
	qp_attr->cap.max_send_wr = k->cap.max_send_wr;
	qp_attr->cap.max_recv_wr = k->cap.max_recv_wr;
	qp_attr->cap.max_send_sge = k->cap.max_send_sge;
	qp_attr->cap.max_recv_sge = k->cap.max_recv_sge;
	qp_attr->cap.max_inline_data = k->cap.max_inline_data;
	xcm_ah_from_k(&qp_attr->ah_attr, &k->ah_attr);
	xcm_ah_from_k(&qp_attr->alt_ah_attr, &k->alt_ah_attr);
	qp_attr->pkey_index = k->pkey_index;
	qp_attr->alt_pkey_index = k->alt_pkey_index;
	qp_attr->en_sqd_async_notify = k->en_sqd_async_notify;
	qp_attr->max_rd_atomic = k->max_rd_atomic;
	qp_attr->max_dest_rd_atomic = k->max_dest_rd_atomic;
	qp_attr->min_rnr_timer = k->min_rnr_timer;
	qp_attr->port_num = k->port_num;
	qp_attr->timeout = k->timeout;
	qp_attr->retry_cnt = k->retry_cnt;
	qp_attr->rnr_retry = k->rnr_retry;
	qp_attr->alt_port_num = k->alt_port_num;
	qp_attr->alt_timeout = k->alt_timeout;
	qp_attr->rate_limit = k->rate_limit;
	*qp_attr_mask = (int)cmd.attr_mask;
	return 0;
}

/*
 * Moves the id's QP, if it has one, to @state with the kernel's
 * attributes; @rd_atomic, unless 0xff, replaces the RDMA READ depth the
 * state sets (RTR: what the peer may issue, RTS: what this end may issue;
 * an accept's responder resources and initiator depth before the REP
 * made them the connection's).  Caller holds xid->qp_lock, so the QP
 * cannot be destroyed under the move.
 */
static int xcm_qp_move_locked(struct xcm_id *xid, enum ibv_qp_state state,
			      uint8_t rd_atomic)
{
	struct ibv_qp *qp = xid->id.qp;
	struct ibv_qp_attr attr;
	int mask, ret;

	if (!qp)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = state;
	if (state == IBV_QPS_ERR) {
		mask = IBV_QP_STATE;
	} else if (rdma_init_qp_attr(&xid->id, &attr, &mask)) {
		return -1;
	}
	if (rd_atomic != 0xff && (mask & IBV_QP_MAX_DEST_RD_ATOMIC))
		attr.max_dest_rd_atomic = rd_atomic;
	if (rd_atomic != 0xff && (mask & IBV_QP_MAX_QP_RD_ATOMIC))
		attr.max_rd_atomic = rd_atomic;
	ret = ibv_modify_qp(qp, &attr, mask);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static int xcm_qp_move(struct xcm_id *xid, enum ibv_qp_state state)
{
	int ret;

	pthread_mutex_lock(&xid->qp_lock);
	ret = xcm_qp_move_locked(xid, state, 0xff);
	pthread_mutex_unlock(&xid->qp_lock);
	return ret;
}

/* RTR then RTS.  Caller holds xid->qp_lock. */
static int xcm_qp_rtr_rts_locked(struct xcm_id *xid)
{
	if (xcm_qp_move_locked(xid, IBV_QPS_RTR, 0xff))
		return -1;
	return xcm_qp_move_locked(xid, IBV_QPS_RTS, 0xff);
}

static int xcm_qp_rtr_rts(struct xcm_id *xid)
{
	int ret;

	pthread_mutex_lock(&xid->qp_lock);
	ret = xcm_qp_rtr_rts_locked(xid);
	pthread_mutex_unlock(&xid->qp_lock);
	return ret;
}

/* --- events --------------------------------------------------------------- */

static void xcm_done(struct xcm_id *xid, struct xcm_mc *mc)
{
	pthread_mutex_lock(&xid->lock);
	xid->acked++;
	if (mc)
		mc->acked++;
	pthread_cond_broadcast(&xid->cond);
	pthread_mutex_unlock(&xid->lock);
}

static void xcm_event_done(struct xcm_event *evt)
{
	if (evt->listener)
		xcm_done(evt->listener, NULL);
	else
		xcm_done(evt->owner, evt->mc);
	free(evt);
}

XCM_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!event) {
		errno = EINVAL;
		return -1;
	}
	xcm_event_done(XCM_CONTAINER(event, struct xcm_event, ev));
	return 0;
}

static void xcm_conn_from_k(struct xcm_event *evt, const struct xib_ucma_conn_param *k)
{
	struct rdma_conn_param *c = &evt->ev.param.conn;
	unsigned int len = k->private_data_len;

	if (len > sizeof(evt->private_data))
		len = sizeof(evt->private_data);
	memcpy(evt->private_data, k->private_data, len);
	c->private_data = len ? evt->private_data : NULL;
	c->private_data_len = len;
	c->responder_resources = k->responder_resources;
	c->initiator_depth = k->initiator_depth;
	c->flow_control = k->flow_control;
	c->retry_count = k->retry_count & 7;
	c->rnr_retry_count = k->rnr_retry_count & 7;
	c->srq = k->srq;
	c->qp_num = k->qp_num & 0xffffff;
}

static void xcm_ud_from_k(struct xcm_event *evt, const struct xib_ucma_event *k)
{
	struct rdma_ud_param *u = &evt->ev.param.ud;
	unsigned int len = k->conn.private_data_len;

	if (len > sizeof(evt->private_data))
		len = sizeof(evt->private_data);
	memcpy(evt->private_data, k->conn.private_data, len);
	u->private_data = len ? evt->private_data : NULL;
	u->private_data_len = len;
	xcm_ah_from_k(&u->ah_attr, &k->ud.ah_attr);
	u->qp_num = k->ud.qp_num & 0xffffff;
	u->qkey = k->ud.qkey;
}

static void xcm_remote_ece(struct xcm_id *xid, const struct xib_ucma_conn_param *k)
{
	pthread_mutex_lock(&xid->lock);
	xid->remote_ece.vendor_id = k->ece_vendor_id;
	xid->remote_ece.options = k->ece_attr_mod;
	xid->remote_ece.comp_mask = 0;
	pthread_mutex_unlock(&xid->lock);
}

/* A connection request: its new id, on the listener's channel. */
static struct xcm_id *xcm_new_conn_id(struct xcm_channel *chan, struct xcm_id *listen,
				      uint32_t handle)
{
	struct xcm_id *xid;

	xid = xcm_id_alloc(chan, listen->id.context, listen->id.ps, listen->id.qp_type);
	if (!xid)
		return NULL;
	xid->handle = handle;
	return xid;
}

/* Refuses a request the library cannot represent; the kernel id goes. */
static void xcm_drop_request(struct xcm_channel *chan, uint32_t handle)
{
	struct xib_ucma_reject rej;
	struct xib_ucma_destroy_id d;

	memset(&rej, 0, sizeof(rej));
	rej.id = handle;
	(void)xcm_ioctl(chan->ch.fd, XIB_UCMA_REJECT, &rej);
	memset(&d, 0, sizeof(d));
	d.id = handle;
	(void)xcm_ioctl(chan->ch.fd, XIB_UCMA_DESTROY_ID, &d);
}

/*
 * CONNECT_RESPONSE of an id with a QP: RTR, RTS and the RTU, reported as
 * ESTABLISHED (CONNECT_ERROR, the QP in error, if a step fails).  Under
 * qp_lock: the application may be in rdma_destroy_qp meanwhile.
 */
static void xcm_conn_response(struct xcm_id *xid, struct rdma_cm_event *ev)
{
	struct xib_ucma_establish e;

	pthread_mutex_lock(&xid->qp_lock);
	if (!xid->id.qp)
		goto out;
	if (xcm_qp_rtr_rts_locked(xid) == 0) {
		memset(&e, 0, sizeof(e));
		e.id = xid->handle;
		if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_ESTABLISH, &e) == 0) {
			ev->event = RDMA_CM_EVENT_ESTABLISHED;
			goto out;
		}
	}
	ev->status = -errno;
	ev->event = RDMA_CM_EVENT_CONNECT_ERROR;
	(void)xcm_qp_move_locked(xid, IBV_QPS_ERR, 0xff);
out:
	pthread_mutex_unlock(&xid->qp_lock);
}

/*
 * MULTICAST_JOIN: the QP, if any, joins the group (once), unless the join
 * was send-only (as rdma-core: a send-only member receives nothing);
 * under qp_lock.
 */
static void xcm_mc_attach(struct xcm_id *xid, struct xcm_event *evt)
{
	struct rdma_cm_event *ev = &evt->ev;

	pthread_mutex_lock(&xid->qp_lock);
	evt->mc->mgid = ev->param.ud.ah_attr.grh.dgid;
	evt->mc->mlid = ev->param.ud.ah_attr.dlid;
	if (xid->id.qp && !evt->mc->attached &&
	    evt->mc->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER) {
		if (ibv_attach_mcast(xid->id.qp, &evt->mc->mgid, evt->mc->mlid) == 0) {
			evt->mc->attached = 1;
		} else {
			ev->event = RDMA_CM_EVENT_MULTICAST_ERROR;
			ev->status = -errno;
		}
	}
	pthread_mutex_unlock(&xid->qp_lock);
}

/*
 * Turns a kernel event into the application's.  0: deliver; 1: nothing
 * for the application (the event is accounted as acknowledged).
 */
static int xcm_process(struct xcm_event *evt, const struct xib_ucma_event *k)
{
	struct xcm_id *xid = evt->owner;
	struct rdma_cm_event *ev = &evt->ev;
	int ud = xid->id.qp_type == IBV_QPT_UD;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (xcm_query(xid)) {
			ev->event = RDMA_CM_EVENT_ADDR_ERROR;
			ev->status = -errno;
		}
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (xcm_query(xid)) {
			ev->event = RDMA_CM_EVENT_ROUTE_ERROR;
			ev->status = -errno;
		}
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (xcm_query(xid))
			return -1;
		if (ud) {
			xcm_ud_from_k(evt, k);
		} else {
			xcm_conn_from_k(evt, &k->conn);
			xid->initiator_depth = k->conn.initiator_depth;
			xid->responder_resources = k->conn.responder_resources;
		}
		xcm_remote_ece(xid, &k->conn);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		xcm_conn_from_k(evt, &k->conn);
		xcm_remote_ece(xid, &k->conn);
		if (!ev->status)
			xcm_conn_response(xid, ev);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ud) {
			xcm_ud_from_k(evt, k);
		} else {
			xcm_conn_from_k(evt, &k->conn);
			xcm_remote_ece(xid, &k->conn);
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
		xcm_conn_from_k(evt, &k->conn);
		xcm_remote_ece(xid, &k->conn);
		(void)xcm_qp_move(xid, IBV_QPS_ERR);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DISCONNECTED:
		(void)xcm_qp_move(xid, IBV_QPS_ERR);
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		xcm_ud_from_k(evt, k);
		ev->param.ud.private_data = evt->mc->context;
		ev->param.ud.private_data_len = 0;
		if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN)
			xcm_mc_attach(xid, evt);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		return 1;	/* a newer kernel's event: not ours to show */
	}
	return 0;
}

/*
 * The next event of @chan for the application.  Finds the id (and the
 * membership) by handle under chan->lock, counts the event as handed
 * out, then completes it outside the lock.
 */
static int xcm_next_event(struct xcm_channel *chan, struct xcm_event *evt)
{
	struct xib_ucma_event k;
	struct xcm_id *xid, *listen;
	struct xcm_mc *mc;
	int ret;

	for (;;) {
		memset(&k, 0, sizeof(k));
		if (xcm_ioctl(chan->ch.fd, XIB_UCMA_GET_EVENT, &k))
			return -1;
		memset(evt, 0, sizeof(*evt));
		evt->ev.event = k.event;
		evt->ev.status = k.status;

		pthread_mutex_lock(&chan->lock);
		listen = NULL;
		mc = NULL;
		if (k.event == XIB_UCMA_EVENT_CONNECT_REQUEST) {
			listen = xcm_lookup(chan, k.listen_id);
			xid = listen ? xcm_new_conn_id(chan, listen, k.id) : NULL;
			if (!xid) {
				pthread_mutex_unlock(&chan->lock);
				xcm_drop_request(chan, k.id);
				continue;
			}
			xcm_link(chan, xid);
		} else {
			xid = xcm_lookup(chan, k.id);
			if (!xid) {
				/* destroyed since: nobody to tell */
				pthread_mutex_unlock(&chan->lock);
				continue;
			}
		}
		pthread_mutex_lock(&xid->lock);
		if (k.event == XIB_UCMA_EVENT_MULTICAST_JOIN ||
		    k.event == XIB_UCMA_EVENT_MULTICAST_ERROR) {
			for (mc = xid->mcs; mc; mc = mc->next)
				if (mc->handle == k.mc_id)
					break;
			if (!mc) {
				/* left since */
				pthread_mutex_unlock(&xid->lock);
				pthread_mutex_unlock(&chan->lock);
				continue;
			}
			mc->delivered++;
		}
		/* a request counts for the listener only, as in rdma-core */
		if (!listen)
			xid->delivered++;
		pthread_mutex_unlock(&xid->lock);
		if (listen) {
			pthread_mutex_lock(&listen->lock);
			listen->delivered++;
			pthread_mutex_unlock(&listen->lock);
		}
		pthread_mutex_unlock(&chan->lock);

		evt->owner = xid;
		evt->listener = listen;
		evt->mc = mc;
		evt->ev.id = &xid->id;
		evt->ev.listen_id = listen ? &listen->id : NULL;
		ret = xcm_process(evt, &k);
		if (ret == 0)
			return 0;
		if (ret < 0 && listen) {
			/* a request the library could not take: refuse it */
			rdma_reject(&xid->id, NULL, 0);
			xcm_done(listen, NULL);
			rdma_destroy_id(&xid->id);
			continue;
		}
		if (listen)
			xcm_done(listen, NULL);
		else
			xcm_done(xid, mc);
	}
}

XCM_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				 struct rdma_cm_event **event)
{
	struct xcm_event *evt;

	if (!event) {
		errno = EINVAL;
		return -1;
	}
	*event = NULL;
	if (!channel) {
		errno = EINVAL;
		return -1;
	}
	evt = malloc(sizeof(*evt));
	if (!evt)
		return -1;
	if (xcm_next_event(to_xchan(channel), evt)) {
		int err = errno;

		free(evt);
		errno = err;
		return -1;
	}
	*event = &evt->ev;
	return 0;
}

/* errno for an event that says the operation failed; 0 if it did not. */
static int xcm_event_errno(const struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return ECONNREFUSED;
	if (ev->status < 0)
		return -ev->status;
	if (ev->status > 0)
		return ev->status;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return EIO;
	case RDMA_CM_EVENT_UNREACHABLE:
		return ETIMEDOUT;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return ENODEV;
	default:
		return 0;
	}
}

/* A synchronous id: the event that ends the operation just started. */
static int xcm_complete(struct xcm_id *xid)
{
	struct rdma_cm_id *id = &xid->id;
	int err;

	if (!xid->sync)
		return 0;
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	if (rdma_get_cm_event(id->channel, &id->event))
		return -1;
	err = xcm_event_errno(id->event);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* --- addresses and routes ------------------------------------------------ */

XCM_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct xib_ucma_bind cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	if (xcm_addr_from_sockaddr(&cmd.addr, addr))
		return -1;
	cmd.id = xid->handle;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_BIND, &cmd))
		return -1;
	return xcm_query(xid);
}

XCM_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
				 struct sockaddr *dst_addr, int timeout_ms)
{
	struct xib_ucma_resolve_addr cmd;
	struct xcm_id *xid;

	if (!id || timeout_ms <= 0) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	if (src_addr && xcm_addr_from_sockaddr(&cmd.src, src_addr))
		return -1;
	if (xcm_addr_from_sockaddr(&cmd.dst, dst_addr))
		return -1;
	cmd.id = xid->handle;
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_RESOLVE_ADDR, &cmd))
		return -1;
	memcpy(&id->route.addr.dst_storage, dst_addr, xcm_sockaddr_len(dst_addr));
	return xcm_complete(xid);
}

XCM_EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct xib_ucma_resolve_route cmd;
	struct xcm_id *xid;

	if (!id || timeout_ms <= 0) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_RESOLVE_ROUTE, &cmd))
		return -1;
	return xcm_complete(xid);
}

static __be16 xcm_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	if (ss->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)ss)->sin6_port;
	return 0;
}

/* Network order, 0 for an id without that address. */
XCM_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? xcm_port(&id->route.addr.src_storage) : 0;
}

XCM_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? xcm_port(&id->route.addr.dst_storage) : 0;
}

/* --- QPs and SRQs ---------------------------------------------------------- */

/*
 * The receive CQ and its channel, unless the send side shares them (an
 * XRC SRQ's CQ, which the library made, goes alone).
 */
static void xcm_destroy_recv_cq(struct rdma_cm_id *id)
{
	if (id->recv_cq && id->recv_cq != id->send_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->recv_cq_channel && id->recv_cq_channel != id->send_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	id->recv_cq = NULL;
	id->recv_cq_channel = NULL;
}

static void xcm_destroy_send_cq(struct rdma_cm_id *id)
{
	if (id->send_cq)
		ibv_destroy_cq(id->send_cq);
	if (id->send_cq_channel)
		ibv_destroy_comp_channel(id->send_cq_channel);
	id->send_cq = NULL;
	id->send_cq_channel = NULL;
}

static void xcm_destroy_cqs(struct rdma_cm_id *id)
{
	xcm_destroy_recv_cq(id);
	xcm_destroy_send_cq(id);
}

/* A completion channel and a CQ of @cqe entries for each side asked. */
static int xcm_create_cqs(struct xcm_id *xid, uint32_t send_cqe, uint32_t recv_cqe)
{
	struct rdma_cm_id *id = &xid->id;

	if (recv_cqe) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->recv_cq_channel)
			goto err;
		id->recv_cq = ibv_create_cq(id->verbs, recv_cqe, id, id->recv_cq_channel, 0);
		if (!id->recv_cq)
			goto err;
	}
	if (send_cqe) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->send_cq_channel)
			goto err;
		id->send_cq = ibv_create_cq(id->verbs, send_cqe, id, id->send_cq_channel, 0);
		if (!id->send_cq)
			goto err;
	}
	return 0;
err:
	{
		int err = errno;

		/* only what this call made: the id may have the other side's */
		if (recv_cqe)
			xcm_destroy_recv_cq(id);
		if (send_cqe)
			xcm_destroy_send_cq(id);
		errno = err;
	}
	return -1;
}

/* The QP's first moves: INIT, and RTR and RTS for UD (nothing to wait for). */
static int xcm_qp_init(struct xcm_id *xid)
{
	if (xcm_qp_move(xid, IBV_QPS_INIT))
		return -1;
	if (xid->id.qp_type != IBV_QPT_UD)
		return 0;
	return xcm_qp_rtr_rts(xid);
}

#define XCM_QP_EX_KNOWN (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | \
			 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
			 IBV_QP_INIT_ATTR_MAX_TSO_HEADER | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

static int xcm_is_xrc(enum ibv_qp_type type)
{
	return type == IBV_QPT_XRC_SEND || type == IBV_QPT_XRC_RECV;
}

/*
 * An XRC QP of an XRC id: a target (XRC_RECV) of the given or the
 * device's XRC domain, with no CQ, SRQ or queue of its own (it receives
 * into the XRC SRQs senders name); an initiator (XRC_SEND) with a send
 * CQ only.  Returns the QP, or NULL with errno; *made_cqs says whether
 * the CQs are the library's.
 */
static struct ibv_qp *xcm_create_xrc_qp(struct xcm_id *xid, struct ibv_qp_init_attr_ex *attr,
					int *made_cqs)
{
	struct rdma_cm_id *id = &xid->id;

	*made_cqs = 0;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd) {
			attr->xrcd = xcm_default_xrcd(id->verbs);
			if (!attr->xrcd)
				return NULL;
			attr->comp_mask |= IBV_QP_INIT_ATTR_XRCD;
		}
		return ibv_create_qp_ex(id->verbs, attr);
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		errno = EINVAL;
		return NULL;
	}
	attr->recv_cq = NULL;
	attr->srq = NULL;
	if (!attr->send_cq) {
		if (!id->send_cq) {
			if (xcm_create_cqs(xid, attr->cap.max_send_wr ?: 1, 0))
				return NULL;
			*made_cqs = 1;
		}
		attr->send_cq = id->send_cq;
	}
	if (attr->comp_mask == IBV_QP_INIT_ATTR_PD)
		return ibv_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	return ibv_create_qp_ex(id->verbs, attr);
}

XCM_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct xcm_id *xid;
	struct ibv_qp *qp;
	int made_cqs = 0, err;

	if (!id || !attr || (attr->comp_mask & ~XCM_QP_EX_KNOWN) || !id->verbs ||
	    id->qp) {
		errno = id && id->qp ? EEXIST : EINVAL;
		return -1;
	}
	xid = to_xid(id);
	/*
	 * The CM's id and the QP must agree on connected vs datagram, and an
	 * XRC id's QP is of its XRC type (initiator or target).
	 */
	if ((attr->qp_type == IBV_QPT_UD) != (id->qp_type == IBV_QPT_UD) ||
	    ((xcm_is_xrc(attr->qp_type) || xcm_is_xrc(id->qp_type)) &&
	     attr->qp_type != id->qp_type)) {
		errno = EINVAL;
		return -1;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : xcm_default_pd(id->verbs);
		if (!attr->pd)
			return -1;
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	}
	if (attr->pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	if (xcm_is_xrc(attr->qp_type)) {
		qp = xcm_create_xrc_qp(xid, attr, &made_cqs);
		if (!qp)
			goto destroy_cqs;
		goto made;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) {
		errno = EINVAL;
		return -1;
	}
	if (!attr->srq && id->srq)
		attr->srq = id->srq;
	if (!attr->send_cq || (!attr->recv_cq && !attr->srq) ||
	    (!attr->recv_cq && attr->srq && !id->recv_cq)) {
		if (!id->send_cq && !id->recv_cq) {
			if (xcm_create_cqs(xid, attr->send_cq ? 0 : attr->cap.max_send_wr ?: 1,
					   attr->recv_cq ? 0 : attr->cap.max_recv_wr ?: 1))
				return -1;
			made_cqs = 1;
		}
	}
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (!attr->send_cq || !attr->recv_cq) {
		errno = EINVAL;
		goto destroy_cqs;
	}

	if (attr->comp_mask == IBV_QP_INIT_ATTR_PD) {
		qp = ibv_create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	} else {
		qp = ibv_create_qp_ex(id->verbs, attr);
	}
	if (!qp)
		goto destroy_cqs;
made:
	pthread_mutex_lock(&xid->qp_lock);
	id->qp = qp;
	xid->own_cqs = made_cqs;
	pthread_mutex_unlock(&xid->qp_lock);
	if (!id->pd)
		id->pd = attr->pd;
	if (xcm_qp_init(xid))
		goto destroy_qp;
	return 0;

destroy_qp:
	err = errno;
	pthread_mutex_lock(&xid->qp_lock);
	id->qp = NULL;
	xid->own_cqs = 0;
	pthread_mutex_unlock(&xid->qp_lock);
	ibv_destroy_qp(qp);
	errno = err;
destroy_cqs:
	if (made_cqs) {
		err = errno;
		xcm_destroy_cqs(id);
		errno = err;
	}
	return -1;
}

XCM_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;

	if (!qp_init_attr) {
		errno = EINVAL;
		return -1;
	}
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	if (rdma_create_qp_ex(id, &ex))
		return -1;
	qp_init_attr->cap = ex.cap;
	return 0;
}

/*
 * The QP leaves id->qp under qp_lock first: an event being processed in
 * another thread either finished with it or sees no QP.
 */
XCM_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct xcm_id *xid;
	struct ibv_qp *qp;
	int own_cqs;

	if (!id)
		return;
	xid = to_xid(id);
	pthread_mutex_lock(&xid->qp_lock);
	qp = id->qp;
	own_cqs = xid->own_cqs;
	id->qp = NULL;
	xid->own_cqs = 0;
	pthread_mutex_unlock(&xid->qp_lock);
	if (!qp)
		return;
	ibv_destroy_qp(qp);
	if (own_cqs)
		xcm_destroy_cqs(id);
}

#define XCM_SRQ_EX_KNOWN (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
			  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

/*
 * A basic SRQ, or for an XRC target's id an XRC SRQ: of the given or the
 * device's XRC domain, completing to the given CQ or to a receive CQ
 * (with its completion channel) the library makes as id->recv_cq, so
 * that rdma_get_recv_comp() finds the SRQ's completions, as rdma-core
 * does.
 */
XCM_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr_ex ex;
	struct xcm_id *xid;
	struct ibv_pd *pd;
	struct ibv_srq *srq;
	int xrc, made_cq = 0;

	if (!id || !attr || !id->verbs || (attr->comp_mask & ~XCM_SRQ_EX_KNOWN)) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	xrc = (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type == IBV_SRQT_XRC;
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC &&
	    !xrc) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!xrc && (attr->comp_mask & (IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ))) {
		errno = EINVAL;
		return -1;
	}
	if (id->srq) {
		errno = EEXIST;
		return -1;
	}
	pd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL;
	if (!pd)
		pd = id->pd ? id->pd : xcm_default_pd(id->verbs);
	if (!pd)
		return -1;
	if (pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	if (xrc) {
		ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		ex.srq_type = IBV_SRQT_XRC;
		ex.pd = pd;
		ex.xrcd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ? attr->xrcd : NULL;
		if (!ex.xrcd)
			ex.xrcd = xcm_default_xrcd(id->verbs);
		if (!ex.xrcd)
			return -1;
		ex.cq = (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ? attr->cq : NULL;
		if (!ex.cq) {
			if (id->recv_cq) {
				errno = EEXIST;
				return -1;
			}
			if (xcm_create_cqs(xid, 0, attr->attr.max_wr ?: 1))
				return -1;
			made_cq = 1;
			ex.cq = id->recv_cq;
		}
		srq = ibv_create_srq_ex(id->verbs, &ex);
	} else {
		struct ibv_srq_init_attr basic;

		memset(&basic, 0, sizeof(basic));
		basic.srq_context = ex.srq_context;
		basic.attr = ex.attr;
		srq = ibv_create_srq(pd, &basic);
		if (srq)
			ex.attr = basic.attr;
	}
	if (!srq) {
		if (made_cq) {
			int err = errno;

			xcm_destroy_recv_cq(id);
			errno = err;
		}
		return -1;
	}
	attr->attr = ex.attr;
	id->srq = srq;
	xid->srq_cqs = made_cq;
	if (!id->pd)
		id->pd = pd;
	return 0;
}

XCM_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;

	if (!id || !attr) {
		errno = EINVAL;
		return -1;
	}
	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	/* an XRC target's id gets an XRC SRQ, as in rdma-core */
	ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC : IBV_SRQT_BASIC;
	ex.pd = pd;
	if (rdma_create_srq_ex(id, &ex))
		return -1;
	attr->attr = ex.attr;
	return 0;
}

XCM_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	struct xcm_id *xid;

	if (!id || !id->srq)
		return;
	xid = to_xid(id);
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
	if (xid->srq_cqs) {
		xid->srq_cqs = 0;
		xcm_destroy_recv_cq(id);
	}
}

/* --- connections ---------------------------------------------------------- */

/*
 * rdma_conn_param for the kernel.  @req_init/@req_resp: on accept, the
 * connection request event's initiator_depth and responder_resources
 * (already from our side: its initiator_depth is the peer's responder
 * resources, the most we may initiate), else 0xff.  0xff
 * (RDMA_MAX_INIT_DEPTH, RDMA_MAX_RESP_RES) means "as many as allowed".
 */
static int xcm_conn_to_k(struct xcm_id *xid, struct xib_ucma_conn_param *k,
			 const struct rdma_conn_param *c, unsigned int pdata_max,
			 uint8_t req_init, uint8_t req_resp)
{
	struct xcm_dev *dev = xcm_dev_of(xid->id.verbs);
	unsigned int max_resp = dev ? (unsigned int)dev->attr.max_qp_rd_atom : 0;
	unsigned int max_init = dev ? (unsigned int)dev->attr.max_qp_init_rd_atom : 0;

	memset(k, 0, sizeof(*k));
	if (req_init < max_init)
		max_init = req_init;
	if (req_resp < max_resp)
		max_resp = req_resp;
	if (c) {
		unsigned int resp, init;

		if (c->private_data_len > pdata_max ||
		    (c->private_data_len && !c->private_data)) {
			errno = EINVAL;
			return -1;
		}
		if (c->private_data_len)
			memcpy(k->private_data, c->private_data, c->private_data_len);
		k->private_data_len = c->private_data_len;
		resp = c->responder_resources;
		init = c->initiator_depth;
		if (resp == RDMA_MAX_RESP_RES)
			resp = max_resp;
		if (init == RDMA_MAX_INIT_DEPTH)
			init = max_init;
		if (resp > max_resp || init > max_init) {
			errno = EINVAL;
			return -1;
		}
		k->responder_resources = resp;
		k->initiator_depth = init;
		k->flow_control = c->flow_control;
		k->retry_count = c->retry_count > 7 ? 7 : c->retry_count;
		k->rnr_retry_count = c->rnr_retry_count > 7 ? 7 : c->rnr_retry_count;
		k->srq = c->srq;
		k->qp_num = c->qp_num & 0xffffff;
	} else {
		k->responder_resources = max_resp;
		k->initiator_depth = max_init;
		k->retry_count = 7;
		k->rnr_retry_count = 7;
	}
	if (xid->id.qp) {
		k->qp_num = xid->id.qp->qp_num;
		k->srq = xid->id.qp->srq != NULL;
	}
	pthread_mutex_lock(&xid->lock);
	k->ece_vendor_id = xid->local_ece.vendor_id;
	k->ece_attr_mod = xid->local_ece.options;
	pthread_mutex_unlock(&xid->lock);
	return 0;
}

XCM_EXPORT int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct xib_ucma_connect cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	if (xcm_conn_to_k(xid, &cmd.param, conn_param,
			  id->qp_type == IBV_QPT_UD ? XIB_UCMA_SIDR_PDATA_MAX :
			  XIB_UCMA_CONN_PDATA_MAX, 0xff, 0xff))
		return -1;
	cmd.id = xid->handle;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_CONNECT, &cmd))
		return -1;
	return xcm_complete(xid);
}

XCM_EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	struct xib_ucma_establish cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	if (id->qp && xcm_qp_rtr_rts(xid))
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	return xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_ESTABLISH, &cmd);
}

XCM_EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct xib_ucma_listen cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.backlog = backlog < 0 ? 0 : backlog > XIB_UCMA_MAX_BACKLOG ?
		      XIB_UCMA_MAX_BACKLOG : (uint32_t)backlog;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_LISTEN, &cmd))
		return -1;
	return xcm_query(xid);
}

XCM_EXPORT int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct xib_ucma_accept cmd;
	struct xcm_id *xid;
	int ud, err;

	if (!id || !id->verbs) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	ud = id->qp_type == IBV_QPT_UD;
	memset(&cmd, 0, sizeof(cmd));
	if (xcm_conn_to_k(xid, &cmd.param, conn_param,
			  ud ? XIB_UCMA_SIDR_REP_PDATA_MAX : XIB_UCMA_ACCEPT_PDATA_MAX,
			  ud ? 0xff : xid->initiator_depth,
			  ud ? 0xff : xid->responder_resources))
		return -1;
	if (ud && id->qp)
		cmd.param.qkey = 0;	/* the kernel's Q_Key of the port space */
	/*
	 * RTR and RTS before the REP, as rdma-core does: the QP takes the
	 * peer's first packets, and nothing is left to do once the REP is
	 * out (the peer may have sent its RTU and even its DREQ by the time
	 * the ACCEPT returns).
	 */
	if (!ud && id->qp) {
		pthread_mutex_lock(&xid->qp_lock);
		err = xcm_qp_move_locked(xid, IBV_QPS_RTR,
					 cmd.param.responder_resources);
		if (!err)
			err = xcm_qp_move_locked(xid, IBV_QPS_RTS,
						 cmd.param.initiator_depth);
		pthread_mutex_unlock(&xid->qp_lock);
		if (err)
			goto err_qp;
	}
	cmd.uid = (uintptr_t)xid;
	cmd.id = xid->handle;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_ACCEPT, &cmd))
		goto err_qp;
	if (ud)
		return 0;
	return xcm_complete(xid);

err_qp:
	err = errno;
	(void)xcm_qp_move(xid, IBV_QPS_ERR);
	errno = err;
	return -1;
}

static int xcm_reject(struct rdma_cm_id *id, const void *private_data,
		      uint8_t private_data_len, uint8_t reason, int ece)
{
	struct xib_ucma_reject cmd;
	struct xcm_id *xid;

	if (!id || (private_data_len && !private_data) ||
	    private_data_len > XIB_UCMA_REJECT_PDATA_MAX) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.reason = reason;
	cmd.private_data_len = private_data_len;
	if (private_data_len)
		memcpy(cmd.private_data, private_data, private_data_len);
	if (ece) {
		pthread_mutex_lock(&xid->lock);
		cmd.ece_vendor_id = xid->local_ece.vendor_id;
		cmd.ece_attr_mod = xid->local_ece.options;
		pthread_mutex_unlock(&xid->lock);
	}
	return xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_REJECT, &cmd);
}

XCM_EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data,
			   uint8_t private_data_len)
{
	return xcm_reject(id, private_data, private_data_len, 0, 0);
}

/* A reject saying the ECE options are not supported, with ours. */
XCM_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
			       uint8_t private_data_len)
{
	return xcm_reject(id, private_data, private_data_len,
			  XCM_REJ_VENDOR_OPTION_NOT_SUPPORTED, 1);
}

XCM_EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	struct xib_ucma_disconnect cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	if (xcm_qp_move(xid, IBV_QPS_ERR))
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_DISCONNECT, &cmd))
		return -1;
	return xcm_complete(xid);
}

XCM_EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct xib_ucma_notify cmd;
	struct xcm_id *xid;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.event = event;
	return xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_NOTIFY, &cmd);
}

XCM_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			       void *optval, size_t optlen)
{
	struct xib_ucma_set_option cmd;
	struct xcm_id *xid;
	uint64_t value;

	if (!id) {
		errno = EINVAL;
		return -1;
	}
	if (xcm_option_value(level, optname, optval, optlen, &value))
		return -1;
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.level = level;
	cmd.optname = optname;
	cmd.optlen = optlen;
	cmd.value = value;
	return xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_SET_OPTION, &cmd);
}

/* ECE: only the vendor id and options; comp_mask must be 0. */
XCM_EXPORT int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct xcm_id *xid;

	if (!id || !ece || ece->comp_mask) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	pthread_mutex_lock(&xid->lock);
	xid->local_ece = *ece;
	pthread_mutex_unlock(&xid->lock);
	return 0;
}

XCM_EXPORT int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct xcm_id *xid;

	if (!id || !ece) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	pthread_mutex_lock(&xid->lock);
	*ece = xid->remote_ece;
	pthread_mutex_unlock(&xid->lock);
	return 0;
}

/* --- migration ------------------------------------------------------------ */

/*
 * Moves @xid to @to with XIB_UCMA_MIGRATE_ID, holding both channels'
 * locks (in address order) so that no event of the id is read while it
 * is in neither list.
 */
static int xcm_migrate(struct xcm_id *xid, struct xcm_channel *to)
{
	struct xcm_channel *from = xid->chan;
	struct xcm_channel *first = from < to ? from : to;
	struct xcm_channel *second = from < to ? to : from;
	struct xib_ucma_migrate_id cmd;
	int ret;

	if (from == to)
		return 0;
	memset(&cmd, 0, sizeof(cmd));
	cmd.id = xid->handle;
	cmd.fd = from->ch.fd;
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	ret = xcm_ioctl(to->ch.fd, XIB_UCMA_MIGRATE_ID, &cmd);
	if (!ret) {
		xcm_unlink(from, xid);
		xid->handle = cmd.new_id;
		xcm_link(to, xid);
	}
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
	return ret;
}

XCM_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
			       struct rdma_event_channel *channel)
{
	struct xcm_channel *old, *to;
	struct xcm_id *xid;
	int sync = !channel, was_sync;

	xid = xcm_get_xid(id);
	if (!xid)
		return -1;
	old = xid->chan;
	was_sync = xid->sync;
	if (sync) {
		channel = rdma_create_event_channel();
		if (!channel)
			return -1;
	}
	to = to_xchan(channel);
	if (xcm_migrate(xid, to)) {
		int err = errno;

		if (sync)
			rdma_destroy_event_channel(channel);
		errno = err;
		return -1;
	}
	xid->sync = sync;
	/* the events read from the old channel are the application's to ack */
	xcm_wait_acks(xid);
	if (was_sync && old != to)
		rdma_destroy_event_channel(&old->ch);
	return 0;
}

/* --- multicast ------------------------------------------------------------ */

static int xcm_same_addr(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	struct xib_ucma_addr ka, kb;

	if (xcm_addr_from_sockaddr(&ka, (const struct sockaddr *)a) ||
	    xcm_addr_from_sockaddr(&kb, b))
		return 0;
	return ka.family == kb.family && !memcmp(ka.addr, kb.addr, sizeof(ka.addr));
}

#define XCM_MC_KNOWN (RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS)

XCM_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
				      struct rdma_cm_join_mc_attr_ex *mc_join_attr,
				      void *context)
{
	struct xib_ucma_join_mcast cmd;
	struct xcm_id *xid;
	struct xcm_mc *mc;

	if (!id || !mc_join_attr || (mc_join_attr->comp_mask & ~XCM_MC_KNOWN) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    mc_join_attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	memset(&cmd, 0, sizeof(cmd));
	if (xcm_addr_from_sockaddr(&cmd.addr, mc_join_attr->addr))
		return -1;
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return -1;
	mc->owner = xid;
	mc->context = context;
	memcpy(&mc->addr, mc_join_attr->addr, xcm_sockaddr_len(mc_join_attr->addr));
	cmd.uid = (uintptr_t)mc;
	cmd.id = xid->handle;
	cmd.join_flags = mc_join_attr->join_flags;
	mc->join_flags = mc_join_attr->join_flags;
	/* under the id's lock: the join's event must find the membership */
	pthread_mutex_lock(&xid->lock);
	if (xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_JOIN_MCAST, &cmd)) {
		int err = errno;

		pthread_mutex_unlock(&xid->lock);
		free(mc);
		errno = err;
		return -1;
	}
	mc->handle = cmd.mc_id;
	mc->next = xid->mcs;
	xid->mcs = mc;
	pthread_mutex_unlock(&xid->lock);
	return xcm_complete(xid);
}

XCM_EXPORT int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
				   void *context)
{
	struct rdma_cm_join_mc_attr_ex attr = {
		.comp_mask = XCM_MC_KNOWN,
		.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = addr,
	};

	return rdma_join_multicast_ex(id, &attr, context);
}

XCM_EXPORT int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct xib_ucma_leave_mcast cmd;
	struct xcm_mc **p, *mc = NULL;
	struct xcm_id *xid;

	if (!id || !addr) {
		errno = EINVAL;
		return -1;
	}
	xid = to_xid(id);
	pthread_mutex_lock(&xid->lock);
	for (p = &xid->mcs; *p; p = &(*p)->next)
		if (xcm_same_addr(&(*p)->addr, addr)) {
			mc = *p;
			*p = mc->next;
			break;
		}
	pthread_mutex_unlock(&xid->lock);
	if (!mc) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.mc_id = mc->handle;
	(void)xcm_ioctl(xid->chan->ch.fd, XIB_UCMA_LEAVE_MCAST, &cmd);
	pthread_mutex_lock(&xid->lock);
	while (mc->acked != mc->delivered)
		pthread_cond_wait(&xid->cond, &xid->lock);
	pthread_mutex_unlock(&xid->lock);
	/* no event of @mc is in flight now: @attached is final */
	pthread_mutex_lock(&xid->qp_lock);
	if (mc->attached && id->qp)
		ibv_detach_mcast(id->qp, &mc->mgid, mc->mlid);
	pthread_mutex_unlock(&xid->qp_lock);
	free(mc);
	return 0;
}

/* --- endpoints (rdma_server, rdma_client and their kin) ------------------- */

XCM_EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
			      struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	struct xcm_id *xid;
	enum ibv_qp_type qp_type;
	int err;

	if (id)
		*id = NULL;
	if (!id || !res) {
		errno = EINVAL;
		return -1;
	}
	if (res->ai_qp_type)
		qp_type = res->ai_qp_type;
	else if (xcm_ps_qp_type(res->ai_port_space, &qp_type))
		return -1;
	if (xcm_create(NULL, &cm_id, NULL, res->ai_port_space, qp_type))
		return -1;
	xid = to_xid(cm_id);
	/* the QP is of the endpoint's type, whatever the caller left there */
	if (qp_init_attr)
		qp_init_attr->qp_type = qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		if (rdma_bind_addr(cm_id, res->ai_src_addr))
			goto destroy;
		if (qp_init_attr) {
			xid->ep_attr = malloc(sizeof(*qp_init_attr));
			if (!xid->ep_attr)
				goto destroy;
			*xid->ep_attr = *qp_init_attr;
		}
		cm_id->pd = pd;
	} else {
		if (rdma_resolve_addr(cm_id, res->ai_src_addr, res->ai_dst_addr,
				      XCM_EP_TIMEOUT_MS) ||
		    rdma_resolve_route(cm_id, XCM_EP_TIMEOUT_MS))
			goto destroy;
		if (qp_init_attr && rdma_create_qp(cm_id, pd, qp_init_attr))
			goto destroy;
	}
	*id = cm_id;
	return 0;

destroy:
	err = errno;
	rdma_destroy_ep(cm_id);
	errno = err;
	return -1;
}

XCM_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	struct xcm_id *xid;

	if (!id)
		return;
	xid = to_xid(id);
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq && !xid->borrowed_srq)
		rdma_destroy_srq(id);
	if (xid->own_cqs)
		xcm_destroy_cqs(id);
	rdma_destroy_id(id);
}

XCM_EXPORT int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct xcm_id *lx, *nx;
	struct rdma_cm_event *ev;
	struct xcm_channel *chan;
	struct rdma_event_channel *ch;
	int err;

	if (id)
		*id = NULL;
	if (!listen || !id || !to_xid(listen)->sync) {
		errno = EINVAL;
		return -1;
	}
	lx = to_xid(listen);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	err = xcm_event_errno(ev);
	if (!err && ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		err = EINVAL;
	if (err) {
		rdma_ack_cm_event(ev);
		errno = err;
		return -1;
	}
	nx = to_xid(ev->id);
	/* the new id is synchronous too, on a channel of its own */
	ch = rdma_create_event_channel();
	if (!ch)
		goto reject;
	chan = to_xchan(ch);
	if (xcm_migrate(nx, chan)) {
		err = errno;
		rdma_destroy_event_channel(ch);
		errno = err;
		goto reject;
	}
	nx->sync = 1;
	if (lx->ep_attr) {
		struct ibv_qp_init_attr attr = *lx->ep_attr;

		if (!attr.srq && listen->srq) {
			attr.srq = listen->srq;
			nx->id.srq = listen->srq;
			nx->borrowed_srq = 1;
		}
		if (rdma_create_qp(&nx->id, listen->pd, &attr))
			goto reject;
	}
	nx->id.event = ev;
	*id = &nx->id;
	return 0;

reject:
	err = errno;
	rdma_reject(&nx->id, NULL, 0);
	rdma_ack_cm_event(ev);
	rdma_destroy_ep(&nx->id);
	errno = err;
	return -1;
}
