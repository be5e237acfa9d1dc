// SPDX-License-Identifier: GPL-2.0-or-later
/* scale.c - N guests x 2 queue pairs on one vhostd: reach, fairness, cost
 *
 *   scale --dir DIR --n N --fwd-pid PID [--seconds S] [--warmup-ms MS]
 *         [--burst B] [--dst-run K] [--label TEXT]
 *
 * One thread plays N guests (vdrv devices with 2 queue pairs each, 256-
 * entry rings, 512-byte RX buffers) on vhostd's ports DIR/p0.sock ..
 * DIR/p<N-1>.sock, which bench/scale.sh starts with queues=2.  Guest i has
 * MAC 02:5c:00:00:00:<i>.
 *
 * DOC: Theory of Operation
 *
 * 1. Announce: every guest broadcasts one frame, so vhostd learns every
 *    MAC (broadcast copies are drained and not counted).
 * 2. Reachability: every guest sends one 64-byte UDP frame to every other
 *    one (N * (N - 1)), alternating its TX queues; each frame names its
 *    source and destination guest.  Every one must arrive exactly once,
 *    at its destination; anything missing, doubled or misdelivered fails
 *    the point.
 * 3. Full-mesh flood for S seconds (after a warm-up): in each round every
 *    guest, in turn (the first one rotating), reclaims its TX rings,
 *    offers B frames -- B/2 per TX queue, destinations round robin over
 *    all other guests (K frames to one before the next, default 1: every
 *    frame of a burst to another guest), each frame its own UDP flow so
 *    vhostd's flow hash
 *    spreads them over the destination's two RX queues -- and drains both
 *    RX queues.  Every guest gets the same number of send attempts and
 *    receive passes per round: the driver is not itself unfair
 *    (rxq0_pct: the share of frames that arrived on RX queue 0).  What
 *    each guest received during the window is its share; fairness is
 *    max |rx_i - mean| / mean.
 * 4. Cost: utime + stime of all vhostd threads (/proc/PID/task/N/stat,
 *    vbench's cpu.c) over the window, times the clock rate /proc/cpuinfo
 *    reports ("cpu MHz" of the first CPU: nominal, not measured), over
 *    the frames delivered in the window: cycles per delivered packet.
 * 5. Memory: vhostd's Rss and Pss from /proc/PID/smaps, summed over every
 *    mapping except the guests' memory (the memfd regions vhostd maps,
 *    named "/memfd:"), before the guests connect (N ports configured,
 *    none attached) and after the flood (N attached).
 *
 * Run it through bench/scale.sh (it starts vhostd, pins, repeats, and
 * prints medians and a table): `make && bench/scale.sh [--reps R]
 * [--seconds S] [--ns "2 8 32 64"]`; doc/performance.md has results.
 *
 * Output: "REACH ...", "RESULT key=value ..." and "MEM ..." lines.  Exit 0
 * ok, 1 the point failed (reachability, device errors), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../vdrv/vdrv.h"
#include "../vdrv/vdrv_pkt.h"
#include "vbench/vbench.h"

#define SC_MAX_GUESTS	64
#define SC_PAIRS	2
#define SC_FRAME	64
#define SC_MAGIC	0x5c41e000u
#define SC_RXB		64
#define SC_BURST_MAX	64

/**
 * struct sc_guest - one guest
 * @d:		its device
 * @mac:	its MAC
 * @next_dst:	flood: current destination, round robin
 * @run:	flood: frames sent to it so far in this run
 * @flow:	flood: next flow number
 * @rx:		frames received, both pairs
 * @rxq:	per pair
 * @tx:		frames the device accepted
 * @tx_full:	send attempts refused (ring full)
 */
struct sc_guest {
	struct vdrv_dev *d;
	uint8_t mac[6];
	unsigned int next_dst;
	unsigned int run;
	uint32_t flow;
	uint64_t rx;
	uint64_t rxq[SC_PAIRS];
	uint64_t tx;
	uint64_t tx_full;
};

