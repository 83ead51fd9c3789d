// SPDX-License-Identifier: GPL-2.0
/*
 * The IB CM state machine (IBTA vol. 1, 12.9) as one table: for every
 * state of enum xib_cm_state and every operation of enum xib_cm_op,
 * whether it is legal, the state it leads to and what the CM does on the
 * way (cm_priv.h, XIB_CM_T_*).  Everything not in the table is refused:
 * a call fails with -EINVAL, a message is dropped.
 *
 * Where IBTA leaves a choice the table follows what the Linux ib_cm does,
 * so that both ends agree: a REJ received while a REQ or REP awaits its
 * answer ends the connection without timewait unless its reason is
 * STALE_CONN; a REJ received after the REP, or a timeout of the REP or
 * DREQ, goes through timewait.  Two extensions: a duplicate REQ (REP)
 * that finds the consumer still deciding is answered with an MRA, as the
 * Linux RDMA CM has its CM do, and xib_cm_establish() on an established
 * connection is a no-op.
 *
 * Documentation/cm.rst shows the table; tests/kunit/xib_cm_test.c checks
 * it against an oracle written from IBTA's state diagrams.
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/nospec.h>

#include "cm_priv.h"

/* Stored as next state + 1, so that 0 (the default) means "refused". */
#define TO(s, f)	{ .next = (s) + 1, .flags = (f) }

#define EV		XIB_CM_T_EVENT
#define DUP		XIB_CM_T_DUP
#define CANCEL		XIB_CM_T_CANCEL
#define EXTEND		XIB_CM_T_EXTEND
#define RESEND		XIB_CM_T_RESEND
#define MRA		XIB_CM_T_MRA
#define REJ		XIB_CM_T_REJ
#define STALE		XIB_CM_T_STALE
#define DREQ		XIB_CM_T_DREQ
#define DREP		XIB_CM_T_DREP
#define SIDR		XIB_CM_T_SIDR

struct xib_cm_entry {
	u8 next;
	u16 flags;
};

