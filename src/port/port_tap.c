// SPDX-License-Identifier: GPL-2.0-or-later
/* port_tap.c - a TAP interface as a switch port
 *
 * Owns one /dev/net/tun fd opened with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
 * so every frame crossing it carries a 12-byte virtio_net_hdr_v1: the same
 * metadata struct pkt carries, mapped 1:1.  Frames read from the kernel
 * land in buffers allocated once at open; frames to the kernel are one
 * writev() each, straight from the source's buffers (single copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>

#include "port.h"
#include "../net/gso.h"
#include "../log.h"
#include "../switch.h"
#include "../util.h"
#include "../worker.h"

#define TAP_VNET_HDR_LEN	12	/* sizeof(struct virtio_net_hdr_v1) */
#define TAP_FRAME_MAX		PKT_FRAME_MAX
#define TAP_BUF_LEN		(TAP_VNET_HDR_LEN + TAP_FRAME_MAX)

/* Newer than Debian 12's uapi headers (Linux 6.2). */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6	0x40
#endif

/* What the kernel accepts on a write, as virtio-net GUEST_* bits. */
#define TAP_DST_FEAT							\
	(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4 | \
	 1ULL << VIRTIO_NET_F_GUEST_TSO6 | 1ULL << VIRTIO_NET_F_GUEST_ECN |  \
	 1ULL << VIRTIO_NET_F_GUEST_USO4 | 1ULL << VIRTIO_NET_F_GUEST_USO6)

_Static_assert(sizeof(struct virtio_net_hdr_v1) == TAP_VNET_HDR_LEN,
	       "TUNSETVNETHDRSZ must match struct pkt's header");

/**
 * struct tap_priv - state of one TAP port (port->priv)
 * @fd:		the tun fd, non-blocking
 * @worker:	worker polling @fd
 * @src_feat:	offloads enabled with TUNSETOFFLOAD, as virtio-net HOST_*
 *		feature bits (struct pkt's @src_feat)
 * @closing:	set by close before it waits for @users to drain
 * @users:	workers inside poll or xmit; close waits for zero, so it
 *		never frees buffers or closes @fd under a running burst
 * @bufs:	SWITCH_BURST receive buffers of TAP_BUF_LEN bytes (one
 *		allocation, one release in close); poll-side only
 * @pkts:	descriptors of the frames in @bufs for one burst
 * @pktv:	pointers to @pkts, as switch_forward() takes them
 */
struct tap_priv {
	int fd;
	unsigned int worker;
	uint64_t src_feat;
	bool closing;
	unsigned int users __cacheline_aligned;
	uint8_t *bufs __cacheline_aligned;
	struct pkt pkts[SWITCH_BURST];
	struct pkt *pktv[SWITCH_BURST];
};

/**
 * tap_enter() - account a worker entering poll or xmit
 * @t:		port state
 * Return: false if the port is closing (the caller backs out)
 *
 * The increment and the load of @closing are both seq_cst, as are the
 * store of @closing and the load of @users in tap_close(): one side always
 * sees the other (Dekker), so close never frees under a running burst.
 */
