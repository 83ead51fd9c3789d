/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca wire format: the InfiniBand transport headers as RoCEv2 carries
 * them (IBTA vol. 1 ch. 9 and Annex A17), the opcode table, PSN arithmetic
 * and the ICRC.  Pure logic: nothing here touches an skb, a socket or a
 * queue pair.  Documentation/hca-wire.rst describes the formats.
 *
 * All multi-byte fields are big-endian on the wire.  The header structs
 * only name the fields and fix the layout: headers sit at any alignment in
 * a packet, so every access goes through the accessors below, which use
 * unaligned loads and stores.
 */
#ifndef _XIB_HCA_WIRE_H
#define _XIB_HCA_WIRE_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/unaligned.h>

#define XIB_ROCEV2_UDP_PORT	4791

/* PSNs, QP numbers and MSNs are 24-bit. */
#define XIB_PSN_MASK		0x00ffffffU
#define XIB_QPN_MASK		0x00ffffffU
#define XIB_MSN_MASK		0x00ffffffU

/* Base Transport Header, 12 bytes. */
struct xib_bth {
	u8 opcode;
	u8 flags;	/* SE:1 M:1 PadCnt:2 TVer:4 */
	__be16 pkey;
	__be32 qpn;	/* resv8a:8 (FECN:1 BECN:1 resv:6 in RoCEv2), DestQP:24 */
	__be32 apsn;	/* AckReq:1 resv7:7 PSN:24 */
};

#define XIB_BTH_SE		0x80
#define XIB_BTH_MIG		0x40
#define XIB_BTH_PAD_SHIFT	4
#define XIB_BTH_PAD_MASK	0x30
#define XIB_BTH_TVER_MASK	0x0f
#define XIB_BTH_FECN		0x80000000U
#define XIB_BTH_BECN		0x40000000U
#define XIB_BTH_RESV8A_MASK	0xff000000U
#define XIB_BTH_ACKREQ		0x80000000U

/* RDMA Extended Transport Header, 16 bytes. */
struct xib_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

/* ACK Extended Transport Header, 4 bytes. */
struct xib_aeth {
	__be32 smsn;	/* Syndrome:8 MSN:24 */
};

/* AETH syndrome: bits 6-5 say what it is, bits 4-0 the credit/timer/code. */
#define XIB_AETH_TYPE_MASK	0x60
#define XIB_AETH_ACK		0x00
#define XIB_AETH_RNR_NAK	0x20
#define XIB_AETH_NAK		0x60
#define XIB_AETH_VALUE_MASK	0x1f
#define XIB_AETH_NAK_PSN_SEQ	0
#define XIB_AETH_NAK_INVALID	1
#define XIB_AETH_NAK_REM_ACCESS	2
#define XIB_AETH_NAK_REM_OP	3
#define XIB_AETH_NAK_INV_RD_REQ	4
#define XIB_AETH_CREDIT_INVALID	0x1f

/* Datagram Extended Transport Header, 8 bytes. */
struct xib_deth {
	__be32 qkey;
	__be32 sqpn;	/* resv:8 SrcQP:24 */
};

/*
 * XRC Extended Transport Header, 4 bytes (IBTA vol. 1 9.2): on every XRC
 * request, right after the BTH; 8 reserved bits, then the XRC SRQ the
 * message is for (24 bits).
 */
struct xib_xrceth {
	__be32 srqn;	/* resv:8 XRCSRQ:24 */
};

#define XIB_XRCSRQ_MASK		0x00ffffffU

/* Immediate data, 4 bytes. */
struct xib_immdt {
	__be32 imm;
};

/* Invalidate Extended Transport Header, 4 bytes. */
struct xib_ieth {
	__be32 rkey;
};

/* Atomic Extended Transport Header, 28 bytes: the 64-bit fields after
 * R_Key are not naturally aligned, hence __packed.
 */
struct xib_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/* Atomic Acknowledge Extended Transport Header, 8 bytes. */
struct xib_atmack {
	__be64 orig;
};

#define XIB_BTH_LEN	12
#define XIB_RETH_LEN	16
#define XIB_AETH_LEN	4
#define XIB_DETH_LEN	8
#define XIB_XRCETH_LEN	4
#define XIB_IMMDT_LEN	4
#define XIB_IETH_LEN	4
#define XIB_ATMETH_LEN	28
#define XIB_ATMACK_LEN	8
#define XIB_ICRC_LEN	4

