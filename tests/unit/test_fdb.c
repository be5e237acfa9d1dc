// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fdb.c - unit tests of the MAC learning table
 *
 * Basic behaviour (learn, lookup, move, age, flush), a full probe chain,
 * and a differential test against a naive reference table under random
 * operations.  Single-threaded: the lock-free claims are reviewed in the
 * DOC of fdb.c; here we check the sequential semantics they must keep.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/fdb.h"

static struct fdb fdb;

/**
 * mac_of() - a unicast, locally administered MAC made from @n
 * @n:		any number (distinct numbers give distinct MACs)
 * @mac:	result
 */
static void mac_of(uint32_t n, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	mac[2] = (uint8_t)(n >> 24);
	mac[3] = (uint8_t)(n >> 16);
	mac[4] = (uint8_t)(n >> 8);
	mac[5] = (uint8_t)n;
}

/**
 * slot_of() - where a MAC sits in the table, by inspection
 * @mac:	MAC
 * Return: slot index, or -1
 */
static int slot_of(const uint8_t mac[6])
{
	uint64_t m = (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 |
		     (uint64_t)mac[2] << 24 | (uint64_t)mac[3] << 16 |
		     (uint64_t)mac[4] << 8 | mac[5];
	int i;

	for (i = 0; i < FDB_SIZE; i++)
		if ((fdb.slots[i].key & ((1ULL << 48) - 1)) == m)
			return i;
	return -1;
}

static void test_learn_lookup(void **state)
{
	uint8_t a[6], b[6];

	fdb_init(&fdb, 300);
	mac_of(1, a);
	mac_of(2, b);
	assert_int_equal(fdb_lookup(&fdb, a), FDB_NO_PORT);
	fdb_learn(&fdb, a, 3, 100);
	fdb_learn(&fdb, b, 0, 100);
	assert_int_equal(fdb_lookup(&fdb, a), 3);
	assert_int_equal(fdb_lookup(&fdb, b), 0);
	assert_int_equal(fdb_count(&fdb), 2);
	/* Learning again changes nothing. */
	fdb_learn(&fdb, a, 3, 100);
	assert_int_equal(fdb_count(&fdb), 2);
}

static void test_ignores_bad_sources(void **state)
{
	uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t zero[6] = { 0 };
	uint8_t a[6];

	fdb_init(&fdb, 300);
	fdb_learn(&fdb, mcast, 1, 1);
	fdb_learn(&fdb, bcast, 1, 1);
	fdb_learn(&fdb, zero, 1, 1);
	mac_of(7, a);
	fdb_learn(&fdb, a, FDB_NO_PORT, 1);
	assert_int_equal(fdb_count(&fdb), 0);
	assert_int_equal(fdb_lookup(&fdb, mcast), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, bcast), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, zero), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, a), FDB_NO_PORT);
}

static void test_move(void **state)
{
	uint8_t a[6];

	fdb_init(&fdb, 300);
	mac_of(42, a);
	fdb_learn(&fdb, a, 1, 10);
	fdb_learn(&fdb, a, 5, 11);
	assert_int_equal(fdb_lookup(&fdb, a), 5);
	assert_int_equal(fdb_count(&fdb), 1);
	assert_int_equal(fdb.slots[slot_of(a)].seen, 11);
}

static void test_refresh_only_when_second_passed(void **state)
{
	uint8_t a[6];
	int s;

	fdb_init(&fdb, 300);
	mac_of(9, a);
	fdb_learn(&fdb, a, 1, 10);
	s = slot_of(a);
	assert_true(s >= 0);
	/* Poke a marker: a same-second re-learn must not write @seen. */
	fdb.slots[s].seen = 10;
	fdb_learn(&fdb, a, 1, 10);
	assert_int_equal(fdb.slots[s].seen, 10);
	fdb_learn(&fdb, a, 1, 12);
	assert_int_equal(fdb.slots[s].seen, 12);
}

