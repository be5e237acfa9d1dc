/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest_mem.h - the one place guest addresses become host pointers
 *
 * A guest memory table is a small array of regions, each mapped from a
 * file descriptor the front end passed with SET_MEM_TABLE/ADD_MEM_REG.
 * Every translation clamps the requested length to the region that holds
 * its start: a hostile address or length yields NULL or a short iovec
 * array, never a pointer outside a mapping.
 */
#ifndef VHOSTD_GUEST_MEM_H
#define VHOSTD_GUEST_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#define GUEST_MEM_MAX_REGIONS	32	/* reported as GET_MAX_MEM_SLOTS */
/* References one region may take (guest_mem_ref()): QEMU before 8.0
 * adds each region once per queue pair, so at least VU_MAX_QUEUE_PAIRS.
 */
#define GUEST_MEM_MAX_REFS	64

/**
 * struct guest_mem_region - one mapped region of guest memory
 * @gpa:	guest physical address of the first byte
 * @size:	length in bytes (non-zero)
 * @uva:	front end (QEMU) virtual address of the first byte
 * @hva:	our pointer to the first byte (inside the mapping)
 * @mmap_addr:	what mmap() returned, for munmap(); NULL if not ours
 * @mmap_len:	length passed to mmap()
 * @sealed:	the file is sealed against shrinking (F_SEAL_SHRINK): no
 *		page of it can vanish, no SIGBUS to contain
 * @file_dev:	the file's st_dev, st_ino and our @mmap_offset: what makes
 * @file_ino:	a second ADD_MEM_REG the same region (guest_mem_ref());
 * @offset:	0 for memory not mapped from a file
 * @refs:	adds not yet matched by a remove, 1..GUEST_MEM_MAX_REFS
 */
struct guest_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *hva;
	void *mmap_addr;
	size_t mmap_len;
	bool sealed;
	uint64_t file_dev;
	uint64_t file_ino;
	uint64_t offset;
	unsigned int refs;
};

/**
 * struct guest_mem - a device's memory table
 * @nregions:	regions in use, sorted by @gpa, non-overlapping
 * @r:		regions
 * @limit:	bytes this table may map in all (0: no limit), so that one
 *		front end cannot take vhostd's address space from the others
 * @owner:	context for guest_fault_fn when a page of one of our
 *		mappings vanishes (guest_fault.h)
 *
 * Owned by the vhost device; replaced only by the control thread while
 * every queue lock of the device is held (see vu_dev.h).  @limit and
 * @owner survive guest_mem_clear() and are copied by guest_mem_init_as().
 */
struct guest_mem {
	unsigned int nregions;
	struct guest_mem_region r[GUEST_MEM_MAX_REGIONS];
	uint64_t limit;
	void *owner;
};

struct stat;

void guest_mem_init(struct guest_mem *m);
void guest_mem_init_as(struct guest_mem *m, const struct guest_mem *like);
int guest_mem_add(struct guest_mem *m, int fd, uint64_t gpa, uint64_t size,
		  uint64_t uva, uint64_t mmap_offset);
int guest_mem_add_mapped(struct guest_mem *m, void *hva, uint64_t gpa,
			 uint64_t size, uint64_t uva);
int guest_mem_ref(struct guest_mem *m, int fd, uint64_t gpa, uint64_t size,
		  uint64_t uva, uint64_t mmap_offset);
int guest_mem_remove(struct guest_mem *m, uint64_t gpa, uint64_t size,
		     uint64_t uva);
void guest_mem_clear(struct guest_mem *m);
void *guest_mem_gpa(const struct guest_mem *m, uint64_t gpa, uint64_t len);
void *guest_mem_uva(const struct guest_mem *m, uint64_t uva, uint64_t len);
bool guest_mem_mapped(const struct guest_mem *m, uint64_t gpa, uint64_t len);
int guest_mem_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len,
		  struct iovec *iov, unsigned int max);
int guest_mem_iov_find(const struct guest_mem *m, unsigned int *hint,
		       uint64_t gpa, uint64_t len, struct iovec *iov,
		       unsigned int max);
int guest_mem_uva_gpa(const struct guest_mem *m, uint64_t uva, uint64_t *gpa);
uint64_t guest_mem_hva_gpa(const struct guest_mem *m, unsigned int *hint,
			   const void *hva, uint64_t *gpa);
uint64_t guest_mem_gpa_end(const struct guest_mem *m);
size_t guest_mem_page(int fd, const struct stat *st);

/**
 * struct guest_mem_span - one region's bounds, copied for a run of lookups
 * @gpa:	guest physical address of its first byte
 * @size:	its length; 0 for no region (every lookup misses)
 * @hva:	our pointer to its first byte
 */
struct guest_mem_span {
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
};

/**
 * guest_mem_span_of() - the bounds of region @hint, or an empty span
 * @m:		table
 * @hint:	a region index (any value: one past the table's end gives
 *		the empty span)
 * @s:		filled in
 */
static inline void guest_mem_span_of(const struct guest_mem *m,
				     unsigned int hint,
				     struct guest_mem_span *s)
{
	if (hint < m->nregions) {
		s->gpa = m->r[hint].gpa;
		s->size = m->r[hint].size;
		s->hva = m->r[hint].hva;
	} else {
		*s = (struct guest_mem_span){ 0 };
	}
}

/**
 * guest_mem_span_ptr() - our pointer to [@gpa, @gpa + @len), if wholly
 *			  inside @s
 * @s:		span
 * @gpa:	first byte
 * @len:	length, not 0
 *
 * Return: the pointer, or NULL if any byte lies outside @s
 */
static inline void *guest_mem_span_ptr(const struct guest_mem_span *s,
				       uint64_t gpa, uint64_t len)
{
	uint64_t off = gpa - s->gpa;	/* huge if below: no match */

	if (off < s->size && len <= s->size - off)
		return s->hva + off;
	return NULL;
}

/**
 * guest_mem_iov_hint() - guest_mem_iov(), trying region @hint first
 * @m:		table
 * @hint:	a region index remembered by the caller (any value: one
 *		past the table's end only misses); updated on a miss
 * @gpa:	first byte
 * @len:	length
 * @iov:	output
 * @max:	room in @iov
 *
 * A ring's buffers nearly always lie in the region its last one did: a
 * range wholly inside region @hint becomes one iovec without the search.
 * The hint is an index checked against the table as it is now, so it can
 * only choose a region of the current table that holds the whole range:
 * no staleness to manage when the table changes.
 *
 * Return: as guest_mem_iov()
 */
static inline int guest_mem_iov_hint(const struct guest_mem *m,
				     unsigned int *hint, uint64_t gpa,
				     uint64_t len, struct iovec *iov,
				     unsigned int max)
{
	if (len && max) {
		struct guest_mem_span s;
		void *p;

		guest_mem_span_of(m, *hint, &s);
		p = guest_mem_span_ptr(&s, gpa, len);
		if (p) {
			iov->iov_base = p;
			iov->iov_len = (size_t)len;
			return 1;
		}
	}
	return guest_mem_iov_find(m, hint, gpa, len, iov, max);
}

#endif /* VHOSTD_GUEST_MEM_H */
