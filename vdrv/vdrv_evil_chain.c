// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_evil_chain.c - descriptor chains built to cost the device work
 *
 * A device walks every chain it pops.  The spec lets a chain be as long
 * as the ring and an indirect table as long again; a guest that makes
 * every avail entry name one such chain, and keeps doing it, asks for
 * tens of thousands of descriptor reads per pop.  vdrv_evil_chain()
 * builds such chains (the kinds long-chain, huge-indirect and same-head
 * of vdrv_evil(), or any length a test wants, within what the spec or a
 * device allows) and republishes them as the device consumes them.
 *
 * The chain always starts at TX descriptor 0, in the slot of head 0: its
 * first buffer holds a virtio-net header and the caller's frame, every
 * further buffer one byte of that slot.  Nothing is tracked as in flight
 * and the used ring is never consumed: after the first call the device's
 * TX queue is the test's weapon, not a data path (close or abort it).
 */
#include <errno.h>
#include <string.h>
#include <linux/virtio_ring.h>

#include "vdrv_priv.h"

/**
 * vdrv_evil_chain_table() - the indirect table, allocated once per device
 * @d:		device
 * @n:		entries needed
 * Return: the table, or NULL (-ENOMEM for the caller)
 */
static struct vring_desc *vdrv_evil_chain_table(struct vdrv_dev *d,
						unsigned int n)
{
	struct vdrv_region *r1 = &d->mem.r[d->mem.nregions - 1];

	if (d->evil_ind_n >= n)
		return d->evil_ind;
	/* Bump allocation: a bigger table later leaves the old one. */
	d->evil_ind = vdrv_mem_alloc(&d->mem, (unsigned int)(r1 - d->mem.r),
				     (uint64_t)n * sizeof(struct vring_desc),
				     16, &d->evil_ind_gpa);
	d->evil_ind_n = d->evil_ind ? n : 0;
	return d->evil_ind;
}

/**
 * vdrv_evil_chain_fill() - write @n chained readable descriptors
 * @t:		table (ring or indirect) to write at index 0 onwards
 * @first:	index of the first one
 * @n:		count
 * @gpa:	slot address: the first buffer is @len bytes there, every
 *		other one the slot's last byte of that
 * @len:	first buffer's length
 * @last_next:	the last one continues (NEXT) to @first + @n
 */
static void vdrv_evil_chain_fill(struct vring_desc *t, unsigned int first,
				 unsigned int n, uint64_t gpa, uint32_t len,
				 bool last_next)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct vring_desc *x = &t[first + i];
		bool more = i + 1 < n || last_next;

		x->addr = i || first ? gpa + len - 1 : gpa;
		x->len = i || first ? 1 : len;
		x->flags = more ? VRING_DESC_F_NEXT : 0;
		x->next = more ? (uint16_t)(first + i + 1) : 0;
	}
}

/**
 * vdrv_evil_chain_packed() - vdrv_evil_chain()'s publishing, packed ring
 * @d:		device
 * @t:		indirect table written the split way, or NULL
 * @nind:	its entries
 * @nd:		ring descriptors of the chain
 * @copies:	copies wanted
 *
 * Each copy is the staged chain at descriptor 0 written at our position
 * (Buffer ID 0).  What the device used is skipped first, by the Buffer
 * IDs it wrote (our own frames before the attack, then copies): the ring
 * never holds more than its size.
 *
 * Return: copies added
 */
static int vdrv_evil_chain_packed(struct vdrv_dev *d, struct vring_desc *t,
				  unsigned int nind, unsigned int nd,
				  unsigned int copies)
{
	struct vdrv_ring *tx = &d->rings[VDRV_TX_RING];
	unsigned int out, n = 0;

	if (t)
		vdrv_ring_packed_table(t, nind);
	tx->p_chain[0] = (uint16_t)nd;
	for (;;) {
		uint16_t f = VDRV_READ_ONCE(tx->pring[tx->p_used].flags), id;

		if (!!(f & 1u << VRING_PACKED_DESC_F_AVAIL) !=
		    tx->p_used_wrap ||
		    !!(f & 1u << VRING_PACKED_DESC_F_USED) != tx->p_used_wrap)
			break;
		vdrv_rmb();
		id = VDRV_READ_ONCE(tx->pring[tx->p_used].id);
		if (id >= tx->num || !tx->p_chain[id])
			break;
		tx->p_used = (uint16_t)(tx->p_used + tx->p_chain[id]);
		if (tx->p_used >= tx->num) {
			tx->p_used = (uint16_t)(tx->p_used - tx->num);
			tx->p_used_wrap = !tx->p_used_wrap;
		}
	}
	/* Descriptors between our used position and our next one. */
	out = (tx->p_next + (tx->p_wrap ? 0u : tx->num) + 2u * tx->num -
	       tx->p_used - (tx->p_used_wrap ? 0u : tx->num)) %
	      (2u * tx->num);
	while (n < copies && out + nd <= tx->num) {
		vdrv_ring_packed_write(tx, 0, 0);
		out += nd;
		n++;
	}
	vdrv_ring_publish(tx);
	vdrv_ring_kick(tx);
	return (int)n;
}

