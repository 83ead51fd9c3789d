// SPDX-License-Identifier: BSD-2-Clause
/*
 * libmlx4.so.1 for xib-run: rdma-core 44's mlx4 direct-verbs library,
 * every function at its version node (libmlx4.map), answering as libmlx4
 * does for a device that is not an mlx4 device: EOPNOTSUPP, or NULL with
 * errno EOPNOTSUPP.
 *
 * Debian objects link it (DPDK's mlx4 driver) and are linked BIND_NOW,
 * like the users of libmlx5 (see mlx5_stub.c); the real library needs
 * private libibverbs symbols xib's libibverbs does not have.
 * Prototypes are the system's <infiniband/mlx4dv.h>.
 */
#include <errno.h>
#include <stddef.h>

#include <infiniband/mlx4dv.h>

#define XIB_EXPORT __attribute__((visibility("default")))

/* No stub looks at its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* MLX4_1.0 */

XIB_EXPORT struct ibv_qp *mlx4dv_create_qp(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *attr,
					   struct mlx4dv_qp_init_attr *mlx4_qp_attr)
{
	errno = EOPNOTSUPP;
	return NULL;
}

XIB_EXPORT int mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

XIB_EXPORT int mlx4dv_query_device(struct ibv_context *ctx_in,
				   struct mlx4dv_context *attrs_out)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

XIB_EXPORT int mlx4dv_set_context_attr(struct ibv_context *context,
				       enum mlx4dv_set_ctx_attr_type attr_type,
				       void *attr)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}
