/* SPDX-License-Identifier: GPL-2.0-or-later */
/* port_vhost.h - state shared by the vhost-user port's two halves
 *
 * port_vhost.c is the control side (sockets, the protocol's queue
 * start/stop callbacks, port_ops); port_vhost_dp.c is the datapath from
 * the guest (turns at its TX queues), port_vhost_deliver.c the datapath
 * to it (delivery into its RX queues, with offloads), port_vhost_show.c
 * what ctl "show" prints of it.  Nothing outside
 * src/port/ includes this.
 */
#ifndef VHOSTD_PORT_VHOST_H
#define VHOSTD_PORT_VHOST_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "port.h"
#include "../net/gso.h"
#include "../vhost/vu_dev.h"

#define PORT_VHOST_RX_BUFS	64	/* RX buffers one frame may span */
#define PORT_VHOST_RX_STAGE	2	/* RX chains held ready while idle */
#define PORT_VHOST_TX_TOUCH	256	/* bytes of a TX frame asked for early */
#define PORT_VHOST_RX_TOUCH	512	/* bytes of an RX buffer asked for early */
/* Work per chain of a TX poll's budget (port_vhost_poll()).  Drivers use
 * 1-3 descriptors per frame (Linux: header and frame in one, or an
 * INDIRECT and two entries), so 4 leaves an ordinary flood its whole
 * frame budget while a guest of 64-descriptor chains gets 4 per turn.
 * 4 KiB a frame: 256 KiB per turn of the default 64 (vhost-net weighs
 * 512 KiB), four 64 KiB TSO frames.
 */
#define PORT_VHOST_POLL_DESCS	4
#define PORT_VHOST_POLL_BYTES	4096

/* tx-irq-us=: the default and the most (us).  300: a TCG guest's UDP
 * flood went 1.3-1.6x as fast as with 0 (doc/performance.md); 1000 did
 * a little more, but a fast guest's socket would wait longer.
 */
#define PORT_VHOST_TX_IRQ_DEF	300
/* ... and what comes back meanwhile that sends it at once: 32 frames (a
 * TCG guest sends 20-25 in 300 us; a UDP socket's default send buffer
 * holds 90-280 frames), 64 KiB (one TSO frame: TCP's small queues let a
 * flow keep about a ms of its rate in the device, which interrupts then
 * free).
 */
#define PORT_VHOST_TX_IRQ_FRAMES 32
#define PORT_VHOST_TX_IRQ_BYTES	65536
#define PORT_VHOST_TX_IRQ_MAX	10000

#define PV_FEAT(bit)		(1ULL << (bit))

/* Offloads a guest may use when sending: what struct pkt's src_feat
 * carries for gso_plan() at the destination.
 */
#define PORT_VHOST_HOST_OFFLOADS				\
	(PV_FEAT(VIRTIO_NET_F_CSUM) |				\
	 PV_FEAT(VIRTIO_NET_F_HOST_TSO4) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_TSO6) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_ECN) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_USO))

/* Offloads we can hand a guest when receiving. */
#define PORT_VHOST_GUEST_OFFLOADS				\
	(PV_FEAT(VIRTIO_NET_F_GUEST_CSUM) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_TSO4) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_TSO6) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_ECN) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_USO4) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_USO6))

#define PORT_VHOST_FEATURES					\
	(PV_FEAT(VIRTIO_F_VERSION_1) |				\
	 PV_FEAT(VIRTIO_NET_F_MRG_RXBUF) |			\
	 PV_FEAT(VIRTIO_NET_F_MTU) |				\
	 PV_FEAT(VIRTIO_RING_F_EVENT_IDX) |			\
	 PV_FEAT(VIRTIO_RING_F_INDIRECT_DESC) |			\
	 PV_FEAT(VIRTIO_F_RING_PACKED) |			\
	 PV_FEAT(VIRTIO_F_IN_ORDER) |				\
	 PV_FEAT(VIRTIO_NET_F_GUEST_ANNOUNCE) |			\
	 PORT_VHOST_HOST_OFFLOADS | PORT_VHOST_GUEST_OFFLOADS)

/**
 * struct port_vhost_work - what a turn at a TX queue may still spend
 * @descs:	descriptors to read (virtq_elem.ndesc of each pop)
 * @bytes:	frame bytes to forward
 *
 * A chain is charged after its pop, so a turn overshoots by at most one
 * chain (VIRTQ_CHAIN_MAX + 1 descriptors, one frame's bytes).
 */
struct port_vhost_work {
	int64_t descs;
	int64_t bytes;
};

