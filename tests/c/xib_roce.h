/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whole RoCEv2 frames for the tests that inject packets through raw
 * sockets (xib_spoof, xib_pkt_fuzz): IPv4 or IPv6 header, UDP 4791, BTH,
 * an extension header, payload, pad and the ICRC (IBTA vol 1 annex A17).
 * The functions that take a frame tell the IP version by its first byte.
 */
#ifndef XIB_ROCE_H
#define XIB_ROCE_H

#include <stddef.h>
#include <stdint.h>

#define XR_ROCE_PORT	4791u
#define XR_IP_LEN	20u
#define XR_IP6_LEN	40u
#define XR_UDP_LEN	8u
#define XR_BTH_LEN	12u
#define XR_ICRC_LEN	4u
/* offset of the BTH in an IPv4 frame */
#define XR_BTH_OFF	(XR_IP_LEN + XR_UDP_LEN)
#define XR_FRAME_MAX	2048u

void xr_put16(uint8_t *p, uint32_t v);
void xr_put24(uint8_t *p, uint32_t v);
void xr_put32(uint8_t *p, uint32_t v);

/*
 * The ICRC of the frame's first @len bytes (IP header to the end of the
 * pad), with the IPv4 or IPv6 masks of Documentation/hca-wire.rst.
 */
uint32_t xr_icrc(const uint8_t *pkt, size_t len);

/*
 * Build a frame in @pkt (XR_FRAME_MAX bytes) from @src to @dst (IPv4,
 * network order), UDP source port @sport: a BTH with @opcode, the
 * default P_Key, @dqpn, AckReq and @psn, then @extlen bytes of @ext,
 * @plen bytes of @fill and the pad.  Returns its length without the
 * ICRC (call xr_seal()), or 0 when it does not fit.
 */
size_t xr_frame(uint8_t *pkt, uint32_t src, uint32_t dst, uint16_t sport,
		uint8_t opcode, uint32_t dqpn, uint32_t psn,
		const uint8_t *ext, size_t extlen, uint8_t fill, size_t plen);

/*
 * The same over IPv6 from @src to @dst (16 bytes each, network order):
 * hop limit 64, traffic class and flow label 0.  xr_seal() adds the ICRC
 * and the UDP checksum, which IPv6 requires.
 */
size_t xr_frame6(uint8_t *pkt, const uint8_t *src, const uint8_t *dst,
		 uint16_t sport, uint8_t opcode, uint32_t dqpn, uint32_t psn,
		 const uint8_t *ext, size_t extlen, uint8_t fill, size_t plen);

/*
 * Set the IP and UDP lengths of the frame in @pkt to a total of @len
 * bytes (ICRC included).
 */
void xr_set_len(uint8_t *pkt, size_t len);

/*
 * Append the ICRC of the first @len bytes of @pkt and set the IP and UDP
 * lengths (over IPv6 also the UDP checksum, which covers the ICRC);
 * returns the frame's length with it.
 */
size_t xr_seal(uint8_t *pkt, size_t len);

/*
 * A raw socket of family @af (AF_INET or AF_INET6) with IPPROTO_RAW
 * (the frame's IP header is sent as it is) in the network namespace at
 * @ns_path (NULL: this one); -1 with errno on failure.
 */
int xr_raw_socket_af(const char *ns_path, int af);
/* xr_raw_socket_af(@ns_path, AF_INET) */
int xr_raw_socket(const char *ns_path);

/*
 * Send the @len bytes of @pkt through raw socket @sock (of the frame's
 * IP version) to its IP destination.
 */
int xr_send(int sock, const uint8_t *pkt, size_t len);

#endif /* XIB_ROCE_H */
