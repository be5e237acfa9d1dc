// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tap_steer.c - the TAP's eBPF steering program and its map sync
 *
 * The program is run by the kernel on test frames (BPF_PROG_TEST_RUN, no
 * TAP needed): a destination MAC in the map gives its queue, anything else
 * queue 0; for a guest with several queue pairs running, the queue of the
 * pair port_vhost_pick() chooses from the same flow table, over frames of
 * every shape flow_hash() tells apart (test_flows, the differential
 * test that keeps the eBPF hash and net/flow.c one function).  The sync is checked against the switch's MAC table through
 * learn, move, flush and ageing: the map must hold exactly the MACs of
 * steered ports, each with its port's queue.  The MAC table reaches the
 * sync as it does in vhostd, through struct port_host's mac_walk (the
 * switch's); only that member is set here.  Loading BPF needs privileges
 * (CAP_BPF); without them the run reports one SKIPPED test
 * (TEST_DEBUG=1 shows why: the verifier's log).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "../../src/fdb.h"
#include "../../src/log.h"
#include "../../src/switch.h"
#include "../../src/net/flow.h"
#include "../../src/port/port_vhost.h"
#include "../../src/port/tap_steer.h"

static struct tap_steer ts;

/* What the worker layer gives ports; the sync needs the MAC table only. */
static const struct port_host test_host = {
	.mac_walk = switch_mac_walk,
	.mac_max = FDB_SIZE,
};

static int setup(void **state)
{
	memset(&ts, 0, sizeof(ts));
	switch_init(300);
	return tap_steer_open(&ts) ? -1 : 0;
}

static int teardown(void **state)
{
	tap_steer_close(&ts, -1);
	return 0;
}

static void mac_of(uint8_t n, uint8_t mac[6])
{
	const uint8_t m[6] = { 0x02, 0x5e, 0, 0, 0x10, n };

	memcpy(mac, m, 6);
}

/**
 * dsts() - map values for one-pair ports from a queue per port index
 * @d:		filled in, @n entries
 * @pq:		queue per port index (0: not steered)
 * @n:		entries
 */
static void dsts(struct tap_steer_dst *d, const uint16_t *pq, unsigned int n)
{
	unsigned int i;

	memset(d, 0, n * sizeof(*d));
	for (i = 0; i < n; i++) {
		d[i].base = pq[i];
		d[i].on = 1;
		d[i].n_on = 1;
		d[i].port = i;
	}
}

/**
 * run_frame() - the queue the program picks for @len bytes of @frame
 * @frame:	the frame, from its Ethernet header
 * @len:	its length, >= 14
 *
 * The kernel's test run refuses some frames outright (an IPv4 or IPv6
 * type with less than that header behind it): they are not run.
 *
 * Return: the program's return value, or -1 if the kernel refused it
 */
static int64_t run_frame(const uint8_t *frame, size_t len)
{
	struct bpf_test_run_opts o = {
		.sz = sizeof(o),
		.data_in = frame,
		.data_size_in = (uint32_t)len,
		.repeat = 1,
	};

	if (bpf_prog_test_run_opts(ts.prog_fd, &o)) {
		assert_int_equal(errno, EINVAL);
		return -1;
	}
	return o.retval;
}

/**
 * run_prog() - the queue the program picks for a frame to @dst
 * @dst:	destination MAC
 * Return: the program's return value
 */
static uint32_t run_prog(const uint8_t dst[6])
{
	uint8_t frame[64] = { 0 };
	struct bpf_test_run_opts o = {
		.sz = sizeof(o),
		.data_in = frame,
		.data_size_in = sizeof(frame),
		.repeat = 1,
	};

	memcpy(frame, dst, 6);
	frame[6] = 0x02;
	frame[11] = 0x99;
	frame[12] = 0x08;	/* IPv4, so the kernel's test skb is ordinary */
	frame[14] = 0x45;
	assert_int_equal(bpf_prog_test_run_opts(ts.prog_fd, &o), 0);
	return o.retval;
}

/**
 * map_queue() - what the map says for @mac
 * @mac:	MAC
 * Return: the queue, or 0 if absent
 */
static uint32_t map_queue(const uint8_t mac[6])
{
	struct tap_steer_dst d;
	uint8_t key[8] = { 0 };

	memcpy(key, mac, 6);
	if (bpf_map_lookup_elem(ts.map_fd, key, &d))
		return 0;
	return d.base;
}

static void test_program(void **state)
{
	uint8_t a[6], b[6], key[8] = { 0 };
	const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct tap_steer_dst q = { .base = 7, .on = 1, .n_on = 1 };

	mac_of(1, a);
	mac_of(2, b);
	memcpy(key, a, 6);
	assert_int_equal(bpf_map_update_elem(ts.map_fd, key, &q, BPF_ANY), 0);
	assert_int_equal(run_prog(a), 7);
	assert_int_equal(run_prog(b), 0);
	assert_int_equal(run_prog(bc), 0);
}

static void test_sync(void **state)
{
	uint16_t pq[4] = { 0, 3, 4, 0 };	/* port 0: the TAP itself */
	struct tap_steer_dst d[4];
	struct fdb *f = switch_fdb();
	uint8_t m1[6], m2[6], m3[6], m4[6];

	mac_of(1, m1);
	mac_of(2, m2);
	mac_of(3, m3);
	mac_of(4, m4);
	fdb_learn(f, 0, m1, 1, 100);
	fdb_learn(f, 0, m2, 2, 100);
	fdb_learn(f, 0, m3, 0, 100);	/* host side: never steered */
	fdb_learn(f, 0, m4, 3, 100);	/* a port without a queue */
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m1), 3);
	assert_int_equal(map_queue(m2), 4);
	assert_int_equal(map_queue(m3), 0);
	assert_int_equal(map_queue(m4), 0);
	assert_int_equal(ts.n, 2);
	assert_int_equal(run_prog(m2), 4);

	/* A MAC moves: the map follows. */
	fdb_learn(f, 0, m1, 2, 101);
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m1), 4);
	assert_int_equal(run_prog(m1), 4);

	/* Moved to the host side: removed, so it goes to queue 0. */
	fdb_learn(f, 0, m2, 0, 101);
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m2), 0);
	assert_int_equal(run_prog(m2), 0);
	assert_int_equal(ts.n, 1);

	/* A port stops being steered (its guest lost a feature). */
	pq[2] = 0;
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m1), 0);
	assert_int_equal(ts.n, 0);
	pq[2] = 4;
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m1), 4);

	/* Flushed and aged entries go. */
	fdb_learn(f, 0, m4, 1, 150);
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m4), 3);
	fdb_flush_port(f, 2);
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m1), 0);
	assert_int_equal(map_queue(m4), 3);
	fdb_age(f, 150 + 301);
	dsts(d, pq, 4);
	tap_steer_sync(&ts, d, 4);
	assert_int_equal(map_queue(m4), 0);
	assert_int_equal(ts.n, 0);
}

