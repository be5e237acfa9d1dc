// SPDX-License-Identifier: GPL-2.0-or-later
/* dirty_log.c - the live migration log: map it, mark pages in it
 *
 * DOC: Theory of Operation
 *
 * The log is the front end's file, like guest memory, and gets more
 * care: only a regular file on tmpfs or hugetlbfs (guest_mem_page()), at
 * least as long as the part we map, and sealed against shrinking
 * (F_SEAL_SHRINK, which QEMU's log always is), so no page of it can
 * vanish under a mark; mapped shared and registered with guest_fault.c
 * all the same.
 *
 * Marking is one atomic OR per page touched, with release order: the
 * stores into guest memory it stands for are visible before the bit is.
 * Writes of a few bytes (a used entry, an index) touch one page; a
 * frame's buffer one or two.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../util.h"
#include "dirty_log.h"
#include "guest_fault.h"

/**
 * dirty_log_map() - map a front end's log
 * @l:		log, empty (dirty_log_unmap() or zeroed)
 * @fd:		the log's file (not consumed)
 * @size:	bytes of log
 * @offset:	where in @fd the log starts (guest page 0's byte)
 * @owner:	guest_fault.c's context for a page of it vanishing
 *
 * Return: 0, -EINVAL (empty or too large, not a file on tmpfs or
 *	   hugetlbfs, shorter than @offset + @size), -EPERM (not sealed
 *	   with F_SEAL_SHRINK), -ENOSPC (fault registry full), or mmap's
 *	   -errno
 */
int dirty_log_map(struct dirty_log *l, int fd, uint64_t size, uint64_t offset,
		  void *owner)
{
	uint64_t off, len;
	struct stat st;
	int rc, seals;
	size_t page;
	void *p;

	memset(l, 0, sizeof(*l));
	if (!size || size > DIRTY_LOG_MAX || offset > (uint64_t)INT64_MAX - size)
		return -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size < offset + size)
		return -EINVAL;
	page = guest_mem_page(fd, &st);
	if (!page)
		return -EINVAL;
	/* Sealed against shrinking, as QEMU seals its log: every worker
	 * marks it, and a page of it vanishing would raise SIGBUS inside
	 * whatever atomic the mark is (a sanitizer's runtime included).
	 */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EPERM;
	off = offset & ~(uint64_t)(page - 1);
	len = (offset + size - off + page - 1) & ~(uint64_t)(page - 1);

	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	rc = guest_fault_register(p, (size_t)len, page, owner);
	if (rc < 0) {
		munmap(p, (size_t)len);
		return rc;
	}
	l->map = p;
	l->map_len = (size_t)len;
	l->bits = (uint8_t *)p + (offset - off);
	l->size = size;
	return 0;
}

/**
 * dirty_log_unmap() - unmap a log, if any
 * @l:		log; empty afterwards
 *
 * Context: no thread may be marking it (the caller swapped it out under
 * every queue lock)
 */
void dirty_log_unmap(struct dirty_log *l)
{
	if (l->map) {
		guest_fault_unregister(l->map);
		munmap(l->map, l->map_len);
	}
	memset(l, 0, sizeof(*l));
}

/**
 * dirty_log_need() - log bytes that cover every page of a memory table
 * @m:		table
 *
 * Return: bytes (0 for an empty table)
 */
uint64_t dirty_log_need(const struct guest_mem *m)
{
	uint64_t end = guest_mem_gpa_end(m);
	uint64_t pages;

	if (!end)
		return 0;
	pages = ((end - 1) >> DIRTY_LOG_PAGE_SHIFT) + 1;
	return (pages + 7) / 8;
}

/**
 * dirty_log_gpa() - mark the pages of a guest physical range
 * @l:		log, mapped
 * @gpa:	first byte written
 * @len:	bytes written (0: nothing)
 *
 * Context: any thread, after the writes
 */
void dirty_log_gpa(struct dirty_log *l, uint64_t gpa, uint64_t len)
{
	uint64_t page, last;

	if (!len)
		return;
	page = gpa >> DIRTY_LOG_PAGE_SHIFT;
	/* A range that wraps ends at the top of the address space. */
	last = (len - 1 > UINT64_MAX - gpa ? UINT64_MAX : gpa + (len - 1)) >>
	       DIRTY_LOG_PAGE_SHIFT;
	for (; page <= last; page++) {
		if (page / 8 >= l->size) {
			__atomic_fetch_add(&l->missed, last - page + 1,
					   __ATOMIC_RELAXED);
			return;
		}
		__atomic_fetch_or(&l->bits[page / 8], (uint8_t)(1u << (page % 8)),
				  __ATOMIC_RELEASE);
	}
}

/**
 * dirty_log_iov() - mark the pages under what was written into an iovec
 * @l:		log, mapped
 * @m:		the memory table @iov's pointers were made from
 * @iov:	segments, each inside one region of @m (guest_mem_iov())
 * @n:		segments
 * @len:	bytes written from the start of @iov on
 *
 * A pointer in no region (never, for iovecs from @m) marks nothing and
 * counts as missed.
 *
 * Context: any thread, the table held (a queue lock), after the writes
 */
void dirty_log_iov(struct dirty_log *l, const struct guest_mem *m,
		   const struct iovec *iov, unsigned int n, uint64_t len)
{
	unsigned int i, hint = 0;

	for (i = 0; i < n && len; i++) {
		uint64_t chunk = MIN(len, (uint64_t)iov[i].iov_len), gpa = 0, room;

		room = guest_mem_hva_gpa(m, &hint, iov[i].iov_base, &gpa);
		if (room < chunk) {
			__atomic_fetch_add(&l->missed, 1, __ATOMIC_RELAXED);
			chunk = room;
		}
		dirty_log_gpa(l, gpa, chunk);
		len -= MIN(len, (uint64_t)iov[i].iov_len);
	}
}
