/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca data path profile (hca_prof.c, Documentation/counters.rst):
 * for each stage of the data path, how many times it ran and the
 * nanoseconds it took, per device and per CPU.  Off by default; while
 * off, a stage's hooks cost one patched-out jump (a static key).
 *
 * A stage is timed with
 *
 *	u64 t0 = xib_hca_prof_begin();
 *	...
 *	xib_hca_prof_end(hca, XIB_HCA_PROF_..., t0);
 *
 * Stages nest: each names its parent in xib_hca_prof_stages[], and the
 * time of a nested stage is also in its parent's.
 */
#ifndef _XIB_HCA_PROF_H
#define _XIB_HCA_PROF_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

enum xib_hca_prof_stage {
	/* top level: CPU time, disjoint */
	XIB_HCA_PROF_PASS_WORK,
	XIB_HCA_PROF_PASS_IDLE,
	XIB_HCA_PROF_KICK,
	XIB_HCA_PROF_RX_WIRE,
	/* off the CPU */
	XIB_HCA_PROF_SLEEP,
	XIB_HCA_PROF_WAKE,
	/* nested */
	XIB_HCA_PROF_KICK_WAKE,
	XIB_HCA_PROF_REQ,
	XIB_HCA_PROF_REQ_FETCH,
	XIB_HCA_PROF_REQ_BUILD,
	XIB_HCA_PROF_REQ_PAYLOAD,
	XIB_HCA_PROF_PKT_ALLOC,
	XIB_HCA_PROF_RD_RESP,
	XIB_HCA_PROF_XMIT,
	XIB_HCA_PROF_XMIT_SGID,
	XIB_HCA_PROF_XMIT_ROUTE,
	XIB_HCA_PROF_XMIT_ICRC,
	XIB_HCA_PROF_XMIT_OUT,
	XIB_HCA_PROF_XMIT_LOOP,
	XIB_HCA_PROF_RX_ICRC,
	XIB_HCA_PROF_RX_PKT,
	XIB_HCA_PROF_RX_PARSE,
	XIB_HCA_PROF_RX_QP,
	XIB_HCA_PROF_RX_RESP,
	XIB_HCA_PROF_RX_COMP,
	XIB_HCA_PROF_ACK,
	XIB_HCA_PROF_CQ_POST,
	XIB_HCA_NPROF
};

/**
 * struct xib_hca_prof - one CPU's profile of a device
 * @count: times each stage ran, by enum xib_hca_prof_stage
 * @ns: nanoseconds each took in all
 */
struct xib_hca_prof {
	u64 count[XIB_HCA_NPROF];
	u64 ns[XIB_HCA_NPROF];
};

DECLARE_STATIC_KEY_FALSE(xib_hca_prof_on);

/*
 * The start of a timed stage: the time, or 0 while the profile is off.
 * local_clock(): per CPU, no lock or sequence count to read, monotonic
 * on one CPU; a stage that migrates is off by the CPUs' clocks' skew,
 * which is small next to what is measured.
 */
static inline u64 xib_hca_prof_begin(void)
{
	if (static_branch_unlikely(&xib_hca_prof_on))
		return local_clock();
	return 0;
}

/*
 * Account the stage @s of @p that began at @t0 (0: not timed).  Nothing
 * counts once the profile is off, not even a stage begun before.
 */
static inline void xib_hca_prof_add(struct xib_hca_prof __percpu *p,
				    enum xib_hca_prof_stage s, u64 t0)
{
	if (!static_branch_unlikely(&xib_hca_prof_on) || !t0)
		return;
	this_cpu_inc(p->count[s]);
	this_cpu_add(p->ns[s], local_clock() - t0);
}

struct xib_hca_dev;

void xib_hca_prof_debugfs_add(struct xib_hca_dev *hca);
void xib_hca_prof_debugfs_del(struct xib_hca_dev *hca);

#endif /* _XIB_HCA_PROF_H */
