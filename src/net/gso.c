// SPDX-License-Identifier: GPL-2.0-or-later
/* gso.c - checksum completion and software segmentation (TSO/USO)
 *
 * Owns the offload decision (gso_plan()), checksum completion for
 * NEEDS_CSUM frames (gso_csum_fill()) and the segmentation iterator
 * (gso_init()/gso_next()).  The frame is untrusted guest memory: its
 * header bytes are copied once into the iterator and every check and
 * every rebuilt header is derived from that copy; payload is only ever
 * referenced (iovec slices) or summed, never interpreted.  Metadata
 * (virtio-net header, lengths) is hostile too and is validated against
 * the parsed headers, not believed.  See gso.h for the overview and
 * doc/offloads.md for the rules.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "csum.h"
#include "gso.h"
#include "iov.h"

#define FEAT(bit)	(1ULL << (bit))

/**
 * gso_plan_gso() - the GSO half of gso_plan()
 * @pkt:	frame
 * @base:	gso_type without the ECN bit (not NONE)
 * @ecn:	the VIRTIO_NET_HDR_GSO_ECN bit was set
 * @src:	features the source negotiated
 * @dst:	features the destination negotiated
 * Return: the action
 */
static enum gso_action gso_plan_gso(const struct pkt *pkt, uint8_t base,
				    bool ecn, uint64_t src, uint64_t dst)
{
	uint32_t mss = le16toh(pkt->vnet.gso_size);
	uint32_t start = le16toh(pkt->vnet.csum_start);
	uint16_t proto = pkt->eth.h_proto;
	bool pass;

	switch (base) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		if (!(src & FEAT(VIRTIO_NET_F_HOST_TSO4)))
			return GSO_ACT_DROP;
		pass = dst & FEAT(VIRTIO_NET_F_GUEST_TSO4);
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!(src & FEAT(VIRTIO_NET_F_HOST_TSO6)))
			return GSO_ACT_DROP;
		pass = dst & FEAT(VIRTIO_NET_F_GUEST_TSO6);
		break;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		/* the ECN bit means TCP CWR; Linux refuses it on USO too */
		if (ecn || !(src & FEAT(VIRTIO_NET_F_HOST_USO)))
			return GSO_ACT_DROP;
		/* Payload after the UDP header at csum_start (the checksum
		 * field is inside the frame: gso_plan()), as Linux counts it.
		 */
		if (pkt->len > start + 8 &&
		    pkt->len - start - 8 > mss * GSO_UDP_SEGS_MAX)
			return GSO_ACT_DROP;
		/* USO is split by IP version on the receive side; behind a
		 * VLAN tag we do not know the version without reading the
		 * frame, so only a destination taking both gets it whole.
		 */
		if (proto == htons(ETH_P_IP))
			pass = dst & FEAT(VIRTIO_NET_F_GUEST_USO4);
		else if (proto == htons(ETH_P_IPV6))
			pass = dst & FEAT(VIRTIO_NET_F_GUEST_USO6);
		else
			pass = (dst & FEAT(VIRTIO_NET_F_GUEST_USO4)) &&
			       (dst & FEAT(VIRTIO_NET_F_GUEST_USO6));
		break;
	case VIRTIO_NET_HDR_GSO_UDP:
		/* UFO (IP fragmentation) is deprecated and not implemented
		 * in software: it passes to a taker or is dropped.
		 */
		if (ecn || !(src & FEAT(VIRTIO_NET_F_HOST_UFO)))
			return GSO_ACT_DROP;
		return dst & FEAT(VIRTIO_NET_F_GUEST_UFO) ?
		       GSO_ACT_PASS : GSO_ACT_DROP;
	default:
		return GSO_ACT_DROP;
	}
	/* A segment per byte would cost every destination that segments
	 * (and a TAP's kernel) thousands of frames for one.
	 */
	if (base != VIRTIO_NET_HDR_GSO_UDP_L4 && mss < GSO_TCP_MSS_MIN)
		return GSO_ACT_DROP;
	/* A receiver without GUEST_ECN must not get a GSO frame carrying
	 * CWR (spec: Processing of Incoming Packets); software
	 * segmentation puts CWR on the first segment only, which is right.
	 */
	if (ecn && !(dst & FEAT(VIRTIO_NET_F_GUEST_ECN)))
		pass = false;
	/* GUEST_TSO4/6 and GUEST_USO4/6 require GUEST_CSUM; do not trust a peer that
	 * negotiated one without the other.
	 */
	if (!(dst & FEAT(VIRTIO_NET_F_GUEST_CSUM)))
		pass = false;
	return pass ? GSO_ACT_PASS : GSO_ACT_SEGMENT;
}

