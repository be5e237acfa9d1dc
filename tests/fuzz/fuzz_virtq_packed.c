// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_virtq_packed.c - libFuzzer harness: arbitrary bytes as a guest's
 * packed ring
 *
 * The input becomes guest memory: a fake arena split into two adjacent
 * regions (so buffers cross region boundaries), holding the two event
 * suppression areas, the descriptor ring and buffers.  The harness pops
 * everything the "guest" offers, pushes it back in order, flushes,
 * notifies and toggles notifications, and traps if any iovec virtq_pop()
 * returns leaves the arena, if a pop is not bounded (more descriptors
 * read than a chain may have), or if the device's positions leave the
 * ring.
 *
 * Input: byte 0 = ring size - 1 (any size 1..256, powers of two or not),
 * byte 1 = feature bits (bit 0 event idx, bit 1 indirect, bit 2 start
 * with kicks off, bit 3 unpop once, bit 4 start on the lap with wrap
 * counters 0, bit 5 in order: chains without writable buffers are pushed
 * as batches, bit 6 pop and push in bursts of up to 8, bit 7 with a work
 * budget of 5 descriptors a burst), byte 2 = starting position (mod the
 * size), the rest is
 * copied into the arena: driver event area at 0, device event area at
 * 4, the ring from 16, so that short inputs already reach descriptors.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_arena.h"
#include "../../src/vhost/virtq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * check_elem() - what a pop returned stays within its limits
 * @vq:		queue
 * @e:		element of an OK or DROP pop
 * @r:		the pop's result
 */
static void check_elem(const struct virtq *vq, const struct virtq_elem *e,
		       enum virtq_pop_result r)
{
	unsigned int i;

	/* One INDIRECT descriptor and a full table, or a direct chain. */
	if (e->ndesc > VIRTQ_CHAIN_MAX + 1)
		__builtin_trap();
	if (vq->last_avail_idx >= vq->num || vq->push_idx >= vq->num ||
	    vq->used_idx >= vq->num)
		__builtin_trap();
	if (r != VIRTQ_POP_OK)
		return;
	if (e->out_num + e->in_num > VIRTQ_ELEM_IOV_MAX)
		__builtin_trap();
	for (i = 0; i < (unsigned int)(e->out_num + e->in_num); i++)
		if (!arena_iov_ok(&e->iov[i]))
			__builtin_trap();
}

/**
 * bursts() - the datapath's way: virtq_pop_burst(), virtq_push_burst()
 * @vq:		queue, mapped
 * @budget:	descriptors a burst may read
 *
 * Every chain taken is checked as a single pop's; a DROP ends a burst
 * and goes back with the rest, as the datapath does.
 */
static void bursts(struct virtq *vq, unsigned int budget)
{
	static struct virtq_elem es[8];
	struct virtq_elem *ep[8];
	uint32_t lens[8];
	uint16_t ids[8];
	unsigned int n, i, got;

	for (i = 0; i < 8; i++)
		ep[i] = &es[i];
	for (n = 0; n < 2u * vq->num + 4; n++) {
		enum virtq_pop_result last;

		got = virtq_pop_burst(vq, ep, 1 + n % 8, budget, &last);
		if (got > 1 + n % 8)
			__builtin_trap();
		for (i = 0; i < got; i++) {
			enum virtq_pop_result r = i + 1 == got ? last :
						  VIRTQ_POP_OK;

			check_elem(vq, &es[i], r);
			ids[i] = es[i].head;
			lens[i] = r == VIRTQ_POP_OK ? es[i].in_len : 0;
		}
		virtq_push_burst(vq, ids, (n & 1) ? lens : NULL, got);
		if ((n & 3) == 3) {
			virtq_flush(vq);
			virtq_notify(vq);
		}
		if (!got && last != VIRTQ_POP_OK)
			break;
	}
}

/**
 * LLVMFuzzerTestOneInput() - one ring
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtq_elem e;
	struct guest_mem m;
	struct virtq vq;
	unsigned int n;
	uint32_t base;

	if (size < 3)
		return 0;
	arena_map(&m, data + 3, size - 3);

	virtq_init(&vq);
	vq.packed = true;
	vq.num = (uint16_t)(data[0] + 1u);
	vq.event_idx = data[1] & 1;
	vq.indirect = data[1] & 2;
	vq.in_order = data[1] & 32;
	vq.avail_uva = UVA_BASE;
	vq.used_uva = UVA_BASE + 4;
	vq.desc_uva = UVA_BASE + 16;
	base = data[2] % vq.num;
	if (!(data[1] & 16))
		base |= 1u << 15;
	if (virtq_set_base(&vq, base) || virtq_map(&vq, &m))
		__builtin_trap();	/* the layout is ours and valid */

	if (data[1] & 4)
		virtq_disable_notify(&vq);
	if (data[1] & 64)
		bursts(&vq, data[1] & 128 ? 5 : UINT_MAX);
	for (n = 0; n < 2u * vq.num + 4 && !(data[1] & 64); n++) {
		enum virtq_pop_result r;

		virtq_prefetch(&vq, 8);
		r = virtq_pop(&vq, &e);
		if (r == VIRTQ_POP_EMPTY || r == VIRTQ_POP_BROKEN)
			break;
		check_elem(&vq, &e, r);
		if (r == VIRTQ_POP_OK && (data[1] & 8) && n == 0) {
			virtq_unpop(&vq, 1);
			continue;
		}
		virtq_prefetch_used(&vq, 1);
		virtq_push(&vq, e.head, r == VIRTQ_POP_OK ? e.in_len : 0);
		if ((n & 7) == 7) {
			virtq_flush(&vq);
			virtq_notify(&vq);
		}
	}
	virtq_flush(&vq);
	virtq_notify(&vq);
	virtq_enable_notify(&vq);
	virtq_avail_count(&vq);
	/* Stopped: the base names positions inside the ring. */
	base = virtq_get_base(&vq);
	if ((base & 0x7fff) >= vq.num || ((base >> 16) & 0x7fff) >= vq.num)
		__builtin_trap();
	guest_mem_clear(&m);
	return 0;
}
