// SPDX-License-Identifier: GPL-2.0-or-later
/* soak.c - mixed traffic, hostile sources and port churn for a long time
 *
 *   soak SECONDS SOCK0 SOCK1 ... SOCKn-1        (n >= 4)
 *
 *   T0 .. Tn-3   talkers: unicast test frames to each other, random
 *                lengths 60..1514, every byte checked on arrival
 *   S (n-2)      sprayer: frames from random source MACs (a MAC spray
 *                against the learning table) and broadcast storms
 *   C (n-1)      churner: talks, then leaves (clean close or abort,
 *                in turn) and comes back, over and over
 *
 * One thread plays every guest (vdrv devices belong to one thread).
 * A frame's tag names its sender, its destination and the destination's
 * connection number, so frames for an earlier connection of the churner
 * are recognised.  Failures: a corrupt frame (any byte), a frame between
 * talkers at a port it was not sent to (frames to the churner may flood
 * while it is away), a pair's frames out of order, a talker pair that
 * moved nothing, a receive error or a virtio rule broken by the device.
 * Frames may be lost (a storm fills rings; that is what drops are for);
 * they may never be wrong.  One summary line; exit 0 pass, 1 fail, 2
 * usage.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"

#define SK_PORTS_MAX	16
#define SK_BURST	16
#define SK_FRAME_MAX	1514
#define SK_TAG_SPRAY	0xfff0u		/* tags of the sprayer's frames */
#define SK_TAG_HELLO	0xfff1u		/* announcements, seq = sender */
#define SK_CHURN_MS	1500		/* churner: up this long, then down */

/**
 * struct sk_port - one guest
 * @d:		device, NULL while the churner is away
 * @path:	socket
 * @mac:	its MAC, 02:5a:00:00:00:<idx+1>
 * @rx:		test frames received intact
 * @next_seq:	per source: next sequence number expected (order check)
 * @got:	per source: frames received from it
 * @hello:	ports whose announcement reached this one (bit per index)
 */
struct sk_port {
	struct vdrv_dev *d;
	const char *path;
	uint8_t mac[6];
	uint64_t rx;
	uint32_t next_seq[SK_PORTS_MAX];
	uint64_t got[SK_PORTS_MAX];
	uint32_t hello;
};

static struct sk_port sk_p[SK_PORTS_MAX];
static unsigned int sk_n;
static uint32_t sk_seq[SK_PORTS_MAX][SK_PORTS_MAX];	/* next to send */
static uint32_t sk_gen[SK_PORTS_MAX];	/* connection number, per port */
static uint64_t sk_sent, sk_corrupt, sk_misdelivered, sk_reordered;
static uint64_t sk_sprayed, sk_churns;
static uint32_t sk_rand_state = 0x9e3779b9;

static uint32_t sk_rand(void)
{
	sk_rand_state ^= sk_rand_state << 13;
	sk_rand_state ^= sk_rand_state >> 17;
	sk_rand_state ^= sk_rand_state << 5;
	return sk_rand_state;
}

