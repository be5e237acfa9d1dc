// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vxlan.c - the vxlan port type through its port_ops, no switch
 *
 * A vxlan port bound to 127.0.0.1 with remotes 127.0.0.2 and 127.0.0.3,
 * each remote a socket of the test on the same UDP port, opened through
 * port_vxlan's ops with a stub port_host (no workers):
 *  - flood: a broadcast reaches both remotes, header and frame exact;
 *  - learn: a frame from 127.0.0.2 teaches its source MAC, and unicast
 *    to it then goes there only; the MAC moving to 127.0.0.3 follows;
 *  - static entries through the type's commands: sent to their VTEP
 *    (taken as known), never moved (spoofed from elsewhere), deleted
 *    with the VTEP they brought; bad keys refused;
 *  - hostile datagrams: short, wrong flags, another VNI, a stranger's,
 *    group and zero sources, over mtu=: one frame out of them, the rest
 *    counted under their reasons, nothing of theirs learned;
 *  - a 5000-byte TSO frame: five datagrams, each a valid TCP segment
 *    behind the header; a 64 KiB one flooded to both remotes: every
 *    segment at each, payload whole and in order (batches flushed
 *    mid-frame);
 *  - GRO: those segments sent back arrive as one TSO frame again, the
 *    payload whole, a stray frame after it on its own; sent as one UDP
 *    GSO message (what a vhostd peer sends), too;
 *  - UDP GRO: 40 datagrams in one message give a 32-frame burst and an
 *    8-frame one, in order, none lost, the turn not dry in between;
 *  - remcsum=: a TSO frame leaves as segments whose VXLAN headers carry
 *    the RCO flag and the checksum's place and whose TCP checksum field
 *    is the pseudo-header sum; sent back so, they are taken as
 *    NEEDS_CSUM, join unverified into one TSO frame, and a header
 *    pointing outside its frame is refused;
 *  - vtep-max-macs= and ageing=.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/stats.h"
#include "../../src/port/port.h"
#include "tcp4.h"

static struct port port;
static int peer[3] = { -1, -1, -1 };	/* 127.0.0.2, .3, .4 */
static unsigned int dport;

#include "stub_host.h"

#define CTR(field)	stats_sum(port.stats, offsetof(struct port_stats, field))
/* The type's counters, as port_vxlan.c numbers them. */
#define VX_BAD_HEADER	CTR(type[0])
#define VX_BAD_VNI	CTR(type[1])
#define VX_FLOOD	CTR(type[2])
#define VX_LEARN_LIMIT	CTR(type[4])
#define VX_MOVES	CTR(type[5])
#define VX_MTU_INNER	CTR(type[6])

static const uint8_t MAC_M[6] = { 2, 0, 0, 0, 0x4d, 1 };
static const uint8_t MAC_LOCAL[6] = { 2, 0, 0, 0, 0x4c, 1 };

/**
 * udp_at() - a UDP socket bound to 127.0.0.@last:@port
 * @last:	last byte of the address
 * @port:	port (0: any)
 * Return: fd, with a 2 s receive timeout
 */
static int udp_at(unsigned int last, unsigned int port_no)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 1 << 21;

	if (fd < 0)
		return -1;
	a.sin_port = htons((uint16_t)port_no);
	a.sin_addr.s_addr = htonl(0x7f000000U | last);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

/**
 * open_port() - the port under test, from @keys after the common ones
 * @keys:	more spec keys, "" for none
 * Return: 0 or -1
 */
