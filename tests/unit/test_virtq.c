// SPDX-License-Identifier: GPL-2.0-or-later
/* test_virtq.c - split virtqueue, device side, in a fake guest arena
 *
 * The test plays the driver: it lays out the descriptor table, avail and
 * used rings in a malloc'd arena registered with guest_mem_add_mapped(),
 * builds chains by hand (the wire structs come from linux/virtio_ring.h;
 * no ring logic is shared with the code under test), then checks what
 * virtq_pop() makes of them, including every ring violation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <cmocka.h>

#include "../../src/vhost/virtq.h"
#include "virtq_arena.h"

#define DESC_OFF	0x0
#define AVAIL_OFF	0x8000
#define USED_OFF	0x10000

/**
 * struct drv - the test's driver side of one ring
 * @arena:	guest memory
 * @m:		memory table holding the arena
 * @vq:		device side under test
 * @num:	ring size
 * @desc:	descriptor table in the arena
 * @avail:	avail ring in the arena
 * @used:	used ring in the arena
 */
struct drv {
	uint8_t *arena;
	struct guest_mem m;
	struct virtq vq;
	uint16_t num;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
};

static struct drv d;

/**
 * drv_setup() - fresh arena and ring of @num entries, mapped
 * @num:	ring size
 * @event_idx:	negotiate VIRTIO_RING_F_EVENT_IDX
 * @indirect:	negotiate VIRTIO_RING_F_INDIRECT_DESC
 */
static void drv_setup(uint16_t num, bool event_idx, bool indirect)
{
	assert_int_equal(arena_reset(&d.arena, &d.m), 0);
	d.num = num;
	d.desc = (struct vring_desc *)(d.arena + DESC_OFF);
	d.avail = (struct vring_avail *)(d.arena + AVAIL_OFF);
	d.used = (struct vring_used *)(d.arena + USED_OFF);
	virtq_init(&d.vq);
	d.vq.num = num;
	d.vq.desc_uva = UVA_BASE + DESC_OFF;
	d.vq.avail_uva = UVA_BASE + AVAIL_OFF;
	d.vq.used_uva = UVA_BASE + USED_OFF;
	d.vq.event_idx = event_idx;
	d.vq.indirect = indirect;
	assert_int_equal(virtq_map(&d.vq, &d.m), 0);
}

/**
 * drv_write_chain() - write @n descriptors linked from index @first
 * @table:	descriptor table to write into
 * @first:	index of the first one; the rest follow consecutively
 * @segs:	descriptors
 * @n:		count
 */
static void drv_write_chain(struct vring_desc *table, uint16_t first,
			    const struct seg *segs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct vring_desc *x = &table[first + i];

		x->addr = GPA_BASE + segs[i].off;
		x->len = segs[i].len;
		x->flags = segs[i].flags;
		if (i + 1 < n) {
			x->flags |= VRING_DESC_F_NEXT;
			x->next = (uint16_t)(first + i + 1);
		}
	}
}

/**
 * drv_publish() - put @head in the avail ring and bump avail->idx
 * @head:	chain head
 */
static void drv_publish(uint16_t head)
{
	uint16_t idx = d.avail->idx;

	d.avail->ring[idx % d.num] = head;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d.avail->idx = (uint16_t)(idx + 1);
}

/**
 * drv_add() - write a chain at @first and publish it
 * @first:	head index
 * @segs:	descriptors
 * @n:		count
 */
static void drv_add(uint16_t first, const struct seg *segs, unsigned int n)
{
	drv_write_chain(d.desc, first, segs, n);
	drv_publish(first);
}

