// SPDX-License-Identifier: GPL-2.0-or-later
/* fdb.c - the MAC learning table: lock-free open addressing
 *
 * Owns the MAC -> port map shared by every worker (learn, lookup) and the
 * control thread (age, flush, listing through ctl).  See fdb.h for the
 * contract and the DOC below for why the concurrency is correct.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "fdb.h"
#include "util.h"

/**
 * DOC: Theory of Operation
 *
 * Slots.  A slot's @key packs a MAC (low 48 bits) and port + 1 (high 16
 * bits) into one word, so an entry appears, moves and disappears with a
 * single atomic store or compare-and-swap: a reader never sees half an
 * entry.  Three kinds of key exist:
 *
 *   0			empty: never used since fdb_init()
 *   FDB_TOMB		deleted: MAC 0, port field 1
 *   MAC | (port+1)<<48	live, MAC != 0
 *
 * The all-zero MAC is never learned (it is not a station address), so
 * "MAC bits != 0" is the one test for a live key -- ctl.c relies on it
 * when it lists the table.
 *
 * Probing.  A MAC lives within FDB_PROBE slots of its hash, at the first
 * slot that was free (empty or deleted) when it was learned.  Lookups walk
 * those slots and stop early only at an *empty* slot.  Deletion writes a
 * tombstone, never 0, so no slot a probe chain passed over can turn empty
 * behind an entry: every live entry stays reachable.  Tombstones are
 * reused by the next learn whose chain crosses them, so the table does not
 * fill with them; their only cost is that once a region has been used,
 * misses walk all FDB_PROBE slots (16 slots of 16 bytes: four cache lines).
 * The walk is bounded either way, which is what matters against a guest
 * that sprays source MACs: a full chain means "not learned, flood".
 *
 * Races.  Workers learn concurrently, the control thread ages and flushes:
 *
 * - Insert claims a free slot with CAS, after storing @seen, so a reader
 *   that observes the new key (acquire) also observes a current @seen and
 *   the ager cannot mistake a fresh entry for an old one.  The CAS fails if
 *   another learner took the slot first; we then rescan and find its entry.
 * - Two learners of one MAC can still claim two different slots when the
 *   table changed between their scans (a tombstone appeared earlier in the
 *   chain).  After a successful claim the learner rescans the chain and
 *   deletes whichever copy sits later: its own if another is earlier,
 *   else the other.  Of two racing claims, the later one's rescan sees
 *   both copies, so the duplicate does not survive, and the copy kept is
 *   the earliest -- the one lookups find.
 * - A move is a CAS from the old key to the new one (after storing @seen),
 *   so it fails, and is retried, if the ager or a flush deleted the entry
 *   meanwhile: a re-learn always wins over a removal.
 * - The ager deletes with CAS from the exact key it judged stale, so an
 *   entry that moved in between survives.  A same-port refresh does not
 *   change the key; a refresh racing the ager in the same instant can lose
 *   the entry, and the next frame from that MAC learns it again.
 * - @seen is refreshed only when the second changed, so a steady flow
 *   reads the slot's cache line but does not write it.
 *
 * Hashing.  A guest chooses its source MACs, so a fixed public hash would
 * let it aim 17 MACs at one chain and keep a victim from being learned.
 * The MAC is mixed with a per-process random seed (multiply / xor-shift,
 * the murmur3 finaliser), which costs a few cycles and hides the layout.
 */

#define FDB_MAC_MASK	((1ULL << 48) - 1)
#define FDB_PORT_SHIFT	48
#define FDB_TOMB	(1ULL << FDB_PORT_SHIFT)
#define FDB_RETRIES	8	/* CAS losses before giving up one learn */

static uint64_t fdb_seed;

/**
 * fdb_mac_to_key() - MAC as the low 48 bits of a word
 * @mac:	6 bytes, network order
 * Return: MAC as an integer (first byte most significant)
 */
