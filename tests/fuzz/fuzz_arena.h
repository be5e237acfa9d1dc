/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_arena.h - the fake guest memory the ring fuzzers share
 *
 * The input, past a few header bytes of the harness's own, becomes guest
 * memory: one arena split into two adjacent regions, so that buffers and
 * rings may straddle a region boundary as in a real guest.  Anything a
 * pop returns must lie inside the arena (arena_iov_ok()); the harness
 * traps otherwise.
 */
#ifndef FUZZ_ARENA_H
#define FUZZ_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "../../src/log.h"
#include "../../src/vhost/guest_mem.h"

#define ARENA_SIZE	0x10000
#define GPA_BASE	0x1000ull
#define UVA_BASE	0x7f0000000000ull

static uint8_t *arena;

/**
 * arena_iov_ok() - whether an iovec lies wholly inside the arena
 * @iov:	segment
 *
 * Return: true if inside
 */
static inline int arena_iov_ok(const struct iovec *iov)
{
	const uint8_t *p = iov->iov_base;

	return p >= arena && iov->iov_len <= ARENA_SIZE &&
	       p - arena <= (ptrdiff_t)(ARENA_SIZE - iov->iov_len);
}

/**
 * arena_map() - fill the arena from the input and map it into @m
 * @m:		memory table to set up
 * @data:	guest memory contents (zeros past @size)
 * @size:	bytes of @data
 */
static inline void arena_map(struct guest_mem *m, const uint8_t *data,
			     size_t size)
{
	if (!arena) {
		arena = aligned_alloc(4096, ARENA_SIZE);
		log_set_level(LOG_LVL_ERR);
	}
	memset(arena, 0, ARENA_SIZE);
	memcpy(arena, data, size < ARENA_SIZE ? size : ARENA_SIZE);

	guest_mem_init(m);
	if (guest_mem_add_mapped(m, arena, GPA_BASE, ARENA_SIZE / 2,
				 UVA_BASE) ||
	    guest_mem_add_mapped(m, arena + ARENA_SIZE / 2,
				 GPA_BASE + ARENA_SIZE / 2, ARENA_SIZE / 2,
				 UVA_BASE + ARENA_SIZE / 2))
		__builtin_trap();
}

#endif /* FUZZ_ARENA_H */
