// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_itest.c - switch scenarios, played by vdrv "guests" against vhostd
 *
 *   vdrv_itest SCENARIO SOCK [SOCK...]
 *
 * run.sh starts vhostd with one vhost-user port per SOCK and runs one
 * scenario; this program opens the ports itself (one vdrv device each,
 * all in this thread) and checks every frame's content, not just counts:
 * test frames carry tag, sequence, length and a pattern (vdrv_pkt.h).
 * Exit status 0 = pass; each failure prints "FAIL: why" on stderr.
 *
 * Scenarios: basic, learning, flood, aging, mrg, nomrg, oversize,
 * reconnect, burst, variants, client (first SOCK is ours to listen on),
 * evil:KIND (last SOCK is the evil port's).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/virtio_ring.h>

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"

#define IT_PORTS_MAX	8
#define IT_FRAME_MAX	9216
#define IT_PROBE_TAG	0xfffff000u
#define IT_QUIET_MS	300
#define IT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct it_port - one vdrv guest of the test
 * @d:		device, NULL while closed
 * @path:	its socket
 * @mac:	its MAC (02:00:00:00:<run>:<idx+1>)
 * @o:		options it is opened with
 * @name:	"A", "B", ...
 */
struct it_port {
	struct vdrv_dev *d;
	const char *path;
	uint8_t mac[6];
	struct vdrv_opts o;
	char name[2];
};

static struct it_port it_ports[IT_PORTS_MAX];
static unsigned int it_nports;
static uint8_t it_buf[IT_FRAME_MAX], it_frame[IT_FRAME_MAX];
static uint32_t it_seq;

/**
 * it_fail() - report a failure and exit 1
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
it_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/**
 * it_ms() - monotonic ms
 * Return: ms
 */
static int64_t it_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * it_open() - open port @p with its options
 * @p:	port
 */
static void it_open(struct it_port *p)
{
	int ret = vdrv_open(&p->o, &p->d);

	if (ret)
		it_fail("%s: open %s: %s", p->name, p->path, strerror(-ret));
}

/**
 * it_close() - close port @p cleanly, checking the device stayed sane
 * @p:	port
 */
static void it_close(struct it_port *p)
{
	const struct vdrv_stats *st = vdrv_stats(p->d);
	int64_t end = it_ms() + 2000;
	uint16_t bases[VDRV_NRINGS], used[VDRV_NRINGS];
	uint64_t errs, sent;
	int ret;

	/* Everything sent must come back before the ring stops... */
	while (st->tx_completed < st->tx_packets && it_ms() < end &&
	       vdrv_tx_reclaim(p->d) >= 0)
		usleep(1000);
	if (st->tx_completed != st->tx_packets)
		it_fail("%s: %llu of %llu TX buffers never returned", p->name,
			(unsigned long long)st->tx_completed,
			(unsigned long long)st->tx_packets);
	errs = st->dev_errors;
	sent = st->tx_packets;
	ret = vdrv_close_used(p->d, bases, used);
	p->d = NULL;
	if (ret)
		it_fail("%s: close (GET_VRING_BASE): %s", p->name,
			strerror(-ret));
	if (errs)
		it_fail("%s: device broke the virtio rules %llu times",
			p->name, (unsigned long long)errs);
	/* ...and then the device's TX avail index is exactly ours. */
	if (bases[VDRV_TX_RING] != (uint16_t)sent)
		it_fail("%s: GET_VRING_BASE(TX) %u, we made %u available",
			p->name, bases[VDRV_TX_RING], (uint16_t)sent);
	/* RX chains vhostd held ready (port_vhost_stage(), direct reads)
	 * but never filled must come back with the stop: a base past the
	 * used index would be buffers lost to the guest.
	 */
	if (!ret && bases[VDRV_RX_RING] != used[VDRV_RX_RING])
		it_fail("%s: GET_VRING_BASE(RX) %u, but the device used %u",
			p->name, bases[VDRV_RX_RING], used[VDRV_RX_RING]);
}

/**
 * it_send() - send one test frame
 * @p:		sender
 * @dst:	destination MAC
 * @tag:	tag
 * @seq:	sequence
 * @len:	length
 */
static void it_send(struct it_port *p, const uint8_t dst[6], uint32_t tag,
		    uint32_t seq, uint32_t len)
{
	int ret;

	vdrv_pkt_test_frame(it_frame, len, dst, p->mac, tag, seq);
	ret = vdrv_send(p->d, it_frame, len);
	if (ret)
		it_fail("%s: send: %s", p->name, strerror(-ret));
}

/**
 * it_recv() - receive the next test frame that is not a probe
 * @p:		port
 * @ti:		out: what the frame says
 * @pkt:	out: the rx descriptor (length, header, nbufs)
 * @timeout_ms:	limit
 * Return: true if one arrived (intact; corruption fails the test)
 */
static bool it_recv(struct it_port *p, struct vdrv_test_info *ti,
		    struct vdrv_rx_pkt *pkt, int timeout_ms)
{
	int64_t deadline = it_ms() + timeout_ms;

	for (;;) {
		int64_t left = deadline - it_ms();
		int ret;

		memset(pkt, 0, sizeof(*pkt));
		pkt->buf = it_buf;
		pkt->cap = sizeof(it_buf);
		if (left < 0)
			left = 0;
		ret = vdrv_recv(p->d, pkt, (int)left);
		if (ret < 0)
			it_fail("%s: receive: %s (dev_errors %llu)", p->name,
				strerror(-ret), (unsigned long long)
				vdrv_stats(p->d)->dev_errors);
		if (!ret)
			return false;
		if (pkt->truncated)
			it_fail("%s: %u-byte frame larger than any we send",
				p->name, pkt->len);
		ret = vdrv_pkt_test_check(it_buf, pkt->len, ti);
		if (ret == -ENOMSG)
			continue;	/* not ours: e.g. IPv6 noise */
		if (ret)
			it_fail("%s: corrupt frame (len %u, tag %u, seq %u)",
				p->name, pkt->len, ti->tag, ti->seq);
		if (ti->tag >= IT_PROBE_TAG)
			continue;
		return true;
	}
}

/**
 * it_expect() - the next frame at @p must be (@tag, @seq, @len)
 * @p:		receiver
 * @tag:	expected tag
 * @seq:	expected sequence
 * @len:	expected length
 * @what:	description for the failure message
 * Return: RX buffers the frame used
 */
static unsigned int it_expect(struct it_port *p, uint32_t tag, uint32_t seq,
			      uint32_t len, const char *what)
{
	struct vdrv_test_info ti;
	struct vdrv_rx_pkt pkt;

	if (!it_recv(p, &ti, &pkt, 2000))
		it_fail("%s: %s: frame (tag %u seq %u) never arrived", p->name,
			what, tag, seq);
	if (ti.tag != tag || ti.seq != seq || pkt.len != len)
		it_fail("%s: %s: got tag %u seq %u len %u, want %u/%u/%u",
			p->name, what, ti.tag, ti.seq, pkt.len, tag, seq, len);
	return pkt.nbufs;
}

/**
 * it_expect_none() - nothing but probes may arrive at @p for a while
 * @p:		port
 * @what:	description for the failure message
 */
static void it_expect_none(struct it_port *p, const char *what)
{
	struct vdrv_test_info ti;
	struct vdrv_rx_pkt pkt;

	if (it_recv(p, &ti, &pkt, IT_QUIET_MS))
		it_fail("%s: %s: unexpected frame tag %u seq %u len %u",
			p->name, what, ti.tag, ti.seq, pkt.len);
}

/**
 * it_drain() - discard whatever is queued at every open port
 * @ms:	how long to keep draining
 */
static void it_drain(int ms)
{
	int64_t end = it_ms() + ms;
	unsigned int i;

	do {
		for (i = 0; i < it_nports; i++) {
			struct vdrv_rx_pkt pk = { .buf = NULL };

			if (it_ports[i].d)
				while (vdrv_rx_burst(it_ports[i].d, &pk, 1) > 0)
					;
		}
		usleep(10000);
	} while (it_ms() < end);
}

/**
 * it_sync() - wait until every open port's frames reach every other one
 *
 * vhostd starts a port's datapath asynchronously after the handshake, so
 * the first frames may legitimately be dropped.  Probes come from MACs of
 * their own (02:fe:...), so they teach the switch nothing about ours.
 */
static void it_sync(void)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	bool seen[IT_PORTS_MAX][IT_PORTS_MAX];
	int64_t deadline = it_ms() + 5000;
	unsigned int i, j, missing;

	memset(seen, 0, sizeof(seen));
	do {
		for (i = 0; i < it_nports; i++) {
			uint8_t mac[6] = { 0x02, 0xfe, 0, 0, 0, (uint8_t)i };
			int ret;

			if (!it_ports[i].d)
				continue;
			vdrv_pkt_test_frame(it_frame, 64, bc, mac,
					    IT_PROBE_TAG + i, 0);
			ret = vdrv_send(it_ports[i].d, it_frame, 64);
			if (ret)
				it_fail("%s: probe: %s", it_ports[i].name,
					strerror(-ret));
		}
		usleep(20000);
		for (j = 0; j < it_nports; j++) {
			struct vdrv_rx_pkt pk;
			struct vdrv_test_info ti;

			if (!it_ports[j].d)
				continue;
			for (;;) {
				memset(&pk, 0, sizeof(pk));
				pk.buf = it_buf;
				pk.cap = sizeof(it_buf);
				if (vdrv_rx_burst(it_ports[j].d, &pk, 1) <= 0)
					break;
				if (!vdrv_pkt_test_check(it_buf, pk.len, &ti) &&
				    ti.tag >= IT_PROBE_TAG &&
				    ti.tag - IT_PROBE_TAG < it_nports)
					seen[ti.tag - IT_PROBE_TAG][j] = true;
			}
		}
		missing = 0;
		for (i = 0; i < it_nports; i++)
			for (j = 0; j < it_nports; j++)
				if (i != j && it_ports[i].d && it_ports[j].d &&
				    !seen[i][j])
					missing++;
	} while (missing && it_ms() < deadline);
	if (missing)
		it_fail("ports never all reached each other (%u pairs)",
			missing);
	it_drain(100);
}

