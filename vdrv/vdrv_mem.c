// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_mem.c - the guest's memory: memfd regions shared with the back end
 *
 * A real guest's RAM reaches a vhost-user back end as file descriptors plus
 * a table saying where each region sits in guest-physical space and in the
 * front end's address space.  We mimic a realistic layout on purpose: two
 * regions, each in its own memfd, at guest-physical bases that are neither
 * zero nor equal to our mapping address (low RAM at 1 MiB, high RAM at
 * 4 GiB, like a PC with a hole below 4 GiB), so a back end that confuses
 * guest-physical, user and its own addresses fails at once.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vdrv_priv.h"

/* Guest-physical bases of the regions: "low RAM" and "above 4 GiB". */
static const uint64_t vdrv_mem_gpa[VDRV_MEM_REGIONS] = {
	0x00100000ULL,
	0x100000000ULL,
};

/**
 * vdrv_mem_init() - create and map the guest memory regions
 * @m:		memory to set up
 * @sizes:	bytes per region (rounded up to pages); 0 = region unused
 *
 * Return: 0, or -errno (nothing left allocated)
 */
int vdrv_mem_init(struct vdrv_mem *m, const uint64_t sizes[VDRV_MEM_REGIONS])
{
	return vdrv_mem_init_at(m, sizes, 0);
}

/**
 * vdrv_mem_init_at() - vdrv_mem_init() with the guest-physical bases moved
 * @m:		memory to set up
 * @sizes:	bytes per region (rounded up to pages); 0 = region unused
 * @gpa_off:	added to each region's usual base, so that the memory of
 *		several queue pairs (each its own regions) does not overlap
 *		in the one table the back end gets
 *
 * Return: 0, or -errno (nothing left allocated)
 */
int vdrv_mem_init_at(struct vdrv_mem *m, const uint64_t sizes[VDRV_MEM_REGIONS],
		     uint64_t gpa_off)
{
	unsigned int i;
	int ret;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < VDRV_MEM_REGIONS; i++)
		m->r[i].fd = -1;

	for (i = 0; i < VDRV_MEM_REGIONS && sizes[i]; i++) {
		struct vdrv_region *r = &m->r[i];
		void *p;

		r->size = VDRV_ALIGN(sizes[i], 4096);
		r->gpa = vdrv_mem_gpa[i] + gpa_off;
		r->fd = memfd_create("vdrv-guest", MFD_CLOEXEC);
		if (r->fd < 0) {
			ret = -errno;
			goto err;
		}
		if (ftruncate(r->fd, (off_t)r->size) < 0) {
			ret = -errno;
			goto err;
		}
		p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 r->fd, 0);
		if (p == MAP_FAILED) {
			ret = -errno;
			goto err;
		}
		r->hva = p;
		m->nregions = i + 1;
	}
	return 0;

err:
	m->nregions = i + 1;
	vdrv_mem_fini(m);
	return ret;
}

/**
 * vdrv_mem_fini() - unmap and close every region
 * @m:	memory set up by vdrv_mem_init()
 */
void vdrv_mem_fini(struct vdrv_mem *m)
{
	unsigned int i;

	for (i = 0; i < m->nregions; i++) {
		struct vdrv_region *r = &m->r[i];

		if (r->hva)
			munmap(r->hva, r->size);
		if (r->fd >= 0)
			close(r->fd);
		r->hva = NULL;
		r->fd = -1;
	}
	m->nregions = 0;
}

/**
 * vdrv_mem_alloc() - carve a block out of one region (never freed alone)
 * @m:		guest memory
 * @region:	which region
 * @size:	bytes
 * @align:	power of two
 * @gpa:	out: guest-physical address of the block
 *
 * Return: our address of the block (zeroed), or NULL if it does not fit
 */
void *vdrv_mem_alloc(struct vdrv_mem *m, unsigned int region, uint64_t size,
		     uint64_t align, uint64_t *gpa)
{
	struct vdrv_region *r;
	uint64_t off;

	if (region >= m->nregions)
		return NULL;
	r = &m->r[region];
	off = VDRV_ALIGN(r->used, align);
	if (off > r->size || size > r->size - off)
		return NULL;
	r->used = off + size;
	*gpa = r->gpa + off;
	memset(r->hva + off, 0, size);
	return r->hva + off;
}
