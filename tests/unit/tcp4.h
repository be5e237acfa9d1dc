/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp4.h - an independent look at IPv4 TCP frames, for the port tests
 *
 * test_dgram and test_vxlan check what their port put on the wire with
 * these, never with the daemon's own checksum code: a 16-bit-at-a-time
 * sum, plain byte offsets.
 */
#ifndef TEST_TCP4_H
#define TEST_TCP4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * t4_sum() - ones' complement sum of @len bytes, network order
 * @sum:	running sum
 * @p:		bytes
 * @len:	their number
 * Return: the new running sum, unfolded
 */
static inline uint32_t t4_sum(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* t4_fold() - a running sum folded to 16 bits, not inverted */
static inline uint16_t t4_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * t4_ok() - whether @f is an IPv4 TCP frame (no options) with both
 *	     checksums right and its lengths exact
 * @f:		frame, from the Ethernet header
 * @len:	its length
 * Return: true if so
 */
static inline bool t4_ok(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + 14, *tcp = ip + 20;
	size_t l4 = len - 34;
	uint8_t ph[12];

	if (len < 54 || ip[0] != 0x45 || ip[9] != 6 ||
	    (size_t)(ip[2] << 8 | ip[3]) != len - 14)
		return false;
	if (t4_fold(t4_sum(0, ip, 20)) != 0xffff)
		return false;
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = 6;
	ph[10] = (uint8_t)(l4 >> 8);
	ph[11] = (uint8_t)l4;
	return t4_fold(t4_sum(t4_sum(0, ph, 12), tcp, l4)) == 0xffff;
}

#endif /* TEST_TCP4_H */
