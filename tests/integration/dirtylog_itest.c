// SPDX-License-Identifier: GPL-2.0-or-later
/* dirtylog_itest.c - live migration's dirty log, checked against memory
 *
 *   dirtylog_itest [--packed] CTL SOCK_A SOCK_B [IFNAME]
 *
 * Guest A is the one "migrating": it shares a dirty log with vhostd
 * (vdrv_log_start(), as QEMU does when a migration starts) and the test
 * plays QEMU's RAM copy with a shadow of A's memory.  Each round:
 *
 *   driver    A takes what it received, posts fresh RX buffers and 8 TX
 *             frames to B (writes of the guest's own: QEMU tracks those
 *             itself, so they happen before the copy)
 *   copy      the log cleared, then all of A's memory copied (QEMU's
 *             order: bits exchanged to 0, then the pages read)
 *   device    B sends A 16 frames, the kernel sends A 12 over IFNAME (a
 *             TAP of vhostd's, read straight into A's buffers; 4 of them
 *             over A's MTU, refused after the read), while vhostd also
 *             finishes A's TX; the test waits until vhostd has done it
 *             all (B's TX completions, vhostd's counters), never
 *             touching A's memory
 *   compare   the pages the log marks copied again, then A's memory and
 *             the shadow compared: any page that differs is a write of
 *             vhostd's it did not mark, and fails the run
 *
 * vhostd's two workers write A's RX ring (B's turns and the TAP's) and
 * its TX ring at once.  Then logging goes off (a cancelled migration)
 * and one more frame must still arrive.  Without IFNAME (no netns) the
 * TAP part is left out.  One line per case, exit 1 on any failure.
 */
#include <errno.h>
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

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"
#include "ctl_stats.h"

#define DL_ROUNDS	40u
#define DL_TX		8	/* A -> B per round */
#define DL_FROM_B	16u	/* B -> A per round */
#define DL_FROM_TAP	12	/* kernel -> A per round, over the TAP */
#define DL_MTU		1000	/* A's; a third of the TAP frames exceed it */
#define DL_WAIT_MS	10000
#define DL_REGIONS	16
#define DL_PAGE		4096

static const char *dl_ctl;
static int dl_ps = -1;
static uint8_t dl_tap_mac[6];
static uint32_t dl_seq;
static const uint8_t dl_mac_a[6] = { 0x02, 0xd1, 0, 0, 0, 0x0a };
static const uint8_t dl_mac_b[6] = { 0x02, 0xd1, 0, 0, 0, 0x0b };

static void __attribute__((format(printf, 1, 2), noreturn))
dl_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL dirty-log: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static int64_t dl_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void dl_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/**
 * dl_ctr() - one counter of one port from vhostd's "stats" reply
 * @port:	port name
 * @key:	literal text before the number (first after the port's name)
 *
 * Return: the value; exits on failure
 */
static unsigned long long dl_ctr(const char *port, const char *key)
{
	static char buf[1 << 16];
	char name[64], *s;
	ssize_t len = ctl_stats(dl_ctl, buf, sizeof(buf));

	if (len < 0)
		dl_fatal("ctl %s: %s", dl_ctl, strerror((int)-len));
	snprintf(name, sizeof(name), "\"name\":\"%s\"", port);
	s = strstr(buf, name);
	if (s)
		s = strstr(s, key);
	if (!s)
		dl_fatal("no %s %s in stats", port, key);
	return strtoull(s + strlen(key), NULL, 10);
}

/**
 * dl_wait_ctr() - until a counter reaches @want
 * @port:	port
 * @key:	as dl_ctr()
 * @want:	value
 */
static void dl_wait_ctr(const char *port, const char *key,
			unsigned long long want)
{
	int64_t end = dl_ms() + DL_WAIT_MS;
	unsigned long long v;

	while ((v = dl_ctr(port, key)) < want) {
		if (dl_ms() > end)
			dl_fatal("%s %s stuck at %llu, want %llu", port, key, v,
				 want);
		dl_sleep_ms(2);
	}
}

/**
 * dl_tap_open() - AF_PACKET socket on the TAP: what it sends, the kernel
 *		   transmits towards vhostd
 * @ifname:	the TAP
 */