/**
 * it_exchange() - @n frames each way between @a and @b, all checked
 * @a:		one port
 * @b:		the other
 * @n:		frames per direction
 * @what:	description
 */
static void it_exchange(struct it_port *a, struct it_port *b, unsigned int n,
			const char *what)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t len = 60 + (i * 97) % 1455;

		it_send(a, b->mac, 1, ++it_seq, len);
		it_expect(b, 1, it_seq, len, what);
		it_send(b, a->mac, 2, ++it_seq, len);
		it_expect(a, 2, it_seq, len, what);
	}
}

/**
 * it_setup() - name the ports, give them MACs and default options
 * @argc:	argument count
 * @argv:	arguments (argv[2..] are sockets)
 */
static void it_setup(int argc, char **argv)
{
	unsigned int i;
	uint8_t run = (uint8_t)(getpid() & 0xff);

	it_nports = (unsigned int)(argc - 2);
	if (it_nports > IT_PORTS_MAX)
		it_fail("at most %d ports", IT_PORTS_MAX);
	for (i = 0; i < it_nports; i++) {
		struct it_port *p = &it_ports[i];

		p->path = argv[2 + i];
		memcpy(p->mac, (uint8_t[6]){ 0x02, 0, 0, 0, run,
					     (uint8_t)(i + 1) }, 6);
		vdrv_opts_init(&p->o, p->path);
		p->name[0] = (char)('A' + i);
	}
}

