// SPDX-License-Identifier: GPL-2.0-or-later
/* port_dgram.c - a port of raw Ethernet frames, one per datagram
 *
 * DOC: Theory of Operation
 *
 * The wire format of QEMU's "-netdev dgram" (and of the older
 * "-netdev socket,udp="): every datagram is one whole Ethernet frame,
 * destination MAC first, with no header, no length and no offload
 * metadata.  Two transports:
 *  - UDP, "dgram,local=HOST:PORT,remote=HOST:PORT" (IPv4, or [IPv6]): a
 *    socket bound to local= that sends to remote=;
 *  - unix datagram sockets, "dgram,path=SOCK,remote-path=SOCK": bound to
 *    path=, sending to remote-path=.
 * It links a vhostd to a QEMU guest (-netdev dgram,local.type=inet,...),
 * to another vhostd, or to anything that speaks the format.  Only
 * datagrams from the configured peer are taken (a UDP socket is open to
 * the world): the others are dropped as spoofed and counted as
 * "foreign".
 *
 * Datapath: one source queue, level-triggered (the socket is readable
 * while datagrams wait).  A turn reads up to a burst with recvmsg()
 * into the port's buffers (PORT_BURST of DGRAM_BUF_LEN bytes, touched
 * only as far as frames reach) and describes them in place; nothing is
 * published back.  xmit sends each frame with one sendmsg(MSG_DONTWAIT)
 * from the frame's own iovec: no copy, never blocking, any number of
 * workers at once (a datagram socket's sends are atomic).  A frame
 * with offload metadata is finished here, as no peer of this format
 * takes any: its checksum completed (a 2-byte patch in the iovec) or,
 * for GSO, cut into segments (net/gso.h).  Runts, datagrams larger
 * than a frame, and frames the kernel refuses are counted drops.
 *
 * The syscalls are the ones the sandbox allows the running daemon
 * (recvmsg, sendmsg, and for the unix transport socket(AF_UNIX) and
 * bind): a unix dgram port can be added at run time.  A UDP one needs
 * socket(AF_INET*), which the filter forbids after start-up: its keys are
 * PORT_OPT_STARTUP, and ctl "port add" refuses it with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "port.h"
#include "../net/gso.h"
#include "../net/iov.h"
#include "../util.h"

/* A datagram's room: the largest frame, and one byte to see a larger
 * datagram as such (MSG_TRUNC tells us too).
 */
#define DGRAM_BUF_LEN	(PKT_FRAME_MAX + 1)

/**
 * struct dgram_opts - a dgram port's spec keys
 * @local:	local= UDP address to bind
 * @remote:	remote= UDP address of the peer
 * @path:	path= unix datagram socket to bind
 * @remote_path: remote-path= the peer's unix datagram socket
 */
struct dgram_opts {
	union port_addr local;
	union port_addr remote;
	char path[PORT_PATH_MAX];
	char remote_path[PORT_PATH_MAX];
};

#define DG_OPT(f)	PORT_OPT_AT(struct dgram_opts, f)

/* Indices of dgram_opts[], for dgram_check()'s given-bits. */
enum { DG_LOCAL, DG_REMOTE, DG_PATH, DG_RPATH };

#define DG_UDP	(1U << DG_LOCAL | 1U << DG_REMOTE)
#define DG_UNIX	(1U << DG_PATH | 1U << DG_RPATH)

static const struct port_opt dgram_opts[] = {
	[DG_LOCAL] = {
		.key = "local", .type = PORT_OPT_ADDR, DG_OPT(local),
		.flags = PORT_OPT_STARTUP,
		.help = "ADDR: UDP IPV4:PORT or [IPV6]:PORT to bind" },
	[DG_REMOTE] = {
		.key = "remote", .type = PORT_OPT_ADDR, DG_OPT(remote),
		.flags = PORT_OPT_STARTUP,
		.help = "ADDR: the UDP peer; only its datagrams are taken" },
	[DG_PATH] = {
		.key = "path", .type = PORT_OPT_PATH, DG_OPT(path),
		.flags = PORT_OPT_UNIQUE,
		.help = "SOCK: unix datagram socket to bind (instead of UDP)" },
	[DG_RPATH] = {
		.key = "remote-path", .type = PORT_OPT_PATH,
		DG_OPT(remote_path),
		.help = "SOCK: the unix peer; only its datagrams are taken" },
};

