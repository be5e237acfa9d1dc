// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost_direct.c - a guest's RX buffers lent to a reader: one copy
 *
 * DOC: Theory of Operation
 *
 * A reader of another port (a TAP queue steered to this guest by its
 * MACs: port_tap.c, tap_steer.c) can land frames straight in the guest's
 * RX buffers.  The switch drives it (switch_lend_rx(), which alone
 * decides where a frame goes); this file is the lending side, the
 * port_ops lend_* members, all on the reader's worker:
 *
 *   1. port_vhost_lend_begin() takes the RX queue lock of the pair asked
 *      for -- the only lock held until port_vhost_lend_end() -- and
 *      checks the ring runs and MRG_RXBUF (a frame may then span as many
 *      buffers as it needs, so a read never has to fit one chain);
 *   2. port_vhost_lend_reserve() holds popped RX chains covering the
 *      largest frame the reader may hand over (port_vhost_rx_fill(): the
 *      reserve belongs to the ring, every other writer uses it first, so
 *      it is always the last chains popped and virtq_unpop() can return
 *      it when the ring stops) and describes them from just after the
 *      guest's virtio-net header and the Ethernet header: the switch puts
 *      its own two header buffers in front and the reader does ONE read;
 *   3. port_vhost_lend_commit() takes the frame if port_vhost_rx_frame()
 *      would have delivered it whole (MTU, gso_plan() says PASS for this
 *      guest's features): writes the Ethernet header and the guest's
 *      virtio-net header (num_buffers = chains used) into the first chain
 *      and pushes the chains used.  Otherwise it refuses and nothing is
 *      pushed: the switch copies the frame out and forwards it, the
 *      chains stay held for the next frame (that is a cancel);
 *   4. port_vhost_lend_end() publishes once, unlocks, interrupts the
 *      guest at most once, and counts.
 *
 * What decides where a frame goes (its Ethernet header, its offload
 * metadata) is read into vhostd's memory, never taken from guest memory
 * the guest could rewrite under us.  The frame's other bytes do land in
 * the guest's buffers first: a guest racing to rewrite them can alter a
 * frame that then falls back and travels on as if from the TAP -- no more
 * than it can send from its own TX queue, and the copy in the reader's
 * bounce buffer is what every later check looks at.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "port_vhost.h"
#include "../log.h"
#include "../net/flow.h"
#include "../net/iov.h"
#include "../util.h"

/* port_vhost_lend_begin() admits MRG_RXBUF guests only, whose virtio-net
 * header is always the 12-byte v1 one (vu_dev_hdr_len()): the lend ops
 * need not ask per frame.
 */
#define LEND_HDR_LEN	((unsigned int)sizeof(struct virtio_net_hdr_v1))

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
 * port_vhost_lend_ok() - whether a reader should steer frames for @p's
 *			  MACs to a queue of their own (port_ops lend_ok)
 * @p:		a vhost-user port
 * @src_feat:	offloads the reader may hand over
 *
 * Only a running guest with MRG_RXBUF (a frame may then span as many
 * buffers as it needs, so a read never has to fit one chain) that takes
 * the reader's checksum and TCP offloads whole.  A guest with several
 * queue pairs gets a reader per pair, each lending that pair's buffers
 * (port_lend's @pair), and the reader's steering puts each flow on the
 * pair the guest sent it from (port_vhost_lend_flows()).  A guest that
 * needs software segmentation would pay an extra copy out of its buffers
 * for every TSO frame; its frames are better read into the reader's
 * bounce buffer as before.  A hint only: port_vhost_lend_commit()
 * re-checks every frame.
 *
 * Return: true if lending suits @p
 * Context: control thread (reads negotiated features)
 */
bool port_vhost_lend_ok(struct port *p, uint64_t src_feat)
{
	const struct port_vhost *pv;
	uint64_t feat;
	unsigned int i;

	if (!__atomic_load_n(&p->up, __ATOMIC_ACQUIRE))
		return false;
	pv = p->priv;
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
 * port_vhost_lend_begin() - lock the RX queue of pair @l->pair for lending
 * @p:		the guest (port_ops lend_begin)
 * @l:		the lend; a pair the guest does not have lends from pair 0
 *
 * Return: 0 with the lock held; -1 with @l->why (the ring is not running
 *	   or broken: down; no MRG_RXBUF) and nothing held
 */
int port_vhost_lend_begin(struct port *p, struct port_lend *l)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q;

	if (l->pair >= pv->pairs)
		l->pair = 0;
	q = &pv->dev.q[2 * l->pair];
	l->cookie = q;
	l->sent = 0;
	l->bytes = 0;
	l->bad = 0;
	l->niov = 0;
	l->cap = 0;
	vlock_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		l->why = STATS_DIRECT_DOWN;
	else if (!(pv->dev.features & PV_FEAT(VIRTIO_NET_F_MRG_RXBUF)))
		l->why = STATS_DIRECT_NO_MRG;
	else
		return 0;
	vlock_unlock(&q->lock);
	return -1;
}

/**
 * direct_iov() - hold chains for one frame and describe them in @l
 * @pv:		the guest
 * @rq:		its RX queue's reserve
 * @vq:		its RX ring, locked and started
 * @l:		the lend: @vec from PORT_LEND_HDRS, @niov and @cap set
 * @hdr_len:	the guest's virtio-net header length
 * @want:	bytes wanted after the Ethernet header
 *
 * Return: 0; -ENOBUFS if the guest's posted buffers cannot cover @want
 *	   (or take more than a frame's worth of segments); -EINVAL if it
 *	   posted unusable ones (returned empty); -EIO broken
 */
static int direct_iov(struct port_vhost *pv, struct port_vhost_rxq *rq,
		      struct virtq *vq, struct port_lend *l,
		      unsigned int hdr_len, size_t want)
{
	const unsigned int max = PORT_LEND_HDRS + PORT_LEND_IOV_MAX;
	size_t need = (size_t)hdr_len + ETH_HLEN + want;
	size_t have = 0;
	unsigned int nch = 0, n = PORT_LEND_HDRS, i;
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

	for (i = 0; i < nch; i++) {
		e = port_vhost_rx_chain(rq, i);
		/* The frame (Ethernet header and data) must fit a struct
		 * pkt's vector, for the checks and a fallback copy.
		 */
		if (n + e->in_num > max)
			return -ENOBUFS;
		if (!i) {
			n += iov_tail(e->iov, e->in_num, hdr_len + ETH_HLEN,
				      &l->vec[n], max - n);
			continue;
		}
		memcpy(&l->vec[n], e->iov, e->in_num * sizeof(e->iov[0]));
		n += e->in_num;
	}
	l->niov = n - PORT_LEND_HDRS;
	l->cap = have - hdr_len - ETH_HLEN;
	return 0;
}

/**
 * port_vhost_lend_reserve() - hold RX buffers for one frame (port_ops)
 * @p:		the guest, lend begun
 * @l:		the lend
 * @cap:	bytes wanted after the frame's Ethernet header
 *
 * A guest that posted unusable chains gets them back empty (counted at
 * port_vhost_lend_end()) and the next ones are tried, a reserve's worth
 * per lend at most.
 *
 * Return: 0; -1 with @l->why: too few buffers (no_buffer), or the ring
 *	   is broken (down: a violation, the device marked broken)
 */
int port_vhost_lend_reserve(struct port *p, struct port_lend *l, size_t cap)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q = l->cookie;
	int rc;

	for (;;) {
		rc = direct_iov(pv, &pv->rxq[l->pair], &q->vq, l, LEND_HDR_LEN,
				cap);
		if (rc != -EINVAL || ++l->bad >= PORT_VHOST_RX_BUFS)
			break;
		/* the bad chains went back empty: try the next ones */
	}
	if (!rc)
		return 0;
	if (rc == -EIO) {
		stats_add(&port_ctr(p)->violations, 1);
		vu_dev_mark_broken(&pv->dev);
		l->why = STATS_DIRECT_DOWN;
	} else {
		l->why = STATS_DIRECT_NO_BUFFER;
	}
	return -1;
}

/**
 * direct_pair_ok() - whether a frame read for pair @l->pair belongs there
 * @pv:		the guest
 * @l:		the lend
 * @pkt:	the frame as port_vhost_lend_commit() gets it: our copy of
 *		its Ethernet header in @pkt->iov[0], the rest in the guest's
 *		buffers from @pkt->iov[1]
 *
 * The pair port_vhost_xmit() would have chosen for it, from the same
 * flow hash: the reader's steering is a second-old copy of the guest's
 * choices (tap_steer.c), and a frame it put elsewhere goes through the
 * switch to the right pair.  The L3 and L4 headers are read from the
 * guest's buffers: a guest rewriting them meanwhile only moves its own
 * frame to another of its own pairs.
 *
 * Return: true if the frame may stay on @l->pair
 */
static bool direct_pair_ok(const struct port_vhost *pv,
			   const struct port_lend *l, const struct pkt *pkt)
{
	uint32_t on = __atomic_load_n(&pv->rx_on, __ATOMIC_ACQUIRE);
	const uint8_t *b = NULL;
	size_t len = 0;

	if (!on)
		return false;
	if (pkt->iovcnt > 1) {
		b = pkt->iov[1].iov_base;
		len = MIN(pkt->iov[1].iov_len, (size_t)pkt->len - ETH_HLEN);
	}
	return port_vhost_pick(pv, on, flow_hash(&pkt->eth, b, len)) ==
	       l->pair;
}

/**
 * port_vhost_lend_flows() - pairs, running pairs, flow table (port_ops)
 * @p:		a vhost-user port
 * @table:	PORT_FLOWS bytes to fill with each slot's pair + 1, or NULL
 * @on:		out: pairs whose RX queue runs
 *
 * Return: the port's queue pairs (queues=)
 * Context: control thread; the table is read as workers write it
 */
unsigned int port_vhost_lend_flows(struct port *p, uint8_t *table,
				   uint32_t *on)
{
	const struct port_vhost *pv = p->priv;
	unsigned int i;

	*on = __atomic_load_n(&pv->rx_on, __ATOMIC_ACQUIRE);
	for (i = 0; table && i < PORT_FLOWS; i++)
		table[i] = __atomic_load_n(&pv->flow_pair[i],
					   __ATOMIC_RELAXED);
	return pv->pairs;
}

/**
 * port_vhost_lend_commit() - the frame just read stays with the guest
 * @p:		the guest, buffers reserved (port_ops lend_commit)
 * @l:		the lend
 * @pkt:	the frame: our copy of its headers, @pkt->len bytes with the
 *		Ethernet header, the rest in the reserved buffers
 *
 * The decisions port_vhost_rx_frame() would take for it, on vhostd's own
 * copy of the headers: a frame over the guest's MTU or with an offload
 * it cannot take whole is refused.  A frame taken gets the guest's
 * virtio-net header (flags as port_vhost_rx_frame() for a frame that
 * passes whole, num_buffers = chains used) and the Ethernet header in the
 * first chain; the chains used are pushed, the rest stay held.
 *
 * Return: 0 taken; -1 with @l->why (mtu, offload), nothing pushed
 */
int port_vhost_lend_commit(struct port *p, struct port_lend *l,
			   const struct pkt *pkt)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q = l->cookie;
	struct port_vhost_rxq *rq = &pv->rxq[l->pair];
	const unsigned int hdr_len = LEND_HDR_LEN;
	struct virtio_net_hdr_v1 hdr = pkt->vnet;
	struct virtq_elem *e = port_vhost_rx_chain(rq, 0);
	uint32_t used[PORT_VHOST_RX_BUFS];
	size_t left = pkt->len - ETH_HLEN, n;
	unsigned int nbuf = 0, i;

	if (port_vhost_over_mtu(pv, pkt)) {
		l->why = STATS_DIRECT_MTU;
		return -1;
	}
	if (pv->pairs > 1 && !direct_pair_ok(pv, l, pkt)) {
		l->why = STATS_DIRECT_STEER;
		return -1;
	}
	if ((pkt->vnet.flags || pkt->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) &&
	    gso_plan(pkt, pkt->src_feat, pv->dev.features) != GSO_ACT_PASS) {
		l->why = STATS_DIRECT_OFFLOAD;
		return -1;
	}

	/* Bytes the read put in each chain, in order. */
	n = MIN(left, (size_t)e->in_len - hdr_len - ETH_HLEN);
	used[nbuf++] = (uint32_t)(hdr_len + ETH_HLEN + n);
	left -= n;
	while (left) {
		n = MIN(left, (size_t)port_vhost_rx_chain(rq, nbuf)->in_len);
		used[nbuf++] = (uint32_t)n;
		left -= n;
	}

	hdr.flags = port_vhost_rx_flags(pv, hdr.flags);
	hdr.num_buffers = (uint16_t)nbuf;
	iov_from_buf(e->iov, e->in_num, 0, &hdr, hdr_len);
	iov_from_buf(e->iov, e->in_num, hdr_len, &pkt->eth, ETH_HLEN);
	for (i = 0; i < nbuf; i++)
		port_vhost_rx_push(pv, rq, &q->vq, used[i]);
	l->sent++;
	l->bytes += pkt->len;
	return 0;
}

