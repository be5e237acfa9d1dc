// SPDX-License-Identifier: GPL-2.0-or-later
/* ref.c - test_fdb: the table against a naive reference
 *
 * An unordered array with per-port counts and quotas and static entries:
 * random learns, lookups, ageing and flushes on both, every outcome (and,
 * while the table cannot fill, every learn's result and every count)
 * compared.
 */
#include <stdlib.h>

#include "test_fdb.h"

/* The naive reference: an unordered array, per-port counts and quotas. */
struct ref_entry {
	uint32_t id;
	uint16_t port;
	uint32_t seen;
	bool is_static;
};

static struct ref_entry ref[1 << 16];
static unsigned int ref_n;
static unsigned int ref_count[8], ref_max[8];

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
	if (!ref[i].is_static)
		ref_count[ref[i].port]--;
	ref[i] = ref[--ref_n];
}

static enum fdb_learn_rc ref_learn(uint32_t id, uint16_t port, uint32_t now)
{
	int i = ref_find(id);

	if (i >= 0 && ref[i].is_static)
		return ref[i].port == port ? FDB_LEARN_OK : FDB_LEARN_LOCKED;
	if (i >= 0 && ref[i].port == port) {
		ref[i].seen = now;
		return FDB_LEARN_OK;
	}
	if (ref_count[port] >= ref_max[port])
		return FDB_LEARN_QUOTA;
	if (i < 0) {
		i = (int)ref_n++;
		ref[i].id = id;
		ref[i].is_static = false;
	} else {
		ref_count[ref[i].port]--;
	}
	ref_count[port]++;
	ref[i].port = port;
	ref[i].seen = now;
	return FDB_LEARN_OK;
}

static void ref_static(uint32_t id, uint16_t port)
{
	int i = ref_find(id);

	if (i >= 0)
		ref_del((unsigned int)i);
	i = (int)ref_n++;
	ref[i].id = id;
	ref[i].port = port;
	ref[i].is_static = true;
}

static unsigned int ref_age(uint32_t age_s, uint32_t now)
{
	unsigned int i = 0, n = 0;

	while (i < ref_n) {
		if (!ref[i].is_static && now - ref[i].seen > age_s) {
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
		if (!ref[i].is_static && ref[i].port == port) {
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
 * @l2:		(exact only) ports get quotas of 5..75 MACs, and MACs 0-7
 *		are static on port id % 8: every learn's result must equal
 *		the reference's, and so must every port's count
 */
static void differential(uint32_t pool, unsigned int ops, bool exact,
			 bool l2)
{
	unsigned int op, max_ref = 0, p;
	uint32_t now = 1000;

	fdb_init(&fdb, 30);
	ref_n = 0;
	srandom(12345 + pool + l2);
	for (p = 0; p < 8; p++) {
		ref_count[p] = 0;
		ref_max[p] = l2 ? 5 + 10 * p : FDB_SIZE;
		fdb_set_max(&fdb, (uint16_t)p, ref_max[p]);
	}
	for (p = 0; l2 && p < 8; p++) {
		uint8_t mac[6];

		mac_of(p, mac);
		assert_int_equal(fdb_static_add(&fdb, 0, mac, (uint16_t)p), 0);
		ref_static(p, (uint16_t)p);
	}
	for (op = 0; op < ops; op++) {
		uint32_t id = (uint32_t)random() % pool;
		uint16_t port = (uint16_t)(random() % 8);
		unsigned int r = (unsigned int)random() % 100;
		uint8_t mac[6];
		int i;

		mac_of(id, mac);
		if (r < 50) {
			enum fdb_learn_rc a = fdb_learn(&fdb, 0, mac, port, now);
			enum fdb_learn_rc b = ref_learn(id, port, now);

			if (exact)
				assert_int_equal(a, b);
		} else if (r < 90) {
			uint16_t got = fdb_lookup(&fdb, 0, mac);

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
			fdb_learn(&fdb, 0, mac, port, now);
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
		if (exact) {
			assert_int_equal(fdb_count(&fdb), ref_n);
			assert_int_equal(fdb_port_macs(&fdb, port),
					 ref_count[port]);
		} else if (op % 64 == 0) {
			assert_true(fdb_count(&fdb) <= ref_n);
		}
		if (ref_n > max_ref)
			max_ref = ref_n;
	}
	/* The overfull run must really have overfilled the table. */
	if (!exact)
		assert_true(max_ref > FDB_SIZE);
	/* Final sweep over every MAC of the pool, and every count. */
	for (op = 0; op < pool; op++) {
		uint8_t mac[6];
		uint16_t got;
		int i;

		mac_of(op, mac);
		got = fdb_lookup(&fdb, 0, mac);
		i = ref_find(op);
		if (exact)
			assert_int_equal(got, i < 0 ? FDB_NO_PORT : ref[i].port);
		else if (got != FDB_NO_PORT)
			assert_int_equal(got, ref[i].port);
	}
	for (p = 0; exact && p < 8; p++) {
		assert_int_equal(fdb_port_macs(&fdb, (uint16_t)p),
				 ref_count[p]);
		assert_int_equal(port_entries((uint16_t)p), ref_count[p]);
	}
}

void test_differential_exact(void **state)
{
	differential(600, 200000, true, false);
}

void test_differential_quota(void **state)
{
	differential(600, 200000, true, true);
}

void test_differential_overfull(void **state)
{
	differential(3 * FDB_SIZE, 300000, false, false);
}
