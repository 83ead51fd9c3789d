// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the rdma_cm_id state machine (core/cma/cma_state.c).
 *
 * The oracle is written here as rules, independently of the table under
 * test, from the librdmacm pages of the seed (rdma_bind_addr: before
 * listen or resolve_addr; rdma_resolve_route: the address must be
 * resolved; rdma_listen: after bind; rdma_connect: after the route;
 * rdma_accept and rdma_reject: on the new id of a request, never on the
 * listener; rdma_disconnect: either side, once connecting; the events and
 * which call they end; DEVICE_REMOVAL: then only destroy), and from the
 * choices Documentation/rdma-cm.rst states where the pages are silent
 * (resolving an address again; the moves the IB CM's events make).  Every
 * (state, operation) pair is checked through xib_cma_next_state() alone.
 */

#include <kunit/test.h>
#include <xib/xib_cma.h>

/* Does the id have a device in @s (so that its removal concerns it)? */
static bool xib_test_has_device(enum xib_cma_state s)
{
	return s != XIB_CMA_IDLE && s != XIB_CMA_DEVICE_REMOVAL &&
		s != XIB_CMA_DESTROYING;
}

/* Is @s a state of a connection under way or made? */
static bool xib_test_connected(enum xib_cma_state s)
{
	return s == XIB_CMA_CONNECT || s == XIB_CMA_ESTABLISHED ||
		s == XIB_CMA_DISCONNECT;
}

/* The expected next state, or -EINVAL. */
static int xib_test_oracle(enum xib_cma_state s, enum xib_cma_op op)
{
	switch (op) {
	case XIB_CMA_OP_DESTROY:
		return s == XIB_CMA_DESTROYING ? -EINVAL : XIB_CMA_DESTROYING;
	case XIB_CMA_OP_DEVICE_REMOVAL:
		return xib_test_has_device(s) ? XIB_CMA_DEVICE_REMOVAL : -EINVAL;
	case XIB_CMA_OP_BIND:
		return s == XIB_CMA_IDLE ? XIB_CMA_ADDR_BOUND : -EINVAL;
	case XIB_CMA_OP_RESOLVE_ADDR:
		/* an unbound id binds first; a resolved one may resolve again */
		return s == XIB_CMA_IDLE || s == XIB_CMA_ADDR_BOUND ||
			s == XIB_CMA_ADDR_RESOLVED ? XIB_CMA_ADDR_QUERY : -EINVAL;
	case XIB_CMA_OP_ADDR_DONE:
		return s == XIB_CMA_ADDR_QUERY ? XIB_CMA_ADDR_RESOLVED : -EINVAL;
	case XIB_CMA_OP_ADDR_FAIL:
		return s == XIB_CMA_ADDR_QUERY ? XIB_CMA_ADDR_BOUND : -EINVAL;
	case XIB_CMA_OP_RESOLVE_ROUTE:
		return s == XIB_CMA_ADDR_RESOLVED ? XIB_CMA_ROUTE_QUERY : -EINVAL;
	case XIB_CMA_OP_ROUTE_DONE:
		return s == XIB_CMA_ROUTE_QUERY ? XIB_CMA_ROUTE_RESOLVED : -EINVAL;
	case XIB_CMA_OP_ROUTE_FAIL:
		return s == XIB_CMA_ROUTE_QUERY ? XIB_CMA_ADDR_RESOLVED : -EINVAL;
	case XIB_CMA_OP_LISTEN:
		return s == XIB_CMA_ADDR_BOUND ? XIB_CMA_LISTEN : -EINVAL;
	case XIB_CMA_OP_CONNECT:
		return s == XIB_CMA_ROUTE_RESOLVED ? XIB_CMA_CONNECT : -EINVAL;
	case XIB_CMA_OP_REQ_RCVD:
		/* the new id of a request starts connecting */
		return s == XIB_CMA_IDLE ? XIB_CMA_CONNECT : -EINVAL;
	case XIB_CMA_OP_ACCEPT:
	case XIB_CMA_OP_REP_RCVD:
		/* the connection is still being made */
		return s == XIB_CMA_CONNECT ? XIB_CMA_CONNECT : -EINVAL;
	case XIB_CMA_OP_ESTABLISHED:
		return s == XIB_CMA_CONNECT ? XIB_CMA_ESTABLISHED : -EINVAL;
	case XIB_CMA_OP_REJECT:
	case XIB_CMA_OP_CONN_FAIL:
		return s == XIB_CMA_CONNECT ? XIB_CMA_DISCONNECT : -EINVAL;
	case XIB_CMA_OP_DISCONNECT:
		/* either side, once connecting, and again to answer a DREQ */
		return xib_test_connected(s) ? XIB_CMA_DISCONNECT : -EINVAL;
	case XIB_CMA_OP_DISCONNECTED:
		/*
		 * the peer's DREQ or DREP; the IB CM takes a DREQ in
		 * REP_SENT (the RTU lost), which ends the connection too
		 */
		return xib_test_connected(s) ? XIB_CMA_DISCONNECT : -EINVAL;
	case XIB_CMA_OP_JOIN_MCAST:
		/*
		 * rdma_join_multicast: on a bound or resolved id, which
		 * stays where it is (a joined id may still resolve again)
		 */
		return s == XIB_CMA_ADDR_BOUND || s == XIB_CMA_ADDR_RESOLVED ?
			s : -EINVAL;
	default:
		return -EINVAL;
	}
}

static void xib_cma_state_every_pair(struct kunit *test)
{
	int s, op, want, got;

	for (s = 0; s < XIB_CMA_STATE_MAX; s++) {
		for (op = 0; op < XIB_CMA_OP_MAX; op++) {
			want = xib_test_oracle(s, op);
			got = xib_cma_next_state(s, op);
			KUNIT_EXPECT_EQ_MSG(test, got, want, "state %d, operation %d",
					    s, op);
		}
	}
}

/* The paths of the librdmacm pages' client and server flows. */
static void xib_cma_state_flows(struct kunit *test)
{
	static const enum xib_cma_op client[] = {
		XIB_CMA_OP_RESOLVE_ADDR, XIB_CMA_OP_ADDR_DONE,
		XIB_CMA_OP_RESOLVE_ROUTE, XIB_CMA_OP_ROUTE_DONE,
		XIB_CMA_OP_CONNECT, XIB_CMA_OP_REP_RCVD,
		XIB_CMA_OP_ESTABLISHED, XIB_CMA_OP_DISCONNECT,
		XIB_CMA_OP_DISCONNECTED, XIB_CMA_OP_DESTROY,
	};
	static const enum xib_cma_op server[] = {
		XIB_CMA_OP_REQ_RCVD, XIB_CMA_OP_ACCEPT, XIB_CMA_OP_ESTABLISHED,
		XIB_CMA_OP_DISCONNECTED, XIB_CMA_OP_DISCONNECT,
		XIB_CMA_OP_DESTROY,
	};
	int s, i;

	for (s = XIB_CMA_IDLE, i = 0; i < ARRAY_SIZE(client); i++) {
		s = xib_cma_next_state(s, client[i]);
		KUNIT_ASSERT_GE_MSG(test, s, 0, "client step %d", i);
	}
	KUNIT_EXPECT_EQ(test, s, XIB_CMA_DESTROYING);
	for (s = XIB_CMA_IDLE, i = 0; i < ARRAY_SIZE(server); i++) {
		s = xib_cma_next_state(s, server[i]);
		KUNIT_ASSERT_GE_MSG(test, s, 0, "server step %d", i);
	}
	KUNIT_EXPECT_EQ(test, s, XIB_CMA_DESTROYING);
	/* a listener: bind, listen, then only removal and destroy */
	s = xib_cma_next_state(XIB_CMA_IDLE, XIB_CMA_OP_BIND);
	s = xib_cma_next_state(s, XIB_CMA_OP_LISTEN);
	KUNIT_EXPECT_EQ(test, s, XIB_CMA_LISTEN);
	KUNIT_EXPECT_EQ(test, xib_cma_next_state(s, XIB_CMA_OP_ACCEPT), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_cma_next_state(s, XIB_CMA_OP_CONNECT), -EINVAL);
}

static void xib_cma_state_out_of_range(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xib_cma_next_state(XIB_CMA_STATE_MAX,
						 XIB_CMA_OP_DESTROY), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_cma_next_state(XIB_CMA_IDLE, XIB_CMA_OP_MAX),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xib_cma_next_state(-1, XIB_CMA_OP_BIND), -EINVAL);
}

static struct kunit_case xib_cma_state_cases[] = {
	KUNIT_CASE(xib_cma_state_every_pair),
	KUNIT_CASE(xib_cma_state_flows),
	KUNIT_CASE(xib_cma_state_out_of_range),
	{}
};

static struct kunit_suite xib_cma_state_suite = {
	.name = "xib_cma_state",
	.test_cases = xib_cma_state_cases,
};

kunit_test_suite(xib_cma_state_suite);

MODULE_DESCRIPTION("KUnit tests of the rdma_cm_id state machine");
MODULE_LICENSE("GPL");