static void test_many(void **state)
{
	uint16_t pq[3] = { 0, 1, 2 };
	struct tap_steer_dst d[3];
	struct fdb *f = switch_fdb();
	unsigned int i, n = 0;
	uint8_t mac[6];

	/* A full table's worth, every other one steered. */
	for (i = 0; i < 2000; i++) {
		mac[0] = 0x02;
		mac[1] = 0x33;
		mac[2] = 0;
		mac[3] = (uint8_t)(i >> 16);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		fdb_learn(f, 0, mac, (uint16_t)(i % 3), 100);
	}
	dsts(d, pq, 3);
	tap_steer_sync(&ts, d, 3);
	for (i = 0; i < 2000; i++) {
		mac[3] = (uint8_t)(i >> 16);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		if (fdb_lookup(f, 0, mac) == FDB_NO_PORT)
			continue;	/* the table's probe limit */
		assert_int_equal(map_queue(mac), pq[fdb_lookup(f, 0, mac)]);
		n += !!pq[fdb_lookup(f, 0, mac)];
	}
	assert_int_equal(ts.n, n);
}

/**
 * rnd() - the next number of a fixed sequence (xorshift32)
 * Return: 32 bits
 */
static uint32_t rnd(void)
{
	static uint32_t x = 0x2545f491;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/**
 * make_frame() - a frame of one of the shapes flow_hash() tells apart
 * @f:		96 bytes
 * @dst:	destination MAC
 * Return: its length: 14 to 96, so that headers are cut short too
 */
static size_t make_frame(uint8_t *f, const uint8_t *dst)
{
	static const uint8_t protos[] = { 6, 17, 1, 58 };
	unsigned int kind = rnd() % 6, i;
	size_t l3 = 14, len;

	for (i = 0; i < 96; i++)
		f[i] = (uint8_t)rnd();
	memcpy(f, dst, 6);
	if (kind >= 4) {	/* one 802.1Q tag */
		f[12] = 0x81;
		f[13] = 0x00;
		l3 = 18;
		kind -= 4;
	}
	switch (kind) {
	case 0:			/* IPv4, header 16-60 bytes, maybe a fragment */
		f[l3 - 2] = 0x08;
		f[l3 - 1] = 0x00;
		f[l3] = (uint8_t)(0x40 | (rnd() % 4 ? 5 : 4 + rnd() % 12));
		f[l3 + 9] = protos[rnd() % 4];
		if (rnd() % 3) {
			f[l3 + 6] &= 0x80;	/* DF at most */
			f[l3 + 7] = 0;
		}
		break;
	case 1:			/* IPv6 */
		f[l3 - 2] = 0x86;
		f[l3 - 1] = 0xdd;
		f[l3 + 6] = protos[rnd() % 4];
		break;
	case 2:			/* ARP, or another type */
		f[l3 - 2] = 0x08;
		f[l3 - 1] = rnd() % 2 ? 0x06 : 0x42;
		break;
	default:		/* what the random bytes say */
		break;
	}
	len = 14 + rnd() % 83;
	return len;
}

static void test_flows(void **state)
{
	/* A guest on port 5 with pairs 0, 1 and 3 of 4 running, queues
	 * 10-13; its flow table names running pairs, one that is not,
	 * values past 16, and nothing.
	 */
	static struct port_vhost pv;
	const uint32_t on = 0xb;
	struct tap_steer_dst d = {
		.base = 10, .on = on, .n_on = 3,
		.order = 0 | 1 << 4 | 3 << 8, .port = 5,
	};
	uint8_t key[8] = { 0 }, mac[6], f[96];
	unsigned int i, hits[4] = { 0 }, refused = 0;

	mac_of(9, mac);
	memcpy(key, mac, 6);
	for (i = 0; i < PORT_FLOWS; i++)
		pv.flow_pair[i] = (uint8_t)(i % 3 ? (i % 7) % 5 : 0);
	pv.flow_pair[17] = 200;
	assert_int_equal(bpf_map_update_elem(ts.map_fd, key, &d, BPF_ANY), 0);
	assert_int_equal(tap_steer_flows(&ts, 5, pv.flow_pair), 0);

	for (i = 0; i < 20000; i++) {
		size_t len = make_frame(f, mac);
		struct ethhdr eth;
		int64_t got = run_frame(f, len);
		uint32_t want;

		if (got < 0) {
			refused++;
			continue;
		}
		memcpy(&eth, f, sizeof(eth));
		want = 10 + port_vhost_pick(&pv, on,
					    flow_hash(&eth, f + 14, len - 14));
		assert_int_equal(got, want);
		hits[want - 10]++;
	}
	assert_in_range(refused, 0, 4000);
	/* Every running pair was chosen, the stopped one never. */
	assert_true(hits[0] && hits[1] && hits[3]);
	assert_int_equal(hits[2], 0);

	/* One pair running: its queue, whatever the flow. */
	d.on = 1 << 2;
	d.n_on = 1;
	d.order = 2;
	assert_int_equal(bpf_map_update_elem(ts.map_fd, key, &d, BPF_ANY), 0);
	for (i = 0; i < 100; i++) {
		int64_t got = run_frame(f, make_frame(f, mac));

		assert_true(got == 12 || got == -1);
	}
}

/* Stands in for the tests above where BPF cannot be loaded. */
static void test_no_bpf(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flows, setup, teardown),
	};
	struct tap_steer probe = { 0 };
	int rc;

	port_host = &test_host;
	if (getenv("TEST_DEBUG"))
		log_set_level(LOG_LVL_DEBUG);
	rc = tap_steer_open(&probe);

	if (rc) {
		/* No BPF here (unprivileged, or a kernel without it): vhostd
		 * falls back the same way.  Reported as cmocka's SKIPPED,
		 * which tests/run.sh counts as a skip, never as a pass.
		 */
		const struct CMUnitTest none[] = {
			cmocka_unit_test(test_no_bpf),
		};

		printf("test_tap_steer: cannot load BPF: %s\n", strerror(-rc));
		return cmocka_run_group_tests(none, NULL, NULL);
	}
	tap_steer_close(&probe, -1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