static void test_age(void **state)
{
	uint8_t a[6], b[6];

	fdb_init(&fdb, 300);
	mac_of(1, a);
	mac_of(2, b);
	fdb_learn(&fdb, a, 1, 1000);
	fdb_learn(&fdb, b, 2, 1200);
	assert_int_equal(fdb_age(&fdb, 1300), 0);	/* exactly 300: kept */
	assert_int_equal(fdb_age(&fdb, 1301), 1);
	assert_int_equal(fdb_lookup(&fdb, a), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, b), 2);
	/* A refresh restarts the clock. */
	fdb_learn(&fdb, b, 2, 1400);
	assert_int_equal(fdb_age(&fdb, 1600), 0);
	/* A clock read slightly behind the learner's is not "old". */
	assert_int_equal(fdb_age(&fdb, 1399), 0);
	assert_int_equal(fdb_age(&fdb, 1701), 1);
	assert_int_equal(fdb_count(&fdb), 0);
	/* Wraparound of the seconds counter. */
	fdb_learn(&fdb, a, 1, UINT32_MAX - 5);
	assert_int_equal(fdb_age(&fdb, 100), 0);
	assert_int_equal(fdb_age(&fdb, 300), 1);
	/* age_s == 0: never age. */
	fdb_init(&fdb, 0);
	fdb_learn(&fdb, a, 1, 0);
	assert_int_equal(fdb_age(&fdb, 1000000), 0);
	assert_int_equal(fdb_lookup(&fdb, a), 1);
}

static void test_flush_port(void **state)
{
	uint8_t mac[6];
	uint32_t i;

	fdb_init(&fdb, 300);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		fdb_learn(&fdb, mac, (uint16_t)(i % 4), 1);
	}
	assert_int_equal(fdb_count(&fdb), 100);
	assert_int_equal(fdb_flush_port(&fdb, 2), 25);
	assert_int_equal(fdb_flush_port(&fdb, 2), 0);
	assert_int_equal(fdb_count(&fdb), 75);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_lookup(&fdb, mac),
				 i % 4 == 2 ? FDB_NO_PORT : i % 4);
	}
	/* Tombstones are reused and do not hide later entries. */
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		fdb_learn(&fdb, mac, 7, 2);
	}
	assert_int_equal(fdb_count(&fdb), 100);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_lookup(&fdb, mac), 7);
	}
}

/* FDB_PROBE + 1 MACs sharing a home slot: the last is not learned, the
 * others stay reachable, and deleting one frees room for it.
 */
static void test_full_chain(void **state)
{
	uint8_t mac[6], cand[FDB_PROBE + 1][6];
	unsigned int found = 0, i;
	int home = -1;
	uint32_t n;

	fdb_init(&fdb, 300);
	for (n = 1; found < FDB_PROBE + 1 && n < 10000000; n++) {
		int s;

		mac_of(n, mac);
		fdb_learn(&fdb, mac, 1, 1);	/* empty table: lands home */
		s = slot_of(mac);
		fdb.slots[s].key = 0;
		if (home < 0)
			home = s;
		if (s == home)
			memcpy(cand[found++], mac, 6);
	}
	assert_int_equal(found, FDB_PROBE + 1);

	for (i = 0; i < FDB_PROBE; i++)
		fdb_learn(&fdb, cand[i], (uint16_t)i, 1);
	assert_int_equal(fdb_count(&fdb), FDB_PROBE);
	fdb_learn(&fdb, cand[FDB_PROBE], 3, 1);
	assert_int_equal(fdb_count(&fdb), FDB_PROBE);
	assert_int_equal(fdb_lookup(&fdb, cand[FDB_PROBE]), FDB_NO_PORT);
	for (i = 0; i < FDB_PROBE; i++)
		assert_int_equal(fdb_lookup(&fdb, cand[i]), i);

	/* A move inside a full chain still works. */
	fdb_learn(&fdb, cand[4], 40, 2);
	assert_int_equal(fdb_lookup(&fdb, cand[4]), 40);

	/* Free the first slot of the chain: the newcomer takes it, and
	 * entries behind the tombstone stay reachable.
	 */
	assert_int_equal(fdb_flush_port(&fdb, 0), 1);
	fdb_learn(&fdb, cand[FDB_PROBE], 3, 2);
	assert_int_equal(fdb_lookup(&fdb, cand[FDB_PROBE]), 3);
	for (i = 1; i < FDB_PROBE; i++)
		assert_int_equal(fdb_lookup(&fdb, cand[i]), i == 4 ? 40 : i);
}

