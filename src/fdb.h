/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdb.h - the MAC learning table
 *
 * Fixed capacity, open addressing, lock-free: each slot's MAC and port
 * are packed into one 64-bit word written atomically, so any worker may
 * learn and look up concurrently, and the control thread ages entries
 * out with compare-and-swap.  Learning writes only when something changed
 * (or the timestamp is a second old), so steady traffic does not bounce
 * cache lines between cores.
 */
#ifndef VHOSTD_FDB_H
#define VHOSTD_FDB_H

#include <stdbool.h>
#include <stdint.h>

#define FDB_SIZE	4096	/* slots, power of two */
#define FDB_PROBE	16	/* linear probe limit */
#define FDB_NO_PORT	0xffff

/**
 * struct fdb_slot - one entry
 * @key:	MAC in the low 48 bits, port + 1 in the high 16 (0 = empty)
 * @seen:	now_s() when last learned
 */
struct fdb_slot {
	uint64_t key;
	uint32_t seen;
};

/**
 * struct fdb - the table
 * @age_s:	entries unseen for this long are removed by fdb_age()
 * @slots:	entries
 */
struct fdb {
	uint32_t age_s;
	struct fdb_slot slots[FDB_SIZE];
};

/*
 * fdb_init()		empty table with ageing time @age_s.
 * fdb_learn()		@mac (unicast source) was seen on @port at @now.
 *			Moves the entry if it was elsewhere.  Full table:
 *			not learned (frames to it flood).
 * fdb_lookup()		port for @mac, or FDB_NO_PORT.
 * fdb_age()		remove entries older than age_s at @now; returns
 *			how many were removed (control thread).
 * fdb_flush_port()	remove every entry pointing to @port (port removed
 *			or its guest reconnected).
 * fdb_count()		entries in use.
 */
void fdb_init(struct fdb *f, uint32_t age_s);
void fdb_learn(struct fdb *f, const uint8_t mac[6], uint16_t port,
	       uint32_t now);
uint16_t fdb_lookup(const struct fdb *f, const uint8_t mac[6]);
unsigned int fdb_age(struct fdb *f, uint32_t now);
unsigned int fdb_flush_port(struct fdb *f, uint16_t port);
unsigned int fdb_count(const struct fdb *f);

#endif /* VHOSTD_FDB_H */
