// SPDX-License-Identifier: GPL-2.0-or-later
/* switching.c - vdrv_itest scenarios: the switch forwards right
 *
 * Broadcast, multicast and unknown unicast reach every other port and
 * never the sender; learned unicast reaches only its target; ageing
 * forgets; frames of every size arrive intact through mergeable, chained
 * and single buffers, every TX layout and feature set, in order at full
 * burst rate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/virtio_ring.h>

#include "vdrv_itest.h"

/**
 * sc_basic() - broadcast from each port reaches all others, then unicast
 *		between learned ports reaches only its target
 */
void sc_basic(void)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned int i, j;

	it_need(3);
	it_open_all();
	for (i = 0; i < it_nports; i++) {
		it_send(&it_ports[i], bc, 10 + i, ++it_seq, 100 + i);
		for (j = 0; j < it_nports; j++)
			if (j != i)
				it_expect(&it_ports[j], 10 + i, it_seq, 100 + i,
					  "broadcast");
		it_expect_none(&it_ports[i], "broadcast hairpin");
	}
	/* Everybody is learned now: unicast goes to its target only. */
	for (i = 0; i < it_nports; i++) {
		struct it_port *dst = &it_ports[(i + 1) % it_nports];

		it_send(&it_ports[i], dst->mac, 20 + i, ++it_seq, 1514);
		it_expect(dst, 20 + i, it_seq, 1514, "learned unicast");
		for (j = 0; j < it_nports; j++)
			if (&it_ports[j] != dst)
				it_expect_none(&it_ports[j],
					       "learned unicast elsewhere");
	}
	it_close_all();
}

/**
 * sc_learning() - A->B floods; after B->A, A->B reaches B only; A->A
 *		   (learned on A's own port) reaches nobody
 */
void sc_learning(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];

	it_need(3);
	it_open_all();
	it_send(a, b->mac, 1, ++it_seq, 200);
	it_expect(b, 1, it_seq, 200, "unknown unicast A->B at B");
	it_expect(c, 1, it_seq, 200, "unknown unicast A->B flooded to C");
	it_expect_none(a, "no hairpin");
	/* A was learned from its frame: the reply goes to A only. */
	it_send(b, a->mac, 2, ++it_seq, 300);
	it_expect(a, 2, it_seq, 300, "B->A at A");
	it_expect_none(c, "B->A must not reach C (A learned)");
	it_send(a, b->mac, 3, ++it_seq, 400);
	it_expect(b, 3, it_seq, 400, "A->B at B");
	it_expect_none(c, "A->B must not reach C (B learned)");
	it_expect_none(a, "no hairpin");
	/* To a MAC learned on its own port: nowhere, neither back to the
	 * source (hairpin) nor flooded (mutant unicast-hairpin).
	 */
	it_send(a, a->mac, 4, ++it_seq, 500);
	it_expect_none(a, "A->A must not come back to A");
	it_expect_none(b, "A->A must not reach B");
	it_expect_none(c, "A->A must not reach C");
	it_close_all();
}

/**
 * sc_flood() - broadcast, multicast and unknown unicast reach every port
 *		but the source
 */
void sc_flood(void)
{
	static const uint8_t dsts[][6] = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb },
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
		{ 0x02, 0x99, 0x99, 0x99, 0x99, 0x99 },
	};
	unsigned int k, s, j;

	it_need(3);
	it_open_all();
	for (k = 0; k < IT_ARRAY_SIZE(dsts); k++) {
		for (s = 0; s < it_nports; s++) {
			it_send(&it_ports[s], dsts[k], 30 + k, ++it_seq,
				64 + k * 100);
			for (j = 0; j < it_nports; j++)
				if (j != s)
					it_expect(&it_ports[j], 30 + k, it_seq,
						  64 + k * 100, "flood");
			it_expect_none(&it_ports[s], "flood hairpin");
		}
	}
	it_close_all();
}

/**
 * sc_aging() - with --fdb-age 2, a MAC silent for 4 s floods again
 */
void sc_aging(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];

	it_need(3);
	it_open_all();
	it_send(a, b->mac, 1, ++it_seq, 100);
	it_expect(b, 1, it_seq, 100, "A->B");
	it_drain(50);
	it_send(b, a->mac, 2, ++it_seq, 100);
	it_expect(a, 2, it_seq, 100, "B->A");
	it_send(a, b->mac, 3, ++it_seq, 100);
	it_expect(b, 3, it_seq, 100, "A->B learned");
	it_expect_none(c, "A->B learned must not reach C");
	/* Silence: no frame from B's MAC for twice the ageing time. */
	it_drain(4000);
	it_send(a, b->mac, 4, ++it_seq, 100);
	it_expect(b, 4, it_seq, 100, "A->B after ageing");
	it_expect(c, 4, it_seq, 100, "A->B after ageing floods to C");
	it_close_all();
}

