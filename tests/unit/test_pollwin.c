// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pollwin.c - the poll window choice, bulk detection, contention
 *		    backoff and the pressure file parser (src/pollwin.c)
 *
 * Gaps are fed as a queue would see them; the window is checked against
 * what the rule in pollwin.c's DOC says it must be, worked out by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/pollwin.h"

#define US	1000ull
#define MS	1000000ull

static const struct pw_contend calm;

/* @n gaps of @gap_ns each. */
static void feed(struct pw_queue *q, unsigned int n, uint64_t gap_ns)
{
	while (n--)
		pw_gap(q, gap_ns);
}

static void test_learn_then_poll(void **state)
{
	struct pw_queue q;

	(void)state;
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 0);
	assert_int_equal(q.mode, PW_LEARN);
	assert_int_equal(pw_window(&q, &calm, 0), PW_FIRST_NS);
	/* Round trips of 2-3 us: every gap is under 4 us. */
	feed(&q, 200, 2500);
	assert_int_equal(q.mode, PW_POLL);
	assert_int_equal(pw_window(&q, &calm, 0), 4 * US);
}

static void test_long_gaps_sleep(void **state)
{
	struct pw_queue q;

	(void)state;
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 0);
	feed(&q, 300, 3 * MS);
	assert_int_equal(q.mode, PW_SLEEP);
	assert_int_equal(pw_window(&q, &calm, 0), 0);
}

static void test_mixed_cap(void **state)
{
	struct pw_queue q;
	unsigned int i;

	(void)state;
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 0);
	/* 60 % short, 40 % past the cap: target 0 is out of reach, but
	 * the cap catches most gaps: poll the longest bound under it.
	 */
	for (i = 0; i < 400; i++)
		pw_gap(&q, i % 5 < 3 ? 10 * US : 2 * MS);
	assert_int_equal(q.mode, PW_POLL);
	assert_int_equal(pw_window(&q, &calm, 0), 256 * US);
	/* 40 % short: sleep. */
	pw_queue_init(&q, 0);
	for (i = 0; i < 400; i++)
		pw_gap(&q, i % 5 < 2 ? 10 * US : 2 * MS);
	assert_int_equal(q.mode, PW_SLEEP);
}

/* The histogram ctl shows: per mille by bucket, adding up, 0 when empty. */
static void test_hist_pm(void **state)
{
	uint16_t pm[PW_BUCKETS];
	struct pw_queue q;
	unsigned int i, sum = 0;

	(void)state;
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 0);
	pw_hist_pm(&q, pm);
	for (i = 0; i < PW_BUCKETS; i++)
		assert_int_equal(pm[i], 0);
	/* 3 in 4 gaps of 500 ns (bucket 0), 1 in 4 of 100 us (64-127 us:
	 * bucket 7), then past the decay (weight over PW_WEIGHT_MAX).
	 */
	for (i = 0; i < 1000; i++)
		pw_gap(&q, i % 4 ? 500 : 100 * US);
	pw_hist_pm(&q, pm);
	for (i = 0; i < PW_BUCKETS; i++)
		sum += pm[i];
	assert_in_range(pm[0], 740, 760);
	assert_in_range(pm[7], 240, 260);
	assert_in_range(sum, 990, 1000);
	/* Longer than the last bound: the last bucket. */
	pw_queue_init(&q, 0);
	pw_gap(&q, 3600ull * 1000 * MS);
	pw_hist_pm(&q, pm);
	assert_int_equal(pm[PW_BUCKETS - 1], 1000);
}

static void test_target(void **state)
{
	struct pw_queue q;
	unsigned int i;

	(void)state;
	/* C = 50 us, T = 10 us: 80 % of gaps must be caught.  85 % at
	 * 2.5 us, 15 % at 100 us: 4 us is enough.
	 */
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 10);
	for (i = 0; i < 400; i++)
		pw_gap(&q, i % 20 < 17 ? 2500 : 100 * US);
	assert_int_equal(q.mode, PW_POLL);
	assert_int_equal(pw_window(&q, &calm, 0), 4 * US);
	/* Target 0 must catch all: 128 us. */
	pw_queue_init(&q, 0);
	for (i = 0; i < 400; i++)
		pw_gap(&q, i % 20 < 17 ? 2500 : 100 * US);
	assert_int_equal(pw_window(&q, &calm, 0), 128 * US);
	/* A target at or above the wake-up cost: sleeping meets it. */
	pw_queue_init(&q, 50);
	feed(&q, 100, 2500);
	assert_int_equal(q.mode, PW_SLEEP);
	assert_int_equal(pw_window(&q, &calm, 0), 0);
}

