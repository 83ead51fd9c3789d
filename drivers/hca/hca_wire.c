// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca wire format: the opcode table, and parsing and building of the
 * InfiniBand transport headers of a RoCEv2 packet (the part that follows
 * the UDP header).  See hca_wire.h and Documentation/hca-wire.rst.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <uapi/xib/hca-abi.h>

#include "hca_wire.h"

#define XIB_H(hdr)	BIT(XIB_HDR_##hdr)
#define XIB_X		XIB_H(XRCETH)

/* @len: BTH and extension headers (the test checks it against @h) */
#define XIB_OPC(t, op, h, len, fl)				\
	[XIB_TRANSPORT_##t | XIB_OP_##op] = {			\
		.name = #t " " #op,				\
		.hdrs = (h),					\
		.hdr_len = (len),				\
		.flags = (fl),					\
	}

/* Requests with payload, by position in the message. */
#define XIB_RQ_FIRST	(XIB_OPF_REQ | XIB_OPF_PAYLOAD | XIB_OPF_FIRST)
#define XIB_RQ_MIDDLE	(XIB_OPF_REQ | XIB_OPF_PAYLOAD | XIB_OPF_MIDDLE)
#define XIB_RQ_LAST	(XIB_OPF_REQ | XIB_OPF_PAYLOAD | XIB_OPF_LAST)
#define XIB_RQ_ONLY	(XIB_OPF_REQ | XIB_OPF_PAYLOAD | XIB_OPF_ONLY)

/*
 * IBTA vol. 1 table 38 for the RC, UC, UD and XRC transports.  RD, CNP
 * and the vendor-specific ranges are not supported: their entries stay
 * empty.  XRC has RC's operations; its requests carry an XRCETH right
 * after the BTH (before a RETH, AtomicETH, ImmDt or IETH), its responses
 * do not.
 */
