// SPDX-License-Identifier: GPL-2.0-or-later
/* matrix.c - every offload frame kind to every kind of receiver
 *
 * Scenario "matrix": A floods each frame of ot_matrix_frames once to
 * receivers that negotiated different GUEST_* features.  Scenario
 * "fuzz" sends the same frames with random virtio-net headers.
 */
#include <stdio.h>
#include <string.h>

#include "offload_itest.h"

/* ---- matrix: every frame kind to every kind of receiver ------------------------ */

/* OT_TCP4_MAX and friends (64 KiB frames) are in offload_itest.h. */

static const struct ot_spec ot_matrix_frames[] = {
	{ "tcp4-opts-64k", OT_PROTO_TCP, false, false, 8, 12,
	  TH_ACK | TH_PSH | TH_FIN, OT_TCP4_MAX, 1448, false, true },
	{ "tcp4-maxopts", OT_PROTO_TCP, false, false, 40, 40,
	  TH_ACK | TH_PSH, 30000, 1000, false, true },
	{ "tcp4-vlan", OT_PROTO_TCP, false, true, 0, 12, TH_ACK | TH_PSH,
	  40000, 1400, false, true },
	{ "tcp6-64k", OT_PROTO_TCP, true, false, 0, 12,
	  TH_ACK | TH_PSH | TH_FIN, OT_TCP6_MAX, 1428, false, true },
	{ "tcp6-vlan", OT_PROTO_TCP, true, true, 0, 20, TH_ACK, 20000, 1200,
	  false, true },
	{ "udp4-uso-64k", OT_PROTO_UDP, false, false, 0, 0, 0, OT_UDP4_MAX,
	  1472, false, true },
	{ "udp6-uso", OT_PROTO_UDP, true, false, 0, 0, 0, OT_UDP6_MAX, 1232,
	  false, true },
	{ "udp4-uso-vlan", OT_PROTO_UDP, false, true, 0, 0, 0, 30000, 1000,
	  false, true },
	{ "udp6-uso-vlan", OT_PROTO_UDP, true, true, 0, 0, 0, 9000, 1400,
	  false, true },
	{ "tcp4-ecn", OT_PROTO_TCP, false, false, 0, 12,
	  TH_ACK | TH_PSH | TH_CWR | TH_ECE, 20000, 1448, true, true },
	{ "tcp6-ecn", OT_PROTO_TCP, true, false, 0, 0,
	  TH_ACK | TH_CWR | TH_ECE, 10000, 1440, true, true },
	{ "tcp4-cwr-no-ecn-bit", OT_PROTO_TCP, false, false, 0, 0,
	  TH_ACK | TH_CWR, 8000, 1448, false, true },
	{ "tcp4-one-seg", OT_PROTO_TCP, false, false, 0, 12,
	  TH_ACK | TH_PSH | TH_FIN, 1000, 1448, false, true },
	/* 72 segments of 7 bytes: under the gso_size floor, dropped */
	{ "tcp4-mss-7", OT_PROTO_TCP, false, false, 4, 0, TH_ACK | TH_PSH,
	  500, 7, false, true },
	/* the floor itself is fine: 61 segments, the last of 1 byte */
	{ "tcp4-mss-88", OT_PROTO_TCP, false, false, 0, 12, TH_ACK | TH_PSH,
	  88 * 60 + 1, 88, false, true },
	/* USO: 128 segments pass, 129 are dropped */
	{ "udp4-uso-128-segs", OT_PROTO_UDP, false, false, 0, 0, 0, 1280, 10,
	  false, true },
	{ "udp4-uso-129-segs", OT_PROTO_UDP, false, false, 0, 0, 0, 1290, 10,
	  false, true },
	{ "udp4-uso-odd", OT_PROTO_UDP, false, false, 0, 0, 0, 4097, 1023,
	  false, true },
	{ "tcp4-csum-small", OT_PROTO_TCP, false, false, 8, 12, TH_ACK,
	  1001, 0, false, true },
	{ "udp6-csum-small", OT_PROTO_UDP, true, false, 0, 0, 0, 1201, 0,
	  false, true },
	{ "udp4-csum-vlan", OT_PROTO_UDP, false, true, 0, 0, 0, 333, 0,
	  false, true },
	{ "tcp4-plain", OT_PROTO_TCP, false, false, 0, 0, TH_ACK, 1400, 0,
	  false, false },
	/* Its completed checksum is 0, which UDP must send as 0xffff. */
	{ "udp4-csum-zero", OT_PROTO_UDP, false, false, 0, 0, 0, 100, 0,
	  false, true },
};

