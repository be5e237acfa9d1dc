/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csum.h - Internet (RFC 1071) ones' complement checksums
 *
 * DOC: Byte order of the sums
 * Every sum here is a ones' complement sum of 16-bit words *as they lie in
 * memory* (native-endian loads), exactly like the Linux kernel's csum_*
 * helpers.  Ones' complement addition commutes with byte swapping, so a
 * folded result stored back to memory with memcpy() is the right checksum
 * on the wire on any host; never htons() a folded value.  Values that are
 * not in memory (the pseudo header's length and protocol) are converted
 * to network order by the helpers below before they are summed.
 *
 * A 32-bit "partial" sum (uint32_t) is an unfolded accumulator: add more
 * data with csum_partial()/csum_add(), then csum_fold() it once.
 */
#ifndef VHOSTD_CSUM_H
#define VHOSTD_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/**
 * csum_add() - ones' complement addition of two partial sums
 * @a:		partial sum
 * @b:		partial sum
 * Return: @a + @b with the end-around carry folded back in
 */
static inline uint32_t csum_add(uint32_t a, uint32_t b)
{
	uint32_t r = a + b;

	return r + (r < a);
}

/**
 * csum_shift() - re-align a partial sum of bytes that began at an odd offset
 * @sum:	partial sum computed as if its first byte were at an even offset
 * @odd:	true when that first byte really sits at an odd offset
 *
 * Swapping the two bytes of every 16-bit word is, modulo 0xffff, the same
 * as rotating the 32-bit accumulator by 8 bits (2^16 == 1 mod 0xffff).
 *
 * Return: @sum as it counts at its real position
 */
static inline uint32_t csum_shift(uint32_t sum, int odd)
{
	return odd ? (sum >> 8) | (sum << 24) : sum;
}

/**
 * csum_reduce() - fold a partial sum to 16 bits, *without* inverting it
 * @sum:	partial sum
 *
 * This is the value a driver stores in the L4 checksum field for
 * VIRTIO_NET_HDR_F_NEEDS_CSUM (the pseudo-header sum).
 *
 * Return: 16-bit ones' complement sum, memory order; 0 only if @sum is 0
 */
static inline uint16_t csum_reduce(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * csum_fold() - finish a checksum: fold to 16 bits and invert
 * @sum:	partial sum over everything the checksum covers
 * Return: the checksum to store (memory order, store with memcpy)
 */
static inline uint16_t csum_fold(uint32_t sum)
{
	return (uint16_t)~csum_reduce(sum);
}

uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);
uint32_t csum_iov(const struct iovec *iov, unsigned int cnt, size_t off,
		  size_t len, uint32_t sum);
uint32_t csum_copy(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t csum_copy_iov(void *dst, const struct iovec *iov, unsigned int cnt,
		       size_t len, uint32_t sum);
uint32_t csum_pseudo_ipv4(const void *saddr, const void *daddr,
			  uint8_t proto, uint32_t l4len, uint32_t sum);
uint32_t csum_pseudo_ipv6(const void *saddr, const void *daddr,
			  uint8_t proto, uint32_t l4len, uint32_t sum);

#endif /* VHOSTD_CSUM_H */
