// SPDX-License-Identifier: BSD-2-Clause
/*
 * rdmacm_checklist: the seed's rdma_cm checklist (seed-inventory.md §3,
 * items 129-188) asserted against xib's librdmacm.so.1 over
 * /dev/xib/rdma_cm, as an unmodified rdma-core program sees it (linked
 * against <rdma/rdma_cma.h>; run with xib-run in the VM by
 * tests/bats/rdmacm.bats).  Each check names the checklist items it
 * covers (#NNN); the ABI checks (raw ioctls) name ucma.h's rules.
 *
 * usage: rdmacm_checklist MODE ARGS...
 *   local LOCAL PEER       what needs one device: channels, ids, bind,
 *                          address and route resolution and their
 *                          errors, acknowledgement, listen, migration,
 *                          options, devices, QPs, the ABI's refusals
 *   limits LOCAL PEER IDS EVENTS
 *                          the per-file limits (the module parameters
 *                          set to IDS and EVENTS by the caller)
 *   server LOCAL PORT      the passive side of the connection scenarios;
 *                          prints READY once it listens
 *   client SERVER PORT     their active side
 *   hold LOCAL PORT        accept one connection, print ESTABLISHED,
 *                          wait to be killed
 *   wait-disconnect SERVER PORT SECS
 *                          connect, print ESTABLISHED, expect
 *                          DISCONNECTED within SECS
 *   no-listener SERVER PORT SECS
 *                          connect where nobody listens: REJECTED
 *                          within SECS
 *   wait-removal LOCAL PEER SECS
 *                          a resolved id with a QP and a listener bound
 *                          to LOCAL; print READY; DEVICE_REMOVAL on both
 *                          within SECS, then destroy them
 *   cycles-server LOCAL PORT N
 *                          one listener; accept N connections (a QP
 *                          each, one receive), and as each is
 *                          disconnected check its message and destroy
 *                          it; prints READY once it listens
 *   cycles SERVER PORT N   N times in this one process: a new id,
 *                          resolve, a QP, connect, send one message,
 *                          disconnect, destroy; prints the time taken
 *
 * Prints TAP; exits 1 if a check failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/ib.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "xib/ucma.h"

#include "tap.h"

#define EV_MS		5000	/* an event that should come */
#define QUIET_MS	300	/* how long "nothing comes" is watched */
#define CONN_MS		15000	/* an event of the CM over the wire */
/*
 * A server's first request: its wait starts when it says READY, so it
 * also covers the client's start (the debug kernel's KASAN under TCG
 * takes seconds per exec: xib-run, the program, its libraries).
 */
#define FIRST_MS	(CONN_MS + 60000)


static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "Bail out! rdmacm_checklist: time limit reached\n";

	(void)!write(1, msg, sizeof(msg) - 1);
	_exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct sockaddr_in sin_of(const char *ip, int port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, ip, &s.sin_addr) != 1) {
		fprintf(stderr, "bad IPv4 address %s\n", ip);
		exit(2);
	}
	return s;
}

#define SA(s) ((struct sockaddr *)&(s))

static int is_ip(const struct sockaddr *sa, const char *ip)
{
	struct in_addr a;

	inet_pton(AF_INET, ip, &a);
	return sa && sa->sa_family == AF_INET &&
	       ((const struct sockaddr_in *)sa)->sin_addr.s_addr == a.s_addr;
}

/* The RoCEv2 GID of an IPv4 address: ::ffff:a.b.c.d. */
static int is_gid_of(const union ibv_gid *g, const char *ip)
{
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };

	inet_pton(AF_INET, ip, &want[12]);
	return !memcmp(g->raw, want, 16);
}

/* The next event of @ch within @ms, or NULL. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev = NULL;

	if (poll(&p, 1, ms) != 1)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/*
 * The next event, which must be @type: returned for the caller to check
 * and acknowledge, or NULL (after a failed check; a wrong event is
 * acknowledged here).
 */
static struct rdma_cm_event *expect(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type type, int ms, const char *what)
{
	struct rdma_cm_event *ev = next_event(ch, ms);

	ok(ev && ev->event == type, "%s: %s (got %s, status %d)", what, rdma_event_str(type),
	   ev ? rdma_event_str(ev->event) : "nothing", ev ? ev->status : 0);
	if (ev && ev->event != type) {
		rdma_ack_cm_event(ev);
		ev = NULL;
	}
	return ev;
}

/* Nothing arrives on @ch for QUIET_MS. */
static int quiet(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	return poll(&p, 1, QUIET_MS) == 0;
}

static struct rdma_event_channel *channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (!ch) {
		printf("Bail out! rdma_create_event_channel: %s\n", strerror(errno));
		exit(2);
	}
	return ch;
}

static struct rdma_cm_id *new_id(struct rdma_event_channel *ch, enum rdma_port_space ps)
{
	struct rdma_cm_id *id = NULL;

	if (rdma_create_id(ch, &id, NULL, ps)) {
		printf("Bail out! rdma_create_id: %s\n", strerror(errno));
		exit(2);
	}
	return id;
}

/* rdma_resolve_addr (and route) to @ip:@port, events acknowledged. */
static int resolve(struct rdma_cm_id *id, const char *ip, int port, int route)
{
	struct sockaddr_in dst = sin_of(ip, port);
	struct rdma_cm_event *ev;
	int good;

	if (rdma_resolve_addr(id, NULL, SA(dst), 2000))
		return -1;
	ev = next_event(id->channel, EV_MS);
	good = ev && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED && ev->id == id;
	if (ev)
		rdma_ack_cm_event(ev);
	if (!good || !route)
		return good ? 0 : -1;
	if (rdma_resolve_route(id, 2000))
		return -1;
	ev = next_event(id->channel, EV_MS);
	good = ev && ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED && ev->id == id;
	if (ev)
		rdma_ack_cm_event(ev);
	return good ? 0 : -1;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

static struct ibv_qp_init_attr qp_attr(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.cap.max_send_wr = 4;
	a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.sq_sig_all = 1;
	return a;
}

/* --- local: what one device answers ------------------------------------- */

static void t_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev = (void *)1;
	struct pollfd p;
	int r;

	ok(ch && ch->fd >= 0, "#131 rdma_create_event_channel: a channel with an fd");
	if (!ch)
		return;
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	r = rdma_get_cm_event(ch, &ev);
	ok(r == -1 && errno == EAGAIN && !ev,
	   "#167 non-blocking channel, nothing pending: -1, EAGAIN (got %d, %s)", r, strerror(errno));
	p.fd = ch->fd;
	p.events = POLLIN;
	ok(poll(&p, 1, 0) == 0, "#131 poll(): not readable with nothing pending");
	errno = 0;
	r = rdma_get_cm_event(NULL, &ev);
	ok(r == -1 && errno == EINVAL, "#129 rdma_get_cm_event(NULL): -1, EINVAL");
	errno = 0;
	r = rdma_ack_cm_event(NULL);
	ok(r == -1 && errno == EINVAL, "#129 rdma_ack_cm_event(NULL): -1, EINVAL");
	rdma_destroy_event_channel(ch);
}

static void t_ids(void)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *id = NULL, *u = NULL, *bad = (void *)1;
	int marker, r;

	r = rdma_create_id(ch, &id, &marker, RDMA_PS_TCP);
	ok(r == 0 && id && id->context == &marker && id->channel == ch &&
	   id->ps == RDMA_PS_TCP && id->qp_type == IBV_QPT_RC && !id->verbs && !id->qp,
	   "#134 rdma_create_id(TCP): 0; context, channel, port space kept; no device, no QP");
	r = rdma_create_id(ch, &u, NULL, RDMA_PS_UDP);
	ok(r == 0 && u && u->ps == RDMA_PS_UDP && u->qp_type == IBV_QPT_UD,
	   "#134 rdma_create_id(UDP): a UD id");
	errno = 0;
	r = rdma_create_id(ch, &bad, NULL, (enum rdma_port_space)0x999);
	ok(r == -1 && errno == EINVAL && !bad,
	   "#129 rdma_create_id with an unknown port space: -1, EINVAL, *id NULL");
	errno = 0;
	r = rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP);
	ok(r == -1 && errno == EINVAL, "#129 rdma_create_id without a place for the id: -1, EINVAL");
	ok(id && rdma_destroy_id(id) == 0, "#134 rdma_destroy_id: 0");
	ok(u && rdma_destroy_id(u) == 0, "#134 rdma_destroy_id of the UD id: 0");
	errno = 0;
	r = rdma_destroy_id(NULL);
	ok(r == -1 && errno == EINVAL, "#129 rdma_destroy_id(NULL): -1, EINVAL");
	rdma_destroy_event_channel(ch);
}

static void t_bind(const char *local)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *a = new_id(ch, RDMA_PS_TCP), *b = new_id(ch, RDMA_PS_TCP);
	struct rdma_cm_id *c = new_id(ch, RDMA_PS_TCP), *u = new_id(ch, RDMA_PS_UDP);
	struct sockaddr_in any = sin_of("0.0.0.0", 0), s;
	struct sockaddr_ib ib;
	uint16_t port;
	int r;

	r = rdma_bind_addr(a, SA(any));
	port = ntohs(rdma_get_src_port(a));
	ok(r == 0 && port != 0 && !a->verbs,
	   "#140 #141 bind to the wildcard address, port 0: a port is chosen (%u), no device", port);
	ok(rdma_get_local_addr(a)->sa_family == AF_INET && rdma_get_dst_port(a) == 0,
	   "#146 the local address is the bound one; no peer port yet");
	s = sin_of("0.0.0.0", port);
	errno = 0;
	r = rdma_bind_addr(b, SA(s));
	ok(r == -1 && errno == EADDRINUSE, "#140 a second bind to the same port: EADDRINUSE (%s)",
	   strerror(errno));
	r = rdma_bind_addr(u, SA(s));
	ok(r == 0, "#140 the UDP port space has its own ports: binding the same number works");
	s = sin_of(local, 0);
	r = rdma_bind_addr(b, SA(s));
	ok(r == 0 && b->verbs && b->port_num == 1 && is_ip(rdma_get_local_addr(b), local) &&
	   rdma_get_src_port(b) != 0,
	   "#140 bind to a local address binds the id to its device and port 1");
	errno = 0;
	r = rdma_bind_addr(b, SA(s));
	ok(r == -1 && errno == EINVAL, "#129 binding a bound id: -1, EINVAL (%s)", strerror(errno));
	s = sin_of("10.99.99.99", 0);
	errno = 0;
	r = rdma_bind_addr(c, SA(s));
	ok(r == -1 && errno == EADDRNOTAVAIL,
	   "#129 bind to an address no interface has: -1, EADDRNOTAVAIL (%s)", strerror(errno));
	s = sin_of("127.0.0.1", 0);
	errno = 0;
	r = rdma_bind_addr(c, SA(s));
	ok(r == -1 && errno == ENODEV,
	   "#129 bind to an address of an interface no xib device serves: -1, ENODEV (%s)",
	   strerror(errno));
	memset(&ib, 0, sizeof(ib));
	ib.sib_family = AF_IB;
	errno = 0;
	r = rdma_bind_addr(c, (struct sockaddr *)&ib);
	ok(r == -1 && errno == EAFNOSUPPORT, "#129 bind to an AF_IB address: -1, EAFNOSUPPORT");
	s = sin_of(local, 0);
	ok(rdma_bind_addr(c, SA(s)) == 0, "#129 a failed bind changed nothing: the id binds after");
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_id(c);
	rdma_destroy_id(u);
	rdma_destroy_event_channel(ch);
}

