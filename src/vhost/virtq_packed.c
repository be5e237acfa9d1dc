// SPDX-License-Identifier: GPL-2.0-or-later
/* virtq_packed.c - device side of a packed virtqueue over untrusted guest
 * memory
 *
 * DOC: Theory of Operation
 *
 * A packed ring (virtio 1.1, VIRTIO_F_RING_PACKED) is one array of 16-byte
 * descriptors that both sides write: the driver makes descriptors
 * available in ring order, the device overwrites them with used ones, in
 * the order it completes them.  Each side keeps a wrap counter, starting
 * at 1 and flipped each time its position passes the end of the ring.  A
 * descriptor is available when its AVAIL flag equals the driver's counter
 * and its USED flag does not; the device marks one used by setting both
 * to its own counter.  A chain is consecutive descriptors linked by NEXT
 * (its Buffer ID in the last one) or a single INDIRECT descriptor whose
 * table is read sequentially; the device writes one used descriptor per
 * chain, at its own used position, and moves that position on by the
 * ring descriptors the chain took.
 *
 * What the guest can lie about, and what we do:
 *  - flags of a descriptor inside a chain that do not mark it available
 *    for its position's wrap counter (the driver must make every
 *    descriptor of a chain available before the first): BROKEN;
 *  - a chain longer than the ring or than VIRTQ_CHAIN_MAX (a chain that
 *    would run into itself, or one no driver builds): BROKEN, after at
 *    most VIRTQ_CHAIN_MAX + 1 reads;
 *  - INDIRECT without the feature, beside NEXT, inside a chain of direct
 *    descriptors, with an empty, ragged, misaligned, oversized table or
 *    one outside guest memory: BROKEN.  Table entries are read in order,
 *    once each: a packed table cannot loop, and only WRITE means anything
 *    in it (the spec has the device ignore the other flags);
 *  - buffers: the split walker's rules, through the same virtq_add_seg()
 *    (readable after writable or more segments than we take: DROP; a
 *    buffer outside guest memory or a chain over 4 GiB: BROKEN).  A DROP
 *    in a direct chain still walks the rest of the chain's flags, since
 *    the used position must move past all of it;
 *  - event suppression: off_wrap and flags are read once; an offset
 *    outside the ring never matches (the guest only loses its own
 *    interrupts), a reserved mode means "enabled".
 * Nothing the guest writes makes us touch memory outside the ring or its
 * buffers, or spin: the work per pop is bounded as for split rings.
 *
 * Memory ordering pairs with the driver (Linux virtio_ring.c, packed):
 *  - a descriptor's flags are read, then smp_rmb(), then its other fields
 *    and the rest of the chain (pairs with the driver's wmb before it
 *    writes the first descriptor's flags);
 *  - used descriptors are written, later ones with their flags, then
 *    smp_wmb(), then the first one's flags (virtq_flush()): the driver
 *    polls only the next position, so the batch appears at once;
 *  - the last flags store, smp_mb(), then the driver event area read
 *    when deciding to notify; device event area store, smp_mb(), then
 *    the next descriptor's flags when re-enabling kicks.
 */
#include <errno.h>
#include <string.h>

#include "../util.h"
#include "virtq_int.h"

#define PACKED_F_AVAIL	(1u << VRING_PACKED_DESC_F_AVAIL)
#define PACKED_F_USED	(1u << VRING_PACKED_DESC_F_USED)
#define PACKED_WRAP_BIT	(1u << VRING_PACKED_EVENT_F_WRAP_CTR)

/**
 * virtq_packed_init() - packed state of an unconfigured queue
 * @vq:		queue, just zeroed
 *
 * Both wrap counters start at 1 (virtio 1.1, 2.7.1).
 */
void virtq_packed_init(struct virtq *vq)
{
	vq->avail_wrap = true;
	vq->used_wrap = true;
	vq->push_wrap = true;
}

/**
 * virtq_packed_is_avail() - whether @flags mark a descriptor available
 * @flags:	descriptor flags, read once
 * @wrap:	driver wrap counter expected at that position
 *
 * Return: true if AVAIL matches @wrap and USED does not
 */
static bool virtq_packed_is_avail(uint16_t flags, bool wrap)
{
	return !!(flags & PACKED_F_AVAIL) == wrap &&
	       !!(flags & PACKED_F_USED) != wrap;
}

/**
 * virtq_packed_step() - move a ring position on by @n, flipping @wrap
 *			 when it passes the end
 * @vq:		queue
 * @idx:	position, < num
 * @wrap:	wrap counter at @idx
 * @n:		descriptors, <= num
 */
static void virtq_packed_step(const struct virtq *vq, uint16_t *idx,
			      bool *wrap, unsigned int n)
{
	unsigned int i = *idx + n;

	if (i >= vq->num) {
		i -= vq->num;
		*wrap = !*wrap;
	}
	*idx = (uint16_t)i;
}