/* A whole table's worth of distinct MACs: never a wrong answer. */
static void test_fill_table(void **state)
{
	uint8_t mac[6];
	uint32_t i, hits = 0;

	fdb_init(&fdb, 300);
	for (i = 0; i < 2 * FDB_SIZE; i++) {
		mac_of(i * 2654435761u, mac);
		fdb_learn(&fdb, mac, (uint16_t)(i % 61), 1);
	}
	assert_true(fdb_count(&fdb) <= FDB_SIZE);
	assert_true(fdb_count(&fdb) > FDB_SIZE / 2);
	for (i = 0; i < 2 * FDB_SIZE; i++) {
		uint16_t p;

		mac_of(i * 2654435761u, mac);
		p = fdb_lookup(&fdb, mac);
		if (p != FDB_NO_PORT) {
			assert_int_equal(p, i % 61);
			hits++;
		}
	}
	assert_int_equal(hits, fdb_count(&fdb));
}

/* The naive reference: an unordered array. */
struct ref_entry {
	uint32_t id;
	uint16_t port;
	uint32_t seen;
};

static struct ref_entry ref[1 << 16];
static unsigned int ref_n;

static int ref_find(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ref_n; i++)
		if (ref[i].id == id)
			return (int)i;
	return -1;
}

static void ref_del(unsigned int i)
{
	ref[i] = ref[--ref_n];
}

static void ref_learn(uint32_t id, uint16_t port, uint32_t now)
{
	int i = ref_find(id);

	if (i < 0) {
		i = (int)ref_n++;
		ref[i].id = id;
	}
	ref[i].port = port;
	ref[i].seen = now;
}

