// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_ring_packed.c - the driver side of a virtio 1.1 packed virtqueue
 *
 * DOC: Theory of Operation
 *
 * Callers write descriptor chains the split way, into a staging table of
 * our own (struct vdrv_ring.desc: heads, NEXT links, INDIRECT); adding a
 * head copies its chain into the ring at our position, consecutive
 * descriptors with AVAIL/USED set for our wrap counter and the head's
 * index as Buffer ID.  The first chain added since the last publish keeps
 * its head's flags back: vdrv_ring_publish() stores them after a write
 * barrier, so a batch becomes visible at once, as one avail->idx store
 * does for a split ring.  Later heads of the batch are written as they
 * come (the device cannot reach them before the first).
 *
 * The device is not trusted: a used descriptor must carry the Buffer ID
 * of a head in flight, and our used position moves on by the descriptors
 * that head's chain took (recorded at add time, never read back from
 * the ring).  Indirect tables are the caller's, in packed format
 * (vdrv_ring_packed_table() converts one written the split way).
 *
 * Event suppression: the driver area is ours (ENABLE, DISABLE or, with
 * EVENT_IDX, DESC at our next used position), the device area tells us
 * whether to kick, compared over the two laps the wrap counter tells
 * apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vdrv_priv.h"

#define P_AVAIL		(1u << VRING_PACKED_DESC_F_AVAIL)
#define P_USED		(1u << VRING_PACKED_DESC_F_USED)
#define P_WRAP		(1u << VRING_PACKED_EVENT_F_WRAP_CTR)

/**
 * vdrv_ring_packed_init() - the ring and event areas, staging and books
 * @r:		ring, split fields set up by vdrv_ring_init()
 * @m:		guest memory; the ring goes into region 0
 *
 * Return: 0 or -ENOMEM
 */
int vdrv_ring_packed_init(struct vdrv_ring *r, struct vdrv_mem *m)
{
	uint64_t gpa;

	r->pring = vdrv_mem_alloc(m, 0, sizeof(*r->pring) * r->num, 4096,
				  &gpa);
	r->drv_ev = vdrv_mem_alloc(m, 0, sizeof(*r->drv_ev), 4096, &gpa);
	r->dev_ev = vdrv_mem_alloc(m, 0, sizeof(*r->dev_ev), 4096, &gpa);
	r->desc = calloc(r->num, sizeof(*r->desc));
	r->p_chain = calloc(r->num, sizeof(*r->p_chain));
	r->p_pend = calloc(r->num, sizeof(*r->p_pend));
	if (!r->pring || !r->drv_ev || !r->dev_ev || !r->desc ||
	    !r->p_chain || !r->p_pend)
		return -ENOMEM;
	r->area[0] = r->pring;
	r->area[1] = r->drv_ev;
	r->area[2] = r->dev_ev;
	/* Both wrap counters start at 1 (virtio 1.1, 2.7.1). */
	r->p_wrap = r->p_kicked_wrap = r->p_used_wrap = true;
	return 0;
}

/**
 * vdrv_ring_packed_step() - a position @n descriptors on
 * @r:		ring
 * @pos:	position, updated
 * @wrap:	wrap counter there, flipped when passing the end
 * @n:		descriptors, <= num
 */
static void vdrv_ring_packed_step(const struct vdrv_ring *r, uint16_t *pos,
				  bool *wrap, unsigned int n)
{
	unsigned int p = *pos + n;

	if (p >= r->num) {
		p -= r->num;
		*wrap = !*wrap;
	}
	*pos = (uint16_t)p;
}

/**
 * vdrv_ring_packed_write() - copy the staged chain at @head into the ring
 * @r:		ring
 * @head:	first staging descriptor
 * @id:		Buffer ID to write in every descriptor
 *
 * At most num descriptors are written: a chain that goes on (a staged
 * loop, on purpose) ends up as the whole ring with NEXT everywhere, the
 * packed form of a chain that never ends.  The head's flags are held
 * back (@p_batch) or written last.
 *
 * Return: ring descriptors written
 */
unsigned int vdrv_ring_packed_write(struct vdrv_ring *r, uint16_t head,
				    uint16_t id)
{
	uint16_t pos = r->p_next, hpos = r->p_next, hflags = 0, i = head;
	bool wrap = r->p_wrap;
	unsigned int n = 0;

	for (;;) {
		const struct vring_desc *sd = &r->desc[i];
		struct vring_packed_desc *pd = &r->pring[pos];
		uint16_t f = (uint16_t)(sd->flags & (VRING_DESC_F_NEXT |
						     VRING_DESC_F_WRITE |
						     VRING_DESC_F_INDIRECT));

		f |= wrap ? P_AVAIL : P_USED;
		pd->addr = sd->addr;
		pd->len = sd->len;
		pd->id = id;
		if (n)
			VDRV_WRITE_ONCE(pd->flags, f);
		else
			hflags = f;
		n++;
		vdrv_ring_packed_step(r, &pos, &wrap, 1);
		if (!(sd->flags & VRING_DESC_F_NEXT) || n >= r->num ||
		    sd->next >= r->num)
			break;
		i = sd->next;
	}
	r->p_next = pos;
	r->p_wrap = wrap;
	if (!r->p_batch) {
		r->p_batch = true;
		r->p_batch_pos = hpos;
		r->p_batch_flags = hflags;
	} else {
		/* The chain before its head; the device reaches this head
		 * only after the batch's first, published later.
		 */
		vdrv_wmb();
		VDRV_WRITE_ONCE(r->pring[hpos].flags, hflags);
	}
	return n;
}

