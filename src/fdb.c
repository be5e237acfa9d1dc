// SPDX-License-Identifier: GPL-2.0-or-later
/* fdb.c - the MAC learning table: lock-free open addressing
 *
 * Owns the MAC -> port map shared by every worker (learn, lookup) and the
 * control thread (age, flush, static entries, listing through ctl), and
 * each port's count of learned entries against its quota.  See fdb.h for
 * the contract and the DOC below for why the concurrency is correct.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "fdb.h"
#include "util.h"

/**
 * DOC: Theory of Operation
 *
 * Slots.  A slot's @key packs a MAC (low 48 bits), the index of its
 * bridge domain (bits 48-55), port + 1 (bits 56-62) and a static flag
 * (bit 63) into one word, so an entry appears, moves and disappears with
 * a single atomic store or compare-and-swap: a reader never sees half an
 * entry.  An entry is known by its MAC and domain together (its "id",
 * bits 0-55): the same MAC may live in two domains, on two ports, as two
 * entries.  Four kinds of key exist:
 *
 *   0				empty: never used since fdb_init()
 *   FDB_TOMB			deleted: MAC 0, port field 1
 *   MAC | dom<<48 | (port+1)<<56	learned ("dynamic"), MAC != 0
 *   ... | FDB_STATIC		static: never aged, moved or flushed
 *
 * The all-zero MAC is never learned (it is not a station address), so
 * "MAC bits != 0" is the one test for a live key; listings go through
 * fdb_entry_get().
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
 * that sprays source MACs.
 *
 * Quotas.  A guest that sprays source MACs must not be able to fill the
 * table (every other guest's traffic would flood) nor push a victim's
 * entry out.  So each port owns at most @max learned entries, counted in
 * its @owned.  The count is taken *before* the compare-and-swap that
 * creates or takes over an entry (and given back if that CAS fails), and
 * given back *after* the CAS that deletes one, by whoever won that CAS:
 * the learner that moved the entry away, the ager, a flush, a dedup.  So
 * at every instant a port's live entries <= @owned <= @max, and once
 * nobody is learning, @owned equals its live entries exactly (the unit
 * test checks both against concurrent learners, ager and flushes).  A
 * refresh changes no key and touches no count: steady traffic stays free.
 *
 * Under pressure (a full probe chain), a learner still under its quota
 * may replace the entry of a port that is *at* its quota -- the largest
 * such holder in the chain.  A port at its quota never evicts anyone and
 * never takes over another port's MAC: the sprayer loses, not its victims.
 *
 * Static entries (a port locked to its MAC, fdb_static_add()) are written
 * by the control thread.  Learners treat them as final: a static MAC seen
 * on another port is refused (FDB_LEARN_LOCKED), the ager skips them,
 * fdb_flush_port() leaves them, and a dedup never deletes one.  They do
 * not count against the quota.
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
 *   deletes whichever copy sits later: its own if another is earlier (or
 *   the other is static), else the other.  Of two racing claims, the later
 *   one's rescan sees both copies, so the duplicate does not survive, and
 *   the copy kept is the earliest -- the one lookups find.  A static
 *   install dedups the same way, keeping the static copy; and since a
 *   dynamic copy moved by a third learner at the wrong moment could
 *   escape both rescans, the ager repeats the static dedup every second.
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
#define FDB_DOM_SHIFT	48
#define FDB_ID_MASK	((1ULL << 56) - 1)	/* MAC and domain */
#define FDB_PORT_SHIFT	56
#define FDB_PORT_MASK	0x7fULL
#define FDB_STATIC	(1ULL << 63)
#define FDB_TOMB	(1ULL << FDB_PORT_SHIFT)
#define FDB_RETRIES	8	/* CAS losses before giving up one learn */
#define FDB_EVICT_RETRY	FDB_LEARN_COUNT	/* fdb_evict(): chain changed */

_Static_assert(FDB_PORTS < FDB_PORT_MASK, "port + 1 must fit in 7 bits");
_Static_assert(FDB_DOMS == 256, "a domain index is the 8 bits 48-55");

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
 * fdb_id() - what an entry is known by: a MAC in a domain
 * @dom:	domain index
 * @mac:	6 bytes, network order
 * Return: the MAC in bits 0-47, @dom in bits 48-55
 */
static inline uint64_t fdb_id(uint8_t dom, const uint8_t mac[6])
{
	return fdb_mac_to_key(mac) | (uint64_t)dom << FDB_DOM_SHIFT;
}

