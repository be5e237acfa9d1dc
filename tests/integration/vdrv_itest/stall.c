// SPDX-License-Identifier: GPL-2.0-or-later
/* stall.c - front ends that would hold a blocking control plane
 *
 * Scenario stall, five ports:
 *
 *   A (p0) <-> B (p1)   ordinary guests, exchanging frames throughout
 *   p2                  "half": 6 bytes of a message header, then silence
 *   p3                  "dribble": valid GET_FEATURES requests, one byte
 *                       every ST_DRIBBLE_MS (a message takes ~0.25 s)
 *   p4                  "deaf": GET_FEATURES requests in bursts, never
 *                       reading a reply
 *
 * For ST_RUN_MS, vhostd's ctl socket is asked for a port's counters
 * every ST_TICK_MS, each answer timed: the slowest must come within
 * ST_CTL_MAX_MS (a control thread that read whole messages blocking held
 * each of those front ends for up to a second).  Then: "half" has been
 * dropped (its message was incomplete for a second), "deaf" has been
 * dropped (a reply that did not fit is a lost connection), "dribble" is
 * still connected and got one reply per request it finished; violations
 * counted on p2 and p4 only, and A and B still exchange frames.
 *
 * Scenario listen-full: the helper for hostile.sh's client-stall test: a
 * socket at the first SOCK listening with a backlog of 0, already holding
 * one connection nobody accepts (a front end that stopped accepting); a
 * client-mode port's connect() to it would block.  Runs until killed
 * or ST_LISTEN_S.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vdrv_itest.h"

#define ST_RUN_MS	2500
#define ST_TICK_MS	20
#define ST_DRIBBLE_MS	20
#define ST_CTL_MAX_MS	100
#define ST_DEAF_BURST	64
#define ST_LISTEN_S	120

/* GET_FEATURES (1), version 1, no payload: 12 bytes, reply 20. */
static const uint32_t st_get_features[3] = { 1, 1, 0 };
#define ST_REQ_LEN	sizeof(st_get_features)
#define ST_REPLY_LEN	20

/**
 * st_connect() - a raw connection to a vhost-user socket
 * @path:	socket
 * Return: the fd; fails the test otherwise
 */
static int st_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		it_fail("%s: path too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		it_fail("connect %s: %s", path, strerror(errno));
	return fd;
}

/**
 * st_closed() - whether vhostd closed @fd, reading (and counting) what
 *		 it sent before
 * @fd:		connection
 * @timeout_ms:	how long to wait for the end
 * @bytes:	out, added to: bytes read
 * Return: true on end of stream (or a reset)
 */
static bool st_closed(int fd, int timeout_ms, size_t *bytes)
{
	int64_t deadline = it_ms() + timeout_ms;
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - it_ms();
		ssize_t n;

		if (poll(&pfd, 1, left > 0 ? (int)left : 0) <= 0)
			return false;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return true;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return true;
		if (n > 0)
			*bytes += (size_t)n;
	}
}

/**
 * sc_stall() - three stalling front ends, the ctl socket timed
 */
