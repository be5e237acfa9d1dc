// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fdb.c - unit tests of the MAC learning table
 *
 * Basic behaviour (learn, lookup, move, age, flush), a full probe chain,
 * per-port quotas, static entries and eviction under pressure; the
 * helpers the parts share, and the test list.  The differential test
 * against a naive reference is in test_fdb/ref.c, the threads in
 * test_fdb/conc.c (see test_fdb/test_fdb.h).
 */
#include <errno.h>
#include <string.h>

#include "test_fdb/test_fdb.h"

struct fdb fdb;

/**
 * mac_of() - a unicast, locally administered MAC made from @n
 * @n:		any number (distinct numbers give distinct MACs)
 * @mac:	result
 */
void mac_of(uint32_t n, uint8_t mac[6])
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
int slot_of(const uint8_t mac[6])
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
	assert_int_equal(fdb_lookup(&fdb, 0, a), FDB_NO_PORT);
	fdb_learn(&fdb, 0, a, 3, 100);
	fdb_learn(&fdb, 0, b, 0, 100);
	assert_int_equal(fdb_lookup(&fdb, 0, a), 3);
	assert_int_equal(fdb_lookup(&fdb, 0, b), 0);
	assert_int_equal(fdb_count(&fdb), 2);
	/* Learning again changes nothing. */
	fdb_learn(&fdb, 0, a, 3, 100);
	assert_int_equal(fdb_count(&fdb), 2);
}

static void test_ignores_bad_sources(void **state)
{
	uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t zero[6] = { 0 };
	uint8_t a[6];

	fdb_init(&fdb, 300);
	fdb_learn(&fdb, 0, mcast, 1, 1);
	fdb_learn(&fdb, 0, bcast, 1, 1);
	fdb_learn(&fdb, 0, zero, 1, 1);
	mac_of(7, a);
	fdb_learn(&fdb, 0, a, FDB_NO_PORT, 1);
	assert_int_equal(fdb_count(&fdb), 0);
	assert_int_equal(fdb_lookup(&fdb, 0, mcast), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 0, bcast), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 0, zero), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 0, a), FDB_NO_PORT);
}

static void test_move(void **state)
{
	uint8_t a[6];

	fdb_init(&fdb, 300);
	mac_of(42, a);
	fdb_learn(&fdb, 0, a, 1, 10);
	fdb_learn(&fdb, 0, a, 5, 11);
	assert_int_equal(fdb_lookup(&fdb, 0, a), 5);
	assert_int_equal(fdb_count(&fdb), 1);
	assert_int_equal(fdb.slots[slot_of(a)].seen, 11);
}

static void test_refresh_only_when_second_passed(void **state)
{
	uint8_t a[6];
	int s;

	fdb_init(&fdb, 300);
	mac_of(9, a);
	fdb_learn(&fdb, 0, a, 1, 10);
	s = slot_of(a);
	assert_true(s >= 0);
	/* Poke a marker: a same-second re-learn must not write @seen. */
	fdb.slots[s].seen = 10;
	fdb_learn(&fdb, 0, a, 1, 10);
	assert_int_equal(fdb.slots[s].seen, 10);
	fdb_learn(&fdb, 0, a, 1, 12);
	assert_int_equal(fdb.slots[s].seen, 12);
}