/**
 * virtq_packed_map() - translate the ring and event areas
 * @vq:		queue with @num, the three uvas and the base set
 * @mem:	memory table to translate through (kept in @vq->mem)
 *
 * Unlike a split ring, nothing in guest memory says where the device
 * was: the positions come from SET_VRING_BASE (virtq_set_base()) and
 * survive a remap.  Chains held across a remap were given back first
 * (vu_dev_ops.queue_release), so nothing is in flight here.
 *
 * Return: 0, -EINVAL for a bad size, position or misaligned area, -EFAULT
 *	   if an area is not wholly inside one region.  On failure the ring
 *	   is unmapped.
 */
int virtq_packed_map(struct virtq *vq, const struct guest_mem *mem)
{
	uint64_t num = vq->num;
	void *desc, *drv, *dev;

	vq->desc = NULL;
	vq->avail = NULL;
	vq->used = NULL;
	/* Any size up to 2^15 (no power of two needed); positions past
	 * the end would index outside the ring.
	 */
	if (!num || num > VIRTQ_MAX_SIZE)
		return -EINVAL;
	if (vq->last_avail_idx >= num || vq->used_idx >= num)
		return -EINVAL;
	if ((vq->desc_uva & 15) || (vq->avail_uva & 3) || (vq->used_uva & 3))
		return -EINVAL;

	desc = guest_mem_uva(mem, vq->desc_uva,
			     num * sizeof(struct vring_packed_desc));
	drv = guest_mem_uva(mem, vq->avail_uva,
			    sizeof(struct vring_packed_desc_event));
	dev = guest_mem_uva(mem, vq->used_uva,
			    sizeof(struct vring_packed_desc_event));
	if (!desc || !drv || !dev)
		return -EFAULT;
	if (((uintptr_t)desc % _Alignof(struct vring_packed_desc)) ||
	    ((uintptr_t)drv % _Alignof(struct vring_packed_desc_event)) ||
	    ((uintptr_t)dev % _Alignof(struct vring_packed_desc_event)))
		return -EINVAL;

	vq->pdesc = desc;
	vq->drv_event = drv;
	vq->dev_event = dev;
	vq->mem = mem;
	/* Cannot fail: the ring was just found in a region. */
	vq->desc_gpa = 0;
	guest_mem_uva_gpa(mem, vq->desc_uva, &vq->desc_gpa);
	vq->push_idx = vq->used_idx;
	vq->push_wrap = vq->used_wrap;
	vq->pending_used = 0;
	vq->batch_open = false;
	vq->seen_chains = 0;
	vq->seen_desc = 0;
	vq->inflight_first = 0;
	vq->inflight_num = 0;
	vq->signalled_used_valid = false;
	vq->notify_disabled = false;
	return 0;
}

/**
 * virtq_packed_count() - count the chains made available, flags only
 * @vq:		queue, ready
 * @n:		most chains wanted
 *
 * Chains an earlier count saw (@seen_chains) are not looked at again:
 * made available, they stay so until popped.  Past them, reads no more
 * than 2 * @n + VIRTQ_CHAIN_MAX flags (and never past a ring's length
 * from @last_avail_idx): the count is a hint for the size of a burst, and
 * every chain is read again, and checked, by virtq_packed_pop().  A chain
 * not ended where the count stops (longer than the scan, or a descriptor
 * in it not available) counts as one, but is not remembered: only a pop
 * can say whether it is good, and a ring that lies must be found broken,
 * not left waiting.  The flags loads bring the descriptors' lines in for
 * the pops that follow: no separate prefetch is needed (one issued ahead
 * of the scan measured no better).
 *
 * Return: chains available, at most @n
 */
static unsigned int virtq_packed_count(struct virtq *vq, unsigned int n)
{
	unsigned int scan = MIN(2 * n + VIRTQ_CHAIN_MAX,
				(unsigned int)(vq->num - vq->seen_desc));
	unsigned int chains = vq->seen_chains, end = 0, i;
	uint16_t idx = vq->last_avail_idx;
	bool wrap = vq->avail_wrap, open = false;

	if (chains >= n)
		return n;
	virtq_packed_step(vq, &idx, &wrap, vq->seen_desc);
	for (i = 0; i < scan && chains < n; i++) {
		uint16_t flags = READ_ONCE(vq->pdesc[idx].flags);

		if (!virtq_packed_is_avail(flags, wrap))
			break;
		open = flags & VRING_DESC_F_NEXT;
		virtq_packed_step(vq, &idx, &wrap, 1);
		if (!open) {
			chains++;
			end = i + 1;
		}
	}
	/* Remember the complete chains; a partial one at the end is
	 * looked at again next time.
	 */
	vq->seen_desc = (uint16_t)(vq->seen_desc + end);
	vq->seen_chains = (uint16_t)chains;
	if (open && chains < n)
		chains++;
	/* Pairs with the driver's wmb before the head's flags: what the
	 * caller reads next belongs to descriptors seen available.
	 */
	smp_rmb();
	return chains;
}

