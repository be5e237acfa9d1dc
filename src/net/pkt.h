/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkt.h - a frame in flight through the switch, by reference
 *
 * A pkt describes a frame where it already lies (guest TX buffers, a TAP
 * read buffer) as an iovec array; nothing is copied to build it.  The
 * virtio-net header travels as metadata.  A pkt lives only for one
 * switch_forward() call: its source gives the buffers back afterwards.
 */
#ifndef VHOSTD_PKT_H
#define VHOSTD_PKT_H

#include <stdint.h>
#include <sys/uio.h>
#include <linux/if_ether.h>
#include <linux/virtio_net.h>

#define PKT_IOV_MAX	64
/* Largest frame: an IP datagram of 65535 bytes (a 64 KiB GSO frame)
 * behind an Ethernet header and one VLAN tag.
 */
#define PKT_FRAME_MAX	(65535 + ETH_HLEN + 4)

/**
 * struct pkt - one Ethernet frame, without its virtio-net header
 * @vnet:	offload metadata (flags, gso_type, gso_size, csum_*); the
 *		num_buffers field is meaningless here
 * @src_feat:	virtio-net feature bits saying which offload metadata the
 *		source was entitled to send (CSUM, HOST_TSO4/6, HOST_ECN,
 *		HOST_USO); a TAP source maps its TUNSETOFFLOAD flags here.
 *		The destination checks @vnet against it (gso_plan()).
 * @eth:	copy of the Ethernet header (dst, src, type) for classifying
 *		without touching guest memory twice
 * @len:	frame length in bytes (sum of @iov lengths)
 * @iovcnt:	segments in @iov
 * @iov:	the frame's bytes, in the source's memory (read-only)
 */
struct pkt {
	struct virtio_net_hdr_v1 vnet;
	uint64_t src_feat;
	struct ethhdr eth;
	uint32_t len;
	uint32_t iovcnt;
	struct iovec iov[PKT_IOV_MAX];
};

#endif /* VHOSTD_PKT_H */
