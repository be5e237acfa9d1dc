// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_ring.c - the driver side of a virtio 1.x split virtqueue, and the
 * calls every ring goes through (packed ones: vdrv_ring_packed.c)
 *
 * DOC: Theory of Operation
 *
 * The driver owns the descriptor table and the available ring; the device
 * owns the used ring.  To hand buffers over we write descriptors and avail
 * entries, then publish them all with one store of avail->idx (release:
 * the device reads the entries only after it read the index).  Whether to
 * kick is decided once per publish: after a full barrier we read either
 * used->flags (VRING_USED_F_NO_NOTIFY) or, with EVENT_IDX, the device's
 * avail_event, and kick only if the device asked for it -- so a burst costs
 * one index store and at most one eventfd write.
 *
 * Taking buffers back, we read used->idx (acquire), then the used entries.
 * The device is not trusted here either: each used id must name a head we
 * made available and still own, and the count of pending entries can never
 * exceed what is in flight.  Violations are counted in dev_errors and
 * reported as -EPROTO; the caller stops using the ring.
 *
 * Interrupt suppression mirrors kick suppression: disable_cb sets
 * VRING_AVAIL_F_NO_INTERRUPT (without EVENT_IDX), enable_cb clears it or
 * writes used_event = last_used, then re-checks used->idx after a full
 * barrier so a completion racing with the re-enable is not slept through.
 *
 * With VIRTIO_F_IN_ORDER (either layout) every used buffer must be the
 * oldest one in flight: the heads made available are remembered in
 * order, and a device that returns another is counted in dev_errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vdrv_priv.h"

/**
 * vdrv_ring_init() - allocate a ring in guest memory and its eventfds
 * @r:		ring to set up
 * @index:	vring index
 * @num:	queue size, power of two (split)
 * @stride:	descriptors per buffer (heads are multiples of it)
 * @flags:	VDRV_RING_EVENT_IDX, VDRV_RING_PACKED, VDRV_RING_IN_ORDER
 * @m:		guest memory; the ring goes into region 0
 * @stats:	counters to update
 *
 * Return: 0 or -errno
 */
int vdrv_ring_init(struct vdrv_ring *r, unsigned int index, uint16_t num,
		   uint16_t stride, unsigned int flags, struct vdrv_mem *m,
		   struct vdrv_stats *stats)
{
	uint64_t gpa;

	memset(r, 0, sizeof(*r));
	r->kick_fd = r->call_fd = r->err_fd = -1;
	r->index = index;
	r->num = num;
	r->stride = stride ? stride : 1;
	r->event_idx = flags & VDRV_RING_EVENT_IDX;
	r->packed = flags & VDRV_RING_PACKED;
	r->in_order = flags & VDRV_RING_IN_ORDER;
	r->stats = stats;

	r->inflight = calloc(num, sizeof(*r->inflight));
	r->cap = calloc(num, sizeof(*r->cap));
	r->order = calloc(num, sizeof(*r->order));
	if (!r->inflight || !r->cap || !r->order)
		goto err;
	if (r->packed) {
		if (vdrv_ring_packed_init(r, m))
			goto err;
		goto fds;
	}

	/* Page-aligned parts, as legacy devices require and all accept. */
	r->desc = vdrv_mem_alloc(m, 0, sizeof(struct vring_desc) * num, 4096,
				 &gpa);
	r->avail = vdrv_mem_alloc(m, 0, 4 + 2 * (uint64_t)num + 2, 4096, &gpa);
	r->used = vdrv_mem_alloc(m, 0, 4 + 8 * (uint64_t)num + 2, 4096, &gpa);
	if (!r->desc || !r->avail || !r->used)
		goto err;
	r->used_event = &r->avail->ring[num];
	r->avail_event = (uint16_t *)(void *)&r->used->ring[num];
	r->area[0] = r->desc;
	r->area[1] = r->avail;
	r->area[2] = r->used;

fds:
	r->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->call_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->err_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->kick_fd < 0 || r->call_fd < 0 || r->err_fd < 0)
		goto err;
	return 0;

err:
	vdrv_ring_fini(r);
	return -ENOMEM;
}

/**
 * vdrv_ring_fini() - release what vdrv_ring_init() allocated outside memory
 * @r:	ring
 */