/**
 * fdb_hash() - home slot of a MAC
 * @m:		MAC and domain from fdb_id()
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

static inline struct fdb_slot *fdb_at(struct fdb *f, unsigned int home,
				      unsigned int i)
{
	return &f->slots[(home + i) & (FDB_SIZE - 1)];
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

static inline bool fdb_key_static(uint64_t k)
{
	return (k & FDB_STATIC) != 0;
}

/* Port index of a live key. */
static inline uint16_t fdb_key_port(uint64_t k)
{
	return (uint16_t)(((k >> FDB_PORT_SHIFT) & FDB_PORT_MASK) - 1);
}

/**
 * fdb_quota_take() - count one more learned entry for @port, if allowed
 * @f:		table
 * @port:	port index, < FDB_PORTS
 * Return: true if @port was under its quota (and now counts one more)
 *
 * Context: any thread.  The counts guard no memory: relaxed is enough.
 */
static bool fdb_quota_take(struct fdb *f, uint16_t port)
{
	struct fdb_port *fp = &f->ports[port];
	uint32_t max = __atomic_load_n(&fp->max, __ATOMIC_RELAXED);
	uint32_t c = __atomic_load_n(&fp->owned, __ATOMIC_RELAXED);

	do {
		if (c >= max)
			return false;
	} while (!__atomic_compare_exchange_n(&fp->owned, &c, c + 1, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/**
 * fdb_quota_put() - one learned entry of @port is gone (or was not made)
 * @f:		table
 * @port:	port index, < FDB_PORTS
 */
static inline void fdb_quota_put(struct fdb *f, uint16_t port)
{
	__atomic_fetch_sub(&f->ports[port].owned, 1, __ATOMIC_RELAXED);
}

/**
 * fdb_replace() - replace the learned entry @old at @s, if still there
 * @f:		table
 * @s:		slot
 * @old:	the live, dynamic key we judged
 * @new:	what goes there instead (FDB_TOMB to delete)
 * Return: true if we won (and gave @old's port its count back)
 */
static bool fdb_replace(struct fdb *f, struct fdb_slot *s, uint64_t old,
			uint64_t new)
{
	if (!fdb_key_cas(s, old, new))
		return false;
	fdb_quota_put(f, fdb_key_port(old));
	return true;
}

static inline bool fdb_del(struct fdb *f, struct fdb_slot *s, uint64_t k)
{
	return fdb_replace(f, s, k, FDB_TOMB);
}

/**
 * fdb_init() - empty the table and set the ageing time
 * @f:		table
 * @age_s:	ageing time in seconds; 0 = entries never age
 *
 * Every port's quota is FDB_SIZE (no limit) until fdb_set_max().
 *
 * Context: before any worker uses @f (it is not atomic).
 */
void fdb_init(struct fdb *f, uint32_t age_s)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->age_s = age_s;
	for (i = 0; i < FDB_PORTS; i++)
		f->ports[i].max = FDB_SIZE;
	if (!fdb_seed) {
		uint64_t seed;

		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(seed))
			seed = now_ns() * 0x9e3779b97f4a7c15ULL;
		fdb_seed = seed | 1;
	}
}

/**
 * fdb_set_max() - set a port's quota of learned entries
 * @f:		table
 * @port:	port index
 * @max:	entries, at most FDB_SIZE; 0: the port learns nothing
 *
 * Context: control thread, before the port forwards (a lower quota does
 * not delete what the port owns already).
 */
void fdb_set_max(struct fdb *f, uint16_t port, uint32_t max)
{
	if (port >= FDB_PORTS)
		return;
	__atomic_store_n(&f->ports[port].max, MIN(max, (uint32_t)FDB_SIZE),
			 __ATOMIC_RELAXED);
}

/**
 * fdb_port_macs() - learned entries a port owns
 * @f:		table
 * @port:	port index
 * Return: the count (with learns in flight; a snapshot)
 */
unsigned int fdb_port_macs(const struct fdb *f, uint16_t port)
{
	if (port >= FDB_PORTS)
		return 0;
	return __atomic_load_n(&f->ports[port].owned, __ATOMIC_RELAXED);
}

/**
 * fdb_dedup() - keep only the earliest copy of a MAC in its chain
 * @f:		table
 * @m:		MAC
 * @home:	the MAC's home slot
 * @pos:	probe distance of the copy we just claimed
 * @want:	the (dynamic) key we stored there
 *
 * A static copy anywhere wins over ours.
 *
 * Context: any worker, right after a successful insert (rare).
 */
static void fdb_dedup(struct fdb *f, uint64_t m, unsigned int home,
		      unsigned int pos, uint64_t want)
{
	unsigned int i;

	for (i = 0; i < FDB_PROBE; i++) {
		struct fdb_slot *s = fdb_at(f, home, i);
		uint64_t k;

		if (i == pos)
			continue;
		k = fdb_key_load(s);
		if (!k)
			return;
		if ((k & FDB_ID_MASK) != m)
			continue;
		if (i < pos || fdb_key_static(k)) {
			/* Someone placed it earlier, or for good: ours is
			 * the copy to go.  A failed CAS means it already
			 * changed hands; leave it.
			 */
			fdb_del(f, fdb_at(f, home, pos), want);
			return;
		}
		fdb_del(f, s, k);	/* lost: gone anyway */
	}
}

/**
 * fdb_static_dedup() - delete every learned copy of a static MAC
 * @f:		table
 * @m:		MAC
 * @home:	its home slot
 * @pos:	probe distance of the static copy
 *
 * Context: control thread (static install, ager).
 */
static void fdb_static_dedup(struct fdb *f, uint64_t m, unsigned int home,
			     unsigned int pos)
{
	unsigned int i, tries;

	for (i = 0; i < FDB_PROBE; i++) {
		struct fdb_slot *s = fdb_at(f, home, i);

		if (i == pos)
			continue;
		for (tries = 0; tries < FDB_RETRIES; tries++) {
			uint64_t k = fdb_key_load(s);

			if (!k)
				return;
			if ((k & FDB_ID_MASK) != m || fdb_key_static(k) ||
			    fdb_del(f, s, k))
				break;
		}
	}
}

/**
 * fdb_evict() - a learner under its quota meets a full chain
 * @f:		table
 * @m:		MAC to learn
 * @home:	its home slot
 * @port:	learner's port (its quota already taken for this entry)
 * @want:	key to store
 * @now:	now_s()
 *
 * Replaces the entry of the port holding the most entries among those in
 * the chain that are at their quota; never a static entry, never one of
 * @port's own, never one of a port under its quota.
 *
 * Return: FDB_LEARN_OK if replaced; FDB_LEARN_FULL if nothing in the
 *	   chain may go; FDB_EVICT_RETRY if the chain changed under us (the
 *	   caller retries).  On any result but OK the caller gives the
 *	   quota back.
 */
static enum fdb_learn_rc fdb_evict(struct fdb *f, uint64_t m,
				   unsigned int home, uint16_t port,
				   uint64_t want, uint32_t now)
{
	struct fdb_slot *best = NULL;
	uint32_t best_owned = 0;
	uint64_t best_k = 0;
	unsigned int i, best_pos = 0;

	for (i = 0; i < FDB_PROBE; i++) {
		uint64_t k = fdb_key_load(fdb_at(f, home, i));
		const struct fdb_port *fp;
		uint32_t owned;
		uint16_t q;

		if (!fdb_key_live(k))
			return FDB_EVICT_RETRY;	/* room now: rescan */
		if ((k & FDB_ID_MASK) == m)
			return FDB_EVICT_RETRY;	/* learned meanwhile */
		q = fdb_key_port(k);
		if (fdb_key_static(k) || q == port || q >= FDB_PORTS)
			continue;
		fp = &f->ports[q];
		owned = __atomic_load_n(&fp->owned, __ATOMIC_RELAXED);
		if (owned < __atomic_load_n(&fp->max, __ATOMIC_RELAXED) ||
		    owned <= best_owned)
			continue;
		best = fdb_at(f, home, i);
		best_k = k;
		best_owned = owned;
		best_pos = i;
	}
	if (!best)
		return FDB_LEARN_FULL;
	fdb_seen_store(best, now);
	if (!fdb_replace(f, best, best_k, want))
		return FDB_EVICT_RETRY;
	fdb_dedup(f, m, home, best_pos, want);
	return FDB_LEARN_OK;
}

/**
 * fdb_learn() - record that @mac was the source of a frame on @port
 * @f:		table
 * @mac:	source MAC; multicast and all-zero MACs are ignored
 * @port:	switch port index, < FDB_PORTS
 * @now:	now_s()
 *
 * Return: what happened (enum fdb_learn_rc); the caller counts refusals
 * Context: any worker, concurrently with other learners, lookups, the
 * ager and flushes.  Never blocks; a full chain, a full quota or a MAC
 * static elsewhere leaves @mac unlearned (frames to it flood, or go to
 * its static port).
 */
enum fdb_learn_rc fdb_learn(struct fdb *f, uint8_t dom, const uint8_t mac[6],
			    uint16_t port, uint32_t now)
{
	uint64_t m = fdb_id(dom, mac), want;
	enum fdb_learn_rc rc = FDB_LEARN_FULL;
	unsigned int home, tries, i;

	/* Callers check, but a multicast "source" learned here would
	 * capture that group's traffic for one port.
	 */
	if ((mac[0] & 1) || !(m & FDB_MAC_MASK) || port >= FDB_PORTS)
		return FDB_LEARN_IGNORED;
	want = m | (uint64_t)(port + 1) << FDB_PORT_SHIFT;
	home = fdb_hash(m);

	for (tries = 0; tries < FDB_RETRIES; tries++) {
		struct fdb_slot *free_slot = NULL;
		uint64_t free_key = 0;
		unsigned int free_pos = 0;

		for (i = 0; i < FDB_PROBE; i++) {
			struct fdb_slot *s = fdb_at(f, home, i);
			uint64_t k = fdb_key_load(s);

			if (!fdb_key_live(k)) {
				if (!free_slot) {
					free_slot = s;
					free_key = k;
					free_pos = i;
				}
				if (!k)
					break;
				continue;
			}
			if ((k & FDB_ID_MASK) != m)
				continue;

			if (k == want) {
				/* Steady state: read-only unless a second
				 * passed.
				 */
				if (__atomic_load_n(&s->seen,
						    __ATOMIC_RELAXED) != now)
					fdb_seen_store(s, now);
				return FDB_LEARN_OK;
			}
			if (fdb_key_static(k))
				return fdb_key_port(k) == port ?
				       FDB_LEARN_OK : FDB_LEARN_LOCKED;
			/* Another port's: a move, which takes one of our
			 * quota like a new entry (a port at its quota
			 * cannot take a victim's MAC over).  @seen first,
			 * so the ager never sees the new key with the old
			 * time.
			 */
			if (!fdb_quota_take(f, port))
				return FDB_LEARN_QUOTA;
			fdb_seen_store(s, now);
			if (fdb_replace(f, s, k, want))
				return FDB_LEARN_OK;
			fdb_quota_put(f, port);
			goto retry;	/* aged, flushed or moved again */
		}

		if (!fdb_quota_take(f, port))
			return FDB_LEARN_QUOTA;
		if (!free_slot) {
			/* Chain full: push out a port at its quota. */
			rc = fdb_evict(f, m, home, port, want, now);
			if (rc == FDB_LEARN_OK)
				return rc;
			fdb_quota_put(f, port);
			if (rc == FDB_LEARN_FULL)
				return rc;
			rc = FDB_LEARN_FULL;
			goto retry;
		}
		fdb_seen_store(free_slot, now);
		if (fdb_key_cas(free_slot, free_key, want)) {
			fdb_dedup(f, m, home, free_pos, want);
			return FDB_LEARN_OK;
		}
		fdb_quota_put(f, port);
retry:
		;
	}
	return rc;	/* lost every race: the next frame tries again */
}

/**
 * fdb_lookup() - where does @mac live?
 * @f:		table
 * @mac:	destination MAC
 * Return: port index, or FDB_NO_PORT if unknown (flood)
 *
 * Context: any thread, lock-free.
 */
uint16_t fdb_lookup(const struct fdb *f, uint8_t dom, const uint8_t mac[6])
{
	uint64_t m = fdb_id(dom, mac);
	unsigned int home, i;

	if (!(m & FDB_MAC_MASK))
		return FDB_NO_PORT;
	home = fdb_hash(m);
	for (i = 0; i < FDB_PROBE; i++) {
		uint64_t k = fdb_key_load(&f->slots[(home + i) &
						    (FDB_SIZE - 1)]);

		if (!k)
			break;
		if ((k & FDB_ID_MASK) == m)
			return fdb_key_port(k);
	}
	return FDB_NO_PORT;
}

/**
 * fdb_static_add() - put @mac on @port for good
 * @f:		table
 * @mac:	unicast station address
 * @port:	port index, < FDB_PORTS
 *
 * A learned entry of @mac (on any port) becomes the static one, in place;
 * other learned copies are deleted.
 *
 * Return: 0; -EINVAL (not a station address, bad port), -EEXIST (static
 *	   on another port), -ENOSPC (chain full of static entries or busy)
 * Context: control thread.
 */
int fdb_static_add(struct fdb *f, uint8_t dom, const uint8_t mac[6],
		   uint16_t port)
{
	uint64_t m = fdb_id(dom, mac), want;
	unsigned int home, tries, i;

	if ((mac[0] & 1) || !(m & FDB_MAC_MASK) || port >= FDB_PORTS)
		return -EINVAL;
	want = m | (uint64_t)(port + 1) << FDB_PORT_SHIFT | FDB_STATIC;
	home = fdb_hash(m);

	for (tries = 0; tries < FDB_RETRIES; tries++) {
		struct fdb_slot *free_slot = NULL, *evict = NULL;
		uint64_t free_key = 0, evict_key = 0;
		unsigned int free_pos = 0, evict_pos = 0;

		for (i = 0; i < FDB_PROBE; i++) {
			struct fdb_slot *s = fdb_at(f, home, i);
			uint64_t k = fdb_key_load(s);

			if (!fdb_key_live(k)) {
				if (!free_slot) {
					free_slot = s;
					free_key = k;
					free_pos = i;
				}
				if (!k)
					break;
				continue;
			}
			if ((k & FDB_ID_MASK) != m) {
				if (!evict && !fdb_key_static(k)) {
					evict = s;
					evict_key = k;
					evict_pos = i;
				}
				continue;
			}
			if (k == want) {
				fdb_static_dedup(f, m, home, i);
				return 0;
			}
			if (fdb_key_static(k))
				return -EEXIST;
			if (fdb_replace(f, s, k, want)) {
				fdb_static_dedup(f, m, home, i);
				return 0;
			}
			goto retry;
		}
		/* No @seen to store: static entries do not age. */
		if (free_slot && fdb_key_cas(free_slot, free_key, want)) {
			fdb_static_dedup(f, m, home, free_pos);
			return 0;
		}
		/* Configuration outranks learning: a full chain gives up
		 * a learned entry.
		 */
		if (!free_slot && evict &&
		    fdb_replace(f, evict, evict_key, want)) {
			fdb_static_dedup(f, m, home, evict_pos);
			return 0;
		}
		if (!free_slot && !evict)
			return -ENOSPC;
retry:
		;
	}
	return -ENOSPC;
}

/**
 * fdb_static_del() - remove the static entry of @mac on @port
 * @f:		table
 * @mac:	station address
 * @port:	port index
 * Return: 0, or -ENOENT if there was none
 * Context: control thread (port removed).
 */
int fdb_static_del(struct fdb *f, uint8_t dom, const uint8_t mac[6],
		   uint16_t port)
{
	uint64_t m = fdb_id(dom, mac), want;
	unsigned int home, i;

	if (!(m & FDB_MAC_MASK) || port >= FDB_PORTS)
		return -ENOENT;
	want = m | (uint64_t)(port + 1) << FDB_PORT_SHIFT | FDB_STATIC;
	home = fdb_hash(m);
	for (i = 0; i < FDB_PROBE; i++) {
		struct fdb_slot *s = fdb_at(f, home, i);
		uint64_t k = fdb_key_load(s);

		if (!k)
			break;
		/* Only the control thread writes static keys. */
		if (k == want && fdb_key_cas(s, k, FDB_TOMB))
			return 0;
	}
	return -ENOENT;
}

/**
 * fdb_age() - delete learned entries not seen for more than the ageing
 *	       time; re-check that no learned copy shadows a static entry
 * @f:		table
 * @now:	now_s()
 * Return: entries removed by age
 *
 * Context: control thread, about once a second.  Concurrent learners
 * win: an entry whose key changed since we judged it is left alone.
 */
unsigned int fdb_age(struct fdb *f, uint32_t now)
{
	unsigned int i, n = 0;

	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_slot *s = &f->slots[i];
		uint64_t k = fdb_key_load(s);
		int32_t idle;

		if (!fdb_key_live(k))
			continue;
		if (fdb_key_static(k)) {
			uint64_t m = k & FDB_ID_MASK;
			unsigned int home = fdb_hash(m);

			fdb_static_dedup(f, m, home,
					 (i - home) & (FDB_SIZE - 1));
			continue;
		}
		if (!f->age_s)
			continue;
		/* Signed: a worker's clock read may be a tick ahead of ours. */
		idle = (int32_t)(now - __atomic_load_n(&s->seen,
						       __ATOMIC_RELAXED));
		if (idle <= 0 || (uint32_t)idle <= f->age_s)
			continue;
		if (fdb_del(f, s, k))
			n++;
	}
	return n;
}

