// SPDX-License-Identifier: GPL-2.0-or-later
/* test_guest_mem.c - guest memory table: mapping, translation, hostile input
 *
 * Regions come from a malloc'd arena (guest_mem_add_mapped) or a memfd
 * (guest_mem_add).  The last test checks the binary-search translation
 * against a naive linear scan under random tables and random queries.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "../../src/vhost/guest_fault.h"
#include "../../src/vhost/guest_mem.h"

static uint8_t arena[1 << 16];

/**
 * test_add_sorted_and_rejects() - insertion order, overlaps, bad ranges
 * @state:	cmocka state (unused)
 */
static void test_add_sorted_and_rejects(void **state)
{
	struct guest_mem m;

	guest_mem_init(&m);
	assert_int_equal(guest_mem_add_mapped(&m, arena + 0x2000, 0x20000,
					      0x1000, 0x7f0000020000), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x10000, 0x1000,
					      0x7f0000010000), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena + 0x4000, 0x30000,
					      0x1000, 0x7f0000030000), 0);
	assert_int_equal(m.nregions, 3);
	assert_true(m.r[0].gpa < m.r[1].gpa && m.r[1].gpa < m.r[2].gpa);

	/* overlap in gpa, overlap in uva, zero size, wrapping ranges */
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x10800, 0x1000,
					      0x1000000), -EINVAL);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x50000, 0x1000,
					      0x7f0000010800), -EINVAL);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x60000, 0,
					      0x2000000), -EINVAL);
	assert_int_equal(guest_mem_add_mapped(&m, arena, UINT64_MAX - 10, 100,
					      0x3000000), -EINVAL);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x70000, 100,
					      UINT64_MAX - 10), -EINVAL);
	/* last byte of the address space is fine */
	assert_int_equal(guest_mem_add_mapped(&m, arena, UINT64_MAX - 99, 100,
					      0x4000000), 0);
	assert_int_equal(m.nregions, 4);

	assert_int_equal(guest_mem_remove(&m, 0x20000, 0x1000, 0), -ENOENT);
	assert_int_equal(guest_mem_remove(&m, 0x20000, 0x1000,
					  0x7f0000020000), 0);
	assert_int_equal(m.nregions, 3);
	assert_null(guest_mem_gpa(&m, 0x20000, 1));
	guest_mem_clear(&m);
	assert_int_equal(m.nregions, 0);
}

/**
 * test_full_table() - the table holds GUEST_MEM_MAX_REGIONS, not one more
 * @state:	cmocka state (unused)
 */
static void test_full_table(void **state)
{
	struct guest_mem m;
	unsigned int i;

	guest_mem_init(&m);
	for (i = 0; i < GUEST_MEM_MAX_REGIONS; i++)
		assert_int_equal(guest_mem_add_mapped(&m, arena + i * 16,
						      i * 0x100, 16,
						      0x1000 + i * 0x100), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x100000, 16,
					      0x100000), -ENOSPC);
	guest_mem_clear(&m);
}

/**
 * test_translate_clamp() - translations never leave the region
 * @state:	cmocka state (unused)
 */
static void test_translate_clamp(void **state)
{
	struct guest_mem m;

	guest_mem_init(&m);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x1000, 0x1000,
					      0xa000), 0);
	assert_ptr_equal(guest_mem_gpa(&m, 0x1000, 0x1000), arena);
	assert_ptr_equal(guest_mem_gpa(&m, 0x1ff0, 16), arena + 0xff0);
	assert_null(guest_mem_gpa(&m, 0x1ff0, 17));
	assert_null(guest_mem_gpa(&m, 0xfff, 1));
	assert_null(guest_mem_gpa(&m, 0x2000, 1));
	assert_null(guest_mem_gpa(&m, 0x1800, UINT64_MAX));
	assert_ptr_equal(guest_mem_uva(&m, 0xa010, 16), arena + 0x10);
	assert_null(guest_mem_uva(&m, 0xaff8, 16));
	assert_null(guest_mem_uva(&m, 0x1000, 1));
	guest_mem_clear(&m);
}