static void test_age(void **state)
{
	uint8_t a[6], b[6];

	fdb_init(&fdb, 300);
	mac_of(1, a);
	mac_of(2, b);
	fdb_learn(&fdb, 0, a, 1, 1000);
	fdb_learn(&fdb, 0, b, 2, 1200);
	assert_int_equal(fdb_age(&fdb, 1300), 0);	/* exactly 300: kept */
	assert_int_equal(fdb_age(&fdb, 1301), 1);
	assert_int_equal(fdb_lookup(&fdb, 0, a), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 0, b), 2);
	/* A refresh restarts the clock. */
	fdb_learn(&fdb, 0, b, 2, 1400);
	assert_int_equal(fdb_age(&fdb, 1600), 0);
	/* A clock read slightly behind the learner's is not "old". */
	assert_int_equal(fdb_age(&fdb, 1399), 0);
	assert_int_equal(fdb_age(&fdb, 1701), 1);
	assert_int_equal(fdb_count(&fdb), 0);
	/* Wraparound of the seconds counter. */
	fdb_learn(&fdb, 0, a, 1, UINT32_MAX - 5);
	assert_int_equal(fdb_age(&fdb, 100), 0);
	assert_int_equal(fdb_age(&fdb, 300), 1);
	/* age_s == 0: never age. */
	fdb_init(&fdb, 0);
	fdb_learn(&fdb, 0, a, 1, 0);
	assert_int_equal(fdb_age(&fdb, 1000000), 0);
	assert_int_equal(fdb_lookup(&fdb, 0, a), 1);
}

static void test_flush_port(void **state)
{
	uint8_t mac[6];
	uint32_t i;

	fdb_init(&fdb, 300);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		fdb_learn(&fdb, 0, mac, (uint16_t)(i % 4), 1);
	}
	assert_int_equal(fdb_count(&fdb), 100);
	assert_int_equal(fdb_flush_port(&fdb, 2), 25);
	assert_int_equal(fdb_flush_port(&fdb, 2), 0);
	assert_int_equal(fdb_count(&fdb), 75);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_lookup(&fdb, 0, mac),
				 i % 4 == 2 ? FDB_NO_PORT : i % 4);
	}
	/* Tombstones are reused and do not hide later entries. */
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		fdb_learn(&fdb, 0, mac, 7, 2);
	}
	assert_int_equal(fdb_count(&fdb), 100);
	for (i = 0; i < 100; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_lookup(&fdb, 0, mac), 7);
	}
}

/**
 * same_home() - fill @cand with MACs sharing one home slot
 * @cand:	FDB_PROBE + 1 MACs out
 *
 * Learns each candidate into the empty table (it lands home) and takes
 * it out again behind fdb's back; leaves the table empty.
 */
void same_home(uint8_t cand[FDB_PROBE + 1][6])
{
	unsigned int found = 0;
	int home = -1;
	uint8_t mac[6];
	uint32_t n;

	fdb_init(&fdb, 300);
	for (n = 1; found < FDB_PROBE + 1 && n < 10000000; n++) {
		int s;

		mac_of(n, mac);
		fdb_learn(&fdb, 0, mac, 1, 1);	/* empty table: lands home */
		s = slot_of(mac);
		assert_true(s >= 0);
		fdb.slots[s].key = 0;
		fdb.ports[1].owned = 0;		/* behind fdb's back */
		if (home < 0)
			home = s;
		if (s == home)
			memcpy(cand[found++], mac, 6);
	}
	assert_int_equal(found, FDB_PROBE + 1);
}

/* FDB_PROBE + 1 MACs sharing a home slot: the last is not learned, the
 * others stay reachable, and deleting one frees room for it.
 */
static void test_full_chain(void **state)
{
	uint8_t cand[FDB_PROBE + 1][6];
	unsigned int i;

	same_home(cand);

	for (i = 0; i < FDB_PROBE; i++)
		fdb_learn(&fdb, 0, cand[i], (uint16_t)i, 1);
	assert_int_equal(fdb_count(&fdb), FDB_PROBE);
	/* Nobody in the chain is at a quota: nothing to push out. */
	assert_int_equal(fdb_learn(&fdb, 0, cand[FDB_PROBE], 3, 1),
			 FDB_LEARN_FULL);
	assert_int_equal(fdb_count(&fdb), FDB_PROBE);
	assert_int_equal(fdb_lookup(&fdb, 0, cand[FDB_PROBE]), FDB_NO_PORT);
	for (i = 0; i < FDB_PROBE; i++)
		assert_int_equal(fdb_lookup(&fdb, 0, cand[i]), i);

	/* A move inside a full chain still works. */
	fdb_learn(&fdb, 0, cand[4], 40, 2);
	assert_int_equal(fdb_lookup(&fdb, 0, cand[4]), 40);

	/* Free the first slot of the chain: the newcomer takes it, and
	 * entries behind the tombstone stay reachable.
	 */
	assert_int_equal(fdb_flush_port(&fdb, 0), 1);
	fdb_learn(&fdb, 0, cand[FDB_PROBE], 3, 2);
	assert_int_equal(fdb_lookup(&fdb, 0, cand[FDB_PROBE]), 3);
	for (i = 1; i < FDB_PROBE; i++)
		assert_int_equal(fdb_lookup(&fdb, 0, cand[i]), i == 4 ? 40 : i);
}

