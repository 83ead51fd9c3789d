/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * xib verbs user/kernel ABI.
 *
 * This header will hold the verbs ioctl ABI of /dev/xib/uverbsN: the
 * commands, their fixed-size argument structures and the enumerations they
 * carry.  For now it holds only the enumerations that cross the boundary.
 *
 * Every value below equals the one of the same name in libibverbs'
 * <infiniband/verbs.h> (enum ibv_qp_state, enum ibv_qp_type, enum
 * ibv_qp_attr_mask, enum ibv_event_type), so xib's libibverbs.so.1 passes what an application
 * gives it through unchanged, and returns what the kernel reports the same
 * way.  Values are never renumbered; new ones are only ever added.
 */
#ifndef _UAPI_XIB_UVERBS_H
#define _UAPI_XIB_UVERBS_H

#include <linux/types.h>

/* QP states (IBTA vol 1 ch. 10.3); the values of enum ibv_qp_state. */
enum xib_qp_state {
	XIB_QPS_RESET = 0,
	XIB_QPS_INIT = 1,
	XIB_QPS_RTR = 2,	/* ready to receive */
	XIB_QPS_RTS = 3,	/* ready to send */
	XIB_QPS_SQD = 4,	/* send queue drain(ing/ed) */
	XIB_QPS_SQE = 5,	/* send queue error (UC and UD only) */
	XIB_QPS_ERR = 6,
};

/*
 * QP transport service types; the values of enum ibv_qp_type.  RC, UC and
 * UD are implemented; the others are reserved with libibverbs' values and
 * refused until they are.
 */
enum xib_qp_type {
	XIB_QPT_RC = 2,
	XIB_QPT_UC = 3,
	XIB_QPT_UD = 4,
	XIB_QPT_RAW_PACKET = 8,	/* reserved */
	XIB_QPT_XRC_SEND = 9,	/* reserved */
	XIB_QPT_XRC_RECV = 10,	/* reserved */
};

/*
 * Modify-QP attribute mask: which attributes a modify-QP request carries;
 * the bits of enum ibv_qp_attr_mask.  Bits 21 to 24 are not used (old
 * kernels gave them meanings libibverbs never exposed); any bit not named
 * here is refused.
 */
enum xib_qp_attr_mask {
	XIB_QP_STATE			= 1 << 0,
	XIB_QP_CUR_STATE		= 1 << 1,
	XIB_QP_EN_SQD_ASYNC_NOTIFY	= 1 << 2,
	XIB_QP_ACCESS_FLAGS		= 1 << 3,
	XIB_QP_PKEY_INDEX		= 1 << 4,
	XIB_QP_PORT			= 1 << 5,
	XIB_QP_QKEY			= 1 << 6,
	XIB_QP_AV			= 1 << 7,
	XIB_QP_PATH_MTU			= 1 << 8,
	XIB_QP_TIMEOUT			= 1 << 9,
	XIB_QP_RETRY_CNT		= 1 << 10,
	XIB_QP_RNR_RETRY		= 1 << 11,
	XIB_QP_RQ_PSN			= 1 << 12,
	XIB_QP_MAX_QP_RD_ATOMIC		= 1 << 13,
	XIB_QP_ALT_PATH			= 1 << 14,
	XIB_QP_MIN_RNR_TIMER		= 1 << 15,
	XIB_QP_SQ_PSN			= 1 << 16,
	XIB_QP_MAX_DEST_RD_ATOMIC	= 1 << 17,
	XIB_QP_PATH_MIG_STATE		= 1 << 18,
	XIB_QP_CAP			= 1 << 19,
	XIB_QP_DEST_QPN			= 1 << 20,
	XIB_QP_RATE_LIMIT		= 1 << 25,
};

/*
 * Asynchronous events (IBTA vol 1 ch. 11.6.3); the values of enum
 * ibv_event_type.
 */
enum xib_event_type {
	XIB_EVENT_CQ_ERR = 0,
	XIB_EVENT_QP_FATAL = 1,
	XIB_EVENT_QP_REQ_ERR = 2,
	XIB_EVENT_QP_ACCESS_ERR = 3,
	XIB_EVENT_COMM_EST = 4,
	XIB_EVENT_SQ_DRAINED = 5,
	XIB_EVENT_PATH_MIG = 6,
	XIB_EVENT_PATH_MIG_ERR = 7,
	XIB_EVENT_DEVICE_FATAL = 8,
	XIB_EVENT_PORT_ACTIVE = 9,
	XIB_EVENT_PORT_ERR = 10,
	XIB_EVENT_LID_CHANGE = 11,
	XIB_EVENT_PKEY_CHANGE = 12,
	XIB_EVENT_SM_CHANGE = 13,
	XIB_EVENT_SRQ_ERR = 14,
	XIB_EVENT_SRQ_LIMIT_REACHED = 15,
	XIB_EVENT_QP_LAST_WQE_REACHED = 16,
	XIB_EVENT_CLIENT_REREGISTER = 17,
	XIB_EVENT_GID_CHANGE = 18,
	XIB_EVENT_WQ_FATAL = 19,
};

#endif /* _UAPI_XIB_UVERBS_H */
