// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine of IBTA vol 1 ch. 10.3 and the attribute rules of
 * its Modify QP verb (ch. 11.2.4.2), as one table.
 *
 * xib_qp_table[cur][next] describes the modify-QP request that moves a QP
 * from @cur to @next: for each QP type whether it exists, which attributes
 * it must carry (req) and which it may carry (opt); XRC's initiator
 * (XRC_SEND) and target (XRC_RECV) have columns of their own.  XIB_QP_STATE is not
 * in the table: a request that changes the state carries it by definition,
 * and one without it is the cur -> cur entry.  Anything else a request
 * carries is refused.
 */

#include <linux/bits.h>
#include <linux/export.h>
#include <linux/nospec.h>

#include <xib/qp_state.h>

/**
 * struct xib_qp_attrs - the attribute rule of one transition for one type
 * @ok: the transition exists for this QP type
 * @req: attributes the request must carry
 * @opt: attributes the request may carry
 */
struct xib_qp_attrs {
	bool ok;
	u32 req;
	u32 opt;
};

struct xib_qp_edge {
	struct xib_qp_attrs rc;
	struct xib_qp_attrs uc;
	struct xib_qp_attrs ud;
	struct xib_qp_attrs xrc_ini;
	struct xib_qp_attrs xrc_tgt;
};

#define XIB_QP_ALLOW(r, o)	{ .ok = true, .req = (r), .opt = (o) }

/* A transition every type may make, with no attribute but the state. */
#define XIB_QP_EDGE_BARE {		\
	.rc = XIB_QP_ALLOW(0, 0),	\
	.uc = XIB_QP_ALLOW(0, 0),	\
	.ud = XIB_QP_ALLOW(0, 0),	\
	.xrc_ini = XIB_QP_ALLOW(0, 0),	\
	.xrc_tgt = XIB_QP_ALLOW(0, 0),	\
}

/*
 * Attribute groups that recur.  XIB_QP_CONN_INIT: what a connected QP
 * (RC, UC) sets in INIT; XIB_QP_UD_INIT: the same for UD.
 */
#define XIB_QP_CONN_INIT	(XIB_QP_PKEY_INDEX | XIB_QP_PORT | \
				 XIB_QP_ACCESS_FLAGS)
#define XIB_QP_UD_INIT		(XIB_QP_PKEY_INDEX | XIB_QP_PORT | XIB_QP_QKEY)
/* The primary path and remote QP a UC or RC QP is connected to. */
#define XIB_QP_CONN_RTR		(XIB_QP_AV | XIB_QP_PATH_MTU | \
				 XIB_QP_DEST_QPN | XIB_QP_RQ_PSN)
/* RC's responder resources and RNR NAK timer, needed to receive. */
#define XIB_QP_RC_RTR		(XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER)
/* RC's requester: ACK timeout, retries and outstanding reads/atomics. */
#define XIB_QP_RC_RTS		(XIB_QP_TIMEOUT | XIB_QP_RETRY_CNT | \
				 XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC)
/* What a UC QP may change on its way to, or while in, RTS. */
#define XIB_QP_UC_TO_RTS	(XIB_QP_CUR_STATE | XIB_QP_ACCESS_FLAGS | \
				 XIB_QP_ALT_PATH | XIB_QP_PATH_MIG_STATE)
#define XIB_QP_RC_TO_RTS	(XIB_QP_UC_TO_RTS | XIB_QP_MIN_RNR_TIMER)
#define XIB_QP_UD_TO_RTS	(XIB_QP_CUR_STATE | XIB_QP_QKEY)
/*
 * XRC (IBTA 9.8, and Linux's ib_modify_qp_is_ok() table): an initiator
 * is an RC requester without a receive side, so it never takes RC's
 * responder attributes (max_dest_rd_atomic, min_rnr_timer); a target is
 * an RC responder without a send side: of RC's requester attributes it
 * takes the ACK timeout, never retries or the requester's READ depth.
 */
#define XIB_QP_TGT_RTS		(XIB_QP_TIMEOUT | XIB_QP_SQ_PSN)

