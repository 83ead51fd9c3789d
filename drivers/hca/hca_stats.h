/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca device counters (hca_stats.c).  Every counter is per CPU and
 * only ever incremented (this_cpu_add(): one instruction, safe in any
 * context, no shared cache line on the hot path); readers sum the CPUs.
 * The meaning of each is in Documentation/counters.rst, and its name in
 * xib_hca_stat_names[]: append new counters, never reorder or rename.
 */
#ifndef _XIB_HCA_STATS_H
#define _XIB_HCA_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum xib_hca_stat {
	XIB_HCA_STAT_TX_PACKETS,
	XIB_HCA_STAT_TX_BYTES,
	XIB_HCA_STAT_RX_PACKETS,
	XIB_HCA_STAT_RX_BYTES,
	XIB_HCA_STAT_RX_ICRC_ERRORS,
	XIB_HCA_STAT_RX_MALFORMED,
	XIB_HCA_STAT_RX_DROP_PKEY,
	XIB_HCA_STAT_RX_DROP_UNKNOWN_QP,
	XIB_HCA_STAT_RX_DROP_QP_STATE,
	XIB_HCA_STAT_RX_DROP_QKEY,
	XIB_HCA_STAT_RX_DROP_NO_RECV_WQE,
	XIB_HCA_STAT_RX_DROP_UC,
	XIB_HCA_STAT_TX_NO_ROUTE,
	XIB_HCA_STAT_TX_DROPPED,
	XIB_HCA_STAT_RX_DUPLICATE_REQUESTS,
	XIB_HCA_STAT_SEQ_NAKS_SENT,
	XIB_HCA_STAT_RNR_NAKS_SENT,
	XIB_HCA_STAT_ERR_NAKS_SENT,
	XIB_HCA_STAT_SEQ_NAKS_RCVD,
	XIB_HCA_STAT_RNR_NAKS_RCVD,
	XIB_HCA_STAT_ERR_NAKS_RCVD,
	XIB_HCA_STAT_LOCAL_ACK_TIMEOUTS,
	XIB_HCA_STAT_RETRIES,
	XIB_HCA_STAT_RETRY_EXCEEDED,
	XIB_HCA_STAT_RNR_RETRY_EXCEEDED,
	XIB_HCA_STAT_CQE_SUCCESS,
	XIB_HCA_STAT_CQE_FLUSHED,
	XIB_HCA_STAT_CQE_ERROR,
	XIB_HCA_STAT_KICKS,
	XIB_HCA_STAT_RX_DROP_ADDR,
	XIB_HCA_STAT_TX_DROP_SGID,
	XIB_HCA_STAT_TAIL_PROBES,
	XIB_HCA_STAT_TAIL_PROBE_PROGRESS,
	XIB_HCA_STAT_SEQ_RENAKS_SENT,
	XIB_HCA_STAT_RX_OOO_HELD,
	XIB_HCA_STAT_RC_INFLIGHT_CHARGED,
	XIB_HCA_STAT_RC_INFLIGHT_RELEASED,
	XIB_HCA_STAT_RC_INFLIGHT_HELD,
	XIB_HCA_STAT_ENGINE_SLEEPS,
	XIB_HCA_STAT_ENGINE_DOZES,
	XIB_HCA_NSTATS
};

/**
 * struct xib_hca_stats - one CPU's counts
 * @v: by enum xib_hca_stat
 */
struct xib_hca_stats {
	u64 v[XIB_HCA_NSTATS];
};

extern const char * const xib_hca_stat_names[XIB_HCA_NSTATS];

#endif /* _XIB_HCA_STATS_H */
