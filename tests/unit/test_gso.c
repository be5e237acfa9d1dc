// SPDX-License-Identifier: GPL-2.0-or-later
/* test_gso.c - software segmentation and checksum completion, checked by
 * an independent naive parser
 *
 * Random GSO frames (IPv4/IPv6 x TCP/UDP, IPv4 and TCP options, VLAN tag,
 * random payload, random scatter over iovecs) are segmented; every segment
 * is flattened and re-parsed here with plain byte offsets and a 16-bit
 * at-a-time checksum, never with the library's helpers: header checksums,
 * L4 checksums (full, or partial then completed the way a receiver
 * would), lengths, TCP sequence continuity and flag placement, IPv4 id
 * steps, payload concatenation and segment sizes.  Hostile metadata and
 * mutated frames must give -EINVAL (or at least stay inside the frame).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <cmocka.h>

#include "../../src/net/gso.h"

#define FRAME_MAX	(70 * 1024)
#define T_TCP_FLAGS	13

/* ---- the independent reference: bytes, offsets, 16-bit sums ---- */

static uint32_t ref_add(uint32_t s, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void wr16(uint8_t *p, uint32_t v)
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
static uint32_t ref_pseudo(const uint8_t *l3, bool v6, uint8_t proto,
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

struct spec {
	bool v6, udp, vlan, partial;
	unsigned int ipopt, tcpopt;	/* option bytes, multiples of 4 */
	uint8_t tcp_flags;
	uint16_t urg;
	uint32_t pay_len;
	uint16_t mss;
};

struct frame {
	uint8_t buf[FRAME_MAX];
	size_t len, l3, l4, pay;
	struct pkt pkt;
};

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

static void build(struct frame *f, const struct spec *s)
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

static void random_spec(struct spec *s)
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

/* ---- segmentation and verification ---- */

static void check_segment(const struct frame *f, const struct spec *s,
			  const uint8_t *g, size_t glen,
			  const struct gso_seg *seg, uint32_t k, bool last,
			  uint32_t done, uint32_t plen)
{
	const uint8_t *o = f->buf;
	size_t l3 = f->l3, l4 = f->l4, pay = f->pay;
	uint8_t proto = s->udp ? 17 : 6, want;
	uint8_t tmp[FRAME_MAX];
	size_t coff = s->udp ? 6 : 16;
	uint32_t l4len = (uint32_t)(glen - l4);

	assert_int_equal(glen, pay + plen);
	assert_int_equal(seg->len, glen);
	assert_int_equal(seg->payload, plen);
	assert_int_equal(seg->vnet.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(seg->vnet.gso_size, 0);
	/* size: gso_size except the last, which is 1..gso_size */
	if (!last)
		assert_int_equal(plen, s->mss);
	else if (s->pay_len)
		assert_true(plen >= 1 && plen <= s->mss);

	/* L2 unchanged */
	assert_memory_equal(g, o, l3);
	if (s->v6) {
		assert_memory_equal(g + l3, o + l3, 4);
		assert_int_equal(rd16(g + l3 + 4), glen - l3 - 40);
		assert_memory_equal(g + l3 + 6, o + l3 + 6, 34);
	} else {
		size_t ihl = l4 - l3;

		assert_memory_equal(g + l3, o + l3, 2);
		assert_int_equal(rd16(g + l3 + 2), glen - l3);
		assert_int_equal(rd16(g + l3 + 4),
				 (rd16(o + l3 + 4) + k) & 0xffff);
		assert_memory_equal(g + l3 + 6, o + l3 + 6, 4);
		assert_memory_equal(g + l3 + 12, o + l3 + 12, ihl - 12);
		assert_int_equal(ref_fold(ref_add(0, g + l3, ihl)), 0xffff);
	}

	if (s->udp) {
		assert_memory_equal(g + l4, o + l4, 4);
		assert_int_equal(rd16(g + l4 + 4), l4len);
	} else {
		uint8_t fl = o[l4 + T_TCP_FLAGS];

		assert_memory_equal(g + l4, o + l4, 4);
		assert_int_equal(rd32(g + l4 + 4), rd32(o + l4 + 4) + done);
		assert_memory_equal(g + l4 + 8, o + l4 + 8, 5);	/* ack, doff */
		want = fl;
		if (k)
			want &= (uint8_t)~0x80;		/* CWR first only */
		if (!last)
			want &= (uint8_t)~0x09;		/* FIN, PSH last only */
		if ((fl & 0x20) && s->urg <= done)
			want &= (uint8_t)~0x20;
		assert_int_equal(g[l4 + T_TCP_FLAGS], want);
		assert_memory_equal(g + l4 + 14, o + l4 + 14, 2);
		if (want & 0x20)
			assert_int_equal(rd16(g + l4 + 18), s->urg - done);
		else if (fl & 0x20)
			assert_int_equal(rd16(g + l4 + 18), 0);
		else
			assert_int_equal(rd16(g + l4 + 18), s->urg);
		assert_memory_equal(g + l4 + 20, o + l4 + 20, pay - l4 - 20);
	}
	/* payload is the right slice of the original */
	assert_memory_equal(g + pay, o + pay + done, plen);

	memcpy(tmp, g, glen);
	if (s->partial) {
		uint16_t stored = rd16(tmp + l4 + coff);
		uint32_t sum;

		assert_int_equal(seg->vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(seg->vnet.csum_start, l4);
		assert_int_equal(seg->vnet.csum_offset, coff);
		assert_int_equal(stored,
				 ref_fold(ref_pseudo(g + l3, s->v6, proto,
						     l4len)));
		/* complete it as the receiving driver would */
		sum = ref_add(0, tmp + l4, l4len);
		wr16(tmp + l4 + coff, (uint16_t)~ref_fold(sum));
	} else {
		assert_int_equal(seg->vnet.flags, 0);
		if (s->udp)
			assert_int_not_equal(rd16(tmp + l4 + coff), 0);
	}
	assert_int_equal(ref_fold(ref_pseudo(g + l3, s->v6, proto, l4len) +
				  ref_fold(ref_add(0, tmp + l4, l4len))),
			 0xffff);
}

static bool in_frame(const struct frame *f, const struct iovec *v)
{
	const uint8_t *p = v->iov_base;

	return p >= f->buf && p + v->iov_len <= f->buf + f->len;
}

/* Segment @f, verify every segment; returns the segment count. */
static uint32_t segment_and_check(struct frame *f, const struct spec *s)
{
	static uint8_t hdrbuf[GSO_HDR_MAX], flat[FRAME_MAX];
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	uint32_t k = 0, done = 0, segs;
	int n;

	assert_int_equal(gso_init(&it, &f->pkt, s->partial), 0);
	segs = gso_segs(&it);
	assert_int_equal(segs, s->pay_len ?
			 (s->pay_len + s->mss - 1) / s->mss : 1);
	while ((n = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1, &seg)) > 0) {
		size_t glen = 0;
		int i;

		assert_ptr_equal(out[0].iov_base, hdrbuf);
		for (i = 0; i < n; i++) {
			if (i)
				assert_true(in_frame(f, &out[i]));
			memcpy(flat + glen, out[i].iov_base, out[i].iov_len);
			glen += out[i].iov_len;
		}
		assert_true(k < segs);
		check_segment(f, s, flat, glen, &seg, k, k + 1 == segs, done,
			      (uint32_t)(glen - f->pay));
		done += (uint32_t)(glen - f->pay);
		k++;
	}
	assert_int_equal(n, 0);
	assert_int_equal(k, segs);
	assert_int_equal(done, s->pay_len);
	/* stays finished */
	assert_int_equal(gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1, &seg), 0);
	return k;
}

static struct frame fr;

static void test_segment_random(void **state)
{
	struct spec s;
	int round;

	(void)state;
	srand(10);
	for (round = 0; round < 1500; round++) {
		random_spec(&s);
		build(&fr, &s);
		segment_and_check(&fr, &s);
	}
}

static void test_segment_fixed(void **state)
{
	/* typical TSO: 64 KiB, MSS 1448, timestamps, VLAN, both IP versions */
	struct spec s = {
		.tcpopt = 12, .tcp_flags = 0x18 | 0x80 | 0x01,
		.pay_len = 65000, .mss = 1448,
	};
	int v;

	(void)state;
	srand(11);
	for (v = 0; v < 8; v++) {
		s.v6 = v & 1;
		s.vlan = v & 2;
		s.partial = v & 4;
		s.ipopt = s.v6 ? 0 : 40;
		s.udp = false;
		build(&fr, &s);
		assert_int_equal(segment_and_check(&fr, &s), 45);
		s.udp = true;
		s.tcpopt = 0;
		build(&fr, &s);
		assert_int_equal(segment_and_check(&fr, &s), 45);
		s.tcpopt = 12;
	}
}

static void test_segment_edges(void **state)
{
	struct spec s = { .tcp_flags = 0x19, .mss = 1000 };
	uint32_t lens[] = { 0, 1, 999, 1000, 1001, 2000, 2001 };
	unsigned int i;

	(void)state;
	srand(12);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		s.pay_len = lens[i];
		s.udp = i & 1;
		build(&fr, &s);
		segment_and_check(&fr, &s);
	}
	/* gso_size larger than the payload: one segment */
	s.mss = 65535;
	s.pay_len = 3000;
	build(&fr, &s);
	assert_int_equal(segment_and_check(&fr, &s), 1);
}

static void test_segment_nospc(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX];
	struct spec s = { .tcp_flags = 0x10, .pay_len = 3000, .mss = 1000 };
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;

	(void)state;
	build(&fr, &s);
	/* force the payload over several iovecs */
	fr.pkt.iov[0].iov_base = fr.buf;
	fr.pkt.iov[0].iov_len = fr.pay + 500;
	fr.pkt.iov[1].iov_base = fr.buf + fr.pay + 500;
	fr.pkt.iov[1].iov_len = fr.len - fr.pay - 500;
	fr.pkt.iovcnt = 2;
	assert_int_equal(gso_init(&it, &fr.pkt, false), 0);
	assert_int_equal(gso_next(&it, hdrbuf, out, 0, &seg), -ENOSPC);
	/* the first segment straddles the two iovecs: needs 1 + 2 */
	assert_int_equal(gso_next(&it, hdrbuf, out, 2, &seg), -ENOSPC);
	assert_int_equal(gso_next(&it, hdrbuf, out, 3, &seg), 3);
	assert_int_equal(seg.payload, 1000);
	assert_int_equal(out[1].iov_len, 500);
	assert_int_equal(out[2].iov_len, 500);
	assert_int_equal(gso_next(&it, hdrbuf, out, 2, &seg), 2);
	assert_int_equal(gso_next(&it, hdrbuf, out, 2, &seg), 2);
	assert_int_equal(seg.payload, 1000);
	assert_int_equal(gso_next(&it, hdrbuf, out, 2, &seg), 0);
}