_Static_assert(sizeof(struct dgram_opts) <= PORT_OPTS_SIZE,
	       "dgram options fit a port spec");

/**
 * union dgram_sa - a peer's address, either transport
 * @sa:		family
 * @in4:	UDP over IPv4
 * @in6:	UDP over IPv6
 * @un:		unix datagram socket
 */
union dgram_sa {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
	struct sockaddr_un un;
};

/**
 * struct dgram_priv - a dgram port's state
 * @fd:		the socket, -1 when closed
 * @peer:	where frames go, and the only source taken
 * @peer_len:	its length
 * @path:	unix transport: our bound path, unlinked at close ("" for UDP)
 * @bufs:	PORT_BURST receive buffers of DGRAM_BUF_LEN bytes
 * @pkts:	the frames of the current burst, pointing into @bufs
 */
struct dgram_priv {
	int fd;
	union dgram_sa peer;
	socklen_t peer_len;
	char path[PORT_PATH_MAX];
	uint8_t *bufs;
	struct pkt pkts[PORT_BURST];
};

/**
 * dgram_check() - the keys of one transport, complete (port_ops @check)
 * @opts:	struct dgram_opts, parsed
 * @given:	bit i: dgram_opts[i] was given
 * Return: NULL, or what is wrong
 */
static const char *dgram_check(const void *opts, uint32_t given)
{
	const struct dgram_opts *o = opts;
	bool udp = given & DG_UDP, unx = given & DG_UNIX;

	if (udp && unx)
		return "local=/remote= (UDP) and path=/remote-path= (unix) "
		       "do not mix";
	if (udp && (given & DG_UDP) != DG_UDP)
		return "UDP needs both local= and remote=";
	if (unx && (given & DG_UNIX) != DG_UNIX)
		return "a unix socket needs both path= and remote-path=";
	if (!udp && !unx)
		return "missing local= and remote= (UDP), or path= and "
		       "remote-path= (unix)";
	if (udp && o->local.sa.sa_family != o->remote.sa.sa_family)
		return "local= and remote= are not of one address family";
	return NULL;
}

/**
 * dgram_from_peer() - whether a datagram's source is the configured peer
 * @d:		port state
 * @src:	its source address
 * @len:	its length
 * Return: true if it is
 */
static bool dgram_from_peer(const struct dgram_priv *d,
			    const union dgram_sa *src, socklen_t len)
{
	switch (d->peer.sa.sa_family) {
	case AF_INET:
		return len >= sizeof(src->in4) &&
		       src->sa.sa_family == AF_INET &&
		       src->in4.sin_port == d->peer.in4.sin_port &&
		       src->in4.sin_addr.s_addr == d->peer.in4.sin_addr.s_addr;
	case AF_INET6:
		return len >= sizeof(src->in6) &&
		       src->sa.sa_family == AF_INET6 &&
		       src->in6.sin6_port == d->peer.in6.sin6_port &&
		       !memcmp(&src->in6.sin6_addr, &d->peer.in6.sin6_addr,
			       sizeof(src->in6.sin6_addr));
	default:	/* unix: the peer's bound path, as it bound it */
		return len == d->peer_len &&
		       !memcmp(src, &d->peer, (size_t)len);
	}
}

/**
 * dgram_socket() - the socket of a spec, bound, and the peer's address
 * @p:		port (for messages)
 * @d:		port state: @peer, @peer_len, @path set
 * @o:		options
 * Return: the fd, or -errno with a log line
 */
