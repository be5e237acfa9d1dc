// SPDX-License-Identifier: GPL-2.0-or-later
/* csum.c - checksum completion: gso_csum_fill() and gso_csum_store()
 *
 * NEEDS_CSUM frames completed into split destinations, hostile csum
 * metadata, and UDP's computed 0 that must go out as 0xffff.
 */
#include <stdlib.h>
#include <string.h>

#include "test_gso.h"

/* ---- checksum completion ---- */

void test_csum_fill(void **state)
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

void test_csum_fill_hostile(void **state)
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

void test_udp_zero_csum(void **state)
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