/* ---- hostile metadata ---- */

static int try_init(struct frame *f)
{
	struct gso_iter it;

	return gso_init(&it, &f->pkt, false);
}

static void rebuild_flat(struct frame *f)
{
	f->pkt.iov[0].iov_base = f->buf;
	f->pkt.iov[0].iov_len = f->len;
	f->pkt.iovcnt = 1;
	f->pkt.len = (uint32_t)f->len;
}

static void test_hostile(void **state)
{
	struct spec base = { .tcp_flags = 0x10, .tcpopt = 12, .ipopt = 8,
			     .pay_len = 5000, .mss = 1400 };
	struct spec s;
	int i;

	(void)state;
	srand(13);
	s = base;
	build(&fr, &s);
	rebuild_flat(&fr);
	assert_int_equal(try_init(&fr), 0);

	for (i = 0; ; i++) {
		s = base;
		build(&fr, &s);
		rebuild_flat(&fr);
		switch (i) {
		case 0: fr.pkt.vnet.gso_size = 0; break;
		case 1: fr.pkt.vnet.flags = 0; break;
		case 2: fr.pkt.vnet.csum_start = (uint16_t)(fr.l4 + 1); break;
		case 3: fr.pkt.vnet.csum_offset = 6; break;
		case 4: fr.pkt.vnet.csum_start = 0xffff; break;
		case 5: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV6; break;
		case 6: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP; break;
		case 7: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_NONE; break;
		case 8: fr.pkt.vnet.gso_type = 2; break;
		case 9: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4; break;
		case 10: fr.buf[fr.l3] = 0x44; break;		/* ihl 4 */
		case 11: fr.buf[fr.l3] = 0x4f; break;		/* ihl 15 > options */
		case 12: fr.buf[fr.l3] = 0x55; break;		/* version 5 */
		case 13: fr.buf[fr.l3 + 6] = 0x20; break;	/* MF */
		case 14: fr.buf[fr.l3 + 7] = 1; break;		/* frag offset */
		case 15: fr.buf[fr.l3 + 9] = 17; break;		/* UDP in TCPV4 */
		case 16: fr.buf[fr.l4 + 12] = 0x40; break;	/* doff 4 */
		case 17: fr.buf[fr.l4 + 13] |= 0x02; break;	/* SYN */
		case 18: fr.buf[fr.l4 + 13] |= 0x04; break;	/* RST */
		case 19: fr.buf[12] = 0x88; fr.buf[13] = 0xa8; break; /* QinQ */
		case 20: fr.buf[12] = 0x08; fr.buf[13] = 0x06; break; /* ARP */
		case 21: fr.pkt.len = (uint32_t)fr.len + 1; break;
		case 22: fr.pkt.len = (uint32_t)fr.len - 1; break;
		case 23: fr.pkt.iovcnt = PKT_IOV_MAX + 1; break;
		case 24: /* truncated inside the TCP header */
			fr.len = fr.l4 + 10;
			rebuild_flat(&fr);
			break;
		case 25: /* truncated inside the TCP options */
			fr.len = fr.pay - 1;
			rebuild_flat(&fr);
			break;
		case 26: /* truncated inside the IP header */
			fr.len = fr.l3 + 10;
			rebuild_flat(&fr);
			break;
		case 27: /* segment larger than an IPv4 packet can be */
			fr.pkt.vnet.gso_size = 0xffff;
			s.pay_len = 65500;
			build(&fr, &s);
			fr.pkt.vnet.gso_size = 0xffff;
			rebuild_flat(&fr);
			break;
		case 28: fr.len = 0; rebuild_flat(&fr); break;
		case 29: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4 |
					       VIRTIO_NET_HDR_GSO_ECN;
			break;
		default:
			goto v6;
		}
		assert_int_equal(try_init(&fr), -EINVAL);
	}
v6:
	base.v6 = true;
	base.ipopt = 0;
	for (i = 0; ; i++) {
		s = base;
		build(&fr, &s);
		rebuild_flat(&fr);
		switch (i) {
		case 0: fr.buf[fr.l3 + 6] = 0; break;	/* hop-by-hop */
		case 1: fr.buf[fr.l3 + 6] = 43; break;	/* routing */
		case 2: fr.buf[fr.l3 + 6] = 44; break;	/* fragment */
		case 3: fr.buf[fr.l3] = 0x40; break;	/* version 4 */
		case 4: fr.pkt.vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4; break;
		case 5: /* IPv6 payload length cannot hold the segment */
			s.mss = 0xffff;
			s.pay_len = 65535;
			build(&fr, &s);
			rebuild_flat(&fr);
			break;
		default:
			return;
		}
		assert_int_equal(try_init(&fr), -EINVAL);
	}
}

