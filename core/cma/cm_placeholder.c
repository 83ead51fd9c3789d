// SPDX-License-Identifier: GPL-2.0
/*
 * PLACEHOLDER for the IB CM (include/xib/xib_cm.h), which the madcm work
 * provides in core/cma/cm*.c.  Until it is merged, every call fails with
 * -EOPNOTSUPP so that the RDMA CM builds and reports honestly that
 * connections are not available.  The lead drops this file at merge.
 */

#include <linux/err.h>
#include <xib/xib_cm.h>

struct xib_cm_id *xib_cm_create_id(struct xib_device *dev,
				   xib_cm_handler handler, void *context)
{
	return ERR_PTR(-EOPNOTSUPP);
}

void xib_cm_destroy_id(struct xib_cm_id *id)
{
}

int xib_cm_listen(struct xib_cm_id *id, __be64 service_id, __be64 mask)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_req(struct xib_cm_id *id, const struct xib_cm_req_param *p)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_rep(struct xib_cm_id *id, const struct xib_cm_rep_param *p)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_rtu(struct xib_cm_id *id, const void *private_data, u8 len)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_rej(struct xib_cm_id *id, enum xib_cm_rej_reason reason,
		    const void *ari, u8 ari_len, const void *private_data,
		    u8 len)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_mra(struct xib_cm_id *id, u8 service_timeout,
		    const void *private_data, u8 len)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_dreq(struct xib_cm_id *id, const void *private_data, u8 len)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_drep(struct xib_cm_id *id, const void *private_data, u8 len)
{
	return -EOPNOTSUPP;
}

int xib_cm_establish(struct xib_cm_id *id)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_sidr_req(struct xib_cm_id *id,
			 const struct xib_cm_sidr_req_param *p)
{
	return -EOPNOTSUPP;
}

int xib_cm_send_sidr_rep(struct xib_cm_id *id,
			 const struct xib_cm_sidr_rep_param *p)
{
	return -EOPNOTSUPP;
}

int xib_cm_init_qp_attr(struct xib_cm_id *id, struct xib_uverbs_qp_attr *attr,
			u32 *mask)
{
	return -EOPNOTSUPP;
}