/**
 * ot_udp_zero_sum() - tune a UDP frame's payload so that its complete
 *		       checksum computes to 0 (to be sent as 0xffff)
 * @f:		NEEDS_CSUM UDP frame with at least 2 payload bytes
 */
static void ot_udp_zero_sum(struct ot_frame *f)
{
	uint8_t *b = f->buf, save[2];
	uint32_t cf = f->p.l4 + 6, l4len = f->len - f->p.l4;
	uint16_t s, d;

	memcpy(save, b + cf, 2);
	memset(b + cf, 0, 2);
	s = ot_fold(ot_pseudo(b, &f->p, l4len) + ot_sum(b + f->p.l4, l4len, 0));
	/* Adding d to one 16-bit word adds d to the sum: make it 0xffff. */
	d = (uint16_t)(0xffff - s);
	ot_put16(b + f->p.pay, ot_fold((uint64_t)ot_get16(b + f->p.pay) + d));
	if (ot_fold(ot_pseudo(b, &f->p, l4len) +
		    ot_sum(b + f->p.l4, l4len, 0)) != 0xffff)
		ot_fatal("udp4-csum-zero: sum not 0xffff");
	memcpy(b + cf, save, 2);
}

/**
 * struct ot_variant - a kind of receiver
 * @name:	name
 * @feat:	offload features it negotiates (exactly)
 * @clear:	default features it does without
 * @rx_buf_len:	RX buffer size (0 = vdrv's default)
 * @queue:	ring size (0 = default)
 */
struct ot_variant {
	const char *name;
	uint64_t feat;
	uint64_t clear;
	unsigned int rx_buf_len;
	unsigned int queue;
};

#define OT_NOMRG	F(VIRTIO_NET_F_MRG_RXBUF)
#define OT_LEGACY	(F(VIRTIO_NET_F_MRG_RXBUF) | F(VIRTIO_F_VERSION_1))

static const struct ot_variant ot_variants[] = {
	{ "B-full", OT_GUEST_ALL, 0, 0, 0 },
	{ "B-full-1536", OT_GUEST_ALL, 0, 1536, 0 },
	{ "B-full-512", OT_GUEST_ALL, 0, 512, 1024 },
	{ "B-full-nomrg", OT_GUEST_ALL, OT_NOMRG, OT_BIG_RXBUF, 64 },
	{ "B-csum", F(VIRTIO_NET_F_GUEST_CSUM), 0, 0, 0 },
	{ "B-none", 0, 0, 0, 0 },
	{ "B-none-nomrg", 0, OT_NOMRG, 0, 0 },
	{ "B-tso-noecn", F(VIRTIO_NET_F_GUEST_CSUM) |
	  F(VIRTIO_NET_F_GUEST_TSO4) | F(VIRTIO_NET_F_GUEST_TSO6), 0, 0, 0 },
	{ "B-uso4-legacy", F(VIRTIO_NET_F_GUEST_CSUM) | F(VDRV_F_GUEST_USO4),
	  OT_LEGACY, OT_BIG_RXBUF, 128 },
};

static const uint8_t ot_flood_mac[6] = { 0x02, 0x0f, 0xee, 0xee, 0xee, 0xee };

/**
 * ot_caught() - a delivery whose frames OT_MUTATE spoilt must have failed
 * @ok:		what the checks said
 * @what:	out: the result's detail
 * @mutated:	count of spoilt deliveries
 * @hits:	count of those the checks caught
 *
 * Return: true if the checks caught it; false makes the self-test fail
 */
static bool ot_caught(bool ok, char *what, unsigned int *mutated,
		      unsigned int *hits)
{
	(*mutated)++;
	if (ok)
		return ot_err("%s corruption went unnoticed",
			      ot_mut_names[ot_mut]);
	(*hits)++;
	snprintf(what, 64, "caught: %.50s", ot_why);
	ot_why[0] = '\0';
	return true;
}