static void test_pop_push_flush(void **state)
{
	const struct seg out[] = {
		{ BUF_OFF, 100, 0 }, { BUF_OFF + 0x1000, 50, 0 },
	};
	const struct seg in[] = {
		{ BUF_OFF + 0x2000, 1500, VRING_DESC_F_WRITE },
	};
	struct virtq_elem e;

	drv_setup(16, false, false);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);
	drv_add(0, out, 2);
	drv_add(5, in, 1);
	assert_int_equal(virtq_avail_count(&d.vq), 2);

	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 0);
	assert_int_equal(e.out_num, 2);
	assert_int_equal(e.in_num, 0);
	assert_int_equal(e.out_len, 150);
	assert_ptr_equal(e.iov[0].iov_base, d.arena + BUF_OFF);
	assert_int_equal(e.iov[1].iov_len, 50);

	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 5);
	assert_int_equal(e.out_num, 0);
	assert_int_equal(e.in_num, 1);
	assert_int_equal(e.in_len, 1500);
	assert_ptr_equal(e.iov[0].iov_base, d.arena + BUF_OFF + 0x2000);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);

	/* unpop hands the last one back */
	virtq_unpop(&d.vq, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 5);

	virtq_push(&d.vq, 0, 0);
	virtq_push(&d.vq, 5, 1400);
	assert_int_equal(d.used->idx, 0);	/* batched: not yet visible */
	virtq_flush(&d.vq);
	assert_int_equal(d.used->idx, 2);
	assert_int_equal(d.used->ring[0].id, 0);
	assert_int_equal(d.used->ring[1].id, 5);
	assert_int_equal(d.used->ring[1].len, 1400);
	assert_int_equal(d.vq.stat_pops, 3);
}

/* virtq_prefetch() counts without consuming, caps at @n, ignores heads
 * out of range (only virtq_pop() judges them) and reports a runaway
 * avail->idx as 0 with the ring broken, like virtq_avail_count().
 */
static void test_prefetch(void **state)
{
	const struct seg s[] = { { BUF_OFF, 64, 0 } };
	struct virtq_elem e;

	drv_setup(8, false, false);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 0);
	drv_add(0, s, 1);
	drv_add(1, s, 1);
	drv_add(2, s, 1);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 3);
	assert_int_equal(virtq_prefetch(&d.vq, 2), 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 0);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 2);

	drv_publish(200);	/* bad head: a hint skips it, pop breaks */
	/* Entries already seen are counted without re-reading avail->idx. */
	assert_int_equal(virtq_prefetch(&d.vq, 32), 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 1);
	assert_false(d.vq.broken);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);

	drv_setup(8, false, false);
	d.avail->idx = 9;	/* more than the ring ahead */
	assert_int_equal(virtq_prefetch(&d.vq, 32), 0);
	assert_true(d.vq.broken);
}

static void test_wrap(void **state)
{
	const struct seg s[] = { { BUF_OFF, 10, VRING_DESC_F_WRITE } };
	struct virtq_elem e;
	unsigned int i;

	drv_setup(4, false, false);
	/* run the 16-bit indexes over their wrap point */
	d.avail->idx = 65530;
	d.used->idx = 65530;
	assert_int_equal(virtq_map(&d.vq, &d.m), 0);
	assert_int_equal(d.vq.last_avail_idx, 65530);
	for (i = 0; i < 20; i++) {
		drv_add((uint16_t)(i % 4), s, 1);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		assert_int_equal(e.head, i % 4);
		virtq_push(&d.vq, e.head, 10);
		virtq_flush(&d.vq);
	}
	assert_int_equal(d.used->idx, (uint16_t)(65530 + 20));
}

static void test_indirect(void **state)
{
	const struct seg tbl[] = {
		{ BUF_OFF, 12, 0 }, { BUF_OFF + 0x100, 64, 0 },
		{ BUF_OFF + 0x200, 2048, VRING_DESC_F_WRITE },
	};
	struct vring_desc *ind;
	struct virtq_elem e;

	drv_setup(8, false, true);
	ind = (struct vring_desc *)(d.arena + BUF_OFF + 0x4000);
	drv_write_chain(ind, 0, tbl, 3);
	d.desc[2].addr = GPA_BASE + BUF_OFF + 0x4000;
	d.desc[2].len = 3 * sizeof(struct vring_desc);
	d.desc[2].flags = VRING_DESC_F_INDIRECT;
	drv_publish(2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 2);
	assert_int_equal(e.out_num, 2);
	assert_int_equal(e.in_num, 1);
	assert_int_equal(e.out_len, 76);
	assert_int_equal(e.in_len, 2048);
	assert_ptr_equal(e.iov[2].iov_base, d.arena + BUF_OFF + 0x200);

	/* a direct descriptor chained to an indirect one is fine too */
	d.desc[3] = (struct vring_desc){ GPA_BASE + BUF_OFF, 4,
					 VRING_DESC_F_NEXT, 2 };
	drv_publish(3);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_num, 3);
	assert_int_equal(e.out_len, 80);

	/* not negotiated: the guest broke the rules */
	d.vq.indirect = false;
	drv_publish(2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_true(d.vq.broken);
}