static const struct xib_hca_opcode_info xib_hca_opcodes[256] = {
	XIB_OPC(RC, SEND_FIRST, 0, 12, XIB_RQ_FIRST),
	XIB_OPC(RC, SEND_MIDDLE, 0, 12, XIB_RQ_MIDDLE),
	XIB_OPC(RC, SEND_LAST, 0, 12, XIB_RQ_LAST),
	XIB_OPC(RC, SEND_LAST_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(RC, SEND_ONLY, 0, 12, XIB_RQ_ONLY),
	XIB_OPC(RC, SEND_ONLY_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_ONLY | XIB_OPF_IMM),
	XIB_OPC(RC, RDMA_WRITE_FIRST, XIB_H(RETH), 28, XIB_RQ_FIRST),
	XIB_OPC(RC, RDMA_WRITE_MIDDLE, 0, 12, XIB_RQ_MIDDLE),
	XIB_OPC(RC, RDMA_WRITE_LAST, 0, 12, XIB_RQ_LAST),
	XIB_OPC(RC, RDMA_WRITE_LAST_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(RC, RDMA_WRITE_ONLY, XIB_H(RETH), 28, XIB_RQ_ONLY),
	XIB_OPC(RC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, XIB_H(RETH) | XIB_H(IMMDT), 32,
		XIB_RQ_ONLY | XIB_OPF_IMM),
	XIB_OPC(RC, RDMA_READ_REQUEST, XIB_H(RETH), 28,
		XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(RC, RDMA_READ_RESPONSE_FIRST, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_FIRST),
	XIB_OPC(RC, RDMA_READ_RESPONSE_MIDDLE, 0, 12,
		XIB_OPF_PAYLOAD | XIB_OPF_MIDDLE),
	XIB_OPC(RC, RDMA_READ_RESPONSE_LAST, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_LAST),
	XIB_OPC(RC, RDMA_READ_RESPONSE_ONLY, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_ONLY),
	XIB_OPC(RC, ACKNOWLEDGE, XIB_H(AETH), 16, XIB_OPF_ONLY),
	XIB_OPC(RC, ATOMIC_ACKNOWLEDGE, XIB_H(AETH) | XIB_H(ATMACK), 24,
		XIB_OPF_ONLY),
	XIB_OPC(RC, COMPARE_SWAP, XIB_H(ATMETH), 40, XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(RC, FETCH_ADD, XIB_H(ATMETH), 40, XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(RC, SEND_LAST_WITH_INVALIDATE, XIB_H(IETH), 16,
		XIB_RQ_LAST | XIB_OPF_INV),
	XIB_OPC(RC, SEND_ONLY_WITH_INVALIDATE, XIB_H(IETH), 16,
		XIB_RQ_ONLY | XIB_OPF_INV),

	XIB_OPC(UC, SEND_FIRST, 0, 12, XIB_RQ_FIRST),
	XIB_OPC(UC, SEND_MIDDLE, 0, 12, XIB_RQ_MIDDLE),
	XIB_OPC(UC, SEND_LAST, 0, 12, XIB_RQ_LAST),
	XIB_OPC(UC, SEND_LAST_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(UC, SEND_ONLY, 0, 12, XIB_RQ_ONLY),
	XIB_OPC(UC, SEND_ONLY_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_ONLY | XIB_OPF_IMM),
	XIB_OPC(UC, RDMA_WRITE_FIRST, XIB_H(RETH), 28, XIB_RQ_FIRST),
	XIB_OPC(UC, RDMA_WRITE_MIDDLE, 0, 12, XIB_RQ_MIDDLE),
	XIB_OPC(UC, RDMA_WRITE_LAST, 0, 12, XIB_RQ_LAST),
	XIB_OPC(UC, RDMA_WRITE_LAST_WITH_IMMEDIATE, XIB_H(IMMDT), 16,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(UC, RDMA_WRITE_ONLY, XIB_H(RETH), 28, XIB_RQ_ONLY),
	XIB_OPC(UC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, XIB_H(RETH) | XIB_H(IMMDT), 32,
		XIB_RQ_ONLY | XIB_OPF_IMM),

	XIB_OPC(UD, SEND_ONLY, XIB_H(DETH), 20, XIB_RQ_ONLY),
	XIB_OPC(UD, SEND_ONLY_WITH_IMMEDIATE, XIB_H(DETH) | XIB_H(IMMDT), 24,
		XIB_RQ_ONLY | XIB_OPF_IMM),

	XIB_OPC(XRC, SEND_FIRST, XIB_X, 16, XIB_RQ_FIRST),
	XIB_OPC(XRC, SEND_MIDDLE, XIB_X, 16, XIB_RQ_MIDDLE),
	XIB_OPC(XRC, SEND_LAST, XIB_X, 16, XIB_RQ_LAST),
	XIB_OPC(XRC, SEND_LAST_WITH_IMMEDIATE, XIB_X | XIB_H(IMMDT), 20,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(XRC, SEND_ONLY, XIB_X, 16, XIB_RQ_ONLY),
	XIB_OPC(XRC, SEND_ONLY_WITH_IMMEDIATE, XIB_X | XIB_H(IMMDT), 20,
		XIB_RQ_ONLY | XIB_OPF_IMM),
	XIB_OPC(XRC, RDMA_WRITE_FIRST, XIB_X | XIB_H(RETH), 32, XIB_RQ_FIRST),
	XIB_OPC(XRC, RDMA_WRITE_MIDDLE, XIB_X, 16, XIB_RQ_MIDDLE),
	XIB_OPC(XRC, RDMA_WRITE_LAST, XIB_X, 16, XIB_RQ_LAST),
	XIB_OPC(XRC, RDMA_WRITE_LAST_WITH_IMMEDIATE, XIB_X | XIB_H(IMMDT), 20,
		XIB_RQ_LAST | XIB_OPF_IMM),
	XIB_OPC(XRC, RDMA_WRITE_ONLY, XIB_X | XIB_H(RETH), 32, XIB_RQ_ONLY),
	XIB_OPC(XRC, RDMA_WRITE_ONLY_WITH_IMMEDIATE,
		XIB_X | XIB_H(RETH) | XIB_H(IMMDT), 36, XIB_RQ_ONLY | XIB_OPF_IMM),
	XIB_OPC(XRC, RDMA_READ_REQUEST, XIB_X | XIB_H(RETH), 32,
		XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(XRC, RDMA_READ_RESPONSE_FIRST, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_FIRST),
	XIB_OPC(XRC, RDMA_READ_RESPONSE_MIDDLE, 0, 12,
		XIB_OPF_PAYLOAD | XIB_OPF_MIDDLE),
	XIB_OPC(XRC, RDMA_READ_RESPONSE_LAST, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_LAST),
	XIB_OPC(XRC, RDMA_READ_RESPONSE_ONLY, XIB_H(AETH), 16,
		XIB_OPF_PAYLOAD | XIB_OPF_ONLY),
	XIB_OPC(XRC, ACKNOWLEDGE, XIB_H(AETH), 16, XIB_OPF_ONLY),
	XIB_OPC(XRC, ATOMIC_ACKNOWLEDGE, XIB_H(AETH) | XIB_H(ATMACK), 24,
		XIB_OPF_ONLY),
	XIB_OPC(XRC, COMPARE_SWAP, XIB_X | XIB_H(ATMETH), 44,
		XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(XRC, FETCH_ADD, XIB_X | XIB_H(ATMETH), 44,
		XIB_OPF_REQ | XIB_OPF_ONLY),
	XIB_OPC(XRC, SEND_LAST_WITH_INVALIDATE, XIB_X | XIB_H(IETH), 20,
		XIB_RQ_LAST | XIB_OPF_INV),
	XIB_OPC(XRC, SEND_ONLY_WITH_INVALIDATE, XIB_X | XIB_H(IETH), 20,
		XIB_RQ_ONLY | XIB_OPF_INV),
};

/**
 * xib_hca_opcode_info() - the opcode table entry of @opcode
 * @opcode: BTH opcode
 *
 * Return: the entry, or NULL if xib does not know the opcode.
 */
const struct xib_hca_opcode_info *xib_hca_opcode_info(u8 opcode)
{
	const struct xib_hca_opcode_info *info = &xib_hca_opcodes[opcode];

	return info->name ? info : NULL;
}

/* No BTH operation: the WR opcode has no packet at this position. */
#define XIB_OP_NONE	0xff

#define XIB_WR_OPS(first, middle, last, only)				\
	{ [XIB_POS_FIRST] = (first), [XIB_POS_MIDDLE] = (middle),	\
	  [XIB_POS_LAST] = (last), [XIB_POS_ONLY] = (only) }
#define XIB_WR_ONE(only)						\
	XIB_WR_OPS(XIB_OP_NONE, XIB_OP_NONE, XIB_OP_NONE, (only))

/*
 * The requester's table: the BTH operation (the opcode's low five bits)
 * of each packet of a send WR, by WR opcode and position in the message
 * (IBTA vol. 1 9.4: the opcode sequences of a message).  The transport
 * bits come from the QP type; an operation the transport does not define
 * (table 38 has no entry: RDMA WRITE on UD, READ or atomics on UC) is
 * refused by xib_hca_req_bth_opcode().
 */
static const u8 xib_hca_wr_ops[][XIB_POS_NUM] = {
	[XIB_HCA_WR_RDMA_WRITE] =
		XIB_WR_OPS(XIB_OP_RDMA_WRITE_FIRST, XIB_OP_RDMA_WRITE_MIDDLE,
			   XIB_OP_RDMA_WRITE_LAST, XIB_OP_RDMA_WRITE_ONLY),
	[XIB_HCA_WR_RDMA_WRITE_WITH_IMM] =
		XIB_WR_OPS(XIB_OP_RDMA_WRITE_FIRST, XIB_OP_RDMA_WRITE_MIDDLE,
			   XIB_OP_RDMA_WRITE_LAST_WITH_IMMEDIATE,
			   XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
	[XIB_HCA_WR_SEND] =
		XIB_WR_OPS(XIB_OP_SEND_FIRST, XIB_OP_SEND_MIDDLE,
			   XIB_OP_SEND_LAST, XIB_OP_SEND_ONLY),
	[XIB_HCA_WR_SEND_WITH_IMM] =
		XIB_WR_OPS(XIB_OP_SEND_FIRST, XIB_OP_SEND_MIDDLE,
			   XIB_OP_SEND_LAST_WITH_IMMEDIATE,
			   XIB_OP_SEND_ONLY_WITH_IMMEDIATE),
	/* RC only: table 38 has no UC or UD SEND with invalidate */
	[XIB_HCA_WR_SEND_WITH_INV] =
		XIB_WR_OPS(XIB_OP_SEND_FIRST, XIB_OP_SEND_MIDDLE,
			   XIB_OP_SEND_LAST_WITH_INVALIDATE,
			   XIB_OP_SEND_ONLY_WITH_INVALIDATE),
	/* one request packet, whatever the length */
	[XIB_HCA_WR_RDMA_READ] = XIB_WR_ONE(XIB_OP_RDMA_READ_REQUEST),
	[XIB_HCA_WR_ATOMIC_CMP_AND_SWP] = XIB_WR_ONE(XIB_OP_COMPARE_SWAP),
	[XIB_HCA_WR_ATOMIC_FETCH_AND_ADD] = XIB_WR_ONE(XIB_OP_FETCH_ADD),
	/* local operations: no packet (hca_req.c) */
	[XIB_HCA_WR_LOCAL_INV] = XIB_WR_ONE(XIB_OP_NONE),
	[XIB_HCA_WR_BIND_MW] = XIB_WR_ONE(XIB_OP_NONE),
};

/**
 * xib_hca_req_bth_opcode() - the BTH opcode of a request packet
 * @transport: XIB_TRANSPORT_RC, _UC, _UD or _XRC (the QP's type)
 * @wr_opcode: the send WR's opcode (enum xib_hca_wr_opcode)
 * @pos: where the packet sits in the message (xib_pkt_pos())
 *
 * Return: the opcode (0 to 255), or -EINVAL if the WR opcode has no
 * packet at @pos or @transport does not carry it (the opcode table has
 * no such opcode at @pos, or none for a one-packet message: UC has SEND
 * FIRST but no SEND with invalidate).
 */
int xib_hca_req_bth_opcode(u8 transport, u32 wr_opcode, enum xib_pkt_pos pos)
{
	u8 op, opcode;

	if (wr_opcode >= ARRAY_SIZE(xib_hca_wr_ops) || pos >= XIB_POS_NUM ||
	    transport & ~XIB_TRANSPORT_MASK)
		return -EINVAL;
	op = xib_hca_wr_ops[wr_opcode][pos];
	if (op == XIB_OP_NONE)
		return -EINVAL;
	opcode = XIB_OPCODE(transport, op);
	if (!xib_hca_opcode_info(opcode) ||
	    !(xib_hca_opcodes[opcode].flags & XIB_OPF_REQ))
		return -EINVAL;
	if (pos != XIB_POS_ONLY &&
	    xib_hca_req_bth_opcode(transport, wr_opcode, XIB_POS_ONLY) < 0)
		return -EINVAL;
	return opcode;
}

static const u8 xib_hca_hdr_len[XIB_HDR_NUM] = {
	[XIB_HDR_DETH] = XIB_DETH_LEN,
	[XIB_HDR_XRCETH] = XIB_XRCETH_LEN,
	[XIB_HDR_RETH] = XIB_RETH_LEN,
	[XIB_HDR_ATMETH] = XIB_ATMETH_LEN,
	[XIB_HDR_AETH] = XIB_AETH_LEN,
	[XIB_HDR_ATMACK] = XIB_ATMACK_LEN,
	[XIB_HDR_IMMDT] = XIB_IMMDT_LEN,
	[XIB_HDR_IETH] = XIB_IETH_LEN,
};

/**
 * xib_hca_hdr_offset() - where an extension header starts
 * @hdrs: BIT(XIB_HDR_*) set of an opcode (xib_hca_opcode_info.hdrs)
 * @hdr: the header wanted
 *
 * Return: its offset from the start of the BTH, or 0 if @hdrs lacks it.
 */
unsigned int xib_hca_hdr_offset(u8 hdrs, enum xib_hdr hdr)
{
	unsigned int off = XIB_BTH_LEN;
	int i;

	if (hdr >= XIB_HDR_NUM || !(hdrs & BIT(hdr)))
		return 0;
	for (i = 0; i < hdr; i++)
		if (hdrs & BIT(i))
			off += xib_hca_hdr_len[i];
	return off;
}

/**
 * xib_hca_parse() - validate a received packet's transport part
 * @buf: the BTH
 * @len: bytes from the BTH to the end of the packet, ICRC included
 * @pkt: filled in on success
 *
 * Checks that the opcode is known, TVer is 0, the headers, the pad and the
 * ICRC fit in @len, and the pad count agrees with the opcode and the
 * payload length.  Never reads outside @buf[0..@len).  Does not check the
 * ICRC itself (xib_icrc_check() needs the IP header).
 *
 * Return: 0; -EBADMSG if the packet is truncated or its length or pad
 * count is inconsistent; -EOPNOTSUPP for an unknown opcode;
 * -EPROTONOSUPPORT if TVer is not 0.
 */
int xib_hca_parse(const void *buf, size_t len, struct xib_hca_pkt *pkt)
{
	const struct xib_bth *bth = buf;
	const struct xib_hca_opcode_info *info;
	size_t body;
	u8 pad;
	int i;

	if (len < XIB_BTH_LEN + XIB_ICRC_LEN)
		return -EBADMSG;
	if (len > U32_MAX)
		return -EBADMSG;
	info = xib_hca_opcode_info(xib_bth_opcode(bth));
	if (!info)
		return -EOPNOTSUPP;
	if (xib_bth_tver(bth) != 0)
		return -EPROTONOSUPPORT;
	if (len < info->hdr_len + XIB_ICRC_LEN)
		return -EBADMSG;

	/* Payload and pad: a multiple of 4 bytes, pad only at the end. */
	body = len - info->hdr_len - XIB_ICRC_LEN;
	pad = xib_bth_padcnt(bth);
	if (info->flags & XIB_OPF_PAYLOAD) {
		if (body % 4 || pad > body)
			return -EBADMSG;
		if (pad && !(info->flags & XIB_OPF_LAST))
			return -EBADMSG;
	} else if (body || pad) {
		return -EBADMSG;
	}

	pkt->bth = bth;
	pkt->info = info;
	for (i = 0; i < XIB_HDR_NUM; i++)
		pkt->off[i] = xib_hca_hdr_offset(info->hdrs, i);
	pkt->hdr_len = info->hdr_len;
	pkt->padcnt = pad;
	pkt->payload_len = body - pad;
	return 0;
}

static void *xib_hca_at(void *buf, u8 hdrs, enum xib_hdr hdr)
{
	return (u8 *)buf + xib_hca_hdr_offset(hdrs, hdr);
}

/**
 * xib_hca_build() - write the transport headers of a packet
 * @buf: where the BTH goes
 * @len: room at @buf
 * @f: the opcode and the field values
 *
 * Writes the BTH and the extension headers @f->opcode carries, in order.
 * Reserved fields, resv8a and TVer are zero.
 *
 * Return: the number of bytes written (the opcode's header length);
 * -EOPNOTSUPP for an unknown opcode; -ENOSPC if @len is too small;
 * -EINVAL if a field does not fit or the pad count is not allowed.
 */
int xib_hca_build(void *buf, size_t len, const struct xib_hca_hdr_fields *f)
{
	const struct xib_hca_opcode_info *info = xib_hca_opcode_info(f->opcode);
	struct xib_bth *bth = buf;
	u8 h;

	if (!info)
		return -EOPNOTSUPP;
	h = info->hdrs;
	if (len < info->hdr_len)
		return -ENOSPC;
	if (f->padcnt > 3 ||
	    (f->padcnt && (info->flags & (XIB_OPF_PAYLOAD | XIB_OPF_LAST)) !=
			  (XIB_OPF_PAYLOAD | XIB_OPF_LAST)))
		return -EINVAL;
	if (f->dqpn & ~XIB_QPN_MASK || f->psn & ~XIB_PSN_MASK ||
	    f->msn & ~XIB_MSN_MASK || f->sqpn & ~XIB_QPN_MASK ||
	    f->xrcsrq & ~XIB_XRCSRQ_MASK)
		return -EINVAL;

	memset(buf, 0, info->hdr_len);
	xib_bth_set_opcode(bth, f->opcode);
	xib_bth_set_se(bth, f->se);
	xib_bth_set_mig(bth, f->mig);
	xib_bth_set_padcnt(bth, f->padcnt);
	xib_bth_set_pkey(bth, f->pkey);
	xib_bth_set_dqpn(bth, f->dqpn);
	xib_bth_set_ackreq(bth, f->ackreq);
	xib_bth_set_psn(bth, f->psn);

	if (h & XIB_H(DETH))
		xib_deth_set(xib_hca_at(buf, h, XIB_HDR_DETH), f->qkey, f->sqpn);
	if (h & XIB_H(XRCETH))
		xib_xrceth_set(xib_hca_at(buf, h, XIB_HDR_XRCETH), f->xrcsrq);
	if (h & XIB_H(RETH))
		xib_reth_set(xib_hca_at(buf, h, XIB_HDR_RETH), f->va, f->rkey,
			     f->dma_len);
	if (h & XIB_H(ATMETH))
		xib_atmeth_set(xib_hca_at(buf, h, XIB_HDR_ATMETH), f->va, f->rkey,
			       f->swap_add, f->compare);
	if (h & XIB_H(AETH))
		xib_aeth_set(xib_hca_at(buf, h, XIB_HDR_AETH), f->syndrome, f->msn);
	if (h & XIB_H(ATMACK))
		xib_atmack_set(xib_hca_at(buf, h, XIB_HDR_ATMACK), f->orig);
	if (h & XIB_H(IMMDT))
		xib_immdt_set(xib_hca_at(buf, h, XIB_HDR_IMMDT), f->imm);
	if (h & XIB_H(IETH))
		xib_ieth_set(xib_hca_at(buf, h, XIB_HDR_IETH), f->inv_rkey);
	return info->hdr_len;
}
