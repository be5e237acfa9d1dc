// SPDX-License-Identifier: GPL-2.0-or-later
/* guest_mem.c - guest memory table: map regions, translate addresses
 *
 * DOC: Theory of Operation
 *
 * The front end describes guest RAM as a few regions, each backed by a
 * file descriptor.  We map each one from its mmap_offset rounded down to
 * the file's page size (not from 0: a region at the end of a large file
 * costs only its own size) and keep the table sorted by guest physical
 * address so a lookup is a binary search over at most
 * GUEST_MEM_MAX_REGIONS entries.
 *
 * QEMU before 8.0 runs one vhost device per queue pair over the same
 * connection, and each sends ADD_MEM_REG for every region: a guest with
 * N pairs adds each region N times, and removes it N times.  Such a
 * repeat -- the same addresses, the same file, the same offset -- takes
 * a reference on the region already mapped (guest_mem_ref()), and a
 * remove unmaps only when the last is dropped.  Anything else that
 * overlaps a region is still refused.
 *
 * The file stays the front end's: it may shrink it after we mapped it,
 * and touching a page past the new end raises SIGBUS.  Only files on
 * tmpfs (memfd, /dev/shm) and hugetlbfs are accepted, where every mapping
 * is registered with guest_fault.c, which contains such a fault to the
 * device that owns it.  A memfd sealed with F_SEAL_SHRINK (QEMU's
 * memory-backend-memfd seals by default) cannot shrink at all: those
 * regions are safe by construction, and marked @sealed.  The bytes a
 * table maps are capped (@limit, the port's max-mem=).
 *
 * Every address that reaches this file comes from the guest or the front
 * end and may be anything: all arithmetic is done in 64 bits with explicit
 * overflow checks, and a translation never returns a pointer whose range
 * leaves the region holding its first byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "../util.h"
#include "guest_fault.h"
#include "guest_mem.h"

/**
 * guest_mem_init() - empty memory table, no limit, no owner
 * @m:		table
 */
void guest_mem_init(struct guest_mem *m)
{
	memset(m, 0, sizeof(*m));
}

/**
 * guest_mem_init_as() - empty memory table with @like's limit and owner
 * @m:		table
 * @like:	table whose @limit and @owner to take (may be @m)
 */
void guest_mem_init_as(struct guest_mem *m, const struct guest_mem *like)
{
	uint64_t limit = like->limit;
	void *owner = like->owner;

	guest_mem_init(m);
	m->limit = limit;
	m->owner = owner;
}

/**
 * guest_mem_unmap() - forget and unmap one region's mapping, if ours
 * @r:		region
 */
static void guest_mem_unmap(const struct guest_mem_region *r)
{
	if (!r->mmap_addr)
		return;
	guest_fault_unregister(r->mmap_addr);
	munmap(r->mmap_addr, r->mmap_len);
}

/**
 * guest_mem_mapped_bytes() - bytes the table has mapped
 * @m:		table
 *
 * Return: the sum of its mapping lengths
 */
static uint64_t guest_mem_mapped_bytes(const struct guest_mem *m)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < m->nregions; i++)
		sum += m->r[i].mmap_len;
	return sum;
}

/**
 * guest_mem_page() - page size of a file we may map, or 0 if we may not
 * @fd:		the file
 * @st:		its fstat()
 *
 * Only tmpfs (memfd, /dev/shm) and hugetlbfs: there a page that vanishes
 * under a mapping is a SIGBUS guest_fault.c can contain (a private zero
 * page mapped over it).  On hugetlbfs the unit is the huge page.
 *
 * Return: the page size, or 0 for any other file system
 */
size_t guest_mem_page(int fd, const struct stat *st)
{
	struct statfs fs;

	if (fstatfs(fd, &fs) < 0)
		return 0;
	if (fs.f_type == TMPFS_MAGIC)
		return (size_t)sysconf(_SC_PAGESIZE);
	if (fs.f_type == HUGETLBFS_MAGIC && st->st_blksize > 0 &&
	    !(st->st_blksize & (st->st_blksize - 1)))
		return (size_t)st->st_blksize;
	return 0;
}