/* Random corruption of a valid frame and its metadata: whatever
 * gso_init() accepts must segment with every slice inside the frame
 * and lengths adding up (run under ASan to catch stray reads).
 */
static void test_mutate(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX];
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	struct spec s;
	int round, n;

	(void)state;
	srand(14);
	for (round = 0; round < 20000; round++) {
		uint32_t total = 0;
		int m;

		random_spec(&s);
		s.pay_len %= 3000;
		build(&fr, &s);
		for (m = rand() % 4; m >= 0; m--) {
			switch (rand() % 6) {
			case 0:
				fr.buf[(size_t)rand() % (fr.pay + 1)] =
					(uint8_t)rand();
				break;
			case 1:
				fr.pkt.vnet.gso_size = (uint16_t)rand();
				break;
			case 2:
				fr.pkt.vnet.csum_start = (uint16_t)(rand() % 200);
				break;
			case 3:
				fr.pkt.vnet.gso_type = (uint8_t)rand();
				break;
			case 4:
				fr.pkt.vnet.hdr_len = (uint16_t)rand();
				break;
			default:
				fr.buf[fr.l4 + 12] = (uint8_t)rand();
				break;
			}
		}
		if (gso_init(&it, &fr.pkt, rand() % 2))
			continue;
		while ((n = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1,
				     &seg)) > 0) {
			int i;

			assert_true(out[0].iov_len <= GSO_HDR_MAX);
			for (i = 1; i < n; i++)
				assert_true(in_frame(&fr, &out[i]));
			total += seg.len;
		}
		assert_int_equal(n, 0);
		assert_true(total >= fr.len);
	}
}

