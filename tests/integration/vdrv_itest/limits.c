// SPDX-License-Identifier: GPL-2.0-or-later
/* limits.c - vdrv_itest scenarios at the edges: a guest's MTU, many ports
 *
 * mtu: a guest that announced MTU 1000 with NET_SET_MTU (what QEMU sends
 * for host_mtu=) is promised, by the virtio spec, no frame longer than the
 * MTU plus the Ethernet header -- 1014 bytes, 1018 behind one 802.1Q tag.
 * Longer ones are dropped at it and counted (too_big); every frame still
 * reaches a guest without an MTU intact.
 *
 * scale: every port floods to every other and reaches every other by
 * learned unicast, all at once rather than pair by pair, with as many
 * ports and workers as the runner gives (16 ports, 6 workers).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vdrv_itest.h"

#define MTU_GUEST	1000
#define MTU_MAX_PLAIN	(MTU_GUEST + 14)
#define MTU_MAX_VLAN	(MTU_GUEST + 14 + 4)
#define MTU_MARK_LEN	64
#define SCALE_BC_TAG	0x5000u
#define SCALE_UC_TAG	0x6000u
/* A scale frame's tag: base + sender * SCALE_STRIDE + destination. */
#define SCALE_STRIDE	(IT_PORTS_MAX + 1)

/**
 * mtu_frame() - a test frame, optionally behind an 802.1Q tag
 * @buf:	IT_FRAME_MAX bytes
 * @len:	whole frame length, tag included
 * @vlan:	insert a tag (TPID 0x8100, VID 100) after the MACs
 * @src:	sender
 * @dst:	destination MAC
 * @seq:	sequence number
 *
 * The payload is a test frame of @len (or @len - 4) bytes, so the bytes
 * are all known: a receiver compares the whole frame.
 */
static void mtu_frame(uint8_t *buf, uint32_t len, bool vlan,
		      const struct it_port *src, const uint8_t dst[6],
		      uint32_t seq)
{
	static uint8_t tmp[IT_FRAME_MAX];

	if (!vlan) {
		vdrv_pkt_test_frame(buf, len, dst, src->mac, 50, seq);
		return;
	}
	vdrv_pkt_test_frame(tmp, len - 4, dst, src->mac, 51, seq);
	memcpy(buf, tmp, 12);
	buf[12] = 0x81;
	buf[13] = 0x00;
	buf[14] = 0x00;
	buf[15] = 100;
	memcpy(buf + 16, tmp + 12, len - 16);
}

/**
 * mtu_next() - the next frame at @p that is not a probe
 * @p:		receiver
 * @pkt:	out: what arrived (in it_buf)
 * @timeout_ms:	limit
 * Return: true if one arrived
 */
static bool mtu_next(struct it_port *p, struct vdrv_rx_pkt *pkt,
		     int timeout_ms)
{
	int64_t deadline = it_ms() + timeout_ms;

	for (;;) {
		struct vdrv_test_info ti;
		int64_t left = deadline - it_ms();
		int ret;

		memset(pkt, 0, sizeof(*pkt));
		pkt->buf = it_buf;
		pkt->cap = sizeof(it_buf);
		ret = vdrv_recv(p->d, pkt, left > 0 ? (int)left : 0);
		if (ret < 0)
			it_fail("%s: receive: %s", p->name, strerror(-ret));
		if (!ret)
			return false;
		if (!vdrv_pkt_test_check(it_buf, pkt->len, &ti) &&
		    ti.tag >= IT_PROBE_TAG)
			continue;
		return true;
	}
}

/**
 * mtu_expect() - the next frame at @p must be exactly @f
 * @p:		receiver
 * @f:		the frame as sent
 * @len:	its length
 * @what:	for the failure message
 */
static void mtu_expect(struct it_port *p, const uint8_t *f, uint32_t len,
		       const char *what)
{
	struct vdrv_rx_pkt pkt;

	if (!mtu_next(p, &pkt, 2000))
		it_fail("%s: %s: %u-byte frame never arrived", p->name, what,
			len);
	if (pkt.truncated || pkt.len != len || memcmp(it_buf, f, len))
		it_fail("%s: %s: got a %u-byte frame, want the %u-byte one "
			"sent", p->name, what, pkt.len, len);
}

