/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rsockets: the library's private state (rsocket.c: table, stream
 * sockets, rpoll, options; rsocket_dgram.c: datagram sockets).
 *
 * Only the public rdma_cm and verbs API is used, so the same sources
 * also build against the system's librdmacm (the wire tests do that).
 *
 * Locking (per rsocket):
 *   slock  serialises senders (rsend and friends, riowrite);
 *   rlock  serialises receivers (rrecv and friends);
 *   lock   guards everything else: state, credits, queues, rings, the
 *          CQ and the CM channel.  Taken after slock/rlock, never before.
 * A thread that must sleep holds the "waiter" role (@waiting) and sleeps
 * in poll() on @fd with @lock released; other sleepers wait on @cond for
 * @wake_gen to change.  Whoever consumes an fd event while a waiter
 * sleeps kicks @kick_fd so that it re-checks.
 * The descriptor table maps fds to rsockets under its own mutex; an
 * rsocket's lifetime is the application's business (rclose must not race
 * other calls on the same rsocket), as with rdma-core.
 */
#ifndef XIB_RSOCKET_INT_H
#define XIB_RSOCKET_INT_H

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rsocket_wire.h"

#define XRS_EXPORT __attribute__((visibility("default")))

enum xrs_state {
	XRS_INIT,
	XRS_BOUND,
	XRS_LISTENING,
	XRS_RESOLVING_ADDR,
	XRS_RESOLVING_ROUTE,
	XRS_CONNECTING,
	XRS_ACCEPTING,		/* a listener's child until ESTABLISHED */
	XRS_CONNECTED,		/* see @rd / @wr */
	XRS_CONNECT_ERROR,
	XRS_DISCONNECTED,
	XRS_ERROR,
	XRS_DGRAM,		/* datagram socket with its endpoint made */
};

union xrs_addr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr_storage ss;
};

struct xrs_iomr {
	struct xrs_iomr *next;
	struct ibv_mr *mr;
	uint64_t offset;
	int slot;		/* remote io-map slot, -1 for a local-only map */
	int sent;		/* the peer was told */
};

struct xrs_dgram;

struct xrs {
	int fd;			/* handed to the application: our epoll fd */
	int kick_fd;		/* eventfd in @fd's set: wakes the waiter */
	int type;
	int domain;
	pthread_mutex_t slock;
	pthread_mutex_t rlock;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int waiting;
	unsigned int wake_gen;

	enum xrs_state state;
	int rd, wr;		/* XRS_CONNECTED: may still read / write */
	int err;		/* SO_ERROR */
	int fd_flags;
	uint64_t so_opts, tcp_opts, ipv6_opts;
	unsigned int keepalive_time;

	/* sizes, settable before the endpoint exists */
	uint32_t sbuf_size;
	uint32_t rbuf_size;
	uint16_t sq_size;
	uint16_t rq_size;
	uint16_t sq_inline;
	unsigned int iomap_size;	/* our table's slots, rounded */
	void *route;
	size_t route_len;
	int retries;

	/* stream: CM */
	struct rdma_event_channel *cmch;
	struct rdma_cm_id *id;
	struct xrs *parent;		/* a listener's child: its listener */
	struct xrs *pending;		/* listener: children being accepted */
	struct xrs *ready;		/* listener: children to hand out */
	struct xrs *next;		/* on a listener's list */
	struct xrs *ready_tail;

	/* stream: data path */
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	int cq_armed;
	unsigned int unacked;
	unsigned int ctrl_seq, ctrl_max;
	uint16_t sseq, sseq_limit;	/* data messages sent, limit granted */
	uint16_t rseq, rseq_comp;	/* data messages consumed, next grant point */
	int swap;			/* the peer's byte order differs */
	struct xrs_sge remote_sgl;	/* the peer's grant table; length = slots */
	int remote_slot;
	struct xrs_sge remote_iomap;	/* the peer's io-map table; length = slots */
	uint8_t *tbuf;			/* our grant table + io-map table */
	size_t tbuf_len;
	struct ibv_mr *tmr;
	int tslot;			/* grant slot we write into next */
	uint8_t *rbuf;
	struct ibv_mr *rmr;
	uint32_t r_avail;		/* freed ring bytes not yet granted */
	uint32_t r_grant;		/* offset of the next half to grant */
	uint32_t r_off;			/* read position */
	uint32_t *rq;			/* lengths of received data messages */
	int rq_head, rq_tail;
	uint8_t *sbuf;
	struct ibv_mr *smr;
	uint32_t s_avail;
	uint32_t s_head;		/* next free byte of the send ring */
	int sqe_avail;
	struct xrs_iomr *iomaps;	/* registered with riomap */
	struct xrs_iomr **remote_slots;	/* slot -> mapping, remote_iomap.length */
	int iomap_pending;

	struct xrs_dgram *dg;		/* datagram sockets */
};

/* rsocket.c, shared with rsocket_dgram.c */
struct xrs *xrs_new(int type, int domain);
void xrs_free_common(struct xrs *rs);
int xrs_table_set(struct xrs *rs);
int xrs_epoll_add(struct xrs *rs, int fd);
void xrs_epoll_del(struct xrs *rs, int fd);
int xrs_set_nonblock(int fd);
void xrs_note_event(struct xrs *rs);
void xrs_drain_kick(struct xrs *rs);
int xrs_wait(struct xrs *rs, int nonblock, int (*test)(struct xrs *rs));
int xrs_err(int e);
extern uint16_t xrs_def_sqsize, xrs_def_rqsize, xrs_def_inline;
extern uint32_t xrs_def_mem, xrs_def_wmem;

/* rsocket_dgram.c */
int xds_init(struct xrs *rs);
void xds_free(struct xrs *rs);
int xds_bind(struct xrs *rs, const struct sockaddr *addr, socklen_t len);
int xds_connect(struct xrs *rs, const struct sockaddr *addr, socklen_t len);
ssize_t xds_sendto(struct xrs *rs, const struct iovec *iov, int iovcnt, int flags,
		   const struct sockaddr *to, socklen_t tolen);
ssize_t xds_recvfrom(struct xrs *rs, void *buf, size_t len, int flags,
		     struct sockaddr *from, socklen_t *fromlen);
short xds_poll(struct xrs *rs, short events, int arm);
int xds_getname(struct xrs *rs, struct sockaddr *addr, socklen_t *len, int peer);
int xds_setsockopt(struct xrs *rs, int level, int name, const void *val, socklen_t len);
void xds_close(struct xrs *rs);
void xds_progress(struct xrs *rs);
int xds_arm(struct xrs *rs);

#endif /* XIB_RSOCKET_INT_H */