/* ---- checksum completion ---- */

static void test_csum_fill(void **state)
{
	static uint8_t dst[FRAME_MAX + 16], save[FRAME_MAX];
	struct iovec div[8];
	struct spec s;
	int round;

	(void)state;
	srand(15);
	for (round = 0; round < 3000; round++) {
		struct gso_csum res;
		uint8_t proto;
		uint32_t l4len;
		size_t doff = (size_t)rand() % 13, cut;

		random_spec(&s);
		s.pay_len %= 9000;
		build(&fr, &s);
		fr.pkt.vnet.gso_type = 0;
		fr.pkt.vnet.gso_size = 0;
		proto = s.udp ? 17 : 6;
		l4len = (uint32_t)(fr.len - fr.l4);
		/* a non-GSO frame's pseudo header uses its real length */
		wr16(fr.buf + fr.l4 + (s.udp ? 6 : 16),
		     ref_fold(ref_pseudo(fr.buf + fr.l3, s.v6, proto, l4len)));
		if (s.udp)
			wr16(fr.buf + fr.l4 + 4, l4len);
		memcpy(save, fr.buf, fr.len);

		assert_int_equal(gso_csum_fill(&fr.pkt.vnet, fr.pkt.iov,
					       fr.pkt.iovcnt, fr.pkt.len,
					       &res), 0);
		assert_int_equal(res.off, fr.l4 + (s.udp ? 6 : 16));
		assert_memory_equal(save, fr.buf, fr.len);	/* untouched */

		/* the caller's copy: a split destination at an offset */
		memcpy(dst + doff, fr.buf, fr.len);
		cut = (size_t)rand() % (doff + fr.len + 1);
		div[0].iov_base = dst;
		div[0].iov_len = cut;
		div[1].iov_base = dst + cut;
		div[1].iov_len = doff + fr.len - cut;
		assert_int_equal(gso_csum_store(&res, div, 2, doff), 0);
		assert_int_equal(ref_fold(ref_pseudo(dst + doff + fr.l3, s.v6,
						     proto, l4len) +
					  ref_fold(ref_add(0, dst + doff + fr.l4,
							   l4len))), 0xffff);
		if (s.udp)
			assert_int_not_equal(rd16(dst + doff + fr.l4 + 6), 0);
		/* a short destination is refused */
		div[1].iov_len = 0;
		if (cut < doff + res.off + 2)
			assert_int_equal(gso_csum_store(&res, div, 2, doff),
					 -ENOSPC);
	}
}

