/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the xib_hca engine (system "xib_hca"): what a driver
 * developer needs to follow one QP through a problem.  Enable them with
 * tracefs (events/xib_hca/), perf trace or trace-cmd; disabled, each costs
 * a patched-out branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xib_hca

#if !defined(_XIB_HCA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XIB_HCA_TRACE_H

#include <linux/tracepoint.h>

/* A doorbell system call for the send queue of QP @qpn. */
TRACE_EVENT(xib_hca_kick,
	TP_PROTO(u32 dev, u32 qpn),
	TP_ARGS(dev, qpn),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
	),
	TP_printk("dev %u qpn %u", __entry->dev, __entry->qpn)
);

/* The requester took a posted send WQE off QP @qpn's ring. */
TRACE_EVENT(xib_hca_post,
	TP_PROTO(u32 dev, u32 qpn, u64 wr_id, u32 opcode, u32 len, u8 status),
	TP_ARGS(dev, qpn, wr_id, opcode, len, status),
	TP_STRUCT__entry(
		__field(u64, wr_id)
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, opcode)
		__field(u32, len)
		__field(u8, status)
	),
	TP_fast_assign(
		__entry->wr_id = wr_id;
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->opcode = opcode;
		__entry->len = len;
		__entry->status = status;
	),
	TP_printk("dev %u qpn %u wr_id 0x%llx opcode %u len %u status %u",
		  __entry->dev, __entry->qpn, __entry->wr_id, __entry->opcode,
		  __entry->len, __entry->status)
);

/* A packet, at the BTH: sent (@tx) or received and parsed. */
DECLARE_EVENT_CLASS(xib_hca_pkt_class,
	TP_PROTO(u32 dev, u8 opcode, u32 dqpn, u32 psn, u32 len),
	TP_ARGS(dev, opcode, dqpn, psn, len),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->dqpn = dqpn;
		__entry->psn = psn;
		__entry->len = len;
		__entry->opcode = opcode;
	),
	TP_printk("dev %u opcode 0x%02x dqpn %u psn %u len %u", __entry->dev,
		  __entry->opcode, __entry->dqpn, __entry->psn, __entry->len)
);

DEFINE_EVENT(xib_hca_pkt_class, xib_hca_tx,
	TP_PROTO(u32 dev, u8 opcode, u32 dqpn, u32 psn, u32 len),
	TP_ARGS(dev, opcode, dqpn, psn, len)
);

DEFINE_EVENT(xib_hca_pkt_class, xib_hca_rx,
	TP_PROTO(u32 dev, u8 opcode, u32 dqpn, u32 psn, u32 len),
	TP_ARGS(dev, opcode, dqpn, psn, len)
);

/* A completion written to CQ @cqn. */
TRACE_EVENT(xib_hca_cqe,
	TP_PROTO(u32 dev, u32 cqn, u32 qpn, u64 wr_id, u8 status, u8 opcode,
		 u32 byte_len),
	TP_ARGS(dev, cqn, qpn, wr_id, status, opcode, byte_len),
	TP_STRUCT__entry(
		__field(u64, wr_id)
		__field(u32, dev)
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u32, byte_len)
		__field(u8, status)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->wr_id = wr_id;
		__entry->dev = dev;
		__entry->cqn = cqn;
		__entry->qpn = qpn;
		__entry->byte_len = byte_len;
		__entry->status = status;
		__entry->opcode = opcode;
	),
	TP_printk("dev %u cqn %u qpn %u wr_id 0x%llx status %u opcode %u byte_len %u",
		  __entry->dev, __entry->cqn, __entry->qpn, __entry->wr_id,
		  __entry->status, __entry->opcode, __entry->byte_len)
);

/*
 * The requester of QP @qpn goes back to @psn, for a retry or a tail-loss
 * probe (which spends none); @left retries remain.
 */
TRACE_EVENT(xib_hca_retransmit,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, u32 left),
	TP_ARGS(dev, qpn, psn, left),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, left)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->left = left;
	),
	TP_printk("dev %u qpn %u psn %u retries_left %u", __entry->dev,
		  __entry->qpn, __entry->psn, __entry->left)
);

/* A NAK (or RNR NAK) for QP @qpn: its AETH syndrome and PSN. */
DECLARE_EVENT_CLASS(xib_hca_nak_class,
	TP_PROTO(u32 dev, u32 qpn, u8 syndrome, u32 psn),
	TP_ARGS(dev, qpn, syndrome, psn),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, syndrome)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
	),
	TP_printk("dev %u qpn %u syndrome 0x%02x psn %u", __entry->dev,
		  __entry->qpn, __entry->syndrome, __entry->psn)
);

DEFINE_EVENT(xib_hca_nak_class, xib_hca_nak_sent,
	TP_PROTO(u32 dev, u32 qpn, u8 syndrome, u32 psn),
	TP_ARGS(dev, qpn, syndrome, psn)
);

DEFINE_EVENT(xib_hca_nak_class, xib_hca_nak_rcvd,
	TP_PROTO(u32 dev, u32 qpn, u8 syndrome, u32 psn),
	TP_ARGS(dev, qpn, syndrome, psn)
);

/* QP @qpn's engine state changes (enum xib_qp_state). */
TRACE_EVENT(xib_hca_qp_state,
	TP_PROTO(u32 dev, u32 qpn, int from, int to),
	TP_ARGS(dev, qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("dev %u qpn %u state %d -> %d", __entry->dev, __entry->qpn,
		  __entry->from, __entry->to)
);

#endif /* _XIB_HCA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hca_trace
#include <trace/define_trace.h>
