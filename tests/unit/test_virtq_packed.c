// SPDX-License-Identifier: GPL-2.0-or-later
/* test_virtq_packed.c - packed virtqueue, device side, in a fake guest arena
 *
 * The test plays the driver of a packed ring (virtio 1.1, 2.7): it keeps
 * its own position and wrap counter, writes descriptors with AVAIL/USED
 * set for them, the head's flags last, and reads used descriptors back
 * the way a driver does.  The wire structs come from linux/virtio_ring.h;
 * no ring logic is shared with the code under test.  Every rejection the
 * walker makes has a case here.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/vhost/virtq.h"
#include "virtq_arena.h"

#define DESC_OFF	0x0
#define DRV_OFF		0x8000
#define DEV_OFF		0x8010
#define TBL_OFF		0x30000

#define F_AVAIL		(1u << VRING_PACKED_DESC_F_AVAIL)
#define F_USED		(1u << VRING_PACKED_DESC_F_USED)

/**
 * struct drv - the test's driver side of one packed ring
 * @arena:	guest memory
 * @m:		memory table holding the arena
 * @vq:		device side under test
 * @num:	ring size
 * @ring:	descriptor ring in the arena
 * @drv_ev:	driver event suppression area
 * @dev_ev:	device event suppression area
 * @next:	driver's next avail position
 * @wrap:	driver ring wrap counter
 * @used:	driver's next used position to look at
 * @used_wrap:	wrap counter expected there
 */
struct drv {
	uint8_t *arena;
	struct guest_mem m;
	struct virtq vq;
	uint16_t num;
	struct vring_packed_desc *ring;
	struct vring_packed_desc_event *drv_ev;
	struct vring_packed_desc_event *dev_ev;
	uint16_t next;
	bool wrap;
	uint16_t used;
	bool used_wrap;
};

static struct drv d;

/**
 * drv_setup() - fresh arena and packed ring of @num entries, mapped
 * @num:	ring size (any, up to 32768)
 * @event_idx:	negotiate VIRTIO_RING_F_EVENT_IDX
 * @indirect:	negotiate VIRTIO_RING_F_INDIRECT_DESC
 */
static void drv_setup(uint16_t num, bool event_idx, bool indirect)
{
	assert_int_equal(arena_reset(&d.arena, &d.m), 0);
	d.num = num;
	d.ring = (struct vring_packed_desc *)(d.arena + DESC_OFF);
	d.drv_ev = (struct vring_packed_desc_event *)(d.arena + DRV_OFF);
	d.dev_ev = (struct vring_packed_desc_event *)(d.arena + DEV_OFF);
	d.next = 0;
	d.wrap = true;
	d.used = 0;
	d.used_wrap = true;
	virtq_init(&d.vq);
	d.vq.packed = true;
	d.vq.num = num;
	d.vq.desc_uva = UVA_BASE + DESC_OFF;
	d.vq.avail_uva = UVA_BASE + DRV_OFF;
	d.vq.used_uva = UVA_BASE + DEV_OFF;
	d.vq.event_idx = event_idx;
	d.vq.indirect = indirect;
	assert_int_equal(virtq_set_base(&d.vq, 0x8000), 0);
	assert_int_equal(virtq_map(&d.vq, &d.m), 0);
}

/**
 * drv_avail_flags() - AVAIL/USED bits marking a descriptor available
 * @wrap:	driver wrap counter at its position
 *
 * Return: the bits
 */
static uint16_t drv_avail_flags(bool wrap)
{
	return wrap ? F_AVAIL : F_USED;
}

/**
 * drv_add() - write a chain at the driver's position and make it available
 * @segs:	descriptors
 * @n:		count
 * @id:		buffer ID (in every descriptor, as Linux does)
 *
 * Return: position of the head
 */
static uint16_t drv_add(const struct seg *segs, unsigned int n, uint16_t id)
{
	uint16_t head = d.next, head_flags = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct vring_packed_desc *x = &d.ring[d.next];
		uint16_t f = segs[i].flags | drv_avail_flags(d.wrap);

		if (i + 1 < n)
			f |= VRING_DESC_F_NEXT;
		x->addr = GPA_BASE + segs[i].off;
		x->len = segs[i].len;
		x->id = id;
		if (i)
			x->flags = f;
		else
			head_flags = f;
		if (++d.next == d.num) {
			d.next = 0;
			d.wrap = !d.wrap;
		}
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d.ring[head].flags = head_flags;
	return head;
}

/**
 * drv_get_used() - read the next used descriptor, as a driver does
 * @id:		out: buffer ID
 * @len:	out: length
 * @skip:	descriptors the buffer took (the driver remembers them)
 *
 * Return: true if one was there
 */
static bool drv_get_used(uint16_t *id, uint32_t *len, unsigned int skip)
{
	uint16_t f = d.ring[d.used].flags;

	if (!!(f & F_AVAIL) != d.used_wrap || !!(f & F_USED) != d.used_wrap)
		return false;
	*id = d.ring[d.used].id;
	*len = d.ring[d.used].len;
	d.used = (uint16_t)(d.used + skip);
	if (d.used >= d.num) {
		d.used = (uint16_t)(d.used - d.num);
		d.used_wrap = !d.used_wrap;
	}
	return true;
}