/**
 * struct sc_cfg - the command line
 * @dir:	directory holding p<i>.sock
 * @n:		guests
 * @fwd_pid:	vhostd's pid
 * @seconds:	flood window
 * @warmup_ms:	flood before the window
 * @burst:	send attempts per guest per round
 * @dst_run:	frames to one destination before the next
 * @label:	free text for the RESULT line
 */
struct sc_cfg {
	const char *dir;
	unsigned int n;
	int fwd_pid;
	double seconds;
	unsigned int warmup_ms;
	unsigned int burst;
	unsigned int dst_run;
	const char *label;
};

static struct sc_guest sc_g[SC_MAX_GUESTS];
static uint8_t sc_got[SC_MAX_GUESTS][SC_MAX_GUESTS];
static unsigned int sc_bad;

/**
 * sc_ns() - monotonic nanoseconds
 * Return: CLOCK_MONOTONIC in ns
 */
static int64_t sc_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/**
 * sc_frame() - a 64-byte UDP/IPv4 frame from guest @s to guest @t
 * @buf:	SC_FRAME bytes
 * @s:		source guest
 * @t:		destination guest (its MAC; SC_MAX_GUESTS: broadcast)
 * @flow:	flow number: source port and the low address bits
 */
static void sc_frame(uint8_t *buf, unsigned int s, unsigned int t,
		     uint32_t flow)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t *ip = buf + 14, *udp = ip + 20, *pl = udp + 8;
	uint32_t magic = htonl(SC_MAGIC), v;
	uint16_t sp = htons((uint16_t)(1024 + (flow & 0x3fff)));
	uint16_t dp = htons((uint16_t)(4000 + t));
	uint16_t c;

	memset(buf, 0, SC_FRAME);
	memcpy(buf, t < SC_MAX_GUESTS ? sc_g[t].mac : bc, 6);
	memcpy(buf + 6, sc_g[s].mac, 6);
	buf[12] = 0x08;
	ip[0] = 0x45;
	v = htons(SC_FRAME - 14);
	memcpy(ip + 2, &v, 2);
	ip[8] = 64;
	ip[9] = 17;
	/* 198.18.s.x -> 198.19.t.y: inside the benchmarking range. */
	ip[12] = 198, ip[13] = 18, ip[14] = (uint8_t)s;
	ip[15] = (uint8_t)(flow >> 14);
	ip[16] = 198, ip[17] = 19, ip[18] = (uint8_t)t, ip[19] = 1;
	c = (uint16_t)~vdrv_pkt_csum(ip, 20, 0);
	memcpy(ip + 10, &c, 2);
	memcpy(udp, &sp, 2);
	memcpy(udp + 2, &dp, 2);
	v = htons(SC_FRAME - 34);
	memcpy(udp + 4, &v, 2);
	memcpy(pl, &magic, 4);
	pl[4] = (uint8_t)s;
	pl[5] = (uint8_t)t;
}

/**
 * sc_rx() - drain both RX queues of guest @i
 * @i:		guest
 * @check:	look at each frame: count it in sc_got, or in sc_bad if it
 *		is not ours or not for @i; broadcasts are ignored
 * Return: frames received (broadcasts excluded when @check), or -errno
 */
