/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eth.h - parsing Ethernet / 802.1Q / IPv4 / IPv6 / TCP / UDP headers
 *
 * Header-only helpers for the offload code.  They parse a *private copy*
 * of a frame's first bytes (never guest memory directly: a guest may
 * rewrite its buffers while we look, so each byte is read once, into the
 * copy, and every decision is made on the copy).  Fields are read by
 * offset with memcpy, so the copy needs no alignment.
 *
 * What is understood, on purpose no more:
 *  - Ethernet II, optionally one 802.1Q tag (TPID 0x8100);
 *  - IPv4 with options (ihl 5..15), not fragmented;
 *  - IPv6 whose next header is directly TCP or UDP: extension headers
 *    are refused (a hop-by-hop or routing header changes what the
 *    pseudo header and segmentation need; TODO(issue 3): walk them);
 *  - TCP with options (doff 5..15), UDP.
 */
#ifndef VHOSTD_ETH_H
#define VHOSTD_ETH_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>

#define ETH_VLAN_HLEN		4	/* one 802.1Q tag: TPID + TCI */
#define ETH_IPV4_HLEN_MIN	20
#define ETH_IPV4_HLEN_MAX	60
#define ETH_IPV6_HLEN		40
#define ETH_TCP_HLEN_MIN	20
#define ETH_TCP_HLEN_MAX	60
#define ETH_UDP_HLEN		8

/* Byte offsets of the fields we touch (RFC 791, 8200, 793, 768). */
#define ETH_IPV4_OFF_TOTLEN	2
#define ETH_IPV4_OFF_ID		4
#define ETH_IPV4_OFF_FRAG	6
#define ETH_IPV4_OFF_PROTO	9
#define ETH_IPV4_OFF_CSUM	10
#define ETH_IPV4_OFF_SADDR	12
#define ETH_IPV4_OFF_DADDR	16
#define ETH_IPV6_OFF_PLEN	4
#define ETH_IPV6_OFF_NEXT	6
#define ETH_IPV6_OFF_SADDR	8
#define ETH_IPV6_OFF_DADDR	24
#define ETH_TCP_OFF_SEQ		4
#define ETH_TCP_OFF_DOFF	12
#define ETH_TCP_OFF_FLAGS	13
#define ETH_TCP_OFF_CSUM	16
#define ETH_TCP_OFF_URG		18
#define ETH_UDP_OFF_LEN		4
#define ETH_UDP_OFF_CSUM	6

/* TCP flag bits in the byte at ETH_TCP_OFF_FLAGS. */
#define ETH_TCP_FIN		0x01
#define ETH_TCP_SYN		0x02
#define ETH_TCP_RST		0x04
#define ETH_TCP_PSH		0x08
#define ETH_TCP_ACK		0x10
#define ETH_TCP_URG		0x20
#define ETH_TCP_ECE		0x40
#define ETH_TCP_CWR		0x80

/* IPv4 fragment field: MF flag and fragment offset (DF excluded). */
#define ETH_IPV4_FRAG_MASK	0x3fff

/**
 * struct eth_hdrs - where the headers of a parsed frame are
 * @l3_off:	offset of the IPv4/IPv6 header (14, or 18 behind a VLAN tag)
 * @l4_off:	offset of the TCP/UDP header
 * @pay_off:	offset of the L4 payload (end of all headers)
 * @l4_proto:	IPPROTO_TCP or IPPROTO_UDP
 * @ipv6:	true for IPv6, false for IPv4
 * @vlan:	true when one 802.1Q tag sits between MACs and ethertype
 */
struct eth_hdrs {
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t pay_off;
	uint8_t l4_proto;
	bool ipv6;
	bool vlan;
};

/**
 * eth_get16() - read a big-endian 16-bit field
 * @p:		field address (any alignment)
 * Return: value in host order
 */
static inline uint16_t eth_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * eth_put16() - write a big-endian 16-bit field
 * @p:		field address (any alignment)
 * @v:		value in host order
 */
static inline void eth_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * eth_get32() - read a big-endian 32-bit field
 * @p:		field address (any alignment)
 * Return: value in host order
 */
static inline uint32_t eth_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/**
 * eth_put32() - write a big-endian 32-bit field
 * @p:		field address (any alignment)
 * @v:		value in host order
 */
static inline void eth_put32(uint8_t *p, uint32_t v)
{
	eth_put16(p, (uint16_t)(v >> 16));
	eth_put16(p + 2, (uint16_t)v);
}

/**
 * eth_parse() - locate L3/L4 headers in a private copy of a frame's start
 * @buf:	copy of the frame's first @len bytes (not guest memory)
 * @len:	bytes valid in @buf: the frame length, or less when only a
 *		header-sized prefix was copied
 * @h:		result
 *
 * Every length field is checked against @len before the bytes it
 * announces are looked at, so a lying ihl/doff or a truncated frame is an
 * error, never an out-of-bounds read.
 *
 * Return: 0, or -EINVAL for anything malformed or not understood (other
 *	   ethertypes, stacked tags, IPv4 fragments, IPv6 extension
 *	   headers, L4 other than TCP/UDP, truncated headers)
 */
static inline int eth_parse(const uint8_t *buf, size_t len,
			    struct eth_hdrs *h)
{
	size_t off = ETH_HLEN, l4len;
	uint16_t type;
	uint8_t proto;

	memset(h, 0, sizeof(*h));
	if (len < ETH_HLEN)
		return -EINVAL;
	type = eth_get16(buf + 12);
	if (type == ETH_P_8021Q) {
		if (len < ETH_HLEN + ETH_VLAN_HLEN)
			return -EINVAL;
		type = eth_get16(buf + 16);
		off += ETH_VLAN_HLEN;
		h->vlan = true;
	}
	h->l3_off = (uint16_t)off;

	if (type == ETH_P_IP) {
		size_t ihl;

		if (len < off + ETH_IPV4_HLEN_MIN || buf[off] >> 4 != 4)
			return -EINVAL;
		ihl = (size_t)(buf[off] & 0x0f) * 4;
		/* ihl < 5 would overlap the addresses with the L4 header */
		if (ihl < ETH_IPV4_HLEN_MIN || len < off + ihl)
			return -EINVAL;
		/* a fragment's L4 header is in another packet (or absent) */
		if (eth_get16(buf + off + ETH_IPV4_OFF_FRAG) &
		    ETH_IPV4_FRAG_MASK)
			return -EINVAL;
		proto = buf[off + ETH_IPV4_OFF_PROTO];
		off += ihl;
	} else if (type == ETH_P_IPV6) {
		if (len < off + ETH_IPV6_HLEN || buf[off] >> 4 != 6)
			return -EINVAL;
		proto = buf[off + ETH_IPV6_OFF_NEXT];
		off += ETH_IPV6_HLEN;
		h->ipv6 = true;
	} else {
		return -EINVAL;
	}
	h->l4_off = (uint16_t)off;

	if (proto == IPPROTO_TCP) {
		if (len < off + ETH_TCP_HLEN_MIN)
			return -EINVAL;
		l4len = (size_t)(buf[off + ETH_TCP_OFF_DOFF] >> 4) * 4;
		if (l4len < ETH_TCP_HLEN_MIN)
			return -EINVAL;
	} else if (proto == IPPROTO_UDP) {
		l4len = ETH_UDP_HLEN;
	} else {
		/* includes every IPv6 extension header */
		return -EINVAL;
	}
	if (len < off + l4len)
		return -EINVAL;
	h->l4_proto = proto;
	h->pay_off = (uint16_t)(off + l4len);
	return 0;
}

#endif /* VHOSTD_ETH_H */
