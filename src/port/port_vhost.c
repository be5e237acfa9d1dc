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
 *   TX (queue 1, guest -> switch): its kick eventfd is polled by a worker.
 *   A poll pops a burst of chains, turns each into a struct pkt that
 *   points into guest memory (after the virtio-net header), hands the
 *   burst to switch_forward() -- which copies each frame straight into
 *   its destinations -- and then returns every chain to the used ring
 *   with one index publish and at most one interrupt.
 *   RX (queue 0, switch -> guest): xmit, called by whichever worker
 *   forwards to us, pops as many RX buffers as the frame needs (several
 *   with MRG_RXBUF), copies header and frame in, and publishes once per
 *   burst.  RX kicks are not needed (we never wait for RX buffers: a
 *   frame that finds none is dropped and counted), so they are disabled.
 *
 * Every ring access happens with the queue's lock held and only while
 * the vhost layer says the queue is started; a ring violation marks the
 * device broken, which drops this guest's connection and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/virtio_config.h>

#include "port.h"
#include "../evloop.h"
#include "../log.h"
#include "../net/gso.h"
#include "../net/iov.h"
#include "../switch.h"
#include "../util.h"
#include "../vhost/vu_dev.h"
#include "../worker.h"

#define PORT_VHOST_RX_BUFS	64	/* RX buffers one frame may span */
#define PORT_VHOST_RXQ		0
#define PORT_VHOST_TXQ		1

#define F(bit)			(1ULL << (bit))

/* Offloads a guest may use when sending: what struct pkt's src_feat
 * carries for gso_plan() at the destination.
 */
#define PORT_VHOST_HOST_OFFLOADS					\
	(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |		\
	 F(VIRTIO_NET_F_HOST_TSO6) | F(VIRTIO_NET_F_HOST_ECN) |		\
	 F(VIRTIO_NET_F_HOST_USO))

/* Offloads we can hand a guest when receiving. */
#define PORT_VHOST_GUEST_OFFLOADS					\
	(F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_GUEST_TSO4) |	\
	 F(VIRTIO_NET_F_GUEST_TSO6) | F(VIRTIO_NET_F_GUEST_ECN) |	\
	 F(VIRTIO_NET_F_GUEST_USO4) | F(VIRTIO_NET_F_GUEST_USO6))

#define PORT_VHOST_FEATURES						\
	(F(VIRTIO_F_VERSION_1) | F(VIRTIO_NET_F_MRG_RXBUF) |		\
	 F(VIRTIO_NET_F_MTU) |						\
	 F(VIRTIO_RING_F_EVENT_IDX) | F(VIRTIO_RING_F_INDIRECT_DESC) |	\
	 PORT_VHOST_HOST_OFFLOADS | PORT_VHOST_GUEST_OFFLOADS)

/**
 * struct port_vhost - private state of a vhost-user port
 * @dev:	the vhost-user device
 * @port:	back pointer to the switch port
 * @path:	socket path
 * @client:	we connect to @path instead of listening on it
 * @listen_fd:	listening socket (server mode), -1 otherwise
 * @worker:	worker polling this port's TX queue
 * @tx_elems:	TX burst scratch (worker, under the TX queue lock)
 * @tx_pkts:	frames built from @tx_elems
 * @tx_pkt_ptrs: pointers to @tx_pkts, as switch_forward() takes them
 * @tx_heads:	heads to return to the used ring after forwarding
 * @rx_elems:	RX buffers for one frame (under the RX queue lock)
 */
struct port_vhost {
	struct vu_dev dev;
	struct port *port;
	char path[CONF_PATH_MAX];
	bool client;
	int listen_fd;
	unsigned int worker;
	struct virtq_elem tx_elems[SWITCH_BURST];
	struct pkt tx_pkts[SWITCH_BURST];
	struct pkt *tx_pkt_ptrs[SWITCH_BURST];
	uint16_t tx_heads[SWITCH_BURST];
	struct virtq_elem rx_elems[PORT_VHOST_RX_BUFS];
};