static void t_resolve(const char *local, const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *id = new_id(ch, RDMA_PS_TCP), *id2 = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in dst = sin_of(peer, 7174), src = sin_of(local, 0);
	struct rdma_cm_event *ev;
	struct pollfd p;
	int r;

	errno = 0;
	r = rdma_resolve_route(id, 1000);
	ok(r == -1 && errno == EINVAL, "#145 rdma_resolve_route before the address: -1, EINVAL");
	errno = 0;
	r = rdma_resolve_addr(id, NULL, SA(dst), 0);
	ok(r == -1 && errno == EINVAL, "#129 rdma_resolve_addr with timeout 0: -1, EINVAL");
	r = rdma_resolve_addr(id, NULL, SA(dst), 2000);
	ok(r == 0, "#130 #142 rdma_resolve_addr with no source: 0 (started)");
	p.fd = ch->fd;
	p.events = POLLIN;
	ok(poll(&p, 1, EV_MS) == 1 && (p.revents & POLLIN), "#131 poll(): readable once an event is queued");
	ev = expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, EV_MS, "#142 address resolution");
	if (ev) {
		ok(ev->status == 0 && ev->id == id && !ev->listen_id,
		   "#169 ADDR_RESOLVED: status 0, event->id is the id, no listen_id");
		rdma_ack_cm_event(ev);
	}
	ok(id->verbs && id->port_num == 1, "#142 after ADDR_RESOLVED the id has a device and port 1");
	ok(is_ip(rdma_get_peer_addr(id), peer) && ntohs(rdma_get_dst_port(id)) == 7174,
	   "#146 rdma_get_peer_addr and rdma_get_dst_port: the peer's");
	ok(is_ip(rdma_get_local_addr(id), local) && rdma_get_src_port(id) != 0,
	   "#143 #146 the source address comes from the routing table; a source port");
	r = rdma_resolve_route(id, 2000);
	ok(r == 0, "#145 rdma_resolve_route after ADDR_RESOLVED: 0 (started)");
	ev = expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, EV_MS, "#145 route resolution");
	if (ev) {
		ok(ev->status == 0 && ev->id == id, "#169 ROUTE_RESOLVED: status 0, the id");
		rdma_ack_cm_event(ev);
	}
	ok(id->route.num_paths == 1 && id->route.path_rec &&
	   is_gid_of(&id->route.path_rec->sgid, local) && is_gid_of(&id->route.path_rec->dgid, peer),
	   "#145 the route: one path, from our address's GID to the peer's");
	ok(is_gid_of(&id->route.addr.addr.ibaddr.sgid, local) &&
	   is_gid_of(&id->route.addr.addr.ibaddr.dgid, peer),
	   "#144 the addresses map to the RoCEv2 GIDs of the two IP addresses");

	r = rdma_resolve_addr(id2, SA(src), SA(dst), 2000);
	ev = r ? NULL : expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, EV_MS,
			       "#143 address resolution with a source address");
	if (ev) {
		ok(ev->id == id2 && is_ip(rdma_get_local_addr(id2), local) && id2->verbs,
		   "#143 with a source address the id is bound to it, as by rdma_bind_addr");
		rdma_ack_cm_event(ev);
	}
	ok(quiet(ch), "#135 no other event arrives");
	ok(rdma_destroy_id(id) == 0 && rdma_destroy_id(id2) == 0, "#134 the resolved ids go");
	rdma_destroy_event_channel(ch);
}

static void addr_error(struct rdma_event_channel *ch, const char *ip, int timeout_ms,
		       int want, const char *what)
{
	struct rdma_cm_id *id = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in dst = sin_of(ip, 7174);
	struct rdma_cm_event *ev;
	double t0 = now();
	int r;

	r = rdma_resolve_addr(id, NULL, SA(dst), timeout_ms);
	if (r) {
		ok(0, "#142 %s: rdma_resolve_addr failed at once: %s", what, strerror(errno));
		rdma_destroy_id(id);
		return;
	}
	ev = expect(ch, RDMA_CM_EVENT_ADDR_ERROR, timeout_ms + EV_MS, what);
	if (ev) {
		ok(ev->id == id && ev->status < 0 && (!want || ev->status == -want),
		   "#169 %s: status %d (%s) after %.2f s", what, ev->status, strerror(-ev->status),
		   now() - t0);
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
}

static void t_addr_errors(const char *local, const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *id;
	struct in_addr a;
	char nobody[INET_ADDRSTRLEN];

	/* .77 of the local /24: on the link, nobody answers ARP */
	inet_pton(AF_INET, local, &a);
	a.s_addr = (a.s_addr & htonl(0xffffff00)) | htonl(77);
	inet_ntop(AF_INET, &a, nobody, sizeof(nobody));
	addr_error(ch, nobody, 500, 0,
		   "#142 an on-link address nobody answers: ADDR_ERROR within the timeout");
	addr_error(ch, "198.51.100.1", 2000, ENETUNREACH,
		   "#142 an address without a route: ADDR_ERROR, ENETUNREACH");
	addr_error(ch, "127.0.0.1", 2000, ENODEV,
		   "#142 an address behind an interface without xib: ADDR_ERROR, ENODEV");

	/* a failed resolution leaves the id usable */
	id = new_id(ch, RDMA_PS_TCP);
	{
		struct sockaddr_in dst = sin_of(nobody, 7174);
		struct rdma_cm_event *ev;

		if (!rdma_resolve_addr(id, NULL, SA(dst), 300)) {
			ev = next_event(ch, 300 + EV_MS);
			if (ev)
				rdma_ack_cm_event(ev);
		}
	}
	ok(resolve(id, peer, 7174, 1) == 0,
	   "#142 after ADDR_ERROR the id resolves another address");
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

struct destroyer {
	struct rdma_cm_id *id;
	volatile int done;
	int ret;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = rdma_destroy_id(d->id);
	d->done = 1;
	return NULL;
}

/* rdma_destroy_id(@id) blocks while @ev is not acknowledged. */
static void check_destroy_waits(struct rdma_cm_id *id, struct rdma_cm_event *ev, const char *what)
{
	struct destroyer d = { .id = id };
	pthread_t t;
	int i;

	if (pthread_create(&t, NULL, destroy_thread, &d)) {
		ok(0, "%s: pthread_create", what);
		rdma_ack_cm_event(ev);
		return;
	}
	usleep(QUIET_MS * 1000);
	ok(!d.done, "#136 %s: rdma_destroy_id blocks while the event is unacknowledged", what);
	rdma_ack_cm_event(ev);
	for (i = 0; i < 300 && !d.done; i++)
		usleep(10000);
	ok(d.done && d.ret == 0, "#136 %s: ... and returns 0 once it is acknowledged", what);
	if (!d.done) {
		printf("Bail out! rdma_destroy_id still blocked\n");
		exit(2);
	}
	pthread_join(t, NULL);
}

static void t_ack(const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *id = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in dst = sin_of(peer, 7174);
	struct rdma_cm_event *ev = NULL;

	if (rdma_resolve_addr(id, NULL, SA(dst), 2000) == 0)
		ev = expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, EV_MS, "#136 an event to hold");
	if (ev)
		check_destroy_waits(id, ev, "ADDR_RESOLVED");
	else
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

static void t_event_str(void)
{
	static const char *const want[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	int i, good = 1;

	for (i = 0; i < 16; i++)
		good &= !strcmp(rdma_event_str((enum rdma_cm_event_type)i), want[i]);
	ok(good, "#172 rdma_event_str: a name for each of the 16 event types");
	ok(strlen(rdma_event_str((enum rdma_cm_event_type)99)) > 0,
	   "#172 rdma_event_str of an unknown type: still a string");
}

static void t_listen(const char *local)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *l = new_id(ch, RDMA_PS_TCP), *l2 = new_id(ch, RDMA_PS_TCP);
	struct rdma_cm_id *w = new_id(ch, RDMA_PS_TCP), *u = new_id(ch, RDMA_PS_UDP);
	struct sockaddr_in s = sin_of(local, 0);
	int r;

	ok(rdma_bind_addr(l, SA(s)) == 0 && rdma_listen(l, 4) == 0,
	   "#147 rdma_listen after rdma_bind_addr: 0");
	ok(is_ip(rdma_get_local_addr(l), local) && rdma_get_src_port(l) != 0 && l->verbs,
	   "#147 a listener on a specific address has that address's device");
	errno = 0;
	r = rdma_accept(l, NULL);
	ok(r == -1 && errno == EINVAL, "#150 rdma_accept on the listening id: -1, EINVAL (%s)",
	   strerror(errno));
	errno = 0;
	r = rdma_reject(l, NULL, 0);
	ok(r == -1 && errno == EINVAL, "#150 rdma_reject on the listening id: -1, EINVAL");
	errno = 0;
	r = rdma_connect(l, NULL);
	ok(r == -1 && errno == EINVAL, "#149 rdma_connect on a listener: -1, EINVAL");
	errno = 0;
	r = rdma_disconnect(l);
	ok(r == -1 && errno == EINVAL, "#164 rdma_disconnect on a listener: -1, EINVAL");
	s = sin_of(local, ntohs(rdma_get_src_port(l)));
	errno = 0;
	r = rdma_bind_addr(l2, SA(s));
	ok(r == -1 && errno == EADDRINUSE, "#147 another id on the listener's address and port: EADDRINUSE");
	r = rdma_listen(w, 0);
	ok(r == 0 && rdma_get_src_port(w) != 0 && !w->verbs,
	   "#147 rdma_listen on an unbound id listens on a port of every device");
	ok(rdma_listen(u, 0) == 0, "#149 a UDP id listens (for SIDR requests)");
	ok(quiet(ch), "#148 no request, no event");
	rdma_destroy_id(l);
	rdma_destroy_id(l2);
	rdma_destroy_id(w);
	rdma_destroy_id(u);
	rdma_destroy_event_channel(ch);
}

static void t_migrate(const char *peer)
{
	struct rdma_event_channel *ch1 = channel(), *ch2 = channel();
	struct rdma_cm_id *id = new_id(ch1, RDMA_PS_TCP);
	struct sockaddr_in dst = sin_of(peer, 7174);
	struct rdma_cm_event *ev;
	struct pollfd p = { .fd = ch1->fd, .events = POLLIN };

	if (rdma_resolve_addr(id, NULL, SA(dst), 2000) || poll(&p, 1, EV_MS) != 1) {
		ok(0, "#133 an event queued on the first channel");
		goto out;
	}
	ok(rdma_migrate_id(id, ch2) == 0 && id->channel == ch2, "rdma_migrate_id: 0, the id's channel is the new one");
	ok(quiet(ch1), "#133 the unread event left the old channel with the id");
	ev = expect(ch2, RDMA_CM_EVENT_ADDR_RESOLVED, EV_MS, "#133 the unread event, on the new channel");
	if (ev) {
		ok(ev->id == id, "#133 ... for the migrated id");
		rdma_ack_cm_event(ev);
	}
	if (rdma_resolve_route(id, 2000) == 0) {
		ev = expect(ch2, RDMA_CM_EVENT_ROUTE_RESOLVED, EV_MS, "#133 later events come on the new channel");
		if (ev)
			rdma_ack_cm_event(ev);
	} else {
		ok(0, "rdma_resolve_route after migration: %s", strerror(errno));
	}
	ok(quiet(ch1), "#133 nothing more on the old channel");
	ok(rdma_migrate_id(id, ch2) == 0, "rdma_migrate_id to the channel it is on: 0");
out:
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch1);
	rdma_destroy_event_channel(ch2);
}

static void t_options(const char *local)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *a = new_id(ch, RDMA_PS_TCP), *b = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in s = sin_of(local, 0);
	uint8_t tos = 0x20, t14 = 14, t40 = 40;
	int one = 1, r;

	ok(rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) == 0,
	   "#181 RDMA_OPTION_ID_TOS: 0");
	ok(rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t14, 1) == 0,
	   "#181 RDMA_OPTION_ID_ACK_TIMEOUT 14: 0");
	errno = 0;
	r = rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t40, 1);
	ok(r == -1 && errno == EINVAL, "#181 ACK_TIMEOUT 40 (not 5 bits): -1, EINVAL");
	errno = 0;
	r = rdma_set_option(a, RDMA_OPTION_ID, 99, &one, sizeof(one));
	ok(r == -1 && errno, "#181 an unknown option: -1 (%s)", strerror(errno));
	errno = 0;
	r = rdma_set_option(a, 99, 0, &one, sizeof(one));
	ok(r == -1 && errno, "#181 an unknown level: -1 (%s)", strerror(errno));
	ok(rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)) == 0 &&
	   rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)) == 0,
	   "#181 RDMA_OPTION_ID_REUSEADDR before bind: 0");
	r = rdma_bind_addr(a, SA(s));
	s = sin_of(local, ntohs(rdma_get_src_port(a)));
	ok(r == 0 && rdma_bind_addr(b, SA(s)) == 0, "#181 two REUSEADDR ids share a port");
	errno = 0;
	r = rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one));
	ok(r == -1 && errno == EINVAL, "#181 REUSEADDR after bind: -1, EINVAL (%s)", strerror(errno));
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	rdma_destroy_event_channel(ch);
}