/**
 * fdb_flush_kind() - remove @port's learned or its static entries
 * @f:		table
 * @port:	port index
 * @statics:	the static ones (else the learned ones)
 * Return: entries removed
 *
 * A learned entry goes with fdb_del() (its quota given back); a static
 * one is written by the control thread alone and counts against no quota.
 */
static unsigned int fdb_flush_kind(struct fdb *f, uint16_t port, bool statics)
{
	uint64_t field = (uint64_t)(port + 1) << FDB_PORT_SHIFT |
			 (statics ? FDB_STATIC : 0);
	unsigned int i, n = 0;

	if (port >= FDB_PORTS)
		return 0;
	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_slot *s = &f->slots[i];
		uint64_t k = fdb_key_load(s);

		/* The port field with the static bit as asked. */
		if (!fdb_key_live(k) || (k & ~FDB_ID_MASK) != field)
			continue;
		if (statics ? fdb_key_cas(s, k, FDB_TOMB) : fdb_del(f, s, k))
			n++;
	}
	return n;
}

/**
 * fdb_flush_port() - forget every MAC learned on @port
 * @f:		table
 * @port:	port index
 * Return: entries removed (static entries stay)
 *
 * Context: control thread (port removed, guest reconnected).  A worker
 * still forwarding from @port may re-learn a MAC right after; callers
 * stop the port first when that matters.
 */
