/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib HCA queue format: the memory user space shares with the HCA.
 *
 * Rings
 * -----
 * Every queue (send queue, receive queue, SRQ, CQ) is one mapping: a 4 KiB
 * header page (struct xib_hca_wq_hdr or struct xib_hca_cq_hdr) followed by
 * `slots` slots of `stride` bytes, both powers of two, as the create
 * command returned them (struct xib_uverbs_ring).  Slot i of the ring
 * starts at byte XIB_HCA_RING_HDR_SIZE + (i & (slots - 1)) * stride.
 *
 * Indices are free-running 32-bit counters, never reduced modulo the ring
 * size: (prod - cons) in unsigned 32-bit arithmetic is the number of
 * occupied slots.  Each index has exactly one writer:
 *
 *   ring          prod written by     cons written by
 *   SQ, RQ, SRQ   user space          the HCA
 *   CQ            the HCA             user space
 *
 * The writer stores its index with release semantics after the slot
 * contents; the reader loads it with acquire semantics before reading
 * slots.  The HCA trusts nothing it reads from this memory: it masks
 * every index, copies a WQE before looking at it, treats an impossible
 * index (more than `slots` ahead) as a broken queue (the QP moves to the
 * error state, the CQ reports CQ_ERR), and checks every key, PD, bound and
 * access right a WQE names.  A bad WQE completes with an error status.
 *
 * Work queues
 * -----------
 * Posting: write the WQE into slot prod, then store prod + 1 (release).
 * A slot may be reused once the HCA's cons has passed it; cons advances
 * when the work request is retired (its completion is written, or for an
 * unsignaled send, when it would have been).  So prod - cons is the
 * number of outstanding WRs and can never exceed max_send_wr/max_recv_wr.
 *
 * Doorbell and kick
 * -----------------
 * The doorbell page (XIB_UVERBS_GET_CONTEXT's db_mmap_offset, mapped read
 * only) holds the engine's state word.  After publishing a send queue's
 * prod, the poster issues a full memory barrier and reads
 * engine_state: if it is XIB_HCA_ENGINE_SLEEPING, it calls
 * XIB_UVERBS_KICK once for the QP; otherwise the engine will find the
 * work by itself: RUNNING, it is polling; DOZING, it is off the CPU but
 * makes a pass over every send queue within a bounded time (the
 * idle_scan_us parameter of xib_hca), as it does, where idle_doze_us is
 * set, for some time after its last work before it sleeps.  Any value
 * but SLEEPING means "no kick needed" (a poster that knows only RUNNING
 * and SLEEPING is correct).
 * The engine sets SLEEPING, issues a full barrier, and looks at every
 * send queue once more before sleeping, so one of the two always sees
 * the other.  Receive queue posts never need a kick.  "Kick" is
 * XIB_UVERBS_KICK where GET_CONTEXT's db_kind is XIB_UVERBS_DB_SYSCALL,
 * and a store to the UAR's doorbell register where it is
 * XIB_UVERBS_DB_MMIO (uverbs.h): the engine then looks at every send
 * queue, and nothing runs in the poster's context.
 *
 * A RUNNING engine may still be runnable but off the CPU, where CPUs are
 * fewer than busy threads.  The engine adds one to passes after each of
 * its passes over the device's QPs, and one to beats after each QP's
 * share of a pass and each packet it sends.  A poster that published
 * work while the engine was RUNNING or DOZING may remember passes: once
 * it has moved on by two, a whole pass began after the publication and
 * saw the work.  If until then beats stops moving for a while (the
 * library's choice; longer than idle_scan_us, between a DOZING engine's
 * passes), the engine is off the CPU and the poster may KICK the QP to
 * run its requester in its own context.  A KICK is never wrong, only a
 * system call; nothing but this may make it necessary while the engine
 * is RUNNING or DOZING.
 *
 * Completion queues
 * -----------------
 * Polling: load prod (acquire); CQEs cons .. prod - 1 are valid; after
 * reading them, store the new cons (release).  When the HCA finds no
 * free slot, the CQ overflows: XIB_HCA_CQ_F_OVERFLOW is set in flags, a
 * CQ_ERR async event is raised, and the QPs that complete to it go to
 * the error state.
 *
 * Arming (ibv_req_notify_cq) is a store to arm: the new value is
 * (previous arm + 4) with XIB_HCA_CQ_ARM_SOLICITED or _NEXT (the low two
 * bits) or'ed in, followed by a full barrier.  The HCA remembers the
 * sequence (arm >> 2) it last fired; when it writes a CQE that matches a
 * pending arm (any CQE for NEXT, a solicited or error one for SOLICITED)
 * it fires one completion event on the CQ's channel and records the
 * sequence as fired in armed_sn.  Every arm fires at most once.
 */
