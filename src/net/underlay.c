// SPDX-License-Identifier: GPL-2.0-or-later
/* underlay.c - a tunnel endpoint's own frames on a raw port
 *
 * See underlay.h.  Every read of a frame is bounded by its length, every
 * length field checked against it first; nothing here keeps state.
 */
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "csum.h"
#include "eth.h"
#include "underlay.h"

#define UL_ARP_LEN		28
#define UL_ARP_REQUEST		1
#define UL_ARP_REPLY		2
#define UL_ICMP_ECHO		8
#define UL_ICMP_ECHOREPLY	0
#define UL_ICMP6_ECHO		128
#define UL_ICMP6_ECHOREPLY	129
#define UL_ND_NS		135
#define UL_ND_NA		136
#define UL_ND_LEN		24	/* NS, NA: type to target */
#define UL_ND_OPT_SLLA		1
#define UL_ND_OPT_TLLA		2
#define UL_ND_HOPS		255
#define UL_NA_FLAGS		0x60000000U	/* solicited, override */
#define UL_TTL			64

/* ul_station() - @mac is a station's: unicast, not all zeros */
static bool ul_station(const uint8_t *mac)
{
	return !(mac[0] & 1) &&
	       (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

/* ul_drop() - @rx becomes a drop for @why */
static void ul_drop(struct ul_rx *rx, const char *why)
{
	rx->kind = UL_DROP;
	rx->neigh = false;
	rx->why = why;
}

/**
 * ul_arp_rx() - an ARP packet: for the endpoint's address, or a
 *		 gratuitous one to note
 * @l:		endpoint
 * @f:		frame
 * @len:	its length
 * @rx:		findings
 */
static void ul_arp_rx(const struct ul_local *l, const uint8_t *f, size_t len,
		      struct ul_rx *rx)
{
	const uint8_t *a = f + ETH_HLEN;
	const uint8_t *sha = a + 8, *spa = a + 14, *tpa = a + 24;
	uint16_t op;

	if (l->family != AF_INET || len < ETH_HLEN + UL_ARP_LEN ||
	    eth_get16(a) != 1 || eth_get16(a + 2) != ETH_P_IP || a[4] != 6 ||
	    a[5] != 4)
		return;
	op = eth_get16(a + 6);
	memcpy(rx->smac, sha, UL_ETH_ALEN);
	memcpy(rx->sip, spa, 4);
	rx->neigh = ul_station(sha) && eth_get32(spa);
	if (memcmp(tpa, l->ip, 4)) {
		/* Someone else's: only a gratuitous one teaches. */
		rx->neigh = rx->neigh && !memcmp(spa, tpa, 4);
		return;
	}
	if (!ul_station(sha))
		ul_drop(rx, "ARP sender is not a station");
	else if (op == UL_ARP_REQUEST)
		rx->kind = UL_ARP_REQ;
	else if (op == UL_ARP_REPLY)
		rx->kind = UL_NEIGH;
	else
		ul_drop(rx, "ARP operation");
}

/**
 * ul_udp_rx() - a UDP datagram to the endpoint's address
 * @l:		endpoint
 * @f:		frame
 * @u:		its UDP header
 * @l4len:	bytes from @u to the IP packet's end
 * @sum:	the pseudo header's partial sum
 * @need:	a zero checksum is refused (IPv6)
 * @vouched:	the carrier's interface vouches for the checksum (the
 *		kernel's own frame: left partial, or checked): not summed
 * @rx:		findings
 */
static void ul_udp_rx(const struct ul_local *l, const uint8_t *f,
		      const uint8_t *u, size_t l4len, uint32_t sum, bool need,
		      bool vouched, struct ul_rx *rx)
{
	if (l4len < ETH_UDP_HLEN || eth_get16(u + ETH_UDP_OFF_LEN) != l4len)
		return ul_drop(rx, "UDP length");
	if (memcmp(u + 2, &l->port, 2))
		return ul_drop(rx, "UDP port");
	if (u[6] | u[7]) {
		if (!vouched && csum_fold(csum_partial(u, l4len, sum)))
			return ul_drop(rx, "UDP checksum");
	} else if (need) {
		return ul_drop(rx, "UDP checksum zero over IPv6");
	}
	rx->kind = UL_UDP;
	memcpy(&rx->sport, u, 2);
	rx->off = (size_t)(u - f) + ETH_UDP_HLEN;
	rx->len = l4len - ETH_UDP_HLEN;
}

/**
 * ul_ip4_rx() - an IPv4 packet to the endpoint's MAC
 * @l:		endpoint
 * @f:		frame
 * @len:	its length
 * @vouched:	its UDP checksum is vouched for (ul_udp_rx())
 * @rx:		findings
 */
static void ul_ip4_rx(const struct ul_local *l, const uint8_t *f, size_t len,
		      bool vouched, struct ul_rx *rx)
{
	const uint8_t *ip = f + ETH_HLEN, *l4;
	size_t left = len - ETH_HLEN, ihl, tot;

	if (left < ETH_IPV4_HLEN_MIN || ip[0] >> 4 != 4)
		return ul_drop(rx, "IPv4 header");
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	tot = eth_get16(ip + ETH_IPV4_OFF_TOTLEN);
	if (ihl < ETH_IPV4_HLEN_MIN || tot < ihl || tot > left)
		return ul_drop(rx, "IPv4 length");
	if (csum_fold(csum_partial(ip, ihl, 0)))
		return ul_drop(rx, "IPv4 header checksum");
	if (memcmp(ip + ETH_IPV4_OFF_DADDR, l->ip, 4))
		return ul_drop(rx, "another IPv4 address");
	if (eth_get16(ip + ETH_IPV4_OFF_FRAG) & ETH_IPV4_FRAG_MASK)
		return ul_drop(rx, "IPv4 fragment");
	memcpy(rx->sip, ip + ETH_IPV4_OFF_SADDR, 4);
	memcpy(rx->smac, f + ETH_ALEN, UL_ETH_ALEN);
	l4 = ip + ihl;
	switch (ip[ETH_IPV4_OFF_PROTO]) {
	case IPPROTO_UDP:
		ul_udp_rx(l, f, l4, tot - ihl,
			  csum_pseudo_ipv4(ip + ETH_IPV4_OFF_SADDR,
					   ip + ETH_IPV4_OFF_DADDR,
					   IPPROTO_UDP,
					   (uint32_t)(tot - ihl), 0),
			  false, vouched, rx);
		break;
	case IPPROTO_ICMP:
		if (tot - ihl < 8 || l4[0] != UL_ICMP_ECHO || l4[1] ||
		    csum_fold(csum_partial(l4, tot - ihl, 0)))
			return ul_drop(rx, "ICMP other than a good echo");
		rx->kind = UL_ECHO;
		break;
	default:
		return ul_drop(rx, "IP protocol");
	}
	rx->neigh = rx->kind != UL_DROP && ul_station(rx->smac) &&
		    eth_get32(rx->sip);
}

/**
 * ul_nd_lla() - a link-layer address option of an ND message
 * @o:		its options
 * @len:	their bytes
 * @type:	UL_ND_OPT_SLLA or UL_ND_OPT_TLLA
 * @mac:	out: the address
 * Return: 1 if found, 0 if not, -1 if the options are malformed
 */
static int ul_nd_lla(const uint8_t *o, size_t len, uint8_t type,
		     uint8_t *mac)
{
	while (len >= 2) {
		size_t ol = (size_t)o[1] * 8;

		if (!ol || ol > len)
			return -1;
		if (o[0] == type && ol >= 8) {
			memcpy(mac, o + 2, UL_ETH_ALEN);
			return 1;
		}
		o += ol;
		len -= ol;
	}
	return len ? -1 : 0;
}

/**
 * ul_icmp6_rx() - an ICMPv6 message to the endpoint (its checksum good)
 * @l:		endpoint
 * @ip:		the IPv6 header
 * @m:		the message
 * @mlen:	its length
 * @to_us:	sent to the endpoint's MAC (else to its solicited-node
 *		group)
 * @rx:		findings
 */
static void ul_icmp6_rx(const struct ul_local *l, const uint8_t *ip,
			const uint8_t *m, size_t mlen, bool to_us,
			struct ul_rx *rx)
{
	int has;

	if (m[0] == UL_ICMP6_ECHO && !m[1] && mlen >= 8 && to_us) {
		rx->kind = UL_ECHO;
		rx->neigh = ul_station(rx->smac);
		return;
	}
	if ((m[0] != UL_ND_NS && m[0] != UL_ND_NA) || m[1] ||
	    mlen < UL_ND_LEN || ip[7] != UL_ND_HOPS)
		return ul_drop(rx, "ICMPv6 other than echo, NS, NA");
	if (m[0] == UL_ND_NS) {
		if (memcmp(m + 8, l->ip, 16))
			return ul_drop(rx, "NS for another address");
		has = ul_nd_lla(m + UL_ND_LEN, mlen - UL_ND_LEN,
				UL_ND_OPT_SLLA, rx->smac);
		if (has < 0)
			return ul_drop(rx, "ND option");
		rx->kind = UL_NS;
		/* From :: (duplicate address detection): nobody to note. */
		rx->neigh = has && ul_station(rx->smac) &&
			    (eth_get32(rx->sip) | eth_get32(rx->sip + 4) |
			     eth_get32(rx->sip + 8) | eth_get32(rx->sip + 12));
		return;
	}
	memcpy(rx->sip, m + 8, 16);	/* the advertised address */
	has = ul_nd_lla(m + UL_ND_LEN, mlen - UL_ND_LEN, UL_ND_OPT_TLLA,
			rx->smac);
	if (has < 0)
		return ul_drop(rx, "ND option");
	rx->kind = UL_NEIGH;
	rx->neigh = ul_station(rx->smac);
}

/**
 * ul_ip6_rx() - an IPv6 packet to the endpoint's MAC or a multicast one
 * @l:		endpoint
 * @f:		frame
 * @len:	its length
 * @to_us:	sent to the endpoint's MAC
 * @vouched:	its UDP checksum is vouched for (ul_udp_rx())
 * @rx:		findings
 */
static void ul_ip6_rx(const struct ul_local *l, const uint8_t *f, size_t len,
		      bool to_us, bool vouched, struct ul_rx *rx)
{
	const uint8_t *ip = f + ETH_HLEN, *l4 = ip + ETH_IPV6_HLEN;
	size_t left = len - ETH_HLEN, plen;
	uint32_t sum;

	if (left < ETH_IPV6_HLEN || ip[0] >> 4 != 6) {
		if (to_us)
			ul_drop(rx, "IPv6 header");
		return;
	}
	plen = eth_get16(ip + ETH_IPV6_OFF_PLEN);
	if (!to_us) {
		/* A multicast frame is ours if it solicits our address. */
		if (ip[ETH_IPV6_OFF_NEXT] != IPPROTO_ICMPV6 ||
		    plen > left - ETH_IPV6_HLEN || plen < UL_ND_LEN ||
		    l4[0] != UL_ND_NS || memcmp(l4 + 8, l->ip, 16))
			return;
	} else if (plen > left - ETH_IPV6_HLEN) {
		return ul_drop(rx, "IPv6 length");
	} else if (memcmp(ip + ETH_IPV6_OFF_DADDR, l->ip, 16)) {
		return ul_drop(rx, "another IPv6 address");
	}
	memcpy(rx->sip, ip + ETH_IPV6_OFF_SADDR, 16);
	memcpy(rx->smac, f + ETH_ALEN, UL_ETH_ALEN);
	sum = csum_pseudo_ipv6(ip + ETH_IPV6_OFF_SADDR,
			       ip + ETH_IPV6_OFF_DADDR, ip[ETH_IPV6_OFF_NEXT],
			       (uint32_t)plen, 0);
	switch (ip[ETH_IPV6_OFF_NEXT]) {
	case IPPROTO_UDP:
		if (!to_us)
			return ul_drop(rx, "UDP to a group");
		ul_udp_rx(l, f, l4, plen, sum, true, vouched, rx);
		rx->neigh = rx->kind == UL_UDP && ul_station(rx->smac);
		return;
	case IPPROTO_ICMPV6:
		if (plen < 4 || csum_fold(csum_partial(l4, plen, sum)))
			return ul_drop(rx, "ICMPv6 checksum");
		return ul_icmp6_rx(l, ip, l4, plen, to_us, rx);
	default:
		return ul_drop(rx, "IPv6 next header");
	}
}

/**
 * ul_classify() - what a frame read from the wire is to the endpoint
 * @l:		endpoint
 * @f:		frame (not written)
 * @len:	its length
 * @rx:		out: findings (struct ul_rx)
 *
 * Frames to the endpoint's MAC are its own, whatever they are: those it
 * cannot take are UL_DROP.  ARP and neighbour solicitations for its
 * address are its own whatever their destination MAC; every other frame
 * is UL_OTHER.
 */
void ul_classify(const struct ul_local *l, const uint8_t *f, size_t len,
		 struct ul_rx *rx)
{
	ul_classify_vouched(l, f, len, false, rx);
}

/**
 * ul_classify_vouched() - ul_classify(), a UDP checksum maybe vouched for
 * @l:		endpoint
 * @f:		frame (not written)
 * @len:	its length
 * @vouched:	the carrier's interface vouches for a datagram's UDP
 *		checksum: a TAP's frame with VIRTIO_NET_HDR_F_NEEDS_CSUM
 *		(the kernel left it to be done, as for any frame of its
 *		own) or _DATA_VALID (the kernel checked it).  Every other
 *		check stays
 * @rx:		out: findings
 */
void ul_classify_vouched(const struct ul_local *l, const uint8_t *f,
			 size_t len, bool vouched, struct ul_rx *rx)
{
	uint16_t type;
	bool to_us;

	rx->kind = UL_OTHER;
	rx->neigh = false;
	rx->why = NULL;
	if (len < ETH_HLEN)
		return;
	type = eth_get16(f + 12);
	if (type == ETH_P_ARP)
		return ul_arp_rx(l, f, len, rx);
	to_us = !memcmp(f, l->mac, UL_ETH_ALEN);
	if (l->family == AF_INET && type == ETH_P_IP && to_us)
		return ul_ip4_rx(l, f, len, vouched, rx);
	/* A solicitation comes to 33:33:ff and our address's last three
	 * bytes (RFC 4291 section 2.7.1); ul_ip6_rx() checks its target.
	 */
	if (l->family == AF_INET6 && type == ETH_P_IPV6 &&
	    (to_us || (f[0] == 0x33 && f[1] == 0x33 && f[2] == 0xff &&
		       !memcmp(f + 3, l->ip + 13, 3))))
		return ul_ip6_rx(l, f, len, to_us, vouched, rx);
	if (to_us)
		ul_drop(rx, "not the underlay's protocol");
}

/**
 * ul_udp_hdr() - a datagram's outer headers, its UDP checksum 0
 * @l:		endpoint (the source)
 * @out:	where the frame starts
 * @dmac:	next hop's MAC
 * @dip:	destination address
 * @sport:	source port, network order
 * @ulen:	UDP header and payload bytes
 * @flow:	IPv6's flow label
 * Return: the UDP header, in @out
 */
static uint8_t *ul_udp_hdr(const struct ul_local *l, uint8_t *out,
			   const uint8_t *dmac, const uint8_t *dip,
			   uint16_t sport, uint32_t ulen, uint32_t flow)
{
	uint8_t *ip = out + ETH_HLEN, *u;
	uint16_t c;

	memcpy(out, dmac, UL_ETH_ALEN);
	memcpy(out + ETH_ALEN, l->mac, UL_ETH_ALEN);
	if (l->family == AF_INET) {
		eth_put16(out + 12, ETH_P_IP);
		ip[0] = 0x45;
		ip[1] = 0;
		eth_put16(ip + ETH_IPV4_OFF_TOTLEN,
			  (uint16_t)(ETH_IPV4_HLEN_MIN + ulen));
		eth_put16(ip + ETH_IPV4_OFF_ID, 0);
		eth_put16(ip + ETH_IPV4_OFF_FRAG, 0x4000);	/* DF */
		ip[8] = UL_TTL;
		ip[ETH_IPV4_OFF_PROTO] = IPPROTO_UDP;
		eth_put16(ip + ETH_IPV4_OFF_CSUM, 0);
		memcpy(ip + ETH_IPV4_OFF_SADDR, l->ip, 4);
		memcpy(ip + ETH_IPV4_OFF_DADDR, dip, 4);
		c = csum_fold(csum_partial(ip, ETH_IPV4_HLEN_MIN, 0));
		memcpy(ip + ETH_IPV4_OFF_CSUM, &c, 2);
		u = ip + ETH_IPV4_HLEN_MIN;
	} else {
		eth_put16(out + 12, ETH_P_IPV6);
		eth_put32(ip, 0x60000000U | (flow & 0xfffffU));
		eth_put16(ip + ETH_IPV6_OFF_PLEN, (uint16_t)ulen);
		ip[ETH_IPV6_OFF_NEXT] = IPPROTO_UDP;
		ip[7] = UL_TTL;
		memcpy(ip + ETH_IPV6_OFF_SADDR, l->ip, 16);
		memcpy(ip + ETH_IPV6_OFF_DADDR, dip, 16);
		u = ip + ETH_IPV6_HLEN;
	}
	memcpy(u, &sport, 2);
	memcpy(u + 2, &l->port, 2);
	eth_put16(u + ETH_UDP_OFF_LEN, (uint16_t)ulen);
	eth_put16(u + ETH_UDP_OFF_CSUM, 0);
	return u;
}

/* ul_pseudo() - the UDP pseudo header's partial sum, to @dip */
static uint32_t ul_pseudo(const struct ul_local *l, const uint8_t *dip,
			  uint32_t ulen)
{
	return l->family == AF_INET ?
	       csum_pseudo_ipv4(l->ip, dip, IPPROTO_UDP, ulen, 0) :
	       csum_pseudo_ipv6(l->ip, dip, IPPROTO_UDP, ulen, 0);
}

/**
 * ul_udp() - a datagram's outer headers: Ethernet, IPv4 or IPv6, UDP
 * @l:		endpoint (the source)
 * @out:	where the frame starts: UL_HLEN4 or UL_HLEN6 bytes written,
 *		the payload follows
 * @dmac:	next hop's MAC
 * @dip:	destination address
 * @sport:	source port, network order
 * @paylen:	payload bytes (at most 65535 less the headers)
 * @flow:	the inner flow's hash: IPv6's flow label
 * @csum:	IPv4: fill the UDP checksum (else 0, RFC 7348 section 5);
 *		IPv6 always has one
 * @paysum:	partial sum of the payload, for the checksum
 *
 * IPv4 leaves with DF set and ID 0 (RFC 6864: an atomic datagram), TTL
 * 64; IPv6 with hop limit 64.
 *
 * Return: the headers' length
 */
size_t ul_udp(const struct ul_local *l, uint8_t *out, const uint8_t *dmac,
	      const uint8_t *dip, uint16_t sport, size_t paylen,
	      uint32_t flow, bool csum, uint32_t paysum)
{
	uint32_t ulen = (uint32_t)(ETH_UDP_HLEN + paylen), sum;
	uint8_t *u = ul_udp_hdr(l, out, dmac, dip, sport, ulen, flow);
	uint16_t c;

	if (csum || l->family == AF_INET6) {
		sum = csum_add(ul_pseudo(l, dip, ulen), paysum);
		c = csum_fold(csum_partial(u, ETH_UDP_HLEN, sum));
		if (!c)
			c = 0xffff;	/* 0 says "none" (RFC 768) */
		memcpy(u + ETH_UDP_OFF_CSUM, &c, 2);
	}
	return (size_t)(u - out) + ETH_UDP_HLEN;
}

/**
 * ul_udp_partial() - outer headers for a datagram whose UDP checksum the
 *		      interface finishes (a UDP GSO train's: NEEDS_CSUM)
 * @l:		endpoint (the source)
 * @out:	as ul_udp()'s
 * @dmac:	next hop's MAC
 * @dip:	destination address
 * @sport:	source port, network order
 * @paylen:	payload bytes (the whole train's)
 * @flow:	IPv6's flow label
 *
 * As ul_udp(), but the UDP checksum field holds the pseudo header's sum
 * (what a driver leaves there for VIRTIO_NET_HDR_F_NEEDS_CSUM), over
 * both families: the segmenting kernel or NIC adjusts it per datagram.
 *
 * Return: the headers' length
 */
size_t ul_udp_partial(const struct ul_local *l, uint8_t *out,
		      const uint8_t *dmac, const uint8_t *dip, uint16_t sport,
		      size_t paylen, uint32_t flow)
{
	uint32_t ulen = (uint32_t)(ETH_UDP_HLEN + paylen);
	uint8_t *u = ul_udp_hdr(l, out, dmac, dip, sport, ulen, flow);
	uint16_t c = csum_reduce(ul_pseudo(l, dip, ulen));

	memcpy(u + ETH_UDP_OFF_CSUM, &c, 2);
	return (size_t)(u - out) + ETH_UDP_HLEN;
}

/**
 * ul_arp() - an ARP request for @tip, or a reply to @tmac at @tip
 * @l:		endpoint (IPv4)
 * @out:	UL_FRAME_MIN bytes
 * @request:	a request (broadcast), else a reply
 * @tmac:	reply: the asker's MAC
 * @tip:	the address asked for, or the asker's
 * Return: the frame's length, padded to Ethernet's minimum
 */
size_t ul_arp(const struct ul_local *l, uint8_t *out, bool request,
	      const uint8_t *tmac, const uint8_t *tip)
{
	uint8_t *a = out + ETH_HLEN;

	memset(out, 0, UL_FRAME_MIN);
	if (request)
		memset(out, 0xff, UL_ETH_ALEN);
	else
		memcpy(out, tmac, UL_ETH_ALEN);
	memcpy(out + ETH_ALEN, l->mac, UL_ETH_ALEN);
	eth_put16(out + 12, ETH_P_ARP);
	eth_put16(a, 1);
	eth_put16(a + 2, ETH_P_IP);
	a[4] = 6;
	a[5] = 4;
	eth_put16(a + 6, request ? UL_ARP_REQUEST : UL_ARP_REPLY);
	memcpy(a + 8, l->mac, UL_ETH_ALEN);
	memcpy(a + 14, l->ip, 4);
	if (!request)
		memcpy(a + 18, tmac, UL_ETH_ALEN);
	memcpy(a + 24, tip, 4);
	return UL_FRAME_MIN;
}

/**
 * ul_nd() - an NS or NA with a link-layer address option
 * @l:		endpoint (IPv6)
 * @out:	UL_CTL_MAX bytes
 * @dmac:	destination MAC
 * @dip:	destination address
 * @type:	UL_ND_NS or UL_ND_NA
 * @target:	the message's target address
 * Return: the frame's length
 */
static size_t ul_nd(const struct ul_local *l, uint8_t *out,
		    const uint8_t *dmac, const uint8_t *dip, uint8_t type,
		    const uint8_t *target)
{
	uint8_t *ip = out + ETH_HLEN, *m = ip + ETH_IPV6_HLEN;
	const uint32_t mlen = UL_ND_LEN + 8;
	uint16_t c;

	memset(out, 0, ETH_HLEN + ETH_IPV6_HLEN + mlen);
	memcpy(out, dmac, UL_ETH_ALEN);
	memcpy(out + ETH_ALEN, l->mac, UL_ETH_ALEN);
	eth_put16(out + 12, ETH_P_IPV6);
	eth_put32(ip, 0x60000000U);
	eth_put16(ip + ETH_IPV6_OFF_PLEN, (uint16_t)mlen);
	ip[ETH_IPV6_OFF_NEXT] = IPPROTO_ICMPV6;
	ip[7] = UL_ND_HOPS;
	memcpy(ip + ETH_IPV6_OFF_SADDR, l->ip, 16);
	memcpy(ip + ETH_IPV6_OFF_DADDR, dip, 16);
	m[0] = type;
	if (type == UL_ND_NA)
		eth_put32(m + 4, UL_NA_FLAGS);
	memcpy(m + 8, target, 16);
	m[UL_ND_LEN] = type == UL_ND_NS ? UL_ND_OPT_SLLA : UL_ND_OPT_TLLA;
	m[UL_ND_LEN + 1] = 1;
	memcpy(m + UL_ND_LEN + 2, l->mac, UL_ETH_ALEN);
	c = csum_fold(csum_partial(m, mlen, csum_pseudo_ipv6(
		l->ip, dip, IPPROTO_ICMPV6, mlen, 0)));
	memcpy(m + 2, &c, 2);
	return ETH_HLEN + ETH_IPV6_HLEN + mlen;
}

/**
 * ul_ns() - a neighbour solicitation for @tip, to its solicited-node group
 * @l:		endpoint (IPv6)
 * @out:	UL_CTL_MAX bytes
 * @tip:	the address asked for
 * Return: the frame's length
 */
size_t ul_ns(const struct ul_local *l, uint8_t *out, const uint8_t *tip)
{
	uint8_t dip[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t dmac[UL_ETH_ALEN] = { 0x33, 0x33, 0xff };

	memcpy(dip + 13, tip + 13, 3);
	memcpy(dmac + 3, tip + 13, 3);
	return ul_nd(l, out, dmac, dip, UL_ND_NS, tip);
}

/**
 * ul_na() - a solicited neighbour advertisement of the endpoint's address
 * @l:		endpoint (IPv6)
 * @out:	UL_CTL_MAX bytes
 * @dmac:	the solicitor's MAC
 * @dip:	its address
 * Return: the frame's length
 */
size_t ul_na(const struct ul_local *l, uint8_t *out, const uint8_t *dmac,
	     const uint8_t *dip)
{
	return ul_nd(l, out, dmac, dip, UL_ND_NA, l->ip);
}

/**
 * ul_echo() - the reply to an echo request ul_classify() found good
 * @l:		endpoint
 * @out:	@room bytes
 * @room:	room in @out
 * @f:		the request
 * @len:	its length
 * Return: the reply's length, 0 if it does not fit @room
 */
size_t ul_echo(const struct ul_local *l, uint8_t *out, size_t room,
	       const uint8_t *f, size_t len)
{
	const uint8_t *fip = f + ETH_HLEN;
	uint8_t *ip = out + ETH_HLEN, *m;
	size_t n, ihl, mlen;
	uint16_t c;

	if (l->family == AF_INET) {
		ihl = (size_t)(f[ETH_HLEN] & 0x0f) * 4;
		n = ETH_HLEN + eth_get16(f + ETH_HLEN + ETH_IPV4_OFF_TOTLEN);
	} else {
		ihl = ETH_IPV6_HLEN;
		n = ETH_HLEN + ETH_IPV6_HLEN +
		    eth_get16(f + ETH_HLEN + ETH_IPV6_OFF_PLEN);
	}
	if (n > room || n > len)
		return 0;
	memcpy(out, f, n);
	memcpy(out, f + ETH_ALEN, UL_ETH_ALEN);
	memcpy(out + ETH_ALEN, l->mac, UL_ETH_ALEN);
	m = ip + ihl;
	mlen = n - ETH_HLEN - ihl;
	if (l->family == AF_INET) {
		memcpy(ip + ETH_IPV4_OFF_DADDR, fip + ETH_IPV4_OFF_SADDR, 4);
		memcpy(ip + ETH_IPV4_OFF_SADDR, l->ip, 4);
		ip[8] = UL_TTL;
		eth_put16(ip + ETH_IPV4_OFF_CSUM, 0);
		c = csum_fold(csum_partial(ip, ihl, 0));
		memcpy(ip + ETH_IPV4_OFF_CSUM, &c, 2);
		m[0] = UL_ICMP_ECHOREPLY;
		eth_put16(m + 2, 0);
		c = csum_fold(csum_partial(m, mlen, 0));
	} else {
		memcpy(ip + ETH_IPV6_OFF_DADDR, fip + ETH_IPV6_OFF_SADDR, 16);
		memcpy(ip + ETH_IPV6_OFF_SADDR, l->ip, 16);
		ip[7] = UL_TTL;
		m[0] = UL_ICMP6_ECHOREPLY;
		eth_put16(m + 2, 0);
		c = csum_fold(csum_partial(m, mlen, csum_pseudo_ipv6(
			ip + ETH_IPV6_OFF_SADDR, ip + ETH_IPV6_OFF_DADDR,
			IPPROTO_ICMPV6, (uint32_t)mlen, 0)));
	}
	memcpy(m + 2, &c, 2);
	return n;
}
