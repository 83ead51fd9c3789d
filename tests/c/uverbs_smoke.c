// SPDX-License-Identifier: BSD-2-Clause
/*
 * uverbs_smoke: raw ioctls on /dev/xib/uverbs0, no library.
 *
 *   uverbs_smoke basic       the command set, argument checks, mmap, events
 *   uverbs_smoke leak        create one of everything and exit without
 *                            destroying anything (close must clean up)
 *   uverbs_smoke race FILE   touch FILE and create/destroy in two threads
 *                            until the device is removed
 *   uverbs_smoke portev FILE touch FILE, then wait for PORT_ERR of port 1
 *   uverbs_smoke hold FILE   create objects, map rings, touch FILE, then
 *                            wait for the device to be removed and check
 *                            the disassociated context
 *
 * Exit status 0 on success, 77 when the device has no verbs, 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xib/uverbs.h>

static volatile int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno)); \
		failures++;						\
	}								\
} while (0)

/* Read a byte: a fault here kills the test. */
static void touch(const void *p)
{
	(void)*(const volatile char *)p;
}

/* ioctl returning -errno or 0 */
static int xio(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

struct objs {
	int fd, async_fd, chan_fd;
	uint32_t pd, mr, cq, cq2, qp;
	struct xib_uverbs_get_context gc;
	struct xib_uverbs_create_cq ccq;
	struct xib_uverbs_create_qp cqp;
	void *buf, *cq_ring, *db;
};

static int setup(struct objs *o, int with_qp)
{
	struct xib_uverbs_alloc_pd apd = {};
	struct xib_uverbs_reg_mr rmr = {};
	struct xib_uverbs_create_comp_channel cc = {};
	int ret;

	o->fd = open("/dev/xib/uverbs0", O_RDWR);
	CHECK(o->fd >= 0, "open");
	if (o->fd < 0)
		return -1;
	memset(&o->gc, 0, sizeof(o->gc));
	ret = xio(o->fd, XIB_UVERBS_GET_CONTEXT, &o->gc);
	CHECK(ret == 0, "GET_CONTEXT %d", ret);
	o->async_fd = o->gc.async_fd;
	o->cq_ring = NULL;
	o->db = NULL;
	if (o->gc.db_mmap_size) {
		o->db = mmap(NULL, o->gc.db_mmap_size, PROT_READ, MAP_SHARED,
			     o->fd, o->gc.db_mmap_offset);
		CHECK(o->db != MAP_FAILED, "mmap doorbell");
	}
	ret = xio(o->fd, XIB_UVERBS_CREATE_COMP_CHANNEL, &cc);
	CHECK(ret == 0 && cc.fd >= 0, "CREATE_COMP_CHANNEL %d", ret);
	o->chan_fd = cc.fd;
	CHECK(fcntl(cc.fd, F_GETFD) == FD_CLOEXEC, "channel fd cloexec");

	ret = xio(o->fd, XIB_UVERBS_ALLOC_PD, &apd);
	if (ret == -EOPNOTSUPP)
		return 77;
	CHECK(ret == 0, "ALLOC_PD %d", ret);
	o->pd = apd.pd_handle;

	o->buf = malloc(65536);
	rmr.addr = (uintptr_t)o->buf;
	rmr.length = 65536;
	rmr.iova = 0x10000;
	rmr.pd_handle = o->pd;
	rmr.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE;
	ret = xio(o->fd, XIB_UVERBS_REG_MR, &rmr);
	CHECK(ret == 0, "REG_MR %d", ret);
	CHECK(rmr.lkey == rmr.rkey, "lkey %x rkey %x", rmr.lkey, rmr.rkey);
	o->mr = rmr.mr_handle;

	memset(&o->ccq, 0, sizeof(o->ccq));
	o->ccq.user_handle = 0x1234;
	o->ccq.cqe = 100;
	o->ccq.comp_channel = cc.fd;
	ret = xio(o->fd, XIB_UVERBS_CREATE_CQ, &o->ccq);
	CHECK(ret == 0, "CREATE_CQ %d", ret);
	CHECK(o->ccq.ring.slots == 128, "cq slots %u", o->ccq.ring.slots);
	o->cq = o->ccq.cq_handle;
	o->cq_ring = mmap(NULL, o->ccq.ring.mmap_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, o->fd, o->ccq.ring.mmap_offset);
	CHECK(o->cq_ring != MAP_FAILED, "mmap cq ring");
	if (!with_qp)
		return 0;

	memset(&o->cqp, 0, sizeof(o->cqp));
	o->cqp.user_handle = 0x5678;
	o->cqp.pd_handle = o->pd;
	o->cqp.send_cq_handle = o->cq;
	o->cqp.recv_cq_handle = o->cq;
	o->cqp.srq_handle = XIB_UVERBS_NO_HANDLE;
	o->cqp.qp_type = XIB_QPT_RC;
	o->cqp.cap.max_send_wr = 10;
	o->cqp.cap.max_recv_wr = 10;
	o->cqp.cap.max_send_sge = 2;
	o->cqp.cap.max_recv_sge = 2;
	ret = xio(o->fd, XIB_UVERBS_CREATE_QP, &o->cqp);
	CHECK(ret == 0, "CREATE_QP %d", ret);
	CHECK(o->cqp.cap.max_send_wr >= 10, "granted %u", o->cqp.cap.max_send_wr);
	o->qp = o->cqp.qp_handle;
	return 0;
}

/*
 * The event files outlive their context: once the context is gone (its
 * file closed, with nothing mapped that would keep it open), a blocking
 * read must end with -EIO, not sleep forever.  alarm() turns a hang into
 * a failure.
 */
static void event_files_outlive_context(void)
{
	struct xib_uverbs_create_comp_channel cc = {};
	struct xib_uverbs_get_context gc = {};
	struct xib_uverbs_async_event aev;
	struct pollfd pfd;
	int fd;

	fd = open("/dev/xib/uverbs0", O_RDWR);
	CHECK(fd >= 0, "open");
	if (fd < 0)
		return;
	CHECK(xio(fd, XIB_UVERBS_GET_CONTEXT, &gc) == 0, "GET_CONTEXT");
	CHECK(xio(fd, XIB_UVERBS_CREATE_COMP_CHANNEL, &cc) == 0, "channel");
	close(fd);
	alarm(20);
	CHECK(read(gc.async_fd, &aev, sizeof(aev)) < 0 && errno == EIO,
	      "async read after close: %s", strerror(errno));
	CHECK(read(cc.fd, &aev, sizeof(struct xib_uverbs_comp_event)) < 0 &&
	      errno == EIO, "channel read after close: %s", strerror(errno));
	pfd.fd = gc.async_fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR),
	      "async poll after close");
	alarm(0);
	close(cc.fd);
	close(gc.async_fd);
}

