// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv.c - a virtio-net device driven over vhost-user: open, TX, RX, close
 *
 * Opening follows the message order QEMU 7.2 uses for a vhost-user-net
 * device (see /work/shared/QEMU-NOTES.md): GET_FEATURES,
 * GET/SET_PROTOCOL_FEATURES, GET_QUEUE_NUM, SET_OWNER, GET_FEATURES, per ring
 * SET_VRING_CALL/ERR and SET_VRING_ENABLE, then at "DRIVER_OK"
 * SET_FEATURES, SET_MEM_TABLE and per ring NUM/BASE/ADDR/KICK/CALL, and a
 * final SET_VRING_ENABLE.  Closing sends GET_VRING_BASE per ring.
 *
 * Several queue pairs (opts.pairs): QEMU keeps a vhost device per pair and
 * repeats SET_FEATURES and SET_MEM_TABLE for each; we send them once, with
 * every pair's regions in the table, and otherwise do per ring of every
 * pair what is done for one.  Each pair beyond the first is a struct
 * vdrv_dev of its own (d->pairs[p]) with its own memory, rings and buffers
 * and a copy of the socket number, so the data path (vdrv_txrx.c,
 * vdrv_inplace.c) is the same code, validation included, for every pair.
 *
 * Buffers are fixed: every TX head owns a slot (header + frame) and every
 * RX head a buffer, allocated once in guest memory and alternating between
 * the two regions so each burst exercises the back end's translation of
 * both.  Nothing is allocated after vdrv_open().  The data path is in
 * vdrv_txrx.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/vhost_types.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>

#include "vdrv_priv.h"

#define VDRV_BUF_ALIGN	64

/* Guest-physical distance between the memory of consecutive queue pairs:
 * pair 3's first region still ends below the 4 GiB base of region 1.
 */
#define VDRV_PAIR_GPA_STRIDE	0x30000000ULL

/**
 * vdrv_opts_init() - defaults: QEMU-like features, 256-entry rings
 * @o:		options to fill
 * @path:	vhost-user socket path
 */
void vdrv_opts_init(struct vdrv_opts *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->features = VDRV_DEFAULT_FEATURES;
	o->protocol_features = (1ULL << VDRV_PF_MQ) |
			       (1ULL << VDRV_PF_REPLY_ACK);
	o->queue_size = 256;
	o->rx_buf_len = 2048;
	o->rx_segs = 1;
	o->tx_buf_len = 2048;
	o->tx_layout = VDRV_TX_FLAT;
	o->timeout_ms = 5000;
	o->early_enable = true;
	o->pairs = 1;
}

/**
 * vdrv_check_opts() - reject option combinations we cannot honour
 * @o:	options
 * Return: 0 or -EINVAL
 */
static int vdrv_check_opts(const struct vdrv_opts *o)
{
	unsigned int q = o->queue_size;

	if (!o->path || q < 2 || q > 32768 || ((q & (q - 1)) && !o->packed))
		return -EINVAL;
	if (!o->rx_segs || o->rx_segs > q || o->rx_buf_len < o->rx_segs ||
	    o->rx_buf_len < 12 || o->rx_bufs * o->rx_segs > q)
		return -EINVAL;
	if (o->tx_buf_len < 12 + 14 || o->tx_layout > VDRV_TX_INDIRECT)
		return -EINVAL;
	if (o->pairs > VDRV_PAIRS_MAX)
		return -EINVAL;
	return 0;
}

/**
 * vdrv_negotiate() - features, protocol features, queue count, owner
 * @d:	device with a connected socket
 * Return: 0, -ENOTSUP if a required feature is missing, or -errno
 */