static unsigned int ref_age(uint32_t age_s, uint32_t now)
{
	unsigned int i = 0, n = 0;

	while (i < ref_n) {
		if (now - ref[i].seen > age_s) {
			ref_del(i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

static unsigned int ref_flush(uint16_t port)
{
	unsigned int i = 0, n = 0;

	while (i < ref_n) {
		if (ref[i].port == port) {
			ref_del(i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/**
 * differential() - random operations on both tables, compare outcomes
 * @pool:	distinct MACs drawn from
 * @ops:	operations
 * @exact:	the table never fills: every outcome must be equal.  When
 *		false, the table may decline to learn, but must never give
 *		a wrong port, and never hold more than the reference.
 */
static void differential(uint32_t pool, unsigned int ops, bool exact)
{
	unsigned int op, max_ref = 0;
	uint32_t now = 1000;

	fdb_init(&fdb, 30);
	ref_n = 0;
	srandom(12345 + pool);
	for (op = 0; op < ops; op++) {
		uint32_t id = (uint32_t)random() % pool;
		uint16_t port = (uint16_t)(random() % 8);
		unsigned int r = (unsigned int)random() % 100;
		uint8_t mac[6];
		int i;

		mac_of(id, mac);
		if (r < 50) {
			fdb_learn(&fdb, mac, port, now);
			ref_learn(id, port, now);
		} else if (r < 90) {
			uint16_t got = fdb_lookup(&fdb, mac);

			i = ref_find(id);
			if (exact)
				assert_int_equal(got, i < 0 ? FDB_NO_PORT :
						 ref[i].port);
			else if (got != FDB_NO_PORT)
				assert_int_equal(got, ref[i].port);
		} else if (r < 96) {
			now += (uint32_t)random() % 4;
		} else if (!exact && (r < 99 || random() % 20)) {
			/* Overfull run: rare flushes, no ageing, so the
			 * reference grows past the table's capacity.
			 */
			fdb_learn(&fdb, mac, port, now);
			ref_learn(id, port, now);
		} else if (r < 99) {
			unsigned int a = fdb_age(&fdb, now);
			unsigned int b = ref_age(30, now);

			if (exact)
				assert_int_equal(a, b);
		} else {
			unsigned int a = fdb_flush_port(&fdb, port);
			unsigned int b = ref_flush(port);

			if (exact)
				assert_int_equal(a, b);
		}
		if (exact)
			assert_int_equal(fdb_count(&fdb), ref_n);
		else if (op % 64 == 0)
			assert_true(fdb_count(&fdb) <= ref_n);
		if (ref_n > max_ref)
			max_ref = ref_n;
	}
	/* The overfull run must really have overfilled the table. */
	if (!exact)
		assert_true(max_ref > FDB_SIZE);
	/* Final sweep over every MAC of the pool. */
	for (op = 0; op < pool; op++) {
		uint8_t mac[6];
		uint16_t got;
		int i;

		mac_of(op, mac);
		got = fdb_lookup(&fdb, mac);
		i = ref_find(op);
		if (exact)
			assert_int_equal(got, i < 0 ? FDB_NO_PORT : ref[i].port);
		else if (got != FDB_NO_PORT)
			assert_int_equal(got, ref[i].port);
	}
}

static void test_differential_exact(void **state)
{
	differential(600, 200000, true);
}

static void test_differential_overfull(void **state)
{
	differential(3 * FDB_SIZE, 300000, false);
}

/*
 * Concurrency smoke test: learners, lookers and an ager/flusher at once.
 * MAC n is only ever learned on ports n % 4 and n % 4 + 4, so any other
 * answer from a lookup is a torn or misplaced entry.  Run under TSan
 * (make CFLAGS=-fsanitize=thread) to check the atomics too.
 */
#define CONC_MACS	3000
#define CONC_ITERS	200000

static uint32_t conc_clock;
static bool conc_stop;

static void *conc_learner(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg, i;

	for (i = 0; i < CONC_ITERS; i++) {
		uint32_t n;
		uint8_t mac[6];

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % CONC_MACS;
		mac_of(n, mac);
		fdb_learn(&fdb, mac, (uint16_t)(n % 4 + ((seed >> 4) & 1) * 4),
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
		p = fdb_lookup(&fdb, mac);
		if (p != FDB_NO_PORT && p != n % 4 && p != n % 4 + 4)
			bad++;
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

static void test_concurrent(void **state)
{
	pthread_t l[3], k[2], a;
	unsigned int i, n = 0, live;
	void *bad;

	fdb_init(&fdb, 2);
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

	/* Quiescent now: no MAC is present twice, every entry is valid. */
	live = fdb_count(&fdb);
	for (i = 0; i < CONC_MACS; i++) {
		uint8_t mac[6];
		uint16_t p;
		int j, copies = 0;

		mac_of(i, mac);
		p = fdb_lookup(&fdb, mac);
		if (p == FDB_NO_PORT)
			continue;
		assert_true(p == i % 4 || p == i % 4 + 4);
		for (j = 0; j < FDB_SIZE; j++)
			copies += (fdb.slots[j].key & ((1ULL << 48) - 1)) ==
				  ((uint64_t)0x02 << 40 | i);
		assert_true(copies <= 1);
		n++;
	}
	assert_int_equal(n, live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_lookup),
		cmocka_unit_test(test_ignores_bad_sources),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_refresh_only_when_second_passed),
		cmocka_unit_test(test_age),
		cmocka_unit_test(test_flush_port),
		cmocka_unit_test(test_full_chain),
		cmocka_unit_test(test_fill_table),
		cmocka_unit_test(test_differential_exact),
		cmocka_unit_test(test_differential_overfull),
		cmocka_unit_test(test_concurrent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
