// SPDX-License-Identifier: GPL-2.0-or-later
/* gro.c - TCP segments back into one frame; see gro.h for the rules */
#include <endian.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/virtio_net.h>

#include "csum.h"
#include "gro.h"

/* TCP flags a segment may carry and still join (PSH closes the frame). */
#define GRO_TCP_OK	(ETH_TCP_ACK | ETH_TCP_PSH)

/**
 * gro_parse() - a frame's headers, if it is a joinable TCP segment
 * @f:		frame
 * @len:	its length
 * @h:		out: where its headers are
 * @pay:	out: its payload bytes (> 0)
 * Return: true if it is one (see gro.h): IPv4 without options or IPv6,
 *	   no tag, TCP with ACK and maybe PSH, lengths exact
 */
static bool gro_parse(const uint8_t *f, size_t len, struct eth_hdrs *h,
		      uint32_t *pay)
{
	const uint8_t *ip, *th;
	size_t iplen;

	if (len > ETH_HLEN + 65535 || eth_parse(f, len, h) || h->vlan ||
	    h->l4_proto != IPPROTO_TCP || h->pay_off > GRO_HDR_MAX ||
	    len <= h->pay_off)
		return false;
	ip = f + h->l3_off;
	th = f + h->l4_off;
	if (h->ipv6) {
		iplen = ETH_IPV6_HLEN + eth_get16(ip + ETH_IPV6_OFF_PLEN);
	} else {
		if (ip[0] != 0x45)	/* no options */
			return false;
		iplen = eth_get16(ip + ETH_IPV4_OFF_TOTLEN);
	}
	if (iplen != len - h->l3_off)	/* no padding, no truncation */
		return false;
	if ((th[ETH_TCP_OFF_FLAGS] & ~GRO_TCP_OK) ||
	    !(th[ETH_TCP_OFF_FLAGS] & ETH_TCP_ACK))
		return false;
	*pay = (uint32_t)(len - h->pay_off);
	return true;
}

/**
 * gro_csum_ok() - whether a segment's IPv4 header and TCP checksums hold
 * @f:		frame
 * @len:	its length
 * @h:		its headers (gro_parse())
 * @partial:	its TCP checksum was left to the receiver (gro_partial()):
 *		only the IPv4 header's is checked
 * Return: true if they do
 */
static bool gro_csum_ok(const uint8_t *f, size_t len,
			const struct eth_hdrs *h, bool partial)
{
	const uint8_t *ip = f + h->l3_off;
	uint32_t l4len = (uint32_t)(len - h->l4_off), sum;

	if (h->ipv6) {
		if (partial)
			return true;
		sum = csum_pseudo_ipv6(ip + ETH_IPV6_OFF_SADDR,
				       ip + ETH_IPV6_OFF_DADDR, IPPROTO_TCP,
				       l4len, 0);
	} else {
		if (csum_fold(csum_partial(ip, ETH_IPV4_HLEN_MIN, 0)))
			return false;
		if (partial)
			return true;
		sum = csum_pseudo_ipv4(ip + ETH_IPV4_OFF_SADDR,
				       ip + ETH_IPV4_OFF_DADDR, IPPROTO_TCP,
				       l4len, 0);
	}
	return !csum_fold(csum_partial(f + h->l4_off, l4len, sum));
}

/**
 * gro_partial() - whether a segment's TCP checksum was left to the receiver
 * @vnet:	the metadata its carrier gave it (NULL: none)
 * @h:		its headers (gro_parse())
 * Return: true if @vnet says NEEDS_CSUM exactly at its TCP checksum
 */
