// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost_direct.c - TAP -> guest in one copy: readv() into RX buffers
 *
 * DOC: Theory of Operation
 *
 * A TAP port opens one tun queue per vhost-user guest and has the kernel
 * steer frames for that guest's MACs to it (port_tap.c, tap_steer.c).
 * The worker polling such a queue calls port_vhost_rx_direct(), which,
 * under the guest's RX queue lock and nothing else:
 *
 *   1. holds popped RX chains covering the largest frame the TAP may
 *      hand over (port_vhost_rx_fill(): the reserve belongs to the ring,
 *      every other writer uses it first, so it is always the last chains
 *      popped and virtq_unpop() can return it when the ring stops);
 *   2. reads ONE frame with ONE readv() whose vector is: the 12-byte
 *      virtio-net header and the 14-byte Ethernet header into our own
 *      memory, then the guest's buffers from just after the guest's
 *      virtio-net header and Ethernet header;
 *   3. checks the frame as the switch and port_vhost_rx_frame() would
 *      (the MAC table still sends it to this guest, MTU, gso_plan() says
 *      PASS for this guest's features); if so writes the Ethernet header
 *      and the guest's virtio-net header (num_buffers = chains used) into
 *      the first chain and pushes the chains used;
 *   4. otherwise copies the frame out of the guest's buffers into the
 *      TAP queue's bounce buffer and returns PORT_DIRECT_FORWARD: the
 *      caller drops the lock (we do) and hands it to switch_forward(), so
 *      it is treated exactly like a frame read the old way.  Nothing is
 *      pushed to the guest for it; the chains stay in the reserve.
 *
 * What decides where a frame goes (its Ethernet header, its offload
 * metadata) is read into vhostd's memory, never taken from guest memory
 * the guest could rewrite under us.  The frame's other bytes do land in
 * the guest's buffers first: a guest racing to rewrite them can alter a
 * frame that then falls back and travels on as if from the TAP -- no more
 * than it can send from its own TX queue, and the copy in the bounce
 * buffer is what every later check looks at.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "port_vhost.h"
#include "../fdb.h"
#include "../log.h"
#include "../net/iov.h"
#include "../switch.h"
#include "../util.h"

/**
 * struct direct_feat - a TAP offload and the guest feature taking it whole
 * @host:	HOST_* (or CSUM) bit in the TAP's src_feat
 * @guest:	GUEST_* bits the guest needs for it
 */
struct direct_feat {
	uint64_t host;
	uint64_t guest;
};

/* USO is left out on purpose: the kernel hands over UDP GSO frames only
 * for UDP_SEGMENT senders, and QEMU before 8.1 never negotiates
 * GUEST_USO4/6 -- requiring it would keep every such guest off the
 * direct path for the sake of a rare frame, which falls back per frame.
 */
static const struct direct_feat direct_feats[] = {
	{ PV_FEAT(VIRTIO_NET_F_CSUM), PV_FEAT(VIRTIO_NET_F_GUEST_CSUM) },
	{ PV_FEAT(VIRTIO_NET_F_HOST_TSO4), PV_FEAT(VIRTIO_NET_F_GUEST_TSO4) },
	{ PV_FEAT(VIRTIO_NET_F_HOST_TSO6), PV_FEAT(VIRTIO_NET_F_GUEST_TSO6) },
	{ PV_FEAT(VIRTIO_NET_F_HOST_ECN), PV_FEAT(VIRTIO_NET_F_GUEST_ECN) },
};

/**
 * port_vhost_direct_ok() - whether a TAP should steer frames for @p's MACs
 *			    to a queue of their own
 * @p:		a port
 * @src_feat:	offloads the TAP may hand over
 *
 * Only a running vhost-user guest using one queue pair, with MRG_RXBUF
 * (a frame may then span as many buffers as it needs, so a read never
 * has to fit one chain), that takes the TAP's checksum and TCP offloads
 * whole.  A guest that needs
 * software segmentation would pay an extra copy out of its buffers for
 * every TSO frame; its frames are better read into the TAP's bounce
 * buffer as before.  A hint only: the datapath re-checks every frame.
 *
 * Return: true if direct reads suit @p
 * Context: control thread (reads negotiated features)
 */
bool port_vhost_direct_ok(struct port *p, uint64_t src_feat)
{
	const struct port_vhost *pv;
	uint64_t feat;
	unsigned int i;

	if (p->ops != &port_vhost_ops ||
	    !__atomic_load_n(&p->up, __ATOMIC_ACQUIRE))
		return false;
	pv = p->priv;
	/* Direct reads fill pair 0's RX ring (PORT_VHOST_RXQ), chosen before
	 * the frame is read.  A guest running several pairs wants each
	 * flow's frames on the pair that sent it (port_vhost_pick()), which
	 * only the switch's path can choose, having read the frame.
	 */
	if (vu_dev_pairs_enabled(&pv->dev) > 1)
		return false;
	feat = pv->dev.features;
	if (!(feat & PV_FEAT(VIRTIO_NET_F_MRG_RXBUF)))
		return false;
	for (i = 0; i < ARRAY_SIZE(direct_feats); i++)
		if ((src_feat & direct_feats[i].host) &&
		    (feat & direct_feats[i].guest) != direct_feats[i].guest)
			return false;
	return true;
}

/**
 * direct_iov() - hold chains for one read and build its vector
 * @pv:		destination
 * @vq:		its RX ring, locked and started
 * @src:	the TAP queue
 * @hdr_len:	the guest's virtio-net header length
 * @niov:	out: segments in @src->iov
 * @cap:	out: frame bytes the vector holds (Ethernet header included)
 *
 * Return: 0; -ENOBUFS if the guest's posted buffers cannot cover
 *	   @src->frame_max (or take more than a frame's worth of segments);
 *	   -EINVAL if it posted unusable ones (returned empty); -EIO broken
 */
static int direct_iov(struct port_vhost *pv, struct virtq *vq,
		      struct port_direct *src, unsigned int hdr_len,
		      unsigned int *niov, size_t *cap)
{
	struct port_vhost_rxq *rq = &pv->rxq[0];
	size_t need = (size_t)hdr_len +
		      __atomic_load_n(&src->frame_max, __ATOMIC_RELAXED);
	size_t have = 0;
	unsigned int nch = 0, n = 2, i;
	struct virtq_elem *e;
	int rc;

	while (have < need) {
		rc = port_vhost_rx_fill(pv, rq, vq, nch + 1);
		if (rc)
			return rc == -EMSGSIZE ? -ENOBUFS : rc;
		e = port_vhost_rx_chain(rq, nch);
		/* Headers go into the first chain; a guest posting a buffer
		 * too small for them gets it back empty (a hostile value
		 * here would make us write past it).
		 */
		if (!nch && e->in_len < hdr_len + ETH_HLEN) {
			port_vhost_rx_push(pv, rq, vq, 0);
			return -EINVAL;
		}
		have += e->in_len;
		nch++;
	}

	src->iov[0].iov_base = &src->vnet;
	src->iov[0].iov_len = PORT_DIRECT_HDR_LEN;
	src->iov[1].iov_base = &src->eth;
	src->iov[1].iov_len = ETH_HLEN;
	for (i = 0; i < nch; i++) {
		e = port_vhost_rx_chain(rq, i);
		/* The frame (Ethernet header and data) must fit a struct
		 * pkt's vector, for the checks and a fallback copy.
		 */
		if (n + e->in_num > PORT_DIRECT_IOV_MAX)
			return -ENOBUFS;
		if (!i) {
			n += iov_tail(e->iov, e->in_num, hdr_len + ETH_HLEN,
				      &src->iov[n], PORT_DIRECT_IOV_MAX - n);
			continue;
		}
		memcpy(&src->iov[n], e->iov, e->in_num * sizeof(e->iov[0]));
		n += e->in_num;
	}
	*niov = n;
	*cap = have - hdr_len;
	return 0;
}

/**
 * direct_check() - may the frame just read stay with this guest
 * @p:		destination port
 * @pv:		its state (RX lock held)
 * @pkt:	the frame, described in place
 *
 * The same decisions switch_forward() and port_vhost_rx_frame() would
 * take for it, on vhostd's own copy of the headers.
 *
 * Return: -1 if it may, else the enum stats_direct fallback reason
 */
static int direct_check(const struct port *p, const struct port_vhost *pv,
			const struct pkt *pkt)
{
	const uint8_t *dst = pkt->eth.h_dest;

	/* Group addresses flood; the kernel's steering is a snapshot of
	 * the MAC table, which may have moved or aged the entry since.
	 */
	if ((dst[0] & 1) || fdb_lookup(switch_fdb(), dst) != p->idx)
		return STATS_DIRECT_STEER;
	if (port_vhost_over_mtu(pv, pkt))
		return STATS_DIRECT_MTU;
	if (!pkt->vnet.flags && pkt->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return -1;
	if (gso_plan(pkt, pkt->src_feat, pv->dev.features) != GSO_ACT_PASS)
		return STATS_DIRECT_OFFLOAD;
	return -1;
}

/**
 * direct_deliver() - hand the frame just read to the guest
 * @pv:		destination (RX lock held)
 * @vq:		its RX ring
 * @src:	the TAP queue (headers in @src->vnet, @src->eth)
 * @len:	frame length, Ethernet header included
 * @hdr_len:	the guest's virtio-net header length
 */
static void direct_deliver(struct port_vhost *pv, struct virtq *vq,
			   const struct port_direct *src, size_t len,
			   unsigned int hdr_len)
{
	struct port_vhost_rxq *rq = &pv->rxq[0];
	struct virtio_net_hdr_v1 hdr = src->vnet;
	struct virtq_elem *e = port_vhost_rx_chain(rq, 0);
	uint32_t used[PORT_VHOST_RX_BUFS];
	size_t left = len - ETH_HLEN, n;
	unsigned int nbuf = 0, i;

	/* Bytes the read put in each chain, in order. */
	n = MIN(left, (size_t)e->in_len - hdr_len - ETH_HLEN);
	used[nbuf++] = (uint32_t)(hdr_len + ETH_HLEN + n);
	left -= n;
	while (left) {
		n = MIN(left, (size_t)port_vhost_rx_chain(rq, nbuf)->in_len);
		used[nbuf++] = (uint32_t)n;
		left -= n;
	}

	/* As port_vhost_rx_frame() for a frame that passes whole. */
	hdr.flags = port_vhost_rx_flags(pv, hdr.flags);
	hdr.num_buffers = (uint16_t)nbuf;
	iov_from_buf(e->iov, e->in_num, 0, &hdr, hdr_len);
	iov_from_buf(e->iov, e->in_num, hdr_len, &src->eth, ETH_HLEN);
	for (i = 0; i < nbuf; i++)
		port_vhost_rx_push(pv, rq, vq, used[i]);
}

/**
 * direct_fallback() - copy the frame out of the guest's buffers
 * @src:	the TAP queue; @src->pkt describes the frame in place (its
 *		first segment is our copy of the Ethernet header) and is
 *		rewritten to describe the copy in @src->bounce
 */
static void direct_fallback(struct port_direct *src)
{
	struct pkt *pkt = &src->pkt;

	iov_to_buf(pkt->iov, pkt->iovcnt, 0, src->bounce, pkt->len);
	pkt->iov[0].iov_base = src->bounce;
	pkt->iov[0].iov_len = pkt->len;
	pkt->iovcnt = 1;
}

/**
 * direct_learn() - learn the source MAC of a frame delivered directly
 * @tap:	the TAP port
 * @eth:	the frame's Ethernet header (our copy)
 * @last:	last MAC learned in this call, updated
 * @have_last:	@last is valid, updated
 *
 * switch_forward() would have learned it; without this the host's MAC
 * would age out while all its frames take this path.
 */
static void direct_learn(struct port *tap, const struct ethhdr *eth,
			 uint8_t last[ETH_ALEN], bool *have_last)
{
	const uint8_t *s = eth->h_source;

	if (*have_last && !memcmp(s, last, ETH_ALEN))
		return;
	memcpy(last, s, ETH_ALEN);
	*have_last = true;
	if ((s[0] & 1) || !(s[0] | s[1] | s[2] | s[3] | s[4] | s[5]))
		return;
	switch_learn(tap, s, switch_now_s());
}

/**
 * port_vhost_rx_direct() - read frames from a TAP queue into @p's buffers
 * @p:		the guest the queue is steered to (a vhost-user port)
 * @src:	the TAP queue
 * @budget:	most frames to read
 * @done:	out: frames read (delivered, dropped or the one to forward)
 *
 * On PORT_DIRECT_FORWARD and PORT_DIRECT_BOUNCE the fallback reason (enum
 * stats_direct) is in @src->why; FORWARD is counted here, BOUNCE by the
 * caller per frame it reads into its bounce buffers.
 *
 * Return: why it stopped
 * Context: the worker polling @src->fd; takes @p's RX queue lock and no
 * other (no RX -> RX nesting: the fallback forward happens after it is
 * released)
 */
enum port_direct_stop port_vhost_rx_direct(struct port *p,
					   struct port_direct *src,
					   unsigned int budget,
					   unsigned int *done)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q = &pv->dev.q[PORT_VHOST_RXQ];
	struct port *tap = src->src;
	enum port_direct_stop stop = PORT_DIRECT_BUDGET;
	unsigned int runts = 0, big = 0, ioerr = 0, sent = 0, hdr_len;
	unsigned int bad = 0, tries = 0;
	uint64_t bytes = 0;
	uint8_t last[ETH_ALEN];
	bool have_last = false;
	int why = -1, call = -1;

	*done = 0;
	vlock_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		why = STATS_DIRECT_DOWN;
		stop = PORT_DIRECT_BOUNCE;
		goto out;
	}
	if (!(pv->dev.features & PV_FEAT(VIRTIO_NET_F_MRG_RXBUF))) {
		why = STATS_DIRECT_NO_MRG;
		stop = PORT_DIRECT_BOUNCE;
		goto out;
	}
	hdr_len = vu_dev_hdr_len(&pv->dev);

	while (*done < budget) {
		struct pkt *pkt = &src->pkt;
		unsigned int niov;
		size_t cap, len;
		ssize_t r;
		int rc;

		rc = direct_iov(pv, &q->vq, src, hdr_len, &niov, &cap);
		if (rc == -EIO) {
			stats_add(&port_ctr(p)->violations, 1);
			vu_dev_mark_broken(&pv->dev);
			why = STATS_DIRECT_DOWN;
			stop = PORT_DIRECT_BOUNCE;
			break;
		}
		if (rc == -EINVAL && ++bad < PORT_VHOST_RX_BUFS)
			continue;	/* the bad chains went back empty */
		if (rc) {
			/* Leave the frame to the bounce path, which drops
			 * or delivers it as before: reading nothing here
			 * would leave the fd readable and the worker
			 * spinning on it.
			 */
			why = STATS_DIRECT_NO_BUFFER;
			stop = PORT_DIRECT_BOUNCE;
			break;
		}

		r = readv(src->fd, src->iov, (int)niov);
		if (r < 0) {
			if (errno == EINTR && ++tries < 3)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ioerr++;
			stop = PORT_DIRECT_DRY;
			break;
		}
		if (r == 0) {
			stop = PORT_DIRECT_DRY;
			break;
		}
		(*done)++;
		/* tun reports a frame's full length even when it did not
		 * fit (the rest is lost): never trust more than we gave.
		 * The chains stay held; nothing was pushed.
		 */
		if ((size_t)r > PORT_DIRECT_HDR_LEN + cap) {
			big++;
			continue;
		}
		if ((size_t)r < PORT_DIRECT_HDR_LEN + ETH_HLEN) {
			runts++;
			continue;
		}
		len = (size_t)r - PORT_DIRECT_HDR_LEN;

		pkt->vnet = src->vnet;
		pkt->vnet.num_buffers = 0;
		pkt->src_feat = src->src_feat;
		pkt->eth = src->eth;
		pkt->len = (uint32_t)len;
		/* Cannot fail: direct_iov() kept the vector within it. */
		rc = iov_slice(&src->iov[1], niov - 1, 0, len, pkt->iov,
			       PKT_IOV_MAX);
		pkt->iovcnt = rc < 0 ? 0 : (unsigned int)rc;

		why = direct_check(p, pv, pkt);
		if (why >= 0) {
			direct_fallback(src);
			stop = PORT_DIRECT_FORWARD;
			break;
		}
		direct_learn(tap, &src->eth, last, &have_last);
		direct_deliver(pv, &q->vq, src, len, hdr_len);
		sent++;
		bytes += len;
	}
	if (sent || bad)
		call = port_vhost_publish(q);
	if (sent)
		port_vhost_q_count(&pv->rxq[0].packets, &pv->rxq[0].bytes,
				   sent, bytes);
out:
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);

	src->why = why;
	if (stop == PORT_DIRECT_FORWARD) {
		stats_add(&port_ctr(tap)->direct_fallbacks[why], 1);
		stats_add(&port_ctr(p)->direct_fallbacks[why], 1);
	}
	if (sent) {
		stats_add(&port_ctr(tap)->rx_packets, sent);
		stats_add(&port_ctr(tap)->rx_bytes, bytes);
		stats_add(&port_ctr(tap)->direct_packets, sent);
		stats_add(&port_ctr(p)->tx_packets, sent);
		stats_add(&port_ctr(p)->tx_bytes, bytes);
		stats_add(&port_ctr(p)->direct_packets, sent);
	}
	if (bad)
		stats_add(&port_ctr(p)->drops[STATS_DROP_BAD_DESC], bad);
	if (runts)
		stats_add(&port_ctr(tap)->drops[STATS_DROP_RUNT], runts);
	if (big)
		stats_add(&port_ctr(tap)->drops[STATS_DROP_TOO_BIG], big);
	if (ioerr)
		stats_add(&port_ctr(tap)->drops[STATS_DROP_IO_ERROR], ioerr);
	return stop;
}