/**
 * virtq_packed_avail_count() - chains made available and not yet popped
 * @vq:		queue, ready
 *
 * Return: complete chains, counted as virtq_packed_count() does
 */
unsigned int virtq_packed_avail_count(struct virtq *vq)
{
	return virtq_packed_count(vq, vq->num);
}

/**
 * virtq_packed_prefetch() - count the next chains, loading their lines
 * @vq:		queue
 * @n:		chains about to be popped
 *
 * Return: chains available, at most @n (see virtq_prefetch())
 */
unsigned int virtq_packed_prefetch(struct virtq *vq, unsigned int n)
{
	if (!n || !virtq_ready(vq))
		return 0;
	return virtq_packed_count(vq, n);
}

/**
 * virtq_packed_prefetch_used() - ask for the ring lines the next pushes
 *				  write
 * @vq:		queue, ready
 * @n:		used descriptors about to be written
 *
 * Chains of one descriptor (the common case) put them side by side, four
 * to a line; longer chains only make this ask for a few lines too many.
 */
void virtq_packed_prefetch_used(struct virtq *vq, unsigned int n)
{
	unsigned int i;

	if (n > vq->num)
		n = vq->num;
	for (i = 0; i < n; i += 4)
		prefetch_w(&vq->pdesc[(vq->push_idx + i) % vq->num]);
}

/**
 * virtq_packed_table() - read an indirect table into @elem
 * @vq:		queue
 * @elem:	element being built
 * @w:		walk state
 * @addr:	table address, read once
 * @len:	table length in bytes, read once
 *
 * Return: VIRTQ_POP_OK, DROP or BROKEN
 */
static enum virtq_pop_result virtq_packed_table(struct virtq *vq,
						struct virtq_elem *elem,
						struct virtq_walk *w,
						uint64_t addr, uint32_t len)
{
	const struct vring_packed_desc *t;
	uint32_t i, n;

	/* Empty or ragged tables are forbidden by the spec; we take none
	 * longer than a chain, and only 16-byte aligned ones (entries are
	 * 16-byte structs we load as such).
	 */
	if (!vq->indirect || !len || len % sizeof(*t) ||
	    len / sizeof(*t) > VIRTQ_CHAIN_MAX || (addr & 15))
		return VIRTQ_POP_BROKEN;
	t = guest_mem_gpa(vq->mem, addr, len);
	if (!t || ((uintptr_t)t % _Alignof(struct vring_packed_desc)))
		return VIRTQ_POP_BROKEN;
	n = len / sizeof(*t);
	w->table_num = n;
	w->indirect = true;
	for (i = 0; i < n; i++) {
		uint64_t a = READ_ONCE(t[i].addr);
		uint32_t l = READ_ONCE(t[i].len);
		uint16_t f = READ_ONCE(t[i].flags);
		enum virtq_pop_result r;

		elem->ndesc = (uint16_t)(i + 2);
		/* Only WRITE means anything in a table; NEXT, INDIRECT,
		 * AVAIL and USED are reserved and ignored (virtio 1.1,
		 * 2.7.7): nothing here is followed, so nothing can loop.
		 */
		r = virtq_add_seg(vq, elem, w, a, l, f & VRING_DESC_F_WRITE);
		if (r != VIRTQ_POP_OK)
			return r;
	}
	return VIRTQ_POP_OK;
}

/**
 * virtq_packed_walk() - read the chain at @vq->last_avail_idx
 * @vq:		queue, head descriptor seen available
 * @elem:	element being built
 * @head_flags:	the head's flags, already read once
 * @ndesc:	out: ring descriptors the chain takes
 *
 * Return: VIRTQ_POP_OK, DROP or BROKEN
 */
