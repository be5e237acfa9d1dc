/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dirty_log.h - the live migration log: which guest pages we wrote
 *
 * While a guest migrates, its front end copies guest memory to the
 * destination page by page, again and again, until what changed since
 * the last pass is small.  What the guest's own CPUs write, the front end
 * tracks itself; what we write (RX buffers, used rings) it learns only
 * from this log: a bitmap in a memory file the front end shares with
 * SET_LOG_BASE (VHOST_USER_PROTOCOL_F_LOG_SHMFD), one bit per 4 KiB page
 * of guest physical address (vhost-user spec, "Migration"), bit p % 8 of
 * byte p / 8 for page p.  The front end reads and clears the bits with
 * atomic exchanges while we set them, so every mark is an atomic OR, and
 * comes after the write it stands for: a page marked before our store
 * landed could be copied and its bit cleared without the store.
 *
 * A mark outside the log is not written anywhere: it is counted
 * (@missed), and SET_LOG_BASE refuses a log too small for the guest's
 * memory, so that only a log address of the front end's own making (a
 * ring's log_guest_addr) can miss.
 */
#ifndef VHOSTD_DIRTY_LOG_H
#define VHOSTD_DIRTY_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "guest_mem.h"

#define DIRTY_LOG_PAGE_SHIFT	12	/* VHOST_LOG_PAGE, 0x1000 */
/* Largest log we map: 1 GiB of bits covers 32 TiB of guest memory. */
#define DIRTY_LOG_MAX		(1ull << 30)

/**
 * struct dirty_log - a mapped log
 * @bits:	byte 0 of the log (guest page 0), NULL when none is mapped
 * @size:	bytes of the log at @bits
 * @map:	what mmap() returned, NULL if nothing
 * @map_len:	its length
 * @missed:	marks that fell outside the log (any thread, atomically)
 */
struct dirty_log {
	uint8_t *bits;
	uint64_t size;
	void *map;
	size_t map_len;
	uint64_t missed;
};

/*
 * dirty_log_map()	map @size bytes at @offset of the front end's file
 *			@fd (tmpfs or hugetlbfs, at least that long, as guest
 *			memory must be, and sealed with F_SEAL_SHRINK),
 *			registered with guest_fault.c for @owner.  -EINVAL
 *			for a bad size or file, -EPERM if not sealed.
 * dirty_log_unmap()	unmap; the struct is empty afterwards.
 * dirty_log_need()	bytes a log must have to cover every page of @m.
 * dirty_log_gpa()	mark the pages of [@gpa, @gpa + @len).
 * dirty_log_iov()	mark the pages under the first @len bytes of @iov,
 *			pointers into @m's regions.
 */
int dirty_log_map(struct dirty_log *l, int fd, uint64_t size, uint64_t offset,
		  void *owner);
void dirty_log_unmap(struct dirty_log *l);
uint64_t dirty_log_need(const struct guest_mem *m);
void dirty_log_gpa(struct dirty_log *l, uint64_t gpa, uint64_t len);
void dirty_log_iov(struct dirty_log *l, const struct guest_mem *m,
		   const struct iovec *iov, unsigned int n, uint64_t len);

#endif /* VHOSTD_DIRTY_LOG_H */
