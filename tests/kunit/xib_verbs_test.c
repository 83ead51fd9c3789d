// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xib_core verbs objects (core/verbs.c, core/mmap.c,
 * core/umem.c) over a fake device whose driver only counts calls.
 *
 * Memory registration needs a user mm: the suite borrows the mm of the
 * process that loads it (insmod) and the MR case maps scratch memory into
 * it with kthread_use_mm().  RLIMIT_MEMLOCK is tested with CAP_IPC_LOCK
 * dropped from the test thread's credentials and its own limit lowered.
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid_namespace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <xib/xib_verbs.h>

struct xib_tpd {
	struct xib_pd pd;
	int magic;
};

struct xib_tcq {
	struct xib_cq cq;
	int magic;
};

struct xib_tqp {
	struct xib_qp qp;
	int magic;
};

struct xib_tsrq {
	struct xib_srq srq;
	int magic;
};

struct xib_tah {
	struct xib_ah ah;
	int magic;
};

static_assert(offsetof(struct xib_tpd, pd) == 0);
static_assert(offsetof(struct xib_tcq, cq) == 0);
static_assert(offsetof(struct xib_tqp, qp) == 0);
static_assert(offsetof(struct xib_tsrq, srq) == 0);
static_assert(offsetof(struct xib_tah, ah) == 0);

/* Calls into the fake driver, per verb. */
static struct {
	int alloc_pd, dealloc_pd;
	int create_cq, destroy_cq, release_cq;
	int create_qp, modify_qp, destroy_qp, release_qp;
	int create_srq, destroy_srq, release_srq;
	int create_ah, destroy_ah;
	int release_atomic;	/* release_* called where it may not sleep */
	int fail_create_qp;
	int resize_srq, fail_resize_srq;
} xib_tcalls;

static int xib_t_alloc_pd(struct xib_pd *pd)
{
	xib_tcalls.alloc_pd++;
	return 0;
}

static void xib_t_dealloc_pd(struct xib_pd *pd)
{
	xib_tcalls.dealloc_pd++;
}

static int xib_t_create_cq(struct xib_cq *cq,
			   const struct xib_cq_init_attr *attr,
			   struct xib_ucontext *uctx,
			   struct xib_uverbs_ring *ring)
{
	xib_tcalls.create_cq++;
	cq->cqe = roundup_pow_of_two(attr->cqe);
	return 0;
}

static void xib_t_destroy_cq(struct xib_cq *cq)
{
	xib_tcalls.destroy_cq++;
}

static void xib_t_release_cq(struct xib_cq *cq)
{
	xib_tcalls.release_cq++;
	if (!preemptible())
		xib_tcalls.release_atomic++;
}

static int xib_t_create_qp(struct xib_qp *qp, struct xib_qp_init_attr *attr,
			   struct xib_ucontext *uctx, struct xib_uverbs_ring *sq,
			   struct xib_uverbs_ring *rq)
{
	if (xib_tcalls.fail_create_qp)
		return -EIO;
	xib_tcalls.create_qp++;
	attr->cap.max_send_wr = roundup_pow_of_two(attr->cap.max_send_wr);
	return 0;
}

static int xib_t_modify_qp(struct xib_qp *qp,
			   const struct xib_uverbs_qp_attr *attr, u32 mask)
{
	xib_tcalls.modify_qp++;
	return 0;
}

static void xib_t_destroy_qp(struct xib_qp *qp)
{
	xib_tcalls.destroy_qp++;
}

static void xib_t_release_qp(struct xib_qp *qp)
{
	xib_tcalls.release_qp++;
	if (!preemptible())
		xib_tcalls.release_atomic++;
}

static int xib_t_create_srq(struct xib_srq *srq,
			    struct xib_srq_init_attr *attr,
			    struct xib_ucontext *uctx,
			    struct xib_uverbs_ring *ring)
{
	xib_tcalls.create_srq++;
	return 0;
}

static int xib_t_modify_srq(struct xib_srq *srq, u32 srq_limit)
{
	return 0;
}

/* Grants the next power of two, or fails with fail_resize_srq. */
static int xib_t_resize_srq(struct xib_srq *srq, u32 *max_wr,
			    struct xib_uverbs_ring *ring)
{
	xib_tcalls.resize_srq++;
	if (xib_tcalls.fail_resize_srq)
		return xib_tcalls.fail_resize_srq;
	*max_wr = roundup_pow_of_two(*max_wr);
	return 0;
}

static void xib_t_destroy_srq(struct xib_srq *srq)
{
	xib_tcalls.destroy_srq++;
}

static void xib_t_release_srq(struct xib_srq *srq)
{
	xib_tcalls.release_srq++;
	if (!preemptible())
		xib_tcalls.release_atomic++;
}

static int xib_t_create_ah(struct xib_ah *ah)
{
	xib_tcalls.create_ah++;
	return 0;
}

static void xib_t_destroy_ah(struct xib_ah *ah)
{
	xib_tcalls.destroy_ah++;
}

static const struct xib_device_ops xib_tops = {
	.owner = THIS_MODULE,
	.driver_name = "xib_verbs_test",
	.size_pd = sizeof(struct xib_tpd),
	.size_cq = sizeof(struct xib_tcq),
	.size_qp = sizeof(struct xib_tqp),
	.size_srq = sizeof(struct xib_tsrq),
	.size_ah = sizeof(struct xib_tah),
	.alloc_pd = xib_t_alloc_pd,
	.dealloc_pd = xib_t_dealloc_pd,
	.create_cq = xib_t_create_cq,
	.destroy_cq = xib_t_destroy_cq,
	.release_cq = xib_t_release_cq,
	.create_qp = xib_t_create_qp,
	.modify_qp = xib_t_modify_qp,
	.destroy_qp = xib_t_destroy_qp,
	.release_qp = xib_t_release_qp,
	.create_srq = xib_t_create_srq,
	.modify_srq = xib_t_modify_srq,
	.resize_srq = xib_t_resize_srq,
	.destroy_srq = xib_t_destroy_srq,
	.release_srq = xib_t_release_srq,
	.create_ah = xib_t_create_ah,
	.destroy_ah = xib_t_destroy_ah,
};

static const struct xib_device_ops xib_tops_noverbs = {
	.owner = THIS_MODULE,
	.driver_name = "xib_verbs_test_nv",
};

/*
 * A device that is never registered: the verbs need only its attributes
 * and port table, which the test fills in (GID 0 valid).
 */
static struct xib_device *xib_tdev_alloc(struct kunit *test,
					 const struct xib_device_ops *ops)
{
	struct xib_device *dev = xib_alloc_device(ops, sizeof(*dev));
	struct xib_uverbs_device_attr *a;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->phys_port_cnt = 1;
	dev->ports = kcalloc(1, sizeof(*dev->ports), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->ports);
	dev->ports[0].gids[0].valid = true;
	a = &dev->attrs;
	a->max_qp = 64;
	a->max_qp_wr = 16384;
	a->max_sge = 32;
	a->max_cq = 64;
	a->max_cqe = 65536;
	a->max_mr = 64;
	a->max_pd = 64;
	a->max_srq = 64;
	a->max_srq_wr = 16384;
	a->max_srq_sge = 32;
	a->max_ah = 64;
	a->max_inline_data = 512;
	a->max_qp_rd_atom = 16;
	a->max_qp_init_rd_atom = 16;
	a->max_mr_size = ~0ULL;
	a->max_pkeys = 1;
	memset(&xib_tcalls, 0, sizeof(xib_tcalls));
	return dev;
}