static void test_bulk(void **state)
{
	struct pw_queue q;
	unsigned int i;

	(void)state;
	pw_init(50 * US, -1, -1);
	/* Polled stream: gaps under a microsecond. */
	pw_queue_init(&q, 0);
	feed(&q, 100, 300);
	assert_int_equal(q.mode, PW_BULK);
	assert_int_equal(pw_window(&q, &calm, 0), 0);
	/* Slept stream: every wake-up finds 40 frames.  Its gaps are the
	 * wake-up's, short enough to poll, yet it stays bulk.
	 */
	pw_queue_init(&q, 0);
	for (i = 0; i < 100; i++) {
		q.burst_woken = true;
		q.burst = 40;
		pw_busy_end(&q);
		pw_gap(&q, 60 * US);
	}
	assert_int_equal(q.mode, PW_BULK);
	/* Request/response slept: one frame a wake-up: poll. */
	pw_queue_init(&q, 0);
	for (i = 0; i < 100; i++) {
		q.burst_woken = true;
		q.burst = 1;
		pw_busy_end(&q);
		pw_gap(&q, 60 * US);
	}
	assert_int_equal(q.mode, PW_POLL);
	assert_int_equal(pw_window(&q, &calm, 0), 64 * US);
	/* Only busy periods a wake-up began count. */
	q.burst = 500;
	q.burst_woken = false;
	pw_busy_end(&q);
	assert_true(q.wake_burst < PW_BULK_FRAMES * 16);
	assert_int_equal(q.burst, 0);
}

static void test_fixed(void **state)
{
	struct pw_queue q;
	struct pw_contend c = { .until_ns = 10 * MS };

	(void)state;
	pw_init(50 * US, 30, -1);
	pw_queue_init(&q, 0);
	feed(&q, 100, 3 * MS);
	/* Fixed: neither the history nor a backoff changes it. */
	assert_int_equal(pw_window(&q, &c, 0), 30 * US);
	pw_contend_sample(&c, 50 * MS, 40 * MS);
	assert_int_equal(c.backoffs, 0);
	assert_int_equal(pw_fixed_us(), 30);
}

/* One 20 ms interval polled @poll_ms with @lost_us lost. */
static void interval(struct pw_contend *c, uint64_t *t, uint64_t *poll,
		     uint64_t poll_ms, uint64_t lost_us)
{
	*t += 20 * MS;
	*poll += poll_ms * MS;
	c->lost_ns += lost_us * US;
	pw_contend_sample(c, *t, *poll);
}

static void test_contend(void **state)
{
	struct pw_contend c = { 0 };
	struct pw_queue q;
	uint64_t t = 1000 * MS, poll = 0, hold;

	(void)state;
	pw_init(50 * US, -1, -1);
	pw_queue_init(&q, 0);
	feed(&q, 100, 2500);
	pw_contend_sample(&c, t, poll);		/* the baseline */
	interval(&c, &t, &poll, 15, 200);	/* 1.3 % lost: calm */
	assert_int_equal(c.backoffs, 0);
	assert_int_equal(pw_window(&q, &c, t), 4 * US);
	interval(&c, &t, &poll, 15, 1500);	/* 10 %: someone wants it */
	assert_int_equal(c.backoffs, 1);
	assert_int_equal(c.lost_pm, 100);
	assert_int_equal(pw_window(&q, &c, t), 0);
	assert_int_equal(pw_window(&q, &c, t + 99 * MS), 0);
	assert_int_equal(pw_window(&q, &c, t + 100 * MS), 4 * US);
	/* Again at once: the hold doubles. */
	t += 100 * MS;
	pw_contend_sample(&c, t, poll);		/* a new baseline */
	interval(&c, &t, &poll, 15, 3000);
	assert_int_equal(c.backoffs, 2);
	assert_int_equal(c.until_ns, t + 200 * MS);
	hold = c.hold_ns;
	/* Clean intervals halve it again. */
	t += 200 * MS;
	pw_contend_sample(&c, t, poll);
	interval(&c, &t, &poll, 15, 0);
	assert_true(c.hold_ns < hold);
	/* An interval with under a millisecond of polling decides
	 * nothing, however much of it was lost.
	 */
	interval(&c, &t, &poll, 0, 900);
	assert_int_equal(c.backoffs, 2);
	/* After a long sleep, the first sample only starts an interval. */
	t += 5000 * MS;
	poll += 15 * MS;
	c.lost_ns += 15 * MS;
	pw_contend_sample(&c, t, poll);
	assert_int_equal(c.backoffs, 2);
}

