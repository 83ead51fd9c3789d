// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_qpmem_test: what a QP costs its creator's memory cgroup, and what
 * happens when the cgroup has no more.
 *
 *   xib_qpmem_test -d DEV [-w WRS] [-r RWRS] [-s SGES] [-i INLINE]
 *                  [-n QPS [-x CMD]]
 *
 * The program must run in a cgroup v2 memory controller of its own (the
 * bats case makes one); it reads that cgroup's memory.current.
 *
 * Without -n: after the PD and CQs exist, one RC QP with WRS send WQEs
 * (default 16384) of SGES SGEs (default 1) and INLINE inline bytes
 * (default 0), RWRS receive WQEs (default 1) of one SGE, is created and destroyed five times;
 * prints "qp_bytes N", the smallest growth of memory.current that one QP
 * caused (the smallest, because other allocations of the process and the
 * kernel land in the same counter now and then), and "left_bytes N",
 * the largest growth left after a destroy.
 *
 * With -n QPS: creates such QPs until QPS exist or a creation fails;
 * prints "created K errno E" (E 0 when all were created) and
 * "qp_bytes N", the growth of memory.current per created QP; with -x,
 * runs the shell command CMD while they exist (its failure is a test
 * failure); destroys them all and prints "destroyed".  A failure other
 * than ENOMEM is a test failure.  QPS is at most 1048576.
 *
 * Exit status 0 on success; 1 with a "FAIL: ..." line otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xib_test.h"

#define MAX_QPS		(1U << 20)

static char memfile[512];

/* Find this process's cgroup v2 memory.current. */
static void find_memfile(void)
{
	char line[400];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		xt_fail("/proc/self/cgroup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(memfile, sizeof(memfile), "/sys/fs/cgroup%s/memory.current",
			 line + 3);
	}
	fclose(f);
	if (!memfile[0] || access(memfile, R_OK))
		xt_fail("no cgroup v2 memory.current for this process (%s)",
			memfile[0] ? memfile : "no 0:: line");
}

static int64_t mem_now(void)
{
	long long v = -1;
	FILE *f = fopen(memfile, "r");

	if (!f || fscanf(f, "%lld", &v) != 1)
		xt_fail("%s: cannot read", memfile);
	fclose(f);
	return v;
}

static int create(struct xt_side *s, uint32_t wrs, uint32_t rwrs,
		  uint32_t sges, uint32_t inl, struct xib_qp **qp)
{
	struct xib_qp_init_attr init;

	memset(&init, 0, sizeof(init));
	init.user_handle = 1;
	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	init.qp_type = XIB_QPT_RC;
	init.cap.max_send_wr = wrs;
	init.cap.max_recv_wr = rwrs;
	init.cap.max_send_sge = sges;
	init.cap.max_recv_sge = 1;
	init.cap.max_inline_data = inl;
	return xib_create_qp(s->pd, &init, qp);
}

int main(int argc, char **argv)
{
	uint32_t wrs = 16384, rwrs = 1, sges = 1, inl = 0, nqps = 0;
	const char *dev = NULL, *cmd = NULL;
	struct xib_context *ctx;
	struct xt_side s;
	struct xib_qp **qps;
	int64_t best = -1, left = 0, base;
	uint32_t i, n;
	int c, ret;

	xt_prog = "xib_qpmem_test";
	while ((c = getopt(argc, argv, "d:w:r:s:i:n:x:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'w': wrs = strtoul(optarg, NULL, 0); break;
		case 'r': rwrs = strtoul(optarg, NULL, 0); break;
		case 's': sges = strtoul(optarg, NULL, 0); break;
		case 'i': inl = strtoul(optarg, NULL, 0); break;
		case 'n': nqps = strtoul(optarg, NULL, 0); break;
		case 'x': cmd = optarg; break;
		default:
			fprintf(stderr, "usage: xib_qpmem_test -d DEV [-w WRS] [-r RWRS] [-s SGES] [-i INLINE] [-n QPS [-x CMD]]\n");
			return 2;
		}
	}
	if (!dev || nqps > MAX_QPS)
		xt_fail("need -d DEV, and -n at most %u", MAX_QPS);
	find_memfile();
	xt_check(xib_open(dev, &ctx), "open");
	xt_side_open(&s, ctx, -1, 16);

	if (!nqps) {
		for (i = 0; i < 5; i++) {
			struct xib_qp *qp;
			int64_t base = mem_now(), grown;

			xt_check(create(&s, wrs, rwrs, sges, inl, &qp), "create_qp");
			grown = mem_now() - base;
			if (best < 0 || grown < best)
				best = grown;
			xt_check(xib_destroy_qp(qp), "destroy_qp");
			grown = mem_now() - base;
			if (grown > left)
				left = grown;
		}
		printf("qp_bytes %" PRId64 "\nleft_bytes %" PRId64 "\n", best, left);
		xt_side_close(&s);
		return 0;
	}

	qps = calloc(nqps, sizeof(*qps));
	if (!qps)
		xt_fail("calloc");
	ret = 0;
	base = mem_now();
	for (n = 0; n < nqps; n++) {
		ret = create(&s, wrs, rwrs, sges, inl, &qps[n]);
		if (ret)
			break;
	}
	printf("created %u errno %d\n", n, -ret);
	if (n)
		printf("qp_bytes %" PRId64 "\n", (mem_now() - base) / n);
	fflush(stdout);
	if (ret && ret != -ENOMEM)
		xt_fail("create_qp %u: %s, not ENOMEM", n, strerror(-ret));
	if (cmd && system(cmd))
		xt_fail("-x %s failed", cmd);
	for (i = 0; i < n; i++)
		xt_check(xib_destroy_qp(qps[i]), "destroy_qp");
	printf("destroyed\n");
	free(qps);
	xt_side_close(&s);
	return 0;
}