/**
 * expect_broken() - set up, let @fn corrupt the ring, expect BROKEN
 * @fn:		writes the bad chain
 * @indirect:	negotiate indirect descriptors
 */
static void expect_broken(void (*fn)(void), bool indirect)
{
	struct virtq_elem e;

	drv_setup(8, false, indirect);
	fn();
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_true(d.vq.broken);
	assert_false(virtq_ready(&d.vq));
	/* once broken, nothing more happens */
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	virtq_push(&d.vq, 0, 0);
	virtq_flush(&d.vq);
	assert_int_equal(d.used->idx, 0);
	assert_int_equal(virtq_avail_count(&d.vq), 0);
}

static void bad_head(void)
{
	d.avail->ring[0] = 8;
	d.avail->idx = 1;
}

static void bad_next(void)
{
	d.desc[0] = (struct vring_desc){ GPA_BASE + BUF_OFF, 1,
					 VRING_DESC_F_NEXT, 8 };
	drv_publish(0);
}

static void loop_chain(void)
{
	d.desc[0] = (struct vring_desc){ GPA_BASE + BUF_OFF, 1,
					 VRING_DESC_F_NEXT, 1 };
	d.desc[1] = (struct vring_desc){ GPA_BASE + BUF_OFF, 1,
					 VRING_DESC_F_NEXT, 0 };
	drv_publish(0);
}

static void self_loop_zero_len(void)
{
	d.desc[3] = (struct vring_desc){ 0, 0, VRING_DESC_F_NEXT, 3 };
	drv_publish(3);
}

static void unmapped_addr(void)
{
	d.desc[0] = (struct vring_desc){ 0x1000, 64, 0, 0 };
	drv_publish(0);
}

static void crosses_arena_end(void)
{
	d.desc[0] = (struct vring_desc){ GPA_BASE + ARENA_SIZE - 8, 64, 0, 0 };
	drv_publish(0);
}

static void len_overflow(void)
{
	/* each segment alone fits in 32 bits, the sum does not */
	d.desc[0] = (struct vring_desc){ GPA_BASE, 0xfffffff0u,
					 VRING_DESC_F_NEXT, 1 };
	d.desc[1] = (struct vring_desc){ GPA_BASE, 0x20, 0, 0 };
	drv_publish(0);
}

static void avail_too_far(void)
{
	d.avail->idx = 9;	/* 9 > num entries since last_avail_idx 0 */
}

static void ind_set(uint64_t off, uint32_t len, uint16_t flags)
{
	d.desc[0] = (struct vring_desc){ GPA_BASE + off, len,
					 (uint16_t)(VRING_DESC_F_INDIRECT | flags),
					 1 };
	drv_publish(0);
}

static void ind_ragged(void)
{
	ind_set(BUF_OFF, 24, 0);
}

static void ind_empty(void)
{
	ind_set(BUF_OFF, 0, 0);
}

static void ind_with_next(void)
{
	ind_set(BUF_OFF, 16, VRING_DESC_F_NEXT);
}

static void ind_unaligned(void)
{
	ind_set(BUF_OFF + 8, 16, 0);
}

static void ind_unmapped(void)
{
	d.desc[0] = (struct vring_desc){ 0x2000, 16, VRING_DESC_F_INDIRECT, 0 };
	drv_publish(0);
}

static void ind_nested(void)
{
	struct vring_desc *ind = (struct vring_desc *)(d.arena + BUF_OFF);

	ind[0] = (struct vring_desc){ GPA_BASE + BUF_OFF, 16,
				      VRING_DESC_F_INDIRECT, 0 };
	ind_set(BUF_OFF, 16, 0);
}

static void ind_loop(void)
{
	struct vring_desc *ind = (struct vring_desc *)(d.arena + BUF_OFF);

	ind[0] = (struct vring_desc){ GPA_BASE, 1, VRING_DESC_F_NEXT, 1 };
	ind[1] = (struct vring_desc){ GPA_BASE, 1, VRING_DESC_F_NEXT, 0 };
	ind_set(BUF_OFF, 32, 0);
}

