// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_xrc_test: XRC domains and XRC SRQs as user space sees them
 * (IBTA vol. 1 10.2.9; the seed's ibv_open_xrc_domain: "open an XRC
 * domain ... or return a reference to an opened one", O_CREAT and O_EXCL
 * with open(2)'s meaning, fd -1 with O_CREAT alone; close "may fail if
 * any QP or SRQ are still associated with the XRC domain").
 *
 *   xib_xrc_test [-d DEV]
 *
 * Checks, one TAP line each:
 *
 *   - fd -1: O_CREAT gives a private domain, a new one each time; 0 or
 *     O_CREAT | O_EXCL is EINVAL;
 *   - a file's inode: without O_CREAT, ENOENT before the domain exists;
 *     O_EXCL alone, unknown oflags bits, a reserved field: EINVAL; a bad
 *     fd: EBADF; O_CREAT creates, O_CREAT | O_EXCL then is EEXIST, 0 and
 *     O_CREAT open the same domain (same xrcdn);
 *   - a second process with a context of its own opens the same domain
 *     through another open() of the same file and through a hard link
 *     (same xrcdn), and a different file gives a different one;
 *   - the domain outlives its creator's handles while the other process
 *     holds it, and is gone (ENOENT) once no one does;
 *   - XRC SRQs (CREATE_XSRQ): an SRQ number, distinct per SRQ; CLOSE_XRCD
 *     of the handle they were created through is EBUSY, and so is
 *     DESTROY_CQ of their CQ, until they are destroyed; an RC QP cannot
 *     use an XRC SRQ (EINVAL); bad types, handles and reserved fields are
 *     refused; a BASIC SRQ through CREATE_XSRQ works;
 *   - the domain holds its file's filesystem: umount is EBUSY while it
 *     lives (a tmpfs mounted for the test; needs CAP_SYS_ADMIN), and works
 *     once the domain is closed;
 *   - a process that exits holding a domain and an XRC SRQ leaves nothing
 *     behind (its opener's reference is dropped: ENOENT afterwards);
 *   - a context holds at most max_xrcd_per_context handles (ENOMEM);
 *   - the data path, two processes: one owns an XRC target QP and three
 *     XRC SRQs (two in the shared domain, one in a private one); the
 *     other opens the target (ibv_open_qp; not through another domain),
 *     moves it to RTR through its handle, makes an XRC_SEND QP (refused
 *     with a receive CQ) and sends to each SRQ: the two of the domain
 *     receive their message, exact, on their own CQs (the two SRQs are
 *     in different PDs); the third send, through a second initiator, is
 *     refused (REM_INV_REQ_ERR) and nothing lands; the target outlives
 *     the other process's handle;
 *   - RDMA through the target (IBTA Annex A14: the PD of the XRC SRQ the
 *     XRCETH names): a multi-packet RDMA WRITE, a WRITE with immediate
 *     (completing on its SRQ's CQ with the immediate), a multi-packet
 *     RDMA READ, CMP_SWAP and FETCH_ADD, each to an MR of the named SRQ's
 *     PD, checked byte for byte on both sides; a WRITE with the rkey of an
 *     MR of the other SRQ's PD is refused (REM_ACCESS_ERR) and writes
 *     nothing.
 *
 * Exit status: the number of failed checks (0: all passed); a broken
 * setup prints "FAIL: ..." and exits 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "xib_test.h"

static const char *dev_path = "/dev/xib/uverbs0";
static char file_a[64], file_b[64], link_a[80];

/* OPEN_XRCD by hand; returns 0 or -errno, the handle and number. */
static int open_xrcd(struct xib_context *ctx, int fd, uint32_t oflags, uint64_t reserved,
		     uint32_t *handle, uint32_t *xrcdn)
{
	struct xib_uverbs_open_xrcd o;

	memset(&o, 0, sizeof(o));
	o.fd = fd;
	o.oflags = oflags;
	o.reserved = reserved;
	if (ioctl(ctx->fd, XIB_UVERBS_OPEN_XRCD, &o))
		return -errno;
	if (handle)
		*handle = o.xrcd_handle;
	if (xrcdn)
		*xrcdn = o.xrcdn;
	return 0;
}

static int close_xrcd(struct xib_context *ctx, uint32_t handle)
{
	struct xib_uverbs_destroy d = { .handle = handle };

	return ioctl(ctx->fd, XIB_UVERBS_CLOSE_XRCD, &d) ? -errno : 0;
}

/* Open @path and the domain of its inode with @oflags; -errno on failure. */
static int open_file_xrcd(struct xib_context *ctx, const char *path, uint32_t oflags,
			  uint32_t *handle, uint32_t *xrcdn)
{
	int fd = open(path, O_RDONLY);
	int ret;

	if (fd < 0)
		xt_fail("open %s: %s", path, strerror(errno));
	ret = open_xrcd(ctx, fd, oflags, 0, handle, xrcdn);
	close(fd);		/* the domain is named by the inode, not the fd */
	return ret;
}

static const char *err_name(int ret)
{
	static char buf[32];

	switch (ret) {
	case 0: return "0";
	case -EINVAL: return "EINVAL";
	case -ENOENT: return "ENOENT";
	case -EEXIST: return "EEXIST";
	case -EBADF: return "EBADF";
	case -EBUSY: return "EBUSY";
	case -ENOMEM: return "ENOMEM";
	case -EOPNOTSUPP: return "EOPNOTSUPP";
	default:
		snprintf(buf, sizeof(buf), "%d", ret);
		return buf;
	}
}

static void check_fd_minus_one(struct xib_context *ctx)
{
	uint32_t h1, h2, n1 = 0, n2 = 0;
	int r1, r2, ret;

	r1 = open_xrcd(ctx, -1, XIB_XRCD_O_CREAT, 0, &h1, &n1);
	r2 = open_xrcd(ctx, -1, XIB_XRCD_O_CREAT, 0, &h2, &n2);
	ok(!r1 && !r2 && n1 && n2 && n1 != n2,
	   "fd -1, O_CREAT: two private domains (xrcdn %u, %u)", n1, n2);
	if (!r1)
		ok(close_xrcd(ctx, h1) == 0, "close a private domain");
	if (!r2)
		close_xrcd(ctx, h2);
	ret = open_xrcd(ctx, -1, 0, 0, NULL, NULL);
	ok(ret == -EINVAL, "fd -1, oflags 0: %s", err_name(ret));
	ret = open_xrcd(ctx, -1, XIB_XRCD_O_CREAT | XIB_XRCD_O_EXCL, 0, NULL, NULL);
	ok(ret == -EINVAL, "fd -1, O_CREAT | O_EXCL: %s", err_name(ret));
}

static void check_bad_open(struct xib_context *ctx)
{
	int fd = open(file_a, O_RDONLY);
	int ret;

	ret = open_xrcd(ctx, fd, 0, 0, NULL, NULL);
	ok(ret == -ENOENT, "no domain yet, oflags 0: %s", err_name(ret));
	ret = open_xrcd(ctx, fd, XIB_XRCD_O_EXCL, 0, NULL, NULL);
	ok(ret == -EINVAL, "O_EXCL without O_CREAT: %s", err_name(ret));
	ret = open_xrcd(ctx, fd, XIB_XRCD_O_CREAT | 4, 0, NULL, NULL);
	ok(ret == -EINVAL, "unknown oflags bit: %s", err_name(ret));
	ret = open_xrcd(ctx, fd, XIB_XRCD_O_CREAT, 1, NULL, NULL);
	ok(ret == -EINVAL, "reserved field set: %s", err_name(ret));
	ret = open_xrcd(ctx, 1000000, XIB_XRCD_O_CREAT, 0, NULL, NULL);
	ok(ret == -EBADF, "bad fd: %s", err_name(ret));
	ret = open_xrcd(ctx, -2, XIB_XRCD_O_CREAT, 0, NULL, NULL);
	ok(ret == -EINVAL, "fd -2: %s", err_name(ret));
	close(fd);
	ret = open_xrcd(ctx, fd, 0, 0, NULL, NULL);	/* fd is closed now */
	ok(ret == -EBADF, "closed fd: %s", err_name(ret));
}

/* XRC SRQs in the domain of handle @xh (number @xn) of @ctx. */
static void check_srqs(struct xib_context *ctx, uint32_t xh)
{
	struct xib_uverbs_create_xsrq x;
	struct xib_xrcd xrcd = { .ctx = ctx, .handle = xh };
	struct xib_qp_init_attr qi;
	struct xib_srq *s1 = NULL, *s2 = NULL, *sb = NULL;
	struct xib_pd *pd;
	struct xib_cq *cq;
	struct xib_qp *qp = NULL;
	struct xib_uverbs_destroy_events de;
	int ret;

	xt_check(xib_alloc_pd(ctx, &pd), "alloc_pd");
	xt_check(xib_create_cq(ctx, 16, 1, NULL, 0, &cq), "create_cq");

	ret = xib_create_xrc_srq(pd, &xrcd, cq, 16, 1, 0, 11, &s1);
	ok(!ret && s1->srqn && s1->srq_type == XIB_SRQT_XRC,
	   "XRC SRQ created: %s, srqn %u", err_name(ret), ret ? 0 : s1->srqn);
	ret = xib_create_xrc_srq(pd, &xrcd, cq, 16, 1, 0, 12, &s2);
	ok(!ret && s1 && s2->srqn != s1->srqn && s2->srqn <= 0xffffff,
	   "a second XRC SRQ has another 24-bit number (%u)", ret ? 0 : s2->srqn);
	if (ret)
		s2 = NULL;

	ret = close_xrcd(ctx, xh);
	ok(ret == -EBUSY, "CLOSE_XRCD with XRC SRQs in it: %s", err_name(ret));
	memset(&de, 0, sizeof(de));
	de.handle = cq->handle;
	ret = ioctl(ctx->fd, XIB_UVERBS_DESTROY_CQ, &de) ? -errno : 0;
	ok(ret == -EBUSY, "DESTROY_CQ of an XRC SRQ's CQ: %s", err_name(ret));

	memset(&qi, 0, sizeof(qi));
	qi.send_cq = cq;
	qi.recv_cq = cq;
	qi.srq = s1;
	qi.qp_type = XIB_QPT_RC;
	qi.cap.max_send_wr = 4;
	qi.cap.max_send_sge = 1;
	ret = s1 ? xib_create_qp(pd, &qi, &qp) : -EINVAL;
	ok(ret == -EINVAL, "an RC QP on an XRC SRQ: %s", err_name(ret));
	if (!ret)
		xib_destroy_qp(qp);

	memset(&x, 0, sizeof(x));
	x.srq_type = 2;		/* tag matching */
	x.pd_handle = pd->handle;
	x.xrcd_handle = xh;
	x.cq_handle = cq->handle;
	x.max_wr = 4;
	x.max_sge = 1;
	ret = ioctl(ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x) ? -errno : 0;
	ok(ret == -EOPNOTSUPP, "CREATE_XSRQ of type TM: %s", err_name(ret));
	x.srq_type = XIB_SRQT_XRC;
	x.reserved = 1;
	ret = ioctl(ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x) ? -errno : 0;
	ok(ret == -EINVAL, "CREATE_XSRQ with reserved set: %s", err_name(ret));
	x.reserved = 0;
	x.xrcd_handle = pd->handle;	/* a handle, but not of a domain */
	ret = ioctl(ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x) ? -errno : 0;
	ok(ret == -ENOENT, "CREATE_XSRQ with a PD as the domain: %s", err_name(ret));
	x.xrcd_handle = xh;
	x.cq_handle = XIB_UVERBS_NO_HANDLE;
	ret = ioctl(ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x) ? -errno : 0;
	ok(ret == -ENOENT, "CREATE_XSRQ of XRC without a CQ: %s", err_name(ret));
	x.srq_type = XIB_SRQT_BASIC;
	x.cq_handle = cq->handle;
	ret = ioctl(ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x) ? -errno : 0;
	ok(ret == -EINVAL, "CREATE_XSRQ BASIC with a domain and CQ: %s", err_name(ret));

	ret = xib_create_srq(pd, 8, 1, 0, 13, &sb);
	ok(!ret && sb->srq_type == XIB_SRQT_BASIC, "a basic SRQ beside them: %s",
	   err_name(ret));
	if (!ret) {
		memset(&qi, 0, sizeof(qi));
		qi.send_cq = cq;
		qi.recv_cq = cq;
		qi.srq = sb;
		qi.qp_type = XIB_QPT_RC;
		qi.cap.max_send_wr = 4;
		qi.cap.max_send_sge = 1;
		ret = xib_create_qp(pd, &qi, &qp);
		ok(!ret, "an RC QP on the basic SRQ: %s", err_name(ret));
		if (!ret)
			xt_check(xib_destroy_qp(qp), "destroy_qp");
		xt_check(xib_destroy_srq(sb), "destroy basic srq");
	}

	if (s1)
		xt_check(xib_destroy_srq(s1), "destroy_srq");
	ret = close_xrcd(ctx, xh);
	ok(ret == -EBUSY, "CLOSE_XRCD with one XRC SRQ left: %s", err_name(ret));
	if (s2)
		xt_check(xib_destroy_srq(s2), "destroy_srq");
	xt_check(xib_destroy_cq(cq), "destroy_cq after its XRC SRQs");
	xt_check(xib_dealloc_pd(pd), "dealloc_pd");
}

/* The child: its own context; @rd/@wr: commands from / answers to the parent. */
static int child(int rd, int wr)
{
	struct xib_context *ctx;
	struct xib_pd *pd;
	struct xib_cq *cq;
	struct xib_srq *srq;
	struct xib_xrcd xrcd;
	uint32_t h1, h2, h3, n[3] = { 0, 0, 0 };
	char c;

	if (xib_open(dev_path, &ctx))
		return 2;
	if (open_file_xrcd(ctx, file_a, 0, &h1, &n[0]) ||
	    open_file_xrcd(ctx, link_a, XIB_XRCD_O_CREAT, &h2, &n[1]) ||
	    open_file_xrcd(ctx, file_b, XIB_XRCD_O_CREAT, &h3, &n[2]))
		return 3;
	/* An XRC SRQ in the shared domain, left for the exit to clean up. */
	xrcd.ctx = ctx;
	xrcd.handle = h1;
	if (xib_alloc_pd(ctx, &pd) || xib_create_cq(ctx, 8, 1, NULL, 0, &cq) ||
	    xib_create_xrc_srq(pd, &xrcd, cq, 8, 1, 0, 1, &srq))
		return 4;
	if (write(wr, n, sizeof(n)) != sizeof(n))
		return 5;
	/* Hold everything until the parent says go, then exit holding it. */
	if (read(rd, &c, 1) != 1)
		return 6;
	(void)h2;
	(void)h3;
	return 0;
}

static void check_two_processes(struct xib_context *ctx)
{
	uint32_t ha, hb, na = 0, nb = 0, n[3] = { 0, 0, 0 };
	int to_child[2], from_child[2], status, ret;
	pid_t pid;

	ret = open_file_xrcd(ctx, file_a, XIB_XRCD_O_CREAT, &ha, &na);
	ok(!ret && na, "O_CREAT creates the file's domain: %s, xrcdn %u", err_name(ret), na);
	if (ret)
		return;
	ret = open_file_xrcd(ctx, file_a, XIB_XRCD_O_CREAT | XIB_XRCD_O_EXCL, NULL, NULL);
	ok(ret == -EEXIST, "O_CREAT | O_EXCL of an existing domain: %s", err_name(ret));
	ret = open_file_xrcd(ctx, file_a, 0, &hb, &nb);
	ok(!ret && nb == na && hb != ha,
	   "oflags 0 opens the same domain, another handle (xrcdn %u)", nb);
	if (!ret)
		close_xrcd(ctx, hb);

	if (pipe(to_child) || pipe(from_child))
		xt_fail("pipe");
	pid = fork();
	if (pid < 0)
		xt_fail("fork");
	if (pid == 0) {
		close(to_child[1]);
		close(from_child[0]);
		_exit(child(to_child[0], from_child[1]));
	}
	close(to_child[0]);
	close(from_child[1]);
	ret = read(from_child[0], n, sizeof(n)) == sizeof(n) ? 0 : -EIO;
	ok(!ret && n[0] == na,
	   "another process opens the domain of the file (xrcdn %u, want %u)", n[0], na);
	ok(!ret && n[1] == na, "... and of a hard link to it (xrcdn %u)", n[1]);
	ok(!ret && n[2] && n[2] != na, "another file names another domain (xrcdn %u)", n[2]);

	ret = close_xrcd(ctx, ha);
	ok(ret == 0, "the creator closes its handle while the other process holds the "
	   "domain: %s", err_name(ret));
	ret = open_file_xrcd(ctx, file_a, 0, &ha, &nb);
	ok(!ret && nb == na, "the domain outlives its creator's handle (xrcdn %u)", nb);
	if (!ret)
		close_xrcd(ctx, ha);

	/* The child exits holding handles and an XRC SRQ in the domain. */
	if (write(to_child[1], "x", 1) != 1)
		xt_fail("write to child");
	if (waitpid(pid, &status, 0) != pid)
		xt_fail("waitpid");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other process exits (status %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ret = open_file_xrcd(ctx, file_a, 0, NULL, NULL);
	ok(ret == -ENOENT, "once no one holds it, the domain is gone: %s", err_name(ret));
	ret = open_file_xrcd(ctx, file_b, 0, NULL, NULL);
	ok(ret == -ENOENT, "... and so is the other process's own: %s", err_name(ret));
	close(to_child[1]);
	close(from_child[0]);
}

static void check_umount(struct xib_context *ctx)
{
	char dir[] = "/tmp/xib_xrc_mnt.XXXXXX", path[64];
	uint32_t h;
	int fd, ret;

	if (!mkdtemp(dir))
		xt_fail("mkdtemp: %s", strerror(errno));
	ret = mount("tmpfs", dir, "tmpfs", 0, "size=64k") ? -errno : 0;
	ok(ret == 0, "mount a tmpfs for the domain's file: %s", ret ? strerror(-ret) : "0");
	if (ret) {
		rmdir(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_RDWR, 0600);
	if (fd < 0)
		xt_fail("open %s: %s", path, strerror(errno));
	ret = open_xrcd(ctx, fd, XIB_XRCD_O_CREAT, 0, &h, NULL);
	close(fd);
	ok(ret == 0, "a domain named by a file on it: %s", err_name(ret));
	if (!ret) {
		ret = umount(dir) ? -errno : 0;
		ok(ret == -EBUSY, "umount while the domain lives: %s", err_name(ret));
		ok(close_xrcd(ctx, h) == 0, "close the domain");
	}
	ret = umount(dir) ? -errno : 0;
	ok(ret == 0, "umount once the domain is gone: %s", err_name(ret));
	rmdir(dir);
}

static void check_limit(struct xib_context *ctx)
{
	unsigned int max = 64, i, opened = 0;
	uint32_t *h;
	FILE *f;
	int ret = 0;

	f = fopen("/sys/module/xib_core/parameters/max_xrcd_per_context", "r");
	if (f) {
		if (fscanf(f, "%u", &max) != 1)
			max = 64;
		fclose(f);
	}
	if (max > 4096)
		return;
	h = calloc(max + 1, sizeof(*h));
	if (!h)
		xt_fail("calloc");
	for (i = 0; i <= max; i++) {
		ret = open_file_xrcd(ctx, file_a, XIB_XRCD_O_CREAT, &h[i], NULL);
		if (ret)
			break;
		opened++;
	}
	ok(opened == max && ret == -ENOMEM,
	   "max_xrcd_per_context %u: %u handles, then %s", max, opened, err_name(ret));
	for (i = 0; i < opened; i++)
		close_xrcd(ctx, h[i]);
	free(h);
	ret = open_file_xrcd(ctx, file_a, 0, NULL, NULL);
	ok(ret == -ENOENT, "all closed: the domain is gone: %s", err_name(ret));
}

/* --- the data path: XRC_SEND and XRC_RECV QPs ----------------------------- */

/* What the owner of the target tells the sender, and the sender's answer. */
struct xrc_plan {
	uint32_t tgt_qpn;
	uint32_t srqn[3];	/* two of the shared domain, one of another */
	uint8_t gid[16];
	uint32_t sgid_index;
	uint32_t mtu_enum;
	uint64_t addr[2];	/* RDMA memory in the PDs of SRQ 0 and SRQ 1 */
	uint32_t rkey[2];
};

/* The RDMA operations, in the order the sender posts them. */
enum xrc_op {
	XRC_WRITE,		/* XRC_WLEN bytes at A + 0, naming SRQ 0 */
	XRC_WRITE_IMM,		/* XRC_ILEN bytes at B + 0, naming SRQ 1 */
	XRC_READ,		/* XRC_RLEN bytes at A + XRC_ROFF, naming SRQ 0 */
	XRC_CMP_SWAP,		/* the word at A + XRC_AOFF, naming SRQ 0 */
	XRC_FETCH_ADD,		/* the word at B + XRC_BOFF, naming SRQ 1 */
	XRC_BAD_PD,		/* B's rkey, naming SRQ 0: refused */
	XRC_NOPS
};

#define XRC_WLEN	3000	/* more than one packet at any MTU but 4096 */
#define XRC_ILEN	500
#define XRC_RLEN	2500
#define XRC_ROFF	4096
#define XRC_AOFF	8000
#define XRC_BOFF	800
#define XRC_XOFF	1024	/* where the refused WRITE aims, in B */
#define XRC_XLEN	64
#define XRC_IMM		0x5a17c0deu
#define XRC_CMP		0x1111222233334444ull
#define XRC_SWAP	0x5555666677778888ull
#define XRC_ADD0	40
#define XRC_ADD		2

struct xrc_report {
	int open_ret;		/* xib_open_qp() of the target */
	int open_other_ret;	/* ... through a handle of another domain */
	int modify_ret;		/* the target to RTR through the opened handle */
	int ini_ret;		/* XRC_SEND QP created and at RTS */
	int bad_ini;		/* XRC_SEND with a receive CQ: refused */
	uint32_t status[3];	/* the three sends' completions */
	int ncqe;
	uint32_t op_status[XRC_NOPS];	/* the RDMA operations' (~0u: none) */
	int read_exact;		/* the READ brought back what A holds */
	uint64_t orig[2];	/* CMP_SWAP's and FETCH_ADD's original data */
	int ini2_ret;		/* the second initiator, connected */
};

/* The sender's local memory, one MR. */
struct xrc_local {
	char msg[3][200];
	char wsrc[XRC_WLEN];
	char isrc[XRC_ILEN];
	char rdst[XRC_RLEN];
	char xsrc[XRC_XLEN];
	uint64_t atom[2];
};

#define XRC_MSG_LEN	200

static void xrc_msg(char *buf, int i)
{
	memset(buf, 0, XRC_MSG_LEN);
	snprintf(buf, XRC_MSG_LEN, "message %d for XRC SRQ %d", i, i);
	xt_pattern(buf + 64, XRC_MSG_LEN - 64, (uint64_t)i + 1);
}

/* QP @qp (an opened target or an initiator) through INIT and RTR to @rqpn. */
static int xrc_to_rtr(struct xib_qp *qp, const struct xrc_plan *p, uint32_t rqpn, int tgt)
{
	struct xib_uverbs_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_INIT;
	a.port_num = 1;
	if (tgt)
		a.qp_access_flags = XIB_ACCESS_REMOTE_WRITE | XIB_ACCESS_REMOTE_READ |
				    XIB_ACCESS_REMOTE_ATOMIC;
	ret = xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
			    XIB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTR;
	a.path_mtu = p->mtu_enum;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0x321;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.dgid, p->gid, 16);
	a.ah_attr.sgid_index = p->sgid_index;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	/* a target takes RC's responder attributes, an initiator none */
	return xib_modify_qp(qp, &a, XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
			     XIB_QP_DEST_QPN | XIB_QP_RQ_PSN |
			     (tgt ? XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER : 0));
}

/* An initiator to RTS, connected to the target; 0 or -errno. */
static int xrc_ini_rts(struct xib_qp *ini, const struct xrc_plan *p)
{
	struct xib_uverbs_qp_attr a;
	int ret = xrc_to_rtr(ini, p, p->tgt_qpn, 0);

	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RTS;
	a.sq_psn = 0x321;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return xib_modify_qp(ini, &a, XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT |
			     XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC);
}

/* The target (through @tgt) back to RESET and to RTR, connected to @ini. */
static int xrc_tgt_connect(struct xib_qp *tgt, const struct xrc_plan *p, struct xib_qp *ini)
{
	struct xib_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = XIB_QPS_RESET;
	return xib_modify_qp(tgt, &a, XIB_QP_STATE) ?: xrc_to_rtr(tgt, p, ini->qpn, 1);
}

/* Post one signaled WR on @qp and wait for its completion: its status, ~0u: none. */
static uint32_t xrc_do(struct xib_qp *qp, struct xib_cq *cq, struct xib_send_wr *sw)
{
	struct xib_send_wr *bad;
	xib_wc wc;

	sw->send_flags = XIB_HCA_SEND_SIGNALED;
	if (xib_post_send(qp, sw, &bad))
		return ~0u;
	if (xt_poll(cq, &wc, 1, 20000) != 1)
		return ~0u;
	return wc.status;
}

/* The RDMA operations on @ini, one at a time; the last one fails the QP. */
static void xrc_rdma(struct xib_qp *ini, struct xib_cq *cq, struct xib_mr *mr,
		     struct xrc_local *l, const struct xrc_plan *p, struct xrc_report *rep)
{
	static const struct {
		uint32_t opcode, len, srq, mem;
		uint64_t off;
		size_t local;
	} ops[XRC_NOPS] = {
		[XRC_WRITE] = { XIB_HCA_WR_RDMA_WRITE, XRC_WLEN, 0, 0, 0,
				offsetof(struct xrc_local, wsrc) },
		[XRC_WRITE_IMM] = { XIB_HCA_WR_RDMA_WRITE_WITH_IMM, XRC_ILEN, 1, 1, 0,
				    offsetof(struct xrc_local, isrc) },
		[XRC_READ] = { XIB_HCA_WR_RDMA_READ, XRC_RLEN, 0, 0, XRC_ROFF,
			       offsetof(struct xrc_local, rdst) },
		[XRC_CMP_SWAP] = { XIB_HCA_WR_ATOMIC_CMP_AND_SWP, 8, 0, 0, XRC_AOFF,
				   offsetof(struct xrc_local, atom[0]) },
		[XRC_FETCH_ADD] = { XIB_HCA_WR_ATOMIC_FETCH_AND_ADD, 8, 1, 1, XRC_BOFF,
				    offsetof(struct xrc_local, atom[1]) },
		[XRC_BAD_PD] = { XIB_HCA_WR_RDMA_WRITE, XRC_XLEN, 0, 1, XRC_XOFF,
				 offsetof(struct xrc_local, xsrc) },
	};
	struct xib_send_wr sw;
	struct xib_sge sge;
	char want[XRC_RLEN];
	int i;

	xt_pattern(l->wsrc, XRC_WLEN, 55);
	xt_pattern(l->isrc, XRC_ILEN, 66);
	xt_pattern(l->xsrc, XRC_XLEN, 88);
	memset(l->rdst, 0, XRC_RLEN);
	l->atom[0] = l->atom[1] = 0;
	for (i = 0; i < XRC_NOPS; i++) {
		sge.addr = (uintptr_t)l + ops[i].local;
		sge.length = ops[i].len;
		sge.lkey = mr->lkey;
		memset(&sw, 0, sizeof(sw));
		sw.wr_id = 300 + i;
		sw.sg_list = &sge;
		sw.num_sge = 1;
		sw.opcode = ops[i].opcode;
		sw.xrc_remote_srqn = p->srqn[ops[i].srq];
		if (i == XRC_CMP_SWAP || i == XRC_FETCH_ADD) {
			sw.wr.atomic.remote_addr = p->addr[ops[i].mem] + ops[i].off;
			sw.wr.atomic.rkey = p->rkey[ops[i].mem];
			sw.wr.atomic.compare_add = i == XRC_CMP_SWAP ? XRC_CMP : XRC_ADD;
			sw.wr.atomic.swap = XRC_SWAP;
		} else {
			sw.wr.rdma.remote_addr = p->addr[ops[i].mem] + ops[i].off;
			sw.wr.rdma.rkey = p->rkey[ops[i].mem];
			sw.imm_data = htonl(XRC_IMM);
		}
		rep->op_status[i] = xrc_do(ini, cq, &sw);
	}
	xt_pattern(want, XRC_RLEN, 77);
	rep->read_exact = !memcmp(l->rdst, want, XRC_RLEN);
	rep->orig[0] = l->atom[0];
	rep->orig[1] = l->atom[1];
}

/*
 * The sender: its own context, the shared domain opened through the file,
 * a handle to the target (which it connects), an XRC_SEND QP that sends to
 * SRQs 0 and 1 and does RDMA through the target, then a second one that
 * sends to SRQ 2, of another domain.
 */
static int xrc_sender(int rd, int wr)
{
	struct xrc_report rep;
	struct xrc_plan p;
	struct xib_context *ctx;
	struct xib_xrcd *xd, *xo;
	struct xib_qp *tgt = NULL, *ini = NULL, *ini2 = NULL, *other = NULL;
	struct xib_qp_init_attr qi;
	struct xib_send_wr sw;
	struct xib_sge sge;
	struct xib_pd *pd;
	struct xib_cq *cq;
	struct xib_mr *mr;
	static struct xrc_local l;
	int fd, i;

	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < XRC_NOPS; i++)
		rep.op_status[i] = ~0u;
	rep.status[2] = ~0u;
	if (read(rd, &p, sizeof(p)) != sizeof(p))
		return 2;
	if (xib_open(dev_path, &ctx))
		return 3;
	fd = open(file_a, O_RDONLY);
	if (fd < 0 || xib_open_xrcd(ctx, fd, 0, &xd))
		return 4;
	close(fd);
	if (xib_open_xrcd(ctx, -1, XIB_XRCD_O_CREAT, &xo))
		return 4;
	rep.open_ret = xib_open_qp(xd, p.tgt_qpn, 7, &tgt);
	rep.open_other_ret = xib_open_qp(xo, p.tgt_qpn, 8, &other);
	if (!rep.open_ret)
		rep.modify_ret = xrc_to_rtr(tgt, &p, 0, 1);	/* dest set below */
	if (xib_alloc_pd(ctx, &pd) || xib_create_cq(ctx, 8, 1, NULL, 0, &cq))
		return 5;
	memset(&qi, 0, sizeof(qi));
	qi.send_cq = cq;
	qi.recv_cq = cq;
	qi.qp_type = XIB_QPT_XRC_SEND;
	qi.cap.max_send_wr = 4;
	qi.cap.max_send_sge = 1;
	rep.bad_ini = xib_create_qp(pd, &qi, &ini);
	if (!rep.bad_ini)
		xib_destroy_qp(ini);
	qi.recv_cq = NULL;
	rep.ini_ret = xib_create_qp(pd, &qi, &ini);
	rep.ini2_ret = xib_create_qp(pd, &qi, &ini2);
	if (rep.ini_ret || rep.ini2_ret || rep.open_ret || rep.modify_ret)
		goto out;
	/* the target's RTR was given dest 0: move it again, now to the initiator */
	rep.modify_ret = xrc_tgt_connect(tgt, &p, ini);
	rep.ini_ret = xrc_ini_rts(ini, &p);
	if (rep.ini_ret || rep.modify_ret ||
	    xib_reg_mr(pd, &l, sizeof(l), XIB_ACCESS_LOCAL_WRITE, &mr))
		goto out;
	for (i = 0; i < 3; i++) {
		xrc_msg(l.msg[i], i);
		sge.addr = (uintptr_t)l.msg[i];
		sge.length = XRC_MSG_LEN;
		sge.lkey = mr->lkey;
		memset(&sw, 0, sizeof(sw));
		sw.wr_id = 100 + i;
		sw.sg_list = &sge;
		sw.num_sge = 1;
		sw.opcode = XIB_HCA_WR_SEND;
		sw.xrc_remote_srqn = p.srqn[i];
		if (i == 2) {
			/* the RDMA one fails the first initiator and the target */
			xrc_rdma(ini, cq, mr, &l, &p, &rep);
			rep.ini2_ret = xrc_tgt_connect(tgt, &p, ini2) ?: xrc_ini_rts(ini2, &p);
			if (rep.ini2_ret)
				break;
		}
		rep.status[i] = xrc_do(i == 2 ? ini2 : ini, cq, &sw);
		if (rep.status[i] == ~0u)
			break;
		rep.ncqe++;
	}
	xib_dereg_mr(mr);
out:
	if (write(wr, &rep, sizeof(rep)) != sizeof(rep))
		return 6;
	/* exit holding the handle: the target must outlive it */
	return 0;
}

static const char *op_status(const struct xrc_report *rep, int i)
{
	return rep->op_status[i] == ~0u ? "no completion" : xt_status_str(rep->op_status[i]);
}

static void check_data_path(struct xib_context *ctx)
{
	struct xib_xrcd *xa, *xb;
	struct xib_srq *srq[3];
	struct xib_cq *cq[3];
	struct xib_qp *tgt;
	struct xib_pd *pd, *pd2;
	struct xib_mr *mr, *mr2, *ma, *mb;
	struct xib_recv_wr rw, *bad;
	struct xib_sge sge;
	struct xib_uverbs_query_qp q;
	struct xrc_plan p;
	struct xrc_report rep;
	struct xt_side side;
	static char rbuf[3][XRC_MSG_LEN];
	/* the RDMA memory: A in SRQ 0's PD, B in SRQ 1's */
	static uint64_t mem_a[1024], mem_b[512];
	char want[XRC_MSG_LEN > XRC_WLEN ? XRC_MSG_LEN : XRC_WLEN], xsave[XRC_XLEN];
	const uint32_t remote = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE |
				XIB_ACCESS_REMOTE_READ | XIB_ACCESS_REMOTE_ATOMIC;
	int to[2], from[2], fd, i, ret, status, n;
	xib_wc wc;
	pid_t pid;

	xt_side_open(&side, ctx, -1, 16);
	fd = open(file_a, O_RDONLY);
	if (fd < 0)
		xt_fail("open %s", file_a);
	xt_check(xib_open_xrcd(ctx, fd, XIB_XRCD_O_CREAT, &xa), "open the shared domain");
	close(fd);
	xt_check(xib_open_xrcd(ctx, -1, XIB_XRCD_O_CREAT, &xb), "open another domain");
	pd = side.pd;
	xt_check(xib_alloc_pd(ctx, &pd2), "alloc_pd");
	xt_check(xib_reg_mr(pd, rbuf, sizeof(rbuf), XIB_ACCESS_LOCAL_WRITE, &mr), "reg_mr");
	xt_check(xib_reg_mr(pd2, rbuf, sizeof(rbuf), XIB_ACCESS_LOCAL_WRITE, &mr2), "reg_mr");
	memset(mem_a, 0, sizeof(mem_a));
	xt_pattern((char *)mem_a + XRC_ROFF, XRC_RLEN, 77);
	mem_a[XRC_AOFF / 8] = XRC_CMP;
	memset(mem_b, 0xee, sizeof(mem_b));
	mem_b[XRC_BOFF / 8] = XRC_ADD0;
	memcpy(xsave, (char *)mem_b + XRC_XOFF, XRC_XLEN);
	xt_check(xib_reg_mr(pd, mem_a, sizeof(mem_a), remote, &ma), "reg_mr A");
	xt_check(xib_reg_mr(pd2, mem_b, sizeof(mem_b), remote, &mb), "reg_mr B");
	for (i = 0; i < 3; i++) {
		xt_check(xib_create_cq(ctx, 8, 1, NULL, 0, &cq[i]), "create_cq");
		/* SRQ 1 is of another PD than SRQ 0 */
		xt_check(xib_create_xrc_srq(i == 1 ? pd2 : pd, i < 2 ? xa : xb, cq[i], 4, 1, 0,
					    20 + i, &srq[i]), "create_xrc_srq");
		sge.addr = (uintptr_t)rbuf[i];
		sge.length = XRC_MSG_LEN;
		sge.lkey = i == 1 ? mr2->lkey : mr->lkey;
		memset(&rw, 0, sizeof(rw));
		rw.wr_id = 200 + i;
		rw.sg_list = &sge;
		rw.num_sge = 1;
		xt_check(xib_post_srq_recv(srq[i], &rw, &bad), "post_srq_recv");
	}
	/* for the WRITE with immediate, which names SRQ 1 */
	rw.wr_id = 211;
	rw.num_sge = 0;
	xt_check(xib_post_srq_recv(srq[1], &rw, &bad), "post_srq_recv");
	ret = xib_create_xrc_tgt_qp(xa, 9, &tgt);
	ok(!ret, "an XRC target QP in the domain: %s, qpn %u", err_name(ret), ret ? 0 : tgt->qpn);
	if (ret)
		return;

	memset(&p, 0, sizeof(p));
	p.tgt_qpn = tgt->qpn;
	for (i = 0; i < 3; i++)
		p.srqn[i] = srq[i]->srqn;
	memcpy(p.gid, side.gid, 16);
	p.sgid_index = side.sgid_index;
	p.mtu_enum = side.mtu_enum;
	p.addr[0] = (uintptr_t)mem_a;
	p.addr[1] = (uintptr_t)mem_b;
	p.rkey[0] = ma->rkey;
	p.rkey[1] = mb->rkey;
	if (pipe(to) || pipe(from))
		xt_fail("pipe");
	pid = fork();
	if (pid < 0)
		xt_fail("fork");
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		_exit(xrc_sender(to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	if (write(to[1], &p, sizeof(p)) != sizeof(p))
		xt_fail("write");
	memset(&rep, 0, sizeof(rep));
	n = read(from[0], &rep, sizeof(rep));
	waitpid(pid, &status, 0);
	close(to[1]);
	close(from[0]);
	ok(n == sizeof(rep) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the sending process runs (status %d)", status);
	ok(rep.open_ret == 0, "the other process opens the target (ibv_open_qp): %s",
	   err_name(rep.open_ret));
	ok(rep.open_other_ret == -ENOENT, "... not through another domain: %s",
	   err_name(rep.open_other_ret));
	ok(rep.modify_ret == 0, "... and moves it to RTR through its handle: %s",
	   err_name(rep.modify_ret));
	ok(rep.bad_ini == -EINVAL, "an XRC_SEND QP with a receive CQ: %s",
	   err_name(rep.bad_ini));
	ok(rep.ini_ret == 0, "an XRC_SEND QP, connected to the target: %s",
	   err_name(rep.ini_ret));
	ok(rep.ncqe == 3 && rep.status[0] == XIB_HCA_WC_SUCCESS &&
	   rep.status[1] == XIB_HCA_WC_SUCCESS,
	   "SENDs to two XRC SRQs of the domain complete (%d: %s, %s)", rep.ncqe,
	   xt_status_str(rep.status[0]), xt_status_str(rep.status[1]));
	ok(rep.ini2_ret == 0, "a second XRC_SEND QP, the target reconnected to it: %s",
	   err_name(rep.ini2_ret));
	ok(rep.ncqe == 3 && rep.status[2] == XIB_HCA_WC_REM_INV_REQ_ERR,
	   "a SEND to an XRC SRQ of another domain: %s",
	   rep.ncqe == 3 ? xt_status_str(rep.status[2]) : "no completion");
	for (i = 0; i < 2; i++) {
		ret = xt_poll(cq[i], &wc, 1, 2000);
		xrc_msg(want, i);
		ok(ret == 1 && wc.status == XIB_HCA_WC_SUCCESS && wc.wr_id == 200u + i &&
		   wc.opcode == XIB_HCA_WC_RECV && wc.byte_len == XRC_MSG_LEN &&
		   wc.qp_num == tgt->qpn && !memcmp(rbuf[i], want, XRC_MSG_LEN),
		   "message %d lands on XRC SRQ %d's CQ, exact (%d, %s, %u bytes)", i, i, ret,
		   ret == 1 ? xt_status_str(wc.status) : "-", ret == 1 ? wc.byte_len : 0);
	}
	ret = xt_poll(cq[2], &wc, 1, 200);
	ok(ret == 0, "nothing on the other domain's XRC SRQ (%d)", ret);

	/* RDMA through the target, in the PD of the SRQ each XRCETH names */
	xt_pattern(want, XRC_WLEN, 55);
	ok(rep.op_status[XRC_WRITE] == XIB_HCA_WC_SUCCESS && !memcmp(mem_a, want, XRC_WLEN),
	   "an RDMA WRITE of %d bytes through the target, in SRQ 0's PD: %s, exact",
	   XRC_WLEN, op_status(&rep, XRC_WRITE));
	ret = xt_poll(cq[1], &wc, 1, 2000);
	xt_pattern(want, XRC_ILEN, 66);
	ok(rep.op_status[XRC_WRITE_IMM] == XIB_HCA_WC_SUCCESS &&
	   !memcmp(mem_b, want, XRC_ILEN) && ret == 1 && wc.status == XIB_HCA_WC_SUCCESS &&
	   wc.wr_id == 211 && wc.opcode == XIB_HCA_WC_RECV_RDMA_WITH_IMM &&
	   wc.byte_len == XRC_ILEN && ntohl(wc.imm_data) == XRC_IMM &&
	   (wc.wc_flags & XIB_HCA_WC_WITH_IMM) && wc.qp_num == tgt->qpn,
	   "a WRITE with immediate in SRQ 1's PD: %s, exact, completes on SRQ 1's CQ (%d, %s)",
	   op_status(&rep, XRC_WRITE_IMM), ret, ret == 1 ? xt_status_str(wc.status) : "-");
	ok(rep.op_status[XRC_READ] == XIB_HCA_WC_SUCCESS && rep.read_exact,
	   "an RDMA READ of %d bytes through the target: %s, %s", XRC_RLEN,
	   op_status(&rep, XRC_READ), rep.read_exact ? "exact" : "wrong data");
	ok(rep.op_status[XRC_CMP_SWAP] == XIB_HCA_WC_SUCCESS && rep.orig[0] == XRC_CMP &&
	   mem_a[XRC_AOFF / 8] == XRC_SWAP,
	   "CMP_SWAP through the target: %s, original %#llx, now %#llx",
	   op_status(&rep, XRC_CMP_SWAP), (unsigned long long)rep.orig[0],
	   (unsigned long long)mem_a[XRC_AOFF / 8]);
	ok(rep.op_status[XRC_FETCH_ADD] == XIB_HCA_WC_SUCCESS && rep.orig[1] == XRC_ADD0 &&
	   mem_b[XRC_BOFF / 8] == XRC_ADD0 + XRC_ADD,
	   "FETCH_ADD through the target in SRQ 1's PD: %s, original %llu, now %llu",
	   op_status(&rep, XRC_FETCH_ADD), (unsigned long long)rep.orig[1],
	   (unsigned long long)mem_b[XRC_BOFF / 8]);
	ok(rep.op_status[XRC_BAD_PD] == XIB_HCA_WC_REM_ACCESS_ERR &&
	   !memcmp((char *)mem_b + XRC_XOFF, xsave, XRC_XLEN),
	   "a WRITE with an rkey of another PD than the named SRQ's: %s, nothing written",
	   op_status(&rep, XRC_BAD_PD));
	ret = xt_poll(cq[0], &wc, 1, 100);
	ok(ret == 0, "no completion on SRQ 0's CQ for the RDMA (%d)", ret);

	xib_query_qp(tgt, &q);
	ok(q.attr.qp_state == XIB_QPS_RTR && q.qp_type == XIB_QPT_XRC_RECV,
	   "the target outlives the other process's handle (state %u)", q.attr.qp_state);
	ok(xib_destroy_qp(tgt) == 0, "destroy the target");
	for (i = 0; i < 3; i++) {
		xt_check(xib_destroy_srq(srq[i]), "destroy_srq");
		xt_check(xib_destroy_cq(cq[i]), "destroy_cq");
	}
	xt_check(xib_dereg_mr(mr), "dereg_mr");
	xt_check(xib_dereg_mr(mr2), "dereg_mr");
	xt_check(xib_dereg_mr(ma), "dereg_mr");
	xt_check(xib_dereg_mr(mb), "dereg_mr");
	xt_check(xib_dealloc_pd(pd2), "dealloc_pd");
	xt_check(xib_close_xrcd(xa), "close_xrcd");
	xt_check(xib_close_xrcd(xb), "close_xrcd");
	xt_side_close(&side);
}

int main(int argc, char **argv)
{
	struct xib_context *ctx;
	uint32_t xh;
	int opt, fd, ret;

	xt_prog = "xib_xrc_test";
	while ((opt = getopt(argc, argv, "d:v")) != -1) {
		switch (opt) {
		case 'd':
			dev_path = optarg;
			break;
		case 'v':
			xt_verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: xib_xrc_test [-d DEV]\n");
			return 1;
		}
	}
	snprintf(file_a, sizeof(file_a), "/tmp/xib_xrc_a.XXXXXX");
	snprintf(file_b, sizeof(file_b), "/tmp/xib_xrc_b.XXXXXX");
	fd = mkstemp(file_a);
	if (fd < 0)
		xt_fail("mkstemp");
	close(fd);
	fd = mkstemp(file_b);
	if (fd < 0)
		xt_fail("mkstemp");
	close(fd);
	snprintf(link_a, sizeof(link_a), "%s.link", file_a);
	if (link(file_a, link_a))
		xt_fail("link: %s", strerror(errno));

	xt_check(xib_open(dev_path, &ctx), dev_path);
	check_fd_minus_one(ctx);
	check_bad_open(ctx);
	check_two_processes(ctx);

	ret = open_xrcd(ctx, -1, XIB_XRCD_O_CREAT, 0, &xh, NULL);
	xt_check(ret, "open a private domain");
	check_srqs(ctx, xh);
	ok(close_xrcd(ctx, xh) == 0, "CLOSE_XRCD once its SRQs are gone");
	ok(close_xrcd(ctx, xh) == -ENOENT, "CLOSE_XRCD of a closed handle: ENOENT");
	check_limit(ctx);
	check_umount(ctx);
	check_data_path(ctx);

	xt_check(xib_close(ctx), "close");
	unlink(link_a);
	unlink(file_a);
	unlink(file_b);
	printf("1..%d\n", checks);
	if (!failures)
		printf("PASS: xib_xrc_test\n");
	return failures;
}
