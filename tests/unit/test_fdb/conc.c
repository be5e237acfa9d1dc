// SPDX-License-Identifier: GPL-2.0-or-later
/* conc.c - test_fdb: threads on one table
 *
 * What must hold at every instant while workers learn concurrently and
 * the control thread ages and flushes (no torn entry, no port above its
 * quota, a victim under its quota never loses an entry, a static entry
 * never moves), and once quiet, that every port's count equals its
 * entries.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "test_fdb.h"

/*
 * Concurrency: learners, lookers and an ager/flusher at once.  MAC n is
 * only ever learned on ports n % 4 and n % 4 + 4, so any other answer
 * from a lookup is a torn or misplaced entry.  Every port has a quota
 * that binds (3000 MACs over 8 ports of 300): the lookers check at every
 * step that no port counts more than its quota, and once quiet every
 * port's count must equal its entries -- the invariant the accounting in
 * fdb.c keeps through racing inserts, moves, dedups, ageing and flushes.
 * Run under TSan (tests/tsan.sh) to check the atomics too.
 */
#define CONC_MACS	3000
#define CONC_ITERS	200000
#define CONC_MAX	300

static uint32_t conc_clock;
static bool conc_stop;

/**
 * conc_over_quota() - ports counting more than their quota right now
 * Return: how many
 */
static unsigned int conc_over_quota(void)
{
	unsigned int p, n = 0;

	for (p = 0; p < FDB_PORTS; p++)
		n += __atomic_load_n(&fdb.ports[p].owned, __ATOMIC_RELAXED) >
		     __atomic_load_n(&fdb.ports[p].max, __ATOMIC_RELAXED);
	return n;
}

static void *conc_learner(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg, i;

	for (i = 0; i < CONC_ITERS; i++) {
		uint32_t n;
		uint8_t mac[6];

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % CONC_MACS;
		mac_of(n, mac);
		fdb_learn(&fdb, 0, mac, (uint16_t)(n % 4 + ((seed >> 4) & 1) * 4),
			  __atomic_load_n(&conc_clock, __ATOMIC_RELAXED));
	}
	return NULL;
}

static void *conc_looker(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg, i, bad = 0;

	for (i = 0; i < CONC_ITERS; i++) {
		uint32_t n;
		uint8_t mac[6];
		uint16_t p;

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % CONC_MACS;
		mac_of(n, mac);
		p = fdb_lookup(&fdb, 0, mac);
		if (p != FDB_NO_PORT && p != n % 4 && p != n % 4 + 4)
			bad++;
		if (!(i % 64))
			bad += conc_over_quota();
	}
	return (void *)(uintptr_t)bad;
}

static void *conc_ager(void *arg)
{
	uint16_t port = 0;

	while (!__atomic_load_n(&conc_stop, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&conc_clock, 1, __ATOMIC_RELAXED);
		fdb_age(&fdb, __atomic_load_n(&conc_clock, __ATOMIC_RELAXED));
		fdb_flush_port(&fdb, port++ % 8);
	}
	return NULL;
}

/**
 * conc_check_quiet() - after the threads: no MAC twice, every port's
 *			count equal to its entries and within its quota
 */
static void conc_check_quiet(void)
{
	unsigned int i, p;

	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_entry e;
		unsigned int j, copies = 0;

		if (!fdb_entry_get(&fdb, i, &e))
			continue;
		for (j = 0; j < FDB_SIZE; j++) {
			struct fdb_entry o;

			copies += fdb_entry_get(&fdb, j, &o) &&
				  !memcmp(o.mac, e.mac, 6);
		}
		assert_int_equal(copies, 1);
	}
	for (p = 0; p < FDB_PORTS; p++) {
		assert_int_equal(fdb_port_macs(&fdb, (uint16_t)p),
				 port_entries((uint16_t)p));
		assert_true(fdb_port_macs(&fdb, (uint16_t)p) <=
			    fdb.ports[p].max);
	}
}

void test_concurrent(void **state)
{
	pthread_t l[3], k[2], a;
	unsigned int i, n = 0, live;
	void *bad;

	fdb_init(&fdb, 2);
	for (i = 0; i < 8; i++)
		fdb_set_max(&fdb, (uint16_t)i, CONC_MAX);
	conc_clock = 1;
	conc_stop = false;
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&l[i], NULL, conc_learner,
						(void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&k[i], NULL, conc_looker,
						(void *)(uintptr_t)(i + 7)), 0);
	assert_int_equal(pthread_create(&a, NULL, conc_ager, NULL), 0);
	for (i = 0; i < 3; i++)
		pthread_join(l[i], NULL);
	for (i = 0; i < 2; i++) {
		pthread_join(k[i], &bad);
		assert_int_equal((uintptr_t)bad, 0);
	}
	__atomic_store_n(&conc_stop, true, __ATOMIC_RELAXED);
	pthread_join(a, NULL);

	/* Quiescent now: every entry valid, counts exact. */
	live = fdb_count(&fdb);
	for (i = 0; i < CONC_MACS; i++) {
		uint8_t mac[6];
		uint16_t p;

		mac_of(i, mac);
		p = fdb_lookup(&fdb, 0, mac);
		if (p == FDB_NO_PORT)
			continue;
		assert_true(p == i % 4 || p == i % 4 + 4);
		n++;
	}
	assert_int_equal(n, live);
	conc_check_quiet();
}