static const struct xib_qp_edge xib_qp_table[XIB_QPS_ERR + 1][XIB_QPS_ERR + 1] = {
	[XIB_QPS_RESET] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_INIT] = {
			.rc = XIB_QP_ALLOW(XIB_QP_CONN_INIT, 0),
			.uc = XIB_QP_ALLOW(XIB_QP_CONN_INIT, 0),
			.ud = XIB_QP_ALLOW(XIB_QP_UD_INIT, 0),
			.xrc_ini = XIB_QP_ALLOW(XIB_QP_CONN_INIT, 0),
			.xrc_tgt = XIB_QP_ALLOW(XIB_QP_CONN_INIT, 0),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	[XIB_QPS_INIT] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_INIT] = {
			.rc = XIB_QP_ALLOW(0, XIB_QP_CONN_INIT),
			.uc = XIB_QP_ALLOW(0, XIB_QP_CONN_INIT),
			.ud = XIB_QP_ALLOW(0, XIB_QP_UD_INIT),
			.xrc_ini = XIB_QP_ALLOW(0, XIB_QP_CONN_INIT),
			.xrc_tgt = XIB_QP_ALLOW(0, XIB_QP_CONN_INIT),
		},
		[XIB_QPS_RTR] = {
			.rc = XIB_QP_ALLOW(XIB_QP_CONN_RTR | XIB_QP_RC_RTR,
					   XIB_QP_ALT_PATH | XIB_QP_ACCESS_FLAGS |
					   XIB_QP_PKEY_INDEX),
			.uc = XIB_QP_ALLOW(XIB_QP_CONN_RTR,
					   XIB_QP_ALT_PATH | XIB_QP_ACCESS_FLAGS |
					   XIB_QP_PKEY_INDEX),
			.ud = XIB_QP_ALLOW(0, XIB_QP_PKEY_INDEX | XIB_QP_QKEY),
			.xrc_ini = XIB_QP_ALLOW(XIB_QP_CONN_RTR,
						XIB_QP_ALT_PATH |
						XIB_QP_ACCESS_FLAGS |
						XIB_QP_PKEY_INDEX),
			.xrc_tgt = XIB_QP_ALLOW(XIB_QP_CONN_RTR | XIB_QP_RC_RTR,
						XIB_QP_ALT_PATH |
						XIB_QP_ACCESS_FLAGS |
						XIB_QP_PKEY_INDEX),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	[XIB_QPS_RTR] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_RTS] = {
			.rc = XIB_QP_ALLOW(XIB_QP_SQ_PSN | XIB_QP_RC_RTS,
					   XIB_QP_RC_TO_RTS),
			.uc = XIB_QP_ALLOW(XIB_QP_SQ_PSN, XIB_QP_UC_TO_RTS),
			.ud = XIB_QP_ALLOW(XIB_QP_SQ_PSN, XIB_QP_UD_TO_RTS),
			.xrc_ini = XIB_QP_ALLOW(XIB_QP_SQ_PSN | XIB_QP_RC_RTS,
						XIB_QP_UC_TO_RTS),
			.xrc_tgt = XIB_QP_ALLOW(XIB_QP_TGT_RTS, XIB_QP_RC_TO_RTS),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	[XIB_QPS_RTS] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_RTS] = {
			.rc = XIB_QP_ALLOW(0, XIB_QP_RC_TO_RTS),
			.uc = XIB_QP_ALLOW(0, XIB_QP_UC_TO_RTS),
			.ud = XIB_QP_ALLOW(0, XIB_QP_UD_TO_RTS),
			.xrc_ini = XIB_QP_ALLOW(0, XIB_QP_UC_TO_RTS),
			.xrc_tgt = XIB_QP_ALLOW(0, XIB_QP_RC_TO_RTS),
		},
		[XIB_QPS_SQD] = {
			.rc = XIB_QP_ALLOW(0, XIB_QP_EN_SQD_ASYNC_NOTIFY),
			.uc = XIB_QP_ALLOW(0, XIB_QP_EN_SQD_ASYNC_NOTIFY),
			.ud = XIB_QP_ALLOW(0, XIB_QP_EN_SQD_ASYNC_NOTIFY),
			.xrc_ini = XIB_QP_ALLOW(0, XIB_QP_EN_SQD_ASYNC_NOTIFY),
			.xrc_tgt = XIB_QP_ALLOW(0, XIB_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	[XIB_QPS_SQD] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_RTS] = {
			.rc = XIB_QP_ALLOW(0, XIB_QP_RC_TO_RTS),
			.uc = XIB_QP_ALLOW(0, XIB_QP_UC_TO_RTS),
			.ud = XIB_QP_ALLOW(0, XIB_QP_UD_TO_RTS),
			.xrc_ini = XIB_QP_ALLOW(0, XIB_QP_UC_TO_RTS),
			.xrc_tgt = XIB_QP_ALLOW(0, XIB_QP_RC_TO_RTS),
		},
		/* Once drained, the path and the QP's limits may change. */
		[XIB_QPS_SQD] = {
			.rc = XIB_QP_ALLOW(0, XIB_QP_PORT | XIB_QP_AV |
					   XIB_QP_ALT_PATH |
					   XIB_QP_PATH_MIG_STATE |
					   XIB_QP_PKEY_INDEX |
					   XIB_QP_ACCESS_FLAGS |
					   XIB_QP_RC_RTR | XIB_QP_RC_RTS),
			.uc = XIB_QP_ALLOW(0, XIB_QP_AV | XIB_QP_ALT_PATH |
					   XIB_QP_PATH_MIG_STATE |
					   XIB_QP_PKEY_INDEX |
					   XIB_QP_ACCESS_FLAGS),
			.ud = XIB_QP_ALLOW(0, XIB_QP_PKEY_INDEX | XIB_QP_QKEY),
			.xrc_ini = XIB_QP_ALLOW(0, XIB_QP_PORT | XIB_QP_AV |
						XIB_QP_ALT_PATH |
						XIB_QP_PATH_MIG_STATE |
						XIB_QP_PKEY_INDEX |
						XIB_QP_ACCESS_FLAGS |
						XIB_QP_RC_RTS),
			.xrc_tgt = XIB_QP_ALLOW(0, XIB_QP_PORT | XIB_QP_AV |
						XIB_QP_ALT_PATH |
						XIB_QP_PATH_MIG_STATE |
						XIB_QP_PKEY_INDEX |
						XIB_QP_ACCESS_FLAGS |
						XIB_QP_RC_RTR |
						XIB_QP_TIMEOUT),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	/*
	 * Only UC and UD QPs enter SQE: an RC send error takes the QP to
	 * ERR.  So there is no SQE -> RTS for RC.
	 */
	[XIB_QPS_SQE] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_RTS] = {
			.uc = XIB_QP_ALLOW(0, XIB_QP_CUR_STATE |
					   XIB_QP_ACCESS_FLAGS),
			.ud = XIB_QP_ALLOW(0, XIB_QP_UD_TO_RTS),
		},
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
	[XIB_QPS_ERR] = {
		[XIB_QPS_RESET] = XIB_QP_EDGE_BARE,
		[XIB_QPS_ERR] = XIB_QP_EDGE_BARE,
	},
};

