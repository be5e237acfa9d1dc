/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gso.h - virtio-net offloads in software: checksum completion and GSO
 *
 * DOC: Theory of Operation
 * A frame keeps its virtio-net offload metadata (NEEDS_CSUM, gso_type,
 * gso_size) on its way through the switch.  gso_plan() decides, from the
 * metadata and the two ends' negotiated features, what the datapath does:
 *
 *  - GSO_ACT_PASS: copy the frame and its virtio-net header as they are;
 *  - GSO_ACT_CSUM: copy the frame, then patch the 2 bytes gso_csum_fill()
 *    computed into the *destination* copy (the source is never written);
 *  - GSO_ACT_SEGMENT: walk gso_init()/gso_next(); each segment is an
 *    iovec whose first element is a caller-provided buffer with rebuilt
 *    headers and whose other elements point into the source frame, so
 *    the payload is still copied only once, by the caller;
 *  - GSO_ACT_DROP: the metadata is not acceptable (including a gso_size
 *    that would make too many segments, see GSO_TCP_MSS_MIN); count and
 *    drop.  gso_init() itself segments any size: ask gso_plan() first.
 *
 * Everything here is allocation-free and reads the untrusted frame's
 * header bytes exactly once (into struct gso_iter).  Payload bytes are
 * read by the checksum and again by the caller's copy: if the guest
 * changes them in between, only its own segments get wrong checksums and
 * are dropped by their receiver -- no harm to vhostd or anyone else.
 * See doc/offloads.md for the decision table and validation rules.
 */
#ifndef VHOSTD_GSO_H
#define VHOSTD_GSO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "eth.h"
#include "pkt.h"

/* Newer than some uapi headers (virtio spec 1.3, Linux 6.2). */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif
#ifndef VIRTIO_NET_F_GUEST_USO4
#define VIRTIO_NET_F_GUEST_USO4		54
#endif
#ifndef VIRTIO_NET_F_GUEST_USO6
#define VIRTIO_NET_F_GUEST_USO6		55
#endif
#ifndef VIRTIO_NET_F_HOST_USO
#define VIRTIO_NET_F_HOST_USO		56
#endif

/* Work per GSO frame is bounded (gso_plan() drops what exceeds it), so a
 * 64 KiB frame cannot become 65,000 segments:
 *  - TCP: gso_size at least 88, Linux's TCP_MIN_MSS (the smallest MSS a
 *    socket may ask for): a 65535-byte frame gives at most 745 segments.
 *    Only a peer advertising an MSS below that (down to Linux's
 *    tcp_min_snd_mss, 48: the CVE-2019-11479 kind of peer) makes a
 *    Linux sender go lower; see doc/offloads.md.
 *  - UDP (USO): at most 128 segments, Linux's UDP_MAX_SEGMENTS (64 in
 *    older kernels), which its own senders respect and which
 *    virtio_net_hdr_to_skb() enforces on frames from tun and vhost-net.
 */
#define GSO_TCP_MSS_MIN		88
#define GSO_UDP_SEGS_MAX	128

/* Room for the rebuilt headers of one segment: Ethernet + one 802.1Q tag
 * + IPv4 with 40 bytes of options + TCP with 40 bytes of options (138),
 * rounded up; IPv6 + TCP (118) fits too.
 */
#define GSO_HDR_MAX	144

/**
 * enum gso_action - what to do with one frame for one destination
 * @GSO_ACT_PASS:	forward frame and virtio-net header unchanged (flags
 *			other than NEEDS_CSUM cleared, see doc/offloads.md)
 * @GSO_ACT_CSUM:	forward with flags 0 after gso_csum_fill()
 * @GSO_ACT_SEGMENT:	segment with gso_init()/gso_next()
 * @GSO_ACT_DROP:	metadata invalid or not supported; drop and count
 * @GSO_ACT_COUNT:	number of actions (for per-action counters)
 */
