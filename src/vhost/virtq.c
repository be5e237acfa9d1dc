// SPDX-License-Identifier: GPL-2.0-or-later
/* virtq.c - device side of a split virtqueue over untrusted guest memory
 *
 * DOC: Theory of Operation
 *
 * The guest (driver) owns the descriptor table and the avail ring; we
 * (device) own the used ring.  The guest may rewrite its part at any
 * moment, including while we walk a chain, so every field is read once
 * with READ_ONCE() into a local that is validated and then used; nothing
 * is read twice and trusted the second time.
 *
 * Failures come in two kinds.  A chain we cannot use but which does not
 * show a corrupt ring (too many segments, readable after writable) is a
 * DROP: the head goes back with length 0 and the guest carries on.  A
 * corrupt ring (index out of range, loop, bad indirect table, address
 * outside guest memory) is BROKEN: the queue refuses any further work and
 * the owner drops the device.
 *
 * A pop costs bounded work, whatever the guest wrote: the walk stops at
 * the first problem of either kind, and a chain may make us read at most
 * VIRTQ_CHAIN_MAX descriptors (a loop, or a chain no virtio-net driver
 * builds, is BROKEN at the next one).  The caller budgets by the
 * descriptors each pop read (virtq_elem.ndesc), so a guest whose chains
 * are long gets fewer of them per turn.
 *
 * Memory ordering pairs with the driver (Linux virtio_ring.c):
 *  - avail->idx is read, then smp_rmb(), then ring entries and descriptors
 *    (pairs with the driver's wmb between filling them and bumping idx);
 *  - used entries are written, then smp_wmb(), then used->idx (pairs with
 *    the driver's rmb after reading used->idx);
 *  - used->idx store, smp_mb(), then flags/used_event load when deciding
 *    to notify, and avail_event/flags store, smp_mb(), avail->idx load
 *    when re-enabling kicks (each pairs with the driver's mb on its side
 *    of the same race).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "../efd.h"
#include "../util.h"
#include "virtq_int.h"

/**
 * virtq_init() - reset a queue to "nothing configured"
 * @vq:		queue
 */
void virtq_init(struct virtq *vq)
{
	memset(vq, 0, sizeof(*vq));
	vq->call_fd = -1;
	virtq_packed_init(vq);
}

/**
 * virtq_used_event() - where the driver publishes used_event
 * @vq:		mapped queue
 *
 * Return: pointer to avail->ring[num]
 */
static uint16_t *virtq_used_event(const struct virtq *vq)
{
	return (uint16_t *)&vq->avail->ring[vq->num];
}

/**
 * virtq_avail_event() - where we publish avail_event
 * @vq:		mapped queue
 *
 * Return: pointer to the u16 after used->ring[num - 1]
 */
static uint16_t *virtq_avail_event(const struct virtq *vq)
{
	return (uint16_t *)&vq->used->ring[vq->num];
}

/**
 * virtq_map() - translate the ring addresses and (re)start from used->idx
 * @vq:		queue with @num and the three uvas set
 * @mem:	memory table to translate through (kept in @vq->mem)
 *
 * Return: 0, -EINVAL for a bad size or misaligned ring, -EFAULT if a ring
 *	   is not wholly inside one region.  On failure the ring is unmapped.
 */
int virtq_map(struct virtq *vq, const struct guest_mem *mem)
{
	uint64_t num = vq->num;
	void *desc, *avail, *used;

	if (vq->packed)
		return virtq_packed_map(vq, mem);
	vq->desc = NULL;
	vq->avail = NULL;
	vq->used = NULL;
	if (!num || num > VIRTQ_MAX_SIZE || (num & (num - 1)))
		return -EINVAL;
	if ((vq->desc_uva & 15) || (vq->avail_uva & 1) || (vq->used_uva & 3))
		return -EINVAL;

	/* Sizes include the event-idx trailers whether or not negotiated:
	 * drivers always allocate them, and it keeps one code path.
	 */
	desc = guest_mem_uva(mem, vq->desc_uva, 16 * num);
	avail = guest_mem_uva(mem, vq->avail_uva, 6 + 2 * num);
	used = guest_mem_uva(mem, vq->used_uva, 6 + 8 * num);
	if (!desc || !avail || !used)
		return -EFAULT;
	/* A region whose mmap_offset is odd shifts host addresses against
	 * front end ones: the rings must be aligned where we touch them.
	 */
	if (((uintptr_t)desc % _Alignof(struct vring_desc)) ||
	    ((uintptr_t)avail % _Alignof(struct vring_avail)) ||
	    ((uintptr_t)used % _Alignof(struct vring_used)))
		return -EINVAL;

	vq->desc = desc;
	vq->avail = avail;
	vq->used = used;
	vq->mem = mem;
	vq->used_idx = READ_ONCE(vq->used->idx);
	/* A back end that died with buffers in flight never returned them;
	 * the front end then hands us a base that disagrees with what the
	 * guest saw completed.  Resume where the used ring says we were.
	 */
	if (vq->used_idx != vq->last_avail_idx)
		vq->last_avail_idx = vq->used_idx;
	vq->shadow_avail_idx = vq->last_avail_idx;
	vq->pending_used = 0;
	vq->signalled_used_valid = false;
	vq->notify_disabled = false;
	return 0;
}