static void dl_tap_open(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr;

	dl_ps = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (dl_ps < 0)
		dl_fatal("AF_PACKET: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(dl_ps, SIOCGIFINDEX, &ifr))
		dl_fatal("%s: %s", ifname, strerror(errno));
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (ioctl(dl_ps, SIOCGIFHWADDR, &ifr))
		dl_fatal("%s: hwaddr: %s", ifname, strerror(errno));
	memcpy(dl_tap_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (bind(dl_ps, (struct sockaddr *)&sll, sizeof(sll)))
		dl_fatal("bind: %s", strerror(errno));
}

/**
 * dl_open() - one guest
 * @sock:	its socket
 * @packed:	packed rings
 * @migrating:	guest A: LOG_SHMFD asked for, an MTU announced
 *
 * Return: the device
 */
static struct vdrv_dev *dl_open(const char *sock, bool packed, bool migrating)
{
	struct vdrv_dev *d;
	struct vdrv_opts o;
	int rc;

	vdrv_opts_init(&o, sock);
	o.packed = packed;
	if (migrating) {
		o.protocol_features |= 1ULL << VDRV_PF_LOG_SHMFD;
		o.mtu = DL_MTU;
	}
	rc = vdrv_open(&o, &d);
	if (rc)
		dl_fatal("open %s: %s", sock, strerror(-rc));
	return d;
}

/**
 * dl_send() - @n test frames from @d, @len bytes each at most
 * @d:		guest
 * @src:	source MAC
 * @dst:	destination MAC
 * @n:		frames
 * @len:	longest frame
 */
static void dl_send(struct vdrv_dev *d, const uint8_t *src, const uint8_t *dst,
		    unsigned int n, size_t len)
{
	uint8_t fr[1514];
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t l = 60 + (dl_seq * 211u) % (len - 59);

		vdrv_pkt_test_frame(fr, l, dst, src, 0xd1, dl_seq++);
		if (vdrv_send(d, fr, (uint32_t)l))
			dl_fatal("send: ring full or broken");
	}
}

/**
 * dl_inject() - the kernel sends A @n frames over the TAP
 * @n:		frames: lengths 60..1514, a third over A's MTU
 */
static void dl_inject(unsigned int n)
{
	uint8_t fr[1514];
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t l = i % 3 == 2 ? 1200 + (i * 37u) % 314 :
			   60 + (i * 97u) % (DL_MTU + 14 - 60);

		vdrv_pkt_test_frame(fr, l, dl_mac_a, dl_tap_mac, 0xd1, dl_seq++);
		if (send(dl_ps, fr, l, 0) != (ssize_t)l)
			dl_fatal("inject: %s", strerror(errno));
	}
}

/**
 * dl_drain() - receive everything published to @d (driver writes)
 * @d:		guest
 *
 * Return: frames received
 */
static unsigned int dl_drain(struct vdrv_dev *d)
{
	static uint8_t buf[16][2048];
	struct vdrv_rx_pkt p[16];
	unsigned int got = 0, i;
	int n;

	do {
		for (i = 0; i < 16; i++)
			p[i] = (struct vdrv_rx_pkt){ .buf = buf[i],
						     .cap = sizeof(buf[i]) };
		n = vdrv_rx_burst(d, p, 16);
		if (n < 0)
			dl_fatal("receive: ring broken (dev_errors %llu)",
				 (unsigned long long)vdrv_stats(d)->dev_errors);
		got += (unsigned int)n;
	} while (n > 0);
	return got;
}

/**
 * struct dl_shadow - the migration's copy of A's memory and the log
 * @r:		A's regions
 * @nr:		how many
 * @copy:	per region, the copy
 * @log:	the log (vdrv_log_bits())
 * @log_len:	its bytes
 */
struct dl_shadow {
	struct vdrv_region_view r[DL_REGIONS];
	unsigned int nr;
	uint8_t *copy[DL_REGIONS];
	uint8_t *log;
	size_t log_len;
};

/**
 * dl_snap() - clear the log, then copy every page (a migration's pass)
 * @s:		shadow
 */
static void dl_snap(struct dl_shadow *s)
{
	unsigned int i;
	size_t b;

	for (b = 0; b < s->log_len; b++)
		__atomic_exchange_n(&s->log[b], 0, __ATOMIC_ACQ_REL);
	for (i = 0; i < s->nr; i++)
		memcpy(s->copy[i], s->r[i].hva, s->r[i].size);
}

/**
 * dl_sync() - copy the marked pages, then count the pages still different
 * @s:		shadow
 * @marked:	out: pages the log marked
 * @first:	out: guest address of the first page missed
 *
 * Return: pages written and not marked
 */
static unsigned int dl_sync(struct dl_shadow *s, unsigned int *marked,
			    uint64_t *first)
{
	unsigned int i, missed = 0;
	uint64_t p;

	*marked = 0;
	for (i = 0; i < s->nr; i++) {
		for (p = 0; p < s->r[i].size / DL_PAGE; p++) {
			uint64_t page = s->r[i].gpa / DL_PAGE + p;
			uint8_t *bit = &s->log[page / 8];

			if (page / 8 >= s->log_len)
				dl_fatal("log of %zu bytes too small for page "
					 "%llu", s->log_len,
					 (unsigned long long)page);
			if (!(__atomic_load_n(bit, __ATOMIC_ACQUIRE) &
			      (1u << (page % 8))))
				continue;
			(*marked)++;
			memcpy(s->copy[i] + p * DL_PAGE,
			       s->r[i].hva + p * DL_PAGE, DL_PAGE);
		}
	}
	for (i = 0; i < s->nr; i++)
		for (p = 0; p < s->r[i].size / DL_PAGE; p++)
			if (memcmp(s->copy[i] + p * DL_PAGE,
				   s->r[i].hva + p * DL_PAGE, DL_PAGE)) {
				if (!missed++)
					*first = s->r[i].gpa + p * DL_PAGE;
			}
	return missed;
}

