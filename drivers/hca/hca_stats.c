// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca device counters: the names (the ABI of XIB_CMD_STAT_GET, see
 * Documentation/counters.rst) and the reader (ops->get_stats).
 */
#include <linux/percpu.h>

#include "hca.h"

const char * const xib_hca_stat_names[XIB_HCA_NSTATS] = {
	[XIB_HCA_STAT_TX_PACKETS]		= "tx_packets",
	[XIB_HCA_STAT_TX_BYTES]			= "tx_bytes",
	[XIB_HCA_STAT_RX_PACKETS]		= "rx_packets",
	[XIB_HCA_STAT_RX_BYTES]			= "rx_bytes",
	[XIB_HCA_STAT_RX_ICRC_ERRORS]		= "rx_icrc_errors",
	[XIB_HCA_STAT_RX_MALFORMED]		= "rx_malformed",
	[XIB_HCA_STAT_RX_DROP_PKEY]		= "rx_drop_pkey",
	[XIB_HCA_STAT_RX_DROP_UNKNOWN_QP]	= "rx_drop_unknown_qp",
	[XIB_HCA_STAT_RX_DROP_QP_STATE]		= "rx_drop_qp_state",
	[XIB_HCA_STAT_RX_DROP_QKEY]		= "rx_drop_qkey",
	[XIB_HCA_STAT_RX_DROP_NO_RECV_WQE]	= "rx_drop_no_recv_wqe",
	[XIB_HCA_STAT_RX_DROP_UC]		= "rx_drop_uc",
	[XIB_HCA_STAT_TX_NO_ROUTE]		= "tx_no_route",
	[XIB_HCA_STAT_TX_DROPPED]		= "tx_dropped",
	[XIB_HCA_STAT_RX_DUPLICATE_REQUESTS]	= "rx_duplicate_requests",
	[XIB_HCA_STAT_SEQ_NAKS_SENT]		= "seq_naks_sent",
	[XIB_HCA_STAT_RNR_NAKS_SENT]		= "rnr_naks_sent",
	[XIB_HCA_STAT_ERR_NAKS_SENT]		= "err_naks_sent",
	[XIB_HCA_STAT_SEQ_NAKS_RCVD]		= "seq_naks_rcvd",
	[XIB_HCA_STAT_RNR_NAKS_RCVD]		= "rnr_naks_rcvd",
	[XIB_HCA_STAT_ERR_NAKS_RCVD]		= "err_naks_rcvd",
	[XIB_HCA_STAT_LOCAL_ACK_TIMEOUTS]	= "local_ack_timeouts",
	[XIB_HCA_STAT_RETRIES]			= "retries",
	[XIB_HCA_STAT_RETRY_EXCEEDED]		= "retry_exceeded",
	[XIB_HCA_STAT_RNR_RETRY_EXCEEDED]	= "rnr_retry_exceeded",
	[XIB_HCA_STAT_CQE_SUCCESS]		= "cqe_success",
	[XIB_HCA_STAT_CQE_FLUSHED]		= "cqe_flushed",
	[XIB_HCA_STAT_CQE_ERROR]		= "cqe_error",
	[XIB_HCA_STAT_KICKS]			= "kicks",
	[XIB_HCA_STAT_RX_DROP_ADDR]		= "rx_drop_addr",
	[XIB_HCA_STAT_TX_DROP_SGID]		= "tx_drop_sgid",
	[XIB_HCA_STAT_TAIL_PROBES]		= "tail_probes",
	[XIB_HCA_STAT_TAIL_PROBE_PROGRESS]	= "tail_probe_progress",
	[XIB_HCA_STAT_SEQ_RENAKS_SENT]		= "seq_renaks_sent",
	[XIB_HCA_STAT_RX_OOO_HELD]		= "rx_ooo_held",
	[XIB_HCA_STAT_RC_INFLIGHT_CHARGED]	= "rc_inflight_charged",
	[XIB_HCA_STAT_RC_INFLIGHT_RELEASED]	= "rc_inflight_released",
	[XIB_HCA_STAT_RC_INFLIGHT_HELD]		= "rc_inflight_held",
	[XIB_HCA_STAT_ENGINE_SLEEPS]		= "engine_sleeps",
	[XIB_HCA_STAT_ENGINE_DOZES]		= "engine_dozes",
};

/* ops->port_violations: the P_Key and Q_Key drop counters. */
void xib_hca_port_violations(struct xib_device *xdev, u64 *pkey, u64 *qkey)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);
	const struct xib_hca_stats *s;
	int cpu;

	*pkey = 0;
	*qkey = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(hca->stats, cpu);
		*pkey += READ_ONCE(s->v[XIB_HCA_STAT_RX_DROP_PKEY]);
		*qkey += READ_ONCE(s->v[XIB_HCA_STAT_RX_DROP_QKEY]);
	}
}

/* ops->get_stats: the sums over every CPU. */
void xib_hca_get_stats(struct xib_device *xdev, u64 *vals)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);
	int cpu, i;

	memset(vals, 0, sizeof(*vals) * XIB_HCA_NSTATS);
	for_each_possible_cpu(cpu) {
		const struct xib_hca_stats *s = per_cpu_ptr(hca->stats, cpu);

		for (i = 0; i < XIB_HCA_NSTATS; i++)
			vals[i] += READ_ONCE(s->v[i]);
	}
}
