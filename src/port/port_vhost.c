// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost.c - a vhost-user guest as a switch port
 *
 * DOC: Theory of Operation
 *
 * The port owns one vu_dev (the vhost layer) and the socket plumbing
 * around it: in server mode a listening socket and at most one accepted
 * connection; in client mode a connection vhostd (re)makes to a socket
 * the front end listens on, retried once a second.  The control thread
 * runs the protocol (vu_dev_handle) on the connection.
 *
 * Datapath, queue pair 0:
 *   TX (queue 1, guest -> switch): a source queue owned by a worker,
 *   woken by its kick eventfd.  A turn (port.h) pops a burst of chains
 *   and turns each into a struct pkt that points into guest memory
 *   (after the virtio-net header); the worker hands the burst to
 *   switch_forward() -- which copies each frame straight into its
 *   destinations -- and then the chains go back to the used ring, with
 *   one index publish and at most one interrupt per turn.
 *   RX (queue 0, switch -> guest): xmit, called by whichever worker
 *   forwards to us, pops as many RX buffers as the frame needs (several
 *   with MRG_RXBUF), copies header and frame in, and publishes once per
 *   burst.  RX kicks are not needed (we never wait for RX buffers: a
 *   frame that finds none is dropped and counted), so they are disabled.
 *   RX chains may stay popped between bursts (a TAP queue steered to this
 *   guest reads straight into them, port_vhost_direct.c); the vhost layer
 *   has us give them back (queue_release) before a ring stops or remaps.
 *
 * Every ring access happens with the queue's lock held and only while
 * the vhost layer says the queue is started; a ring violation marks the
 * device broken, which drops this guest's connection and nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "port_vhost.h"
#include "../evloop.h"
#include "../log.h"
#include "../usock.h"
#include "../util.h"

static void port_vhost_on_conn(void *opaque, int fd, uint32_t events);

_Static_assert(PORT_QUEUES_MAX == VU_MAX_QUEUE_PAIRS,
	       "queues= must allow what the vhost layer can hold");

/* Guest memory a vhost-user port may map by default: 1 TiB, so that all
 * 64 ports together stay within half of x86-64's 128 TiB of user address
 * space and no front end can leave another none.
 */
#define PORT_VHOST_MAX_MEM_DEFAULT	(1ULL << 40)

/**
 * struct port_vhost_opts - a vhost-user port's own spec keys
 * @path:	path= the unix socket
 * @client:	client: connect to @path instead of listening on it
 * @queues:	queues= queue pairs offered, 1..PORT_QUEUES_MAX
 * @offload:	offload= offer checksum/segmentation offloads
 * @max_mem:	max-mem= guest memory the front end may have vhostd map
 * @tx_irq_us:	tx-irq-us= least time between two TX-completion
 *		interrupts of a queue, us (0: each at once)
 * @sock:	owner=, group=, mode=, allow-uid=, allow-gid= of the
 *		listening socket
 */
struct port_vhost_opts {
	char path[PORT_PATH_MAX];
	bool client;
	unsigned int queues;
	bool offload;
	uint64_t max_mem;
	unsigned int tx_irq_us;
	struct usock_acl sock;
};

#define PV_OPT(f)	PORT_OPT_AT(struct port_vhost_opts, f)

