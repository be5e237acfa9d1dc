// SPDX-License-Identifier: GPL-2.0-or-later
/* it.c - vdrv_itest's guests: open, close, send, receive, expect, counters
 *
 * One thread plays every guest.  Frames are vdrv test frames (tag,
 * sequence, length, pattern), so every receive proves content and source;
 * every clean close proves the device gave back every buffer and broke no
 * virtio rule.  Counters come from vhostd's control socket (the path in
 * $VDRV_ITEST_CTL), read here directly so a scenario can take a delta
 * around exactly the frames it sent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../ctl_stats.h"
#include "vdrv_itest.h"

#define IT_CTL_REPLY_MAX	(1U << 20)

struct it_port it_ports[IT_PORTS_MAX];
unsigned int it_nports;
uint8_t it_buf[IT_FRAME_MAX], it_frame[IT_FRAME_MAX];
uint32_t it_seq;
const uint8_t it_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/**
 * it_fail() - report a failure and exit 1
 * @fmt:	printf format
 */
void __attribute__((format(printf, 1, 2), noreturn))
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
int64_t it_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * it_open() - open port @p with its options
 * @p:	port
 */
void it_open(struct it_port *p)
{
	int ret = vdrv_open(&p->o, &p->d);

	if (ret)
		it_fail("%s: open %s: %s", p->name, p->path, strerror(-ret));
}

/**
 * it_tx_settle() - wait until the device gave back every TX buffer of @p
 * @p:	port, open
 *
 * vhostd returns a TX chain only after switch_forward() dealt with its
 * frame, so afterwards every frame @p sent is delivered, dropped or
 * counted: counters read now include them.
 */
void it_tx_settle(struct it_port *p)
{
	const struct vdrv_stats *st = vdrv_stats(p->d);
	int64_t end = it_ms() + 2000;

	while (st->tx_completed < st->tx_packets && it_ms() < end &&
	       vdrv_tx_reclaim(p->d) >= 0)
		usleep(1000);
	if (st->tx_completed != st->tx_packets)
		it_fail("%s: %llu of %llu TX buffers never returned", p->name,
			(unsigned long long)st->tx_completed,
			(unsigned long long)st->tx_packets);
}

/**
 * it_close() - close port @p cleanly, checking the device stayed sane
 * @p:	port
 */