static_assert(sizeof(struct xib_bth) == XIB_BTH_LEN);
static_assert(sizeof(struct xib_reth) == XIB_RETH_LEN);
static_assert(sizeof(struct xib_aeth) == XIB_AETH_LEN);
static_assert(sizeof(struct xib_deth) == XIB_DETH_LEN);
static_assert(sizeof(struct xib_xrceth) == XIB_XRCETH_LEN);
static_assert(sizeof(struct xib_immdt) == XIB_IMMDT_LEN);
static_assert(sizeof(struct xib_ieth) == XIB_IETH_LEN);
static_assert(sizeof(struct xib_atmeth) == XIB_ATMETH_LEN);
static_assert(sizeof(struct xib_atmack) == XIB_ATMACK_LEN);

/* --- BTH accessors ------------------------------------------------------ */

static inline u8 xib_bth_opcode(const struct xib_bth *bth)
{
	return bth->opcode;
}

static inline bool xib_bth_se(const struct xib_bth *bth)
{
	return bth->flags & XIB_BTH_SE;
}

static inline bool xib_bth_mig(const struct xib_bth *bth)
{
	return bth->flags & XIB_BTH_MIG;
}

static inline u8 xib_bth_padcnt(const struct xib_bth *bth)
{
	return (bth->flags & XIB_BTH_PAD_MASK) >> XIB_BTH_PAD_SHIFT;
}

static inline u8 xib_bth_tver(const struct xib_bth *bth)
{
	return bth->flags & XIB_BTH_TVER_MASK;
}

static inline u16 xib_bth_pkey(const struct xib_bth *bth)
{
	return get_unaligned_be16(&bth->pkey);
}

static inline u32 xib_bth_dqpn(const struct xib_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & XIB_QPN_MASK;
}

static inline bool xib_bth_fecn(const struct xib_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & XIB_BTH_FECN;
}

static inline bool xib_bth_becn(const struct xib_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & XIB_BTH_BECN;
}

static inline bool xib_bth_ackreq(const struct xib_bth *bth)
{
	return get_unaligned_be32(&bth->apsn) & XIB_BTH_ACKREQ;
}

static inline u32 xib_bth_psn(const struct xib_bth *bth)
{
	return get_unaligned_be32(&bth->apsn) & XIB_PSN_MASK;
}

