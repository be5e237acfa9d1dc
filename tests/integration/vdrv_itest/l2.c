// SPDX-License-Identifier: GPL-2.0-or-later
/* l2.c - vdrv_itest scenarios: L2 isolation and storm control
 *
 * One guest attacks two others through the switch, the way a hostile VM
 * would: it sends frames from a victim's MAC, sprays thousands of source
 * MACs, or floods broadcast and unknown unicast as fast as it can.  The
 * victims must keep their traffic -- every frame intact, to its target
 * only -- and vhostd must count what it refused.
 *
 * Port i's MAC is fixed here, 02:12:00:00:00:<i+1>, so the runner
 * (tests/integration/l2.sh) can lock ports to them (mac= port key).
 * Frames the attacker sends carry tags of their own, so a receiver tells
 * them from the victims' exchange; counters are deltas read through the
 * control socket around exactly the frames sent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdrv_itest.h"

#define L2_TAG_SPOOF	70
#define L2_TAG_SPRAY	71
#define L2_TAG_STORM	72
#define L2_SPRAY	5000
#define L2_STORM_MS	3000

static const uint8_t l2_unknown[6] = { 0x02, 0x12, 0xee, 0xee, 0xee, 0xee };

/**
 * l2_setup() - fixed MACs, open every port, make sure they see each other
 * @n:		ports needed
 *
 * it_sync() probes from MACs of its own, which a locked port drops as
 * spoofed; here each port probes from its own MAC (learned, or static).
 */
static void l2_setup(unsigned int n)
{
	bool seen[IT_PORTS_MAX][IT_PORTS_MAX];
	int64_t deadline;
	unsigned int i, j, missing;

	it_need(n);
	for (i = 0; i < it_nports; i++) {
		struct it_port *p = &it_ports[i];

		memcpy(p->mac, (uint8_t[6]){ 0x02, 0x12, 0, 0, 0,
					     (uint8_t)(i + 1) }, 6);
		it_open(p);
	}
	memset(seen, 0, sizeof(seen));
	deadline = it_ms() + 10000;
	do {
		for (i = 0; i < it_nports; i++)
			it_send(&it_ports[i], it_bcast, IT_PROBE_TAG + i, 0, 64);
		usleep(20000);
		for (j = 0; j < it_nports; j++) {
			struct vdrv_rx_pkt pk;
			struct vdrv_test_info ti;

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
				missing += i != j && !seen[i][j];
	} while (missing && it_ms() < deadline);
	if (missing)
		it_fail("ports never all reached each other (%u pairs)",
			missing);
	it_drain(100);
}

/**
 * l2_send_from() - send one test frame with a source MAC of our choosing
 * @p:		sender
 * @src:	source MAC (spoofed or not)
 * @dst:	destination MAC
 * @tag:	tag
 * @seq:	sequence
 */
static void l2_send_from(struct it_port *p, const uint8_t src[6],
			 const uint8_t dst[6], uint32_t tag, uint32_t seq)
{
	int ret;

	vdrv_pkt_test_frame(it_frame, 100, dst, src, tag, seq);
	ret = vdrv_send(p->d, it_frame, 100);
	if (ret)
		it_fail("%s: send: %s", p->name, strerror(-ret));
}

/**
 * l2_unicast_only() - @n frames @from -> @to reach @to, and nobody else
 * @from:	sender
 * @to:		target
 * @n:		frames
 * @what:	description
 */
static void l2_unicast_only(struct it_port *from, struct it_port *to,
			    unsigned int n, const char *what)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		it_send(from, to->mac, 3, ++it_seq, 60 + i * 7 % 1400);
		it_expect(to, 3, it_seq, 60 + i * 7 % 1400, what);
	}
	for (j = 0; j < it_nports; j++)
		if (&it_ports[j] != to)
			it_expect_none(&it_ports[j], what);
}

/**
 * l2_ctr_delta() - wait until a counter moved by @want since @base
 * @port:	vhostd port name
 * @key:	counter key (see it_ctr())
 * @base:	value before
 * @want:	expected increase, exactly
 *
 * Counters settle once the sender's TX buffers came back (it_tx_settle);
 * polled briefly anyway, then compared exactly.
 */
static void l2_ctr_delta(const char *port, const char *key,
			 unsigned long long base, unsigned long long want)
{
	int64_t end = it_ms() + 3000;
	unsigned long long v;

	do {
		v = it_ctr(port, key);
		if (v - base >= want)
			break;
		usleep(10000);
	} while (it_ms() < end);
	if (v - base != want)
		it_fail("%s %s moved by %llu, want %llu", port, key, v - base,
			want);
}