static bool gro_partial(const struct virtio_net_hdr_v1 *vnet,
			const struct eth_hdrs *h)
{
	return vnet && (vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	       le16toh(vnet->csum_start) == h->l4_off &&
	       le16toh(vnet->csum_offset) == ETH_TCP_OFF_CSUM;
}

/* gro_whole() - @vnet says the frame is a GSO frame already (a carrier
 * kept it whole): it is no segment, and a segment joins no such frame
 */
static bool gro_whole(const struct virtio_net_hdr_v1 *vnet)
{
	return vnet && vnet->gso_type != VIRTIO_NET_HDR_GSO_NONE;
}

/**
 * gro_start() - a frame that later segments may join
 * @g:		state, overwritten
 * @f:		the frame (whole, in memory nobody else writes)
 * @len:	its length
 * @vnet:	its carrier's metadata, or NULL (see gro_join())
 * Return: true if it is a TCP segment others may join; false if it must
 *	   pass alone (then @g is not open)
 */
bool gro_start(struct gro_flow *g, const uint8_t *f, size_t len,
	       const struct virtio_net_hdr_v1 *vnet)
{
	const uint8_t *th;

	g->open = false;
	if (gro_whole(vnet) || !gro_parse(f, len, &g->h, &g->mss))
		return false;
	th = f + g->h.l4_off;
	g->hlen = g->h.pay_off;
	memcpy(g->hdr, f, g->hlen);
	g->pay = g->mss;
	g->segs = 1;
	g->seq_next = eth_get32(th + ETH_TCP_OFF_SEQ) + g->mss;
	g->ip_id = g->h.ipv6 ? 0 :
		   eth_get16(f + g->h.l3_off + ETH_IPV4_OFF_ID);
	g->id_step = -1;
	g->psh = th[ETH_TCP_OFF_FLAGS] & ETH_TCP_PSH;
	g->open = !g->psh;
	g->checked = false;
	g->first_partial = gro_partial(vnet, &g->h);
	g->first = f;
	g->first_len = len;
	return g->open;
}

/**
 * gro_same() - whether segment @f belongs to @g's frame, next in line
 * @g:		state
 * @f:		the segment
 * @h:		its headers (gro_parse())
 * @pay:	its payload bytes
 * Return: true if so
 */
static bool gro_same(const struct gro_flow *g, const uint8_t *f,
		     const struct eth_hdrs *h, uint32_t pay)
{
	const uint8_t *ip = f + h->l3_off, *th = f + h->l4_off;
	const uint8_t *gip = g->hdr + g->h.l3_off, *gth = g->hdr + g->h.l4_off;
	uint32_t thl = h->pay_off - h->l4_off;

	if (h->ipv6 != g->h.ipv6 || h->pay_off != g->hlen || pay > g->mss ||
	    memcmp(f, g->hdr, ETH_HLEN))
		return false;
	if (h->ipv6) {
		/* version, traffic class, flow label; next, hop limit;
		 * both addresses
		 */
		if (memcmp(ip, gip, 4) || memcmp(ip + 6, gip + 6, 34))
			return false;
	} else {
		uint16_t id = eth_get16(ip + ETH_IPV4_OFF_ID);
		uint16_t want = (uint16_t)(g->ip_id + g->segs);

		/* TOS; flags and offset (DF only); TTL, protocol; both
		 * addresses
		 */
		if (ip[1] != gip[1] || memcmp(ip + 6, gip + 6, 4) ||
		    memcmp(ip + 12, gip + 12, 8))
			return false;
		if (g->id_step == 1 ? id != want :
		    g->id_step == 0 ? id != g->ip_id :
		    id != g->ip_id && id != (uint16_t)(g->ip_id + 1))
			return false;
	}
	/* ports; sequence where the frame ends; ack, data offset; window,
	 * urgent pointer, options
	 */
	return !memcmp(th, gth, 4) &&
	       eth_get32(th + ETH_TCP_OFF_SEQ) == g->seq_next &&
	       !memcmp(th + 8, gth + 8, 5) && !memcmp(th + 14, gth + 14, 2) &&
	       !memcmp(th + 18, gth + 18, thl - 18) &&
	       g->hlen - ETH_HLEN + g->pay + pay <= 65535;
}

/**
 * gro_join() - segment @f joins @g's frame, described in @pkt
 * @g:		state, open (gro_start() said so)
 * @pkt:	the frame so far: the first segment as gro_start() saw it,
 *		or what earlier joins made of it
 * @f:		the next frame
 * @len:	its length
 * @vnet:	its carrier's metadata, or NULL: NEEDS_CSUM at its TCP
 *		checksum says the sender left the checksum to the receiver
 *		and the carrier vouches for the bytes (VXLAN's remote
 *		checksum offload, under a verified outer UDP checksum), so
 *		only its IPv4 header checksum is verified
 * Return: true if it joined (its payload is in @pkt now; call
 *	   gro_finish() before @pkt goes anywhere), false if it must go on
 *	   its own (@g is then closed: no later frame joins either)
 */
bool gro_join(struct gro_flow *g, struct pkt *pkt, const uint8_t *f,
	      size_t len, const struct virtio_net_hdr_v1 *vnet)
{
	struct eth_hdrs h;
	uint32_t pay;

	if (!g->open)
		return false;
	if (g->segs + 1 >= PKT_IOV_MAX || gro_whole(vnet) ||
	    !gro_parse(f, len, &h, &pay) ||
	    !gro_same(g, f, &h, pay))
		goto closed;
	if (!g->checked) {
		if (!gro_csum_ok(g->first, g->first_len, &g->h,
				 g->first_partial))
			goto closed;
		g->checked = true;
	}
	if (!gro_csum_ok(f, len, &h, gro_partial(vnet, &h)))
		goto closed;

	if (g->segs == 1) {
		pkt->iov[0].iov_base = g->hdr;	/* gro_finish() moves it */
		pkt->iov[0].iov_len = g->hlen;
		pkt->iov[1].iov_base = (void *)(uintptr_t)(g->first + g->hlen);
		pkt->iov[1].iov_len = g->mss;
		pkt->iovcnt = 2;
		if (!h.ipv6)
			g->id_step = eth_get16(f + h.l3_off + ETH_IPV4_OFF_ID) !=
				     g->ip_id;
	}
	pkt->iov[pkt->iovcnt].iov_base = (void *)(uintptr_t)(f + g->hlen);
	pkt->iov[pkt->iovcnt].iov_len = pay;
	pkt->iovcnt++;
	g->pay += pay;
	g->segs++;
	g->seq_next += pay;
	if (f[h.l4_off + ETH_TCP_OFF_FLAGS] & ETH_TCP_PSH)
		g->psh = true;
	if (pay < g->mss || g->psh)
		g->open = false;
	return true;

closed:
	g->open = false;
	return false;
}

/**
 * gro_finish() - the joined frame's headers and offload metadata
 * @g:		state (closed afterwards; it may start another frame)
 * @pkt:	the frame gro_join() built; untouched if nothing joined
 * @hdr:	GRO_HDR_MAX bytes that hold the frame's headers from now on,
 *		as long as @pkt is used
 */
void gro_finish(struct gro_flow *g, struct pkt *pkt, uint8_t *hdr)
{
	uint8_t *ip = hdr + g->h.l3_off, *th = hdr + g->h.l4_off;
	uint32_t l4len = g->hlen - g->h.l4_off + g->pay, sum;
	uint16_t c;

	g->open = false;
	if (g->segs < 2)
		return;
	memcpy(hdr, g->hdr, g->hlen);
	pkt->iov[0].iov_base = hdr;
	if (g->h.ipv6) {
		eth_put16(ip + ETH_IPV6_OFF_PLEN, (uint16_t)l4len);
		sum = csum_pseudo_ipv6(ip + ETH_IPV6_OFF_SADDR,
				       ip + ETH_IPV6_OFF_DADDR, IPPROTO_TCP,
				       l4len, 0);
	} else {
		eth_put16(ip + ETH_IPV4_OFF_TOTLEN,
			  (uint16_t)(g->hlen - g->h.l3_off + g->pay));
		memset(ip + ETH_IPV4_OFF_CSUM, 0, 2);
		c = csum_fold(csum_partial(ip, ETH_IPV4_HLEN_MIN, 0));
		memcpy(ip + ETH_IPV4_OFF_CSUM, &c, 2);
		sum = csum_pseudo_ipv4(ip + ETH_IPV4_OFF_SADDR,
				       ip + ETH_IPV4_OFF_DADDR, IPPROTO_TCP,
				       l4len, 0);
	}
	if (g->psh)
		th[ETH_TCP_OFF_FLAGS] |= ETH_TCP_PSH;
	c = csum_reduce(sum);		/* the pseudo header's: NEEDS_CSUM */
	memcpy(th + ETH_TCP_OFF_CSUM, &c, 2);

	memset(&pkt->vnet, 0, sizeof(pkt->vnet));
	pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt->vnet.gso_type = g->h.ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
			     VIRTIO_NET_HDR_GSO_TCPV4;
	pkt->vnet.hdr_len = htole16((uint16_t)g->hlen);
	pkt->vnet.gso_size = htole16((uint16_t)g->mss);
	pkt->vnet.csum_start = htole16(g->h.l4_off);
	pkt->vnet.csum_offset = htole16(ETH_TCP_OFF_CSUM);
	pkt->src_feat = 1ULL << VIRTIO_NET_F_CSUM |
			1ULL << VIRTIO_NET_F_HOST_TSO4 |
			1ULL << VIRTIO_NET_F_HOST_TSO6;
	pkt->len = g->hlen + g->pay;
}
