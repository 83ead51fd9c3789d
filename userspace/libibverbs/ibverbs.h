/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xib's libibverbs.so.1: private definitions.
 *
 * Every object handed to the application is the public rdma-core 44
 * structure (<infiniband/verbs.h>) at the start of a container that also
 * holds the libxib object behind it.  The application only ever sees the
 * public part; the header inlines it was compiled with (ibv_post_send,
 * ibv_poll_cq, ibv_query_port, ...) reach us through the function
 * pointers of struct ibv_context and struct verbs_context.
 */
#ifndef XIB_IBVERBS_H
#define XIB_IBVERBS_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdint.h>

#include "xib.h"

/* Exported entry points are defined under the names verbs.h declares. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

/* Equal values of two enum types (for _Static_assert). */
#define XV_SAME(a, b) ((int)(a) == (int)(b))

#define XV_EXPORT __attribute__((visibility("default")))

/* A device of the caller's namespace, as the last scan saw it. */
struct xv_device {
	struct ibv_device dev;		/* what the application sees */
	uint64_t node_guid;		/* host order, from netlink */
	uint32_t index;			/* xib device index */
	char uverbs_path[96];		/* /dev/xib/uverbsN */
	unsigned int refcnt;		/* under xv_dev_lock */
	int listed;			/* in the last scan: the scan's reference */
	struct xv_device *next;
};

struct xv_context {
	struct verbs_context vctx;	/* must be first: vctx.context at +320 */
	struct xib_context *x;
	struct xv_device *dev;
};

struct xv_td {
	struct ibv_td td;
	unsigned int users;		/* parent domains on it (atomic) */
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain):
 * then @protection is the PD it extends and @x is that PD's, so every
 * verb that takes a PD works on either.  @users counts what would dangle
 * if this went: for a PD its parent domains (the kernel counts the rest),
 * for a parent domain every object created on it.
 */
struct xv_pd {
	struct ibv_pd pd;
	struct xib_pd *x;
	struct xv_pd *protection;	/* parent domain: its PD, else NULL */
	struct xv_td *td;		/* parent domain: its thread domain or NULL */
	void *pd_context;		/* IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT */
	unsigned int users;		/* atomic */
};

struct xv_mr {
	struct ibv_mr mr;
	struct xib_mr *x;
};

struct xv_mw {
	struct ibv_mw mw;
	struct xib_mw *x;
};

struct xv_channel {
	struct ibv_comp_channel ch;
	struct xib_comp_channel *x;
};

/*
 * A CQ.  struct ibv_cq_ex begins with the fields of struct ibv_cq (what
 * ibv_cq_ex_to_cq() relies on; asserted in extended.c), so one container
 * serves ibv_create_cq and ibv_create_cq_ex.  @cur is the completion
 * between ibv_start_poll() and ibv_end_poll(), under @poll_lock.
 */
struct xv_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cqx;
	};
	struct xib_cq *x;
	struct ibv_pd *parent;		/* IBV_CQ_INIT_ATTR_MASK_PD, held */
	uint64_t wc_flags;		/* the ibv_create_cq_wc_flags asked for */
	int single_threaded;		/* @poll_lock not taken */
	pthread_spinlock_t poll_lock;
	xib_wc cur;
};

struct xv_srq {
	struct ibv_srq srq;
	struct xib_srq *x;
	uint32_t max_sge;
	struct ibv_xrcd *xrcd;		/* XRC SRQ: its domain */
};

/* An open XRC domain (ibv_open_xrcd). */
/* A registration with an XRC receive QP (the seed's ibv_reg_xrc_rcv_qp). */
struct xv_xrc_reg {
	struct xv_xrc_reg *next;
	struct ibv_qp *qp;	/* a handle to the target (ibv_open_qp) */
};

struct xv_xrcd {
	struct ibv_xrcd xrcd;
	struct xib_xrcd *x;
	pthread_mutex_t lock;		/* protects @regs */
	struct xv_xrc_reg *regs;	/* the legacy calls' registrations */
};

/*
 * A QP; struct ibv_qp_ex begins with the struct ibv_qp.  @wr is the work
 * request the ibv_wr_* calls are building (its SGEs in @sges, inline data
 * in @inl) between ibv_wr_start() and ibv_wr_complete()/_abort(); the
 * send queue's lock is held from a successful start (@wr_locked) to the
 * end; @wr_err is the batch's first error.
 */
struct xv_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qpx;
	};
	struct xib_qp *x;
	uint8_t port_num;		/* last set through modify (AV checks) */
	int is_ex;			/* made with send_ops_flags */
	int wr_locked;
	int wr_open;			/* @wr is begun and not yet put */
	int wr_err;
	struct xib_send_wr wr;
	struct xib_sge *sges;		/* max_send_sge entries */
	uint8_t *inl;			/* max_inline_data bytes */
	struct xib_sge inl_sge;
};

