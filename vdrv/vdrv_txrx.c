// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_txrx.c - the data path: TX and RX bursts, waiting for the device
 *
 * A TX burst fills fixed slots, publishes once and kicks at most once; an
 * RX burst takes complete frames (one or num_buffers used entries), copies
 * them out if asked, and gives all consumed buffers back in one publish.
 * Every device-written value goes through vdrv_ring.c's checks first; a
 * fatal violation marks the device broken and the data path returns -EIO.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>

#include "vdrv_priv.h"

/**
 * vdrv_tx_reclaim() - take back the TX buffers the device is done with
 * @d:	device
 * Return: buffers reclaimed, or -EIO once the device broke the ring
 */
int vdrv_tx_reclaim(struct vdrv_dev *d)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];
	int n, k;

	if (d->broken)
		return -EIO;
	n = vdrv_ring_used_pending(r);
	for (k = 0; k < n; k++) {
		uint16_t head;
		uint32_t len;

		if (vdrv_ring_used_get(r, (unsigned int)k, &head, &len) ||
		    vdrv_ring_used_take(r, head)) {
			n = -1;
			break;
		}
		if (len)
			d->stats.quirks++;
		d->tx_free[d->ntx_free++] = head;
	}
	if (n < 0) {
		d->broken = true;
		return -EIO;
	}
	vdrv_ring_used_consume(r, (unsigned int)n);
	d->stats.tx_completed += (unsigned int)n;
	return n;
}

/**
 * vdrv_tx_free() - TX slots free right now (without reclaiming)
 * @d:	device
 * Return: count
 */
unsigned int vdrv_tx_free(const struct vdrv_dev *d)
{
	return d->ntx_free;
}

/**
 * vdrv_tx_describe() - point a head's descriptors at its slot
 * @d:		device
 * @head:	TX head taken from the free stack
 * @len:	frame length (header excluded)
 *
 * Shared by the copying and the in-place (vdrv_inplace.c) send paths.
 */
void vdrv_tx_describe(struct vdrv_dev *d, uint16_t head, uint32_t len)
{
	struct vring_desc *desc = d->rings[VDRV_TX_RING].desc;
	uint64_t gpa = d->tx_gpa[head];
	uint32_t hl = (uint32_t)d->hdr_len;

	switch (d->opts.tx_layout) {
	case VDRV_TX_FLAT:
		desc[head].addr = gpa;
		desc[head].len = hl + len;
		desc[head].flags = 0;
		desc[head].next = 0;
		break;
	case VDRV_TX_SPLIT:
		desc[head].addr = gpa;
		desc[head].len = hl;
		desc[head].flags = VRING_DESC_F_NEXT;
		desc[head].next = (uint16_t)(head + 1);
		desc[head + 1].addr = gpa + hl;
		desc[head + 1].len = len;
		desc[head + 1].flags = 0;
		desc[head + 1].next = 0;
		break;
	case VDRV_TX_INDIRECT: {
		struct vring_desc *t = d->tx_ind[head];

		t[0].addr = gpa;
		t[0].len = hl;
		t[0].flags = VRING_DESC_F_NEXT;
		t[0].next = 1;
		t[1].addr = gpa + hl;
		t[1].len = len;
		t[1].flags = 0;
		t[1].next = 0;
		if (d->rings[VDRV_TX_RING].packed)
			vdrv_ring_packed_table(t, 2);
		desc[head].addr = d->tx_ind_gpa[head];
		desc[head].len = 2 * sizeof(struct vring_desc);
		desc[head].flags = VRING_DESC_F_INDIRECT;
		desc[head].next = 0;
		break;
	}
	}
}

/**
 * vdrv_tx_fill() - write one frame into a free slot and its descriptors
 * @d:		device
 * @head:	free TX head
 * @p:		frame
 */
static void vdrv_tx_fill(struct vdrv_dev *d, uint16_t head,
			 const struct vdrv_tx_pkt *p)
{
	uint8_t *slot = d->tx_hva[head];
	uint32_t hl = (uint32_t)d->hdr_len;

	if (p->hdr)
		memcpy(slot, p->hdr, hl);
	else
		memset(slot, 0, hl);
	memcpy(slot + hl, p->data, p->len);
	vdrv_tx_describe(d, head, p->len);
}

/**
 * vdrv_tx_burst() - send up to @n frames with one publish and <= 1 kick
 * @d:		device
 * @pkts:	frames
 * @n:		how many
 *
 * Return: frames queued (fewer when TX slots ran out), -EMSGSIZE if the
 * first frame does not fit a slot, -EIO once the device broke the ring
 */