/**
 * range_ok() - check that [@start, @start + @len) neither is empty nor wraps
 * @start:	first byte
 * @len:	length
 *
 * Return: true if the range is non-empty and its last byte is addressable
 */
static bool range_ok(uint64_t start, uint64_t len)
{
	return len && len - 1 <= UINT64_MAX - start;
}

/**
 * ranges_overlap() - whether two valid ranges share a byte
 * @a:		first range start
 * @alen:	first range length (non-zero, no wrap)
 * @b:		second range start
 * @blen:	second range length (non-zero, no wrap)
 *
 * Return: true on overlap
 */
static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b,
			   uint64_t blen)
{
	/* Compare last bytes, not ends: an end may be 2^64. */
	return a <= b + (blen - 1) && b <= a + (alen - 1);
}

/**
 * guest_mem_insert() - validate a region and insert it in gpa order
 * @m:		table
 * @reg:	region, fully filled in
 *
 * Return: 0, -EINVAL for a bad or overlapping range, -ENOSPC if full
 */
static int guest_mem_insert(struct guest_mem *m,
			    const struct guest_mem_region *reg)
{
	unsigned int i, pos;

	if (!range_ok(reg->gpa, reg->size) || !range_ok(reg->uva, reg->size))
		return -EINVAL;
	if (m->nregions >= GUEST_MEM_MAX_REGIONS)
		return -ENOSPC;

	/* Overlaps in either space would make a translation ambiguous. */
	for (i = 0; i < m->nregions; i++) {
		const struct guest_mem_region *r = &m->r[i];

		if (ranges_overlap(r->gpa, r->size, reg->gpa, reg->size) ||
		    ranges_overlap(r->uva, r->size, reg->uva, reg->size))
			return -EINVAL;
	}

	for (pos = 0; pos < m->nregions && m->r[pos].gpa < reg->gpa; pos++)
		;
	memmove(&m->r[pos + 1], &m->r[pos],
		(m->nregions - pos) * sizeof(m->r[0]));
	m->r[pos] = *reg;
	m->nregions++;
	return 0;
}

/**
 * guest_mem_add() - map a region from a file descriptor and add it
 * @m:			table
 * @fd:			file backing the region (not consumed: the caller
 *			closes it, the mapping keeps its own reference)
 * @gpa:		guest physical address of the region
 * @size:		region length
 * @uva:		front end virtual address of the region
 * @mmap_offset:	offset of the region's first byte in @fd
 *
 * The file must be a regular file on tmpfs (memfd) or hugetlbfs at least
 * @mmap_offset + @size long: a shorter one would map pages that raise
 * SIGBUS when the guest points a descriptor at them.  The mapping starts
 * at @mmap_offset rounded down to the file's page size and is registered
 * with guest_fault.c (owner @m->owner) before anyone can touch it.
 *
 * Return: 0, -EINVAL (bad range, overlap, bad file or file system),
 *	   -ENOSPC (table or fault registry full), -ENOMEM (over @m->limit),
 *	   or mmap's -errno
 */
int guest_mem_add(struct guest_mem *m, int fd, uint64_t gpa, uint64_t size,
		  uint64_t uva, uint64_t mmap_offset)
{
	struct guest_mem_region reg;
	uint64_t end, off, len;
	struct stat st;
	size_t page;
	int rc, seals;
	void *p;

	if (!range_ok(gpa, size) || !range_ok(uva, size) ||
	    !range_ok(mmap_offset, size))
		return -EINVAL;
	end = mmap_offset + size;
	if (end > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size < end)
		return -EINVAL;
	page = guest_mem_page(fd, &st);
	if (!page)
		return -EINVAL;
	off = mmap_offset & ~(uint64_t)(page - 1);
	len = (end - off + page - 1) & ~(uint64_t)(page - 1);
	if (len > SIZE_MAX)
		return -EINVAL;
	if (m->nregions >= GUEST_MEM_MAX_REGIONS)
		return -ENOSPC;
	if (m->limit && len > m->limit - MIN(m->limit,
					      guest_mem_mapped_bytes(m)))
		return -ENOMEM;

	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	rc = guest_fault_register(p, (size_t)len, page, m->owner);
	if (rc < 0) {
		munmap(p, (size_t)len);
		return rc;
	}

	seals = fcntl(fd, F_GET_SEALS);
	memset(&reg, 0, sizeof(reg));
	reg.file_dev = st.st_dev;
	reg.file_ino = st.st_ino;
	reg.offset = mmap_offset;
	reg.refs = 1;
	reg.gpa = gpa;
	reg.size = size;
	reg.uva = uva;
	reg.hva = (uint8_t *)p + (mmap_offset - off);
	reg.mmap_addr = p;
	reg.mmap_len = (size_t)len;
	reg.sealed = seals >= 0 && (seals & F_SEAL_SHRINK);
	rc = guest_mem_insert(m, &reg);
	if (rc < 0)
		guest_mem_unmap(&reg);
	return rc;
}