/**
 * virtq_ready() - whether the queue may be used
 * @vq:		queue
 *
 * Return: true if mapped and not broken
 */
bool virtq_ready(const struct virtq *vq)
{
	return vq->desc && !vq->broken;
}

/**
 * virtq_avail_refresh() - read the guest's avail index
 * @vq:		queue, ready
 *
 * Return: entries available; 0 (and the ring broken) if the guest claims
 *	   more than the ring holds
 */
static unsigned int virtq_avail_refresh(struct virtq *vq)
{
	uint16_t idx = READ_ONCE(vq->avail->idx);
	uint16_t n = (uint16_t)(idx - vq->last_avail_idx);

	if (n > vq->num) {
		vq->broken = true;
		return 0;
	}
	vq->shadow_avail_idx = idx;
	return n;
}

/**
 * virtq_avail_count() - new entries in the avail ring
 * @vq:		queue
 *
 * An avail->idx more than @num ahead of what we consumed cannot come from
 * a correct driver (it would overwrite entries we have not read): the
 * ring is broken.
 *
 * Return: entries available, 0 if none or broken
 */
unsigned int virtq_avail_count(struct virtq *vq)
{
	uint16_t n;

	if (!virtq_ready(vq))
		return 0;
	if (unlikely(vq->packed))
		return virtq_packed_avail_count(vq);
	/* Entries already seen need no look at avail->idx, a cache line
	 * the guest writes all the time: read it only when they run out.
	 */
	n = (uint16_t)(vq->shadow_avail_idx - vq->last_avail_idx);
	if (n && n <= vq->num)
		return n;
	return virtq_avail_refresh(vq);
}

/**
 * virtq_prefetch() - start loading the descriptors of the next chains
 * @vq:		queue
 * @n:		chains about to be popped
 *
 * A burst pops chains one after the other, and each pop waits for its
 * descriptor's cache line, which the guest's CPU wrote last: on hosts
 * where moving a line between cores costs hundreds of nanoseconds, those
 * waits in series are the per-frame cost.  Asking for all of them first
 * lets the misses overlap.  Only a hint: a head read here is not
 * trusted (virtq_pop() reads and checks it again), an out-of-range one
 * is simply skipped.
 *
 * Return: chains published and not yet popped, at most @n (0: nothing
 *	   to pop, the caller may skip the burst)
 */
unsigned int virtq_prefetch(struct virtq *vq, unsigned int n)
{
	unsigned int avail, i;

	if (unlikely(vq->packed))
		return virtq_packed_prefetch(vq, n);
	avail = virtq_avail_count(vq);
	if (n > avail)
		n = avail;
	if (!n)
		return 0;
	smp_rmb();
	for (i = 0; i < n; i++) {
		uint16_t head = READ_ONCE(vq->avail->ring[
				(uint16_t)(vq->last_avail_idx + i) &
				(vq->num - 1)]);

		if (head < vq->num)
			__builtin_prefetch(&vq->desc[head]);
	}
	return n;
}

/**
 * virtq_prefetch_used() - ask for the used-ring lines the next pushes write
 * @vq:		queue
 * @n:		used entries about to be pushed
 *
 * The used ring is ours, but the driver reads it, so its lines sit in the
 * driver CPU's cache: ask for them for writing (prefetch_w()) before the
 * pushes rather than have each push wait.  Entries are 8 bytes, 8 to a
 * line.  Not the index line: a polling driver reads it in a loop, and
 * taking it early only makes the line cross twice.
 */
