/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HCA's GSI (QP1): GSI datagrams as rdma_rxe puts them on the wire,
 * a UD SEND ONLY from QP 1 with the A bit set, the default P_Key and
 * Q_Key XIB_QP1_QKEY.  Pure helpers, shared with KUnit.
 */
#ifndef _XIB_HCA_GSI_H
#define _XIB_HCA_GSI_H

#include <linux/string.h>
#include <xib/xib_mad.h>
#include "hca_wire.h"

#define XIB_HCA_GSI_OPCODE	XIB_OPCODE(XIB_TRANSPORT_UD, XIB_OP_SEND_ONLY)
/* BTH + DETH + MAD */
#define XIB_HCA_GSI_LEN		(12 + 8 + XIB_MAD_SIZE)

/*
 * Write a GSI datagram (BTH to the end of the MAD) into @buf of
 * XIB_HCA_GSI_LEN bytes.  Returns 0 or a negative errno.
 */
static inline int xib_hca_gsi_build(void *buf, u16 pkey, u32 dqpn, u32 qkey,
				    u32 psn, const struct xib_mad *mad)
{
	struct xib_hca_hdr_fields f = {
		.opcode = XIB_HCA_GSI_OPCODE,
		.ackreq = true,
		.pkey = pkey,
		.dqpn = dqpn,
		.psn = psn & XIB_PSN_MASK,
		.qkey = qkey,
		.sqpn = 1,
	};
	int ret = xib_hca_build(buf, XIB_HCA_GSI_LEN - XIB_MAD_SIZE, &f);

	if (ret < 0)
		return ret;
	memcpy((u8 *)buf + XIB_HCA_GSI_LEN - XIB_MAD_SIZE, mad, XIB_MAD_SIZE);
	return 0;
}

/*
 * A parsed packet for QP1 is a GSI datagram: UD SEND ONLY, Q_Key
 * XIB_QP1_QKEY, at least a whole MAD.  Returns the MAD or NULL.
 */
static inline const struct xib_mad *
xib_hca_gsi_parse(const struct xib_hca_pkt *pkt, u32 *sqpn)
{
	const struct xib_deth *deth = xib_hca_pkt_hdr(pkt, XIB_HDR_DETH);

	if (xib_bth_opcode(pkt->bth) != XIB_HCA_GSI_OPCODE || !deth ||
	    xib_deth_qkey(deth) != XIB_QP1_QKEY ||
	    pkt->payload_len < XIB_MAD_SIZE)
		return NULL;
	*sqpn = xib_deth_sqpn(deth);
	return xib_hca_pkt_payload(pkt);
}

#endif /* _XIB_HCA_GSI_H */
