// SPDX-License-Identifier: GPL-2.0-or-later
/* test_storm.c - unit tests of the storm control token bucket
 *
 * The clock is ours (storm.h takes the time as an argument), so rates are
 * checked exactly: a bucket grants its depth, then one token per 1/rate
 * seconds, keeps the remainder of a partial token, never holds more than
 * its depth, and under racing workers never grants more than depth +
 * rate x time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../../src/storm.h"

#define MS	1000000ULL	/* ns */

static struct storm st;

static void test_depth_then_rate(void **state)
{
	storm_init(&st, 1000, 10, 0);
	assert_true(st.on);
	assert_int_equal(storm_take(&st, 20), 10);
	assert_int_equal(storm_take(&st, 1), 0);
	/* 1 ms: one token at 1000/s; half a token is kept for later. */
	storm_refill(&st, 1 * MS);
	assert_int_equal(storm_take(&st, 5), 1);
	storm_refill(&st, 1 * MS + MS / 2);
	assert_int_equal(storm_take(&st, 5), 0);
	storm_refill(&st, 2 * MS);
	assert_int_equal(storm_take(&st, 5), 1);
	/* A clock behind the stamp credits nothing. */
	storm_refill(&st, 1 * MS);
	assert_int_equal(storm_take(&st, 5), 0);
	/* After a long silence: full, not more. */
	storm_refill(&st, 10000 * MS);
	assert_int_equal(storm_take(&st, 100), 10);
	/* Tokens not used go back. */
	storm_refill(&st, 10005 * MS);
	assert_int_equal(storm_take(&st, 5), 5);
	storm_give(&st, 3);
	assert_int_equal(storm_take(&st, 5), 3);
}

/* One simulated second of a flood with a 4 ms clock (HZ 250): exactly
 * depth + rate tokens, whatever the granularity.
 */
static void test_coarse_clock(void **state)
{
	uint64_t t, granted = 0;

	storm_init(&st, 1000, 0, 0);
	assert_int_equal(st.burst, 128);	/* storm_default_burst() */
	for (t = 0; t <= 1000 * MS; t += 4 * MS) {
		unsigned int g;

		storm_refill(&st, t);
		while ((g = storm_take(&st, 32)))
			granted += g;
	}
	assert_int_equal(granted, 128 + 1000);
}

static uint64_t fake_ns;

static uint64_t fake_clock(void)
{
	return fake_ns;
}

/* As the switch takes tokens: a bucket full since long ago grants its
 * depth once, not twice (the quiet time is not credited again when it
 * runs short), then the rate.
 */
static void test_admit_after_quiet(void **state)
{
	uint64_t granted = 0;
	unsigned int g;

	fake_ns = 0;
	storm_init(&st, 500, 100, 0);		/* 2 ms per token */
	fake_ns = 5000 * MS;			/* 5 s of quiet */
	while ((g = storm_admit(&st, 32, fake_clock)))
		granted += g;
	assert_int_equal(granted, 100);
	/* One second of flood in 1 ms steps: the rate, exactly. */
	for (; fake_ns <= 6000 * MS; fake_ns += MS)
		while ((g = storm_admit(&st, 32, fake_clock)))
			granted += g;
	assert_int_equal(granted, 100 + 500);
	/* A bucket partly drained, then quiet: full again, not more --
	 * the quiet time fills it, and is not credited again once the
	 * flood drains it.
	 */
	fake_ns += 1000 * MS;
	granted = 0;
	assert_int_equal(storm_admit(&st, 2, fake_clock), 2);
	fake_ns += 1000 * MS;
	while ((g = storm_admit(&st, 32, fake_clock)))
		granted += g;
	assert_int_equal(granted, 100);
	/* Quiet again, then unused tokens come back. */
	fake_ns += 1000 * MS;
	assert_int_equal(storm_admit(&st, 32, fake_clock), 32);
	storm_give(&st, 32);
	assert_true(storm_full(&st));
}

static void test_defaults(void **state)
{
	assert_int_equal(storm_default_burst(0), 128);
	assert_int_equal(storm_default_burst(1000), 128);
	assert_int_equal(storm_default_burst(100000), 2000);
	assert_int_equal(storm_default_burst(100000000), 2000000);
	storm_init(&st, 0, 0, 5);
	assert_false(st.on);
	/* 1e9 frames/s: one ns per token, not zero. */
	storm_init(&st, 1000000000, 4, 0);
	storm_refill(&st, 3);
	assert_int_equal(storm_take(&st, 100), 4);
}

/* Racing workers on one bucket (a TAP's queues): never more than depth
 * plus what the elapsed time earned.
 */
#define RACE_THREADS	4
#define RACE_STEPS	200000

static uint64_t race_clock;

static void *race_worker(void *arg)
{
	uint64_t granted = 0;
	unsigned int i;

	for (i = 0; i < RACE_STEPS; i++) {
		uint64_t now = __atomic_add_fetch(&race_clock, 1000,
						  __ATOMIC_RELAXED);
		unsigned int g = storm_take(&st, 8);

		if (g < 8) {
			storm_refill(&st, now);
			g += storm_take(&st, 8 - g);
		}
		if (g > 1 && (i & 1)) {
			storm_give(&st, 1);	/* one not used */
			g--;
		}
		granted += g;
	}
	return (void *)(uintptr_t)granted;
}

static void test_race(void **state)
{
	pthread_t t[RACE_THREADS];
	uint64_t granted = 0, earned;
	unsigned int i;
	void *g;

	race_clock = 0;
	storm_init(&st, 100000, 50, 0);		/* 10 us per token */
	for (i = 0; i < RACE_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, race_worker,
						NULL), 0);
	for (i = 0; i < RACE_THREADS; i++) {
		pthread_join(t[i], &g);
		granted += (uintptr_t)g;
	}
	earned = race_clock / 10000;
	assert_true(granted <= 50 + earned);
	/* ...and the bucket was not starved by the races either. */
	assert_true(granted >= earned / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth_then_rate),
		cmocka_unit_test(test_coarse_clock),
		cmocka_unit_test(test_admit_after_quiet),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