static inline void xib_bth_set_opcode(struct xib_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline void xib_bth_set_flag(struct xib_bth *bth, u8 flag, bool on)
{
	if (on)
		bth->flags |= flag;
	else
		bth->flags &= ~flag;
}

static inline void xib_bth_set_se(struct xib_bth *bth, bool se)
{
	xib_bth_set_flag(bth, XIB_BTH_SE, se);
}

static inline void xib_bth_set_mig(struct xib_bth *bth, bool mig)
{
	xib_bth_set_flag(bth, XIB_BTH_MIG, mig);
}

static inline void xib_bth_set_padcnt(struct xib_bth *bth, u8 pad)
{
	bth->flags = (bth->flags & ~XIB_BTH_PAD_MASK) |
		     ((pad << XIB_BTH_PAD_SHIFT) & XIB_BTH_PAD_MASK);
}

static inline void xib_bth_set_tver(struct xib_bth *bth, u8 tver)
{
	bth->flags = (bth->flags & ~XIB_BTH_TVER_MASK) |
		     (tver & XIB_BTH_TVER_MASK);
}

static inline void xib_bth_set_pkey(struct xib_bth *bth, u16 pkey)
{
	put_unaligned_be16(pkey, &bth->pkey);
}

/* Sets DestQP and leaves resv8a (FECN, BECN) alone. */
static inline void xib_bth_set_dqpn(struct xib_bth *bth, u32 qpn)
{
	u32 v = get_unaligned_be32(&bth->qpn);

	v = (v & ~XIB_QPN_MASK) | (qpn & XIB_QPN_MASK);
	put_unaligned_be32(v, &bth->qpn);
}

static inline void xib_bth_set_ackreq(struct xib_bth *bth, bool ackreq)
{
	u32 v = get_unaligned_be32(&bth->apsn);

	v = ackreq ? v | XIB_BTH_ACKREQ : v & ~XIB_BTH_ACKREQ;
	put_unaligned_be32(v, &bth->apsn);
}

static inline void xib_bth_set_psn(struct xib_bth *bth, u32 psn)
{
	u32 v = get_unaligned_be32(&bth->apsn);

	v = (v & ~XIB_PSN_MASK) | (psn & XIB_PSN_MASK);
	put_unaligned_be32(v, &bth->apsn);
}

/* --- extension header accessors ------------------------------------------ */

static inline u64 xib_reth_va(const struct xib_reth *reth)
{
	return get_unaligned_be64(&reth->va);
}

static inline u32 xib_reth_rkey(const struct xib_reth *reth)
{
	return get_unaligned_be32(&reth->rkey);
}

static inline u32 xib_reth_len(const struct xib_reth *reth)
{
	return get_unaligned_be32(&reth->len);
}

static inline void xib_reth_set(struct xib_reth *reth, u64 va, u32 rkey,
				u32 len)
{
	put_unaligned_be64(va, &reth->va);
	put_unaligned_be32(rkey, &reth->rkey);
	put_unaligned_be32(len, &reth->len);
}

static inline u8 xib_aeth_syndrome(const struct xib_aeth *aeth)
{
	return get_unaligned_be32(&aeth->smsn) >> 24;
}

static inline u32 xib_aeth_msn(const struct xib_aeth *aeth)
{
	return get_unaligned_be32(&aeth->smsn) & XIB_MSN_MASK;
}

static inline void xib_aeth_set(struct xib_aeth *aeth, u8 syndrome, u32 msn)
{
	put_unaligned_be32((u32)syndrome << 24 | (msn & XIB_MSN_MASK),
			   &aeth->smsn);
}

static inline u32 xib_deth_qkey(const struct xib_deth *deth)
{
	return get_unaligned_be32(&deth->qkey);
}

static inline u32 xib_deth_sqpn(const struct xib_deth *deth)
{
	return get_unaligned_be32(&deth->sqpn) & XIB_QPN_MASK;
}

static inline void xib_deth_set(struct xib_deth *deth, u32 qkey, u32 sqpn)
{
	put_unaligned_be32(qkey, &deth->qkey);
	put_unaligned_be32(sqpn & XIB_QPN_MASK, &deth->sqpn);
}

/* Immediate data is opaque: it stays in network byte order. */
static inline __be32 xib_immdt_imm(const struct xib_immdt *immdt)
{
	return get_unaligned(&immdt->imm);
}

static inline void xib_immdt_set(struct xib_immdt *immdt, __be32 imm)
{
	put_unaligned(imm, &immdt->imm);
}

/* The XRCSRQ; the reserved bits are ignored on receive. */
static inline u32 xib_xrceth_srqn(const struct xib_xrceth *x)
{
	return get_unaligned_be32(&x->srqn) & XIB_XRCSRQ_MASK;
}

/* Write the XRCSRQ with the reserved bits zero. */
static inline void xib_xrceth_set(struct xib_xrceth *x, u32 srqn)
{
	put_unaligned_be32(srqn & XIB_XRCSRQ_MASK, &x->srqn);
}

static inline u32 xib_ieth_rkey(const struct xib_ieth *ieth)
{
	return get_unaligned_be32(&ieth->rkey);
}

static inline void xib_ieth_set(struct xib_ieth *ieth, u32 rkey)
{
	put_unaligned_be32(rkey, &ieth->rkey);
}

static inline u64 xib_atmeth_va(const struct xib_atmeth *atm)
{
	return get_unaligned_be64(&atm->va);
}

static inline u32 xib_atmeth_rkey(const struct xib_atmeth *atm)
{
	return get_unaligned_be32(&atm->rkey);
}

static inline u64 xib_atmeth_swap_add(const struct xib_atmeth *atm)
{
	return get_unaligned_be64(&atm->swap_add);
}

static inline u64 xib_atmeth_compare(const struct xib_atmeth *atm)
{
	return get_unaligned_be64(&atm->compare);
}

static inline void xib_atmeth_set(struct xib_atmeth *atm, u64 va, u32 rkey,
				  u64 swap_add, u64 compare)
{
	put_unaligned_be64(va, &atm->va);
	put_unaligned_be32(rkey, &atm->rkey);
	put_unaligned_be64(swap_add, &atm->swap_add);
	put_unaligned_be64(compare, &atm->compare);
}

static inline u64 xib_atmack_orig(const struct xib_atmack *ack)
{
	return get_unaligned_be64(&ack->orig);
}

static inline void xib_atmack_set(struct xib_atmack *ack, u64 orig)
{
	put_unaligned_be64(orig, &ack->orig);
}

/* --- opcodes ------------------------------------------------------------- */

/* Transport: the opcode's top three bits. */
#define XIB_TRANSPORT_MASK	0xe0
#define XIB_TRANSPORT_RC	0x00
#define XIB_TRANSPORT_UC	0x20
#define XIB_TRANSPORT_RD	0x40
#define XIB_TRANSPORT_UD	0x60
#define XIB_TRANSPORT_XRC	0xa0

/* Operation: the opcode's low five bits. */
enum xib_op {
	XIB_OP_SEND_FIRST			= 0x00,
	XIB_OP_SEND_MIDDLE			= 0x01,
	XIB_OP_SEND_LAST			= 0x02,
	XIB_OP_SEND_LAST_WITH_IMMEDIATE		= 0x03,
	XIB_OP_SEND_ONLY			= 0x04,
	XIB_OP_SEND_ONLY_WITH_IMMEDIATE		= 0x05,
	XIB_OP_RDMA_WRITE_FIRST			= 0x06,
	XIB_OP_RDMA_WRITE_MIDDLE		= 0x07,
	XIB_OP_RDMA_WRITE_LAST			= 0x08,
	XIB_OP_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x09,
	XIB_OP_RDMA_WRITE_ONLY			= 0x0a,
	XIB_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x0b,
	XIB_OP_RDMA_READ_REQUEST		= 0x0c,
	XIB_OP_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	XIB_OP_RDMA_READ_RESPONSE_MIDDLE	= 0x0e,
	XIB_OP_RDMA_READ_RESPONSE_LAST		= 0x0f,
	XIB_OP_RDMA_READ_RESPONSE_ONLY		= 0x10,
	XIB_OP_ACKNOWLEDGE			= 0x11,
	XIB_OP_ATOMIC_ACKNOWLEDGE		= 0x12,
	XIB_OP_COMPARE_SWAP			= 0x13,
	XIB_OP_FETCH_ADD			= 0x14,
	XIB_OP_SEND_LAST_WITH_INVALIDATE	= 0x16,
	XIB_OP_SEND_ONLY_WITH_INVALIDATE	= 0x17,
};

#define XIB_OPCODE(transport, op)	((transport) | (op))

/* Extension headers, in the order they follow the BTH. */
enum xib_hdr {
	XIB_HDR_DETH,
	XIB_HDR_XRCETH,		/* XRC requests; never with a DETH */
	XIB_HDR_RETH,
	XIB_HDR_ATMETH,
	XIB_HDR_AETH,
	XIB_HDR_ATMACK,
	XIB_HDR_IMMDT,
	XIB_HDR_IETH,
	XIB_HDR_NUM
};

/* struct xib_hca_opcode_info.flags */
#define XIB_OPF_FIRST		BIT(0)	/* first packet of a message */
#define XIB_OPF_MIDDLE		BIT(1)
#define XIB_OPF_LAST		BIT(2)	/* last packet of a message */
#define XIB_OPF_ONLY		(XIB_OPF_FIRST | XIB_OPF_LAST)
#define XIB_OPF_PAYLOAD		BIT(3)	/* may carry payload */
#define XIB_OPF_REQ		BIT(4)	/* request (else response) */
#define XIB_OPF_IMM		BIT(5)	/* carries ImmDt */
#define XIB_OPF_INV		BIT(6)	/* carries IETH */

/**
 * struct xib_hca_opcode_info - what an opcode puts on the wire
 * @name: for messages; NULL if the opcode is not one xib knows
 * @hdrs: BIT(XIB_HDR_*) of the extension headers that follow the BTH
 * @hdr_len: BTH plus extension headers, in bytes
 * @flags: XIB_OPF_*
 */
struct xib_hca_opcode_info {
	const char *name;
	u8 hdrs;
	u8 hdr_len;
	u8 flags;
};

const struct xib_hca_opcode_info *xib_hca_opcode_info(u8 opcode);
unsigned int xib_hca_hdr_offset(u8 hdrs, enum xib_hdr hdr);

/**
 * struct xib_hca_pkt - a received packet's transport part, as parsed
 * @bth: the BTH (start of the buffer given to xib_hca_parse())
 * @info: the opcode's entry in the opcode table
 * @off: offset from @bth of each extension header; 0 if absent
 * @hdr_len: BTH plus extension headers
 * @padcnt: pad bytes between the payload and the ICRC
 * @payload_len: payload bytes, pad excluded
 *
 * The payload starts at @bth + @hdr_len; the ICRC follows the pad.
 */
struct xib_hca_pkt {
	const struct xib_bth *bth;
	const struct xib_hca_opcode_info *info;
	u8 off[XIB_HDR_NUM];
	u8 hdr_len;
	u8 padcnt;
	u32 payload_len;
};

int xib_hca_parse(const void *buf, size_t len, struct xib_hca_pkt *pkt);

static inline const void *xib_hca_pkt_hdr(const struct xib_hca_pkt *pkt,
					  enum xib_hdr hdr)
{
	return pkt->off[hdr] ? (const u8 *)pkt->bth + pkt->off[hdr] : NULL;
}

static inline const void *xib_hca_pkt_payload(const struct xib_hca_pkt *pkt)
{
	return (const u8 *)pkt->bth + pkt->hdr_len;
}

/**
 * struct xib_hca_hdr_fields - every field xib_hca_build() may write
 * @opcode: BTH: the full opcode (transport and operation); it selects the
 *	extension headers
 * @se: BTH: solicited event
 * @mig: BTH: MigReq
 * @ackreq: BTH: acknowledge request
 * @padcnt: BTH: pad bytes after the payload (0 to 3; only on the last or
 *	only packet of a message with payload)
 * @pkey: BTH: the partition key
 * @dqpn: BTH: the destination QP (24 bits)
 * @psn: BTH: the packet sequence number (24 bits)
 * @va: RETH, AtomicETH: the remote virtual address
 * @rkey: RETH, AtomicETH: the R_Key
 * @dma_len: RETH: the DMA length in bytes
 * @syndrome: AETH: the syndrome (ACK, RNR NAK or NAK with its value)
 * @msn: AETH: the message sequence number (24 bits)
 * @qkey: DETH: the Q_Key
 * @sqpn: DETH: the source QP (24 bits)
 * @imm: ImmDt: the immediate data, network order as the consumer gave it
 * @inv_rkey: IETH: the R_Key to invalidate
 * @swap_add: AtomicETH: the swap or add operand
 * @compare: AtomicETH: the compare operand
 * @orig: AtomicAckETH: the original remote data
 * @xrcsrq: XRCETH: the XRC SRQ the request is for (24 bits)
 *
 * Only the fields of the headers the opcode carries are used; reserved
 * bits, resv8a and TVer are written as zero.
 */
struct xib_hca_hdr_fields {
	u8 opcode;
	bool se;
	bool mig;
	bool ackreq;
	u8 padcnt;
	u16 pkey;
	u32 dqpn;
	u32 psn;
	u64 va;
	u32 rkey;
	u32 dma_len;
	u8 syndrome;
	u32 msn;
	u32 qkey;
	u32 sqpn;
	__be32 imm;
	u32 inv_rkey;
	u64 swap_add;
	u64 compare;
	u64 orig;
	u32 xrcsrq;
};

int xib_hca_build(void *buf, size_t len, const struct xib_hca_hdr_fields *f);

/*
 * Where a packet sits in its message: the column of the requester's
 * [send WR opcode][position] table (xib_hca_req_bth_opcode()).
 */
enum xib_pkt_pos {
	XIB_POS_FIRST,
	XIB_POS_MIDDLE,
	XIB_POS_LAST,
	XIB_POS_ONLY,
	XIB_POS_NUM
};

/* Position of packet @i (from 0) of a message of @n packets. */
static inline enum xib_pkt_pos xib_pkt_pos(u32 i, u32 n)
{
	if (n <= 1)
		return XIB_POS_ONLY;
	if (i == 0)
		return XIB_POS_FIRST;
	return i + 1 < n ? XIB_POS_MIDDLE : XIB_POS_LAST;
}

int xib_hca_req_bth_opcode(u8 transport, u32 wr_opcode, enum xib_pkt_pos pos);

/* --- PSN arithmetic (24-bit, wrapping) ------------------------------------ */

static inline u32 xib_psn_add(u32 psn, u32 n)
{
	return (psn + n) & XIB_PSN_MASK;
}

/* Signed distance from @b to @a, in [-2^23, 2^23). */
static inline s32 xib_psn_diff(u32 a, u32 b)
{
	return sign_extend32(a - b, 23);
}

static inline bool xib_psn_before(u32 a, u32 b)
{
	return xib_psn_diff(a, b) < 0;
}

/* --- ICRC (hca_icrc.c) --------------------------------------------------- */

int xib_icrc_compute(const void *ip_hdr, size_t len, u32 *icrc);
int xib_icrc_check(const void *ip_hdr, size_t len);
int xib_icrc_fill(void *ip_hdr, size_t len);

#endif /* _XIB_HCA_WIRE_H */