/**
 * sc_mrg() - MRG_RXBUF with 256-byte RX buffers: big frames span several
 *	      buffers and arrive intact; TX layouts split and indirect
 */
void sc_mrg(void)
{
	static const uint32_t lens[] = { 60, 243, 244, 245, 1000, 1514 };
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int i, nb, want;

	it_need(2);
	b->o.rx_buf_len = 256;
	b->o.required = 1ULL << VIRTIO_NET_F_MRG_RXBUF;
	a->o.tx_layout = VDRV_TX_SPLIT;
	it_open_all();
	/* B known: 300 frames in a row to an unknown MAC would be a flood,
	 * beyond A's storm budget (flood-rate).
	 */
	it_learn_all();
	for (i = 0; i < IT_ARRAY_SIZE(lens); i++) {
		it_send(a, b->mac, 5, ++it_seq, lens[i]);
		nb = it_expect(b, 5, it_seq, lens[i], "mergeable");
		want = (lens[i] + 12 + 255) / 256;
		if (nb < want)
			it_fail("B: %u-byte frame in %u buffers, needs %u",
				lens[i], nb, want);
		printf("mrg: %u bytes in %u buffers\n", lens[i], nb);
	}
	it_close(a);
	a->o.tx_layout = VDRV_TX_INDIRECT;
	a->o.required = 1ULL << VIRTIO_RING_F_INDIRECT_DESC;
	it_open(a);
	it_sync();
	for (i = 0; i < IT_ARRAY_SIZE(lens); i++) {
		it_send(a, b->mac, 6, ++it_seq, lens[i]);
		it_expect(b, 6, it_seq, lens[i], "mergeable, indirect TX");
	}
	/* Many big frames in a row: buffers wrap around the ring. */
	for (i = 0; i < 300; i++) {
		it_send(a, b->mac, 7, ++it_seq, 1514);
		it_expect(b, 7, it_seq, 1514, "mergeable wrap");
	}
	it_close_all();
}

/**
 * sc_nomrg() - without MRG_RXBUF: one buffer (or one chain) per frame
 */
void sc_nomrg(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int nb, i;

	it_need(3);
	b->o.features &= ~(1ULL << VIRTIO_NET_F_MRG_RXBUF);
	it_ports[2].o.features &= ~(1ULL << VIRTIO_NET_F_MRG_RXBUF);
	it_ports[2].o.rx_segs = 4;	/* 4 x 512-byte chained descriptors */
	it_open_all();
	it_learn_all();
	for (i = 0; i < 300; i++) {
		uint32_t len = i % 2 ? 1514 : 60 + i;

		it_send(a, b->mac, 8, ++it_seq, len);
		nb = it_expect(b, 8, it_seq, len, "no MRG_RXBUF");
		if (nb != 1)
			it_fail("B: %u buffers without MRG_RXBUF", nb);
		it_send(a, it_ports[2].mac, 9, ++it_seq, len);
		it_expect(&it_ports[2], 9, it_seq, len,
			  "no MRG_RXBUF, chained RX buffers");
	}
	it_close_all();
}

/**
 * sc_oversize() - a frame larger than the receiver's buffers is dropped
 *		   there (others still get it) and nothing is corrupted
 */
void sc_oversize(void)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	unsigned int i;

	it_need(3);
	b->o.features &= ~(1ULL << VIRTIO_NET_F_MRG_RXBUF);
	b->o.rx_buf_len = 512;
	it_open_all();
	for (i = 0; i < 5; i++) {
		it_send(a, bc, 11, ++it_seq, 1514);
		it_expect(c, 11, it_seq, 1514, "big frame at C");
		it_expect_none(b, "1514-byte frame into 512-byte buffers");
		it_send(a, bc, 12, ++it_seq, 400);
		it_expect(b, 12, it_seq, 400, "small frame after a drop");
		it_expect(c, 12, it_seq, 400, "small frame at C");
	}
	if (vdrv_stats(b->d)->dev_errors)
		it_fail("B: device broke the ring");
	it_close_all();
}