/**
 * guest_mem_add_mapped() - add memory we already have (tests, fuzzers)
 * @m:		table
 * @hva:	our pointer to the first byte; never unmapped by us
 * @gpa:	guest physical address
 * @size:	length
 * @uva:	front end address
 *
 * Return: 0, -EINVAL or -ENOSPC
 */
int guest_mem_add_mapped(struct guest_mem *m, void *hva, uint64_t gpa,
			 uint64_t size, uint64_t uva)
{
	struct guest_mem_region reg = {
		.gpa = gpa, .size = size, .uva = uva, .hva = hva,
		.sealed = true,		/* not a file of the front end's */
		.refs = 1,
	};

	if (!hva || size > SIZE_MAX)
		return -EINVAL;
	return guest_mem_insert(m, &reg);
}

/**
 * guest_mem_ref() - a region added again: take a reference on it
 * @m:			table
 * @fd:			file backing the region (not consumed)
 * @gpa:		guest physical address of the region
 * @size:		region length
 * @uva:		front end virtual address of the region
 * @mmap_offset:	offset of the region's first byte in @fd
 *
 * Matches only a region we mapped from a file with exactly these
 * addresses, the same file (device and inode of @fd) and the same
 * offset: the same bytes at the same places, nothing to map again.
 *
 * Return: 0 (a reference taken), -ENOENT if no region is the same (then
 *	   guest_mem_add() decides), -ENOSPC if it holds GUEST_MEM_MAX_REFS,
 *	   or fstat's -errno
 */
int guest_mem_ref(struct guest_mem *m, int fd, uint64_t gpa, uint64_t size,
		  uint64_t uva, uint64_t mmap_offset)
{
	struct stat st;
	unsigned int i;

	for (i = 0; i < m->nregions; i++) {
		struct guest_mem_region *r = &m->r[i];

		if (r->gpa != gpa || r->size != size || r->uva != uva ||
		    r->offset != mmap_offset || !r->mmap_addr)
			continue;
		if (fstat(fd, &st) < 0)
			return -errno;
		if (r->file_dev != (uint64_t)st.st_dev ||
		    r->file_ino != (uint64_t)st.st_ino)
			return -ENOENT;
		if (r->refs >= GUEST_MEM_MAX_REFS)
			return -ENOSPC;
		r->refs++;
		return 0;
	}
	return -ENOENT;
}

/**
 * guest_mem_remove() - drop a reference on the region matching all three
 *			values; unmap and drop it with its last
 * @m:		table
 * @gpa:	guest physical address of the region
 * @size:	its length
 * @uva:	its front end address
 *
 * Return: 0 (unmapped and gone), 1 (a reference dropped, still mapped:
 *	   nothing changed for the rings), or -ENOENT if no region matches
 *	   exactly
 */
int guest_mem_remove(struct guest_mem *m, uint64_t gpa, uint64_t size,
		     uint64_t uva)
{
	unsigned int i;

	for (i = 0; i < m->nregions; i++) {
		struct guest_mem_region *r = &m->r[i];

		if (r->gpa != gpa || r->size != size || r->uva != uva)
			continue;
		if (r->refs > 1) {
			r->refs--;
			return 1;
		}
		guest_mem_unmap(r);
		memmove(r, r + 1, (m->nregions - i - 1) * sizeof(*r));
		m->nregions--;
		memset(&m->r[m->nregions], 0, sizeof(m->r[0]));
		return 0;
	}
	return -ENOENT;
}