/**
 * test_iov_hint() - the hinted lookup agrees with the plain one, whatever
 *		     the hint says
 * @state:	cmocka state (unused)
 *
 * Every range of a small grid (inside a region, across two, in a gap,
 * empty, wrapping, too many segments) with every hint value, a stale one
 * past the table's end included, must give what guest_mem_iov() gives;
 * a mapped range must leave the hint at the region of its first byte.
 */
static void test_iov_hint(void **state)
{
	static const uint64_t gpas[] = { 0, 0xfff, 0x1000, 0x1800, 0x1f00,
					 0x2fff, 0x3000, 0x5000,
					 UINT64_MAX - 1 };
	static const uint64_t lens[] = { 0, 1, 0x100, 0x200, 0x1000, 0x2000,
					 UINT64_MAX };
	enum { NG = sizeof(gpas) / sizeof(gpas[0]),
	       NL = sizeof(lens) / sizeof(lens[0]),
	       NH = GUEST_MEM_MAX_REGIONS + 1 };
	struct guest_mem m;
	unsigned int i;

	guest_mem_init(&m);
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x1000, 0x1000,
					      0xa000), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena + 0x8000, 0x2000,
					      0x1000, 0xb000), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena + 0x4000, 0x5000,
					      0x1000, 0xc000), 0);
	/* One flat loop over the grid: gpa, length, hint, room. */
	for (i = 0; i < NG * NL * NH * 3; i++) {
		unsigned int g = i / (NL * NH * 3), l = i / (NH * 3) % NL;
		unsigned int hint = i / 3 % NH, max = i % 3;
		struct iovec a[2], b[2];
		int ra, rb;

		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		ra = guest_mem_iov(&m, gpas[g], lens[l], a, max);
		rb = guest_mem_iov_hint(&m, &hint, gpas[g], lens[l], b, max);
		assert_int_equal(ra, rb);
		assert_memory_equal(a, b, sizeof(a));
		if (ra > 0)
			assert_ptr_equal(guest_mem_gpa(&m, gpas[g], 1),
					 m.r[hint].hva +
					 (gpas[g] - m.r[hint].gpa));
	}
	guest_mem_clear(&m);
}

/**
 * test_iov_split() - a range over adjacent regions, gaps, hostile lengths
 * @state:	cmocka state (unused)
 */
static void test_iov_split(void **state)
{
	struct guest_mem m;
	struct iovec iov[4];

	guest_mem_init(&m);
	/* two gpa-adjacent regions whose host memory is not adjacent */
	assert_int_equal(guest_mem_add_mapped(&m, arena, 0x1000, 0x1000,
					      0xa000), 0);
	assert_int_equal(guest_mem_add_mapped(&m, arena + 0x8000, 0x2000,
					      0x1000, 0xb000), 0);
	assert_int_equal(guest_mem_iov(&m, 0x1f00, 0x200, iov, 4), 2);
	assert_ptr_equal(iov[0].iov_base, arena + 0xf00);
	assert_int_equal(iov[0].iov_len, 0x100);
	assert_ptr_equal(iov[1].iov_base, arena + 0x8000);
	assert_int_equal(iov[1].iov_len, 0x100);
	assert_int_equal(guest_mem_iov(&m, 0x1f00, 0x200, iov, 1), -E2BIG);
	assert_int_equal(guest_mem_iov(&m, 0x1f00, 0x1101, iov, 4), -EFAULT);
	assert_int_equal(guest_mem_iov(&m, 0x1f00, 0, iov, 4), 0);
	assert_int_equal(guest_mem_iov(&m, 0x1f00, UINT64_MAX, iov, 4),
			 -EFAULT);
	assert_int_equal(guest_mem_iov(&m, UINT64_MAX, 2, iov, 4), -EFAULT);
	assert_int_equal(guest_mem_iov(&m, 0x500, 1, iov, 4), -EFAULT);
	guest_mem_clear(&m);
}

/**
 * test_memfd() - real mappings: offsets, short files, non-files
 * @state:	cmocka state (unused)
 */