static enum virtq_pop_result virtq_packed_walk(struct virtq *vq,
					       struct virtq_elem *elem,
					       uint16_t head_flags,
					       unsigned int *ndesc)
{
	unsigned int limit = MIN(vq->num, VIRTQ_CHAIN_MAX), count = 0;
	enum virtq_pop_result r = VIRTQ_POP_OK;
	struct virtq_walk w = { .table_num = vq->num };
	uint16_t idx = vq->last_avail_idx, flags = head_flags;
	bool wrap = vq->avail_wrap;

	for (;;) {
		const struct vring_packed_desc *d = &vq->pdesc[idx];
		uint64_t addr = READ_ONCE(d->addr);
		uint32_t len = READ_ONCE(d->len);

		/* The buffer ID is the last descriptor's; read as we go. */
		elem->head = READ_ONCE(d->id);
		if (++count > limit)
			return VIRTQ_POP_BROKEN; /* runs into itself, or huge */
		elem->ndesc = (uint16_t)count;

		if (flags & VRING_DESC_F_INDIRECT) {
			/* A list is direct descriptors or one INDIRECT one,
			 * never both (virtio 1.1, 2.7.6).
			 */
			if (count > 1 || (flags & VRING_DESC_F_NEXT))
				return VIRTQ_POP_BROKEN;
			*ndesc = 1;
			return virtq_packed_table(vq, elem, &w, addr, len);
		}
		if (r == VIRTQ_POP_OK) {
			r = virtq_add_seg(vq, elem, &w, addr, len,
					  flags & VRING_DESC_F_WRITE);
			if (r == VIRTQ_POP_BROKEN)
				return r;
		}
		if (!(flags & VRING_DESC_F_NEXT))
			break;

		virtq_packed_step(vq, &idx, &wrap, 1);
		flags = READ_ONCE(vq->pdesc[idx].flags);
		/* The driver makes the whole chain available before its
		 * head: a descriptor that is not is a lie about the chain,
		 * or the end of what was published.
		 */
		if (!virtq_packed_is_avail(flags, wrap))
			return VIRTQ_POP_BROKEN;
	}
	*ndesc = count;
	return r;
}

/**
 * virtq_packed_one() - read a chain of one direct descriptor
 * @vq:		queue, head descriptor seen available
 * @elem:	element being built, empty
 * @flags:	the head's flags, read once: neither NEXT nor INDIRECT
 * @ndesc:	out: 1
 *
 * What virtq_packed_walk() does for such a chain, without its loop: the
 * one shape every driver uses for frames without offloads, and all of
 * an RX ring's buffers.
 *
 * Return: VIRTQ_POP_OK, DROP or BROKEN
 */
static enum virtq_pop_result virtq_packed_one(struct virtq *vq,
					      struct virtq_elem *elem,
					      uint16_t flags,
					      unsigned int *ndesc)
{
	const struct vring_packed_desc *d = &vq->pdesc[vq->last_avail_idx];
	struct virtq_walk w = { .table_num = vq->num };
	uint64_t addr = READ_ONCE(d->addr);
	uint32_t len = READ_ONCE(d->len);

	elem->head = READ_ONCE(d->id);
	elem->ndesc = 1;
	*ndesc = 1;
	return virtq_add_seg(vq, elem, &w, addr, len,
			     flags & VRING_DESC_F_WRITE);
}

/**
 * virtq_packed_pop() - take the next chain from the ring
 * @vq:		queue, ready
 * @elem:	filled with the chain's segments on OK, buffer ID on DROP
 *
 * Return: see enum virtq_pop_result; EMPTY also when VIRTQ_PACKED_INFLIGHT
 *	   chains are popped and not yet pushed
 */
enum virtq_pop_result virtq_packed_pop(struct virtq *vq,
				       struct virtq_elem *elem)
{
	enum virtq_pop_result r;
	unsigned int ndesc = 0;
	uint16_t flags;

	if (vq->inflight_num >= VIRTQ_PACKED_INFLIGHT)
		return VIRTQ_POP_EMPTY;
	flags = READ_ONCE(vq->pdesc[vq->last_avail_idx].flags);
	if (!virtq_packed_is_avail(flags, vq->avail_wrap))
		return VIRTQ_POP_EMPTY;
	/* Pairs with the driver's wmb before it stores the head's flags. */
	smp_rmb();

	elem->out_num = 0;
	elem->in_num = 0;
	elem->out_len = 0;
	elem->in_len = 0;
	elem->ndesc = 0;
	if (likely(!(flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT))))
		r = virtq_packed_one(vq, elem, flags, &ndesc);
	else
		r = virtq_packed_walk(vq, elem, flags, &ndesc);
	if (r == VIRTQ_POP_BROKEN) {
		vq->broken = true;
		return r;
	}
	if (r == VIRTQ_POP_DROP) {
		elem->out_num = elem->in_num = 0;
		elem->out_len = elem->in_len = 0;
	}
	vq->inflight[(vq->inflight_first + vq->inflight_num) %
		     VIRTQ_PACKED_INFLIGHT] = (uint16_t)ndesc;
	vq->inflight_num++;
	virtq_packed_step(vq, &vq->last_avail_idx, &vq->avail_wrap, ndesc);
	/* The chain was the first a count saw, unless the guest rewrote
	 * flags since: then what was seen no longer lines up, forget it.
	 */
	if (vq->seen_chains > 1 && vq->seen_desc > ndesc) {
		vq->seen_chains--;
		vq->seen_desc = (uint16_t)(vq->seen_desc - ndesc);
	} else {
		vq->seen_chains = 0;
		vq->seen_desc = 0;
	}
	vq->stat_pops++;
	return r;
}