/**
 * port_entries() - learned entries of @port, by inspection
 * @port:	port index
 * Return: live, non-static slots pointing to @port
 */
unsigned int port_entries(uint16_t port)
{
	unsigned int i, n = 0;

	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_entry e;

		n += fdb_entry_get(&fdb, i, &e) && !e.is_static &&
		     e.port == port;
	}
	return n;
}

/* A port learns up to its quota; beyond it sources are refused, counted
 * by the caller; an entry that goes (age, flush) makes room again.
 */
static void test_quota(void **state)
{
	uint8_t mac[6];
	uint32_t i;

	fdb_init(&fdb, 300);
	fdb_set_max(&fdb, 1, 3);
	for (i = 0; i < 3; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 100), FDB_LEARN_OK);
	}
	mac_of(3, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 100), FDB_LEARN_QUOTA);
	assert_int_equal(fdb_lookup(&fdb, 0, mac), FDB_NO_PORT);
	assert_int_equal(fdb_port_macs(&fdb, 1), 3);
	assert_int_equal(port_entries(1), 3);
	/* At its quota a port still refreshes what it owns... */
	mac_of(0, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 200), FDB_LEARN_OK);
	/* ...and other ports are not affected. */
	mac_of(10, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 2, 200), FDB_LEARN_OK);
	/* Two age out (seen at 100): room for two more. */
	assert_int_equal(fdb_age(&fdb, 401), 2);
	assert_int_equal(fdb_port_macs(&fdb, 1), 1);
	for (i = 3; i < 5; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 402), FDB_LEARN_OK);
	}
	mac_of(5, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 402), FDB_LEARN_QUOTA);
	assert_int_equal(fdb_flush_port(&fdb, 1), 3);
	assert_int_equal(fdb_port_macs(&fdb, 1), 0);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 402), FDB_LEARN_OK);
	/* Quota 0: learns nothing. */
	fdb_set_max(&fdb, 4, 0);
	mac_of(20, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 4, 402), FDB_LEARN_QUOTA);
	assert_int_equal(fdb_port_macs(&fdb, 4), 0);
	/* Above the table's size is the table's size. */
	fdb_set_max(&fdb, 5, 1000000);
	assert_int_equal(fdb.ports[5].max, FDB_SIZE);
	/* No quota for ports the table has none for. */
	assert_int_equal(fdb_learn(&fdb, 0, mac, FDB_PORTS, 1), FDB_LEARN_IGNORED);
}

/* Moving a MAC takes the mover's quota: a port at its quota cannot take
 * a victim's MAC over; one under it can (VM migration), and the counts
 * follow the entry.
 */