unsigned int fdb_flush_port(struct fdb *f, uint16_t port)
{
	return fdb_flush_kind(f, port, false);
}

/**
 * fdb_flush_port_static() - forget the static entries of @port
 * @f:		table
 * @port:	port index
 * Return: entries removed
 *
 * Context: control thread, the port removed (its learned entries go with
 * fdb_flush_port()).
 */
unsigned int fdb_flush_port_static(struct fdb *f, uint16_t port)
{
	return fdb_flush_kind(f, port, true);
}

/**
 * fdb_flush_dom() - forget every entry of domain @dom, static ones too
 * @f:		table
 * @dom:	domain index
 * Return: entries removed
 *
 * Context: control thread, the domain's last port gone (a learner may
 * still race it only if a port of @dom still forwards: callers quiesce).
 */
unsigned int fdb_flush_dom(struct fdb *f, uint8_t dom)
{
	unsigned int i, n = 0;

	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_slot *s = &f->slots[i];
		uint64_t k = fdb_key_load(s);

		if (!fdb_key_live(k) ||
		    (uint8_t)(k >> FDB_DOM_SHIFT) != dom)
			continue;
		if (fdb_key_static(k) ? fdb_key_cas(s, k, FDB_TOMB) :
		    fdb_del(f, s, k))
			n++;
	}
	return n;
}