static void ind_bad_next(void)
{
	struct vring_desc *ind = (struct vring_desc *)(d.arena + BUF_OFF);

	ind[0] = (struct vring_desc){ GPA_BASE, 1, VRING_DESC_F_NEXT, 2 };
	ind_set(BUF_OFF, 32, 0);
}

static void ind_huge(void)
{
	ind_set(BUF_OFF, (VIRTQ_MAX_SIZE + 1) * 16, 0);
}

static void test_violations(void **state)
{
	expect_broken(bad_head, false);
	expect_broken(bad_next, false);
	expect_broken(loop_chain, false);
	expect_broken(self_loop_zero_len, false);
	expect_broken(unmapped_addr, false);
	expect_broken(crosses_arena_end, false);
	expect_broken(len_overflow, false);
	expect_broken(avail_too_far, false);
	expect_broken(ind_ragged, true);
	expect_broken(ind_empty, true);
	expect_broken(ind_with_next, true);
	expect_broken(ind_unaligned, true);
	expect_broken(ind_unmapped, true);
	expect_broken(ind_nested, true);
	expect_broken(ind_loop, true);
	expect_broken(ind_bad_next, true);
	expect_broken(ind_huge, true);
}

/**
 * drv_split_arena() - map the arena as two regions meeting at @split
 * @split:	offset where the second region starts
 *
 * A buffer crossing @split then needs two segments, so a chain can have
 * more segments than descriptors.
 */
static void drv_split_arena(uint64_t split)
{
	guest_mem_init(&d.m);
	assert_int_equal(guest_mem_add_mapped(&d.m, d.arena, GPA_BASE, split,
					      UVA_BASE), 0);
	assert_int_equal(guest_mem_add_mapped(&d.m, d.arena + split,
					      GPA_BASE + split,
					      ARENA_SIZE - split,
					      UVA_BASE + split), 0);
	assert_int_equal(virtq_map(&d.vq, &d.m), 0);
}

static void test_drops(void **state)
{
	const struct seg bad_order[] = {
		{ BUF_OFF, 10, VRING_DESC_F_WRITE }, { BUF_OFF + 0x100, 10, 0 },
	};
	const struct seg good[] = { { BUF_OFF, 10, 0 } };
	struct seg many[VIRTQ_ELEM_IOV_MAX];
	struct virtq_elem e;
	unsigned int i;

	drv_setup(128, false, false);
	drv_split_arena(BUF_OFF + (VIRTQ_ELEM_IOV_MAX - 1) * 16 + 8);
	drv_add(0, bad_order, 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
	assert_int_equal(e.head, 0);
	assert_int_equal(e.out_num + e.in_num, 0);
	assert_false(d.vq.broken);

	/* 64 descriptors, the last one crossing into the second region: 65
	 * segments, one more than a chain may have.
	 */
	for (i = 0; i < VIRTQ_ELEM_IOV_MAX; i++)
		many[i] = (struct seg){ BUF_OFF + i * 16, 16, 0 };
	drv_add(10, many, VIRTQ_ELEM_IOV_MAX);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
	assert_int_equal(e.head, 10);
	assert_int_equal(e.ndesc, VIRTQ_ELEM_IOV_MAX);

	/* exactly the limit is fine */
	many[VIRTQ_ELEM_IOV_MAX - 1].len = 8;
	drv_add(10, many, VIRTQ_ELEM_IOV_MAX);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_num, VIRTQ_ELEM_IOV_MAX);

	/* the queue keeps working after drops */
	drv_add(100, good, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 100);
	virtq_push(&d.vq, 0, 0);
	virtq_push(&d.vq, 10, 0);
	virtq_push(&d.vq, 10, 0);
	virtq_push(&d.vq, 100, 0);
	virtq_flush(&d.vq);
	assert_int_equal(d.used->idx, 4);
}

/* The walk ends at the first reason to drop: what follows it is never
 * read, however broken, so a hostile chain costs only its prefix.
 */