static int open_port(const char *keys)
{
	const struct port_ops *ops = port_ops_find("vxlan");
	char spec[256], err[256];
	struct port_spec ps;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		peer[i] = udp_at(2 + i, dport);
		if (peer[i] < 0)
			return -1;
	}
	snprintf(spec, sizeof(spec), "vxlan,local=127.0.0.1,remote=127.0.0.2,"
		 "remote=127.0.0.3,vni=4242,dstport=%u%s", dport, keys);
	if (!ops || conf_parse_port(spec, 0, &ps, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	port_host = &stub_host;
	memset(&port, 0, sizeof(port));
	snprintf(port.name, sizeof(port.name), "%s", ps.name);
	port.ops = ops;
	port.priv = calloc(1, ops->priv_size);
	if (!port.priv || ops->open(&port, &ps))
		return -1;
	return port.up ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	dport = 20000 + (unsigned int)getpid() % 30000;
	return open_port("");
}

static int setup_limits(void **state)
{
	(void)state;
	dport = 20000 + (unsigned int)getpid() % 30000;
	return open_port(",vtep-max-macs=2,ageing=1");
}

static int teardown(void **state)
{
	unsigned int i;

	(void)state;
	port.ops->close(&port);
	free(port.priv);
	for (i = 0; i < 3; i++) {
		close(peer[i]);
		peer[i] = -1;
	}
	port_host = NULL;
	return 0;
}

/**
 * frame_of() - an ARP-sized frame @dst <- @src into @f (60 bytes)
 * @f:		buffer
 * @dst:	destination MAC
 * @src:	source MAC
 * @tag:	a byte to tell frames apart
 * Return: its length
 */
static size_t frame_of(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		       uint8_t tag)
{
	memset(f, tag, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	return 60;
}

/* xmit_one() - one plain frame through xmit; returns what it delivered */
static unsigned int xmit_one(uint8_t *f, size_t len)
{
	struct pkt pkt, *pp = &pkt;

	memset(&pkt, 0, sizeof(pkt));
	memcpy(&pkt.eth, f, ETH_HLEN);
	pkt.len = (uint32_t)len;
	pkt.iovcnt = 1;
	pkt.iov[0].iov_base = f;
	pkt.iov[0].iov_len = len;
	return port.ops->xmit(&port, &pp, 1);
}

/**
 * recv_vx() - a datagram at remote @i: its VXLAN header checked
 * @i:		0 (127.0.0.2), 1 (.3), 2 (.4)
 * @buf:	out: the inner frame
 * @cap:	room
 * @wait:	block (2 s) for it, else return -1 at once if none
 * Return: the inner frame's length, -1 if none
 */
static ssize_t recv_vx(unsigned int i, uint8_t *buf, size_t cap, bool wait)
{
	static uint8_t d[70000];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ssize_t r;

	r = recvfrom(peer[i], d, sizeof(d), wait ? 0 : MSG_DONTWAIT,
		     (struct sockaddr *)&from, &fl);
	if (r < 0)
		return -1;
	assert_true(r >= 8);
	assert_int_equal(d[0], 0x08);			/* I flag only */
	assert_int_equal(d[1] | d[2] | d[3], 0);
	assert_int_equal(d[4] << 16 | d[5] << 8 | d[6], 4242);
	assert_int_equal(d[7], 0);
	assert_int_equal(ntohl(from.sin_addr.s_addr), 0x7f000001);
	assert_int_not_equal(ntohs(from.sin_port), dport); /* entropy port */
	assert_true((size_t)r - 8 <= cap);
	memcpy(buf, d + 8, (size_t)r - 8);
	return r - 8;
}

/**
 * send_vx_w() - a datagram to the port from 127.0.0.@last
 * @last:	source address's last byte (a remote, or a stranger)
 * @flags:	first header word
 * @word:	second header word (VNI << 8, the reserved byte)
 * @f:		inner frame
 * @len:	its length
 */
static void send_vx_w(unsigned int last, uint32_t flags, uint32_t word,
		      const uint8_t *f, size_t len)
{
	static uint8_t d[70000];
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint32_t h[2] = { htonl(flags), htonl(word) };
	int fd = udp_at(last, 0);

	assert_true(fd >= 0);
	to.sin_port = htons((uint16_t)dport);
	to.sin_addr.s_addr = htonl(0x7f000001);
	memcpy(d, h, 8);
	memcpy(d + 8, f, len);
	assert_int_equal(sendto(fd, d, len + 8, 0, (struct sockaddr *)&to,
				sizeof(to)), (ssize_t)(len + 8));
	close(fd);
}

/* send_vx() - as send_vx_w(), the second word VNI @vni, reserved 0 */
static void send_vx(unsigned int last, uint32_t flags, uint32_t vni,
		    const uint8_t *f, size_t len)
{
	send_vx_w(last, flags, vni << 8, f, len);
}

/**
 * turn() - one worker turn at the port's socket
 * @pkts:	out: its frames
 * Return: how many
 */
static unsigned int turn(struct pkt **pkts)
{
	struct port_turn t = { .budget = 64 };
	unsigned int n;

	usleep(20000);		/* loopback delivers at once; be sure */
	assert_true(port.ops->rx_begin(&port, 0, &t));
	n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &t);
	port.ops->rx_end(&port, 0, &t);
	return n;
}

/* out_put() - a struct port_out into a static buffer */
static char reply[65536];
static size_t reply_len;

__attribute__((format(printf, 2, 3)))
static void out_put(struct port_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)o;
	va_start(ap, fmt);
	n = vsnprintf(reply + reply_len, sizeof(reply) - reply_len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(reply) - reply_len);
	reply_len += (size_t)n;
}

