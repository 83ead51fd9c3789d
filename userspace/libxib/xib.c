// SPDX-License-Identifier: BSD-2-Clause
/*
 * libxib: objects over the ioctls of /dev/xib/uverbsN and the data path
 * over the rings of <xib/hca-abi.h>.  See xib.h for the conventions.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xib.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(struct xib_sge) == sizeof(struct xib_hca_sge) &&
	       offsetof(struct xib_sge, lkey) == offsetof(struct xib_hca_sge, lkey),
	       "struct xib_sge is copied into WQEs as struct xib_hca_sge");

static struct xib_stats stats;

/* XIB_DEBUG=1 in the environment: say why a call failed with EPROTO. */
static void lib_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void lib_debug(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("XIB_DEBUG"))
		return;
	fprintf(stderr, "libxib: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int xcmd(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static void stat_add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

void xib_get_stats(struct xib_stats *st)
{
	st->posted_send = __atomic_load_n(&stats.posted_send, __ATOMIC_RELAXED);
	st->kicks = __atomic_load_n(&stats.kicks, __ATOMIC_RELAXED);
	st->uar_doorbells = __atomic_load_n(&stats.uar_doorbells, __ATOMIC_RELAXED);
}

/*
 * Map the UAR GET_CONTEXT describes (uverbs.h), if the kind is one this
 * library knows; otherwise, or if the mapping fails, kicks stay system
 * calls, which are never wrong.
 */
static void uar_map(struct xib_context *ctx, const struct xib_uverbs_get_context *gc)
{
	long page = sysconf(_SC_PAGESIZE);
	void *uar;

	if (gc->db_kind != XIB_UVERBS_DB_MMIO)
		return;
	if (page <= 0 || gc->uar_db_reg % 4 || gc->uar_db_reg > page - 4) {
		lib_debug("GET_CONTEXT: UAR doorbell register at %u", gc->uar_db_reg);
		return;
	}
	uar = mmap(NULL, (size_t)page, PROT_WRITE, MAP_SHARED, ctx->fd,
		   (off_t)gc->uar_mmap_offset);
	if (uar == MAP_FAILED) {
		lib_debug("mmap of the UAR: %s", strerror(errno));
		return;
	}
	ctx->uar = uar;
	ctx->uar_db = (volatile uint32_t *)((char *)uar + gc->uar_db_reg);
	ctx->uar_value = htole32(gc->uar_db_value);
}

/* Map a ring the kernel described; read-write (we write our index). */
static int ring_map(struct xib_context *ctx, const struct xib_uverbs_ring *d,
		    struct xib_ring *r)
{
	void *p;

	memset(r, 0, sizeof(*r));
	if (!d->slots)
		return 0;	/* none: the RQ of a QP with an SRQ */
	if (d->slots & (d->slots - 1) || d->stride == 0 ||
	    d->mmap_size < XIB_HCA_RING_HDR_SIZE + (uint64_t)d->slots * d->stride) {
		lib_debug("bad ring: slots %u stride %u mmap_size %u", d->slots,
			  d->stride, d->mmap_size);
		return -EPROTO;	/* the kernel broke the ABI */
	}
	p = mmap(NULL, d->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->fd, (off_t)d->mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	r->map = p;
	r->map_size = d->mmap_size;
	r->slots = d->slots;
	r->stride = d->stride;
	r->slot0 = (uint8_t *)p + XIB_HCA_RING_HDR_SIZE;
	r->mmap_offset = d->mmap_offset;
	return 0;
}

static void ring_unmap(struct xib_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	r->map = NULL;
}

/* --- context ------------------------------------------------------------ */

/*
 * How many times xib_poll_cq() may find its CQ empty, with sends
 * published and the engine RUNNING but making no step, before it kicks:
 * XIB_STALE_KICK_POLLS (2000 is some 50 us of polling on a current CPU).
 * Off (0) by default for now: on a loaded machine it trades latency for
 * KICKs, more than the 0.01 system calls per WR xib promises, and kicks
 * from several CPUs can reorder a burst on a veth.
 */
static uint32_t stale_after_polls(void)
{
	const char *e = getenv("XIB_STALE_KICK_POLLS");
	unsigned long n = 0;
	char *end;

	if (e && *e) {
		errno = 0;
		n = strtoul(e, &end, 10);
		if (errno || *end || n > 100000000)
			n = 0;
	}
	return n;
}

int xib_open(const char *path, struct xib_context **out)
{
	struct xib_uverbs_get_context gc;
	struct xib_context *ctx;
	void *db;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->async_fd = -1;
	ctx->fd = open(path, O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		ret = -errno;
		goto err_free;
	}
	memset(&gc, 0, sizeof(gc));
	ret = xcmd(ctx->fd, XIB_UVERBS_GET_CONTEXT, &gc);
	if (ret)
		goto err_close;
	ctx->abi_version = gc.abi_version;
	ctx->async_fd = gc.async_fd;
	ctx->num_comp_vectors = gc.num_comp_vectors;
	if (gc.abi_version != XIB_UVERBS_ABI_VERSION ||
	    gc.db_mmap_size < sizeof(struct xib_hca_db_page)) {
		lib_debug("GET_CONTEXT: abi_version %u, db_mmap_size %u",
			  gc.abi_version, gc.db_mmap_size);
		ret = -EPROTO;
		goto err_close;
	}
	db = mmap(NULL, gc.db_mmap_size, PROT_READ, MAP_SHARED, ctx->fd,
		  (off_t)gc.db_mmap_offset);
	if (db == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	ctx->db = db;
	ctx->db_size = gc.db_mmap_size;
	ctx->db_offset = gc.db_mmap_offset;
	uar_map(ctx, &gc);
	ctx->stale_after_polls = stale_after_polls();
	pthread_spin_init(&ctx->stale_lock, PTHREAD_PROCESS_PRIVATE);
	ret = xib_query_device(ctx, &ctx->attr);
	if (ret)
		goto err_unmap;
	*out = ctx;
	return 0;

err_unmap:
	if (ctx->uar)
		munmap(ctx->uar, (size_t)sysconf(_SC_PAGESIZE));
	munmap((void *)ctx->db, ctx->db_size);
err_close:
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	close(ctx->fd);
err_free:
	free(ctx);
	return ret;
}

int xib_open_index(unsigned int index, struct xib_context **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/xib/uverbs%u", index);
	return xib_open(path, out);
}

int xib_close(struct xib_context *ctx)
{
	pthread_spin_destroy(&ctx->stale_lock);
	if (ctx->uar)
		munmap(ctx->uar, (size_t)sysconf(_SC_PAGESIZE));
	munmap((void *)ctx->db, ctx->db_size);
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	close(ctx->fd);
	free(ctx);
	return 0;
}

int xib_query_device(struct xib_context *ctx, struct xib_uverbs_device_attr *attr)
{
	struct xib_uverbs_query_device q;
	int ret;

	memset(&q, 0, sizeof(q));
	ret = xcmd(ctx->fd, XIB_UVERBS_QUERY_DEVICE, &q);
	if (!ret)
		*attr = q.attr;
	return ret;
}

int xib_query_port(struct xib_context *ctx, uint32_t port, struct xib_uverbs_port_attr *attr)
{
	struct xib_uverbs_query_port q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.port_num = port;
	ret = xcmd(ctx->fd, XIB_UVERBS_QUERY_PORT, &q);
	if (!ret)
		*attr = q.attr;
	return ret;
}

int xib_query_gid_ndev(struct xib_context *ctx, uint32_t port, uint32_t index,
		       uint8_t gid[16], uint32_t *gid_type, uint32_t *ndev_ifindex)
{
	struct xib_uverbs_query_gid q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.port_num = port;
	q.index = index;
	ret = xcmd(ctx->fd, XIB_UVERBS_QUERY_GID, &q);
	if (ret)
		return ret;
	memcpy(gid, q.gid, 16);
	if (gid_type)
		*gid_type = q.gid_type;
	if (ndev_ifindex)
		*ndev_ifindex = q.ndev_ifindex;
	return 0;
}

int xib_query_gid(struct xib_context *ctx, uint32_t port, uint32_t index,
		  uint8_t gid[16], uint32_t *gid_type)
{
	return xib_query_gid_ndev(ctx, port, index, gid, gid_type, NULL);
}

int xib_query_pkey(struct xib_context *ctx, uint32_t port, uint32_t index,
		   uint16_t *pkey)
{
	struct xib_uverbs_query_pkey q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.port_num = port;
	q.index = index;
	ret = xcmd(ctx->fd, XIB_UVERBS_QUERY_PKEY, &q);
	if (!ret)
		*pkey = q.pkey;
	return ret;
}

int xib_read_async_event(struct xib_context *ctx, struct xib_uverbs_async_event *ev)
{
	ssize_t n = read(ctx->async_fd, ev, sizeof(*ev));

	if (n < 0)
		return -errno;
	return n == sizeof(*ev) ? 0 : -EPROTO;
}

/*
 * A queue's lock, unless its owner said that one thread alone uses it
 * (xib_qp_set_single_threaded(), xib_cq_set_single_threaded()).
 */
static void wq_lock(struct xib_wq *wq)
{
	if (!wq->single_threaded)
		pthread_spin_lock(&wq->lock);
}

static void wq_unlock(struct xib_wq *wq)
{
	if (!wq->single_threaded)
		pthread_spin_unlock(&wq->lock);
}

static void cq_lock(struct xib_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static void cq_unlock(struct xib_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

/* --- PD, MR, AH --------------------------------------------------------- */

int xib_alloc_pd(struct xib_context *ctx, struct xib_pd **out)
{
	struct xib_uverbs_alloc_pd a;
	struct xib_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	memset(&a, 0, sizeof(a));
	ret = xcmd(ctx->fd, XIB_UVERBS_ALLOC_PD, &a);
	if (ret) {
		free(pd);
		return ret;
	}
	pd->ctx = ctx;
	pd->handle = a.pd_handle;
	pd->pdn = a.pdn;
	*out = pd;
	return 0;
}

static int destroy_simple(struct xib_context *ctx, unsigned long cmd, uint32_t handle)
{
	struct xib_uverbs_destroy d = { .handle = handle };

	return xcmd(ctx->fd, cmd, &d);
}

int xib_dealloc_pd(struct xib_pd *pd)
{
	int ret = destroy_simple(pd->ctx, XIB_UVERBS_DEALLOC_PD, pd->handle);

	if (!ret)
		free(pd);
	return ret;
}

int xib_reg_mr_iova(struct xib_pd *pd, void *addr, uint64_t length, uint64_t iova,
		    uint32_t access, struct xib_mr **out)
{
	struct xib_uverbs_reg_mr r;
	struct xib_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	memset(&r, 0, sizeof(r));
	r.addr = (uintptr_t)addr;
	r.length = length;
	r.iova = iova;
	r.pd_handle = pd->handle;
	r.access = access;
	ret = xcmd(pd->ctx->fd, XIB_UVERBS_REG_MR, &r);
	if (ret) {
		free(mr);
		return ret;
	}
	mr->pd = pd;
	mr->handle = r.mr_handle;
	mr->lkey = r.lkey;
	mr->rkey = r.rkey;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->access = access;
	*out = mr;
	return 0;
}

int xib_reg_mr(struct xib_pd *pd, void *addr, uint64_t length, uint32_t access,
	       struct xib_mr **out)
{
	uint64_t iova = (access & XIB_ACCESS_ZERO_BASED) ? 0 : (uintptr_t)addr;

	return xib_reg_mr_iova(pd, addr, length, iova, access, out);
}

int xib_rereg_mr(struct xib_mr *mr, uint32_t flags, struct xib_pd *pd, void *addr,
		 uint64_t length, uint64_t iova, uint32_t access)
{
	struct xib_uverbs_rereg_mr r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.mr_handle = mr->handle;
	r.flags = flags;
	if (flags & XIB_REREG_MR_CHANGE_TRANSLATION) {
		r.addr = (uintptr_t)addr;
		r.length = length;
		r.iova = iova;
	}
	if (flags & XIB_REREG_MR_CHANGE_PD) {
		if (!pd || pd->ctx != mr->pd->ctx)
			return -EINVAL;
		r.pd_handle = pd->handle;
	}
	if (flags & XIB_REREG_MR_CHANGE_ACCESS)
		r.access = access;
	ret = xcmd(mr->pd->ctx->fd, XIB_UVERBS_REREG_MR, &r);
	if (ret)
		return ret;
	if (flags & XIB_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
		mr->iova = iova;
	}
	if (flags & XIB_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & XIB_REREG_MR_CHANGE_ACCESS)
		mr->access = access;
	mr->lkey = r.lkey;
	mr->rkey = r.rkey;
	return 0;
}

int xib_dereg_mr(struct xib_mr *mr)
{
	int ret = destroy_simple(mr->pd->ctx, XIB_UVERBS_DEREG_MR, mr->handle);

	if (!ret)
		free(mr);
	return ret;
}

int xib_alloc_mw(struct xib_pd *pd, uint32_t type, struct xib_mw **out)
{
	struct xib_uverbs_alloc_mw c;
	struct xib_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.pd_handle = pd->handle;
	c.type = type;
	ret = xcmd(pd->ctx->fd, XIB_UVERBS_ALLOC_MW, &c);
	if (ret) {
		free(mw);
		return ret;
	}
	mw->pd = pd;
	mw->handle = c.mw_handle;
	mw->rkey = c.rkey;
	mw->type = type;
	*out = mw;
	return 0;
}

int xib_dealloc_mw(struct xib_mw *mw)
{
	int ret = destroy_simple(mw->pd->ctx, XIB_UVERBS_DEALLOC_MW, mw->handle);

	if (!ret)
		free(mw);
	return ret;
}

int xib_create_ah(struct xib_pd *pd, const struct xib_uverbs_ah_attr *attr,
		  struct xib_ah **out)
{
	struct xib_uverbs_create_ah c;
	struct xib_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.user_handle = (uintptr_t)ah;
	c.pd_handle = pd->handle;
	c.attr = *attr;
	ret = xcmd(pd->ctx->fd, XIB_UVERBS_CREATE_AH, &c);
	if (ret) {
		free(ah);
		return ret;
	}
	ah->pd = pd;
	ah->handle = c.ah_handle;
	ah->ahn = c.ahn;
	*out = ah;
	return 0;
}

int xib_destroy_ah(struct xib_ah *ah)
{
	int ret = destroy_simple(ah->pd->ctx, XIB_UVERBS_DESTROY_AH, ah->handle);

	if (!ret)
		free(ah);
	return ret;
}

/* --- kicks of a RUNNING engine that is off the CPU ----------------------- */

/*
 * Wake the engine for @handle's send queue: by the UAR's doorbell
 * register if the context has one (one uncached store, which the
 * barrier after the publication of prod already orders; the engine then
 * looks at every send queue), else by XIB_UVERBS_KICK.
 */
static void kick_handle(struct xib_context *ctx, uint32_t handle)
{
	if (ctx->uar_db) {
		stat_add(&stats.uar_doorbells, 1);
		*ctx->uar_db = ctx->uar_value;
		return;
	}
	stat_add(&stats.kicks, 1);
	destroy_simple(ctx, XIB_UVERBS_KICK, handle);
}

/* Posts that kick at once after the engine was found starved. */
#define XIB_EAGER_POSTS 64

/*
 * @qp's send queue was published while the engine was RUNNING.  Remember
 * it, and the engine's pass count, so that xib_poll_cq() can kick it if
 * the engine turns out to be off the CPU.  Returns true if the caller
 * should kick now instead: the engine was found starved a moment ago, or
 * there is no room to remember the QP.
 */
static bool stale_note(struct xib_context *ctx, struct xib_qp *qp)
{
	uint32_t passes = __atomic_load_n(&ctx->db->passes, __ATOMIC_RELAXED);
	bool kick = false;
	uint32_t i;

	pthread_spin_lock(&ctx->stale_lock);
	if (ctx->eager_posts) {
		ctx->eager_posts--;
		kick = true;
		goto out;
	}
	for (i = 0; i < ctx->nstale; i++)
		if (ctx->stale_qp[i] == qp->handle)
			break;
	if (i == ctx->nstale) {
		if (i == ARRAY_SIZE(ctx->stale_qp)) {
			kick = true;
			goto out;
		}
		ctx->stale_qp[i] = qp->handle;
		__atomic_store_n(&ctx->nstale, i + 1, __ATOMIC_RELAXED);
	}
	if (i == 0) {
		ctx->note_beats = __atomic_load_n(&ctx->db->beats, __ATOMIC_RELAXED);
		ctx->last_beats = ctx->note_beats;
		ctx->stale_polls = 0;
	}
	ctx->new_passes = passes;
out:
	pthread_spin_unlock(&ctx->stale_lock);
	return kick;
}

/*
 * From xib_poll_cq() when the CQ is empty: forget the remembered send
 * queues once the engine has surely seen them (a whole pass began after
 * the newest publication, or it went to sleep, which it does only after
 * a last look at every queue), and kick them if the engine has made no
 * step (beats) for stale_after_polls empty polls: it is off the CPU.  If
 * it made no step at all since the oldest note it is starved: the next
 * XIB_EAGER_POSTS posts kick at once.
 */
static void stale_check(struct xib_context *ctx)
{
	uint32_t handles[ARRAY_SIZE(ctx->stale_qp)];
	uint32_t passes, beats, n = 0, i;

	if (!__atomic_load_n(&ctx->nstale, __ATOMIC_RELAXED) ||
	    pthread_spin_trylock(&ctx->stale_lock))
		return;
	if (!ctx->nstale)
		goto out;
	passes = __atomic_load_n(&ctx->db->passes, __ATOMIC_RELAXED);
	if (passes - ctx->new_passes >= 2 ||
	    __atomic_load_n(&ctx->db->engine_state, __ATOMIC_RELAXED) ==
	    XIB_HCA_ENGINE_SLEEPING) {
		__atomic_store_n(&ctx->nstale, 0, __ATOMIC_RELAXED);
		goto out;
	}
	beats = __atomic_load_n(&ctx->db->beats, __ATOMIC_RELAXED);
	if (beats != ctx->last_beats) {
		/* On a CPU and working through the QPs: it will get there. */
		ctx->last_beats = beats;
		ctx->stale_polls = 0;
		goto out;
	}
	if (++ctx->stale_polls < ctx->stale_after_polls)
		goto out;
	if (beats == ctx->note_beats)
		ctx->eager_posts = XIB_EAGER_POSTS;
	n = ctx->nstale;
	memcpy(handles, ctx->stale_qp, n * sizeof(handles[0]));
	__atomic_store_n(&ctx->nstale, 0, __ATOMIC_RELAXED);
out:
	pthread_spin_unlock(&ctx->stale_lock);
	for (i = 0; i < n; i++)
		kick_handle(ctx, handles[i]);
}

/* A destroyed QP's handle may be reused: it must not be kicked later. */
static void stale_forget(struct xib_context *ctx, uint32_t handle)
{
	uint32_t i;

	pthread_spin_lock(&ctx->stale_lock);
	for (i = 0; i < ctx->nstale; i++) {
		if (ctx->stale_qp[i] != handle)
			continue;
		ctx->stale_qp[i] = ctx->stale_qp[ctx->nstale - 1];
		__atomic_store_n(&ctx->nstale, ctx->nstale - 1, __ATOMIC_RELAXED);
		break;
	}
	pthread_spin_unlock(&ctx->stale_lock);
}

/* --- completion channels and CQs ---------------------------------------- */

int xib_create_comp_channel(struct xib_context *ctx, struct xib_comp_channel **out)
{
	struct xib_uverbs_create_comp_channel c;
	struct xib_comp_channel *ch;
	int ret;

	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	ret = xcmd(ctx->fd, XIB_UVERBS_CREATE_COMP_CHANNEL, &c);
	if (ret) {
		free(ch);
		return ret;
	}
	ch->ctx = ctx;
	ch->fd = c.fd;
	*out = ch;
	return 0;
}

int xib_destroy_comp_channel(struct xib_comp_channel *ch)
{
	close(ch->fd);
	free(ch);
	return 0;
}

int xib_get_cq_event(struct xib_comp_channel *ch, uint64_t *user_handle)
{
	struct xib_uverbs_comp_event ev;
	ssize_t n = read(ch->fd, &ev, sizeof(ev));

	if (n < 0)
		return -errno;
	if (n != sizeof(ev))
		return -EPROTO;
	*user_handle = ev.cq_user_handle;
	return 0;
}

int xib_create_cq(struct xib_context *ctx, uint32_t cqe, uint64_t user_handle,
		  struct xib_comp_channel *ch, uint32_t comp_vector, struct xib_cq **out)
{
	struct xib_uverbs_create_cq c;
	struct xib_uverbs_destroy_events d;
	struct xib_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.user_handle = user_handle;
	c.cqe = cqe;
	c.comp_vector = comp_vector;
	c.comp_channel = ch ? ch->fd : -1;
	ret = xcmd(ctx->fd, XIB_UVERBS_CREATE_CQ, &c);
	if (ret)
		goto err_free;
	ret = ring_map(ctx, &c.ring, &cq->ring);
	if (!ret && !cq->ring.map)
		ret = -EPROTO;
	if (ret)
		goto err_destroy;
	if (cq->ring.stride < sizeof(struct xib_hca_cqe)) {
		lib_debug("CQE stride %u", cq->ring.stride);
		ret = -EPROTO;
		goto err_unmap;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->ctx = ctx;
	cq->user_handle = user_handle;
	cq->handle = c.cq_handle;
	cq->cqn = c.cqn;
	cq->cqe = c.ring.slots;
	cq->hdr = cq->ring.map;
	cq->cons = cq->hdr->cons;
	cq->arm = cq->hdr->arm;
	*out = cq;
	return 0;

err_unmap:
	ring_unmap(&cq->ring);
err_destroy:
	memset(&d, 0, sizeof(d));
	d.handle = c.cq_handle;
	xcmd(ctx->fd, XIB_UVERBS_DESTROY_CQ, &d);
err_free:
	free(cq);
	return ret;
}

int xib_destroy_cq_events(struct xib_cq *cq, uint32_t *comp_events,
			  uint32_t *async_events)
{
	struct xib_uverbs_destroy_events d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.handle = cq->handle;
	ret = xcmd(cq->ctx->fd, XIB_UVERBS_DESTROY_CQ, &d);
	if (ret)
		return ret;
	if (comp_events)
		*comp_events = d.comp_events_reported;
	if (async_events)
		*async_events = d.async_events_reported;
	ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

int xib_destroy_cq(struct xib_cq *cq)
{
	return xib_destroy_cq_events(cq, NULL, NULL);
}

int xib_resize_cq(struct xib_cq *cq, uint32_t cqe)
{
	struct xib_uverbs_resize_cq r;
	struct xib_ring nring;
	int ret;

	memset(&r, 0, sizeof(r));
	r.cq_handle = cq->handle;
	r.cqe = cqe;
	/* Nobody polls while the kernel moves the unpolled CQEs. */
	cq_lock(cq);
	/*
	 * The manual: cqe must be at least the number of unpolled CQEs.
	 * The kernel refuses what does not fit the new ring, which is
	 * rounded up; this refuses what is below the request, of the CQEs
	 * written so far (more may come; those the kernel checks).
	 */
	if (xib_load_acquire(&cq->hdr->prod) - cq->cons > cqe) {
		ret = -EINVAL;
		goto out;
	}
	ret = xcmd(cq->ctx->fd, XIB_UVERBS_RESIZE_CQ, &r);
	if (ret)
		goto out;
	ret = ring_map(cq->ctx, &r.ring, &nring);
	if (!ret && (!nring.map || nring.stride < sizeof(struct xib_hca_cqe))) {
		ring_unmap(&nring);
		ret = -EPROTO;
	}
	if (ret) {
		/* The old ring is gone; the CQ is unusable: say so. */
		lib_debug("RESIZE_CQ: cannot map the new ring (%d)", ret);
		goto out;
	}
	ring_unmap(&cq->ring);
	cq->ring = nring;
	cq->hdr = nring.map;
	cq->cqe = nring.slots;
	cq->cons = cq->hdr->cons;
	cq->arm = cq->hdr->arm;
out:
	cq_unlock(cq);
	return ret;
}

int xib_poll_cq(struct xib_cq *cq, int num, xib_wc *wc)
{
	uint32_t prod, avail, i;
	int ret;

	if (num < 0)
		return -EINVAL;
	cq_lock(cq);
	prod = xib_load_acquire(&cq->hdr->prod);
	avail = prod - cq->cons;
	if (avail > cq->ring.slots) {
		ret = -EIO;	/* the HCA never does this */
		goto out;
	}
	if (avail > (uint32_t)num)
		avail = num;
	for (i = 0; i < avail; i++)
		memcpy(&wc[i], xib_ring_slot(&cq->ring, cq->cons + i), sizeof(*wc));
	if (avail) {
		cq->cons += avail;
		xib_store_release(&cq->hdr->cons, cq->cons);
	}
	ret = avail;
out:
	cq_unlock(cq);
	if (!ret)
		stale_check(cq->ctx);
	return ret;
}

int xib_req_notify_cq(struct xib_cq *cq, int solicited_only)
{
	cq_lock(cq);
	cq->arm = ((cq->arm & ~3u) + (1u << XIB_HCA_CQ_ARM_SN_SHIFT)) |
		  (solicited_only ? XIB_HCA_CQ_ARM_SOLICITED : XIB_HCA_CQ_ARM_NEXT);
	xib_store_release(&cq->hdr->arm, cq->arm);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cq_unlock(cq);
	return 0;
}

void xib_cq_set_single_threaded(struct xib_cq *cq)
{
	cq->single_threaded = 1;
}

int xib_cq_overflowed(struct xib_cq *cq)
{
	return !!(xib_load_acquire(&cq->hdr->flags) & XIB_HCA_CQ_F_OVERFLOW);
}

/* --- SRQs and QPs ------------------------------------------------------- */

static int wq_init(struct xib_context *ctx, const struct xib_uverbs_ring *d,
		   struct xib_wq *wq, uint32_t max_sge)
{
	int ret = ring_map(ctx, d, &wq->ring);

	if (ret)
		return ret;
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	wq->max_sge = max_sge;
	if (wq->ring.map) {
		wq->hdr = wq->ring.map;
		wq->prod = wq->hdr->prod;
	}
	return 0;
}

static void wq_fini(struct xib_wq *wq)
{
	ring_unmap(&wq->ring);
	pthread_spin_destroy(&wq->lock);
}

int xib_open_xrcd(struct xib_context *ctx, int fd, uint32_t oflags, struct xib_xrcd **out)
{
	struct xib_uverbs_open_xrcd o;
	struct xib_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return -ENOMEM;
	memset(&o, 0, sizeof(o));
	o.fd = fd;
	o.oflags = oflags;
	ret = xcmd(ctx->fd, XIB_UVERBS_OPEN_XRCD, &o);
	if (ret) {
		free(xrcd);
		return ret;
	}
	xrcd->ctx = ctx;
	xrcd->handle = o.xrcd_handle;
	xrcd->xrcdn = o.xrcdn;
	*out = xrcd;
	return 0;
}

int xib_close_xrcd(struct xib_xrcd *xrcd)
{
	int ret = destroy_simple(xrcd->ctx, XIB_UVERBS_CLOSE_XRCD, xrcd->handle);

	if (!ret)
		free(xrcd);
	return ret;
}

/* CREATE_SRQ (no domain) or CREATE_XSRQ (XRC), then map the ring. */
static int create_srq(struct xib_pd *pd, struct xib_xrcd *xrcd, struct xib_cq *cq,
		      uint32_t max_wr, uint32_t max_sge, uint32_t srq_limit,
		      uint64_t user_handle, struct xib_srq **out)
{
	struct xib_uverbs_create_srq c;
	struct xib_uverbs_create_xsrq x;
	struct xib_uverbs_destroy_events d;
	struct xib_uverbs_ring *ring;
	struct xib_srq *srq;
	uint32_t handle;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return -ENOMEM;
	if (xrcd) {
		memset(&x, 0, sizeof(x));
		x.user_handle = user_handle;
		x.srq_type = XIB_SRQT_XRC;
		x.pd_handle = pd->handle;
		x.xrcd_handle = xrcd->handle;
		x.cq_handle = cq->handle;
		x.max_wr = max_wr;
		x.max_sge = max_sge;
		x.srq_limit = srq_limit;
		ret = xcmd(pd->ctx->fd, XIB_UVERBS_CREATE_XSRQ, &x);
		if (ret)
			goto err_free;
		ring = &x.ring;
		handle = x.srq_handle;
		srq->srqn = x.srqn;
		srq->max_wr = x.max_wr;
		max_sge = x.max_sge;
		srq->srq_type = XIB_SRQT_XRC;
	} else {
		memset(&c, 0, sizeof(c));
		c.user_handle = user_handle;
		c.pd_handle = pd->handle;
		c.max_wr = max_wr;
		c.max_sge = max_sge;
		c.srq_limit = srq_limit;
		ret = xcmd(pd->ctx->fd, XIB_UVERBS_CREATE_SRQ, &c);
		if (ret)
			goto err_free;
		ring = &c.ring;
		handle = c.srq_handle;
		srq->srqn = c.srqn;
		srq->max_wr = c.max_wr;
		max_sge = c.max_sge;
	}
	ret = wq_init(pd->ctx, ring, &srq->rq, max_sge);
	if (!ret && !srq->rq.ring.map) {
		wq_fini(&srq->rq);
		ret = -EPROTO;
	}
	if (ret)
		goto err_destroy;
	srq->pd = pd;
	srq->user_handle = user_handle;
	srq->handle = handle;
	srq->srq_limit = srq_limit;
	*out = srq;
	return 0;

err_destroy:
	memset(&d, 0, sizeof(d));
	d.handle = handle;
	xcmd(pd->ctx->fd, XIB_UVERBS_DESTROY_SRQ, &d);
err_free:
	free(srq);
	return ret;
}

int xib_create_srq(struct xib_pd *pd, uint32_t max_wr, uint32_t max_sge,
		   uint32_t srq_limit, uint64_t user_handle, struct xib_srq **out)
{
	return create_srq(pd, NULL, NULL, max_wr, max_sge, srq_limit, user_handle, out);
}

int xib_create_xrc_srq(struct xib_pd *pd, struct xib_xrcd *xrcd, struct xib_cq *cq,
		       uint32_t max_wr, uint32_t max_sge, uint32_t srq_limit,
		       uint64_t user_handle, struct xib_srq **out)
{
	if (!xrcd || !cq)
		return -EINVAL;
	return create_srq(pd, xrcd, cq, max_wr, max_sge, srq_limit, user_handle, out);
}

static int srq_set_limit(struct xib_srq *srq, uint32_t srq_limit)
{
	struct xib_uverbs_modify_srq m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.srq_handle = srq->handle;
	m.attr_mask = XIB_SRQ_LIMIT;
	m.srq_limit = srq_limit;
	ret = xcmd(srq->pd->ctx->fd, XIB_UVERBS_MODIFY_SRQ, &m);
	if (!ret)
		srq->srq_limit = srq_limit;
	return ret;
}

/*
 * RESIZE_SRQ: the kernel moves the posted WQEs it has not taken to a new
 * ring.  Nobody posts meanwhile (the queue's lock).
 */
static int srq_resize(struct xib_srq *srq, uint32_t max_wr)
{
	struct xib_uverbs_resize_srq r;
	struct xib_wq *wq = &srq->rq;
	struct xib_ring nring;
	int ret;

	memset(&r, 0, sizeof(r));
	r.srq_handle = srq->handle;
	r.max_wr = max_wr;
	wq_lock(wq);
	/*
	 * The manual: not below the outstanding WRs.  The kernel refuses
	 * what does not fit the rounded-up ring; this refuses what is below
	 * the request, of the WQEs it has not taken so far.
	 */
	if (wq->prod - xib_load_acquire(&wq->hdr->cons) > max_wr) {
		ret = -EINVAL;
		goto out;
	}
	ret = xcmd(srq->pd->ctx->fd, XIB_UVERBS_RESIZE_SRQ, &r);
	if (ret == -ENOTTY)
		ret = -EOPNOTSUPP;	/* a kernel without the command */
	if (ret)
		goto out;
	ret = ring_map(srq->pd->ctx, &r.ring, &nring);
	if (!ret && (!nring.map || nring.stride != wq->ring.stride)) {
		ring_unmap(&nring);
		ret = -EPROTO;
	}
	if (ret) {
		/* The old ring is no longer read; the SRQ is unusable: say so. */
		lib_debug("RESIZE_SRQ: cannot map the new ring (%d)", ret);
		goto out;
	}
	ring_unmap(&wq->ring);
	wq->ring = nring;
	wq->hdr = nring.map;
	wq->prod = wq->hdr->prod;
	srq->max_wr = r.max_wr;
out:
	wq_unlock(wq);
	return ret;
}

/*
 * Both attributes or neither (ibv_modify_srq(3)): a limit above the new
 * size is refused first; the limit is set first when the current size
 * allows it (so that shrinking below the old limit works), and put back
 * if the resize then fails.
 */
int xib_modify_srq(struct xib_srq *srq, uint32_t attr_mask, uint32_t max_wr,
		   uint32_t srq_limit)
{
	uint32_t old_limit = srq->srq_limit;
	int ret;

	if (attr_mask & ~(uint32_t)(XIB_SRQ_MAX_WR | XIB_SRQ_LIMIT))
		return -EINVAL;
	if (!(attr_mask & XIB_SRQ_MAX_WR))
		return (attr_mask & XIB_SRQ_LIMIT) ? srq_set_limit(srq, srq_limit) : 0;
	if (!(attr_mask & XIB_SRQ_LIMIT))
		return srq_resize(srq, max_wr);
	if (srq_limit > max_wr)
		return -EINVAL;
	if (srq_limit > srq->max_wr) {
		ret = srq_resize(srq, max_wr);
		return ret ? ret : srq_set_limit(srq, srq_limit);
	}
	ret = srq_set_limit(srq, srq_limit);
	if (ret)
		return ret;
	ret = srq_resize(srq, max_wr);
	if (ret && old_limit <= srq->max_wr)
		srq_set_limit(srq, old_limit);
	return ret;
}

int xib_query_srq(struct xib_srq *srq, uint32_t *max_wr, uint32_t *max_sge,
		  uint32_t *srq_limit)
{
	struct xib_uverbs_query_srq q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.srq_handle = srq->handle;
	ret = xcmd(srq->pd->ctx->fd, XIB_UVERBS_QUERY_SRQ, &q);
	if (ret)
		return ret;
	*max_wr = q.max_wr;
	*max_sge = q.max_sge;
	*srq_limit = q.srq_limit;
	return 0;
}

int xib_destroy_srq_events(struct xib_srq *srq, uint32_t *async_events)
{
	struct xib_uverbs_destroy_events d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.handle = srq->handle;
	ret = xcmd(srq->pd->ctx->fd, XIB_UVERBS_DESTROY_SRQ, &d);
	if (ret)
		return ret;
	if (async_events)
		*async_events = d.async_events_reported;
	wq_fini(&srq->rq);
	free(srq);
	return 0;
}

int xib_destroy_srq(struct xib_srq *srq)
{
	return xib_destroy_srq_events(srq, NULL);
}

int xib_create_qp(struct xib_pd *pd, const struct xib_qp_init_attr *init,
		  struct xib_qp **out)
{
	struct xib_uverbs_create_qp c;
	struct xib_uverbs_destroy_events d;
	struct xib_context *ctx = pd->ctx;
	struct xib_qp *qp;
	int ret;

	/* an XRC initiator has no receive side */
	if (!init->send_cq ||
	    (init->qp_type == XIB_QPT_XRC_SEND) != !init->recv_cq)
		return -EINVAL;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	memset(&c, 0, sizeof(c));
	c.user_handle = init->user_handle;
	c.pd_handle = pd->handle;
	c.send_cq_handle = init->send_cq->handle;
	c.recv_cq_handle = init->recv_cq ? init->recv_cq->handle : XIB_UVERBS_NO_HANDLE;
	c.srq_handle = init->srq ? init->srq->handle : XIB_UVERBS_NO_HANDLE;
	c.qp_type = init->qp_type;
	c.sq_sig_all = !!init->sq_sig_all;
	c.cap = init->cap;
	ret = xcmd(ctx->fd, XIB_UVERBS_CREATE_QP, &c);
	if (ret)
		goto err_free;
	ret = wq_init(ctx, &c.sq, &qp->sq, c.cap.max_send_sge);
	if (!ret && (!qp->sq.ring.map ||
		     qp->sq.ring.stride < sizeof(struct xib_hca_send_wqe))) {
		wq_fini(&qp->sq);
		ret = -EPROTO;
	}
	if (ret)
		goto err_destroy;
	ret = wq_init(ctx, &c.rq, &qp->rq, c.cap.max_recv_sge);
	if (ret)
		goto err_sq;
	qp->ctx = ctx;
	qp->pd = pd;
	qp->send_cq = init->send_cq;
	qp->recv_cq = init->recv_cq;
	qp->srq = init->srq;
	qp->user_handle = init->user_handle;
	qp->handle = c.qp_handle;
	qp->qpn = c.qpn;
	qp->qp_type = init->qp_type;
	qp->state = XIB_QPS_RESET;
	qp->sq_sig_all = c.sq_sig_all;
	qp->cap = c.cap;
	*out = qp;
	return 0;

err_sq:
	wq_fini(&qp->sq);
err_destroy:
	memset(&d, 0, sizeof(d));
	d.handle = c.qp_handle;
	xcmd(ctx->fd, XIB_UVERBS_DESTROY_QP, &d);
err_free:
	free(qp);
	return ret;
}

/* The part of an XRC target's creation and opening that is the same. */
static int xrc_tgt_qp_new(struct xib_xrcd *xrcd, uint32_t handle, uint32_t qpn,
			  uint64_t user_handle, struct xib_qp **out)
{
	struct xib_qp *qp = calloc(1, sizeof(*qp));

	if (!qp) {
		destroy_simple(xrcd->ctx, XIB_UVERBS_DESTROY_QP, handle);
		return -ENOMEM;
	}
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->ctx = xrcd->ctx;
	qp->user_handle = user_handle;
	qp->handle = handle;
	qp->qpn = qpn;
	qp->qp_type = XIB_QPT_XRC_RECV;
	qp->state = XIB_QPS_RESET;
	*out = qp;
	return 0;
}

int xib_create_xrc_tgt_qp(struct xib_xrcd *xrcd, uint64_t user_handle, struct xib_qp **out)
{
	struct xib_uverbs_create_qp c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.user_handle = user_handle;
	c.pd_handle = xrcd->handle;	/* a target names its domain here */
	c.send_cq_handle = XIB_UVERBS_NO_HANDLE;
	c.recv_cq_handle = XIB_UVERBS_NO_HANDLE;
	c.srq_handle = XIB_UVERBS_NO_HANDLE;
	c.qp_type = XIB_QPT_XRC_RECV;
	ret = xcmd(xrcd->ctx->fd, XIB_UVERBS_CREATE_QP, &c);
	if (ret)
		return ret;
	return xrc_tgt_qp_new(xrcd, c.qp_handle, c.qpn, user_handle, out);
}

int xib_open_qp(struct xib_xrcd *xrcd, uint32_t qpn, uint64_t user_handle, struct xib_qp **out)
{
	struct xib_uverbs_open_qp o;
	int ret;

	memset(&o, 0, sizeof(o));
	o.user_handle = user_handle;
	o.xrcd_handle = xrcd->handle;
	o.qpn = qpn;
	o.qp_type = XIB_QPT_XRC_RECV;
	ret = xcmd(xrcd->ctx->fd, XIB_UVERBS_OPEN_QP, &o);
	if (ret)
		return ret;
	return xrc_tgt_qp_new(xrcd, o.qp_handle, qpn, user_handle, out);
}

int xib_modify_qp(struct xib_qp *qp, const struct xib_uverbs_qp_attr *attr,
		  uint32_t attr_mask)
{
	struct xib_uverbs_modify_qp m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.qp_handle = qp->handle;
	m.attr_mask = attr_mask;
	m.attr = *attr;
	ret = xcmd(qp->ctx->fd, XIB_UVERBS_MODIFY_QP, &m);
	if (!ret && (attr_mask & XIB_QP_STATE)) {
		wq_lock(&qp->sq);
		wq_lock(&qp->rq);
		__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELAXED);
		wq_unlock(&qp->rq);
		wq_unlock(&qp->sq);
	}
	return ret;
}

void xib_qp_set_single_threaded(struct xib_qp *qp)
{
	qp->sq.single_threaded = 1;
	qp->rq.single_threaded = 1;
}

int xib_query_qp(struct xib_qp *qp, struct xib_uverbs_query_qp *out)
{
	memset(out, 0, sizeof(*out));
	out->qp_handle = qp->handle;
	return xcmd(qp->ctx->fd, XIB_UVERBS_QUERY_QP, out);
}

int xib_destroy_qp_events(struct xib_qp *qp, uint32_t *async_events)
{
	struct xib_uverbs_destroy_events d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.handle = qp->handle;
	ret = xcmd(qp->ctx->fd, XIB_UVERBS_DESTROY_QP, &d);
	if (ret)
		return ret;
	if (async_events)
		*async_events = d.async_events_reported;
	stale_forget(qp->ctx, qp->handle);
	wq_fini(&qp->sq);
	wq_fini(&qp->rq);
	free(qp);
	return 0;
}

int xib_destroy_qp(struct xib_qp *qp)
{
	return xib_destroy_qp_events(qp, NULL);
}

int xib_mcast(struct xib_qp *qp, const uint8_t gid[16], uint16_t mlid, int attach)
{
	struct xib_uverbs_mcast m = { .qp_handle = qp->handle, .mlid = mlid };

	memcpy(m.gid, gid, sizeof(m.gid));
	return xcmd(qp->ctx->fd, attach ? XIB_UVERBS_ATTACH_MCAST : XIB_UVERBS_DETACH_MCAST,
		    &m);
}

/* --- data path ---------------------------------------------------------- */

int xib_kick(struct xib_qp *qp)
{
	stat_add(&stats.kicks, 1);
	return destroy_simple(qp->ctx, XIB_UVERBS_KICK, qp->handle);
}

/* Can the producer at @prod write another slot?  cons is the HCA's. */
static int wq_full(struct xib_wq *wq)
{
	uint32_t cons = xib_load_acquire(&wq->hdr->cons);

	return wq->prod - cons >= wq->ring.slots;
}

/* Write one send WR into slot wq->prod; 0 or a positive errno. */
static int write_send_wqe(struct xib_qp *qp, const struct xib_send_wr *wr)
{
	struct xib_hca_send_wqe *wqe;
	uint32_t inline_len = 0;
	int i;

	if (wr->num_sge < 0)
		return EINVAL;
	if (wr->send_flags & XIB_HCA_SEND_INLINE) {
		if (wr->opcode == XIB_HCA_WR_RDMA_READ ||
		    wr->opcode == XIB_HCA_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == XIB_HCA_WR_ATOMIC_FETCH_AND_ADD)
			return EINVAL;
		uint32_t max = qp->cap.max_inline_data;

		if (max > qp->sq.ring.stride - sizeof(*wqe))
			max = qp->sq.ring.stride - sizeof(*wqe);
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > max - inline_len)
				return EINVAL;
			inline_len += wr->sg_list[i].length;
		}
	} else if ((uint32_t)wr->num_sge > qp->sq.max_sge) {
		return EINVAL;
	}
	if (qp->qp_type == XIB_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	/* local operations carry no data; bind access is 16 bits wide */
	if ((wr->opcode == XIB_HCA_WR_BIND_MW || wr->opcode == XIB_HCA_WR_LOCAL_INV) &&
	    (wr->num_sge || (wr->send_flags & XIB_HCA_SEND_INLINE)))
		return EINVAL;
	if (wr->opcode == XIB_HCA_WR_BIND_MW &&
	    (wr->wr.bind.access > 0xffff || wr->wr.bind.flags > 0xffff))
		return EINVAL;
	if (wq_full(&qp->sq))
		return ENOMEM;

	wqe = xib_ring_slot(&qp->sq.ring, qp->sq.prod);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->flags = wr->send_flags;
	wqe->imm_data = wr->imm_data;
	switch (wr->opcode) {
	case XIB_HCA_WR_RDMA_WRITE:
	case XIB_HCA_WR_RDMA_WRITE_WITH_IMM:
	case XIB_HCA_WR_RDMA_READ:
		wqe->rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->rdma.rkey = wr->wr.rdma.rkey;
		break;
	case XIB_HCA_WR_ATOMIC_CMP_AND_SWP:
	case XIB_HCA_WR_ATOMIC_FETCH_AND_ADD:
		wqe->atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->atomic.swap = wr->wr.atomic.swap;
		wqe->atomic.rkey = wr->wr.atomic.rkey;
		break;
	case XIB_HCA_WR_BIND_MW:
		wqe->bind.addr = wr->wr.bind.addr;
		wqe->bind.length = wr->wr.bind.length;
		wqe->bind.mw_rkey = wr->wr.bind.mw_rkey;
		wqe->bind.new_rkey = wr->wr.bind.new_rkey;
		wqe->bind.mr_lkey = wr->wr.bind.mr_lkey;
		wqe->bind.access = (uint16_t)wr->wr.bind.access;
		wqe->bind.flags = (uint16_t)wr->wr.bind.flags;
		break;
	case XIB_HCA_WR_LOCAL_INV:
		break;
	default:
		if (qp->qp_type == XIB_QPT_UD) {
			wqe->ud.ahn = wr->wr.ud.ah->ahn;
			wqe->ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe->ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}
	wqe->xrc_srqn = qp->qp_type == XIB_QPT_XRC_SEND ? wr->xrc_remote_srqn : 0;
	if (wr->send_flags & XIB_HCA_SEND_INLINE) {
		uint8_t *p = (uint8_t *)(wqe + 1);

		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->inline_len = inline_len;
		wqe->num_sge = 0;
	} else {
		memcpy(wqe + 1, wr->sg_list, sizeof(struct xib_hca_sge) * wr->num_sge);
		wqe->num_sge = wr->num_sge;
	}
	qp->sq.prod++;
	return 0;
}

int xib_sq_begin(struct xib_qp *qp)
{
	wq_lock(&qp->sq);
	/* RESET, INIT, RTR: refused; SQD queues, SQE and ERR flush. */
	if (qp->state < XIB_QPS_RTS) {
		wq_unlock(&qp->sq);
		return EINVAL;
	}
	/* an XRC target has no send queue */
	if (!qp->sq.ring.map) {
		wq_unlock(&qp->sq);
		return EINVAL;
	}
	qp->sq.begin_prod = qp->sq.prod;
	return 0;
}

int xib_sq_put(struct xib_qp *qp, const struct xib_send_wr *wr)
{
	return write_send_wqe(qp, wr);
}

void xib_sq_end(struct xib_qp *qp)
{
	struct xib_context *ctx = qp->ctx;

	if (qp->sq.prod != qp->sq.begin_prod) {
		stat_add(&stats.posted_send, qp->sq.prod - qp->sq.begin_prod);
		xib_store_release(&qp->sq.hdr->prod, qp->sq.prod);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&ctx->db->engine_state, __ATOMIC_RELAXED) ==
		    XIB_HCA_ENGINE_SLEEPING ||
		    (ctx->stale_after_polls && stale_note(ctx, qp)))
			kick_handle(ctx, qp->handle);
	}
	wq_unlock(&qp->sq);
}

void xib_sq_abort(struct xib_qp *qp)
{
	/* Nothing was published: the slots from begin_prod on are free. */
	qp->sq.prod = qp->sq.begin_prod;
	wq_unlock(&qp->sq);
}

int xib_post_send(struct xib_qp *qp, struct xib_send_wr *wr, struct xib_send_wr **bad_wr)
{
	int ret;

	ret = xib_sq_begin(qp);
	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	for (; wr; wr = wr->next) {
		ret = write_send_wqe(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	xib_sq_end(qp);
	return ret;
}

static int post_recv_wq(struct xib_wq *wq, struct xib_recv_wr *wr,
			struct xib_recv_wr **bad_wr)
{
	struct xib_hca_recv_wqe *wqe;
	uint32_t start = wq->prod;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
		    sizeof(*wqe) + sizeof(struct xib_hca_sge) * wr->num_sge >
		    wq->ring.stride) {
			ret = EINVAL;
			break;
		}
		if (wq_full(wq)) {
			ret = ENOMEM;
			break;
		}
		wqe = xib_ring_slot(&wq->ring, wq->prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		memcpy(wqe + 1, wr->sg_list, sizeof(struct xib_hca_sge) * wr->num_sge);
		wq->prod++;
	}
	if (ret)
		*bad_wr = wr;
	if (wq->prod != start)
		xib_store_release(&wq->hdr->prod, wq->prod);
	return ret;
}

int xib_post_recv(struct xib_qp *qp, struct xib_recv_wr *wr, struct xib_recv_wr **bad_wr)
{
	int ret;

	if (qp->srq || !qp->rq.ring.map) {
		*bad_wr = wr;
		return EINVAL;
	}
	wq_lock(&qp->rq);
	if (qp->state == XIB_QPS_RESET) {
		*bad_wr = wr;
		ret = EINVAL;
	} else {
		ret = post_recv_wq(&qp->rq, wr, bad_wr);
	}
	wq_unlock(&qp->rq);
	return ret;
}

int xib_post_srq_recv(struct xib_srq *srq, struct xib_recv_wr *wr,
		      struct xib_recv_wr **bad_wr)
{
	int ret;

	wq_lock(&srq->rq);
	ret = post_recv_wq(&srq->rq, wr, bad_wr);
	wq_unlock(&srq->rq);
	return ret;
}