int main(int argc, char **argv)
{
	unsigned long long a_rx0, tap_rx0 = 0, tap_drop0 = 0;
	unsigned int round, marked, total_marked = 0, got = 0, missed, i;
	bool packed = false, tap;
	struct vdrv_dev *a, *b;
	struct dl_shadow s;
	uint64_t first = 0;
	int argi = 1;

	if (argi < argc && !strcmp(argv[argi], "--packed")) {
		packed = true;
		argi++;
	}
	if (argc - argi < 3) {
		fprintf(stderr, "usage: %s [--packed] CTL SOCK_A SOCK_B "
			"[IFNAME]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	dl_ctl = argv[argi];
	tap = argc - argi > 3;
	if (tap)
		dl_tap_open(argv[argi + 3]);
	a = dl_open(argv[argi + 1], packed, true);
	b = dl_open(argv[argi + 2], packed, false);

	/* Both MACs learned (and A's in the TAP's steering map). */
	dl_send(a, dl_mac_a, dl_mac_b, 1, 60);
	dl_send(b, dl_mac_b, dl_mac_a, 1, 60);
	if (tap) {
		unsigned long long s0 = dl_ctr("tap0", "\"steer_syncs\":");

		dl_wait_ctr("tap0", "\"steer_syncs\":", s0 + 2);
	}
	dl_sleep_ms(50);
	dl_drain(a);
	dl_drain(b);
	vdrv_tx_reclaim(a);
	vdrv_tx_reclaim(b);

	if (vdrv_log_start(a))
		dl_fatal("logging refused");
	s.nr = vdrv_regions(a, s.r, DL_REGIONS);
	if (s.nr > DL_REGIONS)
		dl_fatal("%u regions", s.nr);
	for (i = 0; i < s.nr; i++)
		if (!(s.copy[i] = malloc(s.r[i].size)))
			dl_fatal("no memory");
	s.log = vdrv_log_bits(a, &s.log_len);

	for (round = 0; round < DL_ROUNDS; round++) {
		unsigned long long b_tx = vdrv_stats(b)->tx_packets;

		/* driver: A's own writes, before the copy */
		got += dl_drain(a);
		vdrv_tx_reclaim(a);
		a_rx0 = dl_ctr("vu0", "\"rx_packets\":");
		if (tap) {
			tap_rx0 = dl_ctr("tap0", "\"rx_packets\":");
			tap_drop0 = dl_ctr("vu0", "\"too_big\":");
		}
		dl_send(a, dl_mac_a, dl_mac_b, DL_TX, 1514);
		dl_snap(&s);

		/* device: vhostd writes into A, A's driver sits still */
		dl_send(b, dl_mac_b, dl_mac_a, DL_FROM_B, DL_MTU + 14);
		if (tap)
			dl_inject(DL_FROM_TAP);
		for (;;) {
			vdrv_tx_reclaim(b);
			if (vdrv_stats(b)->tx_completed >= b_tx + DL_FROM_B)
				break;
			dl_sleep_ms(1);
		}
		dl_wait_ctr("vu0", "\"rx_packets\":", a_rx0 + DL_TX);
		if (tap)
			dl_wait_ctr("tap0", "\"rx_packets\":",
				    tap_rx0 + DL_FROM_TAP);
		/* The counters come just before the rings' last writes. */
		dl_sleep_ms(20);

		missed = dl_sync(&s, &marked, &first);
		total_marked += marked;
		if (missed)
			dl_fatal("round %u: %u page(s) written and not marked "
				 "(first at guest address 0x%llx), %u marked",
				 round, missed, (unsigned long long)first,
				 marked);
	}
	got += dl_drain(a);
	printf("PASS dirty-log%s: %u rounds, %u frames into A, %u pages "
	       "marked, none missed%s\n", packed ? "-packed" : "", DL_ROUNDS,
	       got, total_marked, tap ? "" : " (no TAP)");
	if (got < DL_ROUNDS * DL_FROM_B)
		dl_fatal("A got %u frames, want %u at least", got,
			 DL_ROUNDS * DL_FROM_B);
	if (tap && dl_ctr("vu0", "\"too_big\":") == tap_drop0 &&
	    dl_ctr("vu0", "\"mtu\":") == 0)
		dl_fatal("no TAP frame was refused over A's MTU");

	/* A cancelled migration: logging off, the rings never stopped. */
	if (vdrv_log_stop(a))
		dl_fatal("logging off refused");
	memset(s.log, 0, s.log_len);
	dl_send(b, dl_mac_b, dl_mac_a, 1, 60);
	for (i = 0; i < 2000 && !dl_drain(a); i++)
		dl_sleep_ms(1);
	if (i == 2000)
		dl_fatal("no frame after logging went off");
	for (i = 0; i < s.log_len; i++)
		if (s.log[i])
			dl_fatal("marks after logging went off");
	if (vdrv_stats(a)->dev_errors || vdrv_stats(b)->dev_errors)
		dl_fatal("the device broke the ring protocol");
	printf("PASS log-off%s: the rings ran on, no marks\n",
	       packed ? "-packed" : "");
	vdrv_close(b, NULL);
	vdrv_close(a, NULL);
	for (i = 0; i < s.nr; i++)
		free(s.copy[i]);
	return 0;
}