/**
 * expect_broken_pop() - the next pop breaks the ring, for good
 */
static void expect_broken_pop(void)
{
	struct virtq_elem e;

	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_true(d.vq.broken);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_int_equal(virtq_avail_count(&d.vq), 0);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 0);
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
	uint32_t len;
	uint16_t id;

	drv_setup(16, false, false);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);
	drv_add(out, 2, 7);
	drv_add(in, 1, 3);
	assert_int_equal(virtq_avail_count(&d.vq), 2);
	assert_int_equal(virtq_prefetch(&d.vq, 1), 1);

	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 7);
	assert_int_equal(e.out_num, 2);
	assert_int_equal(e.in_num, 0);
	assert_int_equal(e.out_len, 150);
	assert_int_equal(e.ndesc, 2);
	assert_ptr_equal(e.iov[0].iov_base, d.arena + BUF_OFF);
	assert_int_equal(e.iov[1].iov_len, 50);

	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 3);
	assert_int_equal(e.in_num, 1);
	assert_int_equal(e.in_len, 1500);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);

	/* unpop hands the last one back, wrap state and all */
	virtq_unpop(&d.vq, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 3);

	virtq_push(&d.vq, 7, 0);
	virtq_push(&d.vq, 3, 1400);
	/* batched: the first used descriptor's flags are not yet written */
	assert_false(drv_get_used(&id, &len, 2));
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 2));
	assert_int_equal(id, 7);
	assert_false(d.ring[0].flags & VRING_DESC_F_WRITE);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 3);
	assert_int_equal(len, 1400);
	assert_true(d.ring[2].flags & VRING_DESC_F_WRITE);
	assert_false(drv_get_used(&id, &len, 1));
	assert_int_equal(d.vq.stat_pops, 3);
}

/* virtq_prefetch() counts complete chains from the flags alone, caps at
 * @n, and counts a chain it cannot see the end of as one: the pop that
 * follows judges it (here: breaks the ring), rather than leave a lying
 * ring waiting forever.
 */
static void test_prefetch(void **state)
{
	const struct seg one[] = { { BUF_OFF, 1, 0 } };
	const struct seg two[] = { { BUF_OFF, 1, 0 }, { BUF_OFF, 1, 0 } };
	struct seg many[100];
	struct virtq_elem e;
	unsigned int i;
	uint16_t h;

	drv_setup(8, false, false);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 0);
	drv_add(one, 1, 0);
	drv_add(two, 2, 1);
	drv_add(one, 1, 2);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 3);
	assert_int_equal(virtq_prefetch(&d.vq, 2), 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_prefetch(&d.vq, 32), 2);

	/* chains a count saw are not read again: rewriting their flags (a
	 * driver may not) changes no count until they are popped
	 */
	drv_setup(8, false, false);
	drv_add(two, 2, 0);
	drv_add(one, 1, 1);
	drv_add(one, 1, 2);
	assert_int_equal(virtq_prefetch(&d.vq, 2), 2);
	assert_int_equal(d.vq.seen_chains, 2);
	assert_int_equal(d.vq.seen_desc, 3);
	d.ring[0].flags = 0;
	assert_int_equal(virtq_prefetch(&d.vq, 2), 2);
	assert_int_equal(virtq_prefetch(&d.vq, 8), 3);
	assert_int_equal(d.vq.seen_desc, 4);
	/* ... but the pop reads them itself: the head is gone */
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);
	d.ring[0].flags = drv_avail_flags(true) | VRING_DESC_F_NEXT;
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 0);
	assert_int_equal(d.vq.seen_chains, 2);
	assert_int_equal(d.vq.seen_desc, 2);
	virtq_unpop(&d.vq, 1);
	assert_int_equal(d.vq.seen_chains, 0);
	assert_int_equal(virtq_prefetch(&d.vq, 8), 3);

	/* the second descriptor of a chain not available: counted, broken */
	drv_setup(8, false, false);
	h = drv_add(two, 2, 0);
	d.ring[h + 1].flags = 0;
	assert_int_equal(virtq_prefetch(&d.vq, 32), 1);
	expect_broken_pop();

	/* longer than the scan (2n + VIRTQ_CHAIN_MAX): counted, broken */
	drv_setup(128, false, false);
	for (i = 0; i < 100; i++)
		many[i] = (struct seg){ BUF_OFF, 1, 0 };
	drv_add(many, 100, 0);
	assert_int_equal(virtq_prefetch(&d.vq, 1), 1);
	expect_broken_pop();
}

/* Many laps of a ring whose size is no power of two, with chains that
 * straddle the end: positions and both wrap counters stay in step.
 */