/* Does "ip maddr" list @grp (within @ms, or still after @ms if !@want)? */
static int maddr_has(const char *grp, int want, int ms)
{
	char cmd[128], line[256];
	int i, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip maddr show 2>/dev/null");
	for (i = 0; i <= ms / 50; i++) {
		found = 0;
		f = popen(cmd, "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, grp))
				found = 1;
		pclose(f);
		if (found == want)
			break;
		usleep(50 * 1000);
	}
	return found;
}

/* The MULTICAST_JOIN of @grp on @u: its fields as rdma_cm gives them on RoCE. */
static void check_join(struct rdma_cm_id *u, const char *grp, void *context, const char *local)
{
	struct rdma_cm_event *ev = expect(u->channel, RDMA_CM_EVENT_MULTICAST_JOIN, EV_MS,
					  "#176 join");
	struct rdma_ud_param *ud;
	union ibv_gid sgid;

	if (!ev)
		return;
	ud = &ev->param.ud;
	ok(ev->id == u && ev->status == 0, "#176 MULTICAST_JOIN on the id, status 0");
	ok(ud->private_data == context, "#176 the event carries the join's context");
	ok(ud->qp_num == 0xffffff, "#176 ud qp_num 0xffffff (%#x)", ud->qp_num);
	ok(ud->qkey == 0x01234567, "#176 ud qkey RDMA_UDP_QKEY 0x01234567 (%#x)", ud->qkey);
	ok(ud->ah_attr.is_global && is_gid_of(&ud->ah_attr.grh.dgid, grp),
	   "#176 ah_attr: GRH, dgid the MGID ::ffff:%s", grp);
	ok(ud->ah_attr.port_num == u->port_num && ud->ah_attr.grh.hop_limit > 0,
	   "#176 ah_attr: the id's port, hop limit %u", ud->ah_attr.grh.hop_limit);
	ok(!ibv_query_gid(u->verbs, u->port_num, ud->ah_attr.grh.sgid_index, &sgid) &&
	   is_gid_of(&sgid, local), "#176 ah_attr: sgid index %u is the id's address %s",
	   ud->ah_attr.grh.sgid_index, local);
	rdma_ack_cm_event(ev);
}

static void t_mcast(const char *local, const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *u = new_id(ch, RDMA_PS_UDP), *t = new_id(ch, RDMA_PS_TCP);
	struct rdma_cm_id *idle = new_id(ch, RDMA_PS_UDP), *d = new_id(ch, RDMA_PS_UDP);
	struct sockaddr_in grp = sin_of("239.1.2.177", 0), grp2 = sin_of("239.1.2.178", 0);
	struct sockaddr_in so = sin_of("239.1.2.179", 0), uni = sin_of(peer, 0);
	struct rdma_cm_join_mc_attr_ex ex;
	static int ctx1, ctx2;
	int r;

	errno = 0;
	r = rdma_join_multicast(idle, SA(grp), NULL);
	ok(r == -1 && errno == EINVAL, "#176 join on an id without an address: EINVAL (%s)",
	   strerror(errno));
	if (resolve(u, peer, 7174, 0) || resolve(t, peer, 7175, 0) || resolve(d, peer, 7176, 0)) {
		ok(0, "resolved ids for multicast");
		goto out;
	}
	errno = 0;
	r = rdma_join_multicast(t, SA(grp), NULL);
	ok(r == -1 && errno == EINVAL, "#176 join on a TCP (RC) id: EINVAL (%s)", strerror(errno));
	errno = 0;
	r = rdma_join_multicast(u, SA(uni), NULL);
	ok(r == -1 && errno == EINVAL, "#176 join of a unicast address: EINVAL (%s)",
	   strerror(errno));
	memset(&ex, 0, sizeof(ex));
	ex.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	ex.addr = SA(grp);
	ex.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	errno = 0;
	r = rdma_join_multicast_ex(u, &ex, NULL);
	ok(r == -1 && errno == EINVAL, "#176 unknown join flags: EINVAL (%s)", strerror(errno));
	ok(quiet(ch), "#177 no event follows a refused join");
	ok(maddr_has("239.1.2.177", 0, 0) == 0, "#176 the group is not joined before");

	r = rdma_join_multicast(u, SA(grp), &ctx1);
	ok(r == 0, "#176 rdma_join_multicast 239.1.2.177 on a resolved UDP id (%s)",
	   r ? strerror(errno) : "ok");
	check_join(u, "239.1.2.177", &ctx1, local);
	ok(maddr_has("239.1.2.177", 1, 2000) == 1,
	   "#176 ip maddr: the interface joined 239.1.2.177 (IGMP)");
	errno = 0;
	r = rdma_join_multicast(u, SA(grp), NULL);
	ok(r == -1 && errno == EADDRINUSE, "#176 the same group twice on one id: EADDRINUSE (%s)",
	   strerror(errno));
	ok(quiet(ch), "#177 no event follows the refused second join");

	r = rdma_join_multicast(u, SA(grp2), &ctx2);
	ok(r == 0, "#176 a second group on the same id");
	check_join(u, "239.1.2.178", &ctx2, local);

	r = rdma_leave_multicast(u, SA(grp));
	ok(r == 0, "#178 rdma_leave_multicast (%s)", r ? strerror(errno) : "ok");
	ok(maddr_has("239.1.2.177", 0, 2000) == 0,
	   "#178 ip maddr: 239.1.2.177 left");
	ok(maddr_has("239.1.2.178", 1, 0) == 1, "#178 the other group stays joined");
	errno = 0;
	r = rdma_leave_multicast(u, SA(grp));
	ok(r == -1 && errno == EADDRNOTAVAIL, "#178 leaving a group no longer joined: -1, EADDRNOTAVAIL");

	/* send-only: the event, and no IP membership */
	ex.addr = SA(so);
	ex.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	r = rdma_join_multicast_ex(d, &ex, &ctx1);
	ok(r == 0, "#176 send-only full member join (%s)", r ? strerror(errno) : "ok");
	check_join(d, "239.1.2.179", &ctx1, local);
	usleep(300 * 1000);
	ok(maddr_has("239.1.2.179", 0, 0) == 0, "#176 a send-only join does not join the IP group");
	ok(rdma_leave_multicast(d, SA(so)) == 0, "#178 leaving the send-only join");

	/* destroying an id leaves its groups */
	rdma_destroy_id(u);
	u = NULL;
	ok(maddr_has("239.1.2.178", 0, 2000) == 0,
	   "#178 destroying the id left its group 239.1.2.178");
	ok(quiet(ch), "#177 no event left over");
out:
	if (u)
		rdma_destroy_id(u);
	rdma_destroy_id(t);
	rdma_destroy_id(idle);
	rdma_destroy_id(d);
	rdma_destroy_event_channel(ch);
}

/* max_mcast_per_id is 1: a second group on one id is refused. */
static void t_mc_limit(const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *u = new_id(ch, RDMA_PS_UDP);
	struct sockaddr_in g1 = sin_of("239.1.2.181", 0), g2 = sin_of("239.1.2.182", 0);
	struct rdma_cm_event *ev;
	int r;

	if (resolve(u, peer, 7177, 0)) {
		ok(0, "a resolved UD id for multicast");
		goto out;
	}
	ok(rdma_join_multicast(u, SA(g1), NULL) == 0, "mc-limit: the first group joins");
	ev = expect(ch, RDMA_CM_EVENT_MULTICAST_JOIN, EV_MS, "mc-limit: first join");
	if (ev)
		rdma_ack_cm_event(ev);
	errno = 0;
	r = rdma_join_multicast(u, SA(g2), NULL);
	ok(r == -1 && errno == ENOMEM, "mc-limit: a second group on the id: ENOMEM (%s)",
	   strerror(errno));
	ok(rdma_leave_multicast(u, SA(g1)) == 0, "mc-limit: leave");
	ok(rdma_join_multicast(u, SA(g2), NULL) == 0, "mc-limit: after leaving, another joins");
	ev = expect(ch, RDMA_CM_EVENT_MULTICAST_JOIN, EV_MS, "mc-limit: join after leave");
	if (ev)
		rdma_ack_cm_event(ev);
out:
	rdma_destroy_id(u);
	rdma_destroy_event_channel(ch);
}

static void t_devices(void)
{
	struct ibv_device_attr attr;
	struct ibv_context **list, *first = NULL;
	int n = -1;

	list = rdma_get_devices(&n);
	ok(list && n >= 1 && !list[n], "#182 rdma_get_devices: %d device(s), NULL-terminated", n);
	if (!list)
		return;
	first = list[0];
	ok(first && !strncmp(ibv_get_device_name(first->device), "xib", 3),
	   "#182 the devices are open xib contexts (%s)",
	   first ? ibv_get_device_name(first->device) : "none");
	rdma_free_devices(list);
	ok(first && ibv_query_device(first, &attr) == 0,
	   "#183 a context stays open after rdma_free_devices");
	list = rdma_get_devices(NULL);
	ok(list && list[0] == first, "#182 num_devices may be NULL; the same contexts again");
	rdma_free_devices(list);
}

static void t_qp(const char *peer)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *id = new_id(ch, RDMA_PS_TCP), *u = new_id(ch, RDMA_PS_UDP);
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;
	int r;

	errno = 0;
	r = rdma_create_qp(id, NULL, &a);
	ok(r == -1 && !id->qp, "#173 rdma_create_qp on an id without a device: -1 (%s)", strerror(errno));
	if (resolve(id, peer, 7174, 1)) {
		ok(0, "a resolved id for the QP");
		goto out;
	}
	r = rdma_create_qp(id, NULL, &a);
	ok(r == 0 && id->qp && id->qp->qp_type == IBV_QPT_RC && id->send_cq && id->recv_cq,
	   "#173 rdma_create_qp on a resolved id (default PD, the library's CQs): 0");
	if (r)
		goto out;
	ok(qp_state(id->qp) == IBV_QPS_INIT, "#174 the connected QP waits in INIT");
	ok(ibv_post_recv(id->qp, &wr, &bad) == 0, "#174 a receive can be posted at once");
	errno = 0;
	r = rdma_create_qp(id, NULL, &a);
	ok(r == -1, "#173 a second QP on the id: -1 (%s)", strerror(errno));
	rdma_destroy_qp(id);
	ok(!id->qp, "#175 rdma_destroy_qp: the id has no QP any more");

	if (resolve(u, peer, 7174, 1)) {
		ok(0, "a resolved UD id");
		goto out;
	}
	a = qp_attr(IBV_QPT_UD);
	r = rdma_create_qp(u, NULL, &a);
	ok(r == 0 && u->qp && qp_state(u->qp) == IBV_QPS_RTS,
	   "#174 an unconnected (UD) QP is ready to send after rdma_create_qp");
	rdma_destroy_qp(u);
out:
	errno = 0;
	r = rdma_notify(id, IBV_EVENT_COMM_EST);
	ok(r == -1 && errno == EINVAL, "#184 rdma_notify on an id that is not connecting: -1, EINVAL");
	rdma_destroy_id(id);
	rdma_destroy_id(u);
	rdma_destroy_event_channel(ch);
}

