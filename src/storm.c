// SPDX-License-Identifier: GPL-2.0-or-later
/* storm.c - storm control token bucket: set-up and refill
 *
 * The fast paths (take, give) are inline in storm.h.  The bucket is
 * refilled lazily, by whoever finds it short: tokens = elapsed time /
 * ns_per_token, with the remainder kept (the stamp advances by whole
 * tokens only), so a clock read on every burst neither loses nor
 * invents tokens.  After a long quiet spell the bucket is simply full.
 */
#include "storm.h"

#define STORM_MIN_BURST		128	/* frames */
#define STORM_BURST_MS		20	/* of @rate, at least */

/**
 * storm_default_burst() - bucket depth for @rate when none is configured
 * @rate:	frames per second
 * Return: the larger of STORM_MIN_BURST frames and STORM_BURST_MS of
 *	   @rate: several ticks of a coarse clock (1-4 ms), so the bucket
 *	   can reach @rate however coarse the clock refilling it
 */
uint32_t storm_default_burst(uint32_t rate)
{
	uint32_t b = (uint32_t)((uint64_t)rate * STORM_BURST_MS / 1000);

	return b > STORM_MIN_BURST ? b : STORM_MIN_BURST;
}

/**
 * storm_init() - a full bucket
 * @s:		bucket
 * @rate:	flooded frames per second; 0 = no limit
 * @burst:	depth; 0 = storm_default_burst(@rate)
 * @now_ns:	the clock storm_refill() will be given
 *
 * Context: control thread, before the port forwards.
 */
void storm_init(struct storm *s, uint32_t rate, uint32_t burst,
		uint64_t now_ns)
{
	s->on = rate != 0;
	s->burst = burst ? burst : storm_default_burst(rate);
	s->ns_per_token = rate ? 1000000000ULL / rate : 0;
	if (rate && !s->ns_per_token)
		s->ns_per_token = 1;
	__atomic_store_n(&s->tokens, (int64_t)s->burst, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stamp_ns, now_ns, __ATOMIC_RELAXED);
}

/**
 * storm_refill() - credit the tokens earned since the last refill
 * @s:		bucket (on)
 * @now_ns:	current time, same clock as storm_init()'s
 *
 * Of several workers refilling at once, the one that advances the stamp
 * credits; the others find the tokens there.  A refill that overshoots
 * the depth is trimmed back to it.  On a full bucket it only moves the
 * stamp to @now_ns: the time it sat full earned nothing.
 *
 * Context: any worker; lock-free.
 */
void storm_refill(struct storm *s, uint64_t now_ns)
{
	uint64_t stamp = __atomic_load_n(&s->stamp_ns, __ATOMIC_RELAXED);
	uint64_t add, next;
	int64_t t;

	if (now_ns <= stamp)
		return;
	if (storm_full(s)) {
		__atomic_compare_exchange_n(&s->stamp_ns, &stamp, now_ns, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return;
	}
	add = (now_ns - stamp) / s->ns_per_token;
	if (!add)
		return;
	next = stamp + add * s->ns_per_token;
	if (add >= s->burst) {
		add = s->burst;
		next = now_ns;
	}
	if (!__atomic_compare_exchange_n(&s->stamp_ns, &stamp, next, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	t = __atomic_add_fetch(&s->tokens, (int64_t)add, __ATOMIC_RELAXED);
	if (t > (int64_t)s->burst)
		__atomic_fetch_sub(&s->tokens, t - (int64_t)s->burst,
				   __ATOMIC_RELAXED);
}