static void test_memfd(void **state)
{
	struct guest_mem m;
	int fd, pfd[2];
	uint8_t *p, *q;

	fd = memfd_create("test_guest_mem", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 0x10000), 0);
	p = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	p[0x1234] = 0x5a;

	guest_mem_init(&m);
	/* offset not page aligned: hva must still land on file byte 0x1234 */
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 0x100, 0x7000000,
				       0x1200), 0);
	q = guest_mem_gpa(&m, 0x100034, 1);
	assert_non_null(q);
	assert_int_equal(*q, 0x5a);
	/* region past the end of the file would SIGBUS later: refused */
	assert_int_equal(guest_mem_add(&m, fd, 0x200000, 0x10000, 0x8000000,
				       0x1000), -EINVAL);
	assert_int_equal(guest_mem_add(&m, fd, 0x200000, 0x10, 0x8000000,
				       UINT64_MAX - 4), -EINVAL);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(guest_mem_add(&m, pfd[0], 0x200000, 0x10, 0x8000000,
				       0), -EINVAL);
	assert_int_equal(guest_mem_add(&m, -1, 0x200000, 0x10, 0x8000000, 0),
			 -EBADF);
	assert_int_equal(m.nregions, 1);
	guest_mem_clear(&m);
	close(pfd[0]);
	close(pfd[1]);
	munmap(p, 0x10000);
	close(fd);
}

/**
 * test_ref() - the same region added again takes a reference (QEMU < 8.0
 *		adds it once per queue pair); only the last remove unmaps
 * @state:	cmocka state (unused)
 */
static void test_ref(void **state)
{
	struct guest_mem m;
	int fd, fd2, other;
	unsigned int i;
	uint8_t *q;

	fd = memfd_create("test_guest_mem", MFD_CLOEXEC);
	other = memfd_create("test_guest_mem_other", MFD_CLOEXEC);
	assert_true(fd >= 0 && other >= 0);
	assert_int_equal(ftruncate(fd, 0x10000), 0);
	assert_int_equal(ftruncate(other, 0x10000), 0);
	fd2 = dup(fd);		/* what the next SCM_RIGHTS gives: same file */
	assert_true(fd2 >= 0);

	guest_mem_init(&m);
	assert_int_equal(guest_mem_ref(&m, fd, 0x100000, 0x10000, 0x7000000,
				       0), -ENOENT);	/* nothing yet */
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 0x10000, 0x7000000,
				       0), 0);
	q = guest_mem_gpa(&m, 0x100000, 1);
	assert_non_null(q);
	assert_int_equal(guest_mem_ref(&m, fd2, 0x100000, 0x10000, 0x7000000,
				       0), 0);
	/* Not the same: another file, another offset, other addresses. */
	assert_int_equal(guest_mem_ref(&m, other, 0x100000, 0x10000,
				       0x7000000, 0), -ENOENT);
	assert_int_equal(guest_mem_ref(&m, fd, 0x100000, 0x8000, 0x7000000,
				       0x1000), -ENOENT);
	assert_int_equal(guest_mem_ref(&m, fd, 0x100000, 0x10000, 0x7001000,
				       0), -ENOENT);
	/* ... and those overlap, so guest_mem_add() refuses them. */
	assert_int_equal(guest_mem_add(&m, other, 0x100000, 0x10000,
				       0x7000000, 0), -EINVAL);
	assert_int_equal(m.nregions, 1);

	/* Two adds, two removes: the first leaves it mapped where it was. */
	assert_int_equal(guest_mem_remove(&m, 0x100000, 0x10000, 0x7000000), 1);
	assert_ptr_equal(guest_mem_gpa(&m, 0x100000, 1), q);
	assert_int_equal(guest_mem_remove(&m, 0x100000, 0x10000, 0x7000000), 0);
	assert_int_equal(m.nregions, 0);
	assert_int_equal(guest_mem_remove(&m, 0x100000, 0x10000, 0x7000000),
			 -ENOENT);

	/* A front end repeating one add forever is stopped. */
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 0x10000, 0x7000000,
				       0), 0);
	for (i = 1; i < GUEST_MEM_MAX_REFS; i++)
		assert_int_equal(guest_mem_ref(&m, fd, 0x100000, 0x10000,
					       0x7000000, 0), 0);
	assert_int_equal(guest_mem_ref(&m, fd, 0x100000, 0x10000, 0x7000000,
				       0), -ENOSPC);
	guest_mem_clear(&m);
	close(fd2);
	close(other);
	close(fd);
}