/*
 * REREG_MR as the header specifies it: every refusal changes nothing,
 * the keys stay; the MR ends as setup() made it.
 */
static void rereg_mr(struct objs *o)
{
	struct xib_uverbs_rereg_mr r;
	uint32_t key;
	int ret;

	/* one command on o->mr; the fields not named are 0 */
#define REREG(...) (r = (struct xib_uverbs_rereg_mr){ .mr_handle = o->mr, __VA_ARGS__ }, \
		    xio(o->fd, XIB_UVERBS_REREG_MR, &r))
	ret = REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS,
		    .access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE);
	CHECK(ret == 0 && r.lkey && r.lkey == r.rkey, "REREG_MR access %d", ret);
	key = r.lkey;
	CHECK(REREG(.flags = 0) == -EINVAL, "rereg no flag");
	CHECK(REREG(.flags = 1 << 3) == -EINVAL, "rereg unknown flag");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .lkey = key) == -EINVAL,
	      "rereg dirty out");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .addr = (uintptr_t)o->buf) == -EINVAL,
	      "rereg addr without CHANGE_TRANSLATION");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .iova = 1) == -EINVAL,
	      "rereg iova without CHANGE_TRANSLATION");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .pd_handle = 12345) == -EINVAL,
	      "rereg pd_handle without CHANGE_PD");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_PD, .access = 1) == -EINVAL,
	      "rereg access without CHANGE_ACCESS");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS,
		    .access = XIB_ACCESS_REMOTE_WRITE) == -EINVAL,
	      "rereg REMOTE_WRITE without LOCAL_WRITE");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .access = 1u << 19) == -EINVAL,
	      "rereg unknown access bit");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_ACCESS, .access = XIB_ACCESS_ZERO_BASED) == -EINVAL,
	      "rereg to ZERO_BASED, the iova staying nonzero");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_TRANSLATION, .addr = (uintptr_t)o->buf) ==
	      -EINVAL, "rereg length 0");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_TRANSLATION, .addr = ~0ull - 10, .length = 4096,
		    .iova = 0) == -EINVAL, "rereg addr + length wraps");
	CHECK(REREG(.flags = XIB_REREG_MR_CHANGE_PD, .pd_handle = o->cq) == -ENOENT,
	      "rereg a CQ as PD");
	r = (struct xib_uverbs_rereg_mr){ .mr_handle = o->pd, .flags = XIB_REREG_MR_CHANGE_ACCESS };
	CHECK(xio(o->fd, XIB_UVERBS_REREG_MR, &r) == -ENOENT, "rereg a PD as MR");
	/* in place: the same keys, then back to setup()'s registration */
	ret = REREG(.flags = XIB_REREG_MR_CHANGE_TRANSLATION | XIB_REREG_MR_CHANGE_PD,
		    .addr = (uintptr_t)o->buf + 4096, .length = 4096, .iova = 0x20000,
		    .pd_handle = o->pd);
	CHECK(ret == 0 && r.lkey == key && r.rkey == key, "REREG_MR translation %d", ret);
	ret = REREG(.flags = XIB_REREG_MR_CHANGE_TRANSLATION | XIB_REREG_MR_CHANGE_ACCESS,
		    .addr = (uintptr_t)o->buf, .length = 65536, .iova = 0x10000,
		    .access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE);
	CHECK(ret == 0 && r.lkey == key, "REREG_MR back %d", ret);