static void test_csum_fill_hostile(void **state)
{
	struct spec s = { .tcp_flags = 0x10, .pay_len = 100, .mss = 1 };
	struct virtio_net_hdr_v1 v;
	struct gso_csum res;

	(void)state;
	build(&fr, &s);
	rebuild_flat(&fr);
	v = fr.pkt.vnet;
	v.gso_type = 0;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res), 0);
	v.flags = 0;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res),
			 -EINVAL);
	v.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	v.csum_start = (uint16_t)fr.len;
	v.csum_offset = 0;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res),
			 -EINVAL);
	v.csum_start = (uint16_t)(fr.len - 2);
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res), 0);
	v.csum_offset = 1;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res),
			 -EINVAL);
	v.csum_start = 0xffff;
	v.csum_offset = 0xffff;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len, &res),
			 -EINVAL);
	/* iovecs shorter than the claimed length */
	v.csum_start = 0;
	v.csum_offset = 0;
	assert_int_equal(gso_csum_fill(&v, fr.pkt.iov, 1, fr.pkt.len + 1,
				       &res), -EINVAL);
}

/* UDP: a computed checksum of 0 must go out as 0xffff (0 = "none").
 * Tune the last two payload bytes so the true checksum is exactly 0.
 */
static void make_udp_zero(struct frame *f, bool v6)
{
	uint32_t l4len = (uint32_t)(f->len - f->l4);
	uint8_t *last = f->buf + f->len - 2;
	uint16_t sum;

	wr16(f->buf + f->l4 + 4, l4len);
	wr16(f->buf + f->l4 + 6, 0);
	wr16(last, 0);
	sum = ref_fold(ref_pseudo(f->buf + f->l3, v6, 17, l4len) +
		       ref_add(0, f->buf + f->l4, l4len));
	wr16(last, 0xffffu - sum);
	assert_int_equal(ref_fold(ref_pseudo(f->buf + f->l3, v6, 17, l4len) +
				  ref_add(0, f->buf + f->l4, l4len)), 0xffff);
}