/**
 * virtq_packed_pop_burst() - take up to @n chains, as many
 *			      virtq_packed_pop() calls would
 * @vq:		queue, ready
 * @elems:	where the i-th chain goes
 * @n:		most chains wanted
 * @descs:	most descriptors to read: no chain is started once the
 *		ones taken read that many (the last may go past it)
 * @last:	out: the result of the last chain looked at (OK if @n were
 *		taken, or @descs read)
 *
 * A chain of one direct descriptor, what every driver posts for frames
 * without offloads and for all of its RX buffers, is read here with no
 * call and no walk state: its flags, then (after the read barrier) its
 * buffer, which must lie wholly in the region the ring's last one did
 * (one segment, as virtq_add_seg() would make it), and the bookkeeping
 * (in-flight counts, seen chains, the pop counter) is done once for the
 * run.  Any other chain, an empty or a misplaced buffer included, goes
 * to virtq_packed_pop(), which applies every rule.  Nothing is read
 * ahead: where the run ends the next flags say so, and a packed ring has
 * no index to count with.
 *
 * Return: chains taken, OK or (the last one) DROP; stops after the first
 *	   chain that is not OK, or at an empty slot or a broken ring
 *	   (@last says which)
 */
unsigned int virtq_packed_pop_burst(struct virtq *vq,
				    struct virtq_elem *const *elems,
				    unsigned int n, unsigned int descs,
				    enum virtq_pop_result *last)
{
	enum virtq_pop_result r = VIRTQ_POP_OK;
	unsigned int i = 0;

	while (i < n && descs) {
		unsigned int room = MIN(MIN(n - i, descs), (unsigned int)
					(VIRTQ_PACKED_INFLIGHT -
					 vq->inflight_num));
		/* A run stops at the ring's end, so that neither the
		 * position nor the wrap counter moves inside the loop; the
		 * stores into @elems could alias @vq's fields, so the loop
		 * reads none of them.
		 */
		const struct vring_packed_desc *d = vq->pdesc +
						     vq->last_avail_idx;
		const uint16_t want = vq->avail_wrap ? PACKED_F_AVAIL :
						       PACKED_F_USED;
		struct virtq_elem *const *ep = elems + i;
		struct guest_mem_span span;
		unsigned int k, j, at;

		room = MIN(room, (unsigned int)(vq->num - vq->last_avail_idx));
		/* The region the ring's last buffer lay in: a buffer wholly
		 * inside it is one segment, what virtq_add_seg() makes of
		 * it through the same hint.
		 */
		guest_mem_span_of(vq->mem, vq->mem_hint, &span);
		for (k = 0; k < room; k++, d++) {
			uint16_t flags = READ_ONCE(d->flags);
			struct virtq_elem *e = ep[k];
			uint32_t len;
			void *buf;

			/* virtq_packed_is_avail(), with the wrap counter's
			 * pattern worked out once for the run
			 */
			if ((flags & (PACKED_F_AVAIL | PACKED_F_USED)) != want ||
			    (flags & (VRING_DESC_F_NEXT |
				      VRING_DESC_F_INDIRECT)))
				break;
			/* As in virtq_packed_pop(): flags first. */
			smp_rmb();
			len = READ_ONCE(d->len);
			buf = len ? guest_mem_span_ptr(&span,
						       READ_ONCE(d->addr), len)
				  : NULL;
			if (!buf)
				break;	/* virtq_packed_pop() says what */
			e->head = READ_ONCE(d->id);
			e->ndesc = 1;
			e->iov[0].iov_base = buf;
			e->iov[0].iov_len = len;
			if (flags & VRING_DESC_F_WRITE) {
				e->out_num = 0;
				e->in_num = 1;
				e->out_len = 0;
				e->in_len = len;
			} else {
				e->out_num = 1;
				e->in_num = 0;
				e->out_len = len;
				e->in_len = 0;
			}
		}
		/* Each took one ring descriptor. */
		at = vq->inflight_first + vq->inflight_num;
		for (j = 0; j < k; j++)
			vq->inflight[(at + j) % VIRTQ_PACKED_INFLIGHT] = 1;
		virtq_packed_step(vq, &vq->last_avail_idx, &vq->avail_wrap, k);
		vq->inflight_num = (uint16_t)(vq->inflight_num + k);
		vq->stat_pops += k;
		/* As k pops of one descriptor each would leave it. */
		if (vq->seen_chains > k && vq->seen_desc > k) {
			vq->seen_chains = (uint16_t)(vq->seen_chains - k);
			vq->seen_desc = (uint16_t)(vq->seen_desc - k);
		} else {
			vq->seen_chains = 0;
			vq->seen_desc = 0;
		}
		i += k;
		descs -= k;
		if (i == n || !descs)
			break;
		if (k && k == room)
			continue;	/* the ring's end: on to the next lap */
		/* Another shape, a bad buffer, the end, or a full table. */
		r = virtq_packed_pop(vq, elems[i]);
		if (r == VIRTQ_POP_EMPTY || r == VIRTQ_POP_BROKEN)
			break;
		descs -= MIN(descs, (unsigned int)elems[i]->ndesc);
		i++;
		if (r == VIRTQ_POP_DROP)
			break;
	}
	*last = r;
	return i;
}