static int dgram_socket(struct port *p, struct dgram_priv *d,
			const struct dgram_opts *o)
{
	union dgram_sa local;
	socklen_t len;
	int fd, rc;

	memset(&local, 0, sizeof(local));
	if (*o->path) {
		local.un.sun_family = AF_UNIX;
		memcpy(local.un.sun_path, o->path, strlen(o->path));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				  strlen(o->path) + 1);
		d->peer.un.sun_family = AF_UNIX;
		memcpy(d->peer.un.sun_path, o->remote_path,
		       strlen(o->remote_path));
		d->peer_len = (socklen_t)(offsetof(struct sockaddr_un,
						   sun_path) +
					  strlen(o->remote_path) + 1);
	} else {
		len = o->local.sa.sa_family == AF_INET ?
		      sizeof(local.in4) : sizeof(local.in6);
		memcpy(&local, &o->local, len);
		memcpy(&d->peer, &o->remote, len);
		d->peer_len = len;
	}

	fd = socket(local.sa.sa_family,
		    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		err("%s: dgram socket: %s", p->name, strerror(-rc));
		return rc;
	}
	if (bind(fd, &local.sa, len) < 0) {
		rc = -errno;
		err("%s: dgram: cannot bind %s: %s", p->name,
		    *o->path ? o->path : "local=", strerror(-rc));
		close(fd);
		return rc;
	}
	if (*o->path)
		snprintf(d->path, sizeof(d->path), "%s", o->path);
	return fd;
}

/**
 * dgram_open() - bind the socket and hand it to a worker
 * @p:		port, priv zeroed
 * @spec:	parsed spec (struct dgram_opts)
 * Return: 0 or -errno, with a log line
 *
 * Context: control thread, at start-up or ctl "port add"
 */
static int dgram_open(struct port *p, const struct port_spec *spec)
{
	const struct dgram_opts *o = port_spec_opts(spec);
	struct dgram_priv *d = p->priv;
	int rc;

	d->bufs = malloc((size_t)PORT_BURST * DGRAM_BUF_LEN);
	if (!d->bufs)
		return -ENOMEM;
	d->fd = dgram_socket(p, d, o);
	if (d->fd < 0) {
		rc = d->fd;
		goto err_free;
	}
	rc = port_src_add(p, 0, d->fd, PORT_SRC_LEVEL);
	if (rc < 0) {
		err("%s: dgram: cannot register with a worker: %s", p->name,
		    strerror(-rc));
		goto err_close;
	}
	port_set_up(p, true);
	info("port %s: dgram ready (worker %d)", p->name, rc);
	return 0;

err_close:
	close(d->fd);
	if (*d->path)
		unlink(d->path);
err_free:
	free(d->bufs);
	d->bufs = NULL;
	d->fd = -1;
	return rc;
}

/**
 * dgram_close() - undo dgram_open() (port out of forwarding, quiesced)
 * @p:		port
 */
static void dgram_close(struct port *p)
{
	struct dgram_priv *d = p->priv;

	port_src_del(p, 0);
	if (d->fd >= 0)
		close(d->fd);
	if (*d->path)
		unlink(d->path);
	free(d->bufs);
	d->bufs = NULL;
	d->fd = -1;
}

/**
 * dgram_rx_begin() - a turn begins: nothing to take
 * @p:		port
 * @q:		queue (0)
 * @turn:	the turn
 * Return: true
 */
static bool dgram_rx_begin(struct port *p, uint32_t q, struct port_turn *turn)
{
	(void)turn;
	return q == 0 && ((struct dgram_priv *)p->priv)->fd >= 0;
}

/**
 * dgram_rx_burst() - read up to @max datagrams, described in place
 * @p:		port
 * @q:		queue (0)
 * @pkts:	out: frames for the switch, in the port's buffers
 * @max:	room in @pkts
 * @turn:	datagrams taken (dropped ones too) added to @turn->done;
 *		@turn->dry set when the socket ran out
 *
 * Context: the worker owning the queue; the buffers are reused by the
 * next burst (every destination copies).
 * Return: frames in @pkts
 */
