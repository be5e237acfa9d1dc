/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virtq.h - device side of a virtqueue (split or packed) over untrusted
 * guest memory
 *
 * The ring is laid out by the guest and may be rewritten by it at any
 * moment.  Every field is read once (READ_ONCE) into a local, validated,
 * and only the local is used: indexes against the ring size, descriptor
 * addresses through guest_mem, chain lengths against the ring size,
 * indirect tables against their own length.  A violation marks the queue
 * broken (@broken), and the owner drops the device; nothing here aborts.
 *
 * Concurrency: a virtq has no lock of its own.  The owner (vu_dev) holds
 * the queue lock around every call here, so one thread at a time uses it.
 */
#ifndef VHOSTD_VIRTQ_H
#define VHOSTD_VIRTQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>

#include "dirty_log.h"
#include "guest_mem.h"

#define VIRTQ_MAX_SIZE		32768	/* virtio spec limit, split and packed */
#define VIRTQ_ELEM_IOV_MAX	64	/* segments of one chain we accept */
/* Buffer descriptors in one chain (ring ones and indirect table entries;
 * an INDIRECT descriptor, at most one, comes on top), and entries in an
 * indirect table: a pop reads at most one more than this.  The spec lets a
 * chain be as long as the ring (up to 32768, plus an indirect table as
 * long again), which costs a walk of ~340 us per pop; no virtio-net
 * driver comes near: Linux uses at most MAX_SKB_FRAGS + 2 descriptors per
 * frame (47 with CONFIG_MAX_SKB_FRAGS at its maximum of 45) plus one
 * INDIRECT, DPDK's virtio PMD at most 8 in a table.  A longer chain or
 * table breaks the ring (see doc/security.md, "Work per guest").
 */
#define VIRTQ_CHAIN_MAX		64
/* Packed rings: chains popped and not yet pushed.  The used descriptor of
 * a chain moves the device's used position on by the ring descriptors the
 * chain took, which only the pop knew: each popped chain's count waits
 * here, oldest first, for its push.  The datapath holds at most
 * PORT_VHOST_RX_BUFS (64) RX or SWITCH_BURST (32) TX chains at a time; a
 * pop with the table full finds the ring empty.
 */
#define VIRTQ_PACKED_INFLIGHT	256

/**
 * struct virtq_elem - one descriptor chain popped from the avail ring
 * @head:	head descriptor index (split) or buffer ID (packed), given
 *		back in the used ring
 * @out_num:	device-readable segments, in @iov[0 .. out_num)
 * @in_num:	device-writable segments, in @iov[out_num .. out_num+in_num)
 * @ndesc:	descriptors read to pop it (INDIRECT ones included), set
 *		on OK and DROP: the work the chain cost, for budgets
 * @out_len:	total bytes in the readable segments
 * @in_len:	total bytes in the writable segments
 * @iov:	host pointers into guest memory, each within one region
 */
struct virtq_elem {
	uint16_t head;
	uint16_t out_num;
	uint16_t in_num;
	uint16_t ndesc;
	uint32_t out_len;
	uint32_t in_len;
	struct iovec iov[VIRTQ_ELEM_IOV_MAX];
};

/**
 * enum virtq_pop_result - what virtq_pop() found
 * @VIRTQ_POP_EMPTY:	no new buffer in the avail ring
 * @VIRTQ_POP_OK:	@elem is a valid chain
 * @VIRTQ_POP_DROP:	the chain is unusable by us (more than
 *			VIRTQ_ELEM_IOV_MAX segments, readable after writable):
 *			@elem->head is valid and must be pushed back with
 *			length 0 and counted as a drop.  The walk stopped at
 *			the first such problem: the rest of the chain was not
 *			looked at
 * @VIRTQ_POP_BROKEN:	the ring itself is corrupt (including a chain or
 *			indirect table over VIRTQ_CHAIN_MAX descriptors);
 *			@broken is now set
 */
enum virtq_pop_result {
	VIRTQ_POP_EMPTY,
	VIRTQ_POP_OK,
	VIRTQ_POP_DROP,
	VIRTQ_POP_BROKEN,
};