static int vdrv_negotiate(struct vdrv_dev *d)
{
	struct vdrv_conn *c = &d->conn;
	uint64_t pf = 0, again, want, need;
	int ret;

	ret = vdrv_proto_get_u64(c, VDRV_REQ_GET_FEATURES, &d->dev_features);
	if (ret)
		return ret;
	want = d->opts.features;
	need = d->opts.required;
	if (d->opts.packed) {
		want |= 1ULL << VIRTIO_F_RING_PACKED;
		need |= 1ULL << VIRTIO_F_RING_PACKED;
	} else {
		/* Only asked for: a layout callers did not choose. */
		want &= ~(1ULL << VIRTIO_F_RING_PACKED);
	}
	if (d->opts.in_order)
		want |= 1ULL << VIRTIO_F_IN_ORDER;
	if (d->npairs > 1) {
		want |= 1ULL << VIRTIO_NET_F_MQ;
		need |= 1ULL << VIRTIO_NET_F_MQ;
	} else {
		/* One pair: no MQ, as QEMU without mq=on. */
		want &= ~(1ULL << VIRTIO_NET_F_MQ);
	}
	d->features = want & d->dev_features &
		      ~(1ULL << VDRV_F_PROTOCOL_FEATURES);
	if (need & ~d->features)
		return -ENOTSUP;

	if (d->dev_features & (1ULL << VDRV_F_PROTOCOL_FEATURES)) {
		ret = vdrv_proto_get_u64(c, VDRV_REQ_GET_PROTOCOL_FEATURES,
					 &pf);
		if (ret)
			return ret;
		d->proto_features = pf & d->opts.protocol_features;
		if (d->npairs > 1)
			d->proto_features |= pf & (1ULL << VDRV_PF_MQ);
		if (d->opts.mtu)
			d->proto_features |= pf & (1ULL << VDRV_PF_NET_MTU);
		/* Not acked: REPLY_ACK takes effect with this very message. */
		ret = vdrv_proto_send(c, VDRV_REQ_SET_PROTOCOL_FEATURES, 0,
				      &d->proto_features,
				      sizeof(d->proto_features), NULL, 0);
		if (ret)
			return ret;
		c->reply_ack = d->proto_features & (1ULL << VDRV_PF_REPLY_ACK);
	}

	d->queue_num = 1;
	if (d->proto_features & (1ULL << VDRV_PF_MQ)) {
		uint64_t qn;

		ret = vdrv_proto_get_u64(c, VDRV_REQ_GET_QUEUE_NUM, &qn);
		if (ret)
			return ret;
		/* A device with no queue pair is broken. */
		if (!qn || qn > 0xffff)
			return -EPROTO;
		d->queue_num = (unsigned int)qn;
	} else if (d->npairs > 1) {
		return -ENOTSUP;
	}
	if (d->queue_num < d->npairs)
		return -ENOTSUP;

	ret = vdrv_proto_set(c, VDRV_REQ_SET_OWNER, NULL, 0, NULL, 0);
	if (ret)
		return ret;
	/* QEMU asks again after SET_OWNER; the answer must not change. */
	ret = vdrv_proto_get_u64(c, VDRV_REQ_GET_FEATURES, &again);
	if (ret)
		return ret;
	if (again != d->dev_features)
		return -EPROTO;

	d->hdr_len = (vdrv_has(d, VIRTIO_F_VERSION_1) ||
		      vdrv_has(d, VIRTIO_NET_F_MRG_RXBUF)) ?
		     sizeof(struct virtio_net_hdr_v1) :
		     sizeof(struct virtio_net_hdr);
	return 0;
}

/**
 * vdrv_setup_mem() - size and map guest memory, lay out rings and buffers
 * @d:	device or pair, features negotiated, @d->pair_idx set
 * Return: 0 or -errno
 */
