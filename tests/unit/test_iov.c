// SPDX-License-Identifier: GPL-2.0-or-later
/* test_iov.c - iov copy helpers against a flat-buffer reference
 *
 * Random source and destination segmentations of the same bytes must give
 * exactly what a memcpy between flat buffers gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/net/iov.h"

#define BUF	4096

/* Split @buf[0..len) into up to @max random segments. */
static unsigned int split(uint8_t *buf, size_t len, struct iovec *iov,
			  unsigned int max)
{
	unsigned int n = 0;
	size_t off = 0;

	while (off < len && n < max) {
		size_t s = n == max - 1 ? len - off :
			   (size_t)(rand() % 200) + (rand() % 4 ? 1 : 0);

		if (s > len - off)
			s = len - off;
		iov[n].iov_base = buf + off;
		iov[n].iov_len = s;
		off += s;
		n++;
	}
	return n;
}

static void test_cursor_random(void **state)
{
	static uint8_t src[BUF], dst[BUF], ref[BUF];
	struct iovec siov[64], diov[64];
	int round;

	(void)state;
	srand(1);
	for (round = 0; round < 2000; round++) {
		size_t slen = (size_t)rand() % BUF, dlen = (size_t)rand() % BUF;
		size_t doff = dlen ? (size_t)rand() % dlen : 0;
		size_t want = (size_t)rand() % BUF, exp, got;
		unsigned int sn, dn;
		struct iov_cursor c;
		size_t i;

		for (i = 0; i < slen; i++)
			src[i] = (uint8_t)rand();
		memset(dst, 0xaa, sizeof(dst));
		memset(ref, 0xaa, sizeof(ref));
		sn = split(src, slen, siov, 64);
		dn = split(dst, dlen, diov, 64);

		exp = want;
		if (exp > slen)
			exp = slen;
		if (exp > dlen - doff)
			exp = dlen - doff;
		memcpy(ref + doff, src, exp);

		iov_cursor_init(&c, siov, sn);
		got = iov_cursor_copy(&c, diov, dn, doff, want);
		assert_int_equal(got, exp);
		assert_memory_equal(dst, ref, BUF);
		assert_int_equal(iov_size(siov, sn), slen);
	}
}

static void test_cursor_resumes(void **state)
{
	uint8_t src[100], a[30], b[100];
	struct iovec siov[3] = {
		{ src, 10 }, { src + 10, 50 }, { src + 60, 40 },
	};
	struct iovec da = { a, sizeof(a) }, db = { b, sizeof(b) };
	struct iov_cursor c;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)i;
	iov_cursor_init(&c, siov, 3);
	assert_int_equal(iov_cursor_copy(&c, &da, 1, 0, 100), 30);
	assert_int_equal(iov_cursor_copy(&c, &db, 1, 0, 100), 70);
	assert_memory_equal(a, src, 30);
	assert_memory_equal(b, src + 30, 70);
	assert_int_equal(iov_cursor_copy(&c, &db, 1, 0, 100), 0);
}

static void test_tail_and_flat(void **state)
{
	uint8_t src[64], out[64];
	struct iovec siov[4] = {
		{ src, 5 }, { src + 5, 0 }, { src + 5, 20 }, { src + 25, 39 },
	};
	struct iovec t[4];
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7);
	n = iov_tail(siov, 4, 12, t, 4);
	assert_int_equal(n, 2);
	assert_ptr_equal(t[0].iov_base, src + 12);
	assert_int_equal(t[0].iov_len, 13);
	assert_int_equal(iov_size(t, n), 64 - 12);

	assert_int_equal(iov_to_buf(siov, 4, 3, out, 10), 10);
	assert_memory_equal(out, src + 3, 10);
	assert_int_equal(iov_to_buf(siov, 4, 60, out, 10), 4);
	assert_int_equal(iov_to_buf(siov, 4, 64, out, 10), 0);

	memset(out, 0, sizeof(out));
	assert_int_equal(iov_from_buf(t, n, 0, "hello", 5), 5);
	assert_memory_equal(src + 12, "hello", 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_random),
		cmocka_unit_test(test_cursor_resumes),
		cmocka_unit_test(test_tail_and_flat),
	};

	return cmocka_run_group_tests_name("iov", tests, NULL, NULL);
}