void virtq_prefetch_used(struct virtq *vq, unsigned int n)
{
	uint16_t at = (uint16_t)(vq->used_idx + vq->pending_used);
	unsigned int i;

	if (!n || !virtq_ready(vq))
		return;
	if (unlikely(vq->packed)) {
		virtq_packed_prefetch_used(vq, n);
		return;
	}
	if (n > vq->num)
		n = vq->num;
	for (i = 0; i < n; i += 8)
		prefetch_w(&vq->used->ring[(uint16_t)(at + i) & (vq->num - 1)]);
	prefetch_w(&vq->used->ring[(uint16_t)(at + n - 1) & (vq->num - 1)]);
}

/**
 * virtq_chain_limit() - how many buffer descriptors a chain may have
 * @count:	buffer descriptors walked so far
 * @table_num:	entries in the table the walk continues in
 *
 * More than @table_num further descriptors in one table means one was
 * visited twice: a loop the guest built to keep us spinning.  And no
 * chain may go past VIRTQ_CHAIN_MAX, loop or not.
 *
 * Return: the highest count the walk may reach
 */
static uint32_t virtq_chain_limit(uint32_t count, uint32_t table_num)
{
	return MIN(count + table_num, VIRTQ_CHAIN_MAX);
}

/**
 * virtq_walk_chain() - follow a chain from descriptor @i, filling @elem
 * @vq:		queue
 * @elem:	element being built (head already set)
 * @i:		first descriptor, < vq->num
 *
 * Return: VIRTQ_POP_OK, DROP or BROKEN
 */
static enum virtq_pop_result virtq_walk_chain(struct virtq *vq,
					      struct virtq_elem *elem,
					      uint32_t i)
{
	struct virtq_walk w = {
		.table = vq->desc, .table_num = vq->num,
	};
	uint32_t count = 0, limit = virtq_chain_limit(0, vq->num);

	for (;;) {
		const struct vring_desc *d = &w.table[i];
		uint64_t addr = READ_ONCE(d->addr);
		uint32_t len = READ_ONCE(d->len);
		uint16_t flags = READ_ONCE(d->flags);
		uint16_t next = READ_ONCE(d->next);
		enum virtq_pop_result r;

		/* A loop, or a chain longer than any driver builds. */
		if (++count > limit)
			return VIRTQ_POP_BROKEN;
		elem->ndesc = (uint16_t)(count + w.indirect);

		if (flags & VRING_DESC_F_INDIRECT) {
			/* Nested tables, NEXT beside INDIRECT, and tables
			 * that are empty or ragged are forbidden by the
			 * spec; we take none longer than a chain either.
			 */
			if (!vq->indirect || w.indirect ||
			    (flags & VRING_DESC_F_NEXT) || !len ||
			    len % sizeof(struct vring_desc) ||
			    len / sizeof(struct vring_desc) > VIRTQ_CHAIN_MAX)
				return VIRTQ_POP_BROKEN;
			/* Descriptors are 16-byte structs; an unaligned
			 * table would make them misaligned host accesses.
			 */
			if (addr & 15)
				return VIRTQ_POP_BROKEN;
			w.table = guest_mem_gpa(vq->mem, addr, len);
			if (!w.table || ((uintptr_t)w.table %
					 _Alignof(struct vring_desc)))
				return VIRTQ_POP_BROKEN;
			w.table_num = len / sizeof(struct vring_desc);
			w.indirect = true;
			/* The INDIRECT descriptor holds no buffer: the
			 * table's entries count in its place.
			 */
			limit = virtq_chain_limit(--count, w.table_num);
			i = 0;
			continue;
		}

		r = virtq_add_seg(vq, elem, &w, addr, len,
				  flags & VRING_DESC_F_WRITE);
		if (r != VIRTQ_POP_OK)
			return r;

		if (!(flags & VRING_DESC_F_NEXT))
			return VIRTQ_POP_OK;
		if (next >= w.table_num)
			return VIRTQ_POP_BROKEN;
		i = next;
	}
}

/**
 * virtq_pop() - take the next descriptor chain from the avail ring
 * @vq:		queue
 * @elem:	filled with the chain's segments on OK, head on DROP
 *
 * Return: see enum virtq_pop_result
 */
enum virtq_pop_result virtq_pop(struct virtq *vq, struct virtq_elem *elem)
{
	enum virtq_pop_result r;
	uint16_t head;