/**
 * cmd() - run the type's command @verb with @args
 * @verb:	"fdb", "add", "del"
 * @args:	its keys
 * Return: its result; the reply is in @reply
 */
static int cmd(const char *verb, const char *args)
{
	struct port_out out = { out_put, NULL };
	char err[256] = "";
	unsigned int i;

	reply_len = 0;
	reply[0] = '\0';
	for (i = 0; i < port.ops->n_cmds; i++)
		if (!strcmp(port.ops->cmds[i].verb, verb)) {
			int rc = port.ops->cmds[i].fn(&port, args, &out, err,
						      sizeof(err));

			if (rc)
				snprintf(reply, sizeof(reply), "%s", err);
			return rc;
		}
	fail_msg("no command %s", verb);
	return -1;
}

/* The broadcast floods; a learned MAC gets unicast; a move follows. */
static void test_flood_learn_move(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t f[60], got[100];
	struct pkt *pkts[PORT_BURST];
	size_t len;

	(void)state;
	len = frame_of(f, bcast, MAC_LOCAL, 1);
	assert_int_equal(xmit_one(f, len), 1);
	assert_int_equal(recv_vx(0, got, sizeof(got), true), (ssize_t)len);
	assert_memory_equal(got, f, len);
	assert_int_equal(recv_vx(1, got, sizeof(got), true), (ssize_t)len);
	assert_memory_equal(got, f, len);
	assert_int_equal(VX_FLOOD, 2);

	/* Unknown unicast floods too. */
	len = frame_of(f, MAC_M, MAC_LOCAL, 2);
	assert_int_equal(xmit_one(f, len), 1);
	assert_true(recv_vx(0, got, sizeof(got), true) > 0);
	assert_true(recv_vx(1, got, sizeof(got), true) > 0);
	assert_int_equal(VX_FLOOD, 4);

	/* M speaks from 127.0.0.2: learned there. */
	len = frame_of(f, MAC_LOCAL, MAC_M, 3);
	send_vx(2, 0x08000000, 4242, f, len);
	assert_int_equal(turn(pkts), 1);
	assert_int_equal(pkts[0]->len, len);
	assert_memory_equal(pkts[0]->iov[0].iov_base, f, len);
	assert_memory_equal(&pkts[0]->eth, f, ETH_HLEN);
	assert_int_equal(pkts[0]->src_feat, 0);

	len = frame_of(f, MAC_M, MAC_LOCAL, 4);
	assert_int_equal(xmit_one(f, len), 1);
	assert_int_equal(recv_vx(0, got, sizeof(got), true), (ssize_t)len);
	assert_int_equal(got[20], 4);
	assert_int_equal(recv_vx(1, got, sizeof(got), false), -1);
	assert_int_equal(VX_FLOOD, 4);

	/* M moves to 127.0.0.3. */
	len = frame_of(f, MAC_LOCAL, MAC_M, 5);
	send_vx(3, 0x08000000, 4242, f, len);
	assert_int_equal(turn(pkts), 1);
	assert_int_equal(VX_MOVES, 1);
	len = frame_of(f, MAC_M, MAC_LOCAL, 6);
	assert_int_equal(xmit_one(f, len), 1);
	assert_int_equal(recv_vx(1, got, sizeof(got), true), (ssize_t)len);
	assert_int_equal(recv_vx(0, got, sizeof(got), false), -1);

	assert_int_equal(cmd("fdb", ""), 0);
	assert_non_null(strstr(reply, "\"mac\":\"02:00:00:00:4d:01\","
				      "\"vtep\":\"127.0.0.3\",\"static\":false"));
	assert_non_null(strstr(reply, "\"vni\":4242"));
}

