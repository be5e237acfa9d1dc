// SPDX-License-Identifier: GPL-2.0-or-later
/* tapdirect_itest.c - TAP -> guest reads straight into guest buffers
 *
 *   tapdirect_itest IFNAME CTL SOCK0 SOCK1 SOCK2 SOCK3  (inside the netns)
 *
 * vhostd runs a TAP port (offload=off) and four vhost-user ports (the
 * fourth with queues=2); this program is four vdrv guests plus an
 * AF_PACKET socket on the TAP that
 * makes the kernel transmit self-checking test frames (vdrv_pkt.h) to
 * them.  The kernel's steering program picks the tun queue of each frame;
 * vhostd's counters (read over CTL) tell which path a frame took:
 *
 *   direct-unicast   G0's MAC learned and synced: every frame to it is
 *                    read straight into G0's buffers (direct.packets)
 *   broadcast        floods through queue 0 to G0 and G1, not direct
 *   move-stale       G1 takes over G0's MAC right after a map sync: the
 *                    16 frames the kernel still steers to G0's queue
 *                    are re-checked (direct.fallback.steer on vu0 grows
 *                    by exactly 16) and arrive at G1 only
 *   move-synced      after the next sync they are direct reads into G1
 *   ring-base        G1 closes while vhostd holds RX chains for its next
 *                    direct read: GET_VRING_BASE reports exactly the
 *                    buffers G1 got back (the held ones were returned)
 *   no-mrg           G2 without MRG_RXBUF: delivered, never direct
 *   direct-again     G0 takes the MAC back
 *   no-buffer        G0 stops taking frames: the ones beyond its RX
 *                    buffers fall back (counted) and are dropped, the
 *                    rest arrive intact; drained, reads are direct again;
 *                    ring-base for G0 as well
 *   mq-pairs         G3, two queue pairs, sends 16 UDP flows to the host,
 *                    flow f from pair f % 2; after a sync the kernel's
 *                    replies of each flow must arrive on the pair that
 *                    flow left by, intact, all read directly (a tun queue
 *                    per pair, the steering program choosing by the flow)
 *   mq-moved         G3 moves every flow to its other pair between two
 *                    syncs: the kernel still steers the replies to the
 *                    old pair's queue, the lender's re-check refuses
 *                    each (direct.fallback.steer grows by exactly 128)
 *                    and the switch delivers it on the new pair
 *   mq-unknown       replies of 16 flows G3 never sent: each keeps to one
 *                    pair, and the hash spreads them over both, on
 *                    either path
 *
 * Nothing waits a fixed time before counting: a case that needs the
 * steering map in line with the MAC table waits for tap0's steer_syncs
 * counter to pass a sync that began after the MAC was learned, and counts
 * are polled until they reach what is expected or a generous deadline
 * passes.  Every receive error and every virtio rule the device broke
 * (vdrv's dev_errors) fails the run.
 *
 * One line per case ("PASS name ..." / "FAIL name: why"); exit 1 on any
 * failure.  Traffic stays on the TAP in the caller's netns.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"
#include "ctl_stats.h"

#define TD_GUESTS	4
#define TD_N		64	/* frames per unicast case */
#define TD_WAIT_MS	15000	/* deadline for anything to happen */
#define TD_OVERFILL	400	/* > vdrv's 256 RX buffers */
#define TD_MTU		1000	/* announced by G1 when it comes back */
#define TD_FLOWS	16	/* UDP flows of the mq cases */
#define TD_PER_FLOW	8	/* replies per flow */
#define TD_MQ_MAGIC	0x6d717061	/* payload of the mq cases' frames */

/**
 * struct td_guest - one vdrv guest
 * @d:		device
 * @mac:	its MAC
 * @name:	vhostd's name for its port
 */
struct td_guest {
	struct vdrv_dev *d;
	uint8_t mac[6];
	char name[8];
};

static struct td_guest td_g[TD_GUESTS];
static const char *td_ctl;
static int td_ps = -1;
static int td_ifindex;
static uint8_t td_tap_mac[6];
static unsigned int td_failed;
static uint32_t td_seq;

static void __attribute__((format(printf, 1, 2), noreturn))
td_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL setup: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

