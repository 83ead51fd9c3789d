// SPDX-License-Identifier: BSD-2-Clause
/*
 * libmlx5.so.1 stub for xib-run.
 *
 * perftest's binaries have DT_NEEDED entries for libmlx5.so.1 and are
 * linked BIND_NOW, so every mlx5dv_* symbol they import must resolve when
 * they load, even though they call it only for Mellanox devices (-c DC,
 * --aes_xts).  The real libmlx5 would need 75 private libibverbs symbols;
 * this stub, in xib's library directory, takes its place.  xib devices
 * are not mlx5 devices, so every function answers as the real libmlx5
 * does for a device that is not its own: NULL or an error with errno (or
 * the returned error) EOPNOTSUPP, false from mlx5dv_is_supported().
 *
 * Prototypes come from the system's <infiniband/mlx5dv.h> (rdma-core 44).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <infiniband/mlx5dv.h>

#define XIB_EXPORT __attribute__((visibility("default")))

/* MLX5_1.0 */
XIB_EXPORT int mlx5dv_query_device(struct ibv_context *ctx_in,
				   struct mlx5dv_context *attrs_out)
{
	(void)ctx_in; (void)attrs_out;
	return EOPNOTSUPP;
}

/* MLX5_1.3 */
XIB_EXPORT struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *qp_attr,
					   struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	(void)context; (void)qp_attr; (void)mlx5_qp_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

/* MLX5_1.7 */
XIB_EXPORT struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
						  struct mlx5dv_context_attr *attr)
{
	(void)device; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

XIB_EXPORT int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	(void)context; (void)in; (void)inlen; (void)out; (void)outlen;
	return EOPNOTSUPP;
}

/* MLX5_1.8 */
XIB_EXPORT bool mlx5dv_is_supported(struct ibv_device *device)
{
	(void)device;
	return false;
}

/* MLX5_1.10 */
XIB_EXPORT struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *mkey_init_attr)
{
	(void)mkey_init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

XIB_EXPORT int mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	(void)mkey;
	return EOPNOTSUPP;
}

/* The real one converts a pointer to an mlx5 QP; no QP here is one. */
XIB_EXPORT struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	(void)qp;
	errno = EOPNOTSUPP;
	return NULL;
}

/* MLX5_1.21 */
XIB_EXPORT int mlx5dv_crypto_login(struct ibv_context *context,
				   struct mlx5dv_crypto_login_attr *login_attr)
{
	(void)context; (void)login_attr;
	return EOPNOTSUPP;
}

XIB_EXPORT struct mlx5dv_dek *mlx5dv_dek_create(struct ibv_context *context,
						struct mlx5dv_dek_init_attr *init_attr)
{
	(void)context; (void)init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

XIB_EXPORT int mlx5dv_dek_destroy(struct mlx5dv_dek *dek)
{
	(void)dek;
	return EOPNOTSUPP;
}
