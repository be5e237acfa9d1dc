// SPDX-License-Identifier: GPL-2.0-or-later
/* frame.c - offload_itest's own frame arithmetic: parse, checksum, build
 *
 * Written from the RFCs, naively and apart from vhostd's src/net: a
 * checker that shared the daemon's code would share its mistakes.
 */
#include <string.h>

#include "offload_itest.h"

/* ---- independent checksum and header arithmetic ------------------------- */

/**
 * ot_get16() - big-endian 16-bit load
 * @p:		bytes
 * Return: value
 */
uint16_t ot_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * ot_get32() - big-endian 32-bit load
 * @p:		bytes
 * Return: value
 */
uint32_t ot_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/**
 * ot_put16() - big-endian 16-bit store
 * @p:		bytes
 * @v:		value
 */
void ot_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * ot_put32() - big-endian 32-bit store
 * @p:		bytes
 * @v:		value
 */
void ot_put32(uint8_t *p, uint32_t v)
{
	ot_put16(p, (uint16_t)(v >> 16));
	ot_put16(p + 2, (uint16_t)v);
}

/**
 * ot_sum() - add big-endian 16-bit words (RFC 1071), the naive way
 * @p:		bytes, starting at an even offset of the summed range
 * @len:	count; an odd last byte is padded with zero
 * @sum:	sum so far
 * Return: new unfolded sum
 */
