// SPDX-License-Identifier: GPL-2.0-or-later
/* segment.c - software segmentation, checked segment by segment
 *
 * Every segment gso_next() produces is flattened and re-parsed against
 * the original frame; hostile metadata and mutated frames must be
 * refused or stay inside the frame.
 */
#include <stdlib.h>
#include <string.h>

#include "test_gso.h"

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

void test_segment_random(void **state)
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

/* gso_next_flat() gives what gso_next() gives, flattened: the same bytes
 * (its checksum summed while copying), the same results, in both checksum
 * modes; a buffer one byte short is refused without advancing.
 */
void test_segment_flat(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX], flat[FRAME_MAX], got[FRAME_MAX];
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter a, b;
	struct gso_seg sa, sb;
	struct spec s;
	int round, n, m, i;

	(void)state;
	srand(12);
	for (round = 0; round < 1500; round++) {
		size_t glen;

		random_spec(&s);
		build(&fr, &s);
		assert_int_equal(gso_init(&a, &fr.pkt, s.partial), 0);
		assert_int_equal(gso_init(&b, &fr.pkt, s.partial), 0);
		for (;;) {
			n = gso_next(&a, hdrbuf, out, PKT_IOV_MAX + 1, &sa);
			if (n <= 0)
				break;
			for (glen = 0, i = 0; i < n; i++) {
				memcpy(flat + glen, out[i].iov_base,
				       out[i].iov_len);
				glen += out[i].iov_len;
			}
			assert_int_equal(gso_next_flat(&b, got, glen - 1, &sb),
					 -ENOSPC);
			/* odd destinations are fine */
			m = gso_next_flat(&b, got + (round & 1), glen, &sb);
			assert_int_equal(m, (int)glen);
			assert_memory_equal(got + (round & 1), flat, glen);
			assert_memory_equal(&sa, &sb, sizeof(sa));
		}
		assert_int_equal(n, 0);
		assert_int_equal(gso_next_flat(&b, got, sizeof(got), &sb), 0);
	}
}

void test_segment_fixed(void **state)
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

void test_segment_edges(void **state)
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

void test_segment_nospc(void **state)
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

void rebuild_flat(struct frame *f)
{
	f->pkt.iov[0].iov_base = f->buf;
	f->pkt.iov[0].iov_len = f->len;
	f->pkt.iovcnt = 1;
	f->pkt.len = (uint32_t)f->len;
}

void test_hostile(void **state)
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
void test_mutate(void **state)
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
