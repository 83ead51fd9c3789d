// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib_abi_fuzz: random, structurally valid command sequences on
 * /dev/xib/uverbsN and /dev/xib/rdma_cm (Documentation/security.rst,
 * "Fuzzers").  Raw ioctls, no library.
 *
 *   xib_abi_fuzz -d /dev/xib/uverbsN [-r /dev/xib/rdma_cm] [-s SEED]
 *                [-n OPS] [-t THREADS]
 *
 * THREADS threads (default 3) share one context (one open file) and run
 * OPS operations in all: every uverbs command with its structure filled
 * mostly right (handles of live objects, sometimes stale or random ones,
 * sizes near the device's limits, random flags, reserved fields and "out"
 * fields set now and then, garbage in the whole structure at times,
 * unknown command numbers), mmap of every offset a command returned and
 * of others (exact, partial, too long, shifted, twice, private), munmap;
 * a fork whose child runs commands on the parent's file; the file closed
 * while the other threads use it, then a new one opened; rdma_cm ids
 * created, bound, resolved, listened on, queried, connected, rejected
 * and destroyed with random arguments.  Beside them a scribbler thread
 * writes random producer, consumer and arm indices and random WQEs into
 * the mapped rings of a live loopback RC QP pair and its CQs and SRQ
 * (and of whatever else is mapped) while the QPs post to each other,
 * with KICKs.
 *
 * The random numbers come from SEED (default 1), one stream per thread:
 * the commands and their arguments repeat with the seed (the
 * interleaving of threads does not).  At the end the scribbled rings are
 * dropped, a fresh context moves 64 KiB by RDMA WRITE on a loopback RC
 * QP pair and checks it, and the program prints per command how many
 * calls succeeded and failed, and errors by errno.  An errno outside the
 * ABI's (uverbs.h, ucma.h) is a failure: "FAIL: unexpected errno".
 * Exit status 0 on success, 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xib/hca-abi.h>
#include <xib/ucma.h>
#include <xib/uverbs.h>

#define NPOOL	32	/* handles remembered per kind */
#define NMAP	48	/* mappings remembered */
#define NOFF	64	/* mmap offsets remembered */

/* The commands, in the order of their numbers; then the fuzzer's own operations. */
enum op {
	OP_GET_CONTEXT, OP_QUERY_DEVICE, OP_QUERY_PORT, OP_QUERY_GID, OP_QUERY_PKEY,
	OP_ALLOC_PD, OP_DEALLOC_PD, OP_REG_MR, OP_DEREG_MR, OP_CREATE_COMP_CHANNEL,
	OP_CREATE_CQ, OP_RESIZE_CQ, OP_DESTROY_CQ, OP_CREATE_QP, OP_MODIFY_QP,
	OP_QUERY_QP, OP_DESTROY_QP, OP_CREATE_SRQ, OP_MODIFY_SRQ, OP_QUERY_SRQ,
	OP_DESTROY_SRQ, OP_CREATE_AH, OP_DESTROY_AH, OP_KICK, OP_REREG_MR,
	OP_RESIZE_SRQ, OP_ATTACH_MCAST, OP_DETACH_MCAST, OP_ALLOC_MW, OP_DEALLOC_MW,
	OP_OPEN_XRCD, OP_CLOSE_XRCD, OP_CREATE_XSRQ, OP_OPEN_QP,
	OP_BAD_IOCTL, OP_MMAP, OP_MUNMAP, OP_FORK, OP_REOPEN, OP_DRIVE,
	OP_CM_CREATE_ID, OP_CM_DESTROY_ID, OP_CM_BIND, OP_CM_RESOLVE_ADDR,
	OP_CM_RESOLVE_ROUTE, OP_CM_QUERY, OP_CM_LISTEN, OP_CM_CONNECT,
	OP_CM_ESTABLISH, OP_CM_ACCEPT, OP_CM_REJECT, OP_CM_DISCONNECT,
	OP_CM_INIT_QP_ATTR, OP_CM_NOTIFY, OP_CM_SET_OPTION, OP_CM_JOIN_MCAST,
	OP_CM_LEAVE_MCAST, OP_CM_MIGRATE_ID, OP_CM_GET_EVENT, OP_CM_BAD_IOCTL,
	OP_NR
};
#define OP_CM_FIRST OP_CM_CREATE_ID
#define OP_UVERBS_NR (OP_OPEN_QP + 1)	/* the uverbs commands */

static const char *const op_name[OP_NR] = {
	"GET_CONTEXT", "QUERY_DEVICE", "QUERY_PORT", "QUERY_GID", "QUERY_PKEY",
	"ALLOC_PD", "DEALLOC_PD", "REG_MR", "DEREG_MR", "CREATE_COMP_CHANNEL",
	"CREATE_CQ", "RESIZE_CQ", "DESTROY_CQ", "CREATE_QP", "MODIFY_QP",
	"QUERY_QP", "DESTROY_QP", "CREATE_SRQ", "MODIFY_SRQ", "QUERY_SRQ",
	"DESTROY_SRQ", "CREATE_AH", "DESTROY_AH", "KICK", "REREG_MR",
	"RESIZE_SRQ", "ATTACH_MCAST", "DETACH_MCAST", "ALLOC_MW", "DEALLOC_MW",
	"OPEN_XRCD", "CLOSE_XRCD", "CREATE_XSRQ", "OPEN_QP",
	"bad ioctl", "mmap", "munmap", "fork", "close+reopen", "drive QP",
	"CM CREATE_ID", "CM DESTROY_ID", "CM BIND", "CM RESOLVE_ADDR",
	"CM RESOLVE_ROUTE", "CM QUERY", "CM LISTEN", "CM CONNECT",
	"CM ESTABLISH", "CM ACCEPT", "CM REJECT", "CM DISCONNECT",
	"CM INIT_QP_ATTR", "CM NOTIFY", "CM SET_OPTION", "CM JOIN_MCAST",
	"CM LEAVE_MCAST", "CM MIGRATE_ID", "CM GET_EVENT", "CM bad ioctl",
};

static const unsigned long uverbs_cmd[] = {
	XIB_UVERBS_GET_CONTEXT, XIB_UVERBS_QUERY_DEVICE, XIB_UVERBS_QUERY_PORT,
	XIB_UVERBS_QUERY_GID, XIB_UVERBS_QUERY_PKEY, XIB_UVERBS_ALLOC_PD,
	XIB_UVERBS_DEALLOC_PD, XIB_UVERBS_REG_MR, XIB_UVERBS_DEREG_MR,
	XIB_UVERBS_CREATE_COMP_CHANNEL, XIB_UVERBS_CREATE_CQ, XIB_UVERBS_RESIZE_CQ,
	XIB_UVERBS_DESTROY_CQ, XIB_UVERBS_CREATE_QP, XIB_UVERBS_MODIFY_QP,
	XIB_UVERBS_QUERY_QP, XIB_UVERBS_DESTROY_QP, XIB_UVERBS_CREATE_SRQ,
	XIB_UVERBS_MODIFY_SRQ, XIB_UVERBS_QUERY_SRQ, XIB_UVERBS_DESTROY_SRQ,
	XIB_UVERBS_CREATE_AH, XIB_UVERBS_DESTROY_AH, XIB_UVERBS_KICK,
	XIB_UVERBS_REREG_MR, XIB_UVERBS_RESIZE_SRQ, XIB_UVERBS_ATTACH_MCAST,
	XIB_UVERBS_DETACH_MCAST, XIB_UVERBS_ALLOC_MW, XIB_UVERBS_DEALLOC_MW,
	XIB_UVERBS_OPEN_XRCD, XIB_UVERBS_CLOSE_XRCD, XIB_UVERBS_CREATE_XSRQ,
	XIB_UVERBS_OPEN_QP,
};

static const unsigned long ucma_cmd[] = {
	XIB_UCMA_CREATE_ID, XIB_UCMA_DESTROY_ID, XIB_UCMA_BIND, XIB_UCMA_RESOLVE_ADDR,
	XIB_UCMA_RESOLVE_ROUTE, XIB_UCMA_QUERY, XIB_UCMA_LISTEN, XIB_UCMA_CONNECT,
	XIB_UCMA_ESTABLISH, XIB_UCMA_ACCEPT, XIB_UCMA_REJECT, XIB_UCMA_DISCONNECT,
	XIB_UCMA_INIT_QP_ATTR, XIB_UCMA_NOTIFY, XIB_UCMA_SET_OPTION,
	XIB_UCMA_JOIN_MCAST, XIB_UCMA_LEAVE_MCAST, XIB_UCMA_MIGRATE_ID,
	XIB_UCMA_GET_EVENT,
};

/* errnos the ABIs name; anything else from a command is a finding */
static int errno_expected(int e)
{
	switch (e) {
	case EINVAL: case ENOENT: case EBUSY: case ENOMEM: case EOPNOTSUPP:
	case EIO: case EFAULT: case EEXIST: case EPERM: case EAGAIN: case ENOTTY:
	case EBADF: case ENODEV: case EADDRINUSE: case EADDRNOTAVAIL:
	case ENOPROTOOPT: case EAFNOSUPPORT: case ENOTCONN: case EISCONN: case ENETUNREACH:
	case EHOSTUNREACH: case EALREADY: case EACCES: case ENOSPC: case EMFILE:
		return 1;
	default:
		return 0;
	}
}