int vdrv_tx_burst(struct vdrv_dev *d, const struct vdrv_tx_pkt *pkts,
		  unsigned int n)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];
	uint32_t room = d->opts.tx_buf_len - (uint32_t)d->hdr_len;
	unsigned int i;
	int ret;

	if (d->ntx_free < n) {
		ret = vdrv_tx_reclaim(d);
		if (ret < 0)
			return ret;
	}
	if (d->broken)
		return -EIO;
	for (i = 0; i < n && d->ntx_free; i++) {
		uint16_t head;

		if (pkts[i].len > room) {
			if (!i)
				return -EMSGSIZE;
			break;
		}
		head = d->tx_free[--d->ntx_free];
		vdrv_tx_fill(d, head, &pkts[i]);
		vdrv_ring_add(r, head);
		d->stats.tx_bytes += pkts[i].len;
	}
	d->stats.tx_packets += i;
	d->stats.tx_full += n - i;
	vdrv_ring_flush(r);
	return (int)i;
}

/**
 * vdrv_wait_fd() - wait for an eventfd, watching the socket for hang-up
 * @d:		device
 * @fd:		eventfd
 * @timeout_ms:	limit
 * Return: 1 signalled, 0 timeout, -ECONNRESET on hang-up, -errno
 */
static int vdrv_wait_fd(struct vdrv_dev *d, int fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = d->conn.sock, .events = POLLRDHUP },
	};
	uint64_t v;
	int ret;

	ret = poll(pfd, 2, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[0].revents & POLLIN) {
		if (read(fd, &v, sizeof(v)) == sizeof(v))
			d->stats.calls++;
		return 1;
	}
	if (pfd[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
		d->conn.hung_up = true;
		return -ECONNRESET;
	}
	return 0;
}

/**
 * vdrv_tx_wait() - wait until a TX slot is free (or the timeout)
 * @d:		device
 * @timeout_ms:	limit
 * Return: free slots (> 0), 0 on timeout, or -errno
 */
int vdrv_tx_wait(struct vdrv_dev *d, int timeout_ms)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];
	int64_t deadline = vdrv_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = vdrv_tx_reclaim(d);
		if (ret < 0)
			return ret;
		if (d->ntx_free)
			break;
		if (vdrv_ring_enable_cb(r))
			continue;
		if (vdrv_ms() >= deadline)
			break;
		ret = vdrv_wait_fd(d, r->call_fd, (int)(deadline - vdrv_ms()));
		if (ret < 0)
			return ret;
	}
	vdrv_ring_disable_cb(r);
	return (int)d->ntx_free;
}

/**
 * vdrv_tx_calls() - reclaim, then ask for a call at the next TX used entry
 * @d:		device
 *
 * What a Linux guest with napi-tx does after each kick: it wants a
 * TX-completion interrupt as soon as the device returns anything, and
 * does not wait for it (the calls pile up in the eventfd, unread).  For
 * tests of a back end's interrupt rate.
 *
 * Return: 0 or -errno (device error)
 */
int vdrv_tx_calls(struct vdrv_dev *d)
{
	int ret = vdrv_tx_reclaim(d);

	if (ret < 0)
		return ret;
	vdrv_ring_enable_cb(&d->rings[VDRV_TX_RING]);
	return 0;
}

/**
 * vdrv_tx_wait_most() - wait until at most @most TX frames are in flight
 * @d:		device
 * @most:	frames made available and not yet used, at most
 * @timeout_ms:	limit
 *
 * A guest held back by something else than its ring (a socket's send
 * buffer) waits so for the device's TX-completion interrupt.
 *
 * Return: 0, -ETIMEDOUT when no interrupt came within @timeout_ms, or
 *	   -errno
 */
int vdrv_tx_wait_most(struct vdrv_dev *d, unsigned int most, int timeout_ms)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];
	int64_t deadline = vdrv_ms() + timeout_ms;
	int ret = 0;

	for (;;) {
		ret = vdrv_tx_reclaim(d);
		if (ret < 0)
			break;
		ret = 0;
		if (d->stats.tx_packets - d->stats.tx_completed <= most)
			break;
		if (vdrv_ring_enable_cb(r))
			continue;
		if (vdrv_ms() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		ret = vdrv_wait_fd(d, r->call_fd, (int)(deadline - vdrv_ms()));
		if (ret <= 0) {
			/* No call in time: what the device used meanwhile
			 * does not count, the guest would still be waiting.
			 */
			ret = ret ? ret : -ETIMEDOUT;
			break;
		}
	}
	vdrv_ring_disable_cb(r);
	return ret;
}

/**
 * vdrv_rx_copy() - copy one used buffer's bytes into the caller's frame
 * @p:		frame being assembled
 * @src:	bytes
 * @len:	how many
 */