static void xib_tdev_free(struct kunit *test, struct xib_device *dev)
{
	int i;

	for (i = 0; i < XIB_RES_MAX; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&dev->res_count[i]), 0,
				    "res type %d", i);
	xib_dealloc_device(dev);
}

static struct xib_cq *xib_tcq(struct kunit *test, struct xib_device *dev,
			      struct xib_ucontext *uctx)
{
	struct xib_cq_init_attr attr = { .cqe = 10 };
	struct xib_cq *cq = xib_create_cq(dev, uctx, &attr, NULL);

	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	KUNIT_EXPECT_EQ(test, cq->cqe, 16U);
	return cq;
}

static struct xib_qp_init_attr xib_tqp_attr(struct xib_cq *cq,
					    struct xib_srq *srq)
{
	struct xib_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = XIB_QPT_RC,
		.cap = {
			.max_send_wr = 10, .max_recv_wr = 10,
			.max_send_sge = 2, .max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};
	return attr;
}

static void xib_verbs_test_mr_check(struct kunit *test)
{
	struct xib_pd pd = {}, other = {};
	struct xib_mr mr = {
		.pd = &pd, .iova = 0x10000, .length = 0x2000,
		.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_READ,
	};
	static const struct {
		u64 iova, len;
		u32 access;
		bool wrong_pd;
		int ret;
	} rows[] = {
		{ 0x10000, 0x2000, 0, false, 0 },		/* whole MR */
		{ 0x10000, 1, 0, false, 0 },			/* first byte */
		{ 0x11fff, 1, 0, false, 0 },			/* last byte */
		{ 0x0ffff, 1, 0, false, -ERANGE },		/* before start */
		{ 0x0ffff, 2, 0, false, -ERANGE },		/* straddles start */
		{ 0x12000, 1, 0, false, -ERANGE },		/* past end */
		{ 0x11fff, 2, 0, false, -ERANGE },		/* straddles end */
		{ 0x10000, 0x2001, 0, false, -ERANGE },		/* too long */
		{ 0x10001, ~0ULL, 0, false, -ERANGE },		/* wraps */
		{ ~0ULL, 2, 0, false, -ERANGE },		/* wraps */
		{ 0x10000, 0, 0, false, 0 },			/* zero length */
		{ 0x12000, 0, 0, false, 0 },			/* zero, at end */
		{ 0, 0, 0, false, 0 },				/* zero, outside */
		{ 0x10000, 8, 0, true, -EACCES },		/* wrong PD */
		{ 0x10000, 0, 0, true, -EACCES },		/* wrong PD, 0 */
		{ 0x10000, 8, XIB_ACCESS_REMOTE_READ, false, 0 },
		{ 0x10000, 8, XIB_ACCESS_LOCAL_WRITE, false, 0 },
		{ 0x10000, 8, XIB_ACCESS_REMOTE_WRITE, false, -EACCES },
		{ 0x10000, 8, XIB_ACCESS_REMOTE_ATOMIC, false, -EACCES },
		{ 0x12000, 8, XIB_ACCESS_REMOTE_WRITE, false, -EACCES },
	};
	struct xib_mr rw = mr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    xib_mr_check(&mr, rows[i].wrong_pd ? &other : &pd,
						 rows[i].iova, rows[i].len,
						 rows[i].access),
				    rows[i].ret, "row %u", i);

	/* Remote read missing: a read-only-remote-write MR refuses reads. */
	rw.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, xib_mr_check(&rw, &pd, 0x10000, 8,
					   XIB_ACCESS_REMOTE_READ), -EACCES);
	KUNIT_EXPECT_EQ(test, xib_mr_check(&rw, &pd, 0x10000, 8,
					   XIB_ACCESS_REMOTE_WRITE), 0);

	/* An MR that ends at the top of the address space. */
	rw.iova = ~0ULL - 0xfff;
	rw.length = 0x1000;
	KUNIT_EXPECT_EQ(test, xib_mr_check(&rw, &pd, ~0ULL, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, xib_mr_check(&rw, &pd, ~0ULL, 2, 0), -ERANGE);
}

static void xib_verbs_test_destroy_order(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_srq_init_attr sattr = { .max_wr = 16, .max_sge = 1 };
	struct xib_uverbs_ah_attr av = { .port_num = 1, .is_global = 1 };
	struct xib_qp_init_attr qattr;
	struct xib_pd *pd;
	struct xib_cq *cq;
	struct xib_srq *srq;
	struct xib_qp *qp;
	struct xib_ah *ah;

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	KUNIT_EXPECT_GE(test, pd->pdn, 1U);
	cq = xib_tcq(test, dev, NULL);
	srq = xib_create_srq(pd, NULL, &sattr, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	qattr = xib_tqp_attr(cq, srq);
	qp = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, qattr.cap.max_send_wr, 16U);
	KUNIT_EXPECT_EQ(test, qattr.cap.max_recv_wr, 0U);
	ah = xib_create_ah(pd, NULL, &av);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));

	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_PD]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_QP]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 2);

	/* In use: refused, and nothing changes. */
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xib_destroy_srq(srq), -EBUSY);
	KUNIT_EXPECT_EQ(test, xib_tcalls.dealloc_pd + xib_tcalls.destroy_cq +
			xib_tcalls.destroy_srq, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 3);

	KUNIT_EXPECT_EQ(test, xib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_qp, 1);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), -EBUSY);	/* SRQ, AH */
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), -EBUSY);	/* AH */
	KUNIT_EXPECT_EQ(test, xib_destroy_ah(ah), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);

	KUNIT_EXPECT_EQ(test, xib_tcalls.destroy_cq, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_cq, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_srq, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.destroy_ah, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.dealloc_pd, 1);
	xib_tdev_free(test, dev);
}

/*
 * The final put of a CQ, QP or SRQ in atomic context (the receive softirq
 * holding a looked-up QP while DESTROY_QP drops the creator's reference,
 * bottom halves off on the loopback path) defers the driver's release,
 * which may sleep, to process context; in process context it runs at
 * once.
 */