void vdrv_ring_fini(struct vdrv_ring *r)
{
	free(r->inflight);
	free(r->cap);
	free(r->order);
	r->inflight = NULL;
	r->cap = NULL;
	r->order = NULL;
	if (r->packed) {
		free(r->desc);	/* the staging table is ours */
		free(r->p_chain);
		free(r->p_pend);
		r->desc = NULL;
		r->p_chain = NULL;
		r->p_pend = NULL;
	}
	if (r->kick_fd >= 0)
		close(r->kick_fd);
	if (r->call_fd >= 0)
		close(r->call_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	r->kick_fd = r->call_fd = r->err_fd = -1;
}

/**
 * vdrv_ring_add() - queue a buffer chain for the device, not yet published
 * @r:		ring
 * @head:	first descriptor of a chain already written
 *
 * Context: the caller owns @head (not in flight).
 */
void vdrv_ring_add(struct vdrv_ring *r, uint16_t head)
{
	if (r->packed) {
		vdrv_ring_packed_add(r, head);
	} else {
		r->avail->ring[r->avail_idx & (r->num - 1)] = head;
		r->avail_idx++;
	}
	if (r->in_order && r->order_n < r->num)
		r->order[(r->order_first + r->order_n++) % r->num] = head;
	r->inflight[head] = true;
	r->ninflight++;
}

/**
 * vdrv_ring_publish() - make queued buffers visible, decide about a kick
 * @r:	ring
 *
 * Return: true if the device wants a kick for what was just published
 */
bool vdrv_ring_publish(struct vdrv_ring *r)
{
	uint16_t old = r->kicked_idx, new = r->avail_idx;

	if (r->packed)
		return vdrv_ring_packed_publish(r);
	if (old == new)
		return false;
	/* Entries and descriptors before the index: pairs with the device's
	 * read barrier between reading avail->idx and the ring entries.
	 */
	vdrv_wmb();
	VDRV_WRITE_ONCE(r->avail->idx, new);
	r->kicked_idx = new;
	/* Index store before reading the device's hint: pairs with the
	 * device's full barrier between writing its hint (NO_NOTIFY or
	 * avail_event) and re-reading avail->idx before it sleeps.
	 */
	vdrv_mb();
	if (r->event_idx)
		return vring_need_event(VDRV_READ_ONCE(*r->avail_event), new,
					old);
	return !(VDRV_READ_ONCE(r->used->flags) & VRING_USED_F_NO_NOTIFY);
}

/**
 * vdrv_ring_kick() - notify the device through the kick eventfd
 * @r:	ring
 */
void vdrv_ring_kick(struct vdrv_ring *r)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is saturated: a kick is pending anyway. */
	if (write(r->kick_fd, &one, sizeof(one)) == sizeof(one))
		r->stats->kicks++;
}

/**
 * vdrv_ring_flush() - publish and kick if the device asks for it
 * @r:	ring
 */
void vdrv_ring_flush(struct vdrv_ring *r)
{
	bool added = r->packed ? r->p_batch : r->kicked_idx != r->avail_idx;

	if (vdrv_ring_publish(r))
		vdrv_ring_kick(r);
	else if (added)
		r->stats->kicks_suppressed++;
}

/**
 * vdrv_ring_used_pending() - used entries the device published, unconsumed
 * @r:	ring
 *
 * Return: count (0 when none), or -EPROTO if the device claims more
 * entries than we have in flight
 */
int vdrv_ring_used_pending(struct vdrv_ring *r)
{
	uint16_t n;

	if (r->packed)
		return vdrv_ring_packed_used_pending(r);
	n = (uint16_t)(VDRV_READ_ONCE(r->used->idx) - r->last_used);

	/* Entries after the index: pairs with the device's write barrier
	 * between filling used entries and storing used->idx.
	 */
	vdrv_rmb();
	if (n > r->ninflight) {
		/* A hostile or buggy device moved used->idx too far; we
		 * must not walk entries it never filled.
		 */
		r->stats->dev_errors++;
		return -EPROTO;
	}
	return n;
}

/**
 * vdrv_ring_used_get() - read and check one pending used entry
 * @r:		ring
 * @nth:	0 = next to consume; must be below vdrv_ring_used_pending()
 * @head:	out: descriptor head the device returned
 * @len:	out: bytes the device says it wrote
 *
 * Nothing changes; vdrv_ring_used_take() then takes the head back.
 *
 * Return: 0, or -EPROTO if the device returned a bad id or length
 */