static void test_drop_stops_walk(void **state)
{
	struct virtq_elem e;
	unsigned int i;

	drv_setup(128, false, true);
	drv_split_arena(BUF_OFF + 8);
	/* writable, then readable (drop), then a NEXT out of the ring */
	d.desc[0] = (struct vring_desc){ GPA_BASE + BUF_OFF, 10,
					 VRING_DESC_F_WRITE | VRING_DESC_F_NEXT,
					 1 };
	d.desc[1] = (struct vring_desc){ GPA_BASE + BUF_OFF, 10,
					 VRING_DESC_F_NEXT, 1000 };
	drv_publish(0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
	assert_int_equal(e.ndesc, 2);
	assert_false(d.vq.broken);

	/* two segments per descriptor (each crosses into the second
	 * region): 64 in 32 descriptors, then a loop back to the head
	 */
	for (i = 0; i < VIRTQ_CHAIN_MAX; i++)
		d.desc[20 + i] = (struct vring_desc){
			GPA_BASE + BUF_OFF, 16, VRING_DESC_F_NEXT,
			(uint16_t)(20 + i + 1) };
	d.desc[20 + VIRTQ_CHAIN_MAX - 1].next = 20;
	drv_publish(20);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
	assert_int_equal(e.ndesc, VIRTQ_ELEM_IOV_MAX / 2 + 1);
	assert_false(d.vq.broken);
}

/**
 * long_chain() - publish a ring chain of @n readable descriptors at 0
 * @n:		length
 */
static void long_chain(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		d.desc[i] = (struct vring_desc){
			GPA_BASE + BUF_OFF + i, 1,
			(uint16_t)(i + 1 < n ? VRING_DESC_F_NEXT : 0),
			(uint16_t)(i + 1) };
	drv_publish(0);
}

/**
 * ind_chain() - publish @nring ring descriptors then an INDIRECT one to a
 *		 table of @nind chained readable entries, head 0
 * @nring:	plain descriptors before the INDIRECT one
 * @nind:	table entries (the table is at BUF_OFF + 0x8000)
 */
static void ind_chain(unsigned int nring, unsigned int nind)
{
	struct vring_desc *ind = (struct vring_desc *)(d.arena + BUF_OFF +
						       0x8000);
	unsigned int i;

	for (i = 0; i < nind; i++)
		ind[i] = (struct vring_desc){
			GPA_BASE + BUF_OFF + i, 1,
			(uint16_t)(i + 1 < nind ? VRING_DESC_F_NEXT : 0),
			(uint16_t)(i + 1) };
	for (i = 0; i < nring; i++)
		d.desc[i] = (struct vring_desc){ GPA_BASE + BUF_OFF, 1,
						 VRING_DESC_F_NEXT,
						 (uint16_t)(i + 1) };
	d.desc[nring] = (struct vring_desc){ GPA_BASE + BUF_OFF + 0x8000,
					     nind * 16, VRING_DESC_F_INDIRECT,
					     0 };
	drv_publish(0);
}

/* No chain may have more than VIRTQ_CHAIN_MAX buffer descriptors, nor an
 * indirect table more entries, whatever the ring size: a longer one is a
 * violation, found after reading at most one descriptor past the limit.
 */
static void test_chain_limits(void **state)
{
	struct virtq_elem e;

	drv_setup(256, false, true);
	long_chain(VIRTQ_CHAIN_MAX);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_num, VIRTQ_CHAIN_MAX);
	assert_int_equal(e.ndesc, VIRTQ_CHAIN_MAX);

	drv_setup(256, false, true);
	long_chain(VIRTQ_CHAIN_MAX + 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);

	/* the case: 255 descriptors in a 256-entry ring */
	drv_setup(256, false, true);
	long_chain(255);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);

	/* a loop in a ring larger than the limit ends at the limit */
	drv_setup(256, false, false);
	d.desc[0] = (struct vring_desc){ GPA_BASE + BUF_OFF, 0,
					 VRING_DESC_F_NEXT, 1 };
	d.desc[1] = (struct vring_desc){ GPA_BASE + BUF_OFF, 0,
					 VRING_DESC_F_NEXT, 0 };
	drv_publish(0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);

	/* INDIRECT alone: a full table is fine, the INDIRECT not counted */
	drv_setup(256, false, true);
	ind_chain(0, VIRTQ_CHAIN_MAX);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_num, VIRTQ_CHAIN_MAX);
	assert_int_equal(e.ndesc, VIRTQ_CHAIN_MAX + 1);

	/* ring descriptors and table entries add up */
	drv_setup(256, false, true);
	ind_chain(1, VIRTQ_CHAIN_MAX - 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_num, VIRTQ_CHAIN_MAX);
	drv_setup(256, false, true);
	ind_chain(2, VIRTQ_CHAIN_MAX - 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);

	/* a table larger than a chain is refused before it is walked */
	drv_setup(256, false, true);
	ind_chain(0, VIRTQ_CHAIN_MAX + 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	/* the case: a 32768-entry table (512 KiB, past the arena
	 * here: refused for its size before anything is translated)
	 */
	drv_setup(256, false, true);
	ind_set(BUF_OFF, VIRTQ_MAX_SIZE * 16, 0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
}

/**
 * push_n() - pop, push and flush @n single-descriptor chains
 * @n:		chains
 */
static void push_n(unsigned int n)
{
	const struct seg s[] = { { BUF_OFF, 10, VRING_DESC_F_WRITE } };
	struct virtq_elem e;

	while (n--) {
		drv_add(0, s, 1);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		virtq_push(&d.vq, e.head, 10);
	}
	virtq_flush(&d.vq);
}

static void test_notify_flags(void **state)
{
	uint64_t cnt;
	int efd;

	drv_setup(8, false, false);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(efd >= 0);
	d.vq.call_fd = efd;

	push_n(1);
	assert_true(virtq_should_notify(&d.vq));
	assert_false(virtq_should_notify(&d.vq));	/* nothing new */

	d.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	push_n(1);
	virtq_notify(&d.vq);
	assert_int_equal(d.vq.stat_notifies, 0);
	assert_int_equal(read(efd, &cnt, sizeof(cnt)), -1);

	d.avail->flags = 0;
	push_n(2);
	virtq_notify(&d.vq);
	assert_int_equal(d.vq.stat_notifies, 1);
	assert_int_equal(read(efd, &cnt, sizeof(cnt)), sizeof(cnt));
	assert_int_equal(cnt, 1);
	close(efd);
}

static void test_notify_event_idx(void **state)
{
	uint16_t *used_event;

	drv_setup(8, true, false);
	used_event = (uint16_t *)&d.avail->ring[8];

	push_n(1);			/* used 0 -> 1, first check: yes */
	assert_true(virtq_should_notify(&d.vq));

	*used_event = 4;		/* "tell me when entry 4 is used" */
	push_n(2);			/* 1 -> 3 */
	assert_false(virtq_should_notify(&d.vq));
	push_n(1);			/* 3 -> 4: 4 not yet used */
	assert_false(virtq_should_notify(&d.vq));
	push_n(1);			/* 4 -> 5: crossed */
	assert_true(virtq_should_notify(&d.vq));
	push_n(3);			/* 5 -> 8, event 4 is behind */
	assert_false(virtq_should_notify(&d.vq));

	*used_event = 8;
	push_n(4);			/* 8 -> 12: batch steps over 8 */
	assert_true(virtq_should_notify(&d.vq));
	/* NO_INTERRUPT is ignored with event idx */
	d.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	*used_event = 12;
	push_n(1);
	assert_true(virtq_should_notify(&d.vq));
}

static void test_enable_notify(void **state)
{
	const struct seg s[] = { { BUF_OFF, 10, 0 } };
	uint16_t *avail_event;
	struct virtq_elem e;

	drv_setup(8, false, false);
	virtq_disable_notify(&d.vq);
	assert_int_equal(d.used->flags, VRING_USED_F_NO_NOTIFY);
	assert_true(d.vq.notify_disabled);
	assert_false(virtq_enable_notify(&d.vq));
	assert_int_equal(d.used->flags, 0);
	/* entries arriving while kicks were off are reported */
	virtq_disable_notify(&d.vq);
	drv_add(0, s, 1);
	assert_true(virtq_enable_notify(&d.vq));
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_false(virtq_enable_notify(&d.vq));

	drv_setup(8, true, false);
	avail_event = (uint16_t *)&d.used->ring[8];
	drv_add(0, s, 1);
	drv_add(0, s, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_disable_notify(&d.vq);
	assert_int_equal(d.used->flags, 0);	/* event idx: flags unused */
	assert_true(virtq_enable_notify(&d.vq));
	assert_int_equal(*avail_event, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_false(virtq_enable_notify(&d.vq));
	assert_int_equal(*avail_event, 2);
}

static struct arena_log al;

/* The driver has written: copy memory, clear the log, log on. */
static void log_snap(void)
{
	arena_log_on(&al, d.arena, &d.vq, GPA_BASE + USED_OFF);
}

/* The migration's differential check, one ring operation at a time: the
 * driver writes, the memory is copied and the log cleared, the device
 * does one thing, the copy is synced from the log alone and must then
 * match the memory.  512 entries put the used ring across two pages
 * (avail_event alone on the second until entry 511), 600 rounds wrap it,
 * and a buffer that crosses a page checks that both are marked.
 */
static void test_dirty_log(void **state)
{
	const struct seg in[] = {
		{ BUF_OFF + 0x3f00, 3000, VRING_DESC_F_WRITE },
	};
	struct virtq_elem e;
	unsigned int ev, i;

	for (ev = 0; ev < 2; ev++) {
		drv_setup(512, ev, false);
		for (i = 0; i < 600; i++) {
			drv_add((uint16_t)(i % 512), in, 1);
			log_snap();
			assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
			arena_rx_one(&d.vq, &e, (int)i + 1, 3000);
			assert_true(arena_log_marked(&al) >= 3);
			assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
		}
		/* kicks off and on again, alone: flags, or avail_event */
		log_snap();
		virtq_disable_notify(&d.vq);
		assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
		drv_add(0, in, 1);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		log_snap();
		virtq_enable_notify(&d.vq);
		assert_true(arena_log_marked(&al) >= 1);
		assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
	}

	/* without VHOST_VRING_F_LOG the used ring is not logged (the
	 * spec), the buffers still are; and logging off marks nothing
	 */
	drv_setup(16, false, false);
	drv_add(0, in, 1);
	log_snap();
	d.vq.log_used = false;
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_log_elem(&d.vq, &e, 10);
	virtq_push(&d.vq, e.head, 10);
	virtq_flush(&d.vq);
	assert_int_equal(arena_log_marked(&al), 1);
	assert_int_equal(arena_log_unmarked(&al, d.arena), 1);
	d.vq.log = NULL;
	drv_add(0, in, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_log_elem(&d.vq, &e, 10);
	virtq_push(&d.vq, e.head, 10);
	virtq_flush(&d.vq);
	assert_int_equal(arena_log_marked(&al), 0);
}

static void test_map(void **state)
{
	struct virtq vq;

	drv_setup(8, false, false);
	vq = d.vq;
	vq.num = 6;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	assert_false(virtq_ready(&vq));
	vq = d.vq;
	vq.desc_uva += 8;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	vq.avail_uva += 1;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	vq.used_uva += 2;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	vq.used_uva = UVA_BASE + ARENA_SIZE - 64;	/* needs 70 bytes */
	assert_int_equal(virtq_map(&vq, &d.m), -EFAULT);
	assert_null(vq.desc);
	vq = d.vq;
	vq.desc_uva = 0x1000;
	assert_int_equal(virtq_map(&vq, &d.m), -EFAULT);
	vq = d.vq;
	vq.num = 0;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);

	/* uvas aligned, but an odd mmap_offset misaligns the host rings */
	{
		struct guest_mem odd;

		guest_mem_init(&odd);
		assert_int_equal(guest_mem_add_mapped(&odd, d.arena + 1,
						      GPA_BASE, ARENA_SIZE - 1,
						      UVA_BASE), 0);
		vq = d.vq;
		assert_int_equal(virtq_map(&vq, &odd), -EINVAL);
	}

	/* restart: the used ring says 5 were completed, base said 0 */
	d.used->idx = 5;
	d.avail->idx = 7;
	vq = d.vq;
	vq.last_avail_idx = 0;
	assert_int_equal(virtq_map(&vq, &d.m), 0);
	assert_int_equal(vq.last_avail_idx, 5);
	assert_int_equal(vq.used_idx, 5);
	assert_int_equal(virtq_avail_count(&vq), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pop_push_flush),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_violations),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_drop_stops_walk),
		cmocka_unit_test(test_chain_limits),
		cmocka_unit_test(test_notify_flags),
		cmocka_unit_test(test_notify_event_idx),
		cmocka_unit_test(test_enable_notify),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_dirty_log),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(d.arena);
	return rc;
}