static const struct xib_qp_attrs *xib_qp_rule(const struct xib_qp_edge *edge,
					      enum xib_qp_type type)
{
	const struct xib_qp_attrs *attrs;

	switch (type) {
	case XIB_QPT_RC:
		attrs = &edge->rc;
		break;
	case XIB_QPT_UC:
		attrs = &edge->uc;
		break;
	case XIB_QPT_UD:
		attrs = &edge->ud;
		break;
	case XIB_QPT_XRC_SEND:
		attrs = &edge->xrc_ini;
		break;
	case XIB_QPT_XRC_RECV:
		attrs = &edge->xrc_tgt;
		break;
	default:
		return NULL;
	}
	return attrs->ok ? attrs : NULL;
}

/**
 * xib_qp_transition_ok() - may a modify-QP request be applied to a QP?
 * @cur: the state the QP is in
 * @next: the state the request asks for; ignored (taken as @cur) unless
 *	@attr_mask has XIB_QP_STATE
 * @type: the QP's type; XIB_QPT_RC, _UC, _UD, _XRC_SEND and _XRC_RECV
 *	are supported
 * @attr_mask: the XIB_QP_* attributes the request carries
 * @missing: if not NULL, set to the attributes the transition requires
 *	that @attr_mask lacks
 * @unexpected: if not NULL, set to the bits of @attr_mask the transition
 *	does not allow, unknown bits included
 *
 * Checks the request against the IBTA state machine only: whether the
 * attribute values are acceptable is the caller's business.
 *
 * Return: true if the transition exists for @type and @attr_mask carries
 * every attribute it requires and nothing it does not allow.  When false
 * with both *@missing and *@unexpected zero, the transition itself is
 * refused: an invalid state or type, or no such transition.
 */
bool xib_qp_transition_ok(enum xib_qp_state cur, enum xib_qp_state next,
			  enum xib_qp_type type, u32 attr_mask,
			  u32 *missing, u32 *unexpected)
{
	const struct xib_qp_attrs *attrs = NULL;
	u32 lack = 0, extra = 0;
	unsigned int c = cur, n = next;

	if (!(attr_mask & XIB_QP_STATE))
		n = c;
	if (c <= XIB_QPS_ERR && n <= XIB_QPS_ERR) {
		c = array_index_nospec(c, XIB_QPS_ERR + 1);
		n = array_index_nospec(n, XIB_QPS_ERR + 1);
		attrs = xib_qp_rule(&xib_qp_table[c][n], type);
	}
	if (attrs) {
		lack = attrs->req & ~attr_mask;
		extra = attr_mask & ~(XIB_QP_STATE | attrs->req | attrs->opt);
	}
	if (missing)
		*missing = lack;
	if (unexpected)
		*unexpected = extra;
	return attrs && !lack && !extra;
}
EXPORT_SYMBOL_GPL(xib_qp_transition_ok);