/**
 * virtq_packed_unpop() - give back the last @n popped, not yet pushed,
 *			  chains
 * @vq:		queue
 * @n:		chains
 */
void virtq_packed_unpop(struct virtq *vq, unsigned int n)
{
	vq->seen_chains = 0;
	vq->seen_desc = 0;
	while (n-- && vq->inflight_num) {
		uint16_t k = vq->inflight[(vq->inflight_first +
					   vq->inflight_num - 1) %
					  VIRTQ_PACKED_INFLIGHT];

		vq->inflight_num--;
		if (vq->last_avail_idx >= k) {
			vq->last_avail_idx = (uint16_t)(vq->last_avail_idx - k);
		} else {
			vq->last_avail_idx =
				(uint16_t)(vq->last_avail_idx + vq->num - k);
			vq->avail_wrap = !vq->avail_wrap;
		}
	}
}

/**
 * virtq_packed_push() - write one used descriptor after the pending ones
 * @vq:		queue, ready
 * @id:		buffer ID from virtq_pop()
 * @len:	bytes written into the chain's writable buffers
 *
 * The oldest chain in flight is the one returned (pushes come in pop
 * order), so the used position moves on by its ring descriptors.  The
 * first pending descriptor's flags wait for virtq_packed_flush().
 *
 * With IN_ORDER, a buffer we wrote nothing into (TX) joins the pending
 * used descriptor before it if that one is such a batch too: the
 * descriptor then names this buffer, and the driver takes every buffer
 * up to it as used (virtio 1.1, 2.7.10).  Buffers with a length each get
 * their own, since a batch carries only the last one's.
 */
static inline void virtq_packed_push_one(struct virtq *vq, uint16_t id,
					 uint32_t len)
{
	struct vring_packed_desc *d;
	uint16_t flags, k;

	/* Our own bug if it happens: nothing the guest does leads here. */
	if (!vq->inflight_num)
		return;
	k = vq->inflight[vq->inflight_first];
	vq->inflight_first = (uint16_t)((vq->inflight_first + 1) %
					VIRTQ_PACKED_INFLIGHT);
	vq->inflight_num--;

	if (vq->batch_open && !len) {
		/* Not published yet: the driver waits at the first pending
		 * descriptor, so the ID can still change.
		 */
		WRITE_ONCE(vq->pdesc[vq->batch_pos].id, id);
		vq->pending_used++;
		virtq_packed_step(vq, &vq->push_idx, &vq->push_wrap, k);
		return;
	}
	vq->batch_open = vq->in_order && !len;
	vq->batch_pos = vq->push_idx;
	d = &vq->pdesc[vq->push_idx];
	WRITE_ONCE(d->id, id);
	WRITE_ONCE(d->len, len);
	flags = vq->push_wrap ? PACKED_F_AVAIL | PACKED_F_USED : 0;
	if (len)
		flags |= VRING_DESC_F_WRITE;	/* len is meaningful */
	if (vq->pending_used)
		WRITE_ONCE(d->flags, flags);
	else
		vq->first_flags = flags;
	vq->pending_used++;
	virtq_packed_step(vq, &vq->push_idx, &vq->push_wrap, k);
}

/**
 * virtq_packed_push_batch() - @n in-order chains, nothing written into
 *			       any, as one used descriptor
 * @vq:		queue, ready, IN_ORDER
 * @id:		buffer ID of the last of them
 * @n:		chains, in flight, not 0
 *
 * What @n virtq_packed_push_one() calls with length 0 leave behind: the
 * pending batch (or a new one) names the last buffer, and the used
 * position moves past every chain's descriptors.
 */
static void virtq_packed_push_batch(struct virtq *vq, uint16_t id,
				    unsigned int n)
{
	unsigned int k = 0;

	n = MIN(n, (unsigned int)vq->inflight_num);
	if (!n)
		return;		/* our own bug: see virtq_packed_push_one() */
	if (!vq->batch_open) {
		/* The first opens the batch where it lands; the rest join. */
		virtq_packed_push_one(vq, id, 0);
		n--;
	} else {
		WRITE_ONCE(vq->pdesc[vq->batch_pos].id, id);
	}
	while (n--) {
		k += vq->inflight[vq->inflight_first];
		vq->inflight_first = (uint16_t)((vq->inflight_first + 1) %
						VIRTQ_PACKED_INFLIGHT);
		vq->inflight_num--;
		vq->pending_used++;
	}
	/* k <= num: at most VIRTQ_PACKED_INFLIGHT chains were in flight,
	 * and their descriptors all fit in the ring at once.
	 */
	virtq_packed_step(vq, &vq->push_idx, &vq->push_wrap, k);
}

