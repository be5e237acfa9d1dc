// SPDX-License-Identifier: GPL-2.0-or-later
/* lifecycle.c - vdrv_itest scenarios: guests that leave and come back
 *
 * A guest reconnecting (clean and abrupt, frames in flight), one that
 * breaks the protocol, vhostd as the client of a guest that listens and
 * goes away and comes back, a guest disabling and re-enabling its rings
 * under traffic, and vhostd itself going away under a flood: every time
 * the other guests must be undisturbed and the returning one must work.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "vdrv_itest.h"

/**
 * sc_reconnect() - B leaves (cleanly, then abruptly) and comes back
 */
void sc_reconnect(void)
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
 * sc_evil() - one port misbehaves: it alone is dropped, A and B go on
 * @kind:	what the evil port does
 */
void sc_evil(const char *kind)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *e = &it_ports[2];
	int k = vdrv_evil_parse(kind), ret = -ETIMEDOUT;
	int64_t deadline;

	it_need(3);
	if (k < 0)
		it_fail("unknown evil kind %s", kind);
	if (k == VDRV_EVIL_LOG_SHRINK)
		e->o.protocol_features |= 1ULL << VDRV_PF_LOG_SHMFD;
	it_open_all();
	it_exchange(a, b, 3, "before evil");
	ret = vdrv_evil(e->d, (enum vdrv_evil)k);
	if (ret)
		it_fail("E: could not commit %s: %s", kind,
			ret == -EPROTO ? "the back end took it" :
			strerror(-ret));
	if (k == VDRV_EVIL_KICK_PIPE || k == VDRV_EVIL_CALL_PIPE ||
	    k == VDRV_EVIL_ERR_SOCKET || k == VDRV_EVIL_MEM_HUGE) {
		/* Refused with a NACK; the eventfd (or memory table) set
		 * before still serves: E must work as if nothing was asked.
		 */
		printf("evil %s: refused, connection kept\n", kind);
		it_drain(100);
		/* E first: its MAC learned, A's frames to it go nowhere else. */
		it_exchange(e, a, 3, "after the refusal");
		it_exchange(a, e, 3, "after the refusal");
		it_close(e);
		it_exchange(a, b, 50, "after evil");
		it_close(a);
		it_close(b);
		return;
	}
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
		/* SET_VRING_ERR's purpose: a broken ring is signalled. */
		if (k == VDRV_EVIL_ERR_SIGNAL && !vdrv_err_count(e->d, 2000))
			it_fail("E: dropped, but no error eventfd signalled");
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
void sc_client(void)
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
 * lc_wait_down() - wait until vhostd reports @p's port down
 * @p:		port whose guest just left
 * @what:	for the failure message
 */
static void lc_wait_down(struct it_port *p, const char *what)
{
	int64_t deadline = it_ms() + 5000;

	while (it_port_up(p->vu)) {
		if (it_ms() > deadline)
			it_fail("%s: port %s still up 5 s after %s", p->name,
				p->vu, what);
		usleep(20000);
	}
}

/**
 * lc_stale_socket() - leave a socket file nobody listens on at @path
 * @path:	socket path
 *
 * A connect() to it fails with ECONNREFUSED, as after a front end that
 * crashed without removing its socket.
 */
static void lc_stale_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		it_fail("stale socket %s", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		it_fail("bind %s: %s", path, strerror(errno));
	close(fd);
}

/**
 * sc_client_rounds() - vhostd in client mode: A listens (vhostd was
 *			started first and retries), leaves, comes back
 *
 * Rounds alternate a clean close and an abrupt one, each with frames in
 * flight towards A; A comes back at once, after a second without a
 * socket file (vhostd's connect: ENOENT), or behind a stale socket file
 * (ECONNREFUSED).  Every time vhostd must reconnect by itself, and A and
 * B must exchange intact frames again.  With $VDRV_ITEST_CTL the port
 * must also be reported down while A is away.
 */
void sc_client_rounds(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	bool ctl = getenv("VDRV_ITEST_CTL") != NULL;
	unsigned int round, i;
	int64_t t0;

	it_need(2);
	a->o.listen = true;
	a->o.timeout_ms = 15000;
	t0 = it_ms();
	it_open(a);
	printf("client-rounds: vhostd connected after %lld ms\n",
	       (long long)(it_ms() - t0));
	it_open(b);
	it_sync();
	it_exchange(a, b, 5, "first connection");
	for (round = 0; round < 6; round++) {
		for (i = 0; i < 300; i++)
			it_send(b, a->mac, 4, ++it_seq, 1514);
		if (round % 2)
			vdrv_abort(a->d);
		else
			it_close(a);
		a->d = NULL;
		if (ctl)
			lc_wait_down(a, round % 2 ? "an abrupt close" :
				     "a clean close");
		if (round % 3 == 1) {
			usleep(1200000);
		} else if (round % 3 == 2) {
			lc_stale_socket(a->path);
			usleep(1200000);
		}
		t0 = it_ms();
		it_open(a);
		printf("client-rounds: round %u (%s close, %s): reconnected "
		       "after %lld ms\n", round, round % 2 ? "abrupt" : "clean",
		       round % 3 == 0 ? "back at once" : round % 3 == 1 ?
		       "no socket for 1.2 s" : "stale socket for 1.2 s",
		       (long long)(it_ms() - t0));
		it_sync();
		it_exchange(a, b, 5, "after vhostd reconnected");
	}
	it_close_all();
}

