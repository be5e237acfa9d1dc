// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rate.c - unit tests of the rate limits' GCRA buckets (rate.h)
 *
 * The clock is ours, so rates are checked exactly: a bucket lets a burst
 * through at once, then the rate; a held-back source is told when half
 * the burst is back; debt taken by an overshooting turn is paid before
 * more passes; long runs come out at the rate whatever the sleep pattern;
 * the extremes of the range neither overflow nor round to nothing; and
 * workers racing on one bucket never get more than burst + rate x time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../../src/rate.h"

#define MS	1000000ULL	/* ns */
#define S	(1000 * MS)

static struct rate r;

/* 8 Mbit/s is 1 byte per us, 1000 bytes per ms: easy to check. */
static void test_burst_then_rate(void **state)
{
	(void)state;
	rate_set(&r, 8000000, 100000, 0);
	assert_true(rate_on(&r));
	assert_int_equal(r.burst, 100000);
	assert_int_equal(rate_room(&r, 0), 100000);
	assert_true(rate_admit(&r, 0, 60000));
	assert_int_equal(rate_room(&r, 0), 40000);
	assert_true(rate_admit(&r, 0, 39999));
	assert_true(rate_admit(&r, 0, 1500));	/* within: then in debt */
	assert_false(rate_admit(&r, 0, 1));
	assert_true(rate_room(&r, 0) <= 0);
	/* 1500 bytes over the burst: 1.5 ms to pay, then 1 byte per us. */
	assert_false(rate_admit(&r, 1 * MS, 1));
	assert_true(rate_admit(&r, 1500 * 1000 + 1000, 1));
	/* After a long silence: the burst, not more. */
	assert_int_equal(rate_room(&r, 100 * S), 100000);
}

static void test_wait_and_charge(void **state)
{
	uint64_t t = 0;

	(void)state;
	rate_set(&r, 8000000, 100000, 0);
	assert_int_equal(rate_wait(&r, 0), 0);
	/* An overshooting turn: 130000 bytes charged at once. */
	rate_charge(&r, 0, 130000);
	assert_true(rate_room(&r, 0) <= 0);
	/* Half the burst back: debt 130 ms down to 50 ms, 80 ms on. */
	assert_int_equal(rate_wait(&r, 0), 80 * MS);
	assert_true(rate_room(&r, 80 * MS) == 50000);
	t = 80 * MS;
	assert_int_equal(rate_wait(&r, t), 0);
	/* Off: no limit at all. */
	rate_set(&r, 0, 0, t);
	assert_false(rate_on(&r));
	assert_true(rate_admit(&r, t, 1 << 30));
	assert_int_equal(r.burst, 0);
}

/* A source that runs every 1-3 ms and takes all the room it is given
 * moves the rate exactly, however late it runs.
 */
static void test_long_run(void **state)
{
	static const uint64_t rates[] = { 8000, 1000000, 100000000,
					  10000000000ULL, RATE_MAX_BPS };
	unsigned int k;

	(void)state;
	for (k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
		uint64_t t = 0, sent = 0, want;
		unsigned int i;

		rate_set(&r, rates[k], 0, 0);
		for (i = 0; i < 10000; i++) {
			int64_t room = rate_room(&r, t);

			if (room > 0) {
				/* take the room and one 1500-byte frame more */
				rate_charge(&r, t, (uint64_t)room + 1500);
				sent += (uint64_t)room + 1500;
			}
			t += (1 + i % 3) * MS;
		}
		/* At most the burst and a frame more than rate x time. */
		want = (uint64_t)((unsigned __int128)rates[k] * t / 8 / S);
		assert_true(sent <= want + r.burst + 1500);
		/* And not less than the rate, but for one sleep's worth. */
		assert_true(sent + rates[k] / 8 * 3 * MS / S + 1500 >= want);
	}
}

static void test_defaults_and_range(void **state)
{
	(void)state;
	assert_int_equal(rate_default_burst(8000), RATE_BURST_MIN);
	assert_int_equal(rate_default_burst(8000000000ULL), 10000000);
	rate_set(&r, RATE_MAX_BPS, RATE_BURST_MAX, 0);
	assert_true(rate_room(&r, 0) > 0);
	rate_set(&r, RATE_MIN_BPS, RATE_BURST_MAX, 0);
	assert_true(rate_room(&r, 0) > 0);
	/* A 4 GiB charge at 1 kB/s: about 50 days of debt, no overflow. */
	rate_charge(&r, 0, RATE_BURST_MAX);
	rate_charge(&r, 0, RATE_BURST_MAX);
	assert_true(rate_room(&r, 0) <= 0);
	assert_true(rate_wait(&r, 0) > 1000 * S);
}

struct racer {
	unsigned int id;
	uint64_t got;
};

#define RACE_STEPS	200000

static void *racer(void *arg)
{
	struct racer *rc = arg;
	unsigned int i;

	for (i = 0; i < RACE_STEPS; i++) {
		uint64_t t = (uint64_t)i * 1000;	/* 1 us a step */

		if (rate_admit(&r, t, 100))
			rc->got += 100;
	}
	return NULL;
}

/* Four workers admitting 100-byte frames on one bucket, over the same
 * 200 ms of clock: together no more than burst + rate x 200 ms.
 */
static void test_race(void **state)
{
	struct racer rc[4];
	pthread_t th[4];
	uint64_t sum = 0, cap;
	unsigned int i;

	(void)state;
	rate_set(&r, 80000000, 100000, 0);	/* 10 bytes per us */
	for (i = 0; i < 4; i++) {
		rc[i].id = i;
		rc[i].got = 0;
		assert_int_equal(pthread_create(&th[i], NULL, racer, &rc[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		sum += rc[i].got;
	}
	cap = 100000 + (uint64_t)RACE_STEPS * 10 + 100;
	assert_true(sum <= cap);
	assert_true(sum >= cap / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_rate),
		cmocka_unit_test(test_wait_and_charge),
		cmocka_unit_test(test_long_run),
		cmocka_unit_test(test_defaults_and_range),
		cmocka_unit_test(test_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
