// SPDX-License-Identifier: GPL-2.0
/*
 * The rdma_cm_id state machine: one table of (state, operation) -> next
 * state.  Documentation/rdma-cm.rst shows it in readable form;
 * tests/kunit/xib_cma_test.c checks it against an oracle written from
 * the librdmacm pages.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <xib/xib_cma.h>

/* Stored as next state + 1, so that 0 (the default) means "refused". */
#define TO(s)	((s) + 1)

static const u8 xib_cma_table[XIB_CMA_STATE_MAX][XIB_CMA_OP_MAX] = {
	[XIB_CMA_IDLE] = {
		[XIB_CMA_OP_BIND]		= TO(XIB_CMA_ADDR_BOUND),
		[XIB_CMA_OP_RESOLVE_ADDR]	= TO(XIB_CMA_ADDR_QUERY),
		[XIB_CMA_OP_REQ_RCVD]		= TO(XIB_CMA_CONNECT),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ADDR_BOUND] = {
		[XIB_CMA_OP_RESOLVE_ADDR]	= TO(XIB_CMA_ADDR_QUERY),
		[XIB_CMA_OP_LISTEN]		= TO(XIB_CMA_LISTEN),
		[XIB_CMA_OP_JOIN_MCAST]		= TO(XIB_CMA_ADDR_BOUND),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ADDR_QUERY] = {
		[XIB_CMA_OP_ADDR_DONE]		= TO(XIB_CMA_ADDR_RESOLVED),
		[XIB_CMA_OP_ADDR_FAIL]		= TO(XIB_CMA_ADDR_BOUND),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ADDR_RESOLVED] = {
		[XIB_CMA_OP_RESOLVE_ADDR]	= TO(XIB_CMA_ADDR_QUERY),
		[XIB_CMA_OP_RESOLVE_ROUTE]	= TO(XIB_CMA_ROUTE_QUERY),
		[XIB_CMA_OP_JOIN_MCAST]		= TO(XIB_CMA_ADDR_RESOLVED),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ROUTE_QUERY] = {
		[XIB_CMA_OP_ROUTE_DONE]		= TO(XIB_CMA_ROUTE_RESOLVED),
		[XIB_CMA_OP_ROUTE_FAIL]		= TO(XIB_CMA_ADDR_RESOLVED),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ROUTE_RESOLVED] = {
		[XIB_CMA_OP_CONNECT]		= TO(XIB_CMA_CONNECT),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_LISTEN] = {
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_CONNECT] = {
		[XIB_CMA_OP_ACCEPT]		= TO(XIB_CMA_CONNECT),
		[XIB_CMA_OP_REJECT]		= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_REP_RCVD]		= TO(XIB_CMA_CONNECT),
		[XIB_CMA_OP_ESTABLISHED]	= TO(XIB_CMA_ESTABLISHED),
		[XIB_CMA_OP_CONN_FAIL]		= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DISCONNECT]		= TO(XIB_CMA_DISCONNECT),
		/* a DREQ that overtook a lost RTU (the IB CM accepts it) */
		[XIB_CMA_OP_DISCONNECTED]	= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_ESTABLISHED] = {
		[XIB_CMA_OP_DISCONNECT]		= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DISCONNECTED]	= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_DISCONNECT] = {
		[XIB_CMA_OP_DISCONNECT]		= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DISCONNECTED]	= TO(XIB_CMA_DISCONNECT),
		[XIB_CMA_OP_DEVICE_REMOVAL]	= TO(XIB_CMA_DEVICE_REMOVAL),
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
	[XIB_CMA_DEVICE_REMOVAL] = {
		[XIB_CMA_OP_DESTROY]		= TO(XIB_CMA_DESTROYING),
	},
};

/**
 * xib_cma_next_state() - the state an operation leads to
 * @state: the id's state
 * @op: what is asked or what happened
 *
 * Return: the next state, or -EINVAL if @op is not allowed in @state.
 */
int xib_cma_next_state(enum xib_cma_state state, enum xib_cma_op op)
{
	u8 to;

	if ((unsigned int)state >= XIB_CMA_STATE_MAX ||
	    (unsigned int)op >= XIB_CMA_OP_MAX)
		return -EINVAL;
	to = xib_cma_table[state][op];
	return to ? to - 1 : -EINVAL;
}
EXPORT_SYMBOL_GPL(xib_cma_next_state);