static const struct port_opt port_vhost_opts[] = {
	{ .key = "path", .type = PORT_OPT_PATH, PV_OPT(path),
	  .flags = PORT_OPT_REQUIRED | PORT_OPT_UNIQUE,
	  .help = "SOCK: unix socket for QEMU's -chardev socket" },
	{ .key = "client", .type = PORT_OPT_BOOL, .flags = PORT_OPT_BARE,
	  PV_OPT(client),
	  .help = "connect to SOCK (QEMU: server=on), not listen" },
	{ .key = "queues", .type = PORT_OPT_UINT, PV_OPT(queues), .min = 1,
	  .max = PORT_QUEUES_MAX, .def = 1,
	  .help = "N: queue pairs (QEMU: queues=N, mq=on)" },
	{ .key = "offload", .type = PORT_OPT_BOOL, PV_OPT(offload), .def = 1,
	  .help = "on|off: offer checksum/TSO/USO offloads" },
	{ .key = "max-mem", .type = PORT_OPT_SIZE, PV_OPT(max_mem),
	  .def = PORT_VHOST_MAX_MEM_DEFAULT,
	  .help = "SIZE: guest memory vhostd may map (K, M, G, T; 1T)" },
	{ .key = "tx-irq-us", .type = PORT_OPT_UINT, PV_OPT(tx_irq_us),
	  .max = PORT_VHOST_TX_IRQ_MAX, .def = PORT_VHOST_TX_IRQ_DEF,
	  .help = "US: least time between two TX-completion interrupts "
		  "(0: at once)" },
	{ .key = "mac", .type = PORT_OPT_MAC, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, mac),
	  .help = "MAC: the guest's; other source MACs are dropped" },
	{ .key = "owner", .type = PORT_OPT_ACL, PV_OPT(sock),
	  .help = "USER: owner of the socket file" },
	{ .key = "group", .type = PORT_OPT_ACL, PV_OPT(sock),
	  .help = "GROUP: group of the socket file" },
	{ .key = "mode", .type = PORT_OPT_ACL, PV_OPT(sock),
	  .help = "MODE: permissions of the socket file (default 0660)" },
	{ .key = "allow-uid", .type = PORT_OPT_ACL, PV_OPT(sock),
	  .help = "U[:U]...: only peers with one of these uids" },
	{ .key = "allow-gid", .type = PORT_OPT_ACL, PV_OPT(sock),
	  .help = "G[:G]...: only peers with one of these gids" },
};

_Static_assert(sizeof(struct port_vhost_opts) <= PORT_OPTS_SIZE,
	       "vhost-user options fit a port spec");

/**
 * port_vhost_check() - keys that do not go together (port_ops @check)
 * @opts:	struct port_vhost_opts, parsed
 * @given:	bit i: port_vhost_opts[i] was given
 * Return: NULL, or what is wrong
 */
static const char *port_vhost_check(const void *opts, uint32_t given)
{
	const struct port_vhost_opts *o = opts;
	unsigned int i;

	for (i = 0; o->client && i < ARRAY_SIZE(port_vhost_opts); i++)
		if (port_vhost_opts[i].type == PORT_OPT_ACL &&
		    (given & 1U << i))
			return "owner, group, mode, allow-uid and allow-gid "
			       "are for a socket vhostd listens on, not with "
			       "'client'";
	return NULL;
}

/* ---- control: queues starting and stopping ---------------------------- */

/**
 * port_vhost_queue_start() - vhost layer: queue @qi became runnable
 * @dev:	device
 * @qi:		queue index
 */
static void port_vhost_queue_start(struct vu_dev *dev, unsigned int qi)
{
	struct port_vhost *pv = dev->opaque;
	struct vu_queue *q = &dev->q[qi];
	struct port *p = pv->port;
	int rc;

	if (qi & 1) {
		/* Edge-triggered and never read; the first poll comes at
		 * once and picks up buffers queued before we listened
		 * (guest restart, reconnect), see PORT_SRC_KICK.
		 */
		rc = port_src_add(p, qi, q->kick_fd, PORT_SRC_KICK);
		if (rc < 0) {
			src_err(&p->log, "%s: cannot poll TX queue %u: %s",
				p->name, qi, strerror(-rc));
			return;
		}
		src_debug(&p->log, "%s: TX queue %u started (worker %d)",
			  p->name, qi, rc);
		return;
	}

	vlock_lock(&q->lock);
	if (q->started)
		virtq_disable_notify(&q->vq);
	vlock_unlock(&q->lock);
	if (!__atomic_fetch_or(&pv->rx_on, 1u << (qi / 2), __ATOMIC_RELEASE)) {
		port_set_up(p, true);
		src_info(&p->log, "%s: RX queue %u started, port up", p->name,
			 qi);
		return;
	}
	src_debug(&p->log, "%s: RX queue %u started", p->name, qi);
}

/**
 * port_vhost_queue_stop() - vhost layer: queue @qi is no longer runnable
 * @dev:	device
 * @qi:		queue index
 */
static void port_vhost_queue_stop(struct vu_dev *dev, unsigned int qi)
{
	struct port_vhost *pv = dev->opaque;
	struct port *p = pv->port;

	if (qi & 1) {
		port_src_del(p, qi);
		if (qi / 2 < pv->pairs)
			port_vhost_tx_irq_flush(pv, qi);
		src_debug(&p->log, "%s: TX queue %u stopped", p->name, qi);
		return;
	}
	if (__atomic_and_fetch(&pv->rx_on, ~(1u << (qi / 2)),
			       __ATOMIC_RELEASE)) {
		/* Deliveries may still pick it until every worker moved
		 * on; its lock and @started keep them out of the ring.
		 */
		src_debug(&p->log, "%s: RX queue %u stopped", p->name, qi);
		return;
	}
	port_set_up(p, false);
	src_info(&p->log, "%s: RX queue %u stopped, port down", p->name, qi);
}

