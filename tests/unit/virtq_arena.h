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

#include "../../src/vhost/guest_mem.h"

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

#endif /* VIRTQ_ARENA_H */
