/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IBTA QP state machine: which modify-QP transitions exist and which
 * attributes each one requires and allows, per QP type.
 * Documentation/state-machines.rst has the table in readable form.
 */
#ifndef _XIB_QP_STATE_H
#define _XIB_QP_STATE_H

#include <linux/types.h>
#include <uapi/xib/uverbs.h>

/* Every attribute-mask bit xib knows; any other bit is refused. */
#define XIB_QP_ATTR_KNOWN	((((u32)XIB_QP_DEST_QPN << 1) - 1) | \
				 XIB_QP_RATE_LIMIT)

bool xib_qp_transition_ok(enum xib_qp_state cur, enum xib_qp_state next,
			  enum xib_qp_type type, u32 attr_mask,
			  u32 *missing, u32 *unexpected);

#endif /* _XIB_QP_STATE_H */
