// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost_dp.c - the vhost-user port's datapath, guest TX -> switch
 *
 * A turn at a guest's TX queue (port.h: port_vhost_rx_begin, _burst,
 * _done and _end, then port_vhost_arm), run by the worker that owns the
 * queue, and the used-ring publish and interrupt both directions share.
 * The other direction, switch -> guest RX (port_vhost_xmit, run by
 * whichever worker forwards to this guest), is port_vhost_deliver.c.
 * Every ring access happens under the queue's lock while the vhost layer
 * says the queue is started; see port_vhost.c for the theory of
 * operation, doc/offloads.md for the offload decisions.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "port_vhost.h"
#include "../log.h"
#include "../net/flow.h"
#include "../net/iov.h"
#include "../util.h"

/**
 * port_vhost_publish() - publish the used entries pushed; take the call fd
 * @q:		queue, locked and started
 *
 * One used-index store and one look at the driver's wishes (a full
 * barrier, in virtq_should_notify()) for everything pushed since the
 * last.  The interrupt itself is port_vhost_call()'s, after unlocking.
 *
 * Return: the call fd to hand to port_vhost_call(), or -1
 */
int port_vhost_publish(struct vu_queue *q)
{
	virtq_flush(&q->vq);
	return vu_queue_call_take(q);
}

/**
 * port_vhost_call() - interrupt the guest, queue lock released
 * @p:		port
 * @q:		queue
 * @fd:		from port_vhost_publish(); nothing done if -1
 *
 * A front end that made its call fd block loses its connection, counted
 * as a violation (efd.c); the worker went on after EFD_WATCH_MS or two,
 * and the port's later interrupts take the slow lane.
 */
void port_vhost_call(struct port *p, struct vu_queue *q, int fd)
{
	struct port_vhost *pv = p->priv;
	int rc;

	if (fd < 0)
		return;
	rc = vu_queue_call_give(&pv->dev, q, fd);
	if (!rc) {
		stats_add(&port_ctr(p)->irqs, 1);
	} else if (rc == -ETIMEDOUT) {
		stats_add(&port_ctr(p)->violations, 1);
		src_err(&p->log, "%s: call eventfd of queue %u blocked: front "
			"end dropped, later interrupts on the slow lane",
			p->name, (unsigned int)(q - pv->dev.q));
	} else {
		src_debug(&p->log, "%s: interrupt on queue %u not sent: %s",
			  p->name, (unsigned int)(q - pv->dev.q),
			  strerror(-rc));
	}
}

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
	struct port_stats *st = port_ctr(pv->port);
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
	pkt->src_feat = feat & PORT_VHOST_HOST_OFFLOADS;
	/* Without an offload negotiated the header can ask for nothing
	 * (the driver MUST send flags and gso_type 0) and is not read at
	 * all: DPDK's virtio PMD lays it on a line of its own (the mbuf
	 * headroom), which then costs us no miss, and a driver that lies
	 * in it only sends frames the receivers find unchecksummed.
	 * DPDK's vhost reads it only with offloads on too.
	 */
	/* Header and Ethernet header lie in the first buffer (Linux,
	 * DPDK, vdrv all lay TX out so): plain copies.
	 */
	if (pkt->src_feat)
		iov_peek(e->iov, e->out_num, 0, vnet, hdr_len);
	iov_peek(e->iov, e->out_num, hdr_len, &pkt->eth, ETH_HLEN);
	pkt->vnet.num_buffers = 0;
	/* NEEDS_CSUM is the only flag a driver may send.  Whether this
	 * guest may send it (or a gso_type) at all is checked against
	 * @src_feat where the frame is delivered (gso_plan()).
	 */
	pkt->vnet.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;

	if (likely(e->out_num == 1)) {
		/* One segment, longer than the header (checked above) */
		pkt->iov[0].iov_base = (uint8_t *)e->iov[0].iov_base + hdr_len;
		pkt->iov[0].iov_len = e->out_len - hdr_len;
		pkt->iovcnt = 1;
	} else {
		pkt->iovcnt = iov_tail(e->iov, e->out_num, hdr_len, pkt->iov,
				       PKT_IOV_MAX);
	}
	pkt->len = e->out_len - hdr_len;
	return true;
}