uint64_t ot_sum(const uint8_t *p, size_t len, uint64_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += ot_get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/**
 * ot_fold() - fold a ones' complement sum to 16 bits
 * @sum:	unfolded sum
 * Return: folded sum (not inverted)
 */
uint16_t ot_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * ot_pseudo() - pseudo-header sum of a frame's L4 segment
 * @f:		frame
 * @p:		its layout
 * @l4len:	L4 header + payload bytes
 * Return: unfolded sum
 */
uint64_t ot_pseudo(const uint8_t *f, const struct ot_parsed *p,
		   uint32_t l4len)
{
	uint64_t sum;

	if (p->v6) {
		sum = ot_sum(f + p->l3 + 8, 32, 0);
		return sum + (l4len >> 16) + (l4len & 0xffff) + p->proto;
	}
	sum = ot_sum(f + p->l3 + 12, 8, 0);
	return sum + p->proto + l4len;
}

/**
 * ot_csum_off() - offset of the L4 checksum field in its header
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * Return: 16 or 6
 */
uint16_t ot_csum_off(uint8_t proto)
{
	return proto == OT_PROTO_TCP ? 16 : 6;
}

/**
 * ot_l4_full_ok() - is the L4 checksum complete and correct
 * @f:		frame
 * @len:	its length
 * @p:		its layout
 * Return: true if so (a UDP checksum of 0, "none", is refused too)
 */
static bool ot_l4_full_ok(const uint8_t *f, uint32_t len,
			  const struct ot_parsed *p)
{
	uint32_t l4len = len - p->l4;
	uint16_t s = ot_fold(ot_pseudo(f, p, l4len) +
			     ot_sum(f + p->l4, l4len, 0));

	if (p->proto == OT_PROTO_UDP &&
	    !ot_get16(f + p->l4 + ot_csum_off(p->proto)))
		return ot_err("UDP checksum 0 (none)");
	if (s != 0xffff)
		return ot_err("L4 checksum wrong (sum 0x%04x, field 0x%04x)", s,
			      ot_get16(f + p->l4 + ot_csum_off(p->proto)));
	return true;
}

/**
 * ot_parse() - parse and validate Ethernet/VLAN, IPv4/IPv6, TCP/UDP
 * @f:		frame
 * @len:	its length
 * @p:		out: layout
 * Return: true if well formed: IPv4 header checksum right, IP lengths
 *	   equal to the frame's, L4 header inside the frame
 */
bool ot_parse(const uint8_t *f, uint32_t len, struct ot_parsed *p)
{
	uint32_t off = 12;
	uint16_t et;

	memset(p, 0, sizeof(*p));
	if (len < 14)
		return ot_err("runt %u", len);
	et = ot_get16(f + off);
	off += 2;
	if (et == OT_ETH_VLAN) {
		if (len < 18)
			return ot_err("runt VLAN frame");
		et = ot_get16(f + off + 2);
		off += 4;
	}
	p->l3 = off;
	if (et == OT_ETH_IP) {
		uint32_t ihl;

		if (len < off + 20 || f[off] >> 4 != 4)
			return ot_err("bad IPv4 header");
		ihl = (f[off] & 15u) * 4;
		if (ihl < 20 || len < off + ihl)
			return ot_err("bad IPv4 ihl");
		if (ot_fold(ot_sum(f + off, ihl, 0)) != 0xffff)
			return ot_err("IPv4 header checksum wrong");
		if (ot_get16(f + off + 2) != len - off)
			return ot_err("IPv4 total length %u, frame has %u",
				      ot_get16(f + off + 2), len - off);
		if (ot_get16(f + off + 6) & 0x3fff)
			return ot_err("IPv4 fragment");
		p->proto = f[off + 9];
		p->l4 = off + ihl;
	} else if (et == OT_ETH_IP6) {
		if (len < off + 40 || f[off] >> 4 != 6)
			return ot_err("bad IPv6 header");
		if (ot_get16(f + off + 4) != len - off - 40)
			return ot_err("IPv6 payload length %u, frame has %u",
				      ot_get16(f + off + 4), len - off - 40);
		p->v6 = true;
		p->proto = f[off + 6];
		p->l4 = off + 40;
	} else {
		return ot_err("ethertype 0x%04x", et);
	}
	if (p->proto == OT_PROTO_TCP) {
		uint32_t doff;

		if (len < p->l4 + 20)
			return ot_err("short TCP header");
		doff = (uint32_t)(f[p->l4 + 12] >> 4) * 4;
		if (doff < 20 || len < p->l4 + doff)
			return ot_err("bad TCP doff");
		p->pay = p->l4 + doff;
	} else if (p->proto == OT_PROTO_UDP) {
		if (len < p->l4 + 8)
			return ot_err("short UDP header");
		if (ot_get16(f + p->l4 + 4) != len - p->l4)
			return ot_err("UDP length %u, datagram has %u",
				      ot_get16(f + p->l4 + 4), len - p->l4);
		p->pay = p->l4 + 8;
	} else {
		return ot_err("IP protocol %u", p->proto);
	}
	p->paylen = len - p->pay;
	return true;
}

/**
 * ot_check_l4() - the L4 checksum as the receiver must find it
 * @f:		frame
 * @len:	its length
 * @p:		its layout
 * @hdr:	virtio-net header it came with
 * @csum_ok:	the receiver negotiated GUEST_CSUM
 *
 * NEEDS_CSUM is completed on a copy as virtio says: ones' complement sum
 * from csum_start to the end, stored at csum_start + csum_offset; the
 * result must then be a correct checksum.
 *
 * Return: true if right
 */
bool ot_check_l4(const uint8_t *f, uint32_t len,
		 const struct ot_parsed *p,
		 const struct virtio_net_hdr_v1 *hdr, bool csum_ok)
{
	uint16_t c;

	if (!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return ot_l4_full_ok(f, len, p);
	if (!csum_ok)
		return ot_err("NEEDS_CSUM to a receiver without GUEST_CSUM");
	if (hdr->csum_start != p->l4 ||
	    hdr->csum_offset != ot_csum_off(p->proto))
		return ot_err("csum_start/offset %u/%u, L4 at %u (+%u)",
			      hdr->csum_start, hdr->csum_offset, p->l4,
			      ot_csum_off(p->proto));
	memcpy(ot_scratch, f, len);
	c = (uint16_t)~ot_fold(ot_sum(ot_scratch + hdr->csum_start,
				      len - hdr->csum_start, 0));
	if (p->proto == OT_PROTO_UDP && !c)
		c = 0xffff;
	ot_put16(ot_scratch + hdr->csum_start + hdr->csum_offset, c);
	if (!ot_l4_full_ok(ot_scratch, len, p)) {
		ot_why[0] = '\0';
		return ot_err("partial checksum does not complete correctly");
	}
	return true;
}

/* ---- building frames ------------------------------------------------------ */

static const uint8_t ot_ip4_src[4] = { 198, 18, 0, 3 };
const uint8_t ot_ip4_dst[4] = { 198, 18, 0, 2 };
static const uint8_t ot_ip6_src[16] = { 0x20, 0x01, 0, 2, [15] = 3 };
const uint8_t ot_ip6_dst[16] = { 0x20, 0x01, 0, 2, [15] = 2 };

/**
 * ot_build() - build @s into @f, as a Linux guest would send it
 * @f:		out
 * @s:		spec
 * @dst:	destination MAC
 * @src:	source MAC
 * @ip_src:	source address (4 or 16 bytes), NULL for the default
 * @ip_dst:	destination address, NULL for the default
 * @sport:	L4 source port
 * @dport:	L4 destination port
 * @seed:	payload seed
 *
 * Offload frames carry NEEDS_CSUM with the pseudo-header sum (over the
 * real L4 length) in the checksum field; others a full checksum.  IP
 * lengths and the IPv4 header checksum are always right.
 */
void ot_build(struct ot_frame *f, const struct ot_spec *s,
	      const uint8_t dst[6], const uint8_t src[6],
	      const uint8_t *ip_src, const uint8_t *ip_dst,
	      uint16_t sport, uint16_t dport, uint32_t seed)
{
	uint8_t *b = f->buf;
	uint32_t off = 12, l4hdr, l4len, i, x = seed * 2654435761u + 1;
	struct ot_parsed *p = &f->p;
	uint16_t c;

	f->len = 0;
	memset(f->buf, 0, 256);		/* every header byte starts zero */
	memset(&f->hdr, 0, sizeof(f->hdr));
	memset(&f->p, 0, sizeof(f->p));
	f->s = *s;
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	if (s->vlan) {
		ot_put16(b + off, OT_ETH_VLAN);
		ot_put16(b + off + 2, 0x2064);	/* PCP 1, VID 100 */
		off += 4;
	}
	ot_put16(b + off, s->v6 ? OT_ETH_IP6 : OT_ETH_IP);
	off += 2;
	p->l3 = off;
	p->proto = s->proto;
	p->v6 = s->v6;
	l4hdr = s->proto == OT_PROTO_TCP ? 20u + s->tcpopt : 8u;
	l4len = l4hdr + s->payload;
	if (s->v6) {
		ot_put32(b + off, 0x60000000u | 0x2u << 20 | 0x12345);
		ot_put16(b + off + 4, (uint16_t)l4len);
		b[off + 6] = s->proto;
		b[off + 7] = 64;
		memcpy(b + off + 8, ip_src ? ip_src : ot_ip6_src, 16);
		memcpy(b + off + 24, ip_dst ? ip_dst : ot_ip6_dst, 16);
		p->l4 = off + 40;
	} else {
		uint32_t ihl = 20u + s->ipopt;

		b[off] = (uint8_t)(0x40 | ihl / 4);
		b[off + 1] = 0x02;	/* ECT(0) */
		ot_put16(b + off + 2, (uint16_t)(ihl + l4len));
		ot_put16(b + off + 4, OT_IP_ID);
		ot_put16(b + off + 6, 0x4000);	/* DF */
		b[off + 8] = 64;
		b[off + 9] = s->proto;
		memcpy(b + off + 12, ip_src ? ip_src : ot_ip4_src, 4);
		memcpy(b + off + 16, ip_dst ? ip_dst : ot_ip4_dst, 4);
		if (s->ipopt) {
			/* Router Alert, then NOPs, EOL last. */
			static const uint8_t ra[4] = { 0x94, 4, 0, 0 };

			memcpy(b + off + 20, ra, 4);
			memset(b + off + 24, 1, s->ipopt - 4u);
			b[off + ihl - 1] = 0;
		}
		ot_put16(b + off + 10, (uint16_t)~ot_fold(ot_sum(b + off, ihl,
								 0)));
		p->l4 = off + ihl;
	}
	off = p->l4;
	ot_put16(b + off, sport);
	ot_put16(b + off + 2, dport);
	if (s->proto == OT_PROTO_TCP) {
		ot_put32(b + off + 4, OT_TCP_SEQ);
		ot_put32(b + off + 8, OT_TCP_ACK);
		b[off + 12] = (uint8_t)((l4hdr / 4) << 4);
		b[off + 13] = s->flags;
		ot_put16(b + off + 14, 0x7210);
		if (s->tcpopt) {
			/* NOP NOP timestamps, then NOP NOP SACK blocks. */
			uint8_t *o = b + off + 20;

			memset(o, 1, s->tcpopt);
			o[2] = 8;
			o[3] = 10;
			ot_put32(o + 4, 0xa1b2c3d4);
			ot_put32(o + 8, 0x01020304);
			if (s->tcpopt >= 20) {
				o[14] = 5;
				o[15] = (uint8_t)(2 + (s->tcpopt - 16) / 8 * 8);
				for (i = 16; i < s->tcpopt; i++)
					o[i] = (uint8_t)(0x30 + i);
			}
		}
	} else {
		ot_put16(b + off + 4, (uint16_t)l4len);
	}
	p->pay = p->l4 + l4hdr;
	p->paylen = s->payload;
	for (i = 0; i < s->payload; i++) {
		x = x * 1103515245u + 12345u;
		b[p->pay + i] = (uint8_t)(x >> 16);
	}
	f->len = p->pay + s->payload;

	c = ot_fold(ot_pseudo(b, p, l4len));
	if (s->csum || s->gso_size) {
		/* What Linux puts there for CHECKSUM_PARTIAL. */
		ot_put16(b + off + ot_csum_off(s->proto), c);
		f->hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		f->hdr.csum_start = (uint16_t)off;
		f->hdr.csum_offset = ot_csum_off(s->proto);
	} else {
		c = (uint16_t)~ot_fold(ot_pseudo(b, p, l4len) +
				      ot_sum(b + off, l4len, 0));
		if (s->proto == OT_PROTO_UDP && !c)
			c = 0xffff;
		ot_put16(b + off + ot_csum_off(s->proto), c);
	}
	if (s->gso_size) {
		f->hdr.gso_size = s->gso_size;
		f->hdr.gso_type = s->proto == OT_PROTO_UDP ? VDRV_GSO_UDP_L4 :
				  s->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
					  VIRTIO_NET_HDR_GSO_TCPV4;
		if (s->ecn_bit)
			f->hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		f->hdr.hdr_len = (uint16_t)p->pay;
	}
}