/**
 * sc_mtu() - B announced MTU 1000: it gets frames up to 1014 bytes (1018
 *	      with a VLAN tag), never longer; C (no MTU) gets them all
 */
void sc_mtu(void)
{
	static const struct {
		uint32_t len;
		bool vlan;
	} cases[] = {
		{ 60, false }, { 999, false }, { 1013, false },
		{ MTU_MAX_PLAIN, false }, { MTU_MAX_PLAIN + 1, false },
		{ MTU_MAX_PLAIN + 2, false }, { MTU_MAX_VLAN, false },
		{ MTU_MAX_VLAN + 1, false }, { 1400, false }, { 1514, false },
		{ 64, true }, { MTU_MAX_VLAN - 1, true },
		{ MTU_MAX_VLAN, true }, { MTU_MAX_VLAN + 1, true },
		{ 1518, true },
	};
	static uint8_t f[IT_FRAME_MAX], mark[MTU_MARK_LEN];
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	unsigned long long tb_b, tb_c, viol;
	struct vdrv_rx_pkt pkt;
	unsigned int i, u, dropped = 0, delivered = 0;

	it_need(3);
	b->o.mtu = MTU_GUEST;
	it_open_all();
	it_learn_all();
	tb_b = it_ctr(b->vu, "\"too_big\":");
	tb_c = it_ctr(c->vu, "\"too_big\":");

	/* Each case twice: flooded (broadcast) and as learned unicast.
	 * After a frame B must not get, a small marker follows: frames of
	 * one sender arrive in order, so B's next frame must be the marker.
	 */
	for (u = 0; u < 2; u++) {
		const uint8_t *dst = u ? b->mac : it_bcast;

		for (i = 0; i < IT_ARRAY_SIZE(cases); i++) {
			uint32_t len = cases[i].len;
			uint32_t max = cases[i].vlan ? MTU_MAX_VLAN :
						       MTU_MAX_PLAIN;
			char what[80];

			snprintf(what, sizeof(what), "%s %u-byte %s frame",
				 u ? "unicast" : "broadcast", len,
				 cases[i].vlan ? "tagged" : "untagged");
			mtu_frame(f, len, cases[i].vlan, a, dst, ++it_seq);
			if (vdrv_send(a->d, f, len))
				it_fail("A: send %s", what);
			if (!u)
				mtu_expect(c, f, len, what);
			if (len <= max) {
				mtu_expect(b, f, len, what);
				delivered++;
				continue;
			}
			dropped++;
			mtu_frame(mark, MTU_MARK_LEN, false, a, dst, ++it_seq);
			if (vdrv_send(a->d, mark, MTU_MARK_LEN))
				it_fail("A: send marker");
			if (!u)
				mtu_expect(c, mark, MTU_MARK_LEN, "marker");
			mtu_expect(b, mark, MTU_MARK_LEN,
				   "marker after a frame over B's MTU");
			printf("mtu: %s dropped at B\n", what);
		}
	}
	/* mtu_next(), not it_expect_none(): a tagged frame is no test
	 * frame, and must be seen too.
	 */
	if (mtu_next(b, &pkt, IT_QUIET_MS))
		it_fail("B: a %u-byte frame after the last marker", pkt.len);
	if (mtu_next(c, &pkt, IT_QUIET_MS))
		it_fail("C: a %u-byte frame: unicast to B flooded", pkt.len);

	/* Every frame A sent has been forwarded, so the drops are counted:
	 * exactly the frames over B's MTU, none at C.
	 */
	it_tx_settle(a);
	tb_b = it_ctr(b->vu, "\"too_big\":") - tb_b;
	tb_c = it_ctr(c->vu, "\"too_big\":") - tb_c;
	if (tb_b != dropped || tb_c)
		it_fail("too_big counted %llu at B (want %u), %llu at C "
			"(want 0)", tb_b, dropped, tb_c);
	for (i = 0; i < 3; i++) {
		viol = it_ctr(it_ports[i].vu, "\"violations\":");
		if (viol)
			it_fail("%s: %llu violations", it_ports[i].name, viol);
	}
	printf("mtu: B got %u frames within MTU %d, %u longer ones dropped "
	       "and counted\n", delivered, MTU_GUEST, dropped);
	it_close_all();
}

/**
 * scale_len() - frame length of one (sender, receiver, round)
 * @s:		sender index
 * @r:		receiver index (or it_nports for a broadcast)
 * @round:	round
 * Return: 60..1514
 */