/**
 * vdrv_evil_chain() - make TX avail entries name one costly chain
 * @d:		device, opened; its TX data path is given up by this call
 * @frame:	Ethernet frame for the first buffer; NULL: a 60-byte
 *		broadcast
 * @len:	its length (at most the TX slot less the header)
 * @nring:	plain descriptors in the ring (0: the head is the INDIRECT)
 * @nind:	entries of an indirect table after them, 0 for none (needs
 *		INDIRECT_DESC; at most VDRV_EVIL_IND_MAX)
 * @copies:	avail entries to add, all naming head 0; fewer if the
 *		device has not consumed what was added before (the avail
 *		index never runs more than the ring ahead of the used one)
 *
 * The first buffer is the one at index 0 of the ring, or of the table if
 * @nring is 0.  Called again, it rewrites the same chain and adds
 * entries for what the device consumed meanwhile.
 *
 * Return: entries added (0 if the device consumed nothing yet), or
 *	   -EINVAL for lengths the ring cannot hold, -ENOTSUP without
 *	   INDIRECT_DESC, -ENOMEM if guest memory has no room for the table
 */
int vdrv_evil_chain(struct vdrv_dev *d, const void *frame, uint32_t len,
		    unsigned int nring, unsigned int nind, unsigned int copies)
{
	static const uint8_t bcast[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0xee, 0xee, 0xee, 0xee, 0x01, 0x88, 0xb5,
	};
	struct vdrv_ring *tx = &d->rings[VDRV_TX_RING];
	unsigned int nd = nring + (nind ? 1 : 0), i, n;
	uint32_t blen;
	uint16_t out;
	uint8_t *slot = d->tx_hva[0];
	struct vring_desc *t = NULL;

	if (!frame) {
		frame = bcast;
		len = sizeof(bcast);
	}
	blen = (uint32_t)d->hdr_len + len;
	if (!nd || nd > tx->num || nind > VDRV_EVIL_IND_MAX || !len ||
	    blen > d->opts.tx_buf_len)
		return -EINVAL;
	if (nind && !vdrv_has(d, VIRTIO_RING_F_INDIRECT_DESC))
		return -ENOTSUP;
	if (nind) {
		t = vdrv_evil_chain_table(d, nind);
		if (!t)
			return -ENOMEM;
	}

	memset(slot, 0, d->hdr_len);
	memcpy(slot + d->hdr_len, frame, len);
	vdrv_evil_chain_fill(tx->desc, 0, nring, d->tx_gpa[0], blen, nind);
	if (nind) {
		struct vring_desc *x = &tx->desc[nring];

		x->addr = d->evil_ind_gpa;
		x->len = nind * (uint32_t)sizeof(*t);
		x->flags = VRING_DESC_F_INDIRECT;
		x->next = 0;
		/* The table's first buffer carries the frame if the ring
		 * had none.
		 */
		vdrv_evil_chain_fill(t, 0, 1, d->tx_gpa[0],
				     nring ? 1 : blen, nind > 1);
		if (nring)
			t[0].addr = d->tx_gpa[0] + blen - 1;
		vdrv_evil_chain_fill(t, 1, nind - 1, d->tx_gpa[0], blen,
				     false);
	}

	if (tx->packed)
		return vdrv_evil_chain_packed(d, t, nind, nd, copies);
	/* What the device has not consumed yet, by its used index (never
	 * validated here: nothing of this ring is tracked any more).
	 */
	out = (uint16_t)(tx->avail_idx - VDRV_READ_ONCE(tx->used->idx));
	n = out >= tx->num ? 0 : tx->num - out;
	if (n > copies)
		n = copies;
	for (i = 0; i < n; i++)
		tx->avail->ring[(uint16_t)(tx->avail_idx + i) & (tx->num - 1)] = 0;
	tx->avail_idx = (uint16_t)(tx->avail_idx + n);
	/* Descriptors and entries before the index: pairs with the
	 * device's read barrier after it reads avail->idx.
	 */
	vdrv_wmb();
	VDRV_WRITE_ONCE(tx->avail->idx, tx->avail_idx);
	tx->kicked_idx = tx->avail_idx;
	vdrv_mb();
	vdrv_ring_kick(tx);
	return (int)n;
}
