/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libxib: a small user-space library over the xib verbs ABI
 * (<xib/uverbs.h>: the ioctls of /dev/xib/uverbsN; <xib/hca-abi.h>: the
 * rings shared with the HCA).  The drop-in libibverbs wraps it; this is
 * the only copy of the ring code.
 *
 * Conventions
 * - Functions return 0 or a negative errno; constructors fill *out.
 *   xib_post_send/xib_post_recv/xib_post_srq_recv return 0 or a positive
 *   errno and set *bad_wr, as ibv_post_send does; xib_poll_cq returns the
 *   number of completions or a negative errno.
 * - Enum and flag values are those of libibverbs (see uverbs.h).
 * - Thread safety: each QP's send and receive queue, each SRQ and each CQ
 *   has its own lock; posting to different queues runs in parallel.
 *   Creating and destroying objects may run in parallel with each other;
 *   destroying an object while another thread uses it is the caller's bug.
 *   xib_qp_set_single_threaded()/xib_cq_set_single_threaded(), right
 *   after creation, promise that one thread at a time uses the object:
 *   its locks are then not taken (thread domains).
 *
 * Posting checks for a free slot itself (prod - cons < slots, cons loaded
 * with acquire semantics) and fails with ENOMEM when the queue is full.
 * Send posts make a system call only if the HCA's engine sleeps (the
 * kick protocol of hca-abi.h), so a busy queue posts without any.
 *
 * Posting to a QP whose last state set through xib_modify_qp() is below
 * RTS (sends) or RESET (receives) fails with EINVAL and writes nothing,
 * as rdma_rxe does.  A send with XIB_SEND_INLINE whose total length is
 * above the QP's granted max_inline_data fails with EINVAL; so does a
 * WR with more SGEs than the granted max_send_sge/max_recv_sge.
 */
#ifndef XIB_H
#define XIB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <xib/hca-abi.h>
#include <xib/uverbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One mapped ring: header page then slots * stride bytes. */
struct xib_ring {
	void *map;		/* the mapping, header first */
	size_t map_size;
	uint32_t slots;		/* a power of two */
	uint32_t stride;
	uint8_t *slot0;		/* map + XIB_HCA_RING_HDR_SIZE */
	uint64_t mmap_offset;	/* where the kernel published it */
};

struct xib_context {
	int fd;			/* /dev/xib/uverbsN */
	int async_fd;		/* struct xib_uverbs_async_event records */
	uint32_t abi_version;
	uint32_t num_comp_vectors;
	const volatile struct xib_hca_db_page *db;
	size_t db_size;
	uint64_t db_offset;	/* mmap offset of the doorbell page */
	/*
	 * The UAR (GET_CONTEXT's db_kind XIB_UVERBS_DB_MMIO): a kick is a
	 * store of uar_value to *uar_db instead of XIB_UVERBS_KICK.  NULL:
	 * kicks are system calls.
	 */
	volatile uint32_t *uar_db;
	void *uar;
	uint32_t uar_value;	/* little-endian, as stored */
	struct xib_uverbs_device_attr attr;	/* QUERY_DEVICE at open */
	/*
	 * Send queues published while the engine was RUNNING that no pass
	 * is known to have seen yet (hca-abi.h, "Doorbell and kick"):
	 * xib_poll_cq() kicks them if the engine makes no step while it
	 * finds its CQ empty stale_after_polls times.  No clock is read: a
	 * clock read can be a system call where the TSC is not usable.  The
	 * lock protects the fields below it; nstale is also read without
	 * it, as a hint.
	 */
	uint32_t stale_after_polls;	/* 0: never kick a RUNNING engine */
	pthread_spinlock_t stale_lock;
	uint32_t nstale;
	uint32_t stale_qp[8];		/* QP handles */
	uint32_t new_passes;		/* db->passes at the newest note */
	uint32_t note_beats;		/* db->beats at the oldest note */
	uint32_t last_beats;		/* db->beats when last looked at */
	uint32_t stale_polls;		/* empty polls since beats last moved */
	uint32_t eager_posts;		/* engine starved: posts that kick at once */
};

struct xib_pd {
	struct xib_context *ctx;
	uint32_t handle;
	uint32_t pdn;
};

struct xib_mr {
	struct xib_pd *pd;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	void *addr;
	uint64_t length;
	uint64_t iova;
	uint32_t access;
};