static void test_quota_move(void **state)
{
	uint8_t v[6], mac[6];
	uint32_t i;

	fdb_init(&fdb, 300);
	fdb_set_max(&fdb, 1, 2);
	mac_of(100, v);
	assert_int_equal(fdb_learn(&fdb, 0, v, 2, 1), FDB_LEARN_OK);
	for (i = 0; i < 2; i++) {
		mac_of(i, mac);
		assert_int_equal(fdb_learn(&fdb, 0, mac, 1, 1), FDB_LEARN_OK);
	}
	assert_int_equal(fdb_learn(&fdb, 0, v, 1, 2), FDB_LEARN_QUOTA);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 2);
	assert_int_equal(fdb_port_macs(&fdb, 2), 1);
	/* Under its quota, a move is legitimate. */
	fdb_set_max(&fdb, 1, 3);
	assert_int_equal(fdb_learn(&fdb, 0, v, 1, 3), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 1);
	assert_int_equal(fdb_port_macs(&fdb, 1), 3);
	assert_int_equal(fdb_port_macs(&fdb, 2), 0);
	assert_int_equal(port_entries(1), 3);
	assert_int_equal(port_entries(2), 0);
}

/* A static entry: never ages, moves or goes with a flush of its port's
 * learned entries; another port's frames from it are refused; it takes
 * over a learned entry in place; it costs no quota.
 */
static void test_static(void **state)
{
	uint8_t v[6], w[6], bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct fdb_entry e;
	int s;

	fdb_init(&fdb, 10);
	mac_of(7, v);
	mac_of(8, w);
	assert_int_equal(fdb_static_add(&fdb, 0, bc, 3), -EINVAL);
	assert_int_equal(fdb_static_add(&fdb, 0, v, FDB_PORTS), -EINVAL);
	assert_int_equal(fdb_static_add(&fdb, 0, v, 3), 0);
	assert_int_equal(fdb_static_add(&fdb, 0, v, 3), 0);	/* again: same */
	assert_int_equal(fdb_count(&fdb), 1);
	assert_int_equal(fdb_static_add(&fdb, 0, v, 4), -EEXIST);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 3);
	assert_int_equal(fdb_port_macs(&fdb, 3), 0);
	s = slot_of(v);
	assert_true(fdb_entry_get(&fdb, (unsigned int)s, &e));
	assert_true(e.is_static);
	assert_int_equal(e.port, 3);
	assert_memory_equal(e.mac, v, 6);

	assert_int_equal(fdb_learn(&fdb, 0, v, 1, 5), FDB_LEARN_LOCKED);
	assert_int_equal(fdb_learn(&fdb, 0, v, 3, 5), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 3);
	assert_int_equal(fdb_port_macs(&fdb, 1), 0);
	assert_int_equal(fdb_age(&fdb, 1000000), 0);
	assert_int_equal(fdb_flush_port(&fdb, 3), 0);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 3);

	/* A learned entry becomes static in place: its port gets its count
	 * back, and it stops moving.
	 */
	assert_int_equal(fdb_learn(&fdb, 0, w, 1, 5), FDB_LEARN_OK);
	assert_int_equal(fdb_port_macs(&fdb, 1), 1);
	assert_int_equal(fdb_static_add(&fdb, 0, w, 2), 0);
	assert_int_equal(fdb_port_macs(&fdb, 1), 0);
	assert_int_equal(fdb_lookup(&fdb, 0, w), 2);
	assert_int_equal(fdb_learn(&fdb, 0, w, 1, 6), FDB_LEARN_LOCKED);
	assert_int_equal(fdb_count(&fdb), 2);

	assert_int_equal(fdb_static_del(&fdb, 0, v, 4), -ENOENT);
	assert_int_equal(fdb_static_del(&fdb, 0, v, 3), 0);
	assert_int_equal(fdb_lookup(&fdb, 0, v), FDB_NO_PORT);
	assert_int_equal(fdb_learn(&fdb, 0, v, 1, 7), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 0, v), 1);
}

/* A learned copy of a static MAC ahead of it in the chain (which no
 * learner makes, but a race could leave) is removed by the next fdb_age().
 */