/**
 * port_vhost_tx_touch() - ask for the first lines of a TX chain's frame
 * @e:		popped chain, with a readable segment
 * @skip:	bytes at the start not to ask for (a header left unread)
 *
 * Header and frame share the first segment with every driver we know; a
 * small frame is a line or two past the virtio-net header, and the copy
 * would otherwise find the second one missing only when it gets there:
 * one more wait, in line, on a request/response frame's path.  Up to
 * PORT_VHOST_TX_TOUCH bytes are asked for together; the hardware
 * prefetcher follows a longer frame.
 */
static void port_vhost_tx_touch(const struct virtq_elem *e, size_t skip)
{
	uintptr_t a = (uintptr_t)e->iov[0].iov_base;
	uintptr_t end = a + MIN(e->iov[0].iov_len, PORT_VHOST_TX_TOUCH);

	a += MIN(skip, e->iov[0].iov_len);

	for (a &= ~(uintptr_t)63; a < end; a += 64)
		__builtin_prefetch((const void *)a);
}

/**
 * port_vhost_rx_begin() - worker: a turn at a TX queue begins
 * @p:		port
 * @qi:		queue index (odd: a TX queue)
 * @turn:	the turn; its budget also sets the work allowed:
 *		PORT_VHOST_POLL_DESCS descriptors and PORT_VHOST_POLL_BYTES
 *		bytes per frame of it, whichever runs out first
 *
 * Takes the queue's lock for the whole turn and turns kicks off: they
 * stay off after the turn, and the worker keeps giving this queue turns
 * until port_vhost_arm().  A guest whose chains are long or whose frames
 * are big thus gets fewer of them per turn, and a turn costs the worker
 * about the same whatever the guest put in its ring.
 *
 * Return: true with the lock held, false if the queue is not running
 */
bool port_vhost_rx_begin(struct port *p, uint32_t qi, struct port_turn *turn)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_txq *tq;
	struct vu_queue *q;

	if (!(qi & 1) || qi / 2 >= pv->pairs)
		return false;
	q = &pv->dev.q[qi];
	tq = &pv->txq[qi / 2];

	vlock_lock(&q->lock);
	if (!q->started || __atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		vlock_unlock(&q->lock);
		return false;
	}
	/* Coming from the armed state, a kick woke us.  The kick fd itself
	 * is never read: the worker watches it edge-triggered (efd.c).
	 */
	if (!q->vq.notify_disabled) {
		stats_add(&port_ctr(p)->kicks, 1);
		virtq_disable_notify(&q->vq);
	}
	tq->work.descs = (int64_t)turn->budget * PORT_VHOST_POLL_DESCS;
	tq->work.bytes = (int64_t)turn->budget * PORT_VHOST_POLL_BYTES;
	/* The rx= rate limit's room: the last chain may overshoot it. */
	if (turn->bytes && (uint64_t)tq->work.bytes > turn->bytes)
		tq->work.bytes = (int64_t)turn->bytes;
	tq->npush = 0;
	tq->total = 0;
	return true;
}

/**
 * port_vhost_rx_burst() - worker: describe one burst of the TX queue
 * @p:		port
 * @qi:		queue index, begun
 * @pkts:	the frames, pointing into the guest's memory
 * @max:	most chains to pop (<= PORT_BURST)
 * @turn:	chains taken are added to @turn->done; the turn ends (done
 *		set to the budget) once its descriptors or bytes are spent
 *
 * Return: frames in @pkts
 */