#undef REREG
}

/*
 * RESIZE_SRQ at the ioctl, with 8 WQEs "posted" by writing the ring's
 * prod (the kernel moves slots as bytes): the kernel's own refusals, and
 * the new ring's header.  @max_wr is the granted size (8), limit 2 armed.
 */
static void smoke_resize_srq(int fd, __u32 handle, const struct xib_uverbs_ring *ring,
			     __u32 max_wr)
{
	struct xib_uverbs_resize_srq rs = {};
	struct xib_uverbs_query_srq qs = {};
	volatile __u32 *hdr, *nhdr;
	int ret;

	hdr = mmap(NULL, ring->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)ring->mmap_offset);
	CHECK(hdr != MAP_FAILED && max_wr == 8, "SRQ ring mmap, %u slots", max_wr);
	if (hdr == MAP_FAILED)
		return;
	hdr[0] = 8;			/* prod: 8 posted, none taken */
	rs.srq_handle = handle;
	rs.max_wr = 4;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ below the posted");
	rs.max_wr = 0;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ 0");
	rs.max_wr = 1u << 30;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ above max_srq_wr");
	rs.max_wr = 16;
	rs.ring.slots = 1;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ dirty out");
	rs.ring.slots = 0;
	rs.srq_handle = handle + 1000;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -ENOENT, "RESIZE_SRQ bad handle");
	hdr[0] = 100;			/* prod - cons beyond the ring: broken */
	rs.srq_handle = handle;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ with a bad prod");
	qs.srq_handle = handle;
	CHECK(xio(fd, XIB_UVERBS_QUERY_SRQ, &qs) == 0 && qs.max_wr == 8,
	      "refused resizes left max_wr %u", qs.max_wr);
	hdr[0] = 8;
	ret = xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs);
	CHECK(ret == 0 && rs.max_wr == 16 && rs.ring.slots == 16 &&
	      rs.ring.mmap_offset != ring->mmap_offset, "RESIZE_SRQ 16: %d, %u", ret, rs.max_wr);
	munmap((void *)hdr, ring->mmap_size);
	if (ret)
		return;
	nhdr = mmap(NULL, rs.ring.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)rs.ring.mmap_offset);
	CHECK(nhdr != MAP_FAILED && nhdr[0] == 8 && nhdr[16] == 0,
	      "the new ring: prod 8, cons 0");
	if (nhdr == MAP_FAILED)
		return;
	nhdr[0] = 0;			/* empty: only the limit can refuse */
	memset(&rs.ring, 0, sizeof(rs.ring));
	rs.max_wr = 1;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == -EINVAL, "RESIZE_SRQ below the limit 2");
	memset(&qs, 0, sizeof(qs));	/* out fields must be zero */
	qs.srq_handle = handle;
	CHECK(xio(fd, XIB_UVERBS_QUERY_SRQ, &qs) == 0 && qs.max_wr == 16 && qs.srq_limit == 2,
	      "QUERY_SRQ after RESIZE_SRQ: max_wr %u, limit %u", qs.max_wr, qs.srq_limit);
	rs.max_wr = 2;
	CHECK(xio(fd, XIB_UVERBS_RESIZE_SRQ, &rs) == 0 && rs.max_wr == 2,
	      "RESIZE_SRQ to the limit 2, empty");
	munmap((void *)nhdr, rs.ring.mmap_size);
}

