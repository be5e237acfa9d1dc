// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_virtq.c - libFuzzer harness: arbitrary bytes as a guest's ring
 *
 * The input becomes guest memory: a fake arena split into two adjacent
 * regions (so chains cross region boundaries), holding the descriptor
 * table, avail ring, used ring and buffers.  The harness pops everything
 * the "guest" offers, pushes it back, flushes, notifies and toggles
 * notifications, and traps if any iovec virtq_pop() returns leaves the
 * arena.
 *
 * Input: byte 0 = log2(ring size) (mod 9), byte 1 = feature bits (bit 0
 * event idx, bit 1 indirect, bit 2 start with kicks off, bit 3 unpop
 * once), the rest is copied into the arena.  The rings are packed at the
 * start of the arena (avail, used, descriptors) so that short inputs
 * already reach avail->idx and the descriptors.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_arena.h"
#include "../../src/vhost/virtq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	unsigned int i, n;

	if (size < 2)
		return 0;
	arena_map(&m, data + 2, size - 2);

	virtq_init(&vq);
	vq.num = (uint16_t)(1u << (data[0] % 9));
	vq.event_idx = data[1] & 1;
	vq.indirect = data[1] & 2;
	vq.avail_uva = UVA_BASE;
	vq.used_uva = UVA_BASE + ((6 + 2u * vq.num + 3) & ~3u);
	vq.desc_uva = (vq.used_uva + 6 + 8u * vq.num + 15) & ~15ull;
	if (virtq_map(&vq, &m))
		__builtin_trap();	/* the layout is ours and valid */

	if (data[1] & 4)
		virtq_disable_notify(&vq);
	for (n = 0; n < 2u * vq.num + 4; n++) {
		enum virtq_pop_result r = virtq_pop(&vq, &e);

		if (r == VIRTQ_POP_EMPTY || r == VIRTQ_POP_BROKEN)
			break;
		if (r == VIRTQ_POP_OK) {
			if (e.out_num + e.in_num > VIRTQ_ELEM_IOV_MAX)
				__builtin_trap();
			for (i = 0; i < (unsigned int)(e.out_num + e.in_num);
			     i++)
				if (!arena_iov_ok(&e.iov[i]))
					__builtin_trap();
		}
		if (r == VIRTQ_POP_OK && (data[1] & 8) && n == 0) {
			virtq_unpop(&vq, 1);
			continue;
		}
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
	guest_mem_clear(&m);
	return 0;
}