/**
 * td_report() - print one case's result
 * @ok:		passed
 * @name:	case
 * @fmt:	details
 */
static void __attribute__((format(printf, 3, 4)))
td_report(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s: ", ok ? "PASS" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		td_failed++;
}

static void td_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int64_t td_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/**
 * td_ctr_at() - one counter of one port, from vhostd's "stats" reply
 * @port:	port name
 * @at:		NULL, or literal text to skip to first (an object such as
 *		"\"fallback\":", whose keys also occur elsewhere)
 * @key:	literal text just before the number, e.g. "\"tx_packets\":";
 *		the first occurrence after the port's name (and @at) is
 *		taken (every port object has every key)
 * Return: the value; exits on failure
 */
static unsigned long long td_ctr_at(const char *port, const char *at,
				    const char *key)
{
	static char buf[1 << 16];
	ssize_t len = ctl_stats(td_ctl, buf, sizeof(buf));
	char name[64];
	char *s;

	if (len < 0)
		td_fatal("ctl %s: %s", td_ctl, strerror((int)-len));
	snprintf(name, sizeof(name), "\"name\":\"%s\"", port);
	s = strstr(buf, name);
	if (s && at)
		s = strstr(s, at);
	if (s)
		s = strstr(s, key);
	if (!s)
		td_fatal("no %s%s%s in stats", port, at ? at : "", key);
	return strtoull(s + strlen(key), NULL, 10);
}

static unsigned long long td_ctr(const char *port, const char *key)
{
	return td_ctr_at(port, NULL, key);
}

static unsigned long long td_direct(const char *port)
{
	return td_ctr(port, "\"direct\":{\"packets\":");
}

static unsigned long long td_fallback_no_buffer(const char *port)
{
	return td_ctr_at(port, "\"fallback\":", "\"no_buffer\":");
}

static unsigned long long td_syncs(void)
{
	return td_ctr("tap0", "\"steer_syncs\":");
}

/**
 * td_wait_sync() - until a steering map sync that began after this call
 *		    has ended
 *
 * The control thread answers "stats" between syncs, so a sync counted
 * after the value read here began after it: every MAC learned before this
 * call is then in the map.
 *
 * Return: the sync count reached; exits if no sync came in TD_WAIT_MS
 */
static unsigned long long td_wait_sync(void)
{
	unsigned long long n = td_syncs(), m;
	int64_t end = td_ms() + TD_WAIT_MS;

	while ((m = td_syncs()) <= n) {
		if (td_ms() > end)
			td_fatal("no steering map sync in %d ms", TD_WAIT_MS);
		td_sleep_ms(20);
	}
	return m;
}

/**
 * td_wait_ctr() - poll a counter until it has grown by @want
 * @port:	port name
 * @at:		as td_ctr_at()
 * @key:	as td_ctr_at()
 * @base:	its value before the case
 * @want:	growth expected
 *
 * Return: the growth seen: @want, more, or what it was at the deadline
 */
static unsigned long long td_wait_ctr(const char *port, const char *at,
				      const char *key,
				      unsigned long long base,
				      unsigned long long want)
{
	int64_t end = td_ms() + TD_WAIT_MS;
	unsigned long long d;

	while ((d = td_ctr_at(port, at, key) - base) < want && td_ms() < end)
		td_sleep_ms(20);
	return d;
}


/**
 * td_tap_open() - AF_PACKET socket on @ifname: frames sent on it are
 *		   transmitted by the kernel on the TAP, i.e. towards vhostd
 * @ifname:	the TAP
 */