static int sc_rx(unsigned int i, bool check)
{
	static uint8_t buf[SC_RXB][256];
	struct vdrv_rx_pkt pk[SC_RXB];
	unsigned int q, k;
	int got = 0, r;

	for (q = 0; q < SC_PAIRS; q++) {
		do {
			for (k = 0; k < SC_RXB; k++) {
				pk[k].buf = check ? buf[k] : NULL;
				pk[k].cap = check ? sizeof(buf[k]) : 0;
			}
			r = vdrv_rx_burst(vdrv_pair(sc_g[i].d, q), pk, SC_RXB);
			if (r < 0)
				return r;
			for (k = 0; check && k < (unsigned int)r; k++) {
				const uint8_t *b = buf[k];
				uint32_t m;

				if (b[0] == 0xff)
					continue;
				memcpy(&m, b + 42, 4);
				if (pk[k].len != SC_FRAME ||
				    ntohl(m) != SC_MAGIC ||
				    b[46] >= SC_MAX_GUESTS || b[47] != i ||
				    memcmp(b, sc_g[i].mac, 6)) {
					sc_bad++;
					continue;
				}
				if (sc_got[b[46]][i] < 255)
					sc_got[b[46]][i]++;
				got++;
			}
			if (!check)
				got += r;
			sc_g[i].rxq[q] += (unsigned int)r;
		} while (r == SC_RXB);
	}
	sc_g[i].rx += (unsigned int)got;
	return got;
}

/**
 * sc_send() - frames on one pair of guest @i, as many as fit
 * @i:		guest
 * @q:		pair
 * @frames:	SC_FRAME bytes each
 * @n:		how many
 * Return: frames accepted, or -errno
 */
static int sc_send(unsigned int i, unsigned int q, uint8_t (*frames)[SC_FRAME],
		   unsigned int n)
{
	struct vdrv_tx_pkt p[SC_BURST_MAX];
	struct vdrv_dev *d = vdrv_pair(sc_g[i].d, q);
	unsigned int k;
	int r;

	for (k = 0; k < n; k++) {
		p[k].data = frames[k];
		p[k].len = SC_FRAME;
		p[k].hdr = NULL;
	}
	r = vdrv_tx_reclaim(d);
	if (r < 0)
		return r;
	r = vdrv_tx_burst(d, p, n);
	if (r < 0)
		return r;
	sc_g[i].tx += (unsigned int)r;
	sc_g[i].tx_full += n - (unsigned int)r;
	return r;
}

/**
 * sc_mem() - vhostd's memory, guest memory left out
 * @pid:	vhostd
 * @rss:	out: Rss, KiB, over every mapping not named "/memfd:..."
 * @pss:	out: Pss, KiB, the same mappings
 * @guest:	out: Rss of the guests' memory vhostd maps, KiB
 * Return: 0 or -errno
 */
static int sc_mem(int pid, unsigned long *rss, unsigned long *pss,
		  unsigned long *guest)
{
	char path[64], line[512];
	bool memfd = false;
	unsigned long v;
	FILE *f;

	*rss = *pss = *guest = 0;
	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's first line is "start-end perms offset dev
		 * inode [name]", its fields "Key:   value kB" after it.
		 */
		char *dash = strchr(line, '-'), *sp = strchr(line, ' ');

		if (dash && sp && dash < sp) {
			memfd = strstr(line, "/memfd:") != NULL;
			continue;
		}
		if (sscanf(line, "Rss: %lu kB", &v) == 1) {
			if (memfd)
				*guest += v;
			else
				*rss += v;
		} else if (sscanf(line, "Pss: %lu kB", &v) == 1) {
			if (!memfd)
				*pss += v;
		}
	}
	fclose(f);
	return 0;
}

/**
 * sc_open() - open every guest's device (2 pairs, small memory)
 * @c:		configuration
 * Return: 0 or -errno
 */