/**
 * sc_burst() - 20000 frames A->B in bursts, in order and intact
 */
void sc_burst(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	static uint8_t frames[32][1514];
	struct vdrv_tx_pkt tx[32];
	struct vdrv_rx_pkt rx[32];
	unsigned int total = 20000, sent = 0, got = 0, i;
	uint32_t base = it_seq + 1;
	int64_t deadline;

	it_need(2);
	it_open_all();
	it_exchange(a, b, 1, "learn");
	deadline = it_ms() + 20000;
	while (got < total) {
		unsigned int n = 0;
		int r;

		if (it_ms() > deadline)
			it_fail("B: %u of %u frames after 20 s", got, total);
		/* Flow control: never more in flight than B's ring holds. */
		while (n < 32 && sent + n < total && sent + n - got < 128) {
			uint32_t len = 60 + ((sent + n) * 37) % 1455;

			vdrv_pkt_test_frame(frames[n], len, b->mac, a->mac, 13,
					    base + sent + n);
			tx[n].data = frames[n];
			tx[n].len = len;
			tx[n].hdr = NULL;
			n++;
		}
		if (n) {
			r = vdrv_tx_burst(a->d, tx, n);
			if (r < 0)
				it_fail("A: tx burst: %s", strerror(-r));
			sent += (unsigned int)r;
		}
		for (i = 0; i < 32; i++) {
			rx[i].buf = frames[i];
			rx[i].cap = sizeof(frames[i]);
		}
		r = vdrv_rx_burst(b->d, rx, 32);
		if (r < 0)
			it_fail("B: rx burst: %s", strerror(-r));
		for (i = 0; i < (unsigned int)r; i++) {
			struct vdrv_test_info ti;

			if (vdrv_pkt_test_check(frames[i], rx[i].len, &ti))
				it_fail("B: corrupt frame in burst");
			if (ti.tag >= IT_PROBE_TAG)
				continue;
			if (ti.tag != 13 || ti.seq != base + got)
				it_fail("B: burst frame %u: got seq %u",
					got, ti.seq - base);
			got++;
		}
		if (!r && !n)
			vdrv_rx_wait(b->d, 100);
	}
	it_seq = base + total;
	printf("burst: %u frames, A kicks %llu (suppressed %llu), B calls %llu\n",
	       total, (unsigned long long)vdrv_stats(a->d)->kicks,
	       (unsigned long long)vdrv_stats(a->d)->kicks_suppressed,
	       (unsigned long long)vdrv_stats(b->d)->calls);
	it_close_all();
}

/**
 * sc_variants() - B in many feature/layout combinations talks to A
 */
void sc_variants(void)
{
	static const struct {
		const char *name;
		uint64_t clear;
		unsigned int qsize, segs;
		enum vdrv_tx_layout tx;
		bool no_ack;
	} v[] = {
		{ "default", 0, 256, 1, VDRV_TX_FLAT, false },
		{ "no-event-idx", 1ULL << 29, 256, 1, VDRV_TX_FLAT, false },
		{ "no-mrg", 1ULL << 15, 256, 1, VDRV_TX_SPLIT, false },
		{ "no-reply-ack", 0, 256, 1, VDRV_TX_FLAT, true },
		{ "indirect", 0, 256, 1, VDRV_TX_INDIRECT, false },
		{ "queue-64", 0, 64, 1, VDRV_TX_FLAT, false },
		{ "queue-1024", 0, 1024, 2, VDRV_TX_SPLIT, false },
		{ "legacy-hdr", 1ULL << 32 | 1ULL << 15, 256, 1,
		  VDRV_TX_FLAT, false },
		{ "legacy-mrg", 1ULL << 32, 256, 1, VDRV_TX_FLAT, false },
	};
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int i;

	it_need(2);
	it_open(a);
	for (i = 0; i < IT_ARRAY_SIZE(v); i++) {
		vdrv_opts_init(&b->o, b->path);
		b->o.features &= ~v[i].clear;
		b->o.queue_size = v[i].qsize;
		b->o.rx_segs = v[i].segs;
		b->o.tx_layout = v[i].tx;
		if (v[i].no_ack)
			b->o.protocol_features &= ~(1ULL << VDRV_PF_REPLY_ACK);
		it_open(b);
		it_sync();
		it_exchange(a, b, 20, v[i].name);
		printf("variant %s: ok (features 0x%llx)\n", v[i].name,
		       (unsigned long long)vdrv_features(b->d));
		it_close(b);
	}
	it_close_all();
}