static void basic(void)
{
	struct xib_uverbs_query_device qd = {};
	struct xib_uverbs_query_port qp = {};
	struct xib_uverbs_query_pkey pk = {};
	struct xib_uverbs_query_gid qg = {};
	struct xib_uverbs_alloc_pd apd = {};
	struct xib_uverbs_get_context gc = {};
	struct xib_uverbs_destroy d = {};
	struct xib_uverbs_destroy_events de = {};
	struct xib_uverbs_modify_qp mq = {};
	struct xib_uverbs_query_qp qq = {};
	struct xib_uverbs_create_cq ccq = {};
	struct xib_uverbs_async_event aev;
	struct pollfd pfd;
	struct objs o;
	void *p;
	int fd, ret;

	/* QUERY_* before GET_CONTEXT, everything else refused. */
	fd = open("/dev/xib/uverbs0", O_RDWR);
	CHECK(fd >= 0, "open");
	ret = xio(fd, XIB_UVERBS_QUERY_DEVICE, &qd);
	CHECK(ret == 0, "QUERY_DEVICE %d", ret);
	CHECK(qd.attr.phys_port_cnt == 1, "ports %u", qd.attr.phys_port_cnt);
	CHECK(qd.attr.max_qp > 0, "max_qp %u", qd.attr.max_qp);
	qd.attr.reserved[0] = 1;
	CHECK(xio(fd, XIB_UVERBS_QUERY_DEVICE, &qd) == -EINVAL, "dirty out");
	qp.port_num = 1;
	ret = xio(fd, XIB_UVERBS_QUERY_PORT, &qp);
	CHECK(ret == 0, "QUERY_PORT %d", ret);
	CHECK(qp.attr.link_layer == 2, "link_layer %u", qp.attr.link_layer);
	memset(&qp, 0, sizeof(qp));
	qp.port_num = 2;
	CHECK(xio(fd, XIB_UVERBS_QUERY_PORT, &qp) == -EINVAL, "port 2");
	pk.port_num = 1;
	CHECK(xio(fd, XIB_UVERBS_QUERY_PKEY, &pk) == 0 && pk.pkey == 0xffff,
	      "pkey %x", pk.pkey);
	qg.port_num = 1;
	qg.index = 0;
	ret = xio(fd, XIB_UVERBS_QUERY_GID, &qg);
	CHECK(ret == 0 || ret == -ENOENT, "QUERY_GID %d", ret);
	if (!ret)
		CHECK(qg.gid_type == 2 && qg.ndev_ifindex, "gid type %u if %u",
		      qg.gid_type, qg.ndev_ifindex);
	CHECK(xio(fd, XIB_UVERBS_ALLOC_PD, &apd) == -EINVAL, "PD before ctx");
	CHECK(xio(fd, _IOWR(XIB_UVERBS_IOCTL_MAGIC, 0x40, int), &ret) == -ENOTTY,
	      "unknown ioctl");
	CHECK(xio(fd, _IOWR(XIB_UVERBS_IOCTL_MAGIC, 5, int), &ret) == -ENOTTY,
	      "wrong size");
	/* out fields (once reserved space) must be zero on input */
	gc.uar_mmap_offset = 1;
	CHECK(xio(fd, XIB_UVERBS_GET_CONTEXT, &gc) == -EINVAL, "out field");
	CHECK(xio(fd, XIB_UVERBS_GET_CONTEXT, (void *)16) == -EFAULT, "efault");
	close(fd);

	if (setup(&o, 1) == 77)
		exit(failures ? 1 : 77);
	CHECK(o.gc.abi_version == XIB_UVERBS_ABI_VERSION, "abi");
	CHECK(o.gc.num_comp_vectors == 1, "vectors");
	/* a netdev-bound device has no UAR: kicks are system calls */
	CHECK(o.gc.db_kind == XIB_UVERBS_DB_SYSCALL && !o.gc.uar_db_reg &&
	      !o.gc.uar_db_value && !o.gc.uar_mmap_offset, "db kind %u",
	      o.gc.db_kind);
	CHECK(fcntl(o.async_fd, F_GETFD) == FD_CLOEXEC, "async fd cloexec");
	memset(&gc, 0, sizeof(gc));
	CHECK(xio(o.fd, XIB_UVERBS_GET_CONTEXT, &gc) == -EEXIST, "2nd ctx");

	/* mmap checks */
	p = mmap(NULL, o.ccq.ring.mmap_size + 4096, PROT_READ, MAP_SHARED,
		 o.fd, o.ccq.ring.mmap_offset);
	CHECK(p == MAP_FAILED && errno == EINVAL, "mmap longer");
	p = mmap(NULL, o.ccq.ring.mmap_size, PROT_READ, MAP_PRIVATE,
		 o.fd, o.ccq.ring.mmap_offset);
	CHECK(p == MAP_FAILED, "mmap private");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, o.fd, 1ull << 40);
	CHECK(p == MAP_FAILED && errno == EINVAL, "mmap unknown offset");
	if (o.gc.db_mmap_size) {
		p = mmap(NULL, o.gc.db_mmap_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, o.fd, o.gc.db_mmap_offset);
		CHECK(p == MAP_FAILED && errno == EPERM, "writable doorbell");
		CHECK(mprotect(o.db, o.gc.db_mmap_size,
			       PROT_READ | PROT_WRITE) != 0, "mprotect db");
	}
	/* the CQ ring maps and the first slot reads */
	touch(o.cq_ring);

	/* wrong type, unknown handles, in-use objects */
	d.handle = o.pd;
	CHECK(xio(o.fd, XIB_UVERBS_DEREG_MR, &d) == -ENOENT, "pd as mr");
	CHECK(xio(o.fd, XIB_UVERBS_DEALLOC_PD, &d) == -EBUSY, "pd in use");
	d.handle = 12345;
	CHECK(xio(o.fd, XIB_UVERBS_DEALLOC_PD, &d) == -ENOENT, "no pd");
	de.handle = o.cq;
	CHECK(xio(o.fd, XIB_UVERBS_DESTROY_CQ, &de) == -EBUSY, "cq in use");
	de.async_events_reported = 1;
	CHECK(xio(o.fd, XIB_UVERBS_DESTROY_CQ, &de) == -EINVAL, "dirty out");
	rereg_mr(&o);

	ccq.cqe = 4;
	ccq.comp_channel = o.async_fd;
	CHECK(xio(o.fd, XIB_UVERBS_CREATE_CQ, &ccq) == -EINVAL, "async as chan");
	ccq.comp_channel = -1;
	ccq.flags = 1;
	CHECK(xio(o.fd, XIB_UVERBS_CREATE_CQ, &ccq) == -EINVAL, "cq flags");
	ccq.flags = 0;
	ret = xio(o.fd, XIB_UVERBS_CREATE_CQ, &ccq);
	CHECK(ret == 0 && ccq.ring.slots == 4, "small CQ %d", ret);
	o.cq2 = ccq.cq_handle;

	/* QP: query, modify to INIT, kick */
	qq.qp_handle = o.qp;
	ret = xio(o.fd, XIB_UVERBS_QUERY_QP, &qq);
	CHECK(ret == 0, "QUERY_QP %d", ret);
	CHECK(qq.attr.qp_state == XIB_QPS_RESET, "state %u", qq.attr.qp_state);
	CHECK(qq.pd_handle == o.pd && qq.send_cq_handle == o.cq &&
	      qq.srq_handle == XIB_UVERBS_NO_HANDLE && qq.qp_type == XIB_QPT_RC,
	      "query handles");
	mq.qp_handle = o.qp;
	mq.attr_mask = XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
		       XIB_QP_ACCESS_FLAGS;
	mq.attr.qp_state = XIB_QPS_INIT;
	mq.attr.port_num = 1;
	mq.attr.reserved1 = 1;
	CHECK(xio(o.fd, XIB_UVERBS_MODIFY_QP, &mq) == -EINVAL, "reserved");
	mq.attr.reserved1 = 0;
	mq.attr_mask |= 1 << 22;
	CHECK(xio(o.fd, XIB_UVERBS_MODIFY_QP, &mq) == -EINVAL, "bit 22");
	mq.attr_mask &= ~(1 << 22);
	ret = xio(o.fd, XIB_UVERBS_MODIFY_QP, &mq);
	CHECK(ret == 0, "MODIFY_QP INIT %d", ret);
	memset(&qq, 0, sizeof(qq));
	qq.qp_handle = o.qp;
	CHECK(xio(o.fd, XIB_UVERBS_QUERY_QP, &qq) == 0 &&
	      qq.attr.qp_state == XIB_QPS_INIT, "state %u", qq.attr.qp_state);
	d.handle = o.qp;
	ret = xio(o.fd, XIB_UVERBS_KICK, &d);
	CHECK(ret == 0 || ret == -EOPNOTSUPP, "KICK %d", ret);
	d.handle = o.cq;
	CHECK(xio(o.fd, XIB_UVERBS_KICK, &d) == -ENOENT, "kick a cq");

	/* no events yet: poll says nothing, non-blocking read -EAGAIN */
	pfd.fd = o.async_fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 0) == 0, "async poll");
	fcntl(o.async_fd, F_SETFL, O_NONBLOCK);
	CHECK(read(o.async_fd, &aev, sizeof(aev)) < 0 && errno == EAGAIN,
	      "async read");
	CHECK(read(o.async_fd, &aev, 4) < 0 && errno == EINVAL, "short read");
	pfd.fd = o.chan_fd;
	CHECK(poll(&pfd, 1, 0) == 0, "chan poll");

	/* SRQ */
	{
		struct xib_uverbs_create_srq cs = {};
		struct xib_uverbs_modify_srq ms = {};
		struct xib_uverbs_query_srq qs = {};

		cs.user_handle = 0x99;
		cs.pd_handle = o.pd;
		cs.max_wr = 5;
		cs.max_sge = 1;
		ret = xio(o.fd, XIB_UVERBS_CREATE_SRQ, &cs);
		CHECK(ret == 0 && cs.max_wr >= 5, "CREATE_SRQ %d", ret);
		ms.srq_handle = cs.srq_handle;
		ms.attr_mask = XIB_SRQ_LIMIT;
		ms.srq_limit = 2;
		ret = xio(o.fd, XIB_UVERBS_MODIFY_SRQ, &ms);
		CHECK(ret == 0, "MODIFY_SRQ %d", ret);
		ms.attr_mask = 4;
		CHECK(xio(o.fd, XIB_UVERBS_MODIFY_SRQ, &ms) == -EINVAL, "mask");
		qs.srq_handle = cs.srq_handle;
		ret = xio(o.fd, XIB_UVERBS_QUERY_SRQ, &qs);
		CHECK(ret == 0 && qs.srq_limit == 2 && qs.max_wr == cs.max_wr,
		      "QUERY_SRQ %d limit %u", ret, qs.srq_limit);
		smoke_resize_srq(o.fd, cs.srq_handle, &cs.ring, cs.max_wr);
		memset(&de, 0, sizeof(de));
		de.handle = cs.srq_handle;
		CHECK(xio(o.fd, XIB_UVERBS_DESTROY_SRQ, &de) == 0, "DESTROY_SRQ");
	}
	/* AH, if the port has a GID */
	if (qg.gid_type) {
		struct xib_uverbs_create_ah ca = {};

		ca.pd_handle = o.pd;
		memcpy(ca.attr.dgid, qg.gid, 16);
		ca.attr.port_num = 1;
		ca.attr.is_global = 1;
		ca.attr.hop_limit = 64;
		ret = xio(o.fd, XIB_UVERBS_CREATE_AH, &ca);
		CHECK(ret == 0, "CREATE_AH %d", ret);
		d.handle = ca.ah_handle;
		CHECK(xio(o.fd, XIB_UVERBS_DESTROY_AH, &d) == 0, "DESTROY_AH");
	}
	/* RESIZE_CQ: implemented or -EOPNOTSUPP */
	{
		struct xib_uverbs_resize_cq rc = {};

		rc.cq_handle = o.cq2;
		rc.cqe = 16;
		ret = xio(o.fd, XIB_UVERBS_RESIZE_CQ, &rc);
		CHECK(ret == 0 || ret == -EOPNOTSUPP, "RESIZE_CQ %d", ret);
	}
	/* a split mapping: unmap the header page, keep the slots */
	p = mmap(NULL, o.ccq.ring.mmap_size, PROT_READ, MAP_SHARED,
		 o.fd, o.ccq.ring.mmap_offset);
	CHECK(p != MAP_FAILED, "mmap again");
	if (p != MAP_FAILED && o.ccq.ring.mmap_size > 4096) {
		CHECK(munmap(p, 4096) == 0, "split");
		touch((char *)p + 4096);
		munmap((char *)p + 4096, o.ccq.ring.mmap_size - 4096);
	}

	/* destroy in order */
	memset(&de, 0, sizeof(de));
	de.handle = o.qp;
	ret = xio(o.fd, XIB_UVERBS_DESTROY_QP, &de);
	CHECK(ret == 0 && !de.async_events_reported, "DESTROY_QP %d", ret);
	memset(&de, 0, sizeof(de));
	de.handle = o.cq;
	ret = xio(o.fd, XIB_UVERBS_DESTROY_CQ, &de);
	CHECK(ret == 0 && !de.comp_events_reported, "DESTROY_CQ %d", ret);
	memset(&de, 0, sizeof(de));
	de.handle = o.cq2;
	CHECK(xio(o.fd, XIB_UVERBS_DESTROY_CQ, &de) == 0, "DESTROY_CQ 2");
	CHECK(xio(o.fd, XIB_UVERBS_DESTROY_CQ, &de) == -ENOENT, "twice");
	d.handle = o.mr;
	CHECK(xio(o.fd, XIB_UVERBS_DEREG_MR, &d) == 0, "DEREG_MR");
	d.handle = o.pd;
	CHECK(xio(o.fd, XIB_UVERBS_DEALLOC_PD, &d) == 0, "DEALLOC_PD");
	/* the ring mapping outlives its CQ */
	((volatile uint32_t *)o.cq_ring)[1024] = 7;
	CHECK(((volatile uint32_t *)o.cq_ring)[1024] == 7, "ring after destroy");

	close(o.chan_fd);
	close(o.async_fd);
	close(o.fd);
	event_files_outlive_context();
}