static void test_udp_zero_csum(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX];
	struct spec s = { .udp = true, .pay_len = 1000, .mss = 1400 };
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	struct gso_csum res;
	int v, n;

	(void)state;
	srand(16);
	for (v = 0; v < 2; v++) {
		s.v6 = v;
		build(&fr, &s);
		make_udp_zero(&fr, s.v6);
		assert_int_equal(gso_init(&it, &fr.pkt, false), 0);
		n = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1, &seg);
		assert_true(n > 0);
		assert_int_equal(rd16(hdrbuf + fr.l4 + 6), 0xffff);

		/* the same frame as a plain NEEDS_CSUM frame */
		fr.pkt.vnet.gso_type = 0;
		wr16(fr.buf + fr.l4 + 6,
		     ref_fold(ref_pseudo(fr.buf + fr.l3, s.v6, 17,
					 (uint32_t)(fr.len - fr.l4))));
		assert_int_equal(gso_csum_fill(&fr.pkt.vnet, fr.pkt.iov,
					       fr.pkt.iovcnt, fr.pkt.len,
					       &res), 0);
		assert_int_equal(res.csum, 0xffff);
	}
}

/* ---- the Linux kernel as reference implementation ----
 *
 * Only when tests/integration/gso_kernel_ref.sh runs us inside its netns
 * (GSO_KERNEL_REF="tap veth"): the GSO frame is written with its
 * virtio-net header to the TAP, the kernel bridges it to a veth whose TSO,
 * USO and checksum offloads are off, so the kernel segments and
 * checksums it in software; what arrives on the peer veth must be
 * byte-identical to our full-checksum segments.
 */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6	0x40