unsigned int port_vhost_rx_burst(struct port *p, uint32_t qi,
				 struct pkt **pkts, unsigned int max,
				 struct port_turn *turn)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_txq *tq = &pv->txq[qi / 2];
	struct virtq *vq = &pv->dev.q[qi].vq;
	struct port_vhost_work *work = &tq->work;
	unsigned int hdr_len = vu_dev_hdr_len(&pv->dev);
	unsigned int i, take, npush = 0, npkt = 0;
	/* Without offloads the header is not read (port_vhost_tx_parse()) */
	size_t skip = pv->dev.features & PORT_VHOST_HOST_OFFLOADS ? 0 : hdr_len;
	struct virtq_elem *ep[PORT_BURST];
	enum virtq_pop_result last;
	bool drop[PORT_BURST];
	uint64_t bytes = 0;

	/* Two passes: pop the whole burst first, asking for each chain's
	 * frame header ahead of use, then parse.  The cache misses on
	 * lines the guest just wrote overlap instead of queuing one
	 * behind the other (see virtq_pop_burst()).  No chain is started
	 * past the turn's descriptors; those past its bytes go back.
	 */
	take = MIN(max, (unsigned int)PORT_BURST);
	if (work->descs <= 0 || work->bytes <= 0)
		take = 0;
	for (i = 0; i < take; i++)
		ep[i] = &tq->elems[i];
	npush = virtq_pop_burst(vq, ep, take,
				(unsigned int)MIN(work->descs, (int64_t)UINT_MAX),
				&last);
	if (last == VIRTQ_POP_BROKEN)
		goto broken;
	for (i = 0; i < npush; i++) {
		struct virtq_elem *e = &tq->elems[i];

		/* Long chains and big frames cost more than a turn's
		 * share of frames: the guest gets fewer of them, as if
		 * taken one by one until the turn's work was spent.
		 */
		work->descs -= e->ndesc;
		work->bytes -= e->out_len;
		drop[i] = i + 1 == npush && last == VIRTQ_POP_DROP;
		if (!drop[i] && e->out_num)
			port_vhost_tx_touch(e, skip);
		tq->heads[i] = e->head;
		if (work->descs <= 0 || work->bytes <= 0) {
			i++;
			break;
		}
	}
	if (i < npush) {
		virtq_unpop(vq, npush - i);	/* past the turn's work */
		npush = i;
	}
	virtq_prefetch_used(vq, npush);
	for (i = 0; i < npush; i++) {
		if (drop[i]) {
			stats_add(&port_ctr(p)->drops[STATS_DROP_BAD_DESC], 1);
			continue;
		}
		if (port_vhost_tx_parse(pv, &tq->elems[i], hdr_len,
					&tq->pkts[npkt])) {
			bytes += tq->pkts[npkt].len;
			pkts[npkt] = &tq->pkts[npkt];
			npkt++;
		}
	}
	if (npkt) {
		stats_add(&port_ctr(p)->rx_packets, npkt);
		stats_add(&port_ctr(p)->rx_bytes, bytes);
		port_vhost_q_count(&tq->packets, &tq->bytes, npkt, bytes);
	}
	/* With several pairs, remember which one each flow left by: its
	 * replies go to that pair's RX queue (port_vhost_pick()).
	 */
	if (pv->pairs > 1) {
		for (i = 0; i < npkt; i++) {
			uint32_t h = pkt_flow_hash(pkts[i]);

			__atomic_store_n(&pv->flow_pair[h % PORT_FLOWS],
					 (uint8_t)(qi / 2 + 1),
					 __ATOMIC_RELAXED);
		}
	}
	tq->npush = npush;
	turn->done += npush;
	if (!npush)
		turn->dry = true;
	else if (work->descs <= 0 || work->bytes <= 0)
		turn->done = MAX(turn->done, turn->budget);
	return npkt;

broken:
	/* Nothing of this burst goes back: the device is done. */
	stats_add(&port_ctr(p)->violations, 1);
	vu_dev_mark_broken(&pv->dev);
	tq->npush = 0;
	turn->dry = true;
	return 0;
}

/**
 * port_vhost_rx_done() - worker: the burst is forwarded, chains go back
 * @p:		port
 * @qi:		queue index, begun
 * @turn:	the turn
 *
 * Every destination has copied: the chains return to the used ring,
 * published by port_vhost_rx_end() once for the whole turn.
 */