/**
 * sc_matrix() - A sends every frame kind once; every receiver variant
 *		 gets it by flooding and checks its own expectation
 * @socks:	A's socket, then one per variant
 * @n:		sockets
 */
void sc_matrix(char **socks, unsigned int n)
{
	struct ot_port *a = &ot_ports[0];
	unsigned int i, v, nv = n - 1, mutated = 0, hits = 0;
	unsigned int extra[OT_PORTS_MAX], drops[OT_PORTS_MAX] = { 0 };
	bool caught[OT_PORTS_MAX];

	if (nv < 1 || nv > OT_ARRAY_SIZE(ot_variants))
		ot_fatal("matrix needs 2..%zu sockets",
			 OT_ARRAY_SIZE(ot_variants) + 1);
	ot_init_port(a, socks[0], "A", 1, OT_HOST_ALL);
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	a->o.tx_layout = VDRV_TX_SPLIT;
	for (v = 0; v < nv; v++) {
		struct ot_port *b = &ot_ports[1 + v];

		ot_init_port(b, socks[1 + v], ot_variants[v].name,
			     (uint8_t)(2 + v), ot_variants[v].feat);
		b->o.features &= ~ot_variants[v].clear;
		if (ot_variants[v].rx_buf_len)
			b->o.rx_buf_len = ot_variants[v].rx_buf_len;
		if (ot_variants[v].queue)
			b->o.queue_size = ot_variants[v].queue;
	}
	for (i = 0; i < n; i++)
		ot_open(&ot_ports[i]);
	for (v = 0; v < nv; v++) {
		uint64_t got = vdrv_features(ot_ports[1 + v].d) &
			       (OT_GUEST_ALL | OT_HOST_ALL);

		if (got != ot_variants[v].feat)
			ot_fatal("%s negotiated offloads 0x%llx, want 0x%llx",
				 ot_variants[v].name, (unsigned long long)got,
				 (unsigned long long)ot_variants[v].feat);
	}
	ot_sync(n);

	for (i = 0; i < OT_ARRAY_SIZE(ot_matrix_frames); i++) {
		const struct ot_spec *s = &ot_matrix_frames[i];

		ot_build(&ot_f, s, ot_flood_mac, a->mac, NULL, NULL,
			 (uint16_t)(40000 + i), 5001, i);
		if (!strcmp(s->name, "udp4-csum-zero"))
			ot_udp_zero_sum(&ot_f);
		ot_send(a, &ot_f);
		for (v = 0; v < nv; v++) {
			unsigned int m0 = ot_mut_frames;
			char what[64];
			bool ok = ot_expect(&ot_ports[1 + v], &ot_f, true, NULL,
					    what);

			if (ot_decide(&ot_f, vdrv_features(ot_ports[1 + v].d)) ==
			    OT_DROP)
				drops[v]++;
			caught[v] = ot_mut_frames != m0;
			if (caught[v])
				ok = ot_caught(ok, what, &mutated, &hits);
			ot_report(ok, s->name, ot_variants[v].name, what);
		}
		memset(extra, 0, sizeof(extra));
		ot_drain(n, 30, extra);
		for (v = 0; v < nv; v++)
			/* A caught delivery may leave segments unread. */
			if (extra[1 + v] && !caught[v]) {
				ot_err("%u unexpected extra frames", extra[1 + v]);
				ot_report(false, s->name, ot_variants[v].name, "");
			}
	}
	if (ot_mut)
		printf("selftest %s: caught %u of %u mutated deliveries\n",
		       ot_mut_names[ot_mut], hits, mutated);
	/* Each frame the table drops is counted once at each receiver. */
	printf("COUNTER vu0 offload 0\n");
	for (v = 0; v < nv; v++)
		printf("COUNTER vu%u offload %u\n", 1 + v, drops[v]);
	for (i = 0; i < n; i++)
		ot_close(&ot_ports[i]);
}

/* ---- fuzz: random offload metadata on valid frames ------------------------------ */

/**
 * ot_rand() - xorshift32, reproducible from a fixed seed
 * Return: next value
 */