#ifndef _UAPI_XIB_HCA_ABI_H
#define _UAPI_XIB_HCA_ABI_H

#include <linux/types.h>

#define XIB_HCA_RING_HDR_SIZE	4096

/* The doorbell page. */
enum xib_hca_engine_state {
	XIB_HCA_ENGINE_RUNNING = 0,
	XIB_HCA_ENGINE_SLEEPING = 1,
	XIB_HCA_ENGINE_DOZING = 2,
};

struct xib_hca_db_page {
	__u32 engine_state;	/* HCA: enum xib_hca_engine_state */
	__u32 passes;		/* HCA: passes of the engine, free running */
	__u32 beats;		/* HCA: steps and packets of the engine, free running */
	__u32 reserved[13];
};

/* Header page of a send, receive or shared receive queue. */
struct xib_hca_wq_hdr {
	__u32 prod;		/* user space: WQEs posted */
	__u32 reserved0[15];	/* own cache line */
	__u32 cons;		/* HCA: WQEs retired */
	__u32 reserved1[15];
};

#define XIB_HCA_CQ_ARM_NEXT		1u
#define XIB_HCA_CQ_ARM_SOLICITED	2u
#define XIB_HCA_CQ_ARM_SN_SHIFT		2

#define XIB_HCA_CQ_F_OVERFLOW		1u

/* Header page of a completion queue. */
struct xib_hca_cq_hdr {
	__u32 prod;		/* HCA: CQEs written */
	__u32 flags;		/* HCA: XIB_HCA_CQ_F_* */
	__u32 armed_sn;		/* HCA: sequence of the last arm fired */
	__u32 reserved0[13];
	__u32 cons;		/* user space: CQEs consumed */
	__u32 reserved1[15];
	__u32 arm;		/* user space: arm sequence << 2 | kind */
	__u32 reserved2[15];
};

/* A scatter/gather element of a WQE. */
struct xib_hca_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send WQE opcodes; the values of enum ibv_wr_opcode. */
enum xib_hca_wr_opcode {
	XIB_HCA_WR_RDMA_WRITE = 0,
	XIB_HCA_WR_RDMA_WRITE_WITH_IMM = 1,
	XIB_HCA_WR_SEND = 2,
	XIB_HCA_WR_SEND_WITH_IMM = 3,
	XIB_HCA_WR_RDMA_READ = 4,
	XIB_HCA_WR_ATOMIC_CMP_AND_SWP = 5,
	XIB_HCA_WR_ATOMIC_FETCH_AND_ADD = 6,
	XIB_HCA_WR_LOCAL_INV = 7,
	XIB_HCA_WR_BIND_MW = 8,
	XIB_HCA_WR_SEND_WITH_INV = 9,
};

/* Send WQE flags; the bits of enum ibv_send_flags. */
enum xib_hca_send_flags {
	XIB_HCA_SEND_FENCE = 1 << 0,
	XIB_HCA_SEND_SIGNALED = 1 << 1,
	XIB_HCA_SEND_SOLICITED = 1 << 2,
	XIB_HCA_SEND_INLINE = 1 << 3,
	XIB_HCA_SEND_IP_CSUM = 1 << 4,
};