/* A memory window; rkey as ALLOC_MW returned it (binds change the key). */
struct xib_mw {
	struct xib_pd *pd;
	uint32_t handle;
	uint32_t rkey;
	uint32_t type;		/* enum xib_mw_type */
};

struct xib_comp_channel {
	struct xib_context *ctx;
	int fd;			/* struct xib_uverbs_comp_event records */
};

struct xib_cq {
	struct xib_context *ctx;
	uint64_t user_handle;
	uint32_t handle;
	uint32_t cqn;
	uint32_t cqe;		/* ring.slots */
	struct xib_ring ring;
	struct xib_hca_cq_hdr *hdr;
	pthread_spinlock_t lock;	/* protects cons and arm below */
	uint32_t cons;		/* our copy of hdr->cons (we are its writer) */
	uint32_t arm;		/* our copy of hdr->arm (we are its writer) */
	uint32_t comp_events;	/* events read from the channel */
	int single_threaded;	/* @lock is not taken */
};

/* Send or receive side of a work queue. */
struct xib_wq {
	struct xib_ring ring;
	struct xib_hca_wq_hdr *hdr;
	pthread_spinlock_t lock;	/* protects prod */
	uint32_t prod;		/* our copy of hdr->prod (we are its writer) */
	uint32_t begin_prod;	/* prod at xib_sq_begin() */
	uint32_t max_sge;
	int single_threaded;	/* @lock is not taken */
};

/* An open handle of an XRC domain (shared by inode; see uverbs.h). */
struct xib_xrcd {
	struct xib_context *ctx;
	uint32_t handle;
	uint32_t xrcdn;
};

struct xib_srq {
	struct xib_pd *pd;
	uint32_t srq_type;	/* enum xib_srq_type */
	uint64_t user_handle;
	uint32_t handle;
	uint32_t srqn;
	uint32_t max_wr;
	uint32_t srq_limit;
	struct xib_wq rq;
};

struct xib_qp {
	struct xib_context *ctx;
	struct xib_pd *pd;	/* NULL for an XRC target */
	struct xib_cq *send_cq;
	struct xib_cq *recv_cq;
	struct xib_srq *srq;
	uint64_t user_handle;
	uint32_t handle;
	uint32_t qpn;
	uint32_t qp_type;	/* enum xib_qp_type */
	uint32_t state;		/* last state set through xib_modify_qp */
	uint8_t sq_sig_all;
	struct xib_uverbs_qp_cap cap;	/* granted */
	struct xib_wq sq;
	struct xib_wq rq;	/* no ring with an SRQ */
};

struct xib_ah {
	struct xib_pd *pd;
	uint32_t handle;
	uint32_t ahn;
};

struct xib_qp_init_attr {
	uint64_t user_handle;
	struct xib_cq *send_cq;
	struct xib_cq *recv_cq;
	struct xib_srq *srq;		/* or NULL */
	uint32_t qp_type;		/* enum xib_qp_type */
	int sq_sig_all;
	struct xib_uverbs_qp_cap cap;	/* requested; *qp has the granted */
};

/* A scatter/gather element; that of struct ibv_sge. */
struct xib_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/* A send work request; the fields of struct ibv_send_wr. */
struct xib_send_wr {
	uint64_t wr_id;
	struct xib_send_wr *next;
	struct xib_sge *sg_list;
	int num_sge;
	uint32_t opcode;		/* enum xib_hca_wr_opcode */
	uint32_t send_flags;		/* enum xib_hca_send_flags */
	union {
		uint32_t imm_data;	/* network order */
		uint32_t invalidate_rkey;	/* LOCAL_INV, SEND_WITH_INV */
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct xib_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		/* BIND_MW: the fields of struct xib_hca_send_wqe's bind */
		struct {
			uint64_t addr;
			uint64_t length;
			uint32_t mw_rkey;
			uint32_t new_rkey;
			uint32_t mr_lkey;
			uint32_t access;
			uint32_t flags;	/* enum xib_hca_bind_flags */
		} bind;
	} wr;
	uint32_t xrc_remote_srqn;	/* XRC_SEND: the remote XRC SRQ */
};

struct xib_recv_wr {
	uint64_t wr_id;
	struct xib_recv_wr *next;
	struct xib_sge *sg_list;
	int num_sge;
};