/**
 * fdb_count() - entries in use
 * @f:		table
 * Return: live entries, static ones included (a snapshot; may be stale
 *	   by the time it returns)
 */
unsigned int fdb_count(const struct fdb *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < FDB_SIZE; i++)
		n += fdb_key_live(fdb_key_load(&f->slots[i]));
	return n;
}

/**
 * fdb_entry_get() - read one slot
 * @f:		table
 * @i:		slot index, < FDB_SIZE
 * @e:		out: the entry, if there is one
 * Return: true if slot @i holds an entry
 *
 * Context: any thread; one atomic load of the key, so @e is consistent
 * (its @seen may be a second newer than the key).
 */
bool fdb_entry_get(const struct fdb *f, unsigned int i, struct fdb_entry *e)
{
	uint64_t k;
	int b;

	if (i >= FDB_SIZE)
		return false;
	k = fdb_key_load(&f->slots[i]);
	if (!fdb_key_live(k))
		return false;
	for (b = 0; b < 6; b++)
		e->mac[b] = (uint8_t)(k >> (40 - 8 * b));
	e->dom = (uint8_t)(k >> FDB_DOM_SHIFT);
	e->port = fdb_key_port(k);
	e->is_static = fdb_key_static(k);
	e->seen = e->is_static ? 0 :
		  __atomic_load_n(&f->slots[i].seen, __ATOMIC_RELAXED);
	return true;
}
