// SPDX-License-Identifier: BSD-2-Clause
/*
 * librdmacm: rsockets (rsocket, rbind, ...), not implemented yet.
 *
 * Every function exists with rdma-core 44's prototype (checked against
 * <rdma/rsocket.h>) and fails as its documentation says a failure looks:
 * -1 (or (size_t)-1 for riowrite) with errno = ENOSYS.  The first call
 * prints one line on standard error, so that rstream, riostream and
 * rcopy say why they stop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <rdma/rsocket.h>

#include "rdmacm.h"

static pthread_once_t xrs_once = PTHREAD_ONCE_INIT;

static void xrs_say(void)
{
	fputs("xib: rsockets (rsocket, rbind, ...) are not implemented: ENOSYS\n", stderr);
}

static void xrs_enosys(void)
{
	pthread_once(&xrs_once, xrs_say);
	errno = ENOSYS;
}

#define XRS_FAIL	do { xrs_enosys(); return -1; } while (0)

XCM_EXPORT int rsocket(int domain, int type, int protocol)
{
	(void)domain; (void)type; (void)protocol;
	XRS_FAIL;
}

XCM_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT int rlisten(int socket, int backlog)
{
	(void)socket; (void)backlog;
	XRS_FAIL;
}

XCM_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT int rshutdown(int socket, int how)
{
	(void)socket; (void)how;
	XRS_FAIL;
}

XCM_EXPORT int rclose(int socket)
{
	(void)socket;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket; (void)buf; (void)len; (void)flags;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
			     struct sockaddr *src_addr, socklen_t *addrlen)
{
	(void)socket; (void)buf; (void)len; (void)flags; (void)src_addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket; (void)msg; (void)flags;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket; (void)buf; (void)len; (void)flags;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
			   const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket; (void)buf; (void)len; (void)flags; (void)dest_addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket; (void)msg; (void)flags;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	(void)socket; (void)buf; (void)count;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket; (void)iov; (void)iovcnt;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	(void)socket; (void)buf; (void)count;
	XRS_FAIL;
}

XCM_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket; (void)iov; (void)iovcnt;
	XRS_FAIL;
}

XCM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	(void)fds; (void)nfds; (void)timeout;
	XRS_FAIL;
}

XCM_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds,
		       fd_set *exceptfds, struct timeval *timeout)
{
	(void)nfds; (void)readfds; (void)writefds; (void)exceptfds; (void)timeout;
	XRS_FAIL;
}

XCM_EXPORT int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket; (void)addr; (void)addrlen;
	XRS_FAIL;
}

XCM_EXPORT int rsetsockopt(int socket, int level, int optname,
			   const void *optval, socklen_t optlen)
{
	(void)socket; (void)level; (void)optname; (void)optval; (void)optlen;
	XRS_FAIL;
}

XCM_EXPORT int rgetsockopt(int socket, int level, int optname,
			   void *optval, socklen_t *optlen)
{
	(void)socket; (void)level; (void)optname; (void)optval; (void)optlen;
	XRS_FAIL;
}

XCM_EXPORT int rfcntl(int socket, int cmd, ...)
{
	(void)socket; (void)cmd;
	XRS_FAIL;
}

XCM_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
			off_t offset)
{
	(void)socket; (void)buf; (void)len; (void)prot; (void)flags; (void)offset;
	XRS_FAIL;
}

XCM_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	(void)socket; (void)buf; (void)len;
	XRS_FAIL;
}

XCM_EXPORT size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
			   int flags)
{
	(void)socket; (void)buf; (void)count; (void)offset; (void)flags;
	xrs_enosys();
	return (size_t)-1;
}
