// SPDX-License-Identifier: GPL-2.0-or-later
/* ref.c - test_gso's independent reference: byte sums and frames
 *
 * Plain byte offsets and a 16-bit-at-a-time checksum, never the library's
 * helpers; frames built from a struct spec and scattered over random
 * iovecs.
 */
#include <stdlib.h>
#include <string.h>

#include "test_gso.h"

/* ---- the independent reference: bytes, offsets, 16-bit sums ---- */

uint32_t ref_add(uint32_t s, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

/* Pseudo header sum (host order, unfolded) written out byte by byte. */
uint32_t ref_pseudo(const uint8_t *l3, bool v6, uint8_t proto,
		    uint32_t l4len)
{
	uint8_t ph[40];

	memset(ph, 0, sizeof(ph));
	if (v6) {
		memcpy(ph, l3 + 8, 32);
		wr32(ph + 32, l4len);
		ph[39] = proto;
		return ref_add(0, ph, 40);
	}
	memcpy(ph, l3 + 12, 8);
	ph[9] = proto;
	wr16(ph + 10, l4len);
	return ref_add(0, ph, 12);
}

/* ---- frame construction ---- */

static void rnd(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rand();
}

/* Split @f's bytes over up to @max random iovecs (headers split too). */
static void scatter(struct frame *f, unsigned int max)
{
	unsigned int n = 0;
	size_t off = 0;

	while (off < f->len || n == 0) {
		size_t s;

		if (n == max - 1 || n == PKT_IOV_MAX - 1)
			s = f->len - off;
		else if (rand() % 3 == 0)
			s = (size_t)rand() % 8;	/* tiny, maybe empty */
		else
			s = (size_t)rand() % (f->len / 4 + 2);
		if (s > f->len - off)
			s = f->len - off;
		f->pkt.iov[n].iov_base = f->buf + off;
		f->pkt.iov[n].iov_len = s;
		off += s;
		n++;
	}
	f->pkt.iovcnt = n;
	f->pkt.len = (uint32_t)f->len;
}

void build(struct frame *f, const struct spec *s)
{
	uint8_t *b = f->buf, proto = s->udp ? 17 : 6;
	size_t o = 12, l4hl;
	uint32_t sum;

	memset(&f->pkt, 0, sizeof(f->pkt));
	rnd(b, 12);		/* MACs: unicast, locally administered */
	b[0] = (uint8_t)((b[0] & 0xfe) | 0x02);
	b[6] = (uint8_t)((b[6] & 0xfe) | 0x02);
	if (s->vlan) {
		wr16(b + o, 0x8100);
		wr16(b + o + 2, (uint32_t)rand() & 0xffff);
		o += 4;
	}
	wr16(b + o, s->v6 ? 0x86dd : 0x0800);
	o += 2;
	f->l3 = o;
	if (s->v6) {
		wr32(b + o, 0x60000000u | ((uint32_t)rand() & 0x0fffffff));
		b[o + 6] = proto;
		b[o + 7] = 64;
		memset(b + o + 8, 0, 32);
		wr32(b + o + 8, 0x20010002);	/* 2001:2::1 -> 2001:2::2 */
		b[o + 23] = 1;
		wr32(b + o + 24, 0x20010002);
		b[o + 39] = 2;
		o += 40;
	} else {
		size_t ihl = 20 + s->ipopt;

		b[o] = (uint8_t)(0x40 | ihl / 4);
		b[o + 1] = (uint8_t)rand();	/* DSCP/ECN */
		wr16(b + o + 4, (uint32_t)rand());	/* id */
		wr16(b + o + 6, 0x4000);	/* DF */
		b[o + 8] = 64;
		b[o + 9] = proto;
		rnd(b + o + 10, 2);		/* stale checksum: ignored */
		wr32(b + o + 12, 0xc6120001);	/* 198.18.0.1 */
		wr32(b + o + 16, 0xc6120002);	/* 198.18.0.2 */
		memset(b + o + 20, 1, s->ipopt);	/* NOPs ... */
		if (s->ipopt >= 4) {		/* ... and a router alert */
			b[o + 20] = 0x94;
			b[o + 21] = 4;
			b[o + 22] = 0;
			b[o + 23] = 0;
		}
		o += ihl;
	}
	f->l4 = o;
	if (s->udp) {
		l4hl = 8;
		rnd(b + o, 4);
		wr16(b + o + 4, 0);	/* GSO frames carry junk here */
	} else {
		l4hl = 20 + s->tcpopt;
		rnd(b + o, 12);		/* ports, seq, ack */
		b[o + 12] = (uint8_t)(l4hl / 4 << 4);
		b[o + 13] = s->tcp_flags;
		rnd(b + o + 14, 2);	/* window */
		wr16(b + o + 18, s->urg);
		memset(b + o + 20, 1, s->tcpopt);	/* NOPs */
		if (s->tcpopt >= 12) {		/* NOP NOP timestamps */
			b[o + 22] = 8;
			b[o + 23] = 10;
			rnd(b + o + 24, 8);
		}
		if (s->tcpopt >= 24) {		/* NOP NOP SACK, 1 block */
			b[o + 34] = 5;
			b[o + 35] = 10;
			rnd(b + o + 36, 8);
		}
	}
	f->pay = o + l4hl;
	f->len = f->pay + s->pay_len;
	rnd(b + f->pay, s->pay_len);
	if (!s->v6)
		wr16(b + f->l3 + 2, f->len - f->l3 > 0xffff ?
		     0 : (uint32_t)(f->len - f->l3));
	else
		wr16(b + f->l3 + 4, (uint32_t)(f->len - f->l4) & 0xffff);

	/* What a Linux driver stores: the pseudo-header sum, not inverted
	 * (memory order).  The library must not depend on it.
	 */
	sum = ref_pseudo(b + f->l3, s->v6, proto,
			 (uint32_t)(f->len - f->l4) & 0xffff);
	wr16(b + o + (s->udp ? 6 : 16), ref_fold(sum));

	f->pkt.vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	f->pkt.vnet.gso_type = s->udp ? VIRTIO_NET_HDR_GSO_UDP_L4 :
			       s->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
				       VIRTIO_NET_HDR_GSO_TCPV4;
	if (!s->udp && (s->tcp_flags & 0x80))
		f->pkt.vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	f->pkt.vnet.hdr_len = (uint16_t)f->pay;
	f->pkt.vnet.gso_size = s->mss;
	f->pkt.vnet.csum_start = (uint16_t)f->l4;
	f->pkt.vnet.csum_offset = s->udp ? 6 : 16;
	memcpy(&f->pkt.eth, b, sizeof(f->pkt.eth));
	scatter(f, 1 + (unsigned int)rand() % PKT_IOV_MAX);
}

void random_spec(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->v6 = rand() % 2;
	s->udp = rand() % 3 == 0;
	s->vlan = rand() % 3 == 0;
	s->partial = rand() % 2;
	s->ipopt = s->v6 ? 0 : (unsigned int)(rand() % 11) * 4;
	s->tcpopt = s->udp ? 0 : (unsigned int)(rand() % 11) * 4;
	/* ACK always; FIN/PSH/CWR/ECE/URG at random */
	s->tcp_flags = 0x10 | (uint8_t)(rand() & (0x01 | 0x08 | 0x20 |
						   0x40 | 0x80));
	s->mss = rand() % 8 == 0 ? (uint16_t)(1 + rand() % 64) :
		 (uint16_t)(1 + rand() % 9000);
	s->pay_len = s->mss < 64 ? (uint32_t)rand() % 3000 :
		     (uint32_t)rand() % 64000;
	if (rand() % 10 == 0)
		s->pay_len = (uint32_t)s->mss * (uint32_t)(rand() % 8);
	s->urg = (uint16_t)(rand() % (s->pay_len + 100));
}