void it_close(struct it_port *p)
{
	const struct vdrv_stats *st = vdrv_stats(p->d);
	uint16_t bases[VDRV_NRINGS], used[VDRV_NRINGS];
	uint64_t errs, sent;
	int ret;

	/* Everything sent must come back before the ring stops... */
	it_tx_settle(p);
	errs = st->dev_errors;
	sent = st->tx_packets;
	/* A packed ring's base is a position, not a count. */
	if (vdrv_packed(p->d))
		sent = vdrv_avail_base(p->d, VDRV_TX_RING);
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
void it_send(struct it_port *p, const uint8_t dst[6], uint32_t tag,
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
bool it_recv(struct it_port *p, struct vdrv_test_info *ti,
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
unsigned int it_expect(struct it_port *p, uint32_t tag, uint32_t seq,
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
void it_expect_none(struct it_port *p, const char *what)
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
void it_drain(int ms)
{
	int64_t end = it_ms() + ms;
	unsigned int i;

	do {
		for (i = 0; i < it_nports; i++) {
			struct vdrv_rx_pkt pk = { .buf = NULL };
			unsigned int q;

			if (!it_ports[i].d)
				continue;
			/* Every queue pair the port drives (sc_mq). */
			for (q = 0; q < vdrv_npairs(it_ports[i].d); q++)
				while (vdrv_rx_burst(vdrv_pair(it_ports[i].d,
							       q),
						     &pk, 1) > 0)
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
void it_sync(void)
{
	bool seen[IT_PORTS_MAX][IT_PORTS_MAX];
	int64_t deadline = it_ms() + 10000;
	unsigned int i, j, missing;

	memset(seen, 0, sizeof(seen));
	do {
		for (i = 0; i < it_nports; i++) {
			uint8_t mac[6] = { 0x02, 0xfe, 0, 0, 0, (uint8_t)i };
			int ret;

			if (!it_ports[i].d)
				continue;
			vdrv_pkt_test_frame(it_frame, 64, it_bcast, mac,
					    IT_PROBE_TAG + i, 0);
			ret = vdrv_send(it_ports[i].d, it_frame, 64);
			if (ret)
				it_fail("%s: probe: %s", it_ports[i].name,
					strerror(-ret));
		}
		usleep(20000);
		for (j = 0; j < it_nports * VDRV_PAIRS_MAX; j++) {
			struct vdrv_dev *d = it_ports[j / VDRV_PAIRS_MAX].d;
			struct vdrv_rx_pkt pk;
			struct vdrv_test_info ti;

			/* Probes may land on any queue pair (sc_mq). */
			if (!d || !(d = vdrv_pair(d, j % VDRV_PAIRS_MAX)))
				continue;
			for (;;) {
				memset(&pk, 0, sizeof(pk));
				pk.buf = it_buf;
				pk.cap = sizeof(it_buf);
				if (vdrv_rx_burst(d, &pk, 1) <= 0)
					break;
				if (!vdrv_pkt_test_check(it_buf, pk.len, &ti) &&
				    ti.tag >= IT_PROBE_TAG &&
				    ti.tag - IT_PROBE_TAG < it_nports)
					seen[ti.tag - IT_PROBE_TAG]
					    [j / VDRV_PAIRS_MAX] = true;
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
void it_exchange(struct it_port *a, struct it_port *b, unsigned int n,
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
void it_setup(int argc, char **argv)
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
		p->name[0] = (char)(i < 26 ? 'A' + i : 'a' + i - 26);
		snprintf(p->vu, sizeof(p->vu), "vu%u", i);
	}
}

/**
 * it_need() - fail unless at least @n ports were given
 * @n:	ports needed
 */
void it_need(unsigned int n)
{
	if (it_nports < n)
		it_fail("scenario needs %u sockets", n);
}

/**
 * it_open_all() - open every port and wait until they all see each other
 */
void it_open_all(void)
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
void it_learn_all(void)
{
	unsigned int i;

	for (i = 0; i < it_nports; i++)
		if (it_ports[i].d)
			it_send(&it_ports[i], it_bcast, IT_PROBE_TAG + 200, 0,
				64);
	it_drain(100);
}

/**
 * it_close_all() - close every open port
 */
void it_close_all(void)
{
	unsigned int i;

	for (i = 0; i < it_nports; i++)
		if (it_ports[i].d)
			it_close(&it_ports[i]);
}

/**
 * it_ctl_line() - the "stats" line of one port, from vhostd's ctl socket
 * @port:	port name (vu0, ...)
 * @line:	out: the port's JSON object, NUL-terminated
 * @cap:	size of @line
 *
 * The socket is $VDRV_ITEST_CTL.  "stats" prints one port object per
 * line, so everything a key search needs is on that one line: a key
 * never matches in a neighbour's object.
 */
static void it_ctl_line(const char *port, char *line, size_t cap)
{
	static char buf[IT_CTL_REPLY_MAX];
	const char *ctl = getenv("VDRV_ITEST_CTL");
	char name[64];
	ssize_t len;
	size_t n;
	char *s, *e;

	if (!ctl)
		it_fail("counters: set VDRV_ITEST_CTL to vhostd's ctl socket");
	len = ctl_stats(ctl, buf, sizeof(buf));
	if (len < 0)
		it_fail("ctl %s: %s", ctl, strerror((int)-len));
	snprintf(name, sizeof(name), "\"name\":\"%s\"", port);
	s = strstr(buf, name);
	if (!s)
		it_fail("ctl: no port %s in stats (%zd bytes)", port, len);
	while (s > buf && s[-1] != '\n')
		s--;
	e = strchrnul(s, '\n');
	n = (size_t)(e - s);
	if (n >= cap)
		it_fail("ctl: stats line of %s too long", port);
	memcpy(line, s, n);
	line[n] = '\0';
}

/**
 * it_ctr() - one counter of one port, from vhostd's "stats"
 * @port:	port name
 * @key:	literal text just before the number, e.g. "\"port_down\":"
 *		(the first occurrence in the port's object is taken)
 * Return: the value; fails the test if it is not there
 */
unsigned long long it_ctr(const char *port, const char *key)
{
	char line[4096], *s, *end;
	unsigned long long v;

	it_ctl_line(port, line, sizeof(line));
	s = strstr(line, key);
	if (!s)
		it_fail("ctl: no %s in the stats of %s", key, port);
	v = strtoull(s + strlen(key), &end, 10);
	if (end == s + strlen(key))
		it_fail("ctl: %s of %s is not a number", key, port);
	return v;
}

/**
 * it_queue_ctr() - one per-queue-pair counter of one port ("queues"[q])
 * @port:	port name
 * @q:		queue pair
 * @key:	counter name, e.g. "rx_packets"
 * Return: the value; fails the test if it is not there
 */
unsigned long long it_queue_ctr(const char *port, unsigned int q,
				const char *key)
{
	char line[4096], k[64], *s, *end;
	unsigned long long v;
	unsigned int i;

	it_ctl_line(port, line, sizeof(line));
	s = strstr(line, "\"queues\":[");
	for (i = 0; s && i <= q; i++)
		s = strchr(s + 1, '{');
	snprintf(k, sizeof(k), "\"%s\":", key);
	if (!s || !(s = strstr(s, k)) || strchr(s, '}') > strchr(s, ']'))
		it_fail("ctl: no queues[%u].%s in the stats of %s", q, key,
			port);
	v = strtoull(s + strlen(k), &end, 10);
	if (end == s + strlen(k))
		it_fail("ctl: queues[%u].%s of %s is not a number", q, key,
			port);
	return v;
}

/**
 * it_port_up() - whether vhostd says the port forwards ("up")
 * @port:	port name
 * Return: true for "up":true, false for "up":false; fails otherwise
 */
bool it_port_up(const char *port)
{
	char line[4096];

	it_ctl_line(port, line, sizeof(line));
	if (strstr(line, "\"up\":true"))
		return true;
	if (strstr(line, "\"up\":false"))
		return false;
	it_fail("ctl: no \"up\" in the stats of %s", port);
}