/**
 * sc_mac_lock() - B and C are locked to their MACs (mac=): C's frames
 *		   from B's MAC are dropped as spoofed, B's entry stays
 *		   static, and B cannot send from another MAC either
 */
void sc_mac_lock(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	static const uint8_t other[6] = { 0x02, 0x12, 0, 0, 0, 0x99 };
	unsigned long long sc, sb;

	l2_setup(3);
	l2_unicast_only(a, b, 10, "A->B (B locked)");
	sc = it_ctr(c->vu, "\"spoofed\":");
	sb = it_ctr(b->vu, "\"spoofed\":");
	/* C claims B's MAC: to A, to everyone, to B itself. */
	l2_send_from(c, b->mac, a->mac, L2_TAG_SPOOF, 1);
	l2_send_from(c, b->mac, it_bcast, L2_TAG_SPOOF, 2);
	l2_send_from(c, b->mac, b->mac, L2_TAG_SPOOF, 3);
	it_tx_settle(c);
	l2_ctr_delta(c->vu, "\"spoofed\":", sc, 3);
	it_expect_none(a, "C's frames from B's MAC must be dropped");
	it_expect_none(b, "C's frames from B's MAC must be dropped");
	l2_unicast_only(a, b, 10, "A->B after C claimed B's MAC");
	/* B itself, from a MAC not its own: dropped too. */
	l2_send_from(b, other, it_bcast, L2_TAG_SPOOF, 4);
	it_tx_settle(b);
	l2_ctr_delta(b->vu, "\"spoofed\":", sb, 1);
	it_expect_none(a, "B's frame from a foreign MAC");
	it_expect_none(c, "B's frame from a foreign MAC");
	/* Its own MAC still goes through, both ways. */
	l2_unicast_only(b, a, 10, "B->A");
	l2_unicast_only(c, a, 10, "C->A");
	if (it_ctr(a->vu, "\"spoofed\":"))
		it_fail("A: spoofed drops on an unlocked port");
	printf("mac-lock: 3 of C's and 1 of B's spoofed frames dropped; "
	       "A<->B intact\n");
	it_close_all();
}

/**
 * sc_mac_steal() - only B is locked: C (unlocked) sends from B's MAC; the
 *		    frame is forwarded (C is not locked) but B's static
 *		    entry does not move, and C counts a refused learn
 */
void sc_mac_steal(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	unsigned long long lk;

	l2_setup(3);
	l2_unicast_only(a, b, 5, "A->B (B locked)");
	lk = it_ctr(c->vu, "\"locked\":");
	l2_send_from(c, b->mac, a->mac, L2_TAG_SPOOF, 1);
	it_expect(a, L2_TAG_SPOOF, 1, 100, "C's frame (C not locked)");
	it_tx_settle(c);
	l2_ctr_delta(c->vu, "\"locked\":", lk, 1);
	l2_unicast_only(a, b, 20, "A->B after C sent from B's MAC");
	printf("mac-steal: B's static entry held; C's learn refused\n");
	it_close_all();
}

/**
 * sc_mac_move() - nobody locked: a frame from B's MAC on C moves B's
 *		   entry to C (VM migration is legitimate), and B's next
 *		   frame moves it back
 */
void sc_mac_move(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];

	l2_setup(3);
	l2_unicast_only(a, b, 5, "A->B");
	l2_send_from(c, b->mac, a->mac, L2_TAG_SPOOF, 1);
	it_expect(a, L2_TAG_SPOOF, 1, 100, "C's frame from B's MAC");
	l2_unicast_only(a, c, 5, "A->B's MAC after it moved to C");
	l2_send_from(b, b->mac, a->mac, L2_TAG_SPOOF, 2);
	it_expect(a, L2_TAG_SPOOF, 2, 100, "B's frame");
	l2_unicast_only(a, b, 5, "A->B after it moved back");
	printf("mac-move: unlocked MACs move with their frames\n");
	it_close_all();
}

/**
 * sc_mac_spray() - C sprays L2_SPRAY source MACs (max-macs default 64):
 *		    it owns at most its quota, the rest are refused and
 *		    counted, A<->B stay learned (nothing of theirs reaches
 *		    C), and C, at its quota, cannot take B's MAC over
 */