/*
 * Under pressure, concurrently: four sprayers (ports 0-3, quota 1100
 * each: together more than the table) learn from 40000 MACs -- and try
 * the static MACs -- while the table overflows, so chains fill and
 * sprayers push each other out; a flusher empties one sprayer at a time
 * (it is then under its quota and may evict).  Victim port 7 learned its
 * 20 MACs first and stays under its quota: not one may ever be missing
 * or elsewhere; the 4 static MACs of port 6 never move.
 */
#define PRESS_MACS	40000
#define PRESS_ITERS	300000
#define PRESS_VICTIMS	20
#define PRESS_STATICS	4

static uint32_t press_victim(unsigned int k)
{
	return 1000000 + k;
}

static uint32_t press_static(unsigned int k)
{
	return 2000000 + k;
}

static void *press_sprayer(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg, i;
	uintptr_t full = 0;

	for (i = 0; i < PRESS_ITERS; i++) {
		uint32_t n;
		uint8_t mac[6];

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % PRESS_MACS;
		if (!(i % 997))
			n = press_static(i % PRESS_STATICS);
		mac_of(n, mac);
		full += fdb_learn(&fdb, 0, mac, (uint16_t)((seed >> 4) % 4), 1) ==
			FDB_LEARN_FULL;
	}
	return (void *)full;
}

static void *press_watcher(void *arg)
{
	uintptr_t bad = 0;
	unsigned int k;

	while (!__atomic_load_n(&conc_stop, __ATOMIC_RELAXED)) {
		uint8_t mac[6];

		for (k = 0; k < PRESS_VICTIMS; k++) {
			mac_of(press_victim(k), mac);
			bad += fdb_lookup(&fdb, 0, mac) != 7;
		}
		for (k = 0; k < PRESS_STATICS; k++) {
			mac_of(press_static(k), mac);
			bad += fdb_lookup(&fdb, 0, mac) != 6;
		}
		bad += conc_over_quota();
	}
	return (void *)bad;
}

static void *press_flusher(void *arg)
{
	uint16_t port = 0;

	while (!__atomic_load_n(&conc_stop, __ATOMIC_RELAXED)) {
		usleep(2000);
		fdb_flush_port(&fdb, port++ % 4);
		fdb_age(&fdb, 2);	/* ages nothing (0); static dedup */
	}
	return NULL;
}

void test_concurrent_pressure(void **state)
{
	pthread_t sp[4], w[2], fl;
	uintptr_t full = 0;
	unsigned int i;
	void *bad;

	fdb_init(&fdb, 0);
	for (i = 0; i < 4; i++)
		fdb_set_max(&fdb, (uint16_t)i, 1100);
	fdb_set_max(&fdb, 7, 64);
	for (i = 0; i < PRESS_STATICS; i++) {
		uint8_t mac[6];

		mac_of(press_static(i), mac);
		assert_int_equal(fdb_static_add(&fdb, 0, mac, 6), 0);
	}
	for (i = 0; i < PRESS_VICTIMS; i++) {
		uint8_t mac[6];

		mac_of(press_victim(i), mac);
		assert_int_equal(fdb_learn(&fdb, 0, mac, 7, 1), FDB_LEARN_OK);
	}
	conc_stop = false;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&w[i], NULL, press_watcher,
						NULL), 0);
	assert_int_equal(pthread_create(&fl, NULL, press_flusher, NULL), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&sp[i], NULL, press_sprayer,
						(void *)(uintptr_t)(i + 3)), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(sp[i], &bad);
		full += (uintptr_t)bad;
	}
	__atomic_store_n(&conc_stop, true, __ATOMIC_RELAXED);
	pthread_join(fl, NULL);
	for (i = 0; i < 2; i++) {
		pthread_join(w[i], &bad);
		assert_int_equal((uintptr_t)bad, 0);
	}
	conc_check_quiet();
	assert_int_equal(fdb_port_macs(&fdb, 7), PRESS_VICTIMS);
	/* The table really was under pressure: chains were full. */
	assert_true(full > 0);
}