/**
 * test_offset_limit_fs() - mapped from the region's offset; max-mem; only
 *			    tmpfs/hugetlbfs files; seals noted
 * @state:	cmocka state (unused)
 */
static void test_offset_limit_fs(void **state)
{
	const uint64_t big = 64ULL << 20, off = (60ULL << 20) + 123;
	char path[] = "build/test_guest_mem.XXXXXX";
	struct guest_mem m;
	uint8_t b = 0xa5, *q;
	int fd, disk;

	(void)state;
	fd = memfd_create("test_guest_mem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)big), 0);
	assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);

	guest_mem_init(&m);
	m.limit = 3ULL << 20;
	/* 1 MiB at 60 MiB: the mapping costs about 1 MiB, not 61 */
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 1 << 20, 0x7000000,
				       off), 0);
	q = guest_mem_gpa(&m, 0x100000, 1);
	assert_non_null(q);
	assert_int_equal(*q, 0xa5);
	assert_true(m.r[0].mmap_len <= (2U << 20));
	assert_false(m.r[0].sealed);
	/* 2 MiB more would pass max-mem (3 MiB): refused, table unchanged */
	assert_int_equal(guest_mem_add(&m, fd, 0x400000, 2 << 20, 0x8000000,
				       0), -ENOMEM);
	assert_int_equal(m.nregions, 1);
	/* the limit survives a clear, as the device's setting */
	guest_mem_clear(&m);
	assert_int_equal(m.limit, 3ULL << 20);

	/* sealed against shrinking: safe by construction, and said so */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 0x1000, 0x7000000,
				       0), 0);
	assert_true(m.r[0].sealed);
	guest_mem_clear(&m);
	close(fd);

	/* a file on a disk file system: a SIGBUS there is not contained */
	disk = mkstemp(path);
	assert_true(disk >= 0);
	unlink(path);
	assert_int_equal(ftruncate(disk, 1 << 20), 0);
	assert_int_equal(guest_mem_add(&m, disk, 0x100000, 0x1000, 0x7000000,
				       0), -EINVAL);
	close(disk);
}

static unsigned int fault_calls;
static void *fault_ctx;

static void on_fault(void *ctx)
{
	fault_calls++;
	fault_ctx = ctx;
}

/**
 * test_shrunk_file() - the front end truncates a mapped region's file:
 *			touching it costs a contained fault, not the process
 * @state:	cmocka state (unused)
 */
static void test_shrunk_file(void **state)
{
	struct guest_mem m;
	volatile uint8_t *q;
	uint64_t faults;
	uint8_t v;
	int fd;

	(void)state;
	assert_int_equal(guest_fault_init(on_fault), 0);
	fd = memfd_create("test_guest_mem", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 0x10000), 0);
	guest_mem_init(&m);
	m.owner = &m;
	assert_int_equal(guest_mem_add(&m, fd, 0x100000, 0x10000, 0x7000000,
				       0), 0);
	q = guest_mem_gpa(&m, 0x108000, 16);
	assert_non_null(q);
	q[0] = 7;
	assert_int_equal(ftruncate(fd, 0), 0);	/* every page gone */

	faults = guest_fault_count();
	v = q[1];		/* SIGBUS, contained: a zero page */
	q[2] = 9;		/* and writable, privately */
	assert_int_equal(v, 0);
	assert_int_equal(q[2], 9);
	assert_int_equal(guest_fault_count(), faults + 1);
	assert_int_equal(fault_calls, 1);
	assert_ptr_equal(fault_ctx, &m);
	guest_mem_clear(&m);
	close(fd);
}

/* ---- differential test against a naive linear scan ---- */