/**
 * lc_drain_ordered() - receive everything queued at @p: tag @tag only,
 *			intact, sequence rising, at most @max_seq
 * @p:		receiver
 * @tag:	the only tag allowed
 * @max_seq:	highest sequence number allowed
 * Return: frames received
 */
static unsigned int lc_drain_ordered(struct it_port *p, uint32_t tag,
				     uint32_t max_seq)
{
	struct vdrv_test_info ti;
	struct vdrv_rx_pkt pkt;
	unsigned int n = 0;
	uint32_t last = 0;

	while (it_recv(p, &ti, &pkt, 200)) {
		if (ti.tag != tag || ti.seq > max_seq || ti.seq <= last)
			it_fail("%s: frame tag %u seq %u (last %u, at most %u)",
				p->name, ti.tag, ti.seq, last, max_seq);
		last = ti.seq;
		n++;
	}
	return n;
}

/**
 * lc_enable() - SET_VRING_ENABLE on one of @p's rings, or fail
 * @p:		port
 * @ring:	VDRV_RX_RING or VDRV_TX_RING
 * @on:		enable or disable
 */
static void lc_enable(struct it_port *p, unsigned int ring, bool on)
{
	int ret = vdrv_set_vring_enable(p->d, ring, on);

	if (ret)
		it_fail("%s: SET_VRING_ENABLE %s %d: %s", p->name,
			ring == VDRV_RX_RING ? "RX" : "TX", on, strerror(-ret));
}

/**
 * sc_ring_enable() - B disables its rings under traffic and re-enables
 *		      them: nothing reaches its rings meanwhile, frames to
 *		      it are dropped and counted, A and C go on, and B
 *		      works again afterwards
 *
 * Needs $VDRV_ITEST_CTL (port_down of B's port, vu1, is checked exactly).
 */
void sc_ring_enable(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1], *c = &it_ports[2];
	const struct vdrv_stats *bst;
	unsigned long long down0, down1;
	unsigned int i, n;
	uint64_t used;
	uint32_t cut;

	it_need(3);
	it_open_all();
	it_learn_all();
	bst = vdrv_stats(b->d);

	/* 1. B's RX ring goes off under a stream: once the first of 100
	 * frames are in, 100 more are sent and the ring is disabled at
	 * once, racing vhostd's worker, then 100 more follow.
	 */
	for (i = 0; i < 100; i++)
		it_send(a, b->mac, 40, ++it_seq, 1514);
	for (i = 0; i < 20; i++)
		it_expect(b, 40, it_seq - 99 + i, 1514, "before RX disabled");
	for (i = 0; i < 100; i++)
		it_send(a, b->mac, 40, ++it_seq, 1514);
	cut = it_seq;
	lc_enable(b, VDRV_RX_RING, false);
	for (i = 0; i < 100; i++)
		it_send(a, b->mac, 40, ++it_seq, 1514);
	/* Only frames sent before the ack may be in B's ring, in order. */
	n = 20 + lc_drain_ordered(b, 40, cut);
	used = bst->rx_bufs_used;
	printf("ring-enable: %u of the 200 frames sent before the disable "
	       "reached B\n", n);
	/* Disabling B's RX flushed its MAC: the rest flooded, to C. */
	it_tx_settle(a);
	lc_drain_ordered(c, 40, it_seq);

	/* 2. B, still sending, is learned again; unicast to it is counted
	 * as dropped (port_down), once per frame, and goes nowhere else.
	 */
	it_send(b, it_bcast, 41, ++it_seq, 64);
	it_expect(a, 41, it_seq, 64, "B's broadcast with its RX ring off");
	it_expect(c, 41, it_seq, 64, "B's broadcast with its RX ring off");
	down0 = it_ctr(b->vu, "\"port_down\":");
	for (i = 0; i < 100; i++)
		it_send(a, b->mac, 42, ++it_seq, 60 + i * 14);
	it_tx_settle(a);
	down1 = it_ctr(b->vu, "\"port_down\":");
	if (down1 - down0 != 100)
		it_fail("B: port_down grew by %llu for 100 frames to a "
			"disabled ring", down1 - down0);
	it_expect_none(c, "unicast to B (learned, RX off) at C");
	it_expect_none(b, "unicast into a disabled RX ring");
	it_exchange(a, c, 20, "A<->C while B's RX ring is off");
	if (bst->rx_bufs_used != used)
		it_fail("B: %llu RX buffers used while its ring was off",
			(unsigned long long)(bst->rx_bufs_used - used));

	/* 3. Back on: frames arrive, intact, the first one first. */
	lc_enable(b, VDRV_RX_RING, true);
	for (i = 0; i < 50; i++) {
		it_send(a, b->mac, 43, ++it_seq, 60 + i * 29);
		it_expect(b, 43, it_seq, 60 + i * 29, "after RX re-enabled");
	}
	it_expect_none(c, "unicast to B (RX on again) at C");

	/* 4. Both rings off: floods skip B, A and C go on; both back on. */
	lc_enable(b, VDRV_RX_RING, false);
	lc_enable(b, VDRV_TX_RING, false);
	used = bst->rx_bufs_used;
	for (i = 0; i < 20; i++) {
		it_send(a, it_bcast, 44, ++it_seq, 100 + i);
		it_expect(c, 44, it_seq, 100 + i, "broadcast, B's rings off");
	}
	it_exchange(a, c, 10, "A<->C while B's rings are off");
	it_expect_none(b, "broadcast into disabled rings");
	if (bst->rx_bufs_used != used)
		it_fail("B: RX buffers used while both rings were off");
	lc_enable(b, VDRV_RX_RING, true);
	lc_enable(b, VDRV_TX_RING, true);
	it_sync();
	it_learn_all();		/* B's MAC went with its RX ring */
	it_exchange(a, b, 20, "after both rings re-enabled");
	it_exchange(b, c, 5, "B<->C after both rings re-enabled");
	it_close_all();
}