static void td_tap_open(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr;

	td_ps = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (td_ps < 0)
		td_fatal("AF_PACKET: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(td_ps, SIOCGIFINDEX, &ifr))
		td_fatal("%s: %s", ifname, strerror(errno));
	td_ifindex = ifr.ifr_ifindex;
	if (ioctl(td_ps, SIOCGIFHWADDR, &ifr))
		td_fatal("%s: hwaddr: %s", ifname, strerror(errno));
	memcpy(td_tap_mac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_ifindex = td_ifindex;
	if (bind(td_ps, (struct sockaddr *)&sll, sizeof(sll)))
		td_fatal("bind: %s", strerror(errno));
}

/**
 * td_inject() - the kernel transmits @n test frames to @dst
 * @dst:	destination MAC
 * @tag:	tag the receiver filters on
 * @n:		frames; lengths vary between 60 and 1514 bytes (td_len())
 */
static size_t td_len(unsigned int i)
{
	return 60 + (size_t)(i * 397u) % (1514 - 59);
}

static void td_inject(const uint8_t dst[6], uint32_t tag, unsigned int n)
{
	static uint8_t fr[1514];
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t len = td_len(i);

		vdrv_pkt_test_frame(fr, len, dst, td_tap_mac, tag, td_seq++);
		if (send(td_ps, fr, len, 0) != (ssize_t)len)
			td_fatal("inject: %s", strerror(errno));
		/* Stay well within the tun queue's length. */
		if (i % 16 == 15)
			td_sleep_ms(2);
	}
}

/**
 * td_collect() - receive test frames tagged @tag at @g
 * @g:		guest
 * @tag:	tag
 * @want:	stop after this many (0: just drain for @ms)
 * @ms:		give up after this long
 * @bad:	out: frames that failed their self-check (any tag)
 * Return: intact frames with @tag
 */
static unsigned int td_collect(struct td_guest *g, uint32_t tag,
			       unsigned int want, int ms, unsigned int *bad)
{
	static uint8_t buf[9216];
	struct timespec t0, t;
	unsigned int good = 0;

	*bad = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct vdrv_rx_pkt p = { .buf = buf, .cap = sizeof(buf) };
		struct vdrv_test_info ti;
		long left;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - ((t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if ((want && good >= want) || left <= 0)
			break;
		rc = vdrv_recv(g->d, &p, (int)left);
		if (rc < 0)
			td_fatal("%s: receive: %s (dev_errors %llu)", g->name,
				 strerror(-rc),
				 (unsigned long long)vdrv_stats(g->d)->dev_errors);
		if (!p.len)
			continue;
		rc = vdrv_pkt_test_check(buf, p.truncated ? p.cap : p.len, &ti);
		if (rc == -ENOMSG)
			continue;	/* not a test frame (IPv6 noise) */
		if (rc || p.truncated)
			(*bad)++;
		else if (ti.tag == tag)
			good++;
	}
	return good;
}

/**
 * td_announce() - @g sends a broadcast from @mac: the switch learns it
 * @g:		guest
 * @mac:	source MAC
 */
static void td_announce(struct td_guest *g, const uint8_t mac[6])
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t fr[64];
	unsigned int i, bad;

	vdrv_pkt_test_frame(fr, sizeof(fr), bc, mac, 0xfffe, td_seq++);
	if (vdrv_send(g->d, fr, sizeof(fr)))
		td_fatal("%s: announce failed", g->name);
	for (i = 0; i < TD_GUESTS; i++)
		if (&td_g[i] != g && td_g[i].d)
			td_collect(&td_g[i], 0xfffe, 1, 200, &bad);
}

/**
 * td_unicast() - inject @n frames to @mac, expect them all at @to only
 * @name:	case
 * @mac:	destination
 * @to:		guest that must get them
 * @others:	guests that must get none (NULL-terminated)
 * @n:		frames
 * Return: true if delivered as expected
 */
static bool td_unicast(const char *name, const uint8_t mac[6],
		       struct td_guest *to, struct td_guest **others,
		       unsigned int n)
{
	uint32_t tag = td_seq;
	unsigned int got, bad, stray = 0, b2;
	bool ok;

	td_inject(mac, tag, n);
	got = td_collect(to, tag, n, 3000, &bad);
	for (; *others; others++) {
		if (!(*others)->d)
			continue;	/* closed already */
		stray += td_collect(*others, tag, 0, 100, &b2);
		bad += b2;
	}
	ok = got == n && !bad && !stray;
	if (!ok)
		td_report(false, name, "%s got %u of %u, %u corrupt, %u at "
			  "other guests", to->name, got, n, bad, stray);
	return ok;
}

/**
 * td_open_pairs() - connect guest @i, driving @pairs queue pairs
 * @i:		index
 * @sock:	vhost-user socket
 * @mrg:	negotiate MRG_RXBUF
 * @mtu:	MTU to announce (NET_SET_MTU), 0 for none
 * @pairs:	queue pairs
 */
static void td_open_pairs(unsigned int i, const char *sock, bool mrg,
			  uint16_t mtu, unsigned int pairs)
{
	struct td_guest *g = &td_g[i];
	struct vdrv_opts o;
	int rc;

	vdrv_opts_init(&o, sock);
	o.mtu = mtu;
	o.pairs = pairs;
	if (!mrg)
		o.features &= ~(1ULL << 15 /* VIRTIO_NET_F_MRG_RXBUF */);
	rc = vdrv_open(&o, &g->d);
	if (rc)
		td_fatal("open %s: %s", sock, strerror(-rc));
	memcpy(g->mac, (uint8_t[6]){ 0x02, 0x7d, 0, 0, 0, (uint8_t)(i + 1) },
	       6);
	snprintf(g->name, sizeof(g->name), "vu%u", i);
}

/**
 * td_open() - connect guest @i, one queue pair
 * @i:		index
 * @sock:	vhost-user socket
 * @mrg:	negotiate MRG_RXBUF
 * @mtu:	MTU to announce (NET_SET_MTU), 0 for none
 */
static void td_open(unsigned int i, const char *sock, bool mrg, uint16_t mtu)
{
	td_open_pairs(i, sock, mrg, mtu, 1);
}

/**
 * td_close_check() - close @g; its RX ring's base must match what it got
 * @g:		guest
 *
 * Every RX chain vhostd popped is either returned used or given back
 * (virtq_unpop) when the ring stops, so GET_VRING_BASE must report
 * exactly the buffers the guest received; more would be buffers lost
 * with the chains held for direct reads.
 */
static void td_close_check(struct td_guest *g)
{
	uint16_t bases[VDRV_NRINGS] = { 0, 0 };
	uint16_t used;
	unsigned int bad;
	int rc;

	td_collect(g, 0, 0, 50, &bad);	/* take what is published */
	used = (uint16_t)vdrv_stats(g->d)->rx_bufs_used;
	rc = vdrv_close(g->d, bases);
	g->d = NULL;
	td_report(!rc && bases[0] == used && !bad, "ring-base", "%s: RX base "
		  "%u, buffers received %u (rc %d, %u corrupt)", g->name,
		  bases[0], used, rc, bad);
}

/**
 * td_move_stale() - @g1 takes over @g0's MAC between two map syncs
 * @g0:		guest whose MAC the map steers to its queue
 * @g1:		guest that takes the MAC over
 * @others:	guests that must get none of the frames
 *
 * Right after a sync, @g1 announces @g0's MAC and 16 frames are injected
 * to it: the kernel still steers them to @g0's queue, vhostd must re-check
 * each against the MAC table (direct.fallback.steer on vu0) and deliver
 * it to @g1.  Exact only if no sync came in between; on a machine so
 * loaded that one did, the case is tried again (3 times at most).
 */
static void td_move_stale(struct td_guest *g0, struct td_guest *g1,
			  struct td_guest **others)
{
	unsigned long long s0, steer = 0, n, syncs = 0;
	unsigned int tries;
	bool ok = false;

	for (tries = 1; tries <= 3; tries++) {
		if (tries > 1) {
			td_announce(g0, g0->mac);	/* back to the start */
			td_wait_sync();
		}
		n = td_wait_sync();
		s0 = td_ctr_at("vu0", "\"fallback\":", "\"steer\":");
		td_announce(g1, g0->mac);
		ok = td_unicast("move-stale", g0->mac, g1, others, 16);
		steer = td_wait_ctr("vu0", "\"fallback\":", "\"steer\":",
				    s0, 16);
		syncs = td_syncs() - n;
		if (!ok || !syncs)
			break;
	}
	if (ok)
		td_report(!syncs && steer == 16, "move-stale", "16 frames at vu1 "
			  "only, %llu re-checked and forwarded (%llu syncs "
			  "meanwhile, try %u)", steer, syncs, tries);
}

/**
 * td_udp() - an IPv4/UDP frame of flow @f between G3 and the host
 * @fr:		at least 128 bytes
 * @g:		the guest
 * @f:		flow: the guest's UDP port is 40000 + @f
 * @to_guest:	the reply direction (host -> guest), else guest -> host
 * @seq:	carried in the payload, with @f and TD_MQ_MAGIC
 *
 * Return: its length, 128
 */
static size_t td_udp(uint8_t *fr, const struct td_guest *g, unsigned int f,
		     bool to_guest, uint32_t seq)
{
	const uint8_t gip[4] = { 198, 18, 3, 2 }, hip[4] = { 198, 18, 3, 1 };
	uint16_t gport = htons((uint16_t)(40000 + f)), hport = htons(7000);
	uint32_t w[3] = { htonl(TD_MQ_MAGIC), htonl(f), htonl(seq) };
	const size_t len = 128, ip = 14, udp = 34;
	uint16_t v;
	size_t i;

	memset(fr, 0, len);
	memcpy(fr, to_guest ? g->mac : td_tap_mac, 6);
	memcpy(fr + 6, to_guest ? td_tap_mac : g->mac, 6);
	fr[12] = 0x08;
	fr[ip] = 0x45;
	v = htons((uint16_t)(len - ip));
	memcpy(fr + ip + 2, &v, 2);
	fr[ip + 8] = 64;
	fr[ip + 9] = 17;
	memcpy(fr + ip + 12, to_guest ? hip : gip, 4);
	memcpy(fr + ip + 16, to_guest ? gip : hip, 4);
	v = vdrv_pkt_csum(fr + ip, 20, 0);
	memcpy(fr + ip + 10, &v, 2);
	memcpy(fr + udp, to_guest ? &hport : &gport, 2);
	memcpy(fr + udp + 2, to_guest ? &gport : &hport, 2);
	v = htons((uint16_t)(len - udp));
	memcpy(fr + udp + 4, &v, 2);
	memcpy(fr + udp + 8, w, sizeof(w));
	for (i = udp + 8 + sizeof(w); i < len; i++)
		fr[i] = (uint8_t)(i * 7 + f + seq);
	return len;
}

/**
 * td_mq_replies() - the kernel sends TD_PER_FLOW replies of each flow in
 *		     [@f0, @f0 + TD_FLOWS) to @g; count where they arrive
 * @g:		the guest (two pairs)
 * @f0:		first flow
 * @want:	the pair each flow's replies must arrive on, by flow - @f0;
 *		UINT_MAX: the one its first reply arrives on (set here)
 * @direct:	out: frames read directly into @g meanwhile
 *
 * Return: replies that arrived intact on their flow's pair; every other
 *	   arrival (wrong pair, corrupt, unknown) is reported and not counted
 */
static unsigned int td_mq_replies(struct td_guest *g, unsigned int f0,
				  unsigned int *want,
				  unsigned long long *direct)
{
	const unsigned int n = TD_FLOWS * TD_PER_FLOW;
	static uint8_t fr[128], buf[2048];
	unsigned int i, good = 0, got = 0, wrong = 0, bad = 0;
	int64_t end;

	*direct = td_direct(g->name);
	for (i = 0; i < n; i++) {
		size_t len = td_udp(fr, g, f0 + i % TD_FLOWS, true, i);

		if (send(td_ps, fr, len, 0) != (ssize_t)len)
			td_fatal("inject: %s", strerror(errno));
		if (i % 16 == 15)
			td_sleep_ms(2);
	}
	end = td_ms() + 3000;
	while (got < n && td_ms() < end) {
		for (i = 0; i < 2; i++) {
			struct vdrv_rx_pkt p = { .buf = buf, .cap = sizeof(buf) };
			uint32_t w[3];
			unsigned int f;
			uint8_t ref[128];
			int rc = vdrv_recv(vdrv_pair(g->d, i), &p, 10);

			if (rc < 0)
				td_fatal("%s: receive: %s", g->name,
					 strerror(-rc));
			if (p.len != sizeof(ref))
				continue;	/* not ours (IPv6 noise) */
			memcpy(w, buf + 42, sizeof(w));
			if (ntohl(w[0]) != TD_MQ_MAGIC)
				continue;
			got++;
			f = ntohl(w[1]);
			td_udp(ref, g, f, true, ntohl(w[2]));
			if (f < f0 || f >= f0 + TD_FLOWS ||
			    memcmp(ref, buf, sizeof(ref)))
				bad++;
			else if (want[f - f0] == UINT_MAX)
				want[f - f0] = i, good++;
			else if (want[f - f0] != i)
				wrong++;
			else
				good++;
		}
	}
	*direct = td_direct(g->name) - *direct;
	if (good != n)
		printf("  %s: %u of %u replies on their pair, %u on the "
		       "other, %u corrupt, %u missing\n", g->name, good, n,
		       wrong, bad, n - got);
	return good;
}

/**
 * td_mq() - mq-pairs and mq-unknown (see the top of the file)
 * @g:		G3, two pairs
 */
static void td_mq(struct td_guest *g)
{
	unsigned int want[TD_FLOWS], f, good, pairs = vdrv_npairs(g->d);
	unsigned long long d, st, rx, syncs = 0;
	unsigned int tries;
	uint8_t fr[128];

	if (pairs != 2) {
		td_report(false, "mq-pairs", "%s drives %u pairs, not 2",
			  g->name, pairs);
		return;
	}
	td_announce(g, g->mac);
	for (f = 0; f < TD_FLOWS; f++) {
		size_t len = td_udp(fr, g, f, false, 0);

		want[f] = f % 2;
		if (vdrv_send(vdrv_pair(g->d, want[f]), fr, (uint32_t)len))
			td_fatal("%s: send on pair %u failed", g->name,
				 want[f]);
	}
	/* Sent and counted, then a sync that began after: the flows are
	 * in the steering program's table.
	 */
	rx = TD_FLOWS + 1;	/* and the announcement */
	td_wait_ctr(g->name, NULL, "\"rx_packets\":", 0, rx);
	td_wait_sync();
	st = td_ctr_at(g->name, "\"fallback\":", "\"steer\":");
	good = td_mq_replies(g, 0, want, &d);
	st = td_ctr_at(g->name, "\"fallback\":", "\"steer\":") - st;
	td_report(good == TD_FLOWS * TD_PER_FLOW &&
		  d == TD_FLOWS * TD_PER_FLOW && !st, "mq-pairs",
		  "%u of %u replies intact on the pair their flow left by, "
		  "%llu read directly, %llu re-steered", good,
		  TD_FLOWS * TD_PER_FLOW, d, st);

	/* Every flow moves to the other pair just after a sync. */
	for (tries = 1; tries <= 5; tries++) {
		unsigned long long n;

		td_wait_sync();
		n = td_syncs();
		for (f = 0; f < TD_FLOWS; f++) {
			size_t len = td_udp(fr, g, f, false, 0);

			want[f] ^= 1;
			if (vdrv_send(vdrv_pair(g->d, want[f]), fr,
				      (uint32_t)len))
				td_fatal("%s: send failed", g->name);
		}
		rx += TD_FLOWS;
		td_wait_ctr(g->name, NULL, "\"rx_packets\":", 0, rx);
		st = td_ctr_at(g->name, "\"fallback\":", "\"steer\":");
		good = td_mq_replies(g, 0, want, &d);
		st = td_ctr_at(g->name, "\"fallback\":", "\"steer\":") - st;
		syncs = td_syncs() - n;
		if (!syncs)
			break;
	}
	td_report(!syncs && good == TD_FLOWS * TD_PER_FLOW &&
		  st == TD_FLOWS * TD_PER_FLOW, "mq-moved",
		  "%u of %u replies on the flow's new pair, %llu re-steered "
		  "(%llu syncs meanwhile, try %u)", good,
		  TD_FLOWS * TD_PER_FLOW, st, syncs, tries);

	/* Flows G3 never sent: the hash spreads them, the same way on
	 * both paths, so each flow keeps to one pair and both pairs get
	 * some of them.
	 */
	for (f = 0; f < TD_FLOWS; f++)
		want[f] = UINT_MAX;
	good = td_mq_replies(g, 100, want, &d);
	for (f = 0, pairs = 0; f < TD_FLOWS; f++)
		pairs |= want[f] < 2 ? 1u << want[f] : 0;
	td_report(good == TD_FLOWS * TD_PER_FLOW && pairs == 3, "mq-unknown",
		  "%u of %u replies of unknown flows each on one pair, "
		  "pairs used %#x, %llu read directly", good,
		  TD_FLOWS * TD_PER_FLOW, pairs, d);
}

int main(int argc, char **argv)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct td_guest *g0 = &td_g[0], *g1 = &td_g[1], *g2 = &td_g[2];
	struct td_guest *not0[] = { g1, g2, NULL };
	struct td_guest *not0b[] = { g2, NULL };
	struct td_guest *not1[] = { g0, g2, NULL };
	struct td_guest *not2[] = { g0, g1, NULL };
	unsigned long long d0, d1, a, b;
	unsigned int bad, bad1, n0, n1;
	uint32_t tag;
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 7) {
		fprintf(stderr, "usage: tapdirect_itest IFNAME CTL SOCK0 "
			"SOCK1 SOCK2 SOCK3\n");
		return 2;
	}
	td_ctl = argv[2];
	td_tap_open(argv[1]);
	td_open(0, argv[3], true, 0);
	td_open(1, argv[4], true, 0);
	td_open(2, argv[5], false, 0);
	td_open_pairs(3, argv[6], true, 0, 2);

	/* direct-unicast */
	td_announce(g0, g0->mac);
	td_wait_sync();
	d0 = td_direct("vu0");
	a = td_direct("tap0");
	ok = td_unicast("direct-unicast", g0->mac, g0, not0, TD_N);
	d0 = td_direct("vu0") - d0;
	a = td_direct("tap0") - a;
	if (ok)
		td_report(d0 == TD_N && a == TD_N, "direct-unicast",
			  "%u frames intact, %llu direct reads into vu0 "
			  "(tap0 counted %llu)", TD_N, d0, a);

	/* broadcast */
	tag = td_seq;
	d0 = td_direct("vu0");
	td_inject(bc, tag, 16);
	n0 = td_collect(g0, tag, 16, 3000, &bad);
	n1 = td_collect(g1, tag, 16, 3000, &bad1);
	d0 = td_direct("vu0") - d0;
	td_report(n0 == 16 && n1 == 16 && !bad && !bad1 && !d0, "broadcast",
		  "vu0 got %u, vu1 got %u of 16, %llu direct", n0, n1, d0);

	/* move-stale: before the next sync, the map still says vu0. */
	td_move_stale(g0, g1, not1);

	/* move-synced */
	td_wait_sync();
	d0 = td_direct("vu0");
	d1 = td_direct("vu1");
	ok = td_unicast("move-synced", g0->mac, g1, not1, TD_N);
	d0 = td_direct("vu0") - d0;
	d1 = td_direct("vu1") - d1;
	if (ok)
		td_report(d1 == TD_N && !d0, "move-synced", "%llu direct reads "
			  "into vu1, %llu into vu0", d1, d0);

	/* ring-base, with chains held for the next direct read (anything
	 * else sent to vu1 would use them up first)
	 */
	td_close_check(g1);

	/* mtu: G1 comes back announcing MTU 1000 (QEMU's host_mtu=).  A
	 * guest may rely on never getting a longer frame, so the longer
	 * ones its queue is steered must not be read into it: they fall
	 * back (reason "mtu") and are dropped as too big; the rest are
	 * read directly and arrive intact.
	 */
	td_open(1, argv[4], true, TD_MTU);
	td_announce(g1, g1->mac);
	td_wait_sync();
	{
		unsigned int i, big = 0;
		unsigned long long m, tb;

		for (i = 0; i < TD_N; i++)
			big += td_len(i) > TD_MTU + 14;	/* untagged */
		d1 = td_direct("vu1");
		m = td_ctr("vu1", "\"mtu\":");
		tb = td_ctr("vu1", "\"too_big\":");
		tag = td_seq;
		td_inject(g1->mac, tag, TD_N);
		n1 = td_collect(g1, tag, TD_N - big, 3000, &bad1);
		m = td_wait_ctr("vu1", NULL, "\"mtu\":", m, big);
		tb = td_wait_ctr("vu1", NULL, "\"too_big\":", tb, big);
		n1 += td_collect(g1, tag, 0, 200, &bad);	/* none more */
		d1 = td_direct("vu1") - d1;
		td_report(big && n1 == TD_N - big && !bad && !bad1 &&
			  d1 == TD_N - big && m == big && tb == big, "mtu",
			  "%u of %u frames within MTU %u arrived (%llu direct), "
			  "%llu over it fell back, %llu dropped as too big",
			  n1, TD_N, TD_MTU, d1, m, tb);
	}
	td_close_check(g1);

	/* no-mrg */
	td_announce(g2, g2->mac);
	td_wait_sync();
	b = td_direct("vu2");
	ok = td_unicast("no-mrg", g2->mac, g2, not2, 16);
	b = td_direct("vu2") - b;
	if (ok)
		td_report(!b, "no-mrg", "16 frames intact, %llu direct", b);

	/* G0 takes its MAC back (G1 is gone) and gets direct reads again. */
	td_announce(g0, g0->mac);
	td_wait_sync();
	d0 = td_direct("vu0");
	ok = td_unicast("direct-again", g0->mac, g0, not0b, 16);
	d0 = td_direct("vu0") - d0;
	if (ok)
		td_report(d0 == 16, "direct-again", "%llu direct reads into "
			  "vu0", d0);

	/* no-buffer: G0 stops taking frames, so its ring runs out of RX
	 * buffers.  The frames beyond go through the bounce buffers (not
	 * left in the kernel queue, where the worker would spin on a
	 * readable fd), are counted as direct-path fallbacks and dropped
	 * for want of buffers; the ones that fitted arrive intact, and
	 * once G0 drains, reads are direct again.
	 */
	a = td_fallback_no_buffer("vu0");
	b = td_ctr("vu0", "\"no_buffer\":");	/* the drop counter */
	d0 = td_direct("vu0");
	tag = td_seq;
	td_inject(g0->mac, tag, TD_OVERFILL);
	/* Every frame was read, straight in or through the fallback ... */
	{
		int64_t end = td_ms() + TD_WAIT_MS;

		while (td_direct("vu0") - d0 + td_fallback_no_buffer("vu0") -
		       a < TD_OVERFILL && td_ms() < end)
			td_sleep_ms(20);
	}
	a = td_fallback_no_buffer("vu0") - a;
	/* ... and every fallback found the ring still full. */
	b = td_wait_ctr("vu0", NULL, "\"no_buffer\":", b, a);
	n0 = td_collect(g0, tag, TD_OVERFILL - (unsigned int)b, 3000, &bad);
	n0 += td_collect(g0, tag, 0, 200, &bad1);	/* none more */
	bad += bad1;
	td_report(a >= 1 && b >= 1 && n0 >= 1 && !bad &&
		  n0 + b == TD_OVERFILL, "no-buffer",
		  "%u of %u frames fitted and arrived intact (%u corrupt), "
		  "%llu fell back for want of buffers, %llu dropped",
		  n0, TD_OVERFILL, bad, a, b);
	d0 = td_direct("vu0");
	ok = td_unicast("no-buffer", g0->mac, g0, not0b, 16);
	d0 = td_direct("vu0") - d0;
	if (ok)
		td_report(d0 == 16, "no-buffer-drained", "%llu direct reads "
			  "into vu0 once it took buffers again", d0);
	td_close_check(g0);
	td_mq(&td_g[3]);
	if (vdrv_close(td_g[3].d, NULL))
		td_report(false, "close", "vu3: close failed");
	if (vdrv_close(g2->d, NULL))
		td_report(false, "close", "vu2: close failed");
	close(td_ps);
	td_report(!vdrv_dev_errors_freed(), "device-rules", "%llu virtio "
		  "rules broken by the device",
		  (unsigned long long)vdrv_dev_errors_freed());
	printf("%u failed\n", td_failed);
	return td_failed ? 1 : 0;
}