static void xib_verbs_test_release_deferred(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_srq_init_attr sattr = { .max_wr = 16, .max_sge = 1 };
	struct xib_qp_init_attr qattr;
	struct xib_qp *qp, *found;
	struct xib_srq *srq;
	struct xib_pd *pd;
	struct xib_cq *cq;

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = xib_tcq(test, dev, NULL);
	srq = xib_create_srq(pd, NULL, &sattr, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	qattr = xib_tqp_attr(cq, srq);
	qp = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));

	found = xib_qp_get_by_num(dev, qp->qp_num);
	KUNIT_ASSERT_PTR_EQ(test, found, qp);
	KUNIT_EXPECT_EQ(test, xib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_qp, 0);

	/* as xib_hca_recv() in softirq: the lookup's put is the last */
	local_bh_disable();
	xib_qp_put(found);
	local_bh_enable();
	xib_flush_releases();
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_qp, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_srq, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_cq, 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_atomic, 0);

	/* preemption off, as under an engine spinlock */
	cq = xib_tcq(test, dev, NULL);
	kref_get(&cq->ref);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_cq, 1);
	preempt_disable();
	xib_cq_put(cq);
	preempt_enable();
	xib_flush_releases();
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_cq, 2);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_atomic, 0);

	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_qpn(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_qp *qps[8], *found;
	struct xib_qp_init_attr qattr;
	struct xib_pd *pd;
	struct xib_cq *cq;
	u32 old;
	int i;

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = xib_tcq(test, dev, NULL);
	for (i = 0; i < ARRAY_SIZE(qps); i++) {
		qattr = xib_tqp_attr(cq, NULL);
		qps[i] = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(qps[i]));
		KUNIT_EXPECT_GE(test, qps[i]->qp_num, 16U);
		KUNIT_EXPECT_LE(test, qps[i]->qp_num, 0xffffffU);
		if (i)
			KUNIT_EXPECT_NE(test, qps[i]->qp_num,
					qps[i - 1]->qp_num);
		KUNIT_EXPECT_EQ(test, qps[i]->attr.qp_state, XIB_QPS_RESET);
	}

	found = xib_qp_get_by_num(dev, qps[3]->qp_num);
	KUNIT_EXPECT_PTR_EQ(test, found, qps[3]);
	if (found)
		xib_qp_put(found);
	KUNIT_EXPECT_NULL(test, xib_qp_get_by_num(dev, 0));
	KUNIT_EXPECT_NULL(test, xib_qp_get_by_num(dev, 1));

	/* A lookup's reference outlives destroy; the number is gone. */
	old = qps[3]->qp_num;
	found = xib_qp_get_by_num(dev, old);
	KUNIT_EXPECT_EQ(test, xib_destroy_qp(qps[3]), 0);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_qp, 0);
	KUNIT_EXPECT_NULL(test, xib_qp_get_by_num(dev, old));
	if (found)
		xib_qp_put(found);
	KUNIT_EXPECT_EQ(test, xib_tcalls.release_qp, 1);

	/*
	 * Random: numbers are not consecutive (the 8 above are all
	 * consecutive with probability about 2^-160).
	 */
	qattr = xib_tqp_attr(cq, NULL);
	qps[3] = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qps[3]));
	{
		bool seq = true;

		for (i = 1; i < 8; i++)
			if (qps[i]->qp_num != qps[i - 1]->qp_num + 1)
				seq = false;
		KUNIT_EXPECT_FALSE(test, seq);
	}

	/* A failing driver leaves no QP, number or use behind. */
	xib_tcalls.fail_create_qp = 1;
	qattr = xib_tqp_attr(cq, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_qp(pd, NULL, &qattr, NULL,
						    NULL)), -EIO);
	xib_tcalls.fail_create_qp = 0;
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_QP]), 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 8);

	for (i = 0; i < ARRAY_SIZE(qps); i++)
		KUNIT_EXPECT_EQ(test, xib_destroy_qp(qps[i]), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_create_qp_limits(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_ucontext uctx;
	struct xib_qp_init_attr qattr;
	struct xib_qp *uqp = NULL;
	struct xib_pd *pd;
	struct xib_cq *cq, *ucq;
	int i;
	static const struct {
		u32 field;	/* index in struct xib_uverbs_qp_cap */
		u32 value;
	} bad[] = {
		{ 0, 0 }, { 0, 16385 }, { 1, 16385 }, { 2, 33 }, { 3, 33 },
		{ 4, 513 }, { 5, 1 },
	};

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = xib_tcq(test, dev, NULL);
	KUNIT_ASSERT_EQ(test, xib_ucontext_init(&uctx, dev), 0);
	ucq = xib_tcq(test, dev, &uctx);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		u32 *cap;

		qattr = xib_tqp_attr(cq, NULL);
		cap = (u32 *)&qattr.cap;
		cap[bad[i].field] = bad[i].value;
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(xib_create_qp(pd, NULL, &qattr,
								NULL, NULL)),
				    -EINVAL, "cap field %u = %u", bad[i].field,
				    bad[i].value);
	}
	qattr = xib_tqp_attr(cq, NULL);
	qattr.cap.max_send_wr = 16384;
	qattr.cap.max_recv_wr = 0;
	qattr.cap.max_inline_data = 512;
	qattr.qp_type = XIB_QPT_UD;
	uqp = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(uqp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_QP]), 1);

	qattr = xib_tqp_attr(cq, NULL);
	qattr.qp_type = XIB_QPT_RAW_PACKET;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_qp(pd, NULL, &qattr, NULL,
						    NULL)), -EINVAL);
	/* A CQ of another owner. */
	qattr = xib_tqp_attr(cq, NULL);
	qattr.recv_cq = ucq;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_qp(pd, NULL, &qattr, NULL,
						    NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ucq->usecnt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cq->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 1);
	KUNIT_EXPECT_EQ(test, xib_tcalls.create_qp, 1);

	/* The one QP created above is found by number, then destroyed. */
	{
		struct xib_qp *qp = IS_ERR(uqp) ? NULL :
				    xib_qp_get_by_num(dev, uqp->qp_num);

		KUNIT_ASSERT_NOT_NULL(test, qp);
		xib_qp_put(qp);
		KUNIT_EXPECT_EQ(test, xib_destroy_qp(qp), 0);
	}
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(ucq), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_ucontext_cleanup(&uctx);
	xib_tdev_free(test, dev);
}

#define RC_INIT_MASK	(XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT | \
			 XIB_QP_ACCESS_FLAGS)
#define RC_RTR_MASK	(XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU | \
			 XIB_QP_DEST_QPN | XIB_QP_RQ_PSN | \
			 XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER)
#define RC_RTS_MASK	(XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT | \
			 XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY | \
			 XIB_QP_MAX_QP_RD_ATOMIC)