static sigjmp_buf jb;

static void on_sigbus(int sig)
{
	siglongjmp(jb, sig);
}

static void hold(const char *file)
{
	struct xib_uverbs_async_event aev;
	struct xib_uverbs_alloc_pd apd = {};
	struct xib_uverbs_query_device qd = {};
	volatile uint8_t *ring;
	struct pollfd pfd;
	struct objs o;
	int pipefd[2], status = 0;
	pid_t child;
	size_t i;
	void *p;
	int ret, fd;

	if (setup(&o, 1) == 77)
		fprintf(stderr, "no verbs: checking the context only\n");
	ring = o.cq_ring;
	if (ring)
		ring[4096] = 0x5a;
	CHECK(pipe(pipefd) == 0, "pipe");
	child = fork();
	if (child == 0) {
		char c;

		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(3);
		for (i = 0; ring && i < o.ccq.ring.mmap_size; i += 512)
			if (ring[i])
				_exit(4);
		if (ring)
			ring[8] = 1;
		_exit(0);
	}
	close(pipefd[0]);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	close(fd);

	pfd.fd = o.async_fd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, 60000);
	CHECK(ret == 1 && (pfd.revents & POLLIN), "poll async %d", ret);
	ret = read(o.async_fd, &aev, sizeof(aev));
	CHECK(ret == sizeof(aev) && aev.event_type == XIB_EVENT_DEVICE_FATAL &&
	      aev.element == 0, "read %d type %u", ret, aev.event_type);
	ret = read(o.async_fd, &aev, sizeof(aev));
	CHECK(ret < 0 && errno == EIO, "read after fatal %d", ret);

	CHECK(xio(o.fd, XIB_UVERBS_ALLOC_PD, &apd) == -EIO, "cmd after removal");
	CHECK(xio(o.fd, XIB_UVERBS_QUERY_DEVICE, &qd) == -EIO, "query");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, o.fd,
		 o.gc.db_mmap_offset);
	CHECK(p == MAP_FAILED && errno == EIO, "mmap after removal");

	signal(SIGBUS, on_sigbus);
	signal(SIGSEGV, on_sigbus);
	if (sigsetjmp(jb, 1)) {
		CHECK(0, "signal on the zapped mapping");
	} else {
		for (i = 0; ring && i < o.ccq.ring.mmap_size; i += 512)
			CHECK(ring[i] == 0, "zapped byte %zu = %u", i, ring[i]);
		if (ring) {
			ring[4096] = 1;	/* writable, private to us now */
			CHECK(ring[4096] == 1, "write");
		}
		if (o.db)
			CHECK(*(volatile uint32_t *)o.db == 0, "db");
	}
	CHECK(write(pipefd[1], "x", 1) == 1, "pipe write");
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child status %x", status);
	if (o.chan_fd >= 0) {
		pfd.fd = o.chan_fd;
		CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR),
		      "chan dead");
		close(o.chan_fd);
	}
	close(o.async_fd);
	close(o.fd);
}