void virtq_packed_push(struct virtq *vq, uint16_t id, uint32_t len)
{
	virtq_packed_push_one(vq, id, len);
}

/**
 * virtq_packed_push_written() - virtq_packed_push_one() for chains with
 *				 bytes written into them, no batch open
 * @vq:		queue, ready, no in-order batch open
 * @ids:	buffer IDs, in pop order
 * @lens:	bytes written into each
 * @n:		chains
 *
 * Each gets a used descriptor of its own (WRITE set: its length counts),
 * written as virtq_packed_push_one() would, with the ring's state in
 * locals for the run.
 *
 * Return: chains pushed: up to the first of length 0, or the in-flight
 *	   table's end
 */
static unsigned int virtq_packed_push_written(struct virtq *vq,
					      const uint16_t *ids,
					      const uint32_t *lens,
					      unsigned int n)
{
	struct vring_packed_desc *ring = vq->pdesc;
	const uint16_t *inflight = vq->inflight;
	const uint16_t num = vq->num;
	unsigned int first = vq->inflight_first, i;
	uint16_t pos = vq->push_idx, last = pos;
	bool wrap = vq->push_wrap;
	uint16_t flags = (wrap ? PACKED_F_AVAIL | PACKED_F_USED : 0) |
			 VRING_DESC_F_WRITE;

	n = MIN(n, (unsigned int)vq->inflight_num);
	for (i = 0; i < n && lens[i]; i++) {
		struct vring_packed_desc *d = &ring[pos];
		unsigned int k = inflight[first];

		first = (first + 1) % VIRTQ_PACKED_INFLIGHT;
		WRITE_ONCE(d->id, ids[i]);
		WRITE_ONCE(d->len, lens[i]);
		/* The first pending one's flags publish the lot, last
		 * (virtq_packed_flush()).
		 */
		if (vq->pending_used || i)
			WRITE_ONCE(d->flags, flags);
		else
			vq->first_flags = flags;
		last = pos;
		pos = (uint16_t)(pos + k);
		if (pos >= num) {
			pos = (uint16_t)(pos - num);
			wrap = !wrap;
			flags ^= PACKED_F_AVAIL | PACKED_F_USED;
		}
	}
	if (!i)
		return 0;
	vq->inflight_first = (uint16_t)first;
	vq->inflight_num = (uint16_t)(vq->inflight_num - i);
	vq->pending_used = (uint16_t)(vq->pending_used + i);
	vq->push_idx = pos;
	vq->push_wrap = wrap;
	vq->batch_open = false;
	vq->batch_pos = last;
	return i;
}

/**
 * virtq_packed_push_burst() - virtq_packed_push() for @n chains
 * @vq:		queue, ready
 * @ids:	buffer IDs, in pop order
 * @lens:	bytes written into each, or NULL for none into any
 * @n:		chains
 */
void virtq_packed_push_burst(struct virtq *vq, const uint16_t *ids,
			     const uint32_t *lens, unsigned int n)
{
	unsigned int i;

	if (!lens && vq->in_order && n) {
		virtq_packed_push_batch(vq, ids[n - 1], n);
		return;
	}
	if (!lens) {
		for (i = 0; i < n; i++)
			virtq_packed_push_one(vq, ids[i], 0);
		return;
	}
	/* An open batch takes a buffer of length 0 or closes: one call. */
	i = 0;
	if (n && vq->batch_open) {
		virtq_packed_push_one(vq, ids[0], lens[0]);
		i = 1;
	}
	i += virtq_packed_push_written(vq, ids + i, lens + i, n - i);
	for (; i < n; i++)
		virtq_packed_push_one(vq, ids[i], lens[i]);
}

/**
 * virtq_packed_log_flushed() - mark the used descriptors about to be
 *				published, @used_idx up to @push_idx
 * @vq:		queue, logging
 *
 * The device writes the descriptor ring itself: those writes are the
 * packed layout's used ring, logged (with VHOST_VRING_F_LOG) where they
 * are, at the ring's guest address.  A chain of several descriptors has
 * only its first rewritten; marking the positions between costs nothing
 * more than the page they share.
 */
static void virtq_packed_log_flushed(struct virtq *vq)
{
	const uint64_t d = sizeof(struct vring_packed_desc);
	uint32_t span = (uint32_t)(vq->push_idx + vq->num - vq->used_idx) %
			vq->num;
	uint32_t head;

	if (!vq->log_used)
		return;
	if (!span)
		span = vq->num;		/* a whole lap */
	head = MIN(span, (uint32_t)(vq->num - vq->used_idx));
	dirty_log_gpa(vq->log, vq->desc_gpa + d * vq->used_idx, d * head);
	if (span > head)
		dirty_log_gpa(vq->log, vq->desc_gpa, d * (span - head));
}