	if (!virtq_ready(vq))
		return vq->broken ? VIRTQ_POP_BROKEN : VIRTQ_POP_EMPTY;
	if (unlikely(vq->packed))
		return virtq_packed_pop(vq, elem);
	if (!virtq_avail_count(vq))
		return vq->broken ? VIRTQ_POP_BROKEN : VIRTQ_POP_EMPTY;

	/* Pairs with the driver's wmb between ring[] and avail->idx. */
	smp_rmb();
	head = READ_ONCE(vq->avail->ring[vq->last_avail_idx & (vq->num - 1)]);
	if (head >= vq->num) {
		vq->broken = true;
		return VIRTQ_POP_BROKEN;
	}

	elem->head = head;
	elem->out_num = 0;
	elem->in_num = 0;
	elem->out_len = 0;
	elem->in_len = 0;
	elem->ndesc = 0;
	r = virtq_walk_chain(vq, elem, head);
	if (r == VIRTQ_POP_BROKEN) {
		vq->broken = true;
		return r;
	}
	if (r == VIRTQ_POP_DROP) {
		elem->out_num = elem->in_num = 0;
		elem->out_len = elem->in_len = 0;
	}
	vq->last_avail_idx++;
	vq->stat_pops++;
	return r;
}

/**
 * virtq_pop_burst() - take up to @n chains, as @n virtq_pop() calls would
 * @vq:		queue
 * @elems:	where the i-th chain goes
 * @n:		most chains wanted
 * @descs:	most descriptors to read (a chain's @ndesc): no chain is
 *		started once the ones taken read that many, so the last
 *		may go past it, as a caller popping one by one against a
 *		work budget would
 * @last:	out: the result of the last chain looked at (OK if @n were
 *		taken, or @descs read)
 *
 * Stops after the first chain that is not OK: a DROP is taken (it is
 * the last of the chains counted, to push back empty), EMPTY and BROKEN
 * are not.  Split rings have the descriptors of the chains available
 * asked for first (virtq_prefetch()), so that their misses overlap;
 * packed rings take their one-descriptor chains without a call each
 * (virtq_packed_pop_burst()).
 *
 * Return: chains taken
 */
unsigned int virtq_pop_burst(struct virtq *vq, struct virtq_elem *const *elems,
			     unsigned int n, unsigned int descs,
			     enum virtq_pop_result *last)
{
	enum virtq_pop_result r = VIRTQ_POP_OK;
	unsigned int i;

	if (vq->packed && virtq_ready(vq))
		return virtq_packed_pop_burst(vq, elems, n, descs, last);
	/* Split: the avail entries first, and every chain's head asked
	 * for, so that the descriptors' misses overlap.
	 */
	*last = VIRTQ_POP_OK;
	if (!n || !descs)
		return 0;
	n = virtq_prefetch(vq, MIN(n, descs));
	if (!n) {
		*last = vq->broken ? VIRTQ_POP_BROKEN : VIRTQ_POP_EMPTY;
		return 0;
	}
	for (i = 0; i < n && descs; i++) {
		r = virtq_pop(vq, elems[i]);
		if (r == VIRTQ_POP_EMPTY || r == VIRTQ_POP_BROKEN)
			break;
		descs -= MIN(descs, (unsigned int)elems[i]->ndesc);
		if (r == VIRTQ_POP_DROP) {
			i++;
			break;
		}
	}
	*last = r;
	return i;
}

/**
 * virtq_unpop() - give back the last @n popped, not yet pushed, chains
 * @vq:		queue
 * @n:		chains
 */
void virtq_unpop(struct virtq *vq, unsigned int n)
{
	if (vq->packed) {
		virtq_packed_unpop(vq, n);
		return;
	}
	vq->last_avail_idx = (uint16_t)(vq->last_avail_idx - n);
}

/**
 * virtq_push() - write one used element after the pending ones
 * @vq:		queue
 * @head:	head descriptor index from virtq_pop()
 * @len:	bytes written into the chain's writable buffers
 *
 * Not visible to the guest until virtq_flush().
 */
void virtq_push(struct virtq *vq, uint16_t head, uint32_t len)
{
	struct vring_used_elem *e;

	if (!virtq_ready(vq))
		return;
	if (unlikely(vq->packed)) {
		virtq_packed_push(vq, head, len);
		return;
	}
	e = &vq->used->ring[(uint16_t)(vq->used_idx + vq->pending_used) &
			    (vq->num - 1)];
	WRITE_ONCE(e->id, head);
	WRITE_ONCE(e->len, len);
	vq->pending_used++;
}