/* xib_hca_send_wqe.bind.flags */
enum xib_hca_bind_flags {
	/*
	 * Posted by the Bind Memory Window verb (ibv_bind_mw): only a type 1
	 * window may be bound so, and a type 1 window only so.
	 */
	XIB_HCA_BIND_TYPE1 = 1 << 0,
};

/*
 * A send WQE: this 64-byte header, then either num_sge struct xib_hca_sge
 * or, with XIB_HCA_SEND_INLINE, inline_len bytes of data.  The stride of
 * the send ring is large enough for the QP's max_send_sge and
 * max_inline_data.
 *
 * Memory windows (RC and UC QPs; IBTA 10.6.7).  XIB_HCA_WR_BIND_MW (no
 * data, num_sge 0) binds the window whose index bind.mw_rkey has to
 * [bind.addr, bind.addr + bind.length) of the MR bind.mr_lkey names, with
 * bind.access (XIB_ACCESS_MW_SUPPORTED), and gives it bind.new_rkey: the
 * same index (bits 31-8), the binder's key byte.  The MR needs MW_BIND
 * (and LOCAL_WRITE for a window with REMOTE_WRITE or REMOTE_ATOMIC), the
 * range must lie inside it, and window, MR and QP must share one PD; a
 * type 2 window must be free and the length nonzero, and is then bound
 * to this QP (type 2B); a type 1 window is bound again in place, and
 * length 0 unbinds it.  A type 2 window bound with XIB_ACCESS_ZERO_BASED
 * is addressed by offset: the remote address of a request through its
 * rkey is the offset from bind.addr, within [0, bind.length); a type 1
 * bind with ZERO_BASED fails (IBTA o10-36.2.2).  Bind and LOCAL_INV run
 * in order with the WQEs before them on the send queue and complete with
 * XIB_HCA_WC_BIND_MW or _LOCAL_INV; a bind that breaks a rule completes
 * with MW_BIND_ERR and moves the QP to ERR.
 * XIB_HCA_WR_LOCAL_INV frees the bound type 2 window whose rkey is
 * invalidate_rkey (it must be this QP's and valid; else LOC_PROT_ERR);
 * XIB_HCA_WR_SEND_WITH_INV (RC only) is a SEND whose last packet carries
 * invalidate_rkey in an IETH: the responder frees that type 2 window of
 * its PD bound to the receiving QP before it completes the receive with
 * XIB_HCA_WC_WITH_INV; if it cannot, it NAKs with a remote access error.
 */
struct xib_hca_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* enum xib_hca_wr_opcode */
	__u32 flags;		/* enum xib_hca_send_flags */
	__u32 num_sge;
	union {
		__be32 imm_data;	/* *_WITH_IMM: network order, as in ibv_send_wr */
		__u32 invalidate_rkey;	/* LOCAL_INV, SEND_WITH_INV */
	};
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved[5];
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;	/* 0: unbind (type 1) */
			__u32 mw_rkey;		/* names the window by its index */
			__u32 new_rkey;		/* its rkey once bound */
			__u32 mr_lkey;		/* the MR bound to */
			__u16 access;		/* XIB_ACCESS_MW_SUPPORTED */
			__u16 flags;		/* enum xib_hca_bind_flags */
		} bind;
		struct {
			__u32 ahn;		/* from XIB_UVERBS_CREATE_AH */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved[5];
		} ud;
	};
	__u32 inline_len;	/* XIB_HCA_SEND_INLINE: bytes after the header */
	__u32 xrc_srqn;		/* XRC_SEND: the remote XRC SRQ (XRCETH) */
};