#define NERR 134
#define SKIP (-1)		/* an op not tried */
#define UNKNOWN_OK (-2)	/* an unknown command succeeded */
static atomic_ullong n_ok[OP_NR], n_err[OP_NR], n_errno[NERR], n_unexpected;
static atomic_ullong n_op_errno[OP_NR][NERR];
static atomic_ullong n_scribble, n_faults, n_kicks;
static atomic_int stop;

/* the shared context: one file, its handles and mmap offsets */
struct pool {
	uint32_t h[NPOOL];
	unsigned int n;
};

struct shared {
	pthread_mutex_t lock;
	int fd;
	int cm_fd;
	struct pool pd, mr, cq, qp, srq, ah, cm_id, mc, mw, xrcd;
	uint32_t tgt_qpn;	/* the last XRC target QP made */
	uint64_t off[NOFF];
	uint32_t off_len[NOFF];
	unsigned int noff;
	uint8_t gid[16];
	int gid_index;
	uint32_t lkey[NPOOL], rkey[NPOOL], ahn[NPOOL];	/* of MRs and AHs created */
	unsigned int nkey, nahn;
};

static struct shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .cm_fd = -1 };
static const char *dev_path, *cm_path;
static uint64_t seed = 1, n_ops = 20000;
static unsigned int n_threads = 3;
static atomic_ullong ops_done;
static void *mr_buf;
#define MR_BUF_SIZE (1u << 20)

/* mappings anyone may scribble on */
struct mapping {
	void *addr;
	size_t len;
};
static struct mapping maps[NMAP];
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((format(printf, 1, 2), noreturn)) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "FAIL: xib_abi_fuzz: ");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	fflush(stdout);
	exit(1);
}

/* xorshift64* */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(rnd(s) >> 32) % n : 0;
}

/* One chance in @n. */
static int one_in(uint64_t *s, uint32_t n)
{
	return !below(s, n);
}

/* A value near interesting limits: 0, 1, powers of two and their neighbours, all ones. */
static uint32_t size_val(uint64_t *s)
{
	switch (below(s, 6)) {
	case 0:
		return below(s, 4);
	case 1:
		return (1u << below(s, 32)) + below(s, 3) - 1;
	case 2:
		return ~0u - below(s, 2);
	case 3:
		return rnd(s);
	default:
		return 1 + below(s, 64);
	}
}

static void pool_add(struct pool *p, uint32_t h, uint64_t *s)
{
	pthread_mutex_lock(&sh.lock);
	if (p->n < NPOOL)
		p->h[p->n++] = h;
	else
		p->h[below(s, NPOOL)] = h;
	pthread_mutex_unlock(&sh.lock);
}

/* A handle: mostly a live one, else stale, random or none. */
static uint32_t pool_pick(struct pool *p, uint64_t *s)
{
	uint32_t h = XIB_UVERBS_NO_HANDLE;

	if (one_in(s, 16))
		return one_in(s, 2) ? rnd(s) : XIB_UVERBS_NO_HANDLE;
	pthread_mutex_lock(&sh.lock);
	if (p->n)
		h = p->h[below(s, p->n)];
	pthread_mutex_unlock(&sh.lock);
	return h;
}

/* Forget @h (after a successful destroy); stale copies may remain elsewhere. */
static void pool_del(struct pool *p, uint32_t h)
{
	unsigned int i;

	pthread_mutex_lock(&sh.lock);
	for (i = 0; i < p->n; i++)
		if (p->h[i] == h) {
			p->h[i] = p->h[--p->n];
			break;
		}
	pthread_mutex_unlock(&sh.lock);
}

static void off_add(uint64_t off, uint32_t len)
{
	pthread_mutex_lock(&sh.lock);
	sh.off[sh.noff % NOFF] = off;
	sh.off_len[sh.noff % NOFF] = len;
	sh.noff++;
	pthread_mutex_unlock(&sh.lock);
}

static void ring_add(const struct xib_uverbs_ring *r)
{
	if (r->mmap_size)
		off_add(r->mmap_offset, r->mmap_size);
}

static void count(enum op op, int ret)
{
	atomic_fetch_add(&ops_done, 1);
	if (!ret) {
		atomic_fetch_add(&n_ok[op], 1);
		return;
	}
	atomic_fetch_add(&n_err[op], 1);
	atomic_fetch_add(&n_errno[ret < NERR ? ret : 0], 1);
	atomic_fetch_add(&n_op_errno[op][ret < NERR ? ret : 0], 1);
	if (!errno_expected(ret) && atomic_fetch_add(&n_unexpected, 1) < 20) {
		fprintf(stderr, "xib_abi_fuzz: %s: unexpected errno %d (%s)\n", op_name[op],
			ret, strerror(ret));
	}
}

/* ioctl; 0 or the errno */
static int xio(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* Now and then: garbage in reserved and "out" fields, or in the whole structure. */
static void mangle(void *arg, size_t len, uint64_t *s)
{
	uint8_t *p = arg;
	unsigned int i, n;

	if (!one_in(s, 8))
		return;
	if (one_in(s, 4)) {
		for (i = 0; i < len; i++)
			p[i] = rnd(s);
		return;
	}
	n = 1 + below(s, 3);
	for (i = 0; i < n; i++)
		p[below(s, len)] ^= 1u << below(s, 8);
}

static void fill_av(struct xib_uverbs_ah_attr *av, uint64_t *s)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, sh.gid, 16);
	if (one_in(s, 4)) {
		/* 10.x.y.z, multicast, or bytes */
		av->dgid[12] = one_in(s, 2) ? 10 : 224 + below(s, 32);
		av->dgid[15] = rnd(s);
	}
	av->sgid_index = one_in(s, 8) ? (uint8_t)rnd(s) : (uint8_t)sh.gid_index;
	av->hop_limit = 64;
	av->port_num = one_in(s, 8) ? rnd(s) : 1;
	av->is_global = !one_in(s, 8);
	av->sl = one_in(s, 8) ? rnd(s) : 0;
	av->flow_label = one_in(s, 8) ? rnd(s) : 0;
}

static int cm_addr(struct xib_ucma_addr *a, uint64_t *s)
{
	memset(a, 0, sizeof(*a));
	switch (below(s, 6)) {
	case 0:
		return 0;
	case 1:		/* the device's own IPv4 address */
		a->family = 2;
		memcpy(a->addr, sh.gid + 12, 4);
		break;
	case 2:		/* a neighbour */
		a->family = 2;
		memcpy(a->addr, sh.gid + 12, 4);
		a->addr[3] = rnd(s);
		break;
	case 3:
		a->family = 10;
		memcpy(a->addr, sh.gid, 16);
		break;
	case 4:		/* loopback, any */
		a->family = 2;
		a->addr[0] = one_in(s, 2) ? 127 : 0;
		a->addr[3] = a->addr[0] ? 1 : 0;
		break;
	default:
		a->family = rnd(s);
		memcpy(a->addr, sh.gid, 16);
		a->scope_id = one_in(s, 2) ? rnd(s) : 0;
		break;
	}
	a->port = one_in(s, 2) ? 0 : (uint16_t)rnd(s);
	return 0;
}

static void *scribble_pick(uint64_t *s, size_t *len);

static void do_mmap(uint64_t *s)
{
	uint64_t off;
	uint32_t len;
	int prot = PROT_READ | (one_in(s, 4) ? 0 : PROT_WRITE);
	int flags = one_in(s, 8) ? MAP_PRIVATE : MAP_SHARED;
	void *p;
	size_t mlen;
	unsigned int i;

	pthread_mutex_lock(&sh.lock);
	if (sh.noff && !one_in(s, 8)) {
		i = below(s, sh.noff < NOFF ? sh.noff : NOFF);
		off = sh.off[i];
		len = sh.off_len[i];
	} else {
		off = (uint64_t)below(s, 1u << 16) << 12;
		len = 4096u << below(s, 4);
	}
	pthread_mutex_unlock(&sh.lock);
	switch (below(s, 6)) {
	case 0:		/* partial */
		mlen = len > 4096 ? len - 4096 : len;
		break;
	case 1:		/* too long */
		mlen = len + 4096;
		break;
	case 2:		/* shifted */
		off += 4096;
		mlen = len;
		break;
	case 3:		/* not page aligned */
		off += 1 + below(s, 4095);
		mlen = len;
		break;
	default:
		mlen = len;
		break;
	}
	p = mmap(NULL, mlen, prot, flags, sh.fd, off);
	count(OP_MMAP, p == MAP_FAILED ? errno : 0);
	if (p == MAP_FAILED)
		return;
	pthread_mutex_lock(&map_lock);
	i = below(s, NMAP);
	if (maps[i].addr)
		munmap(maps[i].addr, maps[i].len);
	if (prot & PROT_WRITE) {
		maps[i].addr = p;
		maps[i].len = mlen;
	} else {
		maps[i].addr = NULL;
		munmap(p, mlen);
	}
	pthread_mutex_unlock(&map_lock);
}