static void port_vhost_on_conn(void *opaque, int fd, uint32_t events);

/* ---- datapath: guest TX -> switch ------------------------------------- */

/**
 * port_vhost_tx_parse() - describe one TX chain as a frame
 * @pv:		port
 * @e:		popped chain
 * @hdr_len:	virtio-net header length negotiated
 * @pkt:	filled in
 *
 * Return: true if @pkt is a frame to forward, false if dropped (counted)
 */
static bool port_vhost_tx_parse(struct port_vhost *pv,
				const struct virtq_elem *e,
				unsigned int hdr_len, struct pkt *pkt)
{
	struct port_stats *st = &pv->port->stats;
	uint64_t feat = pv->dev.features;
	uint8_t *vnet = (uint8_t *)&pkt->vnet;

	/* TX buffers are device-readable only; a guest that hands us
	 * writable ones here is confused, and we never write to them.
	 */
	if (e->in_num) {
		stats_add(&st->drops[STATS_DROP_BAD_DESC], 1);
		return false;
	}
	if (e->out_len < hdr_len + ETH_HLEN) {
		stats_add(&st->drops[STATS_DROP_RUNT], 1);
		return false;
	}
	if (e->out_len - hdr_len > PKT_FRAME_MAX) {
		stats_add(&st->drops[STATS_DROP_TOO_BIG], 1);
		return false;
	}

	memset(&pkt->vnet, 0, sizeof(pkt->vnet));
	if (likely(e->iov[0].iov_len >= hdr_len + ETH_HLEN)) {
		/* Header and Ethernet header in the first buffer (Linux,
		 * DPDK, vdrv all lay TX out so): two plain copies.
		 */
		memcpy(vnet, e->iov[0].iov_base, hdr_len);
		memcpy(&pkt->eth, (uint8_t *)e->iov[0].iov_base + hdr_len,
		       ETH_HLEN);
	} else {
		iov_to_buf(e->iov, e->out_num, 0, vnet, hdr_len);
		iov_to_buf(e->iov, e->out_num, hdr_len, &pkt->eth, ETH_HLEN);
	}
	pkt->vnet.num_buffers = 0;
	/* NEEDS_CSUM is the only flag a driver may send.  Whether this
	 * guest may send it (or a gso_type) at all is checked against
	 * @src_feat where the frame is delivered (gso_plan()).
	 */
	pkt->vnet.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt->src_feat = feat & PORT_VHOST_HOST_OFFLOADS;

	pkt->iovcnt = iov_tail(e->iov, e->out_num, hdr_len, pkt->iov,
			       PKT_IOV_MAX);
	pkt->len = e->out_len - hdr_len;
	return true;
}

/**
 * port_vhost_tx_burst() - forward one burst from the TX queue
 * @pv:		port
 * @q:		the TX queue, locked and started
 * @max:	most chains to pop (<= SWITCH_BURST)
 *
 * Return: chains consumed, or -EIO if the ring turned out broken
 */
static int port_vhost_tx_burst(struct port_vhost *pv, struct vu_queue *q,
			       unsigned int max)
{
	struct virtq *vq = &q->vq;
	struct port *p = pv->port;
	unsigned int hdr_len = vu_dev_hdr_len(&pv->dev);
	unsigned int i, npush = 0, npkt = 0;
	uint64_t bytes = 0;

	for (i = 0; i < max; i++) {
		struct virtq_elem *e = &pv->tx_elems[i];
		enum virtq_pop_result r = virtq_pop(vq, e);

		if (r == VIRTQ_POP_EMPTY)
			break;
		if (r == VIRTQ_POP_BROKEN) {
			stats_add(&p->stats.violations, 1);
			vu_dev_mark_broken(&pv->dev);
			return -EIO;
		}
		pv->tx_heads[npush++] = e->head;
		if (r == VIRTQ_POP_DROP) {
			stats_add(&p->stats.drops[STATS_DROP_BAD_DESC], 1);
			continue;
		}
		if (port_vhost_tx_parse(pv, e, hdr_len, &pv->tx_pkts[npkt])) {
			bytes += pv->tx_pkts[npkt].len;
			pv->tx_pkt_ptrs[npkt] = &pv->tx_pkts[npkt];
			npkt++;
		}
	}

	if (npkt) {
		stats_add(&p->stats.rx_packets, npkt);
		stats_add(&p->stats.rx_bytes, bytes);
		switch_forward(p, pv->tx_pkt_ptrs, npkt);
	}
	/* Every destination has copied: the buffers go back to the guest. */
	for (i = 0; i < npush; i++)
		virtq_push(vq, pv->tx_heads[i], 0);
	if (npush) {
		virtq_flush(vq);
		virtq_notify(vq);
	}
	return (int)npush;
}