static inline uint64_t fdb_mac_to_key(const uint8_t mac[6])
{
	return (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 |
	       (uint64_t)mac[2] << 24 | (uint64_t)mac[3] << 16 |
	       (uint64_t)mac[4] << 8 | (uint64_t)mac[5];
}

/**
 * fdb_hash() - home slot of a MAC
 * @m:		MAC from fdb_mac_to_key()
 * Return: slot index in [0, FDB_SIZE)
 */
static inline unsigned int fdb_hash(uint64_t m)
{
	uint64_t x = m ^ fdb_seed;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (unsigned int)(x & (FDB_SIZE - 1));
}

static inline uint64_t fdb_key_load(const struct fdb_slot *s)
{
	return __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
}

static inline bool fdb_key_cas(struct fdb_slot *s, uint64_t old, uint64_t new)
{
	/* Release pairs with the acquire in fdb_key_load(): whoever sees
	 * the new key also sees the @seen stored before it.
	 */
	return __atomic_compare_exchange_n(&s->key, &old, new, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static inline void fdb_seen_store(struct fdb_slot *s, uint32_t now)
{
	__atomic_store_n(&s->seen, now, __ATOMIC_RELAXED);
}

static inline bool fdb_key_live(uint64_t k)
{
	return (k & FDB_MAC_MASK) != 0;
}

/**
 * fdb_init() - empty the table and set the ageing time
 * @f:		table
 * @age_s:	ageing time in seconds; 0 = entries never age
 *
 * Context: before any worker uses @f (it is not atomic).
 */
void fdb_init(struct fdb *f, uint32_t age_s)
{
	memset(f, 0, sizeof(*f));
	f->age_s = age_s;
	if (!fdb_seed) {
		uint64_t seed;

		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(seed))
			seed = now_ns() * 0x9e3779b97f4a7c15ULL;
		fdb_seed = seed | 1;
	}
}

/**
 * fdb_dedup() - keep only the earliest copy of a MAC in its chain
 * @f:		table
 * @m:		MAC
 * @home:	the MAC's home slot
 * @pos:	probe distance of the copy we just claimed
 * @want:	the key we stored there
 *
 * Context: any worker, right after a successful insert (rare).
 */
static void fdb_dedup(struct fdb *f, uint64_t m, unsigned int home,
		      unsigned int pos, uint64_t want)
{
	unsigned int i;

	for (i = 0; i < FDB_PROBE; i++) {
		struct fdb_slot *s = &f->slots[(home + i) & (FDB_SIZE - 1)];
		uint64_t k;

		if (i == pos)
			continue;
		k = fdb_key_load(s);
		if (!k)
			return;
		if ((k & FDB_MAC_MASK) != m)
			continue;
		if (i < pos) {
			/* Someone placed it earlier: ours is the copy
			 * lookups would not find.  A failed CAS means it
			 * already changed hands; leave it.
			 */
			fdb_key_cas(&f->slots[(home + pos) & (FDB_SIZE - 1)],
				    want, FDB_TOMB);
			return;
		}
		fdb_key_cas(s, k, FDB_TOMB);	/* lost: gone anyway */
	}
}

/**
 * fdb_learn() - record that @mac was the source of a frame on @port
 * @f:		table
 * @mac:	source MAC; multicast and all-zero MACs are ignored
 * @port:	switch port index, < FDB_NO_PORT
 * @now:	now_s()
 *
 * Context: any worker, concurrently with other learners, lookups, the
 * ager and flushes.  Never blocks; a full chain leaves @mac unlearned.
 */
void fdb_learn(struct fdb *f, const uint8_t mac[6], uint16_t port,
	       uint32_t now)
{
	uint64_t m = fdb_mac_to_key(mac), want;
	unsigned int home, tries, i;

	/* Callers check, but a multicast "source" learned here would
	 * capture that group's traffic for one port.
	 */
	if ((mac[0] & 1) || !m || port >= FDB_NO_PORT)
		return;
	want = m | (uint64_t)(port + 1) << FDB_PORT_SHIFT;
	home = fdb_hash(m);

	for (tries = 0; tries < FDB_RETRIES; tries++) {
		struct fdb_slot *free_slot = NULL;
		uint64_t free_key = 0;
		unsigned int free_pos = 0;

		for (i = 0; i < FDB_PROBE; i++) {
			struct fdb_slot *s = &f->slots[(home + i) &
						       (FDB_SIZE - 1)];
			uint64_t k = fdb_key_load(s);

			if (!k) {
				if (!free_slot) {
					free_slot = s;
					free_key = k;
					free_pos = i;
				}
				break;
			}
			if (!fdb_key_live(k)) {
				if (!free_slot) {
					free_slot = s;
					free_key = k;
					free_pos = i;
				}
				continue;
			}
			if ((k & FDB_MAC_MASK) != m)
				continue;

			if (k == want) {
				/* Steady state: read-only unless a second
				 * passed.
				 */
				if (__atomic_load_n(&s->seen,
						    __ATOMIC_RELAXED) != now)
					fdb_seen_store(s, now);
				return;
			}
			/* Moved: @seen first, so the ager never sees the
			 * new key with the old time.
			 */
			fdb_seen_store(s, now);
			if (fdb_key_cas(s, k, want))
				return;
			goto retry;	/* aged, flushed or moved again */
		}

		if (!free_slot)
			return;		/* chain full: frames to @mac flood */
		fdb_seen_store(free_slot, now);
		if (fdb_key_cas(free_slot, free_key, want)) {
			fdb_dedup(f, m, home, free_pos, want);
			return;
		}
retry:
		;
	}
}

/**
 * fdb_lookup() - where does @mac live?
 * @f:		table
 * @mac:	destination MAC
 * Return: port index, or FDB_NO_PORT if unknown (flood)
 *
 * Context: any thread, lock-free.
 */
uint16_t fdb_lookup(const struct fdb *f, const uint8_t mac[6])
{
	uint64_t m = fdb_mac_to_key(mac);
	unsigned int home, i;

	if (!m)
		return FDB_NO_PORT;
	home = fdb_hash(m);
	for (i = 0; i < FDB_PROBE; i++) {
		uint64_t k = fdb_key_load(&f->slots[(home + i) &
						    (FDB_SIZE - 1)]);

		if (!k)
			break;
		if ((k & FDB_MAC_MASK) == m)
			return (uint16_t)((k >> FDB_PORT_SHIFT) - 1);
	}
	return FDB_NO_PORT;
}

/**
 * fdb_age() - delete entries not seen for more than the ageing time
 * @f:		table
 * @now:	now_s()
 * Return: entries removed
 *
 * Context: control thread, about once a second.  Concurrent learners
 * win: an entry whose key changed since we judged it is left alone.
 */
unsigned int fdb_age(struct fdb *f, uint32_t now)
{
	unsigned int i, n = 0;

	if (!f->age_s)
		return 0;
	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_slot *s = &f->slots[i];
		uint64_t k = fdb_key_load(s);
		int32_t idle;

		if (!fdb_key_live(k))
			continue;
		/* Signed: a worker's clock read may be a tick ahead of ours. */
		idle = (int32_t)(now - __atomic_load_n(&s->seen,
						       __ATOMIC_RELAXED));
		if (idle <= 0 || (uint32_t)idle <= f->age_s)
			continue;
		if (fdb_key_cas(s, k, FDB_TOMB))
			n++;
	}
	return n;
}

/**
 * fdb_flush_port() - forget every MAC learned on @port
 * @f:		table
 * @port:	port index
 * Return: entries removed
 *
 * Context: control thread (port removed, guest reconnected).  A worker
 * still forwarding from @port may re-learn a MAC right after; callers
 * stop the port first when that matters.
 */
unsigned int fdb_flush_port(struct fdb *f, uint16_t port)
{
	uint64_t field = (uint64_t)(port + 1) << FDB_PORT_SHIFT;
	unsigned int i, n = 0;

	if (port >= FDB_NO_PORT)
		return 0;
	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_slot *s = &f->slots[i];
		uint64_t k = fdb_key_load(s);

		if (!fdb_key_live(k) || (k & ~FDB_MAC_MASK) != field)
			continue;
		if (fdb_key_cas(s, k, FDB_TOMB))
			n++;
	}
	return n;
}

/**
 * fdb_count() - entries in use
 * @f:		table
 * Return: live entries (a snapshot; may be stale by the time it returns)
 */
unsigned int fdb_count(const struct fdb *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < FDB_SIZE; i++)
		n += fdb_key_live(fdb_key_load(&f->slots[i]));
	return n;
}
