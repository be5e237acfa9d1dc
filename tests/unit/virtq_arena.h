/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virtq_arena.h - the fake guest memory of the ring unit tests
 *
 * test_virtq.c (split rings) and test_virtq_packed.c (packed rings) each
 * play a driver over one arena: guest physical GPA_BASE.., front-end
 * virtual UVA_BASE.., buffers from BUF_OFF.  Each lays out its own ring
 * below BUF_OFF; what they share is here, and no ring logic is.
 */
#ifndef VIRTQ_ARENA_H
#define VIRTQ_ARENA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vhost/dirty_log.h"
#include "../../src/vhost/guest_mem.h"
#include "../../src/vhost/virtq.h"

#define ARENA_SIZE	0x40000
#define GPA_BASE	0x100000ull
#define UVA_BASE	0x7f0000100000ull
#define BUF_OFF		0x20000

/**
 * struct seg - one descriptor the test wants in a chain
 * @off:	buffer offset in the arena (gpa = GPA_BASE + off)
 * @len:	length
 * @flags:	VRING_DESC_F_WRITE / INDIRECT (the builder adds the rest)
 */
struct seg {
	uint64_t off;
	uint32_t len;
	uint16_t flags;
};

/**
 * arena_reset() - a zeroed arena (allocated once) in a fresh table
 * @arena:	the arena pointer, NULL the first time
 * @m:		memory table to hold it
 *
 * Return: 0, or what guest_mem_add_mapped() said
 */
static inline int arena_reset(uint8_t **arena, struct guest_mem *m)
{
	if (!*arena)
		*arena = aligned_alloc(4096, ARENA_SIZE);
	memset(*arena, 0, ARENA_SIZE);
	guest_mem_init(m);
	return guest_mem_add_mapped(m, *arena, GPA_BASE, ARENA_SIZE,
				    UVA_BASE);
}

/* A dirty log covering the arena, as the front end of a migration holds
 * it, and the copy of guest memory it keeps in step by it.
 */
#define ARENA_LOG_BYTES	(((GPA_BASE + ARENA_SIZE) / 4096 + 7) / 8)

/**
 * struct arena_log - the migration's view: a log and a shadow copy
 * @log:	what the device marks (bits in @bits)
 * @bits:	the log's bytes
 * @shadow:	guest memory as copied so far
 */
struct arena_log {
	struct dirty_log log;
	uint8_t bits[ARENA_LOG_BYTES];
	uint8_t shadow[ARENA_SIZE];
};

/**
 * arena_log_snap() - a full copy, the log cleared: migration's first pass
 * @al:		log and shadow
 * @arena:	guest memory
 */
static inline void arena_log_snap(struct arena_log *al, const uint8_t *arena)
{
	memset(&al->log, 0, sizeof(al->log));
	al->log.bits = al->bits;
	al->log.size = sizeof(al->bits);
	memset(al->bits, 0, sizeof(al->bits));
	memcpy(al->shadow, arena, ARENA_SIZE);
}

/**
 * arena_log_on() - arena_log_snap(), then @vq logs into @al
 * @al:		log and shadow
 * @arena:	guest memory
 * @vq:		queue under test
 * @log_addr:	its used ring's (packed: device area's) log_guest_addr
 */
static inline void arena_log_on(struct arena_log *al, const uint8_t *arena,
				struct virtq *vq, uint64_t log_addr)
{
	arena_log_snap(al, arena);
	vq->log = &al->log;
	vq->log_used = true;
	vq->log_addr = log_addr;
}

/**
 * arena_rx_one() - a device's work on one RX chain: write, mark, return
 * @vq:		queue
 * @e:		popped chain, one writable segment of at least @len bytes
 * @byte:	what to fill it with
 * @len:	bytes
 */
static inline void arena_rx_one(struct virtq *vq, const struct virtq_elem *e,
				int byte, uint32_t len)
{
	memset(e->iov[0].iov_base, byte, len);
	virtq_log_elem(vq, e, len);
	virtq_push(vq, e->head, len);
	virtq_flush(vq);
}

/**
 * arena_log_unmarked() - sync the shadow from the log, count what it missed
 * @al:		log and shadow, after arena_log_snap()
 * @arena:	guest memory, after the device wrote
 *
 * Copies every marked page into the shadow, as the next migration pass
 * would, then compares: a page that still differs was written and not
 * marked.  The log is cleared.
 *
 * Return: pages the log missed
 */
static inline unsigned int arena_log_unmarked(struct arena_log *al,
					      const uint8_t *arena)
{
	unsigned int p, missed = 0;

	for (p = 0; p < ARENA_SIZE / 4096; p++) {
		uint64_t page = GPA_BASE / 4096 + p;

		if (al->bits[page / 8] & (1u << (page % 8)))
			memcpy(al->shadow + p * 4096, arena + p * 4096, 4096);
	}
	memset(al->bits, 0, sizeof(al->bits));
	for (p = 0; p < ARENA_SIZE / 4096; p++)
		missed += memcmp(al->shadow + p * 4096, arena + p * 4096,
				 4096) != 0;
	return missed;
}

/**
 * arena_log_marked() - pages marked in the log now
 * @al:		log
 *
 * Return: bits set
 */
static inline unsigned int arena_log_marked(const struct arena_log *al)
{
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(al->bits); i++)
		n += (unsigned int)__builtin_popcount(al->bits[i]);
	return n;
}

#endif /* VIRTQ_ARENA_H */