/**
 * port_vhost_poll() - worker: process the TX queue
 * @p:		port
 * @cookie:	queue index (odd: a TX queue)
 * @budget:	most chains to process
 *
 * Kicks stay suppressed on return: the worker polls this queue again
 * until it calls port_vhost_arm().
 *
 * Return: chains processed; @budget means there is more
 */
static unsigned int port_vhost_poll(struct port *p, uint32_t cookie,
				    unsigned int budget)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q;
	unsigned int total = 0;
	uint64_t kicks;

	if (cookie >= VU_MAX_QUEUES || !(cookie & 1))
		return 0;
	q = &pv->dev.q[cookie];

	pthread_mutex_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		goto out;

	/* Coming from the armed state, a kick woke us: consume it.  While
	 * the worker polls with kicks off there is nothing to read, and a
	 * stray kick is consumed after the next arm.  Only under the lock
	 * while started: the fd may be closed right after the queue stops.
	 */
	if (!q->vq.notify_disabled) {
		if (read(q->kick_fd, &kicks, sizeof(kicks)) < 0 &&
		    errno != EAGAIN)
			debug("%s: kick read: %s", p->name, strerror(errno));
		virtq_disable_notify(&q->vq);
	}
	while (total < budget) {
		int n = port_vhost_tx_burst(pv, q, MIN(SWITCH_BURST,
						       budget - total));

		if (n <= 0)
			break;
		total += (unsigned int)n;
	}
out:
	pthread_mutex_unlock(&q->lock);
	return total;
}

/**
 * port_vhost_arm() - worker: ask for TX kicks again before sleeping
 * @p:		port
 * @cookie:	queue index
 *
 * Return: true if buffers arrived meanwhile (poll again, don't sleep)
 */
static bool port_vhost_arm(struct port *p, uint32_t cookie)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q;
	bool more = false;

	if (cookie >= VU_MAX_QUEUES || !(cookie & 1))
		return false;
	q = &pv->dev.q[cookie];

	pthread_mutex_lock(&q->lock);
	/* virtq_enable_notify() re-reads avail->idx after a full barrier,
	 * so a buffer queued while kicks were off is seen here or kicks.
	 */
	if (q->started && !__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		more = virtq_enable_notify(&q->vq);
	pthread_mutex_unlock(&q->lock);
	return more;
}

/* ---- datapath: switch -> guest RX -------------------------------------- */

/**
 * port_vhost_rx_one() - copy one frame into the guest's RX buffers
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @vnet:	virtio-net header to give the guest (num_buffers is ours)
 * @iov:	the frame's bytes, in the source's memory
 * @iovcnt:	segments in @iov
 * @len:	frame length
 * @hdr_len:	virtio-net header length
 * @mrg:	MRG_RXBUF negotiated: a frame may span several buffers
 *
 * Return: 0 if delivered, -ENOBUFS if the ring has too few buffers,
 *	   -EMSGSIZE if the frame cannot fit, -EINVAL if the guest gave us
 *	   unusable buffers (they are returned empty), -EIO if broken
 */
