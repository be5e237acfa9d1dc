/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock.h - the queue lock: a spinlock that yields
 *
 * Each virtqueue has one, taken by the datapath once per burst (and once
 * per look at a dry queue) and by the control thread to change what a
 * started queue uses.  It is nearly always free, so its cost is the cost
 * of the uncontended path, and there a pthread mutex pays two locked
 * instructions, one to lock and one to unlock.  Here unlocking is a plain
 * release store: on x86 an ordinary MOV, which does not wait for the
 * stores before it (the frame just copied into a guest's buffers, its
 * used entries) to leave the store buffer.
 *
 * Contention comes from the control thread remapping a ring or the memory
 * table (rare, short) and from several workers delivering to one guest.
 * A waiter spins with PAUSE for a while and then yields the CPU on every
 * try, so a holder that was preempted (2 cores and more threads than
 * that) gets to run and finish.
 */
#ifndef VHOSTD_LOCK_H
#define VHOSTD_LOCK_H

#include <sched.h>
#include <stdbool.h>

#define VLOCK_SPINS	256	/* PAUSEs before yielding the CPU */

/**
 * struct vlock - spinlock
 * @held:	true while taken
 */
struct vlock {
	bool held;
};

static inline void vlock_init(struct vlock *l)
{
	__atomic_store_n(&l->held, false, __ATOMIC_RELAXED);
}

static inline bool vlock_trylock(struct vlock *l)
{
	return !__atomic_exchange_n(&l->held, true, __ATOMIC_ACQUIRE);
}

/**
 * vlock_lock() - take @l, waiting as long as it takes
 * @l:		lock
 *
 * Waiters read until the lock looks free before they try the exchange
 * again, so they do not keep pulling the line away from the holder.
 */
static inline void vlock_lock(struct vlock *l)
{
	unsigned int spins = 0;

	while (!vlock_trylock(l)) {
		while (__atomic_load_n(&l->held, __ATOMIC_RELAXED)) {
			if (spins < VLOCK_SPINS) {
				spins++;
				__builtin_ia32_pause();
			} else {
				sched_yield();
			}
		}
	}
}

static inline void vlock_unlock(struct vlock *l)
{
	__atomic_store_n(&l->held, false, __ATOMIC_RELEASE);
}

#endif /* VHOSTD_LOCK_H */