static uint32_t ot_rand(void)
{
	static uint32_t x = 0x2545f491;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/**
 * ot_rand_u16() - a 16-bit value biased towards the edges
 * @len:	frame length, for values near it
 * Return: value
 */
static uint16_t ot_rand_u16(uint32_t len)
{
	static const uint16_t edge[] = { 0, 1, 2, 6, 13, 14, 16, 17, 18, 34,
					 54, 0x7fff, 0xfffe, 0xffff };

	switch (ot_rand() % 4) {
	case 0:
		return edge[ot_rand() % OT_ARRAY_SIZE(edge)];
	case 1:
		return (uint16_t)(len - 20 + ot_rand() % 40);
	case 2:
		return (uint16_t)(ot_rand() % 80);
	default:
		return (uint16_t)ot_rand();
	}
}

/**
 * sc_fuzz() - A sends valid frames with random virtio-net headers to B
 *	       (every GUEST_* offload) and C (none); vhostd must stay up,
 *	       never hand C an offload header (vdrv counts that), and keep
 *	       forwarding: every 64 frames a canary must get through
 * @socks:	A, B, C
 * @n:		3
 */
void sc_fuzz(char **socks, unsigned int n)
{
	static const uint8_t gso_types[] = { 0, 1, 3, 4, 5, 2, 6, 0x81, 0x84,
					     0x85, 0x80, 0x21, 0x41, 0xff };
	struct ot_port *a = &ot_ports[0], *b = &ot_ports[1], *c = &ot_ports[2];
	unsigned int i, iters = 3000;
	uint32_t seq = 0;

	if (n != 3)
		ot_fatal("fuzz needs A B C");
	ot_init_port(a, socks[0], "A", 1, OT_HOST_ALL);
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	ot_init_port(b, socks[1], "B", 2, OT_GUEST_ALL);
	ot_init_port(c, socks[2], "C", 3, 0);
	for (i = 0; i < n; i++)
		ot_open(&ot_ports[i]);
	ot_sync(n);
	ot_announce(b);
	ot_announce(c);
	ot_drain(n, 50, NULL);
	for (i = 0; i < iters; i++) {
		const struct ot_spec *base =
			&ot_matrix_frames[ot_rand() % OT_ARRAY_SIZE(ot_matrix_frames)];
		struct virtio_net_hdr_v1 *h = &ot_f.hdr;
		struct ot_spec s = *base;

		s.payload = ot_rand() % (s.payload + 1);
		if (s.gso_size)
			s.gso_size = (uint16_t)(1 + ot_rand() % 9000);
		ot_build(&ot_f, &s, ot_flood_mac, a->mac, NULL, NULL, 46000,
			 5001, i);
		switch (ot_rand() % 6) {
		case 0:
			h->flags = (uint8_t)ot_rand();
			break;
		case 1:
			h->gso_type = gso_types[ot_rand() % sizeof(gso_types)];
			break;
		case 2:
			h->gso_size = ot_rand_u16(ot_f.len);
			break;
		case 3:
			h->csum_start = ot_rand_u16(ot_f.len);
			break;
		case 4:
			h->csum_offset = ot_rand_u16(ot_f.len);
			break;
		default:
			h->flags = (uint8_t)ot_rand();
			h->gso_type = gso_types[ot_rand() % sizeof(gso_types)];
			h->gso_size = ot_rand_u16(ot_f.len);
			h->csum_start = ot_rand_u16(ot_f.len);
			h->csum_offset = ot_rand_u16(ot_f.len);
			break;
		}
		ot_send(a, &ot_f);
		if (i % 8 == 7)
			ot_drain(n, 0, NULL);
		if (i % 64 == 63) {
			ot_settle(a);
			ot_drain(n, 20, NULL);
			if (!ot_canary(a, b, ++seq) || !ot_canary(a, c, ++seq)) {
				ot_report(false, "fuzz", "B/C", "");
				break;
			}
		}
	}
	ot_drain(n, 50, NULL);
	if (i == iters) {
		char what[64];

		snprintf(what, sizeof(what), "%u random headers, forwarding intact",
			 iters);
		ot_report(true, "fuzz", "B-full/C-none", what);
	}
	for (i = 0; i < n; i++)
		ot_close(&ot_ports[i]);
}