static unsigned int dgram_rx_burst(struct port *p, uint32_t q,
				   struct pkt **pkts, unsigned int max,
				   struct port_turn *turn)
{
	unsigned int i, n = 0, runts = 0, big = 0, ioerr = 0, foreign = 0;
	struct dgram_priv *d = p->priv;
	uint64_t bytes = 0;

	(void)q;
	max = MIN(max, (unsigned int)PORT_BURST);
	for (i = 0; i < max; i++) {
		uint8_t *buf = d->bufs + (size_t)n * DGRAM_BUF_LEN;
		struct iovec iov = { buf, DGRAM_BUF_LEN };
		struct pkt *pkt = &d->pkts[n];
		union dgram_sa src;
		struct msghdr msg = {
			.msg_name = &src, .msg_namelen = sizeof(src),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		ssize_t r;

		r = recvmsg(d->fd, &msg, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;	/* bounded by @max */
			/* ICMP port unreachable for an earlier send: the
			 * peer is not there yet; nothing was received.
			 */
			if (errno == ECONNREFUSED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ioerr++;
			turn->dry = true;
			break;
		}
		if (!dgram_from_peer(d, &src, msg.msg_namelen)) {
			foreign++;
			continue;
		}
		if ((msg.msg_flags & MSG_TRUNC) || (size_t)r > PKT_FRAME_MAX) {
			big++;
			continue;
		}
		if ((size_t)r < ETH_HLEN) {
			runts++;
			continue;
		}
		memset(&pkt->vnet, 0, sizeof(pkt->vnet));
		pkt->src_feat = 0;	/* no offloads on this wire */
		memcpy(&pkt->eth, buf, ETH_HLEN);
		pkt->len = (uint32_t)r;
		pkt->iovcnt = 1;
		pkt->iov[0].iov_base = buf;
		pkt->iov[0].iov_len = (size_t)r;
		pkts[n++] = pkt;
		bytes += (uint64_t)r;
	}

	if (runts)
		stats_add(&port_ctr(p)->drops[STATS_DROP_RUNT], runts);
	if (big)
		stats_add(&port_ctr(p)->drops[STATS_DROP_TOO_BIG], big);
	if (ioerr)
		stats_add(&port_ctr(p)->drops[STATS_DROP_IO_ERROR], ioerr);
	if (foreign) {
		stats_add(&port_ctr(p)->drops[STATS_DROP_SPOOFED], foreign);
		stats_add(&port_ctr(p)->peer_refused, foreign);
	}
	if (n) {
		stats_add(&port_ctr(p)->rx_packets, n);
		stats_add(&port_ctr(p)->rx_bytes, bytes);
		stats_add(&port_ctr(p)->polls, 1);
	}
	turn->done += n + runts + big + foreign;
	/* Every try interrupted or refused: nothing taken, and the port.h
	 * contract wants 0 only with progress or dry.  The socket is level-
	 * triggered: if a datagram waits, the worker comes back.
	 */
	if (!n && !runts && !big && !foreign)
		turn->dry = true;
	return n;
}

/**
 * dgram_rx_end() - a turn ends: nothing to publish
 * @p:		port
 * @q:		queue
 * @turn:	the turn
 */
static void dgram_rx_end(struct port *p, uint32_t q, struct port_turn *turn)
{
	(void)p;
	(void)q;
	(void)turn;
}

/**
 * dgram_send() - one datagram to the peer
 * @d:		port state
 * @iov:	its bytes
 * @cnt:	segments in @iov
 * Return: 0, or the drop reason (enum stats_drop)
 */
static int dgram_send(struct dgram_priv *d, struct iovec *iov,
		      unsigned int cnt)
{
	struct msghdr msg = {
		.msg_name = &d->peer, .msg_namelen = d->peer_len,
		.msg_iov = iov, .msg_iovlen = cnt,
	};
	int tries = 0;

	while (sendmsg(d->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		switch (errno) {
		case EINTR:
			if (++tries < 3)
				continue;
			return STATS_DROP_IO_ERROR;
		case EAGAIN:
		case ENOBUFS:
			return STATS_DROP_NO_BUFFER;
		case EMSGSIZE:
			return STATS_DROP_TOO_BIG;
		case ECONNREFUSED:	/* peer not there (yet) */
		case ENOENT:		/* unix: no socket at remote-path */
		case EHOSTUNREACH:
		case ENETUNREACH:
			return STATS_DROP_PORT_DOWN;
		default:
			return STATS_DROP_IO_ERROR;
		}
	}
	return 0;
}

/* dgram_emit() - gso_emit()'s callback: one wire frame, one datagram */
static int dgram_emit(void *arg, const struct iovec *iov, unsigned int cnt,
		      size_t len)
{
	(void)len;
	return dgram_send(arg, (struct iovec *)(uintptr_t)iov, cnt);
}

/**
 * dgram_send_frame() - one frame, its offloads finished in software
 * @d:		port state
 * @pkt:	frame (read, never written)
 * Return: 0, or the drop reason of the first datagram that failed
 */
static int dgram_send_frame(struct dgram_priv *d, const struct pkt *pkt)
{
	int rc;

	if (pkt->len > PKT_FRAME_MAX)
		return STATS_DROP_TOO_BIG;
	rc = gso_emit(pkt, dgram_emit, d);
	return rc < 0 ? (pkt->iovcnt > PKT_IOV_MAX ? STATS_DROP_TOO_BIG :
			 STATS_DROP_OFFLOAD) : rc;
}

/**
 * dgram_xmit() - frames to the peer, one datagram each
 * @p:		port
 * @pkts:	frames (their buffers are read, never kept)
 * @n:		number of frames
 * Return: frames delivered; the rest are counted as drops
 *
 * Context: any worker, concurrently: each sendmsg() is one datagram,
 * atomic on its own, so no lock.  Never blocks (MSG_DONTWAIT).
 */
static unsigned int dgram_xmit(struct port *p, struct pkt *const *pkts,
			       unsigned int n)
{
	unsigned int i, sent = 0, drops[STATS_DROP_COUNT] = { 0 };
	struct dgram_priv *d = p->priv;
	uint64_t bytes = 0;
	int why;

	for (i = 0; i < n; i++) {
		why = dgram_send_frame(d, pkts[i]);
		if (why) {
			drops[why]++;
			continue;
		}
		sent++;
		bytes += pkts[i]->len;
	}
	port_count_xmit(p, sent, bytes, drops);
	return sent;
}

/* What a dgram port counts beyond stats_common (see stats.h). */
static const struct stats_desc dgram_desc[] = {
	{ .key = "foreign", .metric = "dgram_foreign_total",
	  .help = "Datagrams dropped: not from the configured peer.",
	  STATS_AT(peer_refused) },
	{ .key = "bursts", .metric = "dgram_bursts_total",
	  .help = "Worker turns that took datagrams from the socket.",
	  STATS_AT(polls) },
};

static const struct stats_table dgram_stats = {
	dgram_desc, ARRAY_SIZE(dgram_desc)
};

static const struct stats_table *const dgram_counters[] = {
	&dgram_stats, NULL
};

const struct port_ops port_dgram_ops = {
	.type		= "dgram",
	.name_prefix	= "dg",
	.priv_size	= sizeof(struct dgram_priv),
	.opts		= dgram_opts,
	.n_opts		= ARRAY_SIZE(dgram_opts),
	.opts_size	= sizeof(struct dgram_opts),
	.check		= dgram_check,
	.open		= dgram_open,
	.close		= dgram_close,
	.xmit		= dgram_xmit,
	.rx_begin	= dgram_rx_begin,
	.rx_burst	= dgram_rx_burst,
	.rx_end		= dgram_rx_end,
	.counters	= dgram_counters,
};