/**
 * lc_hung_up() - whether the back end closed @p's connection
 * @p:		port
 * Return: true once EOF or an error shows on the socket (vhostd sends
 *	   nothing unasked, so anything readable means it went away)
 */
static bool lc_hung_up(struct it_port *p)
{
	struct pollfd pfd = { .fd = vdrv_sock_fd(p->d),
			      .events = POLLIN | POLLRDHUP };

	return poll(&pfd, 1, 0) > 0 && pfd.revents;
}

/**
 * sc_flood_hangup() - A floods B until vhostd goes away; both must see
 *		       their connection closed
 *
 * Prints "FLOWING" once B received 2000 frames (the runner then stops
 * vhostd) and "HANGUP ..." when both connections closed; every frame B
 * got is intact and in order.  Fails if a connection stays open for 30 s
 * after FLOWING (vhostd hung, or left a guest hanging).
 */
void sc_flood_hangup(void)
{
	static uint8_t frames[32][1514];
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	struct vdrv_tx_pkt tx[32];
	struct vdrv_rx_pkt rx[32];
	uint32_t base, sent = 0, got = 0, next = 0;
	bool flowing = false, hup_a = false, hup_b = false;
	int64_t t_flow = 0, deadline = it_ms() + 60000;
	unsigned int i;

	it_need(2);
	it_open_all();
	it_learn_all();
	base = it_seq + 1;
	while (!hup_a || !hup_b) {
		unsigned int n = 0;
		int r, moved;

		if (it_ms() > deadline)
			it_fail("%s after %s", flowing ?
				"vhostd kept a connection 30 s" :
				"no flow", flowing ? "FLOWING" : "60 s");
		while (!hup_a && n < 32) {
			uint32_t len = 60 + ((sent + n) * 37) % 1455;

			vdrv_pkt_test_frame(frames[n], len, b->mac, a->mac, 60,
					    base + sent + n);
			tx[n].data = frames[n];
			tx[n].len = len;
			tx[n].hdr = NULL;
			n++;
		}
		r = n ? vdrv_tx_burst(a->d, tx, n) : 0;
		if (r < 0)
			it_fail("A: tx burst: %s", strerror(-r));
		sent += (uint32_t)r;
		moved = r;
		for (i = 0; i < 32; i++) {
			rx[i].buf = frames[i];
			rx[i].cap = sizeof(frames[i]);
		}
		r = hup_b ? 0 : vdrv_rx_burst(b->d, rx, 32);
		if (r < 0)
			it_fail("B: rx burst: %s", strerror(-r));
		for (i = 0; i < (unsigned int)r; i++) {
			struct vdrv_test_info ti;

			if (vdrv_pkt_test_check(frames[i], rx[i].len, &ti))
				it_fail("B: corrupt frame in the flood");
			if (ti.tag != 60)
				continue;
			if (ti.seq < base + next)
				it_fail("B: flood frame %u after %u",
					ti.seq - base, next - 1);
			next = ti.seq - base + 1;
			got++;
		}
		if (!flowing && got >= 2000) {
			flowing = true;
			t_flow = it_ms();
			deadline = t_flow + 30000;
			printf("FLOWING %u frames\n", got);
		}
		hup_a = hup_a || lc_hung_up(a);
		hup_b = hup_b || lc_hung_up(b);
		if (!r && !moved)
			usleep(1000);
	}
	printf("HANGUP both guests %lld ms after FLOWING; B got %u of %u "
	       "frames, in order and intact\n",
	       (long long)(it_ms() - t_flow), got, sent);
	vdrv_abort(a->d);
	vdrv_abort(b->d);
	a->d = b->d = NULL;
}