/**
 * struct virtq - device view of one virtqueue
 * @num:		ring size (<= VIRTQ_MAX_SIZE; a power of two if split),
 *			0 if unset
 * @desc_uva:		front end address of the descriptor table (ring)
 * @avail_uva:		front end address of the avail ring (packed: the
 *			driver event suppression area)
 * @used_uva:		front end address of the used ring (packed: the
 *			device event suppression area)
 * @desc:		descriptor table, translated; NULL until mapped
 * @pdesc:		packed: the descriptor ring (same pointer as @desc)
 * @avail:		avail ring, translated
 * @drv_event:		packed: driver event suppression (read only by us)
 * @used:		used ring, translated
 * @dev_event:		packed: device event suppression (written by us)
 * @mem:		memory table the descriptors are translated through
 * @mem_hint:		region of @mem the last buffer lay in (a hint only,
 *			guest_mem_iov_hint())
 * @last_avail_idx:	next avail entry to consume (split: free running;
 *			packed: ring position, < @num)
 * @shadow_avail_idx:	avail->idx as last read; entries up to it are
 *			consumed without reading avail->idx again (split)
 * @used_idx:		used index last published to @used->idx (split);
 *			packed: position of the next used descriptor the
 *			guest will look at (first pending one)
 * @pending_used:	entries written by virtq_push() after @used_idx but
 *			not yet published by virtq_flush()
 * @signalled_used:	@used_idx value at the last interrupt (event idx)
 * @signalled_used_valid: @signalled_used is meaningful
 * @event_idx:		VIRTIO_RING_F_EVENT_IDX negotiated
 * @indirect:		VIRTIO_RING_F_INDIRECT_DESC negotiated
 * @notify_disabled:	we asked the guest not to kick
 * @broken:		a ring violation was seen; no further use
 * @in_order:		VIRTIO_F_IN_ORDER negotiated (packed: buffers pushed
 *			with length 0 share one used descriptor)
 * @packed:		VIRTIO_F_RING_PACKED negotiated: the fields below
 *			are used, and every call dispatches to
 *			virtq_packed.c (one predictable branch per call)
 * @avail_wrap:		packed: driver ring wrap counter expected at
 *			@last_avail_idx
 * @used_wrap:		packed: device ring wrap counter at @used_idx
 * @signalled_wrap:	packed: @used_wrap with @signalled_used
 * @push_wrap:		packed: device wrap counter at @push_idx
 * @push_idx:		packed: where the next virtq_push() writes
 * @first_flags:	packed: flags of the used descriptor at @used_idx,
 *			stored last by virtq_flush() to publish the batch
 * @batch_open:		packed, in order: the last pending used descriptor
 *			stands for buffers pushed with length 0, and the
 *			next such buffer joins it
 * @batch_pos:		packed, in order: that descriptor's position
 * @seen_chains:	packed: complete chains past @last_avail_idx that a
 *			count already saw available (a driver cannot take
 *			them back), so that the next count starts after them
 * @seen_desc:		packed: ring descriptors those chains take
 * @inflight_first:	packed: oldest entry of @inflight
 * @inflight_num:	packed: chains popped and not yet pushed
 * @inflight:		packed: ring descriptors each such chain took,
 *			oldest first (circular from @inflight_first)
 * @log:		the device's dirty log while migration logging is on
 *			(VHOST_F_LOG_ALL acked and a log mapped), else NULL:
 *			every byte written into guest memory is then marked
 *			(virtq_log_elem() for buffers, this file for rings)
 * @log_used:		VHOST_VRING_F_LOG: writes to the used ring (packed:
 *			the descriptor ring and device event area) are marked
 * @log_addr:		SET_VRING_ADDR's log_guest_addr: the guest address
 *			the used ring (packed: device area) is logged at
 * @desc_gpa:		packed: guest address of the descriptor ring, which
 *			the device writes too (logged there)
 * @call_fd:		eventfd to signal the guest, or -1
 * @stat_pops:		chains popped (for tests and counters)
 * @stat_notifies:	call_fd writes
 */
struct virtq {
	uint16_t num;
	uint64_t desc_uva;
	uint64_t avail_uva;
	uint64_t used_uva;
	union {
		struct vring_desc *desc;
		struct vring_packed_desc *pdesc;
	};
	union {
		struct vring_avail *avail;
		struct vring_packed_desc_event *drv_event;
	};
	union {
		struct vring_used *used;
		struct vring_packed_desc_event *dev_event;
	};
	const struct guest_mem *mem;
	unsigned int mem_hint;
	uint16_t last_avail_idx;
	uint16_t shadow_avail_idx;
	uint16_t used_idx;
	uint16_t pending_used;
	uint16_t signalled_used;
	bool signalled_used_valid;
	bool event_idx;
	bool indirect;
	bool notify_disabled;
	bool broken;
	bool in_order;
	bool packed;
	bool avail_wrap;
	bool used_wrap;
	bool signalled_wrap;
	bool push_wrap;
	uint16_t push_idx;
	uint16_t first_flags;
	bool batch_open;
	uint16_t batch_pos;
	uint16_t seen_chains;
	uint16_t seen_desc;
	uint16_t inflight_first;
	uint16_t inflight_num;
	struct dirty_log *log;
	bool log_used;
	uint64_t log_addr;
	uint64_t desc_gpa;
	int call_fd;
	uint64_t stat_pops;
	uint64_t stat_notifies;
	uint16_t inflight[VIRTQ_PACKED_INFLIGHT];
};