/* Static entries: to their VTEP, never moved, deleted with it. */
static void test_static(void **state)
{
	static const uint8_t mac_s[6] = { 2, 0, 0, 0, 0x53, 1 };
	uint8_t f[60], got[100];
	struct pkt *pkts[PORT_BURST];
	size_t len;
	unsigned int i;
	static const char *const bad[] = {
		"mac=02:00:00:00:53:01", "missing vtep=",
		"vtep=127.0.0.4", "missing mac=",
		"mac=02:00:00:00:53,vtep=127.0.0.4", "not a MAC",
		"mac=01:00:00:00:53:01,vtep=127.0.0.4", "not a station",
		"mac=02:00:00:00:53:01,vtep=::1", "address family",
		"mac=02:00:00:00:53:01,vtep=127.0.0.4,vtep=127.0.0.5",
		"repeated",
		"mac=02:00:00:00:53:01,vni=3", "unknown",
		"mac=02:00:00:00:53:01,vtep", "not KEY=VALUE",
	};

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i += 2) {
		assert_int_equal(cmd("add", bad[i]), -EINVAL);
		if (!strstr(reply, bad[i + 1]))
			fail_msg("add %s: '%s' lacks '%s'", bad[i], reply,
				 bad[i + 1]);
	}
	assert_int_equal(cmd("add", "mac=02:00:00:00:53:01,vtep=127.0.0.4"),
			 0);
	assert_int_equal(cmd("fdb", ""), 0);
	assert_non_null(strstr(reply, "\"vtep\":\"127.0.0.4\",\"flood\":false,"
				      "\"static_macs\":1"));

	len = frame_of(f, mac_s, MAC_LOCAL, 7);
	assert_int_equal(xmit_one(f, len), 1);
	assert_int_equal(recv_vx(2, got, sizeof(got), true), (ssize_t)len);
	assert_int_equal(recv_vx(0, got, sizeof(got), false), -1);
	assert_int_equal(VX_FLOOD, 0);

	/* Claimed from 127.0.0.2: spoofed; from its own VTEP: taken. */
	len = frame_of(f, MAC_LOCAL, mac_s, 8);
	send_vx(2, 0x08000000, 4242, f, len);
	assert_int_equal(turn(pkts), 0);
	assert_int_equal(CTR(drops[STATS_DROP_SPOOFED]), 1);
	send_vx(4, 0x08000000, 4242, f, len);
	assert_int_equal(turn(pkts), 1);

	assert_int_equal(cmd("del", "mac=02:00:00:00:53:01"), 0);
	assert_int_equal(cmd("del", "mac=02:00:00:00:53:01"), -EINVAL);
	assert_int_equal(cmd("fdb", ""), 0);
	assert_null(strstr(reply, "127.0.0.4"));
	/* The VTEP went with its entry: 127.0.0.4 is a stranger again. */
	send_vx(4, 0x08000000, 4242, f, len);
	assert_int_equal(turn(pkts), 0);
	assert_int_equal(CTR(peer_refused), 1);
	assert_int_equal(cmd("fdb", "mac=02:00:00:00:53:01"), -EINVAL);
}