/**
 * gso_plan() - decide how a frame travels to one destination
 * @pkt:	frame with its virtio-net metadata (read here, not the bytes)
 * @src_features: VIRTIO_NET_F_* bits (1ULL << bit) the source negotiated;
 *		for a TAP source, the offloads vhostd enabled on it
 * @dst_features: VIRTIO_NET_F_* bits the destination negotiated
 *
 * Only metadata is looked at (cheap, no guest memory touched); the frame
 * itself is validated by gso_csum_fill() or gso_init() when work is
 * needed.  A pass-through frame is not parsed: the receiving driver must
 * validate it as the spec requires of any driver.
 *
 * Return: the action, see enum gso_action
 */
enum gso_action gso_plan(const struct pkt *pkt, uint64_t src_features,
			 uint64_t dst_features)
{
	uint8_t flags = pkt->vnet.flags, type = pkt->vnet.gso_type;
	uint8_t base = type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool ecn = type & VIRTIO_NET_HDR_GSO_ECN;
	bool needs = flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
	uint32_t start = le16toh(pkt->vnet.csum_start);
	uint32_t off = le16toh(pkt->vnet.csum_offset);

	if (needs) {
		/* a driver without VIRTIO_NET_F_CSUM MUST send flags 0 */
		if (!(src_features & FEAT(VIRTIO_NET_F_CSUM)))
			return GSO_ACT_DROP;
		/* the 2 checksum bytes must lie inside the frame */
		if (start + off + 2 > pkt->len)
			return GSO_ACT_DROP;
	}
	if (base == VIRTIO_NET_HDR_GSO_NONE) {
		if (ecn)
			return GSO_ACT_DROP;
		if (!needs)
			return GSO_ACT_PASS;
		return dst_features & FEAT(VIRTIO_NET_F_GUEST_CSUM) ?
		       GSO_ACT_PASS : GSO_ACT_CSUM;
	}
	/* spec: a GSO frame MUST carry NEEDS_CSUM and a gso_size */
	if (!needs || !le16toh(pkt->vnet.gso_size))
		return GSO_ACT_DROP;
	return gso_plan_gso(pkt, base, ecn, src_features, dst_features);
}

/**
 * gso_csum_fill() - complete the checksum of a NEEDS_CSUM frame
 * @vnet:	the frame's virtio-net header
 * @iov:	the frame: the source's segments, or the destination copy
 *		(the result is the same; nothing is written either way)
 * @cnt:	number of segments
 * @len:	frame length; @iov must hold at least that many bytes
 *
 * @res:	where the caller must store what (see gso_csum_store())
 *
 * Sums [csum_start, @len) as the spec defines it (the checksum field
 * holds the pseudo-header sum, so it is part of the sum).  A result of 0
 * is sent as 0xffff, like Linux's skb_checksum_help(): both mean zero to
 * TCP, and UDP needs it (0 there means "no checksum").
 *
 * Return: 0, or -EINVAL if NEEDS_CSUM is clear or csum_start/csum_offset
 *	   put the checksum field outside the frame
 */
int gso_csum_fill(const struct virtio_net_hdr_v1 *vnet,
		  const struct iovec *iov, unsigned int cnt, uint32_t len,
		  struct gso_csum *res)
{
	uint32_t start = le16toh(vnet->csum_start);
	uint32_t off = le16toh(vnet->csum_offset);
	uint16_t c;