/* --- local: the ABI's refusals, with raw ioctls -------------------------- */

static int kcmd(int fd, unsigned long req, void *arg)
{
	errno = 0;
	return ioctl(fd, req, arg) ? errno : 0;
}

static uint32_t kcreate(int fd, uint32_t ps, uint32_t qp_type)
{
	struct xib_ucma_create_id c = { .uid = 42, .ps = ps, .qp_type = qp_type };

	if (kcmd(fd, XIB_UCMA_CREATE_ID, &c)) {
		printf("Bail out! XIB_UCMA_CREATE_ID: %s\n", strerror(errno));
		exit(2);
	}
	return c.id;
}

static void kaddr(struct xib_ucma_addr *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->port = htons((uint16_t)port);
	inet_pton(AF_INET, ip, a->addr);
}

static void t_abi(const char *local, const char *peer)
{
	int fd = open("/dev/xib/rdma_cm", O_RDWR | O_CLOEXEC), fd2, nul;
	struct xib_ucma_create_id c;
	struct xib_ucma_destroy_id d;
	struct xib_ucma_bind b;
	struct xib_ucma_resolve_addr ra;
	struct xib_ucma_query q;
	struct xib_ucma_connect cn;
	struct xib_ucma_set_option so;
	struct xib_ucma_leave_mcast lm;
	struct xib_ucma_join_mcast jm;
	struct xib_ucma_migrate_id mi;
	struct xib_ucma_init_qp_attr qa;
	struct xib_ucma_event ev;
	struct pollfd p;
	uint32_t id, id2;
	void *ro;

	ok(fd >= 0, "/dev/xib/rdma_cm opens (%s)", fd < 0 ? strerror(errno) : "");
	if (fd < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.ps = XIB_UCMA_PS_TCP;
	c.qp_type = IBV_QPT_RC;
	c.reserved = 1;
	ok(kcmd(fd, XIB_UCMA_CREATE_ID, &c) == EINVAL, "ABI: CREATE_ID with reserved set: EINVAL");
	c.reserved = 0;
	c.id = 5;
	ok(kcmd(fd, XIB_UCMA_CREATE_ID, &c) == EINVAL, "ABI: CREATE_ID with the out field set: EINVAL");
	c.id = 0;
	c.ps = 0x999;
	ok(kcmd(fd, XIB_UCMA_CREATE_ID, &c) == EINVAL, "ABI: CREATE_ID with an unknown port space: EINVAL");
	c.ps = XIB_UCMA_PS_TCP;
	c.qp_type = IBV_QPT_UD;
	ok(kcmd(fd, XIB_UCMA_CREATE_ID, &c) == EINVAL, "ABI: CREATE_ID, TCP port space with a UD QP type: EINVAL");
	id = kcreate(fd, XIB_UCMA_PS_TCP, IBV_QPT_RC);
	id2 = kcreate(fd, XIB_UCMA_PS_UDP, IBV_QPT_UD);
	ok(id != id2, "ABI: two ids, two handles");

	memset(&d, 0, sizeof(d));
	d.id = 0x7fff0000;
	ok(kcmd(fd, XIB_UCMA_DESTROY_ID, &d) == ENOENT, "ABI: DESTROY_ID of an unknown handle: ENOENT");
	d.id = id2;
	d.events_reported = 1;
	ok(kcmd(fd, XIB_UCMA_DESTROY_ID, &d) == EINVAL, "ABI: DESTROY_ID with the out field set: EINVAL");

	memset(&b, 0, sizeof(b));
	b.id = id;
	kaddr(&b.addr, local, 0);
	b.addr.addr[5] = 1;
	ok(kcmd(fd, XIB_UCMA_BIND, &b) == EINVAL, "ABI: BIND, an IPv4 address with bytes past its 4 set: EINVAL");
	kaddr(&b.addr, local, 0);
	b.addr.reserved = 1;
	ok(kcmd(fd, XIB_UCMA_BIND, &b) == EINVAL, "ABI: BIND, address reserved set: EINVAL");
	memset(&b.addr, 0, sizeof(b.addr));
	b.addr.family = AF_IB;
	ok(kcmd(fd, XIB_UCMA_BIND, &b) == EAFNOSUPPORT, "ABI: BIND to AF_IB: EAFNOSUPPORT");
	memset(&b.addr, 0, sizeof(b.addr));
	ok(kcmd(fd, XIB_UCMA_BIND, &b) == EINVAL, "ABI: BIND to family 0 (no address): EINVAL");

	memset(&ra, 0, sizeof(ra));
	ra.id = id;
	kaddr(&ra.dst, peer, 7174);
	ok(kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra) == EINVAL, "ABI: RESOLVE_ADDR with timeout 0: EINVAL");
	ra.timeout_ms = 3600001;
	ok(kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra) == EINVAL, "ABI: RESOLVE_ADDR with timeout over an hour: EINVAL");
	ra.timeout_ms = 2000;
	ra.src.scope_id = 3;
	ok(kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra) == EINVAL, "ABI: RESOLVE_ADDR, source of family 0 not all zero: EINVAL");
	memset(&ra.src, 0, sizeof(ra.src));

	memset(&q, 0, sizeof(q));
	q.id = id;
	q.port_num = 1;
	ok(kcmd(fd, XIB_UCMA_QUERY, &q) == EINVAL, "ABI: QUERY with an out field set: EINVAL");
	q.port_num = 0;
	ok(kcmd(fd, XIB_UCMA_QUERY, &q) == 0 && q.src.family == 0 && q.node_guid == 0 &&
	   q.state == 0, "ABI: QUERY of a new id: no address, no device, state IDLE");

	memset(&cn, 0, sizeof(cn));
	cn.id = id;
	cn.param.private_data_len = XIB_UCMA_CONN_PDATA_MAX + 1;
	ok(kcmd(fd, XIB_UCMA_CONNECT, &cn) == EINVAL, "ABI: CONNECT with 57 bytes of private data: EINVAL");
	cn.param.private_data_len = 0;
	ok(kcmd(fd, XIB_UCMA_CONNECT, &cn) == EINVAL, "ABI: CONNECT before the route: EINVAL");

	memset(&so, 0, sizeof(so));
	so.id = id;
	so.level = 7;
	ok(kcmd(fd, XIB_UCMA_SET_OPTION, &so) == ENOPROTOOPT, "ABI: SET_OPTION at an unknown level: ENOPROTOOPT");
	so.level = 0;
	so.optname = 0;
	so.optlen = 1;
	so.value = 0x100;
	ok(kcmd(fd, XIB_UCMA_SET_OPTION, &so) == EINVAL, "ABI: SET_OPTION TOS of 256: EINVAL");
	so.optlen = 4;
	so.value = 1;
	ok(kcmd(fd, XIB_UCMA_SET_OPTION, &so) == EINVAL, "ABI: SET_OPTION TOS with optlen 4: EINVAL");
	so.level = 1;
	so.optname = 1;
	ok(kcmd(fd, XIB_UCMA_SET_OPTION, &so) == EOPNOTSUPP, "ABI: SET_OPTION RDMA_OPTION_IB_PATH: EOPNOTSUPP");

	memset(&qa, 0, sizeof(qa));
	qa.id = id;
	qa.qp_state = IBV_QPS_INIT;
	qa.attr.port_num = 1;
	ok(kcmd(fd, XIB_UCMA_INIT_QP_ATTR, &qa) == EINVAL, "ABI: INIT_QP_ATTR with out fields set: EINVAL");
	qa.attr.port_num = 0;
	ok(kcmd(fd, XIB_UCMA_INIT_QP_ATTR, &qa) == EINVAL, "ABI: INIT_QP_ATTR(INIT) of an id with no device: EINVAL");

	memset(&lm, 0, sizeof(lm));
	ok(kcmd(fd, XIB_UCMA_LEAVE_MCAST, &lm) == ENOENT, "ABI: LEAVE_MCAST of an unknown membership: ENOENT");
	lm.events_reported = 1;
	ok(kcmd(fd, XIB_UCMA_LEAVE_MCAST, &lm) == EINVAL, "ABI: LEAVE_MCAST with its out field set: EINVAL");
	memset(&jm, 0, sizeof(jm));
	jm.id = id2;
	kaddr(&jm.addr, "239.1.2.180", 0);
	jm.join_flags = 2;
	ok(kcmd(fd, XIB_UCMA_JOIN_MCAST, &jm) == EINVAL, "ABI: JOIN_MCAST with unknown join flags: EINVAL");
	jm.join_flags = 0;
	jm.reserved = 1;
	ok(kcmd(fd, XIB_UCMA_JOIN_MCAST, &jm) == EINVAL, "ABI: JOIN_MCAST with reserved set: EINVAL");
	jm.reserved = 0;
	jm.mc_id = 3;
	ok(kcmd(fd, XIB_UCMA_JOIN_MCAST, &jm) == EINVAL, "ABI: JOIN_MCAST with the out field set: EINVAL");
	jm.mc_id = 0;
	jm.id = 0x7fff0000;
	ok(kcmd(fd, XIB_UCMA_JOIN_MCAST, &jm) == ENOENT, "ABI: JOIN_MCAST on an unknown id: ENOENT");
	jm.id = id2;
	ok(kcmd(fd, XIB_UCMA_JOIN_MCAST, &jm) == EINVAL, "ABI: JOIN_MCAST on an id with no address: EINVAL");

	memset(&mi, 0, sizeof(mi));
	mi.id = id;
	mi.fd = 1000;
	ok(kcmd(fd, XIB_UCMA_MIGRATE_ID, &mi) == EBADF, "ABI: MIGRATE_ID from a closed fd: EBADF");
	nul = open("/dev/null", O_RDWR);
	mi.fd = nul;
	ok(kcmd(fd, XIB_UCMA_MIGRATE_ID, &mi) == EINVAL, "ABI: MIGRATE_ID from a file that is not a channel: EINVAL");
	close(nul);

	ok(kcmd(fd, _IOWR(XIB_UCMA_IOCTL_MAGIC, 0x40, struct xib_ucma_listen), &d) == ENOTTY,
	   "ABI: an unknown command: ENOTTY");
	ok(kcmd(fd, _IOWR(XIB_UCMA_IOCTL_MAGIC, 0x02, struct xib_ucma_listen), &d) == ENOTTY,
	   "ABI: a known number with the wrong size: ENOTTY");

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(&ev, 0, sizeof(ev));
	ok(kcmd(fd, XIB_UCMA_GET_EVENT, &ev) == EAGAIN, "ABI: GET_EVENT, non-blocking, nothing queued: EAGAIN");
	ev.reserved = 1;
	ok(kcmd(fd, XIB_UCMA_GET_EVENT, &ev) == EINVAL, "ABI: GET_EVENT with its (out) fields not zero: EINVAL");

	/* events_reported, uid echo, migration between files */
	memset(&ra, 0, sizeof(ra));
	ra.id = id;
	ra.timeout_ms = 2000;
	kaddr(&ra.dst, peer, 7174);
	ok(kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra) == 0, "ABI: RESOLVE_ADDR: 0");
	p.fd = fd;
	p.events = POLLIN;
	poll(&p, 1, EV_MS);
	/* a zero page that cannot be written: the copy in works, the copy out fails */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(ro != MAP_FAILED && kcmd(fd, XIB_UCMA_GET_EVENT, ro) == EFAULT,
	   "ABI: GET_EVENT into a read-only buffer: EFAULT");
	if (ro != MAP_FAILED)
		munmap(ro, 4096);
	memset(&ev, 0, sizeof(ev));
	ok(kcmd(fd, XIB_UCMA_GET_EVENT, &ev) == 0 && ev.event == XIB_UCMA_EVENT_ADDR_RESOLVED &&
	   ev.id == id && ev.uid == 42 && ev.status == 0,
	   "ABI: the event survived the failed GET_EVENT: ADDR_RESOLVED, the id's handle, uid 42 echoed");
	fd2 = open("/dev/xib/rdma_cm", O_RDWR | O_CLOEXEC);
	memset(&ra, 0, sizeof(ra));
	ra.id = id2;
	ra.timeout_ms = 2000;
	kaddr(&ra.dst, peer, 7174);
	kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra);
	poll(&p, 1, EV_MS);
	memset(&mi, 0, sizeof(mi));
	mi.id = id2;
	mi.fd = fd;
	ok(fd2 >= 0 && kcmd(fd2, XIB_UCMA_MIGRATE_ID, &mi) == 0 && mi.events_reported == 0,
	   "ABI: MIGRATE_ID with an unread event: 0, events_reported 0");
	memset(&ev, 0, sizeof(ev));
	ok(kcmd(fd, XIB_UCMA_GET_EVENT, &ev) == EAGAIN, "ABI: the event left the old file");
	fcntl(fd2, F_SETFL, fcntl(fd2, F_GETFL) | O_NONBLOCK);
	memset(&ev, 0, sizeof(ev));
	ok(kcmd(fd2, XIB_UCMA_GET_EVENT, &ev) == 0 && ev.id == mi.new_id &&
	   ev.event == XIB_UCMA_EVENT_ADDR_RESOLVED, "ABI: ... and is read on the new one, with the new handle");
	memset(&d, 0, sizeof(d));
	d.id = id2;
	ok(kcmd(fd, XIB_UCMA_DESTROY_ID, &d) == ENOENT, "ABI: the old handle is gone");
	d.id = mi.new_id;
	ok(kcmd(fd2, XIB_UCMA_DESTROY_ID, &d) == 0 && d.events_reported == 1,
	   "ABI: DESTROY_ID returns events_reported (1)");
	memset(&d, 0, sizeof(d));
	d.id = id;
	ok(kcmd(fd, XIB_UCMA_DESTROY_ID, &d) == 0 && d.events_reported == 1,
	   "ABI: DESTROY_ID of the first id: events_reported 1");
	close(fd2);

	/* closing a file with ids and queued events */
	id = kcreate(fd, XIB_UCMA_PS_TCP, IBV_QPT_RC);
	memset(&ra, 0, sizeof(ra));
	ra.id = id;
	ra.timeout_ms = 2000;
	kaddr(&ra.dst, peer, 7174);
	kcmd(fd, XIB_UCMA_RESOLVE_ADDR, &ra);
	poll(&p, 1, EV_MS);
	ok(close(fd) == 0, "ABI: closing a channel with an id and an unread event");
}

