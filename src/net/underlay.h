/* SPDX-License-Identifier: GPL-2.0-or-later */
/* underlay.h - a tunnel endpoint's own frames on a raw port: outer
 *		Ethernet/IP/UDP headers, ARP, IPv6 ND, ICMP echo
 *
 * DOC: Theory of Operation
 *
 * A tunnel port that sends through another port's raw frames (vxlan's
 * via=, over an AF_XDP port) owns an underlay address there, as VPP or
 * OVS-DPDK own theirs: no host stack answers for it.  This module is
 * what that takes, with no state: ul_classify() says what a frame read
 * from the wire is to the endpoint (a datagram to its UDP port, an ARP
 * or neighbour solicitation for its address, a neighbour's answer, an
 * echo request, something to drop, or nothing of its own); the builders
 * write the frames it sends: a datagram's outer headers, ARP requests
 * and replies, neighbour solicitations and advertisements, echo replies.
 *
 * Every length and checksum of a frame addressed to the endpoint is
 * checked here before the caller looks at its payload: the IPv4 header
 * checksum, the UDP checksum when there is one (IPv6 always has one:
 * RFC 8200 section 8.1; a zero one is refused, as Linux refuses it
 * without udp6zerocsumrx), the ICMP and ICMPv6 checksums, ND's hop
 * limit of 255.  Fragments are dropped: an endpoint's peers never
 * fragment (the tunnel sets DF and counts what would need it).
 */
#ifndef VHOSTD_UNDERLAY_H
#define VHOSTD_UNDERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UL_ETH_ALEN	6
#define UL_HLEN4	(14 + 20 + 8)	/* Ethernet, IPv4, UDP */
#define UL_HLEN6	(14 + 40 + 8)	/* Ethernet, IPv6, UDP */
#define UL_HLEN_MAX	UL_HLEN6
#define UL_FRAME_MIN	60		/* Ethernet's minimum, FCS aside */
/* Room for any control frame built here (a neighbour solicitation or
 * advertisement is the longest: 86 bytes).
 */
#define UL_CTL_MAX	96

/**
 * struct ul_local - the endpoint: its addresses and UDP port
 * @family:	AF_INET or AF_INET6
 * @mac:	its MAC (the carrying interface's)
 * @ip:		its address, network order (IPv4: the first 4 bytes)
 * @port:	its UDP port, network order
 */
struct ul_local {
	int family;
	uint8_t mac[UL_ETH_ALEN];
	uint8_t ip[16];
	uint16_t port;
};

/**
 * enum ul_kind - what a frame from the wire is to the endpoint
 * @UL_OTHER:	nothing of its own: the switch's (maybe a neighbour's
 *		gratuitous ARP to note, @neigh)
 * @UL_UDP:	a datagram to its address and port, checksums good
 * @UL_ARP_REQ:	an ARP request for its address: answer it (ul_arp())
 * @UL_NS:	a neighbour solicitation for its address: answer it
 *		(ul_na())
 * @UL_NEIGH:	an ARP reply or neighbour advertisement to it: @neigh
 * @UL_ECHO:	an echo request to its address: answer it (ul_echo())
 * @UL_DROP:	addressed to it and not good (@why): drop, count
 */
enum ul_kind {
	UL_OTHER,
	UL_UDP,
	UL_ARP_REQ,
	UL_NS,
	UL_NEIGH,
	UL_ECHO,
	UL_DROP,
};

/**
 * struct ul_rx - ul_classify()'s findings
 * @kind:	enum ul_kind
 * @neigh:	@sip is at @smac (a station address): a neighbour entry the
 *		frame teaches (ARP sender, ND link-layer option, a
 *		datagram's outer source)
 * @smac:	the sender's MAC (an ND message's link-layer address
 *		option, else the frame's Ethernet source)
 * @sip:	the sender's address (IPv4: first 4 bytes; for an
 *		advertisement its target)
 * @sport:	UL_UDP: source port, network order
 * @off:	UL_UDP: the payload's offset in the frame
 * @len:	UL_UDP: its length (the frame's padding left out)
 * @why:	UL_DROP: what was wrong, for messages and tests
 */
struct ul_rx {
	enum ul_kind kind;
	bool neigh;
	uint8_t smac[UL_ETH_ALEN];
	uint8_t sip[16];
	uint16_t sport;
	size_t off;
	size_t len;
	const char *why;
};

void ul_classify(const struct ul_local *l, const uint8_t *f, size_t len,
		 struct ul_rx *rx);
void ul_classify_vouched(const struct ul_local *l, const uint8_t *f,
			 size_t len, bool vouched, struct ul_rx *rx);
size_t ul_udp(const struct ul_local *l, uint8_t *out, const uint8_t *dmac,
	      const uint8_t *dip, uint16_t sport, size_t paylen,
	      uint32_t flow, bool csum, uint32_t paysum);
size_t ul_udp_partial(const struct ul_local *l, uint8_t *out,
		      const uint8_t *dmac, const uint8_t *dip, uint16_t sport,
		      size_t paylen, uint32_t flow);
size_t ul_arp(const struct ul_local *l, uint8_t *out, bool request,
	      const uint8_t *tmac, const uint8_t *tip);
size_t ul_ns(const struct ul_local *l, uint8_t *out, const uint8_t *tip);
size_t ul_na(const struct ul_local *l, uint8_t *out, const uint8_t *dmac,
	     const uint8_t *dip);
size_t ul_echo(const struct ul_local *l, uint8_t *out, size_t room,
	       const uint8_t *f, size_t len);

#endif /* VHOSTD_UNDERLAY_H */
