// SPDX-License-Identifier: GPL-2.0-or-later
/* gro.c - GRO (net/gro.h) as GSO's inverse, and what it must refuse
 *
 * A random TCP frame (ref.c's builder) is cut by gso_next() into flat
 * segments, which gro_start()/gro_join()/gro_finish() join again: the
 * joined frame must be the original -- every header byte but the TCP
 * checksum (now the pseudo header's, for NEEDS_CSUM) and the IPv4
 * checksum (recomputed, checked here by ref.c's sum), every payload
 * byte, gso_size the mss -- and cutting it again must give the same
 * segments byte for byte.  Frames GRO must not join (IPv4 options, a
 * tag, UDP, SYN/FIN/URG/ECE/CWR) are left alone.  Then one segment at a
 * time made wrong: a corrupt byte, a gap, another port, TTL, window,
 * ack, an ID out of step, padding, a short segment in the middle, PSH.
 * And two frames joined in one pass keep their own headers.
 */
#include <stdlib.h>
#include <string.h>

#include "test_gso.h"
#include "../../../src/net/gro.h"

#define SEGS_MAX	64

/* The segments of the frame under test, flat. */
static uint8_t seg_buf[SEGS_MAX][9400];
static size_t seg_len[SEGS_MAX];
static unsigned int nseg;

/**
 * cut() - segment @f (full checksums) into seg_buf
 * @f:		frame, a TCP GSO frame
 */
static void cut(struct frame *f)
{
	struct iovec out[PKT_IOV_MAX + 1];
	uint8_t hdr[GSO_HDR_MAX];
	struct gso_iter it;
	struct gso_seg seg;
	int n;

	nseg = 0;
	assert_int_equal(gso_init(&it, &f->pkt, false), 0);
	while ((n = gso_next(&it, hdr, out, PKT_IOV_MAX + 1, &seg)) > 0) {
		size_t o = 0;
		int i;

		assert_true(nseg < SEGS_MAX);
		for (i = 0; i < n; i++) {
			memcpy(seg_buf[nseg] + o, out[i].iov_base,
			       out[i].iov_len);
			o += out[i].iov_len;
		}
		seg_len[nseg++] = o;
	}
	assert_int_equal(n, 0);
}

/* The carrier's metadata join() hands GRO with each segment (NULL: none). */
static const struct virtio_net_hdr_v1 *join_vnet;

/**
 * join() - run segments [@from, @to) through GRO into @pkt
 * @g:		state
 * @pkt:	out: the frame (the first segment, then what joins made)
 * @hdr:	header buffer for gro_finish()
 * @from:	first segment
 * @to:		one past the last
 * Return: segments joined into the frame (1: none joined the first)
 */
static unsigned int join(struct gro_flow *g, struct pkt *pkt, uint8_t *hdr,
			 unsigned int from, unsigned int to)
{
	unsigned int i, n = 1;

	memset(pkt, 0, sizeof(*pkt));
	memcpy(&pkt->eth, seg_buf[from], ETH_HLEN);
	pkt->len = (uint32_t)seg_len[from];
	pkt->iovcnt = 1;
	pkt->iov[0].iov_base = seg_buf[from];
	pkt->iov[0].iov_len = seg_len[from];
	if (!gro_start(g, seg_buf[from], seg_len[from], join_vnet))
		return 1;
	for (i = from + 1; i < to; i++) {
		if (!gro_join(g, pkt, seg_buf[i], seg_len[i], join_vnet))
			break;
		n++;
	}
	gro_finish(g, pkt, hdr);
	return n;
}

/* flat() - @pkt's bytes into @out; returns their count */
static size_t flat(const struct pkt *pkt, uint8_t *out)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < pkt->iovcnt; i++) {
		memcpy(out + o, pkt->iov[i].iov_base, pkt->iov[i].iov_len);
		o += pkt->iov[i].iov_len;
	}
	assert_int_equal(o, pkt->len);
	return o;
}

/**
 * check_joined() - the joined frame is @f again, and cuts as @f did
 * @f:		the original frame
 * @pkt:	GRO's frame of all its segments
 */