static void do_munmap(uint64_t *s)
{
	unsigned int i = below(s, NMAP);
	int ret = 0;

	pthread_mutex_lock(&map_lock);
	if (maps[i].addr) {
		ret = munmap(maps[i].addr, maps[i].len) ? errno : 0;
		maps[i].addr = NULL;
	}
	pthread_mutex_unlock(&map_lock);
	count(OP_MUNMAP, ret);
}

static int uverbs_op(int fd, enum op op, uint64_t *s);
static int cm_op(int fd, enum op op, uint64_t *s);

static void do_fork(uint64_t *s)
{
	uint64_t cs = rnd(s) | 1;
	pid_t pid = fork();
	int st, i;

	if (pid < 0) {
		count(OP_FORK, errno);
		return;
	}
	if (!pid) {
		/* the child uses the parent's file: a few commands, then exit */
		pthread_mutex_init(&sh.lock, NULL);
		pthread_mutex_init(&map_lock, NULL);
		for (i = 0; i < 16; i++) {
			enum op op = below(&cs, OP_UVERBS_NR);

			(void)uverbs_op(sh.fd, op, &cs);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "xib_abi_fuzz: forked child: status 0x%x\n", st);
		atomic_fetch_add(&n_unexpected, 1);
	}
	count(OP_FORK, 0);
}

static int open_context(const char *path)
{
	struct xib_uverbs_get_context gc;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&gc, 0, sizeof(gc));
	if (ioctl(fd, XIB_UVERBS_GET_CONTEXT, &gc)) {
		close(fd);
		return -1;
	}
	close(gc.async_fd);
	off_add(gc.db_mmap_offset, gc.db_mmap_size);
	return fd;
}

/* Close the shared file under the other threads and open a new one. */
static void do_reopen(void)
{
	int nfd = open_context(dev_path), old;

	if (nfd < 0) {
		count(OP_REOPEN, errno);
		return;
	}
	pthread_mutex_lock(&sh.lock);
	old = sh.fd;
	sh.fd = nfd;
	sh.pd.n = sh.mr.n = sh.cq.n = sh.qp.n = sh.srq.n = sh.ah.n = 0;
	sh.mw.n = sh.xrcd.n = 0;
	sh.noff = 0;
	pthread_mutex_unlock(&sh.lock);
	count(OP_REOPEN, close(old) ? errno : 0);
}

static int known_cmd(unsigned long cmd, const unsigned long *tab, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (tab[i] == cmd)
			return 1;
	return 0;
}

/* A key of an MR created on the shared file (maybe gone), or a random one. */
static uint32_t pick_key(uint64_t *s, int remote)
{
	uint32_t k = rnd(s);

	pthread_mutex_lock(&sh.lock);
	if (sh.nkey && !one_in(s, 8)) {
		unsigned int i = below(s, sh.nkey < NPOOL ? sh.nkey : NPOOL);

		k = remote ? sh.rkey[i] : sh.lkey[i];
	}
	pthread_mutex_unlock(&sh.lock);
	return k;
}

static uint32_t pick_ahn(uint64_t *s)
{
	uint32_t a = rnd(s);

	pthread_mutex_lock(&sh.lock);
	if (sh.nahn && !one_in(s, 8))
		a = sh.ahn[below(s, sh.nahn < NPOOL ? sh.nahn : NPOOL)];
	pthread_mutex_unlock(&sh.lock);
	return a;
}

/* Keep @p (@len bytes, writable) for the scribbler, dropping a mapping in its slot. */
static void keep_mapping(void *p, size_t len, uint64_t *s)
{
	unsigned int i;

	pthread_mutex_lock(&map_lock);
	i = below(s, NMAP);
	if (maps[i].addr)
		munmap(maps[i].addr, maps[i].len);
	maps[i].addr = p;
	maps[i].len = len;
	pthread_mutex_unlock(&map_lock);
}

static void sge_fill(struct xib_hca_sge *g, uint64_t *s)
{
	uint32_t off = below(s, MR_BUF_SIZE);

	g->addr = one_in(s, 16) ? rnd(s) : (uintptr_t)mr_buf + off;
	g->length = one_in(s, 16) ? rnd(s) : below(s, MR_BUF_SIZE - off + 1) % 8192;
	g->lkey = pick_key(s, 0);
}

/*
 * A QP just created on @fd: bring it to RTS (RC and UC connected to
 * themselves), map its rings, post random but plausible receive and send
 * WQEs and kick it; the rings stay mapped for the scribbler.  The other
 * threads may destroy it at any moment.
 */
static void drive_qp(int fd, const struct xib_uverbs_create_qp *cq, uint64_t *s)
{
	struct xib_uverbs_modify_qp m;
	struct xib_uverbs_destroy k = { .handle = cq->qp_handle };
	const struct xib_uverbs_ring *r;
	uint32_t type = cq->qp_type, n, i, prod;
	uint8_t *sq, *rq;

	memset(&m, 0, sizeof(m));
	m.qp_handle = cq->qp_handle;
	m.attr.qp_state = XIB_QPS_INIT;
	m.attr.port_num = 1;
	m.attr.qkey = 0x1234;
	m.attr.qp_access_flags = XIB_ACCESS_QP_SUPPORTED;
	m.attr_mask = XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
		(type == XIB_QPT_UD ? XIB_QP_QKEY : XIB_QP_ACCESS_FLAGS);
	if (ioctl(fd, XIB_UVERBS_MODIFY_QP, &m))
		return;
	memset(&m.attr, 0, sizeof(m.attr));
	m.attr.qp_state = XIB_QPS_RTR;
	m.attr.path_mtu = 1 + below(s, 3);
	m.attr.dest_qp_num = cq->qpn;
	m.attr.max_dest_rd_atomic = 4;
	m.attr.min_rnr_timer = 1;
	memcpy(m.attr.ah_attr.dgid, sh.gid, 16);
	m.attr.ah_attr.sgid_index = sh.gid_index;
	m.attr.ah_attr.hop_limit = 64;
	m.attr.ah_attr.port_num = 1;
	m.attr.ah_attr.is_global = 1;
	m.attr_mask = XIB_QP_STATE;
	if (type == XIB_QPT_RC)
		m.attr_mask |= XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN | XIB_QP_RQ_PSN |
			XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER;
	else if (type == XIB_QPT_UC)
		m.attr_mask |= XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN | XIB_QP_RQ_PSN;
	if (ioctl(fd, XIB_UVERBS_MODIFY_QP, &m))
		return;
	memset(&m.attr, 0, sizeof(m.attr));
	m.attr.qp_state = XIB_QPS_RTS;
	m.attr.timeout = 8;
	m.attr.retry_cnt = below(s, 3);
	m.attr.rnr_retry = below(s, 3);
	m.attr.max_rd_atomic = 4;
	m.attr_mask = XIB_QP_STATE | XIB_QP_SQ_PSN;
	if (type == XIB_QPT_RC)
		m.attr_mask |= XIB_QP_TIMEOUT | XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY |
			XIB_QP_MAX_QP_RD_ATOMIC;
	if (ioctl(fd, XIB_UVERBS_MODIFY_QP, &m))
		return;

	r = &cq->rq;
	rq = r->mmap_size ? mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				 r->mmap_offset) : MAP_FAILED;
	if (rq != MAP_FAILED) {
		struct xib_hca_wq_hdr *h = (void *)rq;

		n = below(s, r->slots + 1);
		prod = h->prod;
		for (i = 0; i < n; i++) {
			uint8_t *slot = rq + XIB_HCA_RING_HDR_SIZE + ((prod + i) & (r->slots - 1)) *
				r->stride;
			struct xib_hca_recv_wqe *w = (void *)slot;

			w->wr_id = rnd(s);
			w->num_sge = one_in(s, 16) ? rnd(s) : 1;
			if (r->stride >= sizeof(*w) + sizeof(struct xib_hca_sge))
				sge_fill((void *)(w + 1), s);
		}
		__atomic_store_n(&h->prod, prod + n, __ATOMIC_RELEASE);
		keep_mapping(rq, r->mmap_size, s);
	}
	r = &cq->sq;
	sq = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, r->mmap_offset);
	if (sq == MAP_FAILED)
		return;
	n = 1 + below(s, r->slots < 16 ? r->slots : 16);
	prod = ((struct xib_hca_wq_hdr *)sq)->prod;
	for (i = 0; i < n; i++) {
		uint8_t *slot = sq + XIB_HCA_RING_HDR_SIZE + ((prod + i) & (r->slots - 1)) * r->stride;
		struct xib_hca_send_wqe *w = (void *)slot;
		uint32_t room = (r->stride - sizeof(*w)) / sizeof(struct xib_hca_sge), j;

		memset(w, 0, r->stride);
		w->wr_id = rnd(s);
		w->opcode = one_in(s, 16) ? rnd(s) : below(s, 10);
		w->flags = one_in(s, 8) ? rnd(s) : (XIB_HCA_SEND_SIGNALED | (rnd(s) & 0x15));
		w->num_sge = one_in(s, 16) ? rnd(s) : below(s, room + 1);
		w->imm_data = rnd(s);
		if (type == XIB_QPT_UD) {
			w->ud.ahn = pick_ahn(s);
			w->ud.remote_qpn = one_in(s, 2) ? cq->qpn : rnd(s) & 0xffffff;
			w->ud.remote_qkey = one_in(s, 2) ? 0x1234 : rnd(s);
		} else if (w->opcode == XIB_HCA_WR_ATOMIC_CMP_AND_SWP ||
			   w->opcode == XIB_HCA_WR_ATOMIC_FETCH_AND_ADD) {
			w->atomic.remote_addr = (uintptr_t)mr_buf + (below(s, MR_BUF_SIZE) & ~7u) +
				(one_in(s, 8) ? 1 : 0);
			w->atomic.compare_add = rnd(s);
			w->atomic.swap = rnd(s);
			w->atomic.rkey = pick_key(s, 1);
		} else {
			w->rdma.remote_addr = (uintptr_t)mr_buf + below(s, MR_BUF_SIZE);
			w->rdma.rkey = pick_key(s, 1);
		}
		if (w->flags & XIB_HCA_SEND_INLINE) {
			w->inline_len = one_in(s, 8) ? rnd(s) : below(s, r->stride - sizeof(*w) + 1);
		} else {
			for (j = 0; j < room && j < w->num_sge; j++)
				sge_fill((struct xib_hca_sge *)(w + 1) + j, s);
		}
	}
	__atomic_store_n(&((struct xib_hca_wq_hdr *)sq)->prod, prod + n, __ATOMIC_RELEASE);
	(void)xio(fd, XIB_UVERBS_KICK, &k);
	keep_mapping(sq, r->mmap_size, s);
	atomic_fetch_add(&n_ok[OP_DRIVE], 1);
}

