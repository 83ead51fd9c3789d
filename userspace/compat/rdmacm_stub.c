// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm.so.1 placeholder.
 *
 * PLACEHOLDER until the RDMA CM issue: xib's RDMA connection manager
 * (xib_cma, xib_ucma) has no user-space library yet.  This file exports
 * every symbol of rdma-core 44's librdmacm.so.1 (version nodes RDMACM_1.0
 * to RDMACM_1.3, 68 symbols, see librdmacm.map) so that programs linked
 * against librdmacm (perftest, rping, rstream, ...) load under xib-run
 * (every import is bound at load time: the Debian binaries are BIND_NOW)
 * and fail cleanly, with a message, when they actually use the CM.
 *
 * Every function fails as its documentation says a failure looks: -1 (or
 * NULL, or (size_t)-1) with errno = ENOSYS; functions returning nothing do
 * nothing.  The first call prints one line on standard error.  The only
 * function that works is rdma_event_str(), which needs no CM.
 *
 * Prototypes come from the system's <rdma/rdma_cma.h> and
 * <rdma/rsocket.h> (librdmacm-dev 44), so the compiler checks that each
 * definition matches the ABI programs were built against.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#define XIB_EXPORT __attribute__((visibility("default")))

static pthread_once_t xib_cm_once = PTHREAD_ONCE_INIT;

static void xib_cm_say(void)
{
	fputs("xib: librdmacm is not implemented yet (RDMA CM comes with the rdma_cm issue)\n",
	      stderr);
}

/* Note the first use and set errno: every failing stub goes through here. */
static void xib_cm_enosys(void)
{
	pthread_once(&xib_cm_once, xib_cm_say);
	errno = ENOSYS;
}

#define XIB_FAIL_INT	do { xib_cm_enosys(); return -1; } while (0)
#define XIB_FAIL_PTR	do { xib_cm_enosys(); return NULL; } while (0)

/* --- RDMACM_1.0: the connection manager --------------------------------- */

XIB_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	XIB_FAIL_PTR;
}

XIB_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	(void)channel;
}

XIB_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
			      struct rdma_cm_id **id, void *context,
			      enum rdma_port_space ps)
{
	(void)channel; (void)context; (void)ps;
	if (id)
		*id = NULL;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
			      struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	(void)res; (void)pd; (void)qp_init_attr;
	if (id)
		*id = NULL;
	XIB_FAIL_INT;
}

XIB_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	(void)id;
}

XIB_EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	(void)id;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id; (void)addr;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
				 struct sockaddr *dst_addr, int timeout_ms)
{
	(void)id; (void)src_addr; (void)dst_addr; (void)timeout_ms;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)id; (void)timeout_ms;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr)
{
	(void)id; (void)pd; (void)qp_init_attr;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				 struct ibv_qp_init_attr_ex *qp_init_attr)
{
	(void)id; (void)qp_init_attr;
	XIB_FAIL_INT;
}

XIB_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	(void)id;
}

XIB_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	(void)id; (void)pd; (void)attr;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				  struct ibv_srq_init_attr_ex *attr)
{
	(void)id; (void)attr;
	XIB_FAIL_INT;
}

XIB_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	(void)id;
}

XIB_EXPORT int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id; (void)conn_param;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id; (void)backlog;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	(void)listen;
	if (id)
		*id = NULL;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id; (void)conn_param;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data,
			   uint8_t private_data_len)
{
	(void)id; (void)private_data; (void)private_data_len;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id; (void)event;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
				   void *context)
{
	(void)id; (void)addr; (void)context;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id; (void)addr;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				 struct rdma_cm_event **event)
{
	(void)channel;
	if (event)
		*event = NULL;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	(void)event;
	XIB_FAIL_INT;
}

/* No id can exist, so no port: 0, as for an unbound id. */
XIB_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	(void)id;
	xib_cm_enosys();
	return 0;
}

XIB_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	(void)id;
	xib_cm_enosys();
	return 0;
}

XIB_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	if (num_devices)
		*num_devices = 0;
	XIB_FAIL_PTR;
}

XIB_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	(void)list;
}