/**
 * guest_mem_clear() - unmap every region we mapped and empty the table
 * @m:		table (its limit and owner stay)
 */
void guest_mem_clear(struct guest_mem *m)
{
	unsigned int i;

	for (i = 0; i < m->nregions; i++)
		guest_mem_unmap(&m->r[i]);
	guest_mem_init_as(m, m);
}

/**
 * guest_mem_find() - region holding guest physical address @gpa
 * @m:		table
 * @gpa:	address
 *
 * Return: region, or NULL if @gpa is not mapped
 */
static const struct guest_mem_region *
guest_mem_find(const struct guest_mem *m, uint64_t gpa)
{
	unsigned int lo = 0, hi = m->nregions;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct guest_mem_region *r = &m->r[mid];

		if (gpa < r->gpa)
			hi = mid;
		else if (gpa - r->gpa >= r->size)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

/**
 * guest_mem_gpa() - translate a guest physical range to a host pointer
 * @m:		table
 * @gpa:	first byte
 * @len:	bytes that must be accessible (0 is treated as 1)
 *
 * Return: pointer, or NULL unless the whole range lies in one region
 */
void *guest_mem_gpa(const struct guest_mem *m, uint64_t gpa, uint64_t len)
{
	const struct guest_mem_region *r = guest_mem_find(m, gpa);
	uint64_t off;

	if (!r)
		return NULL;
	off = gpa - r->gpa;
	if (len > r->size - off)
		return NULL;
	return r->hva + off;
}

/**
 * guest_mem_find_uva() - region holding front end virtual address @uva
 * @m:		table
 * @uva:	address
 *
 * Linear scan (regions are sorted by gpa, not uva): rings are mapped
 * rarely, never per packet.
 *
 * Return: region, or NULL if no region holds @uva
 */
static const struct guest_mem_region *
guest_mem_find_uva(const struct guest_mem *m, uint64_t uva)
{
	unsigned int i;

	for (i = 0; i < m->nregions; i++)
		if (uva >= m->r[i].uva && uva - m->r[i].uva < m->r[i].size)
			return &m->r[i];
	return NULL;
}

/**
 * guest_mem_uva() - translate a front end virtual range to a host pointer
 * @m:		table
 * @uva:	first byte (a QEMU address, as in SET_VRING_ADDR)
 * @len:	bytes that must be accessible (0 is treated as 1)
 *
 * Return: pointer, or NULL unless the whole range lies in one region
 */
void *guest_mem_uva(const struct guest_mem *m, uint64_t uva, uint64_t len)
{
	const struct guest_mem_region *r = guest_mem_find_uva(m, uva);
	uint64_t off;

	if (!r)
		return NULL;
	off = uva - r->uva;
	if (len > r->size - off)
		return NULL;
	return r->hva + off;
}

/**
 * guest_mem_mapped() - whether every byte of a guest range is mapped
 * @m:		memory table
 * @gpa:	guest physical address
 * @len:	length
 *
 * For chains we will not use but must still validate (a hostile address
 * behind a droppable part of a chain still breaks the ring).
 *
 * Return: true if [@gpa, @gpa + @len) lies in mapped regions
 */
bool guest_mem_mapped(const struct guest_mem *m, uint64_t gpa, uint64_t len)
{
	if (!len)
		return true;
	if (!range_ok(gpa, len))
		return false;
	while (len) {
		const struct guest_mem_region *r = guest_mem_find(m, gpa);
		uint64_t chunk;

		if (!r)
			return false;
		chunk = MIN(len, r->size - (gpa - r->gpa));
		gpa += chunk;
		len -= chunk;
	}
	return true;
}

/**
 * guest_mem_iov() - split a guest physical range into host iovecs
 * @m:		table
 * @gpa:	first byte
 * @len:	length (0 gives no iovec)
 * @iov:	output, one entry per region crossed
 * @max:	room in @iov
 *
 * Return: entries written, -EFAULT if any byte is unmapped or the range
 *	   wraps, -E2BIG if it needs more than @max entries
 */
int guest_mem_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len,
		  struct iovec *iov, unsigned int max)
{
	return guest_mem_iov_find(m, NULL, gpa, len, iov, max);
}

