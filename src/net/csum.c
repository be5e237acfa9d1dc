// SPDX-License-Identifier: GPL-2.0-or-later
/* csum.c - Internet checksum over flat buffers and scatter-gather lists
 *
 * Owns the one hot loop of software checksumming (csum_partial()) and the
 * bookkeeping that keeps sums right when a byte range is split at odd
 * offsets across iovecs (csum_iov()).  Pure functions, no state; see
 * csum.h for the byte-order convention.
 */
#include <string.h>
#include <arpa/inet.h>

#include "csum.h"

/* One 64-bit ones' complement accumulation step: the carry out of bit 63
 * is added back in (2^64 == 1 mod 0xffff), so a sum of 64-bit words is the
 * same ones' complement sum as the sum of their 16-bit halves.
 */
#define ACC(acc, w)							\
	do {								\
		uint64_t w_ = (w);					\
		(acc) += w_;						\
		(acc) += ((acc) < w_);					\
	} while (0)

/**
 * load64() - unaligned 64-bit load in memory order
 * @p:		address
 * Return: the 8 bytes at @p as a native-endian integer
 */
static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * csum_partial() - add the bytes of a buffer to a partial sum
 * @buf:	bytes; any alignment (loads are unaligned-safe)
 * @len:	byte count; an odd last byte counts as if followed by a zero
 * @sum:	partial sum to continue from (0 to start)
 *
 * Four independent 64-bit accumulators over 32-byte blocks keep the adds
 * out of each other's way; alignment does not change the result because
 * the sum is defined over the bytes' memory order, not over addresses.
 *
 * Return: new partial sum (unfolded; see csum_fold())
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t a = sum, b = 0, c = 0, d = 0;
	uint64_t tail = 0;

	while (len >= 32) {
		ACC(a, load64(p));
		ACC(b, load64(p + 8));
		ACC(c, load64(p + 16));
		ACC(d, load64(p + 24));
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		ACC(a, load64(p));
		p += 8;
		len -= 8;
	}
	/* The last 0..7 bytes keep their memory position inside a zeroed
	 * word, which is exactly "pad with zero" for an odd final byte.
	 */
	memcpy(&tail, p, len);
	ACC(a, tail);
	ACC(a, b);
	ACC(a, c);
	ACC(a, d);

	a = (a & 0xffffffffu) + (a >> 32);
	a = (a & 0xffffffffu) + (a >> 32);
	return (uint32_t)a;
}

/**
 * csum_iov() - add a byte range of a scatter-gather list to a partial sum
 * @iov:	segments (any lengths, including odd and zero)
 * @cnt:	number of segments
 * @off:	offset of the first byte of the range in @iov
 * @len:	length of the range
 * @sum:	partial sum to continue from; the range's first byte counts as
 *		sitting at an even offset
 *
 * Each segment's piece is summed on its own and then byte-rotated when it
 * starts at an odd offset of the range, so splits anywhere give the same
 * result as one flat buffer.  The range is clipped to the end of @iov;
 * callers validate lengths before trusting the result.
 *
 * Return: new partial sum
 */
uint32_t csum_iov(const struct iovec *iov, unsigned int cnt, size_t off,
		  size_t len, uint32_t sum)
{
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < cnt && pos < len; i++) {
		size_t n = iov[i].iov_len;

		if (off >= n) {
			off -= n;
			continue;
		}
		n -= off;
		if (n > len - pos)
			n = len - pos;
		sum = csum_add(sum, csum_shift(csum_partial(
				(const uint8_t *)iov[i].iov_base + off, n, 0),
				(int)(pos & 1)));
		pos += n;
		off = 0;
	}
	return sum;
}

/* Bytes csum_copy() copies before it sums them: small enough that the
 * sum reads them back from L1, large enough that memcpy() runs at speed.
 */
#define CSUM_COPY_CHUNK	4096

/**
 * csum_copy() - copy a buffer and add its bytes to a partial sum
 * @dst:	destination (not overlapping @src)
 * @src:	bytes; any alignment
 * @len:	byte count
 * @sum:	partial sum to continue from; @src's first byte counts as
 *		sitting at an even offset (csum_shift() the result otherwise)
 *
 * The copy and the sum touch the source once between them: each chunk is
 * copied, then summed from the destination while it is still in L1, so a
 * frame that has to be copied anyway is checksummed for the price of an
 * L1 read instead of a second pass over memory.
 *
 * Return: new partial sum, as csum_partial() over @src
 */
uint32_t csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < CSUM_COPY_CHUNK ? len - done :
			   CSUM_COPY_CHUNK;

		memcpy(d + done, s + done, n);
		/* chunks are even, so each starts at an even offset */
		sum = csum_add(sum, csum_partial(d + done, n, 0));
		done += n;
	}
	return sum;
}

/**
 * csum_copy_iov() - gather a scatter-gather list into a flat buffer and
 *		     sum what it copied
 * @dst:	destination, room for @len bytes
 * @iov:	segments (any lengths, including odd and zero)
 * @cnt:	number of segments
 * @len:	bytes to copy (the list may hold more)
 * @sum:	partial sum to continue from; the first byte counts as
 *		sitting at an even offset
 *
 * Return: new partial sum, as csum_iov(@iov, @cnt, 0, @len, @sum) gives it
 */
uint32_t csum_copy_iov(void *dst, const struct iovec *iov, unsigned int cnt,
		       size_t len, uint32_t sum)
{
	uint8_t *d = dst;
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < cnt && pos < len; i++) {
		size_t n = iov[i].iov_len < len - pos ? iov[i].iov_len :
			   len - pos;

		sum = csum_add(sum, csum_shift(csum_copy(d + pos,
				iov[i].iov_base, n, 0), (int)(pos & 1)));
		pos += n;
	}
	return sum;
}

/**
 * csum_pseudo_ipv4() - add the TCP/UDP pseudo header for IPv4 (RFC 793)
 * @saddr:	4-byte source address, network order (as in the IP header)
 * @daddr:	4-byte destination address, network order
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4len:	L4 header + payload length in bytes (must fit 16 bits)
 * @sum:	partial sum to continue from
 * Return: new partial sum
 */
uint32_t csum_pseudo_ipv4(const void *saddr, const void *daddr,
			  uint8_t proto, uint32_t l4len, uint32_t sum)
{
	uint8_t ph[12];
	uint16_t n = htons((uint16_t)l4len);

	memcpy(ph, saddr, 4);
	memcpy(ph + 4, daddr, 4);
	ph[8] = 0;
	ph[9] = proto;
	memcpy(ph + 10, &n, 2);
	return csum_partial(ph, sizeof(ph), sum);
}

/**
 * csum_pseudo_ipv6() - add the upper-layer pseudo header for IPv6
 *			(RFC 8200 section 8.1)
 * @saddr:	16-byte source address
 * @daddr:	16-byte destination address (final one; no routing header
 *		is supported by vhostd's parsers)
 * @proto:	next header value of the upper layer
 * @l4len:	upper-layer packet length
 * @sum:	partial sum to continue from
 * Return: new partial sum
 */
uint32_t csum_pseudo_ipv6(const void *saddr, const void *daddr,
			  uint8_t proto, uint32_t l4len, uint32_t sum)
{
	uint8_t ph[40];
	uint32_t n = htonl(l4len);

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	memcpy(ph + 32, &n, 4);
	ph[36] = 0;
	ph[37] = 0;
	ph[38] = 0;
	ph[39] = proto;
	return csum_partial(ph, sizeof(ph), sum);
}
