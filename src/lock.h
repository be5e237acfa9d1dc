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
 *
 * Who must hold which lock is written on the functions, in clang's
 * thread-safety attributes (below), and checked by tests/analyze.sh
 * (clang -Wthread-safety, an error there): a function that needs a
 * queue's lock says REQUIRES(q->lock), one that takes it itself says
 * EXCLUDES(q->lock), and a call that breaks either is found at build
 * time, not by a race in a soak.  The attributes name locks through a
 * function's parameters only: C cannot put GUARDED_BY on a struct
 * member before clang 18, and a lock taken in one function and released
 * in another (a worker's turn: port_vhost_rx_begin() .. _rx_end()) is
 * marked NO_TSA with the reason; those stay documented in prose.
 */
#ifndef VHOSTD_LOCK_H
#define VHOSTD_LOCK_H

#include <sched.h>
#include <stdbool.h>

#define VLOCK_SPINS	256	/* PAUSEs before yielding the CPU */

/* clang's thread-safety attributes; nothing for other compilers. */
#if defined(__clang__)
#define TSA(x)		__attribute__((x))
#else
#define TSA(x)
#endif
#define CAPABILITY(n)	TSA(capability(n))
#define ACQUIRE(...)	TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...)	TSA(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) TSA(try_acquire_capability(__VA_ARGS__))
#define REQUIRES(...)	TSA(requires_capability(__VA_ARGS__))
#define EXCLUDES(...)	TSA(locks_excluded(__VA_ARGS__))
#define NO_TSA		TSA(no_thread_safety_analysis)

/**
 * struct vlock - spinlock
 * @held:	true while taken
 */
struct CAPABILITY("vlock") vlock {
	bool held;
};

static inline void vlock_init(struct vlock *l)
{
	__atomic_store_n(&l->held, false, __ATOMIC_RELAXED);
}

static inline bool vlock_trylock(struct vlock *l) TRY_ACQUIRE(true, *l)
	NO_TSA;
static inline bool vlock_trylock(struct vlock *l)
{
	return !__atomic_exchange_n(&l->held, true, __ATOMIC_ACQUIRE);
}

static inline void vlock_lock(struct vlock *l) ACQUIRE(*l) NO_TSA;
static inline void vlock_unlock(struct vlock *l) RELEASE(*l) NO_TSA;

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