/*
 * Contract, in one place (kernel-doc on each function in virtq.c):
 * virtq_init()		zero state, call_fd = -1, no ring.
 * virtq_map()		translate desc/avail/used uvas through @mem for @num
 *			entries (sizes include the event-idx trailers), check
 *			alignment (16/2/4) and that each lies wholly in one
 *			region; sets @mem; reads @used->idx into @used_idx and,
 *			if it differs from @last_avail_idx (restart after a
 *			crash), resumes from @used->idx.  -EINVAL/-EFAULT on
 *			failure, ring left unmapped.
 * virtq_ready()		mapped and not broken.
 * virtq_avail_count()	new avail entries (0 if broken; an avail->idx more
 *			than @num ahead of @last_avail_idx breaks the ring).
 * virtq_prefetch()	hint: start loading the descriptors of the next @n
 *			chains (avail entries already published only);
 *			returns how many there are, up to @n.
 * virtq_pop()		next chain, following NEXT and (if negotiated)
 *			INDIRECT, every segment through guest_mem_iov().
 * virtq_pop_burst()	up to @n virtq_pop()s, stopping after the first
 *			that is not OK (a DROP is taken, the last) or
 *			once @descs descriptors were read.
 * virtq_unpop()		give back the last @n popped chains (not yet pushed).
 * virtq_push()		write one used element after the pending ones.
 * virtq_push_burst()	virtq_push() for @n chains (@lens NULL: all 0).
 * virtq_flush()		publish pending elements: wmb, then used->idx.
 * virtq_should_notify()	after a flush: whether the guest wants a call
 *			(NO_INTERRUPT flag, or used_event with event idx).
 * virtq_notify()		virtq_should_notify() and, if so, write @call_fd;
 *			true if it did.
 * virtq_enable_notify()	ask for kicks again (flags or avail_event), full
 *			barrier, return true if entries arrived meanwhile.
 * virtq_disable_notify()	ask the guest not to kick (best effort).
 * virtq_set_base()	SET_VRING_BASE: split, the next avail index (16
 *			bits); packed, bits 0-14 avail position, 15 avail
 *			wrap counter, 16-30 used position, 31 used wrap
 *			counter (0 in bits 16-31: used = avail).  -EINVAL
 *			for a split base over 16 bits.  Positions are
 *			checked against @num by virtq_map().
 * virtq_get_base()	GET_VRING_BASE, encoded the same way.
 * virtq_log_buf()	mark in @log the first @len bytes of a chain's
 *			writable segments (virtq_log_elem() checks @log).
 *
 * Packed rings (VIRTIO_F_RING_PACKED, @packed set before virtq_map()):
 * the same calls, with @desc the descriptor ring, @avail the driver event
 * area and @used the device event area (virtq_packed.c).  virtq_push()
 * must come in pop order (the datapath's only order): a chain's ring
 * descriptors are known from its pop, oldest first.  That order is also
 * what VIRTIO_F_IN_ORDER asks for, split or packed.
 */
void virtq_init(struct virtq *vq);
int virtq_map(struct virtq *vq, const struct guest_mem *mem);
bool virtq_ready(const struct virtq *vq);
unsigned int virtq_avail_count(struct virtq *vq);
unsigned int virtq_prefetch(struct virtq *vq, unsigned int n);
enum virtq_pop_result virtq_pop(struct virtq *vq, struct virtq_elem *elem);
unsigned int virtq_pop_burst(struct virtq *vq, struct virtq_elem *const *elems,
			     unsigned int n, unsigned int descs,
			     enum virtq_pop_result *last);
void virtq_unpop(struct virtq *vq, unsigned int n);
void virtq_push(struct virtq *vq, uint16_t head, uint32_t len);
void virtq_push_burst(struct virtq *vq, const uint16_t *ids,
		      const uint32_t *lens, unsigned int n);
void virtq_flush(struct virtq *vq);
bool virtq_should_notify(struct virtq *vq);
bool virtq_notify(struct virtq *vq);
void virtq_prefetch_used(struct virtq *vq, unsigned int n);
bool virtq_enable_notify(struct virtq *vq);
void virtq_disable_notify(struct virtq *vq);
int virtq_set_base(struct virtq *vq, uint32_t base);
uint32_t virtq_get_base(const struct virtq *vq);
void virtq_log_buf(struct virtq *vq, const struct virtq_elem *e, uint64_t len);

/**
 * virtq_log_elem() - mark what was written into a chain, if logging
 * @vq:		queue, locked
 * @e:		a chain popped from it
 * @len:	bytes written from the start of its writable segments
 *
 * Inline: the datapath asks once per buffer, and logging is off but for
 * the seconds a migration lasts.
 */
static inline void virtq_log_elem(struct virtq *vq, const struct virtq_elem *e,
				  uint64_t len)
{
	if (__builtin_expect(vq->log != NULL, 0))
		virtq_log_buf(vq, e, len);
}

#endif /* VHOSTD_VIRTQ_H */