static uint32_t scale_len(unsigned int s, unsigned int r, unsigned int round)
{
	if (round == 1)
		return 1514;
	return 60 + ((s * 31 + r * 17 + round * 7) * 13) % 1455;
}

/**
 * scale_collect() - every port gets exactly one frame from each sender
 * @tag:	tag base: a frame's tag is @tag + sender * SCALE_STRIDE + dst
 *		(dst = it_nports for broadcasts)
 * @bcast:	broadcast round (every other port is a sender for each
 *		receiver) or unicast round (idem, addressed to it)
 * @round:	for the lengths
 *
 * Nothing else may arrive: no hairpin, no copy of another port's
 * unicast, no duplicate; checked again over a quiet period at the end.
 */
static void scale_collect(uint32_t tag, bool bcast, unsigned int round)
{
	bool seen[IT_PORTS_MAX];
	unsigned int r, n, s, dst;

	for (r = 0; r < it_nports; r++) {
		struct it_port *p = &it_ports[r];
		int64_t deadline = it_ms() + 10000;

		memset(seen, 0, sizeof(seen));
		for (n = 0; n + 1 < it_nports; n++) {
			struct vdrv_test_info ti;
			struct vdrv_rx_pkt pkt;
			int64_t left = deadline - it_ms();

			if (!it_recv(p, &ti, &pkt, left > 0 ? (int)left : 0))
				it_fail("%s: %u of %u %s frames", p->name, n,
					it_nports - 1,
					bcast ? "broadcast" : "unicast");
			if (ti.tag < tag ||
			    ti.tag - tag >= SCALE_STRIDE * IT_PORTS_MAX)
				it_fail("%s: stray frame tag %#x", p->name,
					ti.tag);
			s = (ti.tag - tag) / SCALE_STRIDE;
			dst = (ti.tag - tag) % SCALE_STRIDE;
			if (s >= it_nports || s == r)
				it_fail("%s: frame from %s", p->name,
					s == r ? "itself (hairpin)" :
					"no port");
			if (dst != (bcast ? it_nports : r))
				it_fail("%s: got %s's frame for port %u",
					p->name, it_ports[s].name, dst);
			if (seen[s])
				it_fail("%s: two frames from %s", p->name,
					it_ports[s].name);
			if (memcmp(ti.src, it_ports[s].mac, 6) ||
			    pkt.len != scale_len(s, dst, round))
				it_fail("%s: frame from %s: wrong source or "
					"length %u", p->name,
					it_ports[s].name, pkt.len);
			seen[s] = true;
		}
	}
	/* One quiet period for all: nothing may follow anywhere. */
	for (r = 0; r < it_nports; r++) {
		struct vdrv_test_info ti;
		struct vdrv_rx_pkt pkt;

		if (it_recv(&it_ports[r], &ti, &pkt, r ? 0 : IT_QUIET_MS))
			it_fail("%s: unexpected frame tag %#x after the %s "
				"round", it_ports[r].name, ti.tag,
				bcast ? "broadcast" : "unicast");
	}
}

/**
 * sc_scale() - many ports: broadcast from each reaches all others, learned
 *		unicast between every pair reaches only its target
 */
void sc_scale(void)
{
	unsigned int round, s, r;

	it_need(2);
	it_open_all();
	for (round = 0; round < 2; round++) {
		/* The broadcast round also teaches the switch every MAC. */
		for (s = 0; s < it_nports; s++)
			it_send(&it_ports[s], it_bcast,
				SCALE_BC_TAG + s * SCALE_STRIDE + it_nports,
				++it_seq, scale_len(s, it_nports, round));
		scale_collect(SCALE_BC_TAG, true, round);
		for (s = 0; s < it_nports; s++)
			for (r = 0; r < it_nports; r++)
				if (r != s)
					it_send(&it_ports[s], it_ports[r].mac,
						SCALE_UC_TAG +
						s * SCALE_STRIDE + r, ++it_seq,
						scale_len(s, r, round));
		scale_collect(SCALE_UC_TAG, false, round);
		printf("scale: round %u: %u broadcasts reached %u ports each, "
		       "%u unicast pairs only their target\n", round,
		       it_nports, it_nports - 1, it_nports * (it_nports - 1));
	}
	it_close_all();
}