static bool tap_enter(struct tap_priv *t)
{
	__atomic_fetch_add(&t->users, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->closing, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&t->users, 1, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

static void tap_leave(struct tap_priv *t)
{
	/* Release pairs with the acquire load in tap_close(). */
	__atomic_fetch_sub(&t->users, 1, __ATOMIC_RELEASE);
}

/**
 * tap_set_offload() - let the kernel hand us partial-checksum and GSO frames
 * @t:		port state
 * @ifname:	interface name, for messages
 * @on:		offload=on (the default); off enables nothing
 *
 * The switch completes checksums and segments in software for any
 * destination that cannot take a frame whole (net/gso.c), so the kernel
 * may give us everything it can: 64 KiB TCP (and, on kernels that know
 * it, UDP) segments with the checksum left partial.  What we enabled is
 * recorded as the virtio-net HOST_* bits a guest would have negotiated,
 * which is what destinations check frames from us against.
 *
 * Return: 0 or -errno
 */
static int tap_set_offload(struct tap_priv *t, const char *ifname,
			   bool on)
{
	unsigned long base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
			     TUN_F_TSO_ECN;

	if (!on) {
		/* The kernel then hands us only complete, MTU-sized frames. */
		t->src_feat = 0;
		if (!ioctl(t->fd, TUNSETOFFLOAD, 0UL))
			return 0;
		err("tap %s: TUNSETOFFLOAD: %s", ifname, strerror(errno));
		return -errno;
	}

	t->src_feat = 1ULL << VIRTIO_NET_F_CSUM |
		      1ULL << VIRTIO_NET_F_HOST_TSO4 |
		      1ULL << VIRTIO_NET_F_HOST_TSO6 |
		      1ULL << VIRTIO_NET_F_HOST_ECN;
	if (!ioctl(t->fd, TUNSETOFFLOAD, base | TUN_F_USO4 | TUN_F_USO6)) {
		t->src_feat |= 1ULL << VIRTIO_NET_F_HOST_USO;
		return 0;
	}
	/* Kernels before 6.2 refuse the USO flags: TCP offloads only. */
	if (!ioctl(t->fd, TUNSETOFFLOAD, base))
		return 0;
	err("tap %s: TUNSETOFFLOAD: %s", ifname, strerror(errno));
	return -errno;
}

/**
 * tap_open() - create or attach the TAP interface and start polling it
 * @p:		port, priv zeroed
 * @spec:	--port spec (@spec->ifname; "%d" templates allowed)
 * Return: 0 or -errno, with a log line naming the interface
 *
 * Context: control thread.
 */
static int tap_open(struct port *p, const struct conf_port *spec)
{
	struct tap_priv *t = p->priv;
	int hdr_len = TAP_VNET_HDR_LEN;
	struct ifreq ifr;
	unsigned int i;
	int rc;

	t->bufs = malloc((size_t)SWITCH_BURST * TAP_BUF_LEN);
	if (!t->bufs) {
		err("tap %s: no memory for receive buffers", spec->ifname);
		return -ENOMEM;
	}
	for (i = 0; i < SWITCH_BURST; i++)
		t->pktv[i] = &t->pkts[i];

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		err("tap %s: open /dev/net/tun: %s", spec->ifname,
		    strerror(-rc));
		goto err_free;
	}

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	/* conf.c guarantees it fits IFNAMSIZ with its NUL. */
	memcpy(ifr.ifr_name, spec->ifname,
	       MIN(strlen(spec->ifname), (size_t)IFNAMSIZ - 1));
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		rc = -errno;
		err("tap %s: TUNSETIFF: %s", spec->ifname, strerror(-rc));
		goto err_close;
	}
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &hdr_len) < 0) {
		rc = -errno;
		err("tap %s: TUNSETVNETHDRSZ: %s", ifr.ifr_name,
		    strerror(-rc));
		goto err_close;
	}
	rc = tap_set_offload(t, ifr.ifr_name, spec->offload);
	if (rc < 0)
		goto err_close;

	t->worker = worker_pick();
	rc = worker_fd_add(t->worker, t->fd, p->idx, 0);
	if (rc < 0) {
		err("tap %s: cannot register with worker %u: %s",
		    ifr.ifr_name, t->worker, strerror(-rc));
		goto err_close;
	}
	__atomic_store_n(&p->up, true, __ATOMIC_RELEASE);
	info("port %s: tap %s ready (worker %u)", p->name, ifr.ifr_name,
	     t->worker);
	return 0;

err_close:
	close(t->fd);
	t->fd = -1;
err_free:
	free(t->bufs);
	t->bufs = NULL;
	return rc;
}

/**
 * tap_close() - stop polling and release the interface
 * @p:		port
 *
 * Context: control thread.  Waits (briefly: one burst) for a worker that
 * is still inside poll or xmit, so nothing runs on freed buffers or a
 * reused fd number.
 */
static void tap_close(struct port *p)
{
	struct tap_priv *t = p->priv;
	struct timespec ts = { .tv_nsec = 100000 };

	__atomic_store_n(&p->up, false, __ATOMIC_RELEASE);
	__atomic_store_n(&t->closing, true, __ATOMIC_SEQ_CST);
	worker_fd_del(t->worker, t->fd);
	while (__atomic_load_n(&t->users, __ATOMIC_SEQ_CST))
		nanosleep(&ts, NULL);
	close(t->fd);
	t->fd = -1;
	free(t->bufs);
	t->bufs = NULL;
}

/**
 * tap_rx_burst() - read up to @max frames and forward them
 * @p:		port
 * @t:		its state
 * @max:	frames to read, <= SWITCH_BURST
 * @dry:	set when the fd ran out of frames (or failed)
 * Return: frames read, including the ones dropped here
 */
static unsigned int tap_rx_burst(struct port *p, struct tap_priv *t,
				 unsigned int max, bool *dry)
{
	unsigned int i, n = 0, runts = 0, big = 0, ioerr = 0;
	uint64_t bytes = 0;

	for (i = 0; i < max; i++) {
		uint8_t *buf = t->bufs + (size_t)n * TAP_BUF_LEN;
		struct iovec iov[2] = {
			{ .iov_base = buf, .iov_len = TAP_VNET_HDR_LEN },
			{ .iov_base = buf + TAP_VNET_HDR_LEN,
			  .iov_len = TAP_FRAME_MAX },
		};
		struct pkt *pkt = &t->pkts[n];
		ssize_t r;
		size_t len;

		r = readv(t->fd, iov, 2);
		if (r < 0) {
			if (errno == EINTR)
				continue;	/* bounded by @max */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ioerr++;
			*dry = true;
			break;
		}
		if (r == 0) {
			*dry = true;
			break;
		}
		/* tun reports the frame's full length even if it did not
		 * fit: never trust more than we gave it.
		 */
		if ((size_t)r > TAP_BUF_LEN) {
			big++;
			continue;
		}
		if ((size_t)r < TAP_VNET_HDR_LEN + ETH_HLEN) {
			runts++;
			continue;
		}
		len = (size_t)r - TAP_VNET_HDR_LEN;
		memcpy(&pkt->vnet, buf, TAP_VNET_HDR_LEN);
		pkt->src_feat = t->src_feat;
		memcpy(&pkt->eth, buf + TAP_VNET_HDR_LEN, ETH_HLEN);
		pkt->len = (uint32_t)len;
		pkt->iovcnt = 1;
		pkt->iov[0].iov_base = buf + TAP_VNET_HDR_LEN;
		pkt->iov[0].iov_len = len;
		bytes += len;
		n++;
	}

	if (runts)
		stats_add(&p->stats.drops[STATS_DROP_RUNT], runts);
	if (big)
		stats_add(&p->stats.drops[STATS_DROP_TOO_BIG], big);
	if (ioerr)
		stats_add(&p->stats.drops[STATS_DROP_IO_ERROR], ioerr);
	if (n) {
		stats_add(&p->stats.rx_packets, n);
		stats_add(&p->stats.rx_bytes, bytes);
		switch_forward(p, t->pktv, n);
	}
	return n + runts + big;
}