static void test_wrap(void **state)
{
	const struct seg s[] = {
		{ BUF_OFF, 10, 0 }, { BUF_OFF + 0x100, 20, VRING_DESC_F_WRITE },
	};
	struct virtq_elem e;
	unsigned int i;
	uint32_t len;
	uint16_t id;

	drv_setup(5, false, false);
	for (i = 0; i < 40; i++) {
		unsigned int n = 1 + i % 2;

		drv_add(n == 1 ? &s[1] : s, n, (uint16_t)i);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		assert_int_equal(e.head, i);
		assert_int_equal(e.in_len, 20);
		assert_int_equal(e.out_num, n - 1);
		virtq_push(&d.vq, e.head, 20);
		virtq_flush(&d.vq);
		assert_true(drv_get_used(&id, &len, n));
		assert_int_equal(id, i);
		assert_int_equal(len, 20);
	}
	assert_int_equal(d.vq.last_avail_idx, d.next);
	assert_int_equal(d.vq.avail_wrap, d.wrap);
	assert_int_equal(d.vq.used_idx, d.used);
	assert_int_equal(d.vq.used_wrap, d.used_wrap);
	/* GET_VRING_BASE carries both, SET_VRING_BASE takes them back */
	assert_int_equal(virtq_get_base(&d.vq),
			 d.next | (uint32_t)d.wrap << 15 |
			 (uint32_t)d.used << 16 | (uint32_t)d.used_wrap << 31);
}

/* Unpop across the end of the ring flips the wrap counter back. */
static void test_unpop_wrap(void **state)
{
	const struct seg s[] = {
		{ BUF_OFF, 10, 0 }, { BUF_OFF, 10, 0 }, { BUF_OFF, 10, 0 },
	};
	struct virtq_elem e;
	uint32_t len;
	uint16_t id;

	drv_setup(4, false, false);
	drv_add(s, 3, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 1, 0);
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 3));
	drv_add(s, 2, 2);		/* positions 3 and 0: straddles */
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(d.vq.last_avail_idx, 1);
	assert_false(d.vq.avail_wrap);
	virtq_unpop(&d.vq, 1);
	assert_int_equal(d.vq.last_avail_idx, 3);
	assert_true(d.vq.avail_wrap);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 2);
	assert_int_equal(e.out_num, 2);
}

static void test_indirect(void **state)
{
	const struct seg ind[] = {
		{ TBL_OFF, 3 * sizeof(struct vring_packed_desc),
		  VRING_DESC_F_INDIRECT },
	};
	struct vring_packed_desc *t;
	struct virtq_elem e;
	uint32_t len;
	uint16_t id;

	drv_setup(8, false, true);
	t = (struct vring_packed_desc *)(d.arena + TBL_OFF);
	t[0] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF, 12, 0, 0 };
	/* NEXT and INDIRECT in a table are reserved: ignored, not followed */
	t[1] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF + 0x100, 64, 0,
		VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT };
	t[2] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF + 0x200, 2048, 0,
		VRING_DESC_F_WRITE };
	drv_add(ind, 1, 9);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 9);
	assert_int_equal(e.out_num, 2);
	assert_int_equal(e.in_num, 1);
	assert_int_equal(e.out_len, 76);
	assert_int_equal(e.in_len, 2048);
	assert_int_equal(e.ndesc, 4);
	/* one ring descriptor: the next chain's used one goes right after */
	virtq_push(&d.vq, 9, 100);
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(d.vq.used_idx, 1);
}

static void test_violations(void **state)
{
	const struct seg two[] = { { BUF_OFF, 10, 0 }, { BUF_OFF, 10, 0 } };
	const struct seg outside[] = { { ARENA_SIZE, 10, 0 } };
	const struct seg straddle[] = { { ARENA_SIZE - 4, 10, 0 } };
	const struct seg ind[] = {
		{ TBL_OFF, 2 * sizeof(struct vring_packed_desc),
		  VRING_DESC_F_INDIRECT },
	};
	const struct seg ind_mid[] = {
		{ BUF_OFF, 10, 0 },
		{ TBL_OFF, 2 * sizeof(struct vring_packed_desc),
		  VRING_DESC_F_INDIRECT },
	};
	struct vring_packed_desc *t;
	uint16_t h;

	/* buffer outside guest memory, or running past its end */
	drv_setup(8, false, true);
	drv_add(outside, 1, 0);
	expect_broken_pop();
	drv_setup(8, false, true);
	drv_add(straddle, 1, 0);
	expect_broken_pop();

	/* wrap-counter lie: the second descriptor of a chain not marked
	 * available for its position (here: left as the previous lap's)
	 */
	drv_setup(8, false, false);
	h = drv_add(two, 2, 0);
	d.ring[h + 1].flags ^= F_AVAIL | F_USED;
	expect_broken_pop();
	/* ... or marked used */
	drv_setup(8, false, false);
	h = drv_add(two, 2, 0);
	d.ring[h + 1].flags |= F_AVAIL | F_USED;
	expect_broken_pop();

	/* a chain as long as the ring, NEXT on every descriptor: it would
	 * run into its own head
	 */
	drv_setup(4, false, false);
	{
		const struct seg four[] = {
			{ BUF_OFF, 1, 0 }, { BUF_OFF, 1, 0 },
			{ BUF_OFF, 1, 0 }, { BUF_OFF, 1, 0 },
		};

		drv_add(four, 4, 0);
		d.ring[3].flags |= VRING_DESC_F_NEXT;
		/* the head comes round again, still available */
		expect_broken_pop();
	}

	/* INDIRECT without the feature */
	drv_setup(8, false, false);
	drv_add(ind, 1, 0);
	expect_broken_pop();
	/* INDIRECT with NEXT */
	drv_setup(8, false, true);
	h = drv_add(ind, 1, 0);
	d.ring[h].flags |= VRING_DESC_F_NEXT;
	d.ring[h + 1].flags = drv_avail_flags(true);
	expect_broken_pop();
	/* INDIRECT after direct descriptors in one list */
	drv_setup(8, false, true);
	drv_add(ind_mid, 2, 0);
	expect_broken_pop();
	/* empty, ragged, oversized, misaligned, outside tables */
	{
		const struct { uint64_t off; uint32_t len; } bad[] = {
			{ TBL_OFF, 0 },
			{ TBL_OFF, 17 },
			{ TBL_OFF, (VIRTQ_CHAIN_MAX + 1) * 16 },
			{ TBL_OFF + 8, 32 },
			{ ARENA_SIZE - 16, 32 },
		};
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct seg s = { bad[i].off, bad[i].len,
					 VRING_DESC_F_INDIRECT };

			drv_setup(8, false, true);
			drv_add(&s, 1, 0);
			expect_broken_pop();
		}
	}
	/* a table entry outside memory */
	drv_setup(8, false, true);
	t = (struct vring_packed_desc *)(d.arena + TBL_OFF);
	t[0] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF, 1, 0, 0 };
	t[1] = (struct vring_packed_desc){ 0x10, 1, 0, 0 };
	drv_add(ind, 1, 0);
	expect_broken_pop();
	/* a table entry running past the end of memory */
	drv_setup(8, false, true);
	t[0] = (struct vring_packed_desc){ GPA_BASE, 0xffffffff, 0, 0 };
	t[1] = (struct vring_packed_desc){ GPA_BASE, 2, 0, 0 };
	drv_add(ind, 1, 0);
	expect_broken_pop();
}