static int vdrv_setup_mem(struct vdrv_dev *d)
{
	const struct vdrv_opts *o = &d->opts;
	uint16_t q = (uint16_t)o->queue_size;
	uint16_t tx_stride = o->tx_layout == VDRV_TX_SPLIT ? 2 : 1;
	uint64_t rxl = VDRV_ALIGN(o->rx_buf_len, VDRV_BUF_ALIGN);
	uint64_t txl = VDRV_ALIGN(o->tx_buf_len, VDRV_BUF_ALIGN);
	uint64_t ring, ind, sizes[VDRV_MEM_REGIONS];
	unsigned int rf = (vdrv_has(d, VIRTIO_RING_F_EVENT_IDX) ?
			   VDRV_RING_EVENT_IDX : 0) |
			  (vdrv_has(d, VIRTIO_F_RING_PACKED) ?
			   VDRV_RING_PACKED : 0) |
			  (vdrv_has(d, VIRTIO_F_IN_ORDER) ?
			   VDRV_RING_IN_ORDER : 0);
	struct vdrv_ring *rx = &d->rings[VDRV_RX_RING];
	struct vdrv_ring *tx = &d->rings[VDRV_TX_RING];
	unsigned int i, s;
	int ret;

	if (o->tx_layout == VDRV_TX_INDIRECT &&
	    !vdrv_has(d, VIRTIO_RING_F_INDIRECT_DESC))
		return -ENOTSUP;
	d->rx_nbufs = o->rx_bufs ? o->rx_bufs : q / o->rx_segs;
	d->tx_slots = q / tx_stride;

	ring = 2 * (VDRV_ALIGN(16ULL * q, 4096) + VDRV_ALIGN(6 + 2ULL * q, 4096) +
		    VDRV_ALIGN(6 + 8ULL * q, 4096));
	ind = VDRV_ALIGN(32ULL * q, 4096);
	sizes[0] = ring + ind + (d->rx_nbufs + 1) / 2 * rxl +
		   (d->tx_slots + 1) / 2 * txl + 4096;
	/* Spare room at the end of region 1 for evil descriptors, and for
	 * vdrv_evil_chain()'s largest indirect table (sparse until used).
	 */
	sizes[1] = (d->rx_nbufs + 1) / 2 * rxl + (d->tx_slots + 1) / 2 * txl +
		   65536 + VDRV_EVIL_IND_MAX * 16ULL;
	/* Each pair's memory must fit its slot of guest-physical space. */
	if (o->pairs > 1 && (sizes[0] > VDRV_PAIR_GPA_STRIDE - (1ULL << 20) ||
			     sizes[1] > VDRV_PAIR_GPA_STRIDE))
		return -EINVAL;
	ret = vdrv_mem_init_at(&d->mem, sizes,
			       d->pair_idx * VDRV_PAIR_GPA_STRIDE);
	if (ret)
		return ret;

	ret = vdrv_ring_init(rx, 2 * d->pair_idx + VDRV_RX_RING, q,
			     (uint16_t)o->rx_segs, rf, &d->mem, &d->stats);
	if (!ret)
		ret = vdrv_ring_init(tx, 2 * d->pair_idx + VDRV_TX_RING, q,
				     tx_stride, rf, &d->mem, &d->stats);
	if (ret)
		return ret;

	d->rx_len = calloc(q, sizeof(*d->rx_len));
	d->rx_hva = calloc(q, sizeof(*d->rx_hva));
	d->rx_done = calloc(q, sizeof(*d->rx_done));
	d->tx_hva = calloc(q, sizeof(*d->tx_hva));
	d->tx_free = calloc(q, sizeof(*d->tx_free));
	d->tx_ind = calloc(q, sizeof(*d->tx_ind));
	d->tx_gpa = calloc(q, sizeof(*d->tx_gpa));
	d->tx_ind_gpa = calloc(q, sizeof(*d->tx_ind_gpa));
	if (!d->rx_len || !d->rx_hva || !d->rx_done || !d->tx_hva ||
	    !d->tx_free || !d->tx_ind || !d->tx_gpa || !d->tx_ind_gpa)
		return -ENOMEM;

	/* RX: each buffer one contiguous block, described by rx_segs
	 * chained device-writable descriptors.
	 */
	for (i = 0; i < d->rx_nbufs; i++) {
		uint16_t head = (uint16_t)(i * o->rx_segs);
		uint32_t seg = o->rx_buf_len / o->rx_segs, off = 0;
		uint64_t gpa;
		uint8_t *p = vdrv_mem_alloc(&d->mem, i & 1, rxl, VDRV_BUF_ALIGN,
					    &gpa);

		if (!p)
			return -ENOMEM;
		for (s = 0; s < o->rx_segs; s++) {
			struct vring_desc *dd = &rx->desc[head + s];
			bool last = s == o->rx_segs - 1;

			dd->addr = gpa + off;
			dd->len = last ? o->rx_buf_len - off : seg;
			dd->flags = VRING_DESC_F_WRITE |
				    (last ? 0 : VRING_DESC_F_NEXT);
			dd->next = last ? 0 : (uint16_t)(head + s + 1);
			off += seg;
		}
		d->rx_hva[head] = p;
		d->rx_len[head] = o->rx_buf_len;
		rx->cap[head] = o->rx_buf_len;
	}

	/* TX: a slot per head; descriptors are completed per frame. */
	for (i = 0; i < d->tx_slots; i++) {
		uint16_t head = (uint16_t)(i * tx_stride);
		uint8_t *p = vdrv_mem_alloc(&d->mem, i & 1, txl, VDRV_BUF_ALIGN,
					    &d->tx_gpa[head]);

		if (!p)
			return -ENOMEM;
		d->tx_hva[head] = p;
		/* The device writes nothing into TX buffers; any used length
		 * is accepted here and counted as a quirk when non-zero.
		 */
		tx->cap[head] = UINT32_MAX;
		if (o->tx_layout == VDRV_TX_INDIRECT) {
			d->tx_ind[head] = vdrv_mem_alloc(&d->mem, 0,
					2 * sizeof(struct vring_desc), 16,
					&d->tx_ind_gpa[head]);
			if (!d->tx_ind[head])
				return -ENOMEM;
		}
		d->tx_free[d->ntx_free++] = head;
	}
	return 0;
}

