/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IB CM's state machine (cm_state.c) and what xib_cma's other files
 * need of the CM (cm.c).
 */
#ifndef _XIB_CM_PRIV_H
#define _XIB_CM_PRIV_H

#include <linux/types.h>
#include <xib/xib_cm.h>

/*
 * What can happen to an id: the columns of the state table.  Calls of the
 * consumer, messages received for the id (a REQ or SIDR_REQ also creates
 * the id it is received on, which starts IDLE), and the CM's timers.
 */
enum xib_cm_op {
	XIB_CM_OP_LISTEN,
	XIB_CM_OP_SEND_REQ,
	XIB_CM_OP_SEND_REP,
	XIB_CM_OP_SEND_RTU,
	XIB_CM_OP_SEND_REJ,
	XIB_CM_OP_SEND_MRA,
	XIB_CM_OP_SEND_DREQ,
	XIB_CM_OP_SEND_DREP,
	XIB_CM_OP_ESTABLISH,		/* xib_cm_establish() */
	XIB_CM_OP_SEND_SIDR_REQ,
	XIB_CM_OP_SEND_SIDR_REP,
	XIB_CM_OP_DESTROY,		/* xib_cm_destroy_id() */
	XIB_CM_OP_RECV_REQ,
	XIB_CM_OP_RECV_MRA_REQ,		/* an MRA for our REQ */
	XIB_CM_OP_RECV_MRA_REP,		/* an MRA for our REP */
	XIB_CM_OP_RECV_REJ,
	XIB_CM_OP_RECV_REJ_STALE,	/* a REJ with reason STALE_CONN */
	XIB_CM_OP_RECV_REP,
	XIB_CM_OP_RECV_RTU,
	XIB_CM_OP_RECV_DREQ,
	XIB_CM_OP_RECV_DREP,
	XIB_CM_OP_RECV_SIDR_REQ,
	XIB_CM_OP_RECV_SIDR_REP,
	XIB_CM_OP_TIMEOUT,		/* the send awaiting an answer gave up */
	XIB_CM_OP_TIMEWAIT_EXIT,
	XIB_CM_OP_MAX
};

/*
 * What the CM does besides changing the state (the flags of a table
 * entry):
 *  EVENT   the consumer gets the event of the operation
 *  DUP     the message is a duplicate: it is answered as the other flags
 *          say and never delivered
 *  CANCEL  the send awaiting an answer (REQ, REP, DREQ, SIDR_REQ) ends
 *  EXTEND  its wait is extended by the MRA's service timeout
 *  RESEND  the last answer sent (REP, MRA, RTU) is sent again
 *  MRA     an MRA is sent (the consumer has not answered yet)
 *  REJ     a REJ is sent (destroy, timeout)
 *  STALE   a REJ with reason STALE_CONN answers the message
 *  DREQ    a DREQ is sent (destroy of an established connection)
 *  DREP    a DREP is sent (destroy after a DREQ; a duplicate DREQ)
 *  SIDR    a SIDR_REP is sent (destroy before answering a SIDR_REQ)
 */
enum {
	XIB_CM_T_EVENT	= BIT(0),
	XIB_CM_T_DUP	= BIT(1),
	XIB_CM_T_CANCEL	= BIT(2),
	XIB_CM_T_EXTEND	= BIT(3),
	XIB_CM_T_RESEND	= BIT(4),
	XIB_CM_T_MRA	= BIT(5),
	XIB_CM_T_REJ	= BIT(6),
	XIB_CM_T_STALE	= BIT(7),
	XIB_CM_T_DREQ	= BIT(8),
	XIB_CM_T_DREP	= BIT(9),
	XIB_CM_T_SIDR	= BIT(10),
};

/**
 * struct xib_cm_trans - one entry of the state table
 * @next: the state the id is in afterwards
 * @flags: what is done (XIB_CM_T_*)
 */
struct xib_cm_trans {
	enum xib_cm_state next;
	u32 flags;
};

int xib_cm_next(enum xib_cm_state state, enum xib_cm_op op,
		struct xib_cm_trans *t);

int xib_cm_init(void);
void xib_cm_exit(void);

#endif /* _XIB_CM_PRIV_H */