/* Work completions are the CQEs themselves. */
typedef struct xib_hca_cqe xib_wc;

/* Context */
int xib_open(const char *path, struct xib_context **out);
int xib_open_index(unsigned int index, struct xib_context **out);
int xib_close(struct xib_context *ctx);
int xib_query_device(struct xib_context *ctx, struct xib_uverbs_device_attr *attr);
int xib_query_port(struct xib_context *ctx, uint32_t port, struct xib_uverbs_port_attr *attr);
int xib_query_gid(struct xib_context *ctx, uint32_t port, uint32_t index,
		  uint8_t gid[16], uint32_t *gid_type);
/* As xib_query_gid(), also giving the port's interface index. */
int xib_query_gid_ndev(struct xib_context *ctx, uint32_t port, uint32_t index,
		       uint8_t gid[16], uint32_t *gid_type, uint32_t *ndev_ifindex);
int xib_query_pkey(struct xib_context *ctx, uint32_t port, uint32_t index,
		   uint16_t *pkey);
int xib_read_async_event(struct xib_context *ctx, struct xib_uverbs_async_event *ev);

/* PD, MR, AH */
int xib_alloc_pd(struct xib_context *ctx, struct xib_pd **out);
int xib_dealloc_pd(struct xib_pd *pd);
int xib_reg_mr(struct xib_pd *pd, void *addr, uint64_t length, uint32_t access,
	       struct xib_mr **out);
int xib_reg_mr_iova(struct xib_pd *pd, void *addr, uint64_t length, uint64_t iova,
		    uint32_t access, struct xib_mr **out);
int xib_dereg_mr(struct xib_mr *mr);
/*
 * XIB_UVERBS_REREG_MR: change what flags (enum xib_rereg_mr_flags) say, in
 * place; the keys are those the kernel returns.  -ENOTTY from a kernel
 * without the command.  On failure *mr is unchanged.
 */
int xib_rereg_mr(struct xib_mr *mr, uint32_t flags, struct xib_pd *pd, void *addr,
		 uint64_t length, uint64_t iova, uint32_t access);
int xib_alloc_mw(struct xib_pd *pd, uint32_t type, struct xib_mw **out);
int xib_dealloc_mw(struct xib_mw *mw);
int xib_create_ah(struct xib_pd *pd, const struct xib_uverbs_ah_attr *attr,
		  struct xib_ah **out);
int xib_destroy_ah(struct xib_ah *ah);

/* Completion channels and CQs */
int xib_create_comp_channel(struct xib_context *ctx, struct xib_comp_channel **out);
int xib_destroy_comp_channel(struct xib_comp_channel *ch);
/* Blocks (unless the fd was made non-blocking); returns the CQ's user_handle. */
int xib_get_cq_event(struct xib_comp_channel *ch, uint64_t *user_handle);
int xib_create_cq(struct xib_context *ctx, uint32_t cqe, uint64_t user_handle,
		  struct xib_comp_channel *ch, uint32_t comp_vector, struct xib_cq **out);
int xib_destroy_cq(struct xib_cq *cq);
/*
 * Destroy and say how many of the object's events were read from the
 * channel/async fd (struct xib_uverbs_destroy_events): a library that
 * hands events out waits for exactly these to be acknowledged.
 */
int xib_destroy_cq_events(struct xib_cq *cq, uint32_t *comp_events,
			  uint32_t *async_events);
/*
 * Resize to at least cqe entries; unpolled CQEs move to the new ring
 * (cq->cqe is the new size).  Fewer than the unpolled CQEs: -EINVAL.
 * Holds the CQ's lock across the switch, so concurrent xib_poll_cq()
 * calls wait rather than read a dead ring.
 */
int xib_resize_cq(struct xib_cq *cq, uint32_t cqe);
int xib_poll_cq(struct xib_cq *cq, int num, xib_wc *wc);
int xib_req_notify_cq(struct xib_cq *cq, int solicited_only);
int xib_cq_overflowed(struct xib_cq *cq);
void xib_cq_set_single_threaded(struct xib_cq *cq);

/* XRC domains: fd -1 or a file whose inode names it; XIB_XRCD_O_* */
int xib_open_xrcd(struct xib_context *ctx, int fd, uint32_t oflags, struct xib_xrcd **out);
int xib_close_xrcd(struct xib_xrcd *xrcd);