/**
 * vdrv_send_mem_table() - SET_MEM_TABLE with one fd per region
 * @d:	device
 * Return: 0 or -errno
 */
static int vdrv_send_mem_table(struct vdrv_dev *d)
{
	int fds[VDRV_MEM_REGIONS * VDRV_PAIRS_MAX];
	struct vdrv_msg_mem mt;
	unsigned int i, p, n = 0;

	_Static_assert(VDRV_MEM_REGIONS * VDRV_PAIRS_MAX <=
		       VDRV_ARRAY_SIZE(mt.regions), "regions of every pair");
	memset(&mt, 0, sizeof(mt));
	for (p = 0; p < d->npairs; p++) {
		const struct vdrv_mem *m = &d->pairs[p]->mem;

		for (i = 0; i < m->nregions; i++, n++) {
			mt.regions[n].guest_phys_addr = m->r[i].gpa;
			mt.regions[n].memory_size = m->r[i].size;
			mt.regions[n].userspace_addr = (uintptr_t)m->r[i].hva;
			mt.regions[n].mmap_offset = 0;
			fds[n] = m->r[i].fd;
		}
	}
	mt.nregions = n;
	/* The payload is sized by the region count, as QEMU sends it. */
	return vdrv_proto_set(&d->conn, VDRV_REQ_SET_MEM_TABLE, &mt,
			      8 + n * sizeof(mt.regions[0]), fds, n);
}

/**
 * vdrv_start_ring() - SET_VRING_NUM/BASE/ADDR/KICK/CALL for one ring
 * @d:	device
 * @r:	ring
 * Return: 0 or -errno
 */
static int vdrv_start_ring(struct vdrv_dev *d, struct vdrv_ring *r)
{
	struct vhost_vring_addr a = {
		.index = r->index,
		/* Ring addresses are user (our) addresses, not guest ones;
		 * packed: the ring, the driver and the device event areas.
		 */
		.desc_user_addr = (uintptr_t)r->area[0],
		.avail_user_addr = (uintptr_t)r->area[1],
		.used_user_addr = (uintptr_t)r->area[2],
	};
	/* Packed: positions 0 with both wrap counters at 1. */
	uint32_t base = r->packed ? 1u << 15 | 1u << 31 : 0;
	struct vdrv_conn *c = &d->conn;
	int ret;

	ret = vdrv_proto_set_state(c, VDRV_REQ_SET_VRING_NUM, r->index, r->num);
	if (!ret)
		ret = vdrv_proto_set_state(c, VDRV_REQ_SET_VRING_BASE, r->index,
					   base);
	if (!ret)
		ret = vdrv_proto_set(c, VDRV_REQ_SET_VRING_ADDR, &a, sizeof(a),
				     NULL, 0);
	if (!ret)
		ret = vdrv_proto_set_fd(c, VDRV_REQ_SET_VRING_KICK, r->index,
					r->kick_fd);
	if (!ret)
		ret = vdrv_proto_set_fd(c, VDRV_REQ_SET_VRING_CALL, r->index,
					r->call_fd);
	return ret;
}