/* --- limits ----------------------------------------------------------------- */

/* The events queued on @ch, as its fdinfo says; -1 if it cannot be read. */
static int queued(struct rdma_event_channel *ch)
{
	char path[64], line[128];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ch->fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "events: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void t_limits(const char *peer, int max_ids, int max_events)
{
	struct rdma_event_channel *ch = channel(), *ch2 = channel();
	struct rdma_cm_id **ids = calloc(max_ids + 1, sizeof(*ids)), *other = NULL;
	struct sockaddr_in dst = sin_of(peer, 7174);
	struct rdma_cm_event *ev;
	int i, made = 0, r;

	for (i = 0; i < max_ids; i++)
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP) == 0)
			made++;
	errno = 0;
	r = rdma_create_id(ch, &ids[max_ids], NULL, RDMA_PS_TCP);
	ok(made == max_ids && r == -1 && errno == ENOMEM,
	   "limits: %d ids on a channel, the next one ENOMEM (%s)", made, strerror(errno));
	ok(rdma_create_id(ch2, &other, NULL, RDMA_PS_TCP) == 0,
	   "limits: the bound is per channel: another channel still creates ids");
	rdma_destroy_id(other);
	rdma_destroy_id(ids[0]);
	ok(rdma_create_id(ch, &ids[0], NULL, RDMA_PS_TCP) == 0,
	   "limits: a destroyed id makes room for a new one");

	/* queued events: max_events resolutions complete unread */
	if (max_events >= max_ids) {
		ok(0, "limits: need fewer events (%d) than ids (%d)", max_events, max_ids);
		goto out;
	}
	for (i = 0; i < max_events; i++)
		rdma_resolve_addr(ids[i], NULL, SA(dst), 2000);
	for (i = 0; i < 100 && queued(ch) < max_events; i++)
		usleep(100000);
	ok(queued(ch) == max_events, "limits: the channel's fdinfo counts %d queued events", queued(ch));
	errno = 0;
	r = rdma_resolve_addr(ids[max_events], NULL, SA(dst), 2000);
	ok(r == -1 && errno == ENOMEM,
	   "limits: with %d events queued, starting another operation: ENOMEM (%s)", max_events,
	   strerror(errno));
	ev = next_event(ch, EV_MS);
	if (ev)
		rdma_ack_cm_event(ev);
	ok(ev && rdma_resolve_addr(ids[max_events], NULL, SA(dst), 2000) == 0,
	   "limits: once one is read, the operation starts");
	while ((ev = next_event(ch, QUIET_MS)))
		rdma_ack_cm_event(ev);
out:
	for (i = 0; i < max_ids; i++)
		if (ids[i])
			rdma_destroy_id(ids[i]);
	free(ids);
	rdma_destroy_event_channel(ch);
	rdma_destroy_event_channel(ch2);
}

/* --- connections --------------------------------------------------------- */

/* A connection's verbs side: a buffer, its MR, the id's QP and CQs. */
struct side {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	char buf[256];
	struct ibv_ah *ah;
};