static int64_t sk_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void __attribute__((format(printf, 1, 2), noreturn))
sk_fatal(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL soak: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

/**
 * sk_open() - connect guest @i
 * @i:		index
 */
static void sk_open(unsigned int i)
{
	struct vdrv_opts o;
	int rc;

	vdrv_opts_init(&o, sk_p[i].path);
	rc = vdrv_open(&o, &sk_p[i].d);
	if (rc)
		sk_fatal("open %s: %s", sk_p[i].path, strerror(-rc));
}

/**
 * sk_talk() - talker @i sends a burst of unicast frames to other talkers
 *	       (or to the churner, when it is there)
 * @i:		sender
 */
static void sk_talk(unsigned int i)
{
	static uint8_t fr[SK_BURST][SK_FRAME_MAX];
	struct vdrv_tx_pkt tx[SK_BURST];
	unsigned int k, j, nt = sk_n - 2, n = 0;
	int rc;

	for (k = 0; k < SK_BURST; k++) {
		size_t len = 60 + sk_rand() % (SK_FRAME_MAX - 59);

		j = sk_rand() % (nt + 1);
		if (j == nt)
			j = sk_n - 1;		/* the churner */
		if (j == i || !sk_p[j].d)
			continue;
		vdrv_pkt_test_frame(fr[n], len, sk_p[j].mac, sk_p[i].mac,
				    sk_gen[j] << 16 | i << 8 | j,
				    sk_seq[i][j]++);
		tx[n].data = fr[n];
		tx[n].len = (uint32_t)len;
		tx[n].hdr = NULL;
		n++;
	}
	if (!n)
		return;
	rc = vdrv_tx_burst(sk_p[i].d, tx, n);
	if (rc < 0)
		sk_fatal("%u: transmit: %s", i, strerror(-rc));
	/* Frames that found no TX slot (the last of the burst) were never
	 * sent: take their sequence numbers back, so the receiver sees no
	 * step backwards.
	 */
	for (k = (unsigned int)rc; k < n; k++) {
		struct vdrv_test_info ti;

		vdrv_pkt_test_check(fr[k], tx[k].len, &ti);
		sk_seq[i][ti.tag & 0xff]--;
	}
	sk_sent += (unsigned int)rc;
	if ((unsigned int)rc < n)
		vdrv_tx_reclaim(sk_p[i].d);
}

/**
 * sk_spray() - the sprayer: a burst from random source MACs, to random
 *		unknown unicast or broadcast destinations
 * @i:		sprayer
 */
static void sk_spray(unsigned int i)
{
	static uint8_t fr[SK_BURST][128];
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct vdrv_tx_pkt tx[SK_BURST];
	unsigned int k;
	int rc;

	for (k = 0; k < SK_BURST; k++) {
		uint8_t src[6] = { 0x02, 0x66 }, dst[6] = { 0x02, 0x77 };
		uint32_t r = sk_rand();

		memcpy(src + 2, &r, 4);
		r = sk_rand();
		memcpy(dst + 2, &r, 4);
		vdrv_pkt_test_frame(fr[k], 64 + r % 64, r & 1 ? bc : dst, src,
				    SK_TAG_SPRAY, 0);
		tx[k].data = fr[k];
		tx[k].len = 64 + r % 64;
		tx[k].hdr = NULL;
	}
	rc = vdrv_tx_burst(sk_p[i].d, tx, SK_BURST);
	if (rc < 0)
		sk_fatal("sprayer: transmit: %s", strerror(-rc));
	sk_sprayed += (unsigned int)rc;
	if (rc < SK_BURST)
		vdrv_tx_reclaim(sk_p[i].d);
}

/**
 * sk_receive() - take what arrived at @i and check every frame
 * @i:		port
 */
static void sk_receive(unsigned int i)
{
	static uint8_t buf[SK_BURST][SK_FRAME_MAX + 64];
	struct vdrv_rx_pkt rx[SK_BURST];
	struct sk_port *p = &sk_p[i];
	unsigned int k, s;
	int n;

	for (k = 0; k < SK_BURST; k++) {
		rx[k].buf = buf[k];
		rx[k].cap = sizeof(buf[k]);
	}
	n = vdrv_rx_burst(p->d, rx, SK_BURST);
	if (n < 0)
		sk_fatal("%u: receive: %s (dev_errors %llu)", i, strerror(-n),
			 (unsigned long long)vdrv_stats(p->d)->dev_errors);
	for (k = 0; k < (unsigned int)n; k++) {
		struct vdrv_test_info ti;
		int rc = vdrv_pkt_test_check(buf[k], rx[k].truncated ?
					     rx[k].cap : rx[k].len, &ti);

		if (rc == -ENOMSG)
			continue;		/* not ours (IPv6 noise) */
		if (rc || rx[k].truncated) {
			sk_corrupt++;
			continue;
		}
		if (ti.tag == SK_TAG_HELLO && ti.seq < sk_n) {
			p->hello |= 1u << ti.seq;
			continue;
		}
		if (ti.tag == SK_TAG_SPRAY)
			continue;		/* flooded, may go anywhere */
		s = (ti.tag >> 8) & 0xff;
		if ((ti.tag & 0xff) == sk_n - 1 && i != sk_n - 1)
			continue;	/* to the churner, flooded while away */
		if ((ti.tag & 0xff) != i || s >= sk_n ||
		    memcmp(ti.dst, p->mac, 6)) {
			sk_misdelivered++;
			continue;
		}
		if (ti.tag >> 16 != sk_gen[i])
			continue;	/* for an earlier connection of ours */
		/* Lost frames leave gaps; a step back is reordering. */
		if (ti.seq < p->next_seq[s])
			sk_reordered++;
		p->next_seq[s] = ti.seq + 1;
		p->got[s]++;
		p->rx++;
	}
}

/**
 * sk_announce() - a broadcast from @i, so the switch learns its MAC
 * @i:		port
 */
static void sk_announce(unsigned int i)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t fr[64];

	vdrv_pkt_test_frame(fr, sizeof(fr), bc, sk_p[i].mac, SK_TAG_HELLO, i);
	if (vdrv_send(sk_p[i].d, fr, sizeof(fr)))
		sk_fatal("%u: announce failed", i);
}

/**
 * sk_meet() - every port announces itself until each has heard all the
 *	       others: then the switch has learned every MAC (it learns a
 *	       source before it floods the frame), and no unicast frame
 *	       between them floods -- whichever worker carries it
 */
