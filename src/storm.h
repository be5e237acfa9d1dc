/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storm.h - storm control: a token bucket per source port for the frames
 *	     the switch floods
 *
 * Broadcast, multicast and unknown unicast are copied to every other
 * port; without a budget one guest blasting them fills every bystander's
 * RX ring.  Each source port gets @rate flooded frames per second, in
 * bursts of at most @burst; the rest are dropped at the source, before
 * they cost anyone a copy.
 *
 * Cheap on purpose: a burst that floods reads the clock once and takes
 * its tokens with one atomic operation; a burst that floods nothing pays
 * nothing.  (Reading the clock only when the bucket runs short is not
 * enough: the time credited then would also fill a bucket drained just
 * before, letting two bursts through at once.)  The clock is the
 * caller's (switch.c passes CLOCK_MONOTONIC_COARSE in ns), so the unit
 * test drives it by hand.
 */
#ifndef VHOSTD_STORM_H
#define VHOSTD_STORM_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct storm - one port's bucket
 * @tokens:	frames that may still be flooded now.  Atomic: a TAP's
 *		queues may be polled by several workers at once
 * @stamp_ns:	the time up to which tokens have been credited; atomic,
 *		advanced by the one refill that wins a compare-and-swap
 * @ns_per_token: 1e9 / rate
 * @burst:	bucket depth: most tokens ever held
 * @on:		false: no limit (rate 0); the other fields are unused
 */
struct storm {
	int64_t tokens;
	uint64_t stamp_ns;
	uint64_t ns_per_token;
	uint32_t burst;
	bool on;
} __attribute__((aligned(64)));

/*
 * storm_init()		bucket for @rate frames/s (0: unlimited), depth
 *			@burst (0: storm_default_burst()), full at @now_ns.
 * storm_default_burst() the depth used when none is configured.
 * storm_refill()	credit the tokens earned since the last refill.
 * storm_take()		up to @n tokens from what is there (no clock).
 * storm_give()		return tokens taken but not used.
 * storm_admit()	refill by @clock, then up to @n tokens (what
 *			callers use, once per burst that floods).
 */
void storm_init(struct storm *s, uint32_t rate, uint32_t burst,
		uint64_t now_ns);
uint32_t storm_default_burst(uint32_t rate);
void storm_refill(struct storm *s, uint64_t now_ns);

/**
 * storm_take() - take up to @n tokens
 * @s:		bucket (on)
 * @n:		tokens wanted
 * Return: tokens granted, 0..@n
 *
 * Context: any worker; lock-free.
 */
static inline unsigned int storm_take(struct storm *s, unsigned int n)
{
	int64_t t = __atomic_load_n(&s->tokens, __ATOMIC_RELAXED), g;

	do {
		if (t <= 0)
			return 0;
		g = t < (int64_t)n ? t : (int64_t)n;
	} while (!__atomic_compare_exchange_n(&s->tokens, &t, t - g, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return (unsigned int)g;
}

/**
 * storm_full() - whether the bucket holds its whole depth
 * @s:		bucket (on)
 * Return: true if full (it earns nothing while full)
 */
static inline bool storm_full(const struct storm *s)
{
	return __atomic_load_n(&s->tokens, __ATOMIC_RELAXED) >=
	       (int64_t)s->burst;
}

/**
 * storm_give() - return tokens storm_take() granted but nobody used
 * @s:		bucket
 * @n:		tokens
 */
static inline void storm_give(struct storm *s, unsigned int n)
{
	__atomic_fetch_add(&s->tokens, (int64_t)n, __ATOMIC_RELAXED);
}

/**
 * storm_admit() - tokens for up to @want flooded frames
 * @s:		bucket (on)
 * @want:	frames that may flood (the rest of a burst)
 * @clock:	the clock, ns
 * Return: tokens granted, 0..@want; the caller gives back what it does
 *	   not use (storm_give())
 *
 * The refill comes first, so time earns tokens only up to the depth,
 * whatever was taken afterwards.  Under a storm the refill usually finds
 * less than a token's worth of time and writes nothing.
 */
static inline unsigned int storm_admit(struct storm *s, unsigned int want,
				       uint64_t (*clock)(void))
{
	storm_refill(s, clock());
	return storm_take(s, want);
}

#endif /* VHOSTD_STORM_H */
