/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers of the xib data-path test programs: failure reporting,
 * option parsing, GID choice, QP bring-up and completion waiting.
 */
#ifndef XIB_TEST_H
#define XIB_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xib.h"

extern const char *xt_prog;
extern int xt_verbose;

/* Print "FAIL: prog: ..." and exit 1. */
void xt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Exit 1 with the message and strerror(-err) if err is non-zero. */
void xt_check(int err, const char *what);
void xt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "64M", "1k", "4096" -> bytes; exits on a bad string. */
uint64_t xt_parse_size(const char *s);
uint64_t xt_now_ns(void);

/* One side of a test: a context (maybe shared), a PD, CQs. */
struct xt_side {
	struct xib_context *ctx;
	struct xib_pd *pd;
	struct xib_cq *scq;
	struct xib_cq *rcq;	/* bound to @ch, user_handle 2 */
	struct xib_comp_channel *ch;
	uint32_t sgid_index;
	uint8_t gid[16];
	uint32_t mtu_enum;	/* port active MTU */
	uint32_t mtu;		/* in bytes */
};

/* sgid_index < 0: prefer an IPv4-mapped GID, else the first valid one. */
void xt_side_open(struct xt_side *s, struct xib_context *ctx, int sgid_index,
		  uint32_t cqe);
void xt_side_close(struct xt_side *s);
int xt_pick_gid(struct xib_context *ctx, uint8_t gid[16]);

struct xib_qp *xt_create_qp(struct xt_side *s, uint32_t type, uint32_t max_wr,
			    uint32_t max_sge, uint32_t max_inline, struct xib_srq *srq);

/* RESET -> INIT -> RTR -> RTS of an RC QP @qp on side @s to @rqpn at @rs. */
void xt_rc_connect(struct xib_qp *qp, const struct xt_side *s, uint32_t rqpn,
		   const struct xt_side *rs, uint32_t access);
/* RESET -> INIT -> RTR -> RTS of a UD QP with Q_Key @qkey. */
void xt_ud_ready(struct xib_qp *qp, uint32_t qkey);
void xt_fill_av(struct xib_uverbs_ah_attr *av, const struct xt_side *s,
		const struct xt_side *rs);

/*
 * Poll @cq until @n completions arrived or @timeout_ms passed; returns
 * how many arrived.
 */
int xt_poll(struct xib_cq *cq, xib_wc *wc, int n, int timeout_ms);
/* Exactly @n completions or fail. */
void xt_wait(struct xib_cq *cq, xib_wc *wc, int n, const char *what);

const char *xt_status_str(uint32_t status);
uint32_t xt_qp_state(struct xib_qp *qp);
uint64_t xt_csum(const void *p, size_t len, uint64_t seed);
void xt_pattern(void *p, size_t len, uint64_t seed);

#endif /* XIB_TEST_H */
