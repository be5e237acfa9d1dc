/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gro.h - TCP segments back into one frame (receive offload in software)
 *
 * DOC: Theory of Operation
 *
 * A port whose wire carries no offload metadata (a VXLAN underlay) gets a
 * sender's 64 KiB TCP frame as a run of MTU-sized segments.  Handed on
 * as they are, each costs the switch, the destination's ring and the
 * guest's stack a frame.  Like the kernel's GRO, this joins consecutive
 * segments of one TCP flow into one frame with virtio-net GSO metadata
 * (gso_type TCPV4/TCPV6, gso_size the first segment's payload,
 * NEEDS_CSUM), which a guest that negotiated GUEST_TSO takes whole and
 * the switch segments again for one that did not (gso.h).
 *
 * What may join (the kernel's rules, a little stricter): IPv4 without
 * options and not a fragment, or IPv6 without extension headers; no VLAN
 * tag; TCP with flags ACK (PSH allowed, and it closes the frame), never
 * SYN, FIN, RST, URG, ECE or CWR; the same Ethernet header, addresses,
 * ports, TOS/traffic class, TTL/hop limit, IPv4 DF, acknowledgement,
 * window and options; IPv4 IDs all equal or counting up by one; the
 * sequence number exactly where the frame so far ends; every segment but
 * the last exactly as long as the first (a shorter one closes the frame);
 * no padding; at most 65535 bytes of IP packet; no GSO metadata (a frame
 * a carrier handed over whole is no segment).  And every segment's IP
 * and TCP checksums are verified before it joins: the joined frame
 * carries NEEDS_CSUM, which a receiver trusts without looking, so a
 * corrupt segment must never hide in it.  (One exception: a segment
 * whose sender left the TCP checksum to the receiver, in a carrier that
 * vouches for its bytes -- VXLAN remote checksum offload -- has only its
 * IPv4 header checksum verified; its TCP checksum field holds the
 * pseudo-header sum, not a checksum.)  A frame that no second segment
 * joins is left exactly as it was.
 *
 * The frames are read from memory the caller owns (a port's receive
 * buffer, not guest memory): nothing changes them meanwhile.  The joined
 * frame's headers are rebuilt in a buffer the caller gives gro_finish()
 * for that frame (one per frame it hands on: the struct gro_flow starts
 * the next one); its payload stays where each segment put it (the
 * frame's iovec points there), so nothing is copied.
 */
#ifndef VHOSTD_GRO_H
#define VHOSTD_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eth.h"
#include "pkt.h"

/* Headers a joinable segment may have: Ethernet, IPv6 or IPv4 without
 * options, TCP with 40 bytes of options.
 */
#define GRO_HDR_MAX	(ETH_HLEN + ETH_IPV6_HLEN + ETH_TCP_HLEN_MAX)

/**
 * struct gro_flow - a frame being joined from segments
 * @hdr:	the first segment's headers, rebuilt by gro_finish()
 * @h:		where they are in @hdr
 * @hlen:	their length (every segment's)
 * @mss:	the first segment's payload bytes
 * @pay:	payload bytes joined so far
 * @segs:	segments joined (1: only the first)
 * @seq_next:	sequence number the next segment must start at
 * @ip_id:	the first segment's IPv4 ID
 * @id_step:	0 or 1: how the IDs go, once a second segment showed it
 * @psh:	a segment had PSH
 * @open:	more may join
 * @checked:	the first segment's checksums were verified
 * @first_partial: its TCP checksum was left to the receiver (not verified)
 * @first:	the first segment (its whole frame, for the lazy check)
 * @first_len:	its length
 */
struct gro_flow {
	uint8_t hdr[GRO_HDR_MAX];
	struct eth_hdrs h;
	uint32_t hlen;
	uint32_t mss;
	uint32_t pay;
	uint32_t segs;
	uint32_t seq_next;
	uint16_t ip_id;
	int id_step;
	bool psh;
	bool open;
	bool checked;
	bool first_partial;
	const uint8_t *first;
	size_t first_len;
};

bool gro_start(struct gro_flow *g, const uint8_t *f, size_t len,
	       const struct virtio_net_hdr_v1 *vnet);
bool gro_join(struct gro_flow *g, struct pkt *pkt, const uint8_t *f,
	      size_t len, const struct virtio_net_hdr_v1 *vnet);
void gro_finish(struct gro_flow *g, struct pkt *pkt, uint8_t *hdr);

#endif /* VHOSTD_GRO_H */