static void check_joined(struct frame *f, const struct pkt *pkt)
{
	static uint8_t got[FRAME_MAX];
	static struct frame again;
	size_t len = flat(pkt, got), i;
	unsigned int n0 = nseg, k;
	uint8_t *th = got + f->l4;

	assert_int_equal(len, f->len);
	/* Headers but the checksums, then every payload byte. */
	if (f->l4 - f->l3 == 20) {		/* IPv4: csum redone */
		assert_memory_equal(got, f->buf, f->l3 + 10);
		assert_int_equal(ref_fold(ref_add(0, got + f->l3, 20)),
				 0xffff);
		assert_memory_equal(got + f->l3 + 12, f->buf + f->l3 + 12, 8);
	} else {
		assert_memory_equal(got, f->buf, f->l4);
	}
	assert_memory_equal(th, f->buf + f->l4, 13);
	/* PSH and FIN go to the last segment and come back with it. */
	assert_int_equal(th[T_TCP_FLAGS] & ~0x08,
			 f->buf[f->l4 + T_TCP_FLAGS] & ~0x08);
	assert_memory_equal(th + 14, f->buf + f->l4 + 14, 2);
	assert_memory_equal(th + 18, f->buf + f->l4 + 18,
			    f->pay - f->l4 - 18);
	assert_memory_equal(got + f->pay, f->buf + f->pay, f->len - f->pay);
	/* NEEDS_CSUM: the field holds the pseudo header's sum. */
	assert_int_equal(rd16(th + 16),
			 ref_fold(ref_pseudo(got + f->l3, f->l4 - f->l3 == 40,
					     6, (uint32_t)(len - f->l4))));
	assert_int_equal(pkt->vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(pkt->vnet.gso_type, f->pkt.vnet.gso_type);
	assert_int_equal(pkt->vnet.gso_size, f->pkt.vnet.gso_size);
	assert_int_equal(pkt->vnet.hdr_len, f->pay);
	assert_int_equal(pkt->vnet.csum_start, f->l4);
	assert_int_equal(pkt->vnet.csum_offset, 16);

	/* Cut again: the same segments, byte for byte. */
	memset(&again, 0, sizeof(again));
	memcpy(again.buf, got, len);
	again.len = len;
	again.pkt = *pkt;
	again.pkt.iovcnt = 1;
	again.pkt.iov[0].iov_base = again.buf;
	again.pkt.iov[0].iov_len = len;
	{
		static uint8_t keep[SEGS_MAX][9400];
		static size_t keep_len[SEGS_MAX];

		for (k = 0; k < n0; k++) {
			memcpy(keep[k], seg_buf[k], seg_len[k]);
			keep_len[k] = seg_len[k];
		}
		cut(&again);
		assert_int_equal(nseg, n0);
		for (k = 0; k < n0; k++) {
			assert_int_equal(seg_len[k], keep_len[k]);
			for (i = 0; i < seg_len[k]; i++)
				if (seg_buf[k][i] != keep[k][i])
					fail_msg("segment %u byte %zu differs",
						 k, i);
		}
	}
}

/* Random TCP frames: joined back whole, or left alone where GRO must. */
void test_gro_roundtrip(void **state)
{
	uint8_t hdr[GRO_HDR_MAX];
	struct gro_flow g;
	struct spec s;
	struct pkt pkt;
	unsigned int round, whole = 0, alone = 0, joined;

	(void)state;
	for (round = 0; round < 400; round++) {
		random_spec(&s);
		s.udp = false;
		s.partial = false;
		s.urg = 0;
		if (round % 4)		/* mostly frames GRO takes */
			s.tcp_flags = (uint8_t)(0x10 | (rand() % 2 ? 0x08 : 0));
		if (round % 4 && !s.v6)
			s.ipopt = 0;
		if (round % 4)
			s.vlan = false;
		s.mss = (uint16_t)(1100 + rand() % 7900);
		s.pay_len = s.pay_len % 64000 + 1;
		if (round % 8 == 0)	/* a whole number of segments */
			s.pay_len = (uint32_t)s.mss * (1 + (uint32_t)rand() % 6);
		build(&fr, &s);
		cut(&fr);
		if (nseg < 2 || nseg >= PKT_IOV_MAX - 1)
			continue;
		joined = join(&g, &pkt, hdr, 0, nseg);
		if (s.vlan || s.ipopt) {
			assert_int_equal(joined, 1);	/* must not join */
			assert_int_equal(pkt.iovcnt, 1);
			assert_ptr_equal(pkt.iov[0].iov_base, seg_buf[0]);
			alone++;
			continue;
		}
		if (s.tcp_flags & ~0x18) {
			/* FIN, ECE, CWR: whatever carries one stays out
			 * (FIN on the last segment, CWR on the first); URG
			 * is gone from segments past the pointer
			 */
			alone++;
			continue;
		}
		/* PSH closes the frame: only at the last segment here. */
		assert_int_equal(joined, nseg);
		check_joined(&fr, &pkt);
		whole++;
	}
	assert_true(whole > 100);
	assert_true(alone > 20);
}

/**
 * one_wrong() - a 6-segment IPv4 frame with segment @bad altered by @fn:
 *		 GRO joins the segments before it only
 * @fn:		alteration (gets the segment, its headers' offsets)
 * @bad:	which segment
 * @want:	segments the frame should end with
 */
static void one_wrong(void (*fn)(uint8_t *s, size_t *len), unsigned int bad,
		      unsigned int want)
{
	struct spec s = { .tcp_flags = 0x10, .pay_len = 6000, .mss = 1000,
			  .tcpopt = 12 };
	uint8_t hdr[GRO_HDR_MAX];
	struct gro_flow g;
	struct pkt pkt;
	unsigned int got;

	build(&fr, &s);
	cut(&fr);
	assert_int_equal(nseg, 6);

	fn(seg_buf[bad], &seg_len[bad]);
	got = join(&g, &pkt, hdr, 0, nseg);
	if (got != want)
		fail_msg("segment %u altered: %u joined, want %u", bad, got,
			 want);
	/* Nothing after a refusal joins, even if it would fit again. */
	assert_false(gro_join(&g, &pkt, seg_buf[5], seg_len[5], NULL));
}

/* tcp_fix() - a segment's TCP checksum redone (IPv4, TCP at 34) */
static void tcp_fix(uint8_t *s, size_t len)
{
	uint32_t sum;

	wr16(s + 34 + 16, 0);
	sum = ref_pseudo(s + 14, false, 6, (uint32_t)(len - 34));
	wr16(s + 34 + 16, 0xffffU ^ ref_fold(ref_add(sum, s + 34, len - 34)));
}

/* The alterations; offsets: Ethernet 14, IPv4 20, TCP 32 with options.
 * Each but the corruptions keeps the checksums right, so that what
 * refuses it is the rule it breaks.
 */
static void w_payload(uint8_t *s, size_t *len) { s[100] ^= 1; }
static void w_ipcsum(uint8_t *s, size_t *len) { s[14 + 10] ^= 1; }
static void w_seq(uint8_t *s, size_t *len) { s[34 + 7] ^= 4; tcp_fix(s, *len); }
static void w_port(uint8_t *s, size_t *len) { s[34 + 1] ^= 1; tcp_fix(s, *len); }
static void w_ack(uint8_t *s, size_t *len) { s[34 + 11] ^= 1; tcp_fix(s, *len); }
static void w_window(uint8_t *s, size_t *len) { s[34 + 15] ^= 1; tcp_fix(s, *len); }
static void w_ttl(uint8_t *s, size_t *len) { s[14 + 8]--; s[14 + 10]++; }
static void w_id(uint8_t *s, size_t *len) { s[14 + 5] += 7; s[14 + 11] -= 7; }
static void w_opt(uint8_t *s, size_t *len) { s[34 + 25] ^= 1; tcp_fix(s, *len); }
static void w_mac(uint8_t *s, size_t *len) { s[3] ^= 1; }
static void w_syn(uint8_t *s, size_t *len) { s[34 + 13] |= 0x02; tcp_fix(s, *len); }
static void w_pad(uint8_t *s, size_t *len) { s[*len] = 0; (*len)++; }

static void w_short(uint8_t *s, size_t *len)
{
	/* 100 bytes less: IPv4 length, checksum and the TCP sum redone */
	*len -= 100;
	wr16(s + 14 + 2, (uint32_t)(*len - 14));
	wr16(s + 14 + 10, 0);
	wr16(s + 14 + 10, 0xffffU ^ ref_fold(ref_add(0, s + 14, 20)));
	tcp_fix(s, *len);
}

static void w_psh(uint8_t *s, size_t *len)
{
	s[34 + 13] |= 0x08;
	tcp_fix(s, *len);
}

/* Each way a segment may be wrong stops the frame before it. */
void test_gro_refusals(void **state)
{
	(void)state;
	one_wrong(w_payload, 3, 3);	/* TCP checksum */
	one_wrong(w_payload, 0, 1);	/* the first's, checked lazily */
	one_wrong(w_ipcsum, 2, 2);
	one_wrong(w_seq, 2, 2);
	one_wrong(w_port, 1, 1);
	one_wrong(w_ack, 4, 4);
	one_wrong(w_window, 4, 4);
	one_wrong(w_ttl, 2, 2);
	one_wrong(w_id, 2, 2);
	one_wrong(w_opt, 3, 3);
	one_wrong(w_mac, 1, 1);
	one_wrong(w_syn, 2, 2);
	one_wrong(w_pad, 2, 2);
	/* A short segment joins and ends the frame; so does PSH. */
	one_wrong(w_short, 2, 3);
	one_wrong(w_psh, 2, 3);
}

/* Segments whose TCP checksum the sender left to the receiver (VXLAN
 * RCO: NEEDS_CSUM at the TCP checksum) join with their fields holding
 * anything; the IPv4 header's checksum is still checked; metadata that
 * points elsewhere buys nothing.
 */
void test_gro_partial(void **state)
{
	struct spec s = { .tcp_flags = 0x10, .pay_len = 6000, .mss = 1000 };
	struct virtio_net_hdr_v1 v = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.csum_start = htole16(34), .csum_offset = htole16(16),
	};
	static uint8_t got[FRAME_MAX];
	uint8_t hdr[GRO_HDR_MAX];
	struct gro_flow g;
	struct pkt pkt;
	unsigned int i;

	(void)state;
	build(&fr, &s);
	cut(&fr);
	assert_int_equal(nseg, 6);
	for (i = 0; i < nseg; i++)
		seg_buf[i][34 + 16] ^= 0x5a;	/* not a checksum any more */
	join_vnet = &v;
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 6);
	assert_int_equal(flat(&pkt, got), 54 + 6000);
	assert_memory_equal(got + 54, fr.buf + 54, 6000);
	assert_int_equal(pkt.vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	v.csum_start = htole16(36);		/* not the TCP checksum */
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 1);
	v.csum_start = htole16(34);
	v.flags = 0;
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 1);
	v.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	seg_buf[2][14 + 10] ^= 1;		/* IPv4 header checksum */
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 2);
	seg_buf[2][14 + 10] ^= 1;
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 6);
	/* Metadata that says GSO frame (a carrier kept it whole): no
	 * segment, nothing joins it.
	 */
	v.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	v.gso_size = htole16(1000);
	assert_int_equal(join(&g, &pkt, hdr, 0, nseg), 1);
	join_vnet = NULL;
}