void sc_mac_spray(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	unsigned long long q0, macs;
	unsigned int i;

	l2_setup(3);
	l2_unicast_only(a, b, 5, "A->B");
	l2_unicast_only(b, a, 5, "B->A");
	q0 = it_ctr(c->vu, "\"quota\":");
	srandom((unsigned int)getpid());
	for (i = 0; i < L2_SPRAY; i++) {
		uint8_t src[6] = { 0x02, 0x55, (uint8_t)(i >> 8), (uint8_t)i,
				   (uint8_t)random(), (uint8_t)random() };

		/* To C's own MAC: filtered (hairpin), reaches nobody. */
		l2_send_from(c, src, c->mac, L2_TAG_SPRAY, i);
	}
	it_tx_settle(c);
	macs = it_ctr(c->vu, "\"macs\":");
	if (macs > 64)
		it_fail("C owns %llu MACs, above its quota of 64", macs);
	if (it_ctr(c->vu, "\"quota\":") - q0 < L2_SPRAY - 64)
		it_fail("C: learn_refused.quota moved by %llu, want >= %u",
			it_ctr(c->vu, "\"quota\":") - q0, L2_SPRAY - 64);
	l2_unicast_only(a, b, 50, "A->B after the spray");
	l2_unicast_only(b, a, 50, "B->A after the spray");
	/* At its quota, C cannot take B's MAC over. */
	l2_send_from(c, b->mac, a->mac, L2_TAG_SPOOF, 1);
	it_expect(a, L2_TAG_SPOOF, 1, 100, "C's frame from B's MAC");
	it_tx_settle(c);
	l2_unicast_only(a, b, 20, "A->B after C (at quota) used B's MAC");
	printf("mac-spray: C owns %llu MACs, %llu refused; A<->B learned\n",
	       macs, it_ctr(c->vu, "\"quota\":") - q0);
	it_close_all();
}

/**
 * struct l2_storm - the flooding guest's thread
 * @c:		its port (used by the thread only, until joined)
 * @d:		NULL: C floods broadcast and unknown unicast; else C sends
 *		to @d's (learned) MAC, an ordinary flood, and the thread
 *		drains @d too
 * @stop:	set by the main thread
 * @sent:	frames the flood made available
 */
struct l2_storm {
	struct it_port *c;
	struct it_port *d;
	bool stop;
	uint64_t sent;
};

/**
 * l2_storm_run() - C sends 64-byte frames flat out
 * @arg:	struct l2_storm
 * Return: NULL
 */
static void *l2_storm_run(void *arg)
{
	static uint8_t frames[32][128];
	struct l2_storm *s = arg;
	struct vdrv_tx_pkt tx[32];
	struct vdrv_rx_pkt rx[32];
	unsigned int i;

	for (i = 0; i < 32; i++) {
		const uint8_t *dst = s->d ? s->d->mac : i & 1 ? it_bcast :
				     l2_unknown;

		vdrv_pkt_test_frame(frames[i], 64, dst, s->c->mac,
				    L2_TAG_STORM, i);
		tx[i].data = frames[i];
		tx[i].len = 64;
		tx[i].hdr = NULL;
	}
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		int r = vdrv_tx_burst(s->c->d, tx, 32);

		if (r < 0)
			it_fail("C: storm: %s", strerror(-r));
		s->sent += (unsigned int)r;
		if (!r && vdrv_tx_wait(s->c->d, 10) < 0)
			it_fail("C: storm: tx wait");
		for (i = 0; i < 32; i++) {
			rx[i].buf = NULL;
			rx[i].cap = 0;
		}
		vdrv_rx_burst(s->c->d, rx, 32);	/* keep C's ring free */
		if (s->d && vdrv_rx_burst(s->d->d, rx, 32) < 0)
			it_fail("D: receive");
	}
	return NULL;
}

/**
 * l2_rr() - one request A->B and its response B->A, counting C's flood
 * @a:		requester
 * @b:		responder
 * @seq:	request sequence
 * @storm:	C's frames seen at A [0] and B [1], updated
 * Return: round trip, microseconds
 */