/**
 * guest_mem_iov_find() - guest_mem_iov(), telling where the range began
 * @m:		table
 * @hint:	if not NULL, set to the index of the region holding @gpa
 *		when the range is mapped (see guest_mem_iov_hint())
 * @gpa:	first byte
 * @len:	length
 * @iov:	output
 * @max:	room in @iov
 *
 * Return: as guest_mem_iov()
 */
int guest_mem_iov_find(const struct guest_mem *m, unsigned int *hint,
		       uint64_t gpa, uint64_t len, struct iovec *iov,
		       unsigned int max)
{
	unsigned int n = 0;

	if (!len)
		return 0;
	if (!range_ok(gpa, len))
		return -EFAULT;

	while (len) {
		const struct guest_mem_region *r = guest_mem_find(m, gpa);
		uint64_t off, chunk;

		if (!r)
			return -EFAULT;
		if (n == max)
			return -E2BIG;
		if (!n && hint)
			*hint = (unsigned int)(r - m->r);
		off = gpa - r->gpa;
		chunk = MIN(len, r->size - off);
		iov[n].iov_base = r->hva + off;
		iov[n].iov_len = (size_t)chunk;
		n++;
		/* No wrap: the range was checked above. */
		gpa += chunk;
		len -= chunk;
	}
	return (int)n;
}

/**
 * guest_mem_uva_gpa() - the guest physical address of a front end address
 * @m:		table
 * @uva:	front end virtual address (a ring's, from SET_VRING_ADDR)
 * @gpa:	out: its guest physical address
 *
 * For the dirty log, which is indexed by guest physical address while
 * rings are given as front end addresses.
 *
 * Return: 0, or -EFAULT if no region holds @uva
 */
int guest_mem_uva_gpa(const struct guest_mem *m, uint64_t uva, uint64_t *gpa)
{
	const struct guest_mem_region *r = guest_mem_find_uva(m, uva);

	if (!r)
		return -EFAULT;
	*gpa = r->gpa + (uva - r->uva);
	return 0;
}

/**
 * guest_mem_hva_gpa() - the guest physical address of one of our pointers
 * @m:		table
 * @hint:	a region index remembered by the caller (any value), tried
 *		first; updated on a miss
 * @hva:	a pointer into one of @m's regions (an iovec's base from
 *		guest_mem_iov())
 * @gpa:	out: its guest physical address
 *
 * Return: bytes of the region from @hva on, or 0 if no region holds it
 */
uint64_t guest_mem_hva_gpa(const struct guest_mem *m, unsigned int *hint,
			   const void *hva, uint64_t *gpa)
{
	const uint8_t *p = hva;
	unsigned int i, k;

	for (i = 0; i <= m->nregions; i++) {
		const struct guest_mem_region *r;

		k = i ? i - 1 : *hint;	/* the hint first, then all */
		if (k >= m->nregions)
			continue;
		r = &m->r[k];
		if (p >= r->hva && (uint64_t)(p - r->hva) < r->size) {
			*hint = k;
			*gpa = r->gpa + (uint64_t)(p - r->hva);
			return r->size - (uint64_t)(p - r->hva);
		}
	}
	return 0;
}

/**
 * guest_mem_gpa_end() - one past the highest guest physical address mapped
 * @m:		table
 *
 * Return: the end of the last region (regions are sorted by gpa), 0 if
 *	   the table is empty; saturated at UINT64_MAX
 */
uint64_t guest_mem_gpa_end(const struct guest_mem *m)
{
	const struct guest_mem_region *r;

	if (!m->nregions)
		return 0;
	r = &m->r[m->nregions - 1];
	return r->size > UINT64_MAX - r->gpa ? UINT64_MAX : r->gpa + r->size;
}