/**
 * tap_poll() - the tun fd is readable: forward up to @budget frames
 * @p:		port
 * @cookie:	unused (one fd per TAP port)
 * @budget:	frames allowed this pass
 * Return: frames processed; @budget means "more may be waiting"
 *
 * Context: the worker the fd is registered with; the buffers are reused
 * as soon as switch_forward() returns (every xmit copies).
 */
static unsigned int tap_poll(struct port *p, uint32_t cookie,
			     unsigned int budget)
{
	struct tap_priv *t = p->priv;
	unsigned int done = 0;
	bool dry = false;

	if (!tap_enter(t))
		return 0;
	while (done < budget && !dry)
		done += tap_rx_burst(p, t, MIN(budget - done,
					       (unsigned int)SWITCH_BURST),
				     &dry);
	tap_leave(t);
	return done;	/* < @budget unless the fd may have more */
}

/**
 * tap_xmit() - write frames to the kernel
 * @p:		port
 * @pkts:	frames (their buffers are read, never kept)
 * @n:		number of frames
 * Return: frames delivered; the rest are counted as drops
 *
 * Context: any worker, concurrently: one writev() per frame on a tun fd
 * is atomic, so no lock is needed.  Never blocks (O_NONBLOCK).
 */
static unsigned int tap_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n)
{
	unsigned int i, sent = 0, drops[STATS_DROP_COUNT] = { 0 };
	struct tap_priv *t = p->priv;
	struct iovec iov[1 + PKT_IOV_MAX];
	uint64_t bytes = 0;

	if (!tap_enter(t)) {
		stats_add(&p->stats.drops[STATS_DROP_PORT_DOWN], n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct pkt *pkt = pkts[i];
		struct virtio_net_hdr_v1 hdr = pkt->vnet;
		int tries = 0;
		ssize_t r;

		if (pkt->iovcnt > PKT_IOV_MAX || pkt->len > TAP_FRAME_MAX) {
			drops[STATS_DROP_TOO_BIG]++;
			continue;
		}
		/* The kernel reads num_buffers only on mergeable RX, which
		 * a TAP write is not; keep it zero all the same.
		 */
		hdr.num_buffers = 0;
		/* The kernel takes any offload, but only what the source was
		 * entitled to send goes through (a guest that never
		 * negotiated TSO does not get to send 64 KiB frames).
		 */
		if ((hdr.flags || hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE) &&
		    gso_plan(pkt, pkt->src_feat, TAP_DST_FEAT) != GSO_ACT_PASS) {
			drops[STATS_DROP_OFFLOAD]++;
			continue;
		}
		iov[0].iov_base = &hdr;
		iov[0].iov_len = sizeof(hdr);
		memcpy(&iov[1], pkt->iov, pkt->iovcnt * sizeof(iov[0]));
		do {
			r = writev(t->fd, iov, (int)pkt->iovcnt + 1);
		} while (r < 0 && errno == EINTR && ++tries < 3);
		if (r >= 0) {
			sent++;
			bytes += pkt->len;
			continue;
		}
		switch (errno) {
		case EAGAIN:
		case ENOBUFS:
			drops[STATS_DROP_NO_BUFFER]++;
			break;
		case EIO:	/* interface down */
			drops[STATS_DROP_PORT_DOWN]++;
			break;
		case EINVAL:	/* offload metadata the kernel refused */
			drops[STATS_DROP_OFFLOAD]++;
			break;
		default:
			drops[STATS_DROP_IO_ERROR]++;
			break;
		}
	}
	tap_leave(t);

	if (sent) {
		stats_add(&p->stats.tx_packets, sent);
		stats_add(&p->stats.tx_bytes, bytes);
	}
	for (i = 0; i < STATS_DROP_COUNT; i++)
		if (drops[i])
			stats_add(&p->stats.drops[i], drops[i]);
	return sent;
}

const struct port_ops port_tap_ops = {
	.type		= "tap",
	.priv_size	= sizeof(struct tap_priv),
	.open		= tap_open,
	.close		= tap_close,
	.xmit		= tap_xmit,
	.poll		= tap_poll,
	.timer		= NULL,
};