static const struct xib_cm_entry xib_cm_table[XIB_CM_STATE_MAX][XIB_CM_OP_MAX] = {
	[XIB_CM_IDLE] = {
		[XIB_CM_OP_LISTEN]	= TO(XIB_CM_LISTEN, 0),
		[XIB_CM_OP_SEND_REQ]	= TO(XIB_CM_REQ_SENT, 0),
		[XIB_CM_OP_SEND_SIDR_REQ] = TO(XIB_CM_SIDR_REQ_SENT, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, 0),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_REQ_RCVD, EV),
		[XIB_CM_OP_RECV_SIDR_REQ] = TO(XIB_CM_SIDR_REQ_RCVD, EV),
	},
	[XIB_CM_LISTEN] = {
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, 0),
	},
	[XIB_CM_REQ_SENT] = {
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_IDLE, CANCEL),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, CANCEL | REJ),
		[XIB_CM_OP_RECV_MRA_REQ] = TO(XIB_CM_MRA_REQ_RCVD, EV | EXTEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV | CANCEL),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_REP]	= TO(XIB_CM_REP_RCVD, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_IDLE, EV | REJ),
	},
	[XIB_CM_MRA_REQ_RCVD] = {
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_IDLE, CANCEL),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, CANCEL | REJ),
		[XIB_CM_OP_RECV_MRA_REQ] = TO(XIB_CM_MRA_REQ_RCVD, DUP | EXTEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV | CANCEL),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_REP]	= TO(XIB_CM_REP_RCVD, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_IDLE, EV | REJ),
	},
	[XIB_CM_REQ_RCVD] = {
		[XIB_CM_OP_SEND_REP]	= TO(XIB_CM_REP_SENT, 0),
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_IDLE, 0),
		[XIB_CM_OP_SEND_MRA]	= TO(XIB_CM_MRA_REQ_SENT, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, REJ),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_MRA_REQ_SENT, DUP | MRA),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV),
	},
	[XIB_CM_MRA_REQ_SENT] = {
		[XIB_CM_OP_SEND_REP]	= TO(XIB_CM_REP_SENT, 0),
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_IDLE, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, REJ),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_MRA_REQ_SENT, DUP | RESEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV),
	},
	[XIB_CM_REP_SENT] = {
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_TIMEWAIT, CANCEL),
		[XIB_CM_OP_ESTABLISH]	= TO(XIB_CM_ESTABLISHED, EV | CANCEL),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, CANCEL | REJ),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_REP_SENT, DUP | RESEND),
		[XIB_CM_OP_RECV_MRA_REP] = TO(XIB_CM_MRA_REP_RCVD, EV | EXTEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV | CANCEL),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_RTU]	= TO(XIB_CM_ESTABLISHED, EV | CANCEL),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_DREQ_RCVD, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_TIMEWAIT, EV | REJ),
	},
	[XIB_CM_MRA_REP_RCVD] = {
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_TIMEWAIT, CANCEL),
		[XIB_CM_OP_ESTABLISH]	= TO(XIB_CM_ESTABLISHED, EV | CANCEL),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, CANCEL | REJ),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_MRA_REP_RCVD, DUP | RESEND),
		[XIB_CM_OP_RECV_MRA_REP] = TO(XIB_CM_MRA_REP_RCVD, DUP | EXTEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_IDLE, EV | CANCEL),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_RTU]	= TO(XIB_CM_ESTABLISHED, EV | CANCEL),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_DREQ_RCVD, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_TIMEWAIT, EV | REJ),
	},
	[XIB_CM_REP_RCVD] = {
		[XIB_CM_OP_SEND_RTU]	= TO(XIB_CM_ESTABLISHED, 0),
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_TIMEWAIT, 0),
		[XIB_CM_OP_SEND_MRA]	= TO(XIB_CM_MRA_REP_SENT, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, REJ),
		[XIB_CM_OP_RECV_REP]	= TO(XIB_CM_MRA_REP_SENT, DUP | MRA),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_TIMEWAIT, EV),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV),
	},
	[XIB_CM_MRA_REP_SENT] = {
		[XIB_CM_OP_SEND_RTU]	= TO(XIB_CM_ESTABLISHED, 0),
		[XIB_CM_OP_SEND_REJ]	= TO(XIB_CM_TIMEWAIT, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, REJ),
		[XIB_CM_OP_RECV_REP]	= TO(XIB_CM_MRA_REP_SENT, DUP | RESEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_TIMEWAIT, EV),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV),
	},
	[XIB_CM_ESTABLISHED] = {
		[XIB_CM_OP_SEND_DREQ]	= TO(XIB_CM_DREQ_SENT, 0),
		[XIB_CM_OP_ESTABLISH]	= TO(XIB_CM_ESTABLISHED, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_DREQ_SENT, DREQ),
		[XIB_CM_OP_RECV_REP]	= TO(XIB_CM_ESTABLISHED, DUP | RESEND),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_TIMEWAIT, EV),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV),
		[XIB_CM_OP_RECV_RTU]	= TO(XIB_CM_ESTABLISHED, DUP),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_DREQ_RCVD, EV),
	},
	[XIB_CM_DREQ_SENT] = {
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, CANCEL),
		[XIB_CM_OP_RECV_REJ]	= TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_REJ_STALE] = TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_DREQ_RCVD, EV | CANCEL),
		[XIB_CM_OP_RECV_DREP]	= TO(XIB_CM_TIMEWAIT, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_TIMEWAIT, EV),
	},
	[XIB_CM_DREQ_RCVD] = {
		[XIB_CM_OP_SEND_DREP]	= TO(XIB_CM_TIMEWAIT, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, DREP),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_DREQ_RCVD, DUP),
	},
	[XIB_CM_TIMEWAIT] = {
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_TIMEWAIT, 0),
		[XIB_CM_OP_RECV_REQ]	= TO(XIB_CM_TIMEWAIT, DUP | STALE),
		[XIB_CM_OP_RECV_DREQ]	= TO(XIB_CM_TIMEWAIT, DUP | DREP),
		[XIB_CM_OP_RECV_DREP]	= TO(XIB_CM_TIMEWAIT, DUP),
		[XIB_CM_OP_TIMEWAIT_EXIT] = TO(XIB_CM_IDLE, EV),
	},
	[XIB_CM_SIDR_REQ_SENT] = {
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, CANCEL),
		[XIB_CM_OP_RECV_SIDR_REP] = TO(XIB_CM_IDLE, EV | CANCEL),
		[XIB_CM_OP_TIMEOUT]	= TO(XIB_CM_IDLE, EV),
	},
	[XIB_CM_SIDR_REQ_RCVD] = {
		[XIB_CM_OP_SEND_SIDR_REP] = TO(XIB_CM_IDLE, 0),
		[XIB_CM_OP_DESTROY]	= TO(XIB_CM_IDLE, SIDR),
		[XIB_CM_OP_RECV_SIDR_REQ] = TO(XIB_CM_SIDR_REQ_RCVD, DUP),
	},
};

/**
 * xib_cm_next() - what an operation does to an id in a state
 * @state: the id's state
 * @op: what is asked or what happened
 * @t: filled in when the operation is legal
 *
 * Return: 0, or -EINVAL if @op is not allowed in @state (or either is
 * out of range).
 */
int xib_cm_next(enum xib_cm_state state, enum xib_cm_op op,
		struct xib_cm_trans *t)
{
	const struct xib_cm_entry *e;

	if ((unsigned int)state >= XIB_CM_STATE_MAX ||
	    (unsigned int)op >= XIB_CM_OP_MAX)
		return -EINVAL;
	state = array_index_nospec(state, XIB_CM_STATE_MAX);
	op = array_index_nospec(op, XIB_CM_OP_MAX);
	e = &xib_cm_table[state][op];
	if (!e->next)
		return -EINVAL;
	t->next = e->next - 1;
	t->flags = e->flags;
	return 0;
}