void port_vhost_rx_done(struct port *p, uint32_t qi, struct port_turn *turn)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_txq *tq = &pv->txq[qi / 2];
	struct virtq *vq = &pv->dev.q[qi].vq;

	(void)turn;
	virtq_push_burst(vq, tq->heads, NULL, tq->npush);
	tq->total += tq->npush;
	tq->npush = 0;
}

/**
 * port_vhost_tx_irq() - whether a TX queue's interrupt goes now (tx-irq-us=)
 * @pv:		port, with @tx_irq_ns set
 * @tq:		the queue's scratch
 * @q:		the queue, locked, used entries published if any
 * @pushed:	the turn returned chains (the guest's wish is to be read)
 * @now:	clock, ns, or 0 to read it if needed
 * @due:	out: when to look again, if the interrupt was held back
 *
 * The guest's TX-completion interrupt frees its sent buffers: late by
 * tens of microseconds it costs the guest nothing but a fuller ring,
 * while each one costs it an exit and a pass of its TX clean-up.  Under a
 * steady flood a fast back end empties the ring in small bites and would
 * interrupt after each (Linux asks again after every kick, event index
 * 3/4 ahead); here an interrupt the guest wants goes at once if the last
 * went @tx_irq_ns ago, or if it frees a single frame, or
 * PORT_VHOST_TX_IRQ_FRAMES frames or _BYTES bytes came back since; else
 * it is owed and goes at that time, covering everything returned
 * meanwhile (ethtool's tx-usecs and tx-frames for a NIC).  A lone frame
 * (a quiet spell's, a request's) is not delayed, and a guest fast enough
 * to fill its ring or socket within the time is not held.
 *
 * Return: the call fd to signal (port_vhost_call()), or -1
 */
static int port_vhost_tx_irq(struct port_vhost *pv,
			     struct port_vhost_txq *tq, struct vu_queue *q,
			     bool pushed, uint64_t now, uint64_t *due)
	REQUIRES(q->lock)
{
	bool owed = tq->irq_owed;

	/* Read whenever chains went back: the event index moves on */
	if (pushed && q->vq.call_fd >= 0 && virtq_should_notify(&q->vq))
		tq->irq_owed = true;
	if (!tq->irq_owed)
		return -1;
	if (!now)
		now = now_ns();
	/* Held only while the guest streams: one frame since the last
	 * is a request/response's, whose interrupt goes at once (held, it
	 * lands on the reply's path: 7 % fewer round trips under TCG).
	 * Enough back that the guest may be out of room goes at once too:
	 * its ring (half of it), its socket's send buffer (UDP: some
	 * hundred frames) or TCP's bytes in the device (TSQ: about a ms of
	 * the flow, 1 MiB at most).  A guest that fast waits for no timer.
	 */
	if (now - tq->irq_at < pv->tx_irq_ns && tq->irq_chains > 1 &&
	    tq->irq_chains < MIN(q->vq.num / 2U, PORT_VHOST_TX_IRQ_FRAMES) &&
	    tq->bytes - tq->irq_bytes < PORT_VHOST_TX_IRQ_BYTES) {
		if (!owed)
			stats_add(&port_ctr(pv->port)->irqs_held, 1);
		*due = tq->irq_at + pv->tx_irq_ns;
		return -1;
	}
	tq->irq_owed = false;
	tq->irq_at = now;
	tq->irq_chains = 0;
	tq->irq_bytes = tq->bytes;
	return vu_queue_call_owed(q);
}

/**
 * port_vhost_rx_end() - worker: the turn ends
 * @p:		port
 * @qi:		queue index, begun
 * @turn:	the turn; @turn->due set when an interrupt is held back
 *
 * One used-index store and one look at used_event for the whole turn:
 * the look needs a full barrier, which waits for the used entries (lines
 * the guest's CPU reads) to leave the store buffer.  Then the lock goes,
 * and only then the interrupt (efd.c).
 */