/* Hostile datagrams: each counted by reason, one good frame out. */
static void test_hostile(void **state)
{
	static uint8_t big[1600];
	static const uint8_t zero[6], group[6] = { 1, 0, 0x5e, 0, 0, 1 };
	struct pkt *pkts[PORT_BURST];
	uint8_t f[60];
	size_t len = frame_of(f, MAC_LOCAL, MAC_M, 9);
	unsigned int n;

	(void)state;
	send_vx(2, 0x08000000, 4242, f, 4);		/* short */
	send_vx(2, 0x0c000000, 4242, f, len);		/* flags */
	send_vx(2, 0x08000001, 4242, f, len);		/* reserved bits */
	/* RCO, not asked for: TCP checksum at 34, inside the frame */
	send_vx_w(2, 0x08200000, 4242 << 8 | 34 >> 1, f, len);
	send_vx(2, 0x08000000, 4243, f, len);		/* VNI */
	send_vx(9, 0x08000000, 4242, f, len);		/* stranger */
	memcpy(f + 6, group, 6);
	send_vx(2, 0x08000000, 4242, f, len);		/* group source */
	memcpy(f + 6, zero, 6);
	send_vx(2, 0x08000000, 4242, f, len);		/* zero source */
	frame_of(big, MAC_LOCAL, MAC_M, 10);
	send_vx(2, 0x08000000, 4242, big, sizeof(big));	/* over mtu= */
	frame_of(f, MAC_LOCAL, MAC_M, 11);
	send_vx(2, 0x08000000, 4242, f, len);		/* good */

	n = turn(pkts);
	assert_int_equal(n, 1);
	assert_int_equal(((uint8_t *)pkts[0]->iov[0].iov_base)[20], 11);
	assert_int_equal(VX_BAD_HEADER, 4);
	assert_int_equal(VX_BAD_VNI, 1);
	assert_int_equal(CTR(peer_refused), 1);
	assert_int_equal(CTR(drops[STATS_DROP_SPOOFED]), 3);
	assert_int_equal(VX_MTU_INNER, 1);
	assert_int_equal(CTR(rx_packets), 1);

	/* Out, too: a frame over mtu= is refused, counted. */
	frame_of(big, MAC_M, MAC_LOCAL, 12);
	assert_int_equal(xmit_one(big, sizeof(big)), 0);
	assert_int_equal(VX_MTU_INNER, 2);
	assert_int_equal(CTR(drops[STATS_DROP_TOO_BIG]), 2);
}

/* tso_frame() - t4_tso_frame() from MAC_LOCAL */
static void tso_frame(struct pkt *pkt, uint8_t *f, const uint8_t *dst,
		      size_t pay, uint16_t mss)
{
	t4_tso_frame(pkt, f, dst, MAC_LOCAL, pay, mss);
}

/**
 * take_segments() - every segment of a TSO frame at remote @i, checked
 * @i:		remote
 * @pay:	the frame's payload bytes
 * @mss:	its gso_size
 * Return: segments received
 */
static unsigned int take_segments(unsigned int i, size_t pay, size_t mss)
{
	static uint8_t got[2000];
	size_t done = 0;
	unsigned int segs = 0;
	ssize_t r;

	while (done < pay) {
		r = recv_vx(i, got, sizeof(got), true);
		assert_true(r > 54);
		assert_true(t4_ok(got, (size_t)r));
		assert_true((size_t)r - 54 <= mss);
		assert_int_equal(got[54], (uint8_t)done);
		done += (size_t)r - 54;
		segs++;
	}
	assert_int_equal(done, pay);
	return segs;
}

