// SPDX-License-Identifier: GPL-2.0-or-later
/* rate.c - rate limits: GCRA buckets in bits per second (see rate.h)
 *
 * Times are CLOCK_MONOTONIC nanoseconds from the caller, so the unit test
 * drives the clock by hand.  Costs are computed in femtoseconds per byte
 * with a 128-bit product: 10 Tbit/s is 800 fs a byte, 1 kB/s 1e12, and a
 * 4 GiB burst at the slowest rate still fits.
 */
#include "rate.h"

/**
 * rate_cost() - nanoseconds @bytes take at the rate
 * @fs:		femtoseconds per byte
 * @bytes:	bytes
 * Return: the cost, ns (saturated)
 */
static uint64_t rate_cost(uint64_t fs, uint64_t bytes)
{
	unsigned __int128 c = (unsigned __int128)fs * bytes / RATE_FS_PER_NS;

	return c > UINT64_MAX / 4 ? UINT64_MAX / 4 : (uint64_t)c;
}

/**
 * rate_default_burst() - the burst when none is configured
 * @bps:	rate, bits per second
 * Return: RATE_BURST_MS of traffic at @bps, at least RATE_BURST_MIN
 *
 * A worker that sleeps while a source is held back wakes a millisecond
 * or two late (epoll_wait()'s resolution, timer slack): a burst of 10 ms
 * keeps that lateness from lowering the rate.
 */
uint64_t rate_default_burst(uint64_t bps)
{
	uint64_t b = bps / 8 * RATE_BURST_MS / 1000;

	return b < RATE_BURST_MIN ? RATE_BURST_MIN : b;
}

/**
 * rate_set() - configure a bucket
 * @r:		bucket
 * @bps:	bits per second, 0 (off) or RATE_MIN_BPS..RATE_MAX_BPS
 * @burst:	bytes, 0 for rate_default_burst()
 * @now:	clock, ns: the bucket is full from then on
 *
 * Context: control thread; workers may be using the bucket: they see the
 * old or the new rate for a frame or two, never a torn one (each field
 * is one atomic word).
 */
void rate_set(struct rate *r, uint64_t bps, uint64_t burst, uint64_t now)
{
	uint64_t fs = 0, tol = 0;

	if (bps) {
		if (!burst)
			burst = rate_default_burst(bps);
		fs = 8000000000000000ULL / bps;
		if (!fs)
			fs = 1;
		tol = rate_cost(fs, burst);
	}
	__atomic_store_n(&r->bps, bps, __ATOMIC_RELAXED);
	__atomic_store_n(&r->burst, bps ? burst : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tol_ns, tol, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tat_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&r->fs_per_byte, fs, __ATOMIC_RELEASE);
}

/**
 * rate_room() - bytes that may pass now
 * @r:		bucket, on
 * @now:	clock, ns
 * Return: the room left within the tolerance, bytes; <= 0 if none
 */
int64_t rate_room(const struct rate *r, uint64_t now)
{
	uint64_t fs = __atomic_load_n(&r->fs_per_byte, __ATOMIC_ACQUIRE);
	uint64_t tat = __atomic_load_n(&r->tat_ns, __ATOMIC_RELAXED);
	uint64_t tol = __atomic_load_n(&r->tol_ns, __ATOMIC_RELAXED);
	uint64_t debt = tat > now ? tat - now : 0;
	unsigned __int128 b;

	if (!fs)
		return INT64_MAX;
	if (debt >= tol)
		return 0;
	b = (unsigned __int128)(tol - debt) * RATE_FS_PER_NS / fs;
	return b > INT64_MAX ? INT64_MAX : (int64_t)b;
}

/**
 * rate_wait() - how long a held-back source should wait
 * @r:		bucket, on
 * @now:	clock, ns
 * Return: ns until half the burst may pass, 0 if it may now
 *
 * Half, not a frame: a source woken for one frame's room would take
 * a wake-up per frame.
 */
uint64_t rate_wait(const struct rate *r, uint64_t now)
{
	uint64_t tat = __atomic_load_n(&r->tat_ns, __ATOMIC_RELAXED);
	uint64_t tol = __atomic_load_n(&r->tol_ns, __ATOMIC_RELAXED);
	uint64_t debt = tat > now ? tat - now : 0;

	return debt > tol / 2 ? debt - tol / 2 : 0;
}

/**
 * rate_charge() - account bytes that passed
 * @r:		bucket, on
 * @now:	clock, ns
 * @bytes:	what passed
 *
 * Context: any worker; lock-free.
 */
void rate_charge(struct rate *r, uint64_t now, uint64_t bytes)
{
	uint64_t fs = __atomic_load_n(&r->fs_per_byte, __ATOMIC_ACQUIRE);
	uint64_t tat = __atomic_load_n(&r->tat_ns, __ATOMIC_RELAXED), next;

	if (!fs || !bytes)
		return;
	do {
		next = (tat > now ? tat : now) + rate_cost(fs, bytes);
	} while (!__atomic_compare_exchange_n(&r->tat_ns, &tat, next, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

/**
 * rate_admit() - one frame: through and charged, or refused
 * @r:		bucket, on
 * @now:	clock, ns
 * @len:	its bytes
 * Return: true if it may pass
 *
 * Context: any worker; lock-free.
 */
bool rate_admit(struct rate *r, uint64_t now, uint32_t len)
{
	uint64_t fs = __atomic_load_n(&r->fs_per_byte, __ATOMIC_ACQUIRE);
	uint64_t tol = __atomic_load_n(&r->tol_ns, __ATOMIC_RELAXED);
	uint64_t tat = __atomic_load_n(&r->tat_ns, __ATOMIC_RELAXED), t;

	if (!fs)
		return true;
	do {
		t = tat > now ? tat : now;
		if (t - now >= tol)
			return false;
	} while (!__atomic_compare_exchange_n(&r->tat_ns, &tat,
					      t + rate_cost(fs, len), true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}