/* Pure table lookup, as librdmacm's: works without a CM. */
XIB_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]))
		return names[event];
	return "UNKNOWN EVENT";
}

XIB_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			       void *optval, size_t optlen)
{
	(void)id; (void)level; (void)optname; (void)optval; (void)optlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
			       struct rdma_event_channel *channel)
{
	(void)id; (void)channel;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
				const struct rdma_addrinfo *hints,
				struct rdma_addrinfo **res)
{
	(void)node; (void)service; (void)hints;
	if (res)
		*res = NULL;
	XIB_FAIL_INT;
}

/* Nothing was ever allocated: freeing is a no-op (NULL included). */
XIB_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	(void)res;
}

/* --- RDMACM_1.0: rsockets ----------------------------------------------- */

XIB_EXPORT int rsocket(int domain, int type, int protocol)
{
	(void)domain; (void)type; (void)protocol;
	XIB_FAIL_INT;
}

XIB_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rlisten(int socket, int backlog)
{
	(void)socket; (void)backlog;
	XIB_FAIL_INT;
}

XIB_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rshutdown(int socket, int how)
{
	(void)socket; (void)how;
	XIB_FAIL_INT;
}

XIB_EXPORT int rclose(int socket)
{
	(void)socket;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket; (void)buf; (void)len; (void)flags;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
			     struct sockaddr *src_addr, socklen_t *addrlen)
{
	(void)socket; (void)buf; (void)len; (void)flags; (void)src_addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket; (void)msg; (void)flags;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket; (void)buf; (void)len; (void)flags;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
			   const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket; (void)buf; (void)len; (void)flags; (void)dest_addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket; (void)msg; (void)flags;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	(void)socket; (void)buf; (void)count;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket; (void)iov; (void)iovcnt;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	(void)socket; (void)buf; (void)count;
	XIB_FAIL_INT;
}

XIB_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket; (void)iov; (void)iovcnt;
	XIB_FAIL_INT;
}

XIB_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	(void)fds; (void)nfds; (void)timeout;
	XIB_FAIL_INT;
}

XIB_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds,
		       fd_set *exceptfds, struct timeval *timeout)
{
	(void)nfds; (void)readfds; (void)writefds; (void)exceptfds; (void)timeout;
	XIB_FAIL_INT;
}

XIB_EXPORT int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rsetsockopt(int socket, int level, int optname,
			   const void *optval, socklen_t optlen)
{
	(void)socket; (void)level; (void)optname; (void)optval; (void)optlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rgetsockopt(int socket, int level, int optname,
			   void *optval, socklen_t *optlen)
{
	(void)socket; (void)level; (void)optname; (void)optval; (void)optlen;
	XIB_FAIL_INT;
}

XIB_EXPORT int rfcntl(int socket, int cmd, ...)
{
	(void)socket; (void)cmd;
	XIB_FAIL_INT;
}

XIB_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
			off_t offset)
{
	(void)socket; (void)buf; (void)len; (void)prot; (void)flags; (void)offset;
	XIB_FAIL_INT;
}

XIB_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	(void)socket; (void)buf; (void)len;
	XIB_FAIL_INT;
}

XIB_EXPORT size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
			   int flags)
{
	(void)socket; (void)buf; (void)count; (void)offset; (void)flags;
	xib_cm_enosys();
	return (size_t)-1;
}

/* --- RDMACM_1.1 ---------------------------------------------------------- */

XIB_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
				      struct rdma_cm_join_mc_attr_ex *mc_join_attr,
				      void *context)
{
	(void)id; (void)mc_join_attr; (void)context;
	XIB_FAIL_INT;
}

/* --- RDMACM_1.2 ---------------------------------------------------------- */

XIB_EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	(void)id;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
				 int *qp_attr_mask)
{
	(void)id; (void)qp_attr; (void)qp_attr_mask;
	XIB_FAIL_INT;
}

/* --- RDMACM_1.3 ---------------------------------------------------------- */

XIB_EXPORT int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	XIB_FAIL_INT;
}

XIB_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
			       uint8_t private_data_len)
{
	(void)id; (void)private_data; (void)private_data_len;
	XIB_FAIL_INT;
}