/* A chain we cannot use goes back with its buffer ID, and the ring
 * position moves past all of it, so the next chain is read right.
 */
static void test_drops(void **state)
{
	const struct seg wr_rd[] = {
		{ BUF_OFF, 10, VRING_DESC_F_WRITE }, { BUF_OFF, 10, 0 },
		{ BUF_OFF, 10, 0 },
	};
	const struct seg ok[] = { { BUF_OFF, 10, 0 } };
	struct virtq_elem e;
	uint32_t len;
	uint16_t id;

	drv_setup(8, false, false);
	drv_add(wr_rd, 3, 4);
	drv_add(ok, 1, 5);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
	assert_int_equal(e.head, 4);
	assert_int_equal(e.out_num + e.in_num, 0);
	assert_int_equal(e.ndesc, 3);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 5);
	virtq_push(&d.vq, 4, 0);
	virtq_push(&d.vq, 5, 0);
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 3));
	assert_int_equal(id, 4);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 5);

	/* readable after writable inside a table: the one ring
	 * descriptor is passed, nothing more
	 */
	drv_setup(8, false, true);
	{
		struct vring_packed_desc *t =
			(struct vring_packed_desc *)(d.arena + TBL_OFF);
		const struct seg ind[] = {
			{ TBL_OFF, 2 * sizeof(*t), VRING_DESC_F_INDIRECT },
		};

		t[0] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF, 1, 0,
						   VRING_DESC_F_WRITE };
		t[1] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF, 1, 0,
						   0 };
		drv_add(ind, 1, 6);
		drv_add(ok, 1, 7);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_DROP);
		assert_int_equal(e.head, 6);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		assert_int_equal(e.head, 7);
	}
}

static void test_chain_limits(void **state)
{
	struct seg many[VIRTQ_CHAIN_MAX + 1];
	struct vring_packed_desc *t;
	struct seg ind = { TBL_OFF, VIRTQ_CHAIN_MAX * 16,
			   VRING_DESC_F_INDIRECT };
	struct virtq_elem e;
	unsigned int i;

	for (i = 0; i <= VIRTQ_CHAIN_MAX; i++)
		many[i] = (struct seg){ BUF_OFF + i, 1, 0 };
	/* exactly VIRTQ_CHAIN_MAX direct descriptors: taken */
	drv_setup(256, false, false);
	drv_add(many, VIRTQ_CHAIN_MAX, 1);
	assert_int_not_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_int_equal(e.ndesc, VIRTQ_CHAIN_MAX);
	/* one more: broken */
	drv_setup(256, false, false);
	drv_add(many, VIRTQ_CHAIN_MAX + 1, 1);
	expect_broken_pop();
	/* a full table of VIRTQ_CHAIN_MAX entries: taken */
	drv_setup(8, false, true);
	t = (struct vring_packed_desc *)(d.arena + TBL_OFF);
	for (i = 0; i < VIRTQ_CHAIN_MAX; i++)
		t[i] = (struct vring_packed_desc){ GPA_BASE + BUF_OFF + i, 1,
						   0, 0 };
	drv_add(&ind, 1, 1);
	assert_int_not_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_BROKEN);
	assert_int_equal(e.ndesc, VIRTQ_CHAIN_MAX + 1);
}

