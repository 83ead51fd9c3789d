/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure helpers of the MAD layer (core/mad.c), kept apart so that KUnit
 * tests them directly.
 */
#ifndef _XIB_MAD_PRIV_H
#define _XIB_MAD_PRIV_H

#include <linux/types.h>
#include <asm/byteorder.h>
#include <xib/xib_mad.h>

/* Most datagrams waiting for the workqueue per device; more are dropped. */
#define XIB_MAD_BACKLOG_MAX	256

/* The agent whose TID space @tid is in: its high 32 bits. */
static inline u32 xib_mad_tid_agent(__be64 tid)
{
	return be64_to_cpu(tid) >> 32;
}

/* A TID in agent @hi's space: @lo its low 32 bits. */
static inline __be64 xib_mad_tid_make(u32 hi, u32 lo)
{
	return cpu_to_be64((u64)hi << 32 | lo);
}

static inline bool xib_mad_is_response(const struct xib_mad_hdr *hdr)
{
	return hdr->method & XIB_MGMT_METHOD_RESP;
}

/*
 * @rsp answers the request @req sent: a response method of the same
 * class with the same TID.
 */
static inline bool xib_mad_matches(const struct xib_mad_hdr *req,
				   const struct xib_mad_hdr *rsp)
{
	return xib_mad_is_response(rsp) && !xib_mad_is_response(req) &&
	       rsp->mgmt_class == req->mgmt_class && rsp->tid == req->tid;
}

/* A datagram the MAD layer accepts at all (IBTA 13.4.3). */
static inline bool xib_mad_hdr_valid(const struct xib_mad_hdr *hdr)
{
	return hdr->base_version == XIB_MAD_BASE_VERSION;
}

#endif /* _XIB_MAD_PRIV_H */