static int uverbs_op(int fd, enum op op, uint64_t *s)
{
	union {
		struct xib_uverbs_get_context gc;
		struct xib_uverbs_query_device qd;
		struct xib_uverbs_query_port qpt;
		struct xib_uverbs_query_gid qg;
		struct xib_uverbs_query_pkey qk;
		struct xib_uverbs_alloc_pd pd;
		struct xib_uverbs_destroy d;
		struct xib_uverbs_destroy_events de;
		struct xib_uverbs_reg_mr mr;
		struct xib_uverbs_rereg_mr rr;
		struct xib_uverbs_create_comp_channel cc;
		struct xib_uverbs_create_cq cq;
		struct xib_uverbs_resize_cq rcq;
		struct xib_uverbs_create_qp qp;
		struct xib_uverbs_modify_qp mq;
		struct xib_uverbs_query_qp qq;
		struct xib_uverbs_create_srq srq;
		struct xib_uverbs_modify_srq ms;
		struct xib_uverbs_query_srq qs;
		struct xib_uverbs_resize_srq rs;
		struct xib_uverbs_create_ah ah;
		struct xib_uverbs_mcast mc;
		struct xib_uverbs_alloc_mw amw;
		struct xib_uverbs_open_xrcd ox;
		struct xib_uverbs_create_xsrq xs;
		struct xib_uverbs_open_qp oq;
		uint8_t raw[512];
	} u;
	struct pool *pool = NULL;
	unsigned long cmd;
	int ret;

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP_QUERY_PORT:
		u.qpt.port_num = one_in(s, 4) ? rnd(s) : 1;
		break;
	case OP_QUERY_GID:
	case OP_QUERY_PKEY:
		u.qg.port_num = one_in(s, 4) ? rnd(s) : 1;
		u.qg.index = one_in(s, 4) ? rnd(s) : below(s, 20);
		break;
	case OP_DEALLOC_PD:
		u.d.handle = pool_pick(&sh.pd, s);
		pool = &sh.pd;
		break;
	case OP_REG_MR:
		u.mr.addr = (uintptr_t)mr_buf + below(s, MR_BUF_SIZE);
		u.mr.length = one_in(s, 8) ? rnd(s) : 1 + below(s, MR_BUF_SIZE - (u.mr.addr -
							(uintptr_t)mr_buf));
		if (one_in(s, 8))
			u.mr.addr = rnd(s);
		u.mr.iova = one_in(s, 2) ? u.mr.addr : rnd(s);
		u.mr.pd_handle = pool_pick(&sh.pd, s);
		u.mr.access = one_in(s, 8) ? rnd(s) : rnd(s) & XIB_ACCESS_MR_SUPPORTED;
		break;
	case OP_DEREG_MR:
		u.d.handle = pool_pick(&sh.mr, s);
		pool = &sh.mr;
		break;
	case OP_REREG_MR:
		u.rr.mr_handle = pool_pick(&sh.mr, s);
		u.rr.flags = one_in(s, 8) ? rnd(s) : below(s, 8);
		if (u.rr.flags & XIB_REREG_MR_CHANGE_TRANSLATION) {
			u.rr.addr = (uintptr_t)mr_buf + below(s, MR_BUF_SIZE / 2);
			u.rr.length = 1 + below(s, MR_BUF_SIZE / 2);
			u.rr.iova = u.rr.addr;
		}
		if (u.rr.flags & XIB_REREG_MR_CHANGE_PD)
			u.rr.pd_handle = pool_pick(&sh.pd, s);
		if (u.rr.flags & XIB_REREG_MR_CHANGE_ACCESS)
			u.rr.access = rnd(s) & XIB_ACCESS_MR_SUPPORTED;
		break;
	case OP_CREATE_CQ:
		u.cq.user_handle = rnd(s);
		u.cq.cqe = one_in(s, 4) ? size_val(s) : 1 + below(s, 256);
		u.cq.comp_vector = one_in(s, 8) ? rnd(s) : 0;
		u.cq.comp_channel = one_in(s, 8) ? (int)below(s, 64) : -1;
		break;
	case OP_RESIZE_CQ:
		u.rcq.cq_handle = pool_pick(&sh.cq, s);
		u.rcq.cqe = one_in(s, 4) ? size_val(s) : 1 + below(s, 512);
		break;
	case OP_DESTROY_CQ:
		u.de.handle = pool_pick(&sh.cq, s);
		pool = &sh.cq;
		break;
	case OP_CREATE_QP:
		u.qp.user_handle = rnd(s);
		u.qp.pd_handle = pool_pick(&sh.pd, s);
		u.qp.send_cq_handle = pool_pick(&sh.cq, s);
		u.qp.recv_cq_handle = one_in(s, 2) ? u.qp.send_cq_handle : pool_pick(&sh.cq, s);
		u.qp.srq_handle = one_in(s, 3) ? pool_pick(&sh.srq, s) : XIB_UVERBS_NO_HANDLE;
		/* RC, UC, UD, XRC_SEND, XRC_RECV; or any number */
		u.qp.qp_type = one_in(s, 8) ? rnd(s) : (uint32_t[]){ 2, 3, 4, 9, 10 }[below(s, 5)];
		if (u.qp.qp_type == XIB_QPT_XRC_RECV && !one_in(s, 8))
			u.qp.pd_handle = pool_pick(&sh.xrcd, s);	/* a target's domain */
		u.qp.sq_sig_all = one_in(s, 8) ? rnd(s) : below(s, 2);
		u.qp.cap.max_send_wr = one_in(s, 4) ? size_val(s) : 1 + below(s, 128);
		u.qp.cap.max_recv_wr = one_in(s, 4) ? size_val(s) : 1 + below(s, 128);
		u.qp.cap.max_send_sge = one_in(s, 4) ? size_val(s) : 1 + below(s, 4);
		u.qp.cap.max_recv_sge = one_in(s, 4) ? size_val(s) : 1 + below(s, 4);
		u.qp.cap.max_inline_data = one_in(s, 4) ? size_val(s) : below(s, 256);
		/* XRC: mostly without what the type has no use for */
		if (u.qp.qp_type >= XIB_QPT_XRC_SEND && u.qp.qp_type <= XIB_QPT_XRC_RECV &&
		    !one_in(s, 4)) {
			u.qp.recv_cq_handle = XIB_UVERBS_NO_HANDLE;
			u.qp.srq_handle = XIB_UVERBS_NO_HANDLE;
			u.qp.cap.max_recv_wr = 0;
			u.qp.cap.max_recv_sge = 0;
			if (u.qp.qp_type == XIB_QPT_XRC_RECV) {
				u.qp.send_cq_handle = XIB_UVERBS_NO_HANDLE;
				memset(&u.qp.cap, 0, sizeof(u.qp.cap));
				u.qp.sq_sig_all = 0;
			}
		}
		break;
	case OP_MODIFY_QP:
		u.mq.qp_handle = pool_pick(&sh.qp, s);
		u.mq.attr.qp_state = one_in(s, 8) ? rnd(s) : below(s, 7);
		u.mq.attr.port_num = 1;
		u.mq.attr.path_mtu = 1 + below(s, 5);
		u.mq.attr.dest_qp_num = rnd(s) & 0xffffff;
		u.mq.attr.rq_psn = rnd(s) & 0xffffff;
		u.mq.attr.sq_psn = rnd(s) & 0xffffff;
		u.mq.attr.qkey = rnd(s) & 0x7fffffff;
		u.mq.attr.qp_access_flags = rnd(s) & XIB_ACCESS_QP_SUPPORTED;
		u.mq.attr.timeout = below(s, 32);
		u.mq.attr.retry_cnt = below(s, 8);
		u.mq.attr.rnr_retry = below(s, 8);
		u.mq.attr.min_rnr_timer = below(s, 32);
		u.mq.attr.max_rd_atomic = below(s, 20);
		u.mq.attr.max_dest_rd_atomic = below(s, 20);
		u.mq.attr.en_sqd_async_notify = below(s, 2);
		fill_av(&u.mq.attr.ah_attr, s);
		switch (below(s, 6)) {	/* the usual transitions, RC/UC and UD */
		case 0:
			u.mq.attr.qp_state = XIB_QPS_INIT;
			u.mq.attr_mask = XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT |
				(one_in(s, 2) ? XIB_QP_ACCESS_FLAGS : XIB_QP_QKEY);
			break;
		case 1:
			u.mq.attr.qp_state = XIB_QPS_RTR;
			u.mq.attr_mask = XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU |
				XIB_QP_DEST_QPN | XIB_QP_RQ_PSN | XIB_QP_MAX_DEST_RD_ATOMIC |
				XIB_QP_MIN_RNR_TIMER;
			break;
		case 2:
			u.mq.attr.qp_state = XIB_QPS_RTS;
			u.mq.attr_mask = XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT |
				XIB_QP_RETRY_CNT | XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC;
			break;
		case 3:
			u.mq.attr.qp_state = XIB_QPS_RTR + below(s, 2);
			u.mq.attr_mask = XIB_QP_STATE |
				(u.mq.attr.qp_state == XIB_QPS_RTS ? XIB_QP_SQ_PSN : 0);
			break;
		case 4:
			u.mq.attr_mask = XIB_QP_STATE;	/* to ERR, RESET, SQD, ... */
			break;
		default:
			u.mq.attr_mask = rnd(s) & 0x3fffffff;
			break;
		}
		break;
	case OP_QUERY_QP:
		u.qq.qp_handle = pool_pick(&sh.qp, s);
		u.qq.attr_mask = one_in(s, 8) ? rnd(s) : rnd(s) & 0x21fffff;
		break;
	case OP_DESTROY_QP:
		u.de.handle = pool_pick(&sh.qp, s);
		pool = &sh.qp;
		break;
	case OP_CREATE_SRQ:
		u.srq.user_handle = rnd(s);
		u.srq.pd_handle = pool_pick(&sh.pd, s);
		u.srq.max_wr = one_in(s, 4) ? size_val(s) : 1 + below(s, 128);
		u.srq.max_sge = one_in(s, 4) ? size_val(s) : 1 + below(s, 4);
		u.srq.srq_limit = one_in(s, 4) ? size_val(s) : 0;
		break;
	case OP_MODIFY_SRQ:
		u.ms.srq_handle = pool_pick(&sh.srq, s);
		u.ms.attr_mask = below(s, 4);
		u.ms.max_wr = size_val(s);
		u.ms.srq_limit = below(s, 2) ? size_val(s) : below(s, 64);
		break;
	case OP_QUERY_SRQ:
		u.qs.srq_handle = pool_pick(&sh.srq, s);
		break;
	case OP_RESIZE_SRQ:
		u.rs.srq_handle = pool_pick(&sh.srq, s);
		u.rs.max_wr = one_in(s, 4) ? size_val(s) : 1 + below(s, 256);
		break;
	case OP_DESTROY_SRQ:
		u.de.handle = pool_pick(&sh.srq, s);
		pool = &sh.srq;
		break;
	case OP_CREATE_AH:
		u.ah.user_handle = rnd(s);
		u.ah.pd_handle = pool_pick(&sh.pd, s);
		fill_av(&u.ah.attr, s);
		break;
	case OP_DESTROY_AH:
		u.d.handle = pool_pick(&sh.ah, s);
		pool = &sh.ah;
		break;
	case OP_KICK:
		u.d.handle = pool_pick(&sh.qp, s);
		break;
	case OP_ATTACH_MCAST:
	case OP_DETACH_MCAST:
		u.mc.gid[10] = u.mc.gid[11] = 0xff;
		u.mc.gid[12] = 224 + below(s, one_in(s, 4) ? 256 : 16);
		u.mc.gid[15] = below(s, 4);
		if (one_in(s, 4)) {
			memset(u.mc.gid, 0, 16);
			u.mc.gid[0] = 0xff;
			u.mc.gid[1] = rnd(s);
			u.mc.gid[15] = below(s, 4);
		}
		u.mc.qp_handle = pool_pick(&sh.qp, s);
		u.mc.mlid = rnd(s);
		break;
	case OP_ALLOC_MW:
		u.amw.pd_handle = pool_pick(&sh.pd, s);
		u.amw.type = one_in(s, 8) ? rnd(s) : 1 + below(s, 2);
		break;
	case OP_DEALLOC_MW:
		u.d.handle = pool_pick(&sh.mw, s);
		pool = &sh.mw;
		break;
	case OP_OPEN_XRCD:
		/* the context's own file (an inode), none, or any number */
		u.ox.fd = one_in(s, 3) ? -1 : one_in(s, 8) ? (int)rnd(s) : fd;
		u.ox.oflags = one_in(s, 8) ? rnd(s) : below(s, 4);
		break;
	case OP_CLOSE_XRCD:
		u.d.handle = pool_pick(&sh.xrcd, s);
		pool = &sh.xrcd;
		break;
	case OP_CREATE_XSRQ:
		u.xs.user_handle = rnd(s);
		u.xs.srq_type = one_in(s, 8) ? rnd(s) : below(s, 2);
		u.xs.pd_handle = pool_pick(&sh.pd, s);
		u.xs.xrcd_handle = one_in(s, 4) ? XIB_UVERBS_NO_HANDLE : pool_pick(&sh.xrcd, s);
		u.xs.cq_handle = one_in(s, 4) ? XIB_UVERBS_NO_HANDLE : pool_pick(&sh.cq, s);
		u.xs.max_wr = one_in(s, 4) ? size_val(s) : 1 + below(s, 64);
		u.xs.max_sge = one_in(s, 4) ? size_val(s) : below(s, 4);
		u.xs.srq_limit = one_in(s, 4) ? size_val(s) : 0;
		break;
	case OP_OPEN_QP:
		u.oq.user_handle = rnd(s);
		u.oq.xrcd_handle = pool_pick(&sh.xrcd, s);
		u.oq.qpn = one_in(s, 4) ? rnd(s) : __atomic_load_n(&sh.tgt_qpn, __ATOMIC_RELAXED);
		u.oq.qp_type = one_in(s, 8) ? rnd(s) : XIB_QPT_XRC_RECV;
		u.oq.qp_handle = one_in(s, 16) ? rnd(s) : 0;
		break;
	case OP_BAD_IOCTL:
		/* an unknown number, a wrong size or direction, another magic */
		cmd = one_in(s, 2) ?
			_IOWR(XIB_UVERBS_IOCTL_MAGIC, 0x21 + below(s, 223), struct xib_uverbs_destroy) :
			_IOC(below(s, 4), one_in(s, 4) ? below(s, 256) : XIB_UVERBS_IOCTL_MAGIC,
			     below(s, 0x20), below(s, 512));
		if (known_cmd(cmd, uverbs_cmd, OP_UVERBS_NR))
			return SKIP;
		ret = xio(fd, cmd, u.raw);
		if (!ret)
			fprintf(stderr, "xib_abi_fuzz: ioctl 0x%lx succeeded\n", cmd);
		return ret ? ret : UNKNOWN_OK;
	default:
		break;
	}
	mangle(&u, _IOC_SIZE(uverbs_cmd[op]), s);
	ret = xio(fd, uverbs_cmd[op], &u);
	if (ret)
		return ret;
	/* remember what was created */
	switch (op) {
	case OP_GET_CONTEXT:
		close(u.gc.async_fd);
		break;
	case OP_CREATE_COMP_CHANNEL:
		close(u.cc.fd);
		break;
	case OP_ALLOC_PD:
		pool_add(&sh.pd, u.pd.pd_handle, s);
		break;
	case OP_ALLOC_MW:
		pool_add(&sh.mw, u.amw.mw_handle, s);
		break;
	case OP_REG_MR:
		pool_add(&sh.mr, u.mr.mr_handle, s);
		pthread_mutex_lock(&sh.lock);
		sh.lkey[sh.nkey % NPOOL] = u.mr.lkey;
		sh.rkey[sh.nkey % NPOOL] = u.mr.rkey;
		sh.nkey++;
		pthread_mutex_unlock(&sh.lock);
		break;
	case OP_CREATE_CQ:
		pool_add(&sh.cq, u.cq.cq_handle, s);
		ring_add(&u.cq.ring);
		break;
	case OP_RESIZE_CQ:
		ring_add(&u.rcq.ring);
		break;
	case OP_OPEN_QP:
		pool_add(&sh.qp, u.oq.qp_handle, s);
		break;
	case OP_CREATE_QP:
		pool_add(&sh.qp, u.qp.qp_handle, s);
		if (u.qp.qp_type == XIB_QPT_XRC_RECV)
			__atomic_store_n(&sh.tgt_qpn, u.qp.qpn, __ATOMIC_RELAXED);
		ring_add(&u.qp.sq);
		ring_add(&u.qp.rq);
		if (!one_in(s, 3))
			drive_qp(fd, &u.qp, s);
		break;
	case OP_CREATE_SRQ:
		pool_add(&sh.srq, u.srq.srq_handle, s);
		ring_add(&u.srq.ring);
		break;
	case OP_OPEN_XRCD:
		pool_add(&sh.xrcd, u.ox.xrcd_handle, s);
		break;
	case OP_CREATE_XSRQ:
		pool_add(&sh.srq, u.xs.srq_handle, s);
		ring_add(&u.xs.ring);
		break;
	case OP_RESIZE_SRQ:
		ring_add(&u.rs.ring);
		break;
	case OP_CREATE_AH:
		pool_add(&sh.ah, u.ah.ah_handle, s);
		pthread_mutex_lock(&sh.lock);
		sh.ahn[sh.nahn++ % NPOOL] = u.ah.ahn;
		pthread_mutex_unlock(&sh.lock);
		break;
	default:
		if (pool)
			pool_del(pool, u.d.handle);
		break;
	}
	return 0;
}

