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

/**
 * struct guest_mem_region - one mapped region of guest memory
 * @gpa:	guest physical address of the first byte
 * @size:	length in bytes (non-zero)
 * @uva:	front end (QEMU) virtual address of the first byte
 * @hva:	our pointer to the first byte (mmap_addr + mmap_offset)
 * @mmap_addr:	what mmap() returned, for munmap()
 * @mmap_len:	length passed to mmap()
 */
struct guest_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *hva;
	void *mmap_addr;
	size_t mmap_len;
};

/**
 * struct guest_mem - a device's memory table
 * @nregions:	regions in use, sorted by @gpa, non-overlapping
 * @r:		regions
 *
 * Owned by the vhost device; replaced only by the control thread while
 * every queue lock of the device is held (see vu_dev.h).
 */
struct guest_mem {
	unsigned int nregions;
	struct guest_mem_region r[GUEST_MEM_MAX_REGIONS];
};

void guest_mem_init(struct guest_mem *m);
int guest_mem_add(struct guest_mem *m, int fd, uint64_t gpa, uint64_t size,
		  uint64_t uva, uint64_t mmap_offset);
int guest_mem_add_mapped(struct guest_mem *m, void *hva, uint64_t gpa,
			 uint64_t size, uint64_t uva);
int guest_mem_remove(struct guest_mem *m, uint64_t gpa, uint64_t size,
		     uint64_t uva);
void guest_mem_clear(struct guest_mem *m);
void *guest_mem_gpa(const struct guest_mem *m, uint64_t gpa, uint64_t len);
void *guest_mem_uva(const struct guest_mem *m, uint64_t uva, uint64_t len);
bool guest_mem_mapped(const struct guest_mem *m, uint64_t gpa, uint64_t len);
int guest_mem_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len,
		  struct iovec *iov, unsigned int max);

#endif /* VHOSTD_GUEST_MEM_H */