enum gso_action {
	GSO_ACT_PASS,
	GSO_ACT_CSUM,
	GSO_ACT_SEGMENT,
	GSO_ACT_DROP,
	GSO_ACT_COUNT,
};

/**
 * struct gso_csum - a completed checksum, to be written by the caller
 * @off:	offset in the frame (after the virtio-net header) of the 2
 *		checksum bytes
 * @csum:	the checksum, memory order: store it with memcpy(), never
 *		htons() it
 */
struct gso_csum {
	uint32_t off;
	uint16_t csum;
};

/**
 * struct gso_seg - per-segment results of gso_next()
 * @vnet:	virtio-net header to give the destination with this segment
 *		(gso_type NONE; NEEDS_CSUM and csum_start/offset set in
 *		partial-checksum mode, flags 0 otherwise; num_buffers 0);
 *		fields little-endian as on the wire
 * @len:	segment length in bytes (headers + payload)
 * @payload:	payload bytes in this segment (at most gso_size)
 */
struct gso_seg {
	struct virtio_net_hdr_v1 vnet;
	uint32_t len;
	uint32_t payload;
};

/**
 * struct gso_iter - state of one frame's segmentation
 * @hdr:	private copy of the frame's headers, read once from the source
 * @h:		where the headers are in @hdr
 * @iov:	source frame segments (the pkt's own array: the pkt must
 *		outlive the iterator and stay unchanged)
 * @iovcnt:	number of source segments
 * @cur_i:	source segment holding the next payload byte
 * @cur_off:	offset of that byte in @iov[@cur_i]
 * @pay_len:	L4 payload bytes in the whole frame
 * @pay_done:	payload bytes already handed out in segments
 * @mss:	payload bytes per segment (gso_size), > 0
 * @segs:	number of segments the frame yields, >= 1
 * @seg:	index of the next segment
 * @seq:	TCP sequence number of the first payload byte (host order)
 * @urg:	TCP urgent pointer of the frame (host order)
 * @ip_id:	IPv4 identification of the first segment (host order)
 * @tcp_flags:	TCP flags byte of the frame
 * @partial:	leave the L4 checksum to the destination (NEEDS_CSUM)
 */
struct gso_iter {
	uint8_t hdr[GSO_HDR_MAX];
	struct eth_hdrs h;
	const struct iovec *iov;
	unsigned int iovcnt;
	unsigned int cur_i;
	size_t cur_off;
	uint32_t pay_len;
	uint32_t pay_done;
	uint32_t mss;
	uint32_t segs;
	uint32_t seg;
	uint32_t seq;
	uint16_t urg;
	uint16_t ip_id;
	uint8_t tcp_flags;
	bool partial;
};

enum gso_action gso_plan(const struct pkt *pkt, uint64_t src_features,
			 uint64_t dst_features);
int gso_csum_fill(const struct virtio_net_hdr_v1 *vnet,
		  const struct iovec *iov, unsigned int cnt, uint32_t len,
		  struct gso_csum *res);
int gso_csum_store(const struct gso_csum *res, const struct iovec *dst,
		   unsigned int cnt, size_t dst_off);
int gso_init(struct gso_iter *it, const struct pkt *pkt,
	     bool want_partial_csum);
int gso_next(struct gso_iter *it, uint8_t hdrbuf[GSO_HDR_MAX],
	     struct iovec *out, unsigned int max, struct gso_seg *seg);

int gso_next_flat(struct gso_iter *it, uint8_t *dst, size_t room,
		  struct gso_seg *seg);

int gso_emit(const struct pkt *pkt,
	     int (*emit)(void *arg, const struct iovec *iov,
			 unsigned int cnt, size_t len),
	     void *arg);

/**
 * gso_segs() - how many segments a frame yields, for reserving buffers
 * @it:		iterator set up by gso_init()
 * Return: total segments (>= 1)
 */
static inline uint32_t gso_segs(const struct gso_iter *it)
{
	return it->segs;
}

#endif /* VHOSTD_GSO_H */