/* The in-flight table bounds what a pop may hold: full, the ring reads
 * as empty until a push frees a slot.
 */
static void test_inflight_full(void **state)
{
	const struct seg s[] = { { BUF_OFF, 1, 0 } };
	struct virtq_elem e;
	unsigned int i;

	drv_setup(512, false, false);
	for (i = 0; i <= VIRTQ_PACKED_INFLIGHT; i++)
		drv_add(s, 1, (uint16_t)i);
	for (i = 0; i < VIRTQ_PACKED_INFLIGHT; i++)
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_EMPTY);
	virtq_push(&d.vq, 0, 0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, VIRTQ_PACKED_INFLIGHT);
	assert_false(d.vq.broken);
}

/* With IN_ORDER, buffers pushed with length 0 share one used descriptor
 * naming the last of them, and the used position moves past all of
 * them; a buffer with a length gets its own; nothing published is
 * changed afterwards.
 */
static void test_in_order_batch(void **state)
{
	const struct seg one[] = { { BUF_OFF, 1, 0 } };
	const struct seg two[] = { { BUF_OFF, 1, 0 }, { BUF_OFF, 1, 0 } };
	const struct seg in[] = { { BUF_OFF, 200, VRING_DESC_F_WRITE } };
	struct virtq_elem e;
	unsigned int i;
	uint32_t len;
	uint16_t id;

	drv_setup(8, false, false);
	d.vq.in_order = true;
	drv_add(one, 1, 10);
	drv_add(two, 2, 11);
	drv_add(one, 1, 12);
	drv_add(in, 1, 13);
	for (i = 0; i < 4; i++)
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 10, 0);
	virtq_push(&d.vq, 11, 0);
	virtq_push(&d.vq, 12, 0);
	virtq_push(&d.vq, 13, 100);
	virtq_flush(&d.vq);
	/* one descriptor for 10, 11, 12 (4 ring descriptors), then 13 */
	assert_true(drv_get_used(&id, &len, 4));
	assert_int_equal(id, 12);
	assert_false(d.ring[0].flags & VRING_DESC_F_WRITE);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 13);
	assert_int_equal(len, 100);
	assert_false(drv_get_used(&id, &len, 1));
	assert_int_equal(d.vq.used_idx, 5);

	/* a flush closes the batch: the next buffer gets a new one */
	drv_add(one, 1, 20);
	drv_add(one, 1, 21);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 20, 0);
	virtq_flush(&d.vq);
	virtq_push(&d.vq, 21, 0);
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 20);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 21);

	/* not negotiated: one descriptor per buffer */
	drv_setup(8, false, false);
	drv_add(one, 1, 1);
	drv_add(one, 1, 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 1, 0);
	virtq_push(&d.vq, 2, 0);
	virtq_flush(&d.vq);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 1);
	assert_true(drv_get_used(&id, &len, 1));
	assert_int_equal(id, 2);
}

/* ---- bursts against single calls ---------------------------------- */

static unsigned int burst_min(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/**
 * struct burst_run - what one run of burst_script() saw
 * @hash:	FNV-1a over every pop's result and chains, every push's
 *		arguments, and the ring after every flush
 * @ring:	the descriptor ring and both event areas at the end
 * @state:	the device's positions and counters at the end
 */
struct burst_run {
	uint64_t hash;
	uint8_t ring[DEV_OFF + sizeof(struct vring_packed_desc_event)];
	uint32_t state[12];
};

static void burst_mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		*h = (*h ^ *b++) * 0x100000001b3ull;
}

static uint32_t burst_rand(uint64_t *r)
{
	*r = *r * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*r >> 33);
}

/**
 * burst_add() - the driver makes one random chain available, if it fits
 * @rng:	random state
 * @id:		buffer ID to give it
 * @room:	ring descriptors the driver has free
 * @bad:	allow a buffer outside guest memory (breaks the ring)
 *
 * Return: ring descriptors it took, 0 if none fit
 */
static unsigned int burst_add(uint64_t *rng, uint16_t id, unsigned int room,
			      bool bad)
{
	struct seg s[3];
	unsigned int n = 1, kind = burst_rand(rng) % 16;
	uint64_t off = BUF_OFF + 64 * (burst_rand(rng) % 256);
	uint32_t len = 1 + burst_rand(rng) % 1500;

	s[0] = (struct seg){ off, len, 0 };
	switch (kind) {
	case 0:		/* two readable */
	case 1:		/* readable then writable */
		s[1] = (struct seg){ off + 0x100, 60,
				     kind ? VRING_DESC_F_WRITE : 0 };
		n = 2;
		break;
	case 2:		/* writable then readable: DROP */
		s[0].flags = VRING_DESC_F_WRITE;
		s[1] = (struct seg){ off, 10, 0 };
		n = 2;
		break;
	case 3:		/* an empty buffer */
		s[0].len = 0;
		break;
	case 4:		/* runs past the arena: BROKEN, rarely */
		if (bad)
			s[0].off = ARENA_SIZE - 8;
		break;
	case 5: case 6: case 7: case 8: case 9:
		s[0].flags = VRING_DESC_F_WRITE;
		break;
	default:
		break;
	}
	if (n > room)
		return 0;
	drv_add(s, n, id);
	return n;
}