void sc_stall(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	uint8_t deaf_burst[ST_DEAF_BURST * ST_REQ_LEN];
	size_t dribbled = 0, replies = 0, deaf_sent = 0, deaf_read = 0;
	size_t half_read = 0;
	int64_t start, next, slowest = 0, half_at = -1;
	unsigned int queries = 0, i, frames = 0;
	int half, drib, deaf;
	bool deaf_gone = false;

	it_need(5);
	for (i = 0; i < ST_DEAF_BURST; i++)
		memcpy(deaf_burst + i * ST_REQ_LEN, st_get_features,
		       ST_REQ_LEN);
	it_open(a);
	it_open(b);
	it_exchange(a, b, 3, "before the stalls");

	half = st_connect(it_ports[2].path);
	if (send(half, st_get_features, 6, MSG_NOSIGNAL) != 6)
		it_fail("half: send: %s", strerror(errno));
	drib = st_connect(it_ports[3].path);
	deaf = st_connect(it_ports[4].path);

	start = it_ms();
	next = start;
	while (it_ms() - start < ST_RUN_MS) {
		int64_t t0, t1;

		/* dribble: the next byte of an endless run of requests */
		if (send(drib, (const char *)st_get_features +
			 dribbled % ST_REQ_LEN, 1, MSG_NOSIGNAL) != 1)
			it_fail("dribble: send: %s (dropped?)", strerror(errno));
		dribbled++;
		/* deaf: more requests, never a read (until vhostd hangs up) */
		if (!deaf_gone) {
			ssize_t n = send(deaf, deaf_burst, sizeof(deaf_burst),
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n > 0)
				deaf_sent += (size_t)n;
			else if (n < 0 && errno != EAGAIN)
				deaf_gone = true;
		}
		if (half_at < 0 && st_closed(half, 0, &half_read))
			half_at = it_ms() - start;

		t0 = it_ms();
		(void)it_ctr(a->vu, "\"rx_packets\":");
		t1 = it_ms();
		queries++;
		if (t1 - t0 > slowest)
			slowest = t1 - t0;

		if (!(queries % 10)) {
			it_exchange(a, b, 1, "during the stalls");
			frames++;
		}
		next += ST_DRIBBLE_MS;
		if (next > it_ms())
			usleep((useconds_t)(next - it_ms()) * 1000);
	}

	/* half: dropped by the tick once its message was a second late */
	if (half_at < 0) {
		if (!st_closed(half, 2000, &half_read))
			it_fail("half: still connected %d ms after 6 bytes",
				ST_RUN_MS + 2000);
		half_at = it_ms() - start;
	}
	/* deaf: dropped when a reply did not fit; what came before is
	 * whole replies
	 */
	deaf_read = 0;
	if (!st_closed(deaf, 2000, &deaf_read))
		it_fail("deaf: still connected after %zu bytes of requests, "
			"no reply read", deaf_sent);
	/* dribble: connected, one reply per whole request */
	{
		char buf[4096];
		ssize_t n;

		usleep(100 * 1000);
		while ((n = recv(drib, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			replies += (size_t)n;
		if (n == 0)
			it_fail("dribble: vhostd closed a slow but valid front "
				"end");
		if (replies != dribbled / ST_REQ_LEN * ST_REPLY_LEN)
			it_fail("dribble: %zu reply bytes for %zu whole "
				"requests", replies, dribbled / ST_REQ_LEN);
	}
	close(half);
	close(drib);
	close(deaf);

	if (!it_ctr("vu2", "\"violations\":"))
		it_fail("half: no violation counted");
	if (!it_ctr("vu4", "\"violations\":"))
		it_fail("deaf: no violation counted");
	for (i = 0; i < 4; i++)
		if (i != 2 && it_ctr(it_ports[i].vu, "\"violations\":"))
			it_fail("%s: violations counted", it_ports[i].vu);
	it_exchange(a, b, 20, "after the stalls");
	it_close(a);
	it_close(b);

	printf("stall: ctl answered %u queries, the slowest in %lld ms; half "
	       "dropped after %lld ms; deaf dropped after %zu request bytes "
	       "(%zu reply bytes read); dribble: %zu requests answered; %u "
	       "A<->B exchanges\n", queries, (long long)slowest,
	       (long long)half_at, deaf_sent, deaf_read,
	       dribbled / ST_REQ_LEN, frames);
	if (slowest > ST_CTL_MAX_MS)
		it_fail("ctl: an answer took %lld ms (at most %d)",
			(long long)slowest, ST_CTL_MAX_MS);
}

/**
 * sc_listen_full() - a listening socket that accepts nobody
 */
void sc_listen_full(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = it_ports[0].path;
	int l, c;

	if (strlen(path) >= sizeof(sa.sun_path))
		it_fail("%s: path too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(l, 0))
		it_fail("listen %s: %s", path, strerror(errno));
	/* Backlog 0 holds one connection: take that place ourselves. */
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)))
		it_fail("fill %s: %s", path, strerror(errno));
	printf("listen-full: %s listening, backlog full\n", path);
	sleep(ST_LISTEN_S);
	close(c);
	close(l);
	unlink(path);
}