/**
 * virtq_packed_flush() - publish the pending used descriptors
 * @vq:		queue, ready, with pending ones
 */
void virtq_packed_flush(struct virtq *vq)
{
	/* Pairs with the driver's rmb after it sees the first one's flags:
	 * every id, len and later flags written before are visible then.
	 */
	smp_wmb();
	WRITE_ONCE(vq->pdesc[vq->used_idx].flags, vq->first_flags);
	if (unlikely(vq->log))
		virtq_packed_log_flushed(vq);
	vq->used_idx = vq->push_idx;
	vq->used_wrap = vq->push_wrap;
	vq->pending_used = 0;
	vq->batch_open = false;	/* published: no longer ours to change */
}

/**
 * virtq_packed_lap() - a position as a distance from the start of a lap
 *			pair, so that two of them can be compared
 * @vq:		queue
 * @idx:	position (may be >= num if the guest wrote it)
 * @wrap:	wrap counter there
 *
 * Return: @idx on laps with the counter at 1, @idx + num on the others
 */
static uint32_t virtq_packed_lap(const struct virtq *vq, uint32_t idx,
				 bool wrap)
{
	return wrap ? idx : idx + vq->num;
}

/**
 * virtq_packed_should_notify() - whether the guest wants to hear of the
 *				  used descriptors published since the
 *				  last check
 * @vq:		queue, ready, after virtq_flush()
 *
 * Return: true if the guest should get an interrupt
 */
bool virtq_packed_should_notify(struct virtq *vq)
{
	uint32_t old, new, event, span = 2u * vq->num;
	uint16_t flags, off_wrap;
	bool valid;

	/* Pairs with the driver's mb between writing its event area and
	 * reading the next used descriptor: either it sees our flags or
	 * we see its request.
	 */
	smp_mb();
	old = virtq_packed_lap(vq, vq->signalled_used, vq->signalled_wrap);
	new = virtq_packed_lap(vq, vq->used_idx, vq->used_wrap);
	valid = vq->signalled_used_valid;
	vq->signalled_used = vq->used_idx;
	vq->signalled_wrap = vq->used_wrap;
	vq->signalled_used_valid = true;
	if (valid && old == new)
		return false;

	flags = READ_ONCE(vq->drv_event->flags);
	if (flags == VRING_PACKED_EVENT_FLAG_DISABLE)
		return false;
	/* ENABLE, a reserved mode, or DESC without the feature: notify. */
	if (flags != VRING_PACKED_EVENT_FLAG_DESC || !vq->event_idx || !valid)
		return true;
	off_wrap = READ_ONCE(vq->drv_event->off_wrap);
	if ((off_wrap & ~PACKED_WRAP_BIT) >= vq->num)
		return false;	/* a position we never write: never */
	event = virtq_packed_lap(vq, off_wrap & ~PACKED_WRAP_BIT,
				 off_wrap & PACKED_WRAP_BIT);
	/* Was a used descriptor written at @event, going from old to new?
	 * Distances run forward over the two laps the counter tells apart.
	 */
	return (event + span - old) % span < (new + span - old) % span;
}

/**
 * virtq_packed_enable_notify() - ask for kicks again and close the race
 * @vq:		queue, ready
 *
 * Return: true if a chain was made available meanwhile
 */
bool virtq_packed_enable_notify(struct virtq *vq)
{
	uint16_t flags;

	vq->notify_disabled = false;
	if (vq->event_idx) {
		WRITE_ONCE(vq->dev_event->off_wrap,
			   (uint16_t)(vq->last_avail_idx |
				      (vq->avail_wrap ? PACKED_WRAP_BIT : 0)));
		/* The offset first: the driver reads it after the mode. */
		smp_wmb();
		WRITE_ONCE(vq->dev_event->flags, VRING_PACKED_EVENT_FLAG_DESC);
	} else {
		WRITE_ONCE(vq->dev_event->flags,
			   VRING_PACKED_EVENT_FLAG_ENABLE);
	}
	virtq_log_used(vq, 0, sizeof(*vq->dev_event));
	/* Pairs with the driver's mb between making a descriptor available
	 * and reading our event area: it kicks, or we see the descriptor.
	 */
	smp_mb();
	flags = READ_ONCE(vq->pdesc[vq->last_avail_idx].flags);
	return virtq_packed_is_avail(flags, vq->avail_wrap);
}

/**
 * virtq_packed_disable_notify() - ask the guest not to kick while we poll
 * @vq:		queue, ready
 *
 * Best effort, as for split rings.
 */
void virtq_packed_disable_notify(struct virtq *vq)
{
	vq->notify_disabled = true;
	WRITE_ONCE(vq->dev_event->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	virtq_log_used(vq, 0, sizeof(*vq->dev_event));
}