static void xib_verbs_test_modify_qp(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_uverbs_qp_attr a = {}, q;
	struct xib_qp_init_attr qattr;
	struct xib_pd *pd;
	struct xib_cq *cq;
	struct xib_qp *qp;

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	cq = xib_tcq(test, dev, NULL);
	qattr = xib_tqp_attr(cq, NULL);
	qp = xib_create_qp(pd, NULL, &qattr, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));

	/* RESET -> INIT */
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 2;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_INIT_MASK), -EINVAL);
	a.port_num = 1;
	a.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_INIT_MASK), -EINVAL);
	a.pkey_index = 0;
	a.qp_access_flags = XIB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_INIT_MASK), -EINVAL);
	/* LOCAL_WRITE is meaningless for a QP but accepted (perftest sets it) */
	a.qp_access_flags = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
			    XIB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a,
					    RC_INIT_MASK & ~XIB_QP_PORT),
			-EINVAL);			/* missing */
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_INIT_MASK | BIT(21)),
			-EINVAL);			/* unknown bit */
	a.cur_qp_state = XIB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a,
					    RC_INIT_MASK | XIB_QP_CUR_STATE),
			-EINVAL);			/* wrong current */
	KUNIT_EXPECT_EQ(test, xib_tcalls.modify_qp, 0);
	KUNIT_EXPECT_EQ(test, qp->attr.qp_state, XIB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_INIT_MASK), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.qp_state, XIB_QPS_INIT);

	/* INIT -> RTR */
	a.qp_state = XIB_QPS_RTR;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.path_mtu = 6;
	a.dest_qp_num = 0x123456;
	a.rq_psn = 0x1000000;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.path_mtu = 0;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.path_mtu = XIB_MTU_1024;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.rq_psn = 0xffffff;
	a.dest_qp_num = 0x1000000;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.dest_qp_num = 0x123456;
	a.max_dest_rd_atomic = 17;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 32;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.min_rnr_timer = 12;
	a.ah_attr.sgid_index = 1;		/* no such GID */
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.ah_attr.sgid_index = 0;
	a.ah_attr.is_global = 0;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), -EINVAL);
	a.ah_attr.is_global = 1;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a,
					    RC_RTR_MASK & ~XIB_QP_RQ_PSN),
			-EINVAL);			/* missing */
	KUNIT_EXPECT_EQ(test, xib_tcalls.modify_qp, 1);
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTR_MASK), 0);

	/* RTR -> RTS */
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = 0x1000000;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), -EINVAL);
	a.sq_psn = 0x42;
	a.timeout = 32;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), -EINVAL);
	a.timeout = 31;
	a.retry_cnt = 8;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), -EINVAL);
	a.retry_cnt = 7;
	a.rnr_retry = 8;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), -EINVAL);
	a.rnr_retry = 7;
	a.max_rd_atomic = 17;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), -EINVAL);
	a.max_rd_atomic = 16;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, RC_RTS_MASK), 0);

	/* RTS -> RTS: capacities may not grow; cur_qp_state must match. */
	a.cap = qp->cap;
	a.cap.max_send_wr++;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, XIB_QP_CAP), -EINVAL);
	a.cur_qp_state = XIB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, XIB_QP_CUR_STATE),
			-EINVAL);
	a.cur_qp_state = XIB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, XIB_QP_CUR_STATE), 0);
	a.qp_state = 7;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, XIB_QP_STATE), -EINVAL);

	KUNIT_EXPECT_EQ(test, xib_query_qp(qp, &q), 0);
	KUNIT_EXPECT_EQ(test, q.qp_state, XIB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, q.cur_qp_state, XIB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, q.port_num, 1);
	KUNIT_EXPECT_EQ(test, q.path_mtu, XIB_MTU_1024);
	KUNIT_EXPECT_EQ(test, q.dest_qp_num, 0x123456U);
	KUNIT_EXPECT_EQ(test, q.rq_psn, 0xffffffU);
	KUNIT_EXPECT_EQ(test, q.sq_psn, 0x42U);
	KUNIT_EXPECT_EQ(test, q.timeout, 31);
	KUNIT_EXPECT_EQ(test, q.max_rd_atomic, 16);
	KUNIT_EXPECT_EQ(test, q.qp_access_flags,
			XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
			XIB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, q.cap.max_send_wr, 16U);

	/* Back to RESET from anywhere. */
	a.qp_state = XIB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, xib_modify_qp(qp, &a, XIB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xib_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

/*
 * xib_resize_srq(): the core's checks (ibv_modify_srq(3), IBV_SRQ_MAX_WR:
 * 1 to max_srq_wr; and not below an armed limit) come before the driver,
 * the granted size is stored, and a refusal changes nothing.
 */
static void xib_verbs_test_resize_srq(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_srq_init_attr sattr = { .max_wr = 16, .max_sge = 1 };
	struct xib_srq *srq;
	struct xib_pd *pd;
	u32 max_wr;

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	srq = xib_create_srq(pd, NULL, &sattr, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	xib_tcalls.resize_srq = 0;
	xib_tcalls.fail_resize_srq = 0;

	max_wr = 0;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), -EINVAL);
	max_wr = dev->attrs.max_srq_wr + 1;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xib_tcalls.resize_srq, 0);

	max_wr = dev->attrs.max_srq_wr;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, srq->max_wr, dev->attrs.max_srq_wr);
	max_wr = 5;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, max_wr, 8U);
	KUNIT_EXPECT_EQ(test, srq->max_wr, 8U);
	KUNIT_EXPECT_EQ(test, xib_tcalls.resize_srq, 2);

	/* An armed limit: not below it; at it, yes. */
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_LIMIT, 0, 6), 0);
	max_wr = 5;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, srq->max_wr, 8U);
	KUNIT_EXPECT_EQ(test, xib_tcalls.resize_srq, 2);
	max_wr = 6;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, srq->max_wr, 8U);
	/* Fired, the limit is disarmed and no longer bounds the size. */
	xib_srq_event(srq, XIB_EVENT_SRQ_LIMIT_REACHED);
	max_wr = 2;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, srq->max_wr, 2U);

	/* The driver refuses (the posted WQEs do not fit): nothing changes. */
	xib_tcalls.fail_resize_srq = -EINVAL;
	max_wr = 1;
	KUNIT_EXPECT_EQ(test, xib_resize_srq(srq, &max_wr, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, srq->max_wr, 2U);
	xib_tcalls.fail_resize_srq = 0;

	/* MODIFY_SRQ's own MAX_WR bit stays refused: the ring changes. */
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_MAX_WR, 32, 0),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_args(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_device *nv = xib_tdev_alloc(test, &xib_tops_noverbs);
	struct xib_cq_init_attr cattr = { .cqe = 65537 };
	struct xib_srq_init_attr sattr = { .max_wr = 16, .srq_limit = 17 };
	struct xib_uverbs_ah_attr av = { .port_num = 2, .is_global = 1 };
	struct xib_ucontext uctx;
	struct xib_srq *srq;
	struct xib_pd *pd, *pds[64];
	struct xib_ah *ah, *found;
	u32 ahn;
	int i;

	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_alloc_pd(nv, NULL)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_cq(nv, NULL, &cattr, NULL)),
			-EOPNOTSUPP);

	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_cq(dev, NULL, &cattr, NULL)),
			-EINVAL);
	cattr.cqe = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_cq(dev, NULL, &cattr, NULL)),
			-EINVAL);
	cattr.cqe = 1;
	cattr.comp_vector = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_cq(dev, NULL, &cattr, NULL)),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_srq(pd, NULL, &sattr, NULL)),
			-EINVAL);
	sattr.srq_limit = 4;
	sattr.max_sge = 33;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_srq(pd, NULL, &sattr, NULL)),
			-EINVAL);
	sattr.max_sge = 1;
	srq = xib_create_srq(pd, NULL, &sattr, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_LIMIT, 0, 17),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_MAX_WR, 32, 0),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_LIMIT, 0, 8), 0);
	KUNIT_EXPECT_EQ(test, srq->srq_limit, 8U);
	/* The limit fires: disarmed (IBTA), until armed again. */
	xib_srq_event(srq, XIB_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_EQ(test, srq->srq_limit, 0U);
	KUNIT_EXPECT_EQ(test, xib_modify_srq(srq, XIB_SRQ_LIMIT, 0, 3), 0);
	KUNIT_EXPECT_EQ(test, srq->srq_limit, 3U);
	xib_srq_event(srq, XIB_EVENT_SRQ_ERR);
	KUNIT_EXPECT_EQ(test, srq->srq_limit, 3U);
	KUNIT_EXPECT_EQ(test, xib_destroy_srq(srq), 0);

	/* AH: port, GID, is_global. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_ah(pd, NULL, &av)), -EINVAL);
	av.port_num = 1;
	av.sgid_index = 3;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_ah(pd, NULL, &av)), -EINVAL);
	av.sgid_index = 0;
	av.is_global = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_ah(pd, NULL, &av)), -EINVAL);
	av.is_global = 1;
	/* A PD of another owner. */
	KUNIT_ASSERT_EQ(test, xib_ucontext_init(&uctx, dev), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_UCONTEXT]),
			1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_create_ah(pd, &uctx, &av)),
			-EINVAL);
	ah = xib_create_ah(pd, NULL, &av);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	ahn = ah->ahn;
	found = xib_ah_get_by_num(dev, ahn);
	KUNIT_EXPECT_PTR_EQ(test, found, ah);
	if (found)
		xib_ah_put(found);
	KUNIT_EXPECT_EQ(test, xib_destroy_ah(ah), 0);
	KUNIT_EXPECT_NULL(test, xib_ah_get_by_num(dev, ahn));

	/* Memory registration: argument checks, then no user mm here. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, 0x1000, 0, 0x1000,
						      0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, 0x1000, 0x1000, 0,
						      XIB_ACCESS_REMOTE_WRITE)),
			-EINVAL);
	/* ibv_reg_mr(3): zero-based is iova 0; another iova contradicts it */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, 0x1000, 0x1000, 0x1000,
						      XIB_ACCESS_ZERO_BASED)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, 0x1000, 0x1000,
						      ~0ULL, 0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, ~0ULL, 2, 0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, 0x1000, 0x1000, 0,
						      XIB_ACCESS_LOCAL_WRITE)),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_MR]), 0);
	KUNIT_EXPECT_NULL(test, xib_mr_get_by_key(dev, 0x100));
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);

	/* attrs.max_pd is enforced: 64, of which one exists. */
	for (i = 0; i < 63; i++) {
		pds[i] = xib_alloc_pd(dev, &uctx);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pds[i]));
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_alloc_pd(dev, NULL)), -ENOMEM);
	for (i = 0; i < 63; i++)
		KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pds[i]), 0);

	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_ucontext_cleanup(&uctx);
	xib_tdev_free(test, nv);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_mmap(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct xib_mmap_entry *a, *b, *found;
	struct xib_ucontext uctx;
	u64 off_a, off_b;

	KUNIT_ASSERT_EQ(test, xib_ucontext_init(&uctx, dev), 0);
	KUNIT_EXPECT_GE(test, uctx.id, 1U);
	KUNIT_EXPECT_NULL(test, xib_mmap_alloc(0, false));
	a = xib_mmap_alloc(100, true);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, a->size, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, a->read_only);
	b = xib_mmap_alloc(3 * PAGE_SIZE, false);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, ((u8 *)b->vaddr)[3 * PAGE_SIZE - 1], 0);

	KUNIT_ASSERT_EQ(test, xib_mmap_publish(&uctx, a, &off_a), 0);
	KUNIT_ASSERT_EQ(test, xib_mmap_publish(&uctx, b, &off_b), 0);
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(off_a));
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(off_b));
	KUNIT_EXPECT_NE(test, off_a, off_b);
	KUNIT_EXPECT_EQ(test, kref_read(&a->ref), 2U);

	found = xib_mmap_lookup(&uctx, off_b);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	KUNIT_EXPECT_EQ(test, kref_read(&b->ref), 3U);
	xib_mmap_put(found);
	KUNIT_EXPECT_NULL(test, xib_mmap_lookup(&uctx, off_b + 1));
	KUNIT_EXPECT_NULL(test, xib_mmap_lookup(&uctx, off_b + PAGE_SIZE));

	xib_mmap_unpublish(&uctx, off_a);
	KUNIT_EXPECT_NULL(test, xib_mmap_lookup(&uctx, off_a));
	KUNIT_EXPECT_EQ(test, kref_read(&a->ref), 1U);
	/* Cleanup unpublishes what is left. */
	xib_ucontext_cleanup(&uctx);
	KUNIT_EXPECT_EQ(test, kref_read(&b->ref), 1U);
	xib_mmap_put(a);
	xib_mmap_put(b);
	xib_tdev_free(test, dev);
}