static void test_static_shadow(void **state)
{
	uint8_t cand[FDB_PROBE + 1][6];
	int s0, s1;

	same_home(cand);
	fdb_learn(&fdb, 0, cand[0], 1, 1);		/* the chain's first slot */
	assert_int_equal(fdb_static_add(&fdb, 0, cand[1], 2), 0);
	s0 = slot_of(cand[0]);
	s1 = slot_of(cand[1]);
	assert_true(s0 < s1);
	/* Forge: slot 0 becomes a learned copy of the static MAC. */
	fdb.slots[s0].key = (fdb.slots[s1].key & ((1ULL << 56) - 1)) |
			    (uint64_t)(1 + 1) << 56;
	assert_int_equal(fdb_lookup(&fdb, 0, cand[1]), 1);
	fdb_age(&fdb, 2);
	assert_int_equal(fdb_lookup(&fdb, 0, cand[1]), 2);
	assert_int_equal(fdb_port_macs(&fdb, 1), 0);
}

/* Bridge domains: one MAC in two domains is two entries, on two ports;
 * learning, lookup, statics, moves and flushes stay within a domain.
 */
static void test_domains(void **state)
{
	const uint8_t m[6] = { 0x02, 0, 0, 0, 0, 0x42 };
	struct fdb_entry e;
	unsigned int i, n = 0;

	fdb_init(&fdb, 300);
	assert_int_equal(fdb_learn(&fdb, 3, m, 1, 1), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 3, m), 1);
	assert_int_equal(fdb_lookup(&fdb, 4, m), FDB_NO_PORT);
	assert_int_equal(fdb_learn(&fdb, 4, m, 2, 1), FDB_LEARN_OK);
	/* Not a move: both live. */
	assert_int_equal(fdb_lookup(&fdb, 3, m), 1);
	assert_int_equal(fdb_lookup(&fdb, 4, m), 2);
	assert_int_equal(fdb_count(&fdb), 2);
	for (i = 0; i < FDB_SIZE; i++)
		if (fdb_entry_get(&fdb, i, &e)) {
			assert_true((e.dom == 3 && e.port == 1) ||
				    (e.dom == 4 && e.port == 2));
			n++;
		}
	assert_int_equal(n, 2);
	/* A static entry in domain 5 does not lock the MAC elsewhere. */
	assert_int_equal(fdb_static_add(&fdb, 5, m, 7), 0);
	assert_int_equal(fdb_learn(&fdb, 3, m, 6, 1), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 3, m), 6);
	assert_int_equal(fdb_learn(&fdb, 5, m, 6, 1), FDB_LEARN_LOCKED);
	assert_int_equal(fdb_static_del(&fdb, 4, m, 7), -ENOENT);
	/* Flushing a domain leaves the others. */
	assert_int_equal(fdb_flush_dom(&fdb, 5), 1);
	assert_int_equal(fdb_lookup(&fdb, 5, m), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 4, m), 2);
	assert_int_equal(fdb_flush_dom(&fdb, 4), 1);
	assert_int_equal(fdb_port_macs(&fdb, 2), 0);
	assert_int_equal(fdb_lookup(&fdb, 3, m), 6);
	/* A port's statics go with fdb_flush_port_static(), not its
	 * learned entries.
	 */
	assert_int_equal(fdb_static_add(&fdb, 9, m, 6), 0);
	assert_int_equal(fdb_flush_port_static(&fdb, 6), 1);
	assert_int_equal(fdb_lookup(&fdb, 9, m), FDB_NO_PORT);
	assert_int_equal(fdb_lookup(&fdb, 3, m), 6);
	(void)state;
}

/* Under pressure (a full chain), a port under its quota pushes out an
 * entry of a port at its quota -- the largest such holder -- and never
 * one of a port under its quota; a port at its quota pushes out nobody.
 */