/**
 * vdrv_ring_packed_add() - queue the chain at @head, not yet published
 * @r:		ring
 * @head:	first staging descriptor of a chain already written
 */
void vdrv_ring_packed_add(struct vdrv_ring *r, uint16_t head)
{
	r->p_chain[head] = (uint16_t)vdrv_ring_packed_write(r, head, head);
}

/**
 * vdrv_ring_packed_lap() - a position on the two laps the wrap counter
 *			    tells apart
 * @r:		ring
 * @pos:	position
 * @wrap:	wrap counter there
 *
 * Return: @pos with the counter at 1, @pos + num with it at 0
 */
static uint32_t vdrv_ring_packed_lap(const struct vdrv_ring *r, uint32_t pos,
				     bool wrap)
{
	return wrap ? pos : pos + r->num;
}

/**
 * vdrv_ring_packed_publish() - make the batch visible, decide about a kick
 * @r:	ring
 *
 * Return: true if the device wants a kick for what was just published
 */
bool vdrv_ring_packed_publish(struct vdrv_ring *r)
{
	uint32_t old, new, event, span = 2u * r->num;
	uint16_t flags, off_wrap;

	if (!r->p_batch)
		return false;
	/* Every descriptor before the first head's flags: pairs with the
	 * device's read barrier after it sees them.
	 */
	vdrv_wmb();
	VDRV_WRITE_ONCE(r->pring[r->p_batch_pos].flags, r->p_batch_flags);
	r->p_batch = false;
	old = vdrv_ring_packed_lap(r, r->p_kicked, r->p_kicked_wrap);
	new = vdrv_ring_packed_lap(r, r->p_next, r->p_wrap);
	r->p_kicked = r->p_next;
	r->p_kicked_wrap = r->p_wrap;
	/* Flags before the device's hint: pairs with the device's full
	 * barrier between writing its event area and looking at the ring.
	 */
	vdrv_mb();
	flags = VDRV_READ_ONCE(r->dev_ev->flags);
	if (flags == VRING_PACKED_EVENT_FLAG_DISABLE)
		return false;
	if (flags != VRING_PACKED_EVENT_FLAG_DESC || !r->event_idx)
		return true;
	off_wrap = VDRV_READ_ONCE(r->dev_ev->off_wrap);
	if ((off_wrap & ~P_WRAP) >= r->num)
		return true;	/* nonsense: kick rather than stall */
	event = vdrv_ring_packed_lap(r, off_wrap & ~P_WRAP, off_wrap & P_WRAP);
	return (event + span - old) % span < (new + span - old) % span;
}

/**
 * vdrv_ring_packed_used_pending() - find the buffers given back
 * @r:	ring
 *
 * Walks from our used position while descriptors are marked used for
 * the device's wrap counter, each moving the position on by its head's
 * chain.  With IN_ORDER a used descriptor may stand for a batch (virtio
 * 1.1, 2.7.10): every buffer in flight up to the one it names, oldest
 * first, those before it taken as used with nothing written.  A batch
 * partly consumed before is entered past what was consumed.
 *
 * Return: buffers found, or -EPROTO if a descriptor names no head in
 *	   flight (or, in order, none still to come)
 */
int vdrv_ring_packed_used_pending(struct vdrv_ring *r)
{
	uint16_t pos = r->p_used, skip = r->p_used_skip;
	bool wrap = r->p_used_wrap;
	unsigned int n = 0;

	while (n < r->ninflight) {
		uint16_t f = VDRV_READ_ONCE(r->pring[pos].flags), id, h;
		uint32_t bpos = pos | (uint32_t)wrap << 16, l, done;
		unsigned int first = n;

		if (!!(f & P_AVAIL) != wrap || !!(f & P_USED) != wrap)
			break;
		/* ID and length after the flags: pairs with the device's
		 * write barrier before it stores them.
		 */
		vdrv_rmb();
		id = VDRV_READ_ONCE(r->pring[pos].id);
		l = f & VRING_DESC_F_WRITE ? VDRV_READ_ONCE(r->pring[pos].len) :
		    0;
		/* A Buffer ID that is no head of ours, or not in flight:
		 * we would not know how far to skip, nor what to free.
		 */
		if (id >= r->num || id % r->stride || !r->inflight[id]) {
			r->stats->dev_errors++;
			return -EPROTO;
		}
		done = skip;
		skip = 0;
		do {
			if (r->in_order) {
				if (n >= r->order_n) {
					r->stats->dev_errors++;
					return -EPROTO;
				}
				h = r->order[(r->order_first + n) % r->num];
			} else {
				h = id;
			}
			done += r->p_chain[h];
			r->p_pend[n] = (struct vdrv_pend){
				.bpos = bpos, .len = h == id ? l : 0,
				.head = h, .bdone = (uint16_t)done,
				.last = h == id,
			};
			n++;
		} while (h != id);
		vdrv_ring_packed_step(r, &pos, &wrap, done);
		for (; first < n; first++)
			r->p_pend[first].bend = pos | (uint32_t)wrap << 16;
	}
	r->p_pend_off = 0;
	r->p_npend = n;
	return (int)n;
}