	if (!(vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;
	/* hostile offsets: both the summed range and the field must be
	 * inside the frame (this also gives start < len)
	 */
	if (start + off + 2 > len || iov_size(iov, cnt) < len)
		return -EINVAL;
	c = csum_fold(csum_iov(iov, cnt, start, len - start, 0));
	res->off = start + off;
	res->csum = c ? c : 0xffff;
	return 0;
}

/**
 * gso_csum_store() - write a completed checksum into a frame copy
 * @res:	result of gso_csum_fill()
 * @dst:	destination segments holding the copied frame
 * @cnt:	number of segments
 * @dst_off:	where the frame starts in @dst (e.g. after the destination's
 *		virtio-net header)
 * Return: 0, or -ENOSPC if @dst is too short
 */
int gso_csum_store(const struct gso_csum *res, const struct iovec *dst,
		   unsigned int cnt, size_t dst_off)
{
	if (iov_from_buf(dst, cnt, dst_off + res->off, &res->csum, 2) != 2)
		return -ENOSPC;
	return 0;
}

/**
 * gso_check_hdrs() - match parsed headers against the GSO metadata
 * @it:		iterator with @hdr and @h filled in
 * @base:	gso_type without the ECN bit
 * @cstart:	csum_start from the virtio-net header
 * @coff:	csum_offset from the virtio-net header
 * Return: 0 or -EINVAL
 */
static int gso_check_hdrs(const struct gso_iter *it, uint8_t base,
			  uint32_t cstart, uint32_t coff)
{
	const struct eth_hdrs *h = &it->h;

	switch (base) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		if (h->ipv6 || h->l4_proto != IPPROTO_TCP)
			return -EINVAL;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!h->ipv6 || h->l4_proto != IPPROTO_TCP)
			return -EINVAL;
		break;
	default: /* UDP_L4, either IP version */
		if (h->l4_proto != IPPROTO_UDP)
			return -EINVAL;
		break;
	}
	/* A frame whose own checksum metadata disagrees with its headers
	 * is self-contradictory: refuse it rather than guess which is right.
	 */
	if (cstart != h->l4_off ||
	    coff != (h->l4_proto == IPPROTO_TCP ? ETH_TCP_OFF_CSUM :
						  ETH_UDP_OFF_CSUM))
		return -EINVAL;
	return 0;
}

/**
 * gso_init() - validate a GSO frame and prepare to segment it
 * @it:		iterator to set up
 * @pkt:	the frame; its iov array is referenced, not copied, so @pkt
 *		must stay alive and unchanged until the last gso_next()
 * @want_partial_csum: the destination negotiated GUEST_CSUM: leave each
 *		segment's L4 checksum for it (NEEDS_CSUM) instead of
 *		computing it here
 *
 * Supports gso_type TCPV4, TCPV6 (each optionally with the ECN bit) and
 * UDP_L4.  hdr_len is only a hint in the spec and is ignored: the header
 * length comes from the parsed headers.  gso_size may exceed the payload
 * (one segment results); a frame without payload yields one header-only
 * segment.
 *
 * Return: 0, or -EINVAL for anything not acceptable: unknown or
 *	   unsupported gso_type, ECN bit on UDP, gso_size 0, NEEDS_CSUM
 *	   clear or pointing elsewhere than the parsed L4 checksum, pkt->len
 *	   not the sum of its iovecs, malformed or truncated headers (see
 *	   eth_parse()), TCP SYN or RST, a segment too long for the IP
 *	   length field
 */