static int cm_op(int fd, enum op op, uint64_t *s)
{
	union {
		struct xib_ucma_create_id cr;
		struct xib_ucma_destroy_id de;
		struct xib_ucma_bind bi;
		struct xib_ucma_resolve_addr ra;
		struct xib_ucma_resolve_route rr;
		struct xib_ucma_listen li;
		struct xib_ucma_connect co;
		struct xib_ucma_accept ac;
		struct xib_ucma_reject rj;
		struct xib_ucma_init_qp_attr ia;
		struct xib_ucma_notify no;
		struct xib_ucma_set_option so;
		struct xib_ucma_join_mcast jm;
		struct xib_ucma_leave_mcast lm;
		struct xib_ucma_migrate_id mi;
		struct xib_ucma_event ev;
		uint32_t id;
		uint8_t raw[1024];
	} u;
	unsigned int i = op - OP_CM_FIRST;
	unsigned long cmd;
	int ret;

	memset(&u, 0, sizeof(u));
	if (op != OP_CM_CREATE_ID && op != OP_CM_LEAVE_MCAST && op != OP_CM_ACCEPT &&
	    op != OP_CM_GET_EVENT && op != OP_CM_JOIN_MCAST)
		u.id = pool_pick(&sh.cm_id, s);
	switch (op) {
	case OP_CM_CREATE_ID:
		u.cr.uid = rnd(s);
		u.cr.ps = one_in(s, 8) ? rnd(s) : (uint32_t[]){ XIB_UCMA_PS_TCP, XIB_UCMA_PS_UDP,
			XIB_UCMA_PS_IPOIB, XIB_UCMA_PS_IB }[below(s, 4)];
		u.cr.qp_type = one_in(s, 8) ? rnd(s) : 2 + 2 * below(s, 2);
		break;
	case OP_CM_BIND:
		cm_addr(&u.bi.addr, s);
		break;
	case OP_CM_RESOLVE_ADDR:
		u.ra.timeout_ms = one_in(s, 8) ? rnd(s) : 1 + below(s, 200);
		cm_addr(&u.ra.src, s);
		cm_addr(&u.ra.dst, s);
		break;
	case OP_CM_RESOLVE_ROUTE:
		u.rr.timeout_ms = one_in(s, 8) ? rnd(s) : 1 + below(s, 200);
		break;
	case OP_CM_LISTEN:
		u.li.backlog = one_in(s, 4) ? rnd(s) : below(s, 16);
		break;
	case OP_CM_CONNECT:
		u.co.param.private_data_len = below(s, 64);
		u.co.param.responder_resources = below(s, 4);
		u.co.param.initiator_depth = below(s, 4);
		u.co.param.retry_count = below(s, 8);
		u.co.param.rnr_retry_count = below(s, 8);
		u.co.param.qp_num = rnd(s) & 0xffffff;
		break;
	case OP_CM_ACCEPT:
		u.ac.uid = rnd(s);
		u.ac.id = pool_pick(&sh.cm_id, s);
		u.ac.param.qp_num = rnd(s) & 0xffffff;
		break;
	case OP_CM_REJECT:
		u.rj.private_data_len = below(s, 200);
		break;
	case OP_CM_INIT_QP_ATTR:
		u.ia.qp_state = below(s, 8);
		break;
	case OP_CM_NOTIFY:
		u.no.event = below(s, 20);
		break;
	case OP_CM_SET_OPTION:
		u.so.level = below(s, 3);
		u.so.optname = below(s, 8);
		u.so.optlen = below(s, 9);
		u.so.value = rnd(s) & 0xff;
		break;
	case OP_CM_JOIN_MCAST:
		u.jm.uid = rnd(s);
		u.jm.id = pool_pick(&sh.cm_id, s);
		u.jm.join_flags = below(s, 4);
		u.jm.addr.family = 2;
		u.jm.addr.addr[0] = 224 + below(s, 16);
		u.jm.addr.addr[3] = rnd(s);
		break;
	case OP_CM_LEAVE_MCAST:
		u.lm.mc_id = pool_pick(&sh.mc, s);
		break;
	case OP_CM_MIGRATE_ID:
		u.mi.fd = one_in(s, 2) ? fd : (int)below(s, 64);
		break;
	case OP_CM_BAD_IOCTL:
		cmd = _IOC(below(s, 4), one_in(s, 4) ? below(s, 256) : XIB_UCMA_IOCTL_MAGIC,
			   below(s, 0x20), below(s, 1024));
		if (known_cmd(cmd, ucma_cmd, OP_NR - OP_CM_FIRST - 1))
			return SKIP;
		ret = xio(fd, cmd, u.raw);
		if (!ret)
			fprintf(stderr, "xib_abi_fuzz: ioctl 0x%lx succeeded\n", cmd);
		return ret ? ret : UNKNOWN_OK;
	default:
		break;
	}
	mangle(&u, _IOC_SIZE(ucma_cmd[i]), s);
	ret = xio(fd, ucma_cmd[i], &u);
	if (ret)
		return ret;
	if (op == OP_CM_CREATE_ID)
		pool_add(&sh.cm_id, u.cr.id, s);
	else if (op == OP_CM_DESTROY_ID)
		pool_del(&sh.cm_id, u.de.id);
	else if (op == OP_CM_MIGRATE_ID)
		pool_add(&sh.cm_id, u.mi.new_id, s);
	else if (op == OP_CM_JOIN_MCAST)
		pool_add(&sh.mc, u.jm.mc_id, s);
	else if (op == OP_CM_LEAVE_MCAST)
		pool_del(&sh.mc, u.lm.mc_id);
	return 0;
}