static void test_evict(void **state)
{
	uint8_t cand[FDB_PROBE + 1][6], mac[6];
	unsigned int i, left = 0;

	same_home(cand);
	fdb_set_max(&fdb, 1, FDB_PROBE - 4);
	fdb_set_max(&fdb, 2, 64);
	/* Port 1 fills its quota in the chain, victim port 2 the rest. */
	for (i = 0; i < FDB_PROBE; i++)
		assert_int_equal(fdb_learn(&fdb, 0, cand[i],
					   i < FDB_PROBE - 4 ? 1 : 2, 1),
				 FDB_LEARN_OK);
	assert_int_equal(fdb_port_macs(&fdb, 1), FDB_PROBE - 4);

	/* Port 3 (under its quota) learns into the full chain: one of the
	 * sprayer's entries goes, none of the victim's.
	 */
	assert_int_equal(fdb_learn(&fdb, 0, cand[FDB_PROBE], 3, 2), FDB_LEARN_OK);
	assert_int_equal(fdb_lookup(&fdb, 0, cand[FDB_PROBE]), 3);
	assert_int_equal(fdb_port_macs(&fdb, 1), FDB_PROBE - 5);
	assert_int_equal(fdb_port_macs(&fdb, 3), 1);
	for (i = FDB_PROBE - 4; i < FDB_PROBE; i++)
		assert_int_equal(fdb_lookup(&fdb, 0, cand[i]), 2);
	for (i = 0; i < FDB_PROBE - 4; i++)
		left += fdb_lookup(&fdb, 0, cand[i]) == 1;
	assert_int_equal(left, FDB_PROBE - 5);
	assert_int_equal(fdb_count(&fdb), FDB_PROBE);

	/* The sprayer, under its quota again, finds nobody at a quota in
	 * the chain (victim 2 and port 3 are under theirs): refused.
	 */
	for (i = 0; i < FDB_PROBE - 4; i++)
		if (fdb_lookup(&fdb, 0, cand[i]) != 1)
			break;
	assert_int_equal(fdb_learn(&fdb, 0, cand[i], 1, 3), FDB_LEARN_FULL);
	assert_int_equal(fdb_port_macs(&fdb, 1), FDB_PROBE - 5);

	/* At its quota, a port evicts nobody: port 2 at quota 4, its fifth
	 * MAC into the chain (where port 1 holds a full quota) is refused.
	 */
	fdb_set_max(&fdb, 1, FDB_PROBE - 5);
	fdb_set_max(&fdb, 2, 4);
	assert_int_equal(fdb_learn(&fdb, 0, cand[i], 2, 3), FDB_LEARN_QUOTA);
	assert_int_equal(fdb_port_macs(&fdb, 1), FDB_PROBE - 5);
	mac_of(999999, mac);
	assert_int_equal(fdb_learn(&fdb, 0, mac, 2, 3), FDB_LEARN_QUOTA);
	assert_int_equal(port_entries(1), FDB_PROBE - 5);
	assert_int_equal(port_entries(2), 4);
	assert_int_equal(port_entries(3), 1);
}

/* A whole table's worth of distinct MACs: never a wrong answer. */
static void test_fill_table(void **state)
{
	uint8_t mac[6];
	uint32_t i, hits = 0;

	fdb_init(&fdb, 300);
	for (i = 0; i < 2 * FDB_SIZE; i++) {
		mac_of(i * 2654435761u, mac);
		fdb_learn(&fdb, 0, mac, (uint16_t)(i % 61), 1);
	}
	assert_true(fdb_count(&fdb) <= FDB_SIZE);
	assert_true(fdb_count(&fdb) > FDB_SIZE / 2);
	for (i = 0; i < 2 * FDB_SIZE; i++) {
		uint16_t p;

		mac_of(i * 2654435761u, mac);
		p = fdb_lookup(&fdb, 0, mac);
		if (p != FDB_NO_PORT) {
			assert_int_equal(p, i % 61);
			hits++;
		}
	}
	assert_int_equal(hits, fdb_count(&fdb));
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
		cmocka_unit_test(test_quota),
		cmocka_unit_test(test_quota_move),
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_static_shadow),
		cmocka_unit_test(test_domains),
		cmocka_unit_test(test_evict),
		cmocka_unit_test(test_fill_table),
		cmocka_unit_test(test_differential_exact),
		cmocka_unit_test(test_differential_quota),
		cmocka_unit_test(test_differential_overfull),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_concurrent_pressure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
