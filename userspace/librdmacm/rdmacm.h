/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xib's librdmacm.so.1: private definitions.
 *
 * Every object handed to the application is rdma-core 44's public
 * structure (<rdma/rdma_cma.h>) at the start of a container holding
 * what the library needs besides; the kernel side is /dev/xib/rdma_cm
 * (<uapi/xib/ucma.h>), one open file per event channel.
 */
#ifndef XIB_RDMACM_H
#define XIB_RDMACM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "xib/ucma.h"

#define XCM_EXPORT __attribute__((visibility("default")))
#define XCM_DEV_PATH "/dev/xib/rdma_cm"

#define XCM_CONTAINER(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct xcm_id;

/*
 * An event channel: the file, and the ids whose events arrive on it
 * (found by the kernel's handle, never by a pointer the kernel echoes).
 * @ids and every id's @next are under @lock.
 */
struct xcm_channel {
	struct rdma_event_channel ch;
	pthread_mutex_t lock;
	struct xcm_id *ids;
};

/* A multicast membership of an id; the id's @mcs list, under its @lock. */
struct xcm_mc {
	struct xcm_mc *next;
	struct xcm_id *owner;
	void *context;
	struct sockaddr_storage addr;
	uint32_t handle;		/* the kernel's mc_id */
	uint32_t join_flags;		/* RDMA_MC_JOIN_FLAG_* */
	union ibv_gid mgid;		/* attached to the id's QP */
	uint16_t mlid;
	int attached;
	unsigned int delivered;		/* events handed out, under owner->lock */
	unsigned int acked;
};

/*
 * An rdma_cm_id.  @delivered counts the events the library handed out
 * for the id and @acked those the application acknowledged; destroy
 * waits on @cond until they are equal.  Both, @mcs and the ECE values
 * are under @lock.  @handle changes only in rdma_migrate_id, which the
 * application may not race with other calls on the id.
 *
 * @qp_lock guards id.qp and @own_cqs against rdma_get_cm_event: the
 * library moves the QP of an event's id (CONNECT_RESPONSE, REJECTED,
 * DISCONNECTED, ...) in whatever thread reads the event, while another
 * may be in rdma_destroy_qp on that id (cmtime: rdma_disconnect then
 * rdma_destroy_qp, its event thread taking the DISCONNECTED meanwhile).
 * Every library use of id.qp holds it from reading the pointer to the
 * last verb on the QP; rdma_create_qp and rdma_destroy_qp set id.qp only
 * under it (the QP is destroyed once id.qp no longer names it).  Taken
 * after @lock or chan->lock is released, never with them.
 */
struct xcm_id {
	struct rdma_cm_id id;
	struct xcm_channel *chan;
	struct xcm_id *next;		/* chan->ids, under chan->lock */
	uint32_t handle;
	int sync;			/* NULL channel: a private one, calls wait */
	int own_cqs;			/* rdma_create_qp made the CQs; qp_lock */
	int borrowed_srq;		/* rdma_get_request: the listener's SRQ */
	int srq_cqs;			/* rdma_create_srq made the XRC SRQ's CQ */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t qp_lock;
	unsigned int delivered;
	unsigned int acked;
	struct xcm_mc *mcs;
	struct ibv_ece local_ece;
	struct ibv_ece remote_ece;
	uint8_t initiator_depth;	/* of the last connection request */
	uint8_t responder_resources;
	struct ibv_qp_init_attr *ep_attr;	/* rdma_create_ep, passive */
};

/*
 * An event as handed out: the public event, its private data, and what
 * rdma_ack_cm_event must account.
 */
struct xcm_event {
	struct rdma_cm_event ev;
	struct xcm_id *owner;		/* the event's id */
	struct xcm_id *listener;	/* CONNECT_REQUEST: the listener */
	struct xcm_mc *mc;		/* multicast events */
	uint8_t private_data[XIB_UCMA_MAX_PRIVATE_DATA];
};

/* util.c: what rdma_set_option accepts, as the SET_OPTION value. */
int xcm_option_value(int level, int optname, const void *optval, size_t optlen,
		     uint64_t *value);

/* util.c: sockaddr <-> struct xib_ucma_addr; -1 with errno if unusable. */
int xcm_addr_from_sockaddr(struct xib_ucma_addr *dst, const struct sockaddr *sa);
void xcm_addr_to_sockaddr(struct sockaddr_storage *dst, const struct xib_ucma_addr *src);
socklen_t xcm_sockaddr_len(const struct sockaddr *sa);

#endif /* XIB_RDMACM_H */