/* The copy helpers, over kernel pages standing in for pinned ones. */
static void xib_verbs_test_umem_copy(struct kunit *test)
{
	struct page *pages[2];
	struct xib_umem umem = {
		.address = 0x7f0000000800ULL, .length = PAGE_SIZE,
		.npages = 2, .pages = pages, .writable = true,
	};
	u8 buf[64], out[64];
	int i;

	pages[0] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	pages[1] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, pages[0]);
	KUNIT_ASSERT_NOT_NULL(test, pages[1]);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i + 1;

	/* Across the page boundary: umem offset 2048 is page 1 byte 0. */
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(&umem, 2048 - 32, buf,
					       sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pages[0]))[PAGE_SIZE - 32],
			1);
	KUNIT_EXPECT_EQ(test, ((u8 *)page_address(pages[1]))[0], 33);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_from(out, &umem, 2048 - 32,
						 sizeof(out)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, out, sizeof(buf)), 0);

	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(&umem, PAGE_SIZE - 64, buf, 64),
			0);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(&umem, PAGE_SIZE - 63, buf, 64),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_from(out, &umem, PAGE_SIZE, 1),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_from(out, &umem, PAGE_SIZE, 0), 0);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_from(out, &umem, ~0ULL, 2),
			-ERANGE);
	umem.writable = false;
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(&umem, 0, buf, 1), -EFAULT);

	__free_page(pages[0]);
	__free_page(pages[1]);
}

/* The mm of the process loading the suite; NULL if it had none. */
static struct mm_struct *xib_tmm;

static int xib_verbs_suite_init(struct kunit_suite *suite)
{
	xib_tmm = get_task_mm(current);
	return 0;
}

static void xib_verbs_suite_exit(struct kunit_suite *suite)
{
	if (xib_tmm)
		mmput(xib_tmm);
	xib_tmm = NULL;
}

/* Drops an MR lookup reference a little later, as an engine would. */
static struct xib_tlate_put {
	struct delayed_work work;
	struct xib_mr *mr;
	bool done;
} xib_tlate;

static void xib_tlate_put_fn(struct work_struct *work)
{
	WRITE_ONCE(xib_tlate.done, true);
	xib_mr_put(xib_tlate.mr);
}

