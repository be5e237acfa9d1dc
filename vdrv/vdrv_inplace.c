// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_inplace.c - TX without a copy: frames written straight into slots
 *
 * vdrv_tx_burst() copies every frame from the caller into its TX slot.
 * For a benchmark that copy is the traffic source's own cost and, for
 * 9000-byte or 64 KiB frames, it can make the source slower than the
 * device under test.  A real guest does not copy either: virtio-net
 * points descriptors at the skb's pages.  So a benchmark writes a
 * template into every slot once (vdrv_tx_prefill()) and then, per frame,
 * lets a callback patch only what changes (a sequence number) in place
 * (vdrv_tx_burst_inplace()).  Descriptors, publish and kick logic are the
 * same as vdrv_tx_burst()'s.
 */
#include <errno.h>
#include <string.h>
#include <linux/virtio_ring.h>

#include "vdrv_priv.h"

/**
 * vdrv_tx_prefill() - write one frame and header into every TX slot
 * @d:	device, with no TX buffer in flight (e.g. right after vdrv_open())
 * @p:	frame and header (NULL header = zero)
 *
 * Return: 0, -EBUSY if a TX buffer is still owned by the device,
 * -EMSGSIZE if the frame does not fit a slot
 */
int vdrv_tx_prefill(struct vdrv_dev *d, const struct vdrv_tx_pkt *p)
{
	uint32_t hl = (uint32_t)d->hdr_len;
	unsigned int i;

	if (d->broken)
		return -EIO;
	if (d->ntx_free != d->tx_slots)
		return -EBUSY;
	if (p->len > d->opts.tx_buf_len - hl)
		return -EMSGSIZE;
	for (i = 0; i < d->ntx_free; i++) {
		uint8_t *slot = d->tx_hva[d->tx_free[i]];

		if (p->hdr)
			memcpy(slot, p->hdr, hl);
		else
			memset(slot, 0, hl);
		memcpy(slot + hl, p->data, p->len);
	}
	return 0;
}

/**
 * vdrv_tx_burst_inplace() - send up to @n frames written in place
 * @d:		device
 * @n:		how many
 * @fill:	called once per frame with the slot's header (hdr_len bytes)
 *		and frame area (@room bytes), both still holding what was
 *		last written there; returns the frame length, 0 to stop
 * @ctx:	passed to @fill
 *
 * Like vdrv_tx_burst(): one publish and at most one kick for the burst.
 *
 * Return: frames queued (fewer when TX slots ran out or @fill stopped),
 * -EMSGSIZE if @fill returned more than @room, -EIO once the device broke
 * the ring
 */
int vdrv_tx_burst_inplace(struct vdrv_dev *d, unsigned int n,
			  vdrv_tx_fill_fn fill, void *ctx)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];
	uint32_t hl = (uint32_t)d->hdr_len;
	uint32_t room = d->opts.tx_buf_len - hl;
	bool stopped = false;
	unsigned int i;
	int ret = 0;

	if (d->ntx_free < n) {
		ret = vdrv_tx_reclaim(d);
		if (ret < 0)
			return ret;
		ret = 0;
	}
	if (d->broken)
		return -EIO;
	for (i = 0; i < n && d->ntx_free; i++) {
		uint16_t head = d->tx_free[d->ntx_free - 1];
		uint8_t *slot = d->tx_hva[head];
		uint32_t len = fill(ctx, slot, slot + hl, room);

		if (!len || len > room) {
			ret = len ? -EMSGSIZE : 0;
			stopped = true;
			break;
		}
		d->ntx_free--;
		vdrv_tx_describe(d, head, len);
		vdrv_ring_add(r, head);
		d->stats.tx_bytes += len;
	}
	d->stats.tx_packets += i;
	if (!stopped)
		d->stats.tx_full += n - i;
	vdrv_ring_flush(r);
	return i || !ret ? (int)i : ret;
}
