// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca packet building, shared by the requester, the responder and the
 * completer: an skb with room for the headers of an opcode (the opcode
 * table, hca_wire.c), the pad and the ICRC, and its transport headers
 * written (xib_hca_build()).  The network side (hca_net.c) adds UDP and
 * IP and sends it.
 */
#include <linux/skbuff.h>

#include "hca.h"

/**
 * xib_hca_build_pkt() - allocate a packet and write its headers
 * @qp: the sending QP
 * @f: header fields; padcnt is filled in here
 * @payload_len: payload bytes (the pad is added)
 * @payload: where the caller puts the payload
 *
 * Return: the skb (data at the BTH) or NULL.
 */
struct sk_buff *xib_hca_build_pkt(struct xib_hca_qp *qp,
				  struct xib_hca_hdr_fields *f,
				  u32 payload_len, void **payload)
{
	const struct xib_hca_opcode_info *info = xib_hca_opcode_info(f->opcode);
	u32 pad = (4 - (payload_len & 3)) & 3;
	struct sk_buff *skb;
	u8 *data;
	u64 t0;

	if (!info)
		return NULL;
	f->padcnt = pad;
	f->pkey = XIB_HCA_DEFAULT_PKEY;
	t0 = xib_hca_prof_begin();
	skb = xib_hca_alloc_skb(qp_hca(qp), info->hdr_len + payload_len + pad);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_PKT_ALLOC, t0);
	if (!skb)
		return NULL;
	data = skb->data;
	if (xib_hca_build(data, info->hdr_len, f) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	memset(data + info->hdr_len + payload_len, 0, pad);
	*payload = data + info->hdr_len;
	return skb;
}