/**
 * vdrv_ring_packed_used_get() - check one pending buffer
 * @r:		ring
 * @nth:	0 = next; below vdrv_ring_packed_used_pending()'s count
 * @head:	out: the head (Buffer ID) returned
 * @len:	out: bytes written (0 without the WRITE flag, or skipped)
 *
 * Return: 0, or -EPROTO for a bad ID or a length beyond the buffer
 */
int vdrv_ring_packed_used_get(struct vdrv_ring *r, unsigned int nth,
			      uint16_t *head, uint32_t *len)
{
	const struct vdrv_pend *p;

	if (nth >= r->p_npend) {	/* our caller's bug, not the device's */
		r->stats->dev_errors++;
		return -EPROTO;
	}
	p = &r->p_pend[r->p_pend_off + nth];
	if (!r->inflight[p->head] || p->len > r->cap[p->head]) {
		r->stats->dev_errors++;
		return -EPROTO;
	}
	*head = p->head;
	*len = p->len;
	return 0;
}

/**
 * vdrv_ring_packed_used_consume() - move past @count pending buffers
 * @r:		ring
 * @count:	at most what vdrv_ring_packed_used_pending() found and was
 *		not consumed yet; the rest stay pending, numbered from 0
 *
 * Past the last buffer of a batch, our position is the batch's end;
 * inside one, it stays at the batch's descriptor and remembers how much
 * of the batch is done.
 */
void vdrv_ring_packed_used_consume(struct vdrv_ring *r, unsigned int count)
{
	const struct vdrv_pend *p;

	if (count > r->p_npend)
		count = r->p_npend;
	if (!count)
		return;
	r->p_pend_off += count;
	r->p_npend -= count;
	p = &r->p_pend[r->p_pend_off - 1];
	if (p->last) {
		r->p_used = (uint16_t)p->bend;
		r->p_used_wrap = p->bend >> 16;
		r->p_used_skip = 0;
	} else {
		r->p_used = (uint16_t)p->bpos;
		r->p_used_wrap = p->bpos >> 16;
		r->p_used_skip = p->bdone;
	}
}

/**
 * vdrv_ring_packed_used_end() - where the used descriptors published end
 * @r:	ring
 *
 * Return: the position after the last one (bit 16: wrap counter), or
 *	   our used position if the device broke the ring
 */
uint32_t vdrv_ring_packed_used_end(struct vdrv_ring *r)
{
	int n = vdrv_ring_packed_used_pending(r);

	if (n <= 0)
		return r->p_used | (uint32_t)r->p_used_wrap << 16;
	return r->p_pend[n - 1].bend;
}

/**
 * vdrv_ring_packed_enable_cb() - ask for a call at the next used one
 * @r:	ring
 *
 * Return: true if one is already there (no call will come for it)
 */
bool vdrv_ring_packed_enable_cb(struct vdrv_ring *r)
{
	uint16_t f;

	if (r->event_idx) {
		VDRV_WRITE_ONCE(r->drv_ev->off_wrap,
				(uint16_t)(r->p_used |
					   (r->p_used_wrap ? P_WRAP : 0)));
		vdrv_wmb();	/* the offset before the mode that uses it */
		VDRV_WRITE_ONCE(r->drv_ev->flags, VRING_PACKED_EVENT_FLAG_DESC);
	} else {
		VDRV_WRITE_ONCE(r->drv_ev->flags,
				VRING_PACKED_EVENT_FLAG_ENABLE);
	}
	/* Hint before looking at the ring: pairs with the device's full
	 * barrier between publishing and reading our hint.
	 */
	vdrv_mb();
	f = VDRV_READ_ONCE(r->pring[r->p_used].flags);
	return !!(f & P_AVAIL) == r->p_used_wrap &&
	       !!(f & P_USED) == r->p_used_wrap;
}

/**
 * vdrv_ring_packed_disable_cb() - tell the device we poll
 * @r:	ring
 */
void vdrv_ring_packed_disable_cb(struct vdrv_ring *r)
{
	VDRV_WRITE_ONCE(r->drv_ev->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
}

/**
 * vdrv_ring_packed_table() - turn an indirect table written the split way
 *			      into packed format, in place
 * @table:	@n struct vring_desc entries
 * @n:		entries
 *
 * Same size and address/length fields; the split flags and next become
 * the packed Buffer ID (unused: 0) and flags (WRITE is the one that
 * counts; NEXT is kept, the device ignores it).
 */
void vdrv_ring_packed_table(void *table, unsigned int n)
{
	struct vring_desc *sd = table;
	struct vring_packed_desc *pd = table;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint16_t f = sd[i].flags;

		pd[i].id = 0;
		pd[i].flags = f;
	}
}
