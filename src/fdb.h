/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdb.h - the MAC learning table
 *
 * Fixed capacity, open addressing, lock-free: each slot's MAC and port
 * are packed into one 64-bit word written atomically, so any worker may
 * learn and look up concurrently, and the control thread ages entries
 * out with compare-and-swap.  Learning writes only when something changed
 * (or the timestamp is a second old), so steady traffic does not bounce
 * cache lines between cores.
 *
 * Isolation: each port may own at most its quota of learned (dynamic)
 * entries, so no port can fill the shared table; a static entry (a port
 * locked to its MAC) never ages, moves or is flushed with the port's
 * learned ones.
 */
#ifndef VHOSTD_FDB_H
#define VHOSTD_FDB_H

#include <stdbool.h>
#include <stdint.h>

#define FDB_SIZE	4096	/* slots, power of two */
#define FDB_PROBE	16	/* linear probe limit */
#define FDB_PORTS	64	/* port indexes with a quota: 0..FDB_PORTS-1 */
#define FDB_NO_PORT	0xffff
#define FDB_DOMS	256	/* bridge domain indexes: 0..FDB_DOMS-1 */

/**
 * struct fdb_slot - one entry
 * @key:	MAC in the low 48 bits, domain index in bits 48-55, port + 1
 *		in bits 56-62 (0 = empty), bit 63 set for a static entry
 * @seen:	now_s() when last learned
 */
struct fdb_slot {
	uint64_t key;
	uint32_t seen;
};

/**
 * struct fdb_port - learning quota of one port
 * @owned:	dynamic entries the port holds, plus those a learner is
 *		about to insert (taken before the insert, given back if it
 *		fails): never above @max.  Atomic; adjusted by whoever wins
 *		the compare-and-swap that creates or removes an entry
 * @max:	quota, set by the control thread before the port forwards
 *
 * One cache line per port: a spraying port's learners hammer only their
 * own line.
 */
struct fdb_port {
	uint32_t owned;
	uint32_t max;
} __attribute__((aligned(64)));

/**
 * struct fdb - the table
 * @age_s:	entries unseen for this long are removed by fdb_age()
 * @ports:	per-port quota and count of learned entries
 * @slots:	entries
 */
struct fdb {
	uint32_t age_s;
	struct fdb_port ports[FDB_PORTS];
	struct fdb_slot slots[FDB_SIZE];
};

/**
 * enum fdb_learn_rc - what fdb_learn() did
 * @FDB_LEARN_OK:	learned, refreshed or moved to the port
 * @FDB_LEARN_IGNORED:	not a station address (group, zero) or bad port
 * @FDB_LEARN_QUOTA:	refused: the port owns its quota of MACs already
 *			(new MAC, or a move of another port's entry)
 * @FDB_LEARN_LOCKED:	refused: the MAC is static on another port
 * @FDB_LEARN_FULL:	refused: the MAC's probe chain is full and no entry
 *			in it belongs to a port at its quota
 * @FDB_LEARN_COUNT:	number of results
 */
enum fdb_learn_rc {
	FDB_LEARN_OK,
	FDB_LEARN_IGNORED,
	FDB_LEARN_QUOTA,
	FDB_LEARN_LOCKED,
	FDB_LEARN_FULL,
	FDB_LEARN_COUNT,
};

/**
 * struct fdb_entry - one live entry, as fdb_entry_get() reads it
 * @mac:	station address
 * @dom:	bridge domain index (the switch maps it to a VLAN)
 * @port:	port index
 * @is_static:	static (fdb_static_add()), never ages or moves
 * @seen:	now_s() when last learned (0 for static entries)
 */
struct fdb_entry {
	uint8_t mac[6];
	uint8_t dom;
	uint16_t port;
	bool is_static;
	uint32_t seen;
};

/*
 * fdb_init()		empty table with ageing time @age_s; every port's
 *			quota FDB_SIZE (no limit).
 * fdb_set_max()	@port may own at most @max learned entries.
 * fdb_port_macs()	learned entries @port owns now.
 * Entries are per bridge domain (@dom, an index the switch maps to a VLAN):
 * learning, lookup and static entries take it, ageing and flushing a port
 * cover every domain.
 *
 * fdb_learn()		@mac (unicast source) was seen in @dom on @port at @now.
 *			Moves the entry if it was elsewhere (unless static
 *			there, or @port is at its quota).  Full chain: an
 *			entry of a port at its quota is replaced, or @mac
 *			is not learned (frames to it flood).
 * fdb_lookup()		port for @mac in @dom, or FDB_NO_PORT.
 * fdb_static_add()	@mac lives in @dom on @port for good (control thread).
 * fdb_static_del()	undo fdb_static_add() (control thread).
 * fdb_age()		remove learned entries older than age_s at @now;
 *			returns how many were removed (control thread).
 * fdb_flush_port()	remove every learned entry pointing to @port (port
 *			removed or its guest reconnected); static ones stay.
 * fdb_flush_port_static() remove @port's static entries (port removed).
 * fdb_flush_dom()	remove every entry of domain @dom, static ones too
 *			(its last port removed).
 * fdb_count()		entries in use.
 * fdb_entry_get()	slot @i, if it holds an entry (for listings).
 */
void fdb_init(struct fdb *f, uint32_t age_s);
void fdb_set_max(struct fdb *f, uint16_t port, uint32_t max);
unsigned int fdb_port_macs(const struct fdb *f, uint16_t port);
enum fdb_learn_rc fdb_learn(struct fdb *f, uint8_t dom, const uint8_t mac[6],
			    uint16_t port, uint32_t now);
uint16_t fdb_lookup(const struct fdb *f, uint8_t dom, const uint8_t mac[6]);
int fdb_static_add(struct fdb *f, uint8_t dom, const uint8_t mac[6],
		   uint16_t port);
int fdb_static_del(struct fdb *f, uint8_t dom, const uint8_t mac[6],
		   uint16_t port);
unsigned int fdb_age(struct fdb *f, uint32_t now);
unsigned int fdb_flush_port(struct fdb *f, uint16_t port);
unsigned int fdb_flush_port_static(struct fdb *f, uint16_t port);
unsigned int fdb_flush_dom(struct fdb *f, uint8_t dom);
unsigned int fdb_count(const struct fdb *f);
bool fdb_entry_get(const struct fdb *f, unsigned int i, struct fdb_entry *e);

#endif /* VHOSTD_FDB_H */