static int sc_open(const struct sc_cfg *c)
{
	static char paths[SC_MAX_GUESTS][256];
	struct vdrv_opts o;
	unsigned int i;
	int r;

	for (i = 0; i < c->n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/p%u.sock", c->dir, i);
		vdrv_opts_init(&o, paths[i]);
		o.pairs = SC_PAIRS;
		o.queue_size = 256;
		o.rx_buf_len = 512;
		o.tx_buf_len = 256;
		memcpy(sc_g[i].mac, (uint8_t[6]){ 0x02, 0x5c, 0, 0, 0,
						  (uint8_t)i }, 6);
		r = vdrv_open(&o, &sc_g[i].d);
		if (r) {
			fprintf(stderr, "scale: guest %u: open %s: %s\n", i,
				paths[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

/**
 * sc_drain() - receive (and check) at every guest until @ms of quiet
 * @c:		configuration
 * @check:	as sc_rx()
 * @want:	stop early once this many checked frames arrived (0: never)
 * @ms:		quiet time
 * Return: frames received, or -errno
 */
static long sc_drain(const struct sc_cfg *c, bool check, long want, int ms)
{
	int64_t quiet = sc_ns() + (int64_t)ms * 1000000;
	long total = 0;
	unsigned int i;
	int r;

	while (sc_ns() < quiet && (!want || total < want)) {
		unsigned int raw = 0;

		for (i = 0; i < c->n; i++) {
			uint64_t before = sc_g[i].rxq[0] + sc_g[i].rxq[1];

			r = sc_rx(i, check);
			if (r < 0)
				return r;
			total += r;
			raw += (unsigned int)(sc_g[i].rxq[0] + sc_g[i].rxq[1] -
					      before);
		}
		if (raw)
			quiet = sc_ns() + (int64_t)ms * 1000000;
		else
			usleep(1000);
	}
	return total;
}

/**
 * sc_reach() - announce every MAC, then one frame from each to each
 * @c:		configuration
 * Return: frames that arrived right (N * (N - 1) when all is well), or
 *	   -errno
 */
static long sc_reach(const struct sc_cfg *c)
{
	uint8_t f[SC_BURST_MAX][SC_FRAME];
	unsigned int i, j, k, q;
	long got, ok = 0;
	int r;

	for (i = 0; i < c->n; i++) {
		sc_frame(f[0], i, SC_MAX_GUESTS, 0);
		r = sc_send(i, 0, f, 1);
		if (r != 1)
			return r < 0 ? r : -ENOBUFS;
	}
	r = (int)sc_drain(c, true, 0, 200);
	if (r < 0)
		return r;
	memset(sc_got, 0, sizeof(sc_got));
	sc_bad = 0;
	for (i = 0; i < c->n; i++) {
		/* Alternate pairs: destinations in bursts of SC_BURST_MAX. */
		for (q = 0; q < SC_PAIRS; q++) {
			k = 0;
			for (j = q; j < c->n; j += SC_PAIRS)
				if (j != i)
					sc_frame(f[k++], i, j, j);
			r = sc_send(i, q, f, k);
			if (r != (int)k)
				return r < 0 ? r : -ENOBUFS;
		}
	}
	got = sc_drain(c, true, (long)c->n * (c->n - 1), 500);
	if (got < 0)
		return got;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			if (i == j)
				continue;
			if (sc_got[i][j] == 1)
				ok++;
			else
				fprintf(stderr, "scale: %u -> %u arrived %u "
					"times\n", i, j, sc_got[i][j]);
		}
	if (sc_bad)
		fprintf(stderr, "scale: %u frames at the wrong guest or "
			"malformed\n", sc_bad);
	return sc_bad ? -EPROTO : ok;
}

/**
 * sc_round() - one flood round: each guest offers @burst frames, drains
 * @c:		configuration
 * @first:	guest that goes first this round
 * Return: 0 or -errno
 */
static int sc_round(const struct sc_cfg *c, unsigned int first)
{
	static uint8_t f[SC_BURST_MAX][SC_FRAME];
	unsigned int half = c->burst / SC_PAIRS, k, q, x;
	int r;

	for (x = 0; x < c->n; x++) {
		unsigned int i = (first + x) % c->n;
		struct sc_guest *g = &sc_g[i];

		for (q = 0; q < SC_PAIRS; q++) {
			for (k = 0; k < half; k++) {
				if (++g->run >= c->dst_run || g->next_dst == i) {
					g->run = 0;
					g->next_dst = (g->next_dst + 1) % c->n;
					if (g->next_dst == i)
						g->next_dst = (g->next_dst + 1) %
							      c->n;
				}
				sc_frame(f[k], i, g->next_dst, g->flow++);
			}
			r = sc_send(i, q, f, half);
			if (r < 0)
				return r;
		}
		r = sc_rx(i, false);
		if (r < 0)
			return r;
	}
	return 0;
}

/**
 * sc_flood() - flood for warm-up + window; measure the window
 * @c:		configuration
 * Return: 0 or -errno
 */
static int sc_flood(const struct sc_cfg *c)
{
	uint64_t rx0[SC_MAX_GUESTS], txf0 = 0, txf1 = 0, tx0 = 0, tx1 = 0;
	uint64_t q0a = 0, q0b = 0, qa = 0, qb = 0;
	double win, cpu, busiest, fwd_wait, fw, bw, hz, mean, dev = 0, sum = 0;
	int64_t t0 = 0, t1, end, warm;
	struct vb_cpu a, b;
	unsigned int i, round = 0, mn = 0, mx = 0;
	int r, tid;

	for (i = 0; i < c->n; i++)
		sc_g[i].next_dst = i;
	warm = sc_ns() + (int64_t)c->warmup_ms * 1000000;
	end = warm + (int64_t)(c->seconds * 1e9);
	while (sc_ns() < warm) {
		r = sc_round(c, round++ % c->n);
		if (r)
			return r;
	}
	for (i = 0; i < c->n; i++) {
		rx0[i] = sc_g[i].rx;
		q0a += sc_g[i].rxq[0];
		qa += sc_g[i].rxq[0] + sc_g[i].rxq[1];
		tx0 += sc_g[i].tx;
		txf0 += sc_g[i].tx_full;
	}
	if (cpu_read(c->fwd_pid, &a))
		return -ESRCH;
	t0 = sc_ns();
	do {
		r = sc_round(c, round++ % c->n);
		if (r)
			return r;
	} while ((t1 = sc_ns()) < end);
	if (cpu_read(c->fwd_pid, &b))
		return -ESRCH;
	win = (double)(t1 - t0) / 1e9;
	for (i = 0; i < c->n; i++) {
		double d = (double)(sc_g[i].rx - rx0[i]);

		sum += d;
		q0b += sc_g[i].rxq[0];
		qb += sc_g[i].rxq[0] + sc_g[i].rxq[1];
		tx1 += sc_g[i].tx;
		txf1 += sc_g[i].tx_full;
		if (sc_g[i].rx - rx0[i] < sc_g[mn].rx - rx0[mn])
			mn = i;
		if (sc_g[i].rx - rx0[i] > sc_g[mx].rx - rx0[mx])
			mx = i;
	}
	mean = sum / c->n;
	for (i = 0; i < c->n; i++)
		dev = fmax(dev, fabs((double)(sc_g[i].rx - rx0[i]) - mean));
	cpu = cpu_delta(&a, &b, &busiest, &tid, &fwd_wait);
	fw = wait_pct(&a, &b, fwd_wait, win, &bw);
	hz = cpu_hz();
	printf("RESULT label=%s guests=%u pairs=%d seconds=%.2f rounds=%u "
	       "burst=%u dst_run=%u delivered=%.0f mpps=%.3f sent=%llu refused=%llu "
	       "fair_dev_pct=%.2f rx_min=%llu(g%u) rx_max=%llu(g%u) "
	       "rx_mean=%.0f vhostd_cpu_s=%.3f worker_cpu_s=%.3f "
	       "cpu_mhz=%.0f cycles_per_pkt=%.0f worker_wait_pct=%.1f "
	       "bench_wait_pct=%.1f rxq0_pct=%.1f\n",
	       c->label, c->n, SC_PAIRS, win, round, c->burst, c->dst_run, sum,
	       sum / win / 1e6, (unsigned long long)(tx1 - tx0),
	       (unsigned long long)(txf1 - txf0),
	       mean > 0 ? 100.0 * dev / mean : 100.0,
	       (unsigned long long)(sc_g[mn].rx - rx0[mn]), mn,
	       (unsigned long long)(sc_g[mx].rx - rx0[mx]), mx, mean, cpu,
	       busiest, hz / 1e6, sum > 0 ? cpu * hz / sum : 0, fw, bw,
	       qb > qa ? 100.0 * (double)(q0b - q0a) / (double)(qb - qa) : 0);
	return 0;
}

/**
 * sc_usage() - print the synopsis
 */
static void sc_usage(void)
{
	fprintf(stderr, "usage: scale --dir DIR --n N --fwd-pid PID "
		"[--seconds S] [--warmup-ms MS] [--burst B] [--dst-run K]\n"
		"             [--label TEXT]\n");
}

/**
 * main() - one point: N guests
 * @argc:	count
 * @argv:	options
 * Return: 0 ok, 1 failed, 2 usage
 */
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "n", required_argument, NULL, 'n' },
		{ "fwd-pid", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "warmup-ms", required_argument, NULL, 'w' },
		{ "burst", required_argument, NULL, 'b' },
		{ "dst-run", required_argument, NULL, 'r' },
		{ "label", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct sc_cfg c = { .seconds = 5, .warmup_ms = 1000, .burst = 16,
			    .dst_run = 1, .label = "-" };
	unsigned long rss0, pss0, g0, rss1, pss1, g1;
	unsigned int i;
	long ok;
	int o, r, fail = 0;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'd': c.dir = optarg; break;
		case 'n': c.n = (unsigned int)atoi(optarg); break;
		case 'p': c.fwd_pid = atoi(optarg); break;
		case 's': c.seconds = atof(optarg); break;
		case 'w': c.warmup_ms = (unsigned int)atoi(optarg); break;
		case 'b': c.burst = (unsigned int)atoi(optarg); break;
		case 'r': c.dst_run = (unsigned int)atoi(optarg); break;
		case 'l': c.label = optarg; break;
		default: sc_usage(); return 2;
		}
	}
	if (!c.dir || c.n < 2 || c.n > SC_MAX_GUESTS || c.fwd_pid <= 0 ||
	    c.burst < SC_PAIRS || c.burst > SC_BURST_MAX ||
	    c.burst % SC_PAIRS || c.seconds <= 0 || !c.dst_run) {
		sc_usage();
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sc_mem(c.fwd_pid, &rss0, &pss0, &g0))
		fprintf(stderr, "scale: cannot read /proc/%d/smaps\n",
			c.fwd_pid);
	r = sc_open(&c);
	if (r)
		return 1;
	ok = sc_reach(&c);
	printf("REACH guests=%u reached=%ld of %u\n", c.n, ok < 0 ? 0 : ok,
	       c.n * (c.n - 1));
	if (ok != (long)c.n * (c.n - 1))
		fail = 1;
	if (!fail && sc_flood(&c))
		fail = 1;
	if (!sc_mem(c.fwd_pid, &rss1, &pss1, &g1))
		printf("MEM guests=%u idle_rss_kib=%lu idle_pss_kib=%lu "
		       "attached_rss_kib=%lu attached_pss_kib=%lu "
		       "guest_mem_rss_kib=%lu attach_pss_per_port_kib=%.1f\n",
		       c.n, rss0, pss0, rss1, pss1, g1,
		       ((double)pss1 - (double)pss0) / c.n);
	for (i = 0; i < c.n; i++) {
		const struct vdrv_stats *s0 = vdrv_stats(vdrv_pair(sc_g[i].d, 0));
		const struct vdrv_stats *s1 = vdrv_stats(vdrv_pair(sc_g[i].d, 1));

		if (s0->dev_errors || s1->dev_errors) {
			fprintf(stderr, "scale: guest %u: device errors\n", i);
			fail = 1;
		}
		vdrv_abort(sc_g[i].d);
	}
	return fail;
}
