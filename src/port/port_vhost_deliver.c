// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost_deliver.c - the vhost-user port's datapath, switch -> guest RX
 *
 * port_vhost_xmit(), run by whichever worker forwards to this guest: the
 * RX queue pair each frame goes to (the flow's), the RX chains held ahead
 * of use (the reserve: staged in dry moments, warmed per burst, given
 * back with virtq_unpop() when the ring stops), and each frame's copy
 * into them with the offload decision of doc/offloads.md (pass whole,
 * complete the checksum, or segment).  Under the RX queue's lock, while
 * the vhost layer says the queue is started; see port_vhost.c.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "port_vhost.h"
#include "../net/flow.h"
#include "../net/iov.h"
#include "../util.h"

/**
 * port_vhost_rx_fill() - hold at least @n RX chains, popping what is missing
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @n:		chains wanted
 *
 * A chain the guest made unusable (readable segments, too many, ...)
 * goes back empty together with every chain held before it: they are the
 * last popped, so pushing them all keeps the reserve at the ring's tail.
 * A guest only hurts itself with such buffers.
 *
 * Return: 0; -ENOBUFS if the ring ran out first (what was popped stays
 *	   held); -EMSGSIZE if @n is more than we can hold; -EINVAL if the
 *	   guest posted an unusable chain (the reserve was returned empty);
 *	   -EIO if the ring is broken
 * Context: RX queue lock held
 */
int port_vhost_rx_fill(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
		       unsigned int n)
{
	struct virtq_elem *ep[PORT_VHOST_RX_BUFS];
	enum virtq_pop_result last;
	unsigned int i, want, got;

	if (n > PORT_VHOST_RX_BUFS)
		return -EMSGSIZE;
	if (rq->held >= n)
		return 0;
	want = n - rq->held;
	for (i = 0; i < want; i++)
		ep[i] = port_vhost_rx_chain(rq, rq->held + i);
	got = virtq_pop_burst(vq, ep, want, UINT_MAX, &last);
	/* RX buffers must be writable only. */
	for (i = 0; i < got; i++)
		if (ep[i]->out_num)
			break;
	if (i < got || last == VIRTQ_POP_DROP) {
		/* The first bad chain, and every one held before it, go
		 * back empty; those popped after it go back unread.
		 */
		if (i + 1 < got)
			virtq_unpop(vq, got - i - 1);
		rq->held += MIN(i + 1, got);
		for (i = 0; i < rq->held; i++)
			virtq_push(vq, port_vhost_rx_chain(rq, i)->head, 0);
		rq->held = 0;
		return -EINVAL;
	}
	rq->held += got;
	if (last == VIRTQ_POP_BROKEN)
		return -EIO;
	return got < want ? -ENOBUFS : 0;
}

/**
 * port_vhost_rx_take() - the oldest held chain is done with
 * @rq:		RX queue's reserve
 * @vq:		RX ring, locked and started
 * @len:	bytes written into it
 *
 * Every frame, copy, segment or direct read, leaves the reserve here:
 * the one place its bytes go in the dirty log.
 *
 * Return: the chain's head, for virtq_push() (in pop order)
 * Context: RX queue lock held, at least one chain held
 */
static inline uint16_t port_vhost_rx_take(struct port_vhost_rxq *rq,
					  struct virtq *vq, uint32_t len)
{
	const struct virtq_elem *e = port_vhost_rx_chain(rq, 0);

	/* Migrating: the bytes just written go in the dirty log. */
	virtq_log_elem(vq, e, len);
	rq->first = (rq->first + 1) % PORT_VHOST_RX_BUFS;
	rq->held--;
	return e->head;
}

/**
 * port_vhost_rx_push() - return the oldest held chain to the guest
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @len:	bytes written into it
 *
 * Context: RX queue lock held, at least one chain held
 */
void port_vhost_rx_push(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq, uint32_t len)
{
	(void)pv;
	virtq_push(vq, port_vhost_rx_take(rq, vq, len), len);
}

/**
 * port_vhost_rx_release() - give every held chain back to the avail ring
 * @pv:		port
 * @vq:		RX ring
 *
 * Context: RX queue lock held, the ring about to stop or be remapped
 */
void port_vhost_rx_release(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq)
{
	if (rq->held)
		virtq_unpop(vq, rq->held);
	rq->held = 0;
	rq->first = 0;
}

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
 * Uses held chains first (see above); chains it popped but could not use
 * stay held for the next frame.
 *
 * Return: 0 if delivered, -ENOBUFS if the ring has too few buffers,
 *	   -EMSGSIZE if the frame cannot fit, -EINVAL if the guest gave us
 *	   unusable buffers (they are returned empty), -EIO if broken
 */
static int port_vhost_rx_one(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
			     const struct virtio_net_hdr_v1 *vnet,
			     const struct iovec *iov, unsigned int iovcnt,
			     size_t len, unsigned int hdr_len, bool mrg)
{
	struct virtio_net_hdr_v1 hdr = *vnet;
	size_t need = hdr_len + len, cap = 0, left = len;
	struct virtq_elem *e0 = rq->held ? port_vhost_rx_chain(rq, 0) : NULL;
	struct iov_cursor cur;
	unsigned int nbuf = 0, i;
	int rc;

	if (likely(e0 && e0->in_num == 1 && e0->in_len >= need)) {
		nbuf = 1;	/* the common case: one held buffer takes it */
	} else {
		while (cap < need) {
			struct virtq_elem *e;

			if (nbuf && !mrg)
				return -EMSGSIZE;
			if (rq->held <= nbuf) {
				rc = port_vhost_rx_fill(pv, rq, vq, nbuf + 1);
				if (rc)
					return rc;
			}
			e = port_vhost_rx_chain(rq, nbuf++);
			/* The first buffer must hold the whole header; such
			 * a buffer goes back empty.
			 */
			if (nbuf == 1 && e->in_len < hdr_len) {
				port_vhost_rx_push(pv, rq, vq, 0);
				return -EINVAL;
			}
			cap += e->in_len;
		}
		e0 = port_vhost_rx_chain(rq, 0);
	}

	hdr.num_buffers = mrg ? (uint16_t)nbuf : 0;

	/* Small frames: one buffer segment, which holds all of it (@cap),
	 * from a few source segments (one; two for a frame whose header
	 * the switch made, a VLAN tag pushed or popped).
	 */
	if (nbuf == 1 && iovcnt <= 4 && e0->in_num == 1) {
		uint8_t *dst = e0->iov[e0->out_num].iov_base;

		memcpy(dst, &hdr, hdr_len);
		dst += hdr_len;
		if (likely(iovcnt == 1)) {
			left -= MIN(iov[0].iov_len, left);
			memcpy(dst, iov[0].iov_base, len - left);
		} else {
			for (i = 0; i < iovcnt && left; i++) {
				size_t n = MIN(iov[i].iov_len, left);

				memcpy(dst, iov[i].iov_base, n);
				dst += n;
				left -= n;
			}
		}
		port_vhost_rx_push(pv, rq, vq, (uint32_t)(need - left));
		return 0;
	}

	iov_cursor_init(&cur, iov, iovcnt);
	for (i = 0; i < nbuf; i++) {
		struct virtq_elem *e = port_vhost_rx_chain(rq, 0);
		const struct iovec *in = &e->iov[e->out_num];
		size_t off = 0, n;

		if (i == 0) {
			iov_from_buf(in, e->in_num, 0, &hdr, hdr_len);
			off = hdr_len;
		}
		n = iov_cursor_copy(&cur, in, e->in_num, off, left);
		left -= n;
		port_vhost_rx_push(pv, rq, vq, (uint32_t)(off + n));
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
static int port_vhost_rx_csum(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
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
	return port_vhost_rx_one(pv, rq, vq, &plain, iov, (unsigned int)(a + 1 + b),
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
static int port_vhost_rx_segment(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
				 const struct pkt *pkt, unsigned int hdr_len,
				 bool mrg)
{
	bool partial = pv->dev.features & PV_FEAT(VIRTIO_NET_F_GUEST_CSUM);
	uint8_t hdrbuf[GSO_HDR_MAX];
	struct iovec iov[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	int n, rc;

	if (gso_init(&it, pkt, partial))
		return -EPROTO;
	while ((n = gso_next(&it, hdrbuf, iov, ARRAY_SIZE(iov), &seg)) > 0) {
		rc = port_vhost_rx_one(pv, rq, vq, &seg.vnet, iov, (unsigned int)n,
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
static int port_vhost_rx_frame(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
			       const struct pkt *pkt, unsigned int hdr_len,
			       bool mrg)
{
	struct virtio_net_hdr_v1 hdr = pkt->vnet;
	int rc;

	if (port_vhost_over_mtu(pv, pkt))
		return -EMSGSIZE;

	/* The common case without offloads: nothing to decide. */
	if (!hdr.flags && hdr.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return port_vhost_rx_one(pv, rq, vq, &hdr, pkt->iov, pkt->iovcnt,
					 pkt->len, hdr_len, mrg);

	switch (gso_plan(pkt, pkt->src_feat, pv->dev.features)) {
	case GSO_ACT_PASS:
		/* A 64 KiB TSO frame travels whole: one copy. */
		hdr.flags = port_vhost_rx_flags(pv, hdr.flags);
		rc = port_vhost_rx_one(pv, rq, vq, &hdr, pkt->iov, pkt->iovcnt,
				       pkt->len, hdr_len, mrg);
		/* A guest posting buffers so small that a GSO frame would
		 * need more than PORT_VHOST_RX_BUFS of them still gets the
		 * data: as segments, which fit.
		 */
		if (rc == -EMSGSIZE && hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
			rc = port_vhost_rx_segment(pv, rq, vq, pkt, hdr_len, mrg);
		return rc;
	case GSO_ACT_CSUM:
		return port_vhost_rx_csum(pv, rq, vq, pkt, hdr_len, mrg);
	case GSO_ACT_SEGMENT:
		return port_vhost_rx_segment(pv, rq, vq, pkt, hdr_len, mrg);
	default:
		return -EPROTO;
	}
}

/**
 * port_vhost_rx_touch() - ask for the first lines of a chain's buffer
 * @e:		held RX chain
 */
static void port_vhost_rx_touch(const struct virtq_elem *e, size_t bytes)
{
	const struct iovec *in = &e->iov[e->out_num];
	uintptr_t a, end;

	if (!e->in_num)
		return;		/* no writable segment to ask for */
	a = (uintptr_t)in->iov_base;
	end = a + MIN(MIN(in->iov_len, bytes), (size_t)PORT_VHOST_RX_TOUCH);
	for (a &= ~(uintptr_t)63; a < end; a += 64)
		prefetch_w((const void *)a);
}

/**
 * port_vhost_rx_top_up() - hold @want RX chains, as many as the ring has
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @want:	chains wanted, <= PORT_VHOST_RX_BUFS
 *
 * Chains held already (staged, or left by a direct read) count; only the
 * missing ones are popped, their descriptors asked for first.  A bad
 * chain is counted here (the reserve went back empty, pushed but not
 * published).
 *
 * Return: as port_vhost_rx_fill(), 0 if the ring simply had fewer
 */
static int port_vhost_rx_top_up(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
				unsigned int want)
{
	int rc;

	if (rq->held >= want)
		return 0;
	rc = port_vhost_rx_fill(pv, rq, vq, want);
	if (rc == -EINVAL)
		stats_add(&port_ctr(pv->port)->drops[STATS_DROP_BAD_DESC], 1);
	return rc == -ENOBUFS ? 0 : rc;
}

/**
 * port_vhost_rx_warm() - pop a burst's RX chains and ask for their lines
 * @pv:		port
 * @vq:		RX ring, locked and started
 * @n:		frames about to be delivered (usually one chain each)
 *
 * The copies into the guest's buffers, and the used entries after them,
 * write lines the guest's CPU touched last.  Each such store waits in the
 * store buffer for its line; once the buffer is full every later store
 * waits too, so a burst's misses queue one behind the other.  Asked for
 * up front, for writing (prefetch_w()), they overlap instead.  The chains
 * stay held (see above) for port_vhost_rx_one(); a shortage or a bad
 * chain is left for it to meet and count.
 */
static void port_vhost_rx_warm(struct port_vhost *pv,
		struct port_vhost_rxq *rq, struct virtq *vq,
			       struct pkt *const *pkts, unsigned int n,
			       unsigned int hdr_len)
{
	unsigned int i;

	/* A shortage or a broken ring is left for port_vhost_rx_one() to
	 * meet and count; a bad chain was counted, and the frames go on to
	 * fresh chains.
	 */
	port_vhost_rx_top_up(pv, rq, vq, MIN(n, PORT_VHOST_RX_BUFS));
	for (i = 0; i < MIN(rq->held, n); i++)
		port_vhost_rx_touch(port_vhost_rx_chain(rq, i),
				    hdr_len + pkts[i]->len);
	virtq_prefetch_used(vq, MIN(rq->held, n));
}

/**
 * port_vhost_stage() - worker, in a dry moment: hold the next RX chain ready
 * @p:		port
 * @cookie:	the TX queue that ran dry: its pair's RX queue is staged
 *
 * A frame for this guest would otherwise start by reading the RX ring's
 * avail entry, then the descriptor it names, then write the buffer that
 * descriptor points to: three misses one after the other, on lines the
 * guest's CPU wrote last, before the copy can begin.  Done here while the
 * worker waits anyway, the delivery finds the chain held and its first
 * lines in our cache: a request/response round trip carries two such
 * deliveries.  The guest does not touch a buffer it posted until it
 * comes back used, so owning its lines early takes nothing from it.
 *
 * Skipped if another worker holds the queue: it is delivering.
 */
void port_vhost_stage(struct port *p, uint32_t cookie)
{
	struct port_vhost *pv = p->priv;
	unsigned int pair = cookie / 2;
	struct port_vhost_rxq *rq;
	struct vu_queue *q;
	struct virtq *vq;
	unsigned int held;
	int rc, call = -1;

	/* The RX queue of the pair whose TX queue ran dry: where replies
	 * to what it sent will come (port_vhost_pick()).
	 */
	if (pair >= pv->pairs)
		return;
	rq = &pv->rxq[pair];
	q = &pv->dev.q[2 * pair];
	vq = &q->vq;
	if (!vlock_trylock(&q->lock))
		return;
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		goto out;
	held = rq->held;
	rc = port_vhost_rx_top_up(pv, rq, vq, PORT_VHOST_RX_STAGE);
	if (rq->held > held)
		stats_add(&port_ctr(p)->rx_staged, rq->held - held);
	if (rc == -EIO) {
		stats_add(&port_ctr(p)->violations, 1);
		vu_dev_mark_broken(&pv->dev);
		goto out;
	}
	/* A reserve that went back empty is published now, as a delivery
	 * would, rather than left to the next one.
	 */
	if (rc == -EINVAL)
		call = port_vhost_publish(q);
	if (rq->held)
		port_vhost_rx_touch(port_vhost_rx_chain(rq, 0), 128);
out:
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);
}

/**
 * port_vhost_rx_fast() - copy a plain frame into the next held chain
 * @pv:		port
 * @rq:		RX queue's reserve
 * @vq:		RX ring, locked and started
 * @pkt:	frame
 * @hdr_len:	virtio-net header length
 * @mrg:	MRG_RXBUF negotiated
 * @id:		out: the chain's head, to push
 * @len:	out: bytes written into it
 *
 * What port_vhost_rx_frame() does for the common frame, inline and with
 * the used descriptor left to the caller, so that a burst's go back
 * together (virtq_push_burst()): a frame of one segment that asks for no
 * offload, within the MTU, into a held chain of one buffer that holds
 * header and frame.  Anything else is left for port_vhost_rx_frame().
 *
 * Return: true if delivered (the chain taken), false if not touched
 */
static inline bool port_vhost_rx_fast(struct port_vhost *pv,
				      struct port_vhost_rxq *rq,
				      struct virtq *vq, const struct pkt *pkt,
				      unsigned int hdr_len, bool mrg,
				      uint16_t *id, uint32_t *len)
{
	struct virtio_net_hdr_v1 hdr = pkt->vnet;
	size_t need = hdr_len + pkt->len;
	const struct virtq_elem *e;
	uint8_t *dst;

	if (unlikely(!rq->held || pkt->iovcnt != 1 ||
		     pkt->iov[0].iov_len < pkt->len || hdr.flags ||
		     hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE))
		return false;
	e = port_vhost_rx_chain(rq, 0);
	/* Held chains are writable only (port_vhost_rx_fill()). */
	if (unlikely(e->in_num != 1 || e->in_len < need ||
		     port_vhost_over_mtu(pv, pkt)))
		return false;
	hdr.num_buffers = mrg ? 1 : 0;
	dst = e->iov[0].iov_base;
	memcpy(dst, &hdr, hdr_len);
	memcpy(dst + hdr_len, pkt->iov[0].iov_base, pkt->len);
	*len = (uint32_t)need;
	*id = port_vhost_rx_take(rq, vq, (uint32_t)need);
	return true;
}

/**
 * port_vhost_xmit_q() - deliver frames to one RX queue
 * @p:		port
 * @pair:	queue pair, < pv->pairs
 * @pkts:	frames
 * @n:		number of frames
 *
 * Return: frames delivered
 * Context: any worker; serialised with other writers by the RX lock
 */
static unsigned int port_vhost_xmit_q(struct port *p, unsigned int pair,
				      struct pkt *const *pkts, unsigned int n)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_rxq *rq = &pv->rxq[pair];
	struct vu_queue *q = &pv->dev.q[2 * pair];
	struct port_stats *st = port_ctr(p);
	unsigned int i, sent = 0, hdr_len, nd = 0;
	uint32_t lens[PORT_BURST];
	uint16_t ids[PORT_BURST];
	uint64_t bytes = 0;
	bool mrg, pushed = false;
	int call = -1;

	vlock_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		vlock_unlock(&q->lock);
		stats_add(&st->drops[STATS_DROP_PORT_DOWN], n);
		return 0;
	}
	hdr_len = vu_dev_hdr_len(&pv->dev);
	mrg = pv->dev.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	port_vhost_rx_warm(pv, rq, &q->vq, pkts, n, hdr_len);

	for (i = 0; i < n; i++) {
		int rc;

		if (nd < PORT_BURST &&
		    port_vhost_rx_fast(pv, rq, &q->vq, pkts[i], hdr_len, mrg,
				       &ids[nd], &lens[nd])) {
			nd++;
			sent++;
			bytes += pkts[i]->len;
			continue;
		}
		/* Used descriptors go back in pop order: the fast ones
		 * first.
		 */
		if (nd) {
			virtq_push_burst(&q->vq, ids, lens, nd);
			pushed = true;
			nd = 0;
		}
		rc = port_vhost_rx_frame(pv, rq, &q->vq, pkts[i], hdr_len, mrg);
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
	if (nd) {
		virtq_push_burst(&q->vq, ids, lens, nd);
		pushed = true;
	}
	if (pushed && !__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		call = port_vhost_publish(q);
	if (sent)
		port_vhost_q_count(&rq->packets, &rq->bytes, sent, bytes);
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);

	stats_add(&st->tx_packets, sent);
	stats_add(&st->tx_bytes, bytes);
	return sent;
}

/**
 * port_vhost_pick() - the RX queue pair a flow goes to
 * @pv:		port
 * @on:		pairs whose RX queue runs (bit i: pair i), not 0
 * @h:		the frame's flow_hash()
 *
 * The pair whose TX queue last sent this flow (the guest chose it: its
 * replies stay on the CPU that sent), else one spread by the flow's hash.
 * tap_steer.c's program makes the same choice for the TAP's queues.
 *
 * Return: pair index
 */
unsigned int port_vhost_pick(const struct port_vhost *pv, uint32_t on,
			     uint32_t h)
{
	unsigned int e = __atomic_load_n(&pv->flow_pair[h % PORT_FLOWS],
					 __ATOMIC_RELAXED);
	unsigned int k;

	if (e && e <= VU_MAX_QUEUE_PAIRS && (on & 1u << (e - 1)))
		return e - 1;
	k = (h >> 8) % (unsigned int)__builtin_popcount(on);
	while (k--)
		on &= on - 1;	/* drop the lowest set bit */
	return (unsigned int)__builtin_ctz(on);
}

/**
 * port_vhost_xmit() - switch -> guest: deliver frames to the RX queues
 * @p:		port
 * @pkts:	frames
 * @n:		number of frames, <= PORT_BURST
 *
 * One queue pair running (the common case): the whole burst goes to it.
 * Several: each frame to its flow's pair (port_vhost_pick()), each
 * pair's share in one delivery, the frames of one flow in order.
 *
 * Return: frames delivered
 * Context: any worker
 */
unsigned int port_vhost_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n)
{
	struct port_vhost *pv = p->priv;
	uint32_t on = __atomic_load_n(&pv->rx_on, __ATOMIC_ACQUIRE);
	uint8_t pair[PORT_BURST];
	struct pkt *grp[PORT_BURST];
	unsigned int i, j, m, sent = 0;

	if (likely(on == 1))
		return port_vhost_xmit_q(p, 0, pkts, n);
	if (!on) {
		stats_add(&port_ctr(p)->drops[STATS_DROP_PORT_DOWN], n);
		return 0;
	}
	n = MIN(n, (unsigned int)PORT_BURST);
	if (!(on & (on - 1)))
		return port_vhost_xmit_q(p, (unsigned int)__builtin_ctz(on),
					 pkts, n);
	for (i = 0; i < n; i++)
		pair[i] = (uint8_t)port_vhost_pick(pv, on,
						   pkt_flow_hash(pkts[i]));
	for (i = 0; i < n; i++) {
		unsigned int qp = pair[i];

		if (qp == UINT8_MAX)
			continue;
		for (m = 0, j = i; j < n; j++) {
			if (pair[j] != qp)
				continue;
			grp[m++] = pkts[j];
			pair[j] = UINT8_MAX;
		}
		sent += port_vhost_xmit_q(p, qp, grp, m);
	}
	return sent;
}
