// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_ring.c - the driver side of a virtio 1.x split virtqueue
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
 * @num:	queue size, power of two
 * @stride:	descriptors per buffer (heads are multiples of it)
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 * @m:		guest memory; the ring goes into region 0
 * @stats:	counters to update
 *
 * Return: 0 or -errno
 */
int vdrv_ring_init(struct vdrv_ring *r, unsigned int index, uint16_t num,
		   uint16_t stride, bool event_idx, struct vdrv_mem *m,
		   struct vdrv_stats *stats)
{
	uint64_t gpa;

	memset(r, 0, sizeof(*r));
	r->kick_fd = r->call_fd = r->err_fd = -1;
	r->index = index;
	r->num = num;
	r->stride = stride ? stride : 1;
	r->event_idx = event_idx;
	r->stats = stats;

	/* Page-aligned parts, as legacy devices require and all accept. */
	r->desc = vdrv_mem_alloc(m, 0, sizeof(struct vring_desc) * num, 4096,
				 &gpa);
	r->avail = vdrv_mem_alloc(m, 0, 4 + 2 * (uint64_t)num + 2, 4096, &gpa);
	r->used = vdrv_mem_alloc(m, 0, 4 + 8 * (uint64_t)num + 2, 4096, &gpa);
	if (!r->desc || !r->avail || !r->used)
		return -ENOMEM;
	r->used_event = &r->avail->ring[num];
	r->avail_event = (uint16_t *)(void *)&r->used->ring[num];

	r->inflight = calloc(num, sizeof(*r->inflight));
	r->cap = calloc(num, sizeof(*r->cap));
	if (!r->inflight || !r->cap)
		goto err;

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
	r->inflight = NULL;
	r->cap = NULL;
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
	r->avail->ring[r->avail_idx & (r->num - 1)] = head;
	r->avail_idx++;
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
	uint16_t before = r->kicked_idx;

	if (vdrv_ring_publish(r))
		vdrv_ring_kick(r);
	else if (before != r->avail_idx)
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
	uint16_t n = (uint16_t)(VDRV_READ_ONCE(r->used->idx) - r->last_used);

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
	const struct vring_used_elem *e =
		&r->used->ring[(uint16_t)(r->last_used + nth) & (r->num - 1)];
	uint32_t id = VDRV_READ_ONCE(e->id);
	uint32_t l = VDRV_READ_ONCE(e->len);

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
	return 0;
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
	r->last_used = (uint16_t)(r->last_used + count);
}

/**
 * vdrv_ring_enable_cb() - ask for a call at the next used entry
 * @r:	ring
 *
 * Return: true if entries are already pending (no call will come for them)
 */
bool vdrv_ring_enable_cb(struct vdrv_ring *r)
{
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
	if (!r->event_idx)
		VDRV_WRITE_ONCE(r->avail->flags, r->avail->flags |
				VRING_AVAIL_F_NO_INTERRUPT);
}