/**
 * port_vhost_queue_release() - vhost layer: give back held RX chains
 * @dev:	device
 * @qi:		queue index
 *
 * Context: control thread, @qi's lock held, queue still started
 */
static void port_vhost_queue_release(struct vu_dev *dev, unsigned int qi)
{
	struct port_vhost *pv = dev->opaque;

	if (!(qi & 1) && qi / 2 < pv->pairs)
		port_vhost_rx_release(pv, &pv->rxq[qi / 2], &dev->q[qi].vq);
}

/**
 * port_vhost_announce() - vhost layer: SEND_RARP, tell the network we moved
 * @dev:	device
 * @mac:	the guest's MAC (a unicast one, checked by the vhost layer)
 *
 * The RARP QEMU itself sends for a guest on an emulated NIC after a
 * migration (a reverse request from @mac for @mac, broadcast, padded to
 * 60 bytes): the switch learns @mac on this port at once and every port
 * floods it on, so bridges beyond a TAP learn it too.  It goes through
 * the switch like a frame from the guest, so a port locked to another
 * MAC drops it as spoofed.
 */
static void port_vhost_announce(struct vu_dev *dev, const uint8_t mac[6])
{
	static const uint8_t arp[8] = {
		0x00, 0x01,		/* hardware: Ethernet */
		0x08, 0x00,		/* protocol: IPv4 */
		ETH_ALEN, 4,		/* address lengths */
		0x00, 0x03,		/* reverse request */
	};
	struct port_vhost *pv = dev->opaque;
	uint8_t f[ETH_ZLEN] = { 0 };
	struct pkt pkt;

	memset(f, 0xff, ETH_ALEN);
	memcpy(f + ETH_ALEN, mac, ETH_ALEN);
	f[12] = ETH_P_RARP >> 8;
	f[13] = ETH_P_RARP & 0xff;
	memcpy(f + ETH_HLEN, arp, sizeof(arp));
	memcpy(f + ETH_HLEN + 8, mac, ETH_ALEN);	/* sender: us, IP 0 */
	memcpy(f + ETH_HLEN + 18, mac, ETH_ALEN);	/* target: us, IP 0 */

	memset(&pkt.vnet, 0, sizeof(pkt.vnet));
	pkt.src_feat = 0;
	memcpy(&pkt.eth, f, ETH_HLEN);
	pkt.len = sizeof(f);
	pkt.iovcnt = 1;
	pkt.iov[0].iov_base = f;
	pkt.iov[0].iov_len = sizeof(f);
	port_inject(pv->port, &pkt);
}

static const struct vu_dev_ops port_vhost_dev_ops = {
	.queue_start = port_vhost_queue_start,
	.queue_stop = port_vhost_queue_stop,
	.queue_release = port_vhost_queue_release,
	.announce = port_vhost_announce,
};

/* ---- control: sockets -------------------------------------------------- */

/**
 * port_vhost_disconnect() - drop the front end's connection
 * @pv:		port
 */
static void port_vhost_disconnect(struct port_vhost *pv)
{
	uint32_t faults;

	if (pv->dev.fd < 0)
		return;
	evloop_del(pv->dev.fd);
	/* Guest memory that vanished under us is the front end's doing. */
	faults = __atomic_exchange_n(&pv->dev.mem_faults, 0, __ATOMIC_RELAXED);
	if (faults) {
		stats_add(&port_ctr(pv->port)->violations, 1);
		src_warn(&pv->port->log, "%s: guest memory shrank under its "
			 "mapping (%u faults contained): dropping front end",
			 pv->port->name, faults);
		vu_dev_note_err(&pv->dev, "guest memory shrank under its "
				"mapping (%u faults contained)", faults);
	}
	vu_dev_detach(&pv->dev);	/* logs the disconnection */
}

/**
 * port_vhost_attach() - a front end connected: start the protocol
 * @pv:		port
 * @fd:		connected socket
 */