/**
 * burst_script() - a random driver and device, the device popping and
 *		    pushing in bursts or one chain at a time
 * @seed:	the script
 * @bursts:	use virtq_pop_burst()/virtq_push_burst()
 * @out:	what the run saw
 *
 * The driver keeps the ring as full as it likes with chains of every
 * shape; the device pops up to 40 at a time, stopping after the first
 * that is not OK or once a work budget of descriptors is spent, as
 * virtq_pop_burst() does, gives some back, pushes some
 * with random lengths and flushes now and then.  The driver reuses a
 * chain's descriptors once its push was flushed.
 */
static void burst_script(uint64_t seed, bool bursts, struct burst_run *out)
{
	struct virtq_elem elems[VIRTQ_PACKED_INFLIGHT];
	struct virtq_elem *ep[64];
	uint32_t lens[64], in_len[VIRTQ_PACKED_INFLIGHT];
	unsigned int popped = 0, pushed = 0, outstanding = 0, step;
	unsigned int drv_q[1024], drv_first = 0, drv_num = 0, flushed = 0;
	uint64_t rng = seed, h = 0xcbf29ce484222325ull;
	uint16_t num = (uint16_t)(9 + seed % 300), next_id = 0, ids[64];

	drv_setup(num, false, true);
	d.vq.in_order = seed & 1;
	for (step = 0; step < 4000 && !d.vq.broken; step++) {
		unsigned int op = burst_rand(&rng) % 8, n, i, got, budget;
		enum virtq_pop_result last = VIRTQ_POP_OK;

		if (op < 3) {
			/* driver: a few chains, as room allows */
			for (n = burst_rand(&rng) % 12; n; n--) {
				unsigned int k = burst_add(&rng, next_id,
							   num - outstanding,
							   seed % 4 == 0 &&
							   step > 3000);
				if (!k)
					break;
				drv_q[(drv_first + drv_num++) % 1024] = k;
				outstanding += k;
				next_id = (uint16_t)((next_id + 1) & 0x7fff);
			}
		} else if (op < 5) {
			/* device: a burst of pops */
			n = burst_min(1 + burst_rand(&rng) % 40,
				VIRTQ_PACKED_INFLIGHT - (popped - pushed));
			n = burst_min(n, 64u);
			for (i = 0; i < n; i++)
				ep[i] = &elems[(popped + i) %
					       VIRTQ_PACKED_INFLIGHT];
			/* a turn's work budget now and then */
			budget = burst_rand(&rng) % 3 ? UINT_MAX :
				 burst_rand(&rng) % 60;
			if (bursts) {
				got = virtq_pop_burst(&d.vq, ep, n, budget,
						      &last);
			} else {
				last = VIRTQ_POP_OK;
				for (got = 0; got < n && budget; ) {
					last = virtq_pop(&d.vq, ep[got]);
					if (last == VIRTQ_POP_EMPTY ||
					    last == VIRTQ_POP_BROKEN)
						break;
					budget -= burst_min(budget,
							    ep[got]->ndesc);
					got++;
					if (last == VIRTQ_POP_DROP)
						break;
				}
			}
			burst_mix(&h, &got, sizeof(got));
			burst_mix(&h, &last, sizeof(last));
			for (i = 0; i < got; i++) {
				const struct virtq_elem *e = ep[i];
				unsigned int j;

				burst_mix(&h, e, offsetof(struct virtq_elem, iov));
				for (j = 0; j < (unsigned int)e->out_num + e->in_num; j++) {
					uint64_t o = (uint64_t)((uint8_t *)
						e->iov[j].iov_base - d.arena);

					burst_mix(&h, &o, sizeof(o));
					burst_mix(&h, &e->iov[j].iov_len,
						  sizeof(e->iov[j].iov_len));
				}
				in_len[(popped + i) % VIRTQ_PACKED_INFLIGHT] =
					e->in_len;
			}
			popped += got;
		} else if (op == 5 && popped > pushed) {
			/* device: give back the last few */
			n = 1 + burst_rand(&rng) % burst_min(popped - pushed, 8u);
			virtq_unpop(&d.vq, n);
			popped -= n;
			burst_mix(&h, &n, sizeof(n));
		} else if (op == 6 && popped > pushed) {
			/* device: push the oldest few, lengths 0 now and then */
			bool zero = burst_rand(&rng) % 3 == 0;

			n = burst_min(1 + burst_rand(&rng) % 40, popped - pushed);
			n = burst_min(n, 64u);
			for (i = 0; i < n; i++) {
				unsigned int k = (pushed + i) %
						 VIRTQ_PACKED_INFLIGHT;
				uint32_t cap = in_len[k];

				ids[i] = elems[k].head;
				lens[i] = zero || !cap ? 0 :
					  1 + burst_rand(&rng) % cap;
			}
			if (bursts) {
				virtq_push_burst(&d.vq, ids, zero ? NULL : lens,
						 n);
			} else {
				for (i = 0; i < n; i++)
					virtq_push(&d.vq, ids[i], lens[i]);
			}
			burst_mix(&h, ids, n * sizeof(ids[0]));
			burst_mix(&h, lens, n * sizeof(lens[0]));
			pushed += n;
		} else if (op == 7) {
			/* device: publish; the driver reuses what was used */
			virtq_flush(&d.vq);
			burst_mix(&h, d.arena + DESC_OFF,
				  num * sizeof(struct vring_packed_desc));
			for (; flushed < pushed; flushed++) {
				outstanding -= drv_q[drv_first];
				drv_first = (drv_first + 1) % 1024;
				drv_num--;
			}
		}
	}
	virtq_flush(&d.vq);
	out->hash = h;
	memcpy(out->ring, d.arena, sizeof(out->ring));
	out->state[0] = d.vq.last_avail_idx;
	out->state[1] = d.vq.avail_wrap;
	out->state[2] = d.vq.used_idx;
	out->state[3] = d.vq.used_wrap;
	out->state[4] = d.vq.push_idx;
	out->state[5] = d.vq.push_wrap;
	out->state[6] = d.vq.inflight_num;
	out->state[7] = d.vq.inflight_first;
	out->state[8] = d.vq.seen_chains;
	out->state[9] = d.vq.broken;
	out->state[10] = (uint32_t)d.vq.stat_pops;
	out->state[11] = step;
}