static int side_qp(struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = qp_attr(type);
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (rdma_create_qp(s->id, NULL, &a))
		return -1;
	s->mr = ibv_reg_mr(s->id->pd, s->buf, sizeof(s->buf), IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		return -1;
	memset(s->buf, 0, sizeof(s->buf));
	sge.addr = (uintptr_t)s->buf;
	sge.length = sizeof(s->buf);
	sge.lkey = s->mr->lkey;
	return ibv_post_recv(s->id->qp, &wr, &bad);
}

static void side_free(struct side *s)
{
	if (s->ah)
		ibv_destroy_ah(s->ah);
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->id)
		rdma_destroy_id(s->id);
	memset(s, 0, sizeof(*s));
}

/* A completion on @cq within CONN_MS: its status, or -1. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now() + CONN_MS / 1000.0;
	int n;

	while (now() < end) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return wc->status;
		usleep(1000);
	}
	return -1;
}

static int side_send(struct side *s, const char *msg, struct ibv_ah *ah, uint32_t qpn)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + 128,
		.length = (uint32_t)strlen(msg) + 1,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	strcpy(s->buf + 128, msg);
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	}
	if (ibv_post_send(s->id->qp, &wr, &bad))
		return -1;
	return poll_one(s->id->send_cq, &wc) == IBV_WC_SUCCESS ? 0 : -1;
}

/* The message received into the buffer (after @skip bytes, a UD GRH). */
static const char *side_recv(struct side *s, size_t skip)
{
	struct ibv_wc wc;

	if (poll_one(s->id->recv_cq, &wc) != IBV_WC_SUCCESS)
		return "(no message)";
	return s->buf + skip;
}

/* Private data that reads "@tag:@num", NUL included, then zeros. */
static int pdata_is(const void *p, uint8_t len, const char *tag, uint32_t *num)
{
	const char *s = p;
	char want[64];
	size_t n;
	unsigned int i;

	if (!p)
		return 0;
	snprintf(want, sizeof(want), "%s:", tag);
	n = strlen(want);
	if (len < n + 2 || memcmp(s, want, n) || !memchr(s, 0, len))
		return 0;
	if (num)
		*num = (uint32_t)strtoul(s + n, NULL, 10);
	for (i = (unsigned int)strlen(s) + 1; i < len; i++)
		if (s[i])
			return 0;
	return 1;
}

static struct rdma_cm_id *client_id(const char *server, int port, enum rdma_port_space ps,
				    struct side *s, int with_qp)
{
	struct rdma_event_channel *ch = channel();

	memset(s, 0, sizeof(*s));
	s->id = new_id(ch, ps);
	if (resolve(s->id, server, port, 1)) {
		ok(0, "client: resolving %s", server);
		return NULL;
	}
	if (with_qp && side_qp(s, ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC)) {
		ok(0, "client: the QP: %s", strerror(errno));
		return NULL;
	}
	return s->id;
}

static void client_done(struct side *s)
{
	struct rdma_event_channel *ch = s->id ? s->id->channel : NULL;

	side_free(s);
	if (ch)
		rdma_destroy_event_channel(ch);
}

/* Scenario 1: RC with a QP; conn values; data; the client disconnects. */
static void c_rc(const char *server, int port)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct side s;
	char pd[56];
	uint32_t sqpn = 0;

	if (!client_id(server, port, RDMA_PS_TCP, &s, 1))
		goto out;
	snprintf(pd, sizeof(pd), "hello:%u", s.id->qp->qp_num);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = (uint8_t)(strlen(pd) + 1);
	cp.responder_resources = 2;
	cp.initiator_depth = 1;
	cp.flow_control = 1;
	cp.retry_count = 5;
	cp.rnr_retry_count = 6;
	ok(rdma_connect(s.id, &cp) == 0, "#149 rdma_connect (RC): 0 (started) (%s)", strerror(errno));
	memset(pd, 0, sizeof(pd));	/* #152: copied at the call */
	ev = expect(s.id->channel, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "#161 active side with a QP");
	if (!ev)
		goto out;
	ok(ev->status == 0 && ev->id == s.id, "#169 ESTABLISHED: status 0, the id");
	ok(pdata_is(ev->param.conn.private_data, ev->param.conn.private_data_len, "accept", &sqpn),
	   "#152 the accept's private data arrives (len %u), zero-padded",
	   ev->param.conn.private_data_len);
	ok(ev->param.conn.qp_num == sqpn && sqpn,
	   "#158 param.conn.qp_num is the server's QP (%u, its data says %u)",
	   ev->param.conn.qp_num, sqpn);
	ok(ev->param.conn.responder_resources == 2 && ev->param.conn.initiator_depth == 1,
	   "#153 responder_resources %u = the server's initiator_depth (2), initiator_depth %u = its responder_resources (1)",
	   ev->param.conn.responder_resources, ev->param.conn.initiator_depth);
	ok(ev->param.conn.srq == 0, "#158 srq: the server's QP has none");
	rdma_ack_cm_event(ev);
	ok(qp_state(s.id->qp) == IBV_QPS_RTS, "#174 the library moved the QP to RTS");
	ok(side_send(&s, "ping", NULL, 0) == 0, "data: the client sends");
	ok(!strcmp(side_recv(&s, 0), "pong"), "data: the client receives the answer");
	ok(rdma_disconnect(s.id) == 0, "#164 rdma_disconnect by the active side: 0");
	ev = expect(s.id->channel, RDMA_CM_EVENT_DISCONNECTED, CONN_MS, "#164 the side that disconnected");
	if (ev) {
		ok(ev->status == 0 && ev->id == s.id, "#169 DISCONNECTED: status 0");
		rdma_ack_cm_event(ev);
	}
	ok(qp_state(s.id->qp) == IBV_QPS_ERR, "#164 disconnect moved the QP to the error state");
out:
	client_done(&s);
}

/* Scenario 2: the server rejects with private data. */
static void c_reject(const char *server, int port)
{
	struct rdma_conn_param cp = { .private_data = "reject-me:0", .private_data_len = 12,
				      .qp_num = 0x4321 };
	struct rdma_cm_event *ev;
	struct side s;

	if (!client_id(server, port, RDMA_PS_TCP, &s, 0))
		goto out;
	ok(rdma_connect(s.id, &cp) == 0, "#149 rdma_connect without a QP (qp_num given): 0 (%s)",
	   strerror(errno));
	ev = expect(s.id->channel, RDMA_CM_EVENT_REJECTED, CONN_MS, "#162 a rejected request");
	if (ev) {
		ok(ev->status == 28, "#162 REJECTED: status 28 (consumer defined), got %d", ev->status);
		ok(pdata_is(ev->param.conn.private_data, ev->param.conn.private_data_len, "no-thanks", NULL),
		   "#162 the reject's private data arrives");
		rdma_ack_cm_event(ev);
	}
out:
	client_done(&s);
}

/* Scenario 3: no QP: CONNECT_RESPONSE, rdma_establish; the server disconnects. */
static void c_response(const char *server, int port)
{
	struct rdma_conn_param cp = { .private_data = "response:0", .private_data_len = 11,
				      .qp_num = 0x1234 };
	struct rdma_cm_event *ev;
	struct side s;

	if (!client_id(server, port, RDMA_PS_TCP, &s, 0))
		goto out;
	ok(rdma_connect(s.id, &cp) == 0, "#149 rdma_connect without a QP (qp_num given): 0");
	ev = expect(s.id->channel, RDMA_CM_EVENT_CONNECT_RESPONSE, CONN_MS,
		    "#161 an id without a QP gets CONNECT_RESPONSE");
	if (!ev)
		goto out;
	ok(ev->status == 0 && pdata_is(ev->param.conn.private_data, ev->param.conn.private_data_len,
				       "accept", NULL), "#161 CONNECT_RESPONSE: status 0, the accept's data");
	rdma_ack_cm_event(ev);
	ok(rdma_establish(s.id) == 0, "rdma_establish after CONNECT_RESPONSE: 0");
	ev = expect(s.id->channel, RDMA_CM_EVENT_DISCONNECTED, CONN_MS,
		    "#188 the server disconnects: the client learns it");
	if (ev)
		rdma_ack_cm_event(ev);
	ok(rdma_disconnect(s.id) == 0, "#164 the client answers the disconnect: 0");
out:
	client_done(&s);
}

/* Scenario 4: UD over SIDR; a datagram to the server. */
static void c_ud(const char *server, int port)
{
	struct rdma_conn_param cp = { .private_data = "ud-hello:0", .private_data_len = 11 };
	struct rdma_cm_event *ev;
	struct side s;
	uint32_t sqpn = 0;

	if (!client_id(server, port, RDMA_PS_UDP, &s, 1))
		goto out;
	ok(rdma_connect(s.id, &cp) == 0, "#149 rdma_connect (UDP): 0, a SIDR lookup");
	ev = expect(s.id->channel, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "#171 #187 UD lookup");
	if (!ev)
		goto out;
	ok(ev->status == 0 && pdata_is(ev->param.ud.private_data, ev->param.ud.private_data_len,
				       "ud", &sqpn), "#171 ESTABLISHED (UD): status 0, the reply's data");
	ok(ev->param.ud.qp_num == sqpn && sqpn, "#171 param.ud.qp_num is the server's QP (%u)",
	   ev->param.ud.qp_num);
	ok(ev->param.ud.qkey == RDMA_UDP_QKEY, "#171 param.ud.qkey is RDMA_UDP_QKEY (0x%x)",
	   ev->param.ud.qkey);
	ok(ev->param.ud.ah_attr.is_global && is_gid_of(&ev->param.ud.ah_attr.grh.dgid, server),
	   "#171 param.ud.ah_attr: global, to the server's GID");
	s.ah = ibv_create_ah(s.id->pd, &ev->param.ud.ah_attr);
	ok(s.ah != NULL, "#171 an AH from param.ud.ah_attr");
	rdma_ack_cm_event(ev);
	ok(s.ah && side_send(&s, "datagram", s.ah, sqpn) == 0, "#171 a datagram to the server's QP");
out:
	client_done(&s);
}

static void run_client(const char *server, int port)
{
	c_rc(server, port);
	c_reject(server, port);
	c_response(server, port);
	c_ud(server, port);
}

/* The passive side: the next CONNECT_REQUEST of @lid on @ch. */
static struct rdma_cm_event *s_request(struct rdma_event_channel *ch, struct rdma_cm_id *lid,
				       const char *what)
{
	static bool first = true;
	struct rdma_cm_event *ev = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST,
					  first ? FIRST_MS : CONN_MS, what);

	first = false;

	if (ev)
		ok(ev->listen_id == lid && ev->id && ev->id != lid && ev->id->verbs &&
		   ev->id->channel == ch && ev->status == 0,
		   "#148 CONNECT_REQUEST: listen_id is the listener, id a new id bound to a device");
	return ev;
}

