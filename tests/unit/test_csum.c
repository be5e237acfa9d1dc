// SPDX-License-Identifier: GPL-2.0-or-later
/* test_csum.c - fast checksum code against a naive RFC 1071 reference
 *
 * The reference sums big-endian 16-bit words one at a time with 32-bit
 * carries folded at the end -- slow and obviously right.  The optimised
 * csum_partial(), csum_iov() under random splits, and the pseudo-header
 * helpers must agree with it bit for bit on random data, offsets
 * (alignments) and lengths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../../src/net/csum.h"

#define BUF	(70 * 1024)

/* Naive: 16-bit big-endian words, odd last byte padded, end-around carry
 * folded at the end.  Returns the 16-bit sum in host order.
 */
static uint16_t ref_sum(const uint8_t *p, size_t len, uint64_t init)
{
	uint64_t s = init;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Our sums are in memory order: convert the folded value to host order.
 * Also used to hand a memory-order initial sum to ref_sum().
 */
static uint16_t fast_sum(uint32_t partial)
{
	return ntohs(csum_reduce(partial));
}

static uint8_t buf[BUF + 64];

static void fill_random(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rand();
}

static void test_partial_random(void **state)
{
	int round;

	(void)state;
	srand(1);
	fill_random(buf, sizeof(buf));
	for (round = 0; round < 20000; round++) {
		size_t off = (size_t)rand() % 64;
		size_t len = round < 2000 ? (size_t)(round % 300) :
			     (size_t)rand() % BUF;

		assert_int_equal(fast_sum(csum_partial(buf + off, len, 0)),
				 ref_sum(buf + off, len, 0));
	}
}

static void test_partial_extremes(void **state)
{
	size_t len;

	(void)state;
	/* all-ones data exercises every carry path */
	memset(buf, 0xff, sizeof(buf));
	for (len = 0; len < 200; len++)
		assert_int_equal(fast_sum(csum_partial(buf + (len & 7), len, 0)),
				 ref_sum(buf + (len & 7), len, 0));
	assert_int_equal(fast_sum(csum_partial(buf, BUF, 0)),
			 ref_sum(buf, BUF, 0));
	/* all-zero data sums to zero */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(csum_partial(buf, BUF, 0), 0);
	/* a continued sum (non-zero initial value) */
	fill_random(buf, 1000);
	assert_int_equal(fast_sum(csum_partial(buf, 1000, 0xffffffffu)),
			 ref_sum(buf, 1000, fast_sum(0xffffffffu)));
}

static void test_partial_split(void **state)
{
	int round;

	(void)state;
	srand(2);
	fill_random(buf, sizeof(buf));
	/* chaining csum_partial over an even split is the same sum */
	for (round = 0; round < 2000; round++) {
		size_t len = (size_t)rand() % 4000, cut = (size_t)rand() % (len + 1);
		uint32_t s;

		cut &= ~(size_t)1;
		s = csum_partial(buf, cut, 0);
		s = csum_partial(buf + cut, len - cut, s);
		assert_int_equal(fast_sum(s), ref_sum(buf, len, 0));
	}
}

/* Split [p, p+len) into up to @max random segments, odd sizes and empty
 * segments included.
 */
static unsigned int split(uint8_t *p, size_t len, struct iovec *iov,
			  unsigned int max)
{
	unsigned int n = 0;
	size_t off = 0;

	while (n < max) {
		size_t s = n == max - 1 ? len - off :
			   (size_t)(rand() % 5 ? rand() % 700 : rand() % 3);

		if (s > len - off)
			s = len - off;
		iov[n].iov_base = p + off;
		iov[n].iov_len = s;
		off += s;
		n++;
		if (off == len && rand() % 2)
			break;
	}
	return n;
}

static void test_iov_random(void **state)
{
	struct iovec iov[64];
	int round;

	(void)state;
	srand(3);
	fill_random(buf, sizeof(buf));
	for (round = 0; round < 20000; round++) {
		size_t total = (size_t)rand() % 6000;
		size_t off = total ? (size_t)rand() % total : 0;
		size_t len = (size_t)rand() % (total - off + 1);
		unsigned int n = split(buf + 1, total, iov,
				       1 + (unsigned int)rand() % 64);
		uint32_t init = rand() % 4 ? 0 : (uint32_t)rand();

		assert_int_equal(fast_sum(csum_iov(iov, n, off, len, init)),
				 ref_sum(buf + 1 + off, len, fast_sum(init)));
		/* starting from zero */
		assert_int_equal(fast_sum(csum_iov(iov, n, off, len, 0)),
				 ref_sum(buf + 1 + off, len, 0));
	}
}

static void test_iov_clipped(void **state)
{
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = 3 },
		{ .iov_base = buf + 3, .iov_len = 4 },
	};

	(void)state;
	fill_random(buf, 16);
	/* asking for more than there is sums what there is, no more */
	assert_int_equal(fast_sum(csum_iov(iov, 2, 2, 100, 0)),
			 ref_sum(buf + 2, 5, 0));
	assert_int_equal(csum_iov(iov, 2, 7, 10, 0), 0);
	assert_int_equal(csum_iov(iov, 0, 0, 10, 0), 0);
}