#endif

static int kref_open(const char *tap, const char *veth, int *pfd)
{
	struct ifreq ifr;
	struct sockaddr_ll sll;
	int fd, hs = sizeof(struct virtio_net_hdr_v1), one = 1 << 22;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", tap);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	assert_int_equal(ioctl(fd, TUNSETIFF, &ifr), 0);
	assert_int_equal(ioctl(fd, TUNSETVNETHDRSZ, &hs), 0);
	/* what we could receive; harmless either way for writes */
	(void)ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
		    TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6);

	*pfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	assert_true(*pfd >= 0);
	(void)setsockopt(*pfd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(veth);
	assert_true(sll.sll_ifindex > 0);
	assert_int_equal(bind(*pfd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	return fd;
}

/* Read segments from @pfd whose source MAC is @f's; 0 when none comes
 * within 300 ms.
 */
static ssize_t kref_recv(int pfd, const struct frame *f, uint8_t *buf,
			 size_t len)
{
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	ssize_t n;

	while (poll(&p, 1, 300) == 1) {
		n = recv(pfd, buf, len, 0);
		if (n >= 12 && !memcmp(buf + 6, f->buf + 6, 6))
			return n;
	}
	return 0;
}

static void test_kernel_ref(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX], ours[FRAME_MAX], theirs[FRAME_MAX];
	const char *env = getenv("GSO_KERNEL_REF");
	char tap[IFNAMSIZ], veth[IFNAMSIZ];
	struct iovec out[PKT_IOV_MAX + 1];
	int fd, pfd, c, checked = 0;

	(void)state;
	if (!env || sscanf(env, "%15s %15s", tap, veth) != 2)
		skip();
	fd = kref_open(tap, veth, &pfd);
	usleep(300 * 1000);	/* carrier up, bridge port forwarding */
	srand(17);
	for (c = 0; c < 48; c++) {
		struct spec s = {
			.v6 = c & 1, .udp = c & 2,
			.ipopt = c & 4 ? 12 : 0, .tcpopt = c & 8 ? 12 : 0,
			.tcp_flags = 0x10 | (c & 16 ? 0x08 | 0x01 : 0) |
				     (c & 32 ? 0x80 | 0x40 : 0),
			.mss = (uint16_t)(c < 32 ? 1400 : 500 + rand() % 1000),
			.pay_len = (uint32_t)(c < 32 ? 20000 : rand() % 60000),
		};
		struct iovec w[2];
		struct gso_iter it;
		struct gso_seg seg;
		int n, k = 0;

		if (s.v6)
			s.ipopt = 0;
		if (s.udp) {
			s.tcpopt = 0;
			s.tcp_flags = 0;
		}
		build(&fr, &s);
		/* unlike us, the kernel drops a GSO frame whose IPv4
		 * header checksum is stale (we recompute it regardless)
		 */
		if (!s.v6) {
			wr16(fr.buf + fr.l3 + 10, 0);
			wr16(fr.buf + fr.l3 + 10, (uint16_t)~ref_fold(
			     ref_add(0, fr.buf + fr.l3, fr.l4 - fr.l3)));
		}
		/* and it derives USO checksums from the big frame's UDP
		 * length and stored pseudo sum, which Linux guests fill in
		 */
		if (s.udp)
			wr16(fr.buf + fr.l4 + 4, (uint32_t)(fr.len - fr.l4));
		w[0].iov_base = &fr.pkt.vnet;
		w[0].iov_len = sizeof(fr.pkt.vnet);
		w[1].iov_base = fr.buf;
		w[1].iov_len = fr.len;
		assert_int_equal(writev(fd, w, 2), (ssize_t)(w[0].iov_len + fr.len));

		assert_int_equal(gso_init(&it, &fr.pkt, false), 0);
		while ((n = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1,
				     &seg)) > 0) {
			size_t glen = 0;
			ssize_t got;
			int i;

			for (i = 0; i < n; i++) {
				memcpy(ours + glen, out[i].iov_base,
				       out[i].iov_len);
				glen += out[i].iov_len;
			}
			got = kref_recv(pfd, &fr, theirs, sizeof(theirs));
			if (got != (ssize_t)glen || memcmp(ours, theirs, glen))
				print_error("case %d (v6 %d udp %d) segment %d: "
					    "kernel %zd bytes, ours %zu\n", c,
					    s.v6, s.udp, k, got, glen);
			assert_int_equal(got, glen);
			assert_memory_equal(ours, theirs, glen);
			k++;
		}
		assert_int_equal(kref_recv(pfd, &fr, theirs, sizeof(theirs)), 0);
		checked += k;
	}
	print_message("kernel reference: %d segments identical\n", checked);
	close(pfd);
	close(fd);
}