static void sk_meet(void)
{
	int64_t end = sk_ms() + 10000, again = 0;
	uint32_t all = (1u << sk_n) - 1;
	unsigned int i, met;

	do {
		if (sk_ms() >= again) {
			for (i = 0; i < sk_n; i++)
				sk_announce(i);
			again = sk_ms() + 500;
		}
		for (i = 0, met = 0; i < sk_n; i++) {
			sk_receive(i);
			met += (sk_p[i].hello | 1u << i) == all;
		}
		if (sk_ms() > end)
			sk_fatal("the ports did not all hear each other in "
				 "10 s");
	} while (met < sk_n);
}

/**
 * sk_churn() - the churner leaves and comes back on a fixed rhythm
 * @i:		churner
 * @now:	sk_ms()
 * @next:	in/out: when to change state
 */
static void sk_churn(unsigned int i, int64_t now, int64_t *next)
{
	struct sk_port *p = &sk_p[i];

	if (now < *next)
		return;
	*next = now + SK_CHURN_MS;
	if (p->d) {
		if (sk_churns % 2)
			vdrv_abort(p->d);
		else if (vdrv_close(p->d, NULL))
			sk_fatal("churner: close failed");
		p->d = NULL;
		sk_churns++;
		return;
	}
	sk_open(i);
	/* A new connection: numbers to it start over, under a new tag. */
	sk_gen[i]++;
	memset(p->next_seq, 0, sizeof(p->next_seq));
	for (unsigned int s = 0; s < sk_n; s++)
		sk_seq[s][i] = 0;
	sk_announce(i);
}

int main(int argc, char **argv)
{
	int64_t end, next_churn, now;
	unsigned int i, s;
	uint64_t rx;
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 6 || argc - 2 > SK_PORTS_MAX || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: soak SECONDS SOCK0 SOCK1 SOCK2 SOCK3 "
			"[SOCK...] (4 to %d)\n", SK_PORTS_MAX);
		return 2;
	}
	sk_n = (unsigned int)argc - 2;
	for (i = 0; i < sk_n; i++) {
		sk_p[i].path = argv[2 + i];
		memcpy(sk_p[i].mac, (uint8_t[6]){ 0x02, 0x5a, 0, 0, 0,
						  (uint8_t)(i + 1) }, 6);
		sk_open(i);
	}
	sk_meet();

	now = sk_ms();
	end = now + 1000LL * atoi(argv[1]);
	next_churn = now + SK_CHURN_MS;
	while ((now = sk_ms()) < end) {
		for (i = 0; i < sk_n - 2; i++)
			sk_talk(i);
		if (sk_p[sk_n - 1].d && sk_rand() % 4 == 0)
			sk_talk(sk_n - 1);
		sk_spray(sk_n - 2);
		for (i = 0; i < sk_n; i++)
			if (sk_p[i].d)
				sk_receive(i);
		sk_churn(sk_n - 1, now, &next_churn);
	}
	/* Let what is in flight arrive, then check every pair moved. */
	for (now = sk_ms(); sk_ms() < now + 300;)
		for (i = 0; i < sk_n; i++)
			if (sk_p[i].d)
				sk_receive(i);
	ok = !sk_corrupt && !sk_misdelivered && !sk_reordered;
	for (i = 0; i < sk_n - 2; i++)
		for (s = 0; s < sk_n - 2; s++)
			if (s != i && !sk_p[i].got[s]) {
				printf("FAIL soak: talker %u got nothing from "
				       "%u\n", i, s);
				ok = false;
			}
	if (sk_churns < 2) {
		printf("FAIL soak: the churner left only %llu times\n",
		       (unsigned long long)sk_churns);
		ok = false;
	}
	for (i = 0; i < sk_n; i++)
		if (sk_p[i].d && vdrv_close(sk_p[i].d, NULL)) {
			printf("FAIL soak: port %u: close failed\n", i);
			ok = false;
		}
	if (vdrv_dev_errors_freed()) {
		printf("FAIL soak: the device broke %llu virtio rules\n",
		       (unsigned long long)vdrv_dev_errors_freed());
		ok = false;
	}
	for (i = 0, rx = 0; i < sk_n; i++)
		rx += sk_p[i].rx;
	printf("%s soak: %llu unicast sent, %llu received intact, %llu "
	       "corrupt, %llu misdelivered, %llu reordered; %llu sprayed; "
	       "churner left %llu times\n", ok ? "PASS" : "FAIL",
	       (unsigned long long)sk_sent, (unsigned long long)rx,
	       (unsigned long long)sk_corrupt,
	       (unsigned long long)sk_misdelivered,
	       (unsigned long long)sk_reordered,
	       (unsigned long long)sk_sprayed,
	       (unsigned long long)sk_churns);
	return ok ? 0 : 1;
}