static void xib_verbs_test_reg_mr(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	const u32 rw = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
		       XIB_ACCESS_REMOTE_READ;
	struct xib_mr *mr, *mr2, *found;
	unsigned long addr;
	struct xib_pd *pd;
	char msg[8] = "xib mr";
	char back[8] = {};
	s64 pinned;
	u32 key;
	int i;

	if (!xib_tmm)
		kunit_skip(test, "no user mm to borrow");
	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));

	/* No KUNIT_ASSERT while the mm is in use: jump to out_unuse. */
	kthread_use_mm(xib_tmm);
	addr = vm_mmap(NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr)) {
		KUNIT_FAIL(test, "vm_mmap: %ld", (long)addr);
		goto out_unuse;
	}
	pinned = atomic64_read(&xib_tmm->pinned_vm);
	/* 100 .. 100 + 2 pages touches three pages. */
	mr = xib_reg_user_mr(pd, addr + 100, 2 * PAGE_SIZE, 0x5000, rw);
	if (IS_ERR(mr)) {
		KUNIT_FAIL(test, "reg_mr: %ld", PTR_ERR(mr));
		goto out_unmap;
	}
	KUNIT_EXPECT_EQ(test, mr->lkey, mr->rkey);
	KUNIT_EXPECT_GE(test, mr->lkey >> 8, 1U);
	KUNIT_EXPECT_EQ(test, mr->umem->npages, 3UL);
	KUNIT_EXPECT_TRUE(test, mr->umem->writable);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned + 3);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd, 0x5000, 2 * PAGE_SIZE,
					   XIB_ACCESS_REMOTE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd, 0x5001, 2 * PAGE_SIZE, 0),
			-ERANGE);

	/* The pinned pages are the process's memory. */
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(mr->umem, PAGE_SIZE - 103, msg,
					       sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(back,
					     (void __user *)(addr + PAGE_SIZE - 3),
					     sizeof(back)), 0UL);
	KUNIT_EXPECT_EQ(test, memcmp(msg, back, sizeof(msg)), 0);

	found = xib_mr_get_by_key(dev, mr->lkey);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		xib_mr_put(found);
	KUNIT_EXPECT_NULL(test, xib_mr_get_by_key(dev, mr->lkey ^ 1));
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), -EBUSY);

	/* A read-only registration is not pinned for writing. */
	mr2 = xib_reg_user_mr(pd, addr, PAGE_SIZE, 0, XIB_ACCESS_REMOTE_READ);
	if (IS_ERR(mr2)) {
		KUNIT_FAIL(test, "reg_mr: %ld", PTR_ERR(mr2));
		goto out_unmap;
	}
	KUNIT_EXPECT_FALSE(test, mr2->umem->writable);
	KUNIT_EXPECT_NE(test, mr2->lkey, mr->lkey);
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(mr2->umem, 0, msg, 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr2), 0);

	/* Dereg waits for the lookup reference before unpinning. */
	key = mr->lkey;
	xib_tlate.mr = xib_mr_get_by_key(dev, key);
	xib_tlate.done = false;
	KUNIT_EXPECT_PTR_EQ(test, xib_tlate.mr, mr);
	INIT_DELAYED_WORK(&xib_tlate.work, xib_tlate_put_fn);
	if (xib_tlate.mr)
		schedule_delayed_work(&xib_tlate.work, msecs_to_jiffies(200));
	KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(xib_tlate.done));
	flush_delayed_work(&xib_tlate.work);
	KUNIT_EXPECT_NULL(test, xib_mr_get_by_key(dev, key));
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned);

	/*
	 * Keys are random: two registrations get keys that differ in the
	 * index and, over a few, in the tag byte (all equal: ~2^-56).
	 */
	mr = xib_reg_user_mr(pd, addr, PAGE_SIZE, 0, rw);
	if (IS_ERR(mr)) {
		KUNIT_FAIL(test, "reg_mr: %ld", PTR_ERR(mr));
		goto out_unmap;
	}
	KUNIT_EXPECT_NULL(test, xib_mr_get_by_key(dev, key));
	{
		u32 tags = 0;

		for (i = 0; i < 8; i++) {
			mr2 = xib_reg_user_mr(pd, addr, PAGE_SIZE, 0, rw);
			if (IS_ERR(mr2)) {
				KUNIT_FAIL(test, "reg_mr: %ld", PTR_ERR(mr2));
				break;
			}
			KUNIT_EXPECT_NE(test, mr2->lkey >> 8, mr->lkey >> 8);
			KUNIT_EXPECT_GE(test, mr2->lkey >> 8, 1U);
			if ((mr2->lkey & 0xff) != (mr->lkey & 0xff))
				tags++;
			KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr2), 0);
		}
		KUNIT_EXPECT_GT(test, tags, 0U);
	}
	KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr), 0);

	/*
	 * RLIMIT_MEMLOCK, without CAP_IPC_LOCK: this kthread's own limit
	 * (its signal_struct is not shared) allows two pages.
	 */
	{
		struct rlimit *rl = &current->signal->rlim[RLIMIT_MEMLOCK];
		struct rlimit saved = *rl;
		const struct cred *old_cred;
		struct cred *cred = prepare_creds();

		if (!cred) {
			KUNIT_FAIL(test, "prepare_creds");
			goto out_unmap;
		}
		cap_lower(cred->cap_effective, CAP_IPC_LOCK);
		old_cred = override_creds(cred);
		rl->rlim_cur = (pinned + 2) * PAGE_SIZE;
		KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, addr,
							      3 * PAGE_SIZE,
							      0, rw)),
				-ENOMEM);
		KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm),
				pinned);
		mr = xib_reg_user_mr(pd, addr, 2 * PAGE_SIZE, 0, rw);
		KUNIT_EXPECT_FALSE(test, IS_ERR(mr));
		if (!IS_ERR(mr))
			KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr), 0);
		*rl = saved;
		revert_creds(old_cred);
		put_cred(cred);
	}

	/* Unmapped memory: -EFAULT, nothing charged or left. */
	vm_munmap(addr, 4 * PAGE_SIZE);
	addr = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(xib_reg_user_mr(pd, addr, PAGE_SIZE, 0,
						      rw)), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
out_unmap:
	if (addr)
		vm_munmap(addr, 4 * PAGE_SIZE);
