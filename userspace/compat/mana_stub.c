// SPDX-License-Identifier: BSD-2-Clause
/*
 * libmana.so.1 for xib-run: rdma-core 44's MANA direct-verbs library,
 * every function at its version node (libmana.map), answering as libmana
 * does for a device that is not a MANA device: EOPNOTSUPP.
 *
 * As for libmlx5 (see mlx5_stub.c): objects that link it are BIND_NOW,
 * and the real library needs private libibverbs symbols.  Prototypes are
 * the system's <infiniband/manadv.h>.
 */
#include <errno.h>
#include <stddef.h>

#include <infiniband/manadv.h>

#define XIB_EXPORT __attribute__((visibility("default")))

/* No stub looks at its arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* MANA_1.0 */

XIB_EXPORT int manadv_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

XIB_EXPORT int manadv_set_context_attr(struct ibv_context *ibv_ctx,
				       enum manadv_set_ctx_attr_type type, void *attr)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}