/**
 * it_need() - fail unless at least @n ports were given
 * @n:	ports needed
 */
static void it_need(unsigned int n)
{
	if (it_nports < n)
		it_fail("scenario needs %u sockets", n);
}

/**
 * it_open_all() - open every port and wait until they all see each other
 */
static void it_open_all(void)
{
	unsigned int i;

	for (i = 0; i < it_nports; i++)
		if (!it_ports[i].d)
			it_open(&it_ports[i]);
	it_sync();
}

/**
 * it_learn_all() - every open port sends one broadcast from its own MAC,
 *		    so unicast to any of them is known, not flooded
 */
static void it_learn_all(void)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned int i;

	for (i = 0; i < it_nports; i++)
		if (it_ports[i].d)
			it_send(&it_ports[i], bc, IT_PROBE_TAG + 200, 0, 64);
	it_drain(100);
}

/**
 * it_close_all() - close every open port
 */
static void it_close_all(void)
{
	unsigned int i;

	for (i = 0; i < it_nports; i++)
		if (it_ports[i].d)
			it_close(&it_ports[i]);
}

/**
 * sc_basic() - broadcast from each port reaches all others, then unicast
 *		between learned ports reaches only its target
 */
static void sc_basic(void)
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
 * sc_learning() - A->B floods; after B->A, A->B reaches B only
 */
static void sc_learning(void)
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
	it_close_all();
}

/**
 * sc_flood() - broadcast, multicast and unknown unicast reach every port
 *		but the source
 */