/* virtq_pop_burst() and virtq_push_burst() leave the ring, the chains
 * and the device's state exactly as the same pops and pushes one at a
 * time do: 200 random scripts (ring sizes 9-308, in order or not, every
 * chain shape, give-backs, broken rings), compared after every step.
 */
static void test_burst_differential(void **state)
{
	static struct burst_run one, many;
	uint64_t seed;
	unsigned int broken = 0;

	for (seed = 1; seed <= 200; seed++) {
		burst_script(seed, false, &one);
		burst_script(seed, true, &many);
		if (one.hash != many.hash ||
		    memcmp(one.ring, many.ring, sizeof(one.ring)) ||
		    memcmp(one.state, many.state, sizeof(one.state)))
			fail_msg("seed %llu: bursts differ from single calls",
				 (unsigned long long)seed);
		broken += one.state[9];
	}
	/* the scripts reach the rings' end states too */
	assert_true(broken > 0);
	assert_true(broken < 200);
}

static void test_notify(void **state)
{
	const struct seg s[] = { { BUF_OFF, 1, VRING_DESC_F_WRITE } };
	struct virtq_elem e;
	unsigned int i;

	/* no event idx: the driver's flags decide */
	drv_setup(4, false, false);
	drv_add(s, 1, 0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 0, 1);
	virtq_flush(&d.vq);
	d.drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	assert_false(virtq_should_notify(&d.vq));
	drv_add(s, 1, 1);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 1, 1);
	virtq_flush(&d.vq);
	d.drv_ev->flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	assert_true(virtq_should_notify(&d.vq));
	assert_false(virtq_should_notify(&d.vq));	/* nothing new */
	/* DESC without the feature, or a reserved mode: notify */
	drv_add(s, 1, 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 2, 1);
	virtq_flush(&d.vq);
	d.drv_ev->flags = 3;
	assert_true(virtq_should_notify(&d.vq));

	/* event idx: only when the used position crosses off_wrap, in the
	 * lap the wrap bit names
	 */
	drv_setup(4, true, false);
	d.drv_ev->flags = VRING_PACKED_EVENT_FLAG_DESC;
	d.drv_ev->off_wrap = 2 | 1u << 15;	/* position 2, first lap */
	for (i = 0; i < 8; i++) {
		bool want;

		drv_add(s, 1, (uint16_t)i);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		virtq_push(&d.vq, (uint16_t)i, 1);
		virtq_flush(&d.vq);
		/* the first check after start always notifies */
		want = i == 0 || i == 2;
		assert_int_equal(virtq_should_notify(&d.vq), want);
	}
	/* second lap has the counter at 0: position 1 of it */
	d.drv_ev->off_wrap = 1;
	for (i = 0; i < 4; i++) {
		drv_add(s, 1, (uint16_t)i);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		virtq_push(&d.vq, (uint16_t)i, 1);
		virtq_flush(&d.vq);
		assert_false(virtq_should_notify(&d.vq)); /* lap 3: wrap 1 */
	}
	for (i = 0; i < 4; i++) {
		drv_add(s, 1, (uint16_t)i);
		assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
		virtq_push(&d.vq, (uint16_t)i, 1);
		virtq_flush(&d.vq);
		assert_int_equal(virtq_should_notify(&d.vq), i == 1);
	}
	/* an offset outside the ring is never reached */
	d.drv_ev->off_wrap = 0x7fff;
	drv_add(s, 1, 0);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	virtq_push(&d.vq, 0, 1);
	virtq_flush(&d.vq);
	assert_false(virtq_should_notify(&d.vq));
}