static int64_t l2_rr(struct it_port *a, struct it_port *b, uint32_t seq,
		     uint64_t storm[2])
{
	struct it_port *ends[2] = { b, a };
	struct timespec t0, t1;
	unsigned int k;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	it_send(a, b->mac, 5, seq, 200);
	for (k = 0; k < 2; k++) {
		int64_t deadline = it_ms() + 3000;

		for (;;) {
			struct vdrv_test_info ti;
			struct vdrv_rx_pkt pkt;

			if (!it_recv(ends[k], &ti, &pkt,
				     (int)(deadline - it_ms())))
				it_fail("%s: %s %u never arrived",
					ends[k]->name, k ? "response" :
					"request", seq);
			if (ti.tag == L2_TAG_STORM) {
				storm[!k]++;
				continue;
			}
			if (ti.tag != 5u + k || ti.seq != seq || pkt.len != 200)
				it_fail("%s: got tag %u seq %u, want %u/%u",
					ends[k]->name, ti.tag, ti.seq, 5 + k,
					seq);
			break;
		}
		if (!k)
			it_send(b, a->mac, 6, seq, 200);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000;
}

static int l2_cmp64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/**
 * sc_storm() - C floods broadcast and unknown unicast flat out for
 *		L2_STORM_MS while A and B exchange requests and responses
 *
 * The runner gives C flood-rate=$L2_RATE,flood-burst=$L2_BURST (the
 * environment says which): what reaches A and B of C's flood must stay
 * within burst + rate x time (+10 %), every A<->B exchange completes
 * intact, A and B drop nothing for want of buffers, and C's excess is
 * counted as drops.storm.  Prints the exchange's round-trip p50/p99.
 */
void sc_storm(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	const char *rate_s = getenv("L2_RATE"), *burst_s = getenv("L2_BURST");
	static int64_t rtt[200000];
	struct l2_storm s = { .c = c };
	uint64_t storm[2] = { 0, 0 }, budget;
	unsigned long long st0, nb0[2], dropped;
	unsigned int n = 0, k;
	int64_t t0, t1;
	pthread_t th;

	if (!rate_s || !burst_s)
		it_fail("storm: set L2_RATE and L2_BURST (C's flood-rate, "
			"flood-burst)");
	l2_setup(3);
	l2_unicast_only(a, b, 5, "A->B");
	l2_unicast_only(b, a, 5, "B->A");
	st0 = it_ctr(c->vu, "\"storm\":");
	nb0[0] = it_ctr(a->vu, "\"no_buffer\":");
	nb0[1] = it_ctr(b->vu, "\"no_buffer\":");
	t0 = it_ms();
	if (pthread_create(&th, NULL, l2_storm_run, &s))
		it_fail("storm: pthread_create");
	while (it_ms() - t0 < L2_STORM_MS && n < IT_ARRAY_SIZE(rtt))
		rtt[n++] = l2_rr(a, b, ++it_seq, storm);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	it_tx_settle(c);
	t1 = it_ms();
	/* What was still on its way to A and B. */
	for (k = 0; k < 2; k++) {
		struct it_port *p = k ? b : a;
		struct vdrv_test_info ti;
		struct vdrv_rx_pkt pkt;

		while (it_recv(p, &ti, &pkt, IT_QUIET_MS)) {
			if (ti.tag != L2_TAG_STORM)
				it_fail("%s: stray frame tag %u", p->name,
					ti.tag);
			storm[k]++;
		}
	}
	budget = strtoull(burst_s, NULL, 10) +
		 strtoull(rate_s, NULL, 10) * (uint64_t)(t1 - t0) / 1000;
	budget += budget / 10;
	dropped = it_ctr(c->vu, "\"storm\":") - st0;
	qsort(rtt, n, sizeof(rtt[0]), l2_cmp64);
	printf("storm: C sent %llu in %lld ms; A got %llu, B got %llu "
	       "(budget %llu); drops.storm %llu; %u round trips, p50 %lld us, "
	       "p99 %lld us\n", (unsigned long long)s.sent,
	       (long long)(t1 - t0), (unsigned long long)storm[0],
	       (unsigned long long)storm[1], (unsigned long long)budget,
	       dropped, n, (long long)rtt[n / 2], (long long)rtt[n * 99 / 100]);
	for (k = 0; k < 2; k++)
		if (storm[k] > budget)
			it_fail("%s got %llu of C's flooded frames, budget %llu",
				k ? "B" : "A", (unsigned long long)storm[k],
				(unsigned long long)budget);
	if (!storm[0] || !storm[1])
		it_fail("C's flood never reached A and B: no flood at all?");
	if (s.sent < 4 * budget || dropped < s.sent - budget)
		it_fail("C sent %llu, drops.storm %llu: the flood did not "
			"outrun its budget", (unsigned long long)s.sent,
			dropped);
	if (it_ctr(a->vu, "\"no_buffer\":") != nb0[0] ||
	    it_ctr(b->vu, "\"no_buffer\":") != nb0[1])
		it_fail("A or B dropped frames for want of RX buffers");
	if (it_ctr(a->vu, "\"storm\":") || it_ctr(b->vu, "\"storm\":"))
		it_fail("storm drops at A or B, which flooded nothing");
	it_close_all();
}

#define L2_ROUNDS	5U
#define L2_SAMPLES	1500U
#define L2_FLOOR_US	5000

/**
 * l2_phase() - L2_SAMPLES A<->B round trips while C floods as @s says
 * @s:		the flood (its thread starts and stops here)
 * @storm:	C's frames seen at A and B, updated
 * Return: the round trips' p99, us
 */
static int64_t l2_phase(struct l2_storm *s, uint64_t storm[2])
{
	static int64_t rtt[L2_SAMPLES];
	unsigned int i;
	pthread_t th;

	__atomic_store_n(&s->stop, false, __ATOMIC_RELAXED);
	if (pthread_create(&th, NULL, l2_storm_run, s))
		it_fail("storm: pthread_create");
	usleep(100000);
	for (i = 0; i < L2_SAMPLES; i++)
		rtt[i] = l2_rr(&it_ports[0], &it_ports[1], ++it_seq, storm);
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	it_drain(50);
	qsort(rtt, L2_SAMPLES, sizeof(rtt[0]), l2_cmp64);
	return rtt[L2_SAMPLES * 99 / 100];
}

/**
 * sc_storm_bystander() - what C's storm costs A and B, against what an
 *			  ordinary flood from C costs them
 *
 * Four ports on one worker (the runner passes --workers 1): rounds
 * alternate C flooding D's learned MAC (ordinary) and C flooding
 * broadcast and unknown unicast (the storm), 64-byte frames flat out
 * both times, while A and B time L2_SAMPLES round trips.  The median
 * over L2_ROUNDS of the storm's p99 must stay within twice the ordinary
 * flood's, or under L2_FLOOR_US (below 5 ms a 2x ratio is scheduler
 * noise on this 2-core VM whose host moves its vCPUs, as hostile.c's
 * HS_FLOOR_US says: a CI run with nothing else on the machine measured
 * 2.5 ms under the storm against 0.7 ms under the flood; without storm
 * control the storm costs A and B every frame of it).
 */
void sc_storm_bystander(void)
{
	struct l2_storm flood = { .c = &it_ports[2], .d = &it_ports[3] };
	struct l2_storm storm = { .c = &it_ports[2] };
	int64_t f99[L2_ROUNDS], s99[L2_ROUNDS], f, st;
	uint64_t seen_f[2] = { 0, 0 }, seen_s[2] = { 0, 0 };
	unsigned int r;

	l2_setup(4);
	for (r = 0; r < L2_ROUNDS; r++) {
		f99[r] = l2_phase(&flood, seen_f);
		s99[r] = l2_phase(&storm, seen_s);
		printf("round %u: p99 us: ordinary flood %lld, storm %lld\n",
		       r, (long long)f99[r], (long long)s99[r]);
	}
	qsort(f99, L2_ROUNDS, sizeof(f99[0]), l2_cmp64);
	qsort(s99, L2_ROUNDS, sizeof(s99[0]), l2_cmp64);
	f = f99[L2_ROUNDS / 2];
	st = s99[L2_ROUNDS / 2];
	printf("storm-bystander: A<->B p99 %lld us under C's storm, %lld us "
	       "under C's ordinary flood (medians of %u rounds of %u); C sent "
	       "%llu + %llu frames; A, B got %llu, %llu of the storm\n",
	       (long long)st, (long long)f, L2_ROUNDS, L2_SAMPLES,
	       (unsigned long long)flood.sent, (unsigned long long)storm.sent,
	       (unsigned long long)seen_s[0], (unsigned long long)seen_s[1]);
	if (seen_f[0] || seen_f[1])
		it_fail("C's ordinary flood to D reached A or B");
	if (st > 2 * f && st > L2_FLOOR_US)
		it_fail("A<->B p99 %lld us under C's storm, more than twice "
			"the %lld us of an ordinary flood", (long long)st,
			(long long)f);
	it_close_all();
}