static void vdrv_rx_copy(struct vdrv_rx_pkt *p, const uint8_t *src,
			 uint32_t len)
{
	if (p->buf && p->len < p->cap) {
		uint32_t k = p->cap - p->len < len ? p->cap - p->len : len;

		memcpy(p->buf + p->len, src, k);
	}
	p->len += len;
}

/**
 * vdrv_rx_gso_ok() - may the device deliver this gso_type to us
 * @d:		device
 * @gso_type:	gso_type of a received header
 *
 * Each type needs its feature: TCPV4 GUEST_TSO4, TCPV6 GUEST_TSO6, UDP
 * GUEST_UFO, UDP_L4 GUEST_USO4 or GUEST_USO6 (the header does not say
 * which IP version; the frame does); the ECN bit needs GUEST_ECN and a
 * TCP type.
 *
 * Return: true if allowed
 */
static bool vdrv_rx_gso_ok(const struct vdrv_dev *d, uint8_t gso_type)
{
	uint8_t base = gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool tcp = base == VIRTIO_NET_HDR_GSO_TCPV4 ||
		   base == VIRTIO_NET_HDR_GSO_TCPV6;

	if ((gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    (!tcp || !vdrv_has(d, VIRTIO_NET_F_GUEST_ECN)))
		return false;
	switch (base) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return vdrv_has(d, VIRTIO_NET_F_GUEST_TSO4);
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return vdrv_has(d, VIRTIO_NET_F_GUEST_TSO6);
	case VIRTIO_NET_HDR_GSO_UDP:
		return vdrv_has(d, VIRTIO_NET_F_GUEST_UFO);
	case VDRV_GSO_UDP_L4:
		return vdrv_has(d, VDRV_F_GUEST_USO4) ||
		       vdrv_has(d, VDRV_F_GUEST_USO6);
	default:
		return false;
	}
}

/**
 * vdrv_rx_one() - take one frame (1 or num_buffers used entries)
 * @d:		device
 * @p:		frame to fill
 * @pending:	used entries pending
 *
 * Return: used entries consumed, 0 if the frame is not complete yet,
 * -EAGAIN if the entry held no frame (recycled), or -EPROTO if the device
 * broke the protocol
 */
static int vdrv_rx_one(struct vdrv_dev *d, struct vdrv_rx_pkt *p, int pending)
{
	struct vdrv_ring *r = &d->rings[VDRV_RX_RING];
	bool mrg = vdrv_has(d, VIRTIO_NET_F_MRG_RXBUF);
	uint32_t hl = (uint32_t)d->hdr_len, len;
	uint16_t head, nb = 1;
	int k;

	if (vdrv_ring_used_get(r, 0, &head, &len))
		return -EPROTO;
	/* A buffer returned without even a header carries no frame (Linux
	 * counts it as a length error): recycle it and report no frame.
	 */
	if (len < hl) {
		if (vdrv_ring_used_take(r, head))
			return -EPROTO;
		d->stats.quirks++;
		d->rx_done[d->nrx_done++] = head;
		vdrv_ring_used_consume(r, 1);
		return -EAGAIN;
	}
	memset(&p->hdr, 0, sizeof(p->hdr));
	memcpy(&p->hdr, d->rx_hva[head], hl);
	/* virtio-net: without GUEST_CSUM the device MUST leave flags zero,
	 * and each gso_type needs its own GUEST_* feature.  Counted, not
	 * fatal: the frame itself is still usable.
	 */
	if ((p->hdr.flags && !vdrv_has(d, VIRTIO_NET_F_GUEST_CSUM)) ||
	    !vdrv_rx_gso_ok(d, p->hdr.gso_type))
		d->stats.dev_errors++;
	if (mrg) {
		nb = p->hdr.num_buffers;
		/* Zero, or more buffers than we ever posted. */
		if (!nb || nb > d->rx_nbufs) {
			d->stats.dev_errors++;
			return -EPROTO;
		}
		if (nb > pending)
			return 0;	/* the rest is not published yet */
	} else if (hl == sizeof(struct virtio_net_hdr_v1) &&
		   p->hdr.num_buffers != 1) {
		d->stats.quirks++;
	}

	p->len = 0;
	for (k = 0; k < nb; k++) {
		if (k && vdrv_ring_used_get(r, (unsigned int)k, &head, &len))
			return -EPROTO;
		if (vdrv_ring_used_take(r, head))
			return -EPROTO;
		d->rx_done[d->nrx_done++] = head;
		if (!k)
			vdrv_rx_copy(p, d->rx_hva[head] + hl, len - hl);
		else
			vdrv_rx_copy(p, d->rx_hva[head], len);
	}
	vdrv_ring_used_consume(r, nb);
	p->nbufs = nb;
	p->truncated = p->buf && p->len > p->cap;
	if (p->truncated)
		d->stats.rx_truncated++;
	d->stats.rx_packets++;
	d->stats.rx_bytes += p->len;
	d->stats.rx_bufs_used += nb;
	return nb;
}