static void port_vhost_attach(struct port_vhost *pv, int fd)
{
	int rc;

	vu_dev_attach(&pv->dev, fd);	/* logs the connection */
	stats_add(&port_ctr(pv->port)->connects, 1);
	rc = evloop_add(fd, EPOLLIN | EPOLLRDHUP, port_vhost_on_conn, pv);
	if (rc < 0) {
		src_err(&pv->port->log, "%s: cannot watch connection: %s",
			pv->port->name, strerror(-rc));
		vu_dev_detach(&pv->dev);
	}
}

/**
 * port_vhost_on_conn() - control: the connection is readable or hung up
 * @opaque:	port
 * @fd:		connection
 * @events:	EPOLL* bits
 */
static void port_vhost_on_conn(void *opaque, int fd, uint32_t events)
{
	struct port_vhost *pv = opaque;
	int rc;

	if (!(events & EPOLLIN)) {
		port_vhost_disconnect(pv);
		return;
	}
	rc = vu_dev_handle(&pv->dev);
	if (rc < 0) {
		/* The peer closing is normal; anything else (malformed or
		 * out-of-order message, stalled peer) is a violation.
		 */
		if (rc != -ECONNRESET && rc != -EPIPE) {
			stats_add(&port_ctr(pv->port)->violations, 1);
			src_warn(&pv->port->log, "%s: dropping front end: %s",
				 pv->port->name, strerror(-rc));
		}
		port_vhost_disconnect(pv);
	}
}

/**
 * port_vhost_on_listen() - control: a front end is connecting
 * @opaque:	port
 * @fd:		listening socket
 * @events:	EPOLL* bits
 */
static void port_vhost_on_listen(void *opaque, int fd, uint32_t events)
{
	struct port_vhost *pv = opaque;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	struct usock_peer peer;

	if (c < 0)
		return;
	if (!usock_peer_ok(c, &pv->sock, &peer)) {
		/* Not on allow-uid=/allow-gid=: it never gets to speak. */
		stats_add(&port_ctr(pv->port)->peer_refused, 1);
		src_warn(&pv->port->log, "%s: refusing front end pid %d uid "
			 "%u gid %u: not on the allow-list", pv->port->name,
			 peer.pid, peer.uid, peer.gid);
		close(c);
		return;
	}
	if (pv->dev.fd >= 0) {
		/* One front end per port: a second one is a mistake (two
		 * VMs given the same socket), refuse it loudly.
		 */
		src_warn(&pv->port->log, "%s: refusing a second front end",
			 pv->port->name);
		close(c);
		return;
	}
	port_vhost_attach(pv, c);
}

/**
 * port_vhost_connect() - client mode: try to reach the front end
 * @pv:		port
 * Return: 0 if connected, -errno otherwise (retried by the timer)
 */
static int port_vhost_connect(struct port_vhost *pv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			0);

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, pv->path, strlen(pv->path) + 1);
	/* Non-blocking: a unix socket connects at once or not at all; a
	 * front end whose backlog is full (it stopped accepting) says
	 * EAGAIN and is tried again at the next tick, never waited for.
	 */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	port_vhost_attach(pv, fd);
	return 0;
}

/**
 * port_vhost_mkdir_parent() - create the socket's directory if missing
 * @path:	socket path
 */