out_unuse:
	kthread_unuse_mm(xib_tmm);

	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_query_device(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	const u32 core_caps = XIB_DEVICE_CURR_QP_STATE_MOD |
			      XIB_DEVICE_PORT_ACTIVE_EVENT |
			      XIB_DEVICE_SYS_IMAGE_GUID;
	struct xib_uverbs_device_attr a;

	dev->node_guid = cpu_to_be64(0x0211223344556677ULL);
	xib_query_device(dev, &a);
	KUNIT_EXPECT_EQ(test, a.node_guid, dev->node_guid);
	KUNIT_EXPECT_EQ(test, a.sys_image_guid, dev->node_guid);
	KUNIT_EXPECT_EQ(test, a.phys_port_cnt, 1);
	KUNIT_EXPECT_EQ(test, a.device_cap_flags, core_caps);
	KUNIT_EXPECT_EQ(test, a.vendor_id, 0x7a6962U);
	KUNIT_EXPECT_EQ(test, a.vendor_part_id, 1U);
	KUNIT_EXPECT_EQ(test, a.max_qp_wr, dev->attrs.max_qp_wr);

	/* What the driver says wins; the core only adds. */
	dev->attrs.sys_image_guid = cpu_to_be64(42);
	dev->attrs.vendor_id = 0x1234;
	dev->attrs.vendor_part_id = 0;
	dev->attrs.device_cap_flags = XIB_DEVICE_RC_RNR_NAK_GEN;
	xib_query_device(dev, &a);
	KUNIT_EXPECT_EQ(test, a.sys_image_guid, cpu_to_be64(42));
	KUNIT_EXPECT_EQ(test, a.vendor_id, 0x1234U);
	KUNIT_EXPECT_EQ(test, a.vendor_part_id, 0U);
	KUNIT_EXPECT_EQ(test, a.device_cap_flags,
			core_caps | XIB_DEVICE_RC_RNR_NAK_GEN);
	xib_tdev_free(test, dev);
}

static void xib_verbs_test_rereg_mr(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	const u32 rw = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
		       XIB_ACCESS_REMOTE_READ;
	struct xib_mr *mr, *r, *found;
	struct xib_pd *pd, *pd2, *upd = NULL;
	struct xib_ucontext uctx;
	struct xib_umem *umem;
	unsigned long addr;
	char msg[8] = "rereg";
	char back[8] = {};
	s64 pinned;
	u32 key;

	if (!xib_tmm)
		kunit_skip(test, "no user mm to borrow");
	pd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	pd2 = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));
	KUNIT_ASSERT_EQ(test, xib_ucontext_init(&uctx, dev), 0);

	/* No KUNIT_ASSERT while the mm is in use: jump to out_unuse. */
	kthread_use_mm(xib_tmm);
	addr = vm_mmap(NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr)) {
		KUNIT_FAIL(test, "vm_mmap: %ld", (long)addr);
		goto out_unuse;
	}
	pinned = atomic64_read(&xib_tmm->pinned_vm);
	mr = xib_reg_user_mr(pd, addr, PAGE_SIZE, 0x5000,
			     XIB_ACCESS_REMOTE_READ);
	if (IS_ERR(mr)) {
		KUNIT_FAIL(test, "reg_mr: %ld", PTR_ERR(mr));
		goto out_unmap;
	}
	key = mr->lkey;
	KUNIT_EXPECT_FALSE(test, mr->umem->writable);

	/* Refused: nothing changes. */
	r = xib_rereg_user_mr(mr, 0, NULL, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	r = xib_rereg_user_mr(mr, 8, NULL, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 0,
			      XIB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	/* zero-based, but the iova stays 0x5000 */
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 0,
			      XIB_ACCESS_ZERO_BASED);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_TRANSLATION, NULL, addr,
			      0, addr, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	upd = xib_alloc_pd(dev, &uctx);
	if (IS_ERR(upd)) {
		KUNIT_FAIL(test, "alloc_pd: %ld", PTR_ERR(upd));
		upd = NULL;
	} else {
		/* A PD of another owner. */
		r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_PD, upd, 0, 0, 0,
				      0);
		KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EINVAL);
	}
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_TRANSLATION, NULL,
			      0x1000, PAGE_SIZE, 0x1000, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EFAULT);
	found = xib_mr_get_by_key(dev, key);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		xib_mr_put(found);
	KUNIT_EXPECT_EQ(test, mr->access, (u32)XIB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd2->usecnt), 0);

	/*
	 * Access: read-only pages are pinned again for writing.  The key
	 * stays; a request that held the old MR finishes with it, and the
	 * re-registration waits for it, as dereg does.
	 */
	xib_tlate.mr = xib_mr_get_by_key(dev, key);
	xib_tlate.done = false;
	INIT_DELAYED_WORK(&xib_tlate.work, xib_tlate_put_fn);
	if (xib_tlate.mr)
		schedule_delayed_work(&xib_tlate.work, msecs_to_jiffies(200));
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 0,
			      rw);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(xib_tlate.done));
	flush_delayed_work(&xib_tlate.work);
	if (IS_ERR(r)) {
		KUNIT_FAIL(test, "rereg access: %ld", PTR_ERR(r));
		goto out_dereg;
	}
	mr = r;
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	KUNIT_EXPECT_EQ(test, mr->rkey, key);
	KUNIT_EXPECT_EQ(test, mr->access, rw);
	KUNIT_EXPECT_EQ(test, mr->iova, 0x5000ULL);
	KUNIT_EXPECT_TRUE(test, mr->umem->writable);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned + 1);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd, 0x5000, 8,
					   XIB_ACCESS_REMOTE_WRITE), 0);
	found = xib_mr_get_by_key(dev, key);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		xib_mr_put(found);

	/* Fewer rights: the pinned pages stay as they are. */
	umem = mr->umem;
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 0,
			      XIB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(r)) {
		KUNIT_FAIL(test, "rereg fewer rights: %ld", PTR_ERR(r));
		goto out_dereg;
	}
	mr = r;
	KUNIT_EXPECT_PTR_EQ(test, mr->umem, umem);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd, 0x5000, 8,
					   XIB_ACCESS_REMOTE_WRITE), -EACCES);

	/* Translation and PD at once: two new pages at a new iova. */
	r = xib_rereg_user_mr(mr, XIB_REREG_MR_CHANGE_TRANSLATION |
			      XIB_REREG_MR_CHANGE_PD | XIB_REREG_MR_CHANGE_ACCESS,
			      pd2, addr + PAGE_SIZE, 2 * PAGE_SIZE, 0x9000, rw);
	if (IS_ERR(r)) {
		KUNIT_FAIL(test, "rereg translation: %ld", PTR_ERR(r));
		goto out_dereg;
	}
	mr = r;
	KUNIT_EXPECT_EQ(test, mr->lkey, key);
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, pd2);
	KUNIT_EXPECT_EQ(test, mr->iova, 0x9000ULL);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)(2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, mr->umem->npages, 2UL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd2->usecnt), 1);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd, 0x9000, 8, 0), -EACCES);
	KUNIT_EXPECT_EQ(test, xib_mr_check(mr, pd2, 0x5000, 8, 0), -ERANGE);
	/* Offset PAGE_SIZE + 4 of the MR is byte 4 of the third page. */
	KUNIT_EXPECT_EQ(test, xib_umem_copy_to(mr->umem, PAGE_SIZE + 4, msg,
					       sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(back,
					     (void __user *)(addr + 2 * PAGE_SIZE + 4),
					     sizeof(back)), 0UL);
	KUNIT_EXPECT_EQ(test, memcmp(msg, back, sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->res_count[XIB_RES_MR]), 1);

out_dereg:
	KUNIT_EXPECT_EQ(test, xib_dereg_mr(mr), 0);
	KUNIT_EXPECT_NULL(test, xib_mr_get_by_key(dev, key));
	KUNIT_EXPECT_EQ(test, atomic64_read(&xib_tmm->pinned_vm), pinned);
out_unmap:
	vm_munmap(addr, 4 * PAGE_SIZE);
out_unuse:
	kthread_unuse_mm(xib_tmm);

	if (upd)
		KUNIT_EXPECT_EQ(test, xib_dealloc_pd(upd), 0);
	xib_ucontext_cleanup(&uctx);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd2), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd), 0);
	xib_tdev_free(test, dev);
}