/* TSO unicast: five segments; 64 KiB flooded: all of them at both. */
static void test_tso(void **state)
{
	static uint8_t f[66000];
	struct pkt *pkts[PORT_BURST], pkt, *pp = &pkt;
	uint8_t g[60];
	size_t len = frame_of(g, MAC_LOCAL, MAC_M, 1);
	unsigned int segs;

	(void)state;
	send_vx(3, 0x08000000, 4242, g, len);		/* M at .3 */
	assert_int_equal(turn(pkts), 1);
	tso_frame(&pkt, f, MAC_M, 5000, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(take_segments(1, 5000, 1000), 5);
	assert_int_equal(recv_vx(0, g, sizeof(g), false), -1);

	/* 65480 bytes at 1448 a segment: 46 datagrams per remote, 92 in
	 * all, several batches.
	 */
	tso_frame(&pkt, f, (const uint8_t[]){ 2, 0, 0, 0, 0x55, 5 }, 65480,
		  1448);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	segs = take_segments(0, 65480, 1448);
	assert_int_equal(segs, 46);
	assert_int_equal(take_segments(1, 65480, 1448), segs);
	assert_int_equal(VX_FLOOD, 2);
	assert_int_equal(CTR(tx_packets), 2);
}

/* GRO: a TSO frame's segments, sent back by a remote, arrive as one
 * frame whose bytes are the original's and which says TSO again.
 */
static void test_gro(void **state)
{
	static uint8_t f[8000], d[64][1600], got[8000];
	struct pkt *pkts[PORT_BURST], pkt, *pp = &pkt;
	size_t len[64], o = 0;
	unsigned int i, segs = 0;
	ssize_t r;

	(void)state;
	tso_frame(&pkt, f, MAC_M, 7000, 1400);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	while (segs < 5) {			/* flooded: take .2's copy */
		r = recv_vx(0, d[segs], sizeof(d[0]), true);
		assert_true(r > 54);
		len[segs++] = (size_t)r;
	}
	assert_int_equal(recv_vx(0, got, sizeof(got), false), -1);
	/* The segments come back from .3, with a stray frame after. */
	for (i = 0; i < segs; i++)
		send_vx(3, 0x08000000, 4242, d[i], len[i]);
	send_vx(3, 0x08000000, 4242, f + 7100,
		frame_of(f + 7100, MAC_LOCAL, MAC_M, 9));
	assert_int_equal(turn(pkts), 2);
	assert_int_equal(pkts[0]->vnet.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(pkts[0]->vnet.gso_size, 1400);
	assert_int_equal(pkts[0]->vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(pkts[0]->len, 54 + 7000);
	for (i = 0; i < pkts[0]->iovcnt; i++) {
		memcpy(got + o, pkts[0]->iov[i].iov_base,
		       pkts[0]->iov[i].iov_len);
		o += pkts[0]->iov[i].iov_len;
	}
	assert_int_equal(o, 54 + 7000);
	for (i = 0; i < 7000; i++)
		if (got[54 + i] != (uint8_t)i)
			fail_msg("payload byte %u", i);
	assert_int_equal(pkts[1]->len, 60);
	assert_int_equal(pkts[1]->vnet.gso_type, 0);
	assert_int_equal(CTR(type[8]), 4);	/* gro_joined */
	assert_int_equal(CTR(type[9]), 1);	/* gro_frames */
}

/**
 * send_gso() - @n datagrams of @size bytes (the last @last) from
 *		127.0.0.3 in one UDP GSO send, as a vhostd peer sends a TSO
 *		frame: the port's UDP_GRO socket gets them as one message
 * @d:		the datagrams, back to back, VXLAN headers included
 * @size:	each one's size
 * @total:	all their bytes
 */
static void send_gso(const uint8_t *d, size_t size, size_t total)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct iovec iov = { (void *)(uintptr_t)d, total };
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctl;
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	uint16_t gs = (uint16_t)size;
	int fd = udp_at(3, 0);

	assert_true(fd >= 0);
	to.sin_port = htons((uint16_t)dport);
	to.sin_addr.s_addr = htonl(0x7f000001);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(gs));
	memcpy(CMSG_DATA(c), &gs, sizeof(gs));
	assert_int_equal(sendmsg(fd, &m, 0), (ssize_t)total);
	close(fd);
}

/* 40 datagrams in one UDP GSO message: the port cuts them (UDP_GRO),
 * hands 32 frames to a burst that has room for 32 and the other 8 to the
 * next, in order, none lost; a TSO frame's segments so sent come out
 * joined.
 */
static void test_udp_gro(void **state)
{
	static uint8_t d[64 * 1600], f[8000], got[8000];
	struct pkt *pkts[PORT_BURST], pkt, *pp = &pkt;
	struct port_turn t = { .budget = 64 };
	uint32_t h[2] = { htonl(0x08000000), htonl(4242 << 8) };
	size_t o = 0, len;
	unsigned int i, n;
	ssize_t r;

	(void)state;
	for (i = 0; i < 40; i++) {
		memcpy(d + i * 68, h, 8);
		frame_of(d + i * 68 + 8, MAC_LOCAL, MAC_M, (uint8_t)i);
	}
	send_gso(d, 68, 40 * 68);
	usleep(20000);
	assert_true(port.ops->rx_begin(&port, 0, &t));
	n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &t);
	assert_int_equal(n, 32);
	assert_false(t.dry);		/* 8 wait in the port, not the socket */
	for (i = 0; i < n; i++)
		assert_int_equal(((uint8_t *)pkts[i]->iov[0].iov_base)[20], i);
	n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &t);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++)
		assert_int_equal(((uint8_t *)pkts[i]->iov[0].iov_base)[20],
				 32 + i);
	n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &t);
	port.ops->rx_end(&port, 0, &t);
	assert_int_equal(n, 0);
	assert_true(t.dry);
	assert_int_equal(t.done, 40);
	assert_int_equal(CTR(rx_packets), 40);

	/* A TSO frame's segments, as one UDP GSO send: one frame again. */
	tso_frame(&pkt, f, MAC_M, 7000, 1400);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	for (i = 0, o = 0; i < 5; i++) {
		r = recv_vx(1, d + o + 8, 1600, true);	/* M is at .3 */
		assert_int_equal(r, 54 + 1400);
		memcpy(d + o, h, 8);
		o += 8 + (size_t)r;
	}
	send_gso(d, 8 + 54 + 1400, o);
	assert_int_equal(turn(pkts), 1);
	assert_int_equal(pkts[0]->vnet.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(pkts[0]->len, 54 + 7000);
	for (i = 0, len = 0; i < pkts[0]->iovcnt; i++) {
		memcpy(got + len, pkts[0]->iov[i].iov_base,
		       pkts[0]->iov[i].iov_len);
		len += pkts[0]->iov[i].iov_len;
	}
	for (i = 0; i < 7000; i++)
		if (got[54 + i] != (uint8_t)i)
			fail_msg("payload byte %u", i);
}