/**
 * direct_log_held() - mark every held chain of an RX queue in the dirty log
 * @rq:		the queue's reserve
 * @vq:		its ring, locked, logging
 */
static void direct_log_held(struct port_vhost_rxq *rq, struct virtq *vq)
{
	unsigned int i;

	for (i = 0; i < rq->held; i++) {
		const struct virtq_elem *e = port_vhost_rx_chain(rq, i);

		virtq_log_elem(vq, e, e->in_len);
	}
}

/**
 * port_vhost_lend_end() - publish, unlock, interrupt, count (port_ops)
 * @p:		the guest, lend begun
 * @l:		the lend
 *
 * One used-index publish and at most one interrupt for every frame
 * committed since port_vhost_lend_begin().
 */
void port_vhost_lend_end(struct port *p, struct port_lend *l)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q = l->cookie;
	struct port_vhost_rxq *rq = &pv->rxq[l->pair];
	int call = -1;

	/* Migrating: reads that were not committed (refused, runts, too
	 * big) still wrote into held chains.  Their bytes mean nothing to
	 * the guest, which never got the chains back, but they are writes
	 * into its memory all the same: marked, whole, like every write.
	 */
	if (unlikely(q->vq.log))
		direct_log_held(rq, &q->vq);
	if (l->sent || l->bad)
		call = port_vhost_publish(q);
	if (l->sent)
		port_vhost_q_count(&rq->packets, &rq->bytes, l->sent,
				   l->bytes);
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);

	if (l->sent) {
		stats_add(&port_ctr(p)->tx_packets, l->sent);
		stats_add(&port_ctr(p)->tx_bytes, l->bytes);
		stats_add(&port_ctr(p)->direct_packets, l->sent);
	}
	if (l->bad)
		stats_add(&port_ctr(p)->drops[STATS_DROP_BAD_DESC], l->bad);
}