static int port_vhost_rx_one(struct port_vhost *pv, struct virtq *vq,
			     const struct virtio_net_hdr_v1 *vnet,
			     const struct iovec *iov, unsigned int iovcnt,
			     size_t len, unsigned int hdr_len, bool mrg)
{
	struct virtio_net_hdr_v1 hdr = *vnet;
	size_t need = hdr_len + len, cap = 0, left = len;
	struct iov_cursor cur;
	unsigned int nbuf = 0, i;

	while (cap < need) {
		struct virtq_elem *e = &pv->rx_elems[nbuf];
		enum virtq_pop_result r;

		if (nbuf == PORT_VHOST_RX_BUFS || (nbuf && !mrg)) {
			virtq_unpop(vq, nbuf);
			return -EMSGSIZE;
		}
		r = virtq_pop(vq, e);
		if (r == VIRTQ_POP_EMPTY) {
			virtq_unpop(vq, nbuf);
			return -ENOBUFS;
		}
		if (r == VIRTQ_POP_BROKEN)
			return -EIO;
		nbuf++;
		/* RX buffers must be writable only, and the first must hold
		 * the whole header.  Such buffers go back empty, together
		 * with any taken before them for this frame: used entries of
		 * one frame must be consecutive, so they cannot be reused.
		 */
		if (r == VIRTQ_POP_DROP || e->out_num ||
		    (nbuf == 1 && e->in_len < hdr_len)) {
			for (i = 0; i < nbuf; i++)
				virtq_push(vq, pv->rx_elems[i].head, 0);
			return -EINVAL;
		}
		cap += e->in_len;
	}

	hdr.num_buffers = mrg ? (uint16_t)nbuf : 0;

	/* Small frames: one source segment into one buffer segment. */
	if (nbuf == 1 && iovcnt == 1 && pv->rx_elems[0].in_num == 1) {
		struct virtq_elem *e = &pv->rx_elems[0];
		uint8_t *dst = e->iov[e->out_num].iov_base;

		memcpy(dst, &hdr, hdr_len);
		memcpy(dst + hdr_len, iov[0].iov_base, len);
		virtq_push(vq, e->head, (uint32_t)need);
		return 0;
	}

	iov_cursor_init(&cur, iov, iovcnt);
	for (i = 0; i < nbuf; i++) {
		struct virtq_elem *e = &pv->rx_elems[i];
		const struct iovec *in = &e->iov[e->out_num];
		size_t off = 0, n;

		if (i == 0) {
			iov_from_buf(in, e->in_num, 0, &hdr, hdr_len);
			off = hdr_len;
		}
		n = iov_cursor_copy(&cur, in, e->in_num, off, left);
		left -= n;
		virtq_push(vq, e->head, (uint32_t)(off + n));
	}
	return 0;
}

/**
 * port_vhost_rx_csum() - deliver a frame whose checksum we complete
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @pkt:	frame with NEEDS_CSUM, for a guest without GUEST_CSUM
 * @hdr_len:	virtio-net header length
 * @mrg:	MRG_RXBUF negotiated
 *
 * The checksum is computed from the source, and the copy reads the two
 * checksum bytes from a local instead of the source: the destination
 * gets a complete frame in the same single copy, the source is never
 * written.
 *
 * Return: as port_vhost_rx_one(), or -EPROTO for unusable metadata
 */
static int port_vhost_rx_csum(struct port_vhost *pv, struct virtq *vq,
			      const struct pkt *pkt, unsigned int hdr_len,
			      bool mrg)
{
	static const struct virtio_net_hdr_v1 plain;
	struct iovec iov[PKT_IOV_MAX + 2];
	struct gso_csum res;
	int a, b;

	if (gso_csum_fill(&pkt->vnet, pkt->iov, pkt->iovcnt, pkt->len, &res))
		return -EPROTO;
	a = iov_slice(pkt->iov, pkt->iovcnt, 0, res.off, iov, PKT_IOV_MAX);
	if (a < 0)
		return -EPROTO;
	iov[a].iov_base = &res.csum;
	iov[a].iov_len = sizeof(res.csum);
	b = iov_slice(pkt->iov, pkt->iovcnt, res.off + sizeof(res.csum),
		      pkt->len - res.off - sizeof(res.csum), &iov[a + 1],
		      PKT_IOV_MAX + 1 - (unsigned int)a);
	if (b < 0)
		return -EPROTO;
	return port_vhost_rx_one(pv, vq, &plain, iov, (unsigned int)(a + 1 + b),
				 pkt->len, hdr_len, mrg);
}

