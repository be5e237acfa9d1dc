/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - small helpers shared by every layer: macros, barriers, time
 *
 * Header-only on purpose: nothing here has state.
 */
#ifndef VHOSTD_UTIL_H
#define VHOSTD_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define CACHE_LINE		64
#define __cacheline_aligned	__attribute__((aligned(CACHE_LINE)))
#define __unused		__attribute__((unused))
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Our own invariants only -- never for guest or peer input. */
#define ASSERT(x)							\
	do {								\
		if (!(x))						\
			__builtin_trap();				\
	} while (0)

/* Barriers.  x86 is TSO, but the ring protocol is specified with these
 * and the driver side may run elsewhere; keep them explicit.
 */
#if defined(__x86_64__)
/* A locked add to a stack word nobody reads orders like MFENCE for plain
 * memory (all we need: store -> load across the ring) at a fraction of
 * its cost, since MFENCE also waits for non-temporal and device traffic.
 * The word sits 128 bytes below %rsp, under the red zone, so the add
 * never stalls on a local the compiler just stored there.
 */
#define smp_mb()	__asm__ __volatile__("lock; addl $0,-132(%%rsp)" \
					     ::: "memory", "cc")
#else
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

/**
 * prefetch_w() - ask for a cache line we are about to write
 * @p:		any address in the line
 *
 * __builtin_prefetch(p, 1) is a read prefetch (PREFETCHT0) unless the
 * compiler targets PRFCHW, and a line read in shared state still needs a
 * second trip to the other core before the store can land.  PREFETCHW
 * asks for it exclusive at once; CPUs without it run it as a NOP.
 */
static inline void prefetch_w(const void *p)
{
#if defined(__x86_64__)
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}

/* Single, untorn access to memory another party may change under us. */
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/**
 * now_ns() - monotonic clock in nanoseconds
 * Return: CLOCK_MONOTONIC time, ns
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * now_s() - coarse monotonic clock in seconds, cheap enough per burst
 * Return: CLOCK_MONOTONIC_COARSE seconds
 */
static inline uint32_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)ts.tv_sec;
}

#endif /* VHOSTD_UTIL_H */