/* csum_copy() and csum_copy_iov() copy exactly and sum like csum_iov():
 * random splits, odd offsets, lists longer than the copy.
 */
static void test_copy(void **state)
{
	static uint8_t dst[BUF + 64];
	struct iovec iov[64];
	int round;

	(void)state;
	srand(4);
	fill_random(buf, sizeof(buf));
	for (round = 0; round < 20000; round++) {
		size_t total = (size_t)rand() % (round < 19900 ? 6000 : BUF);
		size_t from = total ? (size_t)rand() % total : 0;
		size_t cut = (size_t)rand() % 3;
		size_t len = total - (cut < total ? cut : total);
		unsigned int n = split(buf + 1, total, iov,
				       1 + (unsigned int)rand() % 64);
		uint32_t init = rand() % 4 ? 0 : (uint32_t)rand();
		size_t doff = (size_t)rand() % 3;

		if (from > len)
			from = len;
		memset(dst, 0xa5, len + doff + 8);
		assert_int_equal(fast_sum(csum_copy_iov(dst + doff, iov, n,
							len, init)),
				 ref_sum(buf + 1, len, fast_sum(init)));
		assert_memory_equal(dst + doff, buf + 1, len);
		assert_int_equal(dst[doff + len], 0xa5);
		assert_int_equal(fast_sum(csum_copy(dst + doff, buf + 1 + from,
						    len - from, init)),
				 ref_sum(buf + 1 + from, len - from,
					 fast_sum(init)));
		assert_memory_equal(dst + doff, buf + 1 + from, len - from);
	}
}

static void test_fold_known(void **state)
{
	/* RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 -> sum ddf2 */
	static const uint8_t ex[] = { 0x00, 0x01, 0xf2, 0x03,
				      0xf4, 0xf5, 0xf6, 0xf7 };
	uint16_t c;

	(void)state;
	assert_int_equal(fast_sum(csum_partial(ex, sizeof(ex), 0)), 0xddf2);
	c = csum_fold(csum_partial(ex, sizeof(ex), 0));
	assert_int_equal(ntohs(c), 0x220d);
	/* a buffer with its checksum stored verifies to all ones */
	assert_int_equal(csum_reduce(csum_add(csum_partial(ex, sizeof(ex), 0),
					      c)), 0xffff);
}

static void test_pseudo(void **state)
{
	uint8_t s4[4], d4[4], s6[16], d6[16], ph[40];
	int round;

	(void)state;
	srand(4);
	for (round = 0; round < 1000; round++) {
		uint32_t l = (uint32_t)rand() % 65536;
		uint8_t proto = rand() % 2 ? 6 : 17;

		fill_random(s4, 4);
		fill_random(d4, 4);
		fill_random(s6, 16);
		fill_random(d6, 16);

		memcpy(ph, s4, 4);
		memcpy(ph + 4, d4, 4);
		ph[8] = 0;
		ph[9] = proto;
		ph[10] = (uint8_t)(l >> 8);
		ph[11] = (uint8_t)l;
		assert_int_equal(fast_sum(csum_pseudo_ipv4(s4, d4, proto, l, 0)),
				 ref_sum(ph, 12, 0));

		memcpy(ph, s6, 16);
		memcpy(ph + 16, d6, 16);
		ph[32] = 0;
		ph[33] = 0;
		ph[34] = (uint8_t)(l >> 8);
		ph[35] = (uint8_t)l;
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = proto;
		assert_int_equal(fast_sum(csum_pseudo_ipv6(s6, d6, proto, l, 0)),
				 ref_sum(ph, 40, 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial_random),
		cmocka_unit_test(test_partial_extremes),
		cmocka_unit_test(test_partial_split),
		cmocka_unit_test(test_iov_random),
		cmocka_unit_test(test_iov_clipped),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_fold_known),
		cmocka_unit_test(test_pseudo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