/* ---- the decision table ---- */

#define F(b)	(1ULL << (b))

static void test_plan(void **state)
{
	const uint64_t host = F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
			      F(VIRTIO_NET_F_HOST_TSO6) |
			      F(VIRTIO_NET_F_HOST_ECN) |
			      F(VIRTIO_NET_F_HOST_USO);
	const uint64_t guest = F(VIRTIO_NET_F_GUEST_CSUM) |
			       F(VIRTIO_NET_F_GUEST_TSO4) |
			       F(VIRTIO_NET_F_GUEST_TSO6) |
			       F(VIRTIO_NET_F_GUEST_ECN) |
			       F(VIRTIO_NET_F_GUEST_USO4) |
			       F(VIRTIO_NET_F_GUEST_USO6);
	struct spec s = { .tcp_flags = 0x10, .pay_len = 5000, .mss = 1400 };
	struct pkt *p = &fr.pkt;

	(void)state;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, F(VIRTIO_NET_F_GUEST_CSUM)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host & ~F(VIRTIO_NET_F_HOST_TSO4), guest),
			 GSO_ACT_DROP);
	/* TSO without GUEST_CSUM is not to be trusted */
	assert_int_equal(gso_plan(p, host, F(VIRTIO_NET_F_GUEST_TSO4)),
			 GSO_ACT_SEGMENT);
	p->vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_ECN)),
			 GSO_ACT_SEGMENT);
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	p->vnet.gso_size = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
	p->vnet.gso_size = 1400;
	p->vnet.flags = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
	p->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	assert_int_equal(gso_plan(p, host | F(VIRTIO_NET_F_HOST_UFO),
				  guest), GSO_ACT_DROP);
	assert_int_equal(gso_plan(p, host | F(VIRTIO_NET_F_HOST_UFO),
				  guest | F(VIRTIO_NET_F_GUEST_UFO)),
			 GSO_ACT_PASS);
	p->vnet.gso_type = 0x42;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);

	/* USO follows the IP version */
	s.udp = true;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO4)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO6)),
			 GSO_ACT_PASS);
	s.vlan = true;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO6)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host & ~F(VIRTIO_NET_F_HOST_USO), guest),
			 GSO_ACT_DROP);

	/* checksum only */
	p->vnet.gso_type = 0;
	p->vnet.gso_size = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_CSUM);
	assert_int_equal(gso_plan(p, 0, 0), GSO_ACT_DROP);
	p->vnet.csum_start = (uint16_t)(p->len - 1);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_DROP);
	p->vnet.flags = 0;
	assert_int_equal(gso_plan(p, 0, 0), GSO_ACT_PASS);
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_fixed),
		cmocka_unit_test(test_segment_edges),
		cmocka_unit_test(test_segment_random),
		cmocka_unit_test(test_segment_nospc),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_mutate),
		cmocka_unit_test(test_csum_fill),
		cmocka_unit_test(test_csum_fill_hostile),
		cmocka_unit_test(test_udp_zero_csum),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_kernel_ref),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