/**
 * struct port_vhost_txq - a TX queue's turn scratch (the owning worker,
 *			   under the queue's lock)
 * @elems:	chains of the current burst
 * @pkts:	frames built from @elems
 * @heads:	heads to return to the used ring after forwarding
 * @npush:	chains of the last burst, in @heads
 * @total:	chains the turn returned so far
 * @work:	what the turn may still spend
 * @packets:	frames taken from this queue (ctl reads them, relaxed)
 * @bytes:	their bytes
 * @irq_at:	when the last interrupt of this queue went (tx-irq-us=)
 * @irq_owed:	the guest wanted one since, held back until @irq_at plus
 *		the port's @tx_irq_ns
 * @irq_chains:	chains returned since (a fill level ends the wait)
 * @irq_bytes:	@bytes then (the same in bytes)
 */
struct port_vhost_txq {
	struct virtq_elem elems[PORT_BURST];
	struct pkt pkts[PORT_BURST];
	uint16_t heads[PORT_BURST];
	unsigned int npush;
	unsigned int total;
	struct port_vhost_work work;
	uint64_t packets;
	uint64_t bytes;
	uint64_t irq_at;
	bool irq_owed;
	unsigned int irq_chains;
	uint64_t irq_bytes;
};

/**
 * struct port_vhost_rxq - an RX queue's reserve (under the queue's lock)
 * @elems:	RX chains popped and not yet pushed: a FIFO ring, oldest
 *		at @first
 * @first:	slot in @elems of the oldest held chain
 * @held:	chains held.  Every writer to the RX ring takes them from
 *		the front before popping more at the back, so they are
 *		always the last @held chains popped and virtq_unpop()
 *		gives them back when the ring stops (queue_release)
 * @packets:	frames delivered into this queue (ctl reads them, relaxed)
 * @bytes:	their bytes
 */
struct port_vhost_rxq {
	struct virtq_elem elems[PORT_VHOST_RX_BUFS];
	unsigned int first;
	unsigned int held;
	uint64_t packets;
	uint64_t bytes;
};

/**
 * port_vhost_q_count() - add to a queue's counters
 * @packets:	counter, written only under the queue's lock
 * @bytes:	its bytes counter
 * @n:		frames
 * @len:	bytes
 *
 * One writer at a time (the lock), readers anywhere: relaxed stores.
 */
static inline void port_vhost_q_count(uint64_t *packets, uint64_t *bytes,
				      uint64_t n, uint64_t len)
{
	__atomic_store_n(packets, *packets + n, __ATOMIC_RELAXED);
	__atomic_store_n(bytes, *bytes + len, __ATOMIC_RELAXED);
}

/**
 * struct port_vhost - private state of a vhost-user port
 * @dev:	the vhost-user device
 * @port:	back pointer to the switch port
 * @path:	socket path
 * @client:	we connect to @path instead of listening on it
 * @listen_fd:	listening socket (server mode), -1 otherwise
 * @sock:	server mode: the socket's mode, owner, group and the peer
 *		allow-list checked at accept (port spec key mode=, allow-uid=, ...)
 * @pairs:	queue pairs offered (queues=), 1..VU_MAX_QUEUE_PAIRS
 * @txq:	@pairs TX turn scratches, one per TX queue (queue 2i+1)
 * @rxq:	@pairs RX reserves, one per RX queue (queue 2i)
 * @rx_on:	bit i: RX queue 2i is started (control writes, any
 *		worker reads): where xmit may deliver
 * @tx_irq_ns:	tx-irq-us=, in ns: least time between two interrupts of
 *		a TX queue (port_vhost_dp.c), 0: each at once
 * @flow_pair:	1 + the pair whose TX queue last sent a flow, by flow
 *		hash (net/flow.h), 0 = none; written by the TX turns, read
 *		by xmit (relaxed: a stale entry only picks another queue)
 */
struct port_vhost {
	struct vu_dev dev;
	struct port *port;
	char path[PORT_PATH_MAX];
	bool client;
	int listen_fd;
	struct usock_acl sock;
	unsigned int pairs;
	struct port_vhost_txq *txq;
	struct port_vhost_rxq *rxq;
	uint32_t rx_on;
	uint64_t tx_irq_ns;
	uint8_t flow_pair[PORT_FLOWS];
};

/* A turn holds the TX queue's lock from rx_begin (when it returns true)
 * to rx_end: across functions, out of the attributes' reach (lock.h).
 */
bool port_vhost_rx_begin(struct port *p, uint32_t qi, struct port_turn *turn)
	NO_TSA;
unsigned int port_vhost_rx_burst(struct port *p, uint32_t qi,
				 struct pkt **pkts, unsigned int max,
				 struct port_turn *turn);