void port_vhost_rx_end(struct port *p, uint32_t qi, struct port_turn *turn)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_txq *tq = &pv->txq[qi / 2];
	struct vu_queue *q = &pv->dev.q[qi];
	int call = -1;

	if (!__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED)) {
		if (tq->total)
			virtq_flush(&q->vq);
		tq->irq_chains += tq->total;
		if (pv->tx_irq_ns)
			call = port_vhost_tx_irq(pv, tq, q, tq->total, 0,
						 &turn->due);
		else if (tq->total)
			call = vu_queue_call_take(q);
	}
	if (tq->total)
		stats_add(&port_ctr(p)->polls, 1);
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);
}

/**
 * port_vhost_tick() - worker: a TX queue's held-back interrupt is due
 * @p:		port
 * @qi:		queue index
 * @now:	clock, ns
 *
 * Return: 0, or when to look again (a turn sent one meanwhile)
 */
uint64_t port_vhost_tick(struct port *p, uint32_t qi, uint64_t now)
{
	struct port_vhost *pv = p->priv;
	struct port_vhost_txq *tq;
	struct vu_queue *q;
	uint64_t due = 0;
	int call = -1;

	if (!(qi & 1) || qi / 2 >= pv->pairs || !pv->tx_irq_ns)
		return 0;
	q = &pv->dev.q[qi];
	tq = &pv->txq[qi / 2];
	vlock_lock(&q->lock);
	if (q->started && !__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		call = port_vhost_tx_irq(pv, tq, q, false, now, &due);
	vlock_unlock(&q->lock);
	port_vhost_call(p, q, call);
	return call < 0 ? due : 0;
}

/**
 * port_vhost_tx_irq_flush() - control: a stopping TX queue's owed interrupt
 * @pv:		port
 * @qi:		TX queue index, stopped, its source removed
 *
 * Whatever was held back goes now, before GET_VRING_BASE is answered: a
 * guest whose ring was full waits for it, on this back end or the next
 * (a migration's destination, a restarted vhostd).
 */
void port_vhost_tx_irq_flush(struct port_vhost *pv, unsigned int qi)
{
	struct vu_queue *q = &pv->dev.q[qi];
	struct port_vhost_txq *tq = &pv->txq[qi / 2];
	int call = -1;

	vlock_lock(&q->lock);
	if (tq->irq_owed) {
		tq->irq_owed = false;
		call = vu_queue_call_owed(q);
	}
	vlock_unlock(&q->lock);
	port_vhost_call(pv->port, q, call);
}

/**
 * port_vhost_arm() - worker: ask for TX kicks again before sleeping
 * @p:		port
 * @cookie:	queue index
 *
 * Return: true if buffers arrived meanwhile (poll again, don't sleep)
 */
bool port_vhost_arm(struct port *p, uint32_t cookie)
{
	struct port_vhost *pv = p->priv;
	struct vu_queue *q;
	bool more = false;

	if (cookie >= VU_MAX_QUEUES || !(cookie & 1))
		return false;
	q = &pv->dev.q[cookie];

	vlock_lock(&q->lock);
	/* virtq_enable_notify() re-reads avail->idx after a full barrier,
	 * so a buffer queued while kicks were off is seen here or kicks.
	 */
	if (q->started && !__atomic_load_n(&pv->dev.broken, __ATOMIC_RELAXED))
		more = virtq_enable_notify(&q->vq);
	vlock_unlock(&q->lock);
	return more;
}

/* ---- datapath: switch -> guest RX -------------------------------------- */

/*
 * RX chains are popped into a small FIFO (rq->elems) and may stay there
 * across calls: a direct TAP read (port_vhost_direct.c) pops enough chains
 * for the largest frame the kernel may hand over and usually uses one.
 * Every writer takes chains from the front and pops at the back, so the
 * held ones are always the last popped and one virtq_unpop() returns them
 * when the ring stops or is remapped (port_vhost_rx_release(), called by
 * the vhost layer through vu_dev_ops.queue_release).
 */
