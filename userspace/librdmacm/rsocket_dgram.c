// SPDX-License-Identifier: BSD-2-Clause
/* rsockets: datagram sockets (placeholder while streams are brought up). */
#include <errno.h>
#include "rsocket_int.h"

int xds_init(struct xrs *rs) { (void)rs; return xrs_err(ENOTSUP); }
void xds_free(struct xrs *rs) { xrs_free_common(rs); }
int xds_bind(struct xrs *rs, const struct sockaddr *a, socklen_t l) { (void)rs; (void)a; (void)l; return xrs_err(ENOTSUP); }
int xds_connect(struct xrs *rs, const struct sockaddr *a, socklen_t l) { (void)rs; (void)a; (void)l; return xrs_err(ENOTSUP); }
ssize_t xds_sendto(struct xrs *rs, const struct iovec *iov, int n, int f, const struct sockaddr *t, socklen_t tl) { (void)rs; (void)iov; (void)n; (void)f; (void)t; (void)tl; return xrs_err(ENOTSUP); }
ssize_t xds_recvfrom(struct xrs *rs, void *b, size_t l, int f, struct sockaddr *fr, socklen_t *fl) { (void)rs; (void)b; (void)l; (void)f; (void)fr; (void)fl; return xrs_err(ENOTSUP); }
short xds_poll(struct xrs *rs, short e, int a) { (void)rs; (void)e; (void)a; return 0; }
int xds_getname(struct xrs *rs, struct sockaddr *a, socklen_t *l, int p) { (void)rs; (void)a; (void)l; (void)p; return xrs_err(ENOTSUP); }
int xds_setsockopt(struct xrs *rs, int lv, int n, const void *v, socklen_t l) { (void)rs; (void)lv; (void)n; (void)v; (void)l; return xrs_err(ENOTSUP); }
void xds_close(struct xrs *rs) { xds_free(rs); }