/**
 * ref_find() - linear scan for the region holding @gpa
 * @m:		table
 * @gpa:	address
 *
 * Return: region or NULL
 */
static const struct guest_mem_region *ref_find(const struct guest_mem *m,
					       uint64_t gpa)
{
	unsigned int i;

	for (i = 0; i < m->nregions; i++)
		if (gpa >= m->r[i].gpa && gpa - m->r[i].gpa < m->r[i].size)
			return &m->r[i];
	return NULL;
}

/**
 * ref_iov() - byte-walking reference for guest_mem_iov()
 * @m:		table
 * @gpa:	first byte
 * @len:	length
 * @iov:	out
 * @max:	room
 *
 * Return: same contract as guest_mem_iov()
 */
static int ref_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len,
		   struct iovec *iov, unsigned int max)
{
	unsigned int n = 0;

	if (len && gpa + len - 1 < gpa)
		return -EFAULT;
	while (len) {
		const struct guest_mem_region *r = ref_find(m, gpa);
		uint64_t avail;

		if (!r)
			return -EFAULT;
		if (n == max)
			return -E2BIG;
		avail = r->gpa + r->size - gpa;
		if (avail > len)
			avail = len;
		iov[n].iov_base = r->hva + (gpa - r->gpa);
		iov[n].iov_len = avail;
		n++;
		gpa += avail;
		len -= avail;
	}
	return (int)n;
}

/**
 * rnd64() - 64 random bits from rand()
 * Return: random value
 */
static uint64_t rnd64(void)
{
	return ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^
	       (uint64_t)rand();
}

/**
 * test_differential() - random tables, random queries, same answers
 * @state:	cmocka state (unused)
 */
static void test_differential(void **state)
{
	unsigned int round, q;

	srand(12345);
	for (round = 0; round < 200; round++) {
		struct guest_mem m;
		unsigned int i, n = 1 + (unsigned int)rand() % 12;
		uint64_t base[12], size[12];

		guest_mem_init(&m);
		/* neighbouring slots: some touch (adjacent), some leave gaps */
		for (i = 0; i < n; i++) {
			base[i] = (uint64_t)i * 0x1000 + (rand() % 2) * 0x100;
			size[i] = 0xf00 + (rand() % 2) * 0x100;
			if (base[i] % 0x1000 && size[i] > 0xf00)
				size[i] = 0xf00;
		}
		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)rand() % n;

			if (!size[k])
				continue;
			assert_int_equal(guest_mem_add_mapped(&m,
				arena + (base[k] & 0xffff), base[k], size[k],
				0x7f0000000000 + base[k]), 0);
			size[k] = 0;
		}
		for (q = 0; q < 500; q++) {
			struct iovec a[8], b[8];
			uint64_t gpa = rnd64() % ((uint64_t)n * 0x1000 + 0x200);
			uint64_t len = rnd64() % 0x3000;
			unsigned int max = 1 + (unsigned int)rand() % 8;
			const struct guest_mem_region *r;
			int ra, rb, j;
			void *p;

			if (q % 50 == 0)
				len = UINT64_MAX - (rnd64() % 4);
			ra = guest_mem_iov(&m, gpa, len, a, max);
			rb = ref_iov(&m, gpa, len, b, max);
			assert_int_equal(ra, rb);
			for (j = 0; j < ra; j++) {
				assert_ptr_equal(a[j].iov_base, b[j].iov_base);
				assert_int_equal(a[j].iov_len, b[j].iov_len);
			}

			r = ref_find(&m, gpa);
			p = guest_mem_gpa(&m, gpa, len);
			if (!r || len > r->gpa + r->size - gpa)
				assert_null(p);
			else
				assert_ptr_equal(p, r->hva + (gpa - r->gpa));
		}
		guest_mem_clear(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_sorted_and_rejects),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_translate_clamp),
		cmocka_unit_test(test_iov_split),
		cmocka_unit_test(test_iov_hint),
		cmocka_unit_test(test_memfd),
		cmocka_unit_test(test_ref),
		cmocka_unit_test(test_offset_limit_fs),
		cmocka_unit_test(test_shrunk_file),
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