/* Two frames joined in one pass: each keeps its own headers. */
void test_gro_two_frames(void **state)
{
	struct spec s = { .tcp_flags = 0x18, .pay_len = 4000, .mss = 1000 };
	static uint8_t a[FRAME_MAX], b[FRAME_MAX];
	uint8_t hdr_a[GRO_HDR_MAX], hdr_b[GRO_HDR_MAX];
	struct gro_flow g;
	struct pkt pa, pb;
	size_t la, lb;

	(void)state;
	build(&fr, &s);
	cut(&fr);
	assert_int_equal(nseg, 4);
	assert_int_equal(join(&g, &pa, hdr_a, 0, 2), 2);
	/* The second frame: segments 2 and 3 as a frame of their own. */
	assert_int_equal(join(&g, &pb, hdr_b, 2, 4), 2);
	la = flat(&pa, a);
	lb = flat(&pb, b);
	assert_int_equal(la, 14 + 20 + 20 + 2000);
	assert_int_equal(lb, la);
	assert_int_equal(rd32(a + 34 + 4) + 2000, rd32(b + 34 + 4));
	assert_int_equal(rd16(a + 14 + 2), 2040);
	assert_memory_equal(a + 54, fr.buf + 54, 2000);
	assert_memory_equal(b + 54, fr.buf + 54 + 2000, 2000);
	assert_int_equal(a[34 + 13], 0x10);	/* PSH: the second's */
	assert_int_equal(b[34 + 13], 0x18);
}