static void s_rc(struct rdma_event_channel *ch, struct rdma_cm_id *lid, const char *local)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct side s = { 0 };
	uint32_t cqpn = 0;
	char pd[64];

	ev = s_request(ch, lid, "#148 scenario 1 (RC)");
	if (!ev)
		return;
	s.id = ev->id;
	ok(pdata_is(ev->param.conn.private_data, ev->param.conn.private_data_len, "hello", &cqpn) &&
	   ev->param.conn.private_data_len >= 56,
	   "#152 the request's private data, zero-padded to %u bytes", ev->param.conn.private_data_len);
	ok(ev->param.conn.qp_num == cqpn && cqpn, "#158 param.conn.qp_num is the client's QP (%u)", cqpn);
	ok(ev->param.conn.responder_resources == 1 && ev->param.conn.initiator_depth == 2,
	   "#153 responder_resources %u = the client's initiator_depth (1), initiator_depth %u = its responder_resources (2)",
	   ev->param.conn.responder_resources, ev->param.conn.initiator_depth);
	ok(ev->param.conn.flow_control == 1 && ev->param.conn.retry_count == 5 &&
	   ev->param.conn.rnr_retry_count == 6 && ev->param.conn.srq == 0,
	   "#155 #156 #157 flow_control 1, retry_count 5, rnr_retry_count 6, srq 0 as sent");
	ok(is_ip(rdma_get_local_addr(s.id), local) && rdma_get_src_port(s.id) == rdma_get_src_port(lid),
	   "#146 the new id's local address and port: the listener's");
	ok(rdma_get_peer_addr(s.id)->sa_family == AF_INET && rdma_get_dst_port(s.id) != 0,
	   "#146 the new id's peer address and port: the client's");
	if (side_qp(&s, IBV_QPT_RC)) {
		ok(0, "server: the QP: %s", strerror(errno));
		rdma_ack_cm_event(ev);
		rdma_destroy_id(s.id);
		return;
	}
	snprintf(pd, sizeof(pd), "accept:%u", s.id->qp->qp_num);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = (uint8_t)(strlen(pd) + 1);
	cp.responder_resources = 1;
	cp.initiator_depth = 2;
	cp.rnr_retry_count = 7;
	/* #151: the event is acknowledged only after the accept */
	ok(rdma_accept(s.id, &cp) == 0, "#150 rdma_accept on the new id: 0 (%s)", strerror(errno));
	rdma_ack_cm_event(ev);
	ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "#161 #186 passive side");
	if (ev) {
		ok(ev->id == s.id && ev->status == 0, "#169 ESTABLISHED on the new id, status 0");
		rdma_ack_cm_event(ev);
	}
	ok(!strcmp(side_recv(&s, 0), "ping"), "data: the server receives");
	ok(side_send(&s, "pong", NULL, 0) == 0, "data: the server answers");
	ev = expect(ch, RDMA_CM_EVENT_DISCONNECTED, CONN_MS, "#164 the client disconnected");
	if (ev) {
		ok(ev->id == s.id, "#164 DISCONNECTED on the new id");
		rdma_ack_cm_event(ev);
	}
	ok(rdma_disconnect(s.id) == 0, "#186 the server's rdma_disconnect after DISCONNECTED: 0");
	side_free(&s);
}

static void s_reject(struct rdma_event_channel *ch, struct rdma_cm_id *lid)
{
	struct rdma_cm_event *ev = s_request(ch, lid, "#148 scenario 2 (to reject)");
	struct rdma_cm_id *id;

	if (!ev)
		return;
	id = ev->id;
	ok(pdata_is(ev->param.conn.private_data, ev->param.conn.private_data_len, "reject-me", NULL),
	   "#152 the request's data");
	ok(ev->param.conn.qp_num == 0x4321, "#158 without a QP the request says conn_param's qp_num (0x%x)",
	   ev->param.conn.qp_num);
	ok(rdma_reject(id, "no-thanks:0", 12) == 0, "#162 rdma_reject with private data: 0");
	rdma_ack_cm_event(ev);
	ok(rdma_destroy_id(id) == 0, "the rejected id goes");
}

/* Move @qp (not the id's) with the attributes rdma_init_qp_attr gives. */
static int app_move(struct rdma_cm_id *id, struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr;
	int mask;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = state;
	if (rdma_init_qp_attr(id, &attr, &mask))
		return -1;
	return ibv_modify_qp(qp, &attr, mask) ? -1 : 0;
}

/*
 * Scenario 3, passive side: the application's own QP (ibv_create_qp),
 * moved to RTS with rdma_init_qp_attr before rdma_accept, as rping -q and
 * cmtime do.
 */
static void s_response(struct rdma_event_channel *ch, struct rdma_cm_id *lid)
{
	struct rdma_conn_param cp = { .private_data = "accept:0", .private_data_len = 9 };
	struct rdma_cm_event *ev = s_request(ch, lid, "#148 scenario 3 (client without QP)");
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);
	struct rdma_cm_id *id;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;

	if (!ev)
		return;
	id = ev->id;
	ok(ev->param.conn.qp_num == 0x1234, "#158 conn_param.qp_num of a QP-less id reaches the peer");
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	a.send_cq = a.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &a) : NULL;
	ok(qp && app_move(id, qp, IBV_QPS_INIT) == 0 && app_move(id, qp, IBV_QPS_RTR) == 0 &&
	   app_move(id, qp, IBV_QPS_RTS) == 0 && qp_state(qp) == IBV_QPS_RTS,
	   "rdma_init_qp_attr: INIT, RTR and RTS of the application's QP before rdma_accept");
	cp.qp_num = qp ? qp->qp_num : 0x2345;
	if (rdma_accept(id, &cp) == 0) {
		rdma_ack_cm_event(ev);
		ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "#161 after rdma_establish");
		if (ev)
			rdma_ack_cm_event(ev);
		ok(rdma_disconnect(id) == 0, "#188 the passive side disconnects: 0");
		ev = expect(ch, RDMA_CM_EVENT_DISCONNECTED, CONN_MS, "#164 the side that disconnected");
		if (ev)
			rdma_ack_cm_event(ev);
	} else {
		ok(0, "server: accept in scenario 3: %s", strerror(errno));
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

static void s_ud(struct rdma_event_channel *ch, struct rdma_cm_id *ulid)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev = s_request(ch, ulid, "#148 scenario 4 (UD)");
	struct side s = { 0 };
	char pd[64];

	if (!ev)
		return;
	s.id = ev->id;
	ok(pdata_is(ev->param.ud.private_data, ev->param.ud.private_data_len, "ud-hello", NULL),
	   "#170 a UD request's data is in param.ud");
	if (side_qp(&s, IBV_QPT_UD)) {
		ok(0, "server: the UD QP: %s", strerror(errno));
		rdma_ack_cm_event(ev);
		side_free(&s);
		return;
	}
	snprintf(pd, sizeof(pd), "ud:%u", s.id->qp->qp_num);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = (uint8_t)(strlen(pd) + 1);
	ok(rdma_accept(s.id, &cp) == 0, "#149 rdma_accept of a UD request: 0 (the SIDR reply)");
	/* the listener's destroy waits for the request's acknowledgement */
	check_destroy_waits(ulid, ev, "CONNECT_REQUEST of the listener");
	ok(!strcmp(side_recv(&s, 40), "datagram"), "#171 #187 the client's datagram arrives");
	side_free(&s);
}

static void run_server(const char *local, int port)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *lid = new_id(ch, RDMA_PS_TCP), *ulid = new_id(ch, RDMA_PS_UDP);
	struct sockaddr_in s = sin_of(local, port);

	if (rdma_bind_addr(lid, SA(s)) || rdma_listen(lid, 8) ||
	    rdma_bind_addr(ulid, SA(s)) || rdma_listen(ulid, 8)) {
		printf("Bail out! server: listen on %s:%d: %s\n", local, port, strerror(errno));
		exit(2);
	}
	printf("READY\n");
	fflush(stdout);
	s_rc(ch, lid, local);
	s_reject(ch, lid);
	s_response(ch, lid);
	s_ud(ch, ulid);
	ok(quiet(ch), "no event left over");
	ok(rdma_destroy_id(lid) == 0, "the listener goes");
	rdma_destroy_event_channel(ch);
}

/* hold: one connection, then wait to be killed. */
static void run_hold(const char *local, int port)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *lid = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in s = sin_of(local, port);
	struct rdma_cm_event *ev;
	struct side c = { 0 };

	if (rdma_bind_addr(lid, SA(s)) || rdma_listen(lid, 8)) {
		printf("Bail out! hold: listen: %s\n", strerror(errno));
		exit(2);
	}
	printf("READY\n");
	fflush(stdout);
	ev = s_request(ch, lid, "hold: the request");
	if (!ev)
		return;
	c.id = ev->id;
	ok(side_qp(&c, IBV_QPT_RC) == 0 && rdma_accept(c.id, NULL) == 0, "hold: accepted");
	rdma_ack_cm_event(ev);
	ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "hold: connected");
	if (ev)
		rdma_ack_cm_event(ev);
	printf("ESTABLISHED\n");
	fflush(stdout);
	alarm(0);
	for (;;)
		pause();
}

static void run_wait_disconnect(const char *server, int port, int secs)
{
	struct rdma_cm_event *ev;
	struct side s;

	if (!client_id(server, port, RDMA_PS_TCP, &s, 1))
		goto out;
	ok(rdma_connect(s.id, NULL) == 0, "#149 rdma_connect: 0");
	ev = expect(s.id->channel, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, "#161 connected");
	if (!ev)
		goto out;
	rdma_ack_cm_event(ev);
	printf("ESTABLISHED\n");
	fflush(stdout);
	ev = expect(s.id->channel, RDMA_CM_EVENT_DISCONNECTED, secs * 1000,
		    "the peer's process died: DISCONNECTED");
	if (ev)
		rdma_ack_cm_event(ev);
out:
	client_done(&s);
}

static void run_no_listener(const char *server, int port, int secs)
{
	struct rdma_cm_event *ev;
	struct side s;
	double t0;

	if (!client_id(server, port, RDMA_PS_TCP, &s, 1))
		goto out;
	t0 = now();
	ok(rdma_connect(s.id, NULL) == 0, "#149 rdma_connect where nobody listens: 0 (started)");
	ev = expect(s.id->channel, RDMA_CM_EVENT_REJECTED, secs * 1000,
		    "#162 nobody listens on the port");
	if (ev) {
		ok(ev->status > 0 && now() - t0 < secs,
		   "#162 REJECTED: reason %d, after %.2f s (limit %d s)", ev->status, now() - t0, secs);
		rdma_ack_cm_event(ev);
	}
out:
	client_done(&s);
}