struct xv_ah {
	struct ibv_ah ah;
	struct xib_ah *x;
};

static inline struct xv_context *to_xctx(struct ibv_context *c)
{
	return (struct xv_context *)((char *)c - offsetof(struct xv_context, vctx.context));
}

#define XV_CONTAINER(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline struct xv_pd *to_xpd(struct ibv_pd *p)
{
	return XV_CONTAINER(p, struct xv_pd, pd);
}

static inline struct xv_mr *to_xmr(struct ibv_mr *p)
{
	return XV_CONTAINER(p, struct xv_mr, mr);
}

static inline struct xv_mw *to_xmw(struct ibv_mw *p)
{
	return XV_CONTAINER(p, struct xv_mw, mw);
}

static inline struct xv_cq *to_xcq(struct ibv_cq *p)
{
	return XV_CONTAINER(p, struct xv_cq, cq);
}

static inline struct xv_srq *to_xsrq(struct ibv_srq *p)
{
	return XV_CONTAINER(p, struct xv_srq, srq);
}

static inline struct xv_qp *to_xqp(struct ibv_qp *p)
{
	return XV_CONTAINER(p, struct xv_qp, qp);
}

static inline struct xv_ah *to_xah(struct ibv_ah *p)
{
	return XV_CONTAINER(p, struct xv_ah, ah);
}

static inline struct xv_channel *to_xch(struct ibv_comp_channel *p)
{
	return XV_CONTAINER(p, struct xv_channel, ch);
}

static inline struct xv_td *to_xtd(struct ibv_td *p)
{
	return XV_CONTAINER(p, struct xv_td, td);
}

static inline struct xv_cq *to_xcqx(struct ibv_cq_ex *p)
{
	return XV_CONTAINER(p, struct xv_cq, cqx);
}

static inline struct xv_qp *to_xqpx(struct ibv_qp_ex *p)
{
	return XV_CONTAINER(p, struct xv_qp, qpx);
}

/* libxib returns negative errnos; the verbs return positive ones. */
static inline int xv_err(int ret)
{
	return ret < 0 ? -ret : ret;
}

/* Set errno from a libxib return and give NULL, for constructors. */
static inline void *xv_null(int ret)
{
	errno = xv_err(ret) ? xv_err(ret) : EINVAL;
	return NULL;
}

/* device.c */
void xv_device_put(struct xv_device *d);
void xv_device_get(struct xv_device *d);

/* datapath.c */
int xv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int xv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int xv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int xv_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc);
int xv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* verbs.c: the verbs_context operations */
int xv_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
		     size_t attr_len);
struct ibv_srq *xv_create_srq_ex_op(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr);
int xv_get_srq_num_op(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_xrcd *xv_open_xrcd_op(struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr);
int xv_close_xrcd_op(struct ibv_xrcd *xrcd);

/* verbs.c, for extended.c */
void xv_pd_hold(struct ibv_pd *pd);
struct ibv_mw *xv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int xv_dealloc_mw(struct ibv_mw *mw);
int xv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
int xv_post_bind(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr,
		 int type1);
void xv_pd_unhold(struct ibv_pd *pd);
struct xv_cq *xv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			   struct ibv_comp_channel *channel, int comp_vector);
struct xv_qp *xv_create_qp(struct ibv_context *ctx, struct ibv_pd *pd,
			   struct ibv_qp_init_attr *init);

/* extended.c: the extended verbs_context operations */
int xv_query_device_ex_op(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
struct ibv_qp *xv_create_qp_ex_op(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *xv_open_qp_op(struct ibv_context *ctx, struct ibv_qp_open_attr *attr);
struct xv_qp *xv_tgt_qp(struct ibv_context *ctx, struct ibv_xrcd *xrcd, uint32_t qpn,
			void *qp_context);
struct ibv_cq_ex *xv_create_cq_ex_op(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr);
struct ibv_td *xv_alloc_td_op(struct ibv_context *ctx, struct ibv_td_init_attr *attr);
int xv_dealloc_td_op(struct ibv_td *td);
struct ibv_pd *xv_alloc_parent_domain_op(struct ibv_context *ctx,
					 struct ibv_parent_domain_init_attr *attr);
int xv_dealloc_parent_domain(struct xv_pd *pd);
void xv_qp_ex_free(struct xv_qp *qp);

/* Private rdma-core 44 entry point (IBVERBS_PRIVATE_34), from driver.h. */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

#endif /* XIB_IBVERBS_H */
