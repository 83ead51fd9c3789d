// SPDX-License-Identifier: BSD-2-Clause
/*
 * xib-ivshmem-server: the device side of the test VM's xib PCI function.
 *
 *   xib-ivshmem-server -s SOCKET [-m BYTES] [-n VECTORS] [-S SERIAL]
 *
 * Serves QEMU's ivshmem-doorbell devices (-chardev socket,path=SOCKET,...
 * -device ivshmem-doorbell,chardev=...,vectors=VECTORS) with the server
 * protocol of QEMU's docs/specs/ivshmem-spec.rst, which Debian's QEMU
 * speaks but for which it ships no server.  It makes the shared memory
 * (a memfd of BYTES, a power of two, default 1 MiB), writes xib's
 * signature header at its start (include/uapi/xib/hca-pci.h), and
 * listens on SOCKET.  SOCKET appears only once the server accepts
 * connections (it is bound under another name and renamed), so a
 * caller may start QEMU as soon as the path exists.
 *
 * The protocol: every message is a little-endian signed 64-bit integer,
 * some with one file descriptor (SCM_RIGHTS).  To a peer that connects,
 * the server sends the protocol version (0), the peer's ID, then -1 with
 * the shared memory's fd; then, for every other peer, that peer's ID
 * with each of its eventfds (one message per vector), and the new
 * peer's own ID with each of its own eventfds.  The other peers get the
 * new peer's eventfds the same way.  When a peer goes away, the others
 * get its ID without an fd.
 *
 * Runs until killed; messages go to standard error.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <xib/hca-pci.h>

#define MAX_PEERS	16
#define MAX_VECTORS	64

struct peer {
	int sock;		/* -1: free slot */
	int efd[MAX_VECTORS];
};

static struct peer peers[MAX_PEERS];
static unsigned int vectors = 2;
static int shm_fd = -1;

static void die(const char *what)
{
	fprintf(stderr, "xib-ivshmem-server: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Send @val, with @fd unless it is negative.  0, or -1 on error. */
static int send_msg(int sock, int64_t val, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	int64_t le = (int64_t)htole64((uint64_t)val);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cmsg;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(le))
		return -1;
	return 0;
}

/* Send @id's eventfds to the peer on @sock. */
static int send_eventfds(int sock, unsigned int id)
{
	unsigned int v;

	for (v = 0; v < vectors; v++)
		if (send_msg(sock, id, peers[id].efd[v]))
			return -1;
	return 0;
}

static void drop_peer(unsigned int id)
{
	unsigned int i, v;

	close(peers[id].sock);
	peers[id].sock = -1;
	for (v = 0; v < vectors; v++)
		close(peers[id].efd[v]);
	for (i = 0; i < MAX_PEERS; i++)
		if (peers[i].sock >= 0)
			send_msg(peers[i].sock, id, -1);
	fprintf(stderr, "xib-ivshmem-server: peer %u left\n", id);
}

static void add_peer(int sock)
{
	unsigned int id, i, v;

	for (id = 0; id < MAX_PEERS && peers[id].sock >= 0; id++)
		;
	if (id == MAX_PEERS) {
		fprintf(stderr, "xib-ivshmem-server: too many peers\n");
		close(sock);
		return;
	}
	for (v = 0; v < vectors; v++) {
		peers[id].efd[v] = eventfd(0, EFD_CLOEXEC);
		if (peers[id].efd[v] < 0)
			die("eventfd");
	}
	peers[id].sock = sock;
	if (send_msg(sock, 0, -1) || send_msg(sock, id, -1) ||
	    send_msg(sock, -1, shm_fd))
		goto fail;
	for (i = 0; i < MAX_PEERS; i++) {
		if (i == id || peers[i].sock < 0)
			continue;
		if (send_eventfds(sock, i))
			goto fail;
		send_eventfds(peers[i].sock, id);
	}
	if (send_eventfds(sock, id))
		goto fail;
	fprintf(stderr, "xib-ivshmem-server: peer %u joined\n", id);
	return;

fail:
	fprintf(stderr, "xib-ivshmem-server: peer %u: %s\n", id, strerror(errno));
	drop_peer(id);
}

static void usage(void)
{
	fprintf(stderr, "usage: xib-ivshmem-server -s SOCKET [-m BYTES] [-n VECTORS] [-S SERIAL]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long size = 1 << 20, serial = 0;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct pollfd pfd[MAX_PEERS + 1];
	const char *path = NULL;
	struct xib_pci_sig *sig;
	char tmp[sizeof(sun.sun_path)];
	unsigned int i;
	int c, lsock;

	while ((c = getopt(argc, argv, "s:m:n:S:")) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'm': size = strtoull(optarg, NULL, 0); break;
		case 'n': vectors = strtoul(optarg, NULL, 0); break;
		case 'S': serial = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!path || optind != argc)
		usage();
	if (size < 4096 || (size & (size - 1)) || vectors < 2 || vectors > MAX_VECTORS) {
		fprintf(stderr, "xib-ivshmem-server: size must be a power of two >= 4096, vectors 2..%d\n",
			MAX_VECTORS);
		return 2;
	}
	if (strlen(path) + 5 > sizeof(sun.sun_path)) {
		fprintf(stderr, "xib-ivshmem-server: socket path too long\n");
		return 2;
	}

	shm_fd = memfd_create("xib-ivshmem", MFD_CLOEXEC);
	if (shm_fd < 0)
		die("memfd_create");
	if (ftruncate(shm_fd, (off_t)size))
		die("ftruncate");
	sig = mmap(NULL, sizeof(*sig), PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (sig == MAP_FAILED)
		die("mmap");
	memset(sig, 0, sizeof(*sig));
	sig->version = htole16(XIB_PCI_VERSION);
	sig->hdr_len = htole16(sizeof(*sig));
	sig->shm_size = htole64(size);
	sig->vectors = htole16(vectors);
	sig->db_vector = 0;
	sig->ev_vector = 1;
	sig->serial = htole64(serial);
	__atomic_store_n(&sig->magic, htole32(XIB_PCI_MAGIC), __ATOMIC_RELEASE);
	munmap(sig, sizeof(*sig));

	for (i = 0; i < MAX_PEERS; i++)
		peers[i].sock = -1;
	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock < 0)
		die("socket");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	strcpy(sun.sun_path, tmp);
	unlink(tmp);
	if (bind(lsock, (struct sockaddr *)&sun, sizeof(sun)))
		die("bind");
	if (listen(lsock, MAX_PEERS))
		die("listen");
	if (rename(tmp, path))
		die("rename");
	fprintf(stderr, "xib-ivshmem-server: %s: %llu bytes, %u vectors\n", path, size, vectors);

	for (;;) {
		unsigned int n = 1, ids[MAX_PEERS];

		pfd[0].fd = lsock;
		pfd[0].events = POLLIN;
		for (i = 0; i < MAX_PEERS; i++) {
			if (peers[i].sock < 0)
				continue;
			pfd[n].fd = peers[i].sock;
			pfd[n].events = POLLIN;
			ids[n - 1] = i;
			n++;
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		/* peers never send anything: readable means gone */
		for (i = 1; i < n; i++)
			if (pfd[i].revents)
				drop_peer(ids[i - 1]);
		if (pfd[0].revents & POLLIN) {
			int s = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);

			if (s >= 0)
				add_peer(s);
		}
	}
}