static void test_enable_notify(void **state)
{
	const struct seg s[] = { { BUF_OFF, 1, 0 } };
	struct virtq_elem e;

	drv_setup(4, false, false);
	virtq_disable_notify(&d.vq);
	assert_int_equal(d.dev_ev->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	assert_false(virtq_enable_notify(&d.vq));
	assert_int_equal(d.dev_ev->flags, VRING_PACKED_EVENT_FLAG_ENABLE);
	drv_add(s, 1, 0);
	assert_true(virtq_enable_notify(&d.vq));	/* poll again */

	/* event idx: kick me when the next position is made available */
	drv_setup(4, true, false);
	drv_add(s, 1, 0);
	drv_add(s, 1, 1);
	drv_add(s, 1, 2);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
	assert_false(virtq_enable_notify(&d.vq));
	assert_int_equal(d.dev_ev->flags, VRING_PACKED_EVENT_FLAG_DESC);
	assert_int_equal(d.dev_ev->off_wrap, 3 | 1u << 15);
}

static struct arena_log al;

/* The driver has written: copy memory, clear the log, log on. */
static void log_snap(void)
{
	arena_log_on(&al, d.arena, &d.vq, GPA_BASE + DEV_OFF);
}

/* The differential check of test_virtq.c's test_dirty_log() over a packed
 * ring: used descriptors written in the descriptor ring (a ring of 300
 * spans two pages; 700 rounds wrap it twice), batches of in-order
 * buffers, and the device event area written alone.
 */
static void test_dirty_log(void **state)
{
	const struct seg in[] = {
		{ BUF_OFF + 0x3f00, 3000, VRING_DESC_F_WRITE },
	};
	const struct seg out[] = { { BUF_OFF, 60, 0 } };
	struct virtq_elem e;
	unsigned int mode, i, k;

	for (mode = 0; mode < 3; mode++) {
		drv_setup(300, mode == 1, false);
		d.vq.in_order = mode == 2;
		for (i = 0; i < 700; i++) {
			uint16_t id;
			uint32_t len;

			drv_add(in, 1, (uint16_t)(i % 300));
			log_snap();
			assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
			arena_rx_one(&d.vq, &e, (int)i + 1, 3000);
			assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
			assert_true(drv_get_used(&id, &len, 1));
		}
		/* TX-like: four buffers, no length, one batch in order */
		for (k = 0; k < 4; k++)
			drv_add(out, 1, (uint16_t)k);
		log_snap();
		for (k = 0; k < 4; k++) {
			assert_int_equal(virtq_pop(&d.vq, &e), VIRTQ_POP_OK);
			virtq_push(&d.vq, e.head, 0);
		}
		virtq_flush(&d.vq);
		assert_int_equal(arena_log_unmarked(&al, d.arena), 0);

		log_snap();
		virtq_disable_notify(&d.vq);
		assert_true(arena_log_marked(&al) >= 1);
		assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
		log_snap();
		virtq_enable_notify(&d.vq);
		assert_int_equal(arena_log_unmarked(&al, d.arena), 0);
	}
}

static void test_map(void **state)
{
	struct virtq vq;

	drv_setup(8, false, false);
	/* any size up to 2^15, power of two or not */
	vq = d.vq;
	vq.num = 3;
	assert_int_equal(virtq_map(&vq, &d.m), 0);
	vq.num = 0;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	/* misaligned areas */
	vq = d.vq;
	vq.desc_uva += 8;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	vq.avail_uva += 2;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	vq.used_uva += 2;
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	/* outside memory */
	vq = d.vq;
	vq.desc_uva = UVA_BASE + ARENA_SIZE - 16;
	assert_int_equal(virtq_map(&vq, &d.m), -EFAULT);
	vq = d.vq;
	vq.used_uva = UVA_BASE + ARENA_SIZE;
	assert_int_equal(virtq_map(&vq, &d.m), -EFAULT);
	/* a base past the ring end, avail or used */
	vq = d.vq;
	assert_int_equal(virtq_set_base(&vq, 8 | 1u << 15), 0);
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	vq = d.vq;
	assert_int_equal(virtq_set_base(&vq, 1 | 9u << 16), 0);
	assert_int_equal(virtq_map(&vq, &d.m), -EINVAL);
	/* base encoding: wrap bits and a used half of zero */
	vq = d.vq;
	assert_int_equal(virtq_set_base(&vq, 5), 0);
	assert_int_equal(vq.last_avail_idx, 5);
	assert_false(vq.avail_wrap);
	assert_int_equal(vq.used_idx, 5);
	assert_false(vq.used_wrap);
	assert_int_equal(virtq_set_base(&vq, 2 | 1u << 15 | 7u << 16 |
					1u << 31), 0);
	assert_int_equal(vq.last_avail_idx, 2);
	assert_true(vq.avail_wrap);
	assert_int_equal(vq.used_idx, 7);
	assert_true(vq.used_wrap);
	/* split: 16 bits only */
	vq.packed = false;
	assert_int_equal(virtq_set_base(&vq, 0x10000), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pop_push_flush),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_unpop_wrap),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_violations),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_chain_limits),
		cmocka_unit_test(test_inflight_full),
		cmocka_unit_test(test_in_order_batch),
		cmocka_unit_test(test_burst_differential),
		cmocka_unit_test(test_notify),
		cmocka_unit_test(test_enable_notify),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_dirty_log),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(d.arena);
	return rc;
}
