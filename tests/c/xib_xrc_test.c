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
 *   - a context holds at most max_xrcd_per_context handles (ENOMEM).
 *
 * The data path (XRC_SEND/XRC_RECV QPs, the XRCETH) is not there yet.
 *
 * Exit status: the number of failed checks (0: all passed); a broken
 * setup prints "FAIL: ..." and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

	xt_check(xib_close(ctx), "close");
	unlink(link_a);
	unlink(file_a);
	unlink(file_b);
	printf("1..%d\n", checks);
	if (!failures)
		printf("PASS: xib_xrc_test\n");
	return failures;
}
