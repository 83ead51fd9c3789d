// SPDX-License-Identifier: BSD-2-Clause
/*
 * libefa.so.1 for xib-run: rdma-core 44's EFA direct-verbs library, every
 * function at every version node (libefa.map), answering as libefa does
 * for a device that is not an EFA device.
 *
 * perftest's binaries have a DT_NEEDED entry for libefa.so.1 and are
 * linked BIND_NOW; they call efadv_* only for EFA devices (-c SRD).  The
 * real libefa would need private libibverbs symbols; this library takes
 * its place in xib's library directory: EOPNOTSUPP, or NULL with errno
 * EOPNOTSUPP.
 *
 * Prototypes come from the system's <infiniband/efadv.h> (rdma-core 44),
 * so the compiler checks every signature.
 */
#include <errno.h>
#include <stddef.h>

#include <infiniband/efadv.h>

#define XIB_EXPORT __attribute__((visibility("default")))

/* EFA_1.0 */
XIB_EXPORT struct ibv_qp *efadv_create_driver_qp(struct ibv_pd *ibvpd,
						 struct ibv_qp_init_attr *attr,
						 uint32_t driver_qp_type)
{
	(void)ibvpd; (void)attr; (void)driver_qp_type;
	errno = EOPNOTSUPP;
	return NULL;
}

/* EFA_1.1 */
XIB_EXPORT int efadv_query_device(struct ibv_context *ibvctx,
				  struct efadv_device_attr *attr,
				  uint32_t inlen)
{
	(void)ibvctx; (void)attr; (void)inlen;
	return EOPNOTSUPP;
}

XIB_EXPORT struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx,
					     struct ibv_qp_init_attr_ex *attr_ex,
					     struct efadv_qp_init_attr *efa_attr,
					     uint32_t inlen)
{
	(void)ibvctx; (void)attr_ex; (void)efa_attr; (void)inlen;
	errno = EOPNOTSUPP;
	return NULL;
}

XIB_EXPORT int efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr,
			      uint32_t inlen)
{
	(void)ibvah; (void)attr; (void)inlen;
	return EOPNOTSUPP;
}

/* EFA_1.2 */
XIB_EXPORT struct ibv_cq_ex *efadv_create_cq(struct ibv_context *ibvctx,
					     struct ibv_cq_init_attr_ex *attr_ex,
					     struct efadv_cq_init_attr *efa_attr,
					     uint32_t inlen)
{
	(void)ibvctx; (void)attr_ex; (void)efa_attr; (void)inlen;
	errno = EOPNOTSUPP;
	return NULL;
}

/* No CQ here was made by efadv_create_cq(). */
XIB_EXPORT struct efadv_cq *efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	(void)ibvcqx;
	errno = EOPNOTSUPP;
	return NULL;
}