int vdrv_ring_used_get(struct vdrv_ring *r, unsigned int nth, uint16_t *head,
		       uint32_t *len)
{
	const struct vring_used_elem *e;
	uint32_t id, l;

	if (r->packed) {
		if (vdrv_ring_packed_used_get(r, nth, head, len))
			return -EPROTO;
		return vdrv_ring_order_check(r, nth, *head) ? 0 : -EPROTO;
	}
	e = &r->used->ring[(uint16_t)(r->last_used + nth) & (r->num - 1)];
	id = VDRV_READ_ONCE(e->id);
	l = VDRV_READ_ONCE(e->len);

	/* An id that is no head of ours, or one we do not have in flight,
	 * would make us recycle a buffer twice.
	 */
	if (id >= r->num || id % r->stride || !r->inflight[id]) {
		r->stats->dev_errors++;
		return -EPROTO;
	}
	/* Claiming to have written more than the buffer holds. */
	if (l > r->cap[id]) {
		r->stats->dev_errors++;
		return -EPROTO;
	}
	*head = (uint16_t)id;
	*len = l;
	return vdrv_ring_order_check(r, nth, *head) ? 0 : -EPROTO;
}

/**
 * vdrv_ring_order_check() - with IN_ORDER, is @head the buffer expected
 * @r:		ring
 * @nth:	its place among the pending used entries
 * @head:	head the device returned there
 *
 * Return: true if in order (or IN_ORDER not negotiated); false, counted
 *	   in dev_errors, if the device used buffers out of order
 */
bool vdrv_ring_order_check(struct vdrv_ring *r, unsigned int nth,
			   uint16_t head)
{
	if (!r->in_order)
		return true;
	if (nth < r->order_n &&
	    r->order[(r->order_first + nth) % r->num] == head)
		return true;
	r->stats->dev_errors++;
	return false;
}

/**
 * vdrv_ring_used_take() - the device gave @head back: it is ours again
 * @r:		ring
 * @head:	head returned by vdrv_ring_used_get()
 *
 * Return: 0, or -EPROTO if @head was not in flight (returned twice)
 */
int vdrv_ring_used_take(struct vdrv_ring *r, uint16_t head)
{
	if (!r->inflight[head]) {
		r->stats->dev_errors++;
		return -EPROTO;
	}
	r->inflight[head] = false;
	r->ninflight--;
	return 0;
}

/**
 * vdrv_ring_used_consume() - advance past entries already taken
 * @r:		ring
 * @count:	entries
 */
void vdrv_ring_used_consume(struct vdrv_ring *r, unsigned int count)
{
	if (r->in_order) {
		if (count > r->order_n)
			count = r->order_n;
		r->order_first = (r->order_first + count) % r->num;
		r->order_n -= count;
	}
	if (r->packed)
		vdrv_ring_packed_used_consume(r, count);
	else
		r->last_used = (uint16_t)(r->last_used + count);
}

/**
 * vdrv_ring_used_end() - where the device's published used entries end
 * @r:	ring
 *
 * Return: split: used->idx; packed: the position after the last used
 *	   descriptor published, with the wrap counter in bit 15 (the
 *	   encoding of GET_VRING_BASE's avail half), or our used position
 *	   if the device broke the ring
 */
uint32_t vdrv_ring_used_end(struct vdrv_ring *r)
{
	uint32_t p;

	if (!r->packed)
		return __atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE);
	p = vdrv_ring_packed_used_end(r);
	return (p & 0xffff) | (p >> 16) << 15;
}

/**
 * vdrv_ring_enable_cb() - ask for a call at the next used entry
 * @r:	ring
 *
 * Return: true if entries are already pending (no call will come for them)
 */
bool vdrv_ring_enable_cb(struct vdrv_ring *r)
{
	if (r->packed)
		return vdrv_ring_packed_enable_cb(r);
	if (r->event_idx)
		VDRV_WRITE_ONCE(*r->used_event, r->last_used);
	else
		VDRV_WRITE_ONCE(r->avail->flags, r->avail->flags &
				(uint16_t)~VRING_AVAIL_F_NO_INTERRUPT);
	/* Hint before re-reading used->idx: pairs with the device's full
	 * barrier between storing used->idx and reading our hint.
	 */
	vdrv_mb();
	return VDRV_READ_ONCE(r->used->idx) != r->last_used;
}

/**
 * vdrv_ring_disable_cb() - tell the device we poll and need no call
 * @r:	ring
 *
 * With EVENT_IDX the stale used_event already stops calls once passed.
 */
void vdrv_ring_disable_cb(struct vdrv_ring *r)
{
	if (r->packed)
		vdrv_ring_packed_disable_cb(r);
	else if (!r->event_idx)
		VDRV_WRITE_ONCE(r->avail->flags, r->avail->flags |
				VRING_AVAIL_F_NO_INTERRUPT);
}