/* A receive WQE (RQ or SRQ): this header, then num_sge SGEs. */
struct xib_hca_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/* Completion status; the values of enum ibv_wc_status. */
enum xib_hca_wc_status {
	XIB_HCA_WC_SUCCESS = 0,
	XIB_HCA_WC_LOC_LEN_ERR = 1,
	XIB_HCA_WC_LOC_QP_OP_ERR = 2,
	XIB_HCA_WC_LOC_EEC_OP_ERR = 3,
	XIB_HCA_WC_LOC_PROT_ERR = 4,
	XIB_HCA_WC_WR_FLUSH_ERR = 5,
	XIB_HCA_WC_MW_BIND_ERR = 6,
	XIB_HCA_WC_BAD_RESP_ERR = 7,
	XIB_HCA_WC_LOC_ACCESS_ERR = 8,
	XIB_HCA_WC_REM_INV_REQ_ERR = 9,
	XIB_HCA_WC_REM_ACCESS_ERR = 10,
	XIB_HCA_WC_REM_OP_ERR = 11,
	XIB_HCA_WC_RETRY_EXC_ERR = 12,
	XIB_HCA_WC_RNR_RETRY_EXC_ERR = 13,
	XIB_HCA_WC_LOC_RDD_VIOL_ERR = 14,
	XIB_HCA_WC_REM_INV_RD_REQ_ERR = 15,
	XIB_HCA_WC_REM_ABORT_ERR = 16,
	XIB_HCA_WC_INV_EECN_ERR = 17,
	XIB_HCA_WC_INV_EEC_STATE_ERR = 18,
	XIB_HCA_WC_FATAL_ERR = 19,
	XIB_HCA_WC_RESP_TIMEOUT_ERR = 20,
	XIB_HCA_WC_GENERAL_ERR = 21,
};

/* Completion opcodes; the values of enum ibv_wc_opcode. */
enum xib_hca_wc_opcode {
	XIB_HCA_WC_SEND = 0,
	XIB_HCA_WC_RDMA_WRITE = 1,
	XIB_HCA_WC_RDMA_READ = 2,
	XIB_HCA_WC_COMP_SWAP = 3,
	XIB_HCA_WC_FETCH_ADD = 4,
	XIB_HCA_WC_BIND_MW = 5,
	XIB_HCA_WC_LOCAL_INV = 6,
	XIB_HCA_WC_RECV = 128,
	XIB_HCA_WC_RECV_RDMA_WITH_IMM = 129,
};

/* Completion flags; the bits of enum ibv_wc_flags. */
enum xib_hca_wc_flags {
	XIB_HCA_WC_GRH = 1 << 0,
	XIB_HCA_WC_WITH_IMM = 1 << 1,
	XIB_HCA_WC_IP_CSUM_OK = 1 << 2,
	XIB_HCA_WC_WITH_INV = 1 << 3,
};

/*
 * A CQE; the fields of struct ibv_wc.  With XIB_HCA_WC_WITH_INV in
 * wc_flags, imm_data holds the invalidated rkey in host order (struct
 * ibv_wc's invalidated_rkey shares its place).  For a UD receive the first 40
 * bytes of the receive buffer hold the GRH area (for RoCEv2 over IPv4,
 * the IPv4 header in its last 20 bytes, as rdma_rxe and RoCE NICs do) and
 * byte_len counts them.
 */
struct xib_hca_cqe {
	__aligned_u64 wr_id;
	__u32 status;		/* enum xib_hca_wc_status */
	__u32 opcode;		/* enum xib_hca_wc_opcode */
	__u32 vendor_err;
	__u32 byte_len;
	__be32 imm_data;	/* network order, as in struct ibv_wc */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* enum xib_hca_wc_flags */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 network_hdr_type;	/* UD receive: 2 RoCEv2 IPv4, 3 RoCEv2 IPv6 */
	__u8 reserved0;
	__u32 reserved1[4];
};

#endif /* _UAPI_XIB_HCA_ABI_H */