static void *worker(void *arg)
{
	uint64_t s = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (uintptr_t)arg, i;
	uint64_t share = n_ops / n_threads;

	s |= 1;
	for (i = 0; i < share && !atomic_load(&stop); i++) {
		enum op op = below(&s, OP_NR);
		int fd, ret;

		if (op >= OP_CM_FIRST && sh.cm_fd < 0)
			op = below(&s, OP_CM_FIRST);
		switch (op) {
		case OP_MMAP:
			do_mmap(&s);
			continue;
		case OP_MUNMAP:
			do_munmap(&s);
			continue;
		case OP_FORK:
			if (one_in(&s, 16))
				do_fork(&s);
			continue;
		case OP_REOPEN:
			if (one_in(&s, 32))
				do_reopen();
			continue;
		case OP_DRIVE:		/* done after CREATE_QP */
			continue;
		default:
			break;
		}
		if (op >= OP_CM_FIRST) {
			ret = cm_op(sh.cm_fd, op, &s);
		} else {
			pthread_mutex_lock(&sh.lock);
			fd = sh.fd;
			pthread_mutex_unlock(&sh.lock);
			ret = uverbs_op(fd, op, &s);
		}
		if (ret == SKIP)	/* a valid command: not tried */
			continue;
		if (ret == UNKNOWN_OK) {	/* an unknown command succeeded */
			atomic_fetch_add(&n_unexpected, 1);
			ret = 0;
		}
		count(op, ret);
	}
	return NULL;
}

/* --- the live loopback QPs, their rings, the scribbler -------------------- */

struct live {
	int fd;
	uint32_t pd, cq, srq, qp[2], qpn[2], mr, lkey, rkey;
	struct xib_uverbs_ring cqr, sq[2], rq[2], srqr;
	uint8_t *cqm, *sqm[2], *rqm[2], *srqm, *db;
	uint32_t db_size;
	uint64_t db_off;
	uint8_t *buf;
};