/* The pressure file says @total_us. */
static void psi_set(int fd, uint64_t total_us)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "some avg10=0.00 avg60=0.00 "
			 "avg300=0.00 total=%llu\nfull avg10=0.00 total=0\n",
			 (unsigned long long)total_us);

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, line, (size_t)n, 0), n);
}

static void test_contend_psi(void **state)
{
	char path[] = "/tmp/test_pollwin.XXXXXX";
	struct pw_contend c = { 0 };
	uint64_t t = 1000 * MS, poll = 0, psi = 0;
	unsigned int i;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	psi_set(fd, 0);
	pw_init(50 * US, -1, fd);
	pw_contend_sample(&c, t, poll);
	/* 10 % stalled and 10 % lost: calm with PSI (the 5 % lost rule is
	 * for hosts without it).
	 */
	psi += 2000;
	psi_set(fd, psi);
	interval(&c, &t, &poll, 15, 1500);
	assert_int_equal(c.stall_pm, 100);
	assert_int_equal(c.backoffs, 0);
	/* Half the time someone waits for a CPU: one interval is a few
	 * waits, the decayed rate (25, 144, 233, 300) crosses 250 on the
	 * third such interval.
	 */
	for (i = 0; i < 2; i++) {
		psi += 10000;
		psi_set(fd, psi);
		interval(&c, &t, &poll, 15, 0);
		assert_int_equal(c.stall_pm, 500);
		assert_int_equal(c.backoffs, 0);
	}
	psi += 10000;
	psi_set(fd, psi);
	interval(&c, &t, &poll, 15, 0);
	assert_int_equal(c.backoffs, 1);
	assert_true(c.stall_avg >= 250);
	/* Calm pressure, but a fifth of the polling lost: back off. */
	t += 200 * MS;
	pw_contend_sample(&c, t, poll);
	for (i = 0; i < 8; i++) {
		interval(&c, &t, &poll, 15, 0);	/* the average decays */
		t += 5 * MS;
	}
	assert_true(c.stall_avg < 250);
	i = (unsigned int)c.backoffs;
	t += 1000 * MS;
	pw_contend_sample(&c, t, poll);
	interval(&c, &t, &poll, 15, 3000);
	assert_int_equal(c.backoffs, i + 1);
	pw_init(50 * US, -1, -1);
	close(fd);
}

static void test_stall_read(void **state)
{
	char path[] = "/tmp/test_pollwin.XXXXXX";
	static const char ok[] =
		"some avg10=0.00 avg60=0.62 avg300=0.47 total=2275935\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	static const char *const bad[] = {
		"full avg10=0.00 total=5\n",
		"some avg10=0.00 avg60=0.62\nfull total=7\n",
		"",
	};
	unsigned int i;
	int fd;

	(void)state;
	assert_int_equal(pw_stall_read(-1), -1);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, ok, sizeof(ok) - 1), sizeof(ok) - 1);
	assert_int_equal(pw_stall_read(fd), 2275935);
	assert_int_equal(pw_stall_read(fd), 2275935);	/* pread: again */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, bad[i], strlen(bad[i]), 0),
				 (ssize_t)strlen(bad[i]));
		assert_int_equal(pw_stall_read(fd), -1);
	}
	close(fd);
}

static void test_calibrate(void **state)
{
	uint32_t ns;

	(void)state;
	ns = pw_calibrate(4);
	/* A wake-up takes some time, and not a second. */
	assert_true(ns > 0);
	assert_true(ns < 1000 * MS);
	assert_string_equal(pw_mode_name(PW_BULK), "bulk");
	assert_string_equal(pw_mode_name(99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_then_poll),
		cmocka_unit_test(test_long_gaps_sleep),
		cmocka_unit_test(test_mixed_cap),
		cmocka_unit_test(test_hist_pm),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_contend),
		cmocka_unit_test(test_contend_psi),
		cmocka_unit_test(test_stall_read),
		cmocka_unit_test(test_calibrate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