int gso_init(struct gso_iter *it, const struct pkt *pkt,
	     bool want_partial_csum)
{
	uint8_t type = pkt->vnet.gso_type, flags = pkt->vnet.flags;
	uint8_t base = type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	uint32_t mss = le16toh(pkt->vnet.gso_size);
	uint32_t cstart = le16toh(pkt->vnet.csum_start);
	uint32_t coff = le16toh(pkt->vnet.csum_offset);
	uint32_t len = pkt->len, cnt = pkt->iovcnt, first, l3len;
	size_t n;
	int ret;

	memset(it, 0, sizeof(*it));
	if (cnt > PKT_IOV_MAX || iov_size(pkt->iov, cnt) != len)
		return -EINVAL;
	if (base != VIRTIO_NET_HDR_GSO_TCPV4 &&
	    base != VIRTIO_NET_HDR_GSO_TCPV6 &&
	    base != VIRTIO_NET_HDR_GSO_UDP_L4)
		return -EINVAL;
	if ((type & VIRTIO_NET_HDR_GSO_ECN) &&
	    base == VIRTIO_NET_HDR_GSO_UDP_L4)
		return -EINVAL;
	if (!mss || !(flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;

	/* the one read of the header bytes from source memory */
	n = len < GSO_HDR_MAX ? len : GSO_HDR_MAX;
	if (iov_to_buf(pkt->iov, cnt, 0, it->hdr, n) != n)
		return -EINVAL;
	ret = eth_parse(it->hdr, n, &it->h);
	if (ret)
		return ret;
	ret = gso_check_hdrs(it, base, cstart, coff);
	if (ret)
		return ret;

	it->pay_len = len - it->h.pay_off;
	it->mss = mss;
	it->segs = it->pay_len ? (it->pay_len - 1) / mss + 1 : 1;
	/* Every segment's IP length must fit 16 bits; the first is the
	 * longest.  (IPv4 total length covers the IP header, IPv6 payload
	 * length does not; no jumbograms.)
	 */
	first = it->pay_len < mss ? it->pay_len : mss;
	l3len = (uint32_t)(it->h.pay_off - it->h.l3_off) + first;
	if (it->h.ipv6)
		l3len -= ETH_IPV6_HLEN;
	if (l3len > 0xffff)
		return -EINVAL;

	if (it->h.l4_proto == IPPROTO_TCP) {
		const uint8_t *th = it->hdr + it->h.l4_off;

		it->tcp_flags = th[ETH_TCP_OFF_FLAGS];
		/* SYN/RST carry no stream to cut; repeating them in every
		 * segment would be wrong, so such a frame is nonsense.
		 */
		if (it->tcp_flags & (ETH_TCP_SYN | ETH_TCP_RST))
			return -EINVAL;
		it->seq = eth_get32(th + ETH_TCP_OFF_SEQ);
		it->urg = eth_get16(th + ETH_TCP_OFF_URG);
	}
	if (!it->h.ipv6)
		it->ip_id = eth_get16(it->hdr + it->h.l3_off + ETH_IPV4_OFF_ID);

	it->iov = pkt->iov;
	it->iovcnt = cnt;
	/* payload cursor: skip the headers once, then only move forward */
	n = it->h.pay_off;
	while (it->cur_i < cnt && n >= pkt->iov[it->cur_i].iov_len)
		n -= pkt->iov[it->cur_i++].iov_len;
	it->cur_off = n;
	it->partial = want_partial_csum;
	return 0;
}

/**
 * gso_fix_tcp() - per-segment TCP header fields
 * @it:		iterator
 * @th:		the segment's TCP header (in the caller's hdrbuf)
 * @last:	this is the frame's last segment
 */
static void gso_fix_tcp(const struct gso_iter *it, uint8_t *th, bool last)
{
	uint8_t fl = it->tcp_flags;
	uint32_t off = it->pay_done;

	eth_put32(th + ETH_TCP_OFF_SEQ, it->seq + off);
	/* CWR announces a window reduction once; FIN and PSH belong to
	 * the end of the data (RFC 3168 6.1.2, RFC 9293).
	 */
	if (it->seg)
		fl &= (uint8_t)~ETH_TCP_CWR;
	if (!last)
		fl &= (uint8_t)~(ETH_TCP_FIN | ETH_TCP_PSH);
	/* the urgent pointer is relative to each segment's sequence number;
	 * once the segment starts past the urgent data, URG ends
	 */
	if (fl & ETH_TCP_URG) {
		if (it->urg > off) {
			eth_put16(th + ETH_TCP_OFF_URG,
				  (uint16_t)(it->urg - off));
		} else {
			fl &= (uint8_t)~ETH_TCP_URG;
			eth_put16(th + ETH_TCP_OFF_URG, 0);
		}
	}
	th[ETH_TCP_OFF_FLAGS] = fl;
}

/**
 * gso_slice() - describe the next @want payload bytes as source iovecs
 * @it:		iterator; its cursor is advanced only on success
 * @want:	payload bytes in this segment
 * @out:	where to write the slices
 * @max:	capacity of @out
 * Return: slices written, or -ENOSPC if @max is too small
 */
static int gso_slice(struct gso_iter *it, uint32_t want, struct iovec *out,
		     unsigned int max)
{
	unsigned int i = it->cur_i, n = 0;
	size_t off = it->cur_off;

	while (want) {
		size_t take;

		/* gso_init() checked the iovecs hold pay_len bytes */
		if (i >= it->iovcnt)
			return -EINVAL;
		take = it->iov[i].iov_len - off;
		if (!take) {
			i++;
			off = 0;
			continue;
		}
		if (n == max)
			return -ENOSPC;
		if (take > want)
			take = want;
		out[n].iov_base = (uint8_t *)it->iov[i].iov_base + off;
		out[n].iov_len = take;
		n++;
		want -= (uint32_t)take;
		off += take;
	}
	it->cur_i = i;
	it->cur_off = off;
	return (int)n;
}

/**
 * gso_next() - produce the next segment
 * @it:		iterator from gso_init()
 * @hdrbuf:	caller's buffer for this segment's headers; it must stay
 *		untouched until the segment has been copied
 * @out:	segment as iovecs: out[0] is @hdrbuf, then payload slices of
 *		the source frame
 * @max:	capacity of @out; 1 + the source's iovcnt always suffices
 * @seg:	per-segment results (virtio-net header for the destination,
 *		length)
 *
 * Rebuilds for each segment: IPv4 total length, identification (+1 per
 * segment) and header checksum, or IPv6 payload length; TCP sequence
 * number, flags (CWR on the first segment only, FIN/PSH on the last
 * only) and urgent pointer, or UDP length; and the L4 checksum, in full
 * or as pseudo-header sum in partial mode.  IP and TCP options are copied
 * to every segment unchanged.
 *
 * Return: number of iovecs in @out (>= 1), 0 after the last segment,
 *	   -ENOSPC if @max is too small (the iterator does not advance)
 */
int gso_next(struct gso_iter *it, uint8_t hdrbuf[GSO_HDR_MAX],
	     struct iovec *out, unsigned int max, struct gso_seg *seg)
{
	const struct eth_hdrs *h = &it->h;
	uint32_t want, l4len, sum, hlen = h->pay_off;
	uint8_t *ip = hdrbuf + h->l3_off, *l4 = hdrbuf + h->l4_off;
	unsigned int csum_off;
	bool last;
	int n;

	if (it->seg >= it->segs)
		return 0;
	if (max < 1)
		return -ENOSPC;
	want = it->pay_len - it->pay_done;
	if (want > it->mss)
		want = it->mss;
	last = it->seg + 1 == it->segs;
	n = gso_slice(it, want, out + 1, max - 1);
	if (n < 0)
		return n;

	memcpy(hdrbuf, it->hdr, hlen);
	l4len = hlen - h->l4_off + want;
	if (h->ipv6) {
		eth_put16(ip + ETH_IPV6_OFF_PLEN, (uint16_t)(hlen -
			  h->l3_off - ETH_IPV6_HLEN + want));
		sum = csum_pseudo_ipv6(ip + ETH_IPV6_OFF_SADDR,
				       ip + ETH_IPV6_OFF_DADDR, h->l4_proto,
				       l4len, 0);
	} else {
		uint32_t ihl = (uint32_t)(h->l4_off - h->l3_off);
		uint16_t c;

		eth_put16(ip + ETH_IPV4_OFF_TOTLEN,
			  (uint16_t)(hlen - h->l3_off + want));
		eth_put16(ip + ETH_IPV4_OFF_ID,
			  (uint16_t)(it->ip_id + it->seg));
		memset(ip + ETH_IPV4_OFF_CSUM, 0, 2);
		c = csum_fold(csum_partial(ip, ihl, 0));
		memcpy(ip + ETH_IPV4_OFF_CSUM, &c, 2);
		sum = csum_pseudo_ipv4(ip + ETH_IPV4_OFF_SADDR,
				       ip + ETH_IPV4_OFF_DADDR, h->l4_proto,
				       l4len, 0);
	}
	if (h->l4_proto == IPPROTO_TCP) {
		gso_fix_tcp(it, l4, last);
		csum_off = ETH_TCP_OFF_CSUM;
	} else {
		eth_put16(l4 + ETH_UDP_OFF_LEN, (uint16_t)l4len);
		csum_off = ETH_UDP_OFF_CSUM;
	}

	memset(&seg->vnet, 0, sizeof(seg->vnet));
	seg->vnet.hdr_len = htole16((uint16_t)hlen);
	if (it->partial) {
		uint16_t c = csum_reduce(sum);

		memcpy(l4 + csum_off, &c, 2);
		seg->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		seg->vnet.csum_start = htole16(h->l4_off);
		seg->vnet.csum_offset = htole16((uint16_t)csum_off);
	} else {
		uint16_t c;

		memset(l4 + csum_off, 0, 2);
		sum = csum_partial(l4, hlen - h->l4_off, sum);
		/* L4 headers have even length: the payload starts even */
		sum = csum_iov(out + 1, (unsigned int)n, 0, want, sum);
		c = csum_fold(sum);
		if (!c && h->l4_proto == IPPROTO_UDP)
			c = 0xffff;
		memcpy(l4 + csum_off, &c, 2);
	}

	out[0].iov_base = hdrbuf;
	out[0].iov_len = hlen;
	seg->len = hlen + want;
	seg->payload = want;
	it->pay_done += want;
	it->seg++;
	return n + 1;
}

/**
 * gso_next_flat() - the next segment, copied into a flat buffer with its
 *		     checksum finished in the copy
 * @it:		iterator (gso_init()); in partial-checksum mode the copy
 *		keeps the pseudo-header sum and @seg says NEEDS_CSUM, as
 *		gso_next() would
 * @dst:	where the segment goes
 * @room:	bytes at @dst
 * @seg:	out: the segment's results, as gso_next() gives them
 *
 * For a destination that copies the segment anyway (a UDP GSO buffer, a
 * UMEM frame): the payload is summed while it is copied (csum_copy()),
 * so the source is read once instead of once to sum and once to copy.
 *
 * Return: the segment's length (> 0), 0 after the last segment, -ENOSPC
 *	   if @room is too small (the iterator does not advance), -EINVAL
 */
int gso_next_flat(struct gso_iter *it, uint8_t *dst, size_t room,
		  struct gso_seg *seg)
{
	struct iovec out[PKT_IOV_MAX + 1];
	uint32_t want, hlen = it->h.pay_off, sum;
	uint8_t hdr[GSO_HDR_MAX];
	bool finish = !it->partial;
	uint16_t c;
	int n;

	if (it->seg >= it->segs)
		return 0;
	want = it->pay_len - it->pay_done;
	if (want > it->mss)
		want = it->mss;
	if (room < hlen + want)
		return -ENOSPC;
	it->partial = true;
	n = gso_next(it, hdr, out, PKT_IOV_MAX + 1, seg);
	it->partial = !finish;
	if (n <= 0)
		return n ? n : -EINVAL;
	memcpy(dst, hdr, hlen);
	if (!finish) {
		iov_to_buf(out + 1, (unsigned int)n - 1, 0, dst + hlen,
			   seg->payload);
		return (int)seg->len;
	}
	/* The field holds the pseudo-header sum: the L4 header, then the
	 * payload (at an even offset: L4 headers have even length).
	 */
	sum = csum_partial(dst + it->h.l4_off, hlen - it->h.l4_off, 0);
	sum = csum_copy_iov(dst + hlen, out + 1, (unsigned int)n - 1,
			    seg->payload, sum);
	c = csum_fold(sum);
	if (!c && it->h.l4_proto == IPPROTO_UDP)
		c = 0xffff;
	memcpy(dst + le16toh(seg->vnet.csum_start) +
	       le16toh(seg->vnet.csum_offset), &c, 2);
	memset(&seg->vnet, 0, sizeof(seg->vnet));
	seg->vnet.hdr_len = htole16((uint16_t)hlen);
	return (int)seg->len;
}

/**
 * gso_emit() - a frame as a wire without offload metadata takes it
 * @pkt:	the frame (read, never written)
 * @emit:	called for each wire frame: the frame whole, or with its
 *		checksum completed (2 bytes patched in through the iovec),
 *		or each segment of it; @iov (@cnt pieces, @len bytes) is
 *		valid during the call only.  Returns 0, or non-zero to stop
 * @arg:	passed to @emit
 *
 * What the dgram and afxdp ports do with every frame they send (the
 * vxlan port batches its segments for UDP GSO itself): the decision is
 * gso_plan()'s for a destination that takes no offload.
 *
 * Return: 0; the first non-zero value @emit returned; or -EINVAL when the
 *	   frame's offload metadata cannot be honoured (or it has more
 *	   pieces than a struct pkt holds)
 */
int gso_emit(const struct pkt *pkt,
	     int (*emit)(void *arg, const struct iovec *iov,
			 unsigned int cnt, size_t len),
	     void *arg)
{
	struct iovec iov[PKT_IOV_MAX + 2];
	uint8_t hdr[GSO_HDR_MAX];
	struct gso_csum res;
	struct gso_iter it;
	struct gso_seg seg;
	int a, b, n, rc;

	if (pkt->iovcnt > PKT_IOV_MAX)
		return -EINVAL;
	if (!pkt->vnet.flags && pkt->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return emit(arg, pkt->iov, pkt->iovcnt, pkt->len);
	switch (gso_plan(pkt, pkt->src_feat, 0)) {
	case GSO_ACT_PASS:
		return emit(arg, pkt->iov, pkt->iovcnt, pkt->len);
	case GSO_ACT_CSUM:
		/* Up to the checksum, the checksum from here, the rest: the
		 * source is never written.
		 */
		if (gso_csum_fill(&pkt->vnet, pkt->iov, pkt->iovcnt, pkt->len,
				  &res))
			return -EINVAL;
		a = iov_slice(pkt->iov, pkt->iovcnt, 0, res.off, iov,
			      PKT_IOV_MAX);
		if (a < 0)
			return -EINVAL;
		iov[a].iov_base = &res.csum;
		iov[a].iov_len = sizeof(res.csum);
		b = iov_slice(pkt->iov, pkt->iovcnt, res.off + sizeof(res.csum),
			      pkt->len - res.off - sizeof(res.csum),
			      &iov[a + 1], PKT_IOV_MAX + 1 - (unsigned int)a);
		if (b < 0)
			return -EINVAL;
		return emit(arg, iov, (unsigned int)(a + 1 + b), pkt->len);
	case GSO_ACT_SEGMENT:
		if (gso_init(&it, pkt, false))
			return -EINVAL;
		while ((n = gso_next(&it, hdr, iov, PKT_IOV_MAX + 1,
				     &seg)) > 0) {
			rc = emit(arg, iov, (unsigned int)n, seg.len);
			if (rc)
				return rc;
		}
		return n < 0 ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}
