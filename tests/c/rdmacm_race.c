// SPDX-License-Identifier: BSD-2-Clause
/*
 * rdmacm_race: one thread reads and acknowledges the CM events while
 * another disconnects the same ids and destroys their QPs, as rdma-core
 * 44's cmtime client does, through xib's librdmacm.so.1 (run with
 * xib-run in the VM by tests/bats/rdmacm.bats).  The server is a thread
 * of this process on the same device: it accepts, and on DISCONNECTED
 * answers with rdma_disconnect and destroys its QP and id.
 *
 * usage: rdmacm_race ADDR PORT [CONNS [ROUNDS]]
 *
 * librdmacm moves an id's QP while it processes the id's events (RTR and
 * RTS on CONNECT_RESPONSE, the error state on DISCONNECTED) in whichever
 * thread reads them; rdma_destroy_qp may run meanwhile in another thread
 * (the application calls nothing else on the id), and the library must
 * then not use the QP it destroys.  This program defines ibv_modify_qp
 * and ibv_destroy_qp itself: librdmacm's calls reach these first (the
 * executable comes first in the symbol lookup) and they forward to
 * libibverbs'.  A check fails if a QP is destroyed while a move of it
 * is in flight (the destroy is then held until the move ends, so the
 * program reports instead of crashing) or if the library moves a NULL
 * QP.
 *
 * 1. The interleaving pinned, a few connections one at a time: the
 *    client disconnects; when the event thread, processing the
 *    DISCONNECTED, enters ibv_modify_qp(ERR) for that QP, the wrapper
 *    holds it there (up to a second) while the main thread calls
 *    rdma_destroy_qp.  A library that serializes the two has
 *    rdma_destroy_qp wait for the move; one that does not destroys the
 *    QP under it.
 * 2. cmtime's load: CONNS ids (default 20) resolved, connected,
 *    disconnected and their QPs destroyed at once, ROUNDS times
 *    (default 2), nothing held.
 *
 * Prints TAP; exits 1 if a check failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "tap.h"

#define WAIT_MS		60000	/* a step of every connection, over TCG */
#define PIN_MS		1000	/* how long a pinned move waits for a destroy */
#define ENTER_MS	15000	/* for the event thread to reach the pinned move */
#define PINNED		3	/* connections of part 1 */
#define MAX_CONNS	200