static void *map_ring(int fd, const struct xib_uverbs_ring *r)
{
	void *p;

	if (!r->mmap_size)
		return NULL;
	p = mmap(NULL, r->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, r->mmap_offset);
	if (p == MAP_FAILED)
		fail("mmap ring: %s", strerror(errno));
	return p;
}

static void must(int ret, const char *what)
{
	if (ret)
		fail("%s: %s", what, strerror(ret));
}

static int find_gid(int fd, uint8_t gid[16])
{
	struct xib_uverbs_query_gid g;
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	int i;

	for (i = 0; i < 16; i++) {
		memset(&g, 0, sizeof(g));
		g.port_num = 1;
		g.index = i;
		if (!xio(fd, XIB_UVERBS_QUERY_GID, &g) && !memcmp(g.gid, v4, 12)) {
			memcpy(gid, g.gid, 16);
			return i;
		}
	}
	fail("no IPv4 GID on port 1");
}

/* RESET -> INIT -> RTR -> RTS towards @rqpn on this device. */
static void connect_qp(struct live *l, uint32_t qp, uint32_t rqpn)
{
	struct xib_uverbs_modify_qp m;
	struct xib_uverbs_query_port qpt;

	memset(&qpt, 0, sizeof(qpt));
	qpt.port_num = 1;
	must(xio(l->fd, XIB_UVERBS_QUERY_PORT, &qpt), "QUERY_PORT");
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.attr.qp_state = XIB_QPS_INIT;
	m.attr.port_num = 1;
	m.attr.qp_access_flags = XIB_ACCESS_REMOTE_WRITE;
	m.attr_mask = XIB_QP_STATE | XIB_QP_PKEY_INDEX | XIB_QP_PORT | XIB_QP_ACCESS_FLAGS;
	must(xio(l->fd, XIB_UVERBS_MODIFY_QP, &m), "MODIFY_QP INIT");
	memset(&m.attr, 0, sizeof(m.attr));
	m.attr.qp_state = XIB_QPS_RTR;
	m.attr.path_mtu = qpt.attr.active_mtu;
	m.attr.dest_qp_num = rqpn;
	m.attr.rq_psn = 0x123;
	m.attr.max_dest_rd_atomic = 1;
	m.attr.min_rnr_timer = 1;
	memcpy(m.attr.ah_attr.dgid, sh.gid, 16);
	m.attr.ah_attr.sgid_index = sh.gid_index;
	m.attr.ah_attr.hop_limit = 64;
	m.attr.ah_attr.port_num = 1;
	m.attr.ah_attr.is_global = 1;
	m.attr_mask = XIB_QP_STATE | XIB_QP_AV | XIB_QP_PATH_MTU | XIB_QP_DEST_QPN |
		XIB_QP_RQ_PSN | XIB_QP_MAX_DEST_RD_ATOMIC | XIB_QP_MIN_RNR_TIMER;
	must(xio(l->fd, XIB_UVERBS_MODIFY_QP, &m), "MODIFY_QP RTR");
	memset(&m.attr, 0, sizeof(m.attr));
	m.attr.qp_state = XIB_QPS_RTS;
	m.attr.sq_psn = 0x123;
	m.attr.timeout = 10;
	m.attr.retry_cnt = 7;
	m.attr.rnr_retry = 7;
	m.attr.max_rd_atomic = 1;
	m.attr_mask = XIB_QP_STATE | XIB_QP_SQ_PSN | XIB_QP_TIMEOUT | XIB_QP_RETRY_CNT |
		XIB_QP_RNR_RETRY | XIB_QP_MAX_QP_RD_ATOMIC;
	must(xio(l->fd, XIB_UVERBS_MODIFY_QP, &m), "MODIFY_QP RTS");
}

/* A context with a PD, an MR, a CQ, an SRQ and two RC QPs connected to each other. */
static void live_open(struct live *l, int with_srq)
{
	struct xib_uverbs_get_context gc;
	struct xib_uverbs_alloc_pd pd;
	struct xib_uverbs_reg_mr mr;
	struct xib_uverbs_create_cq cq;
	struct xib_uverbs_create_srq srq;
	struct xib_uverbs_create_qp qp;
	int i;

	memset(l, 0, sizeof(*l));
	l->fd = open(dev_path, O_RDWR | O_CLOEXEC);
	if (l->fd < 0)
		fail("open %s: %s", dev_path, strerror(errno));
	memset(&gc, 0, sizeof(gc));
	must(xio(l->fd, XIB_UVERBS_GET_CONTEXT, &gc), "GET_CONTEXT");
	close(gc.async_fd);
	l->db_off = gc.db_mmap_offset;
	l->db_size = gc.db_mmap_size;
	l->db = mmap(NULL, l->db_size, PROT_READ, MAP_SHARED, l->fd, l->db_off);
	if (l->db == MAP_FAILED)
		fail("mmap doorbell: %s", strerror(errno));
	sh.gid_index = find_gid(l->fd, sh.gid);
	memset(&pd, 0, sizeof(pd));
	must(xio(l->fd, XIB_UVERBS_ALLOC_PD, &pd), "ALLOC_PD");
	l->pd = pd.pd_handle;
	if (posix_memalign((void **)&l->buf, 4096, 1 << 17))
		fail("out of memory");
	memset(l->buf, 0, 1 << 17);
	memset(&mr, 0, sizeof(mr));
	mr.addr = mr.iova = (uintptr_t)l->buf;
	mr.length = 1 << 17;
	mr.pd_handle = l->pd;
	mr.access = XIB_ACCESS_LOCAL_WRITE | XIB_ACCESS_REMOTE_WRITE;
	must(xio(l->fd, XIB_UVERBS_REG_MR, &mr), "REG_MR");
	l->mr = mr.mr_handle;
	l->lkey = mr.lkey;
	l->rkey = mr.rkey;
	memset(&cq, 0, sizeof(cq));
	cq.cqe = 256;
	cq.comp_channel = -1;
	must(xio(l->fd, XIB_UVERBS_CREATE_CQ, &cq), "CREATE_CQ");
	l->cq = cq.cq_handle;
	l->cqr = cq.ring;
	l->cqm = map_ring(l->fd, &l->cqr);
	l->srq = XIB_UVERBS_NO_HANDLE;
	if (with_srq) {
		memset(&srq, 0, sizeof(srq));
		srq.pd_handle = l->pd;
		srq.max_wr = 64;
		srq.max_sge = 1;
		must(xio(l->fd, XIB_UVERBS_CREATE_SRQ, &srq), "CREATE_SRQ");
		l->srq = srq.srq_handle;
		l->srqr = srq.ring;
		l->srqm = map_ring(l->fd, &l->srqr);
	}
	for (i = 0; i < 2; i++) {
		memset(&qp, 0, sizeof(qp));
		qp.pd_handle = l->pd;
		qp.send_cq_handle = qp.recv_cq_handle = l->cq;
		qp.srq_handle = i ? l->srq : XIB_UVERBS_NO_HANDLE;
		qp.qp_type = XIB_QPT_RC;
		qp.cap.max_send_wr = 64;
		qp.cap.max_recv_wr = 64;
		qp.cap.max_send_sge = 1;
		qp.cap.max_recv_sge = 1;
		must(xio(l->fd, XIB_UVERBS_CREATE_QP, &qp), "CREATE_QP");
		l->qp[i] = qp.qp_handle;
		l->qpn[i] = qp.qpn;
		l->sq[i] = qp.sq;
		l->rq[i] = qp.rq;
		l->sqm[i] = map_ring(l->fd, &l->sq[i]);
		l->rqm[i] = map_ring(l->fd, &l->rq[i]);
	}
	connect_qp(l, l->qp[0], l->qpn[1]);
	connect_qp(l, l->qp[1], l->qpn[0]);
}

static void live_close(struct live *l)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (l->sqm[i])
			munmap(l->sqm[i], l->sq[i].mmap_size);
		if (l->rqm[i])
			munmap(l->rqm[i], l->rq[i].mmap_size);
	}
	if (l->srqm)
		munmap(l->srqm, l->srqr.mmap_size);
	munmap(l->cqm, l->cqr.mmap_size);
	munmap(l->db, l->db_size);
	close(l->fd);	/* destroys everything */
	free(l->buf);
}

/* Post one RDMA WRITE of @len bytes at @off to the same offset + 64 KiB. */
static void post_write(struct live *l, int q, uint32_t off, uint32_t len, uint64_t wr_id)
{
	struct xib_hca_wq_hdr *h = (void *)l->sqm[q];
	uint32_t prod = h->prod;
	struct xib_hca_send_wqe *w = (void *)(l->sqm[q] + XIB_HCA_RING_HDR_SIZE +
					      (prod & (l->sq[q].slots - 1)) * l->sq[q].stride);
	struct xib_hca_sge *sge = (void *)(w + 1);
	struct xib_uverbs_destroy k = { .handle = l->qp[q] };

	memset(w, 0, l->sq[q].stride);
	w->wr_id = wr_id;
	w->opcode = XIB_HCA_WR_RDMA_WRITE;
	w->flags = XIB_HCA_SEND_SIGNALED;
	w->num_sge = 1;
	w->rdma.remote_addr = (uintptr_t)l->buf + off + 65536;
	w->rdma.rkey = l->rkey;
	sge->addr = (uintptr_t)l->buf + off;
	sge->length = len;
	sge->lkey = l->lkey;
	__atomic_store_n(&h->prod, prod + 1, __ATOMIC_RELEASE);
	(void)xio(l->fd, XIB_UVERBS_KICK, &k);
}