/**
 * port_vhost_rx_segment() - deliver a GSO frame as segments
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @pkt:	GSO frame the guest cannot take whole
 * @hdr_len:	virtio-net header length
 * @mrg:	MRG_RXBUF negotiated
 *
 * Each segment is rebuilt headers (a local buffer) plus slices of the
 * source payload, copied once into the guest.  With GUEST_CSUM the
 * segments keep a partial checksum for the guest to trust, saving us a
 * pass over the payload.
 *
 * Return: as port_vhost_rx_one() for the first segment that failed, or
 *	   -EPROTO for unusable metadata; segments before it were delivered
 */
static int port_vhost_rx_segment(struct port_vhost *pv, struct virtq *vq,
				 const struct pkt *pkt, unsigned int hdr_len,
				 bool mrg)
{
	bool partial = pv->dev.features & F(VIRTIO_NET_F_GUEST_CSUM);
	uint8_t hdrbuf[GSO_HDR_MAX];
	struct iovec iov[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	int n, rc;

	if (gso_init(&it, pkt, partial))
		return -EPROTO;
	while ((n = gso_next(&it, hdrbuf, iov, ARRAY_SIZE(iov), &seg)) > 0) {
		rc = port_vhost_rx_one(pv, vq, &seg.vnet, iov, (unsigned int)n,
				       seg.len, hdr_len, mrg);
		if (rc)
			return rc;
	}
	return n < 0 ? -EPROTO : 0;
}

/**
 * port_vhost_rx_frame() - deliver one frame, honouring its offloads
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @pkt:	frame
 * @hdr_len:	virtio-net header length
 * @mrg:	MRG_RXBUF negotiated
 *
 * Return: as port_vhost_rx_one(), or -EPROTO for offload metadata the
 *	   source was not entitled to or that does not match the frame
 */
static int port_vhost_rx_frame(struct port_vhost *pv, struct virtq *vq,
			       const struct pkt *pkt, unsigned int hdr_len,
			       bool mrg)
{
	struct virtio_net_hdr_v1 hdr = pkt->vnet;
	int rc;

	/* With an MTU set (NET_SET_MTU: QEMU's host_mtu=), the guest may
	 * rely on never receiving more than MTU-sized frames (virtio 1.1
	 * 5.1.6.3.2); a GSO frame is the exception, it is one by design.
	 */
	if (pv->dev.mtu && hdr.gso_type == VIRTIO_NET_HDR_GSO_NONE &&
	    pkt->len > (uint32_t)pv->dev.mtu + ETH_HLEN + 4)
		return -EMSGSIZE;

	/* The common case without offloads: nothing to decide. */
	if (!hdr.flags && hdr.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return port_vhost_rx_one(pv, vq, &hdr, pkt->iov, pkt->iovcnt,
					 pkt->len, hdr_len, mrg);

	switch (gso_plan(pkt, pkt->src_feat, pv->dev.features)) {
	case GSO_ACT_PASS:
		/* A 64 KiB TSO frame travels whole: one copy. */
		if (!(pv->dev.features & F(VIRTIO_NET_F_GUEST_CSUM)))
			hdr.flags = 0;
		else
			hdr.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM |
				     VIRTIO_NET_HDR_F_DATA_VALID;
		rc = port_vhost_rx_one(pv, vq, &hdr, pkt->iov, pkt->iovcnt,
				       pkt->len, hdr_len, mrg);
		/* A guest posting buffers so small that a GSO frame would
		 * need more than PORT_VHOST_RX_BUFS of them still gets the
		 * data: as segments, which fit.
		 */
		if (rc == -EMSGSIZE && hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
			rc = port_vhost_rx_segment(pv, vq, pkt, hdr_len, mrg);
		return rc;
	case GSO_ACT_CSUM:
		return port_vhost_rx_csum(pv, vq, pkt, hdr_len, mrg);
	case GSO_ACT_SEGMENT:
		return port_vhost_rx_segment(pv, vq, pkt, hdr_len, mrg);
	default:
		return -EPROTO;
	}
}

/**
 * port_vhost_xmit() - switch -> guest: deliver frames to the RX queue
 * @p:		port
 * @pkts:	frames
 * @n:		number of frames
 *
 * Return: frames delivered
 * Context: any worker; serialised with other writers by the RX lock
 */
static unsigned int port_vhost_xmit(struct port *p, struct pkt *const *pkts,
				    unsigned int n)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q = &pv->dev.q[PORT_VHOST_RXQ];
	struct port_stats *st = &p->stats;
	unsigned int i, sent = 0, hdr_len;
	uint64_t bytes = 0;
	bool mrg, pushed = false;

	pthread_mutex_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&q->lock);
		stats_add(&st->drops[STATS_DROP_PORT_DOWN], n);
		return 0;
	}
	hdr_len = vu_dev_hdr_len(&pv->dev);
	mrg = pv->dev.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);

	for (i = 0; i < n; i++) {
		int rc = port_vhost_rx_frame(pv, &q->vq, pkts[i], hdr_len,
					     mrg);

		if (rc == 0) {
			sent++;
			bytes += pkts[i]->len;
			pushed = true;
			continue;
		}
		if (rc == -EIO) {
			stats_add(&st->violations, 1);
			stats_add(&st->drops[STATS_DROP_PORT_DOWN], n - i);
			vu_dev_mark_broken(&pv->dev);
			break;
		}
		pushed = true;	/* a failed GSO frame may have sent segments */
		if (rc == -ENOBUFS) {
			/* Ring empty: the rest of the burst cannot fit either. */
			stats_add(&st->drops[STATS_DROP_NO_BUFFER], n - i);
			break;
		}
		if (rc == -EINVAL) {
			stats_add(&st->drops[STATS_DROP_BAD_DESC], 1);
		} else if (rc == -EPROTO) {
			stats_add(&st->drops[STATS_DROP_OFFLOAD], 1);
		} else {
			stats_add(&st->drops[STATS_DROP_TOO_BIG], 1);
		}
	}
	if (pushed && !__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		virtq_flush(&q->vq);
		virtq_notify(&q->vq);
	}
	pthread_mutex_unlock(&q->lock);

	stats_add(&st->tx_packets, sent);
	stats_add(&st->tx_bytes, bytes);
	return sent;
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
		int fl = fcntl(q->kick_fd, F_GETFL);

		if (fl >= 0)
			fcntl(q->kick_fd, F_SETFL, fl | O_NONBLOCK);
		rc = worker_fd_add(pv->worker, q->kick_fd, p->idx, qi);
		if (rc < 0) {
			err("%s: cannot poll TX queue %u: %s", p->name, qi,
			    strerror(-rc));
			return;
		}
		/* Buffers may have been queued before we listened (guest
		 * restart, reconnect): one poll picks them up.
		 */
		if (eventfd_write(q->kick_fd, 1) < 0)
			debug("%s: self-kick failed", p->name);
		info("%s: TX queue %u started", p->name, qi);
		return;
	}

	pthread_mutex_lock(&q->lock);
	if (q->started)
		virtq_disable_notify(&q->vq);
	pthread_mutex_unlock(&q->lock);
	__atomic_store_n(&p->up, true, __ATOMIC_RELEASE);
	info("%s: RX queue %u started, port up", p->name, qi);
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
		worker_fd_del(pv->worker, dev->q[qi].kick_fd);
		info("%s: TX queue %u stopped", p->name, qi);
		return;
	}
	__atomic_store_n(&p->up, false, __ATOMIC_RELEASE);
	fdb_flush_port(switch_fdb(), (uint16_t)p->idx);
	info("%s: RX queue %u stopped, port down", p->name, qi);
}