/**
 * virtq_push_burst() - virtq_push() for @n chains, in pop order
 * @vq:		queue
 * @ids:	head indexes (split) or buffer IDs (packed)
 * @lens:	bytes written into each chain, or NULL for none into any
 * @n:		chains
 */
void virtq_push_burst(struct virtq *vq, const uint16_t *ids,
		      const uint32_t *lens, unsigned int n)
{
	unsigned int i;

	if (!virtq_ready(vq))
		return;
	if (unlikely(vq->packed)) {
		virtq_packed_push_burst(vq, ids, lens, n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct vring_used_elem *e = &vq->used->ring[
			(uint16_t)(vq->used_idx + vq->pending_used) &
			(vq->num - 1)];

		WRITE_ONCE(e->id, ids[i]);
		WRITE_ONCE(e->len, lens ? lens[i] : 0);
		vq->pending_used++;
	}
}

/**
 * virtq_log_flushed() - mark the used entries and index just published
 * @vq:		split queue, logging
 * @first:	used index of the first entry
 * @n:		entries
 */
static void virtq_log_flushed(struct virtq *vq, uint16_t first, uint16_t n)
{
	const uint64_t ring = offsetof(struct vring_used, ring);
	const uint64_t elem = sizeof(struct vring_used_elem);
	uint16_t pos = first & (vq->num - 1);
	uint16_t head = MIN(n, (uint16_t)(vq->num - pos));

	virtq_log_used(vq, ring + elem * pos, elem * head);
	if (n > head)
		virtq_log_used(vq, ring, elem * (n - head));
	virtq_log_used(vq, offsetof(struct vring_used, idx), sizeof(uint16_t));
}

/**
 * virtq_flush() - publish the pending used elements with one idx store
 * @vq:		queue
 */
void virtq_flush(struct virtq *vq)
{
	uint16_t first;

	if (!virtq_ready(vq) || !vq->pending_used)
		return;
	if (unlikely(vq->packed)) {
		virtq_packed_flush(vq);
		return;
	}
	/* Pairs with the driver's rmb after it reads used->idx. */
	smp_wmb();
	first = vq->used_idx;
	vq->used_idx = (uint16_t)(vq->used_idx + vq->pending_used);
	WRITE_ONCE(vq->used->idx, vq->used_idx);
	if (unlikely(vq->log))
		virtq_log_flushed(vq, first, vq->pending_used);
	vq->pending_used = 0;
}

/**
 * virtq_should_notify() - whether the guest asked to be told of new used
 *			   entries published since the last check
 * @vq:		queue, after virtq_flush()
 *
 * Return: true if the guest should get an interrupt
 */
bool virtq_should_notify(struct virtq *vq)
{
	uint16_t old, new, event;
	bool valid;

	if (!virtq_ready(vq))
		return false;
	if (vq->packed)
		return virtq_packed_should_notify(vq);
	/* Pairs with the driver's mb between writing used_event/flags and
	 * reading used->idx: either it sees our idx or we see its request.
	 */
	smp_mb();

	old = vq->signalled_used;
	valid = vq->signalled_used_valid;
	new = vq->used_idx;
	vq->signalled_used = new;
	vq->signalled_used_valid = true;
	if (valid && old == new)
		return false;		/* nothing new since last time */

	if (!vq->event_idx)
		return !(READ_ONCE(vq->avail->flags) &
			 VRING_AVAIL_F_NO_INTERRUPT);
	if (!valid)
		return true;
	event = READ_ONCE(*virtq_used_event(vq));
	/* Did used->idx step over used_event, moving from old to new? */
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

/**
 * virtq_notify() - interrupt the guest if it wants one, all under one lock
 * @vq:		queue, after virtq_flush()
 *
 * For single-threaded users (tests, fuzzers).  The datapath splits this
 * in two so that the write happens outside the queue lock:
 * vu_queue_call_take() and vu_queue_call_give().
 *
 * Return: true if the guest was signalled
 */
bool virtq_notify(struct virtq *vq)
{
	if (!virtq_should_notify(vq) || vq->call_fd < 0)
		return false;
	/* A full eventfd counter (2^64 - 2) already means "interrupt". */
	if (efd_signal(vq->call_fd) < 0)
		return false;
	vq->stat_notifies++;
	return true;
}

/**
 * virtq_enable_notify() - ask for kicks again and close the race
 * @vq:		queue
 *
 * Return: true if entries arrived while kicks were off: the caller must
 *	   poll again rather than sleep
 */
bool virtq_enable_notify(struct virtq *vq)
{
	if (!virtq_ready(vq))
		return false;
	if (vq->packed)
		return virtq_packed_enable_notify(vq);
	vq->notify_disabled = false;
	if (vq->event_idx) {
		WRITE_ONCE(*virtq_avail_event(vq), vq->last_avail_idx);
		virtq_log_used(vq, (uint64_t)((uint8_t *)virtq_avail_event(vq) -
					      (uint8_t *)vq->used),
			       sizeof(uint16_t));
	} else {
		WRITE_ONCE(vq->used->flags, 0);
		virtq_log_used(vq, offsetof(struct vring_used, flags),
			       sizeof(uint16_t));
	}
	/* Pairs with the driver's mb between avail->idx store and reading
	 * flags/avail_event: either it kicks or we see its new entries.
	 */
	smp_mb();
	return virtq_avail_refresh(vq) > 0;
}

/**
 * virtq_disable_notify() - ask the guest not to kick while we poll
 * @vq:		queue
 *
 * Best effort: the guest may kick anyway.  With event idx nothing is
 * written: a stale avail_event is already behind the guest's avail->idx,
 * so the guest will not kick until it wraps round to it.
 */
void virtq_disable_notify(struct virtq *vq)
{
	if (!virtq_ready(vq))
		return;
	if (vq->packed) {
		virtq_packed_disable_notify(vq);
		return;
	}
	vq->notify_disabled = true;
	if (!vq->event_idx) {
		WRITE_ONCE(vq->used->flags, VRING_USED_F_NO_NOTIFY);
		virtq_log_used(vq, offsetof(struct vring_used, flags),
			       sizeof(uint16_t));
	}
}

/**
 * virtq_set_base() - SET_VRING_BASE: where the ring resumes
 * @vq:		queue, stopped; @packed already set (SET_FEATURES comes
 *		first)
 * @base:	the front end's value, see virtq.h
 *
 * Packed positions are checked against @num by virtq_map(), since the
 * front end may send the size after the base.
 *
 * Return: 0, or -EINVAL for a split base that does not fit 16 bits
 */
int virtq_set_base(struct virtq *vq, uint32_t base)
{
	if (!vq->packed) {
		if (base > UINT16_MAX)
			return -EINVAL;	/* split rings have 16-bit indexes */
		vq->last_avail_idx = (uint16_t)base;
		vq->shadow_avail_idx = (uint16_t)base;
		vq->used_idx = (uint16_t)base;
		return 0;
	}
	vq->last_avail_idx = base & 0x7fff;
	vq->avail_wrap = base & (1u << 15);
	/* Front ends that predate the used half send zero there.  The
	 * state it would stand for (used position 0, wrap counter 0) with
	 * an avail position elsewhere means chains in flight, which no
	 * device of ours ever leaves at a stop: used = avail loses nothing.
	 */
	if (base >> 16) {
		vq->used_idx = (base >> 16) & 0x7fff;
		vq->used_wrap = base & (1u << 31);
	} else {
		vq->used_idx = vq->last_avail_idx;
		vq->used_wrap = vq->avail_wrap;
	}
	return 0;
}

/**
 * virtq_get_base() - GET_VRING_BASE: where the ring stopped
 * @vq:		queue, stopped
 *
 * Return: the next avail index (split), or the packed encoding (virtq.h)
 */
uint32_t virtq_get_base(const struct virtq *vq)
{
	if (!vq->packed)
		return vq->last_avail_idx;
	return (uint32_t)vq->last_avail_idx |
	       (uint32_t)vq->avail_wrap << 15 |
	       (uint32_t)vq->used_idx << 16 |
	       (uint32_t)vq->used_wrap << 31;
}

/**
 * virtq_log_buf() - mark what was written into a chain's buffers
 * @vq:		queue, locked, with @log set (virtq_log_elem())
 * @e:		a chain popped from it
 * @len:	bytes written from the start of its writable segments
 *
 * Context: the queue's lock held, after the writes
 */
void virtq_log_buf(struct virtq *vq, const struct virtq_elem *e, uint64_t len)
{
	dirty_log_iov(vq->log, vq->mem, &e->iov[e->out_num], e->in_num, len);
}