/* Threads that create, map and destroy until the device goes away. */
static void *churn(void *arg)
{
	struct objs *o = arg;
	int n, ret = 0;

	for (n = 0; n < 1000000 && ret != -EIO; n++) {
		struct xib_uverbs_alloc_pd apd = {};
		struct xib_uverbs_create_cq ccq = {};
		struct xib_uverbs_destroy d = {};
		struct xib_uverbs_destroy_events de = {};

		ret = xio(o->fd, XIB_UVERBS_ALLOC_PD, &apd);
		if (ret)
			break;
		ccq.cqe = 8;
		ccq.comp_channel = o->chan_fd;
		ret = xio(o->fd, XIB_UVERBS_CREATE_CQ, &ccq);
		if (!ret) {
			void *p = mmap(NULL, ccq.ring.mmap_size,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       o->fd, ccq.ring.mmap_offset);
			if (p != MAP_FAILED) {
				((volatile char *)p)[4096] = 1;
				munmap(p, ccq.ring.mmap_size);
			}
			de.handle = ccq.cq_handle;
			ret = xio(o->fd, XIB_UVERBS_DESTROY_CQ, &de);
		}
		d.handle = apd.pd_handle;
		if (!ret)
			ret = xio(o->fd, XIB_UVERBS_DEALLOC_PD, &d);
	}
	if (ret != -EIO) {
		fprintf(stderr, "churn ended with %d after %d rounds\n", ret, n);
		failures++;
	}
	return NULL;
}