static const struct vu_dev_ops port_vhost_dev_ops = {
	.queue_start = port_vhost_queue_start,
	.queue_stop = port_vhost_queue_stop,
};

/* ---- control: sockets -------------------------------------------------- */

/**
 * port_vhost_disconnect() - drop the front end's connection
 * @pv:		port
 */
static void port_vhost_disconnect(struct port_vhost *pv)
{
	if (pv->dev.fd < 0)
		return;
	evloop_del(pv->dev.fd);
	vu_dev_detach(&pv->dev);
	info("%s: front end disconnected", pv->port->name);
}

/**
 * port_vhost_attach() - a front end connected: start the protocol
 * @pv:		port
 * @fd:		connected socket
 */
static void port_vhost_attach(struct port_vhost *pv, int fd)
{
	int rc;

	vu_dev_attach(&pv->dev, fd);
	rc = evloop_add(fd, EPOLLIN | EPOLLRDHUP, port_vhost_on_conn, pv);
	if (rc < 0) {
		err("%s: cannot watch connection: %s", pv->port->name,
		    strerror(-rc));
		vu_dev_detach(&pv->dev);
		return;
	}
	info("%s: front end connected", pv->port->name);
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
			stats_add(&pv->port->stats.violations, 1);
			warn("%s: dropping front end: %s", pv->port->name,
			     strerror(-rc));
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

	if (c < 0)
		return;
	if (pv->dev.fd >= 0) {
		/* One front end per port: a second one is a mistake (two
		 * VMs given the same socket), refuse it loudly.
		 */
		warn("%s: refusing a second front end", pv->port->name);
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
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, pv->path, strlen(pv->path) + 1);
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
	char dir[CONF_PATH_MAX];
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
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		memcpy(sa.sun_path, pv->path, strlen(pv->path) + 1);
		if (probe >= 0 &&
		    !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
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
	memcpy(sa.sun_path, pv->path, strlen(pv->path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0) {
		rc = -errno;
		close(fd);
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
static int port_vhost_open(struct port *p, const struct conf_port *spec)
{
	struct port_vhost *pv = p->priv;
	int rc;

	pv->port = p;
	pv->listen_fd = -1;
	pv->client = spec->client;
	pv->worker = worker_pick();
	snprintf(pv->path, sizeof(pv->path), "%s", spec->path);
	vu_dev_init(&pv->dev, p->name,
		    spec->offload ? PORT_VHOST_FEATURES :
		    PORT_VHOST_FEATURES & ~(PORT_VHOST_HOST_OFFLOADS |
					    PORT_VHOST_GUEST_OFFLOADS),
		    &port_vhost_dev_ops, pv);

	if (pv->client) {
		rc = port_vhost_connect(pv);
		if (rc < 0)
			info("%s: %s not reachable yet (%s), retrying",
			     p->name, pv->path, strerror(-rc));
		return 0;
	}
	rc = port_vhost_listen(pv);
	if (rc < 0) {
		err("%s: cannot listen on %s: %s", p->name, pv->path,
		    strerror(-rc));
		vu_dev_fini(&pv->dev);
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
}

/**
 * port_vhost_timer() - once a second: client mode reconnects
 * @p:		port
 */
static void port_vhost_timer(struct port *p)
{
	struct port_vhost *pv = p->priv;

	if (pv->client && pv->dev.fd < 0)
		port_vhost_connect(pv);
}

const struct port_ops port_vhost_ops = {
	.type = "vhost-user",
	.priv_size = sizeof(struct port_vhost),
	.open = port_vhost_open,
	.close = port_vhost_close,
	.xmit = port_vhost_xmit,
	.poll = port_vhost_poll,
	.arm = port_vhost_arm,
	.timer = port_vhost_timer,
};
