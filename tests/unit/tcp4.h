/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp4.h - an independent look at IPv4 TCP frames, for the port tests
 *
 * test_dgram and test_vxlan check what their port put on the wire with
 * these, never with the daemon's own checksum code: a 16-bit-at-a-time
 * sum, plain byte offsets; t4_tso_frame() makes the TSO frames they send.
 */
#ifndef TEST_TCP4_H
#define TEST_TCP4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/net/pkt.h"

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

/**
 * t4_pkt_of() - describe IPv4 TCP frame @f as a pkt, in two pieces (as a
 *		 guest's chain might be), with offload metadata
 * @pkt:	out
 * @f:		frame
 * @len:	its length
 * @gso:	gso_size (0: NEEDS_CSUM only)
 */
static inline void t4_pkt_of(struct pkt *pkt, uint8_t *f, size_t len,
			     uint16_t gso)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt->vnet.csum_start = 34;
	pkt->vnet.csum_offset = 16;
	if (gso) {
		pkt->vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		pkt->vnet.gso_size = gso;
		pkt->vnet.hdr_len = 54;
	}
	pkt->src_feat = 1ULL << VIRTIO_NET_F_CSUM |
			1ULL << VIRTIO_NET_F_HOST_TSO4;
	memcpy(&pkt->eth, f, ETH_HLEN);
	pkt->len = (uint32_t)len;
	pkt->iovcnt = 2;
	pkt->iov[0].iov_base = f;
	pkt->iov[0].iov_len = 40;
	pkt->iov[1].iov_base = f + 40;
	pkt->iov[1].iov_len = len - 40;
}

/**
 * t4_tso_frame() - an IPv4 TCP frame from @src to @dst of @pay payload
 *		    bytes (pattern i & 0xff), as a TSO sender leaves it,
 *		    described in @pkt (two pieces)
 * @pkt:	out
 * @f:		buffer, 54 + @pay bytes
 * @dst:	destination MAC
 * @src:	source MAC
 * @pay:	payload bytes
 * @mss:	gso_size
 */
static inline void t4_tso_frame(struct pkt *pkt, uint8_t *f,
				const uint8_t *dst, const uint8_t *src,
				size_t pay, uint16_t mss)
{
	uint8_t *ip = f + 14, *tcp = ip + 20, ph[12];
	size_t i, l4 = 20 + pay, len = 54 + pay;
	uint16_t c;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 40);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(((20 + l4) >> 8) & 0xff);
	ip[3] = (uint8_t)(20 + l4);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, (uint8_t[]){ 198, 19, 1, 1, 198, 19, 1, 2 }, 8);
	c = (uint16_t)~t4_fold(t4_sum(0, ip, 20));
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	tcp[0] = 0x30;
	tcp[1] = 0x39;
	tcp[3] = 80;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	tcp[14] = 0xff;
	for (i = 0; i < pay; i++)
		tcp[20 + i] = (uint8_t)i;
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = 6;
	ph[10] = (uint8_t)(l4 >> 8);
	ph[11] = (uint8_t)l4;
	c = t4_fold(t4_sum(0, ph, 12));
	tcp[16] = (uint8_t)(c >> 8);
	tcp[17] = (uint8_t)c;

	t4_pkt_of(pkt, f, len, mss);
}

#endif /* TEST_TCP4_H */