/* Churn in two threads while the device is removed. */
static void race(const char *file)
{
	struct xib_uverbs_async_event aev;
	struct pollfd pfd;
	pthread_t t[2];
	struct objs o;
	int fd, i;

	if (setup(&o, 0) == 77)
		exit(77);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churn, &o);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	close(fd);
	pfd.fd = o.async_fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 60000) == 1, "poll");
	CHECK(read(o.async_fd, &aev, sizeof(aev)) == sizeof(aev) &&
	      aev.event_type == XIB_EVENT_DEVICE_FATAL, "fatal");
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(o.chan_fd);
	close(o.async_fd);
	close(o.fd);
}

/* Wait for a PORT_ERR event of port 1 (the test takes the link down). */
static void portev(const char *file)
{
	struct xib_uverbs_get_context gc = {};
	struct xib_uverbs_async_event aev;
	struct pollfd pfd;
	int fd, ufd, seen = 0, i;

	ufd = open("/dev/xib/uverbs0", O_RDWR);
	CHECK(ufd >= 0, "open");
	CHECK(xio(ufd, XIB_UVERBS_GET_CONTEXT, &gc) == 0, "GET_CONTEXT");
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	close(fd);
	for (i = 0; i < 50 && !seen; i++) {
		int ret;

		pfd.fd = gc.async_fd;
		pfd.events = POLLIN;
		ret = poll(&pfd, 1, 30000);
		CHECK(ret == 1, "poll %d", ret);
		if (ret != 1)
			break;
		ret = read(gc.async_fd, &aev, sizeof(aev));
		CHECK(ret == sizeof(aev), "read %d", ret);
		if (ret != sizeof(aev))
			break;
		fprintf(stderr, "event %u element %llu\n", aev.event_type,
			(unsigned long long)aev.element);
		if (aev.event_type == XIB_EVENT_PORT_ERR) {
			CHECK(aev.element == 1, "element %llu",
			      (unsigned long long)aev.element);
			seen = 1;
		}
	}
	CHECK(seen, "no PORT_ERR");
	close(gc.async_fd);
	close(ufd);
}

int main(int argc, char **argv)
{
	struct objs o;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "basic")) {
		basic();
	} else if (!strcmp(argv[1], "leak")) {
		if (setup(&o, 1) == 77)
			return 77;
		/* exit without destroying or closing anything */
	} else if (!strcmp(argv[1], "race") && argc == 3) {
		race(argv[2]);
	} else if (!strcmp(argv[1], "portev") && argc == 3) {
		portev(argv[2]);
	} else if (!strcmp(argv[1], "hold") && argc == 3) {
		hold(argv[2]);
	} else {
		return 2;
	}
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