void port_vhost_rx_done(struct port *p, uint32_t qi, struct port_turn *turn);
void port_vhost_rx_end(struct port *p, uint32_t qi, struct port_turn *turn)
	NO_TSA;
bool port_vhost_arm(struct port *p, uint32_t cookie);
uint64_t port_vhost_tick(struct port *p, uint32_t qi, uint64_t now);
void port_vhost_tx_irq_flush(struct port_vhost *pv, unsigned int qi);
void port_vhost_stage(struct port *p, uint32_t cookie);
int port_vhost_publish(struct vu_queue *q) REQUIRES(q->lock);
void port_vhost_call(struct port *p, struct vu_queue *q, int fd)
	EXCLUDES(q->lock);
unsigned int port_vhost_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n);
unsigned int port_vhost_pick(const struct port_vhost *pv, uint32_t on,
			     uint32_t h);

/**
 * port_vhost_over_mtu() - whether a frame exceeds the guest's MTU
 * @pv:		destination guest
 * @pkt:	the frame
 *
 * With an MTU set (NET_SET_MTU: QEMU's host_mtu=), the guest may rely on
 * never receiving more than MTU-sized frames (virtio 1.1 5.1.6.3.2); a
 * GSO frame is the exception, it is one by design.  The MTU counts from
 * the end of the Ethernet header: 14 bytes, 18 with one 802.1Q tag (only
 * a tagged frame gets the 4 bytes more).
 *
 * Return: true if @pkt must not be delivered to @pv whole
 * Context: RX queue lock held (the MTU changes under it)
 */
static inline bool port_vhost_over_mtu(const struct port_vhost *pv,
				       const struct pkt *pkt)
{
	uint32_t hlen = ETH_HLEN;

	if (pkt->eth.h_proto == htons(ETH_P_8021Q))
		hlen += ETH_VLAN_HLEN;
	return pv->dev.mtu && pkt->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE &&
	       pkt->len > (uint32_t)pv->dev.mtu + hlen;
}

/**
 * port_vhost_rx_flags() - header flags of a frame delivered whole
 * @pv:		destination guest
 * @flags:	the frame's virtio-net header flags
 *
 * A guest without GUEST_CSUM gets none; one with it gets NEEDS_CSUM and
 * DATA_VALID only.
 *
 * Return: the flags to write into the guest's header
 */
static inline uint8_t port_vhost_rx_flags(const struct port_vhost *pv,
					  uint8_t flags)
{
	if (!(pv->dev.features & PV_FEAT(VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	return flags & (VIRTIO_NET_HDR_F_NEEDS_CSUM |
			VIRTIO_NET_HDR_F_DATA_VALID);
}

/**
 * port_vhost_rx_chain() - the @i-th held RX chain, oldest first
 * @rq:		RX queue's reserve
 * @i:		index, < PORT_VHOST_RX_BUFS
 *
 * Return: the chain's slot
 * Context: RX queue lock held
 */
static inline struct virtq_elem *port_vhost_rx_chain(struct port_vhost_rxq *rq,
						     unsigned int i)
{
	return &rq->elems[(rq->first + i) % PORT_VHOST_RX_BUFS];
}

/* RX chain reserve (port_vhost_deliver.c), under the RX queue lock. */
int port_vhost_rx_fill(struct port_vhost *pv, struct port_vhost_rxq *rq,
		       struct virtq *vq,
		       unsigned int n);
void port_vhost_rx_push(struct port_vhost *pv, struct port_vhost_rxq *rq,
			struct virtq *vq,
			uint32_t len);
void port_vhost_rx_release(struct port_vhost *pv, struct port_vhost_rxq *rq,
			   struct virtq *vq);

/* ctl "show" (port_vhost_show.c), control thread. */
void port_vhost_show(const struct port *p, struct port_out *o);

/* RX buffers lent to a reader of another port (port_vhost_direct.c). */
bool port_vhost_lend_ok(struct port *p, uint64_t src_feat);
unsigned int port_vhost_lend_flows(struct port *p, uint8_t *table,
				   uint32_t *on);
/* A lend holds the RX queue's lock from lend_begin (when it returns 0)
 * to lend_end: across functions, out of the attributes' reach (lock.h).
 */
int port_vhost_lend_begin(struct port *p, struct port_lend *l) NO_TSA;
int port_vhost_lend_reserve(struct port *p, struct port_lend *l, size_t cap);
int port_vhost_lend_commit(struct port *p, struct port_lend *l,
			   const struct pkt *pkt);
void port_vhost_lend_end(struct port *p, struct port_lend *l) NO_TSA;

#endif /* VHOSTD_PORT_VHOST_H */
