// SPDX-License-Identifier: GPL-2.0-or-later
/* flow.c - symmetric flow hash of a frame
 *
 * DOC: Theory of Operation
 *
 * Addresses and ports are combined with XOR, which does not care which
 * side is the source, then mixed (murmur3's finaliser).  IPv4 and IPv6
 * with TCP or UDP hash on addresses, protocol and ports; a fragment, or
 * another protocol, on addresses and protocol; anything else on the two
 * MAC addresses.  One 802.1Q tag is looked through.  The TAP's steering
 * program (tap_steer.c) computes the same function in eBPF, so that the
 * kernel puts a guest's flow on the queue pair the guest sent it from:
 * change one, change both (test_tap_steer compares them).
 *
 * Only the first segment of the frame is read, and only within its
 * length: the bytes may be in a guest's memory and the guest may change
 * them meanwhile, which at worst sends a frame to another of that
 * guest's own queues.
 */
#include <string.h>
#include <arpa/inet.h>

#include "flow.h"

/**
 * flow_mix() - spread the bits of @h (murmur3 fmix32)
 * @h:		value
 * Return: mixed value
 */
static uint32_t flow_mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/**
 * flow_rd32() - 32 bits at @p, any alignment
 * @p:		bytes
 * Return: the value in host order of the bytes as they lie
 */
static uint32_t flow_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * flow_rd16() - 16 bits at @p, any alignment
 * @p:		bytes
 * Return: the value in host order of the bytes as they lie
 */
static uint32_t flow_rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * flow_ports() - XOR of the two ports of a TCP or UDP header
 * @b:		bytes after the Ethernet header
 * @len:	bytes readable at @b
 * @off:	offset of the L4 header in @b
 * @proto:	IP protocol
 * Return: the ports combined, 0 if not TCP/UDP or out of reach
 */
static uint32_t flow_ports(const uint8_t *b, size_t len, size_t off,
			   uint8_t proto)
{
	if (proto != 6 && proto != 17)
		return 0;
	if (off + 4 > len)
		return 0;
	return flow_rd16(b + off) ^ flow_rd16(b + off + 2);
}

/**
 * flow_hash() - symmetric hash of a frame's flow, from its parts
 * @eth:	the Ethernet header (addresses and type)
 * @b:		the bytes after it (a VLAN tag, then L3), or NULL
 * @len:	bytes readable at @b
 *
 * Every multi-byte field is read in host order of its bytes as they lie
 * (never converted), so that tap_steer.c's BPF program, which loads them
 * the same way, computes the same value for the frames the kernel sends.
 *
 * Return: hash; a frame and its reply get the same value
 */
uint32_t flow_hash(const struct ethhdr *eth, const uint8_t *b, size_t len)
{
	const uint8_t *mac = (const uint8_t *)eth;
	uint16_t type = eth->h_proto;	/* network order */
	size_t off = 0;
	uint32_t h = 0;
	unsigned int i;

	if (!b)
		len = 0;
	if (type == htons(ETH_P_8021Q) && len >= 4) {
		memcpy(&type, b + 2, sizeof(type));
		off = 4;
	}
	if (type == htons(ETH_P_IP) && off + 20 <= len) {
		size_t ihl = (size_t)(b[off] & 0xf) * 4;
		uint8_t proto = b[off + 9];
		uint16_t frag = (uint16_t)((b[off + 6] & 0x3f) << 8 | b[off + 7]);

		h = flow_rd32(b + off + 12) ^ flow_rd32(b + off + 16);
		h ^= proto;
		if (ihl >= 20 && !frag)
			h ^= flow_ports(b, len, off + ihl, proto) << 8;
		return flow_mix(h);
	}
	if (type == htons(ETH_P_IPV6) && off + 40 <= len) {
		uint8_t proto = b[off + 6];

		for (i = 0; i < 4; i++)
			h ^= flow_rd32(b + off + 8 + 4 * i) ^
			     flow_rd32(b + off + 24 + 4 * i);
		h ^= proto;
		h ^= flow_ports(b, len, off + 40, proto) << 8;
		return flow_mix(h);
	}
	/* Destination and source, three 16-bit words each (the program
	 * loads no 32-bit word at an offset of 2 mod 4).
	 */
	for (i = 0; i < 2 * ETH_ALEN; i += 2)
		h ^= flow_rd16(mac + i) << (i % 6 == 2 ? 16 : 0);
	return flow_mix(h);
}

/**
 * pkt_flow_hash() - symmetric hash of @pkt's flow
 * @pkt:	frame
 *
 * Only the first segment is read: the headers lie there with every
 * driver we know.
 *
 * Return: flow_hash() of the frame
 */
uint32_t pkt_flow_hash(const struct pkt *pkt)
{
	const uint8_t *b = pkt->iovcnt ? pkt->iov[0].iov_base : NULL;
	size_t len = pkt->iovcnt ? pkt->iov[0].iov_len : 0;

	if (len < ETH_HLEN)
		return flow_hash(&pkt->eth, NULL, 0);
	return flow_hash(&pkt->eth, b + ETH_HLEN, len - ETH_HLEN);
}