/* vtep-max-macs=2: the third MAC is not learned; ageing=1: all go. */
static int setup_rco(void **state)
{
	(void)state;
	dport = 20000 + (unsigned int)getpid() % 30000;
	return open_port(",remcsum=on");
}

/* remcsum=on: out with the checksum left to the receiver, in likewise. */
static void test_rco(void **state)
{
	static uint8_t f[8000], d[8][1600];
	struct pkt *pkts[PORT_BURST], pkt, *pp = &pkt;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint8_t g[60], ph[12];
	size_t len = frame_of(g, MAC_LOCAL, MAC_M, 1), done = 0;
	ssize_t r[8];
	unsigned int i, segs = 0;
	int fd;

	(void)state;
	send_vx(3, 0x08000000, 4242, g, len);		/* M at .3 */
	assert_int_equal(turn(pkts), 1);
	tso_frame(&pkt, f, MAC_M, 5000, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	while (done < 5000) {
		uint8_t *x;
		uint16_t c;

		assert_true(segs < 8);
		r[segs] = recv(peer[1], d[segs], sizeof(d[0]), 0);
		assert_true(r[segs] > 8 + 54);
		x = d[segs];
		assert_int_equal(x[0], 0x08);			/* I */
		assert_int_equal(x[1], 0x20);			/* R */
		assert_int_equal(x[2] | x[3], 0);
		assert_int_equal(x[4] << 16 | x[5] << 8 | x[6], 4242);
		assert_int_equal(x[7], 34 >> 1);		/* TCP at 34 */
		/* the TCP checksum field: the pseudo-header sum */
		memcpy(ph, x + 8 + 26, 8);
		ph[8] = 0;
		ph[9] = 6;
		ph[10] = (uint8_t)((r[segs] - 8 - 34) >> 8);
		ph[11] = (uint8_t)(r[segs] - 8 - 34);
		c = t4_fold(t4_sum(0, ph, 12));
		assert_int_equal(x[8 + 34 + 16] << 8 | x[8 + 34 + 17], c);
		assert_int_equal(x[8 + 54], (uint8_t)done);
		done += (size_t)r[segs] - 8 - 54;
		segs++;
	}
	assert_int_equal(segs, 5);

	/* Back from .3 as they came: NEEDS_CSUM, joined without a look at
	 * a TCP checksum that is not one.
	 */
	fd = udp_at(3, 0);
	assert_true(fd >= 0);
	to.sin_port = htons((uint16_t)dport);
	to.sin_addr.s_addr = htonl(0x7f000001);
	for (i = 0; i < segs; i++)
		assert_int_equal(sendto(fd, d[i], (size_t)r[i], 0,
					(struct sockaddr *)&to, sizeof(to)),
				 r[i]);
	assert_int_equal(turn(pkts), 1);
	assert_int_equal(pkts[0]->vnet.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(pkts[0]->vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(pkts[0]->len, 54 + 5000);
	assert_int_equal(CTR(type[8]), 4);		/* gro_joined */
	assert_int_equal(CTR(type[10]), 5);		/* remcsum_rx */

	/* One alone keeps the carrier's metadata; one whose checksum
	 * would lie in its Ethernet header, or past its end, is refused.
	 */
	assert_int_equal(sendto(fd, d[4], (size_t)r[4], 0,
				(struct sockaddr *)&to, sizeof(to)), r[4]);
	assert_int_equal(turn(pkts), 1);
	assert_int_equal(pkts[0]->vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(pkts[0]->vnet.csum_start, htole16(34));
	assert_int_equal(pkts[0]->vnet.csum_offset, htole16(16));
	d[4][7] = 2;					/* start 4 */
	sendto(fd, d[4], (size_t)r[4], 0, (struct sockaddr *)&to, sizeof(to));
	d[4][7] = 0x7f;					/* start 254 */
	sendto(fd, d[4], 8 + 100, 0, (struct sockaddr *)&to, sizeof(to));
	assert_int_equal(turn(pkts), 0);
	assert_int_equal(VX_BAD_HEADER, 2);
	close(fd);
}

static void test_limits(void **state)
{
	struct pkt *pkts[PORT_BURST];
	uint8_t f[60], mac[6] = { 2, 0, 0, 0, 0x4e, 0 };
	unsigned int i;

	(void)state;
	for (i = 1; i <= 3; i++) {
		mac[5] = (uint8_t)i;
		send_vx(2, 0x08000000, 4242, f,
			frame_of(f, MAC_LOCAL, mac, (uint8_t)i));
	}
	assert_int_equal(turn(pkts), 3);	/* forwarded all the same */
	assert_int_equal(VX_LEARN_LIMIT, 1);
	assert_int_equal(cmd("fdb", ""), 0);
	assert_non_null(strstr(reply, "\"learned_macs\":2"));
	assert_null(strstr(reply, "02:00:00:00:4e:03"));

	sleep(3);
	port.ops->timer(&port);
	assert_int_equal(cmd("fdb", ""), 0);
	assert_non_null(strstr(reply, "\"macs\":[]"));
	assert_non_null(strstr(reply, "\"learned_macs\":0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flood_learn_move, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_static, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gro, setup, teardown),
		cmocka_unit_test_setup_teardown(test_udp_gro, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rco, setup_rco, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup_limits,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