/**
 * vdrv_rx_refill() - give consumed RX buffers back in one publish
 * @d:	device
 */
static void vdrv_rx_refill(struct vdrv_dev *d)
{
	struct vdrv_ring *r = &d->rings[VDRV_RX_RING];
	unsigned int i;

	if (!d->nrx_done)
		return;
	for (i = 0; i < d->nrx_done; i++)
		vdrv_ring_add(r, d->rx_done[i]);
	d->nrx_done = 0;
	vdrv_ring_flush(r);
}

/**
 * vdrv_rx_burst() - receive up to @n frames, then refill RX in one batch
 * @d:		device
 * @pkts:	frames; set buf/cap of each before the call
 * @n:		how many
 *
 * Return: frames received (0 if none), or -EIO once the device broke the
 * ring (dev_errors says how)
 */
int vdrv_rx_burst(struct vdrv_dev *d, struct vdrv_rx_pkt *pkts, unsigned int n)
{
	struct vdrv_ring *r = &d->rings[VDRV_RX_RING];
	unsigned int got = 0;
	int pending, k = 0;

	if (d->broken)
		return -EIO;
	pending = vdrv_ring_used_pending(r);
	while (got < n && pending > 0) {
		k = vdrv_rx_one(d, &pkts[got], pending);
		if (k == -EAGAIN) {	/* an empty buffer, already recycled */
			pending--;
			k = 0;
			continue;
		}
		if (k <= 0)
			break;
		pending -= k;
		got++;
	}
	vdrv_rx_refill(d);
	if (pending < 0 || k < 0) {
		d->broken = true;
		return -EIO;
	}
	return (int)got;
}

/**
 * vdrv_rx_wait() - sleep until the device calls on RX
 * @d:		device
 * @timeout_ms:	limit
 *
 * Return: 1 when frames may be there, 0 on timeout, -ECONNRESET if the
 * back end hung up, -errno
 */
int vdrv_rx_wait(struct vdrv_dev *d, int timeout_ms)
{
	struct vdrv_ring *r = &d->rings[VDRV_RX_RING];
	int ret;

	if (d->broken)
		return -EIO;
	if (vdrv_ring_enable_cb(r))
		ret = 1;
	else
		ret = vdrv_wait_fd(d, r->call_fd, timeout_ms);
	/* Awake again: back to polling, as NAPI does. */
	vdrv_ring_disable_cb(r);
	return ret;
}

/**
 * vdrv_recv() - receive one frame, waiting up to @timeout_ms
 * @d:		device
 * @pkt:	frame (buf/cap set by the caller)
 * @timeout_ms:	limit
 *
 * Return: 1 received, 0 timeout, -errno
 */
int vdrv_recv(struct vdrv_dev *d, struct vdrv_rx_pkt *pkt, int timeout_ms)
{
	int64_t deadline = vdrv_ms() + timeout_ms;
	int ret;

	for (;;) {
		int64_t left;

		ret = vdrv_rx_burst(d, pkt, 1);
		if (ret)
			return ret;
		left = deadline - vdrv_ms();
		if (left <= 0)
			return 0;
		ret = vdrv_rx_wait(d, (int)left);
		if (ret < 0)
			return ret;
	}
}

/**
 * vdrv_send() - send one frame, waiting up to the open timeout for a slot
 * @d:		device
 * @frame:	Ethernet frame
 * @len:	its length
 *
 * Return: 0, -ENOBUFS if no slot freed in time, or -errno
 */
int vdrv_send(struct vdrv_dev *d, const void *frame, uint32_t len)
{
	struct vdrv_tx_pkt p = { .data = frame, .len = len };
	int ret;

	ret = vdrv_tx_burst(d, &p, 1);
	if (ret == 0) {
		ret = vdrv_tx_wait(d, d->opts.timeout_ms);
		if (ret > 0)
			ret = vdrv_tx_burst(d, &p, 1);
	}
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : -ENOBUFS;
}

/**
 * vdrv_wait_hangup() - wait for the back end to drop the connection
 * @d:		device
 * @timeout_ms:	limit
 *
 * Return: 0 if it hung up, 1 if a non-zero ack (a NACK) arrived instead
 * and the connection is still up, -EPROTO if a zero ack arrived (the back
 * end accepted what it should not have), -ETIMEDOUT, or -errno
 */
int vdrv_wait_hangup(struct vdrv_dev *d, int timeout_ms)
{
	uint64_t ack = 0;
	bool got = false;
	int ret;

	ret = vdrv_proto_wait_hangup(&d->conn, timeout_ms, &ack, &got);
	if (ret || !got)
		return ret;
	return ack ? 1 : -EPROTO;
}