/**
 * vdrv_enable_rings() - SET_VRING_ENABLE 1 on every ring of every pair
 * @d:	device
 * Return: 0 or -errno; nothing sent without protocol features
 */
static int vdrv_enable_rings(struct vdrv_dev *d)
{
	unsigned int i;
	int ret;

	if (!(d->dev_features & (1ULL << VDRV_F_PROTOCOL_FEATURES)))
		return 0;
	for (i = 0; i < VDRV_NRINGS * d->npairs; i++) {
		ret = vdrv_proto_set_state(&d->conn, VDRV_REQ_SET_VRING_ENABLE,
					   i, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdrv_start() - the DRIVER_OK part: features, memory, rings, enable
 * @d:	device, negotiated, memory laid out
 * Return: 0 or -errno
 */
static int vdrv_start(struct vdrv_dev *d)
{
	uint64_t f = d->features;
	unsigned int i, p;
	int ret;

	if (d->opts.early_enable) {
		for (i = 0; i < VDRV_NRINGS * d->npairs; i++) {
			struct vdrv_ring *r = &d->pairs[i / 2]->rings[i % 2];

			ret = vdrv_proto_set_fd(&d->conn,
						VDRV_REQ_SET_VRING_CALL, i,
						r->call_fd);
			if (!ret)
				ret = vdrv_proto_set_fd(&d->conn,
							VDRV_REQ_SET_VRING_ERR,
							i, r->err_fd);
			if (ret)
				return ret;
		}
		ret = vdrv_enable_rings(d);
		if (ret)
			return ret;
	}

	if (d->dev_features & (1ULL << VDRV_F_PROTOCOL_FEATURES))
		f |= 1ULL << VDRV_F_PROTOCOL_FEATURES;
	ret = vdrv_proto_set_u64(&d->conn, VDRV_REQ_SET_FEATURES, f);
	if (!ret && d->opts.mtu) {
		if (!(d->proto_features & (1ULL << VDRV_PF_NET_MTU)))
			return -ENOTSUP;
		ret = vdrv_proto_set_u64(&d->conn, VDRV_REQ_NET_SET_MTU,
					 d->opts.mtu);
	}
	if (!ret)
		ret = vdrv_send_mem_table(d);
	if (ret)
		return ret;

	/* RX buffers are there before the ring starts, as a guest that
	 * filled its RX queue at probe time has them.
	 */
	for (p = 0; p < d->npairs; p++) {
		struct vdrv_dev *q = d->pairs[p];

		for (i = 0; i < q->rx_nbufs; i++)
			vdrv_ring_add(&q->rings[VDRV_RX_RING],
				      (uint16_t)(i * d->opts.rx_segs));
		vdrv_ring_publish(&q->rings[VDRV_RX_RING]);
	}

	for (i = 0; i < VDRV_NRINGS * d->npairs; i++) {
		ret = vdrv_start_ring(d, &d->pairs[i / 2]->rings[i % 2]);
		if (ret)
			return ret;
	}
	ret = vdrv_enable_rings(d);
	if (ret)
		return ret;

	for (p = 0; p < d->npairs; p++) {
		struct vdrv_ring *rx = &d->pairs[p]->rings[VDRV_RX_RING];
		struct vdrv_ring *tx = &d->pairs[p]->rings[VDRV_TX_RING];

		/* Polling until somebody sleeps: TX is reclaimed lazily and
		 * RX calls are asked for by vdrv_rx_wait() only, so a
		 * busy-polling benchmark costs the device no eventfd writes.
		 */
		vdrv_ring_disable_cb(tx);
		vdrv_ring_disable_cb(rx);
		/* Both rings: the spec starts a ring on a kick. */
		vdrv_ring_kick(rx);
		vdrv_ring_kick(tx);
	}
	return 0;
}

/**
 * vdrv_set_vring_enable() - SET_VRING_ENABLE on one ring of an open device
 * @d:		device
 * @ring:	vring index: 2 * pair + VDRV_RX_RING or VDRV_TX_RING
 * @enable:	true to enable, false to disable
 *
 * The vhost-user spec ("Ring states"): a started but disabled ring is
 * processed without side effects -- for a network device, no new RX
 * frames are supplied into it -- until SET_VRING_ENABLE 1.  The ring's
 * state (buffers, indexes) is untouched here, and nothing is kicked: as
 * QEMU, we leave it to the back end to resume where it stopped.  With
 * REPLY_ACK the back end has acted on the request when this returns.
 *
 * Return: 0, -EINVAL for a bad ring, -ENOTSUP when protocol features
 * were not negotiated (the request exists only with them), -EREMOTEIO
 * if the back end nacked, or -errno
 */
int vdrv_set_vring_enable(struct vdrv_dev *d, unsigned int ring, bool enable)
{
	if (d->parent || ring >= VDRV_NRINGS * d->npairs)
		return -EINVAL;
	if (!(d->dev_features & (1ULL << VDRV_F_PROTOCOL_FEATURES)))
		return -ENOTSUP;
	return vdrv_proto_set_state(&d->conn, VDRV_REQ_SET_VRING_ENABLE, ring,
				    enable ? 1 : 0);
}

/* dev_errors of every device freed so far (closed or aborted), so that a
 * program can fail at exit on a device it never looked at itself.
 */
static uint64_t vdrv_freed_dev_errors;

/**
 * vdrv_dev_errors_freed() - device errors seen by every freed device
 *
 * Return: the sum of stats.dev_errors over every device this process has
 * closed or aborted.  Programs check it before they exit: a test whose
 * device broke a virtio rule fails even where no code read the counter.
 * Context: any thread
 */
uint64_t vdrv_dev_errors_freed(void)
{
	return __atomic_load_n(&vdrv_freed_dev_errors, __ATOMIC_RELAXED);
}

/**
 * vdrv_free() - release everything, no messages
 * @d:	device (may be half set up)
 */
static void vdrv_free(struct vdrv_dev *d)
{
	unsigned int i;

	for (i = 1; i < d->npairs; i++) {
		if (!d->pairs[i])
			continue;
		/* The socket is ours (d's), not the pair's. */
		d->pairs[i]->conn.sock = -1;
		vdrv_free(d->pairs[i]);
	}
	__atomic_fetch_add(&vdrv_freed_dev_errors, d->stats.dev_errors,
			   __ATOMIC_RELAXED);
	vdrv_log_free(d);
	vdrv_proto_close(&d->conn);
	for (i = 0; i < VDRV_NRINGS; i++)
		vdrv_ring_fini(&d->rings[i]);
	vdrv_mem_fini(&d->mem);
	free(d->rx_len);
	free(d->rx_hva);
	free(d->rx_done);
	free(d->tx_hva);
	free(d->tx_free);
	free(d->tx_ind);
	free(d->tx_gpa);
	free(d->tx_ind_gpa);
	free(d);
}

/**
 * vdrv_pair_new() - the struct driving one more queue pair of @d
 * @d:		device, negotiated
 * @p:		pair index, >= 1
 *
 * Return: the pair (its memory not yet set up), or NULL
 */
static struct vdrv_dev *vdrv_pair_new(struct vdrv_dev *d, unsigned int p)
{
	struct vdrv_dev *q = calloc(1, sizeof(*q));
	unsigned int i;

	if (!q)
		return NULL;
	q->opts = d->opts;
	q->conn = d->conn;
	q->dev_features = d->dev_features;
	q->features = d->features;
	q->proto_features = d->proto_features;
	q->queue_num = d->queue_num;
	q->hdr_len = d->hdr_len;
	q->pair_idx = p;
	q->parent = d;
	q->npairs = 1;
	q->pairs[0] = q;
	for (i = 0; i < VDRV_NRINGS; i++)
		q->rings[i].kick_fd = q->rings[i].call_fd =
			q->rings[i].err_fd = -1;
	for (i = 0; i < VDRV_MEM_REGIONS; i++)
		q->mem.r[i].fd = -1;
	return q;
}

/**
 * vdrv_setup_pairs() - lay out memory, rings and buffers of every pair
 * @d:		device, negotiated
 * Return: 0 or -errno
 */
static int vdrv_setup_pairs(struct vdrv_dev *d)
{
	unsigned int p;
	int ret;

	for (p = 1; p < d->npairs; p++) {
		d->pairs[p] = vdrv_pair_new(d, p);
		if (!d->pairs[p])
			return -ENOMEM;
	}
	for (p = 0; p < d->npairs; p++) {
		ret = vdrv_setup_mem(d->pairs[p]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vdrv_open() - connect, negotiate, share memory, start every ring
 * @o:		options (vdrv_opts_init() then adjusted)
 * @devp:	out: the device
 *
 * Return: 0, -EINVAL for bad options, -ENOTSUP for missing required
 * features, -EREMOTEIO if the back end nacked a request, -EPROTO for a
 * malformed reply, -ETIMEDOUT, or another -errno
 */
int vdrv_open(const struct vdrv_opts *o, struct vdrv_dev **devp)
{
	struct vdrv_dev *d;
	unsigned int i;
	int ret;

	ret = vdrv_check_opts(o);
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->opts = *o;
	d->npairs = o->pairs ? o->pairs : 1;
	d->opts.pairs = d->npairs;
	d->pairs[0] = d;
	for (i = 0; i < VDRV_NRINGS; i++)
		d->rings[i].kick_fd = d->rings[i].call_fd =
			d->rings[i].err_fd = -1;
	for (i = 0; i < VDRV_MEM_REGIONS; i++)
		d->mem.r[i].fd = -1;

	ret = vdrv_proto_connect(&d->conn, o->path, o->listen, o->timeout_ms);
	if (!ret)
		ret = vdrv_negotiate(d);
	if (!ret)
		ret = vdrv_setup_pairs(d);
	if (!ret)
		ret = vdrv_start(d);
	if (ret) {
		vdrv_free(d);
		return ret;
	}
	*devp = d;
	return 0;
}

/**
 * vdrv_close_used() - stop every ring (GET_VRING_BASE) and disconnect
 * @d:		device (not a pair handle: -EINVAL); freed
 * @bases:	out, may be NULL: the device's avail index per ring
 * @used:	out, may be NULL: the ring's used index once the device
 *		answered, i.e. the last it published.  A device that gives
 *		back every chain it popped but did not use reports
 *		@bases equal to it.
 *
 * Return: 0, or the first error of the GET_VRING_BASE exchange (the
 * device is freed anyway)
 */
int vdrv_close_used(struct vdrv_dev *d, uint16_t bases[VDRV_NRINGS],
		    uint16_t used[VDRV_NRINGS])
{
	unsigned int i;
	int ret = 0;

	if (d->parent)
		return -EINVAL;
	if (bases)
		memset(bases, 0, sizeof(bases[0]) * VDRV_NRINGS);
	if (used)
		memset(used, 0, sizeof(used[0]) * VDRV_NRINGS);
	for (i = 0; i < VDRV_NRINGS && !ret; i++) {
		uint32_t b = 0;

		ret = d->conn.hung_up ? -ECONNRESET :
		      vdrv_proto_get_vring_base(&d->conn, i,
						d->rings[i].packed, &b);
		/* Packed: the avail half, position and wrap counter. */
		if (bases)
			bases[i] = (uint16_t)b;
		if (used && !ret)
			used[i] = (uint16_t)vdrv_ring_used_end(&d->rings[i]);
	}
	/* The other pairs' rings, their bases not reported. */
	for (i = VDRV_NRINGS; i < VDRV_NRINGS * d->npairs && !ret; i++) {
		uint32_t b;

		ret = d->conn.hung_up ? -ECONNRESET :
		      vdrv_proto_get_vring_base(&d->conn, i,
						d->rings[0].packed, &b);
	}
	vdrv_free(d);
	return ret;
}

/**
 * vdrv_close() - stop both rings (GET_VRING_BASE) and disconnect
 * @d:		device; freed
 * @bases:	out, may be NULL: the device's avail index per ring
 *
 * Return: as vdrv_close_used()
 */
int vdrv_close(struct vdrv_dev *d, uint16_t bases[VDRV_NRINGS])
{
	return vdrv_close_used(d, bases, NULL);
}

/**
 * vdrv_abort() - drop the connection without stopping the rings, as a
 *		  crashing guest or QEMU would
 * @d:	device (not a pair handle: ignored); freed
 */
void vdrv_abort(struct vdrv_dev *d)
{
	if (d->parent)
		return;
	vdrv_free(d);
}

/* Introspection: trivial getters, documented in vdrv.h's field docs. */

/**
 * vdrv_pair() - the handle of one queue pair
 * @d:		device (or a pair handle: @pair counts from the device)
 * @pair:	pair index, < opts.pairs
 *
 * Return: the handle for the data-path calls of vdrv.h (pair 0: @d's
 *	   device itself), or NULL for a pair the device does not drive
 */
struct vdrv_dev *vdrv_pair(struct vdrv_dev *d, unsigned int pair)
{
	if (d->parent)
		d = d->parent;
	return pair < d->npairs ? d->pairs[pair] : NULL;
}

/**
 * vdrv_npairs() - queue pairs the device drives
 * @d:		device or pair handle
 * Return: opts.pairs, at least 1
 */
unsigned int vdrv_npairs(const struct vdrv_dev *d)
{
	return d->parent ? d->parent->npairs : d->npairs;
}

/**
 * vdrv_features() - negotiated virtio features
 * @d: device
 * Return: feature bits (bit 30 excluded)
 */
uint64_t vdrv_features(const struct vdrv_dev *d)
{
	return d->features;
}

/**
 * vdrv_device_features() - what the device offered
 * @d: device
 * Return: GET_FEATURES answer
 */
uint64_t vdrv_device_features(const struct vdrv_dev *d)
{
	return d->dev_features;
}

/**
 * vdrv_protocol_features() - negotiated protocol features
 * @d: device
 * Return: bits
 */
uint64_t vdrv_protocol_features(const struct vdrv_dev *d)
{
	return d->proto_features;
}

/**
 * vdrv_queue_num() - GET_QUEUE_NUM answer
 * @d: device
 * Return: queue pairs the device supports (1 without MQ)
 */
unsigned int vdrv_queue_num(const struct vdrv_dev *d)
{
	return d->queue_num;
}

/**
 * vdrv_hdr_len() - virtio-net header length in use
 * @d: device
 * Return: 12 with VERSION_1 or MRG_RXBUF, else 10
 */
size_t vdrv_hdr_len(const struct vdrv_dev *d)
{
	return d->hdr_len;
}

/**
 * vdrv_stats() - the driver's counters
 * @d: device
 * Return: counters, live
 */
const struct vdrv_stats *vdrv_stats(const struct vdrv_dev *d)
{
	return &d->stats;
}

/**
 * vdrv_avail_base() - what GET_VRING_BASE reports for a ring once the
 *		       device took everything we made available
 * @d:		device
 * @ring:	VDRV_RX_RING or VDRV_TX_RING
 *
 * Return: split: our avail index; packed: our next avail position with
 *	   the driver wrap counter in bit 15 (the base's avail half)
 */
uint16_t vdrv_avail_base(const struct vdrv_dev *d, unsigned int ring)
{
	const struct vdrv_ring *r = &d->rings[ring % VDRV_NRINGS];

	if (r->packed)
		return (uint16_t)(r->p_next | (r->p_wrap ? 1u << 15 : 0));
	return r->avail_idx;
}

/**
 * vdrv_packed() - whether the device's rings are packed
 * @d:		device
 *
 * Return: true if VIRTIO_F_RING_PACKED was negotiated
 */
bool vdrv_packed(const struct vdrv_dev *d)
{
	return d->rings[VDRV_TX_RING].packed;
}

/**
 * vdrv_sock_fd() - the vhost-user socket, for callers' own polling
 * @d: device
 * Return: fd
 */
int vdrv_sock_fd(const struct vdrv_dev *d)
{
	return d->conn.sock;
}

/**
 * vdrv_call_fd() - a ring's call eventfd, for callers' own polling
 * @d:		device
 * @ring:	VDRV_RX_RING or VDRV_TX_RING
 * Return: fd, or -1 for a bad ring
 */
int vdrv_call_fd(const struct vdrv_dev *d, unsigned int ring)
{
	return ring < VDRV_NRINGS ? d->rings[ring].call_fd : -1;
}