static sigjmp_buf fault_jmp;
static __thread int in_scribble;
static volatile int map_locked;	/* the scribbler holds map_lock */

static void on_fault(int sig)
{
	(void)sig;
	if (in_scribble)
		siglongjmp(fault_jmp, 1);
	_exit(3);
}

static void *scribble_pick(uint64_t *s, size_t *len)
{
	unsigned int i = below(s, NMAP), k;

	for (k = 0; k < NMAP; k++, i = (i + 1) % NMAP)
		if (maps[i].addr) {
			*len = maps[i].len;
			return maps[i].addr;
		}
	return NULL;
}

static struct live live;

/* Random indices and WQEs into the live rings (and other mappings), with KICKs. */
static void *scribbler(void *arg)
{
	uint64_t s = (seed + 7) * 0xbf58476d1ce4e5b9ull | 1;
	struct live *l = arg;

	(void)arg;
	in_scribble = 1;
	while (!atomic_load(&stop)) {
		uint8_t *p = NULL;
		size_t len = 0;
		int q = below(&s, 2);

		if (sigsetjmp(fault_jmp, 1)) {
			atomic_fetch_add(&n_faults, 1);
			if (map_locked) {
				map_locked = 0;
				pthread_mutex_unlock(&map_lock);
			}
			continue;
		}
		switch (below(&s, 8)) {
		case 0:
			p = l->sqm[q];
			len = l->sq[q].mmap_size;
			break;
		case 1:
			p = l->rqm[q];
			len = l->rq[q].mmap_size;
			break;
		case 2:
			p = l->cqm;
			len = l->cqr.mmap_size;
			break;
		case 3:
			p = l->srqm;
			len = l->srqr.mmap_size;
			break;
		case 4:
			pthread_mutex_lock(&map_lock);
			map_locked = 1;
			p = scribble_pick(&s, &len);
			if (p && len >= 64) {
				uint32_t *w = (uint32_t *)(p + (below(&s, len / 4)) * 4);

				*w = one_in(&s, 2) ? (uint32_t)rnd(&s) : *w + below(&s, 3) - 1;
				atomic_fetch_add(&n_scribble, 1);
			}
			map_locked = 0;
			pthread_mutex_unlock(&map_lock);
			continue;
		default:
			/* a well formed WRITE now and then: the engine must run */
			post_write(l, q, below(&s, 60000), 1 + below(&s, 4096), rnd(&s));
			atomic_fetch_add(&n_kicks, 1);
			continue;
		}
		if (!p)
			continue;
		if (one_in(&s, 2)) {	/* an index: prod, cons or arm, near or far */
			uint32_t *idx = (uint32_t *)(p + 64 * below(&s, 3));

			*idx = one_in(&s, 2) ? (uint32_t)rnd(&s) : *idx + below(&s, 130) - 64;
		} else {		/* a word of a slot */
			uint32_t *w = (uint32_t *)(p + XIB_HCA_RING_HDR_SIZE +
						   4 * below(&s, (len - XIB_HCA_RING_HDR_SIZE) / 4));

			*w = one_in(&s, 4) ? *w ^ (1u << below(&s, 32)) : (uint32_t)rnd(&s);
		}
		atomic_fetch_add(&n_scribble, 1);
		if (one_in(&s, 4)) {
			struct xib_uverbs_destroy k = { .handle = l->qp[q] };

			(void)xio(l->fd, XIB_UVERBS_KICK, &k);
			atomic_fetch_add(&n_kicks, 1);
		}
	}
	return NULL;
}

/* The device still works: a fresh context moves 64 KiB by RDMA WRITE, checked. */
static void final_check(void)
{
	struct live l;
	struct xib_hca_cq_hdr *ch;
	uint32_t i, got = 0, cons;
	int tries;

	live_open(&l, 0);
	for (i = 0; i < 65536; i++)
		l.buf[i] = (uint8_t)(i * 7 + seed);
	for (i = 0; i < 16; i++)
		post_write(&l, 0, i * 4096, 4096, i);
	ch = (void *)l.cqm;
	cons = ch->cons;
	for (tries = 0; tries < 1000 && got < 16; tries++) {
		while (got < 16 && __atomic_load_n(&ch->prod, __ATOMIC_ACQUIRE) != cons) {
			struct xib_hca_cqe *e = (void *)(l.cqm + XIB_HCA_RING_HDR_SIZE +
				(cons & (l.cqr.slots - 1)) * l.cqr.stride);

			if (e->status)
				fail("final transfer: completion status %u", e->status);
			cons++;
			got++;
		}
		__atomic_store_n(&ch->cons, cons, __ATOMIC_RELEASE);
		if (got < 16)
			usleep(10000);
	}
	if (got < 16)
		fail("final transfer: %u of 16 completions in 10 s", got);
	if (memcmp(l.buf, l.buf + 65536, 65536))
		fail("final transfer: data differ");
	live_close(&l);
	printf("ok - the device still works: 16 RDMA WRITEs on a fresh context, data intact\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: xib_abi_fuzz -d /dev/xib/uverbsN [-r /dev/xib/rdma_cm] "
		"[-s SEED] [-n OPS] [-t THREADS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t th[16], scr;
	struct sigaction sa;
	unsigned long long total_ok = 0, total_err = 0;
	unsigned int i;
	int opt;

	while ((opt = getopt(argc, argv, "d:r:s:n:t:")) != -1) {
		switch (opt) {
		case 'd': dev_path = optarg; break;
		case 'r': cm_path = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': n_ops = strtoull(optarg, NULL, 0); break;
		case 't': n_threads = atoi(optarg); break;
		default: usage();
		}
	}
	if (!dev_path || n_threads < 1 || n_threads > 16)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed %llu ops %llu threads %u uid %u\n", (unsigned long long)seed,
	       (unsigned long long)n_ops, n_threads, (unsigned int)getuid());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (posix_memalign(&mr_buf, 4096, MR_BUF_SIZE))
		fail("out of memory");
	memset(mr_buf, 0, MR_BUF_SIZE);

	live_open(&live, 1);
	sh.fd = open_context(dev_path);
	if (sh.fd < 0)
		fail("open %s: %s", dev_path, strerror(errno));
	if (cm_path) {
		sh.cm_fd = open(cm_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (sh.cm_fd < 0)
			fail("open %s: %s", cm_path, strerror(errno));
	}
	/* the live rings are fuzz targets too: their offsets and handles are known */
	off_add(live.cqr.mmap_offset, live.cqr.mmap_size);
	off_add(live.sq[0].mmap_offset, live.sq[0].mmap_size);

	if (pthread_create(&scr, NULL, scribbler, &live))
		fail("pthread_create");
	for (i = 0; i < n_threads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1)))
			fail("pthread_create");
	for (i = 0; i < n_threads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, 1);
	pthread_join(scr, NULL);

	/* drop the fuzzed contexts, the scribbled one included */
	pthread_mutex_lock(&map_lock);
	for (i = 0; i < NMAP; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	pthread_mutex_unlock(&map_lock);
	live_close(&live);
	close(sh.fd);
	if (sh.cm_fd >= 0)
		close(sh.cm_fd);
	final_check();

	printf("%-20s %10s %10s\n", "operation", "ok", "errors");
	for (i = 0; i < OP_NR; i++) {
		if (!n_ok[i] && !n_err[i])
			continue;
		printf("%-20s %10llu %10llu\n", op_name[i], (unsigned long long)n_ok[i],
		       (unsigned long long)n_err[i]);
		total_ok += n_ok[i];
		total_err += n_err[i];
	}
	for (i = 0; i < OP_NR; i++) {
		unsigned int e;

		if (!n_err[i])
			continue;
		printf("errno of %s:", op_name[i]);
		for (e = 0; e < NERR; e++)
			if (n_op_errno[i][e])
				printf(" %s %llu", e ? strerrorname_np(e) : "other",
				       (unsigned long long)n_op_errno[i][e]);
		printf("\n");
	}
	printf("errors by errno:");
	for (i = 0; i < NERR; i++)
		if (n_errno[i])
			printf(" %s %llu", i ? strerror(i) : "other", (unsigned long long)n_errno[i]);
	printf("\nring words scribbled %llu, kicks %llu, faults %llu\n",
	       (unsigned long long)n_scribble, (unsigned long long)n_kicks,
	       (unsigned long long)n_faults);
	printf("operations %llu (ok %llu, errors %llu)\n", total_ok + total_err, total_ok,
	       total_err);
	if (n_unexpected)
		fail("unexpected errno or success %llu times", (unsigned long long)n_unexpected);
	printf("PASS\n");
	return 0;
}