static void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void deadline(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* --- the wrappers ---------------------------------------------------------- */

/*
 * Everything below is under @wl: the QPs being moved (a QP may be in
 * @moving more than once), the pinned move's state and the violations.
 */
static pthread_mutex_t wl = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcond = PTHREAD_COND_INITIALIZER;
static struct ibv_qp *moving[64];
static struct ibv_qp *armed;		/* the QP whose ERR move is pinned */
static pthread_t ev_thread;		/* ... when the client's event thread makes it */
static int pinned_entered;
static struct ibv_qp *destroying;
static int moves, destroys_under_move, null_moves;

static int (*real_modify)(struct ibv_qp *, struct ibv_qp_attr *, int);
static int (*real_destroy)(struct ibv_qp *);

static int in_moving(struct ibv_qp *qp)
{
	for (size_t i = 0; i < sizeof(moving) / sizeof(moving[0]); i++)
		if (moving[i] == qp)
			return 1;
	return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct timespec ts;
	size_t slot = 0;
	int ret;

	if (!real_modify)
		return EINVAL;
	pthread_mutex_lock(&wl);
	moves++;
	if (!qp) {
		null_moves++;
		pthread_mutex_unlock(&wl);
		return EINVAL;
	}
	while (slot < sizeof(moving) / sizeof(moving[0]) && moving[slot])
		slot++;
	if (slot < sizeof(moving) / sizeof(moving[0]))
		moving[slot] = qp;
	if (qp == armed && attr->qp_state == IBV_QPS_ERR &&
	    pthread_equal(pthread_self(), ev_thread)) {
		armed = NULL;
		pinned_entered = 1;
		pthread_cond_broadcast(&wcond);
		deadline(&ts, PIN_MS);
		while (destroying != qp &&
		       pthread_cond_timedwait(&wcond, &wl, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&wl);

	ret = real_modify(qp, attr, attr_mask);

	pthread_mutex_lock(&wl);
	if (slot < sizeof(moving) / sizeof(moving[0]))
		moving[slot] = NULL;
	pthread_cond_broadcast(&wcond);
	pthread_mutex_unlock(&wl);
	return ret;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (!real_destroy)
		return EINVAL;
	pthread_mutex_lock(&wl);
	if (in_moving(qp)) {
		destroys_under_move++;
		destroying = qp;
		pthread_cond_broadcast(&wcond);
		/* let the move finish first: report, do not crash */
		while (in_moving(qp))
			pthread_cond_wait(&wcond, &wl);
		destroying = NULL;
	}
	pthread_mutex_unlock(&wl);
	return real_destroy(qp);
}

static void wrappers_init(void)
{
	real_modify = (int (*)(struct ibv_qp *, struct ibv_qp_attr *, int))
		dlsym(RTLD_NEXT, "ibv_modify_qp");
	real_destroy = (int (*)(struct ibv_qp *))dlsym(RTLD_NEXT, "ibv_destroy_qp");
}

/* --- counting events ------------------------------------------------------- */

enum { C_ADDR, C_ROUTE, C_EST, C_DISC, C_ERR, C_SRV_EST, C_SRV_DISC, C_SRV_ERR, C_N };

static pthread_mutex_t cl = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ccond = PTHREAD_COND_INITIALIZER;
static int count[C_N];
static volatile int stopping;

static void bump(int c)
{
	pthread_mutex_lock(&cl);
	count[c]++;
	pthread_cond_broadcast(&ccond);
	pthread_mutex_unlock(&cl);
}

/* Waits until count[c] reaches @n; 0, or -1 after WAIT_MS. */
static int wait_count(int c, int n)
{
	struct timespec ts;
	int ret = 0;

	deadline(&ts, WAIT_MS);
	pthread_mutex_lock(&cl);
	while (count[c] < n && !ret)
		if (pthread_cond_timedwait(&ccond, &cl, &ts) == ETIMEDOUT)
			ret = count[c] < n ? -1 : 0;
	pthread_mutex_unlock(&cl);
	return ret;
}

static int get_count(int c)
{
	int n;

	pthread_mutex_lock(&cl);
	n = count[c];
	pthread_mutex_unlock(&cl);
	return n;
}

/* The next event of @ch, or NULL once stopping (polls, so it can stop). */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	while (!stopping) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (rdma_get_cm_event(ch, &ev) == 0)
			return ev;
		if (errno != EAGAIN && errno != EINTR) {
			diag("rdma_get_cm_event: %s", strerror(errno));
			return NULL;
		}
	}
	return NULL;
}

static struct ibv_qp_init_attr qp_attr = {
	.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	.qp_type = IBV_QPT_RC,
};

/* --- the server -------------------------------------------------------------- */

static struct rdma_event_channel *schan;

static void *server_thread(void *arg)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	(void)arg;
	while ((ev = next_event(schan))) {
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			struct ibv_qp_init_attr a = qp_attr;

			if (rdma_create_qp(id, NULL, &a) || rdma_accept(id, NULL)) {
				diag("server: accept: %s", strerror(errno));
				bump(C_SRV_ERR);
				rdma_reject(id, NULL, 0);
				rdma_destroy_qp(id);
				rdma_ack_cm_event(ev);
				rdma_destroy_id(id);
				continue;
			}
			break;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			bump(C_SRV_EST);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_ack_cm_event(ev);
			rdma_disconnect(id);	/* the DREP */
			rdma_destroy_qp(id);
			rdma_destroy_id(id);
			bump(C_SRV_DISC);
			continue;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			diag("server: %s, status %d", rdma_event_str(ev->event), ev->status);
			bump(C_SRV_ERR);
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

/* --- the client ------------------------------------------------------------- */

static struct rdma_event_channel *cchan;

static void *client_thread(void *arg)
{
	struct rdma_cm_event *ev;

	(void)arg;
	while ((ev = next_event(cchan))) {
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			bump(C_ADDR);
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			bump(C_ROUTE);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			bump(C_EST);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			bump(C_DISC);
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			diag("client: %s, status %d", rdma_event_str(ev->event), ev->status);
			bump(C_ERR);
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

static struct rdma_addrinfo *dst;

/* Resolves, creates the QPs of and connects ids[0..n); 0 or -1. */
static int connect_all(struct rdma_cm_id **ids, int n)
{
	int base, i;

	base = get_count(C_ADDR);
	for (i = 0; i < n; i++)
		if (rdma_resolve_addr(ids[i], NULL, dst->ai_dst_addr, 2000)) {
			diag("rdma_resolve_addr: %s", strerror(errno));
			return -1;
		}
	if (wait_count(C_ADDR, base + n))
		return -1;
	base = get_count(C_ROUTE);
	for (i = 0; i < n; i++)
		if (rdma_resolve_route(ids[i], 2000)) {
			diag("rdma_resolve_route: %s", strerror(errno));
			return -1;
		}
	if (wait_count(C_ROUTE, base + n))
		return -1;
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr a = qp_attr;

		if (rdma_create_qp(ids[i], NULL, &a)) {
			diag("rdma_create_qp: %s", strerror(errno));
			return -1;
		}
	}
	base = get_count(C_EST);
	for (i = 0; i < n; i++) {
		struct rdma_conn_param p = {
			.responder_resources = 1, .initiator_depth = 1, .retry_count = 2,
		};

		if (rdma_connect(ids[i], &p)) {
			diag("rdma_connect: %s", strerror(errno));
			return -1;
		}
	}
	return wait_count(C_EST, base + n);
}

static int create_ids(struct rdma_cm_id **ids, int n)
{
	for (int i = 0; i < n; i++)
		if (rdma_create_id(cchan, &ids[i], NULL, RDMA_PS_TCP)) {
			diag("rdma_create_id: %s", strerror(errno));
			return -1;
		}
	return 0;
}

static void destroy_ids(struct rdma_cm_id **ids, int n)
{
	for (int i = 0; i < n; i++) {
		if (!ids[i])
			continue;
		rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
		ids[i] = NULL;
	}
}

/* Part 1: rdma_destroy_qp while the event thread's ERR move is held. */
static void pinned(int k)
{
	struct rdma_cm_id *id = NULL;
	struct timespec ts;
	int entered, under, disc;

	if (create_ids(&id, 1) || connect_all(&id, 1)) {
		ok(0, "pinned %d: connected", k);
		destroy_ids(&id, 1);
		return;
	}
	pthread_mutex_lock(&wl);
	pinned_entered = 0;
	armed = id->qp;
	under = destroys_under_move;
	pthread_mutex_unlock(&wl);
	disc = get_count(C_DISC);
	ok(rdma_disconnect(id) == 0, "pinned %d: rdma_disconnect", k);

	deadline(&ts, ENTER_MS);
	pthread_mutex_lock(&wl);
	while (!pinned_entered && pthread_cond_timedwait(&wcond, &wl, &ts) != ETIMEDOUT)
		;
	entered = pinned_entered;
	armed = NULL;
	pthread_mutex_unlock(&wl);
	if (!entered)
		diag("pinned %d: the library did not move the QP for DISCONNECTED within %d ms",
		     k, ENTER_MS);
	rdma_destroy_qp(id);

	pthread_mutex_lock(&wl);
	under = destroys_under_move - under;
	pthread_mutex_unlock(&wl);
	ok(under == 0, "pinned %d: rdma_destroy_qp in the main thread did not destroy the QP the event thread was moving (%d times)",
	   k, under);
	ok(wait_count(C_DISC, disc + 1) == 0, "pinned %d: DISCONNECTED", k);
	destroy_ids(&id, 1);
}

/* Part 2: cmtime's client, @n connections at once. */
static void burst(int round, int n)
{
	struct rdma_cm_id *ids[MAX_CONNS] = { NULL };
	int disc, i;

	if (create_ids(ids, n) || connect_all(ids, n)) {
		ok(0, "round %d: %d connections established (%d events so far)", round, n,
		   get_count(C_EST));
		destroy_ids(ids, n);
		return;
	}
	ok(1, "round %d: %d connections established", round, n);
	disc = get_count(C_DISC);
	for (i = 0; i < n; i++) {
		rdma_disconnect(ids[i]);
		rdma_destroy_qp(ids[i]);
	}
	ok(wait_count(C_DISC, disc + n) == 0, "round %d: %d DISCONNECTED", round, n);
	destroy_ids(ids, n);
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *src;
	struct rdma_cm_id *listen_id;
	pthread_t st;
	int conns, rounds, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [CONNS [ROUNDS]]\n", argv[0]);
		return 2;
	}
	conns = argc > 3 ? atoi(argv[3]) : 20;
	rounds = argc > 4 ? atoi(argv[4]) : 2;
	if (conns < 1 || conns > MAX_CONNS || rounds < 0) {
		fprintf(stderr, "CONNS 1..%d, ROUNDS >= 0\n", MAX_CONNS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	wrappers_init();
	ok(real_modify && real_destroy, "libibverbs' ibv_modify_qp and ibv_destroy_qp found");

	hints.ai_flags = RAI_PASSIVE;
	ret = rdma_getaddrinfo(argv[1], argv[2], &hints, &src);
	ok(ret == 0, "rdma_getaddrinfo(%s, %s, passive)", argv[1], argv[2]);
	hints.ai_flags = 0;
	ret |= rdma_getaddrinfo(argv[1], argv[2], &hints, &dst);
	ok(ret == 0, "rdma_getaddrinfo(%s, %s)", argv[1], argv[2]);
	schan = rdma_create_event_channel();
	cchan = rdma_create_event_channel();
	if (ret || !schan || !cchan) {
		ok(0, "event channels");
		return 1;
	}
	if (rdma_create_id(schan, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, src->ai_src_addr) || rdma_listen(listen_id, 128)) {
		ok(0, "listen on %s port %s: %s", argv[1], argv[2], strerror(errno));
		return 1;
	}
	pthread_create(&st, NULL, server_thread, NULL);
	pthread_create(&ev_thread, NULL, client_thread, NULL);

	for (int k = 1; k <= PINNED; k++)
		pinned(k);
	pthread_mutex_lock(&wl);
	ok(moves > 0, "the library's QP moves went through this program's ibv_modify_qp (%d)",
	   moves);
	pthread_mutex_unlock(&wl);

	for (int r = 1; r <= rounds; r++)
		burst(r, conns);

	ok(get_count(C_ERR) == 0, "no error event on the client (%d)", get_count(C_ERR));
	ok(get_count(C_SRV_ERR) == 0, "no error on the server (%d)", get_count(C_SRV_ERR));
	pthread_mutex_lock(&wl);
	ok(destroys_under_move == 0, "no QP destroyed while the library was moving it (%d)",
	   destroys_under_move);
	ok(null_moves == 0, "the library never moved a NULL QP (%d)", null_moves);
	pthread_mutex_unlock(&wl);

	stopping = 1;
	pthread_join(ev_thread, NULL);
	pthread_join(st, NULL);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(cchan);
	rdma_destroy_event_channel(schan);
	rdma_freeaddrinfo(src);
	rdma_freeaddrinfo(dst);
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