static void run_wait_removal(const char *local, const char *peer, int secs)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *lid = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in s = sin_of(local, 0);
	struct rdma_cm_event *ev;
	struct side c = { 0 };
	int i, got_id = 0, got_l = 0;
	/* a UD id with a multicast group, on a channel of its own */
	struct rdma_event_channel *mch = channel();
	struct rdma_cm_id *mid = new_id(mch, RDMA_PS_UDP);
	struct sockaddr_in g = sin_of("239.1.2.190", 0);
	static int mctx;

	c.id = new_id(ch, RDMA_PS_TCP);
	if (resolve(c.id, peer, 7174, 1) || side_qp(&c, IBV_QPT_RC) ||
	    rdma_bind_addr(lid, SA(s)) || rdma_listen(lid, 4) ||
	    resolve(mid, peer, 7175, 0) || rdma_join_multicast(mid, SA(g), &mctx)) {
		printf("Bail out! wait-removal: setup: %s\n", strerror(errno));
		exit(2);
	}
	ev = expect(mch, RDMA_CM_EVENT_MULTICAST_JOIN, EV_MS, "wait-removal: the group joined");
	if (ev)
		rdma_ack_cm_event(ev);
	printf("READY\n");
	fflush(stdout);
	for (i = 0; i < 2; i++) {
		ev = expect(ch, RDMA_CM_EVENT_DEVICE_REMOVAL, secs * 1000,
			    "#139 the device was removed");
		if (!ev)
			break;
		got_id |= ev->id == c.id;
		got_l |= ev->id == lid;
		ok(ev->status == 0, "#169 DEVICE_REMOVAL: status 0");
		rdma_ack_cm_event(ev);
	}
	ok(got_id && got_l, "#139 DEVICE_REMOVAL for the resolved id and for the bound listener");
	ev = expect(mch, RDMA_CM_EVENT_MULTICAST_ERROR, secs * 1000,
		    "#176 the joined group, its device removed");
	if (ev) {
		ok(ev->id == mid && ev->status == -ENODEV && ev->param.ud.private_data == &mctx,
		   "#176 MULTICAST_ERROR: the id, status -ENODEV (%d), the join's context",
		   ev->status);
		rdma_ack_cm_event(ev);
	}
	ev = expect(mch, RDMA_CM_EVENT_DEVICE_REMOVAL, EV_MS, "#139 then the UD id's DEVICE_REMOVAL");
	if (ev)
		rdma_ack_cm_event(ev);
	ok(rdma_leave_multicast(mid, SA(g)) == 0, "#178 the group can still be left");
	ok(rdma_destroy_id(mid) == 0, "#139 and the UD id destroyed");
	rdma_destroy_event_channel(mch);
	errno = 0;
	ok(rdma_resolve_route(c.id, 1000) == -1, "#139 after DEVICE_REMOVAL only destroy remains (%s)",
	   strerror(errno));
	side_free(&c);
	ok(rdma_destroy_id(lid) == 0, "#139 the ids can be destroyed after DEVICE_REMOVAL");
	rdma_destroy_event_channel(ch);
}

/* --- cycles: many connections, one after the other ---------------------- */

/* The next event of @ch within @ms if it is @type (else NULL, acked). */
static struct rdma_cm_event *want(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
				  int ms, const char **got)
{
	struct rdma_cm_event *ev = next_event(ch, ms);

	*got = ev ? rdma_event_str(ev->event) : "nothing";
	if (ev && ev->event != type) {
		rdma_ack_cm_event(ev);
		ev = NULL;
	}
	return ev;
}

static void run_cycles_server(const char *local, int port, int n)
{
	struct rdma_event_channel *ch = channel();
	struct rdma_cm_id *lid = new_id(ch, RDMA_PS_TCP);
	struct sockaddr_in sa = sin_of(local, port);
	int requests = 0, established = 0, done = 0, msgs = 0, bad = 0;
	struct rdma_cm_event *ev;
	struct side *s;

	if (rdma_bind_addr(lid, SA(sa)) || rdma_listen(lid, 8)) {
		printf("Bail out! cycles-server: listen on %s:%d: %s\n", local, port,
		       strerror(errno));
		exit(2);
	}
	printf("READY\n");
	fflush(stdout);
	while (done < n) {
		ev = next_event(ch, requests ? CONN_MS : FIRST_MS);
		if (!ev) {
			ok(0, "cycles-server: no event after %d of %d connections", done, n);
			break;
		}
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			requests++;
			s = calloc(1, sizeof(*s));
			if (!s) {
				printf("Bail out! cycles-server: out of memory\n");
				exit(2);
			}
			s->id = ev->id;
			s->id->context = s;
			if (side_qp(s, IBV_QPT_RC)) {
				ok(0, "cycles-server: request %d: the QP: %s", requests,
				   strerror(errno));
				bad++;
			} else if (rdma_accept(s->id, NULL)) {
				ok(0, "cycles-server: request %d: rdma_accept: %s (the peer's QP %u)",
				   requests, strerror(errno), ev->param.conn.qp_num);
				bad++;
			}
			rdma_ack_cm_event(ev);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			established++;
			rdma_ack_cm_event(ev);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			s = ev->id->context;
			rdma_ack_cm_event(ev);
			if (!strncmp(side_recv(s, 0), "cycle ", 6))
				msgs++;
			/* the DREP; the id is destroyed next anyway */
			rdma_disconnect(s->id);
			side_free(s);
			free(s);
			done++;
			break;
		default:
			ok(0, "cycles-server: unexpected %s (status %d) after %d connections",
			   rdma_event_str(ev->event), ev->status, done);
			rdma_ack_cm_event(ev);
			bad++;
			break;
		}
		if (bad)
			break;
	}
	ok(done == n && requests == n && established == n && msgs == n,
	   "cycles-server: %d requests, %d established, %d messages, %d disconnected (of %d)",
	   requests, established, msgs, done, n);
	ok(quiet(ch), "cycles-server: no event left over");
	ok(rdma_destroy_id(lid) == 0, "cycles-server: the listener goes");
	rdma_destroy_event_channel(ch);
}

static void run_cycles(const char *server, int port, int n)
{
	struct rdma_event_channel *ch = channel();
	const char *step = NULL, *got = "";
	struct rdma_cm_event *ev;
	struct ibv_context *verbs = NULL;
	double t0 = now(), t;
	struct side s;
	char msg[32];
	int i;

	for (i = 0; i < n && !step; i++) {
		memset(&s, 0, sizeof(s));
		s.id = new_id(ch, RDMA_PS_TCP);
		got = "";
		if (resolve(s.id, server, port, 1)) {
			step = "resolve";
		} else if (side_qp(&s, IBV_QPT_RC)) {
			step = "create the QP";
			got = strerror(errno);
		} else if (verbs && s.id->verbs != verbs) {
			step = "the same device context as the first id";
		} else if (rdma_connect(s.id, NULL)) {
			step = "rdma_connect";
			got = strerror(errno);
		} else if (!(ev = want(ch, RDMA_CM_EVENT_ESTABLISHED, CONN_MS, &got))) {
			step = "ESTABLISHED";
		} else {
			rdma_ack_cm_event(ev);
			verbs = s.id->verbs;
			snprintf(msg, sizeof(msg), "cycle %d", i);
			if (side_send(&s, msg, NULL, 0)) {
				step = "send";
			} else if (rdma_disconnect(s.id)) {
				step = "rdma_disconnect";
				got = strerror(errno);
			} else if (!(ev = want(ch, RDMA_CM_EVENT_DISCONNECTED, CONN_MS, &got))) {
				step = "DISCONNECTED";
			} else {
				rdma_ack_cm_event(ev);
			}
		}
		side_free(&s);
	}
	t = now() - t0;
	if (step) {
		i--;
		ok(0, "cycles: cycle %d of %d failed at %s (%s)", i, n, step, got);
	} else {
		ok(1, "cycles: %d connections set up, one message each, disconnected and destroyed",
		   n);
	}
	printf("# cycles: %d in %.2f s, %.1f ms each\n", i, t, i ? 1000 * t / i : 0.0);
	ok(quiet(ch), "cycles: no event left over");
	rdma_destroy_event_channel(ch);
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmacm_checklist local LOCAL PEER | limits LOCAL PEER IDS EVENTS |\n"
		"  mc-limit LOCAL PEER |\n"
		"  server LOCAL PORT | client SERVER PORT | hold LOCAL PORT |\n"
		"  wait-disconnect SERVER PORT SECS | no-listener SERVER PORT SECS |\n"
		"  wait-removal LOCAL PEER SECS | cycles-server LOCAL PORT N |\n"
		"  cycles SERVER PORT N\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	signal(SIGALRM, on_alarm);
	alarm(240);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "local") && argc == 4) {
		t_channel();
		t_ids();
		t_event_str();
		t_bind(argv[2]);
		t_resolve(argv[2], argv[3]);
		t_addr_errors(argv[2], argv[3]);
		t_ack(argv[3]);
		t_listen(argv[2]);
		t_migrate(argv[3]);
		t_options(argv[2]);
		t_mcast(argv[2], argv[3]);
		t_devices();
		t_qp(argv[3]);
		t_abi(argv[2], argv[3]);
	} else if (!strcmp(mode, "mc-limit") && argc == 4) {
		t_mc_limit(argv[3]);
	} else if (!strcmp(mode, "limits") && argc == 6) {
		t_limits(argv[3], atoi(argv[4]), atoi(argv[5]));
	} else if (!strcmp(mode, "server") && argc == 4) {
		run_server(argv[2], atoi(argv[3]));
	} else if (!strcmp(mode, "client") && argc == 4) {
		run_client(argv[2], atoi(argv[3]));
	} else if (!strcmp(mode, "hold") && argc == 4) {
		run_hold(argv[2], atoi(argv[3]));
	} else if (!strcmp(mode, "wait-disconnect") && argc == 5) {
		run_wait_disconnect(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else if (!strcmp(mode, "no-listener") && argc == 5) {
		run_no_listener(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else if (!strcmp(mode, "wait-removal") && argc == 5) {
		run_wait_removal(argv[2], argv[3], atoi(argv[4]));
	} else if (!strcmp(mode, "cycles-server") && argc == 5) {
		run_cycles_server(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else if (!strcmp(mode, "cycles") && argc == 5) {
		run_cycles(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else {
		usage();
	}
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