/*
 * xib_res_next(), the walk of the resource dumps: every live object once,
 * in number order, resumable at any number and bounded by @max; a
 * destroyed object is skipped; the owner is read from the user context
 * (the loading process's tgid, euid, comm), or "the kernel".
 */
static void xib_verbs_test_res_walk(struct kunit *test)
{
	struct xib_device *dev = xib_tdev_alloc(test, &xib_tops);
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct xib_pd *pd[6], *kpd;
	struct xib_res_owner owner;
	struct xib_ucontext *uctx;
	unsigned long id, dead, seen[8], rest[4];
	int i, n, want;
	void *obj;

	uctx = kunit_kzalloc(test, sizeof(*uctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, uctx);
	KUNIT_ASSERT_EQ(test, xib_ucontext_init(uctx, dev), 0);
	kpd = xib_alloc_pd(dev, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kpd));
	for (i = 0; i < 6; i++) {
		pd[i] = xib_alloc_pd(dev, uctx);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pd[i]));
	}

	/* All seven, ascending, each with a reference and its owner. */
	n = 0;
	for (id = 0; xib_res_next(dev, XIB_RES_PD, &id, ULONG_MAX, ns, &obj,
				  &owner); id++) {
		KUNIT_ASSERT_LT(test, n, 7);
		KUNIT_EXPECT_EQ(test, ((struct xib_pd *)obj)->pdn, (u32)id);
		KUNIT_EXPECT_EQ(test, kref_read(&((struct xib_pd *)obj)->ref), 2U);
		if (obj == kpd) {
			KUNIT_EXPECT_TRUE(test, owner.kern);
			KUNIT_EXPECT_EQ(test, owner.pid, 0);
		} else {
			KUNIT_EXPECT_FALSE(test, owner.kern);
			KUNIT_EXPECT_EQ(test, owner.pid, task_tgid_nr(current));
			KUNIT_EXPECT_TRUE(test, uid_eq(owner.euid, current_euid()));
			KUNIT_EXPECT_STREQ(test, owner.comm, current->comm);
			KUNIT_EXPECT_EQ(test, owner.ctx_id, uctx->id);
		}
		xib_res_put(XIB_RES_PD, obj);
		if (n)
			KUNIT_EXPECT_GT(test, id, seen[n - 1]);
		seen[n++] = id;
	}
	KUNIT_EXPECT_EQ(test, n, 7);

	/* Resume after the third; one destroyed meanwhile is skipped. */
	dead = pd[3]->pdn;
	KUNIT_ASSERT_EQ(test, xib_dealloc_pd(pd[3]), 0);
	for (i = 3, want = 0; i < 7; i++)
		if (seen[i] != dead)
			rest[want++] = seen[i];
	KUNIT_EXPECT_EQ(test, want, 3);
	n = 0;
	for (id = seen[2] + 1; xib_res_next(dev, XIB_RES_PD, &id, ULONG_MAX,
					    ns, &obj, &owner); id++) {
		KUNIT_ASSERT_LT(test, n, want);
		KUNIT_EXPECT_EQ(test, id, rest[n]);
		xib_res_put(XIB_RES_PD, obj);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, want);

	/* Bounded by @max: exactly the one asked for, or nothing. */
	id = seen[1];
	KUNIT_EXPECT_TRUE(test, xib_res_next(dev, XIB_RES_PD, &id, seen[1], ns,
					     &obj, &owner));
	KUNIT_EXPECT_EQ(test, id, seen[1]);
	xib_res_put(XIB_RES_PD, obj);
	id = seen[6] + 1;
	KUNIT_EXPECT_FALSE(test, xib_res_next(dev, XIB_RES_PD, &id, ULONG_MAX,
					      ns, &obj, &owner));

	/* The context itself: no reference, its counts. */
	id = 0;
	KUNIT_ASSERT_TRUE(test, xib_res_next(dev, XIB_RES_UCONTEXT, &id,
					     ULONG_MAX, ns, &obj, &owner));
	KUNIT_EXPECT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, (u32)id, uctx->id);
	KUNIT_EXPECT_EQ(test, owner.counts[XIB_RES_PD], 5U);
	KUNIT_EXPECT_EQ(test, owner.counts[XIB_RES_QP], 0U);
	id++;
	KUNIT_EXPECT_FALSE(test, xib_res_next(dev, XIB_RES_UCONTEXT, &id,
					      ULONG_MAX, ns, &obj, &owner));

	for (i = 0; i < 6; i++)
		if (i != 3)
			KUNIT_EXPECT_EQ(test, xib_dealloc_pd(pd[i]), 0);
	KUNIT_EXPECT_EQ(test, xib_dealloc_pd(kpd), 0);
	xib_ucontext_cleanup(uctx);
	id = 0;
	KUNIT_EXPECT_FALSE(test, xib_res_next(dev, XIB_RES_PD, &id, ULONG_MAX,
					      ns, &obj, &owner));
	KUNIT_EXPECT_FALSE(test, xib_res_next(dev, XIB_RES_UCONTEXT, &id,
					      ULONG_MAX, ns, &obj, &owner));
	xib_tdev_free(test, dev);
}

static struct kunit_case xib_verbs_test_cases[] = {
	KUNIT_CASE(xib_verbs_test_mr_check),
	KUNIT_CASE(xib_verbs_test_destroy_order),
	KUNIT_CASE(xib_verbs_test_release_deferred),
	KUNIT_CASE(xib_verbs_test_qpn),
	KUNIT_CASE(xib_verbs_test_create_qp_limits),
	KUNIT_CASE(xib_verbs_test_modify_qp),
	KUNIT_CASE(xib_verbs_test_args),
	KUNIT_CASE(xib_verbs_test_resize_srq),
	KUNIT_CASE(xib_verbs_test_mmap),
	KUNIT_CASE(xib_verbs_test_umem_copy),
	KUNIT_CASE(xib_verbs_test_reg_mr),
	KUNIT_CASE(xib_verbs_test_rereg_mr),
	KUNIT_CASE(xib_verbs_test_query_device),
	KUNIT_CASE(xib_verbs_test_res_walk),
	{}
};

static struct kunit_suite xib_verbs_test_suite = {
	.name = "xib_verbs",
	.suite_init = xib_verbs_suite_init,
	.suite_exit = xib_verbs_suite_exit,
	.test_cases = xib_verbs_test_cases,
};

kunit_test_suite(xib_verbs_test_suite);

MODULE_DESCRIPTION("KUnit tests of the xib verbs objects");
MODULE_LICENSE("GPL");