static void port_vhost_mkdir_parent(const char *path)
{
	char dir[PORT_PATH_MAX];
	char *s;

	snprintf(dir, sizeof(dir), "%s", path);
	for (s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
}

/**
 * port_vhost_listen() - server mode: listen on the socket path
 * @pv:		port
 * Return: 0 or -errno
 */
static int port_vhost_listen(struct port_vhost *pv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	port_vhost_mkdir_parent(pv->path);
	/* A socket left by an earlier run is stale if nobody answers. */
	if (!lstat(pv->path, &st) && S_ISSOCK(st.st_mode)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
				   SOCK_NONBLOCK, 0);

		memcpy(sa.sun_path, pv->path, strlen(pv->path) + 1);
		/* EAGAIN: a listener whose backlog is full, alive too. */
		if (probe >= 0 &&
		    (!connect(probe, (struct sockaddr *)&sa, sizeof(sa)) ||
		     errno == EAGAIN)) {
			close(probe);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(pv->path);
	}

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* mode=, owner=, group= are in place before anyone can connect. */
	rc = usock_bind(fd, pv->path, &pv->sock);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (listen(fd, 4) < 0) {
		rc = -errno;
		close(fd);
		unlink(pv->path);
		return rc;
	}
	rc = evloop_add(fd, EPOLLIN, port_vhost_on_listen, pv);
	if (rc < 0) {
		close(fd);
		unlink(pv->path);
		return rc;
	}
	pv->listen_fd = fd;
	return 0;
}

/* ---- port_ops ---------------------------------------------------------- */

/**
 * port_vhost_open() - create a vhost-user port
 * @p:		switch port, priv zeroed
 * @spec:	--port spec
 * Return: 0 or -errno
 */
static int port_vhost_open(struct port *p, const struct port_spec *spec)
{
	const struct port_vhost_opts *o = port_spec_opts(spec);
	struct port_vhost *pv = p->priv;
	int rc;

	uint64_t features = PORT_VHOST_FEATURES;

	pv->port = p;
	pv->listen_fd = -1;
	pv->client = o->client;
	pv->pairs = MAX(1U, MIN(o->queues, (unsigned int)VU_MAX_QUEUE_PAIRS));
	pv->txq = calloc(pv->pairs, sizeof(*pv->txq));
	pv->rxq = calloc(pv->pairs, sizeof(*pv->rxq));
	if (!pv->txq || !pv->rxq) {
		free(pv->txq);
		free(pv->rxq);
		return -ENOMEM;
	}
	snprintf(pv->path, sizeof(pv->path), "%s", o->path);
	if (!o->offload)
		features &= ~(PORT_VHOST_HOST_OFFLOADS |
			      PORT_VHOST_GUEST_OFFLOADS);
	if (pv->pairs > 1)
		features |= PV_FEAT(VIRTIO_NET_F_MQ);
	vu_dev_init(&pv->dev, p->name, features, &port_vhost_dev_ops, pv);
	pv->dev.pairs = pv->pairs;
	pv->dev.mem.limit = o->max_mem;
	pv->tx_irq_ns = (uint64_t)o->tx_irq_us * 1000;
	pv->sock = o->sock;
	pv->dev.log = &p->log;	/* one rate limit for the port's lines */

	if (pv->client) {
		rc = port_vhost_connect(pv);
		if (rc < 0)
			src_info(&p->log, "%s: %s not reachable yet (%s), "
				 "retrying", p->name, pv->path, strerror(-rc));
		return 0;
	}
	rc = port_vhost_listen(pv);
	if (rc < 0) {
		err("%s: cannot listen on %s: %s", p->name, pv->path,
		    strerror(-rc));
		vu_dev_fini(&pv->dev);
		free(pv->txq);
		free(pv->rxq);
		return rc;
	}
	info("%s: listening on %s", p->name, pv->path);
	return 0;
}

/**
 * port_vhost_close() - drop the front end, stop listening
 * @p:		port
 */
static void port_vhost_close(struct port *p)
{
	struct port_vhost *pv = p->priv;

	port_vhost_disconnect(pv);
	if (pv->listen_fd >= 0) {
		evloop_del(pv->listen_fd);
		close(pv->listen_fd);
		unlink(pv->path);
		pv->listen_fd = -1;
	}
	vu_dev_fini(&pv->dev);
	free(pv->txq);
	free(pv->rxq);
	pv->txq = NULL;
	pv->rxq = NULL;
}

/**
 * port_vhost_timer() - once a second: stalled messages, client reconnects
 * @p:		port
 */
static void port_vhost_timer(struct port *p)
{
	struct port_vhost *pv = p->priv;

	/* A message begun and left half sent: the peer loses the session
	 * (it held nothing of ours meanwhile: vu_dev_handle() never waits).
	 */
	if (vu_dev_check_stall(&pv->dev, now_ns()) < 0) {
		stats_add(&port_ctr(p)->violations, 1);
		src_warn(&p->log, "%s: dropping front end: message incomplete "
			 "for a second", p->name);
		port_vhost_disconnect(pv);
	}
	if (pv->client && pv->dev.fd < 0)
		port_vhost_connect(pv);
}

/* What a vhost-user port counts beyond stats_common (see stats.h). */
static const struct stats_desc port_vhost_desc[] = {
	{ .key = "irqs", .metric = "irqs_total",
	  .help = "Interrupts sent to the guest.", STATS_AT(irqs) },
	{ .key = "irqs_held", .metric = "irqs_held_total",
	  .help = "TX-completion interrupts held back by tx-irq-us=.",
	  STATS_AT(irqs_held) },
	{ .key = "kicks", .metric = "kicks_total",
	  .help = "Guest kicks that woke the port's poller.", STATS_AT(kicks) },
	{ .key = "rx_staged", .metric = "rx_staged_total",
	  .help = "RX buffers taken ahead of a frame while idle.",
	  STATS_AT(rx_staged) },
	{ .key = "peer_refused", .metric = "peer_refused_total",
	  .help = "Connections refused: peer uid/gid not on the socket's "
		  "allow-list.", STATS_AT(peer_refused) },
	{ .key = "polls", .metric = "polls_total",
	  .help = "Worker turns that took frames from the port.",
	  STATS_AT(polls) },
	{ .key = "connects", .metric = "connects_total",
	  .help = "vhost-user front end connections.", STATS_AT(connects) },
};

static const struct stats_table port_vhost_stats = {
	port_vhost_desc, ARRAY_SIZE(port_vhost_desc)
};

/* Direct reads land in a guest's buffers: counted on it as on the TAP. */
static const struct stats_table *const port_vhost_counters[] = {
	&stats_direct, &port_vhost_stats, NULL
};

/**
 * port_vhost_queue_stats() - per queue pair counters, for ctl
 * @p:		port
 * @qs:		out: one entry per pair
 * @max:	room in @qs
 *
 * Return: entries filled: the port's queue pairs (queues=)
 */
static unsigned int port_vhost_queue_stats(const struct port *p,
					   struct port_queue_stats *qs,
					   unsigned int max)
{
	const struct port_vhost *pv = p->priv;
	unsigned int i, n = MIN(max, pv->pairs);

	for (i = 0; i < n; i++) {
		qs[i].rx_packets = __atomic_load_n(&pv->txq[i].packets,
						   __ATOMIC_RELAXED);
		qs[i].rx_bytes = __atomic_load_n(&pv->txq[i].bytes,
						 __ATOMIC_RELAXED);
		qs[i].tx_packets = __atomic_load_n(&pv->rxq[i].packets,
						   __ATOMIC_RELAXED);
		qs[i].tx_bytes = __atomic_load_n(&pv->rxq[i].bytes,
						 __ATOMIC_RELAXED);
	}
	return n;
}

/**
 * port_vhost_peer() - what the front end negotiated, for ctl
 * @p:		port
 * @pp:		out
 *
 * Context: control thread, which alone writes what is read here (the
 * vhost-user protocol runs on it): no lock, no race
 */
static void port_vhost_peer(const struct port *p, struct port_peer *pp)
{
	const struct port_vhost *pv = p->priv;
	const struct vu_dev *dev = &pv->dev;

	*pp = (struct port_peer){
		.connected = dev->fd >= 0,
		/* What GET_FEATURES says. */
		.offered = dev->features_offered | VU_F_LOG_ALL |
			   (1ULL << VHOST_USER_F_PROTOCOL_FEATURES),
		.features = dev->features,
		.protocol = dev->protocol_features,
		.pairs = pv->pairs,
		.pairs_enabled = vu_dev_pairs_enabled(dev),
		.pairs_started = vu_dev_pairs_started(dev),
	};
	/* SET_FEATURES fixes the layout; before it there is none. */
	if (dev->features)
		pp->ring = dev->features & PV_FEAT(VIRTIO_F_RING_PACKED) ?
			   "packed" : "split";
}

const struct port_ops port_vhost_ops = {
	.type = "vhost-user",
	.name_prefix = "vu",
	.priv_size = sizeof(struct port_vhost),
	.opts = port_vhost_opts,
	.n_opts = ARRAY_SIZE(port_vhost_opts),
	.opts_size = sizeof(struct port_vhost_opts),
	.check = port_vhost_check,
	.open = port_vhost_open,
	.close = port_vhost_close,
	.xmit = port_vhost_xmit,
	.rx_begin = port_vhost_rx_begin,
	.rx_burst = port_vhost_rx_burst,
	.rx_done = port_vhost_rx_done,
	.rx_end = port_vhost_rx_end,
	.arm = port_vhost_arm,
	.stage = port_vhost_stage,
	.tick = port_vhost_tick,
	.timer = port_vhost_timer,
	.queue_stats = port_vhost_queue_stats,
	.peer = port_vhost_peer,
	.show = port_vhost_show,
	.feature_names = vu_feature_names,
	.protocol_names = vu_protocol_feature_names,
	.counters = port_vhost_counters,
	.lend_ok = port_vhost_lend_ok,
	.lend_begin = port_vhost_lend_begin,
	.lend_reserve = port_vhost_lend_reserve,
	.lend_commit = port_vhost_lend_commit,
	.lend_end = port_vhost_lend_end,
	.lend_flows = port_vhost_lend_flows,
};