/* SRQs */
int xib_create_srq(struct xib_pd *pd, uint32_t max_wr, uint32_t max_sge,
		   uint32_t srq_limit, uint64_t user_handle, struct xib_srq **out);
/* An XRC SRQ of @xrcd completing on @cq; srq->srqn is what senders name. */
int xib_create_xrc_srq(struct xib_pd *pd, struct xib_xrcd *xrcd, struct xib_cq *cq,
		       uint32_t max_wr, uint32_t max_sge, uint32_t srq_limit,
		       uint64_t user_handle, struct xib_srq **out);
int xib_modify_srq(struct xib_srq *srq, uint32_t attr_mask, uint32_t max_wr,
		   uint32_t srq_limit);
int xib_query_srq(struct xib_srq *srq, uint32_t *max_wr, uint32_t *max_sge,
		  uint32_t *srq_limit);
int xib_destroy_srq(struct xib_srq *srq);
int xib_destroy_srq_events(struct xib_srq *srq, uint32_t *async_events);

/* QPs */
/* An XRC target QP of @xrcd (no PD, CQ or ring; see uverbs.h). */
int xib_create_xrc_tgt_qp(struct xib_xrcd *xrcd, uint64_t user_handle, struct xib_qp **out);
/* A handle to the existing XRC target @qpn of @xrcd. */
int xib_open_qp(struct xib_xrcd *xrcd, uint32_t qpn, uint64_t user_handle, struct xib_qp **out);
int xib_create_qp(struct xib_pd *pd, const struct xib_qp_init_attr *init,
		  struct xib_qp **out);
int xib_modify_qp(struct xib_qp *qp, const struct xib_uverbs_qp_attr *attr,
		  uint32_t attr_mask);
int xib_query_qp(struct xib_qp *qp, struct xib_uverbs_query_qp *out);
int xib_destroy_qp(struct xib_qp *qp);
int xib_destroy_qp_events(struct xib_qp *qp, uint32_t *async_events);
void xib_qp_set_single_threaded(struct xib_qp *qp);

/* Data path */
int xib_post_send(struct xib_qp *qp, struct xib_send_wr *wr, struct xib_send_wr **bad_wr);
int xib_post_recv(struct xib_qp *qp, struct xib_recv_wr *wr, struct xib_recv_wr **bad_wr);
int xib_post_srq_recv(struct xib_srq *srq, struct xib_recv_wr *wr,
		      struct xib_recv_wr **bad_wr);
/*
 * Posting sends in pieces, for wrappers that translate another WR format
 * without building a struct xib_send_wr chain: xib_sq_begin() takes the
 * send queue's lock (0), or fails with EINVAL below RTS (lock not held);
 * xib_sq_put() writes one WQE (0 or a positive errno, nothing written);
 * xib_sq_end() publishes what was put, kicks the HCA at most once if it
 * sleeps, and drops the lock; xib_sq_abort() instead forgets everything
 * put since xib_sq_begin() (nothing was published) and drops the lock.
 * xib_post_send() is the first three.
 */
int xib_sq_begin(struct xib_qp *qp);
int xib_sq_put(struct xib_qp *qp, const struct xib_send_wr *wr);
void xib_sq_end(struct xib_qp *qp);
void xib_sq_abort(struct xib_qp *qp);
/* KICK for @qp's send queue unconditionally (tests, recovery). */
int xib_kick(struct xib_qp *qp);
/*
 * XIB_UVERBS_ATTACH_MCAST (attach != 0) or _DETACH_MCAST of a UD QP and
 * the multicast group gid (the MGID); mlid is passed on (ignored on RoCE).
 */
int xib_mcast(struct xib_qp *qp, const uint8_t gid[16], uint16_t mlid, int attach);

/* Counters of the data path (process-wide, for measurements). */
struct xib_stats {
	uint64_t posted_send;
	uint64_t kicks;		/* XIB_UVERBS_KICK system calls */
	uint64_t uar_doorbells;	/* doorbells written to the UAR instead */
};
void xib_get_stats(struct xib_stats *st);

/* Ring helpers, also for tests that write rings by hand. */
static inline void *xib_ring_slot(const struct xib_ring *r, uint32_t idx)
{
	return r->slot0 + (size_t)(idx & (r->slots - 1)) * r->stride;
}

static inline uint32_t xib_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void xib_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* XIB_H */