static void sc_flood(void)
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
static void sc_aging(void)
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
static void sc_mrg(void)
{
	static const uint32_t lens[] = { 60, 243, 244, 245, 1000, 1514 };
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int i, nb, want;

	it_need(2);
	b->o.rx_buf_len = 256;
	b->o.required = 1ULL << VIRTIO_NET_F_MRG_RXBUF;
	a->o.tx_layout = VDRV_TX_SPLIT;
	it_open_all();
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
static void sc_nomrg(void)
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
static void sc_oversize(void)
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
 * sc_reconnect() - B leaves (cleanly, then abruptly) and comes back
 */
static void sc_reconnect(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int round;

	it_need(2);
	it_open_all();
	it_exchange(a, b, 5, "before reconnect");
	for (round = 0; round < 4; round++) {
		unsigned int i;

		/* Leave with frames in flight towards B, unread. */
		for (i = 0; i < 300; i++)
			it_send(a, b->mac, 4, ++it_seq, 1514);
		if (round % 2)
			vdrv_abort(b->d);
		else
			it_close(b);
		b->d = NULL;
		it_open(b);
		it_sync();
		it_exchange(a, b, 5, round % 2 ? "after abrupt reconnect" :
				     "after clean reconnect");
	}
	it_close_all();
}

/**
 * sc_burst() - 20000 frames A->B in bursts, in order and intact
 */
static void sc_burst(void)
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
static void sc_variants(void)
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

/**
 * sc_evil() - one port misbehaves: it alone is dropped, A and B go on
 * @kind:	what the evil port does
 */
static void sc_evil(const char *kind)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *e = &it_ports[2];
	int k = vdrv_evil_parse(kind), ret = -ETIMEDOUT;
	int64_t deadline;

	it_need(3);
	if (k < 0)
		it_fail("unknown evil kind %s", kind);
	it_open_all();
	it_exchange(a, b, 3, "before evil");
	ret = vdrv_evil(e->d, (enum vdrv_evil)k);
	if (ret)
		it_fail("E: could not commit %s: %s", kind, strerror(-ret));
	/* Traffic towards E triggers the RX kinds and must not stall A. */
	deadline = it_ms() + 3000;
	while (it_ms() < deadline) {
		it_send(a, bc, IT_PROBE_TAG + 100, 0, 64);
		ret = vdrv_wait_hangup(e->d, 100);
		if (ret != -ETIMEDOUT)
			break;
	}
	if (ret == 1 && (k == VDRV_EVIL_UNKNOWN || k == VDRV_EVIL_BAD_RING)) {
		/* Refusing with a NACK and carrying on is what the spec
		 * asks for an unsupported request: E must still work.
		 */
		printf("evil %s: nacked, connection kept\n", kind);
		it_drain(100);
		it_exchange(a, e, 3, "after NACK");
		it_close(e);
	} else if (ret == 0) {
		printf("evil %s: dropped\n", kind);
		vdrv_abort(e->d);
		e->d = NULL;
	} else {
		it_fail("E: %s: vhostd did not drop the connection (%s)", kind,
			ret == 1 ? "nacked" : ret == -EPROTO ? "acked" :
			strerror(-ret));
	}
	it_drain(100);
	it_exchange(a, b, 50, "after evil");
	it_close(a);
	it_close(b);
	/* The evil port's socket must accept a well-behaved guest again. */
	if (!e->d) {
		it_open(e);
		it_close(e);
	}
}

/**
 * sc_client() - vhostd connects to us (client port): A listens
 */
static void sc_client(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];

	it_need(2);
	a->o.listen = true;
	a->o.timeout_ms = 10000;
	it_open(a);
	it_open(b);
	it_sync();
	it_exchange(a, b, 20, "client-mode port");
	it_close_all();
}

/**
 * main() - run one scenario
 * @argc:	count
 * @argv:	SCENARIO SOCK...
 * Return: 0 pass, 1 fail, 2 usage
 */
int main(int argc, char **argv)
{
	const char *sc;

	if (argc < 3) {
		fprintf(stderr, "usage: vdrv_itest SCENARIO SOCK [SOCK...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sc = argv[1];
	it_setup(argc, argv);
	if (!strcmp(sc, "basic"))
		sc_basic();
	else if (!strcmp(sc, "learning"))
		sc_learning();
	else if (!strcmp(sc, "flood"))
		sc_flood();
	else if (!strcmp(sc, "aging"))
		sc_aging();
	else if (!strcmp(sc, "mrg"))
		sc_mrg();
	else if (!strcmp(sc, "nomrg"))
		sc_nomrg();
	else if (!strcmp(sc, "oversize"))
		sc_oversize();
	else if (!strcmp(sc, "reconnect"))
		sc_reconnect();
	else if (!strcmp(sc, "burst"))
		sc_burst();
	else if (!strcmp(sc, "variants"))
		sc_variants();
	else if (!strcmp(sc, "client"))
		sc_client();
	else if (!strncmp(sc, "evil:", 5))
		sc_evil(sc + 5);
	else {
		fprintf(stderr, "unknown scenario %s\n", sc);
		return 2;
	}
	return 0;
}
